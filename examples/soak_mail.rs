//! Games and mail for the load and soak run (`scripts/soak`).
//!
//!   soak_mail setup CONFIG GAMES OUT.tsv [PREFIX]
//!       create GAMES games (monthly, scenario khartoum; ids PREFIX1,
//!       PREFIX2, ..., default g1, g2, ...) in the service
//!       described by CONFIG, the Egyptian seat for EGYPTIAN and the
//!       Mahdist seat for MAHDIST (environment, default red@localhost and
//!       blue@localhost); write one line per game to OUT.tsv: id, month,
//!       Egyptian address and secret, Mahdist address and secret.
//!
//!   soak_mail mails GAMES.tsv COUNT SEED DIR MANIFEST.tsv [TAG]
//!       write COUNT mails of mixed kinds to the Maildir-shaped DIR (its
//!       `new/`, named in order),
//!       and to MANIFEST.tsv one line per mail: kind, Message-ID (as the
//!       service will store it) or `-` where the service derives one.
//!
//! Not part of the product: it drives the service's library and writes
//! files, nothing more.

use std::io::Write;
use std::path::Path;

use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::store::Mode;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("setup") if (4..=5).contains(&args.len()) => setup(
            &args[1],
            &args[2],
            &args[3],
            args.get(4).map_or("g", String::as_str),
        ),
        Some("mails") if args.len() >= 6 => mails(&args[1..]),
        _ => Err("usage: soak_mail setup CONFIG GAMES OUT.tsv [PREFIX] | mails GAMES.tsv COUNT SEED DIR MANIFEST.tsv [TAG]".into()),
    };
    if let Err(e) = r {
        eprintln!("soak_mail: {e}");
        std::process::exit(1);
    }
}

fn setup(config: &str, games: &str, out: &str, prefix: &str) -> Res<()> {
    let cfg = Config::read(Path::new(config))?;
    let n: usize = games.parse()?;
    let eg = std::env::var("EGYPTIAN").unwrap_or_else(|_| "red@localhost".into());
    let md = std::env::var("MAHDIST").unwrap_or_else(|_| "blue@localhost".into());
    let s = Service::open(cfg)?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    for i in 1..=n {
        let created = s.new_game(
            &NewGame {
                scenario: "khartoum".into(),
                egyptian: eg.clone(),
                mahdist: md.clone(),
                id: Some(format!("{prefix}{i}")),
                mode: Mode::Monthly,
                deadline_hours: None,
                ambushes: false,
                table_battles: Default::default(),
                resolver: Default::default(),
            },
            "soak",
        )?;
        let g = s.game(&created.id)?;
        let secret = |i: usize| {
            created
                .secrets
                .get(i)
                .map(|x| x.1.clone())
                .unwrap_or_default()
        };
        writeln!(
            f,
            "{}\t{}\t{eg}\t{}\t{md}\t{}",
            g.id,
            g.month,
            secret(0),
            secret(1)
        )?;
    }
    f.flush()?;
    Ok(())
}

/// One game's seats, from the setup file.
struct Game {
    id: String,
    egyptian: (String, String),
    mahdist: (String, String),
}

fn read_games(path: &str) -> Res<Vec<Game>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 6 {
            return Err(format!("{path}: bad line {l:?}").into());
        }
        out.push(Game {
            id: f[0].into(),
            egyptian: (f[2].into(), f[3].into()),
            mahdist: (f[4].into(), f[5].into()),
        });
    }
    if out.is_empty() {
        return Err(format!("{path}: no games").into());
    }
    Ok(out)
}

/// A small deterministic generator (xorshift), so a run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const EGYPTIAN_ORDERS: &[&str] = &[
    "MARCH LEADER Baker FLEET TO Trinkitat THEN TO El Teb\n  ATTACK ANY\n  RETREAT TOWARDS Trinkitat\n",
    "MARCH STACK Sinkat TO Souakim\n",
    "MARCH STACK Khartoum TO Omdurman\n",
    "DEFEND LOSE FIRST Egyptian Infantry\n",
];
const MAHDIST_ORDERS: &[&str] = &[
    "MARCH LEADER Osman Digma TO Tamai\n",
    "MARCH STACK Kamlin TO Soba ATTACK ANY\n",
    "MARCH STACK El Obeid TO Bara\n",
];

/// The kinds of mail, with their share in thousandths. The hostile kinds
/// that are large are rare, so a full run stays within a few GB.
const KINDS: &[(&str, u32)] = &[
    ("orders", 390),
    ("commands", 70),
    ("resend", 100),
    ("stranger", 60),
    ("bad-secret", 30),
    ("other-game", 20),
    ("auto-reply", 80),
    ("bounce", 60),
    ("odd-id", 40),
    ("no-id", 30),
    ("pgp", 40),
    ("many-status", 20),
    ("html", 50),
    ("nested-html", 4),
    ("huge-subject", 3),
    ("oversized", 3),
];

fn mails(a: &[String]) -> Res<()> {
    let games = read_games(&a[0])?;
    let count: usize = a[1].parse()?;
    let mut rng = Rng(a[2]
        .parse::<u64>()?
        .max(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let dir = Stage::open(Path::new(&a[3]))?;
    let mut manifest = std::io::BufWriter::new(std::fs::File::create(&a[4])?);
    let tag = a.get(5).cloned().unwrap_or_else(|| "soak".into());
    let nested: usize = std::env::var("SOAK_NESTED_DEPTH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    // SOAK_KINDS=orders,commands keeps only those kinds (for measuring).
    let only = std::env::var("SOAK_KINDS").ok();
    let kinds: Vec<(&str, u32)> = KINDS
        .iter()
        .filter(|k| only.as_ref().is_none_or(|o| o.split(',').any(|x| x == k.0)))
        .copied()
        .collect();
    if kinds.is_empty() {
        return Err("SOAK_KINDS names no kind of mail".into());
    }
    let total: u32 = kinds.iter().map(|k| k.1).sum();
    let mut sent: Vec<Vec<u8>> = Vec::new();
    for n in 0..count {
        let mut pick = (rng.next() % u64::from(total)) as u32;
        let mut kind = kinds[0].0;
        for (k, w) in &kinds {
            if pick < *w {
                kind = k;
                break;
            }
            pick -= w;
        }
        if kind == "resend" && sent.is_empty() {
            kind = "orders";
        }
        let soak_id = format!("{tag}-{n}");
        let bytes = if kind == "resend" {
            // The very same message delivered again (a mail program's
            // retry, or the player pressing send twice).
            let i = rng.below(sent.len());
            let b = sent[i].clone();
            let id = header_value(&b, "X-Soak-Id").unwrap_or_default();
            writeln!(manifest, "resend\t{id}")?;
            dir.deliver(&b, n)?;
            continue;
        } else {
            let g = &games[rng.below(games.len())];
            build(kind, g, &games, &soak_id, &mut rng, nested)
        };
        writeln!(manifest, "{kind}\t{soak_id}")?;
        dir.deliver(&bytes, n)?;
        // Resends pick among recent mail, small ones only.
        if bytes.len() < 64 * 1024 {
            if sent.len() >= 256 {
                let i = rng.below(sent.len());
                sent[i] = bytes;
            } else {
                sent.push(bytes);
            }
        }
    }
    manifest.flush()?;
    Ok(())
}

/// A Maildir-shaped staging folder, written without the fsync a real
/// delivery makes: the mails are moved from here into the inbox by rename.
struct Stage(std::path::PathBuf);

impl Stage {
    fn open(root: &Path) -> Res<Stage> {
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(root.join(sub))?;
        }
        Ok(Stage(root.to_path_buf()))
    }

    /// Files are named in the order they were written.
    fn deliver(&self, bytes: &[u8], n: usize) -> Res<()> {
        let name = format!("{n:09}.soak");
        let tmp = self.0.join("tmp").join(&name);
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, self.0.join("new").join(&name))?;
        Ok(())
    }
}

fn header_value(raw: &[u8], name: &str) -> Option<String> {
    let text = String::from_utf8_lossy(&raw[..raw.len().min(4096)]);
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_string))
}

fn build(
    kind: &str,
    g: &Game,
    games: &[Game],
    soak_id: &str,
    rng: &mut Rng,
    nested: usize,
) -> Vec<u8> {
    let egyptian = rng.below(2) == 0;
    let (from, secret) = if egyptian { &g.egyptian } else { &g.mahdist };
    let w = Writer {
        g,
        egyptian,
        from,
        secret,
        soak_id,
        mid: format!("<{soak_id}@soak.test>"),
        subject: format!("[dervish {}] orders", g.id),
    };
    let draft = match kind {
        "stranger" | "auto-reply" | "bounce" | "nested-html" | "huge-subject" => {
            w.not_a_players(kind, rng, nested)
        }
        _ => w.a_players(kind, rng),
    };
    let _ = games;
    draft.wire(soak_id)
}

/// What a soak mail says: its headers' values and its body.
struct Draft {
    from: String,
    mid: Option<String>,
    subject: String,
    body: String,
    /// Headers written before MIME-Version (an auto-reply's).
    extra: String,
    content_type: String,
}

impl Draft {
    /// A plain-text mail.
    fn plain(from: &str, mid: Option<String>, subject: String, body: String) -> Draft {
        Draft {
            from: from.to_string(),
            mid,
            subject,
            body,
            extra: String::new(),
            content_type: "text/plain; charset=utf-8".to_string(),
        }
    }

    /// The mail as it arrives: the headers, and the body with CRLF line
    /// ends (a multipart body is written with them already).
    fn wire(&self, soak_id: &str) -> Vec<u8> {
        let Draft {
            from,
            mid,
            subject,
            body,
            extra,
            content_type,
        } = self;
        let mut m = format!(
            "X-Soak-Id: {soak_id}\r\nFrom: {from}\r\nTo: game@localhost\r\nSubject: {subject}\r\n"
        );
        if let Some(id) = mid {
            m.push_str(&format!("Message-ID: {id}\r\n"));
        }
        m.push_str(&format!(
            "Date: Tue, 24 Nov 2026 12:00:00 +0000\r\n{extra}MIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\n"
        ));
        if content_type.starts_with("multipart") {
            m.push_str(body);
        } else {
            m.push_str(&body.replace('\n', "\r\n"));
        }
        m.into_bytes()
    }
}

/// What the mails of one game are written from: the game, the side whose
/// player sends it, and the ids.
struct Writer<'a> {
    g: &'a Game,
    egyptian: bool,
    from: &'a str,
    secret: &'a str,
    soak_id: &'a str,
    mid: String,
    subject: String,
}

impl Writer<'_> {
    /// A few of the side's orders, READY seven times in ten.
    fn orders(&self, rng: &mut Rng) -> String {
        let list = if self.egyptian {
            EGYPTIAN_ORDERS
        } else {
            MAHDIST_ORDERS
        };
        let mut body = String::new();
        for _ in 0..1 + rng.below(2) {
            body.push_str(list[rng.below(list.len())]);
        }
        if rng.below(10) < 7 {
            body.push_str("READY\n");
        }
        body
    }

    /// A mail from the player's address: orders, commands, a wrong
    /// secret or game, odd or no Message-ID, signed, HTML, too many
    /// commands, too large.
    fn a_players(&self, kind: &str, rng: &mut Rng) -> Draft {
        let (secret, soak_id, g) = (self.secret, self.soak_id, self.g);
        let mut mid = Some(self.mid.clone());
        let mut subject = self.subject.clone();
        let body = match kind {
            "orders" => format!("SECRET {secret}\n\n{}\n-- \nA player\n", self.orders(rng)),
            "commands" => {
                let c = ["STATUS", "HELP", "MAP Khartoum", "HISTORY"][rng.below(4)];
                subject = format!("[dervish {}] question", g.id);
                format!("SECRET {secret}\n{c}\n")
            }
            "bad-secret" => format!("SECRET wrong-{soak_id}\n{}", self.orders(rng)),
            "other-game" => {
                subject = format!("[dervish nosuchgame{}] orders", rng.below(1000));
                format!("SECRET {secret}\nREADY\n")
            }
            "odd-id" => {
                mid = Some(match rng.below(4) {
                    0 => format!("<{soak_id} with spaces@soak.test>"),
                    1 => format!("<{soak_id}-ünïcode@høst.test>"),
                    2 => format!("{soak_id}-no-brackets@soak.test"),
                    _ => format!("<{soak_id}-{}@soak.test>", "x".repeat(900)),
                });
                format!("SECRET {secret}\n{}", self.orders(rng))
            }
            "no-id" => {
                mid = None;
                format!("SECRET {secret}\n{}", self.orders(rng))
            }
            "pgp" => format!(
                "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nSECRET {secret}\n{}- -- \n-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEEsoak{soak_id}\n=abcd\n-----END PGP SIGNATURE-----\n",
                self.orders(rng)
            ),
            "many-status" => format!("SECRET {secret}\n{}", "STATUS\n".repeat(495)),
            "html" => {
                let o = self.orders(rng).replace('\n', "</p><p>");
                format!("<html><body><p>SECRET {secret}</p><p>{o}</p></body></html>\n")
            }
            "oversized" => {
                let line = "0123456789".repeat(7) + "\n";
                format!(
                    "SECRET {secret}\nREADY\n{}",
                    line.repeat(2 * 1024 * 1024 / line.len())
                )
            }
            _ => unreachable!("kind {kind}"),
        };
        let draft = Draft::plain(self.from, mid, subject, body);
        if kind == "html" {
            Draft {
                content_type: "text/html; charset=utf-8".into(),
                ..draft
            }
        } else {
            draft
        }
    }

    /// A mail from elsewhere: a stranger's, an auto-reply, a forged
    /// bounce, deeply nested HTML, a huge subject.
    fn not_a_players(&self, kind: &str, rng: &mut Rng, nested: usize) -> Draft {
        let (from, soak_id, g) = (self.from, self.soak_id, self.g);
        let mid = Some(self.mid.clone());
        match kind {
            "stranger" => Draft::plain(
                "gone@localhost",
                mid,
                "Business proposal".into(),
                "Dear sir, I have a proposal for you.\n".into(),
            ),
            "auto-reply" => Draft {
                extra: if rng.below(2) == 0 {
                    "Auto-Submitted: auto-replied\r\n".into()
                } else {
                    "X-Autoreply: yes\r\nPrecedence: bulk\r\n".into()
                },
                ..Draft::plain(
                    from,
                    mid,
                    format!("Out of office: Re: [dervish {}] results", g.id),
                    "I am away until Monday.\n".into(),
                )
            },
            "bounce" => {
                // Forged or stale: the returned Message-ID was never sent.
                let boundary = "soakbound";
                let body = format!(
                    "--{boundary}\r\nContent-Type: text/plain\r\n\r\nDelivery to {from} failed.\r\n--{boundary}\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; localhost\r\n\r\nFinal-Recipient: rfc822; {from}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n--{boundary}\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <forged-{soak_id}@localhost>\r\nTo: {from}\r\nSubject: [dervish {}] results\r\n\r\n--{boundary}--\r\n",
                    g.id
                );
                Draft {
                    content_type: format!(
                        "multipart/report; report-type=delivery-status; boundary=\"{boundary}\""
                    ),
                    ..Draft::plain(
                        "MAILER-DAEMON@localhost",
                        mid,
                        "Undelivered Mail Returned to Sender".into(),
                        body,
                    )
                }
            }
            "nested-html" => {
                let body = format!(
                    "<html><body>{}x{}</body></html>\n",
                    "<ul><li>".repeat(nested),
                    "</li></ul>".repeat(nested)
                );
                Draft {
                    content_type: "text/html; charset=utf-8".into(),
                    ..Draft::plain("gone@localhost", mid, "Nested lists".into(), body)
                }
            }
            "huge-subject" => Draft::plain(
                "gone@localhost",
                mid,
                format!("[dervish {}] {}", g.id, "A".repeat(1 << 20)),
                "hello\n".into(),
            ),
            _ => unreachable!("kind {kind}"),
        }
    }
}
