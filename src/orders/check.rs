//! Orders against the game as it stands: what the engine will be given,
//! what each march will do, and every order that cannot be carried out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

pub use super::checked::{CheckError, Checked};
use super::parse::{Parsed, SyntaxError};
use super::{Item, LegOrder, March, Order, RiverWay, print};
use crate::engine::orders::{Leg, MONTHLY_SUPPLY, MarchOrder, RECRUITS};
use crate::engine::plan::{Arrivals, MarchPlan, Start, add_arrivals, no_dice};
use crate::geo::Hex;
use crate::scenario::definition::Zone;
use crate::scenario::zone::zone_hexes;
use crate::scenario::{Scenario, Side, UnitKind};
use crate::state::{GameState, UnitId};

/// The engine's march order for a written march.
pub fn march_order(m: &March) -> MarchOrder {
    m.map_legs(|l| match l {
        LegOrder::To(h) => Leg::To(*h),
        LegOrder::Path(p) => Leg::Path(p.clone()),
        LegOrder::Rail(h) => Leg::Rail(*h),
        LegOrder::River { to, .. } => Leg::River(*to),
        LegOrder::Fleet(h) => Leg::Fleet(*h),
    })
}

/// Check a sheet for `side` against the game in `state`: the header, the
/// set-up, the marches planned together, then every other order in the
/// sheet's order, and last what the arrivals foreseen add.
pub fn check(sheet: &super::Sheet, scn: &Scenario, state: &GameState, side: Side) -> Checked {
    check_for(sheet, scn, state, side, Reader::Receipt)
}

/// [`check`] for a reader of the orders, errors and refusal alone (a
/// programmed player asking whether the checker takes its orders): the
/// same orders, errors and `refused`, without what only a receipt reads,
/// which the errors do not depend on: the besieged hexes, the arrivals
/// foreseen in the plans, the marches' warnings and notes, and the
/// warnings of supply orders for hexes with no supply unit now and of
/// units withdrawn that march.
pub fn check_orders(
    sheet: &super::Sheet,
    scn: &Scenario,
    state: &GameState,
    side: Side,
) -> Checked {
    check_for(sheet, scn, state, side, Reader::Orders)
}

/// Who reads a check's outcome, and so how much of it is worked out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// The player's receipt: everything.
    Receipt,
    /// The orders, errors and refusal alone ([`check_orders`]).
    Orders,
}

fn check_for(
    sheet: &super::Sheet,
    scn: &Scenario,
    state: &GameState,
    side: Side,
    reader: Reader,
) -> Checked {
    let mut out = Checked::default();
    if refuse_header(sheet, state, side, &mut out) {
        return out;
    }
    // Marches are planned together, in order, as the engine plays them.
    let marches: Vec<(usize, MarchOrder)> = sheet
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match &it.order {
            Order::March(m) => Some((i, march_order(m))),
            _ => None,
        })
        .collect();
    let (set_up, setup_results) = place_setups(sheet, scn, state, side);
    let mut dice = no_dice();
    let mut start = Start::new(scn, set_up.as_ref().unwrap_or(state), side, &mut dice);
    let plans = start.plan_marches(&marches.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>());
    if set_up.is_none() && reader == Reader::Receipt {
        out.besieged = Some(start.besieged());
    }
    let marching = take_plans(sheet, &scn.map, marches, plans, reader, &mut out);
    let mut others = Others {
        scn,
        state,
        side,
        marching,
        setup_results: setup_results.into_iter(),
        no_supply_now: Vec::new(),
    };
    for item in &sheet.items {
        others.check(item, &mut out);
    }
    let no_supply_now = others.no_supply_now;
    if reader == Reader::Receipt {
        add_foreseen(
            scn,
            state,
            side,
            set_up.as_ref(),
            start,
            &no_supply_now,
            &mut out,
        );
    }
    super::house::refuse(&sheet.items, scn, state, &mut out);
    out.errors.sort_by_key(|e| e.line);
    out.warnings.sort_by_key(|e| e.line);
    out
}

/// What the arrivals foreseen this month add to a receipt: the warnings
/// of supply orders for hexes no supply unit arrives at, and who arrives
/// where each march starts (neither makes an error).
fn add_foreseen(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    set_up: Option<&GameState>,
    start: Start<'_>,
    no_supply_now: &[(&Item, Hex)],
    out: &mut Checked,
) {
    // Who arrives this month, foreseen once for both uses below.
    let arrivals = if no_supply_now.is_empty() && out.plans.is_empty() {
        BTreeMap::new()
    } else {
        start.foreseen_arrivals(&out.orders)
    };
    let start = set_up.unwrap_or(state);
    warn_no_supply(scn, start, side, no_supply_now, &arrivals, out);
    if !out.plans.is_empty() {
        let mut plans: Vec<&mut MarchPlan> = out.plans.iter_mut().map(|(_, p)| p).collect();
        add_arrivals(start, side, &arrivals, &mut plans);
    }
}

/// A SIDE or month header that is not this side's or the game's month
/// refuses the whole set: the errors are added and the set marked refused.
fn refuse_header(sheet: &super::Sheet, state: &GameState, side: Side, out: &mut Checked) -> bool {
    let header_line = |message: String| CheckError {
        line: 0,
        text: print::header(&sheet.header, false),
        message,
    };
    if let Some(s) = sheet.header.side
        && s != side
    {
        out.errors.push(header_line(format!(
            "these orders say SIDE {s}, and they are checked for the {side} side: the whole set is refused"
        )));
    }
    if let Some(m) = sheet.header.month
        && m != state.month
    {
        out.errors.push(header_line(format!(
            "these orders are for {} and the game is at {}: the whole set is refused",
            m.long_name(),
            state.month.long_name()
        )));
    }
    out.refused = !out.errors.is_empty();
    out.refused
}

/// In the opening month the set-up comes first (2.1): marches start where
/// the sheet's SETUP orders put the units, as the engine plays them (a
/// SETUP refused here is reported with its line and moves nothing). Each
/// SETUP is checked on the set-up as the earlier ones leave it, as the
/// engine places them. Returns the position after them (`None` when the
/// sheet has none) and each one's result, in the sheet's order.
fn place_setups(
    sheet: &super::Sheet,
    scn: &Scenario,
    state: &GameState,
    side: Side,
) -> (Option<GameState>, Vec<Result<(), String>>) {
    let mut set_up = None;
    let mut index = None;
    let mut results = Vec::new();
    for it in &sheet.items {
        if let Order::Setup(o) = &it.order {
            let s = set_up.get_or_insert_with(|| state.clone());
            let ix = index.get_or_insert_with(|| crate::state::setup::SetupIndex::new(scn));
            results.push(crate::state::setup::apply_setup_order_with(
                scn, s, side, o, ix,
            ));
        }
    }
    (set_up, results)
}

/// The marches' plans into the outcome: an impossible march is an error;
/// a possible one (unless it goes the wrong way up a river) is given to the
/// engine with its conditions, warnings and notes (the warnings for a
/// receipt only). Returns the units that march (for a receipt: they are
/// read for warnings only).
fn take_plans(
    sheet: &super::Sheet,
    map: &crate::geo::Map,
    marches: Vec<(usize, MarchOrder)>,
    plans: Vec<Result<MarchPlan, String>>,
    reader: Reader,
    out: &mut Checked,
) -> BTreeSet<UnitId> {
    let march_items: Vec<usize> = marches.iter().map(|(i, _)| *i).collect();
    let mut marching: BTreeSet<UnitId> = BTreeSet::new();
    for ((i, order), plan) in marches.into_iter().zip(plans) {
        let item = &sheet.items[i];
        let p = match plan {
            Err(reason) => {
                out.error(item, reason);
                continue;
            }
            Ok(p) => p,
        };
        if let Order::March(m) = &item.order {
            river_way_errors(map, item, m, &p, out);
        }
        if out.errors.last().is_some_and(|e| e.line == item.line) {
            continue;
        }
        if let Some(c) = &p.condition {
            let on = &sheet.items[march_items[c.on]];
            out.conditional.push(CheckError {
                line: item.line,
                text: item.text.clone(),
                message: format!(
                    "conditional on line {}: possible only if that order succeeds ({})\n    now: {}",
                    on.line, c.needs, c.now
                ),
            });
        }
        if reader == Reader::Receipt {
            for w in &p.warnings {
                out.warn(item, w.clone());
            }
            for l in &p.legs {
                for n in &l.notes {
                    out.warn(item, n.clone());
                }
            }
            marching.extend(p.units.iter().cloned());
        }
        out.orders.marches.push(order);
        out.plans.push((i, p));
    }
    marching
}

/// A river leg written UPSTREAM or DOWNSTREAM where the river runs the
/// other way is an error of its march.
fn river_way_errors(
    map: &crate::geo::Map,
    item: &Item,
    m: &March,
    p: &MarchPlan,
    out: &mut Checked,
) {
    for (k, l) in m.legs.iter().enumerate() {
        if let (LegOrder::River { way: Some(w), .. }, Some(lp)) = (l, p.legs.get(k))
            && let Some(actual) = lp.river_way
            && actual != (*w == RiverWay::Up)
        {
            out.error(
                item,
                format!(
                    "march {}: the river runs the other way: from {} that is {}stream",
                    k + 1,
                    map.describe(if k == 0 { p.from } else { p.legs[k - 1].end }),
                    if actual { "up" } else { "down" }
                ),
            );
        }
    }
}

/// The orders other than marches, checked one by one in the sheet's order
/// on the position at the start of the turn.
struct Others<'a> {
    scn: &'a Scenario,
    state: &'a GameState,
    side: Side,
    /// The units of the marches given to the engine.
    marching: BTreeSet<UnitId>,
    /// The results of the sheet's SETUP orders, in its order.
    setup_results: std::vec::IntoIter<Result<(), String>>,
    /// EXPEND or KEEP SUPPLY orders for hexes with no supply unit now.
    no_supply_now: Vec<(&'a Item, Hex)>,
}

impl<'a> Others<'a> {
    fn check(&mut self, item: &'a Item, out: &mut Checked) {
        match &item.order {
            Order::March(_) | Order::Ready | Order::ReadyAsIs | Order::Command(_) => {}
            Order::ExpendSupply(h) | Order::KeepSupply(h) => self.supply(item, *h, out),
            Order::Place { reinforcement, at } if reinforcement == MONTHLY_SUPPLY => {
                self.monthly_supply(item, reinforcement, *at, out)
            }
            Order::Place { reinforcement, at } if reinforcement == RECRUITS => {
                self.recruits(item, reinforcement, *at, out)
            }
            Order::Place { reinforcement, at } => self.place(item, reinforcement, *at, out),
            Order::PlacePart {
                reinforcement,
                part,
                at,
            } => self.place_part(item, reinforcement, part, *at, out),
            Order::Withdraw(units) => {
                if self.all_ours(item, units, out) {
                    for u in units {
                        if !out.orders.withdraw.contains(u) {
                            out.orders.withdraw.push(u.clone());
                        }
                    }
                }
            }
            Order::Dismount(a, b) => self.dismount(item, a, b, out),
            Order::Railway(name) => {
                if self.side != Side::Egyptian {
                    out.error(item, "only the Egyptian player builds railways (3.41)");
                    return;
                }
                out.orders.railway = Some(name.clone());
            }
            Order::EventLosses(units) => {
                if self.all_ours(item, units, out) {
                    out.orders.event_losses.extend(units.iter().cloned());
                }
            }
            Order::Setup(o) => match self.setup_results.next() {
                Some(Ok(())) => out.orders.setup.push(o.clone()),
                Some(Err(m)) => out.error(item, m),
                None => out.error(item, "this set-up order was not checked".to_string()),
            },
            Order::DefendLoseFirst(units) => {
                if self.all_ours(item, units, out) {
                    for u in units {
                        if !out.orders.standing_lose_first.contains(u) {
                            out.orders.standing_lose_first.push(u.clone());
                        }
                    }
                }
            }
        }
    }

    /// The index of one of the side's units on the map, or why not.
    fn ours(&self, id: &UnitId) -> Result<usize, String> {
        let i = self
            .state
            .units
            .iter()
            .position(|u| u.id == *id)
            .ok_or_else(|| format!("no unit {id}"))?;
        let u = &self.state.units[i];
        if u.side != self.side {
            return Err(format!("{id} is not {} unit", self.side.a()));
        }
        if u.hex().is_none() {
            return Err(format!("{id} is not on the map"));
        }
        Ok(i)
    }

    /// Whether every unit named is one of the side's on the map; an error
    /// for each that is not.
    fn all_ours(&self, item: &Item, units: &[UnitId], out: &mut Checked) -> bool {
        let mut ok = true;
        for u in units {
            if let Err(m) = self.ours(u) {
                out.error(item, m);
                ok = false;
            } else if matches!(item.order, Order::Withdraw(_)) && self.marching.contains(u) {
                out.warn(
                    item,
                    format!("{u} is withdrawn in the reinforcement phase, before it could march"),
                );
            }
        }
        ok
    }

    fn kind(&self, i: usize) -> Option<UnitKind> {
        self.scn
            .units
            .get(&self.state.units[i].unit_type)
            .map(|t| t.kind)
    }

    /// An error when `at` is not one of `allowed`, `says` given `at` and
    /// the allowed places described; whether it was.
    fn refuse_unless_in(
        &self,
        item: &Item,
        at: Hex,
        allowed: &[Hex],
        out: &mut Checked,
        says: impl FnOnce(String, &[String]) -> String,
    ) -> bool {
        if allowed.contains(&at) {
            return false;
        }
        let map = &self.scn.map;
        let list: Vec<String> = allowed.iter().map(|h| map.describe(*h)).collect();
        out.error(item, says(map.describe(at), &list));
        true
    }

    /// For units that join a friendly stack: a warning, `says` given the
    /// place, when none of the side's units stands at `at` now.
    fn warn_unless_friends_at(
        &self,
        item: &Item,
        at: Hex,
        out: &mut Checked,
        says: impl FnOnce(String) -> String,
    ) {
        let friends = self
            .state
            .units
            .iter()
            .any(|u| u.side == self.side && u.hex() == Some(at));
        if !friends {
            out.warn(item, says(self.scn.map.describe(at)));
        }
    }

    /// EXPEND SUPPLY or KEEP SUPPLY at `h` (5.2 IV).
    fn supply(&mut self, item: &'a Item, h: Hex, out: &mut Checked) {
        let (scn, state, side) = (self.scn, self.state, self.side);
        let side_has_supply = scn
            .units
            .types()
            .iter()
            .any(|t| t.side == side && t.kind == UnitKind::Supply);
        if !side_has_supply {
            out.error(item, format!("the {side} side has no supply units (5.3)"));
            return;
        }
        let is_supply = |id: &UnitId| {
            state
                .units
                .iter()
                .position(|u| u.id == *id)
                .is_some_and(|i| self.kind(i) == Some(UnitKind::Supply))
        };
        let has_supply = state.units.iter().enumerate().any(|(i, u)| {
            u.side == side && u.hex() == Some(h) && self.kind(i) == Some(UnitKind::Supply)
        }) || out.plans.iter().any(|(_, p)| {
            p.legs.last().is_some_and(|l| l.end == h) && p.units.iter().any(is_supply)
        });
        let expend = matches!(item.order, Order::ExpendSupply(_));
        let clash = if expend {
            out.orders.keep_supply.contains(&h)
        } else {
            out.orders.expend_supply.contains(&h)
        };
        if !has_supply {
            // A supply unit may still arrive or march there this turn: the
            // engine decides in the attrition phase.
            self.no_supply_now.push((item, h));
        }
        if clash {
            out.error(
                item,
                format!(
                    "the supply at {} is both expended and kept",
                    scn.map.describe(h)
                ),
            );
            return;
        }
        if expend {
            out.orders.expend_supply.push(h);
        } else {
            out.orders.keep_supply.push(h);
        }
    }

    /// PLACE of the Egyptian monthly supply unit (3.3).
    fn monthly_supply(&self, item: &Item, reinforcement: &str, at: Hex, out: &mut Checked) {
        let map = &self.scn.map;
        let rp = &self.scn.def.replacements;
        let allowed: Vec<Hex> = rp
            .free_supply_places
            .iter()
            .filter_map(|p| map.resolve(p).ok())
            .collect();
        if self.side != Side::Egyptian || rp.free_supply_unit.is_none() {
            out.error(
                item,
                "only the Egyptian player has a monthly supply unit (3.3)",
            );
            return;
        }
        let refused = self.refuse_unless_in(item, at, &allowed, out, |at, list| {
            format!(
                "the monthly supply unit may not arrive at {at}; it arrives at {} (3.3)",
                list.join(" or ")
            )
        });
        if refused {
            return;
        }
        out.orders.place.insert(reinforcement.to_string(), at);
    }

    /// PLACE of the Mahdist recruits (3.21).
    fn recruits(&self, item: &Item, reinforcement: &str, at: Hex, out: &mut Checked) {
        if self.side != Side::Mahdist {
            out.error(item, "only the Mahdist player places recruits (3.21)");
            return;
        }
        self.warn_unless_friends_at(item, at, out, |place| {
            format!(
                "new Mahdist units join a friendly stack and none stands at {place} now; if none is there when they come, they join the largest stack (3.21)"
            )
        });
        out.orders.place.insert(reinforcement.to_string(), at);
    }

    /// PLACE of a reinforcement where its zone allows.
    fn place(&self, item: &Item, reinforcement: &str, at: Hex, out: &mut Checked) {
        let map = &self.scn.map;
        let Some(r) = self
            .scn
            .def
            .reinforcements
            .iter()
            .find(|r| r.id == *reinforcement)
        else {
            out.error(item, format!("no reinforcement called {reinforcement}"));
            return;
        };
        if r.side != self.side {
            out.error(
                item,
                format!("{reinforcement} is {} reinforcement", r.side.a()),
            );
            return;
        }
        if r.zone == Zone::FriendlyStack {
            self.warn_unless_friends_at(item, at, out, |place| {
                format!("{reinforcement} joins a friendly stack and none stands at {place} now")
            });
        } else {
            let allowed = zone_hexes(map, &r.zone).unwrap_or_default();
            let refused = self.refuse_unless_in(item, at, &allowed, out, |at, list| {
                let more = if list.len() > 6 { ", ..." } else { "" };
                format!(
                    "{reinforcement} may not arrive at {at}; its places are {}{more}",
                    list[..list.len().min(6)].join(", ")
                )
            });
            if refused {
                return;
            }
        }
        out.orders.place.insert(reinforcement.to_string(), at);
    }

    /// PLACE of a part of a reinforcement (a unit, a type or a leader).
    fn place_part(&self, item: &Item, reinforcement: &str, part: &str, at: Hex, out: &mut Checked) {
        let (scn, map) = (self.scn, &self.scn.map);
        let Some(r) = scn
            .def
            .reinforcements
            .iter()
            .find(|r| r.id == *reinforcement && r.side == self.side)
        else {
            out.error(
                item,
                format!("{reinforcement} is not one of your reinforcements"),
            );
            return;
        };
        let Some(key) = crate::engine::arrivals::reinforcement_part(scn, r, part) else {
            out.error(
                item,
                format!(
                    "{reinforcement} has no part called {part}: name a unit, a unit type code or a leader of it"
                ),
            );
            return;
        };
        let allowed = zone_hexes(map, &r.zone).unwrap_or_default();
        if r.zone == Zone::FriendlyStack || !allowed.contains(&at) {
            out.error(
                item,
                format!(
                    "{part} of {reinforcement} may not arrive at {}",
                    map.describe(at)
                ),
            );
            return;
        }
        let river = scn
            .units
            .get(&key)
            .is_some_and(|ty| ty.kind.is_river_unit());
        let barred = scn.def.special_rules.iter().any(|rule| {
            matches!(rule, crate::scenario::definition::SpecialRule::NoRiverUnitsPlacedAt(p)
                if p.iter().any(|p| map.resolve(p) == Ok(at)))
        });
        if river && (barred || !map.is_riverside(at)) {
            out.warn(
                item,
                format!(
                    "boats and gunboats may not be placed at {} (2.3, 6.0); they go to the next of the places",
                    map.describe(at)
                ),
            );
        }
        out.orders
            .place_parts
            .entry(reinforcement.to_string())
            .or_default()
            .insert(key, at);
    }

    /// DISMOUNT of two Camel Corps units in one hex (8.24).
    fn dismount(&self, item: &Item, a: &UnitId, b: &UnitId, out: &mut Checked) {
        let (ia, ib) = match (self.ours(a), self.ours(b)) {
            (Ok(ia), Ok(ib)) => (ia, ib),
            (Err(m), _) | (_, Err(m)) => {
                out.error(item, m);
                return;
            }
        };
        if self.kind(ia) != Some(UnitKind::CamelCorps)
            || self.kind(ib) != Some(UnitKind::CamelCorps)
        {
            out.error(item, "only Camel Corps units dismount (8.24)");
            return;
        }
        if self.state.units[ia].hex() != self.state.units[ib].hex() {
            out.error(item, format!("{a} and {b} are not in the same hex (8.24)"));
            return;
        }
        out.orders.dismount.push((a.clone(), b.clone()));
    }
}

/// EXPEND or KEEP SUPPLY for a hex with no supply unit of the side now
/// (5.2 IV: "If a supply unit is expended all units which are in the hex
/// are automatically in supply"): the order counts if one arrives there
/// in the reinforcement phase, which comes before the attrition phase
/// (3.3: "The Egyptian player receives 1 supply unit per turn from
/// November 1884", a replacement, or a reinforcement's); otherwise only
/// if one marches there.
fn warn_no_supply(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: &[(&super::Item, Hex)],
    arrivals: &BTreeMap<Hex, Arrivals>,
    out: &mut Checked,
) {
    let supply_arrives = |h: &Hex| {
        arrivals.get(h).is_some_and(|a| {
            a.units.iter().any(|id| {
                state.units.iter().any(|u| {
                    u.id == *id
                        && scn
                            .units
                            .get(&u.unit_type)
                            .is_some_and(|t| t.kind == UnitKind::Supply)
                })
            })
        })
    };
    for (item, h) in orders {
        if supply_arrives(h) {
            continue;
        }
        out.warn(
            item,
            format!(
                "no {side} supply unit at {} now: the order counts only if one marches there (5.2 IV)",
                scn.map.describe(*h)
            ),
        );
    }
}

/// The receipt: each order in canonical form with what it will do, each
/// problem with its line, and a summary. Starts with the report marker so
/// a reply that quotes it is cut there.
pub fn acknowledge(
    parsed: &Parsed,
    checked: &Checked,
    scn: &Scenario,
    side: Side,
    state: &GameState,
) -> String {
    let mut out = String::new();
    let game = parsed
        .sheet
        .header
        .game
        .as_deref()
        .map(|g| format!(" (game {g})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{} orders: {side} player, {}{game}",
        super::REPORT_MARKER,
        state.month.long_name()
    );
    let _ = writeln!(out);
    for e in &receipt_entries(parsed, checked) {
        match e {
            Entry::Item(i, it) => write_item(&mut out, scn, checked, *i, it),
            other => write_note(&mut out, other),
        }
    }
    write_summary(&mut out, parsed, checked, side);
    out.push_str(&super::defaults::receipt(scn, state, side, checked));
    // No line over MAX_LINE characters: a longer line is wrapped near 78.
    // An order's echo (`line 3: MARCH ...`) stays whole, so it can be
    // copied back into a mail as one order.
    crate::words::wrap_long_lines(&out, (MAX_LINE, WRAP_AT, 0), |l| l.starts_with("line "))
}

/// One entry of the receipt's list, in the order of the lines of the mail.
enum Entry<'a> {
    Item(usize, &'a Item),
    Syntax(&'a SyntaxError),
    SyntaxWarning(&'a SyntaxError),
    Header(&'a CheckError),
    HeaderWarning(&'a CheckError),
    Ignored(usize, &'a str),
}

/// Everything the receipt lists, by line: on one line the parser's words
/// first, then the header's, then the order.
fn receipt_entries<'a>(parsed: &'a Parsed, checked: &'a Checked) -> Vec<Entry<'a>> {
    let mut entries: Vec<(usize, usize, Entry<'_>)> = Vec::new();
    for e in &parsed.errors {
        entries.push((e.line, 0, Entry::Syntax(e)));
    }
    for e in &parsed.warnings {
        entries.push((e.line, 0, Entry::SyntaxWarning(e)));
    }
    for (line, text) in &parsed.ignored {
        entries.push((*line, 0, Entry::Ignored(*line, text)));
    }
    for e in checked.errors.iter().filter(|e| e.line == 0) {
        entries.push((0, 1, Entry::Header(e)));
    }
    for e in checked.warnings.iter().filter(|e| e.line == 0) {
        entries.push((0, 1, Entry::HeaderWarning(e)));
    }
    for (i, it) in parsed.sheet.items.iter().enumerate() {
        entries.push((it.line, 2, Entry::Item(i, it)));
    }
    entries.sort_by_key(|(l, k, _)| (*l, *k));
    entries.into_iter().map(|(_, _, e)| e).collect()
}

/// A line passed over, not understood, or a warning or error of the
/// header or subject.
fn write_note(out: &mut String, e: &Entry<'_>) {
    match e {
        Entry::Item(..) => {}
        Entry::Ignored(line, text) => {
            let _ = writeln!(out, "line {line}: passed over, not an order: {text}");
        }
        Entry::Syntax(s) if s.line == 0 => {
            let _ = writeln!(out, "subject: ERROR: {}", s.message);
        }
        Entry::Syntax(s) => {
            let _ = writeln!(out, "line {}: NOT UNDERSTOOD: {}", s.line, s.text);
            let mut m = s.message.clone();
            if !s.expected.is_empty() {
                let _ = write!(m, "; expected {}", s.expected);
            }
            if let Some(sug) = &s.suggestion {
                let _ = write!(m, "; did you mean {sug}?");
            }
            let _ = writeln!(out, "    {m}");
        }
        Entry::SyntaxWarning(s) => {
            let where_ = if s.line == 0 {
                "subject".to_string()
            } else {
                format!("line {}", s.line)
            };
            let _ = writeln!(out, "{where_}: warning: {}", s.message);
        }
        Entry::Header(h) => {
            let _ = writeln!(out, "header: ERROR: {}", h.message);
        }
        Entry::HeaderWarning(h) => {
            let _ = writeln!(out, "header: warning: {}", h.message);
        }
    }
}

/// An order of the sheet (item `i`) in canonical form, marked NOT
/// POSSIBLE or CONDITIONAL, with its errors or its conditions, what it
/// will do, and its warnings.
fn write_item(out: &mut String, scn: &Scenario, checked: &Checked, i: usize, it: &Item) {
    let on_line = |list: &'_ [CheckError]| -> Vec<String> {
        list.iter()
            .filter(|e| e.line == it.line)
            .map(|e| e.message.clone())
            .collect()
    };
    let errors = on_line(&checked.errors);
    let warnings = on_line(&checked.warnings);
    let conditions = on_line(&checked.conditional);
    let mark = if !errors.is_empty() {
        "NOT POSSIBLE: "
    } else if !conditions.is_empty() {
        "CONDITIONAL: "
    } else {
        ""
    };
    let canonical = print::order(&scn.map, &it.order);
    let mut lines = canonical.lines();
    let _ = writeln!(
        out,
        "line {}: {mark}{}",
        it.line,
        lines.next().unwrap_or_default()
    );
    for l in lines {
        let _ = writeln!(out, "        {}", l.trim_start());
    }
    for e in &errors {
        let _ = writeln!(out, "    error: {e}");
    }
    if errors.is_empty() {
        for c in &conditions {
            let _ = writeln!(out, "    {c}");
        }
        if let Some((_, p)) = checked.plans.iter().find(|(k, _)| *k == i) {
            let _ = writeln!(out, "{}", indent(&describe_plan(scn, p)));
        }
        // In a set refused as a whole nothing is carried out, so no order
        // is described as if it would be.
        if !checked.refused && !matches!(it.order, Order::March(_)) {
            let _ = writeln!(out, "    {}", describe_order(scn, &it.order));
        }
    }
    for w in &warnings {
        let _ = writeln!(out, "    warning: {w}");
    }
}

/// Every line of `text` four spaces in.
fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The receipt's summary: the counts, what becomes of the lines refused
/// and the conditional ones, READY, and where the turn may differ.
fn write_summary(out: &mut String, parsed: &Parsed, checked: &Checked, side: Side) {
    let orders = parsed
        .sheet
        .items
        .iter()
        .filter(|i| !matches!(i.order, Order::Command(_)))
        .count();
    let errors = parsed.errors.len() + checked.errors.len();
    let warnings = parsed.warnings.len() + checked.warnings.len();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Summary: {orders} {} understood, {errors} {}, {warnings} {}.",
        crate::words::noun(orders, "order", "orders"),
        crate::words::noun(errors, "error", "errors"),
        crate::words::noun(warnings, "warning", "warnings"),
    );
    if !parsed.ignored.is_empty() {
        let n = parsed.ignored.len();
        let _ = writeln!(
            out,
            "{n} {} passed over as not orders (greetings, notes): if one was meant as an order, write it again starting with its order word.",
            crate::words::noun(n, "line was", "lines were")
        );
    }
    if checked.refused {
        let _ = writeln!(
            out,
            "None of these orders will be carried out: check the SIDE and MONTH lines (or the subject) and send the whole set again."
        );
    } else if errors > 0 {
        let _ = writeln!(
            out,
            "Lines marked NOT UNDERSTOOD or NOT POSSIBLE will not be carried out; the other orders stand. To change anything, send the whole set again: it replaces this one."
        );
    }
    if !checked.refused && !checked.conditional.is_empty() {
        let _ = writeln!(
            out,
            "Orders marked CONDITIONAL are carried out in the order written, after the order they name: when its turn comes each is checked again, and if the earlier order did not succeed it is not carried out and the log says why."
        );
    }
    if parsed.sheet.ready() && checked.refused {
        let _ = writeln!(
            out,
            "Your READY line does not count either: the set was refused."
        );
    } else if parsed.sheet.ready() {
        let _ = writeln!(
            out,
            "{}",
            super::defaults::ready_sentence(&parsed.sheet, errors)
        );
    }
    if !checked.refused && !checked.plans.is_empty() {
        let _ = writeln!(
            out,
            "\nWhere the turn may differ from this receipt: each march by land rolls on the march table (No March: the stack stays where it is; a short march: it stops on the way); a lost or drawn combat ends the stack's marching, and a lost one sends it back (8.31, 9.8); random events come before your marches and may change the position; units that arrive this month stay where they land (8.3){}.",
            if side == Side::Mahdist {
                "; the Egyptian player turn comes first and may change the position, and the Mahdist arrival roll (3.21) may send units home before they march"
            } else {
                ""
            }
        );
    }
}

/// The longest line a receipt keeps as it is; a longer one is wrapped.
const MAX_LINE: usize = 100;
/// The width a long line is wrapped to.
const WRAP_AT: usize = 78;

/// What a planned march will do, for the receipt.
pub fn describe_plan(scn: &Scenario, p: &MarchPlan) -> String {
    let map = &scn.map;
    let mut out = String::new();
    let all: Vec<&UnitId> = p.units.iter().chain(&p.river).collect();
    let who = if all.is_empty() && p.leaders.is_empty() {
        // Nothing named is left to march (the engine sets it aside).
        "no unit".to_string()
    } else if all.is_empty() {
        format!("{} alone", p.leaders.join(", "))
    } else {
        let ids: Vec<&str> = all.iter().map(|u| u.0.as_ref()).collect();
        let mut s = format!(
            "{} ({})",
            crate::words::count(all.len(), "unit", "units"),
            ids.join(" ")
        );
        if !p.leaders.is_empty() {
            let _ = write!(s, " with {}", p.leaders.join(", "));
        }
        s
    };
    let _ = write!(
        out,
        "{who} from {}; a full march gives {}",
        map.describe(p.from),
        crate::words::count(p.allowance, "movement point", "movement points")
    );
    for l in &p.legs {
        let shares = !l.rolls && p.legs.iter().any(|o| o.march == l.march && o.rolls);
        let how = if l.by_fleet {
            "with the fleet, 0 movement points".to_string()
        } else if l.rolls || shares {
            format!(
                "{} {}",
                l.cost,
                crate::words::noun(l.cost as usize, "movement point", "movement points")
            )
        } else {
            "no march roll".to_string()
        };
        // A leg with no hexes (`MARCH STACK X ATTACK ...`, or a river leg
        // to the stack's own hex) is an attack from where the stack is.
        let route = if l.already_there {
            format!(
                "already at {} if the march before gets there",
                map.describe(l.end)
            )
        } else if l.path.is_empty() {
            format!("stays at {} to attack", map.describe(l.end))
        } else {
            let hexes: Vec<String> = l.path.iter().map(|h| map.describe(*h)).collect();
            hexes.join(" - ")
        };
        let _ = write!(
            out,
            "\nmarch {}: {route} ({how}){}",
            l.march + 1,
            if l.rolls {
                ", after a march roll"
            } else if shares {
                ", in the same march"
            } else {
                ""
            }
        );
    }
    if !p.arriving.is_empty() {
        let _ = write!(
            out,
            "\narriving at {} this month, they stay there and do not march with it (8.3):",
            map.describe(p.from)
        );
        let (leaders, units): (Vec<&String>, Vec<&String>) = p
            .arriving
            .iter()
            .partition(|n| scn.units.leader(n).is_some());
        for line in word_lines(&units, 80) {
            let _ = write!(out, "\n  {line}");
        }
        if !leaders.is_empty() {
            let names: Vec<&str> = leaders.iter().map(|l| l.as_str()).collect();
            let _ = write!(out, "\n  {}", names.join(", "));
        }
    }
    if !p.joining.is_empty() {
        let _ = write!(
            out,
            "\narriving at {} this month with no unit left there, {} the stack: a leader never stands alone (7.0)",
            map.describe(p.from),
            if p.joining.len() == 1 {
                format!("{} goes with", p.joining[0])
            } else {
                format!("{} go with", p.joining.join(", "))
            }
        );
    }
    if p.legs.last().is_some_and(|l| l.march > 0) {
        let _ = write!(
            out,
            "\n(each march after the first starts where the one before it ends, if the stack gets there)"
        );
    }
    out
}

/// Words joined by spaces into lines of at most `width` characters (a
/// longer word on a line of its own).
fn word_lines(words: &[&String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for w in words {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + w.len() <= width => {
                l.push(' ');
                l.push_str(w);
            }
            _ => lines.push(w.to_string()),
        }
    }
    lines
}

/// What an order other than a march will do, for the receipt.
pub fn describe_order(scn: &Scenario, o: &Order) -> String {
    let map = &scn.map;
    match o {
        Order::ExpendSupply(h) => format!(
            "the stack at {} expends a supply unit instead of rolling for attrition",
            map.describe(*h)
        ),
        Order::KeepSupply(h) => format!(
            "the stack at {} keeps its supply and rolls for attrition",
            map.describe(*h)
        ),
        Order::Place { reinforcement, at } if reinforcement == MONTHLY_SUPPLY => format!(
            "the monthly supply unit arrives at {} (3.3)",
            map.describe(*at)
        ),
        Order::Place { reinforcement, at } if reinforcement == RECRUITS => format!(
            "new Mahdist units join the stack at {} (3.21); if none stands there, the largest stack",
            map.describe(*at)
        ),
        Order::Place { reinforcement, at } => format!(
            "{reinforcement} arrives at {} when it comes",
            map.describe(*at)
        ),
        Order::PlacePart {
            reinforcement,
            part,
            at,
        } => format!(
            "{part} of {reinforcement} arrives at {} when it comes (the rest where PLACE {reinforcement} says)",
            map.describe(*at)
        ),
        Order::Withdraw(u) => format!(
            "{} {} the map in the reinforcement phase and {} as destroyed (3.1)",
            u.len(),
            crate::words::noun(u.len(), "unit leaves", "units leave"),
            crate::words::noun(u.len(), "counts", "count")
        ),
        Order::Dismount(..) => {
            "two Camel Corps become two infantry and one camel, for good (8.24)".into()
        }
        Order::Railway(name) => format!("the railhead builds the {name} (3.41)"),
        Order::EventLosses(u) => format!(
            "if a random event takes units, these go first: {}",
            u.iter().map(|x| x.0.as_ref()).collect::<Vec<_>>().join(" ")
        ),
        Order::DefendLoseFirst(u) => format!(
            "these take combat losses first (within the limits of 9.4), from your player turn this month until your next, the other player's attacks included: {}",
            u.iter().map(|x| x.0.as_ref()).collect::<Vec<_>>().join(" ")
        ),
        Order::Setup(o) => {
            let mut names: Vec<&str> = o.units.iter().map(|u| u.0.as_ref()).collect();
            names.extend(o.leaders.iter().map(String::as_str));
            format!(
                "{} set up at {} before the first Egyptian player turn (2.1); what you do not place stays at its default place",
                names.join(" "),
                map.describe(o.at)
            )
        }
        Order::Ready => "your orders are complete".into(),
        Order::ReadyAsIs => "your orders are complete: the set plays as it stands".into(),
        Order::Command(super::Command::Set(s)) => format!("from now on {}", s.meaning()),
        Order::Command(_) => "a command: answered separately".into(),
        Order::March(_) => String::new(),
    }
}
