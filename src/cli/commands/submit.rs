//! `dervish submit`: one message handed to the intake, as a mail
//! server's pipe does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use dervish::service::Config;
use dervish::service::spool::{self, Spool};
use dervish::store;

use crate::cli::common::{self, Env};

/// Hand a message (an .eml file, or - for standard input) to the
/// intake as if it had arrived: for tests, and for mail piped from an
/// MTA. Exits 0 when the message is taken, 75 (EX_TEMPFAIL) when the
/// host cannot take it now (configuration, arguments, no database or
/// one that cannot be used), so the mail server keeps it and retries.
#[derive(clap::Args, Debug)]
pub struct Args {
    file: PathBuf,
}

/// `dervish submit` for a mail server's pipe (Postfix `pipe(8)`, a
/// `.forward`), by sendmail's exit statuses: 0 for every message taken
/// (whatever is done with it: orders, a refusal, a stranger's mail
/// ignored, or kept in the spool for the running daemon), and 75
/// (`EX_TEMPFAIL`) for every failure that is the host's, so the mail
/// server keeps the message and tries again (Postfix for five days by
/// default) instead of bouncing it, the player's secret included, to its
/// sender: a configuration that cannot be read, a bad argument, a file
/// that cannot be read, no database at the configured path (nothing is
/// created there), a database that cannot be opened, read or written, a
/// spool that cannot be written, even a failure of Dervish itself. What
/// went wrong is one line on standard error, which the mail server puts
/// in its log and its delay notice.
pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let (cfg, file) = (env.cfg, args.file);
    let taken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| submit(&cfg, &file)));
    Ok(match taken {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => common::cannot_take_now(&e),
        Err(_) => common::cannot_take_now(&anyhow!("dervish failed on this message")),
    })
}

/// Hand one message to the intake. The database is checked first (there,
/// readable and writable; never created); then the message is put in the
/// spool (written whole and synced) and the spool is read if no other
/// dervish holds the database; else the holder reads it. So a message
/// `submit` accepted is never lost, and one the service fails or is
/// killed on is counted and, the second time, set aside like any inbox
/// message (`docs/intake.md`). If reading the spool fails before this
/// message was stored, the message is taken out of the spool again and
/// the error returned: the mail server keeps it instead.
fn submit(cfg: &Config, file: &Path) -> Result<ExitCode> {
    // A message over the size limit is read only in its head (the rest
    // counted, not kept), so a huge mail costs no memory.
    let max = cfg.limits.max_message_bytes;
    let (raw, size) = if file.as_os_str() == "-" {
        dervish::mail::read_bounded(&mut std::io::stdin().lock(), max)
            .context("cannot read standard input")?
    } else {
        dervish::mail::maildir::read_file_bounded(file, max)
            .with_context(|| format!("cannot read {}", file.display()))?
    };
    store::check_usable(&cfg.database).map_err(|e| match e {
        store::Unusable::Missing(path) => anyhow!(
            "there is no database at {path} (see `database` in the configuration; \
             `dervish game new` makes one)"
        ),
        other => anyhow!("{other}"),
    })?;
    let spooled = Spool::open(&cfg.database)
        .and_then(|sp| sp.put(&raw, size))
        .context("the spool cannot be written")?;
    let read = spool::read_after(cfg);
    if read.messages == 0 && read.error.is_none() {
        outln!("queued for the running dervish");
    }
    for o in &read.outcomes {
        outln!("{o}");
    }
    if let Some(e) = read.error {
        if std::fs::remove_file(&spooled).is_ok() {
            return Err(anyhow!("the database cannot be used: {e}"));
        }
        // This message was stored; one after it waits in the spool for
        // the next pass.
        eprintln!("dervish: the spool could not be read to the end: {e}");
    }
    Ok(ExitCode::SUCCESS)
}
