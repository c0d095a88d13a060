//! The house rules' refusals (docs/rules.md, "House rules (optional
//! variants)"): orders the rules as written allow and a variant chosen for
//! the game does not. Applied to a sheet once it is checked, so a
//! player's mail and a programmed player's orders are refused alike.

use super::checked::{CheckError, Checked};
use super::{Item, Order};
use crate::scenario::Scenario;
use crate::state::GameState;
use crate::state::variant::Variant;

/// Refuse, in `out`, the orders of `items` that a house rule of the game
/// forbids: each leaves the orders given to the engine, with a message
/// that says which rule and what to write instead.
pub fn refuse(items: &[Item], scn: &Scenario, state: &GameState, out: &mut Checked) {
    for v in &state.options.variants {
        match v {
            Variant::GordonStays => keep_in_town(*v, items, scn, state, out),
            // Allows what the rules as written refuse (9.12): the march
            // phase and the checker's plan allow it (engine::river).
            Variant::SteamersRunTheSiege => {}
        }
    }
}

/// Gordon stays (house rule `gordon-stays`): no march or set-up order may
/// take him out of Khartoum. A march that takes him along from there is
/// refused whole; a set-up order that puts him elsewhere too. Where he is
/// not in the town (another scenario, or not yet arrived) nothing is
/// refused.
fn keep_in_town(v: Variant, items: &[Item], scn: &Scenario, state: &GameState, out: &mut Checked) {
    let Some((leader, town)) = v.kept() else {
        return;
    };
    let Ok(hex) = scn.map.resolve(town) else {
        return;
    };
    let named = |ls: &[String]| ls.iter().any(|l| l.eq_ignore_ascii_case(leader));
    let message = format!(
        "{leader} stays in {town}: the game's house rule {v} lets no order take him out of it; \
         march the units without him (leave \"WITH {leader}\" out, and use MARCH UNITS, not MARCH STACK)"
    );
    let mut k = 0;
    while k < out.plans.len() {
        let (i, p) = &out.plans[k];
        let leaves = p.from == hex && named(&p.leaders) && p.legs.iter().any(|l| l.end != hex);
        if !leaves {
            k += 1;
            continue;
        }
        let item = &items[*i];
        out.conditional.retain(|c| c.line != item.line);
        out.errors.push(error(item, &message));
        out.plans.remove(k);
        out.orders.marches.remove(k);
    }
    let in_town = state
        .leaders
        .iter()
        .any(|l| l.name.eq_ignore_ascii_case(leader) && l.hex.is_none_or(|h| h == hex));
    for item in items {
        if let Order::Setup(o) = &item.order
            && in_town
            && named(&o.leaders)
            && o.at != hex
            && let Some(k) = out.orders.setup.iter().position(|s| s == o)
        {
            out.orders.setup.remove(k);
            out.errors.push(error(
                item,
                &format!("{leader} sets up in {town}: the game's house rule {v} keeps him there"),
            ));
        }
    }
}

fn error(item: &Item, message: &str) -> CheckError {
    CheckError {
        line: item.line,
        text: item.text.clone(),
        message: message.to_string(),
    }
}
