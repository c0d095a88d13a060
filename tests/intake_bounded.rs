//! Hostile mail costs bounded work, and a message the service dies on is
//! set aside instead of blocking the inbox: HTML is converted only for
//! mail whose body is read, and then within limits; a message with two
//! unfinished attempts goes to the Maildir's `quarantine/`, the game
//! master is told once, and the mail behind it is read. Also: HTML-only
//! orders are numbered as the player wrote the lines.

use std::path::{Path, PathBuf};

use dervish::mail::Inbox;
use dervish::mail::inbound::{self, HTML_MAX_DEPTH, Limits};
use dervish::mail::maildir::Maildir;
use dervish::scenario::Side;
use dervish::service::intake::{MAX_INBOX_ATTEMPTS, Outcome};
use dervish::service::{Config, Service};
use dervish::store::{self};

#[path = "common/mailbox.rs"]
mod mailbox;

struct Harness {
    dir: PathBuf,
    svc: Service,
    inbox: Maildir,
    secrets: Vec<(Side, String)>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A service with game `k-1` (Khartoum): gordon@ plays the Egyptians,
/// the Mahdist seat is `mahdist` ("open" for an open seat).
fn harness(name: &str, mahdist: &str) -> Harness {
    harness_with(name, mahdist, |_| {})
}

fn harness_with(name: &str, mahdist: &str, edit: impl FnOnce(&mut Config)) -> Harness {
    let dir = mailbox::folder("dervish-intake", name);
    let mut cfg = mailbox::config(&dir);
    // The games begin at the first month's orders (the set-up step is
    // tested in tests/setup_step.rs).
    cfg.turns.setup_hours = 0;
    edit(&mut cfg);
    let inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
    let svc = mailbox::service_at(cfg, mailbox::start());
    let created = svc.new_game(&mailbox::k1_against(mahdist), "test").unwrap();
    Harness {
        dir,
        svc,
        inbox,
        secrets: created.secrets,
    }
}

impl Harness {
    fn secret(&self, side: Side) -> String {
        mailbox::secret(&self.secrets, side)
    }

    /// The mail queued for `to`, of this kind, oldest first.
    fn queued(&self, to: &str, kind: &str) -> Vec<store::OutboxRow> {
        mailbox::all_mail(&self.svc)
            .into_iter()
            .filter(|m| m.recipient == to && m.kind == kind)
            .collect()
    }
}

fn html_mail(from: &str, id: &str, subject: &str, html: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: dervish@example.org\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    )
    .into_bytes()
}

/// The ~800 KB HTML of the report: lists nested in lists, never closed.
fn nested_lists() -> String {
    let mut html = String::from("<html><body>");
    while html.len() < 800_000 {
        html.push_str("<ul><li>x");
    }
    html.push_str("</body></html>");
    html
}

#[test]
fn deeply_nested_html_converts_to_bounded_text() {
    let html = nested_lists();
    let tame = inbound::tame_html(&html);
    // What the converter is given holds at most HTML_MAX_DEPTH lists.
    assert!(
        tame.matches("<ul>").count() <= HTML_MAX_DEPTH,
        "{}",
        tame.len()
    );
    assert!(tame.len() < html.len());
    let max = Limits::DEFAULT_MAX_BYTES;
    let text = inbound::html_to_text(&html, max);
    assert!(text.len() <= max, "{} bytes", text.len());
    // The text is all there, only no longer indented without end.
    assert_eq!(text.matches('x').count(), html.matches('x').count());
    let widest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(widest < 400, "a line of {widest} bytes");
    // The cut holds for any text.
    assert!(inbound::html_to_text(&"<p>MARCH</p>".repeat(1000), 100).len() <= 100);
}

#[test]
fn a_strangers_html_is_not_converted() {
    let mut h = harness("stranger", "mahdi@example.org");
    let raw = html_mail(
        "stranger@example.net",
        "nested@example.net",
        "hello",
        &nested_lists(),
    );
    assert!(raw.len() < Limits::DEFAULT_MAX_BYTES);
    let before = inbound::html_conversions();
    let out = h.svc.receive(&raw).unwrap();
    assert_eq!(
        out,
        Outcome::Ignored("stranger@example.net is not a player".into())
    );
    assert_eq!(inbound::html_conversions(), before, "no HTML converted");
    // Nor for automatic mail from a player, nor a duplicate.
    let auto = String::from_utf8(html_mail(
        "gordon@example.org",
        "auto@example.org",
        "Out of office",
        &nested_lists(),
    ))
    .unwrap()
    .replacen(
        "MIME-Version",
        "Auto-Submitted: auto-replied\r\nMIME-Version",
        1,
    );
    assert!(matches!(
        h.svc.receive(auto.as_bytes()).unwrap(),
        Outcome::Ignored(r) if r.contains("automatic")
    ));
    assert_eq!(h.svc.receive(&raw).unwrap(), Outcome::Duplicate);
    assert_eq!(inbound::html_conversions(), before, "no HTML converted");
}

#[test]
fn a_players_hostile_html_is_converted_within_bounds() {
    let mut h = harness("player", "mahdi@example.org");
    let raw = html_mail(
        "gordon@example.org",
        "nested@example.org",
        "[dervish k-1] orders",
        &nested_lists(),
    );
    let before = inbound::html_conversions();
    let out = h.svc.receive(&raw).unwrap();
    assert_eq!(inbound::html_conversions(), before + 1);
    // Read, and answered: the text holds no secret.
    assert!(matches!(out, Outcome::Refused(_)), "{out:?}");
    // A stranger's mail is read while a seat is open (for a JOIN).
    let mut h = harness("open", "open");
    let raw = html_mail(
        "wingate@example.org",
        "join@example.org",
        "[dervish k-1] join",
        "<div dir=\"ltr\">JOIN MAHDIST</div>",
    );
    let before = inbound::html_conversions();
    assert_eq!(
        h.svc.receive(&raw).unwrap(),
        Outcome::JoinAsked {
            game: "k-1".into(),
            side: Side::Mahdist,
            asked: true
        }
    );
    assert_eq!(inbound::html_conversions(), before + 1);
}

/// A plain-text mail from the stranger, numbered `n`.
fn plain(n: u32) -> Vec<u8> {
    format!(
        "From: stranger@example.net\r\nTo: dervish@example.org\r\nSubject: hi\r\nMessage-ID: <plain{n}@example.net>\r\n\r\nhello\r\n"
    )
    .into_bytes()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_message_the_service_died_on_twice_is_set_aside_and_the_rest_read() {
    let mut h = harness("poison", "mahdi@example.org");
    let poison = h.inbox.deliver(&plain(1)).unwrap();
    let behind = h.inbox.deliver(&plain(2)).unwrap();
    // Two attempts on the first message began and never finished: the
    // process was killed while reading it, twice.
    let mailbox = h.inbox.describe();
    let at = h.svc.now();
    for _ in 0..MAX_INBOX_ATTEMPTS {
        store::begin_inbox_attempt(&h.svc.conn, &mailbox, &poison.id, at).unwrap();
    }
    let (n, error) = h.svc.read_inbox(&mut h.inbox).unwrap();
    assert_eq!((n, error), (2, None));
    // Set aside in quarantine/, not read, recorded with its outcome.
    let root = h.inbox.root().to_path_buf();
    assert_eq!(names(&root.join("quarantine")), vec![poison.id.clone()]);
    assert!(names(&root.join("new")).is_empty());
    assert_eq!(
        store::message_outcome(&h.svc.conn, "plain1@example.net").unwrap(),
        None
    );
    let aside: String = mailbox::one(
        &h.svc,
        "SELECT outcome FROM messages WHERE message_id LIKE 'set-aside-%'",
    );
    assert!(
        aside.starts_with("set aside: taking it in failed 2 times"),
        "{aside}"
    );
    assert_eq!(
        store::inbox_attempts(&h.svc.conn, &mailbox, &poison.id).unwrap(),
        0
    );
    // The mail behind it is read as usual.
    assert!(
        store::message_outcome(&h.svc.conn, "plain2@example.net")
            .unwrap()
            .is_some_and(|o| o.contains("not a player"))
    );
    assert_eq!(names(&root.join("cur")), vec![format!("{}:2,S", behind.id)]);
    // The game master is told once, with who sent it.
    let notices = h.queued("gm@example.org", "notice");
    let told: Vec<_> = notices
        .iter()
        .filter(|m| m.subject.contains("set aside"))
        .collect();
    assert_eq!(told.len(), 1, "{notices:#?}");
    assert!(told[0].body_text.contains("From: stranger@example.net"));
    assert!(told[0].body_text.contains("quarantine"));
    // Done with: nothing more is said on the next pass.
    assert_eq!(h.svc.read_inbox(&mut h.inbox).unwrap(), (0, None));
    let again = h.queued("gm@example.org", "notice");
    assert_eq!(again.len(), notices.len());
}

/// A message the service fails on after reading it (here: the receipt
/// cannot be rendered) is rolled back and counted; the second failure
/// sets it aside, and the mail behind it, blocked until then, is read.
#[test]
fn a_message_the_service_fails_on_twice_is_set_aside() {
    let templates =
        std::env::temp_dir().join(format!("dervish-intake-templates-{}", std::process::id()));
    std::fs::create_dir_all(&templates).unwrap();
    std::fs::write(
        templates.join("receipt.txt"),
        "Subject: receipt\n\n{{ no_such_value }}\n",
    )
    .unwrap();
    let dir = templates.clone();
    let mut h = harness_with("failing", "mahdi@example.org", |cfg| {
        cfg.templates_dir = Some(dir)
    });
    let orders = format!(
        "From: gordon@example.org\r\nTo: dervish@example.org\r\nSubject: [dervish k-1] orders\r\nMessage-ID: <orders@example.org>\r\n\r\nSECRET {}\r\nMARCH STACK Sinkat TO Souakim\r\n",
        h.secret(Side::Egyptian)
    );
    let failing = h.inbox.deliver(orders.as_bytes()).unwrap();
    h.inbox.deliver(&plain(4)).unwrap();
    let mailbox = h.inbox.describe();
    for attempt in 1..=MAX_INBOX_ATTEMPTS {
        assert!(h.svc.read_inbox(&mut h.inbox).is_err(), "attempt {attempt}");
        assert_eq!(
            store::inbox_attempts(&h.svc.conn, &mailbox, &failing.id).unwrap(),
            attempt
        );
        // Nothing of it was kept, and the mail behind it waits.
        assert_eq!(
            store::message_outcome(&h.svc.conn, "orders@example.org").unwrap(),
            None
        );
        assert_eq!(h.inbox.new_messages().unwrap().len(), 2);
    }
    assert_eq!(h.svc.read_inbox(&mut h.inbox).unwrap(), (2, None));
    assert_eq!(
        names(&h.inbox.root().join("quarantine")),
        vec![failing.id.clone()]
    );
    assert!(
        store::message_outcome(&h.svc.conn, "plain4@example.net")
            .unwrap()
            .is_some()
    );
    let told = h.queued("gm@example.org", "notice");
    assert_eq!(told.len(), 1, "{told:#?}");
    assert!(told[0].body_text.contains("Subject: [dervish k-1] orders"));
    let _ = std::fs::remove_dir_all(&templates);
}

#[test]
fn one_unfinished_attempt_is_tried_again_and_forgotten_once_read() {
    let mut h = harness("retry", "mahdi@example.org");
    let m = h.inbox.deliver(&plain(3)).unwrap();
    let mailbox = h.inbox.describe();
    let at = h.svc.now();
    store::begin_inbox_attempt(&h.svc.conn, &mailbox, &m.id, at).unwrap();
    assert_eq!(h.svc.read_inbox(&mut h.inbox).unwrap(), (1, None));
    assert!(
        store::message_outcome(&h.svc.conn, "plain3@example.net")
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store::inbox_attempts(&h.svc.conn, &mailbox, &m.id).unwrap(),
        0
    );
    assert!(names(&h.inbox.root().join("quarantine")).is_empty());
}

/// The receipt's lines that start with "line N:", as (N, rest).
fn receipt_lines(text: &str) -> Vec<(u32, String)> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("line ")?;
            let (n, r) = rest.split_once(": ")?;
            Some((n.parse().ok()?, r.to_string()))
        })
        .collect()
}

/// HTML-only orders as three mail programs write them: the receipt
/// numbers the lines as the player saw them in the editor, one for each
/// paragraph, `<div>` or `<br>`, an empty one included; no line for the
/// blank the converter would put after a paragraph.
#[test]
fn html_only_orders_are_numbered_as_the_player_wrote_them() {
    let mut h = harness("lines", "mahdi@example.org");
    let secret = h.secret(Side::Egyptian);
    // Gmail: the first line in the outer div, each next one a div, an
    // empty line a div holding a <br>.
    let gmail = format!(
        "<div dir=\"ltr\">Hello Dervish,<div><br></div><div>SECRET {secret}</div><div>MARCH STACK Sinkat TO Souakim</div><div>MRACH STACK Souakim TO Sinkat</div><div>READY</div><div><br></div><div>Charles</div></div>"
    );
    // Outlook: Word's HTML, a <p class=MsoNormal> a line, an empty line a
    // paragraph holding a non-breaking space, styles and conditional
    // comments in the head.
    let outlook = format!(
        "<html xmlns:v=\"urn:schemas-microsoft-com:vml\" xmlns:o=\"urn:schemas-microsoft-com:office:office\" xmlns:w=\"urn:schemas-microsoft-com:office:word\">\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\n<meta name=\"Generator\" content=\"Microsoft Word 15 (filtered medium)\">\n<style><!--\n/* Font Definitions */\n@font-face\n\t{{font-family:\"Cambria Math\";\n\tpanose-1:2 4 5 3 5 4 6 3 2 4;}}\np.MsoNormal, li.MsoNormal, div.MsoNormal\n\t{{margin:0cm;\n\tfont-size:11.0pt;\n\tfont-family:\"Calibri\",sans-serif;}}\n--></style><!--[if gte mso 9]><xml>\n<o:shapedefaults v:ext=\"edit\" spidmax=\"1026\" />\n</xml><![endif]-->\n</head>\n<body lang=\"EN-GB\" link=\"#0563C1\" vlink=\"#954F72\" style=\"word-wrap:break-word\">\n<div class=\"WordSection1\">\n<p class=\"MsoNormal\">Hello Dervish,<o:p></o:p></p>\n<p class=\"MsoNormal\"><o:p>&nbsp;</o:p></p>\n<p class=\"MsoNormal\">SECRET {secret}<o:p></o:p></p>\n<p class=\"MsoNormal\"><span lang=\"EN-US\">MARCH STACK Sinkat TO Souakim</span><o:p></o:p></p>\n<p class=\"MsoNormal\">MRACH STACK Souakim TO Sinkat<o:p></o:p></p>\n<p class=\"MsoNormal\">READY<o:p></o:p></p>\n<p class=\"MsoNormal\"><o:p>&nbsp;</o:p></p>\n<p class=\"MsoNormal\">Charles<o:p></o:p></p>\n</div>\n</body>\n</html>"
    );
    // Thunderbird: a <p> a line, an empty line a paragraph with a <br>.
    let thunderbird = format!(
        "<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv=\"content-type\" content=\"text/html; charset=UTF-8\">\n  </head>\n  <body>\n    <p>Hello Dervish,</p>\n    <p><br>\n    </p>\n    <p>SECRET {secret}</p>\n    <p>MARCH STACK Sinkat TO Souakim</p>\n    <p>MRACH STACK Souakim TO Sinkat</p>\n    <p>READY</p>\n    <p><br>\n    </p>\n    <p>Charles</p>\n  </body>\n</html>"
    );
    for (name, html) in [
        ("gmail", gmail),
        ("outlook", outlook),
        ("thunderbird", thunderbird),
    ] {
        let raw = html_mail(
            "gordon@example.org",
            &format!("{name}@example.org"),
            "[dervish k-1] orders",
            &html,
        );
        let out = h.svc.receive(&raw).unwrap();
        assert!(matches!(out, Outcome::Orders { .. }), "{name}: {out:?}");
        let key = format!("receipt:{name}@example.org");
        let receipt = h
            .queued("gordon@example.org", "receipt")
            .into_iter()
            .find(|m| m.dedupe_key.ends_with(&key))
            .unwrap_or_else(|| panic!("{name}: no receipt"));
        let lines = receipt_lines(&receipt.body_text);
        let numbers: Vec<u32> = lines.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            numbers,
            vec![1, 4, 5, 6, 8],
            "{name}:\n{}",
            receipt.body_text
        );
        assert!(lines[0].1.contains("passed over") && lines[0].1.contains("Hello Dervish"));
        assert!(lines[1].1.starts_with("MARCH"), "{name}: {lines:?}");
        assert!(
            lines[2].1.starts_with("NOT UNDERSTOOD"),
            "{name}: {lines:?}"
        );
        assert!(lines[3].1.starts_with("READY"), "{name}: {lines:?}");
        assert!(lines[4].1.contains("Charles"), "{name}: {lines:?}");
    }
}
