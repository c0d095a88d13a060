//! Loading the shipped data set (map, units, tables, scenarios, events,
//! reactions) with every check, as every process that needs a scenario
//! does once when it starts (`dervish submit`, `dervish run`); and the same
//! data set read back from the data cache a service keeps beside its
//! database (`DataFiles::load_cached`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::scenario::{DataFiles, DataSet};

fn load(c: &mut Criterion) {
    c.bench_function("data set: the embedded files loaded and checked", |b| {
        b.iter(|| black_box(DataSet::embedded().expect("shipped data")))
    });
}

fn load_cached(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("dervish-bench-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let cache = dir.join("dervish.data-cache");
    let files = DataFiles::embedded();
    files.load_cached(&cache).expect("shipped data");
    c.bench_function("data set: the embedded files through the data cache", |b| {
        b.iter(|| black_box(files.load_cached(&cache).expect("shipped data")))
    });
    c.bench_function(
        "data set: the embedded files' texts (before any loading)",
        |b| b.iter(|| black_box(DataFiles::embedded())),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, load, load_cached);
criterion_main!(benches);
