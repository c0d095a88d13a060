//! End to end against real mail servers on loopback: Postfix takes the
//! players' mail by SMTP and hands it to Dovecot over LMTP; the daemon
//! (`dervish run`, the real binary) reads the game's mailbox over IMAP with
//! IDLE and sends through Postfix's submission port with STARTTLS and a
//! login; the test reads the players' mailboxes over IMAP.
//!
//! The servers are started by `scripts/mail-servers start DIR` (which
//! `scripts/test` does), and found through `DERVISH_MAIL_SERVERS=DIR/env`.
//! Without it these tests are ignored; `scripts/test` runs them with
//! `--ignored`, one at a time, since they share the servers and restart
//! them.

use std::collections::HashMap;
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[path = "common/process.rs"]
mod process;

use mail_parser::MessageParser;

static SERVERS: Mutex<()> = Mutex::new(());

/// The running servers, from the env file `scripts/mail-servers` writes.
struct Servers {
    dir: PathBuf,
    vars: HashMap<String, String>,
}

impl Servers {
    fn get() -> Servers {
        let path = std::env::var("DERVISH_MAIL_SERVERS").unwrap_or_else(|_| {
            panic!(
                "DERVISH_MAIL_SERVERS is not set: start the servers with \
                 `scripts/mail-servers start DIR` and set it to DIR/env (scripts/test does both)"
            )
        });
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let vars: HashMap<String, String> = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let dir = PathBuf::from(&vars["DERVISH_MAIL_DIR"]);
        Servers { dir, vars }
    }

    fn port(&self, name: &str) -> u16 {
        self.vars[name]
            .parse()
            .unwrap_or_else(|_| panic!("{name} is not a port"))
    }

    fn script(&self, command: &str) {
        let status =
            Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mail-servers"))
                .arg(command)
                .arg(&self.dir)
                .status()
                .expect("scripts/mail-servers runs");
        assert!(status.success(), "scripts/mail-servers {command} failed");
    }

    /// A test client's IMAP session (plain, on loopback).
    fn imap(&self, user: &str) -> imap::Session<TcpStream> {
        let tcp = TcpStream::connect(("127.0.0.1", self.port("IMAP_PORT"))).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut client = imap::Client::new(tcp);
        client.read_greeting().unwrap();
        client
            .login(user, format!("{user}-pw"))
            .map_err(|(e, _)| e)
            .unwrap()
    }

    /// Every message in a user's folder, with its flags.
    fn messages(&self, user: &str, folder: &str) -> Vec<Mail> {
        let mut s = self.imap(user);
        let Ok(mb) = s.select(folder) else {
            return Vec::new();
        };
        if mb.exists == 0 {
            let _ = s.logout();
            return Vec::new();
        }
        let fetches = s.fetch("1:*", "(FLAGS BODY.PEEK[])").unwrap();
        let out = fetches
            .iter()
            .map(|f| Mail::new(f.body().unwrap_or_default(), f.flags()))
            .collect();
        let _ = s.logout();
        out
    }

    /// Empty a user's mailbox (and the folder handled mail is moved to).
    fn clear(&self, user: &str) {
        let mut s = self.imap(user);
        let mb = s.select("INBOX").unwrap();
        if mb.exists > 0 {
            s.store("1:*", "+FLAGS.SILENT (\\Deleted)").unwrap();
            s.expunge().unwrap();
        }
        let _ = s.delete("Dervish");
        let _ = s.logout();
    }

    /// Wait until a user's inbox holds mail matching `pred`, `n` of them.
    fn wait_for(
        &self,
        user: &str,
        n: usize,
        what: &str,
        pred: impl Fn(&Mail) -> bool,
    ) -> Vec<Mail> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let found: Vec<Mail> = self
                .messages(user, "INBOX")
                .into_iter()
                .filter(|m| pred(m))
                .collect();
            if found.len() >= n {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "{user} did not get {n} x {what} within 60 s; has: {:#?}",
                self.messages(user, "INBOX")
                    .iter()
                    .map(|m| &m.subject)
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The game master (grey) and the opponent (red) are told that the
    /// player at `address` cannot be reached.
    fn unreachable_told(&self, address: &str) {
        let notice = self.wait_for("grey", 1, "unreachable notice", is("unreachable"));
        assert!(notice[0].text.contains(address), "{}", notice[0].text);
        self.wait_for(
            "red",
            1,
            "opponent unreachable",
            is("your opponent is unreachable"),
        );
    }

    /// A player sends mail by plain SMTP to Postfix (port 25's stand-in).
    fn send(&self, from: &str, to: &str, subject: &str, body: &str) {
        use lettre::{Message, SmtpTransport, Transport};
        let m = Message::builder()
            .from(from.parse().unwrap())
            .to(to.parse().unwrap())
            .subject(subject)
            .body(body.to_owned())
            .unwrap();
        SmtpTransport::builder_dangerous("127.0.0.1")
            .port(self.port("SMTP_PORT"))
            .build()
            .send(&m)
            .unwrap();
    }

    /// Mail sent with Python's `smtplib` and `email`: a client library
    /// that is not ours, with its own encoding choices. `lmtp` hands it to
    /// Dovecot directly (for when Postfix is down).
    fn send_python(&self, from: &str, to: &str, subject: &str, body: &str, lmtp: bool) {
        let script = r#"
import smtplib, sys
from email.message import EmailMessage
from email.utils import make_msgid, formatdate
host, port, lmtp, sender, to, subject = sys.argv[1:7]
msg = EmailMessage()
msg["From"] = sender
msg["To"] = to
msg["Subject"] = subject
msg["Date"] = formatdate(localtime=True)
msg["Message-ID"] = make_msgid(domain="localhost")
msg.set_content(sys.stdin.read(), charset="utf-8", cte="quoted-printable")
client = smtplib.LMTP(host, int(port)) if lmtp == "1" else smtplib.SMTP(host, int(port))
client.send_message(msg)
client.quit()
"#;
        let port = if lmtp {
            self.port("LMTP_PORT")
        } else {
            self.port("SMTP_PORT")
        };
        let mut child = Command::new("python3")
            .args([
                "-c",
                script,
                "127.0.0.1",
                &port.to_string(),
                if lmtp { "1" } else { "0" },
                from,
                to,
                subject,
            ])
            .stdin(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(body.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success(), "python3 smtplib failed");
    }
}

/// A message as a player's mail program shows it.
#[derive(Clone, Debug)]
struct Mail {
    subject: String,
    text: String,
    seen: bool,
}

impl Mail {
    fn new(raw: &[u8], flags: &[imap::types::Flag<'_>]) -> Mail {
        let m = MessageParser::default().parse(raw).expect("a mail");
        Mail {
            subject: m.subject().unwrap_or_default().to_owned(),
            text: m.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
            seen: flags.contains(&imap::types::Flag::Seen),
        }
    }
}

/// A game set up in a fresh folder, and the daemon running on it.
struct Host {
    dir: PathBuf,
    config: PathBuf,
    daemon: Option<Child>,
    /// Extra environment for the daemon.
    env: Vec<(String, String)>,
}

impl Host {
    fn new(servers: &Servers, name: &str, extra_inbox: &str, outgoing: &str) -> Host {
        let dir = process::fresh_folder(&format!("e2e-{name}"));
        let config = dir.join("dervish.toml");
        let text = format!(
            r#"database = "{db}"

[host]
address = "game@localhost"
name = "Dervish test host"
game_master = "grey@localhost"

[inbox]
kind = "imap"

[inbox.imap]
host = "127.0.0.1"
port = {imap}
security = "none"
username = "game"
password_env = "DERVISH_TEST_IMAP_PASSWORD"
reconnect_max_seconds = 2
timeout_secs = 10
{extra_inbox}

[outgoing]
{outgoing}

[outbox]
first_retry_seconds = 1
max_retry_seconds = 2
max_attempts = 100

[run]
# Only IDLE, or a mail due for (re)sending, wakes the daemon sooner.
poll_seconds = 300

[turns]
# The games begin at the first month's orders (tests/setup_step.rs plays
# the set-up step).
setup_hours = 0
"#,
            db = dir.join("dervish.sqlite").display(),
            imap = servers.port("IMAP_PORT"),
        );
        std::fs::write(&config, text).unwrap();
        Host {
            dir,
            config,
            daemon: None,
            env: Vec::new(),
        }
    }

    fn dervish(&self, args: &[&str]) -> std::process::Output {
        let out = Command::new(env!("CARGO_BIN_EXE_dervish"))
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .env("DERVISH_TEST_IMAP_PASSWORD", "game-pw")
            .env("DERVISH_TEST_SMTP_PASSWORD", "game-pw")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "dervish {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn start(&mut self) {
        let log = std::fs::File::create(self.dir.join("daemon.log")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_dervish"))
            .arg("--config")
            .arg(&self.config)
            .arg("run")
            .env("DERVISH_TEST_IMAP_PASSWORD", "game-pw")
            .env("DERVISH_TEST_SMTP_PASSWORD", "game-pw")
            .env("DERVISH_LOG", "info")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.daemon = Some(child);
    }

    /// SIGTERM, and the daemon stops cleanly.
    fn stop(&mut self) {
        if let Some(mut child) = self.daemon.take() {
            let pid = child.id().to_string();
            Command::new("kill").args(["-TERM", &pid]).status().unwrap();
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                if let Some(status) = child.try_wait().unwrap() {
                    assert!(
                        status.success(),
                        "the daemon exited with {status}: {}",
                        self.log()
                    );
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "the daemon did not stop: {}",
                    self.log()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("daemon.log")).unwrap_or_default()
    }

    /// Count outbox mails that failed at least once and were then sent.
    fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(
            self.dir.join("dervish.sqlite"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Some(mut c) = self.daemon.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        // A failed test's folder (with the daemon's log) stays for a look.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn submission(servers: &Servers) -> String {
    format!(
        r#"kind = "smtp"
host = "localhost"
port = {}
security = "starttls"
username = "game"
password_env = "DERVISH_TEST_SMTP_PASSWORD"
ca_file = "{}"
timeout_secs = 10"#,
        servers.port("SUBMISSION_PORT"),
        servers.vars["CA_FILE"]
    )
}

fn secret(welcome: &Mail) -> String {
    welcome
        .text
        .lines()
        .find_map(|l| l.trim().strip_prefix("SECRET "))
        .expect("the welcome mail gives the secret")
        .trim()
        .to_owned()
}

const EGYPTIAN_ORDERS: &str = "MARCH LEADER Baker FLEET TO Trinkitat THEN TO El Teb\n  ATTACK ANY\n  RETREAT TOWARDS Trinkitat\nMARCH STACK Sinkat TO Souakim\nREADY\n";
const MAHDIST_ORDERS: &str =
    "MARCH LEADER Osman Digma TO Tamai\nMARCH STACK Kamlin TO Soba ATTACK ANY\nREADY\n";

fn new_game(servers: &Servers, host: &Host, id: &str, egyptian: &str, mahdist: &str) {
    for user in ["game", "red", "blue", "grey"] {
        servers.clear(user);
    }
    host.dervish(&[
        "game",
        "new",
        "--scenario",
        "khartoum",
        "--egyptian",
        egyptian,
        "--mahdist",
        mahdist,
        "--id",
        id,
    ]);
}

fn is(subject_part: &'static str) -> impl Fn(&Mail) -> bool {
    move |m: &Mail| m.subject.contains(subject_part)
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn orders_by_smtp_get_receipts_and_results_read_over_imap_idle() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let mut host = Host::new(&servers, "idle", "", &submission(&servers));
    new_game(&servers, &host, "e2e1", "red@localhost", "blue@localhost");
    host.start();

    let welcome_red = servers.wait_for("red", 1, "welcome", is("welcome"));
    let welcome_blue = servers.wait_for("blue", 1, "welcome", is("welcome"));
    let (red_secret, blue_secret) = (secret(&welcome_red[0]), secret(&welcome_blue[0]));

    // The daemon polls only every 300 s: a receipt within the minute
    // wait_for allows comes from IDLE.
    servers.send(
        "Red Player <red@localhost>",
        "game@localhost",
        "[dervish e2e1] orders",
        &format!("SECRET {red_secret}\n\n{EGYPTIAN_ORDERS}"),
    );
    let receipt = servers.wait_for("red", 1, "receipt", is("orders received"));
    assert!(receipt[0].text.contains("Baker"), "{}", receipt[0].text);

    // The other side's orders from Python's smtplib and email packages,
    // quoted-printable and all.
    servers.send_python(
        "blue@localhost",
        "game@localhost",
        "Re: [dervish e2e1] welcome: you play the mahdist side",
        &format!("Salaam,\n\nSECRET {blue_secret}\n{MAHDIST_ORDERS}\n-- \nThe Mahdi’s man\n"),
        false,
    );
    servers.wait_for("blue", 1, "receipt", is("orders received"));
    let red_results = servers.wait_for("red", 1, "results", is("results"));
    let blue_results = servers.wait_for("blue", 1, "results", is("results"));
    assert!(red_results[0].subject.contains("e2e1"));
    assert!(!blue_results[0].text.is_empty());

    // Every message in the game's mailbox was handled and flagged seen.
    let game_box = servers.messages("game", "INBOX");
    assert_eq!(game_box.len(), 2, "{game_box:#?}");
    assert!(game_box.iter().all(|m| m.seen), "{game_box:#?}");
    host.stop();
    assert!(host.log().contains("running"), "{}", host.log());

    // Nothing is read twice: a second run finds nothing new and sends
    // nothing more.
    let out = host.dervish(&["run", "--once"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("0 messages read"), "{said}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(servers.messages("red", "INBOX").len(), 3);
    assert_eq!(servers.messages("blue", "INBOX").len(), 3);
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn a_dovecot_restart_and_an_smtp_outage_lose_nothing_and_repeat_nothing() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let mut host = Host::new(
        &servers,
        "restart",
        "processed = \"move\"\nmove_to = \"Dervish\"",
        &submission(&servers),
    );
    new_game(&servers, &host, "e2e2", "red@localhost", "blue@localhost");
    host.start();
    let red_secret = secret(&servers.wait_for("red", 1, "welcome", is("welcome"))[0]);
    let blue_secret = secret(&servers.wait_for("blue", 1, "welcome", is("welcome"))[0]);

    // Dovecot restarts under the daemon's IDLE connection.
    servers.script("restart-dovecot");
    servers.send(
        "red@localhost",
        "game@localhost",
        "[dervish e2e2] orders",
        &format!("SECRET {red_secret}\n{EGYPTIAN_ORDERS}"),
    );
    servers.wait_for("red", 1, "receipt", is("orders received"));

    // Postfix goes down; the last orders reach Dovecot directly over LMTP
    // and the turn is played with no way to send the results.
    servers.script("stop-postfix");
    servers.send_python(
        "blue@localhost",
        "game@localhost",
        "[dervish e2e2] orders",
        &format!("SECRET {blue_secret}\n{MAHDIST_ORDERS}"),
        true,
    );
    // A pass stops sending at the first refused connection (the other
    // mails wait for its retry), so the results wait while the first mail
    // in the queue is tried, pass after pass.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (waiting, tries): (i64, i64) = host
            .db()
            .query_row(
                "SELECT COUNT(*) FILTER (WHERE kind = 'results'), COALESCE(MAX(attempts), 0) FROM outbox WHERE sent_at IS NULL",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap_or((0, 0));
        if waiting == 2 && tries >= 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the results were not tried: {}",
            host.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    servers.script("start-postfix");

    // Delivered afterwards, once each.
    servers.wait_for("red", 1, "results", is("results"));
    servers.wait_for("blue", 1, "results", is("results"));
    servers.wait_for("blue", 1, "receipt", is("orders received"));
    std::thread::sleep(Duration::from_secs(3));
    for user in ["red", "blue"] {
        let mail = servers.messages(user, "INBOX");
        let count = |part: &str| mail.iter().filter(|m| m.subject.contains(part)).count();
        assert_eq!(count("welcome"), 1, "{user}: {mail:#?}");
        assert_eq!(count("orders received"), 1, "{user}: {mail:#?}");
        assert_eq!(count("results"), 1, "{user}: {mail:#?}");
    }
    // Handled mail was moved out of the inbox.
    assert!(servers.messages("game", "INBOX").is_empty());
    assert_eq!(servers.messages("game", "Dervish").len(), 2);
    let messages: i64 = host
        .db()
        .query_row("SELECT COUNT(*) FROM messages", [], |r| r.get(0))
        .unwrap();
    assert_eq!(messages, 2);
    host.stop();
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn a_bounce_read_over_imap_marks_the_player_unreachable() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    // Implicit TLS on both sides this time.
    let mut host = Host::new(&servers, "bounce", "", "");
    let password_file = host.dir.join("smtp-password");
    std::fs::write(&password_file, "game-pw\n").unwrap();
    let outgoing = format!(
        "kind = \"smtp\"\nhost = \"localhost\"\nport = {}\nsecurity = \"tls\"\nusername = \"game\"\npassword_file = \"{}\"\nca_file = \"{}\"",
        servers.port("SMTPS_PORT"),
        password_file.display(),
        servers.vars["CA_FILE"]
    );
    let text = std::fs::read_to_string(&host.config).unwrap();
    let text = text
        .replace("[outgoing]\n", &format!("[outgoing]\n{outgoing}"))
        .replace(
            &format!("port = {}\nsecurity = \"none\"", servers.port("IMAP_PORT")),
            &format!(
                "port = {}\nsecurity = \"tls\"\nca_file = \"{}\"",
                servers.port("IMAPS_PORT"),
                servers.vars["CA_FILE"]
            ),
        )
        .replace("host = \"127.0.0.1\"", "host = \"localhost\"");
    std::fs::write(&host.config, text).unwrap();
    // gone@localhost is accepted by Postfix, then refused by Dovecot: the
    // welcome mail comes back as a delivery status report.
    new_game(&servers, &host, "e2e3", "red@localhost", "gone@localhost");
    host.start();
    servers.wait_for("red", 1, "welcome", is("welcome"));
    servers.unreachable_told("gone@localhost");
    let unreachable: i64 = host
        .db()
        .query_row(
            "SELECT COUNT(*) FROM players WHERE address = 'gone@localhost' AND unreachable = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unreachable, 1, "{}", host.log());
    host.stop();
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn refused_logins_recipients_and_certificates_are_told_clearly() {
    use dervish::mail::Inbox;
    use dervish::mail::imap::{ImapConfig, ImapInbox};
    use dervish::mail::outbound::{AutoSubmitted, Outgoing, Sender, TransportConfig};
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let dir = std::env::temp_dir().join(format!("dervish-e2e-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good");
    let bad = dir.join("bad");
    std::fs::write(&good, "game-pw").unwrap();
    std::fs::write(&bad, "not-the-password").unwrap();

    let smtp = |pw: &Path| {
        let cfg: TransportConfig = toml::from_str(&format!(
            "kind = \"smtp\"\nhost = \"localhost\"\nport = {}\nsecurity = \"starttls\"\nusername = \"game\"\npassword_file = \"{}\"\nca_file = \"{}\"\ntimeout_secs = 10\n",
            servers.port("SUBMISSION_PORT"),
            pw.display(),
            servers.vars["CA_FILE"]
        ))
        .unwrap();
        Sender::new(&cfg).unwrap()
    };
    let mail = |to: &str| Outgoing {
        from: "Dervish <game@localhost>".into(),
        to: vec![to.into()],
        subject: "test".into(),
        text: "test\n".into(),
        html: None,
        message_id: format!("refused-{to}@localhost"),
        in_reply_to: None,
        references: Vec::new(),
        auto_submitted: AutoSubmitted::AutoGenerated,
        loop_id: "game@localhost".into(),
        date: chrono::Utc::now(),
        attachments: Vec::new(),
    };
    // A recipient the server does not know: final, and said so.
    let e = smtp(&good).send(&mail("nobody@localhost")).unwrap_err();
    assert!(e.recipient_refused && !e.transient, "{e:?}");
    assert!(
        e.message.contains("recipient nobody@localhost was refused"),
        "{}",
        e.message
    );
    // A wrong password: the host's settings, retried once fixed.
    let e = smtp(&bad).send(&mail("red@localhost")).unwrap_err();
    assert!(e.transient && !e.recipient_refused, "{e:?}");
    assert!(
        e.message.contains("login as game was refused"),
        "{}",
        e.message
    );
    // The right one works.
    smtp(&good).send(&mail("red@localhost")).unwrap();

    let imap = |port: &str, security: &str, ca: bool, pw: &Path| {
        let cfg: ImapConfig = toml::from_str(&format!(
            "host = \"localhost\"\nport = {}\nsecurity = \"{security}\"\nusername = \"game\"\npassword_file = \"{}\"\n{}timeout_secs = 10\n",
            servers.port(port),
            pw.display(),
            if ca {
                format!("ca_file = \"{}\"\n", servers.vars["CA_FILE"])
            } else {
                String::new()
            }
        ))
        .unwrap();
        ImapInbox::new(cfg.settings().unwrap())
    };
    let e = imap("IMAP_PORT", "none", false, &bad)
        .pending(None)
        .unwrap_err();
    assert!(e.0.contains("login as game refused"), "{e}");
    // The server's certificate is checked: without the CA that signed it,
    // no connection.
    let e = imap("IMAPS_PORT", "tls", false, &good)
        .pending(None)
        .unwrap_err();
    assert!(
        e.0.contains("TLS") && e.0.to_lowercase().contains("certificate"),
        "{e}"
    );
    imap("IMAPS_PORT", "tls", true, &good)
        .pending(None)
        .unwrap();
    imap("IMAP_PORT", "starttls", true, &good)
        .pending(None)
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A message as a player's mail program would append it.
fn orders_mail(n: u32, secret: &str, padding: usize) -> Vec<u8> {
    format!(
        "From: red@localhost\r\nTo: game@localhost\r\nSubject: [dervish e2e4] orders\r\nMessage-ID: <uid-{n}@localhost>\r\nDate: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\nMARCH STACK Sinkat TO Souakim\r\n# {}\r\n",
        "x".repeat(padding)
    )
    .into_bytes()
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn uids_are_followed_across_a_recreated_folder_and_big_messages_are_read_in_part() {
    use dervish::mail::imap::ImapConfig;
    use dervish::mail::imap::ImapInbox;
    use dervish::mail::outbound::TransportConfig;
    use dervish::scenario::Side;
    use dervish::service::games::NewGame;
    use dervish::service::{Config, Service};
    use dervish::store::Mode;
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    servers.clear("game");
    let dir = process::fresh_folder("e2e-uid");
    std::fs::write(dir.join("pw"), "game-pw").unwrap();
    let imap: ImapConfig = toml::from_str(&format!(
        "host = \"127.0.0.1\"\nport = {}\nsecurity = \"none\"\nusername = \"game\"\npassword_file = \"{}\"\nfolder = \"Orders\"\n",
        servers.port("IMAP_PORT"),
        dir.join("pw").display()
    ))
    .unwrap();
    let mut cfg = Config {
        database: dir.join("dervish.sqlite"),
        outgoing: TransportConfig::File {
            dir: dir.join("outbox"),
        },
        ..Config::default()
    };
    cfg.host.address = "game@localhost".into();
    cfg.limits.max_message_bytes = 200 * 1024;
    let mut svc = Service::open(cfg).unwrap();
    let created = svc
        .new_game(
            &NewGame {
                scenario: "khartoum".into(),
                egyptian: "red@localhost".into(),
                mahdist: "blue@localhost".into(),
                id: Some("e2e4".into()),
                mode: Mode::Monthly,
                deadline_hours: Some(1000),
                ambushes: false,
                table_battles: Default::default(),
                resolver: Default::default(),
            },
            "test",
        )
        .unwrap();
    let secret = created
        .secrets
        .iter()
        .find(|(s, _)| *s == Side::Egyptian)
        .map(|(_, x)| x.clone())
        .unwrap();
    let mut client = servers.imap("game");
    let _ = client.delete("Orders");
    client.create("Orders").unwrap();
    for n in 1..=2 {
        client
            .append("Orders", &orders_mail(n, &secret, 0))
            .finish()
            .unwrap();
    }
    let mut inbox = ImapInbox::new(imap.settings().unwrap());
    assert_eq!(svc.read_inbox(&mut inbox).unwrap(), (2, None));
    // Nothing new: nothing read.
    assert_eq!(svc.read_inbox(&mut inbox).unwrap(), (0, None));
    let key = dervish::mail::Inbox::cursor_key(&inbox).unwrap();
    let before = dervish::store::service_value(&svc.conn, &key)
        .unwrap()
        .unwrap();

    // The folder is recreated (a new UIDVALIDITY) holding the same two
    // messages and a new one: all three are read, the two old ones are
    // known by their Message-ID and only the new one counts.
    client.delete("Orders").unwrap();
    client.create("Orders").unwrap();
    for n in 1..=3 {
        client
            .append("Orders", &orders_mail(n, &secret, 0))
            .finish()
            .unwrap();
    }
    let mut inbox = ImapInbox::new(imap.settings().unwrap());
    assert_eq!(svc.read_inbox(&mut inbox).unwrap(), (3, None));
    let after = dervish::store::service_value(&svc.conn, &key)
        .unwrap()
        .unwrap();
    assert_ne!(before.split(':').next(), after.split(':').next());
    let versions: i64 = svc
        .conn
        .query_row("SELECT COUNT(*) FROM order_sets", [], |r| r.get(0))
        .unwrap();
    assert_eq!(versions, 3, "one order set for each distinct message");
    let outcomes: Vec<String> = {
        let mut st = svc
            .conn
            .prepare("SELECT outcome FROM messages ORDER BY id")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");

    // A message of 1 MiB over a limit of 200 KiB: only its beginning is
    // fetched and stored, and the player is told.
    client
        .append("Orders", &orders_mail(4, &secret, 1024 * 1024))
        .finish()
        .unwrap();
    assert_eq!(svc.read_inbox(&mut inbox).unwrap(), (1, None));
    let (len, outcome): (i64, String) = svc
        .conn
        .query_row(
            "SELECT length(raw), outcome FROM messages WHERE message_id = 'uid-4@localhost'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(len <= 64 * 1024, "{len} bytes stored");
    assert!(outcome.contains("refused"), "{outcome}");
    // Every handled message is flagged seen.
    let mb = client.select("Orders").unwrap();
    let unseen = client.search("UNSEEN").unwrap();
    assert_eq!(mb.exists, 4);
    assert!(unseen.is_empty(), "{unseen:?}");
    client.delete("Orders").ok();
    let _ = client.logout();
    drop(svc);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn a_recipient_refused_at_submission_marks_the_player_unreachable() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let mut host = Host::new(&servers, "refused", "", &submission(&servers));
    // Postfix knows no nobody@localhost: the welcome mail is refused at
    // RCPT, which is as good as a bounce.
    new_game(&servers, &host, "e2e5", "red@localhost", "nobody@localhost");
    host.start();
    servers.wait_for("red", 1, "welcome", is("welcome"));
    servers.unreachable_told("nobody@localhost");
    let (gave_up, error): (i64, String) = host
        .db()
        .query_row(
            "SELECT gave_up, last_error FROM outbox WHERE recipient = 'nobody@localhost'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(gave_up, 1);
    assert!(
        error.contains("recipient nobody@localhost was refused"),
        "{error}"
    );
    host.stop();
}

#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn the_sendmail_transport_hands_mail_to_postfix() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let mut host = Host::new(
        &servers,
        "sendmail",
        "",
        "kind = \"sendmail\"\ncommand = \"/usr/sbin/sendmail\"",
    );
    // This Postfix keeps its settings in the test folder, not /etc/postfix.
    host.env.push((
        "MAIL_CONFIG".into(),
        servers.dir.join("postfix").display().to_string(),
    ));
    new_game(&servers, &host, "e2e6", "red@localhost", "blue@localhost");
    host.start();
    let secret = secret(&servers.wait_for("red", 1, "welcome", is("welcome"))[0]);
    servers.wait_for("blue", 1, "welcome", is("welcome"));
    servers.send(
        "red@localhost",
        "game@localhost",
        "[dervish e2e6] orders",
        &format!("SECRET {secret}\n{EGYPTIAN_ORDERS}"),
    );
    let receipt = servers.wait_for("red", 1, "receipt", is("orders received"));
    assert!(receipt[0].text.contains("Baker"), "{}", receipt[0].text);
    host.stop();
}

/// `check-mail` tries the transport for real and sends nothing: against
/// Postfix's submission port it connects, starts TLS, logs in and quits;
/// with a wrong password it fails and says why.
#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn check_mail_tries_the_smtp_server_and_sends_nothing() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let host = Host::new(&servers, "check", "", &submission(&servers));
    let out = host.dervish(&["check-mail"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("outgoing: ok: SMTP localhost:"), "{said}");
    assert!(said.contains("logged in as game"), "{said}");
    assert!(said.contains("inbox: ok"), "{said}");

    let out = Command::new(env!("CARGO_BIN_EXE_dervish"))
        .arg("--config")
        .arg(&host.config)
        .arg("check-mail")
        .env("DERVISH_TEST_IMAP_PASSWORD", "game-pw")
        .env("DERVISH_TEST_SMTP_PASSWORD", "not-the-password")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("outgoing: FAILED"), "{said}");
    assert!(said.contains("login as game was refused"), "{said}");
}

/// The host's own Postfix files (`contrib/postfix/master.cf` and
/// `transport`, installed by `scripts/mail-servers` as a host would): mail
/// to the game's address goes through Postfix's pipe transport to
/// `dervish submit -`, run as an unprivileged user; the player's orders
/// are stored and get their receipt.
#[test]
#[ignore = "needs Dovecot and Postfix on loopback: scripts/test starts them"]
fn postfix_pipes_the_games_mail_to_dervish_submit_with_the_contrib_files() {
    let _guard = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let pipe = PathBuf::from(&servers.vars["PIPE_DIR"]);
    let config = PathBuf::from(&servers.vars["PIPE_CONFIG"]);
    let user = servers.vars["PIPE_USER"].clone();
    for entry in std::fs::read_dir(&pipe).unwrap() {
        let p = entry.unwrap().path();
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
    let bin = PathBuf::from(&servers.vars["PIPE_BIN"]);
    std::fs::copy(env!("CARGO_BIN_EXE_dervish"), &bin).unwrap();
    std::fs::write(
        &config,
        format!(
            r#"database = "{dir}/dervish.sqlite"

[host]
address = "pipe@localhost"
game_master = "grey@localhost"

[inbox]
kind = "maildir"
maildir = "{dir}/inbox"

[outgoing]
kind = "file"
dir = "{dir}/outbox"

[turns]
setup_hours = 0
"#,
            dir = pipe.display()
        ),
    )
    .unwrap();
    let as_user = |args: &[&str]| {
        let out = Command::new("runuser")
            .args(["-u", &user, "--"])
            .arg(&bin)
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "dervish {args:?} as {user}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let chown = Command::new("chown")
        .args(["-R", &format!("{user}:{user}")])
        .arg(&pipe)
        .status()
        .unwrap();
    assert!(chown.success());
    as_user(&process::new_game("pipe-1", "red@localhost", "bot"));
    as_user(&["run", "--once"]);
    let sent = || -> Vec<String> {
        std::fs::read_dir(pipe.join("outbox"))
            .map(|d| {
                d.filter_map(|e| std::fs::read(e.ok()?.path()).ok())
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let welcome = sent()
        .into_iter()
        .find(|m| m.contains("welcome") && m.contains("red@localhost"))
        .expect("the welcome mail");
    let secret = welcome
        .lines()
        .find_map(|l| l.trim().strip_prefix("SECRET "))
        .expect("the secret in the welcome")
        .trim()
        .to_owned();
    servers.send(
        "red@localhost",
        "pipe@localhost",
        "[dervish pipe-1] orders",
        &format!("SECRET {secret}\nMARCH STACK Sinkat TO Souakim\n"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // A pass; while the piped `submit` holds the database this one
        // leaves the mail to it, and the next pass sends the receipt.
        let _ = Command::new("runuser")
            .args(["-u", &user, "--"])
            .arg(&bin)
            .arg("--config")
            .arg(&config)
            .args(["run", "--once"])
            .output()
            .unwrap();
        if sent().iter().any(|m| m.contains("orders received")) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no receipt for the piped orders; the Postfix log:\n{}",
            std::fs::read_to_string(&servers.vars["POSTFIX_LOG"]).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let log = std::fs::read_to_string(&servers.vars["POSTFIX_LOG"]).unwrap_or_default();
    assert!(
        log.contains("relay=dervish") && log.contains("status=sent"),
        "Postfix delivered through the pipe transport:\n{log}"
    );
}
