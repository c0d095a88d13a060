//! The reinforcement phase (rules 2.2, 2.3, 3.1-3.3, 3.21, 5.2 II, 5.3 II):
//! withdrawals, scheduled and triggered reinforcements, Egyptian
//! replacements and free supply, and the Mahdist arrival roll.

use super::Turn;
use super::events::{Decision, Event};
use super::modifiers::{self, RollContext};
use super::orders::{MONTHLY_SUPPLY, Orders, RECRUITS};
use crate::dice::{DiceKind, DieSource};
use crate::geo::Hex;
use crate::scenario::definition::{Arrival, Reinforcement, SpecialRule, UnitLine, Zone};
use crate::scenario::tables::ArrivalResult;
use crate::scenario::zone::zone_hexes;
use crate::scenario::{Side, UnitKind};
use crate::state::{Status, UnitId};
use std::collections::BTreeMap;

/// Run the phase for the phasing side.
pub fn reinforcement_phase<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    withdraw(t, orders);
    dismount(t, orders);
    super::river::wrecks_return(t);
    if t.side == Side::Mahdist {
        mahdist_arrival(t, orders);
    }
    let delayed = t.state.effects.delayed.contains(&t.side);
    // The scenario outlives the turn: its reinforcements are read while the
    // turn changes, with no copy of them.
    let (scn, side) = (t.scn, t.side);
    for r in scn.def.reinforcements.iter().filter(|r| r.side == side) {
        if t.state.arrived.contains(&r.id) {
            continue;
        }
        let due = match &r.arrives {
            Arrival::Month(m) => *m <= t.state.month && !delayed,
            Arrival::WhenFalls(place) => {
                note_falls(t);
                t.state.happened.contains(&fell_key(place))
            }
            Arrival::Event(id) => t.state.called.contains(id),
        };
        if !due {
            if let (Arrival::Month(m), true) = (&r.arrives, delayed)
                && *m <= t.state.month
            {
                t.events.push(Event::Note {
                    text: format!("{} is delayed a month by a random event", r.id),
                });
            }
            continue;
        }
        t.state.arrived.insert(r.id.clone());
        t.state.called.retain(|c| *c != r.id);
        place_reinforcement(t, r, orders);
    }
    if t.side == Side::Egyptian && !delayed {
        replacements(t);
        free_supply(t, orders);
    }
    super::rail::railway_building(t, orders);
}

fn fell_key(place: &str) -> String {
    format!("fell/{place}")
}

/// Rule 2.2: "When El Obeid falls place Osman Digma ... in the next Mahdist
/// reinforcement phase." The fall is recorded when it happens (a Mahdist
/// stack entering the town, and at the end of every player turn), so an
/// Egyptian recapture before that phase does not cancel the arrival.
pub fn note_falls<S: DieSource>(t: &mut Turn<'_, S>) {
    let fallen: Vec<String> = t
        .scn
        .def
        .reinforcements
        .iter()
        .filter_map(|r| match &r.arrives {
            Arrival::WhenFalls(place) => t
                .scn
                .map
                .resolve(place)
                .is_ok_and(|h| t.state.control.get(&h) == Some(&r.side))
                .then(|| fell_key(place)),
            _ => None,
        })
        .collect();
    for key in fallen {
        if t.state.happened.insert(key.clone()) {
            t.events.push(Event::Note {
                text: format!("{} has fallen (2.2)", key.trim_start_matches("fell/")),
            });
        }
    }
}

/// Rule 3.1: units withdrawn count as destroyed.
fn withdraw<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    for id in &orders.withdraw {
        let Some(i) = t.state.units.iter().position(|u| u.id == *id) else {
            t.events.push(Event::Note {
                text: format!("withdrawal of {id} set aside: no such unit"),
            });
            continue;
        };
        let u = &t.state.units[i];
        let Some(hex) = u.hex().filter(|_| u.side == t.side) else {
            t.events.push(Event::Note {
                text: format!("withdrawal of {id} set aside: not one of yours on the map"),
            });
            continue;
        };
        super::losses::apply(
            t,
            hex,
            &[i],
            0,
            1,
            "withdrawn (3.1)",
            std::slice::from_ref(id),
        );
    }
}

/// Whether river units may not be placed in `hex` (2.3), or anywhere away
/// from a river (6.0).
fn river_unit_barred<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> bool {
    let barred = t.scn.def.special_rules.iter().any(|r| match r {
        SpecialRule::NoRiverUnitsPlacedAt(places) => {
            places.iter().any(|p| t.scn.map.resolve(p) == Ok(hex))
        }
        _ => false,
    });
    barred || !t.scn.map.is_riverside(hex)
}

/// The hex a reinforcement goes to: the one the orders name if it is in the
/// zone, else the first hex of the zone not held by the enemy. `None` if
/// every hex is held by the enemy (the units are lost, 3.1).
fn arrival_hex<S: DieSource>(
    t: &mut Turn<'_, S>,
    r: &Reinforcement,
    orders: &Orders,
) -> Option<(Hex, Decision)> {
    let hexes = match &r.zone {
        Zone::FriendlyStack => largest_stack(t, t.side).into_iter().collect(),
        z => zone_hexes(&t.scn.map, z).unwrap_or_default(),
    };
    let hexes: Vec<Hex> = hexes
        .into_iter()
        .filter(|h| !nile_ban(t, t.side, *h))
        .collect();
    if let Some(h) = orders.place.get(&r.id) {
        if hexes.contains(h) {
            return (!t.occupied_by(*h, t.side.enemy())).then_some((*h, Decision::Orders));
        }
        let id = r.id.clone();
        t.events.push(Event::Note {
            text: format!("placement of {id} at {h} set aside: not one of its places"),
        });
    }
    hexes
        .into_iter()
        .find(|h| !t.occupied_by(*h, t.side.enemy()))
        .map(|h| {
            (
                h,
                Decision::Default("the first place of the list not held by the enemy".into()),
            )
        })
}

/// The part of reinforcement `r` that `words` name (2.3: the expedition may
/// be split among its places): a unit line's name, a unit type (its id or
/// its code, "BW" for the steamers), or one of its leaders. Returns the key
/// used in `Orders::place_parts`: the name, the type id or the leader's name.
pub fn reinforcement_part(
    scn: &crate::scenario::Scenario,
    r: &Reinforcement,
    words: &str,
) -> Option<String> {
    let key = crate::geo::map::name_key(words);
    if let Some(n) = r
        .units
        .iter()
        .filter_map(|l| l.name.as_ref())
        .find(|n| crate::geo::map::name_key(n) == key)
    {
        return Some(n.clone());
    }
    if let Some(l) = r.units.iter().find(|l| {
        crate::geo::map::name_key(&l.unit) == key
            || scn
                .units
                .get(&l.unit)
                .is_some_and(|ty| crate::geo::map::name_key(&ty.code) == key)
    }) {
        return Some(l.unit.clone());
    }
    let leader = scn.units.leader(words)?;
    r.leaders
        .iter()
        .filter_map(|n| scn.units.leader(n))
        .any(|l| l.name == leader.name)
        .then(|| leader.name.clone())
}

/// Where the part of `r` keyed `key` goes: its own ordered place if it is
/// one of the zone's, else `group`. An ordered place the enemy holds loses
/// the part (3.1): `None`.
fn part_hex<S: DieSource>(
    t: &mut Turn<'_, S>,
    r: &Reinforcement,
    orders: &Orders,
    keys: &[&str],
    group: Option<Hex>,
) -> Option<Hex> {
    let parts = orders.place_parts.get(&r.id);
    let Some((key, h)) = keys
        .iter()
        .find_map(|k| parts.and_then(|p| p.get(*k)).map(|h| (*k, *h)))
    else {
        return group;
    };
    let allowed = match &r.zone {
        Zone::FriendlyStack => return group,
        z => zone_hexes(&t.scn.map, z).unwrap_or_default(),
    };
    if !allowed.contains(&h) || nile_ban(t, t.side, h) {
        let at = t.scn.map.describe(h);
        t.events.push(Event::Note {
            text: format!(
                "placement of {key} of {} at {at} set aside: not one of its places (2.3)",
                r.id
            ),
        });
        return group;
    }
    (!t.occupied_by(h, t.side.enemy())).then_some(h)
}

fn place_reinforcement<S: DieSource>(t: &mut Turn<'_, S>, r: &Reinforcement, orders: &Orders) {
    let (group, group_decision) = match arrival_hex(t, r, orders) {
        Some((h, d)) => (Some(h), d),
        None => (None, Decision::Orders),
    };
    let split = orders.place_parts.get(&r.id).is_some_and(|p| !p.is_empty());
    if group.is_none() && !split {
        t.events.push(Event::Note {
            text: format!("{} arrives where the enemy stands and is lost (3.1)", r.id),
        });
        return;
    }
    let mut placed = Placed::new();
    let mut lost = Vec::new();
    for line in &r.units {
        if !already_in_play(t, line) {
            place_line(t, r, orders, line, group, &mut placed, &mut lost);
        }
    }
    place_leaders(t, r, orders, group, &mut placed);
    if placed.is_empty() {
        match group {
            Some(h) => {
                placed.insert(h, Default::default());
            }
            None => {
                t.events.push(Event::Note {
                    text: format!("{} arrives where the enemy stands and is lost (3.1)", r.id),
                });
                return;
            }
        }
    }
    let n = placed.len();
    for (k, (hex, (units, leaders, by_order))) in placed.into_iter().enumerate() {
        if t.scn.map.settlement_at(hex).is_some() && !units.is_empty() {
            t.state.control.insert(hex, t.side);
        }
        t.events.push(Event::Arrived {
            id: r.id.clone(),
            hex,
            units,
            leaders,
            // The types lost are told once, with the last place.
            lost: if k + 1 == n {
                std::mem::take(&mut lost)
            } else {
                Vec::new()
            },
            decided_by: if by_order {
                Decision::Orders
            } else {
                group_decision.clone()
            },
        });
    }
}

/// Units and leaders placed by hex, and whether the player's orders chose
/// the hex.
type Placed = BTreeMap<Hex, (Vec<UnitId>, Vec<String>, bool)>;

/// Whether a named unit of a reinforcement line is in play already, or the
/// unit it comes in place of is still in play (2.3): the line is not
/// placed, and the log says why.
fn already_in_play<S: DieSource>(t: &mut Turn<'_, S>, line: &UnitLine) -> bool {
    let in_play = |name: &str| {
        t.state.units.iter().any(|u| {
            u.name.as_deref() == Some(name)
                && (u.hex().is_some() || matches!(u.status, Status::AwaitingReplacement(_)))
        })
    };
    let text = if let Some(n) = line.name.as_deref().filter(|n| in_play(n)) {
        format!("{n} is already in play and is not placed again (2.3)")
    } else if let Some(other) = line.unless_in_play.as_deref().filter(|o| in_play(o)) {
        format!(
            "{other} is still in play, so {} is not placed (2.3)",
            line.name.as_deref().unwrap_or(&line.unit)
        )
    } else {
        return false;
    };
    t.events.push(Event::Note { text });
    true
}

/// The counters of one line of a reinforcement placed at the hex its part
/// is ordered to, or the group's; types the counter mix lacks, or with no
/// place, are lost.
fn place_line<S: DieSource>(
    t: &mut Turn<'_, S>,
    r: &Reinforcement,
    orders: &Orders,
    line: &UnitLine,
    group: Option<Hex>,
    placed: &mut Placed,
    lost: &mut Vec<String>,
) {
    let count = t.units_count(
        line.dice,
        line.count,
        format!("units of {}", r.id),
        "reinforcement count",
    );
    let mut keys: Vec<&str> = line.name.iter().map(String::as_str).collect();
    keys.push(&line.unit);
    let ordered = part_hex(t, r, orders, &keys, group);
    let by_order = ordered != group;
    let default_strength = t.scn.units.get(&line.unit).map_or(1, |ty| ty.strength);
    for _ in 0..count {
        let is_river = t
            .scn
            .units
            .get(&line.unit)
            .is_some_and(|ty| ty.kind.is_river_unit());
        let at = match ordered {
            Some(h) if is_river && river_unit_barred(t, h) => {
                // River units go to the next allowed place of the zone.
                zone_hexes(&t.scn.map, &r.zone)
                    .unwrap_or_default()
                    .into_iter()
                    .find(|h| !river_unit_barred(t, *h) && !t.occupied_by(*h, t.side.enemy()))
            }
            other => other,
        };
        let free = t.state.units.iter().position(|u| {
            *u.unit_type == line.unit && matches!(u.status, Status::Pool | Status::Reserve)
        });
        match (free, at) {
            (Some(i), Some(at)) => {
                let u = &mut t.state.units[i];
                u.status = Status::OnMap(at);
                u.disrupted = false;
                // "Every counter has strength 1 unless a scenario line
                // gives it another" (1.4): a counter used before starts
                // afresh.
                u.strength = line.strength.unwrap_or(default_strength);
                u.name = line.name.as_deref().map(Into::into);
                u.origin = Some(r.id.as_str().into());
                let e = placed.entry(at).or_default();
                e.0.push(u.id.clone());
                e.2 |= by_order && Some(at) == ordered;
            }
            _ => lost.push(line.unit.clone()),
        }
    }
}

/// The reinforcement's leaders not yet in play, each at the hex ordered
/// for him or the group's.
fn place_leaders<S: DieSource>(
    t: &mut Turn<'_, S>,
    r: &Reinforcement,
    orders: &Orders,
    group: Option<Hex>,
    placed: &mut Placed,
) {
    for name in &r.leaders {
        let Some(def) = t.scn.units.leader(name) else {
            continue;
        };
        let def_name = def.name.clone();
        let Some(at) = part_hex(t, r, orders, &[def_name.as_str()], group) else {
            continue;
        };
        let Some(l) = t.state.leaders.iter_mut().find(|l| l.name == def_name) else {
            continue;
        };
        if l.removed || l.hex.is_some() {
            continue;
        }
        l.hex = Some(at);
        let e = placed.entry(at).or_default();
        e.1.push(def_name);
        e.2 |= Some(at) != group;
    }
}

/// Rule 3.3: British losses, supply units, boats and camels come back two
/// turns after they were destroyed, at the scenario's replacement place.
///
/// "Scenario 1 replacement units are placed in Khartoum if it is not under
/// siege or Souakim", and "Available units must be placed and may not be
/// held off map" (5.2 II): the places are tried in order, an earlier one is
/// passed over when it is under siege or held by the enemy, and the last
/// takes the units even when besieged. "If new units are due to arrive at
/// a hex that is enemy occupied, those units are permanently lost" (3.1):
/// if the last place is held by the enemy, they are lost for good.
fn replacements<S: DieSource>(t: &mut Turn<'_, S>) {
    let rp = t.scn.def.replacements.clone();
    let month = t.state.month;
    let due = t.own_units_with(|s| matches!(s, Status::AwaitingReplacement(m) if m <= month));
    for i in due {
        let from_field_force = t.state.units[i].origin.as_ref().is_some_and(|o| {
            t.scn
                .def
                .reinforcements
                .iter()
                .any(|r| *r.id == **o && matches!(r.arrives, Arrival::Event(_)))
        });
        let places: Vec<Hex> = match (&rp.field_force_place, from_field_force) {
            (Some(p), true) => vec![p.clone()],
            _ => rp.places.clone(),
        }
        .iter()
        .filter_map(|p| t.scn.map.resolve(p).ok())
        .collect();
        let enemy = t.side.enemy();
        let hex = places
            .iter()
            .enumerate()
            .find(|(k, h)| {
                *k + 1 == places.len() || !(t.occupied_by(**h, enemy) || siege_ring(t, **h, enemy))
            })
            .map(|(_, h)| *h);
        let id = t.state.units[i].id.clone();
        match hex {
            Some(h) if !t.occupied_by(h, enemy) => {
                t.state.units[i].status = Status::OnMap(h);
                t.events.push(Event::Replaced { unit: id, hex: h });
            }
            _ => {
                t.state.units[i].status = Status::Eliminated;
                let place = hex.map(|h| t.scn.map.describe(h)).unwrap_or_default();
                t.events.push(Event::Note {
                    text: format!(
                        "replacement {id} is due at {place}, which the enemy holds, and is permanently lost (3.1, 3.3)"
                    ),
                });
            }
        }
    }
}

/// Rule 2.2, scenario 1: "No Mahdist unit may ever enter any hex adjacent to
/// the Nile above (flowing North from) and including Abou Hamed". Whether
/// `hex` is closed to `side`'s units by that rule; placements (recruits,
/// town gains, Osman Digma) and river moves obey it as land marches do.
/// Worked out in the Mahdist player turn, the only one that places Mahdist
/// units anywhere but beside a Mahdist stack already on the map.
pub fn nile_ban<S: DieSource>(t: &Turn<'_, S>, side: Side, hex: Hex) -> bool {
    side == Side::Mahdist
        && t.side == Side::Mahdist
        && super::movement::banned_by_river(t.scn, side, hex)
}

/// Whether an enemy unit stands next to the settlement in `hex` (9.12:
/// "under siege if an enemy unit is adjacent to that hex"), whether or not
/// friendly units are still inside: replacements placed there would arrive
/// besieged.
fn siege_ring<S: DieSource>(t: &Turn<'_, S>, hex: Hex, enemy: Side) -> bool {
    t.scn.map.settlement_at(hex).is_some()
        && hex.neighbours().iter().any(|n| t.occupied_by(*n, enemy))
}

/// Rule 3.3: one supply unit a turn from November 1884; "this unit may
/// arrive at Wady Halfa or Souakim": where the orders say
/// (`PLACE supply AT place`), else the first of the places not held by the
/// enemy. An ordered place held by the enemy loses it (3.1).
fn free_supply<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    let rp = t.scn.def.replacements.clone();
    let (Some(from), Some(unit)) = (rp.free_supply_from, rp.free_supply_unit.clone()) else {
        return;
    };
    if t.state.month < from {
        return;
    }
    let places: Vec<Hex> = rp
        .free_supply_places
        .iter()
        .filter_map(|p| t.scn.map.resolve(p).ok())
        .collect();
    let enemy = t.side.enemy();
    let ordered = orders.place.get(MONTHLY_SUPPLY).copied();
    if let Some(h) = ordered
        && !places.contains(&h)
    {
        let list: Vec<String> = places.iter().map(|h| t.scn.map.describe(*h)).collect();
        t.events.push(Event::Note {
            text: format!(
                "placement of the monthly supply unit at {} set aside: it arrives at {} (3.3)",
                t.scn.map.describe(h),
                list.join(" or ")
            ),
        });
    }
    let (hex, decided_by) = match ordered.filter(|h| places.contains(h)) {
        Some(h) => (
            Some(h).filter(|h| !t.occupied_by(*h, enemy)),
            Decision::Orders,
        ),
        None => (
            places.iter().copied().find(|h| !t.occupied_by(*h, enemy)),
            Decision::Default("the first supply place not held by the enemy".into()),
        ),
    };
    let free = t
        .state
        .units
        .iter()
        .position(|u| *u.unit_type == unit && u.status == Status::Pool);
    match (hex, free) {
        (Some(h), Some(i)) => {
            t.state.units[i].status = Status::OnMap(h);
            let id = t.state.units[i].id.clone();
            t.events.push(Event::Arrived {
                id: "monthly supply (3.3)".into(),
                hex: h,
                units: vec![id],
                leaders: vec![],
                lost: vec![],
                decided_by,
            });
        }
        (None, _) => t.events.push(Event::Note {
            text: "the monthly supply unit is due where the enemy stands and is lost (3.1, 3.3)"
                .into(),
        }),
        (_, None) => t.events.push(Event::Note {
            text: "the monthly supply unit is lost: no counter is free (3.3)".into(),
        }),
    }
}

/// The largest stack of `side` on the main map (new Mahdist units join a
/// friendly stack, 3.21; the default is the largest).
pub fn largest_stack<S: DieSource>(t: &Turn<'_, S>, side: Side) -> Option<Hex> {
    t.state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side && !s.units.is_empty() && !nile_ban(t, side, s.hex))
        .max_by_key(|s| {
            (
                !t.scn.map.in_souakim_extension(s.hex),
                s.units.len(),
                std::cmp::Reverse((s.hex.row, s.hex.col)),
            )
        })
        .map(|s| s.hex)
}

/// Rule 3.21: the Mahdist arrival roll.
fn mahdist_arrival<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    let table = &t.scn.tables.mahdist_arrival;
    let controls: Vec<(Side, String)> = t
        .scn
        .map
        .places()
        .iter()
        .filter_map(|p| t.state.control.get(&p.hex).map(|s| (*s, p.name.clone())))
        .collect();
    let cx = RollContext {
        side: Some(Side::Mahdist),
        month: Some(t.state.month),
        controls,
        ..RollContext::default()
    };
    let mods = modifiers::applicable(&table.modifiers, &cx);
    let result = t
        .row_roll(
            table.dice,
            "Mahdist reinforcement arrival".into(),
            "Mahdist arrival table (3.21)",
            mods,
            &table.rows,
            ToString::to_string,
        )
        .copied();
    // 3.21: "Do not remove any units if the Mahdist player has less than 7
    // non-leader units on the map." Leaders are not counters of the units
    // list; every other counter counts, boats and gunboats included (the
    // rule excepts leaders only, where 2.3 says "non-leader or boat").
    let on_map = t
        .state
        .units
        .iter()
        .filter(|u| u.side == Side::Mahdist && u.hex().is_some())
        .count() as u32;
    match result {
        Some(ArrivalResult::Add(k)) => {
            let n = t.units_count(Some(k), 0, "Mahdist units arriving".into(), "arrivals");
            let Some((hex, decided_by)) = recruit_stack(t, orders) else {
                t.events.push(Event::Note {
                    text: "no Mahdist stack is on the map: the new units are lost (3.21)".into(),
                });
                return;
            };
            for _ in 0..n {
                draw_from_pool(t, hex, &decided_by);
            }
        }
        Some(ArrivalResult::Remove(k)) if on_map >= table.removal_floor => {
            let n = t.units_count(Some(k), 0, "Mahdist units leaving".into(), "departures");
            remove_units(t, Side::Mahdist, n, "gone home (3.21)");
        }
        Some(ArrivalResult::Remove(_)) => t.events.push(Event::Note {
            text: format!(
                "no Mahdist units leave: fewer than {} on the map (3.21)",
                table.removal_floor
            ),
        }),
        _ => {}
    }
}

/// Where new Mahdist units go (3.21: "Mahdist new units are placed in any
/// friendly stack"): the stack the orders name (`PLACE recruits AT
/// place`) if a Mahdist unit stands there and the hex is open to Mahdists,
/// else the largest stack.
pub fn recruit_stack<S: DieSource>(
    t: &mut Turn<'_, S>,
    orders: &Orders,
) -> Option<(Hex, Decision)> {
    if let Some(&h) = orders.place.get(RECRUITS) {
        let friendly = t
            .state
            .units
            .iter()
            .any(|u| u.side == Side::Mahdist && u.hex() == Some(h));
        if friendly && !nile_ban(t, Side::Mahdist, h) {
            return Some((h, Decision::Orders));
        }
        let at = t.scn.map.describe(h);
        t.events.push(Event::Note {
            text: format!(
                "placement of new Mahdist units at {at} set aside: no Mahdist stack stands there; they join the largest stack (3.21)"
            ),
        });
    }
    largest_stack(t, Side::Mahdist).map(|h| {
        (
            h,
            Decision::Default("the largest Mahdist stack on the main map".into()),
        )
    })
}

/// Draw one Mahdist unit at random from the pool and place it in `hex`;
/// lost if the pool is empty (3.21). Boats and gunboats are never drawn:
/// they stay out of the pile even after they are destroyed or captured
/// (2.2), since a river unit cannot join a stack away from a river (6.0).
pub fn draw_from_pool<S: DieSource>(
    t: &mut Turn<'_, S>,
    hex: Hex,
    decided_by: &Decision,
) -> Option<UnitId> {
    let pool: Vec<usize> = t
        .state
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.side == Side::Mahdist && u.status == Status::Pool)
        .filter(|(_, u)| t.unit_type(u).is_some_and(|ty| !ty.kind.is_river_unit()))
        .map(|(i, _)| i)
        .collect();
    if pool.is_empty() {
        t.events.push(Event::Note {
            text: "a new Mahdist unit is lost: the pool is empty (3.21)".into(),
        });
        return None;
    }
    let n = pool.len();
    let pick = t.table_roll(
        DiceKind::Pick(n as u32),
        "draw from the Mahdist pool".into(),
        "Mahdist pool (3.2)",
        Vec::new(),
        |v| format!("counter {v} of the {n} in the pool"),
    );
    let i = pool[(pick.max(1) as usize - 1).min(n - 1)];
    t.state.units[i].status = Status::OnMap(hex);
    t.state.units[i].disrupted = false;
    let id = t.state.units[i].id.clone();
    t.events.push(Event::Arrived {
        id: "a Mahdist recruit".into(),
        hex,
        units: vec![id.clone()],
        leaders: vec![],
        lost: vec![],
        decided_by: decided_by.clone(),
    });
    Some(id)
}

/// Remove `n` of `side`'s units from play (desertion, 3.21 and events):
/// from the largest stacks, worst first, never the last unit of a stack
/// with a leader.
pub fn remove_units<S: DieSource>(t: &mut Turn<'_, S>, side: Side, n: u32, cause: &str) {
    for _ in 0..n {
        // The side's stacks by hex, in the order of GameState::stacks (row,
        // column), each unit by its index, in counter order.
        let mut by: std::collections::BTreeMap<(i32, i32), (Hex, Vec<usize>)> =
            std::collections::BTreeMap::new();
        for (i, u) in t.state.units.iter().enumerate() {
            if u.side == side
                && let Some(h) = u.hex()
            {
                by.entry((h.row, h.col))
                    .or_insert_with(|| (h, Vec::new()))
                    .1
                    .push(i);
            }
        }
        let mut stacks: Vec<(Hex, Vec<usize>)> = by.into_values().collect();
        stacks.retain(|(h, us)| us.len() > 1 || t.leaders_at(*h, side).is_empty());
        stacks.retain(|(_, us)| {
            us.iter().any(|&u| {
                t.type_at(u)
                    .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
            })
        });
        // The player's own choice first (4.2: units of its choice).
        let chosen = if side == t.side {
            t.event_losses.iter().find_map(|id| {
                stacks.iter().find_map(|(h, us)| {
                    us.iter()
                        .find(|&&u| {
                            t.state.units[u].id == *id
                                && t.type_at(u).is_some_and(|ty| {
                                    !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet
                                })
                        })
                        .map(|&u| (*h, u))
                })
            })
        } else {
            None
        };
        if let Some((hex, u)) = chosen {
            remove_unit(t, u, hex, cause, Decision::Orders);
            continue;
        }
        let Some((hex, units)) = stacks
            .into_iter()
            .max_by_key(|(h, us)| (us.len(), std::cmp::Reverse((h.row, h.col))))
        else {
            return;
        };
        let Some(&worst) = units
            .iter()
            .filter(|&&u| {
                t.type_at(u)
                    .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
            })
            .max_by_key(|&&u| {
                let ty = t.type_at(u);
                (
                    // Civilians last, as in combat (9.4): the Khartoum
                    // civilians are the Egyptian's 4.2 victory.
                    ty.is_some_and(|ty| ty.kind != UnitKind::Civilian),
                    ty.map(|ty| ty.quality),
                    t.state.units[u].id.clone(),
                )
            })
        else {
            return;
        };
        let worst_first = "the worst unit of the largest stack, civilians last";
        remove_unit(t, worst, hex, cause, Decision::Default(worst_first.into()));
    }
}

/// One unit of [`remove_units`] out of play: a Mahdist unit to the pool,
/// another eliminated.
fn remove_unit<S: DieSource>(
    t: &mut Turn<'_, S>,
    u: usize,
    hex: Hex,
    cause: &str,
    decided_by: Decision,
) {
    let unit = &mut t.state.units[u];
    unit.status = if unit.side == Side::Mahdist {
        Status::Pool
    } else {
        Status::Eliminated
    };
    unit.disrupted = false;
    t.events.push(Event::Eliminated {
        unit: unit.id.clone(),
        hex,
        cause: cause.to_string(),
        decided_by,
    });
}

/// Rule 3.2: a Mahdist stack entering a town last held by the enemy gains
/// 1D6 S units at once; the first entry into Berber, Abou Hamed, Dongola
/// (one boat each) and Khartoum (two) brings boats.
pub fn town_gains<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex, previous: Option<Side>) {
    note_falls(t);
    if t.side != Side::Mahdist {
        return;
    }
    let Some(place) = t.scn.map.settlement_at(hex).cloned() else {
        return;
    };
    if nile_ban(t, t.side, hex) {
        // 2.2: no Mahdist unit may ever enter the hex, new ones included.
        t.events.push(Event::Note {
            text: format!(
                "no recruits or boats at {}: no Mahdist unit may enter a hex beside the Nile from Abou Hamed northwards (2.2)",
                place.name
            ),
        });
        return;
    }
    let gains = t.scn.tables.town_gains.clone();
    let add = |t: &mut Turn<'_, S>, unit: &str, n: u32, why: &str| {
        let mut placed = Vec::new();
        let mut lost = Vec::new();
        for _ in 0..n {
            match t.state.units.iter().position(|u| {
                &*u.unit_type == unit && matches!(u.status, Status::Pool | Status::Reserve)
            }) {
                Some(i) => {
                    t.state.units[i].status = Status::OnMap(hex);
                    t.state.units[i].disrupted = false;
                    placed.push(t.state.units[i].id.clone());
                }
                None => lost.push(unit.to_string()),
            }
        }
        t.events.push(Event::Arrived {
            id: why.to_string(),
            hex,
            units: placed,
            leaders: vec![],
            lost,
            decided_by: Decision::Default("in the town entered (3.2)".into()),
        });
    };
    if place.kind == crate::geo::PlaceKind::Town && previous == Some(Side::Egyptian) {
        let n = t
            .table_roll(
                gains.recruits,
                format!("recruits at {}", place.name),
                "town recruits (3.2)",
                Vec::new(),
                |v| format!("{v} S units"),
            )
            .max(0) as u32;
        add(t, &gains.recruit_unit, n, "recruits (3.2)");
    }
    let key = format!("entered/{}", place.name);
    if let Some((_, n)) = gains
        .boats
        .iter()
        .find(|(p, _)| t.scn.map.resolve(p) == Ok(hex))
        && t.state.happened.insert(key)
    {
        add(t, &gains.boat_unit, *n, "boats taken (3.2)");
    }
}

/// Rule 8.24: two Camel Corps units in one hex dismount into two infantry
/// units of the same nation and quality (named units keep their names and
/// strength) and one camel; they never remount.
fn dismount<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    for (a, b) in &orders.dismount {
        let find = |id: &UnitId| t.state.units.iter().position(|u| u.id == *id);
        let (Some(ia), Some(ib)) = (find(a), find(b)) else {
            t.events.push(Event::Note {
                text: format!("dismounting {a} and {b} set aside: no such unit"),
            });
            continue;
        };
        let ok = |i: usize| {
            let u = &t.state.units[i];
            u.side == t.side
                && u.hex().is_some()
                && t.unit_type(u)
                    .is_some_and(|ty| ty.kind == UnitKind::CamelCorps)
        };
        let hex = t.state.units[ia].hex();
        if ia == ib || !ok(ia) || !ok(ib) || hex != t.state.units[ib].hex() {
            t.events.push(Event::Note { text: format!("dismounting {a} and {b} set aside: two of your Camel Corps units in one hex are needed (8.24)") });
            continue;
        }
        let Some(hex) = hex else { continue };
        let nation = t.type_at(ia).map(|ty| ty.nation);
        let quality = t.type_at(ia).map(|ty| ty.quality);
        let infantry = t
            .scn
            .units
            .types()
            .iter()
            .find(|ty| {
                ty.kind == UnitKind::Infantry
                    && Some(ty.nation) == nation
                    && Some(ty.quality) == quality
                    && ty.side == t.side
            })
            .map(|ty| ty.id.clone());
        let camel = t
            .scn
            .units
            .types()
            .iter()
            .find(|ty| ty.kind == UnitKind::Camel && ty.side == t.side)
            .map(|ty| ty.id.clone());
        let (Some(infantry), Some(camel)) = (infantry, camel) else {
            t.events.push(Event::Note {
                text: "dismounting set aside: no infantry or camel counter type fits (8.24)".into(),
            });
            continue;
        };
        let free = |t: &Turn<'_, S>, ty: &str, skip: Option<usize>| {
            t.state.units.iter().enumerate().position(|(i, u)| {
                Some(i) != skip
                    && &*u.unit_type == ty
                    && matches!(u.status, Status::Pool | Status::Reserve)
            })
        };
        let f1 = free(t, &infantry, None);
        let f2 = f1.and_then(|x| free(t, &infantry, Some(x)));
        let fc = free(t, &camel, None);
        let (Some(f1), Some(f2), Some(fc)) = (f1, f2, fc) else {
            t.events.push(Event::Note {
                text: "dismounting set aside: not enough spare infantry or camel counters (8.24)"
                    .into(),
            });
            continue;
        };
        let mut made = Vec::new();
        for (old, new) in [(ia, f1), (ib, f2)] {
            let (name, strength, disrupted, origin) = {
                let o = &t.state.units[old];
                (o.name.clone(), o.strength, o.disrupted, o.origin.clone())
            };
            t.state.units[old].status = Status::Reserve;
            t.state.units[old].name = None;
            t.state.units[old].disrupted = false;
            let n = &mut t.state.units[new];
            n.status = Status::OnMap(hex);
            n.name = name;
            n.strength = strength;
            n.disrupted = disrupted;
            n.origin = origin;
            made.push(n.id.clone());
        }
        t.state.units[fc].status = Status::OnMap(hex);
        made.push(t.state.units[fc].id.clone());
        t.events.push(Event::Arrived {
            id: format!("dismounted {a} and {b} (8.24)"),
            hex,
            units: made,
            leaders: vec![],
            lost: vec![],
            decided_by: Decision::Orders,
        });
    }
}

/// The arrivals of the reinforcement phase known before the player turn,
/// placed on `t`'s position as the phase places them, for the receipt:
/// the reinforcements due by the calendar, already called by an event or
/// brought by a fall, and the Egyptian replacements and monthly supply
/// unit. What the turn's dice decide (a random event that delays or calls
/// reinforcements, the Mahdist arrival roll) is not known yet.
pub fn foreseen<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    note_falls(t);
    let (scn, side) = (t.scn, t.side);
    for r in scn.def.reinforcements.iter().filter(|r| r.side == side) {
        if t.state.arrived.contains(&r.id) {
            continue;
        }
        let due = match &r.arrives {
            Arrival::Month(m) => *m <= t.state.month,
            Arrival::WhenFalls(place) => t.state.happened.contains(&fell_key(place)),
            Arrival::Event(id) => t.state.called.contains(id),
        };
        if due {
            t.state.arrived.insert(r.id.clone());
            place_reinforcement(t, r, orders);
        }
    }
    if t.side == Side::Egyptian {
        replacements(t);
        free_supply(t, orders);
    }
}
