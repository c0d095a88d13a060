//! `dervish gm password`: the game master's password, for game master
//! commands by email.

use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::Subcommand;

use crate::cli::common::{self, Env};

/// The game master's password, for game master commands by email:
/// `dervish gm password` reads it from standard input.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: GmCommand,
}

#[derive(Subcommand, Debug)]
enum GmCommand {
    /// Set the game master's password (read from standard input; at least
    /// 12 characters). Mails from the game master's address with a
    /// `PASSWORD` line and `GM ...` command lines then run those commands.
    Password,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    match args.command {
        GmCommand::Password => {
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("cannot read the password from standard input")?;
            let s = common::open_to_write(env.cfg)?;
            s.set_gm_password(line.trim_end_matches(['\r', '\n']))
                .map_err(|e| anyhow!("{e}"))?;
            outln!("game master password set");
            Ok(ExitCode::SUCCESS)
        }
    }
}
