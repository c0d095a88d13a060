//! Ending a game by agreement: `RESIGN` (the other side wins) and an
//! agreed draw (`DRAW PROPOSE`, `DRAW ACCEPT`, `DRAW WITHDRAW`; a
//! proposal lapses when the turn it was made in is played). Each request
//! comes with the secret and is answered; the opponent and the game
//! master are told; the end goes in the game's result, which `game show`,
//! STATUS, the archive and the mail that ends the game show.

use minijinja::context;

use super::outcome::{Context, SeatAsk};
use super::{Result, Service};
use crate::orders::{DrawStep, SeatRequest};
use crate::scenario::Side;
use crate::store::seats as rows;
use crate::store::{self, GameRow, Status};

/// The side that is not `side`.
pub fn other(side: Side) -> Side {
    match side {
        Side::Egyptian => Side::Mahdist,
        Side::Mahdist => Side::Egyptian,
    }
}

/// The result of a game a side resigned.
pub fn resigned_result(side: Side) -> String {
    format!("{} victory: the {side} player resigned", other(side))
}

/// The result of a draw both players agreed.
pub const AGREED_DRAW: &str = "a draw: agreed by both players";

impl Service {
    /// `RESIGN` or a `DRAW` step from `side`'s player, with the secret.
    pub(super) fn ending_request(&self, ask: SeatAsk<'_>, r: SeatRequest) -> Result<()> {
        let SeatAsk { cx, g, side, key } = ask;
        let g = self.game(&g.id)?;
        let reply = |headline: &str, text: &str| -> Result<()> {
            let d = self.notice_draft(Some(&g.id), key, &cx.sender, headline, text)?;
            self.queue(d.answering(cx.mail, "answer", key))?;
            Ok(())
        };
        if g.status == Status::Finished {
            return reply(
                "the game is over",
                &format!(
                    "{}: game {} is over already ({}). Nothing was changed.",
                    r.words(),
                    g.id,
                    g.result.clone().unwrap_or_default()
                ),
            );
        }
        let offer = rows::draw_offer(&self.conn, &g.id)?.filter(|(_, t)| *t == g.turn_no);
        let opponent_is_bot = store::players(&self.conn, &g.id)?
            .iter()
            .any(|p| p.side != side && p.bot.is_some());
        match r {
            SeatRequest::Resign => self.end_game(cx, &g, resigned_result(side), "resigned", key),
            SeatRequest::Draw(_) if opponent_is_bot => reply(
                "no draw",
                &format!(
                    "{}: the {} side of game {} is played by the programmed player, which does not agree to draws. Nothing was changed; RESIGN ends the game.",
                    r.words(),
                    other(side),
                    g.id
                ),
            ),
            SeatRequest::Draw(DrawStep::Propose | DrawStep::Accept)
                if offer.is_some_and(|(s, _)| s != side) =>
            {
                self.end_game(cx, &g, AGREED_DRAW.to_string(), "agreed draw", key)
            }
            SeatRequest::Draw(DrawStep::Propose) => {
                rows::set_draw_offer(&self.conn, &g.id, side, g.turn_no, self.now())?;
                cx.audit(
                    self,
                    &g,
                    "draw proposed",
                    &format!("{side} seat: DRAW PROPOSE"),
                )?;
                let label = g.turn_kind.label(&g.month);
                self.tell_others(
                    &g,
                    side,
                    &format!("draw:{}:{}", g.turn_no, store::side_text(side)),
                    "a draw is proposed",
                    &format!(
                        "The {side} player proposes to end game {} as a draw. To agree, the {} player sends DRAW ACCEPT with the secret before turn {} ({label}) is played; the proposal lapses then.",
                        g.id, other(side), g.turn_no
                    ),
                )?;
                reply(
                    "draw proposed",
                    &format!(
                        "DRAW PROPOSE: your proposal of a draw is sent to the {} player. It stands until turn {} ({label}) is played, unless you send DRAW WITHDRAW. The game goes on meanwhile: send your orders as usual.",
                        other(side),
                        g.turn_no
                    ),
                )
            }
            SeatRequest::Draw(DrawStep::Accept) => reply(
                "no draw to accept",
                &format!(
                    "DRAW ACCEPT: the {} player has proposed no draw in this turn (a proposal lapses when the turn is played). Nothing was changed; DRAW PROPOSE proposes one.",
                    other(side)
                ),
            ),
            SeatRequest::Draw(DrawStep::Withdraw) if offer.is_some_and(|(s, _)| s == side) => {
                rows::clear_draw_offer(&self.conn, &g.id)?;
                cx.audit(
                    self,
                    &g,
                    "draw withdrawn",
                    &format!("{side} seat: DRAW WITHDRAW"),
                )?;
                self.tell_others(
                    &g,
                    side,
                    &format!("draw-withdrawn:{}:{}", g.turn_no, store::side_text(side)),
                    "the draw proposal is withdrawn",
                    &format!(
                        "The {side} player withdrew the proposal of a draw in game {}. The game goes on.",
                        g.id
                    ),
                )?;
                reply(
                    "draw withdrawn",
                    "DRAW WITHDRAW: your proposal of a draw is withdrawn; the game goes on.",
                )
            }
            _ => reply(
                "no draw to withdraw",
                "DRAW WITHDRAW: you have no proposal of a draw standing in this turn. Nothing was changed.",
            ),
        }
    }

    /// End game `g` with `result` (`how`: resigned, agreed draw): stored,
    /// in the log, and told to the players (the sender in reply), the
    /// observers and the game master with `game_end.txt`.
    fn end_game(
        &self,
        cx: &Context<'_>,
        g: &GameRow,
        result: String,
        how: &str,
        key: &str,
    ) -> Result<()> {
        let mut over = g.clone();
        over.status = Status::Finished;
        over.result = Some(result.clone());
        store::update_game(&self.conn, &over)?;
        rows::clear_draw_offer(&self.conn, &g.id)?;
        cx.audit(self, g, &format!("game ended: {how}"), &result)?;
        let turns = store::turns(&self.conn, &g.id)?.len();
        let render = || {
            self.templates.render(
                "game_end.txt",
                context! {
                    game => g.id.clone(),
                    result => result.clone(),
                    how => how,
                    month => crate::orders::parse::month(&g.month)
                        .map_or(g.month.clone(), |m| m.long_name()),
                    turns => turns,
                },
            )
        };
        let mut d = self.reply_draft(&g.id, "answer", key, &cx.sender, render()?, cx.mail);
        d.html = false;
        self.queue(d)?;
        let mut to: Vec<String> = store::players(&self.conn, &g.id)?
            .into_iter()
            .map(|p| p.address)
            .filter(|a| !a.is_empty() && *a != cx.sender)
            .collect();
        to.extend(store::observers(&self.conn, &g.id)?);
        to.push(self.cfg.host.game_master.clone());
        for a in to {
            let key = format!("game-end:{}:{a}", g.id);
            self.queue(super::mail::Draft::new(
                Some(&g.id),
                "notice",
                key,
                &a,
                render()?,
            ))?;
        }
        self.archive_after_turn(&g.id);
        Ok(())
    }
}
