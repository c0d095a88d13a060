//! A mail of any shape costs bounded memory: the `dervish` binary, run
//! under a virtual memory limit (`ulimit -v`), takes in each hostile mail
//! of issue 14 (nested HTML, 50 MB, a 1 MB header) and gives it one
//! outcome. The limit is 256 MiB: `run
//! --once` needs under 40 MiB of address space for an ordinary pass and
//! 55 to 70 MiB (by build profile) for the nested HTML from a player,
//! while converting that HTML as it came, before it was bounded, took
//! 358 MB (and minutes).

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use dervish::mail::maildir::Maildir;
use dervish::store;

#[path = "common/process.rs"]
mod process;

/// The limit, in KiB as `ulimit -v` takes it.
const LIMIT_KIB: u64 = 256 * 1024;

fn dervish() -> &'static str {
    env!("CARGO_BIN_EXE_dervish")
}

fn setup(name: &str) -> (PathBuf, PathBuf) {
    let dir = process::fresh_folder(&format!("bounded-{name}"));
    let config = process::config_file(&dir, &dir.join("db.sqlite"), "");
    let out = Command::new(dervish())
        .arg("--config")
        .arg(&config)
        .args(["game", "new"])
        .args(process::PLAYERS)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (dir, config)
}

/// `dervish run --once` under the memory limit: its exit code and what it
/// said.
fn run_once_limited(config: &Path) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(dervish())
        .arg("--config")
        .arg(config)
        .args(["run", "--once"])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), said)
}

fn mail(from: &str, id: &str, extra_headers: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut raw = format!(
        "From: {from}\r\nTo: dervish@example.org\r\nSubject: orders\r\nMessage-ID: <{id}>\r\n{extra_headers}MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    raw.extend_from_slice(body);
    raw
}

fn nested_lists() -> Vec<u8> {
    let mut html = String::from("<html><body>");
    while html.len() < 800_000 {
        html.push_str("<ul><li>x");
    }
    html.into_bytes()
}

#[test]
fn hostile_mail_is_taken_in_under_a_memory_limit() {
    let (dir, config) = setup("cases");
    let html = "text/html; charset=utf-8";
    // A header of about 1 MB: one field folded over 12,500 lines.
    let mut long_header = String::from("X-Junk: a");
    while long_header.len() < 1_000_000 {
        long_header.push_str(
            "\r\n aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        );
    }
    long_header.push_str("\r\n");
    let long_subject = format!("Subject: {}\r\n", "S".repeat(1_000_000));
    let mut huge_header = long_header.clone();
    huge_header.push_str(&long_header.replacen("X-Junk", "X-More", 1));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "html-stranger@example.net",
            mail(
                "stranger@example.net",
                "html-stranger@example.net",
                "",
                html,
                &nested_lists(),
            ),
            "ignored: stranger@example.net is not a player",
        ),
        (
            "html-player@example.org",
            mail(
                "gordon@example.org",
                "html-player@example.org",
                "",
                html,
                &nested_lists(),
            ),
            "refused: ",
        ),
        (
            "big@example.org",
            mail(
                "gordon@example.org",
                "big@example.org",
                "",
                "text/plain",
                &vec![b'x'; 50 << 20],
            ),
            "refused: the message is 5120",
        ),
        (
            "header@example.org",
            mail(
                "gordon@example.org",
                "header@example.org",
                &long_header,
                "text/plain",
                b"READY\r\n",
            ),
            "refused: ",
        ),
        (
            "subject@example.net",
            mail(
                "stranger@example.net",
                "subject@example.net",
                &long_subject,
                "text/plain",
                b"hello\r\n",
            ),
            "ignored: stranger@example.net is not a player",
        ),
        // Over the limit by its header alone: only the first 64 KiB are
        // read, and they hold no end of the header.
        (
            "huge-header@example.org",
            mail(
                "gordon@example.org",
                "huge-header@example.org",
                &huge_header,
                "text/plain",
                b"READY\r\n",
            ),
            "refused: the message is ",
        ),
    ];
    let inbox = Maildir::open(&dir.join("inbox")).unwrap();
    for (id, raw, outcome) in &cases {
        inbox.deliver(raw).unwrap();
        let (code, said) = run_once_limited(&config);
        assert_eq!(code, Some(0), "{id}: {said}");
        assert!(
            inbox.new_messages().unwrap().is_empty(),
            "{id} is still waiting"
        );
        let db = store::open(&dir.join("db.sqlite")).unwrap();
        let got = store::message_outcome(&db, id).unwrap();
        assert!(
            got.as_deref().is_some_and(|o| o.starts_with(outcome)),
            "{id}: {got:?}"
        );
    }
    // Each message has its one outcome; nothing was set aside.
    assert_eq!(
        std::fs::read_dir(dir.join("inbox/cur")).unwrap().count(),
        cases.len()
    );
    assert!(!dir.join("inbox/quarantine").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A message the process was killed on (here: one attempt left recorded
/// twice, as two runs killed for memory leave it) is set aside by the
/// next run, which then goes on with the mail behind it.
#[test]
fn a_message_the_binary_was_killed_on_twice_is_quarantined() {
    let (dir, config) = setup("poison");
    let inbox = Maildir::open(&dir.join("inbox")).unwrap();
    let poison = inbox
        .deliver(&mail(
            "stranger@example.net",
            "poison@example.net",
            "",
            "text/plain",
            b"hi\r\n",
        ))
        .unwrap();
    inbox
        .deliver(&mail(
            "stranger@example.net",
            "next@example.net",
            "",
            "text/plain",
            b"hi\r\n",
        ))
        .unwrap();
    {
        let db = store::open(&dir.join("db.sqlite")).unwrap();
        let mailbox = format!("Maildir {}", dir.join("inbox").display());
        let now = chrono::Utc::now();
        for _ in 0..2 {
            store::begin_inbox_attempt(&db, &mailbox, &poison.id, now).unwrap();
        }
    }
    let (code, said) = run_once_limited(&config);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        dir.join("inbox/quarantine").join(&poison.id).exists(),
        "{said}"
    );
    let db = store::open(&dir.join("db.sqlite")).unwrap();
    assert!(
        store::message_outcome(&db, "next@example.net")
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store::message_outcome(&db, "poison@example.net").unwrap(),
        None
    );
    let _ = std::fs::remove_dir_all(&dir);
}
