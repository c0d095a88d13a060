=== Dervish orders: Egyptian player, February 1884 (game khartoum-3)

line 7: SETUP ER01 ER02 EG01 WITH J. Stewart AT Omdurman (1941)
    ER01 ER02 EG01 J. Stewart set up at Omdurman (1941) before the first
        Egyptian player turn (2.1); what you do not place stays at its default
        place
line 8: SETUP CIV01 AT Khartoum (1942)
    CIV01 set up at Khartoum (1942) before the first Egyptian player turn
        (2.1); what you do not place stays at its default place
line 9: NOT POSSIBLE: SETUP ER03 AT Berber (3026)
    error: ER03 is set up by the line "Khartoum and or Omdurman, Gordon, J.
        Stewart, 5 Gunboats, 4L and 4R class rifle units 2 Guns.": not at
        Berber (3026) (2.1)
line 10: NOT POSSIBLE: SETUP MS001 AT Omdurman (1941)
    error: MS001 is not an Egyptian unit
line 11: NOT UNDERSTOOD: SETUP AT Omdurman
    nothing to set up; expected SETUP unit ... [WITH leader ...] AT place
line 12: READY
    your orders are complete

Summary: 5 orders understood, 3 errors, 0 warnings.
Lines marked NOT UNDERSTOOD or NOT POSSIBLE will not be carried out; the other
orders stand. To change anything, send the whole set again: it replaces this
one.
You said READY, but lines of this set will not be carried out: the turn waits for
a mended set, or for READY AS IS to play this one as it stands.

Defaults: where these orders say nothing, Dervish decides for you as follows
(from the position now; marches and combats may change the stacks):
- combat losses, in your player turn and the other player's: worst quality
  first, civilians last (9.4); DEFEND LOSE FIRST unit ... to choose
- a random event that takes units of your choice takes the worst unit of your
  largest stack (EVENT LOSSES unit ... to choose)

--- canonical orders ---
GAME khartoum-3
SIDE Egyptian
SECRET (given)
MONTH 1884-02
SETUP ER01 ER02 EG01 WITH J. Stewart AT Omdurman (1941)
SETUP CIV01 AT Khartoum (1942)
SETUP ER03 AT Berber (3026)
SETUP MS001 AT Omdurman (1941)
READY
