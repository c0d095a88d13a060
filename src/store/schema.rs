//! The database schema, as migrations from the first version on. A
//! migration is never edited once released: changes are new migrations.

use rusqlite_migration::{M, Migrations};

/// Every migration, oldest first. The schema version is kept in SQLite's
/// `user_version`: the number of migrations applied.
pub fn migrations() -> Migrations<'static> {
    Migrations::new(steps())
}

/// The schema version of a database with every migration applied: what
/// `user_version` reads once [`migrations`] have run to the latest.
pub fn latest() -> i64 {
    steps().len() as i64
}

fn steps() -> Vec<M<'static>> {
    vec![
        M::up(V1),
        M::up(super::inbox::SCHEMA),
        M::up(V3),
        M::up(V4),
        M::up(V5),
        M::up(super::battles::SCHEMA),
        M::up(V7),
        M::up(V8),
        M::up(V9).foreign_key_check(),
        M::up(super::strangers::SCHEMA),
        M::up(OUTBOX_RETRY_AND_RETENTION),
        M::up(OUTBOX_PICTURES_KEPT),
        M::up(super::parts::SCHEMA),
        M::up(super::seats::SCHEMA),
        M::up(OUTBOX_HTML_FROM_TEXT),
        M::up(OUTBOX_INDEXES_BY_KIND),
    ]
}

const V1: &str = r#"
CREATE TABLE games (
    id              TEXT PRIMARY KEY,
    scenario        TEXT NOT NULL,
    mode            TEXT NOT NULL CHECK (mode IN ('monthly', 'alternating')),
    status          TEXT NOT NULL CHECK (status IN ('running', 'paused', 'finished')),
    deadline_hours  INTEGER NOT NULL CHECK (deadline_hours > 0),
    created_at      TEXT NOT NULL,
    -- The game state between turns (JSON of the engine's GameState).
    state           TEXT NOT NULL,
    month           TEXT NOT NULL,
    -- The turn now open for orders, from 1.
    turn_no         INTEGER NOT NULL,
    -- Which player turn the open turn plays: 'month' (both, monthly mode),
    -- 'egyptian' or 'mahdist' (alternating mode).
    turn_kind       TEXT NOT NULL CHECK (turn_kind IN ('month', 'egyptian', 'mahdist')),
    deadline        TEXT NOT NULL,
    -- The open turn's seed, kept secret until the turn is played, and its
    -- SHA-256, published when the turn opens.
    seed_hex        TEXT NOT NULL,
    seed_sha256     TEXT NOT NULL,
    reminded        INTEGER NOT NULL DEFAULT 0,
    result          TEXT
);

CREATE TABLE players (
    game_id         TEXT NOT NULL REFERENCES games(id),
    side            TEXT NOT NULL CHECK (side IN ('egyptian', 'mahdist')),
    address         TEXT NOT NULL,
    -- SHA-256 of the secret the service generated and mailed; the secret
    -- itself is never stored.
    secret_sha256   TEXT NOT NULL,
    unreachable     INTEGER NOT NULL DEFAULT 0,
    missed_turns    INTEGER NOT NULL DEFAULT 0,
    auth_failures   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, side)
);

CREATE TABLE observers (
    game_id         TEXT NOT NULL REFERENCES games(id),
    address         TEXT NOT NULL,
    PRIMARY KEY (game_id, address)
);

-- Every message received, stored raw once, keyed by its Message-ID.
CREATE TABLE messages (
    id              INTEGER PRIMARY KEY,
    message_id      TEXT NOT NULL UNIQUE,
    received_at     TEXT NOT NULL,
    sender          TEXT,
    subject         TEXT NOT NULL DEFAULT '',
    game_id         TEXT,
    raw             BLOB NOT NULL,
    -- What was done with it, in words.
    outcome         TEXT NOT NULL
);

-- Every version of every side's orders for every turn.
CREATE TABLE order_sets (
    id              INTEGER PRIMARY KEY,
    game_id         TEXT NOT NULL REFERENCES games(id),
    turn_no         INTEGER NOT NULL,
    side            TEXT NOT NULL CHECK (side IN ('egyptian', 'mahdist')),
    version         INTEGER NOT NULL,
    message         INTEGER REFERENCES messages(id),
    canonical       TEXT NOT NULL,
    -- The engine's orders (JSON); what the turn is played with.
    orders          TEXT NOT NULL,
    sha256          TEXT NOT NULL,
    ready           INTEGER NOT NULL,
    received_at     TEXT NOT NULL,
    UNIQUE (game_id, turn_no, side, version)
);

-- Every turn played, with what it needs to be played again byte for byte.
CREATE TABLE turns (
    game_id         TEXT NOT NULL REFERENCES games(id),
    turn_no         INTEGER NOT NULL,
    month           TEXT NOT NULL,
    turn_kind       TEXT NOT NULL,
    seed_hex        TEXT NOT NULL,
    seed_sha256     TEXT NOT NULL,
    egyptian_set    INTEGER REFERENCES order_sets(id),
    mahdist_set     INTEGER REFERENCES order_sets(id),
    egyptian_sha256 TEXT NOT NULL,
    mahdist_sha256  TEXT NOT NULL,
    state_before    TEXT NOT NULL,
    state_after     TEXT NOT NULL,
    events          TEXT NOT NULL,
    log             TEXT NOT NULL,
    played_at       TEXT NOT NULL,
    PRIMARY KEY (game_id, turn_no)
);

-- Every mail to send, committed before it is sent.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    game_id         TEXT,
    kind            TEXT NOT NULL,
    -- What this mail answers or announces, so it is never queued twice
    -- ("receipt:<message-id>", "results:<game>:<turn>:<side>").
    dedupe_key      TEXT NOT NULL UNIQUE,
    message_id      TEXT NOT NULL UNIQUE,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body_text       TEXT NOT NULL,
    body_html       TEXT,
    in_reply_to     TEXT,
    refs            TEXT NOT NULL DEFAULT '',
    auto_kind       TEXT NOT NULL CHECK (auto_kind IN ('auto-replied', 'auto-generated')),
    created_at      TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    sent_at         TEXT,
    last_error      TEXT,
    gave_up         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX outbox_due ON outbox (sent_at, gave_up, next_attempt_at);

-- What game masters did.
CREATE TABLE audit (
    id              INTEGER PRIMARY KEY,
    at              TEXT NOT NULL,
    game_id         TEXT,
    actor           TEXT NOT NULL,
    action          TEXT NOT NULL,
    detail          TEXT NOT NULL
);

-- Small facts about the service itself (the last pass, for deadlines that
-- passed while it was down).
CREATE TABLE service (
    key             TEXT PRIMARY KEY,
    value           TEXT NOT NULL
);
"#;

/// Outgoing mail is recorded as being handed over (`sending_at`) before
/// the hand-off and as sent after it, so a mail found "sending" at the next
/// pass is known to have been interrupted. Welcome mails already sent or
/// given up lose the player's secret, which is kept only while the mail
/// waits.
const V3: &str = r#"
ALTER TABLE outbox ADD COLUMN sending_at TEXT;
UPDATE outbox
   SET body_text = '(the welcome mail with the player''s secret; not kept once sent or given up)',
       body_html = NULL
 WHERE kind = 'welcome' AND (sent_at IS NOT NULL OR gave_up = 1);
"#;

/// Files sent with a mail (the full log of a long turn, the turn record),
/// as JSON: a list of `{name, content_type, text}`.
const V4: &str = r#"
ALTER TABLE outbox ADD COLUMN attachments TEXT NOT NULL DEFAULT '[]';
"#;

/// A seat may be held by a programmed player (`bot`, its kind), with its
/// own key for its dice (`bot_key`, hex).
const V5: &str = r#"
ALTER TABLE players ADD COLUMN bot TEXT;
ALTER TABLE players ADD COLUMN bot_key TEXT;
"#;

/// Each player's standing choices, set by mail: whether results mails
/// carry the drawn map as a picture (`MAP PICTURE`, the default, or `MAP
/// TEXT`), and whether the game's public archive may show the player's
/// address (`ADDRESS PUBLIC`; hidden unless the player says so).
const V7: &str = r#"
ALTER TABLE players ADD COLUMN map_picture INTEGER NOT NULL DEFAULT 1;
ALTER TABLE players ADD COLUMN show_address INTEGER NOT NULL DEFAULT 0;
"#;

/// How many lines of an order set will not be carried out (NOT
/// UNDERSTOOD or NOT POSSIBLE on its receipt): a READY on such a set waits
/// for a mended set or `READY AS IS`, and a mail of READY alone confirms
/// the standing set with its count (docs/orders.md, READY).
const V8: &str = r#"
ALTER TABLE order_sets ADD COLUMN refused_lines INTEGER NOT NULL DEFAULT 0;
"#;

/// Migration 11: the outbox's retries and retention. A mail is given up after temporary
/// failures only once `[outbox] give_up_after_days` have passed since it
/// was queued, or since the game master last took it up again (`dervish
/// outbox retry`): `retry_from` (NULL: since it was queued). A sent mail
/// is kept whole for `[outbox] keep_sent_days`, then only its headers and
/// the SHA-256 of what it held (`digest`), from `pruned_at` on; the
/// partial index finds the mail still to prune without reading the rest,
/// and the other the latest results mail to an address (kept whole).
const OUTBOX_RETRY_AND_RETENTION: &str = r#"
ALTER TABLE outbox ADD COLUMN retry_from TEXT;
ALTER TABLE outbox ADD COLUMN digest TEXT;
ALTER TABLE outbox ADD COLUMN pruned_at TEXT;
CREATE INDEX outbox_unpruned ON outbox (sent_at)
    WHERE sent_at IS NOT NULL AND pruned_at IS NULL;
CREATE INDEX outbox_by_recipient ON outbox (kind, game_id, recipient);
"#;

/// Migration 12: the results and set-up mails that may still hold
/// pictures (no `digest` yet): a pass finds those a later results mail to
/// the same address has replaced without reading any mail's files.
const OUTBOX_PICTURES_KEPT: &str = r#"
CREATE INDEX outbox_pictured ON outbox (game_id, recipient, id)
    WHERE kind IN ('results', 'setup') AND digest IS NULL AND pruned_at IS NULL;
"#;

/// Migration 15: a mail whose HTML part is its text shown as it is (with
/// its pictures above it) keeps only the text: `html_from_text` says the
/// HTML part is made from the text and the files when the mail is sent,
/// as it was made when the mail was queued (`mail::outbound::
/// html_with_pictures`), so the row holds the text once, not twice.
const OUTBOX_HTML_FROM_TEXT: &str = r#"
ALTER TABLE outbox ADD COLUMN html_from_text INTEGER NOT NULL DEFAULT 0;
"#;

/// Migration 16: the outbox's look-ups by kind and recipient are made
/// only for the kinds that use them, so the mail of other kinds (the
/// receipts above all, one for every mail a player sends) is not written
/// into them: the latest results mail to an address (pruning keeps it
/// whole) and the refusals sent to an address in the last hour (capped per
/// address). SQLite uses a partial index only for a query that names its
/// kind as written here.
const OUTBOX_INDEXES_BY_KIND: &str = r#"
DROP INDEX outbox_by_recipient;
CREATE INDEX outbox_results_by_recipient ON outbox (game_id, recipient, id)
    WHERE kind = 'results';
CREATE INDEX outbox_refusals_by_recipient ON outbox (recipient COLLATE NOCASE, created_at)
    WHERE kind = 'refusal';
"#;

/// A game may be in its set-up step (2.1), waiting for the Egyptian's
/// set-up or the Mahdist's (`setup-egyptian`, `setup-mahdist`); its turn
/// number is then 0, the set-up's own turn. SQLite cannot widen a CHECK in
/// place: the table is made again, as "Making Other Kinds Of Table Schema
/// Changes" describes, with foreign keys off while migrating (`prepare`).
const V9: &str = r#"
CREATE TABLE games_new (
    id              TEXT PRIMARY KEY,
    scenario        TEXT NOT NULL,
    mode            TEXT NOT NULL CHECK (mode IN ('monthly', 'alternating')),
    status          TEXT NOT NULL CHECK (status IN ('running', 'paused', 'finished')),
    deadline_hours  INTEGER NOT NULL CHECK (deadline_hours > 0),
    created_at      TEXT NOT NULL,
    -- The game state between turns (JSON of the engine's GameState).
    state           TEXT NOT NULL,
    month           TEXT NOT NULL,
    -- The turn now open for orders: 0 for the set-up step, then from 1.
    turn_no         INTEGER NOT NULL,
    -- Which player turn the open turn plays: 'month' (both, monthly mode),
    -- 'egyptian' or 'mahdist' (alternating mode), or the side whose
    -- set-up the set-up step waits for.
    turn_kind       TEXT NOT NULL CHECK (turn_kind IN
                        ('month', 'egyptian', 'mahdist', 'setup-egyptian', 'setup-mahdist')),
    deadline        TEXT NOT NULL,
    -- The open turn's seed, kept secret until the turn is played, and its
    -- SHA-256, published when the turn opens.
    seed_hex        TEXT NOT NULL,
    seed_sha256     TEXT NOT NULL,
    reminded        INTEGER NOT NULL DEFAULT 0,
    result          TEXT
);
INSERT INTO games_new SELECT * FROM games;
DROP TABLE games;
ALTER TABLE games_new RENAME TO games;
"#;

#[cfg(test)]
mod tests {
    #[test]
    fn the_migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }

    /// The version a database is opened at without the migrations is the
    /// one they bring it to.
    #[test]
    fn the_latest_version_is_the_one_the_migrations_reach() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_latest(&mut c).unwrap();
        let v: i64 = c
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, super::latest());
    }

    /// A database from before the third migration loses the secrets of
    /// welcome mails already sent or given up; one still waiting keeps its.
    #[test]
    fn the_third_migration_scrubs_old_welcome_secrets() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut c, 1).unwrap();
        for (id, sent, gave_up) in [
            (1, Some("2026-01-01T00:00:00Z"), 0),
            (2, None, 1),
            (3, None, 0),
        ] {
            c.execute(
                "INSERT INTO outbox (id, kind, dedupe_key, message_id, recipient, subject, body_text, body_html, auto_kind, created_at, next_attempt_at, sent_at, gave_up) VALUES (?1, 'welcome', ?1, ?1, 'a@b', 's', 'SECRET 1234', '<pre>SECRET 1234</pre>', 'auto-generated', 't', 't', ?2, ?3)",
                rusqlite::params![id, sent, gave_up],
            )
            .unwrap();
        }
        super::migrations().to_latest(&mut c).unwrap();
        let bodies: Vec<(String, Option<String>)> = c
            .prepare("SELECT body_text, body_html FROM outbox ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!bodies[0].0.contains("1234") && bodies[0].1.is_none());
        assert!(!bodies[1].0.contains("1234") && bodies[1].1.is_none());
        assert_eq!(bodies[2].0, "SECRET 1234");
        assert_eq!(
            bodies[0].0,
            crate::service::mail::SCRUBBED_WELCOME,
            "the same note as the service writes"
        );
    }

    /// A database from before the ninth migration keeps its games and
    /// their seats, and takes a game in the set-up step.
    #[test]
    fn the_ninth_migration_keeps_the_games_and_takes_the_set_up_step() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut c, 8).unwrap();
        c.execute_batch(
            "INSERT INTO games VALUES ('k-1', 'khartoum', 'monthly', 'running', 72, '2026-03-01T12:00:00Z', '{}', '1883-10', 3, 'month', '2026-03-04T12:00:00Z', 's', 'h', 0, NULL);
             INSERT INTO players (game_id, side, address, secret_sha256) VALUES ('k-1', 'egyptian', 'e@example.org', 'x');",
        )
        .unwrap();
        assert!(
            c.execute(
                "UPDATE games SET turn_kind = 'setup-egyptian' WHERE id = 'k-1'",
                []
            )
            .is_err(),
            "before it, the set-up step is not a kind of turn"
        );
        c.pragma_update(None, "foreign_keys", "OFF").unwrap();
        super::migrations().to_latest(&mut c).unwrap();
        c.pragma_update(None, "foreign_keys", "ON").unwrap();
        let g = crate::store::game(&c, "k-1").unwrap().unwrap();
        assert_eq!((g.turn_no, g.month.as_str()), (3, "1883-10"));
        assert_eq!(crate::store::players(&c, "k-1").unwrap().len(), 1);
        c.execute(
            "UPDATE games SET turn_kind = 'setup-egyptian', turn_no = 0 WHERE id = 'k-1'",
            [],
        )
        .unwrap();
        let g = crate::store::game(&c, "k-1").unwrap().unwrap();
        assert_eq!(
            g.turn_kind,
            crate::store::TurnKind::SetUp(crate::scenario::Side::Egyptian)
        );
        // The seats still refer to the games table.
        assert!(
            c.execute(
                "INSERT INTO players (game_id, side, address, secret_sha256) VALUES ('nope', 'mahdist', 'm@example.org', 'x')",
                []
            )
            .is_err()
        );
    }

    /// A database from before the thirteenth migration: its mails read as
    /// they were; mails queued after it store the pieces they share once,
    /// read back byte for byte, and a pruned mail's pieces go once no mail
    /// uses them.
    #[test]
    fn the_thirteenth_migration_keeps_old_mail_and_shares_new_pieces() {
        use crate::store::{self, Shared};
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut c, 12).unwrap();
        c.execute(
            "INSERT INTO outbox (id, kind, dedupe_key, message_id, recipient, subject, body_text, body_html, auto_kind, created_at, next_attempt_at, attachments) VALUES (1, 'results', 'r0', 'r0@x', 'e@example.org', 's', 'text', '<pre>old</pre>', 'auto-generated', '2026-03-01T12:00:00Z', '2026-03-01T12:00:00Z', '[]')",
            [],
        )
        .unwrap();
        super::migrations().to_latest(&mut c).unwrap();
        let (old, _) = store::outbox_mail(&c, 1).unwrap().unwrap();
        assert_eq!(
            (old.body_html.as_deref(), old.html_from_text),
            (Some("<pre>old</pre>"), false)
        );
        assert_eq!(store::outbox_mail(&c, 1).unwrap().unwrap().0, old);
        let log: String = "every roll\n".repeat(200);
        let files = format!(r#"[{{"name":"log.txt","text":"{log}"}}]"#);
        let html = format!("<pre>news\n{log}</pre>");
        let shared = Shared {
            html: vec![log.clone()],
            files: vec![format!(r#"{{"name":"log.txt","text":"{log}"}}"#)],
        };
        let mut ids = Vec::new();
        for (n, to) in ["e@example.org", "m@example.org"].into_iter().enumerate() {
            let m = store::OutboxRow {
                dedupe_key: format!("r{}", n + 1),
                message_id: format!("r{}@x", n + 1),
                recipient: to.into(),
                body_html: Some(html.clone()),
                attachments: files.clone(),
                ..old.clone()
            };
            assert!(store::queue_mail_sharing(&c, &m, &shared).unwrap());
            let id = c.last_insert_rowid();
            let back = store::outbox_mail(&c, id).unwrap().unwrap().0;
            assert_eq!(
                (back.body_html, back.attachments),
                (m.body_html, m.attachments)
            );
            ids.push(id);
        }
        let count = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            count("SELECT COUNT(*) FROM outbox_parts"),
            2,
            "each piece once"
        );
        assert!(
            count("SELECT MAX(length(attachments)) FROM outbox") < 100,
            "the file is not in the mails"
        );
        let at = crate::store::parse_time("2026-04-01T12:00:00Z").unwrap();
        for &id in &ids {
            store::mark_sent(&c, id, at).unwrap();
        }
        store::prune_mail(&c, ids[0], "d", "pruned", at).unwrap();
        assert_eq!(count("SELECT COUNT(*) FROM outbox_parts"), 2, "still used");
        assert_eq!(
            store::outbox_mail(&c, ids[1])
                .unwrap()
                .unwrap()
                .0
                .attachments,
            files
        );
        store::prune_mail(&c, ids[1], "d", "pruned", at).unwrap();
        assert_eq!(
            count("SELECT COUNT(*) FROM outbox_parts"),
            0,
            "no longer used"
        );
    }

    /// A database from before the seventh migration: every player gets the
    /// defaults (the picture on, the address hidden), and the files of
    /// mail queued by earlier versions (`{name, content_type, text}`)
    /// still read.
    #[test]
    fn the_seventh_migration_gives_players_the_defaults_and_old_files_read() {
        use crate::mail::outbound::{Attachment, Content};
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut c, 6).unwrap();
        // A seat and a mail of a game not written here.
        c.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        c.execute(
            "INSERT INTO players (game_id, side, address, secret_sha256) VALUES ('k-1', 'egyptian', 'e@example.org', 'x')",
            [],
        )
        .unwrap();
        c.execute(
            "INSERT INTO outbox (id, kind, dedupe_key, message_id, recipient, subject, body_text, auto_kind, created_at, next_attempt_at, attachments) VALUES (1, 'results', 'r', 'r@x', 'e@example.org', 's', 'text', 'auto-generated', '2026-03-01T12:00:00Z', '2026-03-01T12:00:00Z', ?1)",
            [r#"[{"name":"k-1-turn-1.json","content_type":"application/json","text":"{}\n"}]"#],
        )
        .unwrap();
        super::migrations().to_version(&mut c, 7).unwrap();
        let p = &crate::store::players(&c, "k-1").unwrap()[0];
        assert!(p.map_picture && !p.show_address, "{p:?}");
        // The outbox's columns as the service reads them (migration 15; the
        // later migrations check foreign keys this game lacks).
        c.execute_batch(super::OUTBOX_HTML_FROM_TEXT).unwrap();
        let (m, _) = crate::store::outbox_mail(&c, 1).unwrap().unwrap();
        let files = crate::service::mail::attachments_of(&m);
        assert_eq!(
            files,
            vec![Attachment::text(
                "k-1-turn-1.json",
                "application/json",
                "{}\n"
            )]
        );
        assert!(matches!(files[0].content, Content::Text(_)) && files[0].inline.is_none());
    }
}
