//! What the command files share: what every command is given (the
//! configuration and the data folder), opening the data, a scenario and
//! the service, reading a file named on the command line, drawing a map to
//! a file, the exit status of a mail server's pipe, and the end of a
//! command whose reader has gone. The command files use this module and
//! never each other.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use dervish::diag::Diagnostics;
use dervish::geo::Hex;
use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::Sender;
use dervish::render::svg;
use dervish::scenario::{DataFiles, DataSet, Scenario, Side};
use dervish::service::{Config, Service, daemon};

/// What every command is given besides its own arguments: the service
/// configuration (`--config FILE`, or the embedded default) and the data
/// folder (`--data DIR`, else the configuration's `data_dir`; none: the
/// data built in).
pub struct Env {
    pub cfg: Config,
    pub data: Option<PathBuf>,
}

/// The service configuration: `--config FILE`, or the embedded default;
/// `--data DIR` overrides its `data_dir`.
pub fn config(file: Option<&Path>, data: Option<&Path>) -> Result<Config> {
    let mut c = match file {
        Some(path) => Config::read(path).map_err(|e| anyhow!("{e}"))?,
        None => Config::default(),
    };
    if let Some(dir) = data {
        c.data_dir = Some(dir.to_path_buf());
    }
    Ok(c)
}

/// `EX_TEMPFAIL` (sysexits.h): a mail server calling `dervish submit` as
/// a pipe keeps the message and tries again later. Every failure of
/// `submit` that is the host's, not the message's (configuration,
/// arguments, the database), exits with it. Not `EX_CONFIG` (78): Postfix
/// and sendmail take that as permanent (5.3.5) and bounce the player's
/// mail, secret included.
pub const EX_TEMPFAIL: u8 = 75;

/// Whether this process was started as `dervish ... submit ...`, before
/// its arguments are known to be good.
pub fn is_submit() -> bool {
    std::env::args_os().skip(1).any(|a| a == "submit")
}

/// The message is not taken now: say why, and exit 75 so that the mail
/// server keeps it and tries again.
pub fn cannot_take_now(e: &anyhow::Error) -> ExitCode {
    eprintln!("dervish: cannot take the message now, try again later: {e:#}");
    ExitCode::from(EX_TEMPFAIL)
}

/// Standard output could not be written. A closed pipe means the reader
/// has all it wanted: exit 0 without a word, as `head` expects. Anything
/// else (a full disk) is an error worth a line on standard error.
///
/// The command ends here rather than by the default SIGPIPE action so that
/// the daemon's own sockets (SMTP, IMAP) keep getting `EPIPE` as errors
/// instead of killing the process.
///
/// `submit` prints only once the message is taken (spooled or stored), so
/// it exits 0 here too: a mail server must not bounce or send again a
/// message that is already in.
pub fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe || is_submit() {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// The data files: those of `--data DIR`, or the data built in.
pub fn files(dir: &Option<PathBuf>) -> Result<DataFiles> {
    match dir {
        Some(dir) => DataFiles::from_dir(dir).map_err(|d| anyhow!("{d}")),
        None => Ok(DataFiles::embedded()),
    }
}

/// The data files loaded and checked.
pub fn data(dir: &Option<PathBuf>) -> Result<DataSet> {
    loaded(&files(dir)?)
}

/// `files` loaded and checked.
pub fn loaded(files: &DataFiles) -> Result<DataSet> {
    files
        .load()
        .map_err(|d: Diagnostics| anyhow!("the scenario data has problems:\n{d}"))
}

/// The scenario called `id`, or an error listing those there are.
pub fn scenario(data: &DataSet, id: &str) -> Result<Scenario> {
    data.scenario(id).ok_or_else(|| {
        anyhow!(
            "no scenario called {id}; the scenarios are {}",
            data.scenario_ids().join(", ")
        )
    })
}

/// A place name or hex number of the scenario's map.
pub fn place(scn: &Scenario, text: &str) -> Result<Hex> {
    scn.map.resolve(text).map_err(|e| anyhow!("{e}"))
}

/// A month as the orders write it (1884-07, July 1884, Jul 1884), in the
/// database's form (1884-07).
pub fn month(text: &str) -> Result<String> {
    Ok(dervish::orders::parse::month(text)
        .ok_or_else(|| anyhow!("{text:?} is not a month: write it as 1884-07 or July 1884"))?
        .to_string())
}

/// `egyptian` or `mahdist`, as the game master's commands take a side
/// (clap has checked it is one of them).
pub fn side(text: &str) -> Side {
    if text == "egyptian" {
        Side::Egyptian
    } else {
        Side::Mahdist
    }
}

/// Read a text file (or standard input for `-`): UTF-8, else Latin-1.
pub fn read_text(path: &Path) -> Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    })
}

/// Whether a map is drawn to `file` as a PNG (`.png`) or an SVG (`.svg`).
pub fn drawn_as_png(file: &Path) -> Result<bool> {
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => Ok(true),
        Some("svg") => Ok(false),
        _ => Err(anyhow!(
            "{}: name the file .svg or .png, the two kinds of map drawn",
            file.display()
        )),
    }
}

/// Write a drawn map to `file`, as a PNG `width` pixels wide if `png`.
pub fn write_drawn_map(file: &Path, svg: String, png: bool, width: u32) -> Result<ExitCode> {
    let bytes = if png {
        svg::map_png(&svg, width).map_err(|e| anyhow!(e))?
    } else {
        svg.into_bytes()
    };
    std::fs::write(file, &bytes)
        .with_context(|| format!("cannot write the map to {}", file.display()))?;
    outln!("{}: {} bytes", file.display(), bytes.len());
    Ok(ExitCode::SUCCESS)
}

/// The service with the lock that keeps daemons apart.
pub fn open_locked(cfg: Config) -> Result<(Service, dervish::service::Lock)> {
    Service::open_locked(cfg).map_err(|e| anyhow!("{e}"))
}

/// For the game master's commands that change a game: without the lock,
/// which keeps daemons apart, not short commands; each change is one
/// transaction, waiting for the daemon's write in hand (WAL, a busy
/// timeout). Creates and brings up to date the database if need be.
pub fn open_to_write(cfg: Config) -> Result<Service> {
    if let Some(dir) = cfg.database.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    }
    Service::open(cfg).map_err(|e| anyhow!("{e}"))
}

/// For commands that only read: read-only, without the lock, so they work
/// while the daemon runs; a database that is missing or not yet brought
/// up to date is opened as for writing.
pub fn open_to_read(cfg: Config) -> Result<Service> {
    match Service::open_read_only(cfg.clone()) {
        Ok(s) => Ok(s),
        Err(_) => open_to_write(cfg),
    }
}

/// The outgoing transport of the configuration.
pub fn sender(cfg: &Config) -> Result<Sender> {
    daemon::sender(cfg).map_err(|e| anyhow!("{e}"))
}

/// The configuration's inbox, a Maildir.
pub fn inbox(cfg: &Config) -> Result<Maildir> {
    daemon::maildir_inbox(cfg).map_err(|e| anyhow!("{e}"))
}

/// Who the game master's log names for a command run here.
pub fn actor() -> String {
    format!(
        "cli:{}",
        std::env::var("USER").unwrap_or_else(|_| "game-master".into())
    )
}

/// The exit status of a command that checked something: 0 when all was
/// well, else 1.
pub fn status(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
