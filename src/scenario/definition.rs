//! A scenario as written in `scenarios/<id>.ron`: set-up, reinforcements,
//! replacements, special rules and victory conditions (rules 2, 3, 4).

use serde::{Deserialize, Serialize};

use super::units::{Nation, Side, UnitKind};
use crate::calendar::GameMonth;
use crate::dice::DiceKind;

/// One line of units: `count` counters of a type, or a named unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitLine {
    /// A unit type id from `units.ron`.
    pub unit: String,
    /// How many counters (ignored when `dice` is given).
    #[serde(default = "one")]
    pub count: u32,
    /// A number of counters rolled on arrival ("2D6 S units").
    #[serde(default)]
    pub dice: Option<DiceKind>,
    /// Combat factor of each, if not the type's ("3x2V": count 3, strength 2).
    #[serde(default)]
    pub strength: Option<u32>,
    /// The historical name of a single unit ("Black Watch").
    #[serde(default)]
    pub name: Option<String>,
    /// Not placed if a unit of this name is still in play (rule 2.3, the
    /// Guards Camel Corps and the Coldstream Guards).
    #[serde(default)]
    pub unless_in_play: Option<String>,
}

fn one() -> u32 {
    1
}

/// Where units may be placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Zone {
    /// A named place or a hex label.
    At(String),
    /// Any one of these places; the owner chooses.
    OneOf(Vec<String>),
    /// Hexes whose distance from the nearest of `places` is between `min`
    /// and `max` inclusive.
    Around {
        places: Vec<String>,
        min: u32,
        max: u32,
    },
    /// Land hexes beside `river`, lying south of `south_of`, at least
    /// `min_distance` hexes from it.
    RiverBank {
        river: String,
        south_of: String,
        min_distance: u32,
    },
    /// Towns and villages south of `place`, and the places in `plus`.
    SettlementsSouthOf { place: String, plus: Vec<String> },
    /// Land hexes of the Souakim map extension at least `min_distance` hexes
    /// from `away_from` (rule 2.3: "not adjacent to Souakim" is 2).
    SouakimExtension {
        away_from: Option<String>,
        min_distance: u32,
    },
    /// Any hex holding a stack of the owner's (rule 3.21: new Mahdist units
    /// join any friendly stack).
    FriendlyStack,
}

/// A set-up line (rules 2.2, 2.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deployment {
    pub side: Side,
    pub zone: Zone,
    pub units: Vec<UnitLine>,
    #[serde(default)]
    pub leaders: Vec<String>,
    /// The rules' own words for this line.
    #[serde(default)]
    pub text: String,
}

/// When a reinforcement arrives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arrival {
    /// In the owner's reinforcement phase of this month.
    Month(GameMonth),
    /// In the owner's next reinforcement phase after the place falls to
    /// the enemy (rule 2.2: Osman Digma when El Obeid falls).
    WhenFalls(String),
    /// When the random event with this id is rolled (rule 2.3: the Souakim
    /// Field Forces).
    Event(String),
}

/// A scheduled or triggered reinforcement (rules 2.2, 2.3, 3.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reinforcement {
    /// Short id used in logs and orders ("gordon-relief").
    pub id: String,
    /// What players call it, as the results mail's news names it ("the
    /// Gordon Relief Expedition"); empty: the id.
    #[serde(default)]
    pub name: String,
    pub side: Side,
    pub arrives: Arrival,
    pub zone: Zone,
    pub units: Vec<UnitLine>,
    #[serde(default)]
    pub leaders: Vec<String>,
    #[serde(default)]
    pub text: String,
}

/// Where Egyptian replacements arrive (rule 3.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplacementRules {
    /// Turns between loss and return (rule 3.3: 2).
    pub delay_turns: u32,
    /// Places tried in order; a place under siege or enemy-held is skipped.
    pub places: Vec<String>,
    /// Where units that came with a Souakim Field Force return (2.3, 3.3).
    #[serde(default)]
    pub field_force_place: Option<String>,
    /// From this month one supply unit a turn (rule 3.3: November 1884).
    #[serde(default)]
    pub free_supply_from: Option<GameMonth>,
    /// Where that supply unit may arrive.
    #[serde(default)]
    pub free_supply_places: Vec<String>,
    /// The unit type of that supply unit.
    #[serde(default)]
    pub free_supply_unit: Option<String>,
}

/// A scenario's special rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpecialRule {
    /// Rule 2.2: no Mahdist unit may ever enter a hex beside `river` from
    /// `from` downstream (northwards), `from` included.
    NoMahdistBesideRiverDownstreamOf { river: String, from: String },
    /// Rule 2.3: at most this many non-leader, non-boat Mahdist units a hex
    /// at set-up.
    MahdistSetupStackLimit(u32),
    /// Rule 2.3: boats and gunboats are never placed at these places.
    NoRiverUnitsPlacedAt(Vec<String>),
}

/// How the game is won (rules 4.1, 4.2). The end month gives a draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VictoryCondition {
    /// Egyptian victory when none of `places` is under siege at the end of
    /// `turns` consecutive Egyptian player turns (4.1).
    NoSiege { places: Vec<String>, turns: u32 },
    /// `winner` wins at once if `leader` is eliminated (4.1: the Khalifa).
    LeaderEliminated { leader: String, winner: Side },
    /// `winner` wins by holding `place` (4.1: capturing Khartoum).
    Capture { place: String, winner: Side },
    /// Mahdist victory by keeping `place` under siege at the end of `turns`
    /// consecutive Egyptian player turns (4.1).
    Siege { place: String, turns: u32 },
    /// `winner` wins at the end of any `at_end_of` player turn when a unit
    /// of `kind` (and `nation`, if given) is in one of `places` (4.2).
    UnitIn {
        kind: UnitKind,
        nation: Option<Nation>,
        places: Vec<String>,
        at_end_of: Side,
        winner: Side,
    },
    /// Mahdist victory when a stack holding a British leader is wholly
    /// eliminated in combat (4.2).
    BritishLeaderStackEliminated,
    /// The Egyptian player can at best draw once a British unit other than
    /// `except` is lost to an attrition table result (4.2).
    DrawCapOnBritishAttrition { except: Vec<UnitKind> },
    /// A random event may end the game (4.2).
    EndedByEvent,
}

/// `scenarios/<id>.ron` as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Scenario")]
pub struct ScenarioFile {
    /// Short name used on the command line (`el-obeid`, `khartoum`).
    pub id: String,
    pub number: u32,
    pub title: String,
    /// First game month.
    pub start: GameMonth,
    /// Last game month; a game not won by its end is a draw.
    pub end: GameMonth,
    /// The Mahdist pool starts with no rifle or gun units (2.2): the unit
    /// types kept out of the pool at the start.
    #[serde(default)]
    pub pool_excludes: Vec<String>,
    pub setup: Vec<Deployment>,
    #[serde(default)]
    pub reinforcements: Vec<Reinforcement>,
    pub replacements: ReplacementRules,
    #[serde(default)]
    pub special_rules: Vec<SpecialRule>,
    pub victory: Vec<VictoryCondition>,
}
