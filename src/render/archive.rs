//! The campaign archive's data and pages: what `dervish archive` publishes
//! of a game, as JSON (one file per month and one for the campaign, the
//! schema in `docs/archive.md`) and as a static website that needs no
//! script to read: the campaign's index with its timeline and strength
//! charts, a page a month with the drawn maps after each player turn, the
//! log, the orders and the battle maps, and a verification page.
//!
//! Pure functions of the data: the service gathers it from the store
//! (`service::archive`), decides what may be shown, and writes the files.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::engine::events::Event;
use crate::state::GameState;

/// What the `archive` field of a month file says.
pub const MONTH_KIND: &str = "dervish archive month";
/// What the `archive` field of the campaign file says.
pub const GAME_KIND: &str = "dervish archive game";
/// The version of both formats; a reader refuses one it does not know.
pub const FORMAT: u32 = 1;

/// The campaign: `json/game.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameFile {
    /// Always [`GAME_KIND`].
    pub archive: String,
    /// Always [`FORMAT`].
    pub format: u32,
    pub game: String,
    /// The scenario's id (`el-obeid`, `khartoum`) and title.
    pub scenario: String,
    pub scenario_title: String,
    /// `monthly` or `alternating`.
    pub mode: String,
    /// `running`, `paused` or `finished`.
    pub status: String,
    pub players: Vec<Seat>,
    /// How the game ended, once it has.
    pub result: Option<String>,
    /// Every month played, in order.
    pub months: Vec<MonthSummary>,
    /// The events that matter, in order.
    pub timeline: Vec<Moment>,
    /// The turn open for orders, while the game runs: its seed is secret,
    /// its fingerprint public.
    pub open_turn: Option<OpenTurn>,
    /// Each programmed player's key (its dice), revealed when the game is
    /// over; empty before.
    pub programmed_keys: Vec<ProgrammedKey>,
}

/// Who plays a side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// `egyptian` or `mahdist`.
    pub side: String,
    /// The player's mail address, only if they agreed to show it
    /// (`ADDRESS PUBLIC`).
    pub address: Option<String>,
    /// The kind of programmed player holding the seat (`mahdist`,
    /// `egyptian-historical` ...), if one does.
    pub programmed: Option<String>,
}

/// A month's strength figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonthSummary {
    /// `1884-03`.
    pub month: String,
    /// `March 1884`.
    pub name: String,
    /// Each side's strength at the end of the month.
    pub strength: Vec<Strength>,
}

/// One side's strength points (the counters' combat factors): on the map,
/// in the pool (Mahdist units not yet raised or returned to it, Egyptian
/// counters not yet used), eliminated (out of play, awaiting replacement
/// or wrecked).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strength {
    pub side: String,
    pub on_map: u32,
    pub pool: u32,
    pub eliminated: u32,
}

/// Something that matters in the campaign's story.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moment {
    /// `1884-03`.
    pub month: String,
    /// The player turn it happened in (`egyptian`, `mahdist`).
    pub side: String,
    /// `battle`, `town`, `siege`, `siege-lifted`, `leader`,
    /// `reinforcement`, `event` or `end`.
    pub kind: String,
    /// The hex (`1942`), if it happened in one.
    pub hex: Option<String>,
    pub text: String,
}

/// The turn open for orders.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenTurn {
    pub turn_no: u32,
    pub month: String,
    /// `month`, `egyptian` or `mahdist`.
    pub kind: String,
    pub seed_sha256: String,
}

/// A programmed player's key, revealed at the end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgrammedKey {
    pub side: String,
    pub key: String,
}

/// A month: `json/<month>.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonthFile {
    /// Always [`MONTH_KIND`].
    pub archive: String,
    /// Always [`FORMAT`].
    pub format: u32,
    pub game: String,
    pub scenario: String,
    /// `1884-03`.
    pub month: String,
    /// `March 1884`.
    pub name: String,
    /// Each player turn played this month, in order, with its events and
    /// the state it left.
    pub player_turns: Vec<PlayerTurn>,
    /// The stored turns of the month (one in monthly mode, one per player
    /// turn in alternating mode), with what checks them.
    pub turns: Vec<TurnEntry>,
    /// Each side's strength at the end of the month.
    pub strength: Vec<Strength>,
    /// The month's part of the campaign timeline.
    pub timeline: Vec<Moment>,
}

/// One player turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerTurn {
    /// `egyptian` or `mahdist`.
    pub side: String,
    /// The engine's events of this player turn (the opening month's
    /// set-ups with the Egyptian one).
    pub events: Vec<Event>,
    /// The engine's state after it.
    pub state: GameState,
}

/// One stored turn and its proofs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnEntry {
    pub turn_no: u32,
    /// `month`, `egyptian` or `mahdist`.
    pub kind: String,
    /// The seed, revealed with the results, and its fingerprint, published
    /// when the turn opened.
    pub seed_hex: String,
    pub seed_sha256: String,
    /// The fingerprint of the next turn's seed, announced with these
    /// results.
    pub next_seed_sha256: Option<String>,
    /// Each side's orders as the receipt confirmed them, revealed with the
    /// results.
    pub orders: Vec<SealedOrders>,
    pub state_before_sha256: String,
    pub state_after_sha256: String,
    pub events_sha256: String,
    pub log_sha256: String,
    /// The result log, every roll.
    pub log: String,
    /// The turn record's file (`records/<game>-turn-<n>.json`).
    pub record: String,
    /// The SHA-256 of the programmed player's notes this turn, if one
    /// played.
    pub umpire_sha256: Option<String>,
    /// The notes themselves (its reasons and reaction rolls), only once
    /// the game is over.
    pub umpire_notes: Option<String>,
    /// Who played a side in a player's place this turn: the programmed
    /// player standing in, and why (an absence, a seat open after missed
    /// deadlines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stand_ins: Vec<String>,
    /// The game master took the game back to the start of this turn
    /// before it was played (when, what, why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<String>,
}

/// One side's orders of a turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedOrders {
    pub side: String,
    /// The hash sealed in the receipt.
    pub sealed_sha256: String,
    /// The orders as the receipt printed them; `None` when the side sent
    /// none and held.
    pub canonical: Option<String>,
}

/// A drawn map of a month page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapRef {
    pub title: String,
    /// Relative to the game's folder (`maps/1884-03-egyptian.svg`).
    pub file: String,
    /// The drawing's own width and height (its root's `width` and
    /// `height`, CSS pixels), when it gives them.
    pub size: Option<(u32, u32)>,
}

impl MapRef {
    /// The map of `svg`, to be written to `file`.
    pub fn drawn(title: String, file: String, svg: &str) -> MapRef {
        MapRef {
            title,
            file,
            size: svg_size(svg),
        }
    }
}

/// How much larger than its own size a theatre map is shown on a month
/// page: the drawing's stack numbers are 8 units high, so they read at
/// 12 pixels; the map's frame scrolls.
pub const THEATRE_SCALE: f64 = 1.5;

/// The `width` and `height` of an SVG document's root element.
fn svg_size(svg: &str) -> Option<(u32, u32)> {
    let start = svg.find("<svg")?;
    let tag = &svg[start..start + svg[start..].find('>')?];
    let attr = |name: &str| -> Option<u32> {
        let key = format!(" {name}=\"");
        let at = tag.find(&key)? + key.len();
        let v: f64 = tag[at..at + tag[at..].find('"')?].parse().ok()?;
        (v.is_finite() && v > 0.0 && v < 1e6).then(|| v.round() as u32)
    };
    Some((attr("width")?, attr("height")?))
}

/// The maps of a month page: the theatre after each player turn, then the
/// battles' areas.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MonthMaps {
    pub theatre: Vec<MapRef>,
    pub sectors: Vec<MapRef>,
    /// The tables of the month's table battles, as their briefs drew them.
    pub tables: Vec<MapRef>,
}

/// The file of a month's page, relative to the game's folder.
pub fn month_page_file(month: &str) -> String {
    format!("{month}.html")
}

/// The month file, relative to the game's folder.
pub fn month_json_file(month: &str) -> String {
    format!("json/{month}.json")
}

/// Text for HTML, escaped.
pub fn esc(s: &str) -> String {
    super::escape(s)
}

/// The one stylesheet, at the archive's root (`style.css`).
pub const STYLE: &str = "\
:root{--ink:#222;--paper:#fbf8f1;--rule:#d8cfbd;--eg:#c8322d;--md:#2f7a35;--link:#1d4f91}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 Georgia,'Times New Roman',serif;color:var(--ink);background:var(--paper)}
header,main,footer{max-width:1100px;margin:0 auto;padding:0 16px}
header{padding-top:12px;border-bottom:2px solid var(--rule)}
nav{font-size:15px;margin:6px 0}
nav a{margin-right:12px}
a{color:var(--link)}
h1{font-size:28px;margin:8px 0}
h2{font-size:22px;margin:24px 0 8px;border-bottom:1px solid var(--rule)}
h3{font-size:18px;margin:18px 0 6px}
pre{font:13px/1.35 'DejaVu Sans Mono',Menlo,Consolas,monospace;background:#fff;border:1px solid var(--rule);padding:8px;overflow-x:auto;white-space:pre}
table{border-collapse:collapse;margin:8px 0;font-size:15px}
td,th{border:1px solid var(--rule);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f1eadb}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.when{white-space:nowrap}
code,.hash{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:13px;overflow-wrap:anywhere}
figure{margin:12px 0}
figure img,figure svg{max-width:100%;height:auto;border:1px solid var(--rule);background:#fff}
.mapframe{overflow:auto;max-height:80vh;max-width:100%;border:1px solid var(--rule);background:#fff}
.mapframe img{display:block;max-width:none;border:0}
figcaption{font-size:14px;color:#555}
.egyptian{color:var(--eg)}.mahdist{color:var(--md)}
.charts{display:flex;flex-wrap:wrap;gap:16px}
.charts figure{flex:1 1 480px}
.wrap{overflow-x:auto}
footer{margin-top:32px;padding-bottom:24px;border-top:1px solid var(--rule);font-size:14px;color:#555}
@media (max-width:600px){body{font-size:15px}h1{font-size:22px}td,th{padding:2px 4px}}
";

/// The start of a page; `root` leads to the archive's root (`""` or
/// `"../"`), where the stylesheet and the icon are.
fn head(out: &mut String, title: &str, root: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<link rel=\"icon\" href=\"{root}favicon.ico\">\n<link rel=\"stylesheet\" href=\"{root}style.css\">\n</head>\n<body>\n",
        esc(title)
    );
}

fn foot(out: &mut String) {
    out.push_str("<footer>Made by Dervish from the game's stored turns; every roll can be checked (see the verification page).</footer>\n</body>\n</html>\n");
}

fn side_name(side: &str) -> &str {
    match side {
        "egyptian" => "Egyptian",
        "mahdist" => "Mahdist",
        _ => side,
    }
}

fn seat_text(s: &Seat) -> String {
    match (&s.programmed, &s.address) {
        (Some(kind), _) => format!("the programmed player ({kind})"),
        (None, Some(a)) => a.clone(),
        (None, None) => "a player (address not published)".into(),
    }
}

/// The games of an archive folder: its `index.html`.
pub fn games_page(games: &[GameFile]) -> String {
    let mut out = String::new();
    head(&mut out, "Dervish campaigns", "");
    out.push_str("<header><h1>Dervish campaigns</h1></header>\n<main>\n");
    if games.is_empty() {
        out.push_str("<p>No game is archived here yet.</p>\n");
    } else {
        out.push_str(
            "<table>\n<tr><th>Game</th><th>Scenario</th><th>Months</th><th>Standing</th></tr>\n",
        );
        for g in games {
            let months = match (g.months.first(), g.months.last()) {
                (Some(a), Some(b)) => format!("{} to {}", a.name, b.name),
                _ => "none played yet".into(),
            };
            let standing = g
                .result
                .clone()
                .unwrap_or_else(|| format!("{} ({} months played)", g.status, g.months.len()));
            let _ = writeln!(
                out,
                "<tr><td><a href=\"{id}/index.html\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&g.scenario_title),
                esc(&months),
                esc(&standing),
                id = esc(&g.game),
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("</main>\n");
    foot(&mut out);
    out
}

fn nav(out: &mut String, links: &[(String, String)]) {
    out.push_str("<nav>");
    for (href, text) in links {
        let _ = write!(out, "<a href=\"{}\">{}</a>", esc(href), esc(text));
    }
    out.push_str("</nav>\n");
}

/// The campaign's page: `<game>/index.html`.
pub fn game_page(g: &GameFile) -> String {
    let mut out = String::new();
    let title = format!("{}: {}", g.game, g.scenario_title);
    head(&mut out, &title, "../");
    out.push_str("<header>\n");
    nav(
        &mut out,
        &[
            ("../index.html".into(), "All games".into()),
            ("verify.html".into(), "Verification".into()),
            ("json/game.json".into(), "JSON".into()),
        ],
    );
    let _ = writeln!(out, "<h1>{}</h1>\n</header>\n<main>", esc(&title));
    out.push_str("<table>\n");
    let _ = writeln!(
        out,
        "<tr><th>Scenario</th><td>{} (<code>{}</code>)</td></tr>",
        esc(&g.scenario_title),
        esc(&g.scenario)
    );
    let _ = writeln!(
        out,
        "<tr><th>Turns</th><td>{}</td></tr>",
        if g.mode == "alternating" {
            "each player turn apart (alternating)"
        } else {
            "a month at a time"
        }
    );
    for s in &g.players {
        let _ = writeln!(
            out,
            "<tr><th class=\"{}\">{}</th><td>{}</td></tr>",
            esc(&s.side),
            side_name(&s.side),
            esc(&seat_text(s))
        );
    }
    let standing = match (&g.result, &g.open_turn) {
        (Some(r), _) => format!("Over: {r}"),
        (None, Some(t)) => format!(
            "{} ({} months played); turn {} ({}) is open for orders",
            g.status,
            g.months.len(),
            t.turn_no,
            t.month
        ),
        (None, None) => format!("{} ({} months played)", g.status, g.months.len()),
    };
    let _ = writeln!(out, "<tr><th>Result</th><td>{}</td></tr>", esc(&standing));
    out.push_str("</table>\n");

    out.push_str("<h2>Months</h2>\n<p>");
    if g.months.is_empty() {
        out.push_str("None played yet.");
    }
    for (i, m) in g.months.iter().enumerate() {
        if i > 0 {
            out.push_str(" · ");
        }
        let _ = write!(
            out,
            "<a href=\"{}\">{}</a>",
            month_page_file(&m.month),
            esc(&m.name)
        );
    }
    out.push_str("</p>\n");

    if !g.months.is_empty() {
        out.push_str("<h2>Strength, month by month</h2>\n<div class=\"charts\">\n");
        for side in ["egyptian", "mahdist"] {
            let _ = writeln!(
                out,
                "<figure>{}<figcaption>{} strength points at the end of each month: on the map, in the pool, eliminated.</figcaption></figure>",
                strength_chart(&g.months, side),
                side_name(side)
            );
        }
        out.push_str("</div>\n<details><summary>The figures</summary>\n<div class=\"wrap\"><table>\n<tr><th>Month</th><th>Egyptian on the map</th><th>in the pool</th><th>eliminated</th><th>Mahdist on the map</th><th>in the pool</th><th>eliminated</th></tr>\n");
        for m in &g.months {
            let _ = write!(out, "<tr><td>{}</td>", esc(&m.name));
            for side in ["egyptian", "mahdist"] {
                let s = m.strength.iter().find(|s| s.side == side);
                for v in [
                    s.map(|s| s.on_map),
                    s.map(|s| s.pool),
                    s.map(|s| s.eliminated),
                ] {
                    let _ = write!(out, "<td class=\"n\">{}</td>", v.unwrap_or(0));
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table></div>\n</details>\n");
    }

    out.push_str("<h2>Timeline</h2>\n");
    if g.timeline.is_empty() {
        out.push_str("<p>Nothing of note yet.</p>\n");
    } else {
        out.push_str("<div class=\"wrap\"><table>\n<tr><th>Month</th><th>Player turn</th><th>What happened</th></tr>\n");
        for t in &g.timeline {
            let _ = writeln!(
                out,
                "<tr><td class=\"when\"><a href=\"{}\">{}</a></td><td class=\"{}\">{}</td><td>{}</td></tr>",
                month_page_file(&t.month),
                esc(&t.month),
                esc(&t.side),
                side_name(&t.side),
                esc(&t.text)
            );
        }
        out.push_str("</table></div>\n");
    }
    out.push_str("</main>\n");
    foot(&mut out);
    out
}

/// A month's page: `<game>/<month>.html`. `prev` and `next` are the
/// neighbouring months' codes.
pub fn month_page(
    g: &GameFile,
    m: &MonthFile,
    maps: &MonthMaps,
    prev: Option<&str>,
    next: Option<&str>,
) -> String {
    let mut out = String::new();
    let title = format!("{}: {}", g.game, m.name);
    head(&mut out, &title, "../");
    out.push_str("<header>\n");
    let mut links = vec![("index.html".to_string(), "The campaign".to_string())];
    if let Some(p) = prev {
        links.push((month_page_file(p), format!("← {p}")));
    }
    if let Some(n) = next {
        links.push((month_page_file(n), format!("{n} →")));
    }
    links.push(("verify.html".into(), "Verification".into()));
    links.push((month_json_file(&m.month), "JSON".into()));
    nav(&mut out, &links);
    let _ = writeln!(out, "<h1>{}</h1>\n</header>\n<main>", esc(&title));

    if !m.timeline.is_empty() {
        out.push_str("<ul>\n");
        for t in &m.timeline {
            let _ = writeln!(
                out,
                "<li><span class=\"{}\">{}</span>: {}</li>",
                esc(&t.side),
                side_name(&t.side),
                esc(&t.text)
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<h2>The map</h2>\n");
    for r in &maps.theatre {
        theatre_figure(&mut out, r);
    }
    for t in &m.turns {
        let heading = match t.kind.as_str() {
            "month" => format!("The log of turn {}", t.turn_no),
            k => format!(
                "The log of turn {} ({} player turn)",
                t.turn_no,
                side_name(k)
            ),
        };
        let _ = writeln!(
            out,
            "<h2>{}</h2>\n<pre>{}</pre>",
            esc(&heading),
            esc(&t.log)
        );
        let _ = writeln!(out, "<h3>Orders of turn {}</h3>", t.turn_no);
        for o in &t.orders {
            match &o.canonical {
                Some(text) => {
                    let _ = writeln!(
                        out,
                        "<p class=\"{}\">{} orders, as the receipt confirmed them:</p>\n<pre>{}</pre>",
                        esc(&o.side),
                        side_name(&o.side),
                        esc(text)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "<p class=\"{}\">{}: no orders; the units held.</p>",
                        esc(&o.side),
                        side_name(&o.side)
                    );
                }
            }
        }
        if let Some(notes) = &t.umpire_notes {
            let _ = writeln!(
                out,
                "<h3>The umpire's notes of turn {}</h3>\n<pre>{}</pre>",
                t.turn_no,
                esc(notes)
            );
        }
    }
    if !maps.tables.is_empty() {
        out.push_str("<h2>The table battles</h2>\n<p>Each battle fought on the table, laid out as its brief gave it.</p>\n");
        for r in &maps.tables {
            figure(&mut out, r);
        }
    }
    if !maps.sectors.is_empty() {
        out.push_str("<h2>The battles' ground</h2>\n");
        for r in &maps.sectors {
            figure(&mut out, r);
        }
    }
    out.push_str("</main>\n");
    foot(&mut out);
    out
}

fn figure(out: &mut String, r: &MapRef) {
    let _ = writeln!(
        out,
        "<figure><a href=\"{f}\"><img src=\"{f}\" alt=\"{t}\" loading=\"lazy\"></a><figcaption>{t}</figcaption></figure>",
        f = esc(&r.file),
        t = esc(&r.title)
    );
}

/// A theatre map, larger than its own size (`THEATRE_SCALE`) so its
/// stacks read, in a frame the reader scrolls to pan, with a link to the
/// map's own file, where the browser's zoom works.
fn theatre_figure(out: &mut String, r: &MapRef) {
    let size = r.size.map_or(String::new(), |(w, h)| {
        let scaled = |v: u32| (f64::from(v) * THEATRE_SCALE).round();
        format!(" width=\"{}\" height=\"{}\"", scaled(w), scaled(h))
    });
    let _ = writeln!(
        out,
        "<figure class=\"theatre\"><div class=\"mapframe\"><img src=\"{f}\" alt=\"{t}\"{size} loading=\"lazy\"></div><figcaption>{t}. <a href=\"{f}\">The map at full size</a> (scroll the frame to pan; the browser zooms the full-size map).</figcaption></figure>",
        f = esc(&r.file),
        t = esc(&r.title)
    );
}

/// The verification page: `<game>/verify.html`.
pub fn verify_page(g: &GameFile, months: &[MonthFile]) -> String {
    let mut out = String::new();
    let title = format!("{}: verification", g.game);
    head(&mut out, &title, "../");
    out.push_str("<header>\n");
    nav(&mut out, &[("index.html".into(), "The campaign".into())]);
    let _ = writeln!(out, "<h1>{}</h1>\n</header>\n<main>", esc(&title));
    out.push_str(concat!(
        "<p>Each turn's dice come from a seed drawn before any orders came in: its fingerprint (SHA-256) was published when the turn opened, the seed itself with the results. ",
        "Each side's orders were sealed by the SHA-256 in its receipt. The state digests chain the turns: a turn starts from the state the turn before left.</p>\n",
        "<h2>How to check</h2>\n<ol>\n",
        "<li>The seed: the SHA-256 of the seed's 32 bytes (the hex decoded) is the fingerprint: <code>echo SEED | xxd -r -p | sha256sum</code>.</li>\n",
        "<li>The orders: the SHA-256 of the text <code>dervish orders\\ngame GAME\\nturn N\\nside SIDE\\n</code> followed by the orders as shown is the sealed hash.</li>\n",
        "<li>The whole turn: download its turn record and run <code>dervish verify --from-record FILE</code> (or <code>dervish verify --from-mail</code> on the results mail): it checks every digest, reads the orders again and plays the turn with the public scenario data; it must give the same state, events and log, byte for byte.</li>\n",
        "<li>The chain: a turn's <em>state before</em> is the <em>state after</em> of the turn before it, and its seed fingerprint is the one the turn before announced.</li>\n",
        "</ol>\n",
    ));
    if let Some(t) = &g.open_turn {
        let _ = writeln!(
            out,
            "<p>Turn {} ({}) is open: its seed's fingerprint is <span class=\"hash\">{}</span>; the seed is revealed with its results.</p>",
            t.turn_no,
            esc(&t.month),
            esc(&t.seed_sha256)
        );
    }
    if !g.programmed_keys.is_empty() {
        out.push_str("<h2>The programmed players' keys</h2>\n<p>Revealed at the end: a programmed player's dice are SHA-256 of <code>dervish programmed player\\n</code>, its key, the turn's seed and its side.</p>\n<table>\n");
        for k in &g.programmed_keys {
            let _ = writeln!(
                out,
                "<tr><th>{}</th><td class=\"hash\">{}</td></tr>",
                side_name(&k.side),
                esc(&k.key)
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("<h2>Turn by turn</h2>\n");
    for m in months {
        for t in &m.turns {
            let _ = writeln!(
                out,
                "<h3 id=\"turn-{n}\">Turn {n}: <a href=\"{page}\">{}</a>{}</h3>\n<div class=\"wrap\"><table>",
                esc(&m.name),
                if t.kind == "month" {
                    String::new()
                } else {
                    format!(", {} player turn", side_name(&t.kind))
                },
                n = t.turn_no,
                page = month_page_file(&m.month),
            );
            let row = |out: &mut String, k: &str, v: &str| {
                let _ = writeln!(
                    out,
                    "<tr><th>{}</th><td class=\"hash\">{}</td></tr>",
                    esc(k),
                    esc(v)
                );
            };
            row(
                &mut out,
                "Seed fingerprint (published first)",
                &t.seed_sha256,
            );
            row(&mut out, "Seed (revealed)", &t.seed_hex);
            for o in &t.orders {
                row(
                    &mut out,
                    &format!("{} orders sealed", side_name(&o.side)),
                    &o.sealed_sha256,
                );
            }
            row(&mut out, "State before", &t.state_before_sha256);
            row(&mut out, "State after", &t.state_after_sha256);
            row(&mut out, "Events", &t.events_sha256);
            row(&mut out, "Log", &t.log_sha256);
            if let Some(n) = &t.next_seed_sha256 {
                row(&mut out, "Next seed fingerprint", n);
            }
            if let Some(u) = &t.umpire_sha256 {
                row(&mut out, "Programmed player's notes sealed", u);
            }
            for who in &t.stand_ins {
                row(&mut out, "Played by a stand-in", who);
            }
            if let Some(r) = &t.rollback {
                row(&mut out, "Played again after a rollback", r);
            }
            let _ = writeln!(
                out,
                "<tr><th>Turn record</th><td><a href=\"{f}\">{f}</a></td></tr>\n</table></div>",
                f = esc(&t.record)
            );
        }
    }
    out.push_str("</main>\n");
    foot(&mut out);
    out
}

/// A line of a chart: its name, its value, its dash.
type Series = (&'static str, fn(&Strength) -> u32, &'static str);

/// A side's strength month by month as an SVG line chart: on the map
/// (solid), in the pool (dashed), eliminated (dotted).
pub fn strength_chart(months: &[MonthSummary], side: &str) -> String {
    const W: f64 = 560.0;
    const H: f64 = 220.0;
    const L: f64 = 44.0;
    const R: f64 = 28.0;
    const T: f64 = 24.0;
    const B: f64 = 36.0;
    let series: [Series; 3] = [
        ("on the map", |s| s.on_map, ""),
        ("in the pool", |s| s.pool, " stroke-dasharray=\"6 3\""),
        ("eliminated", |s| s.eliminated, " stroke-dasharray=\"2 3\""),
    ];
    let value = |m: &MonthSummary, f: fn(&Strength) -> u32| {
        m.strength.iter().find(|s| s.side == side).map_or(0, f)
    };
    let max = months
        .iter()
        .flat_map(|m| series.iter().map(move |(_, f, _)| value(m, *f)))
        .max()
        .unwrap_or(0)
        .max(1);
    // A round top: 1, 2 or 5 times a power of ten, four steps.
    let step = {
        let raw = f64::from(max) / 4.0;
        let p = 10f64.powf(raw.log10().floor());
        [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|k| k * p)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * p)
            .max(1.0)
    };
    let top = step * 4.0;
    let n = months.len().max(1);
    let x = |i: usize| {
        if n == 1 {
            L + (W - L - R) / 2.0
        } else {
            L + (W - L - R) * i as f64 / (n - 1) as f64
        }
    };
    let y = |v: u32| T + (H - T - B) * (1.0 - f64::from(v) / top);
    let colour = if side == "egyptian" {
        "#c8322d"
    } else {
        "#2f7a35"
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" class=\"chart\" data-side=\"{side}\" font-family=\"sans-serif\" font-size=\"11\"><title>{} strength, month by month</title>",
        side_name(side)
    );
    let _ = write!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{W}\" height=\"{H}\" fill=\"#fff\"/>"
    );
    for k in 0..=4 {
        let v = step * f64::from(k);
        let yy = T + (H - T - B) * (1.0 - v / top);
        let _ = write!(
            out,
            "<line x1=\"{L}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#e4ddcf\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#444\">{}</text>",
            W - R,
            L - 4.0,
            yy + 4.0,
            v as u32
        );
    }
    // Month labels: January of each year and the ends.
    for (i, m) in months.iter().enumerate() {
        let first = i == 0 || i + 1 == months.len() || m.month.ends_with("-01");
        if first {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444\">{}</text>",
                x(i),
                H - B + 16.0,
                esc(&m.month)
            );
        }
    }
    for (k, (name, f, dash)) in series.iter().enumerate() {
        let points: Vec<String> = months
            .iter()
            .enumerate()
            .map(|(i, m)| format!("{:.1},{:.1}", x(i), y(value(m, *f))))
            .collect();
        let _ = write!(
            out,
            "<polyline class=\"series\" data-series=\"{name}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            points.join(" ")
        );
        if n == 1 {
            let (px, py) = (x(0), y(value(&months[0], *f)));
            let _ = write!(
                out,
                "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"3\" fill=\"{colour}\"/>"
            );
        }
        // The key, along the top.
        let kx = L + 150.0 * k as f64;
        let _ = write!(
            out,
            "<line x1=\"{kx}\" x2=\"{}\" y1=\"12\" y2=\"12\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"16\" fill=\"#222\">{name}</text>",
            kx + 24.0,
            kx + 28.0
        );
    }
    out.push_str("</svg>");
    out
}

/// The site's icon (`favicon.ico` at the archive's root): browsers ask
/// the server's root for it even when showing a drawn map on its own, and
/// a missing one is an error in their console. A sand disc with a green
/// crescent, 32 pixels, as a PNG inside the ICO container.
pub fn favicon() -> Result<Vec<u8>, String> {
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\" width=\"32\" height=\"32\"><circle cx=\"16\" cy=\"16\" r=\"15\" fill=\"#e9d8a6\" stroke=\"#8a6d3b\" stroke-width=\"2\"/><path d=\"M19 7a9 9 0 1 0 0 18a7 7 0 1 1 0-18z\" fill=\"#2f7a35\"/></svg>";
    let png = super::svg::map_png_with_fonts(svg, 32, std::sync::Arc::new(Default::default()))?;
    let size = u32::try_from(png.len()).map_err(|_| "the icon is too large".to_string())?;
    let mut ico = Vec::with_capacity(22 + png.len());
    // ICONDIR: reserved, type 1 (icon), one image.
    ico.extend_from_slice(&[0, 0, 1, 0, 1, 0]);
    // ICONDIRENTRY: 32 x 32, no palette, reserved, 1 plane, 32 bits, the
    // size and offset of the PNG.
    ico.extend_from_slice(&[32, 32, 0, 0, 1, 0, 32, 0]);
    ico.extend_from_slice(&size.to_le_bytes());
    ico.extend_from_slice(&22u32.to_le_bytes());
    ico.extend_from_slice(&png);
    Ok(ico)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theatre_map_is_shown_larger_in_a_scrolling_frame_with_its_full_size_link() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 800 600\" \
                   width=\"800\" height=\"600.4\"><g id=\"hexes\"/></svg>";
        let r = MapRef::drawn("After".into(), "maps/1884-03-egyptian.svg".into(), svg);
        assert_eq!(r.size, Some((800, 600)));
        let mut out = String::new();
        theatre_figure(&mut out, &r);
        assert!(
            out.contains("<div class=\"mapframe\"><img src=\"maps/1884-03-egyptian.svg\""),
            "{out}"
        );
        assert!(out.contains("width=\"1200\" height=\"900\""), "{out}");
        assert!(
            out.contains("<a href=\"maps/1884-03-egyptian.svg\">The map at full size</a>"),
            "{out}"
        );
        assert!(STYLE.contains(".mapframe{overflow:auto;max-height:80vh"));
        assert_eq!(svg_size("<svg width=\"x\" height=\"2\">"), None);
        assert_eq!(svg_size("no svg"), None);
    }
}
