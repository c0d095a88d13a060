//! Combat (rules 9.1-9.9, 9.12): a marching stack attacks one adjacent
//! enemy hex; fire then melee, both sides rolling at once; results read
//! against the quality of the units hit; win, lose or draw at 50% of the
//! units disrupted or eliminated; retreats; capture of guns and rifles.

use std::collections::BTreeMap;

use super::Turn;
use super::elsewhere::{BattleKey, Combat, Fate, Resolution, Resolved};
use super::events::{Decision, Event};
use super::losses::{self, ClassHits};
use super::modifiers::{self, RollContext};
use super::movement::{Occupancy, allowance_of, enter_cost};
use crate::dice::{DiceKind, DieSource};
use crate::geo::{Hex, PlaceKind};
use crate::scenario::tables::{CombatRow, CombatTable};
use crate::scenario::{Quality, Side, UnitKind};
use crate::state::{Status, UnitId};

/// How a combat ended for each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    AttackerWon,
    DefenderWon,
    Draw,
}

/// A combat's end: its outcome, and where a result from elsewhere sends
/// the loser (`None`: the retreat rules and the loser's orders decide).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fought {
    pub outcome: Outcome,
    pub retreat_to: Option<Hex>,
}

/// One side of a combat.
struct Party {
    side: Side,
    hex: Hex,
    /// Units taking part (river units and the fleet included; they are
    /// left out where the rules say).
    units: Vec<usize>,
    leaders: Vec<String>,
    lose_first: Vec<UnitId>,
    /// The units that count for winning or losing (9.8), as the combat
    /// began.
    counted: Vec<usize>,
}

/// The round of a combat.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Round {
    Fire,
    Melee,
}

/// Fight a combat between the marching stack (`attackers`, in `from`) and
/// every enemy unit in `target`. `route` is the marching stack's route so
/// far, start first, for a marching loser's retreat (9.8).
pub fn fight<S: DieSource>(
    t: &mut Turn<'_, S>,
    order: usize,
    from: Hex,
    attackers: &[usize],
    leaders: &[String],
    target: Hex,
    lose_first: &[UnitId],
) -> Fought {
    let (a, d) = parties(t, from, attackers, leaders, target, lose_first);
    let (a_start, d_start) = (&a.counted, &d.counted);
    // Between river units alone (6.1) the log lists the boats and gunboats.
    let river_fight = a_start.is_empty() && d_start.is_empty();
    let listed = |t: &Turn<'_, S>, start: &[usize], p: &Party| -> Vec<UnitId> {
        let us = if river_fight { &p.units[..] } else { start };
        us.iter().map(|&u| t.state.units[u].id.clone()).collect()
    };
    t.events.push(Event::CombatBegins {
        order,
        attacker: from,
        defender: target,
        attackers: listed(t, a_start, &a),
        defenders: listed(t, d_start, &d),
    });
    let events_before = t.events.len();
    t.combats += 1;
    let elsewhere =
        if river_fight || a_start.is_empty() || d_start.is_empty() || t.resolver.is_none() {
            Resolution::Tables
        } else {
            let combat = as_told(t, order, &a, &d);
            ask_resolver(t, &combat)
        };
    let Some(played) = play(t, elsewhere, &a, &d) else {
        t.halted = true;
        return Fought {
            outcome: Outcome::Draw,
            retreat_to: None,
        };
    };
    let outcome = judge(t, order, &a, &d);
    british_leader_lost(t, events_before);
    let mahdist_won = match outcome {
        Outcome::AttackerWon if a.side == Side::Mahdist => Some((d_start, from)),
        Outcome::DefenderWon if d.side == Side::Mahdist => Some((a_start, target)),
        _ => None,
    };
    if let Some((losers, at)) = mahdist_won {
        match &played.named_captures {
            None => capture(t, losers, at),
            Some(named) => {
                for &u in losers {
                    if named.contains(&t.state.units[u].id) && capturable(t, u) {
                        take(t, u, at);
                    }
                }
            }
        }
    }
    Fought {
        outcome,
        retreat_to: played.retreat_to,
    }
}

/// The two sides of a combat: the marching stack in `from` and every enemy
/// unit and leader in `target`. Each side's losses: the march's LOSE
/// FIRST, then the side's standing order (9.4: "The owning player may
/// distribute all results").
fn parties<S: DieSource>(
    t: &Turn<'_, S>,
    from: Hex,
    attackers: &[usize],
    leaders: &[String],
    target: Hex,
    lose_first: &[UnitId],
) -> (Party, Party) {
    let enemy = t.side.enemy();
    let standing = |side: Side| {
        t.state
            .standing_lose_first
            .get(&side)
            .cloned()
            .unwrap_or_default()
    };
    let mut a_lose_first = lose_first.to_vec();
    a_lose_first.extend(standing(t.side));
    let mut a = Party {
        side: t.side,
        hex: from,
        units: attackers.to_vec(),
        leaders: leaders.to_vec(),
        lose_first: a_lose_first,
        counted: Vec::new(),
    };
    let mut d = Party {
        side: enemy,
        hex: target,
        units: t.units_at(target, enemy),
        leaders: t.leaders_at(target, enemy),
        lose_first: standing(enemy),
        counted: Vec::new(),
    };
    a.counted = counted(t, &a);
    d.counted = counted(t, &d);
    (a, d)
}

/// The units of a side that count: river units and the fleet are never
/// hit by land combat here, and do not count towards winning or losing
/// (9.8).
fn counted<S: DieSource>(t: &Turn<'_, S>, p: &Party) -> Vec<usize> {
    p.units
        .iter()
        .copied()
        .filter(|&u| {
            t.type_at(u)
                .is_some_and(|ty| !ty.kind.ignored_for_combat_result())
        })
        .collect()
}

/// What a combat played out gave besides its fates: the captures a result
/// from elsewhere names (`None`: the capture rolls of 9.9 decide), and
/// where it sends the loser.
struct Played {
    named_captures: Option<Vec<UnitId>>,
    retreat_to: Option<Hex>,
}

/// The fire and melee rounds on the tables, or a result from elsewhere
/// carried out; `None` when the resolver stops the turn.
fn play<S: DieSource>(t: &mut Turn<'_, S>, r: Resolution, a: &Party, d: &Party) -> Option<Played> {
    match r {
        Resolution::Stop => None,
        Resolution::Resolved(resolved) => {
            apply_resolved(t, &resolved, &[a, d]);
            Some(Played {
                named_captures: Some(resolved.captured),
                retreat_to: resolved.retreat,
            })
        }
        Resolution::Tables | Resolution::TablesNoted(_) => {
            if let Resolution::TablesNoted(text) = r {
                t.events.push(Event::Note { text });
            }
            // 7.3: one roll of the two gets the leader's rating, chosen
            // before the fire round.
            let a_led = leader_round(t, a);
            let d_led = leader_round(t, d);
            for round in [Round::Fire, Round::Melee] {
                let a_hits = roll_round(t, round, a, d, a_led == round);
                let d_hits = roll_round(t, round, d, a, d_led == round);
                // Simultaneous: both rolls are made before either result
                // applies.
                apply_hits(t, d, a_hits.as_ref(), round);
                apply_hits(t, a, d_hits.as_ref(), round);
            }
            Some(Played {
                named_captures: None,
                retreat_to: None,
            })
        }
    }
}

/// 9.8: "A stack loses a combat if it ends a melee round with at least
/// 50% of it's units disrupted or dead." The outcome, told in the log.
fn judge<S: DieSource>(t: &mut Turn<'_, S>, order: usize, a: &Party, d: &Party) -> Outcome {
    let (a_start, d_start) = (&a.counted, &d.counted);
    // Between river units alone no side counts (6.1).
    let river_fight = a_start.is_empty() && d_start.is_empty();
    let hurt = |t: &Turn<'_, S>, start: &[usize]| {
        start
            .iter()
            .filter(|&&u| {
                let unit = &t.state.units[u];
                unit.disrupted || !matches!(unit.status, Status::OnMap(_))
            })
            .count()
    };
    let (a_hurt, d_hurt) = (hurt(t, a_start), hurt(t, d_start));
    let a_lost = !a_start.is_empty() && a_hurt * 2 >= a_start.len();
    let d_lost = !d_start.is_empty() && d_hurt * 2 >= d_start.len();
    let tally = format!(
        "{} {} of {}, {} {} of {}",
        a.side,
        a_hurt,
        a_start.len(),
        d.side,
        d_hurt,
        d_start.len()
    );
    let outcome = match (a_lost, d_lost) {
        (false, true) => Outcome::AttackerWon,
        (true, false) => Outcome::DefenderWon,
        _ => Outcome::Draw,
    };
    t.events.push(Event::CombatResult {
        order,
        defender: d.hex,
        result: match outcome {
            Outcome::AttackerWon => format!("{} won", a.side),
            Outcome::DefenderWon => format!("{} won", d.side),
            Outcome::Draw if river_fight => {
                "drawn: boats and gunboats do not count for winning or losing (9.8)".into()
            }
            Outcome::Draw if a_lost => format!(
                "drawn: both sides ended with at least half their units disrupted or eliminated ({tally}; 9.8)"
            ),
            Outcome::Draw => format!(
                "drawn: neither side ended with half its units disrupted or eliminated ({tally}; 9.8)"
            ),
        },
    });
    outcome
}

/// The combat of order `order` between `a` and `d` as a resolver is told
/// it: the counted units of each side, the river units, leaders and
/// strengths.
fn as_told<S: DieSource>(t: &Turn<'_, S>, order: usize, a: &Party, d: &Party) -> Combat {
    let (a_start, d_start) = (&a.counted, &d.counted);
    let ids =
        |us: &[usize]| -> Vec<UnitId> { us.iter().map(|&u| t.state.units[u].id.clone()).collect() };
    let strength = |us: &[usize]| -> u32 { us.iter().map(|&u| t.state.units[u].strength).sum() };
    let river: Vec<usize> = a
        .units
        .iter()
        .chain(&d.units)
        .copied()
        .filter(|u| !a_start.contains(u) && !d_start.contains(u))
        .filter(|&u| t.type_at(u).is_some_and(|ty| ty.kind != UnitKind::Fleet))
        .collect();
    Combat {
        key: BattleKey {
            month: t.state.month,
            turn: if t.ambush_charge {
                t.side.enemy()
            } else {
                t.side
            },
            number: t.combats,
        },
        attacker: a.side,
        order,
        attacker_hex: a.hex,
        defender_hex: d.hex,
        attackers: ids(a_start),
        defenders: ids(d_start),
        river_units: ids(&river),
        attacker_leaders: a.leaders.clone(),
        defender_leaders: d.leaders.clone(),
        strength: (strength(a_start), strength(d_start)),
        ambush: t.ambush_charge,
    }
}

/// Ask the turn's resolver how `combat` is resolved; its dice are the
/// turn's. With no resolver, the tables.
fn ask_resolver<S: DieSource>(t: &mut Turn<'_, S>, combat: &Combat) -> Resolution {
    let Some(resolver) = t.resolver.take() else {
        return Resolution::Tables;
    };
    let dice = &mut *t.dice;
    let mut roll = |kind: DiceKind, purpose: String| dice.roll(kind, purpose);
    let answer = resolver.resolve(t.scn, &t.state, combat, &mut roll);
    t.resolver = Some(resolver);
    answer
}

/// Carry out a result from elsewhere: each unit's fate (a unit disrupted
/// before keeps its disruption, 9.7; the fleet is never hit, 8.25), then
/// leaders left alone go (7.2).
fn apply_resolved<S: DieSource>(t: &mut Turn<'_, S>, r: &Resolved, parties: &[&Party]) {
    t.events.push(Event::Note {
        text: format!("the combat is resolved {}", r.how),
    });
    t.events.extend(r.log.iter().cloned());
    let why = Decision::Default(format!("the result {}", r.how));
    for p in parties {
        for &u in &p.units {
            if t.type_at(u).is_none_or(|ty| ty.kind == UnitKind::Fleet) {
                continue;
            }
            let id = t.state.units[u].id.clone();
            match r.fates.get(&id) {
                Some(Fate::Eliminated) => {
                    losses::eliminate_unit(t, u, p.hex, "the battle's result", why.clone());
                }
                Some(Fate::Disrupted) if !t.state.units[u].disrupted => {
                    t.state.units[u].disrupted = true;
                    t.events.push(Event::Disrupted {
                        unit: id,
                        hex: p.hex,
                        cause: "the battle's result".into(),
                        decided_by: why.clone(),
                    });
                }
                _ => {}
            }
        }
        t.remove_lone_leaders(
            p.hex,
            "every unit with him was eliminated (the battle's result)",
        );
    }
}

/// Rule 7.3: "The tactical rating of 1 leader may be added to the fire or
/// melee die roll of the owning stack": to one of the two rolls of a
/// combat, not both. Ruling (docs/rules.md 7.3): the roll of the arm the
/// stack fights with, chosen before the fire round: the fire roll when at
/// least half of its melee factors also fire (rifles, camel corps, guns),
/// else the melee roll (spearmen and horse); gunboats fighting river units,
/// which have no melee, use it on their fire roll.
fn leader_round<S: DieSource>(t: &Turn<'_, S>, me: &Party) -> Round {
    let fire = round_factors(t, Round::Fire, me).factors2;
    let melee = round_factors(t, Round::Melee, me).factors2;
    // Gunboats against river units roll in the fire round only (6.1).
    if melee == 0 || (fire > 0 && fire * 2 >= melee) {
        Round::Fire
    } else {
        Round::Melee
    }
}

/// What a side brings to one round: its factors (in halves), by quality
/// class, and its gunboats.
struct RoundFactors {
    factors2: u32,
    by_quality: BTreeMap<Quality, u32>,
    gunboats: u32,
}

/// Whether the fleet's guns count: only "when units in the same hex are
/// in combat in a Mahdist march phase" (8.25), so not when Mahdist
/// ambushers charge in the Egyptian march phase.
fn fleet_fires<S: DieSource>(t: &Turn<'_, S>, me: &Party) -> bool {
    t.side == Side::Mahdist && !t.ambush_charge && me.side == Side::Egyptian
}

fn round_factors<S: DieSource>(t: &Turn<'_, S>, round: Round, me: &Party) -> RoundFactors {
    let fleet = fleet_fires(t, me);
    let mut f = RoundFactors {
        factors2: 0,
        by_quality: BTreeMap::new(),
        gunboats: 0,
    };
    for &u in &me.units {
        let unit = &t.state.units[u];
        if !matches!(unit.status, Status::OnMap(_)) {
            continue;
        }
        let Some(ty) = t.type_at(u) else {
            continue;
        };
        if ty.kind == UnitKind::Gunboat {
            f.gunboats += 1;
        }
        let takes_part = match round {
            Round::Fire => {
                (ty.fires && !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
                    || (ty.kind == UnitKind::Fleet && fleet)
            }
            Round::Melee => ty.kind.can_melee(),
        };
        if !takes_part {
            continue;
        }
        let half = if unit.disrupted {
            unit.strength
        } else {
            unit.strength * 2
        };
        f.factors2 += half;
        *f.by_quality.entry(ty.quality).or_default() += half;
    }
    f
}

/// Roll one side's fire or melee, with its leader's tactical rating if
/// `led` (7.3); `None` if it has nothing to roll with.
fn roll_round<S: DieSource>(
    t: &mut Turn<'_, S>,
    round: Round,
    me: &Party,
    them: &Party,
    led: bool,
) -> Option<(i32, BTreeMap<Quality, usize>)> {
    let RoundFactors {
        factors2,
        by_quality,
        gunboats,
    } = round_factors(t, round, me);
    // Gunboats against river units (6.1): the gunboats' side rolls in the
    // fire round with its gunboat modifier though nothing of it fires
    // ("if not it still has a dice modifier", 9.5); no quality or ratio.
    let them_afloat: Vec<usize> = hittable(t, &them.units, Round::Fire);
    let gunboat_fire = round == Round::Fire
        && factors2 == 0
        && gunboats > 0
        && !them_afloat.is_empty()
        && them_afloat
            .iter()
            .all(|&u| t.type_at(u).is_some_and(|ty| ty.kind.is_river_unit()));
    if factors2 == 0 && !gunboat_fire {
        return None;
    }
    let enemy_units: Vec<usize> = them
        .units
        .iter()
        .copied()
        .filter(|&u| matches!(t.state.units[u].status, Status::OnMap(_)))
        .filter(|&u| {
            t.type_at(u)
                .is_some_and(|ty| !ty.kind.ignored_for_combat_result())
        })
        .collect();
    if enemy_units.is_empty() && !gunboat_fire {
        return None;
    }
    let ratio = (!gunboat_fire).then(|| factors2 * 100 / 2 / enemy_units.len().max(1) as u32);
    let table: &CombatTable = match round {
        Round::Fire => &t.scn.tables.fire,
        Round::Melee => &t.scn.tables.melee,
    };
    // The class giving most factors, ties to the better class.
    let quality = by_quality
        .iter()
        .max_by_key(|(q, f)| (**f, std::cmp::Reverse(**q)))
        .map(|(q, _)| *q);
    let leader = if led {
        t.ruling_leader(&me.leaders, None, false)
    } else {
        None
    };
    let enemy_beside_river = t.scn.map.is_riverside(them.hex);
    let fleet = fleet_fires(t, me)
        && me
            .units
            .iter()
            .any(|&u| t.type_at(u).is_some_and(|ty| ty.kind == UnitKind::Fleet));
    // Besiegers attacked by a relief force fight as if in the besieged
    // hex (9.12) but get no settlement modifier there.
    let cx = RollContext {
        side: Some(me.side),
        month: Some(t.state.month),
        units: t.profile(&me.units),
        terrain: t.scn.map.terrain(me.hex),
        in_settlement: covered(t, me),
        enemy_in_settlement: covered(t, them),
        marching: me.side == t.side,
        fire_ratio: ratio.filter(|_| round == Round::Fire),
        melee_ratio: ratio.filter(|_| round == Round::Melee),
        gunboats_beside_river: if enemy_beside_river { gunboats } else { 0 },
        fleet,
        leader,
        ..RollContext::default()
    };
    let mut mods = Vec::new();
    if let Some(q) = quality
        && let Some((_, v)) = table.quality_modifiers.iter().find(|(x, _)| *x == q)
        && *v != 0
    {
        mods.push((format!("{} quality", q.letter()), *v));
    }
    mods.extend(modifiers::applicable(&table.modifiers, &cx));
    let name = match round {
        Round::Fire => "fire table",
        Round::Melee => "melee table",
    };
    let tos: Vec<i32> = table.rows.iter().map(|r| r.to).collect();
    let rows = table.rows.clone();
    // The units hit: in the fire round the enemy's boats and gunboats
    // count too, by their class (9.5); the fleet never does (8.25).
    let hit = hittable(t, &them.units, round);
    let mut counts: BTreeMap<Quality, usize> = BTreeMap::new();
    for &u in &hit {
        if let Some(ty) = t.type_at(u) {
            *counts.entry(ty.quality).or_default() += 1;
        }
    }
    let dice = table.dice;
    let total = t.table_roll(dice, format!("{} {name}", me.side), name, mods, |v| {
        let i = rows
            .iter()
            .position(|r| v <= r.to)
            .unwrap_or(rows.len().saturating_sub(1));
        let row = &rows[i];
        let parts: Vec<String> = Quality::ALL
            .iter()
            .map(|q| {
                let h = row.against(*q);
                if h.0 == 0 && h.1 == 0 {
                    format!("{} -", q.letter())
                } else {
                    format!("{} {}/{}", q.letter(), h.0, h.1)
                }
            })
            .collect();
        format!("{}: {}", modifiers::range_label(&tos, i), parts.join(", "))
    });
    Some((total, counts))
}

/// Whether a side fights with the cover of the town, village or oasis it
/// stands in. Ambushers who charge out of a village fight in the open: the
/// party attacks the column where it stands (ruling, docs/rules.md,
/// "Ambushes").
fn covered<S: DieSource>(t: &Turn<'_, S>, p: &Party) -> bool {
    t.scn.map.settlement_at(p.hex).is_some() && !(t.ambush_charge && p.side == Side::Mahdist)
}

/// Boats and gunboats are hit only by fire; the fleet never (9.5, 8.25).
fn can_be_hit(kind: UnitKind, round: Round) -> bool {
    kind != UnitKind::Fleet && (!kind.is_river_unit() || round == Round::Fire)
}

/// The units of a side still on the map that this round can hit.
fn hittable<S: DieSource>(t: &Turn<'_, S>, units: &[usize], round: Round) -> Vec<usize> {
    units
        .iter()
        .copied()
        .filter(|&u| matches!(t.state.units[u].status, Status::OnMap(_)))
        .filter(|&u| t.type_at(u).is_some_and(|ty| can_be_hit(ty.kind, round)))
        .collect()
}

/// Apply a side's roll to the other side's units.
fn apply_hits<S: DieSource>(
    t: &mut Turn<'_, S>,
    target: &Party,
    roll: Option<&(i32, BTreeMap<Quality, usize>)>,
    round: Round,
) {
    let Some((total, counts)) = roll else { return };
    let table = match round {
        Round::Fire => &t.scn.tables.fire,
        Round::Melee => &t.scn.tables.melee,
    };
    let Some(row) = table
        .rows
        .iter()
        .find(|r| *total <= r.to)
        .or(table.rows.last())
        .cloned()
    else {
        return;
    };
    let alive = hittable(t, &target.units, round);
    let cause = match round {
        Round::Fire => "fire",
        Round::Melee => "melee",
    };
    let plan = plan_hits(&row, counts);
    losses::distribute(
        t,
        target.hex,
        &alive,
        &target.units,
        &plan,
        cause,
        &target.lose_first,
    );
}

/// The results of one table row against a stack with `counts` units of
/// each class (9.5): each class suffers the row's percentages of its own
/// units ("a stack composed of differing quality units may have those units
/// suffer different combat results"); the worst affected class comes first
/// (most eliminations, then most disruptions, then the lower quality), and
/// the totals are capped at what the row gives against the whole stack at
/// its lowest class ("the total loss caused may not be greater than if the
/// whole stack was of the morale of the lowest quality units"), the better
/// affected classes losing what the cap takes away.
pub(crate) fn plan_hits(row: &CombatRow, counts: &BTreeMap<Quality, usize>) -> Vec<ClassHits> {
    let n: usize = counts.values().sum();
    let Some(lowest) = counts.keys().max().copied() else {
        return Vec::new();
    };
    let cap = row.against(lowest);
    let (mut dis_left, mut eli_left) = (
        losses::share(n, cap.disrupt()),
        losses::share(n, cap.eliminate()),
    );
    let mut plan: Vec<ClassHits> = counts
        .iter()
        .map(|(q, &c)| {
            let h = row.against(*q);
            ClassHits {
                class: *q,
                disrupt: losses::share(c, h.disrupt()),
                eliminate: losses::share(c, h.eliminate()),
            }
        })
        .collect();
    plan.sort_by_key(|h| {
        let pct = row.against(h.class);
        std::cmp::Reverse((pct.eliminate(), pct.disrupt(), h.class))
    });
    for h in &mut plan {
        h.disrupt = h.disrupt.min(dis_left);
        h.eliminate = h.eliminate.min(eli_left);
        dis_left -= h.disrupt;
        eli_left -= h.eliminate;
    }
    plan.retain(|h| h.disrupt > 0 || h.eliminate > 0);
    plan
}

/// Rule 9.9: a winning Mahdist captures eliminated gun and rifle units.
fn capture<S: DieSource>(t: &mut Turn<'_, S>, losers: &[usize], winner_hex: Hex) {
    let rules = t.scn.tables.capture.guns_and_rifles.clone();
    for &u in losers {
        if matches!(t.state.units[u].status, Status::OnMap(_)) {
            continue;
        }
        let Some(ty) = t.type_at(u) else {
            continue;
        };
        if !ty.fires || ty.kind == UnitKind::Fleet {
            continue;
        }
        if ty.captured_as.is_none() {
            continue;
        }
        let Some(&(_, need)) = rules.iter().find(|(n, _)| *n == ty.nation) else {
            continue;
        };
        let id = t.state.units[u].id.clone();
        let purpose = format!("capture of {id}");
        let words = ["captured", "not captured"];
        if !t.roll_at_least(DiceKind::D6, purpose, "capture (9.9)", need, words) {
            continue;
        }
        take(t, u, winner_hex);
    }
}

/// Whether the Mahdists could capture unit `u` if they won and it was
/// eliminated (9.9): a gun or rifle unit of a nation the capture table
/// names, with a Mahdist counter to become.
fn capturable<S: DieSource>(t: &Turn<'_, S>, u: usize) -> bool {
    let rules = &t.scn.tables.capture.guns_and_rifles;
    !matches!(t.state.units[u].status, Status::OnMap(_))
        && t.type_at(u).is_some_and(|ty| {
            ty.fires
                && ty.kind != UnitKind::Fleet
                && ty.captured_as.is_some()
                && rules.iter().any(|(n, _)| *n == ty.nation)
        })
}

/// The eliminated unit `u` is taken by the Mahdists: a spare counter of
/// the type it becomes goes on the map at `winner_hex` (9.9).
fn take<S: DieSource>(t: &mut Turn<'_, S>, u: usize, winner_hex: Hex) {
    let id = t.state.units[u].id.clone();
    let Some(into) = t.type_at(u).and_then(|ty| ty.captured_as.clone()) else {
        return;
    };
    let spare =
        t.state.units.iter().position(|x| {
            *x.unit_type == into && matches!(x.status, Status::Pool | Status::Reserve)
        });
    match spare {
        Some(s) => {
            t.state.units[s].status = Status::OnMap(winner_hex);
            t.state.units[s].disrupted = false;
            let new = t.state.units[s].id.clone();
            t.events.push(Event::Captured {
                unit: id,
                becomes: Some(new),
                hex: winner_hex,
                owner: "Mahdist".into(),
                rule: "9.9".into(),
            });
        }
        None => t.events.push(Event::Captured {
            unit: id,
            becomes: None,
            hex: winner_hex,
            owner: "Mahdist".into(),
            rule: "9.9".into(),
        }),
    }
}

/// What a retreat is given: who retreats and what limits the way (9.8).
pub struct Retreat<'r> {
    pub side: Side,
    /// Where the losers stand.
    pub hex: Hex,
    /// The losers: the units that fought. Units 9.4 kept out of the
    /// combat ("did not begin the game turn as part of that stack") did not
    /// lose it and stay; boats, gunboats and the fleet never retreat by land.
    pub units: &'r [usize],
    /// Leaders going with them (the rest go only if no unit is left).
    pub leaders: &'r [String],
    /// A marching loser's route so far, start first, the combat hex last:
    /// its retreat follows it back exactly. `None` for a defender, or a
    /// marching stack that had not moved.
    pub route: Option<&'r [Hex]>,
    /// The enemy hex the combat was against.
    pub away_from: Hex,
    /// The owner's chosen direction (the march's RETREAT order), if any;
    /// for a loser in a town, a RETREAT order is its choice to leave.
    pub towards: Option<Hex>,
}

/// Rule 9.8: "the loser must retreat up to it's full movement allowance but
/// at least 1 hex unless it is in a town or village. Losing stacks in towns
/// and villages never have to retreat but may choose to do so. ... If the
/// marching stack loses it must retreat as above but all retreating hexes
/// must exactly follow the route that the stack took up to the combat hex."
///
/// Each hex of a retreat is a legal step for the retreating side, as in a
/// march: no sea, no enemy hex, no river crossing beside an enemy gunboat
/// (8.21), no besieged friendly hex (9.12), no hex a scenario rule forbids
/// (2.2); terrain and river crossings cost movement points (8.21), and the
/// stack goes no further than its allowance (halved units count halved,
/// 9.7), the first hex excepted ("at least 1 hex"). Where the owner has not
/// said, it goes until no enemy land unit is next to it (ruling,
/// docs/rules.md 9.8). A loser in a town or village stays unless its
/// orders say RETREAT; a loser at an oasis retreats like one in the open
/// (the rule exempts "towns and villages" only). A stack that cannot take its first hex is
/// eliminated. Returns where the losers end, or `None` if eliminated.
pub fn retreat<S: DieSource>(t: &mut Turn<'_, S>, r: Retreat<'_>) -> Option<Hex> {
    let hex = r.hex;
    let units: Vec<usize> = r
        .units
        .iter()
        .copied()
        .filter(|&u| t.state.units[u].hex() == Some(hex))
        .filter(|&u| {
            t.type_at(u)
                .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
        })
        .collect();
    if units.is_empty() {
        return Some(hex);
    }
    if stays_in_town(t, &r) {
        return Some(hex);
    }
    let back: Option<Vec<Hex>> = r
        .route
        .filter(|route| route.len() >= 2)
        .map(|route| route[..route.len() - 1].iter().rev().copied().collect());
    let (path, first_blocked) = retreat_path(t, &r, &units, back.as_deref());
    let Some(&to) = path.last() else {
        no_retreat(t, &r, &units, first_blocked);
        return None;
    };
    fall_back(t, &r, &units, &path);
    let decided_by = if back.is_some() {
        Decision::Default(format!(
            "back along the route it came by, {} {} (9.8)",
            path.len(),
            if path.len() == 1 { "hex" } else { "hexes" }
        ))
    } else if r.towards.is_some() {
        Decision::Orders
    } else {
        Decision::Default(format!(
            "{} {} away from the enemy, until clear of it or its movement is spent (9.8)",
            path.len(),
            if path.len() == 1 { "hex" } else { "hexes" }
        ))
    };
    t.events.push(Event::Retreat {
        side: r.side,
        from: hex,
        to: Some(to),
        decided_by,
    });
    Some(to)
}

/// "Losing stacks in towns and villages never have to retreat but may
/// choose to do so": a loser in a town or village with no RETREAT order
/// stays, and the log says so. Ambushers who charged out of a village
/// retreat from it as from the open (ruling, docs/rules.md, "Ambushes").
fn stays_in_town<S: DieSource>(t: &mut Turn<'_, S>, r: &Retreat<'_>) -> bool {
    let party = t.ambush_charge && r.side == Side::Mahdist;
    if !town_or_village(t, r.hex) || r.towards.is_some() || party {
        return false;
    }
    t.events.push(Event::Retreat {
        side: r.side,
        from: r.hex,
        to: None,
        decided_by: Decision::Default(
            "a loser in a town or village need not retreat, and stays (9.8)".into(),
        ),
    });
    true
}

/// The hexes of the retreat, one legal step at a time within the
/// allowance: back along the route (`back`) for a marching loser, else the
/// step with the fewest enemies next to it, towards the chosen hex, away
/// from the enemy. With no hex at all, why the first step back was barred.
fn retreat_path<S: DieSource>(
    t: &Turn<'_, S>,
    r: &Retreat<'_>,
    units: &[usize],
    back: Option<&[Hex]>,
) -> (Vec<Hex>, Option<String>) {
    let occ = Occupancy::for_side(t, r.side);
    let allowance = allowance_of(t, units);
    let mut path: Vec<Hex> = Vec::new();
    let mut at = r.hex;
    let mut spent = 0u32;
    let mut first_blocked = None;
    loop {
        let options: Vec<(Hex, u32)> = match back {
            Some(b) => b
                .get(path.len())
                .and_then(|h| step_back(t, r.side, &occ, at, *h, &mut first_blocked))
                .into_iter()
                .collect(),
            None => steps_away(t, r, &occ, at, &path),
        };
        let pick = options
            .into_iter()
            .filter(|(_, c)| path.is_empty() || spent + c <= allowance)
            .min_by_key(|(h, c)| {
                let threats = h
                    .neighbours()
                    .iter()
                    .filter(|n| t.land_occupied_by(**n, r.side.enemy()))
                    .count();
                let aim = r.towards.map_or(0, |a| h.distance(a));
                (
                    threats,
                    aim,
                    std::cmp::Reverse(h.distance(r.away_from)),
                    *c,
                    h.row,
                    h.col,
                )
            });
        let Some((h, c)) = pick else { break };
        spent += c;
        path.push(h);
        at = h;
        if far_enough(t, r, back.is_some(), at) || spent >= allowance {
            break;
        }
    }
    (path, first_blocked)
}

/// The next hex back along the route and its cost, if the step is legal;
/// else why not, kept in `first_blocked`. A hex holding enemy boats or
/// gunboats is an enemy hex to a retreat: only a marching stack displaces
/// river units (6.1: "captured by the marching player"; ruling,
/// docs/rules.md 9.8).
fn step_back<S: DieSource>(
    t: &Turn<'_, S>,
    side: Side,
    occ: &Occupancy,
    at: Hex,
    h: Hex,
    first_blocked: &mut Option<String>,
) -> Option<(Hex, u32)> {
    if t.occupied_by(h, side.enemy()) {
        *first_blocked = Some(format!(
            "{} holds enemy boats or gunboats (6.1)",
            t.scn.map.describe(h)
        ));
        return None;
    }
    enter_cost(t, occ, at, h)
        .map_err(|e| *first_blocked = Some(e.reason(&t.scn.map, occ, at, h)))
        .ok()
        .map(|c| (h, c))
}

/// The legal steps from `at` not back into the combat hex or the path, and
/// their costs (no hex holding enemy boats or gunboats, as [`step_back`]).
fn steps_away<S: DieSource>(
    t: &Turn<'_, S>,
    r: &Retreat<'_>,
    occ: &Occupancy,
    at: Hex,
    path: &[Hex],
) -> Vec<(Hex, u32)> {
    at.neighbours()
        .into_iter()
        .filter(|h| *h != r.hex && !path.contains(h) && !t.occupied_by(*h, r.side.enemy()))
        .filter_map(|h| enter_cost(t, occ, at, h).ok().map(|c| (h, c)))
        .collect()
}

/// Far enough: the chosen hex reached, or (by default) clear of the enemy;
/// a friendly town or village is a refuge too.
fn far_enough<S: DieSource>(t: &Turn<'_, S>, r: &Retreat<'_>, back: bool, at: Hex) -> bool {
    let threatened = at
        .neighbours()
        .iter()
        .any(|n| t.land_occupied_by(*n, r.side.enemy()));
    match r.towards {
        Some(a) if !back => at == a,
        _ => !threatened || (town_or_village(t, at) && t.state.control.get(&at) == Some(&r.side)),
    }
}

/// "A stack that cannot take its first hex is eliminated" (9.8).
fn no_retreat<S: DieSource>(
    t: &mut Turn<'_, S>,
    r: &Retreat<'_>,
    units: &[usize],
    first_blocked: Option<String>,
) {
    let why = match first_blocked {
        Some(reason) => {
            format!("no retreat back along its route ({reason}): the stack is eliminated (9.8)")
        }
        None => "no hex to retreat to: the stack is eliminated (9.8)".into(),
    };
    t.events.push(Event::Retreat {
        side: r.side,
        from: r.hex,
        to: None,
        decided_by: Decision::Default(why),
    });
    let n = units.len() as u32;
    let since = t.events.len();
    losses::apply(t, r.hex, units, 0, n, "no retreat possible", &[]);
    british_leader_lost(t, since);
}

/// The losers move to the path's end with their leaders; any other leader
/// goes too if no unit of his is left in the hex (a leader never stands
/// alone); settlements on the path come under the side's control.
fn fall_back<S: DieSource>(t: &mut Turn<'_, S>, r: &Retreat<'_>, units: &[usize], path: &[Hex]) {
    let (hex, side) = (r.hex, r.side);
    let Some(&to) = path.last() else {
        return;
    };
    for &u in units {
        t.state.units[u].status = Status::OnMap(to);
    }
    let nobody_left = !t.occupied_by(hex, side);
    for l in t
        .state
        .leaders
        .iter_mut()
        .filter(|l| l.side == side && !l.removed && l.hex == Some(hex))
    {
        if nobody_left || r.leaders.contains(&l.name) {
            l.hex = Some(to);
        }
    }
    for &h in path {
        if t.scn.map.settlement_at(h).is_some() {
            t.state.control.insert(h, side);
        }
    }
}

/// Rule 9.8: "Losing stacks in towns and villages never have to retreat":
/// whether `hex` is a town or village (an oasis is not: it is besieged like
/// them, 9.12, but the retreat rule names towns and villages only).
fn town_or_village<S: DieSource>(t: &Turn<'_, S>, hex: Hex) -> bool {
    t.scn
        .map
        .settlement_at(hex)
        .is_some_and(|p| matches!(p.kind, PlaceKind::Town | PlaceKind::Village))
}

/// Rule 4.2: note when a stack holding a British leader was wholly
/// eliminated in combat (its leaders removed since `since`).
pub fn british_leader_lost<S: DieSource>(t: &mut Turn<'_, S>, since: usize) {
    let lost = t.events[since..].iter().any(|e| match e {
        Event::LeaderRemoved { leader, .. } => t
            .scn
            .units
            .leader(leader)
            .is_some_and(|l| super::victory::is_british(l.nation)),
        _ => false,
    });
    if lost {
        t.state.british_leader_stack_destroyed = true;
    }
}
