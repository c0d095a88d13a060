//! The charts of `dervish balance` (docs/calibration.md): `falls.svg`,
//! `results.svg` and `battles.svg` drawn from fixed figures and compared
//! with golden SVGs, and the charts checked in under `docs/calibration/`
//! drawn again from their reports.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use dervish::balance::{self, Battles, History, Summary, Tally, TypicalBattle, wilson};
use dervish::calendar::GameMonth;
use dervish::scenario::{DataSet, Side};

fn month(s: &str) -> GameMonth {
    s.parse().expect("a month of the war")
}

/// Results as the summary holds them: (label, count, share, interval).
fn results(counts: [usize; 3], games: usize) -> Vec<(String, usize, f64, f64, f64)> {
    ["Egyptian victory", "Mahdist victory", "draw"]
        .into_iter()
        .zip(counts)
        .map(|(l, k)| {
            let (p, lo, hi) = wilson(k, games);
            (l.to_string(), k, p, lo, hi)
        })
        .collect()
}

/// A small run of scenario 2 by hand: 200 games, the two reasons that
/// begin "a supply unit in Khartoum" (a win and a capped draw), a town
/// that fell and one that held, a kind of combat fought too seldom to
/// judge, and the typical battles of the 70% target.
fn fixture() -> Summary {
    let games = 200;
    let reasons = [
        (
            "a stack with a British leader destroyed in combat",
            Some(Side::Mahdist),
            90,
        ),
        ("the game was ended by a random event", None, 50),
        (
            "no one has won by the end of October 1885: a draw",
            None,
            30,
        ),
        (
            "a supply unit in Khartoum, but a British unit was lost to attrition: a draw at best (4.2)",
            None,
            20,
        ),
        ("a supply unit in Khartoum", Some(Side::Egyptian), 10),
    ];
    let mut khartoum = BTreeMap::new();
    for (m, k) in [
        ("1884-12", 4),
        ("1885-01", 20),
        ("1885-02", 36),
        ("1885-03", 30),
        ("1885-10", 2),
    ] {
        khartoum.insert(month(m), k);
    }
    let town = |name: &str, history: Option<&str>, by_month: BTreeMap<GameMonth, usize>| {
        balance::TownFigures {
            town: name.to_string(),
            history: history.map(month),
            fell: by_month.values().sum(),
            by_month,
            median: None,
            median_of_falls: None,
        }
    };
    let tally = |fought, won, lost| Tally { fought, won, lost };
    let typical = |id: &str, name: &str, t: Tally| TypicalBattle {
        id: id.to_string(),
        name: name.to_string(),
        runs: 100,
        tally: t,
    };
    Summary {
        games,
        results: results([10, 90, 100], games),
        reasons: reasons
            .iter()
            .map(|(r, _, k)| (r.to_string(), *k))
            .collect(),
        reason_results: reasons
            .iter()
            .map(|(r, w, _)| (r.to_string(), *w))
            .collect(),
        towns: vec![
            town("Khartoum", Some("1885-01"), khartoum),
            town(
                "Souakim",
                None,
                [(month("1884-10"), 3)].into_iter().collect(),
            ),
        ],
        battles: Battles {
            combats: 2400,
            draws: 1300,
            british_open: tally(8, 1, 0),
            egyptian_l_open: tally(40, 5, 20),
        },
        typical: vec![
            typical(
                "british-infantry-charged-in-the-open",
                "British infantry charged by as many ansar in the open",
                tally(97, 78, 1),
            ),
            typical(
                "british-infantry-attack-in-the-open",
                "British infantry attack as many ansar in the open",
                tally(92, 61, 3),
            ),
            typical(
                "egyptian-l-charged-in-the-open",
                "Egyptian L-class infantry charged by as many ansar in the open",
                tally(97, 12, 39),
            ),
        ],
    }
}

#[test]
fn the_charts_of_a_small_run_match_their_golden_svgs() {
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let s = fixture();
    let falls = balance::svg(&scn, &s);
    let results = balance::results_svg(&scn.def.title, &s);
    let battles = balance::battles_svg(&scn.def.title, &s);
    // Both reasons that begin "a supply unit in Khartoum" are told in full,
    // each in the colour of its result.
    assert!(results.contains(">a supply unit in Khartoum (10 games)</text>"));
    assert!(results.contains("a draw at best (4.2) (20 games)</text>"));
    assert!(!results.contains('…'));
    // The 70% target is drawn on the rows it is measured on only: the
    // British infantry of the games, the two typical battles and the two
    // together, not the Egyptian L-class rows.
    assert_eq!(battles.matches("<title>the 70% target</title>").count(), 4);
    // The British infantry of the games fought 8 times: a thin sample.
    assert!(battles.contains("(8 fought: a thin sample)"));
    assert!(battles.contains("fill-opacity=\"0.4\""));
    // A share axis with its labels on each, the months' running to the
    // highest share rounded up to 10% (36 of 200 games: 20%); no text
    // under 12 pixels.
    for (svg, top) in [
        (&falls, ">20%</text>"),
        (&results, ">100%</text>"),
        (&battles, ">100%</text>"),
    ] {
        assert!(svg.contains(">0%</text>") && svg.contains(top));
        assert!(svg.contains("font-size=\"12\"") && !svg.contains("font-size=\"1\""));
    }
    common::golden("balance-falls.svg", &falls);
    common::golden("balance-results.svg", &results);
    common::golden("balance-battles.svg", &battles);
}

/// The result each reason of a checked-in report gave: the reports list
/// reasons without it, so it is read from the words, and the sums are
/// checked against the report's results below.
fn result_of(reason: &str) -> Option<Side> {
    if reason.contains("draw") || reason.contains("random event") {
        None
    } else if reason.contains("British leader") || reason.starts_with("Khartoum") {
        Some(Side::Mahdist)
    } else {
        Some(Side::Egyptian)
    }
}

/// The rows of the Markdown table whose header begins `header`, split into
/// their cells.
fn table(report: &str, header: &str) -> Vec<Vec<String>> {
    report
        .lines()
        .skip_while(|l| !l.starts_with(header))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn number(cell: &str) -> usize {
    cell.parse()
        .unwrap_or_else(|_| panic!("{cell:?} is a number"))
}

/// A checked-in report read back into the summary its charts are drawn
/// from.
fn read_report(report: &str, data: &DataSet, id: &str) -> Summary {
    let scn = data.scenario(id).unwrap();
    let history = History::shipped().unwrap();
    let mut s = balance::summarise(&scn, &history, &[]);
    let games_line = report
        .lines()
        .find(|l| l.ends_with(" games, made with:"))
        .unwrap();
    s.games = number(games_line.split(' ').next().unwrap());
    let counts: Vec<usize> = table(report, "| result |")
        .iter()
        .map(|r| number(&r[1]))
        .collect();
    s.results = results(counts.clone().try_into().unwrap(), s.games);
    for row in table(report, "| why the game ended |") {
        s.reason_results.insert(row[0].clone(), result_of(&row[0]));
        s.reasons.push((row[0].clone(), number(&row[1])));
    }
    for (k, winner) in [Some(Side::Egyptian), Some(Side::Mahdist), None]
        .into_iter()
        .enumerate()
    {
        let sum: usize = s
            .reasons
            .iter()
            .filter(|(r, _)| result_of(r) == winner)
            .map(|r| r.1)
            .sum();
        assert_eq!(sum, counts[k], "{id}: the reasons of {winner:?}");
    }
    for row in table(report, "| town |") {
        let t = s.towns.iter_mut().find(|t| t.town == row[0]).unwrap();
        for item in row[5].split(", ").filter(|i| !i.is_empty()) {
            let (m, k) = item.split_once(": ").unwrap();
            t.by_month.insert(month(m), number(k));
        }
        t.fell = t.by_month.values().sum();
    }
    let combats = report.lines().find(|l| l.contains(" combats, ")).unwrap();
    let words: Vec<&str> = combats.split(' ').collect();
    s.battles.combats = number(words[0]);
    s.battles.draws = number(words[2]);
    for row in table(report, "| combat |") {
        let t = Tally {
            fought: number(&row[1]),
            won: number(&row[2]),
            lost: number(&row[3]),
        };
        if row[0].starts_with("British") {
            s.battles.british_open = t;
        } else {
            s.battles.egyptian_l_open = t;
        }
    }
    let named = balance::typical_battles(data, 0, 1, &|| {}).unwrap();
    for row in table(report, "| battle |") {
        let b = named.iter().find(|b| b.name == row[0]).unwrap();
        s.typical.push(TypicalBattle {
            runs: number(&row[1]),
            tally: Tally {
                fought: number(&row[2]),
                won: number(&row[3]),
                lost: number(&row[4]),
            },
            ..b.clone()
        });
    }
    s
}

/// The charts of docs/calibration/ are those the chart code draws from
/// their reports' figures (`UPDATE_GOLDEN=1` draws them again).
#[test]
fn the_checked_in_charts_are_drawn_from_their_reports() {
    let data = DataSet::embedded().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/calibration");
    for (dir, id) in [
        ("khartoum-historical", "khartoum"),
        ("khartoum-competent", "khartoum"),
        ("el-obeid-historical", "el-obeid"),
        ("el-obeid-competent", "el-obeid"),
    ] {
        let dir = root.join(dir);
        let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
        let s = read_report(&report, &data, id);
        let scn = data.scenario(id).unwrap();
        for (name, svg) in [
            ("falls.svg", balance::svg(&scn, &s)),
            ("results.svg", balance::results_svg(&scn.def.title, &s)),
            ("battles.svg", balance::battles_svg(&scn.def.title, &s)),
        ] {
            let path = dir.join(name);
            if std::env::var_os("UPDATE_GOLDEN").is_some() {
                std::fs::write(&path, &svg).unwrap();
            } else {
                let shipped = std::fs::read_to_string(&path).unwrap();
                assert!(
                    shipped == svg,
                    "{} is not drawn from its report",
                    path.display()
                );
            }
        }
    }
}
