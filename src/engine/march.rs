//! The march phase (rules 5.2 III, 7.1, 8.1-8.3, 8.31, 9.12).
//!
//! Stacks march one at a time in the order given; each finishes before the
//! next begins. A stack makes up to three marches; a land march rolls on the
//! march table (No March ends its marching), then moves up to the movement
//! allowance of its slowest unit, paying rule 8.21's costs.

use super::Turn;
use super::ambush;
use super::combat::{self, Outcome};
use super::events::{Decision, Event};
use super::losses;
use super::modifiers::{self, RollContext};
pub use super::movement::barred_by_scenario;
use super::movement::{Occupancy, allowance_of, enter_cost, route_on};
use super::orders::{Leg, MarchOrder, OnContact, Selection};
use super::rail;
use crate::dice::DieSource;
use crate::geo::Hex;
use crate::geo::route::cheapest_route;
use crate::scenario::tables::MarchResult;
use crate::scenario::{Side, UnitKind};
use crate::state::{Status, UnitId};

/// Carry out every march order, in order.
pub fn march_phase<S: DieSource>(t: &mut Turn<'_, S>, orders: &super::orders::Orders) {
    for (i, order) in orders.marches.iter().enumerate() {
        // The game ended with an instant victory (4.1), or the turn stopped
        // at a combat to be resolved elsewhere: nothing more moves.
        if t.state.result.is_some() || t.halted {
            break;
        }
        if let Err(reason) = march(t, i, order) {
            t.events.push(Event::OrderSetAside { order: i, reason });
        }
    }
}

/// The marching stack: unit indices and leader names, and where it is.
pub(super) struct Marching {
    pub(super) hex: Hex,
    pub(super) units: Vec<usize>,
    pub(super) leaders: Vec<String>,
    /// Hexes entered so far, the start first (for a loser's retreat, 9.8).
    route: Vec<Hex>,
    /// Set when a combat ends the stack's marching for the turn.
    done: bool,
    /// The stack has made its one river march of the turn (8.23).
    by_river: bool,
    /// Boats and gunboats marching with the stack: they ride its rail and
    /// river marches and stay behind when it marches by land (6.0, 8.22,
    /// 8.23).
    pub(super) river: Vec<usize>,
    /// Hexes this stack attacked, and named hexes whose attack the log
    /// has already said was dropped (6.1), for the log.
    attacked: Vec<Hex>,
    dropped: Vec<Hex>,
    /// Hexes where units were dropped off (8.3).
    dropped_at: Vec<Hex>,
    /// An ambush roll has been made in this march (once a march at most;
    /// the optional ambush rule).
    ambush_tried: bool,
    /// The march table gave No March: the stack neither moves nor attacks
    /// again this turn (8.31).
    no_march: bool,
}

impl Marching {
    /// The stack in `hex`, before it has moved.
    fn new(hex: Hex, units: Vec<usize>, leaders: Vec<String>, river: Vec<usize>) -> Marching {
        Marching {
            hex,
            units,
            leaders,
            route: vec![hex],
            done: false,
            by_river: false,
            river,
            attacked: Vec::new(),
            dropped: Vec::new(),
            dropped_at: Vec::new(),
            ambush_tried: false,
            no_march: false,
        }
    }
}

/// The stack an order names. River units in it march with it only if the
/// order has a rail or river march (`with_river`); otherwise they stay.
pub(super) fn select<S: DieSource>(
    t: &Turn<'_, S>,
    sel: &Selection,
    with_river: bool,
) -> Result<Marching, String> {
    let side = t.side;
    let (hex, mut units, mut leaders) = match sel {
        Selection::Stack(hex) => stack_in(t, *hex)?,
        Selection::Leader(name) => stack_of_leader(t, name)?,
        Selection::Units {
            units: ids,
            leaders,
        } => units_named(t, ids, leaders)?,
    };
    let before = units.len();
    units.retain(|&i| !t.marched.contains(&t.state.units[i].id));
    let after_marched = units.len();
    leaders.retain(|l| !t.leaders_marched.contains(l));
    if before == 0 && !leaders.is_empty() {
        // A leader marching alone to join another stack (7.0).
        return Ok(Marching::new(hex, units, leaders, Vec::new()));
    }
    if units.is_empty() {
        return Err(if before > 0 {
            "these units have already marched or were dropped off this turn (8.1, 8.3)".into()
        } else {
            "no units to march".into()
        });
    }
    // Boats and gunboats move by river or rail, the fleet with a fleet
    // march; otherwise they stay where they are.
    let is_river = |i: usize| t.type_at(i).is_some_and(|ty| ty.kind.is_river_unit());
    let river: Vec<usize> = if with_river {
        units.iter().copied().filter(|&i| is_river(i)).collect()
    } else {
        Vec::new()
    };
    units.retain(|&i| {
        t.type_at(i)
            .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
    });
    if units.is_empty() && river.is_empty() {
        return Err(if before > after_marched {
            "these units have already marched or were dropped off this turn (8.1, 8.3)".into()
        } else {
            "boats and gunboats move only by river or rail, and the fleet only with a fleet march (8.22, 8.23, 8.25)"
                .into()
        });
    }
    // Leaders never stand alone: if no unit stays behind, the leaders in
    // the hex go with the stack (default policy).
    let staying = t
        .units_at(hex, side)
        .into_iter()
        .any(|i| !units.contains(&i) && !river.contains(&i));
    if !staying {
        for l in t.leaders_at(hex, side) {
            if !leaders.contains(&l) && !t.leaders_marched.contains(&l) {
                leaders.push(l);
            }
        }
    }
    Ok(Marching::new(hex, units, leaders, river))
}

/// A hex, the units of a stack and its leaders, as an order names them.
type Named = (Hex, Vec<usize>, Vec<String>);

/// The stack in `hex` ("STACK 1942"): those who stood there when the
/// turn began.
fn stack_in<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Result<Named, String> {
    let units = stood_at_start(t, hex);
    let leaders = stood_leaders(t, hex);
    if units.is_empty() {
        let side = t.side;
        return Err(left_earlier(t, hex)
            .unwrap_or_else(|| format!("no {side} units at {}", t.scn.map.describe(hex))));
    }
    Ok((hex, units, leaders))
}

/// The player's leader called `name`, or why not.
fn own_leader<'a, S: DieSource>(
    t: &Turn<'a, S>,
    name: &str,
) -> Result<&'a crate::scenario::Leader, String> {
    let def = t
        .scn
        .units
        .leader(name)
        .ok_or_else(|| format!("no leader called {name}"))?;
    if def.side != t.side {
        return Err(format!("{} is not {} leader", def.name, t.side.a()));
    }
    Ok(def)
}

/// The stack a leader is with ("LEADER Gordon"), the leader among them.
fn stack_of_leader<S: DieSource>(t: &Turn<'_, S>, name: &str) -> Result<Named, String> {
    let def = own_leader(t, name)?;
    let l = t
        .state
        .leaders
        .iter()
        .find(|l| l.name == def.name)
        .ok_or_else(|| format!("{} is not in play", def.name))?;
    let hex = l
        .hex
        .filter(|_| !l.removed)
        .ok_or_else(|| format!("{} is not on the map", def.name))?;
    let units = stood_at_start(t, hex);
    if units.is_empty() {
        return Err(
            left_earlier(t, hex).unwrap_or_else(|| format!("{} has no units with him", def.name))
        );
    }
    let mut leaders = stood_leaders(t, hex);
    if !leaders.contains(&def.name) {
        leaders.push(def.name.clone());
    }
    Ok((hex, units, leaders))
}

/// Units and leaders named one by one, all in one hex; with no units, a
/// leader marching alone (7.0).
fn units_named<S: DieSource>(
    t: &Turn<'_, S>,
    ids: &[UnitId],
    leaders: &[String],
) -> Result<Named, String> {
    let side = t.side;
    let mut idx = Vec::new();
    let mut hex = None;
    for id in ids {
        let i = t
            .state
            .units
            .iter()
            .position(|u| u.id == *id)
            .ok_or_else(|| format!("no unit {id}"))?;
        let u = &t.state.units[i];
        if u.side != side {
            return Err(format!("{id} is not {} unit", side.a()));
        }
        let h = u.hex().ok_or_else(|| format!("{id} is not on the map"))?;
        if hex.is_some_and(|x| x != h) {
            return Err(format!(
                "{id} is not in the same hex as the other units named"
            ));
        }
        hex = Some(h);
        idx.push(i);
    }
    let hex = match hex {
        Some(h) => h,
        None => {
            // No units: a leader marching alone (7.0).
            let first = leaders.first().ok_or("no units named")?;
            let def = own_leader(t, first)?;
            t.state
                .leaders
                .iter()
                .find(|l| l.name == def.name && !l.removed)
                .and_then(|l| l.hex)
                .ok_or_else(|| format!("{} is not on the map", def.name))?
        }
    };
    let here = t.leaders_at(hex, side);
    let mut ls = Vec::new();
    for l in leaders {
        let def = t
            .scn
            .units
            .leader(l)
            .ok_or_else(|| format!("no leader called {l}"))?;
        if !here.contains(&def.name) {
            return Err(format!(
                "{} is not at {}",
                def.name,
                t.scn.map.describe(hex)
            ));
        }
        ls.push(def.name.clone());
    }
    Ok((hex, idx, ls))
}

/// Why a stack that stood in `hex` when the turn began has no unit left
/// there, if it left the map earlier this turn (the Mahdist arrival roll,
/// a random event).
fn left_earlier<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Option<String> {
    let were = t.state.units.iter().enumerate().any(|(k, u)| {
        u.side == t.side && t.at_start.get(k).copied().flatten() == Some(hex) && u.hex().is_none()
    });
    were.then(|| {
        format!(
            "the units at {} left the map earlier this turn (the Mahdist arrival roll or a random event)",
            t.scn.map.describe(hex)
        )
    })
}

/// The player's units in `hex` that stood there when the player turn
/// began. Rule 8.3: "The marching stack may drop off units but may not
/// pick up units"; a stack or leader order moves the stack the player saw
/// when writing it, and the receipt listed. Units that arrived since (in
/// the reinforcement phase, or by an event) are not part of it; they march
/// by an order of their own (ruling, docs/rules.md 8.3).
/// Only when no unit of the side stood there when the turn began (the hex
/// was empty) does the order move the units there now: a programmed
/// player's order for a hex where newcomers landed.
fn stood_at_start<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Vec<usize> {
    let stood = |k: usize| t.at_start.get(k).copied().flatten() == Some(hex);
    let now = t.units_at(hex, t.side);
    if anyone_stood(t, hex) {
        now.into_iter().filter(|&u| stood(u)).collect()
    } else {
        now
    }
}

/// Whether a unit of the player's stood in `hex` when the player turn
/// began.
fn anyone_stood<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> bool {
    t.state
        .units
        .iter()
        .enumerate()
        .any(|(k, u)| u.side == t.side && t.at_start.get(k).copied().flatten() == Some(hex))
}

/// The player's leaders in `hex` that stood there when the player turn
/// began, as [`stood_at_start`] for units. Rule 8.3: "The marching stack
/// may drop off units but may not pick up units": a leader who arrived
/// this turn (a reinforcement such as Wolseley or Graham) stays where he
/// landed, with the units he came with; only if no unit is left with him
/// does he go with the stack, since a leader never stands alone (7.0).
/// When no unit stood in the hex when the turn began, the leaders there
/// now.
fn stood_leaders<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Vec<String> {
    let now = t.leaders_at(hex, t.side);
    if !anyone_stood(t, hex) {
        return now;
    }
    now.into_iter()
        .filter(|l| t.leaders_at_start.get(l) == Some(&hex))
        .collect()
}

/// Whether `name` stood in `hex` when the player turn began.
fn leader_stood<S: DieSource>(t: &Turn<'_, S>, name: &str, hex: Hex) -> bool {
    t.leaders_at_start.get(name) == Some(&hex)
}

/// Rule 7.0: "Leaders do not count for stacking and move 8 hexes." A
/// leader alone moves up to 8 hexes a march, whatever the terrain (hexes,
/// not movement points), after a march roll like any stack, and only to a
/// hex where a friendly stack stands, since a leader never stands alone.
/// The bans of 8.2, 8.21 and 9.12 (sea, enemy hexes, river crossings
/// beside an enemy gunboat, besieged hexes) still apply to each step.
fn leader_march<S: DieSource>(t: &mut Turn<'_, S>, i: usize, order: &MarchOrder, m: &mut Marching) {
    for (k, leg) in order.legs.iter().enumerate() {
        let dest = match leg {
            Leg::To(d) => *d,
            Leg::Path(p) if !p.is_empty() => p[p.len() - 1],
            _ => {
                t.events.push(Event::OrderSetAside {
                    order: i,
                    reason: "a leader alone marches by land to a friendly stack".into(),
                });
                return;
            }
        };
        if !t.occupied_by(dest, t.side) {
            t.events.push(Event::OrderSetAside {
                order: i,
                reason: format!(
                    "a leader may not stand alone: no friendly stack at {} (7.0)",
                    t.scn.map.describe(dest)
                ),
            });
            return;
        }
        let Some(leader) = m.leaders.first().and_then(|n| t.scn.units.leader(n)) else {
            return;
        };
        let cx = RollContext {
            side: Some(t.side),
            month: Some(t.state.month),
            terrain: t.scn.map.terrain(m.hex),
            marching: true,
            leader: Some(leader),
            ..RollContext::default()
        };
        let purpose = format!("march {} of order {} (leader alone)", k + 1, i + 1);
        let result = march_table(t, &cx, purpose);
        log_roll(t, i, k, result, leader.movement);
        if result == MarchResult::NoMarch {
            return;
        }
        let allowance = leader.movement;
        let path = match leg {
            Leg::Path(p) => path_from(p, m.hex),
            _ => {
                // Fewest hexes, not fewest movement points (7.0).
                let occ = Occupancy::of(t);
                cheapest_route(&t.scn.map, m.hex, dest, &|a, b| {
                    enter_cost(t, &occ, a, b).ok().map(|_| 1)
                })
                .map(|r| r.hexes.into_iter().skip(1).collect())
                .unwrap_or_default()
            }
        };
        let occ = Occupancy::of(t);
        let mut hexes = 0;
        let mut at = m.hex;
        for &h in &path {
            match enter_cost(t, &occ, at, h) {
                Ok(_) => {
                    hexes += 1;
                    at = h;
                }
                Err(_) => break,
            }
        }
        let cost = hexes;
        if at != dest || cost > allowance {
            t.events.push(Event::Stopped {
                order: i,
                at: m.hex,
                reason: format!(
                    "{} cannot reach {} this march and may not stand alone (7.0)",
                    leader.name,
                    t.scn.map.describe(dest)
                ),
            });
            continue;
        }
        for l in t
            .state
            .leaders
            .iter_mut()
            .filter(|l| m.leaders.contains(&l.name))
        {
            l.hex = Some(dest);
        }
        t.events.push(Event::Moved {
            order: i,
            path,
            cost,
        });
        m.hex = dest;
        return;
    }
}

/// The marches of an order: each a list of indices into `order.legs`.
///
/// Rule 8.25: units with the fleet "move to and from Souakim and Trinkitat
/// or any hex adjacent to either hex for 0 movement points. Units may use
/// this naval move any number of times in a march but must still roll a
/// march result to move." A fleet move is therefore part of a march, not a
/// march of its own: fleet legs join the land leg they stand next to
/// (before it when they open the order or follow a rail or river march,
/// after it otherwise), and a run of fleet legs alone is one march with
/// one roll. Rail and river legs are each a march (5.2 III).
pub fn group_legs(legs: &[Leg]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let fleet_only = |g: &Vec<usize>| g.iter().all(|&k| matches!(legs[k], Leg::Fleet(_)));
    let by_land = |g: &Vec<usize>| {
        g.iter()
            .all(|&k| matches!(legs[k], Leg::Fleet(_) | Leg::Path(_) | Leg::To(_)))
    };
    for (k, leg) in legs.iter().enumerate() {
        match leg {
            Leg::Rail(_) | Leg::River(_) => groups.push(vec![k]),
            Leg::Path(_) | Leg::To(_) => match groups.last_mut() {
                Some(g) if fleet_only(g) => g.push(k),
                _ => groups.push(vec![k]),
            },
            Leg::Fleet(_) => match groups.last_mut() {
                Some(g) if by_land(g) => g.push(k),
                _ => groups.push(vec![k]),
            },
        }
    }
    groups
}

fn march<S: DieSource>(t: &mut Turn<'_, S>, i: usize, order: &MarchOrder) -> Result<(), String> {
    let groups = marches_of(order)?;
    let with_river = order
        .legs
        .iter()
        .any(|l| matches!(l, Leg::River(_) | Leg::Rail(_)));
    let selection = without_the_gone(t, i, &order.units)?;
    let mut m = select(t, &selection, with_river)?;
    if !matches!(order.units, Selection::Units { .. }) && anyone_stood(t, m.hex) {
        let named = match &order.units {
            Selection::Leader(n) => t.scn.units.leader(n).map(|d| d.name.clone()),
            _ => None,
        };
        note_newcomers(t, i, &m, named.as_deref());
    }
    may_set_out(t, order, &m)?;
    set_out(t, i, &m);
    if m.units.is_empty() && m.river.is_empty() {
        leader_march(t, i, order, &mut m);
        return Ok(());
    }
    make_marches(t, i, order, &groups, &mut m);
    note_orders_not_carried_out(t, i, order, &m);
    Ok(())
}

/// The order's legs grouped into marches: at most three (5.2 III).
fn marches_of(order: &MarchOrder) -> Result<Vec<Vec<usize>>, String> {
    if order.legs.is_empty() {
        return Err("no march given".into());
    }
    let groups = group_legs(&order.legs);
    if groups.len() > 3 {
        let fleet = order.legs.iter().any(|l| matches!(l, Leg::Fleet(_)));
        return Err(format!(
            "{} marches ordered; a stack marches at most three times a turn (5.2 III){}",
            groups.len(),
            if fleet {
                "; moves with the fleet are part of a march (8.25)"
            } else {
                ""
            }
        ));
    }
    Ok(groups)
}

/// The order's selection without the named units lost earlier this turn
/// (the Mahdist arrival roll, a random event): they are left out with a
/// word; the others march.
fn without_the_gone<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    selection: &Selection,
) -> Result<Selection, String> {
    let Selection::Units { units, leaders } = selection else {
        return Ok(selection.clone());
    };
    let (gone, here): (Vec<UnitId>, Vec<UnitId>) = units.iter().cloned().partition(|id| {
        t.state
            .units
            .iter()
            .position(|u| u.id == *id)
            .is_some_and(|k| t.at_start[k].is_some() && t.state.units[k].hex().is_none())
    });
    if !gone.is_empty() {
        let names: Vec<String> = gone.iter().map(|u| u.0.to_string()).collect();
        t.events.push(Event::Note {
            text: format!(
                "order {}: {} left the map earlier this turn and {} not march",
                i + 1,
                names.join(", "),
                if gone.len() == 1 { "does" } else { "do" }
            ),
        });
        if here.is_empty() {
            return Err(
                "every unit it names left the map earlier this turn (the Mahdist arrival roll or a random event)"
                    .into(),
            );
        }
    }
    Ok(Selection::Units {
        units: here,
        leaders: leaders.clone(),
    })
}

/// Whether the stack may leave its hex this turn: not halted by a random
/// event, and not under siege (9.12).
fn may_set_out<S: DieSource>(
    t: &mut Turn<'_, S>,
    order: &MarchOrder,
    m: &Marching,
) -> Result<(), String> {
    if t.state.effects.halted.contains(&m.hex) {
        return Err(format!(
            "the stack at {} may not march this month (random event)",
            t.scn.map.describe(m.hex)
        ));
    }
    if t.is_besieged(m.hex, t.side) && order.on_contact == OnContact::Avoid {
        return Err(format!(
            "{} is under siege: its units may leave only after every adjacent enemy has been driven away (9.12)",
            t.scn.map.describe(m.hex)
        ));
    }
    // 9.12: "Units under siege may only leave their hex if all adjacent
    // enemy units have 1st been driven away by combat"; a leader is no
    // exception.
    if let Some(reason) = leader_alone_besieged(t, m) {
        return Err(reason);
    }
    if t.only_river_units_adjacent(m.hex, t.side) {
        t.events.push(Event::Note {
            text: format!(
                "{} is not under siege: only enemy boats or gunboats are next to it, and land units may not attack them (ruling on 9.12 with 6.1)",
                t.scn.map.describe(m.hex)
            ),
        });
    }
    Ok(())
}

/// The stack's units and leaders have marched this turn (8.1), and the
/// march begins.
fn set_out<S: DieSource>(t: &mut Turn<'_, S>, i: usize, m: &Marching) {
    for &u in m.units.iter().chain(&m.river) {
        t.marched.insert(t.state.units[u].id.clone());
    }
    for l in &m.leaders {
        t.leaders_marched.insert(l.clone());
    }
    t.events.push(Event::MarchBegins {
        order: i,
        from: m.hex,
        units: m
            .units
            .iter()
            .chain(&m.river)
            .map(|&u| t.state.units[u].id.clone())
            .collect(),
        leaders: m.leaders.clone(),
    });
}

/// The marches of the order (`groups` of its legs), each by rail, river or
/// land, until one ends the stack's marching.
fn make_marches<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    groups: &[Vec<usize>],
    m: &mut Marching,
) {
    let helper = leader_bonus(t, i, order, m);
    for (k, group) in groups.iter().enumerate() {
        match &order.legs[group[0]] {
            Leg::Rail(dest) => {
                if !may_leave(t, i, order, m) || !rail_march(t, i, k, order, m, *dest) {
                    break;
                }
            }
            Leg::River(dest) => {
                if m.by_river {
                    t.events.push(Event::OrderSetAside {
                        order: i,
                        reason: format!(
                            "march {}: only one march a turn may be by river (8.23)",
                            k + 1
                        ),
                    });
                    break;
                }
                if !river_leg(t, i, k, order, m, *dest) {
                    break;
                }
            }
            Leg::Path(_) | Leg::To(_) | Leg::Fleet(_) => {
                if !leave_river_units(t, i, k, m) {
                    break;
                }
                if !land_march(t, i, k, order, m, helper.as_deref(), group) {
                    break;
                }
            }
        }
        if (m.units.is_empty() && m.river.is_empty()) || m.done {
            break;
        }
    }
}

/// Say which drop-offs (8.3) and named attacks (9.1) of the order were not
/// made, and why.
fn note_orders_not_carried_out<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &Marching,
) {
    for d in &order.drop_offs {
        if !m.dropped_at.contains(&d.at) {
            t.events.push(Event::Note {
                text: format!(
                    "order {}: nothing dropped off at {}: the stack did not stop there or had none of those units with it (8.3)",
                    i + 1,
                    t.scn.map.describe(d.at)
                ),
            });
        }
    }
    if let OnContact::AttackHexes(hs) = &order.on_contact {
        for h in hs {
            if !m.attacked.contains(h) && !m.dropped.contains(h) {
                let why = if m.no_march {
                    "the march roll gave No March, and the stack may neither move nor attack this turn (8.31)"
                } else {
                    "the stack never stood next to an enemy stack there (9.1)"
                };
                t.events.push(Event::Note {
                    text: format!(
                        "order {}: no attack on {}: {why}",
                        i + 1,
                        t.scn.map.describe(*h)
                    ),
                });
            }
        }
    }
}

/// Tell who arrived in the marching stack's hex this turn (8.3): the
/// units and leaders that stay, and a leader left with no unit who goes
/// with the stack after all (7.0).
fn note_newcomers<S: DieSource>(t: &mut Turn<'_, S>, i: usize, m: &Marching, named: Option<&str>) {
    let hex = m.hex;
    let mut staying: Vec<String> = t
        .units_at(hex, t.side)
        .into_iter()
        .filter(|u| !m.units.contains(u) && !m.river.contains(u))
        .filter(|&u| t.at_start.get(u).copied().flatten() != Some(hex))
        .filter(|&u| !t.marched.contains(&t.state.units[u].id))
        .map(|u| t.state.units[u].id.0.to_string())
        .collect();
    staying.extend(
        t.leaders_at(hex, t.side)
            .into_iter()
            .filter(|l| !m.leaders.contains(l) && !leader_stood(t, l, hex))
            .filter(|l| !t.leaders_marched.contains(l)),
    );
    let place = t.scn.map.describe(hex);
    if !staying.is_empty() {
        t.events.push(Event::Note {
            text: format!(
                "{} arrived at {place} this turn and {}: the order moves the stack as it stood when the orders were written (8.3)",
                staying.join(", "),
                if staying.len() == 1 { "stays" } else { "stay" }
            ),
        });
    }
    let joining: Vec<&String> = m
        .leaders
        .iter()
        .filter(|l| !leader_stood(t, l, hex) && Some(l.as_str()) != named)
        .collect();
    for l in joining {
        t.events.push(Event::Note {
            text: format!(
                "order {}: {l} arrived at {place} this turn and goes with the stack: no unit is left with him, and a leader never stands alone (7.0)",
                i + 1
            ),
        });
    }
}

/// Rule 9.12 for a leader alone: why he may not leave a besieged hex, if
/// he stands in one. He cannot fight (7.3 adds his rating to a stack's
/// roll), so he cannot drive the besiegers away (ruling, docs/rules.md
/// 9.12). The order checker and the march phase give the same reason.
pub(super) fn leader_alone_besieged<S: DieSource>(t: &Turn<'_, S>, m: &Marching) -> Option<String> {
    (m.units.is_empty() && m.river.is_empty() && t.is_besieged(m.hex, t.side)).then(|| {
        format!(
            "{} is under siege: a leader alone may not leave it, for he cannot drive the besiegers away; he leaves with a stack that does (9.12)",
            t.scn.map.describe(m.hex)
        )
    })
}

/// Rule 9.12: "Units under siege may only leave their hex if all adjacent
/// enemy units have 1st been driven away by combat." Before a march out of
/// a besieged hex, by land, rail, river or with the fleet, the stack
/// fights as its orders say; while the siege stands it stays. Returns
/// whether the stack may go.
fn may_leave<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &mut Marching,
) -> bool {
    if !t.is_besieged(m.hex, t.side) {
        return true;
    }
    fight_here(t, i, order, m) && !siege_stands(t, i, m)
}

/// Fight where the stack stands, as its orders say (9.1). Returns whether
/// it may go on: not after a lost or drawn combat (8.31, 9.8), nor after a
/// won one unless the order says CONTINUE.
fn fight_here<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &mut Marching,
) -> bool {
    match engage(t, i, order, m) {
        Engaged::Stop => false,
        Engaged::Won if !order.continue_after_win => {
            halt_after_win(t, i, m);
            false
        }
        _ => true,
    }
}

/// Whether the stack is still besieged after its combats (9.12); if so it
/// stays, and the log says why.
fn siege_stands<S: DieSource>(t: &mut Turn<'_, S>, i: usize, m: &mut Marching) -> bool {
    if !t.is_besieged(m.hex, t.side) {
        return false;
    }
    t.events.push(Event::Stopped {
        order: i,
        at: m.hex,
        reason: "still under siege: the stack may not leave while enemy units are adjacent (9.12)"
            .into(),
    });
    m.done = true;
    true
}

/// Before a land or fleet march: boats and gunboats do not march by land
/// (6.0, 8.23), so they stay where they are. Returns whether the stack
/// still has units to march.
fn leave_river_units<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    k: usize,
    m: &mut Marching,
) -> bool {
    if m.river.is_empty() {
        return true;
    }
    if m.units.is_empty() {
        t.events.push(Event::OrderSetAside {
            order: i,
            reason: format!(
                "march {}: boats and gunboats move only by river or rail (6.0, 8.22, 8.23)",
                k + 1
            ),
        });
        return false;
    }
    t.events.push(Event::Note {
        text: format!(
            "the boats and gunboats stay at {}: they do not march by land (6.0, 8.23)",
            t.scn.map.describe(m.hex)
        ),
    });
    m.river.clear();
    true
}

/// Rule 8.23: one march by river, with no march roll. The stack may fight
/// before it sets off and at each hex it reaches, as its orders say (9.1);
/// its gunboats may attack enemy river units (6.1). Returns whether the
/// stack may march again.
fn river_leg<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    k: usize,
    order: &MarchOrder,
    m: &mut Marching,
    dest: Hex,
) -> bool {
    let carriers = match super::river::carriers(t, m.hex, &m.units, &m.river) {
        Ok(c) => c,
        Err(reason) => {
            t.events.push(Event::OrderSetAside {
                order: i,
                reason: format!("march {}: {reason}", k + 1),
            });
            return false;
        }
    };
    for &c in &carriers {
        t.marched.insert(t.state.units[c].id.clone());
    }
    m.river = carriers.clone();
    m.by_river = true;
    // Boats boarded from the hex (8.3) may leave no unit behind: a leader
    // never stands alone, so the leaders there go with the stack (7.0).
    let staying = t
        .units_at(m.hex, t.side)
        .into_iter()
        .any(|u| !m.units.contains(&u) && !m.river.contains(&u));
    if !staying {
        for l in t.leaders_at(m.hex, t.side) {
            if !m.leaders.contains(&l) {
                t.leaders_marched.insert(l.clone());
                m.leaders.push(l);
            }
        }
    }
    t.events.push(Event::MarchResult {
        order: i,
        leg: k,
        result: "by river, no march roll (8.23)".into(),
        movement_points: 0,
    });
    // 9.12: the besieged leave by river only once the siege is broken.
    if !fight_here(t, i, order, m) || siege_stands(t, i, m) {
        return false;
    }
    if dest != m.hex
        && t.is_besieged(dest, t.side)
        && !super::river::runs_the_siege(t, &m.units, &carriers)
    {
        t.events.push(Event::OrderSetAside {
            order: i,
            reason: format!(
                "march {}: {} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
                k + 1,
                t.scn.map.describe(dest)
            ),
        });
        return false;
    }
    let from = m.hex;
    // The hexes sailed since the log last told the move, and where in the
    // log they go: before what happened on entering the last of them.
    let mut walked: Vec<Hex> = Vec::new();
    let mut mark = t.events.len();
    let mut logged = false;
    let mut step = |t: &mut Turn<'_, S>, h: Hex| {
        let before = walked.len();
        log_walk(t, i, mark, &mut walked, &mut 0);
        logged |= walked.len() < before;
        strand(t, i, m);
        mark = t.events.len();
        move_stack(t, m, h);
        walked.push(h);
        fight_here(t, i, order, m)
    };
    match super::river::river_march(t, i, from, &carriers, dest, &mut step) {
        Ok(_) => {
            let here = m.hex;
            m.river.retain(|&u| t.state.units[u].hex() == Some(here));
            let before = walked.len();
            log_walk(t, i, mark, &mut walked, &mut 0);
            logged |= walked.len() < before;
            if !walked.is_empty() || !logged {
                t.events.push(Event::Moved {
                    order: i,
                    path: walked,
                    cost: 0,
                });
            }
            drop_offs(t, i, order, m);
            !m.done
        }
        Err(reason) => {
            t.events.push(Event::OrderSetAside {
                order: i,
                reason: format!("march {}: {reason}", k + 1),
            });
            false
        }
    }
}

/// Rule 7.1: the leader whose strategic value helps this stack.
fn leader_bonus<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &Marching,
) -> Option<String> {
    let l = t.ruling_leader(&m.leaders, order.leader_bonus.as_deref(), true)?;
    if t.leader_helped.get(&l.name).is_some_and(|&o| o != i) {
        return None;
    }
    let decided_by = if l.c_in_c {
        Decision::Default("a C-in-C's values are always used (7.0)".into())
    } else if order
        .leader_bonus
        .as_deref()
        .and_then(|w| t.scn.units.leader(w))
        .is_some_and(|w| w.name == l.name)
    {
        Decision::Orders
    } else {
        Decision::Default("the best strategic rating in the stack".into())
    };
    t.leader_helped.insert(l.name.clone(), i);
    t.events.push(Event::LeaderHelps {
        order: i,
        leader: l.name.clone(),
        decided_by,
    });
    Some(l.name.clone())
}

fn result_name(r: MarchResult) -> String {
    match r {
        MarchResult::NoMarch => "No March".into(),
        MarchResult::March => "March".into(),
        MarchResult::MarchWithAttrition(p) => format!("March with {p}% attrition"),
    }
}

/// Rule 8.22: a march by rail, through built track, any distance, with no
/// march roll. Returns whether the stack may march again.
fn rail_march<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    k: usize,
    order: &MarchOrder,
    m: &mut Marching,
    dest: Hex,
) -> bool {
    let Some(path) = rail::rail_path(t, m.hex, dest) else {
        let reason = if rail::built(t, m.hex) {
            format!(
                "march {}: no rail line open from {} to {} (8.22)",
                k + 1,
                t.scn.map.describe(m.hex),
                t.scn.map.describe(dest)
            )
        } else {
            format!(
                "march {}: {} has no built railway (8.22)",
                k + 1,
                t.scn.map.describe(m.hex)
            )
        };
        t.events.push(Event::OrderSetAside { order: i, reason });
        return false;
    };
    // Boats and gunboats ride the railway (8.22) but stand only beside a
    // river (6.0): they ride a rail march that ends beside one, and so
    // start or end it beside a river, as a turn's rail and river marches
    // require (8.23); otherwise they stay.
    let end = path.last().copied().unwrap_or(m.hex);
    if !m.river.is_empty() && !t.scn.map.is_riverside(end) {
        let reason = format!(
            "boats and gunboats ride the railway only to a hex beside a river (6.0, 8.23), and {} is not",
            t.scn.map.describe(end)
        );
        if m.units.is_empty() {
            t.events.push(Event::OrderSetAside {
                order: i,
                reason: format!("march {}: {reason}", k + 1),
            });
            return false;
        }
        t.events.push(Event::Note {
            text: format!(
                "the boats and gunboats stay at {}: {reason}",
                t.scn.map.describe(m.hex)
            ),
        });
        m.river.clear();
    }
    t.events.push(Event::MarchResult {
        order: i,
        leg: k,
        result: "by rail, no march roll (8.22)".into(),
        movement_points: 0,
    });
    drop_offs(t, i, order, m);
    let mut done = Vec::new();
    let mut logged = false;
    for h in path {
        if m.units.is_empty() && m.river.is_empty() {
            break;
        }
        let mark = t.events.len();
        move_stack(t, m, h);
        done.push(h);
        drop_offs(t, i, order, m);
        let before = done.len();
        log_walk(t, i, mark, &mut done, &mut 0);
        logged |= done.len() < before;
    }
    if !done.is_empty() || !logged {
        t.events.push(Event::Moved {
            order: i,
            path: done,
            cost: 0,
        });
    }
    !m.units.is_empty() || !m.river.is_empty()
}

/// Whether a march that opens with a move with the fleet can be made at
/// all (the side, the fleet's place), so that no march roll is spent on
/// one that cannot. Sets the order aside with the reason if not.
fn fleet_possible<S: DieSource>(t: &mut Turn<'_, S>, i: usize, k: usize, m: &Marching) -> bool {
    let why = if t.side != Side::Egyptian {
        Some("only Egyptian and British units sail with the fleet (8.25)".to_string())
    } else if rail::fleet_at(t, m.hex).is_none() {
        Some(format!(
            "the British fleet is not at {} (8.25)",
            t.scn.map.describe(m.hex)
        ))
    } else {
        None
    };
    match why {
        Some(reason) => {
            t.events.push(Event::OrderSetAside {
                order: i,
                reason: format!("march {}: {reason}", k + 1),
            });
            false
        }
        None => true,
    }
}

/// Rule 8.25: "Egyptian and British units may stack with the British fleet
/// and move to and from Souakim and Trinkitat or any hex adjacent to
/// either hex for 0 movement points." One move with the fleet, within a
/// march whose roll has been made; the fleet goes with the stack. The
/// stack may fight where it lands (9.1). Returns whether it may go on.
fn fleet_move<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    k: usize,
    order: &MarchOrder,
    m: &mut Marching,
    dest: Hex,
) -> bool {
    if !may_leave(t, i, order, m) {
        return false;
    }
    let zone = rail::fleet_zone(t);
    let fleet = rail::fleet_at(t, m.hex);
    let why = if t.side != Side::Egyptian {
        Some("only Egyptian and British units sail with the fleet (8.25)".to_string())
    } else if fleet.is_none() {
        Some(format!(
            "the British fleet is not at {} (8.25)",
            t.scn.map.describe(m.hex)
        ))
    } else if !zone.contains(&m.hex) || !zone.contains(&dest) {
        Some(
            "the fleet sails only between Souakim, Trinkitat and the hexes next to them (8.25)"
                .into(),
        )
    } else if t.occupied_by(dest, t.side.enemy()) {
        Some(format!("{} is held by the enemy", t.scn.map.describe(dest)))
    } else if t.is_besieged(dest, t.side) {
        Some(format!(
            "{} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
            t.scn.map.describe(dest)
        ))
    } else {
        None
    };
    if let Some(reason) = why {
        t.events.push(Event::OrderSetAside {
            order: i,
            reason: format!("march {}: {reason}", k + 1),
        });
        return false;
    }
    let from = m.hex;
    move_stack(t, m, dest);
    if let Some(f) = fleet {
        t.state.units[f].status = Status::OnMap(dest);
    }
    gather_leaders(t, m, from);
    t.events.push(Event::Moved {
        order: i,
        path: vec![dest],
        cost: 0,
    });
    t.events.push(Event::Note {
        text: format!(
            "the British fleet carries the stack from {} to {} for no movement points, within the march (8.25)",
            t.scn.map.describe(from),
            t.scn.map.describe(dest)
        ),
    });
    drop_offs(t, i, order, m);
    fight_here(t, i, order, m)
}

/// The roll on the march table (8.31) for `purpose`, with the modifiers
/// that apply in `cx` and the month's random event modifier; its result.
fn march_table<S: DieSource>(
    t: &mut Turn<'_, S>,
    cx: &RollContext<'_>,
    purpose: String,
) -> MarchResult {
    let table = &t.scn.tables.march;
    let mut mods = modifiers::applicable(&table.modifiers, cx);
    if let Some(&v) = t.state.effects.march_modifier.get(&t.side) {
        mods.push(("random event".to_string(), v));
    }
    let rows = &table.rows;
    let total =
        t.table_roll(
            table.dice,
            purpose,
            "march table (8.31)",
            mods,
            |v| match modifiers::row(rows, v) {
                Some((r, label)) => format!("{label}: {}", result_name(r.result)),
                None => "no row".into(),
            },
        );
    modifiers::row(rows, total).map_or(MarchResult::NoMarch, |(r, _)| r.result)
}

/// The log's word on a march roll: the result and the movement points it
/// gives (`allowance`, none after No March).
fn log_roll<S: DieSource>(t: &mut Turn<'_, S>, i: usize, k: usize, result: MarchResult, mp: u32) {
    let movement_points = if result == MarchResult::NoMarch {
        0
    } else {
        mp
    };
    t.events.push(Event::MarchResult {
        order: i,
        leg: k,
        result: result_name(result),
        movement_points,
    });
}

/// Roll on the march table for a march and apply any attrition. Returns
/// the movement points, or `None` after No March or if no unit is left.
fn march_roll<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    k: usize,
    order: &MarchOrder,
    m: &mut Marching,
    helper: Option<&str>,
) -> Option<u32> {
    let leader = helper.and_then(|h| t.scn.units.leader(h));
    let cx = RollContext {
        side: Some(t.side),
        month: Some(t.state.month),
        units: t.profile(&m.units),
        terrain: t.scn.map.terrain(m.hex),
        in_settlement: t.scn.map.settlement_at(m.hex).is_some(),
        marching: true,
        leader,
        ..RollContext::default()
    };
    let result = march_table(t, &cx, format!("march {} of order {}", k + 1, i + 1));
    if let MarchResult::MarchWithAttrition(p) = result {
        let n = losses::share(m.units.len(), p);
        let gone = losses::apply(
            t,
            m.hex,
            &m.units.clone(),
            n,
            0,
            "march attrition (8.31)",
            &order.lose_first,
        );
        m.units.retain(|u| !gone.contains(u));
    }
    let allowance = allowance(t, m);
    log_roll(t, i, k, result, allowance);
    if result == MarchResult::NoMarch {
        m.no_march = true;
        return None;
    }
    if m.units.is_empty() {
        return None;
    }
    Some(allowance)
}

/// One march by land (8.31), with the moves with the fleet that are part of
/// it (8.25): one roll on the march table, then each of its legs in turn,
/// sharing the movement points. Returns whether the stack may march again.
fn land_march<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    k: usize,
    order: &MarchOrder,
    m: &mut Marching,
    helper: Option<&str>,
    group: &[usize],
) -> bool {
    if let Some(&first) = group.first()
        && let Leg::Fleet(_) = order.legs[first]
        && !fleet_possible(t, i, k, m)
    {
        return false;
    }
    let Some(allowance) = march_roll(t, i, k, order, m, helper) else {
        return false;
    };
    m.ambush_tried = false;
    let mut left = allowance;
    for &leg in group {
        let go_on = match &order.legs[leg] {
            Leg::Fleet(dest) => fleet_move(t, i, k, order, m, *dest),
            _ => land_leg(t, i, order, m, leg, &mut left),
        };
        if !go_on {
            return false;
        }
        if m.done || (m.units.is_empty() && m.river.is_empty()) {
            break;
        }
    }
    true
}

/// One land leg of a march, with `left` movement points. Returns whether
/// the stack may march on.
fn land_leg<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &mut Marching,
    k: usize,
    left: &mut u32,
) -> bool {
    // Who stands where when the leg begins: the route to its hex is
    // found on it, and the walk starts from it unless the drop-offs and
    // combats before the first step logged anything (only a combat moves
    // or removes counters there, and a combat is logged).
    let mut first = None;
    let target = match &order.legs[k] {
        Leg::Path(p) => path_from(p, m.hex),
        Leg::To(dest) => match route_on(t, first.insert(Occupancy::of(t)), m.hex, *dest) {
            Some(path) => path,
            None => {
                t.events.push(Event::Stopped {
                    order: i,
                    at: m.hex,
                    reason: format!("no land route to {}", t.scn.map.describe(*dest)),
                });
                return true;
            }
        },
        _ => Vec::new(),
    };
    let mark = t.events.len();
    drop_offs(t, i, order, m);
    if !fight_here(t, i, order, m) || siege_stands(t, i, m) {
        return false;
    }
    let mut path = Vec::new();
    let mut cost = 0;
    // Who stands where, made again only when it may have changed for the
    // next step: after a step with more than a move (below), when the
    // stack has boats or gunboats with it (they free the river crossings
    // of the hex they stand in, 8.21), or when it comes back to a hex it
    // stood in since (its own units, and those it dropped off, are the
    // only others that move). The same answers as making it every step.
    let mut occ = match first {
        Some(occ) if t.events.len() == mark => occ,
        _ => Occupancy::of(t),
    };
    let mut since = vec![m.hex];
    for next in target {
        if m.units.is_empty() {
            break;
        }
        if since.contains(&next) || (!m.river.is_empty() && since.len() > 1) {
            occ = Occupancy::of(t);
            since = vec![m.hex];
        }
        match enter_cost(t, &occ, m.hex, next).map_err(|b| b.reason(&t.scn.map, &occ, m.hex, next))
        {
            Err(reason) => {
                t.events.push(Event::Stopped {
                    order: i,
                    at: m.hex,
                    reason,
                });
                break;
            }
            Ok(c) if c > *left => {
                t.events.push(Event::Stopped {
                    order: i,
                    at: m.hex,
                    reason: format!(
                        "{} costs {} and {} left (8.2)",
                        t.scn.map.describe(next),
                        crate::words::count(c, "movement point", "movement points"),
                        if *left == 1 {
                            "1 is".to_string()
                        } else {
                            format!("{} are", *left)
                        }
                    ),
                });
                break;
            }
            Ok(c) => {
                if !m.ambush_tried && ambush_ahead(t, i, order, m, next, &mut path, &mut cost) {
                    return false;
                }
                *left -= c;
                cost += c;
                let mark = t.events.len();
                move_stack(t, m, next);
                since.push(next);
                path.push(next);
                drop_offs(t, i, order, m);
                let engaged = engage(t, i, order, m);
                // Whatever the step did beyond moving (a combat; river
                // units displaced or taken, 6.1; a settlement's recruits
                // and boats, 3.2; the fleet leaving, 8.25) has its events.
                if !matches!(engaged, Engaged::None) || t.events.len() > mark {
                    occ = Occupancy::of(t);
                    since = vec![m.hex];
                }
                log_walk(t, i, mark, &mut path, &mut cost);
                match engaged {
                    Engaged::Stop => {
                        if !path.is_empty() {
                            t.events.push(Event::Moved {
                                order: i,
                                path: std::mem::take(&mut path),
                                cost,
                            });
                        }
                        return false;
                    }
                    Engaged::Won if !order.continue_after_win => {
                        halt_after_win(t, i, m);
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if !path.is_empty() {
        t.events.push(Event::Moved {
            order: i,
            path,
            cost,
        });
    }
    true
}

/// The optional ambush rule (`engine::ambush`): before the stack enters
/// `next`, whether an ambush lies there, and what follows. After an
/// ambush fought, the stack halts for the turn whatever the outcome (the
/// column stopped to fight it; ruling, docs/rules.md, "Ambushes"); if
/// the ambushers won, it retreats as a loser (9.8), away from them.
/// Returns whether the march stops here.
fn ambush_ahead<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &mut Marching,
    next: Hex,
    path: &mut Vec<Hex>,
    cost: &mut u32,
) -> bool {
    let mark = t.events.len();
    let before = t.ambush_cleared.len();
    let outcome = ambush::lie_in_wait(t, i, m.hex, next, &m.units);
    if t.ambush_cleared.len() > before {
        m.ambush_tried = true;
    }
    log_walk(t, i, mark, path, cost);
    let ambush::Ambush::Fought(fought) = outcome else {
        return false;
    };
    let outcome = fought.outcome;
    m.done = true;
    if t.state.result.is_some() || t.halted {
        return true;
    }
    regroup(t, m);
    if outcome == Outcome::AttackerWon && !m.units.is_empty() {
        let losers = m.units.clone();
        let leaders = m.leaders.clone();
        if let Some(h) = combat::retreat(
            t,
            combat::Retreat {
                side: t.side,
                hex: m.hex,
                units: &losers,
                leaders: &leaders,
                route: None,
                away_from: next,
                towards: fought.retreat_to.or(order.retreat_towards),
            },
        ) {
            m.hex = h;
            regroup(t, m);
        }
    }
    t.events.push(Event::Stopped {
        order: i,
        at: m.hex,
        reason: "ambushed: the column halts for the turn (ruling, docs/rules.md, Ambushes)".into(),
    });
    true
}

/// The log tells a march in the order it happened: the hexes walked so far
/// come before what entering the last of them brought about (displaced
/// boats, a town taken, a drop-off, a combat and its retreat). When events
/// were logged from `mark` on, the walk up to here is logged at `mark`
/// and the count starts again.
fn log_walk<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    mark: usize,
    path: &mut Vec<Hex>,
    cost: &mut u32,
) {
    // Rolls on the way (a river's wreck rolls) do not break the walk.
    let happened = t
        .events
        .get(mark..)
        .is_some_and(|e| e.iter().any(|e| !matches!(e, Event::Rolled(_))));
    if happened && !path.is_empty() {
        t.events.insert(
            mark,
            Event::Moved {
                order: i,
                path: std::mem::take(path),
                cost: std::mem::take(cost),
            },
        );
    }
}

/// Rule 8.23 IV: "If a unit is wrecked at a cataract hex it[s] passengers
/// stop adjacent to the cataract." The passengers left without a carrier
/// (the last of the stack's land units, leaders aside) stay where the
/// stack is; the others sail on.
fn strand<S: DieSource>(t: &mut Turn<'_, S>, i: usize, m: &mut Marching) {
    let n = std::mem::take(&mut t.stranded);
    if n == 0 {
        return;
    }
    let keep = m.units.len().saturating_sub(n);
    let left: Vec<usize> = m.units.split_off(keep);
    if left.is_empty() {
        return;
    }
    t.events.push(Event::DroppedOff {
        order: i,
        at: m.hex,
        units: left.iter().map(|&u| t.state.units[u].id.clone()).collect(),
        leaders: Vec::new(),
    });
}

/// Rule 8.31: "The marching stack may continue to move using unused
/// movement points after combat if it won the combat." It may; the
/// order's STOP (the default) or CONTINUE says whether it does. A stack
/// that halts after a win, wherever in its march the combat was, ends its
/// marching for the turn.
fn halt_after_win<S: DieSource>(t: &mut Turn<'_, S>, i: usize, m: &mut Marching) {
    t.events.push(Event::Stopped {
        order: i,
        at: m.hex,
        reason:
            "won its combat and halts, as ordered (STOP is the default; CONTINUE goes on, 8.31)"
                .into(),
    });
    m.done = true;
}

/// What the combats at one point of a march came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engaged {
    /// No combat.
    None,
    /// Every combat won.
    Won,
    /// Lost or drawn: the stack may not move or roll again (8.31, 9.8).
    Stop,
}

/// The enemy hexes the stack may attack from where it stands, in row
/// order: adjacent enemy stacks, and besiegers of an adjacent friendly
/// besieged hex, who count as being in that hex (9.12). Hexes holding only
/// river units are attacked only by the stack's gunboats, never by land
/// units or boats (6.1); a stack with no land units attacks nothing else.
/// Also returns the hexes the order names that the stack may not attack
/// (river units only, and no gunboat in the stack), so the log can say so.
pub(super) fn targets<S: DieSource>(
    t: &Turn<'_, S>,
    order: &MarchOrder,
    m: &Marching,
) -> (Vec<Hex>, Vec<Hex>) {
    let hex = m.hex;
    // Every target is an enemy unit's hex next to the stack or next to a
    // friendly settlement beside it that the enemy besieges (by an enemy
    // land unit next to it), so within two hexes: the hexes within two
    // that `occupied_by` holds for the enemy, found in one pass over the
    // counters, answer it for every hex looked at. With none, there is no
    // target.
    let enemy = t.side.enemy();
    let near = near_hexes_occupied_by(t, hex, enemy);
    if near.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let occupied = |h: &Hex| near.contains(h);
    let has_land = !m.units.is_empty();
    let has_gunboats = !gunboats(t, m).is_empty();
    let mut out: Vec<Hex> = hex.neighbours().into_iter().filter(occupied).collect();
    for n in hex.neighbours() {
        if t.is_besieged(n, t.side) {
            out.extend(
                n.neighbours()
                    .into_iter()
                    .filter(|b| *b != hex && occupied(b)),
            );
        }
    }
    out.sort_by_key(|h| (h.row, h.col));
    out.dedup();
    let (ok, not): (Vec<Hex>, Vec<Hex>) = out.into_iter().partition(|h| {
        if river_only(t, *h) {
            has_gunboats
        } else {
            has_land
        }
    });
    let named = |h: &Hex| matches!(&order.on_contact, OnContact::AttackHexes(hs) if hs.contains(h));
    let dropped = not.into_iter().filter(named).collect();
    let go = match &order.on_contact {
        OnContact::Avoid => Vec::new(),
        OnContact::AttackAny => ok,
        OnContact::AttackHexes(hs) => ok.into_iter().filter(|h| hs.contains(h)).collect(),
    };
    (go, dropped)
}

/// The hexes within two of `hex` where [`Turn::occupied_by`] holds for
/// `side`, each once.
pub(super) fn near_hexes_occupied_by<S: DieSource>(
    t: &Turn<'_, S>,
    hex: Hex,
    side: Side,
) -> Vec<Hex> {
    let mut near = Vec::new();
    for (_, u, h, ty) in t.on_map() {
        // A hex within two lies within two columns and two rows.
        if u.side == side
            && (h.col - hex.col).abs() <= 2
            && (h.row - hex.row).abs() <= 2
            && h.distance(hex) <= 2
            && ty.is_none_or(|ty| ty.kind != UnitKind::Fleet)
            && !near.contains(&h)
        {
            near.push(h);
        }
    }
    near
}

/// Attack every target the order allows, one after another while winning
/// (9.1); a lost combat sends the stack back along its route (9.8).
fn engage<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    order: &MarchOrder,
    m: &mut Marching,
) -> Engaged {
    let mut fought = false;
    let (targets, dropped) = targets(t, order, m);
    for h in dropped {
        if m.dropped.contains(&h) {
            continue;
        }
        m.dropped.push(h);
        t.events.push(Event::OrderSetAside {
            order: i,
            reason: format!(
                "the attack on {} is not made: only boats or gunboats are there, and land units may not attack them; only gunboats may (6.1)",
                t.scn.map.describe(h)
            ),
        });
    }
    for target in targets {
        if m.units.is_empty() && m.river.is_empty() {
            return Engaged::Stop;
        }
        if !t.occupied_by(target, t.side.enemy()) {
            continue;
        }
        // Gunboats alone attack river units (6.1); against land units the
        // whole stack fights, its boats and gunboats included (9.4, 9.5).
        let attackers: Vec<usize> = if river_only(t, target) {
            gunboats(t, m)
        } else {
            m.units.iter().chain(&m.river).copied().collect()
        };
        if attackers.is_empty() {
            continue;
        }
        fought = true;
        m.attacked.push(target);
        let fought = combat::fight(
            t,
            i,
            m.hex,
            &attackers,
            &m.leaders,
            target,
            &order.lose_first,
        );
        let outcome = fought.outcome;
        if t.state.result.is_some() || t.halted {
            m.done = true;
            return Engaged::Stop;
        }
        let here = m.hex;
        regroup(t, m);
        match outcome {
            Outcome::AttackerWon => {
                let enemy = t.side.enemy();
                let losers = t.units_at(target, enemy);
                let leaders = t.leaders_at(target, enemy);
                combat::retreat(
                    t,
                    combat::Retreat {
                        side: enemy,
                        hex: target,
                        units: &losers,
                        leaders: &leaders,
                        route: None,
                        away_from: m.hex,
                        towards: fought.retreat_to,
                    },
                );
            }
            Outcome::Draw => {
                // 9.8: "If both sides lose the battle is drawn and the
                // marching stack finishes it's march and may not move or
                // attack again that turn."
                t.events.push(Event::Stopped {
                    order: i,
                    at: m.hex,
                    reason: "the combat was drawn: the stack ends its march and may not move or attack again this turn (9.8)".into(),
                });
                m.done = true;
                return Engaged::Stop;
            }
            Outcome::DefenderWon => {
                let losers = m.units.clone();
                let leaders = m.leaders.clone();
                let route = m.route.clone();
                let to = combat::retreat(
                    t,
                    combat::Retreat {
                        side: t.side,
                        hex: here,
                        units: &losers,
                        leaders: &leaders,
                        route: Some(&route),
                        away_from: target,
                        towards: fought.retreat_to.or(order.retreat_towards),
                    },
                );
                if let Some(h) = to {
                    m.hex = h;
                    regroup(t, m);
                }
                m.done = true;
                return Engaged::Stop;
            }
        }
    }
    if fought { Engaged::Won } else { Engaged::None }
}

/// Keep in the marching stack only what is still with it at `m.hex`
/// (after losses, captures or a retreat).
fn regroup<S: DieSource>(t: &Turn<'_, S>, m: &mut Marching) {
    let here = m.hex;
    m.units.retain(|&u| t.state.units[u].hex() == Some(here));
    m.river.retain(|&u| t.state.units[u].hex() == Some(here));
    m.leaders.retain(|l| {
        t.state
            .leaders
            .iter()
            .any(|x| x.name == *l && !x.removed && x.hex == Some(here))
    });
}

/// Whether an enemy hex holds river units only (6.1).
fn river_only<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> bool {
    t.units_at(hex, t.side.enemy())
        .iter()
        .all(|&u| t.type_at(u).is_some_and(|ty| ty.kind.is_river_unit()))
}

/// The marching stack's gunboats still afloat.
fn gunboats<S: DieSource>(t: &Turn<'_, S>, m: &Marching) -> Vec<usize> {
    m.river
        .iter()
        .copied()
        .filter(|&u| t.state.units[u].hex() == Some(m.hex))
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Gunboat))
        .collect()
}

/// Movement allowance of the slowest unit, halved if disrupted (8.31, 9.7).
/// Leaders move with their stack and do not slow it.
pub(super) fn allowance<S: DieSource>(t: &Turn<'_, S>, m: &Marching) -> u32 {
    allowance_of(t, &m.units)
}

/// A PATH's hexes from `at`: a path that starts with the hex the stack
/// stands on ("PATH Khartoum 1943" from Khartoum) starts from it, as the
/// player meant, instead of being refused as a skip from `at` to itself.
pub(super) fn path_from(path: &[Hex], at: Hex) -> Vec<Hex> {
    let skip = path.iter().take_while(|h| **h == at).count();
    path[skip..].to_vec()
}

/// A leader never stands alone (7.0): leaders left in `from` with no unit
/// of their side go with the stack, now at `m.hex` (default policy).
fn gather_leaders<S: DieSource>(t: &mut Turn<'_, S>, m: &mut Marching, from: Hex) {
    // Leaders are few and counters many: with no leader left there,
    // there is nothing to ask of the counters.
    let side = t.side;
    let any_left = t
        .state
        .leaders
        .iter()
        .any(|l| l.side == side && !l.removed && l.hex == Some(from));
    if from == m.hex || !any_left || t.occupied_by(from, side) {
        return;
    }
    let left = t.leaders_at(from, t.side);
    if left.is_empty() {
        return;
    }
    for l in t.state.leaders.iter_mut() {
        if left.contains(&l.name) {
            l.hex = Some(m.hex);
        }
    }
    for l in left {
        t.leaders_marched.insert(l.clone());
        t.events.push(Event::Note {
            text: format!(
                "{l} goes with the stack to {}: no unit is left with him at {} (7.0)",
                t.scn.map.describe(m.hex),
                t.scn.map.describe(from)
            ),
        });
        if !m.leaders.contains(&l) {
            m.leaders.push(l);
        }
    }
}

fn move_stack<S: DieSource>(t: &mut Turn<'_, S>, m: &mut Marching, to: Hex) {
    let from = m.hex;
    // Wrecked boats stay out of play (8.23): only those on the map move.
    t.state
        .units
        .relocate(m.units.iter().chain(&m.river).copied(), to);
    for l in t.state.leaders.iter_mut() {
        if m.leaders.contains(&l.name) {
            l.hex = Some(to);
        }
    }
    m.hex = to;
    m.route.push(to);
    gather_leaders(t, m, from);
    super::river::displace(t, to);
    if t.scn.map.settlement_at(to).is_some() {
        let previous = t.state.control.insert(to, t.side);
        super::arrivals::town_gains(t, to, previous);
    }
    // Mahdists entering the fleet's hex, or taking Souakim, move it (8.25).
    if t.side == Side::Mahdist
        && (rail::fleet_at(t, to).is_some()
            || t.scn.map.place_at(to).is_some_and(|p| p.name == "Souakim"))
    {
        rail::fleet_upkeep(t);
    }
}

fn drop_offs<S: DieSource>(t: &mut Turn<'_, S>, i: usize, order: &MarchOrder, m: &mut Marching) {
    for d in order.drop_offs.iter().filter(|d| d.at == m.hex) {
        // River units may be left only beside a river (6.0).
        let riverside = t.scn.map.is_riverside(m.hex);
        let units: Vec<usize> = m
            .units
            .iter()
            .chain(m.river.iter().filter(|_| riverside))
            .copied()
            .filter(|&u| d.units.contains(&t.state.units[u].id))
            .collect();
        let leaders: Vec<String> = m
            .leaders
            .iter()
            .filter(|l| {
                d.leaders
                    .iter()
                    .any(|x| t.scn.units.leader(x).is_some_and(|def| def.name == **l))
            })
            .cloned()
            .collect();
        // Leaders are dropped off only with units: a leader never stands
        // alone (7.0).
        if units.is_empty() {
            continue;
        }
        m.units.retain(|u| !units.contains(u));
        m.river.retain(|u| !units.contains(u));
        m.leaders.retain(|l| !leaders.contains(l));
        m.dropped_at.push(m.hex);
        t.events.push(Event::DroppedOff {
            order: i,
            at: m.hex,
            units: units.iter().map(|&u| t.state.units[u].id.clone()).collect(),
            leaders,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Dice, FixedDice};
    use crate::state::Status;

    /// The hexes found once for a whole search or a stack's step
    /// ([`Turn::hexes_occupied_by`], [`near_hexes_occupied_by`]) are
    /// those [`Turn::occupied_by`] holds for, hex by hex, on scattered
    /// positions of both scenarios and both sides (the fleet among them).
    #[test]
    fn hexes_occupied_found_at_once_are_those_occupied_by_holds_for() {
        let mut scatter = crate::testing::Scatter::new(0x5851_f42d_4c95_7f2d);
        let mut next = |n: usize| scatter.below(n);
        let mut held = 0;
        for (id, scn, mut state) in crate::testing::start_positions() {
            let land: Vec<Hex> = scn.map.hexes().filter(|h| scn.map.is_land(*h)).collect();
            for round in 0..6 {
                if round > 0 {
                    for u in state.units.iter_mut() {
                        if next(3) == 0 {
                            u.status = Status::OnMap(land[next(land.len())]);
                        }
                    }
                }
                let mut dice = Dice::new(FixedDice::with_fallback([], 1));
                let t = Turn::new(&scn, state.clone(), Side::Egyptian, &mut dice);
                for side in [Side::Egyptian, Side::Mahdist] {
                    let all = t.hexes_occupied_by(side);
                    assert!(all.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
                    for h in scn.map.hexes() {
                        let occupied = t.occupied_by(h, side);
                        assert_eq!(
                            all.binary_search(&h).is_ok(),
                            occupied,
                            "{id}, {side:?}: {h}"
                        );
                        held += usize::from(occupied);
                    }
                    for _ in 0..40 {
                        let centre = land[next(land.len())];
                        let near = near_hexes_occupied_by(&t, centre, side);
                        for h in scn.map.hexes().filter(|h| h.distance(centre) <= 2) {
                            assert_eq!(near.contains(&h), t.occupied_by(h, side), "{id}: {h}");
                        }
                        assert!(near.iter().all(|h| h.distance(centre) <= 2));
                    }
                }
            }
        }
        assert!(held > 0, "some hexes are held");
    }
}
