//! The turn engine, rule by rule, on small hand-made situations on the real
//! map with fixed dice. Each test names the rule it checks.

mod common;

use common::bench::{Bench, march, set_aside, stopped};

use dervish::dice::Dice;
use dervish::engine::events::{Decision, Event};
use dervish::engine::orders::{DropOff, Leg, MarchOrder, OnContact, Orders, Selection};
use dervish::engine::{TurnResult, play_player_turn};
use dervish::geo::Hex;
use dervish::scenario::{DataSet, Side};
use dervish::state::Status;
use dervish::state::setup::{Placements, initial_state};

fn march_lines(r: &TurnResult) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled(t) if t.table.starts_with("march") => {
                Some(format!("{} = {} -> {}", t.roll.result, t.total, t.line))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn rule_8_31_march_moves_up_to_the_slowest_units_allowance() {
    let mut b = Bench::new("khartoum");
    // Two Egyptian infantry (6) and a gun (5) at Berber march south.
    let inf = b.place("egy-inf-R", 2, "Berber");
    b.place("egy-gun", 1, "Berber");
    let from = b.hex("Berber");
    let dest = b.hex("Khartoum");
    let r = b.play(Side::Egyptian, &march(from, vec![Leg::To(dest)]), &[4, 4]);
    assert_eq!(march_lines(&r), vec!["8 = 8 -> 7+: March"]);
    let mp = r.events.iter().find_map(|e| {
        if let Event::MarchResult {
            movement_points, ..
        } = e
        {
            Some(*movement_points)
        } else {
            None
        }
    });
    assert_eq!(mp, Some(5), "a gun's allowance of 5 limits the stack");
    let moved: u32 = r
        .events
        .iter()
        .find_map(|e| {
            if let Event::Moved { cost, .. } = e {
                Some(*cost)
            } else {
                None
            }
        })
        .unwrap();
    assert!(moved <= 5, "moved {moved} MP");
    let now = b.at(&r, &inf[0]).unwrap();
    assert_ne!(now, from);
    assert!(from.distance(now) <= 5);
}

#[test]
fn rule_8_31_no_march_ends_the_stacks_marching_for_the_turn() {
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-R", 2, "Berber");
    let from = b.hex("Berber");
    let dest = b.hex("Khartoum");
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::To(dest), Leg::To(dest), Leg::To(dest)]),
        &[1, 2],
    );
    assert_eq!(
        march_lines(&r),
        vec!["3 = 3 -> 3 or less: No March"],
        "no second roll after No March"
    );
    assert_eq!(b.at(&r, &inf[0]), Some(from));
}

#[test]
fn rule_8_31_march_with_attrition_disrupts_at_least_one_unit_before_moving() {
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-S", 3, "Berber");
    let from = b.hex("Berber");
    // 2+2 = 4: March with 50% attrition: 3 units -> 1 (rounded down, at least one).
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::To(b.hex("Khartoum"))]),
        &[2, 2],
    );
    assert_eq!(
        march_lines(&r),
        vec!["4 = 4 -> 4: March with 50% attrition"]
    );
    let disrupted: Vec<_> = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::Disrupted { unit, cause, .. } if inf.contains(unit) && cause.contains("march attrition")))
        .collect();
    assert_eq!(disrupted.len(), 1);
    // The disrupted unit halves its allowance (9.7): 6 -> 3.
    let mp = r.events.iter().find_map(|e| {
        if let Event::MarchResult {
            movement_points, ..
        } = e
        {
            Some(*movement_points)
        } else {
            None
        }
    });
    assert_eq!(mp, Some(3));
}

#[test]
fn rule_8_31_three_marches_at_most() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Berber");
    let from = b.hex("Berber");
    let k = b.hex("Khartoum");
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
    assert_eq!(march_lines(&r).len(), 3);
}

#[test]
fn rule_8_21_terrain_costs_and_river_crossings() {
    let mut b = Bench::new("khartoum");
    // Metammeh (west bank) to Shendi (east bank) across one river hexside.
    let inf = b.place("egy-inf-R", 1, "Metammeh");
    let from = b.hex("Metammeh");
    let shendi = b.hex("Shendi");
    assert!(b.scn.map.crosses_river(from, shendi));
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::Path(vec![shendi])]),
        &[6, 6],
    );
    let cost = r.events.iter().find_map(|e| {
        if let Event::Moved { cost, .. } = e {
            Some(*cost)
        } else {
            None
        }
    });
    assert_eq!(cost, Some(1 + 3), "clear hex 1 + river hexside 3");
    assert_eq!(b.at(&r, &inf[0]), Some(shendi));
    // A friendly boat in the hex moved from waives the river cost.
    b.place("brit-boat", 1, "Metammeh");
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::Path(vec![shendi])]),
        &[6, 6],
    );
    let cost = r.events.iter().find_map(|e| {
        if let Event::Moved { cost, .. } = e {
            Some(*cost)
        } else {
            None
        }
    });
    assert_eq!(cost, Some(1));
}

#[test]
fn rule_8_21_no_river_crossing_beside_an_enemy_gunboat() {
    let mut b = Bench::new("khartoum");
    let map = b.scn.map.clone();
    // A river hexside between two open hexes, and an enemy gunboat beside
    // the far bank only.
    let (a, c, g) = map
        .rivers()
        .iter()
        .flat_map(|r| r.hexsides.iter())
        .find_map(|s| {
            let (a, c) = s.hexes();
            let open = |h: Hex| map.is_land(h) && map.settlement_at(h).is_none();
            if !open(a) || !open(c) {
                return None;
            }
            let g = c
                .neighbours()
                .into_iter()
                .find(|g| *g != a && g.distance(a) > 1 && open(*g))?;
            Some((a, c, g))
        })
        .unwrap();
    b.place("egy-inf-R", 1, &a.to_string());
    b.place("mah-gunboat", 1, &g.to_string());
    let r = b.play(Side::Egyptian, &march(a, vec![Leg::Path(vec![c])]), &[6, 6]);
    assert_eq!(
        stopped(&r),
        vec!["no crossing of a river into or from a hex next to an enemy gunboat (8.21)"]
    );
}

#[test]
fn rule_8_2_sea_hexes_may_not_be_entered() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Souakim");
    let from = b.hex("Souakim");
    let sea = from
        .neighbours()
        .into_iter()
        .find(|h| !b.scn.map.is_land(*h))
        .unwrap();
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::Path(vec![sea])]),
        &[6, 6],
    );
    assert!(
        stopped(&r)[0].contains("is sea and may not be entered (8.2)"),
        "{:?}",
        stopped(&r)
    );
}

#[test]
fn rule_8_2_no_unit_enters_a_hex_it_cannot_pay_for() {
    let mut b = Bench::new("khartoum");
    b.place("egy-gun", 1, "Metammeh");
    let from = b.hex("Metammeh");
    // 4 MP left after... a gun has 5 MP: Shendi costs 4, the next clear hex fits, a sixth MP does not.
    let shendi = b.hex("Shendi");
    let beyond = shendi
        .neighbours()
        .into_iter()
        .find(|h| *h != from && b.scn.map.is_land(*h) && !b.scn.map.crosses_river(shendi, *h))
        .unwrap();
    let further = beyond
        .neighbours()
        .into_iter()
        .find(|h| *h != shendi && b.scn.map.is_land(*h) && !b.scn.map.crosses_river(beyond, *h))
        .unwrap();
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::Path(vec![shendi, beyond, further])]),
        &[6, 6],
    );
    let s = stopped(&r);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(
        s[0].contains("movement points and 0 are left (8.2)") || s[0].contains("are left"),
        "{s:?}"
    );
}

#[test]
fn rule_8_2_hexes_may_not_be_skipped() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Berber");
    let from = b.hex("Berber");
    let far = Hex::new(from.col, from.row + 2);
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::Path(vec![far])]),
        &[6, 6],
    );
    assert!(stopped(&r)[0].contains("hexes may not be skipped (8.2)"));
}

#[test]
fn rule_7_1_a_leaders_strategic_value_is_added_to_each_march_roll() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 2, "Berber");
    b.leader("J. Stewart", "Berber");
    let from = b.hex("Berber");
    let k = b.hex("Khartoum");
    let mut orders = march(from, vec![Leg::To(k), Leg::To(k)]);
    orders.marches[0].leader_bonus = Some("J. Stewart".into());
    let r = b.play(Side::Egyptian, &orders, &[3, 3, 3, 3]);
    assert_eq!(
        march_lines(&r),
        vec!["6 = 7 -> 7+: March", "6 = 7 -> 7+: March"]
    );
    assert!(r.events.iter().any(|e| matches!(e, Event::LeaderHelps { leader, decided_by: Decision::Orders, .. } if leader == "J. Stewart")));
}

#[test]
fn rule_7_0_a_c_in_cs_values_are_always_used() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 2, "Berber");
    b.leader("J. Stewart", "Berber");
    b.leader("Gordon", "Berber");
    let from = b.hex("Berber");
    let mut orders = march(from, vec![Leg::To(b.hex("Khartoum"))]);
    orders.marches[0].leader_bonus = Some("J. Stewart".into());
    let r = b.play(Side::Egyptian, &orders, &[3, 3]);
    // Gordon (C-in-C, strategic 2) is used, not J. Stewart (1).
    assert_eq!(march_lines(&r), vec!["6 = 8 -> 7+: March"]);
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, Event::LeaderHelps { leader, .. } if leader == "Gordon"))
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
fn rule_8_1_a_stack_that_has_marched_may_not_march_again() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Berber");
    let from = b.hex("Berber");
    let k = b.hex("Khartoum");
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
fn rule_9_12_besieged_units_may_not_leave_and_none_may_enter() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 2, "Berber");
    let berber = b.hex("Berber");
    let next = berber
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h))
        .unwrap();
    let besieger = next.to_string();
    b.place("mah-S", 1, &besieger);
    let r = b.play(
        Side::Egyptian,
        &march(berber, vec![Leg::To(b.hex("Khartoum"))]),
        &[6, 6],
    );
    assert!(
        set_aside(&r)[0].contains("under siege"),
        "{:?}",
        set_aside(&r)
    );
    // A relief column may not enter the besieged hex.
    let mut b2 = Bench::new("khartoum");
    b2.place("egy-inf-R", 2, "Berber");
    b2.place("mah-S", 1, &besieger);
    let other = berber
        .neighbours()
        .into_iter()
        .find(|h| {
            *h != next
                && b2.scn.map.is_land(*h)
                && !b2.scn.map.crosses_river(*h, berber)
                && h.distance(next) > 1
        })
        .unwrap();
    b2.place("egy-inf-L", 1, &other.to_string());
    let r = b2.play(
        Side::Egyptian,
        &march(other, vec![Leg::Path(vec![berber])]),
        &[6, 6],
    );
    assert!(
        stopped(&r)[0].contains("under siege: no new unit may enter"),
        "{:?}",
        stopped(&r)
    );
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, Event::UnderSiege { hexes } if hexes.contains(&berber)))
    );
}

#[test]
fn rule_2_2_no_mahdist_unit_beside_the_nile_from_abou_hamed_northwards() {
    let mut b = Bench::new("el-obeid");
    let ah = b.hex("Abou Hamed");
    let start = ah
        .neighbours()
        .into_iter()
        .chain(ah.within(3))
        .find(|h| b.scn.map.is_land(*h) && !b.scn.map.is_riverside(*h) && h.distance(ah) >= 2)
        .unwrap();
    b.place("mah-S", 1, &start.to_string());
    let r = b.play(Side::Mahdist, &march(start, vec![Leg::To(ah)]), &[6, 6]);
    let s = stopped(&r);
    assert!(
        s.iter().any(|x| x.contains("from Abou Hamed northwards"))
            || s.iter().any(|x| x.contains("no land route")),
        "{s:?}"
    );
}

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
fn rule_5_2_iv_an_expended_supply_unit_keeps_the_hex_in_supply() {
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-R", 2, "Dongola");
    let sup = b.place("brit-supply", 1, "Dongola");
    let dongola = b.hex("Dongola");
    let orders = Orders {
        expend_supply: vec![dongola],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &orders, &[1, 1]);
    assert!(r.events.iter().any(|e| matches!(
        e,
        Event::SupplyExpended {
            decided_by: Decision::Orders,
            ..
        }
    )));
    assert!(matches!(
        r.state
            .units
            .iter()
            .find(|u| u.id == sup[0])
            .unwrap()
            .status,
        Status::AwaitingReplacement(_)
    ));
    assert!(
        r.state
            .units
            .iter()
            .filter(|u| inf.contains(&u.id))
            .all(|u| !u.disrupted && u.hex().is_some())
    );
    // Kept: the stack rolls, and 1+1 on the attrition table hurts.
    let orders = Orders {
        keep_supply: vec![dongola],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &orders, &[1, 1]);
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, Event::Rolled(t) if t.table == "attrition table"))
    );
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, Event::Disrupted { .. } | Event::Eliminated { .. }))
    );
}

#[test]
fn rule_5_3_iv_every_mahdist_stack_rolls_for_attrition() {
    let mut b = Bench::new("khartoum");
    b.place("mah-S", 10, "Duem");
    b.place("mah-S", 2, "Kawa");
    let r = b.play(Side::Mahdist, &Orders::default(), &[]);
    let rolls = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::Rolled(t) if t.table == "attrition table"))
        .count();
    assert_eq!(rolls, 2);
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
fn rule_5_2_v_disrupted_units_roll_to_recover_with_a_leaders_strategic_rating() {
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-R", 2, "Dongola");
    b.place("brit-supply", 1, "Dongola");
    for u in b.state.units.iter_mut().filter(|u| inf.contains(&u.id)) {
        u.disrupted = true;
    }
    b.leader("Gordon", "Dongola");
    let dongola = b.hex("Dongola");
    let orders = Orders {
        expend_supply: vec![dongola],
        ..Orders::default()
    };
    // Recovery D6: 2 + Gordon's 2 = 4 recovers; 1 + 2 = 3 does not.
    let r = b.play(Side::Egyptian, &orders, &[2, 1]);
    let lines: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled(t) if t.table == "recovery table" => {
                Some(format!("{} -> {}", t.total, t.line))
            }
            _ => None,
        })
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        r.state
            .units
            .iter()
            .filter(|u| inf.contains(&u.id) && u.disrupted)
            .count(),
        1
    );
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
fn rule_7_0_a_leader_alone_marches_only_to_a_friendly_stack() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 1, "Metammeh");
    b.place("egy-inf-R", 1, "Shendi");
    b.place("egy-inf-R", 1, "Berber");
    b.leader("J. Stewart", "Metammeh");
    let leader_only = |to: Hex| Orders {
        marches: vec![MarchOrder {
            units: Selection::Units {
                units: vec![],
                leaders: vec!["J. Stewart".into()],
            },
            ..MarchOrder::stack(b.hex("Metammeh"), vec![Leg::To(to)])
        }],
        ..Orders::default()
    };
    // To Shendi, across the river: 1 + 3 movement points, within 8.
    let r = b.play(Side::Egyptian, &leader_only(b.hex("Shendi")), &[6, 6]);
    let l = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "J. Stewart")
        .unwrap();
    assert_eq!(l.hex, Some(b.hex("Shendi")));
    // Berber is too far for one march: he stays rather than stand alone.
    let r = b.play(Side::Egyptian, &leader_only(b.hex("Berber")), &[6, 6]);
    let l = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "J. Stewart")
        .unwrap();
    assert_eq!(l.hex, Some(b.hex("Metammeh")));
    assert!(stopped(&r)[0].contains("may not stand alone (7.0)"));
    // Nowhere to join: set aside.
    let r = b.play(Side::Egyptian, &leader_only(b.hex("Korti")), &[6, 6]);
    assert!(set_aside(&r)[0].contains("no friendly stack at Korti"));
}

#[test]
fn rule_7_0_leaders_go_with_the_last_units_to_leave_a_hex() {
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-R", 2, "Berber");
    b.leader("J. Stewart", "Berber");
    let from = b.hex("Berber");
    let orders = Orders {
        marches: vec![MarchOrder {
            units: Selection::Units {
                units: inf.clone(),
                leaders: vec![],
            },
            ..MarchOrder::stack(from, vec![Leg::To(b.hex("Khartoum"))])
        }],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &orders, &[6, 6]);
    let l = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "J. Stewart")
        .unwrap();
    assert_eq!(l.hex, b.at(&r, &inf[0]));
    assert_ne!(l.hex, Some(from));
}

#[test]
fn rule_8_24_a_camel_carries_a_supply_unit_at_the_camels_rate() {
    let mut b = Bench::new("khartoum");
    b.place("brit-camel-corps", 2, "Korti");
    b.place("brit-supply", 1, "Korti");
    let from = b.hex("Korti");
    let mp = |r: &TurnResult| {
        r.events.iter().find_map(|e| {
            if let Event::MarchResult {
                movement_points, ..
            } = e
            {
                Some(*movement_points)
            } else {
                None
            }
        })
    };
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::To(b.hex("Metammeh"))]),
        &[6, 6],
    );
    let slow = mp(&r).unwrap();
    b.place("brit-camel", 1, "Korti");
    let r = b.play(
        Side::Egyptian,
        &march(from, vec![Leg::To(b.hex("Metammeh"))]),
        &[6, 6],
    );
    let fast = mp(&r).unwrap();
    assert!(
        fast > slow,
        "with a camel the supply moves at the camel's rate: {slow} -> {fast}"
    );
}

#[test]
fn rule_8_24_two_camel_corps_dismount_into_two_infantry_and_a_camel() {
    let mut b = Bench::new("khartoum");
    let cc = b.place("brit-camel-corps", 2, "Korti");
    for u in b.state.units.iter_mut().filter(|u| u.id == cc[0]) {
        u.name = Some("Guards Camel Corps".into());
        u.strength = 2;
    }
    let orders = Orders {
        dismount: vec![(cc[0].clone(), cc[1].clone())],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &orders, &[]);
    let korti = b.hex("Korti");
    let here: Vec<_> = r
        .state
        .units
        .iter()
        .filter(|u| u.hex() == Some(korti))
        .collect();
    assert_eq!(
        here.iter().filter(|u| &*u.unit_type == "brit-inf").count(),
        2
    );
    assert_eq!(
        here.iter()
            .filter(|u| &*u.unit_type == "brit-camel")
            .count(),
        1
    );
    assert_eq!(
        here.iter()
            .filter(|u| &*u.unit_type == "brit-camel-corps")
            .count(),
        0
    );
    let guards = here
        .iter()
        .find(|u| u.name.as_deref() == Some("Guards Camel Corps"))
        .unwrap();
    assert_eq!((&*guards.unit_type, guards.strength), ("brit-inf", 2));
}

#[test]
fn rule_6_1_a_land_stack_entering_enemy_river_units_displaces_them_and_may_capture() {
    let mut b = Bench::new("khartoum");
    let metammeh = b.hex("Metammeh");
    let shendi = b.hex("Shendi");
    let from = metammeh
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h) && !b.scn.map.crosses_river(*h, metammeh) && *h != shendi)
        .unwrap();
    b.place("mah-S", 2, &from.to_string());
    let boats = b.place("egy-gunboat", 2, "Metammeh");
    let orders = march(from, vec![Leg::Path(vec![metammeh])]);
    // March 6+6; capture rolls 6 (captured) and 2 (displaced).
    let r = b.play(Side::Mahdist, &orders, &[6, 6, 6, 2]);
    let ansar_here = r
        .state
        .units
        .iter()
        .filter(|u| u.hex() == Some(metammeh) && &*u.unit_type == "mah-S")
        .count();
    assert_eq!(ansar_here, 2, "the land stack entered");
    let captured = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::Captured { .. }))
        .count();
    assert_eq!(captured, 1);
    let mah_gunboats = r
        .state
        .units
        .iter()
        .filter(|u| u.hex() == Some(metammeh) && &*u.unit_type == "mah-gunboat")
        .count();
    assert_eq!(mah_gunboats, 1, "a captured gunboat changes colours");
    let other = r
        .state
        .units
        .iter()
        .find(|u| u.id == boats[1])
        .unwrap()
        .hex()
        .unwrap();
    assert_eq!(other.distance(metammeh), 1);
    assert!(b.scn.map.is_riverside(other));
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

mod rivers {
    use super::*;

    fn river_order(from: Hex, to: Hex) -> Orders {
        march(from, vec![Leg::River(to)])
    }

    #[test]
    fn rule_8_23_i_gunboats_carry_a_stack_downstream_any_distance_with_no_roll() {
        let mut b = Bench::new("khartoum");
        let inf = b.place("egy-inf-R", 2, "Duem");
        b.place("egy-gunboat", 2, "Duem");
        let k = b.hex("Khartoum");
        let r = b.play(Side::Egyptian, &river_order(b.hex("Duem"), k), &[]);
        assert_eq!(set_aside(&r), Vec::<String>::new());
        assert_eq!(b.at(&r, &inf[0]), Some(k));
        assert!(
            !r.events
                .iter()
                .any(|e| matches!(e, Event::Rolled(t) if t.table.starts_with("march")))
        );
        let gunboats_at_k = r
            .state
            .units
            .iter()
            .filter(|u| &*u.unit_type == "egy-gunboat" && u.hex() == Some(k))
            .count();
        assert_eq!(gunboats_at_k, 2, "the boats go with their passengers");
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
        assert!(
            set_aside(&r).iter().any(|s| s.contains("(8.23, 2.2)")),
            "{:?}",
            set_aside(&r)
        );
    }

    #[test]
    fn rule_8_23_i_boats_go_upstream_only_2d6_plus_6_hexes() {
        let mut b = Bench::new("khartoum");
        let inf = b.place("egy-inf-R", 1, "Khartoum");
        b.place("brit-boat", 1, "Khartoum");
        let k = b.hex("Khartoum");
        let duem = b.hex("Duem");
        // 2D6 = 1+1, +6: 8 hexes upstream.
        let r = b.play(Side::Egyptian, &river_order(k, duem), &[1, 1]);
        let s = stopped(&r);
        assert!(
            s.iter()
                .any(|x| x.contains("upstream move of 8 hexes is spent")),
            "{s:?} {:?}",
            set_aside(&r)
        );
        let at = b.at(&r, &inf[0]).unwrap();
        assert_ne!(at, duem);
        assert!(at.distance(k) >= 5);
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
        assert!(
            set_aside(&r)
                .iter()
                .any(|s| s.contains("only one march a turn may be by river"))
        );
    }

    #[test]
    fn rule_8_23_iv_a_cataract_stops_the_boats_and_may_wreck_them() {
        let mut b = Bench::new("khartoum");
        let inf = b.place("egy-inf-R", 1, "Khartoum");
        let gb = b.place("egy-gunboat", 1, "Khartoum");
        let k = b.hex("Khartoum");
        let metammeh = b.hex("Metammeh");
        // Downstream through the Sixth Cataract at Sabaloka: the gunboat
        // rolls a 6 there and is wrecked; the passengers stop beside it.
        let r = b.play(Side::Egyptian, &river_order(k, metammeh), &[6, 3, 4]);
        assert!(
            stopped(&r)
                .iter()
                .any(|s| s.contains("wrecked at the Sixth Cataract")),
            "{:?}",
            stopped(&r)
        );
        let at = b.at(&r, &inf[0]).unwrap();
        let beside_cataract = b
            .scn
            .map
            .river_sides_of(at)
            .iter()
            .any(|(_, s)| s.cataract.is_some());
        assert!(beside_cataract, "{at}");
        let status = r.state.units.iter().find(|u| u.id == gb[0]).unwrap().status;
        assert!(matches!(status, Status::Wrecked(_)), "{status:?}");
    }

    #[test]
    fn rule_8_23_iv_a_wrecked_spare_carrier_strands_no_passenger() {
        // "If a unit is wrecked at a cataract hex it[s] passengers stop
        // adjacent to the cataract": one carrier a passenger, so a wrecked
        // spare gunboat leaves the stack to go on with the other.
        let mut b = Bench::new("khartoum");
        let inf = b.place("egy-inf-R", 1, "Khartoum");
        b.place("egy-gunboat", 2, "Khartoum");
        let k = b.hex("Khartoum");
        let metammeh = b.hex("Metammeh");
        // At the Sixth Cataract: the first gunboat rolls 6 (wrecked, out
        // 1+2 turns), the second 1 (safe).
        let r = b.play(Side::Egyptian, &river_order(k, metammeh), &[6, 1, 2, 1]);
        assert_eq!(b.at(&r, &inf[0]), Some(metammeh), "{:?}", stopped(&r));
        let wrecked = r
            .state
            .units
            .iter()
            .filter(|u| &*u.unit_type == "egy-gunboat" && matches!(u.status, Status::Wrecked(_)))
            .count();
        assert!(wrecked >= 1);
    }

    #[test]
    fn rule_8_23_iv_a_wrecked_carriers_passenger_stops_and_the_rest_sail_on() {
        // "If a unit is wrecked at a cataract hex it[s] passengers stop
        // adjacent to the cataract." Two units named one by one board the
        // two gunboats in the hex (8.3); one is wrecked at the Sixth
        // Cataract: its passenger stops beside it, the other sails on.
        let mut b = Bench::new("khartoum");
        let inf = b.place("egy-inf-L", 2, "Khartoum");
        b.place("egy-gunboat", 2, "Khartoum");
        let k = b.hex("Khartoum");
        let o = Orders {
            marches: vec![MarchOrder {
                units: Selection::Units {
                    units: inf.clone(),
                    leaders: vec![],
                },
                ..MarchOrder::stack(k, vec![Leg::River(b.hex("Metammeh"))])
            }],
            ..Orders::default()
        };
        let r = b.play(Side::Egyptian, &o, &[6, 1, 2, 1]);
        let metammeh = b.hex("Metammeh");
        let ends: Vec<Hex> = inf.iter().map(|id| b.at(&r, id).unwrap()).collect();
        assert_eq!(
            ends.iter().filter(|h| **h == metammeh).count(),
            1,
            "{ends:?} {:?}",
            stopped(&r)
        );
        let left = ends.iter().find(|h| **h != metammeh).unwrap();
        assert!(left.distance(metammeh) > 0);
        let said = r.events.iter().any(|e| {
            matches!(e, Event::Note { text } if text.contains("wrecked at the Sixth Cataract") && text.contains("1 unit without a carrier stops"))
        });
        assert!(said, "{:?}", r.events);
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
        assert!(
            set_aside(&r)
                .iter()
                .any(|s| s.contains("began the march phase with them")),
            "{:?}",
            set_aside(&r)
        );
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
    fn rule_6_1_gunboats_attack_enemy_river_units_and_land_units_stay_out() {
        let mut b = Bench::new("khartoum");
        // Two Egyptian gunboats with an infantry passenger at 1940, a
        // Mahdist boat at 1939 beside them on the Nile. The gunboats alone
        // attack before setting off for Omdurman: fire 4+4, +2 for two
        // gunboats = 10: S units 35% disrupted, 5% eliminated; the boat is
        // eliminated. The Mahdist has no gunboat and does not roll. Boats
        // and gunboats do not count for 9.8, so the combat is drawn and the
        // stack ends its march where it is.
        let at = Hex::new(19, 40);
        let foe = Hex::new(19, 39);
        let inf = b.place("egy-inf-R", 1, "1940");
        let gb = b.place("egy-gunboat", 2, "1940");
        let boat = b.place("mah-boat", 1, "1939");
        let mut o = march(at, vec![Leg::River(b.hex("Omdurman"))]);
        o.marches[0].on_contact = OnContact::AttackHexes(vec![foe]);
        let r = b.play(Side::Egyptian, &o, &[4, 4]);
        assert_eq!(
            combats(&r),
            vec![(
                vec![gb[0].0.to_string(), gb[1].0.to_string()],
                vec![boat[0].0.to_string()]
            )]
        );
        assert_eq!(
            common::bench::rolls(&r, "fire table"),
            vec!["8 = 10 -> 9-10: V 15/0, R 20/5, L 25/5, S 35/5"]
        );
        let boat_status = r
            .state
            .units
            .iter()
            .find(|u| u.id == boat[0])
            .unwrap()
            .status;
        assert_eq!(boat_status, Status::Pool);
        assert!(r.events.iter().any(|e| matches!(e, Event::CombatResult { result, .. } if result.contains("boats and gunboats do not count"))));
        assert_eq!(b.at(&r, &inf[0]), Some(at));
        assert_eq!(b.at(&r, &gb[0]), Some(at));
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
