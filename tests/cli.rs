//! The `dervish` binary as users meet it: maps, routes and data checks,
//! against golden files.

mod common;

use assert_cmd::Command;
use common::golden;
use common::process::{balance, configured, dervish, fresh_folder, new_game};
use common::text::says;

fn ok(args: &[&str]) -> String {
    let (out, err, code) = dervish(args);
    assert_eq!(code, 0, "dervish {args:?} failed: {err}");
    out
}

#[test]
fn overview_maps_of_both_scenarios() {
    for s in ["el-obeid", "khartoum"] {
        let out = ok(&["map", "--scenario", s]);
        assert!(
            out.lines().all(|l| l.chars().count() <= 100),
            "{s}: a line is wider than 100 columns"
        );
        golden(&format!("overview-{s}.txt"), &out);
    }
}

#[test]
fn sector_maps_around_places() {
    golden(
        "sector-khartoum-khartoum.txt",
        &ok(&["map", "--scenario", "khartoum", "--around", "Khartoum"]),
    );
    golden(
        "sector-el-obeid-el-obeid.txt",
        &ok(&[
            "map", "-s", "el-obeid", "--around", "El Obeid", "--radius", "4",
        ]),
    );
    golden(
        "sector-khartoum-souakim.txt",
        &ok(&[
            "map",
            "--scenario",
            "khartoum",
            "--around",
            "Suakin",
            "--radius",
            "4",
        ]),
    );
    golden(
        "sector-khartoum-2534.txt",
        &ok(&[
            "map",
            "--scenario",
            "khartoum",
            "--around",
            "2534",
            "--radius",
            "3",
            "--no-units",
        ]),
    );
}

#[test]
fn sector_maps_fit_in_an_email() {
    let out = ok(&["map", "--scenario", "khartoum", "--around", "Berber"]);
    assert!(out.lines().all(|l| l.chars().count() <= 100));
    assert!(out.is_ascii());
}

#[test]
fn routes_end_with_hexes_and_movement_points() {
    let out = ok(&["route", "--scenario", "khartoum", "Korti", "Metemmeh"]);
    golden("route-korti-metammeh.txt", &out);
    let last = out.lines().last().unwrap();
    assert!(last.ends_with("movement points"), "{last}");
    golden(
        "route-souakim-berber.txt",
        &ok(&["route", "--scenario", "khartoum", "Souakim", "Berber"]),
    );
}

#[test]
fn unknown_places_are_refused_with_a_suggestion() {
    let (_, err, code) = dervish(&["route", "--scenario", "khartoum", "Metemah", "Berber"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("no place called Metemah; did you mean"),
        "{err}"
    );
    let (_, err, code) = dervish(&["map", "--scenario", "omdurman"]);
    assert_ne!(code, 0);
    assert!(err.contains("no scenario called omdurman"), "{err}");
}

#[test]
fn the_shipped_data_checks_clean() {
    let out = ok(&["scenario", "check"]);
    assert!(out.starts_with("ok: 6 files checked"), "{out}");
    let out = ok(&["scenario", "list"]);
    assert!(out.contains("el-obeid") && out.contains("khartoum"));
}

/// The Mahdist bot plays in a simulation: the same seed, the same bytes,
/// its umpire's notes printed with the log, and the game played to its end.
#[test]
fn simulate_with_the_mahdist_bot() {
    let args = [
        "simulate",
        "--scenario",
        "el-obeid",
        "--seed",
        "3",
        "--mahdist",
        "bot",
    ];
    let a = ok(&args);
    assert_eq!(a, ok(&args));
    says(
        &a,
        &["umpire's notes (the Mahdist reaction rolls)", "; 2D6 "],
    );
    assert!(
        a.contains("Result: "),
        "{}",
        &a[a.len().saturating_sub(300)..]
    );
    // Programmed players on both sides, each persona of the Egyptian.
    for persona in ["historical", "competent"] {
        let both = ok(&[
            "simulate",
            "--scenario",
            "khartoum",
            "--seed",
            "4",
            "--egyptian",
            persona,
            "--mahdist",
            "bot",
        ]);
        assert!(both.contains("the Egyptian player's reasons"), "{both}");
        assert!(both.contains("Result: "));
    }
    let (_, err, code) = dervish(&["simulate", "--mahdist", "genius"]);
    assert_ne!(code, 0);
    assert!(err.contains("simple") && err.contains("bot"), "{err}");
}

/// A game against the programmed Mahdist player from the command line:
/// `game show` names it, `game log` holds its umpire's notes.
#[test]
fn a_game_against_the_bot_and_its_umpires_notes_in_the_log() {
    // The game opens at the first month (no set-up step): the bot's orders
    // are made at once.
    let (dir, config) = config_file("bot", "[turns]\nsetup_hours = 0\n");
    let config = config.as_str();
    ok(&configured(
        config,
        &new_game("b1", "gordon@example.org", "bot"),
    ));
    let show = ok(&["--config", config, "game", "show", "b1"]);
    assert!(show.contains("(programmed player: mahdist)"), "{show}");
    assert!(show.contains("orders v1 READY"), "{show}");
    let log = ok(&["--config", config, "game", "log", "b1"]);
    assert!(log.contains("bot  umpire's notes, turn 1"), "{log}");
    assert!(log.contains("; 2D6 "), "{log}");
    let (_, err, code) = dervish(&["--config", config, "game", "log", "nope"]);
    assert_ne!(code, 0);
    assert!(err.contains("nope"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dervish balance` prints the report and writes it with its chart.
#[test]
fn balance_writes_a_report_and_a_chart() {
    let dir = std::env::temp_dir().join(format!("dervish-balance-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = balance("el-obeid", "12", "40");
    args.extend(["--out", dir.to_str().unwrap()]);
    let out = ok(&args);
    says(
        &out,
        &[
            "# Balance: ",
            "--battle-runs 40 ",
            "## Battles",
            "| British infantry charged by as many ansar in the open | 40 | ",
            "| El Obeid | January 1883 |",
        ],
    );
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert_eq!(report, out);
    let svg = std::fs::read_to_string(dir.join("falls.svg")).unwrap();
    assert!(svg.starts_with("<svg "));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_prints_the_same_bytes_twice() {
    let a = ok(&[
        "simulate",
        "--scenario",
        "khartoum",
        "--seed",
        "5",
        "--months",
        "4",
    ]);
    let b = ok(&[
        "simulate",
        "--scenario",
        "khartoum",
        "--seed",
        "5",
        "--months",
        "4",
    ]);
    assert_eq!(a, b);
    assert!(a.contains("State digest: "));
    assert!(a.contains("roll 2D6 for march"), "every roll is in the log");
    let c = ok(&[
        "simulate",
        "--scenario",
        "khartoum",
        "--seed",
        "6",
        "--months",
        "4",
    ]);
    assert_ne!(a, c, "another seed, other dice");
    let full = ok(&["simulate", "--scenario", "el-obeid", "--seed", "2"]);
    assert!(
        full.contains("Result: "),
        "{}",
        &full[full.len().saturating_sub(300)..]
    );
}

#[test]
fn orders_check_prints_the_receipt_and_exits_zero_only_without_errors() {
    let good = ok(&[
        "orders",
        "check",
        "--side",
        "egyptian",
        "tests/orders/01-plain-egyptian-khartoum.txt",
    ]);
    assert!(
        good.starts_with("=== Dervish orders: Egyptian player"),
        "{good}"
    );
    assert!(good.contains("0 errors"), "{good}");
    let (out, _, code) = dervish(&[
        "orders",
        "check",
        "--side",
        "egyptian",
        "tests/orders/11-typos.txt",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("NOT UNDERSTOOD"), "{out}");
    let el_obeid = ok(&[
        "orders",
        "check",
        "--scenario",
        "el-obeid",
        "--side",
        "mahdist",
        "tests/orders/14-el-obeid-mahdist.txt",
    ]);
    assert!(
        el_obeid.contains("Mahdist player, October 1882"),
        "{el_obeid}"
    );
}

#[test]
fn orders_over_the_size_limit_are_refused_whole() {
    let dir = std::env::temp_dir().join(format!("dervish-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.txt");
    std::fs::write(&big, "READY\n".repeat(20_000)).unwrap();
    let (out, err, code) = dervish(&[
        "orders",
        "check",
        "--side",
        "egyptian",
        big.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("64 KiB"), "{err}");
    let lines = dir.join("lines.txt");
    std::fs::write(&lines, "READY\n".repeat(600)).unwrap();
    let (_, err, code) = dervish(&[
        "orders",
        "check",
        "--side",
        "egyptian",
        lines.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("at most 500 are read"), "{err}");
    let canonical = ok(&[
        "orders",
        "canonical",
        "tests/orders/12-comments-mixed-case.txt",
    ]);
    assert!(canonical.contains("MARCH "), "{canonical}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_once_with_an_unreachable_imap_server_says_so_and_fails() {
    let dir = fresh_folder("cli-imap");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let config = dir.join("dervish.toml");
    std::fs::write(
        &config,
        format!(
            "database = \"{}\"\n[outgoing]\nkind = \"file\"\ndir = \"{}\"\n[inbox]\nkind = \"imap\"\n[inbox.imap]\nhost = \"127.0.0.1\"\nport = {port}\nsecurity = \"none\"\nusername = \"game\"\npassword_env = \"DERVISH_CLI_TEST_PW\"\ntimeout_secs = 2\n",
            dir.join("db.sqlite").display(),
            dir.join("outbox").display()
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();

    // No password: refused at once, naming the variable.
    let (_, err, code) = dervish(&["--config", config, "run", "--once"]);
    assert_ne!(code, 0);
    assert!(err.contains("DERVISH_CLI_TEST_PW"), "{err}");

    // With it, the pass runs (turns, outbox) and the inbox error is told.
    let out = Command::cargo_bin("dervish")
        .unwrap()
        .args(["--config", config, "run", "--once"])
        .env("DERVISH_CLI_TEST_PW", "pw")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the inbox could not be read") && err.contains("cannot connect"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("0 messages read"));

    // check-mail says which half fails.
    let out = Command::cargo_bin("dervish")
        .unwrap()
        .args(["--config", config, "check-mail"])
        .env("DERVISH_CLI_TEST_PW", "pw")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("inbox: FAILED") && said.contains("cannot connect"),
        "{said}"
    );
    assert!(said.contains("outgoing: ok: mail is written to"), "{said}");

    // The embedded default checks clean.
    let plain = dir.join("plain.toml");
    std::fs::write(
        &plain,
        format!(
            "[inbox]\nmaildir = \"{}\"\n[outgoing]\nkind = \"file\"\ndir = \"{}\"\n",
            dir.join("inbox").display(),
            dir.join("out").display()
        ),
    )
    .unwrap();
    let (said, err, code) = dervish(&["--config", plain.to_str().unwrap(), "check-mail"]);
    assert_eq!(code, 0, "{said}{err}");
    assert!(said.contains("inbox: ok: Maildir"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `dervish map | head` and the like: when the reader of standard output
/// has gone before the command writes, it exits quietly, without a panic.
#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    // The reading end is closed before the command starts.
    drop(reader);
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("dervish"))
        .args(["map", "--scenario", "khartoum"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err, "", "nothing is said");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// `dervish submit` as a mail server's pipe: 0 for every message accepted
/// (a stranger's mail ignored included, or kept in the spool), 75
/// (EX_TEMPFAIL) when it cannot be kept, so the mail server keeps the
/// message and retries.
#[test]
fn submit_exits_0_for_a_handled_message_and_75_when_the_service_is_busy() {
    let dir = fresh_folder("cli-submit");
    let db = dir.join("db.sqlite");
    let config = dir.join("dervish.toml");
    std::fs::write(
        &config,
        format!(
            "database = \"{}\"\n[outgoing]\nkind = \"file\"\ndir = \"{}\"\n",
            db.display(),
            dir.join("outbox").display()
        ),
    )
    .unwrap();
    let mail = dir.join("stranger.eml");
    std::fs::write(
        &mail,
        "From: stranger@example.net\r\nTo: dervish@example.org\r\nSubject: hello\r\nMessage-ID: <s1@example.net>\r\n\r\nhello\r\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let mail = mail.to_str().unwrap();
    // `submit` makes no database: the game master's first command does.
    let (out, err, code) = dervish(&["--config", config, "submit", mail]);
    assert_eq!(code, 75, "{out}{err}");
    assert!(err.contains("there is no database at"), "{err}");
    ok(&["--config", config, "game", "list"]);
    let (out, err, code) = dervish(&["--config", config, "submit", mail]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("s1@example.net: ignored"), "{out}");
    // From standard input too.
    let out = Command::cargo_bin("dervish")
        .unwrap()
        .args(["--config", config, "submit", "-"])
        .write_stdin(
            "From: other@example.net\r\nSubject: hi\r\nMessage-ID: <s2@example.net>\r\n\r\nhi\r\n",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // While another dervish holds the database and the spool cannot be
    // written (a file stands where its folder should be): try again later.
    let held = dervish::service::lock(&db).unwrap();
    let _ = std::fs::remove_dir_all(dir.join("db.spool"));
    std::fs::write(dir.join("db.spool"), b"in the way").unwrap();
    let (out, err, code) = dervish(&["--config", config, "submit", mail]);
    assert_eq!(code, 75, "{out}{err}");
    assert!(err.contains("try again later"), "{err}");
    drop(held);
    // The database cannot be opened: the mail server keeps the message
    // (75), and the spool does not keep a second copy.
    std::fs::remove_file(dir.join("db.spool")).unwrap();
    std::fs::rename(&db, dir.join("db.moved")).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let (out, err, code) = dervish(&["--config", config, "submit", mail]);
    assert_eq!(code, 75, "{out}{err}");
    assert!(err.contains("cannot be used"), "{err}");
    assert!(!dir.join("db.spool").join("new").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// While the daemon holds the database, the commands that only read work,
/// `submit` spools the message for the daemon (exit 0), and so do the
/// game master's commands that change a game.
#[test]
fn reading_commands_and_submit_work_while_the_daemon_runs() {
    let (dir, config) = config_file("busy", "");
    let config = config.as_str();
    let db = dir.join("db.sqlite");
    ok(&configured(
        config,
        &new_game("g1", "gordon@example.org", "mahdi@example.org"),
    ));
    // The set-up step (2.1): the Egyptian's part, then the Mahdist's; then
    // the first month.
    for _ in 0..3 {
        ok(&["--config", config, "game", "process", "g1"]);
    }
    let held = dervish::service::lock(&db).unwrap();
    reading_commands_work(config, &db);
    // The game master's commands that change a game work too: the lock
    // keeps daemons apart, not short commands.
    let paused = ok(&["--config", config, "game", "pause", "g1"]);
    assert!(paused.contains("g1 paused"), "{paused}");
    ok(&["--config", config, "game", "resume", "g1"]);
    submitted_mail_waits_in_the_spool(&dir, config, held);
    // The game master sees the strangers' mail and why it was not
    // answered, also while the daemon runs.
    let held = dervish::service::lock(&db).unwrap();
    let listed = ok(&["--config", config, "mail", "list", "--ignored"]);
    assert!(
        listed.contains("busy4@example.net from stranger@example.net"),
        "{listed}"
    );
    assert!(listed.contains("ignored: "), "{listed}");
    let one = ok(&["--config", config, "mail", "list", "--limit", "1"]);
    assert_eq!(one.lines().count(), 2, "{one}");
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

/// verify (every month form the orders take), replay, game list and game
/// show of game g1, its database held by another: a running game, then a
/// finished one, which has no open turn (no deadline and no seed shown).
fn reading_commands_work(config: &str, db: &std::path::Path) {
    let verified = ok(&[
        "--config", config, "verify", "--game", "g1", "--month", "1884-02",
    ]);
    assert!(verified.contains("byte for byte"), "{verified}");
    for month in ["February 1884", "Feb 1884"] {
        let v = ok(&[
            "--config", config, "verify", "--game", "g1", "--month", month,
        ]);
        assert_eq!(v, verified, "{month}");
    }
    let (out, err, code) = dervish(&[
        "--config", config, "verify", "--game", "g1", "--month", "Febtober",
    ]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("is not a month"), "{err}");
    let replayed = ok(&["--config", config, "replay", "--game", "g1"]);
    assert!(replayed.contains("no drift"), "{replayed}");
    let list = ok(&["--config", config, "game", "list"]);
    assert!(list.contains("g1"), "{list}");
    let show = ok(&["--config", config, "game", "show", "g1"]);
    assert!(show.contains("g1"), "{show}");
    assert!(show.contains("Seed fingerprint of the open turn"), "{show}");
    let set = |sql: &str| {
        rusqlite::Connection::open(db)
            .unwrap()
            .execute(sql, [])
            .unwrap();
    };
    set(
        "UPDATE games SET status = 'finished', result = 'Mahdist victory: Khartoum fell' WHERE id = 'g1'",
    );
    let show = ok(&["--config", config, "game", "show", "g1"]);
    assert!(
        show.contains("The game is over. Result: Mahdist victory: Khartoum fell"),
        "{show}"
    );
    assert!(
        !show.contains("deadline") && !show.contains("Seed fingerprint"),
        "{show}"
    );
    set("UPDATE games SET status = 'running', result = NULL WHERE id = 'g1'");
}

/// A stranger's mail `busy{n}` given to `dervish submit -`.
fn submit_stranger(config: &str, n: u32) -> std::process::Output {
    Command::cargo_bin("dervish")
        .unwrap()
        .args(["--config", config, "submit", "-"])
        .write_stdin(format!(
            "From: stranger@example.net\r\nSubject: hello\r\nMessage-ID: <busy{n}@example.net>\r\n\r\nhello\r\n"
        ))
        .output()
        .unwrap()
}

/// Two messages while the daemon (`held`) runs: spooled, not lost, and
/// taken in by its next pass; a message spooled just as the holder lets
/// go is read by the next process that takes the database, here a plain
/// `submit`.
fn submitted_mail_waits_in_the_spool(
    dir: &std::path::Path,
    config: &str,
    held: dervish::service::Lock,
) {
    let db = dir.join("db.sqlite");
    for n in 1..=2 {
        let out = submit_stranger(config, n);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("queued for the running dervish"), "{text}");
    }
    let spooled = std::fs::read_dir(dir.join("db.spool").join("new"))
        .unwrap()
        .count();
    assert_eq!(spooled, 2);
    // The daemon's pass takes the spool in.
    drop(held);
    let out = ok(&["--config", config, "run", "--once"]);
    assert!(out.starts_with("2 messages read"), "{out}");
    let left = std::fs::read_dir(dir.join("db.spool").join("new"))
        .unwrap()
        .count();
    assert_eq!(left, 0);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let outcomes: Vec<String> = conn
        .prepare("SELECT outcome FROM messages WHERE message_id LIKE 'busy%' ORDER BY message_id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    assert!(
        outcomes.iter().all(|o| o.starts_with("ignored")),
        "{outcomes:?}"
    );
    let held = dervish::service::lock(&db).unwrap();
    assert_eq!(submit_stranger(config, 3).status.code(), Some(0));
    drop(held);
    assert_eq!(submit_stranger(config, 4).status.code(), Some(0));
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM messages WHERE message_id LIKE 'busy%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 4);
}

/// The lock follows the database's real path: a symbolic link or another
/// spelling of the path does not let a second dervish in.
#[cfg(unix)]
#[test]
fn the_lock_holds_for_every_name_of_the_database() {
    let dir = std::env::temp_dir().join(format!("dervish-cli-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let db = dir.join("db.sqlite");
    std::fs::write(&db, b"").unwrap();
    let link = dir.join("link.sqlite");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let _held = dervish::service::lock(&db).unwrap();
    assert!(dervish::service::lock(&link).is_err(), "through a link");
    let other = dir.join("sub").join("..").join("db.sqlite");
    assert!(dervish::service::lock(&other).is_err(), "through sub/..");
    drop(_held);
    assert!(dervish::service::lock(&link).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --once` (for cron) exits non-zero when mail could not be sent, so
/// cron tells the game master.
#[test]
fn run_once_fails_when_mail_could_not_be_sent() {
    let dir = fresh_folder("cli-unsent");
    let config = dir.join("dervish.toml");
    std::fs::write(
        &config,
        format!(
            "database = \"{}\"\n[outgoing]\nkind = \"sendmail\"\ncommand = \"/bin/false\"\n[inbox]\nmaildir = \"{}\"\n",
            dir.join("db.sqlite").display(),
            dir.join("inbox").display()
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let new = [&["game", "new"][..], &common::process::PLAYERS].concat();
    let (out, err, code) = dervish(&configured(config, &new));
    assert_eq!(code, 0, "{out}{err}");
    let (out, err, code) = dervish(&["--config", config, "run", "--once"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("could not be sent"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The optional ambush rule from the command line: `game new --ambushes`
/// makes a game that says so (`game show`, the welcome mail), and
/// `simulate --ambushes` plays it, every roll in the log.
#[test]
fn the_ambush_rule_from_the_command_line() {
    let (dir, config) = config_file("ambush", "");
    let config = config.as_str();
    for (id, extra) in [("a1", Some("--ambushes")), ("a2", None)] {
        let mut args = vec![
            "--config",
            config,
            "game",
            "new",
            "--id",
            id,
            "--egyptian",
            "gordon@example.org",
            "--mahdist",
            "bot",
        ];
        args.extend(extra);
        ok(&args);
    }
    let show = ok(&["--config", config, "game", "show", "a1"]);
    assert!(show.contains("Optional rules: ambushes"), "{show}");
    let show = ok(&["--config", config, "game", "show", "a2"]);
    assert!(!show.contains("Optional rules"), "{show}");
    ok(&["--config", config, "run", "--once"]);
    let mut welcomes = Vec::new();
    for e in std::fs::read_dir(dir.join("outbox")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
        if text.contains("welcome") {
            welcomes.push(text.replace("\r\n", "\n").replace('\n', " "));
        }
    }
    let said = |game: &str| {
        welcomes
            .iter()
            .filter(|w| w.contains(&format!("[dervish {game}]")))
            .any(|w| w.contains("optional ambush rule"))
    };
    assert_eq!(welcomes.len(), 2, "two welcome mails");
    assert!(said("a1"));
    assert!(!said("a2"));
    // simulate: the rule plays, and without it no ambush is rolled.
    let sim = |extra: Option<&str>| {
        let mut args = vec![
            "simulate",
            "--scenario",
            "khartoum",
            "--egyptian",
            "competent",
            "--mahdist",
            "bot",
            "--seed",
            "6",
        ];
        args.extend(extra);
        ok(&args)
    };
    let with = sim(Some("--ambushes"));
    assert!(with.contains("D100 for an ambush at"), "no ambush roll");
    assert!(!sim(None).contains("ambush"));
    let report = ok(&[&balance("khartoum", "4", "0")[..], &["--ambushes"]].concat());
    assert!(!report.contains("## Typical battles"), "{report}");
    assert!(report.contains("--mahdist bot --ambushes"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--data DIR` takes a copy of the shipped `scenarios/` folder as it is:
/// the reaction table, the programmed players' data and the history are
/// read from it, and a broken one is named.
#[test]
fn a_copy_of_the_scenarios_folder_is_a_data_folder() {
    let dir = fresh_folder("data-copy");
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for e in std::fs::read_dir(&shipped).unwrap() {
        let e = e.unwrap();
        if e.path().extension().is_some_and(|x| x == "ron") {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
    }
    let data = dir.to_str().unwrap();
    let balance = |extra: &[&str]| {
        let mut args = vec!["--data", data];
        args.extend(balance("khartoum", "3", "0"));
        args.extend(extra);
        dervish(&args)
    };
    let (out, err, code) = balance(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| Khartoum | January 1885 |"), "{out}");
    assert!(
        out.contains(&format!("dervish --data {data} balance ")),
        "{out}"
    );
    // The folder's history is the one compared with.
    let history = std::fs::read_to_string(dir.join("history.ron")).unwrap();
    std::fs::write(
        dir.join("history.ron"),
        history.replace(
            "(scenario: \"khartoum\", town: \"Khartoum\", fell: Some(\"1885-01\"))",
            "(scenario: \"khartoum\", town: \"Khartoum\", fell: Some(\"1884-12\"))",
        ),
    )
    .unwrap();
    let (out, err, code) = balance(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| Khartoum | December 1884 |"), "{out}");
    // The folder's Egyptian expedition is the one played: a goal off the
    // map is refused, named, before the run.
    let opponents = std::fs::read_to_string(dir.join("opponents.ron")).unwrap();
    assert!(opponents.contains("deliver_to: \"Khartoum\""));
    std::fs::write(
        dir.join("opponents.ron"),
        opponents.replace("deliver_to: \"Khartoum\"", "deliver_to: \"Atlantis\""),
    )
    .unwrap();
    let (_, err, code) = balance(&[]);
    assert_ne!(code, 0);
    assert!(err.contains("\"Atlantis\""), "{err}");
    // A broken opponents file or reaction table is named.
    std::fs::write(dir.join("opponents.ron"), "Opponents(sight: 3").unwrap();
    let (_, err, code) = balance(&[]);
    assert_ne!(code, 0);
    assert!(err.contains("opponents.ron"), "{err}");
    std::fs::write(dir.join("reactions.ron"), "Reactions(").unwrap();
    let (_, err, code) = balance(&[]);
    assert_ne!(code, 0);
    assert!(err.contains("reactions.ron"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn map_out_draws_an_svg_or_a_png_and_refuses_other_files() {
    let dir = std::env::temp_dir().join(format!("dervish-map-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("theatre.svg");
    let png = dir.join("khartoum.png");
    ok(&["map", "--out", svg.to_str().unwrap(), "--play", "1"]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.contains("data-hex=\"1942\""));
    ok(&[
        "map",
        "--around",
        "Khartoum",
        "--radius",
        "4",
        "--width",
        "500",
        "--out",
        png.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (_, err, code) = dervish(&["map", "--out", dir.join("map.jpg").to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("name the file .svg or .png"), "{err}");
    let (_, _, code) = dervish(&["map", "--play", "2"]);
    assert_ne!(code, 0, "--play draws, so it needs --out");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `dervish map --game ID` before the first month is played: the default
/// placement during the set-up step, labelled as such (2.1: "The
/// Egyptian player sets up first"), then the placed set-up.
#[test]
fn a_game_map_before_the_first_month_shows_the_set_up() {
    let (dir, config) = config_file("setup-map", "");
    let config = config.as_str();
    ok(&configured(
        config,
        &new_game("g1", "gordon@example.org", "mahdi@example.org"),
    ));
    let (_, err, code) = dervish(&[
        "--config", config, "map", "--game", "g1", "--month", "1884-02",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("no month played yet; without --month"),
        "{err}"
    );
    let before = ok(&["--config", config, "map", "--game", "g1"]);
    assert!(
        before.contains("this is the default placement (2.1)"),
        "{before}"
    );
    assert!(before.contains("Khartoum"), "{before}");
    let svg = dir.join("setup.svg");
    ok(&[
        "--config",
        config,
        "map",
        "--game",
        "g1",
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // The set-up placed (both sides' parts) and the first month open.
    for _ in 0..2 {
        ok(&["--config", config, "game", "process", "g1"]);
    }
    let placed = ok(&["--config", config, "map", "--game", "g1"]);
    assert!(!placed.contains("default placement"), "{placed}");
    assert!(placed.contains("Khartoum"), "{placed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh folder `dervish-cli-NAME-PID` and a configuration file in it
/// (a database, a file outbox and a Maildir inbox there, then `extra`
/// TOML): the folder and the file's path.
fn config_file(name: &str, extra: &str) -> (std::path::PathBuf, String) {
    let dir = fresh_folder(&format!("cli-{name}"));
    let config = common::process::config_file(&dir, &dir.join("db.sqlite"), extra);
    let path = config.to_string_lossy().into_owned();
    (dir, path)
}
