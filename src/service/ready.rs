//! READY keeps the orders (docs/orders.md, READY). A mail whose orders
//! part is only READY (with or without commands and settings) confirms the
//! side's standing set as a new version with the same orders; it never
//! replaces the set with an empty one. A set with lines that will not be
//! carried out (NOT UNDERSTOOD or NOT POSSIBLE) does not play the turn
//! early on READY: it waits for a mended set or for `READY AS IS`, and at
//! the deadline it plays as it stands. READY with no standing set seals an
//! empty set and counts: the side gives no orders this month (a Mahdist
//! player with nothing to do says just that), and the receipt says so
//! plainly.

use super::outcome::{Context, Outcome};
use super::{Result, Service};
use crate::orders::defaults::ready_sentence;
use crate::orders::{self, Checked, Input, Order, Parsed, Setting, Sheet, Vocabulary, parse};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;
use crate::store::{self, GameRow};

/// A checked set on its way to the store and the receipt.
pub(super) struct Sealing<'a> {
    pub sheet: &'a Sheet,
    pub checked: &'a Checked,
    /// The receipt's account of the orders, line by line.
    pub ack: String,
    /// Lines that will not be carried out: NOT UNDERSTOOD or NOT POSSIBLE.
    pub refused_lines: u32,
    /// The version a mail of READY alone confirms.
    pub confirms: Option<u32>,
}

/// How many lines of a mail will not be carried out (NOT UNDERSTOOD and
/// NOT POSSIBLE lines, and the header's), as the set-up step counts them.
pub(super) fn refused_lines(parsed: &Parsed, checked: &Checked) -> u32 {
    u32::try_from(super::setup::holding_lines(parsed, checked)).unwrap_or(u32::MAX)
}

/// Whether a mail's orders part is READY alone: it says READY (or READY AS
/// IS), holds no other order, and its only lines not understood are
/// commands (`MAP TXT`), READY slips or the subject's.
pub(super) fn confirms_only(parsed: &Parsed) -> bool {
    let only_ready = parsed
        .sheet
        .items
        .iter()
        .all(|i| matches!(i.order, Order::Ready | Order::ReadyAsIs | Order::Command(_)));
    let slips_only = parsed
        .errors
        .iter()
        .all(|e| e.line == 0 || parse::is_command_line(&e.text) || parse::is_ready_line(&e.text));
    parsed.sheet.ready() && only_ready && slips_only
}

impl Service {
    /// A mail of READY alone: the standing set confirmed as a new version
    /// with the same orders; with no standing set, an empty set, READY.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn confirm_ready(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        parsed: &Parsed,
        now_set: Option<&Vec<Setting>>,
        scn: &Scenario,
        state: &GameState,
    ) -> Result<(Option<String>, Outcome)> {
        let slips = mail_slips(parsed);
        if !slips.errors.is_empty() {
            self.answer_settings(
                cx,
                g,
                &slips,
                None,
                "The READY in this mail is answered in its receipt.",
            )?;
        }
        let standing = store::latest_order_set(&self.conn, &g.id, g.turn_no, side)?;
        let own = match &standing {
            Some(set) => standing_with_ready(g, &set.canonical, parsed, scn, state)?,
            // READY with no standing set: an empty set, sealed READY, so
            // the month plays with no orders for the side; the receipt
            // says so plainly.
            None => {
                let mut own = parsed.clone();
                own.errors.retain(|e| e.line == 0);
                own
            }
        };
        let checked = super::setup::check_for(g.turn_kind, &own.sheet, scn, state, side);
        let mut ack = super::setup::acknowledge_for(g.turn_kind, &own, &checked, scn, state, side);
        let shown = refused_lines(&own, &checked);
        let mut refused_lines = shown;
        if let Some(set) = &standing {
            refused_lines = shown.max(store::refused_lines(&self.conn, set.id)?);
            // Lines not understood are not kept with the set: the READY
            // sentence counts them all (the receipt of the set shows them).
            ack = ack.replacen(
                ready_sentence(&own.sheet, shown as usize),
                ready_sentence(&own.sheet, refused_lines as usize),
                1,
            );
        }
        self.seal(
            cx,
            g,
            side,
            state,
            Sealing {
                sheet: &own.sheet,
                checked: &checked,
                ack,
                refused_lines,
                confirms: standing.map(|set| set.version),
            },
            now_set,
        )
    }
}

/// The lines of a mail that were not understood, other than the
/// subject's: answered on their own, as a mail of commands is.
fn mail_slips(parsed: &Parsed) -> Parsed {
    Parsed {
        errors: parsed
            .errors
            .iter()
            .filter(|e| e.line > 0)
            .cloned()
            .collect(),
        ..Parsed::default()
    }
}

/// The standing set as Dervish keeps it (its canonical text, read again),
/// its own READY lines replaced by this mail's, with this mail's header and
/// subject problems: the set a READY alone confirms. Line numbers are those
/// of the kept text.
fn standing_with_ready(
    g: &GameRow,
    canonical: &str,
    mail: &Parsed,
    scn: &Scenario,
    state: &GameState,
) -> Result<Parsed> {
    let said = if mail.sheet.as_is() {
        Order::ReadyAsIs
    } else {
        Order::Ready
    };
    let mut text: String = canonical
        .lines()
        .filter(|l| !parse::is_ready_line(l))
        .map(|l| format!("{l}\n"))
        .collect();
    text.push_str(&orders::print::order(&scn.map, &said));
    text.push('\n');
    let vocab = Vocabulary::new(scn).in_play(state);
    let input = Input {
        text: &text,
        subject: None,
        flowed: false,
        delsp: false,
    };
    let mut again = orders::parse(&input, &vocab).map_err(|e| super::ServiceError::State {
        game: g.id.clone(),
        message: format!("the standing orders cannot be read again: {e}"),
    })?;
    again.sheet.header = mail.sheet.header.clone();
    again
        .errors
        .extend(mail.errors.iter().filter(|e| e.line == 0).cloned());
    again
        .warnings
        .extend(mail.warnings.iter().filter(|e| e.line == 0).cloned());
    Ok(again)
}
