//! The Mahdist Reaction table and the ambush tables of the seed "Mahdist
//! Ambushes and Reactions" (`seeds/002_…`), read from
//! `scenarios/reactions.ron` exactly as the seed prints them.
//!
//! "Following the drawing of the Random Event card ... reaction tests are
//! conducted for the Mahdists on the board" with 2D6 on the row of their
//! situation; each cell is one or two letters, "A" charge to "Z" fortify if
//! outnumbered. "There is a 20% chance of an ambush taking place then and
//! there. If this does occur, roll a ten sided dice (d10) and consult the
//! table below to determine the composition of the ambushing party."
//!
//! This module holds the tables and the rolls; what a letter makes a
//! Mahdist stack do at the campaign's scale is the Mahdist player's
//! (`docs/opponents.md`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dice::{Dice, DiceKind, DieSource, Roll};

/// The table file as shipped.
pub const REACTIONS_RON: &str = include_str!("../../scenarios/reactions.ron");

/// The strength of the enemy in sight against the Mahdists' own, the
/// columns "Strength (in figures)" of the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Band {
    /// "Up to 1/4 own"
    UpToQuarter,
    /// "1/2 own"
    Half,
    /// "Same as"
    Same,
    /// "Above"
    Above,
    /// "Double"
    Double,
}

impl Band {
    /// Every band, weakest enemy first.
    pub const ALL: [Band; 5] = [
        Band::UpToQuarter,
        Band::Half,
        Band::Same,
        Band::Above,
        Band::Double,
    ];

    /// The band of an enemy of `enemy` strength against `own`: up to a
    /// quarter, up to a half, up to the same, up to double (the seed's
    /// "Above"), more than double. The seed names the bands and not their
    /// edges; each band reaches up to its own figure (docs/opponents.md).
    pub fn of(enemy: u32, own: u32) -> Band {
        let (e, o) = (u64::from(enemy), u64::from(own.max(1)));
        if 4 * e <= o {
            Band::UpToQuarter
        } else if 2 * e <= o {
            Band::Half
        } else if e <= o {
            Band::Same
        } else if e < 2 * o {
            Band::Above
        } else {
            Band::Double
        }
    }

    fn label(self) -> &'static str {
        match self {
            Band::UpToQuarter => "up to 1/4 own",
            Band::Half => "1/2 own",
            Band::Same => "same as",
            Band::Above => "above",
            Band::Double => "double",
        }
    }
}

/// A row of the reaction table: the situation the Mahdists are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Situation {
    /// "No Enemy in Sight" / "Enemy not Visible".
    NoEnemy,
    /// "Enemy Visible in Open within 72"", by strength.
    Open(Band),
    /// "Enemy visible in cover", by strength.
    Cover(Band),
    /// "Friends winning".
    FriendsWinning,
    /// "Friends losing".
    FriendsLosing,
    /// "Fresh Troops*": "those who have arrived on board/ yet to spot any
    /// enemy".
    FreshTroops,
    /// "Firing Heard".
    FiringHeard,
    /// "In defences#": "Mahdists in defences not Imperial troops".
    InDefences,
    /// "Losing melee".
    LosingMelee,
    /// "Losing badly".
    LosingBadly,
    /// "Winning/cut down*".
    WinningMelee,
}

impl Situation {
    /// Every row, in the seed's order.
    pub fn all() -> Vec<Situation> {
        let mut v = vec![Situation::NoEnemy];
        v.extend(Band::ALL.map(Situation::Open));
        v.extend(Band::ALL.map(Situation::Cover));
        v.extend([
            Situation::FriendsWinning,
            Situation::FriendsLosing,
            Situation::FreshTroops,
            Situation::FiringHeard,
            Situation::InDefences,
            Situation::LosingMelee,
            Situation::LosingBadly,
            Situation::WinningMelee,
        ]);
        v
    }
}

impl fmt::Display for Situation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Situation::NoEnemy => f.write_str("no enemy in sight"),
            Situation::Open(b) => write!(f, "enemy visible in open, {}", b.label()),
            Situation::Cover(b) => write!(f, "enemy visible in cover, {}", b.label()),
            Situation::FriendsWinning => f.write_str("friends winning"),
            Situation::FriendsLosing => f.write_str("friends losing"),
            Situation::FreshTroops => f.write_str("fresh troops"),
            Situation::FiringHeard => f.write_str("firing heard"),
            Situation::InDefences => f.write_str("in defences"),
            Situation::LosingMelee => f.write_str("losing melee"),
            Situation::LosingBadly => f.write_str("losing badly"),
            Situation::WinningMelee => f.write_str("winning or cut down"),
        }
    }
}

/// A letter of the seed's "Character and Code Definitions".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Letter {
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
    I,
    J,
    K,
    L,
    M,
    S,
    T,
    V,
    W,
    X,
    Y,
    Z,
}

impl Letter {
    fn from_char(c: char) -> Option<Letter> {
        Some(match c {
            'A' => Letter::A,
            'B' => Letter::B,
            'C' => Letter::C,
            'D' => Letter::D,
            'E' => Letter::E,
            'F' => Letter::F,
            'G' => Letter::G,
            'H' => Letter::H,
            'I' => Letter::I,
            'J' => Letter::J,
            'K' => Letter::K,
            'L' => Letter::L,
            'M' => Letter::M,
            'S' => Letter::S,
            'T' => Letter::T,
            'V' => Letter::V,
            'W' => Letter::W,
            'X' => Letter::X,
            'Y' => Letter::Y,
            'Z' => Letter::Z,
            _ => return None,
        })
    }
}

impl fmt::Display for Letter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// One cell: one or two letters, both to be carried out, in order ("FE":
/// head for and join known friends, head for high ground).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Reaction(pub Vec<Letter>);

impl fmt::Display for Reaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.0 {
            write!(f, "{l}")?;
        }
        Ok(())
    }
}

/// What the ambushers are, by the seed's d10 table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AmbushKind {
    Camelry,
    Spearmen,
    FuzzyWuzzySpearmen,
    Cavalry,
    Riflemen,
    Marksmen,
}

/// One line of the ambush composition table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmbushParty {
    /// The d10 roll, 1 to 10.
    pub roll: u32,
    /// How many men ("each base of natives represents 100 Mahdists").
    pub men: u32,
    pub kind: AmbushKind,
    /// The seed's words.
    pub text: String,
}

#[derive(Deserialize)]
struct RowFile {
    situation: Situation,
    results: Vec<String>,
}

#[derive(Deserialize)]
struct CodeFile {
    letter: Letter,
    text: String,
}

#[derive(Deserialize)]
struct AmbushFile {
    chance_percent: u32,
    composition: Vec<AmbushParty>,
}

#[derive(Deserialize)]
#[serde(rename = "Reactions")]
struct File {
    rows: Vec<RowFile>,
    codes: Vec<CodeFile>,
    ambush: AmbushFile,
}

/// The checked tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reactions {
    rows: BTreeMap<Situation, [Reaction; 11]>,
    codes: BTreeMap<Letter, String>,
    /// The chance of an ambush, in percent.
    pub ambush_chance: u32,
    /// The ambush parties, by d10 roll 1 to 10.
    pub ambush: Vec<AmbushParty>,
}

impl Reactions {
    /// The tables shipped with Dervish.
    pub fn shipped() -> Result<Reactions, String> {
        Reactions::parse(REACTIONS_RON)
    }

    /// Read and check a table file: every situation exactly once, eleven
    /// results a row (2 to 12), every letter defined, the ambush table
    /// 1 to 10 once each. Every problem is named.
    pub fn parse(text: &str) -> Result<Reactions, String> {
        let file: File = ron::from_str(text).map_err(|e| format!("reactions.ron: {e}"))?;
        let mut problems = Vec::new();
        let codes: BTreeMap<Letter, String> =
            file.codes.into_iter().map(|c| (c.letter, c.text)).collect();
        let mut rows = BTreeMap::new();
        for r in file.rows {
            if r.results.len() != 11 {
                problems.push(format!(
                    "the row {} has {} results; it needs 11, for 2D6 totals 2 to 12",
                    r.situation,
                    r.results.len()
                ));
                continue;
            }
            let mut cells: Vec<Reaction> = Vec::new();
            for (i, cell) in r.results.iter().enumerate() {
                let letters: Option<Vec<Letter>> = cell.chars().map(Letter::from_char).collect();
                match letters {
                    Some(l) if !l.is_empty() && l.len() <= 2 => {
                        for x in &l {
                            if !codes.contains_key(x) {
                                problems.push(format!(
                                    "the row {}, {}: the letter {x} is not defined in codes",
                                    r.situation,
                                    i + 2
                                ));
                            }
                        }
                        cells.push(Reaction(l));
                    }
                    _ => problems.push(format!(
                        "the row {}, {}: {cell:?} is not one or two letters of the table",
                        r.situation,
                        i + 2
                    )),
                }
            }
            if let Ok(cells) = <[Reaction; 11]>::try_from(cells)
                && rows.insert(r.situation, cells).is_some()
            {
                problems.push(format!("the row {} is given twice", r.situation));
            }
        }
        for s in Situation::all() {
            if !rows.contains_key(&s) {
                problems.push(format!("the row {s} is missing"));
            }
        }
        if file.ambush.chance_percent > 100 {
            problems.push(format!(
                "the ambush chance is {}%; it cannot be over 100",
                file.ambush.chance_percent
            ));
        }
        let rolls: Vec<u32> = file.ambush.composition.iter().map(|p| p.roll).collect();
        if rolls != (1..=10).collect::<Vec<u32>>() {
            problems.push(format!(
                "the ambush composition must list the d10 rolls 1 to 10 in order, once each; it lists {rolls:?}"
            ));
        }
        if problems.is_empty() {
            Ok(Reactions {
                rows,
                codes,
                ambush_chance: file.ambush.chance_percent,
                ambush: file.ambush.composition,
            })
        } else {
            Err(format!("reactions.ron: {}", problems.join("; ")))
        }
    }

    /// The cell for a 2D6 total (2 to 12; anything else is clamped).
    pub fn lookup(&self, situation: Situation, total: i32) -> &Reaction {
        let i = usize::try_from(total.clamp(2, 12) - 2).unwrap_or(0);
        &self.rows[&situation][i]
    }

    /// Roll 2D6 on the row of `situation`: the roll and the reaction.
    pub fn roll<S: DieSource>(
        &self,
        situation: Situation,
        dice: &mut Dice<S>,
        who: &str,
    ) -> (Roll, Reaction) {
        let r = dice.roll(
            DiceKind::TwoD6,
            format!("Mahdist reaction of {who} ({situation})"),
        );
        let reaction = self.lookup(situation, r.result).clone();
        (r, reaction)
    }

    /// The seed's words for a letter.
    pub fn code(&self, l: Letter) -> &str {
        self.codes.get(&l).map_or("", String::as_str)
    }

    /// Whether an ambush lies in wait (percentage dice against the chance)
    /// and, if so, who the ambushers are (d10).
    pub fn ambush<S: DieSource>(
        &self,
        dice: &mut Dice<S>,
        where_: &str,
    ) -> (Roll, Option<(Roll, &AmbushParty)>) {
        let chance = dice.roll(DiceKind::D100, format!("ambush at {where_}"));
        if u32::try_from(chance.result).unwrap_or(u32::MAX) > self.ambush_chance {
            return (chance, None);
        }
        let who = dice.roll(DiceKind::D10, format!("ambush party at {where_}"));
        let i = usize::try_from(who.result - 1)
            .unwrap_or(0)
            .min(self.ambush.len() - 1);
        (chance, Some((who, &self.ambush[i])))
    }

    /// The whole table as text, laid out as the seed prints it: one line
    /// a row, the results for 2 to 12 in columns.
    pub fn table_text(&self) -> String {
        self.layout(44, 4, None)
    }

    /// The same table within `width` columns (at least 72), for a mail:
    /// narrower columns, and the codes' and parties' words wrapped under
    /// their letter.
    pub fn table_text_narrow(&self, width: usize) -> String {
        self.layout(38, 3, Some(width.max(72)))
    }

    fn layout(&self, label: usize, cell: usize, wrap: Option<usize>) -> String {
        let wrapped = |head: &str, text: &str| -> String {
            let Some(width) = wrap else {
                return format!("{head}{text}\n");
            };
            let indent = " ".repeat(head.chars().count());
            let opts = textwrap::Options::new(width)
                .initial_indent(head)
                .subsequent_indent(&indent);
            let mut s = textwrap::fill(text, opts);
            s.push('\n');
            s
        };
        let mut out = String::from("Mahdist Reaction Table (2d6)\n");
        out.push_str(&format!("{:<label$}", ""));
        for t in 2..=12 {
            out.push_str(&format!("{t:>cell$}"));
        }
        out.push('\n');
        for s in Situation::all() {
            out.push_str(&format!("{:<label$}", s.to_string()));
            for c in &self.rows[&s] {
                out.push_str(&format!("{:>cell$}", c.to_string()));
            }
            out.push('\n');
        }
        out.push_str("\nCodes\n");
        for (l, t) in &self.codes {
            out.push_str(&wrapped(&format!("{l}  "), t));
        }
        out.push_str(&format!(
            "\nAmbush: {}% chance; d10 composition\n",
            self.ambush_chance
        ));
        for p in &self.ambush {
            out.push_str(&wrapped(&format!("{:>2}  ", p.roll), &p.text));
        }
        out
    }

    /// The chance of each reaction of a row with fair 2D6: (reaction,
    /// probability), summed over the totals that give it.
    pub fn probabilities(&self, situation: Situation) -> BTreeMap<Reaction, f64> {
        let mut out = BTreeMap::new();
        for total in 2..=12i32 {
            let ways = 6 - (total - 7).abs();
            *out.entry(self.lookup(situation, total).clone())
                .or_insert(0.0) += f64::from(ways) / 36.0;
        }
        out
    }
}
