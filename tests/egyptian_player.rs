//! The programmed Egyptian player: in every position of bot-against-bot
//! campaigns its orders pass the checker a player's mail goes through, the
//! same position gives the same orders, and its two personas differ.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::egyptian::{self, Persona};
use dervish::players::mahdist::{self, Opponents};
use dervish::players::reaction::Reactions;
use dervish::players::{keep_checked, through_the_checker};
use dervish::scenario::{DataSet, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

/// Egyptian positions to decide for, for each persona.
const STATES: usize = 2_000;

#[test]
fn its_orders_pass_the_checker_and_its_personas_differ() {
    let data = DataSet::embedded().unwrap();
    let table = Reactions::shipped().unwrap();
    let opponents = Opponents::shipped().unwrap();
    let mut differ = 0;
    let mut marches = 0;
    for persona in [Persona::Historical, Persona::Competent] {
        let mut decided = 0;
        let mut seed = 1;
        while decided < STATES {
            for id in ["el-obeid", "khartoum"] {
                let scn = data.scenario(id).unwrap();
                let (mut state, _) = initial_state(&scn, &Placements::new()).unwrap();
                let mut dice = Dice::new(SeededDice::from_seed(seed));
                let mut bot = Dice::new(SeededDice::from_seed(seed + 77));
                let mut problems: Vec<String> = Vec::new();
                while state.result.is_none() && decided < STATES {
                    let month = state.month;
                    let r = play_month_with(
                        &scn,
                        state,
                        &mut |s: &GameState, side| {
                            if side == Side::Mahdist {
                                return mahdist::decide(&scn, s, &table, &opponents, &mut bot)
                                    .orders;
                            }
                            let d = egyptian::decide(&scn, s, persona);
                            decided += 1;
                            marches += d.orders.marches.len();
                            problems
                                .extend(d.notes.iter().filter(|n| n.contains("left out")).cloned());
                            if let Err(e) = through_the_checker(&scn, s, side, &d.orders) {
                                problems.push(e);
                            }
                            let (kept, _) = keep_checked(&scn, s, side, d.orders.clone());
                            assert_eq!(kept, d.orders);
                            assert_eq!(
                                egyptian::decide(&scn, s, persona),
                                d,
                                "the same position, the same orders"
                            );
                            let other = match persona {
                                Persona::Historical => Persona::Competent,
                                Persona::Competent => Persona::Historical,
                            };
                            if egyptian::decide(&scn, s, other).orders != d.orders {
                                differ += 1;
                            }
                            d.orders
                        },
                        &mut dice,
                    );
                    assert!(
                        problems.is_empty(),
                        "{persona:?}, {id}, {month}: {problems:#?}"
                    );
                    state = r.state;
                    if state.month == month {
                        break;
                    }
                }
            }
            seed += 1;
        }
    }
    assert!(marches > STATES / 4, "{marches} marches");
    assert!(
        differ > STATES / 20,
        "the personas differ in {differ} positions"
    );
    assert_eq!(Persona::parse("Competent"), Some(Persona::Competent));
    assert_eq!(Persona::parse("reckless"), None);
}
