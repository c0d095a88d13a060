//! Which areas the drawn map of a player's results mail shows
//! (docs/drawn-maps-by-mail.md): what the player must see, and whether it
//! fits one readable picture or needs two (the busiest area in detail and
//! an overview of the whole theatre).
//!
//! What must be seen: every hex of the side's marches this month, both
//! hexes of every battle and both ends of every retreat, the side's
//! besieged stacks, and the scenario's key places ([`key_places`]).

use crate::engine::events::Event;
use crate::engine::victory;
use crate::geo::Hex;
use crate::render::svg::Area;
use crate::scenario::definition::VictoryCondition;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// The fewest columns and rows a detail picture shows either side of its
/// centre, so a single stack is seen with the country around it.
pub const PICTURE_MIN_RADIUS: i32 = 4;

/// The most: 15 hexes a side. At 1000 pixels such an area is drawn with
/// every text at least 11 pixels high at sizes that still fit a hex (about
/// 6 map units); what needs more room gets an overview as well.
pub const PICTURE_MAX_RADIUS: i32 = 7;

/// The pictures of one results mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Framing {
    /// The hexes the player must see, in the order found.
    pub wanted: Vec<Hex>,
    /// The area drawn in detail: all of `wanted` when it fits, else the
    /// busiest part of it. `None` when there is nothing to frame (the
    /// overview alone).
    pub detail: Option<Area>,
    /// Whether an overview of the whole theatre goes with it: `wanted`
    /// does not fit one detail picture.
    pub overview: bool,
}

/// The pictures of `side`'s results mail after the month of `events`
/// (state after the turn): one area around everything the player must see
/// when it fits [`PICTURE_MAX_RADIUS`], with the side's other stacks
/// added, the nearest first, while they fit; else the busiest area in
/// detail and the theatre as an overview.
pub fn frame(scn: &Scenario, state: &GameState, events: &[Event], side: Side) -> Framing {
    let action = action_hexes(events, side);
    let besieged = victory::besieged(scn, state, side);
    let keys = key_places(scn, state);
    let mut wanted: Vec<Hex> = Vec::new();
    for h in action.iter().chain(&besieged).chain(&keys) {
        if !wanted.contains(h) {
            wanted.push(*h);
        }
    }
    let stacks = own_stacks(state, side);
    if wanted.is_empty()
        && let Some(h) = stacks.first()
    {
        wanted.push(*h);
    }
    let Some(all) = Span::around(&wanted) else {
        return Framing {
            wanted,
            detail: None,
            overview: true,
        };
    };
    if all.reach() < PICTURE_MAX_RADIUS {
        return Framing {
            detail: Some(grown(all, &stacks)),
            wanted,
            overview: false,
        };
    }
    // Weighted points: a besieged stack counts as two of the month's
    // events, a key place as one.
    let mut points = action;
    for h in &besieged {
        points.extend([*h, *h]);
    }
    points.extend(keys.iter().copied());
    let busiest = busiest(&points);
    Framing {
        detail: busiest.map(|b| grown(b, &stacks)),
        wanted,
        overview: true,
    }
}

/// The hexes of the month's events for `side`: the start and every hex of
/// its own marches, both hexes of every battle, both ends of every
/// retreat (battles and retreats concern both sides), with repeats.
pub fn action_hexes(events: &[Event], side: Side) -> Vec<Hex> {
    let mut out: Vec<Hex> = Vec::new();
    let mut moving = Side::Egyptian;
    for e in events {
        match e {
            Event::PhaseBegins { side: s, .. } => moving = *s,
            Event::MarchBegins { from, .. } if moving == side => out.push(*from),
            Event::Moved { path, .. } if moving == side => out.extend(path.iter().copied()),
            Event::CombatBegins {
                attacker, defender, ..
            } => out.extend([*attacker, *defender]),
            Event::Retreat { from, to, .. } => out.extend(std::iter::once(*from).chain(*to)),
            _ => {}
        }
    }
    out
}

/// The scenario's key places, read from its victory conditions (4.1,
/// 4.2), the same for both sides: the places a siege, a capture or a
/// siege lifted decides; the one place a unit must reach (a British supply
/// unit in Khartoum), or, where it may reach one of several (the civilian
/// unit in Wady Halfa or Souakim), where those units stand now; the stack
/// of a leader whose loss ends the game (the Khalifa), and every stack
/// holding a British leader when losing one in combat does (Gordon's).
pub fn key_places(scn: &Scenario, state: &GameState) -> Vec<Hex> {
    let mut out: Vec<Hex> = Vec::new();
    let place = |name: &str| scn.map.resolve(name).ok();
    let leader_at = |name: &str| {
        state
            .leaders
            .iter()
            .find(|l| !l.removed && l.name.eq_ignore_ascii_case(name))
            .and_then(|l| l.hex)
    };
    for c in &scn.def.victory {
        match c {
            VictoryCondition::NoSiege { places, .. } => {
                out.extend(places.iter().filter_map(|p| place(p)))
            }
            VictoryCondition::Capture { place: p, .. }
            | VictoryCondition::Siege { place: p, .. } => out.extend(place(p)),
            VictoryCondition::UnitIn { places, .. } if places.len() == 1 => {
                out.extend(places.iter().filter_map(|p| place(p)))
            }
            VictoryCondition::UnitIn { kind, nation, .. } => {
                out.extend(state.units.iter().filter_map(|u| {
                    let ty = scn.units.get(&u.unit_type)?;
                    let fits = ty.kind == *kind && nation.is_none_or(|n| n == ty.nation);
                    u.hex().filter(|_| fits)
                }))
            }
            VictoryCondition::LeaderEliminated { leader, .. } => out.extend(leader_at(leader)),
            VictoryCondition::BritishLeaderStackEliminated => {
                out.extend(state.leaders.iter().filter_map(|l| {
                    let british = scn
                        .units
                        .leader(&l.name)
                        .is_some_and(|t| victory::is_british(t.nation));
                    l.hex.filter(|_| british && !l.removed)
                }))
            }
            VictoryCondition::DrawCapOnBritishAttrition { .. } | VictoryCondition::EndedByEvent => {
            }
        }
    }
    let mut seen = Vec::new();
    out.retain(|h| {
        let new = !seen.contains(h);
        seen.push(*h);
        new
    });
    out
}

/// The side's stacks, the largest first (as the sector maps).
fn own_stacks(state: &GameState, side: Side) -> Vec<Hex> {
    let mut stacks: Vec<(usize, Hex)> = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side)
        .map(|s| (s.units.len(), s.hex))
        .collect();
    stacks.sort_by_key(|(n, h)| (std::cmp::Reverse(*n), h.row, h.col));
    stacks.into_iter().map(|(_, h)| h).collect()
}

/// The span `b` with the side's other stacks added, the nearest to its
/// middle first, while it still fits; as an area with a hex to spare.
fn grown(mut b: Span, stacks: &[Hex]) -> Area {
    let middle = b.centre();
    let mut near = stacks.to_vec();
    near.sort_by_key(|h| (middle.distance(*h), h.row, h.col));
    for h in near {
        let wider = b.with(h);
        if wider.reach() < PICTURE_MAX_RADIUS {
            b = wider;
        }
    }
    Area::Around {
        centre: b.centre(),
        radius: (b.reach() + 1).clamp(PICTURE_MIN_RADIUS, PICTURE_MAX_RADIUS),
    }
}

/// The span of the most points that fit one detail picture: around each
/// point in turn, the points within [`PICTURE_MAX_RADIUS`] - 1 columns and
/// rows of it; the most of them (the first such point on a tie).
fn busiest(points: &[Hex]) -> Option<Span> {
    let near = |c: Hex, h: Hex| {
        (h.col - c.col).abs() < PICTURE_MAX_RADIUS && (h.row - c.row).abs() < PICTURE_MAX_RADIUS
    };
    let mut best: Option<(usize, Span)> = None;
    for c in points {
        let inside: Vec<Hex> = points.iter().copied().filter(|h| near(*c, *h)).collect();
        // Around the middle of those, they fit as well (the span is at
        // most 2 * (MAX - 1) wide, a reach of MAX - 1).
        let Some(s) = Span::around(&inside) else {
            continue;
        };
        if best.as_ref().is_none_or(|(n, _)| inside.len() > *n) {
            best = Some((inside.len(), s));
        }
    }
    best.map(|(_, s)| s)
}

/// The columns and rows some hexes span.
#[derive(Clone, Copy, Debug)]
struct Span {
    c0: i32,
    c1: i32,
    r0: i32,
    r1: i32,
}

impl Span {
    fn around(hexes: &[Hex]) -> Option<Span> {
        let first = hexes.first()?;
        let start = Span {
            c0: first.col,
            c1: first.col,
            r0: first.row,
            r1: first.row,
        };
        Some(hexes.iter().fold(start, |b, h| b.with(*h)))
    }

    fn with(self, h: Hex) -> Span {
        Span {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The busiest area is where most of the points are: three at
    /// Souakim outweigh two on the Nile, and the area holds all three.
    #[test]
    fn the_busiest_area_has_the_most_action() {
        let (souakim, tamai, sinkat) = (Hex::new(54, 19), Hex::new(53, 20), Hex::new(50, 21));
        let (khartoum, metammeh) = (Hex::new(19, 42), Hex::new(25, 34));
        let points = [khartoum, souakim, metammeh, tamai, sinkat];
        let s = busiest(&points).expect("an area");
        assert_eq!((s.c0, s.c1, s.r0, s.r1), (50, 54, 19, 21));
        assert!(s.reach() < PICTURE_MAX_RADIUS);
        assert!(busiest(&[]).is_none());
    }
}
