//! `dervish check-mail`: the mail settings tried without sending.

use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::service::config::InboxKind;

use crate::cli::common::{self, Env};

/// Check the mail settings without sending anything: open the inbox
/// (IMAP: connect, log in, open the folder) and try the outgoing
/// transport (SMTP: connect, TLS, log in). Exits 0 only when both work.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_: Args, env: Env) -> Result<ExitCode> {
    let cfg = &env.cfg;
    let mut ok = true;
    let inbox = match cfg.inbox.kind {
        InboxKind::Maildir => common::inbox(cfg).map(|m| {
            let waiting = m.new_messages().map(|n| n.len()).unwrap_or(0);
            format!("Maildir {}: {waiting} messages waiting", m.root().display())
        }),
        InboxKind::Imap => cfg
            .inbox
            .imap_settings()
            .map_err(|e| anyhow!(e))
            .and_then(|s| s.check().map_err(|e| anyhow!("{e}"))),
    };
    match inbox {
        Ok(text) => outln!("inbox: ok: {text}"),
        Err(e) => {
            ok = false;
            outln!("inbox: FAILED: {e:#}");
        }
    }
    match common::sender(cfg).and_then(|s| s.check().map_err(|e| anyhow!("{}", e.message))) {
        Ok(text) => outln!("outgoing: ok: {text}"),
        Err(e) => {
            ok = false;
            outln!("outgoing: FAILED: {e:#}");
        }
    }
    Ok(common::status(ok))
}
