=== Dervish orders: Egyptian player, February 1884

line 1: MARCH STACK Khartoum (1942) TO Omdurman (1941)
    11 units (ER01 ER02 ER03 ER04 EL01 EL02 EL03 EL04 EG01 EG02 CIV01) with
        Gordon, J. Stewart from Khartoum (1942); a full march gives 4 movement
        points
    march 1: Omdurman (1941) (1 movement point), after a march roll
line 2: MARCH LEADER Baker TO Tamai (5320)
        ATTACK ANY
        RETREAT TOWARDS Souakim (5419)
    7 units (ER05 ER06 ER07 ES01 EC01 EG03 BN01) with Baker from Souakim
        (5419); a full march gives 5 movement points
    march 1: 5420 - Tamai (5320) (3 movement points), after a march roll
line 5: MARCH UNITS ER08 ER09 TO 5220
    2 units (ER08 ER09) from Sinkat (5021); a full march gives 6 movement points
    march 1: 5120 - 5220 (4 movement points), after a march roll
line 6: MARCH STACK Metammeh (2534) TO Shendi (2635)
    1 unit (ES02) from Metammeh (2534); a full march gives 6 movement points
    march 1: Shendi (2635) (4 movement points), after a march roll
line 7: EVENT LOSSES ES07
    if a random event takes units, these go first: ES07
line 8: READY
    your orders are complete

Summary: 6 orders understood, 0 errors, 0 warnings.
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

--- canonical orders ---
MARCH STACK Khartoum (1942) TO Omdurman (1941)
MARCH LEADER Baker TO Tamai (5320)
  ATTACK ANY
  RETREAT TOWARDS Souakim (5419)
MARCH UNITS ER08 ER09 TO 5220
MARCH STACK Metammeh (2534) TO Shendi (2635)
EVENT LOSSES ES07
READY
