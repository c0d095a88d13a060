=== Dervish orders: Mahdist player, October 1882 (game obeid-1)

line 7: MARCH UNITS MC01 MC02 MC03 TO 0355
    3 units (MC01 MC02 MC03) from 0156; a full march gives 10 movement points
    march 1: 0256 - 0355 (2 movement points), after a march roll
line 9: MARCH LEADER Mahdi TO 0257
    17 units (MS001 MS002 MS003 MS004 MS005 MS006 MS007 MS008 MS009 MS010
        MS011 MS012 MS013 MS014 MS015 MS016 MS017) with Mahdi from 0156; a
        full march gives 8 movement points
    march 1: 0257 (1 movement point), after a march roll
line 11: MARCH STACK 1953 TO 1853
        ATTACK Duem (1752)
        RETREAT TOWARDS 1953
        LOSE FIRST MS018 MS019
    10 units (MS018 MS019 MS020 MS021 MS022 MS023 MS024 MS025 MS026 MS027)
        from 1953; a full march gives 8 movement points
    march 1: 1853 (1 movement point), after a march roll
line 13: MARCH STACK 2549 TO Mesalamieh (2548) THEN TO Kamlin (2446)
    10 units (MS028 MS029 MS030 MS031 MS032 MS033 MS034 MS035 MS036 MS037)
        from 2549; a full march gives 8 movement points
    march 1: Mesalamieh (2548) (1 movement point), after a march roll
    march 2: 2448 - 2447 - Kamlin (2446) (3 movement points), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 14: EVENT LOSSES MS027
    if a random event takes units, these go first: MS027
line 15: READY
    your orders are complete

Summary: 6 orders understood, 0 errors, 0 warnings.
You said READY: your orders for this turn are complete.

Where the turn may differ from this receipt: each march by land rolls on the
march table (No March: the stack stays where it is; a short march: it stops on
the way); a lost or drawn combat ends the stack's marching, and a lost one
sends it back (8.31, 9.8); random events come before your marches and may
change the position; units that arrive this month stay where they land (8.3);
the Egyptian player turn comes first and may change the position, and the
Mahdist arrival roll (3.21) may send units home before they march.

Defaults: where these orders say nothing, Dervish decides for you as follows
(from the position now; marches and combats may change the stacks):
- new Mahdist units join the largest Mahdist stack on the main map (PLACE
  RECRUITS AT a stack's place to choose; 3.21)
- combat losses, in your player turn and the other player's: worst quality
  first, civilians last (9.4); DEFEND LOSE FIRST unit ... to choose

--- canonical orders ---
GAME obeid-1
SIDE Mahdist
SECRET (given)
MONTH 1882-10
MARCH UNITS MC01 MC02 MC03 TO 0355
MARCH LEADER Mahdi TO 0257
MARCH STACK 1953 TO 1853
  ATTACK Duem (1752)
  RETREAT TOWARDS 1953
  LOSE FIRST MS018 MS019
MARCH STACK 2549 TO Mesalamieh (2548) THEN TO Kamlin (2446)
EVENT LOSSES MS027
READY
