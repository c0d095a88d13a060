//! Setting up a scenario (rules 2.1-2.3): every counter of the counter mix
//! is created, and the set-up lines are placed by the players' choices or,
//! where they made none, by the default policy (the first hex of the zone,
//! nearest the place it is described from; stack limits respected by
//! filling the next hexes, never by overfilling one).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{GameState, LeaderState, Status, Unit, UnitId};
use crate::engine::orders::SetupOrder;
use crate::geo::Hex;
use crate::scenario::definition::{SpecialRule, UnitLine};
use crate::scenario::zone::zone_hexes;
use crate::scenario::{Scenario, Side};

/// The players' set-up choices: for a set-up line (by index), the hexes to
/// use, filled in order.
pub type Placements = BTreeMap<usize, Vec<Hex>>;

/// Something the set-up could not do as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("set-up line {line}: {message}")]
    Zone { line: usize, message: String },
    #[error("set-up line {line}: hex {hex} is not in the zone {zone}")]
    NotInZone { line: usize, hex: Hex, zone: String },
    #[error(
        "set-up line {line}: no room in its {hexes} hexes for no more than {limit} Mahdist units a hex, leaders and boats not counted (2.3)"
    )]
    Crowded {
        line: usize,
        limit: usize,
        hexes: usize,
    },
}

/// A note about the set-up for the result log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupNote {
    /// No counter left: the unit is lost (2.2).
    NoCounter { unit_type: String, line: usize },
    /// Where a line was placed and who decided.
    Placed {
        line: usize,
        hexes: Vec<Hex>,
        by_default: bool,
    },
}

/// Create every counter and place the scenario's set-up.
pub fn initial_state(
    scn: &Scenario,
    choices: &Placements,
) -> Result<(GameState, Vec<SetupNote>), SetupError> {
    let mut state = GameState {
        scenario: scn.def.id.clone(),
        month: scn.def.start,
        units: counters(scn).into(),
        leaders: scn
            .units
            .leaders()
            .iter()
            .map(|l| LeaderState {
                name: l.name.clone(),
                side: l.side,
                hex: None,
                removed: false,
            })
            .collect(),
        control: BTreeMap::new(),
        british_attrition_loss: false,
        british_leader_stack_destroyed: false,
        ended_by_event: false,
        counters: BTreeMap::new(),
        result: None,
        arrived: Default::default(),
        called: Vec::new(),
        happened: Default::default(),
        effects: Default::default(),
        rail_built: scn
            .map
            .railways()
            .iter()
            .map(|r| (r.name.clone(), r.built))
            .collect(),
        railhead: None,
        standing_lose_first: BTreeMap::new(),
        options: Default::default(),
        setup_placed: false,
    };
    let limit = mahdist_setup_limit(scn);
    let mut notes = Vec::new();
    for (i, d) in scn.def.setup.iter().enumerate() {
        let zone: Vec<Hex> = match scn.setup_zone(i) {
            Some(Ok(z)) => z.into_owned(),
            Some(Err(e)) => {
                return Err(SetupError::Zone {
                    line: i,
                    message: e,
                });
            }
            None => zone_hexes(&scn.map, &d.zone).map_err(|e| SetupError::Zone {
                line: i,
                message: e.to_string(),
            })?,
        };
        let (hexes, by_default) = match choices.get(&i) {
            Some(chosen) => {
                for h in chosen {
                    if !zone.contains(h) {
                        return Err(SetupError::NotInZone {
                            line: i,
                            hex: *h,
                            zone: format!("{:?}", d.zone),
                        });
                    }
                }
                (chosen.clone(), false)
            }
            None => (zone.clone(), true),
        };
        if hexes.is_empty() {
            return Err(SetupError::Zone {
                line: i,
                message: "no hex to place in".into(),
            });
        }
        let cap = if d.side == Side::Mahdist { limit } else { None };
        let mut used = Vec::new();
        let mut slot = 0usize;
        for line in &d.units {
            let counted = scn
                .units
                .get(&line.unit)
                .is_some_and(|t| !t.kind.is_river_unit());
            for _ in 0..line.count {
                // The next hex with room under the stack limit (2.3: "no
                // more than 6 non-leader or boat units per hex"); never
                // more, whatever the zone.
                if let (Some(c), true) = (cap, counted) {
                    while slot < hexes.len() && counts_for_limit(&state, scn, hexes[slot]) >= c {
                        slot += 1;
                    }
                    if slot >= hexes.len() {
                        return Err(SetupError::Crowded {
                            line: i,
                            limit: c,
                            hexes: hexes.len(),
                        });
                    }
                }
                let hex = hexes[slot.min(hexes.len() - 1)];
                if place_counter(&mut state, line, hex) {
                    if !used.contains(&hex) {
                        used.push(hex);
                    }
                } else {
                    notes.push(SetupNote::NoCounter {
                        unit_type: line.unit.clone(),
                        line: i,
                    });
                }
            }
        }
        let leader_hex = used.first().copied().unwrap_or(hexes[0]);
        for name in &d.leaders {
            if let Some(def) = scn.units.leader(name)
                && let Some(l) = state.leaders.iter_mut().find(|l| l.name == def.name)
            {
                l.hex = Some(leader_hex);
            }
        }
        if used.is_empty() && !d.leaders.is_empty() {
            used.push(leader_hex);
        }
        notes.push(SetupNote::Placed {
            line: i,
            hexes: used,
            by_default,
        });
    }
    for u in &state.units {
        if let Some(h) = u.hex()
            && scn.map.settlement_at(h).is_some()
        {
            state.control.insert(h, u.side);
        }
    }
    Ok((state, notes))
}

fn counts_for_limit(state: &GameState, scn: &Scenario, hex: Hex) -> usize {
    state
        .units
        .iter()
        .filter(|u| u.hex() == Some(hex) && u.side == Side::Mahdist)
        .filter(|u| {
            scn.units
                .get(&u.unit_type)
                .is_some_and(|t| !t.kind.is_river_unit())
        })
        .count()
}

/// Put the first free counter of the line's type in `hex`; false if none.
fn place_counter(state: &mut GameState, line: &UnitLine, hex: Hex) -> bool {
    let free = state
        .units
        .iter_mut()
        .find(|u| *u.unit_type == line.unit && matches!(u.status, Status::Pool | Status::Reserve));
    match free {
        Some(u) => {
            u.status = Status::OnMap(hex);
            if let Some(s) = line.strength {
                u.strength = s;
            }
            if line.name.is_some() {
                u.name = line.name.as_deref().map(Into::into);
            }
            true
        }
        None => false,
    }
}

/// Every counter of the counter mix, numbered by type: `ER01` ... `ER35`.
fn counters(scn: &Scenario) -> Vec<Unit> {
    let mut out = Vec::new();
    for t in scn.units.types() {
        let width = if t.counters > 99 { 3 } else { 2 };
        let reserve = scn.def.pool_excludes.contains(&t.id);
        // One name shared by the counters of a type.
        let unit_type: Arc<str> = t.id.as_str().into();
        for n in 1..=t.counters {
            out.push(Unit {
                id: UnitId(format!("{}{:0width$}", t.code, n, width = width).into()),
                unit_type: Arc::clone(&unit_type),
                side: t.side,
                name: None,
                strength: t.strength,
                status: if reserve {
                    Status::Reserve
                } else {
                    Status::Pool
                },
                disrupted: false,
                origin: None,
            });
        }
    }
    out
}

/// The set-up line (index) that places each counter: counters go to the
/// lines in order, the first free counter of each type first, whatever
/// the hexes chosen.
pub fn setup_lines(scn: &Scenario) -> BTreeMap<UnitId, usize> {
    (*shared_setup_lines(scn)).clone()
}

/// [`setup_lines`], worked out once on this thread for the scenario met
/// last and shared: the lines depend on the counter mix and the
/// scenario's set-up alone, and a campaign asks for them at each set-up.
pub fn shared_setup_lines(scn: &Scenario) -> Arc<BTreeMap<UnitId, usize>> {
    KEPT_LINES.with(|cell| {
        let mut kept = cell.borrow_mut();
        if let Some(k) = kept.as_ref()
            && Arc::ptr_eq(&k.units, &scn.units)
            && Arc::ptr_eq(&k.def, &scn.def)
        {
            return k.lines.clone();
        }
        let lines = Arc::new(work_out_setup_lines(scn));
        *kept = Some(KeptLines {
            units: scn.units.clone(),
            def: scn.def.clone(),
            lines: lines.clone(),
        });
        lines
    })
}

/// The set-up lines kept on a thread, with the counter mix and the
/// scenario they were worked out from (held, so that their addresses
/// stay theirs: another scenario is never taken for them).
struct KeptLines {
    units: Arc<crate::scenario::Units>,
    def: Arc<crate::scenario::ScenarioFile>,
    lines: Arc<BTreeMap<UnitId, usize>>,
}

thread_local! {
    static KEPT_LINES: std::cell::RefCell<Option<KeptLines>> =
        const { std::cell::RefCell::new(None) };
}

/// [`setup_lines`] worked out afresh: the counters read from the counter
/// mix (`scn.units`), the lines from the scenario (`scn.def`).
fn work_out_setup_lines(scn: &Scenario) -> BTreeMap<UnitId, usize> {
    let all = counters(scn);
    let mut taken = vec![false; all.len()];
    let mut out = BTreeMap::new();
    for (i, d) in scn.def.setup.iter().enumerate() {
        for line in &d.units {
            for _ in 0..line.count {
                if let Some(k) =
                    (0..all.len()).find(|&k| !taken[k] && *all[k].unit_type == line.unit)
                {
                    taken[k] = true;
                    out.insert(all[k].id.clone(), i);
                }
            }
        }
    }
    out
}

/// The hexes a set-up line may place its units in.
fn line_zone(scn: &Scenario, line: usize) -> Vec<Hex> {
    match scn.setup_zone(line) {
        Some(Ok(z)) => z.into_owned(),
        _ => Vec::new(),
    }
}

/// The most non-leader, non-boat Mahdist units a hex may hold at the
/// set-up, if the scenario sets a limit (2.3).
pub fn mahdist_setup_limit(scn: &Scenario) -> Option<usize> {
    scn.def.special_rules.iter().find_map(|r| match r {
        SpecialRule::MahdistSetupStackLimit(n) => Some(*n as usize),
        _ => None,
    })
}

/// What set-up orders are checked against, worked out once for a set of
/// orders: the line that places each counter and each line's zone.
pub struct SetupIndex {
    lines: Arc<BTreeMap<UnitId, usize>>,
    /// Each line's zone, worked out when first asked for.
    zones: Vec<std::cell::OnceCell<Vec<Hex>>>,
}

impl SetupIndex {
    pub fn new(scn: &Scenario) -> SetupIndex {
        SetupIndex {
            lines: shared_setup_lines(scn),
            zones: (0..scn.def.setup.len())
                .map(|_| std::cell::OnceCell::new())
                .collect(),
        }
    }

    fn zone(&self, scn: &Scenario, line: usize) -> &[Hex] {
        self.zones
            .get(line)
            .map_or(&[], |z| z.get_or_init(|| line_zone(scn, line)).as_slice())
    }
}

/// Carry out one set-up order for `side` (2.1, 2.3): every unit and leader
/// named must be of the side's set-up, the place in the zone of each one's
/// set-up line, river units beside a river (6.0), and a Mahdist hex may not
/// hold more than the scenario's limit. Nothing moves if anything is
/// wrong; the reason is returned.
pub fn apply_setup_order(
    scn: &Scenario,
    state: &mut GameState,
    side: Side,
    order: &SetupOrder,
) -> Result<(), String> {
    apply_setup_order_with(scn, state, side, order, &SetupIndex::new(scn))
}

/// [`apply_setup_order`] with the index worked out once for all the orders.
pub fn apply_setup_order_with(
    scn: &Scenario,
    state: &mut GameState,
    side: Side,
    order: &SetupOrder,
    ix: &SetupIndex,
) -> Result<(), String> {
    let map = &scn.map;
    if state.month != scn.def.start {
        return Err(format!(
            "set-up orders are for the opening month, {} (2.1)",
            scn.def.start.long_name()
        ));
    }
    if state.setup_placed {
        return Err(
            "the set-up is over: both sides' set-ups were placed and sent to both players before the first month's orders (2.1)"
                .into(),
        );
    }
    if state.effects.egyptian_turn_played {
        return Err(
            "the set-up is over: both sides set up before the first Egyptian player turn (2.1)"
                .into(),
        );
    }
    let lines = &ix.lines;
    let place = map.describe(order.at);
    let mut idx = Vec::new();
    for id in &order.units {
        let Some(i) = state.units.iter().position(|u| u.id == *id) else {
            return Err(format!("no unit {id}"));
        };
        let u = &state.units[i];
        if u.side != side {
            return Err(format!("{id} is not {} unit", side.a()));
        }
        let (Some(&line), Some(_)) = (lines.get(id), u.hex()) else {
            return Err(format!("{id} is not in the {side} set-up (2.1)"));
        };
        if !ix.zone(scn, line).contains(&order.at) {
            return Err(format!(
                "{id} is set up by the line \"{}\": not at {place} (2.1)",
                scn.def.setup[line].text
            ));
        }
        let river = scn
            .units
            .get(&u.unit_type)
            .is_some_and(|t| t.kind.is_river_unit());
        if river && !map.is_riverside(order.at) {
            return Err(format!("{id} is a river unit: not away from a river (6.0)"));
        }
        idx.push(i);
    }
    let mut leaders = Vec::new();
    for name in &order.leaders {
        let Some(def) = scn.units.leader(name) else {
            return Err(format!("no leader {name}"));
        };
        let line = scn
            .def
            .setup
            .iter()
            .position(|d| d.leaders.iter().any(|l| l.eq_ignore_ascii_case(&def.name)));
        let Some(line) = line.filter(|_| def.side == side) else {
            return Err(format!("{} is not in the {side} set-up (2.1)", def.name));
        };
        if !ix.zone(scn, line).contains(&order.at) {
            return Err(format!(
                "{} is set up by the line \"{}\": not at {place} (2.1)",
                def.name, scn.def.setup[line].text
            ));
        }
        leaders.push(def.name.clone());
    }
    let limit = mahdist_setup_limit(scn);
    if let (Some(c), Side::Mahdist) = (limit, side) {
        let arriving = idx
            .iter()
            .filter(|&&i| state.units[i].hex() != Some(order.at))
            .filter(|&&i| {
                scn.units
                    .get(&state.units[i].unit_type)
                    .is_some_and(|t| !t.kind.is_river_unit())
            })
            .count();
        let n = counts_for_limit(state, scn, order.at) + arriving;
        if n > c {
            return Err(format!(
                "{n} units at {place}: no more than {c} non-leader or boat units per hex (2.3)"
            ));
        }
    }
    let has_units = idx.len()
        + state
            .units
            .iter()
            .filter(|u| u.side == side && u.hex() == Some(order.at))
            .count();
    if !leaders.is_empty() && has_units == 0 {
        return Err("a leader never stands alone (7.0): name units with him".into());
    }
    for i in idx {
        state.units[i].status = Status::OnMap(order.at);
    }
    for name in leaders {
        if let Some(l) = state.leaders.iter_mut().find(|l| l.name == name) {
            l.hex = Some(order.at);
        }
    }
    if map.settlement_at(order.at).is_some() {
        state.control.insert(order.at, side);
    }
    Ok(())
}

/// After the set-up orders: a leader left without units joins the first
/// stack of his side in his set-up line's zone (the default placement's
/// order); the leaders moved so.
pub fn rejoin_lone_leaders(
    scn: &Scenario,
    state: &mut GameState,
    side: Side,
) -> Vec<(String, Hex)> {
    let mut moved = Vec::new();
    for k in 0..state.leaders.len() {
        let l = &state.leaders[k];
        let Some(h) = l.hex.filter(|_| l.side == side && !l.removed) else {
            continue;
        };
        let occupied = |state: &GameState, h: Hex| {
            state
                .units
                .iter()
                .any(|u| u.side == side && u.hex() == Some(h))
        };
        if occupied(state, h) {
            continue;
        }
        let line = scn
            .def
            .setup
            .iter()
            .position(|d| d.leaders.iter().any(|x| x.eq_ignore_ascii_case(&l.name)));
        let to = line
            .map(|i| line_zone(scn, i))
            .unwrap_or_default()
            .into_iter()
            .find(|h| occupied(state, *h));
        if let Some(to) = to {
            state.leaders[k].hex = Some(to);
            moved.push((state.leaders[k].name.clone(), to));
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::DataSet;

    /// The set-up lines kept on a thread are those worked out afresh, for
    /// each scenario in turn, and never another scenario's: a copy of a
    /// scenario given another set-up gets its own.
    #[test]
    fn kept_set_up_lines_are_the_scenarios_own() {
        let data = DataSet::embedded().expect("the embedded data loads");
        let ids = data.scenario_ids();
        for _ in 0..2 {
            for id in &ids {
                let scn = data.scenario(id).expect("a scenario");
                let kept = shared_setup_lines(&scn);
                assert_eq!(*kept, work_out_setup_lines(&scn), "{id}");
                assert!(!kept.is_empty(), "{id}: the set-up places counters");
                assert!(Arc::ptr_eq(&kept, &shared_setup_lines(&scn)), "{id}");
                assert_eq!(setup_lines(&scn), *kept, "{id}");
            }
        }
        let scn = data.scenario(&ids[0]).expect("a scenario");
        let mut def = (*scn.def).clone();
        def.setup.reverse();
        let mut other = scn.clone();
        other.def = Arc::new(def);
        let theirs = shared_setup_lines(&other);
        assert_eq!(*theirs, work_out_setup_lines(&other));
        assert_ne!(
            *theirs,
            *shared_setup_lines(&scn),
            "another set-up, other lines"
        );
        assert_eq!(*shared_setup_lines(&scn), work_out_setup_lines(&scn));
    }
}
