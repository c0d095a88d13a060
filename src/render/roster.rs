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
