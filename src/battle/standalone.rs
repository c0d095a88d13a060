//! A brief without a game (`dervish battle brief`): the combat a stack at
//! one hex would fight attacking the enemy stack next to it, read from a
//! situation (a rule case's, docs/cases.md), for clubs that use the
//! campaign only for its battles. The combat is the one the engine would
//! ask its resolver about (`engine::combat`): every unit of both stacks,
//! boats and gunboats apart (they fire, 9.4, but do not count, 9.8), the
//! fleet never (8.25: it holds no hex), and the leaders with them.

use crate::engine::elsewhere::{BattleKey, Combat};
use crate::geo::Hex;
use crate::scenario::{Scenario, Side, UnitKind};
use crate::state::{GameState, Unit, UnitId};

/// Why no combat can be made of two hexes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StandoffError {
    #[error("no stack stands at {0}: name the attacker's hex (FROM)")]
    NoStack(Hex),
    #[error("no {side} stack stands at {hex} to attack: name the defender's hex (TO)")]
    NoEnemy { hex: Hex, side: Side },
    #[error("{from} and {to} are not next to each other: a stack attacks an adjacent hex")]
    NotAdjacent { from: Hex, to: Hex },
}

/// The combat of the stack at `from` attacking the enemy stack at `to`,
/// in the situation's month, numbered 1 in its side's player turn.
pub fn combat_between(
    scn: &Scenario,
    state: &GameState,
    from: Hex,
    to: Hex,
) -> Result<Combat, StandoffError> {
    let at = |hex: Hex| -> Vec<&Unit> {
        state
            .units
            .iter()
            .filter(|u| u.hex() == Some(hex))
            .filter(|u| kind(scn, u) != Some(UnitKind::Fleet))
            .collect()
    };
    let attackers = at(from);
    let side = attackers.first().ok_or(StandoffError::NoStack(from))?.side;
    let defenders = at(to);
    if !defenders.iter().any(|u| u.side == side.enemy()) {
        return Err(StandoffError::NoEnemy {
            hex: to,
            side: side.enemy(),
        });
    }
    if from.direction_to(to).is_none() {
        return Err(StandoffError::NotAdjacent { from, to });
    }
    let river = |u: &&Unit| kind(scn, u).is_some_and(UnitKind::is_river_unit);
    let counted = |us: &[&Unit]| -> Vec<UnitId> {
        us.iter()
            .filter(|u| !river(u))
            .map(|u| u.id.clone())
            .collect()
    };
    let strength =
        |us: &[&Unit]| -> u32 { us.iter().filter(|u| !river(u)).map(|u| u.strength).sum() };
    let leaders = |hex: Hex, side: Side| -> Vec<String> {
        state
            .leaders
            .iter()
            .filter(|l| l.hex == Some(hex) && l.side == side && !l.removed)
            .map(|l| l.name.clone())
            .collect()
    };
    Ok(Combat {
        key: BattleKey {
            month: state.month,
            turn: side,
            number: 1,
        },
        attacker: side,
        order: 0,
        attacker_hex: from,
        defender_hex: to,
        attackers: counted(&attackers),
        defenders: counted(&defenders),
        river_units: attackers
            .iter()
            .chain(&defenders)
            .filter(|u| river(u))
            .map(|u| u.id.clone())
            .collect(),
        attacker_leaders: leaders(from, side),
        defender_leaders: leaders(to, side.enemy()),
        strength: (strength(&attackers), strength(&defenders)),
        ambush: false,
    })
}

fn kind(scn: &Scenario, u: &Unit) -> Option<UnitKind> {
    scn.units.get(&u.unit_type).map(|t| t.kind)
}
