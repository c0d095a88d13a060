//! Which sector maps a results mail shows: one for each area where
//! something happened (a battle) and one for each area where the player
//! has a stack, detached columns included, and never the same area twice
//! (the drawn map's areas are `render::frame`'s).

use crate::engine::events::Event;
use crate::geo::Hex;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// Columns and rows a results sector map shows either side of its centre.
pub const RADIUS: i32 = 4;

/// At most this many sector maps in one mail.
pub const MAX_SECTORS: usize = 6;

/// The sectors for a results mail, in order: the battles of the turn,
/// then the stacks of `side` (the largest first). A place within
/// [`RADIUS`] - 1 hexes of a sector already chosen is shown by it, so no
/// area comes twice and every stack, however far it went, is in a map
/// (up to [`MAX_SECTORS`]). Each with a title naming why it is shown.
pub fn centres(
    scn: &Scenario,
    state: &GameState,
    events: &[Event],
    side: Option<Side>,
) -> Vec<(String, Hex)> {
    let mut wanted: Vec<(String, Hex)> = Vec::new();
    for e in events {
        if let Event::CombatBegins { defender, .. } = e {
            wanted.push((
                format!("The battle at {}", scn.map.describe(*defender)),
                *defender,
            ));
        }
    }
    if let Some(side) = side {
        let mut stacks: Vec<_> = state
            .stacks()
            .into_iter()
            .filter(|s| s.side == side)
            .collect();
        stacks.sort_by_key(|s| (std::cmp::Reverse(s.units.len()), s.hex.row, s.hex.col));
        for s in stacks {
            wanted.push((
                format!("Around your stack at {}", scn.map.describe(s.hex)),
                s.hex,
            ));
        }
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
