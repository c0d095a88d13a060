=== Dervish orders: Egyptian player, February 1884

line 1: MARCH LEADER Baker TO Tamai (5320)
        ATTACK ANY
        RETREAT TOWARDS Souakim (5419)
        LOSE FIRST ES01
    7 units (ER05 ER06 ER07 ES01 EC01 EG03 BN01) with Baker from Souakim
        (5419); a full march gives 5 movement points
    march 1: 5420 - Tamai (5320) (3 movement points), after a march roll
line 5: MARCH STACK Debbeh (0826) TO Korti (1226)
    1 unit (ES05) from Debbeh (0826); a full march gives 6 movement points
    march 1: 0926 - 1026 - 1126 - Korti (1226) (4 movement points), after a march roll
line 6: READY
    your orders are complete

Summary: 3 orders understood, 0 errors, 0 warnings.
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
MARCH LEADER Baker TO Tamai (5320)
  ATTACK ANY
  RETREAT TOWARDS Souakim (5419)
  LOSE FIRST ES01
MARCH STACK Debbeh (0826) TO Korti (1226)
READY
