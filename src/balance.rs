//! Balance: many campaigns of programmed players against each other, on
//! all cores, summed up against history: who wins and why games end, and
//! the month each town falls beside the month it fell in 1882-1885
//! (`scenarios/history.ron`). `dervish balance` prints the table and writes
//! `report.md` and an SVG chart.
//!
//! Each game is pure: its dice come from the run's seed and the game's
//! number, so a run gives the same figures on every machine, whatever the
//! number of cores.

use std::collections::BTreeMap;
use std::fmt::Write;

use rayon::prelude::*;
use serde::Deserialize;

use crate::calendar::GameMonth;
use crate::dice::{Dice, SeededDice};
use crate::engine::play_month_with;
use crate::geo::Hex;
use crate::players::egyptian::{self, Persona};
use crate::players::mahdist::{self, Opponents};
use crate::players::reaction::Reactions;
use crate::players::simple::simple_orders;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;
use crate::state::Options;
use crate::state::setup::{Placements, initial_state};

/// What history says, as shipped.
pub const HISTORY_RON: &str = include_str!("../scenarios/history.ron");

/// The history the figures are compared with.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "History")]
pub struct History {
    pub towns: Vec<TownHistory>,
}

/// One town of one scenario: the month it fell, or `None` if it held.
#[derive(Clone, Debug, Deserialize)]
pub struct TownHistory {
    pub scenario: String,
    pub town: String,
    /// `1883-01`; `None`: it never fell in the war (or in the scenario's
    /// months).
    pub fell: Option<String>,
}

impl History {
    pub fn shipped() -> Result<History, String> {
        ron::from_str(HISTORY_RON).map_err(|e| format!("history.ron: {e}"))
    }
}

/// Who plays each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EgyptianPlayer {
    Simple,
    Bot(Persona),
}

/// Who plays the Mahdist side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MahdistPlayer {
    Simple,
    Bot,
}

/// Who plays each side, and the optional rules the games are played with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matchup {
    pub egyptian: EgyptianPlayer,
    pub mahdist: MahdistPlayer,
    pub options: Options,
}

/// One game's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    pub winner: Option<Side>,
    pub reason: String,
    pub months: u32,
    /// For each town of the history, the month it fell to the Mahdists
    /// (first month it is held by them at the end of a month), if it did.
    pub fell: BTreeMap<String, Option<GameMonth>>,
}

/// Play game `n` of a run with `seed`.
pub fn play_one(
    scn: &Scenario,
    towns: &[(String, Hex)],
    matchup: &Matchup,
    seed: u64,
    n: u64,
    bot: &(Reactions, Opponents),
) -> GameOutcome {
    let (egyptian, mahdist) = (matchup.egyptian, matchup.mahdist);
    let game_seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(n);
    let (mut state, _) = match initial_state(scn, &Placements::new()) {
        Ok(s) => s,
        Err(e) => {
            return GameOutcome {
                winner: None,
                reason: format!("the set-up failed: {e}"),
                months: 0,
                fell: BTreeMap::new(),
            };
        }
    };
    state.options = matchup.options.clone();
    let mut dice = Dice::new(SeededDice::from_seed(game_seed));
    let mut bot_dice = Dice::new(SeededDice::from_seed(game_seed ^ 0x6d61_6864_6973_7400));
    let mut holder: BTreeMap<String, Option<Side>> = towns
        .iter()
        .map(|(name, h)| (name.clone(), held_by(&state, *h)))
        .collect();
    let mut fell: BTreeMap<String, Option<GameMonth>> =
        towns.iter().map(|(name, _)| (name.clone(), None)).collect();
    let mut months = 0;
    while state.result.is_none() {
        let month = state.month;
        let r = play_month_with(
            scn,
            state,
            &mut |s: &GameState, side| match side {
                Side::Egyptian => match egyptian {
                    EgyptianPlayer::Simple => simple_orders(scn, s, side),
                    EgyptianPlayer::Bot(p) => egyptian::decide(scn, s, p).orders,
                },
                Side::Mahdist => match mahdist {
                    MahdistPlayer::Simple => simple_orders(scn, s, side),
                    MahdistPlayer::Bot => {
                        mahdist::decide(scn, s, &bot.0, &bot.1, &mut bot_dice).orders
                    }
                },
            },
            &mut dice,
        );
        dice.take_rolls();
        bot_dice.take_rolls();
        state = r.state;
        months += 1;
        for (name, h) in towns {
            let now = held_by(&state, *h).or(holder[name]);
            if holder[name] == Some(Side::Egyptian)
                && now == Some(Side::Mahdist)
                && fell[name].is_none()
            {
                fell.insert(name.clone(), Some(month));
            }
            holder.insert(name.clone(), now);
        }
        if state.month == month {
            break;
        }
    }
    let (winner, reason) = match &state.result {
        Some(r) => (r.winner, r.reason.clone()),
        None => (None, "the game went on".into()),
    };
    GameOutcome {
        winner,
        reason,
        months,
        fell,
    }
}

fn held_by(state: &GameState, hex: Hex) -> Option<Side> {
    state
        .units
        .iter()
        .find(|u| u.hex() == Some(hex))
        .map(|u| u.side)
}

/// Play `games` games on all cores; `tick` is called after each (for a
/// progress bar). The outcomes are in game order.
pub fn run(
    scn: &Scenario,
    history: &History,
    matchup: &Matchup,
    seed: u64,
    games: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<GameOutcome>, String> {
    let towns = towns(scn, history)?;
    let bot = (Reactions::shipped()?, Opponents::shipped()?);
    Ok((0..games)
        .into_par_iter()
        .map(|n| {
            let o = play_one(scn, &towns, matchup, seed, n, &bot);
            tick();
            o
        })
        .collect())
}

/// The towns of the history for this scenario, as hexes.
pub fn towns(scn: &Scenario, history: &History) -> Result<Vec<(String, Hex)>, String> {
    history
        .towns
        .iter()
        .filter(|t| t.scenario == scn.id())
        .map(|t| {
            scn.map
                .find_place(&t.town)
                .map(|p| (t.town.clone(), p.hex))
                .ok_or_else(|| format!("history.ron: {} is not a place on the map", t.town))
        })
        .collect()
}

/// A share with its 95% Wilson interval, in percent.
pub fn wilson(k: usize, n: usize) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let (k, n) = (k as f64, n as f64);
    let z = 1.96_f64;
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / d;
    (
        100.0 * p,
        100.0 * (c - h).max(0.0),
        100.0 * (c + h).min(1.0),
    )
}

/// The summary of a run.
#[derive(Clone, Debug)]
pub struct Summary {
    pub games: usize,
    /// (label, count, percent, low, high): Egyptian wins, Mahdist wins,
    /// draws.
    pub results: Vec<(String, usize, f64, f64, f64)>,
    /// Why games ended, most common first.
    pub reasons: Vec<(String, usize)>,
    /// For each town: (name, historical month or None, how many fell,
    /// months it fell in with counts, median month).
    pub towns: Vec<TownFigures>,
}

/// The figures of one town.
#[derive(Clone, Debug)]
pub struct TownFigures {
    pub town: String,
    pub history: Option<GameMonth>,
    pub fell: usize,
    pub by_month: BTreeMap<GameMonth, usize>,
    pub median: Option<GameMonth>,
}

pub fn summarise(scn: &Scenario, history: &History, outcomes: &[GameOutcome]) -> Summary {
    let n = outcomes.len();
    let count = |w: Option<Side>| outcomes.iter().filter(|o| o.winner == w).count();
    let results = [
        ("Egyptian victory", count(Some(Side::Egyptian))),
        ("Mahdist victory", count(Some(Side::Mahdist))),
        ("draw", count(None)),
    ]
    .into_iter()
    .map(|(l, k)| {
        let (p, lo, hi) = wilson(k, n);
        (l.to_string(), k, p, lo, hi)
    })
    .collect();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for o in outcomes {
        *reasons.entry(o.reason.clone()).or_default() += 1;
    }
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let towns = history
        .towns
        .iter()
        .filter(|t| t.scenario == scn.id())
        .map(|t| {
            let mut by_month: BTreeMap<GameMonth, usize> = BTreeMap::new();
            for o in outcomes {
                if let Some(Some(m)) = o.fell.get(&t.town) {
                    *by_month.entry(*m).or_default() += 1;
                }
            }
            let fell: usize = by_month.values().sum();
            // The median over all games, a town that held counting as
            // later than any month: none if it held in half the games.
            let mut seen = 0;
            let mut median = None;
            for (m, k) in &by_month {
                seen += k;
                if seen * 2 >= n.max(1) {
                    median = Some(*m);
                    break;
                }
            }
            TownFigures {
                town: t.town.clone(),
                history: t.fell.as_deref().and_then(|m| m.parse().ok()),
                fell,
                by_month,
                median,
            }
        })
        .collect();
    Summary {
        games: n,
        results,
        reasons,
        towns,
    }
}

/// The summary as a Markdown report.
pub fn report(title: &str, command: &str, s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Balance: {title}\n");
    let _ = writeln!(out, "{} games, made with:\n\n    {command}\n", s.games);
    let _ = writeln!(
        out,
        "| result | games | share | 95% interval |\n|---|---|---|---|"
    );
    for (l, k, p, lo, hi) in &s.results {
        let _ = writeln!(out, "| {l} | {k} | {p:.1}% | {lo:.1}-{hi:.1}% |");
    }
    let _ = writeln!(out, "\n| why the game ended | games |\n|---|---|");
    for (r, k) in &s.reasons {
        let _ = writeln!(out, "| {r} | {k} |");
    }
    let _ = writeln!(
        out,
        "\n| town | fell in history | fell in games | median month of the fall | months it fell in (games) |\n|---|---|---|---|---|"
    );
    for t in &s.towns {
        let (p, lo, hi) = wilson(t.fell, s.games);
        let _ = writeln!(
            out,
            "| {} | {} | {} ({p:.0}%, {lo:.0}-{hi:.0}%) | {} | {} |",
            t.town,
            t.history.map_or("held".to_string(), |m| m.long_name()),
            t.fell,
            t.median
                .map_or("held in half the games or more".to_string(), |m| m
                    .long_name()),
            t.by_month
                .iter()
                .map(|(m, k)| format!("{m}: {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out
}

/// A bar chart of the month each town fell, one row of bars per town, the
/// historical month marked with a red line: hand-built SVG.
pub fn svg(scn: &Scenario, s: &Summary) -> String {
    let first = scn.def.start;
    let months: Vec<GameMonth> = first.through(scn.def.end).collect();
    let (left, top, cell, row) = (120.0, 40.0, 18.0, 60.0);
    let width = left + cell * months.len() as f64 + 20.0;
    let height = top + row * s.towns.len() as f64 + 40.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="20" font-size="13">The month each town fell ({} games); red: when it fell in history</text>"#,
        s.games
    );
    for (i, t) in s.towns.iter().enumerate() {
        let base = top + row * (i as f64 + 1.0) - 10.0;
        let _ = writeln!(
            out,
            r#"<text x="4" y="{base}">{} ({:.0}%)</text>"#,
            escape(&t.town),
            100.0 * t.fell as f64 / s.games.max(1) as f64
        );
        let peak = t.by_month.values().copied().max().unwrap_or(1).max(1) as f64;
        for (k, m) in months.iter().enumerate() {
            let x = left + cell * k as f64;
            if let Some(n) = t.by_month.get(m) {
                let h = (row - 16.0) * (*n as f64) / peak;
                let _ = writeln!(
                    out,
                    "<rect x=\"{x}\" y=\"{}\" width=\"{}\" height=\"{h}\" fill=\"#4a6fa5\"><title>{}: {n} games</title></rect>",
                    base - h,
                    cell - 2.0,
                    m.long_name()
                );
            }
            if t.history == Some(*m) {
                let _ = writeln!(
                    out,
                    "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{base}\" stroke=\"#c0392b\" stroke-width=\"2\"/>",
                    x + cell / 2.0 - 1.0,
                    base - row + 16.0
                );
            }
        }
        let _ = writeln!(
            out,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{base}\" y2=\"{base}\" stroke=\"#999\"/>",
            left + cell * months.len() as f64
        );
    }
    let axis = top + row * s.towns.len() as f64 + 5.0;
    for (k, m) in months.iter().enumerate() {
        if m.month() == 1 || k == 0 {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}">{}</text>"#,
                left + cell * k as f64,
                axis + 10.0,
                m
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
