//! `dervish outbox list|retry|drop|prune`: the game master's view of the
//! mail waiting to go, the means to send a mail again or drop it, and to
//! prune the mail sent long ago to its headers.
//!
//! These commands work while the daemon runs: they change the outbox
//! table in one transaction each, and the daemon sees the change at its
//! next pass. A mail being handed over at that moment ("sending") is left
//! alone.

use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use chrono::Utc;
use clap::Subcommand;
use rusqlite::Connection;

use dervish::service::mail::{SCRUBBED_WELCOME, welcome_seat};
use dervish::store::{self, OutboxRow};

use crate::cli::common::Env;

/// The mail waiting to be sent: list it, send a mail again, drop one.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: OutboxCommand,
}

#[derive(Subcommand, Debug)]
enum OutboxCommand {
    /// List the mail not sent yet (with --all, the sent mail too): id,
    /// state (queued, sending, given up, sent), attempts, next try, kind,
    /// recipient, subject and the last error.
    List {
        /// Also the mail already sent.
        #[arg(long)]
        all: bool,
    },
    /// Send mail again at the next pass: a mail given up is taken up again
    /// with a fresh count of attempts, a queued one waits no longer.
    Retry {
        /// Every mail not sent, but those dropped and the welcome mails a
        /// newer secret replaced.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
        /// The mails, by the id `outbox list` shows.
        #[arg(required_unless_present = "all")]
        ids: Vec<i64>,
    },
    /// Never send these mails: they are kept, as given up, for the record.
    Drop {
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// Keep of the mail sent more than DAYS ago only its headers and the
    /// SHA-256 of its text and files (each pass does this by itself after
    /// `[outbox] keep_sent_days`).
    Prune {
        /// Days a sent mail is kept whole (default: `[outbox]
        /// keep_sent_days`).
        #[arg(long)]
        days: Option<u32>,
    },
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let cfg = &env.cfg;
    if !cfg.database.exists() {
        bail!(
            "there is no database at {}; nothing was ever queued",
            cfg.database.display()
        );
    }
    let conn = store::open(&cfg.database).map_err(|e| anyhow!("{e}"))?;
    match args.command {
        OutboxCommand::List { all } => list(&conn, all),
        OutboxCommand::Retry { all, ids } => {
            let ids = if all {
                store::outbox_list(&conn, false)
                    .map_err(|e| anyhow!("{e}"))?
                    .into_iter()
                    .filter(|(m, _)| !set_aside(m))
                    .map(|(m, _)| m.id)
                    .collect()
            } else {
                ids
            };
            each(&conn, &ids, all, retry)
        }
        OutboxCommand::Drop { ids } => each(&conn, &ids, false, drop),
        OutboxCommand::Prune { days } => prune(&conn, days.unwrap_or(cfg.outbox.keep_sent_days)),
    }
}

/// Prune the sent mail older than `days` days, in batches, all of it.
fn prune(conn: &Connection, days: u32) -> Result<ExitCode> {
    if days == 0 {
        bail!(
            "give the days a sent mail is kept whole, 1 or more: `dervish outbox prune --days 30`"
        );
    }
    let now = Utc::now();
    let mut total = 0;
    loop {
        let n = dervish::service::mail::prune_sent(conn, days, now, 1000)
            .map_err(|e| anyhow!("{e}"))?;
        total += n;
        if n == 0 {
            break;
        }
    }
    outln!(
        "{total} sent {} kept as headers only (sent more than {days} days ago)",
        if total == 1 { "mail" } else { "mails" }
    );
    Ok(ExitCode::SUCCESS)
}

/// A mail the game master dropped, or a welcome mail a newer secret
/// replaced: `retry --all` leaves it alone (`retry ID` still takes it).
fn set_aside(m: &OutboxRow) -> bool {
    m.gave_up
        && (m
            .last_error
            .as_deref()
            .is_some_and(|e| e.starts_with(DROPPED_BY))
            || (m.kind == "welcome" && m.body_text == SCRUBBED_WELCOME))
}

/// How the last error of a dropped mail begins.
const DROPPED_BY: &str = "dropped by ";

/// The state of a mail, as `outbox list` shows it.
fn state(m: &OutboxRow, sending_at: Option<&String>) -> &'static str {
    if m.sent_at.is_some() {
        "sent"
    } else if sending_at.is_some() {
        "sending"
    } else if m.gave_up {
        "given up"
    } else {
        "queued"
    }
}

fn list(conn: &Connection, all: bool) -> Result<ExitCode> {
    let rows = store::outbox_list(conn, all).map_err(|e| anyhow!("{e}"))?;
    if rows.is_empty() {
        outln!(
            "{}",
            if all {
                "the outbox is empty"
            } else {
                "no mail waiting: everything was sent"
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{:>5}  {:<8}  {:>8}  {:<20}  {:<8}  {:<28}  SUBJECT",
        "ID",
        "STATE",
        "ATTEMPTS",
        "NEXT TRY",
        "KIND",
        "TO"
    );
    for (m, sending_at) in &rows {
        let st = state(m, sending_at.as_ref());
        let next = match st {
            "queued" => m.next_attempt_at.format("%Y-%m-%d %H:%M UTC").to_string(),
            "sent" => m
                .sent_at
                .map(|t| format!("sent {}", t.format("%m-%d %H:%M")))
                .unwrap_or_default(),
            _ => "-".to_string(),
        };
        outln!(
            "{:>5}  {:<8}  {:>8}  {:<20}  {:<8}  {:<28}  {}",
            m.id,
            st,
            m.attempts,
            next,
            m.kind,
            m.recipient,
            m.subject
        );
        if let Some(e) = &m.last_error {
            outln!("       last error: {e}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Run `f` on each id; an id that cannot be done is told on standard
/// error, and the command then exits 1. With `quiet_skips` (retry --all),
/// mails that cannot be sent again are told and do not fail the command.
fn each(
    conn: &Connection,
    ids: &[i64],
    quiet_skips: bool,
    f: fn(&Connection, &OutboxRow) -> Result<String>,
) -> Result<ExitCode> {
    let mut ok = true;
    if ids.is_empty() {
        outln!("no mail waiting: nothing to do");
    }
    for &id in ids {
        let found = store::outbox_mail(conn, id).map_err(|e| anyhow!("{e}"))?;
        let done = match found {
            None => Err(anyhow!(
                "there is no mail {id} in the outbox (`dervish outbox list --all` shows them all)"
            )),
            Some((m, _)) if m.sent_at.is_some() => Err(anyhow!(
                "mail {id} was sent at {}; there is nothing to do",
                m.sent_at.map(store::time).unwrap_or_default()
            )),
            Some((_, Some(_))) => Err(anyhow!(
                "mail {id} is being handed over to the mail transport now; wait for the pass to end"
            )),
            Some((m, None)) => f(conn, &m),
        };
        match done {
            Ok(said) => outln!("{said}"),
            Err(e) => {
                eprintln!("error: {e:#}");
                ok = ok && quiet_skips;
            }
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn retry(conn: &Connection, m: &OutboxRow) -> Result<String> {
    if m.kind == "welcome" && m.body_text == SCRUBBED_WELCOME {
        let how = welcome_seat(m)
            .map(|(game, side)| format!("dervish game secret {game} {side}"))
            .unwrap_or_else(|| "dervish game secret GAME SIDE".into());
        bail!(
            "mail {} is a welcome mail whose secret is not kept any more; give the player a new secret, in a new welcome mail, with: {how}",
            m.id
        );
    }
    store::retry_mail(conn, m.id, Utc::now()).map_err(|e| anyhow!("{e}"))?;
    Ok(format!(
        "mail {} to {} is sent at the next pass",
        m.id, m.recipient
    ))
}

fn drop(conn: &Connection, m: &OutboxRow) -> Result<String> {
    let actor = format!(
        "cli:{}",
        std::env::var("USER").unwrap_or_else(|_| "game-master".into())
    );
    let tx = conn.unchecked_transaction()?;
    store::drop_mail(&tx, m.id, &format!("{DROPPED_BY}{actor}")).map_err(|e| anyhow!("{e}"))?;
    dervish::service::mail::scrub_secret(&tx, m).map_err(|e| anyhow!("{e}"))?;
    store::audit(
        &tx,
        Utc::now(),
        m.game_id.as_deref(),
        &actor,
        "outbox drop",
        &format!("mail {} to {}: {}", m.id, m.recipient, m.subject),
    )
    .map_err(|e| anyhow!("{e}"))?;
    tx.commit()?;
    Ok(format!(
        "mail {} to {} dropped; it will not be sent",
        m.id, m.recipient
    ))
}
