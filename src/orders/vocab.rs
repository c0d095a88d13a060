//! The words of a scenario that orders may use: places (through the map),
//! leaders, unit IDs, reinforcement ids and railway lines.

use std::collections::BTreeMap;

use crate::diag::suggest;
use crate::engine::orders::{MONTHLY_SUPPLY, RECRUITS};
use crate::geo::Map;
use crate::scenario::{Scenario, Side};
use crate::state::UnitId;

/// Names known to the parser, all matched ignoring case and spacing.
#[derive(Clone, Debug)]
pub struct Vocabulary {
    pub map: std::sync::Arc<Map>,
    /// The names of the scenario's data, shared by every vocabulary made
    /// for the same data on a thread.
    words: std::sync::Arc<Words>,
    /// The leaders on the map in the game the orders are for, when known:
    /// suggestions prefer them.
    on_map: Vec<String>,
}

/// The names a scenario's data gives the order language.
#[derive(Debug)]
struct Words {
    /// Leader names and aliases (as keys) to the leader's name.
    leaders: BTreeMap<String, String>,
    /// Unit type codes ("ER") to the number of counters of that type.
    codes: BTreeMap<String, u32>,
    /// Reinforcement ids (lower case) to the id and its side.
    reinforcements: BTreeMap<String, (String, Side)>,
    /// Railway line names by key.
    railways: BTreeMap<String, String>,
}

/// The data a thread last made [`Words`] from, and the words: a cache
/// that never changes an answer (it holds the map, units and scenario it
/// was made from, so a vocabulary for other data is made anew). Programs
/// check orders many times a month.
type Made = (
    std::sync::Arc<Map>,
    std::sync::Arc<crate::scenario::Units>,
    std::sync::Arc<crate::scenario::ScenarioFile>,
    std::sync::Arc<Words>,
);

thread_local! {
    static MADE: std::cell::RefCell<Option<Made>> = const { std::cell::RefCell::new(None) };
}

/// A name reduced to letters and digits, lower case.
pub fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl Vocabulary {
    pub fn new(scn: &Scenario) -> Vocabulary {
        let words = MADE.with(|m| {
            let mut m = m.borrow_mut();
            if let Some((map, units, def, w)) = m.as_ref()
                && std::sync::Arc::ptr_eq(map, &scn.map)
                && std::sync::Arc::ptr_eq(units, &scn.units)
                && std::sync::Arc::ptr_eq(def, &scn.def)
            {
                return w.clone();
            }
            let w = std::sync::Arc::new(Words::new(scn));
            *m = Some((
                scn.map.clone(),
                scn.units.clone(),
                scn.def.clone(),
                w.clone(),
            ));
            w
        });
        Vocabulary {
            map: scn.map.clone(),
            words,
            on_map: Vec::new(),
        }
    }
}

impl Words {
    fn new(scn: &Scenario) -> Words {
        let mut leaders = BTreeMap::new();
        for l in scn.units.leaders() {
            leaders.insert(key(&l.name), l.name.clone());
            for a in &l.aliases {
                leaders.insert(key(a), l.name.clone());
            }
        }
        let codes = scn
            .units
            .types()
            .iter()
            .map(|t| (t.code.to_uppercase(), t.counters))
            .collect();
        let mut reinforcements: BTreeMap<String, (String, Side)> = scn
            .def
            .reinforcements
            .iter()
            .map(|r| (r.id.to_lowercase(), (r.id.clone(), r.side)))
            .collect();
        // Not scenario reinforcements, but placed by the same order: the
        // monthly supply unit (3.3) and new Mahdist units (3.21).
        if scn.def.replacements.free_supply_unit.is_some() {
            reinforcements.insert(
                MONTHLY_SUPPLY.into(),
                (MONTHLY_SUPPLY.into(), Side::Egyptian),
            );
        }
        reinforcements.insert(RECRUITS.into(), (RECRUITS.into(), Side::Mahdist));
        let railways = scn
            .map
            .railways()
            .iter()
            .map(|r| (key(&r.name), r.name.clone()))
            .collect();
        Words {
            leaders,
            codes,
            reinforcements,
            railways,
        }
    }
}

impl Vocabulary {
    /// The vocabulary for orders given in `state`: a name that is not
    /// understood is matched first against the leaders on the map.
    pub fn in_play(mut self, state: &crate::state::GameState) -> Vocabulary {
        self.on_map = state
            .leaders
            .iter()
            .filter(|l| l.hex.is_some() && !l.removed)
            .map(|l| l.name.clone())
            .collect();
        self
    }

    /// A leader's name from his name or an alias.
    pub fn leader(&self, words: &str) -> Option<&str> {
        self.words.leaders.get(&key(words)).map(String::as_str)
    }

    /// The leader meant, for a suggestion. A surname alone ("Stewart")
    /// names the leader of that surname on the map, or, where that leaves
    /// several or none is known, every leader of that surname ("H. Stewart
    /// or J. Stewart"); else the nearest name, on the map first.
    pub fn suggest_leader(&self, words: &str) -> Option<String> {
        let mut names: Vec<&str> = self.words.leaders.values().map(String::as_str).collect();
        names.sort_unstable();
        names.dedup();
        let surname = |n: &str| n.rsplit([' ', '.']).next().map(key).unwrap_or_default();
        let same: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| surname(n) == key(words))
            .collect();
        let on_map: Vec<&str> = same
            .iter()
            .copied()
            .filter(|n| self.on_map.iter().any(|m| m == n))
            .collect();
        match (on_map.as_slice(), same.as_slice()) {
            ([one], _) => return Some(one.to_string()),
            (_, [one]) => return Some(one.to_string()),
            (_, [_, _, ..]) => return Some(same.join(" or ")),
            _ => {}
        }
        let near_on_map = suggest(words, self.on_map.iter().map(String::as_str));
        near_on_map
            .or_else(|| suggest(words, names.iter().copied()))
            .map(str::to_string)
    }

    /// A unit ID as written on reports ("ER05"), read case-insensitively
    /// and with or without leading zeros ("er5"). A miss gives what is
    /// wrong and, where one is likely, the ID meant.
    pub fn unit(&self, word: &str) -> Result<UnitId, (String, Option<String>)> {
        let w = word.to_uppercase();
        let not_an_id = || (format!("{word} is not a unit ID"), None);
        let (code, digits) = match w.find(|c: char| c.is_ascii_digit()) {
            Some(i) if i > 0 => w.split_at(i),
            _ => return Err(not_an_id()),
        };
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(not_an_id());
        }
        let Some(&count) = self.words.codes.get(code) else {
            let known = suggest(code, self.words.codes.keys().map(String::as_str));
            return Err((
                format!("no unit type {code}"),
                known.map(|k| format!("{k}{digits}")),
            ));
        };
        let n: u32 = digits.parse().map_err(|_| not_an_id())?;
        if n == 0 || n > count {
            return Err((
                format!("{word}: the {code} units are numbered 1 to {count}"),
                None,
            ));
        }
        let width = if count > 99 { 3 } else { 2 };
        Ok(UnitId(format!("{code}{n:0width$}").into()))
    }

    /// Whether a word looks like a unit ID (letters then digits).
    pub fn looks_like_unit(word: &str) -> bool {
        let i = word.find(|c: char| c.is_ascii_digit());
        matches!(i, Some(i) if i > 0
            && word[..i].chars().all(|c| c.is_ascii_alphabetic())
            && word[i..].chars().all(|c| c.is_ascii_digit()))
    }

    /// A reinforcement id, ignoring case, with its side.
    pub fn reinforcement(&self, word: &str) -> Result<(String, Side), String> {
        self.words
            .reinforcements
            .get(&word.to_lowercase())
            .cloned()
            .ok_or_else(|| {
                let s = suggest(
                    word,
                    self.words
                        .reinforcements
                        .values()
                        .map(|(id, _)| id.as_str()),
                );
                match s {
                    Some(s) => format!("no reinforcement called {word}; did you mean {s}?"),
                    None => format!(
                        "no reinforcement called {word}; this scenario's are {}",
                        self.words
                            .reinforcements
                            .values()
                            .map(|(id, _)| id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            })
    }

    /// A railway line by name.
    pub fn railway(&self, words: &str) -> Result<String, String> {
        self.words
            .railways
            .get(&key(words))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "no railway line called {words}; the lines are {}",
                    self.words
                        .railways
                        .values()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}
