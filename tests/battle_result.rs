//! The result of a battle fought on the table (docs/tabletop.md, "The
//! result"): read from the players' mail, checked against the forces that
//! fought and the campaign rules (9.4-9.9), every wrong line named with its
//! number, as an orders receipt names them.

use dervish::battle::result::{BattleUnit, Fate, Forces, read};
use dervish::scenario::Side;
use dervish::state::UnitId;

mod common;

fn battle() -> (dervish::scenario::Scenario, Forces) {
    let (scn, state) = common::fixture("table-battle.toml");
    let hexes = [
        scn.map.resolve("Abu Klea").unwrap(),
        scn.map.resolve("2333").unwrap(),
    ];
    let forces = Forces::at(&scn, &state, &hexes);
    (scn, forces)
}

const GOOD: &str = "Hello,

the Mahdists broke on the square.

WINNER EGYPTIAN
BI01 BI02 GOOD ORDER
bi03 disrupted
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 ELIMINATED
MS004 DISRUPTED
MS005 MS006 GOOD ORDER
RETREAT TO 2233
END
Tom
";

#[test]
fn a_result_is_read_with_every_unit_and_its_fate() {
    let (scn, forces) = battle();
    assert_eq!(forces.units.len(), 11);
    let bg = forces.units.iter().find(|u| &*u.id.0 == "BG01").unwrap();
    assert!(bg.capturable && bg.counts);
    let civ = forces.units.iter().find(|u| &*u.id.0 == "CIV01").unwrap();
    assert!(civ.civilian && !civ.capturable);
    let r = read(GOOD, &forces, &scn.map).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(r.winner, Some(Side::Egyptian));
    assert_eq!(r.fates.len(), 11);
    assert_eq!(r.fates[&UnitId("BI03".into())], Fate::Disrupted);
    assert_eq!(r.fates[&UnitId("MS001".into())], Fate::Eliminated);
    assert_eq!(r.retreat, Some(scn.map.resolve("2233").unwrap()));
    assert!(r.captured.is_empty());
    // Prose is set aside, as in an orders mail; what follows END too.
    assert_eq!(
        r.ignored,
        vec![
            (1, "Hello,".to_string()),
            (3, "the Mahdists broke on the square.".to_string())
        ]
    );
}

/// Each wrong line is named, with a suggestion where one is likely; the
/// checks of the whole result come last.
#[test]
fn wrong_results_get_line_numbered_errors() {
    let (scn, forces) = battle();
    let text = "WINER EGYPTIAN
WINNER EGYPTIAN
BI1 BI02 GOOD ORDER
BI03 GOOD ORDER
BI02 DISRUPTED
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 ELIMINATED
MS004 MS005 MS006 GOOD ORDER
CAPTURED BG01
RETREAT TO Atlantis
";
    let errors = read(text, &forces, &scn.map).unwrap_err();
    let said: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    let has = |line: usize, words: &str| {
        errors
            .iter()
            .any(|e| e.line == line && e.to_string().contains(words))
    };
    assert!(has(1, "did you mean WINNER"), "{said:#?}");
    assert!(
        has(3, "no unit BI1 fought this battle; did you mean BI01"),
        "{said:#?}"
    );
    assert!(
        has(4, "BI03 was disrupted when the battle began"),
        "{said:#?}"
    );
    assert!(
        has(5, "BI02 is given a second fate (line 3 gave one)"),
        "{said:#?}"
    );
    // Three of six Mahdists hurt: they lost (9.8); the British two of
    // five (BI03 disrupted counts): the Egyptians won. The capture is
    // refused: the Mahdists did not win.
    assert!(
        has(9, "only Mahdists who won the battle capture"),
        "{said:#?}"
    );
    assert!(has(10, "Atlantis"), "{said:#?}");
    assert!(has(0, "not given: BI01"), "{said:#?}");
    // Whole-result checks come after the lines.
    let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
    let first_zero = lines.iter().position(|l| *l == 0).unwrap();
    assert!(lines[first_zero..].iter().all(|l| *l == 0), "{lines:?}");
}

/// 9.8 decides the winner: the result must say what the fates give.
#[test]
fn the_winner_is_the_one_the_fates_give() {
    let (scn, forces) = battle();
    let fates = "BI01 BI02 BI03 DISRUPTED
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 MS004 MS005 MS006 GOOD ORDER
";
    // Three of five British units hurt, no Mahdist: the Mahdists won.
    let e = read(&format!("WINNER EGYPTIAN\n{fates}"), &forces, &scn.map).unwrap_err();
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(e[0].line, 1);
    assert!(
        e[0].to_string()
            .contains("the campaign rules give WINNER MAHDIST"),
        "{e:#?}"
    );
    let r = read(&format!("WINNER MAHDIST\n{fates}"), &forces, &scn.map).unwrap();
    assert_eq!(r.winner, Some(Side::Mahdist));
    // Both sides hurt by half: drawn, and a drawn battle has no retreat.
    let both = "DRAW
BI01 BI02 BI03 DISRUPTED
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 ELIMINATED
MS004 MS005 MS006 GOOD ORDER
RETREAT TO 2233
";
    let e = read(both, &forces, &scn.map).unwrap_err();
    assert_eq!(e.len(), 1, "{e:#?}");
    assert!(
        e[0].to_string().contains("a drawn battle has no retreat"),
        "{e:#?}"
    );
    // Neither side hurt by half: drawn too.
    let neither = "DRAW
BI01 BI02 BG01 CIV01 GOOD ORDER
BI03 DISRUPTED
MS001 ELIMINATED
MS002 MS003 MS004 MS005 MS006 GOOD ORDER
";
    assert_eq!(read(neither, &forces, &scn.map).unwrap().winner, None);
}

/// 9.9: the Mahdists who won capture guns and rifle units they destroyed;
/// 9.4: civilians are eliminated last.
#[test]
fn captures_and_civilians_follow_the_campaign_rules() {
    let (scn, forces) = battle();
    // BI03, disrupted before the battle, is eliminated (disrupted again)
    // only because no unit of its side ends it in good order (9.4).
    let won = "WINNER MAHDIST
BI01 BI02 BI03 BG01 ELIMINATED
CIV01 DISRUPTED
MS001 MS002 MS003 MS004 MS005 MS006 GOOD ORDER
CAPTURED BG01 BI01
";
    let r = read(won, &forces, &scn.map).unwrap();
    assert_eq!(
        r.captured,
        vec![UnitId("BG01".into()), UnitId("BI01".into())]
    );
    let bad = "WINNER MAHDIST
BI01 BI02 BI03 ELIMINATED
BG01 DISRUPTED
CIV01 ELIMINATED
MS001 MS002 MS003 MS004 MS005 MS006 GOOD ORDER
CAPTURED BG01 MS001 CIV01
";
    let e = read(bad, &forces, &scn.map).unwrap_err();
    let has = |line: usize, words: &str| {
        e.iter()
            .any(|x| x.line == line && x.to_string().contains(words))
    };
    assert!(
        has(4, "civilians are eliminated only after every other unit"),
        "{e:#?}"
    );
    assert!(has(6, "BG01 was not eliminated"), "{e:#?}");
    assert!(has(6, "MS001 is a Mahdist unit"), "{e:#?}");
    assert!(has(6, "CIV01 is not a gun or rifle unit"), "{e:#?}");
}

/// 9.4: "A disrupted unit that is disrupted again is eliminated but no
/// disrupted unit may suffer a 2nd disruption result until all units
/// (except leaders) in the stack are disrupted." BI03 was disrupted when
/// the battle began; ELIMINATED is its second disruption
/// (docs/tabletop.md), refused while a unit of its side is in good order.
#[test]
fn rule_9_4_no_second_disruption_while_a_unit_of_the_side_is_in_good_order() {
    let (scn, forces) = battle();
    let text = "WINNER MAHDIST
BI01 BI02 DISRUPTED
BI03 ELIMINATED
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 MS004 MS005 MS006 GOOD ORDER
";
    let e = read(text, &forces, &scn.map).unwrap_err();
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(e[0].line, 3, "{e:#?}");
    assert!(
        e[0].to_string().contains(
            "BI03 was disrupted when the battle began and may not be disrupted again (eliminated) while CIV01 BG01 of its side are in good order (9.4)"
        ),
        "{e:#?}"
    );
    // With every other unit of its side disrupted, it may be.
    let all = "WINNER MAHDIST
BI01 BI02 BG01 CIV01 DISRUPTED
BI03 ELIMINATED
MS001 MS002 MS003 MS004 MS005 MS006 GOOD ORDER
";
    let r = read(all, &forces, &scn.map).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(r.fates[&UnitId("BI03".into())], Fate::Eliminated);
    // A unit in good order at the start may be eliminated outright while
    // others stand (an elimination, not a second disruption).
    let outright = "WINNER MAHDIST
BI01 BI03 DISRUPTED
BI02 ELIMINATED
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 MS004 MS005 MS006 GOOD ORDER
";
    assert!(read(outright, &forces, &scn.map).is_ok());
}

/// Boats, gunboats and the fleet do not count for winning and losing
/// (9.8); a result with no WINNER or DRAW line says so.
#[test]
fn river_units_do_not_count_and_the_result_must_be_said() {
    let (scn, _) = battle();
    let unit = |id: &str, side, counts| BattleUnit {
        id: UnitId(id.into()),
        side,
        counts,
        civilian: false,
        capturable: false,
        disrupted: false,
    };
    let forces = Forces {
        units: vec![
            unit("EW01", Side::Egyptian, false),
            unit("EW02", Side::Egyptian, false),
            unit("ER01", Side::Egyptian, true),
            unit("MS001", Side::Mahdist, true),
        ],
    };
    // The gunboats sunk, the infantry in good order: the Egyptians did not
    // lose; the Mahdist unit disrupted did.
    let text = "WINNER EGYPTIAN
EW01 EW02 ELIMINATED
ER01 GOOD ORDER
MS001 DISRUPTED
";
    assert_eq!(
        read(text, &forces, &scn.map).unwrap().winner,
        Some(Side::Egyptian)
    );
    let e = read(
        "ER01 GOOD ORDER\nEW01 EW02 MS001 DISRUPTED\n",
        &forces,
        &scn.map,
    )
    .unwrap_err();
    assert!(
        e.iter()
            .any(|x| x.line == 0 && x.to_string().contains("no result")),
        "{e:#?}"
    );
}
