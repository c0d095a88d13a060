//! Combat (rules 9.1-9.9, 9.12) on the real map with fixed dice.

mod common;

use common::bench::{Bench, march};
use dervish::engine::TurnResult;
use dervish::engine::events::Event;
use dervish::engine::orders::{Leg, OnContact, Orders};
use dervish::geo::Hex;
use dervish::scenario::Side;

/// Two open clear hexes side by side (no river between), neither a
/// settlement, with open ground around: a battlefield in the Bayuda.
fn field(b: &Bench) -> (Hex, Hex) {
    let m = &b.scn.map;
    let open = |h: Hex| {
        m.is_land(h)
            && m.settlement_at(h).is_none()
            && !m.is_riverside(h)
            && m.terrain(h) == Some(dervish::geo::Terrain::Clear)
    };
    // The first hex, row by row from the Bayuda southwards, with open clear
    // ground for three hexes around it and its eastern neighbour.
    m.hexes()
        .filter(|h| h.row >= 28 && h.col >= 6)
        .find_map(|a| {
            let d = Hex::new(a.col + 2, a.row)
                .neighbours()
                .into_iter()
                .find(|x| x.distance(a) == 1)?;
            let ok = a
                .within(3)
                .into_iter()
                .chain(d.within(3))
                .all(|h| m.contains(h) && open(h));
            ok.then_some((a, d))
        })
        .unwrap()
}

fn attack(from: Hex, at: Hex) -> Orders {
    let mut o = march(from, vec![Leg::Path(vec![])]);
    o.marches[0].on_contact = OnContact::AttackHexes(vec![at]);
    o
}

#[test]
fn combat_events_show_every_roll_with_its_modifiers_and_line() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    b.place("brit-inf", 3, &a.to_string());
    b.place("mah-S", 3, &d.to_string());
    let r = b.play(Side::Egyptian, &attack(a, d), &[6, 6, 4, 3, 2, 5, 3, 3]);
    let lines: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled(t) if t.table == "fire table" || t.table == "melee table" => {
                Some(format!(
                    "{} {:?} {:?} = {} -> {}",
                    t.table, t.roll.dice, t.modifiers, t.total, t.line
                ))
            }
            _ => None,
        })
        .collect();
    common::golden("combat-rolls.txt", &(lines.join("\n") + "\n"));
}

/// The Egyptian units disrupted and eliminated, in the order of the log,
/// with whether the owner's orders decided each.
fn losses(r: &TurnResult) -> Vec<(String, &'static str, bool)> {
    use dervish::engine::events::Decision;
    let egyptian = |id: &str| r.state.unit(id).is_some_and(|u| u.side == Side::Egyptian);
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::Disrupted {
                unit, decided_by, ..
            } => Some((
                unit.0.to_string(),
                "disrupted",
                *decided_by == Decision::Orders,
            )),
            Event::Eliminated {
                unit, decided_by, ..
            } => Some((
                unit.0.to_string(),
                "eliminated",
                *decided_by == Decision::Orders,
            )),
            _ => None,
        })
        .filter(|(u, _, _)| egyptian(u))
        .collect()
}

#[test]
fn rule_9_4_a_civilian_is_eliminated_only_after_every_other_unit_of_its_stack() {
    // "civilians may not be eliminated (by either player) until all other
    // units are eliminated": the Khartoum garrison of civilians, L and R
    // infantry, hit by fire and melee of every strength.
    for (fire, melee) in [
        ([1, 1], [1, 1]),
        ([4, 4], [3, 4]),
        ([6, 6], [6, 6]),
        ([6, 5], [5, 5]),
        ([3, 2], [6, 6]),
    ] {
        let mut b = Bench::new("khartoum");
        let (a, d) = field(&b);
        b.place("mah-R", 12, &a.to_string());
        let civ = b.place("civilian", 1, &d.to_string());
        let mut others = b.place("egy-inf-L", 2, &d.to_string());
        others.extend(b.place("egy-inf-R", 2, &d.to_string()));
        // Mahdist march 6+6; fire Mahdist then Egyptian; melee the same.
        let faces = [6, 6, fire[0], fire[1], 1, 1, melee[0], melee[1], 1, 1];
        let r = b.play(Side::Mahdist, &attack(a, d), &faces);
        let hit = losses(&r);
        assert!(!hit.is_empty(), "{fire:?} {melee:?}: no losses at all");
        let civ_gone = hit
            .iter()
            .position(|(u, what, _)| **u == *civ[0].0 && *what == "eliminated");
        let others_gone_before = civ_gone.map(|c| {
            hit[..c]
                .iter()
                .filter(|(_, what, _)| *what == "eliminated")
                .count()
        });
        assert!(
            civ_gone.is_none() || others_gone_before == Some(others.len()),
            "{fire:?} {melee:?}: the civilian went first: {hit:?}"
        );
        // And the civilian stands while any other unit does.
        let civ_here = b.at(&r, &civ[0]).is_some();
        let any_other = others.iter().any(|u| b.at(&r, u).is_some());
        assert!(
            civ_here || !any_other,
            "{fire:?} {melee:?}: civilian lost, others stand: {hit:?}"
        );
    }
}
