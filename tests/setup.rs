//! Setting up both scenarios (rules 2.1-2.3) on the real map.

use dervish::geo::Hex;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::setup::{Placements, SetupError, SetupNote, initial_state};
use dervish::state::{GameState, Status};

mod common;
#[path = "common/engine.rs"]
mod engine;

use common::setup_line;
use engine::leader;

fn scenario(id: &str) -> Scenario {
    DataSet::embedded().unwrap().scenario(id).unwrap()
}

fn setup(id: &str) -> (Scenario, GameState, Vec<SetupNote>) {
    let scn = scenario(id);
    let (state, notes) = initial_state(&scn, &Placements::new()).unwrap();
    (scn, state, notes)
}

fn units_at(state: &GameState, hex: Hex, side: Side) -> usize {
    state
        .units
        .iter()
        .filter(|u| u.hex() == Some(hex) && u.side == side)
        .count()
}

#[test]
fn rule_2_2_el_obeid_garrisons_and_the_mahdi_two_hexes_out() {
    let (scn, state, notes) = setup("el-obeid");
    let m = &scn.map;
    let obeid = m.resolve("El Obeid").unwrap();
    let bara = m.resolve("Bara").unwrap();
    // El Obeid: 1 civilian, 2 guns, 2L, 2R, 2S = 9 counters.
    assert_eq!(units_at(&state, obeid, Side::Egyptian), 9);
    // Bara: 1R, 1 gun, 1L.
    assert_eq!(units_at(&state, bara, Side::Egyptian), 3);
    let mahdi = leader(&state, "Mahdi");
    let h = mahdi.hex.unwrap();
    let d = obeid.distance(h).min(bara.distance(h));
    assert_eq!(d, 2, "within 1 hex of but not adjacent to El Obeid or Bara");
    assert_eq!(
        units_at(&state, h, Side::Mahdist),
        20,
        "Mahdi, 3 cavalry, 17 S"
    );
    assert!(
        notes
            .iter()
            .all(|n| !matches!(n, SetupNote::NoCounter { .. })),
        "{notes:?}"
    );
    // No rifle or gun units begin in the Mahdist pool.
    for u in state.units.iter().filter(|u| u.side == Side::Mahdist) {
        let t = scn.units.get(&u.unit_type).unwrap();
        if t.fires {
            assert!(
                matches!(u.status, Status::Reserve),
                "{} {:?}",
                u.id,
                u.status
            );
        }
    }
}

#[test]
fn rule_2_3_khartoum_setup_respects_the_six_unit_limit() {
    let (scn, state, _) = setup("khartoum");
    let m = &scn.map;
    let k = m.resolve("Khartoum").unwrap();
    let gordon = leader(&state, "Gordon");
    assert!(gordon.hex == Some(k) || gordon.hex == Some(m.resolve("Omdurman").unwrap()));
    for s in state.stacks().iter().filter(|s| s.side == Side::Mahdist) {
        let n = s
            .units
            .iter()
            .filter(|u| !scn.units.get(&u.unit_type).unwrap().kind.is_river_unit())
            .count();
        assert!(n <= 6, "{} holds {n} Mahdist units", s.hex);
    }
    let mahdist: usize = state
        .units
        .iter()
        .filter(|u| u.side == Side::Mahdist && u.hex().is_some())
        .count();
    // 3 cavalry, 30 S, 4 rifles, 2 guns, 1 boat; 16 S with Osman.
    assert_eq!(mahdist, 40 + 16);
    let osman = leader(&state, "Osman Digma").hex.unwrap();
    assert!(m.in_souakim_extension(osman));
    assert!(osman.distance(m.resolve("Souakim").unwrap()) >= 2);
    for place in [
        "Metammeh",
        "Abou Hamed",
        "Korti",
        "Debbeh",
        "Old Dongola",
        "Dongola",
    ] {
        assert_eq!(
            units_at(&state, m.resolve(place).unwrap(), Side::Egyptian),
            1,
            "{place}"
        );
    }
}

#[test]
fn every_counter_has_exactly_one_status_and_ids_are_unique() {
    for id in ["el-obeid", "khartoum"] {
        let (scn, state, _) = setup(id);
        let total: u32 = scn.units.types().iter().map(|t| t.counters).sum();
        assert_eq!(state.units.len() as u32, total);
        let mut ids: Vec<_> = state.units.iter().map(|u| u.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), state.units.len());
        for u in &state.units {
            if let Some(h) = u.hex() {
                assert!(scn.map.is_land(h), "{} in the sea", u.id);
            }
        }
        // Opposing stacks never share a hex.
        for s in state.stacks() {
            assert_eq!(state.stacks_at(s.hex).len(), 1, "{}", s.hex);
            // Leaders never stand alone.
            assert!(!s.units.is_empty(), "a leader alone at {}", s.hex);
        }
    }
}

#[test]
fn setup_is_deterministic() {
    let (_, a, _) = setup("khartoum");
    let (_, b, _) = setup("khartoum");
    assert_eq!(a, b);
    assert_eq!(a.digest(), b.digest());
}

#[test]
fn player_choices_are_checked_against_the_zone() {
    let scn = scenario("khartoum");
    let line = setup_line::line_with(&scn, "Gordon");
    let omdurman = scn.map.resolve("Omdurman").unwrap();
    let mut choices = Placements::new();
    choices.insert(line, vec![omdurman]);
    let (state, _) = initial_state(&scn, &choices).unwrap();
    assert_eq!(leader(&state, "Gordon").hex, Some(omdurman));
    choices.insert(line, vec![scn.map.resolve("Berber").unwrap()]);
    assert!(matches!(
        initial_state(&scn, &choices),
        Err(SetupError::NotInZone { .. })
    ));
}

/// A Khartoum scenario with one more Mahdist set-up line: `count` S units
/// at Kassala, a zone of one hex.
fn crowded(count: u32) -> Scenario {
    let mut scn = scenario("khartoum");
    let mut def = (*scn.def).clone();
    let mut line = def
        .setup
        .iter()
        .rfind(|d| d.side == Side::Mahdist)
        .unwrap()
        .clone();
    line.zone = dervish::scenario::definition::Zone::At("Kassala".into());
    line.units.truncate(1);
    line.units[0].unit = "mah-S".into();
    line.units[0].count = count;
    line.leaders.clear();
    line.text = format!("{count} S units at Kassala.");
    def.setup.push(line);
    scn.def = std::sync::Arc::new(def);
    scn
}

#[test]
fn rule_2_3_the_default_placement_never_puts_seven_mahdist_units_in_a_hex() {
    // "no more than 6 non-leader or boat units per hex".
    let (state, _) = initial_state(&crowded(6), &Placements::new()).unwrap();
    let kassala = scenario("khartoum").map.resolve("Kassala").unwrap();
    assert_eq!(units_at(&state, kassala, Side::Mahdist), 6);
    let err = initial_state(&crowded(7), &Placements::new()).unwrap_err();
    assert!(
        matches!(
            err,
            SetupError::Crowded {
                limit: 6,
                hexes: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("(2.3)"), "{err}");
}

/// Set-up orders for the main Mahdist line: `n` Ansar of that line in
/// the zone's last hex.
fn mahdist_setup(scn: &Scenario, n: usize) -> (dervish::engine::orders::SetupOrder, Hex) {
    let (units, at) = setup_line::mahdi_line(scn, n);
    (
        dervish::engine::orders::SetupOrder {
            units,
            leaders: vec![],
            at,
        },
        at,
    )
}

#[test]
fn rule_2_1_set_up_orders_place_both_sides_before_the_first_egyptian_player_turn() {
    use dervish::dice::{Dice, FixedDice};
    use dervish::engine::events::{Event, Phase};
    use dervish::engine::orders::{Orders, SetupOrder};
    let (scn, state, _) = setup("khartoum");
    let omdurman = scn.map.resolve("Omdurman").unwrap();
    let egyptian = Orders {
        setup: vec![SetupOrder {
            units: vec![
                dervish::state::UnitId("ER01".into()),
                dervish::state::UnitId("ER02".into()),
            ],
            leaders: vec!["J. Stewart".into()],
            at: omdurman,
        }],
        ..Orders::default()
    };
    let (order, far) = mahdist_setup(&scn, 6);
    let mahdist = Orders {
        setup: vec![order.clone()],
        ..Orders::default()
    };
    // Before: the default placement put them elsewhere.
    assert_ne!(state.unit("ER01").unwrap().hex(), Some(omdurman));
    let mut seen = Vec::new();
    let mut dice = Dice::new(FixedDice::with_fallback(Vec::<u32>::new(), 6));
    let r = dervish::engine::play_month_with(
        &scn,
        state,
        &mut |s, side| {
            seen.push((side, s.unit("ER01").unwrap().hex()));
            if side == Side::Egyptian {
                egyptian.clone()
            } else {
                mahdist.clone()
            }
        },
        &mut dice,
    );
    // The Mahdist is asked for his set-up once the Egyptian one is placed.
    assert_eq!(seen[1], (Side::Mahdist, Some(omdurman)), "{seen:?}");
    let notes: Vec<(usize, String)> = r
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Event::Note { text } if text.contains("set-up") => Some((i, text.clone())),
            _ => None,
        })
        .collect();
    let first_phase = r
        .events
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::PhaseBegins {
                    side: Side::Egyptian,
                    phase: Phase::RandomEvents,
                    ..
                }
            )
        })
        .unwrap();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].1.starts_with("Egyptian set-up (2.1)"), "{notes:?}");
    assert!(notes[1].1.starts_with("Mahdist set-up (2.1)"), "{notes:?}");
    assert!(notes.iter().all(|(i, _)| *i < first_phase), "{notes:?}");
    for id in ["ER01", "ER02"] {
        assert_eq!(r.state.unit(id).unwrap().hex(), Some(omdurman), "{id}");
    }
    let stewart = leader(&r.state, "J. Stewart");
    assert_eq!(stewart.hex, Some(omdurman));
    for id in &order.units {
        assert_eq!(r.state.unit(&id.0).unwrap().hex(), Some(far), "{id}");
    }
}

#[test]
fn rule_2_1_a_mahdist_set_up_after_the_first_egyptian_player_turn_is_set_aside() {
    use dervish::dice::{Dice, FixedDice};
    use dervish::engine::events::Event;
    use dervish::engine::orders::Orders;
    use dervish::engine::play_player_turn;
    let (scn, state, _) = setup("khartoum");
    let (order, far) = mahdist_setup(&scn, 1);
    let before = state.unit(&order.units[0].0).unwrap().hex();
    assert_ne!(before, Some(far));
    let mut dice = Dice::new(FixedDice::with_fallback(Vec::<u32>::new(), 6));
    // Alternating turns: the Egyptian player turn, then the Mahdist one.
    let r = play_player_turn(&scn, state, Side::Egyptian, &Orders::default(), &mut dice);
    let mahdist = Orders {
        setup: vec![order.clone()],
        ..Orders::default()
    };
    let r = play_player_turn(&scn, r.state, Side::Mahdist, &mahdist, &mut dice);
    let aside = r.events.iter().any(
        |e| matches!(e, Event::Note { text } if text.contains("set aside: the set-up is over")),
    );
    assert!(aside, "{:?}", r.events.first());
    assert_ne!(r.state.unit(&order.units[0].0).unwrap().hex(), Some(far));
}
