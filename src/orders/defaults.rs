//! What the engine will choose for a player where the orders say nothing:
//! the defaults listed at the end of the receipt, so a player sees before
//! the turn what will be decided for each stack (supply in the attrition
//! phase, which units take losses first, where arrivals go), and the
//! receipt's sentence on READY.
//!
//! Each default is read from the same rule the engine applies
//! (`engine::upkeep`, `engine::losses`, `engine::arrivals`), on the
//! position at the start of the turn: marches and combats change stacks,
//! which the receipt says.

use std::fmt::Write as _;

use super::{Checked, Sheet};
use crate::engine::orders::{MONTHLY_SUPPLY, Orders, RECRUITS};
use crate::engine::upkeep::DEFAULT_SUPPLY_STACK;
use crate::engine::victory;
use crate::scenario::definition::Arrival;
use crate::scenario::{Scenario, Side, UnitKind, Zone};
use crate::state::GameState;

/// The width the defaults are wrapped to.
const WIDTH: usize = 78;

/// The receipt's sentence on READY, given the number of lines of the set
/// that will not be carried out (NOT UNDERSTOOD or NOT POSSIBLE).
pub fn ready_sentence(sheet: &Sheet, errors: usize) -> &'static str {
    if errors == 0 {
        "You said READY: your orders for this turn are complete."
    } else if sheet.as_is() {
        "You said READY AS IS: the set plays as it stands, without its refused lines."
    } else {
        "You said READY, but lines of this set will not be carried out: the turn waits for\n\
         a mended set, or for READY AS IS to play this one as it stands."
    }
}

/// The defaults that will apply to `side`'s stacks with these orders, as
/// the closing part of the receipt; empty for a set refused whole.
pub fn receipt(scn: &Scenario, state: &GameState, side: Side, checked: &Checked) -> String {
    if checked.refused {
        return String::new();
    }
    let orders = &checked.orders;
    let mut lines = supply(scn, state, side, checked);
    lines.extend(arrivals(scn, state, side, orders));
    lines.extend(losses(orders));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nDefaults: where these orders say nothing, Dervish decides for you as follows"
    );
    let _ = writeln!(
        out,
        "(from the position now; marches and combats may change the stacks):"
    );
    let opts = textwrap::Options::new(WIDTH)
        .initial_indent("- ")
        .subsequent_indent("  ")
        .break_words(false);
    for l in lines {
        // textwrap may break a line after a hyphen; without one, the
        // first-fit of `words` gives the same lines for less.
        if l.contains('-') {
            for w in textwrap::wrap(&l, &opts) {
                let _ = writeln!(out, "{w}");
            }
        } else {
            for w in crate::words::wrap_words(&l, WIDTH, "- ", "  ") {
                let _ = writeln!(out, "{w}");
            }
        }
    }
    out
}

/// Attrition (5.2 IV): each Egyptian stack with a supply unit and no
/// EXPEND or KEEP SUPPLY order for its hex. Mahdist stacks always roll.
/// The besieged hexes are the checker's, worked out on the same position.
fn supply(scn: &Scenario, state: &GameState, side: Side, checked: &Checked) -> Vec<String> {
    if side != Side::Egyptian {
        return Vec::new();
    }
    let orders = &checked.orders;
    let besieged = match &checked.besieged {
        Some(hexes) => hexes.clone(),
        None => victory::besieged(scn, state, side),
    };
    let mut out = Vec::new();
    for hex in supply_hexes(scn, state, side) {
        if orders.expend_supply.contains(&hex) || orders.keep_supply.contains(&hex) {
            continue;
        }
        let types: Vec<_> = state
            .units
            .iter()
            .filter(|u| u.side == side && u.hex() == Some(hex))
            .filter_map(|u| scn.units.get(&u.unit_type))
            .filter(|ty| ty.kind != UnitKind::Fleet)
            .collect();
        let supplies: Vec<_> = types
            .iter()
            .filter(|ty| ty.kind == UnitKind::Supply)
            .collect();
        if supplies.is_empty() {
            continue;
        }
        let at = scn.map.describe(hex);
        let winners = supplies
            .iter()
            .filter(|ty| victory::presence_wins(scn, side, hex, ty))
            .count();
        let line = if winners == supplies.len() && winners == 1 {
            format!(
                "supply at {at}: the supply unit is kept, as its presence at the end of the \
                 Mahdist turn wins the game (4.2); the stack rolls for attrition \
                 (EXPEND SUPPLY AT {at} to spend it)"
            )
        } else if types.len() >= DEFAULT_SUPPLY_STACK || besieged.contains(&hex) {
            let why = if besieged.contains(&hex) {
                "it is under siege".to_string()
            } else {
                format!("it has {} units", types.len())
            };
            format!(
                "supply at {at}: a supply unit is expended in the attrition phase, as {why} \
                 (stacks of {DEFAULT_SUPPLY_STACK} or more, or under siege); KEEP SUPPLY AT {at} \
                 to keep it and roll for attrition"
            )
        } else {
            format!(
                "supply at {at}: the supply unit is kept and the stack of {} rolls for \
                 attrition (fewer than {DEFAULT_SUPPLY_STACK} units, not under siege); EXPEND \
                 SUPPLY AT {at} to spend it",
                crate::words::count(types.len(), "unit", "units")
            )
        };
        out.push(line);
    }
    out
}

/// The hexes where `side` has a supply unit on the map, in the order of
/// [`GameState::stacks`] (row, then column).
fn supply_hexes(scn: &Scenario, state: &GameState, side: Side) -> Vec<crate::geo::Hex> {
    let mut hexes: Vec<crate::geo::Hex> = state
        .units
        .iter()
        .filter(|u| u.side == side)
        .filter_map(|u| {
            u.hex().filter(|_| {
                scn.units
                    .get(&u.unit_type)
                    .is_some_and(|t| t.kind == UnitKind::Supply)
            })
        })
        .collect();
    hexes.sort_by_key(|h| (h.row, h.col));
    hexes.dedup();
    hexes
}

/// Where arrivals go without a PLACE order: the scenario's reinforcements
/// due by this month with more than one place, the monthly supply unit
/// (3.3) and the Mahdist recruits (3.21).
fn arrivals(scn: &Scenario, state: &GameState, side: Side, orders: &Orders) -> Vec<String> {
    let mut out = Vec::new();
    for r in scn.def.reinforcements.iter().filter(|r| r.side == side) {
        let due = matches!(r.arrives, Arrival::Month(m) if m <= state.month);
        if !due || state.arrived.contains(&r.id) || orders.place.contains_key(&r.id) {
            continue;
        }
        let places = zone_places(&r.zone);
        if places.len() > 1 {
            out.push(format!(
                "{} arrives at the first of these not held by the enemy: {} (PLACE {} AT a \
                 place to choose)",
                r.id,
                places.join(", "),
                r.id
            ));
        }
    }
    let rep = &scn.def.replacements;
    let supply_due = rep.free_supply_from.is_some_and(|m| m <= state.month);
    if side == Side::Egyptian && supply_due && !orders.place.contains_key(MONTHLY_SUPPLY) {
        out.push(format!(
            "the monthly supply unit arrives at the first of these not held by the enemy: {} \
             (PLACE SUPPLY AT a place to choose; 3.3)",
            rep.free_supply_places.join(", ")
        ));
    }
    if side == Side::Mahdist && !orders.place.contains_key(RECRUITS) {
        out.push(
            "new Mahdist units join the largest Mahdist stack on the main map (PLACE RECRUITS \
             AT a stack's place to choose; 3.21)"
                .into(),
        );
    }
    out
}

/// The names of a zone's places when the owner chooses among named places
/// (`OneOf`); nothing for other zones.
fn zone_places(zone: &Zone) -> Vec<String> {
    match zone {
        Zone::OneOf(names) => names.clone(),
        _ => Vec::new(),
    }
}

/// Who takes losses (9.4) and what a random event takes (4.2).
fn losses(orders: &Orders) -> Vec<String> {
    let mut out = Vec::new();
    if orders.standing_lose_first.is_empty() {
        out.push(format!(
            "combat losses, in your player turn and the other player's: {} (9.4); DEFEND LOSE \
             FIRST unit ... to choose",
            crate::engine::losses::DEFAULT_POLICY
        ));
    }
    if orders.event_losses.is_empty() {
        out.push(
            "a random event that takes units of your choice takes the worst unit of your \
             largest stack (EVENT LOSSES unit ... to choose)"
                .into(),
        );
    }
    out
}
