//! Order language speed: reading a whole turn's orders email (cleaning,
//! parsing) and checking it against the game with march plans and the
//! receipt, as the mail service does for every message it receives.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::orders::{self, Input, Vocabulary};
use dervish::scenario::{DataSet, Side};
use dervish::state::setup::{Placements, initial_state};

const REPLY: &str = include_str!("../tests/orders/03-gmail-reply-on-top.txt");
const TURN: &str = include_str!("../tests/orders/01-plain-egyptian-khartoum.txt");

fn read_and_check(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let vocab = Vocabulary::new(&scn);
    c.bench_function("orders: parse a reply with a quoted report", |b| {
        b.iter(|| {
            let p = orders::parse(&Input::text(black_box(REPLY)), &vocab).expect("small");
            black_box(p.sheet.items.len())
        })
    });
    c.bench_function(
        "orders: parse, check and write the receipt of a whole turn",
        |b| {
            b.iter(|| {
                let p = orders::parse(&Input::text(black_box(TURN)), &vocab).expect("small");
                let checked = orders::check(&p.sheet, &scn, &state, Side::Egyptian);
                let ack = orders::acknowledge(&p, &checked, &scn, Side::Egyptian, &state);
                black_box(ack.len())
            })
        },
    );
    c.bench_function("orders: vocabulary of a scenario", |b| {
        b.iter(|| black_box(Vocabulary::new(black_box(&scn))))
    });
}

criterion_group!(benches, read_and_check);
criterion_main!(benches);
