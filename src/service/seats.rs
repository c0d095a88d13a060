//! Seats in long games: a player's absence by mail (`ABSENT FROM .. TO
//! .. [STANDIN]`, `ABSENT NONE`), the deadline that waits for the return
//! (within the yearly allowance, `[seats] absence_days_a_year`), the
//! programmed player standing in, and the seat that missed
//! `[seats] stand_in_after_missed` deadlines in a row: played by the
//! stand-in and opened for JOIN, the game master told. Each turn a
//! stand-in played is recorded (`game show`, the audit log, the archive).
//!
//! The stand-in's orders are made as a programmed seat's are
//! (`Service::programmed_orders`): printed in the order language, read
//! again by the same checker as mail, sealed.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use minijinja::context;
use rusqlite::Connection;

use super::bots::{Holder, stand_in_kind};
use super::games::deadline_text;
use super::outcome::{Context, SeatAsk};
use super::{Result, Service};
use crate::orders::SeatRequest;
use crate::scenario::Side;
use crate::state::GameState;
use crate::store::seats::{self as rows, AbsenceRow};
use crate::store::{self, GameRow, PlayerRow, Status};

/// The longest absence a player may announce, in days.
pub const LONGEST_ABSENCE_DAYS: u32 = 366;

/// What became of an `ABSENT` line: taken (with what it means) or not
/// (and why); either way the lines of the reply.
struct AbsenceAnswer {
    taken: bool,
    lines: Vec<String>,
}

/// One seat's record of the turns played: how many the seat was due in,
/// sent on time by the player, played by a stand-in, and missed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatRecord {
    pub due: u32,
    pub on_time: u32,
    pub stand_in: u32,
    pub missed: u32,
    /// Deadlines missed in a row, up to the last turn played.
    pub missed_in_a_row: u32,
}

impl SeatRecord {
    /// The record in words, for `game show` and STATUS.
    pub fn text(&self) -> String {
        format!(
            "orders sent on time {} of {} turns, stand-in {}, missed {}{}",
            self.on_time,
            self.due,
            self.stand_in,
            self.missed,
            if self.missed_in_a_row > 0 {
                format!(" ({} in a row)", self.missed_in_a_row)
            } else {
                String::new()
            }
        )
    }
}

/// The days of a side's absences that hold deadlines, in the year of `day`.
fn held_days_in_year(absences: &[AbsenceRow], side: Side, day: NaiveDate) -> u32 {
    absences
        .iter()
        .filter(|a| a.side == side && !a.stand_in && a.from.year() == day.year())
        .map(AbsenceRow::days)
        .sum()
}

/// The deadline `d` held by an absence ending on `to`: moved on by whole
/// days until the player has a full day after coming back.
pub fn held_deadline(d: DateTime<Utc>, to: NaiveDate) -> DateTime<Utc> {
    let back = to
        .succ_opt()
        .unwrap_or(to)
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(d);
    let mut held = d;
    while held < back + Duration::days(1) {
        held += Duration::days(1);
    }
    held
}

impl Service {
    /// A seat request of a mail with the secret: an absence, or the end of
    /// the game by agreement (`service::ending`). `key` makes the answer
    /// unique.
    pub(super) fn seat_request(&self, ask: SeatAsk<'_>, r: SeatRequest) -> Result<()> {
        match r {
            SeatRequest::Absent { .. } | SeatRequest::AbsentNone => self.absence_request(ask, r),
            SeatRequest::Resign | SeatRequest::Draw(_) => self.ending_request(ask, r),
        }
    }

    /// `ABSENT ...`: checked, stored, told to the player (the reply), the
    /// opponent and the game master, and applied to the open turn.
    fn absence_request(&self, ask: SeatAsk<'_>, r: SeatRequest) -> Result<()> {
        let SeatAsk { cx, g, side, key } = ask;
        let answer = match r {
            SeatRequest::Absent { from, to, stand_in } => {
                self.take_absence(cx, g, side, from, to, stand_in)?
            }
            _ => self.cancel_absence(cx, g, side)?,
        };
        let all = rows::absences(&self.conn, &g.id, Some(side))?;
        let today = self.now().date_naive();
        let allowance = self.cfg.seats.absence_days_a_year;
        let used = held_days_in_year(&all, side, today);
        let rendered = self.templates.render(
            "absence.txt",
            context! {
                game => g.id.clone(),
                side => side.to_string(),
                line => r.words(),
                taken => answer.taken,
                lines => answer.lines,
                absences => all.iter().filter(|a| a.to >= today).map(absence_text).collect::<Vec<_>>(),
                allowance => allowance,
                left => allowance.saturating_sub(used),
                year => today.year(),
                deadline => deadline_text(self.game(&g.id)?.deadline),
            },
        )?;
        let mut d = self.reply_draft(&g.id, "answer", key, &cx.sender, rendered, cx.mail);
        d.html = false;
        self.queue(d)?;
        Ok(())
    }

    /// Check and store an absence; tell the opponent and the game master.
    fn take_absence(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        from: NaiveDate,
        to: NaiveDate,
        stand_in: bool,
    ) -> Result<AbsenceAnswer> {
        let now = self.now();
        let today = now.date_naive();
        let all = rows::absences(&self.conn, &g.id, Some(side))?;
        let a = AbsenceRow {
            id: 0,
            game_id: g.id.clone(),
            side,
            from,
            to,
            stand_in,
            asked_at: now,
        };
        let allowance = self.cfg.seats.absence_days_a_year;
        let left = allowance.saturating_sub(held_days_in_year(&all, side, from));
        let refused = if g.status == Status::Finished {
            Some(format!(
                "game {} is over: there is nothing to be away from",
                g.id
            ))
        } else if from < today {
            Some(format!(
                "the absence begins on {from}, which is past (today is {today}); an absence is announced from today on"
            ))
        } else if a.days() > LONGEST_ABSENCE_DAYS {
            Some(format!(
                "the absence is {} days long, and one may last {LONGEST_ABSENCE_DAYS} days at most",
                a.days()
            ))
        } else if let Some(o) = all.iter().find(|o| o.from <= to && from <= o.to) {
            Some(format!(
                "it overlaps your absence {}; send ABSENT NONE first to cancel that one",
                absence_text(o)
            ))
        } else if !stand_in && a.days() > left {
            Some(format!(
                "the absence is {} days long, and {left} of the {allowance} days a year that absences may hold this game's deadlines are left in {}; add STANDIN to have the programmed player play your turns meanwhile, or shorten it",
                a.days(),
                from.year()
            ))
        } else {
            None
        };
        if let Some(why) = refused {
            return Ok(AbsenceAnswer {
                taken: false,
                lines: vec![why, "Nothing was changed.".into()],
            });
        }
        rows::insert_absence(&self.conn, &a)?;
        let what = absence_text(&a);
        store::audit(
            &self.conn,
            now,
            Some(&g.id),
            &format!("mail:{}", cx.sender),
            "absence",
            &format!("{side} seat: {what}"),
        )?;
        self.tell_others(
            g,
            side,
            &format!("absence:{}:{}", store::side_text(side), a.from),
            "absence",
            &format!("The {side} player of game {} will be away {what}.", g.id),
        )?;
        self.seats_now(g)?;
        let mut lines = vec![format!("Dervish has your absence {what}.")];
        lines.push(if stand_in {
            "Each turn whose deadline falls in it is played by the programmed player in your place; orders you send yourself before the deadline replace its orders.".into()
        } else {
            "A deadline that falls in it waits until you have had a full day back; the days count against the yearly allowance.".into()
        });
        Ok(AbsenceAnswer { taken: true, lines })
    }

    /// `ABSENT NONE`: absences not begun are cancelled, one under way
    /// ends yesterday. A deadline already held stays where it is.
    fn cancel_absence(&self, cx: &Context<'_>, g: &GameRow, side: Side) -> Result<AbsenceAnswer> {
        let n = rows::cancel_absences(&self.conn, &g.id, side, self.now().date_naive())?;
        if n == 0 {
            return Ok(AbsenceAnswer {
                taken: false,
                lines: vec!["You had no absence to cancel. Nothing was changed.".into()],
            });
        }
        cx.audit(
            self,
            g,
            "absence cancelled",
            &format!("{side} seat: ABSENT NONE"),
        )?;
        self.tell_others(
            g,
            side,
            &format!("absence-none:{}", store::time(self.now())),
            "absence cancelled",
            &format!("The {side} player of game {} is no longer away.", g.id),
        )?;
        Ok(AbsenceAnswer {
            taken: true,
            lines: vec!["Your absences from today on are cancelled.".into()],
        })
    }

    /// A notice to the other side's player (if a person) and the game master.
    pub(super) fn tell_others(
        &self,
        g: &GameRow,
        side: Side,
        key: &str,
        headline: &str,
        text: &str,
    ) -> Result<()> {
        let mut to: Vec<String> = store::players(&self.conn, &g.id)?
            .into_iter()
            .filter(|p| p.side != side && !p.address.is_empty())
            .map(|p| p.address)
            .collect();
        to.push(self.cfg.host.game_master.clone());
        for a in to {
            self.queue(self.notice_draft(Some(&g.id), key, &a, headline, text)?)?;
        }
        Ok(())
    }

    /// Apply the seats' absences to game `g`'s open turn as it stands now.
    fn seats_now(&self, g: &GameRow) -> Result<()> {
        let g = self.game(&g.id)?;
        let state = self.state_shown(&g)?;
        self.seats_in_turn(&self.conn, &g, &state, false)
    }

    /// When a turn opens (or an absence is announced): each seat the turn
    /// waits for that missed too many deadlines is opened for JOIN; the
    /// stand-in plays an opened seat and a seat whose absence with
    /// STANDIN covers the deadline; an absence without covers it: the
    /// deadline waits. Then the time bank sets the deadline. Inside the
    /// caller's transaction.
    pub(super) fn seats_at_turn_open(
        &self,
        c: &Connection,
        g: &GameRow,
        state: &GameState,
    ) -> Result<()> {
        self.seats_in_turn(c, g, state, true)
    }

    /// [`Service::seats_at_turn_open`], or (`opening` false) the same for
    /// the turn already open, but no seat opened and the clock left alone.
    fn seats_in_turn(
        &self,
        c: &Connection,
        g: &GameRow,
        state: &GameState,
        opening: bool,
    ) -> Result<()> {
        let Some(mut g) = store::game(c, &g.id)? else {
            return Ok(());
        };
        if g.status != Status::Running {
            return Ok(());
        }
        if opening {
            self.clock_at_turn_open(c, &mut g)?;
        }
        for p in store::players(c, &g.id)? {
            if p.bot.is_some() || !g.turn_kind.waits_for().contains(&p.side) {
                continue;
            }
            let p = if opening {
                self.open_after_missed(c, &g, p)?
            } else {
                p
            };
            if let Some((why, ready)) = self.stand_in_reason(c, &g, &p)? {
                self.stand_in_plays(c, &g, state, p.side, &why, ready)?;
            } else {
                self.hold_for_absence(c, &mut g, &p)?;
            }
        }
        Ok(())
    }

    /// Why a stand-in plays `p`'s seat in the open turn of `g`, and
    /// whether its orders count at once (READY): an opened seat, or an
    /// absence with STANDIN covering the deadline (READY once begun).
    fn stand_in_reason(
        &self,
        c: &Connection,
        g: &GameRow,
        p: &PlayerRow,
    ) -> Result<Option<(String, bool)>> {
        if p.address.is_empty() {
            return Ok(match rows::stand_in_seat(c, &g.id, p.side)? {
                Some((_, Some(turn))) => Some((
                    format!(
                        "the seat is open for a replacement since turn {turn} (missed deadlines)"
                    ),
                    true,
                )),
                _ => None,
            });
        }
        let now = self.now();
        Ok(rows::absences(c, &g.id, Some(p.side))?
            .into_iter()
            .find(|a| a.stand_in && a.covers(g.deadline))
            .map(|a| {
                (
                    format!("the player is away {}", absence_text(&a)),
                    a.from <= now.date_naive(),
                )
            }))
    }

    /// The stand-in makes `side`'s orders for the open turn (once a turn),
    /// recorded with `why`; the player is told.
    fn stand_in_plays(
        &self,
        c: &Connection,
        g: &GameRow,
        state: &GameState,
        side: Side,
        why: &str,
        ready: bool,
    ) -> Result<()> {
        if rows::stand_in_turns(c, &g.id)?
            .iter()
            .any(|(t, s, _)| *t == g.turn_no && *s == side)
        {
            return Ok(());
        }
        let key = match rows::stand_in_seat(c, &g.id, side)? {
            Some((k, _)) => k,
            None => {
                let k = super::secrets::hex(
                    &super::secrets::random_bytes::<32>()
                        .map_err(|e| super::ServiceError::Random(e.to_string()))?,
                );
                rows::set_stand_in_seat(c, &g.id, side, &k, None)?;
                k
            }
        };
        let sealed = self.programmed_orders(
            c,
            g,
            state,
            side,
            stand_in_kind(side),
            &key,
            Holder::StandIn { ready },
        )?;
        rows::record_stand_in(c, &g.id, g.turn_no, side, why)?;
        let label = g.turn_kind.label(&g.month);
        let text = format!(
            "Turn {} ({label}): the {side} side's orders were made by the programmed player standing in ({why}); sealed {sealed}.",
            g.turn_no
        );
        store::audit(c, self.now(), Some(&g.id), "stand-in", "stand-in", &text)?;
        if let Some(p) = store::players(c, &g.id)?
            .into_iter()
            .find(|p| p.side == side && !p.address.is_empty())
        {
            self.queue(self.notice_draft(
                Some(&g.id),
                &format!("stand-in:{}:{}", g.turn_no, store::side_text(side)),
                &p.address,
                "the stand-in plays your turn",
                &format!(
                    "{text} Orders you send yourself before the deadline of {} replace its orders.",
                    deadline_text(g.deadline)
                ),
            )?)?;
        }
        Ok(())
    }

    /// The deadline of the open turn waits for `p`'s return when one of
    /// their absences (without STANDIN) covers it and they have not said
    /// READY. The players and the game master are told.
    fn hold_for_absence(&self, c: &Connection, g: &mut GameRow, p: &PlayerRow) -> Result<()> {
        if store::latest_order_set(c, &g.id, g.turn_no, p.side)?.is_some_and(|s| s.ready) {
            return Ok(());
        }
        let Some(a) = rows::absences(c, &g.id, Some(p.side))?
            .into_iter()
            .find(|a| !a.stand_in && a.covers(g.deadline))
        else {
            return Ok(());
        };
        let old = g.deadline;
        g.deadline = held_deadline(old, a.to);
        g.reminded = false;
        store::update_game(c, g)?;
        let text = format!(
            "The deadline of turn {} ({}) fell in the {} player's absence {}: it waits for the return, moved from {} to {}.",
            g.turn_no,
            g.turn_kind.label(&g.month),
            p.side,
            absence_text(&a),
            deadline_text(old),
            deadline_text(g.deadline)
        );
        store::audit(
            c,
            self.now(),
            Some(&g.id),
            "service",
            "deadline held for an absence",
            &text,
        )?;
        for to in self.game_addresses(c, &g.id)? {
            self.queue(self.notice_draft(
                Some(&g.id),
                &format!("held:{}:{}", g.turn_no, store::time(g.deadline)),
                &to,
                "deadline held for an absence",
                &text,
            )?)?;
        }
        Ok(())
    }

    /// A person's seat that missed `[seats] stand_in_after_missed`
    /// deadlines in a row is opened for JOIN (no address, no secret), the
    /// stand-in to play it meanwhile; the player, the opponent and the
    /// game master are told. Returns the seat as it now is.
    fn open_after_missed(&self, c: &Connection, g: &GameRow, p: PlayerRow) -> Result<PlayerRow> {
        let limit = self.cfg.seats.stand_in_after_missed;
        if limit == 0 || p.address.is_empty() || g.turn_kind.is_setup() {
            return Ok(p);
        }
        // The turns missed in a row (the turn just played counted
        // whether or not the seat's count has it yet), never more than
        // since the player took the seat.
        let record = seat_records(c, &g.id)?;
        let missed = record
            .iter()
            .find(|(s, _)| *s == p.side)
            .map_or(0, |(_, r)| r.missed_in_a_row)
            .min(p.missed_turns + 1);
        if missed < limit {
            return Ok(p);
        }
        let key = super::secrets::hex(
            &super::secrets::random_bytes::<32>()
                .map_err(|e| super::ServiceError::Random(e.to_string()))?,
        );
        let kept = rows::stand_in_seat(c, &g.id, p.side)?.map(|(k, _)| k);
        rows::set_stand_in_seat(
            c,
            &g.id,
            p.side,
            kept.as_deref().unwrap_or(&key),
            Some(g.turn_no),
        )?;
        let old = p.address.clone();
        let open = PlayerRow {
            address: String::new(),
            secret_sha256: String::new(),
            missed_turns: 0,
            auth_failures: 0,
            unreachable: false,
            ..p
        };
        store::upsert_player(c, &open)?;
        let side = open.side;
        let text = format!(
            "The {side} player ({old}) of game {} missed {missed} deadlines in a row. From turn {} the programmed player stands in for the {side} side, and the seat is open for a replacement: anyone may take it with JOIN {side} (the game master may also give it: dervish game replace {} {} ADDRESS).",
            g.id,
            g.turn_no,
            g.id,
            store::side_text(side)
        );
        store::audit(
            c,
            self.now(),
            Some(&g.id),
            "service",
            "seat opened after missed deadlines",
            &text,
        )?;
        let mut to = vec![old, self.cfg.host.game_master.clone()];
        to.extend(
            store::players(c, &g.id)?
                .into_iter()
                .filter(|o| o.side != side && !o.address.is_empty())
                .map(|o| o.address),
        );
        for a in to {
            self.queue(self.notice_draft(
                Some(&g.id),
                &format!("opened:{}:{}", g.turn_no, store::side_text(side)),
                &a,
                "a seat is open for a replacement",
                &text,
            )?)?;
        }
        Ok(open)
    }

    /// Every seat's record of the turns played, and who played which turn
    /// by a stand-in, in lines for `game show`.
    pub fn seat_lines(&self, id: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for (side, r) in seat_records(&self.conn, id)? {
            out.push(format!("{side}: {}", r.text()));
        }
        for (turn, side, why) in stand_ins_played(&self.conn, id)? {
            out.push(format!(
                "turn {turn}: the {side} side played by the stand-in ({why})"
            ));
        }
        let today = self.now().date_naive();
        for a in rows::absences(&self.conn, id, None)? {
            if a.to >= today {
                out.push(format!("{} player away {}", a.side, absence_text(&a)));
            }
        }
        Ok(out)
    }
}

/// An absence in words: `from 2026-03-10 to 2026-03-20 (11 days), the
/// programmed player standing in`.
pub fn absence_text(a: &AbsenceRow) -> String {
    format!(
        "from {} to {} ({} day{}){}",
        a.from,
        a.to,
        a.days(),
        if a.days() == 1 { "" } else { "s" },
        if a.stand_in {
            ", the programmed player standing in"
        } else {
            ""
        }
    )
}

/// The turns played with the stand-in's orders: (turn, side, why). A
/// turn the stand-in made orders for, whose player sent their own before
/// the deadline, was played by the player, and is not among them.
pub fn stand_ins_played(c: &Connection, game: &str) -> Result<Vec<(u32, Side, String)>> {
    let played = rows::sets_played(c, game)?;
    let mut out = Vec::new();
    for (turn, side, why) in rows::stand_in_turns(c, game)? {
        let Some((_, _, sets)) = played.iter().find(|(t, _, _)| *t == turn) else {
            continue;
        };
        let set = match side {
            Side::Egyptian => sets.0,
            Side::Mahdist => sets.1,
        };
        let by_mail = match set {
            Some(id) => store::order_set(c, id)?.is_some_and(|s| s.message.is_some()),
            None => false,
        };
        if set.is_some() && !by_mail {
            out.push((turn, side, why));
        }
    }
    Ok(out)
}

/// Each side's record over the turns played so far (the set-up step left
/// out): a turn is sent on time when the side's orders came by mail, by a
/// stand-in when it made them, missed when there were none. Seats of a
/// programmed player have no record.
pub fn seat_records(c: &Connection, game: &str) -> Result<Vec<(Side, SeatRecord)>> {
    let stand_ins = stand_ins_played(c, game)?;
    let played = rows::sets_played(c, game)?;
    let mut out = Vec::new();
    for p in store::players(c, game)? {
        if p.bot.is_some() {
            continue;
        }
        let mut r = SeatRecord::default();
        for (turn, kind, sets) in &played {
            if !kind.sides().contains(&p.side) {
                continue;
            }
            let set = match p.side {
                Side::Egyptian => sets.0,
                Side::Mahdist => sets.1,
            };
            r.due += 1;
            if stand_ins.iter().any(|(t, s, _)| t == turn && *s == p.side) {
                r.stand_in += 1;
                r.missed_in_a_row = 0;
            } else if set.is_some() {
                r.on_time += 1;
                r.missed_in_a_row = 0;
            } else {
                r.missed += 1;
                r.missed_in_a_row += 1;
            }
        }
        out.push((p.side, r));
    }
    Ok(out)
}
