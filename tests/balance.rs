//! `dervish balance`: many campaigns of programmed players, the same
//! figures for the same seed however many cores play them, summed up
//! against history.

use std::ops::RangeInclusive;

use dervish::balance::{self, EgyptianPlayer, History, MahdistPlayer, wilson};
use dervish::players::egyptian::Persona;
use dervish::scenario::DataSet;

fn m(egyptian: EgyptianPlayer) -> balance::Matchup {
    balance::Matchup {
        egyptian,
        mahdist: MahdistPlayer::Bot,
        options: Default::default(),
    }
}

#[test]
fn a_small_balance_is_the_same_for_the_same_seed_and_sums_up() {
    let data = DataSet::embedded().unwrap();
    let history = History::shipped().unwrap();
    for id in ["el-obeid", "khartoum"] {
        let scn = data.scenario(id).unwrap();
        let eg = EgyptianPlayer::Bot(Persona::Historical);
        let a = balance::run(&scn, &history, &m(eg), 7, 24, &|| {}).unwrap();
        // One thread, then the default pool: the same games.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let b = pool
            .install(|| balance::run(&scn, &history, &m(eg), 7, 24, &|| {}))
            .unwrap();
        assert_eq!(a, b, "{id}");
        let c = balance::run(&scn, &history, &m(eg), 8, 24, &|| {}).unwrap();
        assert_ne!(a, c, "{id}: another seed, other games");
        let s = balance::summarise(&scn, &history, &a);
        assert_eq!(s.games, 24);
        assert_eq!(s.results.iter().map(|r| r.1).sum::<usize>(), 24);
        assert_eq!(s.reasons.iter().map(|r| r.1).sum::<usize>(), 24);
        for t in &s.towns {
            assert_eq!(t.by_month.values().sum::<usize>(), t.fell);
            assert!(t.fell <= 24);
        }
        // Every game's combats are counted, and the kinds followed are
        // among them.
        let b = s.battles;
        assert!(b.combats > 0, "{id}: 24 games fight combats");
        assert_eq!(
            b.combats,
            a.iter().map(|o| o.battles.combats).sum::<usize>(),
            "{id}"
        );
        assert!(b.draws <= b.combats);
        for t in [b.british_open, b.egyptian_l_open] {
            assert!(t.won + t.lost <= t.fought && t.fought <= b.combats);
        }
        let report = balance::report(&scn.def.title, "dervish balance ...", &s);
        assert!(report.contains("| result | games | share | 95% interval |"));
        assert!(report.contains(&format!(
            "\n\n{} combats, {} of them drawn",
            b.combats, b.draws
        )));
        assert!(report.contains("| British regular infantry against equal ansar in the open | "));
        let towns: Vec<&str> = history
            .towns
            .iter()
            .filter(|t| t.scenario == id)
            .map(|t| t.town.as_str())
            .collect();
        assert!(towns.len() >= 4);
        for t in &towns {
            assert!(report.contains(&format!("| {t} | ")), "{t} in\n{report}");
        }
        let svg = balance::svg(&scn, &s);
        assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(
            svg.matches("<rect ").count(),
            svg.matches("</rect>").count()
        );
        assert_eq!(
            svg.matches("<text ").count(),
            svg.matches("</text>").count()
        );
    }
}

#[test]
fn wilson_intervals() {
    let (p, lo, hi) = wilson(50, 100);
    assert!((p - 50.0).abs() < 1e-9);
    assert!(
        (lo - 40.38).abs() < 0.05 && (hi - 59.62).abs() < 0.05,
        "{lo} {hi}"
    );
    let (p, lo, hi) = wilson(0, 200);
    assert_eq!(p, 0.0);
    assert_eq!(lo, 0.0);
    assert!((hi - 1.88).abs() < 0.05, "{hi}");
    assert_eq!(wilson(0, 0), (0.0, 0.0, 0.0));
}

/// Every town of the history is a place on the map, and its month a month
/// of the war.
#[test]
fn the_history_names_real_places_and_months() {
    let data = DataSet::embedded().unwrap();
    let history = History::shipped().unwrap();
    for t in &history.towns {
        let scn = data.scenario(&t.scenario).unwrap();
        assert!(scn.map.find_place(&t.town).is_some(), "{}", t.town);
        if let Some(m) = &t.fell {
            assert!(m.parse::<dervish::calendar::GameMonth>().is_ok(), "{m}");
        }
    }
    for id in data.scenario_ids() {
        let scn = data.scenario(&id).unwrap();
        assert!(!balance::towns(&scn, &history).unwrap().is_empty(), "{id}");
    }
}

/// The typical battles: each is fought in most runs (a march roll of "no
/// march" fights none), the same runs for the same seed on any number of
/// threads, and the report shows them.
#[test]
fn the_typical_battles_are_fought_and_reported() {
    let data = DataSet::embedded().unwrap();
    let a = balance::typical_battles(&data, 300, 5, &|| {}).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let b = pool
        .install(|| balance::typical_battles(&data, 300, 5, &|| {}))
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(a.len(), balance::TYPICAL_BATTLES.len());
    for t in &a {
        assert_eq!(t.runs, 300);
        assert!(t.tally.fought >= 240, "{}: {:?}", t.id, t.tally);
        assert!(t.tally.won + t.tally.lost <= t.tally.fought);
    }
    let scn = data.scenario("khartoum").unwrap();
    let history = History::shipped().unwrap();
    let mut s = balance::summarise(&scn, &history, &[]);
    s.typical = a.clone();
    let report = balance::report(&scn.def.title, "dervish balance ...", &s);
    assert!(report.contains("## Typical battles"));
    for t in &a {
        assert!(
            report.contains(&format!(
                "| {} | 300 | {} | {} | {} |",
                t.name, t.tally.fought, t.tally.won, t.tally.lost
            )),
            "{}\n{report}",
            t.name
        );
    }
}

/// The calibration of the combat tables (docs/calibration.md): British
/// regular infantry beat as many ansar in the open in at least 70% of
/// combats (about 73% over 10,000 runs of each typical battle, charged and
/// attacking together), and Egyptian L-class troops lose to as many ansar
/// more often than they win. Checked on 1,000 runs of each with wide
/// bands, so that a change of the tables that breaks it fails here.
#[test]
fn the_combat_tables_stay_calibrated() {
    let data = DataSet::embedded().unwrap();
    let runs = balance::typical_battles(&data, 1000, 11, &|| {}).unwrap();
    let by = |id: &str| {
        runs.iter()
            .find(|b| b.id == id)
            .unwrap_or_else(|| panic!("{id} is a typical battle"))
            .tally
    };
    let charged = by("british-infantry-charged-in-the-open");
    let attacking = by("british-infantry-attack-in-the-open");
    let won = charged.won + attacking.won;
    let fought = charged.fought + attacking.fought;
    assert!(
        won * 100 >= fought * 65,
        "British infantry won {won} of {fought}"
    );
    for id in [
        "egyptian-l-charged-in-the-open",
        "egyptian-l-attack-in-the-open",
    ] {
        let t = by(id);
        assert!(t.lost > t.won, "{id}: {t:?}");
    }
}

/// The calibration of the campaigns (docs/calibration.md): a small balance
/// of each scenario, the historical Egyptian player against the Mahdist
/// player, must stay inside wide bands around the figures of the 10,000
/// games that calibrated the data, so that a change of the tables, the
/// scenarios or the programmed players that breaks the calibration fails
/// here. The bands are the calibration targets widened by about three
/// standard errors of 200 games; the figures of this seed sit well inside
/// them (docs/calibration.md, "The figures now").
#[test]
fn the_campaigns_stay_calibrated() {
    use dervish::calendar::GameMonth;
    let data = DataSet::embedded().unwrap();
    let history = History::shipped().unwrap();
    let month = |s: &str| s.parse::<GameMonth>().unwrap();
    let games = 200;
    let eg = EgyptianPlayer::Bot(Persona::Historical);
    let share = |k: usize| 100.0 * k as f64 / games as f64;

    // 200 games of a scenario, seed 1, summed up.
    let play = |id: &str| {
        let scn = data.scenario(id).unwrap();
        let outcomes = balance::run(&scn, &history, &m(eg), 1, games as u64, &|| {}).unwrap();
        balance::summarise(&scn, &history, &outcomes)
    };

    let s = play("el-obeid");
    let town = |s: &balance::Summary, name: &str| {
        s.towns
            .iter()
            .find(|t| t.town == name)
            .unwrap_or_else(|| panic!("{name} is followed"))
            .clone()
    };
    // How often a town fell, and the median month of its falls.
    let falls = |s: &balance::Summary, name: &str, fell: RangeInclusive<f64>, median: [&str; 2]| {
        let t = town(s, name);
        assert!(
            fell.contains(&share(t.fell)),
            "{name} fell in {} of {games}",
            t.fell
        );
        let m = t.median_of_falls.unwrap_or_else(|| panic!("{name} falls"));
        assert!(
            (month(median[0])..=month(median[1])).contains(&m),
            "{name}'s median fall {m}"
        );
    };
    // El Obeid falls in at least half the games, the median within two
    // months of January 1883 (a month more for the band).
    falls(&s, "El Obeid", 70.0..=100.0, ["1882-11", "1883-04"]);

    let s = play("khartoum");
    // Khartoum falls in 30-70% of games (68% calibrated), the median of
    // its falls within three months of January 1885 (March 1885
    // calibrated; a month more for the band).
    falls(&s, "Khartoum", 50.0..=82.0, ["1884-09", "1885-05"]);
    // Sinkat and Tokar fall in most games by spring 1884 (the end of May),
    // Berber by mid-1884 (the end of June).
    for (name, least, by, when) in [
        ("Sinkat", 85.0, "1884-05", "May 1884"),
        ("Tokar", 50.0, "1884-05", "May 1884"),
        ("Berber", 75.0, "1884-06", "June 1884"),
    ] {
        let t = town(&s, name);
        let fell: usize = t.by_month.range(..=month(by)).map(|(_, k)| k).sum();
        assert!(
            share(fell) >= least,
            "{name} fell by {when} in {fell} of {games}"
        );
    }
    // Souakim holds in at least 90% (85% for the band).
    let t = town(&s, "Souakim");
    assert!(
        share(t.fell) <= 15.0,
        "Souakim fell in {} of {games}",
        t.fell
    );
    // The game-ending random event ends some games, not most.
    let ended = s
        .reasons
        .iter()
        .filter(|(r, _)| r.contains("random event"))
        .map(|(_, k)| k)
        .sum::<usize>();
    assert!(
        (5.0..=45.0).contains(&share(ended)),
        "the random event ended {ended} of {games}: {:?}",
        s.reasons
    );
}
