//! One pass works out the due turns of different games at once and stores
//! them one by one (`Service::play_due_turns`): what it stores and mails
//! must be byte for byte what playing the same games one by one
//! (`Service::play_turn`, the path of a game played alone) gives, with the
//! same seeds and clock.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use dervish::mail::outbound::Sender;
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::state::{TableBattles, TableSelect};
use dervish::store::Mode;

#[path = "common/mailbox.rs"]
mod mailbox;

fn temp_dir(name: &str) -> PathBuf {
    mailbox::folder("dervish-pass-together", name)
}

fn config(dir: &Path) -> Config {
    let mut cfg = mailbox::config(dir);
    cfg.turns.setup_hours = 0;
    // Small pictures: drawn for every player, quick in a test build.
    cfg.turns.map_picture_px = dervish::service::picture::MIN_WIDTH_PX;
    cfg.outbox.keep_sent_days = 0;
    cfg
}

/// The games of the test: players who hold, programmed players (whose
/// orders are made as each turn opens), an observer, an alternating game,
/// and a game whose combats go to the table (played alone, in its place).
fn games() -> Vec<(NewGame, Option<&'static str>)> {
    let game = |id: &str, egyptian: &str, mahdist: &str, mode: Mode| NewGame {
        egyptian: egyptian.into(),
        mahdist: mahdist.into(),
        mode,
        ..mailbox::game("khartoum", id)
    };
    let mut table = game("t-5", "gordon5@example.org", "bot", Mode::Monthly);
    table.table_battles = TableBattles {
        select: TableSelect::All,
        ..TableBattles::default()
    };
    vec![
        (
            game(
                "t-1",
                "gordon@example.org",
                "mahdi@example.org",
                Mode::Monthly,
            ),
            None,
        ),
        (
            game("t-2", "gordon2@example.org", "bot", Mode::Monthly),
            Some("watcher@example.org"),
        ),
        (
            game("t-3", "bot:competent", "mahdi3@example.org", Mode::Monthly),
            None,
        ),
        (
            game(
                "t-4",
                "gordon4@example.org",
                "mahdi4@example.org",
                Mode::Alternating,
            ),
            None,
        ),
        (table, None),
        (
            game("t-6", "bot:historical", "mahdi6@example.org", Mode::Monthly),
            Some("press@example.org"),
        ),
    ]
}

/// A service over the database in `dir` with fixed seeds and a clock
/// that the caller moves.
fn service(dir: &Path, now: &Arc<Mutex<DateTime<Utc>>>) -> Service {
    let mut svc = Service::open(config(dir)).unwrap();
    svc.set_seeds(mailbox::counting_seeds());
    let clock = Arc::clone(now);
    svc.set_clock(Box::new(move || *clock.lock().unwrap()));
    svc
}

fn start() -> Arc<Mutex<DateTime<Utc>>> {
    Arc::new(Mutex::new(
        DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc),
    ))
}

/// The games made once (their players' secrets are random), in a
/// database that each way of playing then copies.
fn made() -> PathBuf {
    let dir = temp_dir("made");
    let svc = service(&dir, &start());
    for (g, observer) in games() {
        let id = svc.new_game(&g, "test").unwrap().id;
        if let Some(a) = observer {
            svc.add_observer(&id, a, "test").unwrap();
        }
    }
    dir
}

/// The games of `base` played for two rounds of due turns, `together`
/// (one pass) or one game after another, and their mails sent; returns
/// the folder and the service.
fn played(base: &Path, name: &str, together: bool) -> (PathBuf, Service) {
    let dir = temp_dir(name);
    std::fs::copy(base.join("dervish.sqlite"), dir.join("dervish.sqlite")).unwrap();
    let now = start();
    let svc = service(&dir, &now);
    for _ in 0..2 {
        *now.lock().unwrap() += Duration::hours(80);
        if together {
            svc.play_due_turns().unwrap();
        } else {
            for id in svc.due_games().unwrap() {
                svc.play_turn(&id).unwrap();
            }
        }
    }
    let mut svc = svc;
    let sender = Sender::new(&svc.cfg.outgoing).unwrap();
    svc.flush(&sender).unwrap();
    (dir, svc)
}

/// Every row of `table`, each value written out, in the order stored.
fn rows(svc: &Service, table: &str) -> Vec<String> {
    let mut st = svc
        .conn
        .prepare(&format!("SELECT * FROM {table} ORDER BY rowid"))
        .unwrap();
    let n = st.column_count();
    st.query_map([], |row| {
        let mut line = Vec::new();
        for i in 0..n {
            let v: rusqlite::types::Value = row.get(i)?;
            line.push(format!("{v:?}"));
        }
        Ok(line.join(" | "))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The mails the file transport wrote: (file name, text), by name, each
/// MIME boundary (random for every message built) named by its place.
fn mails(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir.join("outbox"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let text = std::fs::read_to_string(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                boundaries_named(text),
            )
        })
        .collect();
    out.sort();
    out
}

fn boundaries_named(mut text: String) -> String {
    let found: Vec<String> = text
        .split("boundary=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next().map(str::to_string))
        .collect();
    for (i, b) in found.iter().enumerate() {
        text = text.replace(b.as_str(), &format!("BOUNDARY-{i}"));
    }
    text
}

#[test]
fn turns_worked_out_together_store_and_mail_what_one_by_one_does() {
    let base = made();
    let (dir_a, together) = played(&base, "together", true);
    let (dir_b, alone) = played(&base, "alone", false);
    let turns = rows(&together, "turns");
    // Six games, two rounds; the table battle game may stop at a battle.
    assert!(turns.len() >= 10, "turns played: {}", turns.len());
    for table in [
        "games",
        "turns",
        "players",
        "order_sets",
        "observers",
        "outbox",
        "audit",
        "battles",
    ] {
        let (a, b) = (rows(&together, table), rows(&alone, table));
        assert_eq!(a.len(), b.len(), "rows of {table}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "a row of {table}");
        }
    }
    let (a, b) = (mails(&dir_a), mails(&dir_b));
    let pictured = a.iter().filter(|(_, m)| m.contains("image/png")).count();
    assert!(pictured >= 10, "results mails with a drawn map: {pictured}");
    assert_eq!(a.len(), b.len(), "mails written");
    for ((na, ma), (nb, mb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        assert!(ma == mb, "mail {na} differs");
    }
    let _ = std::fs::remove_dir_all(base);
    let _ = std::fs::remove_dir_all(dir_a);
    let _ = std::fs::remove_dir_all(dir_b);
}
