//! `dervish battle brief`: the battle brief of a situation file, without
//! a game (docs/tabletop.md, "A brief without a game"), and its diagram.

mod common;

use std::path::PathBuf;

use common::process::dervish;

/// A fresh folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("battle-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/case-fixtures")
        .join(name)
        .display()
        .to_string()
}

/// `dervish battle brief` of the situation file `situation`, the stack at
/// `attack` attacking the one at `defend`, by `rules`, then `more`
/// arguments: what it printed and its exit status.
fn brief(
    situation: &str,
    attack: &str,
    defend: &str,
    rules: &str,
    more: &[&str],
) -> (String, String, i32) {
    let mut args = vec![
        "battle",
        "brief",
        "--situation",
        situation,
        "--attack",
        attack,
        defend,
        "--rules",
        rules,
    ];
    args.extend_from_slice(more);
    dervish(&args)
}

/// The brief printed is the brief the library writes for the same combat
/// (the golden of tests/battle_brief.rs), and --out writes the diagram as
/// SVG (its golden) and as a PNG.
#[test]
fn a_brief_without_a_game_prints_the_brief_and_writes_the_diagram() {
    let out = scratch("el-teb").join("el-teb");
    let situation = fixture("brief-el-teb.toml");
    for rules in ["volley-fire", "pits-1885", "etyfw"] {
        let out_arg = out.display().to_string();
        let (text, err, code) = brief(&situation, "5623", "El Teb", rules, &["--out", &out_arg]);
        assert_eq!(code, 0, "{err}");
        common::golden(&format!("brief-el-teb-{rules}.txt"), &text);
        let svg = std::fs::read_to_string(out.join("diagram.svg")).unwrap();
        common::golden(&format!("brief-el-teb-{rules}.svg"), &svg);
        let png = std::fs::read(out.join("diagram.png")).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    }
}

/// Hexes by place name or number, as elsewhere on the command line; no
/// --out, no files.
#[test]
fn places_by_name_and_no_diagram_without_out() {
    let situation = fixture("brief-metammeh.toml");
    let (text, err, code) = brief(&situation, "2434", "Metammeh", "PITS", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(text.starts_with("BATTLE BRIEF: PITS 1885\n"), "{text}");
    assert!(
        text.contains("THE TABLE (in inches; see the diagram)"),
        "{text}"
    );
}

/// Bad input: a clear one-line error and a non-zero exit, nothing printed.
#[test]
fn bad_input_gets_a_one_line_error() {
    let metammeh: &str = &fixture("brief-metammeh.toml");
    let cases = [
        (
            "no-such.toml",
            "2434",
            "2534",
            "etyfw",
            "no-such.toml: no such situation file",
        ),
        (metammeh, "2433", "2534", "etyfw", "no stack stands at 2433"),
        (
            metammeh,
            "2434",
            "2533",
            "etyfw",
            "no Mahdist stack stands at 2533",
        ),
        (
            metammeh,
            "2434",
            "2434",
            "etyfw",
            "no Mahdist stack stands at 2434",
        ),
        (
            metammeh,
            "2534",
            "2434",
            "chess",
            "unknown miniatures rules `chess`",
        ),
        (metammeh, "Nowhere", "2534", "etyfw", "Nowhere"),
    ];
    for (situation, attack, defend, rules, want) in cases {
        let case = [situation, attack, defend, rules];
        let (out, err, code) = brief(situation, attack, defend, rules, &[]);
        assert_ne!(code, 0, "{case:?} succeeded");
        assert!(out.is_empty(), "{case:?} printed {out}");
        assert!(err.contains(want), "{case:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{case:?}: {err}");
    }
}

/// Two stacks that are not next to each other cannot fight.
#[test]
fn stacks_not_adjacent_cannot_fight() {
    let file = scratch("apart").join("apart.toml");
    let text = std::fs::read_to_string(fixture("brief-el-teb.toml"))
        .unwrap()
        .replace("at = \"5623\"", "at = \"5523\"");
    std::fs::write(&file, text).unwrap();
    let situation = file.display().to_string();
    let (out, err, code) = brief(&situation, "5523", "El Teb", "volley-fire", &[]);
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(err.contains("are not next to each other"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
