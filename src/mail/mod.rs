//! Mail at the edges of the service: reading incoming messages
//! (`inbound`), building and sending outgoing ones (`outbound`), and the
//! mailboxes mail is read from: the local Maildir of the embedded default
//! (`maildir`) or an IMAP folder (`imap`). Nothing here knows about games;
//! the service decides what a message means.

pub mod imap;
#[cfg(test)]
mod imap_script;
pub mod inbound;
pub mod maildir;
pub mod outbound;
pub mod tls;

use std::path::Path;

/// A message waiting in a mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// The mailbox's name for it (a Maildir file name, an IMAP UID).
    pub id: String,
    /// Its size in bytes, when the mailbox says so without reading it.
    pub size: Option<usize>,
    /// What the service keeps once the message is handled, so that the
    /// mailbox can start after it next time (IMAP: UIDVALIDITY and UID).
    pub cursor: Option<String>,
}

/// A message read from a mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The message, or only its beginning when it is larger than the limit
    /// the service reads (see [`Inbox::read`]).
    pub bytes: Vec<u8>,
    /// The whole message's size.
    pub size: usize,
}

impl Fetched {
    /// Whether only the beginning was read.
    pub fn is_partial(&self) -> bool {
        self.bytes.len() < self.size
    }
}

/// A mailbox could not be read or updated. The service keeps going and
/// tries again later; nothing is lost, since a message is marked handled
/// only after the service has committed it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InboxError(pub String);

impl From<std::io::Error> for InboxError {
    fn from(e: std::io::Error) -> Self {
        InboxError(e.to_string())
    }
}

/// Where incoming mail waits: the service asks for what is new, reads each
/// message, commits it, and only then says it is done with it.
pub trait Inbox {
    /// A name for logs (`Maildir mail/inbox`, `imap://game@host/INBOX`).
    fn describe(&self) -> String;

    /// The key under which the service keeps this mailbox's cursor, if it
    /// has one.
    fn cursor_key(&self) -> Option<String>;

    /// The messages waiting, oldest first. `cursor` is the cursor of the
    /// last message handled, as the service kept it.
    fn pending(&mut self, cursor: Option<&str>) -> Result<Vec<Waiting>, InboxError>;

    /// The message's bytes; of a message larger than `max_bytes`, only
    /// enough of the beginning to hold its header.
    fn read(&mut self, w: &Waiting, max_bytes: usize) -> Result<Fetched, InboxError>;

    /// The message is committed: mark it handled in the mailbox (moved to
    /// `cur/`, flagged `\Seen` or moved to another folder).
    fn done(&mut self, w: &Waiting) -> Result<(), InboxError>;

    /// The service is stopping: end any connection politely.
    fn close(&mut self) {}

    /// Where [`Inbox::set_aside`] puts a message, in words for the game
    /// master.
    fn aside_to(&self) -> String {
        format!(
            "left in {}, marked handled as handled mail is",
            self.describe()
        )
    }

    /// The service gave up on the message (it failed or was stopped on it
    /// twice): put it where it is not read again, and where the game
    /// master can find it. By default it is marked handled like any other
    /// message (its beginning is kept in the database).
    fn set_aside(&mut self, w: &Waiting) -> Result<(), InboxError> {
        self.done(w)
    }
}

/// Read a message from `r` (standard input, say) keeping at most
/// `max_bytes`: a longer one is kept only in its first [`HEAD_BYTES`] and
/// the rest is counted, not stored. Returns the bytes kept and the size.
pub fn read_bounded<R: std::io::Read>(
    r: &mut R,
    max_bytes: usize,
) -> std::io::Result<(Vec<u8>, usize)> {
    use std::io::Read;
    let mut bytes = Vec::new();
    r.by_ref()
        .take(max_bytes as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() <= max_bytes {
        let n = bytes.len();
        return Ok((bytes, n));
    }
    let rest = std::io::copy(r, &mut std::io::sink())?;
    let size = bytes
        .len()
        .saturating_add(usize::try_from(rest).unwrap_or(usize::MAX));
    bytes.truncate(HEAD_BYTES);
    bytes.shrink_to_fit();
    Ok((bytes, size))
}

/// How much of an oversized message is read: enough for any header.
pub const HEAD_BYTES: usize = 64 * 1024;

/// A password from an environment variable or a file (never from the
/// command line, where other users of the machine can see it). A file's
/// trailing line break is dropped.
pub fn read_password(
    what: &str,
    env: Option<&str>,
    file: Option<&Path>,
) -> Result<Option<String>, String> {
    match (env, file) {
        (Some(_), Some(_)) => Err(format!(
            "{what}: give `password_env` or `password_file`, not both"
        )),
        (Some(var), None) => match std::env::var(var) {
            Ok(p) if !p.is_empty() => Ok(Some(p)),
            Ok(_) => Err(format!("{what}: the environment variable {var} is empty")),
            Err(_) => Err(format!(
                "{what}: the environment variable {var} (password_env) is not set"
            )),
        },
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                format!(
                    "{what}: cannot read the password file {}: {e}",
                    path.display()
                )
            })?;
            let p = text.strip_suffix('\n').unwrap_or(&text);
            let p = p.strip_suffix('\r').unwrap_or(p);
            if p.is_empty() {
                return Err(format!(
                    "{what}: the password file {} is empty",
                    path.display()
                ));
            }
            Ok(Some(p.to_owned()))
        }
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_come_from_a_file_or_the_environment_with_clear_errors() {
        let dir = std::env::temp_dir().join(format!("dervish-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pw");
        std::fs::write(&f, "s3cret\n").unwrap();
        assert_eq!(
            read_password("inbox", None, Some(&f)).unwrap().as_deref(),
            Some("s3cret")
        );
        std::fs::write(&f, "").unwrap();
        assert!(
            read_password("inbox", None, Some(&f))
                .unwrap_err()
                .contains("empty")
        );
        let missing = read_password("inbox", None, Some(&dir.join("nope"))).unwrap_err();
        assert!(
            missing.contains("cannot read the password file"),
            "{missing}"
        );
        let unset =
            read_password("inbox", Some("DERVISH_TEST_SURELY_UNSET_VAR"), None).unwrap_err();
        assert!(unset.contains("DERVISH_TEST_SURELY_UNSET_VAR"), "{unset}");
        assert!(read_password("inbox", Some("X"), Some(&f)).is_err());
        assert_eq!(read_password("inbox", None, None).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
