//! A board for engine tests: a scenario with every counter off the map, on
//! which a test places the units it needs.
#![allow(dead_code)]

use dervish::dice::{Dice, FixedDice};
use dervish::engine::events::Event;
use dervish::engine::orders::{Leg, MarchOrder, Orders};
use dervish::engine::{TurnResult, play_player_turn};
use dervish::geo::Hex;
use std::sync::Arc;

use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::setup::{Placements, initial_state};
use dervish::state::{GameState, Status, UnitId};

/// An empty board of a scenario: every counter off the map.
pub struct Bench {
    pub scn: Scenario,
    pub state: GameState,
}

impl Bench {
    pub fn new(id: &str) -> Bench {
        let mut scn = DataSet::embedded().unwrap().scenario(id).unwrap();
        // A quiet board: every random event is "nothing", no reinforcement
        // comes (not even one a random event calls), so a test sees only
        // the rule it checks.
        dervish::cases::quieten(&mut scn);
        let mut def = (*scn.def).clone();
        def.reinforcements.clear();
        scn.def = Arc::new(def);
        let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
        for u in &mut state.units {
            if u.hex().is_some() {
                u.status = Status::Pool;
            }
        }
        for l in &mut state.leaders {
            l.hex = None;
        }
        state.control.clear();
        Bench { scn, state }
    }

    pub fn hex(&self, place: &str) -> Hex {
        self.scn.map.resolve(place).unwrap()
    }

    /// Put `n` free counters of a type on `place`.
    pub fn place(&mut self, unit_type: &str, n: usize, place: &str) -> Vec<UnitId> {
        let hex = self.hex(place);
        let mut ids = Vec::new();
        for u in self
            .state
            .units
            .iter_mut()
            .filter(|u| &*u.unit_type == unit_type && u.hex().is_none())
            .take(n)
        {
            u.status = Status::OnMap(hex);
            ids.push(u.id.clone());
        }
        assert_eq!(ids.len(), n, "not enough {unit_type} counters");
        ids
    }

    pub fn leader(&mut self, name: &str, place: &str) {
        let hex = self.hex(place);
        let l = self
            .state
            .leaders
            .iter_mut()
            .find(|l| l.name == name)
            .unwrap();
        l.hex = Some(hex);
    }

    /// Play a player turn. `faces` are the dice from the march phase on:
    /// the quiet random event roll (and the Mahdist arrival roll, "no
    /// result") come first.
    pub fn play(&self, side: Side, orders: &Orders, faces: &[u32]) -> TurnResult {
        let mut all = vec![1, 1];
        if side == Side::Mahdist {
            all.push(2);
        }
        all.extend_from_slice(faces);
        let faces = &all[..];
        // After the listed faces every die shows 6: attrition spares the
        // stack and disrupted units recover, unless a test says otherwise.
        let mut dice = Dice::new(FixedDice::with_fallback(faces.iter().copied(), 6));
        play_player_turn(&self.scn, self.state.clone(), side, orders, &mut dice)
    }

    pub fn at(&self, r: &TurnResult, id: &UnitId) -> Option<Hex> {
        r.state.units.iter().find(|u| u.id == *id).unwrap().hex()
    }
}

/// A march order for the stack in `hex`.
pub fn march(hex: Hex, legs: Vec<Leg>) -> Orders {
    Orders {
        marches: vec![MarchOrder::stack(hex, legs)],
        ..Orders::default()
    }
}

/// What `pick` makes of the turn's events, those it takes, in order.
fn picked(r: &TurnResult, pick: impl FnMut(&Event) -> Option<String>) -> Vec<String> {
    r.events.iter().filter_map(pick).collect()
}

/// The reasons of every order set aside.
pub fn set_aside(r: &TurnResult) -> Vec<String> {
    picked(r, |e| match e {
        Event::OrderSetAside { reason, .. } => Some(reason.clone()),
        _ => None,
    })
}

/// The reasons of every stop.
pub fn stopped(r: &TurnResult) -> Vec<String> {
    picked(r, |e| match e {
        Event::Stopped { reason, .. } => Some(reason.clone()),
        _ => None,
    })
}

/// Each roll on a table whose name starts with `table`: "raw = total -> line".
pub fn rolls(r: &TurnResult, table: &str) -> Vec<String> {
    picked(r, |e| match e {
        Event::Rolled(t) if t.table.starts_with(table) => {
            Some(format!("{} = {} -> {}", t.roll.result, t.total, t.line))
        }
        _ => None,
    })
}
