//! Which sector maps a results mail shows: one for each area where
//! something happened (a battle) and one for each area where the player
//! has a stack, detached columns included, and never the same area twice;
//! and which area its drawn map (the picture) shows.

use crate::engine::events::Event;
use crate::geo::Hex;
use crate::render::svg::Area;
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

/// The fewest columns and rows a results mail's picture shows either side
/// of its centre, so a single stack is seen with the country around it.
pub const PICTURE_MIN_RADIUS: i32 = 4;

/// The most: a player's area wider than this is drawn as the whole
/// theatre. At 1000 pixels an area of this radius (23 hexes a side) still
/// shows every hex's label and stays under 200 KB as a PNG.
pub const PICTURE_MAX_RADIUS: i32 = 11;

/// The area the picture of `side`'s results mail shows: the hexes the
/// month's events touched for the side (its own marches, every battle and
/// retreat), or, in a month without any, its largest stack; then each of
/// its other stacks, the nearest first, that still fits; around the
/// middle of them with a hex to spare. The whole theatre when the month's
/// events alone, with that hex, lie more than [`PICTURE_MAX_RADIUS`]
/// columns or rows from their middle, or the side has nothing on the map. Stacks left out are
/// in the text's sector maps.
pub fn picture_area(state: &GameState, events: &[Event], side: Side) -> Area {
    let mut core: Vec<Hex> = Vec::new();
    let mut moving = Side::Egyptian;
    for e in events {
        match e {
            Event::PhaseBegins { side: s, .. } => moving = *s,
            Event::MarchBegins { from, .. } if moving == side => core.push(*from),
            Event::Moved { path, .. } if moving == side => core.extend(path.iter().copied()),
            Event::CombatBegins {
                attacker, defender, ..
            } => core.extend([*attacker, *defender]),
            Event::Retreat { from, to, .. } => core.extend(std::iter::once(*from).chain(*to)),
            _ => {}
        }
    }
    // The side's stacks, the largest first (as the sector maps).
    let mut stacks: Vec<(usize, Hex)> = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side)
        .map(|s| (s.units.len(), s.hex))
        .collect();
    stacks.sort_by_key(|(n, h)| (std::cmp::Reverse(*n), h.row, h.col));
    if core.is_empty() {
        match stacks.first() {
            Some((_, h)) => core.push(*h),
            None => return Area::Theatre,
        }
    }
    let Some(mut b) = Box::around(&core) else {
        return Area::Theatre;
    };
    // The radius is the reach and a hex to spare: at most the largest.
    if b.reach() >= PICTURE_MAX_RADIUS {
        return Area::Theatre;
    }
    let middle = b.centre();
    stacks.sort_by_key(|(_, h)| (middle.distance(*h), h.row, h.col));
    for (_, h) in stacks {
        let wider = b.with(h);
        if wider.reach() < PICTURE_MAX_RADIUS {
            b = wider;
        }
    }
    Area::Around {
        centre: b.centre(),
        radius: (b.reach() + 1).max(PICTURE_MIN_RADIUS),
    }
}

/// The columns and rows some hexes span.
#[derive(Clone, Copy)]
struct Box {
    c0: i32,
    c1: i32,
    r0: i32,
    r1: i32,
}

impl Box {
    fn around(hexes: &[Hex]) -> Option<Box> {
        let first = hexes.first()?;
        let start = Box {
            c0: first.col,
            c1: first.col,
            r0: first.row,
            r1: first.row,
        };
        Some(hexes.iter().fold(start, |b, h| b.with(*h)))
    }

    fn with(self, h: Hex) -> Box {
        Box {
            c0: self.c0.min(h.col),
            c1: self.c1.max(h.col),
            r0: self.r0.min(h.row),
            r1: self.r1.max(h.row),
        }
    }

    fn centre(&self) -> Hex {
        Hex::new(
            self.c0 + (self.c1 - self.c0) / 2,
            self.r0 + (self.r1 - self.r0) / 2,
        )
    }

    /// Columns or rows from the centre to the farthest edge.
    fn reach(&self) -> i32 {
        ((self.c1 - self.c0 + 1) / 2).max((self.r1 - self.r0 + 1) / 2)
    }
}
