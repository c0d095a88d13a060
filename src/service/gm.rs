//! Game master commands by email: the same commands as on the command
//! line, in a mail from the game master's address with a `PASSWORD` line
//! (checked against an argon2 hash set with `dervish gm password`) and one
//! command a line, each starting with `GM`:
//!
//! ```text
//! PASSWORD my long password
//! GM NEW khartoum egyptian@example.org mahdist@example.org [ID] [monthly|alternating] [HOURS]
//! GM LIST
//! GM SHOW ID
//! GM PROCESS ID
//! GM EXTEND ID HOURS
//! GM REPLACE ID egyptian|mahdist ADDRESS
//! GM SECRET ID egyptian|mahdist
//! GM PAUSE ID
//! GM RESUME ID
//! GM OBSERVE ID ADDRESS
//! GM BATTLES ID
//! GM BATTLE ID N        (the rest of the mail is battle N's result)
//! GM FLAG ID PLACE
//! GM UNFLAG ID PLACE
//! GM ROLLBACK ID MONTH WHY...   (back to the start of MONTH; both players told why)
//! GM PREVIEW ID                 (the open turn played now, nothing stored)
//! GM CLOCK ID BASE+INCREMENT    (a time bank, as 7d+3d)
//! ```
//!
//! The commands run in the incoming message's transaction; the answer
//! lists each command with what it did or why it failed.
//!
//! Wrong passwords: the first `auth_failures_note` in a row are answered;
//! at that many, game master mail is locked for `gm_lockout_minutes` (the
//! password is not even checked while locked) and the game master is told
//! once; every further wrong password doubles the wait, up to a day. The
//! count and the end of the wait are kept in the `service` table. The
//! password is one for the server, not per game; players' secrets have
//! their own count per seat (`intake.rs`).

use std::fmt::Write as _;

use super::games::{NewGame, deadline_text};
use super::outcome::Outcome;
use super::secrets::{hash_password, password_matches};
use super::{Result, Service, ServiceError};
use crate::mail::inbound::Inbound;
use crate::orders::clean::order_lines;
use crate::scenario::Side;
use crate::store::{self, Mode};

/// The service table key of the game master's password hash.
const PASSWORD_KEY: &str = "gm_password";
/// Wrong passwords in a row since the last right one (the only address
/// whose mail is read as the game master's is `host.game_master`, so this
/// count is that address's).
const FAILURES_KEY: &str = "gm_auth_failures";
/// Until when game master mail is not read after too many wrong passwords.
const LOCKED_UNTIL_KEY: &str = "gm_locked_until";
/// The longest lockout, however many wrong passwords.
const MAX_LOCKOUT_MINUTES: i64 = 24 * 60;

/// The game master lines of a message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GmMail {
    pub password: Option<String>,
    /// (line number, the words after `GM`).
    pub commands: Vec<(usize, Vec<String>)>,
}

/// Read the `PASSWORD` and `GM ...` lines of a mail body (quotes,
/// signatures and the like are skipped as for orders).
pub fn gm_lines(text: &str, flowed: bool, delsp: bool) -> GmMail {
    let mut out = GmMail::default();
    let Ok(lines) = order_lines(text, flowed, delsp) else {
        return out;
    };
    for l in lines {
        let mut words = l.text.split_whitespace();
        match words.next().map(|w| w.trim_end_matches(':').to_uppercase()) {
            Some(w) if w == "PASSWORD" => {
                let rest: Vec<&str> = words.collect();
                out.password = Some(rest.join(" "));
            }
            Some(w) if w == "GM" => {
                out.commands
                    .push((l.number, words.map(str::to_string).collect()));
            }
            _ => {}
        }
    }
    out
}

/// A mail's body with its `PASSWORD` and `GM` lines blanked: the result
/// a `GM BATTLE` line enters, its lines numbered as in the mail.
fn result_lines(text: &str) -> String {
    text.lines()
        .map(|l| {
            let first = l
                .split_whitespace()
                .next()
                .map(|w| w.trim_end_matches(':').to_uppercase());
            if matches!(first.as_deref(), Some("PASSWORD") | Some("GM")) {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Service {
    /// `GM BATTLE ID N`: the rest of the mail (every line but the
    /// `PASSWORD` and `GM` lines) is battle N's result, entered by the
    /// game master.
    fn gm_battle(&self, words: &[String], body: &str) -> Result<String> {
        let (id, n) = match words {
            [_, id, n] => (
                id,
                n.trim_start_matches('#')
                    .parse::<i64>()
                    .map_err(|_| ServiceError::Game(format!("`{n}` is not a battle number")))?,
            ),
            _ => {
                return Err(ServiceError::Game(
                    "write GM BATTLE GAME NUMBER, and the result on the lines of the mail".into(),
                ));
            }
        };
        match self.enter_battle_result(id, n, &result_lines(body))? {
            Ok(words) => Ok(format!(
                "battle {n} settled with the result:\n{words}\nThe turn is played on at the next pass."
            )),
            Err(errors) => Err(ServiceError::Game(format!(
                "the result of battle {n} was not taken:\n{}",
                errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            ))),
        }
    }

    /// Set the game master's password (stored as an argon2 hash).
    pub fn set_gm_password(&self, password: &str) -> Result<()> {
        if password.trim().chars().count() < 12 {
            return Err(ServiceError::Game(
                "use a password of at least 12 characters".into(),
            ));
        }
        let hash = hash_password(password.trim()).map_err(ServiceError::Random)?;
        let tx = self.begin()?;
        store::set_service_value(&tx, PASSWORD_KEY, &hash)?;
        store::set_service_value(&tx, FAILURES_KEY, "0")?;
        store::set_service_value(&tx, LOCKED_UNTIL_KEY, "")?;
        store::audit(&tx, self.now(), None, "cli", "gm password", "set")?;
        tx.commit()?;
        Ok(())
    }

    /// Run the game master commands of a mail (in the caller's
    /// transaction) and queue the answer.
    pub(super) fn gm_mail(&self, mail: &Inbound, message_id: &str, gm: &GmMail) -> Result<Outcome> {
        let to = self.cfg.host.game_master.clone();
        let failures: u32 = store::service_value(&self.conn, FAILURES_KEY)?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let now = self.now();
        let locked_until = store::service_value(&self.conn, LOCKED_UNTIL_KEY)?
            .and_then(|v| store::parse_time(&v).ok())
            .filter(|t| *t > now);
        if let Some(until) = locked_until {
            // The password is not even looked at: no guessing while locked.
            return Ok(Outcome::Ignored(format!(
                "game master mail: locked after {failures} wrong passwords, until {}",
                store::time(until)
            )));
        }
        let stored = store::service_value(&self.conn, PASSWORD_KEY)?;
        let ok = match (&stored, &gm.password) {
            (Some(h), Some(p)) => password_matches(p.trim(), h),
            _ => false,
        };
        if !ok {
            let reason = match (&stored, &gm.password) {
                (None, _) => {
                    "no game master password is set on this server (run `dervish gm password`)"
                }
                (_, None) => "the mail has no PASSWORD line",
                _ => "the PASSWORD is wrong",
            };
            let failures = failures + 1;
            store::set_service_value(&self.conn, FAILURES_KEY, &failures.to_string())?;
            let note = self.cfg.limits.auth_failures_note;
            if stored.is_some() && failures >= note {
                // A growing wait: the lockout doubles with every wrong
                // password past the limit, up to a day.
                let doublings = (failures - note).min(16);
                let minutes = (i64::from(self.cfg.limits.gm_lockout_minutes) << doublings)
                    .min(MAX_LOCKOUT_MINUTES);
                let until = now + chrono::Duration::minutes(minutes);
                store::set_service_value(&self.conn, LOCKED_UNTIL_KEY, &store::time(until))?;
                if failures == note {
                    self.queue(self.notice_draft(
                        None,
                        &format!("gm-locked:{}", store::time(now)),
                        &to,
                        "game master mail locked",
                        &format!(
                            "{failures} mails in a row from {to} had a wrong or missing PASSWORD. Game master mail is not read until {}; each further wrong password makes the wait longer (up to a day). If this was not you, someone is guessing: choose a new password with `dervish gm password`, which also ends the wait.",
                            store::time(until)
                        ),
                    )?)?;
                }
            }
            if failures > note {
                return Ok(Outcome::Ignored(format!(
                    "game master mail: {reason} (no longer answered)"
                )));
            }
            // Mail without a valid password: its answer counts against the
            // one hourly cap on answers to mail without a valid secret.
            self.queue_unverified(self.notice_draft(
                None,
                &format!("gm-refused:{message_id}"),
                &to,
                "game master commands not accepted",
                &format!("{reason}. No command was run."),
            )?)?;
            return Ok(Outcome::Refused(format!("game master mail: {reason}")));
        }
        store::set_service_value(&self.conn, FAILURES_KEY, "0")?;
        store::set_service_value(&self.conn, LOCKED_UNTIL_KEY, "")?;
        let mut report = String::new();
        let actor = format!("mail:{to}");
        for (line, words) in &gm.commands {
            let shown = format!("GM {}", words.join(" "));
            let battle = words
                .first()
                .is_some_and(|w| w.eq_ignore_ascii_case("BATTLE"));
            let answer = match if battle {
                self.gm_battle(words, &mail.body.text)
            } else {
                self.gm_command(words, &actor)
            } {
                Ok(a) => a,
                Err(e) => format!("error: {e}"),
            };
            let _ = writeln!(
                report,
                "line {line}: {shown}\n    {}",
                answer.replace('\n', "\n    ")
            );
        }
        // The reply names the game the commands were about in its subject.
        let mut games: Vec<&str> = gm
            .commands
            .iter()
            .filter_map(|(_, w)| w.get(1).map(String::as_str))
            .filter(|id| store::game(&self.conn, id).ok().flatten().is_some())
            .collect();
        games.sort_unstable();
        games.dedup();
        let (game, headline) = match games.as_slice() {
            [one] => (Some(*one), "game master commands".to_string()),
            [] => (None, "game master commands".to_string()),
            many => (None, format!("game master commands ({})", many.join(", "))),
        };
        self.queue(self.notice_draft(
            game,
            &format!("gm:{message_id}"),
            &to,
            &headline,
            &report,
        )?)?;
        Ok(Outcome::Commands {
            game: "(game master)".into(),
        })
    }

    fn gm_command(&self, words: &[String], actor: &str) -> Result<String> {
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let usage = |u: &str| Err(ServiceError::Game(format!("usage: GM {u}")));
        let upper = w.first().map(|x| x.to_uppercase()).unwrap_or_default();
        match (upper.as_str(), &w[w.len().min(1)..]) {
            ("NEW", [scenario, egyptian, mahdist, rest @ ..]) => {
                self.gm_new(scenario, egyptian, mahdist, rest, actor)
            }
            ("NEW", _) => usage(
                "NEW SCENARIO EGYPTIAN-ADDRESS MAHDIST-ADDRESS [ID] [monthly|alternating] [HOURS] [AMBUSHES]",
            ),
            ("LIST", []) => self.gm_list(),
            ("SHOW", [id]) => self.gm_show(id),
            ("PROCESS", [id]) => {
                let n = self.play_turn(id)?;
                store::audit(
                    &self.conn,
                    self.now(),
                    Some(id),
                    actor,
                    "game process",
                    &format!("turn {n} played now"),
                )?;
                Ok(format!("turn {n} played; the results are on their way"))
            }
            ("EXTEND", [id, hours]) => {
                let h: u32 = hours
                    .parse()
                    .map_err(|_| ServiceError::Game(format!("{hours} is not a number of hours")))?;
                let g = self.extend(id, h, actor)?;
                Ok(format!("deadline now {}", deadline_text(g.deadline)))
            }
            ("REPLACE", [id, side, address]) => {
                let side = side_named(side)?;
                if super::games::is_bot(address) {
                    self.replace_with_bot(id, side, address, actor)?;
                    return Ok(format!(
                        "the {side} seat now belongs to the programmed player; its orders for the open turn are in"
                    ));
                }
                self.replace_player(id, side, address, actor)?;
                Ok(format!(
                    "the {side} seat now belongs to {address}; their new secret is in their welcome mail"
                ))
            }
            ("SECRET", [id, side]) => {
                let side = side_named(side)?;
                self.reissue_secret(id, side, actor)?;
                Ok(format!(
                    "the {side} player has a new secret, in a new welcome mail; the old one no longer works"
                ))
            }
            ("ROLLBACK", [id, month, why @ ..]) if !why.is_empty() => {
                let r = self.rollback(id, month, &why.join(" "), actor)?;
                Ok(format!(
                    "game {id} taken back to the start of turn {} ({}): {} turns and {} order sets taken back and kept; both players told why",
                    r.to_turn, r.month, r.turns, r.sets
                ))
            }
            ("PREVIEW", [id]) => self.preview(id),
            ("CLOCK", [id, spec]) => {
                let spec: super::clock::ClockSpec = spec.parse().map_err(ServiceError::Game)?;
                let g = self.set_time_bank(id, spec, actor)?;
                Ok(format!(
                    "time bank {spec}; deadline now {}",
                    deadline_text(g.deadline)
                ))
            }
            ("PAUSE", [id]) => {
                self.set_paused(id, true, actor)?;
                Ok("paused".into())
            }
            ("RESUME", [id]) => {
                let g = self.set_paused(id, false, actor)?;
                Ok(format!("resumed; deadline {}", deadline_text(g.deadline)))
            }
            ("FLAG", [id, place @ ..]) if !place.is_empty() => {
                self.flag_place(id, &place.join(" "), true)
            }
            ("UNFLAG", [id, place @ ..]) if !place.is_empty() => {
                self.flag_place(id, &place.join(" "), false)
            }
            ("BATTLES", [id]) => self.gm_battles(id),
            ("OBSERVE", [id, address]) => {
                self.add_observer(id, address, actor)?;
                Ok(format!("{address} now gets the results"))
            }
            _ => usage(
                "NEW | LIST | SHOW ID | PROCESS ID | EXTEND ID HOURS | REPLACE ID SIDE ADDRESS | SECRET ID SIDE | PAUSE ID | RESUME ID | OBSERVE ID ADDRESS | ROLLBACK ID MONTH WHY | PREVIEW ID | CLOCK ID BASE+INCREMENT",
            ),
        }
    }

    /// GM NEW: a game of `scenario` between two addresses; the words after
    /// them give its ID, mode, deadline hours and AMBUSHES.
    fn gm_new(
        &self,
        scenario: &str,
        egyptian: &str,
        mahdist: &str,
        rest: &[&str],
        actor: &str,
    ) -> Result<String> {
        let mut req = NewGame::monthly(scenario, egyptian, mahdist);
        for r in rest {
            if r.eq_ignore_ascii_case("ambushes") {
                req.ambushes = true;
            } else if let Some(m) = Mode::parse(&r.to_lowercase()) {
                req.mode = m;
            } else if let Ok(h) = r.parse::<u32>() {
                req.deadline_hours = Some(h);
            } else {
                req.id = Some(r.to_lowercase());
            }
        }
        let c = self.new_game(&req, actor)?;
        let g = self.game(&c.id)?;
        Ok(format!(
            "game {} created; first deadline {}; the players' secrets are in their welcome mails",
            g.id,
            deadline_text(g.deadline)
        ))
    }

    /// GM LIST: every game, one a line.
    fn gm_list(&self) -> Result<String> {
        let games = store::games(&self.conn)?;
        if games.is_empty() {
            return Ok("no games".into());
        }
        Ok(games
            .iter()
            .map(|g| {
                format!(
                    "{} turn {} {} deadline {}",
                    game_head(g),
                    g.turn_no,
                    g.month,
                    deadline_text(g.deadline)
                )
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }

    /// GM SHOW: a game, its players' orders, seats, clock and rollbacks.
    fn gm_show(&self, id: &str) -> Result<String> {
        let g = self.game(id)?;
        let mut s = format!(
            "{}: turn {} ({}), deadline {}",
            game_head(&g),
            g.turn_no,
            g.month,
            deadline_text(g.deadline)
        );
        for p in store::players(&self.conn, id)? {
            let set = store::latest_order_set(&self.conn, id, g.turn_no, p.side)?;
            let _ = write!(
                s,
                "\n{} {}: {}{}",
                p.side,
                p.address,
                set.map_or("no orders".to_string(), |x| format!(
                    "orders v{}{}",
                    x.version,
                    if x.ready { " READY" } else { "" }
                )),
                if p.unreachable { ", unreachable" } else { "" }
            );
        }
        for line in self
            .seat_lines(id)?
            .into_iter()
            .chain(self.clock_lines(id)?)
        {
            let _ = write!(s, "\n{line}");
        }
        for line in self.rollback_lines(id)? {
            let _ = write!(s, "\n{line}");
        }
        Ok(s)
    }

    /// GM BATTLES: a game's table battles with their results and disputes.
    fn gm_battles(&self, id: &str) -> Result<String> {
        let battles = self.battles(id)?;
        if battles.is_empty() {
            return Ok(format!("game {id} has had no table battle"));
        }
        let mut out = Vec::new();
        for b in battles {
            let (combat, _) = self.battle_parts(&b)?;
            out.push(format!(
                "battle {} turn {} {}: {}, deadline {}",
                b.id,
                b.turn_no,
                b.status.as_str(),
                combat.key,
                deadline_text(b.deadline)
            ));
            if let Some(r) = &b.result_text {
                out.push(format!(
                    "  result ({}): {}",
                    b.proposed_by.as_deref().unwrap_or("?"),
                    r.replace('\n', " / ")
                ));
            }
            if let Some(d) = &b.dispute {
                out.push(format!("  dispute: {}", d.replace('\n', " / ")));
            }
        }
        Ok(out.join("\n"))
    }
}

/// A side by its name, as a game master writes it.
fn side_named(side: &str) -> Result<Side> {
    match side.to_lowercase().as_str() {
        "egyptian" => Ok(Side::Egyptian),
        "mahdist" => Ok(Side::Mahdist),
        other => Err(ServiceError::Game(format!("{other} is not a side"))),
    }
}

/// A game as the game master's lists begin it: id, scenario, mode, status.
fn game_head(g: &store::GameRow) -> String {
    format!(
        "{} {} {} {}",
        g.id,
        g.scenario,
        g.mode.as_str(),
        g.status.as_str()
    )
}
