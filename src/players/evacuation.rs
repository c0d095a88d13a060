//! The competent Egyptian player's evacuation of the civilians, the line
//! of play rule 4.2 rewards in scenario 2: "It also ends in an Egyptian
//! victory at the end of any Mahdist turn when ... the civilian unit is in
//! Wady Halfa or Souakim."
//!
//! While the civilians' town is not under siege (9.12: "Units under siege
//! may only leave their hex if all adjacent enemy units have 1st been
//! driven away by combat"), the civilians march out by land with every
//! fighting land unit of their stack as escort (civilians may not travel
//! by boat, docs/rules.md), avoiding combat, by the cheapest land route
//! to the nearer of the places that win. The British leaders of that
//! stack do not go with them: 4.2, "The Mahdist player wins if any stack
//! containing a British leader is totally eliminated in combat", and an
//! escort met by the Mahdi's army may be. They leave with the boats and
//! gunboats by river (8.23), which land units may not attack (6.1: "Land
//! units may not attack enemy boats or gunboats"), or stay behind in the
//! town if the river is barred.
//!
//! It rolls no dice: the same position gives the same orders.

use std::collections::BTreeSet;

use crate::engine::orders::{Leg, MarchOrder, OnContact, Orders, Selection};
use crate::geo::Hex;
use crate::scenario::definition::VictoryCondition;
use crate::scenario::{Nation, Scenario, Side, UnitKind};
use crate::state::{GameState, UnitId};

/// What the evacuation asks of this player turn.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Marches, each a slot of choices in order of preference.
    pub slots: Vec<Vec<MarchOrder>>,
    /// Hexes whose stacks the plan has given orders to.
    pub used: BTreeSet<Hex>,
    /// The plan and its reasons, for the umpire's notes.
    pub notes: Vec<String>,
}

/// The places where the civilians win the game for the Egyptian side
/// (scenario 2: Wady Halfa and Souakim), if the scenario has such a
/// condition.
fn safe_places(scn: &Scenario) -> Vec<Hex> {
    scn.def
        .victory
        .iter()
        .filter_map(|v| match v {
            VictoryCondition::UnitIn {
                kind: UnitKind::Civilian,
                places,
                winner: Side::Egyptian,
                ..
            } => Some(places),
            _ => None,
        })
        .flatten()
        .filter_map(|p| scn.map.resolve(p).ok())
        .collect()
}

/// The evacuation's orders for this player turn, or `None` when the
/// scenario has no civilians to bring out or they are already safe.
pub(super) fn plan(scn: &Scenario, state: &GameState) -> Option<Plan> {
    let safe = safe_places(scn);
    if safe.is_empty() {
        return None;
    }
    let civilians: BTreeSet<Hex> = state
        .units
        .iter()
        .filter(|u| u.side == Side::Egyptian)
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| t.kind == UnitKind::Civilian)
        })
        .filter_map(|u| u.hex())
        .filter(|h| !safe.contains(h))
        .collect();
    if civilians.is_empty() {
        return None;
    }
    let besieged = crate::engine::victory::besieged(scn, state, Side::Egyptian);
    let mut plan = Plan::default();
    for from in civilians {
        if besieged.contains(&from) {
            plan.notes.push(format!(
                "the civilians at {} are under siege and may not leave (9.12): the evacuation waits for a relief",
                scn.map.describe(from)
            ));
            continue;
        }
        if let Some(leader) = kept_at(scn, state, from) {
            plan.notes.push(format!(
                "the civilians at {} stay with the whole garrison: {leader} may not leave (house rule), and an escort taken from his stack would leave it to be stormed",
                scn.map.describe(from)
            ));
            continue;
        }
        let Some(goal) = safest(scn, state, from, &safe) else {
            plan.notes.push(format!(
                "the civilians at {} have no way by land to {}",
                scn.map.describe(from),
                describe_all(scn, &safe, " or ")
            ));
            continue;
        };
        march_out(scn, state, from, goal, &mut plan);
    }
    Some(plan)
}

/// How near the enemy a route runs: the Mahdist land strength within
/// [`DANGER`] hexes of any of its hexes.
const DANGER: u32 = 4;

/// The safe place whose land route from `from` runs past the least
/// Mahdist strength (scenario 2: Osman Digma's men round Souakim make the
/// long way down the Nile to Wady Halfa the safer), then the cheapest.
fn safest(scn: &Scenario, state: &GameState, from: Hex, safe: &[Hex]) -> Option<Hex> {
    let enemy: Vec<(Hex, u32)> = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == Side::Mahdist)
        .map(|s| (s.hex, s.units.iter().map(|u| u.strength).sum()))
        .collect();
    safe.iter()
        .filter_map(|g| crate::geo::route::land_route(&scn.map, from, *g).map(|r| (r, *g)))
        .map(|(r, g)| {
            let danger: u32 = enemy
                .iter()
                .filter(|(h, _)| r.hexes.iter().any(|x| x.distance(*h) <= DANGER))
                .map(|(_, s)| *s)
                .sum();
            (danger, r.cost, g)
        })
        .min_by_key(|(danger, cost, g)| (*danger, *cost, g.row, g.col))
        .map(|(.., g)| g)
}

/// The most fighting units that go with the civilians; the rest hold the
/// town, which keeps the Mahdi's army before it.
const ESCORT: usize = 4;

/// The places of `hexes`, joined by `sep`.
fn describe_all(scn: &Scenario, hexes: &[Hex], sep: &str) -> String {
    hexes
        .iter()
        .map(|h| scn.map.describe(*h))
        .collect::<Vec<_>>()
        .join(sep)
}

/// The civilians' stack at `from` marches for `goal`: the civilians and
/// the land units by land, the British leaders with the river units.
fn march_out(scn: &Scenario, state: &GameState, from: Hex, goal: Hex, plan: &mut Plan) {
    let Some(stack) = state
        .stacks()
        .into_iter()
        .find(|s| s.side == Side::Egyptian && s.hex == from)
    else {
        return;
    };
    let river: Vec<UnitId> = stack
        .units
        .iter()
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| t.kind.is_river_unit())
        })
        .map(|u| u.id.clone())
        .collect();
    let land = column(scn, &stack.units, &river);
    let (british, others): (Vec<String>, Vec<String>) = stack
        .leaders
        .iter()
        .map(|l| l.name.clone())
        .partition(|name| {
            scn.units
                .leader(name)
                .is_some_and(|l| l.nation == Nation::British)
        });
    let reach = stack
        .units
        .iter()
        .filter(|u| land.contains(&u.id))
        .filter_map(|u| scn.units.get(&u.unit_type))
        .map(|t| t.movement)
        .filter(|m| *m > 0)
        .min()
        .unwrap_or(4);
    plan.used.insert(from);
    plan.notes.push(format!(
        "the evacuation: the civilians at {} march for {} by land with {} as escort, avoiding combat (4.2: the civilians in Wady Halfa or Souakim win)",
        scn.map.describe(from),
        scn.map.describe(goal),
        crate::words::count(land.len().saturating_sub(1), "unit", "units")
    ));
    plan.slots.push(vec![MarchOrder {
        units: Selection::Units {
            units: land,
            leaders: others,
        },
        legs: super::legs_to(&scn.map, from, goal, reach),
        on_contact: OnContact::Avoid,
        ..MarchOrder::stack(from, Vec::new())
    }]);
    let british = not_kept(scn, state, from, british, plan);
    if british.is_empty() {
        return;
    }
    leaders_by_river(scn, from, goal, river, british, plan);
}

/// A British leader a house rule of the game keeps at `from` who stands
/// there (house rule `gordon-stays`: Gordon in Khartoum).
fn kept_at(scn: &Scenario, state: &GameState, from: Hex) -> Option<&'static str> {
    state
        .options
        .variants
        .iter()
        .filter_map(|v| v.kept())
        .filter(|(_, town)| scn.map.resolve(town) == Ok(from))
        .map(|(leader, _)| leader)
        .find(|leader| {
            state
                .leaders
                .iter()
                .any(|l| l.name.eq_ignore_ascii_case(leader) && !l.removed && l.hex == Some(from))
        })
}

/// `leaders` less those a house rule of the game keeps at `from` (house
/// rule `gordon-stays`: no order may take Gordon out of Khartoum), with a
/// note for each kept.
fn not_kept(
    scn: &Scenario,
    state: &GameState,
    from: Hex,
    leaders: Vec<String>,
    plan: &mut Plan,
) -> Vec<String> {
    let kept: Vec<(&str, &str)> = state
        .options
        .variants
        .iter()
        .filter_map(|v| v.kept())
        .filter(|(_, town)| scn.map.resolve(town) == Ok(from))
        .collect();
    leaders
        .into_iter()
        .filter(|name| {
            let Some((_, town)) = kept.iter().find(|(l, _)| name.eq_ignore_ascii_case(l)) else {
                return true;
            };
            plan.notes.push(format!(
                "{name} stays in {town} (house rule: no order may take him out of it)"
            ));
            false
        })
        .collect()
}

/// The civilians and their escort: the strongest fighting land units of
/// the stack, up to [`ESCORT`] of them, the unit that can march the
/// farthest first (a gun's slow pace would hold the column back).
fn column(scn: &Scenario, units: &[&crate::state::Unit], river: &[UnitId]) -> Vec<UnitId> {
    let mut civilians = Vec::new();
    let mut fighting: Vec<(u32, u32, UnitId)> = Vec::new();
    for u in units.iter().filter(|u| !river.contains(&u.id)) {
        match scn.units.get(&u.unit_type).map(|t| (t.kind, t.movement)) {
            Some((UnitKind::Civilian, _)) => civilians.push(u.id.clone()),
            Some((UnitKind::Fleet | UnitKind::Supply, _)) | None => {}
            Some((_, movement)) if movement > 0 => {
                fighting.push((movement, u.strength, u.id.clone()));
            }
            Some(_) => {}
        }
    }
    fighting.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.0.cmp(&b.2.0)));
    civilians.extend(fighting.into_iter().take(ESCORT).map(|(.., id)| id));
    civilians
}

/// The British leaders leave with the boats and gunboats by river, down
/// the Nile towards `goal` as far as the checker allows; with no river
/// units they stay where they are.
fn leaders_by_river(
    scn: &Scenario,
    from: Hex,
    goal: Hex,
    river: Vec<UnitId>,
    british: Vec<String>,
    plan: &mut Plan,
) {
    if river.is_empty() || !scn.map.is_riverside(from) {
        plan.notes.push(format!(
            "{} stay at {}: no boats to take them out of reach of the Mahdi's land units (6.1)",
            british.join(" and "),
            scn.map.describe(from)
        ));
        return;
    }
    plan.notes.push(format!(
        "{} leave {} with the boats and gunboats by river (8.23), out of reach of the Mahdi's land units (6.1)",
        british.join(" and "),
        scn.map.describe(from)
    ));
    let units = Selection::Units {
        units: river,
        leaders: british,
    };
    let slot = river_stops(scn, from, goal)
        .into_iter()
        .map(|to| MarchOrder {
            units: units.clone(),
            legs: vec![Leg::River(to)],
            on_contact: OnContact::Avoid,
            ..MarchOrder::stack(from, Vec::new())
        })
        .collect();
    plan.slots.push(slot);
}

/// Riverside hexes on the land route from `from` to `goal`, farthest
/// along first: where a river march may end (the checker refuses those the
/// river does not reach or the enemy bars).
fn river_stops(scn: &Scenario, from: Hex, goal: Hex) -> Vec<Hex> {
    let Some(route) = crate::geo::route::land_route(&scn.map, from, goal) else {
        return Vec::new();
    };
    route
        .hexes
        .iter()
        .rev()
        .filter(|h| **h != from && scn.map.is_riverside(**h))
        .copied()
        .take(8)
        .collect()
}

/// While the civilians are on their way, no British unit may be lost to
/// attrition (4.2: "The Egyptian player may only achieve a draw if any
/// British unit (except camels or supply units) is lost to attrition table
/// results"). Every stack with a British fighting unit and a supply unit
/// spends it (5.2 IV: "If a supply unit is expended all units which are in
/// the hex are automatically in supply"); British fighting units with no
/// supply to spend, that attrition would take first (no worse unit beside
/// them), leave the map (5.2 II: "Any friendly units may also be withdrawn
/// from the map"), to come back as replacements (3.3).
#[derive(Debug, Default)]
pub(super) struct Spared {
    pub expend_supply: Vec<Hex>,
    pub withdraw: Vec<UnitId>,
    pub notes: Vec<String>,
}

/// The British fighting units of a stack that attrition would take first:
/// it takes the worst quality first (the engine's default, "civilians
/// last"), so a British unit is at risk only when no other unit of the
/// stack is worse than it.
fn at_risk(scn: &Scenario, units: &[&crate::state::Unit], british: Vec<UnitId>) -> Vec<UnitId> {
    let quality = |u: &crate::state::Unit| scn.units.get(&u.unit_type).map(|t| t.quality);
    let worst_other = units
        .iter()
        .filter(|u| !british.contains(&u.id))
        .filter(|u| {
            scn.units.get(&u.unit_type).is_some_and(|t| {
                !t.kind.is_river_unit()
                    && !matches!(
                        t.kind,
                        UnitKind::Civilian | UnitKind::Fleet | UnitKind::Supply
                    )
            })
        })
        .filter_map(|u| quality(u))
        .max();
    units
        .iter()
        .filter(|u| british.contains(&u.id))
        .filter(|u| match (quality(u), worst_other) {
            (Some(q), Some(w)) => q >= w,
            _ => true,
        })
        .map(|u| u.id.clone())
        .collect()
}

/// The orders that keep British units from attrition (see [`Spared`]).
pub(super) fn spare_the_british(scn: &Scenario, state: &GameState) -> Spared {
    let mut out = Spared::default();
    for s in state.stacks() {
        if s.side != Side::Egyptian {
            continue;
        }
        let kind = |u: &&crate::state::Unit| {
            scn.units
                .get(&u.unit_type)
                .map(|t| (t.kind, t.nation == Nation::British))
        };
        let british: Vec<UnitId> = s
            .units
            .iter()
            .filter(|u| {
                kind(u).is_some_and(|(k, british)| {
                    british
                        && !matches!(k, UnitKind::Camel | UnitKind::Supply)
                        && !k.is_river_unit()
                })
            })
            .map(|u| u.id.clone())
            .collect();
        if british.is_empty() {
            continue;
        }
        let supply = s
            .units
            .iter()
            .any(|u| kind(u).is_some_and(|(k, _)| k == UnitKind::Supply));
        if supply {
            out.expend_supply.push(s.hex);
        } else {
            out.withdraw.extend(at_risk(scn, &s.units, british));
        }
    }
    if !out.expend_supply.is_empty() {
        out.notes.push(format!(
            "spends the supply of {}: while the civilians are on their way no British unit may be lost to attrition (4.2)",
            describe_all(scn, &out.expend_supply, ", ")
        ));
    }
    if !out.withdraw.is_empty() {
        out.notes.push(format!(
            "withdraws {} from the map (5.2 II), with no supply to spare them attrition while the civilians are on their way (4.2)",
            out.withdraw
                .iter()
                .map(|u| u.0.as_ref())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    out
}

/// `orders` with the orders of [`spare_the_british`] added, kept to what
/// the checker accepts, and the notes that say why (and what was left
/// out).
pub(super) fn with_british_spared(
    scn: &Scenario,
    state: &GameState,
    orders: Orders,
) -> (Orders, Vec<String>) {
    let spared = spare_the_british(scn, state);
    let mut notes = spared.notes;
    let (checked, dropped) = super::keep_checked(
        scn,
        state,
        Side::Egyptian,
        Orders {
            expend_supply: spared.expend_supply,
            withdraw: spared.withdraw,
            ..orders
        },
    );
    notes.extend(dropped);
    (checked, notes)
}
