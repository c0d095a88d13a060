//! `dervish orders check|canonical`: orders read and checked as players
//! write them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use clap::Subcommand;

use dervish::orders;
use dervish::scenario::{Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

use crate::cli::common::{self, Env};

/// Read and check orders as players write them.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: OrdersCommand,
}

#[derive(Subcommand, Debug)]
enum OrdersCommand {
    /// Check an orders message against a scenario's opening position and
    /// print the receipt a player would get: each order in canonical form
    /// with what it will do, each problem with its line, a summary. Exits
    /// with 0 only when there is no error.
    Check {
        /// Scenario whose opening position the orders are checked against.
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// Check against a game of the service as it stands now (its
        /// scenario and its current state) instead of an opening position.
        #[arg(long, conflicts_with = "scenario")]
        game: Option<String>,
        /// The side giving the orders.
        #[arg(long, value_enum)]
        side: SideArg,
        /// The message's subject line (may give the game and month).
        #[arg(long)]
        subject: Option<String>,
        /// The text was sent as format=flowed.
        #[arg(long)]
        flowed: bool,
        /// The text of the message; `-` reads standard input.
        file: PathBuf,
    },
    /// Print orders in canonical form (what the parser understood), one
    /// order a line, with the lines that were not understood on standard
    /// error.
    Canonical {
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// The text of the message; `-` reads standard input.
        file: PathBuf,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum SideArg {
    Egyptian,
    Mahdist,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::Egyptian => Side::Egyptian,
            SideArg::Mahdist => Side::Mahdist,
        }
    }
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    match args.command {
        OrdersCommand::Check {
            scenario,
            game,
            side,
            subject,
            flowed,
            file,
        } => {
            let (scn, state) = match game {
                Some(g) => game_position(env, &g)?,
                None => opening_position(&env, &scenario)?,
            };
            let text = common::read_text(&file)?;
            let vocab = orders::Vocabulary::new(&scn).in_play(&state);
            let input = orders::Input {
                text: &text,
                subject: subject.as_deref(),
                flowed,
                delsp: false,
            };
            let parsed = orders::parse(&input, &vocab).map_err(|r| anyhow!("{r}"))?;
            let side = Side::from(side);
            let checked = orders::check(&parsed.sheet, &scn, &state, side);
            out!(
                "{}",
                orders::acknowledge(&parsed, &checked, &scn, side, &state)
            );
            Ok(common::status(
                parsed.errors.is_empty() && checked.errors.is_empty(),
            ))
        }
        OrdersCommand::Canonical { scenario, file } => {
            let data = common::data(&env.data)?;
            let scn = common::scenario(&data, &scenario)?;
            let text = common::read_text(&file)?;
            let vocab = orders::Vocabulary::new(&scn);
            let parsed =
                orders::parse(&orders::Input::text(&text), &vocab).map_err(|r| anyhow!("{r}"))?;
            out!("{}", orders::print::sheet(&scn.map, &parsed.sheet, true));
            for e in &parsed.errors {
                eprintln!("{e}");
            }
            Ok(common::status(parsed.errors.is_empty()))
        }
    }
}

/// A game of the service as it stands now: its scenario and its state.
fn game_position(env: Env, id: &str) -> Result<(Scenario, GameState)> {
    let s = dervish::service::Service::open(env.cfg).map_err(|e| anyhow!("{e}"))?;
    let row = s.game(id).map_err(|e| anyhow!("{e}"))?;
    let state = s.state_of(&row).map_err(|e| anyhow!("{e}"))?;
    Ok((
        s.scenario(&row.scenario).map_err(|e| anyhow!("{e}"))?,
        (*state).clone(),
    ))
}

/// A scenario's opening position.
fn opening_position(env: &Env, id: &str) -> Result<(Scenario, GameState)> {
    let data = common::data(&env.data)?;
    let scn = common::scenario(&data, id)?;
    let (state, _) = initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
    Ok((scn, state))
}
