//! The drawn map: a hand-built SVG of the whole theatre or of a player's
//! area, with terrain, rivers on their hexsides, cataracts, railways,
//! places, stacks and sieges, and optionally a month's marches and battles
//! read from the engine's events; and the same map as a PNG (resvg).
//!
//! The SVG is plain text (no script), deterministic and small: hex centres
//! fall on whole numbers (columns 26 units apart, rows 30, odd columns 15
//! lower: within 0.1% of the map's 14.63 by 16.9 km), every other
//! coordinate is rounded to one decimal, shapes are drawn once in `<defs>`
//! and placed with `<use>`, and one `<style>` holds the colours.
//!
//! What a reader (or a test) can find in it:
//! - `g#hexes`: every hex of the area once, a `<use data-hex="1942">` of
//!   its terrain's hex shape (`#c` clear, `#h` hills, `#m` mountains, `#s`
//!   sea; those shapes carry `class="hex terrain-clear"` and so on); then
//!   the hex labels (`View::hex_labels`), or column and row numbers along
//!   the edges;
//! - `class="river navigable|seasonal|unnavigable"`: a run of one river's
//!   hexsides of one class, drawn on the hexside edges, listed in
//!   `data-sides` (`1942/N 1942/NE`); `class="cataract"` on each cataract
//!   hexside (`data-side`);
//! - `class="rail built|planned"`: a railway's track through the hex
//!   centres, its hexes in `data-hexes`; `class="railhead"`;
//! - `class="place town|village|oasis|landmark"` groups with `data-hex`
//!   and the name, a town's marker coloured by who holds it;
//! - `class="stack egyptian|mahdist"` groups with `data-hex`, the unit
//!   count and the leaders' names;
//! - `class="siege"` around besieged hexes (`data-hex`);
//! - with an [`Overlay`]: `class="march egyptian|mahdist"` routes through
//!   hex centres (`data-hexes`), `class="retreat"`, `class="battle"`
//!   markers (`data-hex`: the defender's hex; the story in `<title>`) and
//!   `class="res"` texts with who won;
//! - a key listing what this map shows.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb;

use crate::engine::events::Event;
use crate::engine::victory;
use crate::geo::{Hex, Hexside, Map, PlaceKind, RiverClass, Terrain};
use crate::render::labels::{self, Anchor, Board, Label, Rect};
use crate::render::{N, num};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;

/// Which part of the map to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// The whole theatre.
    Theatre,
    /// The columns and rows within `radius` of `centre`, as the ASCII
    /// sector maps (`ascii::Sector`).
    Around { centre: Hex, radius: i32 },
}

/// A month's events to draw over the map.
#[derive(Clone, Copy, Debug)]
pub struct Overlay<'a> {
    /// The events of the month (both player turns), as the engine gave them.
    pub events: &'a [Event],
    /// Whose marches to draw: one player's own (`Some`), or every march
    /// (`None`, an umpire's or the archive's view). Battles and retreats
    /// are drawn for both sides.
    pub side: Option<Side>,
}

/// What to draw: the area, and what happened in it.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub area: Area,
    pub overlay: Option<Overlay<'a>>,
    /// A label (`1942`) on every land hex. Without them the map has
    /// column numbers along its top and bottom and row numbers along its
    /// sides. On the whole theatre the labels are too small to read until
    /// one zooms in, and they make up a third of the file (about 95 KB),
    /// so [`View::theatre`] leaves them off and [`View::around`] puts
    /// them on.
    pub hex_labels: bool,
    /// Drawn for a picture this many pixels wide (a results mail's): every
    /// text is at least 11 pixels high there ([`MIN_TEXT_PX`]), and the
    /// labels are placed so that none overlaps another or a marker
    /// (`render::labels`); a label with no room is left out, hex numbers
    /// first. `None`: the archive's drawing, sizes fixed, every label.
    pub legible_at: Option<u32>,
    /// Decluttered, for an overview of the whole theatre by mail: only
    /// towns and places with stacks named, stacks as bold markers with
    /// their counts beside them, no leaders' names, no hex numbers.
    pub overview: bool,
}

/// The smallest text of a picture drawn for mail, in pixels.
pub const MIN_TEXT_PX: f64 = 11.0;

impl View<'static> {
    /// The whole theatre, no overlay.
    pub fn theatre() -> View<'static> {
        View {
            area: Area::Theatre,
            overlay: None,
            hex_labels: false,
            legible_at: None,
            overview: false,
        }
    }

    /// A player's area, no overlay.
    pub fn around(centre: Hex, radius: i32) -> View<'static> {
        View {
            area: Area::Around { centre, radius },
            overlay: None,
            hex_labels: true,
            legible_at: None,
            overview: false,
        }
    }

    /// A results mail's picture of `area`, `px` pixels wide: readable at
    /// that width, labels placed (an area with its hex numbers).
    pub fn picture(area: Area, px: u32) -> View<'static> {
        let base = match area {
            Area::Theatre => View::theatre(),
            Area::Around { centre, radius } => View::around(centre, radius),
        };
        View {
            legible_at: Some(px),
            ..base
        }
    }

    /// A results mail's overview of the whole theatre, `px` pixels wide,
    /// decluttered.
    pub fn overview(px: u32) -> View<'static> {
        View {
            legible_at: Some(px),
            overview: true,
            ..View::theatre()
        }
    }
}

impl<'a> View<'a> {
    /// The same view with a month's events drawn over it.
    pub fn with_overlay(self, events: &'a [Event], side: Option<Side>) -> View<'a> {
        View {
            overlay: Some(Overlay { events, side }),
            ..self
        }
    }
}

/// Columns between hex centres, in SVG units.
const COL: i32 = 26;
/// Rows between hex centres.
const ROW: i32 = 30;
/// Width of the key at the right of the map.
const KEY_W: i32 = 150;
/// Height of the title band above the map.
const TITLE_H: i32 = 22;

/// The type sizes of a picture drawn for mail, in map units, so that its
/// smallest text is [`MIN_TEXT_PX`] high at its width in pixels.
#[derive(Clone, Copy, Debug)]
struct Type {
    /// The size of most labels (hex numbers, places, leaders, results).
    f: f64,
    /// Town names (bold).
    town: f64,
    /// Stack counts (bold).
    cnt: f64,
    /// The title (bold).
    title: f64,
    /// How much larger than the archive's the key is drawn.
    key: f64,
    /// How much larger than the archive's the markers are (the overview's).
    mark: f64,
    overview: bool,
}

impl Type {
    /// The sizes for a picture `px` wide whose map part is `map_w` units
    /// wide under a title of `title_chars`: the key and title grow with
    /// the type, and the picture with them, so the sizes are worked out
    /// again from the width they give until they settle (a few rounds:
    /// the key is a quarter of the width at most).
    fn new(px: u32, map_w: i32, title_chars: usize, overview: bool) -> Type {
        let px = f64::from(px.max(1));
        // A little above 11 px, for rounding.
        let need = |w: f64| (w * (MIN_TEXT_PX + 0.3) / px).max(6.0);
        let mut f = 6.0;
        for _ in 0..8 {
            f = need(Type::sized(f, overview).width(map_w, title_chars));
        }
        Type::sized(f, overview)
    }

    /// The sizes for a label size of `f`.
    fn sized(f: f64, overview: bool) -> Type {
        Type {
            f,
            town: f * 1.15,
            cnt: (f * 1.1).max(8.0),
            title: (f * 1.3).max(13.0),
            key: (f / 7.0).max(1.0),
            mark: if overview { f / 10.0 } else { 1.0 },
            overview,
        }
    }

    /// The title's width, estimated (bold).
    fn title_w(&self, chars: usize) -> f64 {
        chars as f64 * self.title * 0.72 + 8.0
    }

    /// The picture's width in map units.
    fn width(&self, map_w: i32, title_chars: usize) -> f64 {
        (f64::from(map_w) + 6.0 + f64::from(KEY_W) * self.key).max(self.title_w(title_chars))
    }

    /// The style added to the map's for mail: the labels' classes and the
    /// title and key at these sizes; in the overview, wider lines.
    fn style(&self) -> String {
        let halo = |stroke: &str, w: f64| {
            format!("paint-order:stroke;stroke:{stroke};stroke-width:{}", num(w))
        };
        let (title, f, town, cnt) = (num(self.title), num(self.f), num(self.town), num(self.cnt));
        let (kt, kh) = (num(7.0 * self.key), num(8.0 * self.key));
        let pale = halo("#fbf8f0", self.f / 3.5);
        let white = halo("#fff", self.f / 3.5);
        let mn = halo("#fff", self.f / 3.0);
        let mut s = format!(
            ".title{{font-size:{title}px}}.kt{{font-size:{kt}px}}.kh{{font-size:{kh}px}}\
             .ml{{font-size:{f}px;fill:#8a7650}}\
             .mp{{font-size:{f}px;fill:#222;{pale}}}\
             .mt{{font-size:{town}px;font-weight:bold;fill:#222;{pale}}}\
             .mk2{{font-size:{f}px;font-style:italic;fill:#555;{pale}}}\
             .mc{{font-size:{cnt}px;font-weight:bold;fill:#fff}}\
             .mn{{font-size:{cnt}px;font-weight:bold;{mn}}}.mn.egyptian{{fill:#9a1f1a}}.mn.mahdist{{fill:#1f5a24}}\
             .md{{font-size:{f}px;{white}}}.md.egyptian{{fill:#9a1f1a}}.md.mahdist{{fill:#1f5a24}}\
             .mr{{font-size:{f}px;font-weight:bold;fill:#900;{white}}}\
             .mq{{font-size:{f}px;font-style:italic;fill:#2f5f9f;{white}}}"
        );
        if self.overview {
            let k = self.mark;
            let _ = write!(
                s,
                ".map .navigable{{stroke-width:{}}}.map .seasonal{{stroke-width:{}}}.map .unnavigable{{stroke-width:{}}}\
                 .map .built{{stroke-width:{}}}.map .planned{{stroke-width:{}}}.map .siege{{stroke-width:{}}}\
                 .map .march,.map .retreat{{stroke-width:{}}}.map .mk{{stroke-width:{}}}.map .stack rect{{stroke-width:{};stroke:#000}}",
                num(2.0 * k),
                num(1.6 * k),
                num(1.2 * k),
                num(1.6 * k),
                num(0.9 * k),
                num(2.2 * k),
                num(1.8 * k),
                num(0.9 * k),
                num(1.2 * k),
            );
        }
        s
    }
}

/// What a picture drawn for mail carries while it is drawn: its type
/// sizes and its labels, placed at the end.
struct Mail {
    ty: Type,
    board: Board,
}

/// The centre of a hex, in SVG units.
fn centre(h: Hex) -> (i32, i32) {
    (COL * h.col + 18, ROW * h.row + 15 * (h.col & 1) + 16)
}

/// The two ends of a hexside, in SVG units.
fn side_ends(side: Hexside) -> Option<[(f64, f64); 2]> {
    // Corner k of a hex, clockwise from the west end of the N edge, in
    // units of a third of a column (x) and half a row (y).
    const CORNERS: [(i32, i32); 6] = [(-1, -1), (1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0)];
    let (a, b) = side.hexes();
    let i = a.direction_to(b)?.index();
    let (cx, cy) = centre(a);
    let at = |k: usize| {
        let (dx, dy) = CORNERS[k % 6];
        (
            f64::from(cx) + f64::from(dx * COL) / 3.0,
            f64::from(cy) + f64::from(dy * ROW) / 2.0,
        )
    };
    Some([at(i), at(i + 1)])
}

/// The hexes drawn, as an inclusive rectangle of columns and rows.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    c0: i32,
    c1: i32,
    r0: i32,
    r1: i32,
}

impl Bounds {
    fn of(map: &Map, area: Area) -> Bounds {
        let (cols, rows) = (map.columns(), map.rows());
        match area {
            Area::Theatre => Bounds {
                c0: 0,
                c1: cols - 1,
                r0: 0,
                r1: rows - 1,
            },
            Area::Around { centre, radius } => {
                let r = radius.max(0);
                let clamp = |v: i32, max: i32| v.clamp(0, (max - 1).max(0));
                Bounds {
                    c0: clamp(centre.col - r, cols),
                    c1: clamp(centre.col + r, cols),
                    r0: clamp(centre.row - r, rows),
                    r1: clamp(centre.row + r, rows),
                }
            }
        }
    }

    fn contains(&self, h: Hex) -> bool {
        (self.c0..=self.c1).contains(&h.col) && (self.r0..=self.r1).contains(&h.row)
    }

    /// Whether the hex is in the area or next to it (things drawn across
    /// the area's edge).
    fn near(&self, h: Hex) -> bool {
        (self.c0 - 1..=self.c1 + 1).contains(&h.col) && (self.r0 - 1..=self.r1 + 1).contains(&h.row)
    }

    /// The map's part of the picture: left, top, right, bottom; with
    /// room for the column and row numbers when `rulers`.
    fn frame(&self, rulers: bool) -> (i32, i32, i32, i32) {
        let odd_low = self.c1 > self.c0 || self.c0 & 1 == 1;
        let (mx, my) = if rulers { (12, 9) } else { (0, 0) };
        (
            COL * self.c0 - 4 - mx,
            ROW * self.r0 - 3 - my,
            COL * self.c1 + 40 + mx,
            ROW * self.r1 + 35 + my + if odd_low { 15 } else { 0 },
        )
    }
}

/// `&`, `<`, `>` and `"` escaped for text and attribute values.
fn esc(s: &str) -> String {
    super::escape(s)
}

fn side_class(s: Side) -> &'static str {
    match s {
        Side::Egyptian => "egyptian",
        Side::Mahdist => "mahdist",
    }
}

fn terrain_id(t: Terrain) -> &'static str {
    match t {
        Terrain::Clear => "c",
        Terrain::Hills => "h",
        Terrain::Mountains => "m",
        Terrain::Sea => "s",
    }
}

fn river_class(c: RiverClass) -> &'static str {
    match c {
        RiverClass::Navigable => "navigable",
        RiverClass::Seasonal => "seasonal",
        RiverClass::Unnavigable => "unnavigable",
    }
}

fn place_class(k: PlaceKind) -> &'static str {
    match k {
        PlaceKind::Town => "town",
        PlaceKind::Village => "village",
        PlaceKind::Oasis => "oasis",
        PlaceKind::Landmark => "landmark",
    }
}

/// Path data through the centres of `hexes`.
fn centre_path(hexes: &[Hex]) -> String {
    let mut d = String::new();
    for (i, h) in hexes.iter().enumerate() {
        let (x, y) = centre(*h);
        let _ = write!(d, "{}{x} {y}", if i == 0 { 'M' } else { 'L' });
    }
    d
}

fn hex_list(hexes: &[Hex]) -> String {
    let v: Vec<String> = hexes.iter().map(Hex::to_string).collect();
    v.join(" ")
}

/// The hex outline, centred on 0 0 (two decimals: it is written once).
const HEX_D: &str = "M-17.33 0L-8.67-15H8.67L17.33 0L8.67 15H-8.67Z";

const STYLE: &str = "\
text{font-family:'DejaVu Sans','Liberation Sans',Arial,sans-serif}\
.bg{fill:#fbf8f0}\
.hex{stroke:#b9a57a;stroke-width:.4;shape-rendering:crispEdges}\
.terrain-clear{fill:#f3e7c6}.terrain-hills{fill:#dcc190}.terrain-mountains{fill:#b4946a}.terrain-sea{fill:#a9cfe9}\
.lab{font-size:5.5px;fill:#8a7650;text-anchor:middle}.rul{font-size:6.5px;fill:#6a5a3a;text-anchor:middle}\
.river{fill:none;stroke:#2f6dbf;stroke-linecap:round;stroke-linejoin:round}\
.navigable{stroke-width:3.2}.seasonal{stroke-width:2.6;stroke-dasharray:5 2.5}.unnavigable{stroke-width:1.8;stroke:#6f9fd8}\
.cataract{fill:#fff;stroke:#a33;stroke-width:1.2}\
.cname{font-size:5.5px;font-style:italic;fill:#2f5f9f}\
.rail{fill:none;stroke:#222;stroke-linejoin:round}.built{stroke-width:2.2}.planned{stroke-width:1.1;stroke-dasharray:3 2.5}\
.railhead{fill:#222}\
.mk{fill:#fff;stroke:#222;stroke-width:.9}.held-egyptian .mk{fill:#c8322d}.held-mahdist .mk{fill:#2f7a35}\
.oasis .mk{fill:#8fd0c0}\
.pn{font-size:6px;text-anchor:middle;fill:#222;paint-order:stroke;stroke:#fbf8f0;stroke-width:1.6}\
.town .pn{font-size:7px;font-weight:bold}.landmark .pn{font-style:italic;fill:#555}\
.stack rect{stroke:#111;stroke-width:.6}.egyptian rect{fill:#c8322d}.mahdist rect{fill:#2f7a35}\
.cnt{font-size:8px;font-weight:bold;fill:#fff;text-anchor:middle}\
.ldr{font-size:5px;text-anchor:middle;paint-order:stroke;stroke:#fff;stroke-width:1.4}\
.egyptian .ldr{fill:#9a1f1a}.mahdist .ldr{fill:#1f5a24}\
.siege{fill:none;stroke:#d11;stroke-width:2.2;stroke-dasharray:4 2}\
.march,.retreat{fill:none;stroke-width:1.8;stroke-linejoin:round;opacity:.85}\
.march.egyptian{stroke:#c8322d}.march.mahdist{stroke:#2f7a35}\
.retreat{stroke:#555;stroke-dasharray:2 1.5}\
.battle use{fill:#ffd21f;stroke:#b00;stroke-width:.8}\
.res{font-size:5.5px;font-weight:bold;fill:#900;paint-order:stroke;stroke:#fff;stroke-width:1.6}\
.title{font-size:13px;font-weight:bold;fill:#222}\
.kt{font-size:7px;fill:#222}.kh{font-size:8px;font-weight:bold;fill:#222}\
";

/// Draw the map: `state` adds who holds each town, the stacks and the
/// sieges; `view` says which part, and which month's events to draw over it.
pub fn map_svg(scn: &Scenario, state: Option<&GameState>, view: &View<'_>) -> String {
    let map = &scn.map;
    let b = Bounds::of(map, view.area);
    let mut key = Key::default();
    let rulers = !view.hex_labels && view.legible_at.is_none();
    let (left, top, right, bottom) = b.frame(rulers);
    let title = title_of(map, state, view);
    let mut mail = view.legible_at.map(|px| Mail {
        ty: Type::new(px, right - left, title.chars().count(), view.overview),
        board: Board::within(Rect {
            x0: f64::from(left),
            y0: f64::from(top),
            x1: f64::from(right),
            y1: f64::from(bottom),
        }),
    });
    let body = draw_body(
        scn,
        state,
        view,
        &b,
        (left, top, right, bottom),
        &mut key,
        &mut mail,
    );

    // The map's own part: what runs on beyond the area (a railway, a
    // march from afar) is cut at its edge, off the key and the title.
    let clip = (left, top, right - left, bottom - top);
    let key_x = right + 6;
    let ty = mail.as_ref().map(|m| m.ty);
    let (key_svg, key_h) = key.draw(key_x, top + 4, ty.map_or(1.0, |t| t.key), ty.is_some());
    let (vx, vy) = (left, top - TITLE_H);
    let (w, title_size) = match ty {
        Some(t) => (
            t.width(right - left, title.chars().count()).ceil() as i32,
            t.title,
        ),
        None => {
            // Wide enough for the title (bold 13 px: about 8 units a letter).
            let title_w = 8 * title.chars().count() as i32 + 8;
            ((key_x + KEY_W - vx).max(title_w), 13.0)
        }
    };
    let vy = vy - (title_size - 13.0).max(0.0).ceil() as i32;
    let bottom = bottom.max(top + key_h + 10);
    let h = bottom - vy;

    let mut out = String::with_capacity(body.len() + 8 * 1024);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{vx} {vy} {w} {h}\" width=\"{w}\" height=\"{h}\">"
    );
    let _ = writeln!(out, "<title>{}</title>", esc(&title));
    let _ = writeln!(out, "<style>{STYLE}</style>");
    if let Some(t) = ty {
        let _ = writeln!(out, "<style>{}</style>", t.style());
    }
    write_defs(&mut out, clip);
    let _ = writeln!(
        out,
        "<rect class=\"bg\" x=\"{vx}\" y=\"{vy}\" width=\"{w}\" height=\"{h}\"/>"
    );
    let title_svg = format!(
        "<text class=\"title\" x=\"{}\" y=\"{}\">{}</text>\n",
        left + 4,
        top - 6,
        esc(&title)
    );
    if ty.is_some() {
        // For mail the map's part is a class of its own, so the
        // overview's thicker lines leave the key's samples as they are;
        // and what runs beyond the area is covered with the background
        // instead of clipped: resvg draws a clipped group on a picture
        // of its own, masks it and lays it on the map, which was a
        // quarter of a mail picture's time. The pixels are the same but
        // for a step of the blend along the area's edge.
        out.push_str("<g class=\"map\">\n");
        out.push_str(&body);
        out.push_str("</g>\n");
        out.push_str(&cover_beyond(clip, (vx, vy, w, h)));
        out.push_str(&title_svg);
    } else {
        out.push_str(&title_svg);
        out.push_str("<g clip-path=\"url(#area)\">\n");
        out.push_str(&body);
        out.push_str("</g>\n");
    }
    out.push_str(&key_svg);
    out.push_str("</svg>\n");
    out
}

/// The background colour over everything of the picture (`vx`, `vy`,
/// `w`, `h`) outside the map's rectangle `clip` (x, y, width, height):
/// one path of up to four bands, above, below, left and right of it.
fn cover_beyond(clip: (i32, i32, i32, i32), (vx, vy, w, h): (i32, i32, i32, i32)) -> String {
    let (x0, y0, x1, y1) = (clip.0, clip.1, clip.0 + clip.2, clip.1 + clip.3);
    let bands = [
        (vx, vy, vx + w, y0),
        (vx, y1, vx + w, vy + h),
        (vx, y0, x0, y1),
        (x1, y0, vx + w, y1),
    ];
    let mut d = String::new();
    for (l, t, r, b) in bands.into_iter().filter(|&(l, t, r, b)| l < r && t < b) {
        let _ = write!(d, "M{l} {t}H{r}V{b}H{l}Z");
    }
    if d.is_empty() {
        return String::new();
    }
    format!("<path class=\"bg\" d=\"{d}\"/>\n")
}

/// The map's title: its name, the month, and the area.
fn title_of(map: &Map, state: Option<&GameState>, view: &View<'_>) -> String {
    let mut title = map.name().to_string();
    if let Some(st) = state {
        let _ = write!(title, ", {}", st.month.long_name());
    }
    match view.area {
        Area::Around { centre, .. } => {
            let _ = write!(title, ": around {}", map.describe(centre));
        }
        Area::Theatre if view.overview => title.push_str(": the whole theatre"),
        Area::Theatre => {}
    }
    title
}

/// Everything inside the map's frame: hexes, rivers, railways, sieges,
/// marches, battles, places and stacks, and for mail the labels placed
/// over them.
fn draw_body(
    scn: &Scenario,
    state: Option<&GameState>,
    view: &View<'_>,
    b: &Bounds,
    frame: (i32, i32, i32, i32),
    key: &mut Key,
    mail: &mut Option<Mail>,
) -> String {
    let map = &scn.map;
    let mut body = String::with_capacity(256 * 1024);
    draw_hexes(map, b, view.hex_labels, &mut body, key, mail.as_mut());
    if !view.hex_labels && mail.is_none() {
        draw_rulers(b, frame, &mut body);
    }
    draw_rivers(map, b, &mut body, key, mail.as_mut());
    draw_rails(map, state, b, &mut body, key);
    let besieged = besieged_hexes(scn, state, view.overlay.as_ref());
    for h in besieged.iter().filter(|h| b.contains(**h)) {
        let (x, y) = centre(*h);
        let _ = writeln!(
            body,
            "<use href=\"#o\" x=\"{x}\" y=\"{y}\" class=\"siege\" data-hex=\"{h}\"/>"
        );
        key.siege = true;
    }
    if let Some(o) = &view.overlay {
        draw_moves(o, b, &mut body, key);
    }
    let stacks: BTreeMap<Hex, Vec<crate::state::Stack<'_>>> = match state {
        Some(st) => {
            let mut m: BTreeMap<Hex, Vec<_>> = BTreeMap::new();
            for s in st.stacks().into_iter().filter(|s| b.contains(s.hex)) {
                m.entry(s.hex).or_default().push(s);
            }
            m
        }
        None => BTreeMap::new(),
    };
    // Battles under the places and stacks, so names and counts stay
    // readable where a burst falls on them.
    let mut results = String::new();
    if let Some(o) = &view.overlay {
        draw_battles(map, o, b, &mut body, &mut results, key, mail.as_mut());
    }
    draw_places(map, state, &stacks, b, &mut body, key, mail.as_mut());
    match mail.as_mut() {
        Some(m) => draw_mail_stacks(&stacks, &mut body, key, m),
        None => draw_stacks(&stacks, &mut body, key),
    }
    body.push_str(&results);
    if let Some(m) = mail.as_mut() {
        body.push_str("<g class=\"labels\">\n");
        for p in std::mem::take(&mut m.board).place() {
            body.push_str(&p.svg);
            body.push('\n');
        }
        body.push_str("</g>\n");
    }
    body
}

/// The shapes drawn once and placed with `<use>`, the arrowheads, and the
/// map's clip.
fn write_defs(out: &mut String, clip: (i32, i32, i32, i32)) {
    out.push_str("<defs>");
    for t in [
        Terrain::Clear,
        Terrain::Hills,
        Terrain::Mountains,
        Terrain::Sea,
    ] {
        let _ = write!(
            out,
            "<path id=\"{}\" class=\"hex terrain-{}\" d=\"{HEX_D}\"/>",
            terrain_id(t),
            t.name()
        );
    }
    let _ = write!(out, "<path id=\"o\" d=\"{HEX_D}\"/>");
    // Cataract: a ring with a bar; battle: an eight-pointed burst;
    // arrowheads for the marches of each side.
    out.push_str("<path id=\"ct\" d=\"M-3 0a3 3 0 1 0 6 0a3 3 0 1 0-6 0M-2.1-2.1L2.1 2.1\"/>");
    out.push_str(
        "<path id=\"bt\" d=\"M0-7L1.6-3.8L5-5L3.8-1.6L7 0L3.8 1.6L5 5L1.6 3.8L0 7L-1.6 3.8L-5 5L-3.8 1.6L-7 0L-3.8-1.6L-5-5L-1.6-3.8Z\"/>",
    );
    for (id, colour) in [("ae", "#c8322d"), ("am", "#2f7a35"), ("ar", "#555")] {
        let _ = write!(
            out,
            "<marker id=\"{id}\" viewBox=\"0 0 6 6\" refX=\"5\" refY=\"3\" markerWidth=\"3.5\" markerHeight=\"3.5\" orient=\"auto\"><path d=\"M0 0L6 3L0 6Z\" fill=\"{colour}\"/></marker>"
        );
    }
    let _ = write!(
        out,
        "<clipPath id=\"area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>",
        clip.0, clip.1, clip.2, clip.3
    );
    out.push_str("</defs>\n");
}

/// Every hex of the area once, by column, with its label if `labels`.
fn draw_hexes(
    map: &Map,
    b: &Bounds,
    labels_on: bool,
    out: &mut String,
    key: &mut Key,
    mut mail: Option<&mut Mail>,
) {
    out.push_str("<g id=\"hexes\">\n");
    let mut labels = String::from("<g class=\"lab\">\n");
    for c in b.c0..=b.c1 {
        let x = COL * c + 18;
        let _ = write!(out, "<g transform=\"translate({x})\">");
        let _ = write!(labels, "<g transform=\"translate({x})\">");
        for r in b.r0..=b.r1 {
            let h = Hex::new(c, r);
            let Some(t) = map.terrain(h) else { continue };
            key.terrain.insert(t.name(), t);
            let y = centre(h).1;
            let _ = write!(
                out,
                "<use href=\"#{}\" y=\"{y}\" data-hex=\"{h}\"/>",
                terrain_id(t)
            );
            if labels_on
                && t != Terrain::Sea
                && let Some(m) = mail.as_deref_mut()
            {
                m.board.add(Label {
                    class: "ml",
                    attrs: format!(" data-hex=\"{h}\""),
                    text: h.to_string(),
                    size: m.ty.f,
                    bold: false,
                    priority: 6,
                    at: vec![(f64::from(x), f64::from(y - 9), Anchor::Middle)],
                    fixed: false,
                    short: None,
                });
            } else if labels_on && t != Terrain::Sea {
                let _ = write!(labels, "<text y=\"{}\">{h}</text>", y - 9);
            }
        }
        out.push_str("</g>\n");
        labels.push_str("</g>\n");
    }
    out.push_str("</g>\n");
    labels.push_str("</g>\n");
    if labels_on && mail.is_none() {
        out.push_str(&labels);
    }
}

/// Column numbers above and below the area, row numbers at its sides.
fn draw_rulers(b: &Bounds, (left, top, right, bottom): (i32, i32, i32, i32), out: &mut String) {
    out.push_str("<g class=\"rul\">\n");
    for c in b.c0..=b.c1 {
        let x = COL * c + 18;
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{}\">{c:02}</text><text x=\"{x}\" y=\"{}\">{c:02}</text>",
            top + 7,
            bottom - 2
        );
    }
    for r in b.r0..=b.r1 {
        let y = ROW * r + 18;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{y}\">{r:02}</text><text x=\"{}\" y=\"{y}\">{r:02}</text>",
            left + 7,
            right - 7
        );
    }
    out.push_str("</g>\n");
}

/// Rivers on their hexsides: one path for each run of a river's hexsides
/// of one class; a cataract marked on each of its hexsides.
fn draw_rivers(
    map: &Map,
    b: &Bounds,
    out: &mut String,
    key: &mut Key,
    mut mail: Option<&mut Mail>,
) {
    let shown = |s: &Hexside| {
        let (a, c) = s.hexes();
        b.contains(a) || b.contains(c)
    };
    for river in map.rivers() {
        let mut run: Vec<Hexside> = Vec::new();
        let mut class: Option<RiverClass> = None;
        let mut flush = |run: &mut Vec<Hexside>, class: Option<RiverClass>, out: &mut String| {
            if let Some(cl) = class
                && !run.is_empty()
            {
                river_path(run, cl, &river.name, out);
                key.rivers.insert(river_class(cl), cl);
            }
            run.clear();
        };
        for s in &river.hexsides {
            let cl = map.river_at(*s).map(|r| r.class);
            let keep = shown(s);
            if !keep || cl != class {
                flush(&mut run, class, out);
            }
            class = cl;
            if keep {
                run.push(*s);
            }
        }
        flush(&mut run, class, out);
    }
    for cat in map.cataracts() {
        let mut named = false;
        for s in cat.hexsides.iter().filter(|s| shown(s)) {
            let Some([p, q]) = side_ends(*s) else {
                continue;
            };
            let (x, y) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
            let _ = writeln!(
                out,
                "<use href=\"#ct\" x=\"{}\" y=\"{}\" class=\"cataract\" data-side=\"{s}\"><title>{}</title></use>",
                N(x),
                N(y),
                esc(&cat.name)
            );
            if !named && let Some(m) = mail.as_deref_mut() {
                if !m.ty.overview {
                    let f = m.ty.f;
                    m.board.add(Label {
                        class: "mq",
                        attrs: String::new(),
                        text: cat.name.clone(),
                        size: f,
                        bold: false,
                        priority: 5,
                        at: labels::around(x, y, 6.0, 6.0, f),
                        fixed: false,
                        short: None,
                    });
                }
                m.board.block(Rect::centred(x, y, 6.0, 6.0));
                named = true;
            } else if !named {
                let _ = writeln!(
                    out,
                    "<text class=\"cname\" x=\"{}\" y=\"{}\">{}</text>",
                    N(x + 5.0),
                    N(y + 2.0),
                    esc(&cat.name)
                );
                named = true;
            }
            key.cataract = true;
        }
    }
}

/// One run of river hexsides as a path along their edges: each side joins
/// the last at a shared corner where it can, else the pen lifts.
fn river_path(run: &[Hexside], class: RiverClass, name: &str, out: &mut String) {
    let mut d = String::new();
    let mut pen: Option<(f64, f64)> = None;
    let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 0.01 && (a.1 - b.1).abs() < 0.01;
    for s in run {
        let Some([p, q]) = side_ends(*s) else {
            continue;
        };
        let next = match pen {
            Some(at) if close(at, p) => q,
            Some(at) if close(at, q) => p,
            _ => {
                let _ = write!(d, "M{} {}", N(p.0), N(p.1));
                q
            }
        };
        let _ = write!(d, "L{} {}", N(next.0), N(next.1));
        pen = Some(next);
    }
    let sides: Vec<String> = run.iter().map(Hexside::to_string).collect();
    let _ = writeln!(
        out,
        "<path class=\"river {}\" data-sides=\"{}\" d=\"{d}\"><title>{}</title></path>",
        river_class(class),
        sides.join(" "),
        esc(name)
    );
}

/// Railways through the hex centres: the built track (the map's, or as far
/// as the state has built it) and the track that may be built; the
/// railhead at the end of the line being built.
fn draw_rails(map: &Map, state: Option<&GameState>, b: &Bounds, out: &mut String, key: &mut Key) {
    for line in map.railways() {
        if !line.hexes.iter().any(|h| b.near(*h)) {
            continue;
        }
        let built = state
            .and_then(|s| s.rail_built.get(&line.name).copied())
            .unwrap_or(line.built)
            .min(line.hexes.len());
        let (done, todo) = line.hexes.split_at(built);
        if !done.is_empty() {
            let _ = writeln!(
                out,
                "<path class=\"rail built\" data-hexes=\"{}\" d=\"{}\"><title>{}</title></path>",
                hex_list(done),
                centre_path(done),
                esc(&line.name)
            );
            key.rail_built = true;
        }
        if !todo.is_empty() {
            // Joined to the end of the built track.
            let from = built.saturating_sub(1);
            let _ = writeln!(
                out,
                "<path class=\"rail planned\" data-hexes=\"{}\" d=\"{}\"><title>{}</title></path>",
                hex_list(todo),
                centre_path(&line.hexes[from..]),
                esc(&line.name)
            );
            key.rail_planned = true;
        }
        let building = state
            .and_then(|s| s.railhead.as_ref())
            .and_then(|r| r.line.as_deref())
            == Some(line.name.as_str());
        if building && let Some(end) = done.last().filter(|h| b.contains(**h)) {
            let (x, y) = centre(*end);
            let _ = writeln!(
                out,
                "<rect class=\"railhead\" x=\"{}\" y=\"{}\" width=\"5\" height=\"5\" data-hex=\"{end}\"/>",
                x + 6,
                y - 6
            );
            key.railhead = true;
        }
    }
}

/// Hexes under siege: the state's (both sides), and those the month's
/// events reported.
fn besieged_hexes(
    scn: &Scenario,
    state: Option<&GameState>,
    overlay: Option<&Overlay<'_>>,
) -> BTreeSet<Hex> {
    let mut out = BTreeSet::new();
    if let Some(st) = state {
        for s in [Side::Egyptian, Side::Mahdist] {
            out.extend(victory::besieged(scn, st, s));
        }
    }
    if let Some(o) = overlay {
        for e in o.events {
            if let Event::UnderSiege { hexes } = e {
                out.extend(hexes.iter().copied());
            }
        }
    }
    out
}

/// Places with their markers and names; a settlement's marker in the
/// colour of the side holding it. The marker stands left of a stack.
fn draw_places(
    map: &Map,
    state: Option<&GameState>,
    stacks: &BTreeMap<Hex, Vec<crate::state::Stack<'_>>>,
    b: &Bounds,
    out: &mut String,
    key: &mut Key,
    mut mail: Option<&mut Mail>,
) {
    for p in map.places().iter().filter(|p| b.contains(p.hex)) {
        let has_stack = stacks.contains_key(&p.hex);
        if let Some(m) = mail.as_deref_mut() {
            if !m.ty.overview || p.kind == PlaceKind::Town || has_stack {
                let held = state.and_then(|s| s.control.get(&p.hex)).copied();
                place_for_mail(m, p, held, has_stack, out, key);
            }
            continue;
        }
        let (cx, cy) = centre(p.hex);
        let mx = if stacks.contains_key(&p.hex) {
            cx - 9
        } else {
            cx
        };
        let kind = place_class(p.kind);
        let held = state.and_then(|s| s.control.get(&p.hex)).copied();
        let held_class = match held {
            Some(s) => format!(" held-{}", side_class(s)),
            None => String::new(),
        };
        if let Some(s) = held {
            key.held.insert(side_class(s), s);
        }
        key.places.insert(p.kind);
        let _ = write!(
            out,
            "<g class=\"place {kind}{held_class}\" data-hex=\"{}\">",
            p.hex
        );
        let _ = match p.kind {
            PlaceKind::Town => write!(
                out,
                "<rect class=\"mk\" x=\"{}\" y=\"{}\" width=\"7\" height=\"7\"/>",
                mx - 3,
                cy - 2
            ),
            PlaceKind::Village | PlaceKind::Oasis => write!(
                out,
                "<circle class=\"mk\" cx=\"{mx}\" cy=\"{}\" r=\"2.6\"/>",
                cy + 1
            ),
            PlaceKind::Landmark => write!(
                out,
                "<path class=\"mk\" d=\"M{} {}l4 4m0-4l-4 4\"/>",
                mx - 2,
                cy - 1
            ),
        };
        let _ = writeln!(
            out,
            "<text class=\"pn\" x=\"{cx}\" y=\"{}\">{}</text></g>",
            cy + 13,
            esc(&p.name)
        );
    }
}

/// A place on a picture for mail: its marker (larger in the overview)
/// and its name as a label placed around it, towns and places with
/// stacks before villages and oases, landmarks last.
fn place_for_mail(
    m: &mut Mail,
    p: &crate::geo::map::Place,
    held: Option<Side>,
    has_stack: bool,
    out: &mut String,
    key: &mut Key,
) {
    let (cx, cy) = centre(p.hex);
    let k = m.ty.mark;
    let (cx, cy) = (f64::from(cx), f64::from(cy));
    // In the overview a stack stands on its place, the place's marker a
    // frame around it; on an area, beside it.
    let framed = has_stack && m.ty.overview;
    let mx = if has_stack && !framed {
        cx - 9.0 * k
    } else {
        cx
    };
    let kind = place_class(p.kind);
    let held_class = match held {
        Some(s) => {
            key.held.insert(side_class(s), s);
            format!(" held-{}", side_class(s))
        }
        None => String::new(),
    };
    key.places.insert(p.kind);
    let _ = write!(
        out,
        "<g class=\"place {kind}{held_class}\" data-hex=\"{}\">",
        p.hex
    );
    let my = if framed { cy } else { cy + 1.0 };
    let size = if framed { 14.0 * k } else { 7.0 * k };
    let _ = match p.kind {
        PlaceKind::Town => write!(
            out,
            "<rect class=\"mk\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
            num(mx - size / 2.0),
            num(my - size / 2.0),
            num(size),
            num(size)
        ),
        PlaceKind::Village | PlaceKind::Oasis => write!(
            out,
            "<circle class=\"mk\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            num(mx),
            num(my),
            num(2.6 * k)
        ),
        PlaceKind::Landmark => write!(
            out,
            "<path class=\"mk\" d=\"M{} {}l{} {}m0-{}l-{} {}\"/>",
            num(mx - 2.0 * k),
            num(my - 2.0 * k),
            num(4.0 * k),
            num(4.0 * k),
            num(4.0 * k),
            num(4.0 * k),
            num(4.0 * k)
        ),
    };
    out.push_str("</g>\n");
    m.board.block(Rect::centred(mx, my, size, size));
    let (class, size, bold, priority) = match p.kind {
        PlaceKind::Town => ("mt", m.ty.town, true, 2),
        _ if has_stack => ("mp", m.ty.f, false, 2),
        PlaceKind::Village | PlaceKind::Oasis => ("mp", m.ty.f, false, 4),
        PlaceKind::Landmark => ("mk2", m.ty.f, false, 5),
    };
    let (w, h) = if framed {
        (size, size)
    } else if has_stack {
        (26.0 * k, 18.0 * k)
    } else {
        (8.0 * k, 8.0 * k)
    };
    m.board.add(Label {
        class,
        attrs: format!(" data-hex=\"{}\"", p.hex),
        text: p.name.clone(),
        size,
        bold,
        priority,
        at: labels::around(cx, my, w, h, size),
        fixed: false,
        short: None,
    });
}

/// Each stack on a picture for mail: a counter sized to its count, the
/// count on it; the leaders' names placed around it. In the overview a
/// bold square with the count beside it, and no names.
fn draw_mail_stacks(
    stacks: &BTreeMap<Hex, Vec<crate::state::Stack<'_>>>,
    out: &mut String,
    key: &mut Key,
    m: &mut Mail,
) {
    let ty = m.ty;
    for (hex, here) in stacks {
        let (cx, cy) = centre(*hex);
        let (cx, cy) = (f64::from(cx), f64::from(cy));
        let mut x = if ty.overview {
            cx - 5.0 * ty.mark
        } else {
            cx - 2.0
        };
        for s in here {
            let n = s.units.len();
            let class = side_class(s.side);
            key.stacks.insert(class, s.side);
            let (w, h) = if ty.overview {
                (10.0 * ty.mark, 10.0 * ty.mark)
            } else {
                let digits = n.to_string().len() as f64;
                (
                    (digits * 0.72 * ty.cnt + 4.0).max(14.0),
                    (1.25 * ty.cnt).max(10.0),
                )
            };
            let y = if ty.overview { cy - h / 2.0 } else { cy - 3.0 };
            let _ = writeln!(
                out,
                "<g class=\"stack {class}\" data-hex=\"{hex}\" data-units=\"{n}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></g>",
                num(x),
                num(y),
                num(w),
                num(h)
            );
            let (mx, my) = (x + w / 2.0, y + h / 2.0);
            m.board.block(Rect::centred(mx, my, w, h));
            let attrs = format!(" data-hex=\"{hex}\"");
            if ty.overview {
                m.board.add(Label {
                    class: if s.side == Side::Egyptian {
                        "mn egyptian"
                    } else {
                        "mn mahdist"
                    },
                    attrs,
                    text: n.to_string(),
                    size: ty.cnt,
                    bold: true,
                    priority: 0,
                    at: side_first(labels::around(mx, my, w, h, ty.cnt)),
                    fixed: false,
                    short: None,
                });
            } else {
                m.board.add(Label {
                    class: "mc",
                    attrs: attrs.clone(),
                    text: n.to_string(),
                    size: ty.cnt,
                    bold: true,
                    priority: 0,
                    at: vec![(mx, my + 0.36 * ty.cnt, Anchor::Middle)],
                    fixed: true,
                    short: None,
                });
                if !s.leaders.is_empty() {
                    let names: Vec<&str> = s.leaders.iter().map(|l| l.name.as_str()).collect();
                    let mut at = labels::around(mx, my, w, h, ty.f);
                    at.swap(0, 1);
                    m.board.add(Label {
                        class: if s.side == Side::Egyptian {
                            "md egyptian"
                        } else {
                            "md mahdist"
                        },
                        attrs,
                        text: names.join(", "),
                        size: ty.f,
                        bold: false,
                        priority: 2,
                        at,
                        fixed: false,
                        short: (names.len() > 1)
                            .then(|| format!("{} +{}", names[0], names.len() - 1)),
                    });
                    key.leaders = true;
                }
            }
            x += w + 1.0;
        }
    }
}

/// Positions beside a marker ([`labels::around`]) with the sides first:
/// right and left, then below and above.
fn side_first(mut at: Vec<(f64, f64, Anchor)>) -> Vec<(f64, f64, Anchor)> {
    for chunk in at.chunks_mut(8) {
        chunk.rotate_left(2);
    }
    at
}

/// Each stack as a counter in its side's colour with its unit count, the
/// leaders' names above it.
fn draw_stacks(
    stacks: &BTreeMap<Hex, Vec<crate::state::Stack<'_>>>,
    out: &mut String,
    key: &mut Key,
) {
    for (hex, here) in stacks {
        let (cx, cy) = centre(*hex);
        for (i, s) in here.iter().enumerate() {
            let off = i as i32 * 4;
            let (x, y) = (cx - 2 + off, cy - 3 + off);
            let n = s.units.len();
            let _ = write!(
                out,
                "<g class=\"stack {}\" data-hex=\"{hex}\" data-units=\"{n}\"><rect x=\"{x}\" y=\"{y}\" width=\"14\" height=\"10\"/><text class=\"cnt\" x=\"{}\" y=\"{}\">{n}</text>",
                side_class(s.side),
                x + 7,
                y + 8
            );
            if !s.leaders.is_empty() {
                let names: Vec<&str> = s.leaders.iter().map(|l| l.name.as_str()).collect();
                let _ = write!(
                    out,
                    "<text class=\"ldr\" x=\"{cx}\" y=\"{}\">{}</text>",
                    cy - 4,
                    esc(&names.join(", "))
                );
                key.leaders = true;
            }
            out.push_str("</g>\n");
            key.stacks.insert(side_class(s.side), s.side);
        }
    }
}

/// The routes marched in the month, through the hex centres, one per
/// order and player turn; and the retreats after battles.
fn draw_moves(o: &Overlay<'_>, b: &Bounds, out: &mut String, key: &mut Key) {
    let mut side = Side::Egyptian;
    let mut turn = 0usize;
    // (player turn, order) -> (side, hexes walked), in the order begun.
    let mut routes: Vec<((usize, usize), Side, Vec<Hex>)> = Vec::new();
    let mut retreats: Vec<(Side, Hex, Hex)> = Vec::new();
    for e in o.events {
        match e {
            Event::PhaseBegins { side: s, .. } => {
                if *s != side {
                    turn += 1;
                }
                side = *s;
            }
            Event::MarchBegins { order, from, .. } => {
                match routes.iter_mut().find(|r| r.0 == (turn, *order)) {
                    Some(r) if r.2.last() == Some(from) => {}
                    Some(r) => r.2.push(*from),
                    None => routes.push(((turn, *order), side, vec![*from])),
                }
            }
            Event::Moved { order, path, .. } => {
                if let Some(r) = routes.iter_mut().find(|r| r.0 == (turn, *order)) {
                    for h in path {
                        if r.2.last() != Some(h) {
                            r.2.push(*h);
                        }
                    }
                }
            }
            Event::Retreat {
                side: s,
                from,
                to: Some(to),
                ..
            } if from != to => retreats.push((*s, *from, *to)),
            _ => {}
        }
    }
    for ((_, order), s, hexes) in &routes {
        if hexes.len() < 2
            || o.side.is_some_and(|own| own != *s)
            || !hexes.iter().any(|h| b.near(*h))
        {
            continue;
        }
        let arrow = match s {
            Side::Egyptian => "ae",
            Side::Mahdist => "am",
        };
        let _ = writeln!(
            out,
            "<path class=\"march {}\" data-order=\"{}\" data-hexes=\"{}\" d=\"{}\" marker-end=\"url(#{arrow})\"/>",
            side_class(*s),
            order + 1,
            hex_list(hexes),
            centre_path(hexes)
        );
        key.marches.insert(side_class(*s), *s);
    }
    for (s, from, to) in &retreats {
        if !b.near(*from) && !b.near(*to) {
            continue;
        }
        let _ = writeln!(
            out,
            "<path class=\"retreat {}\" data-hexes=\"{from} {to}\" d=\"{}\" marker-end=\"url(#ar)\"/>",
            side_class(*s),
            centre_path(&[*from, *to])
        );
        key.retreat = true;
    }
}

/// Each battle as a burst on the hexside it was fought across (at the
/// defender's hex when the two do not touch), the whole story in its
/// `<title>`; and who won, written into `results`, drawn above the rest.
fn draw_battles(
    map: &Map,
    o: &Overlay<'_>,
    b: &Bounds,
    out: &mut String,
    results: &mut String,
    key: &mut Key,
    mut mail: Option<&mut Mail>,
) {
    let mut side = Side::Egyptian;
    let mut battles: Vec<(Side, Hex, Hex, String)> = Vec::new();
    let mut open: Option<usize> = None;
    for e in o.events {
        match e {
            Event::PhaseBegins { side: s, .. } => side = *s,
            Event::CombatBegins {
                attacker, defender, ..
            } => {
                battles.push((side, *attacker, *defender, String::new()));
                open = Some(battles.len() - 1);
            }
            Event::CombatResult { result, .. } => {
                if let Some(bt) = open.take().and_then(|i| battles.get_mut(i)) {
                    bt.3 = result.clone();
                }
            }
            _ => {}
        }
    }
    let mut at: BTreeMap<Hex, i32> = BTreeMap::new();
    // For mail: each defender's hex, where its first burst is and who won
    // each battle there, said once.
    let mut said: BTreeMap<Hex, ((i32, i32), Vec<String>)> = BTreeMap::new();
    for (s, attacker, defender, result) in &battles {
        if !b.contains(*defender) {
            continue;
        }
        // On the hexside between the two when they touch (stacks stand
        // at the centres), else at the defender's upper right.
        let n = at.entry(*defender).or_insert(0);
        let ((ax, ay), (dx, dy)) = (centre(*attacker), centre(*defender));
        let (x, y) = if attacker.distance(*defender) == 1 {
            ((ax + dx) / 2, (ay + dy) / 2 + *n * 7)
        } else {
            (dx + 10, dy - 8 + *n * 7)
        };
        *n += 1;
        let short = result.split([':', '(']).next().unwrap_or(result).trim();
        let short = if short.is_empty() { "fought" } else { short };
        let story = format!(
            "{s} attack from {} on {}: {}",
            map.describe(*attacker),
            map.describe(*defender),
            if result.is_empty() { "fought" } else { result }
        );
        if let Some(m) = mail.as_deref_mut() {
            battle_for_mail(m, *defender, (x, y), &story, out);
            said.entry(*defender)
                .or_insert(((x, y), Vec::new()))
                .1
                .push(short.to_string());
            key.battle = true;
            continue;
        }
        let _ = writeln!(
            out,
            "<g class=\"battle\" data-hex=\"{defender}\"><title>{}</title><use href=\"#bt\" x=\"{x}\" y=\"{y}\"/></g>",
            esc(&story),
        );
        let _ = writeln!(
            results,
            "<text class=\"res\" data-hex=\"{defender}\" x=\"{}\" y=\"{}\">{}</text>",
            x + 8,
            y + 2,
            esc(short)
        );
        key.battle = true;
    }
    if let Some(m) = mail {
        for (defender, ((x, y), results)) in said {
            battle_label(m, defender, (x, y), &results);
        }
    }
}

/// A battle's burst on a picture for mail (larger in the overview). Names
/// may go over it (they have a halo): it falls between the stacks that
/// fought, where their names are wanted; villages, landmarks and hex
/// numbers may not.
fn battle_for_mail(m: &mut Mail, defender: Hex, (x, y): (i32, i32), story: &str, out: &mut String) {
    let k = m.ty.mark;
    let _ = writeln!(
        out,
        "<g class=\"battle\" data-hex=\"{defender}\"><title>{}</title><use href=\"#bt\" transform=\"translate({x} {y}) scale({})\"/></g>",
        esc(story),
        num(k)
    );
    let (x, y) = (f64::from(x), f64::from(y));
    m.board
        .block_from(Rect::centred(x, y, 12.0 * k, 12.0 * k), 4);
}

/// Who won the battles at a hex, as one label beside the first burst:
/// "Egyptian won", "Egyptian won, 3 battles", or each result once.
fn battle_label(m: &mut Mail, defender: Hex, (x, y): (i32, i32), results: &[String]) {
    let mut distinct: Vec<&str> = Vec::new();
    for r in results {
        if !distinct.contains(&r.as_str()) {
            distinct.push(r);
        }
    }
    let text = match (distinct.as_slice(), results.len()) {
        ([one], 1) => (*one).to_string(),
        ([one], n) => format!("{one}, {n} battles"),
        (all, _) => all.join(", "),
    };
    let (x, y) = (f64::from(x), f64::from(y));
    let (f, k) = (m.ty.f, m.ty.mark);
    m.board.add(Label {
        class: "mr",
        attrs: format!(" data-hex=\"{defender}\""),
        text,
        size: f,
        bold: true,
        priority: 1,
        at: labels::around(x, y, 14.0 * k, 14.0 * k, f),
        fixed: false,
        short: None,
    });
}

/// What the map showed, for its key.
#[derive(Default)]
struct Key {
    terrain: BTreeMap<&'static str, Terrain>,
    rivers: BTreeMap<&'static str, RiverClass>,
    cataract: bool,
    rail_built: bool,
    rail_planned: bool,
    railhead: bool,
    places: BTreeSet<PlaceKind>,
    held: BTreeMap<&'static str, Side>,
    stacks: BTreeMap<&'static str, Side>,
    leaders: bool,
    siege: bool,
    marches: BTreeMap<&'static str, Side>,
    retreat: bool,
    battle: bool,
}

impl Key {
    /// The entries: a sample drawn around 0 0, and what it means.
    fn entries(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = Vec::new();
        let mut add = |shown: bool, sample: &str, text: &str| {
            if shown {
                v.push((sample.to_string(), text.to_string()));
            }
        };
        for t in [
            Terrain::Clear,
            Terrain::Hills,
            Terrain::Mountains,
            Terrain::Sea,
        ] {
            add(
                self.terrain.values().any(|k| *k == t),
                &format!("<use href=\"#{}\" transform=\"scale(.4)\"/>", terrain_id(t)),
                t.name(),
            );
        }
        for (c, text) in [
            (RiverClass::Navigable, "navigable river"),
            (RiverClass::Seasonal, "seasonal river (Nov-Feb)"),
            (RiverClass::Unnavigable, "unnavigable river"),
        ] {
            add(
                self.rivers.values().any(|k| *k == c),
                &format!("<path class=\"river {}\" d=\"M-7 0h14\"/>", river_class(c)),
                text,
            );
        }
        add(
            self.cataract,
            "<use href=\"#ct\" class=\"cataract\"/>",
            "cataract",
        );
        add(
            self.rail_built,
            "<path class=\"rail built\" d=\"M-7 0h14\"/>",
            "railway",
        );
        add(
            self.rail_planned,
            "<path class=\"rail planned\" d=\"M-7 0h14\"/>",
            "railway that may be built",
        );
        add(
            self.railhead,
            "<rect class=\"railhead\" x=\"-2.5\" y=\"-2.5\" width=\"5\" height=\"5\"/>",
            "railhead",
        );
        for k in &self.places {
            let sample = match k {
                PlaceKind::Town => {
                    "<rect class=\"mk\" x=\"-3.5\" y=\"-3.5\" width=\"7\" height=\"7\"/>"
                }
                PlaceKind::Village | PlaceKind::Oasis => "<circle class=\"mk\" r=\"2.6\"/>",
                PlaceKind::Landmark => "<path class=\"mk\" d=\"M-2-2l4 4m0-4l-4 4\"/>",
            };
            let class = place_class(*k);
            add(true, &format!("<g class=\"{class}\">{sample}</g>"), class);
        }
        for (class, side) in &self.held {
            add(
                true,
                &format!(
                    "<g class=\"held-{class}\"><rect class=\"mk\" x=\"-3.5\" y=\"-3.5\" width=\"7\" height=\"7\"/></g>"
                ),
                &format!("town held by the {side}s"),
            );
        }
        for (class, side) in &self.stacks {
            add(
                true,
                &format!(
                    "<g class=\"{class}\"><rect x=\"-7\" y=\"-5\" width=\"14\" height=\"10\" stroke=\"#111\" stroke-width=\".6\"/><text class=\"cnt\" y=\"3\">3</text></g>"
                ),
                &format!("{side} stack of 3 units"),
            );
        }
        add(
            self.leaders,
            "<text class=\"ldr\" y=\"2\" fill=\"#222\">Name</text>",
            "its leaders",
        );
        add(
            self.siege,
            "<use href=\"#o\" class=\"siege\" transform=\"scale(.4)\"/>",
            "under siege",
        );
        for (class, side) in &self.marches {
            let arrow = if *side == Side::Egyptian { "ae" } else { "am" };
            add(
                true,
                &format!(
                    "<path class=\"march {class}\" d=\"M-7 0h14\" marker-end=\"url(#{arrow})\"/>"
                ),
                &format!("{side} march"),
            );
        }
        add(
            self.retreat,
            "<path class=\"retreat\" d=\"M-7 0h14\" marker-end=\"url(#ar)\"/>",
            "retreat",
        );
        add(
            self.battle,
            "<g class=\"battle\"><use href=\"#bt\"/></g>",
            "battle, and who won",
        );
        v
    }

    /// The key with its top left at `x`, `y`: its SVG and height.
    /// `s` times the archive's size; for `mail`, the leaders' sample as
    /// large as the key's words.
    fn draw(&self, x: i32, y: i32, s: f64, mail: bool) -> (String, i32) {
        let sc = |v: i32| (f64::from(v) * s).round() as i32;
        let scale = if s == 1.0 {
            String::new()
        } else {
            format!(" scale({})", num(s))
        };
        let mut out = String::from("<g class=\"key\">\n");
        let mut row = y + sc(8);
        let _ = writeln!(out, "<text class=\"kh\" x=\"{x}\" y=\"{row}\">Key</text>");
        row += sc(6);
        for (sample, text) in self.entries() {
            row += sc(12);
            let sample = if mail {
                sample.replace("class=\"ldr\"", "class=\"ldr\" style=\"font-size:7px\"")
            } else {
                sample
            };
            let _ = writeln!(
                out,
                "<g transform=\"translate({} {row}){scale}\">{sample}</g><text class=\"kt\" x=\"{}\" y=\"{}\">{}</text>",
                x + sc(9),
                x + sc(22),
                row + sc(2),
                esc(&text)
            );
        }
        out.push_str("</g>\n");
        (out, row + sc(10) - y)
    }
}

/// The families the map's text asks for (`text{font-family:...}` in
/// [`map_svg`]'s style), in its order.
const MAP_FAMILIES: [&str; 3] = ["DejaVu Sans", "Liberation Sans", "Arial"];

/// The system's fonts, read once a process; the `sans-serif` family set
/// to a sans face found there.
///
/// Only the faces the map can use are kept (the families it names and the
/// one `sans-serif` stands for), and their files are read into memory
/// here, once: a face found by `load_system_fonts` alone is a file name,
/// which resvg opens and reads again for every piece of text it draws.
fn fonts() -> Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut system = fontdb::Database::new();
            system.load_system_fonts();
            Arc::new(in_memory(&system))
        })
        .clone()
}

/// The sans-serif family a font database offers: a "Sans" family that is
/// not monospaced, else the first family of any face.
fn sans_family(db: &fontdb::Database) -> Option<String> {
    let family = |f: &fontdb::FaceInfo| f.families.first().map(|(n, _)| n.clone());
    db.faces()
        .filter_map(family)
        .find(|n| n.contains("Sans") && !n.contains("Mono"))
        .or_else(|| db.faces().find_map(family))
}

/// A database holding, in memory, the faces of `system` the map can use,
/// with `sans-serif` set. A file that cannot be read is left out (its
/// text is drawn with another face, or not at all).
fn in_memory(system: &fontdb::Database) -> fontdb::Database {
    let sans = sans_family(system);
    let wanted = |f: &fontdb::FaceInfo| {
        f.families
            .iter()
            .any(|(n, _)| MAP_FAMILIES.contains(&n.as_str()) || Some(n) == sans.as_ref())
    };
    let files: std::collections::BTreeSet<std::path::PathBuf> = system
        .faces()
        .filter(|f| wanted(f))
        .filter_map(|f| match &f.source {
            fontdb::Source::File(path) => Some(path.clone()),
            _ => None,
        })
        .collect();
    let mut db = fontdb::Database::new();
    for path in files {
        if let Ok(bytes) = std::fs::read(&path) {
            db.load_font_data(without_unused_kern(bytes));
        }
    }
    if let Some(name) = sans {
        db.set_sans_serif_family(name);
    }
    db
}

/// The font file's bytes with its `kern` table hidden when its `GPOS`
/// table kerns (has a `kern` feature); else as they are.
///
/// The shaper (harfrust, under resvg) kerns with `GPOS` when the font has
/// it and reads the older `kern` table only when it does not, as
/// HarfBuzz does; but it builds a cache of the `kern` table for every
/// text it shapes, which was a sixth of a picture's time (DejaVu Sans has
/// both tables). The table's tag is changed in the font's table
/// directory to one no program reads (`ker `, which keeps the directory
/// in its order), so the text is drawn exactly as before. A collection
/// of fonts (`ttcf`) or a file not read as expected is left as it is.
fn without_unused_kern(mut font: Vec<u8>) -> Vec<u8> {
    if let Some(at) = unused_kern_record(&font) {
        font[at..at + 4].copy_from_slice(HIDDEN_KERN);
    }
    font
}

/// The tag `kern` is changed to: before `kern` and after every other
/// table tag a font has (tags are sorted in the table directory).
const HIDDEN_KERN: &[u8; 4] = b"ker ";

/// Where the tag of the `kern` table's record is in `font`, if the font
/// also kerns with `GPOS` and the tag can be changed to [`HIDDEN_KERN`]
/// keeping the directory in order.
fn unused_kern_record(font: &[u8]) -> Option<usize> {
    let u16_at = |at: usize| {
        font.get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        font.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    if font.get(..4) == Some(b"ttcf") {
        return None;
    }
    let records = usize::from(u16_at(4)?);
    let tag_at = |i: usize| font.get(12 + 16 * i..12 + 16 * i + 4);
    let find = |tag: &[u8]| (0..records).find(|&i| tag_at(i) == Some(tag));
    let kern = find(b"kern")?;
    let gpos = u32_at(12 + 16 * find(b"GPOS")? + 8)?;
    let features = gpos + usize::from(u16_at(gpos + 6)?);
    let gpos_kerns = (0..usize::from(u16_at(features)?))
        .any(|i| font.get(features + 2 + 6 * i..features + 6 + 6 * i) == Some(b"kern"));
    let in_order = kern == 0 || tag_at(kern - 1).is_some_and(|t| t < HIDDEN_KERN.as_slice());
    (gpos_kerns && in_order).then_some(12 + 16 * kern)
}

/// The largest PNG drawn, in pixels a side.
const MAX_PX: u32 = 8192;

/// The map drawn as a PNG `width_px` pixels wide (its height in
/// proportion), with resvg, written with a palette of its 256 most used
/// colours ([`super::indexed`]).
///
/// Text is drawn with the system's fonts, read the first time this is
/// called in a process (the one thing in `render` that reads files). The
/// map's text asks for DejaVu Sans, Liberation Sans or Arial, then any
/// sans-serif face found. On a machine without any font the PNG is still
/// drawn, without its text (names, labels, counts and key words): resvg
/// leaves out text it has no face for.
pub fn map_png(svg: &str, width_px: u32) -> Result<Vec<u8>, String> {
    map_png_with_fonts(svg, width_px, fonts())
}

/// As [`map_png`], with the fonts given (an empty database draws no text)
/// instead of the system's.
pub fn map_png_with_fonts(
    svg: &str,
    width_px: u32,
    fonts: Arc<fontdb::Database>,
) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    if !(1..=MAX_PX).contains(&width_px) {
        return Err(format!(
            "a map is drawn from 1 to {MAX_PX} pixels wide, not {width_px}"
        ));
    }
    let opt = usvg::Options {
        fontdb: fonts,
        ..usvg::Options::default()
    };
    let tree =
        usvg::Tree::from_str(svg, &opt).map_err(|e| format!("the map's SVG is not valid: {e}"))?;
    let size = tree.size();
    let scale = width_px as f32 / size.width();
    let height = (size.height() * scale).ceil();
    if !(1.0..=MAX_PX as f32).contains(&height) {
        return Err(format!(
            "the map would be {height} pixels high; draw it narrower"
        ));
    }
    let mut pixmap = tiny_skia::Pixmap::new(width_px, height as u32)
        .ok_or_else(|| "no memory for the picture".to_string())?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    super::indexed::encode(&super::indexed::Rgba {
        width: pixmap.width(),
        height: pixmap.height(),
        data: pixmap.data(),
        alpha: super::indexed::Alpha::Premultiplied,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A font whose `GPOS` kerns: its `kern` table is hidden, in order,
    /// and nothing else changes; a font without `GPOS` kerning keeps it.
    #[test]
    fn a_kern_table_is_hidden_only_when_gpos_kerns() {
        // A table directory of three tables: GPOS (a feature list of one
        // feature), hmtx and kern.
        let font = |feature: &[u8; 4]| -> Vec<u8> {
            let mut f = vec![0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0];
            for (tag, offset) in [(b"GPOS", 60u32), (b"hmtx", 0), (b"kern", 0)] {
                f.extend_from_slice(tag);
                f.extend_from_slice(&[0; 4]);
                f.extend_from_slice(&offset.to_be_bytes());
                f.extend_from_slice(&[0; 4]);
            }
            // GPOS at 60: version 1.0, script list 0, feature list at 10.
            f.extend_from_slice(&[0, 1, 0, 0, 0, 0, 0, 10, 0, 0]);
            f.extend_from_slice(&[0, 1]);
            f.extend_from_slice(feature);
            f.extend_from_slice(&[0, 0]);
            f
        };
        let kerning = font(b"kern");
        let hidden = without_unused_kern(kerning.clone());
        assert_eq!(&hidden[44..48], b"ker ");
        let changed: Vec<usize> = (0..kerning.len())
            .filter(|&i| kerning[i] != hidden[i])
            .collect();
        assert_eq!(changed, vec![47]);
        let marks_only = font(b"mark");
        assert_eq!(without_unused_kern(marks_only.clone()), marks_only);
        // Too short to read: as it is.
        assert_eq!(without_unused_kern(kerning[..20].to_vec()), kerning[..20]);
    }

    /// resvg reads a file-backed face's file again for every text it
    /// draws; the faces kept are in memory, read once.
    #[test]
    fn the_map_fonts_are_held_in_memory_not_read_from_files_per_text() {
        let mut system = fontdb::Database::new();
        system.load_system_fonts();
        let db = in_memory(&system);
        assert!(
            db.faces()
                .all(|f| matches!(f.source, fontdb::Source::Binary(_)))
        );
        // Every face of a family the map asks for is kept.
        let asked = |db: &fontdb::Database| {
            db.faces()
                .filter(|f| {
                    f.families
                        .iter()
                        .any(|(n, _)| MAP_FAMILIES.contains(&n.as_str()))
                })
                .count()
        };
        assert_eq!(asked(&db), asked(&system));
        assert_eq!(
            db.family_name(&fontdb::Family::SansSerif),
            sans_family(&system).as_deref().unwrap_or("Arial")
        );
    }
}
