//! The play-by-email service: games in SQLite, mail in and out, turns
//! played when their orders are in or their deadline passes.
//!
//! One pass (`Service::pass`) reads new mail, answers it, plays the turns
//! that are due, sends reminders and flushes the outbox. Every step that
//! changes anything runs in one database transaction, and every mail is
//! committed to the outbox before it is sent, so a crash at any point
//! loses nothing: a message not yet committed is read again, a mail not
//! yet marked sent is sent again (with the same Message-ID).

pub mod archive;
pub mod battles;
pub mod bots;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod ending;
pub mod games;
pub mod gm;
pub mod intake;
pub mod mail;
pub mod outcome;
pub mod picture;
pub mod play;
mod ready;
pub mod record;
pub mod rollback;
pub mod seats;
pub mod secrets;
pub mod setup;
pub mod spool;
mod strangers;
pub mod templates;
pub mod turns;

use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use crate::mail::outbound::Sender;
use crate::mail::{Inbox, InboxError};
use crate::scenario::{DataFiles, DataSet, Scenario};
use crate::store::{self, StoreError};
pub use config::Config;
use templates::Templates;

/// A service failure (not a player's mistake: those are answered by mail).
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Template(#[from] templates::TemplateError),
    #[error("scenario data: {0}")]
    Data(String),
    #[error("{0}")]
    Game(String),
    #[error("stored state of game {game} cannot be read: {message}")]
    State { game: String, message: String },
    #[error("the operating system gave no random bytes: {0}")]
    Random(String),
    #[error("mailbox: {0}")]
    Mailbox(#[from] std::io::Error),
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The inbox or the outgoing mail cannot be set up as configured.
    #[error("{0}")]
    Setup(String),
    /// The archive's files cannot be written.
    #[error("archive: {0}")]
    Archive(String),
}

pub type Result<T> = std::result::Result<T, ServiceError>;

/// Where the time comes from: the clock, or a fixed time in tests.
pub type Clock = Box<dyn Fn() -> DateTime<Utc> + Send>;

/// Where turn seeds come from: the operating system's random source, or
/// a fixed sequence in tests and golden files.
pub type Seeds = Box<dyn FnMut() -> [u8; 32] + Send>;

/// The service: configuration, database, scenario data and templates.
pub struct Service {
    pub cfg: Config,
    pub conn: Connection,
    pub data: DataSet,
    /// The battle briefs' data of the data folder, if it has its own
    /// `tabletop.ron` (else the shipped one).
    pub tabletop: Option<crate::battle::tabletop::Tabletop>,
    pub templates: Templates,
    clock: Clock,
    /// `None`: seeds from the operating system (always, but in tests).
    seeds: std::cell::RefCell<Option<Seeds>>,
    /// Game states read from the database, most recently used first, with
    /// their stored text. A state changes only when a turn is played, so the
    /// turn number and the text's length tell a stale entry. At most
    /// [`STATE_CACHE`] are kept: a decoded state takes tens of kilobytes,
    /// and a host with a thousand games must not hold them all.
    states: std::cell::RefCell<std::collections::VecDeque<games::KeptState>>,
    /// Set when the service is to stop: a pass then ends after the
    /// message or mail in hand.
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// How many decoded game states the service keeps between messages.
pub const STATE_CACHE: usize = 16;

/// What one pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    pub messages: usize,
    pub turns_played: Vec<(String, u32)>,
    pub reminders: usize,
    pub extended: Vec<String>,
    pub sent: usize,
    pub failed: usize,
    /// The inbox could not be read (all of it); the next pass tries again.
    pub inbox_error: Option<String>,
    /// More messages wait than one pass takes (`[limits]
    /// messages_per_pass`): the next pass should come at once.
    pub more_waiting: bool,
}

impl Service {
    /// Open the service described by `cfg`: its database (created and
    /// migrated if needed), scenario data and templates.
    pub fn open(cfg: Config) -> Result<Service> {
        let conn = store::open(&cfg.database)?;
        let cache = data_cache_path(&cfg.database);
        Service::assemble(cfg, conn, Some(&cache))
    }

    /// Open the service for writing, holding the lock that keeps any other
    /// dervish off the database (its folder created if needed). The
    /// service may be used as long as the returned lock lives.
    pub fn open_locked(cfg: Config) -> Result<(Service, Lock)> {
        if let Some(dir) = cfg.database.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let lock = lock(&cfg.database)?;
        let s = Service::open(cfg)?;
        Ok((s, lock))
    }

    /// Open the service to read only, without the lock: the game list, a
    /// game's page, verification work while the daemon runs. Anything
    /// that would write fails with SQLite's "read-only database".
    pub fn open_read_only(cfg: Config) -> Result<Service> {
        let conn = store::open_read_only(&cfg.database)?;
        let cache = data_cache_path(&cfg.database);
        Service::assemble(cfg, conn, Some(&cache))
    }

    /// The lock-free opening when another dervish holds the lock, else the
    /// ordinary one (which creates and migrates the database): for
    /// commands that only read.
    pub fn open_for_reading(cfg: Config) -> Result<(Service, Option<Lock>)> {
        match Service::open_locked(cfg.clone()) {
            Ok((s, lock)) => Ok((s, Some(lock))),
            Err(ServiceError::Lock(LockError::Held { .. })) => {
                Ok((Service::open_read_only(cfg)?, None))
            }
            Err(e) => Err(e),
        }
    }

    /// The service over an open database (tests use one in memory).
    pub fn with_connection(cfg: Config, conn: Connection) -> Result<Service> {
        Service::assemble(cfg, conn, None)
    }

    /// The service over an open database, its data loaded through the data
    /// cache `cache` if given (`scenario::cache`).
    fn assemble(cfg: Config, conn: Connection, cache: Option<&Path>) -> Result<Service> {
        let files = match &cfg.data_dir {
            Some(d) => DataFiles::from_dir(d).map_err(|e| ServiceError::Data(e.to_string()))?,
            None => DataFiles::embedded(),
        };
        let data = match cache {
            Some(cache) => files.load_cached(cache),
            None => files.load(),
        }
        .map_err(|e| ServiceError::Data(e.to_string()))?;
        // A data folder's own battle-brief data, checked now.
        let tabletop = match files.extra("tabletop.ron") {
            Some(t) => Some(
                crate::battle::tabletop::Tabletop::parse(&t.name, &t.text, &data.units)
                    .map_err(|e| ServiceError::Data(e.to_string()))?,
            ),
            None => None,
        };
        // And its own ETYFW tables.
        if let Some(t) = &data.etyfw {
            crate::battle::etyfw::Etyfw::from_ron(&t.text, &t.name)
                .map_err(|e| ServiceError::Data(e.to_string()))?;
        }
        let templates = Templates::load(cfg.templates_dir.as_deref())?;
        Ok(Service {
            cfg,
            conn,
            data,
            tabletop,
            templates,
            clock: Box::new(Utc::now),
            seeds: Default::default(),
            states: Default::default(),
            stop: Default::default(),
        })
    }

    /// Watch `flag`: once it is set, a pass ends after the message or mail
    /// in hand (the daemon sets it on SIGTERM).
    pub fn set_stop(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.stop = flag;
    }

    /// Whether the service has been told to stop.
    pub fn stopping(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Use another clock (tests).
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    /// Draw turn seeds from `seeds` instead of the operating system: for
    /// tests and golden files only, where the same run must give the same
    /// mails. The daemon and every command never set it.
    pub fn set_seeds(&mut self, seeds: Seeds) {
        *self.seeds.borrow_mut() = Some(seeds);
    }

    /// A new turn seed: (hex, SHA-256 hex).
    pub fn new_seed(&self) -> Result<(String, String)> {
        match self.seeds.borrow_mut().as_mut() {
            Some(f) => {
                let seed = f();
                Ok((secrets::hex(&seed), secrets::sha256_hex(&seed)))
            }
            None => games::new_seed(),
        }
    }

    /// A programmed player's key (hex): 32 random bytes from the operating
    /// system; with fixed seeds ([`Service::set_seeds`], tests only) made
    /// from the game and the side, so the same run plays the same game.
    pub fn new_bot_key(&self, game_id: &str, side: crate::scenario::Side) -> Result<String> {
        if self.seeds.borrow().is_some() {
            return Ok(secrets::sha256_hex(
                format!("programmed player key\n{game_id}\n{side}").as_bytes(),
            ));
        }
        let key = secrets::random_bytes::<32>().map_err(|e| ServiceError::Random(e.to_string()))?;
        Ok(secrets::hex(&key))
    }

    /// The time now, to the second.
    pub fn now(&self) -> DateTime<Utc> {
        let t = (self.clock)();
        DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
    }

    /// A scenario by id.
    pub fn scenario(&self, id: &str) -> Result<Scenario> {
        self.data
            .scenario(id)
            .ok_or_else(|| ServiceError::Data(format!("no scenario called {id}")))
    }

    /// One pass: read new mail from the inbox, note deadlines that passed
    /// while the service was down, play due turns, send reminders, send
    /// the outbox. A mailbox that cannot be read does not stop the rest:
    /// its error is in the report and the next pass tries again.
    pub fn pass(&mut self, inbox: &mut dyn Inbox, sender: &Sender) -> Result<PassReport> {
        let mut report = PassReport {
            extended: self.extend_after_downtime()?,
            ..PassReport::default()
        };
        let cap = self.cfg.limits.messages_per_pass.max(1);
        let (messages, error, more) = self.read_inbox_upto(inbox, cap)?;
        report.messages = messages;
        report.more_waiting = more;
        if let Some(e) = error {
            tracing::warn!(inbox = %inbox.describe(), error = %e, "cannot read the inbox");
            report.inbox_error = Some(e.to_string());
        }
        if self.stopping() {
            return Ok(report);
        }
        report.turns_played = self.play_due_turns()?;
        report.reminders = self.send_reminders()?;
        let (sent, failed) = self.flush(sender)?;
        report.sent = sent;
        report.failed = failed;
        store::set_service_value(&self.conn, "last_pass", &store::time(self.now()))?;
        Ok(report)
    }

    /// Take in every message waiting in the inbox, oldest first. Each is
    /// committed before the mailbox is told it is done with, and the
    /// mailbox's cursor is kept after that: a crash in between reads the
    /// message again, which is then recognised as a duplicate. Failed
    /// attempts on each message are counted (`Service::take_in`): one
    /// the service was killed on or failed on twice while reading it is
    /// set aside (see [`intake::MAX_INBOX_ATTEMPTS`]). Returns the
    /// messages taken in and the mailbox's error, if it failed part way.
    pub fn read_inbox(&mut self, inbox: &mut dyn Inbox) -> Result<(usize, Option<InboxError>)> {
        let (n, e, _) = self.read_inbox_upto(inbox, usize::MAX)?;
        Ok((n, e))
    }

    /// As [`Service::read_inbox`], taking in at most `most` messages; the
    /// flag says whether more were waiting.
    pub fn read_inbox_upto(
        &mut self,
        inbox: &mut dyn Inbox,
        most: usize,
    ) -> Result<(usize, Option<InboxError>, bool)> {
        let key = inbox.cursor_key();
        let cursor = match &key {
            Some(k) => store::service_value(&self.conn, k)?,
            None => None,
        };
        let waiting = match inbox.pending(cursor.as_deref()) {
            Ok(w) => w,
            Err(e) => return Ok((0, Some(e), false)),
        };
        let max = self.cfg.limits.max_message_bytes;
        let mailbox = inbox.describe();
        let mut n = 0;
        let total = waiting.len();
        for w in waiting {
            if self.stopping() {
                break;
            }
            if n >= most {
                return Ok((n, None, n < total));
            }
            // A message that failed twice is set aside: the service died
            // or failed on it, and would again.
            let item = w.cursor.clone().unwrap_or_else(|| w.id.clone());
            let tried = store::inbox_attempts(&self.conn, &mailbox, &item)?;
            if tried >= intake::MAX_INBOX_ATTEMPTS {
                if let Some(e) = self.set_aside(inbox, &w, &item, tried)? {
                    return Ok((n, Some(e), false));
                }
            } else {
                let fetched = match inbox.read(&w, max) {
                    Ok(f) => f,
                    Err(e) => return Ok((n, Some(e), false)),
                };
                if let Some(e) = self.take_in(&fetched, &mailbox, &item)? {
                    return Ok((n, Some(e), false));
                }
                if let Err(e) = inbox.done(&w) {
                    return Ok((n + 1, Some(e), false));
                }
            }
            if let (Some(k), Some(c)) = (&key, &w.cursor) {
                store::set_service_value(&self.conn, k, c)?;
            }
            n += 1;
        }
        Ok((n, None, false))
    }
}

/// A transaction, or a part of the one already open: work done by a game
/// master command inside an incoming message's transaction commits or
/// rolls back with it.
pub struct Tx<'a> {
    conn: &'a Connection,
    own: bool,
    done: bool,
}

impl std::ops::Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Tx<'_> {
    /// Commit, if this is the outermost transaction.
    pub fn commit(mut self) -> Result<()> {
        self.done = true;
        if self.own {
            self.conn.execute_batch("COMMIT")?;
        }
        Ok(())
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.own && !self.done {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

impl Service {
    /// Begin a transaction, unless one is open (then join it).
    pub fn begin(&self) -> Result<Tx<'_>> {
        let own = self.conn.is_autocommit();
        if own {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
        }
        Ok(Tx {
            conn: &self.conn,
            own,
            done: false,
        })
    }
}

/// Why the lock could not be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    /// Another dervish holds it.
    #[error("another dervish is running on {database} (lock {lock} is held)")]
    Held { database: String, lock: String },
    /// The lock file cannot be opened or locked.
    #[error("{0}")]
    Failed(String),
}

/// The lock that keeps two dervishes that write (a daemon, `run --once`,
/// `submit` reading the spool) off one database, held while it lives.
///
/// It is two locks. The first is `flock` on the database file itself, so
/// it is keyed on the file's identity (device and inode), not on a name:
/// a hard link, a symbolic link, a bind mount or a `../` spelling of the
/// path all meet it. (SQLite's WAL and shared-memory files are named
/// after the path, so two processes writing one file by two names would
/// corrupt it.) The second is the lock file beside the database's real
/// path that older versions took, so an older dervish still running
/// during an upgrade is kept out too.
#[derive(Debug)]
pub struct Lock {
    _beside: std::fs::File,
    key: FileKey,
    file: std::sync::Arc<std::fs::File>,
}

impl Drop for Lock {
    /// Unlock the database file but keep it open (see [`database_file`]).
    fn drop(&mut self) {
        let _ = self.file.unlock();
        if let Ok(mut held) = HELD.lock() {
            held.remove(&self.key);
        }
    }
}

/// A file's identity: device and inode (on other systems, its real path).
type FileKey = (u64, u64, std::path::PathBuf);

/// The database files this process has opened to lock, by identity, and
/// those it holds the lock of now.
///
/// A file opened to lock is never closed: closing any descriptor of a
/// file drops every POSIX lock the process holds on it, SQLite's own
/// included, which would let another process check-point and delete the
/// write-ahead log under an open connection. One descriptor per database
/// is kept for the life of the process instead.
static OPENED: std::sync::Mutex<Vec<(FileKey, std::sync::Arc<std::fs::File>)>> =
    std::sync::Mutex::new(Vec::new());
static HELD: std::sync::Mutex<std::collections::BTreeSet<FileKey>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Take the lock that keeps two instances off one database (created
/// empty if missing: SQLite takes an empty file as a new database); see
/// [`Lock`]. Another process holding it, or this one, gives
/// [`LockError::Held`].
pub fn lock(database: &Path) -> std::result::Result<Lock, LockError> {
    let beside = lock_beside(database)?;
    let (key, file) = database_file(database)?;
    let held = |lock: &Path| LockError::Held {
        database: database.display().to_string(),
        lock: lock.display().to_string(),
    };
    let mut in_process = HELD
        .lock()
        .map_err(|_| LockError::Failed("the lock table was poisoned".into()))?;
    if in_process.contains(&key) {
        return Err(held(database));
    }
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Err(held(database)),
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(LockError::Failed(format!(
                "cannot lock {}: {e}",
                database.display()
            )));
        }
    }
    in_process.insert(key.clone());
    Ok(Lock {
        _beside: beside,
        key,
        file,
    })
}

/// The lock file beside the database's real path, locked.
fn lock_beside(database: &Path) -> std::result::Result<std::fs::File, LockError> {
    let path = real_path(database).with_extension("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| LockError::Failed(format!("cannot open {}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(LockError::Held {
            database: database.display().to_string(),
            lock: path.display().to_string(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(LockError::Failed(format!(
            "cannot lock {}: {e}",
            path.display()
        ))),
    }
}

/// The database file opened once for this process, with its identity:
/// the one opened before if its identity is known (looked up by `stat`,
/// which opens nothing), else opened now (created empty if missing) and
/// kept.
fn database_file(
    database: &Path,
) -> std::result::Result<(FileKey, std::sync::Arc<std::fs::File>), LockError> {
    let failed = |e: std::io::Error| {
        LockError::Failed(format!(
            "cannot open {} to lock it: {e}",
            database.display()
        ))
    };
    let mut opened = OPENED
        .lock()
        .map_err(|_| LockError::Failed("the lock table was poisoned".into()))?;
    if let Ok(meta) = std::fs::metadata(database) {
        let key = file_key(database, &meta);
        if let Some((_, f)) = opened.iter().find(|(k, _)| *k == key) {
            return Ok((key, std::sync::Arc::clone(f)));
        }
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(database)
        .map_err(failed)?;
    let key = file_key(database, &file.metadata().map_err(failed)?);
    let file = std::sync::Arc::new(file);
    opened.push((key.clone(), std::sync::Arc::clone(&file)));
    Ok((key, file))
}

#[cfg(unix)]
fn file_key(_: &Path, meta: &std::fs::Metadata) -> FileKey {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), std::path::PathBuf::new())
}

#[cfg(not(unix))]
fn file_key(database: &Path, _: &std::fs::Metadata) -> FileKey {
    (0, 0, real_path(database))
}

/// The real path of a database that may not exist yet: the file's own if
/// it exists, else its folder's real path with the file name.
/// The data cache of a database (`dervish.sqlite` → `dervish.data-cache`):
/// the checked data set in a fast form (`scenario::cache`).
fn data_cache_path(database: &Path) -> std::path::PathBuf {
    database.with_extension("data-cache")
}

fn real_path(database: &Path) -> std::path::PathBuf {
    if let Ok(p) = std::fs::canonicalize(database) {
        return p;
    }
    let parent = database
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (std::fs::canonicalize(parent), database.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => database.to_path_buf(),
    }
}
