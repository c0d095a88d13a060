//! Whole campaigns, as `dervish simulate` plays them, over 200 seeds of each
//! scenario: two rulings that once decided games must hold in every one.
//!
//! - 4.1: "The Egyptian player wins if neither El Obeid nor Khartoum are
//!   under siege at the end of 3 consecutive Egyptian player turns." A game
//!   never ends in that Egyptian victory while El Obeid is Mahdist-held.
//! - 9.4: "civilians may not be eliminated (by either player) until all
//!   other units are eliminated." The Khartoum civilian is never eliminated
//!   while another unit of its stack is in good order.

use std::collections::{BTreeMap, BTreeSet};

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::play_month_with;
use dervish::policy::simple_orders;
use dervish::scenario::{DataSet, Scenario, Side, UnitKind};
use dervish::state::setup::{Placements, initial_state};
use dervish::state::{GameState, UnitId};

const SEEDS: u64 = 200;

fn is_civilian(scn: &Scenario, state: &GameState, id: &UnitId) -> bool {
    state
        .units
        .iter()
        .find(|u| u.id == *id)
        .and_then(|u| scn.units.get(&u.unit_type))
        .is_some_and(|t| t.kind == UnitKind::Civilian)
}

/// Check one month's events against the 9.4 civilian rule; `before` is
/// the state at the start of the month. Returns a description of each
/// breach.
fn civilian_breaches(scn: &Scenario, before: &GameState, events: &[Event]) -> Vec<String> {
    let mut disrupted: BTreeSet<UnitId> = before
        .units
        .iter()
        .filter(|u| u.disrupted)
        .map(|u| u.id.clone())
        .collect();
    let mut gone: BTreeSet<UnitId> = BTreeSet::new();
    // The units of each side in the combat going on.
    let mut combat: Vec<UnitId> = Vec::new();
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::CombatBegins {
                attackers,
                defenders,
                ..
            } => {
                combat = attackers.iter().chain(defenders).cloned().collect();
            }
            Event::Disrupted { unit, .. } => {
                disrupted.insert(unit.clone());
            }
            Event::Eliminated { unit, cause, .. } => {
                if is_civilian(scn, before, unit)
                    && (cause.starts_with("fire") || cause.starts_with("melee"))
                {
                    let side = before.units.iter().find(|u| u.id == *unit).map(|u| u.side);
                    let standing: Vec<&UnitId> = combat
                        .iter()
                        .filter(|id| *id != unit && !gone.contains(*id) && !disrupted.contains(*id))
                        .filter(|id| {
                            before
                                .units
                                .iter()
                                .find(|u| u.id == **id)
                                .is_some_and(|u| Some(u.side) == side)
                        })
                        .collect();
                    if !standing.is_empty() {
                        out.push(format!(
                            "{unit} eliminated by {cause} while {standing:?} stood in good order"
                        ));
                    }
                }
                gone.insert(unit.clone());
                disrupted.remove(unit);
            }
            Event::Recovered { unit, .. } => {
                disrupted.remove(unit);
            }
            _ => {}
        }
    }
    out
}

fn campaign(scn: &Scenario, seed: u64) -> Vec<String> {
    let (mut state, _) = initial_state(scn, &Placements::new()).expect("set-up");
    let mut dice = Dice::new(SeededDice::from_seed(seed));
    let obeid = scn.map.resolve("El Obeid").expect("El Obeid");
    let mut problems = Vec::new();
    while state.result.is_none() {
        let month = state.month;
        let before = state.clone();
        let r = play_month_with(
            scn,
            state,
            &mut |s, side| simple_orders(scn, s, side),
            &mut dice,
        );
        for p in civilian_breaches(scn, &before, &r.events) {
            problems.push(format!("seed {seed}, {}: {p}", month.long_name()));
        }
        state = r.state;
        if let Some(g) = &state.result
            && g.winner == Some(Side::Egyptian)
            && g.reason.contains("under siege")
        {
            let mahdist_held = state.control.get(&obeid) == Some(&Side::Mahdist)
                || state
                    .units
                    .iter()
                    .any(|u| u.side == Side::Mahdist && u.hex() == Some(obeid));
            if mahdist_held {
                problems.push(format!(
                    "seed {seed}: Egyptian 4.1 victory while El Obeid is Mahdist-held"
                ));
            }
        }
        if state.month == month && state.result.is_none() {
            break;
        }
    }
    problems
}

#[test]
fn two_hundred_campaigns_of_each_scenario_keep_the_4_1_and_9_4_rulings() {
    let data = DataSet::embedded().expect("embedded data");
    let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut civilians_lost = 0;
    for id in ["el-obeid", "khartoum"] {
        let scn = data.scenario(id).expect("scenario");
        for seed in 1..=SEEDS {
            let p = campaign(&scn, seed);
            civilians_lost += p.len();
            if !p.is_empty() {
                problems.entry(id.to_string()).or_default().extend(p);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{civilians_lost} breaches: {problems:#?}"
    );
}

/// The check above can fail: a civilian eliminated by fire while another
/// unit of its stack is in good order is reported.
#[test]
fn the_civilian_check_reports_a_breach() {
    let data = DataSet::embedded().expect("embedded data");
    let scn = data.scenario("khartoum").expect("scenario");
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let civ = state
        .units
        .iter()
        .find(|u| {
            u.hex().is_some()
                && scn
                    .units
                    .get(&u.unit_type)
                    .is_some_and(|t| t.kind == UnitKind::Civilian)
        })
        .expect("the Khartoum civilian");
    let hex = civ.hex().expect("on the map");
    let other = state
        .units
        .iter()
        .find(|u| u.hex() == Some(hex) && u.id != civ.id && u.side == civ.side)
        .expect("another unit in Khartoum");
    let events = vec![
        Event::CombatBegins {
            order: 0,
            attacker: hex,
            defender: hex,
            attackers: vec![],
            defenders: vec![civ.id.clone(), other.id.clone()],
        },
        Event::Eliminated {
            unit: civ.id.clone(),
            hex,
            cause: "fire".into(),
            decided_by: dervish::engine::events::Decision::Orders,
        },
    ];
    assert_eq!(civilian_breaches(&scn, &state, &events).len(), 1);
}
