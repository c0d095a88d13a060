//! The programmed Egyptian player: in every position of bot-against-bot
//! campaigns its orders pass the checker a player's mail goes through, the
//! same position gives the same orders, and its two personas differ.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::egyptian::{self, Persona};
use dervish::players::mahdist::{self, Opponents};
use dervish::players::reaction::Reactions;
use dervish::players::{keep_checked, through_the_checker};
use dervish::scenario::{DataSet, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

/// Egyptian positions to decide for, for each persona.
const STATES: usize = 2_000;

#[test]
fn its_orders_pass_the_checker_and_its_personas_differ() {
    let data = DataSet::embedded().unwrap();
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let mut differ = 0;
    let mut marches = 0;
    let mut kept_supply = 0;
    for persona in [Persona::Historical, Persona::Competent] {
        let mut decided = 0;
        let mut seed = 1;
        while decided < STATES {
            for id in ["el-obeid", "khartoum"] {
                let scn = data.scenario(id).unwrap();
                let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
                let mut dice = Dice::new(SeededDice::from_seed(seed));
                let mut bot = Dice::new(SeededDice::from_seed(seed + 77));
                let mut problems: Vec<String> = Vec::new();
                while state.result.is_none() && decided < STATES {
                    let month = state.month;
                    let r = play_month_with(
                        &scn,
                        state,
                        &mut |s: &GameState, side| {
                            if side == Side::Mahdist {
                                return mahdist::decide(&scn, s, &table, &opponents, &mut bot)
                                    .orders;
                            }
                            let d = egyptian::decide(&scn, s, persona);
                            decided += 1;
                            marches += d.orders.marches.len();
                            // KEEP SUPPLY only where a supply unit of its own
                            // stands in a town not besieged (5.2 IV, 9.12).
                            for h in &d.orders.keep_supply {
                                kept_supply += 1;
                                assert!(scn.map.settlement_at(*h).is_some(), "{h}");
                                assert!(
                                    s.units.iter().any(|u| u.side == Side::Egyptian
                                        && u.hex() == Some(*h)
                                        && scn.units.get(&u.unit_type).is_some_and(|t| {
                                            t.kind == dervish::scenario::UnitKind::Supply
                                        })),
                                    "no supply unit at {h}"
                                );
                                assert!(
                                    !s.units.iter().any(|u| u.side == Side::Mahdist
                                        && u.hex().is_some_and(|x| x.distance(*h) == 1)
                                        && scn
                                            .units
                                            .get(&u.unit_type)
                                            .is_some_and(|t| !t.kind.is_river_unit())),
                                    "{h} is besieged"
                                );
                            }
                            problems
                                .extend(d.notes.iter().filter(|n| n.contains("left out")).cloned());
                            if let Err(e) = through_the_checker(&scn, s, side, &d.orders) {
                                problems.push(e);
                            }
                            let (kept, _) = keep_checked(&scn, s, side, d.orders.clone());
                            assert_eq!(kept, d.orders);
                            assert_eq!(
                                egyptian::decide(&scn, s, persona),
                                d,
                                "the same position, the same orders"
                            );
                            let other = match persona {
                                Persona::Historical => Persona::Competent,
                                Persona::Competent => Persona::Historical,
                            };
                            if egyptian::decide(&scn, s, other).orders != d.orders {
                                differ += 1;
                            }
                            d.orders
                        },
                        &mut dice,
                    );
                    assert!(
                        problems.is_empty(),
                        "{persona:?}, {id}, {month}: {problems:#?}"
                    );
                    state = r.state;
                    if state.month == month {
                        break;
                    }
                }
            }
            seed += 1;
        }
    }
    assert!(marches > STATES / 4, "{marches} marches");
    // Scenario 2's expedition keeps its supply while it waits in a town.
    assert!(kept_supply > 0, "no KEEP SUPPLY order in any position");
    assert!(
        differ > STATES / 20,
        "the personas differ in {differ} positions"
    );
    assert_eq!(Persona::parse("Competent"), Some(Persona::Competent));
    assert_eq!(Persona::parse("reckless"), None);
}

fn situation(file: &str) -> (dervish::scenario::Scenario, GameState) {
    let data = DataSet::embedded().unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/case-fixtures")
        .join(file);
    let case = dervish::cases::load(&path, &data).unwrap();
    (case.scn, case.state)
}

/// Scenario 2's expedition (opponents.ron): "an Egyptian victory at the end
/// of any Mahdist turn when a British supply unit is in Khartoum" (4.1).
/// With supply for the way (a unit a month of 12 hexes, and one to
/// deliver), the relief at Wady Halfa marches on Khartoum with its supply
/// and camels, leaving its two weakest units to hold the town; the march
/// has three legs along the route, and it passes the checker.
#[test]
fn the_expedition_carries_supply_to_khartoum() {
    let (scn, state) = situation("expedition.toml");
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let halfa = scn.map.find_place("Wady Halfa").unwrap().hex;
    for persona in [Persona::Historical, Persona::Competent] {
        let d = egyptian::decide(&scn, &state, persona);
        through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
        let m = d
            .orders
            .marches
            .iter()
            .find(|m| m.legs.last() == Some(&dervish::engine::orders::Leg::To(khartoum)))
            .unwrap_or_else(|| panic!("{persona:?}: no march on Khartoum: {:#?}", d));
        let dervish::engine::orders::Selection::Units { units, .. } = &m.units else {
            panic!("the expedition names its units: {:?}", m.units);
        };
        let at_halfa: Vec<_> = state
            .units
            .iter()
            .filter(|u| u.hex() == Some(halfa))
            .collect();
        for u in &at_halfa {
            let goes = units.contains(&u.id);
            let kind = scn.units.get(&u.unit_type).unwrap().kind;
            if matches!(
                kind,
                dervish::scenario::UnitKind::Supply | dervish::scenario::UnitKind::Camel
            ) {
                assert!(goes, "{} stays", u.id);
            }
        }
        assert_eq!(units.len(), at_halfa.len() - 2, "two units hold Wady Halfa");
        assert_eq!(m.legs.len(), 3, "{:?}", m.legs);
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("marches on Khartoum (1942) to deliver its supply")),
            "{:?}",
            d.notes
        );
        // The column in the open with no supply falls back.
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("the column at 1110 falls back on") && n.contains("no supply")),
            "{:?}",
            d.notes
        );
    }
}

/// With two supply units the cautious persona waits for more (Wady Halfa
/// is 4 months from Khartoum: it wants 5); the competent one sets out with
/// one to spend and one to deliver.
#[test]
fn the_cautious_expedition_waits_for_supply() {
    let (scn, state) = situation("expedition-two-supply.toml");
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let goes = |p| {
        egyptian::decide(&scn, &state, p)
            .orders
            .marches
            .iter()
            .any(|m| m.legs.last() == Some(&dervish::engine::orders::Leg::To(khartoum)))
    };
    assert!(!goes(Persona::Historical));
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("waits: ") && n.contains("2 supply units")),
        "{:?}",
        d.notes
    );
    assert!(goes(Persona::Competent));
}

/// A far march has three legs along the cheapest route, each a march's
/// reach, which the checker accepts.
#[test]
fn far_marches_have_three_legs_the_checker_accepts() {
    use dervish::engine::orders::{Leg, MarchOrder, Orders};
    let (scn, state) = situation("expedition.toml");
    let halfa = scn.map.find_place("Wady Halfa").unwrap().hex;
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let legs = dervish::players::legs_to(&scn.map, halfa, khartoum, 5);
    assert_eq!(legs.len(), 3);
    assert_eq!(legs[2], Leg::To(khartoum));
    let order = |legs: Vec<Leg>| Orders {
        marches: vec![MarchOrder::stack(halfa, legs)],
        ..Orders::default()
    };
    through_the_checker(&scn, &state, Side::Egyptian, &order(legs.clone())).unwrap();
    // Each leg ends a march's reach further along the way.
    let Leg::To(first) = legs[0] else {
        panic!("{legs:?}")
    };
    assert!(
        halfa.distance(first) <= 5 && halfa.distance(first) >= 3,
        "{legs:?}"
    );
    // Near: one leg.
    let near = scn.map.find_place("Sarras").unwrap().hex;
    assert_eq!(
        dervish::players::legs_to(&scn.map, halfa, near, 5),
        vec![Leg::To(near)]
    );
}

/// The river column (8.23: a boat or gunboat carries one unit): with boats
/// at hand the expedition's first choice is its supply and strongest units
/// in the boats, up the Nile. Khartoum is besieged and may not be entered
/// (9.12), so the boats make for a riverside hex short of it.
#[test]
fn the_expedition_goes_by_river_when_it_has_boats() {
    use dervish::engine::orders::{Leg, Selection};
    let (scn, state) = situation("expedition-boats.toml");
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    let m = d
        .orders
        .marches
        .iter()
        .find(|m| matches!(m.legs.as_slice(), [Leg::River(_)]))
        .unwrap_or_else(|| panic!("no river march: {d:#?}"));
    let [Leg::River(to)] = m.legs.as_slice() else {
        unreachable!()
    };
    assert!(
        *to != khartoum && to.distance(khartoum) <= 6 && scn.map.is_riverside(*to),
        "{to}"
    );
    let Selection::Units { units, .. } = &m.units else {
        panic!("{:?}", m.units)
    };
    let ids: Vec<&str> = units.iter().map(|u| u.0.as_ref()).collect();
    // Four carriers: two supply units and the two strongest fighting
    // units (British infantry, strength 3) as escort, and the carriers.
    assert_eq!(ids.len(), 8, "{ids:?}");
    assert_eq!(&ids[..2], ["BS01", "BS02"], "{ids:?}");
    assert!(ids[2..4].iter().all(|i| i.starts_with("BI")), "{ids:?}");
    assert_eq!(&ids[4..], ["BB01", "BB02", "BW01", "BW02"], "{ids:?}");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("first choice, by river (8.23)")),
        "{:?}",
        d.notes
    );
}
