//! What the map and the route search share: a land route, and the routes
//! found on the empty map kept with the map ([`RouteMemo`]). Both
//! `map.rs` and `route.rs` use this module; it uses neither.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use super::hex::Hex;

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

/// Routes found on a map with no one on it, kept for the next time they
/// are asked for. Shared by clones of the map; emptied when it reaches
/// [`RouteMemo::LIMIT`] routes, so it never grows without bound.
#[derive(Debug)]
pub struct RouteMemo {
    routes: Mutex<FxHashMap<(Hex, Hex), Option<Route>>>,
    /// The map's number among the maps built by this process (clones share
    /// it): what a memo of routes on an occupied map knows the map by.
    id: u64,
}

impl Default for RouteMemo {
    fn default() -> Self {
        static BUILT: AtomicU64 = AtomicU64::new(0);
        RouteMemo {
            routes: Mutex::default(),
            id: BUILT.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl RouteMemo {
    /// The most routes kept at once.
    pub const LIMIT: usize = 20_000;

    /// The map's number: two maps with the same number are one map.
    pub(crate) fn map_id(&self) -> u64 {
        self.id
    }

    pub(super) fn get_or_insert(
        &self,
        key: (Hex, Hex),
        find: impl FnOnce() -> Option<Route>,
    ) -> Option<Route> {
        if let Ok(routes) = self.routes.lock()
            && let Some(r) = routes.get(&key)
        {
            return r.clone();
        }
        let found = find();
        if let Ok(mut routes) = self.routes.lock() {
            if routes.len() >= Self::LIMIT {
                routes.clear();
            }
            routes.insert(key, found.clone());
        }
        found
    }
}
