//! `dervish case run|show`: rule cases as data (docs/cases.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use clap::Subcommand;

use crate::cli::common::{self, Env};

/// Rule cases: a situation, orders, dice and the expected outcome, as
/// data (docs/cases.md).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: CaseCommand,
}

#[derive(Subcommand, Debug)]
enum CaseCommand {
    /// Play each case and print PASS or FAIL with every difference. Exits
    /// with 0 only when every case passes.
    Run {
        /// Also print the receipts, every roll with its dice, and the log.
        #[arg(long, short)]
        verbose: bool,
        /// Case files (TOML).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a case's situation: every stack with its counters' IDs.
    Show {
        /// Print the whole state as JSON instead (what `state = "file.json"`
        /// in a case reads).
        #[arg(long)]
        json: bool,
        file: PathBuf,
    },
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let data = common::data(&env.data)?;
    match args.command {
        CaseCommand::Run { verbose, files } => {
            let (mut passed, mut failed) = (0, 0);
            for f in &files {
                match dervish::cases::load(f, &data) {
                    Ok(case) => {
                        let out = dervish::cases::run(&case);
                        out!("{}", out.summary());
                        if verbose {
                            out!("{}", out.details());
                        }
                        if out.passed() {
                            passed += 1;
                        } else {
                            failed += 1;
                        }
                    }
                    Err(d) => {
                        outln!("ERROR {}\n{d}", f.display());
                        failed += 1;
                    }
                }
            }
            outln!("{passed} passed, {failed} failed");
            Ok(common::status(failed == 0))
        }
        CaseCommand::Show { json, file } => {
            let case = dervish::cases::load(&file, &data).map_err(|d| anyhow!("{d}"))?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&case.state)?);
            } else {
                out!("{}", dervish::cases::show(&case));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
