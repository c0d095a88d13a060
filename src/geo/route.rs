//! Cheapest land routes with the movement costs of rule 8.21.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use pathfinding::prelude::dijkstra;
use rustc_hash::FxHashMap;

use super::hex::Hex;
use super::map::{HexTable, Map};
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
        .get_or_insert((from, to), || empty_land_route(map, from, to, |_| false))
}

/// [`land_route_with`] with no boats, and barred from the hexes (by
/// index in the map's [`HexTable`]) for which `barred` says so: each step
/// read from the table, as [`step_cost`] reckons it.
pub fn empty_land_route(
    map: &Map,
    from: Hex,
    to: Hex,
    barred: impl Fn(usize) -> bool,
) -> Option<Route> {
    if !map.is_land(from) || !map.is_land(to) {
        return None;
    }
    let cells = map.hex_table().cells();
    cheapest_route_by_index(map, from, to, |i, d, j| {
        let enter = cells[j].enter;
        if enter == 0 || barred(j) {
            return None;
        }
        let river = if cells[i].rivers & (1 << d) != 0 {
            RIVER_CROSSING_COST
        } else {
            0
        };
        Some(u32::from(enter) + river)
    })
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
    let table = map.hex_table();
    cheapest_route_by_index(map, from, to, |a, _, b| step(table.hex(a), table.hex(b)))
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
        cost: u32::try_from(scaled / u64::from(STEP_SCALE)).unwrap_or(u32::MAX),
    })
}

/// A step's cost in the search: movement points scaled up, plus one per
/// hex, so that of two routes of equal cost the shorter wins.
const STEP_SCALE: u32 = 1024;

fn scaled_cost(c: u32) -> u64 {
    u64::from(c) * u64::from(STEP_SCALE) + 1
}

/// [`scaled_cost`] as the fast search keeps it. No route on a map of a
/// few thousand hexes comes near `u32::MAX` (the dearest step, 255 points
/// and a river, over every hex of a 4,000-hex map is about a billion), and
/// the sum saturates rather than wraps.
fn scaled_step(c: u32) -> u32 {
    u32::try_from(scaled_cost(c)).unwrap_or(u32::MAX)
}

/// An entry of the search's heap, ordered by cost alone (cheapest first),
/// as in the `pathfinding` crate, so that entries of equal cost leave the
/// heap in the same order as there.
#[derive(Clone, Copy)]
struct Entry {
    cost: u32,
    index: u32,
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

/// One search from one start, in tables reused from one search to the
/// next: a hex's entry counts only if its stamp is the current search's.
///
/// A search may stop at a goal and go on later towards another. Until it
/// stops, what it does does not depend on its goal: it pops the same
/// entries in the same order whatever the goal, and stops when the goal
/// leaves the heap. So a search stopped at one goal and resumed towards a
/// second does exactly what a fresh search for the second would have
/// done, and a goal it has already passed has its route, parents and all,
/// as a fresh search would leave it. This holds only while every step
/// costs what it cost when the search began, which the caller answers for.
#[derive(Default)]
struct Search {
    stamp: u32,
    nodes: Vec<Node>,
    heap: BinaryHeap<Entry>,
    /// The entry popped last, at the goal the search stopped at, not yet
    /// followed: a resumed search follows it first.
    pending: Option<Entry>,
}

/// What the search knows of one hex, in one place so that a step reads
/// and writes one entry of one array.
#[derive(Clone, Copy)]
struct Node {
    /// The search this entry belongs to; an older one's is empty.
    stamp: u32,
    /// The search that has taken this hex off its heap, so that its route
    /// is final.
    settled: u32,
    /// The hex reached before it on its cheapest route so far.
    parent: u32,
    /// The cost of that route, scaled as [`scaled_step`].
    cost: u32,
}

impl Node {
    const EMPTY: Node = Node {
        stamp: 0,
        settled: 0,
        parent: NO_PARENT,
        cost: 0,
    };
}

thread_local! {
    static SCRATCH: RefCell<Search> = RefCell::new(Search::default());
}

/// No parent: the start of the search.
const NO_PARENT: u32 = u32::MAX;

/// The cheapest route from `from` to `to` on `map` by the map's
/// [`HexTable`], where `step(a, d, b)` gives the cost of moving from the
/// hex at index `a` into its neighbour `b` in direction `d`
/// (`Direction::index`), or `None` if that move is not allowed. The same
/// search as [`cheapest_route`] (which is this one with its step asked by
/// hexes), so the same routes and ties; a caller that reads the table
/// itself spares the step working out hexes, terrain and rivers.
pub fn cheapest_route_by_index(
    map: &Map,
    from: Hex,
    to: Hex,
    step: impl Fn(usize, usize, usize) -> Option<u32>,
) -> Option<Route> {
    let table = map.hex_table();
    let start = table.index(from)?;
    // A goal off the map is never reached: the search would cover
    // everything it can reach and find nothing.
    let goal = table.index(to)?;
    SCRATCH.with(|cell| {
        let mut search = cell.borrow_mut();
        search.begin(table.len(), start)?;
        search.route_towards(table, goal, &step)
    })
}

impl Search {
    /// Starts a search from the hex at index `start` on a map of `size`
    /// hexes, forgetting the last one.
    fn begin(&mut self, size: usize, start: usize) -> Option<()> {
        if self.nodes.len() != size || self.stamp == u32::MAX {
            self.nodes = vec![Node::EMPTY; size];
            self.stamp = 0;
        }
        self.stamp += 1;
        self.heap.clear();
        self.pending = None;
        self.nodes[start] = Node {
            stamp: self.stamp,
            settled: 0,
            parent: NO_PARENT,
            cost: 0,
        };
        self.heap.push(Entry {
            cost: 0,
            index: u32::try_from(start).ok()?,
        });
        Some(())
    }

    /// Whether the search has taken the hex at `i` off its heap.
    fn settled(&self, i: usize) -> bool {
        self.nodes.get(i).is_some_and(|n| n.settled == self.stamp)
    }

    /// The route to the hex at index `goal`, going on as far as it takes.
    fn route_towards(
        &mut self,
        table: &HexTable,
        goal: usize,
        step: &impl Fn(usize, usize, usize) -> Option<u32>,
    ) -> Option<Route> {
        self.run_to(table, goal, step);
        self.route_to(table, goal)
    }

    /// Goes on until the hex at index `goal` leaves the heap (at once if it
    /// has), or every hex it can reach has.
    fn run_to(
        &mut self,
        table: &HexTable,
        goal: usize,
        step: &impl Fn(usize, usize, usize) -> Option<u32>,
    ) {
        if self.settled(goal) {
            return;
        }
        if let Some(entry) = self.pending.take() {
            self.follow(table, entry, step);
        }
        while let Some(entry) = self.heap.pop() {
            let i = entry.index as usize;
            if i == goal {
                self.nodes[i].settled = self.stamp;
                self.pending = Some(entry);
                return;
            }
            self.follow(table, entry, step);
        }
    }

    /// Takes the steps out of the hex of a popped `entry`, unless a
    /// cheaper route to it has been followed already.
    #[inline(always)]
    fn follow(
        &mut self,
        table: &HexTable,
        Entry { cost, index }: Entry,
        step: &impl Fn(usize, usize, usize) -> Option<u32>,
    ) {
        let i = index as usize;
        let now = self.stamp;
        if cost > self.nodes[i].cost {
            return;
        }
        self.nodes[i].settled = now;
        for (d, &n) in table.next()[i].iter().enumerate() {
            // A step off the map is never allowed by the callers' rules
            // (no terrain to enter), so it is not followed.
            if n == HexTable::OFF {
                continue;
            }
            let j = n as usize;
            // A hex taken off the heap has its cheapest route, which no
            // step out of this one (of the same cost or more) improves on:
            // its step need not be asked, and would change nothing.
            if self.nodes.get(j).is_none_or(|node| node.settled == now) {
                continue;
            }
            let Some(c) = step(i, d, j) else { continue };
            let new_cost = cost.saturating_add(scaled_step(c));
            let Some(node) = self.nodes.get_mut(j) else {
                continue;
            };
            if node.stamp == now && node.cost <= new_cost {
                continue;
            }
            *node = Node {
                stamp: now,
                settled: node.settled,
                parent: index,
                cost: new_cost,
            };
            self.heap.push(Entry {
                cost: new_cost,
                index: n,
            });
        }
    }

    /// The route to the hex at index `goal`, if the search has reached it.
    fn route_to(&self, table: &HexTable, goal: usize) -> Option<Route> {
        if !self.settled(goal) {
            return None;
        }
        let mut hexes = vec![table.hex(goal)];
        let mut at = goal;
        while self.nodes[at].parent != NO_PARENT {
            at = self.nodes[at].parent as usize;
            hexes.push(table.hex(at));
        }
        hexes.reverse();
        Some(Route {
            hexes,
            cost: self.nodes[goal].cost / STEP_SCALE,
        })
    }
}

/// What a route search reads of a position, as bytes, with their hash
/// (made once, so that finding the position among those kept compares
/// hashes before bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionKey {
    bytes: Vec<u8>,
    hash: u64,
}

impl PositionKey {
    pub fn new(bytes: Vec<u8>) -> PositionKey {
        let mut hasher = rustc_hash::FxHasher::default();
        std::hash::Hasher::write(&mut hasher, &bytes);
        PositionKey {
            hash: std::hash::Hasher::finish(&hasher),
            bytes,
        }
    }
}

/// Routes found on a map with people on it, kept on this thread for the
/// positions met last. The order checker plans a set of marches on one
/// position, a programmed player checks several sets on it, and the march
/// phase searches again on much the same one; a position also comes back
/// after a few dozen others (a player's trial positions, the other side's
/// view). A route depends only on the map, on what its search reads of the
/// position (`key`, made by the caller, who answers for it holding all of
/// that) and on its ends, so a route kept is the one the search would find
/// again.
pub fn occupied_route(
    map: &Map,
    key: &PositionKey,
    from: Hex,
    to: Hex,
    find: impl FnOnce() -> Option<Vec<Hex>>,
) -> Option<Vec<Hex>> {
    let map_id = map.land_routes().map_id();
    let kept = POSITIONS.with(|cell| {
        let mut positions = cell.borrow_mut();
        positions.tick += 1;
        let tick = positions.tick;
        let p = positions.find(map_id, key)?;
        p.used = tick;
        p.routes.get(&(from, to)).cloned()
    });
    if let Some(route) = kept {
        return route;
    }
    let found = find();
    POSITIONS.with(|cell| {
        let mut positions = cell.borrow_mut();
        let tick = positions.tick;
        let p = positions.find_or_add(map_id, key);
        p.used = tick;
        p.routes.insert((from, to), found.clone());
    });
    found
}

/// A position met lately and the routes found on it.
struct Position {
    map: u64,
    key: PositionKey,
    routes: FxHashMap<(Hex, Hex), Option<Vec<Hex>>>,
    /// When it was last asked for ([`Positions::tick`]).
    used: u64,
}

/// The positions a thread keeps, at most [`Positions::KEPT`]; when one
/// more comes, the one asked for longest ago goes.
#[derive(Default)]
struct Positions {
    kept: Vec<Position>,
    /// Counts the asks, to tell which position was asked for last.
    tick: u64,
}

impl Positions {
    const KEPT: usize = 128;

    fn find(&mut self, map: u64, key: &PositionKey) -> Option<&mut Position> {
        self.kept
            .iter_mut()
            .find(|p| p.key.hash == key.hash && p.map == map && p.key.bytes == key.bytes)
    }

    fn find_or_add(&mut self, map: u64, key: &PositionKey) -> &mut Position {
        let k = match self
            .kept
            .iter()
            .position(|p| p.key.hash == key.hash && p.map == map && p.key.bytes == key.bytes)
        {
            Some(k) => k,
            None => {
                let position = Position {
                    map,
                    key: key.clone(),
                    routes: FxHashMap::default(),
                    used: self.tick,
                };
                if self.kept.len() < Self::KEPT {
                    self.kept.push(position);
                    self.kept.len() - 1
                } else {
                    let oldest = (0..self.kept.len())
                        .min_by_key(|&k| self.kept[k].used)
                        .unwrap_or(0);
                    self.kept[oldest] = position;
                    oldest
                }
            }
        };
        &mut self.kept[k]
    }
}

thread_local! {
    static POSITIONS: RefCell<Positions> = RefCell::new(Positions::default());
}

/// The cheapest route from `from` to `to` on a map with people on it, as
/// [`cheapest_route_by_index`] finds it with `step`, by a search kept on
/// this thread for the position (`key`) and the start: the checker plans
/// several marches from one hex on one position, a programmed player
/// checks several sets of them, and the march phase's legs set off from
/// where the last one ended. A kept search answers a goal it has passed
/// at once and goes on towards one it has not, which is exactly what a
/// fresh search would do (see [`Search`]); so `step` must be the same
/// for the same key, which the caller answers for (it is for a goal the
/// enemy does not hold: a search towards an enemy's hex costs its last
/// step otherwise, and is not kept).
pub fn resumed_route(
    map: &Map,
    key: &PositionKey,
    from: Hex,
    to: Hex,
    step: impl Fn(usize, usize, usize) -> Option<u32>,
) -> Option<Route> {
    let table = map.hex_table();
    let start = table.index(from)?;
    let goal = table.index(to)?;
    let map_id = map.land_routes().map_id();
    SEARCHES.with(|cell| {
        let mut kept = cell.borrow_mut();
        kept.search_for(map_id, key, start, table.len())?
            .route_towards(table, goal, &step)
    })
}

/// A search kept for a position and a start.
#[derive(Default)]
struct KeptSearch {
    map: u64,
    key: Option<PositionKey>,
    start: usize,
    /// When it was last asked for ([`KeptSearches::tick`]).
    used: u64,
    search: Search,
}

/// The searches a thread keeps, at most [`KeptSearches::KEPT`] (each holds
/// a table of the whole map); when one more comes, the one asked for
/// longest ago makes way, its tables reused.
#[derive(Default)]
struct KeptSearches {
    kept: Vec<KeptSearch>,
    tick: u64,
}

impl KeptSearches {
    const KEPT: usize = 8;

    /// The search kept for `key` from the hex at index `start`, or a new
    /// one begun in place of the oldest.
    fn search_for(
        &mut self,
        map: u64,
        key: &PositionKey,
        start: usize,
        size: usize,
    ) -> Option<&mut Search> {
        self.tick += 1;
        let found = self.kept.iter().position(|s| {
            s.start == start
                && s.map == map
                && s.key
                    .as_ref()
                    .is_some_and(|k| k.hash == key.hash && k.bytes == key.bytes)
        });
        let k = match found {
            Some(k) => k,
            None => {
                let k = if self.kept.len() < Self::KEPT {
                    self.kept.push(KeptSearch::default());
                    self.kept.len() - 1
                } else {
                    (0..self.kept.len())
                        .min_by_key(|&k| self.kept[k].used)
                        .unwrap_or(0)
                };
                let s = &mut self.kept[k];
                s.map = map;
                s.key = Some(key.clone());
                s.start = start;
                s.search.begin(size, start)?;
                k
            }
        };
        self.kept[k].used = self.tick;
        Some(&mut self.kept[k].search)
    }
}

thread_local! {
    static SEARCHES: RefCell<KeptSearches> = RefCell::new(KeptSearches::default());
}
