//! Ending a game by agreement, through the mail service (docs/orders.md,
//! RESIGN and DRAW): RESIGN gives the other side the victory; a draw is
//! proposed by one player and accepted by the other, and a proposal
//! lapses when the turn is played. Each is confirmed to the sender and
//! told to the opponent; the result says how the game ended.

#[path = "common/long_game.rs"]
mod long_game;
#[path = "common/mailbox.rs"]
mod mailbox;

use dervish::scenario::Side;
use dervish::store::{self, Status};
use long_game::{GM, GORDON, Game, MAHDI};

/// The game is finished with `result`, and the mail saying it is over,
/// which says `how` it ended, went to both players and the game master:
/// those mails, for a closer look.
fn ended(g: &Game, result: &str, how: &str) -> Vec<String> {
    let over = g.game();
    assert_eq!(over.status, Status::Finished);
    assert_eq!(over.result.as_deref(), Some(result));
    [GORDON, MAHDI, GM]
        .into_iter()
        .map(|to| {
            let mail = g.last(to, "the game is over").expect(to);
            assert!(mailbox::flat(&mail).contains(how), "{mail}");
            mail
        })
        .collect()
}

#[test]
fn resign_without_the_secret_changes_nothing_and_with_it_ends_the_game() {
    let mut g = Game::new("resign", MAHDI, |_| {});
    g.mail(Side::Egyptian, "RESIGN", false);
    assert_eq!(g.game().status, Status::Running);
    assert!(
        g.sent_to(GORDON)
            .iter()
            .any(|s| s.text.contains("the mail has no SECRET line"))
    );
    g.send(Side::Egyptian, "RESIGN");
    for mail in ended(
        &g,
        "Mahdist victory: the Egyptian player resigned",
        "by resignation",
    ) {
        assert!(
            mail.contains("Result: Mahdist victory: the Egyptian player resigned"),
            "{mail}"
        );
        for l in mail.lines() {
            assert!(l.chars().count() < 100, "{l:?}");
        }
    }
    // Orders after the end are refused with the result.
    g.send(Side::Mahdist, "MARCH STACK Berber TO Shendi");
    let refusal = g.mails(MAHDI, "").pop().unwrap();
    assert!(
        mailbox::flat(&refusal).contains("game k-1 is over: Mahdist victory"),
        "{refusal}"
    );
    let log = store::audit_log(&g.svc.conn, "k-1").unwrap();
    assert!(log.iter().any(|(_, _, a, _)| a == "game ended: resigned"));
}

#[test]
fn a_draw_proposed_and_accepted_ends_the_game() {
    let mut g = Game::new("draw", MAHDI, |_| {});
    g.send(Side::Mahdist, "DRAW ACCEPT");
    assert!(
        g.last(MAHDI, "no draw to accept")
            .is_some_and(|t| t.contains("Nothing was changed"))
    );
    g.send(Side::Egyptian, "DRAW PROPOSE");
    assert!(g.last(GORDON, "draw proposed").is_some());
    let told = g
        .last(MAHDI, "a draw is proposed")
        .expect("the opponent told");
    assert!(told.contains("DRAW ACCEPT"), "{told}");
    assert_eq!(g.game().status, Status::Running);
    g.send(Side::Mahdist, "DRAW ACCEPT");
    ended(
        &g,
        "a draw: agreed by both players",
        "by agreement of both players",
    );
}

#[test]
fn a_draw_proposal_lapses_when_the_turn_is_played_and_may_be_withdrawn() {
    let mut g = Game::new("lapse", MAHDI, |_| {});
    g.send(Side::Egyptian, "DRAW PROPOSE");
    g.send(Side::Egyptian, "DRAW WITHDRAW");
    assert!(g.last(MAHDI, "the draw proposal is withdrawn").is_some());
    g.send(Side::Mahdist, "DRAW ACCEPT");
    assert!(g.last(MAHDI, "no draw to accept").is_some());
    g.send(Side::Egyptian, "DRAW PROPOSE");
    g.at("2026-03-04T13:00:00Z");
    assert_eq!(g.game().turn_no, 2);
    g.send(Side::Mahdist, "DRAW ACCEPT");
    assert_eq!(g.game().status, Status::Running, "the proposal lapsed");
    assert_eq!(g.count(MAHDI, "no draw to accept"), 2);
}
