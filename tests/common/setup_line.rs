//! The set-up lines of a scenario, as the set-up tests pick them.
#![allow(dead_code)]

use dervish::geo::Hex;
use dervish::scenario::Scenario;
use dervish::state::UnitId;
use dervish::state::setup::setup_lines;

/// The index of the set-up line of `scn` that places `leader`.
pub fn line_with(scn: &Scenario, leader: &str) -> usize {
    let lines = &scn.def.setup;
    lines
        .iter()
        .position(|d| d.leaders.iter().any(|l| l == leader))
        .unwrap()
}

/// The first `n` Ansar units (`MS…`) of the Mahdi's set-up line, and the
/// last hex of its zone.
pub fn mahdi_line(scn: &Scenario, n: usize) -> (Vec<UnitId>, Hex) {
    let main = line_with(scn, "Mahdi");
    let units = setup_lines(scn)
        .into_iter()
        .filter(|(id, l)| *l == main && id.0.starts_with("MS"))
        .map(|(id, _)| id)
        .take(n)
        .collect();
    let zone = dervish::scenario::zone::zone_hexes(&scn.map, &scn.def.setup[main].zone).unwrap();
    (units, *zone.last().unwrap())
}
