//! Table battles in the service (docs/tabletop.md): a turn that stops at a
//! combat sent to the table, the briefs mailed, the result taken by mail
//! (proposed by one player, confirmed or disputed by the other, entered by
//! the game master), the deadline, and the turn played again from its
//! start once every battle it met is settled.
//!
//! A stopped turn is stored as a battle row: the combat and the state as
//! the engine met them, and the order sets the turn is played with (fixed
//! from then on). No turn row is written until the turn has been played to
//! its end; that turn row carries every settlement it was played with, so
//! `verify` and `replay` play it again byte for byte.

use std::collections::BTreeMap;

use chrono::Duration;
use minijinja::context;

use super::games::{deadline_text, own_mail};
use super::mail::Draft;
use super::outcome::Outcome;
use super::play::erased;
use super::{Result, Service, ServiceError};
use crate::battle::result::{Forces, ResultError, TableResult, read};
use crate::battle::table::{Settlement, Stopped};
use crate::engine::elsewhere::Combat;
use crate::mail::inbound::Inbound;
use crate::mail::outbound::Attachment;
use crate::scenario::{Scenario, Side};
use crate::state::{AutoResolver, GameState, TableSelect};
use crate::store::battles::{self as bstore, BattleRow, BattleStatus};
use crate::store::{self, GameRow, Status};

pub use super::play::{Settlements, settlements_from_json, settlements_json};

/// What a battle mail asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BattleMail {
    /// `BATTLE n` and a result: the body with the header lines and the
    /// `BATTLE` line blanked, so the result's line numbers are the mail's.
    Result { battle: i64, text: String },
    /// `CONFIRM BATTLE n`.
    Confirm { battle: i64 },
    /// `DISPUTE BATTLE n` and the reason (the rest of the line).
    Dispute { battle: i64, reason: String },
}

/// Whether `body` is sure to hold no line [`battle_mail`] answers, seen
/// without reading it as orders are read (most mails are orders): plain
/// ASCII without the word BATTLE in any case. Reading keeps each line a
/// piece of a line of the body then, as it drops only odd characters
/// (none in plain ASCII but the tab, which becomes a space) and joins
/// lines only for format=flowed with DelSp (`joins`), where a word may be
/// split across lines.
fn names_no_battle(body: &str, joins: bool) -> bool {
    let bytes = body.as_bytes();
    !joins
        && bytes
            .iter()
            .all(|&b| matches!(b, b' '..=b'~' | b'\n' | b'\r' | b'\t'))
        && !bytes.windows(6).any(|w| w.eq_ignore_ascii_case(b"battle"))
}

/// Whether a mail's body is about a table battle: its first line of the
/// player's own text (as orders are read: quotes, quoted copies of our own
/// mails such as the brief, signatures and footers dropped,
/// `orders::clean::order_lines`) that starts with `BATTLE`, `CONFIRM
/// BATTLE` or `DISPUTE BATTLE` and a number says which. A result's text
/// is the player's own lines at their line numbers in the mail, the header
/// lines (`GAME`, `SIDE`, `SECRET`, `MONTH`) and the `BATTLE` line blank,
/// so the result's errors name the mail's lines.
pub fn battle_mail(body: &str, flowed: bool, delsp: bool) -> Option<BattleMail> {
    if names_no_battle(body, flowed && delsp) {
        return None;
    }
    let lines = crate::orders::clean::order_lines(body, flowed, delsp).ok()?;
    let number = |w: &str| w.trim_start_matches('#').parse::<i64>().ok();
    for (i, l) in lines.iter().enumerate() {
        let t = l.text.trim();
        let upper = t.to_ascii_uppercase();
        let words: Vec<&str> = upper.split_whitespace().collect();
        match words.as_slice() {
            ["BATTLE", n, ..] => {
                let battle = number(n)?;
                let last = lines.last().map_or(0, |l| l.number);
                let mut text = vec![String::new(); last];
                for (k, l) in lines.iter().enumerate() {
                    let first = l
                        .text
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_ascii_uppercase();
                    let header = matches!(first.as_str(), "GAME" | "SIDE" | "SECRET" | "MONTH");
                    if k != i && !header && l.number >= 1 {
                        text[l.number - 1] = l.text.clone();
                    }
                }
                // The result's own END, which the reading of the mail
                // stops at, ends it.
                text.push("END".into());
                return Some(BattleMail::Result {
                    battle,
                    text: text.join("\n"),
                });
            }
            ["CONFIRM", "BATTLE", n, ..] => {
                return Some(BattleMail::Confirm { battle: number(n)? });
            }
            ["DISPUTE", "BATTLE", n, ..] => {
                let battle = number(n)?;
                // The reason as written, after the number.
                let reason = t.split_whitespace().skip(3).collect::<Vec<_>>().join(" ");
                return Some(BattleMail::Dispute { battle, reason });
            }
            _ => {}
        }
    }
    None
}

/// A result in the words of the grammar, for receipts and confirmations.
pub fn result_text(r: &TableResult) -> String {
    let mut out = vec![match r.winner {
        Some(s) => format!("WINNER {}", s.to_string().to_ascii_uppercase()),
        None => "DRAW".to_string(),
    }];
    let mut by_fate: BTreeMap<crate::battle::result::Fate, Vec<String>> = BTreeMap::new();
    for (id, f) in &r.fates {
        by_fate.entry(*f).or_default().push(id.0.to_string());
    }
    for (f, ids) in by_fate {
        out.push(format!("{} {f}", ids.join(" ")));
    }
    if !r.captured.is_empty() {
        let ids: Vec<String> = r.captured.iter().map(|u| u.0.to_string()).collect();
        out.push(format!("CAPTURED {}", ids.join(" ")));
    }
    if let Some(h) = r.retreat {
        out.push(format!("RETREAT TO {h}"));
    }
    out.push("END".into());
    out.join("\n")
}

/// The side's name as stored (`egyptian`, `mahdist`).
fn side_key(s: Side) -> &'static str {
    store::side_text(s)
}

impl Service {
    /// The combat and state of a stored battle.
    pub fn battle_parts(&self, b: &BattleRow) -> Result<(Combat, GameState)> {
        let bad = |e: serde_json::Error| ServiceError::State {
            game: b.game_id.clone(),
            message: format!("battle {}: {e}", b.id),
        };
        Ok((
            serde_json::from_str(&b.combat).map_err(bad)?,
            serde_json::from_str(&b.state).map_err(bad)?,
        ))
    }

    /// The settlements of a turn's settled battles.
    pub fn settlements_of(&self, rows: &[BattleRow]) -> Result<Settlements> {
        let mut out = Settlements::new();
        for b in rows {
            let (combat, _) = self.battle_parts(b)?;
            let settlement = match b.status {
                BattleStatus::Settled => {
                    let resolved = b
                        .resolved
                        .as_deref()
                        .ok_or_else(|| ServiceError::State {
                            game: b.game_id.clone(),
                            message: format!("battle {} is settled without a result", b.id),
                        })
                        .and_then(|j| {
                            serde_json::from_str(j).map_err(|e| ServiceError::State {
                                game: b.game_id.clone(),
                                message: format!("battle {}: {e}", b.id),
                            })
                        })?;
                    Settlement::Table {
                        text: b.result_text.clone().unwrap_or_default(),
                        resolved,
                    }
                }
                BattleStatus::Deadline => Settlement::Deadline,
                _ => continue,
            };
            out.insert(combat.key, settlement);
        }
        Ok(out)
    }

    /// The battle of a game that its open turn waits for, if any.
    pub fn open_battle(&self, game: &str) -> Result<Option<BattleRow>> {
        let g = self.game(game)?;
        Ok(bstore::battles_of_turn(&self.conn, game, g.turn_no)?
            .into_iter()
            .find(|b| !b.status.is_settled()))
    }

    /// Every table battle of a game.
    pub fn battles(&self, game: &str) -> Result<Vec<BattleRow>> {
        self.game(game)?;
        Ok(bstore::battles_of_game(&self.conn, game)?)
    }

    /// The turn stopped at a combat sent to the table: store it with the
    /// order sets the turn is played with, and mail the briefs to both
    /// players and the game master. Returns the battle's number.
    pub(super) fn stop_for_battle(
        &self,
        scn: &Scenario,
        g: &GameRow,
        stopped: &Stopped,
        sets: (Option<i64>, Option<i64>),
    ) -> Result<i64> {
        let now = self.now();
        let options = &stopped.state.options.table_battles;
        let json = |v: &dyn erased::Json| super::play::json_of(&g.id, v);
        let row = BattleRow {
            id: 0,
            game_id: g.id.clone(),
            turn_no: g.turn_no,
            battle_key: json(&stopped.combat.key)?,
            combat: json(&stopped.combat)?,
            state: json(&stopped.state)?,
            egyptian_set: sets.0,
            mahdist_set: sets.1,
            status: BattleStatus::Waiting,
            result_text: None,
            proposed_by: None,
            resolved: None,
            dispute: None,
            deadline: now + Duration::hours(i64::from(options.deadline_hours)),
            created_at: now,
            settled_at: None,
        };
        let tx = self.begin()?;
        let id = bstore::insert_battle(&tx, &row)?;
        let players = store::players(&tx, &g.id)?;
        let solo = players.iter().find(|p| p.bot.is_some()).map(|p| p.side);
        let place = scn.map.describe(stopped.combat.defender_hex);
        let made = match &self.tabletop {
            Some(data) => Ok(data.clone()),
            None => crate::battle::tabletop::Tabletop::shipped(&scn.units)
                .map_err(crate::battle::brief::BriefError::Data),
        }
        .and_then(|data| {
            crate::battle::brief::brief_with_resolver(
                &data,
                self.data.etyfw.as_ref(),
                scn,
                &stopped.state,
                &stopped.combat,
                options.rules,
                solo,
            )
        });
        let (brief, files) = match made {
            Ok(b) => {
                let files = self.diagram_files(scn, g, id, &stopped.combat, options.rules, &b);
                (b.text, files)
            }
            // The briefs' data is checked when loaded; should it fail
            // here, the battle still goes out, with its forces and the
            // result to fill in, and the reason.
            Err(e) => {
                tracing::warn!(game = %g.id, error = %e, "no battle brief");
                let forces = Forces::of(scn, &stopped.state, &stopped.combat);
                let text = format!(
                    "(The brief for {} could not be made: {e}.)\n\n{}: {} attack {} from {}\n\n{}",
                    options.rules.title(),
                    stopped.combat.key,
                    stopped.combat.attacker,
                    place,
                    scn.map.describe(stopped.combat.attacker_hex),
                    fill_in(&forces)
                );
                (text, Vec::new())
            }
        };
        let fallback = match stopped.state.options.resolver {
            AutoResolver::Tables => "on the campaign's combat tables",
            AutoResolver::Etyfw => "by the ETYFW resolver",
        };
        let mut to: Vec<(String, String)> = players
            .iter()
            .filter(|p| !p.address.is_empty())
            .map(|p| (side_key(p.side).to_string(), p.address.clone()))
            .collect();
        to.push(("gm".into(), self.cfg.host.game_master.clone()));
        for (who, address) in to {
            let rendered = self.templates.render(
                "battle_brief.txt",
                context! {
                    game => g.id.clone(),
                    battle => id,
                    turn => g.turn_no,
                    month => stopped.state.month.long_name(),
                    place => place.clone(),
                    rules => options.rules.title(),
                    recipient => who.clone(),
                    brief => brief.clone(),
                    solo => solo.is_some(),
                    deadline => deadline_text(row.deadline),
                    fallback => fallback,
                },
            )?;
            let key = format!("battle:{}:{id}:brief:{who}", g.id);
            self.queue(Draft {
                attachments: files.clone(),
                ..own_mail(&g.id, "battle", key, &address, rendered)
            })?;
        }
        store::audit(
            &tx,
            now,
            Some(&g.id),
            "service",
            "table battle",
            &format!(
                "turn {} stopped at battle {id} ({}) at {place}; result due by {}",
                g.turn_no,
                stopped.combat.key,
                deadline_text(row.deadline)
            ),
        )?;
        tx.commit()?;
        tracing::info!(game = %g.id, turn = g.turn_no, battle = id, "turn stopped for a table battle");
        Ok(id)
    }

    /// The battlefield diagram of a brief, for its mail: the PNG shown in
    /// the HTML part and the SVG beside it. A PNG that cannot be drawn
    /// leaves the SVG alone; the mail goes either way.
    fn diagram_files(
        &self,
        scn: &Scenario,
        g: &GameRow,
        id: i64,
        combat: &Combat,
        rules: crate::state::RuleSet,
        b: &crate::battle::brief::Brief,
    ) -> Vec<Attachment> {
        use crate::battle::{brief::diagram_title, diagram};
        let title = diagram_title(scn, combat, rules);
        let svg = diagram::svg(&b.layout, &title);
        let name = diagram_file_name(&g.id, id);
        let mut files = Vec::new();
        match diagram::png(&svg, DIAGRAM_PX) {
            Ok(png) => files.push(
                Attachment::bytes(format!("{name}.png"), "image/png", png).shown_inline(
                    format!("{name}.png@{}", self.cfg.domain()),
                    format!("The table of battle {id}: {title}"),
                ),
            ),
            Err(e) => {
                tracing::warn!(game = %g.id, battle = id, error = %e, "the brief goes without its drawn diagram");
            }
        }
        files.push(Attachment::text(
            format!("{name}.svg"),
            "image/svg+xml",
            svg,
        ));
        files
    }

    /// Battles whose deadline has passed: a result sent and not disputed
    /// stands; otherwise the battle is resolved automatically when the
    /// turn is played again. Returns how many were settled.
    pub fn settle_battle_deadlines(&self) -> Result<usize> {
        let now = self.now();
        let mut n = 0;
        for id in store::game_ids(&self.conn)? {
            let Some(g) = store::game(&self.conn, &id)? else {
                continue;
            };
            if g.status != Status::Running {
                continue;
            }
            for mut b in bstore::battles_of_turn(&self.conn, &id, g.turn_no)? {
                if b.status.is_settled() || now < b.deadline {
                    continue;
                }
                let tx = self.begin()?;
                let what = if b.status == BattleStatus::Proposed {
                    b.status = BattleStatus::Settled;
                    "the result sent was not disputed by the deadline: it stands".to_string()
                } else {
                    b.status = BattleStatus::Deadline;
                    "no settled result by the deadline: the combat is resolved automatically, and the log says so".to_string()
                };
                b.settled_at = Some(now);
                bstore::update_battle(&tx, &b)?;
                self.tell_battle(&tx, &g, &b, "deadline", &what)?;
                tx.commit()?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// A battle goes to the game master: marked disputed with `why`,
    /// stored, and `text` told to both players and the game master.
    fn dispute_battle(
        &self,
        tx: &rusqlite::Connection,
        g: &GameRow,
        b: &mut BattleRow,
        why: String,
        text: &str,
    ) -> Result<()> {
        b.status = BattleStatus::Disputed;
        b.dispute = Some(why);
        bstore::update_battle(tx, b)?;
        self.tell_battle(tx, g, b, "disputed", text)
    }

    /// Mail both players and the game master a line about a battle.
    fn tell_battle(
        &self,
        tx: &rusqlite::Connection,
        g: &GameRow,
        b: &BattleRow,
        step: &str,
        text: &str,
    ) -> Result<()> {
        let key = format!("battle:{}:{step}", b.id);
        self.notice_to_all(tx, &g.id, &key, &format!("battle {}", b.id), text)?;
        store::audit(
            tx,
            self.now(),
            Some(&g.id),
            "service",
            "table battle",
            &format!("battle {}: {text}", b.id),
        )?;
        Ok(())
    }

    /// A battle of this game, or why not.
    fn battle_of(&self, g: &GameRow, id: i64) -> Result<std::result::Result<BattleRow, String>> {
        let Some(b) = bstore::battle(&self.conn, id)? else {
            return Ok(Err(format!("game {} has no battle {id}", g.id)));
        };
        if b.game_id != g.id {
            return Ok(Err(format!("game {} has no battle {id}", g.id)));
        }
        if b.status.is_settled() {
            return Ok(Err(format!(
                "battle {id} is settled already; the turn goes on with its result"
            )));
        }
        Ok(Ok(b))
    }

    /// Read a result against the battle's forces.
    fn read_result(
        &self,
        b: &BattleRow,
        text: &str,
    ) -> Result<std::result::Result<TableResult, Vec<ResultError>>> {
        let g = self.game(&b.game_id)?;
        let scn = self.scenario(&g.scenario)?;
        let (combat, state) = self.battle_parts(b)?;
        let forces = Forces::of(&scn, &state, &combat);
        Ok(read(text, &forces, &scn.map))
    }

    /// Settle a battle with a result; the turn is played again at the next
    /// pass.
    fn settle_with(
        &self,
        tx: &rusqlite::Connection,
        g: &GameRow,
        b: &mut BattleRow,
        how: &str,
    ) -> Result<()> {
        b.status = BattleStatus::Settled;
        b.settled_at = Some(self.now());
        bstore::update_battle(tx, b)?;
        let text = format!(
            "the result of battle {} is settled ({how}); the turn is played on at the next pass.\n\n{}",
            b.id,
            b.result_text.clone().unwrap_or_default().trim()
        );
        self.tell_battle(tx, g, b, "settled", &text)
    }

    /// What a settled result says in the log: who fought it and how it
    /// was agreed.
    fn how(rules: crate::state::RuleSet, agreed: &str) -> String {
        format!("on the table ({}); {agreed}", rules.title())
    }

    /// A battle mail from a player (already known by their secret).
    pub(super) fn battle_mail_from(
        &self,
        g: &GameRow,
        side: Side,
        sender: &str,
        message_id: &str,
        mail: &Inbound,
        ask: BattleMail,
    ) -> Result<Outcome> {
        let battle = match &ask {
            BattleMail::Result { battle, .. }
            | BattleMail::Confirm { battle }
            | BattleMail::Dispute { battle, .. } => *battle,
        };
        let reply = BattleReply {
            g,
            side,
            battle,
            sender,
            message_id,
            mail,
        };
        let b = match self.battle_of(g, battle)? {
            Ok(b) => b,
            Err(reason) => return reply.refuse(self, reason),
        };
        match ask {
            BattleMail::Result { text, .. } => self.battle_result_from(&reply, b, &text),
            BattleMail::Confirm { .. } => self.battle_confirmed_by(&reply, b),
            BattleMail::Dispute { reason, .. } => self.battle_disputed_by(&reason, &reply, b),
        }
    }

    /// A result from a player: refused with its errors, disputed when it
    /// differs from the other player's, settled when both agree or the
    /// other side is a programmed player, else proposed to the other
    /// player to confirm.
    fn battle_result_from(
        &self,
        reply: &BattleReply<'_>,
        mut b: BattleRow,
        text: &str,
    ) -> Result<Outcome> {
        let (g, side, battle) = (reply.g, reply.side, reply.battle);
        let rules = self.state_of(g)?.options.table_battles.rules;
        let players = store::players(&self.conn, &g.id)?;
        let other = players.iter().find(|p| p.side == side.enemy());
        let solo = other.is_none_or(|p| p.bot.is_some() || p.address.is_empty());
        let r = match self.read_result(&b, text)? {
            Ok(r) => r,
            Err(errors) => {
                let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                reply.receipt(
                    self,
                    "the result has errors",
                    lines,
                    vec![],
                    None,
                    String::new(),
                )?;
                return Ok(Outcome::Refused(format!(
                    "battle {battle}: {} error(s) in the result",
                    errors.len()
                )));
            }
        };
        let ignored: Vec<String> = r.ignored.iter().map(|(n, l)| format!("{n}: {l}")).collect();
        let words = result_text(&r);
        let tx = self.begin()?;
        // The other side sent the same result already: agreed.
        let other_proposed =
            b.status == BattleStatus::Proposed && b.proposed_by.as_deref() != Some(side_key(side));
        let same_as_other = other_proposed && b.result_text.as_deref() == Some(words.as_str());
        if other_proposed && !same_as_other {
            let first = b.result_text.clone().unwrap_or_default();
            self.dispute_battle(
                &tx,
                g,
                &mut b,
                format!("the {side} player sent another result:\n{words}"),
                &format!(
                    "the two players sent different results for battle {battle}: the game master decides (dervish game battle-result {} {battle} FILE).\n\nFirst result:\n{}\n\nSecond result ({side}):\n{words}",
                    g.id,
                    first
                ),
            )?;
            tx.commit()?;
            reply.receipt(
                self,
                "a different result: the game master decides",
                vec![],
                ignored,
                Some(words),
                "Your result differs from the one the other player sent; both go to the game master.".into(),
            )?;
            return Ok(reply.outcome("disputed"));
        }
        let resolved = r.resolved(Self::how(
            rules,
            &if solo {
                format!("result sent by the {side} player")
            } else {
                "result agreed by both players".to_string()
            },
        ));
        b.result_text = Some(words.clone());
        b.proposed_by = Some(side_key(side).to_string());
        b.resolved = Some(
            serde_json::to_string(&resolved).map_err(|e| ServiceError::State {
                game: g.id.clone(),
                message: e.to_string(),
            })?,
        );
        if solo || same_as_other {
            self.settle_with(
                &tx,
                g,
                &mut b,
                if solo {
                    "sent by the player; the other side is a programmed player"
                } else {
                    "both players sent the same result"
                },
            )?;
            tx.commit()?;
            reply.receipt(
                self,
                "result taken",
                vec![],
                ignored,
                Some(words),
                "The result is settled; the turn is played on at the next pass.".into(),
            )?;
            return Ok(reply.outcome("settled"));
        }
        b.status = BattleStatus::Proposed;
        bstore::update_battle(&tx, &b)?;
        if let Some(o) = other {
            self.ask_to_confirm(reply, &b, &o.address, &words)?;
        }
        tx.commit()?;
        reply.receipt(
            self,
            "result received",
            vec![],
            ignored,
            Some(words),
            format!(
                "The {} player is asked to confirm it; a new result from you replaces this one until then.",
                side.enemy()
            ),
        )?;
        Ok(reply.outcome("proposed"))
    }

    /// The other player asked to confirm or dispute a proposed result.
    fn ask_to_confirm(
        &self,
        reply: &BattleReply<'_>,
        b: &BattleRow,
        to: &str,
        words: &str,
    ) -> Result<()> {
        let (g, side, battle) = (reply.g, reply.side, reply.battle);
        let rendered = self.templates.render(
            "battle_receipt.txt",
            context! {
                game => g.id.clone(),
                battle => battle,
                headline => format!("the {side} player's result, to confirm"),
                errors => Vec::<String>::new(),
                ignored => Vec::<String>::new(),
                result => words,
                text => format!(
                    "The {side} player sent this result. Reply with CONFIRM BATTLE {battle} (and your secret) if it is right, or DISPUTE BATTLE {battle} and your reason: the game master then decides. Without either by {} it stands.",
                    deadline_text(b.deadline)
                ),
            },
        )?;
        let key = format!("battle:{}:{battle}:confirm:{}", g.id, reply.message_id);
        self.queue(own_mail(&g.id, "battle", key, to, rendered))?;
        Ok(())
    }

    /// CONFIRM BATTLE: the other player's proposed result settled.
    fn battle_confirmed_by(&self, reply: &BattleReply<'_>, mut b: BattleRow) -> Result<Outcome> {
        let (side, battle) = (reply.side, reply.battle);
        if b.status != BattleStatus::Proposed || b.proposed_by.as_deref() == Some(side_key(side)) {
            let reason = if b.status == BattleStatus::Proposed {
                format!(
                    "you sent this result: the {} player confirms it",
                    side.enemy()
                )
            } else {
                format!("battle {battle} has no result from the other player to confirm")
            };
            return reply.refuse(self, reason);
        }
        let tx = self.begin()?;
        self.settle_with(&tx, reply.g, &mut b, "confirmed by the other player")?;
        tx.commit()?;
        reply.receipt(
            self,
            "result confirmed",
            vec![],
            vec![],
            b.result_text.clone(),
            "The result is settled; the turn is played on at the next pass.".into(),
        )?;
        Ok(reply.outcome("settled"))
    }

    /// DISPUTE BATTLE: the game master decides.
    fn battle_disputed_by(
        &self,
        why: &str,
        reply: &BattleReply<'_>,
        b: BattleRow,
    ) -> Result<Outcome> {
        let mut b = b;
        let side = reply.side;
        let gm_text = format!(
            "the {side} player disputes battle {}'s result ({why}): the game master decides (dervish game battle-result {} {} FILE). Without a decision by {} the combat is resolved automatically.",
            reply.battle,
            reply.g.id,
            reply.battle,
            deadline_text(b.deadline)
        );
        let tx = self.begin()?;
        let dispute = format!("the {side} player: {why}");
        self.dispute_battle(&tx, reply.g, &mut b, dispute, &gm_text)?;
        tx.commit()?;
        reply.receipt(
            self,
            "dispute sent to the game master",
            vec![],
            vec![],
            b.result_text.clone(),
            String::new(),
        )?;
        Ok(reply.outcome("disputed"))
    }

    /// The game master enters a battle's result (a dispute decided, or a
    /// result taken by hand): settled at once. The errors, line-numbered,
    /// if it is wrong.
    pub fn enter_battle_result(
        &self,
        game: &str,
        battle: i64,
        text: &str,
    ) -> Result<std::result::Result<String, Vec<ResultError>>> {
        let g = self.game(game)?;
        let mut b = match self.battle_of(&g, battle)? {
            Ok(b) => b,
            Err(reason) => return Err(ServiceError::Game(reason)),
        };
        let r = match self.read_result(&b, text)? {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        let rules = self.state_of(&g)?.options.table_battles.rules;
        let words = result_text(&r);
        let resolved = r.resolved(Self::how(rules, "result entered by the game master"));
        b.result_text = Some(words.clone());
        b.proposed_by = Some("gm".into());
        b.resolved = Some(
            serde_json::to_string(&resolved).map_err(|e| ServiceError::State {
                game: g.id.clone(),
                message: e.to_string(),
            })?,
        );
        let tx = self.begin()?;
        self.settle_with(&tx, &g, &mut b, "entered by the game master")?;
        tx.commit()?;
        Ok(Ok(words))
    }

    /// The game master flags a place (or takes the flag off): combats
    /// there go to the table when the game's option is `flagged`. Takes
    /// effect from the next turn played.
    pub fn flag_place(&self, game: &str, place: &str, on: bool) -> Result<String> {
        let g = self.game(game)?;
        let scn = self.scenario(&g.scenario)?;
        let hex = scn
            .map
            .resolve(place)
            .map_err(|e| ServiceError::Game(format!("{place}: {e}")))?;
        let mut state = (*self.state_of(&g)?).clone();
        let tb = &mut state.options.table_battles;
        if tb.select != TableSelect::Flagged {
            return Err(ServiceError::Game(format!(
                "game {game} does not send flagged combats to the table (its table battles: {}); make it with --table-battles flagged",
                describe_select(tb.select)
            )));
        }
        if on {
            tb.flagged.insert(hex);
        } else {
            tb.flagged.remove(&hex);
        }
        let mut next = g.clone();
        next.state = serde_json::to_string(&state)
            .map_err(|e| ServiceError::State {
                game: g.id.clone(),
                message: e.to_string(),
            })?
            .into();
        let tx = self.begin()?;
        store::update_game(&tx, &next)?;
        let text = format!(
            "{} {} for table battles",
            scn.map.describe(hex),
            if on { "flagged" } else { "no longer flagged" }
        );
        store::audit(&tx, self.now(), Some(&g.id), "gm", "battle flag", &text)?;
        tx.commit()?;
        self.forget_state(game);
        Ok(text)
    }
}

/// A player's battle mail being answered: who sent it, about which battle.
struct BattleReply<'a> {
    g: &'a GameRow,
    side: Side,
    battle: i64,
    sender: &'a str,
    message_id: &'a str,
    mail: &'a Inbound,
}

impl BattleReply<'_> {
    /// The receipt of the battle mail (`battle_receipt.txt`).
    fn receipt(
        &self,
        svc: &Service,
        headline: &str,
        errors: Vec<String>,
        ignored: Vec<String>,
        result: Option<String>,
        text: String,
    ) -> Result<()> {
        let rendered = svc.templates.render(
            "battle_receipt.txt",
            context! {
                game => self.g.id.clone(),
                battle => self.battle,
                headline => headline,
                errors => errors,
                ignored => ignored,
                result => result,
                text => text,
            },
        )?;
        svc.queue(svc.reply_draft(
            &self.g.id,
            "battle",
            &format!("battle-receipt:{}", self.message_id),
            self.sender,
            rendered,
            self.mail,
        ))?;
        Ok(())
    }

    /// The mail not taken, for `reason`, which the receipt gives.
    fn refuse(&self, svc: &Service, reason: String) -> Result<Outcome> {
        self.receipt(
            svc,
            "not taken",
            vec![reason.clone()],
            vec![],
            None,
            String::new(),
        )?;
        Ok(Outcome::Refused(reason))
    }

    /// What became of the mail: the battle `what` (proposed, settled,
    /// disputed).
    fn outcome(&self, what: &str) -> Outcome {
        Outcome::Battle {
            game: self.g.id.clone(),
            battle: self.battle,
            what: what.into(),
        }
    }
}

/// The option in words.
pub fn describe_select(s: TableSelect) -> String {
    match s {
        TableSelect::None => "none".into(),
        TableSelect::All => "all".into(),
        TableSelect::Above(n) => format!("above {n} strength points"),
        TableSelect::Flagged => "flagged places".into(),
    }
}

/// A result to fill in: every unit of the battle with GOOD ORDER, each
/// side on its own lines, for the players to edit.
pub fn fill_in(forces: &Forces) -> String {
    let mut out = vec!["WINNER EGYPTIAN".to_string()];
    for side in [Side::Egyptian, Side::Mahdist] {
        let ids: Vec<String> = forces
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| u.id.0.to_string())
            .collect();
        if !ids.is_empty() {
            out.push(format!("{} GOOD ORDER", ids.join(" ")));
        }
    }
    out.push("END".into());
    out.join("\n")
}

/// The width of a brief's diagram, in pixels.
const DIAGRAM_PX: u32 = 1000;

/// A battle's diagram file name, without its extension: letters, digits
/// and `._-` only, as a mail's files must be named.
pub fn diagram_file_name(game: &str, battle: i64) -> String {
    let game: String = game
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{game}-battle-{battle}-table")
}

#[cfg(test)]
mod tests {
    use super::{BattleMail, battle_mail};

    #[test]
    fn battle_lines_are_found_however_written() {
        // (body, format=flowed, DelSp, the battle confirmed if any)
        let cases: [(&str, bool, bool, Option<i64>); 8] = [
            ("SECRET x\nCONFIRM BATTLE 2\n", false, false, Some(2)),
            ("confirm\tbattle 3\r\n", false, false, Some(3)),
            // Odd characters a mail client puts in are dropped as orders
            // drop them, so the word is found through them.
            ("CONFIRM BAT\u{200B}TLE 4\n", false, false, Some(4)),
            ("CONFIRM BAT\u{7}TLE 5\n", false, false, Some(5)),
            // format=flowed with DelSp joins a word split over two lines.
            ("CONFIRM BAT \nTLE 6\n", true, true, Some(6)),
            ("CONFIRM BAT \nTLE 6\n", true, false, None),
            (
                "SECRET x\nMARCH STACK Sinkat TO Souakim\n",
                false,
                false,
                None,
            ),
            ("> CONFIRM BATTLE 2\nREADY\n", false, false, None),
        ];
        for (body, flowed, delsp, battle) in cases {
            let want = battle.map(|battle| BattleMail::Confirm { battle });
            assert_eq!(battle_mail(body, flowed, delsp), want, "{body:?}");
        }
    }
}
