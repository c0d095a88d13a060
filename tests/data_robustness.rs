//! Data files come from game masters: whatever they hold, loading reports
//! problems and never panics.

use dervish::calendar::GameMonth;
use dervish::geo::{Hex, Hexside};
use dervish::scenario::{DataFiles, NamedText};
use proptest::prelude::*;

/// Apply an edit to a text: cut a range, or insert a string, at positions
/// given as fractions of its length.
fn edit(text: &str, at: f64, len: usize, insert: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let i = ((chars.len() as f64) * at) as usize;
    let j = (i + len).min(chars.len());
    let mut out: String = chars[..i].iter().collect();
    out.push_str(insert);
    out.extend(&chars[j..]);
    out
}

fn which(files: &mut DataFiles, k: usize) -> &mut NamedText {
    match k % 6 {
        0 => &mut files.map,
        1 => &mut files.units,
        2 => &mut files.tables,
        3 => &mut files.events,
        n => &mut files.scenarios[n - 4],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn edited_data_never_panics(k in 0usize..6, at in 0.0f64..1.0, len in 0usize..40,
                                insert in prop::sample::select(vec!["", "\"", ")", "(", ",", "0000", "\"9999/N\"", "Sea", "[]", "-1", "99999999999"])) {
        let mut files = DataFiles::embedded();
        let f = which(&mut files, k);
        f.text = edit(&f.text, at, len, insert);
        let _ = files.load();
    }

    #[test]
    fn labels_never_panic(s in "\\PC{0,12}") {
        let _ = s.parse::<Hex>();
        let _ = s.parse::<Hexside>();
        let _ = s.parse::<GameMonth>();
    }
}

#[test]
fn the_shipped_data_loads() {
    let data = DataFiles::embedded()
        .load()
        .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(data.scenario_ids(), vec!["el-obeid", "khartoum"]);
}
