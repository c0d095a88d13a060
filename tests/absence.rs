//! Absence by mail, the stand-in and missed deadlines, played through the
//! mail service (docs/orders.md, ABSENT): a deadline that falls in an
//! absence waits for the player's return, within the yearly allowance;
//! with STANDIN the programmed player plays the turn; a seat that missed
//! `[seats] stand_in_after_missed` deadlines in a row gets the stand-in
//! and is opened for JOIN, the game master told. Bad absences change
//! nothing.

#[path = "common/long_game.rs"]
mod long_game;
#[path = "common/mailbox.rs"]
mod mailbox;
#[path = "common/text.rs"]
mod text;

use dervish::scenario::Side;
use dervish::store;
use long_game::{GM, GORDON, Game, MAHDI, time};
use mailbox::flat;
use text::says;

#[test]
fn an_absence_holds_the_deadline_until_the_player_is_back() {
    let mut g = Game::new("hold", MAHDI, |_| {});
    assert_eq!(g.game().deadline, time("2026-03-04T12:00:00Z"));
    g.send(Side::Egyptian, "ABSENT FROM 2026-03-03 TO 2026-03-10");
    let answer = g
        .last(GORDON, "absence noted")
        .expect("the absence confirmed");
    let text = flat(&answer);
    assert!(
        text.contains("from 2026-03-03 to 2026-03-10 (8 days)"),
        "{answer}"
    );
    assert!(text.contains("13 of them are left in 2026"), "{answer}");
    for l in answer.lines() {
        assert!(l.chars().count() < 100, "{l:?}");
    }
    // The opponent and the game master are told.
    assert!(
        g.last(MAHDI, "] absence")
            .is_some_and(|t| t.contains("will be away"))
    );
    assert!(g.last(GM, "] absence").is_some());
    // The deadline waits for a full day after the return.
    assert_eq!(g.game().deadline, time("2026-03-12T12:00:00Z"));
    assert!(g.last(MAHDI, "deadline held").is_some());
    g.at("2026-03-05T12:00:00Z");
    assert_eq!(g.game().turn_no, 1, "not played at the old deadline");
    g.at("2026-03-12T12:30:00Z");
    assert_eq!(g.game().turn_no, 2, "played at the held deadline");
    let log = store::audit_log(&g.svc.conn, "k-1").unwrap();
    assert!(log.iter().any(|(_, _, a, _)| a == "absence"), "{log:?}");
    assert!(
        log.iter()
            .any(|(_, _, a, _)| a == "deadline held for an absence")
    );
}

#[test]
fn bad_absences_are_answered_and_change_nothing() {
    let mut g = Game::new("bad", MAHDI, |_| {});
    let before = g.game();
    for (line, why) in [
        ("ABSENT FROM 2026-02-20 TO 2026-02-25", "which is past"),
        ("ABSENT FROM 2026-03-02 TO 2026-04-10", "21 days a year"),
    ] {
        g.send(Side::Egyptian, line);
        let answer = g.last(GORDON, "absence not taken").expect(line);
        assert!(flat(&answer).contains(why), "{answer}");
        assert!(answer.contains("Nothing was changed"), "{answer}");
    }
    assert!(
        dervish::store::seats::absences(&g.svc.conn, "k-1", None)
            .unwrap()
            .is_empty()
    );
    assert_eq!(g.game(), before);
    // Without the secret, nothing is taken either.
    g.mail(
        Side::Egyptian,
        "ABSENT FROM 2026-03-02 TO 2026-03-05",
        false,
    );
    assert!(
        dervish::store::seats::absences(&g.svc.conn, "k-1", None)
            .unwrap()
            .is_empty()
    );
    // A line not understood says how to write it.
    g.send(Side::Egyptian, "ABSENT FROM next week");
    assert!(g.sent_to(GORDON).iter().any(|s| {
        s.text
            .contains("ABSENT FROM 2026-07-01 TO 2026-07-14 [STANDIN]")
    }));
    // ABSENT NONE with no absence says so.
    g.send(Side::Egyptian, "ABSENT NONE");
    assert!(
        g.last(GORDON, "absence not taken")
            .unwrap()
            .contains("no absence to cancel")
    );
}

#[test]
fn a_stand_in_plays_the_turns_of_an_absence() {
    let mut g = Game::new("stand-in", "bot", |_| {});
    g.send(
        Side::Egyptian,
        "ABSENT FROM 2026-03-01 TO 2026-03-05 STANDIN",
    );
    assert!(g.last(GORDON, "absence noted").is_some());
    // The stand-in's orders are READY: the turn is played at once.
    g.pass();
    assert!(g.game().turn_no >= 2, "turn 1 played by the stand-in");
    let turns = dervish::store::seats::stand_in_turns(&g.svc.conn, "k-1").unwrap();
    assert_eq!(turns[0].0, 1);
    assert_eq!(turns[0].1, Side::Egyptian);
    assert!(turns[0].2.contains("away from 2026-03-01"), "{turns:?}");
    // Its orders went through the checker as a set of the Egyptian side.
    let t = &store::turns(&g.svc.conn, "k-1").unwrap()[0];
    let set = store::order_set(&g.svc.conn, t.egyptian_set.unwrap())
        .unwrap()
        .unwrap();
    assert!(set.message.is_none() && set.ready);
    assert!(g.last(GORDON, "the stand-in plays your turn").is_some());
    // Who played which turn: game show's seat lines and the audit log.
    let lines = g.svc.seat_lines("k-1").unwrap().join("\n");
    says(
        &lines,
        &[
            "turn 1: the Egyptian side played by the stand-in",
            "Egyptian: orders sent on time 0 of",
        ],
    );
    let log = store::audit_log(&g.svc.conn, "k-1").unwrap();
    assert!(
        log.iter()
            .any(|(_, actor, _, d)| actor == "stand-in" && d.contains("Turn 1"))
    );
    // The archive says so too.
    let archive = g.svc.archive_data(&g.game()).unwrap();
    let first = &archive.months[0].turns[0];
    assert_eq!(first.turn_no, 1);
    assert_eq!(first.stand_ins.len(), 1, "{:?}", first.stand_ins);
    assert!(
        first.stand_ins[0].starts_with("Egyptian: the programmed player (the player is away"),
        "{:?}",
        first.stand_ins
    );
}

#[test]
fn missed_deadlines_open_the_seat_and_the_stand_in_plays() {
    let mut g = Game::new("missed", "bot", |cfg| cfg.seats.stand_in_after_missed = 2);
    g.at("2026-03-04T13:00:00Z");
    assert_eq!(g.game().turn_no, 2);
    assert!(
        store::strangers::open_seats(&g.svc.conn)
            .unwrap()
            .is_empty()
    );
    g.at("2026-03-07T14:00:00Z");
    // Two deadlines missed in a row: the seat is open, the stand-in in.
    let p = store::players(&g.svc.conn, "k-1").unwrap();
    let eg = p.iter().find(|p| p.side == Side::Egyptian).unwrap();
    assert!(eg.address.is_empty(), "{eg:?}");
    assert_eq!(
        store::strangers::open_seats(&g.svc.conn).unwrap(),
        vec![("k-1".to_string(), Side::Egyptian)]
    );
    let told = g
        .last(GM, "a seat is open for a replacement")
        .expect("the game master told");
    assert!(
        flat(&told).contains("missed 2 deadlines in a row"),
        "{told}"
    );
    assert!(g.last(GORDON, "a seat is open").is_some());
    // The stand-in's orders for turn 3 are READY: it is played at once.
    g.pass();
    assert!(g.game().turn_no >= 4, "turn 3 played by the stand-in");
    let lines = g.svc.seat_lines("k-1").unwrap().join("\n");
    says(
        &lines,
        &[
            "Egyptian: orders sent on time 0 of",
            "missed 2",
            "the seat is open for a replacement",
        ],
    );
    // A newcomer may take the seat with JOIN.
    g.deliver("kitchener@example.org", "join", "JOIN EGYPTIAN");
    g.pass();
    assert!(
        g.sent_to("kitchener@example.org")
            .iter()
            .any(|s| s.text.contains("JOIN CONFIRM"))
    );
}

#[test]
fn the_players_own_orders_before_the_deadline_replace_the_stand_ins() {
    let mut g = Game::new("own-orders", MAHDI, |_| {});
    g.send(
        Side::Egyptian,
        "ABSENT FROM 2026-03-02 TO 2026-03-08 STANDIN",
    );
    // The absence has not begun: the stand-in's orders wait for the
    // deadline, not READY.
    let set = store::latest_order_set(&g.svc.conn, "k-1", 1, Side::Egyptian)
        .unwrap()
        .expect("the stand-in's orders");
    assert!(set.message.is_none() && !set.ready);
    g.send(Side::Egyptian, "MARCH STACK Sinkat TO Souakim");
    g.at("2026-03-04T12:30:00Z");
    assert_eq!(g.game().turn_no, 2);
    let lines = g.svc.seat_lines("k-1").unwrap().join("\n");
    assert!(
        lines.contains("Egyptian: orders sent on time 1 of 1 turns"),
        "{lines}"
    );
    assert!(
        !lines.contains("turn 1: the Egyptian side played by the stand-in"),
        "{lines}"
    );
    // Turn 2's deadline falls in the absence too: the stand-in plays it.
    assert!(
        dervish::store::seats::stand_in_turns(&g.svc.conn, "k-1")
            .unwrap()
            .iter()
            .any(|(t, s, _)| *t == 2 && *s == Side::Egyptian)
    );
}
