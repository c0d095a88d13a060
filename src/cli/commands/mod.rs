//! The commands, one file each: the file owns the command's arguments
//! (`Args`, or the subcommands of a group) and its `run`. This list is
//! the order `dervish --help` shows them in.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use super::common::Env;

mod archive;
mod balance;
mod battle;
mod case;
mod check_mail;
mod game;
mod gm;
mod mail;
mod map;
mod orders;
mod outbox;
mod quickstart;
mod replay;
mod route;
mod run;
mod scenario;
mod simulate;
mod submit;
mod verify;

#[derive(Subcommand, Debug)]
pub enum Command {
    Quickstart(quickstart::Args),
    Run(run::Args),
    #[command(name = "check-mail")]
    CheckMail(check_mail::Args),
    Submit(submit::Args),
    Game(game::Args),
    Verify(verify::Args),
    Archive(archive::Args),
    Gm(gm::Args),
    Mail(mail::Args),
    Battle(battle::Args),
    Outbox(outbox::Args),
    Replay(replay::Args),
    Map(map::Args),
    Route(route::Args),
    Simulate(simulate::Args),
    Balance(balance::Args),
    Orders(orders::Args),
    Scenario(scenario::Args),
    Case(case::Args),
}

/// Run `command` with what every command is given.
pub fn exec(command: Command, env: Env) -> Result<ExitCode> {
    match command {
        Command::Quickstart(args) => quickstart::run(args, env),
        Command::Run(args) => run::run(args, env),
        Command::CheckMail(args) => check_mail::run(args, env),
        Command::Submit(args) => submit::run(args, env),
        Command::Game(args) => game::run(args, env),
        Command::Verify(args) => verify::run(args, env),
        Command::Archive(args) => archive::run(args, env),
        Command::Gm(args) => gm::run(args, env),
        Command::Mail(args) => mail::run(args, env),
        Command::Battle(args) => battle::run(args, env),
        Command::Outbox(args) => outbox::run(args, env),
        Command::Replay(args) => replay::run(args, env),
        Command::Map(args) => map::run(args, env),
        Command::Route(args) => route::run(args, env),
        Command::Simulate(args) => simulate::run(args, env),
        Command::Balance(args) => balance::run(args, env),
        Command::Orders(args) => orders::run(args, env),
        Command::Scenario(args) => scenario::run(args, env),
        Command::Case(args) => case::run(args, env),
    }
}
