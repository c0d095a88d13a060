//! `dervish game ...`: the game master's commands. Every one works while
//! the daemon runs: those that only read open the database read-only;
//! those that change a game do it in transactions of their own, so a
//! daemon's pass sees all of a change or none.
//!
//! The subcommands are listed here with their arguments (`game new`, with
//! many, has its own in `new.rs`) and run by theme: `new.rs` starts a
//! game, `show.rs` reads one (list, show, log), `turns.rs` plays and moves
//! its turns (process, extend, pause, resume, rollback, preview),
//! `seats.rs` changes its players (replace, secret, observe) and
//! `battles.rs` its table battles (battles, battle-result, flag).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use dervish::service::Service;

use crate::cli::common::{self, Env};

mod battles;
mod new;
mod seats;
mod show;
mod turns;

/// Game master commands.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: GameCommand,
}

#[derive(Subcommand, Debug)]
pub enum GameCommand {
    New(new::Args),
    /// Take a game back to the start of a month played: the turns from
    /// it on are taken back (their orders kept), both players told why.
    Rollback {
        id: String,
        /// The month to go back to (1884-03).
        #[arg(long)]
        to: String,
        /// Why, told to both players.
        #[arg(long)]
        why: String,
    },
    /// Play the open turn now without storing it, and print its log.
    Preview {
        id: String,
    },
    /// List the games.
    List,
    /// Show a game: its turn, deadline, players, orders in, and the map.
    Show {
        id: String,
    },
    /// The game's log: every game master action, join and replacement,
    /// and the programmed players' umpire's notes (their hidden reaction
    /// rolls), oldest first.
    Log {
        id: String,
    },
    /// Play the open turn of a game now.
    Process {
        id: String,
    },
    /// Push the deadline back.
    Extend {
        id: String,
        hours: u32,
    },
    /// Give a side's seat to another address (with a new secret).
    Replace {
        id: String,
        #[arg(value_parser = ["egyptian", "mahdist"])]
        side: String,
        address: String,
    },
    /// Give a player a new secret, mailed in a new welcome mail; the old
    /// one stops working (a lost secret, or a welcome mail given up).
    Secret {
        id: String,
        #[arg(value_parser = ["egyptian", "mahdist"])]
        side: String,
    },
    /// Send a game's results to an observer too.
    Observe {
        id: String,
        address: String,
    },
    /// Stop a game's deadlines until it is resumed.
    Pause {
        id: String,
    },
    /// Resume a paused game.
    Resume {
        id: String,
    },
    /// A game's table battles: each with its turn, where it stands, the
    /// result, the deadline.
    Battles {
        id: String,
    },
    /// Enter a table battle's result as the game master (a dispute
    /// decided, or a result taken by hand): read from FILE (- for
    /// standard input) in the result grammar (docs/tabletop.md); settled
    /// at once.
    BattleResult {
        id: String,
        battle: i64,
        file: PathBuf,
    },
    /// Flag a place: combats there go to the table (a game made with
    /// --table-battles flagged); --off takes the flag away.
    Flag {
        id: String,
        place: String,
        #[arg(long)]
        off: bool,
    },
}

/// A game master's command, on the database opened to read or to write.
pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let command = args.command;
    match command {
        GameCommand::List
        | GameCommand::Show { .. }
        | GameCommand::Preview { .. }
        | GameCommand::Log { .. }
        | GameCommand::Battles { .. } => game(&common::open_to_read(env.cfg)?, command),
        _ => game(&common::open_to_write(env.cfg)?, command),
    }
}

fn game(s: &Service, command: GameCommand) -> Result<ExitCode> {
    match command {
        GameCommand::New(args) => new::run(s, args)?,
        GameCommand::List => show::list(s)?,
        GameCommand::Show { id } => show::show(s, &id)?,
        GameCommand::Log { id } => show::log(s, &id)?,
        GameCommand::Process { id } => turns::process(s, &id)?,
        GameCommand::Extend { id, hours } => turns::extend(s, &id, hours)?,
        GameCommand::Pause { id } => turns::pause(s, &id)?,
        GameCommand::Resume { id } => return turns::resume(s, &id),
        GameCommand::Rollback { id, to, why } => turns::rollback(s, &id, &to, &why)?,
        GameCommand::Preview { id } => turns::preview(s, &id)?,
        GameCommand::Replace { id, side, address } => seats::replace(s, &id, &side, &address)?,
        GameCommand::Secret { id, side } => seats::secret(s, &id, &side)?,
        GameCommand::Observe { id, address } => seats::observe(s, &id, &address)?,
        GameCommand::Battles { id } => battles::list(s, &id)?,
        GameCommand::BattleResult { id, battle, file } => {
            battles::enter_result(s, &id, battle, &file)?
        }
        GameCommand::Flag { id, place, off } => battles::flag(s, &id, &place, off)?,
    }
    Ok(ExitCode::SUCCESS)
}
