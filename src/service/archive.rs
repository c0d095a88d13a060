//! The campaign archive: `dervish archive` writes a static website of a
//! game (or of every game) from its stored turns, and the daemon rebuilds
//! it after each turn when `[archive] folder` is set.
//!
//! What may be published, and when: only turns already played, with what
//! their results mails gave both players (the log, both sides' orders as
//! the receipts confirmed them, the seed, the digests, the state). The
//! open turn shows its seed's fingerprint only; orders received for it,
//! a stopped turn's battle, the programmed players' notes (their reasons
//! and reaction rolls) and keys stay out until the game is over; a
//! player's mail address appears only if they agreed (`ADDRESS PUBLIC`).
//!
//! The site of a game is built in a folder beside the old one and put in
//! its place by renaming, so a web server never serves half a site.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::bots::notes_action;
use super::play::{adjudicate, seed_bytes};
use super::record::TurnRecord;
use super::secrets::sha256_hex;
use super::{Result, Service, ServiceError};
use crate::engine::events::Event;
use crate::geo::{Hex, PlaceKind};
use crate::render::archive::{
    self as page, GameFile, MapRef, Moment, MonthFile, MonthMaps, MonthSummary, OpenTurn,
    PlayerTurn, ProgrammedKey, SealedOrders, Seat, Strength, TurnEntry,
};
use crate::render::svg::{View, map_svg};
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, Status as UnitStatus};
use crate::store::{self, GameRow, PlayerRow, Status, TurnKind, TurnRow};

/// What one game's archive came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    pub game: String,
    /// The game's folder.
    pub dir: PathBuf,
    pub months: usize,
    pub files: usize,
    pub bytes: u64,
}

/// A file of the site, relative to the game's folder, and its text.
pub type SiteFile = (String, String);

/// What a game's archive is made from.
pub struct Archive {
    pub scn: Scenario,
    pub game: GameFile,
    pub months: Vec<MonthFile>,
    /// Each turn's record, as mailed with its results
    /// (`records/<game>-turn-<n>.json`).
    pub records: Vec<SiteFile>,
}

fn side_key(s: Side) -> String {
    store::side_text(s).to_string()
}

/// Each side's strength points on the map, in the pool and eliminated.
pub fn strength(state: &GameState) -> Vec<Strength> {
    [Side::Egyptian, Side::Mahdist]
        .into_iter()
        .map(|side| {
            let mut s = Strength {
                side: side_key(side),
                on_map: 0,
                pool: 0,
                eliminated: 0,
            };
            for u in state.units.iter().filter(|u| u.side == side) {
                match u.status {
                    UnitStatus::OnMap(_) => s.on_map += u.strength,
                    UnitStatus::Pool => s.pool += u.strength,
                    UnitStatus::Eliminated
                    | UnitStatus::AwaitingReplacement(_)
                    | UnitStatus::Wrecked(_) => s.eliminated += u.strength,
                    UnitStatus::Reserve => {}
                }
            }
            s
        })
        .collect()
}

/// The moments of one player turn worth the timeline: battles, towns
/// changing hands, sieges begun and lifted, leaders lost, reinforcements,
/// random events, the end. `besieged` is carried from one player turn to
/// the next.
fn moments(
    scn: &Scenario,
    month: &str,
    side: Side,
    events: &[Event],
    before: &GameState,
    after: &GameState,
    besieged: &mut BTreeSet<Hex>,
) -> Vec<Moment> {
    let map = &scn.map;
    let moment = |kind: &str, hex: Option<Hex>, text: String| Moment {
        month: month.to_string(),
        side: side_key(side),
        kind: kind.to_string(),
        hex: hex.map(|h| h.to_string()),
        text,
    };
    let mut out = Vec::new();
    let mut arrived: BTreeMap<(Hex, String), usize> = BTreeMap::new();
    for e in events {
        match e {
            Event::CombatResult {
                defender, result, ..
            } => out.push(moment(
                "battle",
                Some(*defender),
                format!("Battle at {}: {result}", map.describe(*defender)),
            )),
            Event::LeaderRemoved { leader, hex, how } => out.push(moment(
                "leader",
                Some(*hex),
                if how.is_empty() {
                    format!("{leader} lost at {}", map.describe(*hex))
                } else {
                    format!("{leader} lost at {}: {how}", map.describe(*hex))
                },
            )),
            Event::Succession { leader, hex } => out.push(moment(
                "leader",
                *hex,
                format!("{leader} succeeds the Mahdi"),
            )),
            Event::Arrived { id, hex, units, .. } if !units.is_empty() => {
                // Recruits arrive a unit at a time: one line a place.
                let n = arrived.entry((*hex, id.clone())).or_insert(0);
                if *n == 0 {
                    out.push(moment("reinforcement", Some(*hex), id.clone()));
                }
                *n += units.len();
            }
            Event::RandomEvent { title, .. } if !title.eq_ignore_ascii_case("no event") => {
                out.push(moment("event", None, format!("Random event: {title}")))
            }
            Event::UnderSiege { hexes } => {
                let now: BTreeSet<Hex> = hexes.iter().copied().collect();
                for h in now.difference(besieged) {
                    out.push(moment(
                        "siege",
                        Some(*h),
                        format!("The siege of {} begins", map.describe(*h)),
                    ));
                }
                for h in besieged.difference(&now) {
                    out.push(moment(
                        "siege-lifted",
                        Some(*h),
                        format!("The siege of {} ends", map.describe(*h)),
                    ));
                }
                *besieged = now;
            }
            Event::GameOver { result } => {
                out.push(moment("end", None, format!("The game is over: {result}")))
            }
            _ => {}
        }
    }
    // The arrivals' lines, with their counts now known (the text held
    // the reinforcement's id until now).
    for m in out.iter_mut().filter(|m| m.kind == "reinforcement") {
        let Some(hex) = m.hex.as_deref().and_then(|h| h.parse::<Hex>().ok()) else {
            continue;
        };
        let n = arrived.get(&(hex, m.text.clone())).copied().unwrap_or(0);
        m.text = format!(
            "Reinforcements at {}: {} ({})",
            map.describe(hex),
            crate::words::count(n, "unit", "units"),
            m.text
        );
    }
    for p in map.places().iter().filter(|p| p.kind == PlaceKind::Town) {
        let (was, is) = (before.control.get(&p.hex), after.control.get(&p.hex));
        if was != is
            && let Some(now) = is
        {
            out.push(moment(
                "town",
                Some(p.hex),
                format!("{} passes to the {now} side", p.name),
            ));
        }
    }
    out
}

impl Service {
    /// Write the archive of game `id` into `out/<id>/`, and the list of the
    /// games archived in `out` into `out/index.html`.
    pub fn archive(&self, id: &str, out: &Path) -> Result<Built> {
        let g = self.game(id)?;
        let built = self.archive_game(&g, out)?;
        write_root(out)?;
        Ok(built)
    }

    /// Write the archive of every game into `out`: each game's outcome,
    /// a game that cannot be archived (its stored state unreadable, say)
    /// not keeping the others from it.
    pub fn archive_all(&self, out: &Path) -> Result<Vec<(String, Result<Built>)>> {
        let mut done = Vec::new();
        for g in store::games(&self.conn)? {
            let r = self.archive_game(&g, out);
            done.push((g.id, r));
        }
        write_root(out)?;
        Ok(done)
    }

    /// After a turn: rebuild the game's archive if the config names an
    /// archive folder. A failure is logged and leaves the game as it is:
    /// the turn is played and stored whatever becomes of its web page.
    pub fn archive_after_turn(&self, id: &str) {
        let Some(dir) = self.cfg.archive.folder.clone() else {
            return;
        };
        match self.archive(id, &dir) {
            Ok(b) => {
                tracing::info!(game = id, files = b.files, bytes = b.bytes, dir = %b.dir.display(), "archive rebuilt")
            }
            Err(e) => tracing::warn!(game = id, error = %e, "the archive could not be rebuilt"),
        }
    }

    /// The campaign file and the month files of a game, as they may be
    /// published now.
    pub fn archive_data(&self, g: &GameRow) -> Result<Archive> {
        let scn = self.scenario(&g.scenario)?;
        let turns = store::turns(&self.conn, &g.id)?;
        let players = store::players(&self.conn, &g.id)?;
        let known = Known {
            over: g.status == Status::Finished,
            audit: store::audit_log(&self.conn, &g.id)?,
            stand_ins: super::seats::stand_ins_played(&self.conn, &g.id)?,
            digest: self
                .data
                .digest(&g.scenario)
                .unwrap_or_default()
                .to_string(),
        };
        let mut months: Vec<MonthFile> = Vec::new();
        let mut records: Vec<SiteFile> = Vec::new();
        let mut besieged: BTreeSet<Hex> = BTreeSet::new();
        for (i, t) in turns.iter().enumerate() {
            // The set-up step (turn 0) plays no month: the first month's
            // state before is its placement.
            if t.turn_kind.is_setup() {
                continue;
            }
            let next_seed = match turns.get(i + 1) {
                Some(n) => Some(n.seed_sha256.clone()),
                None => (!known.over).then(|| g.seed_sha256.clone()),
            };
            let (record, entry) = self.turn_entry(g, t, next_seed.as_deref(), &known)?;
            records.push(record);
            self.add_turn(&scn, g, t, entry, &mut months, &mut besieged)?;
        }
        let game = game_file(g, &scn, &players, &months, known.over);
        Ok(Archive {
            scn,
            game,
            months,
            records,
        })
    }

    /// A played turn's record file and its entry in the month file.
    fn turn_entry(
        &self,
        g: &GameRow,
        t: &TurnRow,
        next_seed: Option<&str>,
        known: &Known,
    ) -> Result<(SiteFile, TurnEntry)> {
        let eg = t
            .egyptian_set
            .map(|s| store::order_set(&self.conn, s))
            .transpose()?
            .flatten();
        let md = t
            .mahdist_set
            .map(|s| store::order_set(&self.conn, s))
            .transpose()?
            .flatten();
        let record = TurnRecord::of(g, t, eg.as_ref(), md.as_ref(), &known.digest, next_seed)
            .with_rollback(&known.audit);
        let name = format!("records/{}", super::record::file_name(&g.id, t.turn_no));
        let notes = known
            .audit
            .iter()
            .find(|(_, actor, action, _)| actor == "bot" && *action == notes_action(t.turn_no))
            .map(|(_, _, _, detail)| detail.clone());
        let entry = TurnEntry {
            turn_no: t.turn_no,
            kind: t.turn_kind.as_str().to_string(),
            seed_hex: t.seed_hex.clone(),
            seed_sha256: t.seed_sha256.clone(),
            next_seed_sha256: record.next_seed_sha256.clone(),
            orders: record
                .orders
                .iter()
                .map(|o| SealedOrders {
                    side: o.side.clone(),
                    sealed_sha256: o.sealed_sha256.clone(),
                    canonical: o.canonical.clone(),
                })
                .collect(),
            state_before_sha256: record.state_before_sha256.clone(),
            state_after_sha256: record.state_after_sha256.clone(),
            events_sha256: record.events_sha256.clone(),
            log_sha256: record.log_sha256.clone(),
            log: t.log.clone(),
            record: name.clone(),
            umpire_sha256: notes.as_deref().map(|n| sha256_hex(n.as_bytes())),
            umpire_notes: if known.over { notes } else { None },
            stand_ins: known
                .stand_ins
                .iter()
                .filter(|(turn, _, _)| *turn == t.turn_no)
                .map(|(_, side, why)| format!("{side}: the programmed player ({why})"))
                .collect(),
            rollback: record.rollback.as_ref().map(|r| {
                format!(
                    "on {} the game master took back {}: {}",
                    r.at, r.taken_back, r.why
                )
            }),
        };
        Ok(((name, record.json_text()), entry))
    }

    /// A played turn added to its month's file (a new one for a new
    /// month): its player turns, the moments of its timeline (the sieges
    /// as they go on, in `besieged`), the strength at its end.
    fn add_turn(
        &self,
        scn: &Scenario,
        g: &GameRow,
        t: &TurnRow,
        entry: TurnEntry,
        months: &mut Vec<MonthFile>,
        besieged: &mut BTreeSet<Hex>,
    ) -> Result<()> {
        let before = parse_state(g, &t.state_before)?;
        let after = parse_state(g, &t.state_after)?;
        let events: Vec<Event> =
            serde_json::from_str(&t.events).map_err(|e| ServiceError::State {
                game: g.id.clone(),
                message: format!("the events of turn {}: {e}", t.turn_no),
            })?;
        let player_turns = self.player_turns(scn, g, t, &before, after, events)?;
        if months.last().is_none_or(|m| m.month != t.month) {
            months.push(MonthFile {
                archive: page::MONTH_KIND.into(),
                format: page::FORMAT,
                game: g.id.clone(),
                scenario: g.scenario.clone(),
                month: t.month.clone(),
                name: t
                    .month
                    .parse::<crate::calendar::GameMonth>()
                    .map_or_else(|_| t.month.clone(), |m| m.long_name()),
                player_turns: Vec::new(),
                turns: Vec::new(),
                strength: Vec::new(),
                timeline: Vec::new(),
            });
        }
        let Some(m) = months.last_mut() else {
            return Ok(());
        };
        let mut prev = before;
        for pt in &player_turns {
            let side = store::parse_side(&pt.side)?;
            m.timeline.extend(moments(
                scn, &t.month, side, &pt.events, &prev, &pt.state, besieged,
            ));
            prev = pt.state.clone();
        }
        m.strength = strength(&prev);
        m.player_turns.extend(player_turns);
        m.turns.push(entry);
        Ok(())
    }

    /// The player turns of a stored turn, each with its events and the
    /// state it left. A month's turn is played again from its stored
    /// inputs to find the state between its two player turns.
    fn player_turns(
        &self,
        scn: &Scenario,
        g: &GameRow,
        t: &TurnRow,
        before: &GameState,
        after: GameState,
        events: Vec<Event>,
    ) -> Result<Vec<PlayerTurn>> {
        if let TurnKind::Player(side) = t.turn_kind {
            return Ok(vec![PlayerTurn {
                side: side_key(side),
                events,
                state: after,
            }]);
        }
        let split = events.iter().position(|e| {
            matches!(
                e,
                Event::PhaseBegins {
                    side: Side::Mahdist,
                    ..
                }
            )
        });
        let Some(split) = split else {
            // The game ended in the Egyptian player turn.
            return Ok(vec![PlayerTurn {
                side: side_key(Side::Egyptian),
                events,
                state: after,
            }]);
        };
        let orders = |id: Option<i64>| -> Result<crate::engine::orders::Orders> {
            let set = id
                .map(|s| store::order_set(&self.conn, s))
                .transpose()?
                .flatten();
            self.orders_of(set.as_ref())
        };
        let (eg, md) = (orders(t.egyptian_set)?, orders(t.mahdist_set)?);
        let seed = seed_bytes(&t.seed_hex).ok_or_else(|| ServiceError::State {
            game: g.id.clone(),
            message: format!("the seed of turn {} is not 32 bytes of hex", t.turn_no),
        })?;
        let settled =
            super::play::settlements_from_json(&t.battles).map_err(|e| ServiceError::State {
                game: g.id.clone(),
                message: e,
            })?;
        let mut between: Option<GameState> = None;
        adjudicate(
            scn,
            before.clone(),
            t.turn_kind,
            &eg,
            &md,
            seed,
            &settled,
            self.data.etyfw.as_ref(),
            Some(&mut |s, side| {
                if side == Side::Mahdist {
                    between = Some(s.clone());
                }
            }),
        )?;
        let between = between.ok_or_else(|| ServiceError::State {
            game: g.id.clone(),
            message: format!(
                "turn {} played again gives no Mahdist player turn",
                t.turn_no
            ),
        })?;
        let mut events = events;
        let mahdist = events.split_off(split);
        Ok(vec![
            PlayerTurn {
                side: side_key(Side::Egyptian),
                events,
                state: between,
            },
            PlayerTurn {
                side: side_key(Side::Mahdist),
                events: mahdist,
                state: after,
            },
        ])
    }

    fn archive_game(&self, g: &GameRow, out: &Path) -> Result<Built> {
        let Archive {
            scn,
            game,
            months,
            records,
        } = self.archive_data(g)?;
        let tables = self.table_diagrams(g, &scn, &months)?;
        let mut files = site_files(&scn, &game, &months, &tables)?;
        files.extend(records);
        let dir = out.join(&g.id);
        let building = out.join(format!(".{}.building", g.id));
        let old = out.join(format!(".{}.old", g.id));
        for d in [&building, &old] {
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(|e| io("cannot remove", d, e))?;
            }
        }
        let mut bytes = 0u64;
        for (name, text) in &files {
            let path = building.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io("cannot create", parent, e))?;
            }
            std::fs::write(&path, text).map_err(|e| io("cannot write", &path, e))?;
            bytes += text.len() as u64;
        }
        if dir.exists() {
            std::fs::rename(&dir, &old).map_err(|e| io("cannot move aside", &dir, e))?;
        }
        std::fs::rename(&building, &dir).map_err(|e| io("cannot put in place", &dir, e))?;
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| io("cannot remove", &old, e))?;
        }
        Ok(Built {
            game: g.id.clone(),
            dir,
            months: months.len(),
            files: files.len(),
            bytes,
        })
    }
}

/// What the archive may say of a game's turns: whether it is over, its
/// audit log (the programmed players' notes, rollbacks), the turns the
/// stand-in played and the data's digest.
struct Known {
    over: bool,
    audit: Vec<(String, String, String, String)>,
    stand_ins: Vec<(u32, Side, String)>,
    digest: String,
}

/// The campaign file: the game, its seats (an address only with its
/// player's consent), its months, the open turn's fingerprint and, once
/// the game is over, the programmed players' keys.
fn game_file(
    g: &GameRow,
    scn: &Scenario,
    players: &[PlayerRow],
    months: &[MonthFile],
    over: bool,
) -> GameFile {
    let seats = players
        .iter()
        .map(|p: &PlayerRow| Seat {
            side: side_key(p.side),
            // Only with the player's consent (`ADDRESS PUBLIC`).
            address: (p.bot.is_none() && p.show_address && !p.address.is_empty())
                .then(|| p.address.clone()),
            programmed: p.bot.clone(),
        })
        .collect();
    let open_turn = (g.status != Status::Finished).then(|| OpenTurn {
        turn_no: g.turn_no,
        month: g.month.clone(),
        kind: g.turn_kind.as_str().to_string(),
        seed_sha256: g.seed_sha256.clone(),
    });
    let programmed_keys = if over {
        players
            .iter()
            .filter_map(|p| {
                p.bot_key.as_ref().map(|k| ProgrammedKey {
                    side: side_key(p.side),
                    key: k.clone(),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    GameFile {
        archive: page::GAME_KIND.into(),
        format: page::FORMAT,
        game: g.id.clone(),
        scenario: g.scenario.clone(),
        scenario_title: scn.def.title.clone(),
        mode: g.mode.as_str().to_string(),
        status: g.status.as_str().to_string(),
        players: seats,
        result: g.result.clone(),
        months: months
            .iter()
            .map(|m| MonthSummary {
                month: m.month.clone(),
                name: m.name.clone(),
                strength: m.strength.clone(),
            })
            .collect(),
        timeline: months.iter().flat_map(|m| m.timeline.clone()).collect(),
        open_turn,
        programmed_keys,
    }
}

/// A file or folder of the archive that could not be handled, and why.
fn io(what: &str, p: &Path, e: std::io::Error) -> ServiceError {
    ServiceError::Archive(format!("{what} {}: {e}", p.display()))
}

fn parse_state(g: &GameRow, text: &str) -> Result<GameState> {
    serde_json::from_str(text).map_err(|e| ServiceError::State {
        game: g.id.clone(),
        message: e.to_string(),
    })
}

/// A file's JSON: pretty-printed for the campaign file, compact for the
/// month files, whose two states would double in size with the spaces.
fn json<T: serde::Serialize>(v: &T, pretty: bool) -> Result<String> {
    let mut s = if pretty {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    }
    .map_err(|e| ServiceError::Archive(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

/// The drawn tables of a game's table battles, by the month they were
/// fought in: each with its title, file and SVG.
pub type TableDiagrams = std::collections::BTreeMap<String, Vec<(String, String, String)>>;

impl Service {
    /// The diagram of each table battle of a played turn, as its brief drew
    /// it (both players had the brief, so the archive may show it).
    fn table_diagrams(
        &self,
        g: &GameRow,
        scn: &Scenario,
        months: &[MonthFile],
    ) -> Result<TableDiagrams> {
        use crate::battle::{brief, diagram, tabletop::Tabletop};
        let mut out = TableDiagrams::new();
        let shipped;
        let data = match &self.tabletop {
            Some(d) => d,
            None => {
                shipped = match Tabletop::shipped(&scn.units) {
                    Ok(t) => t,
                    Err(_) => return Ok(out),
                };
                &shipped
            }
        };
        for row in crate::store::battles::battles_of_game(&self.conn, &g.id)? {
            let Some(month) = months
                .iter()
                .find(|m| m.turns.iter().any(|t| t.turn_no == row.turn_no))
            else {
                continue;
            };
            if !row.status.is_settled() {
                continue;
            }
            let (Ok(combat), Ok(state)) = (
                serde_json::from_str::<crate::engine::elsewhere::Combat>(&row.combat),
                serde_json::from_str::<GameState>(&row.state),
            ) else {
                continue;
            };
            let rules = state.options.table_battles.rules;
            let Ok(b) = brief::brief_with_resolver(
                data,
                self.data.etyfw.as_ref(),
                scn,
                &state,
                &combat,
                rules,
                None,
            ) else {
                continue;
            };
            let title = format!(
                "Battle {}: {}",
                row.id,
                brief::diagram_title(scn, &combat, rules)
            );
            let svg = diagram::svg(&b.layout, &title);
            let file = format!("tables/{}-battle-{}.svg", month.month, row.id);
            out.entry(month.month.clone())
                .or_default()
                .push((title, file, svg));
        }
        Ok(out)
    }
}

/// Every file of a game's site, relative to its folder.
pub fn site_files(
    scn: &Scenario,
    game: &GameFile,
    months: &[MonthFile],
    tables: &TableDiagrams,
) -> Result<Vec<SiteFile>> {
    let mut files: Vec<SiteFile> = Vec::new();
    files.push(("index.html".into(), page::game_page(game)));
    files.push(("verify.html".into(), page::verify_page(game, months)));
    files.push(("json/game.json".into(), json(game, true)?));
    for (i, m) in months.iter().enumerate() {
        let mut maps = MonthMaps::default();
        let mut all_events: Vec<Event> = Vec::new();
        for pt in &m.player_turns {
            let file = format!("maps/{}-{}.svg", m.month, pt.side);
            let side = if pt.side == "egyptian" {
                "Egyptian"
            } else {
                "Mahdist"
            };
            let svg = map_svg(
                scn,
                Some(&pt.state),
                &View::theatre().with_overlay(&pt.events, None),
            );
            maps.theatre.push(MapRef::drawn(
                format!("After the {side} player turn of {}", m.name),
                file.clone(),
                &svg,
            ));
            files.push((file, svg));
            all_events.extend(pt.events.iter().cloned());
        }
        if let Some(last) = m.player_turns.last() {
            for (title, centre) in
                crate::render::sectors::centres(scn, &last.state, &all_events, None)
            {
                let file = format!("maps/{}-{centre}.svg", m.month);
                let svg = map_svg(
                    scn,
                    Some(&last.state),
                    &View::around(centre, crate::render::sectors::RADIUS)
                        .with_overlay(&all_events, None),
                );
                maps.sectors.push(MapRef::drawn(
                    format!("{title}, {}", m.name),
                    file.clone(),
                    &svg,
                ));
                files.push((file, svg));
            }
        }
        for (title, file, svg) in tables.get(&m.month).into_iter().flatten() {
            maps.tables
                .push(MapRef::drawn(title.clone(), file.clone(), svg));
            files.push((file.clone(), svg.clone()));
        }
        let prev = i.checked_sub(1).map(|p| months[p].month.as_str());
        let next = months.get(i + 1).map(|n| n.month.as_str());
        files.push((
            page::month_page_file(&m.month),
            page::month_page(game, m, &maps, prev, next),
        ));
        files.push((page::month_json_file(&m.month), json(m, false)?));
    }
    Ok(files)
}

/// `out/style.css`, `out/favicon.ico` and `out/index.html`: every game archived in `out`
/// (each folder with a readable `json/game.json`), by id.
fn write_root(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| io("cannot create", out, e))?;
    let mut games: Vec<GameFile> = Vec::new();
    let entries = std::fs::read_dir(out).map_err(|e| io("cannot read", out, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.') {
            continue;
        }
        let file = entry.path().join("json/game.json");
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        match serde_json::from_str::<GameFile>(&text) {
            Ok(g) if g.archive == page::GAME_KIND && g.game == name => games.push(g),
            _ => {
                tracing::warn!(file = %file.display(), "not a Dervish campaign file; left out of the list")
            }
        }
    }
    games.sort_by(|a, b| a.game.cmp(&b.game));
    let icon = page::favicon().map_err(ServiceError::Archive)?;
    for (name, bytes) in [
        ("style.css", page::STYLE.as_bytes().to_vec()),
        ("index.html", page::games_page(&games).into_bytes()),
        ("favicon.ico", icon),
    ] {
        let path = out.join(name);
        std::fs::write(&path, bytes).map_err(|e| io("cannot write", &path, e))?;
    }
    Ok(())
}
