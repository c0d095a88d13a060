//! The battle brief: what both players and the game master read when a
//! combat goes to the tabletop (docs/tabletop.md, "The battle brief").
//!
//! A brief is plain text for a mail, at most [`WIDTH`] columns: the
//! battle's key, place, month and who attacks from where; the field (the
//! two hexes' terrain and places, rivers and river units, season and
//! light); each side's units as the chosen miniatures rules field them,
//! with the ratios, leaders and morale in those rules' terms; what wins in
//! campaign terms (9.8, 9.9, 7.2 and the scenario's victory rules); how
//! table losses are read back into each unit's fate; and the result to
//! mail back, filled in so the players only edit it. With the Mahdists a
//! programmed player it ends with the seed's reaction and ambush tables,
//! so one player can run them on the table.
//!
//! The conversion data is [`super::tabletop`]; this module only prints.
//! It does no I/O and reads no clock: the same combat gives the same brief.

use std::fmt::Write as _;

use super::etyfw::data::Tables;
use super::layout::{self, Layout, Opening, lay_out};
use super::tabletop::{Measure, System, Tabletop, Troop};
use crate::diag::Diagnostics;
use crate::engine::elsewhere::{Combat, Fate};
use crate::geo::{PlaceKind, RiverClass};
use crate::scenario::definition::VictoryCondition;
use crate::scenario::units::{Leader, Nation, UnitKind, UnitType};
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, RuleSet, Unit, UnitId};

/// The widest line of a brief.
pub const WIDTH: usize = 76;

/// Why a brief could not be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BriefError {
    /// The tabletop data (`scenarios/tabletop.ron`) is broken.
    #[error("the tabletop data is broken:\n{0}")]
    Data(Diagnostics),
    /// The combat names a unit the game state does not have.
    #[error("the combat names unit {0}, which the game does not have")]
    UnknownUnit(UnitId),
    /// A unit's type is not in the scenario's units.
    #[error("unit {unit} is of type {unit_type}, which units.ron does not have")]
    UnknownType { unit: UnitId, unit_type: String },
    /// The tabletop data has no entry for a unit's type.
    #[error("the tabletop data has no {rules} entry for {unit} ({unit_type})")]
    NoTroop {
        rules: &'static str,
        unit: UnitId,
        unit_type: String,
    },
    /// The tabletop data has nothing for the rule set (cannot happen with
    /// checked data).
    #[error("the tabletop data has nothing for {0}")]
    NoRuleSet(&'static str),
    /// A leader of the combat is not in units.ron.
    #[error("the combat names leader {0}, whom units.ron does not have")]
    UnknownLeader(String),
    /// The tabletop data has no light for the month (cannot happen with
    /// checked data).
    #[error("the tabletop data has no light for month {0}")]
    NoLight(u32),
    /// The ETYFW resolver's settings (`scenarios/etyfw.ron`) are broken.
    #[error("the ETYFW resolver's settings are broken: {0}")]
    Resolver(String),
    /// The two hexes are not next to each other.
    #[error(transparent)]
    NotAdjacent(#[from] super::layout::NotAdjacent),
}

/// A brief and the table it lays out (for the diagram).
#[derive(Clone, Debug, PartialEq)]
pub struct Brief {
    pub text: String,
    pub layout: Layout,
}

/// The battle brief of `combat` for miniatures rules `rules`, with the
/// shipped tabletop data; `solo` is `Some(Side::Mahdist)` when the
/// Mahdists are a programmed player (the brief then carries the seed's
/// reaction and ambush tables).
pub fn brief(
    scn: &Scenario,
    state: &GameState,
    combat: &Combat,
    rules: RuleSet,
    solo: Option<Side>,
) -> Result<String, BriefError> {
    let data = Tabletop::shipped(&scn.units).map_err(BriefError::Data)?;
    brief_with(&data, scn, state, combat, rules, solo)
}

/// The diagram's title: the battle's place and month, the rules.
pub fn diagram_title(scn: &Scenario, combat: &Combat, rules: RuleSet) -> String {
    format!(
        "{}, {}: the table for {}",
        scn.map.describe(combat.defender_hex),
        combat.key.month.long_name(),
        rules.title()
    )
}

/// One unit of the battle as the brief shows it.
struct Entry<'a> {
    unit: &'a Unit,
    ty: &'a UnitType,
    troop: &'a Troop,
    /// It counts for 9.8 (not a boat or gunboat).
    counted: bool,
}

impl Entry<'_> {
    /// Elements of the unit at full strength.
    fn elements(&self) -> u32 {
        self.troop.per_sp * self.unit.strength + self.troop.per_unit
    }
}

/// As [`brief`], with the tabletop data given.
pub fn brief_with(
    data: &Tabletop,
    scn: &Scenario,
    state: &GameState,
    combat: &Combat,
    rules: RuleSet,
    solo: Option<Side>,
) -> Result<String, BriefError> {
    brief_and_table(data, scn, state, combat, rules, solo).map(|b| b.text)
}

/// The brief and its table, with the tabletop data given and the ETYFW
/// resolver's settings of the data set (`scn`'s data folder may bring its
/// own `etyfw.ron`: `etyfw`, else the shipped one), so a brief for ETYFW
/// sets the battle up as that game's resolver fights it.
pub fn brief_and_table(
    data: &Tabletop,
    scn: &Scenario,
    state: &GameState,
    combat: &Combat,
    rules: RuleSet,
    solo: Option<Side>,
) -> Result<Brief, BriefError> {
    brief_with_resolver(data, None, scn, state, combat, rules, solo)
}

/// One side of the battle: its units and its leaders.
type Forces<'a> = (Side, Vec<Entry<'a>>, Vec<&'a Leader>);

/// What every section of a brief reads.
struct Ctx<'a> {
    scn: &'a Scenario,
    state: &'a GameState,
    combat: &'a Combat,
    sys: &'a System,
    rules: RuleSet,
    /// The ETYFW resolver's tables, when the rules are ETYFW.
    resolver: Option<&'a Tables>,
    defender: Side,
}

/// As [`brief_and_table`], with the ETYFW tables' text (`etyfw.ron`) of a
/// data folder, if it has its own.
pub fn brief_with_resolver(
    data: &Tabletop,
    etyfw: Option<&crate::scenario::NamedText>,
    scn: &Scenario,
    state: &GameState,
    combat: &Combat,
    rules: RuleSet,
    solo: Option<Side>,
) -> Result<Brief, BriefError> {
    let resolver = resolver_tables(etyfw, rules)?;
    let sys = data
        .system(rules)
        .ok_or(BriefError::NoRuleSet(rules.title()))?;
    let month = combat.key.month;
    let light = data
        .light(month.month())
        .ok_or(BriefError::NoLight(month.month()))?;
    let cx = Ctx {
        scn,
        state,
        combat,
        sys,
        rules,
        resolver: resolver.as_ref(),
        defender: combat.attacker.enemy(),
    };
    let sides = gather_sides(&cx)?;
    let mut out = String::new();
    let o = &mut out;
    heading(o, &cx);
    field_section(o, &cx, &sides, light);
    let layout = the_table(o, &cx, &sides)?;
    forces_section(o, &cx, &sides);
    what_wins(o, &cx, &sides);
    reading_back(o, sys);
    result_section(o, &sides);
    if solo == Some(Side::Mahdist) {
        solo_section(o, &cx);
    }
    Ok(Brief { text: out, layout })
}

/// The ETYFW resolver's tables when the rules are ETYFW: the data folder's
/// own `etyfw.ron`, else the shipped one.
fn resolver_tables(
    etyfw: Option<&crate::scenario::NamedText>,
    rules: RuleSet,
) -> Result<Option<Tables>, BriefError> {
    let (text, name) = etyfw.map_or((super::etyfw::EMBEDDED, "scenarios/etyfw.ron"), |t| {
        (t.text.as_str(), t.name.as_str())
    });
    match rules {
        RuleSet::Etyfw => super::etyfw::data::load(text, name)
            .map(Some)
            .map_err(|d| BriefError::Resolver(d.to_string())),
        _ => Ok(None),
    }
}

/// A unit of the combat with its type and its troop class in the rules.
fn entry<'a>(cx: &Ctx<'a>, id: &UnitId, counted: bool) -> Result<Entry<'a>, BriefError> {
    let unit = cx
        .state
        .unit(&id.0)
        .ok_or_else(|| BriefError::UnknownUnit(id.clone()))?;
    let ty = cx
        .scn
        .units
        .get(&unit.unit_type)
        .ok_or_else(|| BriefError::UnknownType {
            unit: id.clone(),
            unit_type: unit.unit_type.to_string(),
        })?;
    let troop = cx.sys.troop(ty).ok_or_else(|| BriefError::NoTroop {
        rules: cx.rules.title(),
        unit: id.clone(),
        unit_type: ty.id.clone(),
    })?;
    Ok(Entry {
        unit,
        ty,
        troop,
        counted,
    })
}

/// Both sides, the attacker first: the units that fight (then the side's
/// river units, not counted) and the leaders.
fn gather_sides<'a>(cx: &Ctx<'a>) -> Result<Vec<Forces<'a>>, BriefError> {
    let combat = cx.combat;
    let mut sides: Vec<Forces<'a>> = Vec::new();
    for (side, ids, leaders) in [
        (combat.attacker, &combat.attackers, &combat.attacker_leaders),
        (cx.defender, &combat.defenders, &combat.defender_leaders),
    ] {
        let mut es = Vec::new();
        for id in ids {
            es.push(entry(cx, id, true)?);
        }
        for id in &combat.river_units {
            let e = entry(cx, id, false)?;
            if e.unit.side == side {
                es.push(e);
            }
        }
        let mut ls = Vec::new();
        for name in leaders {
            ls.push(
                cx.scn
                    .units
                    .leader(name)
                    .ok_or_else(|| BriefError::UnknownLeader(name.clone()))?,
            );
        }
        sides.push((side, es, ls));
    }
    Ok(sides)
}

/// The heading: the rules, the key, where and when, who attacks from where.
fn heading(o: &mut String, cx: &Ctx<'_>) {
    let (scn, combat) = (cx.scn, cx.combat);
    line(o, &format!("BATTLE BRIEF: {}", cx.rules.title()));
    line(
        o,
        &format!("Key: {} (quote it with the result)", combat.key),
    );
    line(o, "");
    let at = scn.map.describe(combat.defender_hex);
    let mut head = format!(
        "{} at {at}. The {} side attacks from {}",
        combat.key.month.long_name(),
        combat.attacker,
        scn.map.describe(combat.attacker_hex),
    );
    match combat.attacker_hex.direction_to(combat.defender_hex) {
        Some(d) => {
            let _ = write!(
                head,
                ", on the {} side of the {} hex, marching {d}.",
                d.opposite(),
                cx.defender
            );
        }
        None => head.push('.'),
    }
    if combat.ambush {
        head.push_str(
            " AMBUSH: the Mahdists charge from an ambush (seed 002) on the Egyptian side on the march.",
        );
    } else {
        head.push_str(" No ambush.");
    }
    para(o, "", &head);
}

/// THE FIELD: the two hexes, the rivers, the boats, the season, the light
/// and what the rules put on the table for them.
fn field_section(
    o: &mut String,
    cx: &Ctx<'_>,
    sides: &[Forces<'_>],
    light: &super::tabletop::Light,
) {
    let (scn, combat) = (cx.scn, cx.combat);
    let month = combat.key.month;
    line(o, "");
    line(o, "THE FIELD");
    for (who, hex) in [
        (cx.defender, combat.defender_hex),
        (combat.attacker, combat.attacker_hex),
    ] {
        let ground = scn.map.terrain(hex).map_or("unknown", |t| t.name());
        let places: Vec<String> = scn
            .map
            .places()
            .iter()
            .filter(|p| p.hex == hex)
            .map(|p| format!("{} ({})", p.name, place_word(p.kind)))
            .collect();
        let mut t = ground.to_string();
        if !places.is_empty() {
            let _ = write!(t, "; {}", places.join(", "));
        }
        para(
            o,
            &format!("  {:<10}", format!("{who}s")),
            &format!("{hex}: {t}."),
        );
    }
    let rivers = river_lines(cx);
    let river_text = if rivers.is_empty() {
        "none at either hex.".to_string()
    } else {
        let crosses = if scn
            .map
            .crosses_river(combat.attacker_hex, combat.defender_hex)
        {
            "The attack crosses it."
        } else {
            "The attack does not cross it."
        };
        format!("{}. {crosses}", rivers.join("; "))
    };
    para(o, "  River     ", &river_text);
    boats_line(o, sides);
    let seasonal = if month.seasonal_rivers_navigable() {
        "seasonal rivers navigable"
    } else {
        "seasonal rivers unnavigable"
    };
    para(
        o,
        "  Season    ",
        &format!(
            "{}: {}; {seasonal} (November to February, 8.23 III).",
            month_name(month.month()),
            light.weather
        ),
    );
    para(
        o,
        "  Light     ",
        &format!(
            "first light {}, sunrise {}, sunset {}, last light {} (local solar time at 16°N, mid-month).",
            light.first_light, light.sunrise, light.sunset, light.last_light
        ),
    );
    table_line(o, cx, !rivers.is_empty());
}

/// Each river at either hex: its name, the sides of the hex it runs along,
/// its class this month and its cataract.
fn river_lines(cx: &Ctx<'_>) -> Vec<String> {
    let (scn, combat) = (cx.scn, cx.combat);
    let month = combat.key.month;
    let mut sides_of: Vec<(String, String, Vec<String>)> = Vec::new();
    for hex in [combat.defender_hex, combat.attacker_hex] {
        for (d, rs) in scn.map.river_sides_of(hex) {
            let name = scn
                .map
                .rivers()
                .get(rs.river.0)
                .map_or("a river", |r| r.name.as_str());
            let class = match rs.class {
                RiverClass::Navigable => "navigable".to_string(),
                RiverClass::Unnavigable => "unnavigable".to_string(),
                RiverClass::Seasonal if month.seasonal_rivers_navigable() => {
                    "seasonal, navigable this month (8.23 III)".to_string()
                }
                RiverClass::Seasonal => "seasonal, unnavigable this month (8.23 III)".to_string(),
            };
            let cataract = rs
                .cataract
                .and_then(|c| scn.map.cataracts().get(c))
                .map(|c| format!(", {}", c.name))
                .unwrap_or_default();
            let key = (
                format!("{name} on the"),
                format!("of {hex} ({class}{cataract})"),
            );
            match sides_of
                .iter_mut()
                .find(|(a, b, _)| *a == key.0 && *b == key.1)
            {
                Some((_, _, ds)) => ds.push(d.to_string()),
                None => sides_of.push((key.0, key.1, vec![d.to_string()])),
            }
        }
    }
    sides_of
        .iter()
        .map(|(a, b, ds)| {
            let which = match ds.as_slice() {
                [one] => format!("{one} side"),
                [rest @ .., last] => format!("{} and {last} sides", rest.join(", ")),
                [] => String::new(),
            };
            format!("{a} {which} {b}")
        })
        .collect()
}

/// The boats and gunboats of the battle, which do not count (9.8).
fn boats_line(o: &mut String, sides: &[Forces<'_>]) {
    let boats: Vec<String> = sides
        .iter()
        .flat_map(|(_, es, _)| es.iter().filter(|e| !e.counted))
        .map(|e| format!("{} {} ({})", e.unit.id, e.ty.name, e.unit.side))
        .collect();
    para(
        o,
        "  Boats     ",
        &if boats.is_empty() {
            "no boats or gunboats.".to_string()
        } else {
            format!(
                "{}: they do not count for winning or losing (9.8).",
                boats.join(", ")
            )
        },
    );
}

/// What the rules put on the table for the ground, the places and a river.
fn table_line(o: &mut String, cx: &Ctx<'_>, any_river: bool) {
    let (scn, combat, sys) = (cx.scn, cx.combat, cx.sys);
    let mut table = Vec::new();
    for hex in [combat.defender_hex, combat.attacker_hex] {
        if let Some(t) = scn.map.terrain(hex).and_then(|t| sys.ground(t))
            && !table.iter().any(|x: &String| x.ends_with(t))
        {
            table.push(format!("{hex}: {t}"));
        }
        for p in scn.map.places().iter().filter(|p| p.hex == hex) {
            if let Some(t) = sys.place(p.kind)
                && p.kind != PlaceKind::Landmark
            {
                table.push(format!("{}: {t}", p.name));
            }
        }
    }
    if any_river {
        table.push(sys.river.clone());
    }
    para(o, "  Table     ", &format!("{}.", table.join("; ")));
}

/// THE TABLE: laid out for the wider side's front (and ETYFW's opening).
fn the_table(o: &mut String, cx: &Ctx<'_>, sides: &[Forces<'_>]) -> Result<Layout, BriefError> {
    let front = sides
        .iter()
        .map(|(_, es, _)| es.iter().filter(|e| e.counted).map(|e| e.elements()).sum())
        .max()
        .unwrap_or(0);
    let opening = cx.resolver.map(|t| opening(t, cx.scn, cx.combat, sides));
    let layout = lay_out(
        cx.scn,
        cx.combat,
        cx.sys,
        front,
        opening.as_ref().map(|o| &o.0),
    )?;
    table_section(
        o,
        cx.scn,
        cx.combat,
        cx.sys,
        &layout,
        cx.resolver,
        opening.as_ref(),
    );
    Ok(layout)
}

/// FORCES IN the rules: the scale, then each side's leaders, morale and
/// units.
fn forces_section(o: &mut String, cx: &Ctx<'_>, sides: &[Forces<'_>]) {
    let sys = cx.sys;
    line(o, "");
    line(o, &format!("FORCES IN {}", cx.rules.title().to_uppercase()));
    para(o, "  ", &sys.scale);
    para(o, "  ", &sys.leader.rule);
    if cx.resolver.is_some_and(|t| t.leader_rally_rerolls) {
        para(
            o,
            "  ",
            "The resolver's leader re-rolls are on (scenarios/etyfw.ron): the leader whose tactical rating counts (7.3; a C-in-C's always) lets his side re-roll one failed rally die a move a point of it.",
        );
    }
    for (side, es, leaders) in sides {
        let counted = es.iter().filter(|e| e.counted).count();
        let sp: u32 = es
            .iter()
            .filter(|e| e.counted)
            .map(|e| e.unit.strength)
            .sum();
        line(o, "");
        let role = if *side == cx.combat.attacker {
            "attacking"
        } else {
            "defending"
        };
        line(
            o,
            &format!(
                "{} SIDE, {role}: {} counted, {sp} strength points",
                side.to_string().to_uppercase(),
                plural(counted, "unit")
            ),
        );
        leader_lines(o, cx, *side, leaders);
        para(o, "  Morale    ", &format!("{}.", sys.morale.of(*side)));
        for g in alike_groups(es) {
            unit_lines(o, sys, &g);
        }
    }
}

/// A side's leaders, with the one whose rating counts (7.3).
fn leader_lines(o: &mut String, cx: &Ctx<'_>, side: Side, leaders: &[&Leader]) {
    let ruling = ruling_leader(cx.state, leaders);
    if leaders.is_empty() {
        line(o, "  Leader    none.");
    }
    let figures = cx.sys.leader.of(side);
    // ETYFW's leaders lend a rating only when the resolver's re-rolls
    // are on (scenarios/etyfw.ron).
    let rated = cx.resolver.is_none_or(|t| t.leader_rally_rerolls);
    for l in leaders {
        let mut t = format!(
            "{}: strategic {}, tactical {}{}; ",
            l.name,
            l.strategic,
            l.tactical,
            if l.c_in_c { ", C-in-C" } else { "" }
        );
        if !rated {
            let _ = write!(t, "{}; no rating in these rules.", figures.figure);
        } else if ruling.is_some_and(|r| r.name == l.name) && l.tactical > 0 {
            let _ = write!(
                t,
                "his rating counts (7.3): {} and {} x {}.",
                figures.figure, l.tactical, figures.per_point
            );
        } else {
            let _ = write!(t, "{}, no rating.", figures.figure);
        }
        para(o, "  Leader    ", &t);
    }
}

/// Units alike (type, strength, state, no name of their own), grouped to
/// be shown once with every ID.
fn alike_groups<'e, 'a>(es: &'e [Entry<'a>]) -> Vec<Vec<&'e Entry<'a>>> {
    let mut groups: Vec<Vec<&Entry<'_>>> = Vec::new();
    for e in es {
        let alike = |g: &Vec<&Entry<'_>>| {
            let f = g[0];
            f.ty.id == e.ty.id
                && f.unit.strength == e.unit.strength
                && f.unit.disrupted == e.unit.disrupted
                && f.unit.name.is_none()
                && e.unit.name.is_none()
        };
        match groups.iter_mut().find(|g| alike(g)) {
            Some(g) => g.push(e),
            None => groups.push(vec![e]),
        }
    }
    groups
}

/// A group of units alike: their IDs and type, then the elements they
/// field and the losses that disrupt and eliminate each.
fn unit_lines(o: &mut String, sys: &System, g: &[&Entry<'_>]) {
    let e = g[0];
    let ids: Vec<String> = g.iter().map(|x| x.unit.id.to_string()).collect();
    let mut h = format!("{} {}", ids.join(" "), e.ty.name);
    if let Some(n) = &e.unit.name {
        let _ = write!(h, " \"{n}\"");
    }
    let _ = write!(
        h,
        ": {} {}, class {}, {} SP{}",
        e.ty.nation,
        e.ty.kind,
        e.ty.quality.letter(),
        e.unit.strength,
        if g.len() > 1 { " each" } else { "" }
    );
    if e.unit.disrupted {
        h.push_str(", DISRUPTED");
    }
    if !e.counted {
        h.push_str(", not counted (9.8)");
    }
    let pad = "        ";
    hanging(o, "  ", pad, &h);
    let n = e.elements();
    if n == 0 {
        para(o, pad, &format!("{}.", e.troop.class));
        return;
    }
    let fielded = if e.unit.disrupted && sys.disrupted_halved {
        n.div_ceil(2)
    } else {
        n
    };
    para(
        o,
        pad,
        &format!("{fielded} {}: {}.", element(sys, fielded), e.troop.class),
    );
    let (d, el) = thresholds(sys, n);
    if e.unit.disrupted {
        para(
            o,
            pad,
            &format!(
                "ELIMINATED at {} more lost (disrupted again, 9.7).",
                plural(d as usize, "point")
            ),
        );
    } else {
        para(
            o,
            pad,
            &format!(
                "DISRUPTED at {} lost, ELIMINATED at {el}.",
                plural(d as usize, "point")
            ),
        );
    }
}

/// WHAT WINS: 9.8 for both sides, the captures of 9.9 and the leaders'
/// and victory rules that this battle may bring about.
fn what_wins(o: &mut String, cx: &Ctx<'_>, sides: &[Forces<'_>]) {
    let (scn, combat, defender) = (cx.scn, cx.combat, cx.defender);
    line(o, "");
    line(o, "WHAT WINS: THE CAMPAIGN RULES");
    para(
        o,
        "  ",
        "9.8: \"A stack loses a combat if it ends a melee round with at least 50% of it's units disrupted or dead. Do not count gunboat, fleet or boat units in this total. It does not matter how many of those units were disrupted before combat.\" One side losing is the other's win; both or neither, a draw.",
    );
    let need = |side: Side| -> (usize, usize) {
        let n = sides
            .iter()
            .filter(|(s, _, _)| *s == side)
            .flat_map(|(_, es, _)| es.iter().filter(|e| e.counted))
            .count();
        (n.div_ceil(2), n)
    };
    let (an, at_) = need(combat.attacker);
    let (dn, dt) = need(defender);
    let in_settlement = scn
        .map
        .place_at(combat.defender_hex)
        .is_some_and(|p| matches!(p.kind, PlaceKind::Town | PlaceKind::Village));
    para(
        o,
        "  ",
        &format!(
            "The {a} side loses with {an} of its {at_} units DISRUPTED or ELIMINATED, the {d} side with {dn} of its {dt}. {a} objective: break the {d}s and keep fewer than {an} of your own so; winning, the stack may march on with its movement points left (8.31); losing, it retreats the way it came and marches no more this turn (9.8). {d} objective: hold; losing, {ret}. A draw ends the attacker's march (9.8).",
            a = combat.attacker,
            d = defender,
            ret = if in_settlement {
                "it need not retreat from a town or village (9.8)"
            } else {
                "it retreats up to its full movement allowance, at least 1 hex (9.8)"
            }
        ),
    );
    let egyptians = sides
        .iter()
        .find(|(s, _, _)| *s == Side::Egyptian)
        .map(|(_, es, ls)| (es, ls));
    if let Some((es, _)) = egyptians {
        capture_line(o, scn, es);
    }
    let egyptian_leaders = egyptians.map_or(&[][..], |(_, ls)| ls.as_slice());
    para(
        o,
        "  ",
        &victory_notes(scn, sides, egyptian_leaders).join(" "),
    );
}

/// 9.9: the Egyptian gun and rifle units the Mahdists may capture if they
/// win, by the roll each needs (Egyptian units 4-6, British 6; tables.ron
/// gives it by nation).
fn capture_line(o: &mut String, scn: &Scenario, es: &[Entry<'_>]) {
    let mut by_need: Vec<(i32, Vec<String>)> = Vec::new();
    for e in es
        .iter()
        .filter(|e| e.counted && e.ty.fires && e.ty.captured_as.is_some())
    {
        let Some(need) = scn
            .tables
            .capture
            .guns_and_rifles
            .iter()
            .find(|(n, _)| *n == e.ty.nation)
            .map(|(_, v)| *v)
        else {
            continue;
        };
        match by_need.iter_mut().find(|(n, _)| *n == need) {
            Some((_, ids)) => ids.push(e.unit.id.to_string()),
            None => by_need.push((need, vec![e.unit.id.to_string()])),
        }
    }
    by_need.sort();
    let capturable: Vec<String> = by_need
        .iter()
        .map(|(need, ids)| {
            let roll = if *need >= 6 {
                "6".to_string()
            } else {
                format!("{need}-6")
            };
            format!("{} on {roll}", ids.join(" "))
        })
        .collect();
    if !capturable.is_empty() {
        para(
            o,
            "  ",
            &format!(
                "9.9: \"When Mahdist units win a combat they may capture enemy gun and rifle units that they destroy in combat.\" If the Mahdists win, roll a D6 for each of these ELIMINATED: {}; name those taken on a CAPTURED line.",
                capturable.join("; ")
            ),
        );
    }
}

/// 7.2 and the scenario's victory conditions this battle may meet.
fn victory_notes(
    scn: &Scenario,
    sides: &[Forces<'_>],
    egyptian_leaders: &[&Leader],
) -> Vec<String> {
    let mut notes = vec!["7.2: a leader whose units are all ELIMINATED is removed.".to_string()];
    for v in &scn.def.victory {
        match v {
            VictoryCondition::BritishLeaderStackEliminated
                if egyptian_leaders.iter().any(|l| l.nation == Nation::British) =>
            {
                notes.push("4.2: \"The Mahdist player wins if any stack containing a British leader is totally eliminated in combat.\"".into());
            }
            VictoryCondition::LeaderEliminated { leader, winner } => {
                let here = sides
                    .iter()
                    .flat_map(|(_, _, ls)| ls.iter())
                    .any(|l| scn.units.leader(leader).is_some_and(|x| x.name == l.name));
                if here {
                    notes.push(format!(
                        "4.1: if {leader} is removed, the {winner} player wins the game."
                    ));
                }
            }
            _ => {}
        }
    }
    notes
}

/// FROM THE TABLE TO THE CAMPAIGN: how loss points become fates.
fn reading_back(o: &mut String, sys: &System) {
    line(o, "");
    line(o, "FROM THE TABLE TO THE CAMPAIGN");
    para(
        o,
        "  ",
        &format!(
            "Each unit's fate comes from its loss points: {}. In good order at the start: DISRUPTED from {}/{} of its points lost (at least 1), ELIMINATED with more than {}/{}; the numbers are under each unit above. A unit DISRUPTED at the start {}; it ends DISRUPTED or, losing {}/{} of its points more, ELIMINATED (9.7), never in GOOD ORDER.",
            sys.points,
            sys.disrupted_from.0,
            sys.disrupted_from.1,
            sys.eliminated_over.0,
            sys.eliminated_over.1,
            sys.disrupted_start,
            sys.disrupted_from.0,
            sys.disrupted_from.1,
        ),
    );
    let mut also = sys.also.join(" ");
    also.push_str(" Civilians are ELIMINATED only after every other unit of their side (9.4). Units not on the table keep their state.");
    para(o, "  ", also.trim_start());
}

/// THE RESULT: the lines to mail back, filled in as "nothing happened".
fn result_section(o: &mut String, sides: &[Forces<'_>]) {
    line(o, "");
    line(o, "THE RESULT");
    para(
        o,
        "  ",
        "Edit the lines below and mail them back: each unit's fate (GOOD ORDER, DISRUPTED or ELIMINATED), the winner 9.8 gives (WINNER EGYPTIAN, WINNER MAHDIST or DRAW), a CAPTURED line for units taken, a RETREAT TO line (a place or hex) if the loser's way back is chosen on the table. As printed they read: nothing happened.",
    );
    line(o, "");
    let start_fate = |e: &Entry<'_>| {
        if e.unit.disrupted {
            Fate::Disrupted
        } else {
            Fate::GoodOrder
        }
    };
    let lost = |side: Side| {
        let c: Vec<&Entry<'_>> = sides
            .iter()
            .filter(|(s, _, _)| *s == side)
            .flat_map(|(_, es, _)| es.iter().filter(|e| e.counted))
            .collect();
        let hurt = c
            .iter()
            .filter(|e| start_fate(e) != Fate::GoodOrder)
            .count();
        !c.is_empty() && hurt * 2 >= c.len()
    };
    line(
        o,
        match (lost(Side::Egyptian), lost(Side::Mahdist)) {
            (false, true) => "WINNER EGYPTIAN",
            (true, false) => "WINNER MAHDIST",
            _ => "DRAW",
        },
    );
    for (_, es, _) in sides {
        for e in es {
            line(o, &format!("{} {}", e.unit.id, start_fate(e)));
        }
    }
    line(o, "END");
}

/// THE MAHDISTS ON THE TABLE: the seed's reaction and ambush tables for a
/// player who runs the programmed Mahdists himself.
fn solo_section(o: &mut String, cx: &Ctx<'_>) {
    line(o, "");
    line(o, "THE MAHDISTS ON THE TABLE (programmed player, seed 002)");
    let mut t = String::from(
        "The umpire runs the Mahdists: each Mahdist unit in sight tests on the reaction table (2D6) each turn after the random event, \"Following a melee\", \"Second turn after arriving on board\" and \"Following any change in circumstances\"; the strength columns compare the enemy it sees with its own, in figures.",
    );
    if cx.combat.ambush {
        t.push_str(" This battle is an ambush: the ambushers test on the \"Enemy in Open\" rows (seed 002).");
    }
    para(o, "  ", &t);
    line(o, "");
    let tables = cx.scn.reactions.table_text_narrow(WIDTH);
    if cx.sys.table.measure == Measure::Centimetres {
        o.push_str(&in_centimetres(&tables));
    } else {
        o.push_str(&tables);
    }
}

/// The leader whose tactical rating counts (7.3, 7.0): a C-in-C's values
/// always; else the best tactical rating. A leader a random event made
/// inactive this month lends none.
fn ruling_leader<'a>(state: &GameState, leaders: &[&'a Leader]) -> Option<&'a Leader> {
    let pick = leaders
        .iter()
        .filter(|l| l.c_in_c)
        .max_by_key(|l| (l.tactical, std::cmp::Reverse(l.name.clone())))
        .or_else(|| {
            leaders
                .iter()
                .filter(|l| !state.effects.inactive.contains(&l.name))
                .max_by_key(|l| (l.tactical, std::cmp::Reverse(l.name.clone())))
        })
        .copied()?;
    (!state.effects.inactive.contains(&pick.name)).then_some(pick)
}

/// Loss points at which a unit of `elements` elements is disrupted and
/// eliminated.
fn thresholds(sys: &System, elements: u32) -> (u32, u32) {
    let points = elements * sys.points_per_element;
    let d = sys.disrupted_from.of_up(points).max(1);
    let e = sys.eliminated_over.of_down(points) + 1;
    (d, e.max(d))
}

/// The rule set's element in the number of `n` ("1 stand", "2 stands"):
/// the data names them in the plural.
fn element(sys: &System, n: u32) -> &str {
    if n == 1 {
        sys.element.strip_suffix('s').unwrap_or(&sys.element)
    } else {
        &sys.element
    }
}

fn place_word(k: PlaceKind) -> &'static str {
    match k {
        PlaceKind::Town => "town",
        PlaceKind::Village => "village",
        PlaceKind::Oasis => "oasis, wells",
        PlaceKind::Landmark => "landmark",
    }
}

fn month_name(m: u32) -> &'static str {
    const NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    NAMES
        .get(usize::try_from(m).unwrap_or(0).wrapping_sub(1))
        .copied()
        .unwrap_or("")
}

fn plural(n: usize, noun: &str) -> String {
    crate::words::count(n, noun, &format!("{noun}s"))
}

fn line(out: &mut String, s: &str) {
    out.push_str(s.trim_end());
    out.push('\n');
}

/// `text` wrapped to [`WIDTH`], the first line after `head`, the others
/// indented as far.
fn para(out: &mut String, head: &str, text: &str) {
    hanging(out, head, &" ".repeat(head.chars().count()), text);
}

/// `text` wrapped to [`WIDTH`], the first line after `head`, the others
/// after `indent`.
fn hanging(out: &mut String, head: &str, indent: &str, text: &str) {
    let opts = textwrap::Options::new(WIDTH)
        .initial_indent(head)
        .subsequent_indent(indent);
    for l in textwrap::wrap(text, opts) {
        line(out, &l);
    }
}

/// The start lines of an ETYFW battle, as the resolver sets them
/// (`scenarios/etyfw.ron`): seed section 6, "Units of Regular Troops throw
/// a Normal Dice (D6) at the end of the Movement Phase to determine the
/// distance at which units of various sizes will be seen", read once for
/// the opening distance, in the column of the largest attacking unit
/// ("Company-sized unit - single stand ... Battalion-sized unit - Two to
/// six Company-sized units. Brigade-sized unit - Seven or more"), "+1" if
/// "the terrain is Open Terrain". Returns the table's opening and the
/// words for it.
fn opening(t: &Tables, scn: &Scenario, combat: &Combat, sides: &[Forces<'_>]) -> (Opening, String) {
    let cm = |mm: i32| f64::from(mm) / 10.0;
    let behind = cm(t.table_depth);
    if combat.ambush {
        let d = cm(t.ambush_distance);
        let text = format!(
            "An ambush (seed 002): no reconnaissance roll; the start lines are {} cm apart.",
            layout::whole(d)
        );
        return (Opening { behind, widest: d }, text);
    }
    let defender = combat.attacker.enemy();
    let (class, class_name) = match defender {
        Side::Egyptian => (
            0,
            "Regular (British, Egyptian and Indian troops 'Move and Reconnoitre as Regulars', section 17)",
        ),
        Side::Mahdist => (
            1,
            "Irregular (Mahdist troops reconnoitre as Irregulars, section 17)",
        ),
    };
    let stands = sides
        .iter()
        .filter(|(s, _, _)| *s == combat.attacker)
        .flat_map(|(_, es, _)| es.iter())
        .filter(|e| {
            e.counted
                && !matches!(
                    e.ty.kind,
                    UnitKind::Supply | UnitKind::Camel | UnitKind::Civilian
                )
        })
        .map(Entry::elements)
        .max()
        .unwrap_or(1);
    let (col, col_name) = match stands {
        0 | 1 => (0, "Company-sized"),
        2..=6 => (1, "Battalion-sized"),
        _ => (2, "Brigade-sized"),
    };
    let open = open_terrain(scn, combat);
    let scores = if open { 2..=7 } else { 1..=6 };
    let rows: Vec<(i32, Option<i32>)> = scores
        .filter_map(|score| {
            let row = t.recon[class].get(usize::try_from(score - 1).ok()?)?;
            Some((score, row[col]))
        })
        .collect();
    let widest = rows
        .iter()
        .filter_map(|(_, d)| *d)
        .chain([t.unseen_distance])
        .max()
        .map_or(0.0, cm);
    let cells: Vec<String> = rows
        .iter()
        .map(|(s, d)| match d {
            Some(d) => format!("{s} {}", layout::whole(cm(*d))),
            None => format!("{s} -"),
        })
        .collect();
    let text = format!(
        "The {defender} side rolls one D6 on the reconnaissance table (section 6), {class_name}, column {col_name} (the largest attacking unit, {stands}){open_text}: {} cm; '-' is {} cm. The attacking side's start line is that far from the defending side's; the table is laid for the longest. A stand more than {} cm behind its own start line has left the table.",
        cells.join(", "),
        layout::whole(cm(t.unseen_distance)),
        layout::whole(behind),
        stands = plural(stands as usize, "stand"),
        open_text = if open { ", +1 in Open Terrain" } else { "" },
    );
    (Opening { behind, widest }, text)
}

/// The battle hex is Open Terrain for ETYFW: clear, without a settlement
/// ("Flat terrain with no vertical obstructions to vision").
fn open_terrain(scn: &Scenario, combat: &Combat) -> bool {
    let hex = combat.defender_hex;
    scn.map.terrain(hex) == Some(crate::geo::Terrain::Clear)
        && scn
            .map
            .place_at(hex)
            .is_none_or(|p| p.kind == PlaceKind::Landmark)
}

/// THE TABLE: the size and edges, the zones, the scenery, the rivers, who
/// moves first, the set-up, the turns and the end, in the rule set's own
/// unit ([`super::layout`]; docs/tabletop.md, "The table").
fn table_section(
    o: &mut String,
    scn: &Scenario,
    combat: &Combat,
    sys: &System,
    l: &Layout,
    resolver: Option<&Tables>,
    opening: Option<&(Opening, String)>,
) {
    let (a, d) = (l.attacker, l.defender());
    line(o, "");
    line(
        o,
        &format!(
            "THE TABLE (in {}; see the diagram)",
            measure_name(l.measure)
        ),
    );
    para(
        o,
        "  Size      ",
        &format!(
            "{}. The {a} side attacks from the {} ({}): its edge is the near edge; the {d} edge, the far one, faces {}. A piece at (x, y) is centred x from the left edge and y from the {a} edge.",
            l.size_text(),
            l.attack_from,
            scn.map.describe(combat.attacker_hex),
            l.attack_from.opposite(),
        ),
    );
    let settlement = l
        .pieces
        .iter()
        .find(|p| p.half == d && p.size.0 > 0.0 && is_settlement(p.look))
        .map(|p| format!(", and in {}", p.name))
        .unwrap_or_default();
    let zones = format!(
        "{a}s: within {} behind their start line, which is {} from their edge. {d}s: within {} behind theirs, {} from the {a} edge and {} from their own{settlement}. {} between the start lines.",
        l.len(l.zone_depth),
        l.len(l.attacker_behind()),
        l.len(l.zone_depth),
        l.len(l.defender_line),
        l.len(l.defender_behind()),
        l.len(l.gap),
    );
    para(o, "  Zones     ", &zones);
    if let Some((_, text)) = opening {
        para(o, "            ", text);
    }
    if l.pieces.is_empty() {
        para(
            o,
            "  Scenery   ",
            "none: the ground is open (no scenery is Open Terrain).",
        );
    }
    // Pieces alike (name, half, size) are listed once, with every place.
    let mut groups: Vec<(&layout::Placed, Vec<String>)> = Vec::new();
    for p in &l.pieces {
        let at = format!("({}, {})", layout::whole(p.at.0), layout::whole(p.at.1));
        match groups
            .iter_mut()
            .find(|(q, _)| q.name == p.name && q.half == p.half && q.size == p.size)
        {
            Some((_, ats)) => ats.push(at),
            None => groups.push((p, vec![at])),
        }
    }
    for (p, ats) in groups {
        para(
            o,
            "  Scenery   ",
            &format!(
                "{}{}, {} x {} {}, at {} ({}s' half): {}.",
                if ats.len() > 1 {
                    format!("{} ", ats.len())
                } else {
                    String::new()
                },
                if ats.len() > 1 {
                    plural_name(&p.name)
                } else {
                    p.name.clone()
                },
                layout::whole(p.size.0),
                layout::whole(p.size.1),
                l.measure.short(),
                and_list(&ats),
                p.half,
                p.rules
            ),
        );
    }
    for r in &l.rivers {
        let through: Vec<String> = r
            .points
            .iter()
            .map(|(x, y)| format!("({}, {})", layout::whole(*x), layout::whole(*y)))
            .collect();
        let fords: Vec<String> = r
            .fords
            .iter()
            .map(|(x, y)| format!("({}, {})", layout::whole(*x), layout::whole(*y)))
            .collect();
        let rule = &sys.table;
        para(
            o,
            "  River     ",
            &format!(
                "the {} ({}), {} {} wide, through {}. Its banks: a strip {} {} wide on each side, {}. Fords {} {} wide at {}: {}.",
                r.name,
                r.class,
                rule.river_width,
                l.measure.short(),
                through.join(", "),
                rule.bank,
                l.measure.short(),
                rule.banks,
                rule.ford,
                l.measure.short(),
                fords.join(" and "),
                rule.fords,
            ),
        );
    }
    para(o, "  First     ", &sys.table.first);
    for (i, step) in sys.table.set_up.iter().enumerate() {
        para(o, "  Set-up    ", &format!("{}. {step}", i + 1));
    }
    let (turns, end) = match resolver {
        Some(t) => (
            t.move_limit,
            sys.table
                .end
                .replace(
                    "{break}",
                    &format!("at least {}/{}", t.break_fraction.0, t.break_fraction.1),
                )
                .replace("{moves}", &t.move_limit.to_string()),
        ),
        None => (sys.table.turns.unwrap_or(12), sys.table.end.clone()),
    };
    let word = if resolver.is_some() { "moves" } else { "turns" };
    para(o, "  The end   ", &format!("{turns} {word} at most. {end}"));
    para(
        o,
        "            ",
        "Then each unit's fate is read from its losses (FROM THE TABLE TO THE CAMPAIGN, below) and the winner from the fates by 9.8 (WHAT WINS): the table's own victory does not count.",
    );
}

fn is_settlement(look: layout::Look) -> bool {
    matches!(
        look,
        layout::Look::Town | layout::Look::Village | layout::Look::Wells
    )
}

fn measure_name(m: Measure) -> &'static str {
    match m {
        Measure::Inches => "inches",
        Measure::Centimetres => "centimetres",
    }
}

/// Seed 002's inches in centimetres (ETYFW measures in centimetres):
/// "36 inches" and `36"` as "91 cm".
fn in_centimetres(text: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            digits.push(c);
            rest = &rest[1..];
            continue;
        }
        if !digits.is_empty() {
            let n: f64 = digits.parse().unwrap_or(0.0);
            let cm = layout::whole(n * 2.54);
            if let Some(r) = rest.strip_prefix(" inches") {
                out.push_str(&format!("{cm} cm"));
                rest = r;
                digits.clear();
                continue;
            }
            if let Some(r) = rest.strip_prefix('"') {
                out.push_str(&format!("{cm} cm"));
                rest = r;
                digits.clear();
                continue;
            }
            out.push_str(&digits);
            digits.clear();
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out.push_str(&digits);
    out
}

/// "scrub patch" as "scrub patches".
fn plural_name(name: &str) -> String {
    if name.ends_with('h') || name.ends_with('s') {
        format!("{name}es")
    } else {
        format!("{name}s")
    }
}

/// "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
