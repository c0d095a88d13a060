//! The Mahdist Reaction and ambush tables (`scenarios/reactions.ron`)
//! against the seed they come from (`../shared/seeds/002_…`), and the
//! rolls on them against the tables' probabilities.

use std::collections::BTreeMap;
use std::path::Path;

use dervish::dice::{Dice, SeededDice};
use dervish::players::reaction::{Band, Reaction, Reactions, Situation};

/// The seed, as it was found.
fn seed_text() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds");
    let entry = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; the seeds sit beside the project", dir.display()))
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("002_"))
        .expect("seeds/002_… is the Mahdist reaction and ambush tables");
    std::fs::read_to_string(entry.path()).unwrap()
}

/// Every row of the seed's reaction table, read from the seed itself: the
/// row's label, then its eleven cells, one a line.
#[test]
fn every_row_and_column_is_the_seeds() {
    let seed = seed_text();
    let lines: Vec<&str> = seed
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let t = Reactions::shipped().unwrap();
    // The labels as the seed prints them, in its order, and our row.
    let mut rows: Vec<(&str, Situation)> = vec![("Enemy not Visible", Situation::NoEnemy)];
    let labels = ["Up to 1/4 own", "1/2 own", "Same as", "Above", "Double"];
    rows.extend(
        labels
            .iter()
            .zip(Band::ALL)
            .map(|(l, b)| (*l, Situation::Open(b))),
    );
    rows.extend(
        labels
            .iter()
            .zip(Band::ALL)
            .map(|(l, b)| (*l, Situation::Cover(b))),
    );
    rows.extend([
        ("Friends winning", Situation::FriendsWinning),
        ("Friends losing", Situation::FriendsLosing),
        ("Fresh Troops*", Situation::FreshTroops),
        ("Firing Heard", Situation::FiringHeard),
        ("In defences#", Situation::InDefences),
        ("Losing melee", Situation::LosingMelee),
        ("Losing badly", Situation::LosingBadly),
        ("Winning/cut down*", Situation::WinningMelee),
    ]);
    let mut at = 0;
    for (label, situation) in rows {
        let i = at
            + lines[at..]
                .iter()
                .position(|l| *l == label)
                .unwrap_or_else(|| panic!("the seed has no row {label:?} after line {at}"));
        let cells = &lines[i + 1..i + 12];
        for (k, cell) in cells.iter().enumerate() {
            let total = i32::try_from(k).unwrap() + 2;
            assert_eq!(
                t.lookup(situation, total).to_string(),
                *cell,
                "{situation}, {total}"
            );
        }
        at = i + 12;
    }
    // Every letter the seed defines, with its words.
    for (letter, words) in [
        ("A", "Charge - measure to the closest enemy"),
        ("B", "Shadow - must stay at least 36 inches away from enemy"),
        ("J", "Run off table"),
        ("S", "If outnumbered then fortify."),
        ("Z", "If outnumbered then fortify if not stay put"),
    ] {
        let i = lines.iter().rposition(|l| *l == letter).unwrap();
        assert!(
            lines[i + 1].starts_with(words),
            "{letter}: {}",
            lines[i + 1]
        );
    }
    // The ambush: 20%, and the d10 table.
    assert!(seed.contains("There is a 20% chance of an ambush"));
    assert_eq!(t.ambush_chance, 20);
    let i = lines
        .iter()
        .position(|l| *l == "Native Ambush Composition")
        .unwrap();
    for p in &t.ambush {
        let k = i + 1 + 2 * usize::try_from(p.roll - 1).unwrap();
        assert_eq!(lines[k], p.roll.to_string());
        assert_eq!(lines[k + 1], p.text, "d10 {}", p.roll);
        assert!(p.text.starts_with(&p.men.to_string()), "{}", p.text);
    }
}

/// The whole table as the players' documentation prints it.
#[test]
fn the_table_prints_as_the_golden_file() {
    let text = Reactions::shipped().unwrap().table_text();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/reaction-table.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// Pearson's chi-square statistic and the critical value at p = 0.001
/// for its degrees of freedom.
fn chi_square(observed: &[f64], expected: &[f64]) -> (f64, f64) {
    const CRITICAL: [f64; 12] = [
        10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588, 31.264,
        32.909,
    ];
    let stat = observed
        .iter()
        .zip(expected)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum();
    (stat, CRITICAL[observed.len() - 2])
}

/// 10,000 rolls on each row: each reaction comes up as often as the
/// table's probabilities say.
#[test]
fn reaction_frequencies_match_the_tables_probabilities() {
    const ROLLS: usize = 10_000;
    let t = Reactions::shipped().unwrap();
    let mut dice = Dice::new(SeededDice::from_seed(2013));
    for situation in Situation::all() {
        let p = t.probabilities(situation);
        assert!((p.values().sum::<f64>() - 1.0).abs() < 1e-9);
        let mut seen: BTreeMap<Reaction, usize> = BTreeMap::new();
        for _ in 0..ROLLS {
            let (_, r) = t.roll(situation, &mut dice, "a test stack");
            *seen.entry(r).or_default() += 1;
        }
        dice.take_rolls();
        assert!(seen.keys().all(|r| p.contains_key(r)), "{situation}");
        if p.len() < 2 {
            continue;
        }
        let observed: Vec<f64> = p
            .keys()
            .map(|r| seen.get(r).copied().unwrap_or(0) as f64)
            .collect();
        let expected: Vec<f64> = p.values().map(|q| q * ROLLS as f64).collect();
        let (stat, critical) = chi_square(&observed, &expected);
        assert!(
            stat < critical,
            "{situation}: chi-square {stat:.2} over {critical} ({} reactions)",
            p.len()
        );
    }
}

/// 10,000 ambush rolls: one in five springs an ambush, and the parties
/// come up evenly over the d10 table.
#[test]
fn ambush_rate_and_composition_match_the_seed() {
    const ROLLS: usize = 10_000;
    let t = Reactions::shipped().unwrap();
    let mut dice = Dice::new(SeededDice::from_seed(1885));
    let mut ambushes = 0usize;
    let mut parties = [0usize; 10];
    for _ in 0..ROLLS {
        let (chance, party) = t.ambush(&mut dice, "a wadi");
        assert!((1..=100).contains(&chance.result));
        if let Some((roll, p)) = party {
            assert!(chance.result <= 20);
            assert_eq!(i32::try_from(p.roll).unwrap(), roll.result);
            ambushes += 1;
            parties[usize::try_from(roll.result - 1).unwrap()] += 1;
        } else {
            assert!(chance.result > 20);
        }
    }
    let (stat, critical) = chi_square(
        &[ambushes as f64, (ROLLS - ambushes) as f64],
        &[0.2 * ROLLS as f64, 0.8 * ROLLS as f64],
    );
    assert!(
        stat < critical,
        "{ambushes} ambushes in {ROLLS}: chi-square {stat:.2}"
    );
    let observed: Vec<f64> = parties.iter().map(|&n| n as f64).collect();
    let expected = vec![ambushes as f64 / 10.0; 10];
    let (stat, critical) = chi_square(&observed, &expected);
    assert!(stat < critical, "{parties:?}: chi-square {stat:.2}");
}

#[test]
fn strength_bands_reach_up_to_their_own_figure() {
    assert_eq!(Band::of(25, 100), Band::UpToQuarter);
    assert_eq!(Band::of(26, 100), Band::Half);
    assert_eq!(Band::of(50, 100), Band::Half);
    assert_eq!(Band::of(51, 100), Band::Same);
    assert_eq!(Band::of(100, 100), Band::Same);
    assert_eq!(Band::of(101, 100), Band::Above);
    assert_eq!(Band::of(199, 100), Band::Above);
    assert_eq!(Band::of(200, 100), Band::Double);
    assert_eq!(Band::of(5, 0), Band::Double);
    assert_eq!(Band::of(0, 0), Band::UpToQuarter);
}

/// A broken table file is refused with every problem named.
#[test]
fn a_broken_table_names_every_problem() {
    let text = dervish::players::reaction::REACTIONS_RON
        .replacen(
            r#"(situation: NoEnemy, results: ["J", "FE", "E", "H", "H", "FE", "I", "I", "E", "G", "G"]),"#,
            r#"(situation: NoEnemy, results: ["J", "FE", "E", "H", "H", "FE", "I", "I", "E", "G"]),"#,
            1,
        )
        .replacen(r#"["B", "B", "B", "B", "A""#, r#"["B", "Q", "B", "B", "A""#, 1)
        .replacen("(roll: 10, ", "(roll: 11, ", 1);
    let e = Reactions::parse(&text).unwrap_err();
    for part in [
        "the row no enemy in sight has 10 results; it needs 11",
        "\"Q\" is not one or two letters of the table",
        "the row no enemy in sight is missing",
        "the d10 rolls 1 to 10",
    ] {
        assert!(e.contains(part), "{part:?} in {e}");
    }
    assert!(
        Reactions::parse("Reactions(")
            .unwrap_err()
            .starts_with("reactions.ron:")
    );
}
