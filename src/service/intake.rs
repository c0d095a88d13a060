//! Intake: one incoming message, from raw bytes to a stored order set and
//! a receipt, or to an answer, or to a reasoned "ignored". A message is
//! stored raw once, keyed by its Message-ID, in the same transaction as
//! everything done about it, so a message delivered twice is applied once
//! and a crash part-way leaves nothing half done.

use super::record::TurnRecord;
use crate::mail::outbound::Attachment;
use std::panic::{self, AssertUnwindSafe};

use minijinja::context;

use super::games::deadline_text;
use super::mail::Draft;
pub(super) use super::outcome::Context;
pub use super::outcome::Outcome;
use super::outcome::SeatAsk;
use super::secrets::{secret_matches, sha256_hex};
use super::{Result, Service};
use crate::geo::route::land_route;
use crate::mail::inbound::{self, Inbound, InboundError, Kind};
use crate::mail::{Fetched, Inbox, InboxError, Waiting};
use crate::orders::{
    self, Command, Input, Order, Parsed, Refusal, Setting, Sheet, Vocabulary, print,
};
use crate::render::ascii::{self, Sector};
use crate::scenario::Side;
use crate::store::{self, GameRow, PlayerRow, Status, TurnKind};

/// Whether a mail asks for HELP and nothing else.
pub(super) fn only_help(p: &Parsed) -> bool {
    !p.sheet.items.is_empty()
        && p.sheet
            .items
            .iter()
            .all(|i| matches!(i.order, Order::Command(Command::Help)))
}

/// The Message-ID used for a message that has none: derived from its
/// bytes, so the same message is still recognised when delivered twice.
pub fn synthetic_message_id(raw: &[u8]) -> String {
    format!("sha256-{}@dervish.invalid", &sha256_hex(raw)[..40])
}

/// How many different questions of one kind with arguments (`MAP place`,
/// `ROUTE a TO b`, `HISTORY month`) one mail may ask; more are passed over.
pub const MAX_ANSWERS_PER_KIND: usize = 3;

/// Whether a line not understood was meant as a command (`MAP TXT`) or as
/// READY (`READY ASIS`): a mail of such lines alone holds no orders, and
/// the orders Dervish has stand as they were.
fn slip_of_command_or_ready(text: &str) -> bool {
    orders::parse::is_command_line(text) || orders::parse::is_ready_line(text)
}

/// Whether command `c` gets an answer, given those already chosen in this
/// mail. Each kind of request is answered once per mail: `HELP`, `STATUS`,
/// `RESEND` and `JOIN` once whatever follows them; `MAP`, `ROUTE` and
/// `HISTORY` once for each different place, route or month, up to
/// [`MAX_ANSWERS_PER_KIND`] of each kind. So one mail can never queue more
/// than 4 + 3 x 3 answers, however many lines it repeats.
pub fn answer_once(chosen: &[&Command], c: &Command) -> bool {
    if chosen.contains(&c) {
        return false;
    }
    let same_kind = chosen
        .iter()
        .filter(|k| std::mem::discriminant(**k) == std::mem::discriminant(c))
        .count();
    let cap = match c {
        Command::Map(_) | Command::Route(..) | Command::History(_) | Command::Seat(_) => {
            MAX_ANSWERS_PER_KIND
        }
        Command::Help | Command::Status | Command::Resend | Command::Join(_) => 1,
        // Settings are made, not answered (`Service::apply_settings`).
        Command::Set(_) => 0,
    };
    same_kind < cap
}

/// A seat's settings as they stand, in the order the guide gives them.
pub fn seat_settings(p: &PlayerRow) -> Vec<Setting> {
    vec![
        Setting::MapPicture(p.map_picture),
        Setting::ShowAddress(p.show_address),
    ]
}

/// What a seat's settings now are, for the receipt and the answer.
pub fn settings_text(game: &str, settings: &[Setting]) -> String {
    let mut out = format!("Your settings in game {game} now:");
    for s in settings {
        out.push_str(&format!("\n  {:<15} {}", s.words(), s.meaning()));
    }
    out
}

/// How many times the service may begin taking a message in and not
/// finish (killed for the memory it used, a panic, a failure of its own)
/// before the message is set aside instead of tried again.
pub const MAX_INBOX_ATTEMPTS: u32 = 2;

/// A raw message read: what [`Service::receive`] works from.
enum Reading {
    Mail(Box<Inbound>),
    TooLarge { size: usize, limit: usize },
    Unparseable(String),
}

impl Service {
    /// Take in one raw message (from the Maildir, IMAP, or `dervish
    /// submit`). Errors are failures of the service itself; a player's
    /// mistakes are answered by mail and reported in the outcome.
    pub fn receive(&mut self, raw: &[u8]) -> Result<Outcome> {
        let reading = self.read_raw(raw)?;
        self.handle(raw, reading)
    }

    /// The costly part of taking a message in, where hostile input could
    /// cost much time or memory: parsing it and, only if its body will be
    /// read (see [`Service::reads_body`]), converting its HTML. Changes
    /// nothing.
    fn read_raw(&self, raw: &[u8]) -> Result<Reading> {
        let limits = inbound::Limits {
            max_bytes: self.cfg.limits.max_message_bytes,
        };
        Ok(
            match inbound::read_deferred(raw, &limits, &self.cfg.loop_id()) {
                Ok(mut mail) => {
                    if mail.html_pending() && self.reads_body(raw, &mail)? {
                        mail.convert_html();
                    }
                    Reading::Mail(Box::new(mail))
                }
                Err(InboundError::TooLarge { size, limit }) => Reading::TooLarge { size, limit },
                Err(InboundError::Unparseable(why)) => Reading::Unparseable(why),
            },
        )
    }

    /// Everything done about a message read by [`Service::read_raw`].
    fn handle(&mut self, raw: &[u8], reading: Reading) -> Result<Outcome> {
        match reading {
            Reading::Mail(mail) => self.receive_mail(raw, &mail),
            Reading::TooLarge { size, limit } => self.receive_too_large(raw, size, limit),
            Reading::Unparseable(why) => {
                let id = synthetic_message_id(raw);
                let tx = self.begin()?;
                let Some(row) = store::insert_message(&tx, &id, self.now(), None, "", raw)? else {
                    return Ok(Outcome::Duplicate);
                };
                let out = Outcome::Ignored(format!("not a readable mail message: {why}"));
                store::set_message_outcome(&tx, row, None, &out.describe())?;
                tx.commit()?;
                Ok(out)
            }
        }
    }

    /// Take in a message read from a mailbox, as [`Service::receive`]
    /// does, keeping count of the attempts on it that failed:
    ///
    /// - around the costly part ([`Service::read_raw`]) an attempt is
    ///   recorded and committed before, and taken back after: a process
    ///   killed there (for the memory it used, say) leaves it recorded. A
    ///   kill anywhere else is not counted: the message is simply read
    ///   again, and a crash never sets aside a harmless message;
    /// - the rest runs in one transaction that also forgets the attempts;
    ///   a panic in it is caught and an error of the service ends it, and
    ///   then what it did is rolled back and a failed attempt recorded.
    ///
    /// `Some` error: the mailbox is to be left for this pass (after a
    /// panic); the next pass tries the message again.
    pub(super) fn take_in(
        &mut self,
        fetched: &Fetched,
        mailbox: &str,
        item: &str,
    ) -> Result<Option<InboxError>> {
        // A message over the limit is read only in its head, its header
        // alone parsed: nothing costly.
        let reading = if fetched.is_partial() {
            None
        } else {
            store::begin_inbox_attempt(&self.conn, mailbox, item, self.now())?;
            let reading = self.read_raw(&fetched.bytes)?;
            store::undo_inbox_attempt(&self.conn, mailbox, item)?;
            Some(reading)
        };
        // One transaction around the message's own (which joins it), so
        // that the attempts are forgotten in the commit that stores it.
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let taken = panic::catch_unwind(AssertUnwindSafe(|| {
            match reading {
                Some(reading) => self.handle(&fetched.bytes, reading)?,
                None => self.receive_oversized(&fetched.bytes, fetched.size)?,
            };
            store::end_inbox_attempts(&self.conn, mailbox, item)?;
            Ok(self.conn.execute_batch("COMMIT")?)
        }));
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        match taken {
            Ok(Ok(())) => Ok(None),
            Ok(Err(e)) => {
                // Best effort: the database itself may be what failed.
                let _ = store::begin_inbox_attempt(&self.conn, mailbox, item, self.now());
                Err(e)
            }
            Err(_) => {
                let tried = store::begin_inbox_attempt(&self.conn, mailbox, item, self.now())?;
                tracing::error!(
                    inbox = %mailbox,
                    message = %item,
                    attempt = tried,
                    "the service failed on this message; it is set aside after {MAX_INBOX_ATTEMPTS} attempts"
                );
                Ok(Some(InboxError(format!(
                    "the service failed on message {item} (attempt {tried} of {MAX_INBOX_ATTEMPTS})"
                ))))
            }
        }
    }

    /// Set aside a message the service failed on
    /// [`MAX_INBOX_ATTEMPTS`] times: its beginning is stored with the
    /// outcome "set aside", the game master is told once, and the mailbox
    /// puts it where it is not read again (a Maildir's `quarantine/`).
    /// Only the first [`crate::mail::HEAD_BYTES`] are read, and not
    /// parsed. Done in an order that a crash at any point repeats safely.
    pub(super) fn set_aside(
        &mut self,
        inbox: &mut dyn Inbox,
        w: &Waiting,
        item: &str,
        tried: u32,
    ) -> Result<Option<InboxError>> {
        let mailbox = inbox.describe();
        let head = match inbox.read(w, 0) {
            Ok(f) => f,
            Err(e) => return Ok(Some(e)),
        };
        let head = &head.bytes[..head.bytes.len().min(crate::mail::HEAD_BYTES)];
        let id = format!(
            "set-aside-{}@dervish.invalid",
            &sha256_hex(format!("{mailbox}\n{item}").as_bytes())[..40]
        );
        let from = head_field(head, "From");
        let subject = head_field(head, "Subject");
        let place = inbox.aside_to();
        let why = format!(
            "taking it in failed {tried} times (the service stopped or failed on it); set aside, {place}"
        );
        let tx = self.begin()?;
        if let Some(row) = store::insert_message(&tx, &id, self.now(), None, &subject, head)? {
            store::set_message_outcome(&tx, row, None, &format!("set aside: {why}"))?;
        }
        let gm = self.cfg.host.game_master.clone();
        self.queue(self.notice_draft(
            None,
            &format!("set-aside:{id}"),
            &gm,
            "a message was set aside",
            &format!(
                "Dervish could not take in a message from {mailbox}: {why}. The mail behind it is read as usual.\n\nFrom: {from}\nSubject: {subject}\nMailbox name: {item}\n\nIts beginning is kept in the database as message {id}. To have it read again, put it back where new mail arrives (for a Maildir, move it back into new/)."
            ),
        )?)?;
        tx.commit()?;
        tracing::error!(inbox = %mailbox, message = %item, attempts = tried, "{why}");
        if let Err(e) = inbox.set_aside(w) {
            return Ok(Some(e));
        }
        store::end_inbox_attempts(&self.conn, &mailbox, item)?;
        Ok(None)
    }

    /// Whether the body of this mail will be read, decided from its
    /// headers alone: not for a duplicate, automatic mail, a bounce or our
    /// own mail come back, nor for a stranger's mail unless a game has an
    /// open seat (a stranger's mail is read only for JOIN).
    fn reads_body(&self, raw: &[u8], mail: &Inbound) -> Result<bool> {
        let id = mail
            .message_id
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| synthetic_message_id(raw));
        if store::message_outcome(&self.conn, &id)?.is_some() {
            return Ok(false);
        }
        let Some(from) = mail.from.as_deref().filter(|_| mail.kind == Kind::Normal) else {
            return Ok(false);
        };
        if from.eq_ignore_ascii_case(&self.cfg.host.game_master)
            || !store::seats_of(&self.conn, from)?.is_empty()
            || store::strangers::observes_any(&self.conn, from)?
        {
            return Ok(true);
        }
        Ok(store::open_seat_exists(&self.conn)?)
    }

    /// A message over the size limit of which only the beginning was read
    /// (`head`), `size` bytes in all: handled as [`Service::receive`]
    /// handles any message over the limit.
    pub fn receive_oversized(&mut self, head: &[u8], size: usize) -> Result<Outcome> {
        let limit = self.cfg.limits.max_message_bytes;
        self.receive_too_large(head, size.max(limit + 1), limit)
    }

    /// A message over the size limit: stored, not read; a registered
    /// player gets a polite refusal, anyone else nothing.
    fn receive_too_large(&mut self, raw: &[u8], size: usize, limit: usize) -> Result<Outcome> {
        // The headers are in the first part of the message: read them
        // alone to learn who sent it.
        let head_end = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .or_else(|| raw.windows(2).position(|w| w == b"\n\n"))
            .unwrap_or(raw.len().min(64 * 1024));
        let head = &raw[..head_end.min(raw.len())];
        let mut head_only = head.to_vec();
        head_only.extend_from_slice(b"\r\n\r\n");
        let mail = inbound::read(
            &head_only,
            &inbound::Limits {
                max_bytes: head_only.len() + 1,
            },
            &self.cfg.loop_id(),
        )
        .ok();
        let id = mail
            .as_ref()
            .and_then(|m| m.message_id.clone())
            .unwrap_or_else(|| synthetic_message_id(raw));
        let tx = self.begin()?;
        let sender = mail.as_ref().and_then(|m| m.from.clone());
        let subject = mail.as_ref().map(|m| m.subject.clone()).unwrap_or_default();
        // Only the head is kept: the outcome records the real size.
        let kept = &raw[..raw.len().min(crate::mail::HEAD_BYTES)];
        let Some(row) =
            store::insert_message(&tx, &id, self.now(), sender.as_deref(), &subject, kept)?
        else {
            return Ok(Outcome::Duplicate);
        };
        let reason = format!(
            "the message is {} KiB long as sent, attachments included, and Dervish reads messages of up to {} KiB",
            size.div_ceil(1024),
            limit / 1024
        );
        let automatic = mail
            .as_ref()
            .is_some_and(|m| !matches!(m.kind, Kind::Normal));
        let out = match (&sender, automatic) {
            (Some(from), false) if !store::seats_of(&tx, from)?.is_empty() => {
                let game = store::seats_of(&tx, from)?[0].game_id.clone();
                // Nothing of this mail was read, its secret neither.
                self.queue_unverified(self.refusal_draft(
                    &game,
                    &id,
                    from,
                    &subject,
                    &reason,
                    "Send the orders as plain text without attachments, and leave out the quoted report.",
                    mail.as_ref(),
                )?)?;
                Outcome::Refused(reason)
            }
            _ => Outcome::Ignored(format!("{reason}; the sender is not a player")),
        };
        store::set_message_outcome(&tx, row, None, &out.describe())?;
        tx.commit()?;
        Ok(out)
    }

    fn receive_mail(&mut self, raw: &[u8], mail: &Inbound) -> Result<Outcome> {
        let message_id = mail
            .message_id
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| synthetic_message_id(raw));
        let tx = self.begin()?;
        let Some(row) = store::insert_message(
            &tx,
            &message_id,
            self.now(),
            mail.from.as_deref(),
            &mail.subject,
            raw,
        )?
        else {
            return Ok(Outcome::Duplicate);
        };
        let (game, out) = match &mail.kind {
            Kind::Loop => (
                None,
                Outcome::Ignored("our own mail came back (X-Loop)".into()),
            ),
            Kind::Automatic { reason } => {
                (None, Outcome::Ignored(format!("automatic mail: {reason}")))
            }
            Kind::Bounce {
                original_message_id,
                ..
            } => self.bounce(original_message_id.as_deref())?,
            Kind::Normal => match mail.from.clone() {
                None => (None, Outcome::Ignored("no sender address".into())),
                Some(sender)
                    if sender.eq_ignore_ascii_case(&self.cfg.host.game_master)
                        && !super::gm::gm_lines(
                            &mail.body.text,
                            mail.body.flowed,
                            mail.body.delsp,
                        )
                        .commands
                        .is_empty() =>
                {
                    let gm =
                        super::gm::gm_lines(&mail.body.text, mail.body.flowed, mail.body.delsp);
                    (None, self.gm_mail(mail, &message_id, &gm)?)
                }
                Some(sender) => {
                    let cx = Context {
                        mail,
                        message_id: message_id.clone(),
                        row,
                        sender: sender.to_lowercase(),
                    };
                    self.player_mail(&cx)?
                }
            },
        };
        store::set_message_outcome(&tx, row, game.as_deref(), &out.describe())?;
        tx.commit()?;
        tracing::info!(message = %message_id, outcome = %out.describe(), "message received");
        Ok(out)
    }

    /// A delivery failure of one of our mails, known by the Message-ID it
    /// returns: its recipient is marked unreachable, and the game master
    /// and the opponent are told. A report on any other mail is ignored.
    fn bounce(&self, original: Option<&str>) -> Result<(Option<String>, Outcome)> {
        let sent = match original {
            Some(id) => store::sent_mail_by_message_id(&self.conn, id)?,
            None => None,
        };
        // Only a report on a mail Dervish really sent counts: anyone can
        // forge a delivery report naming a player, so one that does not
        // return the Message-ID of a mail in the outbox is ignored.
        let (game, recipient) = match sent {
            Some((Some(g), r)) => (g, r),
            Some((None, _)) => {
                return Ok((
                    None,
                    Outcome::Ignored("a delivery failure of a mail about no game".into()),
                ));
            }
            None => {
                return Ok((
                    None,
                    Outcome::Ignored(
                        "a delivery failure about no mail Dervish sent (forged, or not ours): ignored"
                            .into(),
                    ),
                ));
            }
        };
        self.mark_unreachable(&game, &recipient)?;
        Ok((
            Some(game.clone()),
            Outcome::Bounce(format!("{recipient} in {game} marked unreachable")),
        ))
    }

    /// Mark the player with this address unreachable in the game, and tell
    /// the game master and the opponent (once).
    pub(crate) fn mark_unreachable(&self, game: &str, recipient: &str) -> Result<()> {
        let game = game.to_owned();
        let players = store::players(&self.conn, &game)?;
        let mut marked = Vec::new();
        for mut p in players.clone() {
            if p.address == recipient.to_lowercase() && !p.unreachable {
                p.unreachable = true;
                store::upsert_player(&self.conn, &p)?;
                marked.push(p.side);
            }
        }
        for side in &marked {
            let text = format!(
                "Mail from Dervish to the {side} player ({recipient}) in game {game} could not be delivered. That player is marked unreachable; the game goes on, and a side without orders holds."
            );
            let gm = self.cfg.host.game_master.clone();
            self.queue(self.notice_draft(
                Some(&game),
                &format!("unreachable:{}", store::side_text(*side)),
                &gm,
                "a player is unreachable",
                &text,
            )?)?;
            for o in players
                .iter()
                .filter(|p| p.side != *side && p.address != recipient)
            {
                self.queue(self.notice_draft(
                    Some(&game),
                    &format!("unreachable:{}", store::side_text(*side)),
                    &o.address,
                    "your opponent is unreachable",
                    &text,
                )?)?;
            }
        }
        Ok(())
    }

    /// Which of the sender's games a message is about: the subject's
    /// `[dervish ID]`, the mail it answers, a GAME line, or the sender's
    /// only game.
    fn which_game(
        &self,
        cx: &Context<'_>,
        seats: &[PlayerRow],
    ) -> Result<std::result::Result<String, String>> {
        let mine = |id: &str| seats.iter().any(|p| p.game_id == id);
        let from_subject = orders::parse::subject_header(&cx.mail.subject).game;
        if let Some(g) = from_subject {
            return Ok(if mine(&g) {
                Ok(g)
            } else {
                Err(format!(
                    "the subject names game {g}, and this address plays no such game"
                ))
            });
        }
        for id in cx
            .mail
            .in_reply_to
            .iter()
            .chain(cx.mail.references.iter().rev())
        {
            if let Some((Some(g), _)) = store::sent_mail_by_message_id(&self.conn, id)?
                && mine(&g)
            {
                return Ok(Ok(g));
            }
        }
        // A GAME line in the body (read with any scenario's words: the
        // header lines do not depend on them).
        if let Some(scn) = self
            .data
            .scenario_ids()
            .first()
            .and_then(|id| self.data.scenario(id))
        {
            let v = Vocabulary::new(&scn);
            let text = &cx.mail.body.text;
            if let Ok(p) = orders::parse(
                &Input {
                    text,
                    subject: None,
                    flowed: cx.mail.body.flowed,
                    delsp: cx.mail.body.delsp,
                },
                &v,
            ) && let Some(g) = p.sheet.header.game
            {
                return Ok(if mine(&g) {
                    Ok(g)
                } else {
                    Err(format!(
                        "the orders name game {g}, and this address plays no such game"
                    ))
                });
            }
        }
        let games = self.games_to_offer(seats)?;
        Ok(match games.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(format!(
                "this address plays in several games ({}); say which with a line GAME id or by replying to that game's mail",
                games.join(", ")
            )),
        })
    }

    /// The sender's games a mail that names none may be about: those still
    /// being played, or every game when all are finished (a finished game
    /// is offered only then: STATUS and HISTORY still answer for it).
    fn games_to_offer(&self, seats: &[PlayerRow]) -> Result<Vec<String>> {
        let mut games: Vec<String> = seats.iter().map(|p| p.game_id.clone()).collect();
        games.dedup();
        let mut open = Vec::new();
        for id in &games {
            if self.game(id)?.status != Status::Finished {
                open.push(id.clone());
            }
        }
        Ok(if open.is_empty() { games } else { open })
    }

    fn player_mail(&self, cx: &Context<'_>) -> Result<(Option<String>, Outcome)> {
        let seats = store::seats_of(&self.conn, &cx.sender)?;
        if seats.is_empty() {
            // JOIN, JOIN CONFIRM and HELP are answered, within the cap.
            return self.stranger_mail(cx);
        }
        let game_id = match self.which_game(cx, &seats)? {
            Ok(g) => g,
            Err(reason) => return Ok((None, self.refuse_no_game(cx, &seats, reason)?)),
        };
        let g = self.game(&game_id)?;
        let scn = self.scenario(&g.scenario)?;
        let vocab = match self.state_of(&g) {
            Ok(state) => Vocabulary::new(&scn).in_play(&state),
            Err(_) => Vocabulary::new(&scn),
        };
        let parsed = match self.read_orders(cx.mail, &vocab) {
            Ok(p) => p,
            Err(r) => {
                let out = self.refuse_unverified(cx, &game_id, r.to_string())?;
                return Ok((Some(game_id), out));
            }
        };
        let seat = match self.verified_seat(cx, &seats, &g, &parsed)? {
            Ok(seat) => seat,
            Err(done) => return Ok(done),
        };
        // A table battle's result, confirmation or dispute (docs/tabletop.md).
        if let Some(ask) =
            super::battles::battle_mail(&cx.mail.body.text, cx.mail.body.flowed, cx.mail.body.delsp)
        {
            let out =
                self.battle_mail_from(&g, seat.side, &cx.sender, &cx.message_id, cx.mail, ask)?;
            return Ok((Some(game_id), out));
        }
        self.orders_and_commands(cx, &g, seat.side, &parsed)
    }

    /// The refusal of a mail from a player that says no game of his, or
    /// that could be about several: sent in the name of the first game
    /// still played, and counted against the cap unless the mail holds
    /// one of the sender's secrets.
    fn refuse_no_game(
        &self,
        cx: &Context<'_>,
        seats: &[PlayerRow],
        reason: String,
    ) -> Result<Outcome> {
        let g = self
            .games_to_offer(seats)?
            .into_iter()
            .next()
            .unwrap_or_else(|| seats[0].game_id.clone());
        if self.holds_a_secret_of(cx, seats) {
            self.refuse(cx, &g, reason, "")
        } else {
            self.refuse_unverified(cx, &g, reason)
        }
    }

    /// The seat the mail is from, its secret checked: the SIDE line, else
    /// the seat whose secret matches, else the only seat. `Err` holds what
    /// became of a mail that goes no further: refused, HELP alone answered
    /// without the secret, or a failed secret.
    fn verified_seat(
        &self,
        cx: &Context<'_>,
        seats: &[PlayerRow],
        g: &GameRow,
        parsed: &Parsed,
    ) -> Result<std::result::Result<PlayerRow, (Option<String>, Outcome)>> {
        let game_id = &g.id;
        let my_seats: Vec<&PlayerRow> = seats.iter().filter(|p| p.game_id == *game_id).collect();
        let secret = parsed.sheet.header.secret.clone().unwrap_or_default();
        // The secret is hashed once a seat (`verified`: it matched).
        let (seat, verified) = match parsed.sheet.header.side {
            Some(s) => {
                let seat = my_seats.iter().find(|p| p.side == s).copied();
                let ok = seat.is_some_and(|p| secret_matches(&secret, &p.secret_sha256));
                (seat, ok)
            }
            None => match my_seats
                .iter()
                .find(|p| secret_matches(&secret, &p.secret_sha256))
            {
                Some(p) => (Some(*p), true),
                None => (my_seats.first().copied(), false),
            },
        };
        let Some(seat) = seat.cloned() else {
            let reason = format!(
                "this address does not play the {} side in game {game_id}",
                parsed
                    .sheet
                    .header
                    .side
                    .map_or("named".to_string(), |s| s.to_string())
            );
            let out = self.refuse_unverified(cx, game_id, reason)?;
            return Ok(Err((Some(game_id.clone()), out)));
        };
        // HELP alone is answered without a secret: it reveals nothing of
        // the game. Anyone can send it in the player's name, so it counts
        // against the hourly cap on answers without a valid secret.
        if only_help(parsed) && !verified {
            let rendered = self.templates.render(
                "help.txt",
                context! { game => g.id.clone(), guide => super::templates::GUIDE },
            )?;
            let key = format!("answer:{}:0", cx.message_id);
            self.queue_unverified(
                self.reply_draft(&g.id, "answer", &key, &cx.sender, rendered, cx.mail),
            )?;
            let out = Outcome::Commands {
                game: game_id.clone(),
            };
            return Ok(Err((Some(game_id.clone()), out)));
        }
        if !verified {
            return Ok(Err(self.auth_failure(cx, g, seat, secret.is_empty())?));
        }
        if seat.auth_failures > 0 || seat.unreachable {
            let mut s = seat.clone();
            s.auth_failures = 0;
            s.unreachable = false;
            store::upsert_player(&self.conn, &s)?;
        }
        Ok(Ok(seat))
    }

    /// A verified mail's commands answered and settings made, then its
    /// orders taken (or, for a mail of commands alone, the orders standing
    /// as they were).
    fn orders_and_commands(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        parsed: &Parsed,
    ) -> Result<(Option<String>, Outcome)> {
        let game_id = g.id.clone();
        let (answered, now_set) = self.commands(cx, g, side, parsed)?;
        let has_orders = parsed
            .sheet
            .items
            .iter()
            .any(|i| !matches!(i.order, Order::Command(_)));
        // A mail of commands alone, even with a slip in one (`MAP TXT`),
        // is no set of orders: it replaces none. Its settings and slips
        // are answered, line by line, in one mail.
        let commands_only = !has_orders
            && parsed
                .errors
                .iter()
                .all(|e| e.line > 0 && slip_of_command_or_ready(&e.text));
        // A mail with no order at all (a greeting, a thank-you) replaces no
        // standing set either: it is told that the orders stand.
        let keeps_standing = commands_only
            && !answered
            && parsed.errors.is_empty()
            && store::latest_order_set(&self.conn, &game_id, g.turn_no, side)?.is_some();
        if commands_only && (answered || !parsed.errors.is_empty() || keeps_standing) {
            if now_set.is_some() || !parsed.errors.is_empty() || keeps_standing {
                self.answer_settings(
                    cx,
                    g,
                    parsed,
                    now_set.as_ref(),
                    "This mail held no orders: the orders Dervish has from you stand as they were.",
                )?;
            }
            return Ok((Some(game_id.clone()), Outcome::Commands { game: game_id }));
        }
        let out = self.take_orders(cx, g, side, parsed, now_set.as_ref())?;
        // Refused orders get no receipt: the settings, made all the same,
        // are told in a mail of their own.
        if now_set.is_some() && matches!(out.1, Outcome::Refused(_)) {
            let only_settings = Parsed {
                sheet: Sheet {
                    header: Default::default(),
                    items: parsed
                        .sheet
                        .items
                        .iter()
                        .filter(|i| matches!(i.order, Order::Command(Command::Set(_))))
                        .cloned()
                        .collect(),
                },
                ..Parsed::default()
            };
            self.answer_settings(
                cx,
                g,
                &only_settings,
                now_set.as_ref(),
                "The orders in this mail were not taken (another answer says why); the settings are made all the same.",
            )?;
        }
        Ok(out)
    }

    /// Each command of the mail answered once ([`answer_once`]) and its
    /// settings made: whether it held any command, and the seat's
    /// settings as they now stand if it set any.
    fn commands(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        parsed: &Parsed,
    ) -> Result<(bool, Option<Vec<Setting>>)> {
        let mut answered = false;
        let mut chosen: Vec<&Command> = Vec::new();
        let mut settings: Vec<(usize, Setting)> = Vec::new();
        for (n, item) in parsed.sheet.items.iter().enumerate() {
            match &item.order {
                Order::Command(Command::Set(s)) => {
                    answered = true;
                    settings.push((item.line, *s));
                }
                Order::Command(c) => {
                    answered = true;
                    if answer_once(&chosen, c) {
                        self.answer(cx, g, side, c, n)?;
                        chosen.push(c);
                    }
                }
                _ => {}
            }
        }
        let now_set = if settings.is_empty() {
            None
        } else {
            Some(self.apply_settings(cx, g, side, &settings)?)
        };
        Ok((answered, now_set))
    }

    /// Store the settings of a mail for the sender's seat (the last line
    /// of each kind counts), with a line in the audit log; returns every
    /// setting of the seat as it now stands.
    fn apply_settings(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        settings: &[(usize, Setting)],
    ) -> Result<Vec<Setting>> {
        let Some(mut seat) = store::players(&self.conn, &g.id)?
            .into_iter()
            .find(|p| p.side == side)
        else {
            return Err(super::ServiceError::Game(format!(
                "game {} has no {side} seat",
                g.id
            )));
        };
        for (_, s) in settings {
            match s {
                Setting::MapPicture(on) => seat.map_picture = *on,
                Setting::ShowAddress(on) => seat.show_address = *on,
            }
        }
        store::upsert_player(&self.conn, &seat)?;
        let lines: Vec<String> = settings
            .iter()
            .map(|(line, s)| format!("line {line}: {}", s.words()))
            .collect();
        let detail = format!("{side} seat: {}", lines.join(", "));
        cx.audit(self, g, "player settings", &detail)?;
        Ok(seat_settings(&seat))
    }

    /// The answer to a mail of commands that set something or were not
    /// understood: each such line with its number, then the seat's
    /// settings as they now stand, then `closing` (what became of the
    /// orders).
    pub(super) fn answer_settings(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        parsed: &Parsed,
        now_set: Option<&Vec<Setting>>,
        closing: &str,
    ) -> Result<()> {
        let mut lines: Vec<(usize, String)> = Vec::new();
        for i in &parsed.sheet.items {
            if let Order::Command(Command::Set(s)) = &i.order {
                lines.push((
                    i.line,
                    format!(
                        "line {}: {}\n    from now on {}",
                        i.line,
                        s.words(),
                        s.meaning()
                    ),
                ));
            }
        }
        for e in &parsed.errors {
            let mut m = e.message.clone();
            if !e.expected.is_empty() {
                m.push_str(&format!("; expected {}", e.expected));
            }
            if let Some(sug) = &e.suggestion {
                m.push_str(&format!("; did you mean {sug}?"));
            }
            lines.push((
                e.line,
                format!("line {}: NOT UNDERSTOOD: {}\n    {m}", e.line, e.text),
            ));
        }
        lines.sort_by_key(|(n, _)| *n);
        let mut text: Vec<String> = lines.into_iter().map(|(_, l)| l).collect();
        if let Some(now) = now_set {
            text.push(String::new());
            text.push(settings_text(&g.id, now));
        }
        text.push(String::new());
        text.push(closing.to_string());
        let headline = if now_set.is_some() {
            "your settings"
        } else if parsed.errors.is_empty() {
            "no orders in this mail"
        } else {
            "commands not understood"
        };
        let key = format!("answer:{}:settings", cx.message_id);
        let d = self.notice_draft(Some(&g.id), &key, &cx.sender, headline, &text.join("\n"))?;
        self.queue(d.answering(cx.mail, "answer", &key))?;
        Ok(())
    }

    /// The body of a mail from an address that plays in no game, read with
    /// the names of the first scenario (commands and headers name no
    /// place); `None` if there is no scenario or the text is refused.
    pub(super) fn parse_as_stranger(
        &self,
        cx: &Context<'_>,
        subject: Option<&str>,
    ) -> Option<Parsed> {
        let scn = self
            .data
            .scenario_ids()
            .first()
            .and_then(|id| self.data.scenario(id))?;
        orders::parse(
            &Input {
                text: &cx.mail.body.text,
                subject,
                flowed: cx.mail.body.flowed,
                delsp: cx.mail.body.delsp,
            },
            &Vocabulary::new(&scn),
        )
        .ok()
    }

    /// The text with the orders: the body, or a text attachment when the
    /// body holds none.
    fn read_orders(
        &self,
        mail: &Inbound,
        vocab: &Vocabulary,
    ) -> std::result::Result<Parsed, Refusal> {
        let body = orders::parse(
            &Input {
                text: &mail.body.text,
                subject: Some(&mail.subject),
                flowed: mail.body.flowed,
                delsp: mail.body.delsp,
            },
            vocab,
        )?;
        if !body.sheet.items.is_empty() {
            return Ok(body);
        }
        for a in &mail.attachments {
            let p = orders::parse(
                &Input {
                    text: &a.text,
                    subject: Some(&mail.subject),
                    flowed: false,
                    delsp: false,
                },
                vocab,
            )?;
            if !p.sheet.items.is_empty() {
                let mut p = p;
                // The body's header lines (the secret) still count.
                let h = &mut p.sheet.header;
                h.secret = h.secret.take().or(body.sheet.header.secret.clone());
                h.side = h.side.or(body.sheet.header.side);
                h.game = h.game.take().or(body.sheet.header.game.clone());
                h.month = h.month.or(body.sheet.header.month);
                return Ok(p);
            }
        }
        Ok(body)
    }

    fn auth_failure(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        mut seat: PlayerRow,
        missing: bool,
    ) -> Result<(Option<String>, Outcome)> {
        seat.auth_failures += 1;
        store::upsert_player(&self.conn, &seat)?;
        let limit = self.cfg.limits.auth_failures_note;
        let reason = if missing {
            "the mail has no SECRET line".to_string()
        } else {
            "the SECRET does not match the one Dervish sent you".to_string()
        };
        if seat.auth_failures == limit {
            let gm = self.cfg.host.game_master.clone();
            self.queue(self.notice_draft(
                Some(&g.id),
                &format!("auth:{}:{}", store::side_text(seat.side), cx.message_id),
                &gm,
                "repeated failed secrets",
                &format!(
                    "{} mails in a row for the {} side of game {} came from {} without the right secret. Further failures are not answered until a mail with the right secret arrives. If the player lost the secret: dervish game replace {} {} {}",
                    seat.auth_failures,
                    seat.side,
                    g.id,
                    seat.address,
                    g.id,
                    store::side_text(seat.side),
                    seat.address
                ),
            )?)?;
        }
        if seat.auth_failures > limit {
            return Ok((
                Some(g.id.clone()),
                Outcome::Ignored(format!(
                    "{reason} (failure {}, no longer answered)",
                    seat.auth_failures
                )),
            ));
        }
        self.queue_unverified(self.refusal_to(
            cx,
            &g.id,
            &seat.address,
            &reason,
            "Add the line SECRET followed by the secret from your welcome mail. If you have lost it, ask the game master for a new one.",
        )?)?;
        Ok((Some(g.id.clone()), Outcome::Refused(reason)))
    }

    fn take_orders(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        parsed: &Parsed,
        now_set: Option<&Vec<Setting>>,
    ) -> Result<(Option<String>, Outcome)> {
        let refuse =
            |s: &Service, reason: String, hint: &str| -> Result<(Option<String>, Outcome)> {
                Ok((Some(g.id.clone()), s.refuse(cx, &g.id, reason, hint)?))
            };
        match g.status {
            Status::Finished => {
                return refuse(
                    self,
                    format!(
                        "game {} is over: {}",
                        g.id,
                        g.result.clone().unwrap_or_default()
                    ),
                    "",
                );
            }
            Status::Paused | Status::Running => {}
        }
        if let Some((reason, hint)) = not_due(g, side) {
            return refuse(self, reason, hint);
        }
        if let Some(b) =
            crate::store::battles::battles_of_turn(&self.conn, &g.id, g.turn_no)?.first()
        {
            return refuse(
                self,
                format!(
                    "turn {} ({}) is being played: it stopped at table battle {}, and its orders are fixed",
                    g.turn_no, g.month, b.id
                ),
                "Orders for the next turn are taken once the results of this one are out.",
            );
        }
        let now = self.now();
        if now >= g.deadline {
            return refuse(
                self,
                format!(
                    "the deadline of {} passed at {}",
                    g.month,
                    deadline_text(g.deadline)
                ),
                "The turn is played with the orders Dervish had at the deadline.",
            );
        }
        let scn = self.scenario(&g.scenario)?;
        let state = self.state_shown(g)?;
        let checked = super::setup::check_for(g.turn_kind, &parsed.sheet, &scn, &state, side);
        let ack = super::setup::acknowledge_for(g.turn_kind, parsed, &checked, &scn, &state, side);
        if checked.refused {
            return refuse(
                self,
                ack.lines()
                    .find(|l| l.contains("ERROR"))
                    .unwrap_or("wrong side or month")
                    .trim()
                    .to_string(),
                &ack,
            );
        }
        // READY alone confirms the standing set; it never replaces it.
        if super::ready::confirms_only(parsed) {
            return self.confirm_ready(cx, g, side, parsed, now_set, &scn, &state);
        }
        let refused_lines = super::ready::refused_lines(parsed, &checked);
        self.seal(
            cx,
            g,
            side,
            &state,
            super::ready::Sealing {
                sheet: &parsed.sheet,
                checked: &checked,
                ack,
                refused_lines,
                confirms: None,
            },
            now_set,
        )
    }

    /// Store a checked set as the side's new version (sealed: the SHA-256
    /// of its canonical text) and queue its receipt. The set counts as
    /// READY when it says so and every line will be carried out, or when
    /// it says READY AS IS (docs/orders.md, READY).
    pub(super) fn seal(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        state: &crate::state::GameState,
        s: super::ready::Sealing<'_>,
        now_set: Option<&Vec<Setting>>,
    ) -> Result<(Option<String>, Outcome)> {
        let scn = self.scenario(&g.scenario)?;
        let now = self.now();
        let setup = g.turn_kind.is_setup();
        let only_orders = Sheet {
            header: Default::default(),
            items: s
                .sheet
                .items
                .iter()
                .filter(|i| !matches!(i.order, Order::Command(_)))
                .filter(|i| !setup || super::setup::counts_in_setup(&i.order))
                .cloned()
                .collect(),
        };
        let canonical = print::sheet(&scn.map, &only_orders, false);
        let said_ready = s.sheet.ready();
        let ready = said_ready && (s.refused_lines == 0 || s.sheet.as_is());
        let set = super::record::insert_sealed_set(
            &self.conn,
            g,
            side,
            super::record::SetToSeal {
                message: Some(cx.row),
                canonical: &canonical,
                orders: &s.checked.orders,
                ready,
                refused_lines: s.refused_lines,
            },
            now,
        )?;
        let rendered = self.templates.render(
            "receipt.txt",
            context! {
                game => g.id.clone(),
                month => state.month.long_name(),
                setup => setup,
                side => side.to_string(),
                version => set.version,
                mail_subject => short_subject(&cx.mail.subject),
                ack => s.ack,
                sha256 => set.sha256.clone(),
                // Versions count from 1 without a gap: this one replaces
                // the one before it, if any.
                replaces => (set.version > 1).then(|| set.version - 1),
                deadline => deadline_text(g.deadline),
                ready => set.ready,
                waits => said_ready && !ready,
                as_is => s.sheet.as_is(),
                refused_lines => s.refused_lines,
                confirms => s.confirms,
                empty => !only_orders.items.iter().any(|i| !matches!(i.order, Order::Ready | Order::ReadyAsIs)),
                settings => now_set.map(|n| settings_text(&g.id, n)),
            },
        )?;
        self.queue(self.reply_draft(
            &g.id,
            "receipt",
            &format!("receipt:{}", cx.message_id),
            &cx.sender,
            rendered,
            cx.mail,
        ))?;
        Ok((
            Some(g.id.clone()),
            Outcome::Orders {
                game: g.id.clone(),
                side,
                version: set.version,
                ready: set.ready,
            },
        ))
    }

    /// Answer a command: the answer goes back in reply to the mail, with
    /// an HTML part for maps, the status, a resent results mail and a
    /// month's history.
    fn answer(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        side: Side,
        c: &Command,
        n: usize,
    ) -> Result<()> {
        let scn = self.scenario(&g.scenario)?;
        let state = self.state_shown(g)?;
        let key = format!("answer:{}:{n}", cx.message_id);
        let notice = |headline: &str, text: &str| {
            self.notice_draft(Some(&g.id), &key, &cx.sender, headline, text)
        };
        let reply =
            |rendered| self.reply_draft(&g.id, "answer", &key, &cx.sender, rendered, cx.mail);
        let d = match c {
            // Absence, resignation and draws (`service::seats`).
            Command::Seat(r) => {
                let ask = SeatAsk {
                    cx,
                    g,
                    side,
                    key: &key,
                };
                return self.seat_request(ask, *r);
            }
            Command::Help => reply(self.templates.render(
                "help.txt",
                context! { game => g.id.clone(), guide => super::templates::GUIDE },
            )?),
            Command::Status => reply(self.status_answer(g, side, &scn, &state)?),
            Command::Map(at) => notice("map", &map_answer(g, &scn, &state, *at))?,
            Command::Route(a, b) => notice("route", &route_answer(&scn, *a, *b))?,
            Command::History(month) => {
                // A month's logs and turn records go as files.
                let (text, files) = self.history_answer(g, *month)?;
                let mut d = notice("history", &text)?;
                d.attachments = files;
                d
            }
            Command::Resend => self.resend(cx, g, &key)?,
            // Settings are made by `apply_settings` and told in the
            // receipt; were one asked here, it is said what it sets.
            Command::Set(s) => notice(
                "settings",
                &format!("{}: from now on {}.", s.words(), s.meaning()),
            )?,
            Command::Join(_) => notice(
                "join",
                &format!(
                    "You already play the {side} side of game {}. An open seat is taken with JOIN from an address that has none in the game.",
                    g.id
                ),
            )?,
        };
        let mut d = d.answering(cx.mail, "answer", &key);
        d.html = matches!(
            c,
            Command::Map(_) | Command::Status | Command::Resend | Command::History(_)
        );
        self.queue(d)?;
        Ok(())
    }

    /// STATUS: the game, its turn and deadline, each seat's orders, where
    /// victory stands, the side's roster, the seats' records, the clock
    /// and the overview map.
    fn status_answer(
        &self,
        g: &GameRow,
        side: Side,
        scn: &crate::scenario::Scenario,
        state: &crate::state::GameState,
    ) -> Result<super::templates::Rendered> {
        let players: Vec<minijinja::Value> = store::players(&self.conn, &g.id)?
            .iter()
            .map(|p| context! { side => p.side.to_string(), state => self.seat_state(g, p) })
            .collect();
        Ok(self.templates.render(
            "status.txt",
            context! {
                game => g.id.clone(),
                title => scn.def.title.clone(),
                scenario => g.scenario.clone(),
                mode => g.mode.as_str(),
                status => g.status.as_str(),
                turn_no => g.turn_no,
                month => state.month.long_name(),
                turn_kind => match g.turn_kind {
                    TurnKind::Month => "both player turns".to_string(),
                    TurnKind::Player(s) => format!("the {s} player turn"),
                    TurnKind::SetUp(s) => format!("the set-up (2.1): the {s} player's"),
                },
                deadline => deadline_text(g.deadline),
                result => (g.status == Status::Finished).then(|| g.result.clone()).flatten(),
                players => players,
                victory => crate::engine::victory::standing(scn, state),
                roster => crate::render::roster::roster(scn, state, side),
                seats => self.seat_lines(&g.id)?,
                clock => self.clock_lines(&g.id)?,
                map => ascii::overview(scn, Some(state)),
            },
        )?)
    }

    /// Where a seat's orders stand, for STATUS.
    fn seat_state(&self, g: &GameRow, p: &PlayerRow) -> String {
        let set = store::latest_order_set(&self.conn, &g.id, g.turn_no, p.side)
            .ok()
            .flatten();
        let st = match set {
            Some(s) if s.ready => format!("orders in (version {}), READY", s.version),
            Some(s) => format!("orders in (version {}), not yet READY", s.version),
            None if g.turn_kind.waits_for().contains(&p.side) => "no orders yet".to_string(),
            None => "not this player turn".to_string(),
        };
        let st = if p.bot.is_some() {
            format!("the programmed player; {st}")
        } else {
            st
        };
        if p.unreachable {
            format!("{st}; unreachable")
        } else {
            st
        }
    }

    /// HISTORY: the list of turns played, or one month's turns, each with
    /// its full log and turn record as files.
    fn history_answer(
        &self,
        g: &GameRow,
        month: Option<crate::calendar::GameMonth>,
    ) -> Result<(String, Vec<Attachment>)> {
        let turns = store::turns(&self.conn, &g.id)?;
        let Some(m) = month else {
            if turns.is_empty() {
                return Ok(("No turn has been played yet.".to_string(), Vec::new()));
            }
            let list = turns
                .iter()
                .map(|t| {
                    format!(
                        "turn {}: {} ({}), seed SHA-256 {}",
                        t.turn_no,
                        t.month,
                        t.turn_kind.as_str(),
                        t.seed_sha256
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            return Ok((
                list + "\n\nSend HISTORY and a month (HISTORY 1884-03) for that month's full log.",
                Vec::new(),
            ));
        };
        let mut files: Vec<Attachment> = Vec::new();
        let mut logs: Vec<String> = Vec::new();
        for (i, t) in turns.iter().enumerate() {
            if t.month != m.to_string() {
                continue;
            }
            let next_seed = match turns.get(i + 1) {
                Some(n) => Some(n.seed_sha256.as_str()),
                None if g.status != Status::Finished => Some(g.seed_sha256.as_str()),
                None => None,
            };
            let these = self.turn_files(g, t, next_seed)?;
            logs.push(format!(
                "Turn {}: the full log ({} lines) is attached as {}.",
                t.turn_no,
                t.log.lines().count(),
                these[0].name
            ));
            files.extend(these);
        }
        if logs.is_empty() {
            let text = format!("No turn of game {} was played in {}.", g.id, m.long_name());
            return Ok((text, files));
        }
        logs.push(format!(
            "The turn record of each turn is attached ({}): `dervish verify --from-mail` on this mail plays the turn again.",
            files
                .iter()
                .filter(|f| f.name.ends_with(".json"))
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Ok((logs.join("\n"), files))
    }

    /// A played turn's log and turn record, as files of a mail.
    fn turn_files(
        &self,
        g: &GameRow,
        t: &store::TurnRow,
        next_seed: Option<&str>,
    ) -> Result<Vec<Attachment>> {
        let set = |id: Option<i64>| -> Result<Option<store::OrderSetRow>> {
            Ok(match id {
                Some(id) => store::order_set(&self.conn, id)?,
                None => None,
            })
        };
        let record = TurnRecord::of(
            g,
            t,
            set(t.egyptian_set)?.as_ref(),
            set(t.mahdist_set)?.as_ref(),
            self.data.digest(&g.scenario).unwrap_or_default(),
            next_seed,
        );
        Ok(super::turns::turn_files(t, &record))
    }

    /// RESEND: the sender's last results mail again, with its files.
    fn resend(&self, cx: &Context<'_>, g: &GameRow, key: &str) -> Result<Draft> {
        let last = store::mail_for(&self.conn, Some(&g.id))?
            .into_iter()
            .rev()
            .find(|m| m.kind == "results" && m.recipient == cx.sender);
        let Some(m) = last else {
            return self.notice_draft(
                Some(&g.id),
                key,
                &cx.sender,
                "resend",
                "There are no results for you yet.",
            );
        };
        let files = super::mail::attachments_of(&m);
        let rendered = super::templates::Rendered {
            subject: m.subject,
            text: m.body_text,
        };
        let mut d = self.reply_draft(&g.id, "answer", key, &cx.sender, rendered, cx.mail);
        d.attachments = files;
        Ok(d)
    }

    pub(super) fn reply_draft(
        &self,
        game: &str,
        kind: &'static str,
        key: &str,
        to: &str,
        rendered: super::templates::Rendered,
        mail: &Inbound,
    ) -> Draft {
        Draft {
            html: kind == "receipt",
            ..Draft::new(Some(game), kind, key.to_string(), to, rendered)
        }
        .answering(mail, kind, key)
    }

    /// Answer the message with a refusal (the reason and a hint) and say
    /// so in the outcome.
    fn refuse(
        &self,
        cx: &Context<'_>,
        game_id: &str,
        reason: String,
        hint: &str,
    ) -> Result<Outcome> {
        self.queue(self.refusal_to(cx, game_id, &cx.sender, &reason, hint)?)?;
        Ok(Outcome::Refused(reason))
    }

    /// [`Service::refuse`] for a mail that carries no valid secret (or
    /// that could not be read for one): the refusal counts against the
    /// hourly cap on answers to such senders.
    fn refuse_unverified(
        &self,
        cx: &Context<'_>,
        game_id: &str,
        reason: String,
    ) -> Result<Outcome> {
        self.queue_unverified(self.refusal_to(cx, game_id, &cx.sender, &reason, "")?)?;
        Ok(Outcome::Refused(reason))
    }

    /// The refusal of the message of `cx`, sent to `to` in answer to it.
    fn refusal_to(
        &self,
        cx: &Context<'_>,
        game_id: &str,
        to: &str,
        reason: &str,
        hint: &str,
    ) -> Result<Draft> {
        self.refusal_draft(
            game_id,
            &cx.message_id,
            to,
            &cx.mail.subject,
            reason,
            hint,
            Some(cx.mail),
        )
    }

    /// Whether the mail's SECRET line is the secret of one of these seats
    /// (read with any scenario's words: the header lines need none).
    fn holds_a_secret_of(&self, cx: &Context<'_>, seats: &[PlayerRow]) -> bool {
        let secret = self
            .parse_as_stranger(cx, None)
            .and_then(|p| p.sheet.header.secret)
            .unwrap_or_default();
        !secret.is_empty()
            && seats
                .iter()
                .any(|p| secret_matches(&secret, &p.secret_sha256))
    }

    #[allow(clippy::too_many_arguments)]
    fn refusal_draft(
        &self,
        game: &str,
        message_id: &str,
        to: &str,
        subject: &str,
        reason: &str,
        hint: &str,
        mail: Option<&Inbound>,
    ) -> Result<Draft> {
        // Nothing of a stranger's mail comes back long or raw: the subject,
        // a game name taken from it and a reason quoting it are cut short.
        let subject = short_subject(subject);
        let game = &short_subject(game);
        let reason = &cut_chars(reason, 400);
        // The reason is quoted indented, its lines wrapped and indented
        // alike; a receipt quoted as the hint keeps its lines, the long
        // ones wrapped: no line of the mail is over 100 characters.
        let reason = crate::words::hanging(reason, 76, "", "    ");
        let reason = reason.trim_end();
        let hint = crate::words::wrap_long_lines(hint, (100, 76, 4), |_| false);
        let rendered = self.templates.render(
            "refusal.txt",
            context! { game => game, subject => subject, reason => reason, hint => hint },
        )?;
        let key = format!("refusal:{message_id}");
        let d = Draft {
            reply: true,
            ..Draft::new(Some(game), "refusal", key.clone(), to, rendered)
        };
        Ok(match mail {
            Some(m) => d.answering(m, "refusal", &key),
            None => d,
        })
    }
}

/// MAP: the sector around a place, or the overview; during the set-up
/// step, with the words that say what position it shows.
fn map_answer(
    g: &GameRow,
    scn: &crate::scenario::Scenario,
    state: &crate::state::GameState,
    at: Option<crate::geo::Hex>,
) -> String {
    let text = match at {
        Some(h) => ascii::sector(
            scn,
            Some(state),
            Sector {
                centre: h,
                radius: 6,
            },
        ),
        None => ascii::overview(scn, Some(state)),
    };
    match Service::setup_label(g) {
        Some(label) => format!("{label}\n\n{text}"),
        None => text,
    }
}

/// ROUTE: the cheapest land route between two places, step by step.
fn route_answer(scn: &crate::scenario::Scenario, a: crate::geo::Hex, b: crate::geo::Hex) -> String {
    match land_route(&scn.map, a, b) {
        Some(r) => format!(
            "Route from {} to {}:\n{}",
            scn.map.describe(a),
            scn.map.describe(b),
            ascii::route_text(&scn.map, &r)
        ),
        None => format!(
            "No land route from {} to {}.",
            scn.map.describe(a),
            scn.map.describe(b)
        ),
    }
}

/// A header field of a message's raw head found by a plain scan of its
/// lines (nothing parsed), its first line only, made safe to quote like a
/// subject; `"(none)"` when absent.
/// Why a side's orders are not taken now (the other side's player turn,
/// or the other side's part of the set-up step), and what comes next.
fn not_due(g: &GameRow, side: Side) -> Option<(String, &'static str)> {
    match g.turn_kind {
        TurnKind::Player(s) if s != side => Some((
            format!(
                "it is the {s} player turn of {}; the {side} player's orders are not due yet",
                g.month
            ),
            "You will get the results of the other player turn first, with your own deadline.",
        )),
        TurnKind::SetUp(Side::Egyptian) if side == Side::Mahdist => Some((
            "the Egyptian sets up first (2.1); your set-up is asked for once his is placed".into(),
            "You will get a mail with the Egyptian placement and a request for your SETUP lines. Orders for the first month are asked for in the set-up mail, once both sides have set up.",
        )),
        TurnKind::SetUp(Side::Mahdist) if side == Side::Egyptian => Some((
            "your set-up is sealed: the Mahdist is setting up, knowing yours (2.1)".into(),
            "The set-up mail shows both sides' placement to both players and asks for the first month's orders.",
        )),
        _ => None,
    }
}

fn head_field(head: &[u8], name: &str) -> String {
    let end = head
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| head.windows(2).position(|w| w == b"\n\n"))
        .unwrap_or(head.len());
    String::from_utf8_lossy(&head[..end])
        .lines()
        .find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| short_subject(v))
        })
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "(none)".to_string())
}

/// Most characters of a stranger's subject copied into a reply.
pub const SUBJECT_ECHO_CHARS: usize = 80;

/// A subject as it may be quoted back: control characters and runs of
/// white space made single spaces, at most [`SUBJECT_ECHO_CHARS`]
/// characters, "..." where it was cut.
pub fn short_subject(subject: &str) -> String {
    let clean: String = subject
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = clean.split_whitespace().collect();
    cut_chars(&words.join(" "), SUBJECT_ECHO_CHARS)
}

/// `text` cut to at most `max` characters, "..." where it was cut.
fn cut_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{}...", cut.trim_end())
}
