//! Setting up a scenario (rules 2.1-2.3): every counter of the counter mix
//! is created, and the set-up lines are placed by the players' choices or,
//! where they made none, by the default policy (the first hex of the zone,
//! nearest the place it is described from; stack limits respected by
//! filling the next hexes, never by overfilling one).

use std::collections::BTreeMap;

use super::{GameState, LeaderState, Status, Unit, UnitId};
use crate::geo::Hex;
use crate::scenario::definition::{SpecialRule, UnitLine};
use crate::scenario::zone::zone_hexes;
use crate::scenario::{Scenario, Side};

/// The players' set-up choices: for a set-up line (by index), the hexes to
/// use, filled in order.
pub type Placements = BTreeMap<usize, Vec<Hex>>;

/// Something the set-up could not do as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("set-up line {line}: {message}")]
    Zone { line: usize, message: String },
    #[error("set-up line {line}: hex {hex} is not in the zone {zone}")]
    NotInZone { line: usize, hex: Hex, zone: String },
    #[error(
        "set-up line {line}: no room in its {hexes} hexes for no more than {limit} Mahdist units a hex, leaders and boats not counted (2.3)"
    )]
    Crowded {
        line: usize,
        limit: usize,
        hexes: usize,
    },
}

/// A note about the set-up for the result log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupNote {
    /// No counter left: the unit is lost (2.2).
    NoCounter { unit_type: String, line: usize },
    /// Where a line was placed and who decided.
    Placed {
        line: usize,
        hexes: Vec<Hex>,
        by_default: bool,
    },
}

/// Create every counter and place the scenario's set-up.
pub fn initial_state(
    scn: &Scenario,
    choices: &Placements,
) -> Result<(GameState, Vec<SetupNote>), SetupError> {
    let mut state = GameState {
        scenario: scn.def.id.clone(),
        month: scn.def.start,
        units: counters(scn),
        leaders: scn
            .units
            .leaders()
            .iter()
            .map(|l| LeaderState {
                name: l.name.clone(),
                side: l.side,
                hex: None,
                removed: false,
            })
            .collect(),
        control: BTreeMap::new(),
        british_attrition_loss: false,
        british_leader_stack_destroyed: false,
        ended_by_event: false,
        counters: BTreeMap::new(),
        result: None,
        arrived: Default::default(),
        called: Vec::new(),
        happened: Default::default(),
        effects: Default::default(),
        rail_built: scn
            .map
            .railways()
            .iter()
            .map(|r| (r.name.clone(), r.built))
            .collect(),
        railhead: None,
        standing_lose_first: BTreeMap::new(),
    };
    let limit = scn.def.special_rules.iter().find_map(|r| match r {
        SpecialRule::MahdistSetupStackLimit(n) => Some(*n as usize),
        _ => None,
    });
    let mut notes = Vec::new();
    for (i, d) in scn.def.setup.iter().enumerate() {
        let zone = zone_hexes(&scn.map, &d.zone).map_err(|e| SetupError::Zone {
            line: i,
            message: e.to_string(),
        })?;
        let (hexes, by_default) = match choices.get(&i) {
            Some(chosen) => {
                for h in chosen {
                    if !zone.contains(h) {
                        return Err(SetupError::NotInZone {
                            line: i,
                            hex: *h,
                            zone: format!("{:?}", d.zone),
                        });
                    }
                }
                (chosen.clone(), false)
            }
            None => (zone.clone(), true),
        };
        if hexes.is_empty() {
            return Err(SetupError::Zone {
                line: i,
                message: "no hex to place in".into(),
            });
        }
        let cap = if d.side == Side::Mahdist { limit } else { None };
        let mut used = Vec::new();
        let mut slot = 0usize;
        for line in &d.units {
            let counted = scn
                .units
                .get(&line.unit)
                .is_some_and(|t| !t.kind.is_river_unit());
            for _ in 0..line.count {
                // The next hex with room under the stack limit (2.3: "no
                // more than 6 non-leader or boat units per hex"); never
                // more, whatever the zone.
                if let (Some(c), true) = (cap, counted) {
                    while slot < hexes.len() && counts_for_limit(&state, scn, hexes[slot]) >= c {
                        slot += 1;
                    }
                    if slot >= hexes.len() {
                        return Err(SetupError::Crowded {
                            line: i,
                            limit: c,
                            hexes: hexes.len(),
                        });
                    }
                }
                let hex = hexes[slot.min(hexes.len() - 1)];
                if place_counter(&mut state, line, hex) {
                    if !used.contains(&hex) {
                        used.push(hex);
                    }
                } else {
                    notes.push(SetupNote::NoCounter {
                        unit_type: line.unit.clone(),
                        line: i,
                    });
                }
            }
        }
        let leader_hex = used.first().copied().unwrap_or(hexes[0]);
        for name in &d.leaders {
            if let Some(def) = scn.units.leader(name)
                && let Some(l) = state.leaders.iter_mut().find(|l| l.name == def.name)
            {
                l.hex = Some(leader_hex);
            }
        }
        if used.is_empty() && !d.leaders.is_empty() {
            used.push(leader_hex);
        }
        notes.push(SetupNote::Placed {
            line: i,
            hexes: used,
            by_default,
        });
    }
    for u in &state.units {
        if let Some(h) = u.hex()
            && scn.map.settlement_at(h).is_some()
        {
            state.control.insert(h, u.side);
        }
    }
    Ok((state, notes))
}

fn counts_for_limit(state: &GameState, scn: &Scenario, hex: Hex) -> usize {
    state
        .units
        .iter()
        .filter(|u| u.hex() == Some(hex) && u.side == Side::Mahdist)
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| !t.kind.is_river_unit())
        })
        .count()
}

/// Put the first free counter of the line's type in `hex`; false if none.
fn place_counter(state: &mut GameState, line: &UnitLine, hex: Hex) -> bool {
    let free = state
        .units
        .iter_mut()
        .find(|u| u.unit_type == line.unit && matches!(u.status, Status::Pool | Status::Reserve));
    match free {
        Some(u) => {
            u.status = Status::OnMap(hex);
            if let Some(s) = line.strength {
                u.strength = s;
            }
            if line.name.is_some() {
                u.name = line.name.clone();
            }
            true
        }
        None => false,
    }
}

/// Every counter of the counter mix, numbered by type: `ER01` ... `ER35`.
fn counters(scn: &Scenario) -> Vec<Unit> {
    let mut out = Vec::new();
    for t in scn.units.types() {
        let width = if t.counters > 99 { 3 } else { 2 };
        let reserve = scn.def.pool_excludes.contains(&t.id);
        for n in 1..=t.counters {
            out.push(Unit {
                id: UnitId(format!("{}{:0width$}", t.code, n, width = width)),
                unit_type: t.id.clone(),
                side: t.side,
                name: None,
                strength: t.strength,
                status: if reserve {
                    Status::Reserve
                } else {
                    Status::Pool
                },
                disrupted: false,
                origin: None,
            });
        }
    }
    out
}
