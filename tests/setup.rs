//! Setting up both scenarios (rules 2.1-2.3) on the real map.

use dervish::geo::Hex;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::setup::{Placements, SetupError, SetupNote, initial_state};
use dervish::state::{GameState, Status};

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
    let mahdi = state.leaders.iter().find(|l| l.name == "Mahdi").unwrap();
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
    let gordon = state.leaders.iter().find(|l| l.name == "Gordon").unwrap();
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
    let osman = state
        .leaders
        .iter()
        .find(|l| l.name == "Osman Digma")
        .unwrap()
        .hex
        .unwrap();
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
    let line = scn
        .def
        .setup
        .iter()
        .position(|d| d.leaders.iter().any(|l| l == "Gordon"))
        .unwrap();
    let omdurman = scn.map.resolve("Omdurman").unwrap();
    let mut choices = Placements::new();
    choices.insert(line, vec![omdurman]);
    let (state, _) = initial_state(&scn, &choices).unwrap();
    assert_eq!(
        state
            .leaders
            .iter()
            .find(|l| l.name == "Gordon")
            .unwrap()
            .hex,
        Some(omdurman)
    );
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
