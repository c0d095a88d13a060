//! River units and land units (rule 6.1): a land stack entering a hex that
//! holds only enemy boats and gunboats displaces them one hex, and may
//! capture each on a 6. River movement itself (8.23) is not applied yet.

use super::Turn;
use super::events::{Decision, Event};
use crate::dice::{DiceKind, DieSource};
use crate::geo::Hex;
use crate::state::Status;

/// Displace every enemy river unit in `hex`, which the phasing side's land
/// stack has just entered: a capture roll for each (6.1: on a 6), then the
/// rest move one hex, the owner's choice; by default to a hex beside a
/// river that holds a friendly stack, else the first free hex beside a
/// river. A river unit with nowhere to go is lost.
pub fn displace<S: DieSource>(t: &mut Turn<'_, S>, hex: Hex) {
    let enemy = t.side.enemy();
    let river_units: Vec<usize> = t
        .units_at(hex, enemy)
        .into_iter()
        .filter(|&u| {
            t.unit_type(&t.state.units[u])
                .is_some_and(|ty| ty.kind.is_river_unit())
        })
        .collect();
    if river_units.is_empty() {
        return;
    }
    let need = t.scn.tables.capture.river_units;
    let mut to_move = Vec::new();
    for u in river_units {
        let id = t.state.units[u].id.clone();
        let roll = t.table_roll(
            DiceKind::D6,
            format!("capture of {id}, displaced"),
            "capture (6.1)",
            Vec::new(),
            |v| {
                if v >= need {
                    format!("{need}+: captured")
                } else {
                    format!("under {need}: not captured")
                }
            },
        );
        if roll < need {
            to_move.push(u);
            continue;
        }
        let into = t
            .unit_type(&t.state.units[u])
            .and_then(|ty| ty.captured_as.clone());
        t.state.units[u].status = super::losses::status_after_elimination(t, u);
        t.state.units[u].disrupted = false;
        let spare = into.and_then(|ty| {
            t.state.units.iter().position(|x| {
                x.unit_type == ty
                    && x.side == t.side
                    && matches!(x.status, Status::Pool | Status::Reserve)
            })
        });
        let becomes = spare.map(|s| {
            t.state.units[s].status = Status::OnMap(hex);
            t.state.units[s].disrupted = false;
            t.state.units[s].id.clone()
        });
        t.events.push(Event::Captured {
            unit: id,
            becomes,
            hex,
        });
    }
    if to_move.is_empty() {
        return;
    }
    let mut options: Vec<Hex> = hex
        .neighbours()
        .into_iter()
        .filter(|h| {
            t.scn.map.is_land(*h) && t.scn.map.is_riverside(*h) && !t.occupied_by(*h, t.side)
        })
        .collect();
    options.sort_by_key(|h| (!t.occupied_by(*h, enemy), h.row, h.col));
    match options.first().copied() {
        Some(dest) => {
            for &u in &to_move {
                t.state.units[u].status = Status::OnMap(dest);
            }
            // Leaders ride with their boats (8.23).
            for l in t
                .state
                .leaders
                .iter_mut()
                .filter(|l| l.side == enemy && !l.removed && l.hex == Some(hex))
            {
                l.hex = Some(dest);
            }
            t.events.push(Event::Retreat {
                side: enemy,
                from: hex,
                to: Some(dest),
                decided_by: Decision::Default("river units displaced beside the river, to a friendly stack if one is next to them (6.1)".into()),
            });
        }
        None => {
            for &u in &to_move {
                let id = t.state.units[u].id.clone();
                t.state.units[u].status = super::losses::status_after_elimination(t, u);
                t.events.push(Event::Eliminated {
                    unit: id,
                    hex,
                    cause: "displaced with nowhere to go (6.1)".into(),
                    decided_by: Decision::Default("no free hex beside the river".into()),
                });
            }
        }
    }
    t.remove_lone_leaders(hex);
}
