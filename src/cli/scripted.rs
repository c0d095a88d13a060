//! A side played from order files (`--egyptian orders:DIR`, `--mahdist
//! orders:DIR` of `simulate` and `balance`): the argument, and the folder
//! read into a [`Script`] before any game is played.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use dervish::players::scripted::{OrderFile, Script, Scripts};
use dervish::scenario::{Scenario, Side};

/// What `--egyptian` and `--mahdist` begin with to name a folder of order
/// files.
pub(crate) const PREFIX: &str = "orders:";

/// A value parser for a side's player: one of `names`, or `orders:DIR`.
pub(crate) fn player(
    names: &'static [&'static str],
) -> impl Fn(&str) -> Result<String, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        if let Some(dir) = s.strip_prefix(PREFIX) {
            if dir.is_empty() {
                return Err(format!(
                    "{PREFIX} needs a folder of order files: {PREFIX}DIR"
                ));
            }
            return Ok(s.to_string());
        }
        if names.contains(&s) {
            return Ok(s.to_string());
        }
        Err(format!(
            "`{s}` is no player: one of {}, or {PREFIX}DIR for a folder of order files",
            names.join(", ")
        ))
    }
}

/// The order files of both sides, where `egyptian` or `mahdist` names a
/// folder.
pub(crate) fn scripts(scn: &Scenario, egyptian: &str, mahdist: &str) -> Result<Scripts> {
    Ok(Scripts {
        egyptian: script(scn, Side::Egyptian, egyptian)?,
        mahdist: script(scn, Side::Mahdist, mahdist)?,
    })
}

/// The script of `side` if `arg` names a folder: every `.txt` file in it
/// read (UTF-8, else Latin-1) and checked by name and as orders. A folder
/// that cannot be read, or a file in it, is an error naming it.
fn script(scn: &Scenario, side: Side, arg: &str) -> Result<Option<Script>> {
    let Some(dir) = arg.strip_prefix(PREFIX) else {
        return Ok(None);
    };
    let dir = Path::new(dir);
    let files = read_folder(dir)?;
    let script = Script::from_files(scn, side, files).map_err(|e| {
        anyhow!(
            "the {side} order files in {} cannot be played:\n{e}",
            dir.display()
        )
    })?;
    if script.is_empty() {
        eprintln!(
            "{} holds no order files (*.txt): the {side} side gives no orders",
            dir.display()
        );
    }
    Ok(Some(script))
}

/// The `.txt` files of a folder, by name.
fn read_folder(dir: &Path) -> Result<Vec<OrderFile>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the folder of order files {}", dir.display()))?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for e in entries {
        let e = e.with_context(|| format!("cannot read the folder {}", dir.display()))?;
        paths.push(e.path());
    }
    paths.sort();
    let mut files = Vec::new();
    for p in paths {
        let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".txt") || name.starts_with('.') {
            continue;
        }
        if !p.is_file() {
            bail!("{} is not a file", p.display());
        }
        files.push(OrderFile {
            name: name.to_string(),
            text: crate::cli::common::read_text(&p)?,
        });
    }
    Ok(files)
}

/// The orders of `side`'s order files for its call in `state`, what
/// became of them added to `shown` for the log.
pub(crate) fn play(
    scn: &Scenario,
    state: &dervish::state::GameState,
    scripts: &Scripts,
    side: Side,
    shown: &mut String,
) -> dervish::engine::orders::Orders {
    let Some(script) = scripts.of(side) else {
        return Default::default();
    };
    let played = script.play(scn, state);
    shown.push_str(&dervish::players::scripted::describe(
        &played,
        side,
        state.month,
    ));
    played.orders
}
