//! Command-line interface: parses arguments and calls the library.

/// `println!` for the command's output: when the reader of standard
/// output has gone (`dervish game show ID | head`), the command ends
/// quietly instead of panicking. See [`stdout_failed`].
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($t)*) {
            $crate::cli::stdout_failed(e);
        }
    }};
}

/// `print!` for the command's output; see [`outln!`].
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($t)*) {
            $crate::cli::stdout_failed(e);
        }
    }};
}

mod battle;
mod game;
mod mail;
mod outbox;
mod scripted;
mod service;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::{Parser, Subcommand};

use dervish::diag::Diagnostics;
use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::geo::Hex;
use dervish::geo::route::land_route;
use dervish::orders;
use dervish::players::simple::simple_orders;
use dervish::render::ascii::{self, Sector};
use dervish::render::svg;
use dervish::scenario::Side;
use dervish::scenario::{DataFiles, DataSet, NamedText, Scenario};
use dervish::state::setup::{Placements, initial_state};

/// Dervish: play the Mahdist war in the Sudan, 1882-1885, by email.
#[derive(Parser, Debug)]
#[command(name = "dervish", version, about, long_about = None)]
struct Cli {
    /// Read the scenario data from this folder instead of the data built in.
    #[arg(long, global = true, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Read options from this TOML file (see config.example.toml).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Set up the embedded default in this folder, start a demo game of
    /// The Siege of Khartoum between two local players, put a sample
    /// orders mail from each in the inbox, and run one pass: receipts, the
    /// turn, the results. Then `dervish run` keeps going from there.
    Quickstart,
    /// Run the service: read new mail, answer it, play due turns, send
    /// reminders and the outbox; again every `poll_seconds` until stopped
    /// (SIGTERM or Ctrl-C), or once with --once (for cron).
    Run {
        /// Make one pass and stop.
        #[arg(long)]
        once: bool,
    },
    /// Check the mail settings without sending anything: open the inbox
    /// (IMAP: connect, log in, open the folder) and try the outgoing
    /// transport (SMTP: connect, TLS, log in). Exits 0 only when both work.
    #[command(name = "check-mail")]
    CheckMail,
    /// Hand a message (an .eml file, or - for standard input) to the
    /// intake as if it had arrived: for tests, and for mail piped from an
    /// MTA. Exits 0 when the message is taken, 75 (EX_TEMPFAIL) when the
    /// host cannot take it now (configuration, arguments, no database or
    /// one that cannot be used), so the mail server keeps it and retries.
    Submit { file: PathBuf },
    /// Game master commands.
    Game {
        #[command(subcommand)]
        command: service::GameCommand,
    },
    /// Play a turn again and confirm the same result byte for byte: from
    /// the database (--game and --month), or from results mails alone
    /// (--from-mail) or turn records (--from-record), on any machine, with
    /// the public scenario data.
    #[command(group(clap::ArgGroup::new("what").required(true).args(["game", "from_mail", "from_record"])))]
    Verify {
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
    },
    /// Write the campaign archive: a static website of a game (a page a
    /// month with drawn maps, the log and the orders, charts, a
    /// verification page, JSON a month; docs/archive.md), in DIR/<game>/,
    /// with DIR/index.html listing the games archived there.
    Archive {
        /// The game to archive.
        #[arg(long, required_unless_present = "all", conflicts_with = "all")]
        game: Option<String>,
        /// Archive every game.
        #[arg(long)]
        all: bool,
        /// The folder to write into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// The game master's password, for game master commands by email:
    /// `dervish gm password` reads it from standard input.
    Gm {
        #[command(subcommand)]
        command: service::GmCommand,
    },
    /// The mail received and what became of it (strangers' mail too).
    Mail {
        #[command(subcommand)]
        command: mail::MailCommand,
    },
    /// Table battles without a game: the brief of a situation's battle.
    Battle {
        #[command(subcommand)]
        command: battle::BattleCommand,
    },
    /// The mail waiting to be sent: list it, send a mail again, drop one.
    Outbox {
        #[command(subcommand)]
        command: outbox::OutboxCommand,
    },
    /// Play a whole game again from its set-up and report any drift.
    Replay {
        #[arg(long)]
        game: String,
    },
    /// Print the map of a scenario: the overview, or a sector around a
    /// place; or draw it to an SVG or PNG file (--out).
    Map {
        /// Scenario: el-obeid or khartoum.
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// Draw a sector around this place or hex (e.g. Khartoum or 1942).
        #[arg(long)]
        around: Option<String>,
        /// Columns and rows either side of the centre.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=15))]
        radius: u8,
        /// Leave the set-up stacks off the map.
        #[arg(long)]
        no_units: bool,
        /// Draw the map to this file instead: an SVG (`.svg`) or a PNG
        /// (`.png`), of the whole theatre or, with --around, of the sector.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Width of a PNG in pixels.
        #[arg(long, requires = "out", default_value_t = 1200, value_parser = clap::value_parser!(u32).range(100..=8192))]
        width: u32,
        /// Play this many months with the simple built-in player on both
        /// sides first, and draw the last month's marches and battles.
        #[arg(long, requires = "out", default_value_t = 0)]
        play: u32,
        /// Seed of the dice for --play.
        #[arg(long, requires = "out", default_value_t = 1)]
        seed: u64,
        /// Draw a game of the database instead, as it stood at the end of
        /// its last month played (or of --month), with that month's
        /// marches and battles.
        #[arg(long, conflicts_with_all = ["play", "no_units"])]
        game: Option<String>,
        /// The month of --game: 1884-03, March 1884 or Mar 1884.
        #[arg(long, requires = "game")]
        month: Option<String>,
        /// With --game: the map after this side's player turn of the month
        /// (the month's end by default).
        #[arg(long, requires = "game", value_parser = ["egyptian", "mahdist"])]
        after: Option<String>,
    },
    /// Print the cheapest land route between two places (rule 8.21 costs).
    Route {
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// Start: a place name or hex.
        from: String,
        /// End: a place name or hex.
        to: String,
    },
    /// Play a campaign with the simple built-in player on both sides and
    /// print the full result log and a digest of the final state.
    Simulate {
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// Seed of the dice: the same seed prints the same bytes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Months to play (default: to the end of the scenario).
        #[arg(long)]
        months: Option<u32>,
        /// Who plays the Mahdist side: `simple` (march on the nearest
        /// enemy town) or `bot` (the reaction-table player of
        /// docs/opponents.md, whose umpire's notes are printed too), or
        /// `orders:DIR`, the order files of a folder (see --egyptian).
        #[arg(long, default_value = "simple", value_parser = scripted::player(&["simple", "bot"]))]
        mahdist: String,
        /// Who plays the Egyptian side: `simple`, or the programmed
        /// Egyptian player `historical` (cautious) or `competent`, or
        /// `orders:DIR`: one file of orders a month in DIR, in the order
        /// language, read and checked as a player's mail (`1882-11.txt` or
        /// `02.txt` for the second month, `setup.txt` for the set-up; no
        /// file: no orders). Each month's orders kept and set aside are
        /// printed.
        #[arg(long, default_value = "simple", value_parser = scripted::player(&["simple", "historical", "competent"]))]
        egyptian: String,
        /// Play with the optional ambush rule (docs/rules.md, "Ambushes").
        #[arg(long)]
        ambushes: bool,
        /// A house rule, off by default (repeatable): `gordon-stays` (no
        /// order may take Gordon out of Khartoum); docs/rules.md, "House
        /// rules (optional variants)".
        #[arg(long = "variant", value_name = "NAME")]
        variant: Vec<dervish::state::variant::Variant>,
    },
    /// Play many campaigns of programmed players against each other on all
    /// cores and compare them with history: who wins, why games end, the
    /// month each town falls. Prints the report; with --out, writes
    /// report.md and its charts there: falls.svg (the month each town
    /// fell), results.svg (results and why games ended) and battles.svg.
    Balance {
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// How many games.
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// The run's seed: the same seed gives the same figures.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Who plays the Egyptian side: `simple`, `historical`,
        /// `competent`, or `orders:DIR`, the order files of a folder (as
        /// for simulate; the report counts the orders set aside).
        #[arg(long, default_value = "historical", value_parser = scripted::player(&["simple", "historical", "competent"]))]
        egyptian: String,
        /// Who plays the Mahdist side: `simple`, `bot`, or `orders:DIR`.
        #[arg(long, default_value = "bot", value_parser = scripted::player(&["simple", "bot"]))]
        mahdist: String,
        /// A folder for report.md, falls.svg, results.svg and battles.svg
        /// (created if needed).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Play with the optional ambush rule (docs/rules.md, "Ambushes").
        #[arg(long)]
        ambushes: bool,
        /// A house rule, off by default (repeatable): `gordon-stays` (no
        /// order may take Gordon out of Khartoum); docs/rules.md, "House
        /// rules (optional variants)".
        #[arg(long = "variant", value_name = "NAME")]
        variant: Vec<dervish::state::variant::Variant>,
        /// How many times to fight each typical battle of
        /// `scenarios/battles/` (British infantry against as many and
        /// twice as many ansar in the open, Egyptian L-class troops against
        /// as many, a town assault); 0 leaves them out.
        #[arg(long, default_value_t = 10_000)]
        battle_runs: u64,
        /// Who resolves the typical battles' combats: the campaign's
        /// combat tables, or the ETYFW resolver (docs/tabletop-etyfw.md).
        #[arg(long, default_value = "tables", value_parser = ["tables", "etyfw"])]
        resolver: String,
    },
    /// Read and check orders as players write them.
    Orders {
        #[command(subcommand)]
        command: OrdersCommand,
    },
    /// Work with scenario data.
    Scenario {
        #[command(subcommand)]
        command: ScenarioCommand,
    },
    /// Rule cases: a situation, orders, dice and the expected outcome, as
    /// data (docs/cases.md).
    Case {
        #[command(subcommand)]
        command: CaseCommand,
    },
}

#[derive(Subcommand, Debug)]
enum CaseCommand {
    /// Play each case and print PASS or FAIL with every difference. Exits
    /// with 0 only when every case passes.
    Run {
        /// Also print the receipts, every roll with its dice, and the log.
        #[arg(long, short)]
        verbose: bool,
        /// Case files (TOML).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a case's situation: every stack with its counters' IDs.
    Show {
        /// Print the whole state as JSON instead (what `state = "file.json"`
        /// in a case reads).
        #[arg(long)]
        json: bool,
        file: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum OrdersCommand {
    /// Check an orders message against a scenario's opening position and
    /// print the receipt a player would get: each order in canonical form
    /// with what it will do, each problem with its line, a summary. Exits
    /// with 0 only when there is no error.
    Check {
        /// Scenario whose opening position the orders are checked against.
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// Check against a game of the service as it stands now (its
        /// scenario and its current state) instead of an opening position.
        #[arg(long, conflicts_with = "scenario")]
        game: Option<String>,
        /// The side giving the orders.
        #[arg(long, value_enum)]
        side: SideArg,
        /// The message's subject line (may give the game and month).
        #[arg(long)]
        subject: Option<String>,
        /// The text was sent as format=flowed.
        #[arg(long)]
        flowed: bool,
        /// The text of the message; `-` reads standard input.
        file: PathBuf,
    },
    /// Print orders in canonical form (what the parser understood), one
    /// order a line, with the lines that were not understood on standard
    /// error.
    Canonical {
        #[arg(long, short, default_value = "khartoum")]
        scenario: String,
        /// The text of the message; `-` reads standard input.
        file: PathBuf,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum SideArg {
    Egyptian,
    Mahdist,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::Egyptian => Side::Egyptian,
            SideArg::Mahdist => Side::Mahdist,
        }
    }
}

/// Read a text file (or standard input for `-`): UTF-8, else Latin-1.
fn read_text(path: &PathBuf) -> Result<String> {
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

#[derive(Subcommand, Debug)]
enum ScenarioCommand {
    /// Check data files: with no FILE, all of them; each FILE given is
    /// checked in place of the shipped file of its kind.
    Check {
        /// Data files (map, units, tables, events or scenario).
        files: Vec<PathBuf>,
    },
    /// List the scenarios.
    List,
}

/// `EX_TEMPFAIL` (sysexits.h): a mail server calling `dervish submit` as
/// a pipe keeps the message and tries again later. Every failure of
/// `submit` that is the host's, not the message's (configuration,
/// arguments, the database), exits with it. Not `EX_CONFIG` (78): Postfix
/// and sendmail take that as permanent (5.3.5) and bounce the player's
/// mail, secret included.
pub(crate) const EX_TEMPFAIL: u8 = 75;

/// Whether this process was started as `dervish ... submit ...`, before
/// its arguments are known to be good.
fn is_submit() -> bool {
    std::env::args_os().skip(1).any(|a| a == "submit")
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors; for a mail server's
            // pipe a bad argument is the host's fault, not the mail's.
            let code = match e.use_stderr() && is_submit() {
                true => EX_TEMPFAIL,
                false => u8::try_from(e.exit_code()).unwrap_or(2),
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // Warnings (a mailbox that cannot be read, a mail that could not be
    // sent) show by default; DERVISH_LOG=info shows every pass.
    let filter = tracing_subscriber::EnvFilter::builder()
        .with_default_directive(tracing_subscriber::filter::LevelFilter::WARN.into())
        .with_env_var("DERVISH_LOG")
        .from_env_lossy();
    // Colour codes only for a terminal: a journal or a cron mail gets
    // plain text.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn files(cli_data: &Option<PathBuf>) -> Result<DataFiles> {
    match cli_data {
        Some(dir) => DataFiles::from_dir(dir).map_err(|d| anyhow!("{d}")),
        None => Ok(DataFiles::embedded()),
    }
}

fn data(cli_data: &Option<PathBuf>) -> Result<DataSet> {
    files(cli_data)?
        .load()
        .map_err(|d: Diagnostics| anyhow!("the scenario data has problems:\n{d}"))
}

fn scenario(data: &DataSet, id: &str) -> Result<Scenario> {
    data.scenario(id).ok_or_else(|| {
        anyhow!(
            "no scenario called {id}; the scenarios are {}",
            data.scenario_ids().join(", ")
        )
    })
}

/// Whether a map is drawn to `file` as a PNG (`.png`) or an SVG (`.svg`).
fn drawn_as_png(file: &std::path::Path) -> Result<bool> {
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
fn write_drawn_map(file: &std::path::Path, svg: String, png: bool, width: u32) -> Result<ExitCode> {
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

fn place(scn: &Scenario, text: &str) -> Result<Hex> {
    scn.map.resolve(text).map_err(|e| anyhow!("{e}"))
}

/// The service configuration: `--config FILE`, or the embedded default;
/// `--data DIR` overrides its `data_dir`.
fn config(cli: &Cli) -> Result<dervish::service::Config> {
    let mut c = match &cli.config {
        Some(path) => dervish::service::Config::read(path).map_err(|e| anyhow!("{e}"))?,
        None => dervish::service::Config::default(),
    };
    if cli.data.is_some() {
        c.data_dir = cli.data.clone();
    }
    Ok(c)
}

fn run(mut cli: Cli) -> Result<ExitCode> {
    let cfg = match (config(&cli), &cli.command) {
        // A mail server's pipe keeps the message while the host mends it.
        (Err(e), Command::Submit { .. }) => return Ok(service::cannot_take_now(&e)),
        (c, _) => c?,
    };
    cli.data = cfg.data_dir.clone();
    match cli.command {
        Command::Quickstart => service::quickstart(cfg),
        Command::Run { once } => service::run(cfg, once),
        Command::Submit { file } => Ok(service::submit_for_a_pipe(cfg, &file)),
        Command::CheckMail => service::check_mail(&cfg),
        Command::Game { command } => service::game(cfg, command),
        Command::Verify { from_mail, .. } if !from_mail.is_empty() => {
            let data = data(&cli.data)?;
            service::verify_from_files(&data, &from_mail, service::Saved::Mail)
        }
        Command::Verify { from_record, .. } if !from_record.is_empty() => {
            let data = data(&cli.data)?;
            service::verify_from_files(&data, &from_record, service::Saved::Record)
        }
        Command::Archive { game, all, out } => service::archive(cfg, game.as_deref(), all, &out),
        Command::Verify { game, month, .. } => service::verify(
            cfg,
            game.as_deref().unwrap_or_default(),
            month.as_deref().unwrap_or_default(),
        ),
        Command::Replay { game } => service::replay(cfg, &game),
        Command::Gm { command } => service::gm(cfg, command),
        Command::Outbox { command } => outbox::outbox(&cfg, command),
        Command::Battle { command } => battle::battle(&cli.data, command),
        Command::Mail { command } => mail::mail(cfg, command),
        Command::Map {
            game: Some(game),
            month,
            after,
            around,
            radius,
            out,
            width,
            ..
        } => service::game_map(
            cfg,
            &service::GameMap {
                game,
                month,
                after,
                around,
                radius: i32::from(radius),
                out,
                width,
            },
        ),
        Command::Map {
            scenario: id,
            around,
            radius,
            no_units,
            out: Some(file),
            width,
            play,
            seed,
            ..
        } => {
            let png = drawn_as_png(&file)?;
            let data = data(&cli.data)?;
            let scn = scenario(&data, &id)?;
            let (mut state, _) =
                initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
            let mut dice = Dice::new(SeededDice::from_seed(seed));
            let mut events = Vec::new();
            for _ in 0..play {
                if state.result.is_some() {
                    break;
                }
                let r = play_month_with(
                    &scn,
                    state,
                    &mut |st, side| simple_orders(&scn, st, side),
                    &mut dice,
                );
                state = r.state;
                events = r.events;
            }
            let mut view = match around {
                Some(p) => svg::View::around(place(&scn, &p)?, i32::from(radius)),
                None => svg::View::theatre(),
            };
            if play > 0 {
                view = view.with_overlay(&events, None);
            }
            let drawn = svg::map_svg(&scn, (!no_units).then_some(&state), &view);
            write_drawn_map(&file, drawn, png, width)
        }
        Command::Map {
            scenario: id,
            around,
            radius,
            no_units,
            ..
        } => {
            let data = data(&cli.data)?;
            let scn = scenario(&data, &id)?;
            let (state, _) = initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
            let st = (!no_units).then_some(&state);
            let text = match around {
                Some(p) => ascii::sector(
                    &scn,
                    st,
                    Sector {
                        centre: place(&scn, &p)?,
                        radius: i32::from(radius),
                    },
                ),
                None => ascii::overview(&scn, st),
            };
            out!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Route {
            scenario: id,
            from,
            to,
        } => {
            let data = data(&cli.data)?;
            let scn = scenario(&data, &id)?;
            let (a, b) = (place(&scn, &from)?, place(&scn, &to)?);
            match land_route(&scn.map, a, b) {
                Some(r) => {
                    out!(
                        "Route from {} to {}:\n{}",
                        scn.map.describe(a),
                        scn.map.describe(b),
                        ascii::route_text(&scn.map, &r)
                    );
                    Ok(ExitCode::SUCCESS)
                }
                None => Err(anyhow!(
                    "no land route from {} to {}",
                    scn.map.describe(a),
                    scn.map.describe(b)
                )),
            }
        }
        Command::Balance {
            scenario: id,
            games,
            seed,
            egyptian,
            mahdist,
            out,
            ambushes,
            variant,
            battle_runs,
            resolver,
        } => {
            use dervish::balance::{self, BattleResolver, EgyptianPlayer, History, MahdistPlayer};
            let battle_resolver = if resolver == "etyfw" {
                BattleResolver::Etyfw(Box::new(
                    dervish::battle::etyfw::Etyfw::embedded()
                        .map_err(|d| anyhow!("{d}"))?
                        .quiet(),
                ))
            } else {
                BattleResolver::Tables
            };
            use dervish::players::mahdist::Opponents;
            let files = files(&cli.data)?;
            let data = files
                .load()
                .map_err(|d: Diagnostics| anyhow!("the scenario data has problems:\n{d}"))?;
            let scn = scenario(&data, &id)?;
            // A data folder may carry its own history and programmed
            // players' data; else the shipped ones.
            let history = match files.extra("history.ron") {
                Some(f) => History::parse(&f.text).map_err(|e| anyhow!("{}: {e}", f.name))?,
                None => History::shipped().map_err(|e| anyhow!(e))?,
            };
            let opponents = match files.extra("opponents.ron") {
                Some(f) => Opponents::parse(&f.text).map_err(|e| anyhow!("{}: {e}", f.name))?,
                None => Opponents::shipped().map_err(|e| anyhow!(e))?,
            };
            // Place names the programmed players would only trip over in
            // the middle of a run are refused before it.
            opponents.objectives(&scn).map_err(|e| anyhow!(e))?;
            opponents.expedition(&scn).map_err(|e| anyhow!(e))?;
            opponents.ratios(&scn).map_err(|e| anyhow!(e))?;
            let eg = match dervish::players::egyptian::Persona::parse(&egyptian) {
                Some(p) => EgyptianPlayer::Bot(p),
                None => EgyptianPlayer::Simple,
            };
            let md = if mahdist == "bot" {
                MahdistPlayer::Bot
            } else {
                MahdistPlayer::Simple
            };
            let scripts = scripted::scripts(&scn, &egyptian, &mahdist)?;
            let bar = indicatif::ProgressBar::new(games);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} games, {per_sec}, {eta} left",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            let outcomes = balance::run_scripted(
                &scn,
                &history,
                &opponents,
                &balance::Matchup {
                    egyptian: eg,
                    mahdist: md,
                    options: dervish::state::Options {
                        ambushes,
                        variants: variant.iter().copied().collect(),
                        ..Default::default()
                    },
                },
                &scripts,
                seed,
                games,
                &|| bar.inc(1),
            )
            .map_err(|e| anyhow!(e))?;
            bar.finish_and_clear();
            let mut summary = balance::summarise(&scn, &history, &outcomes);
            if battle_runs > 0 {
                let bar = indicatif::ProgressBar::new(
                    battle_runs * balance::TYPICAL_BATTLES.len() as u64,
                );
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{bar:40} {pos}/{len} typical battles, {per_sec}, {eta} left",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                summary.typical = balance::typical_battles_resolving(
                    &data,
                    battle_runs,
                    seed,
                    &battle_resolver,
                    &|| bar.inc(1),
                )
                .map_err(|e| anyhow!(e))?;
                bar.finish_and_clear();
            }
            let command = format!(
                "dervish{} balance --scenario {id} --games {games} --battle-runs {battle_runs} --seed {seed} --egyptian {egyptian} --mahdist {mahdist}{}{}{}",
                cli.data
                    .as_ref()
                    .map_or(String::new(), |d| format!(" --data {}", d.display())),
                if ambushes { " --ambushes" } else { "" },
                variant
                    .iter()
                    .map(|v| format!(" --variant {v}"))
                    .collect::<String>(),
                if resolver == "tables" {
                    String::new()
                } else {
                    format!(" --resolver {resolver}")
                }
            );
            let mut report = balance::report(&scn.def.title, &command, &summary);
            if scripts != Default::default() {
                let per_game: Vec<&[String]> =
                    outcomes.iter().map(|o| o.set_aside.as_slice()).collect();
                report.push_str(&dervish::players::scripted::set_aside_summary(&per_game));
            }
            out!("{report}");
            if let Some(dir) = out {
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                std::fs::write(dir.join("report.md"), &report)
                    .with_context(|| format!("cannot write {}", dir.join("report.md").display()))?;
                for (name, svg) in [
                    ("falls.svg", balance::svg(&scn, &summary)),
                    (
                        "results.svg",
                        balance::results_svg(&scn.def.title, &summary),
                    ),
                    (
                        "battles.svg",
                        balance::battles_svg(&scn.def.title, &summary),
                    ),
                ] {
                    std::fs::write(dir.join(name), svg)
                        .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
                }
                eprintln!(
                    "report.md, falls.svg, results.svg and battles.svg written to {}",
                    dir.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Simulate {
            scenario: id,
            seed,
            months,
            mahdist,
            egyptian,
            ambushes,
            variant,
        } => {
            let data = data(&cli.data)?;
            let scn = scenario(&data, &id)?;
            let scripts = scripted::scripts(&scn, &egyptian, &mahdist)?;
            let (mut state, _) =
                initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
            state.options.ambushes = ambushes;
            state.options.variants = variant.into_iter().collect();
            let mut dice = Dice::new(SeededDice::from_seed(seed));
            let limit = months.unwrap_or(u32::MAX);
            outln!(
                "Simulation of {} ({}), seed {seed}",
                scn.def.title,
                scn.id()
            );
            if !state.options.variants.is_empty() {
                let names: Vec<&str> = state.options.variants.iter().map(|v| v.key()).collect();
                outln!("House rules: {} (docs/rules.md)", names.join(", "));
            }
            // The data folder's reaction table and programmed players'
            // data, if it has them (`--data DIR`).
            let opponents = match files(&cli.data)?.extra("opponents.ron") {
                Some(f) => dervish::players::mahdist::Opponents::parse(&f.text)
                    .map_err(|e| anyhow!("{}: {e}", f.name))?,
                None => dervish::players::mahdist::Opponents::shipped().map_err(|e| anyhow!(e))?,
            };
            let bot = (mahdist == "bot").then(|| ((*scn.reactions).clone(), opponents.clone()));
            // The bot's own dice: a stream apart from the turn's.
            let mut bot_dice = Dice::new(SeededDice::from_seed(seed ^ 0x6d61_6864_6973_7400));
            let mut played = 0;
            while played < limit && state.result.is_none() {
                let month = state.month;
                let mut notes: Vec<String> = Vec::new();
                let mut egyptian_notes: Vec<String> = Vec::new();
                let mut from_files = String::new();
                let r = play_month_with(
                    &scn,
                    state,
                    &mut |s, side| match (&bot, side) {
                        (_, side) if scripts.of(side).is_some() => {
                            scripted::play(&scn, s, &scripts, side, &mut from_files)
                        }
                        (Some((table, opponents)), Side::Mahdist) => {
                            let d = dervish::players::mahdist::decide(
                                &scn,
                                s,
                                table,
                                opponents,
                                &mut bot_dice,
                            );
                            // The opening month asks twice (set-up, then
                            // the turn): the turn's notes are the ones kept.
                            notes = d.notes;
                            d.orders
                        }
                        (_, Side::Egyptian) => {
                            match dervish::players::egyptian::Persona::parse(&egyptian) {
                                Some(p) => {
                                    let d = dervish::players::egyptian::decide_with(
                                        &scn,
                                        s,
                                        p,
                                        Some(&opponents),
                                    );
                                    egyptian_notes = d.notes;
                                    d.orders
                                }
                                None => simple_orders(&scn, s, side),
                            }
                        }
                        _ => simple_orders(&scn, s, side),
                    },
                    &mut dice,
                );
                out!("{from_files}");
                if !egyptian_notes.is_empty() {
                    outln!("== {} the Egyptian player's reasons", month.long_name());
                    for n in egyptian_notes {
                        outln!("  {n}");
                    }
                }
                if !notes.is_empty() {
                    outln!(
                        "== {} umpire's notes (the Mahdist reaction rolls)",
                        month.long_name()
                    );
                    for n in notes {
                        outln!("  {n}");
                    }
                }
                out!("{}", dervish::render::log::render(&scn.map, &r.events));
                state = r.state;
                played += 1;
                if state.month == month && state.result.is_none() {
                    break;
                }
            }
            outln!();
            outln!("Months played: {played}; now {}", state.month.long_name());
            match &state.result {
                Some(r) => outln!(
                    "Result: {}",
                    match r.winner {
                        Some(s) => format!("{s} victory: {}", r.reason),
                        None => format!("draw: {}", r.reason),
                    }
                ),
                None => outln!("Result: the game goes on"),
            }
            for side in [Side::Egyptian, Side::Mahdist] {
                let n = state
                    .units
                    .iter()
                    .filter(|u| u.side == side && u.hex().is_some())
                    .count();
                outln!("{side} units on the map: {n}");
            }
            outln!("State digest: {}", state.digest());
            Ok(ExitCode::SUCCESS)
        }
        Command::Orders {
            command:
                OrdersCommand::Check {
                    scenario: id,
                    game,
                    side,
                    subject,
                    flowed,
                    file,
                },
        } => {
            let (scn, state) = match game {
                Some(g) => {
                    let s = dervish::service::Service::open(cfg).map_err(|e| anyhow!("{e}"))?;
                    let row = s.game(&g).map_err(|e| anyhow!("{e}"))?;
                    let state = s.state_of(&row).map_err(|e| anyhow!("{e}"))?;
                    (
                        s.scenario(&row.scenario).map_err(|e| anyhow!("{e}"))?,
                        state,
                    )
                }
                None => {
                    let data = data(&cli.data)?;
                    let scn = scenario(&data, &id)?;
                    let (state, _) =
                        initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
                    (scn, state)
                }
            };
            let text = read_text(&file)?;
            let vocab = orders::Vocabulary::new(&scn).in_play(&state);
            let input = orders::Input {
                text: &text,
                subject: subject.as_deref(),
                flowed,
                delsp: false,
            };
            let parsed = orders::parse(&input, &vocab).map_err(|r| anyhow!("{r}"))?;
            let side = Side::from(side);
            let checked = orders::check(&parsed.sheet, &scn, &state, side);
            out!(
                "{}",
                orders::acknowledge(&parsed, &checked, &scn, side, &state)
            );
            Ok(if parsed.errors.is_empty() && checked.errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Orders {
            command: OrdersCommand::Canonical { scenario: id, file },
        } => {
            let data = data(&cli.data)?;
            let scn = scenario(&data, &id)?;
            let text = read_text(&file)?;
            let vocab = orders::Vocabulary::new(&scn);
            let parsed =
                orders::parse(&orders::Input::text(&text), &vocab).map_err(|r| anyhow!("{r}"))?;
            out!("{}", orders::print::sheet(&scn.map, &parsed.sheet, true));
            for e in &parsed.errors {
                eprintln!("{e}");
            }
            Ok(if parsed.errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Case {
            command: CaseCommand::Run { verbose, files },
        } => {
            let data = data(&cli.data)?;
            let (mut passed, mut failed) = (0, 0);
            for f in &files {
                match dervish::cases::load(f, &data) {
                    Ok(case) => {
                        let out = dervish::cases::run(&case);
                        out!("{}", out.summary());
                        if verbose {
                            out!("{}", out.details());
                        }
                        if out.passed() {
                            passed += 1;
                        } else {
                            failed += 1;
                        }
                    }
                    Err(d) => {
                        outln!("ERROR {}\n{d}", f.display());
                        failed += 1;
                    }
                }
            }
            outln!("{passed} passed, {failed} failed");
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Case {
            command: CaseCommand::Show { json, file },
        } => {
            let data = data(&cli.data)?;
            let case = dervish::cases::load(&file, &data).map_err(|d| anyhow!("{d}"))?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&case.state)?);
            } else {
                out!("{}", dervish::cases::show(&case));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenario {
            command: ScenarioCommand::List,
        } => {
            let data = data(&cli.data)?;
            for s in &data.scenarios {
                outln!(
                    "{:<10} {}. {} ({} to {})",
                    s.id,
                    s.number,
                    s.title,
                    s.start.long_name(),
                    s.end.long_name()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenario {
            command: ScenarioCommand::Check { files: paths },
        } => {
            let mut set = files(&cli.data)?;
            let mut problems = Vec::new();
            for p in &paths {
                let text = std::fs::read_to_string(p)
                    .with_context(|| format!("cannot read {}", p.display()))?;
                if let Err(d) = set.replace(NamedText {
                    name: p.display().to_string(),
                    text,
                }) {
                    problems.push(d);
                }
            }
            if !problems.is_empty() {
                outln!("{}", Diagnostics(problems));
                return Ok(ExitCode::FAILURE);
            }
            match set.load() {
                Ok(d) => {
                    let n = 4 + set.scenarios.len();
                    outln!(
                        "ok: {n} files checked ({} places, {} rivers, {} unit types, {} leaders, scenarios {})",
                        d.map.places().len(),
                        d.map.rivers().len(),
                        d.units.types().len(),
                        d.units.leaders().len(),
                        d.scenario_ids().join(", ")
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(d) => {
                    outln!("{d}");
                    outln!(
                        "{} problem{} found",
                        d.0.len(),
                        if d.0.len() == 1 { "" } else { "s" }
                    );
                    Ok(ExitCode::FAILURE)
                }
            }
        }
    }
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
pub(crate) fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe || is_submit() {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}
