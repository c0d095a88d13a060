//! Rules the engine once got wrong: victory (4.1), sieges for every kind of
//! move (9.12), the fleet (8.25), retreats (9.8), the lone leader (7.0),
//! the halt after a win (8.31) and the stack a march order moves (8.3).
//! Each test quotes the rule it checks.

mod common;

use common::bench::{Bench, march, rolls, set_aside, stopped};
use dervish::engine::TurnResult;
use dervish::engine::events::{Event, Phase};
use dervish::engine::orders::{Leg, MarchOrder, OnContact, Orders, Selection};
use dervish::geo::{Hex, Terrain};
use dervish::scenario::Side;
use dervish::state::Status;

/// Two open clear hexes side by side, as in tests/engine_combat.rs.
fn field(b: &Bench) -> (Hex, Hex) {
    let m = &b.scn.map;
    let open = |h: Hex| {
        m.is_land(h)
            && m.settlement_at(h).is_none()
            && !m.is_riverside(h)
            && m.terrain(h) == Some(Terrain::Clear)
    };
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
        .expect("an open battlefield")
}

/// A land hex next to `hex` that no river separates from it.
fn beside(b: &Bench, hex: Hex, not: &[Hex]) -> Hex {
    hex.neighbours()
        .into_iter()
        .find(|h| {
            b.scn.map.is_land(*h)
                && !b.scn.map.crosses_river(hex, *h)
                && b.scn.map.settlement_at(*h).is_none()
                && !not.contains(h)
        })
        .expect("a land hex beside it")
}

fn notes(r: &TurnResult) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn victory_status(r: &TurnResult) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match e {
            Event::VictoryCheck { condition, status } => Some(format!("{condition}: {status}")),
            _ => None,
        })
        .collect()
}

fn attack_any(from: Hex, legs: Vec<Leg>) -> Orders {
    let mut o = march(from, legs);
    o.marches[0].on_contact = OnContact::AttackAny;
    o
}

// ---------------------------------------------------------------- 4.1

/// 4.1: "The Egyptian player wins if neither El Obeid nor Khartoum are under
/// siege at the end of 3 consecutive Egyptian player turns." A fallen El
/// Obeid, held by the Mahdists, is not relieved.
#[test]
fn rule_4_1_a_fallen_el_obeid_is_not_relieved() {
    let mut b = Bench::new("el-obeid");
    let obeid = b.hex("El Obeid");
    let khartoum = b.hex("Khartoum");
    b.place("mah-S", 2, "El Obeid");
    b.place("egy-inf-L", 2, "Khartoum");
    b.state.control.insert(obeid, Side::Mahdist);
    b.state.control.insert(khartoum, Side::Egyptian);
    b.state.counters.insert("victory-0".into(), 2);
    let r = b.play(Side::Egyptian, &Orders::default(), &[]);
    assert_eq!(r.state.result, None, "{:?}", victory_status(&r));
    assert_eq!(r.state.counters.get("victory-0"), Some(&0));
    let status = victory_status(&r);
    assert!(
        status
            .iter()
            .any(|s| s.contains("El Obeid is held by the Mahdists")),
        "{status:?}"
    );
}

/// 4.1: an empty El Obeid with no garrison, last held by the Egyptians and
/// with no Mahdist next to it, counts as not under siege; with a Mahdist
/// next to it, it does not.
#[test]
fn rule_4_1_an_empty_egyptian_town_with_mahdists_beside_it_is_not_relieved() {
    let mut b = Bench::new("el-obeid");
    let obeid = b.hex("El Obeid");
    let khartoum = b.hex("Khartoum");
    b.place("egy-inf-L", 2, "Khartoum");
    b.state.control.insert(obeid, Side::Egyptian);
    b.state.control.insert(khartoum, Side::Egyptian);
    b.state.counters.insert("victory-0".into(), 2);
    let r = b.play(Side::Egyptian, &Orders::default(), &[]);
    assert_eq!(r.state.counters.get("victory-0"), Some(&3));
    assert!(
        r.state
            .result
            .is_some_and(|g| g.winner == Some(Side::Egyptian))
    );

    let next = beside(&b, obeid, &[]);
    b.place("mah-S", 1, &next.to_string());
    let r = b.play(Side::Egyptian, &Orders::default(), &[]);
    assert_eq!(r.state.counters.get("victory-0"), Some(&0));
    assert_eq!(r.state.result, None);
}

/// 4.1: "The Egyptian player wins instantly if the Khalifa leader is
/// eliminated." The game ends when it happens: the next march order is not
/// carried out and the later phases are not played.
#[test]
fn rule_4_1_the_khalifas_death_ends_the_game_at_once() {
    let mut b = Bench::new("el-obeid");
    let (a, d) = field(&b);
    b.place("brit-inf", 6, &a.to_string());
    b.place("mah-S", 1, &d.to_string());
    b.leader("Khalifa", &d.to_string());
    let khartoum = b.hex("Khartoum");
    b.place("egy-inf-L", 1, "Khartoum");
    let mut o = attack_any(a, vec![Leg::Path(vec![])]);
    o.marches.push(MarchOrder::stack(
        khartoum,
        vec![Leg::To(b.hex("Omdurman"))],
    ));
    // March 6+6; British fire 6+6 eliminates the lone S unit; the Khalifa
    // is left alone and removed (7.2).
    let r = b.play(Side::Egyptian, &o, &[6, 6, 6, 6]);
    let over = r
        .events
        .iter()
        .position(|e| matches!(e, Event::GameOver { .. }))
        .expect("the game ends");
    let Some(Event::GameOver { result }) = r.events.get(over) else {
        panic!("no GameOver event");
    };
    assert!(result.contains("Khalifa eliminated"), "{result}");
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, Event::MarchBegins { order: 1, .. })),
        "the second march order is not carried out after the game ended"
    );
    assert!(!r.events.iter().any(|e| matches!(
        e,
        Event::PhaseBegins {
            phase: Phase::Attrition,
            ..
        }
    )));
    assert_eq!(
        r.events
            .iter()
            .filter(|e| matches!(e, Event::GameOver { .. }))
            .count(),
        1
    );
}

// ---------------------------------------------------------------- 9.12

/// 9.12: "Units under siege may only leave their hex if all adjacent enemy
/// units have 1st been driven away by combat." Also by rail.
#[test]
fn rule_9_12_a_besieged_stack_does_not_leave_by_rail() {
    let mut b = Bench::new("khartoum");
    let halfa = b.hex("Wady Halfa");
    let sarras = b.hex("Sarras");
    let egy = b.place("egy-inf-L", 2, "Wady Halfa");
    let next = beside(&b, halfa, &[]);
    b.place("mah-S", 1, &next.to_string());
    let mut o = march(halfa, vec![Leg::Rail(sarras)]);
    // An attack order that finds nothing to attack: the siege stands.
    o.marches[0].on_contact = OnContact::AttackHexes(vec![Hex::new(1, 1)]);
    let r = b.play(Side::Egyptian, &o, &[]);
    for id in &egy {
        assert_eq!(b.at(&r, id), Some(halfa));
    }
    assert!(
        stopped(&r).iter().any(|s| s.contains("still under siege")),
        "{:?}",
        stopped(&r)
    );
}

/// 9.12: "No new friendly unit may enter the besieged hex until all enemy
/// units adjacent to that hex have been removed by combat." Relief steamers
/// carrying British supply do not sail into a besieged Khartoum.
#[test]
fn rule_9_12_no_steamer_sails_into_a_besieged_town() {
    let mut b = Bench::new("khartoum");
    let khartoum = b.hex("Khartoum");
    b.place("egy-inf-L", 2, "Khartoum");
    let next = beside(&b, khartoum, &[b.hex("Omdurman")]);
    b.place("mah-S", 1, &next.to_string());
    let start = b.hex("Metammeh");
    b.place("brit-gunboat", 1, "Metammeh");
    let supply = b.place("brit-supply", 1, "Metammeh");
    let o = march(start, vec![Leg::River(khartoum)]);
    let r = b.play(Side::Egyptian, &o, &[]);
    assert_ne!(b.at(&r, &supply[0]), Some(khartoum));
    assert!(
        set_aside(&r)
            .iter()
            .any(|s| s.contains("under siege: no new unit may enter")),
        "{:?}",
        set_aside(&r)
    );
}

/// 9.12 and 8.25: the fleet does not land units in a besieged hex.
#[test]
fn rule_9_12_the_fleet_does_not_land_in_a_besieged_hex() {
    let mut b = Bench::new("khartoum");
    let souakim = b.hex("Souakim");
    let trinkitat = b.hex("Trinkitat");
    b.place("egy-inf-R", 1, "Trinkitat");
    let next = beside(&b, trinkitat, &[]);
    b.place("mah-S", 1, &next.to_string());
    b.place("fleet", 1, "Souakim");
    let egy = b.place("egy-inf-R", 2, "Souakim");
    let o = march(souakim, vec![Leg::Fleet(trinkitat)]);
    let r = b.play(Side::Egyptian, &o, &[6, 6]);
    for id in &egy {
        assert_eq!(b.at(&r, id), Some(souakim));
    }
    assert!(
        set_aside(&r).iter().any(|s| s.contains("under siege")),
        "{:?}",
        set_aside(&r)
    );
}

/// Ruling on 9.12 with 6.1 (docs/rules.md): enemy boats and gunboats alone
/// do not besiege, since land units may not attack them and the garrison
/// could never leave. A lone Mahdist gunboat beside Omdurman leaves its
/// garrison free to march.
#[test]
fn ruling_9_12_a_lone_gunboat_does_not_besiege() {
    let mut b = Bench::new("khartoum");
    let omdurman = b.hex("Omdurman");
    let egy = b.place("egy-inf-L", 1, "Omdurman");
    b.place("mah-gunboat", 1, "Khartoum");
    let dest = omdurman
        .neighbours()
        .into_iter()
        .find(|h| {
            b.scn.map.is_land(*h)
                && !b.scn.map.crosses_river(omdurman, *h)
                && *h != b.hex("Khartoum")
        })
        .expect("a hex west of Omdurman");
    let o = march(omdurman, vec![Leg::Path(vec![dest])]);
    let r = b.play(Side::Egyptian, &o, &[6, 6]);
    assert!(set_aside(&r).is_empty(), "{:?}", set_aside(&r));
    assert_eq!(b.at(&r, &egy[0]), Some(dest));
}

// ---------------------------------------------------------------- 6.1

/// 6.1: "Land units may not attack enemy boats or gunboats". An ATTACK on a
/// hex holding only enemy river units is not made, and the log says why.
#[test]
fn rule_6_1_an_attack_on_river_units_by_land_units_is_dropped_with_a_reason() {
    let mut b = Bench::new("khartoum");
    let omdurman = b.hex("Omdurman");
    let khartoum = b.hex("Khartoum");
    b.place("egy-inf-L", 2, "Omdurman");
    b.place("mah-boat", 1, "Khartoum");
    let mut o = march(omdurman, vec![Leg::Path(vec![])]);
    o.marches[0].on_contact = OnContact::AttackHexes(vec![khartoum]);
    let r = b.play(Side::Egyptian, &o, &[6, 6]);
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, Event::CombatBegins { .. }))
    );
    assert!(
        set_aside(&r)
            .iter()
            .any(|s| s.contains("land units may not attack them") && s.contains("(6.1)")),
        "{:?}",
        set_aside(&r)
    );
}

// ---------------------------------------------------------------- 8.25

/// 8.25: the fleet "cannot be destroyed in combat but is removed if Souakim
/// is Mahdist controlled". It holds no hex: a lone fleet does not keep the
/// Mahdists out of Souakim, and leaves when they take it.
#[test]
fn rule_8_25_a_lone_fleet_does_not_hold_souakim() {
    let mut b = Bench::new("khartoum");
    let souakim = b.hex("Souakim");
    b.state.control.insert(souakim, Side::Egyptian);
    b.place("fleet", 1, "Souakim");
    let next = beside(&b, souakim, &[]);
    let ansar = b.place("mah-S", 2, &next.to_string());
    let o = march(next, vec![Leg::Path(vec![souakim])]);
    let r = b.play(Side::Mahdist, &o, &[6, 6]);
    for id in &ansar {
        assert_eq!(b.at(&r, id), Some(souakim));
    }
    assert_eq!(r.state.control.get(&souakim), Some(&Side::Mahdist));
    let fleet = r
        .state
        .units
        .iter()
        .find(|u| &*u.unit_type == "fleet")
        .expect("the fleet counter");
    assert_eq!(fleet.status, Status::Reserve);
    assert!(
        r.events
            .iter()
            .all(|e| !matches!(e, Event::CombatBegins { .. }))
    );
}

/// 8.25: "Units may use this naval move any number of times in a march but
/// must still roll a march result to move." A move with the fleet and the
/// land march after it are one march with one roll.
#[test]
fn rule_8_25_a_move_with_the_fleet_is_part_of_a_march() {
    let mut b = Bench::new("khartoum");
    let souakim = b.hex("Souakim");
    let trinkitat = b.hex("Trinkitat");
    b.place("fleet", 1, "Souakim");
    let egy = b.place("egy-inf-R", 2, "Souakim");
    let inland = beside(&b, trinkitat, &[]);
    let o = march(
        souakim,
        vec![Leg::Fleet(trinkitat), Leg::Path(vec![inland])],
    );
    let r = b.play(Side::Egyptian, &o, &[6, 6]);
    assert_eq!(rolls(&r, "march").len(), 1, "{:?}", rolls(&r, "march"));
    for id in &egy {
        assert_eq!(b.at(&r, id), Some(inland));
    }
    // Four moves with the fleet and land marches between them are still
    // three marches at most.
    let o = march(
        souakim,
        vec![
            Leg::Fleet(trinkitat),
            Leg::Path(vec![inland]),
            Leg::Path(vec![trinkitat]),
            Leg::Fleet(souakim),
        ],
    );
    let r = b.play(Side::Egyptian, &o, &[6, 6, 6, 6]);
    assert!(set_aside(&r).is_empty(), "{:?}", set_aside(&r));
    assert_eq!(rolls(&r, "march").len(), 2);
    assert_eq!(b.at(&r, &egy[0]), Some(souakim));
}

/// 8.25: the fleet "returns to Souakim when there is a British infantry unit
/// in Souakim": the Naval Brigade is British infantry.
#[test]
fn rule_8_25_the_naval_brigade_brings_the_fleet_back() {
    let mut b = Bench::new("khartoum");
    let souakim = b.hex("Souakim");
    b.state.control.insert(souakim, Side::Egyptian);
    b.place("naval-infantry", 1, "Souakim");
    let i = b
        .state
        .units
        .iter()
        .position(|u| &*u.unit_type == "fleet")
        .expect("the fleet counter");
    b.state.units[i].status = Status::Reserve;
    let r = b.play(Side::Egyptian, &Orders::default(), &[]);
    assert_eq!(r.state.units[i].status, Status::OnMap(souakim));
}

// ---------------------------------------------------------------- 9.8

/// 9.4: "Any units belonging to the marching player which are present in
/// the same hex as the marching stack but did not begin the game turn as
/// part of that stack may not take part in combat." They did not lose it,
/// so they do not retreat with the losers (9.8).
#[test]
fn rule_9_8_units_kept_out_of_the_combat_do_not_retreat() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    let attackers = b.place("egy-inf-S", 1, &a.to_string());
    let others = b.place("egy-inf-L", 2, &a.to_string());
    b.place("mah-S", 8, &d.to_string());
    let mut o = march(a, vec![Leg::Path(vec![])]);
    o.marches[0].units = Selection::Units {
        units: attackers.clone(),
        leaders: vec![],
    };
    o.marches[0].on_contact = OnContact::AttackHexes(vec![d]);
    // March 6+6; no Egyptian fire; melee Egyptian 1+1, Mahdist 6+6.
    let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1, 6, 6]);
    let lost = r
        .events
        .iter()
        .any(|e| matches!(e, Event::CombatResult { result, .. } if result == "Mahdist won"));
    assert!(lost, "the attack is lost");
    for id in &others {
        assert_eq!(b.at(&r, id), Some(a), "{id} took no part and stays");
    }
    assert_ne!(b.at(&r, &attackers[0]), Some(a));
}

/// 9.8: "Losing stacks in towns and villages never have to retreat", and a
/// marching loser retreats "as above": in a town it stays unless ordered.
#[test]
fn rule_9_8_a_marching_loser_in_a_town_stays() {
    let mut b = Bench::new("khartoum");
    let berber = b.hex("Berber");
    let from = berber
        .neighbours()
        .into_iter()
        .find(|h| b.scn.map.is_land(*h) && !b.scn.map.crosses_river(*h, berber))
        .expect("a land hex beside Berber");
    let enemy = berber
        .neighbours()
        .into_iter()
        .find(|h| {
            b.scn.map.is_land(*h)
                && !b.scn.map.crosses_river(*h, berber)
                && *h != from
                && h.distance(from) > 1
        })
        .expect("another land hex beside Berber");
    let egy = b.place("egy-inf-S", 2, &from.to_string());
    b.place("mah-S", 8, &enemy.to_string());
    let mut o = march(from, vec![Leg::Path(vec![berber])]);
    o.marches[0].on_contact = OnContact::AttackHexes(vec![enemy]);
    // March 6+6; no Egyptian fire; melee Egyptian 1+1, Mahdist 6+6.
    let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1, 6, 6]);
    let lost = r
        .events
        .iter()
        .any(|e| matches!(e, Event::CombatResult { result, .. } if result == "Mahdist won"));
    assert!(lost, "the attack is lost");
    for id in &egy {
        let h = b.at(&r, id);
        assert!(h.is_none() || h == Some(berber), "{id} at {h:?}");
    }
    assert!(r.events.iter().any(|e| matches!(
        e,
        Event::Retreat {
            side: Side::Egyptian,
            to: None,
            ..
        }
    )));
}

/// 9.8: the loser "must retreat up to it's full movement allowance but at
/// least 1 hex": a beaten stack still next to the enemy after one hex goes
/// on (by default until clear of the enemy).
#[test]
fn rule_9_8_a_retreat_goes_on_until_the_stack_is_clear_of_the_enemy() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    b.place("brit-inf", 6, &a.to_string());
    let ansar = b.place("mah-S", 4, &d.to_string());
    // Egyptian pickets two hexes from d on the far side: every hex next to
    // d is then next to an Egyptian stack, so one hex is not enough.
    for h in d.neighbours() {
        if h.distance(a) == 2 {
            let far = h
                .neighbours()
                .into_iter()
                .find(|x| x.distance(d) == 2 && x.distance(a) >= 2)
                .expect("a picket hex");
            if !b.state.units.iter().any(|u| u.hex() == Some(far)) {
                b.place("egy-inf-S", 1, &far.to_string());
            }
        }
    }
    let mut o = march(a, vec![Leg::Path(vec![])]);
    o.marches[0].on_contact = OnContact::AttackHexes(vec![d]);
    // March 6+6; British fire 1+1; melee British 3+3, Mahdist 1+1: the
    // Mahdists lose with two of four units hit.
    let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1, 3, 3, 1, 1]);
    let to = r.events.iter().find_map(|e| match e {
        Event::Retreat {
            side: Side::Mahdist,
            to,
            ..
        } => Some(*to),
        _ => None,
    });
    let Some(Some(end)) = to else {
        panic!("the Mahdist stack retreats: {to:?}");
    };
    let survivors: Vec<Option<Hex>> = ansar.iter().map(|id| b.at(&r, id)).collect();
    assert!(survivors.contains(&Some(end)), "{survivors:?}");
    assert_eq!(end.distance(d), 2, "two hexes, to get clear of the enemy");
    let egyptian: Vec<Hex> = r
        .state
        .units
        .iter()
        .filter(|u| u.side == Side::Egyptian)
        .filter_map(|u| u.hex())
        .collect();
    assert!(
        !end.neighbours().iter().any(|n| egyptian.contains(n)),
        "the retreat ended at {end} next to the enemy"
    );
}

// ---------------------------------------------------------------- 7.0

/// 7.0: "Leaders do not count for stacking and move 8 hexes." Hexes, not
/// movement points: a leader crosses hills that would cost a stack more.
#[test]
fn rule_7_0_a_lone_leader_moves_eight_hexes_whatever_the_terrain() {
    let mut b = Bench::new("khartoum");
    let m = &b.scn.map;
    // A straight line of 8 land hexes costing more than 8 movement points.
    let line = m
        .hexes()
        .find_map(|s| {
            let mut path = Vec::new();
            let mut at = s;
            for _ in 0..8 {
                let n = at.neighbours()[0];
                if !m.is_land(n) || m.crosses_river(at, n) || m.settlement_at(n).is_some() {
                    return None;
                }
                path.push(n);
                at = n;
            }
            let cost: u32 = path
                .iter()
                .filter_map(|h| m.terrain(*h).and_then(|t| t.entry_cost()))
                .sum();
            (cost > 10 && m.is_land(s)).then_some((s, path))
        })
        .expect("a line of rough country");
    let (start, path) = line;
    let end = *path.last().expect("eight hexes");
    b.place("egy-inf-L", 1, &start.to_string());
    b.place("egy-inf-L", 1, &end.to_string());
    b.leader("Baker", &start.to_string());
    let o = Orders {
        marches: vec![MarchOrder {
            units: Selection::Units {
                units: vec![],
                leaders: vec!["Baker".into()],
            },
            ..MarchOrder::stack(start, vec![Leg::Path(path.clone())])
        }],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &o, &[6, 6]);
    let baker = r
        .state
        .leaders
        .iter()
        .find(|l| l.name == "Baker")
        .expect("Baker");
    assert_eq!(baker.hex, Some(end), "{:?}", stopped(&r));
}

// ---------------------------------------------------------------- 8.31

/// 8.31: "The marching stack may continue to move using unused movement
/// points after combat if it won the combat." STOP, the default, halts it:
/// also after a win at the very start of its march.
#[test]
fn rule_8_31_a_win_at_the_start_of_a_march_halts_without_continue() {
    let mut b = Bench::new("khartoum");
    let (a, d) = field(&b);
    let brits = b.place("brit-inf", 6, &a.to_string());
    b.place("mah-S", 1, &d.to_string());
    let away = a
        .neighbours()
        .into_iter()
        .find(|h| h.distance(d) == 2)
        .expect("a hex away from the enemy");
    let o = attack_any(a, vec![Leg::Path(vec![away])]);
    // March 6+6; British fire 6+6 eliminates the lone S unit.
    let dice = [6, 6, 6, 6];
    let r = b.play(Side::Egyptian, &o, &dice);
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, Event::CombatResult { result, .. } if result == "Egyptian won"))
    );
    assert_eq!(b.at(&r, &brits[0]), Some(a), "STOP is the default");
    let mut o = attack_any(a, vec![Leg::Path(vec![away])]);
    o.marches[0].continue_after_win = true;
    let r = b.play(Side::Egyptian, &o, &dice);
    assert_eq!(b.at(&r, &brits[0]), Some(away), "CONTINUE goes on");
}

// ---------------------------------------------------------------- 8.3

/// 8.3: "The marching stack may drop off units but may not pick up units."
/// A stack order moves the stack the player saw when writing it (and the
/// receipt listed); units that arrive in the reinforcement phase stay.
#[test]
fn rule_8_3_units_arriving_this_turn_do_not_join_a_stack_order() {
    let mut b = Bench::new("khartoum");
    let halfa = b.hex("Wady Halfa");
    let sarras = b.hex("Sarras");
    let old = b.place("egy-inf-L", 2, "Wady Halfa");
    // A British battalion due back as a replacement this month (3.3)
    // arrives at Wady Halfa in the reinforcement phase.
    let month = b.state.month;
    let i = b
        .state
        .units
        .iter()
        .position(|u| &*u.unit_type == "brit-inf" && u.status == Status::Pool)
        .expect("a British counter");
    b.state.units[i].status = Status::AwaitingReplacement(month);
    let new = b.state.units[i].id.clone();
    let o = march(halfa, vec![Leg::Rail(sarras)]);
    let r = b.play(Side::Egyptian, &o, &[]);
    assert_eq!(b.at(&r, &new), Some(halfa), "{:?}", notes(&r));
    for id in &old {
        assert_eq!(b.at(&r, id), Some(sarras));
    }
    assert!(
        notes(&r)
            .iter()
            .any(|n| n.contains(&*new.0) && n.contains("arrived")),
        "{:?}",
        notes(&r)
    );
}

// ---------------------------------------------------------------- receipts

/// The receipt for `text`, written against the bench's position.
fn receipt(b: &Bench, side: Side, text: &str) -> dervish::orders::Checked {
    use dervish::orders::{self, Input, Vocabulary};
    let p = orders::parse(&Input::text(text), &Vocabulary::new(&b.scn)).expect("orders read");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    orders::check(&p.sheet, &b.scn, &b.state, side)
}

/// 6.1 on the receipt: an ATTACK by land units on a hex holding only enemy
/// river units is refused, not accepted and then silently dropped.
#[test]
fn rule_6_1_the_receipt_refuses_a_land_attack_on_river_units() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-L", 2, "Omdurman");
    b.place("mah-boat", 1, "Khartoum");
    let c = receipt(
        &b,
        Side::Egyptian,
        "MARCH STACK Omdurman TO 1940 ATTACK Khartoum\n",
    );
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    assert!(
        c.errors[0]
            .message
            .contains("land units may not attack them"),
        "{}",
        c.errors[0].message
    );
    assert!(c.orders.marches.is_empty());
}

/// The ruling on 9.12: the receipt says why a stack with only enemy river
/// units beside it is not under siege.
#[test]
fn ruling_9_12_the_receipt_explains_a_gunboat_beside_a_town() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-L", 2, "Omdurman");
    b.place("mah-gunboat", 1, "Khartoum");
    let c = receipt(&b, Side::Egyptian, "MARCH STACK Omdurman TO 1940\n");
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.message.contains("not under siege")),
        "{:?}",
        c.warnings
    );
}

/// 9.12 on the receipt: a besieged stack ordered to leave by rail is told
/// it goes only if its attacks break the siege.
#[test]
fn rule_9_12_the_receipt_says_a_besieged_stack_leaves_only_after_breaking_the_siege() {
    let mut b = Bench::new("khartoum");
    let halfa = b.hex("Wady Halfa");
    b.place("egy-inf-L", 2, "Wady Halfa");
    let next = beside(&b, halfa, &[]);
    b.place("mah-S", 1, &next.to_string());
    let c = receipt(
        &b,
        Side::Egyptian,
        "MARCH STACK Wady Halfa RAIL TO Sarras\n",
    );
    assert!(
        c.errors.iter().any(|e| e.message.contains("under siege")),
        "{:?}",
        c.errors
    );
    let c = receipt(
        &b,
        Side::Egyptian,
        "MARCH STACK Wady Halfa RAIL TO Sarras ATTACK ANY CONTINUE\n",
    );
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert!(
        c.warnings.iter().any(|w| w
            .message
            .contains("only if its attacks drive every adjacent enemy away")),
        "{:?}",
        c.warnings
    );
}

/// 5.2 IV: a supply order for a hex with no supply unit in the attrition
/// phase is not dropped without a word.
#[test]
fn rule_5_2_a_supply_order_with_no_supply_there_is_said_in_the_log() {
    let mut b = Bench::new("khartoum");
    let berber = b.hex("Berber");
    b.place("egy-inf-R", 1, "Berber");
    let o = Orders {
        expend_supply: vec![berber],
        ..Orders::default()
    };
    let r = b.play(Side::Egyptian, &o, &[]);
    assert!(
        notes(&r)
            .iter()
            .any(|n| n.starts_with("EXPEND SUPPLY AT Berber") && n.contains("set aside")),
        "{:?}",
        notes(&r)
    );
}

/// 8.23 on the receipt: "To move by boat a unit or stack must begin its
/// march phase stacked with sufficient boat or gunboat units"; boats do not
/// march by land (6.0), so a river march after a land march is refused.
#[test]
fn rule_8_23_the_receipt_refuses_a_river_march_after_a_land_march() {
    let mut b = Bench::new("khartoum");
    b.place("egy-inf-L", 1, "Khartoum");
    b.place("egy-gunboat", 1, "Khartoum");
    let c = receipt(
        &b,
        Side::Egyptian,
        "MARCH STACK Khartoum TO Omdurman THEN RIVER TO Metammeh\n",
    );
    assert!(
        c.errors
            .iter()
            .any(|e| e.message.contains("by river after a march by land")),
        "{:?}",
        c.errors
    );
}

/// 2.2: "No Mahdist unit may ever enter any hex adjacent to the Nile above
/// (flowing North from) and including Abou Hamed." A Mahdist boat displaced
/// by an Egyptian land stack (6.1) is not pushed into such a hex: with only
/// closed hexes left to go to, it is lost.
#[test]
fn rule_2_2_a_displaced_mahdist_boat_is_not_pushed_past_the_nile_ban() {
    let mut b = Bench::new("el-obeid");
    let map = b.scn.map.clone();
    let nile = map.find_river("Nile").expect("the Nile");
    let ah = b.hex("Abou Hamed");
    let limit = map
        .river_sides_of(ah)
        .iter()
        .filter(|(_, s)| s.river == nile)
        .map(|(_, s)| s.order)
        .min()
        .expect("Abou Hamed is on the Nile");
    let closed = |h: Hex| {
        map.river_sides_of(h)
            .iter()
            .any(|(_, s)| s.river == nile && s.order >= limit)
    };
    // A riverside hex just upstream of the closed reach, beside it.
    let (boat_hex, open_beside): (Hex, Vec<Hex>) = map
        .hexes()
        .filter(|h| map.is_land(*h) && map.is_riverside(*h) && !closed(*h))
        .find_map(|h| {
            let n: Vec<Hex> = h
                .neighbours()
                .into_iter()
                .filter(|x| map.is_land(*x) && map.is_riverside(*x))
                .collect();
            let has_closed = n.iter().any(|x| closed(*x));
            let open: Vec<Hex> = n.into_iter().filter(|x| !closed(*x)).collect();
            (has_closed && h.distance(ah) <= 3).then_some((h, open))
        })
        .expect("a hex beside the closed reach");
    let from = boat_hex
        .neighbours()
        .into_iter()
        .find(|x| {
            map.is_land(*x)
                && !map.crosses_river(*x, boat_hex)
                && !open_beside.contains(x)
                && !closed(*x)
        })
        .or_else(|| {
            boat_hex
                .neighbours()
                .into_iter()
                .find(|x| map.is_land(*x) && !map.crosses_river(*x, boat_hex))
        })
        .expect("a land hex to come from");
    let boat = b.place("mah-boat", 1, &boat_hex.to_string());
    // Egyptian pickets hold every open hex the boat could go to.
    for h in &open_beside {
        if *h != from {
            b.place("egy-inf-S", 1, &h.to_string());
        }
    }
    b.place("egy-inf-R", 1, &from.to_string());
    let o = march(from, vec![Leg::Path(vec![boat_hex])]);
    // March 6+6; then any sinking or capture rolls: 1s (not captured).
    let r = b.play(Side::Egyptian, &o, &[6, 6, 1, 1, 1, 1]);
    let end = b.at(&r, &boat[0]);
    assert!(
        end.is_none_or(|h| !closed(h)),
        "the boat went to {end:?}, a hex closed to Mahdists"
    );
}
