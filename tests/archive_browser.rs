//! The campaign archive in a real browser: the archive of a finished
//! campaign of each shipped scenario (index, month pages with the drawn
//! maps, verification page, JSON), opened in headless Chromium by the checker of
//! `tests/browser/`: every page loads with no console error and no broken
//! link or image, every map shows every town of its scenario at its hex,
//! and screenshots at desktop and phone widths are kept in
//! `target/archive-screenshots/`. On a month page of each game the theatre
//! map's frame scrolls, its stack numbers are at least 11 pixels high as
//! shown, and its "full size" link opens the map's own file.
//!
//! The browser tests are ignored by a plain `cargo test`; `scripts/test`
//! installs Debian's Chromium and runs them with
//! `cargo test --test archive_browser -- --ignored --test-threads=1`.
//! Run with `--ignored` but without Chromium, they fail and say why.

mod browser;
#[path = "common/campaign.rs"]
mod campaign;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dervish::geo::PlaceKind;
use dervish::render::svg::{View, map_svg};
use dervish::scenario::{DataSet, Scenario};
use dervish::store::{Mode, Status};

use browser::Towns;
use browser::cdp::Browser;
use browser::serve::Server;
use serde_json::json;

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
    for id in SCENARIOS {
        theatre_map_reads_and_zooms(&site, id, &shots);
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// The month page's theatre map, as the page shows it: its frame, the
/// map's shown width, the full-size link.
const FRAME_JS: &str = r#"(async () => {
  if (document.readyState !== 'complete')
    await new Promise(r => addEventListener('load', r, { once: true }));
  const frame = document.querySelector('figure.theatre .mapframe');
  if (!frame) return { frame: false };
  const img = frame.querySelector('img');
  img.loading = 'eager';
  if (!img.complete) await new Promise(r => {
    img.addEventListener('load', r, { once: true });
    img.addEventListener('error', r, { once: true });
  });
  const link = [...document.querySelectorAll('figure.theatre figcaption a')]
    .find(a => a.textContent.includes('full size'));
  return { frame: true, scrollWidth: frame.scrollWidth, clientWidth: frame.clientWidth,
    scrollHeight: frame.scrollHeight, clientHeight: frame.clientHeight,
    overflow: getComputedStyle(frame).overflow,
    shown: img.getBoundingClientRect().width, natural: img.naturalWidth,
    src: img.getAttribute('src'), href: link ? link.getAttribute('href') : null };
})()"#;

/// The full-size map on its own: its stack numbers' font size.
const FULL_JS: &str = r#"(() => {
  const root = document.documentElement;
  const cnt = document.querySelector('.stack .cnt');
  return { svg: root.namespaceURI === 'http://www.w3.org/2000/svg',
    width: root.getBoundingClientRect().width,
    stacks: document.querySelectorAll('.stack').length,
    cnt: cnt ? parseFloat(getComputedStyle(cnt).fontSize) : 0 };
})()"#;

/// The first month page of game `id` in `site`.
fn first_month_page(site: &Path, id: &str) -> String {
    let mut pages: Vec<String> = std::fs::read_dir(site.join(id))
        .expect("the game's folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html") && n.starts_with("18"))
        .collect();
    pages.sort();
    format!("{id}/{}", pages.first().expect("a month page"))
}

/// Open `path` of the served site and evaluate `js` there.
fn open_and_eval(b: &mut Browser, session: &str, url: &str, js: &str) -> serde_json::Value {
    let step = Duration::from_secs(30);
    b.take_events();
    b.call(Some(session), "Page.navigate", json!({ "url": url }), step)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    b.wait_event(session, "Page.loadEventFired", step)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    b.eval(session, js, step)
        .unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// The archive's theatre map reads at 100%: on the first month page of
/// game `id`, at desktop width, the map is shown larger than its own size
/// in a frame that scrolls (the reader pans by scrolling), its stack
/// numbers are at least 11 pixels high as shown, and the "full size" link
/// opens the map's own SVG file, which exists beside the page. Leaves a
/// screenshot of the frame scrolled to its middle.
fn theatre_map_reads_and_zooms(site: &Path, id: &str, shots: &Path) {
    let page = first_month_page(site, id);
    let server = Server::start(site).expect("the server");
    let profile = site.with_file_name(format!("zoom-profile-{id}"));
    let mut b = Browser::launch(&profile).unwrap_or_else(|e| panic!("{e}"));
    let session = b.new_page(Duration::from_secs(30)).expect("a tab");
    let (w, h) = browser::DESKTOP;
    b.call(
        Some(&session),
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": w, "height": h, "deviceScaleFactor": 1, "mobile": false }),
        Duration::from_secs(30),
    )
    .expect("the viewport");
    let f = open_and_eval(&mut b, &session, &server.url(&page), FRAME_JS);
    assert_eq!(f["frame"], true, "{page}: no theatre map frame: {f}");
    let num = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    assert!(
        num(&f, "scrollWidth") > num(&f, "clientWidth"),
        "{page}: the map's frame does not scroll: {f}"
    );
    assert!(
        num(&f, "shown") >= num(&f, "natural") && num(&f, "natural") > 0.0,
        "{page}: the map is squeezed: {f}"
    );
    let href = f["href"].as_str().expect("a full-size link");
    assert_eq!(Some(href), f["src"].as_str(), "{page}: {f}");
    let folder = Path::new(&page).parent().expect("the game's folder");
    let file = site.join(folder).join(href);
    assert!(file.is_file(), "{page}: {} does not exist", file.display());
    let full_url = server.url(&format!("{}/{href}", folder.display()));

    let _ = b.eval(
        &session,
        "(() => { const f = document.querySelector('.mapframe');          f.scrollIntoView(); f.scrollLeft = (f.scrollWidth - f.clientWidth) / 2;          f.scrollTop = (f.scrollHeight - f.clientHeight) / 2; return true; })()",
        Duration::from_secs(30),
    );
    let shot = b
        .call(
            Some(&session),
            "Page.captureScreenshot",
            json!({ "format": "png" }),
            Duration::from_secs(30),
        )
        .expect("a screenshot");
    let png = browser::base64_decode(shot["data"].as_str().expect("the picture"))
        .expect("a base64 picture");
    std::fs::write(shots.join(format!("{id}-theatre-frame.png")), png).expect("the screenshot");

    let full = open_and_eval(&mut b, &session, &full_url, FULL_JS);
    b.close();
    let _ = std::fs::remove_dir_all(&profile);
    assert_eq!(full["svg"], true, "{full_url}: not a drawing: {full}");
    assert!(num(&full, "stacks") > 0.0, "{full_url}: no stacks: {full}");
    let shown = num(&full, "cnt") * num(&f, "shown") / num(&f, "natural");
    assert!(
        shown >= 11.0,
        "{page}: stack numbers are {shown:.1} px high as shown: {f} {full}"
    );
    eprintln!(
        "{page}: theatre map shown {:.0} px wide ({:.0} its own), frame {} px of {} scrolls, \
         stack numbers {shown:.1} px",
        num(&f, "shown"),
        num(&f, "natural"),
        num(&f, "clientWidth"),
        num(&f, "scrollWidth")
    );
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
