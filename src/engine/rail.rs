//! Railways (rules 3.4, 3.41, 8.22) and the British fleet's naval move
//! (8.25).

use std::collections::{BTreeMap, VecDeque};

use super::Turn;
use super::events::{Decision, Event};
use super::modifiers::{self, RollContext};
use super::orders::Orders;
use crate::dice::DieSource;
use crate::geo::{Hex, Terrain};
use crate::scenario::definition::Arrival;
use crate::scenario::{Side, UnitKind};
use crate::state::{Railhead, Status};

/// The line built by default when the railhead is placed (3.41).
pub const DEFAULT_LINE: &str = "Souakim - Berber";

/// Whether a hex has built track now.
pub fn built<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> bool {
    t.scn.map.railways().iter().any(|r| {
        let n = t.state.rail_built.get(&r.name).copied().unwrap_or(r.built);
        r.hexes.iter().take(n).any(|h| *h == hex)
    })
}

/// The rail path from `from` to `to` through built track, avoiding enemy
/// hexes and friendly besieged hexes (9.12); the start hex excluded.
pub fn rail_path<S: DieSource>(t: &Turn<'_, S>, from: Hex, to: Hex) -> Option<Vec<Hex>> {
    if !built(t, from) || !built(t, to) {
        return None;
    }
    let mut prev: BTreeMap<Hex, Hex> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(h) = queue.pop_front() {
        if h == to {
            let mut path = vec![to];
            let mut at = to;
            while let Some(p) = prev.get(&at) {
                if *p == from {
                    break;
                }
                path.push(*p);
                at = *p;
            }
            path.reverse();
            return Some(path);
        }
        for n in h.neighbours() {
            if n == from || prev.contains_key(&n) || !built(t, n) {
                continue;
            }
            if t.occupied_by(n, t.side.enemy()) || t.is_besieged(n, t.side) {
                continue;
            }
            prev.insert(n, h);
            queue.push_back(n);
        }
    }
    None
}

/// Rule 3.41: when the 2nd Souakim Field Force has come, the railhead may be
/// placed the month after; each Egyptian reinforcement phase from then on
/// rolls for the hexes built, unless a Mahdist unit stands on the built
/// track of the line.
pub fn railway_building<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    if t.side != Side::Egyptian {
        return;
    }
    if t.state.railhead.is_none() {
        let called = t.scn.def.reinforcements.iter().any(|r| {
            matches!(&r.arrives, Arrival::Event(e) if e.ends_with("-2"))
                && t.state.arrived.contains(&r.id)
        });
        if called && let Some(next) = t.state.month.next() {
            t.state.railhead = Some(Railhead {
                line: None,
                from: next,
            });
        }
        return;
    }
    let Some(rh) = t.state.railhead.clone() else {
        return;
    };
    if rh.from > t.state.month {
        return;
    }
    let line_name = match &rh.line {
        Some(l) => l.clone(),
        None => {
            let (name, decided_by) = match &orders.railway {
                Some(l)
                    if t.scn
                        .map
                        .railways()
                        .iter()
                        .any(|r| r.name.eq_ignore_ascii_case(l)) =>
                {
                    let n = t
                        .scn
                        .map
                        .railways()
                        .iter()
                        .find(|r| r.name.eq_ignore_ascii_case(l))
                        .map(|r| r.name.clone());
                    (n.unwrap_or_default(), Decision::Orders)
                }
                _ => (
                    DEFAULT_LINE.to_string(),
                    Decision::Default("the Souakim-Berber line".into()),
                ),
            };
            let Some(line) = t.scn.map.railways().iter().find(|r| r.name == name) else {
                return;
            };
            let built = t.state.rail_built.entry(name.clone()).or_insert(0);
            *built = (*built).max(1).min(line.hexes.len());
            let Some(&at) = line.hexes.get(built.saturating_sub(1)) else {
                return;
            };
            t.state.railhead = Some(Railhead {
                line: Some(name.clone()),
                from: rh.from,
            });
            let why = match decided_by {
                Decision::Orders => "by orders".to_string(),
                Decision::Default(d) => format!("default: {d}"),
            };
            t.events.push(Event::Note {
                text: format!(
                    "the railhead is placed on the {name} at {} [{why}] (3.41)",
                    t.scn.map.describe(at)
                ),
            });
            name
        }
    };
    let Some(line) = t
        .scn
        .map
        .railways()
        .iter()
        .find(|r| r.name == line_name)
        .cloned()
    else {
        return;
    };
    let done = t
        .state
        .rail_built
        .get(&line_name)
        .copied()
        .unwrap_or(line.built);
    if done >= line.hexes.len() {
        return;
    }
    if line
        .hexes
        .iter()
        .take(done)
        .any(|h| t.occupied_by(*h, Side::Mahdist))
    {
        t.events.push(Event::Note {
            text: format!(
                "no railway building: a Mahdist unit stands on the {} (3.4)",
                line_name
            ),
        });
        return;
    }
    let Some(&head) = line.hexes.get(done.saturating_sub(1)) else {
        return;
    };
    let osman_on_extension = t.state.leaders.iter().any(|l| {
        l.name == "Osman Digma"
            && !l.removed
            && l.hex.is_some_and(|h| t.scn.map.in_souakim_extension(h))
    });
    let cx = RollContext {
        side: Some(Side::Egyptian),
        month: Some(t.state.month),
        osman_and_railhead_on_extension: osman_on_extension && t.scn.map.in_souakim_extension(head),
        railhead_in_hills: t.scn.map.terrain(head) == Some(Terrain::Hills),
        ..RollContext::default()
    };
    let table = &t.scn.tables.railway;
    let mods = modifiers::applicable(&table.modifiers, &cx);
    let n = t
        .row_roll(
            table.dice,
            format!("railway building on the {line_name}"),
            "railway table (3.41)",
            mods,
            &table.rows,
            |&n| crate::words::count(n, "hex", "hexes"),
        )
        .copied()
        .unwrap_or(0) as usize;
    let new = (done + n).min(line.hexes.len());
    t.state.rail_built.insert(line_name.clone(), new);
    if new > done {
        t.events.push(Event::Note {
            text: format!(
                "{} of the {line_name} built; the railhead is at {}",
                crate::words::count(new - done, "hex", "hexes"),
                t.scn.map.describe(line.hexes[new - 1])
            ),
        });
    }
}

/// The hexes the fleet serves: Souakim, Trinkitat and the land next to them.
pub fn fleet_zone<S: DieSource>(t: &Turn<'_, S>) -> Vec<Hex> {
    fleet_waters(&t.scn.map)
}

/// [`fleet_zone`] from the map alone (8.25), for callers outside a turn.
pub fn fleet_waters(map: &crate::geo::Map) -> Vec<Hex> {
    let mut z = Vec::new();
    for p in ["Souakim", "Trinkitat"] {
        if let Ok(h) = map.resolve(p) {
            z.push(h);
            z.extend(h.neighbours().into_iter().filter(|n| map.is_land(*n)));
        }
    }
    z.sort_by_key(|h| (h.row, h.col));
    z.dedup();
    z
}

/// The fleet's counter in `hex`, if it is there.
pub fn fleet_at<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Option<usize> {
    t.on_map()
        .find(|(_, _, h, ty)| *h == hex && ty.is_some_and(|ty| ty.kind == UnitKind::Fleet))
        .map(|(i, ..)| i)
}

/// Rule 8.25: "The fleet cannot be destroyed in combat but is removed if
/// Souakim is Mahdist controlled and returns to Souakim when there is a
/// British infantry unit in Souakim." The fleet leaves as soon as the
/// Mahdists take Souakim, and comes back to Souakim when a British
/// infantry unit (the Naval Brigade included) stands there and the
/// Mahdists do not hold it. It holds no hex (see `Turn::occupied_by`):
/// Mahdist units entering the hex where it lies off the coast send it back
/// to Souakim, or away if the Mahdists hold Souakim (ruling, docs/rules.md
/// 8.25). Called after every phase and every Mahdist step.
pub fn fleet_upkeep<S: DieSource>(t: &mut Turn<'_, S>) {
    let Some((i, souakim)) = t.fleet_and_souakim() else {
        return;
    };
    let at = t.state.units[i].hex();
    // Mahdist land units in Souakim and in the fleet's hex, in one pass.
    let (in_souakim, beside_fleet) = mahdist_land_in(t, souakim, at);
    let mahdist_holds = t.state.control.get(&souakim) == Some(&Side::Mahdist) || in_souakim;
    if let Some(h) = at {
        if mahdist_holds {
            t.state.units[i].status = Status::Reserve;
            t.events.push(Event::Note {
                text: "the Mahdists hold Souakim: the British fleet leaves (8.25)".into(),
            });
        } else if h != souakim && beside_fleet {
            // (At Souakim itself, `mahdist_holds` has answered it.)
            t.state.units[i].status = Status::OnMap(souakim);
            t.events.push(Event::Note {
                text: format!(
                    "Mahdist units enter {}: the British fleet, which holds no hex, sails back to Souakim (8.25)",
                    t.scn.map.describe(h)
                ),
            });
        }
    } else if t.state.units[i].status == Status::Reserve && !mahdist_holds {
        let british_infantry = t.state.units.iter().any(|u| {
            u.hex() == Some(souakim)
                && t.unit_type(u).is_some_and(|ty| {
                    ty.nation == crate::scenario::Nation::British
                        && matches!(ty.kind, UnitKind::Infantry | UnitKind::NavalInfantry)
                })
        });
        if british_infantry {
            t.state.units[i].status = Status::OnMap(souakim);
            t.events.push(Event::Note {
                text: "British infantry holds Souakim: the British fleet returns (8.25)".into(),
            });
        }
    }
}

/// Whether Mahdist land units stand in `souakim`, and in `fleet` (the
/// fleet's hex, if on the map): [`Turn::land_occupied_by`] for both, in
/// one pass over the counters.
fn mahdist_land_in<S: DieSource>(
    t: &Turn<'_, S>,
    souakim: Hex,
    fleet: Option<Hex>,
) -> (bool, bool) {
    let (mut in_souakim, mut in_fleet) = (false, false);
    for (_, u, h, ty) in t.on_map() {
        if u.side != Side::Mahdist || (h != souakim && Some(h) != fleet) {
            continue;
        }
        if ty.is_none_or(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet) {
            in_souakim |= h == souakim;
            in_fleet |= Some(h) == fleet;
        }
        if in_souakim && (in_fleet || fleet.is_none()) {
            break;
        }
    }
    (in_souakim, in_fleet)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Dice, FixedDice};

    /// The fleet and Souakim looked up once are the plain look-ups, and
    /// the one pass for Mahdist land units in Souakim and in the fleet's
    /// hex answers as [`Turn::land_occupied_by`] does for each, on
    /// scattered positions of both scenarios (counters crowded around
    /// Souakim, the fleet on the map and off it).
    #[test]
    fn mahdists_in_souakim_and_beside_the_fleet_in_one_pass() {
        let mut scatter = crate::testing::Scatter::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| scatter.below(n);
        let mut held = 0;
        for (id, scn, mut state) in crate::testing::start_positions() {
            let Ok(souakim) = scn.map.resolve("Souakim") else {
                continue;
            };
            let near: Vec<Hex> = std::iter::once(souakim)
                .chain(souakim.neighbours())
                .filter(|h| scn.map.hex_table().index(*h).is_some())
                .collect();
            for round in 0..60 {
                for u in state.units.iter_mut() {
                    match next(8) {
                        0 => u.status = Status::OnMap(near[next(near.len())]),
                        1 => u.status = Status::Reserve,
                        _ => {}
                    }
                }
                let mut dice = Dice::new(FixedDice::with_fallback([], 1));
                let mut t = Turn::new(&scn, state.clone(), Side::Egyptian, &mut dice);
                let fleet = (0..t.state.units.len())
                    .find(|&i| t.type_at(i).is_some_and(|ty| ty.kind == UnitKind::Fleet));
                let found = t.fleet_and_souakim();
                assert_eq!(found, fleet.map(|i| (i, souakim)), "{id}");
                assert_eq!(t.fleet_and_souakim(), found, "{id}: asked again");
                let at = fleet.and_then(|i| t.state.units[i].hex());
                for fleet_at in [at, None, Some(souakim), Some(near[next(near.len())])] {
                    let plain = (
                        t.land_occupied_by(souakim, Side::Mahdist),
                        fleet_at.is_some_and(|h| t.land_occupied_by(h, Side::Mahdist)),
                    );
                    assert_eq!(
                        mahdist_land_in(&t, souakim, fleet_at),
                        plain,
                        "{id}, round {round}: fleet at {fleet_at:?}"
                    );
                    held += usize::from(plain.0);
                }
            }
        }
        assert!(held > 20, "Souakim held by Mahdist land units {held} times");
    }
}
