//! `dervish quickstart`: a demo game between two local players, played
//! through its set-up and first turn from sample mails.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::TransportConfig;
use dervish::render::ascii;
use dervish::scenario::Side;
use dervish::service::Service;
use dervish::service::games::{Created, NewGame, deadline_text};
use dervish::store::GameRow;

use crate::cli::common::{self, Env};

/// Set up the embedded default in this folder, start a demo game of
/// The Siege of Khartoum between two local players, put a sample
/// orders mail from each in the inbox, and run one pass: receipts, the
/// turn, the results. Then `dervish run` keeps going from there.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_: Args, env: Env) -> Result<ExitCode> {
    let outbox_dir = match &env.cfg.outgoing {
        TransportConfig::File { dir } => Some(dir.clone()),
        _ => None,
    };
    let inbox_dir = env.cfg.inbox.maildir.clone();
    let (mut s, _lock) = common::open_locked(env.cfg)?;
    let created = s
        .new_game(
            &NewGame::monthly("khartoum", "egyptian@localhost", "mahdist@localhost"),
            "quickstart",
        )
        .map_err(|e| anyhow!("{e}"))?;
    let (read, sent, turns) = play_sample_mails(&mut s, &created, &inbox_dir)?;
    let g = s.game(&created.id).map_err(|e| anyhow!("{e}"))?;
    let scn = s.scenario(&g.scenario).map_err(|e| anyhow!("{e}"))?;
    outln!(
        "Demo game {} of {}: egyptian@localhost against mahdist@localhost.",
        g.id,
        scn.def.title
    );
    outln!(
        "Read {read} sample set-up and orders mails from {}, played {turns} turn(s) after the set-up, sent {sent} mails.",
        inbox_dir.display(),
    );
    if let Some(dir) = outbox_dir {
        list_outbox(&dir);
    }
    show_the_map(&s, &g, &inbox_dir)
}

/// A sample orders mail, as a player's mail program would send it.
fn sample_mail(from: &str, to: &str, game: &str, month: &str, n: u32, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: [dervish {game}] orders {month}\r\nMessage-ID: <quickstart-{game}-{n}@localhost>\r\nDate: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

/// Put each side's set-up and first orders in the inbox and run the
/// passes that answer them: the mails read, the mails sent and the turns
/// played after the set-up.
fn play_sample_mails(
    s: &mut Service,
    created: &Created,
    inbox_dir: &Path,
) -> Result<(usize, usize, usize)> {
    let g = s.game(&created.id).map_err(|e| anyhow!("{e}"))?;
    let secret = |side| {
        created
            .secrets
            .iter()
            .find(|(s, _)| *s == side)
            .map(|(_, x)| x.clone())
            .unwrap_or_default()
    };
    let host = s.cfg.host.address.clone();
    let egyptian = format!(
        "SECRET {}\n\n# Baker sails from Souakim to relieve Tokar.\nMARCH LEADER Baker FLEET TO Trinkitat THEN TO El Teb\n  ATTACK ANY\n  RETREAT TOWARDS Trinkitat\n# Gordon holds Khartoum; the Sinkat garrison falls back.\nMARCH STACK Sinkat TO Souakim\nREADY\n\n-- \nThe Egyptian player\n",
        secret(Side::Egyptian)
    );
    let mahdist = format!(
        "SECRET {}\n\nMARCH LEADER Osman Digma TO Tamai\nMARCH STACK Kamlin TO Soba ATTACK ANY\nREADY\n",
        secret(Side::Mahdist)
    );
    let mut maildir = Maildir::open(inbox_dir)?;
    let sender = common::sender(&s.cfg)?;
    // The set-up comes first (2.1): each side keeps its default placement
    // (READY alone), the Egyptian first; then the set-up mail goes out and
    // the first month's orders are taken.
    let (mut read, mut sent) = (0, 0);
    for (side, from, n) in [
        (Side::Egyptian, "egyptian@localhost", 11),
        (Side::Mahdist, "mahdist@localhost", 12),
    ] {
        let body = format!("SECRET {}\n\nREADY\n", secret(side));
        maildir.deliver(&sample_mail(from, &host, &g.id, "set-up", n, &body))?;
        let r = s.pass(&mut maildir, &sender).map_err(|e| anyhow!("{e}"))?;
        read += r.messages;
        sent += r.sent;
    }
    maildir.deliver(&sample_mail(
        "egyptian@localhost",
        &host,
        &g.id,
        &g.month,
        1,
        &egyptian,
    ))?;
    maildir.deliver(&sample_mail(
        "mahdist@localhost",
        &host,
        &g.id,
        &g.month,
        2,
        &mahdist,
    ))?;
    let report = s.pass(&mut maildir, &sender).map_err(|e| anyhow!("{e}"))?;
    Ok((
        read + report.messages,
        sent + report.sent,
        report.turns_played.len(),
    ))
}

/// The mails written to the outbox folder, by name.
fn list_outbox(dir: &Path) {
    outln!("The mails are in {}:", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for n in names {
        outln!("  {}", dir.join(n).display());
    }
}

/// The map after the first turn, and what to do next.
fn show_the_map(s: &Service, g: &GameRow, inbox_dir: &Path) -> Result<ExitCode> {
    let state = s.state_of(g).map_err(|e| anyhow!("{e}"))?;
    let scn = s.scenario(&g.scenario).map_err(|e| anyhow!("{e}"))?;
    outln!();
    outln!(
        "The map after the first turn (now {}, next deadline {}):",
        state.month.long_name(),
        deadline_text(g.deadline)
    );
    out!("{}", ascii::overview(&scn, Some(&state)));
    outln!();
    outln!(
        "Next: `dervish run` keeps the service going; put mail in {}/new, or use `dervish submit FILE.eml`.",
        inbox_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
