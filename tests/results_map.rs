//! The drawn maps of a results mail (`service::picture`): which areas
//! they show, that they decode and stay under 200 KB, and that anything
//! going wrong while drawing them is an error the mail survives, never a
//! panic. The mails themselves are tested in `tests/service.rs`; what the
//! pictures frame and their words in `tests/picture_framing.rs`.

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::play_month_with;
use dervish::geo::Hex;
use dervish::players::simple::simple_orders;
use dervish::render::frame::{PICTURE_MAX_RADIUS, PICTURE_MIN_RADIUS, frame};
use dervish::render::svg::{Area, map_png, map_png_with_fonts};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::service::picture::{self, MAX_PICTURE_BYTES, MIN_WIDTH_PX, Scene};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

fn scenario(id: &str) -> Scenario {
    DataSet::embedded()
        .expect("shipped data")
        .scenario(id)
        .expect("scenario")
}

/// The state and events of each of the first `months` months of a
/// campaign of the simple players.
fn months(scn: &Scenario, seed: u64, months: usize) -> Vec<(GameState, Vec<Event>)> {
    let (mut state, _) = initial_state(scn, &Placements::new()).expect("set-up");
    let mut dice = Dice::new(SeededDice::from_seed(seed));
    let mut out = Vec::new();
    for _ in 0..months {
        let r = play_month_with(
            scn,
            state,
            &mut |st, side| simple_orders(scn, st, side),
            &mut dice,
        );
        state = r.state.clone();
        out.push((r.state, r.events));
    }
    out
}

fn inside(area: Area, h: Hex) -> bool {
    match area {
        Area::Theatre => true,
        Area::Around { centre, radius } => {
            (h.col - centre.col).abs() <= radius && (h.row - centre.row).abs() <= radius
        }
    }
}

/// Width and height from a PNG's header, after decoding it whole.
fn decode(png: &[u8]) -> (u32, u32) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("the pixels decode");
    (frame.width, frame.height)
}

/// Every hex the month's events touched for the side is in its detail
/// picture's area, or the mail has the overview as well; the area is
/// neither smaller nor larger than the bounds.
#[test]
fn the_picture_covers_the_months_events_of_the_side() {
    let mut areas = 0;
    for id in ["el-obeid", "khartoum"] {
        let scn = scenario(id);
        for (state, events) in months(&scn, 7, 6) {
            for side in [Side::Egyptian, Side::Mahdist] {
                let f = frame(&scn, &state, &events, side);
                let area = f.detail.expect("a detail area");
                for h in dervish::render::frame::action_hexes(&events, side) {
                    assert!(
                        f.overview || inside(area, h),
                        "{id} {side}: {h} outside {area:?}"
                    );
                }
                for h in &f.wanted {
                    assert!(
                        f.overview || inside(area, *h),
                        "{id} {side}: {h} outside {area:?}"
                    );
                }
                if let Area::Around { radius, .. } = area {
                    areas += 1;
                    assert!(
                        (PICTURE_MIN_RADIUS..=PICTURE_MAX_RADIUS).contains(&radius),
                        "{area:?}"
                    );
                }
            }
        }
    }
    assert!(areas > 0, "the detail is an area, not the theatre");
}

/// A side with one stack and a quiet month sees the country around it and
/// the key places; a month whose battles lie at both ends of the map
/// gets the overview too, the detail around one end; a side with nothing
/// on the map sees its key places.
#[test]
fn a_quiet_month_shows_the_stack_and_a_wide_one_the_theatre() {
    let scn = scenario("khartoum");
    let (state, _) = initial_state(&scn, &Placements::new()).expect("set-up");
    let khartoum = scn.map.resolve("Khartoum").expect("Khartoum");
    let wady_halfa = scn.map.resolve("Wady Halfa").expect("Wady Halfa");
    let suakin = scn.map.resolve("Souakim").expect("Souakim");
    let battle = |a: Hex, d: Hex| Event::CombatBegins {
        order: 0,
        attacker: a,
        defender: d,
        attackers: Vec::new(),
        defenders: Vec::new(),
    };
    let far = [battle(wady_halfa, wady_halfa), battle(suakin, suakin)];
    let f = frame(&scn, &state, &far, Side::Mahdist);
    assert!(f.overview, "battles at both ends of the map: {f:?}");
    let area = f.detail.expect("a detail");
    assert!(inside(area, wady_halfa) || inside(area, suakin), "{area:?}");
    let near = [battle(khartoum, khartoum)];
    let f = frame(&scn, &state, &near, Side::Egyptian);
    assert!(!f.overview, "{f:?}");
    assert!(inside(f.detail.expect("a detail"), khartoum));
    // A quiet month: around the key places.
    let quiet = frame(&scn, &state, &[], Side::Egyptian);
    assert!(
        matches!(quiet.detail, Some(Area::Around { .. })),
        "{quiet:?}"
    );
    // Nothing of the side on the map and nothing done: its key places.
    let mut none = state.clone();
    none.units.retain(|u| u.side != Side::Egyptian);
    none.leaders.retain(|l| l.side != Side::Egyptian);
    let f = frame(&scn, &none, &[], Side::Egyptian);
    assert!(inside(f.detail.expect("a detail"), khartoum), "{f:?}");
}

/// The pictures of a few months of each scenario, as mailed: they decode,
/// are as wide as asked (or narrower, to stay small) and under 200 KB.
#[test]
fn the_pictures_decode_and_stay_under_200_kb() {
    for id in ["el-obeid", "khartoum"] {
        let scn = scenario(id);
        for (state, events) in months(&scn, 8, 3).into_iter().step_by(2) {
            for side in [Side::Egyptian, Side::Mahdist] {
                let drawn =
                    picture::draw_safely(Scene::new(&scn, &state, &events, side), 1000, &map_png)
                        .expect("drawn");
                assert!(!drawn.is_empty());
                for p in drawn {
                    assert!(p.png.len() < MAX_PICTURE_BYTES, "{} bytes", p.png.len());
                    assert!((MIN_WIDTH_PX..=1000).contains(&p.width_px));
                    let (w, h) = decode(&p.png);
                    assert_eq!(w, p.width_px);
                    assert!(h > 300, "{w} x {h}");
                }
            }
        }
    }
}

/// Without any font the picture is drawn all the same, without its words;
/// a renderer that fails or panics is an error, not a lost mail; a picture
/// too large is drawn narrower, and given up below the narrowest width.
#[test]
fn drawing_fails_with_an_error_never_a_panic() {
    let scn = scenario("khartoum");
    let (state, events) = months(&scn, 7, 1).remove(0);
    let scene = Scene::new(&scn, &state, &events, Side::Egyptian);
    let bare = picture::draw_safely(scene, 600, &|svg, w| {
        map_png_with_fonts(svg, w, Default::default())
    })
    .expect("drawn without fonts");
    assert_eq!(decode(&bare[0].png).0, 600);
    let failing = picture::draw_safely(scene, 1000, &|_, _| {
        Err("no memory for the picture".to_string())
    });
    assert_eq!(failing.unwrap_err(), "no memory for the picture");
    let panicking = picture::draw_safely(scene, 1000, &|_, _| panic!("broken"));
    assert!(
        panicking.as_ref().unwrap_err().contains("panicked: broken"),
        "{panicking:?}"
    );
    // 250 bytes a pixel column: 1000 px is too large, 750 px fits.
    let sized = |_: &str, w: u32| Ok(vec![0u8; w as usize * 250]);
    let drawn = picture::draw_safely(scene, 1000, &sized).expect("narrower");
    assert!(drawn.iter().all(|p| p.width_px == 750), "{drawn:?}");
    let huge = |_: &str, _: u32| Ok(vec![0u8; MAX_PICTURE_BYTES]);
    let e = picture::draw_safely(scene, 1000, &huge).unwrap_err();
    assert!(e.contains("even 400 pixels wide"), "{e}");
}

/// The file is named for the game and month (and player turn in
/// alternating mode), like the log.
#[test]
fn the_picture_is_named_for_the_game_and_month() {
    use dervish::store::TurnKind;
    assert_eq!(
        picture::file_name("k-1", "1884-02", TurnKind::Month),
        "k-1-1884-02-map.png"
    );
    assert_eq!(
        picture::file_name("k-1", "1884-02", TurnKind::Player(Side::Mahdist)),
        "k-1-1884-02-mahdist-map.png"
    );
    assert_eq!(
        picture::overview_file_name("k-1", "1884-02", TurnKind::Month),
        "k-1-1884-02-overview.png"
    );
}

/// The picture's width is an option; one that cannot give a readable
/// picture under 200 KB is refused when the configuration is read, with
/// what to give instead.
#[test]
fn the_pictures_width_is_checked_when_the_configuration_is_read() {
    use dervish::service::Config;
    assert_eq!(Config::default().turns.map_picture_px, 1000);
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml"),
    )
    .unwrap();
    assert_eq!(
        Config::parse(&example).unwrap().turns.map_picture_px,
        1000,
        "config.example.toml shows the default"
    );
    assert_eq!(
        Config::parse("[turns]\nmap_picture_px = 0\n")
            .unwrap()
            .turns
            .map_picture_px,
        0
    );
    for bad in [50, 399, 2001, 9000] {
        let e = Config::parse(&format!("[turns]\nmap_picture_px = {bad}\n")).unwrap_err();
        assert!(
            e.contains("map_picture_px") && e.contains("from 400 to 2000"),
            "{e}"
        );
    }
}
