//! The receipt and the turn agree: over random positions (campaigns played
//! for a few months) and random order sets, checked by the same checker as
//! a player's mail,
//!
//! - every march order the receipt accepts is carried out or the log says
//!   why not: the turn never drops it without a word;
//! - a march the receipt accepts without a warning is never set aside by
//!   the engine before its first roll (what the engine would refuse, the
//!   receipt refuses, warns of or marks conditional on an earlier order),
//!   unless a random event of the turn says so;
//! - the stack that marches is the stack the receipt listed (newcomers and
//!   units lost to events aside, 8.3);
//! - the units the receipt listed end where the receipt said, or the log
//!   says why they did not (a march roll, a stop, a combat).

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::{play_month_with, play_player_turn};
use dervish::geo::Hex;
use dervish::orders::{self, Item, LegOrder, March, Order, Sheet};
use dervish::players::simple::simple_orders;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[path = "common/random_march.rs"]
mod random_march;

/// Random march orders as a player could write them.
fn random_sheet(state: &GameState, side: Side, rng: &mut ChaCha8Rng) -> Sheet {
    let stacks = random_march::stacks_of(state, side);
    let mut items = Vec::new();
    for s in &stacks {
        if rng.random_range(0..3) != 0 {
            continue;
        }
        let near = |rng: &mut ChaCha8Rng, h: Hex| random_march::near(rng, h, 6);
        let legs: Vec<LegOrder> = (0..rng.random_range(1..=3))
            .map(|_| match rng.random_range(0..10) {
                0 => LegOrder::Path(random_march::path_near(rng, s.hex, 6)),
                1 => LegOrder::Rail(near(rng, s.hex)),
                2 => LegOrder::Fleet(near(rng, s.hex)),
                3 => LegOrder::River {
                    to: near(rng, s.hex),
                    way: None,
                },
                _ => LegOrder::To(near(rng, s.hex)),
            })
            .collect();
        let units = random_march::selection(rng, s);
        let on_contact = random_march::on_contact(rng, s);
        let drop_offs = random_march::drop_offs(rng, s, 6, near);
        let line = items.len() + 1;
        items.push(Item {
            line,
            text: format!("order {line}"),
            order: Order::March(March {
                units,
                legs,
                on_contact,
                continue_after_win: rng.random_range(0..2) == 0,
                drop_offs,
                retreat_towards: None,
                leader_bonus: None,
                lose_first: Vec::new(),
            }),
        });
    }
    Sheet {
        header: Default::default(),
        items,
    }
}

/// A position after `months` months of the simple player on both sides.
fn position(scn: &Scenario, seed: u64, months: u32) -> GameState {
    let (mut state, _) = initial_state(scn, &Placements::new()).expect("set-up");
    let mut dice = Dice::new(SeededDice::from_seed(seed));
    for _ in 0..months {
        if state.result.is_some() {
            break;
        }
        state = play_month_with(
            scn,
            state,
            &mut |s, side| simple_orders(scn, s, side),
            &mut dice,
        )
        .state;
    }
    state
}

/// Whether the log gives a reason why order `i` did not get all the way.
fn explained(events: &[Event], i: usize) -> bool {
    events.iter().any(|e| match e {
        Event::Stopped { order, .. }
        | Event::OrderSetAside { order, .. }
        | Event::CombatResult { order, .. } => *order == i,
        Event::MarchResult { order, result, .. } => *order == i && result == "No March",
        _ => false,
    })
}

fn check_case(scn: &Scenario, seed: u64, months: u32, side: Side, orders_seed: u64) {
    let state = position(scn, seed, months);
    if state.result.is_some() {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(orders_seed);
    let sheet = random_sheet(&state, side, &mut rng);
    let checked = orders::check(&sheet, scn, &state, side);
    let mut dice = Dice::new(SeededDice::from_seed(orders_seed ^ 0x5eed));
    let r = play_player_turn(scn, state.clone(), side, &checked.orders, &mut dice);
    let context = format!(
        "{} seed {seed}, {months} months, {side}, orders seed {orders_seed}",
        scn.id()
    );
    let log = || dervish::render::log::render(&scn.map, &r.events);
    for (i, (item, plan)) in checked.plans.iter().enumerate() {
        let line = sheet.items[*item].line;
        // A conditional order (5.2 III) is one the receipt said may not
        // be carried out: it depends on an earlier order succeeding.
        let warned = checked.warnings.iter().any(|w| w.line == line)
            || checked.conditional.iter().any(|c| c.line == line);
        let begins = r.events.iter().find_map(|e| match e {
            Event::MarchBegins { order, units, .. } if *order == i => Some(units.clone()),
            _ => None,
        });
        let set_aside_first = r.events.iter().find_map(|e| match e {
            Event::OrderSetAside { order, reason } if *order == i => Some(reason.clone()),
            Event::MarchBegins { order, .. } if *order == i => Some(String::new()),
            _ => None,
        });
        // Never dropped without a word.
        let Some(units) = begins else {
            let reason = set_aside_first.unwrap_or_default();
            assert!(
                !reason.is_empty() || r.state.result.is_some(),
                "{context}: order {i} accepted by the receipt vanished from the turn\n{}",
                log()
            );
            // Set aside before it began: the receipt must have warned,
            // or a random event explains it.
            assert!(
                warned
                    || reason.contains("random event")
                    || reason.contains("left the map earlier this turn"),
                "{context}: the receipt accepted order {i} without a warning, the turn set it aside: {reason}\n{}",
                log()
            );
            continue;
        };
        // The stack that marches is the one the receipt listed.
        for u in &units {
            let river = r
                .state
                .units
                .iter()
                .find(|x| x.id == *u)
                .and_then(|x| scn.units.get(&x.unit_type))
                .is_some_and(|t| t.kind.is_river_unit());
            assert!(
                plan.units.contains(u) || river,
                "{context}: order {i} marched {u}, which the receipt did not list ({:?})\n{}",
                plan.units,
                log()
            );
        }
        // The listed units end where the receipt said, or the log says why.
        let end = plan.legs.last().map_or(plan.from, |l| l.end);
        let dropped: Vec<_> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::DroppedOff { order, units, .. } if *order == i => Some(units.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let astray: Vec<_> = units
            .iter()
            .filter(|u| !dropped.contains(u))
            .filter_map(|u| r.state.units.iter().find(|x| x.id == *u))
            .filter(|x| x.hex().is_some_and(|h| h != end))
            .filter(|x| {
                scn.units
                    .get(&x.unit_type)
                    .is_some_and(|t| !t.kind.is_river_unit())
            })
            .map(|x| x.id.clone())
            .collect();
        assert!(
            astray.is_empty() || explained(&r.events, i) || r.state.result.is_some(),
            "{context}: order {i}: {astray:?} did not reach {end} and the log does not say why\n{}",
            log()
        );
    }
}

fn scenarios() -> Vec<Scenario> {
    let data = DataSet::embedded().expect("embedded data");
    ["el-obeid", "khartoum"]
        .iter()
        .map(|id| data.scenario(id).expect("scenario"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn the_receipt_and_the_turn_agree(
        which in 0usize..2,
        seed in 0u64..1_000,
        months in 0u32..8,
        mahdist in any::<bool>(),
        orders_seed in any::<u64>(),
    ) {
        let scns = scenarios();
        let side = if mahdist { Side::Mahdist } else { Side::Egyptian };
        check_case(&scns[which], seed, months, side, orders_seed);
    }
}

/// A fixed sweep as well, so every run covers the same ground.
#[test]
fn the_receipt_and_the_turn_agree_over_a_fixed_sweep() {
    let scns = scenarios();
    for (k, scn) in scns.iter().enumerate() {
        for seed in 0..12u64 {
            for side in [Side::Egyptian, Side::Mahdist] {
                let months = (seed % 7) as u32;
                check_case(scn, seed, months, side, seed * 31 + k as u64);
            }
        }
    }
}

/// 9.12: "Any town, village or oasis is under siege if an enemy unit is
/// adjacent to that hex". The besieged hexes the order checker hands the
/// receipt's defaults (worked out once, on the position it plans on) are
/// those of the victory report, for either side, over the sweep's
/// positions.
#[test]
fn rule_9_12_the_checker_sees_the_sieges_the_victory_report_sees() {
    let mut sieges = 0;
    for scn in scenarios() {
        for seed in 0..12u64 {
            let state = position(&scn, seed, (seed % 7) as u32);
            for side in [Side::Egyptian, Side::Mahdist] {
                let checked = orders::check(&Sheet::default(), &scn, &state, side);
                let mut want = dervish::engine::victory::besieged(&scn, &state, side);
                want.sort_by_key(|h| (h.row, h.col));
                let mut got = checked.besieged.clone().unwrap_or_default();
                got.sort_by_key(|h| (h.row, h.col));
                assert!(checked.besieged.is_some(), "{} seed {seed}", scn.id());
                assert_eq!(got, want, "{} seed {seed}, {side}", scn.id());
                sieges += want.len();
            }
        }
    }
    assert!(sieges > 0, "no position of the sweep has a siege");
}
