=== Dervish orders: Egyptian player, February 1884

line 12: passed over, not an order: Gordon's gunboats hurt us. This month we close in from both banks
line 14: NOT POSSIBLE: MARCH STACK Geteina (1847) TO Jebel Aulia (1944) THEN TO 1943
    error: no Egyptian units at Geteina (1847)
line 15: NOT POSSIBLE: MARCH STACK Kamlin (2446) TO 2143 THEN TO Soba (2043)
    error: no Egyptian units at Kamlin (2446)
line 19: NOT POSSIBLE: MARCH STACK Rufa'a (2547) TO Kamlin (2446)
    error: no Egyptian units at Rufa'a (2547)
line 20: NOT POSSIBLE: MARCH STACK 5317 TO Handub (5318)
        ATTACK Souakim (5419)
        RETREAT TOWARDS 5317
    error: no Egyptian units at 5317
line 21: READY
    your orders are complete

Summary: 5 orders understood, 4 errors, 0 warnings.
1 line was passed over as not orders (greetings, notes): if one was meant as
an order, write it again starting with its order word.
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
MARCH STACK Geteina (1847) TO Jebel Aulia (1944) THEN TO 1943
MARCH STACK Kamlin (2446) TO 2143 THEN TO Soba (2043)
MARCH STACK Rufa'a (2547) TO Kamlin (2446)
MARCH STACK 5317 TO Handub (5318)
  ATTACK Souakim (5419)
  RETREAT TOWARDS 5317
READY
