//! Storage: every game's full history in SQLite (bundled), in WAL mode,
//! with foreign keys and schema migrations. Rows have their own types,
//! separate from the engine's: the engine's state and orders are stored as
//! JSON text inside them.
//!
//! Functions take a `&Connection`, so the service runs several of them in
//! one transaction (a `rusqlite::Transaction` derefs to a connection).

pub mod battles;
mod checkpoint;
mod inbox;
mod parts;
pub mod schema;
pub mod seats;
pub mod strangers;

use std::path::Path;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::scenario::Side;
pub use checkpoint::Checkpointer;
pub use inbox::{
    begin_inbox_attempt, end_inbox_attempts, inbox_attempts, open_seat_exists, undo_inbox_attempt,
};
pub use parts::{SHARED_MIN_BYTES, Shared};

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("database schema: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("stored data is damaged: {0}")]
    Damaged(String),
    #[error("cannot start the database's checkpoint thread: {0}")]
    Thread(std::io::Error),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// Open (creating if needed) the database at `path`, in WAL mode with
/// foreign keys on, migrated to the latest schema.
///
/// Every connection waits up to [`BUSY_TIMEOUT`] for another's write to
/// end, set before anything else is asked of the file (switching to WAL
/// included), so the daemon and a game master's command share the
/// database: each change is one short transaction, and WAL lets readers
/// in while one writes.
pub fn open(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "wal_autocheckpoint", CHECKPOINT_PAGES)?;
    conn.pragma_update(None, "journal_size_limit", WAL_KEPT_BYTES)?;
    prepare(&mut conn)?;
    Ok(conn)
}

/// How many pages the write-ahead log may hold before the commit that
/// passes it copies them into the database itself (a checkpoint, which
/// waits for the disk). SQLite's default is 1,000; an orders mail writes
/// about 12 pages, so one mail in 80 paid a checkpoint in its intake, on
/// average about 75 µs a mail, most of it waiting for `fsync`. The
/// daemon checkpoints on a thread of its own ([`Checkpointer`]), which
/// keeps the log well under this; the limit is a backstop, for short
/// commands and for a log the thread could not start again.
pub const CHECKPOINT_PAGES: i64 = 40_000;

/// The size the write-ahead log is cut back to once a checkpoint has
/// copied all of it (SQLite leaves it at its largest otherwise): above
/// what the log holds between the checkpoint thread's turns even in a
/// burst of mail, so the log is written over in place rather than cut and
/// grown again each time (which cost a busy intake about 2% in the
/// kernel), and a log the backstop let grow large is cut back.
pub const WAL_KEPT_BYTES: i64 = 64 * 1024 * 1024;

/// How long a connection waits for another's write before it gives up
/// with "database is locked".
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Check, without creating or changing anything, that the database at
/// `path` exists and can be read and written now: for `dervish submit`,
/// which must not take a message it cannot store, nor make a new database
/// in the wrong place.
pub fn check_usable(path: &Path) -> std::result::Result<(), Unusable> {
    use rusqlite::OpenFlags;
    let why = |what: &str| Unusable::Broken {
        path: path.display().to_string(),
        why: what.to_string(),
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Unusable::Missing(path.display().to_string()));
        }
        Err(e) => return Err(why(&e.to_string())),
        Ok(m) if !m.is_file() => return Err(why("it is not a file")),
        Ok(_) => {}
    }
    if !has_database_header(path).map_err(|e| why(&e.to_string()))? {
        return Err(why("file is not a database"));
    }
    // Opening reads nothing yet: it says whether the file can be written.
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| why(&e.to_string()))?;
    if conn
        .is_readonly(rusqlite::MAIN_DB)
        .map_err(|e| why(&e.to_string()))?
    {
        return Err(why("it can only be read (file permissions)"));
    }
    Ok(())
}

/// Whether the file begins as an SQLite database does (or is empty, which
/// SQLite takes as a new database). Read as a plain file, so that the
/// check costs no write-ahead log or shared memory made and removed again
/// (the first read of a WAL database through SQLite makes both): a file
/// damaged further in is found when the database is opened to store the
/// message, which `submit` reports the same way. It opens and closes the
/// file, so it comes before this process holds a lock on it (closing any
/// descriptor of a file drops the process's POSIX locks on it).
fn has_database_header(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    const MAGIC: &[u8] = b"SQLite format 3\0";
    let mut head = [0u8; 100];
    let mut file = std::fs::File::open(path)?;
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got == 0 || (got == head.len() && head.starts_with(MAGIC)))
}

/// Why a database cannot be used now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    /// No file at the path: nothing is created in its place.
    #[error("there is no database at {0}")]
    Missing(String),
    /// The file is there but cannot be opened, read or written.
    #[error("the database {path} cannot be used: {why}")]
    Broken { path: String, why: String },
}

/// Open an existing database for reading only, while another dervish may
/// hold it for writing (WAL lets readers in). Refuses a database that is
/// missing or not at the latest schema, since reading it cannot migrate it.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    use rusqlite::OpenFlags;
    if !path.exists() {
        return Err(StoreError::Damaged(format!(
            "there is no database at {}",
            path.display()
        )));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let latest = schema::latest();
    if version != latest {
        return Err(StoreError::Damaged(format!(
            "the database {} is at schema version {version}, this dervish reads version {latest}: run a command that writes (e.g. `dervish run --once`) with no other dervish running, to bring it up to date",
            path.display()
        )));
    }
    Ok(conn)
}

/// An empty database in memory (tests, verification).
pub fn open_in_memory() -> Result<Connection> {
    let mut conn = Connection::open_in_memory()?;
    prepare(&mut conn)?;
    Ok(conn)
}

/// Bring the schema up to date and turn foreign keys on. A database at the
/// latest schema, the usual case, costs one read of its version; only an
/// older one (or a newer one, which the migrations refuse) goes through
/// the migrations.
fn prepare(conn: &mut Connection) -> Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != schema::latest() {
        // Foreign keys are off while migrating (a migration may make a
        // table again, schema.rs V8); each migration that does checks them
        // itself.
        conn.pragma_update(None, "foreign_keys", "OFF")?;
        schema::migrations().to_latest(conn)?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// A time as stored: RFC 3339, UTC, whole seconds.
pub fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A stored time read back.
pub fn parse_time(s: &str) -> Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Damaged(format!("time {s}: {e}")))
}

/// A side as stored.
pub fn side_text(side: Side) -> &'static str {
    match side {
        Side::Egyptian => "egyptian",
        Side::Mahdist => "mahdist",
    }
}

/// A stored side read back.
pub fn parse_side(s: &str) -> Result<Side> {
    match s {
        "egyptian" => Ok(Side::Egyptian),
        "mahdist" => Ok(Side::Mahdist),
        other => Err(StoreError::Damaged(format!("side {other}"))),
    }
}

fn side_col(row: &Row<'_>, i: usize) -> rusqlite::Result<Side> {
    let s: String = row.get(i)?;
    parse_side(&s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

pub(crate) fn time_col(row: &Row<'_>, i: usize) -> rusqlite::Result<DateTime<Utc>> {
    let s: String = row.get(i)?;
    parse_time(&s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// How a game's turns run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Both sides' orders for the month, then both player turns.
    Monthly,
    /// Each player turn has its own orders and deadline.
    Alternating,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Monthly => "monthly",
            Mode::Alternating => "alternating",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "monthly" => Some(Mode::Monthly),
            "alternating" => Some(Mode::Alternating),
            _ => None,
        }
    }
}

/// Whether a game is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    Paused,
    Finished,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Paused => "paused",
            Status::Finished => "finished",
        }
    }

    fn parse(s: &str) -> Option<Status> {
        match s {
            "running" => Some(Status::Running),
            "paused" => Some(Status::Paused),
            "finished" => Some(Status::Finished),
            _ => None,
        }
    }
}

/// Which player turns the open turn plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnKind {
    /// The whole month: the Egyptian player turn, then the Mahdist.
    Month,
    /// One player turn (alternating mode).
    Player(Side),
    /// The set-up step before the first month (2.1), waiting for this
    /// side's set-up: the Egyptian's first, then the Mahdist's, who knows
    /// the Egyptian's. Played (turn 0) when the Mahdist's is sealed.
    SetUp(Side),
}

impl TurnKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnKind::Month => "month",
            TurnKind::Player(s) => side_text(s),
            TurnKind::SetUp(Side::Egyptian) => "setup-egyptian",
            TurnKind::SetUp(Side::Mahdist) => "setup-mahdist",
        }
    }

    /// The kind of turn written by [`TurnKind::as_str`].
    pub fn parse(s: &str) -> Option<TurnKind> {
        match s {
            "month" => Some(TurnKind::Month),
            "setup-egyptian" => Some(TurnKind::SetUp(Side::Egyptian)),
            "setup-mahdist" => Some(TurnKind::SetUp(Side::Mahdist)),
            other => parse_side(other).ok().map(TurnKind::Player),
        }
    }

    /// The sides whose orders the turn needs (the set-up: both).
    pub fn sides(self) -> Vec<Side> {
        match self {
            TurnKind::Month | TurnKind::SetUp(_) => vec![Side::Egyptian, Side::Mahdist],
            TurnKind::Player(s) => vec![s],
        }
    }

    /// The sides whose orders the open turn waits for now: in the set-up
    /// step, the side setting up (the Egyptian first, 2.1).
    pub fn waits_for(self) -> Vec<Side> {
        match self {
            TurnKind::SetUp(s) => vec![s],
            other => other.sides(),
        }
    }

    /// What the turn plays, for players: `October 1883`, `October 1883
    /// Egyptian player turn`, `the set-up of October 1883`.
    pub fn label(self, month: &str) -> String {
        match self {
            TurnKind::Month => month.to_string(),
            TurnKind::Player(s) => format!("{month} {s} player turn"),
            TurnKind::SetUp(_) => format!("the set-up of {month}"),
        }
    }

    /// Whether this is the set-up step.
    pub fn is_setup(self) -> bool {
        matches!(self, TurnKind::SetUp(_))
    }
}

/// A game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: String,
    pub scenario: String,
    pub mode: Mode,
    pub status: Status,
    pub deadline_hours: u32,
    pub created_at: DateTime<Utc>,
    /// The engine's `GameState` as JSON.
    pub state: std::sync::Arc<str>,
    pub month: String,
    pub turn_no: u32,
    pub turn_kind: TurnKind,
    pub deadline: DateTime<Utc>,
    pub seed_hex: String,
    pub seed_sha256: String,
    pub reminded: bool,
    pub result: Option<String>,
}

fn enum_col<T>(row: &Row<'_>, i: usize, f: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let s: String = row.get(i)?;
    f(&s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            Box::new(StoreError::Damaged(format!("value {s}"))),
        )
    })
}

const GAME_COLS: &str = "id, scenario, mode, status, deadline_hours, created_at, state, month, turn_no, turn_kind, deadline, seed_hex, seed_sha256, reminded, result";

fn game_row(r: &Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get(0)?,
        scenario: r.get(1)?,
        mode: enum_col(r, 2, Mode::parse)?,
        status: enum_col(r, 3, Status::parse)?,
        deadline_hours: r.get(4)?,
        created_at: time_col(r, 5)?,
        state: r.get(6)?,
        month: r.get(7)?,
        turn_no: r.get(8)?,
        turn_kind: enum_col(r, 9, TurnKind::parse)?,
        deadline: time_col(r, 10)?,
        seed_hex: r.get(11)?,
        seed_sha256: r.get(12)?,
        reminded: r.get(13)?,
        result: r.get(14)?,
    })
}

pub fn insert_game(c: &Connection, g: &GameRow) -> Result<()> {
    write_game(
        c,
        &format!(
            "INSERT INTO games ({GAME_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
        ),
        g,
    )
}

/// Write back every field of a game but its id.
pub fn update_game(c: &Connection, g: &GameRow) -> Result<()> {
    write_game(
        c,
        "UPDATE games SET scenario = ?2, mode = ?3, status = ?4, deadline_hours = ?5, created_at = ?6, state = ?7, month = ?8, turn_no = ?9, turn_kind = ?10, deadline = ?11, seed_hex = ?12, seed_sha256 = ?13, reminded = ?14, result = ?15 WHERE id = ?1",
        g,
    )
}

/// Run `sql` with the fields of `g` as `?1` to `?15`, in the order of
/// [`GAME_COLS`].
fn write_game(c: &Connection, sql: &str, g: &GameRow) -> Result<()> {
    c.prepare_cached(sql)?.execute(params![
        g.id,
        g.scenario,
        g.mode.as_str(),
        g.status.as_str(),
        g.deadline_hours,
        time(g.created_at),
        g.state,
        g.month,
        g.turn_no,
        g.turn_kind.as_str(),
        time(g.deadline),
        g.seed_hex,
        g.seed_sha256,
        g.reminded,
        g.result
    ])?;
    Ok(())
}

pub fn game(c: &Connection, id: &str) -> Result<Option<GameRow>> {
    Ok(
        c.prepare_cached(&format!("SELECT {GAME_COLS} FROM games WHERE id = ?1"))?
            .query_row([id], game_row)
            .optional()?,
    )
}

/// The columns of [`GAME_COLS`] with the state's text left out (read as
/// empty) and its length in bytes last: SQLite answers `octet_length`
/// from the record's header, without reading the text, tens of
/// kilobytes, from its overflow pages.
const GAME_HEAD_COLS: &str = "id, scenario, mode, status, deadline_hours, created_at, '', month, turn_no, turn_kind, deadline, seed_hex, seed_sha256, reminded, result, octet_length(state)";

/// A game by id with its state's text left empty, and the length of that
/// text in bytes: for a reader that may hold the text already.
pub fn game_head(c: &Connection, id: &str) -> Result<Option<(GameRow, usize)>> {
    Ok(
        c.prepare_cached(&format!("SELECT {GAME_HEAD_COLS} FROM games WHERE id = ?1"))?
            .query_row([id], |r| {
                let bytes: i64 = r.get(15)?;
                Ok((game_row(r)?, usize::try_from(bytes).unwrap_or(usize::MAX)))
            })
            .optional()?,
    )
}

/// Every game, by id.
pub fn games(c: &Connection) -> Result<Vec<GameRow>> {
    let mut st = c.prepare_cached(&format!("SELECT {GAME_COLS} FROM games ORDER BY id"))?;
    let rows = st.query_map([], game_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The id of every game, in order. A pass walks the games by id and reads
/// each row (with its stored state, tens of kilobytes) only when it needs
/// it, so memory does not grow with the number of games.
pub fn game_ids(c: &Connection) -> Result<Vec<String>> {
    let mut st = c.prepare_cached("SELECT id FROM games ORDER BY id")?;
    let rows = st.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A player's seat in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    pub game_id: String,
    pub side: Side,
    pub address: String,
    pub secret_sha256: String,
    pub unreachable: bool,
    pub missed_turns: u32,
    pub auth_failures: u32,
    /// A programmed player holds the seat (`mahdist`): it has no address,
    /// and its orders are made when each turn opens.
    pub bot: Option<String>,
    /// The programmed player's own key, 32 bytes in hex: its dice are drawn
    /// from the turn's seed and this key, so its rolls stay hidden until
    /// the game ends, when the key is revealed.
    pub bot_key: Option<String>,
    /// Results mails carry the drawn map of the player's area as a
    /// picture (`MAP PICTURE`, the default); off with `MAP TEXT`.
    pub map_picture: bool,
    /// The player agreed that the game's public archive shows their mail
    /// address (`ADDRESS PUBLIC`); off (`ADDRESS HIDDEN`) unless they say
    /// so, and off for every new player of a seat.
    pub show_address: bool,
}

const PLAYER_COLS: &str = "game_id, side, address, secret_sha256, unreachable, missed_turns, auth_failures, bot, bot_key, map_picture, show_address";

fn player_row(r: &Row<'_>) -> rusqlite::Result<PlayerRow> {
    Ok(PlayerRow {
        game_id: r.get(0)?,
        side: side_col(r, 1)?,
        address: r.get(2)?,
        secret_sha256: r.get(3)?,
        unreachable: r.get(4)?,
        missed_turns: r.get(5)?,
        auth_failures: r.get(6)?,
        bot: r.get(7)?,
        bot_key: r.get(8)?,
        map_picture: r.get(9)?,
        show_address: r.get(10)?,
    })
}

pub fn upsert_player(c: &Connection, p: &PlayerRow) -> Result<()> {
    c.prepare_cached(
        &format!("INSERT INTO players ({PLAYER_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (game_id, side) DO UPDATE SET address = ?3, secret_sha256 = ?4, unreachable = ?5, missed_turns = ?6, auth_failures = ?7, bot = ?8, bot_key = ?9, map_picture = ?10, show_address = ?11"),
    )?
    .execute(
        params![
            p.game_id,
            side_text(p.side),
            p.address,
            p.secret_sha256,
            p.unreachable,
            p.missed_turns,
            p.auth_failures,
            p.bot,
            p.bot_key,
            p.map_picture,
            p.show_address
        ],
    )?;
    Ok(())
}

/// The players of a game, Egyptian first.
pub fn players(c: &Connection, game_id: &str) -> Result<Vec<PlayerRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {PLAYER_COLS} FROM players WHERE game_id = ?1 ORDER BY side"
    ))?;
    let rows = st.query_map([game_id], player_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Every seat held by an address, in any game.
pub fn seats_of(c: &Connection, address: &str) -> Result<Vec<PlayerRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {PLAYER_COLS} FROM players WHERE address = ?1 ORDER BY game_id, side"
    ))?;
    let rows = st.query_map([address], player_row)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn observers(c: &Connection, game_id: &str) -> Result<Vec<String>> {
    let mut st =
        c.prepare_cached("SELECT address FROM observers WHERE game_id = ?1 ORDER BY address")?;
    let rows = st.query_map([game_id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn add_observer(c: &Connection, game_id: &str, address: &str) -> Result<()> {
    c.prepare_cached("INSERT OR IGNORE INTO observers (game_id, address) VALUES (?1, ?2)")?
        .execute(params![game_id, address])?;
    Ok(())
}

/// Store a received message. Returns its row id, or `None` if a message
/// with this Message-ID was stored before (a duplicate delivery).
pub fn insert_message(
    c: &Connection,
    message_id: &str,
    received_at: DateTime<Utc>,
    sender: Option<&str>,
    subject: &str,
    raw: &[u8],
) -> Result<Option<i64>> {
    let n = c.prepare_cached(
        "INSERT OR IGNORE INTO messages (message_id, received_at, sender, subject, raw, outcome) VALUES (?1, ?2, ?3, ?4, ?5, 'received')",
    )?
    .execute(
        params![message_id, time(received_at), sender, subject, raw],
    )?;
    Ok((n == 1).then(|| c.last_insert_rowid()))
}

/// A message as the game master lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageSummary {
    pub id: i64,
    pub message_id: String,
    pub received_at: String,
    pub sender: Option<String>,
    pub subject: String,
    pub game_id: Option<String>,
    pub outcome: String,
}

/// The last `limit` messages received, newest first; with `not_answered`,
/// only those ignored or set aside (a stranger's mail, automatic mail).
pub fn recent_messages(
    c: &Connection,
    limit: u32,
    not_answered: bool,
) -> Result<Vec<MessageSummary>> {
    let mut st = c.prepare_cached(
        "SELECT id, message_id, received_at, sender, subject, game_id, outcome FROM messages \
         WHERE ?2 = 0 OR outcome LIKE 'ignored%' OR outcome LIKE 'set aside%' \
         ORDER BY id DESC LIMIT ?1",
    )?;
    let rows = st.query_map(params![limit, i64::from(not_answered)], |r| {
        Ok(MessageSummary {
            id: r.get(0)?,
            message_id: r.get(1)?,
            received_at: r.get(2)?,
            sender: r.get(3)?,
            subject: r.get(4)?,
            game_id: r.get(5)?,
            outcome: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The row id of the last message stored (0 for none).
pub fn last_message_row(c: &Connection) -> Result<i64> {
    Ok(
        c.query_row("SELECT coalesce(max(id), 0) FROM messages", [], |r| {
            r.get(0)
        })?,
    )
}

/// The Message-ID and outcome of every message stored after row `after`,
/// in the order stored.
pub fn messages_after(c: &Connection, after: i64) -> Result<Vec<(String, String)>> {
    let mut st =
        c.prepare_cached("SELECT message_id, outcome FROM messages WHERE id > ?1 ORDER BY id")?;
    let rows = st.query_map(params![after], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Record what was done with a message.
pub fn set_message_outcome(
    c: &Connection,
    id: i64,
    game_id: Option<&str>,
    outcome: &str,
) -> Result<()> {
    c.prepare_cached("UPDATE messages SET game_id = ?2, outcome = ?3 WHERE id = ?1")?
        .execute(params![id, game_id, outcome])?;
    Ok(())
}

/// A stored message's outcome, by Message-ID.
pub fn message_outcome(c: &Connection, message_id: &str) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT outcome FROM messages WHERE message_id = ?1")?
            .query_row([message_id], |r| r.get(0))
            .optional()?,
    )
}

/// One version of a side's orders for a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderSetRow {
    pub id: i64,
    pub game_id: String,
    pub turn_no: u32,
    pub side: Side,
    pub version: u32,
    pub message: Option<i64>,
    pub canonical: String,
    /// The engine's `Orders` as JSON.
    pub orders: String,
    pub sha256: String,
    pub ready: bool,
    pub received_at: DateTime<Utc>,
}

const SET_COLS: &str =
    "id, game_id, turn_no, side, version, message, canonical, orders, sha256, ready, received_at";

fn set_row(r: &Row<'_>) -> rusqlite::Result<OrderSetRow> {
    Ok(OrderSetRow {
        id: r.get(0)?,
        game_id: r.get(1)?,
        turn_no: r.get(2)?,
        side: side_col(r, 3)?,
        version: r.get(4)?,
        message: r.get(5)?,
        canonical: r.get(6)?,
        orders: r.get(7)?,
        sha256: r.get(8)?,
        ready: r.get(9)?,
        received_at: time_col(r, 10)?,
    })
}

/// A new version of a side's orders, as [`insert_order_set`] stores it.
#[derive(Clone, Copy, Debug)]
pub struct NewOrderSet<'a> {
    pub game_id: &'a str,
    pub turn_no: u32,
    pub side: Side,
    /// The mail that sent them, if any.
    pub message: Option<i64>,
    pub canonical: &'a str,
    /// The engine's `Orders` as JSON.
    pub orders: &'a str,
    pub sha256: &'a str,
    pub ready: bool,
    /// Lines of the mail that will not be carried out (NOT UNDERSTOOD or
    /// NOT POSSIBLE on its receipt); 0 for a programmed player's set.
    pub refused_lines: u32,
    pub received_at: DateTime<Utc>,
}

/// Store a new version of a side's orders, numbered one past the last
/// version of that side's orders for the turn; returns the stored row.
pub fn insert_order_set(c: &Connection, s: &NewOrderSet<'_>) -> Result<OrderSetRow> {
    let version: u32 = c
        .prepare_cached(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM order_sets WHERE game_id = ?1 AND turn_no = ?2 AND side = ?3",
        )?
        .query_row(params![s.game_id, s.turn_no, side_text(s.side)], |r| r.get(0))?;
    c.prepare_cached(
        "INSERT INTO order_sets (game_id, turn_no, side, version, message, canonical, orders, sha256, ready, received_at, refused_lines) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        s.game_id,
        s.turn_no,
        side_text(s.side),
        version,
        s.message,
        s.canonical,
        s.orders,
        s.sha256,
        s.ready,
        time(s.received_at),
        s.refused_lines
    ])?;
    let id = c.last_insert_rowid();
    Ok(OrderSetRow {
        id,
        game_id: s.game_id.to_string(),
        turn_no: s.turn_no,
        side: s.side,
        version,
        message: s.message,
        canonical: s.canonical.to_string(),
        orders: s.orders.to_string(),
        sha256: s.sha256.to_string(),
        ready: s.ready,
        received_at: s.received_at,
    })
}

/// How many lines of order set `id` will not be carried out (0 for a set
/// stored before this was kept, or made by a programmed player).
pub fn refused_lines(c: &Connection, id: i64) -> Result<u32> {
    Ok(
        c.prepare_cached("SELECT refused_lines FROM order_sets WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?
            .unwrap_or(0),
    )
}

/// The latest orders of a side for a turn.
pub fn latest_order_set(
    c: &Connection,
    game_id: &str,
    turn_no: u32,
    side: Side,
) -> Result<Option<OrderSetRow>> {
    Ok(c.prepare_cached(
        &format!("SELECT {SET_COLS} FROM order_sets WHERE game_id = ?1 AND turn_no = ?2 AND side = ?3 ORDER BY version DESC LIMIT 1"),
    )?
    .query_row(
        params![game_id, turn_no, side_text(side)],
        set_row,
    )
    .optional()?)
}

pub fn order_set(c: &Connection, id: i64) -> Result<Option<OrderSetRow>> {
    Ok(
        c.prepare_cached(&format!("SELECT {SET_COLS} FROM order_sets WHERE id = ?1"))?
            .query_row([id], set_row)
            .optional()?,
    )
}

/// A played turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnRow {
    pub game_id: String,
    pub turn_no: u32,
    pub month: String,
    pub turn_kind: TurnKind,
    pub seed_hex: String,
    pub seed_sha256: String,
    pub egyptian_set: Option<i64>,
    pub mahdist_set: Option<i64>,
    pub egyptian_sha256: String,
    pub mahdist_sha256: String,
    pub state_before: String,
    pub state_after: String,
    /// The engine's events as JSON.
    pub events: String,
    /// The result log as sent.
    pub log: String,
    pub played_at: DateTime<Utc>,
    /// The table battles' settlements the turn was played with (JSON: a
    /// list of the engine's battle key and the settlement); `[]` without.
    pub battles: String,
}

const TURN_COLS: &str = "game_id, turn_no, month, turn_kind, seed_hex, seed_sha256, egyptian_set, mahdist_set, egyptian_sha256, mahdist_sha256, state_before, state_after, events, log, played_at, battles";

fn turn_row(r: &Row<'_>) -> rusqlite::Result<TurnRow> {
    Ok(TurnRow {
        game_id: r.get(0)?,
        turn_no: r.get(1)?,
        month: r.get(2)?,
        turn_kind: enum_col(r, 3, TurnKind::parse)?,
        seed_hex: r.get(4)?,
        seed_sha256: r.get(5)?,
        egyptian_set: r.get(6)?,
        mahdist_set: r.get(7)?,
        egyptian_sha256: r.get(8)?,
        mahdist_sha256: r.get(9)?,
        state_before: r.get(10)?,
        state_after: r.get(11)?,
        events: r.get(12)?,
        log: r.get(13)?,
        played_at: time_col(r, 14)?,
        battles: r.get(15)?,
    })
}

/// Store a played turn. The state a turn starts from is the state the
/// game's turn before ended with: it is then stored once, with that
/// turn, and this turn's `state_before` is stored empty ([`turns`] reads
/// it back whole).
pub fn insert_turn(c: &Connection, t: &TurnRow) -> Result<()> {
    let before: Option<String> = c
        .prepare_cached(
            "SELECT state_after FROM turns WHERE game_id = ?1 AND turn_no < ?2 ORDER BY turn_no DESC LIMIT 1",
        )?
        .query_row(params![t.game_id, t.turn_no], |r| r.get(0))
        .optional()?;
    let state_before = if before.as_deref() == Some(t.state_before.as_str()) {
        ""
    } else {
        t.state_before.as_str()
    };
    c.prepare_cached(
        &format!("INSERT INTO turns ({TURN_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"),
    )?
    .execute(
        params![
            t.game_id,
            t.turn_no,
            t.month,
            t.turn_kind.as_str(),
            t.seed_hex,
            t.seed_sha256,
            t.egyptian_set,
            t.mahdist_set,
            t.egyptian_sha256,
            t.mahdist_sha256,
            state_before,
            t.state_after,
            t.events,
            t.log,
            time(t.played_at),
            t.battles
        ],
    )?;
    Ok(())
}

/// The played turns of a game, in order.
pub fn turns(c: &Connection, game_id: &str) -> Result<Vec<TurnRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {TURN_COLS} FROM turns WHERE game_id = ?1 ORDER BY turn_no"
    ))?;
    let rows = st.query_map([game_id], turn_row)?;
    let mut turns: Vec<TurnRow> = Vec::new();
    for row in rows {
        let mut t = row?;
        // Stored once, with the turn before ([`insert_turn`]).
        if t.state_before.is_empty() {
            let Some(last) = turns.last() else {
                return Err(StoreError::Damaged(format!(
                    "turn {} of game {game_id} starts from the state of a turn before it, and there is none",
                    t.turn_no
                )));
            };
            t.state_before = last.state_after.clone();
        }
        turns.push(t);
    }
    Ok(turns)
}

/// A mail waiting to be sent, or sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxRow {
    pub id: i64,
    pub game_id: Option<String>,
    pub kind: String,
    pub dedupe_key: String,
    pub message_id: String,
    pub recipient: String,
    pub subject: String,
    pub body_text: String,
    pub body_html: Option<String>,
    pub in_reply_to: Option<String>,
    /// Message-IDs, space-separated.
    pub refs: String,
    pub auto_kind: String,
    pub created_at: DateTime<Utc>,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub gave_up: bool,
    /// The files sent with the mail, as JSON (`[]` for none): a list of
    /// `{name, content_type, text}`.
    pub attachments: String,
    /// The HTML part is the text shown as it is, made from the text and
    /// the files when the mail is sent (`body_html` is then `None`).
    pub html_from_text: bool,
}

const OUT_COLS: &str = "id, game_id, kind, dedupe_key, message_id, recipient, subject, body_text, body_html, in_reply_to, refs, auto_kind, created_at, attempts, next_attempt_at, sent_at, last_error, gave_up, attachments, html_from_text";

/// The column after [`OUT_COLS`] in a query that asks for one more.
const OUT_NEXT: usize = 20;

fn out_row(r: &Row<'_>) -> rusqlite::Result<OutboxRow> {
    let sent: Option<String> = r.get(15)?;
    Ok(OutboxRow {
        id: r.get(0)?,
        game_id: r.get(1)?,
        kind: r.get(2)?,
        dedupe_key: r.get(3)?,
        message_id: r.get(4)?,
        recipient: r.get(5)?,
        subject: r.get(6)?,
        body_text: r.get(7)?,
        body_html: r.get(8)?,
        in_reply_to: r.get(9)?,
        refs: r.get(10)?,
        auto_kind: r.get(11)?,
        created_at: time_col(r, 12)?,
        attempts: r.get(13)?,
        next_attempt_at: time_col(r, 14)?,
        sent_at: match sent {
            Some(s) => Some(parse_time(&s).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    15,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?),
            None => None,
        },
        last_error: r.get(16)?,
        gave_up: r.get(17)?,
        attachments: r.get(18)?,
        html_from_text: r.get(19)?,
    })
}

/// Queue a mail. A mail with the same dedupe key is queued once only:
/// returns whether this call queued it.
pub fn queue_mail(c: &Connection, m: &OutboxRow) -> Result<bool> {
    queue_mail_sharing(c, m, &Shared::default())
}

/// [`queue_mail`], the pieces of `shared` found in the mail's HTML part
/// and files stored once for every mail that holds them (migration 13):
/// the mail reads back byte for byte as given.
pub fn queue_mail_sharing(c: &Connection, m: &OutboxRow, shared: &Shared) -> Result<bool> {
    let (html, html_cuts) = match &m.body_html {
        Some(h) => {
            let (kept, cuts) = parts::cut(h, &shared.html);
            (Some(kept), cuts)
        }
        None => (None, Vec::new()),
    };
    let (files, file_cuts) = parts::cut(&m.attachments, &shared.files);
    let n = c.prepare_cached(
        "INSERT OR IGNORE INTO outbox (game_id, kind, dedupe_key, message_id, recipient, subject, body_text, body_html, in_reply_to, refs, auto_kind, created_at, attempts, next_attempt_at, attachments, html_from_text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 0, ?13, ?14, ?15)",
    )?
    .execute(
        params![
            m.game_id,
            m.kind,
            m.dedupe_key,
            m.message_id,
            m.recipient,
            m.subject,
            m.body_text,
            html,
            m.in_reply_to,
            m.refs,
            m.auto_kind,
            time(m.created_at),
            time(m.next_attempt_at),
            files,
            m.html_from_text
        ],
    )?;
    if n == 1 {
        let id = c.last_insert_rowid();
        parts::record_cuts(c, id, parts::Field::Html, &html_cuts)?;
        parts::record_cuts(c, id, parts::Field::Files, &file_cuts)?;
    }
    Ok(n == 1)
}

/// Rows read from the outbox, made whole (their shared pieces put back).
fn whole<T>(
    c: &Connection,
    rows: impl Iterator<Item = rusqlite::Result<(OutboxRow, T)>>,
) -> Result<Vec<(OutboxRow, T)>> {
    let mut out = Vec::new();
    for row in rows {
        let (m, more) = row?;
        out.push((parts::assemble(c, m)?, more));
    }
    Ok(out)
}

/// Rows read from the outbox, made whole, without anything more.
fn whole_rows(
    c: &Connection,
    rows: impl Iterator<Item = rusqlite::Result<OutboxRow>>,
) -> Result<Vec<OutboxRow>> {
    Ok(whole(c, rows.map(|r| r.map(|m| (m, ()))))?
        .into_iter()
        .map(|(m, ())| m)
        .collect())
}

/// The refusals queued for an address since a time: the literal kind lets
/// SQLite use the partial index `outbox_refusals_by_recipient`.
const REFUSALS_SINCE: &str = "SELECT COUNT(*) FROM outbox WHERE kind = 'refusal' AND recipient = ?1 COLLATE NOCASE AND created_at >= ?2";

/// How many refusals were queued for `recipient` since `since` (they are
/// capped per address and hour); found by the index of refusals alone.
pub fn count_refusals_since(c: &Connection, recipient: &str, since: DateTime<Utc>) -> Result<u32> {
    let n: u32 = c
        .prepare_cached(REFUSALS_SINCE)?
        .query_row(params![recipient, time(since)], |r| r.get(0))?;
    Ok(n)
}

/// The ids of the mails due to be sent now, oldest first: the outbox is
/// sent one mail at a time, each read by [`outbox_mail`] when its turn
/// comes, so a long queue (thousands of welcome mails and results with
/// maps) is never held in memory at once.
pub fn due_mail_ids(c: &Connection, now: DateTime<Utc>) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached(
        "SELECT id FROM outbox WHERE sent_at IS NULL AND gave_up = 0 AND sending_at IS NULL AND next_attempt_at <= ?1 ORDER BY id",
    )?;
    let rows = st.query_map([time(now)], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Mails due to be sent now, oldest first.
pub fn due_mail(c: &Connection, now: DateTime<Utc>) -> Result<Vec<OutboxRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {OUT_COLS} FROM outbox WHERE sent_at IS NULL AND gave_up = 0 AND sending_at IS NULL AND next_attempt_at <= ?1 ORDER BY id"
    ))?;
    let rows = st.query_map([time(now)], out_row)?;
    whole_rows(c, rows)
}

/// The earliest moment something falls due without any mail coming in: a
/// mail to (re)send, a running game's deadline, or the moment a reminder
/// goes out (`reminder_hours` before a deadline, if not sent yet; 0: no
/// reminders). The daemon wakes then rather than waiting for its next
/// poll.
pub fn next_due(c: &Connection, reminder_hours: u32) -> Result<Option<DateTime<Utc>>> {
    let mut due: Option<DateTime<Utc>> = None;
    let mut keep = |t: Option<String>| -> Result<()> {
        if let Some(t) = t {
            let t = parse_time(&t)?;
            due = Some(due.map_or(t, |d| d.min(t)));
        }
        Ok(())
    };
    keep(
        c.prepare_cached(
            "SELECT MIN(next_attempt_at) FROM outbox WHERE sent_at IS NULL AND gave_up = 0",
        )?
        .query_row([], |r| r.get(0))?,
    )?;
    keep(
        c.prepare_cached("SELECT MIN(deadline) FROM games WHERE status = 'running'")?
            .query_row([], |r| r.get(0))?,
    )?;
    // A table battle's deadline (docs/tabletop.md).
    keep(
        c.prepare_cached(
            "SELECT MIN(deadline) FROM battles WHERE status IN ('waiting', 'proposed', 'disputed')",
        )?
        .query_row([], |r| r.get(0))?,
    )?;
    if reminder_hours > 0 {
        let reminder: Option<String> = c
            .prepare_cached(
                "SELECT MIN(deadline) FROM games WHERE status = 'running' AND reminded = 0",
            )?
            .query_row([], |r| r.get(0))?;
        if let Some(d) = reminder {
            let at = parse_time(&d)? - chrono::Duration::hours(i64::from(reminder_hours));
            keep(Some(time(at)))?;
        }
    }
    Ok(due)
}

/// Every mail queued for a game (or for none), in order.
pub fn mail_for(c: &Connection, game_id: Option<&str>) -> Result<Vec<OutboxRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {OUT_COLS} FROM outbox WHERE game_id IS ?1 ORDER BY id"
    ))?;
    let rows = st.query_map([game_id], out_row)?;
    whole_rows(c, rows)
}

pub fn mark_sent(c: &Connection, id: i64, at: DateTime<Utc>) -> Result<()> {
    c.prepare_cached(
        "UPDATE outbox SET sent_at = ?2, attempts = attempts + 1, last_error = NULL, sending_at = NULL WHERE id = ?1",
    )?
    .execute(params![id, time(at)])?;
    Ok(())
}

/// Replace a sent mail's body (a welcome mail's secret is not kept).
pub fn redact_mail(c: &Connection, id: i64, text: &str) -> Result<()> {
    c.prepare_cached(
        "UPDATE outbox SET body_text = ?2, body_html = NULL, html_from_text = 0 WHERE id = ?1",
    )?
    .execute(params![id, text])?;
    parts::release(c, id, Some(parts::Field::Html))?;
    Ok(())
}

/// Record a failed attempt: try again at `retry`, or give up.
pub fn mark_failed(
    c: &Connection,
    id: i64,
    error: &str,
    retry: Option<DateTime<Utc>>,
) -> Result<()> {
    match retry {
        Some(at) => c.prepare_cached(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3, sending_at = NULL WHERE id = ?1",
        )?
        .execute(
            params![id, error, time(at)],
        )?,
        None => c.prepare_cached(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, gave_up = 1, sending_at = NULL WHERE id = ?1",
        )?
        .execute(
            params![id, error],
        )?,
    };
    Ok(())
}

/// Record that a mail is being handed over now; committed before the
/// hand-off, so a mail still "sending" at the next pass was interrupted.
/// Returns false, and records nothing, when the mail is no longer waiting
/// (`dervish outbox drop` took it since the pass read the queue).
pub fn mark_sending(c: &Connection, id: i64, at: DateTime<Utc>) -> Result<bool> {
    let n = c
        .prepare_cached(
            "UPDATE outbox SET sending_at = ?2 WHERE id = ?1 AND sent_at IS NULL AND gave_up = 0",
        )?
        .execute(params![id, time(at)])?;
    Ok(n == 1)
}

/// Mails whose hand-off was begun and never recorded as done or failed.
pub fn sending_mail(c: &Connection) -> Result<Vec<OutboxRow>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {OUT_COLS} FROM outbox WHERE sending_at IS NOT NULL AND sent_at IS NULL ORDER BY id"
    ))?;
    let rows = st.query_map([], out_row)?;
    whole_rows(c, rows)
}

/// Put an interrupted mail back in the queue, due at `at`, with a note.
pub fn requeue_mail(c: &Connection, id: i64, at: DateTime<Utc>, note: &str) -> Result<()> {
    c.prepare_cached(
        "UPDATE outbox SET sending_at = NULL, next_attempt_at = ?2, last_error = ?3 WHERE id = ?1",
    )?
    .execute(params![id, time(at), note])?;
    Ok(())
}

/// Move every mail due by `now` (and not yet sent or given up) to `until`,
/// attempts unchanged: the transport is down, and they wait for it.
pub fn postpone_due(c: &Connection, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<usize> {
    Ok(c.prepare_cached(
        "UPDATE outbox SET next_attempt_at = ?2 WHERE sent_at IS NULL AND gave_up = 0 AND sending_at IS NULL AND next_attempt_at <= ?1",
    )?
    .execute(params![time(now), time(until)])?)
}

/// One mail of the outbox by id, and when its hand-off began if it is
/// "sending".
pub fn outbox_mail(c: &Connection, id: i64) -> Result<Option<(OutboxRow, Option<String>)>> {
    let found = c
        .prepare_cached(&format!(
            "SELECT {OUT_COLS}, sending_at FROM outbox WHERE id = ?1"
        ))?
        .query_row([id], |r| Ok((out_row(r)?, r.get(OUT_NEXT)?)))
        .optional()?;
    Ok(whole(c, found.into_iter().map(Ok))?.pop())
}

/// The outbox for `dervish outbox list`: every mail not sent (or, with
/// `all`, every mail), oldest first, each with its `sending_at`.
pub fn outbox_list(c: &Connection, all: bool) -> Result<Vec<(OutboxRow, Option<String>)>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {OUT_COLS}, sending_at FROM outbox WHERE ?1 OR sent_at IS NULL ORDER BY id"
    ))?;
    let rows = st.query_map([all], |r| Ok((out_row(r)?, r.get(OUT_NEXT)?)))?;
    whole(c, rows)
}

/// Queue a mail not sent again, due at `at`, as if new: a mail given up is
/// taken up again with a fresh count of attempts.
pub fn retry_mail(c: &Connection, id: i64, at: DateTime<Utc>) -> Result<()> {
    c.prepare_cached(
        "UPDATE outbox SET gave_up = 0, attempts = 0, next_attempt_at = ?2, sending_at = NULL, retry_from = ?2 WHERE id = ?1 AND sent_at IS NULL",
    )?
    .execute(params![id, time(at)])?;
    Ok(())
}

/// The sent mails still whole, but the latest results mail to each
/// address (found by the partial index `outbox_results_by_recipient`).
const PRUNABLE: &str = "SELECT id FROM outbox AS o WHERE sent_at IS NOT NULL AND pruned_at IS NULL AND sent_at < ?1 \
         AND NOT (kind = 'results' AND id = (SELECT MAX(id) FROM outbox AS l \
             WHERE l.kind = 'results' AND l.game_id = o.game_id AND l.recipient = o.recipient)) \
         ORDER BY sent_at LIMIT ?2";

/// The mails sent before `before` whose bodies are still kept, oldest
/// first, at most `limit`. The latest results mail of each game to each
/// address is left whole: `RESEND` sends it again.
pub fn prunable_mail_ids(c: &Connection, before: DateTime<Utc>, limit: usize) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached(PRUNABLE)?;
    let rows = st.query_map(
        params![time(before), i64::try_from(limit).unwrap_or(i64::MAX)],
        |r| r.get(0),
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Results and set-up mails that may hold pictures, with a later results
/// mail to the same address.
const REPLACED_PICTURED: &str = "SELECT o.id FROM outbox AS o \
         WHERE o.kind IN ('results', 'setup') AND o.digest IS NULL AND o.pruned_at IS NULL \
         AND o.sent_at IS NOT NULL \
         AND EXISTS (SELECT 1 FROM outbox AS l WHERE l.kind = 'results' \
             AND l.game_id = o.game_id AND l.recipient = o.recipient AND l.id > o.id \
             AND l.sent_at IS NOT NULL) \
         ORDER BY o.id LIMIT ?1";

/// Sent results and set-up mails a later sent results mail to the same
/// address of the same game has replaced, whose pictures are no longer
/// needed (RESEND sends the latest results again whole), oldest first, at
/// most `limit`; found by the index `outbox_pictured` without reading the
/// mails' files.
pub fn replaced_pictured_mail(c: &Connection, limit: usize) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached(REPLACED_PICTURED)?;
    let rows = st.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A sent mail's files replaced by `attachments` (its pictures left out),
/// and `digest`, the SHA-256 of all it held before, kept. The shared
/// pieces the files held, still in them, stay shared.
pub fn set_sent_attachments(
    c: &Connection,
    id: i64,
    attachments: &str,
    digest: &str,
) -> Result<()> {
    let sent: Option<i64> = c
        .prepare_cached("SELECT id FROM outbox WHERE id = ?1 AND sent_at IS NOT NULL")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    if sent.is_none() {
        return Ok(());
    }
    let pieces = parts::release(c, id, Some(parts::Field::Files))?;
    let (files, cuts) = parts::cut(attachments, &pieces);
    c.prepare_cached(
        "UPDATE outbox SET attachments = ?2, digest = COALESCE(digest, ?3) WHERE id = ?1",
    )?
    .execute(params![id, files, digest])?;
    parts::record_cuts(c, id, parts::Field::Files, &cuts)?;
    Ok(())
}

/// The SHA-256 of all a mail held, if it was kept when its pictures went.
pub fn kept_digest(c: &Connection, id: i64) -> Result<Option<String>> {
    let d: Option<Option<String>> = c
        .prepare_cached("SELECT digest FROM outbox WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    Ok(d.flatten())
}

/// Keep of a sent mail only its headers: its text becomes `note`, its
/// HTML and files go, and `digest` (the SHA-256 of what they were) stays.
pub fn prune_mail(
    c: &Connection,
    id: i64,
    digest: &str,
    note: &str,
    at: DateTime<Utc>,
) -> Result<()> {
    let n = c
        .prepare_cached(
            "UPDATE outbox SET body_text = ?3, body_html = NULL, html_from_text = 0, attachments = '[]', digest = ?2, pruned_at = ?4 \
             WHERE id = ?1 AND sent_at IS NOT NULL",
        )?
        .execute(params![id, digest, note, time(at)])?;
    if n == 1 {
        parts::release(c, id, None)?;
    }
    Ok(())
}

/// When a mail's time for temporary failures began: when the game master
/// last took it up again ([`retry_mail`]), or else when it was queued.
pub fn retry_from(c: &Connection, m: &OutboxRow) -> Result<DateTime<Utc>> {
    let at: Option<Option<String>> = c
        .prepare_cached("SELECT retry_from FROM outbox WHERE id = ?1")?
        .query_row([m.id], |r| r.get(0))
        .optional()?;
    match at.flatten() {
        Some(t) => parse_time(&t),
        None => Ok(m.created_at),
    }
}

/// Take a mail not sent out of the queue for good (`dervish outbox
/// drop`): it is kept as given up, with `note` as its last error.
pub fn drop_mail(c: &Connection, id: i64, note: &str) -> Result<()> {
    c.prepare_cached(
        "UPDATE outbox SET gave_up = 1, last_error = ?2 WHERE id = ?1 AND sent_at IS NULL",
    )?
    .execute(params![id, note])?;
    Ok(())
}

/// Give up, with `note`, every welcome mail of a seat not sent yet: its
/// secret no longer holds. Returns the ids, for their bodies to be
/// scrubbed.
pub fn supersede_welcome(
    c: &Connection,
    game_id: &str,
    side: Side,
    note: &str,
) -> Result<Vec<i64>> {
    let prefix = format!("welcome:{game_id}:{}", side_text(side));
    let mut st = c.prepare_cached(
        "UPDATE outbox SET gave_up = 1, last_error = ?3, sending_at = NULL WHERE kind = 'welcome' AND sent_at IS NULL AND (dedupe_key = ?1 OR substr(dedupe_key, 1, length(?2)) = ?2) RETURNING id",
    )?;
    let rows = st.query_map(params![prefix, format!("{prefix}:"), note], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The game a mail we sent belongs to and its recipient, by Message-ID.
pub fn sent_mail_by_message_id(
    c: &Connection,
    message_id: &str,
) -> Result<Option<(Option<String>, String)>> {
    Ok(
        c.prepare_cached("SELECT game_id, recipient FROM outbox WHERE message_id = ?1")?
            .query_row([message_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?,
    )
}

/// Record a game master's action.
pub fn audit(
    c: &Connection,
    at: DateTime<Utc>,
    game_id: Option<&str>,
    actor: &str,
    action: &str,
    detail: &str,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO audit (at, game_id, actor, action, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![time(at), game_id, actor, action, detail])?;
    Ok(())
}

/// The audit log of a game: (time, actor, action, detail).
pub fn audit_log(c: &Connection, game_id: &str) -> Result<Vec<(String, String, String, String)>> {
    let mut st = c.prepare_cached(
        "SELECT at, actor, action, detail FROM audit WHERE game_id = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([game_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub fn service_value(c: &Connection, key: &str) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT value FROM service WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?,
    )
}

pub fn set_service_value(c: &Connection, key: &str, value: &str) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO service (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
    )?
    .execute(
        params![key, value],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outbox's look-ups by kind use the partial indexes made for their
    /// kind (a query that named its kind through a parameter could not), so
    /// those indexes need hold only the mail of that kind.
    #[test]
    fn the_look_ups_by_kind_use_the_indexes_of_their_kind() {
        let c = open_in_memory().unwrap();
        let plan = |sql: &str| -> String {
            let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = st.query_map([], |r| r.get::<_, String>(3)).unwrap();
            rows.map(|r| r.unwrap()).collect::<Vec<_>>().join("\n")
        };
        let with_params = |sql: &str| sql.replace("?1", "'x'").replace("?2", "'y'");
        let refusals = plan(&with_params(REFUSALS_SINCE));
        assert!(
            refusals.contains("outbox_refusals_by_recipient"),
            "{refusals}"
        );
        for sql in [PRUNABLE, REPLACED_PICTURED] {
            let p = plan(
                &with_params(sql)
                    .replace("LIMIT 'y'", "LIMIT 5")
                    .replace("LIMIT 'x'", "LIMIT 5"),
            );
            assert!(p.contains("outbox_results_by_recipient"), "{p}");
        }
    }

    fn game() -> GameRow {
        let t = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        GameRow {
            id: "k-1".into(),
            scenario: "khartoum".into(),
            mode: Mode::Monthly,
            status: Status::Running,
            deadline_hours: 72,
            created_at: t,
            state: "{}".into(),
            month: "1884-02".into(),
            turn_no: 1,
            turn_kind: TurnKind::Month,
            deadline: t,
            seed_hex: "00".into(),
            seed_sha256: "ab".into(),
            reminded: false,
            result: None,
        }
    }

    #[test]
    fn games_players_and_order_versions_round_trip() {
        let c = open_in_memory().unwrap();
        let g = game();
        insert_game(&c, &g).unwrap();
        assert_eq!(super::game(&c, "k-1").unwrap(), Some(g.clone()));
        let p = PlayerRow {
            game_id: "k-1".into(),
            side: Side::Mahdist,
            address: "m@example.org".into(),
            secret_sha256: "x".into(),
            unreachable: false,
            missed_turns: 0,
            auth_failures: 0,
            bot: None,
            bot_key: None,
            map_picture: false,
            show_address: true,
        };
        upsert_player(&c, &p).unwrap();
        assert_eq!(seats_of(&c, "m@example.org").unwrap(), vec![p.clone()]);
        // The choices change with the row, the rest stays.
        let changed = PlayerRow {
            map_picture: true,
            show_address: false,
            ..p
        };
        upsert_player(&c, &changed).unwrap();
        assert_eq!(seats_of(&c, "m@example.org").unwrap(), vec![changed]);
        let t = g.created_at;
        let set = |canonical, sha256, ready, refused_lines| NewOrderSet {
            game_id: "k-1",
            turn_no: 1,
            side: Side::Mahdist,
            message: None,
            canonical,
            orders: "{}",
            sha256,
            ready,
            refused_lines,
            received_at: t,
        };
        let a = insert_order_set(&c, &set("READY", "h1", true, 0)).unwrap();
        let b = insert_order_set(&c, &set("", "h2", false, 2)).unwrap();
        assert_eq!((a.version, b.version), (1, 2));
        assert_eq!(
            (
                refused_lines(&c, a.id).unwrap(),
                refused_lines(&c, b.id).unwrap()
            ),
            (0, 2)
        );
        // Another side's versions count on their own.
        let e = insert_order_set(
            &c,
            &NewOrderSet {
                side: Side::Egyptian,
                ..set("", "h3", false, 0)
            },
        );
        assert_eq!(e.unwrap().version, 1);
        assert_eq!(
            latest_order_set(&c, "k-1", 1, Side::Mahdist).unwrap(),
            Some(b)
        );
    }

    #[test]
    fn a_message_is_stored_once_and_a_mail_queued_once() {
        let c = open_in_memory().unwrap();
        let t = Utc::now();
        assert!(
            insert_message(&c, "a@b", t, None, "", b"x")
                .unwrap()
                .is_some()
        );
        assert!(
            insert_message(&c, "a@b", t, None, "", b"x")
                .unwrap()
                .is_none()
        );
        let m = OutboxRow {
            id: 0,
            game_id: None,
            kind: "receipt".into(),
            dedupe_key: "receipt:a@b".into(),
            message_id: "m1@dervish".into(),
            recipient: "p@example.org".into(),
            subject: "s".into(),
            body_text: "t".into(),
            body_html: None,
            in_reply_to: None,
            refs: String::new(),
            auto_kind: "auto-replied".into(),
            created_at: t,
            attempts: 0,
            next_attempt_at: t,
            sent_at: None,
            last_error: None,
            gave_up: false,
            attachments: "[]".into(),
            html_from_text: false,
        };
        assert!(queue_mail(&c, &m).unwrap());
        assert!(!queue_mail(&c, &m).unwrap());
        assert_eq!(due_mail(&c, t).unwrap().len(), 1);
        let id = due_mail(&c, t).unwrap()[0].id;
        mark_sent(&c, id, t).unwrap();
        assert!(due_mail(&c, t).unwrap().is_empty());
    }

    #[test]
    fn the_next_thing_due_is_a_retry_a_deadline_or_a_reminder() {
        let c = open_in_memory().unwrap();
        assert_eq!(next_due(&c, 24).unwrap(), None);
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let mut g = game();
        g.deadline = at("2026-01-10T12:00:00Z");
        insert_game(&c, &g).unwrap();
        // The reminder, a day before the deadline; none with 0 hours.
        assert_eq!(next_due(&c, 24).unwrap(), Some(at("2026-01-09T12:00:00Z")));
        assert_eq!(next_due(&c, 0).unwrap(), Some(at("2026-01-10T12:00:00Z")));
        g.reminded = true;
        update_game(&c, &g).unwrap();
        assert_eq!(next_due(&c, 24).unwrap(), Some(at("2026-01-10T12:00:00Z")));
        // A mail to retry sooner comes first.
        let retry = at("2026-01-05T08:00:00Z");
        let m = OutboxRow {
            id: 0,
            game_id: None,
            kind: "results".into(),
            dedupe_key: "results:x".into(),
            message_id: "r1@dervish".into(),
            recipient: "p@example.org".into(),
            subject: "s".into(),
            body_text: "t".into(),
            body_html: None,
            in_reply_to: None,
            refs: String::new(),
            auto_kind: "auto-generated".into(),
            created_at: retry,
            attempts: 1,
            next_attempt_at: retry,
            sent_at: None,
            last_error: Some("down".into()),
            gave_up: false,
            attachments: "[]".into(),
            html_from_text: false,
        };
        queue_mail(&c, &m).unwrap();
        assert_eq!(next_due(&c, 24).unwrap(), Some(retry));
        // A paused game has no deadline to wake for.
        let id = due_mail(&c, retry).unwrap()[0].id;
        mark_sent(&c, id, retry).unwrap();
        g.status = Status::Paused;
        update_game(&c, &g).unwrap();
        assert_eq!(next_due(&c, 24).unwrap(), None);
    }

    #[test]
    fn foreign_keys_are_enforced() {
        let c = open_in_memory().unwrap();
        let p = PlayerRow {
            game_id: "nope".into(),
            side: Side::Egyptian,
            address: "e@example.org".into(),
            secret_sha256: "x".into(),
            unreachable: false,
            missed_turns: 0,
            auth_failures: 0,
            bot: None,
            bot_key: None,
            map_picture: true,
            show_address: false,
        };
        assert!(upsert_player(&c, &p).is_err());
    }
}
