//! What long games between people keep beside the turns: players'
//! absences, the turns a stand-in played, seats opened after missed
//! deadlines, draw proposals, the game master's rollbacks with what they
//! took back, and time banks.

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{Result, StoreError, parse_side, parse_time, side_text, time, time_col};
use crate::scenario::Side;

/// The tables. Migration 14.
pub(super) const SCHEMA: &str = r#"
-- A player's absence (ABSENT FROM .. TO ..), both days included. A
-- deadline in it waits for the return (held_days counted against the
-- yearly allowance), or the programmed player stands in (stand_in = 1).
CREATE TABLE absences (
    id          INTEGER PRIMARY KEY,
    game_id     TEXT NOT NULL REFERENCES games(id),
    side        TEXT NOT NULL CHECK (side IN ('egyptian', 'mahdist')),
    from_date   TEXT NOT NULL,
    to_date     TEXT NOT NULL,
    stand_in    INTEGER NOT NULL,
    asked_at    TEXT NOT NULL
);
CREATE INDEX absences_by_seat ON absences (game_id, side);
-- The turns whose orders a stand-in made for a seat, and why.
CREATE TABLE stand_in_turns (
    game_id     TEXT NOT NULL REFERENCES games(id),
    turn_no     INTEGER NOT NULL,
    side        TEXT NOT NULL CHECK (side IN ('egyptian', 'mahdist')),
    reason      TEXT NOT NULL,
    PRIMARY KEY (game_id, turn_no, side)
);
-- A stand-in's key for its dice (as a programmed player's), and the turn
-- at which the seat was opened for JOIN after missed deadlines (NULL: not
-- opened). The stand-in plays an opened seat until someone joins.
CREATE TABLE stand_in_seats (
    game_id     TEXT NOT NULL REFERENCES games(id),
    side        TEXT NOT NULL CHECK (side IN ('egyptian', 'mahdist')),
    key_hex     TEXT NOT NULL,
    opened_turn INTEGER,
    PRIMARY KEY (game_id, side)
);
-- A draw proposed (DRAW PROPOSE) during a turn; it lapses when the turn
-- is played.
CREATE TABLE draw_offers (
    game_id     TEXT PRIMARY KEY REFERENCES games(id),
    side        TEXT NOT NULL CHECK (side IN ('egyptian', 'mahdist')),
    turn_no     INTEGER NOT NULL,
    made_at     TEXT NOT NULL
);
-- The game master took the game back to the start of turn to_turn; the
-- turns taken back and their order sets are kept below.
CREATE TABLE rollbacks (
    id              INTEGER PRIMARY KEY,
    game_id         TEXT NOT NULL REFERENCES games(id),
    at              TEXT NOT NULL,
    actor           TEXT NOT NULL,
    to_turn         INTEGER NOT NULL,
    to_month        TEXT NOT NULL,
    -- The open turn when it was taken back.
    from_turn       INTEGER NOT NULL,
    why             TEXT NOT NULL,
    -- The fingerprint of turn to_turn's seed as first announced.
    announced_seed_sha256 TEXT NOT NULL,
    -- The new seed's fingerprint, announced with the rollback.
    new_seed_sha256 TEXT NOT NULL
);
CREATE TABLE rolled_back_turns (
    rollback_id     INTEGER NOT NULL REFERENCES rollbacks(id),
    turn_no         INTEGER NOT NULL,
    month           TEXT NOT NULL,
    turn_kind       TEXT NOT NULL,
    seed_hex        TEXT NOT NULL,
    seed_sha256     TEXT NOT NULL,
    egyptian_sha256 TEXT NOT NULL,
    mahdist_sha256  TEXT NOT NULL,
    state_after     TEXT NOT NULL,
    log             TEXT NOT NULL,
    played_at       TEXT NOT NULL
);
CREATE TABLE rolled_back_sets (
    rollback_id     INTEGER NOT NULL REFERENCES rollbacks(id),
    turn_no         INTEGER NOT NULL,
    side            TEXT NOT NULL,
    version         INTEGER NOT NULL,
    message         INTEGER,
    canonical       TEXT NOT NULL,
    orders          TEXT NOT NULL,
    sha256          TEXT NOT NULL,
    ready           INTEGER NOT NULL,
    received_at     TEXT NOT NULL
);
-- A game's time bank (game new --clock BASE+INCREMENT): each side's time
-- left, in seconds, and when the open turn began waiting for them.
CREATE TABLE clocks (
    game_id         TEXT PRIMARY KEY REFERENCES games(id),
    base_secs       INTEGER NOT NULL,
    increment_secs  INTEGER NOT NULL,
    egyptian_secs   INTEGER NOT NULL,
    mahdist_secs    INTEGER NOT NULL,
    opened_at       TEXT NOT NULL
);
"#;

/// An absence of a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbsenceRow {
    pub id: i64,
    pub game_id: String,
    pub side: Side,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub stand_in: bool,
    pub asked_at: DateTime<Utc>,
}

impl AbsenceRow {
    /// Its days, both ends included.
    pub fn days(&self) -> u32 {
        u32::try_from((self.to - self.from).num_days() + 1).unwrap_or(0)
    }

    /// Whether the day of `t` (UTC) is one of its days.
    pub fn covers(&self, t: DateTime<Utc>) -> bool {
        let day = t.date_naive();
        self.from <= day && day <= self.to
    }
}

fn date_col(r: &Row<'_>, i: usize) -> rusqlite::Result<NaiveDate> {
    let s: String = r.get(i)?;
    NaiveDate::parse_from_str(&s, "%Y-%m-%d").map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn side_at(r: &Row<'_>, i: usize) -> rusqlite::Result<Side> {
    let s: String = r.get(i)?;
    parse_side(&s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn absence_row(r: &Row<'_>) -> rusqlite::Result<AbsenceRow> {
    Ok(AbsenceRow {
        id: r.get(0)?,
        game_id: r.get(1)?,
        side: side_at(r, 2)?,
        from: date_col(r, 3)?,
        to: date_col(r, 4)?,
        stand_in: r.get(5)?,
        asked_at: time_col(r, 6)?,
    })
}

/// Record an absence; returns its id.
pub fn insert_absence(c: &Connection, a: &AbsenceRow) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO absences (game_id, side, from_date, to_date, stand_in, asked_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        a.game_id,
        side_text(a.side),
        a.from.to_string(),
        a.to.to_string(),
        a.stand_in,
        time(a.asked_at)
    ])?;
    Ok(c.last_insert_rowid())
}

/// The absences of a game (of one side, if given), earliest first.
pub fn absences(c: &Connection, game: &str, side: Option<Side>) -> Result<Vec<AbsenceRow>> {
    let mut st = c.prepare_cached(
        "SELECT id, game_id, side, from_date, to_date, stand_in, asked_at FROM absences WHERE game_id = ?1 ORDER BY from_date, id",
    )?;
    let rows = st.query_map([game], absence_row)?;
    let all = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(all
        .into_iter()
        .filter(|a| side.is_none_or(|s| s == a.side))
        .collect())
}

/// Cancel a side's absences from `today` on: those not begun are
/// removed, one under way ends yesterday. Returns how many changed.
pub fn cancel_absences(c: &Connection, game: &str, side: Side, today: NaiveDate) -> Result<usize> {
    let s = side_text(side);
    let removed = c
        .prepare_cached(
            "DELETE FROM absences WHERE game_id = ?1 AND side = ?2 AND from_date >= ?3",
        )?
        .execute(params![game, s, today.to_string()])?;
    let yesterday = today.pred_opt().unwrap_or(today);
    let cut = c
        .prepare_cached(
            "UPDATE absences SET to_date = ?4 WHERE game_id = ?1 AND side = ?2 AND from_date < ?3 AND to_date >= ?3",
        )?
        .execute(params![game, s, today.to_string(), yesterday.to_string()])?;
    Ok(removed + cut)
}

/// Record that a stand-in made `side`'s orders for turn `turn_no`.
pub fn record_stand_in(
    c: &Connection,
    game: &str,
    turn_no: u32,
    side: Side,
    why: &str,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO stand_in_turns (game_id, turn_no, side, reason) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (game_id, turn_no, side) DO UPDATE SET reason = ?4",
    )?
    .execute(params![game, turn_no, side_text(side), why])?;
    Ok(())
}

/// The turns a stand-in played: (turn, side, why), in order.
pub fn stand_in_turns(c: &Connection, game: &str) -> Result<Vec<(u32, Side, String)>> {
    let mut st = c.prepare_cached(
        "SELECT turn_no, side, reason FROM stand_in_turns WHERE game_id = ?1 ORDER BY turn_no, side",
    )?;
    let rows = st.query_map([game], |r| Ok((r.get(0)?, side_at(r, 1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A seat's stand-in: its key, and the turn the seat was opened for JOIN
/// (if it was).
pub fn stand_in_seat(
    c: &Connection,
    game: &str,
    side: Side,
) -> Result<Option<(String, Option<u32>)>> {
    Ok(c.prepare_cached(
        "SELECT key_hex, opened_turn FROM stand_in_seats WHERE game_id = ?1 AND side = ?2",
    )?
    .query_row(params![game, side_text(side)], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .optional()?)
}

/// Keep a seat's stand-in key and the turn it was opened at.
pub fn set_stand_in_seat(
    c: &Connection,
    game: &str,
    side: Side,
    key_hex: &str,
    opened_turn: Option<u32>,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO stand_in_seats (game_id, side, key_hex, opened_turn) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (game_id, side) DO UPDATE SET opened_turn = ?4",
    )?
    .execute(params![game, side_text(side), key_hex, opened_turn])?;
    Ok(())
}

/// The draw proposed in a game: by which side, during which turn.
pub fn draw_offer(c: &Connection, game: &str) -> Result<Option<(Side, u32)>> {
    Ok(
        c.prepare_cached("SELECT side, turn_no FROM draw_offers WHERE game_id = ?1")?
            .query_row([game], |r| Ok((side_at(r, 0)?, r.get(1)?)))
            .optional()?,
    )
}

/// Record a draw proposal (replacing any before it).
pub fn set_draw_offer(
    c: &Connection,
    game: &str,
    side: Side,
    turn_no: u32,
    at: DateTime<Utc>,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO draw_offers (game_id, side, turn_no, made_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (game_id) DO UPDATE SET side = ?2, turn_no = ?3, made_at = ?4",
    )?
    .execute(params![game, side_text(side), turn_no, time(at)])?;
    Ok(())
}

/// Forget a game's draw proposal.
pub fn clear_draw_offer(c: &Connection, game: &str) -> Result<()> {
    c.prepare_cached("DELETE FROM draw_offers WHERE game_id = ?1")?
        .execute([game])?;
    Ok(())
}

/// A rollback of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RollbackRow {
    pub id: i64,
    pub game_id: String,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub to_turn: u32,
    pub to_month: String,
    pub from_turn: u32,
    pub why: String,
    pub announced_seed_sha256: String,
    pub new_seed_sha256: String,
}

fn rollback_row(r: &Row<'_>) -> rusqlite::Result<RollbackRow> {
    Ok(RollbackRow {
        id: r.get(0)?,
        game_id: r.get(1)?,
        at: time_col(r, 2)?,
        actor: r.get(3)?,
        to_turn: r.get(4)?,
        to_month: r.get(5)?,
        from_turn: r.get(6)?,
        why: r.get(7)?,
        announced_seed_sha256: r.get(8)?,
        new_seed_sha256: r.get(9)?,
    })
}

/// The rollbacks of a game, oldest first.
pub fn rollbacks(c: &Connection, game: &str) -> Result<Vec<RollbackRow>> {
    let mut st = c.prepare_cached(
        "SELECT id, game_id, at, actor, to_turn, to_month, from_turn, why, announced_seed_sha256, new_seed_sha256 FROM rollbacks WHERE game_id = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([game], rollback_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Take game `r.game_id` back to the start of turn `r.to_turn`: the
/// rollback recorded, the turns from it on and every order set from it on
/// copied into the rollback's tables and removed. Returns the rollback's
/// id and how many turns and order sets were taken back.
pub fn take_back(c: &Connection, r: &RollbackRow) -> Result<(i64, usize, usize)> {
    c.prepare_cached(
        "INSERT INTO rollbacks (game_id, at, actor, to_turn, to_month, from_turn, why, announced_seed_sha256, new_seed_sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        r.game_id,
        time(r.at),
        r.actor,
        r.to_turn,
        r.to_month,
        r.from_turn,
        r.why,
        r.announced_seed_sha256,
        r.new_seed_sha256
    ])?;
    let id = c.last_insert_rowid();
    let turns = c
        .prepare_cached(
            "INSERT INTO rolled_back_turns (rollback_id, turn_no, month, turn_kind, seed_hex, seed_sha256, egyptian_sha256, mahdist_sha256, state_after, log, played_at) SELECT ?1, turn_no, month, turn_kind, seed_hex, seed_sha256, egyptian_sha256, mahdist_sha256, state_after, log, played_at FROM turns WHERE game_id = ?2 AND turn_no >= ?3",
        )?
        .execute(params![id, r.game_id, r.to_turn])?;
    let sets = c
        .prepare_cached(
            "INSERT INTO rolled_back_sets (rollback_id, turn_no, side, version, message, canonical, orders, sha256, ready, received_at) SELECT ?1, turn_no, side, version, message, canonical, orders, sha256, ready, received_at FROM order_sets WHERE game_id = ?2 AND turn_no >= ?3",
        )?
        .execute(params![id, r.game_id, r.to_turn])?;
    c.prepare_cached("DELETE FROM turns WHERE game_id = ?1 AND turn_no >= ?2")?
        .execute(params![r.game_id, r.to_turn])?;
    c.prepare_cached("DELETE FROM order_sets WHERE game_id = ?1 AND turn_no >= ?2")?
        .execute(params![r.game_id, r.to_turn])?;
    c.prepare_cached("DELETE FROM stand_in_turns WHERE game_id = ?1 AND turn_no >= ?2")?
        .execute(params![r.game_id, r.to_turn])?;
    Ok((id, turns, sets))
}

/// A taken-back order set: (turn, side, version, canonical text, sealed
/// SHA-256).
pub type TakenBackSet = (u32, Side, u32, String, String);

/// The order sets a rollback took back, by turn, side and version.
pub fn rolled_back_sets(c: &Connection, rollback: i64) -> Result<Vec<TakenBackSet>> {
    let mut st = c.prepare_cached(
        "SELECT turn_no, side, version, canonical, sha256 FROM rolled_back_sets WHERE rollback_id = ?1 ORDER BY turn_no, side, version",
    )?;
    let rows = st.query_map([rollback], |r| {
        Ok((r.get(0)?, side_at(r, 1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The turns a rollback took back: (turn, month, seed SHA-256).
pub fn rolled_back_turns(c: &Connection, rollback: i64) -> Result<Vec<(u32, String, String)>> {
    let mut st = c.prepare_cached(
        "SELECT turn_no, month, seed_sha256 FROM rolled_back_turns WHERE rollback_id = ?1 ORDER BY turn_no",
    )?;
    let rows = st.query_map([rollback], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A game's time bank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockRow {
    pub game_id: String,
    pub base_secs: i64,
    pub increment_secs: i64,
    pub egyptian_secs: i64,
    pub mahdist_secs: i64,
    pub opened_at: DateTime<Utc>,
}

impl ClockRow {
    /// The time `side` has left.
    pub fn left(&self, side: Side) -> i64 {
        match side {
            Side::Egyptian => self.egyptian_secs,
            Side::Mahdist => self.mahdist_secs,
        }
    }

    /// Set the time `side` has left.
    pub fn set_left(&mut self, side: Side, secs: i64) {
        match side {
            Side::Egyptian => self.egyptian_secs = secs,
            Side::Mahdist => self.mahdist_secs = secs,
        }
    }
}

/// A game's time bank, if it has one.
pub fn clock(c: &Connection, game: &str) -> Result<Option<ClockRow>> {
    let row = c
        .prepare_cached(
            "SELECT game_id, base_secs, increment_secs, egyptian_secs, mahdist_secs, opened_at FROM clocks WHERE game_id = ?1",
        )?
        .query_row([game], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get::<_, String>(5)?,
            ))
        })
        .optional()?;
    row.map(
        |(game_id, base_secs, increment_secs, egyptian_secs, mahdist_secs, at)| {
            Ok(ClockRow {
                game_id,
                base_secs,
                increment_secs,
                egyptian_secs,
                mahdist_secs,
                opened_at: parse_time(&at)?,
            })
        },
    )
    .transpose()
}

/// Store a game's time bank.
pub fn set_clock(c: &Connection, k: &ClockRow) -> Result<()> {
    if k.base_secs <= 0 || k.increment_secs < 0 {
        return Err(StoreError::Damaged(format!(
            "a time bank of {} s plus {} s a turn",
            k.base_secs, k.increment_secs
        )));
    }
    c.prepare_cached(
        "INSERT INTO clocks (game_id, base_secs, increment_secs, egyptian_secs, mahdist_secs, opened_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (game_id) DO UPDATE SET base_secs = ?2, increment_secs = ?3, egyptian_secs = ?4, mahdist_secs = ?5, opened_at = ?6",
    )?
    .execute(params![
        k.game_id,
        k.base_secs,
        k.increment_secs,
        k.egyptian_secs,
        k.mahdist_secs,
        time(k.opened_at)
    ])?;
    Ok(())
}

/// The order sets a turn was played with: the Egyptian's, the Mahdist's.
pub type SetIds = (Option<i64>, Option<i64>);

/// The played turns of a game but the set-up step: (turn, kind, the
/// Egyptian and the Mahdist order set played), in order. Light: no state.
pub fn sets_played(c: &Connection, game: &str) -> Result<Vec<(u32, super::TurnKind, SetIds)>> {
    let mut st = c.prepare_cached(
        "SELECT turn_no, turn_kind, egyptian_set, mahdist_set FROM turns WHERE game_id = ?1 ORDER BY turn_no",
    )?;
    let rows = st.query_map([game], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, String>(1)?,
            (r.get(2)?, r.get(3)?),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (turn, kind, sets) = row?;
        let kind = super::TurnKind::parse(&kind)
            .ok_or_else(|| StoreError::Damaged(format!("turn kind {kind}")))?;
        if !kind.is_setup() {
            out.push((turn, kind, sets));
        }
    }
    Ok(out)
}

/// The last turn played (the set-up step too): its kind, the order sets
/// played (Egyptian, Mahdist) and when it was played.
pub fn last_turn_sets(
    c: &Connection,
    game: &str,
) -> Result<Option<(super::TurnKind, SetIds, DateTime<Utc>)>> {
    let row = c
        .prepare_cached(
            "SELECT turn_kind, egyptian_set, mahdist_set, played_at FROM turns WHERE game_id = ?1 ORDER BY turn_no DESC LIMIT 1",
        )?
        .query_row([game], |r| {
            Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?), time_col(r, 3)?))
        })
        .optional()?;
    row.map(|(kind, sets, at)| {
        let kind = super::TurnKind::parse(&kind)
            .ok_or_else(|| StoreError::Damaged(format!("turn kind {kind}")))?;
        Ok((kind, sets, at))
    })
    .transpose()
}
