//! Deadlines that bend, through the mail service (README, game master,
//! `game new --clock BASE+INCREMENT`): each player's time runs while a
//! turn waits for their orders and stops at their READY; each later turn
//! adds the increment; the turn is played when every side is READY or out
//! of time; reminders say how much time is left.

#[path = "common/long_game.rs"]
mod long_game;
#[path = "common/mailbox.rs"]
mod mailbox;
#[path = "common/text.rs"]
mod text;

use dervish::scenario::Side;
use dervish::service::clock::ClockSpec;
use long_game::{GORDON, Game, MAHDI, time};
use mailbox::flat;
use text::says;

#[test]
fn a_time_bank_game_is_played_as_the_players_time_runs_out() {
    let mut g = Game::new("clock", MAHDI, |_| {});
    let spec: ClockSpec = "2d+1d".parse().unwrap();
    g.svc.set_time_bank("k-1", spec, "test").unwrap();
    assert_eq!(g.game().deadline, time("2026-03-03T12:00:00Z"));
    g.pass();
    let told = g.last(MAHDI, "time bank").expect("the players told");
    assert!(flat(&told).contains("a time bank of 2d+1d"), "{told}");
    // The Egyptian is READY after 6 hours; the Mahdist says nothing.
    g.at("2026-03-01T18:00:00Z");
    g.send(Side::Egyptian, "MARCH STACK Sinkat TO Souakim\nREADY");
    g.at("2026-03-02T13:00:00Z");
    let reminder = g.last(MAHDI, "due by").expect("a reminder");
    assert!(reminder.contains("Time left: 23 hours."), "{reminder}");
    g.at("2026-03-03T11:00:00Z");
    assert_eq!(g.game().turn_no, 1);
    g.at("2026-03-03T12:30:00Z");
    assert_eq!(g.game().turn_no, 2, "the Mahdist is out of time");
    // Turn 2: the Egyptian has 2 days less 6 hours, plus a day; the
    // Mahdist nothing, plus a day. The deadline is the longer.
    let lines = g.svc.clock_lines("k-1").unwrap().join("\n");
    says(
        &lines,
        &[
            "Egyptian: 2 days 18 hours left (running)",
            "Mahdist: 1 day left (running)",
        ],
    );
    assert_eq!(g.game().deadline, time("2026-03-06T06:30:00Z"));
    // The results announce that deadline.
    let results = g.last(GORDON, "February 1884 results").unwrap();
    assert!(
        flat(&results).contains("due by 2026-03-06 06:30 UTC"),
        "{results}"
    );
    // The Egyptian is READY at once: the turn waits for the Mahdist's
    // day only, not for the deadline.
    g.send(Side::Egyptian, "READY");
    g.at("2026-03-04T12:00:00Z");
    assert_eq!(g.game().turn_no, 2);
    g.at("2026-03-04T12:40:00Z");
    assert_eq!(
        g.game().turn_no,
        3,
        "played when the Mahdist's time ran out"
    );
    // The Mahdist now answers at once; the Egyptian's time was stopped
    // at his READY at once in turn 2: his bank grew by the increment.
    g.send(Side::Mahdist, "READY");
    let lines = g.svc.clock_lines("k-1").unwrap().join("\n");
    says(
        &lines,
        &[
            "Mahdist: 1 day left (stopped at READY)",
            "Egyptian: 3 days 18 hours left (running)",
        ],
    );
    assert!(g.last(GORDON, "results").is_some());
    // STATUS gives the time left and each seat's record.
    g.send(Side::Egyptian, "STATUS");
    let status = g.last(GORDON, "status").unwrap();
    assert!(status.contains("Time bank 2d+1d:"), "{status}");
    assert!(
        status.contains("  Egyptian: 3 days 18 hours left (running)"),
        "{status}"
    );
    assert!(
        status.contains("  Egyptian: orders sent on time 2 of 2 turns, stand-in 0, missed 0"),
        "{status}"
    );
}

#[test]
fn a_fixed_deadline_game_reminds_with_the_time_left() {
    let mut g = Game::new("fixed", MAHDI, |_| {});
    g.at("2026-03-03T14:30:00Z");
    let reminder = g.last(GORDON, "due by").expect("a reminder");
    assert!(
        reminder.contains("Time left: 21 hours 30 minutes."),
        "{reminder}"
    );
    assert!(g.svc.clock_lines("k-1").unwrap().is_empty());
}
