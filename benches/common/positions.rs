//! Positions the benchmarks start from. Included by `#[path]`.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::simple::simple_orders;
use dervish::scenario::Scenario;
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

/// The third month of `scn` from the default set-up, the simple player on
/// both sides and seed 7: the armies are in contact.
pub fn third_month(scn: &Scenario) -> GameState {
    let (mut s, _) = initial_state(scn, &Placements::new()).expect("set-up");
    let mut dice = Dice::new(SeededDice::from_seed(7));
    for _ in 0..2 {
        s = play_month_with(
            scn,
            s,
            &mut |st, side| simple_orders(scn, st, side),
            &mut dice,
        )
        .state;
    }
    s
}
