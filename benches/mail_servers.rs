//! Mail over real servers on loopback (Dovecot and Postfix, started by
//! `scripts/mail-servers`; run with `scripts/bench-mail`):
//!
//! - latency: an orders mail submitted to Postfix by SMTP until the
//!   receipt is in the player's mailbox, with the daemon (`dervish run`,
//!   the real binary) waiting in IMAP IDLE and sending through Postfix's
//!   submission port. It includes Postfix delivering the orders to Dovecot,
//!   so it is an upper bound on the delay from delivery to receipt.
//! - throughput: orders mails waiting in the IMAP folder taken in by one
//!   pass of the intake (search, fetch, parse, check, store, receipt
//!   queued, flag `\Seen`), per message.
//!
//! Without `DERVISH_MAIL_SERVERS` it says so and measures nothing.

use std::collections::HashMap;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
#[path = "../tests/common/process.rs"]
mod process;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use dervish::mail::imap::ImapConfig;
use dervish::mail::imap::ImapInbox;

fn servers() -> Option<HashMap<String, String>> {
    let path = std::env::var("DERVISH_MAIL_SERVERS").ok()?;
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    )
}

fn port(v: &HashMap<String, String>, name: &str) -> u16 {
    v[name].parse().expect("a port")
}

fn imap_session(v: &HashMap<String, String>, user: &str) -> imap::Session<TcpStream> {
    let tcp = TcpStream::connect(("127.0.0.1", port(v, "IMAP_PORT"))).expect("IMAP");
    let mut c = imap::Client::new(tcp);
    c.read_greeting().expect("greeting");
    c.login(user, format!("{user}-pw"))
        .map_err(|(e, _)| e)
        .expect("login")
}

fn clear(v: &HashMap<String, String>, user: &str) {
    let mut s = imap_session(v, user);
    if s.select("INBOX").expect("select").exists > 0 {
        s.store("1:*", "+FLAGS.SILENT (\\Deleted)").expect("store");
        s.expunge().expect("expunge");
    }
    let _ = s.logout();
}

fn count(s: &mut imap::Session<TcpStream>) -> u32 {
    s.status("INBOX", "(MESSAGES)").expect("status").exists
}

fn secret_from_welcome(v: &HashMap<String, String>, user: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut s = imap_session(v, user);
        if s.select("INBOX").expect("select").exists > 0 {
            let f = s.fetch("1", "BODY.PEEK[]").expect("fetch");
            let raw = f.iter().next().and_then(|m| m.body()).unwrap_or_default();
            let m = mail_parser::MessageParser::default()
                .parse(raw)
                .expect("mail");
            let text = m.body_text(0).unwrap_or_default().into_owned();
            if let Some(sec) = text.lines().find_map(|l| l.trim().strip_prefix("SECRET ")) {
                return sec.trim().to_owned();
            }
        }
        assert!(Instant::now() < deadline, "no welcome mail for {user}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

fn latency(c: &mut Criterion, v: &HashMap<String, String>) {
    let dir = std::env::temp_dir().join(format!("dervish-bench-idle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    for u in ["game", "red", "blue", "grey"] {
        clear(v, u);
    }
    let config = dir.join("dervish.toml");
    std::fs::write(
        &config,
        format!(
            "database = \"{}\"\n[host]\naddress = \"game@localhost\"\ngame_master = \"grey@localhost\"\n\
             [inbox]\nkind = \"imap\"\n[inbox.imap]\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"none\"\n\
             username = \"game\"\npassword_env = \"DERVISH_BENCH_PW\"\n\
             [outgoing]\nkind = \"smtp\"\nhost = \"localhost\"\nport = {}\nsecurity = \"starttls\"\n\
             username = \"game\"\npassword_env = \"DERVISH_BENCH_PW\"\nca_file = \"{}\"\n\
             [run]\npoll_seconds = 600\n",
            dir.join("dervish.sqlite").display(),
            port(v, "IMAP_PORT"),
            port(v, "SUBMISSION_PORT"),
            v["CA_FILE"]
        ),
    )
    .expect("config");
    let bin = env!("CARGO_BIN_EXE_dervish");
    let status = Command::new(bin)
        .arg("--config")
        .arg(&config)
        .args(process::new_game("lat", "red@localhost", "blue@localhost"))
        .args(["--deadline-hours", "1000"])
        .stdout(Stdio::null())
        .status()
        .expect("game new");
    assert!(status.success());
    let _daemon = Daemon(
        Command::new(bin)
            .arg("--config")
            .arg(&config)
            .arg("run")
            .env("DERVISH_BENCH_PW", "game-pw")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("daemon"),
    );
    let secret = secret_from_welcome(v, "red");
    let smtp = lettre::SmtpTransport::builder_dangerous("127.0.0.1")
        .port(port(v, "SMTP_PORT"))
        .build();
    let mut red = imap_session(v, "red");
    let mut n = 0u32;
    let mut group = c.benchmark_group("mail over IMAP and SMTP");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function(
        "orders submitted by SMTP to the receipt in the player's mailbox (IDLE)",
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    n += 1;
                    let before = count(&mut red);
                    let m = lettre::Message::builder()
                        .from("red@localhost".parse().expect("address"))
                        .to("game@localhost".parse().expect("address"))
                        .subject("[dervish lat] orders")
                        .body(format!(
                            "SECRET {secret}\nMARCH STACK Sinkat TO Souakim\n# version {n}\n"
                        ))
                        .expect("mail");
                    let start = Instant::now();
                    lettre::Transport::send(&smtp, &m).expect("SMTP");
                    while count(&mut red) <= before {
                        assert!(start.elapsed() < Duration::from_secs(60), "no receipt");
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    total += start.elapsed();
                }
                total
            })
        },
    );
    group.finish();
    let _ = red.logout();
    let _ = std::fs::remove_dir_all(&dir);
}

fn throughput(c: &mut Criterion, v: &HashMap<String, String>) {
    const BATCH: u64 = 100;
    let dir = std::env::temp_dir().join(format!("dervish-bench-imap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    clear(v, "game");
    let pw = dir.join("pw");
    std::fs::write(&pw, "game-pw").expect("pw");
    let imap: ImapConfig = toml::from_str(&format!(
        "host = \"127.0.0.1\"\nport = {}\nsecurity = \"none\"\nusername = \"game\"\npassword_file = \"{}\"\n",
        port(v, "IMAP_PORT"),
        pw.display()
    ))
    .expect("imap config");
    let (mut svc, secret) =
        common::service_with_game(&dir, "tp", "red@localhost", "blue@localhost");
    let mut inbox = ImapInbox::new(imap.settings().expect("settings"));
    let mut appender = imap_session(v, "game");
    let mut n = 0u64;
    let mut group = c.benchmark_group("mail over IMAP and SMTP");
    group.throughput(Throughput::Elements(BATCH));
    group.sample_size(10);
    group.bench_function("intake over IMAP: 100 waiting orders mails in one pass", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for _ in 0..BATCH {
                    n += 1;
                    let raw = format!(
                        "From: red@localhost\r\nTo: game@localhost\r\nSubject: [dervish tp] orders\r\nMessage-ID: <tp-{n}@localhost>\r\nDate: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\nMARCH STACK Sinkat TO Souakim\r\nMARCH LEADER Baker FLEET TO Trinkitat THEN TO El Teb\r\n  ATTACK ANY\r\n"
                    );
                    appender
                        .append("INBOX", raw.as_bytes())
                        .finish()
                        .expect("append");
                }
                let start = Instant::now();
                let (read, err) = svc.read_inbox(&mut inbox).expect("intake");
                total += start.elapsed();
                assert!(err.is_none(), "{err:?}");
                assert_eq!(read as u64, BATCH);
            }
            total
        })
    });
    group.finish();
    let _ = appender.logout();
    let _ = std::fs::remove_dir_all(&dir);
}

fn mail_servers(c: &mut Criterion) {
    let Some(v) = servers() else {
        eprintln!(
            "DERVISH_MAIL_SERVERS is not set: nothing measured (scripts/bench-mail starts the servers)"
        );
        return;
    };
    throughput(c, &v);
    latency(c, &v);
}

criterion_group!(benches, mail_servers);
criterion_main!(benches);
