=== Dervish orders: Egyptian player, October 1882 (game obeid-1)

line 7: MARCH UNITS EL05 EL06 EL07 EC01 BS01 RIVER UP TO Duem (1752)
    5 units (EL05 EL06 EL07 EC01 BS01) from Khartoum (1942); a full march gives 5 movement points
    march 1: 1943 - Jebel Aulia (1944) - 1945 - 1946 - Geteina (1847) - 1848 -
        1849 - 1850 - 1851 - 1852 - Duem (1752) (no march roll)
line 8: EXPEND SUPPLY AT Duem (1752)
    the stack at Duem (1752) expends a supply unit instead of rolling for attrition
line 11: MARCH UNITS EG01 TO El Obeid (0258)
    1 unit (EG01) from Bara (0354); a full march gives 5 movement points
    march 1: 0355 - 0356 - 0257 - El Obeid (0258) (4 movement points), after a march roll
line 12: MARCH STACK Goz Regeb (4138) TO 4440 THEN TO Kassala (4743)
    2 units (ES07 ES08) from Goz Regeb (4138); a full march gives 6 movement points
    march 1: 4239 - 4339 - 4440 (3 movement points), after a march roll
    march 2: 4441 - 4442 - 4443 - 4543 - 4644 - Kassala (4743) (6 movement
        points), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 13: EVENT LOSSES ES05 ES06
    if a random event takes units, these go first: ES05 ES06
line 14: PLACE egy-1882-11 AT Souakim (5419)
    egy-1882-11 arrives at Souakim (5419) when it comes
line 15: READY
    your orders are complete

Summary: 7 orders understood, 0 errors, 0 warnings.
You said READY: your orders for this turn are complete.

Where the turn may differ from this receipt: each march by land rolls on the
march table (No March: the stack stays where it is; a short march: it stops on
the way); a lost or drawn combat ends the stack's marching, and a lost one
sends it back (8.31, 9.8); random events come before your marches and may
change the position; units that arrive this month stay where they land (8.3).

Defaults: where these orders say nothing, Dervish decides for you as follows
(from the position now; marches and combats may change the stacks):
- supply at Khartoum (1942): a supply unit is expended in the attrition phase,
  as it has 17 units (stacks of 7 or more, or under siege); KEEP SUPPLY AT
  Khartoum (1942) to keep it and roll for attrition
- combat losses, in your player turn and the other player's: worst quality
  first, civilians last (9.4); DEFEND LOSE FIRST unit ... to choose

--- canonical orders ---
GAME obeid-1
SIDE Egyptian
SECRET (given)
MONTH 1882-10
MARCH UNITS EL05 EL06 EL07 EC01 BS01 RIVER UP TO Duem (1752)
EXPEND SUPPLY AT Duem (1752)
MARCH UNITS EG01 TO El Obeid (0258)
MARCH STACK Goz Regeb (4138) TO 4440 THEN TO Kassala (4743)
EVENT LOSSES ES05 ES06
PLACE egy-1882-11 AT Souakim (5419)
READY
