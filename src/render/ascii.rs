//! ASCII maps for email: an overview of the whole theatre (one character a
//! hex) and sector maps at a larger scale that draw every hex, with rivers
//! on hexsides, cataracts, railways, terrain, settlements and stacks.
//! Output is plain ASCII and deterministic.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;

use crate::geo::map::RiverSide;
use crate::geo::{Direction, Hex, Map, PlaceKind, RiverClass, Terrain, Track};
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, Stack};

/// A character canvas.
struct Canvas {
    w: usize,
    cells: Vec<Vec<char>>,
}

impl Canvas {
    fn new(w: usize, h: usize) -> Self {
        Canvas {
            w,
            cells: vec![vec![' '; w]; h],
        }
    }
    fn put(&mut self, x: i64, y: i64, c: char) {
        if x >= 0 && y >= 0 && (y as usize) < self.cells.len() && (x as usize) < self.w {
            self.cells[y as usize][x as usize] = c;
        }
    }
    fn get(&self, x: i64, y: i64) -> Option<char> {
        if x < 0 || y < 0 {
            return None;
        }
        self.cells
            .get(y as usize)
            .and_then(|r| r.get(x as usize))
            .copied()
    }
    fn text(&mut self, x: i64, y: i64, s: &str) {
        for (i, c) in s.chars().enumerate() {
            self.put(x + i as i64, y, c);
        }
    }
    fn render(&self) -> String {
        let mut out = String::new();
        for row in &self.cells {
            let line: String = row.iter().collect();
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Every stack on the map by its hex, each hex's stacks in the order
/// [`GameState::stacks`] gives them: built once a map, so drawing a map
/// is linear in its hexes and the counters (not hexes times counters).
type StacksByHex<'a> = BTreeMap<Hex, Vec<Stack<'a>>>;

fn stacks_by_hex(state: &GameState) -> StacksByHex<'_> {
    let mut by: StacksByHex<'_> = BTreeMap::new();
    for s in state.stacks() {
        by.entry(s.hex).or_default().push(s);
    }
    by
}

/// The stack marker for a hex: side letter, non-leader unit count, `*` if a
/// leader is present (`E12*`).
fn stack_marks(by_hex: &StacksByHex<'_>, hex: Hex) -> Option<String> {
    let stacks = by_hex.get(&hex).filter(|s| !s.is_empty())?;
    let parts: Vec<String> = stacks
        .iter()
        .map(|s| {
            let side = match s.side {
                Side::Egyptian => 'E',
                Side::Mahdist => 'M',
            };
            let star = if s.leaders.is_empty() { "" } else { "*" };
            format!("{side}{}{star}", s.units.len())
        })
        .collect();
    Some(parts.join("/"))
}

/// The whole theatre, one character a hex, no wider than 100 columns.
pub fn overview(scn: &Scenario, state: Option<&GameState>) -> String {
    let map = &scn.map;
    let left = 3i64;
    let width = 100usize;
    let top = 2i64;
    let mut cv = Canvas::new(width, map.rows() as usize + top as usize);
    for c in 0..map.columns() {
        if c % 5 == 0 {
            cv.text(left + i64::from(c), 0, &format!("{:02}", c));
            cv.put(left + i64::from(c), 1, '|');
        }
    }
    let mut locked = vec![vec![false; width]; cv.cells.len()];
    let by_hex = state.map(stacks_by_hex);
    for hex in map.hexes() {
        let x = left + i64::from(hex.col);
        let y = top + i64::from(hex.row);
        if hex.col == 0 {
            cv.text(0, y, &format!("{:02}", hex.row));
        }
        let mut ch = match map.terrain(hex) {
            Some(Terrain::Clear) | None => '.',
            Some(Terrain::Hills) => '^',
            Some(Terrain::Mountains) => 'A',
            Some(Terrain::Sea) => ' ',
        };
        // A hex with a river on one of its sides drawn here shows the
        // river, by its kind, as the sector maps draw the hexside.
        if let Some(c) = [Direction::N, Direction::NE, Direction::SE]
            .iter()
            .filter_map(|&d| map.river_at(hex.side(d)))
            .map(river_char)
            .min_by_key(|c| RIVER_ORDER.iter().position(|r| r == c))
        {
            ch = c;
        }
        match map.track(hex) {
            Some(Track::Built) => ch = '#',
            Some(Track::Marked) => ch = '+',
            None => {}
        }
        if let Some(p) = map.settlement_at(hex) {
            ch = match p.kind {
                PlaceKind::Town => 'O',
                PlaceKind::Village => 'o',
                _ => '%',
            };
            locked[y as usize][x as usize] = true;
        }
        if let Some(by_hex) = &by_hex
            && let Some(m) = state_letter(by_hex, hex)
        {
            ch = m;
            locked[y as usize][x as usize] = true;
        }
        cv.put(x, y, ch);
    }
    // Town names to the right of their marker where they fit.
    let mut towns: Vec<_> = map
        .places()
        .iter()
        .filter(|p| p.kind == PlaceKind::Town)
        .collect();
    towns.sort_by_key(|p| (p.hex.row, p.hex.col));
    for p in towns {
        let x0 = left + i64::from(p.hex.col) + 1;
        let y = top + i64::from(p.hex.row);
        let label = format!(" {}", p.name);
        let n = label.chars().count() as i64;
        let free = (0..=n).all(|i| {
            let x = x0 + i;
            (x as usize) < width && !locked[y as usize][x as usize]
        });
        if free {
            cv.text(x0, y, &label);
            for i in 0..=n {
                locked[y as usize][(x0 + i) as usize] = true;
            }
        }
    }
    let mut out = format!(
        "{} - overview (one character a hex, about 10.5 miles)\n",
        map.name()
    );
    out.push_str(&cv.render());
    out.push_str(&key(OVERVIEW_KEY));
    out.push_str("     (a stack hides what is under it; a sector map shows all)\n");
    out
}

fn state_letter(by_hex: &StacksByHex<'_>, hex: Hex) -> Option<char> {
    let stacks = by_hex.get(&hex)?;
    stacks.first().map(|s| match s.side {
        Side::Egyptian => 'E',
        Side::Mahdist => 'M',
    })
}

/// Where a sector map is centred and how far it reaches.
#[derive(Clone, Copy, Debug)]
pub struct Sector {
    pub centre: Hex,
    /// Columns and rows shown either side of the centre.
    pub radius: i32,
}

/// Which river mark a hex of the overview shows when its sides differ:
/// the cataract first, then the most restrictive water.
const RIVER_ORDER: [char; 4] = ['X', '=', ':', '~'];

/// A map key: the terrain, rivers and railways, which both kinds of map
/// draw with the same symbols, then `rest`.
macro_rules! map_key {
    ($($rest:expr),* $(,)?) => {
        &[
            (".", "clear"),
            ("^", "hills"),
            ("A", "mountains"),
            ("(blank)", "sea"),
            ("~", "navigable river"),
            (":", "seasonal river (Nov-Feb)"),
            ("=", "unnavigable river"),
            ("X", "cataract"),
            ("#", "railway"),
            ("+", "railway that may be built"),
            $($rest),*
        ]
    };
}

/// The overview's symbols, one meaning each; where a sector map draws the
/// same thing it uses the same symbol ([`SECTOR_KEY`]).
pub const OVERVIEW_KEY: &[(&str, &str)] = map_key![
    ("O", "town"),
    ("o", "village"),
    ("%", "oasis"),
    ("E", "Egyptian stack"),
    ("M", "Mahdist stack"),
];

/// The sector maps' symbols. Each hex shows its number (column and row),
/// its place and its stack; rivers are drawn on the hexsides.
pub const SECTOR_KEY: &[(&str, &str)] = map_key![
    ("TOWN", "town"),
    ("Village", "village"),
    ("%Oasis", "oasis"),
    ("landmark", "landmark"),
    ("E", "Egyptian stack"),
    ("M", "Mahdist stack"),
    ("12", "units in the stack"),
    ("*", "with a leader"),
];

/// A key as printed: "Key: " then `symbol meaning` entries two spaces
/// apart, wrapped before 80 columns.
fn key(entries: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut line = String::from("Key:");
    for (symbol, meaning) in entries {
        let entry = format!("{symbol} {meaning}");
        if line.len() + 2 + entry.len() > 78 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("    ");
        }
        line.push_str("  ");
        line.push_str(&entry);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// A key's entries read back from a map's text: every line from the one
/// starting `Key:` while lines are indented, split at double spaces.
pub fn parse_key(map_text: &str) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    let mut in_key = false;
    for line in map_text.lines() {
        let body = if let Some(rest) = line.strip_prefix("Key:") {
            in_key = true;
            rest
        } else if in_key && line.starts_with("    ") && !line.trim_start().starts_with('(') {
            line
        } else {
            in_key = false;
            continue;
        };
        for entry in body.split("  ").map(str::trim).filter(|e| !e.is_empty()) {
            if let Some((symbol, meaning)) = entry.split_once(' ') {
                entries.push((symbol.to_string(), meaning.to_string()));
            }
        }
    }
    entries
}

fn river_char(rs: RiverSide) -> char {
    if rs.cataract.is_some() {
        return 'X';
    }
    match rs.class {
        RiverClass::Navigable => '~',
        RiverClass::Seasonal => ':',
        RiverClass::Unnavigable => '=',
    }
}

/// A sector of the map drawn hex by hex, with a legend and the stacks in
/// it listed in full.
pub fn sector(scn: &Scenario, state: Option<&GameState>, sector: Sector) -> String {
    sector_map(scn, state, sector, true)
}

/// [`sector`], with its legend (`legend`) or without it, for a mail that
/// shows several sectors and gives the legend once ([`sector_legend`]).
pub fn sector_map(
    scn: &Scenario,
    state: Option<&GameState>,
    sector: Sector,
    legend: bool,
) -> String {
    let map = &scn.map;
    let c0 = (sector.centre.col - sector.radius).max(0);
    let c1 = (sector.centre.col + sector.radius).min(map.columns() - 1);
    let r0 = (sector.centre.row - sector.radius).max(0);
    let r1 = (sector.centre.row + sector.radius).min(map.rows() - 1);
    let left = 3i64;
    let top = 1i64;
    let ncols = (c1 - c0 + 1) as usize;
    let nrows = (r1 - r0 + 1) as usize;
    let width = left as usize + ncols * 6 + 3;
    let height = top as usize + nrows * 4 + 4;
    let mut cv = Canvas::new(width, height);
    let origin = |h: Hex| -> (i64, i64) {
        let x = left + i64::from(h.col - c0) * 6;
        let y = top + i64::from(h.row - r0) * 4 + if h.col & 1 == 1 { 2 } else { 0 };
        (x, y)
    };
    // Column numbers above, row numbers at the left.
    for c in c0..=c1 {
        let (x, _) = origin(Hex::new(c, r0));
        cv.text(x + 3, 0, &format!("{c:02}"));
    }
    for r in r0..=r1 {
        let (_, y) = origin(Hex::new(c0 - (c0 & 1), r));
        cv.text(0, y + 2, &format!("{r:02}"));
    }
    let hexes: Vec<Hex> = (r0..=r1)
        .flat_map(|r| (c0..=c1).map(move |c| Hex::new(c, r)))
        .collect();
    let by_hex = state.map(stacks_by_hex);
    // Outlines first, then contents, then rivers on top.
    for &h in &hexes {
        let (x, y) = origin(h);
        cv.text(x + 2, y, "____");
        cv.put(x + 1, y + 1, '/');
        cv.put(x + 6, y + 1, '\\');
        cv.put(x, y + 2, '/');
        cv.put(x + 7, y + 2, '\\');
        cv.put(x, y + 3, '\\');
        cv.put(x + 7, y + 3, '/');
        cv.put(x + 1, y + 4, '\\');
        cv.text(x + 2, y + 4, "____");
        cv.put(x + 6, y + 4, '/');
    }
    for &h in &hexes {
        let (x, y) = origin(h);
        let terrain = map.terrain(h).unwrap_or(Terrain::Clear);
        let fill = match terrain {
            Terrain::Clear => " .  . ",
            Terrain::Hills => " ^  ^ ",
            Terrain::Mountains => " A  A ",
            Terrain::Sea => "      ",
        };
        cv.text(x + 2, y + 1, &h.to_string());
        let name_row = match map.place_at(h) {
            Some(p) => abbreviate(&p.name, p.kind),
            None => fill.to_string(),
        };
        cv.text(x + 1, y + 2, &name_row);
        let third = match by_hex.as_ref().and_then(|s| stack_marks(s, h)) {
            Some(m) => format!("{m:^6}"),
            None => match map.track(h) {
                Some(Track::Built) => "######".to_string(),
                Some(Track::Marked) => "++++++".to_string(),
                None => fill.to_string(),
            },
        };
        cv.text(x + 1, y + 3, &third.chars().take(6).collect::<String>());
    }
    for &h in &hexes {
        let (x, y) = origin(h);
        for d in Direction::ALL {
            let Some(rs) = map.river_at(h.side(d)) else {
                continue;
            };
            let c = river_char(rs);
            let cells: &[(i64, i64)] = match d {
                Direction::N => &[(2, 0), (3, 0), (4, 0), (5, 0)],
                Direction::NE => &[(6, 1), (7, 2)],
                Direction::SE => &[(7, 3), (6, 4)],
                Direction::S => &[(2, 4), (3, 4), (4, 4), (5, 4)],
                Direction::SW => &[(0, 3), (1, 4)],
                Direction::NW => &[(1, 1), (0, 2)],
            };
            for (dx, dy) in cells {
                if cv.get(x + dx, y + dy).is_some() {
                    cv.put(x + dx, y + dy, c);
                }
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} - sector around {}, columns {c0:02}-{c1:02}, rows {r0:02}-{r1:02}",
        map.name(),
        map.describe(sector.centre)
    );
    out.push_str(&cv.render());
    if legend {
        out.push_str(&sector_legend());
    }
    if let Some(st) = state {
        out.push_str(&stack_list(scn, st, &hexes));
    }
    out
}

fn abbreviate(name: &str, kind: PlaceKind) -> String {
    let short: String = name
        .chars()
        .filter(|c| *c != ' ' && *c != '.')
        .take(6)
        .collect();
    let s = match kind {
        PlaceKind::Town => short.to_uppercase(),
        PlaceKind::Landmark => short.to_lowercase(),
        PlaceKind::Village => short,
        _ => format!("%{}", short.chars().take(5).collect::<String>()),
    };
    format!("{s:^6}")
}

/// What a sector map's marks mean.
pub fn sector_legend() -> String {
    format!(
        "Each hex shows its number (column and row), its place and its stack\n(E12* is an Egyptian stack of 12 units with a leader); rivers run on\nthe hexsides.\n{}",
        key(SECTOR_KEY)
    )
}

/// Every stack among `hexes`, in full.
pub fn stack_list(scn: &Scenario, state: &GameState, hexes: &[Hex]) -> String {
    let mut out = String::new();
    let wanted: HashSet<Hex> = hexes.iter().copied().collect();
    let stacks: Vec<_> = state
        .stacks()
        .into_iter()
        .filter(|s| wanted.contains(&s.hex))
        .collect();
    if stacks.is_empty() {
        return out;
    }
    out.push_str("Stacks:\n");
    for s in stacks {
        let line = format!(
            "{} {}: {}",
            scn.map.describe(s.hex),
            s.side,
            describe_units(scn, &s)
        );
        out.push_str(&crate::words::hanging(&line, 76, "  ", "      "));
    }
    out
}

/// "4 Egyptian R infantry, 2 guns; leaders Gordon, J. Stewart".
pub fn describe_units(scn: &Scenario, s: &crate::state::Stack<'_>) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for u in &s.units {
        let name = scn
            .units
            .get(&u.unit_type)
            .map_or(u.unit_type.to_string(), |t| t.name.clone());
        let label = match &u.name {
            Some(n) => format!(
                "{n} ({}{})",
                u.strength,
                scn.units
                    .get(&u.unit_type)
                    .map_or('?', |t| t.quality.letter())
            ),
            None => name,
        };
        match counts.iter_mut().find(|(n, _)| *n == label) {
            Some(e) => e.1 += 1,
            None => counts.push((label, 1)),
        }
    }
    let mut parts: Vec<String> = counts
        .into_iter()
        .map(|(n, c)| if c == 1 { n } else { format!("{c} x {n}") })
        .collect();
    if parts.is_empty() {
        parts.push("no units".into());
    }
    let mut text = parts.join(", ");
    if !s.leaders.is_empty() {
        let names: Vec<&str> = s.leaders.iter().map(|l| l.name.as_str()).collect();
        let _ = write!(text, "; leaders {}", names.join(", "));
    }
    text
}

/// A land route as printed by `dervish route`.
pub fn route_text(map: &Map, route: &crate::geo::route::Route) -> String {
    let mut out = String::new();
    let mut spent = 0;
    for (i, h) in route.hexes.iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "  start  {}", map.describe(*h));
            continue;
        }
        let prev = route.hexes[i - 1];
        let cost = crate::geo::route::step_cost(map, prev, *h, &|_| false).unwrap_or(0);
        spent += cost;
        let terrain = map.terrain(*h).map_or("?", Terrain::name);
        let river = if map.crosses_river(prev, *h) {
            ", crosses river +3"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {:>3}  {} ({terrain}{river}) {cost} MP, total {spent}",
            i,
            map.describe(*h)
        );
    }
    let _ = writeln!(
        out,
        "{}, {}",
        crate::words::count(route.steps(), "hex", "hexes"),
        crate::words::count(route.cost, "movement point", "movement points")
    );
    out
}
