//! River units (rules 6.0, 6.1, 8.23): river marches with boats and
//! gunboats (navigability by month, upstream rolls, cataracts, wrecking and
//! the wrecks' return), and enemy river units met by a land stack, which
//! are displaced one hex, roll for sinking and may be captured.

use super::Turn;
use super::events::{Decision, Event};
use crate::dice::{DiceKind, DieSource};
use crate::geo::Hex;
use crate::state::Status;

/// Whether a one-hex river move into `to` risks wrecking (8.23 II, IV):
/// an unnavigable reach this month beside it, or a cataract.
fn sinking_risk<S: DieSource>(t: &Turn<'_, S>, to: Hex) -> (bool, bool) {
    match bank(t, to) {
        Some((_, class, cataract)) => (!navigable(t, class), cataract.is_some()),
        None => (false, false),
    }
}

/// Displace every enemy river unit in `hex`, which the phasing side's land
/// stack has just entered (6.1). The owner's choice of hex is made by
/// default: a hex beside a river free of the marching side, one with no
/// risk of sinking first, then one holding a friendly stack, then the
/// first in map order. Each river unit then rolls for sinking if that
/// one-hex move takes it past a cataract or along an unnavigable reach
/// (8.23 II, IV), then for capture (a 6). A unit still afloat and not
/// captured moves to the chosen hex; with nowhere to go it is lost.
pub fn displace<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex) {
    let enemy = t.side.enemy();
    let any = t.on_map().any(|(_, u, h, ty)| {
        u.side == enemy && h == hex && ty.is_some_and(|ty| ty.kind.is_river_unit())
    });
    if !any {
        return;
    }
    let river_units: Vec<usize> = t
        .units_at(hex, enemy)
        .into_iter()
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind.is_river_unit()))
        .collect();
    if river_units.is_empty() {
        return;
    }
    let dest = displaced_to(t, hex);
    let mut to_move = Vec::new();
    for u in river_units {
        // Sinking first (6.1: "roll for sinking before capture").
        if dest.is_some_and(|d| sunk_on_the_way(t, u, d)) {
            continue;
        }
        let was = t.state.units[u].status;
        if !capture_roll(t, u) {
            if matches!(was, Status::OnMap(_)) {
                to_move.push(u);
            }
            continue;
        }
        capture_river_unit(t, u, hex, was);
    }
    if to_move.is_empty() {
        t.remove_lone_leaders(
            hex,
            "the boats and gunboats he was with were captured (6.1)",
        );
        return;
    }
    match dest {
        Some(dest) => move_displaced(t, hex, dest, &to_move),
        None => {
            for &u in &to_move {
                let id = t.state.units[u].id.clone();
                t.state.units[u].status = super::losses::status_after_elimination(t, u);
                t.events.push(Event::Eliminated {
                    unit: id,
                    hex,
                    cause: "displaced with nowhere to go (6.1)".into(),
                    decided_by: Decision::Default("no free hex beside the river".into()),
                });
            }
        }
    }
    t.remove_lone_leaders(
        hex,
        "the boats and gunboats he was with were displaced or lost (6.1)",
    );
}

/// The owner's hex for river units displaced from `hex`, chosen by
/// default: beside a river, free of the marching side, no risk of sinking
/// first, then one holding a friendly stack, then the first in map order.
/// 2.2: "No Mahdist unit may ever enter any hex adjacent to the Nile
/// above ... Abou Hamed": a displaced Mahdist river unit is not pushed
/// into one either (with nowhere else to go it is lost).
fn displaced_to<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Option<Hex> {
    let enemy = t.side.enemy();
    let occ = super::movement::Occupancy::for_side(t, enemy);
    let mut options: Vec<Hex> = hex
        .neighbours()
        .into_iter()
        .filter(|h| {
            t.scn.map.is_land(*h)
                && t.scn.map.is_riverside(*h)
                && !t.occupied_by(*h, t.side)
                && !occ.forbidden(t, *h)
        })
        .collect();
    options.sort_by_key(|h| {
        let (unnavigable, cataract) = sinking_risk(t, *h);
        (
            unnavigable || cataract,
            !t.occupied_by(*h, enemy),
            h.row,
            h.col,
        )
    });
    options.first().copied()
}

/// The sinking rolls of a river unit displaced into `dest` past a cataract
/// or along an unnavigable reach (8.23 II, IV): whether it sank for good
/// (a double on the gunboat's wreck roll), leaving nothing to capture.
fn sunk_on_the_way<S: DieSource>(t: &mut Turn<'_, S>, u: usize, dest: Hex) -> bool {
    let (unnavigable, cataract) = sinking_risk(t, dest);
    let mut wrecked = false;
    if cataract {
        wrecked = !wreck_rolls(t, &[u], "a cataract, displaced").is_empty();
    }
    if unnavigable && !wrecked {
        wrecked = !wreck_rolls(t, &[u], "unnavigable water, displaced").is_empty();
    }
    wrecked && !matches!(t.state.units[u].status, Status::Wrecked(_))
}

/// The capture roll of a displaced river unit (6.1): whether it is taken.
fn capture_roll<S: DieSource>(t: &mut Turn<'_, S>, u: usize) -> bool {
    let id = t.state.units[u].id.clone();
    let need = t.scn.tables.capture.river_units;
    let purpose = format!("capture of {id}, displaced");
    let words = ["captured", "not captured"];
    t.roll_at_least(DiceKind::D6, purpose, "capture (6.1)", need, words)
}

/// A river unit in `hex` captured (6.1), `was` its status before its
/// sinking rolls: the captor's counter of the type it is captured as
/// takes its place, if the counter mix has one to spare.
fn capture_river_unit<S: DieSource>(t: &mut Turn<'_, S>, u: usize, hex: Hex, was: Status) {
    let id = t.state.units[u].id.clone();
    let into = t.type_at(u).and_then(|ty| ty.captured_as.clone());
    // The captor's counter is named by its nation (a Mahdist boat
    // taken by the Egyptian player becomes a British boat, 6.1).
    let owner = into
        .as_ref()
        .and_then(|ty| t.scn.units.get(ty))
        .map_or_else(|| t.side.to_string(), |ty| ty.nation.to_string());
    t.state.units[u].status = super::losses::status_after_elimination(t, u);
    t.state.units[u].disrupted = false;
    let spare = into.and_then(|ty| {
        t.state.units.iter().position(|x| {
            *x.unit_type == ty
                && x.side == t.side
                && matches!(x.status, Status::Pool | Status::Reserve)
        })
    });
    let becomes = spare.map(|s| {
        // A damaged unit captured comes into play after its repair as
        // the new owner's (6.1): the captor's counter takes its place
        // among the wrecks, due back the same month.
        t.state.units[s].status = match was {
            Status::Wrecked(m) => Status::Wrecked(m),
            _ => Status::OnMap(hex),
        };
        t.state.units[s].disrupted = false;
        t.state.units[s].id.clone()
    });
    t.events.push(Event::Captured {
        unit: id,
        becomes,
        hex,
        owner,
        rule: "6.1".into(),
    });
}

/// The displaced river units still afloat move from `hex` to `dest`, and
/// their leaders ride with them (8.23).
fn move_displaced<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex, dest: Hex, to_move: &[usize]) {
    let enemy = t.side.enemy();
    for &u in to_move {
        t.state.units[u].status = Status::OnMap(dest);
    }
    for l in t
        .state
        .leaders
        .iter_mut()
        .filter(|l| l.side == enemy && !l.removed && l.hex == Some(hex))
    {
        l.hex = Some(dest);
    }
    t.events.push(Event::Retreat {
        side: enemy,
        from: hex,
        to: Some(dest),
        decided_by: Decision::Default("river units displaced beside the river, where they risk no sinking if they can, to a friendly stack if one is next to them (6.1)".into()),
    });
}

use crate::geo::map::{RiverClass, RiverId};
use crate::scenario::{Nation, Side, UnitKind};
use std::collections::{BTreeSet, VecDeque};

/// Which way a river step goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    Down,
    Up,
    Across,
}

/// How far a river side is from the sea, in hexsides along the rivers:
/// the Nile's last hexside is 1; a tributary's count goes on from the
/// Nile hexside its mouth touches. Smaller is further downstream.
fn distance_to_mouth(map: &crate::geo::Map, river: RiverId, order: usize) -> usize {
    let rivers = map.rivers();
    let r = &rivers[river.0];
    let own = r.hexsides.len().saturating_sub(order);
    match (r.flows_into, r.hexsides.last()) {
        (Some(parent), Some(mouth)) if parent != river => {
            let join = rivers[parent.0]
                .hexsides
                .iter()
                .position(|s| s.touches(*mouth))
                .unwrap_or(0);
            own + distance_to_mouth(map, parent, join)
        }
        _ => own,
    }
}

/// A riverside hex's place on the river network: its distance to the
/// mouth (the nearest river side), the worst class beside it, and the
/// cataract beside it, if any (its index on the map).
type Bank = (usize, RiverClass, Option<usize>);

/// [`bank_of`] the hex on the turn's map, read from a table of every hex
/// of the map made once on this thread (river marches ask it for every
/// hex of every way they look at).
fn bank<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> Option<Bank> {
    kept_bank(&t.scn.map, hex)
}

/// [`bank_of`], from the table of the map met last on this thread (a map
/// is known by its number, which its clones share and no other map has).
fn kept_bank(map: &crate::geo::Map, hex: Hex) -> Option<Bank> {
    let table = map.hex_table();
    let Some(i) = table.index(hex) else {
        return bank_of(map, hex);
    };
    let id = map.land_routes().map_id();
    BANKS.with(|cell| {
        let mut kept = cell.borrow_mut();
        if kept.as_ref().is_none_or(|(m, _)| *m != id) {
            let all = (0..table.len())
                .map(|i| bank_of(map, table.hex(i)))
                .collect();
            *kept = Some((id, all));
        }
        kept.as_ref()
            .and_then(|(_, all)| all.get(i).copied().flatten())
    })
}

thread_local! {
    /// The map's number and each of its hexes' [`bank_of`], by index in
    /// its hex table.
    static BANKS: std::cell::RefCell<Option<(u64, Vec<Option<Bank>>)>> =
        const { std::cell::RefCell::new(None) };
}

/// A hex's place on the river network, worked out from the map.
fn bank_of(map: &crate::geo::Map, hex: Hex) -> Option<Bank> {
    let sides = map.river_sides_of(hex);
    let dist = sides
        .iter()
        .map(|(_, s)| distance_to_mouth(map, s.river, s.order))
        .min()?;
    let rank = |c: RiverClass| match c {
        RiverClass::Navigable => 0,
        RiverClass::Seasonal => 1,
        RiverClass::Unnavigable => 2,
    };
    let worst = sides
        .iter()
        .map(|(_, s)| s.class)
        .max_by_key(|c| rank(*c))
        .unwrap_or(RiverClass::Navigable);
    let cataract = sides.iter().filter_map(|(_, s)| s.cataract).min();
    Some((dist, worst, cataract))
}

/// Whether a class counts as navigable this month (8.23 III; a high Nile
/// event makes seasonal reaches navigable and unnavigable ones seasonal).
fn navigable<S: DieSource>(t: &Turn<'_, S>, class: RiverClass) -> bool {
    let season = t.state.month.seasonal_rivers_navigable();
    match class {
        RiverClass::Navigable => true,
        RiverClass::Seasonal => season || t.state.effects.high_nile,
        RiverClass::Unnavigable => t.state.effects.high_nile && season,
    }
}

/// The steps of a river march from `from` to `to`: riverside hexes, each
/// next to the one before, all downstream or all upstream (crossing the
/// river counts as a step either way); the start hex excluded.
/// A hex of a river march with the worst class of river beside the hex
/// entered and the cataract beside it, if any.
type RiverStep = (Hex, RiverClass, Option<usize>);

fn river_path<S: DieSource>(t: &Turn<'_, S>, from: Hex, to: Hex) -> Option<(Way, Vec<RiverStep>)> {
    bank(t, from)?;
    // 2.2: "No Mahdist unit may ever enter any hex adjacent to the Nile above
    // (flowing North from) and including Abou Hamed", by river as by land.
    let banned = super::movement::barred_by_scenario(t.scn, t.side);
    // Who stands where, taken once for the whole search.
    let enemy_at = t.hexes_occupied_by(t.side.enemy());
    for dir in [Way::Down, Way::Up] {
        let mut prev: rustc_hash::FxHashMap<Hex, RiverStep> = rustc_hash::FxHashMap::default();
        let mut queue = VecDeque::from([from]);
        while let Some(h) = queue.pop_front() {
            if h == to {
                let mut steps = Vec::new();
                let mut at = to;
                while at != from {
                    let (p, class, cat) = prev[&at];
                    steps.push((at, class, cat));
                    at = p;
                }
                steps.reverse();
                return Some((dir, steps));
            }
            let Some((here, _, _)) = bank(t, h) else {
                continue;
            };
            for n in h.neighbours() {
                if n == from || prev.contains_key(&n) || !t.scn.map.is_land(n) {
                    continue;
                }
                let Some((there, class, cat)) = bank(t, n) else {
                    continue;
                };
                let way = match there.cmp(&here) {
                    std::cmp::Ordering::Equal => Way::Across,
                    std::cmp::Ordering::Less => Way::Down,
                    std::cmp::Ordering::Greater => Way::Up,
                };
                if way != Way::Across && way != dir {
                    continue;
                }
                // Opposing units never share a hex: boats pass no enemy,
                // river units included (gunboats may attack them, 6.1).
                // A besieged destination is left to the callers, which
                // refuse it unless the steamers run the siege. (Asked
                // after the way, the dearest test last.)
                let siege = || t.is_besieged(n, t.side) && !(n == to && steamers_may_run(t));
                if enemy_at.binary_search(&n).is_ok() || banned(n) || siege() {
                    continue;
                }
                prev.insert(n, (h, class, cat));
                queue.push_back(n);
            }
        }
    }
    None
}

/// Whether the game is played with the house rule
/// `steamers-run-the-siege` (docs/rules.md, "House rules (optional
/// variants)").
fn steamers_may_run<S: DieSource>(t: &Turn<'_, S>) -> bool {
    t.state
        .options
        .variants
        .contains(&crate::state::variant::Variant::SteamersRunTheSiege)
}

/// House rule `steamers-run-the-siege`: a river march whose passengers
/// are supply units only, carried by `carriers` with a gunboat among
/// them, may end in a friendly settlement under siege, which 9.12 ("no
/// new friendly unit may enter the besieged hex") bars otherwise: in
/// 1884 Gordon's steamers went up and down the Nile through the Mahdi's
/// lines. It passes no other besieged hex and no enemy on the way, and
/// leaving a besieged hex is as 9.12 says.
pub(super) fn runs_the_siege<S: DieSource>(
    t: &Turn<'_, S>,
    passengers: &[usize],
    carriers: &[usize],
) -> bool {
    let kind = |u: usize| t.type_at(u).map(|ty| ty.kind);
    steamers_may_run(t)
        && !passengers.is_empty()
        && passengers
            .iter()
            .all(|&u| kind(u) == Some(UnitKind::Supply))
        && carriers.iter().any(|&u| kind(u) == Some(UnitKind::Gunboat))
}

/// The boats and gunboats that carry a river march from `from` (8.23):
/// the river units marching with the stack (`with`) that have not been
/// used this turn, all of them; if they are too few for the passengers
/// (one each, leaders free, no civilians), free boats in the hex are
/// boarded (8.3) until there are enough. Or why the march cannot be made.
pub fn carriers<S: DieSource>(
    t: &Turn<'_, S>,
    from: Hex,
    passengers: &[usize],
    with: &[usize],
) -> Result<Vec<usize>, String> {
    let free = |u: usize| {
        t.type_at(u).is_some_and(|ty| ty.kind.is_river_unit())
            && t.state.units[u].hex() == Some(from)
            && !t.boats_used.contains(&t.state.units[u].id)
    };
    if passengers
        .iter()
        .any(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Civilian))
    {
        return Err("civilians may not travel by boat (8.23); drop them off first".into());
    }
    let mut carriers: Vec<usize> = with.iter().copied().filter(|&u| free(u)).collect();
    // "To move by boat a unit or stack must begin its march phase stacked
    // with sufficient boat or gunboat units": boats waiting in the hex may
    // be boarded (8.3) only where the stack began its march, not after it
    // has marched there.
    let moved = passengers
        .first()
        .and_then(|&p| march_begun(t, &[p]))
        .is_some_and(|(start, _)| start != from);
    let in_hex: Vec<usize> = if moved {
        Vec::new()
    } else {
        t.units_at(from, t.side)
            .into_iter()
            .filter(|&u| free(u))
            .collect()
    };
    if moved && carriers.len() < passengers.len() {
        return Err(format!(
            "{} {} {} that began the march phase with them (8.23: a stack \"must begin its march phase stacked with sufficient boat or gunboat units\"); {} came with them",
            crate::words::count(passengers.len(), "unit", "units"),
            crate::words::noun(passengers.len(), "needs", "need"),
            crate::words::count(passengers.len(), "boat or gunboat", "boats or gunboats"),
            carriers.len()
        ));
    }
    for &b in &in_hex {
        if carriers.len() >= passengers.len() {
            break;
        }
        if !carriers.contains(&b) && !t.marched.contains(&t.state.units[b].id) {
            carriers.push(b);
        }
    }
    if carriers.len() < passengers.len() {
        return Err(format!(
            "{} {} {} and {} free here (8.23)",
            crate::words::count(passengers.len(), "unit", "units"),
            crate::words::noun(passengers.len(), "needs", "need"),
            crate::words::count(passengers.len(), "boat or gunboat", "boats or gunboats"),
            {
                let free = in_hex.len().max(carriers.len());
                format!("{free} {}", crate::words::noun(free, "is", "are"))
            }
        ));
    }
    if carriers.is_empty() {
        return Err(format!(
            "no boat or gunboat at {} to march by river (8.23)",
            t.scn.map.describe(from)
        ));
    }
    Ok(carriers)
}

/// A river march worked out without dice, for the order checker: the
/// hexes it passes if no roll stops it, and whether it goes upstream
/// (`Some(true)`), downstream (`Some(false)`) or only across the river
/// (`None`); or why it cannot be made.
pub(super) fn preview<S: DieSource>(
    t: &Turn<'_, S>,
    from: Hex,
    carriers: &[usize],
    dest: Hex,
) -> Result<(Option<bool>, Vec<Hex>), String> {
    if from == dest {
        return Ok((None, Vec::new()));
    }
    let (dir, steps) = way_by_river(t, from, carriers, dest)?;
    let way = match dir {
        Way::Up => Some(true),
        Way::Down => Some(false),
        Way::Across => None,
    };
    Ok((way, steps.into_iter().map(|(h, _, _)| h).collect()))
}

/// Rule 8.23: a march by river from `from` towards `dest` by `carriers`
/// (from [`carriers`]) with their passengers. The march rolls what it must
/// (upstream distances, wrecking) and calls `step` with each hex reached;
/// `step` moves the stack, boats included, and fights if ordered, and
/// returns whether the march goes on. Returns the hexes passed, or why the
/// march cannot be made.
pub fn river_march<'a, S: DieSource>(
    t: &mut Turn<'a, S>,
    order: usize,
    from: Hex,
    carriers: &[usize],
    dest: Hex,
    step: &mut dyn FnMut(&mut Turn<'a, S>, Hex) -> bool,
) -> Result<Vec<Hex>, String> {
    let (dir, steps) = way_by_river(t, from, carriers, dest)?;
    let carriers = carriers.to_vec();
    for &c in &carriers {
        let id = t.state.units[c].id.clone();
        t.boats_used.insert(id);
    }
    let mut upstream = Upstream::of(t, &carriers);
    let mut path = Vec::new();
    let mut at = from;
    let mut unnavigable_used = false;
    let mut stop_reason = None;
    let mut rolled: BTreeSet<usize> = BTreeSet::new();
    for (hex, class, cataract) in steps {
        let nav = navigable(t, class);
        // On an upstream march every hex counts, a crossing included
        // (8.23 V).
        if dir == Way::Up
            && let Err(reason) = upstream.step(t, nav)
        {
            stop_reason = Some(reason);
            break;
        }
        if !nav {
            unnavigable_used = true;
        }
        at = hex;
        path.push(hex);
        if !step(t, hex) {
            break;
        }
        // Boats stop next to a cataract and roll for wrecking (8.23 IV),
        // once for each cataract however many of its hexsides the march
        // passes (the Fourth Cataract has two).
        if let Some(c) = cataract
            && rolled.insert(c)
            && let Some(reason) = past_cataract(t, c, &carriers, at)
        {
            stop_reason = Some(reason);
            break;
        }
        if at == dest {
            break;
        }
    }
    if unnavigable_used {
        wreck_rolls(t, &carriers, "unnavigable water");
    }
    if let Some(reason) = stop_reason {
        t.events.push(Event::Stopped { order, at, reason });
    }
    Ok(path)
}

/// The way by river from `from` to `dest` for `carriers`, or why there is
/// none: "Mahdist boats may not move on unnavigable rivers" (8.23 II).
fn way_by_river<S: DieSource>(
    t: &Turn<'_, S>,
    from: Hex,
    carriers: &[usize],
    dest: Hex,
) -> Result<(Way, Vec<RiverStep>), String> {
    let Some((dir, steps)) = river_path(t, from, dest) else {
        return Err(format!(
            "no way by river from {} to {} without going both up and downstream, through the enemy or into a hex a scenario rule closes (8.23, 2.2)",
            t.scn.map.describe(from),
            t.scn.map.describe(dest)
        ));
    };
    let mahdist_boats = t.side == Side::Mahdist
        && carriers
            .iter()
            .any(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Boat));
    if mahdist_boats && steps.iter().any(|(_, c, _)| !navigable(t, *c)) {
        return Err("Mahdist boats may not move on unnavigable rivers (8.23 II)".into());
    }
    Ok((dir, steps))
}

/// Limits on upstream movement, rolled only when needed, each counted
/// from the first hex of its kind (8.23 V), and the hexes gone so far.
struct Upstream {
    all_gunboats: bool,
    /// Upstream on unnavigable water: British boats and every gunboat
    /// (8.23 II).
    may_go_up_unnavigable: bool,
    navigable: Counted,
    unnavigable: Counted,
}

/// Hexes gone against a limit rolled the first time it is needed.
#[derive(Default)]
struct Counted {
    limit: Option<u32>,
    gone: u32,
}

impl Counted {
    /// One hex more, or the limit if it is spent.
    fn step<S: DieSource>(
        &mut self,
        t: &mut Turn<'_, S>,
        dice: crate::scenario::tables::DicePlus,
        why: &str,
    ) -> Result<(), u32> {
        let limit = *self.limit.get_or_insert_with(|| roll_plus(t, dice, why));
        if self.gone >= limit {
            return Err(limit);
        }
        self.gone += 1;
        Ok(())
    }
}

impl Upstream {
    fn of<S: DieSource>(t: &Turn<'_, S>, carriers: &[usize]) -> Upstream {
        let kinds: Vec<(UnitKind, Nation)> = carriers
            .iter()
            .filter_map(|&u| t.type_at(u).map(|ty| (ty.kind, ty.nation)))
            .collect();
        Upstream {
            all_gunboats: kinds.iter().all(|(k, _)| *k == UnitKind::Gunboat),
            may_go_up_unnavigable: kinds
                .iter()
                .all(|(k, n)| *k == UnitKind::Gunboat || *n == Nation::British),
            navigable: Counted::default(),
            unnavigable: Counted::default(),
        }
    }

    /// One more hex upstream on water that is navigable (`nav`) or not:
    /// counted, or why the march stops before it.
    fn step<S: DieSource>(&mut self, t: &mut Turn<'_, S>, nav: bool) -> Result<(), String> {
        let rules = &t.scn.tables.river;
        if nav && !self.all_gunboats {
            self.navigable
                .step(
                    t,
                    rules.boat_upstream_navigable,
                    "boats upstream on a navigable river",
                )
                .map_err(|limit| format!("the boats' upstream move of {limit} hexes is spent"))?;
        } else if !nav {
            if !self.may_go_up_unnavigable {
                return Err(
                    "only British boats and gunboats go upstream on an unnavigable river (8.23 II)"
                        .into(),
                );
            }
            self.unnavigable
                .step(
                    t,
                    rules.upstream_unnavigable,
                    "upstream on an unnavigable river",
                )
                .map_err(|limit| {
                    format!("the upstream move of {limit} hexes on unnavigable water is spent")
                })?;
        }
        Ok(())
    }
}

/// The wreck rolls of `carriers` at cataract `c`, beside which the stack
/// stands at `at` (8.23 IV); why the march stops there, if it does.
fn past_cataract<S: DieSource>(
    t: &mut Turn<'_, S>,
    c: usize,
    carriers: &[usize],
    at: Hex,
) -> Option<String> {
    let name = t
        .scn
        .map
        .cataracts()
        .get(c)
        .map_or_else(|| "a cataract".to_string(), |k| format!("the {}", k.name));
    let wrecked = wreck_rolls(t, carriers, &name);
    if wrecked.is_empty() {
        return None;
    }
    // "If a unit is wrecked at a cataract hex its passengers stop
    // adjacent to the cataract": each carrier has one passenger,
    // so the stack goes on if the carriers still afloat can take
    // every passenger (a spare boat was wrecked); otherwise the
    // stack, which the march moves as one, stops beside it.
    let afloat = carriers
        .iter()
        .filter(|&&c| matches!(t.state.units[c].status, Status::OnMap(_)))
        .count();
    let passengers = passengers_at(t, at, carriers);
    if afloat == 0 {
        return Some(format!(
            "wrecked at {name}: the passengers stop beside it (8.23 IV)"
        ));
    }
    if afloat < passengers {
        // Only the wrecked carriers' passengers stop; the
        // march's step leaves them here before the next hex.
        t.stranded = passengers - afloat;
        t.events.push(Event::Note {
            text: format!(
                "wrecked at {name}: {} {} without a carrier {} beside it; the {afloat} afloat carry the rest on (8.23 IV)",
                passengers - afloat,
                if passengers - afloat == 1 { "unit" } else { "units" },
                if passengers - afloat == 1 { "stops" } else { "stop" },
            ),
        });
        return None;
    }
    t.events.push(Event::Note {
        text: format!(
            "{} of the carriers wrecked at {name} carried no passenger: the {afloat} afloat carry the stack on (8.23 IV)",
            wrecked.len()
        ),
    });
    None
}

/// The march now under way: where it began and the units it began with
/// (its `MarchBegins` event), if one of `units` is among them.
fn march_begun<S: DieSource>(t: &Turn<'_, S>, units: &[usize]) -> Option<(Hex, Vec<usize>)> {
    t.events.iter().rev().find_map(|e| match e {
        Event::MarchBegins {
            from, units: ids, ..
        } if units.iter().any(|&u| ids.contains(&t.state.units[u].id)) => Some((
            *from,
            ids.iter()
                .filter_map(|id| t.state.units.iter().position(|x| x.id == *id))
                .collect(),
        )),
        _ => None,
    })
}

/// How many units the carriers carry at `hex`: the units of the march under
/// way (the last to begin) that stand there, not leaders (carried free) nor
/// boats and gunboats. Carriers boarded in the hex (8.3) are not among the
/// units the march began with, so the march is found by its place in the
/// log, not by its carriers.
fn passengers_at<S: DieSource>(t: &Turn<'_, S>, hex: Hex, carriers: &[usize]) -> usize {
    let Some(ids) = t.events.iter().rev().find_map(|e| match e {
        Event::MarchBegins { units, .. } => Some(units),
        _ => None,
    }) else {
        return 0;
    };
    t.state
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| ids.contains(&u.id))
        .map(|(i, _)| i)
        .filter(|u| !carriers.contains(u))
        .filter(|&u| t.state.units[u].hex() == Some(hex))
        .filter(|&u| {
            t.type_at(u)
                .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
        })
        .count()
}

fn roll_plus<S: DieSource>(
    t: &mut Turn<'_, S>,
    d: crate::scenario::tables::DicePlus,
    why: &str,
) -> u32 {
    let crate::scenario::tables::DicePlus(kind, plus) = d;
    let total = t.table_roll(
        kind,
        why.to_string(),
        "river movement (8.23)",
        vec![("fixed".into(), plus)],
        |v| crate::words::count(v, "hex", "hexes"),
    );
    total.max(0) as u32
}

/// Wreck rolls for each carrier; returns those wrecked (8.23 II, IV).
fn wreck_rolls<S: DieSource>(t: &mut Turn<'_, S>, carriers: &[usize], place: &str) -> Vec<usize> {
    let rules = t.scn.tables.river.clone();
    let mut out = Vec::new();
    for &c in carriers {
        if !matches!(t.state.units[c].status, Status::OnMap(_)) {
            continue;
        }
        let gunboat = t.type_at(c).is_some_and(|ty| ty.kind == UnitKind::Gunboat);
        let (kind, need) = if gunboat {
            rules.gunboat_wreck
        } else {
            rules.boat_wreck
        };
        let id = t.state.units[c].id.clone();
        let purpose = format!("wreck of {id} on {place}");
        if !t.roll_at_least(kind, purpose, "wrecking (8.23)", need, ["wrecked", "safe"]) {
            continue;
        }
        let hex = t.state.units[c].hex().unwrap_or(Hex::new(0, 0));
        let back = if gunboat {
            let r = t
                .dice
                .roll(rules.gunboat_wreck_turns, format!("turns {id} is out"));
            let double = r.dice.len() == 2 && r.dice[0] == r.dice[1];
            let total = r.result;
            t.events.push(Event::Rolled(super::events::TableRoll {
                roll: r,
                modifiers: Vec::new(),
                total,
                table: "wrecked gunboat (8.23)".into(),
                line: if double {
                    "a double: destroyed".into()
                } else {
                    format!("out for {}", crate::words::count(total, "turn", "turns"))
                },
            }));
            if double {
                None
            } else {
                t.state.month.plus(total)
            }
        } else {
            t.state.month.plus(rules.boat_wreck_turns as i32)
        };
        t.state.units[c].status = match back {
            Some(m) => Status::Wrecked(m),
            None => Status::Eliminated,
        };
        // Out of play, in good order when it returns (a gunboat may be
        // disrupted by attrition, 5.2 IV).
        t.state.units[c].disrupted = false;
        t.events.push(Event::Eliminated {
            unit: id,
            hex,
            cause: format!("wrecked on {place}"),
            decided_by: Decision::Default("the dice".into()),
        });
        out.push(c);
    }
    out
}

/// Wrecked river units come back when their time is up (8.23 II): British
/// ones at Wady Halfa; Egyptian and Mahdist ones at Khartoum if their side
/// holds it, else they are lost.
pub fn wrecks_return<S: DieSource>(t: &mut Turn<'_, S>) {
    let month = t.state.month;
    let due = t.own_units_with(|s| matches!(s, Status::Wrecked(m) if m <= month));
    for i in due {
        let british = t.type_at(i).is_some_and(|ty| ty.nation == Nation::British);
        let place = if british { "Wady Halfa" } else { "Khartoum" };
        let hex = t.scn.map.resolve(place).ok().filter(|h| {
            let held = t.state.control.get(h) == Some(&t.side) || t.occupied_by(*h, t.side);
            !t.occupied_by(*h, t.side.enemy()) && (british || held)
        });
        let id = t.state.units[i].id.clone();
        match hex {
            Some(h) => {
                t.state.units[i].status = Status::OnMap(h);
                t.events.push(Event::Replaced { unit: id, hex: h });
            }
            None => {
                t.state.units[i].status = Status::Eliminated;
                t.events.push(Event::Note {
                    text: format!(
                        "{id} cannot return from its wreck: {place} is not held; it is lost (8.23)"
                    ),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DataSet;

    /// The bank read from the table is the one worked out from the map,
    /// for every hex of the map and hexes off it, with another map met in
    /// between.
    #[test]
    fn a_bank_read_from_the_table_is_the_maps() {
        let first = DataSet::embedded().expect("the embedded data loads").map;
        let second = DataSet::embedded().expect("the embedded data loads").map;
        let mut banks = 0;
        for map in [&first, &second, &first] {
            let mut hexes: Vec<Hex> = map.hexes().collect();
            hexes.extend([Hex::new(-1, 0), Hex::new(0, -1), Hex::new(500, 500)]);
            for h in hexes {
                assert_eq!(kept_bank(map, h), bank_of(map, h), "{h}");
                banks += usize::from(bank_of(map, h).is_some());
            }
        }
        assert!(banks > 0, "some hexes are beside a river");
    }
}
