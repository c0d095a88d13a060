//! The first screen of a results mail: the month's news, as a good
//! umpire tells it before the detail. Who arrived, by name; each random
//! event and what it did; the battles and how they ended; every unit lost
//! by ID and name and how; captures; the sieges begun and ended and why;
//! the places that changed hands; where victory stands and what threatens
//! or is near. Then the outcome of the player's own orders, and what the
//! enemy was seen to do (`marches`).
//!
//! Every line is wrapped to [`WIDTH`] columns, so no line of the mail is
//! longer than a reader's screen.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::engine::events::Event;
use crate::engine::victory;
use crate::geo::Hex;
use crate::scenario::definition::VictoryCondition;
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, UnitId};
use crate::words::{count, hanging};

/// The width the news is wrapped to.
pub const WIDTH: usize = 76;

/// A month played: the scenario, the state before and after, the events
/// between, and who reads (`None`: an observer).
#[derive(Clone, Copy)]
pub struct Month<'a> {
    pub scn: &'a Scenario,
    pub before: &'a GameState,
    pub after: &'a GameState,
    pub events: &'a [Event],
    pub side: Option<Side>,
}

/// The month's news, ending with `next` (the deadline of the next turn,
/// or the game's result), each item wrapped under its heading.
pub fn news(m: &Month<'_>, next: &str) -> String {
    let mut out = String::from("The month's news\n");
    let items: Vec<String> = [
        arrivals(m),
        random_events(m),
        battles(m),
        losses(m),
        captures(m),
        leaders_lost(m),
        sieges(m),
        changed_hands(m),
        disrupted(m),
    ]
    .concat();
    if items.is_empty() {
        out.push_str("  A quiet month: no one arrived, fought or was lost.\n");
    }
    for i in &items {
        out.push_str(&hanging(i, WIDTH, "  ", "    "));
    }
    out.push_str("\nWhere victory stands\n");
    for v in victory_news(m) {
        out.push_str(&hanging(&v, WIDTH, "  ", "    "));
    }
    out.push('\n');
    out.push_str(&hanging(next, WIDTH, "", "  "));
    out
}

/// A unit's type as the news names it ("Ansar (S)"): its type's data id
/// when the type is unknown, the unit's ID when the unit is.
fn type_label(scn: &Scenario, state: &GameState, id: &UnitId) -> String {
    match state.units.iter().find(|u| u.id == *id) {
        Some(u) => scn
            .units
            .get(&u.unit_type)
            .map_or_else(|| u.unit_type.to_string(), |t| t.labelled_name()),
        None => id.to_string(),
    }
}

/// A unit as the news names it: "MS004 Ansar (S)", "BI03 Black Watch
/// (British infantry (V))".
fn unit_label(scn: &Scenario, state: &GameState, id: &UnitId) -> String {
    let Some(u) = state.units.iter().find(|u| u.id == *id) else {
        return id.to_string();
    };
    let type_name = type_label(scn, state, id);
    match &u.name {
        Some(n) => format!("{id} {n} ({type_name})"),
        None => format!("{id} {type_name}"),
    }
}

/// Units counted by type: "6 x Ansar (S), Egyptian cavalry".
fn units_counted(scn: &Scenario, state: &GameState, ids: &[UnitId]) -> String {
    let mut counted: Vec<(String, usize)> = Vec::new();
    for id in ids {
        let name = type_label(scn, state, id);
        match counted.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => counted.push((name, 1)),
        }
    }
    counted
        .into_iter()
        .map(|(n, c)| if c == 1 { n } else { format!("{c} x {n}") })
        .collect::<Vec<_>>()
        .join(", ")
}

/// "Gordon", "Gordon and J. Stewart", "Wolseley, H. Stewart and Earle".
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What an arrival is called: a reinforcement by its name in the
/// scenario, a random event's by the event, others as the log calls them.
fn arrival_name(m: &Month<'_>, id: &str, last_event: Option<&str>) -> String {
    if let Some(r) = m.scn.def.reinforcements.iter().find(|r| r.id == id) {
        return if r.name.is_empty() {
            r.id.clone()
        } else {
            r.name.clone()
        };
    }
    match last_event {
        Some(title) if id.contains("random event") => format!("{title} (random event)"),
        _ => id.to_string(),
    }
}

/// What arrived of one kind at one place: units, leaders, and the unit
/// types that found no counter or place.
type Came = (Vec<UnitId>, Vec<String>, Vec<String>);

/// Reinforcements, recruits, replacements and leaders arrived; arrivals of
/// the same kind at the same place told once.
fn arrivals(m: &Month<'_>) -> Vec<String> {
    let map = &m.scn.map;
    // (name, hex) -> (units, leaders, lost), in the order they came.
    let mut came: Vec<((String, Hex), Came)> = Vec::new();
    let mut last_event: Option<&str> = None;
    for e in m.events {
        let (name, hex, units, leaders, lost) = match e {
            Event::RandomEvent { title, .. } => {
                last_event = Some(title);
                continue;
            }
            Event::Arrived {
                id,
                hex,
                units,
                leaders,
                lost,
                ..
            } => (
                arrival_name(m, id, last_event),
                *hex,
                units.clone(),
                leaders.clone(),
                lost.clone(),
            ),
            Event::Replaced { unit, hex } => (
                "replacements back in play".to_string(),
                *hex,
                vec![unit.clone()],
                Vec::new(),
                Vec::new(),
            ),
            _ => continue,
        };
        let key = (name, hex);
        match came.iter_mut().find(|(k, _)| *k == key) {
            Some((_, (u, l, x))) => {
                u.extend(units);
                l.extend(leaders);
                x.extend(lost);
            }
            None => came.push((key, (units, leaders, lost))),
        }
    }
    came.into_iter()
        .map(|((name, hex), (units, leaders, lost))| {
            // "a Mahdist recruit" told once for three: "Mahdist recruits".
            let name = match name.strip_prefix("a ") {
                Some(one) if units.len() > 1 => format!("{one}s"),
                _ => name,
            };
            let mut text = format!("Arrived: {name} at {}", map.describe(hex));
            if !units.is_empty() {
                let _ = write!(
                    text,
                    ": {} ({})",
                    count(units.len(), "unit", "units"),
                    units_counted(m.scn, m.after, &units)
                );
            }
            if !leaders.is_empty() {
                let _ = write!(text, ", with {}", and_list(&leaders));
            }
            if !lost.is_empty() {
                let _ = write!(
                    text,
                    "; not placed, no counter or place left: {}",
                    lost.join(", ")
                );
            }
            text.push('.');
            text
        })
        .collect()
}

/// Each random event and what it did; "none" for a side without one.
fn random_events(m: &Month<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut side = Side::Egyptian;
    let mut quiet: Vec<Side> = Vec::new();
    for e in m.events {
        match e {
            Event::PhaseBegins { side: s, .. } => side = *s,
            Event::RandomEvent { title, text, .. } => {
                if title.eq_ignore_ascii_case("no event") {
                    quiet.push(side);
                } else {
                    out.push(format!("Random event ({side}): {title}. {text}"));
                }
            }
            _ => {}
        }
    }
    if !quiet.is_empty() {
        let sides: Vec<String> = quiet.iter().map(|s| format!("the {s}")).collect();
        out.push(format!("No random event for {}.", and_list(&sides)));
    }
    out
}

/// The battles and how each ended.
fn battles(m: &Month<'_>) -> Vec<String> {
    let map = &m.scn.map;
    let mut out: Vec<String> = Vec::new();
    let mut side = Side::Egyptian;
    for e in m.events {
        match e {
            Event::PhaseBegins { side: s, .. } => side = *s,
            Event::CombatBegins {
                attacker,
                defender,
                attackers,
                defenders,
                ..
            } => out.push(format!(
                "Battle: the {side} attacked {} ({}) with {} from {}",
                map.describe(*defender),
                count(defenders.len(), "unit", "units"),
                count(attackers.len(), "unit", "units"),
                map.describe(*attacker)
            )),
            Event::CombatResult { result, .. } => {
                if let Some(b) = out.last_mut() {
                    let short = result.split(" (").next().unwrap_or(result);
                    let _ = write!(b, ": {short}.");
                }
            }
            _ => {}
        }
    }
    out
}

/// How a unit was lost, as the news says it.
fn how_lost(cause: &str) -> String {
    let c = cause.to_ascii_lowercase();
    if c.contains("march attrition") {
        "on the march (march attrition)".into()
    } else if c.contains("attrition") {
        "to attrition".into()
    } else if c == "fire" || c == "melee" || c.contains("battle") {
        format!("in battle ({cause})")
    } else {
        cause.to_string()
    }
}

/// Every unit lost this month, by side, place and how.
fn losses(m: &Month<'_>) -> Vec<String> {
    // (side, hex, how) -> units, in the order lost.
    let mut groups: Vec<((Side, Hex, String), Vec<UnitId>)> = Vec::new();
    let mut seen: BTreeSet<&UnitId> = BTreeSet::new();
    let mut add = |side: Side, hex: Hex, how: String, unit: &UnitId| {
        let key = (side, hex, how);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(unit.clone()),
            None => groups.push((key, vec![unit.clone()])),
        }
    };
    let side_of = |id: &UnitId| m.after.units.iter().find(|u| u.id == *id).map(|u| u.side);
    for e in m.events {
        let (unit, hex, how) = match e {
            Event::Eliminated {
                unit, hex, cause, ..
            } => (unit, hex, how_lost(cause)),
            Event::SupplyExpended { unit, hex, .. } => (
                unit,
                hex,
                "used up to keep the hex in supply (5.2)".to_string(),
            ),
            _ => continue,
        };
        if let Some(side) = side_of(unit) {
            seen.insert(unit);
            add(side, *hex, how, unit);
        }
    }
    // Anything else that left the map (the events above name the rest).
    for (a, b) in m.before.units.iter().zip(&m.after.units) {
        if let (Some(h), None) = (a.hex(), b.hex())
            && a.id == b.id
            && !seen.contains(&a.id)
        {
            add(a.side, h, "left the map".into(), &a.id);
        }
    }
    let label = |u: &UnitId| unit_label(m.scn, m.after, u);
    let mut out = Vec::new();
    let mut done = vec![false; groups.len()];
    for (i, ((side, hex, how), units)) in groups.iter().enumerate() {
        if done[i] {
            continue;
        }
        // Losses away from battle (attrition, supply used up, men gone
        // home) in several places: one entry a side and cause, each unit
        // with its place, so that a month of scattered losses stays short.
        let same: Vec<usize> = (i..groups.len())
            .filter(|&j| !done[j] && groups[j].0.0 == *side && groups[j].0.2 == *how)
            .collect();
        if same.len() > 1 && !how.starts_with("in battle") {
            let mut names = Vec::new();
            let mut n = 0;
            for &j in &same {
                done[j] = true;
                let (_, h, _) = &groups[j].0;
                n += groups[j].1.len();
                for u in &groups[j].1 {
                    names.push(format!("{} at {}", label(u), m.scn.map.describe(*h)));
                }
            }
            out.push(format!(
                "{side} {}, {how}: {}.",
                crate::words::noun(n, "unit lost", "units lost"),
                names.join(", ")
            ));
            continue;
        }
        done[i] = true;
        let names: Vec<String> = units.iter().map(label).collect();
        out.push(format!(
            "{side} {} at {}, {how}: {}.",
            crate::words::noun(units.len(), "unit lost", "units lost"),
            m.scn.map.describe(*hex),
            names.join(", ")
        ));
    }
    out
}

/// Units captured, and what they became.
fn captures(m: &Month<'_>) -> Vec<String> {
    m.events
        .iter()
        .filter_map(|e| match e {
            Event::Captured {
                unit,
                becomes,
                hex,
                owner,
                ..
            } => {
                let by = if owner.is_empty() { "Mahdist" } else { owner };
                Some(match becomes {
                    Some(b) => format!(
                        "Captured at {}: {}, now the {by} {}.",
                        m.scn.map.describe(*hex),
                        unit_label(m.scn, m.before, unit),
                        unit_label(m.scn, m.after, b)
                    ),
                    None => format!(
                        "Captured at {}: {} (the {by}s have no counter spare for it).",
                        m.scn.map.describe(*hex),
                        unit_label(m.scn, m.before, unit)
                    ),
                })
            }
            _ => None,
        })
        .collect()
}

/// Leaders removed for good and successions (7.2).
fn leaders_lost(m: &Month<'_>) -> Vec<String> {
    let map = &m.scn.map;
    m.events
        .iter()
        .filter_map(|e| match e {
            Event::LeaderRemoved { leader, hex, how } if how.is_empty() => Some(format!(
                "Leader lost: {leader}, at {} (7.2).",
                map.describe(*hex)
            )),
            Event::LeaderRemoved { leader, hex, how } => Some(format!(
                "Leader lost: {leader}, at {}: {how} (7.2).",
                map.describe(*hex)
            )),
            Event::Succession { leader, hex } => Some(match hex {
                Some(h) => format!(
                    "The {leader} succeeds the Mahdi, at {} (7.2).",
                    map.describe(*h)
                ),
                None => format!("No one succeeds the Mahdi: the {leader} is lost too (7.2)."),
            }),
            _ => None,
        })
        .collect()
}

/// The enemy units next to `hex`: those that besiege it.
fn besiegers(state: &GameState, hex: Hex, side: Side) -> usize {
    state
        .units
        .iter()
        .filter(|u| u.side != side && u.hex().is_some_and(|h| h.distance(hex) == 1))
        .count()
}

/// "Gordon's stack of 16 units" or "a stack of 2 units".
fn garrison(state: &GameState, hex: Hex, side: Side) -> String {
    let n = state
        .units
        .iter()
        .filter(|u| u.side == side && u.hex() == Some(hex))
        .count();
    let leaders: Vec<String> = state
        .leaders
        .iter()
        .filter(|l| l.side == side && l.hex == Some(hex))
        .map(|l| l.name.clone())
        .collect();
    let units = count(n, "unit", "units");
    match leaders.first() {
        Some(l) => format!("{l}'s stack of {units}"),
        None => {
            let a = if side == Side::Egyptian { "an" } else { "a" };
            format!("{a} {side} stack of {units}")
        }
    }
}

/// Every siege now, begun this month or going on, with who is inside and
/// how many besiege it; and every siege that ended, and why.
fn sieges(m: &Month<'_>) -> Vec<String> {
    let map = &m.scn.map;
    let mut out = Vec::new();
    // Sieges going on from last month: one entry for all of them when
    // there are several, so that a month of many sieges stays short.
    let mut going_on = Vec::new();
    for s in [Side::Egyptian, Side::Mahdist] {
        let was = victory::besieged(m.scn, m.before, s);
        let is = victory::besieged(m.scn, m.after, s);
        for h in &is {
            let (place, inside) = (map.describe(*h), garrison(m.after, *h, s));
            let by = count(besiegers(m.after, *h, s), "enemy unit", "enemy units");
            if was.contains(h) {
                going_on.push((place, inside, by));
            } else {
                out.push(format!(
                    "Siege begun: {place}, {inside}, is besieged by {by} (9.12)."
                ));
            }
        }
        for h in was.iter().filter(|h| !is.contains(h)) {
            out.push(siege_ended(m.scn, m.before, m.after, s, *h));
        }
    }
    match going_on.as_slice() {
        [] => {}
        [(place, inside, by)] => out.insert(
            0,
            format!("Under siege: {place}, {inside}, is besieged by {by} (9.12)."),
        ),
        all => out.insert(
            0,
            format!(
                "Under siege (9.12): {}.",
                all.iter()
                    .map(|(place, inside, by)| format!("{place}, {inside}, by {by}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
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
    hex: Hex,
) -> String {
    let place = scn.map.describe(hex);
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
    let garrison: Vec<&UnitId> = before
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
            count(destroyed, "unit", "units")
        )
    };
    format!("Siege over: {place} ({side}): the garrison is gone, {how} (9.12).")
}

/// Towns, villages and oases that changed hands.
fn changed_hands(m: &Month<'_>) -> Vec<String> {
    let map = &m.scn.map;
    map.places()
        .iter()
        .filter(|p| map.settlement_at(p.hex).is_some())
        .filter_map(|p| {
            let (a, b) = (m.before.control.get(&p.hex), m.after.control.get(&p.hex));
            match (a, b) {
                (a, Some(s)) if a != Some(s) => {
                    Some(format!("{} is now held by the {s}s.", map.describe(p.hex)))
                }
                (Some(s), None) => Some(format!(
                    "{} is no longer held by the {s}s.",
                    map.describe(p.hex)
                )),
                _ => None,
            }
        })
        .collect()
}

/// Units disrupted at the end of the month, by side.
fn disrupted(m: &Month<'_>) -> Vec<String> {
    let n = |s: Side| {
        m.after
            .units
            .iter()
            .filter(|u| u.side == s && u.hex().is_some() && u.disrupted)
            .count()
    };
    let (e, d) = (n(Side::Egyptian), n(Side::Mahdist));
    if e + d == 0 {
        return Vec::new();
    }
    vec![format!(
        "Disrupted at the end of the month: Egyptian {}, Mahdist {}.",
        count(e, "unit", "units"),
        count(d, "unit", "units")
    )]
}

/// Where victory stands, every condition short: its count of turns in a
/// row, what is near (the nearest unit that would win by standing in a
/// place, where a leader whose loss decides the game is), what threatens
/// (a British-led stack next to the enemy; the draw cap), and the last
/// month. STATUS gives each condition in the rules' full words.
fn victory_news(m: &Month<'_>) -> Vec<String> {
    let (scn, state) = (m.scn, m.after);
    if state.result.is_some() {
        return victory::standing(scn, state);
    }
    let mut out = Vec::new();
    for (i, c) in scn.def.victory.iter().enumerate() {
        let n = state
            .counters
            .get(&format!("victory-{i}"))
            .copied()
            .unwrap_or(0);
        match c {
            VictoryCondition::NoSiege { places, turns } => out.push(format!(
                "Egyptian victory after {turns} Egyptian turns in a row with neither {} under siege: {n} so far.",
                places.join(" nor ")
            )),
            VictoryCondition::Siege { place, turns } => out.push(format!(
                "Mahdist victory after {turns} Egyptian turns in a row with {place} under siege: {n} so far."
            )),
            VictoryCondition::Capture { place, winner } => {
                let holder = scn
                    .map
                    .resolve(place)
                    .ok()
                    .and_then(|h| state.control.get(&h))
                    .map_or("no one".to_string(), |s| format!("the {s}s"));
                out.push(format!(
                    "{winner} victory by taking {place}: held by {holder}."
                ));
            }
            VictoryCondition::UnitIn {
                kind,
                nation,
                places,
                winner,
                ..
            } => out.push(nearest_unit(m, *kind, *nation, places, *winner)),
            VictoryCondition::BritishLeaderStackEliminated => {
                let near = british_leaders_in_contact(m);
                if near.is_empty() {
                    out.push(
                        "Mahdist victory if a stack with a British leader is wholly eliminated in battle: none is next to the enemy.".to_string(),
                    );
                }
                out.extend(near);
            }
            VictoryCondition::DrawCapOnBritishAttrition { .. } => {
                out.push(if !state.british_attrition_loss {
                    "The Egyptian can at best draw once a British unit is lost to attrition: none so far (4.2).".to_string()
                } else if m.before.british_attrition_loss {
                    "A British unit has been lost to attrition: the Egyptian can at best draw (4.2).".to_string()
                } else {
                    "A British unit was lost to attrition this month: the Egyptian can at best draw (4.2).".to_string()
                });
            }
            VictoryCondition::LeaderEliminated { leader, winner } => {
                let at = state.leaders.iter().find(|l| l.name == *leader).and_then(|l| l.hex);
                out.push(match at {
                    Some(h) => format!(
                        "{winner} victory at once if {leader} is eliminated: {leader} is at {}.",
                        scn.map.describe(h)
                    ),
                    None => format!("{winner} victory at once if {leader} is eliminated: not on the map."),
                });
            }
            VictoryCondition::EndedByEvent => out.push(
                "A random event may end the game in a draw (4.2).".to_string(),
            ),
        }
    }
    let left = scn.def.end.months_since(state.month);
    out.push(format!(
        "The game ends after {} ({} left), a draw if no one has won.",
        scn.def.end.long_name(),
        count(left + 1, "month", "months")
    ));
    out
}

/// "A British supply unit in Khartoum wins for the Egyptian: the nearest is
/// at Korti (1226), 9 hexes away."
fn nearest_unit(
    m: &Month<'_>,
    kind: crate::scenario::UnitKind,
    nation: Option<crate::scenario::Nation>,
    places: &[String],
    winner: Side,
) -> String {
    let map = &m.scn.map;
    let what = match nation {
        Some(n) => format!("{n} {kind}"),
        None => kind.to_string(),
    };
    let targets: Vec<Hex> = places.iter().filter_map(|p| map.resolve(p).ok()).collect();
    let nearest = m
        .after
        .units
        .iter()
        .filter(|u| {
            m.scn
                .units
                .get(&u.unit_type)
                .is_some_and(|t| t.kind == kind && nation.is_none_or(|n| t.nation == n))
        })
        .filter_map(|u| {
            let h = u.hex()?;
            let d = targets.iter().map(|t| t.distance(h)).min()?;
            Some((d, h.row, h.col, h))
        })
        .min();
    let head = format!(
        "{winner} victory with a {what} unit in {}",
        places.join(" or ")
    );
    match nearest {
        Some((0, .., h)) => format!("{head}: one is there now, at {}.", map.describe(h)),
        Some((d, .., h)) => format!(
            "{head}: the nearest is at {}, {} away.",
            map.describe(h),
            count(d, "hex", "hexes")
        ),
        None => format!("{head}: none is on the map."),
    }
}

/// Stacks with a British leader next to the enemy: if one is wholly
/// eliminated in battle, the Mahdist wins (4.2).
fn british_leaders_in_contact(m: &Month<'_>) -> Vec<String> {
    let state = m.after;
    let mut out = Vec::new();
    let mut done: BTreeSet<Hex> = BTreeSet::new();
    for l in &state.leaders {
        let Some(h) = l.hex else { continue };
        let british = m
            .scn
            .units
            .leader(&l.name)
            .is_some_and(|d| victory::is_british(d.nation));
        if !british || !done.insert(h) {
            continue;
        }
        let enemy = besiegers(state, h, l.side);
        if enemy > 0 {
            out.push(format!(
                "{} at {} has {} next to it: if the stack is wholly eliminated in battle, the Mahdist wins (4.2).",
                garrison(state, h, l.side),
                m.scn.map.describe(h),
                count(enemy, "Mahdist unit", "Mahdist units")
            ));
        }
    }
    out
}

/// An order of a player turn: (the player turn of the month, from 1; the
/// order's index in it).
type OrderKey = (usize, usize);

/// What each order of `side`'s did this month, one item each: who marched
/// from where, the march rolls, where they ended, why they stopped, the
/// battles they fought; and orders set aside.
fn orders_of(m: &Month<'_>, side: Side) -> Vec<String> {
    let map = &m.scn.map;
    let mut out: Vec<(OrderKey, String)> = Vec::new();
    let mut phase = Side::Egyptian;
    let mut turn = 0usize;
    let find = |out: &mut Vec<(OrderKey, String)>, key: OrderKey| -> usize {
        match out.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                out.push((key, String::new()));
                out.len() - 1
            }
        }
    };
    let mut ends: Vec<(OrderKey, Vec<Hex>)> = Vec::new();
    let mut stops: Vec<(OrderKey, Hex)> = Vec::new();
    for e in m.events {
        if let Event::PhaseBegins { side: s, .. } = e {
            if *s != phase || turn == 0 {
                turn += 1;
            }
            phase = *s;
            continue;
        }
        if phase != side {
            continue;
        }
        match e {
            Event::MarchBegins {
                order,
                from,
                units,
                leaders,
            } => {
                let i = find(&mut out, (turn, *order));
                let who = if leaders.is_empty() {
                    count(units.len(), "unit", "units")
                } else {
                    format!(
                        "{} with {}",
                        and_list(leaders),
                        count(units.len(), "unit", "units")
                    )
                };
                out[i].1 = format!("{} from {}:", who, map.describe(*from));
            }
            Event::MarchResult {
                order,
                result,
                movement_points,
                ..
            } => {
                let i = find(&mut out, (turn, *order));
                let _ = write!(
                    out[i].1,
                    " {result} ({});",
                    count(*movement_points, "MP", "MP")
                );
            }
            Event::Moved { order, path, .. } => {
                let key = (turn, *order);
                match ends.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, p)) => p.extend(path.iter().copied()),
                    None => ends.push((key, path.clone())),
                }
            }
            Event::Stopped { order, at, reason } => {
                let i = find(&mut out, (turn, *order));
                let _ = write!(out[i].1, " stopped at {}: {reason};", map.describe(*at));
                stops.push(((turn, *order), *at));
            }
            Event::OrderSetAside { order, reason } => {
                let i = find(&mut out, (turn, *order));
                // An order set aside before its march began names no
                // stack: the reason says whose it was.
                let lead = if out[i].1.is_empty() { "Not" } else { " not" };
                let _ = write!(out[i].1, "{lead} carried out: {reason};");
            }
            Event::CombatBegins {
                order, defender, ..
            } => {
                let i = find(&mut out, (turn, *order));
                let _ = write!(out[i].1, " attacked {}", map.describe(*defender));
            }
            Event::CombatResult { order, result, .. } => {
                let i = find(&mut out, (turn, *order));
                let short = result.split(" (").next().unwrap_or(result);
                let _ = write!(out[i].1, ": {short};");
            }
            _ => {}
        }
    }
    out.into_iter()
        .map(|(key, text)| {
            let walked = ends.iter().find(|(k, _)| *k == key).map(|(_, p)| p);
            let end = match walked.and_then(|p| p.split_last()) {
                Some((last, _)) if stops.contains(&(key, *last)) => String::new(),
                Some((last, via)) => {
                    let named: Vec<String> = via
                        .iter()
                        .filter(|h| map.place_at(**h).is_some())
                        .map(|h| map.describe(*h))
                        .collect();
                    let by = if named.is_empty() {
                        String::new()
                    } else {
                        format!(" by {}", named.join(", "))
                    };
                    format!(" ended at {}{by}.", map.describe(*last))
                }
                None if stops.iter().any(|(k, _)| *k == key) => String::new(),
                None if text.starts_with("Not carried out") => String::new(),
                None => " did not move.".to_string(),
            };
            let order = key.1 + 1;
            let text = format!("{text}{end}");
            let text = text
                .strip_suffix(';')
                .map_or(text.clone(), |t| format!("{t}."));
            format!("{order}. {text}")
        })
        .collect()
}

/// The player's own orders' outcomes, then what the enemy was seen to do;
/// for an observer, each side's marches.
pub fn marches(m: &Month<'_>) -> String {
    let mut out = String::new();
    let parts: Vec<(String, Side)> = match m.side {
        Some(s) => vec![
            (format!("Your orders ({s})"), s),
            (format!("What the {} was seen to do", s.enemy()), s.enemy()),
        ],
        None => [Side::Egyptian, Side::Mahdist]
            .into_iter()
            .map(|s| (format!("The {s} orders"), s))
            .collect(),
    };
    for (title, side) in parts {
        let _ = writeln!(out, "{title}");
        let items = orders_of(m, side);
        if items.is_empty() {
            out.push_str("  No marches.\n");
        }
        for i in items {
            out.push_str(&hanging(&i, WIDTH, "  ", "     "));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DataSet;
    use crate::state::setup::{Placements, initial_state};
    use crate::state::{Status, Unit};

    /// The scenario's set-up with a Mahdist unit from the pool next to
    /// Tokar, so its garrison is under siege; and Tokar's hex.
    fn tokar_besieged(scn: &Scenario) -> (GameState, Hex) {
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

    /// Assert that `text`, its white space folded, says each of `wants`.
    #[track_caller]
    fn says(text: &str, wants: &[&str]) {
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for want in wants {
            assert!(flat.contains(want), "{want:?} is missing in:\n{text}");
        }
    }

    /// The Egyptian news of a month from Tokar besieged to the state
    /// `change` makes of each unit (given Tokar's hex), ending in `next`;
    /// and Tokar as the news names it.
    fn tokar_news(next: &str, change: impl Fn(&mut Unit, Hex)) -> (String, String) {
        let data = DataSet::embedded().expect("the embedded data");
        let scn = data.scenario("khartoum").expect("scenario 2");
        let (before, hex) = tokar_besieged(&scn);
        let mut after = before.clone();
        for u in after.units.iter_mut() {
            change(u, hex);
        }
        let m = Month {
            scn: &scn,
            before: &before,
            after: &after,
            events: &[],
            side: Some(Side::Egyptian),
        };
        (news(&m, next), scn.map.describe(hex))
    }

    /// A siege that ends because the garrison was destroyed is not
    /// announced as lifted: the news says the garrison is gone.
    #[test]
    fn a_siege_ended_by_the_garrison_destroyed_is_not_lifted() {
        let (text, place) = tokar_news("Next: March 1884.", |u, hex| {
            if u.side == Side::Egyptian && u.hex() == Some(hex) {
                u.status = Status::Eliminated;
            }
        });
        says(
            &text,
            &[
                &format!("Siege over: {place} (Egyptian): the garrison is gone, destroyed (9.12)."),
                // The garrison lost is named, unit by unit.
                "units lost at Tokar (5723), left the map",
            ],
        );
        assert!(!text.contains("Siege lifted"), "{text}");
    }

    /// A siege the garrison lives through is lifted; a siege going on
    /// says who is inside and how many besiege it.
    #[test]
    fn a_siege_ended_with_the_garrison_in_place_is_lifted() {
        let (text, place) = tokar_news("Next: March 1884.", |u, hex| {
            if u.side == Side::Mahdist && u.hex().is_some_and(|h| h.distance(hex) == 1) {
                u.status = Status::Pool;
            }
        });
        assert!(
            text.contains(&format!("Siege lifted: {place} (Egyptian) (9.12).")),
            "{text}"
        );
        let (going_on, _) = tokar_news("Next: March 1884.", |_, _| {});
        says(
            &going_on,
            &[
                &format!("Under siege: {place}, an Egyptian stack of"),
                "is besieged by 1 enemy unit (9.12).",
            ],
        );
    }

    /// Every line of the news is within the width.
    #[test]
    fn the_news_is_wrapped() {
        let (text, _) = tokar_news(
            "Next: March 1884, orders due by 2026-03-04 12:00 UTC.",
            |_, _| {},
        );
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
    }
}
