//! Table battles: a combat a turn stopped at, waiting for its result, and
//! the result as it was proposed, confirmed, disputed or entered
//! (docs/tabletop.md). Migration 6.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{Result, StoreError, time, time_col};

pub(super) const SCHEMA: &str = r#"
-- A combat a turn stopped at, to be fought on the table. The turn is not
-- stored until it has been played to its end: it is played again from its
-- start (the game's state, the order sets named here, the turn's seed)
-- with every settled battle's result.
CREATE TABLE battles (
    id              INTEGER PRIMARY KEY,
    game_id         TEXT NOT NULL REFERENCES games(id),
    turn_no         INTEGER NOT NULL,
    -- The engine's BattleKey (month, player turn, combat number) as JSON.
    battle_key      TEXT NOT NULL,
    -- The combat as the engine met it, and the state then (JSON), for the
    -- briefs and to check a result against.
    combat          TEXT NOT NULL,
    state           TEXT NOT NULL,
    -- The order sets the turn is played with: fixed when it stopped.
    egyptian_set    INTEGER REFERENCES order_sets(id),
    mahdist_set     INTEGER REFERENCES order_sets(id),
    status          TEXT NOT NULL CHECK (status IN ('waiting', 'proposed', 'disputed', 'settled', 'deadline')),
    -- The result as proposed or entered: its text, who sent it
    -- ('egyptian', 'mahdist' or 'gm'), and what it says (JSON of the
    -- engine's Resolved).
    result_text     TEXT,
    proposed_by     TEXT,
    resolved        TEXT,
    dispute         TEXT,
    deadline        TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    settled_at      TEXT,
    UNIQUE (game_id, turn_no, battle_key)
);
ALTER TABLE turns ADD COLUMN battles TEXT NOT NULL DEFAULT '[]';
"#;

/// Where a table battle stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BattleStatus {
    /// The briefs went out; no result yet.
    Waiting,
    /// A player sent a result; the other has not confirmed it.
    Proposed,
    /// The other player disputed the result: the game master decides.
    Disputed,
    /// Confirmed, or entered by the game master.
    Settled,
    /// No result by the deadline: resolved automatically.
    Deadline,
}

impl BattleStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BattleStatus::Waiting => "waiting",
            BattleStatus::Proposed => "proposed",
            BattleStatus::Disputed => "disputed",
            BattleStatus::Settled => "settled",
            BattleStatus::Deadline => "deadline",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "waiting" => BattleStatus::Waiting,
            "proposed" => BattleStatus::Proposed,
            "disputed" => BattleStatus::Disputed,
            "settled" => BattleStatus::Settled,
            "deadline" => BattleStatus::Deadline,
            _ => return None,
        })
    }

    /// Whether the battle has its outcome (the turn may go on).
    pub fn is_settled(self) -> bool {
        matches!(self, BattleStatus::Settled | BattleStatus::Deadline)
    }
}

/// A table battle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BattleRow {
    pub id: i64,
    pub game_id: String,
    pub turn_no: u32,
    pub battle_key: String,
    pub combat: String,
    pub state: String,
    pub egyptian_set: Option<i64>,
    pub mahdist_set: Option<i64>,
    pub status: BattleStatus,
    pub result_text: Option<String>,
    pub proposed_by: Option<String>,
    pub resolved: Option<String>,
    pub dispute: Option<String>,
    pub deadline: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub settled_at: Option<DateTime<Utc>>,
}

const COLS: &str = "id, game_id, turn_no, battle_key, combat, state, egyptian_set, mahdist_set, status, result_text, proposed_by, resolved, dispute, deadline, created_at, settled_at";

fn row(r: &Row<'_>) -> rusqlite::Result<BattleRow> {
    let status: String = r.get(8)?;
    let status = BattleStatus::parse(&status).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            8,
            rusqlite::types::Type::Text,
            Box::new(StoreError::Damaged(format!("battle status {status}"))),
        )
    })?;
    let settled_at = match r.get::<_, Option<String>>(15)? {
        Some(_) => Some(time_col(r, 15)?),
        None => None,
    };
    Ok(BattleRow {
        id: r.get(0)?,
        game_id: r.get(1)?,
        turn_no: r.get(2)?,
        battle_key: r.get(3)?,
        combat: r.get(4)?,
        state: r.get(5)?,
        egyptian_set: r.get(6)?,
        mahdist_set: r.get(7)?,
        status,
        result_text: r.get(9)?,
        proposed_by: r.get(10)?,
        resolved: r.get(11)?,
        dispute: r.get(12)?,
        deadline: time_col(r, 13)?,
        created_at: time_col(r, 14)?,
        settled_at,
    })
}

/// Store a battle the turn stopped at; returns its id. A battle already
/// stored for the same turn and combat is returned as it is.
pub fn insert_battle(c: &Connection, b: &BattleRow) -> Result<i64> {
    if let Some(old) = battle_by_key(c, &b.game_id, b.turn_no, &b.battle_key)? {
        return Ok(old.id);
    }
    c.prepare_cached(
        "INSERT INTO battles (game_id, turn_no, battle_key, combat, state, egyptian_set, mahdist_set, status, result_text, proposed_by, resolved, dispute, deadline, created_at, settled_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        b.game_id,
        b.turn_no,
        b.battle_key,
        b.combat,
        b.state,
        b.egyptian_set,
        b.mahdist_set,
        b.status.as_str(),
        b.result_text,
        b.proposed_by,
        b.resolved,
        b.dispute,
        time(b.deadline),
        time(b.created_at),
        b.settled_at.map(time),
    ])?;
    Ok(c.last_insert_rowid())
}

/// Save a battle's status and result.
pub fn update_battle(c: &Connection, b: &BattleRow) -> Result<()> {
    c.prepare_cached(
        "UPDATE battles SET status = ?2, result_text = ?3, proposed_by = ?4, resolved = ?5, dispute = ?6, deadline = ?7, settled_at = ?8 WHERE id = ?1",
    )?
    .execute(params![
        b.id,
        b.status.as_str(),
        b.result_text,
        b.proposed_by,
        b.resolved,
        b.dispute,
        time(b.deadline),
        b.settled_at.map(time),
    ])?;
    Ok(())
}

pub fn battle(c: &Connection, id: i64) -> Result<Option<BattleRow>> {
    Ok(
        c.prepare_cached(&format!("SELECT {COLS} FROM battles WHERE id = ?1"))?
            .query_row([id], row)
            .optional()?,
    )
}

fn battle_by_key(c: &Connection, game: &str, turn_no: u32, key: &str) -> Result<Option<BattleRow>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLS} FROM battles WHERE game_id = ?1 AND turn_no = ?2 AND battle_key = ?3"
    ))?
    .query_row(params![game, turn_no, key], row)
    .optional()?)
}

/// The battles of a game's turn, in the order they came up.
pub fn battles_of_turn(c: &Connection, game: &str, turn_no: u32) -> Result<Vec<BattleRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLS} FROM battles WHERE game_id = ?1 AND turn_no = ?2 ORDER BY id"
    ))?;
    let rows = st.query_map(params![game, turn_no], row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Every battle of a game, in the order they came up.
pub fn battles_of_game(c: &Connection, game: &str) -> Result<Vec<BattleRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLS} FROM battles WHERE game_id = ?1 ORDER BY id"
    ))?;
    let rows = st.query_map([game], row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
