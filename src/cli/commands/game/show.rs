//! `game list`, `game show ID`, `game log ID`: what the game master reads
//! of the games, without changing them.

use anyhow::{Result, anyhow};

use dervish::render::ascii;
use dervish::service::games::deadline_text;
use dervish::service::{Service, ServiceError};
use dervish::store::{self, GameRow, Status};

fn e(e: ServiceError) -> anyhow::Error {
    anyhow!("{e}")
}

/// `game list`: a line a game.
pub fn list(s: &Service) -> Result<()> {
    let games = store::games(&s.conn)?;
    if games.is_empty() {
        outln!("no games");
    }
    for g in games {
        outln!(
            "{:<16} {:<9} {:<11} {:<8} turn {:>3} {}  deadline {}{}",
            g.id,
            g.scenario,
            g.mode.as_str(),
            g.status.as_str(),
            g.turn_no,
            g.month,
            deadline_text(g.deadline),
            g.result.map(|r| format!("  ({r})")).unwrap_or_default()
        );
    }
    Ok(())
}

/// `game show ID`: the game's turn, deadline, players, orders in, turns
/// played, seats, where victory stands and the map.
pub fn show(s: &Service, id: &str) -> Result<()> {
    let g = s.game(id).map_err(e)?;
    let scn = s.scenario(&g.scenario).map_err(e)?;
    let state = s.state_of(&g).map_err(e)?;
    outln!(
        "Game {}: {} ({}), {} turns, {}",
        g.id,
        scn.def.title,
        g.scenario,
        g.mode.as_str(),
        g.status.as_str()
    );
    let optional = state.options.names();
    if !optional.is_empty() {
        outln!("Optional rules: {} (docs/rules.md)", optional.join(", "));
    }
    // A finished game has no open turn: no deadline, no seed.
    match &g.result {
        Some(r) if g.status == Status::Finished => outln!("The game is over. Result: {r}"),
        _ => {
            outln!(
                "Turn {} ({}, {}), deadline {}",
                g.turn_no,
                g.month,
                g.turn_kind.as_str(),
                deadline_text(g.deadline)
            );
            outln!("Seed fingerprint of the open turn: {}", g.seed_sha256);
        }
    }
    players(s, &g)?;
    for t in store::turns(&s.conn, id)? {
        outln!(
            "  played turn {}: {} ({})",
            t.turn_no,
            t.month,
            t.turn_kind.as_str()
        );
    }
    show_more(s, id)?;
    outln!("Where victory stands:");
    for v in dervish::engine::victory::standing(&scn, &state) {
        outln!("  {v}");
    }
    out!("{}", ascii::overview(&scn, Some(&state)));
    Ok(())
}

/// A line a player: the seat, the orders in for the open turn, whether
/// mail reaches them, the turns missed.
fn players(s: &Service, g: &GameRow) -> Result<()> {
    for p in store::players(&s.conn, &g.id)? {
        let set = store::latest_order_set(&s.conn, &g.id, g.turn_no, p.side)?;
        outln!(
            "  {:<9} {:<30} {}{}{}",
            p.side.to_string(),
            match (&p.bot, p.address.is_empty()) {
                (Some(kind), _) => format!("(programmed player: {kind})"),
                (None, true) => "(open seat)".to_string(),
                (None, false) => p.address.clone(),
            },
            match set {
                Some(x) => format!(
                    "orders v{}{}",
                    x.version,
                    if x.ready { " READY" } else { "" }
                ),
                None => "no orders".into(),
            },
            if p.unreachable { ", unreachable" } else { "" },
            if p.missed_turns > 0 {
                format!(", missed {} turns", p.missed_turns)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// What `game show` adds about the seats of long games between people
/// (each seat's record of turns sent on time, the turns a stand-in
/// played, absences), the time bank and the rollbacks.
fn show_more(s: &Service, id: &str) -> Result<()> {
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

/// `game log ID`: the game master's log of the game, oldest first.
pub fn log(s: &Service, id: &str) -> Result<()> {
    s.game(id).map_err(e)?;
    for (at, actor, action, detail) in store::audit_log(&s.conn, id)? {
        outln!("{at}  {actor}  {action}");
        for line in detail.lines() {
            outln!("    {line}");
        }
    }
    Ok(())
}
