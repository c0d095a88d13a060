//! `dervish replay`: a whole game played again from its set-up.

use std::process::ExitCode;

use anyhow::{Result, anyhow};

use crate::cli::common::{self, Env};

/// Play a whole game again from its set-up and report any drift.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long)]
    game: String,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let s = common::open_to_read(env.cfg)?;
    let results = s.replay(&args.game).map_err(|e| anyhow!("{e}"))?;
    let drift: Vec<_> = results.iter().filter(|v| !v.drift.is_empty()).collect();
    outln!("{} turns played again", results.len());
    for v in &drift {
        outln!("turn {} ({}): {}", v.turn_no, v.month, v.drift.join("; "));
    }
    if drift.is_empty() {
        outln!("no drift: every turn plays again byte for byte");
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}
