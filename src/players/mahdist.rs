//! The Mahdist player driven by the seed's reaction table: each Mahdist
//! stack, each turn, takes the row of its situation, rolls 2D6 on it, and
//! the letters become a march at the campaign's scale; above the stacks,
//! the scenario's objectives give the war its direction. The reasons for
//! each mapping are in `docs/opponents.md`.
//!
//! The seed: "reaction tests are conducted for the Mahdists on the board
//! ... The reaction tests should be made by the umpire in a discreet
//! manner": every roll and what it made a stack do goes in the umpire's
//! notes ([`Decision::notes`]), not in the orders.

use serde::Deserialize;

use super::Decision;
use super::reaction::{Band, Letter, Reaction, Reactions, Situation};
use crate::dice::{Dice, DieSource};
use crate::engine::orders::{Leg, MarchOrder, OnContact, Orders, Selection};
use crate::geo::{Hex, PlaceKind, Terrain};
use crate::scenario::{Scenario, Side, UnitKind};
use crate::state::GameState;

/// The opponents' data as shipped.
pub const OPPONENTS_RON: &str = include_str!("../../scenarios/opponents.ron");

/// What the Mahdist player knows beyond the table: how far its stacks see
/// and hear, and each scenario's objectives.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename = "Opponents")]
pub struct Opponents {
    /// Hexes within which an enemy stack is "visible" (the seed's 72
    /// inches: the range of a march).
    pub sight: u32,
    /// Hexes within which a fight is "firing heard".
    pub hearing: u32,
    /// Each scenario's objectives, most important first.
    pub mahdist: Vec<Objectives>,
    /// A stack pursues the most important objective the enemy holds
    /// within this many hexes of it, else the nearest one.
    #[serde(default = "Opponents::default_objective_reach")]
    pub objective_reach: u32,
    /// A stack attacks a town, village or oasis the enemy holds only with
    /// at least this many times the strength of the units in it; short of
    /// that it sits down before the place and keeps the siege (9.12).
    #[serde(default = "Opponents::default_assault_ratio")]
    pub assault_ratio: u32,
    /// Each scenario's expedition for the Egyptian player, if it has one.
    #[serde(default)]
    pub egyptian: Vec<Expedition>,
    /// Hexes within which a stack hunts an enemy column in the open that
    /// wins the game for a side ([`hunt`]); 0: no hunt.
    #[serde(default = "Opponents::default_hunt_reach")]
    pub hunt_reach: u32,
    /// Hexes within which stacks join in the chase of such a column
    /// when together they have [`Opponents::chase_ratio`] times its
    /// strength ([`chases`]); 0: no chase.
    #[serde(default = "Opponents::default_chase_reach")]
    pub chase_reach: u32,
    /// The strength the stacks of a chase want together, in times the
    /// column's.
    #[serde(default = "Opponents::default_chase_ratio")]
    pub chase_ratio: u32,
    /// The same against a column with British land units, which beat
    /// twice their number of ansar in the open two times in three
    /// (docs/calibration.md, the typical battles); 0: such a column is
    /// not chased.
    #[serde(default)]
    pub chase_ratio_british: u32,
}

/// Where the programmed Egyptian player carries a British supply unit to
/// win a scenario, and how strong the column must be to set out.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Expedition {
    pub scenario: String,
    /// A place name of the map.
    pub deliver_to: String,
    /// Land units' strength the column needs, cautious persona.
    pub strength_historical: u32,
    /// The same, competent persona.
    pub strength_competent: u32,
    /// Hexes it counts on marching a month: it sets out with a supply unit
    /// for each month of the way and one to deliver.
    pub hexes_a_month: u32,
    /// Place names of the map it goes by, in order (none: straight to the
    /// goal): a column makes for the first of them nearer the goal than
    /// it is, and sets out again from each without waiting.
    #[serde(default)]
    pub via: Vec<String>,
}

/// An expedition's places as hexes: its goal and the places it goes by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpeditionRoute {
    pub goal: Hex,
    pub via: Vec<Hex>,
}

impl ExpeditionRoute {
    /// Where a column at `from` makes for: the first place it goes by that
    /// is nearer the goal than `from`, else the goal.
    pub fn next_stage(&self, from: Hex) -> Hex {
        self.via
            .iter()
            .copied()
            .find(|w| *w != from && w.distance(self.goal) < from.distance(self.goal))
            .unwrap_or(self.goal)
    }

    /// The hexes of the way from `from`: to each stage in turn, then to
    /// the goal (straight-line distances).
    pub fn length_from(&self, from: Hex) -> u32 {
        let mut at = from;
        let mut total = 0;
        loop {
            let next = self.next_stage(at);
            total += at.distance(next);
            if next == self.goal {
                return total;
            }
            at = next;
        }
    }
}

/// One scenario's objectives for the Mahdist player.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Objectives {
    pub scenario: String,
    /// Place names of the map, most important first.
    pub objectives: Vec<String>,
    /// This scenario's [`Opponents::objective_reach`], if not the common one.
    #[serde(default)]
    pub objective_reach: Option<u32>,
    /// This scenario's [`Opponents::assault_ratio`], if not the common one.
    #[serde(default)]
    pub assault_ratio: Option<u32>,
    /// The assault ratio of single places (place name to ratio), where
    /// not the scenario's.
    #[serde(default)]
    pub assault_ratios: std::collections::BTreeMap<String, u32>,
    /// A relief coming: when a British land unit is this near an
    /// objective, its besiegers storm it with this ratio (if lower).
    #[serde(default)]
    pub relief_storm: Option<ReliefStorm>,
    /// The same in a game played with the house rule
    /// `steamers-run-the-siege` (docs/rules.md), where supply on gunboats
    /// may come into a besieged objective in one river march from afar:
    /// the relief is watched for farther off (none: as `relief_storm`).
    #[serde(default)]
    pub relief_storm_steamers: Option<ReliefStorm>,
    /// How near (hexes) an objective the enemy left empty draws a stack
    /// in whatever its reaction (none: only as its reaction says).
    #[serde(default)]
    pub occupy_reach: Option<u32>,
    /// Places whose siege the player closes as early as it can: while no
    /// Mahdist land unit is next to one the enemy holds with a garrison,
    /// the nearest stack marches up to it ([`closing`]).
    #[serde(default)]
    pub close_siege: Vec<String>,
}

/// The assault before the relief: the Mahdi stormed Khartoum on 26 January
/// 1885 when the Desert Column's steamers were two days away, and Tokar
/// surrendered as Graham landed at Trinkitat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct ReliefStorm {
    /// Hexes from the objective within which a British land unit (not in
    /// the objective itself) counts as a relief coming.
    pub within: u32,
    /// The assault ratio against the garrison then.
    pub ratio: u32,
}

impl Opponents {
    fn default_objective_reach() -> u32 {
        12
    }

    fn default_hunt_reach() -> u32 {
        8
    }

    fn default_chase_reach() -> u32 {
        24
    }

    fn default_chase_ratio() -> u32 {
        2
    }

    fn default_assault_ratio() -> u32 {
        3
    }

    /// The shipped data (its place names are checked when a scenario's
    /// objectives are asked for: [`Opponents::objectives`]).
    pub fn shipped() -> Result<Opponents, String> {
        Opponents::parse(OPPONENTS_RON)
    }

    /// An opponents file's text (`opponents.ron`).
    pub fn parse(text: &str) -> Result<Opponents, String> {
        ron::from_str(text).map_err(|e| format!("opponents.ron: {e}"))
    }

    /// The shipped data, read once.
    pub fn cached() -> Option<&'static Opponents> {
        static SHIPPED: std::sync::OnceLock<Option<Opponents>> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| Opponents::shipped().ok()).as_ref()
    }

    /// The Egyptian expedition of a scenario, with its goal and the places
    /// it goes by as hexes; an unknown place name is an error naming it.
    pub fn expedition(
        &self,
        scn: &Scenario,
    ) -> Result<Option<(&Expedition, ExpeditionRoute)>, String> {
        let Some(e) = self.egyptian.iter().find(|e| e.scenario == scn.id()) else {
            return Ok(None);
        };
        let place = |name: &str, what: &str| {
            place_hex(scn, name, || {
                format!("the expedition's {what} {name:?} of {}", scn.id())
            })
        };
        let goal = place(&e.deliver_to, "goal")?;
        let via = e
            .via
            .iter()
            .map(|v| place(v, "stage"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((e, ExpeditionRoute { goal, via })))
    }

    /// A scenario's own data for the Mahdist player, if it has any.
    fn of(&self, scn: &Scenario) -> Option<&Objectives> {
        self.mahdist.iter().find(|o| o.scenario == scn.id())
    }

    /// How far a stack looks for the most important objective, and the
    /// strength it wants for an assault, in a scenario.
    pub fn reach_and_ratio(&self, scn: &Scenario) -> (u32, u32) {
        let o = self.of(scn);
        (
            o.and_then(|o| o.objective_reach)
                .unwrap_or(self.objective_reach),
            o.and_then(|o| o.assault_ratio)
                .unwrap_or(self.assault_ratio),
        )
    }

    /// How near an empty enemy objective draws a stack in, in a scenario
    /// (0: the reaction alone decides).
    pub fn occupy_reach(&self, scn: &Scenario) -> u32 {
        self.of(scn).and_then(|o| o.occupy_reach).unwrap_or(0)
    }

    /// A scenario's storm before a relief, if its data has one.
    pub fn relief_storm(&self, scn: &Scenario) -> Option<ReliefStorm> {
        self.of(scn).and_then(|o| o.relief_storm)
    }

    /// [`Opponents::relief_storm`] in a game of `state`: under the house
    /// rule `steamers-run-the-siege` the scenario's
    /// `relief_storm_steamers`, if it has one.
    pub fn relief_storm_in(&self, scn: &Scenario, state: &GameState) -> Option<ReliefStorm> {
        let steamers = state
            .options
            .variants
            .contains(&crate::state::variant::Variant::SteamersRunTheSiege);
        self.of(scn)
            .and_then(|o| o.relief_storm_steamers.filter(|_| steamers))
            .or_else(|| self.relief_storm(scn))
    }

    /// The assault ratios of single places of a scenario, as hexes; an
    /// unknown place name is an error naming it.
    pub fn ratios(&self, scn: &Scenario) -> Result<Vec<(Hex, u32)>, String> {
        let Some(o) = self.of(scn) else {
            return Ok(Vec::new());
        };
        o.assault_ratios
            .iter()
            .map(|(name, r)| {
                let hex = place_hex(scn, name, || {
                    format!("the place {name:?} of {}'s assault ratios", scn.id())
                })?;
                Ok((hex, *r))
            })
            .collect()
    }

    /// The places whose siege a scenario's Mahdist player closes as early
    /// as it can, as hexes; an unknown place name is an error naming it.
    pub fn close_siege(&self, scn: &Scenario) -> Result<Vec<Hex>, String> {
        let Some(o) = self.of(scn) else {
            return Ok(Vec::new());
        };
        o.close_siege
            .iter()
            .map(|name| {
                place_hex(scn, name, || {
                    format!("the place {name:?} of {}'s sieges to close", scn.id())
                })
            })
            .collect()
    }

    /// The objectives of a scenario, as hexes; an unknown place name is
    /// an error naming it.
    pub fn objectives(&self, scn: &Scenario) -> Result<Vec<Hex>, String> {
        let Some(o) = self.of(scn) else {
            return Ok(Vec::new());
        };
        o.objectives
            .iter()
            .map(|name| {
                place_hex(scn, name, || {
                    format!("the objective {name:?} of {}", scn.id())
                })
            })
            .collect()
    }
}

/// The hex of a place named in `opponents.ron`, or an error that says
/// which name (`what`) is not a place on the map.
fn place_hex(scn: &Scenario, name: &str, what: impl FnOnce() -> String) -> Result<Hex, String> {
    scn.map
        .find_place(name)
        .map(|p| p.hex)
        .ok_or_else(|| format!("opponents.ron: {} is not a place on the map", what()))
}

/// A Mahdist stack as the player sees it.
struct Mine {
    hex: Hex,
    strength: u32,
    units: Vec<crate::state::UnitId>,
    /// The quality of each of `units`, in their order.
    quality: Vec<Option<crate::scenario::Quality>>,
    disrupted: usize,
    /// The movement allowance of its slowest land unit.
    reach: u32,
}

/// An enemy stack.
#[derive(Clone, Copy)]
struct Theirs {
    hex: Hex,
    strength: u32,
    /// The stack has a British land unit (a relief, [`ReliefStorm`]).
    british: bool,
    /// A stack worth hunting in the open ([`hunt`]): the civilians on
    /// their way to safety, or a British leader (4.2).
    prize: bool,
    /// A stack with a British leader in a town, village or oasis: its
    /// destruction wins the game too (4.2), and several stacks may storm
    /// it one after another ([`chases`]).
    leader_in_town: bool,
}

/// The Mahdist player's orders for this player turn.
pub fn decide<S: DieSource>(
    scn: &Scenario,
    state: &GameState,
    table: &Reactions,
    opponents: &Opponents,
    dice: &mut Dice<S>,
) -> Decision {
    decide_remembering(scn, state, table, opponents, dice, &Openings::default())
}

/// [`decide`], taking the opening month's set-up from `openings` when it
/// was made there for the same position (every game of a balance run
/// starts from one position, and the set-up rolls no dice).
pub fn decide_remembering<S: DieSource>(
    scn: &Scenario,
    state: &GameState,
    table: &Reactions,
    opponents: &Opponents,
    dice: &mut Dice<S>,
    openings: &Openings,
) -> Decision {
    // The opening month, before the first Egyptian player turn: the set-up
    // (2.1), and the month's marches from where the set-up puts the army
    // (one order set serves both, as in a player's first mail).
    if state.month == scn.def.start && !state.effects.egyptian_turn_played && !state.setup_placed {
        let opening = openings.of(scn, state, opponents);
        let mut notes = opening.notes.clone();
        let mut turn = decide_turn(scn, &opening.placed, table, opponents, dice);
        notes.append(&mut turn.notes);
        return Decision {
            orders: Orders {
                setup: opening.setup.clone(),
                ..turn.orders
            },
            notes,
            rolls: turn.rolls,
        };
    }
    decide_turn(scn, state, table, opponents, dice)
}

/// The opening month's set-up (2.1) as the checker keeps it, its notes,
/// and the position it leaves.
#[derive(Clone, Debug, PartialEq)]
struct Opening {
    setup: Vec<crate::engine::orders::SetupOrder>,
    notes: Vec<String>,
    placed: GameState,
}

/// [`Opening::make`]: the set-up's orders chosen, checked, and placed.
impl Opening {
    fn make(scn: &Scenario, state: &GameState, opponents: &Opponents) -> Opening {
        let mut notes = Vec::new();
        let objectives = opponents.objectives(scn).unwrap_or_default();
        let ratios = opponents.ratios(scn).unwrap_or_default();
        let default = opponents.reach_and_ratio(scn).1;
        let setup = set_up(
            scn,
            state,
            &objectives,
            &|h| ratio_at(&ratios, default, h),
            &mut notes,
        );
        let (checked, dropped) = super::keep_checked(
            scn,
            state,
            Side::Mahdist,
            Orders {
                setup,
                ..Orders::default()
            },
        );
        notes.extend(dropped);
        let placed =
            crate::engine::set_up(scn, state.clone(), Side::Mahdist, &checked, &mut Vec::new());
        Opening {
            setup: checked.setup,
            notes,
            placed,
        }
    }
}

/// The last opening set-up made ([`decide_remembering`]), with what it was
/// made from: the scenario (its data, by address), the opponents' data and
/// the position. The set-up is a function of these alone, so an opening
/// asked for again from the same ones is the one kept; any other is made
/// afresh (and the first kept stays).
#[derive(Debug, Default)]
pub struct Openings {
    kept: std::sync::OnceLock<(Scenario, Opponents, GameState, Opening)>,
}

impl Openings {
    fn of(&self, scn: &Scenario, state: &GameState, opponents: &Opponents) -> Opening {
        if let Some((s, o, from, opening)) = self.kept.get()
            && super::same_scenario(s, scn)
            && o == opponents
            && from == state
        {
            return opening.clone();
        }
        let opening = Opening::make(scn, state, opponents);
        let _ = self.kept.set((
            scn.clone(),
            opponents.clone(),
            state.clone(),
            opening.clone(),
        ));
        opening
    }
}

/// A player turn's orders: each stack's reaction and what it makes the
/// stack do, through the checker.
fn decide_turn<S: DieSource>(
    scn: &Scenario,
    state: &GameState,
    table: &Reactions,
    opponents: &Opponents,
    dice: &mut Dice<S>,
) -> Decision {
    let mut notes = Vec::new();
    let objectives = opponents.objectives(scn).unwrap_or_else(|e| {
        notes.push(e);
        Vec::new()
    });
    let (reach, assault_ratio) = opponents.reach_and_ratio(scn);
    let (relief_storm, occupy_reach) = (
        opponents.relief_storm_in(scn, state),
        opponents.occupy_reach(scn),
    );
    let ratios = opponents.ratios(scn).unwrap_or_else(|e| {
        notes.push(e);
        Vec::new()
    });
    let barred = crate::engine::march::barred_by_scenario(scn, Side::Mahdist);
    let (mut mine, theirs) = stacks(scn, state);
    // The largest stacks first, then by hex: the same state gives the same
    // order of rolls.
    mine.sort_by_key(|m| (std::cmp::Reverse(m.strength), m.hex.row, m.hex.col));
    // The objectives the enemy holds: with its units, or empty and last
    // occupied by it (a garrison starved to the last man leaves the town
    // to be taken, 3.2).
    let enemy_towns: Vec<Hex> = objectives
        .iter()
        .copied()
        .filter(|h| {
            theirs.iter().any(|t| t.hex == *h)
                || (state.control.get(h) == Some(&Side::Egyptian)
                    && !mine.iter().any(|m| m.hex == *h))
        })
        .collect();
    let empty_towns: Vec<Hex> = enemy_towns
        .iter()
        .copied()
        .filter(|h| !theirs.iter().any(|t| t.hex == *h))
        .collect();
    let besieged = besieged(scn, state, &mine);
    let close_siege = opponents.close_siege(scn).unwrap_or_else(|e| {
        notes.push(e);
        Vec::new()
    });
    let held_back = siege_keepers(&mine, &theirs, &enemy_towns, &besieged);
    let chased = chases(
        &mine,
        &theirs,
        (&held_back, &besieged),
        opponents,
        &|h| {
            // Places with an assault ratio of their own (Khartoum and
            // Souakim in scenario 2) are stormed as "Sieges" says, by one
            // stack: their ratios are calibrated to the months they held
            // in history (docs/calibration.md).
            (!ratios.iter().any(|(r, _)| *r == h)).then_some(assault_ratio)
        },
        &barred,
    );
    let closers = closing(
        scn,
        &mine,
        &theirs,
        &close_siege,
        &held_back,
        &chased,
        reach,
        &barred,
    );
    let mut marches = Vec::new();
    for m in &mine {
        let situation = situation_of(scn, state, m, &mine, &theirs, opponents);
        let (roll, reaction) = table.roll(
            situation,
            dice,
            &format!("the stack at {}", scn.map.describe(m.hex)),
        );
        let cx = Cx {
            scn,
            me: m,
            mine: &mine,
            theirs: &theirs,
            // The most important objective within reach, else the
            // nearest, else the nearest enemy.
            objective: enemy_towns
                .iter()
                .copied()
                .find(|h| m.hex.distance(*h) <= reach)
                .or_else(|| {
                    enemy_towns
                        .iter()
                        .copied()
                        .min_by_key(|h| (m.hex.distance(*h), h.row, h.col))
                })
                .or_else(|| nearest(m.hex, theirs.iter().map(|t| t.hex))),
            opponents,
            assault_ratio,
            ratios: &ratios,
            relief_storm,
            empty_towns: &empty_towns,
            occupy_reach,
            reach,
            barred: &barred,
            besieged: besieged.contains(&m.hex),
            chase: chased.get(&m.hex).copied(),
            close: closers.get(&m.hex).copied(),
        };
        let (order, what) = act(&cx, &reaction);
        notes.push(reaction_note(
            scn, table, m, &situation, &roll, &reaction, &what,
        ));
        if let Some(o) = order {
            marches.push(o);
        }
    }
    let event_losses = event_losses(&mine, &enemy_towns);
    // Only what the checker accepts is played, as for a player's mail.
    let (orders, dropped) = super::keep_checked(
        scn,
        state,
        Side::Mahdist,
        Orders {
            marches,
            event_losses,
            ..Orders::default()
        },
    );
    notes.extend(dropped);
    Decision {
        orders,
        notes,
        rolls: dice.take_rolls(),
    }
}

/// Each side's stacks as the Mahdist player reads them: its own with
/// land units that march, and the enemy's that hold a hex.
fn stacks(scn: &Scenario, state: &GameState) -> (Vec<Mine>, Vec<Theirs>) {
    let mut mine: Vec<Mine> = Vec::new();
    let mut theirs: Vec<Theirs> = Vec::new();
    for s in state.stacks() {
        // Each counter's type, looked up once.
        let typed: Vec<_> = s
            .units
            .iter()
            .map(|u| (*u, scn.units.get(&u.unit_type)))
            .collect();
        let land: Vec<_> = typed
            .iter()
            .filter(|(_, t)| t.is_some_and(super::type_marches_by_land))
            .copied()
            .collect();
        // The British fleet holds no hex and fights no one (8.25).
        let holding: Vec<_> = typed
            .iter()
            .filter(|(_, t)| t.is_none_or(|t| t.kind != UnitKind::Fleet))
            .map(|(u, _)| *u)
            .collect();
        let strength = holding.iter().map(|u| u.strength).sum();
        if s.side == Side::Mahdist {
            if !land.is_empty() {
                let types: Vec<_> = land.iter().map(|(_, t)| *t).collect();
                mine.push(Mine {
                    hex: s.hex,
                    strength: land.iter().map(|(u, _)| u.strength).sum(),
                    units: land.iter().map(|(u, _)| u.id.clone()).collect(),
                    quality: types.iter().map(|t| t.map(|t| t.quality)).collect(),
                    disrupted: land.iter().filter(|(u, _)| u.disrupted).count(),
                    // The stack is every Mahdist unit in the hex: its land
                    // units are those `reach_at` reads.
                    reach: types
                        .iter()
                        .flatten()
                        .map(|t| t.movement)
                        .min()
                        .unwrap_or(5),
                });
            }
        } else if !holding.is_empty() {
            theirs.push(Theirs {
                hex: s.hex,
                strength,
                british: land
                    .iter()
                    .any(|(_, t)| t.is_some_and(|t| t.nation == crate::scenario::Nation::British)),
                leader_in_town: scn.map.settlement_at(s.hex).is_some()
                    && s.leaders.iter().any(|l| {
                        scn.units
                            .leader(&l.name)
                            .is_some_and(|d| d.nation == crate::scenario::Nation::British)
                    }),
                prize: !land.is_empty()
                    && scn.map.settlement_at(s.hex).is_none()
                    && (land
                        .iter()
                        .any(|(_, t)| t.is_some_and(|t| t.kind == UnitKind::Civilian))
                        || s.leaders.iter().any(|l| {
                            scn.units
                                .leader(&l.name)
                                .is_some_and(|d| d.nation == crate::scenario::Nation::British)
                        })),
            });
        }
    }
    (mine, theirs)
}

/// The settlements a Mahdist stack holds that are besieged.
fn besieged(scn: &Scenario, state: &GameState, mine: &[Mine]) -> Vec<Hex> {
    // 9.12: a settlement is under siege when an enemy land unit is next
    // to it (river units alone do not besiege: docs/rules.md 9.12).
    let enemy_land: std::collections::BTreeSet<Hex> = state
        .units
        .iter()
        .filter(|u| u.side == Side::Egyptian)
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| !t.kind.is_river_unit())
        })
        .filter_map(|u| u.hex())
        .collect();
    mine.iter()
        .map(|m| m.hex)
        .filter(|h| scn.map.settlement_at(*h).is_some())
        .filter(|h| h.neighbours().iter().any(|n| enemy_land.contains(n)))
        .collect()
}

/// The umpire's note for a stack's reaction: its situation, the roll,
/// the letters read and what the stack does.
fn reaction_note(
    scn: &Scenario,
    table: &Reactions,
    m: &Mine,
    situation: &Situation,
    roll: &crate::dice::Roll,
    reaction: &Reaction,
    what: &str,
) -> String {
    format!(
        "{} ({} strength): {situation}; 2D6 {} = {}: {reaction} ({}): {what}",
        scn.map.describe(m.hex),
        m.strength,
        roll.dice
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("+"),
        roll.result,
        reaction
            .0
            .iter()
            .map(|l| table.code(*l).trim_end_matches('.'))
            .collect::<Vec<_>>()
            .join("; then ")
    )
}

/// The most units a month's losses "of the player's choice" can take: a
/// D6 of men gone home (3.21), or a random event's.
const EVENT_LOSSES: usize = 12;

/// Which units go first when the month takes units of the player's choice
/// (3.21, "remove 1D6 Mahdist units", and the random events, 4.2): those
/// of the stacks farthest from the objectives the enemy holds, the worst
/// first; never a stack next to or in such an objective while another can
/// give them. Without it the engine takes them from the largest stack,
/// which is the one besieging the war's aim: a siege that lost five men in
/// a month to men going home could never gather the strength to storm.
fn event_losses(mine: &[Mine], enemy_towns: &[Hex]) -> Vec<crate::state::UnitId> {
    let mut stacks: Vec<(u32, &Mine)> = mine
        .iter()
        .map(|m| {
            let d = enemy_towns
                .iter()
                .map(|t| t.distance(m.hex))
                .min()
                .unwrap_or(0);
            (d, m)
        })
        .filter(|(d, _)| *d > 1)
        .collect();
    stacks.sort_by_key(|(d, m)| (std::cmp::Reverse(*d), m.hex.row, m.hex.col));
    let mut out = Vec::new();
    for (_, m) in stacks {
        // The best first, then by id.
        let mut units: Vec<(Option<crate::scenario::Quality>, &crate::state::UnitId)> =
            m.quality.iter().copied().zip(&m.units).collect();
        units.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        out.extend(units.into_iter().map(|(_, id)| id.clone()));
        if out.len() >= EVENT_LOSSES {
            break;
        }
    }
    out.truncate(EVENT_LOSSES);
    out
}

/// The set-up (2.1): each Mahdist set-up line that may place its units in
/// more than one hex shares them among the objectives the enemy holds that
/// are nearer its zone than any other line's (docs/opponents.md, "The
/// set-up"). First, in the order of importance, each such objective it can
/// storm gets the strength for it ([`Opponents::assault_ratio`] times the
/// garrison); then the rest go before the most important one left, which
/// they will besiege (or, if every one was served, the most important).
/// A share is placed in the hexes of the zone nearest its objective that
/// hold no one else, a stack to a hex up to the scenario's limit: Osman
/// Digna's men before Sinkat and Tokar at once, as in February 1884; the
/// Mahdi's army before Khartoum, and a detachment at the zone's end
/// nearest Berber.
fn set_up(
    scn: &Scenario,
    state: &GameState,
    objectives: &[Hex],
    ratio: &dyn Fn(Hex) -> u32,
    notes: &mut Vec<String>,
) -> Vec<crate::engine::orders::SetupOrder> {
    use crate::state::UnitId;
    use std::collections::BTreeMap;
    let lines = crate::state::setup::shared_setup_lines(scn);
    let limit = crate::state::setup::mahdist_setup_limit(scn)
        .unwrap_or(usize::MAX)
        .max(1);
    let garrison = |h: Hex| -> u32 {
        state
            .units
            .iter()
            .filter(|u| u.side == Side::Egyptian && u.hex() == Some(h))
            .filter(|u| {
                scn.units
                    .get(&u.unit_type)
                    .is_none_or(|t| t.kind != UnitKind::Fleet)
            })
            .map(|u| u.strength)
            .sum()
    };
    let held: Vec<Hex> = objectives
        .iter()
        .copied()
        .filter(|h| garrison(*h) > 0 || state.control.get(h) == Some(&Side::Egyptian))
        .collect();
    // Every Mahdist line's zone, for the objectives nearest each.
    let zones: Vec<(usize, Vec<Hex>)> = scn
        .def
        .setup
        .iter()
        .enumerate()
        .filter(|(_, d)| d.side == Side::Mahdist)
        .filter_map(|(i, _)| match scn.setup_zone(i) {
            Some(Ok(z)) => Some((i, z.into_owned())),
            _ => None,
        })
        .collect();
    let from_zone =
        |zone: &[Hex], h: Hex| zone.iter().map(|z| z.distance(h)).min().unwrap_or(u32::MAX);
    let hex_of: BTreeMap<&UnitId, Hex> = state
        .units
        .iter()
        .filter_map(|u| u.hex().map(|h| (&u.id, h)))
        .collect();
    let mut orders = Vec::new();
    for (i, zone) in &zones {
        let (i, def) = (*i, &scn.def.setup[*i]);
        if zone.len() < 2 {
            continue;
        }
        let units: Vec<(UnitId, u32)> = state
            .units
            .iter()
            .filter(|u| u.side == Side::Mahdist && u.hex().is_some())
            .filter(|u| lines.get(&u.id) == Some(&i))
            .filter(|u| {
                scn.units
                    .get(&u.unit_type)
                    .is_some_and(|t| !t.kind.is_river_unit())
            })
            .map(|u| (u.id.clone(), u.strength))
            .collect();
        if units.is_empty() {
            continue;
        }
        // The objectives nearer this zone than any other line's (of two
        // lines as near, the first), most important first; if none, the
        // one nearest the zone.
        let near = |h: Hex| from_zone(zone, h);
        let mut ours: Vec<Hex> = held
            .iter()
            .copied()
            .filter(|&h| {
                zones.iter().all(|(j, z)| {
                    *j == i || from_zone(z, h) > near(h) || (from_zone(z, h) == near(h) && *j > i)
                })
            })
            .collect();
        if ours.is_empty() {
            if let Some((_, h)) = held
                .iter()
                .copied()
                .enumerate()
                .min_by_key(|(k, h)| (near(*h), *k))
            {
                ours.push(h);
            } else {
                continue;
            }
        }
        let shares = shares(&ours, &units, &|h| ratio(h) * garrison(h));
        // Hexes holding no one but this line's own units.
        let others: std::collections::BTreeSet<Hex> = state
            .units
            .iter()
            .filter(|u| lines.get(&u.id) != Some(&i) || u.side != Side::Mahdist)
            .filter_map(|u| u.hex())
            .collect();
        let free = |h: &Hex| scn.map.is_land(*h) && !others.contains(h);
        let mut taken: Vec<Hex> = Vec::new();
        // Each share's hexes and how many units each takes.
        let mut plan: Vec<(Hex, usize)> = Vec::new();
        let mut fits = true;
        for (target, share) in &shares {
            let wanted = share.len().div_ceil(limit);
            let Some(hexes) = nearest_n(
                zone.iter()
                    .copied()
                    .filter(free)
                    .filter(|h| !taken.contains(h)),
                *target,
                wanted,
            ) else {
                fits = false;
                break;
            };
            let mut n = share.len();
            for h in hexes {
                taken.push(h);
                plan.push((h, n.min(limit)));
                n -= n.min(limit);
            }
            notes.push(format!(
                "set-up: {} of \"{}\" before {}",
                share.len(),
                def.text,
                scn.map.describe(*target)
            ));
        }
        if !fits {
            continue;
        }
        orders.extend(placements(
            &units,
            &hex_of,
            &plan,
            &shares,
            limit,
            &def.leaders,
        ));
    }
    orders
}

/// The `n` of `hexes` nearest `target`, nearest first (of two as near, the
/// one in the lower row, then column), or `None` if there are fewer. Only
/// the nearest are sorted: a set-up zone holds hundreds of hexes.
fn nearest_n(hexes: impl Iterator<Item = Hex>, target: Hex, n: usize) -> Option<Vec<Hex>> {
    let mut keyed: Vec<(u32, i32, i32)> =
        hexes.map(|h| (h.distance(target), h.row, h.col)).collect();
    if n > keyed.len() {
        return None;
    }
    if n < keyed.len() {
        keyed.select_nth_unstable(n);
        keyed.truncate(n);
    }
    keyed.sort_unstable();
    Some(
        keyed
            .into_iter()
            .map(|(_, row, col)| Hex { col, row })
            .collect(),
    )
}

/// A set-up line's units shared among the objectives `ours` (most
/// important first): each the weakest units that make up its storming
/// strength (`storming`: its assault ratio times its garrison), the rest
/// besieging the first objective not served if they make a third of its
/// storming strength, else joining the first share.
fn shares(
    ours: &[Hex],
    units: &[(crate::state::UnitId, u32)],
    storming: &dyn Fn(Hex) -> u32,
) -> Vec<(Hex, Vec<crate::state::UnitId>)> {
    use crate::state::UnitId;
    // The shares: (objective, units), the strongest units first.
    let mut pool: Vec<(UnitId, u32)> = units.to_vec();
    pool.sort_by_key(|(id, s)| (std::cmp::Reverse(*s), id.clone()));
    let mut shares: Vec<(Hex, Vec<UnitId>)> = Vec::new();
    let total: u32 = pool.iter().map(|(_, s)| s).sum();
    let mut left = total;
    for &h in ours {
        let need = storming(h).max(1);
        if need > left || pool.is_empty() {
            continue;
        }
        let mut got = 0;
        let mut share = Vec::new();
        // The weakest units that make up the need, so that the
        // strongest stay for the siege.
        while got < need {
            let Some((id, st)) = pool.pop() else { break };
            got += st;
            share.push(id);
        }
        left = left.saturating_sub(got);
        shares.push((h, share));
    }
    if !pool.is_empty() {
        // The rest besiege the most important objective not served if
        // they make a third of its storming strength, else join the
        // most important share.
        let siege = ours
            .iter()
            .copied()
            .find(|h| !shares.iter().any(|(s, _)| s == h) && 3 * left >= storming(*h))
            .or_else(|| shares.first().map(|(h, _)| *h))
            .unwrap_or(ours[0]);
        let rest: Vec<UnitId> = pool.into_iter().map(|(id, _)| id).collect();
        match shares.iter_mut().find(|(s, _)| *s == siege) {
            Some((_, v)) => v.extend(rest),
            None => shares.push((siege, rest)),
        }
    }
    shares
}

/// The set-up orders that put a line's `units` in the hexes of `plan`
/// (each hex and how many it takes), the `leaders` with the largest of
/// the `shares`.
fn placements(
    units: &[(crate::state::UnitId, u32)],
    hex_of: &std::collections::BTreeMap<&crate::state::UnitId, Hex>,
    plan: &[(Hex, usize)],
    shares: &[(Hex, Vec<crate::state::UnitId>)],
    limit: usize,
    leaders: &[String],
) -> Vec<crate::engine::orders::SetupOrder> {
    use crate::engine::orders::SetupOrder;
    use crate::state::UnitId;
    use std::collections::BTreeMap;
    let mut orders = Vec::new();
    // Which unit goes where: a unit already in a planned hex stays
    // there while the hex has room; the others fill the rest. Only
    // the counts of the shares matter, so residents need not move.
    let mut room: BTreeMap<Hex, usize> = plan.iter().copied().collect();
    let mut placed: BTreeMap<Hex, Vec<UnitId>> = BTreeMap::new();
    let mut movers = Vec::new();
    for (id, _) in units {
        match hex_of.get(id).copied() {
            Some(h) if room.get(&h).is_some_and(|r| *r > 0) => {
                if let Some(r) = room.get_mut(&h) {
                    *r -= 1;
                }
                placed.entry(h).or_default().push(id.clone());
            }
            _ => movers.push(id.clone()),
        }
    }
    let mut movers = movers.into_iter();
    for (h, _) in plan {
        let r = room.get(h).copied().unwrap_or(0);
        for _ in 0..r {
            let Some(id) = movers.next() else { break };
            placed.entry(*h).or_default().push(id);
        }
    }
    // The orders in an order that never puts a hex over the limit
    // while they are carried out one after another: a hex whose
    // present units must leave is filled after the hexes they go to.
    let mut at: BTreeMap<Hex, usize> = BTreeMap::new();
    for (id, _) in units {
        if let Some(h) = hex_of.get(id) {
            *at.entry(*h).or_default() += 1;
        }
    }
    let mut where_now: BTreeMap<UnitId, Hex> = units
        .iter()
        .filter_map(|(id, _)| hex_of.get(id).map(|h| (id.clone(), *h)))
        .collect();
    let mut pending: Vec<(Hex, Vec<UnitId>)> = plan
        .iter()
        .filter_map(|(h, _)| placed.remove(h).map(|v| (*h, v)))
        .collect();
    // The leaders go with the largest share, in its first hex.
    let main = shares
        .iter()
        .enumerate()
        .max_by_key(|(k, (_, v))| (v.len(), std::cmp::Reverse(*k)))
        .and_then(|(k, _)| {
            let before: usize = shares[..k]
                .iter()
                .map(|(_, v)| v.len().div_ceil(limit))
                .sum();
            plan.get(before).map(|(h, _)| *h)
        });
    while !pending.is_empty() {
        let k = pending
            .iter()
            .position(|(h, group)| {
                let incoming = group
                    .iter()
                    .filter(|id| where_now.get(*id) != Some(h))
                    .count();
                at.get(h).copied().unwrap_or(0) + incoming <= limit
            })
            .unwrap_or(0);
        let (h, group) = pending.remove(k);
        for id in &group {
            if let Some(old) = where_now.insert(id.clone(), h)
                && old != h
            {
                if let Some(c) = at.get_mut(&old) {
                    *c = c.saturating_sub(1);
                }
                *at.entry(h).or_default() += 1;
            }
        }
        orders.push(SetupOrder {
            units: group,
            leaders: if Some(h) == main {
                leaders.to_vec()
            } else {
                Vec::new()
            },
            at: h,
        });
    }
    orders
}

/// The assault ratio of `h`: its own, else the scenario's.
fn ratio_at(ratios: &[(Hex, u32)], default: u32, h: Hex) -> u32 {
    ratios
        .iter()
        .find(|(r, _)| *r == h)
        .map_or(default, |(_, k)| *k)
}

fn nearest(from: Hex, to: impl Iterator<Item = Hex>) -> Option<Hex> {
    to.min_by_key(|h| (from.distance(*h), h.row, h.col))
}

/// The row of the table a stack's situation falls on, at the campaign's
/// scale (docs/opponents.md).
fn situation_of(
    scn: &Scenario,
    state: &GameState,
    m: &Mine,
    mine: &[Mine],
    theirs: &[Theirs],
    o: &Opponents,
) -> Situation {
    let settlement = |h: Hex| scn.map.settlement_at(h).is_some();
    let near: Vec<&Theirs> = theirs
        .iter()
        .filter(|t| t.hex.distance(m.hex) <= 1)
        .collect();
    // In melee: an enemy stack next to it in the open, after a fight
    // (disrupted units) or before one.
    if near.iter().any(|t| !settlement(t.hex)) {
        return if m.disrupted * 2 > m.units.len() {
            Situation::LosingBadly
        } else if m.disrupted > 0 {
            Situation::LosingMelee
        } else {
            Situation::WinningMelee
        };
    }
    // In defences: holding a settlement, or besieging one.
    if settlement(m.hex) || !near.is_empty() {
        return Situation::InDefences;
    }
    if let Some(t) = theirs
        .iter()
        .filter(|t| t.hex.distance(m.hex) <= o.sight)
        .min_by_key(|t| (t.hex.distance(m.hex), t.hex.row, t.hex.col))
    {
        let band = Band::of(t.strength, m.strength);
        let cover = settlement(t.hex)
            || matches!(
                scn.map.terrain(t.hex),
                Some(Terrain::Hills | Terrain::Mountains)
            );
        return if cover {
            Situation::Cover(band)
        } else {
            Situation::Open(band)
        };
    }
    // A friend fighting within hearing: winning if at least as strong.
    for f in mine {
        if f.hex == m.hex || f.hex.distance(m.hex) > o.hearing {
            continue;
        }
        if let Some(t) = theirs.iter().find(|t| t.hex.distance(f.hex) <= 1) {
            return if f.strength >= t.strength {
                Situation::FriendsWinning
            } else {
                Situation::FriendsLosing
            };
        }
    }
    if theirs.iter().any(|t| t.hex.distance(m.hex) <= o.hearing) {
        return Situation::FiringHeard;
    }
    if state.month == scn.def.start {
        return Situation::FreshTroops;
    }
    Situation::NoEnemy
}

struct Cx<'a> {
    scn: &'a Scenario,
    me: &'a Mine,
    mine: &'a [Mine],
    theirs: &'a [Theirs],
    /// The objective this stack pursues.
    objective: Option<Hex>,
    opponents: &'a Opponents,
    /// The strength against a garrison an assault wants (this scenario's).
    assault_ratio: u32,
    /// The same for single places, where not the scenario's.
    ratios: &'a [(Hex, u32)],
    /// The storm before a relief (this scenario's, if any).
    relief_storm: Option<ReliefStorm>,
    /// Objectives the enemy last held and left empty.
    empty_towns: &'a [Hex],
    /// How near such a town draws the stack in (this scenario's; 0: not).
    occupy_reach: u32,
    /// How far away (hexes) an objective the stack is strong enough to
    /// storm draws it on, whatever its reaction (this scenario's).
    reach: u32,
    /// Hexes a scenario rule bars the Mahdist player from (2.2).
    barred: &'a dyn Fn(Hex) -> bool,
    /// The stack holds a settlement under siege: it may leave only by
    /// attacking the besiegers (9.12).
    besieged: bool,
    /// The column this stack chases with others ([`chases`]), if any.
    chase: Option<Chase>,
    /// The siege this stack closes, and the hex it closes it from
    /// ([`closing`]), if any.
    close: Option<(Hex, Hex)>,
}

impl Cx<'_> {
    /// The strength against its garrison an assault on `h` wants.
    fn ratio_at(&self, h: Hex) -> u32 {
        ratio_at(self.ratios, self.assault_ratio, h)
    }

    /// A relief coming to `h` ([`ReliefStorm`]): the ratio it lowers the
    /// assault to, with the hex of the British stack nearest `h`.
    fn relief_at(&self, h: Hex) -> Option<(u32, Hex)> {
        let r = self.relief_storm?;
        let t = self
            .theirs
            .iter()
            .filter(|t| t.british && t.hex != h && t.hex.distance(h) <= r.within)
            .min_by_key(|t| (t.hex.distance(h), t.hex.row, t.hex.col))?;
        (r.ratio < self.ratio_at(h)).then_some((r.ratio, t.hex))
    }

    fn nearest_enemy(&self) -> Option<Theirs> {
        self.theirs
            .iter()
            .copied()
            .min_by_key(|t| (t.hex.distance(self.me.hex), t.hex.row, t.hex.col))
    }

    fn outnumbered(&self) -> bool {
        self.nearest_enemy().is_some_and(|t| {
            t.hex.distance(self.me.hex) <= self.opponents.sight && t.strength > self.me.strength
        })
    }

    fn march(&self, to: Hex, on_contact: OnContact) -> Option<MarchOrder> {
        (to != self.me.hex).then(|| MarchOrder {
            units: Selection::Stack(self.me.hex),
            legs: super::legs_avoiding(&self.scn.map, self.me.hex, to, self.me.reach, self.barred),
            continue_after_win: matches!(on_contact, OnContact::AttackAny),
            on_contact,
            ..MarchOrder::stack(self.me.hex, Vec::new())
        })
    }

    /// A land hex within `radius` with no enemy, farthest from the nearest
    /// enemy (at least `least` hexes away if it can).
    fn away(&self, radius: u32) -> Option<Hex> {
        let e = self.nearest_enemy()?;
        self.me
            .hex
            .within(radius)
            .into_iter()
            .filter(|h| self.scn.map.is_land(*h))
            .filter(|h| self.theirs.iter().all(|t| t.hex != *h))
            .max_by_key(|h| (h.distance(e.hex), std::cmp::Reverse((h.row, h.col))))
            .filter(|h| h.distance(e.hex) > self.me.hex.distance(e.hex))
    }
}

/// What one letter makes the stack do: a march, or nothing (it stays),
/// and the words for the umpire's notes.
fn letter(cx: &Cx<'_>, l: Letter) -> (Option<MarchOrder>, String) {
    let scn = cx.scn;
    let describe = |h: Hex| scn.map.describe(h);
    let attack = |cx: &Cx<'_>| match cx.nearest_enemy() {
        Some(t) => (
            cx.march(t.hex, OnContact::AttackAny),
            format!("marches on the enemy at {} and attacks", describe(t.hex)),
        ),
        None => (None, "no enemy to attack; stays".into()),
    };
    let withdraw = |cx: &Cx<'_>, radius: u32| match cx.away(radius) {
        Some(h) => (
            cx.march(h, OnContact::Avoid),
            format!("withdraws to {}", describe(h)),
        ),
        None => (None, "nowhere further from the enemy; stays".into()),
    };
    let toward_objective = |cx: &Cx<'_>, on: OnContact| match cx.objective {
        Some(h) => (cx.march(h, on), format!("marches towards {}", describe(h))),
        None => (None, "no objective; stays".into()),
    };
    match l {
        Letter::A | Letter::K => attack(cx),
        Letter::M => match cx
            .nearest_enemy()
            .filter(|t| t.hex.distance(cx.me.hex) <= 1)
        {
            Some(t) => (
                cx.march(t.hex, OnContact::AttackHexes(vec![t.hex])),
                format!("fights on against the enemy at {}", describe(t.hex)),
            ),
            None => attack(cx),
        },
        Letter::B => match cx.nearest_enemy() {
            Some(t) if t.hex.distance(cx.me.hex) <= 1 => withdraw(cx, 2),
            _ => (None, "shadows the enemy from where it stands".into()),
        },
        Letter::C | Letter::F => {
            let friend = cx
                .mine
                .iter()
                .filter(|f| f.hex != cx.me.hex)
                .min_by_key(|f| (f.hex.distance(cx.me.hex), f.hex.row, f.hex.col));
            match friend {
                Some(f) => (
                    cx.march(f.hex, OnContact::Avoid),
                    format!("joins the friends at {}", describe(f.hex)),
                ),
                None => (None, "no friends to join; stays".into()),
            }
        }
        Letter::D => {
            let fight = cx
                .theirs
                .iter()
                .filter(|t| cx.mine.iter().any(|f| f.hex.distance(t.hex) <= 1))
                .filter(|t| t.hex.distance(cx.me.hex) <= cx.opponents.hearing)
                .min_by_key(|t| (t.hex.distance(cx.me.hex), t.hex.row, t.hex.col));
            match fight {
                Some(t) => (
                    cx.march(t.hex, OnContact::AttackAny),
                    format!("marches to the fighting at {}", describe(t.hex)),
                ),
                None => toward_objective(cx, OnContact::Avoid),
            }
        }
        Letter::E => {
            let high = cx
                .me
                .hex
                .within(3)
                .into_iter()
                .filter(|h| {
                    matches!(
                        scn.map.terrain(*h),
                        Some(Terrain::Hills | Terrain::Mountains)
                    )
                })
                .filter(|h| cx.theirs.iter().all(|t| t.hex != *h))
                .min_by_key(|h| (h.distance(cx.me.hex), h.row, h.col));
            match high {
                Some(h) if h == cx.me.hex => (None, "holds the high ground it stands on".into()),
                Some(h) => (
                    cx.march(h, OnContact::Avoid),
                    format!("takes to the hills at {}", describe(h)),
                ),
                None => (None, "no high ground near; stays".into()),
            }
        }
        Letter::H => {
            let water = scn
                .map
                .places()
                .iter()
                .filter(|p| p.kind == PlaceKind::Oasis && p.hex.distance(cx.me.hex) <= 4)
                .filter(|p| cx.theirs.iter().all(|t| t.hex != p.hex))
                .map(|p| p.hex)
                .min_by_key(|h| (h.distance(cx.me.hex), h.row, h.col));
            match water {
                Some(h) if h == cx.me.hex => (None, "holds the oasis".into()),
                Some(h) => (
                    cx.march(h, OnContact::Avoid),
                    format!("goes to water at {}", describe(h)),
                ),
                None => (None, "no oasis near; holds".into()),
            }
        }
        Letter::I | Letter::Y => toward_objective(cx, OnContact::Avoid),
        Letter::J => withdraw(cx, 4),
        Letter::L => withdraw(cx, 3),
        Letter::T | Letter::S if !cx.outnumbered() => attack(cx),
        Letter::T => withdraw(cx, 3),
        Letter::S | Letter::Z | Letter::W => (None, "fortifies where it stands".into()),
        Letter::G | Letter::V => (None, "stays".into()),
        Letter::X => match (cx.nearest_enemy(), cx.me.units.as_slice()) {
            (Some(t), [scout, _, ..]) if t.hex != cx.me.hex => (
                Some(MarchOrder {
                    units: Selection::Units {
                        units: vec![scout.clone()],
                        leaders: Vec::new(),
                    },
                    legs: vec![Leg::To(t.hex)],
                    ..MarchOrder::stack(cx.me.hex, Vec::new())
                }),
                format!("sends {} to scout towards {}", scout.0, describe(t.hex)),
            ),
            _ => (None, "no scouts to spare; stays".into()),
        },
    }
}

/// The strategic layer's rule for towns (docs/opponents.md, "Sieges"): a
/// march that would attack a town, village or oasis the enemy holds goes
/// ahead only if the stack has [`Opponents::assault_ratio`] times the
/// strength in it; short of that, a stack next to the place sits down
/// before it, and one further away marches up to besiege it without
/// attacking. A stack besieging its objective keeps the siege whatever
/// else its reaction says.
fn siege_discipline(
    cx: &Cx<'_>,
    order: Option<MarchOrder>,
    what: String,
) -> (Option<MarchOrder>, String) {
    let describe = |h: Hex| cx.scn.map.describe(h);
    let garrison = |h: Hex| {
        cx.scn
            .map
            .settlement_at(h)
            .and_then(|_| cx.theirs.iter().find(|t| t.hex == h))
            .map(|t| t.strength)
    };
    let Some(o) = order else {
        return (None, what);
    };
    let target = match o.legs.last() {
        Some(Leg::To(h)) if o.on_contact != OnContact::Avoid => Some(*h),
        _ => None,
    };
    if let Some(town) = target
        && let Some(g) = garrison(town)
        && cx.me.strength < cx.ratio_at(town) * g
    {
        let ratio = cx.ratio_at(town);
        let why = format!(
            "{} strength against {g} in {}: an assault waits for {ratio} times the garrison",
            cx.me.strength,
            describe(town)
        );
        return if cx.me.hex.distance(town) <= 1 {
            (None, format!("sits down before {} ({why})", describe(town)))
        } else if let Some(camp) = cx
            .mine
            .iter()
            .filter(|m| m.hex != cx.me.hex && m.hex.distance(town) == 1)
            .max_by_key(|m| (m.strength, std::cmp::Reverse((m.hex.row, m.hex.col))))
            .and_then(|m| cx.march(m.hex, OnContact::Avoid).map(|o| (m.hex, o)))
        {
            // Friends already sit before the town: join the largest of
            // them, so that the besiegers gather the strength to storm it.
            (
                Some(MarchOrder {
                    continue_after_win: false,
                    ..camp.1
                }),
                format!(
                    "marches to join the siege of {} at {} ({why})",
                    describe(town),
                    describe(camp.0)
                ),
            )
        } else {
            (
                Some(MarchOrder {
                    on_contact: OnContact::Avoid,
                    continue_after_win: false,
                    ..o
                }),
                format!("marches to besiege {} ({why})", describe(town)),
            )
        };
    }
    let attacks = o.on_contact != OnContact::Avoid;
    if !attacks
        && let Some(obj) = cx.objective
        && cx.me.hex.distance(obj) <= 1
        && garrison(obj).is_some()
    {
        return (None, format!("keeps the siege of {}", describe(obj)));
    }
    (Some(o), what)
}

/// The strategic layer's storm (docs/opponents.md, "Sieges"): a stack
/// next to its objective, which the enemy holds with a garrison it has
/// [`Opponents::assault_ratio`] times the strength of, assaults it whatever
/// its reaction says. The Mahdi stormed Khartoum when hunger had thinned
/// its garrison (26 January 1885); a besieger that waited for a "charge"
/// letter sat for months before a garrison of three.
fn storm(cx: &Cx<'_>) -> Option<(Option<MarchOrder>, String)> {
    let obj = cx.objective?;
    let far = cx.me.hex.distance(obj);
    if far == 0 || far > cx.reach || cx.scn.map.settlement_at(obj).is_none() || cx.besieged {
        return None;
    }
    let g = cx.theirs.iter().find(|t| t.hex == obj)?.strength;
    let relief = cx.relief_at(obj);
    let ratio = relief.map_or(cx.ratio_at(obj), |(r, _)| r);
    if g == 0 || cx.me.strength < ratio * g {
        return None;
    }
    // A won assault goes on into the town (its march ends there).
    let order = cx.march(obj, OnContact::AttackAny)?;
    let verb = if far == 1 {
        "storms"
    } else {
        "marches to storm"
    };
    Some((
        Some(order),
        format!(
            "{verb} {} ({} strength against {g}: {ratio} times the garrison or more{})",
            cx.scn.map.describe(obj),
            cx.me.strength,
            relief.map_or(String::new(), |(_, h)| format!(
                ", a relief coming: the British at {}",
                cx.scn.map.describe(h)
            ))
        ),
    ))
}

/// The strategic layer's hunt (docs/opponents.md, "The hunt"): a stack in
/// the open that wins the game for one side or the other (4.2: the
/// civilians marching for Wady Halfa or Souakim, "the Egyptian player
/// wins ... when ... the civilian unit is in Wady Halfa or Souakim"; a
/// British leader's stack, "The Mahdist player wins if any stack
/// containing a British leader is totally eliminated in combat") draws on
/// every stack near enough with at least twice its strength, whatever its
/// reaction: the Mahdi's army closed on Hicks' column and cut it off from
/// water. Within [`Opponents::hunt_reach`] hexes; not from a besieged town
/// (9.12).
fn hunt(cx: &Cx<'_>) -> Option<(Option<MarchOrder>, String)> {
    if cx.besieged {
        return None;
    }
    let prey = cx
        .theirs
        .iter()
        .filter(|t| t.prize && t.strength * 2 <= cx.me.strength)
        .filter(|t| t.hex.distance(cx.me.hex) <= cx.opponents.hunt_reach && !(cx.barred)(t.hex))
        .min_by_key(|t| (t.hex.distance(cx.me.hex), t.hex.row, t.hex.col))?;
    let order = cx.march(prey.hex, OnContact::AttackHexes(vec![prey.hex]))?;
    Some((
        Some(order),
        format!(
            "hunts the enemy column at {} ({} strength against {})",
            cx.scn.map.describe(prey.hex),
            cx.me.strength,
            prey.strength
        ),
    ))
}

/// An objective the enemy left empty within the scenario's `occupy_reach`
/// (and the movement allowance of the stack's slowest unit) is taken
/// whatever the reaction says:
/// Tokar's garrison gave up in February 1884 and Osman Digma's men walked
/// in (3.2: the town's recruits come with it). Not from a besieged town.
fn occupy(cx: &Cx<'_>) -> Option<(Option<MarchOrder>, String)> {
    if cx.besieged {
        return None;
    }
    let to = cx
        .empty_towns
        .iter()
        .copied()
        .filter(|h| {
            *h != cx.me.hex
                && h.distance(cx.me.hex) <= cx.me.reach.min(cx.occupy_reach)
                && !(cx.barred)(*h)
        })
        .min_by_key(|h| (h.distance(cx.me.hex), h.row, h.col))?;
    let order = cx.march(to, OnContact::AttackAny)?;
    Some((
        Some(order),
        format!(
            "marches to take {}, which the enemy left empty",
            cx.scn.map.describe(to)
        ),
    ))
}

/// A column chased by several stacks ([`chases`]).
#[derive(Clone, Copy, Debug)]
struct Chase {
    prey: Hex,
    /// The column's strength.
    strength: u32,
    /// The strength of the stacks chasing it together.
    together: u32,
    /// How many stacks chase it.
    hunters: usize,
    /// It holds a town, village or oasis (with a British leader).
    in_town: bool,
}

/// The stacks that stay where they are whatever the hunt or the chase
/// asks: a besieged stack (9.12: it may leave only by attacking the
/// besiegers), and the largest stack before each objective the enemy
/// holds with a garrison, which keeps its siege (a siege lifted lets a
/// relief in and the civilians out).
fn siege_keepers(
    mine: &[Mine],
    theirs: &[Theirs],
    enemy_towns: &[Hex],
    besieged: &[Hex],
) -> std::collections::BTreeSet<Hex> {
    let mut keep: std::collections::BTreeSet<Hex> = besieged.iter().copied().collect();
    for town in enemy_towns {
        if !theirs.iter().any(|t| t.hex == *town) {
            continue;
        }
        if let Some(m) = mine
            .iter()
            .filter(|m| m.hex.distance(*town) == 1)
            .max_by_key(|m| (m.strength, std::cmp::Reverse((m.hex.row, m.hex.col))))
        {
            keep.insert(m.hex);
        }
    }
    keep
}

/// The chase (docs/opponents.md, "The hunt"): no single stack may have
/// twice the strength of a column in the open that wins the game for a
/// side (4.2: the civilians on their way to Wady Halfa or Souakim, a
/// British leader's stack) within a month's march of it, so stacks join
/// to run it down: the nearest stacks within [`Opponents::chase_reach`]
/// hexes of it that have, together, [`Opponents::chase_ratio`] times its
/// strength all march on it and attack, one after another, whatever their
/// reactions say. The Mahdi's army closed on Hicks' column from every side
/// and cut it off from water at Shaykan. A British leader's stack in a
/// town, village or oasis is chased too, by stacks that have together the
/// place's assault ratio times its strength (`ratio`; `None`: a place
/// stormed only as "Sieges" says), which storm it one after another. The columns in the open are taken first, the weakest
/// first (the surest), then by hex; a stack chases one column. Stacks
/// `held` back (besieged, or keeping a siege) do not chase, but the
/// besiegers of the place the prey holds storm it with the others.
/// Returns, for each chasing stack's hex, its chase.
fn chases(
    mine: &[Mine],
    theirs: &[Theirs],
    held: (&std::collections::BTreeSet<Hex>, &[Hex]),
    opponents: &Opponents,
    ratio: &dyn Fn(Hex) -> Option<u32>,
    barred: &dyn Fn(Hex) -> bool,
) -> std::collections::BTreeMap<Hex, Chase> {
    let (held_back, besieged) = held;
    let mut out = std::collections::BTreeMap::new();
    if opponents.chase_reach == 0 {
        return out;
    }
    let mut prey: Vec<&Theirs> = theirs
        .iter()
        .filter(|t| (t.prize || t.leader_in_town) && !barred(t.hex))
        .collect();
    prey.sort_by_key(|t| (!t.prize, t.strength, t.hex.row, t.hex.col));
    for t in prey {
        let times = if t.prize && t.british {
            match opponents.chase_ratio_british {
                0 => continue,
                r => r,
            }
        } else if t.prize {
            opponents.chase_ratio
        } else {
            match ratio(t.hex) {
                Some(r) => r,
                None => continue,
            }
        };
        let need = times.max(1) * t.strength.max(1);
        let mut hunters: Vec<&Mine> = mine
            .iter()
            .filter(|m| !besieged.contains(&m.hex) && !out.contains_key(&m.hex))
            .filter(|m| !held_back.contains(&m.hex) || m.hex.distance(t.hex) == 1)
            .filter(|m| m.hex.distance(t.hex) <= opponents.chase_reach)
            .collect();
        hunters.sort_by_key(|m| (m.hex.distance(t.hex), m.hex.row, m.hex.col));
        let mut together = 0;
        let mut taken = Vec::new();
        for m in hunters {
            if together >= need {
                break;
            }
            together += m.strength;
            taken.push(m.hex);
        }
        if together < need {
            continue;
        }
        let chase = Chase {
            prey: t.hex,
            strength: t.strength,
            together,
            hunters: taken.len(),
            in_town: !t.prize,
        };
        for h in taken {
            out.insert(h, chase);
        }
    }
    out
}

/// Closing a siege as early as it can (opponents.ron `close_siege`): while
/// no Mahdist land unit stands next to such a place the enemy holds with a
/// garrison, the nearest stack within `reach` hexes that is not held back
/// or chasing marches up to the free land hex next to it nearest itself,
/// avoiding battle. A place besieged (9.12: "units in a besieged hex may
/// not leave ... unless all adjacent enemy units have 1st been driven away
/// by combat") lets no relief in and no civilians out. Returns, for each
/// such stack's hex, the place and the hex it besieges it from.
#[allow(clippy::too_many_arguments)]
fn closing(
    scn: &Scenario,
    mine: &[Mine],
    theirs: &[Theirs],
    places: &[Hex],
    held_back: &std::collections::BTreeSet<Hex>,
    chased: &std::collections::BTreeMap<Hex, Chase>,
    reach: u32,
    barred: &dyn Fn(Hex) -> bool,
) -> std::collections::BTreeMap<Hex, (Hex, Hex)> {
    let mut out = std::collections::BTreeMap::new();
    for &town in places {
        if !theirs.iter().any(|t| t.hex == town) || mine.iter().any(|m| m.hex.distance(town) == 1) {
            continue;
        }
        let free = |h: &Hex| {
            scn.map.is_land(*h)
                && !barred(*h)
                && theirs.iter().all(|t| t.hex != *h)
                && mine.iter().all(|m| m.hex != *h)
        };
        let Some((m, camp)) = mine
            .iter()
            .filter(|m| !held_back.contains(&m.hex) && !chased.contains_key(&m.hex))
            .filter(|m| !out.contains_key(&m.hex) && m.hex.distance(town) <= reach)
            .filter(|m| m.hex != town)
            .min_by_key(|m| (m.hex.distance(town), m.hex.row, m.hex.col))
            .and_then(|m| {
                town.neighbours()
                    .into_iter()
                    .filter(free)
                    .min_by_key(|h| (h.distance(m.hex), h.row, h.col))
                    .map(|c| (m, c))
            })
        else {
            continue;
        };
        out.insert(m.hex, (town, camp));
    }
    out
}

/// A stack's part in a chase ([`chases`]): it marches on the column and
/// attacks.
fn chase(cx: &Cx<'_>) -> Option<(Option<MarchOrder>, String)> {
    let c = cx.chase?;
    // Only the column is attacked: a town on the way is not stormed.
    let order = cx.march(c.prey, OnContact::AttackHexes(vec![c.prey]))?;
    Some((
        Some(order),
        format!(
            "{} {} ({} strength; {} stacks with {} against {})",
            if c.in_town {
                "joins the storm of a British leader's stack at"
            } else {
                "joins the chase of the enemy column at"
            },
            cx.scn.map.describe(c.prey),
            cx.me.strength,
            c.hunters,
            c.together,
            c.strength
        ),
    ))
}

/// A stack's part in closing a siege ([`closing`]).
fn close(cx: &Cx<'_>) -> Option<(Option<MarchOrder>, String)> {
    let (town, camp) = cx.close?;
    let order = cx.march(camp, OnContact::Avoid)?;
    Some((
        Some(MarchOrder {
            continue_after_win: false,
            ..order
        }),
        format!(
            "marches to {} to close the siege of {}",
            cx.scn.map.describe(camp),
            cx.scn.map.describe(town)
        ),
    ))
}

/// A reaction of one or two letters: the first that moves the stack, else
/// the last (docs/opponents.md).
fn act(cx: &Cx<'_>, r: &Reaction) -> (Option<MarchOrder>, String) {
    if let Some(hunt) = hunt(cx) {
        return hunt;
    }
    if let Some(storm) = storm(cx) {
        return storm;
    }
    if let Some(chase) = chase(cx) {
        return chase;
    }
    if let Some(take) = occupy(cx) {
        return take;
    }
    if let Some(close) = close(cx) {
        return close;
    }
    let mut last = (None, "stays".to_string());
    for l in &r.0 {
        let (order, what) = letter(cx, *l);
        let (order, what) = siege_discipline(cx, order, what);
        // 9.12: "units in a besieged hex may not leave ... unless all
        // adjacent enemy units have 1st been driven away by combat".
        let (order, what) = match order {
            Some(o) if cx.besieged && o.on_contact != OnContact::AttackAny => (
                None,
                "is besieged and may leave only by attacking the besiegers (9.12); stays"
                    .to_string(),
            ),
            o => (o, what),
        };
        if order.is_some() {
            return (order, what);
        }
        last = (None, what);
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::SeededDice;
    use crate::scenario::DataSet;
    use crate::state::setup::{Placements, initial_state};

    /// Opening positions of `scn`: the set-up's, and that one with each
    /// unit in turn left out (other garrisons, other shares of the army).
    fn openings_of(scn: &Scenario) -> Vec<GameState> {
        let (start, _) = initial_state(scn, &Placements::new()).expect("a set-up");
        let mut out = vec![start.clone()];
        for k in 0..start.units.len() {
            let mut s = start.clone();
            s.units.remove(k);
            out.push(s);
        }
        out
    }

    /// An opening kept is the one made afresh, whatever position, in
    /// whatever order, it is asked for from; and the decisions made with it
    /// are those made without.
    #[test]
    fn an_opening_kept_is_the_one_made_afresh() {
        let data = DataSet::embedded().expect("the data built in");
        let table = Reactions::shipped().expect("the reaction tables");
        let opponents = Opponents::shipped().expect("the opponents' data");
        let openings = Openings::default();
        let mut asked = 0;
        for id in ["khartoum", "el-obeid", "khartoum"] {
            let scn = data.scenario(id).expect("a scenario built in");
            for (k, state) in openings_of(&scn).iter().enumerate() {
                // The first position twice: once kept, once asked again.
                for _ in 0..if k == 0 { 2 } else { 1 } {
                    let made = Opening::make(&scn, state, &opponents);
                    assert_eq!(openings.of(&scn, state, &opponents), made, "{id} {k}");
                    asked += 1;
                }
                if k % 8 == 0 {
                    let seed = u64::try_from(k).unwrap_or(0);
                    let mut a = Dice::new(SeededDice::from_seed(seed));
                    let mut b = Dice::new(SeededDice::from_seed(seed));
                    assert_eq!(
                        decide_remembering(&scn, state, &table, &opponents, &mut a, &openings),
                        decide(&scn, state, &table, &opponents, &mut b),
                        "{id} {k}"
                    );
                }
            }
        }
        assert!(asked > 40, "{asked} openings");
        let kept = openings.kept.get().expect("an opening kept");
        assert_eq!(kept.0.id(), "khartoum");
    }

    /// [`event_losses`] as first written: each unit's quality looked up
    /// by its id among all the Mahdist units.
    fn event_losses_by_lookup(
        scn: &Scenario,
        state: &GameState,
        mine: &[Mine],
        enemy_towns: &[Hex],
    ) -> Vec<crate::state::UnitId> {
        let quality: std::collections::BTreeMap<&crate::state::UnitId, _> = state
            .units
            .iter()
            .filter(|u| u.side == Side::Mahdist)
            .map(|u| (&u.id, scn.units.get(&u.unit_type).map(|t| t.quality)))
            .collect();
        let mut stacks: Vec<(u32, &Mine)> = mine
            .iter()
            .map(|m| {
                let d = enemy_towns.iter().map(|t| t.distance(m.hex)).min();
                (d.unwrap_or(0), m)
            })
            .filter(|(d, _)| *d > 1)
            .collect();
        stacks.sort_by_key(|(d, m)| (std::cmp::Reverse(*d), m.hex.row, m.hex.col));
        let mut out = Vec::new();
        for (_, m) in stacks {
            let mut units: Vec<&crate::state::UnitId> = m.units.iter().collect();
            units.sort_by_key(|id| {
                (
                    std::cmp::Reverse(quality.get(id).copied().flatten()),
                    (*id).clone(),
                )
            });
            out.extend(units.into_iter().cloned());
            if out.len() >= EVENT_LOSSES {
                break;
            }
        }
        out.truncate(EVENT_LOSSES);
        out
    }

    /// The stacks' reach and their units' qualities, read from the units
    /// of the stack, are those looked up over all the units; the losses
    /// chosen with them are those chosen by looking each unit up.
    #[test]
    fn stacks_read_their_own_units_as_a_look_up_over_all() {
        let mut stacks_read = 0;
        for scenario in ["khartoum", "el-obeid"] {
            let (scn, decided) = crate::players::tests::competent_campaigns(scenario, 3);
            for d in &decided {
                let (mine, theirs) = stacks(&scn, &d.state);
                for m in &mine {
                    assert_eq!(
                        m.reach,
                        super::super::reach_at(&scn, &d.state, Side::Mahdist, m.hex)
                    );
                    stacks_read += 1;
                }
                // Every hex with a stack, and none, as an objective.
                let hexes: Vec<Hex> = theirs.iter().map(|t| t.hex).collect();
                for towns in [&hexes[..], &hexes[..hexes.len().min(1)], &[]] {
                    assert_eq!(
                        event_losses(&mine, towns),
                        event_losses_by_lookup(&scn, &d.state, &mine, towns)
                    );
                }
            }
        }
        assert!(stacks_read > 500, "{stacks_read} stacks");
    }
}
