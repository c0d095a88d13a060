//! The result log: engine events as text a player can check by hand.

use std::fmt::Write;

use crate::engine::events::{Decision, Event, Phase};
use crate::geo::{Hex, Map};
use crate::state::UnitId;

fn ids(units: &[UnitId]) -> String {
    if units.is_empty() {
        return "none".into();
    }
    units
        .iter()
        .map(|u| u.0.as_ref())
        .collect::<Vec<_>>()
        .join(" ")
}

fn decided(d: &Decision) -> String {
    match d {
        Decision::Orders => " [by orders]".into(),
        Decision::Default(why) => format!(" [default: {why}]"),
    }
}

/// The verb for an arrival, in agreement with what arrives: a
/// reinforcement, the monthly supply unit or "a Mahdist recruit" arrives;
/// a town's recruits, the boats taken (3.2) and the units a dismounting
/// gives (8.24) arrive.
fn arrive_verb(id: &str) -> &'static str {
    let plural = ["recruits ", "boats taken", "dismounted "]
        .iter()
        .any(|p| id.starts_with(p));
    if plural { "arrive" } else { "arrives" }
}

fn path(map: &Map, hexes: &[Hex]) -> String {
    hexes
        .iter()
        .map(|h| map.describe(*h))
        .collect::<Vec<_>>()
        .join(" - ")
}

/// One line (or a few) for an event: each kind of event has its line in
/// one of the groups below (a new kind of event needs one there).
pub fn event_line(map: &Map, e: &Event) -> String {
    // Every kind of event named here, so that a new kind fails to compile
    // until it is given its group and its line.
    let line = match e {
        Event::PhaseBegins { .. }
        | Event::Rolled { .. }
        | Event::RandomEvent { .. }
        | Event::Note { .. }
        | Event::UnderSiege { .. }
        | Event::VictoryCheck { .. }
        | Event::GameOver { .. } => turn_line(map, e),
        Event::OrderSetAside { .. }
        | Event::MarchBegins { .. }
        | Event::LeaderHelps { .. }
        | Event::MarchResult { .. }
        | Event::Moved { .. }
        | Event::Stopped { .. }
        | Event::DroppedOff { .. } => march_line(map, e),
        Event::Disrupted { .. }
        | Event::Eliminated { .. }
        | Event::SupplyExpended { .. }
        | Event::AttritionExempt { .. }
        | Event::Recovered { .. }
        | Event::StillDisrupted { .. }
        | Event::LeaderRemoved { .. }
        | Event::Succession { .. } => unit_line(map, e),
        Event::CombatBegins { .. }
        | Event::CombatResult { .. }
        | Event::Retreat { .. }
        | Event::Captured { .. } => combat_line(map, e),
        Event::Arrived { .. } | Event::Replaced { .. } => arrival_line(map, e),
    };
    line.unwrap_or_default()
}

/// The turn's frame: phases, rolls, events of the random table, notes,
/// sieges and victory.
fn turn_line(map: &Map, e: &Event) -> Option<String> {
    let line = match e {
        Event::PhaseBegins { side, phase, month } => {
            let p = match phase {
                Phase::RandomEvents => "I. random events",
                Phase::Reinforcements => "II. reinforcements",
                Phase::March => "III. march",
                Phase::Attrition => "IV. attrition",
                Phase::Recovery => "V. recovery",
            };
            format!("== {} {side} player turn, phase {p}", month.long_name())
        }
        Event::Rolled(t) => {
            let mods: String = t
                .modifiers
                .iter()
                .map(|(n, v)| format!(" {v:+} {n}"))
                .collect();
            let dice = t
                .roll
                .dice
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("+");
            format!(
                "  roll {} for {}: {dice}{mods} = {}; {}: {}",
                t.roll.kind, t.roll.purpose, t.total, t.table, t.line
            )
        }
        Event::RandomEvent { table, title, text } => {
            if text.is_empty() {
                format!("  random event ({table}): {title}")
            } else {
                format!("  random event ({table}): {title}. {text}")
            }
        }
        Event::Note { text } => format!("  {text}"),
        Event::UnderSiege { hexes } => {
            if hexes.is_empty() {
                "  no town, village or oasis is under siege".into()
            } else {
                format!(
                    "  under siege (9.12): {}",
                    hexes
                        .iter()
                        .map(|h| map.describe(*h))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        }
        Event::VictoryCheck { condition, status } => format!("  victory: {condition}: {status}"),
        Event::GameOver { result } => format!("*** {result}"),
        _ => return None,
    };
    Some(line)
}

/// The march phase: orders, marches, moves, stops and drop-offs.
fn march_line(map: &Map, e: &Event) -> Option<String> {
    let line = match e {
        Event::OrderSetAside { order, reason } => {
            format!("  order {} set aside: {reason}", order + 1)
        }
        Event::MarchBegins {
            order,
            from,
            units,
            leaders,
        } => {
            let l = if leaders.is_empty() {
                String::new()
            } else {
                format!(" with {}", leaders.join(", "))
            };
            format!(
                "  order {}: stack at {} marches: {}{l}",
                order + 1,
                map.describe(*from),
                ids(units)
            )
        }
        Event::LeaderHelps {
            order,
            leader,
            decided_by,
        } => {
            format!(
                "  order {}: {leader}'s strategic rating helps the march rolls (7.1){}",
                order + 1,
                decided(decided_by)
            )
        }
        Event::MarchResult {
            order,
            leg,
            result,
            movement_points,
        } => {
            format!(
                "  order {}, march {}: {result}, {}",
                order + 1,
                leg + 1,
                crate::words::count(*movement_points, "movement point", "movement points")
            )
        }
        Event::Moved {
            order,
            path: p,
            cost,
        } => format!("  order {}: moves {} ({cost} MP)", order + 1, path(map, p)),
        Event::Stopped { order, at, reason } => format!(
            "  order {}: stops at {}: {reason}",
            order + 1,
            map.describe(*at)
        ),
        Event::DroppedOff {
            order,
            at,
            units,
            leaders,
        } => {
            let l = if leaders.is_empty() {
                String::new()
            } else {
                format!(" and {}", leaders.join(", "))
            };
            format!(
                "  order {}: drops off {}{l} at {}",
                order + 1,
                ids(units),
                map.describe(*at)
            )
        }
        _ => return None,
    };
    Some(line)
}

/// What befalls units and leaders: disruption, elimination, supply,
/// attrition, recovery, leaders removed and succeeded.
fn unit_line(map: &Map, e: &Event) -> Option<String> {
    let line = match e {
        Event::Disrupted {
            unit,
            hex,
            cause,
            decided_by,
        } => {
            format!(
                "  {unit} at {} disrupted ({cause}){}",
                map.describe(*hex),
                decided(decided_by)
            )
        }
        Event::Eliminated {
            unit,
            hex,
            cause,
            decided_by,
        } => {
            format!(
                "  {unit} at {} eliminated ({cause}){}",
                map.describe(*hex),
                decided(decided_by)
            )
        }
        Event::SupplyExpended {
            unit,
            hex,
            decided_by,
        } => {
            format!(
                "  supply {unit} expended at {}{}",
                map.describe(*hex),
                decided(decided_by)
            )
        }
        Event::AttritionExempt { hex, reason } => {
            format!("  no attrition at {}: {reason}", map.describe(*hex))
        }
        Event::Recovered { unit, hex } => format!("  {unit} at {} recovers", map.describe(*hex)),
        Event::StillDisrupted { unit, hex } => {
            format!("  {unit} at {} stays disrupted", map.describe(*hex))
        }
        Event::LeaderRemoved { leader, hex, how } if how.is_empty() => {
            format!("  {leader} removed at {} (7.2)", map.describe(*hex))
        }
        Event::LeaderRemoved { leader, hex, how } => {
            format!("  {leader} removed at {}: {how} (7.2)", map.describe(*hex))
        }
        Event::Succession { leader, hex } => match hex {
            Some(h) => format!(
                "  the {leader} succeeds the Mahdi, at {} (7.2)",
                map.describe(*h)
            ),
            None => format!("  no Mahdist stack on the main map: the {leader} is lost too (7.2)"),
        },
        _ => return None,
    };
    Some(line)
}

/// Combats: who attacks whom, the result, retreats and captures.
fn combat_line(map: &Map, e: &Event) -> Option<String> {
    let line = match e {
        Event::CombatBegins {
            order,
            attacker,
            defender,
            attackers,
            defenders,
        } => format!(
            "  order {}: COMBAT: {} ({}) attacks {} ({})",
            order + 1,
            map.describe(*attacker),
            ids(attackers),
            map.describe(*defender),
            ids(defenders)
        ),
        Event::CombatResult {
            order,
            defender,
            result,
        } => {
            format!(
                "  order {}: combat at {}: {result}",
                order + 1,
                map.describe(*defender)
            )
        }
        Event::Retreat {
            side,
            from,
            to,
            decided_by,
        } => match to {
            Some(h) => format!(
                "  {side} stack retreats from {} to {}{}",
                map.describe(*from),
                map.describe(*h),
                decided(decided_by)
            ),
            None => format!(
                "  {side} stack at {} does not retreat{}",
                map.describe(*from),
                decided(decided_by)
            ),
        },
        Event::Captured {
            unit,
            becomes,
            hex,
            owner,
            rule,
        } => {
            let owner = if owner.is_empty() { "Mahdist" } else { owner };
            let rule = if rule.is_empty() { "9.9" } else { rule };
            match becomes {
                Some(n) => format!(
                    "  {unit} captured at {}: becomes {owner} {n} ({rule})",
                    map.describe(*hex)
                ),
                None => format!(
                    "  {unit} captured at {}, but no {owner} counter is spare ({rule})",
                    map.describe(*hex)
                ),
            }
        }
        _ => return None,
    };
    Some(line)
}

/// The reinforcement phase: arrivals and replacements.
fn arrival_line(map: &Map, e: &Event) -> Option<String> {
    let line = match e {
        Event::Arrived {
            id,
            hex,
            units,
            leaders,
            lost,
            decided_by,
        } => {
            let l = if leaders.is_empty() {
                String::new()
            } else {
                format!(" with {}", leaders.join(", "))
            };
            let lost = if lost.is_empty() {
                String::new()
            } else {
                format!(
                    "; lost for want of a counter or a place: {}",
                    lost.join(", ")
                )
            };
            format!(
                "  {id} {} at {}: {}{l}{lost}{}",
                arrive_verb(id),
                map.describe(*hex),
                ids(units),
                decided(decided_by)
            )
        }
        Event::Replaced { unit, hex } => format!(
            "  {unit} returns as a replacement at {} (3.3)",
            map.describe(*hex)
        ),
        _ => return None,
    };
    Some(line)
}

/// The whole log.
pub fn render(map: &Map, events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        let _ = writeln!(out, "{}", event_line(map, e));
    }
    out
}
