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
        History::parse(HISTORY_RON)
    }

    /// A history file's text (`history.ron`).
    pub fn parse(text: &str) -> Result<History, String> {
        ron::from_str(text).map_err(|e| format!("history.ron: {e}"))
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
    /// Its combats, counted by kind.
    pub battles: Battles,
}

/// How the combats of one game or a run went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Battles {
    /// Every combat fought.
    pub combats: usize,
    /// Combats that ended drawn (9.8: neither side lost).
    pub draws: usize,
    /// British regular infantry (and nothing else of theirs) against about
    /// as much ansar strength in the open.
    pub british_open: Tally,
    /// Egyptian L-class troops (and nothing else of theirs) against about
    /// as much ansar strength in the open.
    pub egyptian_l_open: Tally,
}

/// The Egyptian side's results in one kind of combat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub fought: usize,
    pub won: usize,
    pub lost: usize,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.fought += o.fought;
        self.won += o.won;
        self.lost += o.lost;
    }
}

impl Battles {
    fn add(&mut self, o: &Battles) {
        self.combats += o.combats;
        self.draws += o.draws;
        self.british_open.add(o.british_open);
        self.egyptian_l_open.add(o.egyptian_l_open);
    }
}

/// Strengths within this ratio of each other count as "equal numbers" in
/// the battle statistics: 4 to 5 either way.
const EQUAL_BAND: (f64, f64) = (0.8, 1.25);

/// The kinds of combat the report follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    BritishOpen,
    EgyptianLOpen,
}

/// Which kind, if any, a combat is: the Egyptian side all British regular
/// infantry or all Egyptian L-class troops (fighting units: river units,
/// the fleet, supply, camels and civilians aside), the Mahdist side all
/// ansar, the strengths equal within [`EQUAL_BAND`], fought in a clear hex
/// with no settlement ("in the open").
fn kind_of(
    scn: &Scenario,
    state: &GameState,
    attackers: &[crate::state::UnitId],
    defenders: &[crate::state::UnitId],
    hex: Hex,
) -> Option<Kind> {
    use crate::scenario::{Nation, Quality, UnitKind};
    if scn.map.terrain(hex) != Some(crate::geo::Terrain::Clear)
        || scn.map.settlement_at(hex).is_some()
    {
        return None;
    }
    let fighting = |ids: &[crate::state::UnitId]| -> Vec<(Side, &crate::scenario::UnitType, u32)> {
        ids.iter()
            .filter_map(|id| state.units.iter().find(|u| u.id == *id))
            .filter_map(|u| scn.units.get(&u.unit_type).map(|t| (u.side, t, u.strength)))
            .filter(|(_, t, _)| {
                !t.kind.is_river_unit()
                    && !matches!(
                        t.kind,
                        UnitKind::Fleet | UnitKind::Supply | UnitKind::Camel | UnitKind::Civilian
                    )
            })
            .collect()
    };
    let (a, d) = (fighting(attackers), fighting(defenders));
    let (egyptian, mahdist) = match (a.first(), d.first()) {
        (Some((Side::Egyptian, _, _)), Some((Side::Mahdist, _, _))) => (a, d),
        (Some((Side::Mahdist, _, _)), Some((Side::Egyptian, _, _))) => (d, a),
        _ => return None,
    };
    if !mahdist
        .iter()
        .all(|(s, t, _)| *s == Side::Mahdist && t.nation == Nation::Mahdist)
    {
        return None;
    }
    let strength = |v: &[(Side, &crate::scenario::UnitType, u32)]| -> f64 {
        v.iter().map(|(_, _, s)| f64::from(*s)).sum()
    };
    let ratio = strength(&egyptian) / strength(&mahdist).max(1.0);
    if !(EQUAL_BAND.0..=EQUAL_BAND.1).contains(&ratio) {
        return None;
    }
    if egyptian.iter().all(|(_, t, _)| {
        t.nation == Nation::British
            && matches!(t.kind, UnitKind::Infantry | UnitKind::NavalInfantry)
            && t.quality != Quality::L
            && t.quality != Quality::S
    }) {
        Some(Kind::BritishOpen)
    } else if egyptian
        .iter()
        .all(|(_, t, _)| t.nation == Nation::Egyptian && t.quality == Quality::L)
    {
        Some(Kind::EgyptianLOpen)
    } else {
        None
    }
}

/// Count a month's combats.
fn count_battles(
    scn: &Scenario,
    state: &GameState,
    events: &[crate::engine::events::Event],
    b: &mut Battles,
) {
    use crate::engine::events::Event;
    let mut open: Option<Option<Kind>> = None;
    for e in events {
        match e {
            Event::CombatBegins {
                attackers,
                defenders,
                defender,
                ..
            } => {
                open = Some(kind_of(scn, state, attackers, defenders, *defender));
            }
            Event::CombatResult { result, .. } => {
                let Some(kind) = open.take() else { continue };
                b.combats += 1;
                let won = result.starts_with("Egyptian won");
                let lost = result.starts_with("Mahdist won");
                if !won && !lost {
                    b.draws += 1;
                }
                let tally = match kind {
                    Some(Kind::BritishOpen) => &mut b.british_open,
                    Some(Kind::EgyptianLOpen) => &mut b.egyptian_l_open,
                    None => continue,
                };
                tally.fought += 1;
                tally.won += usize::from(won);
                tally.lost += usize::from(lost);
            }
            _ => {}
        }
    }
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
                battles: Battles::default(),
            };
        }
    };
    state.options = matchup.options.clone();
    let mut dice = Dice::new(SeededDice::from_seed(game_seed));
    let mut bot_dice = Dice::new(SeededDice::from_seed(game_seed ^ 0x6d61_6864_6973_7400));
    let mut holder: BTreeMap<String, Option<Side>> = towns
        .iter()
        .map(|(name, h)| (name.clone(), held_by(scn, &state, *h)))
        .collect();
    let mut fell: BTreeMap<String, Option<GameMonth>> =
        towns.iter().map(|(name, _)| (name.clone(), None)).collect();
    let mut months = 0;
    let mut battles = Battles::default();
    while state.result.is_none() {
        let month = state.month;
        let r = play_month_with(
            scn,
            state,
            &mut |s: &GameState, side| match side {
                Side::Egyptian => match egyptian {
                    EgyptianPlayer::Simple => simple_orders(scn, s, side),
                    EgyptianPlayer::Bot(p) => egyptian::decide_with(scn, s, p, Some(&bot.1)).orders,
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
        // Counters keep their ids and types all game, and their
        // strengths: the state after the month names them all.
        count_battles(scn, &r.state, &r.events, &mut battles);
        state = r.state;
        months += 1;
        for (name, h) in towns {
            let now = holder_after(scn, &state, *h, holder[name]);
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
        battles,
    }
}

/// Who holds a town: the side of the land units in it (boats, gunboats
/// and the fleet hold no town), else whoever last occupied it (3.2), else
/// no one.
fn held_by(scn: &Scenario, state: &GameState, hex: Hex) -> Option<Side> {
    for side in [Side::Mahdist, Side::Egyptian] {
        if land_at(scn, state, side, |h| h == hex) {
            return Some(side);
        }
    }
    state.control.get(&hex).copied()
}

/// Who holds a town after a month ([`held_by`], else its holder before).
/// A game the Mahdists won this month with the town's garrison gone and
/// their army before it (Gordon's stack destroyed in Khartoum): the town
/// fell, though no one marched in.
fn holder_after(scn: &Scenario, state: &GameState, hex: Hex, before: Option<Side>) -> Option<Side> {
    let won = state
        .result
        .as_ref()
        .is_some_and(|r| r.winner == Some(Side::Mahdist));
    if won
        && !land_at(scn, state, Side::Egyptian, |x| x == hex)
        && land_at(scn, state, Side::Mahdist, |x| x.distance(hex) <= 1)
    {
        return Some(Side::Mahdist);
    }
    held_by(scn, state, hex).or(before)
}

/// Whether a land unit of `side` (not a boat, gunboat or the fleet)
/// stands in a hex `at` accepts.
fn land_at(scn: &Scenario, state: &GameState, side: Side, at: impl Fn(Hex) -> bool) -> bool {
    state.units.iter().any(|u| {
        u.side == side
            && u.hex().is_some_and(&at)
            && scn.units.get(&u.unit_type).is_some_and(|t| {
                !t.kind.is_river_unit() && t.kind != crate::scenario::UnitKind::Fleet
            })
    })
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
    run_with(
        scn,
        history,
        &Opponents::shipped()?,
        matchup,
        seed,
        games,
        tick,
    )
}

/// [`run`] with the programmed players' data of `opponents` (a data
/// folder's `opponents.ron`); the reaction table is the scenario's.
pub fn run_with(
    scn: &Scenario,
    history: &History,
    opponents: &Opponents,
    matchup: &Matchup,
    seed: u64,
    games: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<GameOutcome>, String> {
    let towns = towns(scn, history)?;
    let bot = ((*scn.reactions).clone(), opponents.clone());
    Ok((0..games)
        .into_par_iter()
        .map(|n| {
            let o = play_one(scn, &towns, matchup, seed, n, &bot);
            tick();
            o
        })
        .collect())
}

/// The typical battles of the report, as shipped: rule cases
/// (docs/cases.md) whose situation is one combat, played many times with
/// seeded dice on the tables of the data in use.
pub const TYPICAL_BATTLES: [(&str, &str); 6] = [
    (
        "british-infantry-charged-in-the-open",
        include_str!("../scenarios/battles/british-infantry-charged-in-the-open.toml"),
    ),
    (
        "british-infantry-charged-by-twice-their-number",
        include_str!("../scenarios/battles/british-infantry-charged-by-twice-their-number.toml"),
    ),
    (
        "british-infantry-attack-in-the-open",
        include_str!("../scenarios/battles/british-infantry-attack-in-the-open.toml"),
    ),
    (
        "egyptian-l-charged-in-the-open",
        include_str!("../scenarios/battles/egyptian-l-charged-in-the-open.toml"),
    ),
    (
        "egyptian-l-attack-in-the-open",
        include_str!("../scenarios/battles/egyptian-l-attack-in-the-open.toml"),
    ),
    (
        "ansar-assault-a-town",
        include_str!("../scenarios/battles/ansar-assault-a-town.toml"),
    ),
];

/// How one typical battle went over many runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypicalBattle {
    /// Its file name, without `.toml`.
    pub id: String,
    /// Its case's name, in words.
    pub name: String,
    pub runs: usize,
    /// Runs in which the combat was fought (a march roll of "no march"
    /// fights none), and the Egyptian side's results in them.
    pub tally: Tally,
}

/// Play each typical battle `runs` times on all cores, run `k` with the
/// dice seeded from `seed` and `k`, on the tables of `data`.
pub fn typical_battles(
    data: &crate::scenario::DataSet,
    runs: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<TypicalBattle>, String> {
    typical_battles_resolving(data, runs, seed, &BattleResolver::Tables, tick)
}

/// Who resolves the typical battles' combats.
#[derive(Clone, Debug)]
pub enum BattleResolver {
    /// The campaign's combat tables (9.2-9.9).
    Tables,
    /// The ETYFW resolver (docs/tabletop-etyfw.md) with these tables.
    Etyfw(Box<crate::battle::etyfw::Etyfw>),
}

impl BattleResolver {
    /// The name the `--resolver` flag takes.
    pub fn name(&self) -> &'static str {
        match self {
            BattleResolver::Tables => "tables",
            BattleResolver::Etyfw(_) => "etyfw",
        }
    }
}

/// As [`typical_battles`], each combat resolved by `resolver`: the same
/// cases, the same seeds, the same reading of the result (the engine's
/// 9.8 from the fates).
pub fn typical_battles_resolving(
    data: &crate::scenario::DataSet,
    runs: u64,
    seed: u64,
    resolver: &BattleResolver,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<TypicalBattle>, String> {
    TYPICAL_BATTLES
        .iter()
        .map(|(id, text)| {
            let case = crate::cases::parse(
                &format!("scenarios/battles/{id}.toml"),
                text,
                std::path::Path::new("."),
                data,
            )
            .map_err(|e| format!("typical battle {id}: {e}"))?;
            let results: Vec<Option<Option<Side>>> = (0..runs)
                .into_par_iter()
                .map(|k| {
                    let mut c = case.clone();
                    c.dice = crate::cases::DiceSpec::Seed(
                        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(k),
                    );
                    let out = match resolver {
                        BattleResolver::Tables => crate::cases::run::run(&c),
                        BattleResolver::Etyfw(e) => {
                            crate::cases::run::run_resolving(&c, &mut (**e).clone())
                        }
                    };
                    tick();
                    combat_result(&out.log)
                })
                .collect();
            let mut tally = Tally::default();
            for r in results.into_iter().flatten() {
                tally.fought += 1;
                tally.won += usize::from(r == Some(Side::Egyptian));
                tally.lost += usize::from(r == Some(Side::Mahdist));
            }
            Ok(TypicalBattle {
                id: (*id).to_string(),
                name: case.name.clone(),
                runs: usize::try_from(runs).unwrap_or(usize::MAX),
                tally,
            })
        })
        .collect()
}

/// The first combat of a result log: `None` if none was fought, else the
/// winner (`None` for a draw).
fn combat_result(log: &str) -> Option<Option<Side>> {
    let line = log.lines().find(|l| l.contains("combat at "))?;
    Some(if line.contains(": Egyptian won") {
        Some(Side::Egyptian)
    } else if line.contains(": Mahdist won") {
        Some(Side::Mahdist)
    } else {
        None
    })
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
    /// Every game's combats, summed.
    pub battles: Battles,
    /// The typical battles, if they were played ([`typical_battles`]).
    pub typical: Vec<TypicalBattle>,
}

/// The figures of one town.
#[derive(Clone, Debug)]
pub struct TownFigures {
    pub town: String,
    pub history: Option<GameMonth>,
    pub fell: usize,
    pub by_month: BTreeMap<GameMonth, usize>,
    pub median: Option<GameMonth>,
    /// The median month among the games in which it fell.
    pub median_of_falls: Option<GameMonth>,
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
            let mut seen = 0;
            let mut median_of_falls = None;
            for (m, k) in &by_month {
                seen += k;
                if seen * 2 >= fell {
                    median_of_falls = Some(*m);
                    break;
                }
            }
            TownFigures {
                median_of_falls,
                town: t.town.clone(),
                history: t.fell.as_deref().and_then(|m| m.parse().ok()),
                fell,
                by_month,
                median,
            }
        })
        .collect();
    let mut battles = Battles::default();
    for o in outcomes {
        battles.add(&o.battles);
    }
    Summary {
        games: n,
        results,
        reasons,
        towns,
        battles,
        typical: Vec::new(),
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
        "\n| town | fell in history | fell in games | median month of the fall | median month of the games it fell in | months it fell in (games) |\n|---|---|---|---|---|---|"
    );
    for t in &s.towns {
        let (p, lo, hi) = wilson(t.fell, s.games);
        let _ = writeln!(
            out,
            "| {} | {} | {} ({p:.1}%, {lo:.1}-{hi:.1}%) | {} | {} | {} |",
            t.town,
            t.history.map_or("held".to_string(), |m| m.long_name()),
            t.fell,
            t.median
                .map_or("held in half the games or more".to_string(), |m| m
                    .long_name()),
            t.median_of_falls
                .map_or("never fell".to_string(), |m| m.long_name()),
            t.by_month
                .iter()
                .map(|(m, k)| format!("{m}: {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let b = &s.battles;
    let (p, lo, hi) = wilson(b.draws, b.combats);
    let _ = writeln!(
        out,
        "\n## Battles\n\n{} combats, {} of them drawn ({p:.1}%, {lo:.1}-{hi:.1}%).\n\n\
         Equal numbers: the Egyptian side's strength within 4 to 5 either way of the ansar's; \
         in the open: a clear hex with no settlement.\n\n\
         | combat | fought | Egyptian side won | lost | drawn | share won (95% interval) |\n|---|---|---|---|---|---|",
        b.combats, b.draws
    );
    for (label, t) in [
        (
            "British regular infantry against equal ansar in the open",
            b.british_open,
        ),
        (
            "Egyptian L-class troops against equal ansar in the open",
            b.egyptian_l_open,
        ),
    ] {
        let (p, lo, hi) = wilson(t.won, t.fought);
        let shown = if t.fought == 0 {
            "none fought".to_string()
        } else {
            format!("{p:.0}% ({lo:.0}-{hi:.0}%)")
        };
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} | {} | {shown} |",
            t.fought,
            t.won,
            t.lost,
            t.fought - t.won - t.lost
        );
    }
    if !s.typical.is_empty() {
        let _ = writeln!(
            out,
            "\n## Typical battles\n\n\
             Each a rule case of `scenarios/battles/` (one combat), played with seeded dice on the \
             tables in use; a march roll of no march fights no combat.\n\n\
             | battle | runs | fought | Egyptian side won | lost | drawn | share won (95% interval) | share lost (95% interval) |\n\
             |---|---|---|---|---|---|---|---|"
        );
        for b in &s.typical {
            let t = b.tally;
            let (p, lo, hi) = wilson(t.won, t.fought);
            let (q, qlo, qhi) = wilson(t.lost, t.fought);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {p:.1}% ({lo:.1}-{hi:.1}%) | {q:.1}% ({qlo:.1}-{qhi:.1}%) |",
                b.name,
                b.runs,
                t.fought,
                t.won,
                t.lost,
                t.fought - t.won - t.lost
            );
        }
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
    let mut out = svg_open(width, height);
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

/// The opening tag of a chart `width` by `height` pixels.
fn svg_open(width: f64, height: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n"
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Colours of the charts: won, drawn, lost (the Egyptian side's results).
const WON: &str = "#4a7f4a";
const DRAWN: &str = "#b8b8b8";
const LOST: &str = "#b5473a";

/// A chart of the results: one bar per result, its share of the games,
/// with the 95% (Wilson) interval drawn as a whisker, and why the games
/// ended beneath it: hand-built SVG.
pub fn results_svg(title: &str, s: &Summary) -> String {
    let (left, top, bar, gap, scale) = (170.0, 40.0, 18.0, 8.0, 4.0);
    let rows = s.results.len() + s.reasons.len();
    let width = left + 100.0 * scale + 60.0;
    let height = top + (bar + gap) * rows as f64 + 60.0;
    let mut out = svg_open(width, height);
    let _ = writeln!(
        out,
        r#"<text x="4" y="20" font-size="13">{}: results of {} games (share, 95% interval)</text>"#,
        escape(title),
        s.games
    );
    let mut y = top;
    for (label, k, p, lo, hi) in &s.results {
        let fill = match label.as_str() {
            "Egyptian victory" => WON,
            "Mahdist victory" => LOST,
            _ => DRAWN,
        };
        let _ = writeln!(
            out,
            r#"<text x="4" y="{}">{}</text>"#,
            y + bar - 5.0,
            escape(label)
        );
        let _ = writeln!(
            out,
            "<rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"{bar}\" fill=\"{fill}\"><title>{label}: {k} games, {p:.1}% ({lo:.1}-{hi:.1}%)</title></rect>",
            p * scale
        );
        let mid = y + bar / 2.0;
        let _ = writeln!(
            out,
            "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{mid}\" y2=\"{mid}\" stroke=\"#222\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\"/>",
            left + lo * scale,
            left + hi * scale,
            left + lo * scale,
            left + lo * scale,
            y + 4.0,
            y + bar - 4.0,
            left + hi * scale,
            left + hi * scale,
            y + 4.0,
            y + bar - 4.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}">{p:.1}%</text>"#,
            left + hi.max(*p) * scale + 6.0,
            y + bar - 5.0
        );
        y += bar + gap;
    }
    y += 10.0;
    let _ = writeln!(out, r#"<text x="4" y="{}">Why the games ended</text>"#, y);
    y += 8.0;
    for (reason, k) in &s.reasons {
        let p = 100.0 * *k as f64 / s.games.max(1) as f64;
        let short: String = if reason.chars().count() > 26 {
            reason
                .chars()
                .take(25)
                .chain(std::iter::once('…'))
                .collect()
        } else {
            reason.clone()
        };
        let _ = writeln!(
            out,
            "<text x=\"4\" y=\"{}\"><title>{}</title>{}</text>",
            y + bar - 5.0,
            escape(reason),
            escape(&short)
        );
        let _ = writeln!(
            out,
            "<rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"{bar}\" fill=\"#7a8fa8\"><title>{}: {k} games</title></rect>",
            p * scale,
            escape(reason)
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}">{p:.1}%</text>"#,
            left + p * scale + 6.0,
            y + bar - 5.0
        );
        y += bar + gap;
    }
    for pct in [0, 25, 50, 75, 100] {
        let x = left + pct as f64 * scale;
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{top}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\">{pct}%</text>",
            x - 8.0,
            y + 14.0
        );
    }
    out.push_str("</svg>\n");
    out
}

/// A chart of the battles: for each kind of combat followed in the games
/// and each typical battle, one bar split into the Egyptian side's wins,
/// draws and losses, with the calibration target's 70% marked: hand-built
/// SVG.
pub fn battles_svg(title: &str, s: &Summary) -> String {
    let mut rows: Vec<(String, Tally)> = vec![
        (
            "In the games: British regular infantry, equal ansar, open".into(),
            s.battles.british_open,
        ),
        (
            "In the games: Egyptian L-class troops, equal ansar, open".into(),
            s.battles.egyptian_l_open,
        ),
    ];
    rows.extend(s.typical.iter().map(|b| (b.name.clone(), b.tally)));
    let (left, top, bar, gap, scale) = (20.0, 50.0, 18.0, 22.0, 5.0);
    let width = f64::max(left + 100.0 * scale + 40.0, 760.0);
    let height = top + (bar + gap) * rows.len() as f64 + 30.0;
    let mut out = svg_open(width, height);
    let _ = writeln!(
        out,
        r#"<text x="4" y="18" font-size="13">{}: battles, the Egyptian side's share won (green), drawn (grey), lost (red)</text>"#,
        escape(title)
    );
    let _ = writeln!(
        out,
        r#"<text x="4" y="34">{} combats in the games, {:.1}% drawn; dashed: 70%</text>"#,
        s.battles.combats,
        100.0 * s.battles.draws as f64 / s.battles.combats.max(1) as f64
    );
    let mut y = top;
    for (name, t) in &rows {
        let _ = writeln!(
            out,
            r#"<text x="{left}" y="{}">{} ({} fought)</text>"#,
            y + 10.0,
            escape(name),
            t.fought
        );
        let by = y + 14.0;
        if t.fought == 0 {
            let _ = writeln!(
                out,
                "<text x=\"{left}\" y=\"{}\" fill=\"#777\">none fought</text>",
                by + bar - 5.0
            );
        } else {
            let share = |k: usize| 100.0 * k as f64 / t.fought as f64;
            let drawn = t.fought - t.won - t.lost;
            let mut x = left;
            for (k, fill, what) in [
                (t.won, WON, "won"),
                (drawn, DRAWN, "drawn"),
                (t.lost, LOST, "lost"),
            ] {
                let w = share(k) * scale;
                let _ = writeln!(
                    out,
                    "<rect x=\"{x:.1}\" y=\"{by}\" width=\"{w:.1}\" height=\"{bar}\" fill=\"{fill}\"><title>{what}: {k} of {} ({:.1}%)</title></rect>",
                    t.fought,
                    share(k)
                );
                if share(k) >= 8.0 {
                    let _ = writeln!(
                        out,
                        r#"<text x="{:.1}" y="{}" fill="white">{:.0}%</text>"#,
                        x + 3.0,
                        by + bar - 5.0,
                        share(k)
                    );
                }
                x += w;
            }
        }
        y += bar + gap;
    }
    let x = left + 70.0 * scale;
    let _ = writeln!(
        out,
        "<line x1=\"{x}\" x2=\"{x}\" y1=\"{top}\" y2=\"{y}\" stroke=\"#222\" stroke-dasharray=\"4 3\"/>"
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{GameResult, Status};

    /// Khartoum as the report sees it: Gordon's gunboats hold no town, a
    /// Mahdist land unit in it does, and a game the Mahdists won with the
    /// garrison gone and their army before the town counts it fallen.
    #[test]
    fn a_town_is_held_by_land_units_not_gunboats() {
        let data = crate::scenario::DataSet::embedded().unwrap();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/case-fixtures/relief-coming.toml");
        let case = crate::cases::load(&path, &data).unwrap();
        let (scn, mut state) = (case.scn, case.state);
        let khartoum = scn.map.resolve("Khartoum").unwrap();
        let besiegers = scn.map.resolve("1943").unwrap();
        assert_eq!(held_by(&scn, &state, khartoum), Some(Side::Egyptian));
        // The garrison starved: only a gunboat of Gordon's is left.
        for u in state.units.iter_mut() {
            if u.hex() == Some(khartoum) {
                u.status = Status::Pool;
            }
        }
        let gunboat = state
            .units
            .iter()
            .position(|u| &*u.unit_type == "egy-gunboat" && u.hex().is_none())
            .unwrap();
        state.units[gunboat].status = Status::OnMap(khartoum);
        // Held still by its last occupier (3.2), not by the gunboat.
        assert_eq!(held_by(&scn, &state, khartoum), Some(Side::Egyptian));
        assert_eq!(
            holder_after(&scn, &state, khartoum, Some(Side::Egyptian)),
            Some(Side::Egyptian)
        );
        // A Mahdist land unit walks in beside the gunboat: it holds the town
        // (the first counter in the hex, the gunboat, counted before).
        let walker = state
            .units
            .iter()
            .position(|u| u.side == Side::Mahdist && u.hex() == Some(besiegers))
            .unwrap();
        state.units[walker].status = Status::OnMap(khartoum);
        assert_eq!(held_by(&scn, &state, khartoum), Some(Side::Mahdist));
        state.units[walker].status = Status::OnMap(besiegers);
        // The Mahdists win this month (Gordon's stack destroyed), their army
        // next to the empty town: it fell.
        state.result = Some(GameResult {
            winner: Some(Side::Mahdist),
            reason: "a stack with a British leader destroyed in combat".into(),
        });
        assert_eq!(
            holder_after(&scn, &state, khartoum, Some(Side::Egyptian)),
            Some(Side::Mahdist)
        );
        // Not with their army away from it.
        for u in state.units.iter_mut() {
            if u.side == Side::Mahdist && u.hex().is_some() {
                u.status = Status::Pool;
            }
        }
        assert_eq!(
            holder_after(&scn, &state, khartoum, Some(Side::Egyptian)),
            Some(Side::Egyptian)
        );
    }
}
