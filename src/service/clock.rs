//! Deadlines that bend: a game's time bank (`game new --clock
//! BASE+INCREMENT`, e.g. `7d+3d`). Each player starts with BASE; their
//! time runs while a turn waits for their orders and stops when they say
//! READY (or the turn is played); each later turn that waits for them
//! adds INCREMENT. The turn is played when every side it waits for is
//! READY or out of time; the deadline shown is the latest a side's time
//! can last. A side out of time may still send orders until the turn is
//! played. A game without a time bank keeps its fixed deadlines.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;

use super::games::deadline_text;
use super::{Result, Service, ServiceError};
use crate::scenario::Side;
use crate::store::seats::{self as rows, ClockRow};
use crate::store::{self, GameRow, Mode, Status, TurnKind};

/// A time bank as written: `7d+3d`, `36h+12h`, `7d12h+1d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSpec {
    pub base_secs: i64,
    pub increment_secs: i64,
}

/// A span written in days, hours and minutes (`7d`, `36h`, `1d12h`,
/// `90m`).
fn span(text: &str) -> std::result::Result<i64, String> {
    let mut total = 0i64;
    let mut digits = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c.to_ascii_lowercase() {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            _ => return Err(format!("{text}: {c} is not d, h or m")),
        };
        let n: i64 = digits
            .parse()
            .map_err(|_| format!("{text}: a number must come before {c}"))?;
        total = total.saturating_add(n.saturating_mul(unit));
        digits.clear();
    }
    if !digits.is_empty() {
        return Err(format!(
            "{text}: say d (days), h (hours) or m (minutes) after {digits}"
        ));
    }
    Ok(total)
}

impl std::str::FromStr for ClockSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<ClockSpec, String> {
        let (base, inc) = s
            .split_once('+')
            .ok_or_else(|| format!("{s}: write the time bank as BASE+INCREMENT, as 7d+3d"))?;
        let spec = ClockSpec {
            base_secs: span(base)?,
            increment_secs: span(inc)?,
        };
        if spec.base_secs < 3_600 {
            return Err(format!(
                "{s}: the time bank must start with an hour at least"
            ));
        }
        if spec.base_secs > 366 * 86_400 || spec.increment_secs > 366 * 86_400 {
            return Err(format!("{s}: a time bank of more than a year"));
        }
        Ok(spec)
    }
}

impl std::fmt::Display for ClockSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}+{}",
            compact(self.base_secs),
            compact(self.increment_secs)
        )
    }
}

/// A span as written in a time bank: `7d`, `1d12h`, `90m` as `1h30m`.
fn compact(secs: i64) -> String {
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    let mut out = String::new();
    for (n, unit) in [(d, 'd'), (h, 'h'), (m, 'm')] {
        if n > 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    if out.is_empty() { "0m".into() } else { out }
}

/// A span in words: `3 days 4 hours`, `5 hours 10 minutes`, `no time`.
pub fn span_text(secs: i64) -> String {
    if secs <= 0 {
        return "no time".into();
    }
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    let part = |n: i64, unit: &str| match n {
        0 => None,
        1 => Some(format!("1 {unit}")),
        n => Some(format!("{n} {unit}s")),
    };
    let parts: Vec<String> = if d > 0 {
        [part(d, "day"), part(h, "hour")]
            .into_iter()
            .flatten()
            .collect()
    } else {
        [part(h, "hour"), part(m, "minute")]
            .into_iter()
            .flatten()
            .collect()
    };
    if parts.is_empty() {
        "less than a minute".into()
    } else {
        parts.join(" ")
    }
}

/// The bank `k` after a turn of kind `played_kind` played at `played`
/// (each side's READY, Egyptian and Mahdist, at `ready_at`), with the
/// turn of kind `next` opened then; and that turn's deadline, the latest
/// a side's time lasts. The first month after the set-up starts from the
/// bank as it is.
fn bank_after(
    k: &ClockRow,
    played_kind: TurnKind,
    ready_at: [Option<DateTime<Utc>>; 2],
    played: DateTime<Utc>,
    next: TurnKind,
) -> (ClockRow, DateTime<Utc>) {
    let mut k = k.clone();
    if !played_kind.is_setup() {
        for side in played_kind.waits_for() {
            let at = ready_at[usize::from(side == Side::Mahdist)];
            let left = (k.left(side) - used(k.opened_at, at, played)).max(0);
            k.set_left(side, left);
        }
        for side in next.waits_for() {
            k.set_left(side, k.left(side) + k.increment_secs);
        }
    }
    k.opened_at = played;
    let longest = next
        .waits_for()
        .into_iter()
        .map(|s| k.left(s))
        .max()
        .unwrap_or(k.base_secs)
        .max(3_600);
    (k, played + Duration::seconds(longest))
}

/// How long `side` took in a turn opened at `opened`: until their READY
/// set came in (`ready_at`), else until the turn was played.
fn used(opened: DateTime<Utc>, ready_at: Option<DateTime<Utc>>, played: DateTime<Utc>) -> i64 {
    let stop = ready_at.map_or(played, |r| r.min(played));
    (stop - opened).num_seconds().max(0)
}

impl Service {
    /// Give game `id` a time bank: each side starts with the base, the
    /// open turn's deadline set from it. The players are told.
    pub fn set_time_bank(&self, id: &str, spec: ClockSpec, actor: &str) -> Result<GameRow> {
        let mut g = self.game(id)?;
        if g.status == Status::Finished {
            return Err(ServiceError::Game(format!("game {id} is over")));
        }
        let now = self.now();
        let k = ClockRow {
            game_id: id.to_string(),
            base_secs: spec.base_secs,
            increment_secs: spec.increment_secs,
            egyptian_secs: spec.base_secs,
            mahdist_secs: spec.base_secs,
            opened_at: now,
        };
        let tx = self.begin()?;
        rows::set_clock(&tx, &k)?;
        // The set-up step keeps its own deadlines: the bank starts with
        // the first month.
        let setup = g.turn_kind.is_setup();
        if !setup {
            g.deadline = now + Duration::seconds(spec.base_secs);
            g.reminded = false;
            store::update_game(&tx, &g)?;
        }
        let text = format!(
            "Game {id} is played with a time bank of {}: each player has {} to begin with and {} more each turn; your time runs while a turn waits for your orders and stops when you say READY. The turn is played when both sides are READY or out of time. {}",
            spec,
            span_text(spec.base_secs),
            span_text(spec.increment_secs),
            if setup {
                format!(
                    "The set-up keeps its deadline ({}); the time bank starts with the first month.",
                    deadline_text(g.deadline)
                )
            } else {
                format!("The deadline now: {}.", deadline_text(g.deadline))
            }
        );
        store::audit(&tx, now, Some(id), actor, "time bank", &text)?;
        self.notice_to_all(&tx, id, "clock", "time bank", &text)?;
        tx.commit()?;
        Ok(g)
    }

    /// A turn of `g` opened: the time each side took in the turn before
    /// is taken from their bank, the increment added for each side the
    /// new turn waits for, and the deadline set to the latest that time
    /// lasts (stored in `g`). Once a turn: nothing if the bank already
    /// counts from after the last turn played.
    pub(super) fn clock_at_turn_open(&self, c: &Connection, g: &mut GameRow) -> Result<()> {
        let Some(k) = rows::clock(c, &g.id)? else {
            return Ok(());
        };
        if g.turn_kind.is_setup() {
            return Ok(());
        }
        let Some((kind, sets, played)) = rows::last_turn_sets(c, &g.id)? else {
            return Ok(());
        };
        if played < k.opened_at {
            return Ok(());
        }
        let mut ready_at = [None, None];
        for (i, set) in [sets.0, sets.1].into_iter().enumerate() {
            if let Some(id) = set {
                ready_at[i] = store::order_set(c, id)?
                    .filter(|s| s.ready && s.message.is_some())
                    .map(|s| s.received_at);
            }
        }
        let (k, deadline) = bank_after(&k, kind, ready_at, played, g.turn_kind);
        rows::set_clock(c, &k)?;
        g.deadline = deadline;
        g.reminded = false;
        Ok(store::update_game(c, g)?)
    }

    /// The deadline the time bank will give the turn after the open turn
    /// of `g`, were it played at `now` with the orders in now (`None`
    /// without a time bank): the results mail announces it.
    pub(super) fn clock_deadline_next(
        &self,
        g: &GameRow,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>> {
        let Some(k) = rows::clock(&self.conn, &g.id)? else {
            return Ok(None);
        };
        if g.turn_kind.is_setup() {
            return Ok(None);
        }
        let mut ready_at = [None, None];
        for (i, side) in [Side::Egyptian, Side::Mahdist].into_iter().enumerate() {
            ready_at[i] = store::latest_order_set(&self.conn, &g.id, g.turn_no, side)?
                .filter(|s| s.ready && s.message.is_some())
                .map(|s| s.received_at);
        }
        let next = match (g.mode, g.turn_kind) {
            (Mode::Monthly, _) => TurnKind::Month,
            (Mode::Alternating, TurnKind::Player(Side::Egyptian)) => {
                TurnKind::Player(Side::Mahdist)
            }
            (Mode::Alternating, _) => TurnKind::Player(Side::Egyptian),
        };
        Ok(Some(bank_after(&k, g.turn_kind, ready_at, now, next).1))
    }

    /// Whether the open turn of `g` is due by time: its deadline passed,
    /// or, in a game with a time bank, every side it waits for is READY
    /// or out of time (called where due turns are found).
    pub fn deadline_passed(&self, g: &GameRow) -> Result<bool> {
        let now = self.now();
        if now >= g.deadline {
            return Ok(true);
        }
        let Some(k) = rows::clock(&self.conn, &g.id)? else {
            return Ok(false);
        };
        let mut any_waiting = false;
        for side in g.turn_kind.waits_for() {
            let ready = store::latest_order_set(&self.conn, &g.id, g.turn_no, side)?
                .is_some_and(|s| s.ready);
            if ready {
                continue;
            }
            if k.opened_at + Duration::seconds(k.left(side)) > now {
                return Ok(false);
            }
            any_waiting = true;
        }
        Ok(any_waiting)
    }

    /// How much time `side` has left for the open turn of `g`, in words
    /// (for reminders): its time bank's, or until the deadline.
    pub fn time_left_text(&self, g: &GameRow, side: Side) -> Result<String> {
        let now = self.now();
        let until = match rows::clock(&self.conn, &g.id)? {
            Some(k) => k.opened_at + Duration::seconds(k.left(side)),
            None => g.deadline,
        };
        Ok(span_text((until - now).num_seconds()))
    }

    /// The time bank of game `id` in words, for `game show`.
    pub fn clock_lines(&self, id: &str) -> Result<Vec<String>> {
        let Some(k) = rows::clock(&self.conn, id)? else {
            return Ok(Vec::new());
        };
        let g = self.game(id)?;
        let spec = ClockSpec {
            base_secs: k.base_secs,
            increment_secs: k.increment_secs,
        };
        let mut out = vec![format!("Time bank {spec}:")];
        for side in [Side::Egyptian, Side::Mahdist] {
            let waits = g.turn_kind.waits_for().contains(&side) && g.status == Status::Running;
            let ready_at = if waits {
                store::latest_order_set(&self.conn, id, g.turn_no, side)?
                    .filter(|s| s.ready && s.message.is_some())
                    .map(|s| s.received_at)
            } else {
                None
            };
            out.push(match (waits, ready_at) {
                (true, Some(at)) => format!(
                    "  {side}: {} left (stopped at READY)",
                    span_text(k.left(side) - used(k.opened_at, Some(at), self.now()))
                ),
                (true, None) => format!(
                    "  {side}: {} left (running)",
                    self.time_left_text(&g, side)?
                ),
                (false, _) => format!("  {side}: {} left", span_text(k.left(side))),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_bank_is_read_as_base_plus_increment() {
        let k: ClockSpec = "7d+3d".parse().unwrap();
        assert_eq!((k.base_secs, k.increment_secs), (7 * 86_400, 3 * 86_400));
        let k: ClockSpec = "1d12h+90m".parse().unwrap();
        assert_eq!((k.base_secs, k.increment_secs), (129_600, 5_400));
        assert_eq!(k.to_string(), "1d12h+1h30m");
        assert_eq!(span_text(129_600), "1 day 12 hours");
        for bad in ["7d", "7x+1d", "d+1d", "30m+1d", "7+3d"] {
            assert!(bad.parse::<ClockSpec>().is_err(), "{bad}");
        }
    }
}
