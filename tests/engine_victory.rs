//! Victory conditions (rules 4.1, 4.2).

mod common;

use common::bench::Bench;
use dervish::engine::TurnResult;
use dervish::engine::orders::{Leg, MarchOrder, OnContact, Orders};
use dervish::geo::Hex;
use dervish::scenario::Side;

/// Play Egyptian and Mahdist turns with no orders, advancing the month,
/// until `turns` Egyptian player turns have been played.
fn months(b: &mut Bench, n: usize) -> TurnResult {
    let mut last = None;
    for _ in 0..n {
        let e = b.play(Side::Egyptian, &Orders::default(), &[]);
        b.state = e.state.clone();
        if b.state.result.is_some() {
            return e;
        }
        let m = b.play(Side::Mahdist, &Orders::default(), &[]);
        b.state = m.state.clone();
        if b.state.result.is_some() {
            return m;
        }
        b.state.month = b.state.month.next().unwrap();
        last = Some(m);
    }
    last.unwrap()
}

fn winner(b: &Bench) -> Option<Option<Side>> {
    b.state.result.as_ref().map(|r| r.winner)
}

#[test]
fn rule_4_1_egyptian_wins_when_neither_city_is_besieged_for_three_egyptian_turns() {
    let mut b = Bench::new("el-obeid");
    b.place("egy-inf-L", 3, "El Obeid");
    b.place("egy-inf-L", 3, "Khartoum");
    // Held by the Egyptians: they were the last to occupy them (3.21, 4.1).
    for town in ["El Obeid", "Khartoum"] {
        let h = b.hex(town);
        b.state.control.insert(h, Side::Egyptian);
    }
    b.place("mah-S", 3, "Duem");
    months(&mut b, 2);
    assert_eq!(winner(&b), None, "two turns are not enough");
    months(&mut b, 1);
    assert_eq!(winner(&b), Some(Some(Side::Egyptian)));
}

#[test]
fn rule_4_1_mahdist_wins_by_besieging_khartoum_for_three_egyptian_turns() {
    let mut b = Bench::new("el-obeid");
    b.place("egy-inf-L", 3, "El Obeid");
    b.place("egy-inf-L", 6, "Khartoum");
    let k = b.hex("Khartoum");
    let next = k
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h) && b.scn.map.settlement_at(*h).is_none())
        .unwrap();
    b.place("mah-S", 6, &next.to_string());
    b.leader("Mahdi", &next.to_string());
    months(&mut b, 3);
    assert_eq!(winner(&b), Some(Some(Side::Mahdist)));
}

#[test]
fn rule_4_1_the_khalifas_death_is_an_instant_egyptian_win() {
    let mut b = Bench::new("el-obeid");
    b.place("egy-inf-L", 3, "El Obeid");
    b.place("mah-S", 3, "Duem");
    b.state
        .leaders
        .iter_mut()
        .find(|l| l.name == "Khalifa")
        .unwrap()
        .removed = true;
    let r = b.play(Side::Mahdist, &Orders::default(), &[]);
    assert_eq!(r.state.result.unwrap().winner, Some(Side::Egyptian));
}

#[test]
fn rule_4_2_british_supply_in_khartoum_wins_at_the_end_of_a_mahdist_turn() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 2, "Khartoum");
    b.place("brit-supply", 1, "Khartoum");
    b.place("mah-S", 3, "Duem");
    let r = b.play(
        Side::Egyptian,
        &Orders {
            keep_supply: vec![b.hex("Khartoum")],
            ..Orders::default()
        },
        &[],
    );
    assert_eq!(r.state.result, None, "only at the end of a Mahdist turn");
    b.state = r.state;
    let r = b.play(Side::Mahdist, &Orders::default(), &[]);
    assert_eq!(r.state.result.unwrap().winner, Some(Side::Egyptian));
}

#[test]
fn rule_4_2_a_british_attrition_loss_caps_the_egyptian_at_a_draw() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 2, "Khartoum");
    b.place("civilian", 1, "Souakim");
    b.place("egy-inf-R", 1, "Souakim");
    b.place("mah-S", 3, "Duem");
    b.state.british_attrition_loss = true;
    let r = b.play(Side::Mahdist, &Orders::default(), &[]);
    let result = r.state.result.unwrap();
    assert_eq!(result.winner, None);
    assert!(
        result.reason.contains("draw at best (4.2)"),
        "{}",
        result.reason
    );
}

#[test]
fn rule_4_2_mahdist_wins_when_a_british_leaders_stack_is_destroyed_in_combat() {
    let mut b = Bench::new("khartoum");
    // Gordon with one battalion in the open, surrounded: beaten, he cannot retreat.
    let g = Hex::new(21, 30);
    b.place("egy-inf-S", 1, &g.to_string());
    b.leader("Gordon", &g.to_string());
    let ring: Vec<Hex> = g.neighbours().to_vec();
    for h in &ring {
        b.place("mah-S", 4, &h.to_string());
    }
    b.place("egy-inf-R", 1, "Khartoum");
    let mut orders = Orders {
        marches: vec![MarchOrder::stack(ring[0], vec![Leg::Path(vec![])])],
        ..Orders::default()
    };
    orders.marches[0].on_contact = OnContact::AttackHexes(vec![g]);
    // Mahdist march 6+6; no fire (S units); melee Mahdist 6+6, Egyptian 1+1.
    let r = b.play(Side::Mahdist, &orders, &[6, 6, 6, 6, 1, 1]);
    assert!(
        r.state.british_leader_stack_destroyed,
        "{}",
        dervish::render::log::render(&b.scn.map, &r.events)
    );
    assert_eq!(r.state.result.unwrap().winner, Some(Side::Mahdist));
}

#[test]
fn rule_4_2_the_game_is_a_draw_at_the_end_of_october_1885() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-R", 2, "Berber");
    b.place("mah-S", 3, "Duem");
    b.state.month = "1885-10".parse().unwrap();
    let r = b.play(Side::Egyptian, &Orders::default(), &[]);
    assert_eq!(r.state.result, None);
    b.state = r.state;
    let r = b.play(Side::Mahdist, &Orders::default(), &[]);
    let result = r.state.result.unwrap();
    assert_eq!(result.winner, None);
    assert!(result.reason.contains("October 1885"));
}
