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

/// [`plan_one`] with who stands where in `t`'s position (`occ`) known:
/// the order's shape, the stack it selects, whether that stack may leave
/// and attack as ordered, each leg, then what of the order will be
/// ignored.
fn plan_on_position(
    t: &Turn<'_, FixedDice>,
    occ: &Occupancy,
    order: &MarchOrder,
) -> Result<MarchPlan, String> {
    let groups = march_groups(order)?;
    let mut warnings = marched_before(t, order);
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
    leaving(t, occ, order, &m, &mut warnings)?;
    attacks_allowed(t, order, &m)?;
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
    let stack = Stack {
        t,
        occ,
        order,
        m: &m,
        groups,
        leader_alone,
        full,
    };
    let legs = stack.legs()?;
    let at = legs.last().map_or(m.hex, |l| l.end);
    if leader_alone && !t.occupied_by(at, t.side) {
        return Err(format!(
            "a leader may not stand alone: no friendly stack at {} (7.0)",
            t.scn.map.describe(at)
        ));
    }
    ignored(t, order, &m, &ids, &legs, &mut warnings);
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

/// The order's legs grouped into the stack's marches (5.2 III: at most
/// three a turn).
fn march_groups(order: &MarchOrder) -> Result<Vec<Vec<usize>>, String> {
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
    Ok(groups)
}

/// A warning for each unit named that an earlier order already marches
/// (8.1).
fn marched_before(t: &Turn<'_, FixedDice>, order: &MarchOrder) -> Vec<String> {
    let Selection::Units { units, .. } = &order.units else {
        return Vec::new();
    };
    units
        .iter()
        .filter(|id| t.marched.contains(*id))
        .map(|id| {
            format!("{id} already marches in an earlier order and stays out of this one (8.1)")
        })
        .collect()
}

/// Whether the stack may leave its hex: a besieged stack only by
/// attacking the besiegers (9.12); enemy boats next to it besiege no one
/// (ruling on 9.12 with 6.1).
fn leaving(
    t: &Turn<'_, FixedDice>,
    occ: &Occupancy,
    order: &MarchOrder,
    m: &super::march::Marching,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
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
    Ok(())
}

/// 6.1: "Land units may not attack enemy boats or gunboats, friendly
/// gunboats may, boats never attack."
fn attacks_allowed(
    t: &Turn<'_, FixedDice>,
    order: &MarchOrder,
    m: &super::march::Marching,
) -> Result<(), String> {
    let OnContact::AttackHexes(hs) = &order.on_contact else {
        return Ok(());
    };
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
    Ok(())
}

/// The stack an order marches, as its legs are planned one after another.
struct Stack<'s, 't> {
    t: &'s Turn<'t, FixedDice>,
    occ: &'s Occupancy,
    order: &'s MarchOrder,
    m: &'s super::march::Marching,
    /// The order's legs grouped into marches ([`group_legs`]).
    groups: Vec<Vec<usize>>,
    /// A leader with no unit (7.0).
    leader_alone: bool,
    /// Movement points of a full march.
    full: u32,
}

impl Stack<'_, '_> {
    /// Each leg of the order, from where the one before it ends.
    fn legs(&self) -> Result<Vec<LegPlan>, String> {
        let mut at = self.m.hex;
        let mut legs = Vec::new();
        let mut rivers = 0;
        for (k, leg) in self.order.legs.iter().enumerate() {
            let plan = match leg {
                Leg::To(_) | Leg::Path(_) => self.land_leg(k, leg, at)?,
                Leg::Rail(dest) => self.rail_leg(k, at, *dest)?,
                Leg::River(dest) => {
                    rivers += 1;
                    if rivers > 1 {
                        return Err(format!(
                            "march {}: only one march a turn may be by river (8.23)",
                            k + 1
                        ));
                    }
                    self.river_leg(k, at, *dest)?
                }
                Leg::Fleet(dest) => self.fleet_leg(k, at, *dest)?,
            };
            at = plan.end;
            legs.push(plan);
        }
        Ok(legs)
    }

    /// Which of the stack's marches leg `k` belongs to.
    fn march_of(&self, k: usize) -> usize {
        self.groups.iter().position(|g| g.contains(&k)).unwrap_or(k)
    }

    /// Whether leg `k` begins a march, which rolls on the march table.
    fn rolls(&self, k: usize) -> bool {
        self.groups.iter().any(|g| g[0] == k)
    }

    /// A leg that moves no movement points: by rail, river or fleet.
    fn water_leg(&self, k: usize, path: Vec<Hex>, end: Hex, notes: Vec<String>) -> LegPlan {
        LegPlan {
            end,
            path,
            cost: 0,
            rolls: false,
            river_way: None,
            notes,
            march: self.march_of(k),
            by_fleet: false,
            already_there: false,
        }
    }

    /// A march by land (8.21), to a hex or along a path, from `at`.
    fn land_leg(&self, k: usize, leg: &Leg, at: Hex) -> Result<LegPlan, String> {
        let (t, occ, map) = (self.t, self.occ, &self.t.scn.map);
        let n = k + 1;
        let path = self.land_path(k, leg, at)?;
        let mut cost = 0;
        let mut here = at;
        for &h in &path {
            let c = enter_cost(t, occ, here, h)
                .map_err(|b| format!("march {n}: {}", b.reason(map, occ, here, h)))?;
            // A leader alone moves 8 hexes, whatever they cost (7.0).
            cost += if self.leader_alone { 1 } else { c };
            here = h;
        }
        let already_there = k > 0
            && match leg {
                Leg::To(dest) => *dest == at,
                Leg::Path(_) => path.is_empty(),
                _ => false,
            };
        let mut notes = Vec::new();
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
        let full = self.full;
        if cost > full && self.leader_alone {
            notes.push(format!(
                "{cost} hexes and a leader moves {full} (7.0): he cannot reach it this march"
            ));
        } else if cost > full {
            notes.push(format!(
                "costs {cost} movement points and a full march gives {full}: the stack stops on the way"
            ));
        }
        Ok(LegPlan {
            end: here,
            path,
            cost,
            rolls: self.rolls(k),
            river_way: None,
            notes,
            march: self.march_of(k),
            by_fleet: false,
            already_there,
        })
    }

    /// The hexes a land leg enters: its path as written, or the cheapest
    /// route to its hex (a leader alone counts hexes, 7.0).
    fn land_path(&self, k: usize, leg: &Leg, at: Hex) -> Result<Vec<Hex>, String> {
        let (t, occ, map) = (self.t, self.occ, &self.t.scn.map);
        let n = k + 1;
        let already_at = || format!("march {n}: the stack is already at {}", map.describe(at));
        match leg {
            Leg::Path(p) => {
                if p.is_empty() {
                    return Err(format!("march {n}: an empty path"));
                }
                let p = super::march::path_from(p, at);
                if p.is_empty() && k == 0 {
                    return Err(already_at());
                }
                Ok(p)
            }
            Leg::To(dest) => {
                if *dest == at && k == 0 {
                    return Err(already_at());
                }
                let found = if *dest == at {
                    Some(Vec::new())
                } else if self.leader_alone {
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
                })
            }
            _ => Ok(Vec::new()),
        }
    }

    /// A march by railway (8.22) from `at` to `dest`.
    fn rail_leg(&self, k: usize, at: Hex, dest: Hex) -> Result<LegPlan, String> {
        let map = &self.t.scn.map;
        let path = rail::rail_path(self.t, at, dest).ok_or_else(|| {
            format!(
                "march {}: no built railway from {} to {} clear of the enemy (8.22)",
                k + 1,
                map.describe(at),
                map.describe(dest)
            )
        })?;
        Ok(self.water_leg(k, path, dest, Vec::new()))
    }

    /// A march by river (8.23) from `at` to `dest`, the stack's one river
    /// march of the turn.
    fn river_leg(&self, k: usize, at: Hex, dest: Hex) -> Result<LegPlan, String> {
        let (t, m, map) = (self.t, self.m, &self.t.scn.map);
        let n = k + 1;
        if !map.is_riverside(at) || !map.is_riverside(dest) {
            return Err(format!(
                "march {n}: a river march runs between hexes next to a river (8.23); {} is not",
                map.describe(if map.is_riverside(at) { dest } else { at })
            ));
        }
        // House rule `steamers-run-the-siege`: supply units on gunboats
        // may end the stack's first river march in a besieged hex.
        let runs = || {
            k == 0
                && river::carriers(t, at, &m.units, &m.river)
                    .is_ok_and(|c| river::runs_the_siege(t, &m.units, &c))
        };
        if self.occ.besieged(dest) && dest != at && !runs() {
            return Err(format!(
                "march {n}: {} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
                map.describe(dest)
            ));
        }
        let (way, path) = if k == 0 {
            let carriers = river::carriers(t, at, &m.units, &m.river)
                .map_err(|e| format!("march {n}: {e}"))?;
            river::preview(t, at, &carriers, dest).map_err(|e| format!("march {n}: {e}"))?
        } else if self.order.legs[..k]
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
            (None, vec![dest])
        };
        let mut notes = Vec::new();
        if dest == at {
            notes.push(
                "a river march to the stack's own hex: its gunboats attack river units next to it if ordered (6.1)"
                    .into(),
            );
        }
        Ok(LegPlan {
            river_way: way,
            ..self.water_leg(k, path, dest, notes)
        })
    }

    /// A move with the British fleet (8.25) from `at` to `dest`.
    fn fleet_leg(&self, k: usize, at: Hex, dest: Hex) -> Result<LegPlan, String> {
        let (t, map) = (self.t, &self.t.scn.map);
        let n = k + 1;
        if t.side != Side::Egyptian {
            return Err(format!(
                "march {n}: only Egyptian and British units sail with the fleet (8.25)"
            ));
        }
        let zone = rail::fleet_zone(t);
        if !zone.contains(&at) || !zone.contains(&dest) {
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
        if self.occ.besieged(dest) {
            return Err(format!(
                "march {n}: {} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
                map.describe(dest)
            ));
        }
        Ok(LegPlan {
            rolls: self.rolls(k),
            by_fleet: true,
            ..self.water_leg(k, vec![dest], dest, Vec::new())
        })
    }
}

/// Warnings for the parts of an order the engine will ignore: drop-offs
/// of units or leaders not in the stack or off its route, a loss order
/// naming units not in it, a leader's bonus it cannot have (7.0, 7.1).
fn ignored(
    t: &Turn<'_, FixedDice>,
    order: &MarchOrder,
    m: &super::march::Marching,
    ids: &[UnitId],
    legs: &[LegPlan],
    warnings: &mut Vec<String>,
) {
    let map = &t.scn.map;
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
        leader_bonus_warning(t, m, l, warnings);
    }
}

/// 7.1: LED BY a leader who does not march with the stack, or beside a
/// C-in-C whose values are always used (7.0), has no effect.
fn leader_bonus_warning(
    t: &Turn<'_, FixedDice>,
    m: &super::march::Marching,
    l: &str,
    warnings: &mut Vec<String>,
) {
    let name = t.scn.units.leader(l).map_or(l, |d| d.name.as_str());
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
