//! The outbox and the transports under failure: a dead mail server, a
//! hand-off interrupted by a crash, empty messages, orphan temporary
//! files, mail given up, and secrets given anew.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use chrono::Duration;
use dervish::mail::outbound::{Sender, TransportConfig};
use dervish::scenario::Side;
use dervish::service::Service;
use dervish::service::games::NewGame;
use dervish::service::mail::SCRUBBED_WELCOME;
use dervish::service::secrets::secret_matches;
use dervish::store::{self, OutboxRow};
use lettre::address::Envelope;

#[path = "common/mailbox.rs"]
mod mailbox;

fn temp_dir(name: &str) -> PathBuf {
    mailbox::folder("dervish-outbox", name)
}

use mailbox::{
    all_mail, config_sending as config, new_game, service_at as service, silent_server, start,
};

/// The service on the folder `dir`, writing its mail to files in
/// `dir/outbox`, its clock at the start: the sender and the service.
fn on_files(dir: &Path) -> (Sender, Service) {
    let cfg = mailbox::config(dir);
    (Sender::new(&cfg.outgoing).unwrap(), service(cfg, start()))
}

/// Queue `n` short notices to players.
fn queue_notices(svc: &Service, n: usize) {
    queue_notices_from(svc, 0, n);
}

/// SMTP to the server on loopback at `port`, waiting a second at most.
fn smtp(port: u16) -> TransportConfig {
    mailbox::smtp(port, 1)
}

/// A fake `sendmail`: each run stores its standard input as `msg.N` and
/// its arguments as `args.N` in `dir`, and exits with `status`.
fn fake_sendmail(dir: &Path, status: u8) -> PathBuf {
    let body = format!(
        "n=$(date +%s%N)-$$\ncat > \"{d}/msg.$n\"\necho \"$@\" > \"{d}/args.$n\"\nexit {status}\n",
        d = dir.display()
    );
    mailbox::script(dir, "sendmail", &body)
}

/// A [`fake_sendmail`] in the new folder `dir/calls` exiting with
/// `status`: the transport that runs it, and the folder where it keeps
/// what it is handed.
fn sendmail_in(dir: &Path, status: u8) -> (TransportConfig, PathBuf) {
    let calls = dir.join("calls");
    std::fs::create_dir_all(&calls).unwrap();
    let command = Some(fake_sendmail(&calls, status));
    (TransportConfig::Sendmail { command }, calls)
}

/// The messages the fake sendmail was handed, as text.
fn handed(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("msg."))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    out.sort();
    out
}

fn message_id(raw: &str) -> String {
    raw.lines()
        .find_map(|l| l.strip_prefix("Message-ID: "))
        .unwrap_or_else(|| panic!("no Message-ID in {raw:?}"))
        .trim()
        .to_string()
}

/// Issue 14, item 6: a server that accepts the connection and never
/// answers cost one timeout per mail (27 mails: 83 s). Now the pass stops
/// sending at the first such failure: one connection, one timeout.
#[test]
fn a_silent_server_costs_one_timeout_a_pass_not_one_a_mail() {
    let dir = temp_dir("silent");
    let (port, accepted) = silent_server();
    let mut cfg = config(&dir, smtp(port));
    cfg.outbox.max_attempts = 2;
    let notices = dir.join("gm-notices.txt");
    cfg.outbox.notice_file = Some(notices.clone());
    let sender = Sender::new(&cfg.outgoing).unwrap();
    let mut svc = service(cfg, start());
    queue_notices(&svc, 10);

    let began = Instant::now();
    let (sent, failed) = svc.flush(&sender).unwrap();
    assert_eq!((sent, failed), (0, 10));
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "one connection, not ten"
    );
    assert!(began.elapsed().as_secs() < 8, "{:?}", began.elapsed());

    // Nothing is given up: one mail counts the attempt, the others wait,
    // attempts unchanged, until its retry.
    let mail = all_mail(&svc);
    assert_eq!(mail.len(), 10);
    assert!(mail.iter().all(|m| !m.gave_up && m.sent_at.is_none()));
    assert_eq!(mail.iter().filter(|m| m.attempts == 1).count(), 1);
    assert!(mail.iter().all(|m| m.next_attempt_at > start()));
    assert!(mail[0].last_error.as_deref().unwrap().contains("127.0.0.1"));

    // The same moment again: nothing is due, nothing connects.
    assert_eq!(svc.flush(&sender).unwrap(), (0, 0));
    assert_eq!(accepted.load(Ordering::SeqCst), 1);

    // At the retry, one more connection for the whole queue.
    let later = start() + Duration::hours(2);
    svc.set_clock(Box::new(move || later));
    assert_eq!(svc.flush(&sender).unwrap(), (0, 10));
    assert_eq!(accepted.load(Ordering::SeqCst), 2);

    // That is max_attempts failures in a row: the game master is told, once
    // for the outage, and no mail is given up for a transport that is down.
    let mail = all_mail(&svc);
    assert!(mail.iter().all(|m| !m.gave_up));
    let told = |svc: &Service| {
        all_mail(svc)
            .into_iter()
            .filter(|m| m.recipient == "gm@example.org")
            .count()
    };
    assert_eq!(told(&svc), 1);
    let text = std::fs::read_to_string(&notices).unwrap();
    assert!(text.contains("the mail transport is down"), "{text}");
    assert!(text.contains("10 mails wait"), "{text}");
    let later = start() + Duration::hours(4);
    svc.set_clock(Box::new(move || later));
    assert_eq!(svc.flush(&sender).unwrap(), (0, 11));
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
    assert_eq!(told(&svc), 1, "told once an outage");
    assert_eq!(
        std::fs::read_to_string(&notices)
            .unwrap()
            .matches("the mail transport is down")
            .count(),
        1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `check-mail`'s transport check fails, within the timeout, against a
/// server that never answers; a sendmail that cannot be run fails too.
#[test]
fn the_transport_check_fails_against_a_silent_server_and_a_bad_sendmail() {
    let (port, accepted) = silent_server();
    let sender = Sender::new(&smtp(port)).unwrap();
    let began = Instant::now();
    let e = sender.check().unwrap_err();
    assert!(e.transient && e.transport_down, "{e:?}");
    assert!(e.message.contains(&format!("127.0.0.1:{port}")), "{e:?}");
    assert!(began.elapsed().as_secs() < 8);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);

    let dir = temp_dir("check");
    let script = fake_sendmail(&dir, 0);
    let ok = Sender::new(&TransportConfig::Sendmail {
        command: Some(script.clone()),
    })
    .unwrap();
    assert!(ok.check().unwrap().contains("sendmail"));
    assert!(handed(&dir).is_empty(), "the check sends nothing");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = ok.check().unwrap_err();
    assert!(e.message.contains("not executable"), "{e:?}");
    let missing = Sender::new(&TransportConfig::Sendmail {
        command: Some(dir.join("nothing-here")),
    })
    .unwrap();
    assert!(
        missing
            .check()
            .unwrap_err()
            .message
            .contains("is not there")
    );

    // The folder check writes and removes a probe.
    let out = dir.join("out");
    let file = Sender::new(&TransportConfig::File { dir: out.clone() }).unwrap();
    assert!(file.check().unwrap().contains("written to"));
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 14, item 7: once a zero-byte message was handed over. An empty
/// message is refused, for good, by every transport, and nothing is
/// handed over.
#[test]
fn an_empty_message_is_never_handed_over() {
    let dir = temp_dir("empty");
    let envelope = Envelope::new(
        Some("dervish@example.org".parse().unwrap()),
        vec!["gordon@example.org".parse().unwrap()],
    )
    .unwrap();
    let out = dir.join("out");
    let file = Sender::new(&TransportConfig::File { dir: out.clone() }).unwrap();
    let e = file.send_raw("x@example.org", &envelope, b"").unwrap_err();
    assert!(!e.transient, "{e:?}");
    assert!(e.message.contains("empty"), "{e:?}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().count() == 0);

    let (transport, calls) = sendmail_in(&dir, 0);
    let sendmail = Sender::new(&transport).unwrap();
    let e = sendmail
        .send_raw("x@example.org", &envelope, b"\r\n")
        .unwrap_err();
    assert!(!e.transient, "{e:?}");
    assert!(handed(&calls).is_empty());
    // A real message goes, whole.
    sendmail
        .send_raw("x@example.org", &envelope, b"Subject: hi\r\n\r\nbody\r\n")
        .unwrap();
    assert_eq!(
        handed(&calls),
        vec!["Subject: hi\r\n\r\nbody\r\n".to_string()]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mail left "sending" by a crash, with the file transport, which can
/// tell: one whose file is there is recorded as sent without being
/// written again; one whose file is not there is sent.
#[test]
fn an_interrupted_hand_off_to_a_folder_is_settled_by_the_file() {
    let dir = temp_dir("settle-file");
    let out = dir.join("outbox");
    let (sender, mut svc) = on_files(&dir);
    queue_notices(&svc, 3);
    let mail = all_mail(&svc);
    // Crash after "sending" was recorded, before the hand-off.
    store::mark_sending(&svc.conn, mail[0].id, start()).unwrap();
    // Crash after the hand-off, before "sent" was recorded.
    store::mark_sending(&svc.conn, mail[1].id, start()).unwrap();
    sender.send(&svc.outgoing(&mail[1], start())).unwrap();
    let file1 = std::fs::read_dir(&out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&file1, "the copy handed over before the crash").unwrap();

    let (sent, failed) = svc.flush(&sender).unwrap();
    assert_eq!((sent, failed), (2, 0), "mails 0 and 2 sent by this pass");
    assert_eq!(
        std::fs::read_to_string(&file1).unwrap(),
        "the copy handed over before the crash",
        "not written again"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 3);
    assert!(all_mail(&svc).iter().all(|m| m.sent_at.is_some()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// With sendmail, a mail left "sending" cannot be told apart: it is sent
/// again (mail is never lost). A crash before the hand-off then costs
/// nothing: each Message-ID is handed over once. A crash after sendmail
/// took the mail and before it was recorded hands it over a second time:
/// the window ARCHITECTURE.md documents. Every message handed over is
/// whole.
#[test]
fn an_interrupted_hand_off_to_sendmail_is_sent_again_whole() {
    let dir = temp_dir("settle-sendmail");
    let (transport, calls) = sendmail_in(&dir, 0);
    let cfg = config(&dir, transport);
    let sender = Sender::new(&cfg.outgoing).unwrap();
    let mut svc = service(cfg, start());
    queue_notices(&svc, 3);
    let mail = all_mail(&svc);
    store::mark_sending(&svc.conn, mail[0].id, start()).unwrap();
    store::mark_sending(&svc.conn, mail[1].id, start()).unwrap();
    sender.send(&svc.outgoing(&mail[1], start())).unwrap();

    let (sent, failed) = svc.flush(&sender).unwrap();
    assert_eq!((sent, failed), (3, 0));
    let msgs = handed(&calls);
    let count = |id: &str| {
        msgs.iter()
            .filter(|m| message_id(m) == format!("<{id}>"))
            .count()
    };
    assert_eq!(count(&mail[0].message_id), 1, "crash before the hand-off");
    assert_eq!(count(&mail[1].message_id), 2, "crash inside the window");
    assert_eq!(count(&mail[2].message_id), 1);
    for (i, m) in msgs.iter().enumerate() {
        assert!(
            m.contains("Test notice number"),
            "message {i} is cut: {m:?}"
        );
    }
    // A pass more hands nothing over.
    assert_eq!(svc.flush(&sender).unwrap(), (0, 0));
    assert_eq!(handed(&calls).len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Temporary files of a process that is gone are removed when the service
/// starts sending; those of a running process and other files stay.
#[test]
fn orphan_temporary_files_are_removed_at_start() {
    let dir = temp_dir("orphans");
    let out = dir.join("outbox");
    std::fs::create_dir_all(&out).unwrap();
    // 4294967 is above any Linux pid_max: no such process runs.
    let gone = [
        ".a1b2@example.org.eml.4294967.0.tmp",
        ".dervish-check.4294967",
    ];
    let own = format!(".a1b2@example.org.eml.{}.5.tmp", std::process::id());
    let others = ["notes.txt", ".hidden", "a1b2@example.org.eml"];
    for name in gone.iter().chain(others.iter()) {
        std::fs::write(out.join(name), "x").unwrap();
    }
    std::fs::write(out.join(&own), "x").unwrap();
    let (sender, mut svc) = on_files(&dir);
    svc.flush(&sender).unwrap();
    for name in gone {
        assert!(!out.join(name).exists(), "{name} is left");
    }
    for name in others {
        assert!(out.join(name).exists(), "{name} is removed");
    }
    assert!(out.join(&own).exists());

    // Sendmail's message files in the temporary folder likewise.
    let tmp = std::env::temp_dir().join(".dervish-sendmail.4294967.0.tmp");
    std::fs::write(&tmp, "x").unwrap();
    let sendmail = Sender::new(&TransportConfig::Sendmail { command: None }).unwrap();
    assert!(sendmail.remove_orphans() >= 1);
    assert!(!tmp.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Mail given up in a pass makes one summary for the game master, not one
/// notice a mail: in the notice file, and in one notice mail. A welcome
/// mail given up keeps its secret (`outbox retry` can still send it), and
/// the summary says how, or how to give the player a new one.
#[test]
fn mail_given_up_makes_one_summary_a_pass_and_welcome_secrets_stay() {
    let dir = temp_dir("given-up");
    let (transport, _) = sendmail_in(&dir, 67);
    let mut cfg = config(&dir, transport);
    let notices = dir.join("gm-notices.txt");
    cfg.outbox.notice_file = Some(notices.clone());
    let sender = Sender::new(&cfg.outgoing).unwrap();
    let mut svc = service(cfg, start());
    let secrets = new_game(&svc);
    queue_notices(&svc, 3);
    assert_eq!(svc.flush(&sender).unwrap(), (0, 5));

    let mail = all_mail(&svc);
    let to_gm: Vec<&OutboxRow> = mail
        .iter()
        .filter(|m| m.recipient == "gm@example.org")
        .collect();
    assert_eq!(to_gm.len(), 1, "one notice for five mails");
    assert!(
        to_gm[0].body_text.contains("5 mails"),
        "{}",
        to_gm[0].body_text
    );
    assert!(
        to_gm[0]
            .body_text
            .contains("dervish game secret k-1 egyptian"),
        "{}",
        to_gm[0].body_text
    );
    let text = std::fs::read_to_string(&notices).unwrap();
    assert_eq!(text.matches("given up").count(), 1, "{text}");
    assert!(text.contains("dervish game secret k-1 mahdist"), "{text}");
    assert!(text.contains("dervish outbox retry"), "{text}");
    // The welcomes keep their secrets until they have gone.
    for m in mail.iter().filter(|m| m.kind == "welcome") {
        assert!(m.gave_up);
        assert_ne!(m.body_text, SCRUBBED_WELCOME);
    }
    for (_, secret) in &secrets {
        assert!(mail.iter().any(|m| m.body_text.contains(secret.as_str())));
    }

    // The next pass gives up the notice to the game master: the file says
    // so, and no notice of a notice is queued.
    assert_eq!(svc.flush(&sender).unwrap(), (0, 1));
    assert_eq!(all_mail(&svc).len(), mail.len());
    let text = std::fs::read_to_string(&notices).unwrap();
    assert_eq!(text.matches("given up").count(), 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dervish game secret`: a new secret, only its digest kept, in a new
/// welcome mail; the old secret stops working, and an old welcome mail
/// not sent yet is given up and scrubbed.
#[test]
fn a_secret_given_anew_replaces_the_old_one_and_its_mail() {
    let dir = temp_dir("reissue");
    let out = dir.join("outbox");
    let (sender, mut svc) = on_files(&dir);
    let old = mailbox::secret(&new_game(&svc), Side::Egyptian);

    let new = svc.reissue_secret("k-1", Side::Egyptian, "test").unwrap();
    assert_ne!(new, old);
    let seat = seat(&svc, Side::Egyptian);
    assert!(secret_matches(&new, &seat.secret_sha256));
    assert!(!secret_matches(&old, &seat.secret_sha256));
    assert!(!seat.secret_sha256.contains(&new));

    let mail = all_mail(&svc);
    let welcomes = welcomes_to(&mail, "gordon@example.org");
    assert_eq!(welcomes.len(), 2);
    assert!(welcomes[0].gave_up);
    assert_eq!(welcomes[0].body_text, SCRUBBED_WELCOME);
    assert!(welcomes[1].body_text.contains(&new));

    svc.flush(&sender).unwrap();
    let files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(files.len(), 2, "the new welcome and the opponent's");
    // Once sent, the secret is gone from the outbox.
    for m in all_mail(&svc) {
        assert!(!m.body_text.contains(&new));
    }
    let audit = store::audit_log(&svc.conn, "k-1").unwrap();
    assert!(
        audit
            .iter()
            .any(|(_, _, action, _)| action == "game secret")
    );

    // An open seat has no secret to give.
    let open = svc
        .new_game(
            &NewGame {
                mahdist: "open".into(),
                ..mailbox::game("khartoum", "k-2")
            },
            "test",
        )
        .unwrap();
    let e = svc
        .reissue_secret(&open.id, Side::Mahdist, "test")
        .unwrap_err();
    assert!(e.to_string().contains("open"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `GM SECRET` by mail does what `dervish game secret` does.
#[test]
fn a_secret_is_given_anew_by_mail_from_the_game_master() {
    let dir = temp_dir("reissue-mail");
    let (_, mut svc) = on_files(&dir);
    let old = mailbox::secret(&new_game(&svc), Side::Mahdist);
    svc.set_gm_password("correct horse battery").unwrap();
    let raw = "From: gm@example.org\r\nTo: dervish@example.org\r\nSubject: commands\r\nMessage-ID: <gm1@example.org>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPASSWORD correct horse battery\r\nGM SECRET k-1 mahdist\r\n";
    let out = svc.receive(raw.as_bytes()).unwrap();
    assert!(
        matches!(out, dervish::service::intake::Outcome::Commands { .. }),
        "{out:?}"
    );
    let seat = seat(&svc, Side::Mahdist);
    assert!(!secret_matches(&old, &seat.secret_sha256));
    let mail = all_mail(&svc);
    let welcomes = welcomes_to(&mail, "mahdi@example.org");
    assert_eq!(welcomes.len(), 2);
    let new_secret = welcomes[1]
        .body_text
        .lines()
        .find_map(|l| l.trim().strip_prefix("SECRET "))
        .unwrap();
    assert!(secret_matches(new_secret, &seat.secret_sha256));
    let answer = mail
        .iter()
        .find(|m| m.recipient == "gm@example.org" && m.body_text.contains("new secret"))
        .unwrap_or_else(|| panic!("no answer: {mail:#?}"));
    assert!(!answer.body_text.contains(new_secret));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mail dropped by the game master after a pass read the queue is not
/// handed over: the pass records "sending" only for a mail still waiting.
#[test]
fn a_mail_dropped_during_a_pass_is_not_handed_over() {
    let dir = temp_dir("dropped");
    let (_, svc) = on_files(&dir);
    queue_notices(&svc, 1);
    let m = all_mail(&svc).remove(0);
    store::drop_mail(&svc.conn, m.id, "dropped by test").unwrap();
    assert!(!store::mark_sending(&svc.conn, m.id, start()).unwrap());
    let (m, sending) = store::outbox_mail(&svc.conn, m.id).unwrap().unwrap();
    assert!(m.gave_up && sending.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// An outage is told once; once mail goes again it is over, and the next
/// outage is told again. A folder that cannot be written is the file
/// transport down, and gives no mail up.
#[test]
fn each_outage_is_told_once_and_ends_when_mail_goes() {
    let dir = temp_dir("outages");
    let out = dir.join("outbox");
    // A file where the folder should be: nothing can be written.
    std::fs::write(&out, "in the way").unwrap();
    let mut cfg = mailbox::config(&dir);
    cfg.outbox.max_attempts = 1;
    let sender = Sender::new(&cfg.outgoing).unwrap();
    let mut svc = service(cfg, start());
    queue_notices(&svc, 3);
    let down_notices = |svc: &Service| {
        all_mail(svc)
            .into_iter()
            .filter(|m| {
                m.recipient == "gm@example.org" && m.body_text.contains("transport is down")
            })
            .count()
    };
    assert_eq!(svc.flush(&sender).unwrap(), (0, 3));
    assert_eq!(down_notices(&svc), 1);
    assert!(all_mail(&svc).iter().all(|m| !m.gave_up));

    // Fixed: everything goes, the notice too.
    std::fs::remove_file(&out).unwrap();
    let later = start() + Duration::hours(1);
    svc.set_clock(Box::new(move || later));
    assert_eq!(svc.flush(&sender).unwrap(), (4, 0));

    // A second outage is a second notice.
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::write(&out, "in the way").unwrap();
    queue_notices_from(&svc, 10, 2);
    let later = start() + Duration::hours(2);
    svc.set_clock(Box::new(move || later));
    assert_eq!(svc.flush(&sender).unwrap(), (0, 2));
    assert_eq!(down_notices(&svc), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Queue `n` short notices numbered from `first`.
/// The seat of `side` in game `k-1`.
fn seat(svc: &Service, side: Side) -> store::PlayerRow {
    store::players(&svc.conn, "k-1")
        .unwrap()
        .into_iter()
        .find(|p| p.side == side)
        .unwrap()
}

/// The welcome mails among `mail` to `to`, in its order.
fn welcomes_to<'a>(mail: &'a [OutboxRow], to: &str) -> Vec<&'a OutboxRow> {
    mail.iter()
        .filter(|m| m.kind == "welcome" && m.recipient == to)
        .collect()
}

fn queue_notices_from(svc: &Service, first: usize, n: usize) {
    for i in first..first + n {
        let d = svc
            .notice_draft(
                None,
                &format!("test-{i}"),
                &format!("player{i}@example.org"),
                "a test",
                &format!("Test notice number {i}."),
            )
            .unwrap();
        assert!(svc.queue(d).unwrap());
    }
}
