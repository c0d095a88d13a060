//! The turn record: what anyone needs to play a turn again without the
//! host's database, sent with every results mail as a JSON attachment.
//!
//! The results mail has always said that the dice were drawn before the
//! orders came in (the seed's fingerprint is published when a turn opens)
//! and that the orders played are the ones sealed in the receipts. The
//! record makes that checkable by the players themselves: it carries the
//! state the turn started from, the seed, and both order sets in canonical
//! form once they are revealed, and the digests of what the turn gave.
//! `dervish verify --from-mail results.eml` reads it, checks every digest,
//! reads the orders again with the same order checker the host used, plays
//! the turn with the public scenario data and compares the state, the
//! events and the log, the log in the mail included.
//!
//! A player checks the chain of turns with the digests: a turn's
//! `state_before_sha256` is the `state_after_sha256` of the turn before,
//! and its `seed_sha256` is the `next_seed_sha256` the results of the turn
//! before announced (`verify` checks both when it is given both mails).

use serde::{Deserialize, Serialize};

use super::play::{NO_ORDERS, adjudicate};
use super::secrets::{sha256_hex, unhex};
use crate::engine::orders::Orders;
use crate::mail::outbound::Attachment;
use crate::orders::{self, Input, Vocabulary};
use crate::render::log;
use crate::scenario::{DataSet, Side};
use crate::state::GameState;
use crate::store::{GameRow, OrderSetRow, TurnKind, TurnRow};

/// What the `record` field of every turn record says.
pub const KIND: &str = "dervish turn record";
/// The version of the format; a reader refuses one it does not know.
pub const FORMAT: u32 = 1;

/// One turn, as published with its results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    /// Always [`KIND`].
    pub record: String,
    /// Always [`FORMAT`] for this version.
    pub format: u32,
    pub game: String,
    /// The scenario's id (`el-obeid`, `khartoum`).
    pub scenario: String,
    /// The digest of the scenario data the game is played with (map,
    /// units, tables, events and the scenario); see `DataFiles::load`.
    pub data_sha256: String,
    pub turn_no: u32,
    /// `1884-03`.
    pub month: String,
    /// `month`, `egyptian` or `mahdist` (one player turn, alternating mode).
    pub turn_kind: String,
    /// The seed, 32 bytes in hex, secret until the turn was played.
    pub seed_hex: String,
    /// Its SHA-256, published when the turn opened.
    pub seed_sha256: String,
    /// The state the turn started from: the engine's state as JSON, the
    /// exact text whose SHA-256 is `state_before_sha256`.
    pub state_before: String,
    pub state_before_sha256: String,
    /// The orders of each side the turn played, Egyptian first.
    pub orders: Vec<SealedOrders>,
    pub state_after_sha256: String,
    pub events_sha256: String,
    pub log_sha256: String,
    /// The fingerprint of the next turn's seed, announced with these
    /// results; `None` when the game ended with this turn.
    pub next_seed_sha256: Option<String>,
    /// The table battles' settlements the turn was played with (the
    /// engine's battle key and settlement, as in the turn row); empty
    /// without table battles.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub battles: String,
    /// The game master took the game back to the start of this turn
    /// before it was played (`game rollback`): the turns taken back, why,
    /// and the seed fingerprint this turn was first announced with, so
    /// the chain from the turn before shows the rollback, not a gap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<Rollback>,
}

/// A rollback to the start of a turn, as its record carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rollback {
    /// When, `2026-03-01T12:00:00Z`.
    pub at: String,
    /// The turns taken back, from this turn on (`turn 5`, `turns 5 to 7`).
    pub taken_back: String,
    pub why: String,
    /// The fingerprint of the seed this turn was announced with before
    /// the rollback; it was played again with a new one.
    pub announced_seed_sha256: String,
}

/// The audit action of a rollback to the start of turn `turn_no`.
pub fn rollback_action(turn_no: u32) -> String {
    format!("rollback to turn {turn_no}")
}

/// The audit detail of a rollback, which [`TurnRecord::with_rollback`]
/// reads back.
pub fn rollback_detail(taken_back: &str, announced: &str, why: &str) -> String {
    format!("taken back: {taken_back}\nannounced seed SHA-256: {announced}\nwhy: {why}")
}

/// One side's orders, revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedOrders {
    /// `egyptian` or `mahdist`.
    pub side: String,
    /// The hash sealed in the receipt: the SHA-256 of [`sealed_text`], or
    /// the words of `NO_ORDERS` when the side sent none and held.
    pub sealed_sha256: String,
    /// The orders in canonical form, as the receipt printed them; `None`
    /// when the side sent none.
    pub canonical: Option<String>,
}

/// The exact text whose SHA-256 seals a set of orders in the receipt.
pub fn sealed_text(game: &str, turn_no: u32, side: Side, canonical: &str) -> String {
    format!("dervish orders\ngame {game}\nturn {turn_no}\nside {side}\n{canonical}")
}

/// Store `orders`, as `canonical` writes them, as a new version of
/// `side`'s order set for the open turn of `g`, sealed with the SHA-256 of
/// their [`sealed_text`] (the row's `sha256`).
pub(super) fn insert_sealed_set(
    c: &rusqlite::Connection,
    g: &GameRow,
    side: Side,
    set: SetToSeal<'_>,
    now: chrono::DateTime<chrono::Utc>,
) -> super::Result<OrderSetRow> {
    let sealed = sha256_hex(sealed_text(&g.id, g.turn_no, side, set.canonical).as_bytes());
    let orders_json =
        serde_json::to_string(set.orders).map_err(|e| super::ServiceError::State {
            game: g.id.clone(),
            message: e.to_string(),
        })?;
    Ok(crate::store::insert_order_set(
        c,
        &crate::store::NewOrderSet {
            game_id: &g.id,
            turn_no: g.turn_no,
            side,
            message: set.message,
            canonical: set.canonical,
            orders: &orders_json,
            sha256: &sealed,
            ready: set.ready,
            refused_lines: set.refused_lines,
            received_at: now,
        },
    )?)
}

/// What [`insert_sealed_set`] seals: the orders, as the engine takes them
/// and as their canonical text, from the mail `message` if a mail sent
/// them, with the lines of that mail that will not be carried out.
#[derive(Clone, Copy)]
pub(super) struct SetToSeal<'a> {
    pub message: Option<i64>,
    pub canonical: &'a str,
    pub orders: &'a Orders,
    pub ready: bool,
    pub refused_lines: u32,
}

/// The file name of a turn record: `sudan-turn-7.json`.
pub fn file_name(game: &str, turn_no: u32) -> String {
    format!("{}-turn-{turn_no}.json", safe(game))
}

/// The file name of a turn's full log: `sudan-1884-03-log.txt` (with the
/// player turn in alternating mode: `sudan-1884-03-egyptian-log.txt`).
pub fn log_file_name(game: &str, month: &str, kind: TurnKind) -> String {
    match kind {
        TurnKind::Month => format!("{}-{month}-log.txt", safe(game)),
        TurnKind::Player(_) | TurnKind::SetUp(_) => {
            format!("{}-{month}-{}-log.txt", safe(game), kind.as_str())
        }
    }
}

/// A game id as a file name: letters, digits, `-` and `_` kept, anything
/// else `_` (game ids are already like that; this keeps it so).
pub(super) fn safe(game: &str) -> String {
    game.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl TurnRecord {
    /// The record of a played turn.
    pub fn of(
        game: &GameRow,
        turn: &TurnRow,
        egyptian: Option<&OrderSetRow>,
        mahdist: Option<&OrderSetRow>,
        data_sha256: &str,
        next_seed_sha256: Option<&str>,
    ) -> TurnRecord {
        let sealed = |side: Side, set: Option<&OrderSetRow>, hash: &str| SealedOrders {
            side: crate::store::side_text(side).to_string(),
            sealed_sha256: hash.to_string(),
            canonical: set.map(|s| s.canonical.clone()),
        };
        let orders = turn
            .turn_kind
            .sides()
            .into_iter()
            .map(|side| match side {
                Side::Egyptian => sealed(side, egyptian, &turn.egyptian_sha256),
                Side::Mahdist => sealed(side, mahdist, &turn.mahdist_sha256),
            })
            .collect();
        TurnRecord {
            record: KIND.to_string(),
            format: FORMAT,
            game: game.id.clone(),
            scenario: game.scenario.clone(),
            data_sha256: data_sha256.to_string(),
            turn_no: turn.turn_no,
            month: turn.month.clone(),
            turn_kind: turn.turn_kind.as_str().to_string(),
            seed_hex: turn.seed_hex.clone(),
            seed_sha256: turn.seed_sha256.clone(),
            state_before_sha256: sha256_hex(turn.state_before.as_bytes()),
            state_before: turn.state_before.clone(),
            orders,
            state_after_sha256: sha256_hex(turn.state_after.as_bytes()),
            events_sha256: sha256_hex(turn.events.as_bytes()),
            log_sha256: sha256_hex(turn.log.as_bytes()),
            next_seed_sha256: next_seed_sha256.map(str::to_string),
            battles: if turn.battles == "[]" {
                String::new()
            } else {
                turn.battles.clone()
            },
            rollback: None,
        }
    }

    /// The record with the game master's last rollback to the start of
    /// its turn, if the game's audit `log` (time, actor, action, detail)
    /// has one from before the turn was played.
    pub fn with_rollback(mut self, log: &[(String, String, String, String)]) -> TurnRecord {
        // The last rollback to this turn, unless one to an earlier turn
        // came after it (the turn was then taken back again).
        let mut found = None;
        for (at, _, action, detail) in log.iter().rev() {
            let Some(to) = action
                .strip_prefix("rollback to turn ")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if to <= self.turn_no {
                found = (to == self.turn_no).then_some((at, detail));
                break;
            }
        }
        let Some((at, detail)) = found else {
            return self;
        };
        let field = |name: &str| {
            detail
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        self.rollback = Some(Rollback {
            at: at.clone(),
            taken_back: field("taken back:"),
            why: field("why:"),
            announced_seed_sha256: field("announced seed SHA-256:"),
        });
        self
    }

    /// The record as an attachment, pretty-printed JSON.
    pub fn attachment(&self) -> Attachment {
        Attachment::text(
            file_name(&self.game, self.turn_no),
            "application/json",
            self.json_text(),
        )
    }

    /// The record as its file holds it: pretty-printed JSON and a newline
    /// (the attachment, and the archive's `records/`).
    pub fn json_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Read a record from its JSON text, with a clear error for anything
    /// that is not one.
    pub fn from_json(text: &str) -> Result<TurnRecord, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("it is not JSON: {e}"))?;
        if v.get("record").and_then(|r| r.as_str()) != Some(KIND) {
            return Err(format!(
                "it is not a Dervish turn record (no \"record\": \"{KIND}\")"
            ));
        }
        match v.get("format").and_then(|f| f.as_u64()) {
            Some(f) if f == u64::from(FORMAT) => {}
            Some(f) => {
                return Err(format!(
                    "it is a turn record of format {f}, and this Dervish reads format {FORMAT}: use the Dervish version the game is played with"
                ));
            }
            None => return Err("it has no format number".into()),
        }
        serde_json::from_value(v).map_err(|e| format!("it is not a complete turn record: {e}"))
    }
}

/// One check of [`verify`]: what was checked, and whether it held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub what: String,
    pub ok: bool,
    /// Why not, or what was found.
    pub detail: String,
}

impl Check {
    fn new(what: impl Into<String>, ok: bool, detail: impl Into<String>) -> Check {
        Check {
            what: what.into(),
            ok,
            detail: detail.into(),
        }
    }
}

/// What the mail carried besides the record: the log as the player read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MailText {
    /// The text body, line ends as LF.
    pub body: String,
    /// The full log sent as an attachment, if it was, line ends as LF.
    pub log_attachment: Option<String>,
}

/// Check a turn record: the seed against its fingerprint, the state
/// against its digest, each order set against the hash sealed in its
/// receipt; then read the orders again with the order checker, play the
/// turn with `data` and compare the state, events and log with the
/// record's digests, and the log with the one in the mail, if given.
pub fn verify(data: &DataSet, rec: &TurnRecord, mail: Option<&MailText>) -> Vec<Check> {
    let mut out = Vec::new();
    // `None`: a check failed that the ones after it need; they are left out.
    let _ = verify_into(data, rec, mail, &mut out);
    out
}

/// The checks of [`verify`] in order, stopping where the rest cannot be
/// made.
fn verify_into(
    data: &DataSet,
    rec: &TurnRecord,
    mail: Option<&MailText>,
    out: &mut Vec<Check>,
) -> Option<()> {
    if let Some(rb) = &rec.rollback {
        out.push(Check::new(
            "rollback",
            true,
            format!(
                "turn {} is played again: on {} the game master took back {} ({}); it was first announced with seed {}",
                rec.turn_no, rb.at, rb.taken_back, rb.why, rb.announced_seed_sha256
            ),
        ));
    }
    let scn = scenario_checks(data, rec, out)?;
    let seed = seed_check(rec, out);
    let before = state_before_check(rec, out)?;
    let Some(kind) = TurnKind::parse(&rec.turn_kind) else {
        out.push(Check::new(
            "turn",
            false,
            format!(
                "{:?} is not a kind of turn (month, egyptian, mahdist)",
                rec.turn_kind
            ),
        ));
        return None;
    };
    let (eg, md) = orders_checks(&scn, rec, kind, &before, out);
    let seed = seed?;
    let settled = if rec.battles.is_empty() {
        Default::default()
    } else {
        match super::play::settlements_from_json(&rec.battles) {
            Ok(s) => s,
            Err(e) => {
                out.push(Check::new("table battles", false, e));
                return None;
            }
        }
    };
    let played = adjudicate(
        &scn,
        before,
        kind,
        &eg,
        &md,
        seed,
        &settled,
        data.etyfw.as_ref(),
        None,
    );
    let r = match played {
        Ok((r, None)) => r,
        Ok((_, Some(_))) => {
            out.push(Check::new(
                "table battles",
                false,
                "the turn stops at a table battle the record has no result for",
            ));
            return None;
        }
        Err(e) => {
            out.push(Check::new(
                "the turn",
                false,
                format!("it cannot be played: {e}"),
            ));
            return None;
        }
    };
    let text = log::render(&scn.map, &r.events);
    played_again_checks(rec, &r, &text, out);
    if let Some(m) = mail {
        out.push(mail_log_check(m, &text));
    }
    Some(())
}

/// The record's scenario in this Dervish, and its data the game's.
fn scenario_checks(
    data: &DataSet,
    rec: &TurnRecord,
    out: &mut Vec<Check>,
) -> Option<crate::scenario::Scenario> {
    let Some(scn) = data.scenario(&rec.scenario) else {
        out.push(Check::new(
            "scenario",
            false,
            format!(
                "this Dervish has no scenario called {}; its scenarios are {}",
                rec.scenario,
                data.scenario_ids().join(", ")
            ),
        ));
        return None;
    };
    match data.digest(&rec.scenario) {
        Some(d) if d == rec.data_sha256 => out.push(Check::new(
            "scenario data",
            true,
            format!("{} as published with this Dervish", rec.scenario),
        )),
        d => out.push(Check::new(
            "scenario data",
            false,
            format!(
                "the game is played with data of digest {}, and this Dervish has {}: give the game's data folder with --data",
                rec.data_sha256,
                d.unwrap_or("none")
            ),
        )),
    }
    Some(scn)
}

/// The seed against the fingerprint published when the turn opened.
fn seed_check(rec: &TurnRecord, out: &mut Vec<Check>) -> Option<[u8; 32]> {
    let seed: Option<[u8; 32]> = unhex(&rec.seed_hex).and_then(|b| b.try_into().ok());
    match seed {
        Some(s) if sha256_hex(&s) == rec.seed_sha256 => out.push(Check::new(
            "seed",
            true,
            format!(
                "its SHA-256 is {}, the fingerprint published when the turn opened",
                rec.seed_sha256
            ),
        )),
        Some(_) => out.push(Check::new(
            "seed",
            false,
            format!(
                "its SHA-256 is not {}, the fingerprint the record names",
                rec.seed_sha256
            ),
        )),
        None => out.push(Check::new("seed", false, "it is not 32 bytes of hex")),
    }
    seed
}

/// The state before the turn against its digest, and read.
fn state_before_check(rec: &TurnRecord, out: &mut Vec<Check>) -> Option<GameState> {
    let before_ok = sha256_hex(rec.state_before.as_bytes()) == rec.state_before_sha256;
    out.push(Check::new(
        "state before the turn",
        before_ok,
        if before_ok {
            format!("its SHA-256 is {}", rec.state_before_sha256)
        } else {
            format!(
                "its SHA-256 is {}, not {} as the record says",
                sha256_hex(rec.state_before.as_bytes()),
                rec.state_before_sha256
            )
        },
    ));
    match serde_json::from_str(&rec.state_before) {
        Ok(s) => Some(s),
        Err(e) => {
            out.push(Check::new(
                "state before the turn",
                false,
                format!("it cannot be read: {e}"),
            ));
            None
        }
    }
}

/// Each side's sealed orders against their hash, read again by the order
/// checker: the Egyptian and Mahdist orders that the turn is played with
/// (none where a check failed).
fn orders_checks(
    scn: &crate::scenario::Scenario,
    rec: &TurnRecord,
    kind: TurnKind,
    before: &GameState,
    out: &mut Vec<Check>,
) -> (Orders, Orders) {
    let mut eg = Orders::default();
    let mut md = Orders::default();
    for side in kind.sides() {
        let what = format!("{side} orders");
        let check = match sealed_orders(scn, rec, kind, side, before, &eg) {
            Ok((check, Some(orders))) => {
                match side {
                    Side::Egyptian => eg = orders,
                    Side::Mahdist => md = orders,
                }
                check
            }
            Ok((check, None)) | Err(check) => check,
        };
        out.push(Check { what, ..check });
    }
    (eg, md)
}

/// One side's sealed orders: the check, and the orders checked (`None`
/// when the side held); `Err` for a check failed.
fn sealed_orders(
    scn: &crate::scenario::Scenario,
    rec: &TurnRecord,
    kind: TurnKind,
    side: Side,
    before: &GameState,
    egyptian: &Orders,
) -> Result<(Check, Option<Orders>), Check> {
    let fail = |detail: String| Check::new("", false, detail);
    let name = crate::store::side_text(side);
    let Some(sealed) = rec.orders.iter().find(|o| o.side == name) else {
        return Err(fail("the record has none for this side".into()));
    };
    let Some(canonical) = &sealed.canonical else {
        let ok = sealed.sealed_sha256 == NO_ORDERS;
        let detail = if ok {
            "none sent: the side held".to_string()
        } else {
            format!(
                "the record gives no orders, and a sealed hash {}",
                sealed.sealed_sha256
            )
        };
        return Ok((Check::new("", ok, detail), None));
    };
    let hash = sha256_hex(sealed_text(&rec.game, rec.turn_no, side, canonical).as_bytes());
    if hash != sealed.sealed_sha256 {
        return Err(fail(format!(
            "their SHA-256 is {hash}, not {}, the hash sealed in the receipt",
            sealed.sealed_sha256
        )));
    }
    let vocab = Vocabulary::new(scn).in_play(before);
    let parsed = orders::parse(&Input::text(canonical), &vocab)
        .map_err(|e| fail(format!("they cannot be read: {e}")))?;
    if let Some(e) = parsed.errors.first() {
        return Err(fail(format!("they do not read back: {e}")));
    }
    // The Mahdist set up knowing the Egyptian set-up (2.1): his set-up
    // orders were checked with the Egyptian's placed.
    let against = if kind.is_setup() && side == Side::Mahdist {
        crate::engine::set_up(
            scn,
            before.clone(),
            Side::Egyptian,
            egyptian,
            &mut Vec::new(),
        )
    } else {
        before.clone()
    };
    let checked = orders::check(&parsed.sheet, scn, &against, side);
    if checked.refused {
        return Err(fail(
            "the order checker refuses them against the state before the turn".into(),
        ));
    }
    let count = parsed
        .sheet
        .items
        .iter()
        .filter(|i| !matches!(i.order, orders::Order::Ready | orders::Order::ReadyAsIs))
        .count();
    let detail = format!(
        "{}, SHA-256 {hash} as sealed in the receipt, read again by the order checker",
        crate::words::count(count, "order", "orders"),
    );
    Ok((Check::new("", true, detail), Some(checked.orders)))
}

/// The state, events and log of the turn played again against the
/// record's digests.
fn played_again_checks(
    rec: &TurnRecord,
    r: &crate::engine::TurnResult,
    text: &str,
    out: &mut Vec<Check>,
) {
    let state = serde_json::to_string(&r.state).unwrap_or_default();
    let events = serde_json::to_string(&r.events).unwrap_or_default();
    for (what, got, want) in [
        (
            "state after the turn",
            sha256_hex(state.as_bytes()),
            &rec.state_after_sha256,
        ),
        (
            "events of the turn",
            sha256_hex(events.as_bytes()),
            &rec.events_sha256,
        ),
        ("result log", sha256_hex(text.as_bytes()), &rec.log_sha256),
    ] {
        let ok = &got == want;
        out.push(Check::new(
            what,
            ok,
            if ok {
                format!("played again: the same, SHA-256 {got}")
            } else {
                format!("played again, its SHA-256 is {got}, and the record says {want}")
            },
        ));
    }
}

/// The log the mail carries (attached, or in its text) against the log
/// the turn gives.
fn mail_log_check(m: &MailText, text: &str) -> Check {
    let (ok, detail) = match &m.log_attachment {
        Some(a) if *a == text => (true, "the log attached is the log the turn gives"),
        Some(_) => (
            false,
            "the log attached differs from the log the turn gives",
        ),
        None if m.body.contains(text.trim_end()) => {
            (true, "the log in the mail is the log the turn gives")
        }
        None => (
            false,
            "the mail does not hold the log the turn gives, neither in its text nor attached",
        ),
    };
    Check::new("log in the mail", ok, detail)
}

/// Read the turn records of a results mail (RFC 5322 bytes, as saved by a
/// mail program): each record attached, with the mail's text and its log
/// attachment. A mail with no record is refused with the reason.
pub fn from_mail(bytes: &[u8]) -> Result<(Vec<TurnRecord>, MailText), String> {
    use mail_parser::{MessageParser, MimeHeaders};
    let m = MessageParser::default()
        .parse(bytes)
        .ok_or("it is not a mail message")?;
    let lf = |s: &str| s.replace("\r\n", "\n");
    let mut text = MailText {
        body: m.body_text(0).map(|b| lf(&b)).unwrap_or_default(),
        log_attachment: None,
    };
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for a in m.attachments() {
        let name = a.attachment_name().unwrap_or_default().to_string();
        let Ok(body) = std::str::from_utf8(a.contents()) else {
            continue;
        };
        if name.ends_with("-log.txt") {
            text.log_attachment = Some(lf(body));
        } else if name.ends_with(".json") {
            match TurnRecord::from_json(body) {
                Ok(r) => records.push(r),
                Err(e) => problems.push(format!("{name}: {e}")),
            }
        }
    }
    if records.is_empty() {
        return Err(if problems.is_empty() {
            "it has no turn record attached (a results mail of Dervish carries one, named like game-turn-7.json)".to_string()
        } else {
            format!("no attachment is a turn record: {}", problems.join("; "))
        });
    }
    Ok((records, text))
}

/// The chain between two records of one game, the earlier first: the
/// later starts from the state the earlier left, and (when the later is
/// the next turn) its seed is the one the earlier announced.
pub fn chain(earlier: &TurnRecord, later: &TurnRecord) -> Vec<Check> {
    let mut out = Vec::new();
    if earlier.game != later.game || later.turn_no != earlier.turn_no + 1 {
        return out;
    }
    let what = format!("turns {} and {}", earlier.turn_no, later.turn_no);
    if let Some(rb) = &later.rollback {
        out.push(Check::new(
            what.clone(),
            true,
            format!(
                "the game master took the game back to the start of turn {} on {} ({} taken back): {}",
                later.turn_no, rb.at, rb.taken_back, rb.why
            ),
        ));
    }
    let ok = earlier.state_after_sha256 == later.state_before_sha256;
    out.push(Check::new(
        what.clone(),
        ok,
        if ok {
            format!(
                "turn {} starts from the state turn {} left",
                later.turn_no, earlier.turn_no
            )
        } else {
            format!(
                "turn {} does not start from the state turn {} left ({} and {})",
                later.turn_no,
                earlier.turn_no,
                later.state_before_sha256,
                earlier.state_after_sha256
            )
        },
    ));
    if let Some(seed) = &earlier.next_seed_sha256 {
        // After a rollback the turn is played with a new seed, announced
        // with the rollback; the first one must be the one announced.
        let replayed = later
            .rollback
            .as_ref()
            .filter(|rb| rb.announced_seed_sha256 == *seed);
        if let Some(rb) = replayed {
            out.push(Check::new(
                what,
                true,
                format!(
                    "turn {} was first announced with the seed {}, as the results of turn {} said; it was played again after the rollback with a new seed",
                    later.turn_no, rb.announced_seed_sha256, earlier.turn_no
                ),
            ));
            return out;
        }
        let ok = *seed == later.seed_sha256;
        out.push(Check::new(
            what,
            ok,
            if ok {
                format!(
                    "the seed of turn {} is the one announced with the results of turn {}",
                    later.turn_no, earlier.turn_no
                )
            } else {
                format!(
                    "the results of turn {} announced the fingerprint {seed}, and turn {} was played with {}",
                    earlier.turn_no, later.turn_no, later.seed_sha256
                )
            },
        ));
    }
    out
}
