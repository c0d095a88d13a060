//! The drawn map (`render::svg`): well-formed SVG, every hex once, every
//! river hexside, railway hex and town of the data where it belongs, the
//! stacks with their counts, a played month's marches and battles, and the
//! sizes the campaign archive can afford.

use std::collections::{BTreeMap, BTreeSet};

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::play_month_with;
use dervish::geo::{Hex, PlaceKind};
use dervish::players::simple::simple_orders;
use dervish::render::svg::{View, map_png, map_png_with_fonts, map_svg};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use resvg::usvg::roxmltree::{Document, Node};

const SCENARIOS: [&str; 2] = ["el-obeid", "khartoum"];

fn scenario(id: &str) -> Scenario {
    let data = DataSet::embedded().expect("the shipped data loads");
    data.scenario(id).expect("a shipped scenario")
}

fn start(scn: &Scenario) -> GameState {
    initial_state(scn, &Placements::new())
        .expect("the default set-up")
        .0
}

fn parse(svg: &str) -> Document<'_> {
    match Document::parse(svg) {
        Ok(d) => d,
        Err(e) => panic!("the SVG is not well-formed XML: {e}"),
    }
}

fn classes<'a>(n: &Node<'a, '_>) -> Vec<&'a str> {
    n.attribute("class")
        .map(|c| c.split_whitespace().collect())
        .unwrap_or_default()
}

/// Elements carrying every class in `want`.
fn with_classes<'a, 'input>(doc: &'a Document<'input>, want: &[&str]) -> Vec<Node<'a, 'input>> {
    doc.descendants()
        .filter(|n| n.is_element())
        .filter(|n| {
            let c = classes(n);
            want.iter().all(|w| c.contains(w))
        })
        .collect()
}

/// The text of an element and its children.
fn text_of(n: &Node<'_, '_>) -> String {
    n.descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect()
}

/// The hexes of `g#hexes`, as drawn (with repeats, if any).
fn drawn_hexes(doc: &Document<'_>) -> Vec<String> {
    let group = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("hexes"))
        .expect("a g#hexes");
    group
        .descendants()
        .filter(|n| n.has_tag_name("use"))
        .map(|n| {
            n.attribute("data-hex")
                .expect("every hex has data-hex")
                .to_string()
        })
        .collect()
}

/// Months of the campaign played with the simple player on both sides
/// until one has a battle: (the state after it, its events).
fn month_with_a_battle(scn: &Scenario) -> (GameState, Vec<Event>) {
    let mut dice = Dice::new(SeededDice::from_seed(5));
    let mut state = start(scn);
    for _ in 0..24 {
        let r = play_month_with(
            scn,
            state,
            &mut |st, side| simple_orders(scn, st, side),
            &mut dice,
        );
        let fought = r
            .events
            .iter()
            .any(|e| matches!(e, Event::CombatBegins { .. }));
        if fought {
            return (r.state, r.events);
        }
        assert!(r.state.result.is_none(), "the game ended without a battle");
        state = r.state;
    }
    panic!("two years without a battle")
}

#[test]
fn the_map_is_well_formed_and_draws_every_hex_exactly_once() {
    for id in SCENARIOS {
        let scn = scenario(id);
        let state = start(&scn);
        let svg = map_svg(&scn, Some(&state), &View::theatre());
        let doc = parse(&svg);
        let drawn = drawn_hexes(&doc);
        let unique: BTreeSet<&String> = drawn.iter().collect();
        assert_eq!(drawn.len(), unique.len(), "{id}: a hex is drawn twice");
        let want: BTreeSet<String> = scn.map.hexes().map(|h| h.to_string()).collect();
        assert_eq!(want.len(), drawn.len(), "{id}: hexes drawn");
        assert!(
            unique.iter().all(|h| want.contains(*h)),
            "{id}: a hex off the map"
        );
        // Every hex's shape carries its terrain class.
        for t in ["clear", "hills", "mountains", "sea"] {
            let class = format!("terrain-{t}");
            assert_eq!(
                with_classes(&doc, &["hex", &class]).len(),
                1,
                "{id}: {class}"
            );
        }
    }
}

#[test]
fn every_river_hexside_and_cataract_of_the_map_is_drawn() {
    let scn = scenario("khartoum");
    let svg = map_svg(&scn, None, &View::theatre());
    let doc = parse(&svg);
    let mut drawn: Vec<String> = Vec::new();
    for n in with_classes(&doc, &["river"]) {
        // The key's samples carry no hexsides.
        if let Some(sides) = n.attribute("data-sides") {
            assert!(n.attribute("d").is_some_and(|d| d.starts_with('M')));
            drawn.extend(sides.split_whitespace().map(str::to_string));
        }
    }
    let want: Vec<String> = scn
        .map
        .rivers()
        .iter()
        .flat_map(|r| r.hexsides.iter().map(|s| s.to_string()))
        .collect();
    assert!(want.len() > 100, "the map has its rivers");
    let drawn_set: BTreeSet<&String> = drawn.iter().collect();
    assert_eq!(drawn.len(), drawn_set.len(), "a river hexside drawn twice");
    assert_eq!(
        drawn_set,
        want.iter().collect::<BTreeSet<_>>(),
        "river hexsides drawn"
    );
    // Each class of the map is drawn in its own style.
    for class in ["navigable", "seasonal", "unnavigable"] {
        assert!(
            with_classes(&doc, &["river", class])
                .iter()
                .any(|n| n.attribute("data-sides").is_some()),
            "no {class} river drawn"
        );
    }
    let cataracts: BTreeSet<&str> = with_classes(&doc, &["cataract"])
        .iter()
        .filter_map(|n| n.attribute("data-side"))
        .collect();
    let want: BTreeSet<String> = scn
        .map
        .cataracts()
        .iter()
        .flat_map(|c| c.hexsides.iter().map(|s| s.to_string()))
        .collect();
    assert_eq!(
        cataracts,
        want.iter().map(String::as_str).collect::<BTreeSet<_>>()
    );
}

#[test]
fn every_railway_hex_is_drawn_built_or_planned_as_the_state_says() {
    let scn = scenario("khartoum");
    let mut state = start(&scn);
    let svg = map_svg(&scn, Some(&state), &View::theatre());
    let doc = parse(&svg);
    let hexes_of = |doc: &Document<'_>, class: &str| -> Vec<String> {
        with_classes(doc, &["rail", class])
            .iter()
            .filter_map(|n| n.attribute("data-hexes"))
            .flat_map(|h| h.split_whitespace().map(str::to_string))
            .collect()
    };
    let mut drawn = hexes_of(&doc, "built");
    drawn.extend(hexes_of(&doc, "planned"));
    let want: Vec<String> = scn
        .map
        .railways()
        .iter()
        .flat_map(|r| r.hexes.iter().map(|h| h.to_string()))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(
        drawn.iter().collect::<BTreeSet<_>>(),
        want.iter().collect::<BTreeSet<_>>()
    );
    // Track built in the game is drawn built.
    let line = scn
        .map
        .railways()
        .iter()
        .find(|r| r.built < r.hexes.len())
        .expect("a line with track to build");
    let built_before = hexes_of(&doc, "built").len();
    state.rail_built.insert(line.name.clone(), line.built + 2);
    let svg = map_svg(&scn, Some(&state), &View::theatre());
    let doc = parse(&svg);
    assert_eq!(hexes_of(&doc, "built").len(), built_before + 2);
    let third = line.hexes[line.built + 1].to_string();
    assert!(hexes_of(&doc, "built").contains(&third));
    assert!(!hexes_of(&doc, "planned").contains(&third));
}

#[test]
fn every_town_of_each_scenario_is_drawn_at_its_hex_with_its_name() {
    for id in SCENARIOS {
        let scn = scenario(id);
        let state = start(&scn);
        let svg = map_svg(&scn, Some(&state), &View::theatre());
        let doc = parse(&svg);
        let towns: BTreeMap<String, String> = with_classes(&doc, &["place", "town"])
            .iter()
            .map(|n| {
                (
                    n.attribute("data-hex").unwrap_or_default().to_string(),
                    text_of(n),
                )
            })
            .collect();
        let mut n = 0;
        for p in scn
            .map
            .places()
            .iter()
            .filter(|p| p.kind == PlaceKind::Town)
        {
            assert_eq!(
                towns.get(&p.hex.to_string()),
                Some(&p.name),
                "{id}: {} at {}",
                p.name,
                p.hex
            );
            n += 1;
        }
        assert!(n >= 10, "{id}: only {n} towns");
        assert_eq!(towns.len(), n, "{id}: towns drawn");
        // Villages and oases too.
        for p in scn.map.places() {
            let class = match p.kind {
                PlaceKind::Village => "village",
                PlaceKind::Oasis => "oasis",
                _ => continue,
            };
            assert!(
                with_classes(&doc, &["place", class])
                    .iter()
                    .any(|n| n.attribute("data-hex") == Some(&p.hex.to_string())
                        && text_of(n) == p.name),
                "{id}: {} ({class})",
                p.name
            );
        }
    }
}

#[test]
fn the_stacks_of_a_state_are_drawn_with_their_counts_and_leaders() {
    for id in SCENARIOS {
        let scn = scenario(id);
        let state = start(&scn);
        let svg = map_svg(&scn, Some(&state), &View::theatre());
        let doc = parse(&svg);
        let stacks = state.stacks();
        assert!(!stacks.is_empty());
        let drawn = with_classes(&doc, &["stack"]);
        assert_eq!(drawn.len(), stacks.len(), "{id}: stacks drawn");
        for s in &stacks {
            let side = match s.side {
                Side::Egyptian => "egyptian",
                Side::Mahdist => "mahdist",
            };
            let hex = s.hex.to_string();
            let n = with_classes(&doc, &["stack", side])
                .into_iter()
                .find(|n| n.attribute("data-hex") == Some(&hex))
                .unwrap_or_else(|| panic!("{id}: no {side} stack drawn at {hex}"));
            let count = s.units.len().to_string();
            assert_eq!(n.attribute("data-units"), Some(count.as_str()));
            let text = text_of(&n);
            assert!(text.starts_with(&count), "{id}: {hex}: {text:?}");
            for l in &s.leaders {
                assert!(text.contains(&l.name), "{id}: {hex}: {} missing", l.name);
            }
        }
        // Without a state, no stacks.
        let bare = map_svg(&scn, None, &View::theatre());
        assert!(with_classes(&parse(&bare), &["stack"]).is_empty());
    }
}

#[test]
fn a_played_month_shows_its_marches_and_battles() {
    let scn = scenario("khartoum");
    let (state, events) = month_with_a_battle(&scn);
    let view = View::theatre().with_overlay(&events, None);
    let svg = map_svg(&scn, Some(&state), &view);
    let doc = parse(&svg);
    // Every stack that walked at least one hex has its route, ending where
    // the walk ended.
    let mut side = Side::Egyptian;
    let mut walked: Vec<(Side, Hex)> = Vec::new();
    for e in &events {
        match e {
            Event::PhaseBegins { side: s, .. } => side = *s,
            Event::Moved { path, .. } => {
                if let Some(last) = path.last() {
                    walked.push((side, *last));
                }
            }
            _ => {}
        }
    }
    assert!(!walked.is_empty(), "nobody marched");
    let routes = with_classes(&doc, &["march"]);
    for (s, h) in &walked {
        let s = if *s == Side::Egyptian {
            "egyptian"
        } else {
            "mahdist"
        };
        let h = h.to_string();
        assert!(
            routes.iter().any(|n| classes(n).contains(&s)
                && n.attribute("data-hexes")
                    .is_some_and(|x| x.split_whitespace().any(|x| x == h))),
            "the {s} march to {h} is not drawn"
        );
    }
    // One battle marker for each combat, at its defender's hex, with the
    // result.
    let combats: Vec<Hex> = events
        .iter()
        .filter_map(|e| match e {
            Event::CombatBegins { defender, .. } => Some(*defender),
            _ => None,
        })
        .collect();
    let battles = with_classes(&doc, &["battle"])
        .into_iter()
        .filter(|n| n.attribute("data-hex").is_some())
        .collect::<Vec<_>>();
    assert_eq!(battles.len(), combats.len());
    let results = with_classes(&doc, &["res"]);
    assert_eq!(results.len(), combats.len());
    for ((b, r), h) in battles.iter().zip(&results).zip(&combats) {
        assert_eq!(b.attribute("data-hex"), Some(h.to_string().as_str()));
        assert_eq!(r.attribute("data-hex"), Some(h.to_string().as_str()));
        let text = text_of(r);
        assert!(
            text.ends_with(" won") || text == "drawn",
            "no result: {text:?}"
        );
    }
    // One player's map shows that player's marches only.
    for (side, other) in [("egyptian", "mahdist"), ("mahdist", "egyptian")] {
        let s = if side == "egyptian" {
            Side::Egyptian
        } else {
            Side::Mahdist
        };
        let own = map_svg(
            &scn,
            Some(&state),
            &View::theatre().with_overlay(&events, Some(s)),
        );
        let doc = parse(&own);
        assert!(with_classes(&doc, &["march", other]).is_empty());
        assert_eq!(
            with_classes(&doc, &["march", side]).len(),
            routes.iter().filter(|n| classes(n).contains(&side)).count()
        );
    }
}

#[test]
fn a_players_area_draws_its_hexes_labelled() {
    let scn = scenario("khartoum");
    let state = start(&scn);
    let khartoum = scn.map.resolve("Khartoum").expect("Khartoum");
    let svg = map_svg(&scn, Some(&state), &View::around(khartoum, 4));
    let doc = parse(&svg);
    let drawn = drawn_hexes(&doc);
    assert_eq!(drawn.len(), 81, "nine columns of nine rows");
    assert!(drawn.contains(&"1942".to_string()));
    let labels: BTreeSet<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| text_of(&n))
        .collect();
    assert!(labels.contains("1942") && labels.contains("2246"));
    assert!(with_classes(&doc, &["stack"]).iter().all(|n| {
        n.attribute("data-hex")
            .is_some_and(|h| drawn.iter().any(|d| d == h))
    }));
}

#[test]
fn the_whole_theatre_fits_the_archive_and_the_png_decodes() {
    let scn = scenario("khartoum");
    let (state, events) = month_with_a_battle(&scn);
    let svg = map_svg(
        &scn,
        Some(&state),
        &View::theatre().with_overlay(&events, None),
    );
    assert!(svg.len() < 300_000, "whole theatre: {} bytes", svg.len());
    // A player's area, as mailed.
    let khartoum = scn.map.resolve("Khartoum").expect("Khartoum");
    let area = map_svg(
        &scn,
        Some(&state),
        &View::around(khartoum, 6).with_overlay(&events, Some(Side::Egyptian)),
    );
    let png = map_png(&area, 1000).expect("the PNG is drawn");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    assert_eq!(&png[12..16], b"IHDR");
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    assert_eq!(width, 1000);
    assert!((500..2000).contains(&height), "height {height}");
    assert!(
        png.len() < 200_000,
        "player's area PNG: {} bytes",
        png.len()
    );
    // It decodes, whole.
    let mut reader = png::Decoder::new(std::io::Cursor::new(&png))
        .read_info()
        .expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("the pixels decode");
    assert_eq!((frame.width, frame.height), (width, height));
    assert!(map_png("not svg", 100).is_err());
    // Without any font the map is drawn all the same, without its text.
    let bare = map_png_with_fonts(&area, 400, Default::default()).expect("drawn without fonts");
    assert_eq!(&bare[..8], b"\x89PNG\r\n\x1a\n");
    assert!(map_png(&area, 0).is_err());
    println!(
        "whole theatre SVG {} bytes; area SVG {} bytes; area PNG {} bytes",
        svg.len(),
        area.len(),
        png.len()
    );
}

#[test]
fn names_are_escaped() {
    // The map's names are data a game master may edit.
    let svg_text = |name: &str| {
        let data = DataSet::embedded().expect("data");
        let scn = data.scenario("khartoum").expect("scenario");
        let mut state = start(&scn);
        if let Some(l) = state.leaders.iter_mut().find(|l| l.hex.is_some()) {
            l.name = name.to_string();
        }
        map_svg(&scn, Some(&state), &View::theatre())
    };
    let svg = svg_text("Bey & <Pasha> \"Q\"");
    let doc = parse(&svg);
    assert!(
        doc.descendants()
            .filter_map(|n| n.text())
            .any(|t| t.contains("Bey & <Pasha> \"Q\""))
    );
}

/// What runs on beyond an area (the railway from Wadi Halfa, the rivers)
/// is cut at the area's edge: everything of the map is inside the
/// `clip-path` group, whose rectangle ends before the key begins.
#[test]
fn what_runs_beyond_an_area_is_cut_at_its_edge() {
    let scn = scenario("khartoum");
    let state = start(&scn);
    let centre = scn.map.resolve("Khartoum").expect("Khartoum");
    let svg = map_svg(&scn, Some(&state), &View::around(centre, 5));
    let doc = parse(&svg);
    let clip = doc
        .descendants()
        .find(|n| n.has_tag_name("clipPath") && n.attribute("id") == Some("area"))
        .expect("the area's clip");
    let rect = clip.first_element_child().expect("its rectangle");
    let num = |a: &str| -> f64 { rect.attribute(a).expect(a).parse().expect("a number") };
    let right = num("x") + num("width");
    let body = doc
        .descendants()
        .find(|n| n.attribute("clip-path") == Some("url(#area)"))
        .expect("the map's body, clipped");
    // The map's own elements carry the hexes they stand for (the key's
    // samples do not).
    for class in ["rail", "river", "place", "stack"] {
        for n in with_classes(&doc, &[class]).into_iter().filter(|n| {
            n.attributes()
                .any(|a| a.name().starts_with("data-hex") || a.name() == "data-sides")
        }) {
            assert!(
                n.ancestors().any(|a| a == body),
                "a {class} outside the clipped body"
            );
        }
    }
    // The key's first text stands to the right of the clip.
    let key_x: f64 = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && classes(n).contains(&"kh"))
        .filter_map(|n| n.attribute("x")?.parse().ok())
        .next()
        .expect("the key's heading");
    assert!(
        key_x > right,
        "the key at {key_x}, the clip ends at {right}"
    );
}
