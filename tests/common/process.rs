//! The `dervish` binary run as a mail server or a shell would run it.
//! Included by `mod common` or by `#[path]`.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The folder `dervish-NAME-PID` of the temporary directory (PID this
/// process's id), new and empty.
pub fn fresh_folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dervish-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `dervish ARGS` in folder `cwd` with `stdin` piped in.
pub fn dervish_in(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may exit before reading standard input.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// What a command printed, standard output then standard error.
pub fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `dervish ARGS` in this folder: what it printed on standard output and
/// standard error, and its exit status (-1 if a signal ended it).
pub fn dervish(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// A configuration file `dervish.toml` in `dir` for a service there: the
/// database `database`, a file outbox and a Maildir inbox in `dir`, then
/// `extra` TOML. Its path.
pub fn config_file(dir: &Path, database: &Path, extra: &str) -> std::path::PathBuf {
    config_file_named(dir, "dervish.toml", database, extra)
}

/// The configuration file of [`config_file`] called `name`.
pub fn config_file_named(
    dir: &Path,
    name: &str,
    database: &Path,
    extra: &str,
) -> std::path::PathBuf {
    let config = dir.join(name);
    std::fs::write(
        &config,
        format!(
            "database = \"{}\"\n[outgoing]\nkind = \"file\"\ndir = \"{}\"\n[inbox]\nmaildir = \"{}\"\n{extra}",
            database.display(),
            dir.join("outbox").display(),
            dir.join("inbox").display()
        ),
    )
    .unwrap();
    config
}

/// `dervish --config CONFIG ARGS` in this folder: what it printed on
/// standard output and standard error, and its exit status (-1 if a
/// signal ended it). Output that is not UTF-8 is shown lossily.
pub fn dervish_with(config: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .arg("--config")
        .arg(config)
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// The arguments of `dervish game new` making game `id` between `egyptian`
/// and `mahdist` (an address, or `bot` for the programmed player).
pub fn new_game<'a>(id: &'a str, egyptian: &'a str, mahdist: &'a str) -> Vec<&'a str> {
    vec![
        "game",
        "new",
        "--id",
        id,
        "--egyptian",
        egyptian,
        "--mahdist",
        mahdist,
    ]
}

/// `args` after `--config CONFIG`.
pub fn configured<'a>(config: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["--config", config];
    all.extend_from_slice(args);
    all
}

/// The players most tests seat, as `game new` takes them: Gordon for the
/// Egyptian and the Mahdi.
pub const PLAYERS: [&str; 4] = [
    "--egyptian",
    "gordon@example.org",
    "--mahdist",
    "mahdi@example.org",
];

/// The arguments of `dervish balance` playing `games` games of `scenario`
/// and `battle_runs` runs of each typical battle.
pub fn balance<'a>(scenario: &'a str, games: &'a str, battle_runs: &'a str) -> Vec<&'a str> {
    vec![
        "balance",
        "--scenario",
        scenario,
        "--games",
        games,
        "--battle-runs",
        battle_runs,
    ]
}
