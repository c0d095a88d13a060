=== Dervish orders: Egyptian player, February 1884

line 5: MARCH STACK Tokar (5723) TO El Teb (5722) THEN TO Trinkitat (5721)
    2 units (ER10 EG04) from Tokar (5723); a full march gives 5 movement points
    march 1: El Teb (5722) (1 movement point), after a march roll
    march 2: Trinkitat (5721) (1 movement point), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 6: MARCH STACK Korti (1226) TO Ambukol (1125)
    1 unit (ES04) from Korti (1226); a full march gives 6 movement points
    march 1: Ambukol (1125) (1 movement point), after a march roll
line 7: READY
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
SIDE Egyptian
MARCH STACK Tokar (5723) TO El Teb (5722) THEN TO Trinkitat (5721)
MARCH STACK Korti (1226) TO Ambukol (1125)
READY
