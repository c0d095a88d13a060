//! The turn engine: plays one player turn of the Dervish rules.
//!
//! [`play_player_turn`] is a pure function of the scenario, the state, the
//! side, its orders and the dice: no I/O, no clock, no global random
//! generator. The same inputs give the same state and events, byte for
//! byte. Phases run in the order of rules 5.2 and 5.3: random events,
//! reinforcements, march, attrition, recovery.

pub mod ambush;
pub mod arrivals;
pub mod combat;
pub mod elsewhere;
pub mod events;
pub mod losses;
pub mod march;
pub mod modifiers;
pub mod movement;
pub mod orders;
pub mod plan;
pub mod rail;
pub mod random_events;
pub mod river;
pub mod upkeep;
pub mod victory;

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashSet;

use crate::dice::{Dice, DiceKind, DieSource};
use crate::geo::Hex;
use crate::scenario::tables::Row;
use crate::scenario::{Leader, Scenario, Side, UnitKind, UnitType};
use crate::state::{GameState, Status, Unit, UnitId};
use events::{Event, Phase, TableRoll};
use orders::Orders;

/// The outcome of a player turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnResult {
    pub state: GameState,
    pub events: Vec<Event>,
    /// The turn stopped at a combat its resolver had no result for yet
    /// ([`elsewhere::Resolution::Stop`]): `state` and `events` are as they
    /// stood then, and are not a turn's outcome. The turn is played again
    /// from its start once the result is in.
    pub halted: bool,
}

/// Play one player turn (rules 5.2 for the Egyptian, 5.3 for the Mahdist).
///
/// In the opening month, a player turn first places the side's set-up
/// orders (2.1), while the Egyptian player turn has not been played: a
/// Mahdist player turn played on its own after it sets them aside, since
/// the Mahdist set-up had to be in place before it ([`play_month`] places
/// both set-ups first).
pub fn play_player_turn<S: DieSource>(
    scn: &Scenario,
    state: GameState,
    side: Side,
    orders: &Orders,
    dice: &mut Dice<S>,
) -> TurnResult {
    play_player_turn_resolving(
        scn,
        state,
        side,
        orders,
        dice,
        &mut elsewhere::CampaignTables,
    )
}

/// As [`play_player_turn`], with `resolver` deciding how each land combat
/// is resolved (a table battle, the ETYFW resolver); the turn stops at a
/// combat it has no result for yet ([`TurnResult::halted`]).
pub fn play_player_turn_resolving<S: DieSource>(
    scn: &Scenario,
    state: GameState,
    side: Side,
    orders: &Orders,
    dice: &mut Dice<S>,
    resolver: &mut dyn elsewhere::Resolver,
) -> TurnResult {
    let mut events = Vec::new();
    let state = set_up(scn, state, side, orders, &mut events);
    let mut r = player_turn(scn, state, side, orders, dice, resolver);
    events.append(&mut r.events);
    r.events = events;
    r
}

/// Place a side's set-up orders in the opening month (2.1): each order in
/// turn, an order that cannot be carried out set aside with its reason;
/// what is not placed stays where the default placement put it.
pub fn set_up(
    scn: &Scenario,
    mut state: GameState,
    side: Side,
    orders: &Orders,
    events: &mut Vec<Event>,
) -> GameState {
    if state.month != scn.def.start
        || orders.setup.is_empty()
        || state.result.is_some()
        || state.setup_placed
    {
        return state;
    }
    let index = crate::state::setup::SetupIndex::new(scn);
    for (k, o) in orders.setup.iter().enumerate() {
        let mut names: Vec<String> = o.units.iter().map(|u| u.0.to_string()).collect();
        names.extend(o.leaders.iter().cloned());
        let text =
            match crate::state::setup::apply_setup_order_with(scn, &mut state, side, o, &index) {
                Ok(()) => format!(
                    "{side} set-up (2.1): {} placed at {}",
                    names.join(" "),
                    scn.map.describe(o.at)
                ),
                Err(reason) => format!("{side} set-up order {} set aside: {reason}", k + 1),
            };
        events.push(Event::Note { text });
    }
    for (name, hex) in crate::state::setup::rejoin_lone_leaders(scn, &mut state, side) {
        events.push(Event::Note {
            text: format!(
                "{name} joins the stack at {}: a leader never stands alone (7.0)",
                scn.map.describe(hex)
            ),
        });
    }
    state
}

/// The set-up step of a game by mail (2.1): the Egyptian set-up orders
/// placed, then the Mahdist's, asked for with the Egyptian placement in
/// view, as [`play_month`] places them at the start of the opening month.
/// No dice. The state comes back with `setup_placed`, so the opening
/// month does not place them again and takes no more set-up orders.
pub fn place_set_ups(
    scn: &Scenario,
    state: GameState,
    egyptian: &Orders,
    mahdist: &mut dyn FnMut(&GameState) -> Orders,
) -> TurnResult {
    let mut events = Vec::new();
    let state = set_up_step(scn, state, Side::Egyptian, egyptian, &mut events);
    let mahdist = mahdist(&state);
    let mut state = set_up_step(scn, state, Side::Mahdist, &mahdist, &mut events);
    state.setup_placed = true;
    TurnResult {
        state,
        events,
        halted: false,
    }
}

/// One side's part of [`place_set_ups`]: its set-up orders placed, or a
/// note that the default placement stands.
fn set_up_step(
    scn: &Scenario,
    state: GameState,
    side: Side,
    orders: &Orders,
    events: &mut Vec<Event>,
) -> GameState {
    if orders.setup.is_empty() {
        events.push(Event::Note {
            text: format!("{side} set-up (2.1): no set-up orders, the default placement stands"),
        });
    }
    set_up(scn, state, side, orders, events)
}

fn player_turn<S: DieSource>(
    scn: &Scenario,
    state: GameState,
    side: Side,
    orders: &Orders,
    dice: &mut Dice<S>,
    resolver: &mut dyn elsewhere::Resolver,
) -> TurnResult {
    let mut t = Turn::new(scn, state, side, dice);
    t.resolver = if resolver.always_tables() {
        None
    } else {
        Some(resolver)
    };
    t.event_losses = orders.event_losses.clone();
    if let Some(r) = &t.state.result {
        let result = format!("the game is over: {}", r.reason);
        t.events.push(Event::GameOver { result });
        return TurnResult {
            state: t.state,
            events: t.events,
            halted: false,
        };
    }
    // The standing loss order holds until this side's next player turn.
    t.state.standing_lose_first.remove(&side);
    if !orders.standing_lose_first.is_empty() {
        t.state
            .standing_lose_first
            .insert(side, orders.standing_lose_first.clone());
    }
    for phase in [
        Phase::RandomEvents,
        Phase::Reinforcements,
        Phase::March,
        Phase::Attrition,
        Phase::Recovery,
    ] {
        t.events.push(Event::PhaseBegins {
            side,
            phase,
            month: t.state.month,
        });
        match phase {
            Phase::RandomEvents => random_events::random_event_phase(&mut t),
            Phase::Reinforcements => arrivals::reinforcement_phase(&mut t, orders),
            Phase::March => march::march_phase(&mut t, orders),
            Phase::Attrition => upkeep::attrition_phase(&mut t, orders),
            Phase::Recovery => upkeep::recovery_phase(&mut t),
        }
        if t.halted {
            return TurnResult {
                state: t.state,
                events: t.events,
                halted: true,
            };
        }
        rail::fleet_upkeep(&mut t);
        // An instant victory (4.1) ends the turn when it happens, and so
        // does the random event that ends the game (4.2: "The game may be
        // ended by a random event"; the event says "The game ends now").
        if t.state.result.is_some() || t.state.ended_by_event {
            break;
        }
    }
    rail::fleet_upkeep(&mut t);
    if side == Side::Egyptian {
        t.state.effects.egyptian_turn_played = true;
    }
    let sieges = t.besieged_hexes();
    t.events.push(Event::UnderSiege { hexes: sieges });
    victory::check(&mut t);
    TurnResult {
        state: t.state,
        events: t.events,
        halted: false,
    }
}

/// Play a whole game turn (one month): the Egyptian player turn, then the
/// Mahdist (5.1); then the calendar moves on a month unless the game is
/// over.
pub fn play_month<S: DieSource>(
    scn: &Scenario,
    state: GameState,
    egyptian: &Orders,
    mahdist: &Orders,
    dice: &mut Dice<S>,
) -> TurnResult {
    play_month_with(
        scn,
        state,
        &mut |_, side| {
            if side == Side::Egyptian {
                egyptian.clone()
            } else {
                mahdist.clone()
            }
        },
        dice,
    )
}

/// As [`play_month`], asking `orders` for each side's orders when its
/// player turn begins, so a programmed player sees the other side's moves.
pub fn play_month_with<S: DieSource>(
    scn: &Scenario,
    state: GameState,
    orders: &mut dyn FnMut(&GameState, Side) -> Orders,
    dice: &mut Dice<S>,
) -> TurnResult {
    play_month_resolving(scn, state, orders, dice, &mut elsewhere::CampaignTables)
}

/// As [`play_month_with`], with `resolver` deciding how each land combat
/// is resolved; the month stops at a combat it has no result for yet
/// ([`TurnResult::halted`]).
pub fn play_month_resolving<S: DieSource>(
    scn: &Scenario,
    state: GameState,
    orders: &mut dyn FnMut(&GameState, Side) -> Orders,
    dice: &mut Dice<S>,
    resolver: &mut dyn elsewhere::Resolver,
) -> TurnResult {
    let egyptian = orders(&state, Side::Egyptian);
    // The opening month: the Egyptian set-up, then the Mahdist, both before
    // the first Egyptian player turn (2.1).
    let mut events = Vec::new();
    let state = set_up(scn, state, Side::Egyptian, &egyptian, &mut events);
    let state = if state.month == scn.def.start {
        let mahdist_setup = orders(&state, Side::Mahdist);
        set_up(scn, state, Side::Mahdist, &mahdist_setup, &mut events)
    } else {
        state
    };
    let mut first = player_turn(scn, state, Side::Egyptian, &egyptian, dice, resolver);
    events.append(&mut first.events);
    if first.state.result.is_some() || first.halted {
        return TurnResult {
            state: first.state,
            events,
            halted: first.halted,
        };
    }
    let mahdist = orders(&first.state, Side::Mahdist);
    let second = player_turn(scn, first.state, Side::Mahdist, &mahdist, dice, resolver);
    events.extend(second.events);
    let mut state = second.state;
    if second.halted {
        return TurnResult {
            state,
            events,
            halted: true,
        };
    }
    if state.result.is_none()
        && let Some(next) = state.month.next()
    {
        state.month = next;
        state.effects = Default::default();
    }
    TurnResult {
        state,
        events,
        halted: false,
    }
}

/// A player turn in progress.
pub struct Turn<'a, S: DieSource> {
    pub scn: &'a Scenario,
    pub state: GameState,
    pub side: Side,
    pub dice: &'a mut Dice<S>,
    pub events: Vec<Event>,
    /// Units that marched or were dropped off this turn (8.1, 8.3). Only
    /// asked whether it holds a unit, never gone through, so its order
    /// does not matter.
    pub marched: FxHashSet<UnitId>,
    /// Leaders that marched this turn (likewise only asked).
    pub leaders_marched: FxHashSet<String>,
    /// The stack (order index) each leader's strategic value helped (7.1).
    pub leader_helped: BTreeMap<String, usize>,
    /// Boats and gunboats used this turn (8.23: each once a turn).
    pub boats_used: BTreeSet<UnitId>,
    /// The player's choice of units to lose to a random event (4.2).
    pub event_losses: Vec<UnitId>,
    /// Where each counter (by index) stood when the player turn began,
    /// before any reinforcement: the position the player's orders were
    /// written against. A march order for a stack or a leader moves the
    /// units that stood there then (ruling, docs/rules.md 8.3).
    pub at_start: Vec<Option<Hex>>,
    /// Where each leader on the map stood when the player turn began, by
    /// name: a march order for a stack moves the leaders that stood there
    /// then, as it moves the units (8.3).
    pub leaders_at_start: BTreeMap<String, Hex>,
    /// The type of each counter, by index, looked up once: counters keep
    /// their place and their type for the whole turn.
    types: Vec<Option<&'a UnitType>>,
    /// Passengers of a river march left without a carrier by a wreck at a
    /// cataract (8.23 IV), to be left where they are before the next hex.
    pub stranded: usize,
    /// Hexes an ambush roll was made for this turn: cleared (the optional
    /// ambush rule, seed 002: "If an area has been cleared by Imperial
    /// forces then it can no longer be considered").
    pub ambush_cleared: BTreeSet<Hex>,
    /// Who resolves land combats other than the campaign's tables (a
    /// table battle, the ETYFW resolver); `None`: the tables.
    pub resolver: Option<&'a mut dyn elsewhere::Resolver>,
    /// Combats begun this player turn (numbering them for the resolver).
    pub combats: usize,
    /// The resolver stopped the turn at a combat: nothing more is played.
    pub halted: bool,
    /// A combat now being fought, or the ambushers' retreat after it, is an
    /// ambush's charge (the Mahdists attack in the Egyptian player turn,
    /// seed 002).
    pub ambush_charge: bool,
    /// The British fleet's counter (by index) and Souakim's hex, once
    /// looked up: neither changes in a turn (`rail::fleet_upkeep`).
    fleet: Option<Option<(usize, Hex)>>,
}

impl<'a, S: DieSource> Turn<'a, S> {
    fn new(scn: &'a Scenario, state: GameState, side: Side, dice: &'a mut Dice<S>) -> Self {
        let at_start = state.units.iter().map(|u| u.hex()).collect();
        let leaders_at_start = state
            .leaders
            .iter()
            .filter(|l| !l.removed)
            .filter_map(|l| l.hex.map(|h| (l.name.clone(), h)))
            .collect();
        // Counters of a type mostly come together (as the order of battle
        // lists them), so the last type found is tried first: by the
        // shared name of the set-up's counters, else by its text.
        let mut last: Option<(&std::sync::Arc<str>, Option<&'a UnitType>)> = None;
        let mut types = Vec::with_capacity(state.units.len());
        for u in &state.units {
            let ty = match last {
                Some((id, ty))
                    if std::sync::Arc::ptr_eq(id, &u.unit_type) || **id == *u.unit_type =>
                {
                    ty
                }
                _ => scn.units.get(&u.unit_type),
            };
            last = Some((&u.unit_type, ty));
            types.push(ty);
        }
        Turn {
            at_start,
            leaders_at_start,
            types,
            stranded: 0,
            ambush_cleared: BTreeSet::new(),
            resolver: None,
            combats: 0,
            halted: false,
            ambush_charge: false,
            fleet: None,
            scn,
            state,
            side,
            dice,
            events: Vec::new(),
            marched: FxHashSet::default(),
            leaders_marched: FxHashSet::default(),
            leader_helped: BTreeMap::new(),
            boats_used: BTreeSet::new(),
            event_losses: Vec::new(),
        }
    }

    /// The type of a unit. Types are checked when the data is loaded and
    /// counters are created from them, so a miss means a broken state.
    pub fn unit_type(&self, u: &Unit) -> Option<&'a UnitType> {
        self.scn.units.get(&u.unit_type)
    }

    /// The type of the counter at index `i` of `state.units`, without a
    /// lookup by name.
    pub fn type_at(&self, i: usize) -> Option<&'a UnitType> {
        self.types.get(i).copied().flatten()
    }

    /// Each counter on the map, with its index, hex and type.
    pub fn on_map(&self) -> impl Iterator<Item = (usize, &Unit, Hex, Option<&'a UnitType>)> + '_ {
        let units = &self.state.units;
        units.placed().iter().filter_map(move |&i| {
            let i = i as usize;
            let (u, ty) = (units.get(i)?, self.types.get(i)?);
            u.hex().map(|h| (i, u, h, *ty))
        })
    }

    /// Nation and kind of each of these units, for table modifiers.
    pub fn profile(
        &self,
        units: &[usize],
    ) -> Vec<(crate::scenario::Nation, crate::scenario::UnitKind)> {
        units
            .iter()
            .filter_map(|&u| self.type_at(u).map(|ty| (ty.nation, ty.kind)))
            .collect()
    }

    /// Indices of `side`'s units in `hex`.
    pub fn units_at(&self, hex: Hex, side: Side) -> Vec<usize> {
        self.on_map()
            .filter(|(_, u, h, _)| u.side == side && *h == hex)
            .map(|(i, ..)| i)
            .collect()
    }

    /// The ids of units (indices), as written in orders and reports.
    pub fn unit_ids(&self, units: &[usize]) -> Vec<String> {
        units
            .iter()
            .map(|&u| self.state.units[u].id.0.to_string())
            .collect()
    }

    /// Whether a unit of `side` occupies `hex`. The British fleet never
    /// does: "The fleet cannot be destroyed in combat" and only lends its
    /// gun factors to units in its hex (8.25), so it neither holds a hex
    /// nor blocks the enemy nor keeps a leader company.
    pub fn occupied_by(&self, hex: Hex, side: Side) -> bool {
        self.on_map().any(|(_, u, h, ty)| {
            u.side == side && h == hex && ty.is_none_or(|ty| ty.kind != UnitKind::Fleet)
        })
    }

    /// Every hex where [`Turn::occupied_by`] holds for `side`, sorted and
    /// each once: one pass over the counters for a caller that asks of
    /// many hexes (look one up with `binary_search`).
    pub fn hexes_occupied_by(&self, side: Side) -> Vec<Hex> {
        let mut hexes: Vec<Hex> = self
            .on_map()
            .filter(|(_, u, _, ty)| {
                u.side == side && ty.is_none_or(|ty| ty.kind != UnitKind::Fleet)
            })
            .map(|(_, _, h, _)| h)
            .collect();
        hexes.sort_unstable();
        hexes.dedup();
        hexes
    }

    /// Whether a land unit of `side` (not a boat, gunboat or the fleet)
    /// stands in `hex`.
    pub fn land_occupied_by(&self, hex: Hex, side: Side) -> bool {
        self.on_map().any(|(_, u, h, ty)| {
            u.side == side
                && h == hex
                && ty.is_none_or(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
        })
    }

    /// Names of `side`'s leaders in `hex`.
    pub fn leaders_at(&self, hex: Hex, side: Side) -> Vec<String> {
        self.state
            .leaders
            .iter()
            .filter(|l| l.side == side && !l.removed && l.hex == Some(hex))
            .map(|l| l.name.clone())
            .collect()
    }

    /// The leader whose ratings a stack uses: a C-in-C if present (7.0),
    /// else the one asked for if present, else the best rated.
    pub fn ruling_leader(
        &self,
        names: &[String],
        wanted: Option<&str>,
        strategic: bool,
    ) -> Option<&'a Leader> {
        let inactive = &self.state.effects.inactive;
        let defs: Vec<&'a Leader> = names
            .iter()
            .filter_map(|n| self.scn.units.leader(n))
            .filter(|l| l.c_in_c || !inactive.contains(&l.name))
            .collect();
        // A leader made inactive by a random event lends no rating; if he
        // is the C-in-C, his (nil) values still rule the stack (7.0).
        let ruling = self.pick_leader(&defs, wanted, strategic)?;
        (!self.state.effects.inactive.contains(&ruling.name)).then_some(ruling)
    }

    fn pick_leader(
        &self,
        defs: &[&'a Leader],
        wanted: Option<&str>,
        strategic: bool,
    ) -> Option<&'a Leader> {
        let defs = defs.to_vec();
        if let Some(c) = defs
            .iter()
            .filter(|l| l.c_in_c)
            .max_by_key(|l| (rating(l, strategic), std::cmp::Reverse(l.name.clone())))
        {
            return Some(c);
        }
        if let Some(w) = wanted.and_then(|w| self.scn.units.leader(w))
            && defs.iter().any(|l| l.name == w.name)
        {
            return Some(w);
        }
        defs.into_iter()
            .max_by_key(|l| (rating(l, strategic), std::cmp::Reverse(l.name.clone())))
    }

    /// Whether `hex` holds a settlement of `owner` with an enemy unit next
    /// to it (rule 9.12: "Any town, village or oasis is under siege if an
    /// enemy unit is adjacent to that hex").
    ///
    /// Ruling (docs/rules.md 9.12): enemy boats and gunboats alone do not
    /// besiege. 9.12 lets the besieged leave only "if all adjacent enemy
    /// units have 1st been driven away by combat", and 6.1 forbids land
    /// units to attack river units, so a garrison beside a lone gunboat
    /// could never leave; a town is besieged by enemy land units.
    pub fn is_besieged(&self, hex: Hex, owner: Side) -> bool {
        if self.scn.map.settlement_at(hex).is_none() {
            return false;
        }
        // One pass over the counters for both tests: `owner` holds the
        // hex (as `occupied_by`) and an enemy land unit stands next to it
        // (as `land_occupied_by` on each neighbour).
        let around = hex.neighbours();
        let (mut held, mut ringed) = (false, false);
        for (_, u, h, ty) in self.on_map() {
            // The hex and its neighbours lie within a column and a row of
            // it: a counter further off counts for neither test.
            if (h.col - hex.col).abs() > 1 || (h.row - hex.row).abs() > 1 {
                continue;
            }
            if !held && u.side == owner && h == hex {
                held = ty.is_none_or(|ty| ty.kind != UnitKind::Fleet);
            } else if !ringed && u.side != owner && around.contains(&h) {
                ringed = ty.is_none_or(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet);
            }
            if held && ringed {
                return true;
            }
        }
        false
    }

    /// Whether enemy river units, and nothing else of the enemy's, stand
    /// next to `owner`'s settlement in `hex`: the gap the ruling on 9.12
    /// fills (no siege), so the log and receipt can say why.
    pub fn only_river_units_adjacent(&self, hex: Hex, owner: Side) -> bool {
        self.scn.map.settlement_at(hex).is_some()
            && self.occupied_by(hex, owner)
            && !self.is_besieged(hex, owner)
            && hex
                .neighbours()
                .iter()
                .any(|n| self.occupied_by(*n, owner.enemy()))
    }

    /// Every besieged hex, either side's, in row order: the hexes
    /// [`Turn::is_besieged`] holds for, found in one pass over the counters
    /// rather than a pass for each neighbour of each counter.
    pub fn besieged_hexes(&self) -> Vec<Hex> {
        SIEGE_MARKS.with(|cell| self.besieged_hexes_marking(&mut cell.borrow_mut()))
    }

    /// [`Turn::besieged_hexes`] with `marks`, a byte for each hex of the
    /// map, all zero, left all zero.
    fn besieged_hexes_marking(&self, marks: &mut Vec<u8>) -> Vec<Hex> {
        let map = &self.scn.map;
        let table = map.hex_table();
        if marks.len() < table.len() {
            marks.resize(table.len(), 0);
        }
        // By hex of the map, a bit for each side that occupies it
        // (anything but the fleet, 8.25), and one for each side with a
        // land unit there (no river unit, no fleet); land units off the
        // map, if any, listed. Only a hex of the map can hold a
        // settlement.
        let held = |side: Side| if side == Side::Egyptian { 1u8 } else { 2u8 };
        let land = |side: Side| held(side) << 2;
        let mut land_off_map: Vec<(Hex, Side)> = Vec::new();
        let mut held_hexes: Vec<usize> = Vec::new();
        for (_, u, h, ty) in self.on_map() {
            if ty.is_some_and(|ty| ty.kind == UnitKind::Fleet) {
                continue;
            }
            let land_unit = ty.is_none_or(|ty| !ty.kind.is_river_unit());
            let Some(i) = table.index(h) else {
                if land_unit {
                    land_off_map.push((h, u.side));
                }
                continue;
            };
            if marks[i] == 0 {
                held_hexes.push(i);
            }
            marks[i] |= held(u.side);
            if land_unit {
                marks[i] |= land(u.side);
            }
        }
        let enemy_land = |n: Hex, side: Side| match table.index(n) {
            Some(i) => marks[i] & land(side.enemy()) != 0,
            None => land_off_map.contains(&(n, side.enemy())),
        };
        // Indices run row by row: in order, they are the hexes in row order.
        held_hexes.sort_unstable();
        let besieged = held_hexes
            .iter()
            .map(|&i| (table.hex(i), marks[i]))
            .filter(|(h, sides)| {
                map.settlement_at(*h).is_some()
                    && [Side::Egyptian, Side::Mahdist].into_iter().any(|side| {
                        sides & held(side) != 0
                            && h.neighbours().iter().any(|n| enemy_land(*n, side))
                    })
            })
            .map(|(h, _)| h)
            .collect();
        for i in held_hexes {
            marks[i] = 0;
        }
        besieged
    }

    /// Roll on a table and record it with its modifiers and line.
    pub fn table_roll(
        &mut self,
        kind: DiceKind,
        purpose: String,
        table: &str,
        modifiers: Vec<(String, i32)>,
        line: impl FnOnce(i32) -> String,
    ) -> i32 {
        let roll = self.dice.roll(kind, purpose);
        let total = roll.result + modifiers.iter().map(|(_, v)| v).sum::<i32>();
        let line = line(total);
        self.events.push(Event::Rolled(TableRoll {
            roll,
            modifiers,
            total,
            table: table.to_string(),
            line,
        }));
        total
    }

    /// A roll on a table whose rows each give one result: told with the row
    /// it falls on ("5-6: recovers", `says` writing the result), and the
    /// result, if a row takes the roll.
    pub fn row_roll<'r, T>(
        &mut self,
        kind: DiceKind,
        purpose: String,
        table: &str,
        mods: Vec<(String, i32)>,
        rows: &'r [Row<T>],
        says: impl Fn(&T) -> String,
    ) -> Option<&'r T> {
        let total = self.table_roll(kind, purpose, table, mods, |v| {
            match modifiers::row(rows, v) {
                Some((r, mut line)) => {
                    line.push_str(": ");
                    line.push_str(&says(&r.result));
                    line
                }
                None => "no row".into(),
            }
        });
        crate::scenario::tables::row_for(rows, total).map(|(_, r)| &r.result)
    }

    /// The phasing side's units (indices) whose status `due` accepts.
    pub fn own_units_with(&self, due: impl Fn(Status) -> bool) -> Vec<usize> {
        self.state
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.side == self.side && due(u.status))
            .map(|(i, _)| i)
            .collect()
    }

    /// A roll that succeeds on `need` or more, its line told as "5+:
    /// captured" or "under 5: not captured" (`words`: what success and
    /// failure mean): whether it succeeds.
    pub fn roll_at_least(
        &mut self,
        kind: DiceKind,
        purpose: String,
        table: &str,
        need: i32,
        words: [&str; 2],
    ) -> bool {
        let [yes, no] = words;
        let total = self.table_roll(kind, purpose, table, Vec::new(), |v| {
            if v >= need {
                format!("{need}+: {yes}")
            } else {
                format!("under {need}: {no}")
            }
        });
        total >= need
    }

    /// How many units a line brings or takes: rolled on `dice` if it names
    /// them (the roll told in the log as a count of units), else `count`.
    pub fn units_count(
        &mut self,
        dice: Option<DiceKind>,
        count: u32,
        purpose: String,
        table: &str,
    ) -> u32 {
        match dice {
            Some(k) => self
                .table_roll(k, purpose, table, Vec::new(), |v| {
                    crate::words::count(v, "unit", "units")
                })
                .max(0) as u32,
            None => count,
        }
    }

    /// The British fleet's counter and Souakim's hex, if the scenario has
    /// both: looked up on the first ask of the turn (counters keep their
    /// type, the map its places).
    pub fn fleet_and_souakim(&mut self) -> Option<(usize, Hex)> {
        if let Some(kept) = self.fleet {
            return kept;
        }
        let found = self.scn.map.resolve("Souakim").ok().and_then(|souakim| {
            (0..self.state.units.len())
                .find(|&i| self.type_at(i).is_some_and(|ty| ty.kind == UnitKind::Fleet))
                .map(|i| (i, souakim))
        });
        self.fleet = Some(found);
        found
    }

    /// Remove leaders left without units in `hex` (7.2), with the Mahdi's
    /// succession. `how` says what left them alone, for the log.
    pub fn remove_lone_leaders(&mut self, hex: Hex, how: &str) {
        for side in [Side::Egyptian, Side::Mahdist] {
            if self.occupied_by(hex, side) {
                continue;
            }
            let lone: Vec<usize> = self
                .state
                .leaders
                .iter()
                .enumerate()
                .filter(|(_, l)| l.side == side && !l.removed && l.hex == Some(hex))
                .map(|(i, _)| i)
                .collect();
            for i in lone {
                self.state.leaders[i].removed = true;
                self.state.leaders[i].hex = None;
                let name = self.state.leaders[i].name.clone();
                self.events.push(Event::LeaderRemoved {
                    leader: name.clone(),
                    hex,
                    how: how.to_string(),
                });
                if name == "Mahdi" {
                    self.succession();
                }
            }
        }
        victory::instant(self);
    }

    /// Rule 7.2: the Khalifa joins a Mahdist stack on the main map (the
    /// largest; the default policy), or is killed too if there is none.
    pub(crate) fn succession(&mut self) {
        let Some(k) = self
            .state
            .leaders
            .iter()
            .position(|l| l.name == "Khalifa" && !l.removed)
        else {
            return;
        };
        let mut counts: BTreeMap<Hex, usize> = BTreeMap::new();
        for u in &self.state.units {
            if let (Some(h), Side::Mahdist) = (u.hex(), u.side)
                && !self.scn.map.in_souakim_extension(h)
            {
                *counts.entry(h).or_default() += 1;
            }
        }
        let best = counts
            .into_iter()
            .max_by_key(|(h, n)| (*n, std::cmp::Reverse((h.row, h.col))))
            .map(|(h, _)| h);
        match best {
            Some(h) => self.state.leaders[k].hex = Some(h),
            None => self.state.leaders[k].removed = true,
        }
        self.events.push(Event::Succession {
            leader: "Khalifa".into(),
            hex: best,
        });
    }
}

thread_local! {
    /// The marks of [`Turn::besieged_hexes`], a byte for each hex of the
    /// map, kept zero between calls: a pass clears what it marked rather
    /// than making and zeroing new ones for every position.
    static SIEGE_MARKS: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn rating(l: &Leader, strategic: bool) -> i32 {
    if strategic { l.strategic } else { l.tactical }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::FixedDice;
    use crate::scenario::DataSet;
    use crate::state::setup::{Placements, initial_state};

    /// The marks kept on the thread for [`Turn::besieged_hexes`] are left
    /// clear: positions of both scenarios asked in turn, many sieges and
    /// few, each gives the hexes [`Turn::is_besieged`] holds for, and so
    /// does each asked again.
    #[test]
    fn sieges_found_with_kept_marks_are_those_of_each_hex() {
        let data = DataSet::embedded().expect("the embedded data loads");
        let mut scatter = crate::testing::Scatter::new(0x5851_f42d_4c95_7f2d);
        let mut next = |n: usize| scatter.below(n);
        let scenarios: Vec<_> = data
            .scenario_ids()
            .iter()
            .map(|id| data.scenario(id).expect("a scenario"))
            .collect();
        let mut states: Vec<GameState> = scenarios
            .iter()
            .map(|scn| {
                initial_state(scn, &Placements::new())
                    .expect("the set-up")
                    .0
            })
            .collect();
        let mut sieges = 0;
        for round in 0..60 {
            let k = next(scenarios.len());
            let scn = &scenarios[k];
            let towns = crate::testing::towns(scn);
            crate::testing::crowd_around(&mut next, &mut states[k], &towns, 3);
            let mut dice = Dice::new(FixedDice::with_fallback([], 1));
            let t = Turn::new(scn, states[k].clone(), Side::Mahdist, &mut dice);
            let plain: Vec<Hex> = scn
                .map
                .hexes()
                .filter(|h| t.is_besieged(*h, Side::Egyptian) || t.is_besieged(*h, Side::Mahdist))
                .collect();
            let mut found = t.besieged_hexes();
            found.sort_by_key(|h| (h.col, h.row));
            let mut plain = plain;
            plain.sort_by_key(|h| (h.col, h.row));
            assert_eq!(found, plain, "round {round}");
            assert_eq!(
                t.besieged_hexes().len(),
                plain.len(),
                "round {round}, again"
            );
            sieges += plain.len();
        }
        assert!(sieges > 20, "{sieges} sieges");
    }
}
