//! Taking losses within the limits of the rules (8.31, 9.4, 9.5, 9.7):
//! civilians are eliminated last; no unit is disrupted a second time
//! (which eliminates it) until every unit of the stack is disrupted; the
//! owner's preferences come first, then the default policy of losing the
//! worst-quality units first. [`distribute`] takes a combat roll's results
//! by class over the whole stack; [`apply`] takes losses given for a whole
//! stack (march attrition, attrition, withdrawal).

use super::Turn;
use super::events::{Decision, Event};
use crate::dice::DieSource;
use crate::geo::Hex;
use crate::scenario::{Nation, Quality, Side, UnitKind};
use crate::state::{Status, UnitId};

/// The default policy's name in the result log.
pub const DEFAULT_POLICY: &str = "worst quality first, civilians last";

/// Where an eliminated counter goes: Mahdist units to the pool (the dead
/// pile of 3.21); British units (gunboats aside), supply, boats and camels await
/// replacement two turns later (3.3); other Egyptian-side units are gone.
pub fn status_after_elimination<S: DieSource>(t: &Turn<'_, S>, idx: usize) -> Status {
    let u = &t.state.units[idx];
    let Some(ty) = t.type_at(idx) else {
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
    let mut s = Taking::new(hex, units);
    // The first in the loss order of `alive` (civilians last).
    let first = |t: &Turn<'_, S>, alive: &mut dyn Iterator<Item = usize>, by_disruption: bool| {
        alive.min_by_key(|&i| loss_order(t, lose_first, i, is_civilian(t, i), by_disruption))
    };
    let decided = |t: &Turn<'_, S>, i: usize| decided(t, lose_first, i);
    for _ in 0..eliminate {
        let pick = first(t, &mut s.alive.iter().copied(), true);
        let Some(i) = pick else { break };
        let d = decided(t, i);
        s.eliminate(t, i, cause, d);
    }
    for _ in 0..disrupt {
        let all_disrupted = s.alive.iter().all(|&i| t.state.units[i].disrupted);
        if all_disrupted {
            // A second disruption eliminates (9.4, 9.7); civilians last.
            let pick = first(t, &mut s.alive.iter().copied(), false);
            let Some(i) = pick else { break };
            let d = decided(t, i);
            s.eliminate(t, i, &format!("{cause}, disrupted again"), d);
        } else {
            // 8.31: "disrupted units may be eliminated to satisfy this
            // loss": a disrupted unit the owner names may go instead of a
            // good-order unit being disrupted.
            let pick = first(
                t,
                &mut s.alive.iter().copied().filter(|&i| {
                    let u = &t.state.units[i];
                    !u.disrupted || lose_first.contains(&u.id)
                }),
                false,
            );
            let Some(i) = pick else { break };
            let d = decided(t, i);
            if t.state.units[i].disrupted {
                s.eliminate(t, i, &format!("{cause}, disrupted again"), d);
                continue;
            }
            s.disrupt(t, i, cause.to_string(), d);
        }
    }
    s.done(t, cause)
}

/// The results one combat roll inflicts on one quality class of the stack
/// hit (9.5): disruptions and eliminations, already capped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassHits {
    pub class: Quality,
    pub disrupt: u32,
    pub eliminate: u32,
}

/// Distribute a combat roll's results over the whole stack hit (9.4, 9.5).
/// `units` is every unit of the stack the round can hit; `stack` every unit
/// of the stack in the combat (the limits count boats and gunboats that
/// melee cannot hit, the fleet aside); `hits` the results
/// by class, the worst affected class first. Eliminations come first, then
/// disruptions, each class in turn. A result falls on a unit of its own
/// class when the limits allow ("Losses must be taken from the worst
/// affected units 1st"); otherwise on another unit of the stack, as the
/// owner distributes, with the stack-wide limits of 9.4:
///
/// - "civilians may not be eliminated (by either player) until all other
///   units are eliminated": a civilian is eliminated, or disrupted a second
///   time, only when it is all that is left;
/// - "no disrupted unit may suffer a 2nd disruption result until all units
///   (except leaders) in the stack are disrupted": a disruption falls on a
///   good-order unit while there is one, and then eliminates a disrupted
///   one ("A disrupted unit that is disrupted again is eliminated").
///
/// Within these limits the owner's `lose_first` list comes first, then the
/// default policy. A result with no unit left to take it is lost. Returns
/// the eliminated units.
pub fn distribute<S: DieSource>(
    t: &mut Turn<'_, S>,
    hex: Hex,
    units: &[usize],
    stack: &[usize],
    hits: &[ClassHits],
    cause: &str,
    lose_first: &[UnitId],
) -> Vec<usize> {
    let mut s = Taking::new(hex, units);
    let class_of = |t: &Turn<'_, S>, i: usize| t.type_at(i).map(|ty| ty.quality);
    let decided = |t: &Turn<'_, S>, i: usize| decided(t, lose_first, i);
    // The units of the stack still in the combat, for the limits of 9.4.
    let standing = |t: &Turn<'_, S>| -> Vec<usize> {
        stack
            .iter()
            .copied()
            .filter(|&i| t.state.units[i].hex() == Some(hex))
            .filter(|&i| t.type_at(i).is_some_and(|ty| ty.kind != UnitKind::Fleet))
            .collect()
    };
    // Civilians only when nothing else of the stack is left (9.4).
    let eliminable = |t: &Turn<'_, S>, alive: &[usize]| -> Vec<usize> {
        let others: Vec<usize> = alive
            .iter()
            .copied()
            .filter(|&i| !is_civilian(t, i))
            .collect();
        if !others.is_empty() {
            return others;
        }
        if standing(t).iter().all(|&i| is_civilian(t, i)) {
            alive.to_vec()
        } else {
            Vec::new()
        }
    };
    // A result taken by a unit of another class says so (9.5 ruling).
    let cause_for = |t: &Turn<'_, S>, i: usize, h: &ClassHits, what: &str| {
        if class_of(t, i) == Some(h.class) {
            what.to_string()
        } else {
            format!(
                "{what}, a result against the {} units (9.4, 9.5)",
                h.class.letter()
            )
        }
    };
    for h in hits {
        for _ in 0..h.eliminate {
            let pick = eliminable(t, &s.alive)
                .into_iter()
                .min_by_key(|&i| class_order(t, lose_first, i, h, true));
            let Some(i) = pick else { break };
            let d = decided(t, i);
            let c = cause_for(t, i, h, cause);
            s.eliminate(t, i, &c, d);
        }
    }
    for h in hits {
        for _ in 0..h.disrupt {
            let good: Vec<usize> = s
                .alive
                .iter()
                .copied()
                .filter(|&i| !t.state.units[i].disrupted)
                .collect();
            if good.is_empty() {
                // A unit of the stack this round cannot hit (a gunboat in
                // the melee round) is in good order: no second disruption.
                if standing(t).iter().any(|&i| !t.state.units[i].disrupted) {
                    continue;
                }
                // Every unit is disrupted: a second disruption eliminates
                // (9.4, 9.7); civilians last.
                let pick = eliminable(t, &s.alive)
                    .into_iter()
                    .min_by_key(|&i| class_order(t, lose_first, i, h, false));
                let Some(i) = pick else { break };
                let d = decided(t, i);
                let c = cause_for(t, i, h, &format!("{cause}, disrupted again"));
                s.eliminate(t, i, &c, d);
            } else {
                // By default civilians are disrupted last too.
                let pick = good.into_iter().min_by_key(|&i| {
                    (
                        is_civilian(t, i) && !lose_first.contains(&t.state.units[i].id),
                        class_order(t, lose_first, i, h, false),
                    )
                });
                let Some(i) = pick else { break };
                let d = decided(t, i);
                let c = cause_for(t, i, h, cause);
                s.disrupt(t, i, c, d);
            }
        }
    }
    s.done(t, cause)
}

/// The units of a stack in `hex` taking losses: those still there and
/// those eliminated so far.
struct Taking {
    hex: Hex,
    alive: Vec<usize>,
    gone: Vec<usize>,
}

impl Taking {
    fn new(hex: Hex, units: &[usize]) -> Self {
        Taking {
            hex,
            alive: units.to_vec(),
            gone: Vec::new(),
        }
    }

    fn eliminate<S: DieSource>(&mut self, t: &mut Turn<'_, S>, i: usize, cause: &str, d: Decision) {
        eliminate_unit(t, i, self.hex, cause, d);
        self.alive.retain(|&x| x != i);
        self.gone.push(i);
    }

    fn disrupt<S: DieSource>(&self, t: &mut Turn<'_, S>, i: usize, cause: String, d: Decision) {
        t.state.units[i].disrupted = true;
        let unit = t.state.units[i].id.clone();
        t.events.push(Event::Disrupted {
            unit,
            hex: self.hex,
            cause,
            decided_by: d,
        });
    }

    /// The eliminated units; a leader left alone by them goes (7.0).
    fn done<S: DieSource>(self, t: &mut Turn<'_, S>, cause: &str) -> Vec<usize> {
        if !self.gone.is_empty() {
            t.remove_lone_leaders(
                self.hex,
                &format!("every unit with him was eliminated ({cause})"),
            );
        }
        self.gone
    }
}

pub(crate) fn eliminate_unit<S: DieSource>(
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

/// Where a unit stands in the order of losses: later rounds last, the
/// player's own order, disruption, quality, then id (see [`loss_order`]).
type LossKey<'t> = (
    bool,
    usize,
    bool,
    std::cmp::Reverse<Option<Quality>>,
    &'t UnitId,
);

/// The order in which units take a loss, the least first: after `later`
/// (civilians, or units of another class than the result's), the owner's
/// loss order, then, when `by_disruption`, disrupted units before those in
/// good order, then worse quality, then by id.
fn loss_order<'t, S: DieSource>(
    t: &'t Turn<'_, S>,
    lose_first: &[UnitId],
    i: usize,
    later: bool,
    by_disruption: bool,
) -> LossKey<'t> {
    (
        later,
        preference(t, lose_first, i),
        by_disruption && !t.state.units[i].disrupted,
        quality_rank(t, i),
        &t.state.units[i].id,
    )
}

/// [`loss_order`] for a result against a class: the result's own class
/// first.
fn class_order<'t, S: DieSource>(
    t: &'t Turn<'_, S>,
    lose_first: &[UnitId],
    i: usize,
    h: &ClassHits,
    by_disruption: bool,
) -> LossKey<'t> {
    let other = t.type_at(i).map(|ty| ty.quality) != Some(h.class);
    loss_order(t, lose_first, i, other, by_disruption)
}

/// Where a unit stands in the owner's loss order (`usize::MAX` if not in it).
fn preference<S: DieSource>(t: &Turn<'_, S>, lose_first: &[UnitId], i: usize) -> usize {
    lose_first
        .iter()
        .position(|id| *id == t.state.units[i].id)
        .unwrap_or(usize::MAX)
}

/// Who chose this unit to take a loss: the owner's orders or the default.
fn decided<S: DieSource>(t: &Turn<'_, S>, lose_first: &[UnitId], i: usize) -> Decision {
    if lose_first.contains(&t.state.units[i].id) {
        Decision::Orders
    } else {
        Decision::Default(DEFAULT_POLICY.into())
    }
}

fn is_civilian<S: DieSource>(t: &Turn<'_, S>, i: usize) -> bool {
    t.type_at(i).is_some_and(|ty| ty.kind == UnitKind::Civilian)
}

/// Worse quality sorts first.
fn quality_rank<S: DieSource>(t: &Turn<'_, S>, i: usize) -> std::cmp::Reverse<Option<Quality>> {
    std::cmp::Reverse(t.type_at(i).map(|ty| ty.quality))
}

/// `pct` percent of `n` units, rounded down; at least one when the
/// percentage is not zero and there are units (8.31).
pub fn share(n: usize, pct: u32) -> u32 {
    if pct == 0 || n == 0 {
        return 0;
    }
    ((n as u32 * pct) / 100).max(1)
}
