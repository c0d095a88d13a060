//! A programmed Egyptian player, so that a person can play the Mahdi by
//! mail and programmed players can play each other. It decides by plain
//! rules of thumb, written out in `docs/opponents.md`: garrisons hold their
//! towns, a field force relieves the most threatened besieged town, weak
//! Mahdist stacks near a strong column are attacked, an expedition carries
//! supply to the scenario's goal (scenario 2: a British supply unit in
//! Khartoum wins), and columns in the open without one fall back to a
//! town. Two personas:
//!
//! - **historical**: cautious, as the Khedive's commanders were: a relief
//!   marches only with half as much again as the besiegers, an expedition
//!   only with supply for the whole way, nothing else leaves its town, and
//!   a column in the open goes home.
//! - **competent**: concentrates: stacks close to each other join; a
//!   relief marches when it is at least as strong as the besiegers; weak
//!   Mahdist stacks (land units; land units may not attack boats, 6.1)
//!   within reach are attacked, by columns in the open and by strong
//!   garrisons, which keep their two weakest units at home.
//!
//! It rolls no dice: the same position gives the same orders.

use std::collections::BTreeSet;

use super::Decision;
use crate::engine::orders::{Leg, MarchOrder, OnContact, Selection};
use crate::geo::Hex;
use crate::scenario::{Nation, Scenario, Side, UnitKind};
use crate::state::GameState;

/// How the programmed Egyptian player plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Persona {
    /// Cautious, as the real commanders were.
    Historical,
    /// Concentrates and strikes.
    Competent,
}

impl Persona {
    /// `historical` or `competent`.
    pub fn parse(s: &str) -> Option<Persona> {
        match s.trim().to_ascii_lowercase().as_str() {
            "historical" => Some(Persona::Historical),
            "competent" => Some(Persona::Competent),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Persona::Historical => "historical",
            Persona::Competent => "competent",
        }
    }

    /// The relief's strength against the besiegers it needs, in tenths.
    fn relief_ratio(self) -> u32 {
        match self {
            Persona::Historical => 15,
            Persona::Competent => 10,
        }
    }
}

struct Column {
    hex: Hex,
    strength: u32,
    in_town: bool,
    /// Its land units, strongest first.
    units: Vec<(crate::state::UnitId, u32)>,
    /// Its British supply units (4.1 in scenario 2: one in Khartoum wins).
    supply: Vec<crate::state::UnitId>,
    /// Its camels, which carry supply (8.24).
    camels: Vec<crate::state::UnitId>,
    /// Its camel corps and cavalry, strongest first.
    mounted: Vec<crate::state::UnitId>,
    /// Every unit of the stack, boats included, in counter order.
    all: Vec<crate::state::UnitId>,
    /// Its leaders.
    leaders: Vec<String>,
}

/// The units a column leaving a town leaves to hold it: its weakest
/// fighting unit when it has two to four, its two weakest when it has five
/// or more (none out of a town): a town left empty is the enemy's for the
/// walking in (3.2).
fn garrison_left(c: &Column) -> Vec<crate::state::UnitId> {
    let fighting: Vec<&crate::state::UnitId> = c
        .units
        .iter()
        .map(|(id, _)| id)
        .filter(|id| !c.supply.contains(id) && !c.camels.contains(id))
        .collect();
    let keep = match fighting.len() {
        _ if !c.in_town => 0,
        0 | 1 => 0,
        2..=4 => 1,
        _ => 2,
    };
    fighting[fighting.len() - keep..]
        .iter()
        .map(|id| (*id).clone())
        .collect()
}

/// The notes' words for the units a column leaves to hold `hex`.
fn leaving(scn: &Scenario, keep: &[crate::state::UnitId], hex: Hex) -> String {
    if keep.is_empty() {
        return String::new();
    }
    format!(
        ", leaving {} to hold {}",
        keep.iter()
            .map(|u| u.0.as_ref())
            .collect::<Vec<_>>()
            .join(" "),
        scn.map.describe(hex)
    )
}

/// A column's march selection without the units it leaves behind, with
/// its leaders if `leaders`.
fn without(c: &Column, keep: &[crate::state::UnitId], leaders: bool) -> Selection {
    if keep.is_empty() {
        return Selection::Stack(c.hex);
    }
    Selection::Units {
        units: c
            .all
            .iter()
            .filter(|u| !keep.contains(u))
            .cloned()
            .collect(),
        leaders: if leaders {
            c.leaders.clone()
        } else {
            Vec::new()
        },
    }
}

/// The Egyptian player's orders for this player turn, with its reasons in
/// the notes (no rolls), its expeditions those of the shipped
/// `opponents.ron`.
pub fn decide(scn: &Scenario, state: &GameState, persona: Persona) -> Decision {
    decide_with(scn, state, persona, super::mahdist::Opponents::cached())
}

/// [`decide`] with the programmed players' data of a data folder
/// (`--data DIR`): its expeditions (none if `opponents` is `None`).
pub fn decide_with(
    scn: &Scenario,
    state: &GameState,
    persona: Persona,
    opponents: Option<&super::mahdist::Opponents>,
) -> Decision {
    let survey = Survey::of(scn, state);
    let mut d = Draft {
        scn,
        state,
        persona,
        used: BTreeSet::new(),
        marches: Vec::new(),
        notes: Vec::new(),
    };
    let evacuating = persona == Persona::Competent && d.evacuate();
    d.relieve(&survey);
    if let Some(op) = opponents {
        if persona == Persona::Competent {
            d.steamers(&survey, op);
        }
        d.expedition(&survey, op);
    }
    d.columns_in_the_open(&survey);
    if persona == Persona::Competent {
        d.garrisons_strike(&survey);
        d.garrisons_join(&survey);
        d.garrisons_sally(&survey);
    }
    let keep_supply =
        if !evacuating && opponents.is_some_and(|op| matches!(op.expedition(scn), Ok(Some(_)))) {
            supply_kept(scn, state, &survey, &d.used)
        } else {
            Vec::new()
        };
    d.finish(keep_supply, evacuating)
}

/// [`decide_with`], taking the opening month's orders from `openings`
/// when they were decided there for the same position (every game of a
/// balance run starts from one position, and the Egyptian player rolls no
/// dice).
pub fn decide_remembering(
    scn: &Scenario,
    state: &GameState,
    persona: Persona,
    opponents: Option<&super::mahdist::Opponents>,
    openings: &Openings,
) -> Decision {
    if state.month != scn.def.start {
        return decide_with(scn, state, persona, opponents);
    }
    if let Some((s, p, o, from, decided)) = openings.kept.get()
        && super::same_scenario(s, scn)
        && *p == persona
        && o.as_ref() == opponents
        && from == state
    {
        return decided.clone();
    }
    let decided = decide_with(scn, state, persona, opponents);
    let _ = openings.kept.set((
        scn.clone(),
        persona,
        opponents.cloned(),
        state.clone(),
        decided.clone(),
    ));
    decided
}

/// The orders first decided in an opening month ([`decide_remembering`]),
/// with what they were decided from: the scenario (its data, by address),
/// the persona, the opponents' data and the position. The decision is a
/// function of these alone, so one asked for again from the same ones is
/// the one kept; any other is made afresh (and the first kept stays).
#[derive(Debug, Default)]
pub struct Openings {
    kept: std::sync::OnceLock<(
        Scenario,
        Persona,
        Option<super::mahdist::Opponents>,
        GameState,
        Decision,
    )>,
}

/// The position as the Egyptian player reads it: its columns, the
/// Mahdist stacks, its towns and which of them are besieged.
struct Survey {
    /// The Egyptian stacks with land units that march, strongest first.
    columns: Vec<Column>,
    /// Every Mahdist stack and its strength.
    mahdist: Vec<(Hex, u32)>,
    /// The Mahdist stacks with land units that march.
    mahdist_land: BTreeSet<Hex>,
    /// The towns (settlements) an Egyptian column stands in.
    own_towns: Vec<Hex>,
    /// Besieged towns (9.12: a Mahdist land unit next to them) with the
    /// besiegers' and the garrison's strength, the most threatened
    /// (strongest besiegers against the garrison) first.
    besieged: Vec<(Hex, u32, u32)>,
}

impl Survey {
    fn of(scn: &Scenario, state: &GameState) -> Survey {
        let mut columns: Vec<Column> = Vec::new();
        let mut mahdist: Vec<(Hex, u32)> = Vec::new();
        let mut mahdist_land: BTreeSet<Hex> = BTreeSet::new();
        for s in state.stacks() {
            let land: Vec<_> = s
                .units
                .iter()
                .filter(|u| super::marches_by_land(scn, u))
                .collect();
            if s.side == Side::Egyptian {
                if !land.is_empty() {
                    columns.push(Column::of(scn, &s, &land));
                }
            } else {
                mahdist.push((s.hex, s.units.iter().map(|u| u.strength).sum()));
                if !land.is_empty() {
                    mahdist_land.insert(s.hex);
                }
            }
        }
        columns.sort_by_key(|c| (std::cmp::Reverse(c.strength), c.hex.row, c.hex.col));
        let own_towns: Vec<Hex> = columns
            .iter()
            .filter(|c| c.in_town)
            .map(|c| c.hex)
            .collect();
        let mut besieged: Vec<(Hex, u32, u32)> = columns
            .iter()
            .filter(|c| c.in_town)
            .filter_map(|c| {
                let besiegers: u32 = mahdist
                    .iter()
                    .filter(|(h, _)| h.distance(c.hex) == 1 && mahdist_land.contains(h))
                    .map(|(_, s)| *s)
                    .sum();
                (besiegers > 0).then_some((c.hex, besiegers, c.strength))
            })
            .collect();
        besieged.sort_by_key(|(h, b, g)| (std::cmp::Reverse(b.saturating_sub(*g)), h.row, h.col));
        Survey {
            columns,
            mahdist,
            mahdist_land,
            own_towns,
            besieged,
        }
    }

    fn is_besieged(&self, hex: Hex) -> bool {
        self.besieged.iter().any(|(b, ..)| *b == hex)
    }

    /// The nearest Mahdist land stack within `reach` of `from` with at most
    /// half of `strength`.
    fn weak_enemy(&self, from: Hex, reach: u32, strength: u32) -> Option<(Hex, u32)> {
        self.mahdist
            .iter()
            .filter(|(h, s)| {
                self.mahdist_land.contains(h) && h.distance(from) <= reach && s * 2 <= strength
            })
            .min_by_key(|(h, _)| (h.distance(from), h.row, h.col))
            .copied()
    }
}

impl Column {
    /// The column of stack `s`, whose land units that march are `land`.
    fn of(scn: &Scenario, s: &crate::state::Stack<'_>, land: &[&&crate::state::Unit]) -> Column {
        let kind = |u: &crate::state::Unit| scn.units.get(&u.unit_type);
        let mut units: Vec<(crate::state::UnitId, u32)> =
            land.iter().map(|u| (u.id.clone(), u.strength)).collect();
        units.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.0.cmp(&b.0.0)));
        let supply = s
            .units
            .iter()
            .filter(|u| {
                kind(u).is_some_and(|t| t.kind == UnitKind::Supply && t.nation == Nation::British)
            })
            .map(|u| u.id.clone())
            .collect();
        let camels = s
            .units
            .iter()
            .filter(|u| kind(u).is_some_and(|t| t.kind == UnitKind::Camel))
            .map(|u| u.id.clone())
            .collect();
        let mounted = units
            .iter()
            .filter(|(id, _)| {
                s.units.iter().any(|u| {
                    u.id == *id
                        && kind(u).is_some_and(|t| {
                            matches!(t.kind, UnitKind::CamelCorps | UnitKind::Cavalry)
                        })
                })
            })
            .map(|(id, _)| id.clone())
            .collect();
        Column {
            hex: s.hex,
            mounted,
            strength: land.iter().map(|u| u.strength).sum(),
            in_town: scn.map.settlement_at(s.hex).is_some(),
            units,
            supply,
            camels,
            all: s.units.iter().map(|u| u.id.clone()).collect(),
            leaders: s.leaders.iter().map(|l| l.name.clone()).collect(),
        }
    }
}

/// The orders being written: each march a slot of choices in order of
/// preference, the hexes whose stacks have orders, and the reasons.
struct Draft<'a> {
    scn: &'a Scenario,
    state: &'a GameState,
    persona: Persona,
    used: BTreeSet<Hex>,
    marches: Vec<Vec<MarchOrder>>,
    notes: Vec<String>,
}

impl Draft<'_> {
    /// The stack at `from` marches to `to` by land.
    fn march(&self, from: Hex, to: Hex, on: OnContact) -> MarchOrder {
        MarchOrder {
            units: Selection::Stack(from),
            legs: super::legs_to(
                &self.scn.map,
                from,
                to,
                super::reach_at(self.scn, self.state, Side::Egyptian, from),
            ),
            continue_after_win: false,
            on_contact: on,
            ..MarchOrder::stack(from, Vec::new())
        }
    }

    /// Units of a garrison sent out against the Mahdist stack at `h`.
    fn sortie(&self, from: Hex, out: &[Strength], h: Hex) -> MarchOrder {
        MarchOrder {
            units: Selection::Units {
                units: out.iter().map(|(u, _)| u.clone()).collect(),
                leaders: Vec::new(),
            },
            ..self.march(from, h, OnContact::AttackHexes(vec![h]))
        }
    }

    /// A far march goes by rail, by river or with the fleet if the checker
    /// allows it (8.22, 8.23, 8.25), else by land.
    fn by_any(&self, m: MarchOrder, to: Hex, from: Hex) -> Vec<MarchOrder> {
        let mut v = Vec::new();
        if from.distance(to) > super::NEAR {
            for leg in [Leg::Rail(to), Leg::River(to), Leg::Fleet(to)]
                .into_iter()
                .filter(|leg| may_go_by(self.scn, self.state, from, leg))
            {
                v.push(MarchOrder {
                    legs: vec![leg],
                    ..m.clone()
                });
            }
        }
        v.push(m);
        v
    }

    /// Competent: the civilians leave for a place that wins (4.2) before
    /// the siege closes, the British leaders by river. Whether they do.
    fn evacuate(&mut self) -> bool {
        let Some(plan) = super::evacuation::plan(self.scn, self.state) else {
            return false;
        };
        let evacuating = !plan.slots.is_empty();
        self.used.extend(plan.used);
        self.marches.extend(plan.slots);
        self.notes.extend(plan.notes);
        evacuating
    }

    /// Relief: for each besieged town, the strongest column (a field
    /// force, or the garrison of a town not besieged) marches to it and
    /// attacks, if strong enough against the besiegers.
    fn relieve(&mut self, sv: &Survey) {
        let scn = self.scn;
        for (town, besiegers, _) in &sv.besieged {
            let relief = sv.columns.iter().find(|c| {
                !self.used.contains(&c.hex)
                    && c.hex != *town
                    && !sv.is_besieged(c.hex)
                    && c.strength * 10 >= besiegers * self.persona.relief_ratio()
                    && c.hex.distance(*town) <= 20
            });
            let Some(c) = relief else {
                self.notes.push(format!(
                    "{} is besieged by {besiegers} strength: no column strong enough to relieve it",
                    scn.map.describe(*town)
                ));
                continue;
            };
            self.used.insert(c.hex);
            let keep = garrison_left(c);
            self.notes.push(format!(
                "the column at {} ({} strength) relieves {} ({} strength besieging it){}",
                scn.map.describe(c.hex),
                c.strength,
                scn.map.describe(*town),
                besiegers,
                leaving(scn, &keep, c.hex)
            ));
            let slot = self.by_any(
                MarchOrder {
                    units: without(c, &keep, true),
                    ..self.march(c.hex, *town, OnContact::AttackAny)
                },
                *town,
                c.hex,
            );
            self.marches.push(slot);
        }
    }

    /// The expedition (opponents.ron): the column with a British supply
    /// unit nearest the goal, if strong enough, carries it there (scenario
    /// 2: "an Egyptian victory ... when a British supply unit is in
    /// Khartoum", 4.1), by rail, river or the fleet where the checker
    /// allows, else by land, with its camels (8.24) and boats.
    fn expedition(&mut self, sv: &Survey, op: &super::mahdist::Opponents) {
        let scn = self.scn;
        let (exp, route) = match op.expedition(scn) {
            Err(e) => return self.notes.push(e),
            Ok(None) => return,
            Ok(Some(found)) => found,
        };
        let goal = route.goal;
        let need = match self.persona {
            Persona::Historical => exp.strength_historical,
            Persona::Competent => exp.strength_competent,
        };
        let Some(c) = sv
            .columns
            .iter()
            .filter(|c| {
                !self.used.contains(&c.hex)
                    && c.hex != goal
                    && !c.supply.is_empty()
                    && !sv.is_besieged(c.hex)
            })
            .min_by_key(|c| (c.hex.distance(goal), c.hex.row, c.hex.col))
        else {
            return;
        };
        let way = Way {
            setting_out: setting_out(scn, &route, c),
            goal,
        };
        let supplies = way.supplies(self.persona, &route, exp.hexes_a_month, c);
        if (way.setting_out && c.strength < need) || c.supply.len() < supplies {
            self.notes.push(format!(
                "the column at {} waits: {} strength and {} supply unit{} for {}; the expedition needs {need} strength and {} supply units",
                scn.map.describe(c.hex),
                c.strength,
                c.supply.len(),
                if c.supply.len() == 1 { "" } else { "s" },
                scn.map.describe(goal),
                supplies
            ));
            return;
        }
        self.used.insert(c.hex);
        let slot = self.expedition_marches(c, &way, route.next_stage(c.hex), route.via.is_empty());
        self.marches.push(slot);
    }

    /// Competent, under the house rule `steamers-run-the-siege`
    /// (docs/rules.md): supply units carried by gunboats may end a river
    /// march in the besieged goal, as Gordon's steamers went through the
    /// Mahdi's lines. Each column beside a river with supply units and
    /// gunboats sends up to [`STEAMER_SUPPLY`] supply units aboard its
    /// gunboats (no more than [`STEAMER_STACK`] units, so that the stack
    /// does not spend its supply, 5.2 IV; the gunboats to spare carry on
    /// if one is wrecked, 8.23 IV) up the river to the goal, as far as the
    /// water and the dice let them; if the way is barred, to the town held
    /// nearest the goal on the river. The rest of the column stays.
    fn steamers(&mut self, sv: &Survey, op: &super::mahdist::Opponents) {
        let (scn, state) = (self.scn, self.state);
        if !state
            .options
            .variants
            .contains(&crate::state::variant::Variant::SteamersRunTheSiege)
        {
            return;
        }
        let Ok(Some((_, route))) = op.expedition(scn) else {
            return;
        };
        let goal = route.goal;
        for c in &sv.columns {
            if self.used.contains(&c.hex)
                || c.hex == goal
                || c.supply.is_empty()
                || sv.is_besieged(c.hex)
                || !scn.map.is_riverside(c.hex)
            {
                continue;
            }
            let gunboats = gunboats_at(scn, state, c.hex);
            let aboard = c.supply.len().min(gunboats.len()).min(STEAMER_SUPPLY);
            if aboard == 0 {
                continue;
            }
            let mut units: Vec<crate::state::UnitId> = c.supply[..aboard].to_vec();
            units.extend(gunboats.into_iter().take(STEAMER_STACK - aboard));
            self.used.insert(c.hex);
            let mut stops: Vec<Hex> = sv
                .own_towns
                .iter()
                .copied()
                .filter(|t| {
                    scn.map.is_riverside(*t)
                        && !sv.is_besieged(*t)
                        && t.distance(goal) < c.hex.distance(goal)
                })
                .collect();
            stops.sort_by_key(|t| (t.distance(goal), t.row, t.col));
            self.notes.push(format!(
                "the steamers at {} carry {} up the river to {} (house rule steamers-run-the-siege: supply on gunboats may enter a besieged town; 4.2: a British supply unit in Khartoum wins){}",
                scn.map.describe(c.hex),
                c.supply[..aboard]
                    .iter()
                    .map(|u| u.0.as_ref())
                    .collect::<Vec<_>>()
                    .join(" "),
                scn.map.describe(goal),
                if stops.is_empty() {
                    String::new()
                } else {
                    format!(", else to {}", describe_hexes(scn, &stops))
                }
            ));
            let slot = std::iter::once(goal)
                .chain(stops)
                .map(|to| MarchOrder {
                    units: Selection::Units {
                        units: units.clone(),
                        leaders: Vec::new(),
                    },
                    legs: vec![Leg::River(to)],
                    on_contact: OnContact::Avoid,
                    ..MarchOrder::stack(c.hex, Vec::new())
                })
                .collect();
            self.marches.push(slot);
        }
    }

    /// The expedition's column `c` marches on: to `stage`, the next stage
    /// of the way (the goal, or a place the expedition goes by); `direct`
    /// when the way goes by no place. Its choices, best first.
    fn expedition_marches(
        &mut self,
        c: &Column,
        way: &Way,
        stage: Hex,
        direct: bool,
    ) -> Vec<MarchOrder> {
        let (scn, goal) = (self.scn, way.goal);
        // A town it sets out from keeps a garrison.
        let keep = if way.setting_out {
            garrison_left(c)
        } else {
            Vec::new()
        };
        let units = without(c, &keep, false);
        self.notes.push(format!(
            "the expedition at {} ({} strength, with {}) marches on {} to deliver its supply{}{}",
            scn.map.describe(c.hex),
            c.strength,
            c.supply
                .iter()
                .map(|u| u.0.as_ref())
                .collect::<Vec<_>>()
                .join(" "),
            scn.map.describe(goal),
            if stage == goal {
                String::new()
            } else {
                format!(", by {}", scn.map.describe(stage))
            },
            leaving(scn, &keep, c.hex)
        ));
        // First choice, the river column (8.23): its boats and gunboats
        // carry the supply and the strongest fighting units, one each, up
        // the river towards the stage; the rest of the column stays. Past
        // the places it goes by, the river is left for the desert: the
        // flying column (camel corps, cavalry, camels with the supply)
        // marches on by land. If the checker refuses both, the whole
        // column marches. A besieged goal may not be entered (9.12): the
        // boats then make for a riverside hex short of it.
        let mut slot: Vec<MarchOrder> = Vec::new();
        // Under way with its last supply unit in a stack that would spend
        // it (5.2 IV), the flying column makes straight for the goal with
        // it.
        let last = !way.setting_out
            && c.supply.len() == 1
            && c.all.len() >= crate::engine::upkeep::DEFAULT_SUPPLY_STACK;
        let by_river = !last && (stage != goal || direct);
        let river = by_river
            .then(|| river_column(scn, self.state, c, stage))
            .flatten();
        let fly_to = if last { goal } else { stage };
        let flying = (!way.setting_out && c.hex.distance(fly_to) > super::NEAR)
            .then(|| flying_column(c))
            .flatten();
        let said = |n: &mut String, how: &str, units: &Selection| {
            if let Selection::Units { units: ids, .. } = units {
                n.push_str(&format!(
                    "; {how}: {}, the rest staying",
                    ids.iter()
                        .map(|u| u.0.as_ref())
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
        };
        if let Some(units) = river {
            if let Some(n) = self.notes.last_mut() {
                said(n, "first choice, by river (8.23)", &units);
            }
            for to in river_goals(scn, c.hex, stage) {
                slot.push(MarchOrder {
                    units: units.clone(),
                    legs: vec![Leg::River(to)],
                    ..self.march(c.hex, stage, OnContact::AttackAny)
                });
            }
        }
        if let Some(units) = flying {
            if let Some(n) = self.notes.last_mut() {
                said(n, "the flying column by land (8.24)", &units);
            }
            slot.push(MarchOrder {
                units,
                ..self.march(c.hex, fly_to, OnContact::AttackAny)
            });
        }
        slot.extend(self.by_any(
            MarchOrder {
                units,
                ..self.march(c.hex, stage, OnContact::AttackAny)
            },
            stage,
            c.hex,
        ));
        slot
    }

    /// Columns in the open: the competent persona strikes a weak Mahdist
    /// stack within reach; else they fall back on a town held.
    fn columns_in_the_open(&mut self, sv: &Survey) {
        for c in &sv.columns {
            if self.used.contains(&c.hex) || c.in_town {
                continue;
            }
            if self.persona == Persona::Competent
                && let Some((h, s)) = sv.weak_enemy(c.hex, 4, c.strength)
            {
                self.used.insert(c.hex);
                self.notes.push(format!(
                    "the column at {} ({} strength) attacks the Mahdists at {} ({s} strength)",
                    self.scn.map.describe(c.hex),
                    c.strength,
                    self.scn.map.describe(h)
                ));
                let m = self.march(c.hex, h, OnContact::AttackHexes(vec![h]));
                self.marches.push(vec![m]);
                continue;
            }
            self.fall_back(sv, c);
        }
    }

    /// A column out in the open goes back to the nearest town held that
    /// it can reach (the enemy may bar every way to the nearest, 8.31).
    fn fall_back(&mut self, sv: &Survey, c: &Column) {
        let scn = self.scn;
        let mut back: Vec<Hex> = sv
            .own_towns
            .iter()
            .copied()
            .filter(|t| *t != c.hex)
            .collect();
        back.sort_by_key(|t| (t.distance(c.hex), t.row, t.col));
        // By land: the way a column in the open mostly goes (the slot
        // below still offers rail, river and the fleet first).
        let reachable = |t: Hex| {
            let alone = crate::engine::orders::Orders {
                marches: vec![self.march(c.hex, t, OnContact::Avoid)],
                ..Default::default()
            };
            super::verdict(scn, self.state, Side::Egyptian, &alone).is_ok()
        };
        let target = back.iter().copied().take(4).find(|t| reachable(*t));
        if target.is_none() && !back.is_empty() {
            self.used.insert(c.hex);
            self.notes.push(format!(
                "the column at {} is cut off from the towns held nearest it: it stays",
                scn.map.describe(c.hex)
            ));
            return;
        }
        if let Some(t) = target {
            self.used.insert(c.hex);
            self.notes.push(format!(
                "the column at {} falls back on {}{}",
                scn.map.describe(c.hex),
                scn.map.describe(t),
                if c.supply.is_empty() {
                    ": it has no supply with it"
                } else {
                    ""
                }
            ));
            let slot = self.by_any(self.march(c.hex, t, OnContact::Avoid), t, c.hex);
            self.marches.push(slot);
        }
    }

    /// Competent: a strong garrison of a town not besieged sends all but
    /// its two weakest units against a weak Mahdist stack within 5 hexes.
    fn garrisons_strike(&mut self, sv: &Survey) {
        for c in &sv.columns {
            if self.used.contains(&c.hex)
                || !c.in_town
                || c.units.len() < 4
                || sv.is_besieged(c.hex)
            {
                continue;
            }
            let (out, stay, striking) = striking_force(c);
            let Some((h, s)) = sv.weak_enemy(c.hex, 5, striking) else {
                continue;
            };
            self.used.insert(c.hex);
            self.notes.push(format!(
                "the garrison of {} sends {striking} strength against the Mahdists at {} ({s} strength), keeping {}",
                self.scn.map.describe(c.hex),
                self.scn.map.describe(h),
                stay.iter().map(|(u, _)| u.0.as_ref()).collect::<Vec<_>>().join(" ")
            ));
            let m = self.sortie(c.hex, out, h);
            self.marches.push(vec![m]);
        }
    }

    /// Competent: small garrisons close to a larger one not besieged join
    /// it (concentration), unless that leaves a besieged town.
    fn garrisons_join(&mut self, sv: &Survey) {
        for c in sv.columns.iter().rev() {
            if self.used.contains(&c.hex) || !c.in_town || sv.is_besieged(c.hex) {
                continue;
            }
            let Some(big) = sv.columns.iter().find(|b| {
                b.hex != c.hex
                    && b.in_town
                    && b.strength >= 3 * c.strength
                    && b.hex.distance(c.hex) <= 2
                    && !self.used.contains(&b.hex)
            }) else {
                continue;
            };
            self.used.insert(c.hex);
            self.notes.push(format!(
                "the garrison of {} joins the larger one at {}",
                self.scn.map.describe(c.hex),
                self.scn.map.describe(big.hex)
            ));
            let m = self.march(c.hex, big.hex, OnContact::Avoid);
            self.marches.push(vec![m]);
        }
    }

    /// Competent: a besieged garrison strong enough sallies against the
    /// weakest stack besieging it (9.12: it may leave only by attacking
    /// the besiegers), all but its two weakest units, when they have twice
    /// that stack's strength.
    fn garrisons_sally(&mut self, sv: &Survey) {
        for (town, ..) in &sv.besieged {
            let Some(c) = sv.columns.iter().find(|c| c.hex == *town) else {
                continue;
            };
            if self.used.contains(&c.hex) || c.units.len() < 3 {
                continue;
            }
            let (out, stay, striking) = striking_force(c);
            let Some((h, s)) = sv
                .mahdist
                .iter()
                .filter(|(h, s)| {
                    sv.mahdist_land.contains(h) && h.distance(c.hex) == 1 && s * 2 <= striking
                })
                .min_by_key(|(h, s)| (*s, h.row, h.col))
            else {
                continue;
            };
            self.used.insert(c.hex);
            self.notes.push(format!(
                "the garrison of {} sallies with {striking} strength against the besiegers at {} ({s} strength), keeping {}",
                self.scn.map.describe(c.hex),
                self.scn.map.describe(*h),
                stay.iter().map(|(u, _)| u.0.as_ref()).collect::<Vec<_>>().join(" ")
            ));
            let m = self.sortie(c.hex, out, *h);
            self.marches.push(vec![m]);
        }
    }

    /// The marches chosen through the checker, the supply kept for the
    /// march, and, while evacuating, the British spared attrition.
    fn finish(self, keep_supply: Vec<Hex>, evacuating: bool) -> Decision {
        let (scn, state) = (self.scn, self.state);
        let mut notes = self.notes;
        let keeps = (!keep_supply.is_empty()).then(|| {
            format!(
                "keeps the supply of {} for the march",
                keep_supply
                    .iter()
                    .map(|h| scn.map.describe(*h))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        // While evacuating, the orders that spare the British too.
        let spared = evacuating.then(|| super::evacuation::spare_the_british(scn, state));
        // The first choices and the other orders at once: when the checker
        // takes them together it takes each part alone (an order's errors
        // come from it and from the others it clashes with), which is what
        // the steps below would find.
        let together = (keeps.is_some() || evacuating).then(|| crate::engine::orders::Orders {
            marches: self
                .marches
                .iter()
                .filter_map(|c| c.first().cloned())
                .collect(),
            keep_supply: keep_supply.clone(),
            expend_supply: spared
                .as_ref()
                .map(|s| s.expend_supply.clone())
                .unwrap_or_default(),
            withdraw: spared
                .as_ref()
                .map(|s| s.withdraw.clone())
                .unwrap_or_default(),
            ..Default::default()
        });
        if let Some(o) = together.filter(|o| super::verdict(scn, state, Side::Egyptian, o).is_ok())
        {
            notes.extend(keeps);
            notes.extend(spared.map(|s| s.notes).unwrap_or_default());
            return Decision {
                orders: o,
                notes,
                rolls: Vec::new(),
            };
        }
        let (mut orders, dropped) = super::choose_marches(scn, state, Side::Egyptian, self.marches);
        notes.extend(dropped);
        if let Some(keeps) = keeps {
            notes.push(keeps);
            // The supply orders through the checker too, as a player's
            // mail (on their own: they do not depend on the marches, and
            // the marches were checked above).
            let (checked, dropped) = super::keep_checked(
                scn,
                state,
                Side::Egyptian,
                crate::engine::orders::Orders {
                    keep_supply,
                    ..Default::default()
                },
            );
            notes.extend(dropped);
            orders.keep_supply = checked.keep_supply;
        }
        if evacuating {
            let (spared, why) = super::evacuation::with_british_spared(scn, state, orders);
            notes.extend(why);
            orders = spared;
        }
        Decision {
            orders,
            notes,
            rolls: Vec::new(),
        }
    }
}

/// Where the expedition's column stands on its way.
struct Way {
    /// It sets out from a town far from the goal (not a village or oasis
    /// it stopped at on the way, nor a place the expedition goes by,
    /// opponents.ron `via`); elsewhere, and near the goal, it is under
    /// way.
    setting_out: bool,
    goal: Hex,
}

impl Way {
    /// The supply units the column needs to march on. Setting out, the
    /// historical persona needs a supply unit a month of the way and one
    /// to deliver (and the strength the data asks); under way it goes on
    /// while it has a supply unit, whatever its strength (it falls back
    /// when it has none).
    fn supplies(
        &self,
        persona: Persona,
        route: &super::mahdist::ExpeditionRoute,
        hexes_a_month: u32,
        c: &Column,
    ) -> usize {
        if self.setting_out && persona == Persona::Competent {
            // The competent persona takes the risk: one supply unit to
            // spend on the way, one to deliver.
            2
        } else if self.setting_out {
            usize::try_from(route.length_from(c.hex).div_ceil(hexes_a_month.max(1)) + 1)
                .unwrap_or(usize::MAX)
        } else {
            1
        }
    }
}

/// Whether column `c` sets out on the expedition's way (see [`Way`]).
fn setting_out(scn: &Scenario, route: &super::mahdist::ExpeditionRoute, c: &Column) -> bool {
    scn.map
        .settlement_at(c.hex)
        .is_some_and(|p| p.kind == crate::geo::map::PlaceKind::Town)
        && !route.via.contains(&c.hex)
        && c.hex.distance(route.goal) > super::NEAR
}

/// Where an expedition must carry supply (opponents.ron), a column that
/// stays in a town not besieged keeps its supply units for the march
/// (5.2 IV: KEEP SUPPLY) rather than spend one a month on the town's
/// attrition roll, which its wells and markets soften: Wolseley's army
/// gathered its stores at Wady Halfa and Korti for months.
fn supply_kept(scn: &Scenario, state: &GameState, sv: &Survey, used: &BTreeSet<Hex>) -> Vec<Hex> {
    let mut keep_supply = Vec::new();
    let arriving = supply_arriving(scn, state);
    for c in &sv.columns {
        if c.in_town
            && (!c.supply.is_empty() || arriving.contains(&c.hex))
            && !used.contains(&c.hex)
            && !sv.is_besieged(c.hex)
        {
            keep_supply.push(c.hex);
        }
    }
    // Supply arriving where no column stands yet (the Gordon Relief
    // Expedition reaching Wady Halfa with its supply): kept too.
    for h in arriving {
        if !keep_supply.contains(&h) && !sv.columns.iter().any(|c| c.hex == h) {
            keep_supply.push(h);
        }
    }
    keep_supply
}

/// Where the Egyptian side's supply units arrive this month: the monthly
/// supply unit at the first of its places the side holds (3.3), and a
/// reinforcement bringing supply units at the first place of its zone the
/// enemy does not hold (the engine's default place, 2.3).
pub fn supply_arriving(scn: &Scenario, state: &GameState) -> Vec<Hex> {
    let ours = |h: Hex| state.control.get(&h) != Some(&Side::Mahdist);
    let mut out: Vec<Hex> = Vec::new();
    let rp = &scn.def.replacements;
    if rp.free_supply_unit.is_some()
        && let Some(h) = rp
            .free_supply_places
            .iter()
            .filter_map(|p| scn.map.resolve(p).ok())
            .find(|h| ours(*h))
    {
        out.push(h);
    }
    for r in &scn.def.reinforcements {
        let due = matches!(&r.arrives, crate::scenario::definition::Arrival::Month(m) if *m == state.month);
        let brings_supply = r.units.iter().any(|l| {
            scn.units
                .get(&l.unit)
                .is_some_and(|t| t.side == Side::Egyptian && t.kind == UnitKind::Supply)
        });
        if !(r.side == Side::Egyptian && due && brings_supply) {
            continue;
        }
        use crate::scenario::definition::Zone;
        let first = match &r.zone {
            z @ (Zone::At(_) | Zone::OneOf(_)) => crate::scenario::zone::zone_hexes(&scn.map, z)
                .unwrap_or_default()
                .into_iter()
                .find(|h| ours(*h)),
            _ => None,
        };
        if let Some(h) = first.filter(|h| !out.contains(h)) {
            out.push(h);
        }
    }
    out
}

/// Whether a march from `from` by rail, river or the fleet may be
/// accepted at all: what the checker needs first (8.22: both ends on a
/// railway; 8.23: both ends by a river and a boat or gunboat of the side
/// with the stack; 8.25: both ends in the fleet's waters and the fleet
/// there). A cheap test, so that choices the checker must refuse are not
/// put to it; a march by land always may.
fn may_go_by(scn: &Scenario, state: &GameState, from: Hex, leg: &Leg) -> bool {
    let here = |kinds: &[UnitKind]| {
        state.units.iter().any(|u| {
            u.side == Side::Egyptian
                && u.hex() == Some(from)
                && scn
                    .units
                    .get(&u.unit_type)
                    .is_some_and(|t| kinds.contains(&t.kind))
        })
    };
    match leg {
        Leg::Rail(to) => {
            let on_rail = |h: &Hex| scn.map.railways().iter().any(|r| r.hexes.contains(h));
            on_rail(&from) && on_rail(to)
        }
        Leg::River(to) => {
            scn.map.is_riverside(from)
                && scn.map.is_riverside(*to)
                && here(&[UnitKind::Boat, UnitKind::Gunboat])
        }
        Leg::Fleet(to) => {
            let waters = crate::engine::rail::fleet_waters(&scn.map);
            waters.contains(&from) && waters.contains(to) && here(&[UnitKind::Fleet])
        }
        _ => true,
    }
}

/// The most supply units a steamer run carries ([`Draft::steamers`]):
/// one to deliver and one to spare.
const STEAMER_SUPPLY: usize = 2;

/// The most units in a steamer run, gunboats included: one fewer than a
/// stack that spends its supply by default (5.2 IV).
const STEAMER_STACK: usize = crate::engine::upkeep::DEFAULT_SUPPLY_STACK - 1;

/// The Egyptian side's gunboats at `hex` not wrecked, in counter order.
fn gunboats_at(scn: &Scenario, state: &GameState, hex: Hex) -> Vec<crate::state::UnitId> {
    state
        .units
        .iter()
        .filter(|u| u.side == Side::Egyptian && u.hex() == Some(hex))
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| t.kind == UnitKind::Gunboat)
        })
        .map(|u| u.id.clone())
        .collect()
}

/// The places of `hexes`, nearest the goal first, joined by "or".
fn describe_hexes(scn: &Scenario, hexes: &[Hex]) -> String {
    hexes
        .iter()
        .map(|h| scn.map.describe(*h))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A unit and its strength.
type Strength = (crate::state::UnitId, u32);

/// A garrison's striking force: all but its two weakest units (its units
/// are strongest first), the two it keeps, and the force's strength.
fn striking_force(c: &Column) -> (&[Strength], &[Strength], u32) {
    let (out, stay) = c.units.split_at(c.units.len().saturating_sub(2));
    (out, stay, out.iter().map(|(_, s)| s).sum())
}

/// The river column of an expedition (8.23: each boat or gunboat carries
/// one unit): the column's boats and gunboats with, one a carrier, supply
/// units in half the places (at least one), a camel for each of them, and
/// its strongest fighting units as escort in the rest. `None` unless the
/// goal is far, the column has two carriers or more and a supply unit.
fn river_column(scn: &Scenario, state: &GameState, c: &Column, goal: Hex) -> Option<Selection> {
    if c.hex.distance(goal) <= super::NEAR || c.supply.is_empty() {
        return None;
    }
    let carriers: Vec<crate::state::UnitId> = state
        .units
        .iter()
        .filter(|u| u.side == Side::Egyptian && u.hex() == Some(c.hex))
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| matches!(t.kind, UnitKind::Boat | UnitKind::Gunboat))
        })
        .map(|u| u.id.clone())
        .collect();
    if carriers.len() < 2 {
        return None;
    }
    // Half the places (at least one) for supply, the rest for the
    // strongest fighting units as escort, any still free for more supply.
    let half = (carriers.len() / 2).max(1);
    let mut passengers: Vec<crate::state::UnitId> = c.supply.iter().take(half).cloned().collect();
    // The camels go with the supply they carry on the desert stages
    // (8.24), one a supply unit.
    let supplies = passengers.len();
    passengers.extend(c.camels.iter().take(supplies).cloned());
    passengers.extend(
        c.units
            .iter()
            .map(|(id, _)| id)
            .filter(|id| !c.supply.contains(id) && !c.camels.contains(id))
            .take(carriers.len() - passengers.len())
            .cloned()
            .collect::<Vec<_>>(),
    );
    passengers.extend(c.supply.iter().skip(half).cloned());
    passengers.truncate(carriers.len());
    passengers.extend(carriers);
    Some(Selection::Units {
        units: passengers,
        leaders: Vec::new(),
    })
}

/// The flying column of an expedition under way (the Desert Column that
/// left Korti in December 1884): its camel-mounted and mounted units
/// (8.24: "Camel Corps units are also camel mounted"), its camels and the
/// supply units they carry, one a camel, so that the column moves at the
/// camels' rate; the rest of the column stays. `None` unless there is a
/// supply unit to carry and a fighting unit to escort it.
fn flying_column(c: &Column) -> Option<Selection> {
    // Fewer units than a stack that spends its supply by default (5.2 IV),
    // so that the supply it carries is still there to deliver.
    let most = crate::engine::upkeep::DEFAULT_SUPPLY_STACK - 1;
    let carried = c.supply.len().min(c.camels.len()).min(most / 3);
    if carried == 0 || c.mounted.is_empty() {
        return None;
    }
    let mut units: Vec<crate::state::UnitId> = c.supply.iter().take(carried).cloned().collect();
    units.extend(c.camels.iter().take(carried).cloned());
    units.extend(c.mounted.iter().take(most - 2 * carried).cloned());
    Some(Selection::Units {
        units,
        leaders: Vec::new(),
    })
}

/// Where a river column makes for: the goal, then up to three riverside
/// hexes on the land route short of it, nearest the goal first, within 6
/// hexes of it.
fn river_goals(scn: &Scenario, from: Hex, goal: Hex) -> Vec<Hex> {
    let mut out = vec![goal];
    if let Some(route) = crate::geo::route::land_route(&scn.map, from, goal) {
        out.extend(
            route
                .hexes
                .iter()
                .rev()
                .skip(1)
                .take_while(|h| h.distance(goal) <= super::NEAR)
                .filter(|h| scn.map.is_riverside(**h))
                .take(3),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DataSet;
    use crate::state::setup::{Placements, initial_state};

    /// An opening decision kept is the one decided afresh, for whatever
    /// scenario, persona, opponents' data and position it is asked for
    /// (the opening position, it with a unit left out, a later month), in
    /// whatever order.
    #[test]
    fn an_opening_kept_is_the_one_decided_afresh() {
        let data = DataSet::embedded().expect("the data built in");
        let opponents = super::super::mahdist::Opponents::shipped().expect("the opponents' data");
        let openings = Openings::default();
        let mut asked = 0;
        for id in ["khartoum", "el-obeid", "khartoum"] {
            let scn = data.scenario(id).expect("a scenario built in");
            let (start, _) = initial_state(&scn, &Placements::new()).expect("a set-up");
            let mut positions = vec![start.clone(), start.clone()];
            for k in (0..start.units.len()).step_by(7) {
                let mut s = start.clone();
                s.units.remove(k);
                positions.push(s);
            }
            let mut later = start.clone();
            later.month = later.month.next().expect("a second month");
            positions.push(later);
            for (k, state) in positions.iter().enumerate() {
                for persona in [Persona::Competent, Persona::Historical] {
                    for op in [Some(&opponents), None] {
                        assert_eq!(
                            decide_remembering(&scn, state, persona, op, &openings),
                            decide_with(&scn, state, persona, op),
                            "{id} {k} {persona:?}"
                        );
                        asked += 1;
                    }
                }
            }
        }
        assert!(asked > 40, "{asked} asked");
        let kept = openings.kept.get().expect("an opening kept");
        assert_eq!(kept.0.id(), "khartoum");
    }
}
