//! Reading the tables of `tables.ron`: which modifiers apply to a roll, and
//! the line a modified roll falls on.

use crate::calendar::GameMonth;
use crate::geo::Terrain;
use crate::scenario::tables::{Amount, Condition, Modifier, Row};
use crate::scenario::{Leader, Nation, Quality, Side, UnitKind};

/// What a modifier may look at, seen from the rolling side.
#[derive(Clone, Debug, Default)]
pub struct RollContext<'a> {
    pub side: Option<Side>,
    pub month: Option<GameMonth>,
    /// Nation and kind of each non-leader unit of the rolling stack.
    pub units: Vec<(Nation, UnitKind)>,
    pub terrain: Option<Terrain>,
    pub in_settlement: bool,
    pub enemy_in_settlement: bool,
    pub under_siege: bool,
    pub marching: bool,
    /// Firing or melee factors times 100 over enemy units.
    pub fire_ratio: Option<u32>,
    pub melee_ratio: Option<u32>,
    pub gunboats_beside_river: u32,
    pub fleet: bool,
    /// Places controlled by each side, by name (for `Controls`).
    pub controls: Vec<(Side, String)>,
    pub osman_and_railhead_on_extension: bool,
    pub railhead_in_hills: bool,
    pub quality: Option<Quality>,
    /// The leader whose ratings apply.
    pub leader: Option<&'a Leader>,
}

/// The value of one modifier here, or `None` if it does not apply.
pub fn value(m: &Modifier, cx: &RollContext<'_>) -> Option<i32> {
    let base = match &m.amount {
        Amount::Fixed(v) => *v,
        Amount::LeaderStrategic => cx.leader?.strategic,
        Amount::LeaderTactical => cx.leader?.tactical,
    };
    let n = cx.units.len() as u32;
    let within = |v: u32, min: u32, max: Option<u32>| v >= min && max.is_none_or(|m| v <= m);
    let applies = match &m.when {
        Condition::Always => true,
        Condition::Side(s) => cx.side == Some(*s),
        Condition::Months(ms) => cx.month.is_some_and(|mo| ms.contains(&mo.month())),
        Condition::AllNation(nat) => !cx.units.is_empty() && cx.units.iter().all(|(x, _)| x == nat),
        Condition::HasKind(k) => cx.units.iter().any(|(_, x)| x == k),
        Condition::StackSize { min, max } => within(n, *min, *max),
        Condition::InTerrain(t) => cx.terrain == Some(*t),
        Condition::EnemyInSettlement => cx.enemy_in_settlement,
        Condition::InSettlement => cx.in_settlement,
        Condition::UnderSiege => cx.under_siege,
        Condition::Marching => cx.marching,
        Condition::FactorRatio { min, max } => cx.fire_ratio.is_some_and(|r| within(r, *min, *max)),
        Condition::MeleeRatio { min, max } => cx.melee_ratio.is_some_and(|r| within(r, *min, *max)),
        Condition::GunboatsBesideRiver { max } => {
            return (cx.gunboats_beside_river > 0 && base != 0)
                .then(|| base * cx.gunboats_beside_river.min(*max) as i32);
        }
        Condition::Fleet => cx.fleet,
        Condition::Controls { side, place } => {
            cx.controls.iter().any(|(s, p)| s == side && p == place)
        }
        Condition::OsmanAndRailheadOnExtension => cx.osman_and_railhead_on_extension,
        Condition::RailheadInHills => cx.railhead_in_hills,
        Condition::Quality(q) => cx.quality == Some(*q),
    };
    (applies && base != 0).then_some(base)
}

/// Every modifier that applies, with its name and value.
pub fn applicable(mods: &[Modifier], cx: &RollContext<'_>) -> Vec<(String, i32)> {
    mods.iter()
        .filter_map(|m| {
            value(m, cx).map(|v| {
                let name = match (&m.amount, cx.leader) {
                    (Amount::LeaderStrategic | Amount::LeaderTactical, Some(l)) => {
                        format!("{} ({})", m.name, l.name)
                    }
                    _ => m.name.clone(),
                };
                (name, v)
            })
        })
        .collect()
}

/// The row of a table a modified roll falls on, with its range as printed
/// ("5-6", "2 or less", "9+").
pub fn row<T>(rows: &[Row<T>], roll: i32) -> Option<(&Row<T>, String)> {
    let (i, r) = crate::scenario::tables::row_for(rows, roll)?;
    let mut label = String::with_capacity(16);
    push_range(&mut label, rows.len(), i, |k| rows[k].to);
    Some((r, label))
}

/// The printed range of row `i` of rows with the given upper bounds.
pub fn range_label(tos: &[i32], i: usize) -> String {
    let mut label = String::with_capacity(16);
    push_range(&mut label, tos.len(), i, |k| tos[k]);
    label
}

/// [`range_label`] written onto `out`, for row `i` of `len` rows whose
/// upper bounds `to` gives: the line of a roll is built in one string
/// rather than formatted piece by piece.
pub fn push_range(out: &mut String, len: usize, i: usize, to: impl Fn(usize) -> i32) {
    let hi = to(i);
    if i == 0 {
        push_int(out, i64::from(hi));
        out.push_str(" or less");
        return;
    }
    let lo = to(i - 1) + 1;
    push_int(out, i64::from(lo));
    if i + 1 == len {
        out.push('+');
    } else if lo != hi {
        out.push('-');
        push_int(out, i64::from(hi));
    }
}

/// `v` in decimal onto `out`, as `{}` prints it.
pub fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut n = v.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // A digit: below 10, so the cast keeps it whole.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_print_as_a_player_reads_them() {
        let tos = [3, 4, 6, 99];
        assert_eq!(range_label(&tos, 0), "3 or less");
        assert_eq!(range_label(&tos, 1), "4");
        assert_eq!(range_label(&tos, 2), "5-6");
        assert_eq!(range_label(&tos, 3), "7+");
    }

    /// The label and the numbers written piece by piece read as the
    /// formatted ones, for bounds of every sign and size.
    #[test]
    fn labels_written_in_place_read_as_formatted() {
        let old = |tos: &[i32], i: usize| {
            let hi = tos[i];
            if i == 0 {
                return format!("{hi} or less");
            }
            let lo = tos[i - 1] + 1;
            if i + 1 == tos.len() {
                format!("{lo}+")
            } else if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo}-{hi}")
            }
        };
        let mut scatter = crate::testing::Scatter::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..2000 {
            let len = 1 + scatter.below(6);
            let mut to = i32::try_from(scatter.below(400)).unwrap_or(0) - 200;
            let mut tos = Vec::new();
            for _ in 0..len {
                tos.push(to);
                to +=
                    i32::try_from(scatter.below(if round % 2 == 0 { 3 } else { 40 })).unwrap_or(0);
                to += 1;
            }
            for i in 0..len {
                assert_eq!(range_label(&tos, i), old(&tos, i), "{tos:?} row {i}");
            }
        }
        for v in [0i64, 1, -1, 9, 10, -10, 99, 100, 12345, i64::MAX, i64::MIN] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }

    #[test]
    fn leader_amounts_need_a_leader() {
        let m = Modifier {
            name: "leader".into(),
            amount: Amount::LeaderStrategic,
            when: Condition::Always,
        };
        assert_eq!(value(&m, &RollContext::default()), None);
        let l = Leader {
            name: "Hicks".into(),
            aliases: vec![],
            side: Side::Egyptian,
            nation: Nation::Egyptian,
            strategic: 1,
            tactical: 1,
            c_in_c: true,
            movement: 8,
        };
        let cx = RollContext {
            leader: Some(&l),
            ..RollContext::default()
        };
        assert_eq!(value(&m, &cx), Some(1));
        assert_eq!(
            applicable(std::slice::from_ref(&m), &cx),
            vec![("leader (Hicks)".to_string(), 1)]
        );
    }
}
