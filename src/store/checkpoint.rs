//! Checkpoints on a thread of their own, so that no mail's intake waits
//! for one.
//!
//! In WAL mode a commit appends the pages it changed to the log; a
//! checkpoint copies them into the database file and waits for the disk
//! (`fsync`) twice. Left to SQLite, the commit that takes the log past
//! [`super::CHECKPOINT_PAGES`] does it, in the middle of whatever that
//! commit was doing. The daemon instead runs a [`Checkpointer`]: a second
//! connection that checkpoints every [`Checkpointer::EVERY`], beside the
//! daemon's writes (WAL lets a checkpoint run while another connection
//! writes; a PASSIVE checkpoint waits for no one, and what it could not
//! copy is copied the next time), and starts a long log again from its
//! beginning ([`Checkpointer::RESTART_PAGES`]).

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::Result;

/// A thread that checkpoints one database until dropped.
pub struct Checkpointer {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// How often the thread checkpoints. A busy intake writes about 11
    /// pages a mail at a few thousand mails a second at most, so the log
    /// holds a few thousand pages at a checkpoint, under the backstop of
    /// [`super::CHECKPOINT_PAGES`]. Each time the log has been copied
    /// whole, the next commit starts it again from its beginning and waits
    /// for the disk once (SQLite syncs the log's new header), so the
    /// thread does not run more often than it must.
    pub const EVERY: Duration = Duration::from_millis(250);

    /// A log of this many pages is started again from its beginning
    /// (SQLite's RESTART checkpoint) once its pages are copied. Under a
    /// steady stream of commits a PASSIVE checkpoint never finds the log
    /// copied whole (commits come while it copies), so the log would only
    /// grow, and past [`super::CHECKPOINT_PAGES`] every commit would try a
    /// checkpoint of its own. A RESTART holds new commits back while it
    /// copies what the PASSIVE one left (a few pages) and syncs, a few
    /// milliseconds.
    pub const RESTART_PAGES: i64 = 2_000;

    /// How long a RESTART checkpoint waits for a commit or a reader to
    /// end before it gives up until the next turn (new commits wait while
    /// it is pending, so not long).
    pub const RESTART_PATIENCE: Duration = Duration::from_millis(50);

    /// Start checkpointing the database at `path`, which must exist at
    /// the latest schema (the caller has opened it with [`super::open`]).
    pub fn start(path: &Path) -> Result<Checkpointer> {
        let conn = connect(path)?;
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || run(&conn, &flag))
            .map_err(super::StoreError::Thread)?;
        Ok(Checkpointer {
            stop,
            thread: Some(thread),
        })
    }
}

/// The checkpointing connection to the database at `path`.
fn connect(path: &Path) -> Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Checkpointer::RESTART_PATIENCE)?;
    // This connection only checkpoints: none of its (absent) commits
    // should start one of SQLite's own.
    conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    Ok(conn)
}

/// Checkpoint every [`Checkpointer::EVERY`] until `stop` is set, then once
/// more, so a daemon that stops leaves its log copied.
fn run(conn: &Connection, stop: &(Mutex<bool>, Condvar)) {
    let (lock, wake) = stop;
    loop {
        let stopping = match lock.lock() {
            Ok(guard) => match wake.wait_timeout_while(guard, Checkpointer::EVERY, |s| !*s) {
                Ok((guard, _)) => *guard,
                Err(_) => true,
            },
            Err(_) => true,
        };
        if let Err(e) = turn(conn) {
            tracing::warn!(error = %e, "cannot checkpoint the database's log; tried again shortly");
        }
        if stopping {
            return;
        }
    }
}

/// One turn of the thread: copy the log without waiting for anyone, then,
/// if the log has grown long, start it again from its beginning
/// ([`Checkpointer::RESTART_PAGES`]). A RESTART that finds a reader or a
/// commit in its way for longer than [`Checkpointer::RESTART_PATIENCE`] is
/// tried again next turn.
fn turn(conn: &Connection) -> Result<()> {
    let (log, _) = checkpoint_as(conn, "PASSIVE")?;
    if log >= Checkpointer::RESTART_PAGES {
        checkpoint_as(conn, "RESTART")?;
    }
    Ok(())
}

/// A checkpoint in SQLite's `mode`: the pages in the log and the pages
/// copied. One kept from finishing by a reader or a commit is no error:
/// the next turn tries again.
fn checkpoint_as(conn: &Connection, mode: &str) -> Result<(i64, i64)> {
    let sql = format!("PRAGMA wal_checkpoint({mode})");
    match conn.query_row(&sql, [], |r| Ok((r.get(1)?, r.get(2)?))) {
        Ok(v) => Ok(v),
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::DatabaseBusy =>
        {
            Ok((0, 0))
        }
        Err(e) => Err(e.into()),
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        if let Ok(mut s) = lock.lock() {
            *s = true;
        }
        wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh database in a folder of its own (`name`), with a table of
    /// rows a page each; its folder, its path and the connection.
    fn scratch(name: &str) -> (std::path::PathBuf, std::path::PathBuf, Connection) {
        let dir = std::env::temp_dir().join(format!("dervish-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.sqlite");
        let c = super::super::open(&path).unwrap();
        c.execute_batch("CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            .unwrap();
        (dir, path, c)
    }

    /// `rows` rows of 3,000 bytes from number `from`, each its own commit.
    fn write(c: &Connection, from: i64, rows: i64) {
        let body = "x".repeat(3000);
        for n in from..from + rows {
            c.execute(
                "INSERT INTO t (n, body) VALUES (?1, ?2)",
                rusqlite::params![n, body],
            )
            .unwrap();
        }
    }

    /// The thread copies the log into the database file while another
    /// connection writes (the file grows only by checkpoints), and what was
    /// written reads back whole after the thread is stopped and the
    /// database opened again.
    #[test]
    fn the_thread_checkpoints_beside_a_writer() {
        let (dir, path, c) = scratch("ckpt");
        let cp = Checkpointer::start(&path).unwrap();
        write(&c, 0, 400);
        // 400 rows of 3,000 bytes are over a megabyte of pages; SQLite's own
        // checkpoint would not start before 40,000 pages.
        let grown = (0..200).any(|_| {
            std::thread::sleep(Checkpointer::EVERY);
            std::fs::metadata(&path).unwrap().len() > 1_200_000
        });
        assert!(grown, "the thread never copied the log into the database");
        drop(cp);
        drop(c);
        let again = super::super::open(&path).unwrap();
        let n: i64 = again
            .query_row(
                "SELECT count(*) FROM t WHERE length(body) = 3000",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 400);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A turn of the thread on a long log copies it whole and the next
    /// commit writes at its beginning again; a reader that keeps the
    /// RESTART from finishing makes the turn wait no more than its
    /// patience, and is no error.
    #[test]
    fn a_long_log_is_started_again_and_a_reader_is_waited_for_briefly() {
        let (dir, path, c) = scratch("ckpt-r");
        c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        let cp = connect(&path).unwrap();
        // A reader holds the position after the first rows.
        write(&c, 0, 10);
        let mut reader = super::super::open(&path).unwrap();
        let snapshot = reader.transaction().unwrap();
        let seen: i64 = snapshot
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(seen, 10);
        write(&c, 10, Checkpointer::RESTART_PAGES);
        turn(&cp).unwrap();
        let (log, copied) = checkpoint_as(&cp, "PASSIVE").unwrap();
        assert!(
            log >= Checkpointer::RESTART_PAGES && copied < log,
            "{log} {copied}"
        );
        drop(snapshot);
        turn(&cp).unwrap();
        write(&c, Checkpointer::RESTART_PAGES + 10, 1);
        let (log, _) = checkpoint_as(&cp, "PASSIVE").unwrap();
        assert!(log < 10, "the log starts again: {log} pages");
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
