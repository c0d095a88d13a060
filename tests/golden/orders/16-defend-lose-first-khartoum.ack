=== Dervish orders: Egyptian player, February 1884 (game khartoum-3)

line 8: DEFEND LOSE FIRST ER01 ER02 ER03
    these take combat losses first (within the limits of 9.4), from your
        player turn this month until your next, the other player's attacks
        included: ER01 ER02 ER03
line 9: NOT POSSIBLE: DEFEND LOSE FIRST MS001
    error: MS001 is not an Egyptian unit
line 10: NOT UNDERSTOOD: Defend first ER04
    first where LOSE belongs; expected DEFEND LOSE FIRST unit ...
line 11: READY
    your orders are complete

Summary: 3 orders understood, 2 errors, 0 warnings.
Lines marked NOT UNDERSTOOD or NOT POSSIBLE will not be carried out; the other
orders stand. To change anything, send the whole set again: it replaces this
one.
You said READY, but lines of this set will not be carried out: the turn waits for
a mended set, or for READY AS IS to play this one as it stands.

Defaults: where these orders say nothing, Dervish decides for you as follows
(from the position now; marches and combats may change the stacks):
- a random event that takes units of your choice takes the worst unit of your
  largest stack (EVENT LOSSES unit ... to choose)

--- canonical orders ---
GAME khartoum-3
SIDE Egyptian
SECRET (given)
MONTH 1884-02
DEFEND LOSE FIRST ER01 ER02 ER03
DEFEND LOSE FIRST MS001
READY
