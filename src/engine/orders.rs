//! Orders as typed values: what a player (or a programmed opponent) wants
//! done in one player turn. The text order language produces these.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::geo::Hex;
use crate::state::UnitId;

/// Which units march.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Selection {
    /// Every unit and leader of the player's in this hex.
    Stack(Hex),
    /// A leader and every unit in his hex.
    Leader(String),
    /// These units (they must share a hex); the stack splits (rule 8.3).
    /// Leaders in the hex stay unless named in `leaders`.
    Units {
        units: Vec<UnitId>,
        leaders: Vec<String>,
    },
}

/// One march of up to three (rules 5.2 III, 8.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Leg {
    /// By land along these hexes (the start hex not included), as far as
    /// the march result allows.
    Path(Vec<Hex>),
    /// By land towards this hex along the cheapest route.
    To(Hex),
    /// By rail to this hex (rule 8.22).
    Rail(Hex),
    /// By river to this hex (rule 8.23).
    River(Hex),
    /// With the British fleet to this hex (rule 8.25).
    Fleet(Hex),
}

impl Leg {
    /// Whether this leg needs a roll on the march table (rule 5.2 III: rail
    /// and river moves do not).
    pub fn needs_march_roll(&self) -> bool {
        !matches!(self, Leg::Rail(_) | Leg::River(_))
    }
}

/// What the marching stack does when it comes next to the enemy (9.1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnContact {
    /// Attack every enemy stack met, one after another while winning.
    AttackAny,
    /// Attack only stacks in these hexes.
    AttackHexes(Vec<Hex>),
    /// Never attack.
    #[default]
    Avoid,
}

/// Units left behind at a hex on the way (rule 8.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropOff {
    pub at: Hex,
    pub units: Vec<UnitId>,
    #[serde(default)]
    pub leaders: Vec<String>,
}

/// A march order for one stack. `L` is the kind of its legs: the engine's
/// [`Leg`], or the legs as a player writes them (the order language's
/// `March`, whose river legs may name their way).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarchOrder<L = Leg> {
    pub units: Selection,
    /// Up to three legs.
    pub legs: Vec<L>,
    #[serde(default)]
    pub on_contact: OnContact,
    /// Keep moving with unused movement points after a won combat (8.31).
    #[serde(default)]
    pub continue_after_win: bool,
    #[serde(default)]
    pub drop_offs: Vec<DropOff>,
    /// Where a retreat should head, if the rules leave a choice (9.8).
    #[serde(default)]
    pub retreat_towards: Option<Hex>,
    /// The leader whose strategic value helps this stack's march rolls
    /// (7.1); a C-in-C in the stack is always used instead (7.0).
    #[serde(default)]
    pub leader_bonus: Option<String>,
    /// Units to take losses first, in this order (within the rules' limits).
    #[serde(default)]
    pub lose_first: Vec<UnitId>,
}

impl<L> MarchOrder<L> {
    /// A march of `units` along `legs`, avoiding combat, with no options.
    pub fn new(units: Selection, legs: Vec<L>) -> Self {
        MarchOrder {
            units,
            legs,
            on_contact: OnContact::Avoid,
            continue_after_win: false,
            drop_offs: Vec::new(),
            retreat_towards: None,
            leader_bonus: None,
            lose_first: Vec::new(),
        }
    }

    /// The same march with each leg turned into another kind by `leg`.
    pub fn map_legs<M>(&self, leg: impl FnMut(&L) -> M) -> MarchOrder<M> {
        MarchOrder {
            units: self.units.clone(),
            legs: self.legs.iter().map(leg).collect(),
            on_contact: self.on_contact.clone(),
            continue_after_win: self.continue_after_win,
            drop_offs: self.drop_offs.clone(),
            retreat_towards: self.retreat_towards,
            leader_bonus: self.leader_bonus.clone(),
            lose_first: self.lose_first.clone(),
        }
    }
}

impl MarchOrder {
    /// A plain march of a stack by land, avoiding combat.
    pub fn stack(hex: Hex, legs: Vec<Leg>) -> Self {
        Self::new(Selection::Stack(hex), legs)
    }
}

/// The `place` key of the Egyptian monthly supply unit (3.3: "this unit may
/// arrive at Wady Halfa or Souakim").
pub const MONTHLY_SUPPLY: &str = "supply";

/// The `place` key of new Mahdist units (3.21: "Mahdist new units are placed
/// in any friendly stack").
pub const RECRUITS: &str = "recruits";

/// Units and leaders of the player's set-up placed in one hex of their
/// set-up line's zone (2.1), in the opening month only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupOrder {
    pub units: Vec<UnitId>,
    #[serde(default)]
    pub leaders: Vec<String>,
    pub at: Hex,
}

/// Everything a player orders for one player turn. Units without orders
/// hold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orders {
    /// Marches, carried out in this order; each stack finishes before the
    /// next begins (8.1, 8.3).
    pub marches: Vec<MarchOrder>,
    /// Hexes where a supply unit is expended in the attrition phase
    /// (5.2 IV). Without an entry the default policy decides.
    #[serde(default)]
    pub expend_supply: Vec<Hex>,
    /// Hexes where the supply is kept and the stack rolls for attrition.
    #[serde(default)]
    pub keep_supply: Vec<Hex>,
    /// Where to place a reinforcement that may arrive in several places
    /// (by reinforcement id); without an entry the first allowed place.
    /// Two ids are not scenario reinforcements: [`MONTHLY_SUPPLY`] (3.3) and
    /// [`RECRUITS`] (3.21).
    #[serde(default)]
    pub place: BTreeMap<String, Hex>,
    /// Where parts of a reinforcement go when it may be split (2.3: "at Wady
    /// Halfa, Sarras or Souakim"): by reinforcement id, then by a unit's
    /// name, a unit type id or a leader's name; the rest go to `place`.
    #[serde(default)]
    pub place_parts: BTreeMap<String, BTreeMap<String, Hex>>,
    /// Units withdrawn from the map in the reinforcement phase; they count
    /// as destroyed (3.1).
    #[serde(default)]
    pub withdraw: Vec<UnitId>,
    /// Pairs of Camel Corps units that dismount (8.24): each pair becomes two
    /// infantry units of the same quality and one camel; they never remount.
    #[serde(default)]
    pub dismount: Vec<(UnitId, UnitId)>,
    /// The railway line to build when the railhead is placed (3.41);
    /// without it, the Souakim-Berber line.
    #[serde(default)]
    pub railway: Option<String>,
    /// Units the player gives up first when a random event takes units of
    /// the player's choice (4.2); without them the default policy chooses.
    #[serde(default)]
    pub event_losses: Vec<UnitId>,
    /// A standing order: units to take combat losses first, in this order,
    /// whenever the player's units fight (9.4: "The owning player may
    /// distribute all results"), above all in the other player's turn,
    /// when the player gives no orders. It holds from this player turn
    /// until the player's next; without it the default policy decides.
    #[serde(default)]
    pub standing_lose_first: Vec<UnitId>,
    /// Set-up placements (2.1), in the opening month; what they do not
    /// place stays where the default placement put it.
    #[serde(default)]
    pub setup: Vec<SetupOrder>,
}
