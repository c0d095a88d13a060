//! Mail from senders who hold no valid secret: the answers sent to each
//! address (one hourly cap over all of them, so forged mail cannot flood
//! a real address) and the JOIN requests waiting for their confirmation
//! from the same address.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, params};

use super::{Result, parse_side, parse_time, side_text, time};
use crate::scenario::Side;

/// The answers and the JOIN requests. Migration 10.
pub(super) const SCHEMA: &str = r#"
-- Every answer sent to a sender that gave no valid secret (HELP, JOIN,
-- refusals, which game): counted per address against one hourly cap.
-- Rows older than a day are removed as new ones are written.
CREATE TABLE unverified_answers (
    id          INTEGER PRIMARY KEY,
    address     TEXT NOT NULL,
    kind        TEXT NOT NULL,
    at          TEXT NOT NULL
);
CREATE INDEX unverified_answers_by_address ON unverified_answers (address, at);
-- A JOIN waiting for its confirmation (JOIN CONFIRM and the token) from
-- the address that asked. Only the SHA-256 of the token is kept.
CREATE TABLE join_requests (
    id            INTEGER PRIMARY KEY,
    address       TEXT NOT NULL,
    game_id       TEXT NOT NULL,
    side          TEXT,
    token_sha256  TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    expires_at    TEXT NOT NULL
);
CREATE INDEX join_requests_by_address ON join_requests (address);
"#;

/// Record an answer sent to `address` (of the outbox kind `kind`) at
/// `at`, and forget those more than a day old.
pub fn record_unverified_answer(
    c: &Connection,
    address: &str,
    kind: &str,
    at: DateTime<Utc>,
) -> Result<()> {
    c.prepare_cached("DELETE FROM unverified_answers WHERE at < ?1")?
        .execute([time(at - Duration::days(1))])?;
    c.prepare_cached("INSERT INTO unverified_answers (address, kind, at) VALUES (?1, ?2, ?3)")?
        .execute(params![address.to_lowercase(), kind, time(at)])?;
    Ok(())
}

/// How many answers were sent to `address` since `since`.
pub fn unverified_answers_since(
    c: &Connection,
    address: &str,
    since: DateTime<Utc>,
) -> Result<u32> {
    Ok(
        c.prepare_cached(
            "SELECT COUNT(*) FROM unverified_answers WHERE address = ?1 AND at >= ?2",
        )?
        .query_row(params![address.to_lowercase(), time(since)], |r| r.get(0))?,
    )
}

/// Whether `address` observes any game (an observer gets the full guide
/// on HELP, as a player does).
pub fn observes_any(c: &Connection, address: &str) -> Result<bool> {
    Ok(
        c.prepare_cached("SELECT EXISTS (SELECT 1 FROM observers WHERE address = ?1)")?
            .query_row([address.to_lowercase()], |r| r.get(0))?,
    )
}

/// The open seats a JOIN may take, by game and side: seats with no
/// address and no programmed player, in games not over.
pub fn open_seats(c: &Connection) -> Result<Vec<(String, Side)>> {
    let mut st = c.prepare_cached(
        "SELECT p.game_id, p.side FROM players p JOIN games g ON g.id = p.game_id
         WHERE p.address = '' AND p.bot IS NULL AND g.status <> 'finished'
         ORDER BY p.game_id, p.side",
    )?;
    let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (game, side) = row?;
        out.push((game, parse_side(&side)?));
    }
    Ok(out)
}

/// A JOIN waiting for its confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinRequest {
    pub id: i64,
    pub address: String,
    pub game_id: String,
    /// The side asked for, if any.
    pub side: Option<Side>,
    pub token_sha256: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Store a JOIN request (its `id` is ignored), and forget the expired ones.
pub fn insert_join_request(c: &Connection, r: &JoinRequest) -> Result<()> {
    c.prepare_cached("DELETE FROM join_requests WHERE expires_at < ?1")?
        .execute([time(r.created_at)])?;
    c.prepare_cached(
        "INSERT INTO join_requests (address, game_id, side, token_sha256, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        r.address.to_lowercase(),
        r.game_id,
        r.side.map(side_text),
        r.token_sha256,
        time(r.created_at),
        time(r.expires_at)
    ])?;
    Ok(())
}

/// The JOIN requests of `address` not yet expired at `now`, oldest first.
pub fn join_requests_of(
    c: &Connection,
    address: &str,
    now: DateTime<Utc>,
) -> Result<Vec<JoinRequest>> {
    let mut st = c.prepare_cached(
        "SELECT id, address, game_id, side, token_sha256, created_at, expires_at
         FROM join_requests WHERE address = ?1 AND expires_at >= ?2 ORDER BY id",
    )?;
    let rows = st.query_map(params![address.to_lowercase(), time(now)], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, String>(5)?,
            r.get::<_, String>(6)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, address, game_id, side, token_sha256, created, expires) = row?;
        out.push(JoinRequest {
            id,
            address,
            game_id,
            side: side.as_deref().map(parse_side).transpose()?,
            token_sha256,
            created_at: parse_time(&created)?,
            expires_at: parse_time(&expires)?,
        });
    }
    Ok(out)
}

/// Forget every JOIN request of `address` (one was confirmed).
pub fn delete_join_requests(c: &Connection, address: &str) -> Result<()> {
    c.prepare_cached("DELETE FROM join_requests WHERE address = ?1")?
        .execute([address.to_lowercase()])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_counted_per_address_and_old_ones_forgotten() {
        let c = super::super::open_in_memory().unwrap();
        let t = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        record_unverified_answer(&c, "A@example.org", "help", t).unwrap();
        record_unverified_answer(&c, "a@example.org", "refusal", t + Duration::minutes(30))
            .unwrap();
        record_unverified_answer(&c, "b@example.org", "help", t).unwrap();
        let since = |m| t + Duration::minutes(m);
        assert_eq!(
            unverified_answers_since(&c, "a@example.org", since(0)).unwrap(),
            2
        );
        assert_eq!(
            unverified_answers_since(&c, "a@example.org", since(10)).unwrap(),
            1
        );
        // Two days on, the old rows are gone.
        record_unverified_answer(&c, "c@example.org", "help", t + Duration::days(2)).unwrap();
        let n: u32 = c
            .query_row("SELECT COUNT(*) FROM unverified_answers", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn join_requests_expire_and_are_forgotten() {
        let c = super::super::open_in_memory().unwrap();
        let t = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let r = JoinRequest {
            id: 0,
            address: "J@example.org".into(),
            game_id: "g-1".into(),
            side: Some(Side::Mahdist),
            token_sha256: "ab".into(),
            created_at: t,
            expires_at: t + Duration::hours(48),
        };
        insert_join_request(&c, &r).unwrap();
        let got = join_requests_of(&c, "j@example.org", t).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].side, got[0].game_id.as_str()),
            (Some(Side::Mahdist), "g-1")
        );
        assert!(
            join_requests_of(&c, "j@example.org", t + Duration::hours(49))
                .unwrap()
                .is_empty()
        );
        delete_join_requests(&c, "j@example.org").unwrap();
        assert!(join_requests_of(&c, "j@example.org", t).unwrap().is_empty());
    }
}
