//! Drawn maps: the whole theatre as SVG with a month's marches and
//! battles, and a player's area as PNG, as the campaign archive and the
//! results mails would draw them; and the ASCII overview and a sector
//! map the results mails carry.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dervish::render::ascii::{Sector, overview, sector};
use dervish::render::svg::{Area, View, map_png, map_svg};
use dervish::scenario::{DataSet, Side};

#[path = "common/positions.rs"]
mod positions;

fn maps(c: &mut Criterion) {
    let data = DataSet::embedded().expect("shipped data");
    let scn = data.scenario("khartoum").expect("scenario 2");
    // The third month, when the armies are in contact.
    let (state, events) = positions::simple(&scn, 3);
    let theatre = View::theatre().with_overlay(&events, None);
    c.bench_function("khartoum: whole-theatre SVG with a month's overlay", |b| {
        b.iter(|| black_box(map_svg(&scn, Some(&state), black_box(&theatre)).len()))
    });
    let khartoum = scn.map.resolve("Khartoum").expect("Khartoum");
    let area = View::around(khartoum, 6).with_overlay(&events, Some(Side::Egyptian));
    let svg = map_svg(&scn, Some(&state), &area);
    // The system fonts are read on the first call; not part of the figure.
    let png = map_png(&svg, 1000).expect("drawn");
    println!(
        "whole theatre SVG {} bytes; area SVG {} bytes; area PNG {} bytes",
        map_svg(&scn, Some(&state), &theatre).len(),
        svg.len(),
        png.len()
    );
    let mut group = c.benchmark_group("png");
    group.sample_size(20);
    group.bench_function(
        "khartoum: player's area (radius 6) SVG and PNG, 1000 px",
        |b| {
            b.iter(|| {
                let svg = map_svg(&scn, Some(&state), black_box(&area));
                black_box(map_png(&svg, 1000).expect("drawn").len())
            })
        },
    );
    group.bench_function("khartoum: player's area PNG alone, 1000 px", |b| {
        b.iter(|| black_box(map_png(black_box(&svg), 1000).expect("drawn").len()))
    });
    // The same area as a results mail draws it (`View::picture`: its
    // words sized for 1000 pixels, what runs beyond the area covered).
    let mailed = View::picture(
        Area::Around {
            centre: khartoum,
            radius: 6,
        },
        1000,
    )
    .with_overlay(&events, Some(Side::Egyptian));
    let mailed_svg = map_svg(&scn, Some(&state), &mailed);
    group.bench_function("khartoum: results mail's area PNG alone, 1000 px", |b| {
        b.iter(|| black_box(map_png(black_box(&mailed_svg), 1000).expect("drawn").len()))
    });
    group.finish();
    c.bench_function("khartoum: ASCII overview of the whole theatre", |b| {
        b.iter(|| black_box(overview(&scn, Some(black_box(&state))).len()))
    });
    let around = Sector {
        centre: khartoum,
        radius: 4,
    };
    c.bench_function("khartoum: ASCII sector map, radius 4", |b| {
        b.iter(|| black_box(sector(&scn, Some(black_box(&state)), around).len()))
    });
}

criterion_group!(benches, maps);
criterion_main!(benches);
