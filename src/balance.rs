//! Balance: many campaigns of programmed players against each other, on
//! all cores, summed up against history: who wins and why games end, and
//! the month each town falls beside the month it fell in 1882-1885
//! (`scenarios/history.ron`). `dervish balance` prints the table and writes
//! `report.md` and three SVG charts (falls, results, battles).
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
use crate::players::scripted::Scripts;
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
    /// The orders of a side's order files set aside in it (file, line,
    /// why), if a side is played from files.
    pub set_aside: Vec<String>,
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

/// What every game of a run shares: the position it starts from (the
/// set-up rolls no dice), the Mahdist reaction table, the opponents' data,
/// and the Mahdist opening set-up and the Egyptian opening orders, made
/// once for all the games that start from the same position.
#[derive(Debug)]
pub struct Shared {
    /// The scenario's set-up, or why it failed.
    pub start: Result<GameState, String>,
    pub table: Reactions,
    pub opponents: Opponents,
    pub openings: mahdist::Openings,
    /// The Egyptian programmed player's opening orders, decided once for
    /// all the games that start from the same position.
    pub egyptian_openings: egyptian::Openings,
}

impl Shared {
    /// What the games of a run of `scn` with `opponents` share.
    pub fn new(scn: &Scenario, opponents: &Opponents) -> Shared {
        Shared {
            start: initial_state(scn, &Placements::new())
                .map(|(s, _)| s)
                .map_err(|e| e.to_string()),
            table: (*scn.reactions).clone(),
            opponents: opponents.clone(),
            openings: mahdist::Openings::default(),
            egyptian_openings: egyptian::Openings::default(),
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
    shared: &Shared,
) -> GameOutcome {
    play_one_scripted(scn, towns, matchup, &Scripts::default(), seed, n, shared)
}

/// [`play_one`], a side played from its order files where `scripts` has
/// them (its programmed player then plays no part).
pub fn play_one_scripted(
    scn: &Scenario,
    towns: &[(String, Hex)],
    matchup: &Matchup,
    scripts: &Scripts,
    seed: u64,
    n: u64,
    shared: &Shared,
) -> GameOutcome {
    let (egyptian, mahdist) = (matchup.egyptian, matchup.mahdist);
    let game_seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(n);
    let mut state = match &shared.start {
        Ok(s) => s.unshared(),
        Err(e) => {
            return GameOutcome {
                winner: None,
                reason: format!("the set-up failed: {e}"),
                months: 0,
                fell: BTreeMap::new(),
                battles: Battles::default(),
                set_aside: Vec::new(),
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
    let mut set_aside = Vec::new();
    while state.result.is_none() {
        let month = state.month;
        let r = play_month_with(
            scn,
            state,
            &mut |s: &GameState, side| match side {
                _ if scripts.of(side).is_some() => scripts.play(scn, s, side, &mut set_aside),
                Side::Egyptian => match egyptian {
                    EgyptianPlayer::Simple => simple_orders(scn, s, side),
                    EgyptianPlayer::Bot(p) => {
                        egyptian::decide_remembering(
                            scn,
                            s,
                            p,
                            Some(&shared.opponents),
                            &shared.egyptian_openings,
                        )
                        .orders
                    }
                },
                Side::Mahdist => match mahdist {
                    MahdistPlayer::Simple => simple_orders(scn, s, side),
                    MahdistPlayer::Bot => {
                        mahdist::decide_remembering(
                            scn,
                            s,
                            &shared.table,
                            &shared.opponents,
                            &mut bot_dice,
                            &shared.openings,
                        )
                        .orders
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
        set_aside,
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
    run_scripted(
        scn,
        history,
        &Opponents::shipped()?,
        matchup,
        &Scripts::default(),
        seed,
        games,
        tick,
    )
}

/// [`run`] with the programmed players' data of `opponents` (a data
/// folder's `opponents.ron`; the reaction table is the scenario's), a side
/// played from its order files where `scripts` has them (`dervish balance
/// --egyptian orders:DIR`).
#[allow(clippy::too_many_arguments)]
pub fn run_scripted(
    scn: &Scenario,
    history: &History,
    opponents: &Opponents,
    matchup: &Matchup,
    scripts: &Scripts,
    seed: u64,
    games: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<GameOutcome>, String> {
    let towns = towns(scn, history)?;
    let shared = Shared::new(scn, opponents);
    Ok((0..games)
        .into_par_iter()
        .map(|n| {
            let o = play_one_scripted(scn, &towns, matchup, scripts, seed, n, &shared);
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
pub fn combat_result(log: &str) -> Option<Option<Side>> {
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
    wilson_at(k as f64 / n as f64, n, 1.96)
}

/// The Wilson score interval of a share `p` over `n` trials at `z`
/// standard errors: (share, low, high), in percent.
pub fn wilson_at(p: f64, n: usize, z: f64) -> (f64, f64, f64) {
    let n = n as f64;
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
    /// The result each reason gave (each names one: engine::victory).
    pub reason_results: BTreeMap<String, Option<Side>>,
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
    let mut reason_results = BTreeMap::new();
    for o in outcomes {
        *reasons.entry(o.reason.clone()).or_default() += 1;
        reason_results.insert(o.reason.clone(), o.winner);
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
        reason_results,
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

/// Colours of the charts, by result: the Egyptian side won, a draw, the
/// Mahdist side won.
const WON: &str = "#4a7f4a";
const DRAWN: &str = "#9a9a9a";
const LOST: &str = "#b5473a";
/// The bars of the month each town fell (no result of the game).
const FELL: &str = "#4a6fa5";
/// Fewer games or combats than this behind a share make a thin sample,
/// drawn pale with a dashed outline.
pub const THIN_SAMPLE: usize = 30;
/// The calibration target of the combat tables (docs/calibration.md):
/// British regular infantry beat as many ansar in the open in at least 70%
/// of combats.
const TARGET_WON: f64 = 70.0;
/// The typical battles the 70% target is measured on.
const TARGET_BATTLES: [&str; 2] = [
    "british-infantry-charged-in-the-open",
    "british-infantry-attack-in-the-open",
];
/// The widest a line of a chart's text may run, in characters.
const LINE_CHARS: usize = 110;

/// The opening tag of a chart `width` by `height` pixels, on white.
fn svg_open(width: f64, height: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n<path d=\"M0 0H{width}V{height}H0Z\" fill=\"white\"/>\n"
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `text` broken at spaces into lines of at most `width` characters (a word
/// longer than that gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A chart's title (14 pixels, bold) and the lines under it, wrapped;
/// returns the height they took from `y`.
fn heading(out: &mut String, title: &str, notes: &[String], y: f64) -> f64 {
    let mut y = y + 18.0;
    for line in wrap(title, LINE_CHARS * 11 / 14) {
        let _ = writeln!(
            out,
            r#"<text x="8" y="{y}" font-size="14" font-weight="bold">{}</text>"#,
            escape(&line)
        );
        y += 18.0;
    }
    for note in notes {
        for line in wrap(note, LINE_CHARS) {
            let _ = writeln!(out, r#"<text x="8" y="{y}">{}</text>"#, escape(&line));
            y += 16.0;
        }
    }
    y
}

/// A key: a swatch and its words for each entry, side by side on one row
/// (the swatch is "line" for a dashed target line, "red" for history's
/// red line, "thin" for a thin sample's pale bar, else a fill colour).
fn key(out: &mut String, entries: &[(&str, &str)], y: f64) -> f64 {
    let mut x = 8.0;
    for (swatch, words) in entries {
        let mid = y + 6.0;
        match *swatch {
            "line" => {
                let _ = writeln!(
                    out,
                    "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#222\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
                    x + 6.0,
                    y - 2.0,
                    y + 14.0
                );
            }
            "red" => {
                let _ = writeln!(
                    out,
                    "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#c0392b\" stroke-width=\"2\"/>",
                    x + 6.0,
                    y - 2.0,
                    y + 14.0
                );
            }
            "thin" => {
                let _ = writeln!(
                    out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{DRAWN}\" fill-opacity=\"0.4\" stroke=\"#222\" stroke-dasharray=\"2 2\"><title>{words}</title></rect>"
                );
            }
            fill => {
                let _ = writeln!(
                    out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"{fill}\"><title>{words}</title></rect>"
                );
            }
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}">{}</text>"#,
            x + 17.0,
            mid + 4.0,
            escape(words)
        );
        // About 6.5 pixels a character at 12 pixels.
        x += 17.0 + 6.5 * words.chars().count() as f64 + 16.0;
    }
    y + 22.0
}

/// The style of a bar: pale with a dashed outline if fewer than
/// [`THIN_SAMPLE`] games or combats stand behind it.
fn bar_style(fill: &str, n: usize) -> String {
    if n < THIN_SAMPLE {
        format!("fill=\"{fill}\" fill-opacity=\"0.4\" stroke=\"#222\" stroke-dasharray=\"2 2\"")
    } else {
        format!("fill=\"{fill}\"")
    }
}

/// How many games or combats stand behind a row, in words, with a thin
/// sample said so.
fn sample(n: usize, what: &str) -> String {
    match n {
        0 => format!("none {what}"),
        n if n < THIN_SAMPLE => format!("{n} {what}: a thin sample"),
        n => format!("{n} {what}"),
    }
}

/// The light grid lines of a horizontal share axis, one every 10% from
/// `left` (0%) to `left + 100 * scale` (100%), from `top` to `bottom`:
/// drawn before the bars so that they stay behind them.
fn share_grid(left: f64, scale: f64, top: f64, bottom: f64) -> String {
    let mut out = String::new();
    for pct in (10..=100).step_by(10) {
        let x = left + f64::from(pct) * scale;
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{top}\" y2=\"{bottom}\" stroke=\"#e4e4e4\"/>"
        );
    }
    out
}

/// A horizontal share axis at `y` from `left` (0%) to `left + 100 * scale`
/// (100%): a tick every 10%, a label every 20%, and its name; returns the
/// height it reaches.
fn share_axis(out: &mut String, left: f64, scale: f64, y: f64, name: &str) -> f64 {
    for pct in (0..=100).step_by(10) {
        let x = left + f64::from(pct) * scale;
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{y}\" y2=\"{}\" stroke=\"#222\"/>",
            y + 5.0
        );
        if pct % 20 == 0 {
            let _ = writeln!(
                out,
                r#"<text x="{x}" y="{}" text-anchor="middle">{pct}%</text>"#,
                y + 18.0
            );
        }
    }
    let _ = writeln!(
        out,
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#222\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        left + 100.0 * scale,
        left + 50.0 * scale,
        y + 34.0,
        escape(name)
    );
    y + 44.0
}

/// The month each town fell, one row of bars per town: each bar the share
/// of the games in which the town fell that month, on the row's own share
/// axis, the month it fell in history marked with a red line: hand-built
/// SVG.
pub fn svg(scn: &Scenario, s: &Summary) -> String {
    let months: Vec<GameMonth> = scn.def.start.through(scn.def.end).collect();
    let (left, cell, row, plot) = (160.0, 20.0, 96.0, 60.0);
    let width = f64::max(left + cell * months.len() as f64 + 30.0, 720.0);
    let mut out = String::new();
    let notes = [
        format!(
            "Each bar: the share of the {} in which the town fell in that month; each row has \
             its own scale.",
            sample(s.games, "games")
        ),
        "The red line: the month it fell in history.".to_string(),
    ];
    let title = format!("{}: the month each town fell", scn.def.title);
    let mut y = heading(&mut out, &title, &notes, 0.0);
    let mut entries = vec![("red", "fell in history"), (FELL, "share of the games")];
    if s.games < THIN_SAMPLE {
        entries.push(("thin", "fewer than 30 games: a thin sample"));
    }
    y = key(&mut out, &entries, y + 4.0) + 16.0;
    for t in &s.towns {
        town_row(&mut out, t, &months, (left, cell, plot, y + plot), s);
        y += row;
    }
    let bottom = y - row + plot;
    month_axis(&mut out, &months, left, cell, bottom);
    let mut svg = svg_open(width, bottom + 44.0);
    svg.push_str(&out);
    svg.push_str("</svg>\n");
    svg
}

/// The top of a row's share axis: the highest monthly share rounded up to
/// 1%, 2%, 5% or a multiple of 10%.
fn axis_top(peak: f64) -> f64 {
    [
        1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0,
    ]
    .into_iter()
    .find(|top| peak <= *top)
    .unwrap_or(100.0)
}

/// One town's row of [`svg`]: its name, its share and its month in
/// history, its share axis, its bars and history's red line; `at` is
/// (left, cell, plot height, base).
fn town_row(
    out: &mut String,
    t: &TownFigures,
    months: &[GameMonth],
    at: (f64, f64, f64, f64),
    s: &Summary,
) {
    let (left, cell, plot, base) = at;
    let games = s.games.max(1) as f64;
    let share = |n: usize| 100.0 * n as f64 / games;
    let top_share = axis_top(t.by_month.values().map(|n| share(*n)).fold(0.0, f64::max));
    let history = t.history.map_or("held in history".to_string(), |m| {
        format!("history: {}", short_month(m))
    });
    let _ = writeln!(
        out,
        r#"<text x="8" y="{}" font-weight="bold">{}</text><text x="8" y="{}">fell in {:.1}%</text><text x="8" y="{}">{history}</text>"#,
        base - plot + 12.0,
        escape(&t.town),
        base - plot + 28.0,
        share(t.fell),
        base - plot + 44.0,
    );
    let right = left + cell * months.len() as f64;
    for frac in [0.0, 0.5, 1.0] {
        let yy = base - plot * frac;
        let _ = writeln!(
            out,
            "<line x1=\"{}\" x2=\"{right}\" y1=\"{yy}\" y2=\"{yy}\" stroke=\"{}\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}%</text>",
            left - 4.0,
            if frac == 0.0 { "#222" } else { "#e4e4e4" },
            left - 7.0,
            yy + 4.0,
            top_share * frac
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{left}\" x2=\"{left}\" y1=\"{}\" y2=\"{base}\" stroke=\"#222\"/>",
        base - plot
    );
    for (k, m) in months.iter().enumerate() {
        let x = left + cell * k as f64;
        if let Some(n) = t.by_month.get(m) {
            let h = plot * share(*n) / top_share;
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{h:.1}\" {}><title>{}: {n} of {} games ({:.1}%)</title></rect>",
                x + 1.0,
                base - h,
                cell - 2.0,
                bar_style(FELL, s.games),
                m.long_name(),
                s.games,
                share(*n)
            );
        }
        if t.history == Some(*m) {
            let _ = writeln!(
                out,
                "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{base}\" stroke=\"#c0392b\" stroke-width=\"2\"><title>fell in history: {2}</title></line>",
                x + cell / 2.0,
                base - plot,
                m.long_name()
            );
        }
    }
}

/// The months' short names.
const MONTH_NAMES: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// "Feb 1884".
fn short_month(m: GameMonth) -> String {
    format!(
        "{} {}",
        MONTH_NAMES[(m.month() as usize + 11) % 12],
        m.year()
    )
}

/// The months under [`svg`]'s rows: a tick each month, the names of
/// January, April, July and October (and of the first month unless one of
/// those follows it), and the year under each January and the first month.
fn month_axis(out: &mut String, months: &[GameMonth], left: f64, cell: f64, y: f64) {
    for (k, m) in months.iter().enumerate() {
        let x = left + cell * k as f64 + cell / 2.0;
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{y}\" y2=\"{}\" stroke=\"#222\"/>",
            y + 4.0
        );
        let quarter = m.month() % 3 == 1;
        if quarter || (k == 0 && m.month() % 3 != 0) {
            let _ = writeln!(
                out,
                r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
                y + 17.0,
                MONTH_NAMES[(m.month() as usize + 11) % 12]
            );
        }
        if k == 0 || m.month() == 1 {
            let _ = writeln!(
                out,
                r#"<text x="{x}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"#,
                y + 32.0,
                m.year()
            );
        }
    }
}

/// The colour of a result of the game.
fn result_fill(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::Egyptian) => WON,
        Some(Side::Mahdist) => LOST,
        None => DRAWN,
    }
}

/// One bar of [`results_svg`]: its label above it (wrapped), the bar, its
/// 95% interval as a whisker and the share written after it; returns the
/// `y` of the next bar.
fn share_row(
    out: &mut String,
    label: &str,
    k: usize,
    n: usize,
    fill: &str,
    at: (f64, f64, f64),
) -> f64 {
    let (left, scale, mut y) = at;
    let bar = 16.0;
    let (p, lo, hi) = wilson(k, n);
    for line in wrap(label, LINE_CHARS) {
        y += 15.0;
        let _ = writeln!(out, r#"<text x="{left}" y="{y}">{}</text>"#, escape(&line));
    }
    y += 4.0;
    let _ = writeln!(
        out,
        "<rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"{bar}\" {}><title>{}: {k} of {n} games, {p:.1}% ({lo:.1}-{hi:.1}%)</title></rect>",
        p * scale,
        bar_style(fill, n),
        escape(label)
    );
    let mid = y + bar / 2.0;
    let (x0, x1) = (left + lo * scale, left + hi * scale);
    let _ = writeln!(
        out,
        "<path d=\"M{x0:.1} {mid}H{x1:.1}M{x0:.1} {}V{}M{x1:.1} {}V{}\" stroke=\"#222\" fill=\"none\"/>",
        y + 3.0,
        y + bar - 3.0,
        y + 3.0,
        y + bar - 3.0
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{}">{p:.1}% ({lo:.1}-{hi:.1}%)</text>"#,
        left + hi.max(p) * scale + 6.0,
        y + bar - 4.0
    );
    y + bar + 8.0
}

/// A chart of the results: one bar per result, its share of the games,
/// with the 95% (Wilson) interval drawn as a whisker, and why the games
/// ended beneath it, each reason in full and coloured by the result it
/// gave: hand-built SVG.
pub fn results_svg(title: &str, s: &Summary) -> String {
    let (left, scale) = (20.0, 6.0);
    let width = left + 100.0 * scale + 170.0;
    let mut out = String::new();
    let notes = [format!(
        "Each bar: a share of the {}, its 95% interval as a whisker.",
        sample(s.games, "games")
    )];
    let mut y = heading(&mut out, &format!("{title}: results"), &notes, 0.0);
    let mut entries = vec![
        (WON, "Egyptian victory"),
        (LOST, "Mahdist victory"),
        (DRAWN, "draw"),
    ];
    if s.games < THIN_SAMPLE {
        entries.push(("thin", "fewer than 30 games: a thin sample"));
    }
    y = key(&mut out, &entries, y + 4.0);
    let top = y;
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="{}" font-weight="bold">The results</text>"#,
        y + 15.0
    );
    y += 16.0;
    for (label, k, ..) in &s.results {
        let fill = match label.as_str() {
            "Egyptian victory" => WON,
            "Mahdist victory" => LOST,
            _ => DRAWN,
        };
        let label = format!("{label} ({k} games)");
        y = share_row(&mut out, &label, *k, s.games, fill, (left, scale, y));
    }
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="{}" font-weight="bold">Why the games ended (the colour: the result it gave)</text>"#,
        y + 19.0
    );
    y += 20.0;
    for (reason, k) in &s.reasons {
        let fill = result_fill(s.reason_results.get(reason).copied().flatten());
        let label = format!("{reason} ({k} games)");
        y = share_row(&mut out, &label, *k, s.games, fill, (left, scale, y));
    }
    let grid = share_grid(left, scale, top, y + 4.0);
    y = share_axis(&mut out, left, scale, y + 4.0, "share of the games");
    let mut svg = svg_open(width, y);
    svg.push_str(&grid);
    svg.push_str(&out);
    svg.push_str("</svg>\n");
    svg
}

/// The rows of [`battles_svg`]: a name, the Egyptian side's tally, and
/// whether the 70% target applies to it.
fn battle_rows(s: &Summary) -> Vec<(String, Tally, bool)> {
    let mut rows: Vec<(String, Tally, bool)> = vec![
        (
            "In the games: British regular infantry against as many ansar in the open".into(),
            s.battles.british_open,
            true,
        ),
        (
            "In the games: Egyptian L-class troops against as many ansar in the open".into(),
            s.battles.egyptian_l_open,
            false,
        ),
    ];
    rows.extend(s.typical.iter().map(|b| {
        (
            b.name.clone(),
            b.tally,
            TARGET_BATTLES.contains(&b.id.as_str()),
        )
    }));
    let measured: Vec<&TypicalBattle> = s
        .typical
        .iter()
        .filter(|b| TARGET_BATTLES.contains(&b.id.as_str()))
        .collect();
    if measured.len() == TARGET_BATTLES.len() {
        let mut both = Tally::default();
        for b in measured {
            both.add(b.tally);
        }
        rows.push((
            "The target's measure: the two typical battles of British infantry against as many ansar in the open, together".into(),
            both,
            true,
        ));
    }
    rows
}

/// One stacked bar of [`battles_svg`] at `y`: won, drawn and lost, each
/// share written inside it when there is room.
fn tally_bar(out: &mut String, t: &Tally, left: f64, scale: f64, y: f64) {
    let bar = 18.0;
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
            "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"{bar}\" {}><title>{what}: {k} of {} ({:.1}%)</title></rect>",
            bar_style(fill, t.fought),
            t.fought,
            share(k)
        );
        if share(k) >= 8.0 {
            let ink = if t.fought < THIN_SAMPLE {
                "#222"
            } else {
                "white"
            };
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{}" fill="{ink}">{:.0}%</text>"#,
                x + 4.0,
                y + bar - 5.0,
                share(k)
            );
        }
        x += w;
    }
}

/// A chart of the battles: for each kind of combat followed in the games
/// and each typical battle, one bar split into the Egyptian side's wins,
/// draws and losses, with the calibration target's 70% marked on the rows
/// it is measured on: hand-built SVG.
pub fn battles_svg(title: &str, s: &Summary) -> String {
    let rows = battle_rows(s);
    let (left, scale, bar) = (20.0, 6.5, 18.0);
    let width = left + 100.0 * scale + 60.0;
    let mut out = String::new();
    let notes = [
        format!(
            "{} combats in the games, {:.1}% of them drawn.",
            s.battles.combats,
            100.0 * s.battles.draws as f64 / s.battles.combats.max(1) as f64
        ),
        "Each bar: the Egyptian side's share of one kind of combat, won, drawn and lost."
            .to_string(),
        format!(
            "The dashed line: the target that British regular infantry beat as many ansar in \
             the open in at least {TARGET_WON:.0}% of combats, on the rows it is measured on."
        ),
    ];
    let mut y = heading(&mut out, &format!("{title}: battles"), &notes, 0.0);
    let entries = [
        (WON, "Egyptian side won"),
        (DRAWN, "drawn"),
        (LOST, "Mahdist side won"),
        ("line", "70% target"),
        ("thin", "fewer than 30 fought: a thin sample"),
    ];
    y = key(&mut out, &entries, y + 4.0);
    let top = y;
    for (name, t, target) in &rows {
        for line in wrap(
            &format!("{name} ({})", sample(t.fought, "fought")),
            LINE_CHARS,
        ) {
            y += 15.0;
            let _ = writeln!(out, r#"<text x="{left}" y="{y}">{}</text>"#, escape(&line));
        }
        if t.fought == 0 {
            // The label says "none fought": no bar, no target.
            y += 10.0;
            continue;
        }
        y += 4.0;
        tally_bar(&mut out, t, left, scale, y);
        if *target {
            let x = left + TARGET_WON * scale;
            let _ = writeln!(
                out,
                "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"2.5\" stroke-dasharray=\"4 2\"><title>the {TARGET_WON:.0}% target</title></line>",
                y - 5.0,
                y + bar + 5.0
            );
        }
        y += bar + 8.0;
    }
    let grid = share_grid(left, scale, top, y + 4.0);
    y = share_axis(
        &mut out,
        left,
        scale,
        y + 4.0,
        "share of the combats fought",
    );
    let mut svg = svg_open(width, y);
    svg.push_str(&grid);
    svg.push_str(&out);
    svg.push_str("</svg>\n");
    svg
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

    /// Games played with what a run shares (one start, one opening kept
    /// for all) are the games played each with its own, made afresh: both
    /// scenarios, both personas, a dozen games each.
    #[test]
    fn games_sharing_a_start_and_an_opening_are_the_games_played_alone() {
        let data = crate::scenario::DataSet::embedded().unwrap();
        let history = History::shipped().unwrap();
        let opponents = Opponents::shipped().unwrap();
        for id in ["khartoum", "el-obeid"] {
            let scn = data.scenario(id).unwrap();
            let towns = towns(&scn, &history).unwrap();
            let shared = Shared::new(&scn, &opponents);
            let (start, _) = initial_state(&scn, &Placements::new()).unwrap();
            assert_eq!(shared.start.as_ref(), Ok(&start));
            for persona in [Persona::Competent, Persona::Historical] {
                let matchup = Matchup {
                    egyptian: EgyptianPlayer::Bot(persona),
                    mahdist: MahdistPlayer::Bot,
                    options: Options::default(),
                };
                for n in 0..12 {
                    let alone = Shared::new(&scn, &opponents);
                    assert_eq!(
                        play_one(&scn, &towns, &matchup, 5, n, &shared),
                        play_one(&scn, &towns, &matchup, 5, n, &alone),
                        "{id} {persona:?} game {n}"
                    );
                }
            }
        }
    }
}
