//! Random events, reinforcements and replacements (rules 2.2, 2.3, 3.1-3.3,
//! 3.21, 4.2, 5.2 I-II, 5.3 I-II) on the shipped scenarios, with fixed dice.
//! A D66 roll of 4,4 (44) is "no event" on every table.

mod common;
#[path = "common/engine.rs"]
mod engine;

use engine::{assert_noted, first_of_type, leader, notes, place_from_pool};

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
fn rule_2_3_no_coldstream_guards_while_the_guards_camel_corps_is_in_play() {
    let (scn, mut state) = start("khartoum");
    state.month = "1885-02".parse().unwrap();
    state.arrived.insert("gordon-relief".into());
    state.arrived.insert("boats-1884-10".into());
    state.arrived.insert("souakim-field-force-1".into());
    let i = place_from_pool(&mut state, "brit-camel-corps", hex(&scn, "Korti"));
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
    assert_noted(&r, "Guards Camel Corps is still in play");
}

#[test]
fn rule_2_3_the_first_field_force_comes_on_its_event() {
    let (scn, mut state) = start("khartoum");
    state.month = "1884-03".parse().unwrap();
    // 2,1 = 21: the 1st Souakim Field Force.
    let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &[2, 1]);
    let souakim = hex(&scn, "Souakim");
    assert_eq!(named_at(&r, "Rifles"), Some(souakim));
    let graham = leader(&r.state, "Graham");
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
    assert_noted(&r, "already");
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
    let k = leader(&r.state, "Khalifa");
    assert!(k.hex.is_some());
    state = r.state;
    let r = play(&scn, &state, Side::Mahdist, &Orders::default(), &[6, 6, 2]);
    assert_noted(&r, "already happened");
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
    fn rule_8_22_rail_moves_use_built_track_only() {
        let (scn, mut state) = start("khartoum");
        let sarras = hex(&scn, "Sarras");
        let akasha = hex(&scn, "Akasha");
        place_from_pool(&mut state, "egy-inf-R", sarras);
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
        place_from_pool(&mut state, "mah-S", on_track);
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        assert_noted(&r, "no railway building");
        assert_eq!(r.state.rail_built.get("Souakim - Berber"), Some(&3));
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
        let baker = leader(&r.state, "Baker");
        assert_eq!(baker.hex, Some(trinkitat));
        assert_noted(&r, "Baker goes with the stack");
    }

    #[test]
    fn rule_8_25_the_fleet_leaves_while_the_mahdists_hold_souakim() {
        let (scn, mut state) = start("khartoum");
        let souakim = hex(&scn, "Souakim");
        state.control.insert(souakim, Side::Mahdist);
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        assert_eq!(first_of_type(&r.state, "fleet").status, Status::Reserve);
        let mut state = r.state;
        state.control.insert(souakim, Side::Egyptian);
        place_from_pool(&mut state, "brit-inf", souakim);
        let r = play(&scn, &state, Side::Egyptian, &Orders::default(), &QUIET);
        assert_eq!(first_of_type(&r.state, "fleet").hex(), Some(souakim));
    }
}

/// Reinforcements, replacements and the Mahdist pool on the empty `Bench`
/// board (issue: arrivals that waited, were lost or went where the rules do
/// not send them).
mod arrivals {
    use super::common::bench::Bench;
    use dervish::engine::events::Event;
    use dervish::engine::orders::{MONTHLY_SUPPLY, Orders, RECRUITS};
    use dervish::orders::{self, Input, Order, Vocabulary};
    use dervish::scenario::Side;

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
