//! Programmed players in games by mail: a seat held by a bot gets its
//! orders as soon as each turn opens, made by the player of `players`,
//! printed in the order language, checked like mail and sealed like a
//! player's set (so `verify`, `replay` and the turn record treat them the
//! same).
//!
//! The bot's dice come from the turn's committed seed and the seat's own
//! key: the same turn always gives the same orders, the game master can
//! play them again, and the players cannot work the rolls out from the
//! seed the results reveal. The umpire's notes (each stack's situation,
//! roll and reaction) go in the game master's log; each results mail
//! carries their SHA-256, and the last one of the game the notes and the
//! key.

use rusqlite::Connection;

use super::record::{SetToSeal, insert_sealed_set};
use super::secrets::unhex;
use super::{Result, Service, ServiceError};
use crate::dice::{Dice, SeededDice};
use crate::engine::orders::Orders;
use crate::orders::{print, written};
use crate::players::egyptian::{self, Persona};
use crate::players::mahdist::{self, Opponents};
use crate::players::reaction::Reactions;
use crate::scenario::Side;
use crate::state::GameState;
use crate::store::{self, GameRow};

/// The kind of the programmed Mahdist player of the reaction table.
pub const MAHDIST: &str = "mahdist";
/// The programmed Egyptian player, cautious as the real commanders were.
pub const EGYPTIAN_HISTORICAL: &str = "egyptian-historical";
/// The programmed Egyptian player that concentrates and strikes.
pub const EGYPTIAN_COMPETENT: &str = "egyptian-competent";

/// The orders of a set-up set kept for a programmed player: its SETUP
/// orders alone (its month's marches are made when the month opens).
pub fn setup_only(orders: Orders) -> Orders {
    Orders {
        setup: orders.setup,
        ..Orders::default()
    }
}

/// The audit action that holds a turn's umpire's notes.
pub fn notes_action(turn_no: u32) -> String {
    format!("umpire's notes, turn {turn_no}")
}

/// The bot's dice seed for a turn: SHA-256 of its key, the turn's seed and
/// its side.
pub fn bot_seed(key_hex: &str, seed_hex: &str, side: Side) -> Option<[u8; 32]> {
    let key = unhex(key_hex)?;
    let seed = unhex(seed_hex)?;
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"dervish programmed player\n");
    h.update(&key);
    h.update(&seed);
    h.update(crate::store::side_text(side).as_bytes());
    Some(h.finalize().into())
}

/// Who a programmed player's orders are made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A seat the programmed player holds: its orders are READY at once.
    Bot,
    /// A player's seat it stands in for (an absence with `STANDIN`, or a
    /// seat opened after missed deadlines); READY when `ready`.
    StandIn { ready: bool },
}

/// The programmed player that stands in for a side: the cautious
/// Egyptian (a caretaker takes no risks in another's name) or the
/// Mahdist of the reaction table.
pub fn stand_in_kind(side: Side) -> &'static str {
    match side {
        Side::Egyptian => EGYPTIAN_HISTORICAL,
        Side::Mahdist => MAHDIST,
    }
}

impl Service {
    /// Make the orders of every programmed player whose side the open turn
    /// of `g` needs, against `state` (the state the turn opens with), and
    /// store them as a sealed, READY order set; the umpire's notes go in
    /// the game master's log. Inside the caller's transaction.
    pub fn bot_orders(&self, c: &Connection, g: &GameRow, state: &GameState) -> Result<()> {
        if g.status != store::Status::Running {
            return Ok(());
        }
        for p in store::players(c, &g.id)? {
            let Some(kind) = p.bot.as_deref() else {
                continue;
            };
            if !g.turn_kind.waits_for().contains(&p.side) {
                continue;
            }
            let key = p.bot_key.clone().unwrap_or_default();
            self.programmed_orders(c, g, state, p.side, kind, &key, Holder::Bot)?;
        }
        // Seats a stand-in plays, deadlines held by absences, time banks.
        self.seats_at_turn_open(c, g, state)
    }

    /// Make the orders of a programmed player of `kind` for `side` in the
    /// open turn of `g` (its dice from `key_hex` and the turn's seed), and
    /// store them as a sealed order set, READY unless a stand-in's that is
    /// not to count yet; the umpire's notes go in the game master's log.
    /// Returns the sealed SHA-256.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn programmed_orders(
        &self,
        c: &Connection,
        g: &GameRow,
        state: &GameState,
        side: Side,
        kind: &str,
        key_hex: &str,
        holder: Holder,
    ) -> Result<String> {
        let (ready, actor) = match holder {
            Holder::Bot => (true, "bot"),
            Holder::StandIn { ready } => (ready, "stand-in"),
        };
        let scn = self.scenario(&g.scenario)?;
        let persona = match (side, kind) {
            (Side::Mahdist, MAHDIST) => None,
            (Side::Egyptian, EGYPTIAN_HISTORICAL) => Some(Persona::Historical),
            (Side::Egyptian, EGYPTIAN_COMPETENT) => Some(Persona::Competent),
            _ => {
                return Err(ServiceError::Game(format!(
                    "game {}: the {side} seat is held by a programmed player of kind {kind:?}, which this Dervish does not have",
                    g.id
                )));
            }
        };
        let seed = bot_seed(key_hex, &g.seed_hex, side).ok_or_else(|| ServiceError::State {
            game: g.id.clone(),
            message: "the programmed player's key or the turn's seed is not hex".into(),
        })?;
        let d = match persona {
            Some(persona) => egyptian::decide(&scn, state, persona),
            None => {
                let table = Reactions::shipped().map_err(ServiceError::Data)?;
                let opponents = Opponents::shipped().map_err(ServiceError::Data)?;
                let mut dice = Dice::new(SeededDice::from_seed_bytes(seed));
                mahdist::decide(&scn, state, &table, &opponents, &mut dice)
            }
        };
        // In the set-up step only its set-up counts (its month's
        // orders are made when the month opens, from the set-up then).
        let mut d = d;
        if g.turn_kind.is_setup() {
            d.orders = setup_only(d.orders);
        }
        let canonical = format!(
            "{}READY\n",
            print::sheet(&scn.map, &written::sheet(&d.orders), false)
        );
        let now = self.now();
        let set = SetToSeal {
            message: None,
            canonical: &canonical,
            orders: &d.orders,
            ready,
            refused_lines: 0,
        };
        let sealed = insert_sealed_set(c, g, side, set, now)?.sha256;
        store::audit(
            c,
            now,
            Some(&g.id),
            actor,
            &if holder == Holder::Bot {
                notes_action(g.turn_no)
            } else {
                format!("stand-in's notes, turn {}", g.turn_no)
            },
            &format!(
                "{} ({}), orders sealed {sealed}:\n{}",
                g.month,
                side,
                d.notes.join("\n")
            ),
        )?;
        Ok(sealed)
    }
}
