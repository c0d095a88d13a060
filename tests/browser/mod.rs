//! The campaign archive, as a reader's browser shows it: a checker that
//! serves a static site on 127.0.0.1, opens it in headless Chromium and
//! crawls every page reachable from its `index.html`.
//!
//! ```ignore
//! mod browser;
//! let report = browser::check_site(&site, &shots, &towns)?; // Err lists every problem
//! ```
//!
//! For each page (at desktop width, 1280 by 800): no console message of
//! level error, no uncaught exception, no failed request (a 4xx or 5xx
//! answer or a network error, for a link, image, stylesheet or anything
//! else), every `<img>` loaded (`naturalWidth > 0`; lazy images are made
//! eager first), every link, image, stylesheet and script target is a
//! relative address of a file of the site (`.html` pages are crawled in
//! turn; `.json` files must parse). Screenshots of a representative set of
//! pages (every `index.html` and `verify.html`, and the first other page
//! of each folder) at desktop and phone (390 by 844) widths are written as
//! PNG under `shots`; the phone-width load is checked like the first.
//!
//! Every `.svg` the pages show or link is opened as its own document and
//! must load cleanly; if it is a drawn map (it has `g#hexes`, see
//! `dervish::render::svg`), each town expected of it is checked: if its hex
//! is in the map's `#hexes`, a `.place.town[data-hex=CCRR]` is drawn with
//! the town's name, its marker's on-screen centre lies within the
//! on-screen box of that hex, and that hex's centre is where the map's
//! geometry puts it (columns 26 units apart, rows 30, odd columns 15
//! lower). A town whose hex is outside a sector map's area is not expected
//! on it; a town drawn where the list has none is a problem.
//!
//! Chromium: `$DERVISH_CHROMIUM`, else `chromium` on the `PATH`
//! (`scripts/test` installs Debian's). Without it the check fails, saying
//! so. Every wait has a deadline and the browser is killed when done.
#![allow(dead_code)]

pub mod cdp;
pub mod serve;

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use cdp::Browser;
use serve::Server;

/// Desktop viewport (CSS pixels).
pub const DESKTOP: (u32, u32) = (1280, 800);
/// Phone viewport (CSS pixels): a common phone's width.
pub const PHONE: (u32, u32) = (390, 844);
/// Screenshots are cut off at this height (CSS pixels).
const MAX_SHOT_HEIGHT: u32 = 6000;
/// The longest any one step (a command, a page load) may take.
const STEP: Duration = Duration::from_secs(30);

/// Which towns each map of the site should show: for a map whose path
/// (relative to the site's root) starts with `under` (the longest such
/// `under` wins; `""` matches every map), the towns as (name, hex label
/// `CCRR`).
#[derive(Clone, Debug, Default)]
pub struct Towns {
    pub by_folder: Vec<(String, Vec<(String, String)>)>,
}

impl Towns {
    /// One list for every map of the site.
    pub fn everywhere(towns: &[(String, String)]) -> Towns {
        Towns {
            by_folder: vec![(String::new(), towns.to_vec())],
        }
    }

    /// Add the list for the maps under `folder` (such as a game's
    /// folder, `el-obeid-1/`).
    pub fn under(mut self, folder: &str, towns: &[(String, String)]) -> Towns {
        self.by_folder.push((folder.to_string(), towns.to_vec()));
        self
    }

    fn for_map(&self, path: &str) -> &[(String, String)] {
        self.by_folder
            .iter()
            .filter(|(under, _)| path.starts_with(under.as_str()))
            .max_by_key(|(under, _)| under.len())
            .map(|(_, t)| t.as_slice())
            .unwrap_or(&[])
    }
}

/// What was checked in a site that passed.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The pages loaded, as paths relative to the root, in crawl order.
    pub pages: Vec<String>,
    /// Distinct link, image and stylesheet targets checked.
    pub targets: usize,
    /// Images seen loaded (each `<img>` of each page load; pages with
    /// screenshots are loaded twice, at desktop and phone widths).
    pub images: usize,
    /// Every SVG document opened (maps and others).
    pub svgs: Vec<String>,
    /// The drawn maps and their towns.
    pub maps: Vec<MapReport>,
    /// The screenshots written.
    pub screenshots: Vec<PathBuf>,
    /// Worth a look but not failures: outside links (not followed),
    /// images without alt text, pages wider than a phone.
    pub notes: Vec<String>,
}

/// One drawn map's towns.
#[derive(Clone, Debug, Default)]
pub struct MapReport {
    pub path: String,
    /// Towns found drawn at their hex, inside it.
    pub towns_checked: usize,
    /// Towns whose hex is outside this map's area.
    pub towns_elsewhere: usize,
    /// Hexes in `#hexes`.
    pub hexes: usize,
}

/// Check the site in `root` (its `index.html` and everything reachable
/// from it), every map against one list of towns, screenshots to `shots`.
/// `Ok` only when nothing is wrong; `Err` lists every problem, one a line
/// (or says why the check could not run: no Chromium, say).
pub fn check_site(root: &Path, shots: &Path, towns: &[(String, String)]) -> Result<Report, String> {
    check_site_with(root, shots, &Towns::everywhere(towns))
}

/// [`check_site`] with a list of towns for each folder (an archive of
/// several games, each of its scenario).
pub fn check_site_with(root: &Path, shots: &Path, towns: &Towns) -> Result<Report, String> {
    if !root.join("index.html").is_file() {
        return Err(format!("{} has no index.html", root.display()));
    }
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    std::fs::create_dir_all(shots).map_err(|e| format!("{}: {e}", shots.display()))?;
    let server = Server::start(&root)?;
    let profile = std::env::temp_dir().join(format!(
        "dervish-chromium-{}-{}",
        std::process::id(),
        unique()
    ));
    let result = (|| {
        let mut browser = Browser::launch(&profile)?;
        let mut c = Crawl {
            root: &root,
            shots,
            server: &server,
            browser: &mut browser,
            session: String::new(),
            problems: Vec::new(),
            report: Report::default(),
        };
        c.session = c.browser.new_page(STEP)?;
        let r = c.run(towns);
        browser.close();
        r
    })();
    let _ = std::fs::remove_dir_all(&profile);
    let _ = std::fs::remove_file(profile.with_extension("log"));
    result
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::SeqCst)
}

struct Crawl<'a> {
    root: &'a Path,
    shots: &'a Path,
    server: &'a Server,
    browser: &'a mut Browser,
    session: String,
    problems: Vec<String>,
    report: Report,
}

/// What a loaded page's script reports: links, images, sizes.
const PAGE_JS: &str = r#"(async () => {
  if (document.readyState !== 'complete')
    await new Promise(r => addEventListener('load', r, { once: true }));
  const imgs = [...document.images];
  for (const i of imgs) if (i.loading === 'lazy') i.loading = 'eager';
  const settled = Promise.all(imgs.map(i => i.complete ? 0 : new Promise(r => {
    i.addEventListener('load', r, { once: true });
    i.addEventListener('error', r, { once: true });
  })));
  await Promise.race([settled, new Promise(r => setTimeout(r, 20000))]);
  const links = [];
  // Addresses resolved from the attribute (an SVG <a>'s href is no string).
  const add = (kind, el, attr) => {
    const raw = el.getAttribute(attr) || el.getAttribute('xlink:' + attr) || '';
    let url = '';
    try { url = new URL(raw, document.baseURI).href; } catch (e) { url = 'invalid:' + raw; }
    links.push({ kind, raw, url });
  };
  for (const a of document.querySelectorAll('a, area')) {
    if (a.hasAttribute('href') || a.hasAttribute('xlink:href')) add('link', a, 'href');
  }
  for (const l of document.querySelectorAll('link[href]')) add('link', l, 'href');
  for (const i of imgs) add('image', i, 'src');
  for (const e of document.querySelectorAll('script[src], iframe[src], source[src], embed[src]'))
    add('resource', e, 'src');
  for (const o of document.querySelectorAll('object[data]')) add('resource', o, 'data');
  return {
    url: location.href,
    ready: document.readyState,
    links,
    images: imgs.map(i => ({ src: i.getAttribute('src') || '', url: i.currentSrc || i.src,
      complete: i.complete, width: i.naturalWidth, alt: i.getAttribute('alt') })),
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: innerWidth,
  };
})()"#;

/// What a map's script reports about the given towns (`TOWNS` is
/// replaced by a JSON list of [name, hex]).
const MAP_JS: &str = r#"(() => {
  const root = document.documentElement;
  const ok = root.namespaceURI === 'http://www.w3.org/2000/svg'
    && !document.querySelector('parsererror');
  const hexes = document.getElementById('hexes');
  if (!ok || !hexes) return { svg: ok, map: false };
  const inv = root.getScreenCTM().inverse();
  const all = [...hexes.querySelectorAll('[data-hex]')];
  const places = [...document.querySelectorAll('.place.town[data-hex]')];
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const towns = TOWNS.map(([name, hex]) => {
    const cells = all.filter(e => e.getAttribute('data-hex') === hex);
    const drawn = places.filter(e => e.getAttribute('data-hex') === hex);
    const r = { name, hex, cells: cells.length, drawn: drawn.length };
    if (cells.length) {
      r.cell = box(cells[0]);
      const p = new DOMPoint((r.cell[0] + r.cell[2]) / 2, (r.cell[1] + r.cell[3]) / 2)
        .matrixTransform(inv);
      r.cellCentre = [p.x, p.y];
    }
    if (drawn.length) {
      r.text = drawn[0].textContent;
      const mk = drawn[0].querySelector('.mk');
      if (mk) { const m = box(mk); r.marker = [(m[0] + m[2]) / 2, (m[1] + m[3]) / 2]; }
    }
    return r;
  });
  return { svg: true, map: true, hexes: all.length,
    placed: places.map(e => e.getAttribute('data-hex')), towns };
})()"#;

impl Crawl<'_> {
    fn run(&mut self, towns: &Towns) -> Result<Report, String> {
        self.viewport(DESKTOP, false)?;
        let mut queue: VecDeque<String> = VecDeque::from(["index.html".to_string()]);
        let mut seen_pages: BTreeSet<String> = queue.iter().cloned().collect();
        let mut targets: BTreeSet<String> = BTreeSet::new();
        let mut svgs: BTreeSet<String> = BTreeSet::new();
        let mut shot_folders: BTreeSet<String> = BTreeSet::new();
        while let Some(page) = queue.pop_front() {
            self.report.pages.push(page.clone());
            let Some(found) = self.check_page(&page, DESKTOP)? else {
                continue;
            };
            for t in found {
                if t.ends_with(".html") {
                    if seen_pages.insert(t.clone()) {
                        queue.push_back(t.clone());
                    }
                } else if t.ends_with(".svg") {
                    svgs.insert(t.clone());
                }
                targets.insert(t);
            }
            // Screenshots: indexes, verify.html, the first other page of
            // each folder.
            let (folder, name) = match page.rsplit_once('/') {
                Some((f, n)) => (f.to_string(), n),
                None => (String::new(), page.as_str()),
            };
            let shoot =
                name == "index.html" || name == "verify.html" || shot_folders.insert(folder);
            if shoot {
                self.screenshot(&page, "desktop", DESKTOP)?;
                self.viewport(PHONE, true)?;
                let phone = self.check_page(&page, PHONE);
                let shot = phone.and_then(|_| self.screenshot(&page, "phone", PHONE));
                self.viewport(DESKTOP, false)?;
                shot?;
            }
        }
        self.report.targets = targets.len();
        for svg in &svgs {
            self.check_svg(svg, towns.for_map(svg))?;
        }
        self.report.svgs = svgs.into_iter().collect();
        // The server's side: anything it could not find (a browser's own
        // favicon request aside).
        for s in self.server.served() {
            if s.status >= 400 && s.path != "/favicon.ico" {
                self.problems
                    .push(format!("the server answered {} for {}", s.status, s.path));
            }
        }
        if self.problems.is_empty() {
            Ok(std::mem::take(&mut self.report))
        } else {
            let mut seen = BTreeSet::new();
            let list: Vec<&String> = self.problems.iter().filter(|p| seen.insert(*p)).collect();
            Err(format!(
                "{} problem(s) in the site {}:\n{}",
                list.len(),
                self.root.display(),
                list.iter()
                    .map(|p| format!("  - {p}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ))
        }
    }

    fn viewport(&mut self, (width, height): (u32, u32), mobile: bool) -> Result<(), String> {
        self.browser
            .call(
                Some(&self.session),
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
                STEP,
            )
            .map(|_| ())
    }

    /// Navigate to `path` (relative to the root) and wait for its load
    /// event; `false` (and a problem) if the navigation failed.
    fn load(&mut self, path: &str) -> Result<bool, String> {
        let url = self.server.url(path);
        self.browser.take_events();
        let nav = self.browser.call(
            Some(&self.session),
            "Page.navigate",
            json!({ "url": url }),
            STEP,
        )?;
        if let Some(e) = nav.get("errorText").and_then(Value::as_str) {
            self.problems.push(format!("{path}: did not load: {e}"));
            return Ok(false);
        }
        self.browser
            .wait_event(&self.session, "Page.loadEventFired", STEP)
            .map_err(|e| format!("{path}: {e}"))?;
        Ok(true)
    }

    /// The problems in a page's events: console errors, exceptions,
    /// failed requests.
    fn event_problems(&mut self, path: &str, events: &[Value]) {
        let mut urls = std::collections::HashMap::new();
        for ev in events {
            if ev.get("sessionId").and_then(Value::as_str) != Some(self.session.as_str()) {
                continue;
            }
            let p = &ev["params"];
            match ev["method"].as_str().unwrap_or("") {
                "Network.requestWillBeSent" => {
                    urls.insert(
                        p["requestId"].as_str().unwrap_or("").to_string(),
                        p["request"]["url"].as_str().unwrap_or("").to_string(),
                    );
                }
                "Network.responseReceived" => {
                    let status = p["response"]["status"].as_u64().unwrap_or(0);
                    if status >= 400 {
                        let u = p["response"]["url"].as_str().unwrap_or("");
                        self.problems
                            .push(format!("{path}: {} answered {status}", self.short(u)));
                    }
                }
                "Network.loadingFailed" => {
                    let u = urls
                        .get(p["requestId"].as_str().unwrap_or(""))
                        .cloned()
                        .unwrap_or_default();
                    let err = p["errorText"].as_str().unwrap_or("failed");
                    if p["canceled"].as_bool() != Some(true) {
                        self.problems
                            .push(format!("{path}: request {} failed: {err}", self.short(&u)));
                    }
                }
                "Log.entryAdded" => {
                    let e = &p["entry"];
                    if e["level"].as_str() == Some("error") {
                        let at = e["url"].as_str().map(|u| self.short(u)).unwrap_or_default();
                        self.problems.push(format!(
                            "{path}: console error ({}): {} {at}",
                            e["source"].as_str().unwrap_or("?"),
                            e["text"].as_str().unwrap_or("")
                        ));
                    }
                }
                "Runtime.consoleAPICalled" => {
                    let kind = p["type"].as_str().unwrap_or("");
                    if kind == "error" || kind == "assert" {
                        let args: Vec<String> = p["args"]
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .map(|v| match &v["value"] {
                                        Value::String(s) => s.clone(),
                                        Value::Null => {
                                            v["description"].as_str().unwrap_or("").to_string()
                                        }
                                        other => other.to_string(),
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        self.problems
                            .push(format!("{path}: console.{kind}: {}", args.join(" ")));
                    }
                }
                "Runtime.exceptionThrown" => {
                    let d = &p["exceptionDetails"];
                    let text = d["exception"]["description"]
                        .as_str()
                        .or(d["text"].as_str())
                        .unwrap_or("");
                    self.problems
                        .push(format!("{path}: uncaught exception: {text}"));
                }
                _ => {}
            }
        }
    }

    /// A URL of the server as a path of the site; others as they are.
    fn short(&self, url: &str) -> String {
        url.strip_prefix(&self.server.origin())
            .map(|p| p.trim_start_matches('/').to_string())
            .unwrap_or_else(|| url.to_string())
    }

    /// Load a page and check it; the site paths it refers to (pages,
    /// images, stylesheets, data), or `None` if it did not load.
    fn check_page(
        &mut self,
        path: &str,
        (width, _): (u32, u32),
    ) -> Result<Option<Vec<String>>, String> {
        if !self.load(path)? {
            return Ok(None);
        }
        let info = self
            .browser
            .eval(&self.session, PAGE_JS, STEP)
            .map_err(|e| format!("{path}: {e}"));
        let events = self.browser.take_events();
        self.event_problems(path, &events);
        let info = info?;
        let mut found = Vec::new();
        let origin = self.server.origin();
        for l in info["links"].as_array().into_iter().flatten() {
            let (kind, raw, url) = (
                l["kind"].as_str().unwrap_or(""),
                l["raw"].as_str().unwrap_or(""),
                l["url"].as_str().unwrap_or(""),
            );
            let Some(rest) = url.strip_prefix(&origin) else {
                if url.starts_with("http:") || url.starts_with("https:") {
                    if kind == "link" {
                        self.report
                            .notes
                            .push(format!("{path}: links outside the site: {url}"));
                    } else {
                        self.problems
                            .push(format!("{path}: {kind} from outside the site: {url}"));
                    }
                } else if !(url.starts_with("mailto:") || url.starts_with("data:")) {
                    self.problems.push(format!(
                        "{path}: {kind} {raw:?}: not an address of the site"
                    ));
                }
                continue;
            };
            if raw.starts_with('/') || raw.contains("://") {
                self.problems.push(format!(
                    "{path}: {kind} {raw:?} is not relative (the site must work from any folder)"
                ));
            }
            let target = rest.split(['#', '?']).next().unwrap_or("");
            let Some(file) = serve::file_for(self.root, target) else {
                self.problems
                    .push(format!("{path}: {kind} {raw:?} leaves the site"));
                continue;
            };
            let Ok(rel) = file.strip_prefix(self.root) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !file.is_file() {
                let what = if kind == "image" {
                    "broken image"
                } else {
                    "broken link"
                };
                self.problems
                    .push(format!("{path}: {what}: {raw:?} ({rel} does not exist)"));
                continue;
            }
            if rel.ends_with(".json") {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                if let Err(e) = serde_json::from_str::<Value>(&text) {
                    self.problems
                        .push(format!("{path}: {rel} is not valid JSON: {e}"));
                }
            }
            found.push(rel);
        }
        for img in info["images"].as_array().into_iter().flatten() {
            let src = img["src"].as_str().unwrap_or("");
            let loaded =
                img["complete"].as_bool() == Some(true) && img["width"].as_u64().unwrap_or(0) > 0;
            if loaded {
                self.report.images += 1;
            } else {
                self.problems
                    .push(format!("{path}: broken image: {src:?} did not load"));
            }
            if img["alt"].as_str().is_none_or(|a| a.trim().is_empty()) {
                self.report
                    .notes
                    .push(format!("{path}: image {src:?} has no alt text"));
            }
        }
        let (sw, iw) = (
            info["scrollWidth"].as_u64().unwrap_or(0),
            info["innerWidth"].as_u64().unwrap_or(0),
        );
        if sw > iw && iw > 0 {
            self.report.notes.push(format!(
                "{path}: {sw} px wide in a {width} px window (scrolls sideways)"
            ));
        }
        Ok(Some(found))
    }

    /// A screenshot of the page now loaded, `shots/PAGE-LABEL.png`.
    fn screenshot(
        &mut self,
        path: &str,
        label: &str,
        (width, _): (u32, u32),
    ) -> Result<(), String> {
        let m = self.browser.call(
            Some(&self.session),
            "Page.getLayoutMetrics",
            json!({}),
            STEP,
        )?;
        let content_h = m["cssContentSize"]["height"]
            .as_f64()
            .or(m["contentSize"]["height"].as_f64())
            .unwrap_or(800.0);
        let h = content_h.clamp(1.0, f64::from(MAX_SHOT_HEIGHT)).ceil();
        let r = self.browser.call(
            Some(&self.session),
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": true,
                "clip": { "x": 0, "y": 0, "width": width, "height": h, "scale": 1 },
            }),
            STEP,
        )?;
        let data = r["data"]
            .as_str()
            .ok_or_else(|| format!("{path}: the screenshot has no data"))?;
        let png =
            base64_decode(data).ok_or_else(|| format!("{path}: the screenshot is not base64"))?;
        let name = format!(
            "{}-{label}.png",
            path.trim_end_matches(".html").replace('/', "_")
        );
        let file = self.shots.join(name);
        std::fs::write(&file, png).map_err(|e| format!("{}: {e}", file.display()))?;
        self.report.screenshots.push(file);
        Ok(())
    }

    /// Open an SVG as its own document; if it is a drawn map, check the
    /// towns.
    fn check_svg(&mut self, path: &str, towns: &[(String, String)]) -> Result<(), String> {
        if !self.load(path)? {
            return Ok(());
        }
        let js = MAP_JS.replace(
            "TOWNS",
            &serde_json::to_string(towns).map_err(|e| e.to_string())?,
        );
        let info = self
            .browser
            .eval(&self.session, &js, STEP)
            .map_err(|e| format!("{path}: {e}"));
        let events = self.browser.take_events();
        self.event_problems(path, &events);
        let info = info?;
        if info["svg"].as_bool() != Some(true) {
            self.problems
                .push(format!("{path}: not an SVG document, or not well-formed"));
            return Ok(());
        }
        if info["map"].as_bool() != Some(true) {
            return Ok(());
        }
        let mut m = MapReport {
            path: path.to_string(),
            hexes: info["hexes"].as_u64().unwrap_or(0) as usize,
            ..MapReport::default()
        };
        let listed: BTreeSet<&str> = towns.iter().map(|(_, h)| h.as_str()).collect();
        if !towns.is_empty() {
            for h in info["placed"].as_array().into_iter().flatten() {
                let h = h.as_str().unwrap_or("");
                if !listed.contains(h) {
                    self.problems.push(format!(
                        "{path}: a town is drawn at {h}, where none is expected"
                    ));
                }
            }
        }
        for t in info["towns"].as_array().into_iter().flatten() {
            let (name, hex) = (
                t["name"].as_str().unwrap_or(""),
                t["hex"].as_str().unwrap_or(""),
            );
            let cells = t["cells"].as_u64().unwrap_or(0);
            let drawn = t["drawn"].as_u64().unwrap_or(0);
            if cells == 0 {
                m.towns_elsewhere += 1;
                if drawn > 0 {
                    self.problems.push(format!(
                        "{path}: {name} is drawn at {hex}, a hex not on this map"
                    ));
                }
                continue;
            }
            let problems_before = self.problems.len();
            if cells > 1 {
                self.problems.push(format!(
                    "{path}: hex {hex} is drawn {cells} times in #hexes"
                ));
            }
            if drawn == 0 {
                self.problems
                    .push(format!("{path}: {name} ({hex}) is not drawn"));
                continue;
            }
            if drawn > 1 {
                self.problems
                    .push(format!("{path}: {name} ({hex}) is drawn {drawn} times"));
            }
            let text = t["text"].as_str().unwrap_or("");
            if !text.contains(name) {
                self.problems.push(format!(
                    "{path}: the town at {hex} is named {text:?}, not {name}"
                ));
            }
            let cell: Vec<f64> = floats(&t["cell"]);
            let marker: Vec<f64> = floats(&t["marker"]);
            match (cell.as_slice(), marker.as_slice()) {
                ([l, top, r, b], [x, y]) => {
                    if !(l <= x && x <= r && top <= y && y <= b) {
                        self.problems.push(format!(
                            "{path}: {name}'s marker is at ({x:.1}, {y:.1}) on screen, outside \
                             its hex {hex} ({l:.1}, {top:.1})-({r:.1}, {b:.1})"
                        ));
                    }
                }
                (_, []) => self
                    .problems
                    .push(format!("{path}: {name} ({hex}) has no marker (.mk)")),
                _ => self
                    .problems
                    .push(format!("{path}: {name} ({hex}): no box for its hex")),
            }
            if let ([x, y], Some((ex, ey))) =
                (floats(&t["cellCentre"]).as_slice(), grid_centre(hex))
                && ((x - ex).abs() > 0.6 || (y - ey).abs() > 0.6)
            {
                self.problems.push(format!(
                    "{path}: hex {hex}'s centre is at ({x:.1}, {y:.1}), the grid puts it at ({ex}, {ey})"
                ));
            }
            if self.problems.len() == problems_before {
                m.towns_checked += 1;
            }
        }
        self.report.maps.push(m);
        Ok(())
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// Where `dervish::render::svg` puts a hex's centre, in SVG units: columns
/// 26 apart, rows 30, odd columns 15 lower.
pub fn grid_centre(hex: &str) -> Option<(f64, f64)> {
    if hex.len() != 4 || !hex.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let col: i32 = hex[..2].parse().ok()?;
    let row: i32 = hex[2..].parse().ok()?;
    Some((
        f64::from(26 * col + 18),
        f64::from(30 * row + 15 * (col & 1) + 16),
    ))
}

/// Standard base64 (the screenshots Chromium sends).
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let body = bytes
        .strip_suffix(b"==")
        .or(bytes.strip_suffix(b"="))
        .unwrap_or(&bytes);
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= val(*c)? << (18 - 6 * i);
        }
        let take = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return None,
        };
        out.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
    }
    Some(out)
}
