//! The result of a battle fought on the table, as the players mail it
//! back (docs/tabletop.md, "The result"):
//!
//! ```text
//! WINNER MAHDIST
//! BI01 BI02 DISRUPTED
//! BG01 ELIMINATED
//! MS014 MS015 GOOD ORDER
//! CAPTURED BG01
//! RETREAT TO Metammeh
//! ```
//!
//! One `WINNER EGYPTIAN`, `WINNER MAHDIST` or `DRAW` line; every unit that
//! fought named once with its fate (`GOOD ORDER`, `DISRUPTED`,
//! `ELIMINATED`); the guns and rifle units the Mahdists took (`CAPTURED`,
//! 9.9); where the loser retreats (`RETREAT TO`, optional: the engine's
//! retreat rules apply without it). Case does not matter; blank lines,
//! quoted lines (`>`) and lines after `END` are skipped.
//!
//! The result is checked against the forces and the campaign rules: every
//! unit once and no other; a unit disrupted before the battle does not end
//! it in good order (9.7), nor eliminated (disrupted again) while a unit of
//! its side ends in good order (9.4); civilians are eliminated only after every other
//! unit of their side (9.4); the winner is the one 9.8 gives ("A stack
//! loses a combat if it ends a melee round with at least 50% of it's units
//! disrupted or dead. Do not count gunboat, fleet or boat units"); only
//! the Mahdists capture, only when they won, only guns and rifle units of
//! the loser that were eliminated ("When Mahdist units win a combat they
//! may capture enemy gun and rifle units that they destroy in combat",
//! 9.9); only a loser retreats.

use std::collections::BTreeMap;
use std::fmt;

use crate::engine::elsewhere::{Combat, Resolved};
use crate::geo::{Hex, Map};
use crate::scenario::{Scenario, Side, UnitKind};
use crate::state::{GameState, UnitId};

/// One unit in a battle, as the checks need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BattleUnit {
    pub id: UnitId,
    pub side: Side,
    /// It counts for winning and losing (9.8: not a boat, gunboat or the
    /// fleet).
    pub counts: bool,
    /// A civilian unit (9.4).
    pub civilian: bool,
    /// A gun or rifle-armed unit, which the Mahdists may capture (9.9).
    pub capturable: bool,
    /// Disrupted when the battle began.
    pub disrupted: bool,
}

impl BattleUnit {
    /// A counter as the checks see it; the fleet is none (it holds no hex
    /// and is never hit, 8.25).
    fn of(scn: &Scenario, u: &crate::state::Unit) -> Option<BattleUnit> {
        let t = scn.units.get(&u.unit_type)?;
        (t.kind != UnitKind::Fleet).then(|| BattleUnit {
            id: u.id.clone(),
            side: u.side,
            counts: !t.kind.is_river_unit(),
            civilian: t.kind == UnitKind::Civilian,
            capturable: !t.kind.is_river_unit() && (t.kind == UnitKind::Gun || t.fires),
            disrupted: u.disrupted,
        })
    }
}

/// The units that fought a battle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forces {
    pub units: Vec<BattleUnit>,
}

impl Forces {
    /// The units of both sides standing in `hexes` (the marching stack's
    /// hex and the defenders'), the fleet aside (it holds no hex, 8.25).
    pub fn at(scn: &Scenario, state: &GameState, hexes: &[Hex]) -> Forces {
        let units = state
            .units
            .iter()
            .filter(|u| u.hex().is_some_and(|h| hexes.contains(&h)))
            .filter_map(|u| BattleUnit::of(scn, u))
            .collect();
        Forces { units }
    }

    /// The units of a combat as the engine met it: the counted units of
    /// both sides and the boats and gunboats with them.
    pub fn of(scn: &Scenario, state: &GameState, combat: &Combat) -> Forces {
        let named: Vec<&UnitId> = combat
            .attackers
            .iter()
            .chain(&combat.defenders)
            .chain(&combat.river_units)
            .collect();
        let units = state
            .units
            .iter()
            .filter(|u| named.contains(&&u.id))
            .filter_map(|u| BattleUnit::of(scn, u))
            .collect();
        Forces { units }
    }

    fn unit(&self, id: &str) -> Option<&BattleUnit> {
        self.units.iter().find(|u| u.id.0.eq_ignore_ascii_case(id))
    }
}

pub use crate::engine::elsewhere::Fate;

/// A table battle's result, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableResult {
    /// `None` for a draw.
    pub winner: Option<Side>,
    pub fates: BTreeMap<UnitId, Fate>,
    /// Units the Mahdists captured (9.9).
    pub captured: Vec<UnitId>,
    /// Where the loser retreats, if the result says.
    pub retreat: Option<Hex>,
    /// Lines of prose set aside (line number, text), for the receipt.
    pub ignored: Vec<(usize, String)>,
}

impl TableResult {
    /// What the engine applies: the fates, the captures as named, the
    /// retreat; `how` says in the log where the result came from.
    pub fn resolved(&self, how: String) -> Resolved {
        Resolved {
            fates: self.fates.clone(),
            captured: self.captured.clone(),
            retreat: self.retreat,
            how,
            log: Vec::new(),
        }
    }
}

/// The words a result line starts with.
const KEYWORDS: [&str; 5] = ["WINNER", "DRAW", "CAPTURED", "RETREAT", "END"];

/// A line of a result that is wrong, or a check the whole result fails
/// (line 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultError {
    /// 1-based line of the text; 0 for the result as a whole.
    pub line: usize,
    /// The line as written (empty for line 0).
    pub text: String,
    pub message: String,
    /// The likely fix, if one is likely.
    pub suggestion: Option<String>,
}

impl fmt::Display for ResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "the result: {}", self.message)?;
        } else {
            write!(f, "line {}: {}", self.line, self.message)?;
        }
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean {s}?")?;
        }
        Ok(())
    }
}

/// Read a result against the forces that fought; every error found, in
/// line order (checks of the whole result last).
pub fn read(text: &str, forces: &Forces, map: &Map) -> Result<TableResult, Vec<ResultError>> {
    let mut r = Reading::default();
    let ids: Vec<&str> = forces.units.iter().map(|u| u.id.0.as_ref()).collect();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('>') {
            continue;
        }
        let upper = trimmed.to_ascii_uppercase();
        let words: Vec<&str> = upper.split_whitespace().collect();
        if words == ["END"] {
            break;
        }
        if !is_result_line(&words, &ids) {
            r.ignored.push((line, trimmed.to_string()));
            continue;
        }
        r.read_line(line, trimmed, &words, forces, map, &ids);
    }
    let missing = r.check_fates(forces);
    let Some((winner_line, said)) = r.winner else {
        r.errors.push(whole(
            "no result: add WINNER EGYPTIAN, WINNER MAHDIST or DRAW".into(),
        ));
        r.errors.sort_by_key(|e| (e.line == 0, e.line));
        return Err(r.errors);
    };
    if !missing {
        r.check_winner(forces, winner_line, said);
    }
    r.check_captures(forces, said);
    if let Some((line, _)) = r.retreat
        && said.is_none()
    {
        r.errors
            .push(at_line(line, "a drawn battle has no retreat (9.8)".into()));
    }
    if !r.errors.is_empty() {
        r.errors.sort_by_key(|e| (e.line == 0, e.line));
        return Err(r.errors);
    }
    Ok(TableResult {
        winner: said,
        fates: r.fates.into_iter().map(|(id, (_, f))| (id, f)).collect(),
        captured: r.captured.into_iter().map(|(_, id)| id).collect(),
        retreat: r.retreat.map(|(_, h)| h),
        ignored: r.ignored,
    })
}

/// A line meant as part of the result: it starts with a keyword (or one
/// nearly spelt) or names a unit or a fate; other lines are prose.
fn is_result_line(words: &[&str], ids: &[&str]) -> bool {
    let first = words.first().copied().unwrap_or("");
    KEYWORDS.contains(&first)
        || first == "DRAWN"
        || words.iter().any(|w| {
            ids.iter().any(|id| id.eq_ignore_ascii_case(w))
                || ["DISRUPTED", "ELIMINATED", "ORDER"].contains(w)
        })
        || (first.chars().count() >= 4 && crate::diag::suggest(first, KEYWORDS).is_some())
}

/// An error of the result as a whole (line 0).
fn whole(message: String) -> ResultError {
    ResultError {
        line: 0,
        text: String::new(),
        message,
        suggestion: None,
    }
}

/// An error of a check that points at a line without quoting it.
fn at_line(line: usize, message: String) -> ResultError {
    ResultError {
        line,
        text: String::new(),
        message,
        suggestion: None,
    }
}

/// A result as read so far, each part with the line that gave it.
#[derive(Default)]
struct Reading {
    errors: Vec<ResultError>,
    winner: Option<(usize, Option<Side>)>,
    fates: BTreeMap<UnitId, (usize, Fate)>,
    captured: Vec<(usize, UnitId)>,
    retreat: Option<(usize, Hex)>,
    ignored: Vec<(usize, String)>,
}

impl Reading {
    /// One line of the result: the winner, a capture, the retreat or
    /// units' fates.
    fn read_line(
        &mut self,
        line: usize,
        trimmed: &str,
        words: &[&str],
        forces: &Forces,
        map: &Map,
        ids: &[&str],
    ) {
        let err = |message: String, suggestion: Option<String>| ResultError {
            line,
            text: trimmed.to_string(),
            message,
            suggestion,
        };
        let no_unit = |id: &str| {
            err(
                format!("no unit {id} fought this battle"),
                crate::diag::suggest(id, ids.iter().copied()).map(str::to_string),
            )
        };
        match words {
            ["WINNER", side] => match *side {
                "EGYPTIAN" | "EGYPTIANS" | "BRITISH" => {
                    self.say_winner(line, Some(Side::Egyptian), &err)
                }
                "MAHDIST" | "MAHDISTS" => self.say_winner(line, Some(Side::Mahdist), &err),
                other => self.errors.push(err(
                    format!("no side called {other}: WINNER EGYPTIAN or WINNER MAHDIST"),
                    crate::diag::suggest(other, ["EGYPTIAN", "MAHDIST"])
                        .map(|s| format!("WINNER {s}")),
                )),
            },
            ["DRAW"] | ["DRAWN"] => self.say_winner(line, None, &err),
            ["CAPTURED", rest @ ..] if !rest.is_empty() => {
                for id in rest {
                    match forces.unit(id) {
                        Some(u) => self.captured.push((line, u.id.clone())),
                        None => self.errors.push(no_unit(id)),
                    }
                }
            }
            ["RETREAT", "TO", ..] => {
                let place = trimmed
                    .split_whitespace()
                    .skip(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                match map.resolve(&place) {
                    Ok(h) => match self.retreat {
                        Some((first, _)) => self.errors.push(err(
                            format!("a second retreat (line {first} gave one)"),
                            None,
                        )),
                        None => self.retreat = Some((line, h)),
                    },
                    Err(e) => self.errors.push(err(format!("{e}"), None)),
                }
            }
            _ => match fate_line(words) {
                Some((units, fate)) => {
                    for id in units {
                        match forces.unit(id) {
                            Some(u) => self.say_fate(line, u, fate, &err),
                            None => self.errors.push(no_unit(id)),
                        }
                    }
                }
                None => {
                    let first = words.first().copied().unwrap_or("");
                    self.errors.push(err(
                        "not a line of a battle result: WINNER EGYPTIAN, WINNER MAHDIST or DRAW; units with GOOD ORDER, DISRUPTED or ELIMINATED; CAPTURED units; RETREAT TO a place; END".into(),
                        crate::diag::suggest(first, KEYWORDS)
                            .filter(|s| *s != first)
                            .map(str::to_string),
                    ))
                }
            },
        }
    }

    /// The winner (or a draw), given once.
    fn say_winner(
        &mut self,
        line: usize,
        w: Option<Side>,
        err: &dyn Fn(String, Option<String>) -> ResultError,
    ) {
        match self.winner {
            Some((first, _)) => self.errors.push(err(
                format!("the result is given twice (line {first} gave it first)"),
                None,
            )),
            None => self.winner = Some((line, w)),
        }
    }

    /// A unit's fate, given once.
    fn say_fate(
        &mut self,
        line: usize,
        u: &BattleUnit,
        fate: Fate,
        err: &dyn Fn(String, Option<String>) -> ResultError,
    ) {
        if let Some((first, _)) = self.fates.get(&u.id) {
            self.errors.push(err(
                format!("{} is given a second fate (line {first} gave one)", u.id.0),
                None,
            ));
        } else {
            self.fates.insert(u.id.clone(), (line, fate));
        }
    }

    fn fate_of(&self, u: &BattleUnit) -> Option<Fate> {
        self.fates.get(&u.id).map(|(_, f)| *f)
    }

    /// Every unit given a fate the rules allow: a unit disrupted at the
    /// start never ends in good order (9.7) nor is disrupted twice while
    /// others stand (9.4), civilians go last (9.4). Whether a fate is
    /// missing.
    fn check_fates(&mut self, forces: &Forces) -> bool {
        let missing: Vec<&str> = forces
            .units
            .iter()
            .filter(|u| !self.fates.contains_key(&u.id))
            .map(|u| u.id.0.as_ref())
            .collect();
        if !missing.is_empty() {
            self.errors.push(whole(format!(
                "every unit that fought needs its fate; not given: {}",
                missing.join(" ")
            )));
        }
        let fate_of = |u: &BattleUnit| self.fate_of(u);
        let mut errors = Vec::new();
        for u in &forces.units {
            let Some((line, fate)) = self.fates.get(&u.id) else {
                continue;
            };
            if u.disrupted && *fate == Fate::GoodOrder {
                errors.push(at_line(
                    *line,
                    format!(
                        "{} was disrupted when the battle began: it ends it disrupted or eliminated (9.7; it recovers in the recovery phase)",
                        u.id.0
                    ),
                ));
            }
            if u.disrupted && *fate == Fate::Eliminated {
                errors.extend(second_disruption(forces, u, *line, &fate_of));
            }
            if u.civilian && *fate == Fate::Eliminated {
                let others = forces
                    .units
                    .iter()
                    .filter(|o| o.side == u.side && !o.civilian)
                    .filter(|o| fate_of(o) != Some(Fate::Eliminated))
                    .map(|o| o.id.0.as_ref())
                    .collect::<Vec<_>>();
                if !others.is_empty() {
                    errors.push(at_line(
                        *line,
                        format!(
                            "civilians are eliminated only after every other unit of their side (9.4); {} still stand",
                            others.join(" ")
                        ),
                    ));
                }
            }
        }
        self.errors.extend(errors);
        !missing.is_empty()
    }

    /// 9.8: the winner the fates give is the one said.
    fn check_winner(&mut self, forces: &Forces, winner_line: usize, said: Option<Side>) {
        let lost = |side: Side| {
            let counted: Vec<&BattleUnit> = forces
                .units
                .iter()
                .filter(|u| u.side == side && u.counts)
                .collect();
            let hurt = counted
                .iter()
                .filter(|u| self.fate_of(u) != Some(Fate::GoodOrder))
                .count();
            !counted.is_empty() && hurt * 2 >= counted.len()
        };
        let by_rule = match (lost(Side::Egyptian), lost(Side::Mahdist)) {
            (false, true) => Some(Side::Egyptian),
            (true, false) => Some(Side::Mahdist),
            _ => None,
        };
        if by_rule != said {
            let name = |w: Option<Side>| match w {
                Some(Side::Egyptian) => "WINNER EGYPTIAN".to_string(),
                Some(Side::Mahdist) => "WINNER MAHDIST".to_string(),
                None => "DRAW".to_string(),
            };
            self.errors.push(ResultError {
                line: winner_line,
                text: String::new(),
                message: format!(
                    "with these fates the campaign rules give {} (9.8: a side loses with at least half its units, boats and gunboats aside, disrupted or eliminated)",
                    name(by_rule)
                ),
                suggestion: Some(name(by_rule)),
            });
        }
    }

    /// 9.9: only Mahdists who won capture, and only Egyptian gun and rifle
    /// units eliminated in the battle.
    fn check_captures(&mut self, forces: &Forces, said: Option<Side>) {
        let mut errors = Vec::new();
        for (line, id) in &self.captured {
            let Some(u) = forces.units.iter().find(|u| &u.id == id) else {
                continue;
            };
            let why = if said != Some(Side::Mahdist) {
                Some("only Mahdists who won the battle capture (9.9)".to_string())
            } else if u.side != Side::Egyptian {
                Some(format!("{} is a Mahdist unit", u.id.0))
            } else if !u.capturable {
                Some(format!("{} is not a gun or rifle unit (9.9)", u.id.0))
            } else if self.fate_of(u) != Some(Fate::Eliminated) {
                Some(format!(
                    "{} was not eliminated: only units destroyed in the battle are captured (9.9)",
                    u.id.0
                ))
            } else {
                None
            };
            if let Some(message) = why {
                errors.push(at_line(*line, message));
            }
        }
        self.errors.extend(errors);
    }
}

/// 9.4: "no disrupted unit may suffer a 2nd disruption result until all
/// units (except leaders) in the stack are disrupted"; a unit disrupted at
/// the start ends the battle eliminated when it is disrupted again
/// (docs/tabletop.md). The error for `u`, reported eliminated on `line`,
/// while a unit of its side ends in good order.
fn second_disruption(
    forces: &Forces,
    u: &BattleUnit,
    line: usize,
    fate_of: &dyn Fn(&BattleUnit) -> Option<Fate>,
) -> Option<ResultError> {
    let good = forces
        .units
        .iter()
        .filter(|o| o.side == u.side && fate_of(o) == Some(Fate::GoodOrder))
        .map(|o| o.id.0.as_ref())
        .collect::<Vec<_>>();
    (!good.is_empty()).then(|| ResultError {
        line,
        text: String::new(),
        message: format!(
            "{} was disrupted when the battle began and may not be disrupted again (eliminated) while {} of its side {} in good order (9.4); it ends DISRUPTED",
            u.id.0,
            good.join(" "),
            if good.len() == 1 { "is" } else { "are" }
        ),
        suggestion: None,
    })
}

/// `BI01 BI02 DISRUPTED`: the unit ids and the fate, if the line is one.
fn fate_line<'w>(words: &[&'w str]) -> Option<(Vec<&'w str>, Fate)> {
    let (fate, n) = match words {
        [.., "GOOD", "ORDER"] => (Fate::GoodOrder, 2),
        [.., "DISRUPTED"] => (Fate::Disrupted, 1),
        [.., "ELIMINATED"] => (Fate::Eliminated, 1),
        _ => return None,
    };
    let units = &words[..words.len() - n];
    (!units.is_empty()).then(|| (units.to_vec(), fate))
}
