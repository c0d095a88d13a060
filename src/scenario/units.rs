//! Unit types, their values and the counter mix; leaders and their ratings
//! (`scenarios/units.ron`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The two players (rule 1.1: the Egyptian player controls the British and
/// pro-Egyptian Sudanese too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Side {
    Egyptian,
    Mahdist,
}

impl Side {
    /// Of two things, the first for the Egyptian player, the second for the
    /// Mahdist.
    pub fn pick<T>(self, egyptian: T, mahdist: T) -> T {
        match self {
            Side::Egyptian => egyptian,
            Side::Mahdist => mahdist,
        }
    }

    /// The side's adjective with its article: "an Egyptian", "a Mahdist".
    pub fn a(self) -> &'static str {
        self.pick("an Egyptian", "a Mahdist")
    }

    /// The other player.
    pub fn enemy(self) -> Side {
        self.pick(Side::Mahdist, Side::Egyptian)
    }

    /// Lower-case name as written in orders.
    pub fn name(self) -> &'static str {
        self.pick("egyptian", "mahdist")
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pick("Egyptian", "Mahdist"))
    }
}

/// Whose colours a counter has. It decides replacements (rule 3.3: British
/// losses are replaced, Egyptian, Australian and Indian units are not) and
/// capture odds (rule 9.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Nation {
    Egyptian,
    British,
    Indian,
    Australian,
    Mahdist,
}

impl fmt::Display for Nation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Nation::Egyptian => "Egyptian",
            Nation::British => "British",
            Nation::Indian => "Indian",
            Nation::Australian => "Australian",
            Nation::Mahdist => "Mahdist",
        })
    }
}

/// What a counter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum UnitKind {
    Infantry,
    Cavalry,
    CamelCorps,
    Gun,
    Boat,
    Gunboat,
    Supply,
    Camel,
    Civilian,
    /// The British fleet (rule 8.25).
    Fleet,
    NavalInfantry,
    Engineer,
}

impl fmt::Display for UnitKind {
    /// The kind in words, as players read it ("camel corps").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UnitKind::Infantry => "infantry",
            UnitKind::Cavalry => "cavalry",
            UnitKind::CamelCorps => "camel corps",
            UnitKind::Gun => "gun",
            UnitKind::Boat => "boat",
            UnitKind::Gunboat => "gunboat",
            UnitKind::Supply => "supply",
            UnitKind::Camel => "camel",
            UnitKind::Civilian => "civilian",
            UnitKind::Fleet => "fleet",
            UnitKind::NavalInfantry => "naval infantry",
            UnitKind::Engineer => "engineer",
        })
    }
}

impl UnitKind {
    /// Boats and gunboats move along rivers and stand beside them (6.0).
    pub fn is_river_unit(self) -> bool {
        matches!(self, UnitKind::Boat | UnitKind::Gunboat)
    }

    /// Units that may melee (rule 9.4: all but leaders, boats, camels,
    /// supply; the fleet only fires).
    pub fn can_melee(self) -> bool {
        !matches!(
            self,
            UnitKind::Boat
                | UnitKind::Gunboat
                | UnitKind::Camel
                | UnitKind::Supply
                | UnitKind::Fleet
        )
    }

    /// Not counted when deciding who lost a combat (rule 9.8).
    pub fn ignored_for_combat_result(self) -> bool {
        matches!(self, UnitKind::Boat | UnitKind::Gunboat | UnitKind::Fleet)
    }

    /// One-letter code used on sector maps.
    pub fn letter(self) -> char {
        match self {
            UnitKind::Infantry => 'i',
            UnitKind::Cavalry => 'c',
            UnitKind::CamelCorps => 'k',
            UnitKind::Gun => 'g',
            UnitKind::Boat => 'b',
            UnitKind::Gunboat => 'w',
            UnitKind::Supply => 's',
            UnitKind::Camel => 'm',
            UnitKind::Civilian => 'v',
            UnitKind::Fleet => 'f',
            UnitKind::NavalInfantry => 'n',
            UnitKind::Engineer => 'e',
        }
    }
}

/// Troop quality, best first (see the rules reference for the reading).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Quality {
    V,
    R,
    L,
    S,
}

impl Quality {
    /// All classes, best first.
    pub const ALL: [Quality; 4] = [Quality::V, Quality::R, Quality::L, Quality::S];

    /// The letter.
    pub fn letter(self) -> char {
        match self {
            Quality::V => 'V',
            Quality::R => 'R',
            Quality::L => 'L',
            Quality::S => 'S',
        }
    }
}

/// A kind of counter and its values, as written in `units.ron`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitType {
    /// Identifier used by scenarios, such as `egy-inf-R`.
    pub id: String,
    /// Name shown in reports.
    pub name: String,
    pub side: Side,
    pub nation: Nation,
    pub kind: UnitKind,
    pub quality: Quality,
    /// Combat factor of one counter ("2V" is strength 2, class V); a
    /// scenario line may override it for a named unit.
    pub strength: u32,
    /// Whether it fires in the fire round (rule 9.4: rifle-armed infantry,
    /// camel corps, guns).
    pub fires: bool,
    /// Hexes' worth of movement points per march (rule 8.31); river units
    /// move by the river rules (8.23) and have 0 here.
    pub movement: u32,
    /// How many counters of this kind exist (rules 2.2, 6.1, 9.9).
    pub counters: u32,
    /// For guns and rifle infantry: the Mahdist type that replaces it when
    /// captured (rule 9.9); for gunboats: the captor's type (6.1).
    #[serde(default)]
    pub captured_as: Option<String>,
    /// Short code printed on unit IDs (such as `ER` for Egyptian R infantry).
    pub code: String,
}

impl UnitType {
    /// The name with its class letter, as rosters and results name the
    /// type: "Egyptian infantry (R)"; a name that gives its class already
    /// ("Ansar (S)") is kept as it is.
    pub fn labelled_name(&self) -> String {
        if self.name.ends_with(')') {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, self.quality.letter())
        }
    }
}

/// A leader, as written in `units.ron` (rule 7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leader {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub side: Side,
    pub nation: Nation,
    /// Added to march rolls (7.1) and recovery rolls (7.4).
    pub strategic: i32,
    /// Added to fire or melee rolls (7.3).
    pub tactical: i32,
    /// C-in-C flag: his values are used whenever he is in the stack (7.0).
    pub c_in_c: bool,
    /// Hexes per march (rule 7.0: 8).
    #[serde(default = "leader_movement")]
    pub movement: u32,
}

fn leader_movement() -> u32 {
    8
}

/// `scenarios/units.ron` as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Units")]
pub struct UnitsFile {
    pub types: Vec<UnitType>,
    pub leaders: Vec<Leader>,
}
