//! The tables the rules refer to (`scenarios/tables.ron`): march, fire,
//! melee, attrition, recovery, railway building, Mahdist arrivals, river
//! movement and capture. Every value is data so the tables can be tuned
//! without touching code; the rules reference explains each choice.

use serde::{Deserialize, Serialize};

use super::units::{Nation, Quality, Side, UnitKind};
use crate::dice::DiceKind;

/// A row of a table: it applies to modified rolls above the previous row's
/// `to` and up to this `to`, inclusive. The first row takes everything
/// below; the last row must reach the highest roll possible.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row<T> {
    pub to: i32,
    pub result: T,
}

/// When a modifier applies. The engine decides each condition; the rules
/// reference says how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Condition {
    Always,
    /// The rolling side is this player.
    Side(Side),
    /// The game month is one of these calendar months (1 = January).
    Months(Vec<u32>),
    /// Every non-leader unit of the rolling stack is of this nation.
    AllNation(Nation),
    /// The rolling stack holds a unit of this kind.
    HasKind(UnitKind),
    /// The rolling stack has between `min` and `max` non-leader units.
    StackSize {
        min: u32,
        max: Option<u32>,
    },
    /// The rolling stack stands in a hex of this terrain.
    InTerrain(crate::geo::Terrain),
    /// The enemy stack stands in a town, village or oasis.
    EnemyInSettlement,
    /// The rolling stack stands in a town, village or oasis.
    InSettlement,
    /// The rolling stack is under siege (rule 9.12).
    UnderSiege,
    /// The rolling stack is the marching stack.
    Marching,
    /// The rolling side's firing factors, times 100, divided by the number of
    /// enemy units, lies between `min` and `max` (fire round).
    FactorRatio {
        min: u32,
        max: Option<u32>,
    },
    /// As [`Condition::FactorRatio`], with melee factors (melee round).
    MeleeRatio {
        min: u32,
        max: Option<u32>,
    },
    /// A friendly gunboat is in the battle and the enemy stands beside a
    /// river (rule 9.4); applies once per such gunboat up to `max`.
    GunboatsBesideRiver {
        max: u32,
    },
    /// The British fleet is with the stack in a Mahdist march phase (8.25).
    Fleet,
    /// The side controls this place (last to occupy it).
    Controls {
        side: Side,
        place: String,
    },
    /// Osman Digma and the railhead are both on the Souakim extension (3.41).
    OsmanAndRailheadOnExtension,
    /// The railhead hex is hills (3.41).
    RailheadInHills,
    /// The unit rolling (recovery) is of this quality.
    Quality(Quality),
}

/// Where a modifier's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Amount {
    /// A fixed number.
    Fixed(i32),
    /// The strategic rating of the leader used (7.1, 7.4).
    LeaderStrategic,
    /// The tactical rating of the leader used (7.3).
    LeaderTactical,
}

/// A named die modifier.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    /// As shown in the result log ("hot season").
    pub name: String,
    pub amount: Amount,
    pub when: Condition,
}

/// Result of the march table (rule 8.31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarchResult {
    NoMarch,
    March,
    /// This percentage of the marching force is disrupted before it moves,
    /// rounded down, at least one unit.
    MarchWithAttrition(u32),
}

/// The march table (8.31).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarchTable {
    pub dice: DiceKind,
    pub modifiers: Vec<Modifier>,
    pub rows: Vec<Row<MarchResult>>,
}

/// Combat results against one quality class: percentages of the hit
/// side's units of that class disrupted and eliminated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hits(pub u32, pub u32);

impl Hits {
    /// Percentage disrupted.
    pub fn disrupt(self) -> u32 {
        self.0
    }
    /// Percentage eliminated.
    pub fn eliminate(self) -> u32 {
        self.1
    }
}

/// A combat table row: hits by the quality of the units hit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombatRow {
    pub to: i32,
    #[serde(rename = "V")]
    pub v: Hits,
    #[serde(rename = "R")]
    pub r: Hits,
    #[serde(rename = "L")]
    pub l: Hits,
    #[serde(rename = "S")]
    pub s: Hits,
}

impl CombatRow {
    /// The hits against units of `q`.
    pub fn against(&self, q: Quality) -> Hits {
        match q {
            Quality::V => self.v,
            Quality::R => self.r,
            Quality::L => self.l,
            Quality::S => self.s,
        }
    }
}

/// A fire or melee table (9.5, 9.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombatTable {
    pub dice: DiceKind,
    /// Modifier for the quality of the rolling side (the class that
    /// contributes most factors; ties go to the better class).
    pub quality_modifiers: Vec<(Quality, i32)>,
    /// Further modifiers, each looked at from the rolling side.
    pub modifiers: Vec<Modifier>,
    pub rows: Vec<CombatRow>,
}

/// An attrition table row: the result in the open and under siege.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttritionRow {
    pub to: i32,
    pub open: Hits,
    pub siege: Hits,
}

/// The attrition table (5.2 IV, 5.3 IV, 6.0, 9.12): one roll a stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttritionTable {
    pub dice: DiceKind,
    pub modifiers: Vec<Modifier>,
    pub rows: Vec<AttritionRow>,
}

/// Result of a recovery roll (5.2 V, 5.3 V).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecoveryResult {
    StaysDisrupted,
    Recovers,
}

impl std::fmt::Display for RecoveryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RecoveryResult::StaysDisrupted => "stays disrupted",
            RecoveryResult::Recovers => "recovers",
        })
    }
}

/// The recovery table: one roll per disrupted unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryTable {
    pub dice: DiceKind,
    pub modifiers: Vec<Modifier>,
    pub rows: Vec<Row<RecoveryResult>>,
}

/// The railway building table (3.41): hexes built.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RailwayTable {
    pub dice: DiceKind,
    pub modifiers: Vec<Modifier>,
    pub rows: Vec<Row<u32>>,
}

/// Result of the Mahdist reinforcement arrival roll (3.21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArrivalResult {
    /// Remove this many dice of units (unless fewer than the floor remain).
    Remove(DiceKind),
    Nothing,
    /// Add this many dice of units from the dead pile.
    Add(DiceKind),
}

impl std::fmt::Display for ArrivalResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrivalResult::Remove(k) => write!(f, "remove {k} units"),
            ArrivalResult::Nothing => f.write_str("nothing"),
            ArrivalResult::Add(k) => write!(f, "add {k} units from the dead pile"),
        }
    }
}

/// The Mahdist reinforcement arrival table (3.21).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrivalTable {
    pub dice: DiceKind,
    pub modifiers: Vec<Modifier>,
    pub rows: Vec<Row<ArrivalResult>>,
    /// No removal if the Mahdist has fewer than this many non-leader units
    /// on the map (3.21: 7).
    pub removal_floor: u32,
}

/// A number rolled on dice plus a fixed amount ("2D6+6").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DicePlus(pub DiceKind, pub i32);

/// River movement and wrecking values (8.23).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiverRules {
    /// Boats upstream on navigable rivers (8.23 I: 2D6+6).
    pub boat_upstream_navigable: DicePlus,
    /// British boats and gunboats upstream on unnavigable rivers (8.23 II: 1D6+6).
    pub upstream_unnavigable: DicePlus,
    /// Gunboats wreck on this roll or more (8.23 II, IV: 6 on D6).
    pub gunboat_wreck: (DiceKind, i32),
    /// Boats wreck on this roll or more (8.23 II, IV: 12 on 2D6).
    pub boat_wreck: (DiceKind, i32),
    /// Turns a wrecked boat is out (8.23 II: 2).
    pub boat_wreck_turns: u32,
    /// Dice for the turns a wrecked gunboat is out; a double destroys it (2D6).
    pub gunboat_wreck_turns: DiceKind,
}

/// Capture odds (6.1, 9.9).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureRules {
    /// D6 roll needed by a winning Mahdist to capture a destroyed gun or
    /// rifle unit, by nation (9.9: Egyptian 4, British 6).
    pub guns_and_rifles: Vec<(Nation, i32)>,
    /// D6 roll needed to capture a displaced river unit (6.1: 6).
    pub river_units: i32,
}

/// Mahdist gains on entering towns (3.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TownGains {
    /// S units added on entering a town last held by the enemy (1D6).
    pub recruits: DiceKind,
    /// The unit type of those recruits.
    pub recruit_unit: String,
    /// Boats received on first entering these places.
    pub boats: Vec<(String, u32)>,
    /// The unit type of those boats.
    pub boat_unit: String,
}

/// The campaign-scale values of the optional ambush rule (seed 002,
/// "Mahdist Ambushes"; rulings in docs/rules.md, "Ambushes"). The chance
/// and the d10 composition are the seed's, in `reactions.ron`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmbushRules {
    /// An ambush may lie in a hex only if a Mahdist land unit stands within
    /// this many hexes of it ("near Mahdist forces").
    pub radius: u32,
    /// Each cavalry or camel corps unit in the marching stack lowers the
    /// chance by this many points (scouts spring ambushes).
    pub scout_reduction_percent: u32,
    /// The chance never falls below this.
    pub minimum_percent: u32,
    /// Men to a counter (1.3: "strength points of 200 to 250 men"): a party
    /// of the seed's men is this many men a counter, rounded up.
    pub men_per_unit: u32,
    /// The Mahdist unit type each kind of ambusher is drawn as.
    pub party_units: Vec<(crate::scenario::reactions::AmbushKind, String)>,
}

impl Default for AmbushRules {
    fn default() -> Self {
        use crate::scenario::reactions::AmbushKind as K;
        AmbushRules {
            radius: 3,
            scout_reduction_percent: 5,
            minimum_percent: 5,
            men_per_unit: 250,
            party_units: vec![
                (K::Camelry, "mah-cav".into()),
                (K::Spearmen, "mah-S".into()),
                (K::FuzzyWuzzySpearmen, "mah-S".into()),
                (K::Cavalry, "mah-cav".into()),
                (K::Riflemen, "mah-R".into()),
                (K::Marksmen, "mah-R".into()),
            ],
        }
    }
}

/// `scenarios/tables.ron` as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Tables")]
pub struct TablesFile {
    pub march: MarchTable,
    pub fire: CombatTable,
    pub melee: CombatTable,
    pub attrition: AttritionTable,
    pub recovery: RecoveryTable,
    pub railway: RailwayTable,
    pub mahdist_arrival: ArrivalTable,
    pub river: RiverRules,
    pub capture: CaptureRules,
    pub town_gains: TownGains,
    /// The optional ambush rule; the values above if a data folder leaves
    /// it out.
    #[serde(default)]
    pub ambush: AmbushRules,
}

/// Find the row a modified roll falls on.
pub fn row_for<T>(rows: &[Row<T>], roll: i32) -> Option<(usize, &Row<T>)> {
    rows.iter()
        .enumerate()
        .find(|(_, r)| roll <= r.to)
        .or_else(|| rows.len().checked_sub(1).map(|i| (i, &rows[i])))
}
