//! How a stack may move, shared by the march, retreats, river moves,
//! ambushes, arrivals and the order checker's plans: who stands where
//! (`Occupancy`), what a step costs or why it is barred (8.2, 8.21, 9.1,
//! 9.12, scenario rules of 2.2), the cheapest legal route, and a stack's
//! movement allowance (8.31, 8.24, 9.7). It reads the turn and changes
//! nothing.

use super::Turn;
use crate::dice::DieSource;
use crate::geo::Hex;
use crate::geo::map::{HexTable, RiverId};
use crate::geo::route::cheapest_route_by_index;
use crate::scenario::definition::SpecialRule;
use crate::scenario::{Side, UnitKind};

/// Movement allowance of the slowest of `units` (8.31, 8.24, 9.7).
pub(super) fn allowance_of<S: DieSource>(t: &Turn<'_, S>, units: &[usize]) -> u32 {
    let mp = |u: usize| {
        let unit = &t.state.units[u];
        t.type_at(u).map(|ty| {
            if unit.disrupted {
                ty.movement / 2
            } else {
                ty.movement
            }
        })
    };
    // Rule 8.24: each camel carries one supply unit at the camel's rate.
    let camels = units
        .iter()
        .filter(|&&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Camel))
        .count();
    let mut carried = 0;
    units
        .iter()
        .filter(|&&u| {
            let supply = t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Supply);
            if supply && carried < camels {
                carried += 1;
                return false;
            }
            true
        })
        .filter_map(|&u| mp(u))
        .min()
        .unwrap_or(0)
}

/// Who stands where, taken once so that route searches look up hexes
/// instead of scanning every counter: a byte of flags for each hex of the
/// map.
pub(crate) struct Occupancy {
    columns: i32,
    rows: i32,
    flags: Vec<u8>,
    /// Hexes beside the river named by rule 2.2 where this side may not go.
    forbidden: Option<(RiverId, usize, String, String)>,
    /// [`Occupancy::route_key`], made when first asked for: the order
    /// checker plans several marches on one position.
    key: std::cell::OnceCell<crate::geo::route::PositionKey>,
}

/// A unit of the side whose view this is stands in the hex.
const FRIENDLY: u8 = 1;
/// One of its boats or gunboats stands there.
const FRIENDLY_BOAT: u8 = 2;
/// An enemy unit other than a boat or gunboat stands there.
const ENEMY_LAND: u8 = 4;
/// An enemy gunboat stands there or next to it.
const GUNBOAT_NEAR: u8 = 8;
/// A friendly settlement with enemy land units next to it (9.12).
const BESIEGED: u8 = 16;

impl Occupancy {
    pub(crate) fn of<S: DieSource>(t: &Turn<'_, S>) -> Occupancy {
        Occupancy::for_side(t, t.side)
    }

    /// Who stands where, seen by `side` (the retreating side may be the
    /// one not moving this turn, 9.8).
    pub(crate) fn for_side<S: DieSource>(t: &Turn<'_, S>, side: Side) -> Occupancy {
        let map = &t.scn.map;
        let mut o = Occupancy {
            columns: map.columns(),
            rows: map.rows(),
            flags: cleared_flags(usize::try_from(map.columns() * map.rows()).unwrap_or(0)),
            forbidden: None,
            key: std::cell::OnceCell::new(),
        };
        let mut friendly = Vec::with_capacity(t.state.units.placed().len());
        for (_, u, h, ty) in t.on_map() {
            let kind = ty.map(|ty| ty.kind);
            // The fleet holds no hex and blocks nothing (8.25).
            if kind == Some(UnitKind::Fleet) {
                continue;
            }
            if u.side == side {
                o.set(h, FRIENDLY);
                friendly.push(h);
                if kind.is_some_and(UnitKind::is_river_unit) {
                    o.set(h, FRIENDLY_BOAT);
                }
            } else {
                if !kind.is_some_and(UnitKind::is_river_unit) {
                    o.set(h, ENEMY_LAND);
                }
                if kind == Some(UnitKind::Gunboat) {
                    o.set(h, GUNBOAT_NEAR);
                    for n in h.neighbours() {
                        o.set(n, GUNBOAT_NEAR);
                    }
                }
            }
        }
        for h in friendly {
            if map.settlement_at(h).is_some()
                && h.neighbours().iter().any(|n| o.has(*n, ENEMY_LAND))
            {
                o.set(h, BESIEGED);
            }
        }
        o.forbidden = river_ban(t.scn, side);
        o
    }

    fn index(&self, hex: Hex) -> Option<usize> {
        ((0..self.columns).contains(&hex.col) && (0..self.rows).contains(&hex.row))
            .then(|| usize::try_from(hex.row * self.columns + hex.col).unwrap_or(0))
    }

    fn set(&mut self, hex: Hex, flag: u8) {
        if let Some(i) = self.index(hex) {
            self.flags[i] |= flag;
        }
    }

    fn has(&self, hex: Hex, flag: u8) -> bool {
        self.index(hex).is_some_and(|i| self.flags[i] & flag != 0)
    }

    /// An enemy unit other than a boat or gunboat stands in `hex`.
    fn enemy_land(&self, hex: Hex) -> bool {
        self.has(hex, ENEMY_LAND)
    }

    /// A friendly settlement under siege: held by this side, with enemy
    /// land units next to it (9.12).
    pub(super) fn besieged(&self, hex: Hex) -> bool {
        self.has(hex, BESIEGED)
    }

    /// An enemy gunboat stands in `hex` or next to it.
    fn gunboat_beside(&self, hex: Hex) -> bool {
        self.has(hex, GUNBOAT_NEAR)
    }

    /// All that [`route_on`] reads of the position: every hex's flags but
    /// a friendly unit's presence, and the river ban (2.2).
    fn route_key(&self) -> &crate::geo::route::PositionKey {
        self.key.get_or_init(|| {
            let mut key: Vec<u8> = self.flags.iter().map(|f| f & !FRIENDLY).collect();
            if let Some((r, limit, _, _)) = &self.forbidden {
                key.extend(r.0.to_le_bytes());
                key.extend(limit.to_le_bytes());
            }
            crate::geo::route::PositionKey::new(key)
        })
    }

    pub(crate) fn forbidden<S: DieSource>(&self, t: &Turn<'_, S>, hex: Hex) -> bool {
        self.forbidden
            .as_ref()
            .is_some_and(|(r, limit, _, _)| beside_river_from(&t.scn.map, hex, *r, *limit))
    }

    /// [`enter_cost`] of a step between neighbours, read from the map's
    /// hex table (`cells`, `table`) and this position's flags: the step
    /// from the hex at index `i` into `j`, its neighbour in direction `d`.
    /// The same answer, without working out hexes, terrain and rivers.
    /// Inlined into the search's loop, which asks it for every step.
    #[inline(always)]
    fn step_cost(&self, table: &HexTable, i: usize, d: usize, j: usize) -> Option<u32> {
        let cells = table.cells();
        let enter = cells[j].enter;
        if enter == 0 {
            return None;
        }
        let (here, there) = (self.flags[i], self.flags[j]);
        if there & (ENEMY_LAND | BESIEGED) != 0 {
            return None;
        }
        let crosses = cells[i].rivers & (1 << d) != 0;
        if crosses && (here | there) & GUNBOAT_NEAR != 0 {
            return None;
        }
        if let Some((r, limit, _, _)) = &self.forbidden
            && cells[j].rivers != 0
            && table.beside_river_from(j, *r, *limit)
        {
            return None;
        }
        let river = if crosses && (here | there) & FRIENDLY_BOAT == 0 {
            crate::geo::route::RIVER_CROSSING_COST
        } else {
            0
        };
        Some(u32::from(enter) + river)
    }
}

/// A table of `len` cleared flags, in a buffer an earlier [`Occupancy`]
/// gave back when possible: the march phase takes who stands where again
/// after every combat, and a fresh zeroed buffer each time cost more than
/// clearing a used one.
fn cleared_flags(len: usize) -> Vec<u8> {
    let mut flags = SPARE_FLAGS
        .with(|spare| spare.borrow_mut().pop())
        .unwrap_or_default();
    flags.clear();
    flags.resize(len, 0);
    flags
}

impl Drop for Occupancy {
    fn drop(&mut self) {
        let flags = std::mem::take(&mut self.flags);
        SPARE_FLAGS.with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < SPARE_KEPT {
                spare.push(flags);
            }
        });
    }
}

/// At most this many spare flag tables are kept on a thread.
const SPARE_KEPT: usize = 8;

thread_local! {
    static SPARE_FLAGS: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether `hex` is beside `river` at or downstream of the hexside order
/// `limit`: what the river ban of 2.2 bars.
fn beside_river_from(map: &crate::geo::Map, hex: Hex, river: RiverId, limit: usize) -> bool {
    let table = map.hex_table();
    match table.index(hex) {
        Some(i) => table.beside_river_from(i, river, limit),
        // Off the map, the hexsides themselves.
        None => map
            .river_sides_of(hex)
            .iter()
            .any(|(_, s)| s.river == river && s.order >= limit),
    }
}

/// Whether the river ban (2.2) closes `hex` to `side`: what
/// [`Occupancy::forbidden`] answers, without reading who stands where.
pub(crate) fn banned_by_river(scn: &crate::scenario::Scenario, side: Side, hex: Hex) -> bool {
    river_ban(scn, side).is_some_and(|(r, limit, _, _)| beside_river_from(&scn.map, hex, r, limit))
}

/// The scenario rule of 2.2 that bars `side` from the hexes beside a river
/// from a place downstream: the river, the first hexside order barred, and
/// the river's and the place's names as written.
fn river_ban(
    scn: &crate::scenario::Scenario,
    side: Side,
) -> Option<(RiverId, usize, String, String)> {
    let map = &scn.map;
    let mut ban = None;
    for rule in &scn.def.special_rules {
        if let SpecialRule::NoMahdistBesideRiverDownstreamOf { river, from } = rule {
            if side != Side::Mahdist {
                continue;
            }
            let (Some(r), Ok(start)) = (map.find_river(river), map.resolve(from)) else {
                continue;
            };
            let limit = map
                .river_sides_of(start)
                .iter()
                .filter(|(_, s)| s.river == r)
                .map(|(_, s)| s.order)
                .min();
            if let Some(limit) = limit {
                ban = Some((r, limit, river.clone(), from.clone()));
            }
        }
    }
    ban
}

/// Whether a scenario rule bars `side` from ever entering `hex` (2.2), as
/// route searches apply it; for programmed players planning far marches.
pub fn barred_by_scenario(
    scn: &crate::scenario::Scenario,
    side: Side,
) -> impl Fn(Hex) -> bool + '_ {
    let ban = river_ban(scn, side);
    move |hex: Hex| {
        ban.as_ref()
            .is_some_and(|(r, limit, _, _)| beside_river_from(&scn.map, hex, *r, *limit))
    }
}

/// Why a step may not be taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Blocked {
    NotAdjacent,
    OffMap,
    Sea,
    Enemy,
    Gunboat,
    Besieged,
    Forbidden,
}

impl Blocked {
    pub(super) fn reason(
        self,
        map: &crate::geo::Map,
        occ: &Occupancy,
        from: Hex,
        to: Hex,
    ) -> String {
        match self {
            Blocked::NotAdjacent => {
                format!(
                    "{} is not next to {}: hexes may not be skipped (8.2)",
                    map.describe(to),
                    map.describe(from)
                )
            }
            Blocked::OffMap => format!("{to} is off the map"),
            Blocked::Sea => format!("{} is sea and may not be entered (8.2)", map.describe(to)),
            Blocked::Enemy => {
                format!(
                    "{} is held by the enemy: combat is fought from the adjacent hex (9.1)",
                    map.describe(to)
                )
            }
            Blocked::Gunboat => {
                "no crossing of a river into or from a hex next to an enemy gunboat (8.21)".into()
            }
            Blocked::Besieged => format!(
                "{} is under siege: no new unit may enter until the besiegers are driven off (9.12)",
                map.describe(to)
            ),
            Blocked::Forbidden => match &occ.forbidden {
                Some((_, _, river, from)) => format!(
                    "no Mahdist unit may enter a hex beside the {river} from {from} northwards (scenario rule, 2.2)"
                ),
                None => "forbidden by a scenario rule".into(),
            },
        }
    }
}

/// The cost to move from `from` into the adjacent `to`, or why not.
pub(super) fn enter_cost<S: DieSource>(
    t: &Turn<'_, S>,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
) -> Result<u32, Blocked> {
    let map = &t.scn.map;
    if from.distance(to) != 1 {
        return Err(Blocked::NotAdjacent);
    }
    if !map.contains(to) {
        return Err(Blocked::OffMap);
    }
    // The terrain's cost: none for the sea.
    let Some(enter) = map.terrain(to).and_then(|x| x.entry_cost()) else {
        return Err(Blocked::Sea);
    };
    if occ.enemy_land(to) {
        return Err(Blocked::Enemy);
    }
    let crosses = map.crosses_river(from, to);
    if crosses && (occ.gunboat_beside(from) || occ.gunboat_beside(to)) {
        return Err(Blocked::Gunboat);
    }
    if occ.besieged(to) {
        return Err(Blocked::Besieged);
    }
    if occ.forbidden(t, to) {
        return Err(Blocked::Forbidden);
    }
    // As `geo::route::step_cost` reckons it (8.21), the river looked at once.
    let boat = |h| occ.has(h, FRIENDLY_BOAT);
    let river = if crosses && !boat(from) && !boat(to) {
        crate::geo::route::RIVER_CROSSING_COST
    } else {
        0
    };
    Ok(enter + river)
}

/// The cheapest legal route (without its start hex) on the position `occ`
/// (of `t`'s; the order checker plans several marches on one position,
/// the march phase walks a leg on the one its route was found on). A
/// destination held by the enemy (or a besieged friendly hex) is routed
/// to its edge: the stack goes as far as the hex before it.
pub(super) fn route_on<S: DieSource>(
    t: &Turn<'_, S>,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
) -> Option<Vec<Hex>> {
    let key = occ.route_key();
    crate::geo::route::occupied_route(&t.scn.map, key, from, to, || {
        search_route_on(t, occ, from, to)
    })
}

/// [`route_on`]'s search, when no route is kept for its position.
fn search_route_on<S: DieSource>(
    t: &Turn<'_, S>,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
) -> Option<Vec<Hex>> {
    let map = &t.scn.map;
    let blocked_goal = occ.enemy_land(to) || occ.besieged(to);
    if !map.contains(from) {
        return search_off_map(t, occ, from, to, blocked_goal);
    }
    let table = map.hex_table();
    let r = if blocked_goal {
        // The goal's step costs the terrain alone.
        let blocked = table.index(to);
        cheapest_route_by_index(map, from, to, |i, d, j| {
            if Some(j) == blocked {
                let enter = table.cells()[j].enter;
                (enter != 0).then_some(u32::from(enter))
            } else {
                occ.step_cost(table, i, d, j)
            }
        })
    } else {
        crate::geo::route::resumed_route(map, occ.route_key(), from, to, |i, d, j| {
            occ.step_cost(table, i, d, j)
        })
    }?;
    let mut hexes: Vec<Hex> = r.hexes.into_iter().skip(1).collect();
    if blocked_goal {
        hexes.pop();
    }
    Some(hexes)
}

/// [`search_route_on`] from a hex off the map, step by step as
/// [`enter_cost`] rules (the hex table knows only hexes on the map).
fn search_off_map<S: DieSource>(
    t: &Turn<'_, S>,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
    blocked_goal: bool,
) -> Option<Vec<Hex>> {
    let r = crate::geo::route::cheapest_route(&t.scn.map, from, to, &|a, b| {
        if b == to && blocked_goal {
            if a.distance(b) == 1 {
                t.scn.map.terrain(b).and_then(|x| x.entry_cost())
            } else {
                None
            }
        } else {
            enter_cost(t, occ, a, b).ok()
        }
    })?;
    let mut hexes: Vec<Hex> = r.hexes.into_iter().skip(1).collect();
    if blocked_goal {
        hexes.pop();
    }
    Some(hexes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Dice, FixedDice};
    use crate::geo::map::HexTable;
    use crate::state::Status;

    /// The step a route search reads from the hex table and the
    /// position's flags costs what [`enter_cost`] says, for every step of
    /// the map, both sides, positions with counters scattered at random
    /// (boats and gunboats among them) and both scenarios (one with the
    /// river ban of 2.2).
    #[test]
    fn a_step_read_from_the_table_costs_what_enter_cost_says() {
        let mut scatter = crate::testing::Scatter::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| scatter.below(n);
        for (id, scn, mut state) in crate::testing::start_positions() {
            let land: Vec<Hex> = scn.map.hexes().filter(|h| scn.map.is_land(*h)).collect();
            let table = scn.map.hex_table();
            for round in 0..4 {
                if round > 0 {
                    for u in state.units.iter_mut() {
                        if next(3) == 0 {
                            u.status = Status::OnMap(land[next(land.len())]);
                        }
                    }
                }
                for side in [Side::Egyptian, Side::Mahdist] {
                    let mut dice = Dice::new(FixedDice::with_fallback([], 1));
                    let t = Turn::new(&scn, state.clone(), side, &mut dice);
                    let occ = Occupancy::of(&t);
                    for i in 0..table.len() {
                        for (d, &n) in table.next()[i].iter().enumerate() {
                            if n == HexTable::OFF {
                                continue;
                            }
                            let j = n as usize;
                            let (a, b) = (table.hex(i), table.hex(j));
                            assert_eq!(
                                occ.step_cost(table, i, d, j),
                                enter_cost(&t, &occ, a, b).ok(),
                                "{id}, round {round}, {side:?}: {a} to {b}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Who stands where, made in a flag table an earlier position gave
    /// back, is what it is when made in a fresh one: positions of both
    /// scenarios made one after another on this thread, each against the
    /// same position made on a new thread (which has no spare tables).
    #[test]
    fn flags_made_in_a_used_table_are_those_made_in_a_fresh_one() {
        let mut scatter = crate::testing::Scatter::new(0x3c6e_f372_fe94_f82b);
        for (id, scn, mut state) in crate::testing::start_positions() {
            let land: Vec<Hex> = scn.map.hexes().filter(|h| scn.map.is_land(*h)).collect();
            for round in 0..6 {
                for u in state.units.iter_mut() {
                    if scatter.below(3) == 0 {
                        u.status = Status::OnMap(land[scatter.below(land.len())]);
                    }
                }
                for side in [Side::Egyptian, Side::Mahdist] {
                    let flags_of = |state: &crate::state::GameState| {
                        let mut dice = Dice::new(FixedDice::with_fallback([], 1));
                        let t = Turn::new(&scn, state.clone(), side, &mut dice);
                        Occupancy::of(&t).flags.clone()
                    };
                    let here = flags_of(&state);
                    let fresh = std::thread::scope(|s| {
                        s.spawn(|| flags_of(&state))
                            .join()
                            .expect("the thread ends")
                    });
                    assert_eq!(here, fresh, "{id}, round {round}, {side:?}");
                }
            }
        }
    }

    /// [`Turn::is_besieged`], which passes over only the counters near
    /// the hex, holds for exactly the hexes [`Turn::besieged_hexes`] finds
    /// in one pass over all of them, on scattered positions of both
    /// scenarios.
    #[test]
    fn a_siege_is_found_near_the_hex_as_in_one_pass_over_all() {
        let mut scatter = crate::testing::Scatter::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| scatter.below(n);
        let mut sieges = 0;
        for (id, scn, mut state) in crate::testing::start_positions() {
            let towns = crate::testing::towns(&scn);
            for round in 0..30 {
                crate::testing::crowd_around(&mut next, &mut state, &towns, 4);
                let mut dice = Dice::new(FixedDice::with_fallback([], 1));
                let t = Turn::new(&scn, state.clone(), Side::Egyptian, &mut dice);
                let all = t.besieged_hexes();
                for h in scn.map.hexes() {
                    let near = t.is_besieged(h, Side::Egyptian) || t.is_besieged(h, Side::Mahdist);
                    assert_eq!(near, all.contains(&h), "{id}, round {round}: {h}");
                }
                sieges += all.len();
            }
        }
        assert!(sieges > 0, "some positions have sieges");
    }
}
