//! A table of the mail service for tests that play by mail: a folder of
//! its own holding the database, a Maildir inbox and a file outbox; the
//! service on it, its clock held at a fixed time that the test moves; mail
//! written into the inbox as a player would send it; and the mail the
//! service sent read back from the outbox. Included by `#[path]`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use dervish::mail::inbound::{self, Limits};
use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::{Sender, TransportConfig};
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::{Config, PassReport, Seeds, Service};
use dervish::state::GameState;
use dervish::store::Mode;

/// The service's own address, where players send their mail.
pub const HOST: &str = "dervish@example.org";

/// The service on a folder of its own, with its inbox, its outgoing mail
/// and its clock. The folder is removed when the table is dropped, unless
/// a test failed (it is kept for a look).
pub struct Table {
    pub dir: PathBuf,
    pub svc: Service,
    pub inbox: Maildir,
    pub sender: Sender,
    /// The service's clock: 2026-03-01 12:00 UTC until the test moves it.
    pub now: Arc<Mutex<DateTime<Utc>>>,
    /// Mails delivered so far: each has a Message-ID of its own.
    n: u32,
    /// The folder outlives the table ([`Table::close`]).
    keep: bool,
}

/// When the tests' clock starts: 2026-03-01 12:00 UTC.
pub fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// Turn seeds that count up from 1, every byte of the seed the count:
/// the same turns on every run.
pub fn counting_seeds() -> Seeds {
    let mut n = 0u8;
    Box::new(move || {
        n = n.wrapping_add(1);
        [n; 32]
    })
}

/// A plain-text mail from `from` to `to` as a player's mail program
/// writes it, its lines ended by CRLF; `id` its Message-ID (without the
/// angle brackets).
pub fn plain_mail(from: &str, to: &str, subject: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
}

/// Every mail of the outbox, the service's own and game `k-1`'s, by id.
pub fn all_mail(svc: &Service) -> Vec<dervish::store::OutboxRow> {
    let mut all = dervish::store::mail_for(&svc.conn, None).unwrap();
    all.extend(dervish::store::mail_for(&svc.conn, Some("k-1")).unwrap());
    all.sort_by_key(|m| m.id);
    all
}

/// A new folder of the temporary directory named after `prefix`, `name`,
/// this process and the time, so that no two tests share one.
pub fn folder(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "{prefix}-{name}-{}-{}",
        std::process::id(),
        Utc::now().timestamp_nanos_opt().unwrap_or_default()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The service's configuration in `dir` without addresses of its own:
/// the database, a Maildir inbox, outgoing mail written to files.
pub fn files_config(dir: &Path) -> Config {
    let mut cfg = Config {
        database: dir.join("dervish.sqlite"),
        outgoing: TransportConfig::File {
            dir: dir.join("outbox"),
        },
        ..Config::default()
    };
    cfg.inbox.maildir = dir.join("inbox");
    cfg
}

/// The service's configuration in `dir`: [`files_config`] with the
/// service's and the game master's addresses.
pub fn config(dir: &Path) -> Config {
    let mut cfg = files_config(dir);
    cfg.host.address = HOST.into();
    cfg.host.game_master = "gm@example.org".into();
    cfg
}

/// A configuration file `dervish.toml` in `dir` saying what [`config`]
/// says, but for the outgoing mail: `outgoing` are the lines of its
/// `[outgoing]` table ([`file_outbox`]), then `extra` TOML. Its path.
pub fn config_file(dir: &Path, outgoing: &str, extra: &str) -> PathBuf {
    let path = dir.join("dervish.toml");
    let text = format!(
        "database = \"{d}/dervish.sqlite\"\n[host]\naddress = \"{HOST}\"\n\
         game_master = \"gm@example.org\"\n[inbox]\nmaildir = \"{d}/inbox\"\n\
         [outgoing]\n{outgoing}{extra}",
        d = dir.display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The `[outgoing]` lines of [`config_file`] for mail written to files in
/// `dir/outbox`, as [`config`] has it.
pub fn file_outbox(dir: &Path) -> String {
    format!("kind = \"file\"\ndir = \"{}/outbox\"\n", dir.display())
}

/// An executable shell script `dir/NAME` that runs `body`: a fake of a
/// program the service calls, such as sendmail. Its path.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The configuration of [`config`] sending its mail by `outgoing`.
pub fn config_sending(dir: &Path, outgoing: TransportConfig) -> Config {
    Config {
        outgoing,
        ..config(dir)
    }
}

/// The service of `cfg`, its clock stopped at `at`.
pub fn service_at(cfg: Config, at: DateTime<Utc>) -> Service {
    let mut svc = Service::open(cfg).unwrap();
    svc.set_clock(Box::new(move || at));
    svc
}

/// Plain SMTP to a server on loopback at `port`, without TLS or a login.
pub fn smtp(port: u16, timeout_secs: u64) -> TransportConfig {
    TransportConfig::Smtp {
        host: "127.0.0.1".into(),
        port,
        security: dervish::mail::outbound::Security::None,
        username: None,
        password: None,
        password_env: None,
        password_file: None,
        ca_file: None,
        timeout_secs,
    }
}

/// A monthly game of `scenario` called `id` between Gordon and the Mahdi,
/// 72 hours a turn, without the optional rules: what most tests start
/// (`NewGame { mahdist: "bot".into(), ..game("khartoum", "k-1") }` for
/// another).
pub fn game(scenario: &str, id: &str) -> NewGame {
    NewGame {
        scenario: scenario.into(),
        egyptian: "gordon@example.org".into(),
        mahdist: "mahdi@example.org".into(),
        id: Some(id.into()),
        mode: Mode::Monthly,
        deadline_hours: Some(72),
        ambushes: false,
        table_battles: Default::default(),
        resolver: Default::default(),
    }
}

/// Game `k-1` of [`game`] with `mahdist` in the Mahdist seat: an address,
/// `bot` for the programmed player or `open` for a seat to join.
pub fn k1_against(mahdist: &str) -> NewGame {
    NewGame {
        mahdist: mahdist.into(),
        ..game("khartoum", "k-1")
    }
}

impl Table {
    /// A table in a new folder of the temporary directory named after
    /// `prefix` and `name`: the database, a Maildir inbox, outgoing mail
    /// written to files, the service's and the game master's addresses;
    /// `tune` changes the configuration before the service opens.
    pub fn open(prefix: &str, name: &str, tune: impl FnOnce(&mut Config)) -> Table {
        let dir = folder(prefix, name);
        let mut cfg = config(&dir);
        // The tests read every mail stored, months of play later.
        cfg.outbox.keep_sent_days = 0;
        tune(&mut cfg);
        let sender = Sender::new(&cfg.outgoing).unwrap();
        let inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
        let mut svc = Service::open(cfg).unwrap();
        let now = Arc::new(Mutex::new(start()));
        let clock = Arc::clone(&now);
        svc.set_clock(Box::new(move || *clock.lock().unwrap()));
        Table {
            dir,
            svc,
            inbox,
            sender,
            now,
            n: 0,
            keep: false,
        }
    }

    /// Game `game` made on the table, from `situation` if one is given
    /// (else the scenario's set-up): its id and the players' secrets.
    pub fn start_game(
        &self,
        game: &NewGame,
        situation: Option<GameState>,
    ) -> (String, Vec<(Side, String)>) {
        let created = self.svc.new_game_from(game, situation, "test").unwrap();
        (created.id, created.secrets)
    }

    /// Put a plain-text mail from `from` to the service into the inbox,
    /// its lines ended by CRLF; the next pass takes it in.
    pub fn deliver(&mut self, from: &str, subject: &str, body: &str) {
        self.n += 1;
        let id = format!("m{}@players.example", self.n);
        let raw = plain_mail(from, HOST, subject, &id, body);
        self.inbox.deliver(raw.as_bytes()).unwrap();
    }

    /// One pass of the service: the inbox taken in, deadlines kept, the
    /// mail sent.
    pub fn pass(&mut self) -> PassReport {
        self.svc.pass(&mut self.inbox, &self.sender).unwrap()
    }

    /// The outbox sent: what is due goes out, as at the end of a pass.
    pub fn flush(&mut self) -> (usize, usize) {
        self.svc.flush(&self.sender).unwrap()
    }

    /// Every mail sent so far, oldest first.
    pub fn sent(&self) -> Vec<Sent> {
        sent(&self.dir)
    }

    /// Every mail sent so far, the whole of each as text, oldest first.
    pub fn sent_text(&self) -> Vec<SentText> {
        self.sent().into_iter().map(SentText::from).collect()
    }

    /// Every mail sent so far to `addr`, oldest first.
    pub fn sent_to(&self, addr: &str) -> Vec<Sent> {
        self.sent()
            .into_iter()
            .filter(|s| s.to.iter().any(|t| t == addr))
            .collect()
    }

    /// Close the service and keep the folder, for a test that goes on
    /// there without it (and removes the folder itself).
    pub fn close(mut self) -> PathBuf {
        self.keep = true;
        self.dir.clone()
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // Keep the folder of a failed test for a look; clean up otherwise.
        if !self.keep && !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Lets a test's own game wrapper, a struct with its [`Table`] in a field
/// `table`, stand for the table: `g.svc`, `g.now`, `g.pass()`,
/// `g.sent_to(..)` (`Deref` and `DerefMut` to the table).
#[allow(unused_macros)]
macro_rules! at_table {
    ($game:ty) => {
        impl std::ops::Deref for $game {
            type Target = $crate::mailbox::Table;
            fn deref(&self) -> &Self::Target {
                &self.table
            }
        }

        impl std::ops::DerefMut for $game {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.table
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use at_table;

/// A sent mail as read back from the outbox folder.
pub struct Sent {
    pub to: Vec<String>,
    pub subject: String,
    pub text: String,
    pub raw: Vec<u8>,
}

/// A sent mail with the whole of it as text, for tests that look for a
/// header or a part in it.
#[derive(Debug)]
pub struct SentText {
    pub to: Vec<String>,
    pub subject: String,
    pub text: String,
    /// The whole message as sent.
    pub raw: String,
}

impl From<Sent> for SentText {
    fn from(m: Sent) -> SentText {
        SentText {
            to: m.to,
            subject: m.subject,
            text: m.text,
            raw: String::from_utf8_lossy(&m.raw).into_owned(),
        }
    }
}

/// The mail sent by the service on `dir` (its outbox folder), in the
/// order of the files' names, oldest first.
pub fn sent(dir: &Path) -> Vec<Sent> {
    sent_read(dir)
        .into_iter()
        .map(|(raw, m)| Sent {
            to: m.to.clone(),
            subject: m.subject.clone(),
            text: m.body.text.clone(),
            raw,
        })
        .collect()
}

/// The mail sent by the service on `dir`, oldest first: each as bytes and
/// as read (its parts and attachments).
pub fn sent_read(dir: &Path) -> Vec<(Vec<u8>, inbound::Inbound)> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join("outbox"))
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .map(|p| {
            let raw = std::fs::read(&p).unwrap();
            let m = inbound::read(
                &raw,
                &Limits {
                    max_bytes: 10 << 20,
                },
                "nobody",
            )
            .unwrap();
            (raw, m)
        })
        .collect()
}

/// Game `k-1` of scenario 2 ([`game`]) made on `svc`: the players'
/// secrets.
pub fn new_game(svc: &Service) -> Vec<(Side, String)> {
    svc.new_game(&game("khartoum", "k-1"), "test")
        .unwrap()
        .secrets
}

/// The service of the configuration file `cfg_path` with game `k-1` made
/// on it (and the service closed again): the configuration and the
/// players' secrets.
pub fn game_on(cfg_path: &Path) -> (Config, Vec<(Side, String)>) {
    let cfg = Config::read(cfg_path).unwrap();
    let secrets = new_game(&Service::open(cfg.clone()).unwrap());
    (cfg, secrets)
}

/// A server on loopback that accepts connections and never says a word:
/// its port, and how many connections it took so far.
pub fn silent_server() -> (u16, Arc<AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    (port, accepted)
}

/// The one value the query `sql` (no parameters) reads from the service's
/// database.
pub fn one<T: rusqlite::types::FromSql>(svc: &Service, sql: &str) -> T {
    svc.conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Every value the one-column query `sql` (no parameters) reads from the
/// database `conn`, in its order.
pub fn column<T: rusqlite::types::FromSql>(conn: &rusqlite::Connection, sql: &str) -> Vec<T> {
    let mut st = conn.prepare(sql).unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `dervish --config CFG run --once` started, its output thrown away.
pub fn run_once(cfg: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_dervish"))
        .args(["--config", cfg.to_str().unwrap(), "run", "--once"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// The secret of `side`'s seat among a new game's `secrets`.
pub fn secret(secrets: &[(Side, String)], side: Side) -> String {
    secrets
        .iter()
        .find(|(s, _)| *s == side)
        .map(|(_, x)| x.clone())
        .expect("a secret for the side")
}

/// The token of the JOIN confirmation request `text` holds, if any.
pub fn join_token(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("JOIN CONFIRM "))
        .map(|t| t.trim().to_string())
}

/// The text with every run of white space one space: prose is wrapped.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
