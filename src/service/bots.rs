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

use super::record::sealed_text;
use super::secrets::{sha256_hex, unhex};
use super::{Result, Service, ServiceError};
use crate::dice::{Dice, SeededDice};
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

impl Service {
    /// Make the orders of every programmed player whose side the open turn
    /// of `g` needs, against `state` (the state the turn opens with), and
    /// store them as a sealed, READY order set; the umpire's notes go in
    /// the game master's log. Inside the caller's transaction.
    pub fn bot_orders(&self, c: &Connection, g: &GameRow, state: &GameState) -> Result<()> {
        if g.status != store::Status::Running {
            return Ok(());
        }
        let scn = self.scenario(&g.scenario)?;
        for p in store::players(c, &g.id)? {
            let Some(kind) = p.bot.as_deref() else {
                continue;
            };
            if !g.turn_kind.waits_for().contains(&p.side) {
                continue;
            }
            let persona = match (p.side, kind) {
                (Side::Mahdist, MAHDIST) => None,
                (Side::Egyptian, EGYPTIAN_HISTORICAL) => Some(Persona::Historical),
                (Side::Egyptian, EGYPTIAN_COMPETENT) => Some(Persona::Competent),
                _ => {
                    return Err(ServiceError::Game(format!(
                        "game {}: the {} seat is held by a programmed player of kind {kind:?}, which this Dervish does not have",
                        g.id, p.side
                    )));
                }
            };
            let seed = p
                .bot_key
                .as_deref()
                .and_then(|k| bot_seed(k, &g.seed_hex, p.side))
                .ok_or_else(|| ServiceError::State {
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
                d.orders = super::setup::setup_only(d.orders);
            }
            let canonical = format!(
                "{}READY\n",
                print::sheet(&scn.map, &written::sheet(&d.orders), false)
            );
            let sealed = sha256_hex(sealed_text(&g.id, g.turn_no, p.side, &canonical).as_bytes());
            let orders_json =
                serde_json::to_string(&d.orders).map_err(|e| ServiceError::State {
                    game: g.id.clone(),
                    message: e.to_string(),
                })?;
            let now = self.now();
            store::insert_order_set(
                c,
                &g.id,
                g.turn_no,
                p.side,
                None,
                &canonical,
                &orders_json,
                &sealed,
                true,
                now,
            )?;
            store::audit(
                c,
                now,
                Some(&g.id),
                "bot",
                &notes_action(g.turn_no),
                &format!(
                    "{} ({}), orders sealed {sealed}:\n{}",
                    g.month,
                    p.side,
                    d.notes.join("\n")
                ),
            )?;
        }
        Ok(())
    }
}
