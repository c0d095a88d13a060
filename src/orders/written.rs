//! The engine's orders as a player writes them: the way back from
//! [`Orders`] to a [`Sheet`], so that orders made by a program (the
//! programmed players, the simulations) are printed in the order language
//! and go through the same parser and checker as a player's mail.

use super::{Item, LegOrder, Order, Sheet};
use crate::engine::orders::{Leg, Orders};

/// The sheet a player would write for `orders`: marches in their order,
/// then every other order. Line numbers count from 1; the text of each
/// line is left empty (print the sheet with [`super::print::sheet`]).
/// Reading the printed sheet and checking it gives back the same orders
/// (`tests/player_text.rs` holds it over 200 simulated months).
pub fn sheet(orders: &Orders) -> Sheet {
    // Every field named, so a new kind of order cannot be left out here.
    let Orders {
        marches,
        expend_supply,
        keep_supply,
        place,
        place_parts,
        withdraw,
        dismount,
        railway,
        event_losses,
        standing_lose_first,
        setup,
    } = orders;
    let mut items: Vec<Order> = Vec::new();
    for s in setup {
        items.push(Order::Setup(s.clone()));
    }
    for m in marches {
        items.push(Order::March(m.map_legs(|l| match l {
            Leg::To(h) => LegOrder::To(*h),
            Leg::Path(p) => LegOrder::Path(p.clone()),
            Leg::Rail(h) => LegOrder::Rail(*h),
            Leg::River(h) => LegOrder::River { to: *h, way: None },
            Leg::Fleet(h) => LegOrder::Fleet(*h),
        })));
    }
    items.extend(expend_supply.iter().map(|h| Order::ExpendSupply(*h)));
    items.extend(keep_supply.iter().map(|h| Order::KeepSupply(*h)));
    for (reinforcement, at) in place {
        items.push(Order::Place {
            reinforcement: reinforcement.clone(),
            at: *at,
        });
    }
    for (reinforcement, parts) in place_parts {
        for (part, at) in parts {
            items.push(Order::PlacePart {
                reinforcement: reinforcement.clone(),
                part: part.clone(),
                at: *at,
            });
        }
    }
    if !withdraw.is_empty() {
        items.push(Order::Withdraw(withdraw.clone()));
    }
    for (a, b) in dismount {
        items.push(Order::Dismount(a.clone(), b.clone()));
    }
    if let Some(r) = railway {
        items.push(Order::Railway(r.clone()));
    }
    if !event_losses.is_empty() {
        items.push(Order::EventLosses(event_losses.clone()));
    }
    if !standing_lose_first.is_empty() {
        items.push(Order::DefendLoseFirst(standing_lose_first.clone()));
    }
    Sheet {
        header: Default::default(),
        items: items
            .into_iter()
            .enumerate()
            .map(|(i, order)| Item {
                line: i + 1,
                text: String::new(),
                order,
            })
            .collect(),
    }
}
