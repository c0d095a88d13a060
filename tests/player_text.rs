//! What players read carries no internal names and no broken plurals.
//!
//! Over 200 simulated months (both scenarios, several seeds, as `dervish
//! simulate` plays them), every result log, summary, roster, victory
//! standing and the receipt of each side's orders (printed in the order
//! language, read and checked as mail is) is searched for Rust enum
//! names (`StaysDisrupted`, `Add(D6)`), debug quoting and number–noun
//! pairs that disagree ("1 units", "2 boat", "recruits arrives").

mod common;

use dervish::dice::{Dice, SeededDice};
use dervish::engine::orders::Orders;
use dervish::engine::play_month_with;
use dervish::orders::{Input, Vocabulary, acknowledge, check, parse, print, written};
use dervish::players::simple::simple_orders;
use dervish::render::log;
use dervish::scenario::DataSet;
use dervish::scenario::Side;
use dervish::state::setup::{Placements, initial_state};

/// Months to play in all.
const MONTHS: usize = 200;

/// Words that a rule's text or a place name may spell with inner capitals.
const ALLOWED_CAMEL: &[&str] = &[];

fn camel_case_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| {
            let mut chars = w.chars();
            chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && w.chars().any(|c| c.is_ascii_lowercase())
                && w.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && !w.chars().any(|c| c.is_ascii_digit())
        })
        .filter(|w| !ALLOWED_CAMEL.contains(w))
        .map(str::to_string)
        .collect()
}

/// Nouns whose number must agree with the number before them.
const NOUNS: &[(&str, &str)] = &[
    ("unit", "units"),
    ("boat", "boats"),
    ("gunboat", "gunboats"),
    ("movement point", "movement points"),
    ("supply unit", "supply units"),
    ("leader", "leaders"),
    ("hex", "hexes"),
    ("die", "dice"),
    ("month", "months"),
    ("turn", "turns"),
    ("march", "marches"),
    ("steamer", "steamers"),
    ("mail", "mails"),
];

fn broken_plurals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        // "+1 gunboats beside the river" is a modifier, not a count.
        let w = w.trim_start_matches('(');
        if !w.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Ok(n) = w.parse::<u32>() else {
            continue;
        };
        let rest = words[i + 1..].join(" ");
        let rest = rest.to_lowercase();
        for (one, many) in NOUNS {
            let says_many = rest.starts_with(&format!("{many} "))
                || rest == *many
                || rest.starts_with(&format!("{many},"))
                || rest.starts_with(&format!("{many})"))
                || rest.starts_with(&format!("{many}."))
                || rest.starts_with(&format!("{many};"));
            let says_one = !says_many
                && (rest.starts_with(&format!("{one} "))
                    || rest == *one
                    || rest.starts_with(&format!("{one},"))
                    || rest.starts_with(&format!("{one})"))
                    || rest.starts_with(&format!("{one}."))
                    || rest.starts_with(&format!("{one};")));
            if (n == 1 && says_many) || (n != 1 && says_one) {
                out.push(format!("{n} {}", if says_many { many } else { one }));
            }
        }
    }
    for bad in [
        "recruits arrives",
        "recruits (3.2) arrives",
        "units arrives",
        "units is ",
        "boats is ",
    ] {
        if line.contains(bad) {
            out.push(bad.to_string());
        }
    }
    out
}

/// The receipt of orders made by a program, as the player's mail would
/// get it: the orders printed in the order language, read and checked
/// again. Reading and checking must give back the very same orders.
fn receipt(
    scn: &dervish::scenario::Scenario,
    state: &dervish::state::GameState,
    side: Side,
    orders: &Orders,
) -> Result<String, String> {
    let sheet = written::sheet(orders);
    let text = print::sheet(&scn.map, &sheet, false);
    let parsed = parse(&Input::text(&text), &Vocabulary::new(scn).in_play(state))
        .map_err(|e| format!("{side} orders refused whole: {e}\n{text}"))?;
    if !parsed.errors.is_empty() {
        return Err(format!(
            "{side} orders do not read back: {:?}\n{text}",
            parsed.errors
        ));
    }
    let checked = check(&parsed.sheet, scn, state, side);
    if checked.refused || !checked.errors.is_empty() {
        return Err(format!(
            "{side} orders refused by the checker: {:?}\n{text}",
            checked.errors
        ));
    }
    if checked.orders != *orders {
        return Err(format!(
            "{side} orders read back differently:\n{text}\n{:?}\n{:?}",
            checked.orders, orders
        ));
    }
    Ok(acknowledge(&parsed, &checked, scn, side, state))
}

#[test]
fn result_logs_over_200_months_have_no_internal_names_or_broken_plurals() {
    let data = DataSet::embedded().unwrap();
    let mut played = 0;
    let mut marches_read = 0;
    let mut problems: Vec<String> = Vec::new();
    let mut seed = 1;
    'games: while played < MONTHS {
        for id in ["el-obeid", "khartoum"] {
            let scn = data.scenario(id).unwrap();
            let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
            let mut dice = Dice::new(SeededDice::from_seed(seed));
            while state.result.is_none() && played < MONTHS {
                let month = state.month;
                let before = state.clone();
                // Each side's orders as a player would write them, read and
                // checked as mail is, with the receipt the player would get.
                let mut receipts = String::new();
                let r = play_month_with(
                    &scn,
                    state,
                    &mut |s, side| {
                        let orders = simple_orders(&scn, s, side);
                        match receipt(&scn, s, side, &orders) {
                            Ok(text) => receipts.push_str(&text),
                            Err(e) => problems.push(e),
                        }
                        orders
                    },
                    &mut dice,
                );
                let mut text = log::render(&scn.map, &r.events);
                // Receipts, rosters and the victory standing may quote a
                // unit's name ("Black Watch"); the log and the news never quote it.
                marches_read += receipts.matches("MARCH ").count();
                let mut quoting = receipts;
                for side in [Side::Egyptian, Side::Mahdist] {
                    quoting.push_str(&dervish::render::roster::roster(&scn, &r.state, side));
                }
                for line in dervish::engine::victory::standing(&scn, &r.state) {
                    quoting.push_str(&line);
                    quoting.push('\n');
                }
                for line in quoting.lines() {
                    for w in camel_case_words(line) {
                        problems.push(format!("internal name {w:?} in: {line}"));
                    }
                    for p in broken_plurals(line) {
                        problems.push(format!("{p:?} in: {line}"));
                    }
                    if line.contains("Some(") || line.contains("None") {
                        problems.push(format!("debug text in: {line}"));
                    }
                }
                let month_news = dervish::render::news::Month {
                    scn: &scn,
                    before: &before,
                    after: &r.state,
                    events: &r.events,
                    side: Some(dervish::scenario::Side::Egyptian),
                };
                let summary = dervish::render::news::news(&month_news, "Next turn.")
                    + &dervish::render::news::marches(&month_news);
                let fought = r
                    .events
                    .iter()
                    .any(|e| matches!(e, dervish::engine::events::Event::CombatBegins { .. }));
                if fought && !summary.contains("Battle: the ") {
                    problems.push(format!("a battle missing from the news:\n{summary}"));
                }
                text.push_str(&summary);
                for line in text.lines() {
                    for w in camel_case_words(line) {
                        problems.push(format!("internal name {w:?} in: {line}"));
                    }
                    for p in broken_plurals(line) {
                        problems.push(format!("{p:?} in: {line}"));
                    }
                    if line.contains("Some(") || line.contains("None") || line.contains('"') {
                        problems.push(format!("debug text in: {line}"));
                    }
                }
                state = r.state;
                played += 1;
                if state.month == month {
                    break;
                }
            }
            if played >= MONTHS {
                break 'games;
            }
        }
        seed += 1;
    }
    problems.sort();
    problems.dedup();
    // The receipts are real ones: the programmed orders march.
    assert!(marches_read > 200, "{marches_read} marches in the receipts");
    assert!(
        problems.is_empty(),
        "{} problems, e.g.:\n{}",
        problems.len(),
        problems
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_checks_find_what_they_look_for() {
    assert_eq!(
        camel_case_words("roll 4: StaysDisrupted"),
        ["StaysDisrupted"]
    );
    assert!(camel_case_words("El Obeid and Khartoum (1942)").is_empty());
    assert_eq!(
        broken_plurals("1 units need 1 boats"),
        ["1 units", "1 boats"]
    );
    assert_eq!(
        broken_plurals("a full march gives 1 movement points"),
        ["1 movement points"]
    );
    assert_eq!(broken_plurals("2 unit (MR04)"), ["2 unit"]);
    assert!(broken_plurals("1 unit (MR04) and 2 boats").is_empty());
    assert_eq!(broken_plurals("the recruits arrives"), ["recruits arrives"]);
}

/// Each side's order of battle and where victory stands, at the start of
/// both scenarios, as the welcome, results and STATUS mails show them.
#[test]
fn rosters_and_victory_standing_at_the_start() {
    for (id, scn, state) in common::openings() {
        let mut text = String::new();
        for side in [
            dervish::scenario::Side::Egyptian,
            dervish::scenario::Side::Mahdist,
        ] {
            text.push_str(&dervish::render::roster::roster(&scn, &state, side));
            text.push('\n');
        }
        text.push_str("Where victory stands:\n");
        for v in dervish::engine::victory::standing(&scn, &state) {
            text.push_str(&format!("  {v}\n"));
        }
        for line in text.lines() {
            assert!(camel_case_words(line).is_empty(), "{line}");
            assert!(broken_plurals(line).is_empty(), "{line}");
        }
        common::golden(&format!("roster-{id}.txt"), &text);
    }
}

/// The sector maps of a results mail: only where something happened to
/// the player's stacks or sieges (the battles first, then a march's end, a
/// stack that lost units), never the same area twice; a stack where
/// nothing happened (Dongola's garrison) gets no map.
#[test]
fn results_sectors_show_what_happened_and_no_area_twice() {
    use dervish::engine::events::{Decision, Event};
    use dervish::render::sectors::{MAX_SECTORS, RADIUS, centres};
    use dervish::scenario::Side;
    let data = DataSet::embedded().unwrap();
    let scn = data.scenario("khartoum").unwrap();
    let (state, _) = initial_state(&scn, &Placements::new()).unwrap();
    let hex = |name: &str| scn.map.resolve(name).unwrap();
    let (souakim, sinkat, berber) = (hex("Souakim"), hex("Sinkat"), hex("Berber"));
    let battle = |h| Event::CombatBegins {
        order: 0,
        attacker: h,
        defender: h,
        attackers: vec![],
        defenders: vec![],
    };
    let phase = Event::PhaseBegins {
        side: Side::Egyptian,
        phase: dervish::engine::events::Phase::March,
        month: state.month,
    };
    let khartoum = hex("Khartoum");
    let lost = state
        .units
        .iter()
        .find(|u| u.side == Side::Egyptian && u.hex() == Some(berber))
        .map(|u| u.id.clone())
        .expect("a unit at Berber");
    let events = vec![
        phase,
        battle(souakim),
        battle(sinkat),
        battle(souakim),
        Event::Moved {
            order: 1,
            path: vec![khartoum],
            cost: 0,
        },
        Event::Disrupted {
            unit: lost,
            hex: berber,
            cause: "attrition".into(),
            decided_by: Decision::Orders,
        },
    ];
    let c = centres(&scn, &state, &events, Some(Side::Egyptian));
    assert!(c.len() <= MAX_SECTORS);
    assert_eq!(c[0].1, souakim, "the first battle first: {c:?}");
    for (i, a) in c.iter().enumerate() {
        for b in &c[i + 1..] {
            assert!(
                a.1.distance(b.1) >= RADIUS.unsigned_abs(),
                "{} and {} show the same area",
                a.0,
                b.0
            );
        }
    }
    let shown = |h| c.iter().any(|(_, x)| x.distance(h) < RADIUS.unsigned_abs());
    assert!(shown(khartoum), "the march's end: {c:?}");
    assert!(shown(berber), "the stack that had a unit disrupted: {c:?}");
    assert!(!shown(hex("Dongola")), "a quiet garrison has no map: {c:?}");
}

/// The receipts players get (the golden receipts of the corpus of real
/// order emails) carry no internal names and no broken plurals either.
#[test]
fn receipts_have_no_internal_names_or_broken_plurals() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/orders");
    let mut read = 0;
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ack") {
            continue;
        }
        read += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            for w in camel_case_words(line) {
                problems.push(format!(
                    "{}: internal name {w:?} in: {line}",
                    path.display()
                ));
            }
            for p in broken_plurals(line) {
                problems.push(format!("{}: {p:?} in: {line}", path.display()));
            }
        }
    }
    assert!(read >= 10, "only {read} receipts read");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
