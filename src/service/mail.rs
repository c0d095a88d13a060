//! Mail the service writes: drafts rendered from templates go to the
//! outbox table first, then out through the configured transport, each
//! marked sent once.

use chrono::{DateTime, Duration, Utc};

use super::templates::Rendered;
use super::{Result, Service};
use crate::mail::inbound::Inbound;
use crate::mail::outbound::{
    Attachment, AutoSubmitted, Content, Handed, Outgoing, SendError, Sender, Staged, escape_html,
    html_with_pictures,
};
use crate::store::{self, OutboxRow};

/// A mail to queue.
#[derive(Clone, Debug)]
pub struct Draft {
    pub game_id: Option<String>,
    /// `receipt`, `results`, `welcome`, `refusal`, `reminder`, `notice`,
    /// `status`, `help`, `answer`.
    pub kind: &'static str,
    /// What makes this mail unique: it is queued once only.
    pub dedupe_key: String,
    pub to: String,
    pub rendered: Rendered,
    /// Add an HTML alternative with the text in a `<pre>` block (for maps),
    /// and above it the pictures among the attachments marked inline.
    pub html: bool,
    pub in_reply_to: Option<String>,
    pub refs: Vec<String>,
    /// An answer to a message (`auto-replied`) or a mail of our own
    /// (`auto-generated`), RFC 3834.
    pub reply: bool,
    /// Files sent with the text (see [`Attachment`]).
    pub attachments: Vec<Attachment>,
}

impl Draft {
    /// A mail of `kind` about `game_id` to `to`, queued once under
    /// `dedupe_key`: of our own (not an answer), text only, not threaded,
    /// without files.
    pub fn new(
        game_id: Option<&str>,
        kind: &'static str,
        dedupe_key: String,
        to: &str,
        rendered: Rendered,
    ) -> Draft {
        Draft {
            game_id: game_id.map(str::to_string),
            kind,
            dedupe_key,
            to: to.to_string(),
            rendered,
            html: false,
            in_reply_to: None,
            refs: Vec::new(),
            reply: false,
            attachments: Vec::new(),
        }
    }

    /// A notice mail of an already rendered `notice.txt`. The dedupe key
    /// holds the game as well as `key` (see [`Service::notice_draft`]).
    pub fn notice(game_id: Option<&str>, key: &str, to: &str, rendered: Rendered) -> Draft {
        let dedupe_key = format!("notice:{}:{key}:{to}", game_id.unwrap_or("-"));
        Draft::new(game_id, "notice", dedupe_key, to, rendered)
    }

    /// This mail as the answer to `mail`: threaded under it (In-Reply-To
    /// and References), sent as an automatic reply (RFC 3834), of `kind`
    /// and queued once under `key`.
    pub fn answering(mut self, mail: &Inbound, kind: &'static str, key: &str) -> Draft {
        self.kind = kind;
        self.dedupe_key = key.to_string();
        self.in_reply_to = mail.message_id.clone();
        self.refs = mail.references.clone();
        self.refs.extend(mail.message_id.clone());
        self.reply = true;
        self
    }
}

/// The files of an outbox row. The column is written only by
/// [`Service::queue`]; a file that does not read back is left out, and
/// one whose list does not read leaves them all out: the mail still goes,
/// with its text, and the log says why files are missing. Rows written
/// before files could be bytes (`{name, content_type, text}`) read as
/// text files.
pub fn attachments_of(m: &OutboxRow) -> Vec<Attachment> {
    let list: Vec<serde_json::Value> = match serde_json::from_str(&m.attachments) {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!(mail = m.id, error = %e, "the attachments of a mail cannot be read; it goes without them");
            return Vec::new();
        }
    };
    list.into_iter()
        .filter_map(|v| {
            serde_json::from_value(v)
                .map_err(|e| {
                    tracing::warn!(mail = m.id, error = %e, "an attachment of a mail cannot be read; the mail goes without it");
                })
                .ok()
        })
        .collect()
}

impl Service {
    /// The Message-ID of the mail with this dedupe key: the same key gives
    /// the same id, so a mail sent again after a crash is recognisably the
    /// same mail.
    pub fn message_id_for(&self, dedupe_key: &str) -> String {
        let h = super::secrets::sha256_hex(dedupe_key.as_bytes());
        format!("{}.dervish@{}", &h[..32], self.cfg.domain())
    }

    /// The Message-ID that roots a player's thread in a game (the welcome
    /// mail); results refer to it so mail clients keep a game together.
    pub fn thread_root(&self, game_id: &str, side: crate::scenario::Side) -> String {
        self.message_id_for(&format!("welcome:{game_id}:{}", store::side_text(side)))
    }

    /// Put a mail in the outbox (in the caller's transaction). Returns
    /// whether it was queued now (false: queued before).
    pub fn queue(&self, d: Draft) -> Result<bool> {
        self.queue_with_appendix(d, None)
    }

    /// [`Service::queue`], with `appendix` shown after the text in the HTML
    /// part only (a results mail's full log: the plain text stays short,
    /// the HTML reader scrolls on to every roll).
    ///
    /// What the mail may share with the other mails of its turn (the
    /// appendix in its HTML part, its text files: the log and the turn
    /// record) is stored once for all of them (`store::Shared`).
    pub fn queue_with_appendix(&self, d: Draft, appendix: Option<&str>) -> Result<bool> {
        let now = self.now();
        // Backscatter: refusals to one address are capped per hour,
        // whatever refused the mail.
        if d.kind == "refusal" {
            let cap = self.cfg.limits.refusals_per_hour;
            let n = store::count_refusals_since(&self.conn, &d.to, now - Duration::hours(1))?;
            if n >= cap {
                tracing::info!(to = %d.to, n, "refusal not sent: {cap} an hour to one address at most");
                return Ok(false);
            }
        }
        // A mail whose HTML part is only its text keeps the text once.
        let from_text = d.html && appendix.is_none() && d.attachments.is_empty();
        let row = OutboxRow {
            id: 0,
            game_id: d.game_id,
            kind: d.kind.to_string(),
            message_id: self.message_id_for(&d.dedupe_key),
            dedupe_key: d.dedupe_key,
            recipient: d.to,
            subject: d.rendered.subject,
            // Made again from the text when the mail is sent.
            body_html: (d.html && !from_text).then(|| match appendix {
                Some(more) => {
                    html_with_pictures(&format!("{}\n{more}", d.rendered.text), &d.attachments)
                }
                None => html_with_pictures(&d.rendered.text, &d.attachments),
            }),
            html_from_text: from_text,
            body_text: d.rendered.text,
            in_reply_to: d.in_reply_to,
            refs: d.refs.join(" "),
            auto_kind: if d.reply {
                "auto-replied".into()
            } else {
                "auto-generated".into()
            },
            created_at: now,
            attempts: 0,
            next_attempt_at: now,
            sent_at: None,
            last_error: None,
            gave_up: false,
            attachments: files_json(&d.attachments)?,
        };
        let shared = shared_pieces(&d.attachments, appendix)?;
        Ok(store::queue_mail_sharing(&self.conn, &row, &shared)?)
    }

    fn retry_at(&self, attempts: u32, now: DateTime<Utc>) -> DateTime<Utc> {
        let o = &self.cfg.outbox;
        let wait = u64::from(o.first_retry_seconds)
            .saturating_mul(1u64 << attempts.min(20))
            .min(u64::from(o.max_retry_seconds.max(o.first_retry_seconds)));
        now + Duration::seconds(i64::try_from(wait).unwrap_or(i64::MAX / 2))
    }

    /// The message for an outbox row, dated `now`.
    pub fn outgoing(&self, m: &OutboxRow, now: DateTime<Utc>) -> Outgoing {
        let attachments = attachments_of(m);
        Outgoing {
            from: self.cfg.from(),
            to: vec![m.recipient.clone()],
            subject: m.subject.clone(),
            text: m.body_text.clone(),
            html: html_part(m),
            message_id: m.message_id.clone(),
            in_reply_to: m.in_reply_to.clone(),
            references: m.refs.split_whitespace().map(str::to_string).collect(),
            auto_submitted: if m.auto_kind == "auto-replied" {
                AutoSubmitted::AutoReplied
            } else {
                AutoSubmitted::AutoGenerated
            },
            loop_id: self.cfg.loop_id(),
            date: now,
            attachments,
        }
    }

    /// Send every mail that is due. A temporary failure (a `4xx` reply,
    /// sendmail's exit 75, a timeout) is retried later with a growing
    /// wait, for `[outbox] give_up_after_days` (5 days, like a mail
    /// server's queue) before the mail is given up; a permanent one (a
    /// `5xx` reply, another sendmail exit) gives it up at once. Returns
    /// (sent, not sent).
    ///
    /// A mail is never given up because the transport is down (see
    /// below): it waits for the transport, and the game master is told
    /// once that the transport is down, when its failures in a row reach
    /// `max_attempts`.
    ///
    /// Each hand-off is recorded before it starts (the mail is "sending")
    /// and after it ends (sent, or failed), each in its own transaction;
    /// a mail still "sending" when a pass begins was interrupted by a
    /// crash and is settled first (see [`Service::settle_interrupted`]).
    ///
    /// The hand-off runs on a thread of its own ([`Sender::hand_over`]):
    /// a stop request ends the wait for it at once (the mail stays
    /// "sending", settled as a crash's at the next start), and a sender
    /// given a patience (the daemon) leaves a slow one running and goes on
    /// reading mail; its end is recorded by a later pass, and no other
    /// mail is handed over meanwhile.
    ///
    /// When the transport itself is down (no answer, a refused
    /// connection, a timeout), the pass stops sending at once: the mails
    /// not tried wait, attempts unchanged, until the failed one's retry, so
    /// a dead server costs one timeout a pass, not one a mail.
    ///
    /// The mails given up in a pass make one summary for the game master:
    /// in the log, appended to `[outbox] notice_file` if set, and in one
    /// notice mail.
    pub fn flush(&mut self, sender: &Sender) -> Result<(usize, usize)> {
        let now = self.now();
        sender.remove_orphans_once();
        let mut tally = Tally::default();
        if self.take_earlier_handoff(sender, now, &mut tally)? {
            self.settle_interrupted(sender, now)?;
            self.send_due(sender, now, &mut tally)?;
        }
        if !tally.given_up.is_empty() {
            self.tell_given_up(&tally.given_up, now)?;
        }
        let keep = self.cfg.outbox.keep_sent_days;
        if keep > 0 {
            drop_replaced_pictures(&self.conn, PRUNE_PER_PASS)?;
            prune_sent(&self.conn, keep, now, PRUNE_PER_PASS)?;
        }
        Ok((tally.sent, tally.failed))
    }

    /// The end of a hand-off an earlier pass left running, recorded if it
    /// has come. Returns whether sending may go on (no hand-off runs, and
    /// the transport was not found down).
    fn take_earlier_handoff(
        &self,
        sender: &Sender,
        now: DateTime<Utc>,
        tally: &mut Tally,
    ) -> Result<bool> {
        if sender.running().is_none() {
            return Ok(true);
        }
        let Some((id, result)) = sender.take_ended() else {
            tracing::debug!("a hand-off is still running; the other mails wait for its end");
            return Ok(false);
        };
        let Some((m, _)) = store::outbox_mail(&self.conn, id)? else {
            return Ok(true);
        };
        Ok(self.record(&m, result, now, tally, 0)? == Flow::Go)
    }

    /// Hand over the mails due now, one at a time, until the queue ends,
    /// the transport is found down, a hand-off outlasts the sender's
    /// patience, or the service is told to stop.
    fn send_due(&self, sender: &Sender, now: DateTime<Utc>, tally: &mut Tally) -> Result<()> {
        // By id, one row at a time: the bodies of a long queue are never
        // all in memory together.
        let due = store::due_mail_ids(&self.conn, now)?;
        if sender.batches() {
            return self.send_due_in_batches(sender, due, now, tally);
        }
        let total = due.len();
        for (n, id) in due.into_iter().enumerate() {
            if self.stopping() {
                break;
            }
            // Dropped, sent or being handed over since the list was made:
            // left alone.
            let Some((m, None)) = store::outbox_mail(&self.conn, id)? else {
                continue;
            };
            if m.sent_at.is_some() || m.gave_up {
                continue;
            }
            let out = self.outgoing(&m, now);
            {
                let tx = self.begin()?;
                let waiting = store::mark_sending(&tx, m.id, now)?;
                tx.commit()?;
                if !waiting {
                    continue;
                }
            }
            match sender.hand_over(m.id, &out, &|| self.stopping()) {
                Handed::Done(result) => {
                    if self.record(&m, result, now, tally, total - n - 1)? == Flow::Stop {
                        break;
                    }
                }
                Handed::Running => {
                    tracing::info!(mail = m.id, to = %m.recipient, "the hand-off of a mail goes on in the background; the other mails wait for its end");
                    break;
                }
            }
        }
        Ok(())
    }

    /// [`Service::send_due`] for a transport that takes mail in batches
    /// (the file transport): up to [`MAILS_AT_ONCE`] mails marked
    /// "sending" and written (built side by side), then handed over
    /// together (made durable once for all), then each recorded as sent;
    /// a mail that cannot be written is recorded after the mails before
    /// it, and if the transport is down no more are tried. Mails
    /// "sending" when the service is stopped are settled at the next
    /// start as a crash's are ([`Service::settle_interrupted`]).
    fn send_due_in_batches(
        &self,
        sender: &Sender,
        due: Vec<i64>,
        now: DateTime<Utc>,
        tally: &mut Tally,
    ) -> Result<()> {
        let mut left = due.len();
        let mut rest = due.into_iter();
        while !self.stopping() {
            let batch = self.next_batch(&mut rest, now)?;
            if batch.is_empty() {
                return Ok(());
            }
            let outs: Vec<Outgoing> = batch.iter().map(|m| self.outgoing(m, now)).collect();
            let mut staged = Staged::default();
            let results = sender.stage_all(&mut staged, &outs);
            let handed = sender.commit_staged(staged);
            for (i, (m, written)) in batch.iter().zip(results).enumerate() {
                left = left.saturating_sub(1);
                let result = match (&handed, written) {
                    (_, Err(e)) => Err(e),
                    (Err(e), Ok(())) => Err(e.clone()),
                    (Ok(()), Ok(())) => Ok(()),
                };
                // The transport is down: the mails of the batch after this
                // one wait again, as mails not tried (and are postponed
                // with the others).
                if result.as_ref().is_err_and(|e| e.transport_down) {
                    for m in batch.iter().skip(i + 1) {
                        self.sending_again(m, now)?;
                    }
                }
                if self.record(m, result, now, tally, left)? == Flow::Stop {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The next mails of `due` still waiting, up to [`MAILS_AT_ONCE`], each
    /// marked as being handed over (one transaction for them all).
    fn next_batch(
        &self,
        due: &mut impl Iterator<Item = i64>,
        now: DateTime<Utc>,
    ) -> Result<Vec<OutboxRow>> {
        let mut batch = Vec::new();
        let tx = self.begin()?;
        for id in due.by_ref() {
            // Dropped, sent or being handed over since the list was made:
            // left alone.
            let Some((m, None)) = store::outbox_mail(&tx, id)? else {
                continue;
            };
            if m.sent_at.is_some() || m.gave_up || !store::mark_sending(&tx, m.id, now)? {
                continue;
            }
            batch.push(m);
            if batch.len() >= MAILS_AT_ONCE {
                break;
            }
        }
        tx.commit()?;
        Ok(batch)
    }

    /// A mail marked "sending" and not handed over waits again, its
    /// attempts unchanged.
    fn sending_again(&self, m: &OutboxRow, now: DateTime<Utc>) -> Result<()> {
        let tx = self.begin()?;
        store::requeue_mail(
            &tx,
            m.id,
            now,
            "not handed over: the batch it was in failed",
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Record the end of the hand-off of `m`: sent, or failed and retried
    /// or given up. `after` mails of the pass come after it. `Stop` when
    /// the transport is down: the pass sends no more.
    fn record(
        &self,
        m: &OutboxRow,
        result: std::result::Result<(), SendError>,
        now: DateTime<Utc>,
        tally: &mut Tally,
        after: usize,
    ) -> Result<Flow> {
        let e = match result {
            Ok(()) => {
                let tx = self.begin()?;
                store::mark_sent(&tx, m.id, now)?;
                scrub_secret(&tx, m)?;
                tx.commit()?;
                if tally.sent == 0 {
                    self.transport_works()?;
                }
                tally.sent += 1;
                return Ok(Flow::Go);
            }
            Err(e) => e,
        };
        tally.failed += 1;
        // A transport that is down says nothing about the mail: it waits
        // for the transport, however long.
        let down = e.transient && e.transport_down;
        let give_up = !e.transient || (!down && self.past_horizon(m, now)?);
        tracing::warn!(mail = m.id, to = %m.recipient, error = %e.message, give_up, "sending failed");
        let retry = self.retry_at(m.attempts, now);
        let tx = self.begin()?;
        if give_up {
            // A welcome mail keeps its secret: `outbox retry` can still
            // send it once the cause is mended.
            store::mark_failed(&tx, m.id, &e.message, None)?;
            // A player's address refused by the mail server is a bounce
            // told at once.
            if e.recipient_refused
                && let Some(game) = &m.game_id
            {
                self.mark_unreachable(game, &m.recipient)?;
            }
        } else {
            store::mark_failed(&tx, m.id, &e.message, Some(retry))?;
        }
        let mut flow = Flow::Go;
        if e.transport_down {
            let waiting = store::postpone_due(&tx, now, retry)?;
            tx.commit()?;
            tally.failed += waiting;
            if down {
                self.transport_down(&e.message, m.attempts + 1, waiting + 1, now)?;
            }
            if after > 0 {
                tracing::warn!(
                    error = %e.message,
                    waiting,
                    retry = %store::time(retry),
                    "the mail transport is down; the other mails wait for the next try"
                );
            }
            flow = Flow::Stop;
        } else {
            tx.commit()?;
        }
        if give_up {
            tally.given_up.push((m.clone(), e.message));
        }
        Ok(flow)
    }

    /// Whether a mail that failed for a while has been tried long enough:
    /// `[outbox] give_up_after_days` since it was queued, or since the
    /// game master last took it up again.
    fn past_horizon(&self, m: &OutboxRow, now: DateTime<Utc>) -> Result<bool> {
        let from = store::retry_from(&self.conn, m)?;
        let days = i64::from(self.cfg.outbox.give_up_after_days);
        Ok(now >= from + Duration::days(days))
    }

    /// Settle the mails left "sending" by a crash: the hand-off began and
    /// its end was never recorded.
    ///
    /// - The file transport can tell: a mail whose file is there was
    ///   handed over and is recorded as sent; one whose file is not there
    ///   is sent again.
    /// - Sendmail and SMTP cannot tell, so the mail is sent again: mail is
    ///   never lost, and a crash after the transport accepted the mail and
    ///   before the service recorded it (the time sendmail runs, or an SMTP
    ///   server's reply to the message's end is on its way) hands the same
    ///   Message-ID over a second time. A warning in the log and the
    ///   mail's last error say so.
    pub fn settle_interrupted(&self, sender: &Sender, now: DateTime<Utc>) -> Result<()> {
        for m in store::sending_mail(&self.conn)? {
            let tx = self.begin()?;
            match sender.handed_over(&m.message_id) {
                Some(true) => {
                    tracing::info!(mail = m.id, to = %m.recipient, "a mail interrupted by a stop had been handed over; recorded as sent");
                    store::mark_sent(&tx, m.id, now)?;
                    scrub_secret(&tx, &m)?;
                }
                Some(false) => {
                    store::requeue_mail(
                        &tx,
                        m.id,
                        now,
                        "the service stopped before handing this mail over; it is sent again",
                    )?;
                }
                None => {
                    tracing::warn!(mail = m.id, to = %m.recipient, message_id = %m.message_id, "the service stopped while handing this mail over; it is sent again, and its recipient may get it twice");
                    store::requeue_mail(
                        &tx,
                        m.id,
                        now,
                        "the service stopped while handing this mail over; it is sent again, and may arrive twice",
                    )?;
                }
            }
            tx.commit()?;
        }
        Ok(())
    }

    /// One summary of the mails given up in a pass, for the game master:
    /// logged as an error, appended to `[outbox] notice_file` if set, and
    /// queued as one notice mail (leaving out mail to the game master's
    /// own address, which is what failed).
    fn tell_given_up(&self, given_up: &[(OutboxRow, String)], now: DateTime<Utc>) -> Result<()> {
        let gm = self.cfg.host.game_master.clone();
        let line = |m: &OutboxRow, error: &str| {
            let mut l = format!(
                "- mail {} to {} ({}, \"{}\"), after {} {}: {}",
                m.id,
                m.recipient,
                m.kind,
                m.subject,
                m.attempts + 1,
                if m.attempts == 0 {
                    "attempt"
                } else {
                    "attempts"
                },
                error
            );
            if let Some((game, side)) = welcome_seat(m) {
                l.push_str(&format!(
                    "\n  The player's secret is kept in it: `dervish outbox retry {}` sends it once the\n  \
                     address works, or give the player a new one with: dervish game secret {game} {side}",
                    m.id
                ));
            }
            l
        };
        let all: Vec<String> = given_up.iter().map(|(m, e)| line(m, e)).collect();
        let headline = format!(
            "{} {} given up",
            all.len(),
            if all.len() == 1 { "mail" } else { "mails" }
        );
        let advice = "See them with `dervish outbox list`; send one again with `dervish outbox retry ID` once the cause is fixed.";
        self.note_outside_mail(&headline, &format!("{}\n{advice}", all.join("\n")), now);
        let for_mail: Vec<String> = given_up
            .iter()
            .filter(|(m, _)| !m.recipient.eq_ignore_ascii_case(&gm))
            .map(|(m, e)| line(m, e))
            .collect();
        if !for_mail.is_empty() {
            let first = given_up.first().map_or(0, |(m, _)| m.id);
            self.queue(self.notice_draft(
                None,
                &format!("gave-up:{}:{first}", store::time(now)),
                &gm,
                "mail could not be delivered",
                &format!(
                    "Dervish gave up sending {} {}:\n\n{}\n\n{advice}",
                    for_mail.len(),
                    if for_mail.len() == 1 { "mail" } else { "mails" },
                    for_mail.join("\n")
                ),
            )?)?;
        }
        Ok(())
    }

    /// Tell the game master by the paths that do not need the mail
    /// transport: the log, at error level, and `[outbox] notice_file` if
    /// set (one block, with the time).
    fn note_outside_mail(&self, headline: &str, text: &str, now: DateTime<Utc>) {
        tracing::error!("{headline}:\n{text}");
        if let Some(path) = &self.cfg.outbox.notice_file {
            let block = format!("{} {headline}\n{text}\n\n", store::time(now));
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, block.as_bytes()));
            if let Err(e) = written {
                tracing::error!(file = %path.display(), "cannot write the game master's notice file: {e}");
            }
        }
    }

    /// The transport failed as a whole (`tries` times in a row for the
    /// mail at the head of the queue; `waiting` mails wait). The first
    /// failure of an outage is remembered; when the failures in a row
    /// reach `max_attempts`, the game master is told once for the outage:
    /// the log, the notice file, and a notice mail that goes once the
    /// transport works again.
    fn transport_down(
        &self,
        error: &str,
        tries: u32,
        waiting: usize,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let since =
            match store::service_value(&self.conn, DOWN_SINCE_KEY)?.filter(|v| !v.is_empty()) {
                Some(t) => t,
                None => {
                    store::set_service_value(&self.conn, DOWN_SINCE_KEY, &store::time(now))?;
                    store::set_service_value(&self.conn, DOWN_TOLD_KEY, "")?;
                    store::time(now)
                }
            };
        let told = store::service_value(&self.conn, DOWN_TOLD_KEY)?.is_some_and(|v| !v.is_empty());
        if told || tries < self.cfg.outbox.max_attempts {
            return Ok(());
        }
        store::set_service_value(&self.conn, DOWN_TOLD_KEY, &store::time(now))?;
        let headline = "the mail transport is down";
        let text = format!(
            "Dervish has not been able to hand mail over since {since}: {tries} tries in a row, the last one failing with: {error}\n\
             {waiting} {} wait{}. None is given up for this: they go once the transport works again, tried with a growing wait of at most {} s.\n\
             `dervish check-mail` tries the transport; `dervish outbox list` shows the mail waiting.",
            if waiting == 1 { "mail" } else { "mails" },
            if waiting == 1 { "s" } else { "" },
            self.cfg
                .outbox
                .max_retry_seconds
                .max(self.cfg.outbox.first_retry_seconds)
        );
        self.note_outside_mail(headline, &text, now);
        let gm = self.cfg.host.game_master.clone();
        self.queue(self.notice_draft(
            None,
            &format!("transport-down:{since}"),
            &gm,
            headline,
            &text,
        )?)?;
        Ok(())
    }

    /// A mail went: an outage, if there was one, is over.
    fn transport_works(&self) -> Result<()> {
        if let Some(since) =
            store::service_value(&self.conn, DOWN_SINCE_KEY)?.filter(|v| !v.is_empty())
        {
            tracing::info!(since = %since, "the mail transport works again");
            store::set_service_value(&self.conn, DOWN_SINCE_KEY, "")?;
            store::set_service_value(&self.conn, DOWN_TOLD_KEY, "")?;
        }
        Ok(())
    }

    /// Every address a game's notices go to: its players' (seats with an
    /// address) and the game master's.
    pub fn game_addresses(&self, c: &rusqlite::Connection, game: &str) -> Result<Vec<String>> {
        let mut to: Vec<String> = store::players(c, game)?
            .into_iter()
            .map(|p| p.address)
            .filter(|a| !a.is_empty())
            .collect();
        to.push(self.cfg.host.game_master.clone());
        Ok(to)
    }

    /// A short notice from the `notice.txt` template, the one way such a
    /// mail is written. The dedupe key holds the game as well as `key`, so
    /// the same kind of notice (a JOIN, a missed turn, an unreachable
    /// player) in two games is two notices. Sent in answer to a message, it
    /// takes that message's threading and key with [`Draft::answering`].
    pub fn notice_draft(
        &self,
        game_id: Option<&str>,
        key: &str,
        to: &str,
        headline: &str,
        text: &str,
    ) -> Result<Draft> {
        let rendered = self.templates.render(
            "notice.txt",
            minijinja::context! {
                game => game_id.unwrap_or("-"),
                headline => headline,
                text => text,
            },
        )?;
        Ok(Draft::notice(game_id, key, to, rendered))
    }
}

/// Sent mails pruned by one pass at most: a backlog (the first pass after
/// an upgrade) is worked off over several passes, never holding one up.
const PRUNE_PER_PASS: usize = 500;

/// Prune the mail sent more than `keep_days` before `now` (at most
/// `limit`, oldest first):
/// of each, only its headers and the SHA-256 of its text, HTML and files
/// are kept, its text replaced by a note saying so. The latest results
/// mail of each game to each address stays whole for `RESEND`. Batches of
/// a hundred mails, each in its own transaction. Returns how many.
pub fn prune_sent(
    c: &rusqlite::Connection,
    keep_days: u32,
    now: DateTime<Utc>,
    limit: usize,
) -> Result<usize> {
    let before = now - Duration::days(i64::from(keep_days));
    let ids = store::prunable_mail_ids(c, before, limit)?;
    for batch in ids.chunks(100) {
        let tx = rusqlite::Transaction::new_unchecked(c, rusqlite::TransactionBehavior::Immediate)?;
        for &id in batch {
            let Some((m, _)) = store::outbox_mail(&tx, id)? else {
                continue;
            };
            // The digest of the whole mail, kept when its pictures went.
            let digest = store::kept_digest(&tx, id)?.unwrap_or_else(|| mail_digest(&m));
            let note = format!(
                "(sent {}; its text and files are no longer kept. SHA-256 of what it held: {digest})",
                m.sent_at.map_or_else(|| "-".to_string(), store::time)
            );
            store::prune_mail(&tx, id, &digest, &note, now)?;
        }
        tx.commit()?;
    }
    if !ids.is_empty() {
        tracing::info!(mails = ids.len(), "sent mail pruned to its headers");
    }
    Ok(ids.len())
}

/// Leave out the pictures of the sent results and set-up mails a later
/// results mail to the same address has replaced
/// (`store::replaced_pictured_mail`), at most `limit` a call. A picture is
/// most of what a results mail stores (about 190 KB of its 340), and it can
/// be drawn again from the stored turn; the SHA-256 of the whole mail is
/// kept (`digest`), and its text, HTML, log and turn record stay until the
/// mail is pruned. The latest results to each address keep theirs, for
/// RESEND. Returns how many mails were looked at.
pub fn drop_replaced_pictures(c: &rusqlite::Connection, limit: usize) -> Result<usize> {
    let ids = store::replaced_pictured_mail(c, limit)?;
    for batch in ids.chunks(100) {
        let tx = rusqlite::Transaction::new_unchecked(c, rusqlite::TransactionBehavior::Immediate)?;
        for &id in batch {
            let Some((m, _)) = store::outbox_mail(&tx, id)? else {
                continue;
            };
            // A list that does not read is kept as it is; the digest still
            // marks the mail as looked at.
            let json = without_pictures(&m.attachments)?.unwrap_or_else(|| m.attachments.clone());
            store::set_sent_attachments(&tx, id, &json, &mail_digest(&m))?;
        }
        tx.commit()?;
    }
    if !ids.is_empty() {
        tracing::debug!(
            mails = ids.len(),
            "pictures of replaced results no longer kept"
        );
    }
    Ok(ids.len())
}

/// A mail's files as stored without its pictures, if it has any. The files
/// kept are written as they were, byte for byte, so the pieces they share
/// with other mails stay shared; a list written otherwise (by earlier
/// versions) is read as plain JSON.
fn without_pictures(stored: &str) -> Result<Option<String>> {
    let is_picture = |t: &str| t.starts_with("image/");
    if let Ok(files) = serde_json::from_str::<Vec<Attachment>>(stored)
        && files_json(&files)? == stored
    {
        let kept: Vec<Attachment> = files
            .iter()
            .filter(|f| !is_picture(&f.content_type))
            .cloned()
            .collect();
        return (kept.len() < files.len())
            .then(|| files_json(&kept))
            .transpose();
    }
    let files: Vec<serde_json::Value> = serde_json::from_str(stored).unwrap_or_default();
    let kept: Vec<&serde_json::Value> = files
        .iter()
        .filter(|f| {
            f.get("content_type")
                .and_then(serde_json::Value::as_str)
                .is_none_or(|t| !is_picture(t))
        })
        .collect();
    if kept.len() == files.len() {
        return Ok(None);
    }
    serde_json::to_string(&kept)
        .map(Some)
        .map_err(|e| super::ServiceError::Data(format!("the attachments of a mail: {e}")))
}

/// The SHA-256 of what a mail held: its text, its HTML and its files as
/// stored, each ended by a zero byte.
pub fn mail_digest(m: &OutboxRow) -> String {
    let mut all = Vec::with_capacity(m.body_text.len() + m.attachments.len() + 2);
    all.extend_from_slice(m.body_text.as_bytes());
    all.push(0);
    all.extend_from_slice(html_part(m).as_deref().unwrap_or("").as_bytes());
    all.push(0);
    all.extend_from_slice(m.attachments.as_bytes());
    super::secrets::sha256_hex(&all)
}

/// The HTML part of a mail: as stored, or made from its text (and files)
/// as it was made when the mail was queued.
pub fn html_part(m: &OutboxRow) -> Option<String> {
    if m.html_from_text {
        Some(html_with_pictures(&m.body_text, &attachments_of(m)))
    } else {
        m.body_html.clone()
    }
}

/// The files of a mail as stored: their JSON list.
fn files_json(files: &[Attachment]) -> Result<String> {
    serde_json::to_string(files)
        .map_err(|e| super::ServiceError::Data(format!("the attachments of a mail: {e}")))
}

/// The pieces of a mail other mails of its turn hold too: its text files
/// as they appear in its files' JSON (the log, the turn record; pictures
/// differ from one player to the other and are left out), and the
/// appendix as it appears escaped in its HTML part.
fn shared_pieces(files: &[Attachment], appendix: Option<&str>) -> Result<store::Shared> {
    let mut shared = store::Shared::default();
    for f in files {
        if matches!(f.content, Content::Text(_)) {
            let json = files_json(std::slice::from_ref(f))?;
            // `[file]`: the file as it is written inside the list.
            if let Some(one) = json.strip_prefix('[').and_then(|j| j.strip_suffix(']')) {
                shared.files.push(one.to_string());
            }
        }
    }
    if let Some(more) = appendix {
        shared.html.push(escape_html(&format!("\n{more}")));
    }
    Ok(shared)
}

/// What a pass of the outbox did.
#[derive(Default)]
struct Tally {
    sent: usize,
    failed: usize,
    given_up: Vec<(OutboxRow, String)>,
}

/// Whether a pass goes on sending after a mail.
/// How many mails the file transport writes before it makes them durable
/// together and they are recorded as sent.
pub const MAILS_AT_ONCE: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

/// The service table keys of an outage of the transport: when its first
/// failure was, and when the game master was told.
const DOWN_SINCE_KEY: &str = "outbox_down_since";
const DOWN_TOLD_KEY: &str = "outbox_down_told";

/// What a welcome mail's body becomes once it is sent or dropped, or a
/// newer secret replaces it: the player's secret in it is not kept. (The
/// words are those earlier versions stored, when a welcome given up lost
/// its secret too; rows already scrubbed are recognised by them.)
pub const SCRUBBED_WELCOME: &str =
    "(the welcome mail with the player's secret; not kept once sent or given up)";

/// A welcome mail carries the player's secret in clear: it is kept only
/// until the mail has gone. Once sent or dropped, the body goes (the
/// players table keeps only the secret's digest); a welcome given up keeps
/// it, so `dervish outbox retry` can still send it.
pub fn scrub_secret(c: &rusqlite::Connection, m: &OutboxRow) -> Result<()> {
    if m.kind == "welcome" {
        store::redact_mail(c, m.id, SCRUBBED_WELCOME)?;
    }
    Ok(())
}

/// The game and side of a welcome mail (its dedupe key is
/// `welcome:GAME:SIDE[...]`), for the advice to re-issue the secret.
pub fn welcome_seat(m: &OutboxRow) -> Option<(String, String)> {
    if m.kind != "welcome" {
        return None;
    }
    let mut parts = m.dedupe_key.split(':');
    parts.next()?;
    let game = parts.next()?;
    let side = parts.next()?;
    Some((game.to_string(), side.to_string()))
}
