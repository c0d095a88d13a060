=== Dervish orders: Egyptian player, February 1884

line 1: NOT POSSIBLE: MARCH STACK Mesalamieh (2548) TO Kamlin (2446)
    error: no Egyptian units at Mesalamieh (2548)
line 2: NOT POSSIBLE: MARCH STACK Abu Haraz (2749) TO Rufa'a (2547) THEN TO Kamlin (2446)
    error: no Egyptian units at Abu Haraz (2749)
line 3: NOT POSSIBLE: MARCH STACK Otao (5218) TO Handub (5318)
        ATTACK Souakim (5419)
    error: no Egyptian units at Otao (5218)
line 4: NOT POSSIBLE: MARCH STACK 5317 TO Tamai (5320)
    error: no Egyptian units at 5317
line 5: READY
    your orders are complete

Summary: 5 orders understood, 4 errors, 0 warnings.
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
MARCH STACK Mesalamieh (2548) TO Kamlin (2446)
MARCH STACK Abu Haraz (2749) TO Rufa'a (2547) THEN TO Kamlin (2446)
MARCH STACK Otao (5218) TO Handub (5318)
  ATTACK Souakim (5419)
MARCH STACK 5317 TO Tamai (5320)
READY
