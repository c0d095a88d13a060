//! `dervish battle brief`: the battle brief for a situation file, without
//! a game, for clubs that use the campaign only for its battles
//! (docs/tabletop.md, "A brief without a game").

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::Subcommand;

use dervish::battle::{brief, diagram, standalone, tabletop::Tabletop};
use dervish::state::RuleSet;

use crate::cli::common::{self, Env};

/// The width of the diagram's PNG, in pixels.
const PNG_PX: u32 = 1200;

/// Table battles without a game: the brief of a situation's battle.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: BattleCommand,
}

#[derive(Subcommand, Debug)]
enum BattleCommand {
    /// Print the battle brief of one stack attacking another in a
    /// situation (a rule case's file, docs/cases.md): the field, the table
    /// and its set-up, the forces in the rules' terms, what wins, and the
    /// result to fill in. With --out, also write the battlefield diagram
    /// (diagram.svg and diagram.png) in that folder.
    Brief {
        /// The situation: a case file (TOML) of docs/cases.md.
        #[arg(long, value_name = "CASE.toml")]
        situation: PathBuf,
        /// The attacker's hex and the defender's: hex numbers or places.
        #[arg(long, num_args = 2, value_names = ["FROM", "TO"], required = true)]
        attack: Vec<String>,
        /// The miniatures rules: volley-fire, pits-1885 or etyfw.
        #[arg(long)]
        rules: String,
        /// Write the diagram (SVG and PNG) in this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// Run a `battle` command.
pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    match args.command {
        BattleCommand::Brief {
            situation,
            attack,
            rules,
            out,
        } => brief_command(&env.data, &situation, &attack, &rules, out.as_deref()),
    }
}

fn brief_command(
    data: &Option<PathBuf>,
    situation: &Path,
    attack: &[String],
    rules: &str,
    out: Option<&Path>,
) -> Result<ExitCode> {
    let rules: RuleSet = rules.parse().map_err(|e: String| anyhow!(e))?;
    let [from, to] = attack else {
        return Err(anyhow!("--attack takes two hexes: FROM TO"));
    };
    if !situation.is_file() {
        return Err(anyhow!("{}: no such situation file", situation.display()));
    }
    let files = common::files(data)?;
    let data = common::data(data)?;
    let case = dervish::cases::load(situation, &data).map_err(|d| {
        let first = d.0.first().map(ToString::to_string).unwrap_or_default();
        anyhow!(
            "{}",
            first
                .lines()
                .next()
                .unwrap_or("the situation cannot be read")
        )
    })?;
    let (scn, state) = (&case.scn, &case.state);
    let from = common::place(scn, from)?;
    let to = common::place(scn, to)?;
    let combat = standalone::combat_between(scn, state, from, to).map_err(|e| anyhow!("{e}"))?;
    // A data folder's own brief data and ETYFW tables, as a game with it
    // would use them.
    let table = match files.extra("tabletop.ron") {
        Some(t) => Tabletop::parse(&t.name, &t.text, &scn.units),
        None => Tabletop::shipped(&scn.units),
    }
    .map_err(|d| anyhow!("{d}"))?;
    let made = brief::brief_with_resolver(
        &table,
        data.etyfw.as_ref(),
        scn,
        state,
        &combat,
        rules,
        None,
    )
    .map_err(|e| anyhow!("{e}"))?;
    out!("{}", made.text);
    if let Some(dir) = out {
        let title = brief::diagram_title(scn, &combat, rules);
        let svg = diagram::svg(&made.layout, &title);
        let png = diagram::png(&svg, PNG_PX).map_err(|e| anyhow!(e))?;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
        for (name, bytes) in [("diagram.svg", svg.as_bytes()), ("diagram.png", &png[..])] {
            let path = dir.join(name);
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
