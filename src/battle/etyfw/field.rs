//! The battle on the field: the line model of docs/tabletop-etyfw.md
//! ("The automatic battle"), one move after another in the seed's phase
//! order until a side breaks or the move limit. Every die goes through
//! the roll function given, and into the log when one is kept.

use crate::dice::{DiceKind, Roll};
use crate::engine::events::{Event, TableRoll};
use crate::scenario::Side;

use super::data::{
    Class, Grading, MoveKind, Tables, Weapon, class_index, kind_index, weapon_index,
};

/// The dice of a battle: the turn's roll function.
pub type RollFn<'r> = &'r mut dyn FnMut(DiceKind, String) -> Roll;

/// Movement rates of T1/T2, slowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rate {
    Stationary,
    March,
    Double,
    Charge,
}

impl Rate {
    fn name(self) -> &'static str {
        match self {
            Rate::Stationary => "stationary",
            Rate::March => "March",
            Rate::Double => "Double & Trot",
            Rate::Charge => "Charge & Retreat",
        }
    }
    fn calm(self) -> bool {
        matches!(self, Rate::Stationary | Rate::March)
    }
}

/// What a result leaves a group to do next move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    None,
    /// "may not move next move unless forced to do so by further casualties"
    Halt,
    /// "retreat at Double & Trot Movement Rate next move"
    RetreatNext,
    /// "may close with the enemy at ... next move", "may advance towards
    /// the enemy at ... next move": that rate is allowed whatever T2 says.
    Permit(Rate),
}

/// What a result makes a group do "at once".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtOnce {
    Retreat,
    Rout,
    Advance(Rate),
}

/// A result read off the die of T10/T11.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Rout,
    RetreatAtOnce,
    RetreatNext,
    Halt,
    AdvanceAtOnce,
    CloseNext,
}

impl Outcome {
    /// The tables' words for it.
    fn words(self) -> &'static str {
        match self {
            Outcome::Rout => "rout, \"must continue to do so until it is Rallied\"",
            Outcome::RetreatAtOnce => "retreat at Charge & Retreat at once",
            Outcome::RetreatNext => "retreat at Double & Trot next move",
            Outcome::Halt => "may not move next move",
            Outcome::AdvanceAtOnce => "may advance at Charge & Retreat at once",
            Outcome::CloseNext => "may close at Double & Trot next move",
        }
    }

    /// What it leaves `grp` to do at once and next move (an advance or a
    /// close leaves the other as it was).
    fn apply(self, grp: &mut Group) {
        match self {
            Outcome::Rout => (grp.at_once, grp.pending) = (Some(AtOnce::Rout), Pending::None),
            Outcome::RetreatAtOnce => {
                (grp.at_once, grp.pending) = (Some(AtOnce::Retreat), Pending::None);
            }
            Outcome::RetreatNext => (grp.at_once, grp.pending) = (None, Pending::RetreatNext),
            Outcome::Halt => (grp.at_once, grp.pending) = (None, Pending::Halt),
            Outcome::AdvanceAtOnce => grp.at_once = Some(AtOnce::Advance(Rate::Charge)),
            Outcome::CloseNext => grp.pending = Pending::Permit(Rate::Double),
        }
    }
}

/// A campaign counter on the field.
#[derive(Clone, Debug)]
pub struct Counter {
    pub label: String,
    pub side: Side,
    /// Counts for the break test and for 9.8 (not gunboats).
    pub counted: bool,
    /// Supply, camels, civilians: behind their side, no part in the fight.
    pub transport: bool,
    pub disrupted: bool,
    /// Figures of all its stands (F).
    pub figures: u32,
    /// Markers it started with (a disrupted counter, docs 3.4).
    pub start_markers: u32,
}

/// One ETYFW unit: the stands of one counter that share a place and a state.
#[derive(Clone, Debug)]
pub struct Group {
    pub counter: usize,
    pub side: Side,
    pub holding: bool,
    pub kind: MoveKind,
    pub moves: Class,
    pub fights: Class,
    pub weapon: Option<Weapon>,
    /// Casualty markers on each stand.
    pub stands: Vec<u8>,
    /// The settlement's cover while it stands at its start position.
    pub cover: Grading,
    /// Gunboats: fire, are never hit, never move, do not count.
    pub afloat: bool,
    pub label: String,
    adv: i32,
    prev: [Rate; 2],
    dt_run: u8,
    this_rate: Rate,
    now: Pending,
    pending: Pending,
    at_once: Option<AtOnce>,
    pub routed: bool,
    pub gone: bool,
    partner: Option<usize>,
    at_start: bool,
    forced: bool,
    i: u32,
    s: u32,
    engaged: bool,
    /// Its one combat order this move is Fire Combat (section 4), given
    /// in the Order Phase; otherwise Close Combat.
    fire_order: bool,
    /// It took part in this move's Close Combat Phase.
    fought: bool,
}

impl Group {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        counter: usize,
        side: Side,
        holding: bool,
        kind: MoveKind,
        moves: Class,
        fights: Class,
        weapon: Option<Weapon>,
        stands: usize,
        cover: Grading,
        afloat: bool,
        label: String,
    ) -> Group {
        Group {
            counter,
            side,
            holding,
            kind,
            moves,
            fights,
            weapon,
            stands: vec![0; stands],
            cover,
            afloat,
            label,
            adv: 0,
            prev: [Rate::Stationary; 2],
            dt_run: 0,
            this_rate: Rate::Stationary,
            now: Pending::None,
            pending: Pending::None,
            at_once: None,
            routed: false,
            gone: false,
            partner: None,
            at_start: true,
            forced: false,
            i: 0,
            s: 0,
            engaged: false,
            fire_order: false,
            fought: false,
        }
    }
}

/// How the battle ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub moves: u32,
    /// Broken: (Egyptian side, Mahdist side).
    pub broken: (bool, bool),
}

/// A battle in progress.
pub struct Field<'t> {
    t: &'t Tables,
    pub counters: Vec<Counter>,
    pub groups: Vec<Group>,
    /// The opening distance G0 (mm).
    pub g0: i32,
    /// Rally re-rolls a move, by side (Egyptian, Mahdist).
    pub rerolls: [u32; 2],
    /// The log, when one is kept.
    pub log: Option<Vec<Event>>,
    /// The side that acts first in every phase (section 3, "Alternate
    /// Moves for each phase"); the other acts second.
    pub first: Side,
    start_stands: [u32; 2],
    figs: u8,
}

fn side_index(s: Side) -> usize {
    s.pick(0, 1)
}

fn side_name(s: Side) -> &'static str {
    s.pick("Egyptian side", "Mahdist side")
}

impl<'t> Field<'t> {
    pub fn new(
        t: &'t Tables,
        counters: Vec<Counter>,
        groups: Vec<Group>,
        log: bool,
        first: Side,
    ) -> Field<'t> {
        let figs = t.conversion.figures_per_stand;
        let mut f = Field {
            t,
            counters,
            groups,
            g0: 0,
            rerolls: [0, 0],
            log: log.then(Vec::new),
            first,
            start_stands: [0, 0],
            figs,
        };
        for g in &f.groups {
            if f.counters[g.counter].counted && !g.afloat {
                f.start_stands[side_index(g.side)] += g.stands.len() as u32;
            }
        }
        f
    }

    pub fn note(&mut self, text: impl FnOnce() -> String) {
        if let Some(log) = &mut self.log {
            log.push(Event::Note { text: text() });
        }
    }

    /// Roll one die, log it with its table and line, return the total.
    #[allow(clippy::too_many_arguments)]
    fn die(
        &mut self,
        roll: RollFn<'_>,
        kind: DiceKind,
        purpose: impl FnOnce() -> String,
        table: &str,
        adjust: Option<(&str, i32)>,
        line: impl FnOnce(i32) -> String,
    ) -> i32 {
        match &mut self.log {
            None => {
                let r = roll(kind, String::new());
                r.result + adjust.map_or(0, |a| a.1)
            }
            Some(_) => {
                let r = roll(kind, purpose());
                let modifiers: Vec<(String, i32)> = adjust
                    .filter(|a| a.1 != 0)
                    .map(|(n, v)| vec![(n.to_string(), v)])
                    .unwrap_or_default();
                let total = r.result + modifiers.iter().map(|m| m.1).sum::<i32>();
                let text = line(total);
                if let Some(log) = &mut self.log {
                    log.push(Event::Rolled(TableRoll {
                        roll: r,
                        modifiers,
                        total,
                        table: table.to_string(),
                        line: text,
                    }));
                }
                total
            }
        }
    }

    /// A D6 on a table that answers yes or no, rolled and logged as `die`
    /// does: `yes` reads the total, `line` words it and the answer.
    pub(super) fn d6_yes(
        &mut self,
        roll: RollFn<'_>,
        purpose: impl FnOnce() -> String,
        table: &str,
        yes: impl Fn(i32) -> bool,
        line: impl FnOnce(i32, bool) -> String,
    ) -> bool {
        let total = self.die(roll, DiceKind::D6, purpose, table, None, |v| {
            line(v, yes(v))
        });
        yes(total)
    }

    // ---- the opening -----------------------------------------------------

    /// 4.3: the holding side's reconnaissance roll sets G0. "Units of
    /// Regular Troops throw a Normal Dice (D6) at the end of the Movement
    /// Phase to determine the distance at which units of various sizes will
    /// be seen." ... "If the terrain is Open Terrain, adjust the D6 with a
    /// +1 modifier."
    pub fn open(
        &mut self,
        roll: RollFn<'_>,
        recon: Class,
        open_terrain: bool,
        closing_stands: u32,
        ambush: bool,
    ) {
        if ambush {
            self.g0 = self.t.ambush_distance;
            let g0 = self.g0;
            self.note(|| {
                format!(
                    "ETYFW: an ambush: the ansar are first seen at {} cm",
                    cm(g0)
                )
            });
            return;
        }
        let column = match closing_stands {
            0..=1 => 0,
            2..=6 => 1,
            _ => 2,
        };
        let col_name = [
            "a company (1 stand)",
            "a battalion (2-6 stands)",
            "a brigade (7 or more stands)",
        ][column];
        let rows = &self.t.recon[class_index(recon)];
        let t = self.t;
        let adjust = if open_terrain { 1 } else { 0 };
        let total = self.die(
            roll,
            DiceKind::D6,
            || format!("ETYFW reconnaissance: how far off the enemy is first seen ({col_name})"),
            match recon {
                Class::Regular => "ETYFW reconnaissance, Regular (T3)",
                Class::Irregular => "ETYFW reconnaissance, Irregular (T3)",
            },
            Some(("open terrain", adjust)),
            |v| {
                let row = (v.clamp(1, rows.len() as i32) - 1) as usize;
                match rows[row][column] {
                    Some(d) => format!("{v}: seen at {} cm", cm(d)),
                    None => format!("{v}: -, not seen until {} cm", cm(t.unseen_distance)),
                }
            },
        );
        let row = (total.clamp(1, rows.len() as i32) - 1) as usize;
        self.g0 = rows[row][column].unwrap_or(self.t.unseen_distance);
    }

    // ---- geometry -------------------------------------------------------

    fn active(&self, g: usize) -> bool {
        let g = &self.groups[g];
        !g.gone && g.stands.iter().any(|&m| m < self.figs)
    }

    fn in_action(&self, g: usize) -> u32 {
        self.groups[g]
            .stands
            .iter()
            .filter(|&&m| m < self.figs)
            .count() as u32
    }

    fn gap(&self, a: usize, b: usize) -> i32 {
        (self.g0 - self.groups[a].adv - self.groups[b].adv).max(0)
    }

    /// Enemy groups that can be reached or hit: on the table, a stand in
    /// action, not afloat.
    fn targets_of(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        let side = self.groups[g].side;
        (0..self.groups.len()).filter(move |&h| {
            self.groups[h].side != side && !self.groups[h].afloat && self.active(h)
        })
    }

    fn nearest(&self, g: usize) -> Option<(usize, i32)> {
        let mut best: Option<(usize, i32)> = None;
        for h in self.targets_of(g) {
            let d = self.gap(g, h);
            if best.is_none_or(|(_, b)| d < b) {
                best = Some((h, d));
            }
        }
        best
    }

    fn grading(&self, g: usize) -> Grading {
        let g = &self.groups[g];
        if g.holding && g.at_start {
            g.cover
        } else {
            Grading::Light
        }
    }

    fn contacts_of(&self, h: usize) -> Vec<usize> {
        (0..self.groups.len())
            .filter(|&c| self.groups[c].partner == Some(h) && self.active(c) && self.gap(c, h) == 0)
            .collect()
    }

    // ---- moving -----------------------------------------------------------

    /// T1: "Units of Regular Troops throw various numbers of Average Dice
    /// (AvD) to determine the distance they can move at different Movement
    /// Rates"; Irregulars a D6 each. The sum is the move in cm.
    fn move_roll(&mut self, roll: RollFn<'_>, g: usize, rate: Rate, why: &str) -> i32 {
        let grp = &self.groups[g];
        let n = match rate {
            Rate::Stationary => return 0,
            Rate::March => 0,
            Rate::Double => 1,
            Rate::Charge => 2,
        };
        let (moves, kind) = (grp.moves, grp.kind);
        let count = self.t.movement[class_index(moves)][kind_index(kind)].dice[n];
        let die = match moves {
            Class::Regular => DiceKind::Average,
            Class::Irregular => DiceKind::D6,
        };
        let label = grp.label.clone();
        let mut total = 0;
        for k in 1..=count {
            total += self.die(
                roll,
                die,
                || {
                    format!(
                        "ETYFW move of {label} ({why}), {} (die {k} of {count})",
                        rate.name()
                    )
                },
                "ETYFW movement rates (T1)",
                None,
                |v| format!("{v} cm"),
            );
        }
        total * 10
    }

    fn retreat(&mut self, roll: RollFn<'_>, g: usize, rate: Rate, why: &str) {
        let d = self.move_roll(roll, g, rate, why);
        let depth = self.t.table_depth;
        let grp = &mut self.groups[g];
        grp.adv -= d;
        grp.at_start = false;
        grp.forced = true;
        grp.partner = None;
        grp.this_rate = grp.this_rate.max(rate);
        if grp.adv < -depth {
            grp.gone = true;
        }
        for c in &mut self.groups {
            if c.partner == Some(g) {
                c.partner = None;
            }
        }
        let (label, gone) = (self.groups[g].label.clone(), self.groups[g].gone);
        self.note(|| {
            format!(
                "ETYFW: {label} {why}: back {} cm{}",
                cm(d),
                if gone { ", off the table" } else { "" }
            )
        });
    }

    /// Move a closing group toward the nearest enemy at `rate`, stopping
    /// `short` (mm) from it; contact if it reaches it.
    fn close(&mut self, roll: RollFn<'_>, g: usize, rate: Rate, short: i32, why: &str) {
        let Some((_, gap)) = self.nearest(g) else {
            return;
        };
        if gap <= short {
            return;
        }
        let d = self.move_roll(roll, g, rate, why).min(gap - short);
        let grp = &mut self.groups[g];
        grp.adv += d;
        grp.this_rate = grp.this_rate.max(rate);
        if d > 0 {
            // Moving on, it leaves a partner gone out of action behind.
            grp.at_start = false;
            grp.partner = None;
        }
        if short == 0 && d == gap {
            self.take_partner(g);
        }
        let label = self.groups[g].label.clone();
        let contact = self.groups[g].partner.map(|p| self.groups[p].label.clone());
        let left = self.nearest(g).map_or(0, |n| n.1);
        self.note(|| match contact {
            Some(p) => format!("ETYFW: {label} {why}: {} cm, in contact with {p}", cm(d)),
            None => format!(
                "ETYFW: {label} {why}: {} cm, {} cm from the enemy",
                cm(d),
                cm(left)
            ),
        });
    }

    /// 4.6: "A closing group that reaches gap 0 takes as partner the enemy
    /// group at gap 0 that has the fewest enemy stands already in contact
    /// with it (ties: unit order)."
    fn take_partner(&mut self, g: usize) {
        let mut best: Option<(usize, u32)> = None;
        let cands: Vec<usize> = self
            .targets_of(g)
            .filter(|&h| self.gap(g, h) == 0)
            .collect();
        for h in cands {
            let n: u32 = self.contacts_of(h).iter().map(|&c| self.in_action(c)).sum();
            if best.is_none_or(|(_, b)| n < b) {
                best = Some((h, n));
            }
        }
        self.groups[g].partner = best.map(|b| b.0);
    }

    /// T2: the fastest rate a group may use this move.
    fn fastest(&self, g: usize) -> Rate {
        let grp = &self.groups[g];
        let (p, q) = (grp.prev[0], grp.prev[1]);
        let irr = grp.moves == Class::Irregular;
        // "previous move stationary or March; or previous move Double &
        // Trot subject to the restriction that they must have been
        // stationary or moved at March Movement Rate during the move prior
        // to the last move" (Irregulars)
        let charge = p.calm() || (irr && p == Rate::Double && q.calm());
        // "subject to a maximum number of two moves at Double & Trot
        // Movement Rate before the unit must remain stationary for a move
        // or move for two moves at March Movement Rate"
        let double = p.calm() || (irr && p == Rate::Double && grp.dt_run < 2);
        let t2 = if charge {
            Rate::Charge
        } else if double {
            Rate::Double
        } else {
            Rate::March
        };
        match grp.now {
            Pending::Permit(r) => t2.max(r),
            _ => t2,
        }
    }

    /// Whether a group moves toward the enemy this move. The side that
    /// marched attacks: its groups close (4.4). A group of the side
    /// marched against holds, except one with no weapon and no cover
    /// that a result allows to close ("may close with the enemy", "may
    /// advance towards the enemy", sections 11 and 14): spearmen and
    /// horsemen in the open counter-charge when the results let them.
    fn moves_in(&self, g: usize) -> bool {
        let grp = &self.groups[g];
        if grp.afloat
            || grp.routed
            || grp.forced
            || grp.now == Pending::Halt
            || grp.kind == MoveKind::Artillery
            || grp.weapon.is_some_and(Weapon::crew_served)
        {
            return false;
        }
        !grp.holding || (self.may_counter_charge(g) && matches!(grp.now, Pending::Permit(_)))
    }

    /// A group of the side marched against with no weapon and no cover.
    fn may_counter_charge(&self, g: usize) -> bool {
        self.groups[g].holding
            && self.groups[g].weapon.is_none()
            && self.grading(g) == Grading::Light
    }

    /// Section 3: "Alternate Moves for each phase of the Game Turn
    /// Sequence": one side's Movement Phase, then the other's.
    fn movement_phase(&mut self, roll: RollFn<'_>, side: Side) {
        let ours: Vec<usize> = (0..self.groups.len())
            .filter(|&g| self.groups[g].side == side)
            .collect();
        // a. Forced moves first.
        for &g in &ours {
            if !self.active(g) || self.groups[g].afloat {
                continue;
            }
            if self.groups[g].routed {
                self.retreat(roll, g, Rate::Charge, "routs");
            } else if self.groups[g].now == Pending::RetreatNext {
                self.retreat(roll, g, Rate::Double, "retreats as ordered last move");
            }
        }
        // b., c. Groups that move in do so by 4.4.
        for &g in &ours {
            if !self.active(g) || !self.moves_in(g) {
                continue;
            }
            if let Some(p) = self.groups[g].partner {
                if self.active(p) && self.gap(g, p) == 0 {
                    continue;
                }
                self.groups[g].partner = None;
            }
            if self.nearest(g).is_some_and(|n| n.1 == 0) {
                self.take_partner(g);
                continue;
            }
            let rate = self.fastest(g);
            // "Closing groups with a weapon ... move as in 3 until the
            // nearest enemy group is within their weapon's Effective
            // range; then they stand and fire": a group whose combat
            // order is Fire Combat stops there; one ordered to close
            // (a result's permission) goes in.
            let short = match self.groups[g].weapon {
                Some(w) if self.groups[g].fire_order => self.t.weapons[weapon_index(w)].effective,
                _ => 0,
            };
            self.close(roll, g, rate, short, "moves in");
        }
    }

    // ---- fire ---------------------------------------------------------------

    /// Whether a group is in base-to-base contact with an enemy group (its
    /// partner, or a group whose partner it is, at gap 0).
    fn in_contact(&self, g: usize) -> bool {
        self.groups[g]
            .partner
            .is_some_and(|p| self.active(p) && self.gap(g, p) == 0)
            || !self.contacts_of(g).is_empty()
    }

    /// Section 10: "Regular Infantry and Cavalry - Throw an Average Dice
    /// (AvD) for each firing stand. Regular Machine Guns and Artillery -
    /// Throw an Average Dice (AvD) for each unwounded Crew member on each
    /// firing stand." Irregulars the same with a D6.
    ///
    /// Section 3: "Alternate Moves for each phase": `side` fires, and its
    /// casualty markers are placed before the other side fires; a stand
    /// they put out of action does not fire back that move.
    ///
    /// Section 4: a unit's orders "may include no more than: ... One
    /// Combat Order (e.g. Fire Combat, Close Combat)". A group given Fire
    /// Combat in the Order Phase (it was not in contact then) fires at the
    /// enemy in reach, one in base-to-base contact with it or with another
    /// group included (at 0 cm, Short range): the seed forbids neither.
    fn fire_phase(&mut self, roll: RollFn<'_>, side: Side) {
        let n = self.groups.len();
        let mut covered = vec![0u32; n];
        let mut hits = vec![0u32; n];
        for f in 0..n {
            let grp = &self.groups[f];
            let Some(w) = grp.weapon else { continue };
            if grp.side != side
                || !grp.fire_order
                || !self.active(f)
                || grp.routed
                || grp.forced
                || grp.now == Pending::RetreatNext
            {
                continue;
            }
            let stats = self.t.weapons[weapon_index(w)];
            let stands: Vec<u8> = grp.stands.clone();
            for markers in stands {
                if markers >= self.figs {
                    continue;
                }
                let Some(target) = self.pick_target(f, stats.long, &covered) else {
                    break;
                };
                covered[target] += 1;
                let h = self.fire_stand(roll, f, w, markers, target);
                hits[target] += h;
                self.groups[f].i += h;
                self.groups[f].engaged = true;
                self.groups[target].engaged = true;
            }
        }
        for (g, h) in hits.into_iter().enumerate() {
            self.groups[g].s += h;
            self.mark(g, h);
        }
    }

    /// One firing stand's dice at its target (T7 or T8, with the T5
    /// adjustment for the range band and the target's T6 grading): the
    /// casualties it inflicts.
    fn fire_stand(
        &mut self,
        roll: RollFn<'_>,
        f: usize,
        w: Weapon,
        markers: u8,
        target: usize,
    ) -> u32 {
        let stats = self.t.weapons[weapon_index(w)];
        let fights = self.groups[f].fights;
        let table = &self.t.fire[class_index(fights)];
        let label = self.groups[f].label.clone();
        let gap = self.gap(f, target);
        let (band, adjust) = if gap <= stats.short {
            ("short range", 0)
        } else if gap <= stats.effective {
            ("effective range", stats.effective_adjust)
        } else {
            ("long range", stats.long_adjust)
        };
        let defence = self.grading(target);
        let dice = if w.crew_served() {
            u32::from(self.figs - markers)
        } else {
            1
        };
        let tlabel = self.groups[target].label.clone();
        let mut hits = 0;
        for _ in 0..dice {
            let total = self.die(
                roll,
                table.die.kind(),
                || {
                    format!(
                        "ETYFW fire of {label} ({}) at {tlabel}, {} cm",
                        w.name(),
                        cm(gap)
                    )
                },
                match fights {
                    Class::Regular => "ETYFW fire, Regular (T7)",
                    Class::Irregular => "ETYFW fire, Irregular (T8)",
                },
                Some((band, adjust)),
                |v| {
                    let h = table.hits(stats.attack, v, defence);
                    format!(
                        "{v}, {} attack on {}: {h} casualt{}",
                        stats.attack.name(),
                        defence.name(),
                        if h == 1 { "y" } else { "ies" }
                    )
                },
            );
            hits += table.hits(stats.attack, total, defence);
        }
        hits
    }

    /// 4.6: enemy groups not routed (nearest first), then routed groups
    /// (nearest first), within Long range, not yet given as many firing
    /// stands as it has stands in action; if all are covered, the nearest
    /// in range.
    fn pick_target(&self, f: usize, long: i32, covered: &[u32]) -> Option<usize> {
        let mut c: Vec<(u8, i32, usize)> = self
            .targets_of(f)
            .filter(|&h| self.gap(f, h) <= long)
            .map(|h| {
                let rank = if !self.groups[h].routed { 1 } else { 2 };
                (rank, self.gap(f, h), h)
            })
            .collect();
        c.sort_unstable();
        c.iter()
            .find(|&&(_, _, h)| covered[h] < self.in_action(h))
            .or_else(|| c.iter().min_by_key(|&&(_, d, h)| (d, h)))
            .map(|&(_, _, h)| h)
    }

    /// 4.6: markers go concentrated: on a stand already marked, else on
    /// the next unmarked stand in action; any beyond the group's figures
    /// in action are lost.
    pub fn mark(&mut self, g: usize, mut n: u32) {
        let figs = self.figs;
        let stands = &mut self.groups[g].stands;
        while n > 0 {
            let at = stands
                .iter()
                .position(|&m| m > 0 && m < figs)
                .or_else(|| stands.iter().position(|&m| m == 0));
            match at {
                Some(i) => stands[i] += 1,
                None => break,
            }
            n -= 1;
        }
    }

    // ---- results ------------------------------------------------------------

    /// T10/T11. "won" I > S; "equal" I = S; "lost" S > I and S < 2I;
    /// "beaten": "Unit has suffered twice as many (or more) casualties than
    /// it has inflicted on the enemy".
    fn result(&mut self, roll: RollFn<'_>, g: usize, fire: bool) {
        let grp = &self.groups[g];
        let (i, s) = (grp.i, grp.s);
        let cls = grp.fights;
        let faces = &self.t.results[class_index(cls)];
        let label = grp.label.clone();
        // Groups of the side marched against hold, except those that may
        // counter-charge (no weapon, no cover).
        let holds = grp.holding && !self.may_counter_charge(g);
        let foot = matches!(grp.kind, MoveKind::Infantry | MoveKind::Cavalry);
        let phase = if fire { "fire combat" } else { "close combat" };
        if s > 0 && s >= 2 * i {
            self.result_die(
                roll,
                g,
                fire,
                || format!("ETYFW {phase} result of {label}: beaten, {s} casualties suffered for {i} inflicted"),
                &[(&faces.beaten_rout, Outcome::Rout)],
                Outcome::RetreatAtOnce,
            );
        } else if s > i {
            self.result_die(
                roll,
                g,
                fire,
                || format!("ETYFW {phase} result of {label}: lost, {s} casualties suffered for {i} inflicted"),
                &[
                    (&faces.lost_retreat_at_once, Outcome::RetreatAtOnce),
                    (&faces.lost_retreat_next_move, Outcome::RetreatNext),
                ],
                Outcome::Halt,
            );
        } else if holds || !foot {
            // Holding groups hold; guns "may close ... at Double & Trot"
            // but never move of their own accord (4.4).
            if !fire {
                self.groups[g].at_once = None;
            }
        } else if i > s && fire {
            match cls {
                // "may close with the enemy at Charge & Retreat Movement
                // Rate next move"
                Class::Regular => self.groups[g].pending = Pending::Permit(Rate::Charge),
                Class::Irregular => self.result_die(
                    roll,
                    g,
                    fire,
                    || format!("ETYFW fire combat result of {label}: won, {i} casualties inflicted for {s} suffered"),
                    &[(&faces.won_advance_at_once, Outcome::AdvanceAtOnce)],
                    Outcome::CloseNext,
                ),
            }
        } else if fire {
            // equal: "may advance towards the enemy at Double & Trot
            // Movement Rate next move"
            self.groups[g].pending = Pending::Permit(Rate::Double);
        } else {
            // close combat won or equal: "may continue the Close Combat
            // next move" (pursuit is decided once every result is known).
            self.groups[g].at_once = None;
            self.groups[g].pending = Pending::None;
        }
    }

    /// The D6 of group `g`'s result on T10 (`fire`) or T11: the outcome of
    /// the first of `rows` whose faces hold the total, else `otherwise`.
    fn result_die(
        &mut self,
        roll: RollFn<'_>,
        g: usize,
        fire: bool,
        purpose: impl FnOnce() -> String,
        rows: &[(&[i32], Outcome)],
        otherwise: Outcome,
    ) {
        let table = match (fire, self.groups[g].fights) {
            (true, Class::Regular) => "ETYFW fire combat results, Regular (T10)",
            (true, Class::Irregular) => "ETYFW fire combat results, Irregular (T10)",
            (false, Class::Regular) => "ETYFW close combat results, Regular (T11)",
            (false, Class::Irregular) => "ETYFW close combat results, Irregular (T11)",
        };
        let read = |v: i32| {
            rows.iter()
                .find(|(faces, _)| faces.contains(&v))
                .map_or(otherwise, |r| r.1)
        };
        let v = self.die(roll, DiceKind::D6, purpose, table, None, |v| {
            format!("{v}: {}", read(v).words())
        });
        read(v).apply(&mut self.groups[g]);
    }

    /// Section 11 for `side`'s groups that fired or were fired at: one
    /// side's results, then the other's (section 3).
    fn fire_results(&mut self, roll: RollFn<'_>, side: Side) {
        for g in 0..self.groups.len() {
            if self.groups[g].side == side
                && self.groups[g].engaged
                && self.active(g)
                && !self.groups[g].afloat
            {
                self.result(roll, g, true);
            }
        }
    }

    /// Carry out `side`'s "at once" retreats and routs.
    fn retreats_at_once(&mut self, roll: RollFn<'_>, side: Side, when: &str) {
        for g in 0..self.groups.len() {
            if self.groups[g].side != side || !self.active(g) {
                continue;
            }
            match self.groups[g].at_once {
                Some(AtOnce::Rout) => {
                    self.groups[g].routed = true;
                    self.groups[g].at_once = None;
                    self.retreat(roll, g, Rate::Charge, &format!("routs {when}"));
                }
                Some(AtOnce::Retreat) => {
                    self.groups[g].at_once = None;
                    self.retreat(roll, g, Rate::Charge, &format!("retreats {when}"));
                }
                _ => {}
            }
        }
    }

    /// Carry out `side`'s "at once" advances (a group still in contact
    /// with a partner in action stays where it is).
    fn advances_at_once(&mut self, roll: RollFn<'_>, side: Side, when: &str) {
        for g in 0..self.groups.len() {
            if self.groups[g].side != side {
                continue;
            }
            let Some(AtOnce::Advance(rate)) = self.groups[g].at_once else {
                continue;
            };
            self.groups[g].at_once = None;
            let grp = &self.groups[g];
            if !self.active(g) || grp.routed || (grp.holding && !self.may_counter_charge(g)) {
                continue;
            }
            if grp
                .partner
                .is_some_and(|p| self.gap(g, p) == 0 && self.active(p))
            {
                continue;
            }
            self.close(roll, g, rate, 0, &format!("advances {when}"));
        }
    }

    /// The "at once" moves of a results phase, both sides: retreats and
    /// routs first (the first side's, then the other's), then advances,
    /// so that a pursuer follows an enemy already gone back.
    fn carry_out(&mut self, roll: RollFn<'_>, when: &str) {
        for side in self.sides() {
            self.retreats_at_once(roll, side, when);
        }
        for side in self.sides() {
            self.advances_at_once(roll, side, when);
        }
    }

    /// The two sides in the order they act in each phase.
    fn sides(&self) -> [Side; 2] {
        [self.first, self.first.enemy()]
    }

    // ---- close combat ----------------------------------------------------------

    /// The enemy groups a group is in base-to-base contact with: its
    /// partner, and the groups whose partner it is, in unit order.
    fn opponents(&self, g: usize) -> Vec<usize> {
        let mut out = self.contacts_of(g);
        if let Some(p) = self.groups[g].partner
            && self.active(p)
            && self.gap(g, p) == 0
            && !out.contains(&p)
        {
            out.push(p);
            out.sort_unstable();
        }
        out
    }

    /// Section 13: "Close Combat only takes place when opposing stands
    /// come into base-to-base contact. Regular Troops - Throw a Normal
    /// Dice (D6) for each unwounded figure on each stand taking part in
    /// the Close Combat." "Irregular Troops - Throw an Average Dice (AvD)
    /// for each unwounded figure". Every group in contact takes part:
    /// contact brings close combat on, whatever combat order a group
    /// was given before it was reached. Section 3: `side` strikes and its
    /// markers are placed before the other side strikes back with the
    /// figures it has left. A group's casualties go to the groups in
    /// contact with it one marker at a time in turn.
    fn close_combat(&mut self, roll: RollFn<'_>, side: Side) -> Vec<(usize, Vec<usize>)> {
        let n = self.groups.len();
        let mut hits = vec![0u32; n];
        let mut fights: Vec<(usize, Vec<usize>)> = Vec::new();
        for g in 0..n {
            if self.groups[g].side != side || !self.active(g) || self.groups[g].afloat {
                continue;
            }
            let opponents = self.opponents(g);
            if !opponents.is_empty() {
                fights.push((g, opponents));
            }
        }
        for (g, opponents) in &fights {
            let g = *g;
            self.groups[g].fought = true;
            for &o in opponents {
                self.groups[o].fought = true;
            }
            let figures = self.figures_taking_part(g, opponents);
            let grp = &self.groups[g];
            let cls = grp.fights;
            let table = &self.t.close[class_index(cls)];
            let label = grp.label.clone();
            let mut rr = 0usize;
            for _ in 0..figures {
                let target = opponents[rr % opponents.len()];
                let defence = self.grading(target);
                let tlabel = self.groups[target].label.clone();
                let total = self.die(
                    roll,
                    table.die.kind(),
                    || format!("ETYFW close combat of {label} against {tlabel}"),
                    match cls {
                        Class::Regular => "ETYFW close combat, Regular (T9)",
                        Class::Irregular => "ETYFW close combat, Irregular (T9)",
                    },
                    None,
                    |v| {
                        let h = table.hits(Grading::Light, v, defence);
                        format!(
                            "{v} against {}: {h} casualt{}",
                            defence.name(),
                            if h == 1 { "y" } else { "ies" }
                        )
                    },
                );
                let mut h = table.hits(Grading::Light, total, defence);
                self.groups[g].i += h;
                while h > 0 {
                    let target = opponents[rr % opponents.len()];
                    hits[target] += 1;
                    rr += 1;
                    h -= 1;
                }
                if opponents.len() == 1 {
                    rr = 0;
                }
            }
        }
        for (g, h) in hits.into_iter().enumerate() {
            self.groups[g].s += h;
            self.mark(g, h);
        }
        fights
    }

    /// Section 13: the dice are for "each unwounded figure on each stand
    /// taking part in the Close Combat", and it "only takes place when
    /// opposing stands come into base-to-base contact". On the line a
    /// stand meets one enemy stand front to front: a group fights with as
    /// many of its stands in action as its opponents have stands in
    /// action, its front stands (the wounded one, on which markers fall
    /// first, 4.6, then the others), and counts their unwounded figures.
    fn figures_taking_part(&self, g: usize, opponents: &[usize]) -> u32 {
        let facing: u32 = opponents.iter().map(|&o| self.in_action(o)).sum();
        let mut stands: Vec<u8> = self.groups[g]
            .stands
            .iter()
            .copied()
            .filter(|&m| m < self.figs)
            .collect();
        // The wounded stand first (at most one, 4.6), then the others.
        stands.sort_by_key(|&m| std::cmp::Reverse(m));
        stands
            .iter()
            .take(facing as usize)
            .map(|&m| u32::from(self.figs - m))
            .sum()
    }

    /// Section 14 for `side`'s groups that took part in the close combat.
    fn close_results(&mut self, roll: RollFn<'_>, side: Side) {
        for g in 0..self.groups.len() {
            if self.groups[g].side == side && self.groups[g].fought && self.active(g) {
                // "A group that has a close-combat result loses any result
                // it got in step 6 that is still pending" (6.9).
                self.groups[g].pending = Pending::None;
                self.groups[g].at_once = None;
                self.result(roll, g, false);
            }
        }
    }

    /// Pursuit, once both sides have their results: "If the enemy has
    /// been forced to retreat, Regular Infantry and Cavalry may advance at
    /// Double & Trot Movement Rate at once; ... Irregular Infantry and
    /// Cavalry may advance at Charge & Retreat Movement Rate at once".
    fn pursuits(&mut self, fights: &[(usize, Vec<usize>)]) {
        for (g, opponents) in fights {
            let grp = &self.groups[*g];
            if (grp.holding && !self.may_counter_charge(*g))
                || grp.kind == MoveKind::Artillery
                || grp.at_once.is_some()
                || !self.active(*g)
                || grp.i <= grp.s
            {
                continue;
            }
            let all_back = opponents.iter().all(|&o| {
                matches!(self.groups[o].at_once, Some(AtOnce::Retreat | AtOnce::Rout))
                    || !self.active(o)
            });
            if all_back {
                let rate = match grp.fights {
                    Class::Regular => Rate::Double,
                    Class::Irregular => Rate::Charge,
                };
                self.groups[*g].at_once = Some(AtOnce::Advance(rate));
            }
        }
    }

    // ---- rally ------------------------------------------------------------------

    /// Section 15: "Regular Troops - Throw an Average Dice (AvD) for each
    /// retreating stand. If the score is 2 or 3, the retreating stand will
    /// continue to retreat; If the score is 4 or 5, the stand will rally,
    /// and will obey orders from the next move onwards." Irregulars a D6,
    /// rallying on 5 or 6. Stands that rally form a group of their own.
    fn rally_phase(&mut self, roll: RollFn<'_>, side: Side) {
        let mut rerolls = if self.t.leader_rally_rerolls {
            self.rerolls
        } else {
            [0, 0]
        };
        let n = self.groups.len();
        for g in 0..n {
            if self.groups[g].side != side || !self.groups[g].routed || !self.active(g) {
                continue;
            }
            let grp = &self.groups[g];
            let row = self.t.rally[class_index(grp.fights)];
            let label = grp.label.clone();
            let si = side_index(grp.side);
            let mut rallied = Vec::new();
            for (k, &m) in grp.stands.clone().iter().enumerate() {
                if m >= self.figs {
                    continue;
                }
                let mut tries = 0;
                loop {
                    let again = if tries > 0 {
                        " (the leader's re-roll)"
                    } else {
                        ""
                    };
                    let v = self.die(
                        roll,
                        row.die.kind(),
                        || format!("ETYFW rally of {label}, stand {}{again}", k + 1),
                        "ETYFW rally (T12)",
                        None,
                        |v| {
                            if v >= row.rallies_from {
                                format!("{v}: rallies")
                            } else {
                                format!("{v}: continues to retreat")
                            }
                        },
                    );
                    if v >= row.rallies_from {
                        rallied.push(k);
                        break;
                    }
                    if rerolls[si] == 0 {
                        break;
                    }
                    rerolls[si] -= 1;
                    tries += 1;
                }
            }
            if rallied.is_empty() {
                continue;
            }
            let in_action = self.in_action(g) as usize;
            if rallied.len() == in_action {
                self.groups[g].routed = false;
                self.groups[g].pending = Pending::None;
                self.note(|| format!("ETYFW: {label} rallies"));
                continue;
            }
            // Split: the rallied stands become a group of their own.
            let mut new = self.groups[g].clone();
            new.stands = rallied.iter().map(|&k| self.groups[g].stands[k]).collect();
            new.routed = false;
            new.pending = Pending::None;
            new.label = format!("{} (rallied)", self.groups[g].label);
            let keep: Vec<u8> = self.groups[g]
                .stands
                .iter()
                .enumerate()
                .filter(|(k, _)| !rallied.contains(k))
                .map(|(_, &m)| m)
                .collect();
            self.groups[g].stands = keep;
            let r = rallied.len();
            self.note(|| format!("ETYFW: {r} stand(s) of {label} rally"));
            self.groups.push(new);
        }
    }

    // ---- the battle ---------------------------------------------------------------

    /// Stands lost (out of action, routed, off the table) and at the start,
    /// by side.
    pub fn losses(&self) -> [(u32, u32); 2] {
        let mut lost = [0u32; 2];
        for (g, grp) in self.groups.iter().enumerate() {
            if !self.counters[grp.counter].counted || grp.afloat {
                continue;
            }
            let out = grp.stands.iter().filter(|&&m| m >= self.figs).count() as u32;
            let inn = grp.stands.len() as u32 - out;
            let gone = if grp.gone || (grp.routed && self.active(g)) {
                inn
            } else {
                0
            };
            lost[side_index(grp.side)] += out + gone;
        }
        [
            (lost[0], self.start_stands[0]),
            (lost[1], self.start_stands[1]),
        ]
    }

    fn broken(&self) -> (bool, bool) {
        let (num, den) = self.t.break_fraction;
        let l = self.losses();
        let b = |(lost, start): (u32, u32)| start > 0 && lost * den >= start * num;
        (b(l[0]), b(l[1]))
    }

    /// 4.5: one move after another until a side breaks (4.8) or the move
    /// limit. Section 3: "Alternate Moves for each phase of the Game Turn
    /// Sequence. The phases of the Game Turn Sequence are: Order Phase
    /// Movement Phase Reconnaissance Phase Fire Combat Phase Fire Combat
    /// Results Phase Close Combat Phase Close Combat Results Phase Retreat
    /// Movement Phase Rally Phase Casualty Recovery Phase": in each phase
    /// the first side (`first`) acts, then the other.
    ///
    /// Section 6: the enemy is seen "at the end of the Movement Phase":
    /// the first move opens at its Reconnaissance Phase, the closing side
    /// having come up unseen to the distance it is seen at (G0), so the
    /// side that saw it fires before the charge. After an ambush the
    /// ambushers were hidden until they moved: the first move has its
    /// Movement Phase.
    pub fn fight(&mut self, roll: RollFn<'_>, ambush: bool) -> Ending {
        let g0 = self.g0;
        let first = self.first;
        self.note(|| {
            format!(
                "ETYFW: the lines open {} cm apart; the {} acts first in every phase",
                cm(g0),
                side_name(first)
            )
        });
        if !ambush {
            self.note(|| {
                "ETYFW: move 1 opens at its Reconnaissance Phase: the closing side has come up \
                 unseen to where it is seen"
                    .to_string()
            });
        }
        let mut moves = 0;
        for mv in 1..=self.t.move_limit {
            moves = mv;
            self.order_phase();
            if mv > 1 || ambush {
                for side in self.sides() {
                    self.movement_phase(roll, side);
                }
            }
            for side in self.sides() {
                self.fire_phase(roll, side);
            }
            for side in self.sides() {
                self.fire_results(roll, side);
            }
            if self.t.fire_results_at_once {
                self.carry_out(roll, "after fire");
            }
            for g in &mut self.groups {
                g.i = 0;
                g.s = 0;
                g.fought = false;
            }
            let mut fights = Vec::new();
            for side in self.sides() {
                fights.extend(self.close_combat(roll, side));
            }
            for side in self.sides() {
                self.close_results(roll, side);
            }
            self.pursuits(&fights);
            // Retreat Movement Phase: close-combat moves (and fire moves
            // when they wait for it).
            self.carry_out(roll, "after close combat");
            for side in self.sides() {
                self.rally_phase(roll, side);
            }
            for g in &mut self.groups {
                g.prev = [g.this_rate, g.prev[0]];
                g.dt_run = if g.this_rate == Rate::Double {
                    g.dt_run + 1
                } else {
                    0
                };
            }
            let broken = self.broken();
            let l = self.losses();
            self.note(|| {
                format!(
                    "ETYFW move {mv}: Egyptian side {} of {} stands lost{}, Mahdist side {} of {}{}",
                    l[0].0,
                    l[0].1,
                    if broken.0 { " (broken)" } else { "" },
                    l[1].0,
                    l[1].1,
                    if broken.1 { " (broken)" } else { "" },
                )
            });
            if broken.0 || broken.1 {
                return Ending { moves: mv, broken };
            }
        }
        Ending {
            moves,
            broken: self.broken(),
        }
    }

    /// Order Phase: last move's results come due, casualty counts are
    /// cleared, and each group is given its one combat order (section 4:
    /// "One Combat Order (e.g. Fire Combat, Close Combat)"): Close Combat
    /// for a group in base-to-base contact or one that will move in to
    /// contact on a result's permission; Fire Combat for any other group
    /// with a weapon.
    fn order_phase(&mut self) {
        for g in &mut self.groups {
            g.now = std::mem::replace(&mut g.pending, Pending::None);
            g.i = 0;
            g.s = 0;
            g.engaged = false;
            g.fought = false;
            g.at_once = None;
            g.forced = false;
            g.this_rate = Rate::Stationary;
        }
        for g in 0..self.groups.len() {
            let closing_on_permission = self.moves_in(g)
                && self.groups[g].weapon.is_some()
                && matches!(self.groups[g].now, Pending::Permit(_));
            self.groups[g].fire_order =
                self.groups[g].weapon.is_some() && !self.in_contact(g) && !closing_on_permission;
        }
    }

    /// Markers on each counter (all its groups), and whether any of its
    /// stands in action is routed or off the table.
    pub fn counter_state(&self) -> Vec<(u32, bool)> {
        let mut out = vec![(0u32, false); self.counters.len()];
        for (g, grp) in self.groups.iter().enumerate() {
            let o = &mut out[grp.counter];
            o.0 += grp.stands.iter().map(|&m| u32::from(m)).sum::<u32>();
            if (grp.routed || grp.gone) && self.active_or_gone(g) {
                o.1 = true;
            }
        }
        out
    }

    fn active_or_gone(&self, g: usize) -> bool {
        self.groups[g].stands.iter().any(|&m| m < self.figs)
    }

    pub fn side_name(s: Side) -> &'static str {
        side_name(s)
    }
}

/// Millimetres as centimetres for the log.
pub fn cm(mm: i32) -> String {
    if mm % 10 == 0 {
        format!("{}", mm / 10)
    } else {
        format!("{:.1}", f64::from(mm) / 10.0)
    }
}
