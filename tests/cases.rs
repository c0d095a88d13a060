//! The rule-case corpus (`tests/cases/*.toml`, docs/cases.md): every case
//! passes, every numbered rules section has a case, and the runner and the
//! game master's `game new --situation` behave as documented.

#[path = "common/process.rs"]
mod process;
#[path = "common/text.rs"]
mod text;

use std::path::{Path, PathBuf};

use dervish::cases;
use dervish::scenario::DataSet;
use dervish::state::Status;
use process::{configured, dervish};
use text::says;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// A case of the corpus that passes.
fn good_case() -> PathBuf {
    corpus()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("9.4-fire-and-melee"))
        .unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/case-fixtures")
        .join(name)
}

#[test]
fn every_case_in_the_corpus_passes() {
    let data = DataSet::embedded().unwrap();
    let files = corpus();
    assert!(files.len() >= 30, "only {} cases", files.len());
    let mut failed = String::new();
    for f in &files {
        match cases::load(f, &data) {
            Ok(case) => {
                let out = cases::run(&case);
                if !out.passed() {
                    failed.push_str(&out.summary());
                }
            }
            Err(d) => failed.push_str(&format!("ERROR {}\n{d}\n", f.display())),
        }
    }
    assert!(failed.is_empty(), "failing cases:\n{failed}");
}

/// The numbered sections of the rules, each of which needs a case.
const SECTIONS: &[&str] = &[
    "1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "3.1", "3.2", "3.21", "3.3", "3.4", "3.41",
    "4.1", "4.2", "5.1", "5.2", "5.3", "6.0", "6.1", "7.0", "7.1", "7.2", "7.3", "7.4", "8.1",
    "8.2", "8.21", "8.22", "8.23", "8.24", "8.25", "8.3", "8.31", "9.1", "9.2", "9.3", "9.4",
    "9.5", "9.6", "9.7", "9.8", "9.9", "9.12",
];

#[test]
fn every_numbered_section_of_the_rules_has_a_case() {
    let data = DataSet::embedded().unwrap();
    let mut covered = std::collections::BTreeSet::new();
    for f in corpus() {
        if let Ok(case) = cases::load(&f, &data) {
            covered.extend(case.rules);
        }
    }
    let missing: Vec<&str> = SECTIONS
        .iter()
        .copied()
        .filter(|s| !covered.contains(*s))
        .collect();
    assert!(missing.is_empty(), "sections with no case: {missing:?}");
}

#[test]
fn case_run_passes_a_good_case_and_fails_a_wrong_one_with_the_difference() {
    let good = good_case();
    let (out, err, code) = dervish(&["case", "run", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("PASS "), "{out}");

    let wrong = fixture("wrong-expectations.toml");
    let (out, _, code) = dervish(&["case", "run", wrong.to_str().unwrap()]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("FAIL "), "{out}");
    // The missing fragment and the nearest log line.
    assert!(out.contains("the log lacks \"Mahdist won\""), "{out}");
    assert!(out.contains("| ") && out.contains("Egyptian won"), "{out}");
    // A unit's actual place.
    assert!(
        out.contains("BI01 is expected at Khartoum, and it is at 1331"),
        "{out}"
    );
    assert!(out.contains("0 passed, 1 failed"), "{out}");

    // --verbose adds the receipt, every roll with its dice, and the log.
    let (out, _, _) = dervish(&["case", "run", "--verbose", good.to_str().unwrap()]);
    says(
        &out,
        &[
            "--- receipt, Egyptian",
            "dice 1-2: D66 for Egyptian random event",
            "phase III. march",
        ],
    );
}

#[test]
fn a_bad_file_is_a_clear_error_and_the_other_files_still_run() {
    let good = good_case();
    let bad = fixture("bad-values.toml");
    let (out, _, code) = dervish(&[
        "case",
        "run",
        bad.to_str().unwrap(),
        "no-such-case.toml",
        good.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    // The bad files are errors; the good case still runs.
    says(
        &out,
        &[
            "ERROR ",
            "cannot read the case file",
            "PASS ",
            "1 passed, 2 failed",
        ],
    );
}

#[test]
fn every_bad_value_is_named_with_its_field_and_what_is_allowed() {
    let data = DataSet::embedded().unwrap();
    let err = cases::load(&fixture("bad-values.toml"), &data)
        .unwrap_err()
        .to_string();
    for want in [
        // field, and what is allowed
        "situation.units[0].at: no place called Kartoum; did you mean Khartoum (1942)?",
        "situation.units[1].type: no unit type brit-infantry",
        "did you mean brit-inf?",
        "situation.units[2].status: `awaiting` needs the month",
        "situation.units[2].origin: no reinforcement called first-field-force",
        "situation.leaders[0].name: no leader called Gordan",
        "situation.control.Berber: `sudanese` is not a side",
        "play.turns: `both` is not a choice of turns",
        "use \"egyptian\", \"mahdist\" or \"month\"",
        "dice.faces[1]: 101 is not a die face",
        "expect.units[0].at: `soon` is not a month",
        "situation.counters.victory-9",
        "rules: `nine` is not a rules section",
        "situation.events: `loud` is not an events setting",
        "situation.units[3].at: 5621 is sea or off the land map",
        "situation.units[4].name: a name is one counter's",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    // Each problem names the file and, where it can, the line.
    assert!(err.contains("bad-values.toml:"), "{err}");
}

#[test]
fn toml_errors_and_unknown_keys_name_the_file_and_line() {
    let data = DataSet::embedded().unwrap();
    let refused = |file: &str, text: &str| {
        cases::parse(file, text, Path::new("."), &data)
            .unwrap_err()
            .to_string()
    };
    let err = refused(
        "typo.toml",
        "name = \"x\"\nscenario = \"khartoum\"\n[situation]\nmonht = \"1884-03\"\n",
    );
    assert!(err.starts_with("typo.toml:4:"), "{err}");
    assert!(err.contains("unknown field `monht`"), "{err}");
    let err = refused("s.toml", "name = \"x\"\nscenario = \"suakin\"\n");
    assert!(err.contains("no scenario called `suakin`"), "{err}");
    assert!(err.contains("el-obeid, khartoum"), "{err}");
    let err = refused("m.toml", "scenario = \"khartoum\"\n");
    assert!(err.contains("missing field `name`"), "{err}");
}

#[test]
fn a_situation_places_counters_leaders_control_and_a_stored_state() {
    let data = DataSet::embedded().unwrap();
    let case = cases::load(&fixture("situation.toml"), &data).unwrap();
    let s = &case.state;
    let k = case.scn.map.resolve("Khartoum").unwrap();
    assert_eq!(s.month.to_string(), "1884-06");
    let on = |ty: &str| {
        s.units
            .iter()
            .filter(|u| &*u.unit_type == ty && u.hex() == Some(k))
            .count()
    };
    assert_eq!(on("egy-inf-R"), 3, "two by type and ER03 by name");
    assert!(matches!(
        s.unit("BI01").unwrap().status,
        Status::AwaitingReplacement(m) if m.to_string() == "1884-08"
    ));
    assert!(s.unit("ER03").unwrap().disrupted);
    assert_eq!(
        s.leaders.iter().find(|l| l.name == "Gordon").unwrap().hex,
        Some(k)
    );
    assert!(
        s.leaders
            .iter()
            .find(|l| l.name == "Hicks")
            .unwrap()
            .removed
    );
    assert_eq!(s.control.get(&k), Some(&dervish::scenario::Side::Egyptian));
    assert_eq!(s.counters.get("victory-0"), Some(&2));
    // Every other counter is off the map: the board starts empty.
    assert_eq!(s.units.iter().filter(|u| u.hex().is_some()).count(), 3);

    // A stored state, with changes on top.
    let stored = cases::load(&fixture("stored-state.toml"), &data).unwrap();
    assert_eq!(stored.state.month.to_string(), "1884-06");
    assert!(
        stored.state.units.iter().any(|u| u.hex() == Some(k)),
        "the stored state's garrison"
    );
}

#[test]
fn case_show_lists_the_stacks_with_their_ids() {
    let f = fixture("situation.toml");
    let (out, err, code) = dervish(&["case", "show", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Khartoum (1942) Egyptian:"), "{out}");
    assert!(out.contains("ER01"), "{out}");
    assert!(out.contains("leader Gordon"), "{out}");
}

#[test]
fn a_game_master_starts_a_game_from_a_situation() {
    let dir = process::fresh_folder("cases-gm");
    let config = process::config_file(&dir, &dir.join("db.sqlite"), "");
    let config = config.to_str().unwrap();
    let situation = fixture("situation.toml");
    let situation = situation.to_str().unwrap();
    let mut new = process::new_game("sit-1", "gordon@example.org", "mahdi@example.org");
    new.extend(["--situation", situation]);
    let (out, err, code) = dervish(&configured(config, &new));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("first turn 1884-06"), "{out}");

    // The game's first state is the situation's.
    let mut cfg = dervish::service::Config {
        database: dir.join("db.sqlite"),
        ..dervish::service::Config::default()
    };
    cfg.inbox.maildir = dir.join("inbox");
    let svc = dervish::service::Service::open(cfg).unwrap();
    let g = svc.game("sit-1").unwrap();
    let state = svc.state_of(&g).unwrap();
    let data = DataSet::embedded().unwrap();
    let case = cases::load(Path::new(situation), &data).unwrap();
    // Its board is placed: no set-up step, no set-up orders (2.1).
    assert_eq!(
        *state,
        dervish::state::GameState {
            setup_placed: true,
            ..case.state
        }
    );
    assert_eq!(g.scenario, "khartoum");

    // Played on, the game replays from its situation, not from the
    // scenario's set-up: no drift at its first turn.
    svc.play_turn("sit-1").unwrap();
    svc.play_turn("sit-1").unwrap();
    let replayed = svc.replay("sit-1").unwrap();
    assert_eq!(replayed.len(), 2, "{replayed:?}");
    for v in &replayed {
        assert!(v.drift.is_empty(), "turn {}: {:?}", v.turn_no, v.drift);
    }

    // A situation of another scenario than --scenario says is refused.
    let mut other = process::new_game("sit-2", "a@example.org", "b@example.org");
    other.extend(["--scenario", "el-obeid", "--situation", situation]);
    let (_, err, code) = dervish(&configured(config, &other));
    assert_ne!(code, 0);
    assert!(err.contains("situation of scenario khartoum"), "{err}");
    drop(svc);
    std::fs::remove_dir_all(&dir).ok();
}
