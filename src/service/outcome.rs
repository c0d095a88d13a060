//! An incoming message as the files that answer it see it (its
//! [`Context`]) and what became of it: the one outcome stored with it.
//! Both the intake and the game master's commands end in one. The intake
//! and the files it hands a message to (ready, seats, ending) share these
//! types, a seat's request ([`SeatAsk`]) and the log of what a mail did
//! ([`Context::audit`]) from here, so they do not import each other
//! in a circle.

use super::{Result, Service};
use crate::mail::inbound::Inbound;
use crate::scenario::Side;
use crate::store::{self, GameRow};

/// Who sent the message and where the conversation stands.
pub(super) struct Context<'a> {
    pub(super) mail: &'a Inbound,
    pub(super) message_id: String,
    pub(super) row: i64,
    pub(super) sender: String,
}

/// A request a seat's player makes with the secret (ABSENT, RESIGN,
/// DRAW): the message, the game, the side, and the key that makes the
/// answer unique.
#[derive(Clone, Copy)]
pub(super) struct SeatAsk<'a> {
    pub(super) cx: &'a Context<'a>,
    pub(super) g: &'a GameRow,
    pub(super) side: Side,
    pub(super) key: &'a str,
}

/// What became of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Already received (same Message-ID): nothing done again.
    Duplicate,
    /// Not answered, with the reason (automatic mail, unknown sender ...).
    Ignored(String),
    /// Answered with a refusal; nothing in the game changed.
    Refused(String),
    /// A new version of a side's orders, with its receipt queued.
    Orders {
        game: String,
        side: Side,
        version: u32,
        ready: bool,
    },
    /// Commands only, answered.
    Commands { game: String },
    /// A delivery failure of our own mail: the player marked unreachable.
    Bounce(String),
    /// A new player took an open seat (JOIN CONFIRM); their welcome is
    /// queued.
    Joined { game: String, side: Side },
    /// A JOIN for an open seat, answered with a request to confirm it
    /// from the same address (no seat taken yet). `asked`: false when the
    /// hourly cap on answers to the address held the request back.
    JoinAsked {
        game: String,
        side: Side,
        asked: bool,
    },
    /// A table battle's result, confirmation or dispute, taken
    /// (`proposed`, `settled`, `disputed`).
    Battle {
        game: String,
        battle: i64,
        what: String,
    },
}

impl Outcome {
    /// The outcome in words, as stored with the message.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Duplicate => "duplicate".into(),
            Outcome::Ignored(r) => format!("ignored: {r}"),
            Outcome::Refused(r) => format!("refused: {r}"),
            Outcome::Orders {
                game,
                side,
                version,
                ready,
            } => format!(
                "orders: {game} {side} version {version}{}",
                if *ready { ", ready" } else { "" }
            ),
            Outcome::Commands { game } => format!("commands: {game}"),
            Outcome::Bounce(r) => format!("bounce: {r}"),
            Outcome::Joined { game, side } => format!("joined: {game} {side}"),
            Outcome::JoinAsked { game, side, asked } => format!(
                "join asked: {game} {side}, {}",
                if *asked {
                    "confirmation requested"
                } else {
                    "not answered (too many answers to this address this hour)"
                }
            ),
            Outcome::Battle { game, battle, what } => format!("battle: {game} {battle} {what}"),
        }
    }
}

impl Context<'_> {
    /// Put in the game master's log of game `g` what this mail did, by
    /// its sender (`mail:address`).
    pub(super) fn audit(&self, s: &Service, g: &GameRow, action: &str, detail: &str) -> Result<()> {
        Ok(store::audit(
            &s.conn,
            s.now(),
            Some(&g.id),
            &format!("mail:{}", self.sender),
            action,
            detail,
        )?)
    }
}
