//! The table a battle is fought on (docs/tabletop.md, "The table"): its
//! size, each side's deployment zone and the distance between them, and
//! the scenery the two hexes' terrain and features put on it, in the rule
//! set's own unit. The brief prints it ([`super::brief`]) and the diagram
//! draws it ([`super::diagram`]).
//!
//! None of the three rule sets lays out a table for a campaign: Volley
//! Fire leaves it to the umpire ("Gamemaster builds the terrain, assigns
//! players and forces to be used, and defines the scenario in detail to
//! all players/commanders"), the PITS 1885 sheet lays scenery as play
//! goes ("Dervish lays 3 scenery pieces", event chart "New scenery
//! item"), and ETYFW says nothing of a table. The sizes are data
//! (`scenarios/tabletop.ron`, `table`); the geometry is here.
//!
//! The table is seen from the attacking side's edge: `x` from its left
//! edge, `y` from the attacker's edge toward the defender's. The two hexes
//! are laid over it as two flat hexes, the defender's in the far half and
//! the attacker's in the near half, sharing the middle of the table's
//! centre line; a river on a hexside of either runs where that side
//! falls, and goes on to the nearer side edge where the hexes end.

use super::tabletop::{Measure, System, TableRule};
use crate::engine::elsewhere::Combat;
use crate::geo::{Direction, Hex, PlaceKind, RiverClass, Terrain};
use crate::scenario::{Scenario, Side};

/// A point on the table: across from the left edge, along from the
/// attacker's edge.
pub type Point = (f64, f64);

/// What a piece of scenery is, for the diagram's drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    Scrub,
    Hill,
    Rocks,
    Depression,
    Town,
    Village,
    Wells,
}

/// A piece of scenery where it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub name: String,
    pub look: Look,
    /// The side whose half (and hex) it comes from.
    pub half: Side,
    /// Its centre and size (across, along).
    pub at: Point,
    pub size: Point,
    /// What it is in the rule set's own terms.
    pub rules: String,
}

/// A river across the table.
#[derive(Clone, Debug, PartialEq)]
pub struct RiverLine {
    pub name: String,
    /// "navigable", "unnavigable", "seasonal ...".
    pub class: String,
    pub points: Vec<Point>,
    pub fords: Vec<Point>,
}

/// Where the start lines go when the rule set rolls their distance (the
/// ETYFW resolver's settings).
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// From each start line back to its edge.
    pub behind: f64,
    /// The largest distance the roll can give (the table is laid for it).
    pub widest: f64,
}

/// The laid-out table.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub measure: Measure,
    pub width: f64,
    pub depth: f64,
    /// The start lines, from the attacker's edge.
    pub attacker_line: f64,
    pub defender_line: f64,
    /// Between the start lines (the largest, when rolled).
    pub gap: f64,
    pub zone_depth: f64,
    /// A river's width and the strip along each bank.
    pub river_width: f64,
    pub bank: f64,
    pub attacker: Side,
    /// The map direction from the defender's hex to the attacker's: the
    /// attacker's edge faces it.
    pub attack_from: Direction,
    pub pieces: Vec<Placed>,
    pub rivers: Vec<RiverLine>,
}

impl Layout {
    /// The defending side.
    pub fn defender(&self) -> Side {
        self.attacker.enemy()
    }

    /// From the attacker's start line back to its edge.
    pub fn attacker_behind(&self) -> f64 {
        self.attacker_line
    }

    /// From the defender's start line back to its edge.
    pub fn defender_behind(&self) -> f64 {
        self.depth - self.defender_line
    }

    /// A length in the rule set's unit ("48 in", "85 cm").
    pub fn len(&self, v: f64) -> String {
        format!("{} {}", whole(v), self.measure.short())
    }

    /// The table's size in words: "96 in across by 72 in deep (8 ft by
    /// 6 ft)".
    pub fn size_text(&self) -> String {
        let mut t = format!(
            "{} across by {} deep",
            self.len(self.width),
            self.len(self.depth)
        );
        if self.measure == Measure::Inches {
            t.push_str(&format!(" ({} by {})", feet(self.width), feet(self.depth)));
        }
        t
    }
}

/// A number rounded to a whole one, as printed.
pub fn whole(v: f64) -> i64 {
    v.round() as i64
}

/// Inches as feet ("6 ft", "7 ft 6 in").
fn feet(v: f64) -> String {
    let i = whole(v);
    match (i / 12, i % 12) {
        (f, 0) => format!("{f} ft"),
        (f, r) => format!("{f} ft {r} in"),
    }
}

/// Why a table cannot be laid out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the attacker's hex {from} is not next to the defender's hex {to}")]
pub struct NotAdjacent {
    pub from: Hex,
    pub to: Hex,
}

/// Lay out the table of `combat` by the rule set `sys`; `front` is the
/// larger side's elements (figures, bases, stands), whose line sets the
/// width; `opening` the rolled start lines of a rule set that rolls them.
pub fn lay_out(
    scn: &Scenario,
    combat: &Combat,
    sys: &System,
    front: u32,
    opening: Option<&Opening>,
) -> Result<Layout, NotAdjacent> {
    let rule = &sys.table;
    let attack_from = combat
        .defender_hex
        .direction_to(combat.attacker_hex)
        .ok_or(NotAdjacent {
            from: combat.attacker_hex,
            to: combat.defender_hex,
        })?;
    let behind = opening.map_or(f64::from(rule.behind.unwrap_or(12)), |o| o.behind);
    let gap = opening.map_or(f64::from(rule.gap.unwrap_or(24)), |o| o.widest);
    let width = table_width(rule, front, behind);
    let mut layout = Layout {
        measure: rule.measure,
        width,
        depth: 2.0 * behind + gap,
        attacker_line: behind,
        defender_line: behind + gap,
        gap,
        zone_depth: f64::from(rule.zone_depth),
        river_width: f64::from(rule.river_width),
        bank: f64::from(rule.bank),
        attacker: combat.attacker,
        attack_from,
        pieces: Vec::new(),
        rivers: Vec::new(),
    };
    layout.rivers = rivers(scn, combat, &mut layout, sys);
    for (side, hex) in [
        (combat.attacker.enemy(), combat.defender_hex),
        (combat.attacker, combat.attacker_hex),
    ] {
        place_settlement(scn, sys, &mut layout, side, hex);
        place_ground(scn, sys, &mut layout, side, hex);
    }
    let placed = std::mem::take(&mut layout.pieces);
    layout.pieces = placed
        .into_iter()
        .map(|p| clear_of_rivers(&layout, p))
        .collect();
    Ok(layout)
}

/// As wide as the larger side's elements in line with `behind` to spare
/// at each end, in the data's steps, between its narrowest and widest.
fn table_width(rule: &TableRule, front: u32, behind: f64) -> f64 {
    let line = f64::from(front) * f64::from(rule.element_frontage.0)
        / f64::from(rule.element_frontage.1.max(1));
    let step = f64::from(rule.step.max(1));
    let w = ((line + 2.0 * behind) / step).ceil() * step;
    w.clamp(f64::from(rule.min_width), f64::from(rule.max_width))
}

/// A town, village or wells of `hex` as a piece, its front on its side's
/// start line, in the middle.
fn place_settlement(scn: &Scenario, sys: &System, l: &mut Layout, side: Side, hex: Hex) {
    let Some(place) = scn.map.place_at(hex) else {
        return;
    };
    let look = match place.kind {
        PlaceKind::Town => Look::Town,
        PlaceKind::Village => Look::Village,
        PlaceKind::Oasis => Look::Wells,
        PlaceKind::Landmark => return,
    };
    let Some(piece) = sys.place_piece(place.kind) else {
        return;
    };
    let (w, d) = (f64::from(piece.width), f64::from(piece.depth));
    let y = if side == l.attacker {
        (l.attacker_line - d / 2.0).max(d / 2.0 + 1.0)
    } else {
        // The table goes on behind the defender's town.
        let half = half_step(l.measure);
        l.depth = l.depth.max(((l.defender_line + d) / half).ceil() * half);
        l.defender_line + d / 2.0
    };
    l.pieces.push(Placed {
        name: place.name.clone(),
        look,
        half: side,
        at: (l.width / 2.0, y),
        size: (w, d),
        rules: sys.place(place.kind).unwrap_or_default().to_string(),
    });
}

/// The pieces a hex's terrain puts on its side's half, spread across it
/// between the centre line and that side's start line.
fn place_ground(scn: &Scenario, sys: &System, l: &mut Layout, side: Side, hex: Hex) {
    let Some(terrain) = scn.map.terrain(hex) else {
        return;
    };
    let kinds: Vec<_> = sys.pieces(terrain).collect();
    let n: u32 = kinds.iter().map(|p| p.count).sum();
    if n == 0 {
        return;
    }
    let mid = (l.attacker_line + l.defender_line) / 2.0;
    let (y, shift) = if side == l.attacker {
        (
            (mid + l.attacker_line) / 2.0,
            l.width / (4.0 * f64::from(n + 1)),
        )
    } else {
        ((mid + l.defender_line) / 2.0, 0.0)
    };
    let mut i = 0;
    for p in kinds {
        for _ in 0..p.count {
            let x = l.width * f64::from(2 * i + 1) / f64::from(2 * n) + shift;
            i += 1;
            l.pieces.push(Placed {
                name: p.name.clone(),
                look: look_of(terrain, &p.name),
                half: side,
                at: (x.min(l.width - f64::from(p.width) / 2.0), y),
                size: (f64::from(p.width), f64::from(p.depth)),
                rules: p.rules.clone(),
            });
        }
    }
}

fn look_of(t: Terrain, name: &str) -> Look {
    if name.contains("depression") {
        return Look::Depression;
    }
    if name.contains("outcrop") || name.contains("rock") {
        return Look::Rocks;
    }
    match t {
        Terrain::Clear | Terrain::Sea => Look::Scrub,
        Terrain::Hills => Look::Hill,
        Terrain::Mountains => Look::Rocks,
    }
}

/// How the two hexes lie on the table: the shared side across the middle
/// between the start lines; the far side of the defender's hex just
/// behind its zone (and its town), the near side of the attacker's just
/// behind its own, so a river there runs behind the troops.
struct HexFrame {
    mid: f64,
    /// Table units a hex unit (apothem 1), across and along each half.
    sx: f64,
    far: f64,
    near: f64,
}

impl HexFrame {
    fn of(l: &Layout, sys: &System, scn: &Scenario, combat: &Combat) -> HexFrame {
        let band = l.river_width + 2.0 * l.bank;
        let settle = |hex: Hex| {
            scn.map
                .place_at(hex)
                .and_then(|p| sys.place_piece(p.kind))
                .map_or(0.0, |p| f64::from(p.depth))
        };
        let far_side = l.zone_depth.max(settle(combat.defender_hex)) + band / 2.0;
        let near_side = l.zone_depth.max(settle(combat.attacker_hex)) + band / 2.0;
        let mid = (l.attacker_line + l.defender_line) / 2.0;
        HexFrame {
            mid,
            sx: l.width / 2.0 / (2.0 / 3f64.sqrt()),
            far: (l.defender_line + far_side - mid) / 2.0,
            near: (mid - (l.attacker_line - near_side)) / 2.0,
        }
    }

    /// Where a hexside of the defender's (`far`) or the attacker's hex
    /// falls on the table: its two corners.
    fn side(&self, l: &Layout, far: bool, d: Direction) -> (Point, Point) {
        // Turns clockwise from the side facing the attacker's hex.
        let k = (d.index() + 6 - l.attack_from.index()) % 6;
        let centre_y = if far { 1.0 } else { -1.0 };
        // In hex units (apothem 1), the side facing the attacker points
        // down; clockwise on the map is clockwise on the table.
        let corner = |deg: f64| -> Point {
            let r = deg.to_radians();
            let s = 2.0 / 3f64.sqrt();
            (-r.sin() * s, centre_y - r.cos() * s)
        };
        let a = 60.0 * k as f64;
        let to = |(x, y): Point| {
            let along = if y >= 0.0 { self.far } else { self.near };
            (l.width / 2.0 + x * self.sx, self.mid + y * along)
        };
        (to(corner(a - 30.0)), to(corner(a + 30.0)))
    }
}

/// A piece moved across, as little as it takes, off any river and its
/// banks (a river along a flank may cross where the pattern put it).
fn clear_of_rivers(l: &Layout, mut p: Placed) -> Placed {
    let half_band = l.river_width / 2.0 + l.bank;
    let hits = |at: Point| {
        l.rivers.iter().any(|r| {
            r.points.windows(2).any(|w| {
                let steps = 40;
                (0..=steps).any(|i| {
                    let t = f64::from(i) / f64::from(steps);
                    let (x, y) = (
                        w[0].0 + (w[1].0 - w[0].0) * t,
                        w[0].1 + (w[1].1 - w[0].1) * t,
                    );
                    (x - at.0).abs() < p.size.0 / 2.0 + half_band
                        && (y - at.1).abs() < p.size.1 / 2.0 + half_band
                })
            })
        })
    };
    if !hits(p.at) {
        return p;
    }
    let step = l.width / 48.0;
    for i in 1..=16 {
        for dir in [-1.0, 1.0] {
            let x = p.at.0 + dir * step * f64::from(i);
            if x - p.size.0 / 2.0 >= 0.0 && x + p.size.0 / 2.0 <= l.width && !hits((x, p.at.1)) {
                p.at.0 = x;
                return p;
            }
        }
    }
    p
}

/// The rivers on the two hexes' sides, joined into lines, each carried on
/// to the nearer side edge where the hexes end, with its fords.
fn rivers(scn: &Scenario, combat: &Combat, l: &mut Layout, sys: &System) -> Vec<RiverLine> {
    let month = combat.key.month;
    let frame = HexFrame::of(l, sys, scn, combat);
    let mut segs: Vec<(String, String, Point, Point)> = Vec::new();
    // A river on a hex's back side (the defender's far side, the
    // attacker's near one) runs behind that side's zone: the table is
    // deepened for it.
    let mut back = (false, false);
    for (far, hex) in [(true, combat.defender_hex), (false, combat.attacker_hex)] {
        for (d, rs) in scn.map.river_sides_of(hex) {
            match ((d.index() + 6 - l.attack_from.index()) % 6, far) {
                (3, true) => back.0 = true,
                (0, false) => back.1 = true,
                _ => {}
            }
            let name = scn
                .map
                .rivers()
                .get(rs.river.0)
                .map_or("river", |r| r.name.as_str())
                .to_string();
            let class = match rs.class {
                RiverClass::Navigable => "navigable",
                RiverClass::Unnavigable => "unnavigable",
                RiverClass::Seasonal if month.seasonal_rivers_navigable() => {
                    "seasonal, navigable this month"
                }
                RiverClass::Seasonal => "seasonal, unnavigable this month",
            }
            .to_string();
            let (p, q) = frame.side(l, far, d);
            let same = |a: Point, b: Point| (a.0 - b.0).abs() < 0.01 && (a.1 - b.1).abs() < 0.01;
            // The shared side comes from both hexes: once.
            if !segs
                .iter()
                .any(|s| (same(s.2, p) && same(s.3, q)) || (same(s.2, q) && same(s.3, p)))
            {
                segs.push((name, class, p, q));
            }
        }
    }
    let mut joined = Vec::new();
    while let Some((name, class, p, q)) = segs.first().cloned() {
        segs.remove(0);
        let mut pts = vec![p, q];
        chain(&mut pts, &mut segs, &name);
        joined.push((name, class, pts));
    }
    make_room(l, &mut joined, back);
    joined
        .into_iter()
        .flat_map(|(name, class, pts)| {
            clip(l, &pts)
                .into_iter()
                .map(move |run| (name.clone(), class.clone(), run))
        })
        .map(|(name, class, pts)| {
            let points = extend(l, pts);
            let fords = fords(&points, f64::from(sys.table.ford));
            RiverLine {
                name,
                class,
                points,
                fords,
            }
        })
        .collect()
}

/// Deepen the table for a river behind a zone: its band and half a zone
/// of bank beyond it, at the far edge or (moving everything up) the near.
fn make_room(l: &mut Layout, rivers: &mut [(String, String, Vec<Point>)], back: (bool, bool)) {
    let room = l.river_width / 2.0 + 2.0 * l.bank;
    let ys = rivers.iter().flat_map(|r| r.2.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let half = half_step(l.measure);
    if back.0 && hi > f64::MIN && hi + room > l.depth {
        l.depth = ((hi + room) / half).ceil() * half;
    }
    if back.1 && lo < f64::MAX && lo - room < 0.0 {
        let up = ((room - lo) / half).ceil() * half;
        l.depth += up;
        l.attacker_line += up;
        l.defender_line += up;
        for r in rivers.iter_mut() {
            for p in &mut r.2 {
                p.1 += up;
            }
        }
    }
}

/// Join to `pts` every segment of the same river touching either end.
fn chain(pts: &mut Vec<Point>, segs: &mut Vec<(String, String, Point, Point)>, name: &str) {
    let near = |a: Point, b: Point| (a.0 - b.0).abs() < 0.01 && (a.1 - b.1).abs() < 0.01;
    loop {
        let Some(first) = pts.first().copied() else {
            return;
        };
        let Some(last) = pts.last().copied() else {
            return;
        };
        let Some(i) = segs.iter().position(|s| {
            s.0 == name
                && (near(s.2, last) || near(s.3, last) || near(s.2, first) || near(s.3, first))
        }) else {
            return;
        };
        let (_, _, a, b) = segs.remove(i);
        if near(a, last) {
            pts.push(b);
        } else if near(b, last) {
            pts.push(a);
        } else if near(a, first) {
            pts.insert(0, b);
        } else {
            pts.insert(0, a);
        }
    }
}

/// The table is deepened in whole half steps of the grid (6 in, 5 cm).
fn half_step(m: Measure) -> f64 {
    match m {
        Measure::Inches => 6.0,
        Measure::Centimetres => 5.0,
    }
}

/// The stretches of a river's line on the table (a line along a flank
/// may leave it and come back).
fn clip(l: &Layout, pts: &[Point]) -> Vec<Vec<Point>> {
    let near = |a: Point, b: Point| (a.0 - b.0).abs() < 0.01 && (a.1 - b.1).abs() < 0.01;
    let mut runs: Vec<Vec<Point>> = Vec::new();
    for w in pts.windows(2) {
        let Some((a, b)) = clip_segment(w[0], w[1], l.width, l.depth) else {
            continue;
        };
        if near(a, b) {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|&p| near(p, a)) => run.push(b),
            _ => runs.push(vec![a, b]),
        }
    }
    runs
}

/// The part of the segment `p`-`q` inside the table (Liang-Barsky).
fn clip_segment(p: Point, q: Point, w: f64, d: f64) -> Option<(Point, Point)> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (pp, qq) in [(-dx, p.0), (dx, w - p.0), (-dy, p.1), (dy, d - p.1)] {
        if pp == 0.0 {
            if qq < 0.0 {
                return None;
            }
            continue;
        }
        let r = qq / pp;
        if pp < 0.0 {
            if r > t1 {
                return None;
            }
            t0 = t0.max(r);
        } else {
            if r < t0 {
                return None;
            }
            t1 = t1.min(r);
        }
    }
    Some((
        (p.0 + t0 * dx, p.1 + t0 * dy),
        (p.0 + t1 * dx, p.1 + t1 * dy),
    ))
}

/// Carry each end not on an edge on to the nearer side edge.
fn extend(l: &Layout, mut pts: Vec<Point>) -> Vec<Point> {
    let on_edge =
        |(x, y): Point| x <= 0.01 || x >= l.width - 0.01 || y <= 0.01 || y >= l.depth - 0.01;
    let out = |(x, y): Point| -> Point {
        if x < l.width / 2.0 {
            (0.0, y)
        } else {
            (l.width, y)
        }
    };
    if let Some(&p) = pts.first()
        && !on_edge(p)
    {
        pts.insert(0, out(p));
    }
    if let Some(&p) = pts.last()
        && !on_edge(p)
    {
        pts.push(out(p));
    }
    pts
}

/// Two fords, at a third and two thirds of the river's length on the
/// table (one in the middle of a short stretch).
fn fords(pts: &[Point], ford: f64) -> Vec<Point> {
    let seg = |a: Point, b: Point| ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    let total: f64 = pts.windows(2).map(|w| seg(w[0], w[1])).sum();
    // A short stretch (a river crossing a corner) has one ford, in its
    // middle; none if shorter than two fords.
    let at: &[f64] = if total < 2.0 * ford {
        &[]
    } else if total < 8.0 * ford {
        &[0.5]
    } else {
        &[1.0 / 3.0, 2.0 / 3.0]
    };
    let mut out = Vec::new();
    for &f in at {
        let mut want = total * f;
        for w in pts.windows(2) {
            let s = seg(w[0], w[1]);
            if want <= s && s > 0.0 {
                let t = want / s;
                out.push((
                    w[0].0 + (w[1].0 - w[0].0) * t,
                    w[0].1 + (w[1].1 - w[0].1) * t,
                ));
                break;
            }
            want -= s;
        }
    }
    out
}
