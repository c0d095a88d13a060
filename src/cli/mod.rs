//! Command-line interface: parses the arguments and hands the command to
//! its file in `commands/`, one file a command (as cargo lays out its
//! own); what several commands share is in `common`.

/// `println!` for the command's output: when the reader of standard
/// output has gone (`dervish game show ID | head`), the command ends
/// quietly instead of panicking. See [`common::stdout_failed`].
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($t)*) {
            $crate::cli::common::stdout_failed(e);
        }
    }};
}

/// `print!` for the command's output; see [`outln!`].
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($t)*) {
            $crate::cli::common::stdout_failed(e);
        }
    }};
}

mod commands;
mod common;
mod scripted;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use commands::Command;
use common::Env;

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

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors; for a mail server's
            // pipe a bad argument is the host's fault, not the mail's.
            let code = match e.use_stderr() && common::is_submit() {
                true => common::EX_TEMPFAIL,
                false => u8::try_from(e.exit_code()).unwrap_or(2),
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    log_to_stderr();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Warnings (a mailbox that cannot be read, a mail that could not be
/// sent) show by default; DERVISH_LOG=info shows every pass. Colour codes
/// only for a terminal: a journal or a cron mail gets plain text.
fn log_to_stderr() {
    let filter = tracing_subscriber::EnvFilter::builder()
        .with_default_directive(tracing_subscriber::filter::LevelFilter::WARN.into())
        .with_env_var("DERVISH_LOG")
        .from_env_lossy();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

/// Read the configuration and run the command.
fn run(cli: Cli) -> Result<ExitCode> {
    let cfg = match (
        common::config(cli.config.as_deref(), cli.data.as_deref()),
        &cli.command,
    ) {
        // A mail server's pipe keeps the message while the host mends it.
        (Err(e), Command::Submit(_)) => return Ok(common::cannot_take_now(&e)),
        (c, _) => c?,
    };
    let env = Env {
        data: cfg.data_dir.clone(),
        cfg,
    };
    commands::exec(cli.command, env)
}
