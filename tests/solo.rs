//! One person plays a whole campaign by email against the programmed
//! Mahdist player: scenario 2, every month, through the mail service.

use std::path::PathBuf;

use chrono::Duration;
use dervish::mail::inbound::{self};
use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::Sender;
use dervish::orders::{print, written};
use dervish::players::simple::simple_orders;
use dervish::scenario::{DataSet, Side};
use dervish::service::games::NewGame;
use dervish::service::record;
use dervish::service::{Config, Service};
use dervish::store::{self, Status};

#[path = "common/mailbox.rs"]
mod mailbox;

fn temp_dir(name: &str) -> PathBuf {
    mailbox::folder("dervish-solo", name)
}

use mailbox::flat;
use mailbox::sent_read as sent;

/// One person plays `scenario` by mail on the `human` side against the
/// programmed player asked for by `bot` (`bot`, `bot:competent`), every
/// month until the game ends; every results mail is checked.
fn play_solo(scenario: &str, human: Side, bot: &str) {
    let mut solo = Solo::open(scenario, human, bot);
    let setup_records = solo.set_up();
    let bot_seat = solo.no_one_joins_the_bots_seat();
    let months = solo.play_every_month();
    let g = solo.t.svc.game("solo").unwrap();
    eprintln!("{scenario}: {months} months played: {:?}", g.result);
    assert!(months >= 2, "{months} months played");
    solo.every_result_verifies(months, setup_records, &bot_seat);
    // The game plays again byte for byte from the database.
    assert!(
        solo.t
            .svc
            .replay("solo")
            .unwrap()
            .iter()
            .all(|v| v.drift.is_empty())
    );
    assert!(g.result.is_some());
}

/// A game `solo` between one person by mail and a programmed player.
struct Solo {
    t: mailbox::Table,
    data: DataSet,
    scn: dervish::scenario::Scenario,
    human: Side,
    bot_side: Side,
    /// The human's address and secret.
    address: &'static str,
    secret: String,
}

impl Solo {
    /// The game made, one secret (the human's) given, and the welcome sent
    /// to the human alone.
    fn open(scenario: &str, human: Side, bot: &str) -> Solo {
        let mut t = mailbox::Table::open("dervish-solo", scenario, |_| {});
        let (address, bot_side) = match human {
            Side::Egyptian => ("gordon@example.org", Side::Mahdist),
            Side::Mahdist => ("mahdi@example.org", Side::Egyptian),
        };
        let (egyptian, mahdist) = match human {
            Side::Egyptian => (address, bot),
            Side::Mahdist => (bot, address),
        };
        let created = t
            .svc
            .new_game(
                &NewGame {
                    egyptian: egyptian.into(),
                    mahdist: mahdist.into(),
                    ..mailbox::game(scenario, "solo")
                },
                "test",
            )
            .unwrap();
        assert_eq!(created.secrets.len(), 1, "one secret: the human's");
        let data = DataSet::embedded().unwrap();
        let scn = data.scenario(scenario).unwrap();
        t.pass();
        let welcome: Vec<_> = sent(&t.dir)
            .into_iter()
            .filter(|(_, m)| m.subject.contains("welcome"))
            .collect();
        assert_eq!(welcome.len(), 1, "only the human is welcomed");
        assert!(
            welcome
                .iter()
                .all(|(_, m)| m.to == vec![address.to_string()])
        );
        assert!(flat(&welcome[0].1.body.text).contains("the programmed player"));
        Solo {
            t,
            data,
            scn,
            human,
            bot_side,
            address,
            secret: created.secrets[0].1.clone(),
        }
    }

    /// The set-up (2.1): the human keeps the default placement (READY
    /// alone); the bot's set-up is made when its part comes, and the
    /// set-up mail, whose record verifies, opens the first month. Its
    /// records.
    fn set_up(&mut self) -> Vec<record::TurnRecord> {
        assert!(self.t.svc.game("solo").unwrap().turn_kind.is_setup());
        let (address, secret) = (self.address, &self.secret);
        self.t
            .inbox
            .deliver(
                format!(
                    "From: {address}\r\nTo: dervish@example.org\r\nSubject: [dervish solo] set-up\r\nMessage-ID: <setup@example.org>\r\n\r\nSECRET {secret}\r\nREADY\r\n"
                )
                .as_bytes(),
            )
            .unwrap();
        self.t.pass();
        assert_eq!(self.t.svc.game("solo").unwrap().turn_no, 1);
        let (setup_raw, _) = sent(&self.t.dir)
            .into_iter()
            .find(|(_, m)| m.subject.contains("the set-up"))
            .expect("the set-up mail");
        let (setup_records, setup_text) = record::from_mail(&setup_raw).unwrap();
        for c in record::verify(&self.data, &setup_records[0], Some(&setup_text)) {
            assert!(c.ok, "the set-up: {}: {}", c.what, c.detail);
        }
        setup_records
    }

    /// A JOIN cannot take the bot's seat: the seat, the bot's.
    fn no_one_joins_the_bots_seat(&mut self) -> store::PlayerRow {
        self.t
            .inbox
            .deliver(
                format!(
                    "From: stranger@example.net\r\nTo: dervish@example.org\r\nSubject: [dervish solo] join\r\nMessage-ID: <join@example.net>\r\n\r\nJOIN {}\r\n",
                    store::side_text(self.bot_side)
                )
                .as_bytes(),
            )
            .unwrap();
        self.t.pass();
        let seats = store::players(&self.t.svc.conn, "solo").unwrap();
        let bot_seat = seats
            .iter()
            .find(|p| p.side == self.bot_side)
            .unwrap()
            .clone();
        assert!(bot_seat.bot.is_some());
        assert_eq!(bot_seat.address, "");
        bot_seat
    }

    /// Every month until the game ends: the bot's orders in, READY, as
    /// soon as the turn opens; the human's (the simple player's, as a
    /// player would write them) with READY play the turn at once. The
    /// months played.
    fn play_every_month(&mut self) -> usize {
        let (address, secret) = (self.address, self.secret.clone());
        let mut months = 0;
        loop {
            let g = self.t.svc.game("solo").unwrap();
            if g.status == Status::Finished {
                return months;
            }
            let set = store::latest_order_set(&self.t.svc.conn, "solo", g.turn_no, self.bot_side)
                .unwrap()
                .expect("the bot's orders");
            assert!(set.ready && set.message.is_none());
            let state = self.t.svc.state_of(&g).unwrap();
            let orders = simple_orders(&self.scn, &state, self.human);
            let text = print::sheet(&self.scn.map, &written::sheet(&orders), false);
            let mail = format!(
                "From: {address}\r\nTo: dervish@example.org\r\nSubject: [dervish solo] orders {}\r\nMessage-ID: <o{}@example.org>\r\n\r\nSECRET {secret}\r\n{}READY\r\n",
                g.month,
                months + 1,
                text.replace('\n', "\r\n")
            );
            self.t.inbox.deliver(mail.as_bytes()).unwrap();
            let report = self.t.pass();
            let answer = sent(&self.t.dir)
                .into_iter()
                .filter(|(_, m)| m.to == vec![address.to_string()])
                .filter(|(_, m)| !m.subject.contains("results") && !m.subject.contains("set-up"))
                .map(|(_, m)| format!("{}\n{}", m.subject, m.body.text))
                .collect::<Vec<_>>()
                .join("\n-----\n");
            assert_eq!(
                report.turns_played,
                vec![("solo".to_string(), g.turn_no)],
                "{}: the turn plays as soon as the human is READY; the orders:\n{text}\nthe last answer:\n{answer}",
                g.month
            );
            months += 1;
            *self.t.now.lock().unwrap() += Duration::hours(1);
            assert!(months < 40, "the game ends");
        }
    }

    /// Every results mail went to the human only, carries the sealed
    /// umpire's notes, and verifies from the mail alone, the bot's sealed
    /// orders included; the records chain; the last results reveal every
    /// turn's notes and the key.
    fn every_result_verifies(
        &self,
        months: usize,
        setup_records: Vec<record::TurnRecord>,
        bot_seat: &store::PlayerRow,
    ) {
        let results: Vec<(Vec<u8>, inbound::Inbound)> = sent(&self.t.dir)
            .into_iter()
            .filter(|(_, m)| m.subject.contains(" results"))
            .collect();
        assert_eq!(results.len(), months);
        let mut records = Vec::new();
        for (raw, m) in &results {
            assert_eq!(m.to, vec![self.address.to_string()]);
            assert!(
                flat(&m.body.text).contains("are the umpire's and stay hidden"),
                "{}",
                m.body.text
            );
            let (recs, text) = record::from_mail(raw).unwrap();
            for c in record::verify(&self.data, &recs[0], Some(&text)) {
                assert!(c.ok, "{}: {}: {}", recs[0].turn_no, c.what, c.detail);
            }
            records.extend(recs);
        }
        records.extend(setup_records);
        records.sort_by_key(|r| r.turn_no);
        for w in records.windows(2) {
            assert!(record::chain(&w[0], &w[1]).iter().all(|c| c.ok));
        }
        let last = results
            .iter()
            .find(|(_, m)| m.body.text.contains("THE GAME IS OVER"))
            .expect("the last results");
        let notes = last
            .1
            .attachments
            .iter()
            .find(|a| {
                a.name
                    .as_deref()
                    .is_some_and(|n| n.ends_with("-umpire-notes.txt"))
            })
            .map(|a| a.text.clone())
            .expect("the umpire's notes attached at the end");
        // One for each month, and the set-up's.
        assert_eq!(
            notes.matches("\n== umpire's notes, turn ").count(),
            months + 1
        );
        assert!(notes.contains(bot_seat.bot_key.as_deref().unwrap()));
    }
}

#[test]
fn a_human_plays_scenario_2_by_email_against_the_mahdist_bot() {
    play_solo("khartoum", Side::Egyptian, "bot");
}

#[test]
fn a_human_plays_the_mahdi_in_scenario_1_against_the_competent_egyptian_bot() {
    play_solo("el-obeid", Side::Mahdist, "bot:competent");
}

/// A bot is asked for by a name it has, and a game by mail needs a player.
#[test]
fn bots_are_asked_for_by_name_and_one_side_is_a_player() {
    let dir = temp_dir("names");
    let mut cfg = Config {
        database: dir.join("dervish.sqlite"),
        ..Config::default()
    };
    cfg.host.game_master = "gm@example.org".into();
    let svc = Service::open(cfg).unwrap();
    let new = |egyptian: &str, mahdist: &str| {
        svc.new_game(
            &NewGame {
                id: None,
                egyptian: egyptian.into(),
                mahdist: mahdist.into(),
                deadline_hours: None,
                ..mailbox::game("khartoum", "")
            },
            "test",
        )
    };
    let e = new("bot:genius", "mahdi@example.org")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bot:historical") && e.contains("bot:competent"),
        "{e}"
    );
    let e = new("gordon@example.org", "bot:competent")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a programmed Mahdist player"), "{e}");
    let e = new("bot", "bot").unwrap_err().to_string();
    assert!(e.contains("needs a player"), "{e}");
    assert!(new("bot:historical", "mahdi@example.org").is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The game master gives a dropped player's seat to the programmed player
/// and, later, to a new player: each change is told, the bot's orders are
/// in at once, and a new player starts the open turn with none.
#[test]
fn the_game_master_switches_a_seat_between_a_player_and_the_bot() {
    let dir = temp_dir("switch");
    let mut cfg = mailbox::config(&dir);
    // The seats change in the first month (the set-up step is tested in
    // tests/setup_step.rs).
    cfg.turns.setup_hours = 0;
    let sender = Sender::new(&cfg.outgoing).unwrap();
    let mut inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
    let svc = Service::open(cfg).unwrap();
    let created = svc
        .new_game(&mailbox::game("khartoum", "sw"), "test")
        .unwrap();
    let egyptian_secret = created.secrets[0].1.clone();
    let mut svc = svc;
    svc.pass(&mut inbox, &sender).unwrap();
    let e = svc
        .replace_with_bot("sw", Side::Mahdist, "bot:competent", "gm")
        .unwrap_err();
    assert!(
        e.to_string().contains("not a programmed Mahdist player"),
        "{e}"
    );
    svc.replace_with_bot("sw", Side::Mahdist, "bot", "gm")
        .unwrap();
    // Both seats cannot be programmed players.
    let e = svc
        .replace_with_bot("sw", Side::Egyptian, "bot", "gm")
        .unwrap_err();
    assert!(e.to_string().contains("needs a player"), "{e}");
    let bot = store::latest_order_set(&svc.conn, "sw", 1, Side::Mahdist)
        .unwrap()
        .expect("the bot's orders for the open turn");
    assert!(bot.ready);
    svc.pass(&mut inbox, &sender).unwrap();
    let told: Vec<String> = sent(&dir)
        .into_iter()
        .filter(|(_, m)| {
            m.subject.contains("programmed") || flat(&m.body.text).contains("programmed")
        })
        .flat_map(|(_, m)| m.to)
        .collect();
    assert!(told.contains(&"mahdi@example.org".to_string()), "{told:?}");
    assert!(told.contains(&"gordon@example.org".to_string()), "{told:?}");
    // The human says READY: the turn plays with the bot's orders.
    inbox
        .deliver(
            format!(
                "From: gordon@example.org\r\nTo: dervish@example.org\r\nSubject: [dervish sw] orders\r\nMessage-ID: <r1@example.org>\r\n\r\nSECRET {egyptian_secret}\r\nREADY\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let r = svc.pass(&mut inbox, &sender).unwrap();
    assert_eq!(r.turns_played, vec![("sw".to_string(), 1)]);
    // A new Mahdist player takes over: the bot's READY orders for turn 2
    // no longer count, so the Egyptian READY alone does not play it.
    let secret = svc
        .replace_player("sw", Side::Mahdist, "osman@example.org", "gm")
        .unwrap();
    assert!(!secret.is_empty());
    let set = store::latest_order_set(&svc.conn, "sw", 2, Side::Mahdist)
        .unwrap()
        .unwrap();
    assert!(!set.ready && set.canonical.is_empty());
    inbox
        .deliver(
            format!(
                "From: gordon@example.org\r\nTo: dervish@example.org\r\nSubject: [dervish sw] orders\r\nMessage-ID: <r2@example.org>\r\n\r\nSECRET {egyptian_secret}\r\nREADY\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let r = svc.pass(&mut inbox, &sender).unwrap();
    assert!(r.turns_played.is_empty(), "{r:?}");
    // At the deadline the turn plays, and its record verifies: the empty
    // set is sealed like any other.
    svc.play_turn("sw").unwrap();
    svc.pass(&mut inbox, &sender).unwrap();
    let data = DataSet::embedded().unwrap();
    let last = sent(&dir)
        .into_iter()
        .filter(|(_, m)| m.subject.contains("March 1884 results"))
        .map(|(raw, _)| raw)
        .next()
        .expect("the results of turn 2");
    let (recs, text) = record::from_mail(&last).unwrap();
    for c in record::verify(&data, &recs[0], Some(&text)) {
        assert!(c.ok, "{}: {}", c.what, c.detail);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
