//! The `game` commands of long games between people: `game rollback`,
//! `game preview`, and what `game show` adds about seats (each seat's
//! record of turns sent on time, the turns a stand-in played, absences),
//! the time bank and the rollbacks.

use anyhow::{Result, anyhow};
use dervish::service::Service;

/// `game rollback ID --to MONTH --why TEXT`.
pub fn rollback(s: &Service, id: &str, to: &str, why: &str, actor: &str) -> Result<()> {
    let r = s.rollback(id, to, why, actor).map_err(|e| anyhow!("{e}"))?;
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
    out!("{}", s.preview(id).map_err(|e| anyhow!("{e}"))?);
    Ok(())
}

/// The seats' records, the time bank and the rollbacks of game `id`,
/// for `game show`.
pub fn show_more(s: &Service, id: &str) -> Result<()> {
    let e = |e: dervish::service::ServiceError| anyhow!("{e}");
    let seats = s.seat_lines(id).map_err(e)?;
    if !seats.is_empty() {
        outln!("Seats:");
        for line in seats {
            outln!("  {line}");
        }
    }
    for line in s.clock_lines(id).map_err(e)? {
        outln!("{line}");
    }
    for line in s.rollback_lines(id).map_err(e)? {
        outln!("{line}");
    }
    Ok(())
}
