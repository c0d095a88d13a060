//! Crash safety: `dervish run --once` is killed (SIGKILL) at random
//! moments while it reads mail, plays the turn and sends; after it is run
//! again to the end, the database and the outbox hold exactly what one
//! uninterrupted run produces: no message lost or applied twice, no mail
//! lost or written twice.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dervish::mail::maildir::Maildir;
use dervish::scenario::Side;
use dervish::store::{self};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[path = "common/mailbox.rs"]
mod mailbox;
use mailbox::run_once;

fn setup(name: &str) -> (PathBuf, PathBuf) {
    let dir = mailbox::folder("dervish-crash", name);
    let outgoing = mailbox::file_outbox(&dir);
    let cfg_path = mailbox::config_file(&dir, &outgoing, "[turns]\nsetup_hours = 0\n");
    let (cfg, secrets) = mailbox::game_on(&cfg_path);
    let secret = |side| mailbox::secret(&secrets, side);
    let inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
    let mut n = 0;
    let mut mail = |from: &str, body: String| {
        n += 1;
        let raw = format!(
            "From: {from}\r\nTo: dervish@example.org\r\nSubject: [dervish k-1] orders 1884-02\r\nMessage-ID: <c{n}@players.example>\r\nContent-Type: text/plain\r\n\r\n{}",
            body.replace('\n', "\r\n")
        );
        inbox.deliver(raw.as_bytes()).unwrap();
    };
    // A mix: good orders (replaced twice), commands, a wrong secret, a
    // stranger, then both sides READY so the turn is played.
    let e = secret(Side::Egyptian);
    let m = secret(Side::Mahdist);
    mail(
        "gordon@example.org",
        format!("SECRET {e}\nMARCH STACK Tokar TO El Teb\n"),
    );
    mail(
        "mahdi@example.org",
        format!("SECRET {m}\nMARCH LEADER Osman Digma TO Tamai\n"),
    );
    mail("gordon@example.org", "SECRET wrong\nREADY\n".to_string());
    mail("stranger@example.com", "READY\n".to_string());
    mail("gordon@example.org", format!("SECRET {e}\nHELP\nSTATUS\n"));
    mail(
        "gordon@example.org",
        format!("SECRET {e}\nMARCH STACK Sinkat TO Souakim\nREADY\n"),
    );
    // Questions, to make the pass long enough to be cut in many places.
    for i in 0..20 {
        let who = if i % 2 == 0 {
            ("gordon@example.org", &e)
        } else {
            ("mahdi@example.org", &m)
        };
        mail(
            who.0,
            format!(
                "SECRET {}\nSTATUS\nMAP Khartoum\nROUTE Korti TO Metammeh\n",
                who.1
            ),
        );
    }
    mail(
        "mahdi@example.org",
        format!("SECRET {m}\nMARCH STACK Kamlin TO Soba ATTACK ANY\nREADY\n"),
    );
    (dir, cfg_path)
}

/// What a run leaves: messages with their outcomes, order sets, turns,
/// outbox rows (kind, recipient, sent) and the files written.
fn summary(dir: &Path) -> (Vec<String>, i64, i64, Vec<String>, usize) {
    let c = store::open(&dir.join("dervish.sqlite")).unwrap();
    let messages = mailbox::column(
        &c,
        "SELECT message_id || ' ' || outcome FROM messages ORDER BY message_id",
    );
    let rows = |table: &str| -> i64 {
        c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    let (sets, turns) = (rows("order_sets"), rows("turns"));
    let outbox = mailbox::column(
        &c,
        "SELECT kind || ' ' || recipient || ' ' || (sent_at IS NOT NULL) FROM outbox ORDER BY dedupe_key",
    );
    let files = std::fs::read_dir(dir.join("outbox"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                .count()
        })
        .unwrap_or(0);
    (messages, sets, turns, outbox, files)
}

#[test]
fn killed_at_random_moments_nothing_is_lost_or_done_twice() {
    // The control: one uninterrupted run.
    let (control, cfg) = setup("control");
    assert!(run_once(&cfg).wait().unwrap().success());
    let expected = summary(&control);
    assert_eq!(expected.2, 1, "the turn was played");
    assert_eq!(expected.0.len(), 27);
    assert!(
        expected.3.iter().all(|o| o.ends_with(" 1")),
        "{:?}",
        expected.3
    );
    assert_eq!(expected.4, expected.3.len());

    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for round in 0..3 {
        let (dir, cfg) = setup(&format!("killed-{round}"));
        for _ in 0..15 {
            let mut child = run_once(&cfg);
            std::thread::sleep(Duration::from_millis(rng.random_range(2..250)));
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(run_once(&cfg).wait().unwrap().success());
        let got = summary(&dir);
        assert_eq!(got.0, expected.0, "messages and outcomes");
        assert_eq!(got.1, expected.1, "order sets");
        assert_eq!(got.2, expected.2, "turns");
        assert_eq!(got.3, expected.3, "outbox");
        assert_eq!(got.4, expected.4, "files written");
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&control);
}

#[test]
fn the_daemon_holds_the_lock_and_stops_cleanly_on_sigterm() {
    let (dir, cfg) = setup("daemon");
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .args(["--config", cfg.to_str().unwrap(), "run"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until its first pass has read the inbox.
    let inbox = dir.join("inbox/new");
    for _ in 0..100 {
        if std::fs::read_dir(&inbox).map(|d| d.count()).unwrap_or(1) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // A second daemon on the same database is refused; cron's pass leaves
    // the work to the daemon with a note, and exit 0.
    let second = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .args(["--config", cfg.to_str().unwrap(), "run"])
        .output()
        .unwrap();
    assert!(!second.status.success());
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("another dervish is running"),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let cron = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .args(["--config", cfg.to_str().unwrap(), "run", "--once"])
        .output()
        .unwrap();
    assert!(cron.status.success());
    assert!(
        String::from_utf8_lossy(&cron.stdout).contains("another dervish is running"),
        "{}",
        String::from_utf8_lossy(&cron.stdout)
    );
    // SIGTERM stops it between passes, with success.
    // The shell's own kill, so no procps is needed.
    let term = Command::new("sh")
        .args(["-c", &format!("kill -TERM {}", daemon.id())])
        .status()
        .unwrap();
    assert!(term.success());
    let mut status = None;
    for _ in 0..50 {
        if let Some(s) = daemon.try_wait().unwrap() {
            status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = status.unwrap_or_else(|| {
        let _ = daemon.kill();
        panic!("the daemon did not stop within 5 s of SIGTERM")
    });
    assert!(status.success(), "{status:?}");
    let got = summary(&dir);
    assert_eq!(got.2, 1, "the turn was played before it stopped");
    let _ = std::fs::remove_dir_all(&dir);
}
