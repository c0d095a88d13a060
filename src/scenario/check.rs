//! Checking the data files together: every reference resolves, every table
//! covers every roll, every month lies within its scenario.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::definition::{Arrival, ScenarioFile, SpecialRule, UnitLine, VictoryCondition, Zone};
use super::events::{Effect, EventsFile, d66_numbers};
use super::tables::{Condition, Modifier, Row, TablesFile};
use super::units::UnitsFile;
use super::zone::{zone_hexes, zone_is_empty};
use super::{DataFiles, DataSet, Units};
use crate::calendar::{FIRST, LAST};
use crate::diag::{Diagnostic, Diagnostics, Source, suggest};
use crate::geo::Map;

/// Check every file and build the data set.
pub(super) fn load(files: &DataFiles) -> Result<DataSet, Diagnostics> {
    let mut errors: Vec<Diagnostic> = Vec::new();
    let map_src = Source::new(&files.map.name, &files.map.text);
    let map = match Map::from_source(&map_src) {
        Ok(m) => Some(m),
        Err(d) => {
            errors.extend(d.0);
            None
        }
    };
    let units_src = Source::new(&files.units.name, &files.units.text);
    let units = units_src
        .parse_ron::<UnitsFile>()
        .map_err(|d| errors.push(d))
        .ok();
    let units = units.and_then(|u| check_units(u, &units_src, &mut errors));
    let tables_src = Source::new(&files.tables.name, &files.tables.text);
    let tables = tables_src
        .parse_ron::<TablesFile>()
        .map_err(|d| errors.push(d))
        .ok();
    let events_src = Source::new(&files.events.name, &files.events.text);
    let events = events_src
        .parse_ron::<EventsFile>()
        .map_err(|d| errors.push(d))
        .ok();
    let mut scenarios = Vec::new();
    for s in &files.scenarios {
        let src = Source::new(&s.name, &s.text);
        if let Ok(def) = src.parse_ron::<ScenarioFile>().map_err(|d| errors.push(d)) {
            scenarios.push((src, def));
        }
    }
    let (Some(map), Some(units), Some(tables), Some(events)) = (map, units, tables, events) else {
        return Err(Diagnostics(errors));
    };
    let mut cx = Checker {
        map: &map,
        units: &units,
        errors: &mut errors,
    };
    cx.tables(&tables, &tables_src);
    let reinforcement_ids: BTreeSet<String> = scenarios
        .iter()
        .flat_map(|(_, d)| d.reinforcements.iter().map(|r| r.id.clone()))
        .collect();
    cx.events(&events, &events_src, &reinforcement_ids);
    let mut ids = BTreeSet::new();
    for (src, def) in &scenarios {
        if !ids.insert(def.id.clone()) {
            cx.err(
                src,
                Some(&def.id),
                "id",
                format!("two scenarios are called {}", def.id),
                "give each scenario its own id",
            );
        }
        cx.scenario(def, src);
    }
    let reactions = match super::reactions::Reactions::parse(&files.reactions.text) {
        Ok(r) => Some(r),
        Err(e) => {
            errors.push(Diagnostic {
                file: files.reactions.name.clone(),
                line: None,
                field: String::new(),
                message: e,
                hint: None,
            });
            None
        }
    };
    let Some(reactions) = reactions.filter(|_| errors.is_empty()) else {
        return Err(Diagnostics(errors));
    };
    Ok(DataSet {
        map: Arc::new(map),
        units: Arc::new(units),
        tables: Arc::new(tables),
        events: Arc::new(events),
        scenarios: scenarios.into_iter().map(|(_, d)| Arc::new(d)).collect(),
        reactions: Arc::new(reactions),
        digests: BTreeMap::new(),
        etyfw: None,
    })
}

fn check_units(file: UnitsFile, src: &Source<'_>, errors: &mut Vec<Diagnostic>) -> Option<Units> {
    let before = errors.len();
    let mut by_id = BTreeMap::new();
    let mut codes = BTreeSet::new();
    for (i, t) in file.types.iter().enumerate() {
        // Found only for a problem: a scan of the file.
        let line = || src.line_of_str(&t.id);
        if by_id.insert(t.id.clone(), i).is_some() {
            errors.push(src.error(
                line(),
                format!("types[{i}].id"),
                format!("two unit types are called {}", t.id),
                Some("give each type its own id".into()),
            ));
        }
        if !codes.insert(t.code.clone()) {
            errors.push(src.error(
                line(),
                format!("types[{i}].code"),
                format!("code {} is used twice", t.code),
                Some("unit codes must be unique".into()),
            ));
        }
        if t.movement == 0 && !t.kind.is_river_unit() && t.kind != super::UnitKind::Fleet {
            errors.push(src.error(
                line(),
                format!("types[{i}].movement"),
                format!("{} has no movement allowance", t.id),
                Some("land units need a movement allowance in hexes".into()),
            ));
        }
        if t.counters == 0 {
            errors.push(src.error(
                line(),
                format!("types[{i}].counters"),
                format!("{} has no counters", t.id),
                Some("give the counter mix at least one counter".into()),
            ));
        }
    }
    for (i, t) in file.types.iter().enumerate() {
        if let Some(c) = &t.captured_as
            && !by_id.contains_key(c)
        {
            let hint = did_you_mean(
                c,
                by_id.keys().map(String::as_str),
                "name a unit type in this file",
            );
            errors.push(src.error(
                src.line_of_in(&t.id, c),
                format!("types[{i}].captured_as"),
                format!("no unit type called {c}"),
                Some(hint),
            ));
        }
    }
    let mut names = BTreeSet::new();
    for (i, l) in file.leaders.iter().enumerate() {
        if !names.insert(crate::geo::map::name_key(&l.name)) {
            errors.push(src.error(
                src.line_of_str(&l.name),
                format!("leaders[{i}].name"),
                format!("two leaders are called {}", l.name),
                Some("rename one".into()),
            ));
        }
    }
    (errors.len() == before).then_some(Units {
        types: file.types,
        by_id: by_id.into_iter().collect(),
        leaders: file.leaders,
        leader_keys: std::sync::OnceLock::new(),
    })
}

fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    otherwise: &str,
) -> String {
    match suggest(word, candidates) {
        Some(s) => format!("did you mean {s}?"),
        None => otherwise.to_string(),
    }
}

struct Checker<'a> {
    map: &'a Map,
    units: &'a Units,
    errors: &'a mut Vec<Diagnostic>,
}

impl Checker<'_> {
    fn err(
        &mut self,
        src: &Source<'_>,
        value: Option<&str>,
        field: impl Into<String>,
        message: String,
        hint: &str,
    ) {
        let line = value.and_then(|v| src.line_of_str(v));
        self.errors
            .push(src.error(line, field, message, Some(hint.to_string())));
    }

    fn place(&mut self, src: &Source<'_>, name: &str, field: String) {
        if let Err(e) = self.map.resolve(name) {
            self.err(
                src,
                Some(name),
                field,
                e.to_string(),
                "use a place name or alias from scenarios/map.ron, or a four-digit hex",
            );
        }
    }

    fn unit_type(&mut self, src: &Source<'_>, id: &str, field: String) {
        if self.units.get(id).is_none() {
            let hint = did_you_mean(
                id,
                self.units.types().iter().map(|t| t.id.as_str()),
                "use a unit type id from scenarios/units.ron",
            );
            self.err(
                src,
                Some(id),
                field,
                format!("no unit type called {id}"),
                &hint,
            );
        }
    }

    fn leader(&mut self, src: &Source<'_>, name: &str, field: String) {
        if self.units.leader(name).is_none() {
            let hint = did_you_mean(
                name,
                self.units.leaders().iter().map(|l| l.name.as_str()),
                "use a leader from scenarios/units.ron",
            );
            self.err(
                src,
                Some(name),
                field,
                format!("no leader called {name}"),
                &hint,
            );
        }
    }

    fn lines(&mut self, src: &Source<'_>, lines: &[UnitLine], field: &str) {
        for (i, l) in lines.iter().enumerate() {
            self.unit_type(src, &l.unit, format!("{field}.units[{i}].unit"));
            if l.count == 0 && l.dice.is_none() {
                self.err(
                    src,
                    Some(&l.unit),
                    format!("{field}.units[{i}].count"),
                    "a line of no units".into(),
                    "give a count of at least 1, or dice",
                );
            }
        }
    }

    fn zone(&mut self, src: &Source<'_>, zone: &Zone, field: String) {
        let names: Vec<&String> = match zone {
            Zone::At(n) => vec![n],
            Zone::OneOf(v) => v.iter().collect(),
            Zone::Around { places, .. } => places.iter().collect(),
            Zone::RiverBank {
                south_of, river, ..
            } => {
                if self.map.find_river(river).is_none() {
                    let hint = did_you_mean(
                        river,
                        self.map.rivers().iter().map(|r| r.name.as_str()),
                        "use a river named in scenarios/map.ron",
                    );
                    self.err(
                        src,
                        Some(river),
                        field.clone(),
                        format!("no river called {river}"),
                        &hint,
                    );
                    return;
                }
                vec![south_of]
            }
            Zone::SettlementsSouthOf { place, plus } => {
                std::iter::once(place).chain(plus).collect()
            }
            Zone::SouakimExtension { away_from, .. } => away_from.iter().collect(),
            Zone::FriendlyStack => return,
        };
        let before = self.errors.len();
        for n in names {
            self.place(src, n, field.clone());
        }
        if self.errors.len() == before && zone_is_empty(self.map, zone) == Ok(true) {
            self.err(
                src,
                None,
                field,
                format!("the zone {zone:?} holds no hex of the map"),
                "widen the zone",
            );
        }
    }

    fn scenario(&mut self, def: &ScenarioFile, src: &Source<'_>) {
        if def.start > def.end {
            self.err(
                src,
                Some(&def.start.to_string()),
                "start",
                format!(
                    "the scenario starts in {} after it ends in {}",
                    def.start, def.end
                ),
                "swap start and end",
            );
        }
        for (i, d) in def.setup.iter().enumerate() {
            let f = format!("setup[{i}]");
            self.zone(src, &d.zone, format!("{f}.zone"));
            self.lines(src, &d.units, &f);
            for (j, l) in d.leaders.iter().enumerate() {
                self.leader(src, l, format!("{f}.leaders[{j}]"));
            }
        }
        for (i, r) in def.reinforcements.iter().enumerate() {
            let f = format!("reinforcements[{i}]");
            match &r.arrives {
                Arrival::Month(m) if *m < def.start || *m > def.end => {
                    self.err(
                        src,
                        Some(&m.to_string()),
                        format!("{f}.arrives"),
                        format!(
                            "reinforcement {} arrives in {}, outside the scenario ({} to {})",
                            r.id,
                            m.long_name(),
                            def.start,
                            def.end
                        ),
                        "give a month within the scenario",
                    );
                }
                Arrival::WhenFalls(p) => self.place(src, p, format!("{f}.arrives")),
                _ => {}
            }
            self.zone(src, &r.zone, format!("{f}.zone"));
            self.lines(src, &r.units, &f);
            for (j, l) in r.leaders.iter().enumerate() {
                self.leader(src, l, format!("{f}.leaders[{j}]"));
            }
        }
        let rp = &def.replacements;
        for p in rp
            .places
            .iter()
            .chain(&rp.free_supply_places)
            .chain(&rp.field_force_place)
        {
            self.place(src, p, "replacements".into());
        }
        if let Some(u) = &rp.free_supply_unit {
            self.unit_type(src, u, "replacements.free_supply_unit".into());
        }
        for t in &def.pool_excludes {
            self.unit_type(src, t, "pool_excludes".into());
        }
        for (i, r) in def.special_rules.iter().enumerate() {
            let f = format!("special_rules[{i}]");
            match r {
                SpecialRule::NoMahdistBesideRiverDownstreamOf { river, from } => {
                    self.zone(
                        src,
                        &Zone::RiverBank {
                            river: river.clone(),
                            south_of: from.clone(),
                            min_distance: 0,
                        },
                        f.clone(),
                    );
                    self.place(src, from, f);
                }
                SpecialRule::NoRiverUnitsPlacedAt(places) => {
                    for p in places {
                        self.place(src, p, f.clone());
                    }
                }
                SpecialRule::MahdistSetupStackLimit(n) => self.setup_limit(def, src, *n as usize),
            }
        }
        for (i, v) in def.victory.iter().enumerate() {
            let f = format!("victory[{i}]");
            match v {
                VictoryCondition::NoSiege { places, .. }
                | VictoryCondition::UnitIn { places, .. } => {
                    for p in places {
                        self.place(src, p, f.clone());
                    }
                }
                VictoryCondition::Capture { place, .. } | VictoryCondition::Siege { place, .. } => {
                    self.place(src, place, f)
                }
                VictoryCondition::LeaderEliminated { leader, .. } => self.leader(src, leader, f),
                _ => {}
            }
        }
    }

    /// Rule 2.3: "no more than 6 non-leader or boat units per hex" at the
    /// Mahdist set-up. The set-up lines are filled in order as the default
    /// placement fills them, each line's zone nearest hex first; a line
    /// that finds no room is reported.
    fn setup_limit(&mut self, def: &ScenarioFile, src: &Source<'_>, limit: usize) {
        let mut used: BTreeMap<crate::geo::Hex, usize> = BTreeMap::new();
        for (i, d) in def.setup.iter().enumerate() {
            if d.side != super::Side::Mahdist {
                continue;
            }
            let Ok(zone) = zone_hexes(self.map, &d.zone) else {
                continue;
            };
            let n: usize = d
                .units
                .iter()
                .filter(|l| {
                    self.units
                        .get(&l.unit)
                        .is_some_and(|t| !t.kind.is_river_unit())
                })
                .map(|l| l.count as usize)
                .sum();
            let mut placed = 0;
            for h in &zone {
                let k = used.entry(*h).or_default();
                let room = limit.saturating_sub(*k).min(n - placed);
                *k += room;
                placed += room;
            }
            if placed < n {
                let value = (!d.text.is_empty()).then_some(d.text.as_str());
                self.err(
                    src,
                    value,
                    format!("setup[{i}].units"),
                    format!(
                        "{n} Mahdist units (leaders and boats not counted) in a zone of {} {}: more than {limit} in a hex, which 2.3 forbids (\"no more than {limit} non-leader or boat units per hex\")",
                        zone.len(),
                        if zone.len() == 1 { "hex" } else { "hexes" }
                    ),
                    "widen the zone or place fewer units",
                );
            }
        }
    }

    fn modifiers(&mut self, src: &Source<'_>, mods: &[Modifier], field: &str) {
        for (i, m) in mods.iter().enumerate() {
            if let Condition::Controls { place, .. } = &m.when {
                self.place(src, place, format!("{field}.modifiers[{i}].when"));
            }
            if let Condition::Months(ms) = &m.when
                && ms.iter().any(|m| !(1..=12).contains(m))
            {
                self.err(
                    src,
                    Some(&m.name),
                    format!("{field}.modifiers[{i}].when"),
                    "a month outside 1-12".into(),
                    "months are 1 (January) to 12 (December)",
                );
            }
        }
    }

    fn rows<T>(&mut self, src: &Source<'_>, rows: &[Row<T>], table: &str) {
        let tos: Vec<i32> = rows.iter().map(|r| r.to).collect();
        self.ascending(src, &tos, table);
    }

    fn ascending(&mut self, src: &Source<'_>, tos: &[i32], table: &str) {
        if tos.is_empty() {
            self.err(
                src,
                Some(table),
                table.to_string(),
                format!("the {table} table has no rows"),
                "add rows",
            );
            return;
        }
        for (i, w) in tos.windows(2).enumerate() {
            if w[1] <= w[0] {
                let line = src
                    .line_of(table, 1)
                    .and_then(|l| src.line_of(&format!("to: {}", w[1]), l));
                self.errors.push(src.error(
                    line,
                    format!("{table}.rows[{}].to", i + 1),
                    format!("row bounds must rise: {} follows {}", w[1], w[0]),
                    Some(
                        "each row covers rolls above the previous row's `to` up to its own".into(),
                    ),
                ));
            }
        }
    }

    fn tables(&mut self, t: &TablesFile, src: &Source<'_>) {
        self.modifiers(src, &t.march.modifiers, "march");
        self.rows(src, &t.march.rows, "march");
        for (name, c) in [("fire", &t.fire), ("melee", &t.melee)] {
            self.modifiers(src, &c.modifiers, name);
            let tos: Vec<i32> = c.rows.iter().map(|r| r.to).collect();
            self.ascending(src, &tos, name);
            for (i, r) in c.rows.iter().enumerate() {
                for h in [r.v, r.r, r.l, r.s] {
                    if h.0 > 100 || h.1 > 100 {
                        self.err(
                            src,
                            None,
                            format!("{name}.rows[{i}]"),
                            "a percentage over 100".into(),
                            "hits are percentages of the units hit",
                        );
                    }
                }
            }
        }
        self.modifiers(src, &t.attrition.modifiers, "attrition");
        let tos: Vec<i32> = t.attrition.rows.iter().map(|r| r.to).collect();
        self.ascending(src, &tos, "attrition");
        self.modifiers(src, &t.recovery.modifiers, "recovery");
        self.rows(src, &t.recovery.rows, "recovery");
        self.modifiers(src, &t.railway.modifiers, "railway");
        self.rows(src, &t.railway.rows, "railway");
        self.modifiers(src, &t.mahdist_arrival.modifiers, "mahdist_arrival");
        self.rows(src, &t.mahdist_arrival.rows, "mahdist_arrival");
        self.unit_type(
            src,
            &t.town_gains.recruit_unit,
            "town_gains.recruit_unit".into(),
        );
        self.unit_type(src, &t.town_gains.boat_unit, "town_gains.boat_unit".into());
        for (p, _) in &t.town_gains.boats {
            self.place(src, p, "town_gains.boats".into());
        }
        for (i, (_, ty)) in t.ambush.party_units.iter().enumerate() {
            self.unit_type(src, ty, format!("ambush.party_units[{i}]"));
        }
        if t.ambush.men_per_unit == 0 {
            self.err(
                src,
                None,
                "ambush.men_per_unit",
                "men_per_unit is 0".into(),
                "a counter is 200 to 250 men (1.3)",
            );
        }
    }

    fn events(&mut self, e: &EventsFile, src: &Source<'_>, reinforcements: &BTreeSet<String>) {
        for (ti, t) in e.tables.iter().enumerate() {
            let f = format!("tables[{ti}]");
            let mut covered: BTreeMap<u32, usize> = BTreeMap::new();
            for (ei, entry) in t.entries.iter().enumerate() {
                let ef = format!("{f}.entries[{ei}]");
                let (a, b) = entry.roll;
                let nums: Vec<u32> = d66_numbers().filter(|n| (a..=b).contains(n)).collect();
                if nums.is_empty()
                    || !d66_numbers().any(|n| n == a)
                    || !d66_numbers().any(|n| n == b)
                {
                    self.err(
                        src,
                        Some(&entry.title),
                        format!("{ef}.roll"),
                        format!("({a}, {b}) is not a range of D66 numbers"),
                        "D66 numbers are 11-16, 21-26, ... 61-66",
                    );
                }
                for n in nums {
                    if covered.insert(n, ei).is_some() {
                        self.err(
                            src,
                            Some(&entry.title),
                            format!("{ef}.roll"),
                            format!("{n} is covered twice in table {}", t.id),
                            "every D66 number belongs to exactly one entry",
                        );
                    }
                }
                for (xi, effect) in entry.effects.iter().enumerate() {
                    let xf = format!("{ef}.effects[{xi}]");
                    match effect {
                        Effect::CallReinforcement(id) if !reinforcements.contains(id) => {
                            let hint = did_you_mean(
                                id,
                                reinforcements.iter().map(String::as_str),
                                "name a reinforcement id of a scenario",
                            );
                            self.err(
                                src,
                                Some(id),
                                xf,
                                format!("no scenario has a reinforcement called {id}"),
                                &hint,
                            );
                        }
                        Effect::AddUnits { unit, zone, .. } => {
                            self.unit_type(src, unit, xf.clone());
                            self.zone(src, zone, xf);
                        }
                        Effect::ExtraAttrition { place, .. } => self.place(src, place, xf),
                        Effect::LeaderInactive(l) | Effect::LeaderDies(l) => {
                            self.leader(src, l, xf)
                        }
                        Effect::LeaderArrives { leader, zone } => {
                            self.leader(src, leader, xf.clone());
                            self.zone(src, zone, xf);
                        }
                        Effect::Convert { from, to, .. } => {
                            self.unit_type(src, from, xf.clone());
                            self.unit_type(src, to, xf);
                        }
                        _ => {}
                    }
                }
            }
            let missing: Vec<String> = d66_numbers()
                .filter(|n| !covered.contains_key(n))
                .map(|n| n.to_string())
                .collect();
            if !missing.is_empty() {
                self.err(
                    src,
                    Some(&t.id),
                    f.clone(),
                    format!("table {} does not cover {}", t.id, missing.join(", ")),
                    "every D66 number from 11 to 66 needs an entry",
                );
            }
            if t.from > t.to {
                self.err(
                    src,
                    Some(&t.id),
                    f,
                    format!("table {} runs from {} to {}", t.id, t.from, t.to),
                    "swap from and to",
                );
            }
        }
        for side in [super::Side::Egyptian, super::Side::Mahdist] {
            for m in FIRST.through(LAST) {
                let n = e
                    .tables
                    .iter()
                    .filter(|t| t.side == side && t.from <= m && m <= t.to)
                    .count();
                if n != 1 {
                    let msg = if n == 0 {
                        format!("no {side} event table for {}", m.long_name())
                    } else {
                        format!("{n} {side} event tables for {}", m.long_name())
                    };
                    self.err(src, None, "tables", msg, "each side needs exactly one table for every month from October 1882 to October 1885");
                    break;
                }
            }
        }
    }
}
