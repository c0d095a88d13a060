//! A side's order of battle, for its player: every stack with its place,
//! every unit with its ID (which orders need), type, quality, strength and
//! state, the leaders with their ratings, and the units off the map that
//! will come back.

use std::fmt::Write as _;

use crate::engine::victory;
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, Status};

/// The order of battle of `side` in `state`.
pub fn roster(scn: &Scenario, state: &GameState, side: Side) -> String {
    let map = &scn.map;
    let besieged = victory::besieged(scn, state, side);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Your order of battle ({side}), {}:",
        state.month.long_name()
    );
    let stacks: Vec<_> = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side)
        .collect();
    if stacks.is_empty() {
        let _ = writeln!(out, "  no stack on the map");
    }
    for s in &stacks {
        let _ = writeln!(
            out,
            "{}{}: {}",
            map.describe(s.hex),
            if besieged.contains(&s.hex) {
                ", under siege (9.12)"
            } else {
                ""
            },
            crate::words::count(s.units.len(), "unit", "units")
        );
        for u in &s.units {
            let ty = scn.units.get(&u.unit_type);
            let name = ty.map_or(&*u.unit_type, |t| t.name.as_str());
            // The class letter, unless the type's name gives it already.
            let quality = ty
                .filter(|t| !t.name.ends_with(')'))
                .map_or(String::new(), |t| format!(" ({})", t.quality.letter()));
            let named = u
                .name
                .as_deref()
                .map_or(String::new(), |n| format!(" \"{n}\""));
            let _ = writeln!(
                out,
                "  {:<6} {name}{quality}{named}, strength {}, {}",
                u.id.0,
                u.strength,
                if u.disrupted {
                    "disrupted"
                } else {
                    "good order"
                }
            );
        }
        for l in &s.leaders {
            match scn.units.leader(&l.name) {
                Some(d) => {
                    let _ = writeln!(
                        out,
                        "  leader {}: strategic {:+}, tactical {:+}{}",
                        l.name,
                        d.strategic,
                        d.tactical,
                        if d.c_in_c { ", commander-in-chief" } else { "" }
                    );
                }
                None => {
                    let _ = writeln!(out, "  leader {}", l.name);
                }
            }
        }
    }
    let mut coming: Vec<String> = state
        .units
        .iter()
        .filter(|u| u.side == side)
        .filter_map(|u| match u.status {
            Status::AwaitingReplacement(m) => Some(format!(
                "  {} awaits replacement, back in {}",
                u.id.0,
                m.long_name()
            )),
            Status::Wrecked(m) => Some(format!(
                "  {} wrecked, repaired in {}",
                u.id.0,
                m.long_name()
            )),
            _ => None,
        })
        .collect();
    if !coming.is_empty() {
        let _ = writeln!(out, "Off the map, coming back:");
        coming.sort();
        for c in coming {
            let _ = writeln!(out, "{c}");
        }
    }
    out
}

/// How many named places a set-up choice lists before it counts the rest.
const PLACES_LISTED: usize = 12;

/// The set-up choices of `side` (2.1), for the mails that ask for its
/// set-up: each set-up line whose area holds more than one hex, in the
/// rules' own words, with the counters and leaders it places (the IDs SETUP
/// lines name) and where they may go. A line fixed to one place is no
/// choice and is left out; a side with no choice is told READY suffices.
pub fn setup_choices(scn: &Scenario, state: &GameState, side: Side) -> String {
    let lines = crate::state::setup::setup_lines(scn);
    let mut out = String::new();
    for (i, d) in scn.def.setup.iter().enumerate() {
        if d.side != side {
            continue;
        }
        let zone = match scn.setup_zone(i) {
            Some(Ok(z)) if z.len() > 1 => z.into_owned(),
            _ => continue,
        };
        let who: Vec<String> = state
            .units
            .iter()
            .filter(|u| lines.get(&u.id) == Some(&i))
            .map(|u| u.id.to_string())
            .collect();
        wrap_into(&mut out, &format!("\"{}\"", d.text.trim()), "- ", "  ");
        let mut counters = format!("counters: {}", who.join(" "));
        if !d.leaders.is_empty() {
            counters.push_str(&format!("; leaders: {}", d.leaders.join(", ")));
        }
        wrap_into(&mut out, &counters, "  ", "    ");
        let places = format!("where: {}", places(scn, &zone));
        wrap_into(&mut out, &places, "  ", "    ");
    }
    if out.is_empty() {
        return format!(
            "Your set-up choices ({side}): none; every unit's place is fixed by the rules, \
             so READY is all your set-up needs.\n"
        );
    }
    format!(
        "Your set-up choices ({side}), the groups a SETUP line may place elsewhere (2.1);\n\
         every other unit stands where the rules put it:\n{out}"
    )
}

/// The places of a set-up area: the named ones, then how many other hexes.
fn places(scn: &Scenario, zone: &[crate::geo::Hex]) -> String {
    let named: Vec<String> = zone
        .iter()
        .filter(|&&h| scn.map.place_at(h).is_some())
        .map(|&h| scn.map.describe(h))
        .collect();
    let unnamed = zone.len() - named.len();
    let mut text = named
        .iter()
        .take(PLACES_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = named.len().saturating_sub(PLACES_LISTED) + unnamed;
    if more > 0 {
        if !text.is_empty() {
            text.push_str(", and ");
        }
        text.push_str(&crate::words::count(more, "other hex", "other hexes"));
        text.push_str(" (the rules' words above say which)");
    }
    text
}

/// `text` wrapped to 76 columns with these indents.
fn wrap_into(out: &mut String, text: &str, first: &str, rest: &str) {
    let opts = textwrap::Options::new(76)
        .initial_indent(first)
        .subsequent_indent(rest);
    for l in textwrap::wrap(text, &opts) {
        let _ = writeln!(out, "{l}");
    }
}
