//! The order language on the real map and scenarios: every order, every
//! kind of problem, canonical form, and checking against the game.

mod common;

use dervish::engine::orders::{DropOff, OnContact, Selection};
use dervish::geo::Hex;
use dervish::orders::{
    self, Command, Input, LegOrder, Order, Parsed, RiverWay, Setting, Vocabulary, print,
};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::UnitId;
use dervish::state::setup::{Placements, initial_state};

fn scn(id: &str) -> Scenario {
    DataSet::embedded().unwrap().scenario(id).unwrap()
}

fn read(scn: &Scenario, text: &str) -> Parsed {
    orders::parse(&Input::text(text), &Vocabulary::new(scn)).unwrap()
}

/// The single order of a one-line message, which must parse cleanly.
fn one(scn: &Scenario, line: &str) -> Order {
    let p = read(scn, line);
    assert!(p.errors.is_empty(), "{line}: {:?}", p.errors);
    assert_eq!(p.sheet.items.len(), 1, "{line}");
    p.sheet.items[0].order.clone()
}

fn hex(scn: &Scenario, place: &str) -> Hex {
    scn.map.resolve(place).unwrap()
}

fn ids(list: &[&str]) -> Vec<UnitId> {
    list.iter().map(|s| UnitId((*s).into())).collect()
}

fn march(o: Order) -> orders::March {
    match o {
        Order::March(m) => m,
        other => panic!("not a march: {other:?}"),
    }
}

#[test]
fn a_march_names_its_stack_by_place_leader_or_units() {
    let k = scn("khartoum");
    let kh = hex(&k, "Khartoum");
    let om = hex(&k, "Omdurman");
    for line in [
        "MARCH Khartoum TO Omdurman",
        "march stack khartoum to omdurman",
        "MARCH 1942 TO 1941",
        "MARCH Khartoum (1942) TO Omdurman (1941)",
        "  Move   KHARTOUM   to   Omdurman  ",
    ] {
        let m = march(one(&k, line));
        assert_eq!(m.units, Selection::Stack(kh), "{line}");
        assert_eq!(m.legs, vec![LegOrder::To(om)], "{line}");
        assert_eq!(m.on_contact, OnContact::Avoid);
    }
    let m = march(one(&k, "MARCH Gordon TO Omdurman"));
    assert_eq!(m.units, Selection::Leader("Gordon".into()));
    let m = march(one(&k, "MARCH LEADER Charles Gordon TO Omdurman"));
    assert_eq!(m.units, Selection::Leader("Gordon".into()));
    let m = march(one(&k, "MARCH LEADER Gordon ALONE TO Omdurman"));
    assert_eq!(
        m.units,
        Selection::Units {
            units: vec![],
            leaders: vec!["Gordon".into()]
        }
    );
    let m = march(one(&k, "MARCH er1 ER02, ER3 WITH J. Stewart TO Omdurman"));
    assert_eq!(
        m.units,
        Selection::Units {
            units: ids(&["ER01", "ER02", "ER03"]),
            leaders: vec!["J. Stewart".into()]
        }
    );
    let m = march(one(&k, "MARCH UNITS MS031 TO Omdurman"));
    assert_eq!(
        m.units,
        Selection::Units {
            units: ids(&["MS031"]),
            leaders: vec![]
        }
    );
}

#[test]
fn every_kind_of_leg_and_up_to_three_in_a_line() {
    let k = scn("khartoum");
    let h = |p| hex(&k, p);
    let m = march(one(
        &k,
        "MARCH Korti TO Abu Klea THEN PATH Abu Kru, Metammeh THEN RIVER DOWN TO Berber",
    ));
    assert_eq!(
        m.legs,
        vec![
            LegOrder::To(h("Abu Klea")),
            LegOrder::Path(vec![h("Abu Kru"), h("Metammeh")]),
            LegOrder::River {
                to: h("Berber"),
                way: Some(RiverWay::Down)
            }
        ]
    );
    let m = march(one(&k, "MARCH Wady Halfa BY RAIL TO Sarras"));
    assert_eq!(m.legs, vec![LegOrder::Rail(h("Sarras"))]);
    let m = march(one(&k, "MARCH Souakim WITH FLEET TO Trinkitat"));
    assert_eq!(m.legs, vec![LegOrder::Fleet(h("Trinkitat"))]);
    let m = march(one(&k, "MARCH Dongola RIVER UP TO Korti"));
    assert_eq!(
        m.legs,
        vec![LegOrder::River {
            to: h("Korti"),
            way: Some(RiverWay::Up)
        }]
    );
    let m = march(one(&k, "MARCH Berber VIA 3025 -> 3024"));
    assert_eq!(
        m.legs,
        vec![LegOrder::Path(vec![
            "3025".parse().unwrap(),
            "3024".parse().unwrap()
        ])]
    );
    let m = march(one(&k, "MARCH Berber BY LAND TO Abu Hamed"));
    assert_eq!(m.legs, vec![LegOrder::To(h("Abou Hamed"))]);
}

#[test]
fn options_on_the_march_line_or_on_the_lines_below() {
    let k = scn("khartoum");
    let h = |p| hex(&k, p);
    let text = "MARCH Souakim TO Tokar ATTACK ANY\n  CONTINUE\n  RETREAT TOWARDS Souakim\n  LED BY Baker\n  DROP ES01 AT El Teb\n  LOSE FIRST ES01 EC01\nTHEN TO Trinkitat\n";
    let p = read(&k, text);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(p.sheet.items.len(), 1);
    let m = march(p.sheet.items[0].order.clone());
    assert_eq!(m.on_contact, OnContact::AttackAny);
    assert!(m.continue_after_win);
    assert_eq!(m.retreat_towards, Some(h("Souakim")));
    assert_eq!(m.leader_bonus.as_deref(), Some("Baker"));
    assert_eq!(
        m.drop_offs,
        vec![DropOff {
            at: h("El Teb"),
            units: ids(&["ES01"]),
            leaders: vec![]
        }]
    );
    assert_eq!(m.lose_first, ids(&["ES01", "EC01"]));
    assert_eq!(m.legs.len(), 2);
    let m = march(one(
        &k,
        "MARCH Souakim TO Tokar ATTACK Tokar, 5722 STOP AVOID",
    ));
    assert_eq!(m.on_contact, OnContact::Avoid);
    let m = march(one(&k, "MARCH Souakim TO Tokar ATTACK Tokar, 5722"));
    assert_eq!(
        m.on_contact,
        OnContact::AttackHexes(vec![h("Tokar"), h("El Teb")])
    );
    let m = march(one(&k, "MARCH Souakim TO Tokar BOOST Baker"));
    assert_eq!(m.leader_bonus.as_deref(), Some("Baker"));
}

#[test]
fn the_other_orders_and_the_commands() {
    let k = scn("khartoum");
    let h = |p| hex(&k, p);
    assert_eq!(
        one(&k, "EXPEND SUPPLY AT Khartoum"),
        Order::ExpendSupply(h("Khartoum"))
    );
    assert_eq!(
        one(&k, "keep supply Berber"),
        Order::KeepSupply(h("Berber"))
    );
    assert_eq!(
        one(&k, "PLACE Gordon-Relief AT Wady Halfa"),
        Order::Place {
            reinforcement: "gordon-relief".into(),
            at: h("Wady Halfa")
        }
    );
    assert_eq!(
        one(&k, "WITHDRAW ER05 ER6"),
        Order::Withdraw(ids(&["ER05", "ER06"]))
    );
    assert_eq!(
        one(&k, "DISMOUNT BC01 BC02"),
        Order::Dismount(UnitId("BC01".into()), UnitId("BC02".into()))
    );
    assert_eq!(
        one(&k, "RAILWAY souakim berber"),
        Order::Railway("Souakim - Berber".into())
    );
    assert_eq!(
        one(&k, "BUILD RAILWAY Souakim - Berber"),
        Order::Railway("Souakim - Berber".into())
    );
    assert_eq!(
        one(&k, "EVENT LOSSES ES01"),
        Order::EventLosses(ids(&["ES01"]))
    );
    assert_eq!(
        one(&k, "DEFEND LOSE FIRST civ1 ER05"),
        Order::DefendLoseFirst(ids(&["CIV01", "ER05"]))
    );
    assert_eq!(
        one(&k, "SETUP ER01 er2 WITH J. Stewart AT Omdurman"),
        Order::Setup(dervish::engine::orders::SetupOrder {
            units: ids(&["ER01", "ER02"]),
            leaders: vec!["J. Stewart".into()],
            at: h("Omdurman")
        })
    );
    assert_eq!(
        one(&k, "set up civ1 at Khartoum"),
        Order::Setup(dervish::engine::orders::SetupOrder {
            units: ids(&["CIV01"]),
            leaders: vec![],
            at: h("Khartoum")
        })
    );
    assert_eq!(
        one(&k, "defend lose es01"),
        Order::DefendLoseFirst(ids(&["ES01"]))
    );
    assert_eq!(one(&k, "READY"), Order::Ready);
    assert_eq!(one(&k, "HELP"), Order::Command(Command::Help));
    assert_eq!(one(&k, "MAP"), Order::Command(Command::Map(None)));
    assert_eq!(
        one(&k, "MAP Berber"),
        Order::Command(Command::Map(Some(h("Berber"))))
    );
    assert_eq!(
        one(&k, "ROUTE Korti TO Metammeh"),
        Order::Command(Command::Route(h("Korti"), h("Metammeh")))
    );
    assert_eq!(
        one(&k, "ROUTE Korti Metammeh"),
        Order::Command(Command::Route(h("Korti"), h("Metammeh")))
    );
    assert_eq!(one(&k, "STATUS"), Order::Command(Command::Status));
    assert_eq!(
        one(&k, "HISTORY March 1884"),
        Order::Command(Command::History(Some("1884-03".parse().unwrap())))
    );
    assert_eq!(one(&k, "RESEND"), Order::Command(Command::Resend));
    assert_eq!(
        one(&k, "JOIN mahdist"),
        Order::Command(Command::Join(Some(Side::Mahdist)))
    );
}

/// `MAP TEXT` and `MAP PICTURE` are settings, whatever the map calls its
/// places, and `MAP place` is still a map; `ADDRESS PUBLIC|HIDDEN` set
/// whether the archive shows the player's address. Each prints back as
/// it reads.
#[test]
fn settings_by_mail_and_map_places_do_not_clash() {
    let k = scn("khartoum");
    for (line, setting) in [
        ("MAP TEXT", Setting::MapPicture(false)),
        ("map text", Setting::MapPicture(false)),
        ("Map Picture", Setting::MapPicture(true)),
        ("MAP PICTURES", Setting::MapPicture(true)),
        ("ADDRESS PUBLIC", Setting::ShowAddress(true)),
        ("address: hidden", Setting::ShowAddress(false)),
        ("ADDRESS PRIVATE", Setting::ShowAddress(false)),
    ] {
        let o = one(&k, line);
        assert_eq!(o, Order::Command(Command::Set(setting)), "{line}");
        let printed = print::order(&k.map, &o);
        assert_eq!(printed, setting.words());
        assert_eq!(one(&k, &printed), o, "{printed}");
    }
    assert_eq!(
        one(&k, "MAP Khartoum"),
        Order::Command(Command::Map(Some(hex(&k, "Khartoum"))))
    );
    assert_eq!(one(&k, "MAP"), Order::Command(Command::Map(None)));
}

/// A slip in a setting is an error on its line with the likely fix, like
/// any line of the receipt; an address in a signature is passed over.
#[test]
fn slips_in_settings_are_line_numbered_with_a_fix() {
    let k = scn("khartoum");
    let p = read(
        &k,
        "MAP TXT\nADDRESS PUBLC\nADDRESS\nMAP TEXT PLEASE\nMAP Kartoum\nAddress: 12 Nile Street, Cairo\n",
    );
    let by_line = |n: usize| {
        p.errors
            .iter()
            .find(|e| e.line == n)
            .unwrap_or_else(|| panic!("no error on line {n}: {:?}", p.errors))
            .to_string()
    };
    assert!(
        by_line(1).contains("did you mean MAP TEXT?"),
        "{}",
        by_line(1)
    );
    assert!(
        by_line(2).contains("PUBLC is not PUBLIC or HIDDEN")
            && by_line(2).contains("did you mean ADDRESS PUBLIC?"),
        "{}",
        by_line(2)
    );
    assert!(
        by_line(3).contains("ADDRESS PUBLIC or ADDRESS HIDDEN"),
        "{}",
        by_line(3)
    );
    assert!(
        by_line(4).contains("PLEASE is not understood here")
            && by_line(4).contains("MAP TEXT or MAP PICTURE"),
        "{}",
        by_line(4)
    );
    assert!(
        by_line(5).contains("did you mean Khartoum (1942)?"),
        "{}",
        by_line(5)
    );
    assert_eq!(p.errors.len(), 5, "{:?}", p.errors);
    assert_eq!(
        p.ignored,
        vec![(6, "Address: 12 Nile Street, Cairo".to_string())]
    );
    assert!(p.sheet.items.is_empty());
    for e in &p.errors {
        assert!(orders::parse::is_command_line(&e.text), "{}", e.text);
    }
    assert!(!orders::parse::is_command_line("MARCH Khartum TO Omdurman"));
    assert!(!orders::parse::is_command_line("Hello there"));
}

#[test]
fn the_header_from_lines_and_subject() {
    let k = scn("khartoum");
    let text = "Game: khartoum-3\nSIDE Mahdist\nsecret: s3cr3t-token\nMONTH Feb 1884\nREADY\n";
    let p = orders::parse(
        &Input {
            text,
            subject: Some("Re: [dervish khartoum-3] orders 1884-02"),
            ..Input::default()
        },
        &Vocabulary::new(&k),
    )
    .unwrap();
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let h = &p.sheet.header;
    assert_eq!(h.game.as_deref(), Some("khartoum-3"));
    assert_eq!(h.side, Some(Side::Mahdist));
    assert_eq!(h.secret.as_deref(), Some("s3cr3t-token"));
    assert_eq!(h.month, Some("1884-02".parse().unwrap()));
    // The subject alone is enough for game and month.
    let p = orders::parse(
        &Input {
            text: "READY",
            subject: Some("[dervish el-obeid-1] orders 1883-01"),
            ..Input::default()
        },
        &Vocabulary::new(&k),
    )
    .unwrap();
    assert_eq!(p.sheet.header.game.as_deref(), Some("el-obeid-1"));
    assert_eq!(p.sheet.header.month, Some("1883-01".parse().unwrap()));
    // They must agree.
    let p = orders::parse(
        &Input {
            text: "GAME k-2\nREADY",
            subject: Some("[dervish k-1] orders 1883-01"),
            ..Input::default()
        },
        &Vocabulary::new(&k),
    )
    .unwrap();
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].line, 0);
    assert!(p.errors[0].message.contains("game k-1"), "{}", p.errors[0]);
    // A month in the subject that differs from the MONTH line is a
    // warning: the MONTH line counts and the set is accepted.
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    let p = orders::parse(
        &Input {
            text: "MONTH Feb 1884\nMARCH Khartoum TO Omdurman\nREADY\n",
            subject: Some("Re: [dervish k-1] orders 1884-01"),
            ..Input::default()
        },
        &Vocabulary::new(&k),
    )
    .unwrap();
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(p.sheet.header.month, Some("1884-02".parse().unwrap()));
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert!(!c.refused);
    let ack = orders::acknowledge(&p, &c, &k, Side::Egyptian, &state);
    assert!(
        ack.contains("subject: warning: the subject gives month 1884-01 and the MONTH line 1884-02: the MONTH line counts"),
        "{ack}"
    );
    assert!(!ack.contains("ERROR"), "{ack}");
    assert!(ack.contains("0 errors, 1 warning."), "{ack}");
}

/// A set refused as a whole never tells the player his orders are
/// complete, though it says READY.
#[test]
fn a_refused_set_is_never_complete() {
    let k = scn("khartoum");
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    let p = read(&k, "MONTH March 1884\nMARCH Khartoum TO Omdurman\nREADY\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert!(c.refused);
    let ack = orders::acknowledge(&p, &c, &k, Side::Egyptian, &state);
    assert!(!ack.contains("are complete"), "{ack}");
    assert!(
        ack.contains("Your READY line does not count either"),
        "{ack}"
    );
}

/// Each kind of syntax problem: the line, its number, what was expected,
/// and a suggestion where one is likely.
#[test]
fn syntax_problems_say_where_what_and_how_to_fix() {
    let k = scn("khartoum");
    let text = "READY\nMARCH Khartoum TO Metema\nMRACH Khartoum TO Omdurman\nMARCH Kartoum TO Omdurman\nMARCH Khartoum (1943) TO Omdurman\nMARCH Khartoum\nATTACK ANY\nWITHDRAW XX01\nWITHDRAW ER99\nMONTH Smarch 1884\nMARCH Khartoum TO Omdurman ATTAK ANY\nDISMOUNT BC01\nPLACE nobody AT Khartoum\nRAILWAY Cape to Cairo\nMARCH Stewart TO Berber\nMARCH Khartoum TO 9999\nKhartoum TO Omdurman\n";
    let p = read(&k, text);
    let by_line = |n: usize| {
        p.errors
            .iter()
            .find(|e| e.line == n)
            .unwrap_or_else(|| panic!("no error on line {n}: {:?}", p.errors))
    };
    assert_eq!(p.sheet.items.len(), 1, "only READY is an order");
    let e = by_line(2);
    assert_eq!(e.text, "MARCH Khartoum TO Metema");
    assert!(e.message.contains("no place called Metema"), "{e}");
    assert_eq!(e.suggestion.as_deref(), Some("Metemma (Metammeh, 2534)"));
    let e = by_line(3);
    assert_eq!(e.suggestion.as_deref(), Some("MARCH"));
    let e = by_line(4);
    assert!(
        e.suggestion.as_deref().unwrap().starts_with("Khartoum"),
        "{e}"
    );
    assert!(
        by_line(5)
            .message
            .contains("Khartoum is hex 1942, not 1943")
    );
    assert!(
        by_line(6).message.contains("no destination"),
        "{}",
        by_line(6)
    );
    assert!(
        by_line(7).message.contains("no MARCH line"),
        "{}",
        by_line(7)
    );
    assert!(
        by_line(8).message.contains("no unit type XX"),
        "{}",
        by_line(8)
    );
    assert!(
        by_line(9).message.contains("numbered 1 to 35"),
        "{}",
        by_line(9)
    );
    assert!(by_line(10).message.contains("not a month"));
    let e = by_line(11);
    assert_eq!(e.suggestion.as_deref(), Some("ATTACK"), "{e}");
    assert!(by_line(12).expected.contains("two different Camel Corps"));
    assert!(
        by_line(13)
            .message
            .contains("no reinforcement called nobody")
    );
    assert!(by_line(14).message.contains("no railway line"));
    assert!(
        by_line(15)
            .message
            .contains("not a place, a leader or a unit")
    );
    assert!(
        by_line(16).message.contains("not on the map"),
        "{}",
        by_line(16)
    );
    let e = by_line(17);
    assert_eq!(e.suggestion.as_deref(), Some("MARCH Khartoum TO Omdurman"));
    assert_eq!(p.errors.len(), 16, "{:#?}", p.errors);
}

#[test]
fn canonical_form_reads_back_to_the_same_orders() {
    let k = scn("khartoum");
    let text = "game k-1\nside egyptian\nsecret abc\nmonth 1884-02\nmarch gordon to omdurman attack any continue\n retreat to khartoum\n led by gordon\n drop er01 with j. stewart at 1941\n lose er02\nmarch souakim fleet to trinkitat then to el teb then path 5722, tokar\nmarch leader hicks alone to berber\nmarch units with gordon, j. stewart to omdurman\nexpend supply at khartoum\nkeep supply berber\nplace gordon-relief at wady halfa\nwithdraw er05\ndismount bc01 bc02\nrailway souakim berber\nevent losses es01 es02\ndefend lose first es03, er01\nsetup er01 er02 with j. stewart, gordon at omdurman\nset up ew01 at khartoum\nready\nhelp\nmap\nmap berber\nroute korti metammeh\nstatus\nhistory\nhistory 1884-01\nresend\njoin\njoin egyptian\nmarch dongola river up to korti\nmarch berber rail to sarras\n";
    let first = read(&k, text);
    assert!(first.errors.is_empty(), "{:?}", first.errors);
    let canonical = print::sheet(&k.map, &first.sheet, true);
    let second = read(&k, &canonical);
    assert!(second.errors.is_empty(), "{canonical}\n{:?}", second.errors);
    assert_eq!(first.sheet.orders(), second.sheet.orders(), "{canonical}");
    assert_eq!(first.sheet.header, second.sheet.header);
    assert_eq!(print::sheet(&k.map, &second.sheet, true), canonical);
}

#[test]
fn a_receipt_never_shows_the_secret() {
    let k = scn("khartoum");
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    let p = read(&k, "SECRET hunter2-very-secret\nSIDE egyptian\nREADY\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    let ack = orders::acknowledge(&p, &c, &k, Side::Egyptian, &state);
    assert!(!ack.contains("hunter2"), "{ack}");
    assert!(!print::sheet(&k.map, &p.sheet, false).contains("hunter2"));
}

mod checking {
    use super::*;
    use dervish::engine::orders::Leg;

    fn checked(id: &str, side: Side, text: &str) -> (Parsed, orders::Checked) {
        let s = scn(id);
        let (state, _) = initial_state(&s, &Placements::new()).unwrap();
        let p = read(&s, text);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let c = orders::check(&p.sheet, &s, &state, side);
        (p, c)
    }

    fn only_error(c: &orders::Checked) -> String {
        assert_eq!(c.errors.len(), 1, "{:#?}", c.errors);
        c.errors[0].message.clone()
    }

    /// The receipt names every unit that goes, river units too: a leader
    /// with a gunboat is not "alone".
    #[test]
    fn a_leader_with_a_gunboat_is_not_alone_on_the_receipt() {
        let k = scn("khartoum");
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH UNITS EW03 WITH Gordon RIVER DOWN TO Halfaya\n",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let text = orders::check::describe_plan(&k, &c.plans[0].1);
        assert!(text.starts_with("1 unit (EW03) with Gordon from"), "{text}");
        assert!(!text.contains("alone"), "{text}");
    }

    /// 8.31: a march roll may give No March or a short march, so a player
    /// writes the same destination again ("TO 1943 THEN TO 1943") to carry
    /// the stack on if the first march stops short. The receipt takes it:
    /// the second march is "already there" if the first gets there, never
    /// a march from the hex to itself that throws the whole order away.
    #[test]
    fn a_later_march_to_where_the_march_before_ends_is_taken() {
        let k = scn("khartoum");
        for text in [
            "MARCH UNITS EL01 TO 1943 THEN TO 1943 THEN TO 1943\n",
            "MARCH UNITS EL01 PATH 1943 THEN PATH 1943\n",
        ] {
            let (_, c) = checked("khartoum", Side::Egyptian, text);
            assert!(c.errors.is_empty(), "{text}: {:?}", c.errors);
            let legs = &c.plans[0].1.legs;
            assert!(!legs[0].already_there, "{text}");
            assert!(legs[1..].iter().all(|l| l.already_there), "{text}");
            assert!(legs[1..].iter().all(|l| l.path.is_empty()), "{text}");
            let receipt = orders::check::describe_plan(&k, &c.plans[0].1);
            assert!(
                receipt.contains("march 2: already at 1943 if the march before gets there"),
                "{receipt}"
            );
            assert!(
                c.warnings.iter().any(|w| w.message
                    == "march 2: if march 1 gets to 1943, this march has nothing left to do; it carries the stack on only if march 1 stops short"),
                "{:?}",
                c.warnings
            );
        }
        // The first march still may not be to the stack's own hex.
        let (_, c) = checked("khartoum", Side::Egyptian, "MARCH UNITS EL01 TO Khartoum\n");
        assert!(only_error(&c).contains("march 1: the stack is already at Khartoum"));
    }

    /// A PATH may start with the hex the stack stands on, as players write
    /// it; it is not refused as a skip from the hex to itself.
    #[test]
    fn a_path_starting_where_the_stack_stands_starts_from_there() {
        let k = scn("khartoum");
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH UNITS EL01 PATH Khartoum 1943\n",
        );
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.plans[0].1.legs[0].path, vec![hex(&k, "1943")]);
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH UNITS EL01 PATH Khartoum\n",
        );
        assert!(only_error(&c).contains("already at Khartoum"));
    }

    /// A surname alone suggests the leader of that name on the map, or
    /// every leader of that name when the game is not known.
    #[test]
    fn a_surname_suggests_the_leader_on_the_map() {
        let k = scn("khartoum");
        let (state, _) = initial_state(&k, &Placements::new()).unwrap();
        let on_map = state
            .leaders
            .iter()
            .any(|l| l.name == "J. Stewart" && l.hex.is_some());
        assert!(on_map, "J. Stewart begins at Khartoum");
        let text = "MARCH UNITS EL02 WITH Stewart TO Soba\n";
        let in_game =
            orders::parse(&Input::text(text), &Vocabulary::new(&k).in_play(&state)).unwrap();
        assert_eq!(in_game.errors[0].suggestion.as_deref(), Some("J. Stewart"));
        let anywhere = orders::parse(&Input::text(text), &Vocabulary::new(&k)).unwrap();
        assert_eq!(
            anywhere.errors[0].suggestion.as_deref(),
            Some("H. Stewart or J. Stewart")
        );
    }

    #[test]
    fn a_good_march_becomes_an_engine_order_with_its_route_and_cost() {
        let (_, c) = checked("khartoum", Side::Egyptian, "MARCH Khartoum TO Omdurman\n");
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        assert_eq!(c.orders.marches.len(), 1);
        let k = scn("khartoum");
        assert_eq!(c.orders.marches[0].legs, vec![Leg::To(hex(&k, "Omdurman"))]);
        let plan = &c.plans[0].1;
        assert_eq!(plan.from, hex(&k, "Khartoum"));
        assert_eq!(plan.legs[0].path, vec![hex(&k, "Omdurman")]);
        assert!(plan.legs[0].cost > 0);
        assert!(plan.units.contains(&UnitId("ER01".into())));
    }

    #[test]
    fn units_that_are_not_yours_or_not_on_the_map() {
        let (_, c) = checked("khartoum", Side::Egyptian, "MARCH MS031 TO Omdurman\n");
        assert!(only_error(&c).contains("MS031 is not an Egyptian unit"));
        let (_, c) = checked("khartoum", Side::Egyptian, "MARCH ER35 TO Omdurman\n");
        assert!(only_error(&c).contains("ER35 is not on the map"));
        let (_, c) = checked("khartoum", Side::Egyptian, "MARCH ER01 ES01 TO Omdurman\n");
        assert!(only_error(&c).contains("not in the same hex"));
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH Osman Digma TO Omdurman\n",
        );
        assert!(
            only_error(&c).contains("not an Egyptian leader"),
            "{:?}",
            c.errors
        );
        let (_, c) = checked("khartoum", Side::Egyptian, "WITHDRAW MS031\n");
        assert!(only_error(&c).contains("not an Egyptian unit"));
        assert!(c.orders.withdraw.is_empty());
    }

    #[test]
    fn a_path_through_the_sea_or_skipping_hexes() {
        let k = scn("khartoum");
        let souakim = hex(&k, "Souakim");
        let sea = souakim
            .neighbours()
            .into_iter()
            .find(|h| k.map.contains(*h) && !k.map.is_land(*h))
            .unwrap();
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            &format!("MARCH Souakim PATH {sea}\n"),
        );
        assert!(only_error(&c).contains("is sea"), "{:?}", c.errors);
        let (_, c) = checked("khartoum", Side::Egyptian, "MARCH Souakim PATH Tokar\n");
        assert!(only_error(&c).contains("hexes may not be skipped"));
    }

    #[test]
    fn a_river_march_without_boats_and_a_rail_march_without_track() {
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH Berber RIVER TO Abou Hamed\n",
        );
        assert!(
            only_error(&c).contains("1 boat or gunboat and 0 are free"),
            "{:?}",
            c.errors
        );
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH Berber RAIL TO Abou Hamed\n",
        );
        assert!(
            only_error(&c).contains("no built railway"),
            "{:?}",
            c.errors
        );
        let (_, c) = checked(
            "khartoum",
            Side::Mahdist,
            "MARCH Kamlin FLEET TO Khartoum\n",
        );
        assert!(
            only_error(&c).contains("only Egyptian and British"),
            "{:?}",
            c.errors
        );
    }

    #[test]
    fn a_fourth_march_and_a_stack_that_would_march_twice() {
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH Khartoum TO Omdurman THEN TO Khartoum THEN TO Omdurman THEN TO Khartoum\n",
        );
        assert!(
            only_error(&c).contains("at most three times"),
            "{:?}",
            c.errors
        );
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "MARCH Khartoum TO Omdurman\nMARCH Gordon TO Omdurman\n",
        );
        assert!(only_error(&c).contains("already marched"), "{:?}", c.errors);
        assert_eq!(c.errors[0].line, 2);
        assert_eq!(c.orders.marches.len(), 1);
    }

    #[test]
    fn orders_for_another_side_or_month() {
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "SIDE mahdist\nMONTH 1884-05\nREADY\n",
        );
        assert_eq!(c.errors.len(), 2, "{:?}", c.errors);
        assert!(c.errors.iter().any(|e| e.message.contains("SIDE Mahdist")));
        assert!(c.errors.iter().any(|e| e.message.contains("May 1884")));
    }

    #[test]
    fn placements_dismounting_supply_and_railways() {
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "PLACE gordon-relief AT Khartoum\n",
        );
        assert!(
            only_error(&c).contains("may not arrive at Khartoum"),
            "{:?}",
            c.errors
        );
        let (_, c) = checked(
            "khartoum",
            Side::Mahdist,
            "PLACE gordon-relief AT Wady Halfa\n",
        );
        assert!(
            only_error(&c).contains("is an Egyptian reinforcement")
                || only_error(&c).contains("Egyptian reinforcement")
        );
        let (_, c) = checked("khartoum", Side::Egyptian, "DISMOUNT ER01 ER02\n");
        assert!(
            only_error(&c).contains("only Camel Corps"),
            "{:?}",
            c.errors
        );
        let (_, c) = checked("khartoum", Side::Mahdist, "RAILWAY Souakim - Berber\n");
        assert!(only_error(&c).contains("only the Egyptian player"));
        let (_, c) = checked(
            "khartoum",
            Side::Egyptian,
            "EXPEND SUPPLY AT Khartoum\nKEEP SUPPLY AT Khartoum\n",
        );
        assert!(only_error(&c).contains("both expended and kept"));
        assert_eq!(c.orders.expend_supply.len(), 1);
        assert!(
            c.warnings
                .iter()
                .any(|w| w.message.contains("no Egyptian supply unit"))
        );
    }

    #[test]
    fn the_receipt_lists_every_line_and_sums_up() {
        let k = scn("khartoum");
        let (state, _) = initial_state(&k, &Placements::new()).unwrap();
        let p = read(
            &k,
            "Hello Dervish,\nMARCH Khartoum TO Omdurman\nMARCH Berber RAIL TO Sarras\nREDY\nREADY\n",
        );
        let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
        let ack = orders::acknowledge(&p, &c, &k, Side::Egyptian, &state);
        assert!(ack.starts_with(orders::REPORT_MARKER));
        for want in [
            "line 1: passed over, not an order: Hello Dervish,",
            "line 2: MARCH STACK Khartoum (1942) TO Omdurman (1941)",
            "line 3: NOT POSSIBLE: MARCH STACK Berber",
            "line 4: NOT UNDERSTOOD: REDY",
            "did you mean READY?",
            "Summary: 3 orders understood, 2 errors, 0 warnings.",
            "1 line was passed over",
        ] {
            assert!(ack.contains(want), "{want}\n{ack}");
        }
    }
}

/// Real-looking order emails (`tests/orders/*.txt`, bodies as the mail
/// layer extracts them) and the receipts they get
/// (`tests/golden/orders/*.ack`). The scenario is named in the file name
/// (`el-obeid`, else `khartoum`); the side is the one in the message
/// (Egyptian if none); the mobile one arrives with CRLF line endings.
#[test]
fn order_emails_and_their_receipts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/orders");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "the corpus has {} emails", names.len());
    for name in names {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let id = if name.contains("el-obeid") {
            "el-obeid"
        } else {
            "khartoum"
        };
        let s = scn(id);
        let (state, _) = initial_state(&s, &Placements::new()).unwrap();
        let p = read(&s, &text);
        let side = p.sheet.header.side.unwrap_or(Side::Egyptian);
        let c = orders::check(&p.sheet, &s, &state, side);
        let mut out = orders::acknowledge(&p, &c, &s, side, &state);
        // No line over 100 characters but an order's echo, which stays
        // whole so it can be copied back as one order.
        for l in out.lines() {
            assert!(
                l.chars().count() <= 100 || l.starts_with("line "),
                "{name}: a receipt line of {} characters: {l}",
                l.chars().count()
            );
        }
        out.push_str("\n--- canonical orders ---\n");
        out.push_str(&print::sheet(&s.map, &p.sheet, false));
        common::golden(&format!("orders/{}", name.replace(".txt", ".ack")), &out);
    }
}

/// The examples players read must be orders the parser accepts: every
/// example in the reply to HELP and every orders block of the guide.
#[test]
fn the_help_reply_and_the_guide_show_only_valid_orders() {
    let k = scn("khartoum");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let help = std::fs::read_to_string(root.join("templates/help.txt")).unwrap();
    let examples: String = help
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect();
    let p = read(&k, &examples);
    assert!(p.errors.is_empty(), "{:#?}", p.errors);
    assert!(p.ignored.is_empty(), "{:#?}", p.ignored);
    assert!(p.sheet.items.len() >= 20, "{}", p.sheet.items.len());
    let guide = std::fs::read_to_string(root.join("docs/orders.md")).unwrap();
    let mut blocks = 0;
    for block in guide.split("```text\n").skip(1) {
        let body = block.split("```").next().unwrap_or_default();
        if body.starts_with(orders::REPORT_MARKER) || body.contains("NOT UNDERSTOOD") {
            continue;
        }
        // A line must read in one of the two scenarios (some blocks show
        // a reinforcement of each).
        let k = read(&scn("khartoum"), body);
        let e = read(&scn("el-obeid"), body);
        let both: Vec<_> = k
            .errors
            .iter()
            .filter(|x| e.errors.iter().any(|y| y.line == x.line))
            .collect();
        assert!(both.is_empty(), "{body}\n{both:#?}");
        assert!(k.ignored.is_empty() || e.ignored.is_empty(), "{body}");
        blocks += 1;
    }
    assert!(blocks >= 10, "{blocks} example blocks");
}

#[test]
fn list_marks_end_punctuation_and_prose_are_passed_over() {
    let k = scn("khartoum");
    let p = read(
        &k,
        "Hello Dervish,\n1. March Khartoum to Omdurman and attack any.\n* Ready!\nStatus?\nThanks\nTom\n",
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(
        p.ignored,
        vec![
            (1, "Hello Dervish,".to_string()),
            (5, "Thanks".to_string()),
            (6, "Tom".to_string())
        ]
    );
    let m = march(p.sheet.items[0].order.clone());
    assert_eq!(m.on_contact, OnContact::AttackAny);
    assert_eq!(p.sheet.items[1].order, Order::Ready);
    assert_eq!(p.sheet.items[2].order, Order::Command(Command::Status));
    // A near miss of an order word is an error, not prose.
    let p = read(
        &k,
        "Redy\nMRACH Khartoum TO Omdurman\nMARCH Khartoum THEN Omdurman\n",
    );
    assert_eq!(p.errors.len(), 3, "{:?}", p.errors);
    assert_eq!(p.errors[0].suggestion.as_deref(), Some("READY"));
    assert_eq!(
        p.errors[2].suggestion.as_deref(),
        Some("TO Omdurman (1941)")
    );
}

#[test]
fn a_wrong_side_or_month_refuses_the_whole_set() {
    let k = scn("khartoum");
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    let p = read(&k, "SIDE Mahdist\nMARCH Khartoum TO Omdurman\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert!(c.refused);
    assert!(c.orders.marches.is_empty());
    let ack = orders::acknowledge(&p, &c, &k, Side::Egyptian, &state);
    assert!(
        ack.contains("None of these orders will be carried out"),
        "{ack}"
    );
}

#[test]
fn a_river_march_the_wrong_way_and_mahdist_supply() {
    let k = scn("khartoum");
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    let p = read(
        &k,
        "MARCH UNITS ER01 ER02 RIVER UP TO Berber\nMARCH UNITS ER03 RIVER DOWN TO Berber\n",
    );
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    assert_eq!(c.errors[0].line, 1);
    common::assert_first_error(&c, "downstream");
    let p = read(&k, "EXPEND SUPPLY AT Kamlin\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Mahdist);
    common::assert_first_error(&c, "no supply units");
}

#[test]
fn the_standing_loss_order_names_units_of_the_player_only() {
    let k = scn("khartoum");
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    let p = read(&k, "DEFEND LOSE FIRST ER01 ER02\nDEFEND LOSE FIRST MS001\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    assert_eq!(c.errors[0].line, 2);
    common::assert_first_error(&c, "not an Egyptian unit");
    assert_eq!(c.orders.standing_lose_first, ids(&["ER01", "ER02"]));
    let ack = orders::acknowledge(&p, &c, &k, Side::Egyptian, &state);
    assert!(
        ack.contains("line 1: DEFEND LOSE FIRST ER01 ER02\n    these take combat losses first"),
        "{ack}"
    );
    let p = read(&k, "DEFEND FIRST ER01\n");
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    let p = read(&k, "DEFEND LOSE FIRST\n");
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
}

#[test]
fn set_up_orders_are_checked_in_the_opening_month_against_the_zones_and_the_six_unit_limit() {
    let k = scn("khartoum");
    let (state, _) = initial_state(&k, &Placements::new()).unwrap();
    // Six Mahdist units of the main set-up line in one village, then a
    // seventh: "no more than 6 non-leader or boat units per hex" (2.3).
    let (ms, far) = common::setup_line::mahdi_line(&k, 7);
    let ms: Vec<String> = ms.iter().map(|id| id.0.to_string()).collect();
    let text = format!(
        "SETUP {} AT {far}\nSETUP {} AT {far}\nSETUP MS001 AT Khartoum\n",
        ms[..6].join(" "),
        ms[6]
    );
    let p = read(&k, &text);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let c = orders::check(&p.sheet, &k, &state, Side::Mahdist);
    let lines_with_errors: Vec<usize> = c.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines_with_errors, vec![2, 3], "{:?}", c.errors);
    assert!(c.errors[0].message.contains("(2.3)"), "{}", c.errors[0]);
    assert!(c.errors[1].message.contains("(2.1)"), "{}", c.errors[1]);
    assert_eq!(c.orders.setup.len(), 1);
    // Egyptian units only for the Egyptian, and only in the opening month,
    // before the first Egyptian player turn.
    let p = read(&k, "SETUP ER01 AT Omdurman\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let mut later = state.clone();
    later.effects.egyptian_turn_played = true;
    let c = orders::check(&p.sheet, &k, &later, Side::Egyptian);
    common::assert_first_error(&c, "set-up is over");
    let mut next = state.clone();
    next.month = next.month.next().unwrap();
    let c = orders::check(&p.sheet, &k, &next, Side::Egyptian);
    common::assert_first_error(&c, "opening month");
    // A river unit stays beside a river (6.0).
    let p = read(&k, "SETUP EW01 AT Omdurman\n");
    let c = orders::check(&p.sheet, &k, &state, Side::Egyptian);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
}
