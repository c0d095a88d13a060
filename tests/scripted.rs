//! A side played from order files (`simulate` and `balance` with
//! `--egyptian orders:DIR`): the files played as a player's mail, a month
//! without a file, a bad line set aside and the rest played, a folder or
//! file that cannot be played refused with a clear error, and the same
//! bytes for the same seed.

mod common;

use std::path::{Path, PathBuf};

use common::process::{balance, dervish};
use common::text::says;

use dervish::players::scripted::{OrderFile, Script};
use dervish::scenario::{DataSet, Side};

/// A fresh folder of order files for one test: (name, text).
fn folder(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dervish-scripted-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

fn orders_arg(dir: &Path) -> String {
    format!("orders:{}", dir.display())
}

/// `simulate` of scenario 2 with the Egyptian side from `dir`.
fn simulate(dir: &Path, seed: &str, months: &str) -> (String, String, i32) {
    dervish(&[
        "simulate",
        "--scenario",
        "khartoum",
        "--seed",
        seed,
        "--months",
        months,
        "--mahdist",
        "bot",
        "--egyptian",
        &orders_arg(dir),
    ])
}

const EVACUATE: &str = "# The civilians leave for Wady Halfa (4.2).
MARCH UNITS CIV01 ER01 ER02 ER03 ER04 WITH Gordon, J. Stewart TO Wady Halfa
  THEN TO Wady Halfa
";

#[test]
fn simulate_plays_the_order_files_and_the_log_shows_the_orders_carried_out() {
    let dir = folder("plays", &[("01.txt", EVACUATE), ("notes.md", "not orders")]);
    let (out, err, code) = simulate(&dir, "3", "1");
    assert_eq!(code, 0, "{err}");
    // The order kept, in canonical form, and carried out by the engine.
    says(
        &out,
        &[
            "== February 1884 Egyptian orders from 01.txt: 1 order kept, 0 set aside",
            "  MARCH UNITS CIV01 ER01 ER02 ER03 ER04 WITH Gordon, J. Stewart TO Wady Halfa (1101)",
            "order 1: stack at Khartoum (1942) marches: CIV01 ER01 ER02 ER03 ER04 with Gordon, J. Stewart",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_month_without_a_file_gives_no_orders() {
    // Only the third month has a file (by its month's name).
    let dir = folder("gap", &[("1884-04.txt", "MARCH STACK Souakim TO Tamai\n")]);
    let (out, err, code) = simulate(&dir, "3", "3");
    assert_eq!(code, 0, "{err}");
    for month in ["February 1884", "March 1884"] {
        assert!(
            out.contains(&format!(
                "== {month} Egyptian orders: none, no order file (the defaults apply)"
            )),
            "{month}: {out}"
        );
    }
    assert!(
        out.contains("== April 1884 Egyptian orders from 1884-04.txt"),
        "{out}"
    );
    // Without orders no Egyptian stack marches in February.
    let february = &out[..out.find("== March 1884").unwrap()];
    let egyptian_march = &february[february.find("Egyptian player turn, phase III").unwrap()
        ..february.find("Egyptian player turn, phase IV").unwrap()];
    assert!(
        !egyptian_march.contains("marches"),
        "no Egyptian march without orders: {egyptian_march}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_line_is_set_aside_and_reported_and_the_rest_played() {
    let text = format!("{EVACUATE}MARCH STAK Berber TO Abou Hamed\nWITHDRAW BI01\n");
    let dir = folder("bad-line", &[("01.txt", &text)]);
    let (out, err, code) = simulate(&dir, "3", "1");
    assert_eq!(code, 0, "{err}");
    // The line not understood, with its file and line; the order not
    // possible, with its file, line and reason; the good order played.
    says(
        &out,
        &[
            "from 01.txt: 1 order kept, 2 set aside",
            "  set aside, 01.txt line 4: MARCH STAK Berber TO Abou Hamed\n    not understood: ",
            "  set aside, 01.txt line 5: WITHDRAW BI01\n    not possible: BI01 is not on the map",
            "order 1: stack at Khartoum (1942) marches: CIV01",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_folder_is_a_clear_error() {
    let dir = std::env::temp_dir().join("dervish-scripted-no-such-folder");
    let _ = std::fs::remove_dir_all(&dir);
    let (out, err, code) = simulate(&dir, "1", "1");
    assert_ne!(code, 0);
    assert!(out.is_empty(), "nothing played: {out}");
    assert!(
        err.contains("cannot read the folder of order files")
            && err.contains("dervish-scripted-no-such-folder"),
        "{err}"
    );
    let orders = orders_arg(&dir);
    let mut args = balance("khartoum", "2", "0");
    args.extend(["--egyptian", &orders]);
    let (_, err, code) = dervish(&args);
    assert_ne!(code, 0);
    assert!(
        err.contains("cannot read the folder of order files"),
        "{err}"
    );
}

#[test]
fn files_that_cannot_be_played_are_refused_before_any_game() {
    let dir = folder(
        "unplayable",
        &[
            ("01.txt", "MARCH STACK Souakim TO Tamai\n"),
            ("1884-02.txt", "MARCH STACK Berber TO Abou Hamed\n"),
            ("orders.txt", "MARCH STACK Berber TO Abou Hamed\n"),
            ("1886-01.txt", "MARCH STACK Berber TO Abou Hamed\n"),
            ("40.txt", "MARCH STACK Berber TO Abou Hamed\n"),
            ("03.txt", "SIDE MAHDIST\nMARCH STACK Berber TO Abou Hamed\n"),
            (
                "04.txt",
                "MONTH 1884-09\nMARCH STACK Berber TO Abou Hamed\n",
            ),
        ],
    );
    let (out, err, code) = simulate(&dir, "1", "1");
    assert_ne!(code, 0);
    assert!(out.is_empty(), "nothing played: {out}");
    for expected in [
        "the Egyptian order files in",
        "01.txt and 1884-02.txt both give the orders of February 1884: keep one",
        "orders.txt: the name of an order file is a month (1882-11.txt), a turn number (02.txt) or setup.txt",
        "1886-01.txt: ",
        "40.txt: turn 40 is not a month of this scenario: its turns are 1 to 21",
        "03.txt: it says SIDE Mahdist, and it is played for the Egyptian side",
        "04.txt: it says MONTH September 1884, and its name gives May 1884",
    ] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let dir = folder(
        "too-long",
        &[("01.txt", &"# a long comment\n".repeat(20_000))],
    );
    let (_, err, code) = simulate(&dir, "1", "1");
    assert_ne!(code, 0);
    assert!(err.contains("01.txt: refused whole: "), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_seed_plays_the_same_bytes() {
    let dir = folder(
        "seed",
        &[
            ("01.txt", EVACUATE),
            ("02.txt", "MARCH LEADER Gordon TO Wady Halfa\n"),
        ],
    );
    let (a, _, code) = simulate(&dir, "11", "3");
    assert_eq!(code, 0);
    let (b, _, _) = simulate(&dir, "11", "3");
    assert_eq!(a, b);
    let (c, _, _) = simulate(&dir, "12", "3");
    assert_ne!(a, c, "another seed, other dice");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn balance_counts_the_orders_set_aside() {
    let text = format!("{EVACUATE}WITHDRAW BI01\n");
    let dir = folder("balance", &[("01.txt", &text)]);
    let orders = orders_arg(&dir);
    let mut args = balance("khartoum", "3", "0");
    args.extend(["--egyptian", &orders]);
    let (a, err, code) = dervish(&args);
    assert_eq!(code, 0, "{err}");
    assert!(a.contains("## Orders from files"), "{a}");
    assert!(
        a.contains("3 orders set aside over 3 games (3 with any)."),
        "{a}"
    );
    assert!(
        a.contains(
            "| Egyptian 01.txt line 4: WITHDRAW BI01: not possible: BI01 is not on the map | 3 |"
        ),
        "{a}"
    );
    let (b, _, _) = dervish(&args);
    assert_eq!(a, b, "the same seed, the same figures");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Mahdist side from files: its set-up file placed before the first
/// Egyptian player turn (2.1), its month's file after it.
#[test]
fn the_mahdist_set_up_file_comes_before_the_first_egyptian_player_turn() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let file = |name: &str, text: &str| OrderFile {
        name: name.into(),
        text: text.into(),
    };
    let script = Script::from_files(
        &scn,
        Side::Mahdist,
        vec![
            file("setup.txt", "SETUP MS001 MS002 AT Kamlin\n"),
            file("01.txt", "MARCH STACK Kamlin TO Khartoum\n"),
            file("README.md", "notes"),
        ],
    )
    .unwrap();
    assert_eq!(script.len(), 2, "the .md file is left alone");
    let dir = folder(
        "mahdist",
        &[
            ("setup.txt", "SETUP MS001 MS002 AT Duem\n"),
            ("01.txt", "MARCH STACK Duem TO 1850\n"),
        ],
    );
    let (out, err, code) = dervish(&[
        "simulate",
        "--scenario",
        "khartoum",
        "--months",
        "1",
        "--mahdist",
        &orders_arg(&dir),
    ]);
    assert_eq!(code, 0, "{err}");
    let setup = out
        .find("== February 1884 Mahdist orders from setup.txt: 1 order kept, 0 set aside")
        .expect(&out);
    let month = out
        .find("== February 1884 Mahdist orders from 01.txt: 1 order kept, 0 set aside")
        .expect(&out);
    assert!(setup < month, "{out}");
    assert!(
        out.contains("Mahdist set-up (2.1): MS001 MS002 placed at Duem (1752)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example lines of play of `examples/orders/` read without a
/// problem, and their orders of the opening month are all played.
#[test]
fn the_example_lines_of_play_are_played_whole() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/orders");
    let mut played = 0;
    for line in ["khartoum-evacuation", "khartoum-gordon-by-river"] {
        let dir = examples.join(line);
        let (out, err, code) = simulate(&dir, "1", "1");
        assert_eq!(code, 0, "{line}: {err}");
        assert!(
            out.contains("== February 1884 Egyptian orders from 01.txt: ")
                && out.contains(" kept, 0 set aside"),
            "{line}: {out}"
        );
        played += 1;
    }
    assert_eq!(played, 2);
}

/// Order files roll no dice: a balance run from files gives the same games
/// on one thread as on all cores, and counts what was set aside in each.
#[test]
fn a_balance_run_from_order_files_is_the_same_on_any_number_of_cores() {
    use dervish::balance::{self, EgyptianPlayer, History, MahdistPlayer, Matchup};
    use dervish::players::mahdist::Opponents;
    use dervish::players::scripted::Scripts;
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let history = History::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let text = format!("{EVACUATE}WITHDRAW BI01\n");
    let script = Script::from_files(
        &scn,
        Side::Egyptian,
        vec![OrderFile {
            name: "01.txt".into(),
            text,
        }],
    )
    .unwrap();
    let scripts = Scripts {
        egyptian: Some(script),
        mahdist: None,
    };
    let matchup = Matchup {
        egyptian: EgyptianPlayer::Simple,
        mahdist: MahdistPlayer::Bot,
        options: Default::default(),
    };
    let run = || {
        balance::run_scripted(&scn, &history, &opponents, &matchup, &scripts, 5, 6, &|| {}).unwrap()
    };
    let all = run();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(run);
    assert_eq!(all, one);
    assert_eq!(all.len(), 6);
    for game in &all {
        assert_eq!(
            game.set_aside,
            ["Egyptian 01.txt line 4: WITHDRAW BI01: not possible: BI01 is not on the map"]
        );
    }
}

#[test]
fn the_balance_report_says_when_no_order_was_set_aside() {
    use dervish::players::scripted::set_aside_summary;
    let none: Vec<&[String]> = vec![&[], &[]];
    assert_eq!(
        set_aside_summary(&none),
        "\n## Orders from files\n\nNo order was set aside in 2 games.\n"
    );
    let one = ["Egyptian 01.txt line 1: X: not possible: why".to_string()];
    let some: Vec<&[String]> = vec![&one, &[], &one];
    assert_eq!(
        set_aside_summary(&some),
        "\n## Orders from files\n\n2 orders set aside over 3 games (2 with any).\n\n\
         | order set aside | games |\n|---|---|\n\
         | Egyptian 01.txt line 1: X: not possible: why | 2 |\n"
    );
}

/// The Egyptian set-up file is read with the opening month's file: its
/// marches start where the set-up puts the units (2.1), as in a player's
/// first mail.
#[test]
fn the_egyptian_set_up_file_goes_with_the_opening_month() {
    let dir = folder(
        "egyptian-setup",
        &[
            ("setup.txt", "SETUP EL01 EL02 AT Omdurman\n"),
            ("01.txt", "MARCH STACK Omdurman TO 1939\n"),
        ],
    );
    let (out, err, code) = simulate(&dir, "1", "1");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "== February 1884 Egyptian orders from setup.txt and 01.txt: 2 orders kept, 0 set aside"
        ),
        "{out}"
    );
    assert!(
        out.contains("Egyptian set-up (2.1): EL01 EL02 placed at Omdurman (1941)"),
        "{out}"
    );
    assert!(
        out.contains("order 1: stack at Omdurman (1941) marches: EL01 EL02"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
