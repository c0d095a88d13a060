//! Random event tables (`scenarios/events.ron`): one table per side and
//! period, rolled on D66 ("2D6 rolled as base 7 numbers", rules 5.2 I and
//! 5.3 I). Every entry's effect is typed so the engine applies it.

use serde::{Deserialize, Serialize};

use super::definition::Zone;
use super::units::Side;
use crate::calendar::GameMonth;
use crate::dice::DiceKind;

/// What an event does. Each variant is applied by the engine; the rules
/// reference says how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Effect {
    /// Nothing happens.
    Nothing,
    /// The reinforcement with this id arrives (2.3: the Souakim Field
    /// Forces); rolled again after it has come, nothing happens.
    CallReinforcement(String),
    /// The game ends now, as a draw unless a side has won (4.2).
    EndGame,
    /// Units of a type join, placed in `zone` by their owner (with
    /// `dice`, that many dice of counters; else `count`).
    AddUnits {
        unit: String,
        count: u32,
        dice: Option<DiceKind>,
        zone: Zone,
    },
    /// The rolling side removes this many non-leader units of its choice
    /// (with `dice`, that many dice), worst first (desertion).
    RemoveUnits { count: u32, dice: Option<DiceKind> },
    /// The rolling side's scheduled reinforcements and replacements of this
    /// month are delayed one month.
    DelayReinforcements,
    /// Seasonal rivers count as navigable and unnavigable ones as
    /// seasonal-navigable for this month (high Nile).
    HighNile,
    /// Every stack of the rolling side within `radius` of `place` rolls
    /// attrition again this month (disease).
    ExtraAttrition { place: String, radius: u32 },
    /// A leader's ratings count as 0 this month.
    LeaderInactive(String),
    /// A leader joins (placed in `zone`), if not already in play.
    LeaderArrives { leader: String, zone: Zone },
    /// A leader is removed from play (the Mahdi's death: the Khalifa
    /// succeeds, 7.2).
    LeaderDies(String),
    /// Up to `count` of the rolling side's `from` units become `to` units
    /// (captured rifles armed).
    Convert {
        from: String,
        to: String,
        count: u32,
    },
    /// This many of the rolling side's stacks (its largest first) may not
    /// march this month.
    StacksHalted(u32),
    /// A modifier to the rolling side's march rolls this month.
    MarchModifier(i32),
}

/// One line of a table: a D66 range and its effects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventEntry {
    /// First and last D66 number covered, such as (11, 13).
    pub roll: (u32, u32),
    /// Short title for the result log.
    pub title: String,
    /// The story, for the players.
    #[serde(default)]
    pub text: String,
    pub effects: Vec<Effect>,
    /// Once it has happened, rolling it again means nothing.
    #[serde(default)]
    pub once: bool,
}

/// A random event table for one side and period.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventTable {
    pub id: String,
    pub side: Side,
    /// First and last month it is used in, inclusive.
    pub from: GameMonth,
    pub to: GameMonth,
    pub entries: Vec<EventEntry>,
}

/// `scenarios/events.ron` as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Events")]
pub struct EventsFile {
    pub tables: Vec<EventTable>,
}

impl EventsFile {
    /// The table for `side` in `month`.
    pub fn table_for(&self, side: Side, month: GameMonth) -> Option<&EventTable> {
        self.tables
            .iter()
            .find(|t| t.side == side && t.from <= month && month <= t.to)
    }
}

impl EventTable {
    /// The entry for a D66 number.
    pub fn entry_for(&self, roll: u32) -> Option<&EventEntry> {
        self.entries
            .iter()
            .find(|e| e.roll.0 <= roll && roll <= e.roll.1)
    }
}

/// The 36 D66 numbers, in order (11..16, 21..26, ... 61..66).
pub fn d66_numbers() -> impl Iterator<Item = u32> {
    (1..=6).flat_map(|a| (1..=6).map(move |b| a * 10 + b))
}
