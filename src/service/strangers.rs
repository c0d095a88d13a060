//! Mail from senders who hold no valid secret: HELP, JOIN and its
//! confirmation, and the one hourly cap on every answer such a sender
//! gets, so that forged mail in someone's name cannot flood them.
//!
//! Anyone can put any address in `From:`. An answer to a mail without a
//! valid secret therefore goes to an address that may never have written:
//! each counts against [`Limits::unverified_answers_per_hour`] for that
//! address, a stranger's HELP is answered briefly (the full guide goes to
//! players and observers), and a JOIN takes a seat only when the address
//! confirms it with the token its answer carried.
//!
//! [`Limits::unverified_answers_per_hour`]: super::config::Limits

use chrono::Duration;
use minijinja::context;

use super::intake::{Context, Outcome};
use super::mail::Draft;
use super::secrets::{new_secret, secret_digest, secret_matches};
use super::{Result, Service, ServiceError};
use crate::orders::{Command, Order};
use crate::scenario::Side;
use crate::store::{self, strangers::JoinRequest};

/// Games listed at most in an answer to a stranger (the rest are counted).
const GAMES_LISTED: usize = 20;

/// What a stranger's mail is answered with: a handler's result, or `None`
/// when the mail is not of its kind.
type Answered = Option<(Option<String>, Outcome)>;

impl Service {
    /// Queue a mail to a sender who gave no valid secret, if the address
    /// has had fewer than `unverified_answers_per_hour` such answers in
    /// the last hour (all kinds together). Returns whether it was queued;
    /// one held back is logged.
    pub(super) fn queue_unverified(&self, d: Draft) -> Result<bool> {
        let now = self.now();
        let cap = self.cfg.limits.unverified_answers_per_hour;
        let n = store::strangers::unverified_answers_since(
            &self.conn,
            &d.to,
            now - Duration::hours(1),
        )?;
        if n >= cap {
            tracing::info!(
                to = %d.to,
                kind = d.kind,
                n,
                "answer not sent: {cap} an hour at most to an address without a valid secret"
            );
            return Ok(false);
        }
        let (to, kind) = (d.to.clone(), d.kind);
        let queued = self.queue(d)?;
        if queued {
            store::strangers::record_unverified_answer(&self.conn, &to, kind, now)?;
        }
        Ok(queued)
    }

    /// Answer a stranger's `kind` of request (`help`, `join`) with
    /// `rendered`, about no game, once a message and within the cap of
    /// [`Service::queue_unverified`]. Returns whether it was queued.
    fn answer_stranger(
        &self,
        cx: &Context<'_>,
        kind: &'static str,
        rendered: super::templates::Rendered,
    ) -> Result<bool> {
        let key = format!("{kind}:{}", cx.message_id);
        let d = self.reply_draft("", kind, &key, &cx.sender, rendered, cx.mail);
        self.queue_unverified(Draft { game_id: None, ..d })
    }

    /// A mail from an address with no seat in any game: a JOIN CONFIRM, a
    /// JOIN or HELP is answered (within the cap); anything else is not.
    pub(super) fn stranger_mail(&self, cx: &Context<'_>) -> Result<(Option<String>, Outcome)> {
        if let Some(out) = self.join_confirmed(cx)? {
            return Ok(out);
        }
        if let Some(out) = self.join_request(cx)? {
            return Ok(out);
        }
        if let Some(out) = self.stranger_help(cx)? {
            return Ok(out);
        }
        // No backscatter: a stranger gets no answer.
        Ok((
            None,
            Outcome::Ignored(format!("{} is not a player", cx.sender)),
        ))
    }

    /// HELP from an address that plays in no game, if the mail holds HELP
    /// and nothing else. Only a plain-text body is read (a stranger's HTML
    /// is never converted, `docs/intake.md`). An observer gets the full
    /// guide; anyone else a short answer (under 5 KB) that says how to
    /// play and lists the games with an open seat.
    fn stranger_help(&self, cx: &Context<'_>) -> Result<Answered> {
        if cx.mail.html_pending() {
            return Ok(None);
        }
        let Some(p) = self.parse_as_stranger(cx, None) else {
            return Ok(None);
        };
        if !super::intake::only_help(&p) {
            return Ok(None);
        }
        let observer = store::strangers::observes_any(&self.conn, &cx.sender)?;
        let rendered = if observer {
            self.templates.render(
                "help.txt",
                context! { game => "", guide => super::templates::GUIDE },
            )?
        } else {
            let (games, more) = self.open_games_listed(None)?;
            self.templates.render(
                "help_stranger.txt",
                context! { games => games, more => more },
            )?
        };
        let sent = self.answer_stranger(cx, "help", rendered)?;
        let what = match (sent, observer) {
            (true, true) => "an observer; HELP answered with the guide",
            (true, false) => "HELP answered briefly",
            (false, _) => "HELP not answered: too many answers to this address this hour",
        };
        Ok(Some((
            None,
            Outcome::Ignored(format!("{} is not a player; {what}", cx.sender)),
        )))
    }

    /// A JOIN from an address that plays in no game. The game is the one
    /// named (subject or GAME line), or the only game with an open seat of
    /// the side asked for; with several such games and none named, the
    /// answer lists them. An open seat is not taken: the answer asks the
    /// address to confirm with a token (`join_confirm.txt`). `None`: not a
    /// JOIN, or no open seat for it (not answered).
    fn join_request(&self, cx: &Context<'_>) -> Result<Answered> {
        let Some(p) = self.parse_as_stranger(cx, Some(&cx.mail.subject)) else {
            return Ok(None);
        };
        let Some(wanted) = p.sheet.items.iter().find_map(|i| match &i.order {
            Order::Command(Command::Join(s)) => Some(*s),
            _ => None,
        }) else {
            return Ok(None);
        };
        let seats: Vec<(String, Side)> = store::strangers::open_seats(&self.conn)?
            .into_iter()
            .filter(|(_, s)| wanted.is_none_or(|w| w == *s))
            .collect();
        let game = match p.sheet.header.game.clone() {
            Some(g) => g,
            None => {
                let mut games: Vec<String> = seats.iter().map(|(g, _)| g.clone()).collect();
                games.dedup();
                match games.as_slice() {
                    [] => return Ok(None),
                    [one] => one.clone(),
                    _ => return self.join_which_game(cx, wanted).map(Some),
                }
            }
        };
        let Some(side) = seats.iter().find(|(g, _)| *g == game).map(|(_, s)| *s) else {
            return Ok(None);
        };
        self.ask_join_confirmation(cx, &game, side).map(Some)
    }

    /// Answer a JOIN with the request to confirm it: a new random token
    /// (128 bits) in the mail, only its SHA-256 stored with the request,
    /// which lapses after `join_confirm_hours`. Nothing is stored when the
    /// cap holds the answer back.
    fn ask_join_confirmation(
        &self,
        cx: &Context<'_>,
        game: &str,
        side: Side,
    ) -> Result<(Option<String>, Outcome)> {
        let token = new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
        let hours = self.cfg.limits.join_confirm_hours;
        let g = self.game(game)?;
        let scn = self.scenario(&g.scenario)?;
        let rendered = self.templates.render(
            "join_confirm.txt",
            context! {
                game => game,
                side => side.to_string(),
                title => scn.def.title.clone(),
                hours => hours,
                token => token.clone(),
            },
        )?;
        let d = self.reply_draft(
            game,
            "join",
            &format!("join:{}", cx.message_id),
            &cx.sender,
            rendered,
            cx.mail,
        );
        let asked = self.queue_unverified(d)?;
        if asked {
            let now = self.now();
            store::strangers::insert_join_request(
                &self.conn,
                &JoinRequest {
                    id: 0,
                    address: cx.sender.clone(),
                    game_id: game.to_string(),
                    side: Some(side),
                    token_sha256: secret_digest(&token),
                    created_at: now,
                    expires_at: now + Duration::hours(i64::from(hours)),
                },
            )?;
        }
        Ok((
            Some(game.to_string()),
            Outcome::JoinAsked {
                game: game.to_string(),
                side,
                asked,
            },
        ))
    }

    /// A JOIN naming no game while several have an open seat (of the side
    /// asked for): answered with the list, no seat taken.
    fn join_which_game(
        &self,
        cx: &Context<'_>,
        wanted: Option<Side>,
    ) -> Result<(Option<String>, Outcome)> {
        let (games, more) = self.open_games_listed(wanted)?;
        let example = store::strangers::open_seats(&self.conn)?
            .into_iter()
            .find(|(_, s)| wanted.is_none_or(|w| w == *s))
            .map(|(g, _)| g)
            .unwrap_or_default();
        let join_line = match wanted {
            Some(s) => format!("JOIN {}", store::side_text(s).to_uppercase()),
            None => "JOIN".to_string(),
        };
        let rendered = self.templates.render(
            "join_games.txt",
            context! {
                side => wanted.map(|s| s.to_string()),
                games => games,
                more => more,
                example => example,
                join_line => join_line,
            },
        )?;
        let sent = self.answer_stranger(cx, "join", rendered)?;
        Ok((
            None,
            Outcome::Ignored(format!(
                "{} is not a player; a JOIN naming no game, {}",
                cx.sender,
                if sent {
                    "answered with the games that have an open seat"
                } else {
                    "not answered: too many answers to this address this hour"
                }
            )),
        ))
    }

    /// A mail with a line `JOIN CONFIRM token`: the seat its JOIN asked for
    /// is taken if the token matches a request of this same address that
    /// has not lapsed (compared as SHA-256, in constant time). Every
    /// request of the address is then forgotten. A token that matches
    /// nothing is not answered.
    fn join_confirmed(&self, cx: &Context<'_>) -> Result<Answered> {
        if cx.mail.html_pending() {
            return Ok(None);
        }
        let Some(token) = confirm_token(&cx.mail.body.text) else {
            return Ok(None);
        };
        let requests = store::strangers::join_requests_of(&self.conn, &cx.sender, self.now())?;
        let Some(r) = requests
            .iter()
            .find(|r| secret_matches(&token, &r.token_sha256))
        else {
            return Ok(Some((
                None,
                Outcome::Ignored(format!(
                    "{} is not a player; JOIN CONFIRM with a token that matches no request of this address (wrong, or lapsed)",
                    cx.sender
                )),
            )));
        };
        let joined = self.join(&r.game_id, &cx.sender, r.side)?;
        store::strangers::delete_join_requests(&self.conn, &cx.sender)?;
        let game = r.game_id.clone();
        Ok(Some(match joined {
            Some(side) => (Some(game.clone()), Outcome::Joined { game, side }),
            None => (
                Some(game.clone()),
                Outcome::Ignored(format!(
                    "JOIN CONFIRM from {}: the seat in {game} is no longer open",
                    cx.sender
                )),
            ),
        }))
    }

    /// The games with an open seat (of `side`, if given), one line each
    /// ("obeid-1: El Obeid, the Mahdist seat"), at most [`GAMES_LISTED`];
    /// and how many more there are.
    fn open_games_listed(&self, side: Option<Side>) -> Result<(Vec<String>, usize)> {
        let seats: Vec<(String, Side)> = store::strangers::open_seats(&self.conn)?
            .into_iter()
            .filter(|(_, s)| side.is_none_or(|w| w == *s))
            .collect();
        let mut games: Vec<(String, Vec<Side>)> = Vec::new();
        for (g, s) in seats {
            match games.last_mut() {
                Some((last, sides)) if *last == g => sides.push(s),
                _ => games.push((g, vec![s])),
            }
        }
        let more = games.len().saturating_sub(GAMES_LISTED);
        let mut lines = Vec::new();
        for (id, sides) in games.into_iter().take(GAMES_LISTED) {
            let g = self.game(&id)?;
            let title = self
                .scenario(&g.scenario)
                .map(|s| s.def.title.clone())
                .unwrap_or(g.scenario.clone());
            let seats = match sides.as_slice() {
                [one] => format!("the {one} seat"),
                _ => "both seats".to_string(),
            };
            lines.push(format!("{id}: {title}, {seats} open"));
        }
        Ok((lines, more))
    }
}

/// The token of the first line that reads `JOIN CONFIRM token`, quoted
/// or not: a reply that quotes the request proves the address received it
/// as well as a line typed anew. `None` if there is none in the first 500
/// lines.
fn confirm_token(text: &str) -> Option<String> {
    text.lines().take(500).find_map(|l| {
        let l = crate::orders::clean::normalise_chars(l);
        let l = l.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
        let words: Vec<&str> = l.split_whitespace().collect();
        match words.as_slice() {
            [join, confirm, token]
                if join.eq_ignore_ascii_case("JOIN") && confirm.eq_ignore_ascii_case("CONFIRM") =>
            {
                Some((*token).to_string())
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::confirm_token;

    #[test]
    fn the_confirmation_line_is_found_quoted_or_not() {
        assert_eq!(
            confirm_token("Hello\njoin confirm 0a1b2c3d-00\nthanks\n").as_deref(),
            Some("0a1b2c3d-00")
        );
        // A reply quoting the request confirms it too.
        assert_eq!(
            confirm_token("Yes.\n\n> >  JOIN CONFIRM abc\n").as_deref(),
            Some("abc")
        );
        assert_eq!(confirm_token("JOIN CONFIRM\n"), None);
        assert_eq!(confirm_token("JOIN MAHDIST\n"), None);
    }
}
