//! What happened in a player turn, in order. The result log and the maps
//! are rendered from these, so each carries what a report needs.

use serde::{Deserialize, Serialize};

use crate::calendar::GameMonth;
use crate::dice::Roll;
use crate::geo::Hex;
use crate::scenario::Side;
use crate::state::UnitId;

/// The five phases of a player turn (rules 5.2, 5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    RandomEvents,
    Reinforcements,
    March,
    Attrition,
    Recovery,
}

/// Who made a choice the rules leave to the owning player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The player's orders.
    Orders,
    /// The default policy, named.
    Default(String),
}

/// A roll read on a table: the dice, each modifier, the total and the line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRoll {
    pub roll: Roll,
    pub modifiers: Vec<(String, i32)>,
    pub total: i32,
    /// The table read ("march table").
    pub table: String,
    /// The line read, as a player would find it ("5-6: March with 25% attrition").
    pub line: String,
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    PhaseBegins {
        side: Side,
        phase: Phase,
        month: GameMonth,
    },
    /// A die roll read on a table.
    Rolled(TableRoll),
    /// An order that could not be carried out, and why.
    OrderSetAside { order: usize, reason: String },
    /// A stack starts marching.
    MarchBegins {
        order: usize,
        from: Hex,
        units: Vec<UnitId>,
        leaders: Vec<String>,
    },
    /// A leader's strategic value helps this stack (7.1).
    LeaderHelps {
        order: usize,
        leader: String,
        decided_by: Decision,
    },
    /// The march table result for one leg, and the movement points it gives.
    MarchResult {
        order: usize,
        leg: usize,
        result: String,
        movement_points: u32,
    },
    /// The stack moved along these hexes.
    Moved {
        order: usize,
        path: Vec<Hex>,
        cost: u32,
    },
    /// The stack stopped before the end of its leg.
    Stopped {
        order: usize,
        at: Hex,
        reason: String,
    },
    /// Units left behind (8.3).
    DroppedOff {
        order: usize,
        at: Hex,
        units: Vec<UnitId>,
        leaders: Vec<String>,
    },
    /// A unit was disrupted.
    Disrupted {
        unit: UnitId,
        hex: Hex,
        cause: String,
        decided_by: Decision,
    },
    /// A unit was eliminated.
    Eliminated {
        unit: UnitId,
        hex: Hex,
        cause: String,
        decided_by: Decision,
    },
    /// A supply unit was expended and the hex is in supply (5.2 IV).
    SupplyExpended {
        unit: UnitId,
        hex: Hex,
        decided_by: Decision,
    },
    /// A stack skipped the attrition roll.
    AttritionExempt { hex: Hex, reason: String },
    /// A disrupted unit recovered (5.2 V).
    Recovered { unit: UnitId, hex: Hex },
    /// A disrupted unit stays disrupted.
    StillDisrupted { unit: UnitId, hex: Hex },
    /// A combat begins between the marching stack and an enemy hex (9.1).
    CombatBegins {
        order: usize,
        attacker: Hex,
        defender: Hex,
        attackers: Vec<UnitId>,
        defenders: Vec<UnitId>,
    },
    /// How it ended (9.8).
    CombatResult {
        order: usize,
        defender: Hex,
        result: String,
    },
    /// A losing stack retreats (9.8); `to: None` means it stays or is gone.
    Retreat {
        side: Side,
        from: Hex,
        to: Option<Hex>,
        decided_by: Decision,
    },
    /// A destroyed gun or rifle unit captured by the Mahdists (9.9), or a
    /// river unit captured by either side (6.1), and the captor's counter
    /// that replaces it (none if no counter is spare).
    Captured {
        unit: UnitId,
        becomes: Option<UnitId>,
        hex: Hex,
        /// Whose the new counter is, as the log names it ("Mahdist",
        /// "British"); empty in turns stored before it was recorded
        /// (they were Mahdist captures).
        #[serde(default)]
        owner: String,
        /// The rule the capture is made under ("9.9", "6.1"); empty in
        /// turns stored before it was recorded.
        #[serde(default)]
        rule: String,
    },
    /// Reinforcements placed (3.1); `lost` lists unit types with no counter
    /// or no place left.
    Arrived {
        id: String,
        hex: Hex,
        units: Vec<UnitId>,
        leaders: Vec<String>,
        lost: Vec<String>,
        decided_by: Decision,
    },
    /// A replacement back in play (3.3).
    Replaced { unit: UnitId, hex: Hex },
    /// A random event (5.2 I, 5.3 I): the table, the entry and its story.
    RandomEvent {
        table: String,
        title: String,
        text: String,
    },
    /// Something the log should say that is not one of the above.
    Note { text: String },
    /// A leader was removed for good (7.2), and how it came about.
    LeaderRemoved {
        leader: String,
        hex: Hex,
        #[serde(default)]
        how: String,
    },
    /// The Khalifa succeeds the Mahdi (7.2).
    Succession { leader: String, hex: Option<Hex> },
    /// Sieges at the end of the player turn (9.12).
    UnderSiege { hexes: Vec<Hex> },
    /// A victory condition was looked at.
    VictoryCheck { condition: String, status: String },
    /// The game is over.
    GameOver { result: String },
}
