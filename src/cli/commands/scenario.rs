//! `dervish scenario check|list`: the scenario data.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;

use dervish::diag::Diagnostics;
use dervish::scenario::NamedText;

use crate::cli::common::{self, Env};

/// Work with scenario data.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: ScenarioCommand,
}

#[derive(Subcommand, Debug)]
enum ScenarioCommand {
    /// Check data files: with no FILE, all of them; each FILE given is
    /// checked in place of the shipped file of its kind.
    Check {
        /// Data files (map, units, tables, events or scenario).
        files: Vec<PathBuf>,
    },
    /// List the scenarios.
    List,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    match args.command {
        ScenarioCommand::List => {
            let data = common::data(&env.data)?;
            for s in &data.scenarios {
                outln!(
                    "{:<10} {}. {} ({} to {})",
                    s.id,
                    s.number,
                    s.title,
                    s.start.long_name(),
                    s.end.long_name()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        ScenarioCommand::Check { files } => check(&env, &files),
    }
}

/// Check the data files, each of `paths` in place of the shipped file of
/// its kind.
fn check(env: &Env, paths: &[PathBuf]) -> Result<ExitCode> {
    let mut set = common::files(&env.data)?;
    let mut problems = Vec::new();
    for p in paths {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        if let Err(d) = set.replace(NamedText {
            name: p.display().to_string(),
            text,
        }) {
            problems.push(d);
        }
    }
    if !problems.is_empty() {
        outln!("{}", Diagnostics(problems));
        return Ok(ExitCode::FAILURE);
    }
    match set.load() {
        Ok(d) => {
            let n = 4 + set.scenarios.len();
            outln!(
                "ok: {n} files checked ({} places, {} rivers, {} unit types, {} leaders, scenarios {})",
                d.map.places().len(),
                d.map.rivers().len(),
                d.units.types().len(),
                d.units.leaders().len(),
                d.scenario_ids().join(", ")
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(d) => {
            outln!("{d}");
            outln!(
                "{} problem{} found",
                d.0.len(),
                if d.0.len() == 1 { "" } else { "s" }
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
