//! Random events, reinforcements and replacements (rules 2.2, 2.3, 3.1-3.3,
//! 3.21, 4.2, 5.2 I-II, 5.3 I-II) on the shipped scenarios, with fixed dice.
//! A D66 roll of 4,4 (44) is "no event" on every table.

mod common;

use dervish::dice::{Dice, FixedDice};
use dervish::engine::events::Event;
use dervish::engine::orders::Orders;
use dervish::engine::{TurnResult, play_player_turn};
use dervish::geo::Hex;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::setup::{Placements, initial_state};
use dervish::state::{GameState, Status};

const QUIET: [u32; 2] = [4, 4];

fn start(id: &str) -> (Scenario, GameState) {
    let scn = DataSet::embedded().unwrap().scenario(id).unwrap();
    let (state, _) = initial_state(&scn, &Placements::new()).unwrap();
    (scn, state)
}

fn play(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    orders: &Orders,
    faces: &[u32],
) -> TurnResult {
    let mut dice = Dice::new(FixedDice::with_fallback(faces.iter().copied(), 6));
    play_player_turn(scn, state.clone(), side, orders, &mut dice)
}

fn hex(scn: &Scenario, p: &str) -> Hex {
    scn.map.resolve(p).unwrap()
}

fn named_at(r: &TurnResult, name: &str) -> Option<Hex> {
    r.state
        .units
        .iter()
        .find(|u| u.name.as_deref() == Some(name))
        .and_then(|u| u.hex())
}

fn notes(r: &TurnResult) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| {
            if let Event::Note { text } = e {
                Some(text.clone())
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn rule_2_3_the_gordon_relief_expedition_arrives_in_september_1884() {
    let (scn, mut state) = start("khartoum");
    state.month = "1884-08".parse().unwrap();
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
    assert_eq!(named_at(&r, "Black Watch"), None, "not before September");
    state.month = "1884-09".parse().unwrap();
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
    let halfa = hex(&scn, "Wady Halfa");
    assert_eq!(named_at(&r, "Black Watch"), Some(halfa));
    assert_eq!(named_at(&r, "Guards Camel Corps"), Some(halfa));
    let wolseley = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "Wolseley")
        .unwrap();
    assert_eq!(wolseley.hex, Some(halfa));
    assert!(r.state.arrived.contains("gordon-relief"));
}

#[test]
fn rule_2_3_boats_and_gunboats_are_never_placed_at_souakim() {
    let (scn, mut state) = start("khartoum");
    state.month = "1884-09".parse().unwrap();
    let souakim = hex(&scn, "Souakim");
    let mut orders = Orders::default();
    orders.place.insert("gordon-relief".into(), souakim);
    let r = play(&scn, &state, Side::Egyptian, &orders, &QUIET);
    assert_eq!(named_at(&r, "Black Watch"), Some(souakim));
    for u in r
        .state
        .units
        .iter()
        .filter(|u| u.origin.as_deref() == Some("gordon-relief"))
    {
        let ty = scn.units.get(&u.unit_type).unwrap();
        if ty.kind.is_river_unit() {
            assert_ne!(u.hex(), Some(souakim), "{}", u.id);
            assert!(scn.map.is_riverside(u.hex().unwrap()));
        }
    }
}

#[test]
fn rule_3_1_units_arriving_where_the_enemy_stands_are_lost() {
    let (scn, mut state) = start("khartoum");
    state.month = "1884-10".parse().unwrap();
    state.arrived.insert("gordon-relief".into());
    let halfa = hex(&scn, "Wady Halfa");
    let egy_at_halfa: Vec<usize> = (0..state.units.len())
        .filter(|&i| state.units[i].hex() == Some(halfa))
        .collect();
    for i in egy_at_halfa {
        state.units[i].status = Status::Pool;
    }
    let m = state
        .units
        .iter()
        .position(|u| &*u.unit_type == "mah-S" && u.status == Status::Pool)
        .unwrap();
    state.units[m].status = Status::OnMap(halfa);
    let boats_before = state
        .units
        .iter()
        .filter(|u| &*u.unit_type == "brit-boat" && u.hex().is_some())
        .count();
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
    assert!(
        notes(&r)
            .iter()
            .any(|n| n.contains("boats-1884-10 arrives where the enemy stands and is lost (3.1)")),
        "{:?}",
        notes(&r)
    );
    let boats_after = r
        .state
        .units
        .iter()
        .filter(|u| &*u.unit_type == "brit-boat" && u.hex().is_some())
        .count();
    assert_eq!(boats_before, boats_after);
}

#[test]
fn rule_2_2_osman_digma_comes_with_2d6_s_units_when_el_obeid_falls() {
    let (scn, mut state) = start("el-obeid");
    let obeid = hex(&scn, "El Obeid");
    state.control.insert(obeid, Side::Mahdist);
    // Event 44: none. Arrival D6 3 - 1 (Egyptians hold Berber): no result.
    // Osman's units: 3+4 = 7.
    let r = play(
        &scn,
        &state,
        Side::Mahdist,
        &Orders::default(),
        &[4, 4, 3, 3, 4],
    );
    let osman = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "Osman Digma")
        .unwrap();
    let h = osman.hex.expect("Osman Digma is placed");
    assert!(scn.map.in_souakim_extension(h));
    let with_him = r
        .state
        .units
        .iter()
        .filter(|u| u.hex() == Some(h) && u.side == Side::Mahdist)
        .count();
    assert_eq!(with_him, 7);
}

#[test]
fn rule_3_21_the_arrival_roll_adds_units_from_the_pool_to_a_friendly_stack() {
    let (scn, state) = start("el-obeid");
    // Event 44; arrival 5 - 1 (Egyptians hold Berber) = 4: add D6; D6 = 3;
    // three draws from the pool.
    let r = play(
        &scn,
        &state,
        Side::Mahdist,
        &Orders::default(),
        &[4, 4, 5, 3, 1, 1, 1],
    );
    let arrived: usize = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::Arrived { id, .. } if id == "a Mahdist recruit"))
        .count();
    assert_eq!(arrived, 3);
    let draws = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::Rolled(t) if t.roll.purpose == "draw from the Mahdist pool"))
        .count();
    assert_eq!(draws, 3, "every draw from the pool is in the log");
}

#[test]
fn rule_3_21_no_units_leave_when_fewer_than_seven_are_on_the_map() {
    let (scn, mut state) = start("el-obeid");
    let keep = 5;
    let mut kept = 0;
    for u in state
        .units
        .iter_mut()
        .filter(|u| u.side == Side::Mahdist && u.hex().is_some())
    {
        if kept < keep {
            kept += 1;
        } else {
            u.status = Status::Pool;
        }
    }
    // Arrival roll 1: remove D6, but only 5 units are on the map.
    let r = play(&scn, &state, Side::Mahdist, &Orders::default(), &[4, 4, 1]);
    assert!(
        notes(&r)
            .iter()
            .any(|n| n.contains("fewer than 7 on the map (3.21)")),
        "{:?}",
        notes(&r)
    );
}

#[test]
fn rule_3_3_british_losses_return_two_turns_later_at_wady_halfa() {
    let (scn, mut state) = start("khartoum");
    state.month = "1884-11".parse().unwrap();
    state.arrived.insert("gordon-relief".into());
    state.arrived.insert("boats-1884-10".into());
    let i = state
        .units
        .iter()
        .position(|u| &*u.unit_type == "brit-inf" && u.status == Status::Pool)
        .unwrap();
    state.units[i].status = Status::AwaitingReplacement("1884-11".parse().unwrap());
    let j = state
        .units
        .iter()
        .position(|u| &*u.unit_type == "brit-inf" && u.status == Status::Pool)
        .unwrap();
    state.units[j].status = Status::AwaitingReplacement("1884-11".parse().unwrap());
    state.units[j].origin = Some("souakim-field-force-1".into());
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
    assert_eq!(r.state.units[i].hex(), Some(hex(&scn, "Wady Halfa")));
    assert_eq!(
        r.state.units[j].hex(),
        Some(hex(&scn, "Souakim")),
        "field force units return at Souakim"
    );
}

#[test]
fn rule_3_3_one_supply_unit_a_turn_from_november_1884() {
    let (scn, mut state) = start("khartoum");
    state.arrived.insert("gordon-relief".into());
    state.arrived.insert("boats-1884-10".into());
    let supplies = |s: &GameState| {
        s.units
            .iter()
            .filter(|u| &*u.unit_type == "brit-supply" && u.hex().is_some())
            .count()
    };
    state.month = "1884-10".parse().unwrap();
    let r = play(
        &scn,
        &state,
        Side::Egyptian,
        &Orders {
            keep_supply: vec![],
            ..Orders::default()
        },
        &QUIET,
    );
    assert_eq!(supplies(&r.state), supplies(&state));
    state.month = "1884-11".parse().unwrap();
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
    let arrived = r.events.iter().any(|e| matches!(e, Event::Arrived { id, hex: h, .. } if id.starts_with("monthly supply") && *h == hex(&scn, "Wady Halfa")));
    assert!(arrived);
}

#[test]
fn rule_4_2_the_penjdeh_crisis_ends_the_game() {
    let (scn, mut state) = start("khartoum");
    state.month = "1885-05".parse().unwrap();
    state.arrived.insert("gordon-relief".into());
    state.arrived.insert("boats-1884-10".into());
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[1, 2]);
    assert!(r.state.ended_by_event);
    let result = r.state.result.expect("the game is over");
    assert_eq!(result.winner, None);
    assert!(result.reason.contains("random event"));
}

#[test]
fn rule_2_3_the_first_field_force_comes_on_its_event() {
    let (scn, mut state) = start("khartoum");
    state.month = "1884-03".parse().unwrap();
    // 2,1 = 21: the 1st Souakim Field Force.
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[2, 1]);
    let souakim = hex(&scn, "Souakim");
    assert_eq!(named_at(&r, "Rifles"), Some(souakim));
    let graham = r.state.leaders.iter().find(|l| l.name == "Graham").unwrap();
    assert_eq!(graham.hex, Some(souakim));
    assert!(
        r.state
            .units
            .iter()
            .filter(|u| u.origin.as_deref() == Some("souakim-field-force-1"))
            .count()
            >= 10
    );
    // Rolled again: it has come, nothing happens.
    state = r.state;
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[2, 1]);
    assert!(
        notes(&r).iter().any(|n| n.contains("already")),
        "{:?}",
        notes(&r)
    );
}

#[test]
fn rule_3_41_the_second_field_force_rolled_first_comes_and_the_railhead_follows_next_turn() {
    // "The railhead is placed in Souakim or Sarras on the turn after the
    // 2nd Souakim Field Force event is rolled": the 2nd Force rolled is the
    // 2nd Force, not the 1st in its place.
    let (scn, mut state) = start("khartoum");
    state.month = "1884-03".parse().unwrap();
    // 3,1 = 31: the 2nd Souakim Field Force, before the 1st has come.
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[3, 1]);
    assert!(r.state.arrived.contains("souakim-field-force-2"));
    assert!(!r.state.arrived.contains("souakim-field-force-1"));
    let railhead = r.state.railhead.clone().expect("the railhead is due");
    assert_eq!(railhead.from, "1884-04".parse().unwrap());
}

#[test]
fn rule_2_3_no_coldstream_guards_while_the_guards_camel_corps_is_in_play() {
    let (scn, mut state) = start("khartoum");
    state.month = "1885-02".parse().unwrap();
    state.arrived.insert("gordon-relief".into());
    state.arrived.insert("boats-1884-10".into());
    state.arrived.insert("souakim-field-force-1".into());
    let i = state
        .units
        .iter()
        .position(|u| &*u.unit_type == "brit-camel-corps" && u.status == Status::Pool)
        .unwrap();
    state.units[i].status = Status::OnMap(hex(&scn, "Korti"));
    state.units[i].name = Some("Guards Camel Corps".into());
    // 1,4 = 14: the 2nd Souakim Field Force (January to March 1885).
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[1, 4]);
    assert!(
        r.state.arrived.contains("souakim-field-force-2"),
        "{:?}",
        notes(&r)
    );
    assert_eq!(named_at(&r, "Scots Guards"), Some(hex(&scn, "Souakim")));
    assert_eq!(named_at(&r, "Coldstream Guards"), None);
    assert!(
        notes(&r)
            .iter()
            .any(|n| n.contains("Guards Camel Corps is still in play"))
    );
}

#[test]
fn rule_3_1_units_may_be_withdrawn_and_count_as_destroyed() {
    let (scn, state) = start("khartoum");
    let id = state
        .units
        .iter()
        .find(|u| &*u.unit_type == "egy-inf-S" && u.hex().is_some())
        .unwrap()
        .id
        .clone();
    let orders = Orders {
        withdraw: vec![id.clone()],
        ..Orders::default()
    };
    let r = play(&scn, &state, Side::Egyptian, &orders, &QUIET);
    let u = r.state.units.iter().find(|u| u.id == id).unwrap();
    assert_eq!(
        u.status,
        Status::Eliminated,
        "Egyptian units are not replaced (3.3)"
    );
}

#[test]
fn rule_7_2_the_mahdi_dies_by_event_and_the_khalifa_succeeds() {
    let (scn, mut state) = start("khartoum");
    state.month = "1885-06".parse().unwrap();
    // 6,6 = 66: the Mahdi dies (once).
    let r = play(&scn, &state, Side::Mahdist, &Orders::default(), &[6, 6, 2]);
    assert!(
        r.state
            .leaders
            .iter()
            .any(|l| l.name == "Mahdi" && l.removed)
    );
    let k = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "Khalifa")
        .unwrap();
    assert!(k.hex.is_some());
    state = r.state;
    let r = play(&scn, &state, Side::Mahdist, &Orders::default(), &[6, 6, 2]);
    assert!(notes(&r).iter().any(|n| n.contains("already happened")));
}

#[test]
fn rule_3_2_a_mahdist_stack_entering_an_enemy_town_gains_recruits_and_boats() {
    use dervish::engine::orders::{Leg, MarchOrder};
    let (scn, mut state) = start("khartoum");
    let berber = hex(&scn, "Berber");
    // Berber's garrison has gone; the town was last held by the Egyptians.
    for u in state.units.iter_mut().filter(|u| u.hex() == Some(berber)) {
        u.status = Status::Pool;
    }
    assert_eq!(state.control.get(&berber), Some(&Side::Egyptian));
    let from = berber
        .neighbours()
        .into_iter()
        .find(|h| {
            scn.map.is_land(*h)
                && !scn.map.crosses_river(*h, berber)
                && scn.map.settlement_at(*h).is_none()
        })
        .unwrap();
    for u in state
        .units
        .iter_mut()
        .filter(|u| &*u.unit_type == "mah-S" && u.status == Status::Pool)
        .take(3)
    {
        u.status = Status::OnMap(from);
    }
    let orders = Orders {
        marches: vec![MarchOrder::stack(from, vec![Leg::Path(vec![berber])])],
        ..Orders::default()
    };
    // Event 44; arrival 3; march 6+6; recruits D6 = 4.
    let r = play(&scn, &state, Side::Mahdist, &orders, &[4, 4, 3, 6, 6, 4]);
    let s_here = r
        .state
        .units
        .iter()
        .filter(|u| u.hex() == Some(berber) && &*u.unit_type == "mah-S")
        .count();
    assert_eq!(s_here, 3 + 4);
    let boats = r
        .state
        .units
        .iter()
        .filter(|u| u.hex() == Some(berber) && &*u.unit_type == "mah-boat")
        .count();
    assert_eq!(boats, 1, "one boat on first entering Berber");
    assert_eq!(r.state.control.get(&berber), Some(&Side::Mahdist));
}

mod rail_and_fleet {
    use super::*;
    use dervish::engine::orders::{Leg, MarchOrder};

    fn clear_hex(state: &mut GameState, hex: Hex) {
        for u in state.units.iter_mut().filter(|u| u.hex() == Some(hex)) {
            u.status = Status::Pool;
        }
        for l in state.leaders.iter_mut().filter(|l| l.hex == Some(hex)) {
            l.hex = None;
        }
    }

    #[test]
    fn rule_8_22_a_rail_move_goes_any_distance_with_no_march_roll() {
        let (scn, mut state) = start("khartoum");
        let halfa = hex(&scn, "Wady Halfa");
        let sarras = hex(&scn, "Sarras");
        clear_hex(&mut state, halfa);
        let ids: Vec<_> = state
            .units
            .iter_mut()
            .filter(|u| &*u.unit_type == "egy-inf-R" && u.status == Status::Pool)
            .take(3)
            .map(|u| {
                u.status = Status::OnMap(halfa);
                u.id.clone()
            })
            .collect();
        let orders = Orders {
            marches: vec![MarchOrder::stack(halfa, vec![Leg::Rail(sarras)])],
            ..Orders::default()
        };
        let r = play(&scn, &state, Side::Egyptian, &orders, &QUIET);
        for id in &ids {
            assert_eq!(
                r.state.units.iter().find(|u| u.id == *id).unwrap().hex(),
                Some(sarras)
            );
        }
        assert!(
            !r.events
                .iter()
                .any(|e| matches!(e, Event::Rolled(t) if t.table.starts_with("march")))
        );
        assert!(
            r.events.iter().any(
                |e| matches!(e, Event::MarchResult { result, .. } if result.contains("by rail"))
            )
        );
    }

    #[test]
    fn rule_8_22_rail_moves_use_built_track_only() {
        let (scn, mut state) = start("khartoum");
        let sarras = hex(&scn, "Sarras");
        let akasha = hex(&scn, "Akasha");
        state
            .units
            .iter_mut()
            .find(|u| &*u.unit_type == "egy-inf-R" && u.status == Status::Pool)
            .unwrap()
            .status = Status::OnMap(sarras);
        let orders = Orders {
            marches: vec![MarchOrder::stack(sarras, vec![Leg::Rail(akasha)])],
            ..Orders::default()
        };
        let r = play(&scn, &state, Side::Egyptian, &orders, &QUIET);
        let aside: Vec<String> = r
            .events
            .iter()
            .filter_map(|e| {
                if let Event::OrderSetAside { reason, .. } = e {
                    Some(reason.clone())
                } else {
                    None
                }
            })
            .collect();
        assert!(
            aside.iter().any(|a| a.contains("no rail line open")),
            "{aside:?}"
        );
    }

    #[test]
    fn rule_3_41_the_railhead_comes_the_month_after_the_second_field_force_and_building_rolls() {
        let (scn, mut state) = start("khartoum");
        state.month = "1885-03".parse().unwrap();
        for id in [
            "gordon-relief",
            "boats-1884-10",
            "souakim-field-force-1",
            "souakim-field-force-2",
        ] {
            state.arrived.insert(id.into());
        }
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        let rh = r.state.railhead.clone().expect("railhead due");
        assert_eq!(rh.from, "1885-04".parse().unwrap());
        let mut state = r.state;
        state.month = "1885-04".parse().unwrap();
        // Building: D6 4, -1 Osman Digma and the railhead both on the Souakim extension = 3: 2 hexes.
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[4, 4, 4]);
        assert_eq!(
            r.state.rail_built.get("Souakim - Berber"),
            Some(&3),
            "{:?}",
            notes(&r)
        );
        assert!(r.events.iter().any(
            |e| matches!(e, Event::Rolled(t) if t.table.starts_with("railway") && t.total == 3)
        ));
    }

    #[test]
    fn rule_3_4_no_building_while_a_mahdist_stands_on_the_built_track() {
        let (scn, mut state) = start("khartoum");
        state.month = "1885-05".parse().unwrap();
        for id in [
            "gordon-relief",
            "boats-1884-10",
            "souakim-field-force-1",
            "souakim-field-force-2",
        ] {
            state.arrived.insert(id.into());
        }
        state.railhead = Some(dervish::state::Railhead {
            line: Some("Souakim - Berber".into()),
            from: "1885-04".parse().unwrap(),
        });
        state.rail_built.insert("Souakim - Berber".into(), 3);
        let line = scn
            .map
            .railways()
            .iter()
            .find(|r| r.name == "Souakim - Berber")
            .unwrap()
            .clone();
        let on_track = line.hexes[1];
        clear_hex(&mut state, on_track);
        state
            .units
            .iter_mut()
            .find(|u| &*u.unit_type == "mah-S" && u.status == Status::Pool)
            .unwrap()
            .status = Status::OnMap(on_track);
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        assert!(
            notes(&r).iter().any(|n| n.contains("no railway building")),
            "{:?}",
            notes(&r)
        );
        assert_eq!(r.state.rail_built.get("Souakim - Berber"), Some(&3));
    }

    #[test]
    fn rule_8_25_the_fleet_carries_a_stack_from_souakim_to_trinkitat() {
        let (scn, state) = start("khartoum");
        let souakim = hex(&scn, "Souakim");
        let trinkitat = hex(&scn, "Trinkitat");
        let orders = Orders {
            marches: vec![MarchOrder::stack(souakim, vec![Leg::Fleet(trinkitat)])],
            ..Orders::default()
        };
        let r = play(&scn, &state, Side::Egyptian, &orders, &[4, 4, 6, 6]);
        let baker = r.state.leaders.iter().find(|l| l.name == "Baker").unwrap();
        assert_eq!(baker.hex, Some(trinkitat));
        let fleet = r
            .state
            .units
            .iter()
            .find(|u| &*u.unit_type == "fleet")
            .unwrap();
        assert_eq!(fleet.hex(), Some(trinkitat));
    }

    #[test]
    fn rule_7_0_a_leader_left_with_no_unit_goes_with_the_fleet() {
        use dervish::engine::orders::Selection;
        use dervish::state::UnitId;
        let (scn, state) = start("khartoum");
        let souakim = hex(&scn, "Souakim");
        let trinkitat = hex(&scn, "Trinkitat");
        let handub = hex(&scn, "Handub");
        let ids = |list: &[&str]| list.iter().map(|s| UnitId((*s).into())).collect::<Vec<_>>();
        let mut inland = MarchOrder::stack(souakim, vec![Leg::To(handub)]);
        inland.units = Selection::Units {
            units: ids(&["ER05", "ER06", "ER07", "ES01", "EC01", "EG03"]),
            leaders: vec![],
        };
        let mut by_sea = MarchOrder::stack(souakim, vec![Leg::Fleet(trinkitat)]);
        by_sea.units = Selection::Units {
            units: ids(&["BN01"]),
            leaders: vec![],
        };
        let orders = Orders {
            marches: vec![inland, by_sea],
            ..Orders::default()
        };
        let r = play(&scn, &state, Side::Egyptian, &orders, &[4, 4, 6, 6, 6, 6]);
        // Baker stayed with the fleet, and the fleet sailed with BN01: he
        // goes too rather than stand alone at Souakim.
        let baker = r.state.leaders.iter().find(|l| l.name == "Baker").unwrap();
        assert_eq!(baker.hex, Some(trinkitat));
        assert!(
            notes(&r)
                .iter()
                .any(|n| n.contains("Baker goes with the stack")),
            "{:?}",
            notes(&r)
        );
    }

    #[test]
    fn rule_8_25_the_fleet_leaves_while_the_mahdists_hold_souakim() {
        let (scn, mut state) = start("khartoum");
        let souakim = hex(&scn, "Souakim");
        state.control.insert(souakim, Side::Mahdist);
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        let fleet = r
            .state
            .units
            .iter()
            .find(|u| &*u.unit_type == "fleet")
            .unwrap();
        assert_eq!(fleet.status, Status::Reserve);
        let mut state = r.state;
        state.control.insert(souakim, Side::Egyptian);
        let i = state
            .units
            .iter()
            .position(|u| &*u.unit_type == "brit-inf" && u.status == Status::Pool)
            .unwrap();
        state.units[i].status = Status::OnMap(souakim);
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        let fleet = r
            .state
            .units
            .iter()
            .find(|u| &*u.unit_type == "fleet")
            .unwrap();
        assert_eq!(fleet.hex(), Some(souakim));
    }
}

/// Reinforcements, replacements and the Mahdist pool on the empty `Bench`
/// board (issue: arrivals that waited, were lost or went where the rules do
/// not send them).
mod arrivals {
    use super::common::bench::Bench;
    use dervish::engine::events::{Decision, Event};
    use dervish::engine::orders::{MONTHLY_SUPPLY, Orders, RECRUITS};
    use dervish::orders::{self, Input, Order, Vocabulary};
    use dervish::scenario::Side;
    use dervish::state::{Status, UnitId};

    fn awaiting(b: &mut Bench, unit_type: &str) -> UnitId {
        let m = b.state.month;
        let u = b
            .state
            .units
            .iter_mut()
            .find(|u| &*u.unit_type == unit_type && u.status == Status::Pool)
            .unwrap();
        u.status = Status::AwaitingReplacement(m);
        u.id.clone()
    }

    fn status(r: &dervish::engine::TurnResult, id: &UnitId) -> Status {
        r.state.units.iter().find(|u| u.id == *id).unwrap().status
    }

    #[test]
    fn rule_3_3_replacements_never_wait_souakim_takes_them_when_khartoum_is_besieged() {
        // "Scenario 1 replacement units are placed in Khartoum if it is not
        // under siege or Souakim." "Available units must be placed and may
        // not be held off map" (5.2 II).
        let mut b = Bench::new("el-obeid");
        b.state.month = "1883-03".parse().unwrap();
        b.place("egy-inf-L", 1, "Khartoum");
        b.place("mah-S", 1, "Omdurman");
        b.place("egy-inf-S", 1, "Souakim");
        let beside_souakim = b.hex("Souakim").neighbours()[0];
        let h = b.scn.map.describe(beside_souakim);
        b.place("mah-S", 1, &h);
        let id = awaiting(&mut b, "brit-camel");
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        assert_eq!(
            status(&r, &id),
            Status::OnMap(b.hex("Souakim")),
            "both towns besieged: Souakim takes the replacement"
        );
    }

    #[test]
    fn rule_3_3_replacements_due_where_the_enemy_stands_are_permanently_lost() {
        // 3.1: "If new units are due to arrive at a hex that is enemy
        // occupied, those units are permanently lost."
        let mut b = Bench::new("el-obeid");
        b.state.month = "1883-03".parse().unwrap();
        b.place("egy-inf-L", 1, "Khartoum");
        b.place("mah-S", 1, "Omdurman");
        b.place("mah-S", 1, "Souakim");
        let id = awaiting(&mut b, "brit-supply");
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        assert_eq!(status(&r, &id), Status::Eliminated);
        let said = r.events.iter().any(
            |e| matches!(e, Event::Note { text } if text.contains("permanently lost (3.1, 3.3)")),
        );
        assert!(said, "{:?}", r.events);
    }

    #[test]
    fn rule_3_3_the_monthly_supply_unit_arrives_where_the_player_orders() {
        // "The Egyptian player receives 1 supply unit per turn from November
        // 1884, this unit may arrive at Wady Halfa or Souakim."
        let mut b = Bench::new("khartoum");
        b.state.month = "1884-11".parse().unwrap();
        let mut o = Orders::default();
        o.place.insert(MONTHLY_SUPPLY.into(), b.hex("Souakim"));
        let r = b.play(Side::Egyptian, &o, &[]);
        let at: Vec<_> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Arrived {
                    id,
                    hex,
                    decided_by,
                    ..
                } if id.starts_with("monthly supply") => Some((*hex, decided_by.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(at, vec![(b.hex("Souakim"), Decision::Orders)]);
        // Silent: the first place, Wady Halfa.
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        let halfa = r.events.iter().any(|e| {
            matches!(e, Event::Arrived { id, hex, .. } if id.starts_with("monthly supply") && *hex == b.hex("Wady Halfa"))
        });
        assert!(halfa);
    }

    #[test]
    fn rule_3_3_place_supply_is_an_order_checked_and_printed_back() {
        let b = Bench::new("khartoum");
        let vocab = Vocabulary::new(&b.scn);
        let p = orders::parse(&Input::text("PLACE supply AT Souakim\n"), &vocab).unwrap();
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let order = p.sheet.items[0].order.clone();
        assert_eq!(
            order,
            Order::Place {
                reinforcement: MONTHLY_SUPPLY.into(),
                at: b.hex("Souakim")
            }
        );
        let printed = orders::print::order(&b.scn.map, &order);
        let again = orders::parse(&Input::text(&format!("{printed}\n")), &vocab).unwrap();
        assert_eq!(again.sheet.items[0].order, order, "{printed}");
        let c = orders::check(&p.sheet, &b.scn, &b.state, Side::Egyptian);
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.orders.place.get(MONTHLY_SUPPLY), Some(&b.hex("Souakim")));
        let p = orders::parse(&Input::text("PLACE supply AT Berber\n"), &vocab).unwrap();
        let c = orders::check(&p.sheet, &b.scn, &b.state, Side::Egyptian);
        assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
        assert!(c.errors[0].message.contains("Wady Halfa"), "{:?}", c.errors);
        let _ = RECRUITS;
    }

    #[test]
    fn rule_2_3_the_relief_expeditions_infantry_have_the_strength_the_rules_give_none_so_1() {
        // "6 British infantry units (all V, ...)": no strength is given, so
        // the counter's own strength 1 (1.4), unlike the camel corps (3x 2V).
        let mut b = Bench::new("khartoum");
        let full = dervish::scenario::DataSet::embedded()
            .unwrap()
            .scenario("khartoum")
            .unwrap();
        b.scn.def = full.def.clone();
        b.state.month = "1884-09".parse().unwrap();
        b.state.arrived = full
            .def
            .reinforcements
            .iter()
            .filter(|r| r.id != "gordon-relief")
            .map(|r| r.id.clone())
            .collect();
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        let strength = |name: &str| {
            r.state
                .units
                .iter()
                .find(|u| u.name.as_deref() == Some(name) && u.hex().is_some())
                .map(|u| u.strength)
        };
        for n in ["Staffords", "Black Watch", "Essex Regt."] {
            assert_eq!(strength(n), Some(1), "{n}");
        }
        assert_eq!(strength("Guards Camel Corps"), Some(2));
    }

    fn relief_bench() -> Bench {
        let mut b = Bench::new("khartoum");
        let full = dervish::scenario::DataSet::embedded()
            .unwrap()
            .scenario("khartoum")
            .unwrap();
        b.scn.def = full.def.clone();
        b.state.month = "1884-09".parse().unwrap();
        b.state.arrived = full
            .def
            .reinforcements
            .iter()
            .filter(|r| r.id != "gordon-relief")
            .map(|r| r.id.clone())
            .collect();
        b
    }

    #[test]
    fn rule_2_3_the_relief_expedition_may_be_split_among_its_three_places() {
        // "at Wady Halfa, Sarras or Souakim ... Boat and Gunboat units may
        // not be placed at Souakim."
        let b = relief_bench();
        let vocab = Vocabulary::new(&b.scn);
        let text = "PLACE gordon-relief AT Sarras\nPLACE gordon-relief Black Watch AT Souakim\nPLACE gordon-relief BK AT Wady Halfa\nPLACE gordon-relief Earle AT Souakim\nPLACE gordon-relief BW AT Souakim\n";
        let p = orders::parse(&Input::text(text), &vocab).unwrap();
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        for item in &p.sheet.items {
            let printed = orders::print::order(&b.scn.map, &item.order);
            let again = orders::parse(&Input::text(&format!("{printed}\n")), &vocab).unwrap();
            assert_eq!(again.sheet.items[0].order, item.order, "{printed}");
        }
        let c = orders::check(&p.sheet, &b.scn, &b.state, Side::Egyptian);
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.warnings.len(), 1, "steamers at Souakim: {:?}", c.warnings);
        let r = b.play(Side::Egyptian, &c.orders, &[]);
        let at = |name: &str| {
            r.state
                .units
                .iter()
                .find(|u| u.name.as_deref() == Some(name))
                .and_then(|u| u.hex())
        };
        assert_eq!(at("Black Watch"), Some(b.hex("Souakim")));
        assert_eq!(at("Staffords"), Some(b.hex("Sarras")));
        assert_eq!(at("Guards Camel Corps"), Some(b.hex("Wady Halfa")));
        assert_eq!(at("Light Camel Corps"), Some(b.hex("Wady Halfa")));
        let leader = |n: &str| r.state.leaders.iter().find(|l| l.name == n).unwrap().hex;
        assert_eq!(leader("Earle"), Some(b.hex("Souakim")));
        assert_eq!(leader("Wolseley"), Some(b.hex("Sarras")));
        for u in r
            .state
            .units
            .iter()
            .filter(|u| &*u.unit_type == "brit-gunboat" && u.hex().is_some())
        {
            assert_ne!(u.hex(), Some(b.hex("Souakim")), "{}", u.id);
        }
        let arrivals = r
            .events
            .iter()
            .filter(|e| matches!(e, Event::Arrived { id, .. } if id == "gordon-relief"))
            .count();
        assert_eq!(arrivals, 3, "one arrival line a place");
    }

    #[test]
    fn rule_2_3_a_named_unit_awaiting_replacement_is_still_in_play() {
        // "any units called for that are already on the map are not moved";
        // a unit waiting to return (3.3) is still in play: no second one.
        let mut b = relief_bench();
        let u = b
            .state
            .units
            .iter_mut()
            .find(|u| &*u.unit_type == "brit-inf" && u.status == Status::Pool)
            .unwrap();
        u.name = Some("Black Watch".into());
        u.status = Status::AwaitingReplacement("1884-10".parse().unwrap());
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        let named = r
            .state
            .units
            .iter()
            .filter(|u| u.name.as_deref() == Some("Black Watch"))
            .count();
        assert_eq!(named, 1);
        assert!(
            r.state
                .units
                .iter()
                .any(|u| u.name.as_deref() == Some("Staffords") && u.hex().is_some())
        );
    }

    /// A Mahdist player turn whose arrival roll (3.21) is 6: "4+ add 1D6
    /// Mahdist units", the 1D6 showing `count`, then `draws`.
    fn mahdist_with_arrivals(
        b: &Bench,
        orders: &Orders,
        count: u32,
        draws: &[u32],
    ) -> dervish::engine::TurnResult {
        let mut faces = vec![1, 1, 6, count];
        faces.extend_from_slice(draws);
        let mut dice = dervish::dice::Dice::new(dervish::dice::FixedDice::with_fallback(faces, 6));
        dervish::engine::play_player_turn(&b.scn, b.state.clone(), Side::Mahdist, orders, &mut dice)
    }

    #[test]
    fn rule_3_2_destroyed_mahdist_boats_never_come_back_as_land_recruits() {
        // 2.2: boats are kept out of the pool; a river unit drawn at random
        // could not join a stack away from a river (6.0).
        let mut b = Bench::new("el-obeid");
        b.place("mah-S", 7, "El Obeid");
        for u in &mut b.state.units {
            if u.side == Side::Mahdist && u.status == Status::Pool {
                u.status = Status::Reserve;
            }
        }
        // A boat destroyed earlier: back in the pile, as losses put it.
        let boat = b
            .state
            .units
            .iter_mut()
            .find(|u| &*u.unit_type == "mah-boat")
            .unwrap();
        boat.status = Status::Pool;
        let boat = boat.id.clone();
        let r = mahdist_with_arrivals(&b, &Orders::default(), 1, &[1]);
        assert_eq!(status(&r, &boat), Status::Pool, "the boat is not drawn");
        let said = r.events.iter().any(
            |e| matches!(e, Event::Note { text } if text.contains("the pool is empty (3.21)")),
        );
        assert!(said, "{:?}", r.events);
    }

    #[test]
    fn rule_3_21_new_units_join_the_friendly_stack_the_mahdist_player_names() {
        // "Mahdist new units are placed in any friendly stack."
        let mut b = Bench::new("el-obeid");
        b.place("mah-S", 6, "El Obeid");
        b.place("mah-S", 1, "Bara");
        let mut o = Orders::default();
        o.place.insert(RECRUITS.into(), b.hex("Bara"));
        let r = mahdist_with_arrivals(&b, &o, 2, &[1, 1]);
        let recruits: Vec<_> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Arrived {
                    id,
                    hex,
                    decided_by,
                    ..
                } if id == "a Mahdist recruit" => Some((*hex, decided_by.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            recruits,
            vec![(b.hex("Bara"), Decision::Orders); 2],
            "{:?}",
            r.events
        );
        // Silent: the largest stack.
        let r = mahdist_with_arrivals(&b, &Orders::default(), 1, &[1]);
        let at_el_obeid = r.events.iter().any(|e| {
            matches!(e, Event::Arrived { id, hex, .. } if id == "a Mahdist recruit" && *hex == b.hex("El Obeid"))
        });
        assert!(at_el_obeid, "{:?}", r.events);
    }

    #[test]
    fn rule_2_2_osman_digma_comes_although_el_obeid_is_retaken_before_his_phase() {
        // "When El Obeid falls place Osman Digma with 2D6 S units ... in the
        // next Mahdist reinforcement phase."
        let mut b = Bench::new("el-obeid");
        let full = dervish::scenario::DataSet::embedded()
            .unwrap()
            .scenario("el-obeid")
            .unwrap();
        let mut def = (*b.scn.def).clone();
        def.reinforcements = full
            .def
            .reinforcements
            .iter()
            .filter(|r| r.id == "osman-digma")
            .cloned()
            .collect();
        assert_eq!(def.reinforcements.len(), 1);
        b.scn.def = std::sync::Arc::new(def);
        let obeid = b.hex("El Obeid");
        b.place("mah-S", 2, "El Obeid");
        b.state.control.insert(obeid, Side::Mahdist);
        // The Egyptian turn after the fall: the town has fallen.
        let r = b.play(Side::Egyptian, &Orders::default(), &[]);
        b.state = r.state;
        // Retaken before the next Mahdist reinforcement phase.
        for u in &mut b.state.units {
            if u.hex() == Some(obeid) {
                u.status = Status::Pool;
            }
        }
        b.place("egy-inf-S", 1, "El Obeid");
        b.state.control.insert(obeid, Side::Egyptian);
        b.place("mah-S", 1, "Bara");
        let r = b.play(Side::Mahdist, &Orders::default(), &[3, 4]);
        let osman = r
            .state
            .leaders
            .iter()
            .find(|l| l.name == "Osman Digma")
            .unwrap();
        let h = osman.hex.expect("Osman Digma is placed");
        assert!(b.scn.map.in_souakim_extension(h));
    }

    #[test]
    fn rule_2_2_new_mahdist_units_never_join_a_stack_beside_the_nile_below_abou_hamed() {
        // "No Mahdist unit may ever enter any hex adjacent to the Nile above
        // (flowing North from) and including Abou Hamed."
        let mut b = Bench::new("el-obeid");
        b.place("mah-S", 6, "Dongola");
        b.place("mah-S", 1, "El Obeid");
        let mut o = Orders::default();
        o.place.insert(RECRUITS.into(), b.hex("Abou Hamed"));
        b.place("mah-S", 1, "Abou Hamed");
        let r = mahdist_with_arrivals(&b, &o, 1, &[1]);
        let recruits: Vec<_> = r
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Arrived { id, hex, .. } if id == "a Mahdist recruit" => Some(*hex),
                _ => None,
            })
            .collect();
        assert_eq!(recruits, vec![b.hex("El Obeid")], "{:?}", r.events);
    }
}
