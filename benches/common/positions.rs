//! Positions the benchmarks start from, and months played on from them.
//! Included by `#[path]`.
#![allow(dead_code)]

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::orders::Orders;
use dervish::engine::play_month_with;
use dervish::players::simple::simple_orders;
use dervish::scenario::{Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

/// The third month of `scn` from the default set-up, the simple player on
/// both sides and seed 7: the armies are in contact.
pub fn third_month(scn: &Scenario) -> GameState {
    simple(scn, 2).0
}

/// `scn` after `months` months from the default set-up, the simple player
/// on both sides and seed 7, with the last month's events.
pub fn simple(scn: &Scenario, months: u32) -> (GameState, Vec<Event>) {
    let (s, _) = initial_state(scn, &Placements::new()).expect("set-up");
    play(scn, s, 7, months, &mut |st, side| {
        simple_orders(scn, st, side)
    })
}

/// `s` played on with `orders` and dice from `seed` for `months` months,
/// or until the game ends (or a month does not move the calendar on),
/// with the last month's events.
pub fn play(
    scn: &Scenario,
    mut s: GameState,
    seed: u64,
    months: u32,
    orders: &mut dyn FnMut(&GameState, Side) -> Orders,
) -> (GameState, Vec<Event>) {
    let mut dice = Dice::new(SeededDice::from_seed(seed));
    let mut events = Vec::new();
    for _ in 0..months {
        if s.result.is_some() {
            break;
        }
        let month = s.month;
        let r = play_month_with(scn, s, orders, &mut dice);
        (s, events) = (r.state, r.events);
        if s.month == month {
            break;
        }
    }
    (s, events)
}
