//! No floods: anyone can put any address in `From:`, so every answer to a
//! mail without a valid secret (HELP, JOIN, its confirmation request, the
//! list of games to join, refusals) counts against one hourly cap for
//! each address (`[limits] unverified_answers_per_hour`, 3 by default); a
//! stranger's HELP is answered briefly; and a JOIN takes a seat only when
//! the address confirms it with the token its answer carried
//! (docs/orders.md, "Joining a game").

#[path = "common/mailbox.rs"]
mod mailbox;

use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::intake::Outcome;
use dervish::store::{self};
use mailbox::{Sent, Table};

/// The cap of answers to one address an hour, by default.
const CAP: usize = 3;

/// The largest answer to a stranger's HELP, in bytes as sent.
const SHORT: usize = 5 * 1024;

struct Host {
    table: Table,
    n: u32,
    /// The secrets of game `k-1`.
    secrets: Vec<(Side, String)>,
}

mailbox::at_table!(Host);

impl Host {
    /// A service with game `k-1` (Khartoum, both seats taken).
    fn open(name: &str) -> Host {
        let table = Table::open("dervish-floods", name, |c| c.turns.setup_hours = 0);
        let mut h = Host {
            table,
            n: 0,
            secrets: Vec::new(),
        };
        h.secrets = h.game("k-1", "khartoum", "gordon@example.org", "mahdi@example.org");
        h
    }

    /// A new game; the secrets of its seats.
    fn game(&self, id: &str, scenario: &str, egyptian: &str, mahdist: &str) -> Vec<(Side, String)> {
        self.svc
            .new_game(
                &NewGame {
                    egyptian: egyptian.into(),
                    mahdist: mahdist.into(),
                    ..mailbox::game(scenario, id)
                },
                "gm",
            )
            .unwrap()
            .secrets
    }

    /// Take in a plain-text mail at once (no pass).
    fn receive(&mut self, from: &str, subject: &str, body: &str) -> Outcome {
        self.n += 1;
        let id = format!("f{}@forged.example", self.n);
        let raw = mailbox::plain_mail(from, mailbox::HOST, subject, &id, body);
        self.table.svc.receive(raw.as_bytes()).unwrap()
    }

    fn flush(&mut self) {
        let t = &mut self.table;
        t.svc.flush(&t.sender).unwrap();
    }

    fn advance_minutes(&self, minutes: i64) {
        *self.now.lock().unwrap() += chrono::Duration::minutes(minutes);
    }

    /// The seat of `side` in `game`: its address ("" while open).
    fn seat(&self, game: &str, side: Side) -> String {
        store::players(&self.svc.conn, game)
            .unwrap()
            .into_iter()
            .find(|p| p.side == side)
            .map(|p| p.address)
            .expect("the seat")
    }
}

/// The answers sent to `to`: every mail but the welcome of a new game.
fn answers_to(h: &Host, to: &str) -> Vec<Sent> {
    h.sent_to(to)
        .into_iter()
        .filter(|s| !s.subject.contains("welcome"))
        .collect()
}

/// The token of the last confirmation request sent to `to`.
fn token_sent_to(h: &Host, to: &str) -> String {
    let asked: Vec<Sent> = h
        .sent_to(to)
        .into_iter()
        .filter(|s| s.subject.contains("JOIN: confirm"))
        .collect();
    let last = asked.last().expect("a confirmation request");
    mailbox::join_token(&last.text).expect("the confirmation line")
}

#[test]
fn forged_help_in_a_players_name_gets_at_most_the_cap_of_answers() {
    let mut h = Host::open("forged-help");
    for _ in 0..500 {
        h.receive("gordon@example.org", "help", "HELP\n");
    }
    h.flush();
    assert_eq!(answers_to(&h, "gordon@example.org").len(), CAP);
    // An hour later the player may be answered again.
    h.advance_minutes(61);
    for _ in 0..5 {
        h.receive("gordon@example.org", "help", "HELP\n");
    }
    h.flush();
    assert_eq!(answers_to(&h, "gordon@example.org").len(), 2 * CAP);
    // The player's own HELP, with his secret, is not capped.
    let secret = mailbox::secret(&h.secrets, Side::Egyptian);
    let out = h.receive(
        "gordon@example.org",
        "help",
        &format!("SECRET {secret}\nHELP\n"),
    );
    assert!(matches!(out, Outcome::Commands { .. }), "{out:?}");
    h.flush();
    assert_eq!(answers_to(&h, "gordon@example.org").len(), 2 * CAP + 1);
}

#[test]
fn help_join_and_refusals_without_a_secret_share_one_cap() {
    let mut h = Host::open("one-cap");
    // A player's address: HELP, orders without the secret, HELP, HELP.
    h.receive("gordon@example.org", "help", "HELP\n");
    h.receive(
        "gordon@example.org",
        "[dervish k-1] orders",
        "MARCH STACK Sinkat TO Souakim\n",
    );
    h.receive("gordon@example.org", "[dervish nosuch-9] orders", "HELP\n");
    h.receive("gordon@example.org", "help", "HELP\n");
    h.flush();
    assert_eq!(answers_to(&h, "gordon@example.org").len(), CAP);
    // A stranger: a JOIN, then HELP (an open seat makes the stranger's
    // mail worth reading).
    h.game("obeid-1", "el-obeid", "hicks@example.org", "open");
    let out = h.receive("x@example.net", "[dervish obeid-1] join", "JOIN\n");
    assert!(
        matches!(out, Outcome::JoinAsked { asked: true, .. }),
        "{out:?}"
    );
    for _ in 0..5 {
        h.receive("x@example.net", "help", "HELP\n");
    }
    let out = h.receive("x@example.net", "[dervish obeid-1] join", "JOIN\n");
    assert!(
        matches!(out, Outcome::JoinAsked { asked: false, .. }),
        "{out:?}"
    );
    h.flush();
    let to = h.sent_to("x@example.net");
    assert_eq!(to.len(), CAP);
    assert_eq!(to.iter().filter(|s| s.subject.contains("JOIN")).count(), 1);
}

#[test]
fn strangers_get_a_short_help_and_each_at_most_the_cap() {
    let mut h = Host::open("stranger-help");
    h.game("obeid-1", "el-obeid", "hicks@example.org", "open");
    for sender in 0..30 {
        for _ in 0..10 {
            h.receive(&format!("victim{sender}@example.net"), "help", "HELP\n");
        }
    }
    h.flush();
    let mut total = 0;
    for sender in 0..30 {
        let to = h.sent_to(&format!("victim{sender}@example.net"));
        assert_eq!(to.len(), CAP, "victim{sender}");
        for s in &to {
            assert!(s.raw.len() < SHORT, "an answer of {} bytes", s.raw.len());
            total += s.raw.len();
        }
    }
    assert!(total <= 30 * CAP * SHORT, "{total} bytes in all");
    // The short answer says how to play, and lists the open seat; the
    // guide itself is not in it.
    let answer = &h.sent_to("victim0@example.net")[0];
    let text = mailbox::flat(&answer.text);
    assert!(text.contains("full guide"), "{text}");
    assert!(text.contains("JOIN CONFIRM"), "{text}");
    assert!(text.contains("obeid-1: The Relief of El Obeid"), "{text}");
    assert!(!text.contains("MARCH STACK"), "{text}");
    for line in answer.text.lines() {
        assert!(line.chars().count() < 100, "{line}");
    }
}

#[test]
fn an_observer_gets_the_full_guide() {
    let mut h = Host::open("observer-help");
    h.svc
        .add_observer("k-1", "watcher@example.net", "gm")
        .unwrap();
    h.receive("watcher@example.net", "help", "HELP\n");
    h.flush();
    let to = h.sent_to("watcher@example.net");
    assert_eq!(to.len(), 1);
    assert!(to[0].text.contains("MARCH STACK"), "{}", to[0].text);
}

#[test]
fn a_forged_join_takes_no_seat_and_only_the_token_from_that_address_does() {
    let mut h = Host::open("join-confirm");
    h.game("obeid-1", "el-obeid", "hicks@example.org", "open");
    let victim = "victim@example.net";
    let out = h.receive(victim, "[dervish obeid-1] join", "JOIN MAHDIST\n");
    assert_eq!(
        out,
        Outcome::JoinAsked {
            game: "obeid-1".into(),
            side: Side::Mahdist,
            asked: true
        }
    );
    assert_eq!(h.seat("obeid-1", Side::Mahdist), "");
    h.flush();
    let token = token_sent_to(&h, victim);
    assert!(token.len() >= 32, "{token}");
    // The token is stored only as its SHA-256.
    let stored: String = h
        .svc
        .conn
        .query_row("SELECT token_sha256 FROM join_requests", [], |r| r.get(0))
        .unwrap();
    assert!(!stored.contains(&token.replace('-', "")) && stored.len() == 64);
    // A wrong token, or the right one from another address, takes nothing.
    let out = h.receive(
        victim,
        "join",
        "JOIN CONFIRM 00000000-00000000-00000000-00000000\n",
    );
    assert!(matches!(out, Outcome::Ignored(_)), "{out:?}");
    let out = h.receive(
        "thief@example.net",
        "join",
        &format!("JOIN CONFIRM {token}\n"),
    );
    assert!(matches!(out, Outcome::Ignored(_)), "{out:?}");
    assert_eq!(h.seat("obeid-1", Side::Mahdist), "");
    // Lapsed after 48 hours.
    h.advance_minutes(48 * 60 + 1);
    let out = h.receive(victim, "join", &format!("JOIN CONFIRM {token}\n"));
    assert!(matches!(out, Outcome::Ignored(_)), "{out:?}");
    assert_eq!(h.seat("obeid-1", Side::Mahdist), "");
    h.flush();
    assert!(h.sent_to("thief@example.net").is_empty());
    // Asked again and confirmed by a reply that quotes the request.
    let out = h.receive(victim, "[dervish obeid-1] join", "JOIN MAHDIST\n");
    assert!(
        matches!(out, Outcome::JoinAsked { asked: true, .. }),
        "{out:?}"
    );
    h.flush();
    let token = token_sent_to(&h, victim);
    let out = h.receive(
        victim,
        "Re: [dervish obeid-1] JOIN",
        &format!("Yes please.\n\n> To take it, reply:\n>\n>     JOIN CONFIRM {token}\n"),
    );
    assert_eq!(
        out,
        Outcome::Joined {
            game: "obeid-1".into(),
            side: Side::Mahdist
        }
    );
    assert_eq!(h.seat("obeid-1", Side::Mahdist), victim);
    h.flush();
    assert!(
        h.sent_to(victim)
            .iter()
            .any(|s| s.subject.contains("welcome: you play the Mahdist side"))
    );
    // The token is spent.
    let out = h.receive(
        "other@example.net",
        "join",
        &format!("JOIN CONFIRM {token}\n"),
    );
    assert!(matches!(out, Outcome::Ignored(_)), "{out:?}");
}

#[test]
fn a_join_naming_no_game_with_several_open_is_answered_with_the_list() {
    let mut h = Host::open("join-list");
    h.game("obeid-1", "el-obeid", "hicks@example.org", "open");
    h.game("obeid-2", "el-obeid", "open", "osman@example.org");
    let out = h.receive("newcomer@example.net", "join", "JOIN\n");
    assert!(matches!(out, Outcome::Ignored(_)), "{out:?}");
    assert_eq!(h.seat("obeid-1", Side::Mahdist), "");
    assert_eq!(h.seat("obeid-2", Side::Egyptian), "");
    h.flush();
    let to = h.sent_to("newcomer@example.net");
    assert_eq!(to.len(), 1);
    let text = &to[0].text;
    assert!(
        text.contains("obeid-1: The Relief of El Obeid, the Mahdist seat open"),
        "{text}"
    );
    assert!(
        text.contains("obeid-2: The Relief of El Obeid, the Egyptian seat open"),
        "{text}"
    );
    assert!(!text.contains("JOIN CONFIRM"), "{text}");
    // With a side asked for, only one game fits: its confirmation.
    let out = h.receive("newcomer@example.net", "join", "JOIN EGYPTIAN\n");
    assert_eq!(
        out,
        Outcome::JoinAsked {
            game: "obeid-2".into(),
            side: Side::Egyptian,
            asked: true
        }
    );
    // Naming the game.
    let out = h.receive("other@example.net", "join", "GAME obeid-1\nJOIN\n");
    assert!(
        matches!(&out, Outcome::JoinAsked { game, .. } if game == "obeid-1"),
        "{out:?}"
    );
}
