//! The mail service end to end on the embedded default: a Maildir in,
//! SQLite, outgoing mail written to a folder. Time is a fixed clock moved
//! by the tests.

#[path = "common/mailbox.rs"]
mod mailbox;

use std::path::{Path, PathBuf};

use chrono::{Duration, Utc};
use dervish::mail::outbound::TransportConfig;
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::intake::Outcome;
use dervish::service::{Config, Service};
use dervish::store::{self, Mode, Status};
use mailbox::{Table, at_table, flat};

/// The service's table (`mailbox::Table`) with a game `k-1` of Khartoum
/// between gordon@example.org and mahdi@example.org on it.
struct Harness {
    table: Table,
    game: String,
    secrets: Vec<(Side, String)>,
    n: u32,
}

at_table!(Harness);

use mailbox::SentText as Sent;

impl Harness {
    fn new(name: &str, mode: Mode) -> Harness {
        Harness::with_config(name, mode, |_| {})
    }

    fn with_config(name: &str, mode: Mode, change: impl FnOnce(&mut Config)) -> Harness {
        Harness::build(name, mode, change, false)
    }

    /// A monthly game whose turn seeds are fixed: two of them given the
    /// same orders play the same turns, byte for byte.
    fn seeded(name: &str, change: impl FnOnce(&mut Config)) -> Harness {
        Harness::build(name, Mode::Monthly, change, true)
    }

    fn build(name: &str, mode: Mode, change: impl FnOnce(&mut Config), seeded: bool) -> Harness {
        let mut table = Table::open("dervish-service", name, |cfg| {
            // These games begin at the first month's orders; the set-up
            // step (2.1) is played by mail in tests/setup_step.rs.
            cfg.turns.setup_hours = 0;
            change(cfg);
        });
        if seeded {
            table.svc.set_seeds(mailbox::counting_seeds());
        }
        let game = NewGame {
            mode,
            ..mailbox::game("khartoum", "k-1")
        };
        let (game, secrets) = table.start_game(&game, None);
        Harness {
            table,
            game,
            secrets,
            n: 0,
        }
    }

    fn secret(&self, side: Side) -> String {
        mailbox::secret(&self.secrets, side)
    }

    fn advance(&self, hours: i64) {
        self.advance_minutes(hours * 60);
    }

    fn advance_minutes(&self, minutes: i64) {
        let mut t = self.now.lock().unwrap();
        *t += Duration::minutes(minutes);
    }

    fn mail(&mut self, from: &str, subject: &str, body: &str) -> Vec<u8> {
        self.n += 1;
        raw_mail(
            from,
            subject,
            body,
            &format!("m{}@players.example", self.n),
            "",
        )
    }

    fn orders(&mut self, side: Side, body: &str) -> Vec<u8> {
        let from = if side == Side::Egyptian {
            "gordon@example.org"
        } else {
            "mahdi@example.org"
        };
        let text = format!("SECRET {}\n{body}", self.secret(side));
        let month = self.svc.game(&self.game).unwrap().month;
        let subject = format!("[dervish {}] orders {month}", self.game);
        self.mail(from, &subject, &text)
    }

    fn deliver(&self, raw: &[u8]) {
        self.inbox.deliver(raw).unwrap();
    }

    fn sent(&self) -> Vec<Sent> {
        self.table.sent_text()
    }

    fn sent_to(&self, addr: &str) -> Vec<Sent> {
        self.sent()
            .into_iter()
            .filter(|s| s.to.iter().any(|t| t == addr))
            .collect()
    }
}

fn raw_mail(from: &str, subject: &str, body: &str, id: &str, extra: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: dervish@example.org\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\n{extra}Content-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

#[test]
fn a_full_month_in_monthly_mode_with_receipts_results_and_verification() {
    let mut h = Harness::new("monthly", Mode::Monthly);
    // Welcome mails carry each player's secret and the seed fingerprint.
    h.pass();
    let welcome = h.sent_to("gordon@example.org");
    assert_eq!(welcome.len(), 1);
    assert!(welcome[0].text.contains(&h.secret(Side::Egyptian)));
    assert!(welcome[0].raw.contains("Auto-Submitted: auto-generated"));
    let g = h.svc.game("k-1").unwrap();
    assert!(welcome[0].text.contains(&g.seed_sha256));
    // Orders from both sides, each READY.
    let e = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    let m = h.orders(Side::Mahdist, "MARCH LEADER Osman Digma TO Tamai\nREADY\n");
    h.deliver(&e);
    h.deliver(&m);
    let r = h.pass();
    assert_eq!(r.messages, 2);
    assert_eq!(r.turns_played, vec![("k-1".to_string(), 1)]);
    let to_gordon = h.sent_to("gordon@example.org");
    let receipt = to_gordon
        .iter()
        .find(|s| s.subject.contains("orders received"))
        .expect("a receipt");
    assert!(
        receipt
            .text
            .contains("MARCH STACK Sinkat (5021) TO Souakim (5419)")
    );
    assert!(receipt.text.contains("Sealed orders: version 1"));
    // The results carry the player's order of battle and where victory
    // stands.
    let results = to_gordon
        .iter()
        .find(|s| s.subject.contains("results"))
        .expect("results");
    assert!(
        results.text.contains("Your order of battle (Egyptian)")
            && results.text.contains("ER05")
            && results.text.contains("Where victory stands")
            && results.text.contains("The game ends after"),
        "{}",
        results.text
    );
    // The month's news first, then the orders' outcomes, then where the
    // full log went.
    let news = results.text.find("The month's news").expect("the news");
    let orders = results
        .text
        .find("Your orders (Egyptian)")
        .expect("the orders' outcomes");
    let seen = results
        .text
        .find("What the Mahdist was seen to do")
        .expect("the enemy's marches");
    let log = results
        .text
        .find("The full log, every roll")
        .expect("where the full log is");
    assert!(
        news < orders && orders < seen && seen < log,
        "{}",
        results.text
    );
    assert!(
        flat(&results.text).contains("1. 2 units from Sinkat (5021):"),
        "{}",
        results.text
    );
    // A READY set: played once every side is ready, and no later set
    // counts then.
    assert!(
        receipt.text.contains("This set says READY")
            && receipt.text.contains("no set sent after that counts"),
        "{}",
        receipt.text
    );
    assert!(receipt.raw.contains("In-Reply-To: <m1@players.example>"));
    assert!(receipt.raw.contains("Auto-Submitted: auto-replied"));
    let results = to_gordon
        .iter()
        .find(|s| s.subject.contains("results"))
        .expect("results");
    assert!(
        results
            .subject
            .contains("[dervish k-1] February 1884 results"),
        "{}",
        results.subject
    );
    // The seed is revealed and matches the fingerprint published before.
    assert!(results.text.contains(&g.seed_hex));
    assert!(results.text.contains(&g.seed_sha256));
    assert!(results.raw.contains("text/html"));
    // The game moved on a month, with a fresh seed.
    let g2 = h.svc.game("k-1").unwrap();
    assert_eq!(g2.turn_no, 2);
    assert_eq!(g2.month, "1884-03");
    assert_ne!(g2.seed_hex, g.seed_hex);
    // The turn plays again byte for byte.
    let v = h.svc.verify("k-1", "1884-02").unwrap();
    assert_eq!(v.len(), 1);
    assert!(v[0].drift.is_empty(), "{:?}", v[0].drift);
    assert!(
        h.svc
            .replay("k-1")
            .unwrap()
            .iter()
            .all(|v| v.drift.is_empty())
    );
    // Nothing is sent twice.
    let before = h.sent().len();
    h.pass();
    assert_eq!(h.sent().len(), before);
}

#[test]
fn alternating_mode_plays_each_player_turn_on_its_own() {
    let mut h = Harness::new("alternating", Mode::Alternating);
    let m = h.orders(Side::Mahdist, "MARCH LEADER Osman Digma TO Tamai\nREADY\n");
    h.deliver(&m);
    h.pass();
    let refusal = h.sent_to("mahdi@example.org");
    assert!(
        refusal
            .iter()
            .any(|s| s.text.contains("it is the Egyptian player turn")),
        "{refusal:#?}"
    );
    let e = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    h.deliver(&e);
    let r = h.pass();
    assert_eq!(r.turns_played.len(), 1);
    let g = h.svc.game("k-1").unwrap();
    assert_eq!(g.turn_kind.as_str(), "mahdist");
    assert_eq!(g.month, "1884-02");
    let m = h.orders(Side::Mahdist, "MARCH LEADER Osman Digma TO Tamai\nREADY\n");
    h.deliver(&m);
    h.pass();
    let g = h.svc.game("k-1").unwrap();
    assert_eq!(
        (g.turn_no, g.month.as_str(), g.turn_kind.as_str()),
        (3, "1884-03", "egyptian")
    );
    assert!(
        h.svc
            .replay("k-1")
            .unwrap()
            .iter()
            .all(|v| v.drift.is_empty())
    );
}

#[test]
fn sending_again_replaces_the_orders_and_the_deadline_plays_without_ready() {
    let mut h = Harness::new("replace", Mode::Monthly);
    let a = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\n");
    let b = h.orders(Side::Egyptian, "MARCH STACK Tokar TO El Teb\n");
    h.deliver(&a);
    h.deliver(&b);
    let r = h.pass();
    assert!(r.turns_played.is_empty(), "not ready, deadline not passed");
    let receipts: Vec<Sent> = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("orders received"))
        .collect();
    assert_eq!(receipts.len(), 2);
    assert!(
        receipts
            .iter()
            .any(|s| s.text.contains("replaces version 1"))
    );
    // The reminder comes a day before the deadline, once.
    h.advance(50);
    assert_eq!(h.pass().reminders, 2);
    assert_eq!(h.pass().reminders, 0);
    // Passes every few minutes, as the daemon makes them: the deadline
    // passes while the service runs, so the turn is played.
    h.advance_minutes(21 * 60 + 58);
    assert!(h.pass().turns_played.is_empty());
    h.advance_minutes(3);
    let r = h.pass();
    assert_eq!(r.turns_played.len(), 1);
    let turns = store::turns(&h.svc.conn, "k-1").unwrap();
    let set = store::order_set(&h.svc.conn, turns[0].egyptian_set.unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(set.version, 2, "the last set counts");
    assert_eq!(turns[0].mahdist_set, None, "the Mahdist side held");
    assert_eq!(turns[0].mahdist_sha256, dervish::service::turns::NO_ORDERS);
    assert!(
        h.sent_to("mahdi@example.org")
            .iter()
            .any(|s| s.subject.contains("no orders from you")),
        "the late side is told"
    );
}

#[test]
fn each_bad_input_has_its_exact_outcome() {
    let mut h = Harness::new("bad", Mode::Monthly);
    let svc = |h: &mut Harness, raw: &[u8]| h.svc.receive(raw).unwrap();
    // Wrong secret: refused, answered to the registered address.
    let raw = h.mail(
        "gordon@example.org",
        "[dervish k-1] orders 1884-02",
        "SECRET 00000000-00000000-00000000-00000000\nREADY\n",
    );
    assert!(
        matches!(svc(&mut h, &raw), Outcome::Refused(r) if r.contains("SECRET does not match"))
    );
    // No secret at all.
    let raw = h.mail("gordon@example.org", "[dervish k-1] orders", "READY\n");
    assert!(matches!(svc(&mut h, &raw), Outcome::Refused(r) if r.contains("no SECRET")));
    // Unknown sender: ignored, never answered (no backscatter).
    let raw = h.mail("stranger@example.com", "[dervish k-1] orders", "READY\n");
    assert!(matches!(svc(&mut h, &raw), Outcome::Ignored(r) if r.contains("not a player")));
    // A game the player is not in.
    let raw = h.mail("gordon@example.org", "[dervish other-9] orders", "READY\n");
    assert!(matches!(svc(&mut h, &raw), Outcome::Refused(r) if r.contains("no such game")));
    // Wrong month: the whole set is refused.
    let body = format!(
        "SECRET {}\nMONTH 1884-06\nREADY\n",
        h.secret(Side::Egyptian)
    );
    let raw = h.mail("gordon@example.org", "orders", &body);
    assert!(
        matches!(svc(&mut h, &raw), Outcome::Refused(r) if r.contains("June 1884")),
        "wrong month"
    );
    // Auto-reply and bounce-like bulk mail: ignored.
    let raw = raw_mail(
        "gordon@example.org",
        "Out of office",
        "I am away",
        "auto1@x",
        "Auto-Submitted: auto-replied\r\n",
    );
    assert!(matches!(svc(&mut h, &raw), Outcome::Ignored(r) if r.contains("automatic")));
    // Our own mail come back.
    let raw = raw_mail(
        "gordon@example.org",
        "x",
        "READY",
        "loop1@x",
        "X-Loop: dervish@example.org\r\n",
    );
    assert!(matches!(svc(&mut h, &raw), Outcome::Ignored(r) if r.contains("X-Loop")));
    // Malformed MIME.
    let raw = b"From: gordon@example.org\r\nMessage-ID: <bad@x>\r\nContent-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n--zz\r\nContent-Type: text/plain\r\n\r\nREADY\r\n".to_vec();
    let out = svc(&mut h, &raw);
    assert!(
        matches!(out, Outcome::Refused(_) | Outcome::Ignored(_)),
        "{out:?}"
    );
    // HTML only, with the right secret: accepted.
    let html = format!(
        "From: gordon@example.org\r\nTo: dervish@example.org\r\nSubject: [dervish k-1] orders\r\nMessage-ID: <html1@x>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>SECRET {}</p><p>MARCH STACK Sinkat TO Souakim</p></body></html>\r\n",
        h.secret(Side::Egyptian)
    );
    assert!(matches!(
        svc(&mut h, html.as_bytes()),
        Outcome::Orders { version: 1, .. }
    ));
    // The same message again: applied once.
    assert_eq!(svc(&mut h, html.as_bytes()), Outcome::Duplicate);
    // A 10 MB message from a player: a polite refusal.
    let big = raw_mail(
        "mahdi@example.org",
        "orders",
        &"x".repeat(10 << 20),
        "big@x",
        "",
    );
    assert!(matches!(svc(&mut h, &big), Outcome::Refused(r) if r.contains("KiB")));
    // After the deadline: refused.
    h.advance(73);
    let late = h.orders(Side::Mahdist, "READY\n");
    assert!(matches!(svc(&mut h, &late), Outcome::Refused(r) if r.contains("deadline")));
    h.flush();
    assert!(h.sent_to("stranger@example.com").is_empty());
    let receipts = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("orders received"))
        .count();
    assert_eq!(receipts, 1, "the duplicate got no second receipt");
}

#[test]
fn repeated_failed_secrets_are_reported_and_then_not_answered() {
    let mut h = Harness::new("auth", Mode::Monthly);
    for i in 0..5 {
        let raw = h.mail(
            "mahdi@example.org",
            "[dervish k-1] orders",
            &format!("SECRET wrong-{i}\nREADY\n"),
        );
        let out = h.svc.receive(&raw).unwrap();
        if i < 3 {
            assert!(matches!(out, Outcome::Refused(_)), "{i}: {out:?}");
        } else {
            assert!(matches!(out, Outcome::Ignored(_)), "{i}: {out:?}");
        }
    }
    h.flush();
    let gm = h.sent_to("gm@example.org");
    assert_eq!(gm.len(), 1);
    assert!(gm[0].text.contains("without the right secret"));
    assert_eq!(
        h.sent_to("mahdi@example.org")
            .iter()
            .filter(|s| s.subject.contains("not accepted"))
            .count(),
        3
    );
}

#[test]
fn a_bounce_marks_the_player_unreachable_and_tells_the_others() {
    let mut h = Harness::new("bounce", Mode::Monthly);
    h.pass();
    let welcome = h.svc.thread_root("k-1", Side::Mahdist);
    let bounce = format!(
        "From: MAILER-DAEMON@example.org\r\nTo: dervish@example.org\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce1@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n--b1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; example.org\r\n\r\nFinal-Recipient: rfc822; mahdi@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n--b1\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <{welcome}>\r\nTo: mahdi@example.org\r\n--b1--\r\n"
    );
    let out = h.svc.receive(bounce.as_bytes()).unwrap();
    assert!(
        matches!(&out, Outcome::Bounce(r) if r.contains("mahdi@example.org")),
        "{out:?}"
    );
    let p = store::players(&h.svc.conn, "k-1").unwrap();
    assert!(p.iter().any(|p| p.side == Side::Mahdist && p.unreachable));
    h.flush();
    assert!(
        h.sent_to("gm@example.org")
            .iter()
            .any(|s| s.text.contains("could not be delivered"))
    );
    assert!(
        h.sent_to("gordon@example.org")
            .iter()
            .any(|s| s.subject.contains("unreachable"))
    );
}

/// A forged delivery report (naming a player, but returning no mail
/// Dervish sent) marks nobody unreachable and writes to nobody.
#[test]
fn a_forged_bounce_is_ignored() {
    let mut h = Harness::new("forged", Mode::Monthly);
    h.pass();
    let before = h.sent().len();
    for original in ["", "Message-ID: <not-ours@elsewhere.example>\r\n"] {
        let bounce = format!(
            "From: MAILER-DAEMON@example.org\r\nTo: dervish@example.org\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-ID: <forged{}@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n--b1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; example.org\r\n\r\nFinal-Recipient: rfc822; mahdi@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n--b1\r\nContent-Type: text/rfc822-headers\r\n\r\n{original}To: mahdi@example.org\r\n--b1--\r\n",
            original.len()
        );
        let out = h.svc.receive(bounce.as_bytes()).unwrap();
        assert!(
            matches!(&out, Outcome::Ignored(r) if r.contains("no mail Dervish sent")),
            "{out:?}"
        );
    }
    let p = store::players(&h.svc.conn, "k-1").unwrap();
    assert!(p.iter().all(|p| !p.unreachable));
    h.flush();
    assert_eq!(h.sent().len(), before, "nobody is written to");
}

#[test]
fn a_deadline_that_passed_while_the_service_was_down_is_extended() {
    let mut h = Harness::new("downtime", Mode::Monthly);
    h.pass();
    h.advance(100);
    let r = h.pass();
    assert_eq!(r.extended, vec!["k-1".to_string()]);
    assert!(r.turns_played.is_empty());
    let g = h.svc.game("k-1").unwrap();
    assert_eq!(g.status, Status::Running);
    assert!(g.deadline > *h.now.lock().unwrap());
    assert!(
        h.sent_to("gordon@example.org")
            .iter()
            .any(|s| flat(&s.text).contains("while Dervish was not running"))
    );
}

/// HELP works for anyone: a player who sends HELP without his secret gets
/// the whole guide by mail, a stranger a short answer (tests/floods.rs),
/// and no reply points to a file players cannot open. A stranger's HELP
/// counts against the hourly cap of answers to one address.
#[test]
fn help_works_for_anyone() {
    let mut h = Harness::new("help", Mode::Monthly);
    let m = h.mail("gordon@example.org", "help please", "HELP\n");
    h.deliver(&m);
    h.pass();
    let to = h.sent_to("gordon@example.org");
    let help = to
        .iter()
        .find(|s| s.subject.ends_with("help"))
        .expect("a help answer");
    assert!(help.text.contains("how to write orders"), "{}", help.text);
    assert!(
        help.text.contains("The full guide follows"),
        "{}",
        help.text
    );
    assert!(help.text.contains("MARCH LEADER Baker TO Tamai ATTACK ANY"));
    assert!(
        !to.iter()
            .any(|s| s.text.contains("SECRET does not match") || s.text.contains("no SECRET line"))
    );
    let seat = store::players(&h.svc.conn, "k-1")
        .unwrap()
        .into_iter()
        .find(|p| p.side == Side::Egyptian)
        .unwrap();
    assert_eq!(seat.auth_failures, 0);
    for n in 0..5 {
        let m = h.mail("newcomer@example.net", &format!("how? {n}"), "help\n");
        h.deliver(&m);
    }
    h.pass();
    let to = h.sent_to("newcomer@example.net");
    assert_eq!(to.len(), 3, "capped at three an hour");
    assert!(
        to[0].subject.contains("[dervish] help"),
        "{}",
        to[0].subject
    );
    for s in h.sent() {
        assert!(!s.text.contains("docs/"), "{}: {}", s.subject, s.text);
    }
}

/// The welcome mail's example is a march that side can really order now,
/// accepted by the checker: never the other side's stack.
#[test]
fn the_welcome_example_is_an_order_the_side_can_give() {
    let mut h = Harness::new("example", Mode::Monthly);
    h.pass();
    let g = h.svc.game("k-1").unwrap();
    let scn = h.svc.scenario(&g.scenario).unwrap();
    let state = h.svc.state_of(&g).unwrap();
    for (side, to) in [
        (Side::Egyptian, "gordon@example.org"),
        (Side::Mahdist, "mahdi@example.org"),
    ] {
        let welcome = h
            .sent_to(to)
            .into_iter()
            .find(|s| s.subject.contains("welcome"))
            .expect("a welcome mail");
        let lines: Vec<&str> = welcome.text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with("SECRET "))
            .expect("the example");
        let example = lines[at + 1].trim();
        assert!(example.starts_with("MARCH STACK"), "{side}: {example}");
        let p = dervish::orders::parse(
            &dervish::orders::Input::text(example),
            &dervish::orders::Vocabulary::new(&scn),
        )
        .unwrap();
        assert!(p.errors.is_empty(), "{side}: {example}: {:?}", p.errors);
        let c = dervish::orders::check(&p.sheet, &scn, &state, side);
        assert!(c.errors.is_empty(), "{side}: {example}: {:?}", c.errors);
        assert!(welcome.text.contains("The first turn is"));
    }
}

/// STATUS on a finished game gives the result, not a deadline.
#[test]
fn status_of_a_finished_game_gives_the_result() {
    let mut h = Harness::new("finished", Mode::Monthly);
    h.svc
        .conn
        .execute(
            "UPDATE games SET status = 'finished', result = 'Mahdist victory: Khartoum fell' WHERE id = 'k-1'",
            [],
        )
        .unwrap();
    let c = h.orders(Side::Egyptian, "STATUS\n");
    h.deliver(&c);
    h.pass();
    let to = h.sent_to("gordon@example.org");
    let status = to
        .iter()
        .find(|s| s.subject.contains("status"))
        .expect("a status answer");
    assert!(
        status
            .text
            .contains("The game is over: Mahdist victory: Khartoum fell."),
        "{}",
        status.text
    );
    assert!(!status.text.contains("Orders are due"), "{}", status.text);
}

#[test]
fn commands_are_answered_and_do_not_replace_orders() {
    let mut h = Harness::new("commands", Mode::Monthly);
    let e = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\n");
    h.deliver(&e);
    let c = h.orders(
        Side::Egyptian,
        "HELP\nSTATUS\nMAP Khartoum\nROUTE Korti TO Metammeh\n",
    );
    h.deliver(&c);
    h.pass();
    let to = h.sent_to("gordon@example.org");
    assert!(to.iter().any(|s| s.text.contains("how to write orders")));
    assert!(
        to.iter()
            .any(|s| s.subject.contains("status") && s.text.contains("orders in (version 1)"))
    );
    // Each player's line on a line of its own.
    let status = to
        .iter()
        .find(|s| s.subject.contains("status"))
        .expect("a status answer");
    assert!(
        status
            .text
            .lines()
            .any(|l| l.starts_with("Egyptian: ") && !l.contains("Mahdist:")),
        "{}",
        status.text
    );
    assert!(to.iter().any(|s| s.text.contains("Route from Korti")));
    let set = store::latest_order_set(&h.svc.conn, "k-1", 1, Side::Egyptian)
        .unwrap()
        .unwrap();
    assert_eq!(set.version, 1);
}

#[test]
fn game_master_commands_are_audited() {
    let mut h = Harness::new("gm", Mode::Monthly);
    let before = h.svc.game("k-1").unwrap().deadline;
    h.svc.extend("k-1", 24, "gm").unwrap();
    assert_eq!(
        h.svc.game("k-1").unwrap().deadline,
        before + Duration::hours(24)
    );
    h.svc.set_paused("k-1", true, "gm").unwrap();
    h.advance(500);
    assert!(
        h.pass().turns_played.is_empty(),
        "a paused game does not play"
    );
    h.svc.set_paused("k-1", false, "gm").unwrap();
    h.svc
        .replace_player("k-1", Side::Mahdist, "khalifa@example.org", "gm")
        .unwrap();
    let log = store::audit_log(&h.svc.conn, "k-1").unwrap();
    let actions: Vec<&str> = log.iter().map(|(_, _, a, _)| a.as_str()).collect();
    assert_eq!(
        actions,
        [
            "game new",
            "game extend",
            "game pause",
            "game resume",
            "game replace"
        ]
    );
    h.flush();
    assert!(
        h.sent_to("khalifa@example.org")
            .iter()
            .any(|s| s.subject.contains("welcome"))
    );
}

/// After GM REPLACE the player who leaves and the opponent are told, the
/// new player's welcome names the month the game is at, and the game
/// master's reply names the game in its subject.
#[test]
fn a_replaced_player_and_the_opponent_are_told() {
    let mut h = Harness::new("gm-replace", Mode::Monthly);
    h.svc.set_gm_password("correct horse battery").unwrap();
    let raw = h.mail(
        "gm@example.org",
        "commands",
        "PASSWORD correct horse battery\nGM REPLACE k-1 mahdist khalifa@example.org\n",
    );
    assert!(matches!(
        h.svc.receive(&raw).unwrap(),
        Outcome::Commands { .. }
    ));
    h.pass();
    let old = h.sent_to("mahdi@example.org");
    assert!(
        old.iter()
            .any(|s| s.subject.contains("you no longer play the Mahdist side")),
        "{:?}",
        old.iter().map(|s| &s.subject).collect::<Vec<_>>()
    );
    let opp = h.sent_to("gordon@example.org");
    assert!(
        opp.iter()
            .any(|s| s.subject.contains("the Mahdist side has a new player")
                && s.text.contains("khalifa@example.org"))
    );
    let gm = h.sent_to("gm@example.org");
    assert!(
        gm.iter()
            .any(|s| s.subject.contains("[dervish k-1] game master commands")),
        "{:?}",
        gm.iter().map(|s| &s.subject).collect::<Vec<_>>()
    );
    let welcome = h
        .sent_to("khalifa@example.org")
        .into_iter()
        .find(|s| s.subject.contains("welcome"))
        .expect("a welcome");
    assert!(welcome.text.contains("February 1884"), "{}", welcome.text);
}

/// GM REPLACE ... bot by mail gives the seat to the programmed player:
/// the player who leaves and the opponent are told, and its orders for the
/// open turn are in, READY.
#[test]
fn gm_replace_by_mail_gives_a_seat_to_the_bot() {
    let mut h = Harness::new("gm-bot", Mode::Monthly);
    h.svc.set_gm_password("correct horse battery").unwrap();
    let raw = h.mail(
        "gm@example.org",
        "commands",
        "PASSWORD correct horse battery\nGM REPLACE k-1 mahdist bot\n",
    );
    assert!(matches!(
        h.svc.receive(&raw).unwrap(),
        Outcome::Commands { .. }
    ));
    h.pass();
    assert!(
        h.sent_to("mahdi@example.org")
            .iter()
            .any(|s| s.subject.contains("you no longer play the Mahdist side"))
    );
    assert!(h.sent_to("gordon@example.org").iter().any(|s| {
        s.subject
            .contains("the Mahdist side is now played by Dervish")
    }));
    let gm = h.sent_to("gm@example.org");
    assert!(
        gm.iter()
            .any(|s| flat(&s.text).contains("now belongs to the programmed player")),
        "{:?}",
        gm.iter().map(|s| &s.text).collect::<Vec<_>>()
    );
    let set = store::latest_order_set(&h.svc.conn, "k-1", 1, Side::Mahdist)
        .unwrap()
        .expect("the bot's orders");
    assert!(set.ready);
    // The old player's secret no longer works: his orders do not replace
    // the bot's.
    let e = h.orders(Side::Mahdist, "MARCH STACK Tamai TO Hasheen\nREADY\n");
    h.deliver(&e);
    h.pass();
    let after = store::latest_order_set(&h.svc.conn, "k-1", 1, Side::Mahdist)
        .unwrap()
        .unwrap();
    assert_eq!(after.id, set.id);
    assert!(after.message.is_none());
}

/// A deadline of 0 hours is refused with a clear error, not made 1.
#[test]
fn a_zero_hour_deadline_is_refused() {
    let h = Harness::new("zero-deadline", Mode::Monthly);
    let e = h
        .svc
        .new_game(
            &NewGame {
                egyptian: "a@example.org".into(),
                mahdist: "b@example.org".into(),
                deadline_hours: Some(0),
                ..mailbox::game("khartoum", "z-1")
            },
            "test",
        )
        .unwrap_err();
    assert!(e.to_string().contains("0 hours"), "{e}");
    assert!(h.svc.game("z-1").is_err());
}

#[test]
fn game_master_commands_by_mail_need_the_password() {
    let mut h = Harness::new("gm-mail", Mode::Monthly);
    let cmds = "PASSWORD correct horse battery\nGM EXTEND k-1 24\nGM NEW el-obeid hicks@example.org mahdi2@example.org obeid-1 alternating 48 AMBUSHES\nGM OBSERVE k-1 slatin@example.org\nGM FROBNICATE\n";
    // No password set yet: refused, nothing run.
    let raw = h.mail("gm@example.org", "commands", cmds);
    assert!(
        matches!(h.svc.receive(&raw).unwrap(), Outcome::Refused(r) if r.contains("no game master password"))
    );
    assert!(h.svc.set_gm_password("short").is_err());
    h.svc.set_gm_password("correct horse battery").unwrap();
    let wrong = h.mail(
        "gm@example.org",
        "commands",
        "PASSWORD wrong horse battery\nGM PAUSE k-1\n",
    );
    assert!(
        matches!(h.svc.receive(&wrong).unwrap(), Outcome::Refused(r) if r.contains("PASSWORD is wrong"))
    );
    assert_eq!(h.svc.game("k-1").unwrap().status, Status::Running);
    // A player's address with the right password is not the game master.
    let player = h.mail("gordon@example.org", "commands", cmds);
    assert!(!matches!(
        h.svc.receive(&player).unwrap(),
        Outcome::Commands { .. }
    ));
    let before = h.svc.game("k-1").unwrap().deadline;
    let raw = h.mail("gm@example.org", "commands", cmds);
    assert!(matches!(
        h.svc.receive(&raw).unwrap(),
        Outcome::Commands { .. }
    ));
    assert_eq!(
        h.svc.game("k-1").unwrap().deadline,
        before + Duration::hours(24)
    );
    let g = h.svc.game("obeid-1").unwrap();
    assert_eq!(
        (g.scenario.as_str(), g.mode, g.deadline_hours),
        ("el-obeid", Mode::Alternating, 48)
    );
    assert!(h.svc.state_of(&g).unwrap().options.ambushes);
    assert!(
        !h.svc
            .state_of(&h.svc.game("k-1").unwrap())
            .unwrap()
            .options
            .ambushes
    );
    assert_eq!(
        store::observers(&h.svc.conn, "k-1").unwrap(),
        vec!["slatin@example.org".to_string()]
    );
    h.flush();
    let answer = h
        .sent_to("gm@example.org")
        .into_iter()
        .find(|s| s.subject.contains("game master commands") && !s.subject.contains("not accepted"))
        .unwrap();
    assert!(answer.text.contains("deadline now"), "{}", answer.text);
    assert!(
        answer.text.contains("game obeid-1 created"),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("error: usage"), "{}", answer.text);
    let log = store::audit_log(&h.svc.conn, "k-1").unwrap();
    assert!(
        log.iter()
            .any(|(_, actor, action, _)| actor == "mail:gm@example.org" && action == "game extend")
    );
}

#[test]
fn results_name_the_reinforcements_due() {
    let mut h = Harness::new("reinforcements", Mode::Monthly);
    // Play on to August 1884: the Gordon relief is due in September.
    while h.svc.game("k-1").unwrap().month != "1884-09" {
        h.svc.play_turn("k-1").unwrap();
        if h.svc.game("k-1").unwrap().status != Status::Running {
            return; // the game ended early; nothing to check
        }
    }
    h.pass();
    let last = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("August 1884 results"))
        .collect::<Vec<_>>();
    assert_eq!(last.len(), 1);
    assert!(
        last[0].text.contains("Reinforcements due:"),
        "{}",
        last[0].text
    );
    assert!(
        last[0].text.contains("gordon-relief (Egyptian)"),
        "{}",
        last[0].text
    );
}

#[test]
fn join_takes_an_open_seat() {
    let mut h = Harness::new("join", Mode::Monthly);
    h.svc
        .new_game(
            &NewGame {
                egyptian: "hicks@example.org".into(),
                mahdist: "open".into(),
                ..mailbox::game("el-obeid", "obeid-1")
            },
            "gm",
        )
        .unwrap();
    // A JOIN for a full game is not answered.
    let raw = h.mail("wingate@example.org", "[dervish k-1] join", "JOIN\n");
    assert!(matches!(h.svc.receive(&raw).unwrap(), Outcome::Ignored(_)));
    // The open seat is taken once the address confirms the JOIN.
    let raw = h.mail(
        "abdallahi@example.org",
        "[dervish obeid-1] join",
        "JOIN MAHDIST\n",
    );
    assert!(matches!(
        h.svc.receive(&raw).unwrap(),
        Outcome::JoinAsked { asked: true, .. }
    ));
    assert_eq!(
        confirm_join(&mut h, "abdallahi@example.org"),
        Outcome::Joined {
            game: "obeid-1".into(),
            side: Side::Mahdist
        }
    );
    // Only once.
    let raw = h.mail("other@example.org", "[dervish obeid-1] join", "JOIN\n");
    assert!(matches!(h.svc.receive(&raw).unwrap(), Outcome::Ignored(_)));
    h.flush();
    // The request to confirm and the welcome.
    let to = h.sent_to("abdallahi@example.org");
    assert_eq!(to.len(), 2);
    assert!(to.iter().any(|s| s.subject.contains("JOIN: confirm")));
    assert!(
        to.iter()
            .any(|s| s.subject.contains("welcome: you play the Mahdist side"))
    );
    assert!(
        h.sent_to("gm@example.org")
            .iter()
            .any(|s| s.text.contains("took the open Mahdist seat"))
    );
    assert!(h.sent_to("other@example.org").is_empty());
    assert!(h.sent_to("wingate@example.org").is_empty());
}

/// Reply to the last JOIN confirmation request sent to `from` with its
/// token (docs/orders.md, "Joining a game").
fn confirm_join(h: &mut Harness, from: &str) -> Outcome {
    h.flush();
    let token = h
        .sent_to(from)
        .iter()
        .rev()
        .find_map(|s| mailbox::join_token(&s.text))
        .expect("a JOIN confirmation request");
    let raw = h.mail(from, "Re: join", &format!("JOIN CONFIRM {token}\n"));
    h.svc.receive(&raw).unwrap()
}

#[test]
fn notices_of_the_same_kind_in_two_games_are_each_sent() {
    let mut h = Harness::new("notices-two-games", Mode::Monthly);
    // The same Egyptian player in a second game; both miss the deadline.
    h.svc
        .new_game(&mailbox::game("khartoum", "k-2"), "test")
        .unwrap();
    // Two games with an open Mahdist seat, joined one after the other.
    for id in ["obeid-1", "obeid-2"] {
        h.svc
            .new_game(
                &NewGame {
                    egyptian: "hicks@example.org".into(),
                    mahdist: "open".into(),
                    ..mailbox::game("el-obeid", id)
                },
                "gm",
            )
            .unwrap();
        let from = format!("abdallahi-{id}@example.org");
        let raw = h.mail(&from, &format!("[dervish {id}] join"), "JOIN MAHDIST\n");
        assert!(matches!(
            h.svc.receive(&raw).unwrap(),
            Outcome::JoinAsked { asked: true, .. }
        ));
        assert!(matches!(
            confirm_join(&mut h, &from),
            Outcome::Joined { .. }
        ));
    }
    h.pass();
    // Passes as the daemon makes them, until the deadline has passed.
    h.advance(71);
    h.pass();
    h.advance_minutes(59);
    h.pass();
    h.advance_minutes(2);
    assert_eq!(h.pass().turns_played.len(), 4);
    let joins: Vec<String> = h
        .sent_to("gm@example.org")
        .into_iter()
        .filter(|s| s.text.contains("took the open Mahdist seat"))
        .map(|s| s.text)
        .collect();
    assert_eq!(joins.len(), 2, "{joins:?}");
    assert!(joins.iter().any(|t| flat(t).contains("game obeid-1")));
    assert!(joins.iter().any(|t| flat(t).contains("game obeid-2")));
    let late = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("no orders from you"))
        .count();
    assert_eq!(late, 2, "one missed-turn notice for each game");
}

#[test]
fn each_kind_of_command_is_answered_once_per_mail() {
    let mut h = Harness::new("amplification", Mode::Monthly);
    let mut body = "STATUS\n".repeat(470);
    body.push_str(&"HELP\n".repeat(10));
    body.push_str(&"MAP Khartoum\n".repeat(5));
    body.push_str("MAP Korti\nMAP Metammeh\nMAP Souakim\nRESEND\nRESEND\n");
    let raw = h.orders(Side::Egyptian, &body);
    let out = h.svc.receive(&raw).unwrap();
    assert!(matches!(out, Outcome::Commands { .. }), "{out:?}");
    let answers: Vec<String> = store::mail_for(&h.svc.conn, Some("k-1"))
        .unwrap()
        .into_iter()
        .filter(|m| m.kind == "answer")
        .map(|m| m.body_text)
        .collect();
    // STATUS, HELP, RESEND once; MAP for the first three places.
    let heads: Vec<&str> = answers.iter().filter_map(|t| t.lines().next()).collect();
    assert_eq!(answers.len(), 6, "{heads:?}");
    assert_eq!(
        answers
            .iter()
            .filter(|t| t.contains("how to write orders"))
            .count(),
        1
    );
}

/// One truth about how long a mail may be: the player's guide, the example
/// configuration and both refusals name the limits the code applies.
#[test]
fn the_size_limits_in_the_guide_config_and_refusals_agree() {
    use dervish::orders::clean::{MAX_BYTES, MAX_LINES, Refusal};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("docs/orders.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let whole = Config::default().limits.max_message_bytes;
    let text_kib = format!("at most {} KiB long", MAX_BYTES / 1024);
    let whole_kib = format!("at most {} KiB long as sent", whole / 1024);
    let lines = format!("at most {MAX_LINES} lines of orders");
    for want in [&text_kib, &whole_kib, &lines] {
        assert!(
            guide.contains(want.as_str()),
            "docs/orders.md lacks {want:?}"
        );
    }
    let example = std::fs::read_to_string(root.join("config.example.toml")).unwrap();
    assert!(
        example.contains(&format!("max_message_bytes = {whole}\n")),
        "config.example.toml shows the default"
    );
    let refusal = Refusal::TooLong(MAX_BYTES + 1).to_string();
    assert!(
        refusal.contains(&format!("at most {} KiB of text", MAX_BYTES / 1024)),
        "{refusal}"
    );
    // A message over the whole-message limit names that limit.
    let mut h = Harness::new("size-limits", Mode::Monthly);
    let body = format!("SECRET {}\n{}", h.secret(Side::Egyptian), "x".repeat(whole));
    let raw = h.mail("gordon@example.org", "[dervish k-1] orders", &body);
    let out = h.svc.receive(&raw).unwrap();
    assert!(matches!(out, Outcome::Refused(_)), "{out:?}");
    h.flush();
    let told = h.sent_to("gordon@example.org");
    assert!(
        told.iter().any(|s| s
            .text
            .contains(&format!("messages of up to {} KiB", whole / 1024))),
        "{:?}",
        told.iter().map(|s| &s.text).collect::<Vec<_>>()
    );
}

#[test]
fn wrong_game_master_passwords_lock_game_master_mail_for_a_growing_wait() {
    let mut h = Harness::new("gm-lockout", Mode::Monthly);
    h.svc.set_gm_password("correct horse battery").unwrap();
    let send = |h: &mut Harness, password: &str| {
        let raw = h.mail(
            "gm@example.org",
            "commands",
            &format!("PASSWORD {password}\nGM PAUSE k-1\n"),
        );
        h.svc.receive(&raw).unwrap()
    };
    for _ in 0..3 {
        let out = send(&mut h, "wrong horse battery");
        assert!(matches!(out, Outcome::Refused(_)), "{out:?}");
    }
    // Locked: even the right password is not looked at.
    let out = send(&mut h, "correct horse battery");
    assert!(
        matches!(&out, Outcome::Ignored(r) if r.contains("locked")),
        "{out:?}"
    );
    assert_eq!(h.svc.game("k-1").unwrap().status, Status::Running);
    // The wait is over; another wrong password doubles it (30 minutes).
    h.advance_minutes(16);
    let out = send(&mut h, "wrong again, twelve");
    assert!(matches!(out, Outcome::Ignored(_)), "{out:?}");
    h.advance_minutes(16);
    let out = send(&mut h, "correct horse battery");
    assert!(
        matches!(&out, Outcome::Ignored(r) if r.contains("locked")),
        "{out:?}"
    );
    h.advance_minutes(15);
    let out = send(&mut h, "correct horse battery");
    assert!(matches!(out, Outcome::Commands { .. }), "{out:?}");
    assert_eq!(h.svc.game("k-1").unwrap().status, Status::Paused);
    // The right password cleared the count.
    let out = send(&mut h, "wrong horse battery");
    assert!(matches!(out, Outcome::Refused(_)), "{out:?}");
    h.flush();
    let locked = h
        .sent_to("gm@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("game master mail locked"))
        .count();
    assert_eq!(locked, 1, "the game master is told once");
    let until: String = store::service_value(&h.svc.conn, "gm_locked_until")
        .unwrap()
        .unwrap();
    assert_eq!(until, "", "cleared in the database");
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    fn service() -> (Service, Vec<(Side, String)>) {
        let cfg = Config {
            outgoing: TransportConfig::File {
                dir: std::env::temp_dir().join("dervish-prop-unused"),
            },
            ..Config::default()
        };
        let svc = Service::with_connection(cfg, store::open_in_memory().unwrap()).unwrap();
        let c = svc
            .new_game(&mailbox::game("khartoum", "k-1"), "test")
            .unwrap();
        (svc, c.secrets)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

        /// Whatever arrives, intake stores it and says what it did; it
        /// never fails or panics.
        #[test]
        fn intake_takes_any_bytes(raw in prop::collection::vec(any::<u8>(), 0..2000)) {
            let (mut svc, _) = service();
            prop_assert!(svc.receive(&raw).is_ok());
            prop_assert_eq!(svc.receive(&raw).unwrap(), Outcome::Duplicate);
        }

        /// A player's mail with any body text: answered, never an error.
        #[test]
        fn intake_takes_any_body_from_a_player(body in "\\PC{0,600}", with_secret in any::<bool>()) {
            let (mut svc, secrets) = service();
            let secret = &secrets[0].1;
            let text = if with_secret { format!("SECRET {secret}\n{body}") } else { body };
            let raw = raw_mail("gordon@example.org", "[dervish k-1] orders", &text, "p1@x", "");
            let out = svc.receive(&raw);
            prop_assert!(out.is_ok(), "{:?}", out);
        }
    }
}

/// Backscatter (forged mail naming a real player): refusals of every kind
/// to one address are capped per hour, and a stranger's subject comes back
/// only short and clean.
#[test]
fn refusals_are_capped_per_address_and_hour_and_never_echo_a_long_subject() {
    let mut h = Harness::new("backscatter", Mode::Monthly);
    let long = "x".repeat(100_000);
    for k in 0..10 {
        let raw = h.mail(
            "gordon@example.org",
            &format!("[dervish nosuch-{k}] orders {long}"),
            "MARCH STACK Sinkat TO Souakim\n",
        );
        h.deliver(&raw);
    }
    h.pass();
    let refusals = |h: &Harness| -> Vec<Sent> {
        h.sent_to("gordon@example.org")
            .into_iter()
            .filter(|s| s.subject.contains("not accepted"))
            .collect()
    };
    let first = refusals(&h);
    assert_eq!(first.len(), 3, "three refusals an hour at most");
    for r in &first {
        assert!(r.raw.len() < 20_000, "a refusal of {} bytes", r.raw.len());
        assert!(!r.text.contains(&"x".repeat(100)), "{}", r.text);
        assert!(r.text.contains("..."), "{}", r.text);
    }
    // An hour later, the address may be answered again.
    h.advance(2);
    let raw = h.mail("gordon@example.org", "[dervish nosuch-99] orders", "HELP\n");
    h.deliver(&raw);
    h.pass();
    assert_eq!(refusals(&h).len(), 4);
}

/// A message over the size limit from a player is refused with its real
/// size, and only its head is stored.
#[test]
fn an_oversized_message_is_stored_only_in_its_head() {
    let mut h = Harness::new("oversized", Mode::Monthly);
    let mut raw = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\n");
    raw.extend(std::iter::repeat_n(b'x', 3 << 20));
    h.deliver(&raw);
    h.pass();
    let refusal = h
        .sent_to("gordon@example.org")
        .into_iter()
        .find(|s| s.subject.contains("not accepted"))
        .expect("a refusal");
    assert!(refusal.text.contains("KiB long"), "{}", refusal.text);
    let stored: i64 = mailbox::one(
        &h.svc,
        "SELECT length(raw) FROM messages ORDER BY id DESC LIMIT 1",
    );
    assert!(
        stored as usize <= dervish::mail::HEAD_BYTES,
        "{stored} bytes stored"
    );
}

/// A player's odd Message-ID (a space, non-ASCII) cannot be written in the
/// reply's threading headers: the receipt goes anyway, without them.
#[test]
fn a_receipt_goes_out_whatever_the_players_message_id() {
    let mut h = Harness::new("oddid", Mode::Monthly);
    send_sinkat_march(&mut h, "abc déf@host");
    let receipts: Vec<Sent> = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.text.contains("MARCH STACK Sinkat"))
        .collect();
    assert_eq!(receipts.len(), 1, "the receipt was sent");
}

/// The Egyptian's orders marching the Sinkat stack to Souakim, mailed
/// with Message-ID `id` and taken in by a pass.
fn send_sinkat_march(h: &mut Harness, id: &str) {
    let text = format!(
        "SECRET {}\nMARCH STACK Sinkat TO Souakim\n",
        h.secret(Side::Egyptian)
    );
    let month = h.svc.game(&h.game).unwrap().month;
    let subject = format!("[dervish {}] orders {month}", h.game);
    h.deliver(&raw_mail("gordon@example.org", &subject, &text, id, ""));
    h.pass();
}

/// A receipt keeps its text once: the HTML part is made again from it when
/// the mail goes, and is the text shown as it is, as it was made when the
/// receipt was queued (`html_with_pictures` of the text, no pictures).
#[test]
fn a_receipts_html_part_is_made_from_its_text_when_it_is_sent() {
    let mut h = Harness::new("htmltext", Mode::Monthly);
    send_sinkat_march(&mut h, "h1@x");
    let (kept_html, from_text): (Option<String>, bool) = h
        .svc
        .conn
        .query_row(
            "SELECT body_html, html_from_text FROM outbox WHERE kind = 'receipt'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (kept_html, from_text),
        (None, true),
        "the text is kept once"
    );
    let receipt = h
        .sent_to("gordon@example.org")
        .into_iter()
        .find(|s| s.text.contains("MARCH STACK Sinkat"))
        .expect("the receipt was sent");
    let parts = mail_parts(&receipt.raw);
    let html = parts.html.expect("an HTML part");
    // As the mail carries them, with its line ends.
    let lf = |s: &str| s.replace("\r\n", "\n");
    assert_eq!(
        lf(&html).trim_end(),
        dervish::mail::outbound::html_with_pictures(&lf(&parts.text), &[]).trim_end()
    );
    assert!(html.contains("line 2: MARCH STACK Sinkat (5021)"), "{html}");
}

/// "Anyone can check the turn": every results mail carries the turn record
/// (the state before, the seed, both order sets once revealed, the
/// digests), and `dervish verify --from-mail` re-checks the turn from the
/// mails alone, on a machine without the database.
#[test]
fn results_mails_carry_a_turn_record_that_verifies_without_the_database() {
    use dervish::service::record;
    let mut h = Harness::new("record", Mode::Monthly);
    let results = two_months_played(&mut h);
    assert_eq!(results.len(), 2);
    assert!(
        results[0].text.contains("dervish verify --from-mail FILE")
            && results[0].text.contains("k-1-turn-1.json"),
        "{}",
        results[0].text
    );
    // Each mail saved as a file, as a mail program saves it; the check
    // runs in an empty folder, with no configuration and no database.
    let elsewhere = h.dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let files: Vec<PathBuf> = results
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = elsewhere.join(format!("results-{}.eml", i + 1));
            std::fs::write(&p, &s.raw).unwrap();
            p
        })
        .collect();
    let (code, out) = verify_from_mail(&elsewhere, &[&files[0], &files[1]]);
    assert_eq!(code, Some(0), "{out}");
    for line in [
        "game k-1, turn 1 (1884-02, month)",
        "ok        seed:",
        "ok        Egyptian orders: 1 order, SHA-256",
        "ok        Mahdist orders: 1 order, SHA-256",
        "ok        state after the turn: played again: the same",
        "ok        log in the mail: the log attached is the log the turn gives",
        "ok        turns 1 and 2: turn 2 starts from the state turn 1 left",
        "ok        turns 1 and 2: the seed of turn 2 is the one announced with the results of turn 1",
        "every check holds",
    ] {
        assert!(out.contains(line), "{line:?} in\n{out}");
    }
    assert!(!out.contains("DIFFERENT"), "{out}");
    // The sealed hashes in the record are the ones the receipts gave.
    let receipt = h
        .sent_to("gordon@example.org")
        .into_iter()
        .find(|s| s.subject.contains("February 1884 orders received"))
        .unwrap();
    let (recs, text) = record::from_mail(results[0].raw.as_bytes()).unwrap();
    let rec = &recs[0];
    assert!(receipt.text.contains(&rec.orders[0].sealed_sha256));
    assert_eq!(
        rec.orders[0].canonical.as_deref(),
        Some("MARCH STACK Sinkat (5021) TO Souakim (5419)\nREADY\n")
    );
    a_changed_record_is_found(rec, &text);
    a_doctored_mail_and_a_mail_without_a_record_fail(
        &elsewhere,
        rec,
        &text,
        &results[0].subject,
        &receipt,
    );
    // Two turns out of order in the chain are found.
    let (recs2, _) = record::from_mail(results[1].raw.as_bytes()).unwrap();
    let mut later = recs2[0].clone();
    assert!(record::chain(rec, &later).iter().all(|c| c.ok));
    later.seed_sha256 = "ab".repeat(32);
    assert!(record::chain(rec, &later).iter().any(|c| !c.ok));

    // HISTORY for a month sends its log and its record again.
    let ask = h.orders(Side::Egyptian, "HISTORY 1884-02\n");
    h.deliver(&ask);
    h.pass();
    let answer = h
        .sent_to("gordon@example.org")
        .into_iter()
        .rfind(|s| s.raw.contains("k-1-turn-1.json") && !s.subject.contains("results"))
        .expect("an answer with the turn record");
    let p = elsewhere.join("history.eml");
    std::fs::write(&p, &answer.raw).unwrap();
    let (code, out) = verify_from_mail(&elsewhere, &[&p]);
    assert_eq!(code, Some(0), "{out}");
}

/// Two months played with orders from both sides: the Egyptian player's
/// results mails.
fn two_months_played(h: &mut Harness) -> Vec<Sent> {
    h.pass();
    for (eg, md) in [
        (
            "MARCH STACK Sinkat TO Souakim\nREADY\n",
            "MARCH LEADER Osman Digma TO Tamai\nREADY\n",
        ),
        ("READY\n", "MARCH LEADER Osman Digma TO Sinkat\nREADY\n"),
    ] {
        let e = h.orders(Side::Egyptian, eg);
        let m = h.orders(Side::Mahdist, md);
        h.deliver(&e);
        h.deliver(&m);
        h.pass();
    }
    h.sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("results"))
        .collect()
}

/// `dervish verify --from-mail FILES` in folder `dir`: its exit status and
/// what it printed.
fn verify_from_mail(dir: &Path, files: &[&Path]) -> (Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dervish"))
        .current_dir(dir)
        .arg("verify")
        .arg("--from-mail")
        .args(files)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Anything changed in a turn record or its mail is found, and said: the
/// orders, the seed, the state before, the log attached.
fn a_changed_record_is_found(
    rec: &dervish::service::record::TurnRecord,
    text: &dervish::service::record::MailText,
) {
    use dervish::scenario::DataSet;
    use dervish::service::record::{self, MailText};
    let data = DataSet::embedded().unwrap();
    let failed = |r: &record::TurnRecord, t: Option<&MailText>| -> Vec<String> {
        record::verify(&data, r, t)
            .into_iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{}: {}", c.what, c.detail))
            .collect()
    };
    assert_eq!(failed(rec, Some(text)), Vec::<String>::new());
    let mut other = rec.clone();
    other.orders[0].canonical = Some("MARCH STACK Sinkat (5021) TO Tokar (5321)\n".into());
    let f = failed(&other, Some(text));
    assert!(
        f.iter()
            .any(|f| f.starts_with("Egyptian orders: their SHA-256 is")),
        "{f:?}"
    );
    let mut other = rec.clone();
    other.seed_hex = "00".repeat(32);
    let f = failed(&other, Some(text));
    assert!(f.iter().any(|f| f.starts_with("seed:")), "{f:?}");
    assert!(f.iter().any(|f| f.starts_with("result log:")), "{f:?}");
    let mut other = rec.clone();
    other.state_before =
        other
            .state_before
            .replacen("\"month\":\"1884-02\"", "\"month\":\"1884-03\"", 1);
    assert_ne!(
        other.state_before, rec.state_before,
        "the state names its month"
    );
    let f = failed(&other, Some(text));
    assert!(
        f.iter().any(|f| f.starts_with("state before the turn:")),
        "{f:?}"
    );
    let mut doctored = text.clone();
    let log = doctored
        .log_attachment
        .clone()
        .expect("the full log attached");
    assert!(log.contains("roll"), "{log}");
    doctored.log_attachment = Some(log.replacen("roll", "rolls", 2));
    let f = failed(rec, Some(&doctored));
    assert!(f.iter().any(|f| f.starts_with("log in the mail:")), "{f:?}");
}

/// The binary says DIFFERENT and fails on a doctored mail, and refuses a
/// mail with no record (the `receipt`) with the reason.
fn a_doctored_mail_and_a_mail_without_a_record_fail(
    elsewhere: &Path,
    rec: &dervish::service::record::TurnRecord,
    text: &dervish::service::record::MailText,
    subject: &str,
    receipt: &Sent,
) {
    let doctored_file = elsewhere.join("doctored.eml");
    let mut bad = rec.clone();
    bad.seed_hex = "11".repeat(32);
    let raw = dervish::mail::outbound::to_bytes(&dervish::mail::outbound::Outgoing {
        from: "dervish@example.org".into(),
        to: vec!["gordon@example.org".into()],
        subject: subject.to_string(),
        text: text.body.clone(),
        html: None,
        message_id: "doctored@example.org".into(),
        in_reply_to: None,
        references: Vec::new(),
        auto_submitted: dervish::mail::outbound::AutoSubmitted::AutoGenerated,
        loop_id: "dervish@example.org".into(),
        date: Utc::now(),
        attachments: vec![bad.attachment()],
    })
    .unwrap();
    std::fs::write(&doctored_file, raw).unwrap();
    let (code, out) = verify_from_mail(elsewhere, &[&doctored_file]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("DIFFERENT seed:"), "{out}");
    let receipt_file = elsewhere.join("receipt.eml");
    std::fs::write(&receipt_file, &receipt.raw).unwrap();
    let (code, out) = verify_from_mail(elsewhere, &[&receipt_file]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("has no turn record attached"), "{out}");
}

/// The full log goes as an attachment and in the HTML part, never in the
/// plain text (which keeps the news and says where the log is); the log
/// attached is the turn's log, and verifies. A configuration that still
/// names the old `log_inline_lines` loads and changes nothing.
#[test]
fn the_full_log_goes_as_an_attachment_and_in_the_html_and_verifies() {
    use dervish::service::record;
    let mut h = Harness::with_config("longlog", Mode::Monthly, |c| {
        c.turns.log_inline_lines = Some(100_000)
    });
    h.pass();
    let e = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    let m = h.orders(Side::Mahdist, "READY\n");
    h.deliver(&e);
    h.deliver(&m);
    h.pass();
    let results = h
        .sent_to("mahdi@example.org")
        .into_iter()
        .find(|s| s.subject.contains("results"))
        .unwrap();
    let db = rusqlite::Connection::open(h.dir.join("dervish.sqlite")).unwrap();
    let log = &store::turns(&db, "k-1").unwrap()[0].log;
    assert!(log.lines().count() > 5, "{log}");
    assert!(
        flat(&results.text).contains(
            "is attached as k-1-1884-02-log.txt and follows this text in the mail's HTML part; HISTORY 1884-02 sends it again."
        ),
        "{}",
        results.text
    );
    let parts = mail_parts(&results.raw);
    assert!(
        !parts.text.contains("The full log, every roll:"),
        "{}",
        parts.text
    );
    assert!(parts.text.contains("The month's news"), "{}", parts.text);
    let html = parts.html.expect("an HTML part");
    let first_roll = log.lines().find(|l| l.contains("roll ")).expect("a roll");
    assert!(
        html.contains("The full log, every roll:")
            && html.contains(
                &first_roll
                    .replace('\'', "&#39;")
                    .replace('>', "&gt;")
                    .replace('<', "&lt;")
            ),
        "{html}"
    );
    let (recs, text) = record::from_mail(results.raw.as_bytes()).unwrap();
    assert_eq!(text.log_attachment.as_deref(), Some(log.as_str()));
    let data = dervish::scenario::DataSet::embedded().unwrap();
    let checks = record::verify(&data, &recs[0], Some(&text));
    assert!(checks.iter().all(|c| c.ok), "{checks:?}");
    assert!(
        checks
            .iter()
            .any(|c| c.what == "log in the mail" && c.detail.contains("the log attached")),
        "{checks:?}"
    );
    // RESEND sends the same mail again, its files with it.
    let ask = h.orders(Side::Mahdist, "RESEND\n");
    h.deliver(&ask);
    h.pass();
    let again: Vec<Sent> = h
        .sent_to("mahdi@example.org")
        .into_iter()
        .filter(|s| s.raw.contains("k-1-1884-02-log.txt\""))
        .collect();
    assert_eq!(again.len(), 2, "the results and their copy");
}

/// A results mail as a reader's program sees it: the text part, the HTML
/// part, and the picture (file name, Content-ID, bytes), if any.
struct MailParts {
    text: String,
    html: Option<String>,
    picture: Option<(String, String, Vec<u8>)>,
}

fn mail_parts(raw: &str) -> MailParts {
    use mail_parser::{MessageParser, MimeHeaders};
    let m = MessageParser::default().parse(raw.as_bytes()).unwrap();
    let picture = m
        .parts
        .iter()
        .find(|p| {
            p.content_type()
                .is_some_and(|c| c.ctype() == "image" && c.subtype() == Some("png"))
        })
        .map(|p| {
            (
                p.attachment_name().unwrap_or_default().to_string(),
                p.content_id().unwrap_or_default().to_string(),
                p.contents().to_vec(),
            )
        });
    MailParts {
        text: m.body_text(0).unwrap_or_default().to_string(),
        html: m.body_html(0).map(|h| h.to_string()),
        picture,
    }
}

/// The results mail to `addr` of turn `n` (from 1).
fn results_mail(h: &Harness, addr: &str, n: usize) -> Sent {
    h.sent_to(addr)
        .into_iter()
        .filter(|s| s.subject.contains(" results"))
        .nth(n - 1)
        .unwrap_or_else(|| panic!("results mail {n} to {addr}"))
}

fn play_first_turn(h: &mut Harness, egyptian: &str) {
    h.pass();
    let e = h.orders(Side::Egyptian, egyptian);
    let m = h.orders(Side::Mahdist, "MARCH LEADER Osman Digma TO Tamai\nREADY\n");
    h.deliver(&e);
    h.deliver(&m);
    let r = h.pass();
    assert_eq!(r.turns_played, vec![("k-1".to_string(), 1)]);
}

/// Each player's results carry the drawn map of their area after the turn
/// as a PNG under 200 KB, shown in the HTML part by its Content-ID with
/// alt text; observers read the text alone.
#[test]
fn a_results_mail_carries_the_drawn_map_of_the_players_area() {
    use dervish::engine::events::Event;
    use dervish::render::frame as framing;
    use dervish::render::svg::Area;
    use dervish::state::GameState;
    let mut h = Harness::seeded("picture", |_| {});
    h.svc
        .add_observer("k-1", "watcher@example.org", "test")
        .unwrap();
    play_first_turn(&mut h, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    let turn = &store::turns(&h.svc.conn, "k-1").unwrap()[0];
    let state: GameState = serde_json::from_str(&turn.state_after).unwrap();
    let events: Vec<Event> = serde_json::from_str(&turn.events).unwrap();
    let scn = h.svc.scenario("khartoum").unwrap();
    for (addr, side) in [
        ("gordon@example.org", Side::Egyptian),
        ("mahdi@example.org", Side::Mahdist),
    ] {
        let mail = results_mail(&h, addr, 1);
        let parts = mail_parts(&mail.raw);
        let (name, cid, png) = parts.picture.expect("a picture");
        assert_eq!(name, "k-1-1884-02-map.png");
        assert_eq!(cid, "k-1-1884-02-map.png@example.org");
        assert!(png.len() < 200_000, "{} bytes", png.len());
        let mut reader = png::Decoder::new(std::io::Cursor::new(&png))
            .read_info()
            .expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut pixels).expect("it decodes");
        assert!(
            (400..=1000).contains(&frame.width) && frame.height > 300,
            "{} x {}",
            frame.width,
            frame.height
        );
        let html = parts.html.expect("an HTML part");
        assert!(
            html.contains(&format!("<img src=\"cid:{cid}\" alt=\"The drawn map of the {side} player&#39;s area after February 1884")),
            "{html}"
        );
        // Above the text, which the HTML holds whole.
        assert!(html.find("<img").unwrap() < html.find("<pre").unwrap());
        // The player's area: around the middle of what the side did, as
        // the alt text says.
        let area = framing::frame(&scn, &state, &events, side)
            .detail
            .expect("a detail picture");
        let said = match area {
            Area::Theatre => "the whole theatre".to_string(),
            Area::Around { centre, .. } => format!("around {}", scn.map.describe(centre)),
        };
        assert!(html.contains(&said), "{side}: {said} in {html}");
        // The text part is the results in full, the turn record attached.
        assert!(
            parts.text.contains("Where victory stands") && mail.raw.contains("k-1-turn-1.json")
        );
    }
    let watcher = mail_parts(&results_mail(&h, "watcher@example.org", 1).raw);
    assert!(watcher.picture.is_none());
    assert!(!watcher.html.unwrap_or_default().contains("<img"));
}

/// `MAP TEXT` in an orders mail is stored for the player's seat and said
/// in the receipt; the next results mail has no picture and no image in
/// its HTML, and its text is byte for byte the text it has with the
/// picture (the same game played with the same seeds and orders, the
/// picture on). `MAP PICTURE` brings it back.
#[test]
fn map_text_leaves_the_picture_out_and_the_text_unchanged() {
    let march = "MARCH STACK Sinkat TO Souakim\nREADY\n";
    let mut with = Harness::seeded("with-picture", |_| {});
    let mut without = Harness::seeded("text-only", |_| {});
    play_first_turn(&mut with, march);
    play_first_turn(&mut without, &format!("MAP TEXT\n{march}"));
    let receipt = without
        .sent_to("gordon@example.org")
        .into_iter()
        .find(|s| s.subject.contains("orders received"))
        .expect("a receipt");
    assert!(
        receipt.text.contains("line 2: MAP TEXT")
            && receipt
                .text
                .contains("from now on results mails come without the picture of the map")
            && receipt.text.contains("Your settings in game k-1 now:")
            && receipt
                .text
                .contains("MAP TEXT        results mails come without")
            && receipt.text.contains("ADDRESS HIDDEN"),
        "{}",
        receipt.text
    );
    let seat = |h: &Harness, side: Side| {
        store::players(&h.svc.conn, "k-1")
            .unwrap()
            .into_iter()
            .find(|p| p.side == side)
            .unwrap()
    };
    assert!(!seat(&without, Side::Egyptian).map_picture);
    assert!(seat(&without, Side::Mahdist).map_picture);
    let a = mail_parts(&results_mail(&with, "gordon@example.org", 1).raw);
    let b = mail_parts(&results_mail(&without, "gordon@example.org", 1).raw);
    assert!(a.picture.is_some());
    assert!(b.picture.is_none());
    let b_html = b.html.expect("an HTML part still, for the ASCII maps");
    assert!(!b_html.contains("<img") && !b_html.contains("cid:"));
    assert_eq!(a.text, b.text, "the text part is the same, picture or not");
    // As stored, byte for byte; and the HTML is the same but for the
    // picture.
    let stored = |h: &Harness| {
        store::mail_for(&h.svc.conn, Some("k-1"))
            .unwrap()
            .into_iter()
            .find(|m| m.kind == "results" && m.recipient == "gordon@example.org")
            .unwrap()
    };
    let (sa, sb) = (stored(&with), stored(&without));
    assert_eq!(sa.body_text, sb.body_text);
    let (ha, hb) = (sa.body_html.unwrap(), sb.body_html.unwrap());
    let pre = |h: &str| h[h.find("<pre").unwrap()..].to_string();
    assert_eq!(pre(&ha), pre(&hb));
    // The HTML is the text, then the full log.
    let turn_log = &store::turns(&without.svc.conn, "k-1").unwrap()[0].log;
    assert_eq!(
        hb,
        dervish::mail::outbound::pre_html(&format!(
            "{}\nThe full log, every roll:\n\n{turn_log}",
            sb.body_text
        ))
    );
    // The Mahdist player of that game still gets the picture.
    assert!(
        mail_parts(&results_mail(&without, "mahdi@example.org", 1).raw)
            .picture
            .is_some()
    );
    // MAP PICTURE, on its own: the next results carry it again.
    let raw = without.orders(Side::Egyptian, "MAP PICTURE\n");
    assert!(matches!(
        without.svc.receive(&raw).unwrap(),
        Outcome::Commands { .. }
    ));
    assert!(seat(&without, Side::Egyptian).map_picture);
    let e = without.orders(Side::Egyptian, "READY\n");
    let m = without.orders(Side::Mahdist, "READY\n");
    without.deliver(&e);
    without.deliver(&m);
    without.pass();
    let again = mail_parts(&results_mail(&without, "gordon@example.org", 2).raw);
    let (name, _, _) = again.picture.expect("the picture again");
    assert_eq!(name, "k-1-1884-03-map.png");
}

/// `ADDRESS PUBLIC` and `ADDRESS HIDDEN` are stored for the sender's seat,
/// in the audit log, and answered with the settings as they now stand; a
/// mail of settings alone replaces no orders.
#[test]
fn address_public_and_hidden_are_stored_and_answered() {
    let mut h = Harness::new("address", Mode::Monthly);
    let e = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\n");
    h.deliver(&e);
    h.pass();
    let shown = |h: &Harness, side: Side| {
        store::players(&h.svc.conn, "k-1")
            .unwrap()
            .into_iter()
            .find(|p| p.side == side)
            .unwrap()
            .show_address
    };
    assert!(
        !shown(&h, Side::Egyptian),
        "hidden unless the player says so"
    );
    let raw = h.orders(Side::Egyptian, "ADDRESS PUBLIC\n");
    assert!(matches!(
        h.svc.receive(&raw).unwrap(),
        Outcome::Commands { .. }
    ));
    assert!(shown(&h, Side::Egyptian));
    assert!(!shown(&h, Side::Mahdist));
    h.flush();
    let answer = h
        .sent_to("gordon@example.org")
        .into_iter()
        .find(|s| s.subject.contains("your settings"))
        .expect("the settings answered");
    for part in [
        "line 2: ADDRESS PUBLIC",
        "from now on the game's public archive may show your mail address",
        "Your settings in game k-1 now:",
        "MAP PICTURE     results mails carry the drawn map",
        "ADDRESS PUBLIC  the game's public archive may show your mail address",
        "This mail held no orders",
    ] {
        assert!(answer.text.contains(part), "{part:?} in {}", answer.text);
    }
    let set = store::latest_order_set(&h.svc.conn, "k-1", 1, Side::Egyptian)
        .unwrap()
        .unwrap();
    assert_eq!(set.version, 1, "the orders stand");
    assert!(store::audit_log(&h.svc.conn, "k-1").unwrap().iter().any(
        |(_, actor, action, detail)| actor == "mail:gordon@example.org"
            && action == "player settings"
            && detail.contains("ADDRESS PUBLIC")
    ));
    let raw = h.orders(Side::Egyptian, "ADDRESS HIDDEN\n");
    h.svc.receive(&raw).unwrap();
    assert!(!shown(&h, Side::Egyptian));
    // Orders refused (the deadline passed) get no receipt: the setting,
    // made all the same, is answered on its own.
    h.advance(73);
    let late = h.orders(Side::Egyptian, "ADDRESS PUBLIC\nREADY\n");
    assert!(matches!(h.svc.receive(&late).unwrap(), Outcome::Refused(r) if r.contains("deadline")));
    assert!(shown(&h, Side::Egyptian));
    h.flush();
    let answers: Vec<Sent> = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("your settings"))
        .collect();
    assert_eq!(answers.len(), 3, "one answer a mail of settings");
    assert!(
        answers
            .iter()
            .any(|a| a.text.contains("The orders in this mail were not taken")),
        "{}",
        answers[2].text
    );
    let raw = h.orders(Side::Egyptian, "ADDRESS HIDDEN\n");
    h.svc.receive(&raw).unwrap();
    assert!(!shown(&h, Side::Egyptian));
    // Without the secret nothing is set.
    let raw = h.mail(
        "gordon@example.org",
        "[dervish k-1] settings",
        "ADDRESS PUBLIC\n",
    );
    assert!(matches!(h.svc.receive(&raw).unwrap(), Outcome::Refused(_)));
    assert!(!shown(&h, Side::Egyptian));
}

/// A slip in a setting (`MAP TXT`) is answered on its line with the fix,
/// sets nothing and replaces no orders; `MAP place` is still a map.
#[test]
fn a_slip_in_a_setting_is_answered_by_line_and_replaces_no_orders() {
    let mut h = Harness::new("slip", Mode::Monthly);
    let e = h.orders(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\n");
    h.deliver(&e);
    h.pass();
    let raw = h.orders(Side::Egyptian, "MAP TXT\nMAP Khartoum\nADDRESS PUBLC\n");
    assert!(matches!(
        h.svc.receive(&raw).unwrap(),
        Outcome::Commands { .. }
    ));
    h.flush();
    let to = h.sent_to("gordon@example.org");
    let answer = to
        .iter()
        .find(|s| s.subject.contains("commands not understood"))
        .expect("the slips answered");
    for part in [
        "line 2: NOT UNDERSTOOD: MAP TXT",
        "did you mean MAP TEXT?",
        "line 4: NOT UNDERSTOOD: ADDRESS PUBLC",
        "did you mean ADDRESS PUBLIC?",
        "the orders Dervish has from you stand as they were",
    ] {
        assert!(answer.text.contains(part), "{part:?} in {}", answer.text);
    }
    assert!(
        to.iter()
            .any(|s| s.subject.contains("] map") && s.text.contains("1942")),
        "MAP Khartoum answered with the map"
    );
    let set = store::latest_order_set(&h.svc.conn, "k-1", 1, Side::Egyptian)
        .unwrap()
        .unwrap();
    assert_eq!(set.version, 1);
    let p = &store::players(&h.svc.conn, "k-1").unwrap()[0];
    assert!(p.map_picture && !p.show_address, "{p:?}");
}

/// The picture never makes a results mail larger than the largest mail
/// Dervish deals in (`[limits] max_message_bytes`): over it, the mail
/// goes with its text and files and without the picture.
#[test]
fn a_results_mail_that_would_be_too_large_goes_without_its_picture() {
    // The mail is over 130 KB with its pictures (palette PNGs) and under
    // it without them.
    let limit = 130_000;
    let mut h = Harness::seeded("too-large", |c| c.limits.max_message_bytes = limit);
    play_first_turn(&mut h, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    let mail = results_mail(&h, "gordon@example.org", 1);
    let parts = mail_parts(&mail.raw);
    assert!(parts.picture.is_none());
    assert!(mail.raw.len() < limit, "{} bytes", mail.raw.len());
    assert!(parts.text.contains("Where victory stands"));
    assert!(mail.raw.contains("k-1-turn-1.json"));
}

/// A mail that names no game goes to the sender's only game still being
/// played: a finished game is not offered beside it.
#[test]
fn a_finished_game_is_not_offered_when_the_mail_names_no_game() {
    let mut h = Harness::new("finished-not-offered", Mode::Monthly);
    let second = h
        .svc
        .new_game(&mailbox::game("khartoum", "k-2"), "test")
        .unwrap();
    let (_, secret) = second
        .secrets
        .iter()
        .find(|(s, _)| *s == Side::Egyptian)
        .unwrap();
    let body = format!("SECRET {secret}\nSTATUS\n");
    // Both games open: the player is asked which he means.
    let both = h.mail("gordon@example.org", "a question", &body);
    assert!(matches!(
        h.svc.receive(&both).unwrap(),
        Outcome::Refused(r) if r.contains("plays in several games (k-1, k-2)")
    ));
    h.svc
        .conn
        .execute(
            "UPDATE games SET status = 'finished', result = 'Mahdist victory' WHERE id = 'k-1'",
            [],
        )
        .unwrap();
    // k-1 finished: the same mail is about k-2.
    let one = h.mail("gordon@example.org", "a question", &body);
    let outcome = h.svc.receive(&one).unwrap();
    assert!(!matches!(outcome, Outcome::Refused(_)), "{outcome:?}");
    h.pass();
    let status: Vec<Sent> = h
        .sent_to("gordon@example.org")
        .into_iter()
        .filter(|s| s.subject.contains("status"))
        .collect();
    assert_eq!(status.len(), 1, "{status:?}");
    assert!(
        status[0].subject.contains("[dervish k-2]"),
        "{}",
        status[0].subject
    );
}

/// A refusal that quotes the receipt keeps the receipt's lines as they
/// were: each order on its own line, not run together as prose.
#[test]
fn a_refusal_quotes_the_receipt_line_by_line() {
    let mut h = Harness::new("refusal-quotes", Mode::Monthly);
    let body = format!(
        "SECRET {}\nMONTH 1884-06\nMARCH STACK Sinkat TO Souakim\nREADY\n",
        h.secret(Side::Egyptian)
    );
    let raw = h.mail("gordon@example.org", "[dervish k-1] orders", &body);
    h.deliver(&raw);
    h.pass();
    let to = h.sent_to("gordon@example.org");
    let refusal = to
        .iter()
        .find(|s| s.subject.contains("not accepted"))
        .expect("a refusal");
    let lines: Vec<&str> = refusal.text.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("None of these orders will be carried out")),
        "{}",
        refusal.text
    );
    let march = lines
        .iter()
        .find(|l| l.contains("MARCH STACK Sinkat"))
        .unwrap_or_else(|| panic!("the march quoted: {}", refusal.text));
    assert!(!march.contains("READY"), "{}", refusal.text);
}

/// The receipt echoes the subject of the mail it answers, decoded (RFC
/// 2047), so the player sees which mail it is about.
#[test]
fn a_receipt_echoes_the_decoded_subject_of_the_mail() {
    let mut h = Harness::new("receipt-subject", Mode::Monthly);
    let body = format!(
        "SECRET {}\nMARCH STACK Sinkat TO Souakim\n",
        h.secret(Side::Egyptian)
    );
    let raw = h.mail(
        "gordon@example.org",
        "=?utf-8?q?Re=3A_=5Bdervish_k-1=5D_Befehle_f=C3=BCr_M=C3=A4rz?=",
        &body,
    );
    h.deliver(&raw);
    h.pass();
    let to = h.sent_to("gordon@example.org");
    let receipt = to
        .iter()
        .find(|s| s.subject.contains("orders received"))
        .expect("a receipt");
    let first: Vec<&str> = receipt.text.lines().take(3).collect();
    assert!(
        first.contains(&"Your mail: Re: [dervish k-1] Befehle für März"),
        "{}",
        receipt.text
    );
}

/// A refused set's refusal quotes its receipt, and no line of it is over
/// 100 characters: the reason and the long order lines quoted are
/// wrapped, each quoted line still on its own.
#[test]
fn a_refusal_quoting_a_receipt_has_no_line_over_100_characters() {
    let mut h = Harness::new("refusal-width", Mode::Monthly);
    h.pass();
    let units = ["ER05", "ER06", "ER07", "ES01", "EC01", "EG03", "BN01"]
        .repeat(3)
        .join(" ");
    let e = h.orders(
        Side::Egyptian,
        &format!("MONTH 1884-09\nMARCH {units} FROM Souakim TO Tokar BY El Teb\nREADY\n"),
    );
    h.deliver(&e);
    h.pass();
    let r = h
        .sent_to("gordon@example.org")
        .into_iter()
        .find(|s| s.subject.contains("not accepted"))
        .expect("a refusal");
    assert!(
        flat(&r.text).contains("these orders are for September 1884"),
        "{}",
        r.text
    );
    assert!(flat(&r.text).contains(&units), "{}", r.text);
    for l in r.text.lines() {
        assert!(
            l.chars().count() <= 100,
            "a line over 100: {l:?}\n{}",
            r.text
        );
    }
}

/// The mail of a game played month after month stores at most 150 KB a
/// game-turn (about 240 KB before migration 13): the log and turn record
/// every recipient of a turn gets, and the full log in each results mail's
/// HTML part, are stored once and deflated, and replaced results keep no
/// pictures (the latest results to each player keep theirs, for RESEND:
/// once a game, not once a turn, so they are left out here). Each mail
/// still reads back whole: what it would cost kept whole is measured from
/// the mails as read. The database file grows under 150 KB a game-turn
/// too: the rest of it is the turns table, each state stored once.
#[test]
fn a_played_month_stores_at_most_150_kb_of_mail() {
    const MONTHS: u64 = 4;
    let mut h = Harness::seeded("storage-per-turn", |c| c.outbox.keep_sent_days = 30);
    play_first_turn(&mut h, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    h.pass();
    let file = h.dir.join("dervish.sqlite");
    let checkpoint = |h: &Harness| {
        h.svc
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    };
    checkpoint(&h);
    let file_before = std::fs::metadata(&file).unwrap().len();
    for _ in 0..MONTHS {
        let e = h.orders(Side::Egyptian, "READY\n");
        let m = h.orders(Side::Mahdist, "READY\n");
        h.deliver(&e);
        h.deliver(&m);
        h.pass();
        h.pass();
    }
    let turns = store::turns(&h.svc.conn, "k-1").unwrap().len() as u64;
    assert_eq!(turns, 1 + MONTHS, "every month played");
    checkpoint(&h);
    let c = &h.svc.conn;
    let latest = "kind = 'results' AND id = (SELECT MAX(id) FROM outbox AS l \
                  WHERE l.kind = 'results' AND l.recipient = o.recipient)";
    let stored: i64 = c
        .query_row(
            &format!(
                "SELECT (SELECT SUM(length(body_text) + COALESCE(length(body_html), 0) + length(attachments)) \
                 FROM outbox AS o WHERE NOT ({latest})) + (SELECT SUM(length(deflated)) FROM outbox_parts)"
            ),
            [],
            |r| r.get(0),
        )
        .unwrap();
    let ids: Vec<i64> = mailbox::column(
        c,
        &format!("SELECT id FROM outbox AS o WHERE NOT ({latest})"),
    );
    let read: usize = ids
        .iter()
        .map(|&id| {
            let (m, _) = store::outbox_mail(c, id).unwrap().unwrap();
            m.body_text.len() + m.body_html.as_ref().map_or(0, String::len) + m.attachments.len()
        })
        .sum();
    let (stored, read) = (stored as u64 / turns, read as u64 / turns);
    let grown = (std::fs::metadata(&file).unwrap().len() - file_before) / MONTHS;
    eprintln!(
        "a game-turn: mail stored {} KB (read whole {} KB); database file {} KB",
        stored / 1000,
        read / 1000,
        grown / 1000
    );
    assert!(
        stored < 150_000,
        "a game-turn's mail costs {stored} bytes of database"
    );
    assert!(
        read > 2 * stored,
        "the shared pieces are stored once: {read} bytes read, {stored} stored"
    );
    assert!(
        grown < 150_000,
        "the database file grows {grown} bytes a game-turn"
    );
}

/// A results mail that a later one to the same player has replaced keeps
/// its text, log and turn record but no longer its pictures (they can be
/// drawn again from the stored turn; the digest of the whole mail is
/// kept); the latest results keep theirs, for RESEND.
#[test]
fn replaced_results_keep_no_pictures_and_the_latest_keep_theirs() {
    let mut h = Harness::seeded("pictures-kept", |c| c.outbox.keep_sent_days = 30);
    play_first_turn(&mut h, "MARCH STACK Sinkat TO Souakim\nREADY\n");
    let e = h.orders(Side::Egyptian, "READY\n");
    let m = h.orders(Side::Mahdist, "READY\n");
    h.deliver(&e);
    h.deliver(&m);
    h.pass();
    h.pass();
    let results: Vec<_> = store::mail_for(&h.svc.conn, Some("k-1"))
        .unwrap()
        .into_iter()
        .filter(|m| m.kind == "results" && m.recipient == "gordon@example.org")
        .collect();
    assert_eq!(results.len(), 2, "two months played");
    assert!(results.iter().all(|m| m.sent_at.is_some()));
    let (old, latest) = (&results[0], &results[1]);
    assert!(old.subject.contains("February 1884"), "{}", old.subject);
    assert!(
        !old.attachments.contains("\"image/png\""),
        "{}",
        &old.attachments[..200.min(old.attachments.len())]
    );
    assert!(
        old.attachments.contains("k-1-1884-02-log.txt")
            && old.attachments.contains("k-1-turn-1.json"),
        "the log and the turn record stay"
    );
    assert!(old.body_text.contains("The month's news"));
    assert!(
        latest.attachments.contains("\"image/png\""),
        "the latest results keep their picture"
    );
    let size = |m: &store::OutboxRow| {
        m.body_text.len() + m.body_html.as_ref().map_or(0, String::len) + m.attachments.len()
    };
    assert!(
        size(old) < 150_000 && size(latest) > size(old) + 50_000,
        "a replaced results mail keeps {} bytes, the latest {}",
        size(old),
        size(latest)
    );
    let db = rusqlite::Connection::open(h.dir.join("dervish.sqlite")).unwrap();
    let digest: Option<String> = db
        .query_row("SELECT digest FROM outbox WHERE id = ?1", [old.id], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(
        digest.map(|d| d.len()),
        Some(64),
        "the SHA-256 of the whole mail is kept"
    );
}
