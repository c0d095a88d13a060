//! Loading the shipped data set (map, units, tables, scenarios, events,
//! reactions) with every check, as every process that needs a scenario
//! does once when it starts (`dervish submit`, `dervish run`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::scenario::DataSet;

fn load(c: &mut Criterion) {
    c.bench_function("data set: the embedded files loaded and checked", |b| {
        b.iter(|| black_box(DataSet::embedded().expect("shipped data")))
    });
}

criterion_group!(benches, load);
criterion_main!(benches);
