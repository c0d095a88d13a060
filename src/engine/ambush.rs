//! The optional ambush rule: seed 002, "Mahdist Ambushes", at the
//! campaign's scale (rulings in docs/rules.md, "Ambushes").
//!
//! The seed: "Every turn there is a chance that the Mahdists have lain in
//! wait in some appropriate terrain ... for some unsuspecting Imperial
//! forces to stumble upon. ... There is a 20% chance of an ambush taking
//! place then and there. If this does occur, roll a ten sided dice (d10)
//! and consult the table below to determine the composition of the
//! ambushing party. ... To determine what action the ambushers make a
//! roll. In this case this would be "Enemy in Open" table in the Mahdist
//! Reaction table. The ambushers count the troops that they see from the
//! ambush point for strength considerations." And: "If an area has been
//! cleared by Imperial forces then it can no longer be considered by the
//! umpire as a potential ambush point. It is only appropriate if Imperial
//! troops are approaching a pass, near scrub or an abandoned building etc."
//!
//! Here: when an Egyptian stack with land units is about to enter, by
//! land, a hex of ambush ground ([`crate::geo::Map::is_ambush_ground`])
//! that no unit holds, no Egyptian unit held when the player turn began,
//! and no ambush roll has been made for this turn, with a Mahdist land
//! unit within the rule's radius, the dice decide whether an ambush lies
//! there: once a march at most. Each cavalry or camel corps unit in the
//! stack lowers the chance (its scouts spring the ambush). The d10 gives
//! the party, drawn as counters from the nearest Mahdist stack (or the
//! pool, whose counters go back to it after the charge); the party rolls
//! on the "enemy in open" row against the marching stack's strength. A
//! charge ("A") is an attack from the ambush hex on the stack, fought by
//! the rules of combat (9.1-9.9) without the fleet's guns (8.25) or the
//! cover of the ambush hex; any other letter and the ambushers let the
//! column pass. No party lies in wait where a scenario rule closes the hex
//! to the Mahdists (2.2).

use super::Turn;
use super::combat::{self, Outcome};
use super::events::{Event, TableRoll};
use crate::dice::{DiceKind, DieSource};
use crate::geo::Hex;
use crate::scenario::reactions::{Band, Letter, Reactions, Situation};
use crate::scenario::{Side, UnitKind};
use crate::state::Status;

/// What came of an ambush roll for a march into `next`.
pub(super) enum Ambush {
    /// No roll was due, no ambush lay there, or the ambushers let the
    /// column pass: the march goes on.
    None,
    /// The ambushers attacked; the combat's outcome (the Mahdists are the
    /// attacker).
    Fought(combat::Fought),
}

/// Whether an ambush roll is due for the Egyptian stack of `column` (unit
/// indices) standing in `from` and about to enter `next`.
fn due<S: DieSource>(t: &Turn<'_, S>, from: Hex, next: Hex, column: &[usize]) -> bool {
    t.state.options.ambushes
        && t.side == Side::Egyptian
        && !column.is_empty()
        && t.scn.map.is_ambush_ground(next)
        && !t.ambush_cleared.contains(&next)
        && from != next
        && !t.state.units.iter().any(|u| u.hex() == Some(next))
        && !t
            .at_start
            .iter()
            .zip(&t.state.units)
            .any(|(h, u)| *h == Some(next) && u.side == Side::Egyptian)
        // 2.2, scenario 1: "No Mahdist unit may ever enter any hex adjacent
        // to the Nile above (flowing North from) and including Abou Hamed":
        // no party lies in wait there.
        && !super::movement::banned_by_river(t.scn, Side::Mahdist, next)
}

/// The Mahdist land units of the stack the ambushers come from: the
/// nearest Mahdist stack with land units within the rule's radius of
/// `next` (ties: the larger, then the first in row order), and its hex.
fn nearest_stack<S: DieSource>(t: &Turn<'_, S>, next: Hex) -> Option<(Hex, Vec<usize>)> {
    let radius = t.scn.tables.ambush.radius;
    type Key = (u32, std::cmp::Reverse<usize>, (i32, i32), Hex);
    let mut best: Option<Key> = None;
    for s in t.state.stacks() {
        if s.side != Side::Mahdist {
            continue;
        }
        let land = s
            .units
            .iter()
            .filter(|u| {
                t.unit_type(u)
                    .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
            })
            .count();
        let d = s.hex.distance(next);
        if land == 0 || d > radius {
            continue;
        }
        let key = (d, std::cmp::Reverse(land), (s.hex.row, s.hex.col), s.hex);
        if best.as_ref().is_none_or(|b| key < *b) {
            best = Some(key);
        }
    }
    let hex = best?.3;
    let land: Vec<usize> = t
        .units_at(hex, Side::Mahdist)
        .into_iter()
        .filter(|&u| {
            t.type_at(u)
                .is_some_and(|ty| !ty.kind.is_river_unit() && ty.kind != UnitKind::Fleet)
        })
        .collect();
    Some((hex, land))
}

/// The chance of an ambush in percent for a stack with `mounted` cavalry
/// and camel corps units, and the words that explain it.
pub fn chance(base: u32, reduction: u32, minimum: u32, mounted: usize) -> (u32, String) {
    let mounted_u = u32::try_from(mounted).unwrap_or(u32::MAX);
    let cut = reduction.saturating_mul(mounted_u);
    let floor = minimum.min(base);
    let chance = base.saturating_sub(cut).max(floor);
    let why = if mounted == 0 || cut == 0 {
        format!("{base}%")
    } else {
        let units = crate::words::count(
            mounted_u,
            "cavalry or camel corps unit",
            "cavalry or camel corps units",
        );
        let floor_words = if chance == floor && base.saturating_sub(cut) < floor {
            format!(", never under {floor}%")
        } else {
            String::new()
        };
        format!("{chance}% ({base}%, {reduction} less for each of {units} scouting{floor_words})")
    };
    (chance, why)
}

/// The ambush roll for the Egyptian stack `column` (with `leaders`) in
/// `from`, about to enter `next` in order `i`'s march, and what follows:
/// the party, its reaction and, on a charge, the combat. The caller deals
/// with the marching stack after a combat (its retreat and its halt); the
/// ambushers' retreat, if they lose, is made here.
pub(super) fn lie_in_wait<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    from: Hex,
    next: Hex,
    column: &[usize],
) -> Ambush {
    if !due(t, from, next, column) {
        return Ambush::None;
    }
    let Some((source, stack)) = nearest_stack(t, next) else {
        return Ambush::None;
    };
    t.ambush_cleared.insert(next);
    let reactions = t.scn.reactions.clone();
    if !sprung(t, next, column, &reactions) {
        return Ambush::None;
    }
    let Some(party) = roll_party(t, next, source, &stack, &reactions) else {
        return Ambush::None;
    };
    if party.units.is_empty() {
        return Ambush::None;
    }
    if !charges(t, next, column, &party, &reactions) {
        let_pass(t, next, source, &party);
        return Ambush::None;
    }
    charge(t, i, from, next, source, &party)
}

/// The D100 roll: "There is a 20% chance of an ambush taking place then
/// and there", less for the column's cavalry and camel corps scouts.
fn sprung<S: DieSource>(
    t: &mut Turn<'_, S>,
    next: Hex,
    column: &[usize],
    reactions: &Reactions,
) -> bool {
    let rules = &t.scn.tables.ambush;
    let mounted = column
        .iter()
        .filter(|&&u| {
            t.type_at(u)
                .is_some_and(|ty| matches!(ty.kind, UnitKind::Cavalry | UnitKind::CamelCorps))
        })
        .count();
    let (chance, why) = chance(
        reactions.ambush_chance,
        rules.scout_reduction_percent,
        rules.minimum_percent,
        mounted,
    );
    let place = t.scn.map.describe(next);
    let radius = rules.radius;
    let roll = t.dice.roll(
        DiceKind::D100,
        format!("an ambush at {place} (Mahdists within {radius} hexes)"),
    );
    let total = roll.result;
    let sprung = u32::try_from(total).is_ok_and(|r| r <= chance);
    t.events.push(Event::Rolled(TableRoll {
        roll,
        modifiers: Vec::new(),
        total,
        table: "ambush".into(),
        line: format!(
            "up to {chance} ({why}): {}",
            if sprung { "an ambush" } else { "no ambush" }
        ),
    }));
    sprung
}

/// The ambushing party: its counters, their names, those drawn from the
/// pool, and the composition table's words for it.
struct Party {
    units: Vec<usize>,
    names: Vec<String>,
    from_pool: Vec<usize>,
    text: String,
}

impl Party {
    /// Every counter of the party came from the pool.
    fn all_from_pool(&self) -> bool {
        self.from_pool.len() == self.units.len()
    }
}

/// "roll a ten sided dice (d10) and consult the table below to determine
/// the composition of the ambushing party": the party drawn as counters
/// from the stack at `source` (`stack`) and the pool.
fn roll_party<S: DieSource>(
    t: &mut Turn<'_, S>,
    next: Hex,
    source: Hex,
    stack: &[usize],
    reactions: &Reactions,
) -> Option<Party> {
    let place = t.scn.map.describe(next);
    let who = t
        .dice
        .roll(DiceKind::D10, format!("the ambushing party at {place}"));
    let k = usize::try_from(who.result - 1)
        .unwrap_or(0)
        .min(reactions.ambush.len().saturating_sub(1));
    let party_line = reactions.ambush.get(k)?;
    let rules = &t.scn.tables.ambush;
    let wanted = rules
        .party_units
        .iter()
        .find(|(kind, _)| *kind == party_line.kind)
        .map(|(_, ty)| ty.clone())
        .unwrap_or_else(|| t.scn.tables.town_gains.recruit_unit.clone());
    let n = usize::try_from(party_line.men.div_ceil(rules.men_per_unit.max(1)))
        .unwrap_or(1)
        .max(1);
    let units = draw_party(t, stack, &wanted, n);
    let party = Party {
        names: t.unit_ids(&units),
        from_pool: units
            .iter()
            .copied()
            .filter(|&u| t.state.units[u].status == Status::Pool)
            .collect(),
        text: party_line.text.clone(),
        units,
    };
    let source_words = if party.from_pool.is_empty() {
        format!("from the Mahdist stack at {}", t.scn.map.describe(source))
    } else if party.all_from_pool() {
        "from the pool".to_string()
    } else {
        format!(
            "from the Mahdist stack at {} and the pool",
            t.scn.map.describe(source)
        )
    };
    let count = party.units.len();
    t.events.push(Event::Rolled(TableRoll {
        roll: who,
        modifiers: Vec::new(),
        total: i32::try_from(party_line.roll).unwrap_or(0),
        table: "ambush composition".into(),
        line: format!(
            "{}: {count} counter{} ({}) {source_words}",
            party.text,
            if count == 1 { "" } else { "s" },
            party.names.join(" ")
        ),
    }));
    Some(party)
}

/// The party's roll on the "Enemy in Open" row of the Mahdist Reaction
/// table: "The ambushers count the troops that they see from the ambush
/// point for strength considerations." Whether they charge.
fn charges<S: DieSource>(
    t: &mut Turn<'_, S>,
    next: Hex,
    column: &[usize],
    party: &Party,
    reactions: &Reactions,
) -> bool {
    let place = t.scn.map.describe(next);
    let seen: u32 = column.iter().map(|&u| t.state.units[u].strength).sum();
    let own: u32 = party.units.iter().map(|&u| t.state.units[u].strength).sum();
    let band = Band::of(seen, own);
    let situation = Situation::Open(band);
    let (r, reaction) = reactions.roll(situation, t.dice, &format!("the ambushers at {place}"));
    let meaning: Vec<String> = reaction
        .0
        .iter()
        .map(|l| format!("{l} = {}", reactions.code(*l).trim_end_matches('.')))
        .collect();
    let attack = reaction.0.iter().any(|l| match l {
        Letter::A | Letter::K | Letter::M => true,
        Letter::S | Letter::T => !matches!(band, Band::Above | Band::Double),
        _ => false,
    });
    t.events.push(Event::Rolled(TableRoll {
        total: r.result,
        roll: r,
        modifiers: Vec::new(),
        table: "Mahdist reaction table".into(),
        line: format!(
            "{situation} ({seen} strength seen against their {own}): {reaction} ({})",
            meaning.join("; ")
        ),
    }));
    attack
}

/// The ambushers do not charge: the column passes and the party stays
/// where its counters were.
fn let_pass<S: DieSource>(t: &mut Turn<'_, S>, next: Hex, source: Hex, party: &Party) {
    let place = t.scn.map.describe(next);
    let (verb, its) = if party.units.len() == 1 {
        ("stays", "its")
    } else {
        ("stay", "their")
    };
    let stay = if party.all_from_pool() {
        format!("{verb} in the pool")
    } else if party.from_pool.is_empty() {
        format!("{verb} with {its} stack at {}", t.scn.map.describe(source))
    } else {
        format!("{verb} where they were")
    };
    t.events.push(Event::Note {
        text: format!(
            "the ambushers at {place} do not charge and let the column pass; {} {stay}",
            party.names.join(" ")
        ),
    });
}

/// A charge ("A") is an attack from the ambush hex on the stack in
/// `from`; after it the party disperses and, beaten, flees.
fn charge<S: DieSource>(
    t: &mut Turn<'_, S>,
    i: usize,
    from: Hex,
    next: Hex,
    source: Hex,
    party: &Party,
) -> Ambush {
    for &u in &party.units {
        t.state.units[u].status = Status::OnMap(next);
    }
    t.events.push(Event::Note {
        text: format!(
            "AMBUSH at {}: {} ({}) charge the Egyptian stack at {}",
            t.scn.map.describe(next),
            party.text,
            party.names.join(" "),
            t.scn.map.describe(from)
        ),
    });
    // The ambushers attack: for this combat the Mahdists are the side
    // that marches (9.1), from the ambush hex.
    t.side = Side::Mahdist;
    t.ambush_charge = true;
    let fought = combat::fight(t, i, next, &party.units, &[], from, &[]);
    t.ambush_charge = false;
    t.side = Side::Egyptian;
    let outcome = fought.outcome;
    if t.halted {
        return Ambush::Fought(fought);
    }
    disperse(t, &party.units, &party.from_pool, next, source);
    if outcome == Outcome::DefenderWon && t.state.result.is_none() {
        let losers: Vec<usize> = party
            .units
            .iter()
            .copied()
            .filter(|&u| t.state.units[u].hex() == Some(next))
            .collect();
        // Beaten, the party flees as from the open: the village it lay in
        // was no cover for its charge, and is no refuge (9.8; ruling,
        // docs/rules.md, "Ambushes").
        t.ambush_charge = true;
        combat::retreat(
            t,
            combat::Retreat {
                side: Side::Mahdist,
                hex: next,
                units: &losers,
                leaders: &[],
                route: None,
                away_from: from,
                towards: fought.retreat_to,
            },
        );
        t.ambush_charge = false;
    }
    Ambush::Fought(fought)
}

/// After the charge the men drawn from the pool melt back into the desert
/// (the seed's party is rolled for the ambush alone; the Mahdist forces on
/// the map grow only by 3.2, 3.21 and the random events): those still on
/// the map go back to the pool. Counters the party captured (9.9) go to the
/// stack it came from if none of the party stands with them.
fn disperse<S: DieSource>(
    t: &mut Turn<'_, S>,
    party: &[usize],
    from_pool: &[usize],
    next: Hex,
    source: Hex,
) {
    let back: Vec<usize> = from_pool
        .iter()
        .copied()
        .filter(|&u| t.state.units[u].hex().is_some())
        .collect();
    for &u in &back {
        t.state.units[u].status = Status::Pool;
        t.state.units[u].disrupted = false;
    }
    if !back.is_empty() {
        t.events.push(Event::Note {
            text: format!(
                "the ambushers from the pool ({}) melt back into the desert and return to the pool",
                t.unit_ids(&back).join(" ")
            ),
        });
    }
    let captured: Vec<usize> = t
        .units_at(next, Side::Mahdist)
        .into_iter()
        .filter(|u| !party.contains(u))
        .collect();
    let party_here = party.iter().any(|&u| t.state.units[u].hex() == Some(next));
    if captured.is_empty() || party_here {
        return;
    }
    for &u in &captured {
        t.state.units[u].status = Status::OnMap(source);
    }
    t.events.push(Event::Note {
        text: format!(
            "{} taken by the ambushers {} to the Mahdist stack at {}",
            t.unit_ids(&captured).join(" "),
            if captured.len() == 1 { "goes" } else { "go" },
            t.scn.map.describe(source)
        ),
    });
}

/// The party's counters: `n` of type `wanted` from the stack (undisrupted
/// first, in counter order), then from the pool; if neither has enough of
/// that type, the stack's other land units stand in (a Mahdist stack with
/// no horse still sends men). A stack sends a party and never goes whole:
/// at least one of its land units stays (and its leaders with it, 7.0).
fn draw_party<S: DieSource>(
    t: &Turn<'_, S>,
    stack: &[usize],
    wanted: &str,
    n: usize,
) -> Vec<usize> {
    let spare = stack.len().saturating_sub(1);
    let mut of_type: Vec<usize> = stack
        .iter()
        .copied()
        .filter(|&u| *t.state.units[u].unit_type == *wanted)
        .collect();
    of_type.sort_by_key(|&u| (t.state.units[u].disrupted, u));
    let mut party: Vec<usize> = of_type.into_iter().take(n.min(spare)).collect();
    if party.len() < n {
        let pool = t
            .state
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| {
                u.side == Side::Mahdist && u.status == Status::Pool && &*u.unit_type == wanted
            })
            .map(|(k, _)| k)
            .take(n - party.len());
        party.extend(pool.collect::<Vec<_>>());
    }
    if party.len() < n {
        let mut others: Vec<usize> = stack
            .iter()
            .copied()
            .filter(|u| !party.contains(u))
            .collect();
        others.sort_by_key(|&u| (t.state.units[u].disrupted, u));
        let more = (n - party.len())
            .min(spare.saturating_sub(party.iter().filter(|u| stack.contains(u)).count()));
        party.extend(others.into_iter().take(more));
    }
    party.sort_by(|&a, &b| t.state.units[a].id.cmp(&t.state.units[b].id));
    party
}
