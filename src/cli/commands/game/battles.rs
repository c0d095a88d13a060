//! The game master's commands on a game's table battles: `game battles`,
//! `battle-result` and `flag`.

use std::path::Path;

use anyhow::{Context, Result, anyhow};

use dervish::service::games::deadline_text;
use dervish::service::{Service, ServiceError};

fn e(e: ServiceError) -> anyhow::Error {
    anyhow!("{e}")
}

/// `game battles ID`: each table battle with its turn, where it stands,
/// the result and the deadline.
pub fn list(s: &Service, id: &str) -> Result<()> {
    let battles = s.battles(id).map_err(e)?;
    if battles.is_empty() {
        outln!("game {id} has had no table battle");
    }
    for b in battles {
        let (combat, _) = s.battle_parts(&b).map_err(e)?;
        outln!(
            "battle {:<4} turn {:>3}  {:<9} {}  deadline {}",
            b.id,
            b.turn_no,
            b.status.as_str(),
            combat.key,
            deadline_text(b.deadline)
        );
        if let Some(r) = &b.result_text {
            let by = b.proposed_by.as_deref().unwrap_or("?");
            outln!("  result ({by}): {}", r.replace('\n', " / "));
        }
        if let Some(d) = &b.dispute {
            outln!("  dispute: {}", d.replace('\n', " / "));
        }
    }
    Ok(())
}

/// `game battle-result ID BATTLE FILE`: the result read from FILE (`-`:
/// standard input) and settled at once, or every error in it told.
pub fn enter_result(s: &Service, id: &str, battle: i64, file: &Path) -> Result<()> {
    let text = if file.as_os_str() == "-" {
        let mut t = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)
            .context("cannot read the result from standard input")?;
        t
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    match s.enter_battle_result(id, battle, &text).map_err(e)? {
        Ok(words) => outln!(
            "battle {battle} settled with the result:\n{words}\nThe turn is played on at the next pass."
        ),
        Err(errors) => {
            for er in &errors {
                eprintln!("{}: {er}", file.display());
            }
            return Err(anyhow!(
                "the result of battle {battle} was not taken: {} error(s)",
                errors.len()
            ));
        }
    }
    Ok(())
}

/// `game flag ID PLACE [--off]`.
pub fn flag(s: &Service, id: &str, place: &str, off: bool) -> Result<()> {
    outln!("{}", s.flag_place(id, place, !off).map_err(e)?);
    Ok(())
}
