//! The route search keeps its tables in arrays reused between searches;
//! it must find exactly the route the `pathfinding` crate's Dijkstra finds
//! (the same hexes, so the same ties), whatever the costs and blocks.

use dervish::geo::route::{
    PositionKey, cheapest_route, cheapest_route_by_index, occupied_route, reference_route,
    resumed_route, step_cost,
};
use dervish::geo::{Hex, Map};
use dervish::scenario::DataSet;
use rand::{RngExt, SeedableRng};
use rustc_hash::FxHashSet;

fn key(bytes: &[u8]) -> PositionKey {
    PositionKey::new(bytes.to_vec())
}

fn land(map: &Map) -> Vec<Hex> {
    map.hexes().filter(|&h| map.is_land(h)).collect()
}

#[test]
fn the_route_search_finds_the_same_routes_as_the_reference_search() {
    let map = DataSet::embedded().expect("the embedded data loads").map;
    let land = land(&map);
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut found = 0;
    let mut none = 0;
    for round in 0..600 {
        // Some hexes blocked (as enemy stacks block), some holding boats.
        let blocked: FxHashSet<Hex> = (0..rng.random_range(0..40))
            .map(|_| land[rng.random_range(0..land.len())])
            .collect();
        let boats: FxHashSet<Hex> = (0..rng.random_range(0..10))
            .map(|_| land[rng.random_range(0..land.len())])
            .collect();
        let from = land[rng.random_range(0..land.len())];
        let to = land[rng.random_range(0..land.len())];
        // Every other round counts hexes only (a leader alone, 7.0), where
        // ties between routes are many.
        let hexes_only = round % 2 == 1;
        let step = |a: Hex, b: Hex| -> Option<u32> {
            if blocked.contains(&b) {
                return None;
            }
            let c = step_cost(&map, a, b, &|h| boats.contains(&h))?;
            Some(if hexes_only { 1 } else { c })
        };
        let fast = cheapest_route(&map, from, to, &step);
        let reference = reference_route(from, to, &step);
        assert_eq!(
            fast, reference,
            "round {round}: from {from} to {to}, hexes only {hexes_only}"
        );
        match fast {
            Some(_) => found += 1,
            None => none += 1,
        }
        // A search from the goal back, to exercise reuse of the tables.
        assert_eq!(
            cheapest_route(&map, to, from, &step),
            reference_route(to, from, &step)
        );
    }
    assert!(found > 500, "most pairs have a route ({found})");
    assert!(none > 0, "some are cut off by the blocks ({none})");
}

#[test]
fn a_search_to_its_own_start_and_off_the_map() {
    let map = DataSet::embedded().expect("the embedded data loads").map;
    let h = land(&map)[0];
    let step = |a: Hex, b: Hex| step_cost(&map, a, b, &|_| false);
    let r = cheapest_route(&map, h, h, &step).expect("a route of no steps");
    assert_eq!(r.hexes, vec![h]);
    assert_eq!(r.cost, 0);
    let off = Hex::new(-3, -3);
    assert_eq!(cheapest_route(&map, off, h, &step), None);
    assert_eq!(cheapest_route(&map, h, off, &step), None);
}

/// A route kept for a position is given back only for the same map, the
/// same position (its key) and the same ends; anything else is searched.
#[test]
fn a_route_kept_for_a_position_is_given_only_for_that_position() {
    let map = DataSet::embedded().expect("the embedded data loads").map;
    let other_map = DataSet::embedded().expect("the embedded data loads").map;
    let (a, b, c) = (Hex::new(10, 10), Hex::new(12, 11), Hex::new(14, 12));
    let searched = std::cell::Cell::new(0);
    let search = |route: Vec<Hex>| {
        searched.set(searched.get() + 1);
        Some(route)
    };
    let first = occupied_route(&map, &key(&[1, 2, 3]), a, b, || search(vec![b]));
    assert_eq!(first, Some(vec![b]));
    assert_eq!(
        occupied_route(&map, &key(&[1, 2, 3]), a, b, || search(vec![c])),
        first
    );
    assert_eq!(
        searched.get(),
        1,
        "the same position and ends: the route kept"
    );
    let answers = [
        occupied_route(&map, &key(&[1, 2, 4]), a, b, || search(vec![c])),
        occupied_route(&map, &key(&[1, 2, 3]), a, c, || search(vec![c])),
        occupied_route(&other_map, &key(&[1, 2, 3]), a, b, || search(vec![c])),
    ];
    assert_eq!(answers, [Some(vec![c]), Some(vec![c]), Some(vec![c])]);
    assert_eq!(searched.get(), 4, "another position, end or map: searched");
    // None found is kept too.
    assert_eq!(occupied_route(&map, &key(&[9]), a, b, || None), None);
    assert_eq!(
        occupied_route(&map, &key(&[9]), a, b, || search(vec![b])),
        None
    );
}

/// A position comes back after dozens of others (a player's trial
/// positions, the other side's view): its routes are still kept then, and
/// once many more positions have come, the oldest are searched again.
#[test]
fn routes_are_kept_for_many_positions_and_the_oldest_go_first() {
    let map = DataSet::embedded().expect("the embedded data loads").map;
    let (a, b, c) = (Hex::new(10, 10), Hex::new(12, 11), Hex::new(14, 12));
    let searched = std::cell::Cell::new(0);
    let search = |route: Vec<Hex>| {
        searched.set(searched.get() + 1);
        Some(route)
    };
    let position = |n: u32| key(&n.to_le_bytes());
    for n in 0..100 {
        assert_eq!(
            occupied_route(&map, &position(n), a, b, || search(vec![b])),
            Some(vec![b])
        );
    }
    assert_eq!(searched.get(), 100);
    for n in 0..100 {
        assert_eq!(
            occupied_route(&map, &position(n), a, b, || search(vec![c])),
            Some(vec![b]),
            "position {n} kept"
        );
    }
    assert_eq!(searched.get(), 100);
    // Far more positions than are kept: the first ones go.
    for n in 100..1000 {
        occupied_route(&map, &position(n), a, b, || search(vec![b]));
    }
    assert_eq!(
        occupied_route(&map, &position(0), a, b, || search(vec![c])),
        Some(vec![c]),
        "position 0 searched again"
    );
    assert_eq!(
        occupied_route(&map, &position(999), a, b, || search(vec![c])),
        Some(vec![b]),
        "the last position kept"
    );
}

/// A search kept for a position and a start, stopped at one goal and
/// resumed towards the next, finds for every goal exactly the route a
/// fresh search finds: goals nearer and farther than the last, the start
/// itself, goals cut off, positions and starts taking turns (more of them
/// than are kept, so that kept searches make way and are begun again).
#[test]
fn a_resumed_search_finds_what_a_fresh_search_finds() {
    let map = DataSet::embedded().expect("the embedded data loads").map;
    let table = map.hex_table();
    let land = land(&map);
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    // Twelve positions, each some hexes blocked; two starts on each.
    let positions: Vec<(PositionKey, FxHashSet<usize>, [Hex; 2])> = (0..12u32)
        .map(|n| {
            let blocked: FxHashSet<usize> = (0..rng.random_range(0..60))
                .filter_map(|_| table.index(land[rng.random_range(0..land.len())]))
                .collect();
            let starts = [0, 1].map(|_| land[rng.random_range(0..land.len())]);
            (key(&n.to_le_bytes()), blocked, starts)
        })
        .collect();
    let cells = table.cells();
    let (mut resumed, mut none) = (0, 0);
    for round in 0..1500 {
        // Mostly the last few positions, now and then an older one.
        let p = if round % 7 == 0 {
            rng.random_range(0..positions.len())
        } else {
            (round / 40 + rng.random_range(0..3)) % positions.len()
        };
        let (key, blocked, starts) = &positions[p];
        let from = starts[rng.random_range(0..2)];
        let to = if round % 11 == 0 {
            from
        } else {
            land[rng.random_range(0..land.len())]
        };
        let step = |i: usize, d: usize, j: usize| -> Option<u32> {
            if blocked.contains(&j) || cells[j].enter == 0 {
                return None;
            }
            let river = if cells[i].rivers & (1 << d) != 0 {
                3
            } else {
                0
            };
            Some(u32::from(cells[j].enter) + river)
        };
        let fresh = cheapest_route_by_index(&map, from, to, step);
        let kept = resumed_route(&map, key, from, to, step);
        assert_eq!(
            kept, fresh,
            "round {round}: position {p}, from {from} to {to}"
        );
        match kept {
            Some(_) => resumed += 1,
            None => none += 1,
        }
    }
    assert!(resumed > 1000, "most goals have a route ({resumed})");
    assert!(none > 0, "some are cut off by the blocks ({none})");
}
