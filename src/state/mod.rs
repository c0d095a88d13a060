//! The game state: every counter of the counter mix and where it is, the
//! leaders, who holds each town, and the month. Plain data, serialisable,
//! changed only by the engine.

pub mod setup;
mod shared;
mod units;
pub mod variant;

pub use shared::Shared;
pub use units::Units;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::calendar::GameMonth;
use crate::geo::Hex;
use crate::scenario::Side;

/// A counter's identity, printed on reports (`ER07`, `MS112`) and used in
/// orders.
#[derive(Clone, Debug, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnitId(pub Arc<str>);

/// Equal when the names are, as text. The turn compares ids often (who has
/// marched, which counter an order names), mostly ids of one state's
/// counters, which share their text, or of one length that differ in their
/// last letters (`MS112`, `MS113`): those are told apart before the text
/// is compared in full.
impl PartialEq for UnitId {
    fn eq(&self, other: &Self) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        a.len() == b.len() && a.last() == b.last() && a == b
    }
}

/// Hashed as its text, as equal ids are equal text.
impl std::hash::Hash for UnitId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl fmt::Display for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a counter is. Every counter is in exactly one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// On the map in this hex.
    OnMap(Hex),
    /// In the Mahdist pool (unused and dead units, drawn at random, 3.2),
    /// or an Egyptian counter not yet used.
    Pool,
    /// Kept out of the pool (2.2: no rifle or gun units begin in it); comes
    /// into play only by capture.
    Reserve,
    /// Eliminated and not coming back.
    Eliminated,
    /// Eliminated, returning as a replacement in this month (3.3).
    AwaitingReplacement(GameMonth),
    /// Wrecked river unit, back in this month (8.23).
    Wrecked(GameMonth),
}

/// One counter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: UnitId,
    /// Its type id in `units.ron`.
    pub unit_type: Arc<str>,
    pub side: Side,
    /// Its historical name, if it has one.
    pub name: Option<Arc<str>>,
    /// Combat factor (the type's unless the scenario names a strength).
    pub strength: u32,
    pub status: Status,
    /// Disrupted (rule 9.7).
    pub disrupted: bool,
    /// The reinforcement it came with, if any (3.3: Souakim Field Force
    /// units are replaced at Souakim).
    #[serde(default)]
    pub origin: Option<Arc<str>>,
}

impl Unit {
    /// The hex it stands in, if on the map.
    pub fn hex(&self) -> Option<Hex> {
        match self.status {
            Status::OnMap(h) => Some(h),
            _ => None,
        }
    }
}

/// A leader in play or out of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderState {
    pub name: String,
    pub side: Side,
    /// `Some` while on the map.
    pub hex: Option<Hex>,
    /// Removed for good (7.2).
    pub removed: bool,
}

/// The whole state of a game between player turns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub scenario: String,
    pub month: GameMonth,
    /// Every counter of the counter mix, in a fixed order.
    pub units: Units,
    pub leaders: Shared<Vec<LeaderState>>,
    /// Which side last occupied each settlement (3.2, 3.21, 4.1).
    pub control: BTreeMap<Hex, Side>,
    /// A British unit other than camels or supply has been lost to an
    /// attrition table result: the Egyptian player can at best draw (4.2).
    #[serde(default)]
    pub british_attrition_loss: bool,
    /// A stack holding a British leader was wholly eliminated in combat (4.2).
    #[serde(default)]
    pub british_leader_stack_destroyed: bool,
    /// A random event ended the game (4.2).
    #[serde(default)]
    pub ended_by_event: bool,
    /// Consecutive-turn counts of the victory conditions (4.1).
    #[serde(default)]
    pub counters: BTreeMap<String, u32>,
    /// The result, once the game is over.
    #[serde(default)]
    pub result: Option<GameResult>,
    /// Reinforcements that have arrived or were lost (by id).
    #[serde(default)]
    pub arrived: BTreeSet<String>,
    /// Reinforcements called by a random event, placed in the next
    /// reinforcement phase of their side.
    #[serde(default)]
    pub called: Vec<String>,
    /// Random events marked `once` that have happened ("table id/roll").
    #[serde(default)]
    pub happened: BTreeSet<String>,
    /// Effects of this month's random events.
    #[serde(default)]
    pub effects: MonthEffects,
    /// Hexes built on each railway line, counted from its start (3.4).
    #[serde(default)]
    pub rail_built: BTreeMap<String, usize>,
    /// The line being built and the month building may start (3.41: the
    /// turn after the 2nd Souakim Field Force).
    #[serde(default)]
    pub railhead: Option<Railhead>,
    /// Each side's standing order for its combat losses (9.4), from its
    /// last player turn's orders; used in the other side's player turn.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub standing_lose_first: BTreeMap<Side, Vec<UnitId>>,
    /// The optional rules chosen when the game was made.
    #[serde(default, skip_serializing_if = "Options::is_default")]
    pub options: Options,
    /// Both sides' set-ups are placed and were published before the first
    /// month's orders (the set-up step of a game by mail, or a situation):
    /// set-up orders are no longer taken (2.1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub setup_placed: bool,
}

/// Optional rules, chosen per game when it is made (`dervish game new`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// The ambushes of seed 002 ("Mahdist Ambushes"): an Egyptian stack
    /// marching into ambush ground near the Mahdists may be ambushed
    /// (docs/rules.md, "Ambushes").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ambushes: bool,
    /// Which combats are fought on the tabletop (docs/tabletop.md).
    #[serde(default, skip_serializing_if = "TableBattles::is_default")]
    pub table_battles: TableBattles,
    /// What resolves the combats not fought on the table.
    #[serde(default, skip_serializing_if = "AutoResolver::is_default")]
    pub resolver: AutoResolver,
    /// House rules chosen (docs/rules.md, "House rules (optional
    /// variants)"); none in a game stored before they existed.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub variants: BTreeSet<variant::Variant>,
}

/// The miniatures rules a game's table battles are fought with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RuleSet {
    /// "Volley Fire" (seed 001).
    #[default]
    VolleyFire,
    /// "PITS 1885" quick reference (seed 003).
    Pits1885,
    /// "'Eres To You Fuzzy Wuzzy" (seed 004).
    Etyfw,
}

impl RuleSet {
    pub const ALL: [RuleSet; 3] = [RuleSet::VolleyFire, RuleSet::Pits1885, RuleSet::Etyfw];

    /// The rule set's name as players write it (`volley-fire`, `pits-1885`,
    /// `etyfw`).
    pub fn key(self) -> &'static str {
        match self {
            RuleSet::VolleyFire => "volley-fire",
            RuleSet::Pits1885 => "pits-1885",
            RuleSet::Etyfw => "etyfw",
        }
    }

    /// The rule set's title.
    pub fn title(self) -> &'static str {
        match self {
            RuleSet::VolleyFire => "Volley Fire",
            RuleSet::Pits1885 => "PITS 1885",
            RuleSet::Etyfw => "'Eres To You Fuzzy Wuzzy",
        }
    }
}

impl std::str::FromStr for RuleSet {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let k = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        RuleSet::ALL
            .into_iter()
            .find(|r| r.key() == k || (k == "pits" && *r == RuleSet::Pits1885))
            .ok_or_else(|| {
                format!("unknown miniatures rules `{s}`: use volley-fire, pits-1885 or etyfw")
            })
    }
}

/// Which combats go to the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableSelect {
    /// None: every combat on the campaign's tables (or the resolver).
    #[default]
    None,
    /// Every land combat.
    All,
    /// Combats of more than this many strength points, both sides
    /// together.
    Above(u32),
    /// Combats at the places the game master has flagged.
    Flagged,
}

impl std::str::FromStr for TableSelect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "none" => Ok(TableSelect::None),
            "all" => Ok(TableSelect::All),
            "flagged" => Ok(TableSelect::Flagged),
            _ => t
                .strip_prefix("above:")
                .and_then(|n| n.trim().parse::<u32>().ok())
                .map(TableSelect::Above)
                .ok_or_else(|| {
                    format!(
                        "`{s}`: give none, all, above:N (combats of more than N strength points, both sides together) or flagged"
                    )
                }),
        }
    }
}

impl std::str::FromStr for AutoResolver {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "tables" => Ok(AutoResolver::Tables),
            "etyfw" => Ok(AutoResolver::Etyfw),
            _ => Err(format!("`{s}`: give tables or etyfw")),
        }
    }
}

/// A game's table battles: which combats, how many a player turn, the
/// rules they are fought with, the places flagged, the time allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableBattles {
    pub select: TableSelect,
    /// At most this many table battles a player turn; the rest are
    /// resolved as the others. `None`: no limit.
    #[serde(default)]
    pub cap: Option<u32>,
    #[serde(default)]
    pub rules: RuleSet,
    /// Hexes the game master flagged: a combat in or against one goes to
    /// the table (with `TableSelect::Flagged`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub flagged: BTreeSet<Hex>,
    /// Hours from the briefs to the result's deadline.
    #[serde(default = "TableBattles::default_hours")]
    pub deadline_hours: u32,
}

impl Default for TableBattles {
    fn default() -> Self {
        TableBattles {
            select: TableSelect::None,
            cap: None,
            rules: RuleSet::VolleyFire,
            flagged: BTreeSet::new(),
            deadline_hours: Self::default_hours(),
        }
    }
}

impl TableBattles {
    fn default_hours() -> u32 {
        168
    }

    pub fn is_default(&self) -> bool {
        *self == TableBattles::default()
    }

    /// Whether any combat may go to the table.
    pub fn any(&self) -> bool {
        self.select != TableSelect::None
    }
}

/// What resolves a combat that is not fought on the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AutoResolver {
    /// The campaign's combat tables (9.2-9.9).
    #[default]
    Tables,
    /// The procedure of 'Eres To You Fuzzy Wuzzy (seed 004;
    /// docs/tabletop-etyfw.md).
    Etyfw,
}

impl AutoResolver {
    pub fn is_default(&self) -> bool {
        *self == AutoResolver::Tables
    }
}

impl Options {
    /// No optional rule chosen.
    pub fn is_default(&self) -> bool {
        *self == Options::default()
    }

    /// The optional rules chosen, in words ("ambushes"), for mails and
    /// listings; empty when none.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.ambushes {
            v.push("ambushes");
        }
        if self.table_battles.any() {
            v.push("table battles");
        }
        if self.resolver == AutoResolver::Etyfw {
            v.push("ETYFW resolver");
        }
        v.extend(self.variants.iter().map(|h| h.key()));
        v
    }
}

/// The railhead marker (3.4, 3.41).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Railhead {
    /// The line being built; `None` until the railhead is placed.
    pub line: Option<String>,
    /// First month of building.
    pub from: GameMonth,
}

/// What this month's random events changed; cleared when the month ends.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonthEffects {
    /// Sides whose scheduled reinforcements and replacements wait a month.
    pub delayed: BTreeSet<Side>,
    /// High Nile this month.
    pub high_nile: bool,
    /// Extra attrition rolls: side, centre, radius.
    pub extra_attrition: Vec<(Side, Hex, u32)>,
    /// Leaders whose ratings count as 0 this month.
    pub inactive: BTreeSet<String>,
    /// Hexes of stacks that may not march this month.
    pub halted: BTreeSet<Hex>,
    /// March roll modifiers by side.
    pub march_modifier: BTreeMap<Side, i32>,
    /// The Egyptian player turn of this month has been played: in the
    /// opening month, the set-up is over (2.1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub egyptian_turn_played: bool,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// `None` for a draw.
    pub winner: Option<Side>,
    pub reason: String,
}

/// The units and leaders in one hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stack<'a> {
    pub hex: Hex,
    pub side: Side,
    pub units: Vec<&'a Unit>,
    pub leaders: Vec<&'a LeaderState>,
}

impl GameState {
    /// A copy whose counters' texts (ids, types, names) are its own, shared
    /// with no other state: what a game played on its own thread starts
    /// from, so that copying its counters month by month never touches
    /// the counts of texts other threads copy too. Texts the original's
    /// counters share (the type of counters of one type) are shared alike
    /// by the copy's, so a turn still tells them apart by pointer.
    pub fn unshared(&self) -> GameState {
        let mut own: rustc_hash::FxHashMap<*const u8, Arc<str>> = Default::default();
        let mut own = |a: &Arc<str>| {
            own.entry(a.as_ptr())
                .or_insert_with(|| Arc::from(&**a))
                .clone()
        };
        let mut state = self.clone();
        for u in &mut state.units {
            u.id = UnitId(own(&u.id.0));
            u.unit_type = own(&u.unit_type);
            u.name = u.name.as_ref().map(&mut own);
            u.origin = u.origin.as_ref().map(&mut own);
        }
        for ids in state.standing_lose_first.values_mut() {
            for id in ids {
                *id = UnitId(own(&id.0));
            }
        }
        state
    }

    /// A unit by id.
    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.id.0.eq_ignore_ascii_case(id))
    }

    /// Every stack on the map, ordered by hex (row, then column), then side;
    /// its units and leaders in the order of the state's lists. The stacks
    /// are kept in that order as they are found (a binary search for each
    /// counter, none when it stands with the counter before it), rather
    /// than in an ordered map.
    pub fn stacks(&self) -> Vec<Stack<'_>> {
        let mut stacks: Vec<Stack<'_>> = Vec::new();
        // The stack of `side` in `hex`, made where it belongs if new.
        let place = |stacks: &mut Vec<Stack<'_>>, hex: Hex, side: Side| {
            let key = (hex.row, hex.col, side);
            match stacks.binary_search_by_key(&key, |s| (s.hex.row, s.hex.col, s.side)) {
                Ok(i) => i,
                Err(i) => {
                    stacks.insert(
                        i,
                        Stack {
                            hex,
                            side,
                            units: Vec::new(),
                            leaders: Vec::new(),
                        },
                    );
                    i
                }
            }
        };
        // The stack found last, by its place in `stacks` (a new stack
        // moves those after it, so this is taken again after each).
        let mut last: Option<(Hex, Side, usize)> = None;
        for &k in self.units.placed() {
            let Some(u) = self.units.get(k as usize) else {
                continue;
            };
            let Some(h) = u.hex() else { continue };
            let i = match last {
                Some((at, side, i)) if at == h && side == u.side => i,
                _ => place(&mut stacks, h, u.side),
            };
            stacks[i].units.push(u);
            last = Some((h, u.side, i));
        }
        for l in &self.leaders {
            if let (Some(h), false) = (l.hex, l.removed) {
                let i = place(&mut stacks, h, l.side);
                stacks[i].leaders.push(l);
            }
        }
        stacks
    }

    /// The stacks in a hex (one per side; two only in a broken state).
    pub fn stacks_at(&self, hex: Hex) -> Vec<Stack<'_>> {
        self.stacks().into_iter().filter(|s| s.hex == hex).collect()
    }

    /// A digest of the state, the same on every machine for the same state
    /// (FNV-1a over the RON text), for comparing runs.
    pub fn digest(&self) -> String {
        let text = ron::to_string(self).unwrap_or_default();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `==` on unit ids answers as their text does, over every pair of the counters' ids of
    /// both scenarios, each id also as a copy of its own (not the state's
    /// shared text), and ids that differ only in their middle.
    #[test]
    fn unit_ids_are_equal_as_their_text_is() {
        let data = crate::scenario::DataSet::embedded().expect("the data built in");
        let (mut pairs, mut equal) = (0, 0);
        for scenario in ["khartoum", "el-obeid"] {
            let scn = data.scenario(scenario).expect("a scenario built in");
            let (state, _) =
                setup::initial_state(&scn, &setup::Placements::new()).expect("a set-up");
            let mut ids: Vec<UnitId> = state.units.iter().map(|u| u.id.clone()).collect();
            let copies: Vec<UnitId> = ids.iter().map(|i| UnitId(i.0.as_ref().into())).collect();
            ids.extend(copies);
            ids.extend(
                ["ER07", "EX07", "ER7", "MS112", "MS1112", "MT112", ""].map(|s| UnitId(s.into())),
            );
            for a in &ids {
                for b in &ids {
                    assert_eq!(a == b, a.0.as_ref() == b.0.as_ref(), "{a} {b}");
                    pairs += 1;
                    equal += usize::from(a == b);
                }
            }
        }
        assert!(
            pairs > 10_000 && equal > 200,
            "{pairs} pairs, {equal} equal"
        );
    }

    /// [`GameState::unshared`] gives the same state, none of whose texts is
    /// the original's, and whose counters of one type share their type's
    /// text as the original's do.
    #[test]
    fn an_unshared_copy_is_the_same_state_with_texts_of_its_own() {
        let data = crate::scenario::DataSet::embedded().expect("the data built in");
        for scenario in ["khartoum", "el-obeid"] {
            let scn = data.scenario(scenario).expect("a scenario built in");
            let (state, _) =
                setup::initial_state(&scn, &setup::Placements::new()).expect("a set-up");
            let copy = state.unshared();
            assert_eq!(copy, state, "{scenario}");
            let texts = |s: &GameState| -> Vec<*const u8> {
                s.units
                    .iter()
                    .flat_map(|u| {
                        [
                            Some(&u.id.0),
                            Some(&u.unit_type),
                            u.name.as_ref(),
                            u.origin.as_ref(),
                        ]
                    })
                    .flatten()
                    .map(|a| a.as_ptr())
                    .collect()
            };
            let theirs: std::collections::HashSet<*const u8> = texts(&state).into_iter().collect();
            assert!(
                texts(&copy).iter().all(|p| !theirs.contains(p)),
                "{scenario}"
            );
            let shared_types = |s: &GameState| {
                s.units
                    .windows(2)
                    .filter(|w| Arc::ptr_eq(&w[0].unit_type, &w[1].unit_type))
                    .count()
            };
            assert!(shared_types(&state) > 10, "{scenario}");
            assert_eq!(shared_types(&copy), shared_types(&state), "{scenario}");
        }
    }

    /// [`GameState::stacks`] as an ordered map of the stacks makes them.
    fn stacks_by_map(state: &GameState) -> Vec<Stack<'_>> {
        let mut by: BTreeMap<(i32, i32, Side), Stack<'_>> = BTreeMap::new();
        let empty = |hex: Hex, side: Side| Stack {
            hex,
            side,
            units: Vec::new(),
            leaders: Vec::new(),
        };
        for u in &state.units {
            if let Some(h) = u.hex() {
                by.entry((h.row, h.col, u.side))
                    .or_insert_with(|| empty(h, u.side))
                    .units
                    .push(u);
            }
        }
        for l in &state.leaders {
            if let (Some(h), false) = (l.hex, l.removed) {
                by.entry((h.row, h.col, l.side))
                    .or_insert_with(|| empty(h, l.side))
                    .leaders
                    .push(l);
            }
        }
        by.into_values().collect()
    }

    /// The stacks sorted by place are those an ordered map makes, unit
    /// for unit and leader for leader, on scattered positions of both
    /// scenarios (counters and leaders off the map and removed among
    /// them, stacks of leaders alone, both sides in a hex).
    #[test]
    fn stacks_sorted_by_place_are_those_of_an_ordered_map() {
        let mut scatter = crate::testing::Scatter::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| scatter.below(n);
        let mut compared = 0;
        for (id, scn, mut state) in crate::testing::start_positions() {
            let hexes: Vec<Hex> = scn.map.hexes().collect();
            for round in 0..40 {
                // Some rounds crowd everything into a few hexes.
                let spread = if round % 3 == 0 { 8 } else { hexes.len() };
                for u in state.units.iter_mut() {
                    match next(6) {
                        0 => u.status = Status::Pool,
                        1 | 2 => u.status = Status::OnMap(hexes[next(spread)]),
                        _ => {}
                    }
                }
                for l in state.leaders.iter_mut() {
                    match next(5) {
                        0 => l.hex = None,
                        1 => l.removed = !l.removed,
                        2 => l.hex = Some(hexes[next(spread)]),
                        _ => {}
                    }
                }
                let (sorted, mapped) = (state.stacks(), stacks_by_map(&state));
                assert_eq!(sorted.len(), mapped.len(), "{id}, round {round}");
                for (a, b) in sorted.iter().zip(&mapped) {
                    assert_eq!((a.hex, a.side), (b.hex, b.side), "{id}, round {round}");
                    let same = |x: &[&Unit], y: &[&Unit]| {
                        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| std::ptr::eq(*p, *q))
                    };
                    assert!(same(&a.units, &b.units), "{id}, round {round}: {}", a.hex);
                    assert_eq!(a.leaders.len(), b.leaders.len());
                    assert!(
                        a.leaders
                            .iter()
                            .zip(&b.leaders)
                            .all(|(p, q)| std::ptr::eq(*p, *q))
                    );
                }
                compared += sorted.len();
            }
        }
        assert!(compared > 1000, "{compared} stacks compared");
    }
}
