=== Dervish orders: Mahdist player, February 1884 (game khartoum-3)

line 6: MARCH STACK Rufa'a (2547) TO Kamlin (2446)
    6 units (MS010 MS011 MS012 MS013 MS014 MS015) from Rufa'a (2547); a full
        march gives 8 movement points
    march 1: 2546 - Kamlin (2446) (5 movement points), after a march roll
line 8: MARCH STACK Wad Medani (2650) TO Kamlin (2446) THEN TO 2143
    6 units (MS028 MS029 MS030 MR01 MR02 MR03) from Wad Medani (2650); a full
        march gives 8 movement points
    march 1: 2549 - 2449 - 2448 - 2447 - Kamlin (2446) (5 movement points), after a march roll
    march 2: 2345 - 2245 - 2144 - 2143 (4 movement points), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 10: MARCH STACK Duem (1752) TO 1848
    3 units (MR04 MG01 MG02) from Duem (1752); a full march gives 5 movement points
    march 1: 1852 - 1851 - 1850 - 1849 - 1848 (5 movement points), after a march roll
line 14: MARCH UNITS MS043 MS044 MS045 MS046 TO 5120
    4 units (MS043 MS044 MS045 MS046) from 5219; a full march gives 8 movement points
    march 1: 5220 - 5120 (4 movement points), after a march roll
line 16: READY
    your orders are complete

Summary: 5 orders understood, 0 errors, 0 warnings.
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
- a random event that takes units of your choice takes the worst unit of your
  largest stack (EVENT LOSSES unit ... to choose)

--- canonical orders ---
GAME khartoum-3
SIDE Mahdist
MARCH STACK Rufa'a (2547) TO Kamlin (2446)
MARCH STACK Wad Medani (2650) TO Kamlin (2446) THEN TO 2143
MARCH STACK Duem (1752) TO 1848
MARCH UNITS MS043 MS044 MS045 MS046 TO 5120
READY
