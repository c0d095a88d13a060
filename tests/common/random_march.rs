//! The parts of a random march order that the random campaigns and the
//! receipt's agreement with the turn draw alike: which of a stack's units
//! march, what they do on contact, and where they drop some off. Included
//! by `mod common` or by `#[path]`.

#![allow(dead_code)]

use dervish::engine::orders::{DropOff, OnContact, Selection};
use dervish::geo::Hex;
use dervish::state::Stack;
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
