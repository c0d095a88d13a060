//! The daemon: passes over the spool, the inbox, the turns and the outbox,
//! once (from cron) or until told to stop.
//!
//! Between passes it waits for the poll interval, or less: until the next
//! deadline, reminder or mail retry; until IMAP IDLE reports mail; until a
//! message lands in the spool (`dervish submit` while the daemon runs).
//! After a failure to read the inbox the next try comes sooner than the
//! next poll, then less and less often. A stop request (SIGTERM, SIGINT)
//! is seen between two messages and between two mails sent, never in the
//! middle of one, and while waiting within a fifth of a second. A mail's
//! hand-off runs on a thread of its own: the daemon waits for it
//! [`PATIENCE`] at most, then reads mail on while it ends, and a stop
//! request does not wait for it (the mail, still "sending", is sent again
//! at the next start). A pass that fails because the disk is full is
//! tried again, less and less often, instead of ending the daemon.
//!
//! The CLI only parses the command line, watches the signals and prints;
//! everything here is the library's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::config::InboxKind;
use super::spool::Spool;
use super::{Config, PassReport, Result, Service, ServiceError};
use crate::mail::Inbox;
use crate::mail::imap::{self, ImapInbox, ImapSettings, Wake};
use crate::mail::maildir::Maildir;
use crate::mail::outbound::Sender;
use crate::store;

/// How often a waiting daemon looks at the stop flag and the spool.
const TICK: Duration = Duration::from_millis(200);

/// How long a running daemon waits for one mail's hand-off before leaving
/// it to end in the background and going on with the inbox: a server that
/// accepts the connection and never answers does not hold the daemon.
const PATIENCE: Duration = Duration::from_secs(2);

/// The configured Maildir inbox, opened (created if missing).
pub fn maildir_inbox(cfg: &Config) -> Result<Maildir> {
    Maildir::open(&cfg.inbox.maildir).map_err(|e| {
        ServiceError::Setup(format!(
            "cannot open the Maildir {}: {e}",
            cfg.inbox.maildir.display()
        ))
    })
}

/// The configured inbox, and the IMAP settings when it is IMAP (for the
/// IDLE watcher).
pub fn open_inbox(cfg: &Config) -> Result<(Box<dyn Inbox>, Option<ImapSettings>)> {
    match cfg.inbox.kind {
        InboxKind::Maildir => Ok((Box::new(maildir_inbox(cfg)?), None)),
        InboxKind::Imap => {
            let settings = cfg.inbox.imap_settings().map_err(ServiceError::Setup)?;
            Ok((Box::new(ImapInbox::new(settings.clone())), Some(settings)))
        }
    }
}

/// The configured outgoing mail.
pub fn sender(cfg: &Config) -> Result<Sender> {
    Sender::new(&cfg.outgoing).map_err(|e| ServiceError::Setup(format!("outgoing mail: {e}")))
}

/// A service holding the lock, with its spool, inbox and outgoing mail.
pub struct Daemon {
    service: Service,
    spool: Spool,
    inbox: Box<dyn Inbox>,
    imap: Option<ImapSettings>,
    sender: Sender,
    stop: Arc<AtomicBool>,
    /// Copies the database's log into it beside the daemon's writes, so
    /// no mail's intake waits for a checkpoint.
    _checkpoints: store::Checkpointer,
    _lock: super::Lock,
}

impl Daemon {
    /// Set up the inbox and the outgoing mail as configured, then take the
    /// lock and open the database. `stop`, once set, ends the run.
    pub fn open(cfg: Config, stop: Arc<AtomicBool>) -> Result<Daemon> {
        let (inbox, imap) = open_inbox(&cfg)?;
        let sender = sender(&cfg)?;
        let (mut service, lock) = Service::open_locked(cfg)?;
        service.set_stop(Arc::clone(&stop));
        let spool = Spool::open(&service.cfg.database)?;
        let checkpoints = store::Checkpointer::start(&service.cfg.database)?;
        Ok(Daemon {
            service,
            spool,
            inbox,
            imap,
            sender,
            stop,
            _checkpoints: checkpoints,
            _lock: lock,
        })
    }

    /// The service (tests look at its database).
    pub fn service(&self) -> &Service {
        &self.service
    }

    /// Passes until the inbox holds no more than one pass takes (`run
    /// --once`): each pass sends the mail it made before the next reads on.
    pub fn drain(&mut self) -> Result<PassReport> {
        let mut total = self.pass()?;
        while total.more_waiting && !self.stopping() && total.inbox_error.is_none() {
            let r = self.pass()?;
            total.messages += r.messages;
            total.turns_played.extend(r.turns_played);
            total.reminders += r.reminders;
            total.extended.extend(r.extended);
            total.sent += r.sent;
            total.failed += r.failed;
            total.inbox_error = r.inbox_error;
            total.more_waiting = r.more_waiting;
        }
        Ok(total)
    }

    /// One pass: the spool, then everything [`Service::pass`] does.
    pub fn pass(&mut self) -> Result<PassReport> {
        let (spooled, spool_error) = self.service.read_inbox(&mut self.spool)?;
        if let Some(e) = spool_error {
            tracing::warn!(spool = %self.spool.describe(), error = %e, "cannot read the spool");
        }
        let mut r = self.service.pass(self.inbox.as_mut(), &self.sender)?;
        r.messages += spooled;
        tracing::info!(
            messages = r.messages,
            turns = r.turns_played.len(),
            reminders = r.reminders,
            sent = r.sent,
            failed = r.failed,
            "pass"
        );
        Ok(r)
    }

    /// Passes until the stop flag is set.
    pub fn run(mut self) -> Result<()> {
        self.sender.set_patience(Some(PATIENCE));
        let poll = Duration::from_secs(u64::from(self.service.cfg.run.poll_seconds.max(1)));
        // With IMAP and IDLE, a second connection waits for mail and wakes
        // the loop; the loop still polls, in case a notification is lost.
        let (wake_tx, wake_rx) = mpsc::channel::<Wake>();
        let _watcher = match &self.imap {
            Some(settings) if settings.config.idle => {
                match imap::watch(settings.clone(), wake_tx.clone()) {
                    Ok(handle) => Some(handle),
                    Err(e) => {
                        tracing::error!("cannot start the IMAP IDLE thread: {e}; polling only");
                        None
                    }
                }
            }
            _ => None,
        };
        tracing::info!(inbox = %self.inbox.describe(), poll_secs = poll.as_secs(), "running");
        let max_backoff = self.imap.as_ref().map_or(poll, |i| {
            Duration::from_secs(i.config.reconnect_max_seconds.max(1))
        });
        let mut backoff = Duration::from_secs(1);
        let mut full = Backoff::new(poll);
        loop {
            if self.stopping() {
                break;
            }
            let r = match self.pass() {
                Ok(r) => {
                    full.reset();
                    r
                }
                Err(e) if disk_full(&e) => {
                    let wait = full.next();
                    tracing::error!(error = %e, retry_secs = wait.as_secs(), "the disk is full; nothing was lost, and the pass is tried again");
                    self.wait(wait, &wake_rx, poll);
                    continue;
                }
                Err(e) => return Err(e),
            };
            // More mail waits than a pass takes: the next pass at once.
            if r.more_waiting {
                continue;
            }
            let mut wait = if r.inbox_error.is_some() {
                let w = backoff.min(poll);
                backoff = (backoff * 2).min(max_backoff);
                w
            } else {
                backoff = Duration::from_secs(1);
                poll
            };
            // A mail to retry, a deadline or a reminder before the next
            // poll wakes us then. (Something the pass just made left
            // overdue waits for the poll.)
            let s = &self.service;
            if let Some(due) = store::next_due(&s.conn, s.cfg.turns.reminder_hours)?
                && due > s.now()
            {
                let secs = (due - s.now()).num_seconds().max(1);
                wait = wait.min(Duration::from_secs(secs.unsigned_abs()));
            }
            self.wait(wait, &wake_rx, poll);
        }
        tracing::info!("stopping");
        self.inbox.close();
        Ok(())
    }

    /// Wait up to `wait`, in short steps, so a signal stops the service
    /// promptly; mail in the inbox (IDLE) or the spool ends the wait.
    fn wait(&self, wait: Duration, wake_rx: &mpsc::Receiver<Wake>, poll: Duration) {
        let until = Instant::now() + wait;
        loop {
            if self.stopping() || self.spool.has_mail() || self.sender.has_ended() {
                return;
            }
            let now = Instant::now();
            if now >= until {
                return;
            }
            match wake_rx.recv_timeout((until - now).min(TICK)) {
                Ok(Wake::Mail) => {
                    // Several notifications make one pass.
                    while wake_rx.try_recv().is_ok() {}
                    return;
                }
                Ok(Wake::Down { error, retry }) => {
                    // The watcher has warned already.
                    tracing::debug!(error = %error, retry_secs = retry.as_secs(), "IMAP IDLE down; polling meanwhile");
                }
                Ok(Wake::NoIdle) => {
                    tracing::info!(
                        "the IMAP server has no IDLE; polling every {} s",
                        poll.as_secs()
                    );
                }
                Err(_) => {}
            }
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The outgoing mail (tests).
    pub fn sender(&self) -> &Sender {
        &self.sender
    }

    /// Let go of the lock and close the inbox.
    pub fn close(mut self) {
        self.inbox.close();
    }
}

/// A wait that doubles from a second up to a ceiling, until reset.
struct Backoff {
    next: Duration,
    max: Duration,
}

impl Backoff {
    fn new(max: Duration) -> Backoff {
        Backoff {
            next: Duration::from_secs(1),
            max,
        }
    }

    fn next(&mut self) -> Duration {
        let now = self.next.min(self.max);
        self.next = (self.next * 2).min(self.max);
        now
    }

    fn reset(&mut self) {
        self.next = Duration::from_secs(1);
    }
}

/// Whether an error is the disk (or the database's size limit) being
/// full: SQLite's `SQLITE_FULL`, or `ENOSPC` from a file. Such a pass
/// rolled back whole, and may work once space is made.
pub fn disk_full(e: &ServiceError) -> bool {
    let sql = |e: &rusqlite::Error| e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull);
    let io = |e: &std::io::Error| {
        e.kind() == std::io::ErrorKind::StorageFull || e.raw_os_error() == Some(ENOSPC)
    };
    match e {
        ServiceError::Sql(e) | ServiceError::Store(store::StoreError::Sql(e)) => sql(e),
        ServiceError::Mailbox(e) => io(e),
        other => {
            let text = other.to_string();
            text.contains("database or disk is full") || text.contains("No space left on device")
        }
    }
}

/// `ENOSPC` on Linux and the BSDs.
const ENOSPC: i32 = 28;
