//! `dervish submit -` as a mail server's pipe runs it (Postfix pipe(8), a
//! `.forward`): sendmail's exit statuses. 0: the message is taken. 75
//! (`EX_TEMPFAIL`): anything that is the host's fault (the configuration,
//! the arguments, the database), so the mail server keeps the message and
//! tries again instead of bouncing it, secret and all. Never 1 or 2.

use std::path::{Path, PathBuf};

mod common;
use common::process::{configured, dervish_in, new_game, said};

const EX_TEMPFAIL: i32 = 75;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dervish-pipe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mail(n: u32) -> String {
    format!(
        "From: stranger@example.net\r\nTo: dervish@example.org\r\nSubject: hello\r\nMessage-ID: <pipe{n}@example.net>\r\n\r\nhello\r\n"
    )
}

/// A configuration in `dir` naming its database relatively, and a
/// database made there by `game new` run from another folder.
fn host(dir: &Path) -> PathBuf {
    let config = dir.join("dervish.toml");
    std::fs::write(
        &config,
        "database = \"db/dervish.sqlite\"\n[outgoing]\nkind = \"file\"\ndir = \"outbox\"\n",
    )
    .unwrap();
    let made = dervish_in(
        &std::env::temp_dir(),
        &configured(
            config.to_str().unwrap(),
            &new_game("g1", "gordon@example.org", "mahdi@example.org"),
        ),
        "",
    );
    assert_eq!(made.status.code(), Some(0), "{}", said(&made));
    assert!(dir.join("db/dervish.sqlite").is_file());
    config
}

fn spooled(dir: &Path) -> usize {
    ["new", "cur"]
        .iter()
        .map(|sub| {
            std::fs::read_dir(dir.join("db/dervish.spool").join(sub))
                .map(|d| d.count())
                .unwrap_or(0)
        })
        .sum()
}

/// "Relative paths in the config are resolved against the config file's
/// folder": piped from the mail server's own folder, the message reaches
/// the game's database, and "a piped message is removed from the spool
/// once it is stored".
#[test]
fn a_piped_message_is_stored_in_the_configured_database_and_leaves_the_spool() {
    let dir = temp_dir("stored");
    let config = host(&dir);
    let elsewhere = temp_dir("stored-cwd");
    let out = dervish_in(
        &elsewhere,
        &["--config", config.to_str().unwrap(), "submit", "-"],
        &mail(1),
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("pipe1@example.net: ignored"),
        "{}",
        said(&out)
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert_eq!(spooled(&dir), 0);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&elsewhere);
}

/// A configuration that is missing, unreadable as TOML or misspelt: 75.
#[test]
fn configuration_errors_exit_75() {
    let dir = temp_dir("config");
    let missing = dir.join("nothing.toml");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "database = \"unterminated\n").unwrap();
    let misspelt = dir.join("misspelt.toml");
    std::fs::write(&misspelt, "databse = \"db.sqlite\"\n").unwrap();
    for (config, what) in [
        (&missing, "nothing.toml"),
        (&bad, "bad.toml"),
        (&misspelt, "databse"),
    ] {
        let out = dervish_in(
            &dir,
            &["--config", config.to_str().unwrap(), "submit", "-"],
            &mail(2),
        );
        assert_eq!(out.status.code(), Some(EX_TEMPFAIL), "{}", said(&out));
        assert!(said(&out).contains(what), "{}", said(&out));
        assert!(said(&out).contains("try again later"), "{}", said(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad arguments (an unknown option, no file, a file that cannot be read):
/// 75, not clap's 2; `--help` is no error.
#[test]
fn argument_errors_exit_75() {
    let dir = temp_dir("args");
    let config = host(&dir);
    let config = config.to_str().unwrap();
    for args in [
        vec!["--config", config, "submit", "--bogus", "-"],
        vec!["--config", config, "submit"],
        vec!["--config", config, "submit", "/nonexistent/mail.eml"],
        vec!["--bogus", "--config", config, "submit", "-"],
    ] {
        let out = dervish_in(&dir, &args, &mail(3));
        assert_eq!(
            out.status.code(),
            Some(EX_TEMPFAIL),
            "{args:?}: {}",
            said(&out)
        );
    }
    let help = dervish_in(&dir, &["submit", "--help"], "");
    assert_eq!(help.status.code(), Some(0), "{}", said(&help));
    // Other commands keep clap's usage status.
    let other = dervish_in(&dir, &["game", "--bogus"], "");
    assert_eq!(other.status.code(), Some(2), "{}", said(&other));
    let _ = std::fs::remove_dir_all(&dir);
}

/// "`submit` never creates a new database": none at the configured path
/// is 75 with the path named, and nothing is made there.
#[test]
fn no_database_exits_75_naming_the_path_and_makes_none() {
    let dir = temp_dir("nodb");
    let config = dir.join("dervish.toml");
    std::fs::write(&config, "database = \"games/dervish.sqlite\"\n").unwrap();
    let out = dervish_in(
        &dir,
        &["--config", config.to_str().unwrap(), "submit", "-"],
        &mail(4),
    );
    assert_eq!(out.status.code(), Some(EX_TEMPFAIL), "{}", said(&out));
    let path = dir.join("games/dervish.sqlite");
    assert!(
        said(&out).contains(&format!("no database at {}", path.display())),
        "{}",
        said(&out)
    );
    assert!(!dir.join("games").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A database that cannot be used (a damaged file; a folder where the
/// file should be): 75, and the message is not left in the spool, since
/// the mail server keeps it.
#[test]
fn an_unusable_database_exits_75_and_keeps_nothing_twice() {
    let dir = temp_dir("unusable");
    let config = host(&dir);
    let config = config.to_str().unwrap();
    let db = dir.join("db/dervish.sqlite");
    for f in ["dervish.sqlite", "dervish.sqlite-wal", "dervish.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.join("db").join(f));
    }
    std::fs::write(
        &db,
        "this is not a database, but something else entirely. ".repeat(100),
    )
    .unwrap();
    let out = dervish_in(&dir, &["--config", config, "submit", "-"], &mail(5));
    assert_eq!(out.status.code(), Some(EX_TEMPFAIL), "{}", said(&out));
    assert!(said(&out).contains("cannot be used"), "{}", said(&out));
    assert_eq!(spooled(&dir), 0);
    std::fs::remove_file(&db).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let out = dervish_in(&dir, &["--config", config, "submit", "-"], &mail(6));
    assert_eq!(out.status.code(), Some(EX_TEMPFAIL), "{}", said(&out));
    assert!(said(&out).contains("not a file"), "{}", said(&out));
    assert_eq!(spooled(&dir), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
