//! Fuzz the order language: any bytes, read as an email body (UTF-8 or
//! Latin-1), must parse without a panic; what is understood must check
//! and print, and its canonical form must read back to the same orders.
#![no_main]

use std::sync::OnceLock;

use dervish::orders::{self, Input, Vocabulary, print};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use libfuzzer_sys::fuzz_target;

fn world() -> &'static (Scenario, Vocabulary, GameState) {
    static W: OnceLock<(Scenario, Vocabulary, GameState)> = OnceLock::new();
    W.get_or_init(|| {
        let s = DataSet::embedded().unwrap().scenario("khartoum").unwrap();
        let v = Vocabulary::new(&s);
        let (state, _) = initial_state(&s, &Placements::new()).unwrap();
        (s, v, state)
    })
}

fuzz_target!(|data: &[u8]| {
    let (s, v, state) = world();
    let text = match std::str::from_utf8(data) {
        Ok(t) => t.to_string(),
        Err(_) => data.iter().map(|&b| char::from(b)).collect(),
    };
    let flowed = data.first().is_some_and(|b| b & 1 == 1);
    let input = Input { text: &text, subject: None, flowed, delsp: flowed };
    let Ok(parsed) = orders::parse(&input, v) else { return };
    let checked = orders::check(&parsed.sheet, s, state, Side::Egyptian);
    let _ = orders::acknowledge(&parsed, &checked, s, Side::Egyptian, state);
    let canonical = print::sheet(&s.map, &parsed.sheet, true);
    let back = orders::parse(&Input::text(&canonical), v).expect("canonical text is small");
    assert!(back.errors.is_empty(), "{canonical}\n{:?}", back.errors);
    assert_eq!(back.sheet.orders(), parsed.sheet.orders(), "{canonical}");
});
