//! Battles sent to the table (docs/tabletop.md): the turn stops at the
//! combat the game's option selects, and the turn played again from its
//! start with the result is the turn an uninterrupted run with that
//! result gives (ARCHITECTURE.md, "A turn stopped for a table battle").

use std::collections::BTreeMap;

use dervish::battle::result::{Forces, read};
use dervish::battle::table::{Settlement, TableResolver};
use dervish::dice::{Dice, SeededDice};
use dervish::engine::elsewhere::{BattleKey, CampaignTables, Resolver};
use dervish::engine::events::Event;
use dervish::engine::orders::Orders;
use dervish::engine::{TurnResult, play_player_turn_resolving};
use dervish::orders::{self, Input, Vocabulary};
use dervish::scenario::{Scenario, Side};
use dervish::state::{GameState, TableBattles, TableSelect};

mod common;

/// The British column at Abu Klea attacks the Mahdists at 2333.
fn battle() -> (Scenario, GameState, Orders) {
    let (scn, state) = common::fixture("table-battle.toml");
    let vocab = Vocabulary::new(&scn).in_play(&state);
    let p = orders::parse(
        &Input::text("MARCH STACK \"Abu Klea\" TO 2333 ATTACK ANY\n"),
        &vocab,
    )
    .expect("orders");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let checked = orders::check(&p.sheet, &scn, &state, Side::Egyptian);
    assert!(!checked.refused);
    (scn, state, checked.orders)
}

fn play(
    scn: &Scenario,
    state: &GameState,
    orders: &Orders,
    options: &TableBattles,
    settled: &BTreeMap<BattleKey, Settlement>,
) -> (TurnResult, Option<dervish::battle::table::Stopped>) {
    let mut dice = Dice::new(SeededDice::from_seed(1885));
    let mut auto = CampaignTables;
    let mut resolver = TableResolver::new(options, settled, &mut auto);
    let r = play_player_turn_resolving(
        scn,
        state.clone(),
        Side::Egyptian,
        orders,
        &mut dice,
        &mut resolver,
    );
    (r, resolver.stopped)
}

/// Combats to the table as `select` says, with no cap.
fn selecting(select: TableSelect) -> TableBattles {
    TableBattles {
        select,
        ..TableBattles::default()
    }
}

fn all() -> TableBattles {
    selecting(TableSelect::All)
}

/// The combats at `place` to the table.
fn flagged(scn: &Scenario, place: &str) -> TableBattles {
    TableBattles {
        flagged: [scn.map.resolve(place).unwrap()].into(),
        ..selecting(TableSelect::Flagged)
    }
}

const RESULT: &str = common::TABLE_RESULT;

#[test]
fn the_turn_stops_at_the_selected_combat_and_resumes_as_an_uninterrupted_run() {
    let (scn, state, orders) = battle();
    let none = BTreeMap::new();
    let (stopped_run, stopped) = play(&scn, &state, &orders, &all(), &none);
    assert!(stopped_run.halted);
    let stopped = stopped.expect("the turn stopped at a combat");
    assert_eq!(stopped.combat.attacker, Side::Egyptian);
    assert_eq!(stopped.combat.key.number, 1);
    assert_eq!(stopped.combat.attackers.len(), 5);
    assert_eq!(stopped.combat.defenders.len(), 6);
    // Nothing of the combat was rolled: the last event is its beginning.
    assert!(matches!(
        stopped_run.events.last(),
        Some(Event::CombatBegins { .. })
    ));

    let forces = Forces::of(&scn, &stopped.state, &stopped.combat);
    let result = read(RESULT, &forces, &scn.map).unwrap_or_else(|e| panic!("{e:#?}"));
    let mut settled = BTreeMap::new();
    settled.insert(
        stopped.combat.key,
        Settlement::Table {
            text: RESULT.into(),
            resolved: result.resolved("on the table (Volley Fire)".into()),
        },
    );
    let (resumed, again) = play(&scn, &state, &orders, &all(), &settled);
    assert!(!resumed.halted && again.is_none());
    // The resumed turn begins with exactly what the stopped turn had done.
    assert_eq!(
        resumed.events[..stopped_run.events.len()],
        stopped_run.events[..]
    );
    let at = |r: &TurnResult, id: &str| {
        r.state
            .units
            .iter()
            .find(|u| &*u.id.0 == id)
            .map(|u| (u.hex(), u.disrupted))
            .expect("unit")
    };
    assert_eq!(at(&resumed, "MS001").0, None);
    assert!(at(&resumed, "MS004").1);
    let log = dervish::render::log::render(&scn.map, &resumed.events);
    assert!(log.contains("resolved on the table (Volley Fire)"), "{log}");
    assert!(log.contains("Egyptian won"), "{log}");

    // An uninterrupted run given the same result from the start is the
    // same turn, byte for byte.
    let (uninterrupted, _) = play(&scn, &state, &orders, &all(), &settled);
    assert_eq!(
        serde_json::to_string(&uninterrupted.state).unwrap(),
        serde_json::to_string(&resumed.state).unwrap()
    );
    assert_eq!(uninterrupted.events, resumed.events);
}

#[test]
fn a_combat_the_option_does_not_select_is_played_on_the_tables() {
    let (scn, state, orders) = battle();
    let none = BTreeMap::new();
    let plain = {
        let mut dice = Dice::new(SeededDice::from_seed(1885));
        dervish::engine::play_player_turn(&scn, state.clone(), Side::Egyptian, &orders, &mut dice)
    };
    for options in [
        TableBattles::default(),
        selecting(TableSelect::Above(100)),
        TableBattles {
            cap: Some(0),
            ..all()
        },
        flagged(&scn, "Metammeh"),
    ] {
        let (r, stopped) = play(&scn, &state, &orders, &options, &none);
        assert!(stopped.is_none() && !r.halted, "{options:?}");
        assert_eq!(r, plain, "{options:?}");
    }
    // Selected by size or by a flag on either hex, it stops.
    for options in [selecting(TableSelect::Above(5)), flagged(&scn, "2333")] {
        let (r, stopped) = play(&scn, &state, &orders, &options, &none);
        assert!(stopped.is_some() && r.halted, "{options:?}");
    }
}

#[test]
fn a_battle_past_its_deadline_is_resolved_on_the_tables_and_the_log_says_so() {
    let (scn, state, orders) = battle();
    let (_, stopped) = play(&scn, &state, &orders, &all(), &BTreeMap::new());
    let key = stopped.expect("stopped").combat.key;
    let settled = [(key, Settlement::Deadline)].into();
    let (r, again) = play(&scn, &state, &orders, &all(), &settled);
    assert!(!r.halted && again.is_none());
    let log = dervish::render::log::render(&scn.map, &r.events);
    assert!(
        log.contains("no result of the table battle came by its deadline"),
        "{log}"
    );
    // The tables were rolled: the same rolls as a game without table
    // battles.
    let plain = {
        let mut dice = Dice::new(SeededDice::from_seed(1885));
        let mut tables = CampaignTables;
        let tables: &mut dyn Resolver = &mut tables;
        play_player_turn_resolving(
            &scn,
            state.clone(),
            Side::Egyptian,
            &orders,
            &mut dice,
            tables,
        )
    };
    assert_eq!(r.state, plain.state);
}

/// A result for any combat, made from its units: the side the combat's
/// number picks loses a third of its units and has a third disrupted; the
/// other side stands. Not a checked table result: the engine must carry
/// out whatever it is given without breaking the campaign's invariants.
fn made_up(combat: &dervish::engine::elsewhere::Combat) -> dervish::engine::elsewhere::Resolved {
    use dervish::engine::elsewhere::{Fate, Resolved};
    let (hurt, whole) = if combat.key.number % 2 == 1 {
        (&combat.defenders, &combat.attackers)
    } else {
        (&combat.attackers, &combat.defenders)
    };
    let mut fates = BTreeMap::new();
    for (i, u) in hurt.iter().enumerate() {
        let fate = match i % 3 {
            0 => Fate::Eliminated,
            1 => Fate::Disrupted,
            _ => Fate::GoodOrder,
        };
        fates.insert(u.clone(), fate);
    }
    for u in whole.iter().chain(&combat.river_units) {
        fates.insert(u.clone(), Fate::GoodOrder);
    }
    Resolved {
        fates,
        captured: hurt.clone(),
        retreat: None,
        how: "on the table (made up for the test)".into(),
        log: Vec::new(),
    }
}

/// Whole campaigns with every combat sent to the table (two a player turn
/// at most): each month stops at each table battle in turn and is played
/// again with the results so far. Each run meets the same history as the
/// one before it up to its stop, and the campaign keeps its invariants.
#[test]
fn whole_campaigns_of_table_battles_stop_and_resume_consistently() {
    use dervish::engine::play_month_resolving;
    use dervish::players::simple::simple_orders;
    use dervish::state::setup::{Placements, initial_state};
    let data = dervish::scenario::DataSet::embedded().unwrap();
    let options = TableBattles {
        cap: Some(2),
        ..all()
    };
    let mut stops = 0;
    for (id, seed) in [("khartoum", 1u64), ("khartoum", 2), ("el-obeid", 3)] {
        let scn = data.scenario(id).unwrap();
        let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
        state.options.table_battles = options.clone();
        for month in 0..40 {
            if state.result.is_some() {
                break;
            }
            let mut settled = BTreeMap::new();
            let mut last: Option<Vec<Event>> = None;
            let r = loop {
                let mut dice = Dice::new(SeededDice::from_seed(seed * 1000 + month));
                let mut auto = CampaignTables;
                let mut resolver = TableResolver::new(&options, &settled, &mut auto);
                let r = play_month_resolving(
                    &scn,
                    state.clone(),
                    &mut |s, side| simple_orders(&scn, s, side),
                    &mut dice,
                    &mut resolver,
                );
                if let Some(prefix) = &last {
                    assert_eq!(
                        r.events[..prefix.len()],
                        prefix[..],
                        "{id} {seed} month {month}: the turn played again differs before its last stop"
                    );
                }
                match resolver.stopped {
                    Some(stopped) => {
                        assert!(r.halted);
                        stops += 1;
                        settled.insert(
                            stopped.combat.key,
                            Settlement::Table {
                                text: String::new(),
                                resolved: made_up(&stopped.combat),
                            },
                        );
                        last = Some(r.events.clone());
                    }
                    None => break r,
                }
            };
            common::check_invariants(
                &scn,
                &state,
                &r.state,
                &format!("{id} {seed} month {month}"),
            );
            state = r.state;
        }
    }
    assert!(stops > 20, "only {stops} table battles");
}
