//! Property tests of the order language: the parser never panics on any
//! text, and canonical form reads back to the same orders.

use std::sync::OnceLock;

use dervish::engine::orders::{DropOff, OnContact, Selection};
use dervish::geo::Hex;
use dervish::orders::{
    self, Command, Header, Input, Item, LegOrder, March, Order, RiverWay, Sheet, Vocabulary, print,
};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::UnitId;
use dervish::state::setup::{Placements, initial_state};
use proptest::prelude::*;

fn khartoum() -> &'static (Scenario, Vocabulary) {
    static S: OnceLock<(Scenario, Vocabulary)> = OnceLock::new();
    S.get_or_init(|| {
        let s = DataSet::embedded().unwrap().scenario("khartoum").unwrap();
        let v = Vocabulary::new(&s);
        (s, v)
    })
}

/// Words that make the parser work: keywords, names, IDs, numbers, junk.
const WORDS: &[&str] = &[
    "MARCH",
    "move",
    "STACK",
    "LEADER",
    "UNITS",
    "ALONE",
    "WITH",
    "TO",
    "THEN",
    "PATH",
    "VIA",
    "BY",
    "LAND",
    "RAIL",
    "RIVER",
    "UP",
    "DOWN",
    "FLEET",
    "ATTACK",
    "ANY",
    "AVOID",
    "CONTINUE",
    "STOP",
    "RETREAT",
    "TOWARDS",
    "LED",
    "BOOST",
    "DROP",
    "AT",
    "LOSE",
    "FIRST",
    "EXPEND",
    "KEEP",
    "SUPPLY",
    "PLACE",
    "WITHDRAW",
    "DISMOUNT",
    "RAILWAY",
    "BUILD",
    "EVENT",
    "LOSSES",
    "READY",
    "HELP",
    "MAP",
    "ROUTE",
    "STATUS",
    "HISTORY",
    "RESEND",
    "JOIN",
    "GAME",
    "SIDE:",
    "SECRET",
    "MONTH",
    "END",
    "Khartoum",
    "Abu",
    "Klea",
    "Wady",
    "Halfa",
    "(1942)",
    "(",
    ")",
    "1942",
    "0000",
    "9999",
    "ER01",
    "er5",
    "MS140",
    "XX1",
    "Gordon",
    "Osman",
    "Digma",
    "J.",
    "Stewart",
    ",",
    "->",
    "-",
    "#",
    ">",
    "--",
    "gordon-relief",
    "1884-03",
    "March",
    "1884",
    "egyptian",
    "\u{a0}",
    "\u{201c}",
    "\r",
    "\n",
    "\t",
    "é",
    "🐪",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(WORDS).prop_map(str::to_string),
            1 => "\\PC{0,12}",
        ],
        0..40,
    )
    .prop_map(|w| w.join(" "))
}

fn hexes() -> Vec<Hex> {
    let (s, _) = khartoum();
    s.map.hexes().filter(|h| s.map.is_land(*h)).collect()
}

fn hex() -> impl Strategy<Value = Hex> {
    prop::sample::select(hexes())
}

fn unit() -> impl Strategy<Value = UnitId> {
    prop_oneof![
        (1u32..=35).prop_map(|n| UnitId(format!("ER{n:02}").into())),
        (1u32..=140).prop_map(|n| UnitId(format!("MS{n:03}").into())),
        (1u32..=8).prop_map(|n| UnitId(format!("BC{n:02}").into())),
    ]
}

fn leader() -> impl Strategy<Value = String> {
    let (s, _) = khartoum();
    let names: Vec<String> = s.units.leaders().iter().map(|l| l.name.clone()).collect();
    prop::sample::select(names)
}

fn leg() -> impl Strategy<Value = LegOrder> {
    prop_oneof![
        hex().prop_map(LegOrder::To),
        prop::collection::vec(hex(), 1..5).prop_map(LegOrder::Path),
        hex().prop_map(LegOrder::Rail),
        (hex(), prop::option::of(prop::bool::ANY)).prop_map(|(to, up)| LegOrder::River {
            to,
            way: up.map(|u| if u { RiverWay::Up } else { RiverWay::Down }),
        }),
        hex().prop_map(LegOrder::Fleet),
    ]
}

fn selection() -> impl Strategy<Value = Selection> {
    prop_oneof![
        hex().prop_map(Selection::Stack),
        leader().prop_map(Selection::Leader),
        (
            prop::collection::vec(unit(), 0..4),
            prop::collection::vec(leader(), 0..3)
        )
            .prop_filter("something marches", |(u, l)| !u.is_empty() || !l.is_empty())
            .prop_map(|(units, leaders)| Selection::Units { units, leaders }),
    ]
}

fn march() -> impl Strategy<Value = March> {
    (
        selection(),
        prop::collection::vec(leg(), 1..4),
        prop_oneof![
            Just(OnContact::Avoid),
            Just(OnContact::AttackAny),
            prop::collection::vec(hex(), 1..3).prop_map(OnContact::AttackHexes),
        ],
        prop::bool::ANY,
        prop::collection::vec(
            (
                hex(),
                prop::collection::vec(unit(), 0..3),
                prop::collection::vec(leader(), 0..2),
            )
                .prop_filter("something dropped", |(_, u, l)| {
                    !u.is_empty() || !l.is_empty()
                })
                .prop_map(|(at, units, leaders)| DropOff { at, units, leaders }),
            0..2,
        ),
        prop::option::of(hex()),
        prop::option::of(leader()),
        prop::collection::vec(unit(), 0..3),
    )
        .prop_map(
            |(units, legs, on_contact, cont, drop_offs, retreat, lb, lose)| March {
                units,
                legs,
                on_contact,
                continue_after_win: cont,
                drop_offs,
                retreat_towards: retreat,
                leader_bonus: lb,
                lose_first: lose,
            },
        )
}

fn order() -> impl Strategy<Value = Order> {
    let (s, _) = khartoum();
    let reinforcements: Vec<String> = s.def.reinforcements.iter().map(|r| r.id.clone()).collect();
    let lines: Vec<String> = s.map.railways().iter().map(|r| r.name.clone()).collect();
    prop_oneof![
        4 => march().prop_map(Order::March),
        1 => hex().prop_map(Order::ExpendSupply),
        1 => hex().prop_map(Order::KeepSupply),
        1 => (prop::sample::select(reinforcements), hex())
            .prop_map(|(reinforcement, at)| Order::Place { reinforcement, at }),
        1 => prop::collection::vec(unit(), 1..4).prop_map(Order::Withdraw),
        1 => (unit(), unit())
            .prop_filter("two units", |(a, b)| a != b)
            .prop_map(|(a, b)| Order::Dismount(a, b)),
        1 => prop::sample::select(lines).prop_map(Order::Railway),
        1 => prop::collection::vec(unit(), 1..4).prop_map(Order::EventLosses),
        1 => prop::collection::vec(unit(), 1..4).prop_map(Order::DefendLoseFirst),
        1 => (
            prop::collection::vec(unit(), 1..4),
            prop::collection::vec(leader(), 0..2),
            hex()
        )
            .prop_map(|(units, leaders, at)| Order::Setup(
                dervish::engine::orders::SetupOrder { units, leaders, at }
            )),
        1 => Just(Order::Ready),
        1 => Just(Order::ReadyAsIs),
        1 => prop_oneof![
            Just(Command::Help),
            prop::option::of(hex()).prop_map(Command::Map),
            (hex(), hex()).prop_map(|(a, b)| Command::Route(a, b)),
            Just(Command::Status),
            Just(Command::Resend),
            Just(Command::History(None)),
            Just(Command::Join(Some(Side::Mahdist))),
        ]
        .prop_map(Order::Command),
    ]
}

fn sheet() -> impl Strategy<Value = Sheet> {
    (
        prop::option::of("[a-z][a-z0-9-]{0,15}"),
        prop::option::of(prop::bool::ANY),
        prop::option::of("[A-Za-z0-9_-]{8,40}"),
        prop::collection::vec(order(), 0..12),
    )
        .prop_map(|(game, side, secret, orders)| Sheet {
            header: Header {
                game,
                side: side.map(|e| if e { Side::Egyptian } else { Side::Mahdist }),
                secret,
                month: Some("1884-03".parse().unwrap()),
            },
            items: orders
                .into_iter()
                .map(|order| Item {
                    line: 0,
                    text: String::new(),
                    order,
                })
                .collect(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn the_parser_never_panics_on_any_text(text in "\\PC{0,400}") {
        let (_, v) = khartoum();
        let _ = orders::parse(&Input::text(&text), v);
        let _ = orders::parse(&Input { text: &text, subject: Some(&text), flowed: true, delsp: true }, v);
    }

    #[test]
    fn the_parser_never_panics_on_order_like_text(lines in prop::collection::vec(soup(), 0..20)) {
        let (s, v) = khartoum();
        let text = lines.join("\n");
        let p = orders::parse(&Input::text(&text), v).unwrap();
        // And the checker and receipt take whatever was understood.
        let (state, _) = initial_state(s, &Placements::new()).unwrap();
        for side in [Side::Egyptian, Side::Mahdist] {
            let c = orders::check(&p.sheet, s, &state, side);
            let _ = orders::acknowledge(&p, &c, s, side, &state);
        }
    }

    #[test]
    fn canonical_form_round_trips(sheet in sheet()) {
        let (s, v) = khartoum();
        let text = print::sheet(&s.map, &sheet, true);
        let back = orders::parse(&Input::text(&text), v).unwrap();
        prop_assert!(back.errors.is_empty(), "{}\n{:?}", text, back.errors);
        prop_assert_eq!(&back.sheet.header, &sheet.header);
        prop_assert_eq!(back.sheet.orders(), sheet.orders(), "{}", text);
        prop_assert_eq!(print::sheet(&s.map, &back.sheet, true), text);
    }
}
