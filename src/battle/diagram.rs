//! The battlefield diagram: the table of a brief ([`super::layout`])
//! drawn as a hand-built SVG, as the campaign map is
//! (`render::svg`): the table with a grid in the rule set's unit, each
//! side's deployment zone and start line, the scenery with its names and
//! sizes, rivers with their banks and fords, which way is north, a scale,
//! and what the near and far edges are. [`png`] renders it with resvg and
//! the map's fonts, for the brief mail. No I/O but the fonts' one read.

use std::fmt::Write as _;

use super::layout::{Layout, Look, Placed, Point, whole};
use super::tabletop::Measure;
use crate::scenario::Side;

/// The table's width in the drawing, in pixels of the SVG.
const TABLE_PX: f64 = 860.0;
/// Room round the table for the edges' names, the key and the scale.
const MARGIN: f64 = 60.0;

/// Colours of each side's zone and start line.
fn side_colour(s: Side) -> &'static str {
    s.pick("#b03a2e", "#1f6f3f")
}

/// The diagram of `layout`, titled `title` (the battle, its place and
/// month).
pub fn svg(layout: &Layout, title: &str) -> String {
    let k = TABLE_PX / layout.width;
    let (w, h) = (TABLE_PX, layout.depth * k);
    let total = (w + 2.0 * MARGIN, h + 2.0 * MARGIN + 40.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">",
        whole(total.0),
        whole(total.1),
        whole(total.0),
        whole(total.1)
    );
    out.push_str(
        "<style>text{font-family:'DejaVu Sans','Liberation Sans',Arial,sans-serif;fill:#222}\
.small{font-size:11px}.label{font-size:13px;font-weight:bold}.title{font-size:16px;font-weight:bold}</style>\n",
    );
    let _ = writeln!(
        out,
        "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
        whole(total.0),
        whole(total.1)
    );
    let _ = writeln!(
        out,
        "<text class=\"title\" x=\"{MARGIN}\" y=\"26\">{}</text>",
        escape(title)
    );
    let d = Draw {
        l: layout,
        k,
        top: MARGIN + 20.0,
    };
    d.table(&mut out);
    let mut labels = String::new();
    d.zones(&mut out, &mut labels);
    // Rivers run off the table's edges: drawn inside it only.
    let (x0, y0) = d.at((0.0, layout.depth));
    let _ = writeln!(
        out,
        "<clipPath id=\"table-clip\"><rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{w:.1}\" height=\"{h:.1}\"/></clipPath>\n<g clip-path=\"url(#table-clip)\">"
    );
    for r in &layout.rivers {
        d.river(&mut out, &r.points, &r.fords);
    }
    out.push_str("</g>\n");
    for p in &layout.pieces {
        d.piece(&mut out, p);
    }
    for r in &layout.rivers {
        // The name a quarter of the way along its first stretch, clear of
        // the fords (at a third and two thirds of the whole).
        if let [(x0, y0), (x1, y1), ..] = r.points[..] {
            let (x, y) = (x0 + (x1 - x0) / 4.0, y0 + (y1 - y0) / 4.0);
            let (px, py) = d.at((x, y));
            let _ = writeln!(
                out,
                "<text class=\"label\" x=\"{}\" y=\"{}\" fill=\"#ffffff\" text-anchor=\"middle\" data-river=\"{}\">{}</text>",
                whole(px.clamp(MARGIN + 30.0, MARGIN + w - 30.0)),
                whole(py + 5.0),
                escape(&r.name),
                escape(&r.name)
            );
        }
    }
    out.push_str(&labels);
    d.edges(&mut out);
    d.compass(&mut out);
    d.scale(&mut out);
    out.push_str("</svg>\n");
    out
}

/// The diagram as a PNG `width_px` pixels wide.
pub fn png(svg: &str, width_px: u32) -> Result<Vec<u8>, String> {
    crate::render::svg::map_png(svg, width_px)
}

struct Draw<'a> {
    l: &'a Layout,
    /// Pixels a unit of the table.
    k: f64,
    /// The table's far edge in the drawing.
    top: f64,
}

impl Draw<'_> {
    /// A point of the table in the drawing (the far edge at the top).
    fn at(&self, (x, y): Point) -> (f64, f64) {
        (MARGIN + x * self.k, self.top + (self.l.depth - y) * self.k)
    }

    /// The grid step: a foot, or 10 cm.
    fn grid(&self) -> f64 {
        match self.l.measure {
            Measure::Inches => 12.0,
            Measure::Centimetres => 10.0,
        }
    }

    fn table(&self, out: &mut String) {
        let (x0, y0) = self.at((0.0, self.l.depth));
        let _ = writeln!(
            out,
            "<rect class=\"table\" x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#eadbb4\" stroke=\"#6b5a3a\" stroke-width=\"2\"/>",
            self.l.width * self.k,
            self.l.depth * self.k
        );
        let g = self.grid();
        let steps = |end: f64| {
            std::iter::successors(Some(g), move |v| Some(v + g))
                .take_while(move |v| *v < end - 0.01)
        };
        for x in steps(self.l.width) {
            let (a, b) = (self.at((x, 0.0)), self.at((x, self.l.depth)));
            grid_line(out, (a, b), (a.0, a.1 + 14.0), "middle", x);
        }
        for y in steps(self.l.depth) {
            let (a, b) = (self.at((0.0, y)), self.at((self.l.width, y)));
            grid_line(out, (a, b), (a.0 - 4.0, a.1 + 4.0), "end", y);
        }
    }

    /// Each side's zone and start line into `out`; the lines' labels into
    /// `labels`, to be drawn over the scenery.
    fn zones(&self, out: &mut String, labels: &mut String) {
        let l = self.l;
        for (side, line, back, behind) in [
            (
                l.attacker,
                l.attacker_line,
                l.attacker_line - l.zone_depth,
                l.attacker_behind(),
            ),
            (
                l.defender(),
                l.defender_line,
                l.defender_line + l.zone_depth,
                l.defender_behind(),
            ),
        ] {
            let (lo, hi) = (line.min(back), line.max(back));
            let (x0, y0) = self.at((0.0, hi));
            let _ = writeln!(
                out,
                "<rect class=\"zone\" data-side=\"{side}\" x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"0.16\"/>",
                l.width * self.k,
                (hi - lo) * self.k,
                side_colour(side)
            );
            let (a, b) = (self.at((0.0, line)), self.at((l.width, line)));
            let _ = writeln!(
                out,
                "<line class=\"start-line\" data-side=\"{side}\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"10 5\"/>",
                a.0,
                a.1,
                b.0,
                b.1,
                side_colour(side)
            );
            // In front of each line, between the two, where no scenery of a
            // side's own ground hides it; drawn after the scenery, with a
            // pale halo for where a piece reaches into the open.
            let label_y = if line == l.attacker_line {
                a.1 - 6.0
            } else {
                a.1 + 17.0
            };
            let _ = writeln!(
                labels,
                "<text class=\"label\" x=\"{:.1}\" y=\"{label_y:.1}\" fill=\"{}\" stroke=\"#f4ead0\" stroke-width=\"3\" paint-order=\"stroke\">{side} start line ({} from its edge)</text>",
                a.0 + 6.0,
                side_colour(side),
                l.len(behind)
            );
        }
    }

    fn river(&self, out: &mut String, pts: &[Point], fords: &[Point]) {
        // Drawn with its bends rounded: a river along hexsides zigzags.
        let path: Vec<String> = smooth(&smooth(pts))
            .iter()
            .map(|p| {
                let (x, y) = self.at(*p);
                format!("{x:.1},{y:.1}")
            })
            .collect();
        let rule_w = |v: f64| (v * self.k).max(2.0);
        // Banks as a wide pale stroke under the water.
        let bank = rule_w(self.bank_width());
        let water = rule_w(self.water_width());
        let _ = writeln!(
            out,
            "<polyline class=\"bank\" points=\"{}\" fill=\"none\" stroke=\"#9db36a\" stroke-width=\"{:.1}\" stroke-linejoin=\"round\"/>",
            path.join(" "),
            bank
        );
        let _ = writeln!(
            out,
            "<polyline class=\"river\" points=\"{}\" fill=\"none\" stroke=\"#4a7fc1\" stroke-width=\"{water:.1}\" stroke-linejoin=\"round\"/>",
            path.join(" ")
        );
        for f in fords {
            let (x, y) = self.at(*f);
            let _ = writeln!(
                out,
                "<circle class=\"ford\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{:.1}\" fill=\"#d9c08a\" stroke=\"#6b5a3a\" stroke-width=\"1.5\"/>",
                water * 0.55
            );
            let _ = writeln!(
                out,
                "<text class=\"small\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">ford ({}, {})</text>",
                y - water - 4.0,
                whole(f.0),
                whole(f.1)
            );
        }
    }

    fn water_width(&self) -> f64 {
        self.l.river_width
    }

    /// The water and a bank strip on each side.
    fn bank_width(&self) -> f64 {
        self.l.river_width + 2.0 * self.l.bank
    }

    fn piece(&self, out: &mut String, p: &Placed) {
        if p.size.0 <= 0.0 || p.size.1 <= 0.0 {
            return;
        }
        let (cx, cy) = self.at(p.at);
        let (rw, rh) = (p.size.0 * self.k / 2.0, p.size.1 * self.k / 2.0);
        let shape = match p.look {
            Look::Town => format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#c9a27a\" stroke=\"#5b3a1e\" stroke-width=\"3\"/>{}",
                cx - rw,
                cy - rh,
                2.0 * rw,
                2.0 * rh,
                houses(cx, cy, rw, rh)
            ),
            Look::Village => format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"{:.1}\" fill=\"#d8bd8f\" stroke=\"#6b4a2b\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>{}",
                cx - rw,
                cy - rh,
                2.0 * rw,
                2.0 * rh,
                rw.min(rh) / 2.0,
                huts(cx, cy, rw, rh)
            ),
            Look::Wells => format!(
                "<ellipse cx=\"{cx:.1}\" cy=\"{cy:.1}\" rx=\"{rw:.1}\" ry=\"{rh:.1}\" fill=\"#8fb35a\" stroke=\"#4c6b2a\" stroke-width=\"1.5\"/><circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\" fill=\"#4a7fc1\"/>"
            ),
            Look::Scrub => format!(
                "<ellipse cx=\"{cx:.1}\" cy=\"{cy:.1}\" rx=\"{rw:.1}\" ry=\"{rh:.1}\" fill=\"#b5c27a\" stroke=\"#6b7d3a\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>"
            ),
            Look::Hill => format!(
                "<ellipse cx=\"{cx:.1}\" cy=\"{cy:.1}\" rx=\"{rw:.1}\" ry=\"{rh:.1}\" fill=\"#c8a96e\" stroke=\"#7a5b2e\" stroke-width=\"1.5\"/><ellipse cx=\"{cx:.1}\" cy=\"{cy:.1}\" rx=\"{:.1}\" ry=\"{:.1}\" fill=\"#b8955a\" stroke=\"#7a5b2e\" stroke-width=\"1\"/>",
                rw * 0.55,
                rh * 0.55
            ),
            Look::Rocks => format!(
                "<polygon points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#a39a8c\" stroke=\"#5a5148\" stroke-width=\"1.5\"/>",
                cx - rw,
                cy + rh * 0.3,
                cx - rw * 0.4,
                cy - rh,
                cx + rw * 0.5,
                cy - rh * 0.7,
                cx + rw,
                cy + rh * 0.4,
                cx,
                cy + rh
            ),
            Look::Depression => format!(
                "<ellipse cx=\"{cx:.1}\" cy=\"{cy:.1}\" rx=\"{rw:.1}\" ry=\"{rh:.1}\" fill=\"#dcc79a\" stroke=\"#8a6a3a\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>"
            ),
        };
        let _ = writeln!(
            out,
            "<g class=\"piece\" data-half=\"{}\">{shape}</g>",
            p.half
        );
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            // Above the piece, or inside its top if it stands at the far edge.
            if cy - rh - 4.0 < self.top + 16.0 {
                cy - rh + 16.0
            } else {
                cy - rh - 4.0
            },
            escape(&p.name)
        );
        let _ = writeln!(
            out,
            "<text class=\"small\" x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{} x {} {}</text>",
            cy + rh + 13.0,
            whole(p.size.0),
            whole(p.size.1),
            self.l.measure.short()
        );
    }

    fn edges(&self, out: &mut String) {
        let l = self.l;
        let (near_x, near_y) = self.at((l.width / 2.0, 0.0));
        let (_, far_y) = self.at((l.width / 2.0, l.depth));
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{near_x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{}\">{} edge: attacks from the {}</text>",
            near_y + 32.0,
            side_colour(l.attacker),
            l.attacker,
            l.attack_from
        );
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{near_x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{}\">{} edge: faces {}</text>",
            far_y - 8.0,
            side_colour(l.defender()),
            l.defender(),
            l.attack_from.opposite()
        );
    }

    /// An arrow to the map's north: the table's near edge faces the
    /// attacker's hex.
    fn compass(&self, out: &mut String) {
        let k = (6 - self.l.attack_from.index()) % 6;
        let a = (60.0 * k as f64).to_radians();
        // Down the drawing is toward the attacker; clockwise as on the map.
        let (dx, dy) = (-a.sin(), a.cos());
        let (cx, cy) = (
            MARGIN + self.l.width * self.k - 30.0,
            self.top + self.l.depth * self.k + 40.0,
        );
        let r = 16.0;
        // The arrow's head: a triangle at its tip.
        let (tx, ty) = (cx + dx * r, cy + dy * r);
        let (px, py) = (-dy, dx);
        let _ = writeln!(
            out,
            "<g class=\"compass\"><circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r}\" fill=\"none\" stroke=\"#555\"/><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{tx:.1}\" y2=\"{ty:.1}\" stroke=\"#222\" stroke-width=\"2.5\"/><polygon points=\"{tx:.1},{ty:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"#222\"/><text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">N</text></g>",
            cx - dx * r,
            cy - dy * r,
            tx - dx * 9.0 + px * 5.0,
            ty - dy * 9.0 + py * 5.0,
            tx - dx * 9.0 - px * 5.0,
            ty - dy * 9.0 - py * 5.0,
            cx + dx * (r + 11.0),
            cy + dy * (r + 11.0) + 5.0
        );
    }

    fn scale(&self, out: &mut String) {
        let (len, text) = match self.l.measure {
            Measure::Inches => (12.0, "1 ft".to_string()),
            Measure::Centimetres => (30.0, "30 cm".to_string()),
        };
        let x0 = MARGIN;
        let y = self.top + self.l.depth * self.k + 44.0;
        let _ = writeln!(
            out,
            "<g class=\"scale\"><line x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#222\" stroke-width=\"3\"/><text class=\"small\" x=\"{:.1}\" y=\"{:.1}\">{text}; table {}; grid every {}</text></g>",
            x0 + len * self.k,
            x0 + len * self.k + 8.0,
            y + 4.0,
            self.l.size_text(),
            self.l.len(self.grid())
        );
    }
}

/// A grid line from one end to the other, and the distance `d` it stands
/// at written at `label`, anchored `anchor`.
fn grid_line(
    out: &mut String,
    (a, b): ((f64, f64), (f64, f64)),
    label: (f64, f64),
    anchor: &str,
    d: f64,
) {
    let _ = writeln!(
        out,
        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#cdbb8e\" stroke-width=\"0.7\"/>",
        a.0, a.1, b.0, b.1
    );
    let _ = writeln!(
        out,
        "<text class=\"small\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{}</text>",
        label.0,
        label.1,
        whole(d)
    );
}

/// Chaikin's corner cutting: each bend replaced by two points a quarter
/// of the way along its two stretches; the ends kept.
fn smooth(pts: &[Point]) -> Vec<Point> {
    if pts.len() < 3 {
        return pts.to_vec();
    }
    let mut out = vec![pts[0]];
    for (i, w) in pts.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        let q = (0.75 * a.0 + 0.25 * b.0, 0.75 * a.1 + 0.25 * b.1);
        let r = (0.25 * a.0 + 0.75 * b.0, 0.25 * a.1 + 0.75 * b.1);
        if i > 0 {
            out.push(q);
        }
        if i + 2 < pts.len() {
            out.push(r);
        }
    }
    out.push(pts[pts.len() - 1]);
    out
}

/// A few houses inside a town's wall.
fn houses(cx: f64, cy: f64, rw: f64, rh: f64) -> String {
    let mut s = String::new();
    let (bw, bh) = (rw / 3.0, rh / 3.0);
    for (fx, fy) in [(-0.6, -0.5), (0.1, -0.55), (-0.5, 0.15), (0.2, 0.2)] {
        let _ = write!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"{bh:.1}\" fill=\"#e8d2b0\" stroke=\"#5b3a1e\"/>",
            cx + fx * rw,
            cy + fy * rh
        );
    }
    s
}

/// Round huts inside a village's zariba.
fn huts(cx: f64, cy: f64, rw: f64, rh: f64) -> String {
    let mut s = String::new();
    let r = rw.min(rh) / 4.0;
    for (fx, fy) in [(-0.45, -0.3), (0.3, -0.35), (-0.1, 0.35), (0.5, 0.3)] {
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r:.1}\" fill=\"#b88a55\" stroke=\"#6b4a2b\"/>",
            cx + fx * rw,
            cy + fy * rh
        );
    }
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
