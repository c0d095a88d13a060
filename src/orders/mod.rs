//! The order language: what players write in the body of an email.
//!
//! Reading orders has three steps, each its own module:
//!
//! 1. [`clean`]: from the text of the email to the lines the player wrote
//!    (quotes, signatures, client footers, comments and anything after
//!    `END` dropped; odd characters made plain; format=flowed joined).
//! 2. [`parse`]: each line to an [`Order`] or a [`SyntaxError`] (the text
//!    is not an order). Parsing never stops at a bad line.
//! 3. [`check`]: the orders against the game now, to the engine's
//!    [`crate::engine::orders::Orders`], with a [`CheckError`] for each
//!    order that is not possible (a unit that is not yours, a path through
//!    the sea, a river march without boats), and a plan of what each march
//!    will do. [`check::acknowledge`] writes the receipt.
//!
//! [`print`] writes orders back in canonical form; parsing the canonical
//! form gives the same orders.
//!
//! # Grammar
//!
//! Lines are independent; words are separated by spaces (commas may
//! separate items of a list); case does not matter; `#` starts a comment.
//! A *place* is a place name or alias (`Khartoum`, `Abu Hamed`), a hex
//! number (`1942`), or both (`Khartoum (1942)`, checked to agree). A
//! *unit* is an ID as printed on reports (`ER05`, also `er5`); a *leader*
//! is a name or alias (`Gordon`, `Osman Digna`).
//!
//! ```text
//! line      = header | march | option | order | command | "READY" ["AS" "IS"] | "END"
//! header    = "GAME" id | "SIDE" side | "SECRET" token | "MONTH" month
//! side      = "EGYPTIAN" | "BRITISH" | "MAHDIST" | "DERVISH"
//! month     = yyyy-mm | month-name yyyy
//! march     = ("MARCH" | "MOVE") selection leg { "THEN" leg } { option }
//! selection = ["STACK"] place
//!           | ["LEADER"] leader ["ALONE"]
//!           | ["UNITS"] unit { unit } ["WITH" leader { leader }]
//!           | "UNITS" "WITH" leader { leader }
//! leg       = ["BY" "LAND"] "TO" place
//!           | ("PATH" | "VIA") place { place }
//!           | ["BY"] "RAIL" "TO" place
//!           | ["BY"] "RIVER" ["UP" | "DOWN"] "TO" place
//!           | ["BY" | "WITH"] "FLEET" "TO" place
//! option    = "THEN" leg
//!           | "ATTACK" ("ANY" | place { place }) | "AVOID"
//!           | "CONTINUE" | "STOP"
//!           | "RETREAT" ["TOWARDS" | "TO"] place
//!           | "LED" "BY" leader | "BOOST" leader
//!           | "DROP" unit { unit } ["WITH" leader { leader }] "AT" place
//!           | "LOSE" ["FIRST"] unit { unit }
//! order     = ("EXPEND" | "KEEP") "SUPPLY" "AT" place
//!           | "PLACE" reinforcement [part] "AT" place
//!           | "WITHDRAW" unit { unit }
//!           | "DISMOUNT" unit unit
//!           | ("RAILWAY" | "BUILD" ["RAILWAY"]) line-name
//!           | "EVENT" "LOSSES" unit { unit }
//!           | "DEFEND" "LOSE" ["FIRST"] unit { unit }
//!           | ("SETUP" | "SET" "UP") unit { unit } ["WITH" leader { leader }] "AT" place
//! command   = "HELP" | "MAP" [place] | "ROUTE" place ["TO"] place
//!           | "STATUS" | "HISTORY" [month] | "RESEND" | "JOIN" [side]
//!           | "MAP" ("TEXT" | "PICTURE") | "ADDRESS" ("PUBLIC" | "HIDDEN")
//! ```
//!
//! `MAP TEXT` and `MAP PICTURE` are settings, whatever the map calls its
//! places: a place named Text or Picture would be written by its hex.
//!
//! An option line (`ATTACK ANY`, `THEN RIVER TO Berber`) belongs to the
//! march above it; options may also follow the legs on the march line.
//! Header keywords may end with a colon (`Game: khartoum-3`). The subject
//! line `[dervish GAME] orders MONTH` gives the game and month too.

pub mod check;
pub mod checked;
pub mod clean;
pub mod defaults;
pub mod house;
pub mod parse;
pub mod print;
pub mod vocab;
pub mod written;

pub use check::{CheckError, Checked, acknowledge, check};
pub use clean::{REPORT_MARKER, Refusal};
pub use parse::{Input, Parsed, SyntaxError, parse};
pub use vocab::Vocabulary;

use crate::calendar::GameMonth;
use crate::engine::orders::{MarchOrder, SetupOrder};
use crate::geo::Hex;
use crate::scenario::Side;
use crate::state::UnitId;

/// What identifies an orders message: from header lines and the subject.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub game: Option<String>,
    pub side: Option<Side>,
    pub secret: Option<String>,
    pub month: Option<GameMonth>,
}

/// Which way a river march goes (8.23); the engine works it out, and a
/// player who names it has it checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiverWay {
    Up,
    Down,
}

/// One leg of a march as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LegOrder {
    /// By land to a place along the cheapest route.
    To(Hex),
    /// By land along these hexes.
    Path(Vec<Hex>),
    /// By rail.
    Rail(Hex),
    /// By river, up or downstream.
    River { to: Hex, way: Option<RiverWay> },
    /// With the British fleet.
    Fleet(Hex),
}

/// A march order as written: the engine's march order with its legs as
/// written, which say what only the text says (the way of a river leg).
pub type March = MarchOrder<LegOrder>;

/// A command by email: not an order, a question to the service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Map(Option<Hex>),
    Route(Hex, Hex),
    Status,
    History(Option<GameMonth>),
    Resend,
    Join(Option<Side>),
    /// A standing choice for the sender's seat in the game, stored and
    /// told in the receipt.
    Set(Setting),
    /// A request about the sender's seat or the game's end (`ABSENT`,
    /// `RESIGN`, `DRAW`), made with the secret and confirmed by mail.
    Seat(SeatRequest),
}

/// A player's request about their seat or how the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatRequest {
    /// `ABSENT FROM yyyy-mm-dd TO yyyy-mm-dd [STANDIN]`: away on these
    /// days (both included); a deadline that falls in them waits for the
    /// return, or, with `STANDIN`, the programmed player plays the turn.
    Absent {
        from: chrono::NaiveDate,
        to: chrono::NaiveDate,
        stand_in: bool,
    },
    /// `ABSENT NONE`: every absence not yet over is cancelled.
    AbsentNone,
    /// `RESIGN`: the other side wins.
    Resign,
    /// `DRAW PROPOSE`, `DRAW ACCEPT`, `DRAW WITHDRAW`.
    Draw(DrawStep),
}

/// A step of an agreed draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawStep {
    Propose,
    Accept,
    Withdraw,
}

impl SeatRequest {
    /// The line that makes it, in canonical form.
    pub fn words(self) -> String {
        match self {
            SeatRequest::Absent { from, to, stand_in } => format!(
                "ABSENT FROM {from} TO {to}{}",
                if stand_in { " STANDIN" } else { "" }
            ),
            SeatRequest::AbsentNone => "ABSENT NONE".into(),
            SeatRequest::Resign => "RESIGN".into(),
            SeatRequest::Draw(DrawStep::Propose) => "DRAW PROPOSE".into(),
            SeatRequest::Draw(DrawStep::Accept) => "DRAW ACCEPT".into(),
            SeatRequest::Draw(DrawStep::Withdraw) => "DRAW WITHDRAW".into(),
        }
    }
}

/// A player's standing choice for their seat in a game, set by a line in
/// any mail with the secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `MAP PICTURE` (true, the default): results mails carry the drawn
    /// map of the player's area as a picture; `MAP TEXT` (false): without
    /// it. The text is complete either way.
    MapPicture(bool),
    /// `ADDRESS PUBLIC` (true): the game's public archive may show the
    /// player's mail address; `ADDRESS HIDDEN` (false, the default): it
    /// does not.
    ShowAddress(bool),
}

impl Setting {
    /// The line that sets it, in canonical form.
    pub fn words(self) -> &'static str {
        match self {
            Setting::MapPicture(true) => "MAP PICTURE",
            Setting::MapPicture(false) => "MAP TEXT",
            Setting::ShowAddress(true) => "ADDRESS PUBLIC",
            Setting::ShowAddress(false) => "ADDRESS HIDDEN",
        }
    }

    /// What it means, for the receipt.
    pub fn meaning(self) -> &'static str {
        match self {
            Setting::MapPicture(true) => {
                "results mails carry the drawn map of your area as a picture (the default)"
            }
            Setting::MapPicture(false) => {
                "results mails come without the picture of the map; their text is complete"
            }
            Setting::ShowAddress(true) => "the game's public archive may show your mail address",
            Setting::ShowAddress(false) => {
                "the game's public archive does not show your mail address (the default)"
            }
        }
    }
}

/// One order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    March(March),
    /// Expend a supply unit here in the attrition phase (5.2 IV).
    ExpendSupply(Hex),
    /// Keep the supply unit here and roll for attrition.
    KeepSupply(Hex),
    /// Place a reinforcement here (2.2, 3.2).
    Place {
        reinforcement: String,
        at: Hex,
    },
    /// Place a part of a reinforcement here (2.3: the Gordon Relief
    /// Expedition may be split): a named unit, a unit type code or a leader.
    PlacePart {
        reinforcement: String,
        part: String,
        at: Hex,
    },
    /// Withdraw units from the map (3.1).
    Withdraw(Vec<UnitId>),
    /// Two Camel Corps units dismount (8.24).
    Dismount(UnitId, UnitId),
    /// The railway line to build (3.41).
    Railway(String),
    /// Units to give up first if a random event takes units (4.2).
    EventLosses(Vec<UnitId>),
    /// A standing order: units to take combat losses first, above all when
    /// the other player attacks, until the player's next turn (9.4).
    DefendLoseFirst(Vec<UnitId>),
    /// Set-up placements in the opening month (2.1).
    Setup(SetupOrder),
    /// The player's orders for the turn are complete.
    Ready,
    /// `READY AS IS`: play the set as it stands, lines refused as NOT
    /// UNDERSTOOD or NOT POSSIBLE included (without it such a set waits
    /// for a mended one or the deadline).
    ReadyAsIs,
    Command(Command),
}

/// An order with the line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Line number in the message, from 1.
    pub line: usize,
    /// The line as written (after cleaning).
    pub text: String,
    pub order: Order,
}

/// Everything read from one message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sheet {
    pub header: Header,
    pub items: Vec<Item>,
}

impl Sheet {
    /// The orders alone, without their lines.
    pub fn orders(&self) -> Vec<&Order> {
        self.items.iter().map(|i| &i.order).collect()
    }

    /// Whether the player said READY (or READY AS IS).
    pub fn ready(&self) -> bool {
        self.items
            .iter()
            .any(|i| matches!(i.order, Order::Ready | Order::ReadyAsIs))
    }

    /// Whether the player said READY AS IS.
    pub fn as_is(&self) -> bool {
        self.items.iter().any(|i| i.order == Order::ReadyAsIs)
    }
}
