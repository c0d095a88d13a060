//! The game master's rollback in the open, through the mail service
//! (README, game master): `GM ROLLBACK ID MONTH WHY` by mail (or `game
//! rollback`) takes the game back to the start of a month played, both
//! players are told why, the order sets of the turns taken back are kept
//! and listed, and the record of the turn played again carries the
//! rollback, so `dervish verify --from-mail` shows it in the chain rather
//! than a gap. A rollback to a month not played, or without a reason,
//! changes nothing. `game preview` plays the due turn without storing it.

#[path = "common/long_game.rs"]
mod long_game;
#[path = "common/mailbox.rs"]
mod mailbox;
#[path = "common/process.rs"]
mod process;
#[path = "common/text.rs"]
mod text;

use std::path::Path;

use dervish::scenario::Side;
use dervish::store;
use long_game::{GM, GORDON, Game};
use mailbox::flat;
use text::says;

/// Game `k-1` against the programmed Mahdist, turns 1 (February 1884)
/// and 2 (March 1884) played, turn 3 open.
fn two_turns_played(name: &str) -> Game {
    let mut g = Game::new(name, "bot", |_| {});
    g.send(Side::Egyptian, "MARCH STACK Sinkat TO Souakim");
    g.at("2026-03-04T13:00:00Z");
    g.at("2026-03-07T14:00:00Z");
    assert_eq!(g.game().turn_no, 3);
    g
}

#[test]
fn bad_rollbacks_change_nothing() {
    let g = two_turns_played("rollback-bad");
    let before = g.game();
    let e = g
        .svc
        .rollback("k-1", "1885-01", "a mistake", "test")
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("no turn of game k-1 was played in January 1885; the months played are: 1884-02, 1884-03"),
        "{e}"
    );
    let e = g.svc.rollback("k-1", "1884-02", "  ", "test").unwrap_err();
    assert!(e.to_string().contains("say why"), "{e}");
    let e = g
        .svc
        .rollback("k-1", "sometime", "why", "test")
        .unwrap_err();
    assert!(e.to_string().contains("is not a month"), "{e}");
    assert_eq!(g.game(), before);
    assert_eq!(store::turns(&g.svc.conn, "k-1").unwrap().len(), 2);
    assert!(g.svc.rollback_lines("k-1").unwrap().is_empty());
}

#[test]
fn the_preview_plays_the_due_turn_and_stores_nothing() {
    let g = two_turns_played("preview");
    let before = g.game();
    let text = g.svc.preview("k-1").unwrap();
    assert!(
        text.starts_with("Preview of turn 3 of game k-1 (1884-04)"),
        "{text}"
    );
    assert!(text.contains("nothing stored"), "{text}");
    assert_eq!(g.game(), before);
    assert_eq!(store::turns(&g.svc.conn, "k-1").unwrap().len(), 2);
    // The same again: nothing was drawn from anywhere but the turn's seed.
    assert_eq!(g.svc.preview("k-1").unwrap(), text);
}

#[test]
fn a_rollback_by_mail_is_told_kept_and_shown_in_the_turn_chain() {
    let mut g = two_turns_played("rollback");
    g.svc.set_gm_password("correct horse battery").unwrap();
    let first_march = g
        .sent_to(GORDON)
        .into_iter()
        .find(|s| s.subject.contains("March 1884 results"))
        .expect("the first results of March");
    g.deliver(
        GM,
        "commands",
        "PASSWORD correct horse battery\nGM ROLLBACK k-1 1884-03 the Egyptian orders of March were lost by the host\n",
    );
    g.pass();
    let answer = g.last(GM, "game master commands").unwrap();
    assert!(
        flat(&answer).contains("taken back to the start of turn 2 (1884-03)"),
        "{answer}"
    );
    let back = g.game();
    assert_eq!((back.turn_no, back.month.as_str()), (2, "1884-03"));
    assert_eq!(store::turns(&g.svc.conn, "k-1").unwrap().len(), 1);
    // Both players (the programmed one has no mail) and the game master
    // are told why.
    for to in [GORDON, GM] {
        let told = g.last(to, "took the game back to March 1884").expect(to);
        assert!(
            flat(&told).contains("Why: the Egyptian orders of March were lost by the host"),
            "{told}"
        );
        assert!(flat(&told).contains("Turn 2 is taken back"), "{told}");
        for l in told.lines() {
            assert!(l.chars().count() < 100, "{l:?}");
        }
    }
    // The order sets taken back are kept, and listed.
    let lines = g.svc.rollback_lines("k-1").unwrap().join("\n");
    assert!(
        lines.contains("back to turn 2 (1884-03) from turn 3"),
        "{lines}"
    );
    assert!(lines.contains("turn 2 (1884-03) taken back"), "{lines}");
    assert!(lines.contains("orders kept: turn 2 Mahdist v1"), "{lines}");
    assert!(lines.contains("orders kept: turn 3 Mahdist v1"), "{lines}");
    // Turn 2 played again: its record says it was taken back.
    g.later(73);
    assert_eq!(g.game().turn_no, 3);
    let results = g.sent_to(GORDON);
    let february = results
        .iter()
        .find(|s| s.subject.contains("February 1884 results"))
        .unwrap();
    let march: Vec<_> = results
        .iter()
        .filter(|s| s.subject.contains("March 1884 results"))
        .collect();
    assert_eq!(
        march.len(),
        2,
        "the results of turn 2 played again are a new mail"
    );
    let again = march
        .iter()
        .find(|s| s.text != first_march.text)
        .expect("new results");
    let dir = g.dir.join("saved");
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("february.eml"), dir.join("march.eml"));
    std::fs::write(&a, &february.raw).unwrap();
    std::fs::write(&b, &again.raw).unwrap();
    let out = verify(&dir, &a, &b);
    let said = process::said(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    says(
        &said,
        &[
            "ok        rollback: turn 2 is played again",
            "the game master took back turn 2 (the Egyptian orders of March were lost by the host)",
            "ok        turns 1 and 2: the game master took the game back to the start of turn 2",
            "ok        turns 1 and 2: turn 2 starts from the state turn 1 left",
            "it was played again after the rollback with a new seed",
        ],
    );
    // The archive shows the rollback with the turn played again.
    let archive = g.svc.archive_data(&g.game()).unwrap();
    let month = archive
        .months
        .iter()
        .find(|m| m.month == "1884-03")
        .unwrap();
    let why = month.turns[0].rollback.as_deref().unwrap_or_default();
    assert!(
        why.contains("the game master took back turn 2: the Egyptian orders of March"),
        "{why}"
    );
    // The old March results and the new: the chain from February to the
    // first is still whole, as it was.
    let old = dir.join("march-first.eml");
    std::fs::write(&old, &first_march.raw).unwrap();
    let out = verify(&dir, &a, &old);
    assert_eq!(out.status.code(), Some(0));
}

/// `dervish verify --from-mail FIRST SECOND` in `dir`, for the chain of
/// two results mails saved there.
fn verify(dir: &Path, first: &Path, second: &Path) -> std::process::Output {
    let (first, second) = (first.to_str().unwrap(), second.to_str().unwrap());
    process::dervish_in(dir, &["verify", "--from-mail", first, second], "")
}

/// A turn opened again by a rollback is a turn whose deadline the
/// players must be reminded of again, though they were reminded of it
/// the first time it was open.
#[test]
fn a_turn_taken_back_is_reminded_again() {
    let mut g = Game::new("rollback-remind", "bot", |_| {});
    g.send(Side::Egyptian, "MARCH STACK Sinkat TO Souakim");
    g.at("2026-03-04T13:00:00Z");
    assert_eq!(g.game().turn_no, 2);
    g.at("2026-03-06T14:00:00Z");
    let due = "1884-03: orders due by";
    assert_eq!(g.count(GORDON, due), 1, "the reminder of turn 2");
    g.at("2026-03-07T14:00:00Z");
    assert_eq!(g.game().turn_no, 3);
    g.svc
        .rollback("k-1", "1884-03", "a mistake", "test")
        .unwrap();
    assert_eq!(g.game().turn_no, 2);
    // The turn opened again has a new deadline 72 hours on: 50 hours
    // later it is under a day away.
    g.later(50);
    assert_eq!(g.game().turn_no, 2);
    assert_eq!(g.count(GORDON, due), 2, "the turn opened again is reminded");
}
