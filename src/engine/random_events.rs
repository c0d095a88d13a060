//! The random event phase (rules 5.2 I, 5.3 I, 4.2): a D66 roll on the
//! phasing side's table for the month, and its effects.

use super::Turn;
use super::arrivals::{largest_stack, remove_units};
use super::events::{Decision, Event};
use crate::dice::{DiceKind, DieSource};
use crate::scenario::definition::{Arrival, Zone};
use crate::scenario::events::Effect;
use crate::scenario::zone::zone_hexes;
use crate::state::Status;

/// Roll on the table and apply the entry.
pub fn random_event_phase<S: DieSource>(t: &mut Turn<'_, S>) {
    // The scenario outlives the turn: its table is read, not copied.
    let scn = t.scn;
    let Some(table) = scn.events.table_for(t.side, t.state.month) else {
        t.events.push(Event::Note {
            text: format!(
                "no {} random event table for {}",
                t.side,
                t.state.month.long_name()
            ),
        });
        return;
    };
    let entries = &table.entries;
    let total = t.table_roll(
        DiceKind::D66,
        format!("{} random event", t.side),
        &format!("random events {}", table.id),
        Vec::new(),
        |v| match entries
            .iter()
            .find(|e| e.roll.0 as i32 <= v && v <= e.roll.1 as i32)
        {
            Some(e) if e.roll.0 == e.roll.1 => format!("{}: {}", e.roll.0, e.title),
            Some(e) => format!("{}-{}: {}", e.roll.0, e.roll.1, e.title),
            None => "no entry".into(),
        },
    );
    let Some(entry) = table.entry_for(total as u32) else {
        return;
    };
    let key = format!("{}/{}", table.id, entry.roll.0);
    if entry.once && t.state.happened.contains(&key) {
        t.events.push(Event::Note {
            text: format!("{} has already happened: nothing this time", entry.title),
        });
        return;
    }
    t.events.push(Event::RandomEvent {
        table: table.id.clone(),
        title: entry.title.clone(),
        text: entry.text.clone(),
    });
    if entry.once {
        t.state.happened.insert(key);
    }
    for effect in &entry.effects {
        apply(t, effect);
    }
}

fn note<S: DieSource>(t: &mut Turn<'_, S>, text: String) {
    t.events.push(Event::Note { text });
}

fn apply<S: DieSource>(t: &mut Turn<'_, S>, effect: &Effect) {
    let side = t.side;
    match effect {
        Effect::Nothing => {}
        Effect::CallReinforcement(id) => call(t, id),
        Effect::EndGame => {
            t.state.ended_by_event = true;
            note(
                t,
                "the game ends now (4.2): the rest of this player turn is not played".into(),
            );
        }
        Effect::AddUnits {
            unit,
            count,
            dice,
            zone,
        } => {
            let n = t.units_count(
                *dice,
                *count,
                format!("units from the event ({unit})"),
                "event units",
            );
            add_units(t, unit, n, zone);
        }
        Effect::RemoveUnits { count, dice } => {
            let n = t.units_count(
                *dice,
                *count,
                "units leaving (event)".into(),
                "event losses",
            );
            remove_units(t, side, n, "left by a random event");
        }
        Effect::DelayReinforcements => {
            t.state.effects.delayed.insert(side);
        }
        Effect::HighNile => {
            t.state.effects.high_nile = true;
        }
        Effect::ExtraAttrition { place, radius } => {
            if let Ok(h) = t.scn.map.resolve(place) {
                t.state.effects.extra_attrition.push((side, h, *radius));
            }
        }
        Effect::LeaderInactive(name) => {
            if let Some(l) = t.scn.units.leader(name) {
                let n = l.name.clone();
                t.state.effects.inactive.insert(n);
            }
        }
        Effect::LeaderArrives { leader, zone } => leader_arrives(t, leader, zone),
        Effect::LeaderDies(name) => leader_dies(t, name),
        Effect::Convert { from, to, count } => convert(t, from, to, *count),
        Effect::StacksHalted(n) => halt_stacks(t, *n),
        Effect::MarchModifier(v) => {
            *t.state.effects.march_modifier.entry(side).or_default() += v;
        }
    }
}

/// `n` units of type `unit` from the pool or reserve placed in the zone: on
/// the side's largest stack, or the first hex of the zone not held by the
/// enemy; those the counter mix lacks are lost.
fn add_units<S: DieSource>(t: &mut Turn<'_, S>, unit: &str, n: u32, zone: &Zone) {
    let side = t.side;
    let hex = match zone {
        Zone::FriendlyStack => largest_stack(t, side),
        z => zone_hexes(&t.scn.map, z)
            .unwrap_or_default()
            .into_iter()
            .find(|h| !t.occupied_by(*h, side.enemy())),
    };
    let Some(hex) = hex else {
        note(t, "no place for the new units: they are lost".into());
        return;
    };
    let mut placed = Vec::new();
    let mut lost = Vec::new();
    for _ in 0..n {
        match t.state.units.iter().position(|u| {
            *u.unit_type == *unit && matches!(u.status, Status::Pool | Status::Reserve)
        }) {
            Some(i) => {
                t.state.units[i].status = Status::OnMap(hex);
                t.state.units[i].disrupted = false;
                placed.push(t.state.units[i].id.clone());
            }
            None => lost.push(unit.to_string()),
        }
    }
    let decided_by = Decision::Default("the first place of the zone not held by the enemy".into());
    t.events.push(Event::Arrived {
        id: "random event".into(),
        hex,
        units: placed,
        leaders: vec![],
        lost,
        decided_by,
    });
}

/// A leader not yet in play joins the first friendly stack of the zone.
fn leader_arrives<S: DieSource>(t: &mut Turn<'_, S>, leader: &str, zone: &Zone) {
    let side = t.side;
    let Some(def) = t.scn.units.leader(leader) else {
        return;
    };
    let name = def.name.clone();
    let in_play = t
        .state
        .leaders
        .iter()
        .any(|l| l.name == name && (l.hex.is_some() || l.removed));
    if in_play {
        note(
            t,
            format!("{name} is already in play (or gone): nothing happens"),
        );
        return;
    }
    let hex = zone_hexes(&t.scn.map, zone)
        .unwrap_or_default()
        .into_iter()
        .find(|h| t.occupied_by(*h, side));
    match hex {
        Some(h) => {
            if let Some(l) = t.state.leaders.iter_mut().find(|l| l.name == name) {
                l.hex = Some(h);
            }
            t.events.push(Event::Arrived {
                id: format!("{name} (random event)"),
                hex: h,
                units: vec![],
                leaders: vec![name],
                lost: vec![],
                decided_by: Decision::Default("the first friendly stack of the zone".into()),
            });
        }
        None => note(
            t,
            format!("{name} has no friendly stack to join and does not come"),
        ),
    }
}

/// A leader in play is removed; the Mahdi's death brings his successor.
fn leader_dies<S: DieSource>(t: &mut Turn<'_, S>, name: &str) {
    let Some(def) = t.scn.units.leader(name) else {
        return;
    };
    let name = def.name.clone();
    let Some(i) = t
        .state
        .leaders
        .iter()
        .position(|l| l.name == name && !l.removed && l.hex.is_some())
    else {
        note(t, format!("{name} is not in play: nothing happens"));
        return;
    };
    let hex = t.state.leaders[i].hex;
    t.state.leaders[i].removed = true;
    t.state.leaders[i].hex = None;
    if let Some(h) = hex {
        t.events.push(Event::LeaderRemoved {
            leader: name.clone(),
            hex: h,
            how: "by the random event".into(),
        });
    }
    if name == "Mahdi" {
        t.succession();
    }
}

/// Up to `count` of the side's units of type `from` on the map go back to
/// the pool, each replaced in its hex by a unit of type `to` from the pool.
fn convert<S: DieSource>(t: &mut Turn<'_, S>, from: &str, to: &str, count: u32) {
    let side = t.side;
    let mut done = 0;
    while done < count {
        let src = t
            .state
            .units
            .iter()
            .position(|u| u.side == side && *u.unit_type == *from && u.hex().is_some());
        let dst = t.state.units.iter().position(|u| {
            *u.unit_type == *to && matches!(u.status, Status::Pool | Status::Reserve)
        });
        let (Some(a), Some(b)) = (src, dst) else {
            break;
        };
        let Some(hex) = t.state.units[a].hex() else {
            break;
        };
        t.state.units[a].status = Status::Pool;
        t.state.units[a].disrupted = false;
        t.state.units[b].status = Status::OnMap(hex);
        let (x, y) = (t.state.units[a].id.clone(), t.state.units[b].id.clone());
        note(
            t,
            format!("{x} at {} becomes {y} ({to})", t.scn.map.describe(hex)),
        );
        done += 1;
    }
}

/// The side's `n` largest stacks may not march this month.
fn halt_stacks<S: DieSource>(t: &mut Turn<'_, S>, n: u32) {
    let side = t.side;
    let mut stacks: Vec<_> = t
        .state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side && !s.units.is_empty())
        .map(|s| (s.units.len(), s.hex))
        .collect();
    stacks.sort_by_key(|(len, h)| (std::cmp::Reverse(*len), h.row, h.col));
    for (_, h) in stacks.into_iter().take(n as usize) {
        t.state.effects.halted.insert(h);
        note(
            t,
            format!(
                "the stack at {} may not march this month",
                t.scn.map.describe(h)
            ),
        );
    }
}

/// Call a reinforcement (2.3: the Souakim Field Forces come "as called by
/// random events"). The force rolled is the force that comes: the 2nd Field
/// Force rolled before the 1st comes as itself, and the railway starts the
/// turn after it (3.41: "on the turn after the 2nd Souakim Field Force event
/// is rolled").
fn call<S: DieSource>(t: &mut Turn<'_, S>, id: &str) {
    let found = t
        .scn
        .def
        .reinforcements
        .iter()
        .filter(|r| r.side == t.side)
        .find_map(|r| match &r.arrives {
            Arrival::Event(e) if r.id == id || e == id => Some((r.id.clone(), e.clone())),
            _ => None,
        });
    let Some((rid, e)) = found else {
        note(
            t,
            format!("{id} is not part of this scenario: nothing happens"),
        );
        return;
    };
    if t.state.arrived.contains(&rid) || t.state.called.contains(&e) {
        note(t, format!("{id} has already been called: nothing happens"));
        return;
    }
    t.state.called.push(e);
    note(
        t,
        format!("{rid} is called and arrives in this reinforcement phase"),
    );
}
