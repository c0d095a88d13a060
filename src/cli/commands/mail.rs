//! `dervish mail list`: the mail the service received and what became of
//! it, strangers' mail and automatic mail included, for the game master.
//! It only reads, so it works while the daemon runs.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use dervish::store;

use crate::cli::common::{self, Env};

/// The mail received and what became of it (strangers' mail too).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: MailCommand,
}

#[derive(Subcommand, Debug)]
enum MailCommand {
    /// The mail received, newest first: when, from whom, the subject, the
    /// game and what was done with it.
    List {
        /// Only mail that was not answered (ignored or set aside): a
        /// stranger's mail, automatic replies, loops.
        #[arg(long)]
        ignored: bool,
        /// How many to show.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    match args.command {
        MailCommand::List { ignored, limit } => {
            let s = common::open_to_read(env.cfg)?;
            let rows = store::recent_messages(&s.conn, limit, ignored)?;
            if rows.is_empty() {
                outln!(
                    "no mail received{}",
                    if ignored {
                        " that was not answered"
                    } else {
                        ""
                    }
                );
            }
            for m in rows {
                outln!(
                    "{} {} from {} [{}] {:?}\n    {}",
                    m.received_at,
                    m.message_id,
                    m.sender.as_deref().unwrap_or("(no sender)"),
                    m.game_id.as_deref().unwrap_or("-"),
                    short(&m.subject),
                    m.outcome
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A subject cut to one line of reasonable length.
fn short(subject: &str) -> String {
    let one: String = subject
        .chars()
        .filter(|c| !c.is_control())
        .take(70)
        .collect();
    if subject.chars().count() > 70 {
        format!("{one}...")
    } else {
        one
    }
}
