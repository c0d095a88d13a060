//! Scenario data: the map, unit values, tables, random events and the two
//! scenarios, loaded from RON and checked together.
//!
//! The data ships inside the binary ([`DataFiles::embedded`]); a game master
//! may point at a folder of edited files instead ([`DataFiles::from_dir`]).
//! [`DataFiles::load`] checks everything and reports every problem with its
//! file, line and field.

mod cache;
pub mod check;
pub mod definition;
pub mod events;
pub mod reactions;
pub mod tables;
pub mod units;
pub mod zone;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub use definition::{ScenarioFile, Zone};
pub use events::EventsFile;
pub use tables::TablesFile;
pub use units::{Leader, Nation, Quality, Side, UnitKind, UnitType, UnitsFile};

use crate::diag::{Diagnostic, Diagnostics};
use crate::geo::Map;

/// The kinds of data file, told apart by their first word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Map,
    Units,
    Tables,
    Events,
    Scenario,
}

impl FileKind {
    /// The kind of a file from its text: the struct name it starts with.
    pub fn detect(text: &str) -> Option<FileKind> {
        let body: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let word: String = body
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        match word.as_str() {
            "Map" => Some(FileKind::Map),
            "Units" => Some(FileKind::Units),
            "Tables" => Some(FileKind::Tables),
            "Events" => Some(FileKind::Events),
            "Scenario" => Some(FileKind::Scenario),
            _ => None,
        }
    }
}

/// A named text: a file's name as shown in messages and its contents.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct NamedText {
    pub name: String,
    pub text: String,
}

impl NamedText {
    fn new(name: &str, text: &str) -> Self {
        NamedText {
            name: name.to_string(),
            text: text.to_string(),
        }
    }
}

/// The texts of every data file, before checking.
#[derive(Clone, Debug)]
pub struct DataFiles {
    pub map: NamedText,
    pub units: NamedText,
    pub tables: NamedText,
    pub events: NamedText,
    pub scenarios: Vec<NamedText>,
    /// The seed's Mahdist reaction and ambush tables.
    pub reactions: NamedText,
    /// Files beside the data that the engine does not play with but the
    /// programmed players, `dervish balance` and the battle briefs read
    /// (`opponents.ron`, `history.ron`, `tabletop.ron`), by file name,
    /// when a folder has them.
    pub extras: BTreeMap<String, NamedText>,
}

/// The files of a data folder that are neither a table nor a scenario:
/// the programmed players' data, the history `dervish balance` compares
/// with, the battle briefs' conversion data
/// (`battle::tabletop::Tabletop::parse` reads it) and the ETYFW
/// resolver's tables (`battle::etyfw::Etyfw::from_ron`).
pub const EXTRA_FILES: [&str; 4] = ["opponents.ron", "history.ron", "tabletop.ron", "etyfw.ron"];

impl DataFiles {
    /// The data that ships with Dervish.
    pub fn embedded() -> DataFiles {
        DataFiles {
            map: NamedText::new("scenarios/map.ron", include_str!("../../scenarios/map.ron")),
            units: NamedText::new(
                "scenarios/units.ron",
                include_str!("../../scenarios/units.ron"),
            ),
            tables: NamedText::new(
                "scenarios/tables.ron",
                include_str!("../../scenarios/tables.ron"),
            ),
            events: NamedText::new(
                "scenarios/events.ron",
                include_str!("../../scenarios/events.ron"),
            ),
            scenarios: vec![
                NamedText::new(
                    "scenarios/el-obeid.ron",
                    include_str!("../../scenarios/el-obeid.ron"),
                ),
                NamedText::new(
                    "scenarios/khartoum.ron",
                    include_str!("../../scenarios/khartoum.ron"),
                ),
            ],
            reactions: NamedText::new("scenarios/reactions.ron", reactions::REACTIONS_RON),
            extras: BTreeMap::new(),
        }
    }

    /// An extra file of the folder ([`EXTRA_FILES`]), if it has one.
    pub fn extra(&self, name: &str) -> Option<&NamedText> {
        self.extras.get(name)
    }

    /// The data files of a folder: `map.ron`, `units.ron`, `tables.ron`,
    /// `events.ron`, `reactions.ron` (the shipped one if the folder has
    /// none), `opponents.ron`, `history.ron` and `tabletop.ron` if there,
    /// and every other `*.ron` as a scenario. A copy of the shipped `scenarios/` folder is
    /// such a folder.
    pub fn from_dir(dir: &Path) -> Result<DataFiles, Diagnostics> {
        let mut files = DataFiles {
            map: NamedText::new("", ""),
            units: NamedText::new("", ""),
            tables: NamedText::new("", ""),
            events: NamedText::new("", ""),
            scenarios: Vec::new(),
            reactions: NamedText::new("scenarios/reactions.ron", reactions::REACTIONS_RON),
            extras: BTreeMap::new(),
        };
        let read = |name: &str| -> Result<NamedText, Diagnostic> {
            let p = dir.join(name);
            let shown = p.display().to_string();
            std::fs::read_to_string(&p)
                .map(|t| NamedText {
                    name: shown.clone(),
                    text: t,
                })
                .map_err(|e| file_error(&shown, &format!("cannot read it: {e}")))
        };
        let mut errors = Vec::new();
        for (slot, name) in [
            (&mut files.map, "map.ron"),
            (&mut files.units, "units.ron"),
            (&mut files.tables, "tables.ron"),
            (&mut files.events, "events.ron"),
        ] {
            match read(name) {
                Ok(t) => *slot = t,
                Err(e) => errors.push(e),
            }
        }
        let mut others: Vec<String> = match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".ron"))
                .filter(|n| {
                    !["map.ron", "units.ron", "tables.ron", "events.ron"].contains(&n.as_str())
                })
                .collect(),
            Err(e) => {
                errors.push(file_error(
                    &dir.display().to_string(),
                    &format!("cannot list it: {e}"),
                ));
                Vec::new()
            }
        };
        others.sort();
        for n in others {
            match read(&n) {
                Ok(t) if n == "reactions.ron" => files.reactions = t,
                Ok(t) if EXTRA_FILES.contains(&n.as_str()) => {
                    files.extras.insert(n, t);
                }
                Ok(t) => files.scenarios.push(t),
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(files)
        } else {
            Err(Diagnostics(errors))
        }
    }

    /// Put a file in place of the one of its kind (a scenario replaces the
    /// scenario with the same id, or is added).
    pub fn replace(&mut self, file: NamedText) -> Result<FileKind, Diagnostic> {
        let kind = FileKind::detect(&file.text).ok_or_else(|| {
            let mut d = file_error(&file.name, "not a Dervish data file");
            d.hint =
                Some("a data file starts with Map(, Units(, Tables(, Events( or Scenario(".into());
            d
        })?;
        match kind {
            FileKind::Map => self.map = file,
            FileKind::Units => self.units = file,
            FileKind::Tables => self.tables = file,
            FileKind::Events => self.events = file,
            FileKind::Scenario => {
                let id = scenario_id(&file.text);
                match self
                    .scenarios
                    .iter()
                    .position(|s| id.is_some() && scenario_id(&s.text) == id)
                {
                    Some(i) => self.scenarios[i] = file,
                    None => self.scenarios.push(file),
                }
            }
        }
        Ok(kind)
    }

    /// Check every file and build the data set, or report every problem.
    pub fn load(&self) -> Result<DataSet, Diagnostics> {
        let mut set = check::load(self)?;
        set.etyfw = self.extras.get("etyfw.ron").cloned();
        for f in &self.scenarios {
            if let Some(id) = scenario_id(&f.text) {
                set.digests.insert(id, self.digest(f));
            }
        }
        Ok(set)
    }

    /// The SHA-256 of everything a game of scenario `file` is played
    /// with: the map, units, tables, events and the scenario file's texts,
    /// each preceded by its kind and length, so two data sets that play
    /// differently never share a digest and the file names do not matter.
    fn digest(&self, file: &NamedText) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for (kind, t) in [
            ("map", &self.map),
            ("units", &self.units),
            ("tables", &self.tables),
            ("events", &self.events),
            ("scenario", file),
        ] {
            h.update(format!("{kind} {}\n", t.text.len()).as_bytes());
            h.update(t.text.as_bytes());
        }
        // The reaction and ambush tables: a game with the ambush rule
        // plays with them.
        let reactions = &self.reactions.text;
        h.update(format!("reactions {}\n", reactions.len()).as_bytes());
        h.update(reactions.as_bytes());
        // A data folder's own ETYFW tables, when they are not the shipped
        // ones: a game with the ETYFW resolver plays with them (the
        // shipped tables go with the program, as its procedure does).
        if let Some(e) = self
            .extras
            .get("etyfw.ron")
            .filter(|e| e.text != include_str!("../../scenarios/etyfw.ron"))
        {
            h.update(format!("etyfw {}\n", e.text.len()).as_bytes());
            h.update(e.text.as_bytes());
        }
        hex::encode(h.finalize())
    }
}

fn file_error(name: &str, message: &str) -> Diagnostic {
    Diagnostic {
        file: name.to_string(),
        line: None,
        field: String::new(),
        message: message.to_string(),
        hint: None,
    }
}

fn scenario_id(text: &str) -> Option<String> {
    let i = text.find("id:")?;
    let rest = &text[i + 3..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_string())
}

/// Unit values and leaders, checked and indexed.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Units {
    types: Vec<UnitType>,
    by_id: TypeIndex,
    leaders: Vec<Leader>,
    /// [`Units::leader`]'s index, made when first asked for (not stored
    /// in the data cache): each name and alias's [`name_key`] to the
    /// place of the first leader, in file order, who answers to it.
    ///
    /// [`name_key`]: crate::geo::map::name_key
    #[serde(skip)]
    leader_keys: std::sync::OnceLock<rustc_hash::FxHashMap<String, usize>>,
}

/// Unit type ids to their place in [`Units`]. The engine looks a counter's
/// type up many times a turn (every [`crate::engine`] turn set-up reads the
/// type of every counter), so ids of at most 16 bytes, which all the
/// shipped ids are, are kept in a small open-addressed table keyed by a
/// number read from their bytes: a lookup is two loads, a multiply and a
/// compare or two instead of hashing and comparing strings.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct TypeIndex {
    /// Slots: the key, the id's length (0 marks an empty slot) and the
    /// place. A power of two long, at least four times the number of
    /// short ids, or empty.
    short: Vec<(u128, u8, u32)>,
    long: rustc_hash::FxHashMap<String, usize>,
}

impl TypeIndex {
    /// An id of 1 to 16 bytes as a number and its length, which together
    /// tell it from every other id: of 8 bytes or more its first and last
    /// eight bytes; of 4 to 7 its first and last four; of fewer, its
    /// first, middle and last byte.
    fn short_key(id: &str) -> Option<(u128, u8)> {
        let b = id.as_bytes();
        let n = b.len();
        let eight = |s: &[u8]| s.try_into().ok().map(u64::from_le_bytes);
        let four = |s: &[u8]| s.try_into().ok().map(u32::from_le_bytes).map(u64::from);
        let (lo, hi) = match n {
            8..=16 => (eight(&b[..8])?, eight(&b[n - 8..])?),
            4..=7 => (four(&b[..4])?, four(&b[n - 4..])?),
            1..=3 => (
                u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16),
                0,
            ),
            _ => return None,
        };
        Some((
            u128::from(lo) | (u128::from(hi) << 64),
            u8::try_from(n).ok()?,
        ))
    }

    /// The first slot to look in for `key`, in a table of `slots` slots.
    fn home(key: u128, slots: usize) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        let hash = folded.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (hash >> 32) as usize & (slots - 1)
    }

    fn get(&self, id: &str) -> Option<usize> {
        let Some((key, len)) = Self::short_key(id) else {
            return self.long.get(id).copied();
        };
        let slots = self.short.len();
        if slots == 0 {
            return None;
        }
        let mut i = Self::home(key, slots);
        loop {
            let (k, l, place) = self.short[i];
            if k == key && l == len {
                return Some(place as usize);
            }
            if l == 0 {
                return None;
            }
            i = (i + 1) & (slots - 1);
        }
    }
}

impl FromIterator<(String, usize)> for TypeIndex {
    fn from_iter<I: IntoIterator<Item = (String, usize)>>(iter: I) -> Self {
        let mut index = TypeIndex::default();
        let mut short = Vec::new();
        for (id, i) in iter {
            match (Self::short_key(&id), u32::try_from(i)) {
                (Some((key, len)), Ok(i)) => short.push((key, len, i)),
                _ => {
                    index.long.insert(id, i);
                }
            }
        }
        if !short.is_empty() {
            let slots = (short.len() * 4).next_power_of_two();
            index.short = vec![(0, 0, 0); slots];
            for (key, len, place) in short {
                let mut i = Self::home(key, slots);
                while index.short[i].1 != 0 && (index.short[i].0, index.short[i].1) != (key, len) {
                    i = (i + 1) & (slots - 1);
                }
                index.short[i] = (key, len, place);
            }
        }
        index
    }
}

impl Units {
    /// Every unit type, in file order.
    pub fn types(&self) -> &[UnitType] {
        &self.types
    }

    /// A unit type by id.
    pub fn get(&self, id: &str) -> Option<&UnitType> {
        self.by_id.get(id).map(|i| &self.types[i])
    }

    /// Index of a unit type by id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.by_id.get(id)
    }

    /// Every leader, in file order.
    pub fn leaders(&self) -> &[Leader] {
        &self.leaders
    }

    /// A leader by name or alias, ignoring case: the first in file order
    /// whose name or one of whose aliases has the name's
    /// [`crate::geo::map::name_key`].
    pub fn leader(&self, name: &str) -> Option<&Leader> {
        let keys = self.leader_keys.get_or_init(|| leader_keys(&self.leaders));
        let i = *keys.get(&crate::geo::map::name_key(name))?;
        self.leaders.get(i)
    }
}

/// Each leader's name and aliases by [`crate::geo::map::name_key`], to the
/// place of the first leader in `leaders` who answers to it.
fn leader_keys(leaders: &[Leader]) -> rustc_hash::FxHashMap<String, usize> {
    let mut keys = rustc_hash::FxHashMap::default();
    for (i, l) in leaders.iter().enumerate() {
        for name in std::iter::once(&l.name).chain(&l.aliases) {
            keys.entry(crate::geo::map::name_key(name)).or_insert(i);
        }
    }
    keys
}

/// Everything a game is played with: the shared data and one scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub map: Arc<Map>,
    pub units: Arc<Units>,
    pub tables: Arc<TablesFile>,
    pub events: Arc<EventsFile>,
    pub def: Arc<ScenarioFile>,
    /// The seed's Mahdist reaction and ambush tables (`reactions.ron`),
    /// for the optional ambush rule.
    pub reactions: Arc<reactions::Reactions>,
    /// Each set-up line's zone, worked out when first asked for: a cache
    /// that never changes an answer (the zones depend on the map and the
    /// scenario alone, and the cache holds the addresses of the two it was
    /// made from: a copy given another map or scenario works its zones out
    /// afresh).
    pub setup_zones: Arc<std::sync::OnceLock<SetupZones>>,
}

/// The cache behind [`Scenario::setup_zone`]: the zones, and the map and
/// scenario they were worked out from (held, so that their addresses stay
/// theirs).
#[derive(Debug)]
pub struct SetupZones {
    map: Arc<Map>,
    def: Arc<ScenarioFile>,
    zones: Vec<Result<Vec<crate::geo::Hex>, String>>,
}

impl Scenario {
    /// The scenario's short name.
    pub fn id(&self) -> &str {
        &self.def.id
    }

    /// The hexes of set-up line `line`'s zone (2.1), or why the zone has
    /// none; `None` if there is no such line.
    pub fn setup_zone(
        &self,
        line: usize,
    ) -> Option<Result<std::borrow::Cow<'_, [crate::geo::Hex]>, String>> {
        let work = || -> Vec<Result<Vec<crate::geo::Hex>, String>> {
            self.def
                .setup
                .iter()
                .map(|d| zone::zone_hexes(&self.map, &d.zone).map_err(|e| e.to_string()))
                .collect()
        };
        let cached = self.setup_zones.get_or_init(|| SetupZones {
            map: self.map.clone(),
            def: self.def.clone(),
            zones: work(),
        });
        if Arc::ptr_eq(&cached.map, &self.map) && Arc::ptr_eq(&cached.def, &self.def) {
            return cached.zones.get(line).map(|z| match z {
                Ok(v) => Ok(std::borrow::Cow::Borrowed(v.as_slice())),
                Err(e) => Err(e.clone()),
            });
        }
        let d = self.def.setup.get(line)?;
        Some(
            zone::zone_hexes(&self.map, &d.zone)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| e.to_string()),
        )
    }
}

/// All checked data. It is written and read back only by the data cache
/// ([`DataFiles::load_cached`]), which holds only what [`DataFiles::load`]
/// checked.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DataSet {
    pub map: Arc<Map>,
    pub units: Arc<Units>,
    pub tables: Arc<TablesFile>,
    pub events: Arc<EventsFile>,
    pub scenarios: Vec<Arc<ScenarioFile>>,
    /// The seed's Mahdist reaction and ambush tables.
    pub reactions: Arc<reactions::Reactions>,
    /// Each scenario's data digest (see [`DataFiles::load`]), by id: a turn
    /// record names the digest of the data its game was played with.
    pub digests: BTreeMap<String, String>,
    /// The data folder's own tables of the ETYFW resolver (`etyfw.ron`),
    /// if it has them; without, the resolver's shipped tables.
    pub etyfw: Option<NamedText>,
}

impl DataSet {
    /// The embedded data, checked. The shipped files are tested, so this
    /// fails only if a build shipped broken data.
    pub fn embedded() -> Result<DataSet, Diagnostics> {
        DataFiles::embedded().load()
    }

    /// A scenario by id (`el-obeid`, `khartoum`, or its number).
    pub fn scenario(&self, id: &str) -> Option<Scenario> {
        let key = id.trim().to_ascii_lowercase();
        let def = self
            .scenarios
            .iter()
            .find(|s| s.id == key || s.number.to_string() == key)?;
        Some(Scenario {
            map: self.map.clone(),
            units: self.units.clone(),
            tables: self.tables.clone(),
            events: self.events.clone(),
            def: def.clone(),
            reactions: self.reactions.clone(),
            setup_zones: Arc::default(),
        })
    }

    /// The digest of the data a game of scenario `id` is played with.
    pub fn digest(&self, id: &str) -> Option<&str> {
        let def = self.scenario(id)?.def;
        self.digests.get(&def.id).map(String::as_str)
    }

    /// The ids of every scenario.
    pub fn scenario_ids(&self) -> Vec<String> {
        self.scenarios.iter().map(|s| s.id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::TypeIndex;

    #[test]
    fn type_ids_short_and_long_are_told_apart() {
        let ids = [
            "",
            "gun",
            "gun\0",
            "brit-camel-corps",
            "egy-camel-corps",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmnop",
            "bbcdefghijklmnop",
            "abcdefghijklmnoq",
            "abcdefghXjklmnop",
            "abcdefghijklmnopq",
            "a-very-long-unit-type-id",
        ];
        let index: TypeIndex = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.to_string(), i))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(index.get(id), Some(i), "{id:?}");
        }
        assert_eq!(index.get("gu"), None);
        assert_eq!(index.get("gun\0\0"), None);
        assert_eq!(index.get("brit-camel-corp"), None);
        let many: TypeIndex = (0..300).map(|i| (format!("type-{i}"), i)).collect();
        for i in 0..300 {
            assert_eq!(many.get(&format!("type-{i}")), Some(i));
        }
        assert_eq!(many.get("type-300"), None);
    }

    /// The leader index answers what a scan of the leaders in file order
    /// answers, for every name and alias as written, in other cases and
    /// spacings, cut short, and for names no leader has.
    #[test]
    fn a_leader_is_found_by_index_as_by_a_scan() {
        use crate::geo::map::name_key;
        let data = super::DataSet::embedded().expect("the embedded data loads");
        for id in data.scenario_ids() {
            let scn = data.scenario(&id).expect("a scenario");
            let units = &scn.units;
            let scan = |name: &str| {
                let key = name_key(name);
                units.leaders().iter().position(|l| {
                    name_key(&l.name) == key || l.aliases.iter().any(|a| name_key(a) == key)
                })
            };
            let mut names = vec![
                String::new(),
                "nobody".to_string(),
                "Gordon Pasha II".into(),
            ];
            for l in units.leaders() {
                for n in std::iter::once(&l.name).chain(&l.aliases) {
                    names.push(n.clone());
                    names.push(n.to_uppercase());
                    names.push(format!(" {}. ", n.replace(' ', "  ")));
                    names.push(n.chars().skip(1).collect());
                }
            }
            assert!(names.len() > 3, "{id}: no leaders");
            for n in &names {
                let found = units.leader(n).map(|l| l as *const super::Leader);
                let scanned = scan(n).map(|i| &units.leaders()[i] as *const super::Leader);
                assert_eq!(found, scanned, "{id}: {n:?}");
            }
        }
    }
}
