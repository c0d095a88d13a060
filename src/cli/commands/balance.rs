//! `dervish balance`: many campaigns of programmed players, compared with
//! history.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use dervish::balance::{
    self, BattleResolver, EgyptianPlayer, GameOutcome, History, MahdistPlayer, Summary,
};
use dervish::players::mahdist::Opponents;
use dervish::scenario::{DataFiles, Scenario};

use crate::cli::common::{self, Env};
use crate::cli::scripted;

/// Play many campaigns of programmed players against each other on all
/// cores and compare them with history: who wins, why games end, the
/// month each town falls. Prints the report; with --out, writes
/// report.md and its charts there: falls.svg (the month each town
/// fell), results.svg (results and why games ended) and battles.svg.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, short, default_value = "khartoum")]
    scenario: String,
    /// How many games.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// The run's seed: the same seed gives the same figures.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Who plays the Egyptian side: `simple`, `historical`,
    /// `competent`, or `orders:DIR`, the order files of a folder (as
    /// for simulate; the report counts the orders set aside).
    #[arg(long, default_value = "historical", value_parser = scripted::player(&["simple", "historical", "competent"]))]
    egyptian: String,
    /// Who plays the Mahdist side: `simple`, `bot`, or `orders:DIR`.
    #[arg(long, default_value = "bot", value_parser = scripted::player(&["simple", "bot"]))]
    mahdist: String,
    /// A folder for report.md, falls.svg, results.svg and battles.svg
    /// (created if needed).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Play with the optional ambush rule (docs/rules.md, "Ambushes").
    #[arg(long)]
    ambushes: bool,
    /// A house rule, off by default (repeatable): `gordon-stays` (no
    /// order may take Gordon out of Khartoum) or `steamers-run-the-siege`
    /// (supply aboard a gunboat may enter a besieged town by river);
    /// docs/rules.md, "House rules (optional variants)".
    #[arg(long = "variant", value_name = "NAME")]
    variant: Vec<dervish::state::variant::Variant>,
    /// How many times to fight each typical battle of
    /// `scenarios/battles/` (British infantry against as many and
    /// twice as many ansar in the open, Egyptian L-class troops against
    /// as many, a town assault); 0 leaves them out.
    #[arg(long, default_value_t = 10_000)]
    battle_runs: u64,
    /// Who resolves the typical battles' combats: the campaign's
    /// combat tables, or the ETYFW resolver (docs/tabletop-etyfw.md).
    #[arg(long, default_value = "tables", value_parser = ["tables", "etyfw"])]
    resolver: String,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let battle_resolver = battle_resolver(&args.resolver)?;
    let files = common::files(&env.data)?;
    let data = common::loaded(&files)?;
    let scn = common::scenario(&data, &args.scenario)?;
    let (history, opponents) = history_and_opponents(&files, &scn)?;
    let (outcomes, scripted) = campaigns(&args, &scn, &history, &opponents)?;
    let mut summary = balance::summarise(&scn, &history, &outcomes);
    if args.battle_runs > 0 {
        let bar = progress(
            args.battle_runs * balance::TYPICAL_BATTLES.len() as u64,
            "{bar:40} {pos}/{len} typical battles, {per_sec}, {eta} left",
        );
        summary.typical = balance::typical_battles_resolving(
            &data,
            args.battle_runs,
            args.seed,
            &battle_resolver,
            &|| bar.inc(1),
        )
        .map_err(|e| anyhow!(e))?;
        bar.finish_and_clear();
    }
    let mut report = balance::report(&scn.def.title, &command(&args, &env), &summary);
    if scripted {
        let per_game: Vec<&[String]> = outcomes.iter().map(|o| o.set_aside.as_slice()).collect();
        report.push_str(&dervish::players::scripted::set_aside_summary(&per_game));
    }
    out!("{report}");
    if let Some(dir) = &args.out {
        write_report(dir, &scn, &summary, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Who resolves the typical battles' combats (`--resolver`).
fn battle_resolver(resolver: &str) -> Result<BattleResolver> {
    Ok(if resolver == "etyfw" {
        BattleResolver::Etyfw(Box::new(
            dervish::battle::etyfw::Etyfw::embedded()
                .map_err(|d| anyhow!("{d}"))?
                .quiet(),
        ))
    } else {
        BattleResolver::Tables
    })
}

/// The history and the programmed players' data: a data folder may carry
/// its own, else the shipped ones. Place names the programmed players
/// would only trip over in the middle of a run are refused before it.
fn history_and_opponents(files: &DataFiles, scn: &Scenario) -> Result<(History, Opponents)> {
    let history = match files.extra("history.ron") {
        Some(f) => History::parse(&f.text).map_err(|e| anyhow!("{}: {e}", f.name))?,
        None => History::shipped().map_err(|e| anyhow!(e))?,
    };
    let opponents = match files.extra("opponents.ron") {
        Some(f) => Opponents::parse(&f.text).map_err(|e| anyhow!("{}: {e}", f.name))?,
        None => Opponents::shipped().map_err(|e| anyhow!(e))?,
    };
    opponents.objectives(scn).map_err(|e| anyhow!(e))?;
    opponents.expedition(scn).map_err(|e| anyhow!(e))?;
    opponents.ratios(scn).map_err(|e| anyhow!(e))?;
    Ok((history, opponents))
}

/// The games played, and whether a side played from order files.
fn campaigns(
    args: &Args,
    scn: &Scenario,
    history: &History,
    opponents: &Opponents,
) -> Result<(Vec<GameOutcome>, bool)> {
    let eg = match dervish::players::egyptian::Persona::parse(&args.egyptian) {
        Some(p) => EgyptianPlayer::Bot(p),
        None => EgyptianPlayer::Simple,
    };
    let md = if args.mahdist == "bot" {
        MahdistPlayer::Bot
    } else {
        MahdistPlayer::Simple
    };
    let scripts = scripted::scripts(scn, &args.egyptian, &args.mahdist)?;
    let bar = progress(
        args.games,
        "{bar:40} {pos}/{len} games, {per_sec}, {eta} left",
    );
    let outcomes = balance::run_scripted(
        scn,
        history,
        opponents,
        &balance::Matchup {
            egyptian: eg,
            mahdist: md,
            options: dervish::state::Options {
                ambushes: args.ambushes,
                variants: args.variant.iter().copied().collect(),
                ..Default::default()
            },
        },
        &scripts,
        args.seed,
        args.games,
        &|| bar.inc(1),
    )
    .map_err(|e| anyhow!(e))?;
    bar.finish_and_clear();
    Ok((outcomes, scripts != Default::default()))
}

/// A progress bar of `len` steps on standard error.
fn progress(len: u64, template: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// The command that makes the report again, as the report quotes it.
fn command(args: &Args, env: &Env) -> String {
    let Args {
        scenario: id,
        games,
        seed,
        egyptian,
        mahdist,
        ambushes,
        variant,
        battle_runs,
        resolver,
        ..
    } = args;
    format!(
        "dervish{} balance --scenario {id} --games {games} --battle-runs {battle_runs} --seed {seed} --egyptian {egyptian} --mahdist {mahdist}{}{}{}",
        env.data
            .as_ref()
            .map_or(String::new(), |d| format!(" --data {}", d.display())),
        if *ambushes { " --ambushes" } else { "" },
        variant
            .iter()
            .map(|v| format!(" --variant {v}"))
            .collect::<String>(),
        if resolver == "tables" {
            String::new()
        } else {
            format!(" --resolver {resolver}")
        }
    )
}

/// report.md and its charts written to `dir`.
fn write_report(dir: &Path, scn: &Scenario, summary: &Summary, report: &str) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(dir.join("report.md"), report)
        .with_context(|| format!("cannot write {}", dir.join("report.md").display()))?;
    for (name, svg) in [
        ("falls.svg", balance::svg(scn, summary)),
        ("results.svg", balance::results_svg(&scn.def.title, summary)),
        ("battles.svg", balance::battles_svg(&scn.def.title, summary)),
    ] {
        std::fs::write(dir.join(name), svg)
            .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
    }
    eprintln!(
        "report.md, falls.svg, results.svg and battles.svg written to {}",
        dir.display()
    );
    Ok(())
}
