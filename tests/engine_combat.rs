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

fn results(r: &TurnResult) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::CombatResult { result, .. } => Some(result.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn rule_9_8_marching_loser_retreats_along_its_route() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    // Egyptian S irregulars march two hexes west, then attack a big ansar stack.
    let start = Hex::new(a.col - 2, a.row);
    let mid = Hex::new(a.col - 1, a.row);
    assert_eq!(start.distance(a), 2);
    let path = vec![
        start
            .neighbours()
            .into_iter()
            .find(|h| h.distance(a) == 1)
            .unwrap_or(mid),
        a,
    ];
    let egy = b.place("egy-inf-S", 2, &start.to_string());
    b.place("mah-S", 8, &d.to_string());
    let mut o = march(start, vec![Leg::Path(path.clone())]);
    o.marches[0].on_contact = OnContact::AttackHexes(vec![d]);
    // March 6+6; no fire from S units; melee Egyptian 1+1, Mahdist 6+6.
    let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1, 6, 6]);
    assert_eq!(results(&r), vec!["Mahdist won"]);
    let back = path[0];
    for id in &egy {
        let h = b.at(&r, id);
        assert!(
            h.is_none() || h == Some(back),
            "{id} at {h:?}, expected {back}"
        );
    }
    assert!(r.events.iter().any(
        |e| matches!(e, Event::Retreat { side: Side::Egyptian, to: Some(h), .. } if *h == back)
    ));
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

#[test]
fn rule_9_5_losses_fall_on_the_worst_units_first_and_civilians_last() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    b.place("mah-S", 12, &a.to_string());
    let civ = b.place("civilian", 1, &d.to_string());
    let r_units = b.place("egy-inf-R", 1, &d.to_string());
    let s_units = b.place("egy-inf-S", 2, &d.to_string());
    // Mahdist march 6+6; Egyptian R fires 1+1; melee Mahdist 6+6, Egyptian 1+1.
    let r = b.play(
        Side::Mahdist,
        &attack(a, d),
        &[6, 6, 1, 1, 6, 6, 1, 1, 6, 6, 6, 6],
    );
    // Melee 6+6 +2 charge -1 S quality +2 ratio 300 = 15: S 60/25, R 60/20.
    // The S class (the civilians and two irregulars) suffers one
    // elimination and one disruption, the R class the same; the cap (the
    // whole stack as S: 60% and 25% of 4) is two disruptions and one
    // elimination. The worst affected class, S, takes its results first,
    // on its irregulars, civilians last; the R battalion takes the other
    // disruption.
    assert_eq!(
        losses(&r),
        vec![
            (s_units[0].0.to_string(), "eliminated", false),
            (s_units[1].0.to_string(), "disrupted", false),
            (r_units[0].0.to_string(), "disrupted", false),
        ]
    );
    assert!(b.at(&r, &civ[0]).is_some(), "the civilians are untouched");
}

#[test]
fn rule_9_2_a_combat_is_against_one_hex_from_one_hex() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    b.place("brit-inf", 6, &a.to_string());
    b.place("mah-S", 1, &d.to_string());
    let other = a
        .neighbours()
        .into_iter()
        .find(|h| *h != d && h.distance(d) == 1)
        .unwrap();
    b.place("mah-S", 1, &other.to_string());
    let mut o = attack(a, d);
    o.marches[0].on_contact = OnContact::AttackAny;
    let r = b.play(
        Side::Egyptian,
        &o,
        &[6, 6, 6, 6, 6, 6, 1, 1, 6, 6, 6, 6, 1, 1],
    );
    let fights: Vec<(Hex, usize)> = r
        .events
        .iter()
        .filter_map(|e| match e {
            Event::CombatBegins {
                defender,
                defenders,
                ..
            } => Some((*defender, defenders.len())),
            _ => None,
        })
        .collect();
    assert_eq!(fights.len(), 2, "two separate combats: {fights:?}");
    assert!(fights.iter().all(|(_, n)| *n == 1));
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

#[test]
fn rule_9_4_no_second_disruption_while_any_unit_of_the_stack_is_in_good_order() {
    // Two disrupted S irregulars and three good-order British battalions.
    // Melee 7-8 against S is 30/5: one disruption and one elimination for
    // the S class, and the cap (the whole stack as S: 30% and 5% of 5) is
    // one of each. The disruption may not fall on the second disrupted S
    // unit (that would eliminate it, a second elimination beyond the cap):
    // it falls on a British battalion.
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    b.place("mah-S", 5, &a.to_string());
    let s = b.place("egy-inf-S", 2, &d.to_string());
    let v = b.place("brit-inf", 3, &d.to_string());
    for u in b.state.units.iter_mut().filter(|u| s.contains(&u.id)) {
        u.disrupted = true;
    }
    // Mahdist march 6+6; British fire 1+1; melee Mahdist 3+3 (+2 charge,
    // -1 S quality, ratio 100: 7), British 1+1.
    let r = b.play(Side::Mahdist, &attack(a, d), &[6, 6, 1, 1, 3, 3, 1, 1]);
    let hit = losses(&r);
    let eliminated: Vec<&str> = hit
        .iter()
        .filter(|(_, w, _)| *w == "eliminated")
        .map(|(u, _, _)| u.as_str())
        .collect();
    let disrupted: Vec<&str> = hit
        .iter()
        .filter(|(_, w, _)| *w == "disrupted")
        .map(|(u, _, _)| u.as_str())
        .collect();
    assert_eq!(eliminated, vec![s[0].0.as_ref()], "{hit:?}");
    assert_eq!(disrupted.len(), 1, "{hit:?}");
    assert!(v.iter().any(|u| *u.0 == *disrupted[0]), "{hit:?}");
}

#[test]
fn rule_9_4_gunboats_in_the_stack_shield_the_civilians_in_melee() {
    // "civilians may not be eliminated (by either player) until all other
    // units are eliminated": Gordon's steamers are units of the stack,
    // though the melee round cannot hit them (9.5).
    let mut b = Bench::new("khartoum");
    let k = b.hex("Khartoum");
    let from = k
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h) && !b.scn.map.crosses_river(*h, k))
        .unwrap();
    b.place("mah-S", 12, &from.to_string());
    let civ = b.place("civilian", 1, "Khartoum");
    let r_unit = b.place("egy-inf-R", 1, "Khartoum");
    let boats = b.place("egy-gunboat", 1, "Khartoum");
    for u in b.state.units.iter_mut() {
        if civ.contains(&u.id) || r_unit.contains(&u.id) {
            u.disrupted = true;
        }
    }
    // Mahdist march 6+6; Egyptian fire 1+1; melee Mahdist 6+6 (11 after
    // modifiers: R 50/10, S 50/15; capped at one disruption and one
    // elimination), Egyptian 1+1.
    let r = b.play(Side::Mahdist, &attack(from, k), &[6, 6, 1, 1, 6, 6, 1, 1]);
    let hit = losses(&r);
    assert_eq!(
        hit.iter()
            .filter(|(_, w, _)| *w == "eliminated")
            .map(|(u, _, _)| u.as_str())
            .collect::<Vec<_>>(),
        vec![r_unit[0].0.as_ref()],
        "{hit:?}"
    );
    assert_eq!(b.at(&r, &civ[0]), Some(k), "{hit:?}");
    assert_eq!(b.at(&r, &boats[0]), Some(k));
}

#[test]
fn rule_8_31_the_marching_player_may_give_up_a_disrupted_unit_to_march_attrition() {
    // "The marching player decides which units to be disrupted, disrupted
    // units may be eliminated to satisfy this loss."
    let mut b = Bench::new("khartoum");
    let inf = b.place("egy-inf-S", 3, "Berber");
    for u in b.state.units.iter_mut().filter(|u| u.id == inf[2]) {
        u.disrupted = true;
    }
    let from = b.hex("Berber");
    let mut o = march(from, vec![Leg::To(b.hex("Khartoum"))]);
    o.marches[0].lose_first = vec![inf[2].clone()];
    // 2+2 = 4: March with 50% attrition: one unit of three.
    let r = b.play(Side::Egyptian, &o, &[2, 2]);
    assert_eq!(losses(&r), vec![(inf[2].0.to_string(), "eliminated", true)]);
    assert!(!r.state.unit(&inf[0].0).unwrap().disrupted);
    // Unnamed, the loss disrupts a good-order unit.
    o.marches[0].lose_first.clear();
    let r = b.play(Side::Egyptian, &o, &[2, 2]);
    assert_eq!(losses(&r), vec![(inf[0].0.to_string(), "disrupted", false)]);
}
