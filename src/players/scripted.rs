//! A side played from order files: one file a month in the order
//! language, read and checked as a player's mail is (`orders::parse`,
//! `orders::check`), so a player or designer can measure a line of play
//! against a programmed opponent (`dervish simulate --egyptian
//! orders:DIR`, `dervish balance ... --egyptian orders:DIR`).
//!
//! The files of a folder, by name (anything not ending `.txt` is left
//! alone, so notes may sit beside them):
//!
//! - `1882-11.txt`: the orders of that month;
//! - `02.txt` (or `2.txt`): the orders of the scenario's second month
//!   (`01.txt` is its opening month);
//! - `setup.txt`: the set-up orders (2.1, `SETUP ... AT ...`), given with
//!   the opening month's orders, as in a player's first mail.
//!
//! A month with no file gives no orders: the defaults apply, as for a
//! player who sends none. An order the checker sets aside (a line not
//! understood, an order not possible now) is reported and the rest are
//! played, as at the deadline of a game by mail. A file that cannot be
//! read as orders at all (over the size limits, another side's or
//! month's orders, a name that is no month) is refused when the folder is
//! read, before any game is played. No dice: the same seed plays the same
//! game.

use std::collections::BTreeMap;

use crate::calendar::GameMonth;
use crate::engine::orders::Orders;
use crate::orders::{self, Input, Item, Order, Sheet, Vocabulary, print};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// The name of the set-up file.
pub const SETUP_FILE: &str = "setup.txt";

/// One order file: its name in the folder and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderFile {
    pub name: String,
    pub text: String,
}

/// The order files of one side, checked by name and read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    side: Side,
    setup: Option<OrderFile>,
    months: BTreeMap<GameMonth, OrderFile>,
}

/// An order set aside in one month: the file, the line and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetAside {
    pub file: String,
    pub line: usize,
    pub text: String,
    pub reason: String,
}

impl std::fmt::Display for SetAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} line {}: {}: {}",
            self.file, self.line, self.text, self.reason
        )
    }
}

/// What a script gave in one call: the orders the engine is given and
/// what became of the lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Played {
    pub orders: Orders,
    /// The files read, in order (none: no file for the month).
    pub files: Vec<String>,
    /// Each order kept, in canonical form.
    pub kept: Vec<String>,
    /// Each order set aside.
    pub set_aside: Vec<SetAside>,
}

impl Script {
    /// The script of `side` from a folder's files (name, text), checked:
    /// each `.txt` name a month of the scenario, a turn number or
    /// `setup.txt`; no month named twice; each file read as orders, its
    /// `SIDE` and `MONTH` lines (if any) agreeing with the side and its
    /// name. Every problem is reported, one a line.
    pub fn from_files(scn: &Scenario, side: Side, files: Vec<OrderFile>) -> Result<Script, String> {
        let mut script = Script {
            side,
            setup: None,
            months: BTreeMap::new(),
        };
        let mut problems = Vec::new();
        let vocab = Vocabulary::new(scn);
        for file in files.into_iter().filter(|f| f.name.ends_with(".txt")) {
            let month = match file_month(scn, &file.name) {
                Ok(m) => m,
                Err(e) => {
                    problems.push(format!("{}: {e}", file.name));
                    continue;
                }
            };
            if let Err(e) = read_header(&vocab, &file, side, month.or(Some(scn.def.start))) {
                problems.push(format!("{}: {e}", file.name));
                continue;
            }
            match month {
                None => script.setup = Some(file),
                Some(m) => {
                    if let Some(other) = script.months.get(&m) {
                        problems.push(format!(
                            "{} and {} both give the orders of {}: keep one",
                            other.name,
                            file.name,
                            m.long_name()
                        ));
                        continue;
                    }
                    script.months.insert(m, file);
                }
            }
        }
        if problems.is_empty() {
            Ok(script)
        } else {
            Err(problems.join("\n"))
        }
    }

    /// The side the script plays.
    pub fn side(&self) -> Side {
        self.side
    }

    /// How many files it has (the set-up file included).
    pub fn len(&self) -> usize {
        self.months.len() + usize::from(self.setup.is_some())
    }

    /// Whether it has no file at all (the side gives no orders).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The orders for the side's call in `state`: in the opening month,
    /// before the set-up is placed, the set-up file with the month's file
    /// (the Mahdist side is asked for its set-up apart, before the first
    /// Egyptian player turn, and then for its month's orders); else the
    /// month's file. Read and checked as a player's mail: lines not
    /// understood and orders not possible are set aside, the rest given.
    pub fn play(&self, scn: &Scenario, state: &GameState) -> Played {
        let setting_up = state.month == scn.def.start
            && !state.effects.egyptian_turn_played
            && !state.setup_placed;
        let mut files: Vec<&OrderFile> = Vec::new();
        if setting_up && let Some(f) = &self.setup {
            files.push(f);
        }
        if !(setting_up && self.side == Side::Mahdist)
            && let Some(f) = self.months.get(&state.month)
        {
            files.push(f);
        }
        let mut played = Played {
            files: files.iter().map(|f| f.name.clone()).collect(),
            ..Played::default()
        };
        if files.is_empty() {
            return played;
        }
        let (sheet, origins) = read_together(scn, state, &files, &mut played.set_aside);
        check_together(scn, state, self.side, &sheet, &origins, &mut played);
        played
    }
}

/// The month a file's name gives: `Some` for a month or turn number,
/// `None` for the set-up file.
fn file_month(scn: &Scenario, name: &str) -> Result<Option<GameMonth>, String> {
    if name == SETUP_FILE {
        return Ok(None);
    }
    let stem = name.trim_end_matches(".txt");
    let (start, end) = (scn.def.start, scn.def.end);
    let months = end.months_since(start) + 1;
    let month = if !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()) {
        let n: i32 = stem
            .parse()
            .map_err(|_| format!("{stem} is no turn number"))?;
        if n < 1 || n > months {
            return Err(format!(
                "turn {n} is not a month of this scenario: its turns are 1 to {months} ({} to {})",
                start.long_name(),
                end.long_name()
            ));
        }
        start
            .plus(n - 1)
            .ok_or_else(|| format!("turn {n} is past the war's end"))?
    } else {
        let m: GameMonth = stem.parse().map_err(|_| {
            "the name of an order file is a month (1882-11.txt), a turn number (02.txt) or setup.txt"
                .to_string()
        })?;
        if m < start || m > end {
            return Err(format!(
                "{} is not a month of this scenario ({} to {})",
                m.long_name(),
                start.long_name(),
                end.long_name()
            ));
        }
        m
    };
    Ok(Some(month))
}

/// A file read as orders at all: within the size limits, and its `SIDE`
/// and `MONTH` lines, if it has them, those of the side and `month`.
fn read_header(
    vocab: &Vocabulary,
    file: &OrderFile,
    side: Side,
    month: Option<GameMonth>,
) -> Result<(), String> {
    let parsed = orders::parse(&Input::text(&file.text), vocab)
        .map_err(|e| format!("refused whole: {e}"))?;
    let header = &parsed.sheet.header;
    if let Some(s) = header.side
        && s != side
    {
        return Err(format!(
            "it says SIDE {s}, and it is played for the {side} side"
        ));
    }
    if let (Some(m), Some(want)) = (header.month, month)
        && m != want
    {
        return Err(format!(
            "it says MONTH {}, and its name gives {}",
            m.long_name(),
            want.long_name()
        ));
    }
    Ok(())
}

/// Where a line of the combined sheet came from: file and line.
type Origins = Vec<(String, usize)>;

/// The files parsed and put one after the other into one sheet (each
/// item numbered by its place in it, its file and line kept in the
/// origins); each line not understood set aside.
fn read_together(
    scn: &Scenario,
    state: &GameState,
    files: &[&OrderFile],
    set_aside: &mut Vec<SetAside>,
) -> (Sheet, Origins) {
    let vocab = Vocabulary::new(scn).in_play(state);
    let mut sheet = Sheet::default();
    let mut origins = Vec::new();
    for f in files {
        // Checked when the folder was read: a file within the limits.
        let Ok(parsed) = orders::parse(&Input::text(&f.text), &vocab) else {
            continue;
        };
        for e in parsed.errors {
            set_aside.push(SetAside {
                file: f.name.clone(),
                line: e.line,
                text: e.text.clone(),
                reason: format!("not understood: {}", e.message),
            });
        }
        merge_header(&mut sheet.header, parsed.sheet.header);
        for item in parsed.sheet.items {
            origins.push((f.name.clone(), item.line));
            sheet.items.push(Item {
                line: origins.len(),
                ..item
            });
        }
    }
    (sheet, origins)
}

/// The side and month of two headers, the later file's first.
fn merge_header(into: &mut orders::Header, h: orders::Header) {
    into.side = h.side.or(into.side);
    into.month = h.month.or(into.month);
}

/// The combined sheet checked against the state; the orders without an
/// error kept.
fn check_together(
    scn: &Scenario,
    state: &GameState,
    side: Side,
    sheet: &Sheet,
    origins: &Origins,
    played: &mut Played,
) {
    let checked = orders::check(sheet, scn, state, side);
    let origin = |line: usize| {
        origins
            .get(line.wrapping_sub(1))
            .cloned()
            .unwrap_or_else(|| (played.files.join(" and "), line))
    };
    for e in &checked.errors {
        let (file, line) = origin(e.line);
        played.set_aside.push(SetAside {
            file,
            line,
            text: e.text.clone(),
            reason: format!("not possible: {}", e.message),
        });
    }
    if checked.refused {
        return;
    }
    let refused: Vec<usize> = checked.errors.iter().map(|e| e.line).collect();
    played.kept = sheet
        .items
        .iter()
        .filter(|i| is_order(&i.order) && !refused.contains(&i.line))
        .map(|i| print::order(&scn.map, &i.order))
        .collect();
    played.orders = checked.orders;
}

/// Whether a line is an order the engine plays (not READY, not a
/// question to the service, which order files have no use for).
fn is_order(o: &Order) -> bool {
    !matches!(o, Order::Ready | Order::ReadyAsIs | Order::Command(_))
}

/// What a month's call gave, for a person: the files read, the orders
/// kept, each set aside with its file, line and reason.
pub fn describe(played: &Played, side: Side, month: GameMonth) -> String {
    let mut out = String::new();
    let from = if played.files.is_empty() {
        ": none, no order file (the defaults apply)".to_string()
    } else {
        format!(
            " from {}: {} kept, {} set aside",
            played.files.join(" and "),
            crate::words::count(played.kept.len(), "order", "orders"),
            played.set_aside.len()
        )
    };
    out.push_str(&format!("== {} {side} orders{from}\n", month.long_name()));
    for k in &played.kept {
        for line in k.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    for s in &played.set_aside {
        out.push_str(&format!(
            "  set aside, {} line {}: {}\n    {}\n",
            s.file, s.line, s.text, s.reason
        ));
    }
    out
}

/// The orders set aside over a run of games, for the balance report: how
/// many, in how many games, and the most frequent with their counts.
/// `games` holds each game's orders set aside, each line beginning with
/// its side ([`Scripts::play`]).
pub fn set_aside_summary(games: &[&[String]]) -> String {
    let total: usize = games.iter().map(|g| g.len()).sum();
    let with_any = games.iter().filter(|g| !g.is_empty()).count();
    let mut out = if total == 0 {
        format!(
            "\n## Orders from files\n\nNo order was set aside in {}.\n",
            crate::words::count(games.len(), "game", "games")
        )
    } else {
        format!(
            "\n## Orders from files\n\n{} set aside over {} ({} with any).\n",
            crate::words::count(total, "order", "orders"),
            crate::words::count(games.len(), "game", "games"),
            with_any
        )
    };
    let mut by_text: BTreeMap<&str, usize> = BTreeMap::new();
    for s in games.iter().copied().flatten() {
        *by_text.entry(s.as_str()).or_default() += 1;
    }
    let mut common: Vec<(&str, usize)> = by_text.into_iter().collect();
    common.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    if !common.is_empty() {
        out.push_str("\n| order set aside | games |\n|---|---|\n");
        for (text, k) in common.iter().take(10) {
            out.push_str(&format!("| {} | {k} |\n", text.replace('|', "/")));
        }
    }
    out
}

/// The order files of both sides, where one is played from files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scripts {
    pub egyptian: Option<Script>,
    pub mahdist: Option<Script>,
}

impl Scripts {
    /// The script playing `side`, if one does.
    pub fn of(&self, side: Side) -> Option<&Script> {
        match side {
            Side::Egyptian => self.egyptian.as_ref(),
            Side::Mahdist => self.mahdist.as_ref(),
        }
    }

    /// The orders of `side`'s script in `state` (none if no script plays
    /// it), each order set aside added to `set_aside` (its side, file,
    /// line and why).
    pub fn play(
        &self,
        scn: &Scenario,
        state: &GameState,
        side: Side,
        set_aside: &mut Vec<String>,
    ) -> Orders {
        let Some(script) = self.of(side) else {
            return Orders::default();
        };
        let played = script.play(scn, state);
        set_aside.extend(played.set_aside.iter().map(|s| format!("{side} {s}")));
        played.orders
    }
}
