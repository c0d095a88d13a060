=== Dervish orders: Egyptian player, February 1884

line 1: passed over, not an order: Hello Dervish,
line 3: passed over, not an order: Here are my orders for February:
line 5: MARCH STACK Berber (3026) TO Ed Damer (3029)
    1 unit (ER11) from Berber (3026); a full march gives 6 movement points
    march 1: 3027 - 3028 - Ed Damer (3029) (6 movement points), after a march roll
line 6: MARCH STACK Debbeh (0826) TO Korti (1226)
    1 unit (ES05) from Debbeh (0826); a full march gives 6 movement points
    march 1: 0926 - 1026 - 1126 - Korti (1226) (4 movement points), after a march roll
line 7: KEEP SUPPLY AT Khartoum (1942)
    the stack at Khartoum (1942) keeps its supply and rolls for attrition
    warning: no Egyptian supply unit at Khartoum (1942) now: the order counts
        only if one marches there (5.2 IV)
line 8: READY
    your orders are complete
line 10: passed over, not an order: Thanks
line 11: passed over, not an order: Tom

Summary: 4 orders understood, 0 errors, 1 warning.
4 lines were passed over as not orders (greetings, notes): if one was meant as
an order, write it again starting with its order word.
You said READY: your orders for this turn are complete.

Where the turn may differ from this receipt: each march by land rolls on the
march table (No March: the stack stays where it is; a short march: it stops on
the way); a lost or drawn combat ends the stack's marching, and a lost one
sends it back (8.31, 9.8); random events come before your marches and may
change the position; units that arrive this month stay where they land (8.3).

Defaults: where these orders say nothing, Dervish decides for you as follows
(from the position now; marches and combats may change the stacks):
- combat losses, in your player turn and the other player's: worst quality
  first, civilians last (9.4); DEFEND LOSE FIRST unit ... to choose
- a random event that takes units of your choice takes the worst unit of your
  largest stack (EVENT LOSSES unit ... to choose)

--- canonical orders ---
MARCH STACK Berber (3026) TO Ed Damer (3029)
MARCH STACK Debbeh (0826) TO Korti (1226)
KEEP SUPPLY AT Khartoum (1942)
READY
