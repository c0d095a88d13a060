//! `dervish outbox list|retry|drop` and `dervish game secret` from the
//! command line.

use std::path::{Path, PathBuf};

use chrono::Utc;
use dervish::service::{Config, Service};
use dervish::store::{self};

#[path = "common/mailbox.rs"]
mod mailbox;
#[path = "common/process.rs"]
mod process;

fn setup(name: &str) -> (PathBuf, PathBuf) {
    let dir = mailbox::folder("dervish-cli-outbox", name);
    let cfg_path = mailbox::config_file(&dir, &mailbox::file_outbox(&dir), "");
    (dir, cfg_path)
}

fn dervish(config: &Path, args: &[&str]) -> (String, String, i32) {
    process::dervish_with(config, args)
}

#[test]
fn the_outbox_is_listed_retried_and_dropped() {
    let (dir, config) = setup("list");
    let svc = Service::open(Config::read(&config).unwrap()).unwrap();
    svc.new_game(&mailbox::game("khartoum", "k-1"), "test")
        .unwrap();
    let mail = store::mail_for(&svc.conn, Some("k-1")).unwrap();
    assert_eq!(mail.len(), 2);
    let (egyptian, mahdist) = (mail[0].id, mail[1].id);
    // The Mahdist welcome was given up; its secret is scrubbed.
    store::mark_failed(&svc.conn, mahdist, "SMTP: 550 no such user", None).unwrap();
    dervish::service::mail::scrub_secret(&svc.conn, &mail[1]).unwrap();
    drop(svc);

    let (said, err, code) = dervish(&config, &["outbox", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("STATE"), "{said}");
    let line = |id: i64| {
        said.lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no line for {id} in {said}"))
            .to_string()
    };
    assert!(line(egyptian).contains("queued"), "{said}");
    assert!(line(egyptian).contains("gordon@example.org"), "{said}");
    assert!(line(egyptian).contains("welcome"), "{said}");
    assert!(line(mahdist).contains("given up"), "{said}");
    assert!(
        said.contains("last error: SMTP: 550 no such user"),
        "{said}"
    );

    // An unknown id is named.
    let (_, err, code) = dervish(&config, &["outbox", "retry", "999"]);
    assert_eq!(code, 1);
    assert!(err.contains("there is no mail 999"), "{err}");
    let (_, err, code) = dervish(&config, &["outbox", "drop", "999"]);
    assert_eq!(code, 1);
    assert!(err.contains("there is no mail 999"), "{err}");

    // A scrubbed welcome cannot be sent again: a new secret can.
    let (_, err, code) = dervish(&config, &["outbox", "retry", &mahdist.to_string()]);
    assert_eq!(code, 1);
    assert!(err.contains("dervish game secret k-1 mahdist"), "{err}");
    let (said, err, code) = dervish(&config, &["game", "secret", "k-1", "mahdist"]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("new secret"), "{said}");

    // Run a pass: the queued mails go.
    let (_, err, code) = dervish(&config, &["run", "--once"]);
    assert_eq!(code, 0, "{err}");
    let (said, _, _) = dervish(&config, &["outbox", "list"]);
    assert!(!said.contains("queued"), "{said}");
    assert!(said.contains("a newer welcome mail"), "{said}");
    let (said, _, _) = dervish(&config, &["outbox", "list", "--all"]);
    assert!(said.contains("sent"), "{said}");

    // A sent mail is neither retried nor dropped.
    let (_, err, code) = dervish(&config, &["outbox", "drop", &egyptian.to_string()]);
    assert_eq!(code, 1);
    assert!(err.contains("was sent"), "{err}");

    // Retry and drop of a mail given up.
    let svc = Service::open(Config::read(&config).unwrap()).unwrap();
    let d = svc
        .notice_draft(None, "t", "someone@example.org", "a test", "Hello.")
        .unwrap();
    svc.queue(d).unwrap();
    let id = store::mail_for(&svc.conn, None).unwrap().last().unwrap().id;
    store::mark_failed(&svc.conn, id, "timed out", None).unwrap();
    drop(svc);
    let (said, err, code) = dervish(&config, &["outbox", "retry", "--all"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        said.contains(&format!(
            "mail {id} to someone@example.org is sent at the next pass"
        )),
        "{said}"
    );
    let (said, _, _) = dervish(&config, &["outbox", "list"]);
    assert!(
        said.lines()
            .any(|l| l.trim_start().starts_with(&format!("{id} ")) && l.contains("queued")),
        "{said}"
    );
    let (said, err, code) = dervish(&config, &["outbox", "drop", &id.to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("dropped"), "{said}");
    let (said, _, _) = dervish(&config, &["outbox", "list"]);
    assert!(said.contains("dropped by cli:"), "{said}");
    let (said, _, code) = dervish(&config, &["run", "--once"]);
    assert_eq!(code, 0);
    assert!(said.contains("0 mails sent"), "{said}");
    // `retry --all` leaves dropped mail and replaced welcomes alone.
    let (said, err, code) = dervish(&config, &["outbox", "retry", "--all"]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("nothing to do"), "{said}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dervish outbox prune --days N` keeps of the mail sent more than N days
/// ago only its headers and digest; mail not sent is left alone.
#[test]
fn outbox_prune_keeps_old_sent_mail_as_headers() {
    let (dir, config) = setup("prune");
    let mut svc = Service::open(Config::read(&config).unwrap()).unwrap();
    let long_ago = Utc::now() - chrono::Duration::days(40);
    svc.set_clock(Box::new(move || long_ago));
    for (i, to) in ["a@example.org", "b@example.org"].into_iter().enumerate() {
        let d = svc
            .notice_draft(
                None,
                &format!("t{i}"),
                to,
                "a test",
                &"Long text. ".repeat(500),
            )
            .unwrap();
        assert!(svc.queue(d).unwrap());
    }
    let a = store::mail_for(&svc.conn, None).unwrap()[0].id;
    store::mark_sent(&svc.conn, a, long_ago).unwrap();
    drop(svc);

    let (out, err, code) = dervish(&config, &["outbox", "prune", "--days", "30"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 sent mail kept as headers only"), "{out}");
    let conn = store::open(&dir.join("dervish.sqlite")).unwrap();
    let mail = store::mail_for(&conn, None).unwrap();
    assert!(
        mail[0].body_text.contains("no longer kept"),
        "{:?}",
        mail[0]
    );
    assert!(
        mail[1].body_text.contains("Long text."),
        "not sent: kept: {:?}",
        mail[1]
    );
    let (_, err, code) = dervish(&config, &["outbox", "prune", "--days", "0"]);
    assert_eq!(code, 1);
    assert!(err.contains("--days 30"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
