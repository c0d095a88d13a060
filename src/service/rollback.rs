//! The game master's rollback in the open, and the preview of a due turn.
//!
//! `game rollback ID --to MONTH --why TEXT` (or `ROLLBACK ID MONTH WHY`
//! by mail) takes a game back to the start of the first turn played in
//! MONTH: the turns from it on and every order set sent for them are
//! moved to the rollback's own tables (kept, and listed by `game show`),
//! the turn opens again with a new seed, and both players, the observers
//! and the game master are told why. The rollback goes in the audit log,
//! from which the record of the turn played again carries it, so `verify
//! --from-mail` shows it rather than a gap in the chain.
//!
//! `game preview ID` plays the open turn with the orders in now and its
//! own seed, stores nothing and prints the log.

use chrono::Duration;
use minijinja::context;

use super::play::{adjudicate, seed_bytes};
use super::record::{rollback_action, rollback_detail};
use super::{Result, Service, ServiceError};
use crate::render::log;
use crate::scenario::Side;
use crate::store::seats::{self as rows, RollbackRow};
use crate::store::{self, Status, TurnRow};

/// What the key of a mail about a turn gets when the turn is played
/// again after a rollback (`again`): the new seed's fingerprint, so the
/// mail is a new one, not the one sent before the rollback.
pub fn again_key(again: bool, seed_sha256: &str) -> String {
    if again {
        format!(":again-{}", seed_sha256.get(..16).unwrap_or(seed_sha256))
    } else {
        String::new()
    }
}

/// What a rollback did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolledBack {
    pub to_turn: u32,
    pub month: String,
    pub turns: usize,
    pub sets: usize,
}

impl Service {
    /// Take game `id` back to the start of the first turn played in
    /// `month` (`1884-03`, `March 1884`), saying `why`. Bad input (no
    /// reason, a month not played, a turn with table battles) changes
    /// nothing.
    pub fn rollback(&self, id: &str, month: &str, why: &str, actor: &str) -> Result<RolledBack> {
        let g = self.game(id)?;
        let why = why.trim();
        if why.is_empty() {
            return Err(ServiceError::Game(
                "say why the game is taken back (--why TEXT): both players are told".into(),
            ));
        }
        let m = crate::orders::parse::month(month).ok_or_else(|| {
            ServiceError::Game(format!("{month} is not a month (write it 1884-03)"))
        })?;
        let turns = store::turns(&self.conn, id)?;
        let Some(t) = turns
            .iter()
            .find(|t| t.month == m.to_string() && !t.turn_kind.is_setup())
        else {
            let played: Vec<String> = turns
                .iter()
                .filter(|t| !t.turn_kind.is_setup())
                .map(|t| t.month.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            return Err(ServiceError::Game(format!(
                "no turn of game {id} was played in {}; the months played are: {}",
                m.long_name(),
                if played.is_empty() {
                    "none yet".to_string()
                } else {
                    played.join(", ")
                }
            )));
        };
        for n in t.turn_no..=g.turn_no {
            if !crate::store::battles::battles_of_turn(&self.conn, id, n)?.is_empty() {
                return Err(ServiceError::Game(format!(
                    "turn {n} of game {id} met a table battle; a game is not taken back over table battles"
                )));
            }
        }
        self.take_back_to(&g, t, &turns, why, actor)
    }

    /// The rollback itself, in one transaction: the turns and order sets
    /// moved aside, the game opened again at `t`, the programmed players'
    /// orders made, everyone told.
    fn take_back_to(
        &self,
        g: &store::GameRow,
        t: &TurnRow,
        turns: &[TurnRow],
        why: &str,
        actor: &str,
    ) -> Result<RolledBack> {
        let now = self.now();
        let (seed_hex, seed_sha256) = self.new_seed()?;
        let last = turns.last().map_or(t.turn_no, |l| l.turn_no);
        let taken_back = if last == t.turn_no {
            format!("turn {}", t.turn_no)
        } else {
            format!("turns {} to {last}", t.turn_no)
        };
        let row = RollbackRow {
            id: 0,
            game_id: g.id.clone(),
            at: now,
            actor: actor.to_string(),
            to_turn: t.turn_no,
            to_month: t.month.clone(),
            from_turn: g.turn_no,
            why: why.to_string(),
            announced_seed_sha256: t.seed_sha256.clone(),
            new_seed_sha256: seed_sha256.clone(),
        };
        let tx = self.begin()?;
        let (_, n_turns, n_sets) = rows::take_back(&tx, &row)?;
        let mut back = g.clone();
        back.state = t.state_before.as_str().into();
        back.month = t.month.clone();
        back.turn_no = t.turn_no;
        back.turn_kind = t.turn_kind;
        back.seed_hex = seed_hex;
        back.seed_sha256 = seed_sha256.clone();
        back.deadline = now + Duration::hours(i64::from(g.deadline_hours));
        back.reminded = false;
        back.status = Status::Running;
        back.result = None;
        store::update_game(&tx, &back)?;
        self.forget_state(&g.id);
        rows::clear_draw_offer(&tx, &g.id)?;
        store::audit(
            &tx,
            now,
            Some(&g.id),
            actor,
            &rollback_action(t.turn_no),
            &rollback_detail(&taken_back, &t.seed_sha256, why),
        )?;
        let state = self.state_of(&back)?;
        self.bot_orders(&tx, &back, &state)?;
        let back = store::game(&tx, &g.id)?.unwrap_or(back);
        let month =
            crate::orders::parse::month(&t.month).map_or(t.month.clone(), |m| m.long_name());
        let mut to = self.game_addresses(&tx, &g.id)?;
        to.extend(store::observers(&tx, &g.id)?);
        for a in to {
            let rendered = self.templates.render(
                "rollback.txt",
                context! {
                    game => g.id.clone(),
                    month => month.clone(),
                    turn_no => t.turn_no,
                    taken_back => taken_back.clone(),
                    several => last != t.turn_no,
                    why => why,
                    sets => n_sets,
                    deadline => super::games::deadline_text(back.deadline),
                    seed_sha256 => seed_sha256.clone(),
                    announced => t.seed_sha256.clone(),
                },
            )?;
            self.queue(super::mail::Draft::notice(
                Some(&g.id),
                &format!("rollback:{}", store::time(now)),
                &a,
                rendered,
            ))?;
        }
        tx.commit()?;
        self.archive_after_turn(&g.id);
        Ok(RolledBack {
            to_turn: t.turn_no,
            month: t.month.clone(),
            turns: n_turns,
            sets: n_sets,
        })
    }

    /// The rollbacks of game `id`, with the turns and the order sets each
    /// took back, in lines for `game show`.
    pub fn rollback_lines(&self, id: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for r in rows::rollbacks(&self.conn, id)? {
            out.push(format!(
                "Rollback {} at {} by {}: back to turn {} ({}) from turn {}; why: {}",
                r.id,
                store::time(r.at),
                r.actor,
                r.to_turn,
                r.to_month,
                r.from_turn,
                r.why
            ));
            for (turn, month, seed) in rows::rolled_back_turns(&self.conn, r.id)? {
                out.push(format!(
                    "  turn {turn} ({month}) taken back, seed SHA-256 {seed}"
                ));
            }
            for (turn, side, version, canonical, sha) in rows::rolled_back_sets(&self.conn, r.id)? {
                out.push(format!(
                    "  orders kept: turn {turn} {side} v{version} ({} lines), sealed {sha}",
                    canonical.lines().count()
                ));
            }
        }
        Ok(out)
    }

    /// Play the open turn of game `id` with the orders in now, without
    /// storing anything: its log, for the game master to look at.
    pub fn preview(&self, id: &str) -> Result<String> {
        let g = self.game(id)?;
        if g.status != Status::Running {
            return Err(ServiceError::Game(format!(
                "game {id} is {}: there is no turn to preview",
                g.status.as_str()
            )));
        }
        if g.turn_kind.is_setup() {
            return Err(ServiceError::Game(format!(
                "game {id} is in its set-up step: the set-up is placed, not played; nothing to preview"
            )));
        }
        let scn = self.scenario(&g.scenario)?;
        let state = self.state_of(&g)?;
        let mut orders = Vec::new();
        let mut said = Vec::new();
        for side in [Side::Egyptian, Side::Mahdist] {
            let set = if g.turn_kind.sides().contains(&side) {
                store::latest_order_set(&self.conn, id, g.turn_no, side)?
            } else {
                None
            };
            said.push(match &set {
                Some(s) => format!(
                    "{side}: orders v{}{}",
                    s.version,
                    if s.ready { " READY" } else { "" }
                ),
                None => format!("{side}: no orders (holds)"),
            });
            orders.push(self.orders_of(set.as_ref())?);
        }
        let seed = seed_bytes(&g.seed_hex).ok_or_else(|| ServiceError::State {
            game: id.to_string(),
            message: "the turn's seed is not 32 bytes of hex".into(),
        })?;
        let (r, stopped) = adjudicate(
            &scn,
            (*state).clone(),
            g.turn_kind,
            &orders[0],
            &orders[1],
            seed,
            &Default::default(),
            self.data.etyfw.as_ref(),
            None,
        )?;
        let mut text = format!(
            "Preview of turn {} of game {id} ({}), nothing stored. {}.\n\n",
            g.turn_no,
            g.turn_kind.label(&g.month),
            said.join("; ")
        );
        text.push_str(&log::render(&scn.map, &r.events));
        if stopped.is_some() {
            text.push_str("\nThe turn stops here at a combat that goes to the table.\n");
        }
        Ok(text)
    }
}
