//! Shared test helpers: golden files and the engine test board.
#![allow(dead_code)]

pub mod bench;
pub mod campaign;
pub mod process;
pub mod random_march;
pub mod setup_line;
pub mod text;

use std::path::PathBuf;

/// The result of the table battle that the battle tests set up (the British
/// column from Abu Klea attacking the Mahdists), as a player reports it:
/// the Egyptian wins.
pub const TABLE_RESULT: &str = "WINNER EGYPTIAN
BI01 BI02 GOOD ORDER
BI03 DISRUPTED
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 ELIMINATED
MS004 DISRUPTED
MS005 MS006 GOOD ORDER
END
";

/// Compare `actual` with `tests/golden/NAME`. On a mismatch the actual text
/// is written beside it as `NAME.actual` and the test fails; with
/// `UPDATE_GOLDEN=1` the golden file is rewritten instead.
pub fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let out = path.with_extension(format!(
            "{}.actual",
            path.extension().and_then(|e| e.to_str()).unwrap_or("txt")
        ));
        std::fs::write(&out, actual).unwrap();
        panic!(
            "{} differs from the golden file; the actual output is in {}",
            name,
            out.display()
        );
    }
}

/// A case fixture of `tests/case-fixtures/` (docs/cases.md) as its
/// scenario and the state its situation sets up.
pub fn fixture(file: &str) -> (dervish::scenario::Scenario, dervish::state::GameState) {
    let data = dervish::scenario::DataSet::embedded().unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/case-fixtures")
        .join(file);
    let case = dervish::cases::load(&path, &data).unwrap();
    (case.scn, case.state)
}

/// The order checker's first error says `fragment`.
#[track_caller]
pub fn assert_first_error(c: &dervish::orders::Checked, fragment: &str) {
    assert!(
        c.errors
            .first()
            .is_some_and(|e| e.message.contains(fragment)),
        "{:?}",
        c.errors
    );
}

/// Both scenarios as they start (the default set-up), with their ids.
pub fn openings() -> Vec<(
    &'static str,
    dervish::scenario::Scenario,
    dervish::state::GameState,
)> {
    let data = dervish::scenario::DataSet::embedded().unwrap();
    ["el-obeid", "khartoum"]
        .into_iter()
        .map(|id| {
            let scn = data.scenario(id).unwrap();
            let placements = dervish::state::setup::Placements::new();
            let (state, _) = dervish::state::setup::initial_state(&scn, &placements).unwrap();
            (id, scn, state)
        })
        .collect()
}

/// The campaign's invariants (ARCHITECTURE.md) after a turn: counters
/// neither made nor lost, none in the sea, opposing stacks never in one hex,
/// leaders never alone or with the enemy, the calendar never backwards.
pub fn check_invariants(
    scn: &dervish::scenario::Scenario,
    before: &dervish::state::GameState,
    state: &dervish::state::GameState,
    context: &str,
) {
    use dervish::geo::Hex;
    use dervish::scenario::Side;
    use dervish::state::Status;
    use std::collections::BTreeMap;
    // Every counter is exactly one of: on the map, pool, reserve,
    // eliminated, awaiting replacement, wrecked; counters are never made.
    assert_eq!(
        state.units.len(),
        before.units.len(),
        "{context}: counters appeared or vanished"
    );
    let mut by_hex: BTreeMap<Hex, Vec<Side>> = BTreeMap::new();
    for u in &state.units {
        if let Status::OnMap(h) = u.status {
            assert!(
                scn.map.is_land(h),
                "{context}: {} in the sea or off the map at {h}",
                u.id
            );
            // The fleet keeps no leader company and holds no hex (8.25).
            if scn
                .units
                .get(&u.unit_type)
                .is_none_or(|t| t.kind != dervish::scenario::UnitKind::Fleet)
            {
                by_hex.entry(h).or_default().push(u.side);
            }
        } else {
            assert!(
                !u.disrupted,
                "{context}: {} off the map but disrupted",
                u.id
            );
        }
    }
    // Opposing stacks never share a hex.
    for (h, sides) in &by_hex {
        assert!(
            sides.iter().all(|s| *s == sides[0]),
            "{context}: both sides at {h}"
        );
    }
    // Leaders never stand alone and are never with the enemy.
    for l in state.leaders.iter().filter(|l| !l.removed) {
        if let Some(h) = l.hex {
            let sides = by_hex
                .get(&h)
                .unwrap_or_else(|| panic!("{context}: {} alone at {h}", l.name));
            assert_eq!(
                sides[0], l.side,
                "{context}: {} with the enemy at {h}",
                l.name
            );
        }
    }
    // Month never goes backwards.
    assert!(state.month >= before.month);
}
