//! The Mahdist player of the reaction table: its orders always pass the
//! checker a player's mail goes through, it is the same under the same
//! seed, and it keeps the umpire's notes of every roll.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::Decision;
use dervish::players::mahdist::{Opponents, decide};
use dervish::players::reaction::Reactions;
use dervish::players::simple::simple_orders;
use dervish::players::{keep_checked, through_the_checker};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

mod common;

/// The Mahdist player's decision for `state` with dice seeded `seed`.
fn decide_seeded(
    scn: &Scenario,
    state: &GameState,
    table: &Reactions,
    opponents: &Opponents,
    seed: u64,
) -> Decision {
    decide(
        scn,
        state,
        table,
        opponents,
        &mut Dice::new(SeededDice::from_seed(seed)),
    )
}

/// Mahdist positions to decide for, from campaigns of both scenarios in
/// which the Mahdist bot plays the simple Egyptian player.
const STATES: usize = 10_000;

#[test]
fn its_orders_pass_the_checker_in_every_state_and_repeat_under_a_seed() {
    let data = DataSet::embedded().unwrap();
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let mut decided = 0;
    let mut marches = 0;
    let mut seed = 1;
    let mut situations = std::collections::BTreeSet::new();
    while decided < STATES {
        for id in ["el-obeid", "khartoum"] {
            let scn = data.scenario(id).unwrap();
            let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
            let mut dice = Dice::new(SeededDice::from_seed(seed));
            let mut bot = Dice::new(SeededDice::from_seed(seed + 1_000_000));
            let mut problems: Vec<String> = Vec::new();
            while state.result.is_none() && decided < STATES {
                let month = state.month;
                let r = play_month_with(
                    &scn,
                    state,
                    &mut |s: &GameState, side| {
                        if side == Side::Egyptian {
                            return simple_orders(&scn, s, side);
                        }
                        let d = decide(&scn, s, &table, &opponents, &mut bot);
                        decided += 1;
                        marches += d.orders.marches.len();
                        for n in &d.notes {
                            if n.contains("left out") {
                                problems.push(n.clone());
                            }
                            if let Some(s) = n.split(": ").nth(1) {
                                situations.insert(s.to_string());
                            }
                        }
                        if let Err(e) = through_the_checker(&scn, s, side, &d.orders) {
                            problems.push(e);
                        }
                        let (kept, _) = keep_checked(&scn, s, side, d.orders.clone());
                        assert_eq!(kept, d.orders, "the decision is what the checker keeps");
                        // The same position and the same dice: the same
                        // decision, roll for roll.
                        if decided % 97 == 0 {
                            let again = decided as u64;
                            assert_eq!(
                                decide_seeded(&scn, s, &table, &opponents, again),
                                decide_seeded(&scn, s, &table, &opponents, again)
                            );
                        }
                        d.orders
                    },
                    &mut dice,
                );
                assert!(problems.is_empty(), "{id}, {month}: {problems:#?}");
                state = r.state;
                if state.month == month {
                    break;
                }
            }
        }
        seed += 1;
    }
    // The table is really in use: the bot marches, and meets many
    // situations.
    assert!(marches > STATES, "{marches} marches in {STATES} decisions");
    assert!(situations.len() >= 8, "{situations:?}");
}

/// Every stack's roll is in the umpire's notes, with its situation, the
/// dice and the letters, and what the stack does.
#[test]
fn the_umpires_notes_name_every_roll() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
    // The Mahdist player turn of the opening month, after the set-up and
    // the Egyptian player turn.
    state.effects.egyptian_turn_played = true;
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let d = decide_seeded(&scn, &state, &table, &opponents, 7);
    assert!(!d.rolls.is_empty());
    assert_eq!(
        d.notes.iter().filter(|n| n.contains("; 2D6 ")).count(),
        d.rolls.len(),
        "{:#?}",
        d.notes
    );
    for (n, r) in d.notes.iter().zip(&d.rolls) {
        assert!(n.contains(&format!(" = {}: ", r.result)), "{n}");
        assert!(
            r.purpose.starts_with("Mahdist reaction of the stack at "),
            "{}",
            r.purpose
        );
    }
    // At the start, the Mahdist army is fresh, or has the enemy in sight.
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("fresh troops") || n.contains("enemy visible")),
        "{:#?}",
        d.notes
    );
}

/// Every objective of every scenario is a place on the map.
#[test]
fn the_objectives_are_places_on_the_map() {
    let data = DataSet::embedded().unwrap();
    let opponents = Opponents::shipped().unwrap();
    for id in data.scenario_ids() {
        let scn = data.scenario(&id).unwrap();
        let hexes = opponents.objectives(&scn).unwrap();
        assert!(hexes.len() >= 3, "{id}: {hexes:?}");
    }
}

/// The set-up (2.1): asked before the first Egyptian player turn, the
/// Mahdist player places its army (Osman Digna's men round Sinkat, the
/// objective nearest the Souakim extension; the Mahdi's army as near
/// Khartoum as its villages allow; never more than the scenario's six
/// units a hex, 2.3) and orders the month's marches from where the set-up
/// puts it, every order through the checker.
#[test]
fn the_set_up_places_the_army_near_its_objectives() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (state, _) = initial_state(&scn, &Placements::new()).unwrap();
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let d = decide_seeded(&scn, &state, &table, &opponents, 7);
    assert!(!d.orders.setup.is_empty(), "{:#?}", d.notes);
    assert!(
        !d.rolls.is_empty(),
        "the stacks roll for the month's marches"
    );
    assert!(
        d.notes.iter().all(|n| !n.contains("left out")),
        "{:#?}",
        d.notes
    );
    let mut events = Vec::new();
    let placed =
        dervish::engine::set_up(&scn, state.clone(), Side::Mahdist, &d.orders, &mut events);
    let sinkat = scn.map.resolve("Sinkat").unwrap();
    let osman = placed
        .leaders
        .iter()
        .find(|l| l.name == "Osman Digma")
        .and_then(|l| l.hex)
        .unwrap();
    assert!(osman.distance(sinkat) <= 2, "Osman Digma at {osman}");
    let mut per_hex: std::collections::BTreeMap<_, usize> = Default::default();
    for u in placed.units.iter().filter(|u| u.side == Side::Mahdist) {
        if let Some(h) = u.hex() {
            *per_hex.entry(h).or_default() += 1;
        }
    }
    assert!(per_hex.values().all(|&n| n <= 6), "{per_hex:?}");
    // The marches start where the set-up put the stacks.
    for m in &d.orders.marches {
        if let dervish::engine::orders::Selection::Stack(h) = m.units {
            assert!(
                per_hex.contains_key(&h),
                "a march from {h}, where no one stands"
            );
        }
    }
    // The same state and seed, the same set-up.
    let again = decide_seeded(&scn, &state, &table, &opponents, 7);
    assert_eq!(again.orders, d.orders);
}

/// The set-up shares each line among the objectives nearest its zone
/// (docs/opponents.md, "The set-up"): Osman Digna's men sit before Sinkat
/// and Tokar at once, with a detachment before Berber; the month's
/// reactions then storm a town where a stack has the strength for it,
/// whatever its letter.
#[test]
fn the_set_up_shares_the_army_and_strong_stacks_storm() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (state, _) = initial_state(&scn, &Placements::new()).unwrap();
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let mut stormed = 0;
    for seed in 1..=12 {
        let d = decide_seeded(&scn, &state, &table, &opponents, seed);
        let placed = dervish::engine::set_up(
            &scn,
            state.clone(),
            Side::Mahdist,
            &d.orders,
            &mut Vec::new(),
        );
        for town in ["Sinkat", "Tokar", "Berber"] {
            let h = scn.map.resolve(town).unwrap();
            assert!(
                placed
                    .units
                    .iter()
                    .any(|u| u.side == Side::Mahdist && u.hex().is_some_and(|x| x.distance(h) == 1)),
                "seed {seed}: no one set up before {town}"
            );
        }
        // A storm is a march that attacks the town it ends in.
        if d.notes.iter().any(|n| n.contains("storms Sinkat")) {
            stormed += 1;
            let sinkat = scn.map.resolve("Sinkat").unwrap();
            assert!(
                d.orders.marches.iter().any(|m| {
                    m.on_contact == dervish::engine::orders::OnContact::AttackAny
                        && m.legs.last() == Some(&dervish::engine::orders::Leg::To(sinkat))
                }),
                "seed {seed}: {:#?}",
                d.orders.marches
            );
        }
        // Men going home are named from the stacks farthest from the
        // objectives, never from one before an objective the enemy holds.
        assert!(!d.orders.event_losses.is_empty(), "seed {seed}");
        let objectives = opponents.objectives(&scn).unwrap();
        for id in &d.orders.event_losses {
            let at = placed
                .units
                .iter()
                .find(|u| &u.id == id)
                .and_then(|u| u.hex())
                .unwrap();
            assert!(
                objectives.iter().all(|o| o.distance(at) > 1),
                "seed {seed}: {id} at {at} is before an objective"
            );
        }
    }
    // The stack before Sinkat has three times its garrison: it storms
    // whatever its reaction roll (12 seeds, 12 rolls).
    assert_eq!(
        stormed, 12,
        "the stack before Sinkat stormed under {stormed} seeds of 12"
    );
    // Short of the ratio it sits down instead.
    let cautious = Opponents::parse(
        &dervish::players::mahdist::OPPONENTS_RON
            .replace("assault_ratio: 3,", "assault_ratio: 30,"),
    )
    .unwrap();
    let d = decide_seeded(&scn, &state, &table, &cautious, 1);
    assert!(
        !d.notes.iter().any(|n| n.contains("storms Sinkat")),
        "{:#?}",
        d.notes
    );
}

/// Assault ratios name places of the map; an unknown one is refused,
/// named.
#[test]
fn assault_ratios_name_places_of_the_map() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let opponents = Opponents::shipped().unwrap();
    let ratios = opponents.ratios(&scn).unwrap();
    let khartoum = scn.map.resolve("Khartoum").unwrap();
    let souakim = scn.map.resolve("Souakim").unwrap();
    assert_eq!(ratios, vec![(khartoum, 12), (souakim, 6)]);
    let wrong = Opponents::parse(
        &dervish::players::mahdist::OPPONENTS_RON.replace("\"Souakim\": 6}", "\"Atlantis\": 6}"),
    )
    .unwrap();
    let e = wrong.ratios(&scn).unwrap_err();
    assert!(e.contains("\"Atlantis\""), "{e}");
}

use common::fixture as situation;

/// The storm before a relief (opponents.ron `relief_storm`): the Mahdi
/// stormed Khartoum on 26 January 1885 with the Desert Column's steamers
/// two days away. Six ansar before four defenders are far short of
/// Khartoum's ratio (12), so they sit down; with a British column within
/// 10 hexes they storm at once, whatever their reaction roll; a British
/// column farther off, or none, changes nothing.
#[test]
fn a_relief_coming_makes_the_besiegers_storm() {
    use dervish::engine::orders::{Leg, OnContact};
    let (scn, state) = situation("relief-coming.toml");
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let khartoum = scn.map.resolve("Khartoum").unwrap();
    let storms = |s: &GameState, seed: u64| {
        let d = decide_seeded(&scn, s, &table, &opponents, seed);
        through_the_checker(&scn, s, Side::Mahdist, &d.orders).unwrap();
        let note = d.notes.iter().any(|n| {
            n.contains("storms Khartoum (1942) (6 strength against 4: 1 times the garrison or more, a relief coming: the British at 1838")
        });
        let order = d.orders.marches.iter().any(|m| {
            m.on_contact == OnContact::AttackAny && m.legs.last() == Some(&Leg::To(khartoum))
        });
        assert_eq!(note, order, "seed {seed}: {:#?}", d.notes);
        note
    };
    for seed in 1..=12 {
        assert!(storms(&state, seed), "seed {seed}: no storm");
    }
    // The British column 20 hexes away (Korti): no storm.
    let mut far = state.clone();
    let korti = scn.map.resolve("Korti").unwrap();
    for u in far.units.iter_mut().filter(|u| u.side == Side::Egyptian) {
        if u.hex() == scn.map.resolve("1838").ok() {
            u.status = dervish::state::Status::OnMap(korti);
        }
    }
    for seed in 1..=12 {
        assert!(
            !storms(&far, seed),
            "seed {seed}: a storm with no relief near"
        );
    }
    // Relief storms are data: none in scenario 1.
    let data = DataSet::embedded().unwrap();
    assert!(
        opponents
            .relief_storm(&data.scenario("el-obeid").unwrap())
            .is_none()
    );
    let r = opponents.relief_storm(&scn).unwrap();
    assert_eq!((r.within, r.ratio), (10, 1));
}

/// An objective the enemy left empty next to a stack is walked into
/// whatever the stack's reaction (opponents.ron `occupy_reach`, 1 in
/// scenario 2): Tokar's garrison gave up in February 1884. Scenario 1 has
/// no such rule: the reaction alone decides.
#[test]
fn an_empty_town_next_door_is_taken() {
    use dervish::engine::orders::Leg;
    let (scn, state) = situation("empty-tokar.toml");
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let tokar = scn.map.resolve("Tokar").unwrap();
    for seed in 1..=12 {
        let d = decide_seeded(&scn, &state, &table, &opponents, seed);
        through_the_checker(&scn, &state, Side::Mahdist, &d.orders).unwrap();
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("marches to take Tokar (5723), which the enemy left empty")),
            "seed {seed}: {:#?}",
            d.notes
        );
        assert!(
            d.orders
                .marches
                .iter()
                .any(|m| m.legs.last() == Some(&Leg::To(tokar))),
            "seed {seed}"
        );
    }
    let data = DataSet::embedded().unwrap();
    assert_eq!(opponents.occupy_reach(&scn), 1);
    assert_eq!(
        opponents.occupy_reach(&data.scenario("el-obeid").unwrap()),
        0
    );
}

/// The hunt (docs/opponents.md): the civilians on their way to Wady Halfa
/// or Souakim win the game for the Egyptian side (4.2), so a Mahdist stack
/// with twice their escort's strength within `hunt_reach` hexes marches on
/// them and attacks them, whatever its reaction roll says.
#[test]
fn a_strong_stack_hunts_the_civilians_in_the_open() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
    state.setup_placed = true;
    state.effects.egyptian_turn_played = true;
    let opponents = Opponents::shipped().unwrap();
    let table = Reactions::shipped().unwrap();
    // The strongest Mahdist stack, and a clear hex 4 away from it.
    let hunter = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == Side::Mahdist)
        .max_by_key(|s| s.units.iter().map(|u| u.strength).sum::<u32>())
        .map(|s| s.hex)
        .unwrap();
    let prey = hunter
        .within(4)
        .into_iter()
        .filter(|h| h.distance(hunter) == 4 && scn.map.is_land(*h))
        .filter(|h| scn.map.settlement_at(*h).is_none())
        .filter(|h| state.units.iter().all(|u| u.hex() != Some(*h)))
        .find(|h| {
            dervish::geo::route::land_route(&scn.map, hunter, *h).is_some_and(|r| r.cost <= 8)
        })
        .unwrap();
    for u in state.units.iter_mut() {
        if u.id.0.as_ref() == "CIV01" || u.id.0.as_ref() == "ER01" {
            u.status = dervish::state::Status::OnMap(prey);
        }
    }
    let d = decide_seeded(&scn, &state, &table, &opponents, 5);
    let hunt = d
        .orders
        .marches
        .iter()
        .find(|m| m.units == dervish::engine::orders::Selection::Stack(hunter))
        .unwrap_or_else(|| panic!("the stack at {hunter} stays: {:#?}", d.notes));
    assert_eq!(
        hunt.legs.last(),
        Some(&dervish::engine::orders::Leg::To(prey)),
        "{hunt:?}"
    );
    // Only the column is attacked: a town on the way is not stormed.
    assert_eq!(
        hunt.on_contact,
        dervish::engine::orders::OnContact::AttackHexes(vec![prey])
    );
    assert!(
        d.notes.iter().any(|n| n.contains(&format!(
            "hunts the enemy column at {}",
            scn.map.describe(prey)
        ))),
        "{:#?}",
        d.notes
    );
}

/// The chase (docs/opponents.md, "The chase"): the civilians and their
/// escort of four (5 strength) twelve hexes down the Nile from Khartoum,
/// the first month out (4.2: "the civilian unit is in Wady Halfa or
/// Souakim" wins for the Egyptian side). No Mahdist stack of the set-up has
/// twice their strength, so none hunts them alone; the nearest stacks
/// within `chase_reach` hexes that have it together all march on the
/// column and attack it, and only it (a town on the way is not stormed).
#[test]
fn stacks_join_to_chase_the_civilians_down_the_nile() {
    use dervish::engine::orders::{Leg, OnContact};
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
    state.setup_placed = true;
    state.effects.egyptian_turn_played = true;
    let opponents = Opponents::shipped().unwrap();
    let table = Reactions::shipped().unwrap();
    assert_eq!((opponents.chase_reach, opponents.chase_ratio), (24, 2));
    let column = scn.map.resolve("1831").unwrap();
    for u in state.units.iter_mut() {
        if ["CIV01", "ER01", "ER02", "ER03", "ER04"].contains(&u.id.0.as_ref()) {
            u.status = dervish::state::Status::OnMap(column);
        }
    }
    let strongest = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == Side::Mahdist)
        .map(|s| s.units.iter().map(|u| u.strength).sum::<u32>())
        .max()
        .unwrap();
    assert!(strongest < 10, "a stack could hunt the column alone");
    for seed in 1..=6 {
        let d = decide_seeded(&scn, &state, &table, &opponents, seed);
        through_the_checker(&scn, &state, Side::Mahdist, &d.orders).unwrap();
        let chasers: Vec<_> = d
            .orders
            .marches
            .iter()
            .filter(|m| m.legs.last() == Some(&Leg::To(column)))
            .collect();
        assert!(chasers.len() >= 2, "seed {seed}: {:#?}", d.notes);
        for m in &chasers {
            assert_eq!(m.on_contact, OnContact::AttackHexes(vec![column]));
        }
        let noted = d
            .notes
            .iter()
            .filter(|n| n.contains("joins the chase of the enemy column at 1831"))
            .count();
        assert_eq!(noted, chasers.len(), "seed {seed}: {:#?}", d.notes);
    }
}

/// Closing the siege (opponents.ron `close_siege`): in the opening month
/// no Mahdist land unit stands next to Khartoum, so the nearest stack
/// marches up to it, avoiding battle, whatever its reaction (9.12: a
/// besieged town lets no relief in and no civilians out). Once a stack is
/// next to it, no other is sent.
#[test]
fn the_siege_of_khartoum_is_closed_in_the_first_month() {
    use dervish::engine::orders::{Leg, OnContact};
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
    state.setup_placed = true;
    state.effects.egyptian_turn_played = true;
    let opponents = Opponents::shipped().unwrap();
    let table = Reactions::shipped().unwrap();
    let khartoum = scn.map.resolve("Khartoum").unwrap();
    assert_eq!(opponents.close_siege(&scn).unwrap(), vec![khartoum]);
    let next_to = |s: &GameState| {
        s.units
            .iter()
            .filter(|u| u.side == Side::Mahdist)
            .filter_map(|u| u.hex())
            .any(|h| h.distance(khartoum) == 1)
    };
    assert!(!next_to(&state));
    let closes = |s: &GameState, seed: u64| {
        let d = decide_seeded(&scn, s, &table, &opponents, seed);
        through_the_checker(&scn, s, Side::Mahdist, &d.orders).unwrap();
        let closing: Vec<_> = d
            .orders
            .marches
            .iter()
            .filter(|m| {
                matches!(m.legs.last(), Some(Leg::To(h)) if h.distance(khartoum) == 1)
                    && m.on_contact == OnContact::Avoid
            })
            .collect();
        let noted = d
            .notes
            .iter()
            .filter(|n| n.contains("to close the siege of Khartoum (1942)"))
            .count();
        (closing.len(), noted)
    };
    for seed in 1..=6 {
        assert_eq!(closes(&state, seed), (1, 1), "seed {seed}");
    }
    // A stack next to Khartoum already: no one is sent.
    let camp = khartoum
        .neighbours()
        .into_iter()
        .find(|h| scn.map.is_land(*h) && state.units.iter().all(|u| u.hex() != Some(*h)))
        .unwrap();
    let mut besieged = state.clone();
    let unit = besieged
        .units
        .iter_mut()
        .find(|u| u.side == Side::Mahdist && u.hex().is_some() && &*u.unit_type == "mah-S")
        .unwrap();
    unit.status = dervish::state::Status::OnMap(camp);
    assert!(next_to(&besieged));
    for seed in 1..=6 {
        assert_eq!(closes(&besieged, seed).1, 0, "seed {seed}");
    }
}
