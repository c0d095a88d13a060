=== Dervish orders: Egyptian player, February 1884

line 1: NOT UNDERSTOOD: ATTACK ANY
    this option belongs to a march and no MARCH line is above it; expected a MARCH line first
line 2: NOT UNDERSTOOD: MRACH STACK Sinkat TO 5220
    MRACH does not start an order; expected an order (MARCH, EXPEND SUPPLY,
        KEEP SUPPLY, PLACE, WITHDRAW, DISMOUNT, RAILWAY, EVENT LOSSES, DEFEND
        LOSE FIRST, SETUP, READY) or a command (HELP, MAP, ROUTE, STATUS,
        HISTORY, RESEND, JOIN, ADDRESS); did you mean MARCH?
line 3: NOT UNDERSTOOD: MARCH STACK Kartoum TO Omdurman
    no place called Kartoum; expected the hex of the stack; did you mean Khartoum (1942)?
line 4: NOT UNDERSTOOD: MARCH STACK Metema TO Shendi
    no place called Metema; expected the hex of the stack; did you mean Metemma (Metammeh, 2534)?
line 5: NOT POSSIBLE: MARCH UNITS MS031 MS032 TO Handub (5318)
    error: MS031 is not an Egyptian unit
line 6: NOT UNDERSTOOD: MARCH XR05 ER06 TO Tamai
    no unit type XR; expected a unit ID such as ER05; did you mean ER05?
line 7: NOT UNDERSTOOD: MARCH STACK Tokar TO El Teb ATACK ANY
    ATACK is not understood here; expected THEN, ATTACK, AVOID, CONTINUE,
        STOP, RETREAT, LED BY, DROP or LOSE FIRST; did you mean ATTACK?
line 8: MARCH LEADER Baker TO Tamai (5320)
        RETREAT TOWARDS Souakim (5419)
    7 units (ER05 ER06 ER07 ES01 EC01 EG03 BN01) with Baker from Souakim
        (5419); a full march gives 5 movement points
    march 1: 5420 - Tamai (5320) (3 movement points), after a march roll
line 9: READY
    your orders are complete

Summary: 3 orders understood, 7 errors, 0 warnings.
Lines marked NOT UNDERSTOOD or NOT POSSIBLE will not be carried out; the other
orders stand. To change anything, send the whole set again: it replaces this
one.
You said READY, but lines of this set will not be carried out: the turn waits for
a mended set, or for READY AS IS to play this one as it stands.

Where the turn may differ from this receipt: each march by land rolls on the
march table (No March: the stack stays where it is; a short march: it stops on
the way); a lost or drawn combat ends the stack's marching, and a lost one
sends it back (8.31, 9.8); random events come before your marches and may
change the position; units that arrive this month stay where they land (8.3).

Defaults: where these orders say nothing, Dervish decides for you as follows
(from the position now; marches and combats may change the stacks):
- combat losses, in your player turn and the other player's: worst quality
  first, civilians last (9.4); DEFEND LOSE FIRST unit ... to choose
- a random event that takes units of your choice takes the worst unit of your
  largest stack (EVENT LOSSES unit ... to choose)

--- canonical orders ---
MARCH UNITS MS031 MS032 TO Handub (5318)
MARCH LEADER Baker TO Tamai (5320)
  RETREAT TOWARDS Souakim (5419)
READY
