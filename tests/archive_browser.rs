//! The campaign archive in a real browser: a site of a simulated campaign
//! of each shipped scenario (index, month pages with the drawn maps,
//! verify page, JSON), opened in headless Chromium by the checker of
//! `tests/browser/`: every page loads with no console error and no broken
//! link or image, every map shows every town of its scenario at its hex,
//! and screenshots at desktop and phone widths are kept in
//! `target/archive-screenshots/`.
//!
//! The browser tests are ignored by a plain `cargo test`; `scripts/test`
//! installs Debian's Chromium and runs them with
//! `cargo test --test archive_browser -- --ignored --test-threads=1`.
//! Run with `--ignored` but without Chromium, they fail and say why.

mod browser;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::geo::{Hex, PlaceKind};
use dervish::players::simple::simple_orders;
use dervish::render::svg::{View, map_svg};
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

use browser::Towns;

const SCENARIOS: [&str; 2] = ["el-obeid", "khartoum"];
/// Months of each simulated campaign in the site.
const MONTHS: usize = 2;

fn scenario(id: &str) -> Scenario {
    let data = DataSet::embedded().expect("the shipped data loads");
    data.scenario(id).expect("a shipped scenario")
}

/// The scenario's towns as (name, hex label).
fn towns(scn: &Scenario) -> Vec<(String, String)> {
    scn.map
        .places()
        .iter()
        .filter(|p| p.kind == PlaceKind::Town)
        .map(|p| (p.name.clone(), p.hex.to_string()))
        .collect()
}

/// `target/archive-screenshots/NAME`, emptied.
fn shots_dir(name: &str) -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();
    let dir = target.join("archive-screenshots").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the screenshot folder");
    dir
}

/// A fresh folder under the target's temp dir.
fn site_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("archive-browser-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the site folder");
    dir
}

fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).expect("a folder of the site");
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

const STYLE: &str = "\
body{font-family:'DejaVu Sans',sans-serif;margin:0 auto;max-width:72rem;padding:1rem;color:#222;background:#fbf8f0}\n\
img{max-width:100%;height:auto;display:block;margin:1rem 0;border:1px solid #ccb}\n\
nav a{margin-right:1rem}\n\
pre{white-space:pre-wrap}\n\
";

fn page(title: &str, css: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"{css}\">\n</head>\n\
         <body>\n{body}\n</body>\n</html>\n"
    )
}

/// The town a sector map is drawn around: the scenario's namesake if it
/// is a town, else its first town.
fn sector_centre(scn: &Scenario, id: &str) -> Hex {
    let towns: Vec<_> = scn
        .map
        .places()
        .iter()
        .filter(|p| p.kind == PlaceKind::Town)
        .collect();
    towns
        .iter()
        .find(|p| p.name.to_lowercase().replace(' ', "-") == id)
        .or(towns.first())
        .expect("a town")
        .hex
}

/// One game's part of the site, in the archive's layout: `id/index.html`,
/// `id/YYYY-MM.html` with its maps in `id/maps/`, `id/verify.html`,
/// `id/json/YYYY-MM.json`. Returns the number of maps drawn.
fn write_game(site: &Path, id: &str, scn: &Scenario) -> usize {
    let dir = site.join(id);
    let mut dice = Dice::new(SeededDice::from_seed(7));
    let mut state: GameState = initial_state(scn, &Placements::new())
        .expect("the default set-up")
        .0;
    let centre = sector_centre(scn, id);
    let mut months = Vec::new();
    let mut maps = 0;
    for _ in 0..MONTHS {
        let month = state.month;
        let r = play_month_with(
            scn,
            state,
            &mut |st, side| simple_orders(scn, st, side),
            &mut dice,
        );
        let label = format!("{:04}-{:02}", month.year(), month.month());
        let mut imgs = String::new();
        for side in [Side::Egyptian, Side::Mahdist] {
            let name = format!("{label}-{}", side.to_string().to_lowercase());
            let view = View::theatre().with_overlay(&r.events, Some(side));
            write(
                &dir.join(format!("maps/{name}.svg")),
                &map_svg(scn, Some(&r.state), &view),
            );
            let _ = writeln!(
                imgs,
                "<h2>After the {side} turn</h2>\n<img src=\"maps/{name}.svg\" alt=\"The theatre after the {side} turn of {}\">",
                month.long_name()
            );
            maps += 1;
        }
        let sector = format!("{label}-around-{centre}");
        write(
            &dir.join(format!("maps/{sector}.svg")),
            &map_svg(scn, Some(&r.state), &View::around(centre, 5)),
        );
        let _ = writeln!(
            imgs,
            "<h2>Around {centre}</h2>\n<img src=\"maps/{sector}.svg\" alt=\"The area around {centre}\" loading=\"lazy\">"
        );
        maps += 1;
        let log: Vec<String> = r.events.iter().take(40).map(|e| format!("{e:?}")).collect();
        let body = format!(
            "<nav><a href=\"index.html\">{id}</a> <a href=\"../index.html\">All games</a> \
             <a href=\"json/{label}.json\">JSON</a></nav>\n<h1>{}</h1>\n{imgs}<h2>Log</h2>\n<pre>{}</pre>",
            month.long_name(),
            html_escape(&log.join("\n"))
        );
        write(
            &dir.join(format!("{label}.html")),
            &page(&month.long_name(), "../style.css", &body),
        );
        let json = serde_json::json!({ "month": label, "events": r.events.len() });
        write(&dir.join(format!("json/{label}.json")), &json.to_string());
        months.push((label, month.long_name()));
        state = r.state;
    }
    let mut list = String::new();
    for (label, name) in &months {
        let _ = writeln!(
            list,
            "<li><a href=\"{label}.html\">{name}</a> (<a href=\"json/{label}.json\">JSON</a>)</li>"
        );
    }
    write(
        &dir.join("index.html"),
        &page(
            id,
            "../style.css",
            &format!(
                "<nav><a href=\"../index.html\">All games</a> <a href=\"verify.html\">Verify</a></nav>\n\
                 <h1>{}</h1>\n<ul>\n{list}</ul>\n<img src=\"maps/{}-egyptian.svg\" alt=\"The theatre\">\n\
                 <svg width=\"200\" height=\"30\" role=\"img\"><a href=\"verify.html\">\
                 <text x=\"4\" y=\"20\">Verify (a chart's link)</text></a></svg>",
                scn.def.title, months[0].0
            ),
        ),
    );
    write(
        &dir.join("verify.html"),
        &page(
            "Verify",
            "../style.css",
            "<nav><a href=\"index.html\">Back</a></nav>\n<h1>Verify this archive</h1>\n\
             <p>Replay the game from its inputs with <code>dervish verify</code>.</p>",
        ),
    );
    maps
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// PNG width and height.
fn png_size(path: &Path) -> (u32, u32) {
    let file = std::fs::File::open(path).expect("a screenshot");
    let reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
    let info = reader.info();
    (info.width, info.height)
}

#[test]
#[ignore = "needs Chromium: scripts/test runs it"]
fn a_simulated_campaign_of_each_scenario_reads_cleanly_in_chromium() {
    let started = Instant::now();
    let site = site_dir("campaigns");
    let mut games = String::new();
    let mut expect = Towns::default();
    let mut maps = 0;
    let mut scenario_towns = Vec::new();
    for id in SCENARIOS {
        let scn = scenario(id);
        maps += write_game(&site, id, &scn);
        let _ = writeln!(
            games,
            "<li><a href=\"{id}/index.html\">{}</a></li>",
            scn.def.title
        );
        let t = towns(&scn);
        assert!(t.len() >= 10, "{id}: only {} towns", t.len());
        expect = expect.under(&format!("{id}/"), &t);
        scenario_towns.push((id, t.len()));
    }
    write(&site.join("style.css"), STYLE);
    write(
        &site.join("index.html"),
        &page(
            "Dervish games",
            "style.css",
            &format!("<h1>Games</h1>\n<ul>\n{games}</ul>"),
        ),
    );
    let built = started.elapsed();

    let shots = shots_dir("simulated-campaigns");
    let report = browser::check_site_with(&site, &shots, &expect).unwrap_or_else(|e| panic!("{e}"));

    // Every page: the archive index, each game's index, months and verify.
    assert_eq!(
        report.pages.len(),
        1 + SCENARIOS.len() * (2 + MONTHS),
        "pages: {:?}",
        report.pages
    );
    assert_eq!(report.maps.len(), maps, "maps checked");
    for (id, n) in &scenario_towns {
        let theatres: Vec<_> = report
            .maps
            .iter()
            .filter(|m| m.path.starts_with(&format!("{id}/")) && !m.path.contains("around"))
            .collect();
        assert_eq!(theatres.len(), 2 * MONTHS, "{id}: theatre maps");
        for m in theatres {
            assert_eq!(m.towns_checked, *n, "{}: towns checked", m.path);
            assert_eq!(m.towns_elsewhere, 0, "{}", m.path);
        }
        for m in report
            .maps
            .iter()
            .filter(|m| m.path.starts_with(&format!("{id}/")) && m.path.contains("around"))
        {
            assert!(m.towns_checked >= 1, "{}: no town checked", m.path);
            assert!(m.towns_elsewhere >= 1, "{}: a sector map shows all", m.path);
            assert_eq!(m.towns_checked + m.towns_elsewhere, *n, "{}", m.path);
        }
    }
    // Screenshots: the archive index, each game's index and verify page
    // and its first month, at both widths.
    assert_eq!(report.screenshots.len(), 2 * (1 + 3 * SCENARIOS.len()));
    for s in &report.screenshots {
        let (w, h) = png_size(s);
        let name = s.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let want = if name.ends_with("-phone.png") {
            browser::PHONE.0
        } else {
            browser::DESKTOP.0
        };
        assert_eq!(w, want, "{}", s.display());
        assert!(h >= 100, "{}: {h} px high", s.display());
    }
    eprintln!(
        "archive in Chromium: {} pages, {} targets, {} images, {} maps ({} towns checked), \
         {} screenshots in {}; site built in {:.1?}, all in {:.1?}",
        report.pages.len(),
        report.targets,
        report.images,
        report.maps.len(),
        report.maps.iter().map(|m| m.towns_checked).sum::<usize>(),
        report.screenshots.len(),
        shots.display(),
        built,
        started.elapsed()
    );
    for n in &report.notes {
        eprintln!("note: {n}");
    }
    let _ = std::fs::remove_dir_all(&site);
}

/// Cut the town at `hex` out of a map.
fn remove_town(svg: &str, hex: &str) -> String {
    let at = svg
        .find(&format!("data-hex=\"{hex}\"><rect class=\"mk\""))
        .expect("the town in the map");
    let start = svg[..at].rfind("<g class=\"place town").expect("its group");
    let end = at + svg[at..].find("</g>").expect("its end") + "</g>".len();
    format!("{}{}", &svg[..start], &svg[end..])
}

/// Move the marker of the town at `hex` two columns east.
fn shift_town(svg: &str, hex: &str) -> String {
    let key = format!("data-hex=\"{hex}\"><rect class=\"mk\" x=\"");
    let at = svg.find(&key).expect("the town in the map") + key.len();
    let len = svg[at..].find('"').expect("its x");
    let x: f64 = svg[at..at + len].parse().expect("a number");
    format!("{}{}{}", &svg[..at], x + 52.0, &svg[at + len..])
}

#[test]
#[ignore = "needs Chromium: scripts/test runs it"]
fn the_checker_finds_broken_images_and_links_errors_and_misplaced_towns() {
    let scn = scenario("khartoum");
    let t = towns(&scn);
    let (gone, moved) = (&t[0], &t[1]);
    let site = site_dir("broken");
    let svg = map_svg(&scn, None, &View::theatre());
    write(
        &site.join("maps/theatre.svg"),
        &shift_town(&remove_town(&svg, &gone.1), &moved.1),
    );
    write(&site.join("maps/ok.svg"), &svg);
    write(&site.join("style.css"), STYLE);
    write(
        &site.join("index.html"),
        &page(
            "Broken",
            "style.css",
            "<a href=\"month.html\">A month</a> <a href=\"lost.html\">Lost</a> \
             <a href=\"/style.css\">Absolute</a>",
        ),
    );
    write(
        &site.join("month.html"),
        &page(
            "A month",
            "style.css",
            "<img src=\"maps/theatre.svg\" alt=\"map\"><img src=\"maps/nowhere.svg\" alt=\"gone\">\
             <a href=\"json/none.json\">JSON</a>\
             <svg width=\"90\" height=\"20\"><a href=\"chart-gone.html\"><text y=\"15\">chart</text></a></svg>\
             <script>console.error('boom from the page')</script>",
        ),
    );
    let shots = shots_dir("broken-site");
    let err = match browser::check_site(&site, &shots, &t) {
        Ok(r) => panic!("the broken site passed: {r:?}"),
        Err(e) => e,
    };
    eprintln!("{err}");
    for want in [
        "index.html: broken link: \"lost.html\"",
        "index.html: link \"/style.css\" is not relative",
        "month.html: broken image: \"maps/nowhere.svg\" (maps/nowhere.svg does not exist)",
        "month.html: broken image: \"maps/nowhere.svg\" did not load",
        "month.html: maps/nowhere.svg answered 404",
        "month.html: broken link: \"json/none.json\"",
        "month.html: broken link: \"chart-gone.html\"",
        "month.html: console.error: boom from the page",
        &format!("maps/theatre.svg: {} ({}) is not drawn", gone.0, gone.1),
        &format!("maps/theatre.svg: {}'s marker is at", moved.0),
        "the server answered 404 for /maps/nowhere.svg",
    ] {
        assert!(err.contains(want), "the checker missed {want:?}:\n{err}");
    }
    assert!(!err.contains("maps/ok.svg"), "{err}");
    let _ = std::fs::remove_dir_all(&site);
}

/// The checker's geometry agrees with the renderer's: every hex of
/// `g#hexes` is placed where `browser::grid_centre` says (no browser
/// needed).
#[test]
fn the_checker_places_hexes_where_the_renderer_does() {
    let scn = scenario("el-obeid");
    let svg = map_svg(&scn, None, &View::theatre());
    let hexes = &svg[svg.find("<g id=\"hexes\">").expect("g#hexes")..];
    let hexes = &hexes[..hexes.find("\n</g>").expect("its end")];
    let mut n = 0;
    for column in hexes.split("<g transform=\"translate(").skip(1) {
        let x: f64 = column[..column.find(')').expect("x")]
            .parse()
            .expect("a number");
        for cell in column.split("<use ").skip(1) {
            let attr = |name: &str| {
                let k = format!("{name}=\"");
                let at = cell.find(&k).expect(name) + k.len();
                &cell[at..at + cell[at..].find('"').expect("a quote")]
            };
            let y: f64 = attr("y").parse().expect("a number");
            let hex = attr("data-hex");
            assert_eq!(browser::grid_centre(hex), Some((x, y)), "hex {hex}");
            n += 1;
        }
    }
    assert_eq!(n, scn.map.hexes().count());
}
