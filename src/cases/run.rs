//! Playing a case and comparing what happened with what it expects.

use std::fmt::Write as _;

use crate::calendar::GameMonth;
use crate::dice::{Dice, DieSource, FixedDice, Roll, SeededDice};
use crate::engine::elsewhere::{CampaignTables, Resolver};
use crate::engine::events::Event;
use crate::engine::orders::Orders;
use crate::engine::{play_month_resolving, play_player_turn_resolving};
use crate::orders;
use crate::render::log::render;
use crate::scenario::Side;
use crate::state::{GameState, Status};

use super::{Case, DiceSpec, Expect, Turns};

/// What a run of a case gave, and how it differs from what was expected.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub name: String,
    /// Each expectation not met, with the difference. Empty: the case
    /// passed.
    pub failures: Vec<String>,
    /// Each receipt: the side, the month, its text.
    pub receipts: Vec<(Side, GameMonth, String)>,
    /// The result log of every turn played.
    pub log: String,
    /// Every roll in order, each with the positions of its dice in the
    /// list of faces ("dice 3-4: 2D6 for march roll ...: 3+4 = 7").
    pub rolls: Vec<String>,
    /// The state after the last turn.
    pub state: GameState,
    /// Faces of the case's list that no roll used (a miscounted list).
    pub unused_faces: usize,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// `PASS name`, or `FAIL name` and each difference.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        if self.passed() {
            let _ = writeln!(out, "PASS {}", self.name);
        } else {
            let _ = writeln!(out, "FAIL {}", self.name);
            for f in &self.failures {
                for (i, l) in f.lines().enumerate() {
                    let _ = writeln!(out, "{}{l}", if i == 0 { "  - " } else { "    " });
                }
            }
        }
        out
    }

    /// The receipts, every roll with its dice, and the whole log.
    pub fn details(&self) -> String {
        let mut out = String::new();
        for (side, month, text) in &self.receipts {
            let _ = writeln!(out, "--- receipt, {side}, {}", month.long_name());
            out.push_str(text);
        }
        let _ = writeln!(out, "--- rolls (dice numbered from 1 in the order rolled)");
        for r in &self.rolls {
            let _ = writeln!(out, "{r}");
        }
        if self.unused_faces > 0 {
            let _ = writeln!(
                out,
                "({} of the listed faces were not used)",
                self.unused_faces
            );
        }
        let _ = writeln!(out, "--- log");
        out.push_str(&self.log);
        out
    }
}

/// Play a case and compare.
pub fn run(case: &Case) -> Outcome {
    run_resolving(case, &mut CampaignTables)
}

/// As [`run`], with `resolver` deciding how each land combat is resolved
/// (the ETYFW resolver, for the typical battles of `dervish balance`).
pub fn run_resolving(case: &Case, resolver: &mut dyn Resolver) -> Outcome {
    match &case.dice {
        DiceSpec::Faces { faces, fallback } => {
            let mut dice = Dice::new(FixedDice::with_fallback(faces.iter().copied(), *fallback));
            let mut out = play(case, &mut dice, resolver);
            let used: usize = dice.rolls().iter().map(|r| r.dice.len()).sum();
            out.unused_faces = faces.len().saturating_sub(used);
            out
        }
        DiceSpec::Seed(seed) => {
            let mut dice = Dice::new(SeededDice::from_seed(*seed));
            play(case, &mut dice, resolver)
        }
    }
}

fn play<S: DieSource>(case: &Case, dice: &mut Dice<S>, resolver: &mut dyn Resolver) -> Outcome {
    let scn = &case.scn;
    let mut state = case.state.clone();
    let mut events: Vec<Event> = Vec::new();
    let mut failures = Vec::new();
    let mut receipts = Vec::new();
    for m in 0..case.months as usize {
        if state.result.is_some() {
            break;
        }
        let mut orders_for = |side: Side, state: &GameState| -> Orders {
            let texts = if side == Side::Egyptian {
                &case.egyptian
            } else {
                &case.mahdist
            };
            let Some(text) = texts.get(m).filter(|t| !t.trim().is_empty()) else {
                return Orders::default();
            };
            let vocab = orders::Vocabulary::new(scn);
            let parsed = match orders::parse(&orders::Input::text(text), &vocab) {
                Ok(p) => p,
                Err(r) => {
                    failures.push(format!("the {side} orders are refused: {r}"));
                    return Orders::default();
                }
            };
            let checked = orders::check(&parsed.sheet, scn, state, side);
            if !case.allow_not_understood {
                for e in &parsed.errors {
                    failures.push(format!(
                        "the {side} orders have a line not understood: {e} (set orders.allow_not_understood = true if the case is about it)"
                    ));
                }
            }
            receipts.push((
                side,
                state.month,
                orders::acknowledge(&parsed, &checked, scn, side, state),
            ));
            checked.orders
        };
        let r = match case.turns {
            Turns::Month => {
                let e = orders_for(Side::Egyptian, &state);
                let h = orders_for(Side::Mahdist, &state);
                play_month_resolving(
                    scn,
                    state,
                    &mut |_, side| side.pick(&e, &h).clone(),
                    dice,
                    resolver,
                )
            }
            Turns::Egyptian => {
                let e = orders_for(Side::Egyptian, &state);
                play_player_turn_resolving(scn, state, Side::Egyptian, &e, dice, resolver)
            }
            Turns::Mahdist => {
                let h = orders_for(Side::Mahdist, &state);
                let mut r =
                    play_player_turn_resolving(scn, state, Side::Mahdist, &h, dice, resolver);
                // As the service does after a Mahdist player turn (5.1).
                if r.state.result.is_none()
                    && let Some(next) = r.state.month.next()
                {
                    r.state.month = next;
                    r.state.effects = Default::default();
                }
                r
            }
        };
        events.extend(r.events);
        state = r.state;
    }
    let log = render(&scn.map, &events);
    let rolls = numbered(dice.rolls());
    compare(case, &state, &log, &receipts, &mut failures);
    Outcome {
        name: case.name.clone(),
        failures,
        receipts,
        log,
        rolls,
        state,
        unused_faces: 0,
    }
}

/// Each roll with the positions of its dice in the list of faces.
fn numbered(rolls: &[Roll]) -> Vec<String> {
    let mut n = 0;
    rolls
        .iter()
        .map(|r| {
            let first = n + 1;
            n += r.dice.len();
            let at = if r.dice.len() == 1 {
                format!("die {first}")
            } else {
                format!("dice {first}-{n}")
            };
            format!("{at}: {r}")
        })
        .collect()
}

/// The log lines most like `fragment` (most words in common), best first.
fn nearest<'a>(log: &'a str, fragment: &str, n: usize) -> Vec<&'a str> {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(str::to_lowercase)
            .collect()
    };
    let want = words(fragment);
    let mut scored: Vec<(usize, usize, &str)> = log
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let have = words(l);
            (want.iter().filter(|w| have.contains(w)).count(), i, l)
        })
        .filter(|(s, _, _)| *s > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(n).map(|(_, _, l)| l).collect()
}

fn missing(what: &str, text: &str, fragment: &str) -> String {
    let mut m = format!("{what} lacks \"{fragment}\"");
    let near = nearest(text, fragment, 3);
    if near.is_empty() {
        m.push_str("\nno line has a word of it");
    } else {
        m.push_str("\nnearest lines:");
        for l in near {
            let _ = write!(m, "\n  | {}", l.trim_end());
        }
    }
    m
}

fn present(what: &str, text: &str, fragment: &str) -> String {
    let mut m = format!("{what} has \"{fragment}\", which it must not");
    for l in text.lines().filter(|l| l.contains(fragment)).take(3) {
        let _ = write!(m, "\n  | {}", l.trim_end());
    }
    m
}

fn status_text(case: &Case, s: Status) -> String {
    match s {
        Status::OnMap(h) => case.scn.map.describe(h),
        Status::Pool => "pool".into(),
        Status::Reserve => "reserve".into(),
        Status::Eliminated => "eliminated".into(),
        Status::AwaitingReplacement(m) => format!("awaiting {m}"),
        Status::Wrecked(m) => format!("wrecked {m}"),
    }
}

/// Every expectation of the case against the outcome; each one not met
/// is a failure.
fn compare(
    case: &Case,
    state: &GameState,
    log: &str,
    receipts: &[(Side, GameMonth, String)],
    failures: &mut Vec<String>,
) {
    let x = &case.expect;
    compare_log(x, log, failures);
    compare_receipts(x, receipts, failures);
    compare_result(x, state, failures);
    compare_units(case, state, failures);
    compare_leaders(case, state, failures);
    compare_board(x, state, failures);
}

/// The log's fragments: there, not there, in order.
fn compare_log(x: &Expect, log: &str, failures: &mut Vec<String>) {
    for f in &x.log {
        if !log.contains(f.as_str()) {
            failures.push(missing("the log", log, f));
        }
    }
    for f in &x.not_log {
        if log.contains(f.as_str()) {
            failures.push(present("the log", log, f));
        }
    }
    // Each fragment of `log_order` after the one before it.
    let mut from = 0;
    for (k, f) in x.log_order.iter().enumerate() {
        match log[from..].find(f.as_str()) {
            Some(at) => from += at + f.len(),
            None if log.contains(f.as_str()) => failures.push(format!(
                "the log has {f:?}, but not after {:?}",
                x.log_order[k - 1]
            )),
            None => failures.push(missing("the log", log, f)),
        }
    }
}

/// Each side's receipts, over all months.
fn compare_receipts(
    x: &Expect,
    receipts: &[(Side, GameMonth, String)],
    failures: &mut Vec<String>,
) {
    for side in [Side::Egyptian, Side::Mahdist] {
        let text: String = receipts
            .iter()
            .filter(|(s, _, _)| *s == side)
            .map(|(_, _, t)| t.as_str())
            .collect();
        let what = format!("the {side} receipt");
        // A receipt wraps its long lines: a fragment is looked for in its
        // words, whatever the line breaks and indents between them.
        let words = flat(&text);
        for f in x.receipt.get(&side).into_iter().flatten() {
            if text.is_empty() {
                failures.push(format!(
                    "{what} is expected to have \"{f}\", and the {side} side has no orders in the case"
                ));
            } else if !words.contains(&flat(f)) {
                failures.push(missing(&what, &text, f));
            }
        }
        for f in x.not_receipt.get(&side).into_iter().flatten() {
            if words.contains(&flat(f)) {
                failures.push(present(&what, &text, f));
            }
        }
    }
}

/// The result of the game, or none.
fn compare_result(x: &Expect, state: &GameState, failures: &mut Vec<String>) {
    let result = state.result.as_ref().map(|r| match r.winner {
        Some(s) => format!("{s} victory: {}", r.reason),
        None => format!("Draw: {}", r.reason),
    });
    match (&x.result, &result) {
        (None, _) => {}
        (Some(None), None) => {}
        (Some(None), Some(r)) => {
            failures.push(format!("the game is expected to go on, and it ended: {r}"))
        }
        (Some(Some(f)), None) => failures.push(format!(
            "the result is expected to have \"{f}\", and the game goes on"
        )),
        (Some(Some(f)), Some(r)) => {
            if !r.contains(f.as_str()) {
                failures.push(format!(
                    "the result is expected to have \"{f}\", and it is: {r}"
                ));
            }
        }
    }
}

/// Each counter's place, name, strength and order.
fn compare_units(case: &Case, state: &GameState, failures: &mut Vec<String>) {
    let x = &case.expect;
    for u in &x.units {
        let Some(actual) = state.unit(&u.id.0) else {
            failures.push(format!("no counter {} in the state", u.id));
            continue;
        };
        if let Some(at) = u.at
            && !at.matches(actual.status)
        {
            failures.push(format!(
                "{} is expected at {}, and it is at {}",
                u.id,
                u.at_text,
                status_text(case, actual.status)
            ));
        }
        if let Some(n) = &u.name
            && actual.name.as_deref() != Some(n.as_str())
        {
            failures.push(format!(
                "{} is expected to be named {n}, and it is {}",
                u.id,
                actual.name.as_deref().unwrap_or("unnamed")
            ));
        }
        if let Some(n) = u.strength
            && n != actual.strength
        {
            failures.push(format!(
                "{} is expected at strength {n}, and it is at strength {}",
                u.id, actual.strength
            ));
        }
        if let Some(d) = u.disrupted
            && d != actual.disrupted
        {
            failures.push(format!(
                "{} is expected {}, and it is {}",
                u.id,
                if d { "disrupted" } else { "in good order" },
                if actual.disrupted {
                    "disrupted"
                } else {
                    "in good order"
                }
            ));
        }
    }
}

/// Each leader's place and whether he is removed.
fn compare_leaders(case: &Case, state: &GameState, failures: &mut Vec<String>) {
    let x = &case.expect;
    let map = &case.scn.map;
    for l in &x.leaders {
        let Some(actual) = state.leaders.iter().find(|a| a.name == l.name) else {
            failures.push(format!("no leader {} in the state", l.name));
            continue;
        };
        let now = if actual.removed {
            "removed".to_string()
        } else {
            match actual.hex {
                Some(h) => map.describe(h),
                None => "off the map".to_string(),
            }
        };
        if let Some(r) = l.removed
            && r != actual.removed
        {
            failures.push(format!(
                "{} is expected {}, and he is {now}",
                l.name,
                if r { "removed" } else { "not removed" }
            ));
        }
        if let Some(at) = l.at
            && (actual.removed || actual.hex != at)
        {
            failures.push(format!(
                "{} is expected at {}, and he is {now}",
                l.name, l.at_text
            ));
        }
    }
}

/// Control of places, the victory counters, the month and the 4.2 flags.
fn compare_board(x: &Expect, state: &GameState, failures: &mut Vec<String>) {
    for (place, hex, side) in &x.control {
        let actual = state.control.get(hex).copied();
        if actual != *side {
            let say = |s: Option<Side>| s.map_or("nobody".to_string(), |s| s.to_string());
            failures.push(format!(
                "{place} is expected held by {}, and it is held by {}",
                say(*side),
                say(actual)
            ));
        }
    }
    for (k, v) in &x.counters {
        let actual = state.counters.get(k).copied().unwrap_or(0);
        if actual != *v {
            failures.push(format!(
                "counter {k} is expected at {v}, and it is {actual}"
            ));
        }
    }
    if let Some(m) = x.month
        && m != state.month
    {
        failures.push(format!(
            "the game is expected at {}, and it is at {}",
            m.long_name(),
            state.month.long_name()
        ));
    }
    for (k, v) in &x.flags {
        let actual = match k.as_str() {
            "british_attrition_loss" => state.british_attrition_loss,
            "british_leader_stack_destroyed" => state.british_leader_stack_destroyed,
            _ => state.ended_by_event,
        };
        if actual != *v {
            failures.push(format!("{k} is expected {v}, and it is {actual}"));
        }
    }
}

/// `text` with every run of white space one space.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::DiceKind;

    #[test]
    fn the_nearest_lines_share_the_most_words() {
        let log = "== March 1884 Egyptian player turn\n  order 1: combat at 1431: Egyptian won\n  Mahdist stack retreats from 1431 to 1430\n";
        let near = nearest(log, "combat at 1431: Mahdist won", 2);
        assert_eq!(near[0], "  order 1: combat at 1431: Egyptian won");
        assert_eq!(near.len(), 2);
        assert!(nearest(log, "xyz", 3).is_empty());
    }

    #[test]
    fn rolls_are_numbered_by_the_positions_of_their_dice() {
        let roll = |kind, dice: Vec<u32>| Roll {
            kind,
            purpose: "test".into(),
            result: dice.iter().sum::<u32>() as i32,
            dice,
        };
        let got = numbered(&[
            roll(DiceKind::D66, vec![1, 1]),
            roll(DiceKind::D6, vec![2]),
            roll(DiceKind::TwoD6, vec![6, 6]),
        ]);
        assert!(got[0].starts_with("dice 1-2: D66"), "{got:?}");
        assert!(got[1].starts_with("die 3: D6"), "{got:?}");
        assert!(got[2].starts_with("dice 4-5: 2D6"), "{got:?}");
    }
}
