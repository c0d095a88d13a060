//! The summary at the head of a results mail: what a player wants to know
//! before the full log with every roll. The battles and how they ended,
//! the places that changed hands, the sieges begun, lifted or over with
//! the garrison gone, the losses of each side, and the player's own
//! marches.

use std::fmt::Write as _;

use crate::engine::events::Event;
use crate::engine::victory;
use crate::geo::Map;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// The summary of a turn played from `before` to `after` with `events`,
/// for the player of `side` (`None`: an observer, who gets no "your
/// marches").
pub fn summary(
    scn: &Scenario,
    before: &GameState,
    after: &GameState,
    events: &[Event],
    side: Option<Side>,
) -> String {
    let map = &scn.map;
    let mut out = String::new();
    // Battles, with their result.
    let mut battles: Vec<String> = Vec::new();
    let mut open: Option<(String, usize)> = None;
    let mut phase_side = Side::Egyptian;
    for e in events {
        match e {
            Event::PhaseBegins { side, .. } => phase_side = *side,
            Event::CombatBegins {
                attacker, defender, ..
            } => {
                battles.push(format!(
                    "{phase_side} attack from {} on {}",
                    map.describe(*attacker),
                    map.describe(*defender)
                ));
                open = Some((String::new(), battles.len() - 1));
            }
            Event::CombatResult { result, .. } => {
                if let Some((_, i)) = open.take()
                    && let Some(b) = battles.get_mut(i)
                {
                    let short = result.split(" (").next().unwrap_or(result);
                    let _ = write!(b, ": {short}");
                }
            }
            _ => {}
        }
    }
    let _ = writeln!(out, "Summary");
    if battles.is_empty() {
        let _ = writeln!(out, "  No battles.");
    } else {
        let _ = writeln!(
            out,
            "  {}:",
            crate::words::count(battles.len(), "battle", "battles")
        );
        for b in &battles {
            let _ = writeln!(out, "    {b}");
        }
    }
    // Places that changed hands.
    let changed: Vec<String> = map
        .places()
        .iter()
        .filter(|p| map.settlement_at(p.hex).is_some())
        .filter_map(|p| {
            let (a, b) = (before.control.get(&p.hex), after.control.get(&p.hex));
            (a != b).then(|| match (a, b) {
                (_, Some(s)) => format!("{} now held by the {s}s", map.describe(p.hex)),
                (Some(s), None) => format!("{} no longer held by the {s}s", map.describe(p.hex)),
                (None, None) => String::new(),
            })
        })
        .filter(|s| !s.is_empty())
        .collect();
    for c in &changed {
        let _ = writeln!(out, "  {c}.");
    }
    // Sieges begun and lifted, both sides.
    for s in [Side::Egyptian, Side::Mahdist] {
        let was = victory::besieged(scn, before, s);
        let is = victory::besieged(scn, after, s);
        for h in is.iter().filter(|h| !was.contains(h)) {
            let _ = writeln!(out, "  Siege begun: {} ({s}) (9.12).", map.describe(*h));
        }
        for h in was.iter().filter(|h| !is.contains(h)) {
            let _ = writeln!(out, "  {}", siege_ended(scn, before, after, s, *h));
        }
    }
    // Losses by side: units that left the map, units disrupted now.
    for s in [Side::Egyptian, Side::Mahdist] {
        let lost = before
            .units
            .iter()
            .zip(&after.units)
            .filter(|(a, b)| a.id == b.id && a.side == s && a.hex().is_some() && b.hex().is_none())
            .count();
        let disrupted = after
            .units
            .iter()
            .filter(|u| u.side == s && u.hex().is_some() && u.disrupted)
            .count();
        let _ = writeln!(
            out,
            "  {s} losses: {} off the map; {} disrupted at the end of the turn.",
            crate::words::count(lost, "unit", "units"),
            crate::words::count(disrupted, "unit", "units")
        );
    }
    if let Some(side) = side {
        let moves = own_marches(map, events, side);
        if !moves.is_empty() {
            let _ = writeln!(out, "Your marches:");
            for m in moves {
                let _ = writeln!(out, "  {m}");
            }
        }
    }
    out
}

/// How the siege of `side`'s place at `hex` ended: lifted while the
/// garrison holds on, or over because the garrison is gone (destroyed, or
/// marched out), so a results mail never calls a lost town relieved.
fn siege_ended(
    scn: &Scenario,
    before: &GameState,
    after: &GameState,
    side: Side,
    hex: crate::geo::Hex,
) -> String {
    let map = &scn.map;
    let place = map.describe(hex);
    let holds = after.units.iter().any(|u| {
        u.side == side
            && u.hex() == Some(hex)
            && scn
                .units
                .get(&u.unit_type)
                .is_none_or(|t| t.kind != crate::scenario::UnitKind::Fleet)
    });
    if holds {
        return format!("Siege lifted: {place} ({side}) (9.12).");
    }
    let garrison: Vec<&crate::state::UnitId> = before
        .units
        .iter()
        .filter(|u| u.side == side && u.hex() == Some(hex))
        .map(|u| &u.id)
        .collect();
    let destroyed = garrison
        .iter()
        .filter(|id| {
            after
                .units
                .iter()
                .find(|u| u.id == ***id)
                .is_none_or(|u| u.hex().is_none())
        })
        .count();
    let how = if destroyed == garrison.len() {
        "destroyed".to_string()
    } else if destroyed == 0 {
        "marched out".to_string()
    } else {
        format!(
            "{} destroyed, the rest marched out",
            crate::words::count(destroyed, "unit", "units")
        )
    };
    format!("Siege over: {place} ({side}): the garrison is gone, {how} (9.12).")
}

/// The marches of `side`'s player turn, one line each: where each order's
/// stack went.
fn own_marches(map: &Map, events: &[Event], side: Side) -> Vec<String> {
    let mut phase_side = Side::Egyptian;
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::PhaseBegins { side: s, .. } => phase_side = *s,
            Event::MarchResult {
                order,
                leg,
                result,
                movement_points,
            } if phase_side == side => {
                let mp = if *movement_points > 0 {
                    format!(
                        ", {}",
                        crate::words::count(*movement_points, "movement point", "movement points")
                    )
                } else {
                    String::new()
                };
                out.push(format!(
                    "order {}, march {}: {result}{mp}",
                    order + 1,
                    leg + 1
                ));
            }
            Event::Moved { order, path, .. } if phase_side == side => {
                if let Some((last, via)) = path.split_last() {
                    let via: Vec<String> = via.iter().map(|h| map.describe(*h)).collect();
                    let via = if via.is_empty() {
                        String::new()
                    } else {
                        format!(" by {}", via.join(", "))
                    };
                    out.push(format!(
                        "order {}: marched{via} to {}",
                        order + 1,
                        map.describe(*last)
                    ));
                }
            }
            Event::Stopped { order, at, reason } if phase_side == side => {
                out.push(format!(
                    "order {}: stops at {}: {reason}",
                    order + 1,
                    map.describe(*at)
                ));
            }
            Event::OrderSetAside { order, reason } if phase_side == side => {
                out.push(format!("order {}: not carried out: {reason}", order + 1));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DataSet;
    use crate::state::Status;
    use crate::state::setup::{Placements, initial_state};

    /// The scenario's set-up with a Mahdist unit from the pool next to
    /// Tokar, so its garrison is under siege; and Tokar's hex.
    fn tokar_besieged(scn: &Scenario) -> (GameState, crate::geo::Hex) {
        let (mut state, _) = initial_state(scn, &Placements::new()).expect("the set-up");
        let hex = scn.map.resolve("Tokar").expect("Tokar");
        let ansar = state
            .units
            .iter_mut()
            .find(|u| u.side == Side::Mahdist && u.status == Status::Pool)
            .expect("a Mahdist unit in the pool");
        ansar.status = Status::OnMap(hex.neighbours()[0]);
        assert!(victory::besieged(scn, &state, Side::Egyptian).contains(&hex));
        (state, hex)
    }

    /// A siege that ends because the garrison was destroyed is not
    /// announced as lifted: the summary says the garrison is gone.
    #[test]
    fn a_siege_ended_by_the_garrison_destroyed_is_not_lifted() {
        let data = DataSet::embedded().expect("the embedded data");
        let scn = data.scenario("khartoum").expect("scenario 2");
        let (before, hex) = tokar_besieged(&scn);
        let mut after = before.clone();
        for u in after.units.iter_mut() {
            if u.side == Side::Egyptian && u.hex() == Some(hex) {
                u.status = Status::Eliminated;
            }
        }
        let text = summary(&scn, &before, &after, &[], Some(Side::Egyptian));
        let place = scn.map.describe(hex);
        assert!(
            text.contains(&format!(
                "Siege over: {place} (Egyptian): the garrison is gone, destroyed (9.12)."
            )),
            "{text}"
        );
        assert!(!text.contains("Siege lifted"), "{text}");
    }

    /// A siege the garrison lives through is lifted.
    #[test]
    fn a_siege_ended_with_the_garrison_in_place_is_lifted() {
        let data = DataSet::embedded().expect("the embedded data");
        let scn = data.scenario("khartoum").expect("scenario 2");
        let (before, hex) = tokar_besieged(&scn);
        let mut after = before.clone();
        for u in after.units.iter_mut() {
            if u.side == Side::Mahdist && u.hex().is_some_and(|h| h.distance(hex) == 1) {
                u.status = Status::Pool;
            }
        }
        let text = summary(&scn, &before, &after, &[], Some(Side::Egyptian));
        let place = scn.map.describe(hex);
        assert!(
            text.contains(&format!("Siege lifted: {place} (Egyptian) (9.12).")),
            "{text}"
        );
    }
}
