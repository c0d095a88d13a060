//! `dervish verify`: a turn played again and compared byte for byte,
//! from the database or from results mails and turn records alone.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::scenario::DataSet;
use dervish::service::Config;

use crate::cli::common::{self, Env};

/// Play a turn again and confirm the same result byte for byte: from
/// the database (--game and --month), or from results mails alone
/// (--from-mail) or turn records (--from-record), on any machine, with
/// the public scenario data.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["game", "from_mail", "from_record"])))]
pub struct Args {
    #[arg(long, requires = "month")]
    game: Option<String>,
    /// The month: 1884-03, March 1884 or Mar 1884.
    #[arg(long, requires = "game")]
    month: Option<String>,
    /// Results mails saved as files (`.eml`): each turn record they
    /// carry is checked and played again, without the database; given
    /// the mails of turns in a row, the chain between them is checked
    /// too. `--data DIR` names the data a game was played with if not
    /// the data shipped with this Dervish.
    #[arg(long = "from-mail", value_name = "FILE", num_args = 1.., conflicts_with_all = ["game", "month"])]
    from_mail: Vec<PathBuf>,
    /// Turn records saved as files (`<game>-turn-<n>.json`, as
    /// attached to results mails and published in the archive's
    /// `records/`): checked and played again as with --from-mail.
    #[arg(long = "from-record", value_name = "FILE", num_args = 1.., conflicts_with_all = ["game", "month", "from_mail"])]
    from_record: Vec<PathBuf>,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    if !args.from_mail.is_empty() {
        from_files(&common::data(&env.data)?, &args.from_mail, Saved::Mail)
    } else if !args.from_record.is_empty() {
        from_files(&common::data(&env.data)?, &args.from_record, Saved::Record)
    } else {
        from_database(
            env.cfg,
            args.game.as_deref().unwrap_or_default(),
            args.month.as_deref().unwrap_or_default(),
        )
    }
}

/// `--game ID --month M`: each turn of the month from the database.
fn from_database(cfg: Config, game: &str, month: &str) -> Result<ExitCode> {
    // Every form the orders take: 1884-07, July 1884, Jul 1884.
    let month = common::month(month)?;
    let s = common::open_to_read(cfg)?;
    let results = s.verify(game, &month).map_err(|e| anyhow!("{e}"))?;
    let mut ok = true;
    for v in results {
        if v.drift.is_empty() {
            outln!(
                "turn {} ({}, {}): the same result, byte for byte",
                v.turn_no,
                v.month,
                v.kind.as_str()
            );
        } else {
            ok = false;
            outln!(
                "turn {} ({}, {}): DIFFERENT: {}",
                v.turn_no,
                v.month,
                v.kind.as_str(),
                v.drift.join("; ")
            );
        }
    }
    Ok(common::status(ok))
}

/// What `dervish verify` is given: results mails or turn records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Saved {
    Mail,
    Record,
}

/// Check the turn records of results mails without the database: every
/// digest, the sealed orders read again, the turn played again; and the
/// chain between records of consecutive turns of one game.
fn from_files(data: &DataSet, files: &[PathBuf], saved: Saved) -> Result<ExitCode> {
    use dervish::service::record::{self, TurnRecord};
    let mut ok = true;
    let mut all: Vec<TurnRecord> = Vec::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| anyhow!("cannot read {}: {e}", f.display()))?;
        let (records, text) = match saved {
            Saved::Mail => {
                let (records, text) = record::from_mail(&bytes)
                    .map_err(|e| anyhow!("{} cannot be checked: {e}", f.display()))?;
                (records, Some(text))
            }
            Saved::Record => {
                let text = String::from_utf8(bytes).map_err(|_| {
                    anyhow!("{} cannot be checked: it is not UTF-8 text", f.display())
                })?;
                let r = TurnRecord::from_json(&text)
                    .map_err(|e| anyhow!("{} cannot be checked: {e}", f.display()))?;
                (vec![r], None)
            }
        };
        for r in records {
            outln!(
                "{}: game {}, turn {} ({}, {})",
                f.display(),
                r.game,
                r.turn_no,
                r.month,
                r.turn_kind
            );
            ok &= print_checks("  ", record::verify(data, &r, text.as_ref()));
            all.push(r);
        }
    }
    all.sort_by(|a, b| (&a.game, a.turn_no).cmp(&(&b.game, b.turn_no)));
    all.dedup_by(|a, b| a.game == b.game && a.turn_no == b.turn_no);
    for w in all.windows(2) {
        ok &= print_checks("", record::chain(&w[0], &w[1]));
    }
    if ok {
        outln!("every check holds: the turns play again byte for byte");
    } else {
        outln!("some checks fail: these results are not what the turn gives");
    }
    Ok(common::status(ok))
}

/// Each check on a line of its own after `indent`: whether it holds, what
/// it checks and the detail. True when every one holds.
fn print_checks(indent: &str, checks: Vec<dervish::service::record::Check>) -> bool {
    let mut ok = true;
    for c in checks {
        ok &= c.ok;
        outln!(
            "{indent}{} {}: {}",
            if c.ok { "ok       " } else { "DIFFERENT" },
            c.what,
            c.detail
        );
    }
    ok
}
