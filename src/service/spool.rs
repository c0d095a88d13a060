//! The spool: messages handed to `dervish submit` while another dervish
//! (the daemon, or another `submit`) holds the database.
//!
//! The spool is a Maildir beside the database's real path
//! (`dervish.sqlite` → `dervish.spool/`). `submit` writes the message to
//! `tmp/`, syncs it and renames it into `new/`, so a message in `new/` is
//! whole; whoever holds the lock takes the spool in at every pass, before
//! the inbox, exactly as it takes in the inbox. An oversized message is
//! spooled as its head only, its real size in the file name (`,S=<size>`,
//! the Maildir++ convention), so it is refused just as it would have been.
//!
//! No message waits for ever: a process that released the lock looks at
//! the spool again and, if anything is there, takes the lock again to read
//! it (see [`drain_after`]). A message spooled while the lock was held is
//! thus read by the holder's next pass, or by the holder just after it
//! lets go.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::mail::maildir::{Maildir, read_file_bounded};
use crate::mail::{Fetched, Inbox, InboxError, Waiting};

/// The spool folder of a database.
pub fn dir(database: &Path) -> PathBuf {
    super::real_path(database).with_extension("spool")
}

/// The spool of a database, as an inbox.
pub struct Spool {
    maildir: Maildir,
}

impl Spool {
    /// Opens (creating if needed) the spool of `database`.
    pub fn open(database: &Path) -> io::Result<Spool> {
        Ok(Spool {
            maildir: Maildir::open(&dir(database))?,
        })
    }

    /// Puts one message in the spool: written to `tmp/`, synced, renamed
    /// into `new/`, the folder synced. `size` is the message's real size
    /// when `bytes` is only its head.
    pub fn put(&self, bytes: &[u8], size: usize) -> io::Result<PathBuf> {
        let name = format!("{},S={size}", crate::mail::maildir::unique_name());
        Ok(self.maildir.deliver_named(bytes, name)?.path)
    }

    /// Whether a message waits in the spool (an unreadable spool counts as
    /// empty: the pass that reads it reports the error).
    pub fn has_mail(&self) -> bool {
        fs::read_dir(self.maildir.root().join("new"))
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    }
}

/// The real size a spooled file's name records (`,S=<size>`).
fn named_size(name: &str) -> Option<usize> {
    let (_, tail) = name.rsplit_once(",S=")?;
    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

impl Inbox for Spool {
    fn describe(&self) -> String {
        format!("spool {}", self.maildir.root().display())
    }

    fn cursor_key(&self) -> Option<String> {
        None
    }

    fn pending(&mut self, cursor: Option<&str>) -> Result<Vec<Waiting>, InboxError> {
        self.maildir.pending(cursor)
    }

    /// As a Maildir, except that a file holding only a message's head
    /// says so by the size in its name.
    fn read(&mut self, w: &Waiting, max_bytes: usize) -> Result<Fetched, InboxError> {
        let (bytes, size) =
            read_file_bounded(&self.maildir.root().join("new").join(&w.id), max_bytes)?;
        let size = named_size(&w.id).map_or(size, |n| n.max(size));
        Ok(Fetched { bytes, size })
    }

    /// Removed: the message is stored whole in the database by now (a
    /// piped message has no mailbox to stay in, and `cur/` would grow for
    /// ever).
    fn done(&mut self, w: &Waiting) -> Result<(), InboxError> {
        match fs::remove_file(self.maildir.root().join("new").join(&w.id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(InboxError::from(e)),
            _ => Ok(()),
        }
    }

    fn aside_to(&self) -> String {
        Inbox::aside_to(&self.maildir)
    }

    /// Into the spool's `quarantine/`, as for the Maildir inbox.
    fn set_aside(&mut self, w: &Waiting) -> Result<(), InboxError> {
        Inbox::set_aside(&mut self.maildir, w)
    }
}

/// What [`read_after`] did.
#[derive(Debug, Default)]
pub struct Read {
    /// Messages taken from the spool.
    pub messages: usize,
    /// Each message stored meanwhile: its Message-ID and what became of
    /// it.
    pub outcomes: Vec<String>,
    /// Why the spool could not be read to the end (it is read again at
    /// the next pass).
    pub error: Option<String>,
}

/// After letting go of the lock (or without having held it): while the
/// spool holds mail and the lock is free, take the lock and read the
/// spool in. Errors end the reading and are returned; the messages left
/// stay for the next pass.
pub fn read_after(cfg: &super::Config) -> Read {
    let mut out = Read::default();
    let spool = match Spool::open(&cfg.database) {
        Ok(s) => s,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    while spool.has_mail() {
        // Held: the holder reads the spool, or looks again after letting go.
        let (mut s, _lock) = match super::Service::open_locked(cfg.clone()) {
            Ok(x) => x,
            Err(super::ServiceError::Lock(super::LockError::Held { .. })) => return out,
            Err(e) => {
                out.error = Some(e.to_string());
                return out;
            }
        };
        let mut spool = match Spool::open(&cfg.database) {
            Ok(s) => s,
            Err(e) => {
                out.error = Some(e.to_string());
                return out;
            }
        };
        let before = crate::store::last_message_row(&s.conn).unwrap_or(i64::MAX);
        let read = s.read_inbox(&mut spool);
        if let Ok(stored) = crate::store::messages_after(&s.conn, before) {
            out.outcomes
                .extend(stored.into_iter().map(|(id, o)| format!("{id}: {o}")));
        }
        match read {
            Ok((n, None)) => out.messages += n,
            Ok((n, Some(e))) => {
                out.messages += n;
                out.error = Some(e.to_string());
                return out;
            }
            Err(e) => {
                out.error = Some(e.to_string());
                return out;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spooled_head_keeps_the_real_size() {
        let dir = std::env::temp_dir().join(format!("dervish-spool-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let db = dir.join("db.sqlite");
        let mut spool = Spool::open(&db).unwrap();
        assert!(!spool.has_mail());
        spool.put(b"Subject: a\r\n\r\nbody", 18).unwrap();
        spool.put(b"Subject: big\r\n\r\nhead", 50_000_000).unwrap();
        assert!(spool.has_mail());
        let waiting = spool.pending(None).unwrap();
        assert_eq!(waiting.len(), 2);
        let sizes: Vec<(usize, usize)> = waiting
            .iter()
            .map(|w| {
                let f = spool.read(w, 1024).unwrap();
                (f.bytes.len(), f.size)
            })
            .collect();
        assert!(sizes.contains(&(18, 18)), "{sizes:?}");
        assert!(sizes.contains(&(20, 50_000_000)), "{sizes:?}");
        for w in &waiting {
            spool.done(w).unwrap();
        }
        assert!(!spool.has_mail());
        // Stored messages leave the spool altogether.
        let kept = fs::read_dir(dir.join("db.spool").join("cur"))
            .unwrap()
            .count();
        assert_eq!(kept, 0);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn sizes_in_names() {
        assert_eq!(named_size("1.2_3.4.host,S=123"), Some(123));
        assert_eq!(named_size("1.2_3.4.host,S=123:2,S"), Some(123));
        assert_eq!(named_size("1.2_3.4.host"), None);
    }
}
