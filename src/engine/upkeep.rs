//! Attrition (5.2 IV, 5.3 IV, 6.0, 9.12) and recovery (5.2 V, 5.3 V, 7.4).

use super::Turn;
use super::events::{Decision, Event};
use super::losses;
use super::modifiers::{self, RollContext};
use super::orders::Orders;
use crate::dice::DieSource;
use crate::geo::Hex;
use crate::scenario::tables::RecoveryResult;
use crate::scenario::{Nation, Side, UnitKind};

/// Stacks with at least this many units expend their supply by default.
pub const DEFAULT_SUPPLY_STACK: usize = 7;

/// The default's reason for keeping a supply unit whose presence wins.
pub const KEEP_WINNING_SUPPLY: &str =
    "keep a supply unit whose presence wins the game (4.2), whatever the size of the stack";

/// The supply units among `units` at `hex`: the first of them, and the one
/// to spend without giving up a win, if any. 4.2: the Egyptian side wins
/// "at the end of any Mahdist turn when a British supply unit is in
/// Khartoum"; a supply unit whose presence there wins is spent only when
/// another such unit stays (docs/rules.md 4.2).
fn supply_to_spend<S: DieSource>(
    t: &Turn<'_, S>,
    hex: Hex,
    units: &[usize],
) -> (Option<usize>, Option<usize>) {
    let supplies: Vec<usize> = units
        .iter()
        .copied()
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Supply))
        .collect();
    let wins = |u: usize| {
        t.type_at(u)
            .is_some_and(|ty| super::victory::presence_wins(t.scn, t.side, hex, ty))
    };
    let winners = supplies.iter().filter(|&&u| wins(u)).count();
    let spare = supplies
        .iter()
        .copied()
        .find(|&u| !wins(u))
        .or_else(|| supplies.first().copied().filter(|_| winners > 1));
    (supplies.first().copied(), spare)
}

/// The log's note of a supply unit kept by default because it wins.
fn keep_winning_supply<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex, s: usize) {
    let id = t.state.units[s].id.clone();
    t.events.push(Event::Note {
        text: format!(
            "{id} at {} is not expended: no order says so, and its presence at the end of the Mahdist turn wins the game (4.2); the stack rolls for attrition",
            t.scn.map.describe(hex)
        ),
    });
}

/// The hexes holding `side`'s units, in row order.
fn stack_hexes<S: DieSource>(t: &Turn<'_, S>, side: Side) -> Vec<Hex> {
    let mut hexes: Vec<Hex> = t
        .state
        .units
        .iter()
        .filter(|u| u.side == side)
        .filter_map(|u| u.hex())
        .collect();
    hexes.sort_by_key(|h| (h.row, h.col));
    hexes.dedup();
    hexes
}

/// Every stack of the phasing side rolls on the attrition table, except
/// Egyptian stacks that expend a supply unit. "All Mahdist units must roll
/// for attrition" (5.3 IV); "All Egyptian player units that are not stacked
/// with a supply unit must roll" (5.2 IV): boats and gunboats roll with the
/// stack and count in its size. The British fleet does not (its presence is
/// governed by 8.25 alone; docs/rules.md, the attrition table).
pub fn attrition_phase<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    // A town that fell in the march phase has fallen (2.2), whoever holds
    // it by the next Mahdist reinforcement phase.
    super::arrivals::note_falls(t);
    // A supply order for a hex with no supply unit of the side in the
    // attrition phase (it moved, or was lost) is said, not dropped.
    let has_supply = |t: &Turn<'_, S>, hex: Hex| {
        t.units_at(hex, t.side)
            .iter()
            .any(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Supply))
    };
    for (what, hexes) in [
        ("EXPEND SUPPLY", &orders.expend_supply),
        ("KEEP SUPPLY", &orders.keep_supply),
    ] {
        for &hex in hexes.iter() {
            if !has_supply(t, hex) {
                t.events.push(Event::Note {
                    text: format!(
                        "{what} AT {} set aside: no supply unit of yours is there in the attrition phase (5.2 IV)",
                        t.scn.map.describe(hex)
                    ),
                });
            }
        }
    }
    for hex in stack_hexes(t, t.side) {
        let units = rolling_units(t, hex);
        if units.is_empty() {
            continue;
        }
        let besieged = t.is_besieged(hex, t.side);
        if t.side == Side::Egyptian {
            let (supply, spare) = supply_to_spend(t, hex, &units);
            if let Some(s) = spare.or(supply) {
                let (expend, decided_by) = if orders.expend_supply.contains(&hex) {
                    (true, Decision::Orders)
                } else if orders.keep_supply.contains(&hex) {
                    (false, Decision::Orders)
                } else if spare.is_none() {
                    keep_winning_supply(t, hex, s);
                    (false, Decision::Default(KEEP_WINNING_SUPPLY.into()))
                } else {
                    let big = units.len() >= DEFAULT_SUPPLY_STACK;
                    (
                        big || besieged,
                        Decision::Default(format!(
                            "expend supply in stacks of {DEFAULT_SUPPLY_STACK} or more units, or under siege"
                        )),
                    )
                };
                if expend {
                    let id = t.state.units[s].id.clone();
                    t.state.units[s].status = losses::status_after_elimination(t, s);
                    t.state.units[s].disrupted = false;
                    t.events.push(Event::SupplyExpended {
                        unit: id,
                        hex,
                        decided_by,
                    });
                    t.events.push(Event::AttritionExempt {
                        hex,
                        reason: "in supply (5.2 IV)".into(),
                    });
                    // A leader never stands alone (7.0): one whose last
                    // unit was the supply unit spent goes as leaders do
                    // when every unit with them is gone.
                    t.remove_lone_leaders(hex, "the supply unit he was with was expended (5.2 IV)");
                    continue;
                }
            }
        }
        roll_attrition(t, hex, units, besieged);
    }
    // Disease and the like: stacks near a place roll again (random event).
    let extra: Vec<(Hex, u32)> = t
        .state
        .effects
        .extra_attrition
        .iter()
        .filter(|(s, _, _)| *s == t.side)
        .map(|(_, h, r)| (*h, *r))
        .collect();
    for (centre, radius) in extra {
        for hex in stack_hexes(t, t.side)
            .into_iter()
            .filter(|h| h.distance(centre) <= radius)
        {
            let units = rolling_units(t, hex);
            if units.is_empty() {
                continue;
            }
            t.events.push(Event::Note {
                text: format!(
                    "a random event brings a second attrition roll at {}",
                    t.scn.map.describe(hex)
                ),
            });
            let besieged = t.is_besieged(hex, t.side);
            roll_attrition(t, hex, units, besieged);
        }
    }
}

/// The phasing side's units in `hex` that roll for attrition: all but the
/// British fleet.
fn rolling_units<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Vec<usize> {
    t.units_at(hex, t.side)
        .into_iter()
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind != UnitKind::Fleet))
        .collect()
}

fn roll_attrition<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex, units: Vec<usize>, besieged: bool) {
    let table = &t.scn.tables.attrition;
    let cx = RollContext {
        side: Some(t.side),
        month: Some(t.state.month),
        units: t.profile(&units),
        terrain: t.scn.map.terrain(hex),
        in_settlement: t.scn.map.settlement_at(hex).is_some(),
        under_siege: besieged,
        ..RollContext::default()
    };
    let mods = modifiers::applicable(&table.modifiers, &cx);
    let tos: Vec<i32> = table.rows.iter().map(|r| r.to).collect();
    let rows = table.rows.clone();
    let column = if besieged { "under siege" } else { "open" };
    let pick = move |v: i32| -> Option<(usize, crate::scenario::tables::Hits)> {
        let i = rows
            .iter()
            .position(|r| v <= r.to)
            .unwrap_or(rows.len().saturating_sub(1));
        rows.get(i)
            .map(|r| (i, if besieged { r.siege } else { r.open }))
    };
    let total = t.table_roll(
        table.dice,
        format!("attrition at {}", t.scn.map.describe(hex)),
        "attrition table",
        mods,
        |v| match pick(v) {
            Some((i, h)) => format!(
                "{}, {column}: {}% disrupted, {}% eliminated",
                modifiers::range_label(&tos, i),
                h.disrupt(),
                h.eliminate()
            ),
            None => "no row".into(),
        },
    );
    let Some((_, hits)) = pick(total) else { return };
    let n = units.len();
    // Rounded down, at least one unit when the percentage is not zero, as
    // for march attrition and combat (rules reference).
    let elim = losses::share(n, hits.eliminate());
    let disr = losses::share(n, hits.disrupt());
    let british: Vec<usize> = units
        .iter()
        .copied()
        .filter(|&u| {
            t.type_at(u).is_some_and(|ty| {
                ty.nation == Nation::British
                    && !matches!(ty.kind, UnitKind::Camel | UnitKind::Supply)
            })
        })
        .collect();
    let gone = losses::apply(t, hex, &units, disr, elim, "attrition", &[]);
    if gone.iter().any(|g| british.contains(g)) && !t.state.british_attrition_loss {
        t.state.british_attrition_loss = true;
        // 4.2: said when it happens, not left for the end of the game.
        if t.scn.def.victory.iter().any(|c| {
            matches!(
                c,
                crate::scenario::definition::VictoryCondition::DrawCapOnBritishAttrition { .. }
            )
        }) {
            t.events.push(Event::Note {
                text: "a British unit was lost to attrition: from now on the Egyptian player can at best draw (4.2)".into(),
            });
        }
    }
}

/// Every disrupted unit of the phasing side rolls to recover.
pub fn recovery_phase<S: DieSource>(t: &mut Turn<'_, S>) {
    for hex in stack_hexes(t, t.side) {
        let disrupted: Vec<usize> = t
            .units_at(hex, t.side)
            .into_iter()
            .filter(|&u| t.state.units[u].disrupted)
            .collect();
        if disrupted.is_empty() {
            continue;
        }
        let leaders = t.leaders_at(hex, t.side);
        let leader = t.ruling_leader(&leaders, None, true);
        let besieged = t.is_besieged(hex, t.side);
        for u in disrupted {
            let table = &t.scn.tables.recovery;
            let ty = t.type_at(u);
            let cx = RollContext {
                side: Some(t.side),
                month: Some(t.state.month),
                quality: ty.map(|ty| ty.quality),
                under_siege: besieged,
                leader,
                ..RollContext::default()
            };
            let mods = modifiers::applicable(&table.modifiers, &cx);
            let id = t.state.units[u].id.clone();
            let result = t.row_roll(
                table.dice,
                format!("recovery of {id}"),
                "recovery table",
                mods,
                &table.rows,
                ToString::to_string,
            );
            if result == Some(&RecoveryResult::Recovers) {
                t.state.units[u].disrupted = false;
                t.events.push(Event::Recovered { unit: id, hex });
            } else {
                t.events.push(Event::StillDisrupted { unit: id, hex });
            }
        }
    }
}
