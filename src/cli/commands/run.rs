//! `dervish run`: the service, one pass or until stopped.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, anyhow};

use dervish::service::daemon::Daemon;
use dervish::service::spool;
use dervish::service::{LockError, ServiceError};

use crate::cli::common::Env;

/// Run the service: read new mail, answer it, play due turns, send
/// reminders and the outbox; again every `poll_seconds` until stopped
/// (SIGTERM or Ctrl-C), or once with --once (for cron).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Make one pass and stop.
    #[arg(long)]
    once: bool,
}

/// `run`: one pass (`--once`, for cron) or the daemon until SIGTERM or
/// SIGINT. The loop itself is the library's ([`Daemon`]).
pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let once = args.once;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("cannot watch for signals")?;
    }
    let again = env.cfg.clone();
    let mut d = match Daemon::open(env.cfg, stop) {
        Ok(d) => d,
        // Cron's pass beside a running daemon: the daemon does the work.
        Err(ServiceError::Lock(LockError::Held { database, .. })) if once => {
            outln!("another dervish is running on {database}: this pass is left to it");
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(anyhow!("{e}")),
    };
    if !once {
        d.run().map_err(|e| anyhow!("{e}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let r = d.drain().map_err(|e| anyhow!("{e}"))?;
    d.close();
    let late = spool::read_after(&again);
    if let Some(e) = late.error {
        eprintln!("warning: the spool could not be read to the end: {e}");
    }
    outln!(
        "{} messages read, {} turns played, {} reminders, {} mails sent, {} failed",
        r.messages,
        r.turns_played.len(),
        r.reminders,
        r.sent,
        r.failed
    );
    if let Some(e) = r.inbox_error {
        eprintln!("error: the inbox could not be read: {e}");
        return Ok(ExitCode::FAILURE);
    }
    // Cron mails the game master when a pass could not send mail.
    if r.failed > 0 {
        eprintln!(
            "error: {} {} could not be sent; see the log, and the outbox retries later",
            r.failed,
            if r.failed == 1 { "mail" } else { "mails" }
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
