//! The theatre map: terrain, places, rivers on hexsides, cataracts and
//! railways, loaded from `scenarios/map.ron` through a validating builder.
//!
//! [`MapFile`] is the file as written, with public fields and no promises;
//! [`Map`] is the checked map the engine uses, built only by
//! [`Map::build`], which reports every problem with its line.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap as HashMap;

use serde::{Deserialize, Serialize};

use super::hex::{Direction, Hex, Hexside};
use crate::diag::{Diagnostic, Diagnostics, Source, Spot, suggest};

/// Terrain of a hex (rule 8.21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Terrain {
    Clear,
    Hills,
    Mountains,
    Sea,
}

impl Terrain {
    /// Movement points to enter a hex of this terrain (rule 8.21); `None`
    /// for sea, which may never be entered (rule 8.2).
    pub fn entry_cost(self) -> Option<u32> {
        match self {
            Terrain::Clear => Some(1),
            Terrain::Hills => Some(2),
            Terrain::Mountains => Some(3),
            Terrain::Sea => None,
        }
    }

    fn from_char(c: char) -> Option<Terrain> {
        match c {
            '.' => Some(Terrain::Clear),
            'h' => Some(Terrain::Hills),
            'm' => Some(Terrain::Mountains),
            '~' => Some(Terrain::Sea),
            _ => None,
        }
    }

    /// Lower-case name, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Terrain::Clear => "clear",
            Terrain::Hills => "hills",
            Terrain::Mountains => "mountains",
            Terrain::Sea => "sea",
        }
    }
}

/// What kind of place a named hex is. Towns, villages and oases are
/// settlements: they can be besieged (rule 9.12) and losers in them need not
/// retreat (rule 9.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PlaceKind {
    Town,
    Village,
    Oasis,
    /// A named hex with no settlement (a battlefield, a pass).
    Landmark,
}

impl PlaceKind {
    /// Whether this is a town, village or oasis.
    pub fn is_settlement(self) -> bool {
        !matches!(self, PlaceKind::Landmark)
    }
}

/// Navigability class of a river reach (rule 8.23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RiverClass {
    Navigable,
    Unnavigable,
    /// Navigable November to February inclusive, unnavigable otherwise
    /// (rule 8.23 III).
    Seasonal,
}

/// Inclusive rectangle of hexes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HexRect {
    pub from: Hex,
    pub to: Hex,
}

/// A named place as written in the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlaceFile {
    pub name: String,
    pub hex: Hex,
    pub kind: PlaceKind,
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// A reach of a river as written in the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReachFile {
    pub class: RiverClass,
    pub hexsides: Vec<String>,
}

/// A river as written in the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RiverFile {
    pub name: String,
    #[serde(default)]
    pub flows_into: Option<String>,
    pub reaches: Vec<ReachFile>,
}

/// A cataract as written in the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CataractFile {
    pub name: String,
    pub hexsides: Vec<String>,
}

/// A railway line as written in the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RailwayFile {
    pub name: String,
    pub hexes: Vec<String>,
    pub built: usize,
}

/// `scenarios/map.ron` as written; see `docs/map-format.md`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename = "Map")]
pub struct MapFile {
    pub name: String,
    pub columns: i32,
    pub rows: i32,
    pub terrain: Vec<String>,
    #[serde(default)]
    pub souakim_extension: Vec<HexRect>,
    /// Rectangles of ground where an ambush may lie besides hills,
    /// mountains, villages, oases and landmarks (wadis; the optional
    /// ambush rule).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ambush_ground: Vec<HexRect>,
    pub places: Vec<PlaceFile>,
    #[serde(default)]
    pub rivers: Vec<RiverFile>,
    #[serde(default)]
    pub cataracts: Vec<CataractFile>,
    #[serde(default)]
    pub railways: Vec<RailwayFile>,
}

/// A named place on the checked map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub name: String,
    pub hex: Hex,
    pub kind: PlaceKind,
    pub aliases: Vec<String>,
}

/// Index of a river in [`Map::rivers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RiverId(pub usize);

/// A river on the checked map.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct River {
    pub name: String,
    pub flows_into: Option<RiverId>,
    /// Hexsides from source to mouth.
    pub hexsides: Vec<Hexside>,
}

/// What the map knows about one river hexside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiverSide {
    pub river: RiverId,
    /// Position along the river from its source: larger is downstream.
    pub order: usize,
    pub class: RiverClass,
    /// Index into [`Map::cataracts`] if a cataract stands here.
    pub cataract: Option<usize>,
}

/// A cataract on the checked map.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cataract {
    pub name: String,
    pub hexsides: Vec<Hexside>,
}

/// State of the track in a hex at the start of a scenario (rules 3.4, 8.22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Track {
    Built,
    /// Marked on the map; may be built (rule 3.4).
    Marked,
}

/// A railway line on the checked map.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Railway {
    pub name: String,
    pub hexes: Vec<Hex>,
    /// The first `built` hexes are built at the start.
    pub built: usize,
}

/// A looked-up place name or hex label that was not found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("no place called {name}{}", match suggestion { Some(s) => format!("; did you mean {s}?"), None => String::new() })]
    UnknownPlace {
        name: String,
        suggestion: Option<String>,
    },
    #[error("hex {0} is not on the map (columns 00-{1:02}, rows 00-{2:02})")]
    OffMap(Hex, i32, i32),
}

/// The checked theatre map. It is written and read back only as part of
/// the data cache (`scenario::cache`), which holds maps the builder made.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Map {
    name: String,
    columns: i32,
    rows: i32,
    terrain: Vec<Terrain>,
    souakim: Vec<bool>,
    /// The `ambush_ground` rectangles.
    wadis: Vec<bool>,
    places: Vec<Place>,
    by_name: BTreeMap<String, usize>,
    rivers: Vec<River>,
    river_sides: HashMap<Hexside, RiverSide>,
    cataracts: Vec<Cataract>,
    railways: Vec<Railway>,
    track: HashMap<Hex, Track>,
    /// For each hex (row-major), the place [`Map::place_at`] gives, by
    /// index, worked out once.
    place_of: Vec<Option<usize>>,
    /// For each hex (row-major), a bit for each direction (in
    /// `Direction::ALL` order) whose hexside is a river.
    river_bits: Vec<u8>,
    /// Land routes on the empty map, found once ([`super::route::land_route`]).
    #[serde(skip)]
    land_routes: std::sync::Arc<super::memo::RouteMemo>,
    /// What a route search's step reads of each hex, made when first
    /// asked for and shared by clones ([`Map::hex_table`]).
    #[serde(skip)]
    hex_table: std::sync::Arc<std::sync::OnceLock<HexTable>>,
}

/// What a step of a route search reads of each hex of a map, in arrays
/// indexed by hex (row-major, as [`HexTable::index`] gives): the cost to
/// enter it, its river hexsides and its six neighbours. A step then reads
/// a few bytes instead of working out the terrain, the river and the
/// neighbour in turn. Made from the map's own data and answering as it
/// does ([`Map::terrain`], [`Map::crosses_river`], [`Hex::neighbour`]).
#[derive(Debug)]
pub struct HexTable {
    columns: i32,
    rows: i32,
    cells: Vec<HexCell>,
    next: Vec<[u32; 6]>,
    /// For each hex, each river along its sides and the furthest
    /// downstream order of those sides (empty for most hexes).
    river_orders: Vec<Box<[(RiverId, usize)]>>,
}

/// One hex of a [`HexTable`].
#[derive(Clone, Copy, Debug, Default)]
pub struct HexCell {
    /// Movement points to enter the hex (rule 8.21); 0 for the sea, which
    /// may not be entered.
    pub enter: u8,
    /// A bit for each direction (`Direction::index`) whose hexside is a
    /// river.
    pub rivers: u8,
}

impl HexTable {
    /// A neighbour's index in [`HexTable::next`] when it is off the map.
    pub const OFF: u32 = u32::MAX;

    fn of(map: &Map) -> HexTable {
        let hexes: Vec<Hex> = map.hexes().collect();
        let cells = hexes
            .iter()
            .zip(&map.river_bits)
            .map(|(&h, &rivers)| HexCell {
                enter: map
                    .terrain(h)
                    .and_then(Terrain::entry_cost)
                    .and_then(|c| u8::try_from(c).ok())
                    .unwrap_or(0),
                rivers,
            })
            .collect();
        let next = hexes
            .iter()
            .map(|h| {
                h.neighbours().map(|n| {
                    map.index(n)
                        .and_then(|i| u32::try_from(i).ok())
                        .unwrap_or(Self::OFF)
                })
            })
            .collect();
        let river_orders = hexes
            .iter()
            .map(|&h| {
                let mut orders: Vec<(RiverId, usize)> = Vec::new();
                for (_, s) in map.river_sides_of(h) {
                    match orders.iter_mut().find(|(r, _)| *r == s.river) {
                        Some((_, o)) => *o = (*o).max(s.order),
                        None => orders.push((s.river, s.order)),
                    }
                }
                orders.into_boxed_slice()
            })
            .collect();
        HexTable {
            columns: map.columns,
            rows: map.rows,
            cells,
            next,
            river_orders,
        }
    }

    /// Number of hexes.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the map has no hexes.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// A hex's index, if it is on the map.
    pub fn index(&self, hex: Hex) -> Option<usize> {
        ((0..self.columns).contains(&hex.col) && (0..self.rows).contains(&hex.row))
            .then(|| usize::try_from(hex.row * self.columns + hex.col).unwrap_or(0))
    }

    /// The hex at an index.
    pub fn hex(&self, i: usize) -> Hex {
        let columns = usize::try_from(self.columns).unwrap_or(1).max(1);
        Hex::new(
            i32::try_from(i % columns).unwrap_or(0),
            i32::try_from(i / columns).unwrap_or(0),
        )
    }

    /// Every hex's cell, by index.
    pub fn cells(&self) -> &[HexCell] {
        &self.cells
    }

    /// Every hex's six neighbours' indices, clockwise from north
    /// ([`HexTable::OFF`] off the map).
    pub fn next(&self) -> &[[u32; 6]] {
        &self.next
    }

    /// Whether the hex at index `i` is beside `river` at or downstream of
    /// the hexside order `limit` (one of its sides on that river has an
    /// order at least `limit`).
    pub fn beside_river_from(&self, i: usize, river: RiverId, limit: usize) -> bool {
        self.river_orders
            .get(i)
            .is_some_and(|o| o.iter().any(|&(r, order)| r == river && order >= limit))
    }
}

impl Map {
    /// What a route search's step reads of each hex, made once for the map.
    pub fn hex_table(&self) -> &HexTable {
        self.hex_table.get_or_init(|| HexTable::of(self))
    }

    /// The land routes found so far on this map with no one on it.
    pub(crate) fn land_routes(&self) -> &super::memo::RouteMemo {
        &self.land_routes
    }

    /// Read and check a map file.
    pub fn from_source(src: &Source<'_>) -> Result<Map, Diagnostics> {
        let file: MapFile = src.parse_ron().map_err(|d| Diagnostics(vec![d]))?;
        Map::build(&file, src)
    }

    /// Check a map file and build the map, or report every problem.
    pub fn build(file: &MapFile, src: &Source<'_>) -> Result<Map, Diagnostics> {
        MapBuilder::new(file, src).build()
    }

    /// The map's title.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of columns.
    pub fn columns(&self) -> i32 {
        self.columns
    }

    /// Number of rows.
    pub fn rows(&self) -> i32 {
        self.rows
    }

    /// Whether the hex is on the map.
    pub fn contains(&self, hex: Hex) -> bool {
        (0..self.columns).contains(&hex.col) && (0..self.rows).contains(&hex.row)
    }

    fn index(&self, hex: Hex) -> Option<usize> {
        self.contains(hex)
            .then(|| (hex.row * self.columns + hex.col) as usize)
    }

    /// Every hex of the map, row by row.
    pub fn hexes(&self) -> impl Iterator<Item = Hex> + '_ {
        (0..self.rows).flat_map(move |r| (0..self.columns).map(move |c| Hex::new(c, r)))
    }

    /// Terrain of a hex on the map.
    pub fn terrain(&self, hex: Hex) -> Option<Terrain> {
        self.index(hex).map(|i| self.terrain[i])
    }

    /// Whether a land unit may stand in the hex (on the map, not sea).
    pub fn is_land(&self, hex: Hex) -> bool {
        matches!(self.terrain(hex), Some(t) if t != Terrain::Sea)
    }

    /// Whether the hex is on the Souakim map extension (rules 2.2, 2.3, 3.41).
    pub fn in_souakim_extension(&self, hex: Hex) -> bool {
        self.index(hex).is_some_and(|i| self.souakim[i])
    }

    /// Whether an ambush may lie in `hex` (the optional ambush rule; seed
    /// 002: "some appropriate terrain ... gully, wadi, creek bed, abandoned
    /// sugar mill"; "approaching a pass, near scrub or an abandoned
    /// building"): hills and mountains, every village, oasis (wells) and
    /// landmark (passes, battlefields), and the map's `ambush_ground`
    /// rectangles (wadis). Not towns: a town is held or besieged, never
    /// lain in wait in (docs/rules.md, "Ambushes").
    pub fn is_ambush_ground(&self, hex: Hex) -> bool {
        let Some(i) = self.index(hex) else {
            return false;
        };
        if self.terrain[i] == Terrain::Sea {
            return false;
        }
        let mut here = self.places.iter().filter(|p| p.hex == hex).peekable();
        if here.clone().any(|p| p.kind == PlaceKind::Town) {
            return false;
        }
        here.peek().is_some()
            || self.wadis[i]
            || matches!(self.terrain[i], Terrain::Hills | Terrain::Mountains)
    }

    /// Every named place, in file order.
    pub fn places(&self) -> &[Place] {
        &self.places
    }

    /// The settlement in a hex, or else a landmark there.
    pub fn place_at(&self, hex: Hex) -> Option<&Place> {
        let i = self.index(hex)?;
        self.place_of[i].map(|k| &self.places[k])
    }

    /// The place of a hex: its settlement if it has one, else the first
    /// place named there.
    fn find_place_at(places: &[Place], hex: Hex) -> Option<usize> {
        let mut here = places.iter().enumerate().filter(|(_, p)| p.hex == hex);
        let (k, first) = here.next()?;
        if first.kind.is_settlement() {
            return Some(k);
        }
        here.find(|(_, p)| p.kind.is_settlement())
            .map(|(k, _)| k)
            .or(Some(k))
    }

    /// The settlement (town, village or oasis) in a hex.
    pub fn settlement_at(&self, hex: Hex) -> Option<&Place> {
        self.place_at(hex).filter(|p| p.kind.is_settlement())
    }

    /// A place by name or alias, ignoring case and spacing.
    pub fn find_place(&self, name: &str) -> Option<&Place> {
        // A name written as the map writes it needs no key (the engine
        // asks for "Souakim" many times a turn); keys are unique, so the
        // place found is the one the key would give.
        if let Some(p) = self.places.iter().find(|p| p.name == name) {
            return Some(p);
        }
        self.by_name.get(&name_key(name)).map(|&i| &self.places[i])
    }

    /// A place name or a four-digit hex label, as players write them.
    pub fn resolve(&self, text: &str) -> Result<Hex, LookupError> {
        let t = text.trim();
        if let Ok(hex) = t.parse::<Hex>() {
            return if self.contains(hex) {
                Ok(hex)
            } else {
                Err(LookupError::OffMap(hex, self.columns - 1, self.rows - 1))
            };
        }
        if let Some(p) = self.find_place(t) {
            return Ok(p.hex);
        }
        let names = self
            .places
            .iter()
            .flat_map(|p| std::iter::once(&p.name).chain(&p.aliases));
        let suggestion = suggest(t, names.map(String::as_str)).map(|s| {
            let p = self.find_place(s);
            match p {
                Some(p) if p.name == s => format!("{} ({})", p.name, p.hex),
                Some(p) => format!("{s} ({}, {})", p.name, p.hex),
                None => s.to_string(),
            }
        });
        Err(LookupError::UnknownPlace {
            name: t.to_string(),
            suggestion,
        })
    }

    /// The name to show for a hex: its place name, or its label.
    pub fn describe(&self, hex: Hex) -> String {
        match self.place_at(hex) {
            Some(p) => {
                let mut out = String::with_capacity(p.name.len() + 7);
                out.push_str(&p.name);
                out.push_str(" (");
                hex.push_label(&mut out);
                out.push(')');
                out
            }
            None => hex.to_string(),
        }
    }

    /// Every river.
    pub fn rivers(&self) -> &[River] {
        &self.rivers
    }

    /// A river by name, ignoring case.
    pub fn find_river(&self, name: &str) -> Option<RiverId> {
        self.rivers
            .iter()
            .position(|r| r.name.eq_ignore_ascii_case(name.trim()))
            .map(RiverId)
    }

    /// The river running along a hexside, if any.
    pub fn river_at(&self, side: Hexside) -> Option<RiverSide> {
        self.river_sides.get(&side).copied()
    }

    /// Whether moving from `from` to the adjacent `to` crosses a river.
    pub fn crosses_river(&self, from: Hex, to: Hex) -> bool {
        // Most hexes have no river side: nothing to look up (the answer
        // below is the same, false, for them).
        if let Some(i) = self.index(from)
            && self.river_bits[i] == 0
        {
            return false;
        }
        let bit = |h: Hex, other: Hex| {
            let i = self.index(h)?;
            let k = h.direction_to(other)? as usize;
            Some(self.river_bits[i] & (1 << k) != 0)
        };
        bit(from, to).or_else(|| bit(to, from)).unwrap_or_else(|| {
            Hexside::between(from, to).is_some_and(|s| self.river_sides.contains_key(&s))
        })
    }

    /// Whether any of a hex's six sides is a river hexside (true off the
    /// map, where it is not known).
    pub fn touches_river(&self, hex: Hex) -> bool {
        self.index(hex).is_none_or(|i| self.river_bits[i] != 0)
    }

    /// The river hexsides among a hex's six sides.
    pub fn river_sides_of(&self, hex: Hex) -> Vec<(Direction, RiverSide)> {
        Direction::ALL
            .into_iter()
            .filter_map(|d| self.river_at(hex.side(d)).map(|r| (d, r)))
            .collect()
    }

    /// Whether a hex is next to a river (boats stand only in such hexes,
    /// rule 6.0).
    pub fn is_riverside(&self, hex: Hex) -> bool {
        match self.index(hex) {
            Some(i) => self.river_bits[i] != 0,
            None => Direction::ALL
                .into_iter()
                .any(|d| self.river_sides.contains_key(&hex.side(d))),
        }
    }

    /// Whether a hex is next to the given river.
    pub fn is_beside_river(&self, hex: Hex, river: RiverId) -> bool {
        self.river_sides_of(hex)
            .iter()
            .any(|(_, r)| r.river == river)
    }

    /// Every cataract.
    pub fn cataracts(&self) -> &[Cataract] {
        &self.cataracts
    }

    /// Every railway line.
    pub fn railways(&self) -> &[Railway] {
        &self.railways
    }

    /// The track in a hex at the start of a scenario.
    pub fn track(&self, hex: Hex) -> Option<Track> {
        self.track.get(&hex).copied()
    }
}

/// Names compare without case, spaces, hyphens or apostrophes.
pub fn name_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

struct MapBuilder<'f, 's> {
    file: &'f MapFile,
    src: &'s Source<'s>,
    errors: Vec<Diagnostic>,
}

impl<'f, 's> MapBuilder<'f, 's> {
    fn new(file: &'f MapFile, src: &'s Source<'s>) -> Self {
        MapBuilder {
            file,
            src,
            errors: Vec::new(),
        }
    }

    /// A problem at `spot`, whose line is looked up now (only for a
    /// problem: see [`Spot`]).
    fn err(&mut self, spot: Spot<'_>, field: String, message: String, hint: &str) {
        let line = self.src.line(spot);
        let d = self.src.error(line, field, message, Some(hint.to_string()));
        self.errors.push(d);
    }

    fn on_map(&self, hex: Hex) -> bool {
        (0..self.file.columns).contains(&hex.col) && (0..self.file.rows).contains(&hex.row)
    }

    fn off_map_hint(&self) -> String {
        format!(
            "use a hex inside columns 00-{:02} and rows 00-{:02}",
            self.file.columns - 1,
            self.file.rows - 1
        )
    }

    fn build(mut self) -> Result<Map, Diagnostics> {
        let f = self.file;
        if f.columns <= 0 || f.columns > 99 || f.rows <= 0 || f.rows > 99 {
            let line = Spot::Text("columns", 1);
            self.err(
                line,
                "columns".into(),
                format!(
                    "a map of {} x {} hexes cannot be labelled with four digits",
                    f.columns, f.rows
                ),
                "columns and rows must be between 1 and 99",
            );
            return Err(Diagnostics(self.errors));
        }
        let terrain = self.terrain();
        let file = self.file;
        let souakim = self.rects(&file.souakim_extension, "souakim_extension");
        let wadis = self.rects(&file.ambush_ground, "ambush_ground");
        let (places, by_name) = self.places(&terrain);
        let (rivers, mut river_sides) = self.rivers();
        let cataracts = self.cataracts(&mut river_sides);
        let (railways, track) = self.railways(&terrain);
        if !self.errors.is_empty() {
            return Err(Diagnostics(self.errors));
        }
        let place_of: Vec<Option<usize>> = (0..f.rows)
            .flat_map(|r| (0..f.columns).map(move |c| Hex::new(c, r)))
            .map(|h| Map::find_place_at(&places, h))
            .collect();
        let river_bits: Vec<u8> = (0..f.rows)
            .flat_map(|r| (0..f.columns).map(move |c| Hex::new(c, r)))
            .map(|h| {
                Direction::ALL
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| river_sides.contains_key(&Hexside::new(h, **d)))
                    .fold(0u8, |b, (k, _)| b | (1 << k))
            })
            .collect();
        Ok(Map {
            place_of,
            river_bits,
            land_routes: Default::default(),
            hex_table: Default::default(),
            name: f.name.clone(),
            columns: f.columns,
            rows: f.rows,
            terrain,
            souakim,
            wadis,
            places,
            by_name,
            rivers,
            river_sides,
            cataracts,
            railways,
            track,
        })
    }

    fn terrain(&mut self) -> Vec<Terrain> {
        let f = self.file;
        let mut out = vec![Terrain::Clear; (f.columns * f.rows) as usize];
        let src = self.src;
        let first_line = || src.line_of("terrain", 1).unwrap_or(1);
        if f.terrain.len() != f.rows as usize {
            let line = Spot::Line(Some(first_line()));
            self.err(
                line,
                "terrain".into(),
                format!(
                    "{} rows of terrain for a map of {} rows",
                    f.terrain.len(),
                    f.rows
                ),
                "write one string per row, row 00 first",
            );
        }
        for (r, row) in f.terrain.iter().enumerate().take(f.rows as usize) {
            let n = row.chars().count();
            let quoted = format!("\"{row}\"");
            let line = || Spot::Line(src.line_of(&quoted, first_line()));
            if n != f.columns as usize {
                let line = line();
                self.err(
                    line,
                    format!("terrain[{r}]"),
                    format!(
                        "row {r:02} has {n} hexes, the map has {} columns",
                        f.columns
                    ),
                    "every terrain row must have one character per column",
                );
                continue;
            }
            for (c, ch) in row.chars().enumerate() {
                match Terrain::from_char(ch) {
                    Some(t) => out[r * f.columns as usize + c] = t,
                    None => self.err(
                        line(),
                        format!("terrain[{r}]"),
                        format!("unknown terrain `{ch}` at hex {c:02}{r:02}"),
                        "use '.' clear, 'h' hills, 'm' mountains or '~' sea",
                    ),
                }
            }
        }
        out
    }

    fn rects(&mut self, rects: &[HexRect], name: &str) -> Vec<bool> {
        let f = self.file;
        let mut out = vec![false; (f.columns * f.rows) as usize];
        for (i, rect) in rects.iter().enumerate() {
            let from = rect.from.to_string();
            let line = Spot::Str(&from);
            for hex in [rect.from, rect.to] {
                if !self.on_map(hex) {
                    let hint = self.off_map_hint();
                    self.err(
                        line,
                        format!("{name}[{i}]"),
                        format!("hex {hex} is off the map"),
                        &hint,
                    );
                }
            }
            for r in rect.from.row.max(0)..=rect.to.row.min(f.rows - 1) {
                for c in rect.from.col.max(0)..=rect.to.col.min(f.columns - 1) {
                    out[(r * f.columns + c) as usize] = true;
                }
            }
        }
        out
    }

    fn places(&mut self, terrain: &[Terrain]) -> (Vec<Place>, BTreeMap<String, usize>) {
        let mut places = Vec::new();
        let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
        let mut settlement_at: BTreeMap<Hex, String> = BTreeMap::new();
        for (i, p) in self.file.places.iter().enumerate() {
            let line = Spot::Str(&p.name);
            let field = format!("places[{i}]");
            if !self.on_map(p.hex) {
                let hint = self.off_map_hint();
                self.err(
                    line,
                    format!("{field}.hex"),
                    format!("{} stands at {}, off the map", p.name, p.hex),
                    &hint,
                );
                continue;
            }
            let t = terrain[(p.hex.row * self.file.columns + p.hex.col) as usize];
            if t == Terrain::Sea {
                self.err(
                    line,
                    format!("{field}.hex"),
                    format!("{} stands at {}, a sea hex", p.name, p.hex),
                    "move the place to a land hex, or change the hex's terrain",
                );
            }
            if p.kind.is_settlement() {
                if let Some(other) = settlement_at.get(&p.hex) {
                    self.err(
                        line,
                        format!("{field}.hex"),
                        format!(
                            "{} and {other} are both settlements in hex {}",
                            p.name, p.hex
                        ),
                        "a hex holds at most one town, village or oasis; move one of them",
                    );
                } else {
                    settlement_at.insert(p.hex, p.name.clone());
                }
            }
            for (j, n) in std::iter::once(&p.name).chain(&p.aliases).enumerate() {
                let key = name_key(n);
                let f = if j == 0 {
                    format!("{field}.name")
                } else {
                    format!("{field}.aliases[{}]", j - 1)
                };
                if key.is_empty() {
                    self.err(
                        line,
                        f,
                        "an empty name".into(),
                        "give the place a name with letters",
                    );
                } else if key.len() == 4 && key.bytes().all(|b| b.is_ascii_digit()) {
                    self.err(
                        line,
                        f,
                        format!("`{n}` would read as a hex label"),
                        "use a name with letters",
                    );
                } else if let Some(&prev) = by_name.get(&key) {
                    let other = places
                        .get(prev)
                        .map_or(p.name.as_str(), |o: &Place| o.name.as_str());
                    let msg = format!("`{n}` also names {other}");
                    self.err(line, f, msg, "every name and alias must be unique");
                } else {
                    by_name.insert(key, places.len());
                }
            }
            places.push(Place {
                name: p.name.clone(),
                hex: p.hex,
                kind: p.kind,
                aliases: p.aliases.clone(),
            });
        }
        (places, by_name)
    }

    fn hexside(&mut self, text: &str, field: String, anchor: &str) -> Option<Hexside> {
        let line = Spot::In(anchor, text);
        match text.parse::<Hexside>() {
            Ok(s) => {
                let (a, b) = s.hexes();
                if !self.on_map(a) && !self.on_map(b) {
                    let hint = self.off_map_hint();
                    self.err(line, field, format!("hexside {text} is off the map"), &hint);
                    None
                } else {
                    Some(s)
                }
            }
            Err(e) => {
                self.err(
                    line,
                    field,
                    e.to_string(),
                    "write a hexside as CCRR/D, such as 1942/N",
                );
                None
            }
        }
    }

    fn rivers(&mut self) -> (Vec<River>, HashMap<Hexside, RiverSide>) {
        let mut rivers = Vec::new();
        let mut sides: HashMap<Hexside, RiverSide> = HashMap::default();
        let names: Vec<String> = self.file.rivers.iter().map(|r| r.name.clone()).collect();
        for (ri, r) in self.file.rivers.iter().enumerate() {
            let rline = Spot::Str(&r.name);
            let mut chain: Vec<Hexside> = Vec::new();
            if names[..ri].iter().any(|n| n.eq_ignore_ascii_case(&r.name)) {
                self.err(
                    rline,
                    format!("rivers[{ri}].name"),
                    format!("two rivers are called {}", r.name),
                    "rename one",
                );
            }
            for (qi, reach) in r.reaches.iter().enumerate() {
                for (si, text) in reach.hexsides.iter().enumerate() {
                    let field = format!("rivers[{ri}].reaches[{qi}].hexsides[{si}]");
                    let Some(side) = self.hexside(text, field.clone(), &r.name) else {
                        continue;
                    };
                    let line = Spot::In(&r.name, text);
                    if let Some(&prev) = chain.last()
                        && !prev.touches(side)
                    {
                        self.err(
                                line,
                                field.clone(),
                                format!("{} does not join up: {text} does not touch {prev}, the hexside before it", r.name),
                                "consecutive hexsides of a river must share a corner; add the missing hexsides between them",
                            );
                    }
                    if let Some(other) = sides.get(&side) {
                        let on = &names[other.river.0];
                        self.err(
                            line,
                            field,
                            format!("hexside {side} is already on the {on}"),
                            "a hexside carries at most one river",
                        );
                        continue;
                    }
                    sides.insert(
                        side,
                        RiverSide {
                            river: RiverId(ri),
                            order: chain.len(),
                            class: reach.class,
                            cataract: None,
                        },
                    );
                    chain.push(side);
                }
            }
            if chain.is_empty() {
                self.err(
                    rline,
                    format!("rivers[{ri}].reaches"),
                    format!("the {} has no hexsides", r.name),
                    "list its hexsides from source to mouth",
                );
            }
            rivers.push(River {
                name: r.name.clone(),
                flows_into: None,
                hexsides: chain,
            });
        }
        for (ri, r) in self.file.rivers.iter().enumerate() {
            let Some(into) = &r.flows_into else { continue };
            let line = Spot::In(&r.name, into);
            let Some(target) = names.iter().position(|n| n.eq_ignore_ascii_case(into)) else {
                let hint = match suggest(into, names.iter().map(String::as_str)) {
                    Some(s) => format!("did you mean {s}?"),
                    None => "name a river defined in this file".into(),
                };
                self.err(
                    line,
                    format!("rivers[{ri}].flows_into"),
                    format!("no river called {into}"),
                    &hint,
                );
                continue;
            };
            let mouth = rivers[ri].hexsides.last().copied();
            let joins = mouth.is_some_and(|m| rivers[target].hexsides.iter().any(|s| s.touches(m)));
            if !joins {
                self.err(
                    line,
                    format!("rivers[{ri}].flows_into"),
                    format!(
                        "the {}'s last hexside does not touch the {}",
                        r.name, rivers[target].name
                    ),
                    "end the river on a hexside that shares a corner with the river it flows into",
                );
            }
            rivers[ri].flows_into = Some(RiverId(target));
        }
        (rivers, sides)
    }

    fn cataracts(&mut self, sides: &mut HashMap<Hexside, RiverSide>) -> Vec<Cataract> {
        let mut out = Vec::new();
        for (ci, c) in self.file.cataracts.iter().enumerate() {
            let mut list = Vec::new();
            for (si, text) in c.hexsides.iter().enumerate() {
                let field = format!("cataracts[{ci}].hexsides[{si}]");
                let Some(side) = self.hexside(text, field.clone(), &c.name) else {
                    continue;
                };
                match sides.get_mut(&side) {
                    Some(rs) => {
                        rs.cataract = Some(ci);
                        list.push(side);
                    }
                    None => {
                        let line = Spot::In(&c.name, text);
                        self.err(
                            line,
                            field,
                            format!("{} at {side} is not on a river hexside", c.name),
                            "cataracts stand on river hexsides; check the river's list",
                        );
                    }
                }
            }
            out.push(Cataract {
                name: c.name.clone(),
                hexsides: list,
            });
        }
        out
    }

    fn railways(&mut self, terrain: &[Terrain]) -> (Vec<Railway>, HashMap<Hex, Track>) {
        let mut out = Vec::new();
        let mut track = HashMap::default();
        for (li, l) in self.file.railways.iter().enumerate() {
            let mut hexes: Vec<Hex> = Vec::new();
            let mut seen = BTreeSet::new();
            for (hi, text) in l.hexes.iter().enumerate() {
                let field = format!("railways[{li}].hexes[{hi}]");
                let line = Spot::In(&l.name, text);
                let hex = match text.parse::<Hex>() {
                    Ok(h) if self.on_map(h) => h,
                    Ok(h) => {
                        let hint = self.off_map_hint();
                        self.err(line, field, format!("hex {h} is off the map"), &hint);
                        continue;
                    }
                    Err(e) => {
                        self.err(
                            line,
                            field,
                            e.to_string(),
                            "write hexes as four digits, column then row",
                        );
                        continue;
                    }
                };
                if terrain[(hex.row * self.file.columns + hex.col) as usize] == Terrain::Sea {
                    self.err(
                        line,
                        field.clone(),
                        format!("track through sea hex {hex}"),
                        "railways run on land",
                    );
                }
                if let Some(&prev) = hexes.last()
                    && prev.distance(hex) != 1
                {
                    self.err(
                        line,
                        field.clone(),
                        format!("{hex} is not next to {prev}, the hex before it"),
                        "railway hexes must be listed in order, each next to the one before",
                    );
                }
                if !seen.insert(hex) {
                    self.err(
                        line,
                        field,
                        format!("hex {hex} appears twice on the {}", l.name),
                        "a line passes each hex once",
                    );
                }
                hexes.push(hex);
            }
            if l.hexes.is_empty() {
                let line = Spot::Str(&l.name);
                self.err(
                    line,
                    format!("railways[{li}].hexes"),
                    format!("the {} has no hexes", l.name),
                    "list the hexes of the line from its start",
                );
            }
            if l.built > hexes.len() {
                let line = Spot::Str(&l.name);
                self.err(
                    line,
                    format!("railways[{li}].built"),
                    format!("{} hexes built of a line of {}", l.built, hexes.len()),
                    "built counts hexes from the start of the line",
                );
            }
            for (i, &h) in hexes.iter().enumerate() {
                let t = if i < l.built {
                    Track::Built
                } else {
                    Track::Marked
                };
                let e = track.entry(h).or_insert(t);
                if t == Track::Built {
                    *e = Track::Built;
                }
            }
            out.push(Railway {
                name: l.name.clone(),
                hexes,
                built: l.built.min(l.hexes.len()),
            });
        }
        (out, track)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"Map(
    name: "test",
    columns: 4,
    rows: 3,
    terrain: [
        "..h~",
        ".m.~",
        "...~",
    ],
    souakim_extension: [(from: "0200", to: "0302")],
    places: [
        (name: "Alpha", hex: "0000", kind: Town, aliases: ["Alfa"]),
        (name: "Beta", hex: "0201", kind: Village),
    ],
    rivers: [
        (name: "Trunk", reaches: [(class: Navigable, hexsides: ["0101/N", "0101/NE", "0101/SE"])]),
        (name: "Branch", flows_into: Some("Trunk"), reaches: [(class: Seasonal, hexsides: ["0002/N", "0001/SE"])]),
    ],
    cataracts: [(name: "Rapids", hexsides: ["0101/NE"])],
    railways: [(name: "Line", hexes: ["0000", "0100", "0200"], built: 2)],
)"#;

    fn load(text: &str) -> Result<Map, Diagnostics> {
        Map::from_source(&Source::new("test.ron", text))
    }

    #[test]
    fn a_good_map_loads_with_its_features() {
        let m = load(SMALL).unwrap();
        assert_eq!(m.terrain(Hex::new(2, 0)), Some(Terrain::Hills));
        assert_eq!(m.terrain(Hex::new(3, 0)), Some(Terrain::Sea));
        assert_eq!(m.resolve("alfa"), Ok(Hex::new(0, 0)));
        assert_eq!(m.resolve("0201"), Ok(Hex::new(2, 1)));
        assert!(m.in_souakim_extension(Hex::new(3, 2)));
        assert!(!m.in_souakim_extension(Hex::new(1, 2)));
        let side: Hexside = "0101/NE".parse().unwrap();
        let rs = m.river_at(side).unwrap();
        assert_eq!(rs.class, RiverClass::Navigable);
        assert_eq!(rs.order, 1);
        assert_eq!(rs.cataract, Some(0));
        assert!(m.crosses_river(Hex::new(1, 1), Hex::new(1, 0)));
        assert!(!m.crosses_river(Hex::new(0, 0), Hex::new(1, 0)));
        assert_eq!(m.track(Hex::new(1, 0)), Some(Track::Built));
        assert_eq!(m.track(Hex::new(2, 0)), Some(Track::Marked));
        assert_eq!(m.rivers()[1].flows_into, Some(RiverId(0)));
    }

    #[test]
    fn unknown_places_get_a_suggestion() {
        let m = load(SMALL).unwrap();
        let e = m.resolve("Alpah").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no place called Alpah; did you mean Alpha (0000)?"
        );
        assert!(matches!(m.resolve("0909"), Err(LookupError::OffMap(..))));
    }

    fn errors(text: &str) -> Vec<String> {
        load(text)
            .unwrap_err()
            .0
            .iter()
            .map(|d| d.to_string())
            .collect()
    }

    #[test]
    fn a_town_in_the_sea_is_reported_with_line_and_field() {
        let bad = SMALL.replace(r#"hex: "0201", kind"#, r#"hex: "0301", kind"#);
        let e = errors(&bad);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("test.ron:13: places[1].hex: Beta stands at 0301, a sea hex"),
            "{}",
            e[0]
        );
        assert!(e[0].contains("how to fix"));
    }

    #[test]
    fn river_hexsides_that_do_not_join_up_are_reported() {
        let bad = SMALL.replace(r#""0101/N", "0101/NE""#, r#""0101/N", "0101/S""#);
        let e = errors(&bad);
        assert!(
            e.iter()
                .any(|m| m.contains("Trunk does not join up: 0101/S")),
            "{e:?}"
        );
    }

    #[test]
    fn bad_terrain_rows_and_unknown_rivers_are_reported() {
        let bad = SMALL
            .replace(r#"".m.~""#, r#"".x.""#)
            .replace(r#"Some("Trunk")"#, r#"Some("Trunc")"#);
        let e = errors(&bad);
        assert!(
            e.iter()
                .any(|m| m.contains("terrain[1]: row 01 has 3 hexes")),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m.contains("no river called Trunc") && m.contains("did you mean Trunk?")),
            "{e:?}"
        );
    }

    #[test]
    fn syntax_errors_point_at_their_line() {
        let bad = SMALL.replace("kind: Village", "kind: Hamlet");
        let e = errors(&bad);
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("test.ron:13:"), "{}", e[0]);
    }

    #[test]
    fn railways_must_be_contiguous_and_cataracts_on_rivers() {
        let bad = SMALL
            .replace(
                r#"["0000", "0100", "0200"], built: 2"#,
                r#"["0000", "0200"], built: 3"#,
            )
            .replace(r#"hexsides: ["0101/NE"])"#, r#"hexsides: ["0202/N"])"#);
        let e = errors(&bad);
        assert!(
            e.iter().any(|m| m.contains("0200 is not next to 0000")),
            "{e:?}"
        );
        assert!(
            e.iter().any(|m| m.contains("3 hexes built of a line of 2")),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m.contains("Rapids at 0202/N is not on a river hexside")),
            "{e:?}"
        );
    }

    /// The hex table answers as the map does: terrain costs, river
    /// crossings, neighbours and the river orders of each hex, on the
    /// shipped map and on a small one.
    #[test]
    fn the_hex_table_answers_as_the_map() {
        let shipped = crate::scenario::DataSet::embedded()
            .expect("the embedded data loads")
            .map;
        let small = load(SMALL).expect("the small map loads");
        for map in [&small, &*shipped] {
            let table = map.hex_table();
            assert_eq!(table.len(), map.hexes().count());
            for h in map.hexes() {
                let i = table.index(h).expect("a hex of the map");
                assert_eq!(table.hex(i), h);
                let cell = table.cells()[i];
                let enter = map.terrain(h).and_then(Terrain::entry_cost).unwrap_or(0);
                assert_eq!(u32::from(cell.enter), enter, "{h}");
                for (d, dir) in Direction::ALL.into_iter().enumerate() {
                    let n = h.neighbour(dir);
                    let next = table.next()[i][d];
                    match table.index(n) {
                        Some(j) => {
                            assert_eq!(next as usize, j);
                            assert_eq!(
                                cell.rivers & (1 << d) != 0,
                                map.crosses_river(h, n),
                                "{h} to {n}"
                            );
                        }
                        None => assert_eq!(next, HexTable::OFF),
                    }
                }
                for (r, _) in map.rivers().iter().enumerate() {
                    for limit in [0, 1, 5, 20, 60, 120, 400] {
                        let sides = map
                            .river_sides_of(h)
                            .iter()
                            .any(|(_, s)| s.river == RiverId(r) && s.order >= limit);
                        assert_eq!(table.beside_river_from(i, RiverId(r), limit), sides);
                    }
                }
            }
            assert_eq!(table.index(Hex::new(-1, 0)), None);
            assert_eq!(table.index(Hex::new(map.columns(), 0)), None);
        }
    }
}
