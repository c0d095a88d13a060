//! A simple programmed player, for `dervish simulate` and for testing whole
//! campaigns: it reads the state and writes orders, as a player would.
//!
//! The Mahdist marches every stack of three or more units on the nearest
//! settlement held by the enemy and attacks whatever it meets. The
//! Egyptian keeps its garrisons, sends its largest field stack to relieve
//! the nearest besieged settlement, and brings other field stacks back to
//! the nearest friendly settlement.

use crate::engine::orders::{Leg, MarchOrder, OnContact, Orders, Selection};
use crate::geo::Hex;
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// The orders of the simple player for `side`.
pub fn simple_orders(scn: &Scenario, state: &GameState, side: Side) -> Orders {
    let mut stacks: Vec<(Hex, usize)> = Vec::new();
    for s in state.stacks() {
        if s.side != side {
            continue;
        }
        let land = s
            .units
            .iter()
            .filter(|u| super::marches_by_land(scn, u))
            .count();
        if land > 0 {
            stacks.push((s.hex, land));
        }
    }
    stacks.sort_by_key(|(h, n)| (std::cmp::Reverse(*n), h.row, h.col));
    let enemy = side.enemy();
    let held_by = |who: Side| -> Vec<Hex> {
        let mut v: Vec<Hex> = scn
            .map
            .places()
            .iter()
            .filter(|p| p.kind.is_settlement())
            .map(|p| p.hex)
            .filter(|h| {
                // The British fleet holds no hex (8.25): a town with only
                // the fleet off it is not held.
                state.units.iter().any(|u| {
                    u.side == who
                        && u.hex() == Some(*h)
                        && scn
                            .units
                            .get(&u.unit_type)
                            .is_none_or(|t| t.kind != crate::scenario::UnitKind::Fleet)
                })
            })
            .collect();
        v.sort_by_key(|h| (h.row, h.col));
        v.dedup();
        v
    };
    let enemy_towns = held_by(enemy);
    let own_towns = held_by(side);
    let besieged: Vec<Hex> = own_towns
        .iter()
        .copied()
        .filter(|t| {
            t.neighbours().iter().any(|n| {
                state
                    .units
                    .iter()
                    .any(|u| u.side == enemy && u.hex() == Some(*n))
            })
        })
        .collect();
    let nearest = |from: Hex, to: &[Hex]| {
        to.iter()
            .copied()
            .min_by_key(|h| (from.distance(*h), h.row, h.col))
    };
    let mut marches = Vec::new();
    let mut relief_sent = false;
    for (hex, n) in stacks {
        let in_town = scn.map.settlement_at(hex).is_some();
        let target = match side {
            Side::Mahdist if n >= 3 => nearest(hex, &enemy_towns).filter(|t| t.distance(hex) <= 30),
            Side::Egyptian if !relief_sent && !in_town && n >= 3 => {
                relief_sent = true;
                nearest(hex, &besieged).or_else(|| nearest(hex, &own_towns))
            }
            Side::Egyptian if !in_town => nearest(hex, &own_towns),
            _ => None,
        };
        let Some(target) = target.filter(|t| *t != hex) else {
            continue;
        };
        marches.push(MarchOrder {
            units: Selection::Stack(hex),
            legs: vec![Leg::To(target); 3],
            on_contact: if side == Side::Mahdist || besieged.contains(&target) {
                OnContact::AttackAny
            } else {
                OnContact::Avoid
            },
            continue_after_win: true,
            ..MarchOrder::stack(hex, Vec::new())
        });
    }
    Orders {
        marches,
        ..Orders::default()
    }
}
