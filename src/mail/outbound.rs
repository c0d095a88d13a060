//! Outgoing mail: building messages and sending them.
//!
//! An [`Outgoing`] is everything the service decides about one message:
//! who it is from and to, the subject, the text (and an HTML alternative
//! if any), and the headers that thread it and stop mail loops. [`build`]
//! turns it into a checked `lettre::Message`, [`to_bytes`] into the RFC 5322
//! text, and a [`Sender`] made from a [`TransportConfig`] delivers it by
//! writing a file, handing it to `sendmail` or speaking SMTP.
//!
//! Every message we send is marked `Auto-Submitted` (RFC 3834) and carries
//! an `X-Loop` header, so that well-behaved auto-responders leave it alone
//! and the service can recognise its own mail coming back.
//!
//! Text parts keep the exact text: ASCII maps have long lines, trailing
//! spaces and the odd line starting with `From `, none of which survive
//! every mail system when sent as plain 7-bit text. Such text is sent as
//! quoted-printable, or as base64 when a line starts with `From ` (which
//! some mailbox formats rewrite to `>From `). Line ends are sent as CRLF,
//! the canonical form of text in mail.
//!
//! Files go after the text in a multipart/mixed: text files with
//! `charset=utf-8`, encoded as the text is; bytes (a PNG) as base64. A
//! picture the HTML alternative shows goes with it in a multipart/related,
//! named by its Content-ID:
//!
//! ```text
//! multipart/mixed
//!   multipart/alternative
//!     text/plain                  the whole text
//!     multipart/related
//!       text/html                 <img src="cid:..."> above the text in <pre>
//!       image/png                 inline, with its file name
//!   text/plain, application/json  the other files, as attachments
//! ```

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, Datelike, Utc};
use lettre::address::Envelope;
use lettre::message::header::{
    ContentTransferEncoding, ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0,
};
use lettre::message::{Body, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};
use serde::Deserialize;

/// One message the service wants sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// `Dervish <dervish@example.org>` or a bare address.
    pub from: String,
    /// One or more recipients, each written like `from`.
    pub to: Vec<String>,
    pub subject: String,
    /// The plain text part.
    pub text: String,
    /// An HTML alternative, if any (see [`pre_html`]).
    pub html: Option<String>,
    /// Without angle brackets, like `turn-12.sudan@dervish.example.org`;
    /// the caller makes it unique.
    pub message_id: String,
    /// The message this answers, without angle brackets.
    pub in_reply_to: Option<String>,
    /// The thread so far, oldest first, without angle brackets.
    pub references: Vec<String>,
    pub auto_submitted: AutoSubmitted,
    /// Written as `X-Loop: <loop_id>`; usually the service's address.
    pub loop_id: String,
    pub date: DateTime<Utc>,
    /// Files sent with the text (the full log of a long turn, the turn
    /// record a player re-checks the turn with, the drawn map), in order.
    pub attachments: Vec<Attachment>,
}

/// A file sent with a message: text (the full log, the turn record) or
/// bytes (the drawn map as a PNG). A file marked [`Inline`] is shown in
/// the HTML alternative, which names it by its Content-ID
/// ([`html_with_pictures`]); in a message without HTML it goes as a plain
/// attachment.
///
/// Stored in the outbox as JSON: `{name, content_type, text}` for text (the
/// form every earlier version wrote, still read), `{name, content_type,
/// base64, content_id, alt}` for bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(try_from = "StoredAttachment", into = "StoredAttachment")]
pub struct Attachment {
    /// The file name the reader saves it under: letters, digits and
    /// `._-` only (checked when the message is built).
    pub name: String,
    /// `text/plain`, `application/json` (text, sent with `charset=utf-8`)
    /// or `image/png` (bytes).
    pub content_type: String,
    pub content: Content,
    /// Shown inside the HTML alternative, if the message has one.
    pub inline: Option<Inline>,
}

/// What an attachment holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Text, sent so that it decodes to exactly this text (CRLF line ends).
    Text(String),
    /// Bytes, sent as base64.
    Bytes(Vec<u8>),
}

/// How the HTML alternative shows an attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inline {
    /// The Content-ID, without angle brackets (`left@right`); the HTML
    /// names it `cid:...`.
    pub content_id: String,
    /// What the picture shows, for a reader that does not show pictures.
    pub alt: String,
}

impl Attachment {
    /// A text file.
    pub fn text(name: impl Into<String>, content_type: &str, text: impl Into<String>) -> Self {
        Attachment {
            name: name.into(),
            content_type: content_type.into(),
            content: Content::Text(text.into()),
            inline: None,
        }
    }

    /// A file of bytes.
    pub fn bytes(name: impl Into<String>, content_type: &str, bytes: Vec<u8>) -> Self {
        Attachment {
            name: name.into(),
            content_type: content_type.into(),
            content: Content::Bytes(bytes),
            inline: None,
        }
    }

    /// The same file, shown in the HTML alternative.
    pub fn shown_inline(self, content_id: impl Into<String>, alt: impl Into<String>) -> Self {
        Attachment {
            inline: Some(Inline {
                content_id: content_id.into(),
                alt: alt.into(),
            }),
            ..self
        }
    }

    /// The text, for a text file.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            Content::Text(t) => Some(t),
            Content::Bytes(_) => None,
        }
    }

    /// The bytes as they are sent, a little over: base64 (4 bytes for 3,
    /// a line break every 76) for bytes; the text and one byte in ten for
    /// quoted-printable for text; and the part's headers.
    pub fn encoded_len(&self) -> usize {
        let body = match &self.content {
            Content::Text(t) => t.len() + t.len() / 10,
            Content::Bytes(b) => b.len().div_ceil(3) * 4 * 78 / 76 + 2,
        };
        body + 300
    }
}

/// An attachment as the outbox stores it (JSON).
#[derive(serde::Serialize, Deserialize)]
struct StoredAttachment {
    name: String,
    content_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    alt: Option<String>,
}

impl TryFrom<StoredAttachment> for Attachment {
    type Error = String;

    fn try_from(s: StoredAttachment) -> Result<Self, String> {
        use base64::Engine as _;
        let content = match (s.text, s.base64) {
            (Some(t), None) => Content::Text(t),
            (None, Some(b)) => Content::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(b)
                    .map_err(|e| {
                        format!("attachment {}: its base64 does not decode: {e}", s.name)
                    })?,
            ),
            (Some(_), Some(_)) => {
                return Err(format!(
                    "attachment {} has both text and base64; it holds one or the other",
                    s.name
                ));
            }
            (None, None) => {
                return Err(format!("attachment {} has neither text nor base64", s.name));
            }
        };
        let inline = s.content_id.map(|content_id| Inline {
            content_id,
            alt: s.alt.unwrap_or_default(),
        });
        Ok(Attachment {
            name: s.name,
            content_type: s.content_type,
            content,
            inline,
        })
    }
}

impl From<Attachment> for StoredAttachment {
    fn from(a: Attachment) -> Self {
        use base64::Engine as _;
        let (text, base64) = match a.content {
            Content::Text(t) => (Some(t), None),
            Content::Bytes(b) => (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(b)),
            ),
        };
        let (content_id, alt) = match a.inline {
            Some(i) => (Some(i.content_id), Some(i.alt)),
            None => (None, None),
        };
        StoredAttachment {
            name: a.name,
            content_type: a.content_type,
            text,
            base64,
            content_id,
            alt,
        }
    }
}

/// The `Auto-Submitted` header of RFC 3834; every message we send has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoSubmitted {
    /// An answer to a message (`auto-replied`): receipts, help, refusals.
    AutoReplied,
    /// Sent on the service's own account (`auto-generated`): turn results,
    /// reminders.
    AutoGenerated,
}

impl AutoSubmitted {
    /// The header value.
    pub fn as_str(self) -> &'static str {
        match self {
            AutoSubmitted::AutoReplied => "auto-replied",
            AutoSubmitted::AutoGenerated => "auto-generated",
        }
    }
}

/// Why a message could not be built or a sender not made.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error(
        "the {field} address {value:?} is not a valid email address ({reason}); \
         write it as `name@example.org` or `Name <name@example.org>`"
    )]
    Address {
        field: &'static str,
        value: String,
        reason: String,
    },
    #[error("the message has no recipient; give at least one `to` address")]
    NoRecipients,
    #[error(
        "the {field} {value:?} cannot be used: {reason}; \
         use printable ASCII without spaces or angle brackets, like `turn-12@dervish.example.org`"
    )]
    Identifier {
        field: &'static str,
        value: String,
        reason: &'static str,
    },
    #[error("the date {0} cannot be written in a mail header; use a date between 1970 and 9999")]
    Date(DateTime<Utc>),
    #[error("the message could not be built: {0}")]
    Build(#[from] lettre::error::Error),
    #[error("the mail transport could not be set up: {0}")]
    Transport(String),
    #[error("an attachment cannot be sent: {0}")]
    Attachment(String),
}

/// Why a message was not sent, and whether trying again later may work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", if *.transient { " (temporary; try again later)" } else { "" })]
pub struct SendError {
    /// True for failures that may pass: the server is down or busy, a
    /// timeout, a 4xx reply, a full disk. False when sending the same
    /// message again cannot work: a 5xx reply or a message we cannot build.
    pub transient: bool,
    pub message: String,
    /// The receiving server refused the recipient for good (unknown user,
    /// bad address): the address is not worth trying again.
    pub recipient_refused: bool,
    /// The transport itself is down, whatever the message: the server
    /// cannot be reached or does not answer in time (a timeout, a refused
    /// or broken connection, TLS failing, a `421` closing reply), the
    /// folder cannot be written, the sendmail command cannot be started.
    /// The other mails of a pass would fail the same way, each after its
    /// own timeout, so the pass stops sending at the first such failure.
    pub transport_down: bool,
}

impl SendError {
    fn transient(message: impl Into<String>) -> SendError {
        SendError {
            transient: true,
            message: message.into(),
            recipient_refused: false,
            transport_down: false,
        }
    }

    fn permanent(message: impl Into<String>) -> SendError {
        SendError {
            transient: false,
            message: message.into(),
            recipient_refused: false,
            transport_down: false,
        }
    }

    fn down(message: impl Into<String>) -> SendError {
        SendError {
            transport_down: true,
            ..SendError::transient(message)
        }
    }
}

/// Builds the message, checking every address and identifier.
pub fn build(o: &Outgoing) -> Result<Message, OutboundError> {
    let from = parse_mailbox("from", &o.from)?;
    if o.to.is_empty() {
        return Err(OutboundError::NoRecipients);
    }
    check_identifier("message id", &o.message_id, true)?;
    // Threading identifiers come from the player's mail: one that cannot
    // be written in a header (spaces, non-ASCII, brackets) is left out,
    // so a reply always goes, only less well threaded.
    let in_reply_to = o
        .in_reply_to
        .as_ref()
        .filter(|id| check_identifier("in-reply-to id", id, false).is_ok());
    let references: Vec<&String> = o
        .references
        .iter()
        .filter(|id| check_identifier("references id", id, false).is_ok())
        .collect();
    check_identifier("loop id", &o.loop_id, false)?;
    if o.date.timestamp() < 0 || o.date.year() > 9999 {
        return Err(OutboundError::Date(o.date));
    }

    let mut builder = Message::builder()
        .from(from)
        .subject(clean_subject(&o.subject))
        .date(SystemTime::from(o.date))
        .message_id(Some(format!("<{}>", o.message_id)));
    for to in &o.to {
        builder = builder.to(parse_mailbox("to", to)?);
    }
    if let Some(id) = in_reply_to {
        builder = builder.in_reply_to(format!("<{id}>"));
    }
    if !references.is_empty() {
        let refs: Vec<String> = references.iter().map(|id| format!("<{id}>")).collect();
        builder = builder.references(refs.join(" "));
    }
    builder = builder
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            o.auto_submitted.as_str().to_owned(),
        ))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Loop"),
            o.loop_id.clone(),
        ));

    let text = text_body(&o.text);
    let text_part = || {
        SinglePart::builder()
            .header(ContentType::TEXT_PLAIN)
            .body(text.clone())
    };
    // Pictures the HTML shows go with it in a multipart/related; without
    // HTML they are attachments like the others.
    let (inline, attached): (Vec<&Attachment>, Vec<&Attachment>) = o
        .attachments
        .iter()
        .partition(|a| o.html.is_some() && a.inline.is_some());
    let alternative = |html: &String| -> Result<MultiPart, OutboundError> {
        let html_part = SinglePart::builder()
            .header(ContentType::TEXT_HTML)
            .body(Body::new(html.clone()));
        let alt = MultiPart::alternative().singlepart(text_part());
        if inline.is_empty() {
            return Ok(alt.singlepart(html_part));
        }
        let mut related = MultiPart::related().singlepart(html_part);
        for a in &inline {
            related = related.singlepart(attachment_part(a, true)?);
        }
        Ok(alt.multipart(related))
    };
    if !attached.is_empty() {
        // multipart/mixed: the text (or text and HTML) first, then each
        // file, so a reader shows the text and offers the files.
        let mut mixed = match &o.html {
            None => MultiPart::mixed().singlepart(text_part()),
            Some(html) => MultiPart::mixed().multipart(alternative(html)?),
        };
        for a in &attached {
            mixed = mixed.singlepart(attachment_part(a, false)?);
        }
        return Ok(builder.multipart(mixed)?);
    }
    let message = match &o.html {
        // Not `singlepart`, which adds a line break after the body that a
        // reader would take as part of the text.
        None => builder
            .header(MIME_VERSION_1_0)
            .header(ContentType::TEXT_PLAIN)
            .body(text)?,
        Some(html) => builder.multipart(alternative(html)?)?,
    };
    Ok(message)
}

/// One attachment as a MIME part, with its checked file name: text with
/// `charset=utf-8` and encoded to decode exactly, bytes as base64. A part
/// `shown` in the HTML (inside multipart/related) has its Content-ID and
/// `Content-Disposition: inline`, the others `attachment`.
fn attachment_part(a: &Attachment, shown: bool) -> Result<SinglePart, OutboundError> {
    let name_ok = !a.name.is_empty()
        && a.name.len() <= 100
        && !a.name.starts_with('.')
        && a.name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if !name_ok {
        return Err(OutboundError::Attachment(format!(
            "the file name {:?} is not letters, digits and ._- only",
            a.name
        )));
    }
    let (type_text, body) = match &a.content {
        Content::Text(t) => (format!("{}; charset=utf-8", a.content_type), text_body(t)),
        Content::Bytes(b) => (
            a.content_type.clone(),
            Body::new_with_encoding(b.clone(), ContentTransferEncoding::Base64).map_err(|_| {
                OutboundError::Attachment(format!("{} cannot be encoded as base64", a.name))
            })?,
        ),
    };
    let content_type = ContentType::parse(&type_text).map_err(|e| {
        OutboundError::Attachment(format!("{:?} is not a content type: {e}", a.content_type))
    })?;
    let disposition = match a.inline.as_ref().filter(|_| shown) {
        Some(i) => {
            check_identifier("content id", &i.content_id, true)
                .map_err(|e| OutboundError::Attachment(e.to_string()))?;
            lettre::message::Attachment::new_inline_with_name(i.content_id.clone(), a.name.clone())
        }
        None => lettre::message::Attachment::new(a.name.clone()),
    };
    Ok(disposition.body(body, content_type))
}

/// The formatted RFC 5322 message, CRLF line ends.
pub fn to_bytes(o: &Outgoing) -> Result<Vec<u8>, OutboundError> {
    Ok(build(o)?.formatted())
}

/// A minimal HTML document that shows `text` as it is, in a monospace
/// `<pre>` block. Web mail shows plain text in a proportional font, which
/// breaks ASCII maps; this alternative keeps the columns.
pub fn pre_html(text: &str) -> String {
    html_with_pictures(text, &[])
}

/// As [`pre_html`], with the pictures of `files` marked [`Inline`] shown
/// above the text, each by its Content-ID (`<img src="cid:...">`) with its
/// alt text. The text is all there as in [`pre_html`]: a picture only
/// repeats what it says.
pub fn html_with_pictures(text: &str, files: &[Attachment]) -> String {
    let mut out = String::with_capacity(text.len() + 300);
    out.push_str("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body>\n");
    for (a, i) in files
        .iter()
        .filter_map(|a| a.inline.as_ref().map(|i| (a, i)))
    {
        out.push_str("<p><img src=\"cid:");
        escape_into(&mut out, &i.content_id);
        out.push_str("\" alt=\"");
        escape_into(&mut out, &i.alt);
        out.push_str("\" title=\"");
        escape_into(&mut out, &a.name);
        out.push_str("\" style=\"max-width: 100%; height: auto;\"></p>\n");
    }
    out.push_str(
        "<pre style=\"font-family: 'DejaVu Sans Mono', Menlo, Consolas, 'Courier New', monospace; \
         white-space: pre;\">",
    );
    // A newline straight after `<pre>` is dropped by HTML parsers; this one
    // is the one dropped, so text starting with a blank line keeps it.
    out.push('\n');
    escape_into(&mut out, text);
    out.push_str("</pre>\n</body>\n</html>\n");
    out
}

pub use crate::words::escape_html;
use crate::words::escape_html_into as escape_into;

/// How the service sends mail; read from the `[mail.transport]` table (or
/// similar) of the configuration file, with `kind` naming the variant.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum TransportConfig {
    /// Write each message to `<dir>/<message id>.eml` (tests, dry runs, or
    /// a folder another program sends from).
    File { dir: PathBuf },
    /// Hand each message to the local `sendmail` (or the given command).
    Sendmail {
        #[serde(default)]
        command: Option<PathBuf>,
    },
    /// Speak SMTP to a relay.
    Smtp {
        host: String,
        port: u16,
        security: Security,
        #[serde(default)]
        username: Option<String>,
        /// The password itself; better `password_env` or `password_file`,
        /// which keep it out of the configuration file.
        #[serde(default)]
        password: Option<String>,
        /// The environment variable holding the password.
        #[serde(default)]
        password_env: Option<String>,
        /// A file holding the password.
        #[serde(default)]
        password_file: Option<PathBuf>,
        /// A PEM file of extra certificate authorities to trust.
        #[serde(default)]
        ca_file: Option<PathBuf>,
        #[serde(default = "default_timeout_secs")]
        timeout_secs: u64,
    },
}

/// Seconds an SMTP server has to connect and to answer each command: a
/// server that accepts the connection and never answers fails after it.
fn default_timeout_secs() -> u64 {
    20
}

/// How long `sendmail` may run: it hands the message to the local queue
/// and returns at once; one still running after this is stopped, and the
/// failure is temporary (the transport down).
const SENDMAIL_TIMEOUT: Duration = Duration::from_secs(60);

impl fmt::Debug for TransportConfig {
    // By hand, so that the SMTP password never reaches a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportConfig::File { dir } => f.debug_struct("File").field("dir", dir).finish(),
            TransportConfig::Sendmail { command } => f
                .debug_struct("Sendmail")
                .field("command", command)
                .finish(),
            TransportConfig::Smtp {
                host,
                port,
                security,
                username,
                password,
                password_env,
                password_file,
                ca_file,
                timeout_secs,
            } => f
                .debug_struct("Smtp")
                .field("host", host)
                .field("port", port)
                .field("security", security)
                .field("username", username)
                .field("password", &password.as_ref().map(|_| "<hidden>"))
                .field("password_env", password_env)
                .field("password_file", password_file)
                .field("ca_file", ca_file)
                .field("timeout_secs", timeout_secs)
                .finish(),
        }
    }
}

/// How the SMTP connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// Plain text throughout: only for a relay on this machine.
    None,
    /// Plain connection upgraded with STARTTLS, which is required (port 587).
    StartTls,
    /// TLS from the start (port 465).
    Tls,
}

/// Sends messages through the configured transport.
///
/// [`Sender::hand_over`] sends on a thread of its own, so the caller can
/// stop waiting for a server that does not answer: a daemon told to stop
/// stops, and one given a `patience` goes on reading mail while the
/// hand-off ends in the background (its end is taken later with
/// [`Sender::take_ended`]). One hand-off runs at a time.
pub struct Sender {
    inner: Arc<Inner>,
    /// Set once the orphans of an earlier run are removed.
    orphans_removed: std::sync::atomic::AtomicBool,
    /// The hand-off begun and not taken yet.
    handoff: Mutex<Option<Handoff>>,
    /// How long [`Sender::hand_over`] waits for the end of a hand-off
    /// before leaving it running; `None`: until it ends.
    patience: Option<Duration>,
}

/// Where a hand-off's thread leaves its result.
type Slot = Arc<(Mutex<Option<Result<(), SendError>>>, Condvar)>;

/// A hand-off begun on its own thread: the caller's key for it (the
/// outbox row) and where its result comes.
struct Handoff {
    key: i64,
    end: Slot,
}

/// What became of [`Sender::hand_over`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handed {
    /// The hand-off ended: sent, or not.
    Done(Result<(), SendError>),
    /// Still running (the caller was told to stop, or its patience ran
    /// out); [`Sender::take_ended`] gives its end later.
    Running,
}

enum Inner {
    File(PathBuf),
    Sendmail(PathBuf),
    Smtp {
        transport: SmtpTransport,
        /// `host:port`, for error messages.
        server: String,
        username: Option<String>,
    },
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.inner.as_ref() {
            Inner::File(dir) => format!("File({})", dir.display()),
            Inner::Sendmail(command) => format!("Sendmail({})", command.display()),
            Inner::Smtp { server, .. } => format!("Smtp({server})"),
        };
        f.debug_struct("Sender").field("transport", &kind).finish()
    }
}

impl Sender {
    /// Makes the transport; nothing is connected or written yet.
    pub fn new(cfg: &TransportConfig) -> Result<Sender, OutboundError> {
        let inner = match cfg {
            TransportConfig::File { dir } => Inner::File(dir.clone()),
            TransportConfig::Sendmail { command } => {
                Inner::Sendmail(command.clone().unwrap_or_else(|| PathBuf::from("sendmail")))
            }
            TransportConfig::Smtp {
                host,
                port,
                security,
                username,
                password,
                password_env,
                password_file,
                ca_file,
                timeout_secs,
            } => {
                let tls_error = |e: lettre::transport::smtp::Error| {
                    OutboundError::Transport(format!("TLS for {host}: {e}"))
                };
                let tls = match security {
                    Security::None => None,
                    Security::StartTls | Security::Tls => {
                        let mut params = TlsParameters::builder(host.clone());
                        if let Some(path) = ca_file {
                            let pem = fs::read(path).map_err(|e| {
                                OutboundError::Transport(format!(
                                    "cannot read the CA file {}: {e}",
                                    path.display()
                                ))
                            })?;
                            let cert = Certificate::from_pem(&pem).map_err(|e| {
                                OutboundError::Transport(format!(
                                    "the CA file {} is not valid PEM: {e}",
                                    path.display()
                                ))
                            })?;
                            params = params.add_root_certificate(cert);
                        }
                        Some(params.build_rustls().map_err(tls_error)?)
                    }
                };
                let mut builder = SmtpTransport::builder_dangerous(host.as_str())
                    .port(*port)
                    .timeout(Some(Duration::from_secs(*timeout_secs)));
                builder = match (security, tls) {
                    (Security::StartTls, Some(p)) => builder.tls(Tls::Required(p)),
                    (Security::Tls, Some(p)) => builder.tls(Tls::Wrapper(p)),
                    _ => builder.tls(Tls::None),
                };
                let from_elsewhere = crate::mail::read_password(
                    "[outgoing]",
                    password_env.as_deref(),
                    password_file.as_deref(),
                )
                .map_err(OutboundError::Transport)?;
                let password = match (password, from_elsewhere) {
                    (Some(_), Some(_)) => {
                        return Err(OutboundError::Transport(
                            "[outgoing]: give one of `password`, `password_env` and `password_file`"
                                .to_owned(),
                        ));
                    }
                    (p, q) => p.clone().or(q),
                };
                match (username, password) {
                    (Some(user), Some(pass)) => {
                        builder = builder.credentials(Credentials::new(user.clone(), pass));
                    }
                    (None, None) => {}
                    _ => {
                        return Err(OutboundError::Transport(
                            "SMTP needs both `username` and a password, or neither".to_owned(),
                        ));
                    }
                }
                Inner::Smtp {
                    transport: builder.build(),
                    server: format!("{host}:{port}"),
                    username: username.clone(),
                }
            }
        };
        Ok(Sender {
            inner: Arc::new(inner),
            orphans_removed: Default::default(),
            handoff: Mutex::new(None),
            patience: None,
        })
    }

    /// How long [`Sender::hand_over`] waits for a hand-off to end before
    /// leaving it running in the background (`None`: until it ends; the
    /// transport's own timeouts bound it).
    pub fn set_patience(&mut self, patience: Option<Duration>) {
        self.patience = patience;
    }

    /// Send `o` on a thread of its own and wait for the end, looking at
    /// `stop` every tenth of a second: when it says stop, or the patience
    /// runs out, the hand-off is left running and `Running` returned. A
    /// message that cannot be built fails here, for good. While a hand-off
    /// is running (or ended and not taken), no other begins: the answer is
    /// `Running`.
    pub fn hand_over(&self, key: i64, o: &Outgoing, stop: &dyn Fn() -> bool) -> Handed {
        let message = match build(o) {
            Ok(m) => m,
            Err(e) => return Handed::Done(Err(SendError::permanent(e.to_string()))),
        };
        let mut handoff = lock(&self.handoff);
        if handoff.is_some() {
            return Handed::Running;
        }
        let inner = Arc::clone(&self.inner);
        let id = o.message_id.clone();
        let envelope = message.envelope().clone();
        let bytes = message.formatted();
        let end: Slot = Arc::new((Mutex::new(None), Condvar::new()));
        let slot = Arc::clone(&end);
        let spawned = std::thread::Builder::new()
            .name("dervish-send".into())
            .spawn(move || {
                let result = send_bytes(&inner, &id, &envelope, &bytes);
                let (place, ended) = &*slot;
                *lock(place) = Some(result);
                ended.notify_all();
            });
        if let Err(e) = spawned {
            return Handed::Done(Err(SendError::down(format!(
                "cannot start a thread to send mail: {e}"
            ))));
        }
        *handoff = Some(Handoff { key, end });
        drop(handoff);
        self.wait_for(key, stop)
    }

    /// Wait for the running hand-off `key` as [`Sender::hand_over`] says.
    fn wait_for(&self, key: i64, stop: &dyn Fn() -> bool) -> Handed {
        let began = Instant::now();
        loop {
            if let Some((k, result)) = self.take_ended()
                && k == key
            {
                return Handed::Done(result);
            }
            if stop() || self.patience.is_some_and(|p| began.elapsed() >= p) {
                return Handed::Running;
            }
            let Some(end) = lock(&self.handoff).as_ref().map(|h| Arc::clone(&h.end)) else {
                return Handed::Running;
            };
            let (place, ended) = &*end;
            let guard = lock(place);
            if guard.is_none() {
                let _ = ended.wait_timeout(guard, Duration::from_millis(100));
            }
        }
    }

    /// The key of a hand-off begun and not taken yet (running, or ended).
    pub fn running(&self) -> Option<i64> {
        lock(&self.handoff).as_ref().map(|h| h.key)
    }

    /// Whether a hand-off has ended and waits to be taken.
    pub fn has_ended(&self) -> bool {
        lock(&self.handoff)
            .as_ref()
            .is_some_and(|h| lock(&h.end.0).is_some())
    }

    /// The end of a hand-off that has ended, taken: its key and result.
    /// `None` when none was begun or it is still running.
    pub fn take_ended(&self) -> Option<(i64, Result<(), SendError>)> {
        let mut handoff = lock(&self.handoff);
        let h = handoff.as_ref()?;
        let result = lock(&h.end.0).take()?;
        let key = h.key;
        *handoff = None;
        Some((key, result))
    }

    /// Tries the transport without sending anything: SMTP connects, reads
    /// the greeting, says EHLO, starts TLS and logs in as configured, then
    /// quits (a server that never answers fails after the timeout); a
    /// probe file is written in the folder and removed; the sendmail
    /// command must exist and be executable (it is not run: every run may
    /// send). Says what was checked.
    pub fn check(&self) -> Result<String, SendError> {
        match self.inner.as_ref() {
            Inner::File(dir) => {
                fs::create_dir_all(dir).map_err(|e| {
                    SendError::permanent(format!("cannot create {}: {e}", dir.display()))
                })?;
                let probe = dir.join(format!(".dervish-check.{}", std::process::id()));
                fs::write(&probe, b"")
                    .and_then(|()| fs::remove_file(&probe))
                    .map_err(|e| {
                        SendError::permanent(format!("cannot write in {}: {e}", dir.display()))
                    })?;
                Ok(format!("mail is written to {}", dir.display()))
            }
            Inner::Sendmail(command) => {
                let found = if command.components().count() > 1 {
                    Some(command.clone())
                } else {
                    std::env::var_os("PATH").and_then(|paths| {
                        std::env::split_paths(&paths)
                            .map(|d| d.join(command))
                            .find(|p| p.is_file())
                    })
                };
                match found {
                    Some(path) if is_executable(&path) => {
                        Ok(format!("mail is handed to {}", path.display()))
                    }
                    Some(path) if path.is_file() => Err(SendError::permanent(format!(
                        "the sendmail command {} cannot be run (it is not executable)",
                        path.display()
                    ))),
                    _ => Err(SendError::permanent(format!(
                        "the sendmail command {} is not there",
                        command.display()
                    ))),
                }
            }
            Inner::Smtp {
                transport,
                server,
                username,
            } => match transport.test_connection() {
                Ok(true) => Ok(format!(
                    "SMTP {server}: connected{}",
                    username
                        .as_deref()
                        .map(|u| format!(", logged in as {u}"))
                        .unwrap_or_default()
                )),
                Ok(false) => Err(SendError::transient(format!(
                    "SMTP {server}: the server closed the connection"
                ))),
                Err(e) => Err(smtp_error(&e, server, username.as_deref(), &[])),
            },
        }
    }

    /// Sends one message. The error says whether trying again later may
    /// work (connection refused, timeouts, 4xx replies, a full disk) or not
    /// (5xx replies, a bad address or anything else that stops the message
    /// being built).
    pub fn send(&self, o: &Outgoing) -> Result<(), SendError> {
        let message = build(o).map_err(|e| SendError::permanent(e.to_string()))?;
        self.send_raw(&o.message_id, message.envelope(), &message.formatted())
    }

    /// Hands over one formatted message (`bytes`, CRLF line ends) for the
    /// envelope's recipients. `message_id` names the file of the file
    /// transport.
    ///
    /// The message is complete before any of it is handed over: the file
    /// transport writes and syncs a temporary file and renames it into
    /// place; sendmail reads its standard input from a file that holds the
    /// whole message, written and synced first, so a service stopped in
    /// the middle never hands over a cut or empty message. An empty
    /// message is refused outright, as a permanent failure.
    ///
    /// `sendmail` only says that it failed, not why; its failures count as
    /// transient, since they are nearly always a local mail system that
    /// needs fixing rather than a message that can never go.
    pub fn send_raw(
        &self,
        message_id: &str,
        envelope: &Envelope,
        bytes: &[u8],
    ) -> Result<(), SendError> {
        send_bytes(&self.inner, message_id, envelope, bytes)
    }

    /// Whether the message with this id was handed over, where the
    /// transport can tell: the file transport looks for its file. `None`
    /// for sendmail and SMTP, which keep no trace we can read.
    pub fn handed_over(&self, message_id: &str) -> Option<bool> {
        match self.inner.as_ref() {
            Inner::File(dir) => Some(dir.join(file_name(message_id)).is_file()),
            Inner::Sendmail(_) | Inner::Smtp { .. } => None,
        }
    }

    /// Whether this transport takes mail in batches ([`Sender::stage_all`],
    /// then [`Sender::commit_staged`]): the file transport,
    /// whose cost is making each file durable.
    pub fn batches(&self) -> bool {
        matches!(self.inner.as_ref(), Inner::File(_))
    }

    /// Write each of `mails` for the file transport as a temporary file of
    /// `staged`, not yet synced nor in place: nothing is handed over until
    /// [`Sender::commit_staged`]. The messages are built side by side on
    /// every core (rayon), then written in order. Returns each mail's
    /// result; other transports fail here, for good.
    pub fn stage_all(&self, staged: &mut Staged, mails: &[Outgoing]) -> Vec<Result<(), SendError>> {
        use rayon::prelude::*;
        let Inner::File(dir) = self.inner.as_ref() else {
            let e = SendError::permanent("only the file transport takes mail in batches");
            return mails.iter().map(|_| Err(e.clone())).collect();
        };
        let built: Vec<Result<Vec<u8>, SendError>> = mails
            .par_iter()
            .map(|o| {
                let bytes = build(o)
                    .map_err(|e| SendError::permanent(e.to_string()))?
                    .formatted();
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    return Err(SendError::permanent(
                        "the message is empty; an empty message is never handed over",
                    ));
                }
                Ok(bytes)
            })
            .collect();
        built
            .into_iter()
            .zip(mails)
            .map(|(bytes, o)| {
                staged
                    .write(dir, &o.message_id, &bytes?)
                    .map_err(|e| SendError::down(format!("writing to {}: {e}", dir.display())))
            })
            .collect()
    }

    /// Hand over every message of `staged` at once: their files made
    /// durable (synced a few at a time side by side, so the file system
    /// writes them together), then renamed into place, then the folder
    /// synced. A message is in place only once its whole file is on disk;
    /// a stop in the middle leaves temporary files, which
    /// [`Sender::remove_orphans`] removes, and nothing half-written under
    /// a message's name. On failure no file of the batch is in place,
    /// unless the failure is in the last step (syncing the folder).
    pub fn commit_staged(&self, staged: Staged) -> Result<(), SendError> {
        let Inner::File(dir) = self.inner.as_ref() else {
            return Ok(());
        };
        staged
            .commit(dir)
            .map_err(|e| SendError::down(format!("writing to {}: {e}", dir.display())))
    }

    /// [`Sender::remove_orphans`], the first time only: the service calls
    /// it at the start of every pass, and it works at the first.
    pub fn remove_orphans_once(&self) -> usize {
        if self.orphans_removed.swap(true, Ordering::Relaxed) {
            0
        } else {
            self.remove_orphans()
        }
    }

    /// Removes the temporary files a stopped service left behind: the
    /// file transport's half-written `.NAME.PID.N.tmp` files and check
    /// probes in its folder, and sendmail's message files in the system's
    /// temporary folder, of processes that are no longer running. Returns
    /// how many were removed.
    pub fn remove_orphans(&self) -> usize {
        let (dir, prefix) = match self.inner.as_ref() {
            Inner::File(dir) => (dir.clone(), "."),
            Inner::Sendmail(_) => (std::env::temp_dir(), SENDMAIL_TMP_PREFIX),
            Inner::Smtp { .. } => return 0,
        };
        let Ok(entries) = fs::read_dir(&dir) else {
            return 0;
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if !name.starts_with(prefix) {
                continue;
            }
            let Some(pid) = temp_file_pid(name) else {
                continue;
            };
            if pid == std::process::id() || process_alive(pid) {
                continue;
            }
            if fs::remove_file(entry.path()).is_ok() {
                tracing::info!(file = %entry.path().display(), "removed a temporary file left by a stopped service");
                removed += 1;
            }
        }
        removed
    }
}

/// Messages the file transport has written and not yet handed over
/// ([`Sender::stage_all`], [`Sender::commit_staged`]).
#[derive(Default)]
pub struct Staged {
    /// Each message's open temporary file and its name, and the name it
    /// takes once in place.
    files: Vec<(fs::File, PathBuf, String)>,
}

impl Staged {
    /// How many messages wait in the batch.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no message waits.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn write(&mut self, dir: &Path, message_id: &str, bytes: &[u8]) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        let (tmp, name) = temp_name(dir, message_id);
        let written = fs::File::create(&tmp).and_then(|mut file| {
            file.write_all(bytes)?;
            Ok(file)
        });
        match written {
            Ok(file) => {
                self.files.push((file, tmp, name));
                Ok(())
            }
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    /// Sync every file (a few threads side by side, so that the file
    /// system commits them together), rename each into place, sync the
    /// folder.
    fn commit(self, dir: &Path) -> io::Result<()> {
        let result = sync_all_of(&self.files).and_then(|()| {
            for (_, tmp, name) in &self.files {
                fs::rename(tmp, dir.join(name))?;
            }
            Ok(())
        });
        if result.is_err() {
            for (_, tmp, _) in &self.files {
                let _ = fs::remove_file(tmp);
            }
        }
        result?;
        // Make the renames durable; not every system can sync a folder.
        if let Ok(folder) = fs::File::open(dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    }
}

/// How many files are synced side by side.
const SYNC_THREADS: usize = 8;

/// Sync each of `files`, [`SYNC_THREADS`] at a time: the first error, if
/// any.
fn sync_all_of(files: &[(fs::File, PathBuf, String)]) -> io::Result<()> {
    if files.len() < 2 {
        return files.iter().try_for_each(|(f, _, _)| f.sync_all());
    }
    let share = files.len().div_ceil(SYNC_THREADS);
    std::thread::scope(|scope| {
        let running: Vec<_> = files
            .chunks(share)
            .map(|part| scope.spawn(move || part.iter().try_for_each(|(f, _, _)| f.sync_all())))
            .collect();
        running.into_iter().try_for_each(|r| {
            r.join()
                .unwrap_or_else(|_| Err(io::Error::other("a thread syncing mail files failed")))
        })
    })
}

/// A temporary file's path in `dir` for the message `message_id`, and
/// the name the message takes once in place.
fn temp_name(dir: &Path, message_id: &str) -> (PathBuf, String) {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = file_name(message_id);
    let tmp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    (tmp, name)
}

/// The start of the names of sendmail's message files (in the system's
/// temporary folder): `.dervish-sendmail.PID.N.tmp`.
/// Hand one message over to the transport (on the caller's thread).
fn send_bytes(
    inner: &Inner,
    message_id: &str,
    envelope: &Envelope,
    bytes: &[u8],
) -> Result<(), SendError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(SendError::permanent(
            "the message is empty; an empty message is never handed over",
        ));
    }
    match inner {
        Inner::File(dir) => write_file(dir, message_id, bytes)
            .map_err(|e| SendError::down(format!("writing to {}: {e}", dir.display()))),
        Inner::Sendmail(command) => sendmail(command, envelope, bytes),
        // A 5xx reply is final, and so is what lettre calls a client
        // error: the server lacks something the message or the
        // settings need (STARTTLS, an authentication mechanism,
        // SMTPUTF8). Everything else (4xx replies, refused or broken
        // connections, timeouts, TLS failures) may pass.
        Inner::Smtp {
            transport,
            server,
            username,
        } => transport
            .send_raw(envelope, bytes)
            .map(|_| ())
            .map_err(|e| {
                let to: Vec<String> = envelope.to().iter().map(ToString::to_string).collect();
                smtp_error(&e, server, username.as_deref(), &to)
            }),
    }
}

/// A lock taken even when a thread panicked holding it (the data is a
/// result slot or a hand-off, whole at every moment).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

const SENDMAIL_TMP_PREFIX: &str = ".dervish-sendmail.";

/// The process id in the name of one of our temporary files:
/// `.NAME.PID.N.tmp` (the file transport, sendmail) or
/// `.dervish-check.PID` (a check probe).
fn temp_file_pid(name: &str) -> Option<u32> {
    if let Some(pid) = name.strip_prefix(".dervish-check.") {
        return pid.parse().ok();
    }
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = stem.rsplit('.');
    let n = parts.next()?;
    let pid = parts.next()?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether a process runs with this id (Linux: `/proc/PID`; elsewhere a
/// file of another process is taken to be alive and kept).
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Hands a message to sendmail as `sendmail -i -f FROM -- TO...`, with the
/// whole message, written and synced to a temporary file first, as its
/// standard input. The file is unlinked before sendmail starts, so nothing
/// is left behind; should the service stop while sendmail runs, sendmail
/// still reads the whole message, never a part or nothing.
fn sendmail(command: &Path, envelope: &Envelope, bytes: &[u8]) -> Result<(), SendError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "{SENDMAIL_TMP_PREFIX}{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let file = (|| {
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        let _ = fs::remove_file(&path);
        file.write_all(bytes)?;
        file.sync_all()?;
        io::Seek::rewind(&mut file)?;
        Ok::<_, io::Error>(file)
    })();
    let file = file.map_err(|e| {
        let _ = fs::remove_file(&path);
        SendError::down(format!(
            "sendmail: cannot write the message to {}: {e}",
            path.display()
        ))
    })?;
    let mut cmd = std::process::Command::new(command);
    cmd.arg("-i");
    if let Some(from) = envelope.from() {
        cmd.arg("-f").arg(from);
    }
    cmd.arg("--")
        .args(envelope.to().iter().map(ToString::to_string))
        .stdin(file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| SendError::down(format!("sendmail: cannot run {}: {e}", command.display())))?;
    let said = child.stderr.take().map(|mut err| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = io::Read::read_to_end(&mut err, &mut bytes);
            bytes
        })
    });
    let Some(status) = wait_bounded(&mut child, SENDMAIL_TIMEOUT) else {
        // What it said is not waited for: a process it left may hold the pipe.
        return Err(SendError::down(format!(
            "sendmail: {} did not finish within {} s and was stopped",
            command.display(),
            SENDMAIL_TIMEOUT.as_secs()
        )));
    };
    let said = said
        .and_then(|t| t.join().ok())
        .map(|b| {
            String::from_utf8_lossy(&b)
                .trim()
                .chars()
                .take(500)
                .collect::<String>()
        })
        .unwrap_or_default();
    let said = if said.is_empty() {
        String::new()
    } else {
        format!(": {said}")
    };
    sendmail_status(command, status, &said)
}

/// Wait for `child` at most `limit`; past it, kill it and reap it. `None`:
/// killed (or not to be waited for).
fn wait_bounded(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let began = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if began.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// What sendmail's exit says, by the `sysexits.h` convention MTAs share:
/// 0 is sent; 75 (`EX_TEMPFAIL`) and a sendmail killed by a signal are
/// temporary, tried again; any other status is a refusal of this message
/// (no such user, bad data, ...), final.
fn sendmail_status(
    command: &Path,
    status: std::process::ExitStatus,
    said: &str,
) -> Result<(), SendError> {
    let text = format!("sendmail: {} {status}{said}", command.display());
    match status.code() {
        Some(0) => Ok(()),
        Some(EX_TEMPFAIL) | None => Err(SendError::transient(text)),
        Some(_) => Err(SendError::permanent(text)),
    }
}

/// `EX_TEMPFAIL` of `sysexits.h`: a temporary failure, try again later.
const EX_TEMPFAIL: i32 = 75;

fn smtp_error(
    e: &lettre::transport::smtp::Error,
    server: &str,
    username: Option<&str>,
    to: &[String],
) -> SendError {
    let code: Option<u16> = e.status().and_then(|c| c.to_string().parse().ok());
    let text = e.to_string();
    let sender_problem = text.contains(" 5.1.7")
        || text.contains(" 5.1.8")
        || text.to_lowercase().contains("sender address");
    let recipient_refused = !sender_problem
        && (matches!(code, Some(550 | 551 | 553))
            || (matches!(code, Some(500..=599)) && text.contains(" 5.1.")));
    match code {
        Some(530 | 534 | 535) => SendError {
            transient: true,
            message: format!(
                "SMTP {server}: the login as {} was refused ({text}); check `username` and the password in [outgoing]",
                username.unwrap_or("(no username)")
            ),
            recipient_refused: false,
            transport_down: false,
        },
        _ if recipient_refused => SendError {
            transient: false,
            message: format!(
                "SMTP {server}: the recipient {} was refused ({text})",
                to.join(", ")
            ),
            recipient_refused: true,
            transport_down: false,
        },
        _ => SendError {
            transient: !(e.is_permanent() || e.is_client()),
            message: format!("SMTP {server}: {text}"),
            recipient_refused: false,
            // No reply at all (a timeout, a refused or broken connection,
            // TLS), or the server closing the session (421).
            transport_down: !(e.is_permanent() || e.is_client())
                && (code.is_none() || code == Some(421)),
        },
    }
}

fn parse_mailbox(field: &'static str, value: &str) -> Result<Mailbox, OutboundError> {
    value
        .trim()
        .parse()
        .map_err(|e: lettre::address::AddressError| OutboundError::Address {
            field,
            value: value.to_owned(),
            reason: e.to_string(),
        })
}

/// Message ids and the loop id go into headers as they are (inside angle
/// brackets for ids), so they must be plain printable ASCII. Our own
/// message id must also have the `left@right` form of RFC 5322; ids of
/// other people's messages are taken as they come.
fn check_identifier(field: &'static str, value: &str, need_at: bool) -> Result<(), OutboundError> {
    let reason = if value.is_empty() {
        Some("it is empty")
    } else if !value.bytes().all(|b| b.is_ascii_graphic()) {
        Some("it has spaces, control characters or non-ASCII letters")
    } else if value.contains(['<', '>']) {
        Some("it has angle brackets (they are added when the header is written)")
    } else if need_at
        && !value
            .split_once('@')
            .is_some_and(|(left, right)| !left.is_empty() && !right.is_empty())
    {
        Some("it needs the form `left@right`")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(OutboundError::Identifier {
            field,
            value: value.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// A subject is one line: line breaks and other control characters become
/// spaces.
fn clean_subject(subject: &str) -> String {
    subject
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The text part, encoded so that decoding gives back exactly the text
/// (with CRLF line ends).
fn text_body(text: &str) -> Body {
    let from_line = text.lines().any(|l| l.starts_with("From "));
    let trailing_space = text.lines().any(|l| l.ends_with(' ') || l.ends_with('\t'));
    let chosen = Body::new(text.to_owned());
    let encoding = match chosen.encoding() {
        ContentTransferEncoding::SevenBit | ContentTransferEncoding::QuotedPrintable
            if from_line =>
        {
            ContentTransferEncoding::Base64
        }
        ContentTransferEncoding::SevenBit if trailing_space => {
            ContentTransferEncoding::QuotedPrintable
        }
        _ => return chosen,
    };
    // Quoted-printable and base64 take any text, so lettre never refuses
    // them; were it to, its own choice still carries the text.
    Body::new_with_encoding(text.to_owned(), encoding).unwrap_or(chosen)
}

/// The file name for a message id: letters, digits and `@._+=-` are kept,
/// every other byte is written `%XX`, so two ids never share a file and no
/// name starts with a dot.
fn file_name(message_id: &str) -> String {
    let mut name = String::with_capacity(message_id.len() + 4);
    for (i, b) in message_id.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric() || b"@_+=-".contains(&b) || (b == b'.' && i > 0);
        if keep {
            name.push(char::from(b));
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    name.push_str(".eml");
    name
}

/// Writes `<dir>/<message id>.eml` atomically: a temporary file in the same
/// folder, synced, then renamed over any earlier copy.
fn write_file(dir: &Path, message_id: &str, bytes: &[u8]) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let (tmp, name) = temp_name(dir, message_id);
    let written = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, dir.join(&name))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    // Make the rename itself durable; not every system can sync a folder.
    if let Ok(folder) = fs::File::open(dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_ids_apart() {
        assert_eq!(file_name("turn-3.sudan@x.org"), "turn-3.sudan@x.org.eml");
        assert_eq!(file_name("a/b"), "a%2Fb.eml");
        assert_ne!(file_name("a/b"), file_name("a_b"));
        assert_eq!(file_name(".hidden@x"), "%2Ehidden@x.eml");
        assert_eq!(file_name("../up@x"), "%2E.%2Fup@x.eml");
    }

    #[test]
    fn temporary_file_names_give_their_process() {
        assert_eq!(temp_file_pid(".a.b@x.org.eml.123.4.tmp"), Some(123));
        assert_eq!(temp_file_pid(".dervish-sendmail.77.0.tmp"), Some(77));
        assert_eq!(temp_file_pid(".dervish-check.55"), Some(55));
        assert_eq!(temp_file_pid(".hidden"), None);
        assert_eq!(temp_file_pid("a@x.org.eml"), None);
        assert_eq!(temp_file_pid(".notes.tmp"), None);
    }

    #[test]
    fn identifiers_are_checked() {
        assert!(check_identifier("message id", "a@b", true).is_ok());
        assert!(check_identifier("message id", "ab", true).is_err());
        assert!(check_identifier("in-reply-to id", "ab", false).is_ok());
        assert!(check_identifier("in-reply-to id", "<a@b>", false).is_err());
        assert!(check_identifier("in-reply-to id", "a b@c", false).is_err());
        assert!(check_identifier("loop id", "", false).is_err());
    }
}
