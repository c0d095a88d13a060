//! The campaign archive in a real browser: the archive of a finished
//! campaign of each shipped scenario (index, month pages with the drawn
//! maps, verification page, JSON), opened in headless Chromium by the checker of
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
#[path = "common/campaign.rs"]
mod campaign;

use std::path::{Path, PathBuf};
use std::time::Instant;

use dervish::geo::PlaceKind;
use dervish::render::svg::{View, map_svg};
use dervish::scenario::{DataSet, Scenario};
use dervish::store::{Mode, Status};

use browser::Towns;

const SCENARIOS: [&str; 2] = ["el-obeid", "khartoum"];

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

/// PNG width and height.
fn png_size(path: &Path) -> (u32, u32) {
    let file = std::fs::File::open(path).expect("a screenshot");
    let reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
    let info = reader.info();
    (info.width, info.height)
}

/// A finished campaign of each scenario, played through the mail service
/// (the programmed Egyptian player's orders mailed against the programmed
/// Mahdist), archived by `Service::archive` into one folder and read in
/// Chromium: every page of both games, every map with its towns, the
/// screenshots at both widths.
#[test]
#[ignore = "needs Chromium: scripts/test runs it"]
fn a_finished_campaign_of_each_scenario_reads_cleanly_in_chromium() {
    let started = Instant::now();
    let work = site_dir("campaigns");
    let site = work.join("site");
    let mut expect = Towns::default();
    let mut months = Vec::new();
    for id in SCENARIOS {
        let scn = scenario(id);
        let (svc, _) = campaign::play(&work.join(id), id, id, Mode::Monthly, 40);
        let g = svc.game(id).expect("the game");
        assert_eq!(g.status, Status::Finished, "{id} played to its end");
        let built = svc.archive(id, &site).expect("the archive");
        let t = towns(&scn);
        assert!(t.len() >= 10, "{id}: only {} towns", t.len());
        expect = expect.under(&format!("{id}/"), &t);
        months.push((id, built.months, t.len()));
    }
    let built = started.elapsed();

    let shots = shots_dir("finished-campaigns");
    let report = browser::check_site_with(&site, &shots, &expect).unwrap_or_else(|e| panic!("{e}"));

    // Every page: the archive's list, each game's index, months and
    // verification page.
    let pages: usize = months.iter().map(|(_, m, _)| 2 + m).sum();
    assert_eq!(report.pages.len(), 1 + pages, "pages: {:?}", report.pages);
    for (id, n_months, n_towns) in &months {
        let theatres: Vec<_> = report
            .maps
            .iter()
            .filter(|m| {
                m.path.starts_with(&format!("{id}/"))
                    && (m.path.ends_with("-egyptian.svg") || m.path.ends_with("-mahdist.svg"))
            })
            .collect();
        assert!(
            theatres.len() >= *n_months,
            "{id}: a theatre map after each player turn"
        );
        for m in theatres {
            assert_eq!(m.towns_checked, *n_towns, "{}: towns checked", m.path);
            assert_eq!(m.towns_elsewhere, 0, "{}", m.path);
        }
        // The battles' ground: an area, with some towns off it.
        for m in report.maps.iter().filter(|m| {
            m.path.starts_with(&format!("{id}/"))
                && !m.path.ends_with("-egyptian.svg")
                && !m.path.ends_with("-mahdist.svg")
        }) {
            assert_eq!(m.towns_checked + m.towns_elsewhere, *n_towns, "{}", m.path);
        }
    }
    // Screenshots: the archive's list, each game's index and verification
    // page and its first month, at both widths.
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
         {} screenshots in {}; games played and archived in {:.1?}, all in {:.1?}",
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
    let _ = std::fs::remove_dir_all(&work);
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
