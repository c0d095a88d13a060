//! What march orders would do, worked out before the player turn and
//! without dice: the order checker's view of the engine. Each march is
//! checked as the march phase would check it (the same selection, route
//! and step rules), assuming every earlier leg reaches its end; march
//! results are not known yet, so a plan says how far a full march goes,
//! not how far the stack will get.

use std::collections::{BTreeMap, BTreeSet};

use super::Turn;
use super::events::Event;
use super::march::{allowance, group_legs, select, targets};
use super::movement::{Occupancy, enter_cost, route_on};
use super::orders::{Leg, MarchOrder, OnContact, Selection};
use super::{rail, river};
use crate::dice::{Dice, FixedDice};
use crate::geo::Hex;
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, Status, UnitId};

/// One leg of a planned march.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegPlan {
    /// The hexes entered, in order (the start hex not included).
    pub path: Vec<Hex>,
    /// Movement points the path costs (0 by rail, river or fleet).
    pub cost: u32,
    /// Where the leg ends if the march goes the whole way.
    pub end: Hex,
    /// Whether the leg needs a roll on the march table.
    pub rolls: bool,
    /// For a river leg: `Some(true)` upstream, `Some(false)` downstream.
    pub river_way: Option<bool>,
    /// Things the player should know ("costs 9 MP, a march gives 6").
    pub notes: Vec<String>,
    /// Which of the stack's marches (0 to 2) this leg belongs to: moves
    /// with the fleet share the march of the land leg beside them (8.25).
    pub march: usize,
    /// A move with the British fleet (8.25).
    pub by_fleet: bool,
    /// A later march to where the march before it ends: it does nothing
    /// if that march gets there, and carries the stack on only if it is
    /// stopped short (a No March roll, a short march).
    pub already_there: bool,
}

/// A march order as the engine will take it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarchPlan {
    pub from: Hex,
    pub units: Vec<UnitId>,
    /// The boats and gunboats going with it (named, or carrying it by
    /// river).
    pub river: Vec<UnitId>,
    pub leaders: Vec<String>,
    /// Movement points of a full march (the slowest unit, 8.31).
    pub allowance: u32,
    pub legs: Vec<LegPlan>,
    /// Parts of the order the engine will ignore or may not carry out.
    pub warnings: Vec<String>,
    /// The order is possible only if an earlier one succeeds (5.2 III:
    /// orders are carried out in the order written): the plan is made on
    /// the position that order leaves.
    pub condition: Option<Condition>,
    /// Units and leaders foreseen to arrive in the stack's hex this month
    /// (reinforcements, replacements): they stay where they land (8.3).
    pub arriving: Vec<String>,
    /// Leaders foreseen to arrive in the stack's hex with no unit of their
    /// own, who go with this stack as no unit is left with them (7.0).
    pub joining: Vec<String>,
}

/// Units and leaders arriving in one hex this month.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrivals {
    pub units: Vec<UnitId>,
    pub leaders: Vec<String>,
}

/// Who arrives where in `side`'s reinforcement phase this month, as far
/// as it is known before the player turn ([`super::arrivals::foreseen`]):
/// the receipt tells the player that these stay where they land (8.3).
pub fn foreseen_arrivals(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: &super::orders::Orders,
) -> BTreeMap<Hex, Arrivals> {
    let mut dice = no_dice();
    Start::new(scn, state, side, &mut dice).foreseen_arrivals(orders)
}

/// Dice for working out what orders will do: none are rolled.
pub fn no_dice() -> Dice<FixedDice> {
    Dice::new(FixedDice::with_fallback([], 1))
}

/// The start of `side`'s player turn as the order checker sees it: the
/// position the orders were written against, made into a turn once and
/// shared by the march plans, the besieged hexes and the arrivals
/// foreseen, so a check copies the state once rather than once for each.
pub struct Start<'a> {
    turn: Turn<'a, FixedDice>,
}

impl<'a> Start<'a> {
    /// The turn on a copy of `state`; `dice` are never rolled.
    pub fn new(
        scn: &'a Scenario,
        state: &GameState,
        side: Side,
        dice: &'a mut Dice<FixedDice>,
    ) -> Self {
        Start {
            turn: Turn::new(scn, state.clone(), side, dice),
        }
    }

    /// [`plan_marches`] on this position.
    pub fn plan_marches(&mut self, marches: &[MarchOrder]) -> Vec<Result<MarchPlan, String>> {
        let out = plan_on(&mut self.turn, marches);
        // Nothing has marched yet when the reinforcement phase comes.
        self.turn.marched.clear();
        self.turn.leaders_marched.clear();
        out
    }

    /// `side`'s besieged hexes (9.12), the hexes of
    /// [`super::victory::besieged`] (in row order rather than stack order).
    pub fn besieged(&self) -> Vec<Hex> {
        let t = &self.turn;
        t.besieged_hexes()
            .into_iter()
            .filter(|h| t.is_besieged(*h, t.side))
            .collect()
    }

    /// [`foreseen_arrivals`] on this position: the last use of it, as the
    /// reinforcement phase changes the position.
    pub fn foreseen_arrivals(mut self, orders: &super::orders::Orders) -> BTreeMap<Hex, Arrivals> {
        let t = &mut self.turn;
        super::arrivals::foreseen(t, orders);
        let mut out: BTreeMap<Hex, Arrivals> = BTreeMap::new();
        for e in &t.events {
            match e {
                Event::Arrived {
                    hex,
                    units,
                    leaders,
                    ..
                } => {
                    let a = out.entry(*hex).or_default();
                    a.units.extend(units.iter().cloned());
                    a.leaders.extend(leaders.iter().cloned());
                }
                Event::Replaced { unit, hex } => {
                    out.entry(*hex).or_default().units.push(unit.clone());
                }
                _ => {}
            }
        }
        out
    }
}

/// Tell each plan who arrives in its hex this month and stays (8.3), and
/// which arriving leaders, left with no unit, go with it (7.0): with the
/// last march from the hex that leaves no unit behind.
pub fn add_arrivals(
    state: &GameState,
    side: Side,
    arrivals: &BTreeMap<Hex, Arrivals>,
    plans: &mut [&mut MarchPlan],
) {
    for (hex, a) in arrivals {
        let from_here: Vec<usize> = (0..plans.len())
            .filter(|&k| plans[k].from == *hex)
            .collect();
        let Some(&last) = from_here.last() else {
            continue;
        };
        let leaving: BTreeSet<&UnitId> = from_here
            .iter()
            .flat_map(|&k| plans[k].units.iter().chain(&plans[k].river))
            .collect();
        let left_behind = state
            .units
            .iter()
            .any(|u| u.side == side && u.hex() == Some(*hex) && !leaving.contains(&u.id));
        let alone = a.units.is_empty() && !left_behind;
        for &k in &from_here {
            let p = &mut *plans[k];
            p.arriving = a.units.iter().map(|u| u.0.to_string()).collect();
            if !alone {
                p.arriving.extend(a.leaders.iter().cloned());
            }
        }
        if alone {
            plans[last].joining = a.leaders.clone();
        }
    }
}

/// Why an order is possible only after an earlier one succeeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The earlier order, by its index among the marches.
    pub on: usize,
    /// What that order does if it succeeds ("its attack drives the enemy
    /// from 3125").
    pub needs: String,
    /// Why the order is not possible in the position as it stands now.
    pub now: String,
}

/// What a march order does to the position if it succeeds: every attack
/// it makes is won and every march goes as far as ordered. Worked out
/// without dice; the engine checks each order again when its turn comes.
#[derive(Clone, Debug, Default)]
struct Success {
    /// Enemy hexes its attacks clear.
    driven: Vec<Hex>,
    /// Where its stack ends, if it moves.
    reached: Option<Hex>,
    /// The position after it (and every earlier order) succeeded, if it
    /// changed anything.
    after: Option<GameState>,
}

impl Success {
    fn describe(&self, scn: &Scenario) -> String {
        let map = &scn.map;
        if !self.driven.is_empty() {
            let hexes: Vec<String> = self.driven.iter().map(|h| map.describe(*h)).collect();
            format!("its attack drives the enemy from {}", hexes.join(" and "))
        } else if let Some(h) = self.reached {
            format!("its stack reaches {}", map.describe(h))
        } else {
            "it succeeds".into()
        }
    }
}

/// Plan each march order in turn, as the march phase will take them: a
/// unit in an earlier march is not in a later one (8.1). Each entry is the
/// plan or why the engine will set the order aside.
///
/// Orders are carried out in the order written (5.2 III), so an order
/// not possible in the position as it stands now may become possible
/// once an earlier one has succeeded: a besieged stack may leave after an
/// attack above it drove the besiegers off. Such an order is planned on
/// the position the earlier orders leave if they succeed (every attack
/// won, every march as far as ordered) and carries its [`Condition`];
/// an order possible in neither position is set aside.
pub fn plan_marches(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    marches: &[MarchOrder],
) -> Vec<Result<MarchPlan, String>> {
    let mut dice = no_dice();
    Start::new(scn, state, side, &mut dice).plan_marches(marches)
}

/// [`plan_marches`] on the position of `now`, whose `marched` sets it
/// extends. The position the orders leave if they succeed (`then`) is
/// made only when an order is not possible now: most sets never need it.
fn plan_on(
    now: &mut Turn<'_, FixedDice>,
    marches: &[MarchOrder],
) -> Vec<Result<MarchPlan, String>> {
    let mut dice = no_dice();
    let mut dice_then = Some(&mut dice);
    let mut then: Option<Turn<'_, FixedDice>> = None;
    let mut done: Vec<Success> = Vec::new();
    let mut out = Vec::new();
    if marches.is_empty() {
        return Vec::new();
    }
    // Planning changes nothing on `now`: who stands where is read once.
    let occ = Occupancy::of(now);
    for (k, order) in marches.iter().enumerate() {
        let plan = match plan_on_position(now, &occ, order) {
            Ok(p) => Ok(p),
            Err(reason) => {
                if let Some(dice) = dice_then.take() {
                    let start = Turn::new(now.scn, now.state.clone(), now.side, dice);
                    then = Some(replay(start, &marches[..k], &out, &mut done));
                }
                match then.as_mut() {
                    Some(then) => conditional(then, order, &done, reason),
                    None => Err(reason),
                }
            }
        };
        if let Some(then) = then.as_mut() {
            done.push(match &plan {
                Ok(p) => succeed(then, order, p),
                Err(_) => Success::default(),
            });
            mark_marched(then, &plan);
        }
        mark_marched(now, &plan);
        out.push(plan);
    }
    out
}

/// `then` after the orders planned so far (`plans`) all succeed, with
/// what each did in `done`, as if it had followed them from the start.
fn replay<'a>(
    mut then: Turn<'a, FixedDice>,
    orders: &[MarchOrder],
    plans: &[Result<MarchPlan, String>],
    done: &mut Vec<Success>,
) -> Turn<'a, FixedDice> {
    for (order, plan) in orders.iter().zip(plans) {
        done.push(match plan {
            Ok(p) => succeed(&mut then, order, p),
            Err(_) => Success::default(),
        });
        mark_marched(&mut then, plan);
    }
    then
}

/// A planned march's units and leaders march in no later order (8.1).
fn mark_marched(t: &mut Turn<'_, FixedDice>, plan: &Result<MarchPlan, String>) {
    if let Ok(p) = plan {
        t.marched.extend(p.units.iter().chain(&p.river).cloned());
        t.leaders_marched.extend(p.leaders.iter().cloned());
    }
}

/// An order not possible now (`reason`), planned on the position the
/// earlier orders (`done`) leave if they succeed: the plan with the
/// condition it depends on, or `reason` if it is not possible there
/// either.
fn conditional(
    then: &mut Turn<'_, FixedDice>,
    order: &MarchOrder,
    done: &[Success],
    reason: String,
) -> Result<MarchPlan, String> {
    if done.iter().all(|s| s.after.is_none()) {
        return Err(reason);
    }
    let Ok(plan) = plan_one(then, order) else {
        return Err(reason);
    };
    // The order it depends on: the first after whose success (and the
    // earlier ones') it is possible.
    let last = done.iter().rposition(|s| s.after.is_some()).unwrap_or(0);
    let mut on = last;
    for (j, s) in done.iter().enumerate().take(last) {
        let Some(after) = &s.after else { continue };
        let position = std::mem::replace(&mut then.state, after.clone());
        let possible = plan_one(then, order).is_ok();
        then.state = position;
        if possible {
            on = j;
            break;
        }
    }
    Ok(MarchPlan {
        condition: Some(Condition {
            on,
            needs: done[on].describe(then.scn),
            now: reason,
        }),
        ..plan
    })
}

/// Carry out `order` on `then`'s position as if it succeeded: its stack
/// walks its planned route, and at its start and at each hex it wins
/// every attack its order allows (the enemy stacks leave the map here),
/// halting after a won combat unless the order says CONTINUE (8.31).
fn succeed(then: &mut Turn<'_, FixedDice>, order: &MarchOrder, plan: &MarchPlan) -> Success {
    let with_river = order
        .legs
        .iter()
        .any(|l| matches!(l, Leg::River(_) | Leg::Rail(_)));
    let Ok(mut m) = select(then, &order.units, with_river) else {
        return Success::default();
    };
    let mut out = Success::default();
    let start = m.hex;
    'walk: for (leg, written) in plan.legs.iter().zip(&order.legs) {
        if drive_off(then, order, &m, &mut out.driven) && !order.continue_after_win {
            break;
        }
        let by_water = matches!(written, Leg::River(_) | Leg::Rail(_));
        for &h in &leg.path {
            step(then, &mut m, h, by_water, order);
            if drive_off(then, order, &m, &mut out.driven) && !order.continue_after_win {
                break 'walk;
            }
        }
    }
    if plan.legs.is_empty() {
        drive_off(then, order, &m, &mut out.driven);
    }
    if m.hex != start {
        out.reached = Some(m.hex);
    }
    if !out.driven.is_empty() || out.reached.is_some() {
        out.after = Some(then.state.clone());
    }
    out
}

/// Win every attack the order allows from where the stack stands: the
/// attacked enemy stacks leave the position. Returns whether it attacked.
fn drive_off(
    then: &mut Turn<'_, FixedDice>,
    order: &MarchOrder,
    m: &super::march::Marching,
    driven: &mut Vec<Hex>,
) -> bool {
    let (hexes, _) = targets(then, order, m);
    let enemy = then.side.enemy();
    for &h in &hexes {
        for u in then.state.units.iter_mut() {
            if u.side == enemy && u.hex() == Some(h) {
                u.status = Status::Eliminated;
            }
        }
        for l in then.state.leaders.iter_mut() {
            if l.side == enemy && l.hex == Some(h) {
                l.hex = None;
            }
        }
        if !driven.contains(&h) {
            driven.push(h);
        }
    }
    !hexes.is_empty()
}

/// Move the marching stack one hex on `then`'s position, leaving its
/// drop-offs there; river units go with it only by rail or river.
fn step(
    then: &mut Turn<'_, FixedDice>,
    m: &mut super::march::Marching,
    to: Hex,
    by_water: bool,
    order: &MarchOrder,
) {
    let from = m.hex;
    for d in order.drop_offs.iter().filter(|d| d.at == from) {
        m.units
            .retain(|&u| !d.units.contains(&then.state.units[u].id));
        m.leaders.retain(|l| !d.leaders.contains(l));
    }
    let movers: Vec<usize> = if by_water {
        m.units.iter().chain(&m.river).copied().collect()
    } else {
        m.units.clone()
    };
    for u in movers {
        if then.state.units[u].hex().is_some() {
            then.state.units[u].status = Status::OnMap(to);
        }
    }
    for l in then.state.leaders.iter_mut() {
        if m.leaders.contains(&l.name) {
            l.hex = Some(to);
        }
    }
    m.hex = to;
}

/// The leaders named in an order's drop-offs.
fn d_leaders(order: &MarchOrder) -> Vec<String> {
    order
        .drop_offs
        .iter()
        .flat_map(|d| d.leaders.iter().cloned())
        .collect()
}

/// Whether an enemy unit, the fleet aside (it holds no hex, 8.25),
/// stands next to `hex`: [`Turn::only_river_units_adjacent`] can hold
/// only then, and this is one pass over the counters where that is
/// several.
fn enemy_next_to(t: &Turn<'_, FixedDice>, hex: Hex) -> bool {
    let enemy = t.side.enemy();
    let around = hex.neighbours();
    t.on_map().any(|(_, u, h, ty)| {
        u.side == enemy
            && around.contains(&h)
            && ty.is_none_or(|ty| ty.kind != crate::scenario::UnitKind::Fleet)
    })
}

/// Plan `order` on `t`'s position as it stands.
fn plan_one(t: &Turn<'_, FixedDice>, order: &MarchOrder) -> Result<MarchPlan, String> {
    plan_on_position(t, &Occupancy::of(t), order)
}

/// [`plan_one`] with who stands where in `t`'s position (`occ`) known.
fn plan_on_position(
    t: &Turn<'_, FixedDice>,
    occ: &Occupancy,
    order: &MarchOrder,
) -> Result<MarchPlan, String> {
    if order.legs.is_empty() {
        return Err("no march given".into());
    }
    let groups = group_legs(&order.legs);
    if groups.len() > 3 {
        return Err(format!(
            "{} marches ordered; a stack marches at most three times a turn (5.2 III)",
            groups.len()
        ));
    }
    let march_of = |k: usize| groups.iter().position(|g| g.contains(&k)).unwrap_or(k);
    let mut warnings = Vec::new();
    if let Selection::Units { units, .. } = &order.units {
        for id in units {
            if t.marched.contains(id) {
                warnings.push(format!(
                    "{id} already marches in an earlier order and stays out of this one (8.1)"
                ));
            }
        }
    }
    let with_river = order
        .legs
        .iter()
        .any(|l| matches!(l, Leg::River(_) | Leg::Rail(_)));
    let m = select(t, &order.units, with_river)?;
    // 9.12: a leader alone may not leave a besieged hex (the march phase
    // gives the same reason).
    if let Some(reason) = super::march::leader_alone_besieged(t, &m) {
        return Err(reason);
    }
    let leader_alone = m.units.is_empty() && m.river.is_empty();
    // Who stands where tells a siege as `Turn::is_besieged` does (9.12).
    if occ.besieged(m.hex) {
        if order.on_contact == OnContact::Avoid {
            return Err(format!(
                "{} is under siege: its units may leave only by attacking the besiegers (9.12); add ATTACK ANY",
                t.scn.map.describe(m.hex)
            ));
        }
        warnings.push(format!(
            "{} is under siege: the stack leaves, by any way, only if its attacks drive every adjacent enemy away; otherwise it stays (9.12){}",
            t.scn.map.describe(m.hex),
            if order.continue_after_win {
                ""
            } else {
                ". After a won combat it halts unless the order says CONTINUE (8.31)"
            }
        ));
    } else if enemy_next_to(t, m.hex) && t.only_river_units_adjacent(m.hex, t.side) {
        warnings.push(format!(
            "{} is not under siege: only enemy boats or gunboats are next to it, and land units may not attack them (ruling on 9.12 with 6.1)",
            t.scn.map.describe(m.hex)
        ));
    }
    // 6.1: "Land units may not attack enemy boats or gunboats, friendly
    // gunboats may, boats never attack."
    if let OnContact::AttackHexes(hs) = &order.on_contact {
        let has_gunboats = m.river.iter().chain(&m.units).any(|&u| {
            t.type_at(u)
                .is_some_and(|ty| ty.kind == crate::scenario::UnitKind::Gunboat)
        });
        for h in hs {
            let enemy = t.units_at(*h, t.side.enemy());
            let river_only = !enemy.is_empty()
                && enemy
                    .iter()
                    .all(|&u| t.type_at(u).is_some_and(|ty| ty.kind.is_river_unit()));
            if river_only && !has_gunboats {
                return Err(format!(
                    "ATTACK {}: only enemy boats or gunboats are there; land units may not attack them, only gunboats may (6.1)",
                    t.scn.map.describe(*h)
                ));
            }
        }
    }
    let ids: Vec<UnitId> = m
        .units
        .iter()
        .map(|&u| t.state.units[u].id.clone())
        .collect();
    let full = if leader_alone {
        m.leaders
            .first()
            .and_then(|n| t.scn.units.leader(n))
            .map_or(0, |l| l.movement)
    } else {
        allowance(t, &m)
    };
    let map = &t.scn.map;
    let mut at = m.hex;
    let mut legs = Vec::new();
    let mut rivers = 0;
    for (k, leg) in order.legs.iter().enumerate() {
        let n = k + 1;
        let mut notes = Vec::new();
        let plan = match leg {
            Leg::To(_) | Leg::Path(_) => {
                let path = match leg {
                    Leg::Path(p) => {
                        if p.is_empty() {
                            return Err(format!("march {n}: an empty path"));
                        }
                        let p = super::march::path_from(p, at);
                        if p.is_empty() && k == 0 {
                            return Err(format!(
                                "march {n}: the stack is already at {}",
                                map.describe(at)
                            ));
                        }
                        p
                    }
                    Leg::To(dest) => {
                        if *dest == at && k == 0 {
                            return Err(format!(
                                "march {n}: the stack is already at {}",
                                map.describe(at)
                            ));
                        }
                        let found = if *dest == at {
                            Some(Vec::new())
                        } else if leader_alone {
                            crate::geo::route::cheapest_route(map, at, *dest, &|a, b| {
                                enter_cost(t, occ, a, b).ok().map(|_| 1)
                            })
                            .map(|r| r.hexes.into_iter().skip(1).collect())
                        } else {
                            route_on(t, occ, at, *dest)
                        };
                        found.ok_or_else(|| {
                            format!(
                                "march {n}: no way by land from {} to {} (sea, the enemy or a scenario rule bars every route)",
                                map.describe(at),
                                map.describe(*dest)
                            )
                        })?
                    }
                    _ => Vec::new(),
                };
                let mut cost = 0;
                let mut here = at;
                for &h in &path {
                    let c = enter_cost(t, occ, here, h)
                        .map_err(|b| format!("march {n}: {}", b.reason(map, occ, here, h)))?;
                    // A leader alone moves 8 hexes, whatever they cost (7.0).
                    cost += if leader_alone { 1 } else { c };
                    here = h;
                }
                let already_there = k > 0
                    && match leg {
                        Leg::To(dest) => *dest == at,
                        Leg::Path(_) => path.is_empty(),
                        _ => false,
                    };
                if already_there {
                    notes.push(format!(
                        "march {n}: if march {k} gets to {}, this march has nothing left to do; it carries the stack on only if march {k} stops short",
                        map.describe(at)
                    ));
                } else if let Leg::To(dest) = leg
                    && here != *dest
                {
                    notes.push(format!(
                        "{} is held by the enemy or under siege: the march ends next to it",
                        map.describe(*dest)
                    ));
                }
                if cost > full && leader_alone {
                    notes.push(format!(
                        "{cost} hexes and a leader moves {full} (7.0): he cannot reach it this march"
                    ));
                } else if cost > full {
                    notes.push(format!(
                        "costs {cost} movement points and a full march gives {full}: the stack stops on the way"
                    ));
                }
                LegPlan {
                    end: here,
                    path,
                    cost,
                    rolls: groups.iter().any(|g| g[0] == k),
                    river_way: None,
                    notes,
                    march: march_of(k),
                    by_fleet: matches!(leg, Leg::Fleet(_)),
                    already_there,
                }
            }
            Leg::Rail(dest) => {
                let path = rail::rail_path(t, at, *dest).ok_or_else(|| {
                    format!(
                        "march {n}: no built railway from {} to {} clear of the enemy (8.22)",
                        map.describe(at),
                        map.describe(*dest)
                    )
                })?;
                LegPlan {
                    end: *dest,
                    path,
                    cost: 0,
                    rolls: false,
                    river_way: None,
                    notes,
                    march: march_of(k),
                    by_fleet: matches!(leg, Leg::Fleet(_)),
                    already_there: false,
                }
            }
            Leg::River(dest) => {
                rivers += 1;
                if rivers > 1 {
                    return Err(format!(
                        "march {n}: only one march a turn may be by river (8.23)"
                    ));
                }
                if !map.is_riverside(at) || !map.is_riverside(*dest) {
                    return Err(format!(
                        "march {n}: a river march runs between hexes next to a river (8.23); {} is not",
                        map.describe(if map.is_riverside(at) { *dest } else { at })
                    ));
                }
                if occ.besieged(*dest) && *dest != at {
                    return Err(format!(
                        "march {n}: {} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
                        map.describe(*dest)
                    ));
                }
                let (way, path) = if k == 0 {
                    let carriers = river::carriers(t, at, &m.units, &m.river)
                        .map_err(|e| format!("march {n}: {e}"))?;
                    river::preview(t, at, &carriers, *dest)
                        .map_err(|e| format!("march {n}: {e}"))?
                } else if order.legs[..k]
                    .iter()
                    .any(|l| matches!(l, Leg::To(_) | Leg::Path(_) | Leg::Fleet(_)))
                {
                    // 8.23: "To move by boat a unit or stack must begin its
                    // march phase stacked with sufficient boat or gunboat
                    // units"; boats do not march by land (6.0), so after a
                    // land march none are with the stack.
                    return Err(format!(
                        "march {n}: by river after a march by land: the boats stay where the stack began, and a stack boards only boats it began its march phase with (6.0, 8.23); put the river march first"
                    ));
                } else {
                    // After a rail march the boats' place is not known
                    // yet: only the river itself is checked.
                    (None, vec![*dest])
                };
                if *dest == at {
                    notes.push(
                        "a river march to the stack's own hex: its gunboats attack river units next to it if ordered (6.1)"
                            .into(),
                    );
                }
                LegPlan {
                    end: *dest,
                    path,
                    cost: 0,
                    rolls: false,
                    river_way: way,
                    notes,
                    march: march_of(k),
                    by_fleet: matches!(leg, Leg::Fleet(_)),
                    already_there: false,
                }
            }
            Leg::Fleet(dest) => {
                if t.side != Side::Egyptian {
                    return Err(format!(
                        "march {n}: only Egyptian and British units sail with the fleet (8.25)"
                    ));
                }
                let zone = rail::fleet_zone(t);
                if !zone.contains(&at) || !zone.contains(dest) {
                    return Err(format!(
                        "march {n}: the fleet sails only between Souakim, Trinkitat and the hexes next to them (8.25)"
                    ));
                }
                if k == 0 && rail::fleet_at(t, at).is_none() {
                    return Err(format!(
                        "march {n}: the British fleet is not at {} (8.25)",
                        map.describe(at)
                    ));
                }
                if occ.besieged(*dest) {
                    return Err(format!(
                        "march {n}: {} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
                        map.describe(*dest)
                    ));
                }
                LegPlan {
                    end: *dest,
                    path: vec![*dest],
                    cost: 0,
                    rolls: groups.iter().any(|g| g[0] == k),
                    river_way: None,
                    notes,
                    march: march_of(k),
                    by_fleet: matches!(leg, Leg::Fleet(_)),
                    already_there: false,
                }
            }
        };
        at = plan.end;
        legs.push(plan);
    }
    if leader_alone && !t.occupied_by(at, t.side) {
        return Err(format!(
            "a leader may not stand alone: no friendly stack at {} (7.0)",
            map.describe(at)
        ));
    }
    let in_stack: BTreeSet<&UnitId> = ids.iter().collect();
    for d in &order.drop_offs {
        for u in &d.units {
            if !in_stack.contains(u) {
                warnings.push(format!(
                    "{u} is not in this stack and cannot be dropped off"
                ));
            }
        }
        let passed = d.at == m.hex || legs.iter().any(|l| l.path.contains(&d.at));
        if !passed {
            warnings.push(format!(
                "the route does not pass {}: nothing is dropped off there",
                map.describe(d.at)
            ));
        }
    }
    for l in &d_leaders(order) {
        if !m.leaders.iter().any(|x| x == l) {
            warnings.push(format!(
                "{l} does not march with this stack and cannot be dropped off"
            ));
        }
    }
    for u in &order.lose_first {
        if !in_stack.contains(u) {
            warnings.push(format!(
                "{u} is not in this stack: the loss order ignores it"
            ));
        }
    }
    if let Some(l) = &order.leader_bonus {
        let name = t
            .scn
            .units
            .leader(l)
            .map_or(l.as_str(), |d| d.name.as_str());
        let c_in_c = m
            .leaders
            .iter()
            .filter_map(|x| t.scn.units.leader(x))
            .find(|x| x.c_in_c && x.name != name);
        if !m.leaders.iter().any(|x| x == name) {
            warnings.push(format!(
                "{name} does not march with this stack and cannot help its march rolls (7.1)"
            ));
        } else if let Some(c) = c_in_c {
            warnings.push(format!(
                "{} is a C-in-C and his values are always used while he is in the stack (7.0): LED BY {name} has no effect",
                c.name
            ));
        }
    }
    let river = m
        .river
        .iter()
        .map(|&u| t.state.units[u].id.clone())
        .collect();
    Ok(MarchPlan {
        from: m.hex,
        units: ids,
        river,
        leaders: m.leaders,
        allowance: full,
        legs,
        warnings,
        condition: None,
        arriving: Vec::new(),
        joining: Vec::new(),
    })
}
