//! The pictures of a results mail (docs/drawn-maps-by-mail.md): what they
//! frame (every stack of the player's that moved, fought or is besieged,
//! and the scenario's key places, in one picture or in two), that their
//! words are at least 11 pixels high at the width sent, and that no two
//! of their words overlap. The SVGs are read with usvg, as resvg draws
//! them: every text's font size after its transforms, and its box as laid
//! out with the system's fonts.
//!
//! `PICTURES_TO=/some/dir cargo test --test picture_framing` also writes
//! the PNGs there, to look at.

use std::sync::Arc;

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::orders::Orders;
use dervish::engine::play_month_with;
use dervish::geo::Hex;
use dervish::orders::{self, Input, Vocabulary};
use dervish::render::frame::{PICTURE_MAX_RADIUS, action_hexes, frame, key_places};
use dervish::render::svg::{Area, MIN_TEXT_PX, map_png};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::service::picture::{self, MAX_PICTURE_BYTES, Scene};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use resvg::usvg::{self, fontdb};

fn scenario(id: &str) -> Scenario {
    DataSet::embedded()
        .expect("shipped data")
        .scenario(id)
        .expect("scenario")
}

/// The orders of `text` for `side`, read and checked as a mail's.
fn orders_of(scn: &Scenario, state: &GameState, side: Side, text: &str) -> Orders {
    let parsed = orders::parse(&Input::text(text), &Vocabulary::new(scn).in_play(state))
        .expect("orders read");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let checked = orders::check(&parsed.sheet, scn, state, side);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    checked.orders
}

/// The first month of scenario 2 with the Egyptian column at Sinkat
/// marching to Souakim while Gordon holds Khartoum, the Mahdists quiet.
fn souakim_and_the_nile(scn: &Scenario) -> (GameState, Vec<Event>) {
    let (state, _) = initial_state(scn, &Placements::new()).expect("set-up");
    let egyptian = orders_of(
        scn,
        &state,
        Side::Egyptian,
        "MARCH STACK Sinkat TO Souakim\n",
    );
    let mut dice = Dice::new(SeededDice::from_seed(3));
    let r = play_month_with(
        scn,
        state,
        &mut |_, side| match side {
            Side::Egyptian => egyptian.clone(),
            Side::Mahdist => Orders::default(),
        },
        &mut dice,
    );
    (r.state, r.events)
}

fn fonts() -> Arc<fontdb::Database> {
    let mut db = fontdb::Database::new();
    db.load_system_fonts();
    db.set_sans_serif_family("DejaVu Sans");
    Arc::new(db)
}

/// Each text of an SVG as resvg lays it out: its words, its font size in
/// pixels at `px` wide, and its box in pixels.
fn texts(svg: &str, px: u32, fonts: &Arc<fontdb::Database>) -> Vec<(String, f32, usvg::Rect)> {
    let opt = usvg::Options {
        fontdb: fonts.clone(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).expect("the SVG reads");
    let scale = px as f32 / tree.size().width();
    let mut out = Vec::new();
    collect(tree.root(), scale, &mut out);
    out
}

fn collect(g: &usvg::Group, scale: f32, out: &mut Vec<(String, f32, usvg::Rect)>) {
    for n in g.children() {
        match n {
            usvg::Node::Group(g) => collect(g, scale, out),
            usvg::Node::Text(t) => {
                let ts = t.abs_transform();
                let k = ts.sy.abs().max(ts.sx.abs()) * scale;
                for c in t.chunks() {
                    for s in c.spans() {
                        out.push((
                            c.text().to_string(),
                            s.font_size().get() * k,
                            t.abs_bounding_box(),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Every text at least 11 pixels high, and no two texts' boxes overlap
/// (by more than a tenth of a map unit: boxes that touch are fine).
fn assert_readable(what: &str, svg: &str, px: u32, fonts: &Arc<fontdb::Database>) {
    let all = texts(svg, px, fonts);
    assert!(all.len() > 20, "{what}: the texts are read ({})", all.len());
    for (text, size, _) in &all {
        assert!(
            f64::from(*size) >= MIN_TEXT_PX - 0.01,
            "{what}: {text:?} is {size} px high"
        );
    }
    // The map's words (the title and the key are apart from it).
    let eps = 0.1;
    for (i, (a, _, ra)) in all.iter().enumerate() {
        for (b, _, rb) in &all[i + 1..] {
            let overlap = ra.left() + eps < rb.right()
                && rb.left() + eps < ra.right()
                && ra.top() + eps < rb.bottom()
                && rb.top() + eps < ra.bottom();
            assert!(!overlap, "{what}: {a:?} {ra:?} overlaps {b:?} {rb:?}");
        }
    }
}

fn save(name: &str, png: &[u8]) {
    if let Ok(dir) = std::env::var("PICTURES_TO") {
        std::fs::write(std::path::Path::new(&dir).join(name), png).expect("written");
    }
}

/// The drawn hexes and stacks of an SVG, by their `data-hex`.
fn shows(svg: &str, class: &str, hex: Hex) -> bool {
    svg.contains(&format!("class=\"{class}\" data-hex=\"{hex}\""))
}

/// The month: action at Souakim while the player's key place,
/// Khartoum, is on the Nile. Two pictures: the Souakim column in detail,
/// its march drawn; the whole theatre as an overview, with Khartoum and
/// Gordon's stack. Both readable at 1000 pixels, under 200 KB.
#[test]
fn a_month_at_souakim_and_on_the_nile_is_framed_in_two_pictures() {
    let scn = scenario("khartoum");
    let (state, events) = souakim_and_the_nile(&scn);
    let khartoum = scn.map.resolve("Khartoum").expect("Khartoum");
    let souakim = scn.map.resolve("Souakim").expect("Souakim");
    let side = Side::Egyptian;
    assert!(key_places(&scn, &state).contains(&khartoum));
    let marched = action_hexes(&events, side);
    let arrived = *marched.last().expect("the column marched");

    let f = frame(&scn, &state, &events, side);
    assert!(f.overview, "{f:?}");
    let Some(Area::Around { centre, radius }) = f.detail else {
        panic!("a detail area: {f:?}");
    };
    assert!(radius <= PICTURE_MAX_RADIUS);
    let within =
        |h: Hex| (h.col - centre.col).abs() <= radius && (h.row - centre.row).abs() <= radius;
    for h in &marched {
        assert!(
            within(*h),
            "the march's {h} is in the detail {centre} r {radius}"
        );
    }

    let svgs = picture::svgs(Scene::new(&scn, &state, &events, side), 1000);
    assert_eq!(svgs.len(), 2);
    let (detail, overview) = (&svgs[0].2, &svgs[1].2);
    assert!(!svgs[0].1 && svgs[1].1);
    assert!(
        detail.contains("class=\"march egyptian\""),
        "the march is drawn"
    );
    assert!(shows(detail, "stack egyptian", arrived));
    assert!(shows(detail, "stack egyptian", souakim));
    assert!(shows(overview, "stack egyptian", arrived));
    assert!(
        shows(overview, "stack egyptian", khartoum),
        "Gordon's stack"
    );
    assert!(overview.contains(">Khartoum</text>"));
    assert!(overview.contains("class=\"march egyptian\""));

    let fonts = fonts();
    for (area, is_overview, svg) in &svgs {
        assert_readable(&format!("{area:?} {is_overview}"), svg, 1000, &fonts);
    }
    let pictures = picture::draw_safely(Scene::new(&scn, &state, &events, side), 1000, &map_png)
        .expect("drawn");
    assert_eq!(pictures.len(), 2);
    for p in &pictures {
        assert!(p.png.len() < MAX_PICTURE_BYTES, "{} bytes", p.png.len());
        assert_eq!(p.width_px, 1000);
        let name = if p.overview { "overview" } else { "detail" };
        save(&format!("souakim-{name}.png"), &p.png);
    }
}

/// Hasheen and Tofrek share hex 5319 next to Souakim and Tamai: on the
/// picture of that area their names are both written and do not overlap
/// (they printed as "HTofrekn" over each other).
#[test]
fn hasheen_and_tofrek_are_both_named_apart() {
    let scn = scenario("khartoum");
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let at = scn.map.resolve("Hasheen").expect("Hasheen");
    let view = dervish::render::svg::View::picture(
        Area::Around {
            centre: at,
            radius: 5,
        },
        1000,
    );
    let svg = dervish::render::svg::map_svg(&scn, Some(&state), &view);
    assert!(svg.contains(">Hasheen</text>") && svg.contains(">Tofrek</text>"));
    assert_readable("Hasheen", &svg, 1000, &fonts());
    save("hasheen.png", &map_png(&svg, 1000).expect("drawn"));
}

/// The first months of both scenarios' simple players: each picture
/// readable at 1000 pixels; each stack that moved, fought or is besieged
/// and each key place in one of them.
#[test]
fn every_picture_of_a_few_months_is_readable_and_frames_what_matters() {
    use dervish::players::simple::simple_orders;
    let fonts = fonts();
    for id in ["el-obeid", "khartoum"] {
        let scn = scenario(id);
        let (mut state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
        let mut dice = Dice::new(SeededDice::from_seed(11));
        for month in 0..3 {
            let r = play_month_with(
                &scn,
                state,
                &mut |st, side| simple_orders(&scn, st, side),
                &mut dice,
            );
            state = r.state.clone();
            for side in [Side::Egyptian, Side::Mahdist] {
                let f = frame(&scn, &r.state, &r.events, side);
                let svgs = picture::svgs(Scene::new(&scn, &r.state, &r.events, side), 1000);
                assert_eq!(svgs.len(), 1 + usize::from(f.overview));
                for h in &f.wanted {
                    let seen = svgs.iter().any(|(area, _, _)| match area {
                        Area::Theatre => true,
                        Area::Around { centre, radius } => {
                            (h.col - centre.col).abs() <= *radius
                                && (h.row - centre.row).abs() <= *radius
                        }
                    });
                    assert!(seen, "{id} {month} {side}: {h} in a picture");
                }
                for (area, o, svg) in &svgs {
                    assert_readable(
                        &format!("{id} {month} {side} {area:?} {o}"),
                        svg,
                        1000,
                        &fonts,
                    );
                }
                if month == 0 {
                    for p in picture::draw_safely(
                        Scene::new(&scn, &r.state, &r.events, side),
                        1000,
                        &map_png,
                    )
                    .expect("drawn")
                    {
                        let name = if p.overview { "overview" } else { "map" };
                        save(&format!("{id}-{side}-{name}.png"), &p.png);
                    }
                }
            }
        }
    }
}

/// Where what the player must see lies close together, one picture: a
/// quiet month of scenario 2, where the Egyptian's key places (Khartoum,
/// Gordon's stack and the civilian unit, all in Khartoum) and besieged
/// stacks fit one area; the Mahdist's as well.
#[test]
fn a_quiet_month_is_one_picture_around_the_key_places() {
    let scn = scenario("khartoum");
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let khartoum = scn.map.resolve("Khartoum").expect("Khartoum");
    assert_eq!(key_places(&scn, &state), vec![khartoum]);
    for side in [Side::Egyptian, Side::Mahdist] {
        let f = frame(&scn, &state, &[], side);
        assert!(!f.overview, "{side}: {f:?}");
        let svgs = picture::svgs(Scene::new(&scn, &state, &[], side), 1000);
        assert_eq!(svgs.len(), 1);
        assert!(
            svgs[0]
                .2
                .contains("class=\"place town held-egyptian\" data-hex=\"1942\"")
        );
        assert_readable(&format!("quiet {side}"), &svgs[0].2, 1000, &fonts());
    }
}
