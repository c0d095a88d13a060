//! Cheapest land routes with the movement costs of rule 8.21.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use pathfinding::prelude::dijkstra;
use rustc_hash::FxHashMap;

use super::hex::Hex;
use super::map::Map;
pub use super::memo::{Route, RouteMemo};

/// Extra movement points to cross a river hexside without a boat or
/// gunboat in the hex moved from or to (rule 8.21).
pub const RIVER_CROSSING_COST: u32 = 3;

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
///
/// These routes depend on the map alone, so each is found once and kept
/// with the map (programmed players ask for the same few every turn).
pub fn land_route(map: &Map, from: Hex, to: Hex) -> Option<Route> {
    map.land_routes()
        .get_or_insert((from, to), || land_route_with(map, from, to, &|_| false))
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
    cheapest_route(map, from, to, &|a, b| step_cost(map, a, b, boat_at))
}

/// The cheapest route from `from` to `to` on `map`, where `step(a, b)`
/// gives the cost of moving from `a` into the adjacent `b`, or `None` if
/// that move is not allowed. Among routes of equal cost the one with fewer
/// hexes wins, and ties beyond that are broken the same way every time.
///
/// This is Dijkstra's search as the `pathfinding` crate runs it (a binary
/// heap ordered by cost alone, a hex's first-found route kept unless a
/// strictly cheaper one turns up, neighbours in clockwise order from
/// north), so ties fall exactly as they always have; it differs in keeping
/// its tables in arrays indexed by hex, reused from one search to the next
/// on the same thread, instead of a hash map built for every search.
/// `tests/route_search.rs` checks it against the crate's search.
pub fn cheapest_route(
    map: &Map,
    from: Hex,
    to: Hex,
    step: &dyn Fn(Hex, Hex) -> Option<u32>,
) -> Option<Route> {
    if !map.contains(from) {
        return reference_route(from, to, step);
    }
    SCRATCH.with(|cell| {
        let mut scratch = cell.borrow_mut();
        scratch.search(map, from, to, step)
    })
}

/// The same search with the `pathfinding` crate's own Dijkstra and hash
/// tables: for a start off the map, and as the reference the faster search
/// is tested against.
pub fn reference_route(
    from: Hex,
    to: Hex,
    step: &dyn Fn(Hex, Hex) -> Option<u32>,
) -> Option<Route> {
    let (hexes, scaled) = dijkstra(
        &from,
        |&h| {
            h.neighbours()
                .into_iter()
                .filter_map(|n| step(h, n).map(|c| (n, scaled_cost(c))))
                .collect::<Vec<_>>()
        },
        |&h| h == to,
    )?;
    Some(Route {
        hexes,
        cost: u32::try_from(scaled / STEP_SCALE).unwrap_or(u32::MAX),
    })
}

/// A step's cost in the search: movement points scaled up, plus one per
/// hex, so that of two routes of equal cost the shorter wins.
const STEP_SCALE: u64 = 1024;

fn scaled_cost(c: u32) -> u64 {
    u64::from(c) * STEP_SCALE + 1
}

/// An entry of the search's heap, ordered by cost alone (cheapest first),
/// as in the `pathfinding` crate, so that entries of equal cost leave the
/// heap in the same order as there.
struct Entry {
    cost: u64,
    index: usize,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cost == other.cost
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cost.cmp(&self.cost)
    }
}

/// The search's tables, kept between searches: a hex's entry counts only
/// if its stamp is the current search's.
#[derive(Default)]
struct Scratch {
    search: u32,
    stamp: Vec<u32>,
    cost: Vec<u64>,
    parent: Vec<usize>,
    heap: BinaryHeap<Entry>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Scratch {
    fn search(
        &mut self,
        map: &Map,
        from: Hex,
        to: Hex,
        step: &dyn Fn(Hex, Hex) -> Option<u32>,
    ) -> Option<Route> {
        let columns = usize::try_from(map.columns()).unwrap_or(0);
        let size = columns * usize::try_from(map.rows()).unwrap_or(0);
        if self.stamp.len() != size || self.search == u32::MAX {
            self.stamp = vec![0; size];
            self.cost = vec![0; size];
            self.parent = vec![usize::MAX; size];
            self.search = 0;
        }
        self.search += 1;
        let now = self.search;
        let index = |h: Hex| -> Option<usize> {
            map.contains(h).then(|| {
                usize::try_from(h.row).unwrap_or(0) * columns + usize::try_from(h.col).unwrap_or(0)
            })
        };
        let hex_at = |i: usize| -> Hex {
            Hex::new(
                i32::try_from(i % columns).unwrap_or(0),
                i32::try_from(i / columns).unwrap_or(0),
            )
        };
        let start = index(from)?;
        self.heap.clear();
        self.stamp[start] = now;
        self.cost[start] = 0;
        self.parent[start] = usize::MAX;
        self.heap.push(Entry {
            cost: 0,
            index: start,
        });
        let mut reached = None;
        while let Some(Entry { cost, index: i }) = self.heap.pop() {
            let node = hex_at(i);
            if node == to {
                reached = Some(i);
                break;
            }
            if cost > self.cost[i] {
                continue;
            }
            for n in node.neighbours() {
                let Some(c) = step(node, n) else { continue };
                // A step off the map is never allowed by the callers' rules
                // (no terrain to enter), so it is not followed.
                let Some(j) = index(n) else { continue };
                let new_cost = cost + scaled_cost(c);
                if self.stamp[j] == now && self.cost[j] <= new_cost {
                    continue;
                }
                self.stamp[j] = now;
                self.cost[j] = new_cost;
                self.parent[j] = i;
                self.heap.push(Entry {
                    cost: new_cost,
                    index: j,
                });
            }
        }
        let end = reached?;
        let mut hexes = vec![hex_at(end)];
        let mut at = end;
        while self.parent[at] != usize::MAX {
            at = self.parent[at];
            hexes.push(hex_at(at));
        }
        hexes.reverse();
        Some(Route {
            hexes,
            cost: u32::try_from(self.cost[end] / STEP_SCALE).unwrap_or(u32::MAX),
        })
    }
}

/// Routes found on a map with people on it, kept on this thread for the
/// few positions met last. The order checker plans a set of marches on one
/// position, a programmed player checks several sets on it, and the march
/// phase searches again on much the same one. A route depends only on the
/// map, on what its search reads of the position (`key`, made by the
/// caller, who answers for it holding all of that) and on its ends, so a
/// route kept is the one the search would find again.
pub fn occupied_route(
    map: &Map,
    key: &[u8],
    from: Hex,
    to: Hex,
    find: impl FnOnce() -> Option<Vec<Hex>>,
) -> Option<Vec<Hex>> {
    let map_id = map.land_routes().map_id();
    let kept = POSITIONS.with(|cell| {
        let mut positions = cell.borrow_mut();
        let k = positions
            .iter()
            .position(|p| p.map == map_id && p.key == key)?;
        // The position met last goes first: it is the likeliest next.
        let p = positions.remove(k);
        let route = p.routes.get(&(from, to)).cloned();
        positions.insert(0, p);
        route
    });
    if let Some(route) = kept {
        return route;
    }
    let found = find();
    POSITIONS.with(|cell| {
        let mut positions = cell.borrow_mut();
        if positions
            .first()
            .is_none_or(|p| p.map != map_id || p.key != key)
        {
            positions.truncate(Position::KEPT - 1);
            positions.insert(
                0,
                Position {
                    map: map_id,
                    key: key.to_vec(),
                    routes: FxHashMap::default(),
                },
            );
        }
        if let Some(p) = positions.first_mut() {
            p.routes.insert((from, to), found.clone());
        }
    });
    found
}

/// A position met lately and the routes found on it.
struct Position {
    map: u64,
    key: Vec<u8>,
    routes: FxHashMap<(Hex, Hex), Option<Vec<Hex>>>,
}

impl Position {
    /// How many positions a thread keeps.
    const KEPT: usize = 8;
}

thread_local! {
    static POSITIONS: RefCell<Vec<Position>> = const { RefCell::new(Vec::new()) };
}
