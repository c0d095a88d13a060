=== Dervish orders: Egyptian player, February 1884

line 1: MARCH UNITS ER01 ER02 EL01 WITH J. Stewart RIVER DOWN TO Shendi (2635)
    3 units (ER01 ER02 EL01) with J. Stewart from Khartoum (1942); a full
        march gives 6 movement points
    march 1: Omdurman (1941) - 1940 - 1939 - 1938 - Sabaloka (2038) - 2137 -
        2237 - 2336 - 2436 - 2535 - Shendi (2635) (no march roll)
line 2: MARCH STACK Tokar (5723) TO El Teb (5722) THEN TO Trinkitat (5721)
    2 units (ER10 EG04) from Tokar (5723); a full march gives 5 movement points
    march 1: El Teb (5722) (1 movement point), after a march roll
    march 2: Trinkitat (5721) (1 movement point), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 3: MARCH STACK Sinkat (5021) TO 5220
    2 units (ER08 ER09) from Sinkat (5021); a full march gives 6 movement points
    march 1: 5120 - 5220 (4 movement points), after a march roll
line 4: EXPEND SUPPLY AT Khartoum (1942)
    the stack at Khartoum (1942) expends a supply unit instead of rolling for attrition
    warning: no Egyptian supply unit at Khartoum (1942) now: the order counts
        only if one marches there (5.2 IV)
line 5: READY
    your orders are complete

Summary: 5 orders understood, 0 errors, 1 warning.
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
MARCH UNITS ER01 ER02 EL01 WITH J. Stewart RIVER DOWN TO Shendi (2635)
MARCH STACK Tokar (5723) TO El Teb (5722) THEN TO Trinkitat (5721)
MARCH STACK Sinkat (5021) TO 5220
EXPEND SUPPLY AT Khartoum (1942)
READY
