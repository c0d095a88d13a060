//! Shared test helpers: golden files and the engine test board.
#![allow(dead_code)]

pub mod bench;

use std::path::PathBuf;

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
