//! Programmed players: the Mahdist reaction-table player's decision for a
//! whole player turn (every stack's situation, roll and march, then the
//! orders through the checker), and a campaign of scenario 2 with the bot
//! playing the Mahdist side. Targets (docs/performance.md): a decision
//! under 1 ms, a campaign under 15 ms.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::dice::{Dice, SeededDice};
use dervish::players::egyptian::{self, Persona};
use dervish::players::mahdist::{Opponents, decide};
use dervish::players::reaction::Reactions;
use dervish::players::simple::simple_orders;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

#[path = "common/positions.rs"]
mod positions;

/// Scenario 2 of the shipped data, with the bot's reaction table and the
/// opponents' data.
fn khartoum() -> (Scenario, Reactions, Opponents) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    let table = Reactions::shipped().expect("the reaction table");
    let opponents = Opponents::shipped().expect("the opponents' data");
    (scn, table, opponents)
}

fn decision(c: &mut Criterion) {
    let (scn, table, opponents) = khartoum();
    // The third month, when the armies are in contact.
    let s = positions::third_month(&scn);
    let name = "khartoum: the Mahdist bot decides a player turn";
    time_decision(c, name, &scn, &s, &table, &opponents);
}

/// A typical mid-game position of scenario 2: November 1884 (the tenth
/// month), the competent Egyptian against the bot, seeds 5 and 6: sieges
/// round Khartoum and Souakim, the relief expedition on the Nile.
fn mid_game_decision(c: &mut Criterion) {
    let (scn, table, opponents) = khartoum();
    let (s, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let mut bot = Dice::new(SeededDice::from_seed(6));
    let (s, _) = positions::play(&scn, s, 5, 9, &mut |st, side| match side {
        Side::Mahdist => decide(&scn, st, &table, &opponents, &mut bot).orders,
        Side::Egyptian => egyptian::decide(&scn, st, Persona::Competent).orders,
    });
    assert!(s.result.is_none(), "the game goes on to the tenth month");
    let name =
        "khartoum: the Mahdist bot decides a player turn, mid-game against the competent Egyptian";
    time_decision(c, name, &scn, &s, &table, &opponents);
}

/// The bot's decision for the Mahdist player turn of `s`, timed as `name`.
fn time_decision(
    c: &mut Criterion,
    name: &str,
    scn: &Scenario,
    s: &GameState,
    table: &Reactions,
    opponents: &Opponents,
) {
    c.bench_function(name, |b| {
        let mut dice = Dice::new(SeededDice::from_seed(11));
        b.iter(|| black_box(decide(scn, black_box(s), table, opponents, &mut dice)))
    });
}

fn campaign(c: &mut Criterion) {
    let (scn, table, opponents) = khartoum();
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    c.bench_function(
        "khartoum: whole campaign, Mahdist bot against the simple Egyptian",
        |b| {
            b.iter(|| {
                let mut bot = Dice::new(SeededDice::from_seed(4));
                let mut orders = |st: &GameState, side| match side {
                    Side::Mahdist => decide(&scn, st, &table, &opponents, &mut bot).orders,
                    Side::Egyptian => simple_orders(&scn, st, side),
                };
                let (s, _) = positions::play(&scn, state.clone(), 3, u32::MAX, &mut orders);
                black_box(s.digest())
            })
        },
    );
}

criterion_group!(benches, decision, mid_game_decision, campaign);
criterion_main!(benches);
