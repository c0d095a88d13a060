//! Taking losses within the limits of the rules (8.31, 9.4, 9.5, 9.7):
//! civilians are eliminated last; no unit is disrupted a second time
//! (which eliminates it) until every unit of the stack is disrupted; the
//! owner's preferences come first, then the default policy of losing the
//! worst-quality units first.

use super::Turn;
use super::events::{Decision, Event};
use crate::dice::DieSource;
use crate::geo::Hex;
use crate::scenario::{Nation, Side, UnitKind};
use crate::state::{Status, UnitId};

/// The default policy's name in the result log.
pub const DEFAULT_POLICY: &str = "worst quality first, civilians last";

/// Where an eliminated counter goes: Mahdist units to the pool (the dead
/// pile of 3.21); British units (gunboats aside), supply, boats and camels await
/// replacement two turns later (3.3); other Egyptian-side units are gone.
pub fn status_after_elimination<S: DieSource>(t: &Turn<'_, S>, idx: usize) -> Status {
    let u = &t.state.units[idx];
    let Some(ty) = t.unit_type(u) else {
        return Status::Eliminated;
    };
    if u.side == Side::Mahdist {
        return Status::Pool;
    }
    // Gunboats "have a separate replacement system" (3.3): wrecking and
    // repair (8.23); one destroyed is gone.
    let replaceable = (ty.nation == Nation::British
        || matches!(ty.kind, UnitKind::Supply | UnitKind::Boat | UnitKind::Camel))
        && ty.kind != UnitKind::Gunboat;
    match (
        replaceable,
        t.state
            .month
            .plus(t.scn.def.replacements.delay_turns as i32),
    ) {
        (true, Some(m)) if ty.kind != UnitKind::Fleet => Status::AwaitingReplacement(m),
        _ => Status::Eliminated,
    }
}

/// Apply `eliminate` eliminations, then `disrupt` disruptions, to the units
/// `units` (indices into the state) in `hex`. Returns the eliminated units.
pub fn apply<S: DieSource>(
    t: &mut Turn<'_, S>,
    hex: Hex,
    units: &[usize],
    disrupt: u32,
    eliminate: u32,
    cause: &str,
    lose_first: &[UnitId],
) -> Vec<usize> {
    let mut gone = Vec::new();
    let mut alive: Vec<usize> = units.to_vec();
    let preference = |t: &Turn<'_, S>, i: usize| {
        lose_first
            .iter()
            .position(|id| *id == t.state.units[i].id)
            .unwrap_or(usize::MAX)
    };
    let decided = |t: &Turn<'_, S>, i: usize| {
        if lose_first.contains(&t.state.units[i].id) {
            Decision::Orders
        } else {
            Decision::Default(DEFAULT_POLICY.into())
        }
    };
    let is_civilian = |t: &Turn<'_, S>, i: usize| {
        t.unit_type(&t.state.units[i])
            .is_some_and(|ty| ty.kind == UnitKind::Civilian)
    };
    let quality_rank = |t: &Turn<'_, S>, i: usize| {
        std::cmp::Reverse(t.unit_type(&t.state.units[i]).map(|ty| ty.quality))
    };
    for _ in 0..eliminate {
        let pick = alive.iter().copied().min_by_key(|&i| {
            (
                is_civilian(t, i),
                preference(t, i),
                !t.state.units[i].disrupted,
                quality_rank(t, i),
                t.state.units[i].id.clone(),
            )
        });
        let Some(i) = pick else { break };
        let d = decided(t, i);
        eliminate_unit(t, i, hex, cause, d);
        alive.retain(|&x| x != i);
        gone.push(i);
    }
    for _ in 0..disrupt {
        let all_disrupted = alive.iter().all(|&i| t.state.units[i].disrupted);
        if all_disrupted {
            // A second disruption eliminates (9.4, 9.7); civilians last.
            let pick = alive.iter().copied().min_by_key(|&i| {
                (
                    is_civilian(t, i),
                    preference(t, i),
                    quality_rank(t, i),
                    t.state.units[i].id.clone(),
                )
            });
            let Some(i) = pick else { break };
            let d = decided(t, i);
            eliminate_unit(t, i, hex, &format!("{cause}, disrupted again"), d);
            alive.retain(|&x| x != i);
            gone.push(i);
        } else {
            let pick = alive
                .iter()
                .copied()
                .filter(|&i| !t.state.units[i].disrupted)
                .min_by_key(|&i| {
                    (
                        is_civilian(t, i),
                        preference(t, i),
                        quality_rank(t, i),
                        t.state.units[i].id.clone(),
                    )
                });
            let Some(i) = pick else { break };
            let d = decided(t, i);
            t.state.units[i].disrupted = true;
            let unit = t.state.units[i].id.clone();
            t.events.push(Event::Disrupted {
                unit,
                hex,
                cause: cause.to_string(),
                decided_by: d,
            });
        }
    }
    if !gone.is_empty() {
        t.remove_lone_leaders(hex);
    }
    gone
}

fn eliminate_unit<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    hex: Hex,
    cause: &str,
    decided_by: Decision,
) {
    let status = status_after_elimination(t, i);
    let u = &mut t.state.units[i];
    u.status = status;
    u.disrupted = false;
    u.strength = t
        .scn
        .units
        .get(&u.unit_type)
        .map_or(u.strength, |ty| ty.strength);
    let unit = u.id.clone();
    t.events.push(Event::Eliminated {
        unit,
        hex,
        cause: cause.to_string(),
        decided_by,
    });
}

/// `pct` percent of `n` units, rounded down; at least one when the
/// percentage is not zero and there are units (8.31).
pub fn share(n: usize, pct: u32) -> u32 {
    if pct == 0 || n == 0 {
        return 0;
    }
    ((n as u32 * pct) / 100).max(1)
}
