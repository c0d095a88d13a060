//! The game master's commands on a game's turns: `game process`,
//! `extend`, `pause`, `resume`, `rollback` and `preview`.

use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::service::games::deadline_text;
use dervish::service::{Service, ServiceError};
use dervish::store::{self, Status};

use crate::cli::common::actor;

fn e(e: ServiceError) -> anyhow::Error {
    anyhow!("{e}")
}

/// `game process ID`: the open turn played now. One transaction from
/// reading the open turn to storing it played, so a daemon's pass cannot
/// play it too.
pub fn process(s: &Service, id: &str) -> Result<()> {
    let tx = s.begin().map_err(e)?;
    let n = s.play_turn(id).map_err(e)?;
    store::audit(
        &s.conn,
        s.now(),
        Some(id),
        &actor(),
        "game process",
        &format!("turn {n} played now"),
    )?;
    tx.commit().map_err(e)?;
    outln!(
        "Turn {n} of {id} played; the results are in the outbox (`dervish run --once` sends them)."
    );
    Ok(())
}

/// `game extend ID HOURS`.
pub fn extend(s: &Service, id: &str, hours: u32) -> Result<()> {
    let g = s.extend(id, hours, &actor()).map_err(e)?;
    outln!("Deadline of {id} now {}", deadline_text(g.deadline));
    Ok(())
}

/// `game pause ID`.
pub fn pause(s: &Service, id: &str) -> Result<()> {
    s.set_paused(id, true, &actor()).map_err(e)?;
    outln!("{id} paused");
    Ok(())
}

/// `game resume ID`: fails when the game is not running afterwards.
pub fn resume(s: &Service, id: &str) -> Result<ExitCode> {
    let g = s.set_paused(id, false, &actor()).map_err(e)?;
    outln!("{id} resumed; deadline {}", deadline_text(g.deadline));
    Ok(if g.status == Status::Running {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `game rollback ID --to MONTH --why TEXT`.
pub fn rollback(s: &Service, id: &str, to: &str, why: &str) -> Result<()> {
    let r = s.rollback(id, to, why, &actor()).map_err(e)?;
    outln!(
        "Game {id} taken back to the start of turn {} ({}): {} turn(s) and {} order set(s) taken back and kept (`dervish game show {id}` lists them). Both players are told why (`dervish run --once` sends the mail).",
        r.to_turn,
        r.month,
        r.turns,
        r.sets
    );
    Ok(())
}

/// `game preview ID`.
pub fn preview(s: &Service, id: &str) -> Result<()> {
    out!("{}", s.preview(id).map_err(e)?);
    Ok(())
}
