//! One daemon a database, whatever the path names it by; the game
//! master's commands beside it.
//!
//! "The lock holds whatever the path: ... a hard link, symlink, bind mount
//! or `../` spelling all meet the same lock." "`game ...` and `gm
//! password` work while the daemon runs (the lock keeps daemons apart, not
//! short commands)." "Cron's `run --once` beside a running daemon exits 0
//! with a one-line note."

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::process::{config_file_named, configured, dervish_in, new_game, said};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dervish-lock-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `dervish ARGS` in the crate's folder with `stdin` piped in.
fn dervish(args: &[&str], stdin: &str) -> Output {
    dervish_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, stdin)
}

/// A configuration in `dir` for the database at `db`.
fn config(dir: &Path, name: &str, db: &Path) -> String {
    config_file_named(dir, name, db, "[run]\npoll_seconds = 1\n")
        .to_string_lossy()
        .into_owned()
}

/// A database made by `game new`, and the names of it: a hard link in
/// another folder, a symbolic link, and a `../` spelling.
fn database_and_names(dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let db = dir.join("db.sqlite");
    let config = config(dir, "main.toml", &db);
    let new = new_game("g1", "gordon@example.org", "mahdi@example.org");
    let made = dervish(&configured(&config, &new), "");
    assert_eq!(made.status.code(), Some(0), "{}", said(&made));
    std::fs::create_dir_all(dir.join("other")).unwrap();
    let hard = dir.join("other").join("hard.sqlite");
    std::fs::hard_link(&db, &hard).unwrap();
    let soft = dir.join("other").join("soft.sqlite");
    std::os::unix::fs::symlink(&db, &soft).unwrap();
    let dotted = dir.join("other").join("..").join("db.sqlite");
    (db, vec![hard, soft, dotted])
}

/// While one process holds the lock on the database, another cannot take
/// it by any name of the file, in this process or through `run`.
#[test]
fn a_hard_link_a_symbolic_link_and_dots_meet_the_same_lock() {
    let dir = temp_dir("names");
    let (db, names) = database_and_names(&dir);
    let held = dervish::service::lock(&db).unwrap();
    for (n, name) in names.iter().enumerate() {
        let err = dervish::service::lock(name).unwrap_err();
        assert!(
            matches!(err, dervish::service::LockError::Held { .. }),
            "{}: {err}",
            name.display()
        );
        let config = config(&dir, &format!("name{n}.toml"), name);
        let second = dervish(&["--config", &config, "run"], "");
        assert_eq!(second.status.code(), Some(1), "{}", said(&second));
        assert!(
            said(&second).contains("another dervish is running"),
            "{}",
            said(&second)
        );
        // Cron's pass beside the daemon: a note, and exit 0.
        let cron = dervish(&["--config", &config, "run", "--once"], "");
        assert_eq!(cron.status.code(), Some(0), "{}", said(&cron));
        let note = String::from_utf8_lossy(&cron.stdout).into_owned();
        assert_eq!(note.lines().count(), 1, "{note}");
        assert!(note.contains("this pass is left to it"), "{note}");
    }
    drop(held);
    // Let go: every name takes it again, one at a time.
    for name in &names {
        drop(dervish::service::lock(name).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits until a daemon holding `db` has made its first pass (asking for
/// the lock here could keep the daemon from starting).
fn wait_for_daemon(db: &Path, daemon: &mut Child) {
    let start = Instant::now();
    let passed = || {
        let conn = rusqlite::Connection::open(db).ok()?;
        conn.query_row(
            "SELECT value FROM service WHERE key = 'last_pass'",
            [],
            |r| r.get::<_, String>(0),
        )
        .ok()
    };
    while passed().is_none() {
        assert!(daemon.try_wait().unwrap().is_none(), "the daemon stopped");
        assert!(start.elapsed() < Duration::from_secs(60), "no daemon");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// With `dervish run` going, a second daemon through a hard link is
/// refused, and the game master's commands that change games work.
#[test]
fn the_game_master_works_beside_a_running_daemon() {
    let dir = temp_dir("gm");
    let (db, names) = database_and_names(&dir);
    let main = config(&dir, "main.toml", &db);
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .args(["--config", &main, "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_daemon(&db, &mut daemon);
    let hard = config(&dir, "hard.toml", &names[0]);
    let second = dervish(&["--config", &hard, "run"], "");
    assert_eq!(second.status.code(), Some(1), "{}", said(&second));
    let gm = |args: &[&str], stdin: &str| {
        let mut all = vec!["--config", main.as_str()];
        all.extend_from_slice(args);
        let out = dervish(&all, stdin);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", said(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    gm(&new_game("g2", "hicks@example.org", "bot"), "");
    gm(&["game", "extend", "g1", "24"], "");
    gm(&["game", "pause", "g1"], "");
    gm(&["game", "process", "g2"], "");
    let said = gm(&["gm", "password"], "a long enough password\n");
    assert!(said.contains("password set"), "{said}");
    let list = gm(&["game", "list"], "");
    assert!(list.contains("g2"), "{list}");
    assert!(
        list.lines()
            .any(|l| l.starts_with("g1") && l.contains("paused")),
        "{list}"
    );
    // The daemon is still there, and stops on SIGTERM.
    assert!(daemon.try_wait().unwrap().is_none(), "the daemon stopped");
    let killed = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = daemon.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}
