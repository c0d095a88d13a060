//! Hex geometry: offset coordinates as printed on the map, directions,
//! hexsides, distance and lines of hexes.
//!
//! The map uses flat-topped hexes with odd columns shifted half a hex south
//! ("odd-q" layout). A hex is named by four digits, column then row, both
//! zero-based: `1942` is column 19, row 42. Distance and lines are computed in
//! cube coordinates, where they are exact and simple.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A hex, by its printed column and row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Hex {
    /// Column, zero-based, west to east.
    pub col: i32,
    /// Row, zero-based, north to south.
    pub row: i32,
}

/// The six directions of a flat-topped hex, clockwise from north.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    N,
    NE,
    SE,
    S,
    SW,
    NW,
}

impl Direction {
    /// All six directions, clockwise from north.
    pub const ALL: [Direction; 6] = [
        Direction::N,
        Direction::NE,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::NW,
    ];

    /// The direction pointing the other way.
    pub fn opposite(self) -> Direction {
        Direction::ALL[(self.index() + 3) % 6]
    }

    /// Position in [`Direction::ALL`].
    pub fn index(self) -> usize {
        match self {
            Direction::N => 0,
            Direction::NE => 1,
            Direction::SE => 2,
            Direction::S => 3,
            Direction::SW => 4,
            Direction::NW => 5,
        }
    }

    /// The printed name (`N`, `NE` ...).
    pub fn name(self) -> &'static str {
        match self {
            Direction::N => "N",
            Direction::NE => "NE",
            Direction::SE => "SE",
            Direction::S => "S",
            Direction::SW => "SW",
            Direction::NW => "NW",
        }
    }

    /// The direction turned clockwise by `steps` sixths of a turn.
    pub fn turned(self, steps: usize) -> Direction {
        Direction::ALL[(self.index() + steps) % 6]
    }
}

impl FromStr for Direction {
    type Err = HexParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_uppercase().as_str() {
            "N" => Ok(Direction::N),
            "NE" => Ok(Direction::NE),
            "SE" => Ok(Direction::SE),
            "S" => Ok(Direction::S),
            "SW" => Ok(Direction::SW),
            "NW" => Ok(Direction::NW),
            _ => Err(HexParseError::Direction(s.to_string())),
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a hex or hexside label could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexParseError {
    #[error("`{0}` is not a hex: write four digits, column then row, such as 1942")]
    Hex(String),
    #[error("`{0}` is not a direction: use N, NE, SE, S, SW or NW")]
    Direction(String),
    #[error("`{0}` is not a hexside: write a hex and a direction, such as 1942/N")]
    Hexside(String),
}

/// Cube coordinates; `q + r + s == 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cube {
    q: i32,
    r: i32,
    s: i32,
}

impl Hex {
    /// The hex at `col`, `row`.
    pub const fn new(col: i32, row: i32) -> Hex {
        Hex { col, row }
    }

    fn to_cube(self) -> Cube {
        let q = self.col;
        let r = self.row - (self.col - (self.col & 1)) / 2;
        Cube { q, r, s: -q - r }
    }

    fn from_cube(c: Cube) -> Hex {
        let col = c.q;
        let row = c.r + (c.q - (c.q & 1)) / 2;
        Hex { col, row }
    }

    /// The neighbouring hex in `dir` (it may lie off the map).
    pub fn neighbour(self, dir: Direction) -> Hex {
        let odd = self.col & 1 == 1;
        let (dc, dr) = match (dir, odd) {
            (Direction::N, _) => (0, -1),
            (Direction::S, _) => (0, 1),
            (Direction::NE, false) => (1, -1),
            (Direction::NE, true) => (1, 0),
            (Direction::SE, false) => (1, 0),
            (Direction::SE, true) => (1, 1),
            (Direction::SW, false) => (-1, 0),
            (Direction::SW, true) => (-1, 1),
            (Direction::NW, false) => (-1, -1),
            (Direction::NW, true) => (-1, 0),
        };
        Hex::new(self.col + dc, self.row + dr)
    }

    /// The six neighbours, clockwise from north.
    pub fn neighbours(self) -> [Hex; 6] {
        Direction::ALL.map(|d| self.neighbour(d))
    }

    /// The direction from this hex to an adjacent one ([`Hex::neighbour`]
    /// read backwards).
    pub fn direction_to(self, other: Hex) -> Option<Direction> {
        let odd = self.col & 1 == 1;
        let d = match (other.col - self.col, other.row - self.row, odd) {
            (0, -1, _) => Direction::N,
            (0, 1, _) => Direction::S,
            (1, -1, false) | (1, 0, true) => Direction::NE,
            (1, 0, false) | (1, 1, true) => Direction::SE,
            (-1, 0, false) | (-1, 1, true) => Direction::SW,
            (-1, -1, false) | (-1, 0, true) => Direction::NW,
            _ => return None,
        };
        Some(d)
    }

    /// Number of hexes between the two (0 for the same hex, 1 for neighbours).
    pub fn distance(self, other: Hex) -> u32 {
        let a = self.to_cube();
        let b = other.to_cube();
        let d = (a.q - b.q)
            .abs()
            .max((a.r - b.r).abs())
            .max((a.s - b.s).abs());
        d.unsigned_abs()
    }

    /// The hexes of the straight line from `self` to `other`, both included.
    pub fn line_to(self, other: Hex) -> Vec<Hex> {
        let n = self.distance(other);
        if n == 0 {
            return vec![self];
        }
        let a = self.to_cube();
        let b = other.to_cube();
        // A tiny nudge keeps points that fall exactly on a hexside from
        // flipping between machines: the result is the same everywhere.
        let (aq, ar, a_s) = (a.q as f64 + 1e-6, a.r as f64 + 1e-6, a.s as f64 - 2e-6);
        let (bq, br, bs) = (b.q as f64 + 1e-6, b.r as f64 + 1e-6, b.s as f64 - 2e-6);
        (0..=n)
            .map(|i| {
                let t = f64::from(i) / f64::from(n);
                cube_round(aq + (bq - aq) * t, ar + (br - ar) * t, a_s + (bs - a_s) * t)
            })
            .map(Hex::from_cube)
            .collect()
    }

    /// Every hex within `radius` of this one, in row-major order.
    pub fn within(self, radius: u32) -> Vec<Hex> {
        let r = radius as i32;
        let mut out = Vec::new();
        for row in self.row - r - 1..=self.row + r + 1 {
            for col in self.col - r..=self.col + r {
                let h = Hex::new(col, row);
                if self.distance(h) <= radius {
                    out.push(h);
                }
            }
        }
        out.sort_by_key(|h| (h.row, h.col));
        out
    }

    /// The hexside of this hex in `dir`.
    pub fn side(self, dir: Direction) -> Hexside {
        Hexside::new(self, dir)
    }

    /// Centre of the hex in map kilometres (x east, y south), for the
    /// projection described in `docs/map-format.md`.
    pub fn centre_km(self) -> (f64, f64) {
        let x = 14.63 * f64::from(self.col);
        let y = 16.9 * f64::from(self.row) + if self.col & 1 == 1 { 8.45 } else { 0.0 };
        (x, y)
    }
}

fn cube_round(q: f64, r: f64, s: f64) -> Cube {
    let mut rq = q.round();
    let mut rr = r.round();
    let rs = s.round();
    let dq = (rq - q).abs();
    let dr = (rr - r).abs();
    let ds = (rs - s).abs();
    if dq > dr && dq > ds {
        rq = -rr - rs;
    } else if dr > ds {
        rr = -rq - rs;
    }
    let q = rq as i32;
    let r = rr as i32;
    Cube { q, r, s: -q - r }
}

impl Hex {
    /// The label's four digits (`CCRR`) when both numbers have two digits
    /// or fewer, as every hex of a map has: written without the formatting
    /// machinery, since labels are written wherever hexes are named.
    fn label_digits(&self) -> Option<[u8; 4]> {
        let two = |n: i32| -> Option<[u8; 2]> {
            let n = u8::try_from(n).ok().filter(|n| *n < 100)?;
            Some([b'0' + n / 10, b'0' + n % 10])
        };
        let (c, r) = (two(self.col)?, two(self.row)?);
        Some([c[0], c[1], r[0], r[1]])
    }

    /// Add the label (as `Display` writes it) to `out`.
    pub fn push_label(&self, out: &mut String) {
        match self.label_digits() {
            Some(d) => out.extend(d.iter().map(|&b| char::from(b))),
            None => {
                use std::fmt::Write as _;
                let _ = write!(out, "{self}");
            }
        }
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.label_digits() {
            Some(d) => f.write_str(std::str::from_utf8(&d).map_err(|_| fmt::Error)?),
            None => write!(f, "{:02}{:02}", self.col, self.row),
        }
    }
}

impl FromStr for Hex {
    type Err = HexParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.len() != 4 || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(HexParseError::Hex(s.to_string()));
        }
        let col = t[..2]
            .parse()
            .map_err(|_| HexParseError::Hex(s.to_string()))?;
        let row = t[2..]
            .parse()
            .map_err(|_| HexParseError::Hex(s.to_string()))?;
        Ok(Hex::new(col, row))
    }
}

impl TryFrom<String> for Hex {
    type Error = HexParseError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Hex> for String {
    fn from(h: Hex) -> String {
        h.to_string()
    }
}

/// The side shared by two adjacent hexes. Two names denote each hexside
/// (`1942/N` and `1941/S`); the value is always kept in the canonical form,
/// whose direction is `N`, `NE` or `SE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Hexside {
    hex: Hex,
    dir: Direction,
}

impl Hexside {
    /// The side of `hex` in `dir`, in canonical form.
    pub fn new(hex: Hex, dir: Direction) -> Hexside {
        match dir {
            Direction::N | Direction::NE | Direction::SE => Hexside { hex, dir },
            _ => Hexside {
                hex: hex.neighbour(dir),
                dir: dir.opposite(),
            },
        }
    }

    /// The hexside between two adjacent hexes, or `None` if they do not touch.
    pub fn between(a: Hex, b: Hex) -> Option<Hexside> {
        a.direction_to(b).map(|d| Hexside::new(a, d))
    }

    /// The two hexes on either side.
    pub fn hexes(self) -> (Hex, Hex) {
        (self.hex, self.hex.neighbour(self.dir))
    }

    /// Whether `hex` is one of the two hexes this side separates.
    pub fn touches_hex(self, hex: Hex) -> bool {
        let (a, b) = self.hexes();
        a == hex || b == hex
    }

    /// The hex the canonical name is written from, and its direction.
    pub fn parts(self) -> (Hex, Direction) {
        (self.hex, self.dir)
    }

    /// The two corners of this side, as (hex, corner index) pairs reduced to
    /// a canonical corner key, for testing whether two sides touch.
    pub fn corners(self) -> [Corner; 2] {
        // Corner k of a hex lies between edge k-1 and edge k (clockwise from
        // the N edge): corner 0 is the NW end of the N edge.
        let i = self.dir.index();
        [Corner::of(self.hex, i), Corner::of(self.hex, (i + 1) % 6)]
    }

    /// Whether the two sides share a corner (and are different sides).
    pub fn touches(self, other: Hexside) -> bool {
        if self == other {
            return false;
        }
        let a = self.corners();
        let b = other.corners();
        a.iter().any(|c| b.contains(c))
    }

    /// The four hexsides sharing a corner with this one.
    pub fn touching(self) -> Vec<Hexside> {
        let (a, b) = self.hexes();
        let mut out = Vec::with_capacity(4);
        for h in [a, b] {
            for d in Direction::ALL {
                let s = Hexside::new(h, d);
                if s != self && s.touches(self) && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out.sort();
        out
    }
}

/// A hex corner, named canonically so that the three hexes meeting there
/// agree on it: integer coordinates in units of half a hex radius (x, east)
/// and half a hex height (y, south), exact on every machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Corner {
    x: i32,
    y: i32,
}

impl Corner {
    /// Corner `k` of `hex`: 0 is the west end of the N edge, then clockwise
    /// (NE end of the N edge, E, SE, SW, W).
    fn of(hex: Hex, k: usize) -> Corner {
        let cx = 3 * hex.col;
        let cy = 2 * hex.row + (hex.col & 1);
        let (dx, dy) = [(-1, -1), (1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0)][k % 6];
        Corner {
            x: cx + dx,
            y: cy + dy,
        }
    }
}

impl fmt::Display for Hexside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.hex, self.dir)
    }
}

impl FromStr for Hexside {
    type Err = HexParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (h, d) = s
            .trim()
            .split_once('/')
            .ok_or_else(|| HexParseError::Hexside(s.to_string()))?;
        Ok(Hexside::new(h.parse()?, d.parse()?))
    }
}

impl TryFrom<String> for Hexside {
    type Error = HexParseError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Hexside> for String {
    fn from(h: Hexside) -> String {
        h.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label written digit by digit is the label `{:02}{:02}` writes,
    /// for every hex a map may hold and for the odd ones beyond.
    #[test]
    fn a_label_is_written_as_the_format_writes_it() {
        for col in -3..130 {
            for row in -3..130 {
                let h = Hex { col, row };
                let formatted = format!("{:02}{:02}", col, row);
                assert_eq!(h.to_string(), formatted);
                let mut pushed = String::from("x");
                h.push_label(&mut pushed);
                assert_eq!(pushed, format!("x{formatted}"));
            }
        }
    }

    fn h(s: &str) -> Hex {
        s.parse().unwrap()
    }

    #[test]
    fn labels_are_four_digits_column_then_row() {
        assert_eq!(h("1942"), Hex::new(19, 42));
        assert_eq!(Hex::new(3, 7).to_string(), "0307");
        assert!("194".parse::<Hex>().is_err());
        assert!("19a2".parse::<Hex>().is_err());
        assert!("19421".parse::<Hex>().is_err());
    }

    #[test]
    fn neighbours_follow_the_odd_q_layout() {
        // Even column: the NE and NW neighbours are one row up.
        assert_eq!(h("1010").neighbour(Direction::NE), h("1109"));
        assert_eq!(h("1010").neighbour(Direction::SE), h("1110"));
        assert_eq!(h("1010").neighbour(Direction::NW), h("0909"));
        // Odd column: shifted south, so SE and SW are one row down.
        assert_eq!(h("1110").neighbour(Direction::NE), h("1210"));
        assert_eq!(h("1110").neighbour(Direction::SE), h("1211"));
        assert_eq!(h("1110").neighbour(Direction::SW), h("1011"));
        for hex in [h("1010"), h("1110"), h("0000")] {
            for d in Direction::ALL {
                assert_eq!(hex.neighbour(d).neighbour(d.opposite()), hex);
                assert_eq!(hex.distance(hex.neighbour(d)), 1);
                assert_eq!(hex.direction_to(hex.neighbour(d)), Some(d));
            }
        }
    }

    #[test]
    fn neighbour_centres_are_one_hex_apart() {
        for hex in [h("1010"), h("1110")] {
            let (x0, y0) = hex.centre_km();
            for n in hex.neighbours() {
                let (x, y) = n.centre_km();
                let d = ((x - x0).powi(2) + (y - y0).powi(2)).sqrt();
                assert!((d - 16.9).abs() < 0.05, "{hex} to {n}: {d}");
            }
        }
    }

    #[test]
    fn distance_counts_hexes() {
        assert_eq!(h("1942").distance(h("1942")), 0);
        assert_eq!(h("1942").distance(h("1952")), 10);
        assert_eq!(h("1010").distance(h("1410")), 4);
        // Gazetteer sanity figures: Khartoum-Berber 22, Korti-Metemmeh 15,
        // Souakim-Berber 24, Khartoum-El Obeid 24, Wady Halfa-Dongola 21.
        assert_eq!(h("1942").distance(h("3026")), 22);
        assert_eq!(h("1226").distance(h("2534")), 15);
        assert_eq!(h("5419").distance(h("3026")), 24);
        assert_eq!(h("1942").distance(h("0258")), 24);
        assert_eq!(h("1101").distance(h("0419")), 21);
    }

    #[test]
    fn lines_are_contiguous_and_as_long_as_the_distance() {
        let cases = [
            ("1942", "3026"),
            ("0000", "0505"),
            ("1101", "0419"),
            ("5419", "5419"),
        ];
        for (a, b) in cases {
            let line = h(a).line_to(h(b));
            assert_eq!(line.len() as u32, h(a).distance(h(b)) + 1);
            assert_eq!(line[0], h(a));
            assert_eq!(*line.last().unwrap(), h(b));
            for w in line.windows(2) {
                assert_eq!(w[0].distance(w[1]), 1, "{a}->{b}: {line:?}");
            }
        }
    }

    #[test]
    fn within_lists_the_ring_hexes() {
        assert_eq!(h("1010").within(0), vec![h("1010")]);
        assert_eq!(h("1010").within(1).len(), 7);
        assert_eq!(h("1111").within(2).len(), 19);
    }

    #[test]
    fn hexsides_have_one_canonical_name() {
        let a: Hexside = "1942/N".parse().unwrap();
        let b: Hexside = "1941/S".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(b.to_string(), "1942/N");
        let c: Hexside = "1110/SW".parse().unwrap();
        assert_eq!(c.to_string(), "1011/NE");
        assert_eq!(Hexside::between(h("1110"), h("1011")), Some(c));
        assert_eq!(Hexside::between(h("1110"), h("1310")), None);
        assert!("1942".parse::<Hexside>().is_err());
        assert!("1942/X".parse::<Hexside>().is_err());
    }

    #[test]
    fn hexsides_touch_at_shared_corners() {
        let n: Hexside = "1010/N".parse().unwrap();
        let ne: Hexside = "1010/NE".parse().unwrap();
        let s: Hexside = "1010/S".parse().unwrap();
        assert!(n.touches(ne));
        assert!(!n.touches(s));
        assert!(!n.touches(n));
        // A side touches exactly four others: two at each end.
        for side in [n, ne, s, "1110/NW".parse().unwrap()] {
            let t = side.touching();
            assert_eq!(t.len(), 4, "{side}: {t:?}");
            assert!(t.iter().all(|o| o.touches(side)));
        }
    }
}
