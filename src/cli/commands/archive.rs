//! `dervish archive`: the campaign archive, a static website of a game.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};

use crate::cli::common::{self, Env};

/// Write the campaign archive: a static website of a game (a page a
/// month with drawn maps, the log and the orders, charts, a
/// verification page, JSON a month; docs/archive.md), in DIR/<game>/,
/// with DIR/index.html listing the games archived there.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game to archive.
    #[arg(long, required_unless_present = "all", conflicts_with = "all")]
    game: Option<String>,
    /// Archive every game.
    #[arg(long)]
    all: bool,
    /// The folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `dervish archive`: one game's site, or every game's.
pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let out = &args.out;
    let s = common::open_to_read(env.cfg)?;
    let built = match (args.game.as_deref(), args.all) {
        (Some(id), _) => vec![(
            id.to_string(),
            Ok(s.archive(id, out).map_err(|e| anyhow!("{e}"))?),
        )],
        (None, true) => s.archive_all(out).map_err(|e| anyhow!("{e}"))?,
        (None, false) => return Err(anyhow!("name a game (--game ID) or --all")),
    };
    let mut failed = 0;
    for (id, b) in &built {
        match b {
            Ok(b) => outln!(
                "{}: {} months, {} files, {} KB in {}",
                b.game,
                b.months,
                b.files,
                b.bytes.div_ceil(1024),
                b.dir.display()
            ),
            Err(e) => {
                failed += 1;
                eprintln!("{id}: not archived: {e}");
            }
        }
    }
    outln!("{}", out.join("index.html").display());
    Ok(common::status(failed == 0))
}
