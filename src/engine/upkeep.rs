//! Attrition (5.2 IV, 5.3 IV, 6.0, 9.12) and recovery (5.2 V, 5.3 V, 7.4).

use super::Turn;
use super::events::{Decision, Event};
use super::losses;
use super::modifiers::{self, RollContext};
use super::orders::Orders;
use crate::dice::DieSource;
use crate::geo::Hex;
use crate::scenario::tables::RecoveryResult;
use crate::scenario::{Nation, Side, UnitKind};

/// Stacks with at least this many units expend their supply by default.
pub const DEFAULT_SUPPLY_STACK: usize = 7;

/// The default's reason for keeping a supply unit whose presence wins.
pub const KEEP_WINNING_SUPPLY: &str =
    "keep a supply unit whose presence wins the game (4.2), whatever the size of the stack";

/// The supply units among `units` at `hex`: the first of them, and the one
/// to spend without giving up a win, if any. 4.2: the Egyptian side wins
/// "at the end of any Mahdist turn when a British supply unit is in
/// Khartoum"; a supply unit whose presence there wins is spent only when
/// another such unit stays (docs/rules.md 4.2).
fn supply_to_spend<S: DieSource>(
    t: &Turn<'_, S>,
    hex: Hex,
    units: &[usize],
) -> (Option<usize>, Option<usize>) {
    let supplies: Vec<usize> = units
        .iter()
        .copied()
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Supply))
        .collect();
    let wins = |u: usize| {
        t.type_at(u)
            .is_some_and(|ty| super::victory::presence_wins(t.scn, t.side, hex, ty))
    };
    let winners = supplies.iter().filter(|&&u| wins(u)).count();
    let spare = supplies
        .iter()
        .copied()
        .find(|&u| !wins(u))
        .or_else(|| supplies.first().copied().filter(|_| winners > 1));
    (supplies.first().copied(), spare)
}

/// The log's note of a supply unit kept by default because it wins.
fn keep_winning_supply<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex, s: usize) {
    let id = t.state.units[s].id.clone();
    t.events.push(Event::Note {
        text: format!(
            "{id} at {} is not expended: no order says so, and its presence at the end of the Mahdist turn wins the game (4.2); the stack rolls for attrition",
            t.scn.map.describe(hex)
        ),
    });
}

/// The phasing side's stacks in row order, each with its units (indices,
/// in the order of the counters), and where the enemy has land units:
/// found in one pass over the counters for a phase that visits every
/// stack, instead of a pass for each stack and each siege.
struct Stacks {
    stacks: Vec<(Hex, Vec<usize>)>,
    /// A bit for each hex of the map's table (by index) where an enemy
    /// land unit stands.
    enemy_land: Vec<u64>,
    /// Enemy land units' hexes outside the map's table, if any.
    enemy_off_table: Vec<Hex>,
}

impl Stacks {
    fn of<S: DieSource>(t: &Turn<'_, S>) -> Self {
        let table = t.scn.map.hex_table();
        let words = table.len().div_ceil(64);
        let (mut own_bits, mut enemy_land) = (vec![0u64; words], vec![0u64; words]);
        let mut enemy_off_table = Vec::new();
        // The side's counters by the index of their hex.
        let mut own: Vec<(usize, usize)> = Vec::with_capacity(t.state.units.placed().len());
        let mut own_off_table = false;
        for (i, u, h, ty) in t.on_map() {
            let at = table.index(h);
            if u.side == t.side {
                match at {
                    Some(k) => {
                        own_bits[k / 64] |= 1 << (k % 64);
                        own.push((k, i));
                    }
                    None => own_off_table = true,
                }
            } else if ty.is_none_or(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet) {
                match at {
                    Some(k) => enemy_land[k / 64] |= 1 << (k % 64),
                    None => enemy_off_table.push(h),
                }
            }
        }
        let stacks = if own_off_table {
            Self::by_search(t)
        } else {
            Self::by_bits(t, &own_bits, &own)
        };
        Stacks {
            stacks,
            enemy_land,
            enemy_off_table,
        }
    }

    /// The stacks of counters `own` (hex index, counter) whose hexes are
    /// the bits of `bits`: a stack for each bit, in the order of the
    /// indices (row by row, so row order), each counter put in the stack
    /// whose place is the count of bits below its own.
    fn by_bits<S: DieSource>(
        t: &Turn<'_, S>,
        bits: &[u64],
        own: &[(usize, usize)],
    ) -> Vec<(Hex, Vec<usize>)> {
        let table = t.scn.map.hex_table();
        let mut before = Vec::with_capacity(bits.len());
        let mut stacks: Vec<(Hex, Vec<usize>)> = Vec::new();
        for (w, &word) in bits.iter().enumerate() {
            before.push(stacks.len());
            let mut rest = word;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                stacks.push((table.hex(w * 64 + b), Vec::new()));
                rest &= rest - 1;
            }
        }
        for &(k, i) in own {
            let below = bits[k / 64] & ((1u64 << (k % 64)) - 1);
            stacks[before[k / 64] + below.count_ones() as usize]
                .1
                .push(i);
        }
        stacks
    }

    /// The side's stacks, each found by a search of those found before it
    /// (for counters on hexes outside the map's table).
    fn by_search<S: DieSource>(t: &Turn<'_, S>) -> Vec<(Hex, Vec<usize>)> {
        let mut stacks: Vec<(Hex, Vec<usize>)> = Vec::new();
        for (i, u, h, _) in t.on_map() {
            if u.side != t.side {
                continue;
            }
            let k = match stacks.binary_search_by_key(&(h.row, h.col), |(at, _)| (at.row, at.col)) {
                Ok(k) => k,
                Err(k) => {
                    stacks.insert(k, (h, Vec::new()));
                    k
                }
            };
            stacks[k].1.push(i);
        }
        stacks
    }

    /// [`Turn::is_besieged`] for the phasing side's `units` in `hex` (all
    /// of its units there, or all but the fleet): the phase moves and
    /// removes none of the enemy's counters, so the enemy's land units
    /// found when the stacks were taken ring the same settlements.
    fn besieged<S: DieSource>(&self, t: &Turn<'_, S>, hex: Hex, units: &[usize]) -> bool {
        let table = t.scn.map.hex_table();
        let enemy_at = |n: Hex| match table.index(n) {
            Some(k) => (self.enemy_land[k / 64] >> (k % 64)) & 1 == 1,
            None => self.enemy_off_table.contains(&n),
        };
        t.scn.map.settlement_at(hex).is_some()
            && units
                .iter()
                .any(|&u| t.type_at(u).is_none_or(|ty| ty.kind != UnitKind::Fleet))
            && hex.neighbours().iter().any(|n| enemy_at(*n))
    }
}

/// Every stack of the phasing side rolls on the attrition table, except
/// Egyptian stacks that expend a supply unit. "All Mahdist units must roll
/// for attrition" (5.3 IV); "All Egyptian player units that are not stacked
/// with a supply unit must roll" (5.2 IV): boats and gunboats roll with the
/// stack and count in its size. The British fleet does not (its presence is
/// governed by 8.25 alone; docs/rules.md, the attrition table).
pub fn attrition_phase<S: DieSource>(t: &mut Turn<'_, S>, orders: &Orders) {
    // A town that fell in the march phase has fallen (2.2), whoever holds
    // it by the next Mahdist reinforcement phase.
    super::arrivals::note_falls(t);
    // A supply order for a hex with no supply unit of the side in the
    // attrition phase (it moved, or was lost) is said, not dropped.
    let has_supply = |t: &Turn<'_, S>, hex: Hex| {
        t.units_at(hex, t.side)
            .iter()
            .any(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Supply))
    };
    for (what, hexes) in [
        ("EXPEND SUPPLY", &orders.expend_supply),
        ("KEEP SUPPLY", &orders.keep_supply),
    ] {
        for &hex in hexes.iter() {
            if !has_supply(t, hex) {
                t.events.push(Event::Note {
                    text: format!(
                        "{what} AT {} set aside: no supply unit of yours is there in the attrition phase (5.2 IV)",
                        t.scn.map.describe(hex)
                    ),
                });
            }
        }
    }
    let stacks = Stacks::of(t);
    for (hex, at_start) in &stacks.stacks {
        let hex = *hex;
        let units = rolling_units(t, hex, at_start);
        if units.is_empty() {
            continue;
        }
        let besieged = stacks.besieged(t, hex, &units);
        if t.side == Side::Egyptian {
            let (supply, spare) = supply_to_spend(t, hex, &units);
            if let Some(s) = spare.or(supply) {
                let (expend, decided_by) = if orders.expend_supply.contains(&hex) {
                    (true, Decision::Orders)
                } else if orders.keep_supply.contains(&hex) {
                    (false, Decision::Orders)
                } else if spare.is_none() {
                    keep_winning_supply(t, hex, s);
                    (false, Decision::Default(KEEP_WINNING_SUPPLY.into()))
                } else {
                    let big = units.len() >= DEFAULT_SUPPLY_STACK;
                    (
                        big || besieged,
                        Decision::Default(format!(
                            "expend supply in stacks of {DEFAULT_SUPPLY_STACK} or more units, or under siege"
                        )),
                    )
                };
                if expend {
                    let id = t.state.units[s].id.clone();
                    t.state.units[s].status = losses::status_after_elimination(t, s);
                    t.state.units[s].disrupted = false;
                    t.events.push(Event::SupplyExpended {
                        unit: id,
                        hex,
                        decided_by,
                    });
                    t.events.push(Event::AttritionExempt {
                        hex,
                        reason: "in supply (5.2 IV)".into(),
                    });
                    // A leader never stands alone (7.0): one whose last
                    // unit was the supply unit spent goes as leaders do
                    // when every unit with them is gone.
                    t.remove_lone_leaders(hex, "the supply unit he was with was expended (5.2 IV)");
                    continue;
                }
            }
        }
        roll_attrition(t, hex, units, besieged);
    }
    // Disease and the like: stacks near a place roll again (random event).
    let extra: Vec<(Hex, u32)> = t
        .state
        .effects
        .extra_attrition
        .iter()
        .filter(|(s, _, _)| *s == t.side)
        .map(|(_, h, r)| (*h, *r))
        .collect();
    for (centre, radius) in extra {
        let stacks = Stacks::of(t);
        for (hex, at_start) in stacks
            .stacks
            .iter()
            .filter(|(h, _)| h.distance(centre) <= radius)
        {
            let hex = *hex;
            let units = rolling_units(t, hex, at_start);
            if units.is_empty() {
                continue;
            }
            t.events.push(Event::Note {
                text: format!(
                    "a random event brings a second attrition roll at {}",
                    t.scn.map.describe(hex)
                ),
            });
            let besieged = stacks.besieged(t, hex, &units);
            roll_attrition(t, hex, units, besieged);
        }
    }
}

/// The phasing side's units in `hex` that roll for attrition: all but the
/// British fleet. `at_start` is the side's stack there when the phase
/// took its stacks: the phase brings no counter into a hex, it only takes
/// counters off the map, so the stack is those of them still there.
fn rolling_units<S: DieSource>(t: &Turn<'_, S>, hex: Hex, at_start: &[usize]) -> Vec<usize> {
    at_start
        .iter()
        .copied()
        .filter(|&u| t.state.units[u].hex() == Some(hex))
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind != UnitKind::Fleet))
        .collect()
}

fn roll_attrition<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex, units: Vec<usize>, besieged: bool) {
    let scn = t.scn;
    let table = &scn.tables.attrition;
    let cx = RollContext {
        side: Some(t.side),
        month: Some(t.state.month),
        units: t.profile(&units),
        terrain: scn.map.terrain(hex),
        in_settlement: scn.map.settlement_at(hex).is_some(),
        under_siege: besieged,
        ..RollContext::default()
    };
    let mods = modifiers::applicable(&table.modifiers, &cx);
    let rows = &table.rows;
    let column = if besieged { "under siege" } else { "open" };
    let pick = |v: i32| -> Option<(usize, crate::scenario::tables::Hits)> {
        let i = rows
            .iter()
            .position(|r| v <= r.to)
            .unwrap_or(rows.len().saturating_sub(1));
        rows.get(i)
            .map(|r| (i, if besieged { r.siege } else { r.open }))
    };
    let mut purpose = String::from("attrition at ");
    purpose.push_str(&scn.map.describe(hex));
    let total = t.table_roll(
        table.dice,
        purpose,
        "attrition table",
        mods,
        |v| match pick(v) {
            Some((i, h)) => attrition_line(rows.len(), i, |k| rows[k].to, column, h),
            None => "no row".into(),
        },
    );
    let Some((_, hits)) = pick(total) else { return };
    let n = units.len();
    // Rounded down, at least one unit when the percentage is not zero, as
    // for march attrition and combat (rules reference).
    let elim = losses::share(n, hits.eliminate());
    let disr = losses::share(n, hits.disrupt());
    let british: Vec<usize> = units
        .iter()
        .copied()
        .filter(|&u| {
            t.type_at(u).is_some_and(|ty| {
                ty.nation == Nation::British
                    && !matches!(ty.kind, UnitKind::Camel | UnitKind::Supply)
            })
        })
        .collect();
    let gone = losses::apply(t, hex, &units, disr, elim, "attrition", &[]);
    if gone.iter().any(|g| british.contains(g)) && !t.state.british_attrition_loss {
        t.state.british_attrition_loss = true;
        // 4.2: said when it happens, not left for the end of the game.
        if t.scn.def.victory.iter().any(|c| {
            matches!(
                c,
                crate::scenario::definition::VictoryCondition::DrawCapOnBritishAttrition { .. }
            )
        }) {
            t.events.push(Event::Note {
                text: "a British unit was lost to attrition: from now on the Egyptian player can at best draw (4.2)".into(),
            });
        }
    }
}

/// The line of an attrition roll: "5-6, open: 10% disrupted, 0%
/// eliminated", row `i` of `len` rows whose upper bounds `to` gives.
fn attrition_line(
    len: usize,
    i: usize,
    to: impl Fn(usize) -> i32,
    column: &str,
    h: crate::scenario::tables::Hits,
) -> String {
    let mut line = String::with_capacity(48);
    modifiers::push_range(&mut line, len, i, to);
    line.push_str(", ");
    line.push_str(column);
    line.push_str(": ");
    modifiers::push_int(&mut line, i64::from(h.disrupt()));
    line.push_str("% disrupted, ");
    modifiers::push_int(&mut line, i64::from(h.eliminate()));
    line.push_str("% eliminated");
    line
}

/// Every disrupted unit of the phasing side rolls to recover.
pub fn recovery_phase<S: DieSource>(t: &mut Turn<'_, S>) {
    // Recovery moves no counter: the stacks taken at the start stand.
    let stacks = Stacks::of(t);
    for (hex, units) in &stacks.stacks {
        let hex = *hex;
        let disrupted: Vec<usize> = units
            .iter()
            .copied()
            .filter(|&u| t.state.units[u].disrupted)
            .collect();
        if disrupted.is_empty() {
            continue;
        }
        let leaders = t.leaders_at(hex, t.side);
        let leader = t.ruling_leader(&leaders, None, true);
        let besieged = stacks.besieged(t, hex, units);
        for u in disrupted {
            let table = &t.scn.tables.recovery;
            let ty = t.type_at(u);
            let cx = RollContext {
                side: Some(t.side),
                month: Some(t.state.month),
                quality: ty.map(|ty| ty.quality),
                under_siege: besieged,
                leader,
                ..RollContext::default()
            };
            let mods = modifiers::applicable(&table.modifiers, &cx);
            let id = t.state.units[u].id.clone();
            let mut purpose = String::with_capacity(12 + id.0.len());
            purpose.push_str("recovery of ");
            purpose.push_str(&id.0);
            let result = t.row_roll(
                table.dice,
                purpose,
                "recovery table",
                mods,
                &table.rows,
                ToString::to_string,
            );
            if result == Some(&RecoveryResult::Recovers) {
                t.state.units[u].disrupted = false;
                t.events.push(Event::Recovered { unit: id, hex });
            } else {
                t.events.push(Event::StillDisrupted { unit: id, hex });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Dice, FixedDice};
    use crate::state::Status;

    /// The stacks taken in one pass are the side's hexes in row order, each
    /// with the units a pass over the counters finds there
    /// ([`Turn::units_at`]); their siege is [`Turn::is_besieged`]'s, with
    /// the fleet or without it; and the units still rolling after some
    /// counters left the map are those a new pass finds. On scattered
    /// positions of both scenarios, for both sides, counters crowded
    /// around the settlements so that many are besieged.
    #[test]
    fn stacks_taken_in_one_pass_are_those_found_hex_by_hex() {
        let mut scatter = crate::testing::Scatter::new(0x5851_f42d_4c95_7f2d);
        let mut next = |n: usize| scatter.below(n);
        let (mut sieges, mut stacks_seen) = (0, 0);
        for (id, scn, mut state) in crate::testing::start_positions() {
            let towns = crate::testing::towns(&scn);
            for round in 0..30 {
                crate::testing::crowd_around(&mut next, &mut state, &towns, 4);
                for side in [Side::Egyptian, Side::Mahdist] {
                    let mut dice = Dice::new(FixedDice::with_fallback([], 1));
                    let mut t = Turn::new(&scn, state.clone(), side, &mut dice);
                    let stacks = Stacks::of(&t);
                    let mut hexes: Vec<Hex> = t
                        .state
                        .units
                        .iter()
                        .filter(|u| u.side == side)
                        .filter_map(|u| u.hex())
                        .collect();
                    hexes.sort_by_key(|h| (h.row, h.col));
                    hexes.dedup();
                    let plain: Vec<(Hex, Vec<usize>)> =
                        hexes.iter().map(|&h| (h, t.units_at(h, side))).collect();
                    assert_eq!(stacks.stacks, plain, "{id}, round {round}, {side:?}");
                    assert_eq!(
                        Stacks::by_search(&t),
                        plain,
                        "{id}, round {round}, {side:?}"
                    );
                    for (hex, units) in &stacks.stacks {
                        let rolling = rolling_units(&t, *hex, units);
                        let siege = t.is_besieged(*hex, side);
                        assert_eq!(stacks.besieged(&t, *hex, units), siege, "{id} {hex}");
                        if !rolling.is_empty() {
                            assert_eq!(stacks.besieged(&t, *hex, &rolling), siege, "{id} {hex}");
                        }
                        sieges += usize::from(siege);
                        stacks_seen += 1;
                    }
                    // Counters taken off the map, as attrition takes them.
                    for u in t.state.units.iter_mut() {
                        if u.side == side && next(3) == 0 {
                            u.status = Status::Pool;
                        }
                    }
                    for (hex, units) in &stacks.stacks {
                        let plain: Vec<usize> = t
                            .units_at(*hex, side)
                            .into_iter()
                            .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind != UnitKind::Fleet))
                            .collect();
                        assert_eq!(rolling_units(&t, *hex, units), plain, "{id} {hex}");
                    }
                }
            }
        }
        assert!(
            sieges > 50 && stacks_seen > 1000,
            "{sieges} sieges, {stacks_seen} stacks"
        );
    }
}
