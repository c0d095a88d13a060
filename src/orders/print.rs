//! Orders in canonical form: one way of writing each order, which the
//! parser reads back to the same orders. Receipts show orders this way.

use super::{Command, Header, LegOrder, March, Order, RiverWay, Sheet};
use crate::engine::orders::{OnContact, Selection};
use crate::geo::{Hex, Map};
use crate::state::UnitId;

/// A place as canonical text: `Khartoum (1942)`, or `1943` for a hex
/// without a name.
pub fn place(map: &Map, hex: Hex) -> String {
    map.describe(hex)
}

fn places(map: &Map, hexes: &[Hex]) -> String {
    hexes
        .iter()
        .map(|h| place(map, *h))
        .collect::<Vec<_>>()
        .join(", ")
}

fn units(ids: &[UnitId]) -> String {
    ids.iter()
        .map(|u| u.0.as_ref())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The selection part of a march.
pub fn selection(map: &Map, s: &Selection) -> String {
    match s {
        Selection::Stack(h) => format!("STACK {}", place(map, *h)),
        Selection::Leader(l) => format!("LEADER {l}"),
        Selection::Units { units: u, leaders } if u.is_empty() && leaders.len() == 1 => {
            format!("LEADER {} ALONE", leaders[0])
        }
        Selection::Units { units: u, leaders } => {
            format!("UNITS{}", units_with_leaders(u, leaders))
        }
    }
}

/// One leg.
pub fn leg(map: &Map, l: &LegOrder) -> String {
    match l {
        LegOrder::To(h) => format!("TO {}", place(map, *h)),
        LegOrder::Path(p) => format!("PATH {}", places(map, p)),
        LegOrder::Rail(h) => format!("RAIL TO {}", place(map, *h)),
        LegOrder::River { to, way } => {
            let w = match way {
                Some(RiverWay::Up) => " UP",
                Some(RiverWay::Down) => " DOWN",
                None => "",
            };
            format!("RIVER{w} TO {}", place(map, *to))
        }
        LegOrder::Fleet(h) => format!("FLEET TO {}", place(map, *h)),
    }
}

/// A march: the MARCH line, then one indented line per option that is
/// not the default.
pub fn march(map: &Map, m: &March) -> String {
    let legs: Vec<String> = m.legs.iter().map(|l| leg(map, l)).collect();
    let mut out = format!("MARCH {} {}", selection(map, &m.units), legs.join(" THEN "));
    match &m.on_contact {
        OnContact::Avoid => {}
        OnContact::AttackAny => out.push_str("\n  ATTACK ANY"),
        OnContact::AttackHexes(h) => out.push_str(&format!("\n  ATTACK {}", places(map, h))),
    }
    if m.continue_after_win {
        out.push_str("\n  CONTINUE");
    }
    if let Some(r) = m.retreat_towards {
        out.push_str(&format!("\n  RETREAT TOWARDS {}", place(map, r)));
    }
    if let Some(l) = &m.leader_bonus {
        out.push_str(&format!("\n  LED BY {l}"));
    }
    for d in &m.drop_offs {
        let who = units_with_leaders(&d.units, &d.leaders);
        out.push_str(&format!("\n  DROP{who} AT {}", place(map, d.at)));
    }
    if !m.lose_first.is_empty() {
        out.push_str(&format!("\n  LOSE FIRST {}", units(&m.lose_first)));
    }
    out
}

/// " unit unit WITH leader, leader" (of UNITS, DROP and SETUP), each part
/// only when it names someone.
fn units_with_leaders(us: &[UnitId], leaders: &[String]) -> String {
    let mut out = String::new();
    if !us.is_empty() {
        out.push(' ');
        out.push_str(&units(us));
    }
    if !leaders.is_empty() {
        out.push_str(" WITH ");
        out.push_str(&leaders.join(", "));
    }
    out
}

/// One order in canonical form (a march may take several lines).
pub fn order(map: &Map, o: &Order) -> String {
    match o {
        Order::March(m) => march(map, m),
        Order::ExpendSupply(h) => format!("EXPEND SUPPLY AT {}", place(map, *h)),
        Order::KeepSupply(h) => format!("KEEP SUPPLY AT {}", place(map, *h)),
        Order::Place { reinforcement, at } => {
            format!("PLACE {reinforcement} AT {}", place(map, *at))
        }
        Order::PlacePart {
            reinforcement,
            part,
            at,
        } => format!("PLACE {reinforcement} {part} AT {}", place(map, *at)),
        Order::Withdraw(u) => format!("WITHDRAW {}", units(u)),
        Order::Dismount(a, b) => format!("DISMOUNT {a} {b}"),
        Order::Railway(name) => format!("RAILWAY {name}"),
        Order::EventLosses(u) => format!("EVENT LOSSES {}", units(u)),
        Order::DefendLoseFirst(u) => format!("DEFEND LOSE FIRST {}", units(u)),
        Order::Setup(o) => {
            let who = units_with_leaders(&o.units, &o.leaders);
            format!("SETUP{who} AT {}", place(map, o.at))
        }
        Order::Ready => "READY".into(),
        Order::ReadyAsIs => "READY AS IS".into(),
        Order::Command(c) => match c {
            Command::Help => "HELP".into(),
            Command::Map(None) => "MAP".into(),
            Command::Map(Some(h)) => format!("MAP {}", place(map, *h)),
            Command::Route(a, b) => format!("ROUTE {} TO {}", place(map, *a), place(map, *b)),
            Command::Status => "STATUS".into(),
            Command::History(None) => "HISTORY".into(),
            Command::History(Some(m)) => format!("HISTORY {m}"),
            Command::Resend => "RESEND".into(),
            Command::Join(None) => "JOIN".into(),
            Command::Join(Some(s)) => format!("JOIN {s}"),
            Command::Set(s) => s.words().into(),
            Command::Seat(r) => r.words(),
        },
    }
}

/// The header lines. The secret is shown only when asked for: receipts
/// leave it out.
pub fn header(h: &Header, with_secret: bool) -> String {
    let mut out = Vec::new();
    if let Some(g) = &h.game {
        out.push(format!("GAME {g}"));
    }
    if let Some(s) = h.side {
        out.push(format!("SIDE {s}"));
    }
    if let Some(s) = &h.secret {
        out.push(if with_secret {
            format!("SECRET {s}")
        } else {
            "SECRET (given)".to_string()
        });
    }
    if let Some(m) = h.month {
        out.push(format!("MONTH {m}"));
    }
    out.join("\n")
}

/// A whole sheet: header, then each order.
pub fn sheet(map: &Map, s: &Sheet, with_secret: bool) -> String {
    let mut out = header(&s.header, with_secret);
    for i in &s.items {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&order(map, &i.order));
    }
    out.push('\n');
    out
}
