//! Turns: played when every side is READY or the deadline passes, with
//! the seed drawn when the turn opened; the results mailed; every turn
//! stored so it can be played again byte for byte (`verify`, `replay`).

use chrono::Duration;
use minijinja::context;

use super::games::deadline_text;
use super::mail::Draft;
pub use super::play::{NO_ORDERS, adjudicate};
use super::play::{Settlements, erased, seed_bytes, settlements_from_json, settlements_json};
use super::record::TurnRecord;
use super::secrets::{sha256_hex, unhex};
use super::{Result, Service, ServiceError};
use crate::battle::table::Stopped;
use crate::calendar::GameMonth;
use crate::engine::TurnResult;
use crate::engine::orders::Orders;
use crate::mail::outbound::Attachment;
use crate::render::ascii::{self, Sector};
use crate::render::log;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;
use crate::state::setup::{Placements, initial_state};
use crate::store::{self, GameRow, Mode, OrderSetRow, PlayerRow, Status, TurnKind, TurnRow};

/// A side's drawn maps, or why there are none.
type Drawn = std::result::Result<Vec<super::picture::Picture>, String>;

/// The most lines a results mail's plain text has: sector maps that
/// would take it further are left out (and named).
pub const MAX_RESULTS_LINES: usize = 250;

/// Scheduled reinforcements due by the month now open (2.2), as the
/// results mail lists them.
fn due_reinforcements(scn: &Scenario, state: &crate::state::GameState) -> Vec<String> {
    scn.def
        .reinforcements
        .iter()
        .filter(|rf| {
            matches!(rf.arrives, crate::scenario::definition::Arrival::Month(m) if m <= state.month)
                && !state.arrived.contains(&rf.id)
                && !state.called.contains(&rf.id)
        })
        .map(|rf| format!("{} ({}): {}", rf.id, rf.side, reinforcement_units(scn, rf)))
        .collect()
}

/// A reinforcement's units as the results mail lists them: each type as
/// the roster names it, equal entries counted together ("4 x British camel
/// corps (V)", not "1 x" four times), in the order the scenario gives
/// them; a rolled number stays apart ("2D6 x ...").
pub fn reinforcement_units(
    scn: &Scenario,
    rf: &crate::scenario::definition::Reinforcement,
) -> String {
    let mut counted: Vec<(String, u32)> = Vec::new();
    let mut rolled: Vec<(usize, String)> = Vec::new();
    for u in &rf.units {
        // The type as the roster names it, not its data id.
        let name = scn
            .units
            .get(&u.unit)
            .map_or_else(|| u.unit.clone(), |t| t.labelled_name());
        match u.dice {
            Some(d) => rolled.push((counted.len(), format!("{d} x {name}"))),
            None => match counted.iter_mut().find(|(n, _)| *n == name) {
                Some((_, c)) => *c += u.count,
                None => counted.push((name, u.count)),
            },
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (i, (name, n)) in counted.iter().enumerate() {
        out.extend(
            rolled
                .iter()
                .filter(|(at, _)| *at == i)
                .map(|(_, t)| t.clone()),
        );
        out.push(format!("{n} x {name}"));
    }
    out.extend(
        rolled
            .iter()
            .filter(|(at, _)| *at == counted.len())
            .map(|(_, t)| t.clone()),
    );
    out.join(", ")
}

/// The files sent with a turn's results (and with HISTORY for the month):
/// its full log, every roll (`<game>-<month>-log.txt`; the results mail's
/// text keeps the news, the orders' outcomes and the maps), then its turn
/// record.
pub fn turn_files(turn: &TurnRow, record: &TurnRecord) -> Vec<Attachment> {
    vec![
        Attachment::text(
            super::record::log_file_name(&turn.game_id, &turn.month, turn.turn_kind),
            "text/plain",
            turn.log.clone(),
        ),
        record.attachment(),
    ]
}

/// What a results mail says of the programmed player's hidden rolls.
#[derive(Clone, Debug, Default)]
pub struct Umpire {
    /// The SHA-256 of this turn's umpire's notes, if a programmed player
    /// made orders for it.
    pub sealed: Option<String>,
    /// Every turn's notes and the programmed players' keys, once the game
    /// is over.
    pub revealed: Option<String>,
}

/// A turn played again from what is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub turn_no: u32,
    pub month: String,
    pub kind: TurnKind,
    /// Problems found; empty when the turn plays again byte for byte.
    pub drift: Vec<String>,
}

impl Service {
    pub(super) fn orders_of(&self, set: Option<&OrderSetRow>) -> Result<Orders> {
        match set {
            None => Ok(Orders::default()),
            Some(s) => serde_json::from_str(&s.orders).map_err(|e| ServiceError::State {
                game: s.game_id.clone(),
                message: format!("orders {}: {e}", s.id),
            }),
        }
    }

    /// Games whose open turn is due: every side READY, or the deadline
    /// passed.
    pub fn due_games(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for id in store::game_ids(&self.conn)? {
            let Some(g) = store::game(&self.conn, &id)? else {
                continue;
            };
            if g.status != Status::Running {
                continue;
            }
            // A turn stopped at a table battle goes on when every battle
            // it met is settled (`settle_battle_deadlines` settles those
            // past their deadline).
            let battles = crate::store::battles::battles_of_turn(&self.conn, &g.id, g.turn_no)?;
            if !battles.is_empty() {
                if battles.iter().all(|b| b.status.is_settled()) {
                    out.push(g.id);
                }
                continue;
            }
            let all_ready = g.turn_kind.waits_for().iter().all(|&side| {
                store::latest_order_set(&self.conn, &g.id, g.turn_no, side)
                    .ok()
                    .flatten()
                    .is_some_and(|s| s.ready)
            });
            if all_ready || self.deadline_passed(&g)? {
                out.push(g.id);
            }
        }
        Ok(out)
    }

    /// Play every due turn.
    ///
    /// The turns of different games are worked out several at once
    /// ([`TURNS_AT_ONCE`], on every core with rayon: the engine, the log,
    /// the turn record, the drawn maps and the mails, from what was read
    /// before), then stored one game after another, each in its own
    /// transaction as when played alone, in the order of the due games;
    /// while one group is stored, the next is worked out, so that storing
    /// (on this thread) does not leave the other cores idle. Everything
    /// drawn from the service (the next turn's seed, the time) is drawn in
    /// that order before the work starts, so the pass stores and mails
    /// byte for byte what playing the games one by one does. A game in its
    /// set-up step, whose turn waits for table battles, or whose combats
    /// may go to the table is played alone, in its place, once every turn
    /// before it is stored.
    pub fn play_due_turns(&self) -> Result<Vec<(String, u32)>> {
        self.settle_battle_deadlines()?;
        let mut played = Vec::new();
        let mut batch: Vec<(Prepared, Opened)> = Vec::new();
        let mut worked: Vec<Result<Played>> = Vec::new();
        for id in self.due_games()? {
            let together = match self.prepare_together(&id) {
                Ok(t) => t,
                Err(e) => {
                    self.finish_together(batch, worked, &mut played)?;
                    return Err(e);
                }
            };
            match together {
                Some(ready) => {
                    batch.push(ready);
                    if batch.len() >= TURNS_AT_ONCE {
                        let stored = std::mem::take(&mut worked);
                        worked =
                            self.work_out_storing(std::mem::take(&mut batch), stored, &mut played)?;
                    }
                }
                None => {
                    let (b, w) = (std::mem::take(&mut batch), std::mem::take(&mut worked));
                    self.finish_together(b, w, &mut played)?;
                    let n = self.play_turn(&id)?;
                    played.push((id, n));
                }
            }
        }
        self.finish_together(batch, worked, &mut played)?;
        Ok(played)
    }

    /// Game `id`'s due turn read and its next turn opened, to be worked
    /// out with others; `None` when it is to be played alone
    /// ([`Service::play_turn`]: not running, in its set-up step, a turn
    /// with table battles, or combats that may go to the table).
    fn prepare_together(&self, id: &str) -> Result<Option<(Prepared, Opened)>> {
        let g = self.game(id)?;
        if g.status != Status::Running || g.turn_kind.is_setup() {
            return Ok(None);
        }
        let battles = crate::store::battles::battles_of_turn(&self.conn, id, g.turn_no)?;
        if !battles.is_empty() || self.state_of(&g)?.options.table_battles.any() {
            return Ok(None);
        }
        let p = self.prepare(g, &battles)?;
        let o = self.open_next(&p.g)?;
        Ok(Some((p, o)))
    }

    /// Store the turns `worked` out before, then work out and store
    /// `batch`: every turn read so far is stored when this returns.
    fn finish_together(
        &self,
        batch: Vec<(Prepared, Opened)>,
        worked: Vec<Result<Played>>,
        played: &mut Vec<(String, u32)>,
    ) -> Result<()> {
        let worked = self.work_out_storing(batch, worked, played)?;
        self.store_together(worked, played)
    }

    /// Work out the turns of `batch` at once (on another thread, with
    /// rayon) while the turns `worked` out before are stored on this one;
    /// the turns of `batch` worked out, to be stored next. A failure to
    /// store ends the pass after the turns before it are stored; what
    /// `batch` gave is then dropped, stored nowhere.
    fn work_out_storing(
        &self,
        batch: Vec<(Prepared, Opened)>,
        worked: Vec<Result<Played>>,
        played: &mut Vec<(String, u32)>,
    ) -> Result<Vec<Result<Played>>> {
        if batch.is_empty() {
            self.store_together(worked, played)?;
            return Ok(Vec::new());
        }
        let desk = self.desk();
        std::thread::scope(|s| {
            let next = s.spawn(move || work_out(&desk, batch));
            let stored = self.store_together(worked, played);
            let next = next
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            stored.map(|()| next)
        })
    }

    /// Store the turns worked out, in order; the first failure ends the
    /// pass after the turns before it are stored.
    fn store_together(
        &self,
        worked: Vec<Result<Played>>,
        played: &mut Vec<(String, u32)>,
    ) -> Result<()> {
        for w in worked {
            let (id, n) = match w? {
                Played::Worked(w) => (w.g.id.clone(), self.store_worked(*w)?),
                // Not expected (its options send no combat to the
                // table), but stored as a stop if it comes.
                Played::Stopped(p, stopped) => {
                    self.stop_for_battle(&p.scn, &p.g, &stopped, p.set_ids())?;
                    (p.g.id.clone(), p.g.turn_no)
                }
            };
            played.push((id, n));
        }
        Ok(())
    }

    /// Whether game `g`, as read before this transaction began, has moved
    /// on meanwhile: its turn played by the game master's `game process`
    /// beside the daemon, which writes without the daemon's lock. The turn
    /// worked out from the old row is then dropped, not stored twice.
    pub(super) fn moved_on(&self, g: &GameRow) -> Result<bool> {
        let now = store::game(&self.conn, &g.id)?;
        let moved = now.is_none_or(|n| (n.turn_no, n.turn_kind) != (g.turn_no, g.turn_kind));
        if moved {
            tracing::info!(game = %g.id, turn = g.turn_no, "turn played meanwhile by another command");
        }
        Ok(moved)
    }

    /// Play the open turn of a game now, with the latest orders of each
    /// side (a side without orders holds), open the next turn and queue
    /// the results. Returns the number of the turn played.
    pub fn play_turn(&self, id: &str) -> Result<u32> {
        let g = self.game(id)?;
        match g.status {
            Status::Running => {}
            Status::Paused => return Err(ServiceError::Game(format!("game {id} is paused"))),
            Status::Finished => return Err(ServiceError::Game(format!("game {id} is finished"))),
        }
        if g.turn_kind.is_setup() {
            return self.play_setup_step(&g);
        }
        // A turn that stopped at a table battle is played again with the
        // order sets it stopped with and every battle's settlement.
        let battles = crate::store::battles::battles_of_turn(&self.conn, id, g.turn_no)?;
        if let Some(b) = battles.iter().find(|b| !b.status.is_settled()) {
            return Err(ServiceError::Game(format!(
                "turn {} of game {id} waits for the result of table battle {}",
                g.turn_no, b.id
            )));
        }
        let p = self.prepare(g, &battles)?;
        let desk = self.desk();
        let (r, stopped) = p.adjudicate(&desk)?;
        if let Some(stopped) = stopped {
            self.stop_for_battle(&p.scn, &p.g, &stopped, p.set_ids())?;
            return Ok(p.g.turn_no);
        }
        let o = self.open_next(&p.g)?;
        let w = desk.results(p, o, r)?;
        self.store_worked(w)
    }

    /// What playing game `g`'s open turn needs from the database: its
    /// state, each side's order set (those the turn stopped with, if it
    /// met table `battles`) and the battles' settlements.
    fn prepare(
        &self,
        g: GameRow,
        battles: &[crate::store::battles::BattleRow],
    ) -> Result<Prepared> {
        let scn = self.scenario(&g.scenario)?;
        let before = (*self.state_of(&g)?).clone();
        let sides = g.turn_kind.sides();
        let settled = self.settlements_of(battles)?;
        let set = |side: Side| -> Result<Option<OrderSetRow>> {
            if !sides.contains(&side) {
                return Ok(None);
            }
            match battles.first() {
                Some(b) => {
                    let id = if side == Side::Egyptian {
                        b.egyptian_set
                    } else {
                        b.mahdist_set
                    };
                    match id {
                        Some(i) => Ok(store::order_set(&self.conn, i)?),
                        None => Ok(None),
                    }
                }
                None => Ok(store::latest_order_set(&self.conn, &g.id, g.turn_no, side)?),
            }
        };
        let (eg_set, md_set) = (set(Side::Egyptian)?, set(Side::Mahdist)?);
        let eg = self.orders_of(eg_set.as_ref())?;
        let md = self.orders_of(md_set.as_ref())?;
        let seed = seed_bytes(&g.seed_hex).ok_or_else(|| ServiceError::State {
            game: g.id.clone(),
            message: "the turn's seed is not 32 bytes of hex".into(),
        })?;
        Ok(Prepared {
            g,
            scn,
            before,
            eg_set,
            md_set,
            eg,
            md,
            seed,
            settled,
        })
    }

    /// The next turn's seed and the time, drawn now, and who gets the
    /// results of game `g`'s turn.
    fn open_next(&self, g: &GameRow) -> Result<Opened> {
        let now = self.now();
        let (seed_hex, seed_sha256) = self.new_seed()?;
        Ok(Opened {
            now,
            seed_hex,
            seed_sha256,
            players: store::players(&self.conn, &g.id)?,
            observers: store::observers(&self.conn, &g.id)?,
            audit: store::audit_log(&self.conn, &g.id)?,
            roots: [
                self.thread_root(&g.id, Side::Egyptian),
                self.thread_root(&g.id, Side::Mahdist),
            ],
            deadline: self.clock_deadline_next(g, now)?,
        })
    }

    /// What the results of a turn are made with: no database, clock or
    /// seeds, so several turns are made at once.
    fn desk(&self) -> Desk<'_> {
        Desk {
            cfg: &self.cfg,
            templates: &self.templates,
            data: &self.data,
        }
    }

    /// Store a turn worked out, in one transaction: the turn, the game
    /// moved on, the programmed players' orders for the next turn, the
    /// players' missed turns with their notices, then the results mails.
    /// Nothing is stored if the game moved on meanwhile.
    fn store_worked(&self, w: Worked) -> Result<u32> {
        let Worked {
            g,
            next,
            turn,
            state,
            sent,
            month,
            results,
            full_log,
        } = w;
        let tx = self.begin()?;
        if self.moved_on(&g)? {
            return Ok(g.turn_no);
        }
        store::insert_turn(&tx, &turn)?;
        store::update_game(&tx, &next)?;
        // The programmed players' orders for the turn now open.
        self.bot_orders(&tx, &next, &state)?;
        self.count_missed_turns(&tx, &g, &sent, month)?;
        for d in results {
            self.queue_with_appendix(d, Some(&full_log))?;
        }
        tx.commit()?;
        tracing::info!(game = %g.id, turn = g.turn_no, month = %month, "turn played");
        self.archive_after_turn(&g.id);
        Ok(g.turn_no)
    }

    /// Each player of the turn just played (`g`) who sent no orders has
    /// missed one more turn and is told their units held; the game master
    /// is told when a player reaches `[turns] missed_turns_note`. A player
    /// who sent orders has missed none. Inside the caller's transaction.
    fn count_missed_turns(
        &self,
        tx: &rusqlite::Connection,
        g: &GameRow,
        sent: &[Side],
        month: GameMonth,
    ) -> Result<()> {
        let id = &g.id;
        let sides = g.turn_kind.sides();
        for mut p in store::players(tx, id)? {
            if !sides.contains(&p.side) {
                continue;
            }
            if sent.contains(&p.side) {
                p.missed_turns = 0;
            } else if p.address.is_empty() {
                // An open seat holds until someone joins.
            } else {
                p.missed_turns += 1;
                self.queue(self.notice_draft(
                    Some(id),
                    &format!("late:{}:{}", g.turn_no, store::side_text(p.side)),
                    &p.address,
                    "no orders from you this turn",
                    &format!(
                        "Dervish had no {} orders from you when turn {} ({}) was played at its deadline, so your units held where they were. The results follow in a separate mail.",
                        p.side,
                        g.turn_no,
                        month.long_name()
                    ),
                )?)?;
                if p.missed_turns == self.cfg.turns.missed_turns_note {
                    let gm = self.cfg.host.game_master.clone();
                    self.queue(self.notice_draft(
                        Some(id),
                        &format!("missed:{}:{}", g.turn_no, store::side_text(p.side)),
                        &gm,
                        "a player is missing turns",
                        &format!(
                            "The {} player ({}) has sent no orders for {} turns in a row; their units held. You may replace them: dervish game replace {id} {} ADDRESS",
                            p.side,
                            p.address,
                            p.missed_turns,
                            store::side_text(p.side)
                        ),
                    )?)?;
                }
            }
            store::upsert_player(tx, &p)?;
        }
        Ok(())
    }
}

/// How many due turns of different games a pass works out at once before
/// storing them: enough to keep every core busy, few enough that the
/// drawn maps and mails held in memory stay a few megabytes (two groups
/// are held: one being stored while the next is worked out).
pub const TURNS_AT_ONCE: usize = 16;

/// A due turn read from the database: what playing it needs.
struct Prepared {
    /// The game as read, before the turn.
    g: GameRow,
    scn: Scenario,
    before: GameState,
    eg_set: Option<OrderSetRow>,
    md_set: Option<OrderSetRow>,
    eg: Orders,
    md: Orders,
    seed: [u8; 32],
    settled: Settlements,
}

impl Prepared {
    /// The pure engine with the stored seed (see [`adjudicate`]).
    fn adjudicate(&self, desk: &Desk) -> Result<(TurnResult, Option<Stopped>)> {
        adjudicate(
            &self.scn,
            self.before.clone(),
            self.g.turn_kind,
            &self.eg,
            &self.md,
            self.seed,
            &self.settled,
            desk.data.etyfw.as_ref(),
            None,
        )
    }

    /// The ids of the order sets the turn is played with.
    fn set_ids(&self) -> (Option<i64>, Option<i64>) {
        (
            self.eg_set.as_ref().map(|s| s.id),
            self.md_set.as_ref().map(|s| s.id),
        )
    }
}

/// Drawn from the service and read from the database in the order the
/// turns are played, before their results are made: the time, the next
/// turn's seed, the players and observers, the umpire's notes (the game's
/// audit log) and each side's thread.
struct Opened {
    now: chrono::DateTime<chrono::Utc>,
    seed_hex: String,
    seed_sha256: String,
    players: Vec<PlayerRow>,
    observers: Vec<String>,
    audit: Vec<(String, String, String, String)>,
    /// The Message-ID rooting each side's thread (Egyptian, Mahdist).
    roots: [String; 2],
    /// The next turn's deadline when a time bank sets it
    /// (`service::clock`).
    deadline: Option<chrono::DateTime<chrono::Utc>>,
}

/// A turn played, or stopped at a table battle.
enum Played {
    Worked(Box<Worked>),
    Stopped(Box<Prepared>, Box<Stopped>),
}

/// A turn worked out: what [`Service::store_worked`] stores and mails.
struct Worked {
    /// The game as it was when the turn was read.
    g: GameRow,
    /// The game moved on to its next turn.
    next: GameRow,
    turn: TurnRow,
    /// The state after the turn.
    state: GameState,
    /// The sides that sent orders.
    sent: Vec<Side>,
    /// The month played.
    month: GameMonth,
    /// The results mails, in the order they are queued.
    results: Vec<Draft>,
    /// Shown after each results mail's text in its HTML part.
    full_log: String,
}

/// What the results of a turn are made with: the configuration, the
/// templates and the data, shared by the threads that make several
/// turns' results at once.
struct Desk<'a> {
    cfg: &'a super::Config,
    templates: &'a super::templates::Templates,
    data: &'a crate::scenario::DataSet,
}

/// One turn's results as every recipient's mail is made from them.
struct Results<'a> {
    scn: &'a Scenario,
    played: &'a GameRow,
    next: &'a GameRow,
    turn: &'a TurnRow,
    before: &'a GameState,
    r: &'a TurnResult,
    files: &'a [Attachment],
    umpire: &'a Umpire,
    overview: &'a str,
    roots: &'a [String; 2],
    /// A turn played again after a rollback: its mails are new mails
    /// (`game rollback`, `service::rollback`).
    again: bool,
}

impl Desk<'_> {
    /// Play a prepared turn and make its results.
    fn play(&self, p: Prepared, o: Opened) -> Result<Played> {
        let (r, stopped) = p.adjudicate(self)?;
        if let Some(stopped) = stopped {
            return Ok(Played::Stopped(Box::new(p), Box::new(stopped)));
        }
        Ok(Played::Worked(Box::new(self.results(p, o, r)?)))
    }

    /// The turn row, the game moved on and the results mails of a turn
    /// played (`r`).
    fn results(&self, p: Prepared, o: Opened, r: TurnResult) -> Result<Worked> {
        let turn = self.turn_row(&p, &r, o.now)?;
        let next = next_game(&p.g, &turn, &r.state, &o);
        // Who gets results, and whether with the drawn map: players as
        // they chose (`MAP PICTURE`, the default, or `MAP TEXT`);
        // observers read the text (docs/drawn-maps-by-mail.md).
        let mut recipients: Vec<(Option<Side>, String, bool)> = o
            .players
            .iter()
            .filter(|p| !p.address.is_empty())
            .map(|p| (Some(p.side), p.address.clone(), p.map_picture))
            .collect();
        recipients.extend(o.observers.iter().map(|a| (None, a.clone(), false)));
        let g = &p.g;
        let record = TurnRecord::of(
            g,
            &turn,
            p.eg_set.as_ref(),
            p.md_set.as_ref(),
            self.data.digest(&g.scenario).unwrap_or_default(),
            (next.status != Status::Finished).then_some(next.seed_sha256.as_str()),
        )
        .with_rollback(&o.audit);
        let mut files = turn_files(&turn, &record);
        let umpire = umpire(&o.audit, &o.players, g, next.status == Status::Finished);
        if let Some(notes) = &umpire.revealed {
            files.push(Attachment::text(
                format!("{}-umpire-notes.txt", g.id),
                "text/plain",
                notes.clone(),
            ));
        }
        // The same overview for every recipient, drawn once a turn.
        let overview = ascii::overview(&p.scn, Some(&r.state));
        let mut drawn = self.draw_pictures(&p.scn, &r, &recipients);
        let res = Results {
            scn: &p.scn,
            played: g,
            next: &next,
            turn: &turn,
            before: &p.before,
            r: &r,
            files: &files,
            umpire: &umpire,
            overview: &overview,
            roots: &o.roots,
            again: record.rollback.is_some(),
        };
        let mut results = Vec::new();
        for (side, to, picture) in recipients {
            let mut d = self.results_draft(&res, side, &to)?;
            d.attachments = files.clone();
            if let Some(side) = side.filter(|_| picture)
                && let Some(i) = drawn.iter().position(|(s, _)| *s == side)
            {
                let (_, pictures) = drawn.swap_remove(i);
                let pictures = self.results_picture(&p.scn, &turn, side, &d, pictures);
                d.attachments.splice(0..0, pictures);
            }
            results.push(d);
        }
        let full_log = format!("The full log, every roll:\n\n{}", turn.log);
        let sent = [(Side::Egyptian, &p.eg_set), (Side::Mahdist, &p.md_set)]
            .into_iter()
            .filter(|(_, s)| s.is_some())
            .map(|(side, _)| side)
            .collect();
        Ok(Worked {
            month: p.before.month,
            g: p.g,
            next,
            turn,
            state: r.state,
            sent,
            results,
            full_log,
        })
    }

    /// The stored record of turn `p` played (`r`) at `now`.
    fn turn_row(
        &self,
        p: &Prepared,
        r: &TurnResult,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<TurnRow> {
        let g = &p.g;
        let json = |v: &dyn erased::Json| super::play::json_of(&g.id, v);
        let hash = super::play::sealed_hash;
        Ok(TurnRow {
            game_id: g.id.clone(),
            turn_no: g.turn_no,
            month: p.before.month.to_string(),
            turn_kind: g.turn_kind,
            seed_hex: g.seed_hex.clone(),
            seed_sha256: g.seed_sha256.clone(),
            egyptian_set: p.eg_set.as_ref().map(|s| s.id),
            mahdist_set: p.md_set.as_ref().map(|s| s.id),
            egyptian_sha256: hash(&p.eg_set),
            mahdist_sha256: hash(&p.md_set),
            state_before: json(&p.before)?,
            state_after: json(&r.state)?,
            events: json(&r.events)?,
            log: log::render(&p.scn.map, &r.events),
            played_at: now,
            battles: settlements_json(&p.settled),
        })
    }

    /// `side`'s results mail to `to` (an observer's when `side` is
    /// `None`), without its files.
    fn results_draft(&self, res: &Results, side: Option<Side>, to: &str) -> Result<Draft> {
        let Results {
            scn,
            played,
            next,
            turn,
            before,
            r,
            files,
            umpire,
            overview,
            roots,
            again,
        } = *res;
        let month_played: crate::calendar::GameMonth =
            turn.month.parse().map_err(|_| ServiceError::State {
                game: played.id.clone(),
                message: format!("month {}", turn.month),
            })?;
        let news_of = crate::render::news::Month {
            scn,
            before,
            after: &r.state,
            events: &r.events,
            side,
        };
        let next_line = match &next.result {
            Some(result) => format!("THE GAME IS OVER: {result}"),
            None => format!(
                "Next turn: {}. Orders are due by {}.",
                next.turn_kind.label(&r.state.month.long_name()),
                deadline_text(next.deadline)
            ),
        };
        let hang = |v: &String| crate::words::hanging(v, 76, "  ", "    ");
        let ctx = context! {
            game => played.id.clone(),
            month => turn.turn_kind.label(&month_played.long_name()),
            month_code => turn.month.clone(),
            side => side.map_or("observer".to_string(), |s| s.to_string()),
            news => crate::render::news::news(&news_of, &next_line),
            marches => crate::render::news::marches(&news_of),
            log_lines => turn.log.lines().count(),
            log_file => files.iter().find(|f| f.name.ends_with("-log.txt")).map(|f| f.name.clone()),
            record_file => files.iter().find(|f| f.name.ends_with(".json")).map(|f| f.name.clone()),
            umpire_sha256 => umpire.sealed.clone(),
            umpire_file => files.iter().find(|f| f.name.ends_with("-umpire-notes.txt")).map(|f| f.name.clone()),
            result => next.result.clone(),
            next_seed_sha256 => next.seed_sha256.clone(),
            seed_hex => turn.seed_hex.clone(),
            seed_sha256 => turn.seed_sha256.clone(),
            egyptian_sha256 => turn.egyptian_sha256.clone(),
            mahdist_sha256 => turn.mahdist_sha256.clone(),
            overview => overview,
            reinforcements => due_reinforcements(scn, &r.state).iter().map(hang).collect::<Vec<_>>(),
            roster => side.map(|s| crate::render::roster::roster_compact(scn, &r.state, s, 76)),
            sector_legend => ascii::sector_legend(),
            sectors => Vec::<minijinja::Value>::new(),
            left_out => Option::<String>::None,
        };
        let rendered = self.results_with_sectors(scn, r, side, ctx)?;
        let key_side = side.map_or_else(
            || format!("observer:{to}"),
            |s| store::side_text(s).to_string(),
        );
        let key = format!(
            "results:{}:{}:{key_side}{}",
            played.id,
            turn.turn_no,
            super::rollback::again_key(again, &turn.seed_sha256)
        );
        Ok(Draft {
            refs: side
                .map(|s| vec![roots[usize::from(s == Side::Mahdist)].clone()])
                .unwrap_or_default(),
            ..super::games::own_mail(&played.id, "results", key, to, rendered)
        })
    }

    /// The results mail rendered from `ctx` with as many of its sector maps
    /// (`render::sectors::centres`: where something happened to the
    /// player's stacks or sieges, the weightiest first) as keep the text
    /// under [`MAX_RESULTS_LINES`] lines; the others are named, with the
    /// MAP command that sends each.
    fn results_with_sectors(
        &self,
        scn: &Scenario,
        r: &TurnResult,
        side: Option<Side>,
        ctx: minijinja::Value,
    ) -> Result<crate::service::templates::Rendered> {
        let bare = self.templates.render("results.txt", ctx.clone())?;
        let legend = ascii::sector_legend().lines().count() + 1;
        let mut lines = bare.text.lines().count() + legend + 3;
        let mut shown: Vec<minijinja::Value> = Vec::new();
        let mut left: Vec<String> = Vec::new();
        for (title, centre) in crate::render::sectors::centres(scn, &r.state, &r.events, side) {
            let map = ascii::sector_map(
                scn,
                Some(&r.state),
                Sector {
                    centre,
                    radius: crate::render::sectors::RADIUS,
                },
                false,
            );
            let n = map.lines().count() + 2;
            if lines + n < MAX_RESULTS_LINES {
                lines += n;
                shown.push(context! { title => title, map => map });
            } else {
                left.push(scn.map.describe(centre));
            }
        }
        if shown.is_empty() && left.is_empty() {
            return Ok(bare);
        }
        let left_out = (!left.is_empty()).then(|| {
            crate::words::hanging(
                &format!(
                    "Not shown, to keep this mail short: the map around {}. MAP and a place (e.g. MAP {}) sends it.",
                    left.join(", "),
                    left.first().map_or("", |s| s.split(" (").next().unwrap_or(s))
                ),
                76,
                "",
                "",
            )
        });
        Ok(self.templates.render(
            "results.txt",
            context! { sectors => shown, left_out => left_out, ..ctx },
        )?)
    }

    /// The drawn maps for `side`'s results mail `d` (`service::picture`),
    /// shown in its HTML: the player's area, and an overview when what
    /// they must see does not fit one; none, and the reason in the log,
    /// when pictures are off (`[turns] map_picture_px = 0`) or drawing
    /// fails; each left out, the overview first, when the mail with it
    /// would be over `[limits] max_message_bytes`. The text of the mail
    /// is the same either way.
    fn results_picture(
        &self,
        scn: &Scenario,
        turn: &TurnRow,
        side: Side,
        d: &Draft,
        drawn: Drawn,
    ) -> Vec<Attachment> {
        let pictures = match drawn {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(game = %turn.game_id, turn = turn.turn_no, %side, error = %e, "the results mail goes without its drawn map");
                return Vec::new();
            }
        };
        let month = turn
            .month
            .parse::<crate::calendar::GameMonth>()
            .map_or_else(|_| turn.month.clone(), |m| m.long_name());
        let mut all = d.attachments.clone();
        let mut out = Vec::new();
        for p in pictures {
            let name = if p.overview {
                super::picture::overview_file_name(&turn.game_id, &turn.month, turn.turn_kind)
            } else {
                super::picture::file_name(&turn.game_id, &turn.month, turn.turn_kind)
            };
            let alt = super::picture::alt_text(scn, side, &month, &p);
            let file = Attachment::bytes(name.clone(), "image/png", p.png)
                .shown_inline(format!("{name}@{}", self.cfg.domain()), alt);
            all.push(file.clone());
            let size = super::picture::estimated_mail_bytes(&d.rendered.text, &all);
            let limit = self.cfg.limits.max_message_bytes;
            if size > limit {
                tracing::warn!(game = %turn.game_id, turn = turn.turn_no, %side, size, limit, picture = %name, "the results mail goes without a drawn map: with it the mail would be over [limits] max_message_bytes");
                all.pop();
                continue;
            }
            tracing::debug!(game = %turn.game_id, %side, width = p.width_px, picture = %name, "drawn map for the results");
            out.push(file);
        }
        out
    }

    /// The drawn maps of each side whose player has them (`MAP PICTURE`),
    /// drawn for all sides at once on all cores (rayon): drawing is pure,
    /// the mails are made and stored after, one by one. None when pictures
    /// are off (`[turns] map_picture_px = 0`).
    fn draw_pictures(
        &self,
        scn: &Scenario,
        r: &TurnResult,
        recipients: &[(Option<Side>, String, bool)],
    ) -> Vec<(Side, Drawn)> {
        use rayon::prelude::*;
        let width = self.cfg.turns.map_picture_px;
        if width == 0 {
            return Vec::new();
        }
        let mut sides: Vec<Side> = recipients
            .iter()
            .filter(|(_, _, picture)| *picture)
            .filter_map(|(side, _, _)| *side)
            .collect();
        sides.dedup();
        let started = std::time::Instant::now();
        let drawn = sides
            .into_par_iter()
            .map(|side| {
                let scene = super::picture::Scene::new(scn, &r.state, &r.events, side);
                let p = super::picture::draw_safely(scene, width, &crate::render::svg::map_png);
                (side, p)
            })
            .collect();
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            "drawn maps for the results"
        );
        drawn
    }
}

/// The turns of `batch` played and their results made, several at once
/// (rayon), in the batch's order.
fn work_out(desk: &Desk<'_>, batch: Vec<(Prepared, Opened)>) -> Vec<Result<Played>> {
    use rayon::prelude::*;
    batch
        .into_par_iter()
        .map(|(p, o)| desk.play(p, o))
        .collect()
}

/// The game `g` moved on past the turn just played (`turn`, leaving
/// `state`), with the seed and time drawn for it (`o`).
fn next_game(g: &GameRow, turn: &TurnRow, state: &GameState, o: &Opened) -> GameRow {
    let mut next = g.clone();
    next.state = turn.state_after.as_str().into();
    next.month = state.month.to_string();
    next.turn_no = g.turn_no + 1;
    next.turn_kind = match (g.mode, g.turn_kind) {
        (Mode::Monthly, _) => TurnKind::Month,
        (Mode::Alternating, TurnKind::Player(Side::Egyptian)) => TurnKind::Player(Side::Mahdist),
        (Mode::Alternating, _) => TurnKind::Player(Side::Egyptian),
    };
    next.seed_hex = o.seed_hex.clone();
    next.seed_sha256 = o.seed_sha256.clone();
    next.deadline = o
        .deadline
        .unwrap_or(o.now + Duration::hours(i64::from(g.deadline_hours)));
    next.reminded = false;
    if let Some(res) = &state.result {
        next.status = Status::Finished;
        next.result = Some(match res.winner {
            Some(s) => format!("{s} victory: {}", res.reason),
            // The reason of the end of the calendar says "a draw"
            // itself (4.2).
            None => format!(
                "a draw: {}",
                res.reason.strip_suffix(": a draw").unwrap_or(&res.reason)
            ),
        });
    }
    next
}

/// The umpire's notes of the turn just played (`g`, before it moved on),
/// from the game's audit `log` and its `players`: sealed by their
/// SHA-256; all of them, and each programmed player's key, revealed when
/// `over`.
fn umpire(
    log: &[(String, String, String, String)],
    players: &[PlayerRow],
    g: &GameRow,
    over: bool,
) -> Umpire {
    let action = super::bots::notes_action(g.turn_no);
    let sealed = log
        .iter()
        .find(|(_, actor, a, _)| actor == "bot" && *a == action)
        .map(|(_, _, _, detail)| sha256_hex(detail.as_bytes()));
    let bots: Vec<&PlayerRow> = players.iter().filter(|p| p.bot.is_some()).collect();
    let revealed = (over && !bots.is_empty()).then(|| {
        let mut text = format!(
            "The umpire's notes of game {}: every reaction roll of the programmed player, turn by turn. Each turn's notes are the text whose SHA-256 that turn's results gave.\n\n",
            g.id
        );
        for p in &bots {
            text.push_str(&format!(
                "The {} programmed player's key (its dice are SHA-256 of \"dervish programmed player\\n\", this key, the turn's seed and its side): {}\n",
                p.side,
                p.bot_key.clone().unwrap_or_default()
            ));
        }
        for (_, actor, a, detail) in log {
            if actor == "bot" && a.starts_with("umpire's notes, turn ") {
                text.push_str(&format!(
                    "\n== {a} (SHA-256 {})\n{detail}\n",
                    sha256_hex(detail.as_bytes())
                ));
            }
        }
        text
    });
    Umpire { sealed, revealed }
}

impl Service {
    /// Remind each side that is not READY, once a turn, when the deadline
    /// is near. Returns how many reminders were queued.
    pub fn send_reminders(&self) -> Result<usize> {
        let hours = self.cfg.turns.reminder_hours;
        if hours == 0 {
            return Ok(0);
        }
        let now = self.now();
        let mut n = 0;
        for id in store::game_ids(&self.conn)? {
            let Some(mut g) = store::game(&self.conn, &id)? else {
                continue;
            };
            if g.status != Status::Running
                || g.reminded
                || now < g.deadline - Duration::hours(i64::from(hours))
                || now >= g.deadline
            {
                continue;
            }
            let tx = self.begin()?;
            for p in store::players(&tx, &g.id)? {
                if !g.turn_kind.waits_for().contains(&p.side) || p.address.is_empty() {
                    continue;
                }
                let set = store::latest_order_set(&tx, &g.id, g.turn_no, p.side)?;
                if set.as_ref().is_some_and(|s| s.ready) {
                    continue;
                }
                // A set that said READY but waits for its refused lines.
                let refused = match &set {
                    Some(s) => store::refused_lines(&tx, s.id)?,
                    None => 0,
                };
                let waits = refused > 0
                    && set.as_ref().is_some_and(|s| {
                        s.canonical.lines().any(crate::orders::parse::is_ready_line)
                    });
                let rendered = self.templates.render(
                    "reminder.txt",
                    context! {
                        game => g.id.clone(),
                        side => p.side.to_string(),
                        month => g.month.clone(),
                        deadline => deadline_text(g.deadline),
                        has_orders => set.is_some(),
                        setup => g.turn_kind.is_setup(),
                        version => set.as_ref().map_or(0, |s| s.version),
                        waits => waits,
                        refused => refused,
                        time_left => self.time_left_text(&g, p.side)?,
                    },
                )?;
                // The turn's seed in the key: a turn opened again after a
                // rollback (a new seed) is reminded again.
                let key = format!(
                    "reminder:{}:{}:{}:{}",
                    g.id,
                    g.turn_no,
                    store::side_text(p.side),
                    g.seed_sha256.get(..16).unwrap_or(&g.seed_sha256)
                );
                if self.queue(Draft {
                    refs: vec![self.thread_root(&g.id, p.side)],
                    ..Draft::new(Some(&g.id), "reminder", key, &p.address, rendered)
                })? {
                    n += 1;
                }
            }
            g.reminded = true;
            store::update_game(&tx, &g)?;
            tx.commit()?;
        }
        Ok(n)
    }

    /// Deadlines that passed while the service was not running are
    /// extended, not played without orders: if the last pass was longer
    /// ago than `downtime_minutes`, every running game whose deadline fell
    /// in the gap gets `downtime_extension_hours` more, and its players and
    /// the game master are told. Returns the games extended.
    pub fn extend_after_downtime(&self) -> Result<Vec<String>> {
        let now = self.now();
        let Some(last) = store::service_value(&self.conn, "last_pass")? else {
            return Ok(Vec::new());
        };
        let last = store::parse_time(&last)?;
        if now - last <= Duration::minutes(i64::from(self.cfg.turns.downtime_minutes)) {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for id in store::game_ids(&self.conn)? {
            let Some(mut g) = store::game(&self.conn, &id)? else {
                continue;
            };
            if g.status != Status::Running {
                continue;
            }
            // A table battle whose deadline fell in the gap gets the same
            // extension: no result is resolved automatically for downtime.
            for mut b in crate::store::battles::battles_of_turn(&self.conn, &g.id, g.turn_no)? {
                if b.status.is_settled() || b.deadline <= last || b.deadline > now {
                    continue;
                }
                let old = b.deadline;
                b.deadline =
                    now + Duration::hours(i64::from(self.cfg.turns.downtime_extension_hours));
                let tx = self.begin()?;
                crate::store::battles::update_battle(&tx, &b)?;
                let text = format!(
                    "The deadline of table battle {} passed at {} while Dervish was not running. It is extended to {}.",
                    b.id,
                    deadline_text(old),
                    deadline_text(b.deadline)
                );
                store::audit(
                    &tx,
                    now,
                    Some(&g.id),
                    "service",
                    "battle deadline extended after downtime",
                    &text,
                )?;
                let key = format!("downtime:battle:{}:{}", b.id, store::time(old));
                self.notice_to_all(&tx, &g.id, &key, "battle deadline extended", &text)?;
                tx.commit()?;
                if !out.contains(&g.id) {
                    out.push(g.id.clone());
                }
            }
            if g.deadline <= last || g.deadline > now {
                continue;
            }
            let old = g.deadline;
            g.deadline = now + Duration::hours(i64::from(self.cfg.turns.downtime_extension_hours));
            g.reminded = false;
            let tx = self.begin()?;
            store::update_game(&tx, &g)?;
            let text = format!(
                "The deadline of turn {} ({}) passed at {} while Dervish was not running. It is extended to {}, so no side loses its turn.",
                g.turn_no,
                g.month,
                deadline_text(old),
                deadline_text(g.deadline)
            );
            let key = format!("downtime:{}:{}", g.turn_no, store::time(old));
            self.notice_to_all(&tx, &g.id, &key, "deadline extended", &text)?;
            store::audit(
                &tx,
                now,
                Some(&g.id),
                "service",
                "deadline extended after downtime",
                &text,
            )?;
            tx.commit()?;
            if !out.contains(&g.id) {
                out.push(g.id);
            }
        }
        Ok(out)
    }

    /// Play a stored turn again from its stored state, orders and seed,
    /// and compare with what was stored, byte for byte.
    pub fn verify_turn(&self, turn: &TurnRow) -> Result<Verified> {
        let g = self.game(&turn.game_id)?;
        let scn = self.scenario(&g.scenario)?;
        let mut drift = Vec::new();
        if sha256_hex(&unhex(&turn.seed_hex).unwrap_or_default()) != turn.seed_sha256 {
            drift.push(
                "the seed does not match the fingerprint published when the turn opened".into(),
            );
        }
        let set =
            |id: Option<i64>, hash: &str, side: Side, drift: &mut Vec<String>| -> Result<Orders> {
                let Some(id) = id else {
                    return Ok(Orders::default());
                };
                let s = store::order_set(&self.conn, id)?;
                if let Some(s) = &s
                    && s.sha256 != hash
                {
                    drift.push(format!("the {side} orders do not match their sealed hash"));
                }
                self.orders_of(s.as_ref())
            };
        let eg = set(
            turn.egyptian_set,
            &turn.egyptian_sha256,
            Side::Egyptian,
            &mut drift,
        )?;
        let md = set(
            turn.mahdist_set,
            &turn.mahdist_sha256,
            Side::Mahdist,
            &mut drift,
        )?;
        let before: GameState =
            serde_json::from_str(&turn.state_before).map_err(|e| ServiceError::State {
                game: g.id.clone(),
                message: e.to_string(),
            })?;
        let Some(seed) = seed_bytes(&turn.seed_hex) else {
            drift.push("the seed is not 32 bytes of hex".into());
            return Ok(Verified {
                turn_no: turn.turn_no,
                month: turn.month.clone(),
                kind: turn.turn_kind,
                drift,
            });
        };
        let settled = match settlements_from_json(&turn.battles) {
            Ok(s) => s,
            Err(e) => {
                drift.push(e);
                Settlements::new()
            }
        };
        let (r, stopped) = adjudicate(
            &scn,
            before,
            turn.turn_kind,
            &eg,
            &md,
            seed,
            &settled,
            self.data.etyfw.as_ref(),
            None,
        )?;
        if stopped.is_some() {
            drift.push("the turn stops at a table battle it has no result for".into());
        }
        let state = serde_json::to_string(&r.state).unwrap_or_default();
        let events = serde_json::to_string(&r.events).unwrap_or_default();
        if state != turn.state_after {
            drift.push("the state after the turn differs".into());
        }
        if events != turn.events {
            drift.push("the events of the turn differ".into());
        }
        if log::render(&scn.map, &r.events) != turn.log {
            drift.push("the result log differs".into());
        }
        Ok(Verified {
            turn_no: turn.turn_no,
            month: turn.month.clone(),
            kind: turn.turn_kind,
            drift,
        })
    }

    /// Verify every turn of a game played in `month` (`1884-03`).
    pub fn verify(&self, id: &str, month: &str) -> Result<Vec<Verified>> {
        let turns: Vec<TurnRow> = store::turns(&self.conn, id)?
            .into_iter()
            .filter(|t| t.month == month)
            .collect();
        if turns.is_empty() {
            return Err(ServiceError::Game(format!(
                "game {id} has no turn played in {month}"
            )));
        }
        turns.iter().map(|t| self.verify_turn(t)).collect()
    }

    /// Play a whole game again from its scenario's set-up (from its first
    /// stored state for a game started from a situation): each turn must
    /// start from the state the one before left and play again byte for
    /// byte. Returns every turn's verification.
    pub fn replay(&self, id: &str) -> Result<Vec<Verified>> {
        let g = self.game(id)?;
        let scn = self.scenario(&g.scenario)?;
        let turns = store::turns(&self.conn, id)?;
        // A game started from a situation (`game new --situation`) has no
        // set-up to play again: its first state is the one stored before
        // its first turn (or the game's state while none is played).
        let from_situation =
            store::audit_log(&self.conn, id)?
                .iter()
                .any(|(_, _, action, detail)| {
                    action == "game new" && detail.contains(" from a situation (")
                });
        let mut expected = if from_situation {
            turns
                .first()
                .map_or_else(|| g.state.to_string(), |t| t.state_before.clone())
        } else {
            let (initial, _) = initial_state(&scn, &Placements::new())
                .map_err(|e| ServiceError::Data(e.to_string()))?;
            serde_json::to_string(&initial).unwrap_or_default()
        };
        let mut out = Vec::new();
        for t in turns {
            let mut v = self.verify_turn(&t)?;
            if t.state_before != expected {
                v.drift.insert(
                    0,
                    "the turn does not start from the state the turn before it left".into(),
                );
            }
            expected = t.state_after.clone();
            out.push(v);
        }
        if *expected != *g.state {
            out.push(Verified {
                turn_no: g.turn_no,
                month: g.month.clone(),
                kind: g.turn_kind,
                drift: vec!["the game's current state is not the state the last turn left".into()],
            });
        }
        Ok(out)
    }
}

/// Serialising values to JSON for storage, with the error as text.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DataSet;

    /// 2.3 "Gordon Relief Expedition. ... 4 British Camel Corps units (3x
    /// 2V, 1x1V)": the list counts equal entries instead of repeating
    /// "1 x".
    #[test]
    fn a_reinforcement_list_counts_equal_units() {
        let data = DataSet::embedded().expect("the shipped data");
        let scn = data.scenario("khartoum").expect("the khartoum scenario");
        let rf = scn
            .def
            .reinforcements
            .iter()
            .find(|r| r.id == "gordon-relief")
            .expect("the Gordon relief");
        let text = reinforcement_units(&scn, rf);
        assert!(text.contains("4 x British camel corps (V)"), "{text}");
        assert!(text.contains("6 x British infantry (V)"), "{text}");
        assert!(!text.contains("1 x British camel corps"), "{text}");
    }

    /// The game master's `game process` beside the daemon: a turn the
    /// daemon read before another process played it is seen as moved on,
    /// and is not stored twice.
    #[test]
    fn a_turn_played_by_another_process_is_seen_as_moved_on() {
        use crate::service::games::NewGame;
        let dir = std::env::temp_dir().join(format!("dervish-moved-on-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = crate::service::Config {
            database: dir.join("db.sqlite"),
            ..Default::default()
        };
        let daemon = Service::open(cfg.clone()).unwrap();
        let game_master = Service::open(cfg).unwrap();
        game_master
            .new_game(
                &NewGame {
                    id: Some("g1".into()),
                    ..NewGame::monthly("khartoum", "red@example.org", "blue@example.org")
                },
                "test",
            )
            .unwrap();
        let read = daemon.game("g1").unwrap();
        assert!(!daemon.moved_on(&read).unwrap());
        game_master.play_turn("g1").unwrap();
        assert!(daemon.moved_on(&read).unwrap());
        assert!(!daemon.moved_on(&daemon.game("g1").unwrap()).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
