//! Rule cases as data, like the Diplomacy adjudicators' test cases: each
//! case is a small TOML file with a situation (scenario, month, counters
//! and leaders where they stand, control, victory counters), each side's
//! orders in the order language, the dice, and what must (and must not)
//! come of it. `docs/cases.md` describes the format.
//!
//! This module sits outside the engine: it builds a [`GameState`] from the
//! file ([`load`]), sends the orders through [`crate::orders::parse`] and
//! [`crate::orders::check`] as a player's mail goes, plays the turns with
//! the engine and compares the outcome ([`run::run`]). Nothing in the
//! engine knows of it. A game master starts a game from a case's
//! situation with `dervish game new --situation FILE`.

pub mod run;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use crate::calendar::GameMonth;
use crate::diag::{Diagnostic, Diagnostics, Source, suggest};
use crate::geo::Hex;
use crate::scenario::definition::Arrival;
use crate::scenario::events::{Effect, EventEntry, EventTable, EventsFile};
use crate::scenario::{DataSet, Scenario, Side};
use crate::state::setup::{Placements, initial_state};
use crate::state::{GameState, Railhead, Status, UnitId};

pub use run::{Outcome, run};

/// The optional rules a case may name in `rules` besides numbered
/// sections.
pub const OPTIONAL_RULES: [&str; 1] = ["ambushes"];

/// A checked case, ready to play.
#[derive(Clone, Debug)]
pub struct Case {
    /// The file it was read from, as named.
    pub file: String,
    pub name: String,
    /// The numbered rules sections it covers ("9.8").
    pub rules: Vec<String>,
    /// The scenario, with quiet events if the situation asks for them.
    pub scn: Scenario,
    /// The situation: the state the first player turn starts from.
    pub state: GameState,
    /// Each side's orders, one text a month (month 1 first).
    pub egyptian: Vec<String>,
    pub mahdist: Vec<String>,
    /// Lines the parser does not understand are allowed (a case about the
    /// receipt); otherwise such a line makes the case fail.
    pub allow_not_understood: bool,
    pub turns: Turns,
    pub months: u32,
    pub dice: DiceSpec,
    pub expect: Expect,
}

/// Which player turns a case plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turns {
    /// The Egyptian player turn alone (5.2).
    Egyptian,
    /// The Mahdist player turn alone (5.3); the calendar then moves on, as
    /// at the end of a month.
    Mahdist,
    /// Whole months: the Egyptian player turn, then the Mahdist (5.1).
    Month,
}

/// Where the dice come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiceSpec {
    /// Every die in the order rolled, then `fallback` for ever.
    Faces { faces: Vec<u32>, fallback: u32 },
    /// Seeded dice (`SeededDice::from_seed`).
    Seed(u64),
}

/// Where a counter is expected to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Hex(Hex),
    Pool,
    Reserve,
    Eliminated,
    /// Awaiting replacement; in this month if given.
    Awaiting(Option<GameMonth>),
    /// Wrecked; back in this month if given.
    Wrecked(Option<GameMonth>),
    /// Anywhere off the map.
    OffMap,
}

impl Place {
    /// Whether a counter with this status is where expected.
    pub fn matches(self, s: Status) -> bool {
        match (self, s) {
            (Place::Hex(h), Status::OnMap(x)) => h == x,
            (Place::Pool, Status::Pool)
            | (Place::Reserve, Status::Reserve)
            | (Place::Eliminated, Status::Eliminated) => true,
            (Place::Awaiting(m), Status::AwaitingReplacement(x))
            | (Place::Wrecked(m), Status::Wrecked(x)) => m.is_none_or(|m| m == x),
            (Place::OffMap, s) => !matches!(s, Status::OnMap(_)),
            _ => false,
        }
    }
}

/// A unit expected somewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitExpect {
    pub id: UnitId,
    /// As written, for messages.
    pub at_text: String,
    pub at: Option<Place>,
    pub disrupted: Option<bool>,
    /// The counter's name (a named regiment, 2.3).
    pub name: Option<String>,
    /// The counter's strength.
    pub strength: Option<u32>,
}

/// A leader expected somewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderExpect {
    pub name: String,
    pub at_text: String,
    /// `None`: off the map (not removed).
    pub at: Option<Option<Hex>>,
    pub removed: Option<bool>,
}

/// What must come of a case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expect {
    pub log: Vec<String>,
    pub not_log: Vec<String>,
    /// Fragments that must come in the log in this order.
    pub log_order: Vec<String>,
    pub receipt: BTreeMap<Side, Vec<String>>,
    pub not_receipt: BTreeMap<Side, Vec<String>>,
    /// A fragment of the result, or `None` inside for "no result".
    pub result: Option<Option<String>>,
    pub units: Vec<UnitExpect>,
    pub leaders: Vec<LeaderExpect>,
    /// Who holds each place; `None`: nobody.
    pub control: Vec<(String, Hex, Option<Side>)>,
    pub counters: BTreeMap<String, u32>,
    pub month: Option<GameMonth>,
    pub flags: BTreeMap<String, bool>,
}

// The file as written. Every table denies unknown fields, so a misspelt
// key is an error, not a silent default.

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    name: String,
    #[serde(default)]
    rules: Vec<String>,
    scenario: String,
    #[serde(default)]
    situation: SituationFile,
    #[serde(default)]
    orders: OrdersFile,
    #[serde(default)]
    play: PlayFile,
    #[serde(default)]
    dice: DiceFile,
    #[serde(default)]
    expect: ExpectFile,
}

#[derive(Deserialize, Debug, Default)]
// Every field may be left out: `default` for the whole table.
#[serde(default, deny_unknown_fields)]
struct SituationFile {
    month: Option<String>,
    board: Option<String>,
    events: Option<String>,
    state: Option<String>,
    units: Vec<UnitFile>,
    leaders: Vec<LeaderFile>,
    control: BTreeMap<String, String>,
    british_attrition_loss: Option<bool>,
    british_leader_stack_destroyed: Option<bool>,
    ended_by_event: Option<bool>,
    counters: BTreeMap<String, u32>,
    railhead: Option<RailheadFile>,
    rail_built: BTreeMap<String, usize>,
    arrived: Option<Vec<String>>,
    /// The optional ambush rule (seed 002) is in play.
    ambushes: Option<bool>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct UnitFile {
    #[serde(rename = "type")]
    unit_type: Option<String>,
    count: Option<usize>,
    id: Option<String>,
    at: Option<String>,
    status: Option<String>,
    #[serde(default)]
    disrupted: bool,
    /// The reinforcement the counters came with (3.3: Souakim Field Force
    /// units are replaced at Souakim).
    origin: Option<String>,
    /// The counter's name (a named regiment such as the Black Watch, 2.3);
    /// one counter only.
    name: Option<String>,
    /// The counter's strength (1.4), where it is not the type's.
    strength: Option<u32>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct LeaderFile {
    name: String,
    at: Option<String>,
    #[serde(default)]
    removed: bool,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RailheadFile {
    line: Option<String>,
    from: String,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct OrdersFile {
    #[serde(default)]
    egyptian: OneOrMany,
    #[serde(default)]
    mahdist: OneOrMany,
    #[serde(default)]
    allow_not_understood: bool,
}

#[derive(Deserialize, Debug, Default)]
#[serde(untagged)]
enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn texts(self) -> Vec<String> {
        match self {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct PlayFile {
    turns: Option<String>,
    months: Option<u32>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct DiceFile {
    faces: Option<Vec<u32>>,
    fallback: Option<u32>,
    seed: Option<u64>,
}

#[derive(Deserialize, Debug, Default)]
// Every field may be left out: `default` for the whole table.
#[serde(default, deny_unknown_fields)]
struct ExpectFile {
    log: Vec<String>,
    not_log: Vec<String>,
    log_order: Vec<String>,
    receipt_egyptian: Vec<String>,
    receipt_mahdist: Vec<String>,
    not_receipt_egyptian: Vec<String>,
    not_receipt_mahdist: Vec<String>,
    result: Option<String>,
    units: Vec<UnitExpectFile>,
    leaders: Vec<LeaderExpectFile>,
    control: BTreeMap<String, String>,
    counters: BTreeMap<String, u32>,
    month: Option<String>,
    british_attrition_loss: Option<bool>,
    british_leader_stack_destroyed: Option<bool>,
    ended_by_event: Option<bool>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct UnitExpectFile {
    id: String,
    at: Option<String>,
    disrupted: Option<bool>,
    name: Option<String>,
    strength: Option<u32>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct LeaderExpectFile {
    name: String,
    at: Option<String>,
    removed: Option<bool>,
}

/// Read and check a case file. Every problem found is reported, each with
/// the file, the field and what is allowed.
pub fn load(path: &Path, data: &DataSet) -> Result<Case, Diagnostics> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            file: name.clone(),
            line: None,
            field: String::new(),
            message: format!("cannot read the case file: {e}"),
            hint: None,
        }])
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    parse(&name, &text, dir, data)
}

/// Check a case from its text; `dir` is where a `state` file named in it
/// is looked for.
pub fn parse(name: &str, text: &str, dir: &Path, data: &DataSet) -> Result<Case, Diagnostics> {
    let src = Source::new(name, text);
    let file: CaseFile = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text.bytes().take(s.start).filter(|b| *b == b'\n').count() + 1);
        let message = e.message().trim().to_string();
        let hint = if message.contains("unknown field") {
            Some("check the spelling against docs/cases.md".to_string())
        } else if message.contains("missing field") {
            Some("every case needs `name` and `scenario` (see docs/cases.md)".to_string())
        } else {
            Some("the format is in docs/cases.md".to_string())
        };
        Diagnostics(vec![src.error(line, "", message, hint)])
    })?;
    let mut b = Builder {
        src: &src,
        problems: Vec::new(),
        reinforcements: Vec::new(),
    };
    let Some(mut scn) = data.scenario(&file.scenario) else {
        return Err(Diagnostics(vec![b.src.error(
            b.src.line_of_str(&file.scenario),
            "scenario",
            format!("no scenario called `{}`", file.scenario),
            Some(format!("use one of {}", data.scenario_ids().join(", "))),
        )]));
    };
    let reinforcements: Vec<String> = scn
        .def
        .reinforcements
        .iter()
        .map(|r| r.id.clone())
        .collect();
    let sit = file.situation;
    match sit.events.as_deref().unwrap_or("quiet") {
        "quiet" => quieten(&mut scn),
        "scenario" => {}
        other => b.err(
            "situation.events",
            other,
            format!("`{other}` is not an events setting"),
            "use \"quiet\" (every random event is nothing, no scheduled reinforcements) or \"scenario\"",
        ),
    }
    b.reinforcements = reinforcements;
    let state = b.situation(&scn, sit, dir);
    let turns = match file.play.turns.as_deref().unwrap_or("month") {
        "egyptian" => Turns::Egyptian,
        "mahdist" => Turns::Mahdist,
        "month" => Turns::Month,
        other => {
            b.err(
                "play.turns",
                other,
                format!("`{other}` is not a choice of turns"),
                "use \"egyptian\", \"mahdist\" or \"month\"",
            );
            Turns::Month
        }
    };
    let months = file.play.months.unwrap_or(1);
    if months == 0 || (months > 1 && turns != Turns::Month) {
        b.problems.push(b.src.error(
            b.src.line_of("months", 1),
            "play.months",
            format!("{months} months with turns = \"{}\"", turns_word(turns)),
            Some("months is 1 or more, and more than 1 only with turns = \"month\"".to_string()),
        ));
    }
    let dice = match (file.dice.faces, file.dice.seed) {
        (Some(_), Some(_)) => {
            b.problems.push(b.src.error(
                b.src.line_of("seed", 1),
                "dice",
                "both `faces` and `seed` are given",
                Some("give a list of faces or a seed, not both".to_string()),
            ));
            DiceSpec::Seed(0)
        }
        (None, Some(seed)) => DiceSpec::Seed(seed),
        (faces, None) => {
            let faces = faces.unwrap_or_default();
            let fallback = file.dice.fallback.unwrap_or(6);
            for (i, f) in faces.iter().enumerate() {
                if !(1..=100).contains(f) {
                    b.problems.push(b.src.error(
                        b.src.line_of("faces", 1),
                        format!("dice.faces[{i}]"),
                        format!("{f} is not a die face"),
                        Some(
                            "faces are 1 to 6 for a D6, 1 to 10 for a D10, 1 to 100 for the D100 of an ambush"
                                .to_string(),
                        ),
                    ));
                }
            }
            if !(1..=6).contains(&fallback) {
                b.problems.push(b.src.error(
                    b.src.line_of("fallback", 1),
                    "dice.fallback",
                    format!("{fallback} is not a die face"),
                    Some("the fallback is a face from 1 to 6".to_string()),
                ));
            }
            DiceSpec::Faces { faces, fallback }
        }
    };
    let expect = b.expect(&scn, file.expect);
    for r in &file.rules {
        let ok = r.split('.').count() == 2 && r.split('.').all(|p| p.parse::<u32>().is_ok())
            || OPTIONAL_RULES.contains(&r.as_str());
        if !ok {
            b.err(
                "rules",
                r,
                format!("`{r}` is not a rules section"),
                "write the section's number as in the rules: \"9.8\", \"3.21\"; an optional rule by its name: \"ambushes\"",
            );
        }
    }
    let state = match state {
        Some(state) if b.problems.is_empty() => state,
        _ => return Err(Diagnostics(b.problems)),
    };
    Ok(Case {
        file: name.to_string(),
        name: file.name,
        rules: file.rules,
        scn,
        state,
        egyptian: file.orders.egyptian.texts(),
        mahdist: file.orders.mahdist.texts(),
        allow_not_understood: file.orders.allow_not_understood,
        turns,
        months,
        dice,
        expect,
    })
}

fn turns_word(t: Turns) -> &'static str {
    match t {
        Turns::Egyptian => "egyptian",
        Turns::Mahdist => "mahdist",
        Turns::Month => "month",
    }
}

/// Make a scenario quiet: every random event is "nothing" and no
/// reinforcement comes, so a case sees only the rule it checks.
pub fn quieten(scn: &mut Scenario) {
    let (from, to) = (crate::calendar::FIRST, crate::calendar::LAST);
    let quiet = |side: Side| EventTable {
        id: format!("quiet-{side}"),
        side,
        from,
        to,
        entries: vec![EventEntry {
            roll: (11, 66),
            title: "Quiet".into(),
            text: String::new(),
            effects: vec![Effect::Nothing],
            once: false,
        }],
    };
    scn.events = Arc::new(EventsFile {
        tables: vec![quiet(Side::Egyptian), quiet(Side::Mahdist)],
    });
    // Scheduled reinforcements and those that come when a town falls are
    // dropped; those called by a random event stay defined (no quiet event
    // calls them, and 3.3 looks them up to replace Field Force units at
    // Souakim).
    let mut def = (*scn.def).clone();
    def.reinforcements
        .retain(|r| matches!(r.arrives, Arrival::Event(_)));
    scn.def = Arc::new(def);
}

/// A side by name.
fn side_of(text: &str) -> Option<Side> {
    match text.trim().to_ascii_lowercase().as_str() {
        "egyptian" | "british" => Some(Side::Egyptian),
        "mahdist" | "dervish" => Some(Side::Mahdist),
        _ => None,
    }
}

/// Collects problems while building a case.
struct Builder<'a> {
    src: &'a Source<'a>,
    problems: Vec<Diagnostic>,
    /// The scenario's reinforcements, before a quiet board drops them.
    reinforcements: Vec<String>,
}

impl Builder<'_> {
    /// A problem with a value, placed on the line that holds it.
    fn err(&mut self, field: &str, value: &str, message: String, allowed: &str) {
        let line = self
            .src
            .line_of_str(value)
            .or_else(|| self.src.line_of(value, 1));
        self.problems.push(
            self.src
                .error(line, field, message, Some(allowed.to_string())),
        );
    }

    fn month(&mut self, field: &str, text: &str) -> Option<GameMonth> {
        match text.parse::<GameMonth>() {
            Ok(m) => Some(m),
            Err(e) => {
                self.err(
                    field,
                    text,
                    e.to_string(),
                    "write months as yyyy-mm, from 1882-10 to 1885-10",
                );
                None
            }
        }
    }

    fn place(&mut self, scn: &Scenario, field: &str, text: &str) -> Option<Hex> {
        match scn.map.resolve(text) {
            Ok(h) => Some(h),
            Err(e) => {
                self.err(
                    field,
                    text,
                    e.to_string(),
                    "a place name from the map (`dervish map`) or a hex number such as 1942",
                );
                None
            }
        }
    }

    /// A status word for a counter off the map.
    fn status(&mut self, field: &str, text: &str, exact: bool) -> Option<Place> {
        let t = text.trim().to_ascii_lowercase();
        let (word, rest) = match t.split_once(' ') {
            Some((w, r)) => (w, Some(r.trim())),
            None => (t.as_str(), None),
        };
        let month = |b: &mut Self, r: Option<&str>| -> Option<Option<GameMonth>> {
            match r {
                Some(r) => b.month(field, r).map(Some),
                None if exact => {
                    b.err(
                        field,
                        text,
                        format!("`{text}` needs the month"),
                        "write \"awaiting 1884-05\" or \"wrecked 1884-05\"",
                    );
                    None
                }
                None => Some(None),
            }
        };
        let allowed = if exact {
            "a place or hex, or \"pool\", \"reserve\", \"eliminated\", \"awaiting yyyy-mm\", \"wrecked yyyy-mm\""
        } else {
            "a place or hex, or \"pool\", \"reserve\", \"eliminated\", \"awaiting [yyyy-mm]\", \"wrecked [yyyy-mm]\", \"off map\""
        };
        match (word, rest) {
            ("pool", None) => Some(Place::Pool),
            ("reserve", None) => Some(Place::Reserve),
            ("eliminated", None) => Some(Place::Eliminated),
            ("off", Some("map")) if !exact => Some(Place::OffMap),
            ("awaiting", r) => month(self, r).map(Place::Awaiting),
            ("wrecked", r) => month(self, r).map(Place::Wrecked),
            _ => {
                self.err(field, text, format!("`{text}` is not a status"), allowed);
                None
            }
        }
    }

    /// A place, hex or status word.
    fn whereabouts(&mut self, scn: &Scenario, field: &str, text: &str) -> Option<Place> {
        let first = text.split_whitespace().next().unwrap_or("");
        let word = first.to_ascii_lowercase();
        if [
            "pool",
            "reserve",
            "eliminated",
            "awaiting",
            "wrecked",
            "off",
        ]
        .contains(&word.as_str())
            && scn.map.resolve(text).is_err()
        {
            return self.status(field, text, false);
        }
        self.place(scn, field, text).map(Place::Hex)
    }

    fn unit_id(&mut self, state: &GameState, field: &str, text: &str) -> Option<usize> {
        if let Some(i) = state
            .units
            .iter()
            .position(|u| u.id.0.eq_ignore_ascii_case(text.trim()))
        {
            return Some(i);
        }
        let hint = match suggest(text, state.units.iter().map(|u| u.id.0.as_ref())) {
            Some(s) => format!("did you mean {s}? `dervish case show` lists the IDs"),
            None => "a counter ID as printed on reports (ER05, MS031)".to_string(),
        };
        self.err(field, text, format!("no counter {text}"), &hint);
        None
    }

    fn leader(
        &mut self,
        state: &GameState,
        scn: &Scenario,
        field: &str,
        text: &str,
    ) -> Option<usize> {
        let name = scn.units.leader(text).map(|l| l.name.clone());
        let found = name.and_then(|n| state.leaders.iter().position(|l| l.name == n));
        if found.is_none() {
            let names: Vec<&str> = state.leaders.iter().map(|l| l.name.as_str()).collect();
            let hint = match suggest(text, names.iter().copied()) {
                Some(s) => format!("did you mean {s}?"),
                None => format!("the leaders are {}", names.join(", ")),
            };
            self.err(field, text, format!("no leader called {text}"), &hint);
        }
        found
    }

    fn control_side(&mut self, field: &str, text: &str, none_ok: bool) -> Option<Option<Side>> {
        if none_ok && text.trim().eq_ignore_ascii_case("none") {
            return Some(None);
        }
        match side_of(text) {
            Some(s) => Some(Some(s)),
            None => {
                self.err(
                    field,
                    text,
                    format!("`{text}` is not a side"),
                    if none_ok {
                        "use \"egyptian\", \"mahdist\" or \"none\""
                    } else {
                        "use \"egyptian\" or \"mahdist\""
                    },
                );
                None
            }
        }
    }

    /// The state of the situation: the board, then each thing the file
    /// places or sets on it. `None` when there is no board to start from
    /// (the problem is reported).
    fn situation(&mut self, scn: &Scenario, sit: SituationFile, dir: &Path) -> Option<GameState> {
        let mut state = self.board(scn, &sit, dir)?;
        if let Some(m) = &sit.month
            && let Some(m) = self.month("situation.month", m)
        {
            state.month = m;
        }
        self.place_units(scn, &sit.units, &mut state);
        self.place_leaders(scn, &sit.leaders, &mut state);
        self.set_control(scn, &sit.control, &mut state);
        self.counters(scn, "situation.counters", &sit.counters);
        state.counters.extend(sit.counters.clone());
        set_flags(&sit, &mut state);
        self.railways(scn, &sit, &mut state);
        if let Some(arrived) = &sit.arrived {
            self.arrived(arrived, &mut state);
        }
        Some(state)
    }

    /// The board the situation starts from: a stored state, the empty
    /// board or the scenario's set-up. `None` when it cannot be made.
    fn board(&mut self, scn: &Scenario, sit: &SituationFile, dir: &Path) -> Option<GameState> {
        if let Some(file) = &sit.state {
            if let Some(board) = &sit.board {
                self.err(
                    "situation.board",
                    board,
                    "`board` and `state` are both given".to_string(),
                    "a stored state is the whole board: leave `board` out",
                );
            }
            return self.stored_state(scn, file, dir);
        }
        let mut s = match initial_state(scn, &Placements::new()) {
            Ok((s, _)) => s,
            Err(e) => {
                self.problems.push(self.src.error(
                    None,
                    "scenario",
                    format!("the scenario cannot be set up: {e}"),
                    None,
                ));
                return None;
            }
        };
        match sit.board.as_deref() {
            None | Some("empty") => clear_board(&mut s),
            Some("setup") => {}
            Some(other) => self.err(
                "situation.board",
                other,
                format!("`{other}` is not a board"),
                "use \"empty\" (every counter off the map) or \"setup\" (the scenario's set-up)",
            ),
        }
        Some(s)
    }

    /// Place the counters of `units`. Counters named by ID are taken
    /// first, so a count of a type never takes one of them.
    fn place_units(&mut self, scn: &Scenario, units: &[UnitFile], state: &mut GameState) {
        let named: BTreeSet<usize> = units
            .iter()
            .filter_map(|u| u.id.as_deref())
            .filter_map(|id| {
                state
                    .units
                    .iter()
                    .position(|u| u.id.0.eq_ignore_ascii_case(id.trim()))
            })
            .collect();
        let mut used: BTreeSet<usize> = BTreeSet::new();
        for (i, u) in units.iter().enumerate() {
            let status = self.unit_status(scn, i, u);
            let picked = self.pick_counters(scn, state, i, u, &used, &named);
            self.check_entry(i, u, picked.len());
            let Some(status) = status else { continue };
            for k in picked {
                used.insert(k);
                let c = &mut state.units[k];
                c.status = status;
                c.disrupted = u.disrupted;
                if u.origin.is_some() {
                    c.origin = u.origin.as_deref().map(Into::into);
                }
                if u.name.is_some() {
                    c.name = u.name.as_deref().map(Into::into);
                }
                if let Some(n) = u.strength {
                    c.strength = n;
                }
            }
        }
    }

    /// Where the `i`-th entry of `units` puts its counters: `at` a land
    /// hex, or a `status` off the map.
    fn unit_status(&mut self, scn: &Scenario, i: usize, u: &UnitFile) -> Option<Status> {
        let field = |f: &str| format!("situation.units[{i}].{f}");
        let status = match (&u.at, &u.status) {
            (Some(at), None) => self.place(scn, &field("at"), at).map(Status::OnMap),
            (None, Some(st)) => match self.status(&field("status"), st, true) {
                Some(Place::Pool) => Some(Status::Pool),
                Some(Place::Reserve) => Some(Status::Reserve),
                Some(Place::Eliminated) => Some(Status::Eliminated),
                Some(Place::Awaiting(Some(m))) => Some(Status::AwaitingReplacement(m)),
                Some(Place::Wrecked(Some(m))) => Some(Status::Wrecked(m)),
                _ => None,
            },
            _ => {
                self.entry_error(
                    i,
                    "give exactly one of `at` (a place or hex) and `status`",
                    "at = \"Khartoum\", or status = \"pool\", \"reserve\", \"eliminated\", \"awaiting 1884-05\", \"wrecked 1884-05\"",
                );
                None
            }
        };
        match (status, &u.at) {
            (Some(Status::OnMap(h)), Some(at)) if !scn.map.is_land(h) => {
                self.err(
                    &field("at"),
                    at,
                    format!("{} is sea or off the land map", scn.map.describe(h)),
                    "counters stand on land hexes (boats and gunboats too: beside the river)",
                );
                None
            }
            (s, _) => s,
        }
    }

    /// A problem with the `i`-th entry of `units` as a whole.
    fn entry_error(&mut self, i: usize, message: &str, example: &str) {
        let field = format!("situation.units[{i}]");
        let error = self
            .src
            .error(None, field, message, Some(example.to_string()));
        self.problems.push(error);
    }

    /// The counters the `i`-th entry of `units` places: the one named by
    /// `id`, or `count` free counters of a `type`.
    fn pick_counters(
        &mut self,
        scn: &Scenario,
        state: &GameState,
        i: usize,
        u: &UnitFile,
        used: &BTreeSet<usize>,
        named: &BTreeSet<usize>,
    ) -> Vec<usize> {
        match (&u.id, &u.unit_type) {
            (Some(id), None) => self.pick_named(state, i, u, id, used),
            (None, Some(ty)) => {
                let taken = |k: usize| used.contains(&k) || named.contains(&k);
                self.pick_free(scn, state, i, u, ty, taken)
            }
            _ => {
                self.entry_error(
                    i,
                    "give exactly one of `type` (with `count`) and `id`",
                    "type = \"brit-inf\", count = 3; or id = \"BI01\"",
                );
                vec![]
            }
        }
    }

    /// The counter an entry names by `id`, once only.
    fn pick_named(
        &mut self,
        state: &GameState,
        i: usize,
        u: &UnitFile,
        id: &str,
        used: &BTreeSet<usize>,
    ) -> Vec<usize> {
        let field = |f: &str| format!("situation.units[{i}].{f}");
        if u.count.is_some_and(|c| c != 1) {
            self.err(
                &field("count"),
                id,
                "`count` goes with `type`, not with `id`".to_string(),
                "leave `count` out for a named counter",
            );
        }
        match self.unit_id(state, &field("id"), id) {
            Some(k) if used.contains(&k) => {
                self.err(
                    &field("id"),
                    id,
                    format!("{id} is placed twice"),
                    "name each counter once",
                );
                vec![]
            }
            Some(k) => vec![k],
            None => vec![],
        }
    }

    /// `count` free counters of type `ty`, in counter order: off the map
    /// and not `taken` by another entry.
    fn pick_free(
        &mut self,
        scn: &Scenario,
        state: &GameState,
        i: usize,
        u: &UnitFile,
        ty: &str,
        taken: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let field = |f: &str| format!("situation.units[{i}].{f}");
        if scn.units.get(ty).is_none() {
            let types: Vec<&str> = scn.units.types().iter().map(|t| t.id.as_str()).collect();
            let hint = match suggest(ty, types.iter().copied()) {
                Some(s) => format!("did you mean {s}?"),
                None => format!("the types are {}", types.join(", ")),
            };
            self.err(&field("type"), ty, format!("no unit type {ty}"), &hint);
            return vec![];
        }
        let n = u.count.unwrap_or(1);
        let free: Vec<usize> = state
            .units
            .iter()
            .enumerate()
            .filter(|(k, c)| *c.unit_type == *ty && c.hex().is_none() && !taken(*k))
            .map(|(k, _)| k)
            .take(n)
            .collect();
        if free.len() < n {
            self.err(
                &field("count"),
                ty,
                format!("only {} free {ty} counters are left for {n} asked", free.len()),
                "the counter mix limits each type (docs/rules.md, Counter mix); a counter is free while it is off the map and not named elsewhere in the case",
            );
        }
        free
    }

    /// An entry's `origin` must be a reinforcement, its `name` one
    /// counter's and its `strength` 1 or more.
    fn check_entry(&mut self, i: usize, u: &UnitFile, picked: usize) {
        let field = |f: &str| format!("situation.units[{i}].{f}");
        if let Some(o) = &u.origin
            && !self.reinforcements.contains(o)
        {
            let ids = self.reinforcements.join(", ");
            self.err(
                &field("origin"),
                o,
                format!("no reinforcement called {o}"),
                &format!("the reinforcements are {ids}"),
            );
        }
        if u.strength == Some(0) {
            self.err(
                &field("strength"),
                "strength",
                "a counter's strength is 1 or more".to_string(),
                "leave `strength` out for the type's, or give 1 or more",
            );
        }
        if u.name.is_some() && picked > 1 {
            self.err(
                &field("name"),
                u.name.as_deref().unwrap_or_default(),
                "a name is one counter's".to_string(),
                "name one counter: `id = \"BI01\"` or `count = 1`",
            );
        }
    }

    fn place_leaders(&mut self, scn: &Scenario, leaders: &[LeaderFile], state: &mut GameState) {
        for (i, l) in leaders.iter().enumerate() {
            let field = format!("situation.leaders[{i}]");
            let Some(k) = self.leader(state, scn, &format!("{field}.name"), &l.name) else {
                continue;
            };
            if l.removed && l.at.is_some() {
                self.err(
                    &field,
                    &l.name,
                    "a removed leader has no place".to_string(),
                    "give `at` or `removed = true`, not both",
                );
            }
            state.leaders[k].removed = l.removed;
            state.leaders[k].hex = match &l.at {
                Some(at) => self.place(scn, &format!("{field}.at"), at),
                None => None,
            };
        }
    }

    /// Who holds each place named in a `control` table (of the situation
    /// or the expectations: `section`).
    fn control(
        &mut self,
        scn: &Scenario,
        section: &str,
        control: &BTreeMap<String, String>,
    ) -> Vec<(String, Hex, Option<Side>)> {
        let mut out = Vec::new();
        for (place, side) in control {
            let field = format!("{section}.control.{place}");
            let hex = self.place(scn, &field, place);
            let side = self.control_side(&field, side, true);
            if let (Some(h), Some(s)) = (hex, side) {
                out.push((place.clone(), h, s));
            }
        }
        out
    }

    /// Control of settlements as the situation gives it.
    fn set_control(
        &mut self,
        scn: &Scenario,
        control: &BTreeMap<String, String>,
        state: &mut GameState,
    ) {
        for (place, h, side) in self.control(scn, "situation", control) {
            if scn.map.settlement_at(h).is_none() {
                self.err(
                    &format!("situation.control.{place}"),
                    &place,
                    format!("{place} is not a settlement"),
                    "control is kept for towns, villages and forts",
                );
            }
            match side {
                Some(s) => state.control.insert(h, s),
                None => state.control.remove(&h),
            };
        }
    }

    /// The railway line called `name`, by its map name.
    fn railway(&mut self, scn: &Scenario, field: &str, name: &str) -> Option<String> {
        let found = scn
            .map
            .railways()
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name.trim()));
        if found.is_none() {
            let lines: Vec<&str> = scn.map.railways().iter().map(|r| r.name.as_str()).collect();
            self.err(
                field,
                name,
                format!("no railway line called {name}"),
                &format!("the lines are {}", lines.join(", ")),
            );
        }
        found.map(|r| r.name.clone())
    }

    /// The railhead marker and the track built (3.41).
    fn railways(&mut self, scn: &Scenario, sit: &SituationFile, state: &mut GameState) {
        if let Some(r) = &sit.railhead {
            let line = match &r.line {
                Some(l) => self.railway(scn, "situation.railhead.line", l),
                None => None,
            };
            if let Some(from) = self.month("situation.railhead.from", &r.from) {
                state.railhead = Some(Railhead { line, from });
            }
        }
        for (name, n) in &sit.rail_built {
            let field = format!("situation.rail_built.{name}");
            let Some(l) = self.railway(scn, &field, name) else {
                continue;
            };
            let len = scn
                .map
                .railways()
                .iter()
                .find(|r| r.name == l)
                .map_or(0, |r| r.hexes.len());
            if *n > len {
                self.err(
                    &field,
                    name,
                    format!("{l} has {len} hexes, and {n} are said to be built"),
                    &format!("a number from 0 to {len}"),
                );
            }
            state.rail_built.insert(l, *n);
        }
    }

    /// The reinforcements that have come: they replace the state's list.
    fn arrived(&mut self, arrived: &[String], state: &mut GameState) {
        let ids = self.reinforcements.clone();
        state.arrived.clear();
        for a in arrived {
            if !ids.iter().any(|i| i == a) {
                self.err(
                    "situation.arrived",
                    a,
                    format!("no reinforcement called {a}"),
                    &format!("the reinforcements are {}", ids.join(", ")),
                );
            }
            state.arrived.insert(a.clone());
        }
    }

    fn counters(&mut self, scn: &Scenario, field: &str, counters: &BTreeMap<String, u32>) {
        let n = scn.def.victory.len();
        for key in counters.keys() {
            let ok = key
                .strip_prefix("victory-")
                .and_then(|k| k.parse::<usize>().ok())
                .is_some_and(|k| k < n);
            if !ok {
                self.err(
                    &format!("{field}.{key}"),
                    key,
                    format!("`{key}` is not a victory counter of this scenario"),
                    &format!(
                        "the counters are victory-0 to victory-{} (the scenario's victory conditions, in order)",
                        n.saturating_sub(1)
                    ),
                );
            }
        }
    }

    fn stored_state(&mut self, scn: &Scenario, file: &str, dir: &Path) -> Option<GameState> {
        let path = dir.join(file);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                self.err(
                    "situation.state",
                    file,
                    format!("cannot read {}: {e}", path.display()),
                    "the path is relative to the case file",
                );
                return None;
            }
        };
        match serde_json::from_str::<GameState>(&text) {
            Ok(s) if s.scenario == scn.id() => Some(s),
            Ok(s) => {
                self.err(
                    "situation.state",
                    file,
                    format!(
                        "{} holds a state of scenario {}, and the case is of {}",
                        path.display(),
                        s.scenario,
                        scn.id()
                    ),
                    "use a state of the case's scenario",
                );
                None
            }
            Err(e) => {
                self.err(
                    "situation.state",
                    file,
                    format!("{} is not a stored game state: {e}", path.display()),
                    "a GameState as JSON, as the service stores it",
                );
                None
            }
        }
    }

    fn expect(&mut self, scn: &Scenario, e: ExpectFile) -> Expect {
        let mut out = Expect {
            log: e.log,
            not_log: e.not_log,
            log_order: e.log_order,
            ..Expect::default()
        };
        out.receipt.insert(Side::Egyptian, e.receipt_egyptian);
        out.receipt.insert(Side::Mahdist, e.receipt_mahdist);
        out.not_receipt
            .insert(Side::Egyptian, e.not_receipt_egyptian);
        out.not_receipt.insert(Side::Mahdist, e.not_receipt_mahdist);
        out.result = e.result.map(|r| {
            if r.trim().eq_ignore_ascii_case("none") {
                None
            } else {
                Some(r)
            }
        });
        // With no scenario set-up there is nothing to look names up in
        // (the situation reports it).
        if let Some(all) = empty_state(scn) {
            self.expect_units(scn, &all, e.units, &mut out);
            self.expect_leaders(scn, &all, e.leaders, &mut out);
        }
        out.control = self.control(scn, "expect", &e.control);
        self.counters(scn, "expect.counters", &e.counters);
        out.counters = e.counters;
        if let Some(m) = &e.month {
            out.month = self.month("expect.month", m);
        }
        for (k, v) in [
            ("british_attrition_loss", e.british_attrition_loss),
            (
                "british_leader_stack_destroyed",
                e.british_leader_stack_destroyed,
            ),
            ("ended_by_event", e.ended_by_event),
        ] {
            if let Some(v) = v {
                out.flags.insert(k.to_string(), v);
            }
        }
        out
    }

    /// The counters expected somewhere, named as on the board `all`.
    fn expect_units(
        &mut self,
        scn: &Scenario,
        all: &GameState,
        units: Vec<UnitExpectFile>,
        out: &mut Expect,
    ) {
        for (i, u) in units.into_iter().enumerate() {
            let field = format!("expect.units[{i}]");
            if self.unit_id(all, &format!("{field}.id"), &u.id).is_none() {
                continue;
            }
            let at = match &u.at {
                Some(a) => match self.whereabouts(scn, &format!("{field}.at"), a) {
                    Some(p) => Some(p),
                    None => continue,
                },
                None => None,
            };
            out.units.push(UnitExpect {
                id: UnitId(u.id.trim().to_ascii_uppercase().into()),
                at_text: u.at.unwrap_or_default(),
                at,
                disrupted: u.disrupted,
                name: u.name,
                strength: u.strength,
            });
        }
    }

    /// The leaders expected somewhere, named as on the board `all`.
    fn expect_leaders(
        &mut self,
        scn: &Scenario,
        all: &GameState,
        leaders: Vec<LeaderExpectFile>,
        out: &mut Expect,
    ) {
        for (i, l) in leaders.into_iter().enumerate() {
            let field = format!("expect.leaders[{i}]");
            let Some(k) = self.leader(all, scn, &format!("{field}.name"), &l.name) else {
                continue;
            };
            let at = match &l.at {
                Some(a) if a.trim().eq_ignore_ascii_case("off map") => Some(None),
                Some(a) => match self.place(scn, &format!("{field}.at"), a) {
                    Some(h) => Some(Some(h)),
                    None => continue,
                },
                None => None,
            };
            out.leaders.push(LeaderExpect {
                name: all.leaders[k].name.clone(),
                at_text: l.at.unwrap_or_default(),
                at,
                removed: l.removed,
            });
        }
    }
}

/// The situation's 4.2 flags and the optional ambush rule.
fn set_flags(sit: &SituationFile, state: &mut GameState) {
    if let Some(v) = sit.ambushes {
        state.options.ambushes = v;
    }
    if let Some(v) = sit.british_attrition_loss {
        state.british_attrition_loss = v;
    }
    if let Some(v) = sit.british_leader_stack_destroyed {
        state.british_leader_stack_destroyed = v;
    }
    if let Some(v) = sit.ended_by_event {
        state.ended_by_event = v;
    }
}

/// Every counter off the map, no leader on it, no town held: the board
/// `board = "empty"` starts from.
fn clear_board(s: &mut GameState) {
    for u in &mut s.units {
        if u.hex().is_some() {
            u.status = Status::Pool;
        }
        u.disrupted = false;
    }
    for l in &mut s.leaders {
        l.hex = None;
    }
    s.control.clear();
}

/// The empty board, for looking up IDs and names; `None` when the
/// scenario cannot be set up (a problem the situation reports).
fn empty_state(scn: &Scenario) -> Option<GameState> {
    let (mut s, _) = initial_state(scn, &Placements::new()).ok()?;
    clear_board(&mut s);
    Some(s)
}

/// The situation's stacks with every counter's ID, for a case writer who
/// names units in orders (`dervish case show`).
pub fn show(case: &Case) -> String {
    use std::fmt::Write as _;
    let scn = &case.scn;
    let s = &case.state;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} ({}), {}",
        case.name,
        scn.def.title,
        scn.id(),
        s.month.long_name()
    );
    for st in s.stacks() {
        let _ = writeln!(out, "{} {}:", scn.map.describe(st.hex), st.side);
        for u in &st.units {
            let ty = scn
                .units
                .get(&u.unit_type)
                .map_or(u.unit_type.to_string(), |t| t.name.clone());
            let name = u
                .name
                .as_deref()
                .map(|n| format!(" \"{n}\""))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<6} {} ({}, {}){}{}",
                u.id.0,
                ty,
                u.unit_type,
                u.strength,
                name,
                if u.disrupted { ", disrupted" } else { "" }
            );
        }
        for l in &st.leaders {
            let _ = writeln!(out, "  leader {}", l.name);
        }
    }
    let off: Vec<String> = s
        .units
        .iter()
        .filter(|u| !matches!(u.status, Status::OnMap(_) | Status::Pool | Status::Reserve))
        .map(|u| format!("{} {:?}", u.id.0, u.status))
        .collect();
    if !off.is_empty() {
        let _ = writeln!(out, "Off the map: {}", off.join(", "));
    }
    if !s.control.is_empty() {
        let held: Vec<String> = s
            .control
            .iter()
            .map(|(h, side)| format!("{} {side}", scn.map.describe(*h)))
            .collect();
        let _ = writeln!(out, "Control: {}", held.join(", "));
    }
    if !s.counters.is_empty() {
        let c: Vec<String> = s
            .counters
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = writeln!(out, "Counters: {}", c.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_places_match_statuses() {
        let m: GameMonth = "1884-05".parse().unwrap();
        let other: GameMonth = "1884-06".parse().unwrap();
        assert!(Place::Awaiting(None).matches(Status::AwaitingReplacement(m)));
        assert!(Place::Awaiting(Some(m)).matches(Status::AwaitingReplacement(m)));
        assert!(!Place::Awaiting(Some(other)).matches(Status::AwaitingReplacement(m)));
        assert!(Place::OffMap.matches(Status::Eliminated));
        assert!(!Place::OffMap.matches(Status::OnMap(Hex::new(19, 42))));
        assert!(Place::Hex(Hex::new(19, 42)).matches(Status::OnMap(Hex::new(19, 42))));
        assert!(!Place::Pool.matches(Status::Reserve));
    }

    #[test]
    fn sides_are_read_by_name() {
        assert_eq!(side_of("Egyptian"), Some(Side::Egyptian));
        assert_eq!(side_of(" british "), Some(Side::Egyptian));
        assert_eq!(side_of("dervish"), Some(Side::Mahdist));
        assert_eq!(side_of("sudanese"), None);
    }
}
