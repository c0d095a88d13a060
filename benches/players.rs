//! Programmed players: the Mahdist reaction-table player's decision for a
//! whole player turn (every stack's situation, roll and march, then the
//! orders through the checker), and a campaign of scenario 2 with the bot
//! playing the Mahdist side. Targets (docs/performance.md): a decision
//! under 1 ms, a campaign under 15 ms.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::egyptian::{self, Persona};
use dervish::players::mahdist::{Opponents, decide};
use dervish::players::reaction::Reactions;
use dervish::players::simple::simple_orders;
use dervish::scenario::{DataSet, Side};
use dervish::state::setup::{Placements, initial_state};

#[path = "common/positions.rs"]
mod positions;

fn decision(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    let table = Reactions::shipped().expect("the reaction table");
    let opponents = Opponents::shipped().expect("the opponents' data");
    // The third month, when the armies are in contact.
    let s = positions::third_month(&scn);
    c.bench_function("khartoum: the Mahdist bot decides a player turn", |b| {
        let mut dice = Dice::new(SeededDice::from_seed(11));
        b.iter(|| black_box(decide(&scn, black_box(&s), &table, &opponents, &mut dice)))
    });
}

/// A typical mid-game position of scenario 2: November 1884 (the tenth
/// month), the competent Egyptian against the bot, seeds 5 and 6: sieges
/// round Khartoum and Souakim, the relief expedition on the Nile.
fn mid_game_decision(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    let table = Reactions::shipped().expect("the reaction table");
    let opponents = Opponents::shipped().expect("the opponents' data");
    let (mut s, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let mut dice = Dice::new(SeededDice::from_seed(5));
    let mut bot = Dice::new(SeededDice::from_seed(6));
    for _ in 0..9 {
        s = play_month_with(
            &scn,
            s,
            &mut |st, side| match side {
                Side::Mahdist => decide(&scn, st, &table, &opponents, &mut bot).orders,
                Side::Egyptian => egyptian::decide(&scn, st, Persona::Competent).orders,
            },
            &mut dice,
        )
        .state;
    }
    assert!(s.result.is_none(), "the game goes on to the tenth month");
    c.bench_function(
        "khartoum: the Mahdist bot decides a player turn, mid-game against the competent Egyptian",
        |b| {
            let mut dice = Dice::new(SeededDice::from_seed(11));
            b.iter(|| black_box(decide(&scn, black_box(&s), &table, &opponents, &mut dice)))
        },
    );
}

fn campaign(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    let table = Reactions::shipped().expect("the reaction table");
    let opponents = Opponents::shipped().expect("the opponents' data");
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    c.bench_function(
        "khartoum: whole campaign, Mahdist bot against the simple Egyptian",
        |b| {
            b.iter(|| {
                let mut dice = Dice::new(SeededDice::from_seed(3));
                let mut bot = Dice::new(SeededDice::from_seed(4));
                let mut s = state.clone();
                while s.result.is_none() {
                    let month = s.month;
                    s = play_month_with(
                        &scn,
                        s,
                        &mut |st, side| match side {
                            Side::Mahdist => decide(&scn, st, &table, &opponents, &mut bot).orders,
                            Side::Egyptian => simple_orders(&scn, st, side),
                        },
                        &mut dice,
                    )
                    .state;
                    if s.month == month {
                        break;
                    }
                }
                black_box(s.digest())
            })
        },
    );
}

criterion_group!(benches, decision, mid_game_decision, campaign);
criterion_main!(benches);
