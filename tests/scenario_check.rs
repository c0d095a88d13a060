//! `dervish scenario check`: every broken file is reported with its file,
//! line and field and how to fix it, and never makes the program panic.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use text::says;

#[path = "common/text.rs"]
mod text;

fn shipped(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(name),
    )
    .unwrap()
}

/// Write `text` as `name` in a fresh folder of its own (tests run in
/// parallel and several check the same file name), check it, and remove
/// the folder; the path is returned for the messages that name it.
fn check(name: &str, text: &str) -> (String, i32, PathBuf) {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "dervish-check-{}-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::cargo_bin("dervish")
        .unwrap()
        .args(["scenario", "check"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (stdout, out.status.code().unwrap_or(-1), path)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn an_unknown_place_name_is_reported_with_a_suggestion() {
    let text = shipped("khartoum.ron").replacen("\"Goz Regeb\"", "\"Goz Regab\"", 1);
    let (out, code, path) = check("khartoum.ron", &text);
    assert_eq!(code, 1, "{out}");
    let line = line_of(&text, "Goz Regab");
    let expected = format!("{}:{line}: ", path.display());
    says(
        &out,
        &[
            &expected,
            "no place called Goz Regab; did you mean Goz Regeb",
            "how to fix",
        ],
    );
}

#[test]
fn river_hexsides_that_do_not_join_up_are_reported() {
    let text = shipped("map.ron");
    // Replace the third hexside of the first river with one far away.
    let rivers = text.find("rivers:").unwrap();
    let mut starts = vec![];
    let mut k = rivers;
    while let Some(q) = text[k..].find('"') {
        let start = k + q + 1;
        let end = start + text[start..].find('"').unwrap();
        let word = &text[start..end];
        if word.len() >= 6 && word.as_bytes()[4] == b'/' {
            starts.push((start, end));
            if starts.len() == 3 {
                break;
            }
        }
        k = end + 1;
    }
    let (s, e) = starts[2];
    let text = format!("{}0000/S{}", &text[..s], &text[e..]);
    let (out, code, _) = check("map.ron", &text);
    assert_eq!(code, 1, "{out}");
    says(
        &out,
        &[
            "does not join up: 0000/S does not touch",
            "rivers[0].reaches[0].hexsides[2]",
        ],
    );
}

#[test]
fn a_town_in_the_sea_is_reported() {
    let text = shipped("map.ron");
    let i = text.find("name: \"Khartoum\"").unwrap();
    let j = i + text[i..].find("hex: \"").unwrap() + 6;
    let text = format!("{}5900{}", &text[..j], &text[j + 4..]);
    let (out, code, path) = check("map.ron", &text);
    assert_eq!(code, 1, "{out}");
    let line = line_of(&text, "name: \"Khartoum\"");
    let at = format!("{}:{line}: ", path.display());
    says(&out, &[&at, "Khartoum stands at 5900, a sea hex"]);
}

#[test]
fn a_unit_type_without_values_is_reported() {
    let text = shipped("units.ron");
    // The first unit type loses its movement allowance.
    let i = text.find(", movement: ").unwrap() + 1;
    let end = i + text[i..].find(',').unwrap() + 1;
    let broken = format!("{}{}", &text[..i], &text[end..]);
    let (out, code, _) = check("units.ron", &broken);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("movement"), "{out}");
    assert!(
        out.contains(&format!(":{}:", text[..i].lines().count())) || out.contains("units.ron:"),
        "{out}"
    );
    // A scenario naming a unit type that has no values at all.
    let text = shipped("el-obeid.ron").replacen("\"egy-inf-R\"", "\"egy-inf-Q\"", 1);
    let (out, code, _) = check("el-obeid.ron", &text);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("el-obeid.ron:")
            && out.contains("setup[0].units[0].unit: no unit type called egy-inf-Q"),
        "{out}"
    );
    assert!(out.contains("did you mean egy-inf-"), "{out}");
}

#[test]
fn a_reinforcement_in_an_undefined_month_is_reported() {
    let text = shipped("khartoum.ron");
    let broken = text.replacen("Month(\"1884-10\")", "Month(\"1886-10\")", 1);
    assert_ne!(
        broken, text,
        "the October 1884 boats are a month reinforcement"
    );
    let (out, code, _) = check("khartoum.ron", &broken);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("outside the war"), "{out}");
    let broken = text.replacen("Month(\"1884-10\")", "Month(\"1884-01\")", 1);
    let (out, code, _) = check("khartoum.ron", &broken);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("arrives in January 1884, outside the scenario"),
        "{out}"
    );
}

#[test]
fn a_file_of_another_kind_is_refused() {
    let (out, code, _) = check("notes.ron", "Hello(1)");
    assert_eq!(code, 1);
    assert!(out.contains("not a Dervish data file"), "{out}");
}

#[test]
fn rule_2_3_seven_mahdist_units_in_a_set_up_hex_are_reported_with_their_line() {
    // "no more than 6 non-leader or boat units per hex".
    let line = r#"        (side: Mahdist, zone: At("Kassala"), units: [(unit: "mah-S", count: 7)], text: "Seven S units at Kassala."),
"#;
    let shipped = shipped("khartoum.ron");
    let at = shipped.find("        // ---- Mahdist units").unwrap();
    let mut text = shipped.clone();
    text.insert_str(at, line);
    let (out, code, path) = check("khartoum.ron", &text);
    assert_eq!(code, 1, "{out}");
    let n = line_of(&text, "Seven S units at Kassala");
    let expected = format!("{}:{n}: ", path.display());
    assert!(out.contains(&expected), "expected {expected} in\n{out}");
    assert!(out.contains("more than 6 in a hex"), "{out}");
    // Six are allowed.
    let six = text.replace("count: 7)], text: \"Seven", "count: 6)], text: \"Seven");
    let (out, code, _) = check("khartoum.ron", &six);
    assert_eq!(code, 0, "{out}");
}
