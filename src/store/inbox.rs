//! Messages being taken in from a mailbox: attempts on them, so that a
//! message the service dies on (killed for memory, say) is set aside
//! after two tries instead of being tried again for ever.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::{Result, time};

/// The table of attempts: one row for each message being taken in, by
/// mailbox and the mailbox's name for the message. Migration 2.
pub(super) const SCHEMA: &str = r#"
-- Failed attempts at taking a message in. One is counted (and committed)
-- before the costly part of reading a message and taken back after it, so
-- a process killed there leaves it; a panic or an error later adds one.
-- The row goes in the transaction that stores the message.
CREATE TABLE inbox_attempts (
    mailbox         TEXT NOT NULL,
    -- The mailbox's name for the message: a Maildir file name, an IMAP
    -- "UIDVALIDITY:UID".
    item            TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    first_at        TEXT NOT NULL,
    last_at         TEXT NOT NULL,
    PRIMARY KEY (mailbox, item)
);
"#;

/// How many attempts on the message were begun and never finished.
pub fn inbox_attempts(c: &Connection, mailbox: &str, item: &str) -> Result<u32> {
    Ok(
        c.prepare_cached("SELECT attempts FROM inbox_attempts WHERE mailbox = ?1 AND item = ?2")?
            .query_row(params![mailbox, item], |r| r.get(0))
            .optional()?
            .unwrap_or(0),
    )
}

/// Record that an attempt on the message begins. Returns the attempts
/// now recorded, this one included.
pub fn begin_inbox_attempt(
    c: &Connection,
    mailbox: &str,
    item: &str,
    at: DateTime<Utc>,
) -> Result<u32> {
    c.prepare_cached(
        "INSERT INTO inbox_attempts (mailbox, item, attempts, first_at, last_at) VALUES (?1, ?2, 1, ?3, ?3)
         ON CONFLICT (mailbox, item) DO UPDATE SET attempts = attempts + 1, last_at = ?3",
    )?
    .execute(params![mailbox, item, time(at)])?;
    inbox_attempts(c, mailbox, item)
}

/// Take back the attempt last begun: it got through the part it guarded.
pub fn undo_inbox_attempt(c: &Connection, mailbox: &str, item: &str) -> Result<()> {
    c.prepare_cached(
        "UPDATE inbox_attempts SET attempts = attempts - 1 WHERE mailbox = ?1 AND item = ?2",
    )?
    .execute(params![mailbox, item])?;
    c.prepare_cached(
        "DELETE FROM inbox_attempts WHERE mailbox = ?1 AND item = ?2 AND attempts <= 0",
    )?
    .execute(params![mailbox, item])?;
    Ok(())
}

/// The message is taken in (or set aside): its attempts are forgotten.
pub fn end_inbox_attempts(c: &Connection, mailbox: &str, item: &str) -> Result<()> {
    c.prepare_cached("DELETE FROM inbox_attempts WHERE mailbox = ?1 AND item = ?2")?
        .execute(params![mailbox, item])?;
    Ok(())
}

/// Whether any game that is not over has an open seat (a stranger's mail
/// is read only for a JOIN, which needs one).
pub fn open_seat_exists(c: &Connection) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM players p JOIN games g ON g.id = p.game_id
         WHERE p.address = '' AND g.status <> 'finished')",
    )?
    .query_row([], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_counted_and_forgotten() {
        let c = super::super::open_in_memory().unwrap();
        let t = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        assert_eq!(inbox_attempts(&c, "box", "a").unwrap(), 0);
        assert_eq!(begin_inbox_attempt(&c, "box", "a", t).unwrap(), 1);
        assert_eq!(begin_inbox_attempt(&c, "box", "a", t).unwrap(), 2);
        undo_inbox_attempt(&c, "box", "a").unwrap();
        assert_eq!(inbox_attempts(&c, "box", "a").unwrap(), 1);
        undo_inbox_attempt(&c, "box", "a").unwrap();
        assert_eq!(inbox_attempts(&c, "box", "a").unwrap(), 0);
        assert_eq!(begin_inbox_attempt(&c, "box", "a", t).unwrap(), 1);
        assert_eq!(begin_inbox_attempt(&c, "box", "a", t).unwrap(), 2);
        assert_eq!(inbox_attempts(&c, "other", "a").unwrap(), 0);
        end_inbox_attempts(&c, "box", "a").unwrap();
        assert_eq!(inbox_attempts(&c, "box", "a").unwrap(), 0);
        assert!(!open_seat_exists(&c).unwrap());
    }
}
