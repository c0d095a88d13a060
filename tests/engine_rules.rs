//! The turn engine, rule by rule, on small hand-made situations on the real
//! map with fixed dice. Each test names the rule it checks.

mod common;
#[path = "common/engine.rs"]
mod engine;

use engine::assert_set_aside;

use common::bench::{Bench, march, set_aside, stopped};

use dervish::dice::Dice;
use dervish::engine::events::Event;
use dervish::engine::orders::{DropOff, Leg, MarchOrder, OnContact, Orders, Selection};
use dervish::engine::{TurnResult, play_player_turn};
use dervish::geo::Hex;
use dervish::scenario::{DataSet, Side};
use dervish::state::Status;
use dervish::state::setup::{Placements, initial_state};

#[test]
fn rule_9_1_enemy_hexes_are_never_entered() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Metammeh");
    let from = b.hex("Metammeh");
    let next = from
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h) && !b.scn.map.crosses_river(from, *h))
        .unwrap();
    b.place("mah-S", 1, &next.to_string());
    let mut orders = march(from, vec![Leg::Path(vec![next])]);
    orders.marches[0].on_contact = OnContact::Avoid;
    let r = b.play(Side::Egyptian, &orders, &[6, 6]);
    assert!(
        stopped(&r).iter().any(|s| s.contains("held by the enemy")) || !set_aside(&r).is_empty()
    );
}

#[test]
fn rule_5_2_iv_and_5_3_iv_boats_and_gunboats_roll_for_attrition_and_count_in_the_stack() {
    // "All Mahdist units must roll for attrition." "All Egyptian player
    // units that are not stacked with a supply unit must roll."
    let mut b = Bench::new("khartoum");
    b.place("mah-gunboat", 1, "Duem");
    let r = b.play(Side::Mahdist, &Orders::default(), &[]);
    assert_eq!(common::bench::rolls(&r, "attrition table").len(), 1);

    let mut b = Bench::new("khartoum");
    b.place("egy-gunboat", 2, "Berber");
    b.place("fleet", 1, "Souakim");
    // 1+1 = 2, +1 in a town: 3, "3-4" in the open, 20% disrupted: one of
    // the two gunboats (recovery then fails on 1s).
    let r = b.play(Side::Egyptian, &Orders::default(), &[1, 1, 1, 1, 1, 1]);
    let rolled = common::bench::rolls(&r, "attrition table");
    assert_eq!(
        rolled.len(),
        1,
        "the gunboats roll, the fleet does not: {rolled:?}"
    );
    let disrupted = r
        .state
        .units
        .iter()
        .filter(|u| &*u.unit_type == "egy-gunboat" && u.disrupted)
        .count();
    assert_eq!(disrupted, 1, "{:?}", r.events);
    // Eleven infantry and two gunboats make a stack of 13 (-2).
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 11, "Berber");
    b.place("egy-gunboat", 2, "Berber");
    let r = b.play(Side::Egyptian, &Orders::default(), &[]);
    let mods: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled(t) if t.table == "attrition table" => Some(format!("{:?}", t.modifiers)),
            _ => None,
        })
        .collect();
    assert_eq!(mods.len(), 1);
    assert!(mods[0].contains("-2"), "{mods:?}");
}

#[test]
fn rule_4_2_a_british_unit_lost_to_attrition_caps_the_egyptian_at_a_draw() {
    let mut b = Bench::new("khartoum");
    // Five British battalions in the open desert west of Korti.
    let open = b
        .hex("Korti")
        .within(3)
        .into_iter()
        .find(|h| {
            b.scn.map.is_land(*h)
                && b.scn.map.settlement_at(*h).is_none()
                && !b.scn.map.is_riverside(*h)
        })
        .unwrap();
    b.place("brit-inf", 5, &open.to_string());
    // 1+1 = 2 on the attrition table: 10% of 5 = 0.5, one unit eliminated.
    let r = b.play(Side::Egyptian, &Orders::default(), &[1, 1]);
    assert!(r.state.british_attrition_loss);
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (state, _) = initial_state(&scn, &Placements::new()).unwrap();
    let k = scn.map.resolve("Khartoum").unwrap();
    let orders = march(k, vec![Leg::To(scn.map.resolve("Berber").unwrap())]);
    let run = || {
        let mut dice = Dice::new(dervish::dice::SeededDice::from_seed(99));
        let r = play_player_turn(&scn, state.clone(), Side::Egyptian, &orders, &mut dice);
        (
            ron::to_string(&r.state).unwrap(),
            ron::to_string(&r.events).unwrap(),
        )
    };
    assert_eq!(run(), run());
}

#[test]
fn rule_6_1_displaced_river_units_roll_for_sinking_before_capture() {
    let mut b = Bench::new("khartoum");
    // Three Egyptian gunboats below the Sixth Cataract, at 2138. The only
    // free hexes beside the river next to them are on the cataract (2137,
    // 2038): 2039 holds Mahdists.
    let at = Hex::new(21, 38);
    let gb = b.place("egy-gunboat", 3, "2138");
    b.place("mah-S", 1, "2039");
    let from = at
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h) && !b.scn.map.is_riverside(*h))
        .unwrap();
    b.place("mah-S", 2, &from.to_string());
    let orders = march(from, vec![Leg::Path(vec![at])]);
    // March 6+6. EW1: cataract roll 6, wrecked, out 3+4 = 7 turns, then
    // captured on a 6. EW2: cataract roll 6, out 2+2, a double: sunk, so
    // no capture roll. EW3: cataract 1 and unnavigable water 1, afloat;
    // capture 1: displaced to 2137.
    let r = b.play(
        Side::Mahdist,
        &orders,
        &[6, 6, 6, 3, 4, 6, 6, 2, 2, 1, 1, 1],
    );
    let status =
        |id: &dervish::state::UnitId| r.state.units.iter().find(|u| u.id == *id).unwrap().status;
    let captures = common::bench::rolls(&r, "capture");
    assert_eq!(captures.len(), 2, "{captures:?}");
    let wrecks = common::bench::rolls(&r, "wreck");
    assert_eq!(
        wrecks,
        vec![
            "6 = 6 -> 6+: wrecked",
            "7 = 7 -> out for 7 turns",
            "6 = 6 -> 6+: wrecked",
            "4 = 4 -> a double: destroyed",
            "1 = 1 -> under 6: safe",
            "1 = 1 -> under 6: safe",
        ]
    );
    // The captured wreck comes back as a Mahdist gunboat after its repair.
    let back = b.state.month.plus(7).unwrap();
    let mah = r
        .state
        .units
        .iter()
        .filter(|u| &*u.unit_type == "mah-gunboat" && u.status == Status::Wrecked(back))
        .count();
    assert_eq!(mah, 1);
    assert_eq!(status(&gb[0]), Status::Eliminated);
    assert_eq!(status(&gb[1]), Status::Eliminated);
    assert_eq!(status(&gb[2]), Status::OnMap(Hex::new(21, 37)));
}

/// 2.2: "No Mahdist unit may ever enter any hex adjacent to the Nile above
/// (flowing North from) and including Abou Hamed." A Mahdist boat displaced
/// by an Egyptian land stack (6.1) is not pushed into such a hex: with only
/// closed hexes left to go to, it is lost.
#[test]
fn rule_2_2_a_displaced_mahdist_boat_is_not_pushed_past_the_nile_ban() {
    let mut b = Bench::new("el-obeid");
    let map = b.scn.map.clone();
    let nile = map.find_river("Nile").expect("the Nile");
    let ah = b.hex("Abou Hamed");
    let limit = map
        .river_sides_of(ah)
        .iter()
        .filter(|(_, s)| s.river == nile)
        .map(|(_, s)| s.order)
        .min()
        .expect("Abou Hamed is on the Nile");
    let closed = |h: Hex| {
        map.river_sides_of(h)
            .iter()
            .any(|(_, s)| s.river == nile && s.order >= limit)
    };
    // A riverside hex just upstream of the closed reach, beside it.
    let (boat_hex, open_beside): (Hex, Vec<Hex>) = map
        .hexes()
        .filter(|h| map.is_land(*h) && map.is_riverside(*h) && !closed(*h))
        .find_map(|h| {
            let n: Vec<Hex> = h
                .neighbours()
                .into_iter()
                .filter(|x| map.is_land(*x) && map.is_riverside(*x))
                .collect();
            let has_closed = n.iter().any(|x| closed(*x));
            let open: Vec<Hex> = n.into_iter().filter(|x| !closed(*x)).collect();
            (has_closed && h.distance(ah) <= 3).then_some((h, open))
        })
        .expect("a hex beside the closed reach");
    let from = boat_hex
        .neighbours()
        .into_iter()
        .find(|x| {
            map.is_land(*x)
                && !map.crosses_river(*x, boat_hex)
                && !open_beside.contains(x)
                && !closed(*x)
        })
        .or_else(|| {
            boat_hex
                .neighbours()
                .into_iter()
                .find(|x| map.is_land(*x) && !map.crosses_river(*x, boat_hex))
        })
        .expect("a land hex to come from");
    let boat = b.place("mah-boat", 1, &boat_hex.to_string());
    // Egyptian pickets hold every open hex the boat could go to.
    for h in &open_beside {
        if *h != from {
            b.place("egy-inf-S", 1, &h.to_string());
        }
    }
    b.place("egy-inf-R", 1, &from.to_string());
    let o = march(from, vec![Leg::Path(vec![boat_hex])]);
    // March 6+6; then any sinking or capture rolls: 1s (not captured).
    let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1, 1, 1]);
    let end = b.at(&r, &boat[0]);
    assert!(
        end.is_none_or(|h| !closed(h)),
        "the boat went to {end:?}, a hex closed to Mahdists"
    );
}

// ---------------------------------------------------------------- orders
// the receipt refuses
//
// A case's orders go through the receipt, which refuses these (their cases:
// 8.1-no-second-march, 8.3-drop-off, 8.31-three-marches,
// 6.1-land-attack-on-river-units-refused, 7.0-a-leader-alone-with-no-
// friendly-stack-there,
// 9.12-no-steamer-sails-into-a-besieged-town). Orders made by a program
// reach the engine as typed `Orders`; the engine sets them aside itself.

/// A land hex next to `hex` that no river separates from it.
fn beside(b: &Bench, hex: Hex, not: &[Hex]) -> Hex {
    hex.neighbours()
        .into_iter()
        .find(|h| {
            b.scn.map.is_land(*h)
                && !b.scn.map.crosses_river(hex, *h)
                && b.scn.map.settlement_at(*h).is_none()
                && !not.contains(h)
        })
        .expect("a land hex beside it")
}

/// One Egyptian battalion at Berber, and Berber and Khartoum.
fn a_battalion_at_berber() -> (Bench, Hex, Hex) {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Berber");
    let (berber, khartoum) = (b.hex("Berber"), b.hex("Khartoum"));
    (b, berber, khartoum)
}

#[test]
fn rule_8_1_a_stack_that_has_marched_may_not_march_again() {
    let (b, from, k) = a_battalion_at_berber();
    let mut orders = march(from, vec![Leg::To(k)]);
    orders
        .marches
        .push(MarchOrder::stack(from, vec![Leg::To(k)]));
    // The first march rolls No March: the stack is still at Berber but has marched.
    let r = b.play(Side::Egyptian, &orders, &[1, 1]);
    assert_eq!(
        set_aside(&r),
        vec!["these units have already marched or were dropped off this turn (8.1, 8.3)"]
    );
}

#[test]
fn rule_8_3_a_stack_may_split_and_drop_off_units_that_then_stay() {
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-R", 3, "Berber");
    let from = b.hex("Berber");
    let k = b.hex("Khartoum");
    let route: Vec<Hex> = dervish::geo::route::land_route(&b.scn.map, from, k)
        .unwrap()
        .hexes;
    let mut orders = Orders {
        marches: vec![MarchOrder {
            units: Selection::Units {
                units: inf[..2].to_vec(),
                leaders: vec![],
            },
            drop_offs: vec![DropOff {
                at: route[1],
                units: vec![inf[0].clone()],
                leaders: vec![],
            }],
            ..MarchOrder::stack(from, vec![Leg::Path(route[1..4].to_vec())])
        }],
        ..Orders::default()
    };
    // The third unit did not march; the dropped-off one may not march again.
    orders.marches.push(MarchOrder {
        units: Selection::Units {
            units: vec![inf[0].clone()],
            leaders: vec![],
        },
        ..MarchOrder::stack(route[1], vec![Leg::To(k)])
    });
    let r = b.play(Side::Egyptian, &orders, &[6, 6]);
    assert_eq!(b.at(&r, &inf[0]), Some(route[1]));
    assert_eq!(b.at(&r, &inf[1]), Some(route[3]));
    assert_eq!(b.at(&r, &inf[2]), Some(from));
    assert_eq!(
        set_aside(&r),
        vec!["these units have already marched or were dropped off this turn (8.1, 8.3)"]
    );
}

#[test]
fn rule_8_31_three_marches_at_most() {
    let (b, from, k) = a_battalion_at_berber();
    let r = b.play(Side::Egyptian, &march(from, vec![Leg::To(k); 4]), &[]);
    assert_eq!(
        set_aside(&r),
        vec!["4 marches ordered; a stack marches at most three times a turn (5.2 III)"]
    );
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::To(k); 3]),
        &[6, 6, 6, 6, 6, 6],
    );
    assert_eq!(common::bench::rolls(&r, "march").len(), 3);
}

/// 6.1: "Land units may not attack enemy boats or gunboats". An ATTACK on a
/// hex holding only enemy river units is not made, and the log says why.
#[test]
fn rule_6_1_an_attack_on_river_units_by_land_units_is_dropped_with_a_reason() {
    let mut b = Bench::new("khartoum");
    let omdurman = b.hex("Omdurman");
    let khartoum = b.hex("Khartoum");
    b.place("egy-inf-L", 2, "Omdurman");
    b.place("mah-boat", 1, "Khartoum");
    let mut o = march(omdurman, vec![Leg::Path(vec![])]);
    o.marches[0].on_contact = OnContact::AttackHexes(vec![khartoum]);
    let r = b.play(Side::Egyptian, &o, &[6, 6]);
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, Event::CombatBegins { .. }))
    );
    assert!(
        set_aside(&r)
            .iter()
            .any(|s| s.contains("land units may not attack them") && s.contains("(6.1)")),
        "{:?}",
        set_aside(&r)
    );
}

/// 9.12: "No new friendly unit may enter the besieged hex until all enemy
/// units adjacent to that hex have been removed by combat." Relief steamers
/// carrying British supply do not sail into a besieged Khartoum.
#[test]
fn rule_9_12_no_steamer_sails_into_a_besieged_town() {
    let mut b = Bench::new("khartoum");
    let khartoum = b.hex("Khartoum");
    b.place("egy-inf-L", 2, "Khartoum");
    let next = beside(&b, khartoum, &[b.hex("Omdurman")]);
    b.place("mah-S", 1, &next.to_string());
    let start = b.hex("Metammeh");
    b.place("brit-gunboat", 1, "Metammeh");
    let supply = b.place("brit-supply", 1, "Metammeh");
    let o = march(start, vec![Leg::River(khartoum)]);
    let r = b.play(Side::Egyptian, &o, &[]);
    assert_ne!(b.at(&r, &supply[0]), Some(khartoum));
    assert_set_aside(&r, "under siege: no new unit may enter");
}

/// 7.0: a leader may not stand alone; a leader ordered alone to a hex with
/// no friendly stack is set aside (the receipt refuses it:
/// 7.0-a-leader-alone-with-no-friendly-stack-there).
#[test]
fn rule_7_0_a_leader_alone_does_not_ride_to_a_hex_with_no_friendly_stack() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Metammeh");
    b.leader("J. Stewart", "Metammeh");
    let orders = Orders {
        marches: vec![MarchOrder {
            units: Selection::Units {
                units: vec![],
                leaders: vec!["J. Stewart".into()],
            },
            ..MarchOrder::stack(b.hex("Metammeh"), vec![Leg::To(b.hex("Korti"))])
        }],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &orders, &[6, 6]);
    assert!(set_aside(&r)[0].contains("no friendly stack at Korti"));
}

mod rivers {
    use super::*;

    fn river_order(from: Hex, to: Hex) -> Orders {
        march(from, vec![Leg::River(to)])
    }

    #[test]
    fn rule_2_2_mahdist_river_moves_obey_the_nile_ban() {
        // "No Mahdist unit may ever enter any hex adjacent to the Nile above
        // (flowing North from) and including Abou Hamed": by river too.
        let mut b = Bench::new("el-obeid");
        b.state.month = "1882-12".parse().unwrap();
        let berber = b.hex("Berber");
        let inf = b.place("mah-S", 1, "Berber");
        b.place("mah-gunboat", 1, "Berber");
        let ah = b.hex("Abou Hamed");
        let r = b.play(Side::Mahdist, &river_order(berber, ah), &[]);
        let at = b.at(&r, &inf[0]).unwrap();
        assert_ne!(at, ah);
        let banned = b.scn.map.river_sides_of(at).iter().any(|(_, s)| {
            b.scn
                .map
                .river_sides_of(ah)
                .iter()
                .any(|(_, a)| a.river == s.river && s.order >= a.order)
        });
        assert!(!banned, "{at} is beside the Nile below Abou Hamed");
        assert_eq!(at, berber);
        assert_set_aside(&r, "(8.23, 2.2)");
    }

    #[test]
    fn rule_8_23_a_river_march_needs_a_boat_for_each_unit_and_carries_no_civilians() {
        let mut b = Bench::new("khartoum");
        b.place("egy-inf-R", 3, "Duem");
        b.place("brit-boat", 2, "Duem");
        let r = b.play(
            Side::Egyptian,
            &river_order(b.hex("Duem"), b.hex("Khartoum")),
            &[],
        );
        assert!(
            set_aside(&r)[0].contains("3 units need 3 boats or gunboats and 2 are free here"),
            "{:?}",
            set_aside(&r)
        );
        let mut b = Bench::new("khartoum");
        b.place("civilian", 1, "Duem");
        b.place("brit-boat", 2, "Duem");
        let r = b.play(
            Side::Egyptian,
            &river_order(b.hex("Duem"), b.hex("Khartoum")),
            &[],
        );
        assert!(set_aside(&r)[0].contains("civilians may not travel by boat"));
    }

    #[test]
    fn rule_8_23_only_one_march_a_turn_by_river() {
        let mut b = Bench::new("khartoum");
        b.place("egy-inf-R", 1, "Duem");
        b.place("egy-gunboat", 1, "Duem");
        let k = b.hex("Khartoum");
        let r = b.play(
            Side::Egyptian,
            &march(
                b.hex("Duem"),
                vec![Leg::River(k), Leg::River(b.hex("Omdurman"))],
            ),
            &[],
        );
        assert_set_aside(&r, "only one march a turn may be by river");
    }

    #[test]
    fn rule_8_23_iv_one_wreck_roll_per_cataract_the_fourth_has_two_hexsides() {
        // "All boats and gunboats must stop when they come adjacent to
        // cataracts and roll for wrecking": once a cataract.
        let mut b = Bench::new("khartoum");
        let ah = b.hex("Abou Hamed");
        b.place("egy-inf-R", 1, "Abou Hamed");
        let gb = b.place("egy-gunboat", 1, "Abou Hamed");
        let dest = b.hex("Old Dongola");
        let r = b.play(Side::Egyptian, &river_order(ah, dest), &[1, 1, 1, 1, 1, 1]);
        let cataract_rolls: Vec<String> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Rolled(t) if t.table.starts_with("wrecking") => Some(t.roll.purpose.clone()),
                _ => None,
            })
            .filter(|p| p.contains(&*gb[0].0) && p.to_lowercase().contains("cataract"))
            .collect();
        assert_eq!(cataract_rolls.len(), 1, "{cataract_rolls:?}");
        assert_eq!(
            cataract_rolls[0],
            format!("wreck of {} on the Fourth Cataract", gb[0].0)
        );
    }

    #[test]
    fn rule_8_23_boats_met_at_the_end_of_a_land_march_may_not_be_boarded() {
        // "To move by boat a unit or stack must begin its march phase
        // stacked with sufficient boat or gunboat units."
        let mut b = Bench::new("khartoum");
        let inf = b.place("egy-inf-R", 1, "Omdurman");
        b.place("egy-gunboat", 1, "Khartoum");
        let k = b.hex("Khartoum");
        let o = march(
            b.hex("Omdurman"),
            vec![Leg::To(k), Leg::River(b.hex("Duem"))],
        );
        let r = b.play(Side::Egyptian, &o, &[]);
        assert_eq!(b.at(&r, &inf[0]), Some(k), "{:?}", r.events);
        assert_set_aside(&r, "began the march phase with them");
    }

    #[test]
    fn rule_8_23_ii_wrecked_british_boats_come_back_at_wady_halfa() {
        let mut b = Bench::new("khartoum");
        b.place("egy-inf-R", 1, "Wady Halfa");
        let i = b
            .state
            .units
            .iter()
            .position(|u| &*u.unit_type == "brit-boat" && u.hex().is_none())
            .unwrap();
        b.state.units[i].status = Status::Wrecked(b.state.month);
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        assert_eq!(r.state.units[i].hex(), Some(b.hex("Wady Halfa")));
    }

    #[test]
    fn rule_8_23_ii_a_wrecked_gunboat_is_out_for_2d6_turns_or_destroyed_on_a_double() {
        for (faces, expect) in [(vec![6, 3, 4], "out"), (vec![6, 5, 5], "destroyed")] {
            let mut b = Bench::new("khartoum");
            b.place("egy-inf-R", 1, "Khartoum");
            let gb = b.place("egy-gunboat", 1, "Khartoum");
            let r = b.play(
                Side::Egyptian,
                &river_order(b.hex("Khartoum"), b.hex("Metammeh")),
                &faces,
            );
            let status = r.state.units.iter().find(|u| u.id == gb[0]).unwrap().status;
            let want = if expect == "out" {
                Status::Wrecked(b.state.month.plus(7).unwrap())
            } else {
                Status::Eliminated
            };
            assert_eq!(status, want);
        }
    }

    #[test]
    fn rule_8_23_ii_passengers_of_a_unit_wrecked_on_unnavigable_water_finish_their_move() {
        let mut b = Bench::new("khartoum");
        // Down the Atbara (unnavigable in February) to Berber: the wreck
        // roll comes after movement, a 6; the gunboat is out 1+2 = 3 turns
        // and its passengers are at Berber.
        let inf = b.place("egy-inf-R", 1, "3431");
        let gb = b.place("egy-gunboat", 1, "3431");
        let berber = b.hex("Berber");
        let r = b.play(
            Side::Egyptian,
            &river_order(b.hex("3431"), berber),
            &[6, 1, 2],
        );
        assert_eq!(b.at(&r, &inf[0]), Some(berber));
        let status = r.state.units.iter().find(|u| u.id == gb[0]).unwrap().status;
        assert_eq!(status, Status::Wrecked(b.state.month.plus(3).unwrap()));
    }

    #[test]
    fn rule_8_23_ii_a_wrecked_boat_is_out_for_two_turns() {
        let mut b = Bench::new("khartoum");
        // Down the Atbara: the boat's wreck roll after movement is 12.
        let inf = b.place("brit-inf", 1, "3431");
        let boat = b.place("brit-boat", 1, "3431");
        let berber = b.hex("Berber");
        let r = b.play(Side::Egyptian, &river_order(b.hex("3431"), berber), &[6, 6]);
        assert_eq!(b.at(&r, &inf[0]), Some(berber));
        let status = r
            .state
            .units
            .iter()
            .find(|u| u.id == boat[0])
            .unwrap()
            .status;
        assert_eq!(status, Status::Wrecked(b.state.month.plus(2).unwrap()));
    }

    #[test]
    fn rule_8_23_v_upstream_rolls_count_from_the_first_hex_of_their_kind() {
        let mut b = Bench::new("khartoum");
        // A British boat from Shendi up the Nile towards Khartoum: 2D6+6 =
        // 8 hexes on navigable water, rolled at the first navigable hex,
        // and 1D6+6 = 7 on the unnavigable Sabaloka gorge, rolled at its
        // first hex (2137, a cataract: wreck roll 2, safe). The gorge hex
        // does not count against the 8: the boat moves 9 hexes and stops
        // at Halfaya; after movement it rolls for the unnavigable water (2).
        let inf = b.place("brit-inf", 1, "Shendi");
        b.place("brit-boat", 1, "Shendi");
        let r = b.play(
            Side::Egyptian,
            &river_order(b.hex("Shendi"), b.hex("Khartoum")),
            &[1, 1, 1, 1, 1, 1, 1],
        );
        assert_eq!(
            common::bench::rolls(&r, "river movement"),
            vec!["2 = 8 -> 8 hexes", "1 = 7 -> 7 hexes"]
        );
        assert_eq!(
            common::bench::rolls(&r, "wrecking"),
            vec!["2 = 2 -> under 12: safe", "2 = 2 -> under 12: safe"]
        );
        let moved: Vec<usize> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Moved { path, .. } => Some(path.len()),
                _ => None,
            })
            .collect();
        assert_eq!(moved, vec![9]);
        assert_eq!(b.at(&r, &inf[0]), Some(b.hex("Halfaya")));
        assert!(stopped(&r)[0].contains("upstream move of 8 hexes is spent"));
    }

    #[test]
    fn rule_8_23_ii_egyptian_and_mahdist_wrecks_return_at_khartoum_if_friendly_else_lost() {
        let k = Bench::new("khartoum").hex("Khartoum");
        for (unit, side, holder, back) in [
            ("egy-gunboat", Side::Egyptian, Side::Egyptian, true),
            ("egy-gunboat", Side::Egyptian, Side::Mahdist, false),
            ("mah-gunboat", Side::Mahdist, Side::Mahdist, true),
            ("mah-gunboat", Side::Mahdist, Side::Egyptian, false),
        ] {
            let mut b = Bench::new("khartoum");
            b.state.control.insert(k, holder);
            let i = b
                .state
                .units
                .iter()
                .position(|u| &*u.unit_type == unit && u.hex().is_none())
                .unwrap();
            b.state.units[i].status = Status::Wrecked(b.state.month);
            let r = b.play(side, &Orders::default(), &[]);
            let want = if back {
                Status::OnMap(k)
            } else {
                Status::Eliminated
            };
            assert_eq!(
                r.state.units[i].status, want,
                "{unit} with {holder} at Khartoum"
            );
        }
    }

    fn units_of(r: &TurnResult, hex: Hex) -> Vec<String> {
        let mut v: Vec<String> = r
            .state
            .units
            .iter()
            .filter(|u| u.hex() == Some(hex))
            .map(|u| u.id.0.to_string())
            .collect();
        v.sort();
        v
    }

    fn combats(r: &TurnResult) -> Vec<(Vec<String>, Vec<String>)> {
        r.events
            .iter()
            .filter_map(|e| match e {
                Event::CombatBegins {
                    attackers,
                    defenders,
                    ..
                } => Some((
                    attackers.iter().map(|u| u.0.to_string()).collect(),
                    defenders.iter().map(|u| u.0.to_string()).collect(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rule_6_1_boats_never_attack() {
        let mut b = Bench::new("khartoum");
        let at = Hex::new(19, 40);
        b.place("brit-inf", 1, "1940");
        b.place("brit-boat", 1, "1940");
        b.place("mah-boat", 1, "1939");
        let mut o = march(at, vec![Leg::River(b.hex("Omdurman"))]);
        o.marches[0].on_contact = OnContact::AttackAny;
        let r = b.play(Side::Egyptian, &o, &[4, 4]);
        assert!(combats(&r).is_empty());
        assert_eq!(
            units_of(&r, b.hex("Omdurman")),
            vec!["BB01".to_string(), "BI01".to_string()]
        );
    }

    #[test]
    fn rule_9_5_gunboats_attacked_by_gunboats_fire_back_with_their_modifier() {
        let mut b = Bench::new("khartoum");
        // A lone Egyptian gunboat attacks a Mahdist gunboat without moving
        // (a river march to its own hex). Egyptian fire 6+6 +1 = 13: L units
        // 45% disrupted, 10% eliminated; the Mahdist gunboat fires back at
        // once, 1+1 +1 = 3: nothing.
        let at = Hex::new(19, 40);
        let gb = b.place("egy-gunboat", 1, "1940");
        let theirs = b.place("mah-gunboat", 1, "1939");
        let mut o = march(at, vec![Leg::River(at)]);
        o.marches[0].on_contact = OnContact::AttackAny;
        let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1]);
        assert_eq!(
            common::bench::rolls(&r, "fire table"),
            vec![
                "12 = 13 -> 13-14: V 30/5, R 35/10, L 45/10, S 55/10",
                "2 = 3 -> 4 or less: V -, R -, L -, S -",
            ]
        );
        let status = |id: &dervish::state::UnitId| {
            r.state.units.iter().find(|u| u.id == *id).unwrap().status
        };
        assert_eq!(status(&theirs[0]), Status::Pool);
        assert_eq!(status(&gb[0]), Status::OnMap(at));
        assert!(
            !r.state
                .units
                .iter()
                .find(|u| u.id == gb[0])
                .unwrap()
                .disrupted
        );
    }

    #[test]
    fn rule_8_23_boats_ride_a_rail_march_then_carry_the_stack_by_river() {
        let mut b = Bench::new("khartoum");
        // Wady Halfa to Sarras by rail, the boat riding with the stack;
        // then up the Second Cataract reach to Akasha by river: 1D6+6 = 7
        // hexes upstream on unnavigable water, a cataract on the way (wreck
        // roll 1+1, safe) and the roll after movement (1+1, safe).
        let inf = b.place("brit-inf", 1, "Wady Halfa");
        let boat = b.place("brit-boat", 1, "Wady Halfa");
        let akasha = b.hex("Akasha");
        let r = b.play(
            Side::Egyptian,
            &march(
                b.hex("Wady Halfa"),
                vec![Leg::Rail(b.hex("Sarras")), Leg::River(akasha)],
            ),
            &[1, 1, 1, 1, 1],
        );
        assert_eq!(set_aside(&r), Vec::<String>::new());
        let paths: Vec<Vec<Hex>> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Moved { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            paths,
            vec![
                vec![Hex::new(10, 2), Hex::new(9, 2), b.hex("Sarras")],
                vec![Hex::new(8, 4), Hex::new(7, 4), Hex::new(7, 5), akasha],
            ]
        );
        assert_eq!(
            common::bench::rolls(&r, "river movement"),
            vec!["1 = 7 -> 7 hexes"]
        );
        assert_eq!(b.at(&r, &inf[0]), Some(akasha));
        assert_eq!(b.at(&r, &boat[0]), Some(akasha));
    }

    #[test]
    fn rule_8_22_boats_ride_the_railway_only_to_a_hex_beside_a_river() {
        let mut b = Bench::new("khartoum");
        b.state.rail_built.insert("Souakim - Berber".into(), 26);
        let berber = b.hex("Berber");
        let obak = b.hex("Obak");
        assert!(!b.scn.map.is_riverside(obak));
        let inf = b.place("brit-inf", 1, "Berber");
        let boat = b.place("brit-boat", 1, "Berber");
        let r = b.play(Side::Egyptian, &march(berber, vec![Leg::Rail(obak)]), &[]);
        assert_eq!(b.at(&r, &inf[0]), Some(obak));
        assert_eq!(
            b.at(&r, &boat[0]),
            Some(berber),
            "the boat stays beside the Nile"
        );
        let mut b2 = Bench::new("khartoum");
        b2.state.rail_built.insert("Souakim - Berber".into(), 26);
        let boat = b2.place("brit-boat", 1, "Berber");
        let r = b2.play(Side::Egyptian, &march(berber, vec![Leg::Rail(obak)]), &[]);
        assert!(
            set_aside(&r)[0].contains("ride the railway only to a hex beside a river"),
            "{:?}",
            set_aside(&r)
        );
        assert_eq!(b2.at(&r, &boat[0]), Some(berber));
    }
}
