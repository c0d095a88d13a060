//! House rules (docs/rules.md, "House rules (optional variants)"): the
//! variant `gordon-stays` refuses, through the order checker a player's
//! mail goes through, every order that takes Gordon out of Khartoum, so the
//! programmed players obey it too; the variant `steamers-run-the-siege`
//! lets supply units on gunboats end a river march in a besieged town, in
//! the checker and the march phase alike; the command line takes
//! `--variant NAME` and refuses a name it does not know.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::orders::{Leg, MarchOrder, Orders, Selection};
use dervish::engine::{TurnResult, play_month_with};
use dervish::geo::Hex;
use dervish::orders::{self, Checked, Input, Vocabulary};
use dervish::players::egyptian::{self, Persona};
use dervish::players::mahdist::{self, Opponents};
use dervish::players::reaction::Reactions;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::setup::{Placements, initial_state};
use dervish::state::variant::Variant;
use dervish::state::{GameState, UnitId};

mod common;

fn khartoum(variants: &[Variant]) -> (Scenario, GameState) {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
    state.options.variants = variants.iter().copied().collect();
    (scn, state)
}

fn check(scn: &Scenario, state: &GameState, text: &str) -> Checked {
    let p = orders::parse(&Input::text(text), &Vocabulary::new(scn)).expect("orders read");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    orders::check(&p.sheet, scn, state, Side::Egyptian)
}

const BY_RIVER: &str = "MARCH UNITS ER01 ER02 EW01 EW02 WITH Gordon, J. Stewart RIVER TO Dongola";

/// Rule 4.2: "The Mahdist player wins if any stack containing a British
/// leader is totally eliminated in combat." Under the rules as written
/// Gordon may leave Khartoum by river in the first month; under the house
/// rule `gordon-stays` the order is refused, with a message that says why
/// and what to write instead, and the engine is not given it.
#[test]
fn gordon_stays_refuses_a_march_that_takes_gordon_out_of_khartoum() {
    let (scn, state) = khartoum(&[]);
    let free = check(&scn, &state, BY_RIVER);
    assert!(free.errors.is_empty(), "{:?}", free.errors);
    assert_eq!(free.orders.marches.len(), 1);

    let (scn, state) = khartoum(&[Variant::GordonStays]);
    let kept = check(&scn, &state, BY_RIVER);
    assert_eq!(kept.errors.len(), 1, "{:?}", kept.errors);
    let message = &kept.errors[0].message;
    assert!(message.contains("Gordon stays in Khartoum"), "{message}");
    assert!(message.contains("gordon-stays"), "{message}");
    assert!(kept.orders.marches.is_empty());
    assert!(kept.plans.is_empty());
}

/// The house rule keeps Gordon only: J. Stewart and the garrison may go,
/// and a march that leaves Gordon behind is accepted.
#[test]
fn gordon_stays_lets_the_others_go() {
    let (scn, state) = khartoum(&[Variant::GordonStays]);
    let text = "MARCH UNITS ER01 ER02 EW01 EW02 WITH J. Stewart RIVER TO Dongola\n\
                MARCH STACK Khartoum TO Omdurman";
    let c = check(&scn, &state, text);
    assert_eq!(c.orders.marches.len(), 1, "{:?}", c.errors);
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    assert_eq!(c.errors[0].line, 2, "MARCH STACK takes Gordon along");
}

/// 2.3: scenario 2's garrison sets up in "Khartoum and or Omdurman"; under
/// the house rule Gordon sets up in Khartoum.
#[test]
fn gordon_stays_sets_up_in_khartoum() {
    let (scn, state) = khartoum(&[Variant::GordonStays]);
    let c = check(&scn, &state, "SETUP ER01 ER02 WITH Gordon AT Omdurman");
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    assert!(c.orders.setup.is_empty());
    let c = check(&scn, &state, "SETUP ER01 ER02 WITH J. Stewart AT Omdurman");
    assert!(c.errors.is_empty(), "{:?}", c.errors);
}

/// The programmed players' orders go through the same checker: in
/// campaigns of the competent Egyptian against the Mahdist bot under the
/// house rule, Gordon never leaves Khartoum while it is his.
#[test]
fn the_programmed_players_keep_gordon_in_khartoum() {
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let mut months = 0;
    for seed in 1..=4 {
        let (scn, mut state) = khartoum(&[Variant::GordonStays]);
        let town = scn.map.resolve("Khartoum").unwrap();
        let mut dice = Dice::new(SeededDice::from_seed(seed));
        let mut bot = Dice::new(SeededDice::from_seed(seed + 77));
        while state.result.is_none() {
            let r = play_month_with(
                &scn,
                state,
                &mut |s: &GameState, side| {
                    if side == Side::Mahdist {
                        mahdist::decide(&scn, s, &table, &opponents, &mut bot).orders
                    } else {
                        egyptian::decide(&scn, s, Persona::Competent).orders
                    }
                },
                &mut dice,
            );
            state = r.state;
            months += 1;
            let gordon = state.leaders.iter().find(|l| l.name == "Gordon").unwrap();
            assert!(
                gordon.removed || gordon.hex.is_none() || gordon.hex == Some(town),
                "seed {seed}, {}: Gordon at {:?}",
                state.month,
                gordon.hex
            );
        }
    }
    assert!(months >= 10, "{months}");
}

/// A game stored before house rules existed reads with none, and a state
/// without any writes none (old stored games load unchanged).
#[test]
fn a_state_without_variants_reads_and_writes_as_before() {
    let (_, state) = khartoum(&[]);
    let json = serde_json::to_string(&state).unwrap();
    assert!(!json.contains("variants"));
    let back: GameState = serde_json::from_str(&json).unwrap();
    assert!(back.options.variants.is_empty());
    let (_, with) = khartoum(&[Variant::GordonStays]);
    let json = serde_json::to_string(&with).unwrap();
    assert!(json.contains("\"variants\":[\"gordon-stays\"]"), "{json}");
    let back: GameState = serde_json::from_str(&json).unwrap();
    assert_eq!(back.options.names(), vec!["gordon-stays"]);
}

/// `--variant NAME` on the command line: a name it does not know is an
/// argument error (exit code 2) that lists the variants; a known one plays.
#[test]
fn the_command_line_takes_a_variant_and_refuses_an_unknown_one() {
    for command in ["simulate", "balance"] {
        let (_, err, code) = common::process::dervish(&[command, "--variant", "gordon-goes"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains("gordon-goes") && err.contains("gordon-stays"),
            "{err}"
        );
    }
    let (out, err, code) = common::process::dervish(&[
        "simulate",
        "--scenario",
        "khartoum",
        "--months",
        "1",
        "--egyptian",
        "competent",
        "--mahdist",
        "bot",
        "--variant",
        "gordon-stays",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("House rules: gordon-stays"), "{out}");
    assert!(out.contains("Gordon may not leave (house rule)"), "{out}");
}

#[test]
fn a_game_made_with_the_house_rule_keeps_it_and_tells_its_players() {
    for variant in Variant::ALL {
        let dir = std::env::temp_dir().join(format!(
            "dervish-variant-{}-{}",
            std::process::id(),
            variant.key()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let config = common::process::config_file(&dir, &dir.join("d.sqlite"), "");
        let mut new = common::process::new_game("v1", "gordon@example.org", "mahdi@example.org");
        new.extend(["--variant", variant.key()]);
        let (_, err, code) = common::process::dervish_with(&config, &new);
        assert_eq!(code, 0, "{err}");
        let (show, err, code) = common::process::dervish_with(&config, &["game", "show", "v1"]);
        assert_eq!(code, 0, "{err}");
        assert!(show.contains(variant.key()), "{show}");
        let (_, err, code) = common::process::dervish_with(&config, &["run", "--once"]);
        assert_eq!(code, 0, "{err}");
        let told = format!(
            "This game is played with the house rule \"{}\"",
            variant.key()
        );
        let mut welcomes = 0;
        for entry in std::fs::read_dir(dir.join("outbox")).unwrap() {
            let mail = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            if mail.contains("To: gordon@example.org") || mail.contains("To: mahdi@example.org") {
                assert!(mail.contains(&told), "{variant}: {mail}");
                welcomes += 1;
            }
        }
        assert_eq!(welcomes, 2, "{variant}: a welcome to each player");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Besieged Khartoum (a Mahdist unit next to it, not across a river) with
/// two Egyptian battalions, and at Metammeh, down the Nile, a British
/// gunboat, a British supply unit and a British battalion: the bench, and
/// the supply unit's and the battalion's IDs.
fn steamers_at_metammeh(variants: &[Variant]) -> (common::bench::Bench, UnitId, UnitId) {
    let mut b = common::bench::Bench::new("khartoum");
    let khartoum = b.hex("Khartoum");
    let omdurman = b.hex("Omdurman");
    b.place("egy-inf-L", 2, "Khartoum");
    let next = khartoum
        .neighbours()
        .into_iter()
        .find(|h| {
            b.scn.map.is_land(*h)
                && !b.scn.map.crosses_river(khartoum, *h)
                && b.scn.map.settlement_at(*h).is_none()
                && *h != omdurman
        })
        .expect("a land hex beside Khartoum");
    b.place("mah-S", 1, &next.to_string());
    b.place("brit-gunboat", 1, "Metammeh");
    let supply = b.place("brit-supply", 1, "Metammeh").remove(0);
    let infantry = b.place("brit-inf", 1, "Metammeh").remove(0);
    b.state.options.variants = variants.iter().copied().collect();
    (b, supply, infantry)
}

/// A river march from Metammeh to Khartoum of `units` (the gunboats at
/// Metammeh go along).
fn by_river_to_khartoum(b: &common::bench::Bench, units: Vec<UnitId>) -> Orders {
    let mut units = units;
    units.extend(
        b.state
            .units
            .iter()
            .filter(|u| &*u.unit_type == "brit-gunboat" && u.hex() == Some(b.hex("Metammeh")))
            .map(|u| u.id.clone()),
    );
    Orders {
        marches: vec![MarchOrder {
            units: Selection::Units {
                units,
                leaders: Vec::new(),
            },
            ..MarchOrder::stack(b.hex("Metammeh"), vec![Leg::River(b.hex("Khartoum"))])
        }],
        ..Orders::default()
    }
}

fn khartoum_of(b: &common::bench::Bench) -> Hex {
    b.hex("Khartoum")
}

/// The IDs of the British gunboats on the map.
fn british_gunboats(b: &common::bench::Bench) -> Vec<String> {
    b.state
        .units
        .iter()
        .filter(|u| &*u.unit_type == "brit-gunboat" && u.hex().is_some())
        .map(|u| u.id.0.to_string())
        .collect()
}

/// The march phase set a march aside for the siege (9.12).
fn assert_set_aside_for_the_siege(r: &TurnResult) {
    let aside = common::bench::set_aside(r);
    assert!(
        aside
            .iter()
            .any(|s| s.contains("under siege: no new unit may enter")),
        "{aside:?}"
    );
}

/// The checker refused the first order for the siege (9.12).
#[track_caller]
fn assert_refused_for_the_siege(c: &Checked) {
    common::assert_first_error(c, "under siege");
}

/// 9.12: "No new friendly unit may enter the besieged hex until all enemy
/// units adjacent to that hex have been removed by combat." As written,
/// the steamers do not carry supply into a besieged Khartoum; under the
/// house rule `steamers-run-the-siege` they do, in the march phase as in
/// the order checker.
#[test]
fn steamers_run_the_siege_with_supply_under_the_house_rule_only() {
    for (variants, enters) in [(vec![], false), (vec![Variant::SteamersRunTheSiege], true)] {
        let (b, supply, _) = steamers_at_metammeh(&variants);
        let orders = by_river_to_khartoum(&b, vec![supply.clone()]);
        // Low dice: no gunboat wrecked at the Sixth Cataract (8.23 IV).
        let r = b.play(Side::Egyptian, &orders, &[1, 1, 1, 1, 1, 1]);
        assert_eq!(
            b.at(&r, &supply) == Some(khartoum_of(&b)),
            enters,
            "{variants:?}: {:?}",
            common::bench::set_aside(&r)
        );
        if !enters {
            assert_set_aside_for_the_siege(&r);
        }
        let text = format!(
            "MARCH UNITS {} {} RIVER TO Khartoum",
            supply.0,
            british_gunboats(&b)[0]
        );
        let c = check(&b.scn, &b.state, &text);
        assert_eq!(c.errors.is_empty(), enters, "{variants:?}: {:?}", c.errors);
        if !enters {
            assert_refused_for_the_siege(&c);
        }
    }
}

/// The house rule lets supply through, not troops: a battalion aboard is
/// refused by the checker and set aside by the march phase (9.12 stands).
#[test]
fn steamers_run_the_siege_with_supply_only() {
    let (b, supply, infantry) = steamers_at_metammeh(&[Variant::SteamersRunTheSiege]);
    let mut b = b;
    b.place("brit-gunboat", 1, "Metammeh");
    let orders = by_river_to_khartoum(&b, vec![supply.clone(), infantry.clone()]);
    let r = b.play(Side::Egyptian, &orders, &[1, 1, 1, 1, 1, 1]);
    assert_ne!(b.at(&r, &infantry), Some(khartoum_of(&b)));
    assert_ne!(b.at(&r, &supply), Some(khartoum_of(&b)));
    assert_set_aside_for_the_siege(&r);
    let text = format!(
        "MARCH UNITS {} {} {} RIVER TO Khartoum",
        supply.0,
        infantry.0,
        british_gunboats(&b).join(" ")
    );
    let c = check(&b.scn, &b.state, &text);
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    assert_refused_for_the_siege(&c);
}

/// The competent Egyptian plays the house rule: with supply and gunboats
/// on the Nile below a besieged Khartoum it sends the supply up the river
/// into the town, and its notes say so; without the house rule it does
/// not.
#[test]
fn the_competent_egyptian_sends_the_steamers_under_the_house_rule() {
    for (variants, sends) in [(vec![], false), (vec![Variant::SteamersRunTheSiege], true)] {
        let (mut b, supply, _) = steamers_at_metammeh(&variants);
        b.leader("Gordon", "Khartoum");
        // Besiegers too strong for the column at Metammeh to relieve
        // Khartoum by land (rule 1 of the Egyptian player).
        let besiegers = b
            .state
            .units
            .iter()
            .find(|u| &*u.unit_type == "mah-S" && u.hex().is_some())
            .and_then(|u| u.hex())
            .unwrap();
        b.place("mah-S", 5, &besiegers.to_string());
        let d = egyptian::decide(&b.scn, &b.state, Persona::Competent);
        let river_to_khartoum = d.orders.marches.iter().any(|m| {
            m.legs == vec![Leg::River(khartoum_of(&b))]
                && matches!(&m.units, Selection::Units { units, .. } if units.contains(&supply))
        });
        assert_eq!(river_to_khartoum, sends, "{variants:?}: {:?}", d.notes);
        assert_eq!(
            d.notes.iter().any(|n| n.contains("steamers-run-the-siege")),
            sends,
            "{:?}",
            d.notes
        );
    }
}
