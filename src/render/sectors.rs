//! Which sector maps a results mail shows: one for each area where
//! something happened to the player's stacks or sieges (a battle, a siege,
//! an arrival, a march, a unit lost or disrupted), never the same area
//! twice; and which area its drawn map (the picture) shows.

use crate::engine::events::Event;
use crate::engine::victory;
use crate::geo::Hex;
use crate::render::svg::Area;
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
/// overview and the order of battle show it). A place within [`RADIUS`]
/// - 1 hexes of a sector already chosen is shown by it, so no area comes
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
