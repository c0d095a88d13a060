//! The large pieces mails share, stored once (migration 13). A turn's log
//! and turn record go to both players and to every observer, and a
//! results mail's HTML part ends with the full log, the same for every
//! recipient: each such piece is kept once in `outbox_parts`, by its
//! SHA-256, and each mail's HTML and files are kept with the piece cut
//! out and a note of where it goes (`outbox_part_uses`: the field and
//! the byte offset in the whole text). Reading a mail puts the pieces
//! back, so what is read is byte for byte what was queued. A piece no
//! mail uses any longer (every mail using it pruned) is deleted.
//!
//! A piece is kept deflated (zlib, RFC 1950, at the fastest level): a turn
//! record is mostly the state's JSON, which shrinks about tenfold, and a
//! log about threefold.

use rusqlite::{Connection, OptionalExtension, params};

use super::{OutboxRow, Result, StoreError};

/// The shared pieces and where each mail uses them. Migration 13.
pub(super) const SCHEMA: &str = r#"
-- A piece of text several mails hold (a turn's log and turn record, the
-- full log in a results mail's HTML part), kept once, by the SHA-256 of
-- its text, and deflated (zlib).
CREATE TABLE outbox_parts (
    sha256      TEXT PRIMARY KEY,
    deflated    BLOB NOT NULL
);
-- Where a mail holds a piece: its HTML part ('html') or its files as
-- stored ('files', the JSON list), at a byte offset of the whole text.
-- The mail's column keeps the text with the piece cut out.
CREATE TABLE outbox_part_uses (
    mail        INTEGER NOT NULL REFERENCES outbox(id),
    field       TEXT NOT NULL CHECK (field IN ('html', 'files')),
    at          INTEGER NOT NULL CHECK (at >= 0),
    sha256      TEXT NOT NULL REFERENCES outbox_parts(sha256),
    PRIMARY KEY (mail, field, at)
) WITHOUT ROWID;
CREATE INDEX outbox_part_uses_by_part ON outbox_part_uses (sha256);
"#;

/// A piece shorter than this is kept in the mail itself: sharing it
/// would save less than the note of where it goes costs.
pub const SHARED_MIN_BYTES: usize = 1024;

/// The text of a mail that pieces may be cut from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Html,
    Files,
}

impl Field {
    fn as_str(self) -> &'static str {
        match self {
            Field::Html => "html",
            Field::Files => "files",
        }
    }
}

/// Pieces a mail being queued may share with others, as they appear in
/// its HTML part and in its files' JSON. A piece not found there, or
/// shorter than [`SHARED_MIN_BYTES`], is simply kept in the mail.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    pub html: Vec<String>,
    pub files: Vec<String>,
}

/// `text` with `pieces` cut out (each at its first place that overlaps no
/// other's), and the cuts as (offset in `text`, piece), by offset.
pub(super) fn cut<'p>(text: &str, pieces: &'p [String]) -> (String, Vec<(usize, &'p str)>) {
    let mut spans: Vec<(usize, &'p str)> = Vec::new();
    for p in pieces.iter().filter(|p| p.len() >= SHARED_MIN_BYTES) {
        let free = text.match_indices(p.as_str()).map(|(i, _)| i).find(|&i| {
            spans
                .iter()
                .all(|&(s, q)| i + p.len() <= s || s + q.len() <= i)
        });
        if let Some(i) = free {
            spans.push((i, p.as_str()));
        }
    }
    spans.sort_by_key(|&(i, _)| i);
    let mut kept =
        String::with_capacity(text.len() - spans.iter().map(|s| s.1.len()).sum::<usize>());
    let mut from = 0;
    for &(i, p) in &spans {
        kept.push_str(&text[from..i]);
        from = i + p.len();
    }
    kept.push_str(&text[from..]);
    (kept, spans)
}

/// The whole text again: `kept` with each piece put back at its offset
/// (offsets of the whole text, ascending). A note that does not fit the
/// kept text is damage, reported, never a panic.
pub(super) fn join(kept: &str, cuts: &[(usize, String)]) -> Result<String> {
    let mut whole =
        String::with_capacity(kept.len() + cuts.iter().map(|c| c.1.len()).sum::<usize>());
    let mut from = 0;
    for (at, piece) in cuts {
        let take = at
            .checked_sub(whole.len())
            .and_then(|n| kept.get(from..from + n).map(|s| (s, n)));
        let Some((s, n)) = take else {
            return Err(StoreError::Damaged(format!(
                "a shared piece of a mail does not fit its text at byte {at}"
            )));
        };
        whole.push_str(s);
        whole.push_str(piece);
        from += n;
    }
    whole.push_str(kept.get(from..).unwrap_or(""));
    Ok(whole)
}

/// Store the cuts of mail `id`'s `field`: each piece once, and where the
/// mail uses it.
pub(super) fn record_cuts(
    c: &Connection,
    id: i64,
    field: Field,
    cuts: &[(usize, &str)],
) -> Result<()> {
    for &(at, piece) in cuts {
        let sha = sha256_hex(piece);
        let known = c
            .prepare_cached("SELECT 1 FROM outbox_parts WHERE sha256 = ?1")?
            .query_row([&sha], |_| Ok(()))
            .optional()?
            .is_some();
        if !known {
            c.prepare_cached("INSERT INTO outbox_parts (sha256, deflated) VALUES (?1, ?2)")?
                .execute(params![sha, deflate(piece)?])?;
        }
        c.prepare_cached(
            "INSERT INTO outbox_part_uses (mail, field, at, sha256) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![id, field.as_str(), at_col(at)?, sha])?;
    }
    Ok(())
}

/// The SHA-256 of a piece, in lower-case hex: its key.
fn sha256_hex(piece: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(piece.as_bytes()))
}

/// A piece deflated for keeping.
fn deflate(piece: &str) -> Result<Vec<u8>> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(piece.len() / 4),
        flate2::Compression::fast(),
    );
    z.write_all(piece.as_bytes())
        .and_then(|()| z.finish())
        .map_err(|e| {
            StoreError::Damaged(format!("a shared piece of a mail cannot be deflated: {e}"))
        })
}

/// A kept piece's text again.
fn inflate(deflated: &[u8]) -> Result<String> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::ZlibDecoder::new(deflated)
        .read_to_string(&mut text)
        .map_err(|e| StoreError::Damaged(format!("a shared piece of a mail does not read: {e}")))?;
    Ok(text)
}

fn at_col(at: usize) -> Result<i64> {
    i64::try_from(at).map_err(|_| StoreError::Damaged(format!("an offset too large: {at}")))
}

/// The pieces mail `id` uses in `field`, with their offsets, ascending.
fn uses(c: &Connection, id: i64, field: Field) -> Result<Vec<(usize, String)>> {
    let mut st = c.prepare_cached(
        "SELECT u.at, p.deflated FROM outbox_part_uses AS u JOIN outbox_parts AS p USING (sha256) \
         WHERE u.mail = ?1 AND u.field = ?2 ORDER BY u.at",
    )?;
    let rows = st.query_map(params![id, field.as_str()], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (at, deflated) = row?;
        let at = usize::try_from(at)
            .map_err(|_| StoreError::Damaged(format!("a negative offset: {at}")))?;
        out.push((at, inflate(&deflated)?));
    }
    Ok(out)
}

/// Whether mail `id` uses any shared piece. A database from before
/// migration 13 (read by a command that does not migrate it) has none.
fn has_uses(c: &Connection, id: i64) -> Result<bool> {
    let mut st = match c.prepare_cached("SELECT 1 FROM outbox_part_uses WHERE mail = ?1 LIMIT 1") {
        Err(rusqlite::Error::SqliteFailure(_, Some(m))) if m.starts_with("no such table") => {
            return Ok(false);
        }
        st => st?,
    };
    Ok(st.query_row([id], |_| Ok(())).optional()?.is_some())
}

/// A mail as read from its row, made whole: its shared pieces put back.
pub(super) fn assemble(c: &Connection, mut m: OutboxRow) -> Result<OutboxRow> {
    if !has_uses(c, m.id)? {
        return Ok(m);
    }
    let html = uses(c, m.id, Field::Html)?;
    if !html.is_empty() {
        let kept = m.body_html.as_deref().unwrap_or("");
        m.body_html = Some(join(kept, &html)?);
    }
    let files = uses(c, m.id, Field::Files)?;
    if !files.is_empty() {
        m.attachments = join(&m.attachments, &files)?;
    }
    Ok(m)
}

/// The pieces mail `id` uses in `field` (all fields: `None`) are no longer
/// its: the notes go, and each piece no other mail uses is deleted.
/// Returns the pieces the mail used there.
pub(super) fn release(c: &Connection, id: i64, field: Option<Field>) -> Result<Vec<String>> {
    let mut released = Vec::new();
    for f in [Field::Html, Field::Files] {
        if field.is_none_or(|g| g == f) {
            released.extend(uses(c, id, f)?.into_iter().map(|(_, p)| p));
        }
    }
    let shas: Vec<String> = c
        .prepare_cached(
            "DELETE FROM outbox_part_uses WHERE mail = ?1 AND (?2 IS NULL OR field = ?2) RETURNING sha256",
        )?
        .query_map(params![id, field.map(Field::as_str)], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for sha in shas {
        c.prepare_cached(
            "DELETE FROM outbox_parts WHERE sha256 = ?1 \
             AND NOT EXISTS (SELECT 1 FROM outbox_part_uses WHERE sha256 = ?1)",
        )?
        .execute([sha])?;
    }
    Ok(released)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(c: char) -> String {
        std::iter::repeat_n(c, SHARED_MIN_BYTES).collect()
    }

    #[test]
    fn cut_and_join_give_back_the_same_bytes() {
        let (a, b) = (piece('a'), piece('b'));
        let text = format!("head {b} middle é {a} tail {a}");
        let pieces = vec![a.clone(), b.clone(), "short".to_string()];
        let (kept, cuts) = cut(&text, &pieces);
        assert_eq!(kept, "head  middle é  tail ".to_string() + &a);
        let owned: Vec<(usize, String)> = cuts.iter().map(|&(i, p)| (i, p.to_string())).collect();
        assert_eq!(owned.len(), 2);
        assert_eq!(join(&kept, &owned).unwrap(), text);
    }

    #[test]
    fn a_piece_is_kept_deflated_and_reads_back() {
        let text = format!("{{\"state\": \"{}\"}}", piece('x'));
        let kept = deflate(&text).unwrap();
        assert!(kept.len() * 10 < text.len(), "{} bytes", kept.len());
        assert_eq!(inflate(&kept).unwrap(), text);
        assert!(matches!(inflate(b"not zlib"), Err(StoreError::Damaged(_))));
    }

    #[test]
    fn a_note_that_does_not_fit_is_damage_not_a_panic() {
        let cuts = vec![(50, piece('a'))];
        assert!(matches!(join("short", &cuts), Err(StoreError::Damaged(_))));
    }
}
