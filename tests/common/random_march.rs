//! The parts of a random march order that the random campaigns and the
//! receipt's agreement with the turn draw alike: which of a stack's units
//! march, what they do on contact, and where they drop some off. Included
//! by `mod common` or by `#[path]`.

#![allow(dead_code)]

use dervish::engine::orders::{DropOff, OnContact, Selection};
use dervish::geo::Hex;
use dervish::scenario::Side;
use dervish::state::{GameState, Stack};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Some of the stack's units, its first leader's force or the whole stack.
pub fn selection(rng: &mut ChaCha8Rng, s: &Stack<'_>) -> Selection {
    if rng.random_range(0..4) == 0 && s.units.len() > 1 {
        let k = rng.random_range(1..s.units.len());
        Selection::Units {
            units: s.units[..k].iter().map(|u| u.id.clone()).collect(),
            leaders: vec![],
        }
    } else if let (Some(l), true) = (s.leaders.first(), rng.random_range(0..2) == 0) {
        Selection::Leader(l.name.clone())
    } else {
        Selection::Stack(s.hex)
    }
}

/// Avoid, attack any stack met, or attack in the hexes next to the stack.
pub fn on_contact(rng: &mut ChaCha8Rng, s: &Stack<'_>) -> OnContact {
    match rng.random_range(0..3) {
        0 => OnContact::Avoid,
        1 => OnContact::AttackAny,
        _ => OnContact::AttackHexes(s.hex.neighbours().to_vec()),
    }
}

/// One time in `one_in`, the stack's first unit dropped off at a hex
/// `near` draws; otherwise none.
pub fn drop_offs(
    rng: &mut ChaCha8Rng,
    s: &Stack<'_>,
    one_in: u32,
    near: impl Fn(&mut ChaCha8Rng, Hex) -> Hex,
) -> Vec<DropOff> {
    if rng.random_range(0..one_in) == 0 {
        vec![DropOff {
            at: near(rng, s.hex),
            units: vec![s.units[0].id.clone()],
            leaders: vec![],
        }]
    } else {
        Vec::new()
    }
}

/// `side`'s stacks that hold units: the ones a random order may move.
pub fn stacks_of(state: &GameState, side: Side) -> Vec<Stack<'_>> {
    state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side && !s.units.is_empty())
        .collect()
}

/// A hex at most `r` (drawn from 1 to `most`) columns and rows from `h`.
pub fn near(rng: &mut ChaCha8Rng, h: Hex, most: i32) -> Hex {
    let r = rng.random_range(1..=most);
    Hex::new(
        h.col + rng.random_range(-r..=r),
        h.row + rng.random_range(-r..=r),
    )
}

/// The hexes of a straight line from `h` to a hex [`near`] it, `h` left out.
pub fn path_near(rng: &mut ChaCha8Rng, h: Hex, most: i32) -> Vec<Hex> {
    h.line_to(near(rng, h, most)).into_iter().skip(1).collect()
}
