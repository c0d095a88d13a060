//! A side's order of battle, for its player: every stack with its place,
//! every unit with its ID (which orders need), type, quality, strength and
//! state, the leaders with their ratings, and the units off the map that
//! will come back.

use std::fmt::Write as _;

use crate::engine::victory;
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, Stack, Status, Unit};

/// The order of battle of `side` in `state`.
pub fn roster(scn: &Scenario, state: &GameState, side: Side) -> String {
    let mut out = format!(
        "Your order of battle ({side}), {}:\n",
        state.month.long_name()
    );
    for (s, siege) in stacks_of(scn, state, side, &mut out) {
        let _ = writeln!(
            out,
            "{}{siege}: {}",
            scn.map.describe(s.hex),
            crate::words::count(s.units.len(), "unit", "units")
        );
        for u in &s.units {
            let name = type_name(scn, u);
            let named = u
                .name
                .as_deref()
                .map_or(String::new(), |n| format!(" \"{n}\""));
            let _ = writeln!(
                out,
                "  {:<6} {name}{named}, strength {}, {}",
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
    out.push_str(&coming_back(state, side));
    out
}

/// `side`'s stacks on the map, each with what its place is followed by:
/// ", under siege (9.12)" or nothing. With none, a line saying so goes to
/// `out`.
fn stacks_of<'s>(
    scn: &Scenario,
    state: &'s GameState,
    side: Side,
    out: &mut String,
) -> Vec<(Stack<'s>, &'static str)> {
    let besieged = victory::besieged(scn, state, side);
    let stacks: Vec<_> = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side)
        .map(|s| {
            let siege = if besieged.contains(&s.hex) {
                ", under siege (9.12)"
            } else {
                ""
            };
            (s, siege)
        })
        .collect();
    if stacks.is_empty() {
        out.push_str("  no stack on the map\n");
    }
    stacks
}

/// A unit's type as named in the scenario (its own id if unknown).
fn type_name(scn: &Scenario, u: &Unit) -> String {
    scn.units
        .get(&u.unit_type)
        .map_or_else(|| u.unit_type.to_string(), |t| t.labelled_name())
}

/// The order of battle of `side` in `state`, short, for a results mail:
/// one item a stack, its units grouped by type, strength and state with
/// their IDs (runs of IDs as ranges, "ER01-ER04"), its leaders with their
/// ratings, wrapped to `width`; then the units off the map that will come
/// back. [`roster`] lists every unit on a line of its own.
pub fn roster_compact(scn: &Scenario, state: &GameState, side: Side, width: usize) -> String {
    let mut out = format!(
        "Your order of battle ({side}), {} (leaders: strategic/tactical):\n",
        state.month.long_name()
    );
    for (s, siege) in stacks_of(scn, state, side, &mut out) {
        let mut parts = unit_groups(scn, &s.units);
        let leaders: Vec<String> = s
            .leaders
            .iter()
            .map(|l| match scn.units.leader(&l.name) {
                Some(d) => format!(
                    "{} ({:+}/{:+}{})",
                    l.name,
                    d.strategic,
                    d.tactical,
                    if d.c_in_c { ", commander-in-chief" } else { "" }
                ),
                None => l.name.clone(),
            })
            .collect();
        if !leaders.is_empty() {
            parts.push(format!("leaders {}", leaders.join(", ")));
        }
        let item = format!(
            "{}{siege}, {}: {}.",
            scn.map.describe(s.hex),
            crate::words::count(s.units.len(), "unit", "units"),
            parts.join("; ")
        );
        out.push_str(&crate::words::hanging(&item, width, "  ", "    "));
    }
    out.push_str(&coming_back(state, side));
    out
}

/// A stack's units grouped by type, strength and state, each group with
/// its IDs: "ER01-ER04 Egyptian infantry (R)", "BI01 Black Watch, BI02
/// Gordon Highlanders: British infantry (V), strength 3", "EG01, EG02
/// Egyptian battery (L), disrupted".
fn unit_groups(scn: &Scenario, units: &[&Unit]) -> Vec<String> {
    // (type as named, strength, disrupted) -> its units, in stack order.
    type Group<'u> = ((String, u32, bool), Vec<&'u Unit>);
    let mut groups: Vec<Group<'_>> = Vec::new();
    for u in units {
        let key = (type_name(scn, u), u.strength, u.disrupted);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(u),
            None => groups.push((key, vec![u])),
        }
    }
    groups
        .into_iter()
        .map(|((name, strength, disrupted), us)| {
            let named = us.iter().any(|u| u.name.is_some());
            let ids = if named {
                let each: Vec<String> = us
                    .iter()
                    .map(|u| match &u.name {
                        Some(n) => format!("{} {n}", u.id.0),
                        None => u.id.0.to_string(),
                    })
                    .collect();
                format!("{}:", each.join(", "))
            } else {
                id_runs(&us.iter().map(|u| &*u.id.0).collect::<Vec<_>>())
            };
            let mut text = format!("{ids} {name}");
            if strength != 1 {
                let _ = write!(text, ", strength {strength}");
            }
            if disrupted {
                text.push_str(", disrupted");
            }
            text
        })
        .collect()
}

/// IDs with runs of consecutive numbers shown as ranges: "ER01-ER04,
/// ER07".
fn id_runs(ids: &[&str]) -> String {
    let split = |id: &str| -> Option<(String, u32, usize)> {
        let digits = id.len() - id.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = id.split_at(id.len() - digits);
        Some((head.to_string(), tail.parse().ok()?, digits))
    };
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(String, u32, u32, usize, String, String)> = None;
    let close = |run: &Option<(String, u32, u32, usize, String, String)>, out: &mut Vec<String>| {
        if let Some((_, a, b, _, first, last)) = run {
            out.push(match b - a {
                0 => first.clone(),
                1 => format!("{first}, {last}"),
                _ => format!("{first}-{last}"),
            });
        }
    };
    for id in ids {
        match (split(id), &mut run) {
            (Some((h, n, w)), Some((rh, _, rb, rw, _, last)))
                if *rh == h && *rw == w && n == *rb + 1 =>
            {
                *rb = n;
                *last = (*id).to_string();
            }
            (parts, _) => {
                close(&run, &mut out);
                run = Some(match parts {
                    Some((h, n, w)) => (h, n, n, w, (*id).to_string(), (*id).to_string()),
                    None => (String::new(), 0, 0, 0, (*id).to_string(), (*id).to_string()),
                });
                if split(id).is_none() {
                    close(&run, &mut out);
                    run = None;
                }
            }
        }
    }
    close(&run, &mut out);
    out.join(", ")
}

/// The units of `side` off the map that will come back, and when.
fn coming_back(state: &GameState, side: Side) -> String {
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
    if coming.is_empty() {
        return String::new();
    }
    coming.sort();
    let mut out = String::from("Off the map, coming back:\n");
    for c in coming {
        out.push_str(&c);
        out.push('\n');
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

#[cfg(test)]
mod tests {
    #[test]
    fn runs_of_ids_are_ranges() {
        assert_eq!(
            super::id_runs(&["ER01", "ER02", "ER03", "ER04", "ER07", "EL01", "EL02", "X"]),
            "ER01-ER04, ER07, EL01, EL02, X"
        );
    }
}
