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
    Some((
        r,
        range_label(rows.iter().map(|r| r.to).collect::<Vec<_>>().as_slice(), i),
    ))
}

/// The printed range of row `i` of rows with the given upper bounds.
pub fn range_label(tos: &[i32], i: usize) -> String {
    let hi = tos[i];
    let last = i + 1 == tos.len();
    if i == 0 {
        return format!("{hi} or less");
    }
    let lo = tos[i - 1] + 1;
    if last {
        format!("{lo}+")
    } else if lo == hi {
        format!("{lo}")
    } else {
        format!("{lo}-{hi}")
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
