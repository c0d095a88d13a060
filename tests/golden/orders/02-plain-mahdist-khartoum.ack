=== Dervish orders: Mahdist player, February 1884 (game khartoum-3)

line 6: MARCH STACK Geteina (1847) TO Jebel Aulia (1944) THEN TO 1943
    6 units (MS001 MS002 MS003 MC01 MC02 MC03) with Mahdi from Geteina (1847);
        a full march gives 8 movement points
    march 1: 1946 - 1945 - Jebel Aulia (1944) (3 movement points), after a march roll
    march 2: 1943 (1 movement point), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 7: MARCH STACK Kamlin (2446) TO Soba (2043)
    6 units (MS004 MS005 MS006 MS007 MS008 MS009) from Kamlin (2446); a full
        march gives 8 movement points
    march 1: 2345 - 2245 - 2144 - 2143 - Soba (2043) (5 movement points), after a march roll
line 8: MARCH STACK Wad Medani (2650) TO Kamlin (2446) THEN TO 2143
    6 units (MS028 MS029 MS030 MR01 MR02 MR03) from Wad Medani (2650); a full
        march gives 8 movement points
    march 1: 2549 - 2449 - 2448 - 2447 - Kamlin (2446) (5 movement points), after a march roll
    march 2: 2345 - 2245 - 2144 - 2143 (4 movement points), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 9: MARCH STACK Mesalamieh (2548) TO Kamlin (2446)
    6 units (MS016 MS017 MS018 MS019 MS020 MS021) from Mesalamieh (2548); a
        full march gives 8 movement points
    march 1: 2448 - 2447 - Kamlin (2446) (3 movement points), after a march roll
line 10: MARCH UNITS MR04 RIVER DOWN TO Jebel Aulia (1944)
    1 unit (MR04) from Duem (1752); a full march gives 8 movement points
    march 1: 1751 - 1750 - 1749 - 1748 - 1747 - 1746 - 1846 - 1845 - Jebel
        Aulia (1944) (no march roll)
line 11: MARCH UNITS MG01 MG02 TO 1848 THEN TO Geteina (1847)
    2 units (MG01 MG02) from Duem (1752); a full march gives 5 movement points
    march 1: 1852 - 1851 - 1850 - 1849 - 1848 (5 movement points), after a march roll
    march 2: Geteina (1847) (1 movement point), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 12: MARCH STACK 5219 TO 5120
    4 units (MS043 MS044 MS045 MS046) from 5219; a full march gives 8 movement points
    march 1: 5220 - 5120 (4 movement points), after a march roll
line 13: MARCH LEADER Osman Digma TO Tamai (5320)
        DROP MS035 MS036 AT Hasheen (5319)
    6 units (MS031 MS032 MS033 MS034 MS035 MS036) with Osman Digma from 5317;
        a full march gives 8 movement points
    march 1: Handub (5318) - Hasheen (5319) - Tamai (5320) (5 movement points), after a march roll
line 14: MARCH STACK Otao (5218) TO Handub (5318)
    6 units (MS037 MS038 MS039 MS040 MS041 MS042) from Otao (5218); a full
        march gives 8 movement points
    march 1: Handub (5318) (1 movement point), after a march roll
line 15: EVENT LOSSES MS046 MS045
    if a random event takes units, these go first: MS046 MS045
line 16: READY
    your orders are complete

Summary: 11 orders understood, 0 errors, 0 warnings.
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
GAME khartoum-3
SIDE Mahdist
SECRET (given)
MONTH 1884-02
MARCH STACK Geteina (1847) TO Jebel Aulia (1944) THEN TO 1943
MARCH STACK Kamlin (2446) TO Soba (2043)
MARCH STACK Wad Medani (2650) TO Kamlin (2446) THEN TO 2143
MARCH STACK Mesalamieh (2548) TO Kamlin (2446)
MARCH UNITS MR04 RIVER DOWN TO Jebel Aulia (1944)
MARCH UNITS MG01 MG02 TO 1848 THEN TO Geteina (1847)
MARCH STACK 5219 TO 5120
MARCH LEADER Osman Digma TO Tamai (5320)
  DROP MS035 MS036 AT Hasheen (5319)
MARCH STACK Otao (5218) TO Handub (5318)
EVENT LOSSES MS046 MS045
READY
