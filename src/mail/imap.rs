//! Reading mail from an IMAP folder: a provider's account or a host's own
//! Dovecot.
//!
//! - The connection is TLS from the start (port 993), plain upgraded with
//!   STARTTLS (143), or plain, which is only for a server on this machine.
//!   Certificates are checked (see [`super::tls`]).
//! - Messages are found by UID. The service keeps `UIDVALIDITY:UID` of the
//!   last message handled, and the next pass asks only for higher UIDs, so
//!   nothing is read twice or skipped. When the server's UIDVALIDITY
//!   changes (the folder was recreated) the whole folder is read again;
//!   messages already handled are recognised by their Message-ID.
//! - A message is fetched with `BODY.PEEK[]`, which leaves it unread, and
//!   is flagged `\Seen` or moved to another folder only once the service
//!   has committed it.
//! - [`watch`] keeps a second connection in IDLE and wakes the service when
//!   mail arrives, reconnecting with backoff when the connection drops. The
//!   service still polls as well, so a server without IDLE, or a
//!   notification lost in a reconnection, only delays a message.

use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use imap::types::UnsolicitedResponse;
use serde::Deserialize;

use super::outbound::Security;
use super::tls::{self, Stream};
use super::{Fetched, HEAD_BYTES, InboxError, Waiting};

/// The `[inbox.imap]` table of the configuration.
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    /// Leave out for the usual port: 993 with `tls`, 143 otherwise.
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default = "default_security")]
    pub security: Security,
    pub username: String,
    /// The environment variable holding the password.
    #[serde(default)]
    pub password_env: Option<String>,
    /// A file holding the password (only the owner should read it).
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    /// The folder orders arrive in.
    #[serde(default = "default_folder")]
    pub folder: String,
    /// Wait for new mail with IDLE (if the server offers it).
    #[serde(default = "yes")]
    pub idle: bool,
    /// What happens to a message once handled: flagged `seen`, or `move`d
    /// to `move_to`.
    #[serde(default)]
    pub processed: Processed,
    /// The folder handled messages go to with `processed = "move"`
    /// (created if missing).
    #[serde(default = "default_move_to")]
    pub move_to: String,
    /// A PEM file of extra certificate authorities to trust (a server with
    /// a private CA).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// Seconds to wait for the server to answer.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// The longest wait, in seconds, between attempts to reconnect.
    #[serde(default = "default_reconnect_max")]
    pub reconnect_max_seconds: u64,
    /// IDLE is renewed this often (RFC 2177 asks for less than 29 minutes).
    #[serde(default = "default_idle_refresh")]
    pub idle_refresh_minutes: u64,
}

fn default_security() -> Security {
    Security::Tls
}
fn default_folder() -> String {
    "INBOX".into()
}
fn yes() -> bool {
    true
}
fn default_move_to() -> String {
    "Dervish".into()
}
fn default_timeout() -> u64 {
    60
}
fn default_reconnect_max() -> u64 {
    300
}
fn default_idle_refresh() -> u64 {
    25
}

/// What is done with a message once the service has committed it.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Processed {
    /// Flag it `\Seen` and leave it where it is.
    #[default]
    Seen,
    /// Move it to the `move_to` folder.
    Move,
}

impl fmt::Debug for ImapConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapConfig")
            .field("host", &self.host)
            .field("port", &self.port())
            .field("security", &self.security)
            .field("username", &self.username)
            .field("password_env", &self.password_env)
            .field("password_file", &self.password_file)
            .field("folder", &self.folder)
            .field("idle", &self.idle)
            .field("processed", &self.processed)
            .field("move_to", &self.move_to)
            .finish_non_exhaustive()
    }
}

impl ImapConfig {
    /// The port, or the usual one for the security chosen.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(match self.security {
            Security::Tls => 993,
            Security::StartTls | Security::None => 143,
        })
    }

    /// Check the settings and read the password.
    pub fn settings(&self) -> Result<ImapSettings, String> {
        if self.host.trim().is_empty() {
            return Err("[inbox.imap] needs `host`".into());
        }
        if self.username.is_empty() {
            return Err("[inbox.imap] needs `username`".into());
        }
        if self.security == Security::None && !is_loopback(&self.host) {
            return Err(format!(
                "[inbox.imap] security = \"none\" would send the password to {} in plain text; \
                 it is only for a server on this machine (localhost, 127.0.0.1, ::1): \
                 use \"tls\" or \"starttls\"",
                self.host
            ));
        }
        let password = super::read_password(
            "[inbox.imap]",
            self.password_env.as_deref(),
            self.password_file.as_deref(),
        )?
        .ok_or_else(|| {
            "[inbox.imap] needs the password: set `password_env` (an environment variable) \
             or `password_file`"
                .to_owned()
        })?;
        let tls = match self.security {
            Security::None => None,
            Security::Tls | Security::StartTls => {
                Some(tls::client_config(self.ca_file.as_deref())?)
            }
        };
        Ok(ImapSettings {
            config: self.clone(),
            password,
            tls,
        })
    }
}

/// Checked settings with the password read: what a connection needs.
#[derive(Clone)]
pub struct ImapSettings {
    pub config: ImapConfig,
    password: String,
    tls: Option<Arc<rustls::ClientConfig>>,
}

impl fmt::Debug for ImapSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapSettings")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

type Session = imap::Session<Stream>;

impl ImapSettings {
    /// `imap://user@host:port/folder`, for logs and the cursor key.
    pub fn url(&self) -> String {
        let c = &self.config;
        format!("imap://{}@{}:{}/{}", c.username, c.host, c.port(), c.folder)
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.config.timeout_secs.max(1))
    }

    /// Connect and log in; the folder is not selected yet.
    pub fn connect(&self) -> Result<Session, InboxError> {
        let c = &self.config;
        let port = c.port();
        let err = |what: &str, e: &dyn fmt::Display| {
            InboxError(format!("IMAP {}:{port}: {what}: {e}", c.host))
        };
        let tcp =
            connect_tcp(&c.host, port, self.timeout()).map_err(|e| err("cannot connect", &e))?;
        let stream = match (c.security, &self.tls) {
            (Security::None, _) => Stream::plain(tcp, self.timeout()),
            (Security::Tls, Some(cfg)) => {
                Stream::tls(tcp, &c.host, Arc::clone(cfg), self.timeout())
                    .map_err(|e| err("TLS", &e))?
            }
            (Security::StartTls, Some(cfg)) => {
                let tcp = starttls(tcp).map_err(|e| err("STARTTLS", &e))?;
                Stream::tls(tcp, &c.host, Arc::clone(cfg), self.timeout())
                    .map_err(|e| err("TLS", &e))?
            }
            (_, None) => return Err(InboxError("IMAP: TLS is not set up".into())),
        };
        let mut client = imap::Client::new(stream);
        if c.security == Security::StartTls {
            // The greeting came before STARTTLS; none follows it.
            client.greeting_read = true;
        } else {
            let greeting = client.read_greeting().map_err(|e| err("no greeting", &e))?;
            if !greeting.starts_with(b"* OK") && !greeting.starts_with(b"* PREAUTH") {
                return Err(err(
                    "the server refused the connection",
                    &String::from_utf8_lossy(&greeting).trim(),
                ));
            }
        }
        client.login(&c.username, &self.password).map_err(|(e, _)| {
            InboxError(format!(
                "IMAP {}:{port}: login as {} refused: {e} (check `username` and the password)",
                c.host, c.username
            ))
        })
    }
}

impl ImapSettings {
    /// Connect, log in and open the folder, and say what was found: the
    /// number of messages, how many are unread, and whether the server
    /// has IDLE. Changes nothing.
    pub fn check(&self) -> Result<String, InboxError> {
        let mut s = self.connect()?;
        let folder = &self.config.folder;
        let fail =
            |what: &str, e: imap::error::Error| InboxError(format!("{}: {what}: {e}", self.url()));
        let idle = s
            .capabilities()
            .map_err(|e| fail("CAPABILITY", e))?
            .has_str("IDLE");
        let mailbox = s
            .examine(folder)
            .map_err(|e| fail(&format!("cannot open the folder {folder:?}"), e))?;
        let unseen = s.uid_search("UNSEEN").map_err(|e| fail("SEARCH", e))?.len();
        let _ = s.logout();
        Ok(format!(
            "{}: logged in; {} messages, {unseen} unread; {}",
            self.url(),
            mailbox.exists,
            if idle {
                "IDLE: yes, new mail is answered at once"
            } else {
                "IDLE: no, the folder is polled every [run] poll_seconds"
            }
        ))
    }
}

/// A name or address of this machine.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn connect_tcp(host: &str, port: u16, timeout: Duration) -> io::Result<TcpStream> {
    let mut last = None;
    for addr in (host, port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(tcp) => {
                // Commands are short lines each waiting for an answer:
                // send them at once rather than in Nagle's batches.
                tcp.set_nodelay(true)?;
                tcp.set_read_timeout(Some(timeout))?;
                tcp.set_write_timeout(Some(timeout))?;
                return Ok(tcp);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address")))
}

/// RFC 2595: read the greeting, ask for STARTTLS, and hand back the socket
/// for the TLS handshake. Read byte by byte, so that nothing the server
/// sends after its answer is taken from the socket.
fn starttls(mut tcp: TcpStream) -> io::Result<TcpStream> {
    let line = |tcp: &mut TcpStream| -> io::Result<String> {
        let mut reader = BufReader::with_capacity(1, &*tcp);
        let mut s = String::new();
        reader.read_line(&mut s)?;
        if s.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        Ok(s)
    };
    let greeting = line(&mut tcp)?;
    if !greeting.starts_with("* OK") {
        return Err(io::Error::other(format!(
            "unexpected greeting: {}",
            greeting.trim()
        )));
    }
    tcp.write_all(b"s0 STARTTLS\r\n")?;
    loop {
        let l = line(&mut tcp)?;
        if l.starts_with("s0 OK") {
            return Ok(tcp);
        }
        if l.starts_with("s0 ") {
            return Err(io::Error::other(format!(
                "the server does not offer STARTTLS: {}",
                l.trim()
            )));
        }
    }
}

/// The IMAP folder as the service's inbox. The connection is opened when
/// first needed and again after any failure.
pub struct ImapInbox {
    settings: ImapSettings,
    session: Option<Session>,
    /// UIDVALIDITY of the selected folder.
    validity: u32,
    /// Whether the server has MOVE (RFC 6851) and UIDPLUS (RFC 4315).
    can_move: bool,
    uidplus: bool,
    /// What the last `pending` found, and bodies fetched ahead of `read`.
    queue: Vec<Waiting>,
    fetched: std::collections::HashMap<String, Vec<u8>>,
}

/// Messages fetched in one command: at most this many...
const BATCH_MESSAGES: usize = 50;
/// ...and this many bytes.
const BATCH_BYTES: usize = 8 * 1024 * 1024;

impl ImapInbox {
    pub fn new(settings: ImapSettings) -> ImapInbox {
        ImapInbox {
            settings,
            session: None,
            validity: 0,
            can_move: false,
            uidplus: false,
            queue: Vec::new(),
            fetched: std::collections::HashMap::new(),
        }
    }

    /// Connect and select the folder, unless that is done already.
    fn ensure_open(&mut self) -> Result<(), InboxError> {
        if self.session.is_none() {
            let mut s = self.settings.connect()?;
            let folder = &self.settings.config.folder;
            let mailbox = s
                .select(folder)
                .map_err(|e| InboxError(format!("IMAP: cannot open the folder {folder:?}: {e}")))?;
            self.validity = mailbox.uid_validity.unwrap_or(0);
            if self.settings.config.processed == Processed::Move {
                let caps = s
                    .capabilities()
                    .map_err(|e| InboxError(format!("IMAP: CAPABILITY: {e}")))?;
                self.can_move = caps.has_str("MOVE");
                self.uidplus = caps.has_str("UIDPLUS");
                let to = &self.settings.config.move_to;
                // An error here most likely means it exists already; a real
                // problem shows when the first message is moved.
                let _ = s.create(to);
            }
            self.session = Some(s);
        }
        Ok(())
    }

    /// Run `f` on the session; on failure the connection is dropped, to be
    /// opened afresh next time.
    fn with_session<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut Session, u32) -> imap::error::Result<T>,
    ) -> Result<T, InboxError> {
        self.ensure_open()?;
        let validity = self.validity;
        let Some(session) = self.session.as_mut() else {
            return Err(InboxError("IMAP: no session".into()));
        };
        match f(session, validity) {
            Ok(v) => Ok(v),
            Err(e) => {
                self.session = None;
                self.fetched.clear();
                Err(InboxError(format!(
                    "IMAP {}: {what}: {e}",
                    self.settings.config.host
                )))
            }
        }
    }
}

/// `UIDVALIDITY:UID`.
fn parse_cursor(c: &str) -> Option<(u32, u32)> {
    let (v, u) = c.split_once(':')?;
    Some((v.parse().ok()?, u.parse().ok()?))
}

impl super::Inbox for ImapInbox {
    fn describe(&self) -> String {
        self.settings.url()
    }

    fn cursor_key(&self) -> Option<String> {
        Some(format!("inbox:{}", self.settings.url()))
    }

    fn pending(&mut self, cursor: Option<&str>) -> Result<Vec<Waiting>, InboxError> {
        self.queue.clear();
        self.fetched.clear();
        let processed = self.settings.config.processed;
        // NOOP lets the server tell of mail that arrived since the folder
        // was selected, and shows whether a connection kept from the last
        // pass still stands; if the server closed it meanwhile (an idle
        // timeout, a restart), connect afresh at once.
        let had_session = self.session.is_some();
        if let Err(e) = self.with_session("checking the connection", |s, _| s.noop())
            && !had_session
        {
            return Err(e);
        }
        let (uids, validity) = self.with_session("searching the folder", |s, validity| {
            let query = match cursor.and_then(parse_cursor) {
                Some((v, last)) if v == validity => format!("UID {}:*", last.saturating_add(1)),
                // The folder was recreated: read it all; what was handled
                // already is known by its Message-ID.
                Some(_) => "ALL".to_owned(),
                // The first time: in a folder where handled mail stays,
                // only what nobody has read yet.
                None if processed == Processed::Seen => "UNSEEN".to_owned(),
                None => "ALL".to_owned(),
            };
            let mut uids: Vec<u32> = s.uid_search(&query)?.into_iter().collect();
            uids.sort_unstable();
            // `n:*` always names the last message, even below n.
            if let Some((v, last)) = cursor.and_then(parse_cursor)
                && v == validity
            {
                uids.retain(|&u| u > last);
            }
            Ok((uids, validity))
        })?;
        if uids.is_empty() {
            return Ok(Vec::new());
        }
        // The sizes, asked for in UID sets of bounded length: a server
        // refuses a command line over its limit (Dovecot: 64 KiB), and ten
        // thousand waiting messages listed one by one pass it. And at most
        // SIZES_PER_FETCH messages a command: the client holds a whole
        // answer parsed (about 2 KB a message), so one `1:40000` set cost
        // 90 MB with a backlog of 40,000 (docs/performance.md).
        let sets = size_sets(&uids);
        let sizes: std::collections::HashMap<u32, usize> =
            self.with_session("reading sizes", |s, _| {
                let mut sizes = std::collections::HashMap::new();
                for set in &sets {
                    let fetches = s.uid_fetch(set, "(UID RFC822.SIZE)")?;
                    sizes.extend(
                        fetches
                            .iter()
                            .filter_map(|f| Some((f.uid?, f.size? as usize))),
                    );
                }
                Ok(sizes)
            })?;
        self.queue = uids
            .into_iter()
            .map(|uid| Waiting {
                id: uid.to_string(),
                size: sizes.get(&uid).copied(),
                cursor: Some(format!("{validity}:{uid}")),
            })
            .collect();
        Ok(self.queue.clone())
    }

    /// Messages within the size limit are fetched several at a time (the
    /// one asked for and those after it in the queue, up to 50 or 8 MiB),
    /// which saves a round trip for each; a message over the limit is
    /// fetched alone, only its beginning.
    fn read(&mut self, w: &Waiting, max_bytes: usize) -> Result<Fetched, InboxError> {
        if let Some(bytes) = self.fetched.remove(&w.id) {
            return Ok(Fetched {
                size: w.size.unwrap_or(bytes.len()).max(bytes.len()),
                bytes,
            });
        }
        let partial = w.size.is_some_and(|s| s > max_bytes);
        let (set, query) = if partial {
            (w.id.clone(), format!("(UID BODY.PEEK[]<0.{HEAD_BYTES}>)"))
        } else {
            let mut ids = vec![w.id.clone()];
            let mut bytes = w.size.unwrap_or(0);
            let after = self
                .queue
                .iter()
                .skip_while(|q| q.id != w.id)
                .skip(1)
                .map_while(|q| q.size.filter(|&s| s <= max_bytes).map(|s| (q, s)));
            for (q, size) in after {
                if ids.len() >= BATCH_MESSAGES || bytes + size > BATCH_BYTES {
                    break;
                }
                ids.push(q.id.clone());
                bytes += size;
            }
            (ids.join(","), "(UID BODY.PEEK[])".to_owned())
        };
        let bodies: Vec<(String, Vec<u8>)> = self.with_session("fetching messages", |s, _| {
            let fetches = s.uid_fetch(&set, &query)?;
            Ok(fetches
                .iter()
                .filter_map(|f| Some((f.uid?.to_string(), f.body()?.to_vec())))
                .collect())
        })?;
        self.fetched.extend(bodies);
        let Some(bytes) = self.fetched.remove(&w.id) else {
            return Err(InboxError(format!(
                "IMAP: message UID {} is no longer in the folder",
                w.id
            )));
        };
        Ok(Fetched {
            size: w.size.unwrap_or(bytes.len()).max(bytes.len()),
            bytes,
        })
    }

    fn close(&mut self) {
        if let Some(mut s) = self.session.take() {
            let _ = s.logout();
        }
    }

    fn done(&mut self, w: &Waiting) -> Result<(), InboxError> {
        let id = w.id.clone();
        match self.settings.config.processed {
            Processed::Seen => self.with_session("flagging a message seen", |s, _| {
                s.uid_store(&id, "+FLAGS.SILENT (\\Seen)").map(|_| ())
            }),
            Processed::Move => {
                let to = self.settings.config.move_to.clone();
                let (can_move, uidplus) = (self.can_move, self.uidplus);
                self.with_session("moving a message", |s, _| {
                    if can_move {
                        s.uid_mv(&id, &to)
                    } else {
                        // Copy, then delete; with UIDPLUS only this message
                        // is expunged.
                        s.uid_copy(&id, &to)?;
                        s.uid_store(&id, "+FLAGS.SILENT (\\Seen \\Deleted)")?;
                        if uidplus {
                            s.uid_expunge(&id).map(|_| ())
                        } else {
                            s.expunge().map(|_| ())
                        }
                    }
                })
            }
        }
    }
}

/// What the IDLE watcher tells the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wake {
    /// New mail may be waiting (mail arrived, or the watcher reconnected
    /// and mail may have come meanwhile).
    Mail,
    /// The watcher lost its connection and will try again in `retry`.
    Down { error: String, retry: Duration },
    /// The server has no IDLE: the service polls.
    NoIdle,
}

/// Start a thread that keeps a connection in IDLE on the folder and sends
/// [`Wake::Mail`] when mail arrives. It reconnects with backoff (1 s,
/// doubling, up to `reconnect_max_seconds`) after any failure, and stops
/// when the receiving end of `wake` is dropped or the server has no IDLE.
pub fn watch(
    settings: ImapSettings,
    wake: mpsc::Sender<Wake>,
) -> io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("imap-idle".into())
        .spawn(move || watch_loop(&settings, &wake))
}

fn watch_loop(settings: &ImapSettings, wake: &mpsc::Sender<Wake>) {
    let max = Duration::from_secs(settings.config.reconnect_max_seconds.max(1));
    let mut backoff = Duration::from_secs(1);
    loop {
        // A panic inside the IMAP library must not end the watching.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            idle_session(settings, wake)
        }));
        let error = match outcome {
            Ok(IdleEnd::ReceiverGone) => return,
            Ok(IdleEnd::NoIdle) => {
                let _ = wake.send(Wake::NoIdle);
                return;
            }
            Ok(IdleEnd::Failed { error, was_up }) => {
                if was_up {
                    backoff = Duration::from_secs(1);
                }
                error
            }
            Err(_) => "the IMAP library failed".to_owned(),
        };
        tracing::warn!(error = %error, retry_secs = backoff.as_secs(), "IMAP IDLE connection lost");
        if wake
            .send(Wake::Down {
                error,
                retry: backoff,
            })
            .is_err()
        {
            return;
        }
        std::thread::sleep(backoff);
        backoff = (backoff * 2).min(max);
    }
}

enum IdleEnd {
    ReceiverGone,
    NoIdle,
    Failed { error: String, was_up: bool },
}

fn idle_session(settings: &ImapSettings, wake: &mpsc::Sender<Wake>) -> IdleEnd {
    let failed = |error: String, was_up| IdleEnd::Failed { error, was_up };
    let mut s = match settings.connect() {
        Ok(s) => s,
        Err(e) => return failed(e.0, false),
    };
    match s.capabilities() {
        Ok(caps) if !caps.has_str("IDLE") => return IdleEnd::NoIdle,
        Ok(_) => {}
        Err(e) => return failed(e.to_string(), false),
    }
    if let Err(e) = s.select(&settings.config.folder) {
        return failed(format!("cannot open the folder: {e}"), false);
    }
    // Connected: mail may have come while we were away.
    if wake.send(Wake::Mail).is_err() {
        return IdleEnd::ReceiverGone;
    }
    tracing::debug!(url = %settings.url(), "IMAP IDLE watching");
    let refresh = Duration::from_secs(settings.config.idle_refresh_minutes.clamp(1, 29) * 60);
    loop {
        let mut arrived = false;
        let result = s.idle().timeout(refresh).keepalive(true).wait_while(|r| {
            if matches!(
                r,
                UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
            ) {
                arrived = true;
                false
            } else {
                true
            }
        });
        if let Err(e) = result {
            return failed(e.to_string(), true);
        }
        // News that came while IDLE was being ended counts too.
        let more = s
            .take_all_unsolicited()
            .any(|r| matches!(r, UnsolicitedResponse::Exists(_)));
        if (arrived || more) && wake.send(Wake::Mail).is_err() {
            return IdleEnd::ReceiverGone;
        }
    }
}

/// The longest UID set sent in one command, in characters.
const MAX_SET_CHARS: usize = 4000;

/// The most messages whose sizes one command asks for.
const SIZES_PER_FETCH: usize = 500;

/// The UID sets the sizes of `uids` (sorted) are asked for in: at most
/// [`SIZES_PER_FETCH`] messages and [`MAX_SET_CHARS`] characters each.
fn size_sets(uids: &[u32]) -> Vec<String> {
    uids.chunks(SIZES_PER_FETCH)
        .flat_map(|chunk| uid_sets(chunk, MAX_SET_CHARS))
        .collect()
}

/// `uids` (sorted) as IMAP UID sets, runs written `a:b`, each at most
/// `max` characters long.
fn uid_sets(uids: &[u32], max: usize) -> Vec<String> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &u in uids {
        match runs.last_mut() {
            Some((_, end)) if end.checked_add(1) == Some(u) => *end = u,
            _ => runs.push((u, u)),
        }
    }
    let mut sets = Vec::new();
    let mut cur = String::new();
    for (a, b) in runs {
        let part = if a == b {
            a.to_string()
        } else {
            format!("{a}:{b}")
        };
        if !cur.is_empty() && cur.len() + 1 + part.len() > max {
            sets.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(',');
        }
        cur.push_str(&part);
    }
    if !cur.is_empty() {
        sets.push(cur);
    }
    sets
}

#[cfg(test)]
mod tests {
    /// A backlog of 40,000 in a row is asked for 500 at a time, not as
    /// one `1:40000` whose parsed answer the client holds whole.
    #[test]
    fn sizes_are_asked_for_a_bounded_number_at_a_time() {
        let uids: Vec<u32> = (1..=40_000u32).collect();
        let sets = super::size_sets(&uids);
        assert_eq!(sets.len(), 80);
        let mut covered = 0;
        for set in &sets {
            for run in set.split(',') {
                let (a, b) = run.split_once(':').unwrap_or((run, run));
                let (a, b): (u32, u32) = (a.parse().unwrap(), b.parse().unwrap());
                assert!(b - a < super::SIZES_PER_FETCH as u32, "{set}");
                covered += b - a + 1;
            }
        }
        assert_eq!(covered, 40_000);
    }

    /// Ten thousand waiting messages make several short UID sets, runs
    /// written as ranges, every UID in exactly one.
    #[test]
    fn uid_sets_stay_short_and_cover_every_uid() {
        let uids: Vec<u32> = (1..=30_000u32).filter(|u| u % 3 != 0).collect();
        let sets = super::uid_sets(&uids, super::MAX_SET_CHARS);
        assert!(sets.len() > 1);
        assert!(sets.iter().all(|s| s.len() <= super::MAX_SET_CHARS));
        let mut back = Vec::new();
        for set in &sets {
            for part in set.split(',') {
                match part.split_once(':') {
                    Some((a, b)) => {
                        back.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap())
                    }
                    None => back.push(part.parse::<u32>().unwrap()),
                }
            }
        }
        assert_eq!(back, uids);
        assert_eq!(
            super::uid_sets(&[1, 2, 3, 7], 100),
            vec!["1:3,7".to_string()]
        );
        assert!(super::uid_sets(&[], 100).is_empty());
    }

    use super::*;
    use crate::mail::imap_script::serve;

    /// A scripted IMAP server for one connection: answers LOGIN,
    /// CAPABILITY (with IDLE or not), SELECT and IDLE, then runs `during`
    /// while the client idles, then closes the connection.
    fn fake_server(
        idle: bool,
        during: impl FnOnce(&mut TcpStream) + Send + 'static,
    ) -> (u16, std::thread::JoinHandle<()>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let (tcp, _) = listener.accept().unwrap();
            let mut during = Some(during);
            serve(tcp, "* OK fake server ready\r\n", |tag, command, _, tcp| {
                Some(match command {
                    "LOGIN" => format!("{tag} OK logged in\r\n"),
                    "CAPABILITY" => format!(
                        "* CAPABILITY IMAP4rev1{}\r\n{tag} OK done\r\n",
                        if idle { " IDLE" } else { "" }
                    ),
                    "SELECT" => format!(
                        "* 0 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n{tag} OK [READ-WRITE] selected\r\n"
                    ),
                    "IDLE" => {
                        tcp.write_all(b"+ idling\r\n").unwrap();
                        if let Some(f) = during.take() {
                            f(tcp);
                        }
                        return None;
                    }
                    _ => format!("{tag} OK\r\n"),
                })
            });
        });
        (port, handle)
    }

    fn settings_for(port: u16) -> ImapSettings {
        ImapSettings {
            config: ImapConfig {
                host: "127.0.0.1".into(),
                port: Some(port),
                security: Security::None,
                username: "game".into(),
                password_env: None,
                password_file: None,
                folder: "INBOX".into(),
                idle: true,
                processed: Processed::Seen,
                move_to: "Dervish".into(),
                ca_file: None,
                timeout_secs: 5,
                reconnect_max_seconds: 1,
                idle_refresh_minutes: 25,
            },
            password: "pw".into(),
            tls: None,
        }
    }

    #[test]
    fn a_server_without_idle_leaves_the_service_to_poll() {
        let (port, server) = fake_server(false, |_| {});
        let (tx, rx) = mpsc::channel();
        let watcher = watch(settings_for(port), tx).unwrap();
        let wake = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(wake, Wake::NoIdle);
        watcher.join().unwrap();
        drop(server);
    }

    #[test]
    fn new_mail_in_idle_wakes_the_service_and_a_dropped_connection_is_retried() {
        let (port, server) = fake_server(true, |tcp| {
            std::thread::sleep(Duration::from_millis(100));
            tcp.write_all(b"* 1 EXISTS\r\n").unwrap();
            // The client ends IDLE with DONE; then the server goes away.
            std::thread::sleep(Duration::from_millis(300));
        });
        let (tx, rx) = mpsc::channel();
        let _watcher = watch(settings_for(port), tx).unwrap();
        let next = || rx.recv_timeout(Duration::from_secs(10)).unwrap();
        // Connected: a pass for what came meanwhile; then the new mail.
        assert_eq!(next(), Wake::Mail);
        assert_eq!(next(), Wake::Mail);
        // The server closed the connection: the watcher says so and will
        // try again after a second.
        match next() {
            Wake::Down { retry, .. } => assert_eq!(retry, Duration::from_secs(1)),
            other => panic!("expected Down, got {other:?}"),
        }
        server.join().unwrap();
        // Nobody listens any more: the next attempt fails to connect.
        match next() {
            Wake::Down { error, .. } => assert!(error.contains("cannot connect"), "{error}"),
            other => panic!("expected Down, got {other:?}"),
        }
        drop(rx);
    }

    /// A server that records the commands it gets; `caps` is its
    /// CAPABILITY line, and it holds three messages, UIDs 5, 6 and 7.
    fn recording_server(
        caps: &'static str,
    ) -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            let (tcp, _) = listener.accept().unwrap();
            serve(tcp, "* OK ready\r\n", |tag, command, line, _| {
                let words: Vec<&str> = line.split_whitespace().collect();
                let mut command = command.to_owned();
                if command == "UID" {
                    command = format!("UID {}", words.get(2).copied().unwrap_or("").to_uppercase());
                }
                let entry = if command == "UID FETCH" && line.contains("BODY") {
                    if line.contains("BODY.PEEK[]") {
                        "UID FETCH BODY.PEEK".to_owned()
                    } else {
                        "UID FETCH BODY".to_owned()
                    }
                } else {
                    command.clone()
                };
                seen.lock().unwrap().push(entry);
                let body = "Subject: x\r\n\r\nhello\r\n";
                let reply = match command.as_str() {
                    "CAPABILITY" => format!("* CAPABILITY {caps}\r\n{tag} OK\r\n"),
                    "SELECT" => format!(
                        "* 1 EXISTS\r\n* OK [UIDVALIDITY 3] v\r\n{tag} OK [READ-WRITE] s\r\n"
                    ),
                    "UID SEARCH" => format!("* SEARCH 5 6 7\r\n{tag} OK\r\n"),
                    "UID FETCH" => {
                        let set = words.get(3).copied().unwrap_or("");
                        let mut out = String::new();
                        // Runs are written `a:b`.
                        let uids: Vec<String> = set
                            .split(',')
                            .flat_map(|part| match part.split_once(':') {
                                Some((a, b)) => {
                                    let a: u32 = a.parse().unwrap_or(0);
                                    let b: u32 = b.parse().unwrap_or(0);
                                    (a..=b).map(|u| u.to_string()).collect::<Vec<_>>()
                                }
                                None => vec![part.to_string()],
                            })
                            .collect();
                        for (n, uid) in uids.iter().enumerate() {
                            if line.contains("RFC822.SIZE") {
                                out += &format!(
                                    "* {} FETCH (UID {uid} RFC822.SIZE {})\r\n",
                                    n + 1,
                                    body.len()
                                );
                            } else {
                                out += &format!(
                                    "* {} FETCH (UID {uid} BODY[] {{{}}}\r\n{body})\r\n",
                                    n + 1,
                                    body.len()
                                );
                            }
                        }
                        format!("{out}{tag} OK\r\n")
                    }
                    "LOGOUT" => format!("* BYE\r\n{tag} OK\r\n"),
                    _ => format!("{tag} OK\r\n"),
                };
                Some(reply)
            });
        });
        (port, log)
    }

    fn move_one(caps: &'static str) -> Vec<String> {
        use super::super::Inbox;
        let (port, log) = recording_server(caps);
        let mut settings = settings_for(port);
        settings.config.processed = Processed::Move;
        let mut inbox = ImapInbox::new(settings);
        let waiting = inbox.pending(None).unwrap();
        assert_eq!(waiting.len(), 3);
        assert_eq!(waiting[0].cursor.as_deref(), Some("3:5"));
        let f = inbox.read(&waiting[0], 1000).unwrap();
        assert!(f.bytes.ends_with(b"hello\r\n"));
        inbox.done(&waiting[0]).unwrap();
        inbox.close();
        log.lock().unwrap().clone()
    }

    /// The last `n` commands before LOGOUT.
    fn before_logout(log: &[String], n: usize) -> Vec<&str> {
        let end = log.len().saturating_sub(1);
        log[end.saturating_sub(n)..end]
            .iter()
            .map(String::as_str)
            .collect()
    }

    #[test]
    fn handled_mail_is_moved_with_move_or_copied_and_expunged_without() {
        let with_move = move_one("IMAP4rev1 MOVE UIDPLUS");
        assert!(with_move.contains(&"UID MOVE".to_owned()), "{with_move:?}");
        assert!(!with_move.contains(&"EXPUNGE".to_owned()));
        let uidplus = move_one("IMAP4rev1 UIDPLUS");
        assert_eq!(
            before_logout(&uidplus, 3),
            ["UID COPY", "UID STORE", "UID EXPUNGE"],
            "{uidplus:?}"
        );
        let plain = move_one("IMAP4rev1");
        assert_eq!(
            before_logout(&plain, 3),
            ["UID COPY", "UID STORE", "EXPUNGE"],
            "{plain:?}"
        );
        // The message is only ever peeked at: reading it does not mark it
        // read before it is stored.
        assert!(
            plain.contains(&"UID FETCH BODY.PEEK".to_owned()),
            "{plain:?}"
        );
        assert!(!plain.contains(&"UID FETCH BODY".to_owned()), "{plain:?}");
    }

    #[test]
    fn bodies_are_fetched_several_at_a_time() {
        use super::super::Inbox;
        let (port, log) = recording_server("IMAP4rev1");
        let mut inbox = ImapInbox::new(settings_for(port));
        let waiting = inbox.pending(None).unwrap();
        for w in &waiting {
            let f = inbox.read(w, 1000).unwrap();
            assert!(f.bytes.ends_with(b"hello\r\n"));
            inbox.done(w).unwrap();
        }
        inbox.close();
        let log = log.lock().unwrap().clone();
        let fetches = log.iter().filter(|c| *c == "UID FETCH BODY.PEEK").count();
        let flags = log.iter().filter(|c| *c == "UID STORE").count();
        assert_eq!((fetches, flags), (1, 3), "{log:?}");
        // Over the size limit: each alone, and only its beginning.
        let (port, log) = recording_server("IMAP4rev1");
        let mut inbox = ImapInbox::new(settings_for(port));
        let waiting = inbox.pending(None).unwrap();
        for w in &waiting {
            inbox.read(w, 5).unwrap();
        }
        inbox.close();
        let log = log.lock().unwrap().clone();
        let fetches = log.iter().filter(|c| *c == "UID FETCH BODY.PEEK").count();
        assert_eq!(fetches, 3, "{log:?}");
    }

    #[test]
    fn plain_text_is_only_for_this_machine() {
        assert!(is_loopback("localhost") && is_loopback("127.0.0.1"));
        assert!(is_loopback("127.0.0.2") && is_loopback("::1") && is_loopback("[::1]"));
        assert!(!is_loopback("imap.example.org") && !is_loopback("10.0.0.1"));
        let cfg: ImapConfig = toml::from_str(
            "host = \"imap.example.org\"\nusername = \"u\"\nsecurity = \"none\"\npassword_env = \"X\"\n",
        )
        .unwrap();
        let e = cfg.settings().unwrap_err();
        assert!(e.contains("plain text") && e.contains("starttls"), "{e}");
    }

    #[test]
    fn cursors_read_back() {
        assert_eq!(parse_cursor("1700000000:42"), Some((1_700_000_000, 42)));
        assert_eq!(parse_cursor("x:1"), None);
        assert_eq!(parse_cursor("12"), None);
    }

    #[test]
    fn settings_need_a_password_and_say_which_option_is_missing() {
        let cfg: ImapConfig =
            toml::from_str("host = \"imap.example.org\"\nusername = \"game\"\n").unwrap();
        assert_eq!(cfg.port(), 993);
        let e = cfg.settings().unwrap_err();
        assert!(e.contains("password_env"), "{e}");
        let cfg: ImapConfig = toml::from_str(
            "host = \"h\"\nusername = \"u\"\nsecurity = \"starttls\"\npassword_env = \"DERVISH_TEST_NOT_SET_EITHER\"\n",
        )
        .unwrap();
        assert_eq!(cfg.port(), 143);
        assert!(
            cfg.settings()
                .unwrap_err()
                .contains("DERVISH_TEST_NOT_SET_EITHER")
        );
        assert!(
            toml::from_str::<ImapConfig>("host = \"h\"\nusername = \"u\"\npassword = \"x\"\n")
                .is_err()
        );
    }

    #[test]
    fn a_refused_connection_is_an_error_not_a_panic() {
        // A port nothing listens on.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let dir = std::env::temp_dir().join(format!("dervish-imap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pw"), "pw").unwrap();
        let cfg = ImapConfig {
            password_file: Some(dir.join("pw")),
            ..settings_for(port).config
        };
        let mut inbox = ImapInbox::new(cfg.settings().unwrap());
        let e = super::super::Inbox::pending(&mut inbox, None).unwrap_err();
        assert!(e.0.contains("cannot connect"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
