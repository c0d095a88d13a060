//! Combats resolved elsewhere than on the campaign's combat tables: on the
//! tabletop with miniatures, or by another rule set's procedure (the ETYFW
//! resolver). The engine knows only this: when a land combat comes up it
//! asks a [`Resolver`], which answers with the campaign's own tables, a
//! resolution (each unit's fate, captures, the loser's retreat), or "not
//! yet", which stops the turn at that combat.
//!
//! A stopped turn is never continued from the middle: it is played again
//! from the state the turn began with, with the same orders and the same
//! seed, and this time the resolver has the combat's result. Every die
//! rolled before the stopped combat falls the same again, so the resumed
//! turn is, by construction, the turn an uninterrupted run with that
//! result gives (ARCHITECTURE.md, "A turn stopped for a table battle").
//!
//! The winner is not the resolver's to say: the engine reads it from the
//! fates by 9.8, as after a combat on its own tables ("A stack loses a
//! combat if it ends a melee round with at least 50% of it's units
//! disrupted or dead").

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::events::Event;
use crate::calendar::GameMonth;
use crate::dice::{DiceKind, Roll};
use crate::geo::Hex;
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, UnitId};

/// What became of a unit in a combat resolved elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Fate {
    GoodOrder,
    Disrupted,
    Eliminated,
}

impl fmt::Display for Fate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fate::GoodOrder => "GOOD ORDER",
            Fate::Disrupted => "DISRUPTED",
            Fate::Eliminated => "ELIMINATED",
        })
    }
}

/// Which combat of a game: the month, the side whose player turn it is,
/// and its number among that player turn's combats (from 1). The same in
/// every run of the turn, so a result given for it is found again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BattleKey {
    pub month: GameMonth,
    pub turn: Side,
    pub number: usize,
}

impl fmt::Display for BattleKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} player turn, combat {}",
            self.month, self.turn, self.number
        )
    }
}

/// A land combat as it comes up, before any die is rolled for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Combat {
    pub key: BattleKey,
    /// The side that marches into the combat (the attacker, 9.1): the
    /// player turn's side, or the Mahdists charging from an ambush.
    pub attacker: Side,
    /// The march order it came from (0-based), as in the log.
    pub order: usize,
    pub attacker_hex: Hex,
    pub defender_hex: Hex,
    /// The units that count in the combat (9.8: no boat, gunboat or fleet).
    pub attackers: Vec<UnitId>,
    pub defenders: Vec<UnitId>,
    /// Boats and gunboats with either side (they fire, 9.4, but do not
    /// count for winning or losing).
    pub river_units: Vec<UnitId>,
    pub attacker_leaders: Vec<String>,
    pub defender_leaders: Vec<String>,
    /// Strength points of the counted units, attacker and defender: the
    /// size a game's option compares with.
    pub strength: (u32, u32),
    /// The Mahdists charge from an ambush (seed 002).
    pub ambush: bool,
}

impl Combat {
    /// Both sides' strength points together.
    pub fn size(&self) -> u32 {
        self.strength.0 + self.strength.1
    }
}

/// A combat's result from elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolved {
    /// Each counted unit's fate; a unit not named keeps its state.
    pub fates: BTreeMap<UnitId, Fate>,
    /// Guns and rifle units the winning Mahdists take (9.9), as named:
    /// no capture roll is made for them.
    pub captured: Vec<UnitId>,
    /// Where the loser retreats, if the result says (a RETREAT order for
    /// this combat; 9.8's limits still apply).
    pub retreat: Option<Hex>,
    /// How it was resolved, for the log.
    pub how: String,
    /// Rolls and notes for the log (a resolver's dice), in order.
    pub log: Vec<Event>,
}

/// How a combat is to be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// On the campaign's combat tables (9.2-9.9), as always.
    Tables,
    /// On the campaign's tables, the log saying why (a table battle whose
    /// result did not come by its deadline).
    TablesNoted(String),
    /// With this result.
    Resolved(Resolved),
    /// Not yet: the turn stops at this combat.
    Stop,
}

/// Decides how each land combat is resolved. It must be a pure function
/// of what it is given and what it was built with (the engine's purity
/// depends on it); `roll` draws from the turn's dice, so a resolver that
/// rolls is as reproducible as the tables.
pub trait Resolver {
    fn resolve(
        &mut self,
        scn: &Scenario,
        state: &GameState,
        combat: &Combat,
        roll: &mut dyn FnMut(DiceKind, String) -> Roll,
    ) -> Resolution;

    /// Whether every combat goes to the campaign's tables whatever it is:
    /// the engine then does not ask (nor describe each combat).
    fn always_tables(&self) -> bool {
        false
    }
}

/// Every combat on the campaign's tables: the rules as written.
#[derive(Clone, Copy, Debug, Default)]
pub struct CampaignTables;

impl Resolver for CampaignTables {
    fn resolve(
        &mut self,
        _: &Scenario,
        _: &GameState,
        _: &Combat,
        _: &mut dyn FnMut(DiceKind, String) -> Roll,
    ) -> Resolution {
        Resolution::Tables
    }

    fn always_tables(&self) -> bool {
        true
    }
}
