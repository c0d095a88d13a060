//! The game master's commands on a game's players: `game replace`,
//! `secret` and `observe`.

use anyhow::{Result, anyhow};

use dervish::service::{Service, ServiceError};

use crate::cli::common::{actor, side};

fn e(e: ServiceError) -> anyhow::Error {
    anyhow!("{e}")
}

/// `game replace ID SIDE ADDRESS`: the seat to a person (with a new
/// secret) or to the programmed player.
pub fn replace(s: &Service, id: &str, side_name: &str, address: &str) -> Result<()> {
    let side = side(side_name);
    if dervish::service::games::is_bot(address) {
        s.replace_with_bot(id, side, address, &actor()).map_err(e)?;
        outln!(
            "The {side} seat of {id} now belongs to the programmed player; its orders for the open turn are in."
        );
    } else {
        s.replace_player(id, side, address, &actor()).map_err(e)?;
        outln!(
            "The {side} seat of {id} now belongs to {address}; a new secret is in their welcome mail."
        );
    }
    Ok(())
}

/// `game secret ID SIDE`.
pub fn secret(s: &Service, id: &str, side_name: &str) -> Result<()> {
    let side = side(side_name);
    s.reissue_secret(id, side, &actor()).map_err(e)?;
    outln!(
        "The {side} player of {id} has a new secret, in a new welcome mail; the old one no longer works."
    );
    Ok(())
}

/// `game observe ID ADDRESS`.
pub fn observe(s: &Service, id: &str, address: &str) -> Result<()> {
    s.add_observer(id, address, &actor()).map_err(e)?;
    outln!("{address} now gets the results of {id}");
    Ok(())
}
