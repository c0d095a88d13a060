//! How a campaign combat is set up on the tabletop (`scenarios/tabletop.ron`):
//! for each miniatures rule set the scale, what a campaign unit of each
//! nation, kind and quality is on the table, how leaders and disrupted
//! units come on, how table losses are read back into the campaign's
//! fates; and the light and weather of each month. Read and checked once,
//! every problem a [`Diagnostic`] with file, line and field; the battle
//! brief ([`super::brief`]) prints from the checked [`Tabletop`].
//!
//! The reasons for every value are in docs/tabletop.md, "The battle brief".

use serde::Deserialize;

use crate::diag::{Diagnostic, Diagnostics, Source};
use crate::geo::{PlaceKind, Terrain};
use crate::scenario::units::{Nation, Quality, UnitKind, UnitType};
use crate::scenario::{Side, Units};
use crate::state::RuleSet;

/// The file as shipped.
pub const TABLETOP_RON: &str = include_str!("../../scenarios/tabletop.ron");

/// The name the shipped file is reported under.
pub const TABLETOP_FILE: &str = "scenarios/tabletop.ron";

/// A fraction, written `(numerator, denominator)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Fraction(pub u32, pub u32);

impl Fraction {
    /// `n` times the fraction, rounded up.
    pub fn of_up(self, n: u32) -> u32 {
        (n * self.0).div_ceil(self.1.max(1))
    }

    /// `n` times the fraction, rounded down.
    pub fn of_down(self, n: u32) -> u32 {
        n * self.0 / self.1.max(1)
    }
}

/// The light and weather of a calendar month.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Light {
    pub month: u32,
    pub first_light: String,
    pub sunrise: String,
    pub sunset: String,
    pub last_light: String,
    pub weather: String,
}

/// What a campaign unit of one nation, kind and quality (any quality when
/// left out) is on the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Troop {
    pub nation: Nation,
    pub kind: UnitKind,
    #[serde(default)]
    pub quality: Option<Quality>,
    /// Table elements (figures, bases, stands) a strength point.
    pub per_sp: u32,
    /// Table elements a counter besides those (a gun and its crew).
    pub per_unit: u32,
    /// Its class in the rule set's own words.
    pub class: String,
}

impl Troop {
    fn matches(&self, t: &UnitType) -> bool {
        self.nation == t.nation
            && self.kind == t.kind
            && self.quality.is_none_or(|q| q == t.quality)
    }
}

/// What a leader is on the table, for one side.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderFigures {
    /// The leader himself.
    pub figure: String,
    /// What each point of the ruling leader's tactical rating adds.
    pub per_point: String,
}

/// Leaders in a rule set.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderRule {
    pub egyptian: LeaderFigures,
    pub mahdist: LeaderFigures,
    pub rule: String,
}

impl LeaderRule {
    /// The side's leader figures.
    pub fn of(&self, side: Side) -> &LeaderFigures {
        side.pick(&self.egyptian, &self.mahdist)
    }
}

/// Morale in a rule set, for each side.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Morale {
    pub egyptian: String,
    pub mahdist: String,
}

impl Morale {
    /// The side's morale rule.
    pub fn of(&self, side: Side) -> &str {
        side.pick(&self.egyptian, &self.mahdist)
    }
}

/// The campaign terrain of a hex on the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ground {
    pub terrain: Terrain,
    pub text: String,
}

/// A kind of place on the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceText {
    pub kind: PlaceKind,
    pub text: String,
}

/// The unit a rule set measures in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Measure {
    Inches,
    Centimetres,
}

impl Measure {
    /// The short name after a number ("in", "cm").
    pub fn short(self) -> &'static str {
        match self {
            Measure::Inches => "in",
            Measure::Centimetres => "cm",
        }
    }
}

/// Pieces of scenery a hex of one campaign terrain puts on its half of
/// the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Piece {
    pub terrain: Terrain,
    /// What a piece is ("scrub patch").
    pub name: String,
    pub count: u32,
    /// Its size, across and along the table.
    pub width: u32,
    pub depth: u32,
    /// What it is in the rule set's own terms.
    pub rules: String,
}

/// The piece a kind of place is on the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacePiece {
    pub kind: PlaceKind,
    pub width: u32,
    pub depth: u32,
}

/// How the table is laid out in a rule set (docs/tabletop.md, "The
/// table"): its size, the deployment zones, the scenery, who moves first,
/// the end. Values left `None` are read from the ETYFW resolver's own
/// settings (`scenarios/etyfw.ron`), so a battle on the table and one the
/// resolver fights are set up alike.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRule {
    pub measure: Measure,
    /// The narrowest and widest table; in between, as wide as the larger
    /// side's elements in line, with `behind` to spare at each end, in
    /// steps of `step`.
    pub min_width: u32,
    pub max_width: u32,
    pub step: u32,
    /// Frontage of one element in line (a figure in a two-rank line, a
    /// base, a stand).
    pub element_frontage: Fraction,
    /// Each side's deployment zone, from its start line back.
    pub zone_depth: u32,
    /// From each start line back to its edge; `None`: the resolver's
    /// `table_depth`.
    pub behind: Option<u32>,
    /// Between the two start lines; `None`: rolled on the resolver's
    /// reconnaissance table.
    pub gap: Option<u32>,
    /// The most turns; `None`: the resolver's `move_limit`.
    pub turns: Option<u32>,
    pub river_width: u32,
    /// The strip along each bank.
    pub bank: u32,
    /// A ford's width.
    pub ford: u32,
    /// The banks and fords in the rule set's terms.
    pub banks: String,
    pub fords: String,
    pub pieces: Vec<Piece>,
    pub place_pieces: Vec<PlacePiece>,
    /// Who moves first, in the rule set's words.
    pub first: String,
    /// The set-up, step by step, adapted to the campaign's fixed forces.
    pub set_up: Vec<String>,
    /// How the battle ends.
    pub end: String,
}

/// One miniatures rule set.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct System {
    pub rules: RuleSet,
    /// The conversion ratios, with their reason.
    pub scale: String,
    /// What the rule set's elements are called ("figures").
    pub element: String,
    /// Loss points an element is worth (a figure 1; a base or stand of two
    /// figures 2).
    pub points_per_element: u32,
    /// What counts as loss points.
    pub points: String,
    /// A unit in good order is DISRUPTED from this share of its points
    /// lost (at least 1); a unit disrupted already is disrupted again,
    /// ELIMINATED (9.7), when its new losses reach it.
    pub disrupted_from: Fraction,
    /// A unit is ELIMINATED with more than this share of its points lost.
    pub eliminated_over: Fraction,
    /// A disrupted unit comes on with half its elements (rounded up).
    pub disrupted_halved: bool,
    /// How a disrupted unit comes on.
    pub disrupted_start: String,
    /// Further readings of table results into fates.
    pub also: Vec<String>,
    pub morale: Morale,
    pub leader: LeaderRule,
    pub ground: Vec<Ground>,
    pub places: Vec<PlaceText>,
    /// The river on the table.
    pub river: String,
    pub troops: Vec<Troop>,
    pub table: TableRule,
}

impl System {
    /// What a unit of this type is on the table.
    pub fn troop(&self, t: &UnitType) -> Option<&Troop> {
        // An entry for the exact quality before one for any quality.
        self.troops
            .iter()
            .find(|tr| tr.quality.is_some() && tr.matches(t))
            .or_else(|| self.troops.iter().find(|tr| tr.matches(t)))
    }

    /// The table's words for a campaign terrain.
    pub fn ground(&self, t: Terrain) -> Option<&str> {
        self.ground
            .iter()
            .find(|g| g.terrain == t)
            .map(|g| g.text.as_str())
    }

    /// The pieces a hex of terrain `t` puts on the table.
    pub fn pieces(&self, t: Terrain) -> impl Iterator<Item = &Piece> {
        self.table.pieces.iter().filter(move |p| p.terrain == t)
    }

    /// The size of the piece a kind of place is.
    pub fn place_piece(&self, k: PlaceKind) -> Option<&PlacePiece> {
        self.table.place_pieces.iter().find(|p| p.kind == k)
    }

    /// The table's words for a kind of place.
    pub fn place(&self, k: PlaceKind) -> Option<&str> {
        self.places
            .iter()
            .find(|p| p.kind == k)
            .map(|p| p.text.as_str())
    }
}

#[derive(Deserialize)]
#[serde(rename = "Tabletop", deny_unknown_fields)]
struct File {
    light: Vec<Light>,
    rule_sets: Vec<System>,
}

/// The checked file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tabletop {
    /// Twelve months, January first.
    light: Vec<Light>,
    systems: Vec<System>,
}

impl Tabletop {
    /// The file shipped with Dervish, checked against `units`.
    pub fn shipped(units: &Units) -> Result<Tabletop, Diagnostics> {
        Tabletop::parse(TABLETOP_FILE, TABLETOP_RON, units)
    }

    /// Read and check a tabletop file: every month 1 to 12 once with its
    /// times in order, every rule set once, fractions that are fractions,
    /// every terrain and kind of place given words, and every unit type of
    /// `units` but the fleet matched by a troop entry in every rule set
    /// (the fleet is never one of a combat's units: it holds no hex, 8.25).
    pub fn parse(name: &str, text: &str, units: &Units) -> Result<Tabletop, Diagnostics> {
        let src = Source::new(name, text);
        let file: File = src.parse_ron().map_err(|d| Diagnostics(vec![d]))?;
        let mut errors: Vec<Diagnostic> = Vec::new();
        let light = check_light(&src, &file.light, &mut errors);
        check_rule_sets(&src, &file.rule_sets, &mut errors);
        for (i, s) in file.rule_sets.iter().enumerate() {
            let at = src.line_of(&format!("rules: {:?}", s.rules), 1);
            let field = format!("rule_sets[{i}]");
            let err = |f: &str, message: String, hint: &str| {
                src.error(at, format!("{field}.{f}"), message, Some(hint.to_string()))
            };
            errors.extend(check_losses(s, &err));
            errors.extend(check_words(s, &err));
            errors.extend(check_table(&s.table, s.rules, &err));
            errors.extend(check_troops(s, units, &err));
        }
        if errors.is_empty() {
            let mut systems = file.rule_sets;
            systems.sort_by_key(|s| RuleSet::ALL.iter().position(|r| *r == s.rules));
            Ok(Tabletop { light, systems })
        } else {
            Err(Diagnostics(errors))
        }
    }

    /// A rule set's data.
    pub fn system(&self, rules: RuleSet) -> Option<&System> {
        self.systems.iter().find(|s| s.rules == rules)
    }

    /// A calendar month's light (1 to 12).
    pub fn light(&self, month: u32) -> Option<&Light> {
        self.light.iter().find(|l| l.month == month)
    }
}

/// The light: every month 1 to 12 once, its times of day in order; the
/// months sorted.
fn check_light(src: &Source<'_>, given: &[Light], errors: &mut Vec<Diagnostic>) -> Vec<Light> {
    let mut light: Vec<Light> = Vec::new();
    for (i, l) in given.iter().enumerate() {
        let line = src.line_of(&format!("month: {},", l.month), 1);
        let field = format!("light[{i}]");
        if !(1..=12).contains(&l.month) {
            errors.push(src.error(
                line,
                format!("{field}.month"),
                format!("month {} is not a month", l.month),
                Some("months are 1 (January) to 12 (December)".into()),
            ));
            continue;
        }
        if light.iter().any(|o| o.month == l.month) {
            errors.push(src.error(
                line,
                format!("{field}.month"),
                format!("month {} is given twice", l.month),
                Some("give each month once".into()),
            ));
            continue;
        }
        let times: Vec<(&str, Option<u32>)> = [
            ("first_light", &l.first_light),
            ("sunrise", &l.sunrise),
            ("sunset", &l.sunset),
            ("last_light", &l.last_light),
        ]
        .into_iter()
        .map(|(f, t)| (f, minutes(t)))
        .collect();
        let mut ok = true;
        for (f, m) in &times {
            if m.is_none() {
                ok = false;
                errors.push(src.error(
                    line,
                    format!("{field}.{f}"),
                    "not a time of day".to_string(),
                    Some("write hours and minutes, such as \"06:22\"".into()),
                ));
            }
        }
        if ok && !times.windows(2).all(|w| w[0].1 < w[1].1) {
            errors.push(src.error(
                line,
                field.clone(),
                "the times are out of order".to_string(),
                Some("first_light, sunrise, sunset and last_light follow each other".into()),
            ));
        }
        light.push(l.clone());
    }
    for m in 1..=12 {
        if !given.iter().any(|l| l.month == m) {
            errors.push(src.error(
                src.line_of("light:", 1),
                "light",
                format!("month {m} has no light"),
                Some("give all twelve months, 1 to 12".into()),
            ));
        }
    }
    light.sort_by_key(|l| l.month);
    light
}

/// Every rule set given once.
fn check_rule_sets(src: &Source<'_>, rule_sets: &[System], errors: &mut Vec<Diagnostic>) {
    for r in RuleSet::ALL {
        let n = rule_sets.iter().filter(|s| s.rules == r).count();
        if n != 1 {
            errors.push(
                src.error(
                    src.line_of(&format!("rules: {r:?}"), 1)
                        .or(src.line_of("rule_sets:", 1)),
                    "rule_sets",
                    format!("the rule set {r:?} ({}) is given {n} times", r.title()),
                    Some("give each of VolleyFire, Pits1885 and Etyfw once".into()),
                ),
            );
        }
    }
}

/// A rule set's losses: fractions that are fractions, disrupted before
/// eliminated, an element worth at least a point.
fn check_losses(s: &System, err: &dyn Fn(&str, String, &str) -> Diagnostic) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for (f, fr) in [
        ("disrupted_from", s.disrupted_from),
        ("eliminated_over", s.eliminated_over),
    ] {
        if fr.1 == 0 || fr.0 == 0 || fr.0 > fr.1 {
            errors.push(err(
                f,
                format!("({}, {}) is not a share of a unit", fr.0, fr.1),
                "write (numerator, denominator), more than 0 and at most 1, such as (1, 4)",
            ));
        }
    }
    if s.disrupted_from.1 > 0
        && s.eliminated_over.1 > 0
        && s.disrupted_from.0 * s.eliminated_over.1 > s.eliminated_over.0 * s.disrupted_from.1
    {
        errors.push(err(
            "disrupted_from",
            "a unit would be eliminated before it is disrupted".into(),
            "disrupted_from is at most eliminated_over",
        ));
    }
    if s.points_per_element == 0 {
        errors.push(err(
            "points_per_element",
            "an element must be worth at least 1 loss point".into(),
            "1 for a figure, the figures on it for a base or stand",
        ));
    }
    errors
}

/// A rule set's words: the scale, element and points said, every terrain
/// and kind of place given words.
fn check_words(s: &System, err: &dyn Fn(&str, String, &str) -> Diagnostic) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for (f, v) in [
        ("scale", &s.scale),
        ("element", &s.element),
        ("points", &s.points),
    ] {
        if v.trim().is_empty() {
            errors.push(err(f, "is empty".into(), "say it in words"));
        }
    }
    for t in [Terrain::Clear, Terrain::Hills, Terrain::Mountains] {
        if s.ground(t).is_none() {
            errors.push(err(
                "ground",
                format!("no words for {} ground", t.name()),
                &format!("add (terrain: {t:?}, text: \"...\")"),
            ));
        }
    }
    for k in [
        PlaceKind::Town,
        PlaceKind::Village,
        PlaceKind::Oasis,
        PlaceKind::Landmark,
    ] {
        if s.place(k).is_none() {
            errors.push(err(
                "places",
                format!("no words for a {k:?}"),
                &format!("add (kind: {k:?}, text: \"...\")"),
            ));
        }
    }
    errors
}

/// A rule set's troops: each nation, kind and quality once and matching a
/// unit type, and every unit type but the fleet given an entry.
fn check_troops(
    s: &System,
    units: &Units,
    err: &dyn Fn(&str, String, &str) -> Diagnostic,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for (j, tr) in s.troops.iter().enumerate() {
        let dup = s.troops[..j]
            .iter()
            .any(|o| o.nation == tr.nation && o.kind == tr.kind && o.quality == tr.quality);
        let q = tr
            .quality
            .map_or("any".to_string(), |q| q.letter().to_string());
        if dup {
            errors.push(err(
                &format!("troops[{j}]"),
                format!("{} {} of quality {q} is given twice", tr.nation, tr.kind),
                "give each nation, kind and quality once",
            ));
        }
        if !units.types().iter().any(|t| tr.matches(t)) {
            errors.push(err(
                &format!("troops[{j}]"),
                format!(
                    "no unit type of units.ron is {} {} of quality {q}",
                    tr.nation, tr.kind
                ),
                "check the nation, kind and quality against scenarios/units.ron",
            ));
        }
    }
    for t in units.types() {
        if t.kind == UnitKind::Fleet {
            continue;
        }
        if s.troop(t).is_none() {
            errors.push(err(
                "troops",
                format!(
                    "no entry for {} ({}: {} {}, quality {})",
                    t.name,
                    t.id,
                    t.nation,
                    t.kind,
                    t.quality.letter()
                ),
                &format!(
                    "add (nation: {:?}, kind: {:?}, quality: Some({:?}), per_sp: ..., per_unit: ..., class: \"...\")",
                    t.nation, t.kind, t.quality
                ),
            ));
        }
    }
    errors
}

/// The table of a rule set: sizes that make a table, a piece for every
/// kind of place, and every setting given that only the ETYFW resolver may
/// leave to its own data (`None`).
fn check_table(
    t: &TableRule,
    rules: RuleSet,
    err: &dyn Fn(&str, String, &str) -> Diagnostic,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    if t.step == 0 || t.min_width == 0 || t.min_width > t.max_width {
        errors.push(err(
            "table",
            format!(
                "widths {} to {} in steps of {} make no table",
                t.min_width, t.max_width, t.step
            ),
            "give min_width at most max_width, both and step above 0",
        ));
    }
    if t.element_frontage.0 == 0 || t.element_frontage.1 == 0 {
        errors.push(err(
            "table.element_frontage",
            "an element must have a frontage".into(),
            "write (numerator, denominator), such as (1, 2) for half a unit",
        ));
    }
    for k in [PlaceKind::Town, PlaceKind::Village, PlaceKind::Oasis] {
        if !t.place_pieces.iter().any(|p| p.kind == k) {
            errors.push(err(
                "table.place_pieces",
                format!("no piece for a {k:?}"),
                &format!("add (kind: {k:?}, width: ..., depth: ...)"),
            ));
        }
    }
    let own = [("behind", t.behind), ("gap", t.gap), ("turns", t.turns)];
    for (f, v) in own {
        if rules != RuleSet::Etyfw && v.is_none_or(|v| v == 0) {
            errors.push(err(
                &format!("table.{f}"),
                "is not given".into(),
                "only the ETYFW rule set reads it from the resolver (None); give a number above 0",
            ));
        }
    }
    errors
}

/// "06:22" as minutes after midnight.
fn minutes(t: &str) -> Option<u32> {
    let (h, m) = t.trim().split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60).then_some(h * 60 + m)
}
