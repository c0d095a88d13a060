//! The ETYFW resolver: a campaign land combat fought by the procedure of
//! Bob Cordery's *'Eres To You Fuzzy Wuzzy* (seeds/004_...), automatically,
//! and read back onto the campaign's counters. The page that documents it
//! is docs/tabletop-etyfw.md; the tables are `scenarios/etyfw.ron`.
//!
//! `data.rs` reads and checks the tables; `field.rs` fights the battle on
//! the line model; this file turns counters into stands and the battle's
//! end into each counter's fate.

pub mod data;
pub mod field;

use std::collections::BTreeMap;

use crate::diag::Diagnostic;
use crate::engine::elsewhere::{Combat, Fate, Resolution, Resolved, Resolver};
use crate::geo::map::PlaceKind;
use crate::geo::map::Terrain;
use crate::scenario::{Nation, Quality, Scenario, Side, UnitKind};
use crate::state::{GameState, UnitId};

use data::{Class, FirstMover, Grading, MoveKind, Tables};
use field::{Counter, Ending, Field, Group, RollFn};

/// What the log says a result was made by.
pub const HOW: &str = "by the ETYFW resolver (docs/tabletop-etyfw.md)";

/// The ETYFW resolver with its tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Etyfw {
    tables: Tables,
    /// Keep no log (for statistics over many battles): the same dice
    /// fall and the result is the same.
    quiet: bool,
}

/// The tables as shipped.
pub const EMBEDDED: &str = include_str!("../../../scenarios/etyfw.ron");

impl Etyfw {
    /// The resolver with the shipped tables (`scenarios/etyfw.ron`).
    pub fn embedded() -> Result<Etyfw, Diagnostic> {
        Etyfw::from_ron(EMBEDDED, "scenarios/etyfw.ron")
    }

    /// The resolver with tables from RON text, checked: the first problem
    /// with its file, line, field and how to fix it.
    pub fn from_ron(text: &str, file: &str) -> Result<Etyfw, Diagnostic> {
        Ok(Etyfw {
            tables: data::load(text, file)?,
            quiet: false,
        })
    }

    /// The same resolver keeping no log: every die is rolled as before,
    /// with an empty purpose, and the result is the same; for statistics
    /// over many battles (`dervish balance --resolver etyfw`).
    pub fn quiet(mut self) -> Etyfw {
        self.quiet = true;
        self
    }

    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// Fight `combat` and read the result back onto the counters, every
    /// die and each move's outcome in the log.
    pub fn fight(
        &self,
        scn: &Scenario,
        state: &GameState,
        combat: &Combat,
        roll: RollFn<'_>,
    ) -> Resolved {
        self.fight_logged(scn, state, combat, roll, !self.quiet)
    }

    /// As [`Etyfw::fight`]; with `log` false no log is kept and the dice
    /// are rolled with empty purposes (the same dice, the same result:
    /// for statistics over many battles).
    pub fn fight_logged(
        &self,
        scn: &Scenario,
        state: &GameState,
        combat: &Combat,
        roll: RollFn<'_>,
        log: bool,
    ) -> Resolved {
        let t = &self.tables;
        let holding = holding_side(scn, combat);
        let holding_hex = if holding == combat.attacker {
            combat.attacker_hex
        } else {
            combat.defender_hex
        };
        // 3.3: cover for the holding side (the campaign's defender) in
        // its settlement.
        let cover = match scn.map.settlement_at(holding_hex).map(|p| p.kind) {
            Some(PlaceKind::Town) => t.cover.town,
            Some(PlaceKind::Village) => t.cover.village,
            Some(PlaceKind::Oasis) => t.cover.oasis,
            _ => Grading::Light,
        };
        let (counters, groups) = self.muster(scn, state, combat, holding, cover);
        let first = match t.first_mover {
            FirstMover::Attacker => combat.attacker,
            FirstMover::Defender => combat.attacker.enemy(),
        };
        let mut f = Field::new(t, counters, groups, log, first);
        // 3.4: a disrupted counter starts with half its figures marked.
        for g in 0..f.groups.len() {
            let c = f.groups[g].counter;
            if f.counters[c].disrupted && f.counters[c].start_markers == 0 {
                let n = (f.counters[c].figures / 2).max(1);
                f.counters[c].start_markers = n;
                f.mark(g, n);
            }
        }
        f.rerolls = [
            best_tactical(scn, combat, Side::Egyptian),
            best_tactical(scn, combat, Side::Mahdist),
        ];
        // Section 6: "the distance at which units of various sizes will be
        // seen", a "Company-sized unit - single stand", a "Battalion-sized
        // unit - Two to six Company-sized units". The unit observed is the
        // ETYFW unit, one counter (4.1), not the whole closing side: the
        // lines open at the distance the largest closing unit is seen.
        let mut unit_stands = vec![0u32; f.counters.len()];
        for g in &f.groups {
            if g.side != holding && !g.afloat && f.counters[g.counter].counted {
                unit_stands[g.counter] += g.stands.len() as u32;
            }
        }
        let closing_stands = unit_stands.iter().copied().max().unwrap_or(0);
        let battle_hex = combat.defender_hex;
        let open_terrain = scn.map.terrain(battle_hex) == Some(Terrain::Clear)
            && scn.map.settlement_at(battle_hex).is_none();
        // "Egyptian and Indian Troops Move and Reconnoitre as Regulars"
        let recon = holding.pick(Class::Regular, Class::Irregular);
        f.note(|| {
            format!(
                "ETYFW: the {} holds{}, the {} closes",
                Field::side_name(holding),
                match cover {
                    Grading::Light => String::new(),
                    g => format!(" ({} cover)", g.name()),
                },
                Field::side_name(holding.enemy())
            )
        });
        f.open(roll, recon, open_terrain, closing_stands, combat.ambush);
        let ending = f.fight(roll, combat.ambush);
        self.read_back(scn, state, f, ending, roll)
    }

    /// Counters as stands (docs "Campaign units as stands").
    fn muster(
        &self,
        scn: &Scenario,
        state: &GameState,
        combat: &Combat,
        holding: Side,
        cover: Grading,
    ) -> (Vec<Counter>, Vec<Group>) {
        let c = self.tables.conversion;
        let enemy_riverside = |side: Side| {
            let hex = if side == combat.attacker {
                combat.defender_hex
            } else {
                combat.attacker_hex
            };
            scn.map.is_riverside(hex)
        };
        let mut counters = Vec::new();
        let mut groups = Vec::new();
        for (i, id, counted) in battle_units(state, combat) {
            let unit = &state.units[i];
            let Some(ty) = scn.units.get(&unit.unit_type) else {
                continue;
            };
            let side = unit.side;
            let (moves, fights) = classes(ty);
            let at = Mustering {
                counter: counters.len(),
                side,
                holding: side == holding,
                moves,
                fights,
                cover,
                label: id.0.to_string(),
            };
            let stands = unit.strength.max(1) * at.per_sp(c);
            let Some(stands_total) =
                self.unit_groups(&at, ty, stands, enemy_riverside(side), &mut groups)
            else {
                continue;
            };
            let transport = matches!(
                ty.kind,
                UnitKind::Supply | UnitKind::Camel | UnitKind::Civilian
            );
            counters.push(Counter {
                label: id.0.to_string(),
                side,
                counted: counted && !transport,
                transport,
                disrupted: unit.disrupted,
                figures: stands_total * u32::from(c.figures_per_stand),
                start_markers: 0,
            });
        }
        (counters, groups)
    }

    /// The groups of stands of one counter of `stands` stands (its
    /// strength times the stands a strength point), pushed onto `groups`;
    /// the stands in all, or `None` for a counter that does not fight
    /// (boats, the fleet, a gunboat with no enemy beside a river).
    fn unit_groups(
        &self,
        at: &Mustering,
        ty: &crate::scenario::UnitType,
        stands: u32,
        enemy_riverside: bool,
        groups: &mut Vec<Group>,
    ) -> Option<u32> {
        let c = self.tables.conversion;
        let rifle = ty.fires.then_some(c.rifle);
        match ty.kind {
            UnitKind::Boat | UnitKind::Fleet => None,
            UnitKind::Gunboat => {
                // Gunboats fire only when the enemy stands beside a
                // river (9.4); never hit, never counted.
                if !enemy_riverside {
                    return None;
                }
                at.push(groups, MoveKind::Artillery, Some(c.gun), 1, true, None);
                Some(1)
            }
            UnitKind::Supply | UnitKind::Camel | UnitKind::Civilian => Some(0),
            UnitKind::Gun => {
                let gun = ty.fires.then_some(c.gun);
                at.push(groups, MoveKind::Artillery, gun, 1, false, None);
                Some(1)
            }
            UnitKind::Cavalry => {
                at.push(groups, MoveKind::Cavalry, None, stands, false, None);
                Some(stands)
            }
            UnitKind::NavalInfantry if c.naval_machine_guns && at.per_sp(c) >= 2 => {
                let guns = stands / 2;
                at.push(
                    groups,
                    MoveKind::Infantry,
                    rifle,
                    stands - guns,
                    false,
                    None,
                );
                let mg = ty.fires.then_some(data::Weapon::MachineGun);
                at.push(
                    groups,
                    MoveKind::Artillery,
                    mg,
                    guns,
                    false,
                    Some("(machine guns)"),
                );
                Some(stands)
            }
            UnitKind::Infantry
            | UnitKind::CamelCorps
            | UnitKind::Engineer
            | UnitKind::NavalInfantry => {
                at.push(groups, MoveKind::Infantry, rifle, stands, false, None);
                Some(stands)
            }
        }
    }

    /// Section 16 at the end, each counter's fate from its casualty
    /// markers (docs "Back to the campaign"; never edited to agree with
    /// the field's break test: the engine reads the winner from the fates
    /// by 9.8), and the capture roll of 9.9 when the Mahdists won.
    fn read_back(
        &self,
        scn: &Scenario,
        state: &GameState,
        mut f: Field<'_>,
        ending: Ending,
        roll: RollFn<'_>,
    ) -> Resolved {
        f.note(|| {
            format!(
                "ETYFW: the battle ends after move {}: {}",
                ending.moves,
                match ending.broken {
                    (true, true) => "both sides broken".to_string(),
                    (false, false) => "neither side broken".to_string(),
                    (true, false) => "the Egyptian side is broken".to_string(),
                    (false, true) => "the Mahdist side is broken".to_string(),
                }
            )
        });
        let (fates, markers) = self.fates(&mut f, ending.broken, roll);
        // 9.9 capture, rolled here when the Mahdists won: the winner is
        // read from the fates by 9.8, as the engine reads it.
        let lost = |side: Side| lost_by_9_8(&f, &fates, side);
        let captured = if lost(Side::Egyptian) && !lost(Side::Mahdist) {
            captures(scn, state, &mut f, &fates, roll)
        } else {
            Vec::new()
        };
        let summary: Vec<String> = f
            .counters
            .iter()
            .zip(&markers)
            .filter(|(c, _)| c.counted)
            .map(|(c, m)| {
                let fate = fates
                    .get(&UnitId(c.label.clone().into()))
                    .copied()
                    .unwrap_or(Fate::GoodOrder);
                format!("{} {m}/{} {fate}", c.label, c.figures)
            })
            .collect();
        f.note(|| {
            format!(
                "ETYFW: casualties of figures and fates: {}",
                summary.join(", ")
            )
        });
        Resolved {
            fates,
            captured,
            retreat: None,
            how: HOW.to_string(),
            log: f.log.take().unwrap_or_default(),
        }
    }

    /// Each counter's casualty markers after the recovery of section 16
    /// and its fate (counted units and transport), with a unit disrupted
    /// before the battle and again in it held as 9.7 says.
    fn fates(
        &self,
        f: &mut Field<'_>,
        broken: (bool, bool),
        roll: RollFn<'_>,
    ) -> (BTreeMap<UnitId, Fate>, Vec<u32>) {
        let broken = |s: Side| s.pick(broken.0, broken.1);
        let state_of = f.counter_state();
        let mut fates: BTreeMap<UnitId, Fate> = BTreeMap::new();
        let mut markers: Vec<u32> = Vec::new();
        // Counters disrupted before the battle and disrupted again in it.
        let mut seconds: Vec<usize> = Vec::new();
        for (k, c) in f.counters.clone().iter().enumerate() {
            let (mut m, routed) = state_of[k];
            if !broken(c.side) && !c.transport {
                m -= self.recovered(f, roll, c, m);
            }
            markers.push(m);
            let fate = if c.transport {
                if broken(c.side) {
                    Fate::Disrupted
                } else {
                    Fate::GoodOrder
                }
            } else if c.disrupted {
                let new = m.saturating_sub(c.start_markers);
                if (new >= 1 && new * 4 >= c.figures) || m >= c.figures {
                    seconds.push(k);
                    Fate::Eliminated
                } else {
                    Fate::Disrupted
                }
            } else if m * 2 > c.figures {
                Fate::Eliminated
            } else if (m >= 1 && m * 4 >= c.figures) || routed {
                Fate::Disrupted
            } else {
                Fate::GoodOrder
            };
            if c.counted || c.transport {
                fates.insert(UnitId(c.label.clone().into()), fate);
            }
        }
        hold_second_disruptions(f, &mut fates, &seconds);
        (fates, markers)
    }

    /// The casualty markers a counter of a side not broken takes off with
    /// `m` on it. Section 16: "To recover casualties, a unit removes half
    /// the casualty markers it has suffered. If there are an odd number
    /// of casualty markers, a D6 is thrown; If the score is 1, 2, or 3,
    /// the odd number of casualty markers is rounded up; If the score is
    /// 4, 5, or 6, the odd number of casualty markers is rounded down."
    /// Once, at the end, for the markers of this battle.
    fn recovered(&self, f: &mut Field<'_>, roll: RollFn<'_>, c: &Counter, m: u32) -> u32 {
        let new = m.saturating_sub(c.start_markers);
        if new == 0 {
            return 0;
        }
        let mut off = new / 2;
        if new % 2 == 1 {
            let (label, up) = (&c.label, &self.tables.recovery_round_up);
            let rounded_up = f.d6_yes(
                roll,
                || format!("ETYFW casualty recovery of {label}: {new} casualties, an odd half"),
                "ETYFW casualty recovery (T13)",
                |v| up.contains(&v),
                |v, round_up| format!("{v}: rounded {}", if round_up { "up" } else { "down" }),
            );
            if rounded_up {
                off += 1;
            }
        }
        off
    }
}

/// The units of the combat with their place in the state's unit list and
/// whether they count (river units do not), in the campaign's unit order:
/// "Groups are always taken in the campaign's unit order".
fn battle_units<'c>(state: &GameState, combat: &'c Combat) -> Vec<(usize, &'c UnitId, bool)> {
    let mut ids: Vec<(usize, &UnitId, bool)> = Vec::new();
    for (list, counted) in [
        (&combat.attackers, true),
        (&combat.defenders, true),
        (&combat.river_units, false),
    ] {
        for id in list {
            if let Some(i) = state.units.iter().position(|u| &u.id == id) {
                ids.push((i, id, counted));
            }
        }
    }
    ids.sort_by_key(|x| x.0);
    ids
}

/// How a unit moves and how it fights. Section 17: "British Troops Move,
/// Reconnoitre, Fire Combat, Close Combat, and Rally as Regulars. Egyptian
/// and Indian Troops Move and Reconnoitre as Regulars and Fire Combat,
/// Close Combat, and Rally as Irregulars. Mahdist Troops Move, Reconnoitre,
/// Fire Combat, Close Combat, and Rally as Irregulars."
fn classes(ty: &crate::scenario::UnitType) -> (Class, Class) {
    match ty.nation {
        Nation::British | Nation::Australian => (Class::Regular, Class::Regular),
        // Sudanese irregulars (S) are irregulars in everything (6.11).
        Nation::Egyptian if ty.quality == Quality::S => (Class::Irregular, Class::Irregular),
        Nation::Egyptian | Nation::Indian => (Class::Regular, Class::Irregular),
        Nation::Mahdist => (Class::Irregular, Class::Irregular),
    }
}

/// One counter being mustered: what every group of its stands shares.
struct Mustering {
    counter: usize,
    side: Side,
    holding: bool,
    moves: Class,
    fights: Class,
    cover: Grading,
    label: String,
}

impl Mustering {
    /// Stands a strength point for the counter's fighting class.
    fn per_sp(&self, c: data::Conversion) -> u32 {
        match self.fights {
            Class::Regular => c.regular_stands_per_sp,
            Class::Irregular => c.irregular_stands_per_sp,
        }
    }

    /// A group of the counter's stands; `part` names a part of it after
    /// the counter's label.
    fn push(
        &self,
        groups: &mut Vec<Group>,
        kind: MoveKind,
        weapon: Option<data::Weapon>,
        stands: u32,
        afloat: bool,
        part: Option<&str>,
    ) {
        let label = match part {
            Some(p) => format!("{} {p}", self.label),
            None => self.label.clone(),
        };
        groups.push(Group::new(
            self.counter,
            self.side,
            self.holding,
            kind,
            self.moves,
            self.fights,
            weapon,
            stands as usize,
            self.cover,
            afloat,
            label,
        ));
    }
}

/// 9.9: the capture roll for each Egyptian gun and rifle unit ELIMINATED,
/// when the Mahdists won.
fn captures(
    scn: &Scenario,
    state: &GameState,
    f: &mut Field<'_>,
    fates: &BTreeMap<UnitId, Fate>,
    roll: RollFn<'_>,
) -> Vec<UnitId> {
    let mut captured = Vec::new();
    for c in f.counters.clone() {
        let id = UnitId(c.label.clone().into());
        if c.side != Side::Egyptian || fates.get(&id) != Some(&Fate::Eliminated) {
            continue;
        }
        let Some(ty) = state
            .unit(&c.label)
            .and_then(|u| scn.units.get(&u.unit_type))
        else {
            continue;
        };
        if !ty.fires || ty.kind == UnitKind::Fleet || ty.captured_as.is_none() {
            continue;
        }
        let Some(&(_, need)) = scn
            .tables
            .capture
            .guns_and_rifles
            .iter()
            .find(|(n, _)| *n == ty.nation)
        else {
            continue;
        };
        let taken = f.d6_yes(
            roll,
            || format!("capture of {}", c.label),
            "capture (9.9)",
            |v| v >= need,
            |_, taken| {
                if taken {
                    format!("{need}+: captured")
                } else {
                    format!("under {need}: not captured")
                }
            },
        );
        if taken {
            captured.push(id);
        }
    }
    captured
}

/// Rule 9.8: "A stack loses a combat if it ends a melee round with at
/// least 50% of it's units disrupted or dead", read from the fates as the
/// engine reads it (counted units and transport; a unit disrupted before
/// the battle stays disrupted, 9.7).
fn lost_by_9_8(f: &Field<'_>, fates: &BTreeMap<UnitId, Fate>, side: Side) -> bool {
    let ours: Vec<&Counter> = f
        .counters
        .iter()
        .filter(|c| c.side == side && (c.counted || c.transport))
        .collect();
    let hurt = ours
        .iter()
        .filter(|c| {
            c.disrupted
                || fates
                    .get(&UnitId(c.label.clone().into()))
                    .is_some_and(|x| *x != Fate::GoodOrder)
        })
        .count();
    !ours.is_empty() && hurt * 2 >= ours.len()
}

/// 4.2: the side that marched attacks: it closes, and the side marched
/// against holds (in its settlement's cover, if it has one).
pub fn holding_side(_scn: &Scenario, combat: &Combat) -> Side {
    combat.attacker.enemy()
}

/// The best tactical rating among a side's leaders in the combat (the
/// optional rally re-rolls).
fn best_tactical(scn: &Scenario, combat: &Combat, side: Side) -> u32 {
    let names = if side == combat.attacker {
        &combat.attacker_leaders
    } else {
        &combat.defender_leaders
    };
    names
        .iter()
        .filter_map(|n| scn.units.leader(n))
        .map(|l| l.tactical.max(0) as u32)
        .max()
        .unwrap_or(0)
}

impl Resolver for Etyfw {
    fn resolve(
        &mut self,
        scn: &Scenario,
        state: &GameState,
        combat: &Combat,
        roll: RollFn<'_>,
    ) -> Resolution {
        Resolution::Resolved(self.fight(scn, state, combat, roll))
    }
}

/// Rule 9.4: "no disrupted unit may suffer a 2nd disruption result until
/// all units (except leaders) in the stack are disrupted." A counter
/// disrupted before the battle whose new casualties would disrupt it again
/// (`seconds`, docs/tabletop.md "How losses become fates") is eliminated
/// only if no counter of its side ends the battle in good order; otherwise
/// it ends disrupted (the tabletop gives losses, not an elimination result
/// apart from them).
fn hold_second_disruptions(
    f: &mut Field<'_>,
    fates: &mut BTreeMap<UnitId, Fate>,
    seconds: &[usize],
) {
    for side in [Side::Egyptian, Side::Mahdist] {
        let good: Vec<String> = f
            .counters
            .iter()
            .filter(|c| c.side == side)
            .filter(|c| fates.get(&UnitId(c.label.clone().into())) == Some(&Fate::GoodOrder))
            .map(|c| c.label.clone())
            .collect();
        if good.is_empty() {
            continue;
        }
        let held: Vec<String> = seconds
            .iter()
            .filter(|&&k| f.counters[k].side == side)
            .map(|&k| f.counters[k].label.clone())
            .collect();
        for label in held {
            fates.insert(UnitId(label.clone().into()), Fate::Disrupted);
            f.note(|| {
                format!(
                    "ETYFW: {label} was disrupted before the battle and is not disrupted again while {} of its side {} in good order: it ends disrupted (9.4)",
                    good.join(" "),
                    if good.len() == 1 { "is" } else { "are" }
                )
            });
        }
    }
}
