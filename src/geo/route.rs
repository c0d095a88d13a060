//! Cheapest land routes with the movement costs of rule 8.21.

use pathfinding::prelude::dijkstra;

use super::hex::Hex;
use super::map::Map;

/// Extra movement points to cross a river hexside without a boat or
/// gunboat in the hex moved from or to (rule 8.21).
pub const RIVER_CROSSING_COST: u32 = 3;

/// A land route and its cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// Hexes from start to end, both included.
    pub hexes: Vec<Hex>,
    /// Movement points spent.
    pub cost: u32,
}

impl Route {
    /// Number of hexes moved (steps), not counting the start.
    pub fn steps(&self) -> usize {
        self.hexes.len().saturating_sub(1)
    }
}

/// Movement points to move from `from` into the adjacent `to` by land
/// (rule 8.21), or `None` if the move is not allowed (sea, off the map).
/// `boat_at` says whether a friendly boat or gunboat stands in a hex, which
/// waives the river crossing cost.
pub fn step_cost(map: &Map, from: Hex, to: Hex, boat_at: &dyn Fn(Hex) -> bool) -> Option<u32> {
    let enter = map.terrain(to)?.entry_cost()?;
    let river = if map.crosses_river(from, to) && !boat_at(from) && !boat_at(to) {
        RIVER_CROSSING_COST
    } else {
        0
    };
    Some(enter + river)
}

/// The cheapest land route between two hexes, with no boats anywhere.
/// Ties are broken the same way every time.
pub fn land_route(map: &Map, from: Hex, to: Hex) -> Option<Route> {
    land_route_with(map, from, to, &|_| false)
}

/// The cheapest land route, where `boat_at` marks hexes holding a friendly
/// boat or gunboat.
pub fn land_route_with(
    map: &Map,
    from: Hex,
    to: Hex,
    boat_at: &dyn Fn(Hex) -> bool,
) -> Option<Route> {
    if !map.is_land(from) || !map.is_land(to) {
        return None;
    }
    cheapest_route(from, to, &|a, b| step_cost(map, a, b, boat_at))
}

/// The cheapest route from `from` to `to` where `step(a, b)` gives the cost
/// of moving from `a` into the adjacent `b`, or `None` if that move is not
/// allowed. Among routes of equal cost the one with fewer hexes wins, and
/// ties beyond that are broken the same way every time (neighbour order).
pub fn cheapest_route(from: Hex, to: Hex, step: &dyn Fn(Hex, Hex) -> Option<u32>) -> Option<Route> {
    let (hexes, scaled) = dijkstra(
        &from,
        |&h| {
            h.neighbours()
                .into_iter()
                .filter_map(|n| step(h, n).map(|c| (n, u64::from(c) * 1024 + 1)))
                .collect::<Vec<_>>()
        },
        |&h| h == to,
    )?;
    Some(Route {
        hexes,
        cost: u32::try_from(scaled / 1024).unwrap_or(u32::MAX),
    })
}
