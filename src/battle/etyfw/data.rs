//! The ETYFW tables as written in `scenarios/etyfw.ron`, and the checked
//! tables the resolver reads. Distances are held in millimetres (the
//! seed's centimetres times ten) so the field is counted in integers.

use serde::Deserialize;

use crate::diag::{Diagnostic, Source};
use crate::dice::DiceKind;

/// Regular or Irregular, for one activity (seed section 17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum Class {
    Regular,
    Irregular,
}

/// What a stand is for movement (T1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum MoveKind {
    Infantry,
    Cavalry,
    Artillery,
}

/// Attack and defence gradings (T5, T6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum Grading {
    Light,
    Medium,
    Heavy,
}

impl Grading {
    pub fn index(self) -> usize {
        match self {
            Grading::Light => 0,
            Grading::Medium => 1,
            Grading::Heavy => 2,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Grading::Light => "Light",
            Grading::Medium => "Medium",
            Grading::Heavy => "Heavy",
        }
    }
}

/// The weapons of T4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum Weapon {
    SingleShotRifle,
    MagazineRifle,
    MachineGun,
    MountainArtillery,
    FieldArtillery,
    MediumArtillery,
    HeavyArtillery,
}

impl Weapon {
    pub fn name(self) -> &'static str {
        match self {
            Weapon::SingleShotRifle => "single-shot rifles",
            Weapon::MagazineRifle => "magazine rifles",
            Weapon::MachineGun => "machine guns",
            Weapon::MountainArtillery => "mountain artillery",
            Weapon::FieldArtillery => "field artillery",
            Weapon::MediumArtillery => "medium artillery",
            Weapon::HeavyArtillery => "heavy artillery",
        }
    }
    /// Machine guns and artillery throw a die per crew figure (section 10).
    pub fn crew_served(self) -> bool {
        !matches!(self, Weapon::SingleShotRifle | Weapon::MagazineRifle)
    }
}

/// Which side acts first in every phase of a move (seed section 3:
/// "Alternate Moves for each phase of the Game Turn Sequence"; the seed
/// does not say who begins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum FirstMover {
    /// The side that marched into the combat (the campaign's attacker).
    Attacker,
    /// The side marched against.
    Defender,
}

/// A die kind the file may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Die {
    D6,
    Average,
}

impl Die {
    pub fn kind(self) -> DiceKind {
        match self {
            Die::D6 => DiceKind::D6,
            Die::Average => DiceKind::Average,
        }
    }
}

// ---- the file as written -------------------------------------------------

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename = "Etyfw")]
struct File {
    movement: Vec<MoveRow>,
    reconnaissance: ReconFile,
    weapons: Vec<WeaponRow>,
    fire_regular: CombatFile,
    fire_irregular: CombatFile,
    close_regular: CombatFile,
    close_irregular: CombatFile,
    results: ResultsFile,
    rally: RallyFile,
    recovery_round_up: Vec<i32>,
    cover: Cover,
    conversion: Conversion,
    battle: BattleParams,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRow {
    class: Class,
    kind: MoveKind,
    march: u32,
    double: u32,
    charge: u32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReconFile {
    regular: Vec<ReconRow>,
    irregular: Vec<ReconRow>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReconRow {
    score: i32,
    company: Option<f64>,
    battalion: Option<f64>,
    brigade: Option<f64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WeaponRow {
    weapon: Weapon,
    short: f64,
    effective: f64,
    long: f64,
    attack: Grading,
    effective_adjust: i32,
    long_adjust: i32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CombatFile {
    die: Die,
    rows: Vec<CombatRow>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CombatRow {
    attack: Grading,
    score: i32,
    hits: (u32, u32, u32),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultsFile {
    regular: ResultFaces,
    irregular: ResultFaces,
}

/// The D6 faces of each result of T10/T11 for one class.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ResultFaces {
    pub lost_retreat_at_once: Vec<i32>,
    pub lost_retreat_next_move: Vec<i32>,
    pub lost_halt: Vec<i32>,
    pub beaten_rout: Vec<i32>,
    pub beaten_retreat_at_once: Vec<i32>,
    pub won_advance_at_once: Vec<i32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RallyFile {
    regular: RallyRow,
    irregular: RallyRow,
}

/// T12 for one class.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RallyRow {
    pub die: Die,
    pub rallies_from: i32,
}

/// T6 for settlements.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Cover {
    pub town: Grading,
    pub village: Grading,
    pub oasis: Grading,
}

/// Campaign counters as stands.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Conversion {
    pub figures_per_stand: u8,
    pub regular_stands_per_sp: u32,
    pub irregular_stands_per_sp: u32,
    pub rifle: Weapon,
    pub gun: Weapon,
    pub fleet: Weapon,
    pub fleet_stands: u32,
    pub naval_machine_guns: bool,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BattleParams {
    unseen_distance: f64,
    ambush_distance: f64,
    table_depth: f64,
    break_numerator: u32,
    break_denominator: u32,
    move_limit: u32,
    first_mover: FirstMover,
    fire_results_at_once: bool,
    leader_rally_rerolls: bool,
}

// ---- the checked tables --------------------------------------------------

/// T1 for one class and kind: dice at March, Double & Trot, Charge & Retreat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveDice {
    pub dice: [u32; 3],
}

/// A fire or close-combat table: die, and for each attack grading the
/// rows from the lowest printed score up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CombatTable {
    pub die: Die,
    /// (attack grading index) -> (lowest score, cells by score from it).
    pub blocks: [Option<(i32, Vec<[u32; 3]>)>; 3],
}

impl CombatTable {
    /// Casualties for a score (already adjusted) against a defence
    /// grading; a score below the lowest row inflicts nothing (the floor
    /// rule), one above the highest reads the highest row.
    pub fn hits(&self, attack: Grading, score: i32, defence: Grading) -> u32 {
        let Some((low, rows)) = &self.blocks[attack.index()] else {
            return 0;
        };
        if score < *low || rows.is_empty() {
            return 0;
        }
        let i = ((score - low) as usize).min(rows.len() - 1);
        rows[i][defence.index()]
    }
}

/// A weapon's ranges (mm), grading and adjustments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeaponStats {
    pub short: i32,
    pub effective: i32,
    pub long: i32,
    pub attack: Grading,
    pub effective_adjust: i32,
    pub long_adjust: i32,
}

/// Everything the resolver reads, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tables {
    /// [class][kind]
    pub movement: [[MoveDice; 3]; 2],
    /// [class] rows by D6 score from 1: [company, battalion, brigade] in mm.
    pub recon: [Vec<[Option<i32>; 3]>; 2],
    pub weapons: [WeaponStats; 7],
    pub fire: [CombatTable; 2],
    pub close: [CombatTable; 2],
    pub results: [ResultFaces; 2],
    pub rally: [RallyRow; 2],
    pub recovery_round_up: Vec<i32>,
    pub cover: Cover,
    pub conversion: Conversion,
    pub unseen_distance: i32,
    pub ambush_distance: i32,
    pub table_depth: i32,
    pub break_fraction: (u32, u32),
    pub move_limit: u32,
    /// Who acts first in each phase of a move (alternate moves, section 3).
    pub first_mover: FirstMover,
    pub fire_results_at_once: bool,
    pub leader_rally_rerolls: bool,
}

pub fn class_index(c: Class) -> usize {
    match c {
        Class::Regular => 0,
        Class::Irregular => 1,
    }
}

pub fn kind_index(k: MoveKind) -> usize {
    match k {
        MoveKind::Infantry => 0,
        MoveKind::Cavalry => 1,
        MoveKind::Artillery => 2,
    }
}

pub fn weapon_index(w: Weapon) -> usize {
    match w {
        Weapon::SingleShotRifle => 0,
        Weapon::MagazineRifle => 1,
        Weapon::MachineGun => 2,
        Weapon::MountainArtillery => 3,
        Weapon::FieldArtillery => 4,
        Weapon::MediumArtillery => 5,
        Weapon::HeavyArtillery => 6,
    }
}

const WEAPONS: [Weapon; 7] = [
    Weapon::SingleShotRifle,
    Weapon::MagazineRifle,
    Weapon::MachineGun,
    Weapon::MountainArtillery,
    Weapon::FieldArtillery,
    Weapon::MediumArtillery,
    Weapon::HeavyArtillery,
];

fn mm(cm: f64) -> i32 {
    (cm * 10.0).round() as i32
}

/// Read and check `scenarios/etyfw.ron`-shaped text: the first problem
/// found, with its file, line, field and a way to fix it.
pub fn load(text: &str, file: &str) -> Result<Tables, Diagnostic> {
    let src = Source::new(file, text);
    let f: File = src.parse_ron()?;
    let movement = movement_table(&src, &f.movement)?;
    let recon = recon_table(&src, &f.reconnaissance)?;
    let weapons = weapons_table(&src, &f.weapons)?;
    let fire_regular = combat_table(&src, "fire_regular", &f.fire_regular)?;
    let fire_irregular = combat_table(&src, "fire_irregular", &f.fire_irregular)?;
    let close_regular = combat_table(&src, "close_regular", &f.close_regular)?;
    let close_irregular = combat_table(&src, "close_irregular", &f.close_irregular)?;
    check_close(&src, &close_regular, &close_irregular)?;
    check_results(&src, &f.results)?;
    check_rally(&src, &f.rally, &f.recovery_round_up)?;
    let c = f.conversion;
    check_conversion(&src, &c)?;
    let b = f.battle;
    check_battle(&src, &b)?;
    Ok(Tables {
        movement,
        recon,
        weapons,
        fire: [fire_regular, fire_irregular],
        close: [close_regular, close_irregular],
        results: [f.results.regular, f.results.irregular],
        rally: [f.rally.regular, f.rally.irregular],
        recovery_round_up: f.recovery_round_up,
        cover: f.cover,
        conversion: c,
        unseen_distance: mm(b.unseen_distance),
        ambush_distance: mm(b.ambush_distance),
        table_depth: mm(b.table_depth),
        break_fraction: (b.break_numerator, b.break_denominator),
        move_limit: b.move_limit,
        first_mover: b.first_mover,
        fire_results_at_once: b.fire_results_at_once,
        leader_rally_rerolls: b.leader_rally_rerolls,
    })
}

/// A problem of the file at the first line holding `anchor`.
fn err(src: &Source<'_>, anchor: &str, field: String, message: String, hint: &str) -> Diagnostic {
    src.error(
        src.line_of(anchor, 1),
        field,
        message,
        Some(hint.to_string()),
    )
}

/// T1: one row per class and kind, dice counts at least 1 and rising.
fn movement_table(src: &Source<'_>, rows: &[MoveRow]) -> Result<[[MoveDice; 3]; 2], Diagnostic> {
    let mut movement = [[MoveDice { dice: [0; 3] }; 3]; 2];
    let mut seen = [[false; 3]; 2];
    for (i, r) in rows.iter().enumerate() {
        let (c, k) = (class_index(r.class), kind_index(r.kind));
        if seen[c][k] {
            return Err(err(
                src,
                "movement:",
                format!("movement[{i}]"),
                format!("{:?} {:?} is given twice", r.class, r.kind),
                "keep one row for each class and kind",
            ));
        }
        seen[c][k] = true;
        if r.march == 0 || r.march > r.double || r.double > r.charge {
            return Err(err(
                src,
                "movement:",
                format!("movement[{i}]"),
                format!(
                    "{:?} {:?}: the dice must be at least 1 and never fewer at a faster rate (march {}, double {}, charge {})",
                    r.class, r.kind, r.march, r.double, r.charge
                ),
                "T1 of the seed: March <= Double & Trot <= Charge & Retreat",
            ));
        }
        movement[c][k] = MoveDice {
            dice: [r.march, r.double, r.charge],
        };
    }
    for (c, class) in [Class::Regular, Class::Irregular].iter().enumerate() {
        for (k, kind) in [MoveKind::Infantry, MoveKind::Cavalry, MoveKind::Artillery]
            .iter()
            .enumerate()
        {
            if !seen[c][k] {
                return Err(err(
                    src,
                    "movement:",
                    "movement".into(),
                    format!("no row for {class:?} {kind:?}"),
                    "add `(class: ..., kind: ..., march: n, double: n, charge: n)` for it",
                ));
            }
        }
    }
    Ok(movement)
}

/// T3: rows 1 to 7 in order, distances never falling.
fn recon_table(
    src: &Source<'_>,
    file: &ReconFile,
) -> Result<[Vec<[Option<i32>; 3]>; 2], Diagnostic> {
    let mut recon: [Vec<[Option<i32>; 3]>; 2] = [Vec::new(), Vec::new()];
    for (c, (name, rows)) in [("regular", &file.regular), ("irregular", &file.irregular)]
        .into_iter()
        .enumerate()
    {
        for (i, r) in rows.iter().enumerate() {
            if r.score != i as i32 + 1 {
                return Err(err(
                    src,
                    &format!("{name}: ["),
                    format!("reconnaissance.{name}[{i}].score"),
                    format!("row {} has score {}", i + 1, r.score),
                    "list the rows in order from score 1, one per score",
                ));
            }
            let cells = [r.company, r.battalion, r.brigade];
            if cells.iter().any(|d| d.is_some_and(|d| d <= 0.0)) {
                return Err(err(
                    src,
                    &format!("{name}: ["),
                    format!("reconnaissance.{name}[{i}]"),
                    "a distance must be more than 0".into(),
                    "write None for \"-\" (not seen)",
                ));
            }
            recon[c].push(cells.map(|d| d.map(mm)));
        }
        if rows.len() != 7 {
            return Err(err(
                src,
                &format!("{name}: ["),
                format!("reconnaissance.{name}"),
                format!(
                    "{} rows; the table has 7 (D6 1-6, 7 with +1 for open terrain)",
                    rows.len()
                ),
                "give one row for each score 1 to 7",
            ));
        }
    }
    Ok(recon)
}

/// T4/T5: every weapon once, ranges rising, adjustments not positive.
fn weapons_table(src: &Source<'_>, rows: &[WeaponRow]) -> Result<[WeaponStats; 7], Diagnostic> {
    let mut weapons = [None; 7];
    for (i, w) in rows.iter().enumerate() {
        let at = weapon_index(w.weapon);
        if weapons[at].is_some() {
            return Err(err(
                src,
                "weapons:",
                format!("weapons[{i}]"),
                format!("{:?} is given twice", w.weapon),
                "keep one row a weapon",
            ));
        }
        weapons[at] = Some(weapon_stats(src, i, w)?);
    }
    let mut checked_weapons = Vec::new();
    for (i, w) in weapons.iter().enumerate() {
        match w {
            Some(w) => checked_weapons.push(*w),
            None => {
                return Err(err(
                    src,
                    "weapons:",
                    "weapons".into(),
                    format!("no row for {:?}", WEAPONS[i]),
                    "every weapon of T4 needs a row",
                ));
            }
        }
    }
    checked_weapons.try_into().map_err(|_| {
        err(
            src,
            "weapons:",
            "weapons".into(),
            "the weapons table is incomplete".into(),
            "every weapon of T4 needs a row",
        )
    })
}

/// One weapon's row of T4/T5, checked: ranges rising, adjustments not
/// positive.
fn weapon_stats(src: &Source<'_>, i: usize, w: &WeaponRow) -> Result<WeaponStats, Diagnostic> {
    let field = format!("weapons[{i}]");
    if !(0.0 < w.short && w.short < w.effective && w.effective < w.long) {
        return Err(err(
            src,
            "weapons:",
            field,
            format!(
                "{:?}: ranges must rise: short {} < effective {} < long {}",
                w.weapon, w.short, w.effective, w.long
            ),
            "T4 of the seed: Short, Effective, Long in cm",
        ));
    }
    if w.effective_adjust > 0 || w.long_adjust > w.effective_adjust {
        return Err(err(
            src,
            "weapons:",
            field,
            format!(
                "{:?}: the range adjustments must not be positive, nor Long better than Effective ({}, {})",
                w.weapon, w.effective_adjust, w.long_adjust
            ),
            "T5 of the seed reads \"-1-2\": effective_adjust: -1, long_adjust: -2",
        ));
    }
    Ok(WeaponStats {
        short: mm(w.short),
        effective: mm(w.effective),
        long: mm(w.long),
        attack: w.attack,
        effective_adjust: w.effective_adjust,
        long_adjust: w.long_adjust,
    })
}

/// Close combat has defence gradings only (section 12): one block, Light.
fn check_close(
    src: &Source<'_>,
    close_regular: &CombatTable,
    close_irregular: &CombatTable,
) -> Result<(), Diagnostic> {
    for (name, t) in [
        ("close_regular", close_regular),
        ("close_irregular", close_irregular),
    ] {
        if t.blocks[1].is_some() || t.blocks[2].is_some() || t.blocks[0].is_none() {
            return Err(err(
                src,
                &format!("{name}:"),
                name.to_string(),
                "close combat has no attack grading: write every row with `attack: Light`".into(),
                "section 12 of the seed prints defence gradings only",
            ));
        }
    }
    Ok(())
}

/// T10/T11: each class's lost and beaten faces cover 1-6 once.
fn check_results(src: &Source<'_>, results: &ResultsFile) -> Result<(), Diagnostic> {
    for (name, r) in [
        ("regular", &results.regular),
        ("irregular", &results.irregular),
    ] {
        for (what, parts) in [
            (
                "lost",
                vec![
                    &r.lost_retreat_at_once,
                    &r.lost_retreat_next_move,
                    &r.lost_halt,
                ],
            ),
            ("beaten", vec![&r.beaten_rout, &r.beaten_retreat_at_once]),
        ] {
            let mut faces: Vec<i32> = parts.iter().flat_map(|p| p.iter().copied()).collect();
            faces.sort_unstable();
            if faces != [1, 2, 3, 4, 5, 6] {
                return Err(err(
                    src,
                    &format!("{name}: ("),
                    format!("results.{name}.{what}_*"),
                    format!("the {what} results give the D6 faces {faces:?}"),
                    "each face 1-6 must lead to exactly one result",
                ));
            }
        }
        if r.won_advance_at_once.iter().any(|f| !(1..=6).contains(f)) {
            return Err(err(
                src,
                &format!("{name}: ("),
                format!("results.{name}.won_advance_at_once"),
                "a face must be 1 to 6".into(),
                "list D6 faces",
            ));
        }
    }
    Ok(())
}

/// T12: a rally score some stands make and some miss; T13: D6 faces.
fn check_rally(
    src: &Source<'_>,
    rally: &RallyFile,
    recovery_round_up: &[i32],
) -> Result<(), Diagnostic> {
    for (name, r) in [("regular", rally.regular), ("irregular", rally.irregular)] {
        let (lo, hi) = r.die.kind().range();
        if r.rallies_from <= lo || r.rallies_from > hi {
            return Err(err(
                src,
                "rally:",
                format!("rally.{name}.rallies_from"),
                format!(
                    "{} on a {:?} would make every stand rally or none",
                    r.rallies_from, r.die
                ),
                "T12: Regular AvD 4, Irregular D6 5",
            ));
        }
    }
    if recovery_round_up.iter().any(|x| !(1..=6).contains(x)) {
        return Err(err(
            src,
            "recovery_round_up",
            "recovery_round_up".into(),
            "a face must be 1 to 6".into(),
            "T13: [1, 2, 3]",
        ));
    }
    Ok(())
}

/// Figures, stands and fleet stands of the conversion at least 1.
fn check_conversion(src: &Source<'_>, c: &Conversion) -> Result<(), Diagnostic> {
    if c.figures_per_stand == 0
        || c.regular_stands_per_sp == 0
        || c.irregular_stands_per_sp == 0
        || c.fleet_stands == 0
    {
        return Err(err(
            src,
            "conversion:",
            "conversion".into(),
            "figures a stand, stands a strength point and fleet stands must be at least 1".into(),
            "the seed mounts 2 figures a stand",
        ));
    }
    Ok(())
}

/// The battle's break fraction, move limit and distances within bounds.
fn check_battle(src: &Source<'_>, b: &BattleParams) -> Result<(), Diagnostic> {
    if b.break_denominator == 0 || b.break_numerator == 0 || b.break_numerator > b.break_denominator
    {
        return Err(err(
            src,
            "break_numerator",
            "battle.break_numerator".into(),
            format!(
                "the break fraction {}/{} must be more than 0 and at most 1",
                b.break_numerator, b.break_denominator
            ),
            "half: break_numerator: 1, break_denominator: 2",
        ));
    }
    if b.move_limit == 0 || b.move_limit > 100 {
        return Err(err(
            src,
            "move_limit",
            "battle.move_limit".into(),
            format!("{} moves: give 1 to 100", b.move_limit),
            "the draft fights at most 12 moves",
        ));
    }
    for (name, v) in [
        ("unseen_distance", b.unseen_distance),
        ("ambush_distance", b.ambush_distance),
        ("table_depth", b.table_depth),
    ] {
        if !(v > 0.0 && v <= 1000.0) {
            return Err(err(
                src,
                name,
                format!("battle.{name}"),
                format!("{v} cm: give a distance above 0 and at most 1000"),
                "distances are the seed's centimetres",
            ));
        }
    }
    Ok(())
}

/// A fire or close-combat table: rows of each grading consecutive from
/// their lowest score, within the die's faces, never more casualties
/// against stronger cover, never fewer at a higher score.
fn combat_table(src: &Source<'_>, name: &str, t: &CombatFile) -> Result<CombatTable, Diagnostic> {
    let line = src.line_of(&format!("{name}:"), 1);
    let fail = |i: usize, message: String, hint: &str| {
        Err(src.error(
            line.map(|l| l + 1 + i),
            format!("{name}.rows[{i}]"),
            message,
            Some(hint.to_string()),
        ))
    };
    let (lo, hi) = t.die.kind().range();
    let mut blocks: [Option<(i32, Vec<[u32; 3]>)>; 3] = [None, None, None];
    for (i, r) in t.rows.iter().enumerate() {
        if r.score < lo || r.score > hi {
            return fail(
                i,
                format!(
                    "score {} is not a face of the {:?} die ({lo}-{hi})",
                    r.score, t.die
                ),
                "scores below the lowest row inflict nothing and need no row",
            );
        }
        let cells = [r.hits.0, r.hits.1, r.hits.2];
        if cells[0] < cells[1] || cells[1] < cells[2] {
            return fail(
                i,
                format!("{cells:?}: a stronger defence grading never suffers more"),
                "write the cells Light, Medium, Heavy, never rising",
            );
        }
        match &mut blocks[r.attack.index()] {
            None => blocks[r.attack.index()] = Some((r.score, vec![cells])),
            Some((low, rows)) => {
                if r.score != *low + rows.len() as i32 {
                    return fail(
                        i,
                        format!(
                            "{:?} attack: score {} follows score {}",
                            r.attack,
                            r.score,
                            *low + rows.len() as i32 - 1
                        ),
                        "list each grading's rows together, one a score, lowest first",
                    );
                }
                if let Some(prev) = rows.last()
                    && (0..3).any(|k| cells[k] < prev[k])
                {
                    return fail(
                        i,
                        format!("{cells:?} is less than the row below ({prev:?})"),
                        "a higher score never inflicts fewer casualties",
                    );
                }
                rows.push(cells);
            }
        }
    }
    if blocks.iter().all(Option::is_none) {
        return Err(src.error(
            line,
            name.to_string(),
            "the table has no rows",
            Some("give the printed rows of the seed".into()),
        ));
    }
    Ok(CombatTable { die: t.die, blocks })
}
