//! A local Maildir: the embedded default inbox.
//!
//! Just enough of the Maildir format (as described by D. J. Bernstein and
//! used by Postfix, Dovecot, getmail and fdm) for the service to read the
//! mail a local delivery agent drops there, and for tests and the command
//! line to deliver into it:
//!
//! - a message is delivered by writing `tmp/<unique>` and renaming it into
//!   `new/`, so a message in `new/` is always complete and one still being
//!   written is never seen;
//! - the service reads `new/` in name order, which for our own unique names
//!   (`<secs>.<micros>_<counter>.<pid>.<host>`) is delivery order;
//! - a message handled is moved to `cur/<id>:2,S` (seen), so it is not read
//!   twice, and stays there for the record.
//!
//! A message the service could not take in (it failed or was stopped on
//! it twice) is moved to `quarantine/<id>`, beside `cur/` and `new/`, and
//! never read again unless put back into `new/`.
//!
//! Names starting with a dot are left alone (editors' and tools' temporary
//! files). No locking is needed: Maildir works by atomic renames.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A Maildir folder with its `tmp/`, `new/` and `cur/`.
#[derive(Debug, Clone)]
pub struct Maildir {
    root: PathBuf,
}

/// A message waiting in `new/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file name in `new/`.
    pub id: String,
    pub path: PathBuf,
}

impl Maildir {
    /// Opens the Maildir at `root`, creating it and its `tmp/`, `new/` and
    /// `cur/` if missing.
    pub fn open(root: &Path) -> io::Result<Maildir> {
        for sub in ["tmp", "new", "cur"] {
            fs::create_dir_all(root.join(sub))?;
        }
        Ok(Maildir {
            root: root.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The messages in `new/`, sorted by name (delivery order for names made
    /// by [`Maildir::deliver`] and by most delivery agents), skipping names
    /// that start with a dot and anything that is not a file.
    pub fn new_messages(&self) -> io::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for item in fs::read_dir(self.root.join("new"))? {
            let item = item?;
            let Ok(id) = item.file_name().into_string() else {
                // Not a name any delivery agent makes; leave it alone.
                continue;
            };
            if id.starts_with('.') || !item.file_type()?.is_file() {
                continue;
            }
            entries.push(Entry {
                id,
                path: item.path(),
            });
        }
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(entries)
    }

    /// The message's bytes, as delivered.
    pub fn read(&self, e: &Entry) -> io::Result<Vec<u8>> {
        fs::read(&e.path)
    }

    /// Moves the message from `new/<id>` to `cur/<id>:2,S` (seen). A message
    /// already moved is not an error.
    pub fn mark_seen(&self, e: &Entry) -> io::Result<()> {
        let seen = self.root.join("cur").join(format!("{}:2,S", e.id));
        match fs::rename(self.root.join("new").join(&e.id), &seen) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound && seen.exists() => Ok(()),
            Err(err) => Err(err),
        }
    }

    /// The folder messages are set aside in: `quarantine/`.
    pub fn quarantine(&self) -> PathBuf {
        self.root.join("quarantine")
    }

    /// Moves the message from `new/<id>` to `quarantine/<id>` (created if
    /// missing). A message already moved is not an error.
    pub fn set_aside(&self, e: &Entry) -> io::Result<()> {
        let dir = self.quarantine();
        fs::create_dir_all(&dir)?;
        let aside = dir.join(&e.id);
        match fs::rename(self.root.join("new").join(&e.id), &aside) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound && aside.exists() => Ok(()),
            Err(err) => Err(err),
        }
    }

    /// Delivers a message: writes `tmp/<unique>`, syncs it, then renames it
    /// into `new/`.
    pub fn deliver(&self, bytes: &[u8]) -> io::Result<Entry> {
        self.deliver_named(bytes, unique_name())
    }

    /// As [`Maildir::deliver`], under the file name `id` (a unique name
    /// with Maildir++ fields such as `,S=<size>`); the folder is synced
    /// too, so the new entry survives a crash.
    pub fn deliver_named(&self, bytes: &[u8], id: String) -> io::Result<Entry> {
        let tmp = self.root.join("tmp").join(&id);
        let path = self.root.join("new").join(&id);
        let written = (|| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            fs::rename(&tmp, &path)?;
            fs::File::open(self.root.join("new"))?.sync_all()
        })();
        if let Err(err) = written {
            let _ = fs::remove_file(&tmp);
            return Err(err);
        }
        Ok(Entry { id, path })
    }
}

/// `<secs>.<micros>_<counter>.<pid>.<host>`: seconds and microseconds
/// zero-padded so that names sort by time, a counter for deliveries in the
/// same microsecond, and the process and host so that two deliverers never
/// meet.
pub fn unique_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format!(
        "{:010}.{:06}_{:06}.{}.{}",
        now.as_secs(),
        now.subsec_micros(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::process::id(),
        HOST.get_or_init(host_name)
    )
}

static HOST: OnceLock<String> = OnceLock::new();

/// The host name, with the characters Maildir reserves (`/` and `:`)
/// replaced; `localhost` if it cannot be read.
fn host_name() -> String {
    let name = fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let name: String = name
        .chars()
        .map(|c| match c {
            '/' => "\\057".to_owned(),
            ':' => "\\072".to_owned(),
            c if c.is_ascii_graphic() => c.to_string(),
            _ => "_".to_owned(),
        })
        .collect();
    if name.is_empty() {
        "localhost".to_owned()
    } else {
        name
    }
}

impl super::Inbox for Maildir {
    fn describe(&self) -> String {
        format!("Maildir {}", self.root.display())
    }

    /// A Maildir needs no cursor: what is handled has left `new/`.
    fn cursor_key(&self) -> Option<String> {
        None
    }

    fn pending(&mut self, _cursor: Option<&str>) -> Result<Vec<super::Waiting>, super::InboxError> {
        Ok(self
            .new_messages()?
            .into_iter()
            .map(|e| super::Waiting {
                size: fs::metadata(&e.path)
                    .ok()
                    .and_then(|m| usize::try_from(m.len()).ok()),
                id: e.id,
                cursor: None,
            })
            .collect())
    }

    /// The whole file, or only its first [`super::HEAD_BYTES`] when it is
    /// larger than `max_bytes`: an oversized message is never read whole.
    fn read(
        &mut self,
        w: &super::Waiting,
        max_bytes: usize,
    ) -> Result<super::Fetched, super::InboxError> {
        let (bytes, size) = read_file_bounded(&self.root.join("new").join(&w.id), max_bytes)?;
        Ok(super::Fetched { bytes, size })
    }

    fn done(&mut self, w: &super::Waiting) -> Result<(), super::InboxError> {
        Ok(self.mark_seen(&Entry {
            id: w.id.clone(),
            path: self.root.join("new").join(&w.id),
        })?)
    }

    fn aside_to(&self) -> String {
        format!("moved to {}", self.quarantine().display())
    }

    fn set_aside(&mut self, w: &super::Waiting) -> Result<(), super::InboxError> {
        Ok(Maildir::set_aside(
            self,
            &Entry {
                id: w.id.clone(),
                path: self.root.join("new").join(&w.id),
            },
        )?)
    }
}

/// A file read whole if it is at most `max_bytes` long, else only its
/// first [`super::HEAD_BYTES`] (its size from the file system, so the rest
/// is never read); with its real size. [`super::read_bounded`] does the
/// same for a stream.
pub fn read_file_bounded(path: &Path, max_bytes: usize) -> io::Result<(Vec<u8>, usize)> {
    use std::io::Read;
    let f = fs::File::open(path)?;
    let size = usize::try_from(f.metadata()?.len()).unwrap_or(usize::MAX);
    let keep = if size > max_bytes {
        super::HEAD_BYTES
    } else {
        size
    };
    let mut bytes = Vec::with_capacity(keep.min(max_bytes));
    f.take(keep as u64).read_to_end(&mut bytes)?;
    let size = size.max(bytes.len());
    Ok((bytes, size))
}
