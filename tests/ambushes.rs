//! The optional ambush rule in play (seed 002, "Mahdist Ambushes";
//! docs/rules.md, "Ambushes"): over many seeded turns the engine springs
//! ambushes at the seed's rate ("There is a 20% chance of an ambush taking
//! place then and there"), lowered by scouts as tables.ron says, and the
//! parties follow the seed's d10 table, one line in ten each, each drawn as
//! the counters the rule gives. The single situations are rule cases
//! (`tests/cases/ambushes-*.toml`).

use std::collections::BTreeMap;
use std::path::Path;

use dervish::cases::{self, DiceSpec};
use dervish::engine::ambush;
use dervish::geo::Hex;
use dervish::scenario::DataSet;

/// The numbers after `prefix` at the start of a log fragment: the first
/// integer following it.
fn number_after(line: &str, prefix: &str) -> Option<u32> {
    let i = line.find(prefix)? + prefix.len();
    let digits: String = line[i..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

struct Tally {
    rolls: usize,
    sprung: usize,
    /// By the d10 roll: how many parties, and the composition lines seen.
    parties: BTreeMap<u32, (usize, Vec<String>)>,
}

/// Play the case's Egyptian turn with seeds 0..n and count the ambush
/// rolls, the ambushes and the parties.
fn tally(case_file: &str, n: u64) -> Tally {
    let data = DataSet::embedded().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases")
        .join(case_file);
    let mut case = cases::load(&path, &data).unwrap();
    let mut t = Tally {
        rolls: 0,
        sprung: 0,
        parties: BTreeMap::new(),
    };
    for seed in 0..n {
        case.dice = DiceSpec::Seed(seed);
        let out = cases::run(&case);
        for line in out.log.lines() {
            if line.contains("D100 for an ambush at") {
                t.rolls += 1;
                if line.ends_with(": an ambush") {
                    t.sprung += 1;
                } else {
                    assert!(line.ends_with(": no ambush"), "{line}");
                }
            }
            if line.contains("D10 for the ambushing party") {
                let roll = number_after(line, "ambushing party at Hasheen (5319):").unwrap();
                let text = line
                    .split("ambush composition: ")
                    .nth(1)
                    .unwrap()
                    .to_string();
                let e = t.parties.entry(roll).or_default();
                e.0 += 1;
                e.1.push(text);
            }
        }
    }
    t
}

/// Within four standard deviations of the binomial mean.
fn near_rate(hits: usize, n: usize, p: f64) -> bool {
    let n = n as f64;
    let mean = n * p;
    let sd = (n * p * (1.0 - p)).sqrt();
    (hits as f64 - mean).abs() <= 4.0 * sd
}

#[test]
fn ambush_rate_and_parties_in_play_match_the_seed() {
    // The column marches from 5520 by 5420 into Hasheen, two hexes from
    // four Ansar counters at Erkowit: a roll is due on every march that
    // gets that far.
    let t = tally("ambushes-no-ambush.toml", 3000);
    assert!(
        t.rolls > 2000,
        "only {} ambush rolls in 3000 turns",
        t.rolls
    );
    assert!(
        near_rate(t.sprung, t.rolls, 0.20),
        "{} ambushes in {} rolls: not 20%",
        t.sprung,
        t.rolls
    );
    // Every d10 line, about one in ten each (chi-square, 9 degrees of
    // freedom, 0.1% critical value 27.88).
    let table = DataSet::embedded().unwrap().reactions;
    let rules = &DataSet::embedded().unwrap().tables.ambush;
    assert_eq!(t.parties.len(), 10, "{:?}", t.parties.keys());
    let expected = t.sprung as f64 / 10.0;
    let chi2: f64 = t
        .parties
        .values()
        .map(|(k, _)| (*k as f64 - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 27.88, "d10 parties chi-square {chi2:.1}");
    for (roll, (_, lines)) in &t.parties {
        let line = &table.ambush[*roll as usize - 1];
        let counters = line.men.div_ceil(rules.men_per_unit);
        for l in lines {
            assert!(
                l.starts_with(&format!("{}: {counters} counter", line.text)),
                "d10 {roll}: {l}"
            );
        }
    }
}

#[test]
fn scouts_halve_the_rate_with_two_mounted_units() {
    // Two mounted units in the stack: 20% less 2 x 5 = 10%.
    let t = tally("ambushes-scouts.toml", 3000);
    assert!(t.rolls > 2000, "only {} ambush rolls", t.rolls);
    assert!(
        near_rate(t.sprung, t.rolls, 0.10),
        "{} ambushes in {} rolls: not 10%",
        t.sprung,
        t.rolls
    );
}

#[test]
fn the_chance_falls_by_five_a_scout_never_under_five() {
    assert_eq!(ambush::chance(20, 5, 5, 0).0, 20);
    assert_eq!(ambush::chance(20, 5, 5, 1).0, 15);
    assert_eq!(ambush::chance(20, 5, 5, 3).0, 5);
    assert_eq!(ambush::chance(20, 5, 5, 9).0, 5);
    // A floor above the chance itself does not raise it.
    assert_eq!(ambush::chance(3, 5, 5, 2).0, 3);
    assert_eq!(ambush::chance(20, 5, 5, 0).1, "20%");
    assert_eq!(
        ambush::chance(20, 5, 5, 4).1,
        "5% (20%, 5 less for each of 4 cavalry or camel corps units scouting, never under 5%)"
    );
}

#[test]
fn ambush_ground_is_hills_wells_villages_landmarks_and_wadis_never_towns() {
    let data = DataSet::embedded().unwrap();
    let map = &data.map;
    let hex = |s: &str| s.parse::<Hex>().unwrap();
    // Landmarks, oases (wells), villages.
    for h in ["5319", "5320", "2433", "2128", "5318"] {
        assert!(map.is_ambush_ground(hex(h)), "{h}");
    }
    // Towns, also Metammeh whose hex holds the landmark Abu Kru.
    for h in ["5419", "1942", "2534", "0258"] {
        assert!(!map.is_ambush_ground(hex(h)), "{h}");
    }
    // Hills (the Red Sea Hills) and the Bayuda wadis; open desert is not.
    assert!(map.is_ambush_ground(hex("4815")));
    assert!(map.is_ambush_ground(hex("2030")));
    assert!(!map.is_ambush_ground(hex("3010")));
}
