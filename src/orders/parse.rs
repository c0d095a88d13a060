//! Lines of text to orders. Each line is read on its own; a line that is
//! not an order becomes a [`SyntaxError`] and the next line is read.

use std::fmt;

use super::clean::{Refusal, order_lines};
use super::vocab::{Vocabulary, key};
use super::{
    Command, DrawStep, Header, Item, LegOrder, March, Order, RiverWay, SeatRequest, Setting, Sheet,
};
use crate::calendar::GameMonth;
use crate::diag::suggest;
use crate::engine::orders::{DropOff, OnContact, Selection};
use crate::geo::Hex;
use crate::scenario::Side;
use crate::state::UnitId;

/// The message to read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Input<'a> {
    /// The text the mail layer extracted.
    pub text: &'a str,
    /// The subject line, if any.
    pub subject: Option<&'a str>,
    /// The text was sent with format=flowed (RFC 3676).
    pub flowed: bool,
    /// ... with DelSp=yes.
    pub delsp: bool,
}

impl<'a> Input<'a> {
    /// Plain text with no subject.
    pub fn text(text: &'a str) -> Self {
        Input {
            text,
            ..Input::default()
        }
    }
}

/// A line that is not an order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Line number in the message (0: the subject line).
    pub line: usize,
    /// The line as read.
    pub text: String,
    /// What is wrong.
    pub message: String,
    /// What was expected there.
    pub expected: String,
    /// The likely fix, if one is likely.
    pub suggestion: Option<String>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)?;
        if !self.expected.is_empty() {
            write!(f, "; expected {}", self.expected)?;
        }
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean {s}?")?;
        }
        Ok(())
    }
}

/// What a message holds: the orders understood and the lines that were
/// not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub sheet: Sheet,
    pub errors: Vec<SyntaxError>,
    /// What may be a slip but changes nothing (a subject whose month
    /// differs from the MONTH line, which counts).
    pub warnings: Vec<SyntaxError>,
    /// Lines of prose with no order in them ("Hello Dervish,", "Thanks,
    /// Tom"): shown on the receipt, not counted as errors. (Line number,
    /// text.)
    pub ignored: Vec<(usize, String)>,
}

/// Words with a meaning of their own; a name never spans one.
const KEYWORDS: &[&str] = &[
    "TO", "THEN", "VIA", "PATH", "BY", "LAND", "RAIL", "RIVER", "UP", "DOWN", "FLEET", "ATTACK",
    "ANY", "AVOID", "CONTINUE", "STOP", "RETREAT", "TOWARDS", "LED", "BOOST", "DROP", "AT", "WITH",
    "LOSE", "FIRST", "ALONE", "STACK", "LEADER", "UNITS",
];

/// Words that may start a line.
const STARTS: &[&str] = &[
    "GAME", "SIDE", "SECRET", "MONTH", "MARCH", "MOVE", "THEN", "ATTACK", "AVOID", "CONTINUE",
    "STOP", "RETREAT", "LED", "BOOST", "DROP", "LOSE", "EXPEND", "KEEP", "PLACE", "WITHDRAW",
    "DISMOUNT", "RAILWAY", "BUILD", "EVENT", "DEFEND", "SETUP", "SET", "READY", "HELP", "MAP",
    "ROUTE", "STATUS", "HISTORY", "RESEND", "JOIN", "ADDRESS", "ABSENT", "RESIGN", "DRAW",
];

/// Words that start a command (a question or a setting), not an order.
const COMMAND_STARTS: &[&str] = &[
    "HELP", "MAP", "ROUTE", "STATUS", "HISTORY", "RESEND", "JOIN", "ADDRESS", "ABSENT", "RESIGN",
    "DRAW",
];

/// The words after `MAP` that make it a setting rather than a map.
const MAP_SETTINGS: &[&str] = &["TEXT", "PICTURE"];

/// The words after `ADDRESS`.
const ADDRESS_SETTINGS: &[&str] = &["PUBLIC", "HIDDEN"];

/// The setting `MAP word` makes, if `word` is one of [`MAP_SETTINGS`]
/// (a plural or `PIC` too).
fn map_setting(word: &str) -> Option<Setting> {
    match word.to_uppercase().as_str() {
        "TEXT" | "TEXTS" => Some(Setting::MapPicture(false)),
        "PICTURE" | "PICTURES" | "PIC" => Some(Setting::MapPicture(true)),
        _ => None,
    }
}

/// The setting `ADDRESS word` makes.
fn address_setting(word: &str) -> Option<Setting> {
    match word.to_uppercase().as_str() {
        "PUBLIC" | "SHOWN" => Some(Setting::ShowAddress(true)),
        "HIDDEN" | "HIDE" | "PRIVATE" => Some(Setting::ShowAddress(false)),
        _ => None,
    }
}

/// Whether a line not understood was meant as a command (`MAP Khartum`,
/// `ADDRESS PUBLC`, `HISTROY 1884-02`) rather than an order: its first
/// word is a command word, or one slip from one. A mail whose only problems
/// are such lines holds no orders and replaces none.
pub fn is_command_line(text: &str) -> bool {
    let Some(first) = tidy(text).split_whitespace().next().map(|w| {
        w.trim_matches(|ch: char| !ch.is_alphanumeric())
            .to_uppercase()
    }) else {
        return false;
    };
    let word = if STARTS.contains(&first.as_str()) {
        Some(first.as_str())
    } else {
        near_start(&first)
    };
    word.is_some_and(|w| COMMAND_STARTS.contains(&w))
}

/// Whether a line not understood was meant as READY (`READY ASIS`): its
/// first word is READY or DONE. A mail whose only other lines are commands
/// holds no orders and replaces none.
pub fn is_ready_line(text: &str) -> bool {
    tidy(text).split_whitespace().next().is_some_and(|w| {
        let w = w
            .trim_matches(|ch: char| !ch.is_alphanumeric())
            .to_uppercase();
        w == "READY" || w == "DONE"
    })
}

/// `READY`, or `READY AS IS` (the set plays as it stands, refused lines
/// and all); a slip of AS IS (`READY ASIS`, `READY AS-IS`) gets the
/// right words as a suggestion.
fn ready(c: &mut Cur<'_>) -> R<Order> {
    const FORM: &str = "READY, or READY AS IS to play a set with refused lines as it stands";
    if c.at_end() {
        return Ok(Order::Ready);
    }
    if c.is("AS") && c.is_at(1, "IS") && c.toks.len() == c.pos + 2 {
        return Ok(Order::ReadyAsIs);
    }
    let rest = c.rest();
    let letters: String = rest
        .chars()
        .filter(|ch| ch.is_alphanumeric())
        .collect::<String>()
        .to_uppercase();
    let mut e = c.err(format!("{rest} is not understood after READY"), FORM);
    if crate::diag::edit_distance(&letters, "ASIS") <= 2 {
        e.suggestion = Some("READY AS IS".into());
    }
    Err(e)
}

const LEG_EXPECTED: &str =
    "a march: TO place, PATH place place ..., RAIL TO place, RIVER TO place or FLEET TO place";

fn is_keyword(w: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w))
}

#[derive(Clone, Debug)]
struct Tok {
    word: String,
    /// A comma or arrow follows: a name ends here.
    group_end: bool,
}

fn tokens(line: &str) -> Vec<Tok> {
    let spaced = line.replace("->", ",").replace(['"', ';'], " ");
    let spaced = spaced.replace(';', ",");
    let mut out: Vec<Tok> = Vec::new();
    for seg in spaced.split(',') {
        for w in seg.split_whitespace() {
            if w == "-" {
                if let Some(last) = out.last_mut() {
                    last.group_end = true;
                }
                continue;
            }
            out.push(Tok {
                word: w.to_string(),
                group_end: false,
            });
        }
        if let Some(last) = out.last_mut() {
            last.group_end = true;
        }
    }
    out
}

struct Cur<'a> {
    toks: Vec<Tok>,
    pos: usize,
    vocab: &'a Vocabulary,
    line: usize,
    text: &'a str,
}

type R<T> = Result<T, SyntaxError>;

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|t| t.word.as_str())
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn is(&self, kw: &str) -> bool {
        self.peek().is_some_and(|w| w.eq_ignore_ascii_case(kw))
    }

    fn is_at(&self, offset: usize, kw: &str) -> bool {
        self.toks
            .get(self.pos + offset)
            .is_some_and(|t| t.word.eq_ignore_ascii_case(kw))
    }

    fn eat(&mut self, kw: &str) -> bool {
        if self.is(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn err(&self, message: impl Into<String>, expected: impl Into<String>) -> SyntaxError {
        SyntaxError {
            line: self.line,
            text: self.text.to_string(),
            message: message.into(),
            expected: expected.into(),
            suggestion: None,
        }
    }

    fn expect(&mut self, kw: &str, expected: &str) -> R<()> {
        if self.eat(kw) {
            return Ok(());
        }
        Err(match self.peek() {
            Some(w) => self.err(format!("{w} where {kw} belongs"), expected),
            None => self.err(format!("the line ends before {kw}"), expected),
        })
    }

    /// The words from here up to the next keyword or comma.
    fn run(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.toks[self.pos.min(self.toks.len())..] {
            if is_keyword(&t.word) {
                break;
            }
            out.push(t.word.clone());
            if t.group_end {
                break;
            }
        }
        out
    }

    fn place(&mut self, what: &str) -> R<Hex> {
        let run = self.run();
        if run.is_empty() {
            return Err(match self.peek() {
                Some(w) => self.err(format!("{w} where a place belongs"), what),
                None => self.err("the line ends too soon", what),
            });
        }
        let map = &self.vocab.map;
        if run[0].len() == 4 && run[0].chars().all(|c| c.is_ascii_digit()) {
            let hex = map
                .resolve(&run[0])
                .map_err(|e| self.err(e.to_string(), what))?;
            self.pos += 1;
            return Ok(hex);
        }
        for n in (1..=run.len().min(5)).rev() {
            let words = run[..n].join(" ");
            if let Some(p) = map.find_place(&words) {
                let hex = p.hex;
                self.pos += n;
                if let Some(w) = self.peek().map(str::to_string)
                    && let Some(inner) = w.strip_prefix('(').and_then(|w| w.strip_suffix(')'))
                {
                    self.pos += 1;
                    let given: Hex = inner.parse().map_err(|_| {
                        self.err(format!("({inner}) is not a hex number"), "a place (hex)")
                    })?;
                    if given != hex {
                        return Err(self.err(
                            format!("{} is hex {hex}, not {given}", p.name),
                            "a hex number that agrees with the place name",
                        ));
                    }
                }
                return Ok(hex);
            }
        }
        let words = run.join(" ");
        self.pos += run.len();
        let mut e = self.err(format!("no place called {words}"), what);
        if let Err(crate::geo::map::LookupError::UnknownPlace {
            suggestion: Some(s),
            ..
        }) = map.resolve(&words)
        {
            e.suggestion = Some(s);
        }
        Err(e)
    }

    fn places(&mut self, what: &str) -> R<Vec<Hex>> {
        let mut out = vec![self.place(what)?];
        while !self.run().is_empty() {
            out.push(self.place(what)?);
        }
        Ok(out)
    }

    /// A leader's name, if the words here are one (longest match).
    fn try_leader(&mut self) -> Option<String> {
        let run = self.run();
        for n in (1..=run.len().min(4)).rev() {
            if let Some(name) = self.vocab.leader(&run[..n].join(" ")) {
                self.pos += n;
                return Some(name.to_string());
            }
        }
        None
    }

    fn leader(&mut self) -> R<String> {
        if let Some(l) = self.try_leader() {
            return Ok(l);
        }
        let run = self.run();
        let words = run.join(" ");
        if words.is_empty() {
            return Err(match self.peek() {
                Some(w) => self.err(format!("{w} where a leader belongs"), "a leader's name"),
                None => self.err("the line ends before a leader's name", "a leader's name"),
            });
        }
        self.pos += run.len();
        let mut e = self.err(format!("no leader called {words}"), "a leader's name");
        e.suggestion = self.vocab.suggest_leader(&words);
        Err(e)
    }

    fn leaders(&mut self) -> R<Vec<String>> {
        let mut out = vec![self.leader()?];
        while !self.run().is_empty() {
            out.push(self.leader()?);
        }
        Ok(out)
    }

    fn unit(&mut self) -> R<UnitId> {
        let Some(w) = self.peek().map(str::to_string) else {
            return Err(self.err("the line ends before a unit ID", "a unit ID such as ER05"));
        };
        let u = self.vocab.unit(&w).map_err(|(m, s)| {
            let mut e = self.err(m, "a unit ID such as ER05");
            e.suggestion = s;
            e
        })?;
        self.pos += 1;
        Ok(u)
    }

    /// Unit IDs while the next word looks like one.
    fn units(&mut self) -> R<Vec<UnitId>> {
        let mut out = Vec::new();
        while let Some(w) = self.peek() {
            if is_keyword(w) || !Vocabulary::looks_like_unit(w) {
                break;
            }
            out.push(self.unit()?);
        }
        Ok(out)
    }

    fn rest(&mut self) -> String {
        let words: Vec<&str> = self.toks[self.pos.min(self.toks.len())..]
            .iter()
            .map(|t| t.word.as_str())
            .collect();
        self.pos = self.toks.len();
        words.join(" ")
    }

    fn end(&self) -> R<()> {
        match self.peek() {
            None => Ok(()),
            Some(w) => Err(self.err(format!("{w} is not understood here"), "the end of the line")),
        }
    }

    /// `unit ... [WITH leader ...]` (of DROP and SETUP), naming someone:
    /// if no one, the error `nothing`, the line's form being `form`.
    fn units_with_leaders(&mut self, nothing: &str, form: &str) -> R<(Vec<UnitId>, Vec<String>)> {
        let units = self.units()?;
        let leaders = if self.eat("WITH") {
            self.leaders()?
        } else {
            Vec::new()
        };
        if units.is_empty() && leaders.is_empty() {
            return Err(self.err(nothing, form));
        }
        Ok((units, leaders))
    }

    /// Whether the whole line reads as a march written without MARCH.
    fn reads_as_march(&self) -> bool {
        let mut probe = Cur {
            toks: self.toks.clone(),
            pos: 0,
            vocab: self.vocab,
            line: self.line,
            text: self.text,
        };
        march(&mut probe).is_ok()
    }

    /// The end of a line whose whole form is `form`.
    fn end_of(&self, form: &str) -> R<()> {
        self.end().map_err(|e| SyntaxError {
            expected: form.into(),
            ..e
        })
    }

    /// The rest of the line as `read` takes it (`None` if the line ends
    /// here), or an error: the rest is not `what`, the line's form is
    /// `form`.
    fn optional<T>(
        &mut self,
        read: impl Fn(&str) -> Option<T>,
        what: &str,
        form: &str,
    ) -> R<Option<T>> {
        let rest = self.rest();
        if rest.is_empty() {
            return Ok(None);
        }
        read(&rest)
            .map(Some)
            .ok_or_else(|| self.err(format!("{rest} is not {what}"), form))
    }
}

fn side(w: &str) -> Option<Side> {
    match key(w).as_str() {
        "egyptian" | "egyptians" | "egypt" | "british" | "angloegyptian" | "e" => {
            Some(Side::Egyptian)
        }
        "mahdist" | "mahdists" | "mahdi" | "dervish" | "dervishes" | "ansar" | "m" => {
            Some(Side::Mahdist)
        }
        _ => None,
    }
}

/// A month as `1884-03`, `March 1884` or `Mar 1884`.
pub fn month(text: &str) -> Option<GameMonth> {
    let t = text.trim();
    if let Ok(m) = t.parse() {
        return Some(m);
    }
    let mut words = t.split_whitespace();
    let (name, year) = (words.next()?, words.next()?);
    if words.next().is_some() {
        return None;
    }
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let n = name.to_lowercase();
    let n = n.trim_end_matches('.');
    let m = NAMES
        .iter()
        .position(|full| n.len() >= 3 && full.starts_with(n))?;
    format!("{year}-{:02}", m + 1).parse().ok()
}

enum LineOut {
    Header(HeaderField),
    Order(Order),
    /// Options for the march above.
    Options(Vec<MarchOption>),
}

enum HeaderField {
    Game(String),
    Side(Side),
    Secret(String),
    Month(GameMonth),
}

fn leg(c: &mut Cur<'_>) -> R<LegOrder> {
    if c.eat("BY") {
        if c.eat("LAND") {
            c.expect("TO", "TO place")?;
            return Ok(LegOrder::To(c.place("a place to march to")?));
        }
        if !(c.is("RAIL") || c.is("RIVER") || c.is("FLEET")) {
            return Err(c.err(
                "BY must be followed by LAND, RAIL, RIVER or FLEET",
                LEG_EXPECTED,
            ));
        }
    }
    if c.eat("TO") {
        return Ok(LegOrder::To(c.place("a place to march to")?));
    }
    if c.eat("PATH") || c.eat("VIA") {
        return Ok(LegOrder::Path(c.places("the hexes of the path, in order")?));
    }
    if c.eat("RAIL") {
        c.expect("TO", "RAIL TO place")?;
        return Ok(LegOrder::Rail(c.place("a station on built track")?));
    }
    if c.eat("RIVER") {
        let way = if c.eat("UP") {
            Some(RiverWay::Up)
        } else if c.eat("DOWN") {
            Some(RiverWay::Down)
        } else {
            None
        };
        c.expect("TO", "RIVER [UP|DOWN] TO place")?;
        let to = c.place("a place beside the river")?;
        return Ok(LegOrder::River { to, way });
    }
    if c.is("WITH") && c.is_at(1, "FLEET") {
        c.pos += 1;
    }
    if c.eat("FLEET") {
        c.expect("TO", "FLEET TO place")?;
        return Ok(LegOrder::Fleet(c.place("a hex the fleet serves")?));
    }
    Err(match c.peek() {
        Some(w) => {
            let mut e = c.err(format!("{w} is not a way to march"), LEG_EXPECTED);
            // A place where the way to march belongs ("THEN Omdurman").
            let skip = usize::from(c.is("THEN") || c.is("AND"));
            let run: Vec<&str> = c.toks[c.pos + skip..]
                .iter()
                .map(|t| t.word.as_str())
                .take_while(|w| !is_keyword(w))
                .collect();
            e.suggestion = match c.vocab.map.resolve(&run.join(" ")) {
                Ok(h) => Some(format!("TO {}", c.vocab.map.describe(h))),
                Err(_) => suggest(
                    &w.to_uppercase(),
                    ["TO", "PATH", "VIA", "RAIL", "RIVER", "FLEET"],
                )
                .map(|s| s.to_string()),
            };
            e
        }
        None => c.err("the march has no destination", LEG_EXPECTED),
    })
}

fn is_leg_start(c: &Cur<'_>) -> bool {
    ["TO", "PATH", "VIA", "BY", "RAIL", "RIVER", "FLEET"]
        .iter()
        .any(|k| c.is(k))
        || (c.is("WITH") && c.is_at(1, "FLEET"))
}

fn selection(c: &mut Cur<'_>) -> R<Selection> {
    if c.eat("STACK") {
        return Ok(Selection::Stack(c.place("the hex of the stack")?));
    }
    if c.eat("LEADER") {
        let name = c.leader()?;
        if c.eat("ALONE") {
            return Ok(Selection::Units {
                units: Vec::new(),
                leaders: vec![name],
            });
        }
        return Ok(Selection::Leader(name));
    }
    let explicit = c.eat("UNITS");
    if explicit || c.peek().is_some_and(Vocabulary::looks_like_unit) {
        let units = c.units()?;
        let leaders = if c.is("WITH") && !c.is_at(1, "FLEET") {
            c.pos += 1;
            c.leaders()?
        } else {
            Vec::new()
        };
        if units.is_empty() && leaders.is_empty() {
            return Err(c.err("no units named", "unit IDs such as ER05 ER06"));
        }
        return Ok(Selection::Units { units, leaders });
    }
    if let Some(name) = c.try_leader() {
        if c.eat("ALONE") {
            return Ok(Selection::Units {
                units: Vec::new(),
                leaders: vec![name],
            });
        }
        return Ok(Selection::Leader(name));
    }
    match c.place("what marches: a place (its stack), a leader, or unit IDs") {
        Ok(h) => Ok(Selection::Stack(h)),
        Err(mut e) => {
            let words = e.message.trim_start_matches("no place called ").to_string();
            e.message = format!("{words} is not a place, a leader or a unit");
            let first = words
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_uppercase();
            if let Some(k) = suggest(&first, ["STACK", "LEADER", "UNITS"]) {
                e.suggestion = Some(k.to_string());
            } else if e.suggestion.is_none() {
                e.suggestion = c.vocab.suggest_leader(&words);
            }
            Err(e)
        }
    }
}

/// Read options (and THEN legs) to the end of the line into a list of
/// changes for the march they belong to.
fn options(c: &mut Cur<'_>) -> R<Vec<MarchOption>> {
    let mut out = Vec::new();
    while !c.at_end() {
        if c.eat("AND") {
            continue;
        }
        out.push(option(c)?);
    }
    Ok(out)
}

#[derive(Clone, Debug)]
enum MarchOption {
    Leg(LegOrder),
    Attack(Option<Vec<Hex>>),
    Avoid,
    Continue(bool),
    Retreat(Hex),
    LedBy(String),
    Drop(DropOff),
    LoseFirst(Vec<UnitId>),
}

fn option(c: &mut Cur<'_>) -> R<MarchOption> {
    if c.eat("THEN") {
        return Ok(MarchOption::Leg(leg(c)?));
    }
    if is_leg_start(c) {
        return Ok(MarchOption::Leg(leg(c)?));
    }
    if c.eat("ATTACK") {
        if c.eat("ANY") {
            return Ok(MarchOption::Attack(None));
        }
        return Ok(MarchOption::Attack(Some(
            c.places("ANY or the hexes to attack")?,
        )));
    }
    if c.eat("AVOID") {
        return Ok(MarchOption::Avoid);
    }
    if c.eat("CONTINUE") {
        return Ok(MarchOption::Continue(true));
    }
    if c.eat("STOP") {
        return Ok(MarchOption::Continue(false));
    }
    if c.eat("RETREAT") {
        let _ = c.eat("TOWARDS") || c.eat("TO");
        return Ok(MarchOption::Retreat(c.place("a place to retreat towards")?));
    }
    if c.eat("LED") {
        c.expect("BY", "LED BY leader")?;
        return Ok(MarchOption::LedBy(c.leader()?));
    }
    if c.eat("BOOST") {
        let _ = c.eat("BY");
        return Ok(MarchOption::LedBy(c.leader()?));
    }
    if c.eat("DROP") {
        let (units, leaders) = c.units_with_leaders(
            "nothing to drop off",
            "DROP unit ... [WITH leader] AT place",
        )?;
        c.expect("AT", "DROP unit ... AT place")?;
        let at = c.place("the hex where they stay")?;
        return Ok(MarchOption::Drop(DropOff { at, units, leaders }));
    }
    if c.eat("LOSE") {
        let _ = c.eat("FIRST");
        let units = c.units()?;
        if units.is_empty() {
            return Err(c.err("no units named", "LOSE FIRST unit ..."));
        }
        return Ok(MarchOption::LoseFirst(units));
    }
    let w = c.peek().unwrap_or_default().to_string();
    let mut e = c.err(
        format!("{w} is not understood here"),
        "THEN, ATTACK, AVOID, CONTINUE, STOP, RETREAT, LED BY, DROP or LOSE FIRST",
    );
    e.suggestion = suggest(
        &w.to_uppercase(),
        [
            "THEN", "ATTACK", "AVOID", "CONTINUE", "STOP", "RETREAT", "LED", "DROP", "LOSE",
        ],
    )
    .map(str::to_string);
    Err(e)
}

fn apply(m: &mut March, opts: Vec<MarchOption>) {
    for o in opts {
        match o {
            MarchOption::Leg(l) => m.legs.push(l),
            MarchOption::Attack(None) => m.on_contact = OnContact::AttackAny,
            MarchOption::Attack(Some(hexes)) => match &mut m.on_contact {
                OnContact::AttackHexes(h) => h.extend(hexes),
                other => *other = OnContact::AttackHexes(hexes),
            },
            MarchOption::Avoid => m.on_contact = OnContact::Avoid,
            MarchOption::Continue(b) => m.continue_after_win = b,
            MarchOption::Retreat(h) => m.retreat_towards = Some(h),
            MarchOption::LedBy(l) => m.leader_bonus = Some(l),
            MarchOption::Drop(d) => m.drop_offs.push(d),
            MarchOption::LoseFirst(u) => m.lose_first.extend(u),
        }
    }
}

fn march(c: &mut Cur<'_>) -> R<March> {
    let units = selection(c)?;
    let first = leg(c)?;
    let mut m = March::new(units, vec![first]);
    let opts = options(c)?;
    apply(&mut m, opts);
    Ok(m)
}

fn line(c: &mut Cur<'_>) -> R<LineOut> {
    let Some(first) = c.peek().map(|w| w.trim_end_matches(':').to_uppercase()) else {
        return Err(c.err("an empty line", "an order"));
    };
    if let Some(field) = header_line(c, &first) {
        return field.map(LineOut::Header);
    }
    if matches!(
        first.as_str(),
        "THEN"
            | "ATTACK"
            | "AVOID"
            | "CONTINUE"
            | "STOP"
            | "RETREAT"
            | "LED"
            | "BOOST"
            | "DROP"
            | "LOSE"
    ) {
        return Ok(LineOut::Options(options(c)?));
    }
    c.pos += 1;
    Ok(LineOut::Order(order_line(c, &first)?))
}

/// A header line (GAME, SIDE, SECRET, MONTH) read whole; `None` when the
/// line starts with another word.
fn header_line(c: &mut Cur<'_>, first: &str) -> Option<R<HeaderField>> {
    let header_value = |c: &mut Cur<'_>, what: &str| -> R<String> {
        c.pos += 1;
        let v = c.rest();
        if v.is_empty() {
            Err(c.err(
                format!("{what} has no value"),
                format!("{what} and its value"),
            ))
        } else {
            Ok(v)
        }
    };
    let field = match first {
        "GAME" => header_value(c, "GAME").and_then(|v| {
            if v.split_whitespace().count() != 1 {
                return Err(c.err(format!("{v} is not a game id"), "GAME id (one word)"));
            }
            Ok(HeaderField::Game(v.to_lowercase()))
        }),
        "SIDE" => header_value(c, "SIDE").and_then(|v| {
            side(&v).map(HeaderField::Side).ok_or_else(|| {
                c.err(
                    format!("{v} is not a side"),
                    "SIDE EGYPTIAN or SIDE MAHDIST",
                )
            })
        }),
        "SECRET" | "PASSWORD" => header_value(c, "SECRET").map(HeaderField::Secret),
        "MONTH" | "TURN" => header_value(c, "MONTH").and_then(|v| {
            month(&v).map(HeaderField::Month).ok_or_else(|| {
                c.err(
                    format!("{v} is not a month of the war"),
                    "MONTH 1884-03 or MONTH March 1884 (October 1882 to October 1885)",
                )
            })
        }),
        _ => return None,
    };
    Some(field)
}

/// The rest of a line that starts with the order word `first` (already
/// read): an order, or a command.
fn order_line(c: &mut Cur<'_>, first: &str) -> R<Order> {
    Ok(match first {
        "MARCH" | "MOVE" => Order::March(march(c)?),
        "EXPEND" | "KEEP" => {
            c.expect("SUPPLY", &format!("{first} SUPPLY AT place"))?;
            let _ = c.eat("AT");
            let at = c.place("the hex of the supply unit")?;
            c.end()?;
            if first == "EXPEND" {
                Order::ExpendSupply(at)
            } else {
                Order::KeepSupply(at)
            }
        }
        "PLACE" => place(c)?,
        "WITHDRAW" => Order::Withdraw(named_units(c, "WITHDRAW unit ...")?),
        "DISMOUNT" => dismount(c)?,
        "RAILWAY" | "BUILD" => {
            let _ = c.eat("RAILWAY");
            let name = c.rest();
            let line = c
                .vocab
                .railway(&name)
                .map_err(|m| c.err(m, "RAILWAY and a line's name"))?;
            Order::Railway(line)
        }
        "EVENT" => {
            c.expect("LOSSES", "EVENT LOSSES unit ...")?;
            Order::EventLosses(named_units(c, "EVENT LOSSES unit ...")?)
        }
        "SETUP" | "SET" => setup(c, first)?,
        "DEFEND" => {
            const FORM: &str = "DEFEND LOSE FIRST unit ...";
            c.expect("LOSE", FORM)?;
            let _ = c.eat("FIRST");
            Order::DefendLoseFirst(named_units(c, FORM)?)
        }
        "READY" | "DONE" => ready(c)?,
        _ => Order::Command(command(c, first)?),
    })
}

/// The units named to the end of the line, at least one.
fn named_units(c: &mut Cur<'_>, form: &str) -> R<Vec<UnitId>> {
    let units = c.units()?;
    c.end()?;
    if units.is_empty() {
        return Err(c.err("no units named", form));
    }
    Ok(units)
}

/// `PLACE reinforcement [part] AT place`.
fn place(c: &mut Cur<'_>) -> R<Order> {
    let Some(w) = c.peek().map(str::to_string) else {
        return Err(c.err("no reinforcement named", "PLACE reinforcement AT place"));
    };
    let (id, _) = c.vocab.reinforcement(&w).map_err(|m| {
        let mut e = c.err(m, "PLACE reinforcement AT place");
        e.suggestion = None;
        e
    })?;
    c.pos += 1;
    // A part of the reinforcement (2.3: the expedition may be split): the
    // words up to AT.
    let mut part = Vec::new();
    while let Some(w) = c.peek().filter(|w| !w.eq_ignore_ascii_case("AT")) {
        part.push(w.to_string());
        c.pos += 1;
    }
    c.expect("AT", "PLACE reinforcement [part] AT place")?;
    let at = c.place("where the reinforcement arrives")?;
    c.end()?;
    Ok(if part.is_empty() {
        Order::Place {
            reinforcement: id,
            at,
        }
    } else {
        Order::PlacePart {
            reinforcement: id,
            part: part.join(" "),
            at,
        }
    })
}

/// `DISMOUNT` and two different Camel Corps units (8.24).
fn dismount(c: &mut Cur<'_>) -> R<Order> {
    let units = c.units()?;
    c.end()?;
    match units.as_slice() {
        [a, b] if a != b => Ok(Order::Dismount(a.clone(), b.clone())),
        _ => Err(c.err(
            format!(
                "{} named",
                crate::words::count(units.len(), "unit", "units")
            ),
            "DISMOUNT and two different Camel Corps units (8.24)",
        )),
    }
}

/// `SETUP unit ... [WITH leader ...] AT place` (or `SET UP`).
fn setup(c: &mut Cur<'_>, first: &str) -> R<Order> {
    const FORM: &str = "SETUP unit ... [WITH leader ...] AT place";
    if first == "SET" {
        c.expect("UP", FORM)?;
    }
    let (units, leaders) = c.units_with_leaders("nothing to set up", FORM)?;
    c.expect("AT", FORM)?;
    let at = c.place("the hex where they are set up")?;
    c.end()?;
    Ok(Order::Setup(crate::engine::orders::SetupOrder {
        units,
        leaders,
        at,
    }))
}

/// The rest of a line that starts with a command word, or why the line
/// starts with no order at all.
fn command(c: &mut Cur<'_>, first: &str) -> R<Command> {
    Ok(match first {
        "HELP" => {
            let _ = c.rest();
            Command::Help
        }
        "MAP" => map_command(c)?,
        "ADDRESS" => address_command(c)?,
        "ROUTE" => {
            let a = c.place("where the route starts")?;
            let _ = c.eat("TO");
            let b = c.place("where the route ends")?;
            c.end()?;
            Command::Route(a, b)
        }
        "STATUS" => {
            c.end()?;
            Command::Status
        }
        "HISTORY" => Command::History(c.optional(month, "a month", "HISTORY [1884-03]")?),
        "RESEND" => {
            c.end()?;
            Command::Resend
        }
        "JOIN" => Command::Join(c.optional(side, "a side", "JOIN [EGYPTIAN|MAHDIST]")?),
        "ABSENT" => Command::Seat(absent(&c.rest()).map_err(|e| c.err(e, ABSENT_FORM))?),
        "RESIGN" => {
            c.end_of("RESIGN alone on its line")?;
            Command::Seat(SeatRequest::Resign)
        }
        "DRAW" => Command::Seat(SeatRequest::Draw(draw_step(c)?)),
        _ => return Err(not_an_order(c, first)),
    })
}

/// `MAP`, `MAP place`, or the setting `MAP TEXT` / `MAP PICTURE`.
fn map_command(c: &mut Cur<'_>) -> R<Command> {
    const FORM: &str = "MAP, MAP place, MAP TEXT or MAP PICTURE";
    // TEXT and PICTURE are the settings whatever the map calls its places
    // (a place of that name is written by its hex).
    if c.at_end() {
        return Ok(Command::Map(None));
    }
    if let Some(setting) = c.peek().and_then(map_setting) {
        c.pos += 1;
        c.end_of(FORM)?;
        return Ok(Command::Set(setting));
    }
    let one_word = c.toks.len() == c.pos + 1;
    let word = c.peek().unwrap_or_default().to_string();
    let h = c.place("a place to centre the map on").map_err(|mut e| {
        // `MAP TXT`: a slip of a setting rather than of a place when one
        // letter off, or when no place is near.
        let upper = word.to_uppercase();
        let setting = MAP_SETTINGS
            .iter()
            .copied()
            .find(|w| crate::diag::edit_distance(&upper, w) <= 1)
            .or_else(|| {
                e.suggestion
                    .is_none()
                    .then(|| suggest(&word, MAP_SETTINGS.iter().copied()))
                    .flatten()
            });
        if one_word && let Some(w) = setting {
            e.expected = "a place to centre the map on, or TEXT or PICTURE".into();
            e.suggestion = Some(format!("MAP {w}"));
        }
        e
    })?;
    c.end()?;
    Ok(Command::Map(Some(h)))
}

/// `ADDRESS PUBLIC` or `ADDRESS HIDDEN`.
fn address_command(c: &mut Cur<'_>) -> R<Command> {
    const FORM: &str = "ADDRESS PUBLIC or ADDRESS HIDDEN";
    let Some(word) = c.peek().map(str::to_string) else {
        return Err(c.err("the line ends before PUBLIC or HIDDEN", FORM));
    };
    let Some(setting) = address_setting(&word) else {
        let mut e = c.err(format!("{word} is not PUBLIC or HIDDEN"), FORM);
        e.suggestion =
            suggest(&word, ADDRESS_SETTINGS.iter().copied()).map(|w| format!("ADDRESS {w}"));
        return Err(e);
    };
    c.pos += 1;
    c.end_of(FORM)?;
    Ok(Command::Set(setting))
}

/// `DRAW PROPOSE`, `DRAW ACCEPT` or `DRAW WITHDRAW`.
fn draw_step(c: &mut Cur<'_>) -> R<DrawStep> {
    const FORM: &str = "DRAW PROPOSE, DRAW ACCEPT or DRAW WITHDRAW";
    let rest = c.rest();
    match rest.to_uppercase().as_str() {
        "PROPOSE" | "OFFER" => Ok(DrawStep::Propose),
        "ACCEPT" | "ACCEPTED" | "AGREE" => Ok(DrawStep::Accept),
        "WITHDRAW" | "WITHDRAWN" | "CANCEL" => Ok(DrawStep::Withdraw),
        "" => Err(c.err("the line ends before PROPOSE, ACCEPT or WITHDRAW", FORM)),
        other => {
            let mut e = c.err(format!("{other} is not PROPOSE, ACCEPT or WITHDRAW"), FORM);
            e.suggestion =
                suggest(other, ["PROPOSE", "ACCEPT", "WITHDRAW"]).map(|w| format!("DRAW {w}"));
            Err(e)
        }
    }
}

/// A line that starts with no order word: what was expected, and a
/// suggestion (`MARCH` before a march written without it, or the order
/// word nearest the first word).
fn not_an_order(c: &Cur<'_>, first: &str) -> SyntaxError {
    let word = c.toks[0].word.clone();
    let mut e = c.err(
        format!("{word} does not start an order"),
        "an order (MARCH, EXPEND SUPPLY, KEEP SUPPLY, PLACE, WITHDRAW, DISMOUNT, RAILWAY, EVENT LOSSES, DEFEND LOSE FIRST, SETUP, READY) or a command (HELP, MAP, ROUTE, STATUS, HISTORY, RESEND, JOIN, ADDRESS)",
    );
    // A march written without MARCH?
    if c.reads_as_march() {
        e.suggestion = Some(format!("MARCH {}", c.text));
    } else {
        e.suggestion = suggest(first, STARTS.iter().copied()).map(str::to_string);
    }
    e
}

/// How an absence is written.
const ABSENT_FORM: &str = "ABSENT FROM 2026-07-01 TO 2026-07-14 [STANDIN], or ABSENT NONE";

/// The words after `ABSENT`: `NONE`, or `FROM date TO date`, then
/// `STANDIN` if the programmed player is to play meanwhile. The dates
/// are checked against the calendar here; against today and the
/// allowance by the service.
fn absent(rest: &str) -> std::result::Result<SeatRequest, String> {
    let words: Vec<String> = rest.split_whitespace().map(str::to_uppercase).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let date = |w: &str| {
        chrono::NaiveDate::parse_from_str(w, "%Y-%m-%d")
            .map_err(|_| format!("{w} is not a date written yyyy-mm-dd"))
    };
    match words.as_slice() {
        ["NONE"] => Ok(SeatRequest::AbsentNone),
        ["FROM", from, "TO", to, more @ ..] => {
            let stand_in = match more {
                [] => false,
                ["STANDIN"] | ["STAND-IN"] | ["STAND", "IN"] => true,
                other => return Err(format!("{} is not understood here", other.join(" "))),
            };
            let (from, to) = (date(from)?, date(to)?);
            if to < from {
                return Err(format!("the absence ends ({to}) before it begins ({from})"));
            }
            Ok(SeatRequest::Absent { from, to, stand_in })
        }
        [] => Err("the line ends before FROM or NONE".into()),
        _ => Err(format!("ABSENT {rest} is not understood")),
    }
}

/// A line without the marks people put around orders: a list marker at
/// the start (`1.`, `2)`, `*`, `-`, a bullet) and a full stop, `!` or `?`
/// at the end.
fn tidy(line: &str) -> String {
    let mut t = line.trim();
    if let Some((first, rest)) = t.split_once(' ') {
        let numbered = first.len() > 1
            && first.len() <= 3
            && (first.ends_with('.') || first.ends_with(')'))
            && first[..first.len() - 1].chars().all(|c| c.is_ascii_digit());
        if numbered || matches!(first, "*" | "-" | "+" | "\u{2022}") {
            t = rest.trim_start();
        }
    }
    t.trim_end_matches(['.', '!', '?']).trim_end().to_string()
}

/// Whether a word is one edit (or one swap of neighbouring letters) from
/// a word that starts a line.
fn near_start_word(word: &str) -> bool {
    near_start(word).is_some()
}

/// The word that may start a line one edit (or one swap of neighbouring
/// letters) from `word`, if any.
fn near_start(word: &str) -> Option<&'static str> {
    let w: Vec<char> = word.to_uppercase().chars().collect();
    STARTS.iter().copied().find(|k| {
        let k: Vec<char> = k.chars().collect();
        let ws: String = w.iter().collect();
        let ks: String = k.iter().collect();
        if crate::diag::edit_distance(&ws, &ks) <= 1 {
            return true;
        }
        if w.len() != k.len() {
            return false;
        }
        let diff: Vec<usize> = (0..w.len()).filter(|&i| w[i] != k[i]).collect();
        diff.len() == 2
            && diff[1] == diff[0] + 1
            && w[diff[0]] == k[diff[1]]
            && w[diff[1]] == k[diff[0]]
    })
}

/// Whether a line that is not an order is prose to pass over: its first
/// word is neither an order word nor a near miss of one nor a unit ID, and
/// the line is not a march written without MARCH.
fn is_prose(c: &Cur<'_>) -> bool {
    let Some(first) = c.toks.first().map(|t| {
        t.word
            .trim_matches(|ch: char| !ch.is_alphanumeric())
            .to_uppercase()
    }) else {
        return true;
    };
    // "Address: 12 Nile Street" in a signature is prose; "ADDRESS PUBLC"
    // is a setting with a slip.
    if first == "ADDRESS"
        && let Some(second) = c.toks.get(1).map(|t| t.word.as_str())
    {
        return address_setting(second).is_none()
            && suggest(second, ADDRESS_SETTINGS.iter().copied()).is_none();
    }
    if STARTS.contains(&first.as_str())
        || near_start_word(&first)
        || Vocabulary::looks_like_unit(&first)
    {
        return false;
    }
    !c.reads_as_march()
}

/// What the subject line says: `[dervish GAME] orders 1884-03`.
pub fn subject_header(subject: &str) -> Header {
    let mut h = Header::default();
    let lower = subject.to_lowercase();
    if let Some(start) = lower.find("[dervish")
        && let Some(len) = lower[start..].find(']')
    {
        let inside = subject[start + "[dervish".len()..start + len].trim();
        if !inside.is_empty() && !inside.contains(char::is_whitespace) {
            h.game = Some(inside.to_lowercase());
        }
    }
    h.month = subject
        .split(|c: char| c.is_whitespace() || c == ']' || c == '[' || c == ':')
        .find_map(|w| {
            if w.len() == 7 && w.as_bytes()[4] == b'-' {
                w.parse().ok()
            } else {
                None
            }
        });
    h
}

/// Read a message: every order understood and every line that was not.
/// Refused only when the message is too big to read.
pub fn parse(input: &Input<'_>, vocab: &Vocabulary) -> Result<Parsed, Refusal> {
    let lines = order_lines(input.text, input.flowed, input.delsp)?;
    let mut out = Parsed::default();
    let mut last_march: Option<usize> = None;
    for l in &lines {
        let text = tidy(&l.text);
        if text.is_empty() {
            continue;
        }
        let l = &super::clean::SourceLine {
            number: l.number,
            text,
        };
        let mut c = Cur {
            toks: tokens(&l.text),
            pos: 0,
            vocab,
            line: l.number,
            text: &l.text,
        };
        match line(&mut c) {
            Err(_) if is_prose(&c) => {
                out.ignored.push((l.number, l.text.clone()));
            }
            Err(e) => {
                out.errors.push(e);
            }
            Ok(LineOut::Header(f)) => {
                let h = &mut out.sheet.header;
                let clash = match f {
                    HeaderField::Game(g) => set(&mut h.game, g, "GAME"),
                    HeaderField::Side(s) => set(&mut h.side, s, "SIDE"),
                    HeaderField::Secret(s) => set(&mut h.secret, s, "SECRET")
                        .map(|_| "SECRET given twice, with two different values".to_string()),
                    HeaderField::Month(m) => set(&mut h.month, m, "MONTH"),
                };
                if let Some(m) = clash {
                    out.errors.push(c.err(m, "each header line once"));
                }
            }
            Ok(LineOut::Order(order)) => {
                let is_march = matches!(order, Order::March(_));
                out.sheet.items.push(Item {
                    line: l.number,
                    text: l.text.clone(),
                    order,
                });
                last_march = is_march.then(|| out.sheet.items.len() - 1);
            }
            Ok(LineOut::Options(opts)) => {
                let target = last_march.and_then(|i| match &mut out.sheet.items[i].order {
                    Order::March(m) => Some(m),
                    _ => None,
                });
                match target {
                    Some(m) => apply(m, opts),
                    None => out.errors.push(c.err(
                        "this option belongs to a march and no MARCH line is above it",
                        "a MARCH line first",
                    )),
                }
            }
        }
    }
    if let Some(subject) = input.subject {
        let from_subject = subject_header(subject);
        let h = &mut out.sheet.header;
        for (name, body, subj) in [
            ("game", h.game.clone(), from_subject.game.clone()),
            (
                "month",
                h.month.map(|m| m.to_string()),
                from_subject.month.map(|m| m.to_string()),
            ),
        ] {
            if let (Some(b), Some(s)) = (&body, &subj)
                && b != s
            {
                // A month in the subject is often left from an old mail:
                // the MONTH line in the orders counts, and the set is
                // checked against the game's month as usual. A game that
                // differs is an error: which game was meant is not known.
                let month = name == "month";
                let e = SyntaxError {
                    line: 0,
                    text: subject.to_string(),
                    message: if month {
                        format!(
                            "the subject gives month {s} and the MONTH line {b}: the MONTH line counts"
                        )
                    } else {
                        format!("the subject gives {name} {s} and the orders {name} {b}")
                    },
                    expected: format!("the same {name} in both"),
                    suggestion: None,
                };
                if month {
                    out.warnings.push(e);
                } else {
                    out.errors.push(e);
                }
            }
        }
        if h.game.is_none() {
            h.game = from_subject.game;
        }
        if h.month.is_none() {
            h.month = from_subject.month;
        }
    }
    Ok(out)
}

fn set<T: PartialEq + fmt::Display>(slot: &mut Option<T>, v: T, name: &str) -> Option<String> {
    match slot {
        Some(old) if *old != v => Some(format!("{name} given twice: {old} and {v}")),
        Some(_) => None,
        None => {
            *slot = Some(v);
            None
        }
    }
}

#[cfg(test)]
mod seat_lines {
    use super::*;

    fn one(text: &str) -> std::result::Result<Order, SyntaxError> {
        let scn = crate::scenario::DataSet::embedded()
            .expect("the shipped data")
            .scenario("khartoum")
            .expect("scenario 2");
        let p = parse(&Input::text(text), &Vocabulary::new(&scn)).expect("read");
        match (p.sheet.items.first(), p.errors.first()) {
            (Some(i), None) => Ok(i.order.clone()),
            (_, Some(e)) => Err(e.clone()),
            (None, None) => panic!("nothing read from {text:?}"),
        }
    }

    fn date(s: &str) -> chrono::NaiveDate {
        chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a date")
    }

    #[test]
    fn absence_resignation_and_draw_lines_are_read_and_printed_back() {
        for (text, want) in [
            (
                "ABSENT FROM 2026-07-01 TO 2026-07-14",
                SeatRequest::Absent {
                    from: date("2026-07-01"),
                    to: date("2026-07-14"),
                    stand_in: false,
                },
            ),
            (
                "absent from 2026-07-01 to 2026-07-01 standin",
                SeatRequest::Absent {
                    from: date("2026-07-01"),
                    to: date("2026-07-01"),
                    stand_in: true,
                },
            ),
            ("ABSENT NONE", SeatRequest::AbsentNone),
            ("RESIGN", SeatRequest::Resign),
            ("Draw propose.", SeatRequest::Draw(DrawStep::Propose)),
            ("DRAW ACCEPT", SeatRequest::Draw(DrawStep::Accept)),
            ("DRAW WITHDRAW", SeatRequest::Draw(DrawStep::Withdraw)),
        ] {
            let got = one(text).expect(text);
            assert_eq!(got, Order::Command(Command::Seat(want)), "{text}");
            assert_eq!(one(&want.words()).expect("again"), got, "{text}");
        }
    }

    #[test]
    fn bad_seat_lines_say_how_to_write_them() {
        for (text, says) in [
            (
                "ABSENT FROM 2026-07-14 TO 2026-07-01",
                "ends (2026-07-01) before it begins",
            ),
            (
                "ABSENT FROM 2026-02-30 TO 2026-03-01",
                "2026-02-30 is not a date",
            ),
            ("ABSENT FROM 2026-07-01", "not understood"),
            (
                "ABSENT FROM 2026-07-01 TO 2026-07-02 SOON",
                "SOON is not understood",
            ),
            ("ABSENT", "ends before FROM or NONE"),
            ("RESIGN NOW", "NOW is not understood"),
            ("DRAW ACEPT", "ACEPT is not PROPOSE, ACCEPT or WITHDRAW"),
        ] {
            let e = one(text).expect_err(text);
            assert!(e.message.contains(says), "{text}: {}", e.message);
            assert!(is_command_line(text), "{text}");
        }
        let e = one("DRAW ACEPT").expect_err("a slip");
        assert_eq!(e.suggestion.as_deref(), Some("DRAW ACCEPT"));
    }
}
