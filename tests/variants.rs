//! House rules (docs/rules.md, "House rules (optional variants)"): the
//! variant `gordon-stays` refuses, through the order checker a player's
//! mail goes through, every order that takes Gordon out of Khartoum, so the
//! programmed players obey it too; the command line takes `--variant NAME`
//! and refuses a name it does not know.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::orders::{self, Checked, Input, Vocabulary};
use dervish::players::egyptian::{self, Persona};
use dervish::players::mahdist::{self, Opponents};
use dervish::players::reaction::Reactions;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use dervish::state::variant::Variant;

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
    let dir = std::env::temp_dir().join(format!("dervish-variant-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = common::process::config_file(&dir, &dir.join("d.sqlite"), "");
    let mut new = common::process::new_game("v1", "gordon@example.org", "mahdi@example.org");
    new.extend(["--variant", "gordon-stays"]);
    let (_, err, code) = common::process::dervish_with(&config, &new);
    assert_eq!(code, 0, "{err}");
    let (show, err, code) = common::process::dervish_with(&config, &["game", "show", "v1"]);
    assert_eq!(code, 0, "{err}");
    assert!(show.contains("gordon-stays"), "{show}");
    let (_, err, code) = common::process::dervish_with(&config, &["run", "--once"]);
    assert_eq!(code, 0, "{err}");
    let mut welcomes = 0;
    for entry in std::fs::read_dir(dir.join("outbox")).unwrap() {
        let mail = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        if mail.contains("To: gordon@example.org") || mail.contains("To: mahdi@example.org") {
            assert!(
                mail.contains("This game is played with the house rule \"gordon-stays\""),
                "{mail}"
            );
            welcomes += 1;
        }
    }
    assert_eq!(welcomes, 2, "a welcome to each player");
    let _ = std::fs::remove_dir_all(&dir);
}
