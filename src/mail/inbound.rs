//! Incoming mail: raw bytes to what the service needs.
//!
//! The service receives raw RFC 5322 messages (from a Maildir, IMAP or a
//! pipe). [`read`] turns one into an [`Inbound`]: the addresses and
//! threading headers, the decoded subject, the body as text, any text/plain
//! attachments, and what kind of message it is ([`Kind`]) so that
//! auto-replies, mailing-list mail, our own mail come back and bounces are
//! never answered.
//!
//! Mail is read as it really arrives, leniently: a broken MIME structure
//! still gives whatever text is there, a text part with no charset (or a
//! wrong one) is read as UTF-8 when it is valid UTF-8 and as Latin-1
//! otherwise, and an HTML-only message is turned into plain text. Only two
//! things refuse a message whole: it is over [`Limits::max_bytes`]
//! ([`InboundError::TooLarge`], checked before any parsing), or it is not
//! a mail message at all ([`InboundError::Unparseable`]). No input makes
//! [`read`] panic.
//!
//! The body is handed on as the sender wrote it: format=flowed is reported
//! ([`Body::flowed`], [`Body::delsp`]) but not undone, and line endings,
//! quotes and odd characters are left alone. The order language
//! (`orders::clean`) does all of that, for every source of text alike.
//!
//! Which kind a message is follows RFC 3834 and common practice, checked
//! in this order: our own `X-Loop` ([`Kind::Loop`]); a delivery report or a
//! bounce from a mailer daemon ([`Kind::Bounce`]); `Auto-Submitted`,
//! `Precedence`, the `X-Autoreply` family and mailing-list headers
//! ([`Kind::Automatic`]); otherwise [`Kind::Normal`].

use std::borrow::Cow;
use std::panic::{self, AssertUnwindSafe};

use chrono::{DateTime, Utc};
use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::{
    ContentType, Encoding, Message, MessageParser, MessagePart, MimeHeaders, PartType,
};
use thiserror::Error;

/// Width given to the HTML converter: wide enough that no line a player
/// writes is wrapped.
const HTML_WIDTH: usize = 200;

/// How much incoming mail is read at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Messages longer than this many bytes are refused unread.
    pub max_bytes: usize,
}

impl Limits {
    /// The default limit: 1 MiB, far more than any orders need.
    pub const DEFAULT_MAX_BYTES: usize = 1024 * 1024;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: Self::DEFAULT_MAX_BYTES,
        }
    }
}

/// Why a message could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InboundError {
    /// The raw message is longer than [`Limits::max_bytes`]; it was not parsed.
    #[error(
        "message is {size} bytes, over the limit of {limit} bytes; it was not read (raise `max_bytes` to accept larger mail)"
    )]
    TooLarge { size: usize, limit: usize },
    /// The bytes are not a mail message (no header could be read).
    #[error("not a mail message: {0}")]
    Unparseable(String),
}

/// One incoming message, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbound {
    /// The Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// The first From address, bare and lower-cased.
    pub from: Option<String>,
    /// The display name given with the From address.
    pub from_name: Option<String>,
    /// The first Reply-To address, bare and lower-cased.
    pub reply_to: Option<String>,
    /// The Return-Path as delivered: bare and lower-cased, `Some("")` for
    /// the null return path `<>` that bounces and auto-replies carry.
    pub return_path: Option<String>,
    /// Every To address, bare and lower-cased, in order.
    pub to: Vec<String>,
    /// The subject, RFC 2047 words decoded; `""` when there is none.
    pub subject: String,
    /// The first message ID of In-Reply-To, without angle brackets.
    pub in_reply_to: Option<String>,
    /// The message IDs of References, without angle brackets, in order.
    pub references: Vec<String>,
    /// The Date header, when it holds a valid date.
    pub date: Option<DateTime<Utc>>,
    /// The text the sender wrote.
    pub body: Body,
    /// Every text/plain attachment, decoded, in order.
    pub attachments: Vec<TextAttachment>,
    /// What kind of message this is: whether it may be answered.
    pub kind: Kind,
    /// The length of the raw message in bytes.
    pub size: usize,
    /// An HTML body not yet converted (see [`read_deferred`]).
    html: Option<PendingHtml>,
}

/// An HTML body waiting for [`Inbound::convert_html`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingHtml {
    html: String,
    /// The converted text is cut at this many bytes.
    max_bytes: usize,
}

/// The body of a message as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// The text, charset decoded; format=flowed not undone, line endings
    /// as sent.
    pub text: String,
    /// The text/plain part said `format=flowed` (RFC 3676).
    pub flowed: bool,
    /// The text/plain part said `delsp=yes` (RFC 3676).
    pub delsp: bool,
    /// Where the text came from.
    pub source: BodySource,
}

/// Which part of the message the body text was taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodySource {
    /// A text/plain part (or a text part the MIME structure left unnamed).
    Plain,
    /// An HTML part converted to text: the message had no plain text.
    Html,
    /// No text at all.
    None,
}

/// A text/plain attachment, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextAttachment {
    /// The file name the sender gave, if any.
    pub name: Option<String>,
    /// The text, charset decoded.
    pub text: String,
}

/// What kind of message this is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Mail from a person: it may be read for orders and answered.
    Normal,
    /// Auto-replies, vacation notices, bulk and list mail: never answered.
    Automatic { reason: String },
    /// Our own mail come back to us (X-Loop carries our loop_id).
    Loop,
    /// A delivery-failure report (multipart/report; report-type=delivery-status,
    /// or from MAILER-DAEMON/postmaster with a null return path).
    Bounce {
        /// The Message-ID of the message that could not be delivered,
        /// without angle brackets.
        original_message_id: Option<String>,
        /// The address it could not be delivered to, bare and lower-cased.
        failed_recipient: Option<String>,
    },
}

/// Reads one raw message, an HTML body converted to text (see
/// [`read_deferred`] to leave that for later).
///
/// `loop_id` is the value the service puts in the `X-Loop` header of the
/// mail it sends; a message carrying it is [`Kind::Loop`]. An empty
/// `loop_id` matches nothing.
///
/// Refuses only input longer than `limits.max_bytes` (before parsing) and
/// input with no mail headers; anything else gives an [`Inbound`], however
/// broken its MIME structure.
pub fn read(raw: &[u8], limits: &Limits, loop_id: &str) -> Result<Inbound, InboundError> {
    let mut mail = read_deferred(raw, limits, loop_id)?;
    mail.convert_html();
    Ok(mail)
}

/// Reads one raw message as [`read`] does, except that an HTML-only body
/// is not converted yet: [`Inbound::body`] is then empty, with
/// [`BodySource::Html`], until [`Inbound::convert_html`] is called.
/// Converting HTML is the costliest part of reading a message, so the
/// service first decides from the headers whether it will read the body
/// at all (an auto-reply, a bounce or a stranger's mail is never read).
pub fn read_deferred(raw: &[u8], limits: &Limits, loop_id: &str) -> Result<Inbound, InboundError> {
    if raw.len() > limits.max_bytes {
        return Err(InboundError::TooLarge {
            size: raw.len(),
            limit: limits.max_bytes,
        });
    }
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(InboundError::Unparseable(
            "the message is empty: there are no headers and no body".to_string(),
        ));
    }
    // The parsers are third-party code reading hostile input. Should one
    // panic (mail-parser 0.11 has debug assertions that some broken MIME
    // structures trip), the message is read again with its headers only
    // and the rest taken as plain text; should that fail too, it is
    // refused like any other unreadable message. Either way the service
    // goes on.
    let attempt = |parse| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            read_parsed(raw, limits, loop_id, parse)
        }))
    };
    match attempt(Parse::Full).or_else(|_| attempt(Parse::HeadersOnly)) {
        Ok(result) => result,
        Err(_) => Err(InboundError::Unparseable(
            "the mail parser failed on this message".to_string(),
        )),
    }
}

/// How much of the message the mail parser reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parse {
    /// Headers and MIME structure.
    Full,
    /// Headers only; everything after them is the body, as plain text.
    HeadersOnly,
}

fn read_parsed(
    raw: &[u8],
    limits: &Limits,
    loop_id: &str,
    parse: Parse,
) -> Result<Inbound, InboundError> {
    let latin1 = latin1_headers(raw);
    let bytes = latin1.as_deref().unwrap_or(raw);
    let parsed = match parse {
        Parse::Full => MessageParser::default().parse(bytes),
        Parse::HeadersOnly => MessageParser::default().parse_headers(bytes),
    };
    let Some(message) = parsed else {
        return Err(InboundError::Unparseable(
            "no mail headers found (a message starts with lines like `From: ...`)".to_string(),
        ));
    };
    if !has_a_header_field(&message) {
        return Err(InboundError::Unparseable(
            "no mail headers found (a message starts with lines like `From: ...`)".to_string(),
        ));
    }
    let headers = raw_headers(&message);

    let from = message.from().and_then(|a| a.first());
    let return_path = header(&headers, "Return-Path").map(|v| bare_address(&v));
    let (body, html, attachments) = match parse {
        Parse::Full => {
            let (body, html) = body(&message);
            let html = html.map(|html| PendingHtml {
                html,
                max_bytes: limits.max_bytes,
            });
            (body, html, attachments(&message))
        }
        Parse::HeadersOnly => {
            let rest = raw.get(header_end(raw)..).unwrap_or_default();
            let body = Body {
                text: utf8_or_latin1(rest),
                flowed: false,
                delsp: false,
                source: BodySource::Plain,
            };
            (body, None, Vec::new())
        }
    };
    let kind = kind(&message, &headers, return_path.as_deref(), loop_id);

    Ok(Inbound {
        message_id: message.message_id().and_then(bare_id),
        from: from.and_then(|a| a.address.as_deref()).and_then(address),
        from_name: from
            .and_then(|a| a.name.as_deref())
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        reply_to: message
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address.as_deref())
            .and_then(address),
        return_path,
        to: message
            .all_to()
            .flat_map(|list| list.iter())
            .filter_map(|a| a.address.as_deref().and_then(address))
            .collect(),
        subject: message.subject().unwrap_or("").trim().to_string(),
        in_reply_to: message
            .in_reply_to()
            .as_text_list()
            .and_then(|ids| ids.iter().find_map(|id| bare_id(id))),
        references: message
            .references()
            .as_text_list()
            .map(|ids| ids.iter().filter_map(|id| bare_id(id)).collect())
            .unwrap_or_default(),
        date: message
            .date()
            .filter(|d| d.is_valid())
            .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0)),
        body,
        attachments,
        kind,
        size: raw.len(),
        html,
    })
}

impl Inbound {
    /// Whether the body is HTML not yet converted to text (see
    /// [`read_deferred`]).
    pub fn html_pending(&self) -> bool {
        self.html.is_some()
    }

    /// Convert an HTML body left by [`read_deferred`] to text; nothing if
    /// there is none. Bounded whatever the HTML: see [`html_to_text`].
    pub fn convert_html(&mut self) {
        if let Some(p) = self.html.take() {
            self.body.text = html_to_text(&p.html, p.max_bytes);
        }
    }
}

// ---------------------------------------------------------------------------
// Headers

/// Headers should be ASCII, with RFC 2047 words for anything else, or
/// UTF-8 (RFC 6532); old mail software sends Latin-1 bytes instead. When
/// the header block is not valid UTF-8 it is read as Latin-1, so a name
/// like `Müller` survives; the body is left as it is, for its own
/// charset.
fn latin1_headers(raw: &[u8]) -> Option<Vec<u8>> {
    let (head, rest) = raw.split_at_checked(header_end(raw))?;
    if std::str::from_utf8(head).is_ok() {
        return None;
    }
    let mut out: Vec<u8> = head
        .iter()
        .map(|&b| char::from(b))
        .collect::<String>()
        .into_bytes();
    out.extend_from_slice(rest);
    Some(out)
}

/// Where the header block ends: after the line end before the first
/// empty line, or at the end of the message.
fn header_end(raw: &[u8]) -> usize {
    raw.windows(2)
        .enumerate()
        .find_map(|(i, w)| match w {
            b"\n\n" => Some(i + 1),
            b"\n\r" if raw.get(i + 2) == Some(&b'\n') => Some(i + 1),
            _ => None,
        })
        .unwrap_or(raw.len())
}

/// Whether the message starts with at least one real header field: a
/// name of printable ASCII followed by a colon. (The parser also takes a
/// line of binary junk with no colon for a header.)
fn has_a_header_field(message: &Message<'_>) -> bool {
    let Some(root) = message.parts.first() else {
        return false;
    };
    root.headers.iter().any(|h| {
        let name = h.name.as_str();
        let well_formed =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic() && b != b':');
        let has_colon = message
            .raw_message
            .get(h.offset_field as usize..h.offset_start as usize)
            .is_some_and(|field| field.contains(&b':'));
        well_formed && has_colon
    })
}

/// The top-level headers, name and unfolded raw value, in order.
fn raw_headers(message: &Message<'_>) -> Vec<(String, String)> {
    let Some(root) = message.parts.first() else {
        return Vec::new();
    };
    root.headers
        .iter()
        .map(|h| {
            let value = message
                .raw_message
                .get(h.offset_start as usize..h.offset_end as usize)
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            (h.name.as_str().to_string(), unfold(&value))
        })
        .collect()
}

/// A folded header value on one line, trimmed.
fn unfold(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first header of that name (case-insensitive).
fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers_named(headers, name).next().map(str::to_string)
}

fn headers_named<'h>(
    headers: &'h [(String, String)],
    name: &'h str,
) -> impl Iterator<Item = &'h str> + 'h {
    headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A message ID without angle brackets; `None` when empty.
fn bare_id(id: &str) -> Option<String> {
    let id = id.trim();
    let id = id.strip_prefix('<').unwrap_or(id);
    let id = id.strip_suffix('>').unwrap_or(id).trim();
    (!id.is_empty()).then(|| id.to_string())
}

/// An address lower-cased; `None` when empty.
fn address(addr: &str) -> Option<String> {
    let addr = addr.trim();
    (!addr.is_empty()).then(|| addr.to_lowercase())
}

/// The address inside a path such as `<user@example.org>` or
/// `rfc822; user@example.org`, lower-cased; `""` for the null path `<>`.
fn bare_address(value: &str) -> String {
    let value = value.trim();
    let inner = match (value.find('<'), value.rfind('>')) {
        (Some(open), Some(close)) if open < close => &value[open + 1..close],
        _ => value,
    };
    inner.trim().to_lowercase()
}

// ---------------------------------------------------------------------------
// Body and attachments

/// The body, and the HTML to convert when the text is to come from HTML
/// (the body's text is then empty).
fn body(message: &Message<'_>) -> (Body, Option<String>) {
    let texts = || {
        message
            .parts
            .iter()
            .filter(|p| matches!(p.body, PartType::Text(_)) && !is_attachment(p))
    };
    if let Some(part) = texts().find(|p| is_text_plain(p)) {
        let ct = part.content_type();
        let body = Body {
            text: part_text(message, part),
            flowed: ct.is_some_and(|ct| has_param(ct, "format", "flowed")),
            delsp: ct.is_some_and(|ct| has_param(ct, "delsp", "yes")),
            source: BodySource::Plain,
        };
        return (body, None);
    }
    let html = message
        .parts
        .iter()
        .find(|p| matches!(p.body, PartType::Html(_)) && !is_attachment(p));
    if let Some(part) = html {
        let body = Body {
            text: String::new(),
            flowed: false,
            delsp: false,
            source: BodySource::Html,
        };
        return (body, Some(part_text(message, part)));
    }
    // No text/plain and no HTML: take whatever text an unusual or broken
    // structure left (text/enriched; a multipart that could not be split,
    // having no boundary).
    if let Some(part) = texts().next() {
        let body = Body {
            text: part_text(message, part),
            flowed: false,
            delsp: false,
            source: BodySource::Plain,
        };
        return (body, None);
    }
    let unsplit = message.parts.iter().find(|p| {
        matches!(p.body, PartType::Binary(_) | PartType::InlineBinary(_))
            && !is_attachment(p)
            && p.content_type()
                .is_some_and(|ct| ct.ctype().eq_ignore_ascii_case("multipart"))
    });
    if let Some(PartType::Binary(bytes) | PartType::InlineBinary(bytes)) = unsplit.map(|p| &p.body)
    {
        let body = Body {
            text: utf8_or_latin1(bytes),
            flowed: false,
            delsp: false,
            source: BodySource::Plain,
        };
        return (body, None);
    }
    let body = Body {
        text: String::new(),
        flowed: false,
        delsp: false,
        source: BodySource::None,
    };
    (body, None)
}

fn attachments(message: &Message<'_>) -> Vec<TextAttachment> {
    message
        .parts
        .iter()
        .filter(|p| matches!(p.body, PartType::Text(_)) && is_text_plain(p) && is_attachment(p))
        .map(|p| TextAttachment {
            name: p
                .attachment_name()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            text: part_text(message, p),
        })
        .collect()
}

/// text/plain, or no Content-Type at all (which means text/plain).
fn is_text_plain(part: &MessagePart<'_>) -> bool {
    match part.content_type() {
        None => true,
        Some(ct) => {
            ct.ctype().eq_ignore_ascii_case("text")
                && ct
                    .subtype()
                    .is_some_and(|s| s.eq_ignore_ascii_case("plain"))
        }
    }
}

/// Sent as a file: Content-Disposition attachment, or a file name given.
fn is_attachment(part: &MessagePart<'_>) -> bool {
    part.content_disposition()
        .is_some_and(|cd| cd.is_attachment())
        || part.attachment_name().is_some()
}

/// A Content-Type parameter has this value (both case-insensitive).
fn has_param(ct: &ContentType<'_>, name: &str, value: &str) -> bool {
    param(ct, name).is_some_and(|v| v.trim().eq_ignore_ascii_case(value))
}

fn param<'c>(ct: &'c ContentType<'_>, name: &str) -> Option<&'c str> {
    ct.attributes()?
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
        .map(|a| a.value.as_ref())
}

/// The text of a text part.
///
/// The mail parser decodes the declared charset. Where there is none, or
/// one it does not know (it reads those, and UTF-8, as lossy UTF-8), the
/// bytes are read again: as UTF-8 when they are valid UTF-8, else as
/// Latin-1. Where the charset says ASCII or Latin-1 but the bytes are
/// valid UTF-8 with letters beyond ASCII, a mislabelled UTF-8 message is
/// far likelier than Latin-1 text that happens to be valid UTF-8, so the
/// bytes are read as UTF-8.
fn part_text(message: &Message<'_>, part: &MessagePart<'_>) -> String {
    let decoded = match &part.body {
        PartType::Text(t) | PartType::Html(t) => t.as_ref(),
        _ => return String::new(),
    };
    let charset = part
        .content_type()
        .and_then(|ct| param(ct, "charset"))
        .map(|c| c.trim().trim_matches('"'))
        .filter(|c| !c.is_empty());
    let known = charset.is_some_and(|c| charset_decoder(c.as_bytes()).is_some());
    let latin = charset.is_some_and(is_latin1_label);
    if known && !latin {
        return decoded.to_string();
    }
    if !latin && !decoded.contains('\u{FFFD}') {
        // Read as UTF-8 and nothing was lost: the bytes were valid UTF-8.
        return decoded.to_string();
    }
    let Some(bytes) = part_bytes(message, part) else {
        return decoded.to_string();
    };
    match std::str::from_utf8(&bytes) {
        Ok(text) => text.to_string(),
        Err(_) if latin => decoded.to_string(),
        Err(_) => utf8_or_latin1(&bytes),
    }
}

/// Bytes of unknown charset as text: UTF-8 when they are valid UTF-8,
/// else Latin-1 (every byte a character, so nothing is lost).
fn utf8_or_latin1(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// Charset labels that mean ASCII or Latin-1 (which mail software often
/// declares whatever it sends).
fn is_latin1_label(charset: &str) -> bool {
    [
        "us-ascii",
        "ascii",
        "iso-8859-1",
        "iso8859-1",
        "iso_8859-1",
        "latin1",
        "windows-1252",
        "cp1252",
    ]
    .iter()
    .any(|l| charset.eq_ignore_ascii_case(l))
}

/// The bytes of a part with its transfer encoding undone, read from the
/// raw message.
fn part_bytes<'m>(message: &'m Message<'_>, part: &MessagePart<'_>) -> Option<Cow<'m, [u8]>> {
    let raw = message
        .raw_message
        .get(part.offset_body as usize..part.offset_end as usize)?;
    Some(match part.encoding {
        Encoding::None => Cow::Borrowed(raw),
        Encoding::QuotedPrintable => Cow::Owned(quoted_printable(raw)),
        Encoding::Base64 => Cow::Owned(base64(raw)),
    })
}

/// Quoted-printable decoding that never fails: a stray `=` stays as it is.
fn quoted_printable(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        if b != b'=' {
            out.push(b);
            i += 1;
            continue;
        }
        let hex = |j: usize| raw.get(j).and_then(|&c| char::from(c).to_digit(16));
        if let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) {
            // Both digits are below 16, so the byte fits.
            out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
            i += 3;
            continue;
        }
        // A soft line break: `=`, optional blanks, then the line end.
        let mut j = i + 1;
        while raw.get(j).is_some_and(|&c| c == b' ' || c == b'\t') {
            j += 1;
        }
        match (raw.get(j), raw.get(j + 1)) {
            (Some(b'\r'), Some(b'\n')) => i = j + 2,
            (Some(b'\n'), _) => i = j + 1,
            (None, _) => i = j,
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Base64 decoding that never fails: anything outside the alphabet is
/// skipped, and decoding stops at padding.
fn base64(raw: &[u8]) -> Vec<u8> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let mut out = Vec::with_capacity(raw.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in raw {
        if c == b'=' {
            break;
        }
        let Some(v) = value(c) else { continue };
        acc = ((acc << 6) | v) & 0xFFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xFF) as u8);
        }
    }
    out
}

/// HTML to plain text: lines not wrapped, `<pre>` kept as it is, no
/// decoration (no `*bold*`, no link footnotes, no table borders) that
/// could be taken for part of an order; one line for each paragraph,
/// `<div>` or `<br>`, as the sender saw them (see [`tame_html`]).
///
/// Bounded in time and memory whatever the HTML: it is first reduced by
/// [`tame_html`] (a single pass: at most [`HTML_MAX_DEPTH`] levels of
/// nesting and [`HTML_MAX_TAGS`] tags, no attributes, no inline
/// formatting), and the text is cut at `max_bytes`.
pub fn html_to_text(html: &str, max_bytes: usize) -> String {
    HTML_CONVERSIONS.with(|n| n.set(n.get() + 1));
    let tame = tame_html(html);
    let convert = || {
        html2text::config::plain_no_decorate()
            .no_table_borders()
            .allow_width_overflow()
            .string_from_read(tame.as_bytes(), HTML_WIDTH)
            .unwrap_or_else(|_| mail_parser::decoders::html::html_to_text(&tame))
    };
    // Third-party code reading hostile input, as in `read`.
    let mut text = panic::catch_unwind(AssertUnwindSafe(convert))
        .unwrap_or_else(|_| mail_parser::decoders::html::html_to_text(&tame));
    if text.len() > max_bytes {
        let mut cut = max_bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

thread_local! {
    static HTML_CONVERSIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many HTML bodies were converted to text on this thread: lets a test
/// see that a message was answered without its HTML being converted.
pub fn html_conversions() -> u64 {
    HTML_CONVERSIONS.with(std::cell::Cell::get)
}

/// Deepest nesting of block elements (`div`, lists, tables, quotes...)
/// handed to the HTML converter. Deeper ones are left out, their text
/// kept: the converter's work grows with the square of the nesting.
pub const HTML_MAX_DEPTH: usize = 24;

/// Most tags handed to the HTML converter; after that, text only. Orders
/// need a few hundred.
pub const HTML_MAX_TAGS: usize = 20_000;

/// Elements that make lines, kept (without attributes) for the converter.
/// `p` and `h1`..`h6` become `div`: each is one line as the sender wrote
/// it, without the blank line a converter puts after a paragraph.
const HTML_BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "legend",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];

/// Elements whose end tag may be left out (an `<li>` ends at the next
/// `<li>`): kept, but they never nest in themselves, so they are not
/// counted for depth.
const HTML_OPTIONAL_END: &[&str] = &[
    "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "caption",
];

/// Elements whose content is not text: left out with their content.
const HTML_DROPPED: &[&str] = &["script", "style", "title", "template", "textarea"];

/// Blocks of [`HTML_BLOCKS`] that may stand inside an open paragraph:
/// every other block ends it when it starts, and so do `<hr>` and the
/// list items of [`HTML_ITEMS_CLOSE_P`].
const HTML_INSIDE_P: &[&str] = &["legend", "table"];

/// Elements of [`HTML_OPTIONAL_END`] that end an open paragraph when they
/// start.
const HTML_ITEMS_CLOSE_P: &[&str] = &["li", "dt", "dd"];

/// One cheap pass over hostile HTML that keeps what makes lines and
/// drops what costs: the input to the HTML converter.
///
/// - Only elements that make lines are kept, without their attributes:
///   the blocks of [`HTML_BLOCKS`], list items and table cells, `<br>`
///   and `<hr>`. Inline formatting (`<b>`, `<span>`, `<font>`, `<a>`,
///   Outlook's `<o:p>`) and everything unknown go, their text stays.
///   Scripts, styles and the title go with their content, and so do
///   comments.
/// - `<p>` and `<h1>`..`<h6>` become `<div>`: a paragraph is one line,
///   as mail programs that write one `<p>` per line (Outlook,
///   Thunderbird) show it to the sender.
/// - Blocks nested deeper than [`HTML_MAX_DEPTH`] are left out (their
///   text stays); after [`HTML_MAX_TAGS`] tags only text is kept.
/// - Every block is closed explicitly, innermost first, so the HTML
///   parser never reopens elements behind the counting's back.
///
/// Linear in the input; the output is never longer than the input plus a
/// few bytes for each tag.
pub fn tame_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len().min(1 << 20));
    // The blocks open, innermost last (at most HTML_MAX_DEPTH), and how
    // many more were opened and left out.
    let mut open: Vec<&'static str> = Vec::new();
    let mut excess = 0usize;
    let mut tags = 0usize;
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        rest = &rest[lt..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = if let Some(after) = comment.strip_prefix('>') {
                // `<!-->`: an empty comment, as browsers read it.
                after
            } else if let Some(after) = comment.strip_prefix("->") {
                after
            } else {
                comment.find("-->").map_or("", |end| &comment[end + 3..])
            };
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            rest = rest.find('>').map_or("", |end| &rest[end + 1..]);
            continue;
        }
        let closing = rest.as_bytes().get(1) == Some(&b'/');
        let from = if closing { 2 } else { 1 };
        let name_len = rest[from..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'-' | b'_'))
            .count();
        let starts_with_letter = rest
            .as_bytes()
            .get(from)
            .is_some_and(u8::is_ascii_alphabetic);
        if name_len == 0 || !starts_with_letter {
            // Not a tag: a `<` in the text.
            out.push_str("&lt;");
            rest = &rest[1..];
            continue;
        }
        let name = rest[from..from + name_len].to_ascii_lowercase();
        let end = tag_end(rest, from + name_len);
        rest = &rest[end..];
        if !closing && let Some(&dropped) = HTML_DROPPED.iter().find(|d| **d == name) {
            rest = skip_raw_text(rest, dropped);
            continue;
        }
        if tags >= HTML_MAX_TAGS {
            continue;
        }
        let block = HTML_BLOCKS.iter().find(|b| **b == name).copied();
        let optional = HTML_OPTIONAL_END.iter().any(|b| *b == name);
        let line = name == "br" || name == "hr";
        if block.is_none() && !optional && !line {
            continue;
        }
        tags += 1;
        if line {
            if name == "hr" {
                close_p(&mut out, &mut open);
            }
            // `</br>` is read as `<br>` by browsers too.
            out.push('<');
            out.push_str(&name);
            out.push('>');
            continue;
        }
        let closes_p = match block {
            Some(b) => !HTML_INSIDE_P.contains(&b),
            None => HTML_ITEMS_CLOSE_P.contains(&name.as_str()),
        };
        if !closing && closes_p {
            close_p(&mut out, &mut open);
        }
        let Some(block) = block else {
            // A list item or a table cell.
            out.push_str(if closing { "</" } else { "<" });
            out.push_str(&name);
            out.push('>');
            continue;
        };
        if closing {
            // An end tag closes a block left out, if any (innermost first);
            // else the block it names and every block opened inside it.
            // One that names no open block is left out (a `</p>` with no
            // paragraph open makes an empty paragraph, which takes no line).
            if excess > 0 {
                excess -= 1;
            } else if let Some(at) = open.iter().rposition(|b| *b == block) {
                while open.len() > at {
                    if let Some(b) = open.pop() {
                        push_end(&mut out, b);
                    }
                }
            }
            continue;
        }
        if open.len() >= HTML_MAX_DEPTH {
            excess += 1;
            continue;
        }
        open.push(block);
        out.push('<');
        out.push_str(as_div(block));
        out.push('>');
    }
    out.push_str(rest);
    out
}

/// `p` and headings are given to the converter as `div`.
fn as_div(block: &str) -> &str {
    match block {
        "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "div",
        other => other,
    }
}

fn push_end(out: &mut String, block: &str) {
    out.push_str("</");
    out.push_str(as_div(block));
    out.push('>');
}

/// End an open paragraph (and whatever was opened inside it), as a new
/// block does.
fn close_p(out: &mut String, open: &mut Vec<&'static str>) {
    if let Some(at) = open.iter().rposition(|b| *b == "p")
        && !open[at..].contains(&"table")
    {
        while open.len() > at {
            if let Some(b) = open.pop() {
                push_end(out, b);
            }
        }
    }
}

/// Where a tag that starts at the beginning of `tag` ends (after its
/// `>`), `name_end` being where its name ends; quoted attribute values
/// may hold `>`.
fn tag_end(tag: &str, name_end: usize) -> usize {
    let bytes = tag.as_bytes();
    let mut i = name_end;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'>' => return i + 1,
            b'=' => {
                i += 1;
                while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                    i += 1;
                }
                if let Some(&q) = bytes.get(i).filter(|q| matches!(q, b'"' | b'\'')) {
                    i = match bytes[i + 1..].iter().position(|&c| c == q) {
                        Some(close) => i + 1 + close + 1,
                        None => bytes.len(),
                    };
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The text after the end tag of a raw-text element (`</style>`), or
/// nothing if it has none.
fn skip_raw_text<'h>(rest: &'h str, name: &str) -> &'h str {
    let mut from = 0;
    while let Some(at) = rest[from..].find("</") {
        let at = from + at;
        let after = &rest[at + 2..];
        if after
            .get(..name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
        {
            return after.find('>').map_or("", |end| &after[end + 1..]);
        }
        from = at + 2;
    }
    ""
}

// ---------------------------------------------------------------------------
// Kind

fn kind(
    message: &Message<'_>,
    headers: &[(String, String)],
    return_path: Option<&str>,
    loop_id: &str,
) -> Kind {
    let loop_id = loop_id.trim();
    if !loop_id.is_empty()
        && headers_named(headers, "X-Loop").any(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case(loop_id) || bare_address(v).eq_ignore_ascii_case(loop_id)
        })
    {
        return Kind::Loop;
    }
    if is_bounce(message, return_path) {
        // A report that delivery is only delayed (or did succeed) is not a
        // failure: the address still works.
        let actions = delivery_actions(message);
        if !actions.is_empty() && !actions.iter().any(|a| a == "failed") {
            return Kind::Automatic {
                reason: format!("delivery report ({})", actions.join(", ")),
            };
        }
        return Kind::Bounce {
            original_message_id: bounced_message_id(message),
            failed_recipient: failed_recipient(message, headers),
        };
    }
    match automatic(message, headers) {
        Some(reason) => Kind::Automatic { reason },
        None => Kind::Normal,
    }
}

/// The Content-Type of the whole message.
fn root_content_type<'m>(message: &'m Message<'_>) -> Option<&'m ContentType<'m>> {
    message.parts.first().and_then(|p| p.content_type())
}

fn is_report(ct: &ContentType<'_>) -> bool {
    ct.ctype().eq_ignore_ascii_case("multipart")
        && ct
            .subtype()
            .is_some_and(|s| s.eq_ignore_ascii_case("report"))
}

/// A delivery status report, or mail from a mailer daemon with the null
/// return path.
fn is_bounce(message: &Message<'_>, return_path: Option<&str>) -> bool {
    if root_content_type(message)
        .is_some_and(|ct| is_report(ct) && has_param(ct, "report-type", "delivery-status"))
    {
        return true;
    }
    let daemon = message
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address.as_deref())
        .and_then(|a| a.split('@').next())
        .is_some_and(|local| {
            let local = local.trim();
            local.eq_ignore_ascii_case("mailer-daemon") || local.eq_ignore_ascii_case("postmaster")
        });
    daemon && return_path == Some("")
}

/// The Message-ID of the bounced message: from the returned message or
/// its headers if the report has them, else from a `Message-ID:` line of
/// the report's text.
fn bounced_message_id(message: &Message<'_>) -> Option<String> {
    for part in &message.parts {
        let Some(ct) = part.content_type() else {
            continue;
        };
        let sub = ct.subtype().unwrap_or("");
        let returned = (ct.ctype().eq_ignore_ascii_case("message")
            && (sub.eq_ignore_ascii_case("rfc822") || sub.eq_ignore_ascii_case("global")))
            || sub.eq_ignore_ascii_case("rfc822-headers");
        if !returned {
            continue;
        }
        let id = match &part.body {
            PartType::Message(nested) => nested.message_id().and_then(bare_id),
            _ => None,
        };
        if let Some(id) =
            id.or_else(|| field(&contents(part), "Message-ID").and_then(|v| bare_id(&v)))
        {
            return Some(id);
        }
    }
    message
        .parts
        .iter()
        .find_map(|p| field(&contents(p), "Message-ID"))
        .and_then(|v| bare_id(&v))
}

/// The `Action` of each recipient in the delivery status parts (RFC
/// 3464: failed, delayed, delivered, relayed, expanded), lower-cased.
fn delivery_actions(message: &Message<'_>) -> Vec<String> {
    message
        .parts
        .iter()
        .filter(|p| {
            p.content_type().is_some_and(|ct| {
                ct.ctype().eq_ignore_ascii_case("message")
                    && ct.subtype().is_some_and(|s| {
                        s.eq_ignore_ascii_case("delivery-status")
                            || s.eq_ignore_ascii_case("global-delivery-status")
                    })
            })
        })
        .flat_map(|p| fields(&contents(p), "Action"))
        .map(|a| {
            a.split([' ', ';', '('])
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase()
        })
        .collect()
}

/// The address that failed: Original-Recipient (the address as we gave
/// it) or Final-Recipient from the delivery status, else Exim's
/// X-Failed-Recipients header.
fn failed_recipient(message: &Message<'_>, headers: &[(String, String)]) -> Option<String> {
    let texts: Vec<String> = message.parts.iter().map(contents).collect();
    ["Original-Recipient", "Final-Recipient"]
        .iter()
        .find_map(|name| texts.iter().find_map(|t| field(t, name)))
        .map(|v| recipient(&v))
        .or_else(|| {
            header(headers, "X-Failed-Recipients")
                .and_then(|v| v.split(',').next().map(bare_address))
        })
        .filter(|r| !r.is_empty())
}

/// `rfc822; user@example.org` to `user@example.org`.
fn recipient(value: &str) -> String {
    let value = value.trim();
    let address = match value.split_once(';') {
        Some((kind, address)) if kind.trim().eq_ignore_ascii_case("rfc822") => address,
        Some((_, address)) => address,
        None => value,
    };
    bare_address(address)
}

/// A part's contents as text, whatever its type.
fn contents(part: &MessagePart<'_>) -> String {
    match &part.body {
        PartType::Text(t) | PartType::Html(t) => t.to_string(),
        PartType::Binary(b) | PartType::InlineBinary(b) => String::from_utf8_lossy(b).into_owned(),
        PartType::Message(m) => String::from_utf8_lossy(m.raw_message()).into_owned(),
        PartType::Multipart(_) => String::new(),
    }
}

/// The value of the first `Name: value` line in a block of header-like
/// text (delivery status fields, returned headers), unfolded; `None` when
/// absent or empty.
fn field(text: &str, name: &str) -> Option<String> {
    fields(text, name).into_iter().next()
}

/// The values of every `Name: value` line in a block of header-like text,
/// unfolded, leaving out empty ones.
fn fields(text: &str, name: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_start();
        let Some((n, value)) = line.split_once(':') else {
            continue;
        };
        if !n.trim_end().eq_ignore_ascii_case(name) {
            continue;
        }
        let mut value = value.trim().to_string();
        while let Some(next) = lines.next_if(|l| l.starts_with([' ', '\t']) && !l.trim().is_empty())
        {
            value.push(' ');
            value.push_str(next.trim());
        }
        if !value.is_empty() {
            found.push(value);
        }
    }
    found
}

/// Why a message is automatic (RFC 3834 and common practice), if it is.
fn automatic(message: &Message<'_>, headers: &[(String, String)]) -> Option<String> {
    for (name, value) in headers {
        let name = name.as_str();
        // The keyword, without parameters or a comment (RFC 3834 allows both).
        let first = value
            .split([';', '(', ' ', '\t'])
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let is = |n: &str| name.eq_ignore_ascii_case(n);
        let reason = if is("Auto-Submitted") {
            (first != "no").then(|| format!("Auto-Submitted: {value}"))
        } else if is("Precedence") {
            ["bulk", "list", "junk", "auto_reply"]
                .contains(&first.as_str())
                .then(|| format!("Precedence: {value}"))
        } else if is("X-Autoreply") || is("X-Autorespond") {
            Some(format!("{name}: {value}"))
        } else if is("X-Auto-Response-Suppress") {
            value
                .split([',', ' '])
                .any(|v| {
                    ["all", "oof", "autoreply"]
                        .iter()
                        .any(|s| v.trim().eq_ignore_ascii_case(s))
                })
                .then(|| format!("X-Auto-Response-Suppress: {value}"))
        } else if is("List-Id") || is("List-Unsubscribe") {
            Some(format!("mailing list ({name})"))
        } else {
            None
        };
        if reason.is_some() {
            return reason;
        }
    }
    // A report other than a delivery failure (a read receipt, a feedback
    // report) is sent by software too.
    root_content_type(message)
        .filter(|ct| is_report(ct))
        .map(|ct| {
            format!(
                "report ({})",
                param(ct, "report-type").unwrap_or("of unknown type")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_printable_decodes_and_keeps_stray_equals() {
        assert_eq!(quoted_printable(b"a=C2=A0b"), "a\u{a0}b".as_bytes());
        assert_eq!(quoted_printable(b"soft=\r\nbreak"), b"softbreak");
        assert_eq!(quoted_printable(b"soft= \nbreak"), b"softbreak");
        assert_eq!(quoted_printable(b"1+1=2 =ZZ"), b"1+1=2 =ZZ");
        assert_eq!(quoted_printable(b"end="), b"end");
    }

    #[test]
    fn base64_decodes_across_lines_and_skips_noise() {
        assert_eq!(base64(b"TUFS\r\nQ0g=\r\n"), b"MARCH");
        assert_eq!(base64(b"TU!FSQ0g"), b"MARCH");
        assert_eq!(base64(b""), b"");
    }

    #[test]
    fn addresses_and_ids_lose_their_brackets() {
        assert_eq!(bare_address("<>"), "");
        assert_eq!(bare_address(" <Bob@Example.ORG> "), "bob@example.org");
        assert_eq!(recipient("rfc822; Bob@example.org"), "bob@example.org");
        assert_eq!(recipient("RFC822;<bob@example.org>"), "bob@example.org");
        assert_eq!(bare_id("<a@b>"), Some("a@b".to_string()));
        assert_eq!(bare_id("<>"), None);
    }

    #[test]
    fn tame_html_keeps_the_lines_and_drops_the_rest() {
        assert_eq!(
            tame_html(
                "<html><head><title>t</title><style>p {x}</style></head><body><!-- c --><p class=\"a>b\" id='x'><b>MARCH</b> 1 < 2</p><script>if (a</b) {}</script></body></html>"
            ),
            "<div>MARCH 1 &lt; 2</div>"
        );
        // A paragraph ends where the next begins; a stray end is nothing.
        assert_eq!(
            tame_html("<p>a<p>b</p></p><div>c</div>"),
            "<div>a</div><div>b</div><div>c</div>"
        );
        // An end tag closes what was opened inside, innermost first.
        assert_eq!(
            tame_html("<div><ul><li>a<blockquote>b</div>c"),
            "<div><ul><li>a<blockquote>b</blockquote></ul></div>c"
        );
        assert_eq!(tame_html("a<br/>b</br>c<hr>"), "a<br>b<br>c<hr>");
    }

    #[test]
    fn tame_html_bounds_depth_and_tags() {
        let deep = format!("{}x{}", "<div>".repeat(1000), "</div>".repeat(1000));
        let tame = tame_html(&deep);
        assert_eq!(tame.matches("<div>").count(), HTML_MAX_DEPTH);
        assert_eq!(tame.matches("</div>").count(), HTML_MAX_DEPTH);
        let many = "<br>".repeat(HTML_MAX_TAGS + 10);
        assert_eq!(tame_html(&many).matches("<br>").count(), HTML_MAX_TAGS);
        // Unclosed things never swallow more than they should.
        assert_eq!(tame_html("a<!-- b"), "a");
        assert_eq!(tame_html("a<!-->b<!--->c"), "abc");
        assert_eq!(tame_html("<!--[if !mso]><!-->a<!--<![endif]-->b"), "ab");
        assert_eq!(tame_html("a<style>b"), "a");
        assert_eq!(tame_html("a<div title=\"b"), "a<div>");
    }

    #[test]
    fn fields_are_found_and_unfolded() {
        let text = "Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822;\n  bob@example.org\nAction: failed\n";
        assert_eq!(
            field(text, "final-recipient"),
            Some("rfc822; bob@example.org".to_string())
        );
        assert_eq!(field(text, "Original-Recipient"), None);
    }
}
