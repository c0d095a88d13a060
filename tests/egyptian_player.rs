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

mod common;

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
                            // stands, or arrives this month, in a town not
                            // besieged (5.2 IV, 9.12).
                            let arriving = egyptian::supply_arriving(&scn, s);
                            for h in &d.orders.keep_supply {
                                kept_supply += 1;
                                assert!(scn.map.settlement_at(*h).is_some(), "{h}");
                                assert!(
                                    arriving.contains(h)
                                        || s.units.iter().any(|u| u.side == Side::Egyptian
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

use common::fixture as situation;

/// The march of a decision that ends at `to`, or a panic showing them all.
fn march_to(
    d: &dervish::players::Decision,
    to: dervish::geo::Hex,
) -> &dervish::engine::orders::MarchOrder {
    d.orders
        .marches
        .iter()
        .find(|m| m.legs.last() == Some(&dervish::engine::orders::Leg::To(to)))
        .unwrap_or_else(|| panic!("no march on {to}: {d:#?}"))
}

/// The units a march names one by one.
fn named(m: &dervish::engine::orders::MarchOrder) -> Vec<&str> {
    let dervish::engine::orders::Selection::Units { units, .. } = &m.units else {
        panic!("the march names its units: {:?}", m.units)
    };
    units.iter().map(|u| u.0.as_ref()).collect()
}

/// Scenario 2's expedition (opponents.ron): "an Egyptian victory at the end
/// of any Mahdist turn when a British supply unit is in Khartoum" (4.1).
/// With supply for the way, the relief at Wady Halfa marches with its
/// supply and camels on Korti, the place it goes by (`via`), leaving its
/// two weakest units to hold the town; the march has three legs along the
/// route, and it passes the checker.
#[test]
fn the_expedition_carries_supply_to_khartoum() {
    let (scn, state) = situation("expedition.toml");
    let korti = scn.map.find_place("Korti").unwrap().hex;
    let halfa = scn.map.find_place("Wady Halfa").unwrap().hex;
    for persona in [Persona::Historical, Persona::Competent] {
        let d = egyptian::decide(&scn, &state, persona);
        through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
        let m = march_to(&d, korti);
        let units = named(m);
        let at_halfa: Vec<_> = state
            .units
            .iter()
            .filter(|u| u.hex() == Some(halfa))
            .collect();
        for u in &at_halfa {
            let goes = units.contains(&u.id.0.as_ref());
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
                .any(|n| n
                    .contains("marches on Khartoum (1942) to deliver its supply, by Korti (1226)")),
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

/// The historical persona sets out with a supply unit for each month of
/// the way (`hexes_a_month` of opponents.ron) and one to deliver: with the
/// shipped data (48 hexes a month: the boats and the flying column spend
/// little) two are enough from Wady Halfa; counting on 12 hexes a month it
/// waits at Wady Halfa for five, while the competent one sets out with one
/// to spend and one to deliver.
#[test]
fn the_cautious_expedition_waits_for_supply() {
    let (scn, state) = situation("expedition-two-supply.toml");
    let korti = scn.map.find_place("Korti").unwrap().hex;
    let shipped = Opponents::shipped().unwrap();
    let text = include_str!("../scenarios/opponents.ron");
    assert!(text.contains("hexes_a_month: 48"));
    let slow = Opponents::parse(&text.replace("hexes_a_month: 48", "hexes_a_month: 12")).unwrap();
    let goes = |p, op: &Opponents| {
        egyptian::decide_with(&scn, &state, p, Some(op))
            .orders
            .marches
            .iter()
            .any(|m| m.legs.last() == Some(&dervish::engine::orders::Leg::To(korti)))
    };
    assert!(goes(Persona::Historical, &shipped));
    assert!(!goes(Persona::Historical, &slow));
    let d = egyptian::decide_with(&scn, &state, Persona::Historical, Some(&slow));
    assert!(
        d.notes.iter().any(|n| n.contains("waits: ")
            && n.contains("2 supply units")
            && n.contains("needs 12 strength and 5 supply units")),
        "{:?}",
        d.notes
    );
    assert!(goes(Persona::Competent, &slow));
}

/// At Korti, a place the expedition goes by, the column does not wait for
/// the strength and supply it set out with: the flying column (camel corps
/// and cavalry, the camels with the supply units they carry, 8.24) crosses
/// the desert to Khartoum by land, six units, so that its supply is not
/// spent on the way (5.2 IV); the river, which runs round by Berber, is
/// left. The order passes the checker.
#[test]
fn the_flying_column_crosses_the_desert_from_korti() {
    use dervish::engine::orders::Leg;
    let (scn, state) = situation("expedition-korti.toml");
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    assert!(
        !d.orders
            .marches
            .iter()
            .any(|m| matches!(m.legs.as_slice(), [Leg::River(_)])),
        "{d:#?}"
    );
    let ids = named(march_to(&d, khartoum));
    assert_eq!(ids.len(), 6, "{ids:?}");
    assert_eq!(&ids[..4], ["BS01", "BS02", "BM01", "BM02"], "{ids:?}");
    assert!(
        ids[4..]
            .iter()
            .all(|i| i.starts_with("BK") || i.starts_with("BC")),
        "{ids:?}"
    );
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("the flying column by land (8.24)")),
        "{:?}",
        d.notes
    );
}

/// A column of the expedition stopped at a village on the way (not a town
/// it sets out from) is under way: it goes on with the supply unit it has
/// whatever its strength, up the river to Korti.
#[test]
fn under_way_the_expedition_does_not_wait_at_a_village() {
    use dervish::engine::orders::Leg;
    let (scn, state) = situation("expedition-village.toml");
    let korti = scn.map.find_place("Korti").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    assert!(
        !d.notes.iter().any(|n| n.contains("waits")),
        "{:?}",
        d.notes
    );
    assert!(
        d.orders
            .marches
            .iter()
            .any(|m| m.legs == vec![Leg::River(korti)] || m.legs.last() == Some(&Leg::To(korti))),
        "{d:#?}"
    );
}

/// Under way with its last supply unit in a stack of seven units or more,
/// which would spend it in the attrition phase (5.2 IV), the expedition
/// sends the flying column straight for Khartoum with it rather than the
/// boats on to Korti.
#[test]
fn the_last_supply_unit_goes_with_the_flying_column() {
    use dervish::engine::orders::Leg;
    let (scn, state) = situation("expedition-last-supply.toml");
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    let ids = named(march_to(&d, khartoum));
    assert_eq!(&ids[..2], ["BS01", "BM01"], "{ids:?}");
    assert!(ids.len() < 7, "{ids:?}");
    assert!(
        !d.orders
            .marches
            .iter()
            .any(|m| matches!(m.legs.as_slice(), [Leg::River(_)])),
        "{d:#?}"
    );
}

/// A relief leaving a town leaves a garrison: the two weakest of five or
/// more fighting units (one of two to four; all of strength 1 here, the
/// last in counter order), so that the enemy cannot walk into the town it
/// left; its leaders go with it.
#[test]
fn a_relief_leaves_a_garrison_behind() {
    use dervish::engine::orders::Selection;
    let (scn, state) = situation("relief-from-souakim.toml");
    let tokar = scn.map.find_place("Tokar").unwrap().hex;
    let souakim = scn.map.find_place("Souakim").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    let m = d
        .orders
        .marches
        .iter()
        .find(|m| match &m.units {
            Selection::Stack(h) => *h == souakim,
            Selection::Units { units, .. } => units
                .iter()
                .any(|u| state.unit(&u.0).and_then(|u| u.hex()) == Some(souakim)),
            _ => false,
        })
        .unwrap_or_else(|| panic!("no relief: {d:#?}"));
    assert!(
        m.legs.last() == Some(&dervish::engine::orders::Leg::To(tokar)),
        "{m:?}"
    );
    let Selection::Units { units, leaders } = &m.units else {
        panic!("{:?}", m.units)
    };
    assert_eq!(units.len(), 9, "{units:?}");
    assert!(
        !units.iter().any(|u| &*u.0 == "ER02" || &*u.0 == "ER03"),
        "{units:?}"
    );
    assert_eq!(leaders, &vec!["Graham".to_string()]);
    assert!(
        d.notes.iter().any(|n| n.contains("relieves Tokar (5723)")
            && n.contains("leaving ER02 ER03 to hold Souakim (5419)")),
        "{:?}",
        d.notes
    );
}

/// Supply arriving this month is kept where the expedition gathers: the
/// Gordon Relief Expedition reaches Wady Halfa in September 1884 with two
/// supply units, and the orders written before it came keep them (played
/// through the engine: no supply unit is spent at Wady Halfa that month).
#[test]
fn supply_arriving_with_the_relief_is_kept() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/case-fixtures/khartoum-1884-06.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut state: GameState = serde_json::from_str(&text).unwrap();
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let halfa = scn.map.find_place("Wady Halfa").unwrap().hex;
    let mut dice = Dice::new(SeededDice::from_seed(5));
    let mut bot = Dice::new(SeededDice::from_seed(6));
    let mut september = None;
    while state.result.is_none() && september.is_none() {
        let month = state.month;
        let r = play_month_with(
            &scn,
            state,
            &mut |s: &GameState, side| {
                if side == Side::Mahdist {
                    return mahdist::decide(&scn, s, &table, &opponents, &mut bot).orders;
                }
                let d = egyptian::decide(&scn, s, Persona::Historical);
                if s.month.to_string() == "1884-09" {
                    assert!(egyptian::supply_arriving(&scn, s).contains(&halfa));
                    assert!(d.orders.keep_supply.contains(&halfa), "{d:#?}");
                }
                d.orders
            },
            &mut dice,
        );
        if month.to_string() == "1884-09" {
            september = Some(r.events.clone());
        }
        state = r.state;
    }
    let events = september.expect("the game reaches September 1884");
    let spent = events.iter().any(|e| {
        matches!(e, dervish::engine::events::Event::SupplyExpended { hex, .. } if *hex == halfa)
    });
    assert!(!spent, "a supply unit spent at Wady Halfa");
    let arrived = events
        .iter()
        .any(|e| format!("{e:?}").contains("gordon-relief"));
    assert!(arrived, "the relief did not arrive");
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
/// at hand the expedition's first choice is its supply, a camel for each
/// supply unit (for the desert beyond) and its strongest units in the
/// boats, up the Nile to Korti, the place it goes by.
#[test]
fn the_expedition_goes_by_river_when_it_has_boats() {
    use dervish::engine::orders::Leg;
    let (scn, state) = situation("expedition-boats.toml");
    let korti = scn.map.find_place("Korti").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Historical);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    let m = d
        .orders
        .marches
        .iter()
        .find(|m| matches!(m.legs.as_slice(), [Leg::River(_)]))
        .unwrap_or_else(|| panic!("no river march: {d:#?}"));
    assert_eq!(m.legs, vec![Leg::River(korti)]);
    let ids = named(m);
    // Four carriers: two supply units, the camel and the strongest
    // fighting unit (British infantry) as escort, and the carriers.
    assert_eq!(ids.len(), 8, "{ids:?}");
    assert_eq!(&ids[..3], ["BS01", "BS02", "BM01"], "{ids:?}");
    assert!(ids[3].starts_with("BI"), "{ids:?}");
    assert_eq!(&ids[4..], ["BB01", "BB02", "BW01", "BW02"], "{ids:?}");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("first choice, by river (8.23)")),
        "{:?}",
        d.notes
    );
}

/// Scenario 2's evacuation (4.2: "an Egyptian victory at the end of any
/// Mahdist turn when ... the civilian unit is in Wady Halfa or Souakim"):
/// in the opening month the competent persona marches the civilians out of
/// Khartoum by land with an escort of four, for Wady Halfa (the way to
/// Souakim runs past Osman Digma's army), avoiding combat; the rest of the
/// garrison holds Khartoum; Gordon and J. Stewart, British leaders whose
/// stack's destruction wins for the Mahdist (4.2), leave with the gunboats
/// by river, out of reach of land units (6.1). The historical persona
/// stays. Both pass the checker.
#[test]
fn the_competent_persona_evacuates_the_civilians_and_gets_gordon_out_by_river() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (state, _) = initial_state(&scn, &Placements::new()).unwrap();
    let khartoum = scn.map.find_place("Khartoum").unwrap().hex;
    let halfa = scn.map.find_place("Wady Halfa").unwrap().hex;
    let d = egyptian::decide(&scn, &state, Persona::Competent);
    through_the_checker(&scn, &state, Side::Egyptian, &d.orders).unwrap();
    let column = march_to(&d, halfa);
    let units = named(column);
    assert!(units.contains(&"CIV01"), "{units:?}");
    assert_eq!(
        units.len(),
        5,
        "the civilians and an escort of four: {units:?}"
    );
    assert_eq!(column.on_contact, dervish::engine::orders::OnContact::Avoid);
    let in_khartoum = state
        .units
        .iter()
        .filter(|u| u.hex() == Some(khartoum))
        .filter(|u| !scn.units.get(&u.unit_type).unwrap().kind.is_river_unit())
        .count();
    assert!(in_khartoum > units.len(), "some of the garrison stays");
    let by_river = d
        .orders
        .marches
        .iter()
        .find(|m| matches!(m.legs.as_slice(), [dervish::engine::orders::Leg::River(_)]))
        .unwrap_or_else(|| panic!("no river march: {d:#?}"));
    let dervish::engine::orders::Selection::Units { units, leaders } = &by_river.units else {
        panic!("the river march names its units: {by_river:?}")
    };
    assert_eq!(
        leaders,
        &vec!["Gordon".to_string(), "J. Stewart".to_string()]
    );
    assert!(
        units.iter().all(|u| u.0.starts_with("EW")),
        "only the gunboats carry them: {units:?}"
    );
    assert!(
        d.notes.iter().any(|n| n
            .starts_with("the evacuation: the civilians at Khartoum (1942) march for Wady Halfa")),
        "{:?}",
        d.notes
    );
    let cautious = egyptian::decide(&scn, &state, Persona::Historical);
    assert!(
        !cautious
            .orders
            .marches
            .iter()
            .any(|m| matches!(&m.units, dervish::engine::orders::Selection::Units { units, .. } if units.iter().any(|u| u.0.as_ref() == "CIV01"))),
        "the historical persona keeps the civilians in Khartoum"
    );
}
