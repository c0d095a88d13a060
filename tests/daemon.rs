//! The daemon loop as the library runs it: a stop request is seen between
//! two messages, and a message `submit` spools while the daemon holds the
//! database wakes it at once.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dervish::mail::maildir::Maildir;
use dervish::service::Config;
use dervish::service::daemon::Daemon;
use dervish::service::spool::Spool;

#[path = "common/mailbox.rs"]
mod mailbox;

fn temp_dir(name: &str) -> PathBuf {
    mailbox::folder("dervish-daemon", name)
}

/// The table's configuration, polling the inbox once an hour: what wakes
/// the daemon sooner is the spool or a stop request.
fn config(dir: &Path) -> Config {
    let mut cfg = mailbox::config(dir);
    cfg.run.poll_seconds = 3600;
    cfg
}

fn stranger(n: u32) -> Vec<u8> {
    format!(
        "From: stranger{n}@example.net\r\nTo: dervish@example.org\r\nSubject: hello\r\nMessage-ID: <d{n}@example.net>\r\n\r\nhello\r\n"
    )
    .into_bytes()
}

fn messages_stored(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
        .unwrap()
}

fn last_pass(db: &Path) -> Option<String> {
    let conn = rusqlite::Connection::open(db).ok()?;
    conn.query_row(
        "SELECT value FROM service WHERE key = 'last_pass'",
        [],
        |r| r.get(0),
    )
    .ok()
}

#[test]
fn a_stop_request_leaves_the_waiting_mail_for_the_next_start() {
    let dir = temp_dir("stop");
    let cfg = config(&dir);
    let inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
    for n in 0..5 {
        inbox.deliver(&stranger(n)).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut d = Daemon::open(cfg.clone(), Arc::clone(&stop)).unwrap();
    stop.store(true, Ordering::Relaxed);
    let r = d.pass().unwrap();
    assert_eq!(r.messages, 0, "nothing is started once the stop is asked");
    assert_eq!(inbox.new_messages().unwrap().len(), 5);
    // The loop itself returns at once.
    d.run().unwrap();
    // The next start takes them all.
    let mut d = Daemon::open(cfg.clone(), Arc::new(AtomicBool::new(false))).unwrap();
    assert_eq!(d.pass().unwrap().messages, 5);
    assert!(inbox.new_messages().unwrap().is_empty());
    drop(d);
    assert_eq!(messages_stored(&cfg.database), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn spooled_mail_wakes_the_daemon_before_its_poll() {
    let dir = temp_dir("spool");
    let cfg = config(&dir);
    let stop = Arc::new(AtomicBool::new(false));
    let (c, s) = (cfg.clone(), Arc::clone(&stop));
    let running = std::thread::spawn(move || Daemon::open(c, s).and_then(Daemon::run));
    // After its first pass (which finds nothing) it would sleep an hour.
    let until = Instant::now() + Duration::from_secs(30);
    while last_pass(&cfg.database).is_none() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        last_pass(&cfg.database).is_some(),
        "the daemon made no pass"
    );
    // The daemon polls once an hour; the spooled message is read anyway.
    Spool::open(&cfg.database)
        .unwrap()
        .put(&stranger(9), stranger(9).len())
        .unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while messages_stored(&cfg.database) == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    running.join().unwrap().unwrap();
    assert_eq!(messages_stored(&cfg.database), 1);
    assert!(!Spool::open(&cfg.database).unwrap().has_mail());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A message `submit` spooled that the service was killed on twice (two
/// attempts begun and never finished) is set aside in the spool's
/// quarantine at the next reading, the game master told, and the message
/// behind it read: a pipe delivery never retries a poison message for ever.
#[test]
fn a_spooled_message_killed_on_twice_is_set_aside() {
    let dir = temp_dir("poison");
    let cfg = config(&dir);
    let spool = Spool::open(&cfg.database).unwrap();
    let path = spool.put(&stranger(1), stranger(1).len()).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    {
        let (s, _lock) = dervish::service::Service::open_locked(cfg.clone()).unwrap();
        let mailbox = format!("spool {}", dir.join("dervish.spool").display());
        let mailbox = mailbox.replace(
            &dir.display().to_string(),
            &std::fs::canonicalize(&dir).unwrap().display().to_string(),
        );
        for _ in 0..2 {
            dervish::store::begin_inbox_attempt(&s.conn, &mailbox, &name, chrono::Utc::now())
                .unwrap();
        }
    }
    spool.put(&stranger(2), stranger(2).len()).unwrap();
    let read = dervish::service::spool::read_after(&cfg);
    assert!(read.error.is_none(), "{:?}", read.error);
    let outcomes = read.outcomes.join("\n");
    assert!(outcomes.contains("set aside"), "{outcomes}");
    assert!(outcomes.contains("d2@example.net: ignored"), "{outcomes}");
    let aside = std::fs::read_dir(dir.join("dervish.spool").join("quarantine"))
        .unwrap()
        .count();
    assert_eq!(aside, 1);
    assert!(!spool.has_mail());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Under a flood a pass takes in at most `messages_per_pass`, and says more
/// wait; `run --once` (`drain`) makes passes until the inbox is read, each
/// sending what it made.
#[test]
fn a_pass_takes_in_a_bounded_number_of_messages() {
    let dir = temp_dir("per-pass");
    let mut cfg = config(&dir);
    cfg.limits.messages_per_pass = 2;
    let inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
    for n in 0..5 {
        inbox.deliver(&stranger(n)).unwrap();
    }
    let mut d = Daemon::open(cfg.clone(), Arc::new(AtomicBool::new(false))).unwrap();
    let r = d.pass().unwrap();
    assert_eq!(r.messages, 2);
    assert!(r.more_waiting);
    assert_eq!(inbox.new_messages().unwrap().len(), 3);
    let r = d.drain().unwrap();
    assert_eq!(r.messages, 3);
    assert!(!r.more_waiting);
    assert!(inbox.new_messages().unwrap().is_empty());
    drop(d);
    assert_eq!(messages_stored(&cfg.database), 5);
    let _ = std::fs::remove_dir_all(&dir);
}
