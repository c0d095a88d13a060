//! Whole campaigns of both scenarios with random orders: no panic, and the
//! invariants hold after every player turn.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::orders::{Leg, MarchOrder, Orders};
use dervish::engine::play_player_turn;
use dervish::geo::Hex;
use dervish::players::simple::simple_orders;
use dervish::scenario::{DataSet, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use proptest::prelude::*;

mod common;
use common::check_invariants;
use common::random_march;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random orders: random stacks, split or whole, marching up to three legs
/// to random hexes nearby, with random contact rules and drop-offs.
fn random_orders(state: &GameState, side: Side, rng: &mut ChaCha8Rng) -> Orders {
    let stacks = random_march::stacks_of(state, side);
    let mut marches = Vec::new();
    for s in &stacks {
        if rng.random_range(0..3) == 0 {
            continue;
        }
        let near = |rng: &mut ChaCha8Rng, h: Hex| random_march::near(rng, h, 8);
        let legs: Vec<Leg> = (0..rng.random_range(1..=3))
            .map(|_| match rng.random_range(0..12) {
                0 => Leg::Path(random_march::path_near(rng, s.hex, 8)),
                1 => Leg::Rail(near(rng, s.hex)),
                2 => Leg::Fleet(near(rng, s.hex)),
                // A river march to its own hex: gunboats attack in place.
                3 if rng.random_range(0..2) == 0 => Leg::River(s.hex),
                3 => Leg::River(near(rng, s.hex)),
                _ => Leg::To(near(rng, s.hex)),
            })
            .collect();
        let units = random_march::selection(rng, s);
        let on_contact = random_march::on_contact(rng, s);
        let drop_offs = random_march::drop_offs(rng, s, 5, near);
        marches.push(MarchOrder {
            units,
            legs,
            on_contact,
            continue_after_win: rng.random_range(0..2) == 0,
            drop_offs,
            retreat_towards: None,
            leader_bonus: s.leaders.last().map(|l| l.name.clone()),
            lose_first: Vec::new(),
        });
    }
    // Now and then, repeat an order: the stack may not march twice.
    if let Some(m) = marches.first().cloned()
        && rng.random_range(0..4) == 0
    {
        marches.push(m);
    }
    // Now and then, withdraw a unit or dismount two Camel Corps.
    let mut orders = Orders {
        marches,
        ..Orders::default()
    };
    if let Some(s) = stacks.first() {
        if rng.random_range(0..10) == 0 {
            orders.withdraw.push(s.units[0].id.clone());
        }
        if s.units.len() > 1 && rng.random_range(0..10) == 0 {
            orders
                .dismount
                .push((s.units[0].id.clone(), s.units[1].id.clone()));
        }
    }
    orders
}

static DATA: std::sync::LazyLock<DataSet> =
    std::sync::LazyLock::new(|| DataSet::embedded().unwrap());

fn play_campaign(id: &str, seed: u64, random: bool) -> u32 {
    let scn = DATA.scenario(id).unwrap();
    let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
    let mut dice = Dice::new(SeededDice::from_seed(seed));
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut months = 0;
    while state.result.is_none() && months < 40 {
        for side in [Side::Egyptian, Side::Mahdist] {
            let orders = if random {
                random_orders(&state, side, &mut rng)
            } else {
                simple_orders(&scn, &state, side)
            };
            let before = state.clone();
            let r = play_player_turn(&scn, state, side, &orders, &mut dice);
            check_invariants(
                &scn,
                &before,
                &r.state,
                &format!("{id} seed {seed} {} {side}", before.month),
            );
            state = r.state;
        }
        months += 1;
        match state.month.next() {
            Some(n) if state.result.is_none() => state.month = n,
            _ => break,
        }
    }
    months
}

/// A seed proptest found: Graham's escort destroyed attacking out of
/// Souakim, he stayed with the supply unit that had just arrived, which
/// was spent in the attrition phase; he stood alone with the fleet, and the
/// Mahdists walked in on him.
#[test]
fn a_leader_left_with_a_spent_supply_unit_does_not_stand_alone() {
    play_campaign("khartoum", 777041059900364321, true);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_campaigns_keep_the_invariants(seed in any::<u64>(), scenario in prop::sample::select(vec!["el-obeid", "khartoum"])) {
        play_campaign(scenario, seed, true);
    }
}

#[test]
fn thousands_of_months_of_random_play_keep_the_invariants() {
    let mut months = 0;
    let mut seed = 0;
    while months < 2000 {
        for id in ["el-obeid", "khartoum"] {
            months += play_campaign(id, seed, true);
        }
        seed += 1;
    }
    assert!(months >= 2000);
}

#[test]
fn simple_players_play_both_scenarios_to_the_end() {
    for id in ["el-obeid", "khartoum"] {
        for seed in 0..5 {
            let months = play_campaign(id, seed, false);
            assert!(months >= 1);
        }
    }
}
