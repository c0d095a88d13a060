//! Engine speed: one full month (both player turns) of scenario 2 and a
//! whole simulated campaign, with the simple built-in player on both sides.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::simple::simple_orders;
use dervish::scenario::DataSet;
use dervish::state::setup::{Placements, initial_state};

#[path = "common/positions.rs"]
mod positions;

fn month(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    // Start from the third month, when the armies are in contact.
    let s = positions::third_month(&scn);
    c.bench_function("khartoum: one month, both player turns", |b| {
        b.iter(|| {
            let mut dice = Dice::new(SeededDice::from_seed(11));
            let r = play_month_with(
                &scn,
                black_box(s.clone()),
                &mut |st, side| simple_orders(&scn, st, side),
                &mut dice,
            );
            black_box(r.events.len())
        })
    });
}

fn campaign(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    for id in ["el-obeid", "khartoum"] {
        let scn = data.scenario(id).expect("scenario");
        let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
        c.bench_function(&format!("{id}: whole campaign"), |b| {
            b.iter(|| {
                let (s, _) = positions::play(&scn, state.clone(), 3, u32::MAX, &mut |st, side| {
                    simple_orders(&scn, st, side)
                });
                black_box(s.digest())
            })
        });
    }
}

criterion_group!(benches, month, campaign);
criterion_main!(benches);
