//! Which sector maps a results mail shows: one for each area where
//! something happened to the player's stacks or sieges (a battle, a siege,
//! an arrival, a march, a unit lost or disrupted), never the same area
//! twice (the drawn map's areas are `render::frame`'s).

use crate::engine::events::Event;
use crate::engine::victory;
use crate::geo::Hex;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// Columns and rows a results sector map shows either side of its centre.
pub const RADIUS: i32 = 3;

/// At most this many sector maps in one mail.
pub const MAX_SECTORS: usize = 6;

/// The sectors for a results mail, in order of what matters most: the
/// battles of the turn, the sieges (of `side`'s places, and those its
/// stacks lay), then `side`'s stacks that arrived, marched, or lost or
/// had units disrupted. A stack where nothing happened gets no map (the
/// overview and the order of battle show it). A place less than
/// [`RADIUS`] hexes from a sector already chosen is shown by it, so no area comes
/// twice (up to [`MAX_SECTORS`]). Each with a title naming why it is
/// shown. For an observer (`side` `None`): the battles and sieges.
pub fn centres(
    scn: &Scenario,
    state: &GameState,
    events: &[Event],
    side: Option<Side>,
) -> Vec<(String, Hex)> {
    let map = &scn.map;
    let mut wanted: Vec<(String, Hex)> = Vec::new();
    for e in events {
        if let Event::CombatBegins { defender, .. } = e {
            wanted.push((
                format!("The battle at {}", map.describe(*defender)),
                *defender,
            ));
        }
    }
    for s in [Side::Egyptian, Side::Mahdist] {
        for h in victory::besieged(scn, state, s) {
            let ours = side.is_none_or(|me| {
                me == s
                    || state
                        .units
                        .iter()
                        .any(|u| u.side == me && u.hex().is_some_and(|x| x.distance(h) == 1))
            });
            if ours {
                wanted.push((format!("The siege of {}", map.describe(h)), h));
            }
        }
    }
    if let Some(side) = side {
        wanted.extend(stacks_touched(scn, state, events, side));
    }
    let mut out: Vec<(String, Hex)> = Vec::new();
    for (title, hex) in wanted {
        if out.len() >= MAX_SECTORS {
            break;
        }
        if out
            .iter()
            .any(|(_, c)| c.distance(hex) < RADIUS.unsigned_abs())
        {
            continue;
        }
        out.push((title, hex));
    }
    out
}

/// `side`'s stacks on the map after the turn where something happened to
/// them this month, with why: arrived, marched there, lost units, had
/// units disrupted; in that order of weight.
fn stacks_touched(
    scn: &Scenario,
    state: &GameState,
    events: &[Event],
    side: Side,
) -> Vec<(String, Hex)> {
    let map = &scn.map;
    let ours = |h: Hex| {
        state
            .units
            .iter()
            .any(|u| u.side == side && u.hex() == Some(h))
    };
    let of_side =
        |id: &crate::state::UnitId| state.units.iter().any(|u| u.id == *id && u.side == side);
    let mut arrived = Vec::new();
    let mut marched: Vec<((usize, usize), Hex)> = Vec::new();
    let mut turn = 0usize;
    let mut hurt = Vec::new();
    let mut moving = Side::Egyptian;
    for e in events {
        match e {
            Event::PhaseBegins { side: s, .. } => {
                if *s != moving || turn == 0 {
                    turn += 1;
                }
                moving = *s;
            }
            Event::Arrived { hex, units, .. } if units.iter().any(of_side) => arrived.push(*hex),
            // Where each order's stack ended: its last move.
            Event::Moved { order, path, .. } if moving == side => {
                if let Some(end) = path.last() {
                    match marched.iter_mut().find(|(k, _)| *k == (turn, *order)) {
                        Some((_, h)) => *h = *end,
                        None => marched.push(((turn, *order), *end)),
                    }
                }
            }
            Event::Eliminated { unit, hex, .. } | Event::Disrupted { unit, hex, .. }
                if of_side(unit) =>
            {
                hurt.push(*hex);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (why, hexes) in [
        ("Where your reinforcements arrived", arrived),
        (
            "Where your stack marched",
            marched.into_iter().map(|(_, h)| h).collect(),
        ),
        ("Where your units were lost or disrupted", hurt),
    ] {
        for h in hexes.into_iter().filter(|h| ours(*h)) {
            out.push((format!("{why}: {}", map.describe(h)), h));
        }
    }
    out
}
