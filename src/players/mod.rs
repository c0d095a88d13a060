//! Programmed players: the simple player of the simulations
//! ([`simple`]) and the Mahdist reaction and ambush tables of the seeds
//! ([`reaction`]) the Mahdist player is built on, and a side played from
//! order files ([`scripted`]).
//!
//! A programmed player writes the same engine `Orders` a human's mail
//! gives, and they go through the same parser and checker
//! ([`through_the_checker`]): printed in the order language, read and
//! checked against the state, so a bot can never play an order a human
//! could not.

pub mod egyptian;
mod evacuation;
pub mod mahdist;
/// The seed's reaction and ambush tables, which the engine also reads for
/// ambushes; they live with the scenario data.
pub mod reaction {
    pub use crate::scenario::reactions::*;
}
pub mod scripted;
pub mod simple;

use crate::dice::Roll;
use crate::engine::orders::{MarchOrder, Orders};
use crate::orders::{self, Input, Vocabulary, print, written};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// Whether two scenarios are one: the same data, by address (a scenario
/// loaded once and cloned). What a player keeps from one turn to another
/// is kept for the scenario it was made in.
fn same_scenario(a: &Scenario, b: &Scenario) -> bool {
    use std::sync::Arc;
    Arc::ptr_eq(&a.map, &b.map)
        && Arc::ptr_eq(&a.units, &b.units)
        && Arc::ptr_eq(&a.tables, &b.tables)
        && Arc::ptr_eq(&a.events, &b.events)
        && Arc::ptr_eq(&a.def, &b.def)
        && Arc::ptr_eq(&a.reactions, &b.reactions)
}

/// What a programmed player decided for a turn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub orders: Orders,
    /// The umpire's notes: each stack's situation, roll and reaction, and
    /// what it made the stack do.
    pub notes: Vec<String>,
    /// Every roll made, in order.
    pub rolls: Vec<Roll>,
}

/// Orders made by a program, as a player's mail gives them: printed in the
/// order language (the text is returned), read and checked against
/// `state`. The checked orders must be the orders given; anything else
/// (an order that does not read back, the checker refusing one) is an
/// error naming the line.
pub fn through_the_checker(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: &Orders,
) -> Result<(Orders, String), String> {
    let checked = verdict(scn, state, side, orders).map_err(|r| r.why)?;
    let text = print::sheet(&scn.map, &written::sheet(orders), false);
    Ok((checked, text))
}

/// Why the checker did not take a program's orders as given, and, when it
/// refused some orders only, the orders it would give the engine.
#[derive(Debug, PartialEq)]
struct Refusal {
    why: String,
    accepted: Option<Box<Orders>>,
    /// The orders other than marches stand: the checker refused marches
    /// only and took every other order as given, so it takes those orders
    /// alone too ([`others_stand`]).
    others_stand: bool,
}

/// [`through_the_checker`] without the text, keeping what the checker
/// accepted when it refuses some orders (so that a caller need not check
/// them again).
///
/// The sheet the orders make is checked as it is: printing it and reading
/// it back gives the same orders in the same order, on lines in the same
/// order (the tests of this module hold it over the programmed players'
/// orders of whole campaigns), and the checker reads a line's number only
/// to tell the lines apart and keep them in order, so its answer on the
/// sheet read back is this one. Only when the checker does not take
/// the orders as given is the sheet printed and read back
/// ([`verdict_read_back`]), for the refusal to quote the lines as the
/// player's mail would give them.
fn verdict(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: &Orders,
) -> Result<Orders, Refusal> {
    let sheet = written::sheet(orders);
    let checked = orders::check::check_orders(&sheet, scn, state, side);
    if !checked.refused && checked.errors.is_empty() && checked.orders == *orders {
        return Ok(checked.orders);
    }
    let others_stand = others_stand(&sheet, &checked, orders);
    verdict_read_back(scn, state, side, orders).map_err(|r| Refusal { others_stand, ..r })
}

/// Whether the check of the sheet of `given` refused marches only and took
/// every other order as given. Then the checker takes the orders other
/// than marches alone: an order other than a march is checked alike with
/// or without the marches (what they change is its warnings, never its
/// errors or what it gives the engine), so alone it has the errors it had
/// with them, none, and gives the engine what it gave.
fn others_stand(sheet: &orders::Sheet, checked: &orders::Checked, given: &Orders) -> bool {
    let rest = |o: &Orders| Orders {
        marches: Vec::new(),
        ..o.clone()
    };
    let on_a_march = |line: usize| {
        sheet
            .items
            .iter()
            .any(|i| i.line == line && matches!(i.order, orders::Order::March(_)))
    };
    !checked.refused
        && checked.errors.iter().all(|e| on_a_march(e.line))
        && rest(&checked.orders) == rest(given)
}

/// [`verdict`] the long way: the orders printed in the order language, read
/// back and checked, and any refusal said with the text.
fn verdict_read_back(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: &Orders,
) -> Result<Orders, Refusal> {
    let refused = |why: String| Refusal {
        why,
        accepted: None,
        others_stand: false,
    };
    let sheet = written::sheet(orders);
    let text = print::sheet(&scn.map, &sheet, false);
    let parsed = orders::parse(&Input::text(&text), &Vocabulary::new(scn).in_play(state))
        .map_err(|e| refused(format!("the {side} orders are refused whole: {e}")))?;
    if let Some(e) = parsed.errors.first() {
        return Err(refused(format!(
            "the {side} orders do not read back: {e}\n{text}"
        )));
    }
    let checked = orders::check::check_orders(&parsed.sheet, scn, state, side);
    if checked.refused {
        return Err(refused(format!(
            "the checker refuses the {side} orders whole\n{text}"
        )));
    }
    if let Some(e) = checked.errors.first() {
        return Err(Refusal {
            why: format!(
                "the checker refuses a {side} order: line {}: {}: {}\n{text}",
                e.line, e.text, e.message
            ),
            accepted: Some(Box::new(checked.orders)),
            others_stand: false,
        });
    }
    if checked.orders != *orders {
        return Err(refused(format!(
            "the {side} orders read back as other orders than those given\n{text}"
        )));
    }
    Ok(checked.orders)
}

/// The first march of `given` the checker refused, from what it accepted
/// (`accepted`, the orders it would give the engine): the marches are
/// planned in order and a refused one moves no one, so every march before
/// the first refused one is accepted as it would be alone with those
/// before it. `None` when that cannot be read from them (an order other
/// than a march refused, or a march changed).
fn first_refused(given: &Orders, accepted: &Orders) -> Option<usize> {
    let rest = |o: &Orders| Orders {
        marches: Vec::new(),
        ..o.clone()
    };
    if rest(given) != rest(accepted) {
        return None;
    }
    let k = given
        .marches
        .iter()
        .zip(&accepted.marches)
        .take_while(|(a, b)| a == b)
        .count();
    (k < given.marches.len()).then_some(k)
}

/// Orders made by a program, kept to what the checker accepts: all of them
/// if it accepts them as given; otherwise each march in turn, kept if the
/// checker accepts it with the ones kept before (marches are planned
/// together, in order), and the other orders likewise. Returns the orders
/// kept and why each one left out was.
pub fn keep_checked(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: Orders,
) -> (Orders, Vec<String>) {
    let (first, others_stand) = match verdict(scn, state, side, &orders) {
        Ok(_) => return (orders, Vec::new()),
        Err(r) => (r.accepted, r.others_stand),
    };
    let mut base = Orders {
        marches: Vec::new(),
        ..orders.clone()
    };
    let mut dropped = Vec::new();
    // The orders other than marches first, alone; left out whole if the
    // checker refuses them (it takes them if it refused marches only and
    // took them as given with the marches).
    if !others_stand && let Err(e) = verdict(scn, state, side, &base) {
        dropped.push(format!("orders other than marches left out: {}", e.why));
        base = Orders::default();
    }
    // What the first check accepted tells which marches it takes before
    // the first it refused, if the orders other than marches stand.
    let known = if dropped.is_empty() {
        first.and_then(|a| first_refused(&orders, &a))
    } else {
        None
    };
    let slots = orders.marches.into_iter().map(|m| vec![m]).collect();
    let (kept, more) = add_marches_from(scn, state, side, base, slots, known);
    dropped.extend(more);
    (kept, dropped)
}

/// Add to `kept` the first march of each slot the checker accepts with the
/// ones kept before it, in order ([`one_by_one`]), checking the first
/// choices of the slots left together before any slot is tried alone:
/// every slot before the first march the checker refuses is kept with its
/// first choice at once (a march is planned on the position the marches
/// before it leave, and a refused one moves no one: [`first_refused`]),
/// and only the refused slot is tried choice by choice. The marches kept
/// are those of trying every slot alone, with a check or two instead of
/// one a slot. `known`: the first refused slot, if a check of all the
/// first choices on `kept` has already said it.
fn add_marches_from(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    mut kept: Orders,
    slots: Vec<Vec<MarchOrder>>,
    mut known: Option<usize>,
) -> (Orders, Vec<String>) {
    let mut dropped = Vec::new();
    let mut slots = slots.into_iter().collect::<std::collections::VecDeque<_>>();
    while !slots.is_empty() {
        let together = Orders {
            marches: kept
                .marches
                .iter()
                .cloned()
                .chain(slots.iter().filter_map(|c| c.first().cloned()))
                .collect(),
            ..kept.clone()
        };
        let refused_at = match known.take() {
            Some(k) => Some(kept.marches.len() + k),
            None => match verdict(scn, state, side, &together) {
                Ok(_) => return (together, dropped),
                Err(r) => r.accepted.and_then(|a| first_refused(&together, &a)),
            },
        };
        // Slots without a choice take no place among the marches.
        let Some(k) = refused_at
            .filter(|k| *k >= kept.marches.len())
            .filter(|_| slots.iter().all(|c| !c.is_empty()))
        else {
            let (kept, more) = one_by_one(scn, state, side, kept, slots.into());
            dropped.extend(more);
            return (kept, dropped);
        };
        for _ in kept.marches.len()..k {
            if let Some(first) = slots.pop_front().and_then(|c| c.into_iter().next()) {
                kept.marches.push(first);
            }
        }
        let Some(refused) = slots.pop_front() else {
            break;
        };
        let (now, more) = one_by_one(scn, state, side, kept, vec![refused]);
        kept = now;
        dropped.extend(more);
    }
    (kept, dropped)
}

/// Each slot tried alone, in order, with the marches kept before it. The
/// last choice of a slot (its march by land) is also tried with its first
/// leg alone: a march of several legs to one place that the first leg may
/// reach ("TO Duem THEN TO Duem") is refused once the plan is there
/// already. A slot with nothing accepted is left out, with the checker's
/// reason for its last choice.
fn one_by_one(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    mut kept: Orders,
    slots: Vec<Vec<MarchOrder>>,
) -> (Orders, Vec<String>) {
    let mut dropped = Vec::new();
    for candidates in slots {
        let mut tries = candidates.clone();
        if let Some(land) = candidates.last().filter(|m| m.legs.len() > 1) {
            tries.push(MarchOrder {
                legs: land.legs[..1].to_vec(),
                ..land.clone()
            });
        }
        let mut reason = None;
        let mut ok = false;
        for (k, m) in tries.into_iter().enumerate() {
            kept.marches.push(m);
            match verdict(scn, state, side, &kept) {
                Ok(_) => {
                    ok = true;
                    break;
                }
                Err(e) => {
                    kept.marches.pop();
                    if k + 1 == candidates.len() {
                        reason = Some(e.why);
                    }
                }
            }
        }
        if !ok && let Some(e) = reason {
            dropped.push(format!("a march left out: {e}"));
        }
    }
    (kept, dropped)
}

/// The legs of a march by land to `to`, for a stack whose slowest land
/// unit has `reach` movement points: one leg when the place is near (a
/// month's march may reach it with the first roll, and a second leg to the
/// same place would be refused once there); when it is far, up to three
/// along the cheapest land route, each ending where a full march of
/// `reach` points would end, the last at `to`, so the stack rolls again
/// and goes on (8.31). Three legs all "TO the same place" would be refused:
/// the checker plans the first as reaching it.
pub fn legs_to(
    map: &crate::geo::Map,
    from: crate::geo::Hex,
    to: crate::geo::Hex,
    reach: u32,
) -> Vec<crate::engine::orders::Leg> {
    legs_avoiding(map, from, to, reach, &|_| false)
}

/// [`legs_to`], for a side that a scenario rule bars from some hexes
/// (`barred`, as [`crate::engine::march::barred_by_scenario`] gives): the
/// waypoints are on a route that keeps out of them.
pub fn legs_avoiding(
    map: &crate::geo::Map,
    from: crate::geo::Hex,
    to: crate::geo::Hex,
    reach: u32,
    barred: &dyn Fn(crate::geo::Hex) -> bool,
) -> Vec<crate::engine::orders::Leg> {
    use crate::engine::orders::Leg;
    use crate::geo::route::{empty_land_route, land_route, step_cost};
    if from.distance(to) <= NEAR {
        return vec![Leg::To(to)];
    }
    let route = if barred(from) || barred(to) {
        None
    } else {
        match land_route(map, from, to) {
            Some(r) if r.hexes.iter().any(|h| barred(*h)) => {
                let table = map.hex_table();
                empty_land_route(map, from, to, |j| barred(table.hex(j)))
            }
            r => r,
        }
    };
    let Some(route) = route else {
        return vec![Leg::To(to)];
    };
    let reach = reach.max(1);
    let mut legs = Vec::new();
    let mut spent = 0;
    let mut mark = reach;
    for w in route.hexes.windows(2) {
        let c = step_cost(map, w[0], w[1], &|_| false).unwrap_or(1);
        if spent + c > mark && legs.len() < 2 {
            if w[0] != from && legs.last() != Some(&Leg::To(w[0])) {
                legs.push(Leg::To(w[0]));
            }
            mark = spent + reach;
        }
        spent += c;
    }
    legs.push(Leg::To(to));
    legs
}

/// Whether `unit` is a land unit that marches: not a boat, gunboat or the
/// fleet, and with a movement allowance.
pub fn marches_by_land(scn: &Scenario, unit: &crate::state::Unit) -> bool {
    scn.units
        .get(&unit.unit_type)
        .is_some_and(type_marches_by_land)
}

/// Whether units of type `t` march by land ([`marches_by_land`], for a
/// caller that has looked the type up already).
pub fn type_marches_by_land(t: &crate::scenario::UnitType) -> bool {
    !t.kind.is_river_unit() && t.movement > 0
}

/// The movement allowance of the slowest land unit of `side` in `hex`
/// (boats, gunboats and the fleet aside), or 5 if none is known.
pub fn reach_at(scn: &Scenario, state: &GameState, side: Side, hex: crate::geo::Hex) -> u32 {
    state
        .units
        .iter()
        .filter(|u| u.side == side && u.hex() == Some(hex))
        .filter_map(|u| scn.units.get(&u.unit_type))
        .filter(|t| !t.kind.is_river_unit() && t.movement > 0)
        .map(|t| t.movement)
        .min()
        .unwrap_or(5)
}

/// Hexes within which a march is given one leg only (see [`legs_to`]).
pub const NEAR: u32 = 6;

/// Marches chosen the way a careful player writes them: each slot lists
/// marches in order of preference (by rail, by river, with the fleet, then
/// by land), and the first the checker accepts, with the marches kept
/// before it, is kept; a slot with none accepted is left out and said
/// why. When the first choices of every slot pass together, that is the
/// answer at once.
pub fn choose_marches(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    slots: Vec<Vec<MarchOrder>>,
) -> (Orders, Vec<String>) {
    let first = Orders {
        marches: slots.iter().filter_map(|c| c.first().cloned()).collect(),
        ..Orders::default()
    };
    let known = match verdict(scn, state, side, &first) {
        Ok(_) => return (first, Vec::new()),
        Err(r) => r.accepted.and_then(|a| first_refused(&first, &a)),
    };
    add_marches_from(scn, state, side, Orders::default(), slots, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Dice, SeededDice};
    use crate::engine::play_month_with;
    use crate::orders::Order;
    use crate::players::egyptian::Persona;
    use crate::players::mahdist::Opponents;
    use crate::players::reaction::Reactions;
    use crate::scenario::DataSet;
    use crate::state::setup::{Placements, initial_state};

    /// A position a programmed player decided in, and what it decided.
    pub(crate) struct Decided {
        pub(crate) state: GameState,
        pub(crate) side: Side,
        pub(crate) orders: Orders,
    }

    /// Every decision of bot-against-bot campaigns of `scenario`, one a
    /// seed, each side's persona as given.
    /// [`campaigns`] with the competent Egyptian, for the tests of the
    /// other players' files (which do not name the Egyptian's file).
    pub(crate) fn competent_campaigns(scenario: &str, seeds: u64) -> (Scenario, Vec<Decided>) {
        campaigns(scenario, seeds, Persona::Competent)
    }

    pub(crate) fn campaigns(
        scenario: &str,
        seeds: u64,
        persona: Persona,
    ) -> (Scenario, Vec<Decided>) {
        let data = DataSet::embedded().expect("the data built in");
        let scn = data.scenario(scenario).expect("a scenario built in");
        let table = Reactions::shipped().expect("the reaction tables");
        let opponents = Opponents::shipped().expect("the opponents' data");
        let mut out = Vec::new();
        for seed in 1..=seeds {
            let (mut state, _) = initial_state(&scn, &Placements::new()).expect("a set-up");
            let mut dice = Dice::new(SeededDice::from_seed(seed));
            let mut bot = Dice::new(SeededDice::from_seed(seed ^ 0x5eed));
            while state.result.is_none() {
                let month = state.month;
                let r = play_month_with(
                    &scn,
                    state,
                    &mut |s: &GameState, side| {
                        let orders = match side {
                            Side::Egyptian => {
                                egyptian::decide_with(&scn, s, persona, Some(&opponents)).orders
                            }
                            Side::Mahdist => {
                                mahdist::decide(&scn, s, &table, &opponents, &mut bot).orders
                            }
                        };
                        out.push(Decided {
                            state: s.clone(),
                            side,
                            orders: orders.clone(),
                        });
                        orders
                    },
                    &mut dice,
                );
                state = r.state;
                if state.month == month {
                    break;
                }
            }
        }
        (scn, out)
    }

    /// Orders to ask the checker about in a position: those decided, each
    /// march alone, the marches in the other order, the orders other than
    /// marches alone, and `other` (orders decided in another position or
    /// for the other side: mostly refused).
    fn asked(orders: &Orders, other: &Orders) -> Vec<Orders> {
        let mut out = vec![orders.clone(), other.clone()];
        for m in &orders.marches {
            out.push(Orders {
                marches: vec![m.clone()],
                ..Orders::default()
            });
        }
        let mut reversed = orders.clone();
        reversed.marches.reverse();
        out.push(reversed);
        out.push(Orders {
            marches: Vec::new(),
            ..orders.clone()
        });
        out
    }

    /// The sheet of `orders`, printed and read back, is the sheet: the
    /// same orders in the same order, on lines numbered from 1 up (a march
    /// with its conditions takes several lines of the text: the checker
    /// reads a line's number only to tell it from the others and keep them
    /// in order).
    fn reads_back(scn: &Scenario, state: &GameState, orders: &Orders) {
        let sheet = written::sheet(orders);
        let text = print::sheet(&scn.map, &sheet, false);
        let parsed = orders::parse(&Input::text(&text), &Vocabulary::new(scn).in_play(state))
            .unwrap_or_else(|e| panic!("refused whole: {e}\n{text}"));
        assert!(parsed.errors.is_empty(), "{:?}\n{text}", parsed.errors);
        let read: Vec<&Order> = parsed.sheet.items.iter().map(|i| &i.order).collect();
        let given: Vec<&Order> = sheet.items.iter().map(|i| &i.order).collect();
        assert_eq!(read, given, "{text}");
        for s in [&parsed.sheet, &sheet] {
            assert!(s.items.first().is_none_or(|i| i.line >= 1), "{text}");
            assert!(s.items.windows(2).all(|w| w[0].line < w[1].line), "{text}");
        }
        assert_eq!(parsed.sheet.header, sheet.header, "{text}");
    }

    /// Checking the sheet the orders make gives the answer of printing it,
    /// reading it back and checking that, in every position of whole
    /// campaigns of both scenarios and both personas, for the orders the
    /// players decide, parts of them, and orders the checker refuses.
    #[test]
    fn the_checked_sheet_answers_as_the_sheet_read_back() {
        let (mut asked_in_all, mut refused) = (0, 0);
        for scenario in ["khartoum", "el-obeid"] {
            for persona in [Persona::Competent, Persona::Historical] {
                let (scn, decided) = campaigns(scenario, 3, persona);
                assert!(
                    decided.len() > 20,
                    "{scenario}: {} positions",
                    decided.len()
                );
                for (k, d) in decided.iter().enumerate() {
                    reads_back(&scn, &d.state, &d.orders);
                    let other = &decided[(k + 1) % decided.len()].orders;
                    for orders in asked(&d.orders, other) {
                        let said = |r: Refusal| (r.why, r.accepted);
                        let short = verdict(&scn, &d.state, d.side, &orders).map_err(said);
                        let long = verdict_read_back(&scn, &d.state, d.side, &orders).map_err(said);
                        refused += usize::from(long.is_err());
                        asked_in_all += 1;
                        assert_eq!(short, long, "{scenario}, {}, {:?}", d.side, d.state.month);
                    }
                }
            }
        }
        assert!(refused > 50, "{refused} refused of {asked_in_all}");
        assert!(
            asked_in_all - refused > 500,
            "{refused} refused of {asked_in_all}"
        );
    }

    /// The check a programmed player's orders go through
    /// ([`orders::check::check_orders`]) gives the orders, errors and
    /// refusal the receipt's check gives, in every position of whole
    /// campaigns of both scenarios and both personas, for the orders
    /// decided, parts of them, and orders refused; the parts it leaves out
    /// (besieged hexes, arrivals, warnings) are there to leave out.
    #[test]
    fn the_players_check_answers_as_the_receipts_check() {
        let (mut refused, mut besieged, mut arriving, mut warned) = (0, 0, 0, 0);
        for scenario in ["khartoum", "el-obeid"] {
            for persona in [Persona::Competent, Persona::Historical] {
                let (scn, decided) = campaigns(scenario, 3, persona);
                for (k, d) in decided.iter().enumerate() {
                    let other = &decided[(k + 1) % decided.len()].orders;
                    for orders in asked(&d.orders, other) {
                        let sheet = written::sheet(&orders);
                        let full = orders::check(&sheet, &scn, &d.state, d.side);
                        let short = orders::check::check_orders(&sheet, &scn, &d.state, d.side);
                        assert_eq!(short.orders, full.orders, "{scenario} {k}");
                        assert_eq!(short.errors, full.errors, "{scenario} {k}");
                        assert_eq!(short.refused, full.refused, "{scenario} {k}");
                        refused += usize::from(!full.errors.is_empty());
                        besieged += usize::from(full.besieged.is_some_and(|b| !b.is_empty()));
                        arriving += usize::from(
                            full.plans
                                .iter()
                                .any(|(_, p)| !p.arriving.is_empty() || !p.joining.is_empty()),
                        );
                        warned += usize::from(full.warnings.len() > short.warnings.len());
                    }
                }
            }
        }
        assert!(
            refused > 50 && besieged > 50 && arriving > 10 && warned > 10,
            "{refused} refused, {besieged} besieged, {arriving} arriving, {warned} warned"
        );
    }

    /// When the checker refuses marches only and takes every other order
    /// as given, it takes the other orders alone: over every position of
    /// whole campaigns of both scenarios and both personas, for the orders
    /// decided, parts of them, and orders decided elsewhere, with and
    /// without the supply kept or spent and units withdrawn.
    #[test]
    fn the_other_orders_of_marches_refused_stand_alone() {
        let (mut standing, mut asked_in_all) = (0, 0);
        for scenario in ["khartoum", "el-obeid"] {
            for persona in [Persona::Competent, Persona::Historical] {
                let (scn, decided) = campaigns(scenario, 3, persona);
                for (k, d) in decided.iter().enumerate() {
                    let other = &decided[(k + 7) % decided.len()].orders;
                    let mut sets = asked(&d.orders, other);
                    let spared = evacuation::spare_the_british(&scn, &d.state);
                    for o in asked(other, &d.orders) {
                        sets.push(Orders {
                            expend_supply: spared.expend_supply.clone(),
                            withdraw: spared.withdraw.clone(),
                            keep_supply: other.keep_supply.clone(),
                            event_losses: d.orders.event_losses.clone(),
                            ..o
                        });
                    }
                    for orders in sets {
                        asked_in_all += 1;
                        let Err(r) = verdict(&scn, &d.state, d.side, &orders) else {
                            continue;
                        };
                        if !r.others_stand {
                            continue;
                        }
                        standing += 1;
                        let rest = Orders {
                            marches: Vec::new(),
                            ..orders.clone()
                        };
                        assert_eq!(
                            verdict(&scn, &d.state, d.side, &rest),
                            Ok(rest.clone()),
                            "{scenario} {k}"
                        );
                    }
                }
            }
        }
        assert!(standing > 100, "{standing} of {asked_in_all}");
    }

    /// Marches and other orders the checker takes together it takes apart
    /// (what the Egyptian player's first try at its orders rests on): over
    /// the Egyptian positions of whole campaigns, with the marches decided
    /// there and elsewhere, and the supply kept or spent and the units
    /// withdrawn there and elsewhere, the marches alone and the KEEP SUPPLY
    /// orders alone pass when all pass.
    #[test]
    fn marches_and_other_orders_taken_together_are_taken_apart() {
        let (mut together, mut with_supply, mut sparing) = (0, 0, 0);
        for scenario in ["khartoum", "el-obeid"] {
            let (scn, decided) = campaigns(scenario, 4, Persona::Competent);
            let egyptian: Vec<&Decided> = decided
                .iter()
                .filter(|d| d.side == Side::Egyptian)
                .collect();
            for (k, d) in egyptian.iter().enumerate() {
                let other = &egyptian[(k + 1) % egyptian.len()].orders;
                let alone = |o: &Orders| verdict(&scn, &d.state, Side::Egyptian, o).is_ok();
                // The orders that would spare the British were the
                // civilians on their way.
                let spared = evacuation::spare_the_british(&scn, &d.state);
                let sparing_here = Orders {
                    expend_supply: spared.expend_supply,
                    withdraw: spared.withdraw,
                    ..d.orders.clone()
                };
                for marches in [&d.orders.marches, &other.marches] {
                    for rest in [&d.orders, other, &sparing_here] {
                        let all = Orders {
                            marches: marches.clone(),
                            ..rest.clone()
                        };
                        if !alone(&all) {
                            continue;
                        }
                        together += 1;
                        let marching = Orders {
                            marches: marches.clone(),
                            ..Orders::default()
                        };
                        let keeping = Orders {
                            keep_supply: rest.keep_supply.clone(),
                            ..Orders::default()
                        };
                        assert!(alone(&marching), "{scenario} {k}: the marches");
                        assert!(alone(&keeping), "{scenario} {k}: the supply kept");
                        with_supply += usize::from(!rest.keep_supply.is_empty());
                        sparing += usize::from(
                            !rest.expend_supply.is_empty() || !rest.withdraw.is_empty(),
                        );
                    }
                }
            }
        }
        assert!(
            with_supply > 50 && sparing > 10,
            "{together} together, {with_supply} keeping supply, {sparing} sparing the British"
        );
    }
}
