//! The campaign archive: `dervish archive` of a whole 21-month game of
//! scenario 2 (The Siege of Khartoum), played through the mail service
//! with the programmed players' orders, written to a folder.

#[path = "../tests/common/campaign.rs"]
mod campaign;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::store::Mode;

fn archive(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("dervish-bench-archive-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (svc, _) = campaign::play(
        &dir.join("game"),
        "khartoum",
        "k-bench-16",
        Mode::Monthly,
        40,
    );
    let out = dir.join("site");
    let built = svc.archive("k-bench-16", &out).expect("archive");
    // This game (its programmed players' dice come from its id) goes the
    // whole scenario: February 1884 to October 1885.
    assert_eq!(built.months, 21, "the game of the measurement");
    println!(
        "{} months, {} files, {} bytes",
        built.months, built.files, built.bytes
    );
    let mut group = c.benchmark_group("archive");
    group.sample_size(10);
    group.bench_function("khartoum: the archive of a 21-month game", |b| {
        b.iter(|| svc.archive("k-bench-16", &out).expect("archive"))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, archive);
criterion_main!(benches);
