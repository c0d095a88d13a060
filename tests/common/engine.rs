//! What the engine tests (`tests/engine_*.rs`) share besides the `Bench`
//! board (`bench.rs`), included by `#[path]` beside `mod common`: assertions on why an order was set aside or a march stopped, and
//! on the notes of the log, each failing with every reason there was.
#![allow(dead_code)]

use dervish::engine::TurnResult;
use dervish::engine::events::Event;
use dervish::geo::Hex;
use dervish::state::{GameState, LeaderState, Status, Unit};

use crate::common::bench::{set_aside, stopped};

/// The text of every note in the log.
pub fn notes(r: &TurnResult) -> Vec<String> {
    let mut out = Vec::new();
    for e in &r.events {
        if let Event::Note { text } = e {
            out.push(text.clone());
        }
    }
    out
}

/// An order was set aside for a reason that says `fragment`.
#[track_caller]
pub fn assert_set_aside(r: &TurnResult, fragment: &str) {
    assert_any("set aside", &set_aside(r), fragment);
}

/// A march stopped for a reason that says `fragment`.
#[track_caller]
pub fn assert_stopped(r: &TurnResult, fragment: &str) {
    assert_any("stopped", &stopped(r), fragment);
}

/// A note of the log says `fragment`.
#[track_caller]
pub fn assert_noted(r: &TurnResult, fragment: &str) {
    assert_any("noted", &notes(r), fragment);
}

#[track_caller]
fn assert_any(what: &str, texts: &[String], fragment: &str) {
    assert!(
        texts.iter().any(|t| t.contains(fragment)),
        "nothing {what} says {fragment:?}: {texts:?}"
    );
}

/// Put the first counter of `unit_type` in the pool on `hex`; its index in
/// the state's units.
#[track_caller]
pub fn place_from_pool(state: &mut GameState, unit_type: &str, hex: Hex) -> usize {
    let i = state
        .units
        .iter()
        .position(|u| &*u.unit_type == unit_type && u.status == Status::Pool)
        .unwrap_or_else(|| panic!("no {unit_type} counter in the pool"));
    state.units[i].status = Status::OnMap(hex);
    i
}

/// The first counter of `unit_type`.
#[track_caller]
pub fn first_of_type<'a>(state: &'a GameState, unit_type: &str) -> &'a Unit {
    state
        .units
        .iter()
        .find(|u| &*u.unit_type == unit_type)
        .unwrap_or_else(|| panic!("no {unit_type} counter"))
}

/// The leader called `name`.
#[track_caller]
pub fn leader<'a>(state: &'a GameState, name: &str) -> &'a LeaderState {
    state
        .leaders
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no leader called {name}"))
}
