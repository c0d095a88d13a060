//! Victory conditions (rules 4.1, 4.2), checked at the end of each player
//! turn, with the consecutive-turn counts kept in the state.

use super::Turn;
use super::events::Event;
use crate::dice::DieSource;
use crate::scenario::definition::VictoryCondition;
use crate::scenario::{Nation, Side};
use crate::state::GameResult;

/// Look at every victory condition at the end of the phasing player's turn.
pub fn check<S: DieSource>(t: &mut Turn<'_, S>) {
    if t.state.result.is_some() {
        return;
    }
    let conditions = t.scn.def.victory.clone();
    let mut wins: Vec<(Side, String)> = Vec::new();
    for (i, c) in conditions.iter().enumerate() {
        let key = format!("victory-{i}");
        match c {
            VictoryCondition::NoSiege { places, turns } if t.side == Side::Egyptian => {
                let hexes: Vec<_> = places
                    .iter()
                    .filter_map(|p| t.scn.map.resolve(p).ok())
                    .collect();
                let why_not: Vec<String> = places
                    .iter()
                    .zip(&hexes)
                    .filter_map(|(p, h)| relieved(t, *h).err().map(|w| format!("{p} {w}")))
                    .collect();
                let n = bump(t, &key, why_not.is_empty() && hexes.len() == places.len());
                t.events.push(Event::VictoryCheck {
                    condition: format!(
                        "neither {} under siege for {turns} Egyptian turns (4.1)",
                        places.join(" nor ")
                    ),
                    status: if why_not.is_empty() {
                        format!("{n} of {turns}")
                    } else {
                        format!("{n} of {turns}: {}", why_not.join("; "))
                    },
                });
                if n >= *turns {
                    wins.push((
                        Side::Egyptian,
                        format!(
                            "neither {} under siege for {turns} turns",
                            places.join(" nor ")
                        ),
                    ));
                }
            }
            VictoryCondition::Siege { place, turns } if t.side == Side::Egyptian => {
                let besieged = t
                    .scn
                    .map
                    .resolve(place)
                    .is_ok_and(|h| t.is_besieged(h, Side::Egyptian));
                let n = bump(t, &key, besieged);
                t.events.push(Event::VictoryCheck {
                    condition: format!("{place} under siege for {turns} Egyptian turns (4.1)"),
                    status: format!("{n} of {turns}"),
                });
                if n >= *turns {
                    wins.push((Side::Mahdist, format!("{place} besieged for {turns} turns")));
                }
            }
            VictoryCondition::Capture { place, winner } => {
                if let Ok(h) = t.scn.map.resolve(place) {
                    let held = t.occupied_by(h, *winner) && !t.occupied_by(h, winner.enemy());
                    if held && t.state.control.get(&h) == Some(winner) {
                        wins.push((*winner, format!("{place} captured")));
                    }
                }
            }
            VictoryCondition::LeaderEliminated { leader, winner } => {
                let gone = t
                    .state
                    .leaders
                    .iter()
                    .any(|l| l.name == *leader && l.removed);
                if gone {
                    wins.push((*winner, format!("{leader} eliminated")));
                }
            }
            VictoryCondition::UnitIn {
                kind,
                nation,
                places,
                at_end_of,
                winner,
            } if t.side == *at_end_of => {
                let hexes: Vec<_> = places
                    .iter()
                    .filter_map(|p| t.scn.map.resolve(p).ok())
                    .collect();
                let found = t.state.units.iter().any(|u| {
                    u.hex().is_some_and(|h| hexes.contains(&h))
                        && t.unit_type(u).is_some_and(|ty| {
                            ty.kind == *kind && nation.is_none_or(|n| n == ty.nation)
                        })
                });
                if found {
                    wins.push((*winner, format!("a {kind} unit in {}", places.join(" or "))));
                }
            }
            VictoryCondition::BritishLeaderStackEliminated
                if t.state.british_leader_stack_destroyed =>
            {
                wins.push((
                    Side::Mahdist,
                    "a stack with a British leader destroyed in combat".into(),
                ));
            }
            VictoryCondition::EndedByEvent if t.state.ended_by_event => {
                t.state.result = Some(GameResult {
                    winner: None,
                    reason: "the game was ended by a random event".into(),
                });
            }
            _ => {}
        }
    }
    let cap = t.state.british_attrition_loss
        && conditions
            .iter()
            .any(|c| matches!(c, VictoryCondition::DrawCapOnBritishAttrition { .. }));
    if let Some((side, reason)) = wins.into_iter().next() {
        let (winner, reason) = if side == Side::Egyptian && cap {
            (
                None,
                format!("{reason}, but a British unit was lost to attrition: a draw at best (4.2)"),
            )
        } else {
            (Some(side), reason)
        };
        t.state.result = Some(GameResult { winner, reason });
    }
    let last_turn = t.side == Side::Mahdist && t.state.month >= t.scn.def.end;
    if t.state.result.is_none() && last_turn {
        t.state.result = Some(GameResult {
            winner: None,
            reason: format!(
                "no one has won by the end of {}: a draw",
                t.scn.def.end.long_name()
            ),
        });
    }
    if let Some(r) = &t.state.result {
        let result = match r.winner {
            Some(s) => format!("{s} victory: {}", r.reason),
            None => format!("Draw: {}", r.reason),
        };
        t.events.push(Event::GameOver { result });
    }
}

/// Whether an Egyptian town counts as "not under siege" for 4.1, or why
/// not. Ruling (docs/rules.md 4.1): the town must be held by the Egyptian
/// side (it controls it: its units were the last to occupy it) and no
/// Mahdist land unit may stand next to it. A fallen or Mahdist-held town
/// is not relieved, nor is an empty one the Mahdists surround.
fn relieved<S: DieSource>(t: &Turn<'_, S>, hex: crate::geo::Hex) -> Result<(), &'static str> {
    if t.land_occupied_by(hex, Side::Mahdist) || t.state.control.get(&hex) == Some(&Side::Mahdist) {
        return Err("is held by the Mahdists");
    }
    if t.state.control.get(&hex) != Some(&Side::Egyptian) {
        return Err("is not held by the Egyptians");
    }
    if hex
        .neighbours()
        .iter()
        .any(|n| t.land_occupied_by(*n, Side::Mahdist))
    {
        return Err(if t.occupied_by(hex, Side::Egyptian) {
            "is under siege"
        } else {
            "stands empty with Mahdist units next to it"
        });
    }
    Ok(())
}

/// Rule 4.1: "The Egyptian player wins instantly if the Khalifa leader is
/// eliminated." Checked whenever a leader is removed, so the game ends when
/// it happens and nothing later in the turn changes it.
pub fn instant<S: DieSource>(t: &mut Turn<'_, S>) {
    if t.state.result.is_some() {
        return;
    }
    for c in t.scn.def.victory.iter() {
        if let VictoryCondition::LeaderEliminated { leader, winner } = c
            && t.state
                .leaders
                .iter()
                .any(|l| l.name == *leader && l.removed)
        {
            let reason = format!("{leader} eliminated");
            t.state.result = Some(GameResult {
                winner: Some(*winner),
                reason: reason.clone(),
            });
            t.events.push(Event::GameOver {
                result: format!("{winner} victory: {reason} (an instant victory, 4.1)"),
            });
            return;
        }
    }
}

/// Whether a unit of type `ty` standing in `hex` wins the game for `side`
/// by being there: a `UnitIn` condition of the scenario (4.2: "It also ends
/// in an Egyptian victory at the end of any Mahdist turn when a British
/// supply unit is in Khartoum"). The attrition phase keeps such a supply
/// unit unless an order spends it (docs/rules.md 4.2), and the receipt
/// says so.
pub fn presence_wins(
    scn: &crate::scenario::Scenario,
    side: Side,
    hex: crate::geo::Hex,
    ty: &crate::scenario::UnitType,
) -> bool {
    scn.def.victory.iter().any(|c| match c {
        VictoryCondition::UnitIn {
            kind,
            nation,
            places,
            winner,
            ..
        } => {
            *winner == side
                && *kind == ty.kind
                && nation.is_none_or(|n| n == ty.nation)
                && places
                    .iter()
                    .any(|p| scn.map.resolve(p).is_ok_and(|h| h == hex))
        }
        _ => false,
    })
}

/// Count one more consecutive turn if `holds`, else start again from 0.
fn bump<S: DieSource>(t: &mut Turn<'_, S>, key: &str, holds: bool) -> u32 {
    let e = t.state.counters.entry(key.to_string()).or_insert(0);
    *e = if holds { *e + 1 } else { 0 };
    *e
}

/// Whether a leader counts as British for rule 4.2.
pub fn is_british(nation: Nation) -> bool {
    nation == Nation::British
}

/// Where each victory condition of the scenario stands now, one line each,
/// for the results mail, STATUS and `game show`: the counts of turns in a
/// row, which places are under siege and why, who holds the places to
/// take, the 4.2 draw cap, and the last month.
pub fn standing(scn: &crate::scenario::Scenario, state: &crate::state::GameState) -> Vec<String> {
    use crate::dice::{Dice, FixedDice};
    let mut dice = Dice::new(FixedDice::with_fallback([], 1));
    let t = Turn::new(scn, state.clone(), Side::Egyptian, &mut dice);
    let mut out = Vec::new();
    if let Some(r) = &state.result {
        out.push(match r.winner {
            Some(s) => format!("The game is over: {s} victory: {}.", r.reason),
            None => format!(
                "The game is over: a draw: {}.",
                r.reason.strip_suffix(": a draw").unwrap_or(&r.reason)
            ),
        });
        return out;
    }
    for (i, c) in scn.def.victory.iter().enumerate() {
        let n = state
            .counters
            .get(&format!("victory-{i}"))
            .copied()
            .unwrap_or(0);
        let line = match c {
            VictoryCondition::NoSiege { places, turns } => {
                let now: Vec<String> = places
                    .iter()
                    .filter_map(|p| {
                        let h = scn.map.resolve(p).ok()?;
                        Some(match relieved(&t, h) {
                            Ok(()) => format!("{p} is not under siege"),
                            Err(why) => format!("{p} {why}"),
                        })
                    })
                    .collect();
                format!(
                    "Egyptian victory when neither {} is under siege at the end of {turns} Egyptian turns in a row (4.1): {n} of {turns} so far; now {}.",
                    places.join(" nor "),
                    now.join(", ")
                )
            }
            VictoryCondition::Siege { place, turns } => {
                let now = scn
                    .map
                    .resolve(place)
                    .is_ok_and(|h| t.is_besieged(h, Side::Egyptian));
                format!(
                    "Mahdist victory when {place} is under siege at the end of {turns} Egyptian turns in a row (4.1): {n} of {turns} so far; now {}.",
                    if now { "under siege" } else { "not under siege" }
                )
            }
            VictoryCondition::Capture { place, winner } => {
                let holder = scn
                    .map
                    .resolve(place)
                    .ok()
                    .and_then(|h| state.control.get(&h))
                    .map_or("held by no one".to_string(), |s| format!("held by the {s}s"));
                format!("{winner} victory by capturing {place} (4.1): now {holder}.")
            }
            VictoryCondition::LeaderEliminated { leader, winner } => {
                let l = state.leaders.iter().find(|l| l.name == *leader);
                let now = match l {
                    Some(l) if l.hex.is_some() => format!("{leader} is on the map"),
                    Some(l) if l.removed => format!("{leader} is eliminated"),
                    _ => format!("{leader} is not in play yet"),
                };
                format!("{winner} victory at once when {leader} is eliminated (4.1): {now}.")
            }
            VictoryCondition::UnitIn {
                kind,
                nation,
                places,
                at_end_of,
                winner,
            } => {
                let what = match nation {
                    Some(n) => format!("{n} {kind}"),
                    None => kind.to_string(),
                };
                let a = |w: &str| {
                    if w.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
                        "an"
                    } else {
                        "a"
                    }
                };
                let turn = at_end_of.to_string();
                format!(
                    "{winner} victory when {} {what} unit is in {} at the end of {} {turn} player turn (4.2).",
                    a(&what),
                    places.join(" or "),
                    a(&turn)
                )
            }
            VictoryCondition::BritishLeaderStackEliminated => {
                "Mahdist victory when a stack with a British leader is wholly eliminated in combat (4.2).".to_string()
            }
            VictoryCondition::DrawCapOnBritishAttrition { .. } => {
                if state.british_attrition_loss {
                    "A British unit was lost to attrition: the Egyptian player can at best draw (4.2).".to_string()
                } else {
                    "The Egyptian player can at best draw once a British unit is lost to attrition (4.2): none so far.".to_string()
                }
            }
            VictoryCondition::EndedByEvent => {
                "A random event may end the game in a draw (4.2).".to_string()
            }
        };
        out.push(line);
    }
    let left = scn.def.end.months_since(state.month);
    out.push(format!(
        "The game ends after {}: {} left; no one has won by then, it is a draw.",
        scn.def.end.long_name(),
        crate::words::count(left + 1, "month", "months")
    ));
    out
}

/// The towns, villages and oases of `side` under siege now (9.12), in map
/// order: for rosters and status reports.
pub fn besieged(
    scn: &crate::scenario::Scenario,
    state: &crate::state::GameState,
    side: Side,
) -> Vec<crate::geo::Hex> {
    use crate::dice::{Dice, FixedDice};
    let mut dice = Dice::new(FixedDice::with_fallback([], 1));
    let t = Turn::new(scn, state.clone(), side, &mut dice);
    let mut hexes: Vec<crate::geo::Hex> = state
        .stacks()
        .iter()
        .filter(|s| s.side == side && t.is_besieged(s.hex, side))
        .map(|s| s.hex)
        .collect();
    hexes.dedup();
    hexes
}
