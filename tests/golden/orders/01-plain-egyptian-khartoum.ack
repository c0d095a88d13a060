=== Dervish orders: Egyptian player, February 1884 (game khartoum-3)

line 6: MARCH UNITS ER03 ER04 EL04 WITH J. Stewart RIVER DOWN TO Berber (3026)
    3 units (ER03 ER04 EL04) with J. Stewart from Khartoum (1942); a full
        march gives 6 movement points
    march 1: Omdurman (1941) - 1940 - 1939 - 1938 - Sabaloka (2038) - 2037 -
        2136 - 2236 - 2335 - 2435 - Metammeh (2534) - 2634 - 2733 - 2732 -
        2832 - 2831 - 2830 - 2929 - 2928 - 2927 - 2926 - Berber (3026) (no
        march roll)
line 7: MARCH UNITS ER05 ER06 EC01 EG03 BN01 WITH Baker FLEET TO Trinkitat (5721) THEN TO El Teb (5722)
        ATTACK ANY
        CONTINUE
        RETREAT TOWARDS Trinkitat (5721)
        LOSE FIRST EC01
    5 units (ER05 ER06 EC01 EG03 BN01) with Baker from Souakim (5419); a full
        march gives 5 movement points
    march 1: Trinkitat (5721) (with the fleet, 0 movement points), after a march roll
    march 1: El Teb (5722) (1 movement point), in the same march
line 12: MARCH STACK Abou Hamed (2516) TO 2920 THEN TO Berber (3026)
    1 unit (ES03) from Abou Hamed (2516); a full march gives 6 movement points
    march 1: 2617 - 2717 - 2818 - 2819 - 2919 - 2920 (6 movement points), after a march roll
    march 2: 2921 - 2922 - 2923 - 3024 - 3025 - Berber (3026) (6 movement
        points), after a march roll
    (each march after the first starts where the one before it ends, if the stack gets there)
line 13: MARCH STACK Old Dongola (0625) TO Debbeh (0826)
    1 unit (ES06) from Old Dongola (0625); a full march gives 6 movement points
    march 1: 0725 - Debbeh (0826) (5 movement points), after a march roll
line 14: EVENT LOSSES ES07 ES06
    if a random event takes units, these go first: ES07 ES06
line 15: PLACE gordon-relief AT Wady Halfa (1101)
    gordon-relief arrives at Wady Halfa (1101) when it comes
line 16: READY
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
- combat losses, in your player turn and the other player's: worst quality
  first, civilians last (9.4); DEFEND LOSE FIRST unit ... to choose

--- canonical orders ---
GAME khartoum-3
SIDE Egyptian
SECRET (given)
MONTH 1884-02
MARCH UNITS ER03 ER04 EL04 WITH J. Stewart RIVER DOWN TO Berber (3026)
MARCH UNITS ER05 ER06 EC01 EG03 BN01 WITH Baker FLEET TO Trinkitat (5721) THEN TO El Teb (5722)
  ATTACK ANY
  CONTINUE
  RETREAT TOWARDS Trinkitat (5721)
  LOSE FIRST EC01
MARCH STACK Abou Hamed (2516) TO 2920 THEN TO Berber (3026)
MARCH STACK Old Dongola (0625) TO Debbeh (0826)
EVENT LOSSES ES07 ES06
PLACE gordon-relief AT Wady Halfa (1101)
READY
