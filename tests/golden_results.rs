//! Whole results mails of scenario 1 (El Obeid) and 2 (Khartoum), as each
//! player reads them: the subject, the text (summary, victory status, log,
//! roster, maps) and the files attached, against golden files in
//! `tests/golden/`. The clock and the seeds are fixed, so the same run
//! gives the same mails. `UPDATE_GOLDEN=1 cargo test --test golden_results`
//! writes them anew after a deliberate change; read the diff.

use std::path::{Path, PathBuf};

use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::{Sender, TransportConfig};
use dervish::scenario::Side;
use dervish::service::games::example_march;
use dervish::service::record::TurnRecord;
use dervish::store::Mode;
use mail_parser::{MessageParser, MimeHeaders};

mod common;
use common::campaign::mailbox;

fn temp_dir(name: &str) -> PathBuf {
    mailbox::folder("dervish-golden", name)
}

/// Start a game of `scenario`, play its first turn with each side's
/// welcome example march and READY, and return the welcome and results
/// mails as golden text, by name (`results-khartoum-egyptian`).
fn first_results(scenario: &str) -> Vec<(String, String)> {
    let dir = temp_dir(scenario);
    let mut cfg = mailbox::config(&dir);
    // The first month's results (the set-up step is tested in
    // tests/setup_step.rs).
    cfg.turns.setup_hours = 0;
    let sender = Sender::new(&cfg.outgoing).unwrap();
    let mut inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
    let mut svc = mailbox::service_at(cfg, mailbox::start());
    svc.set_seeds(mailbox::counting_seeds());
    let created = svc
        .new_game(&mailbox::game(scenario, &format!("{scenario}-1")), "test")
        .unwrap();
    svc.pass(&mut inbox, &sender).unwrap();
    // The welcome mails, with each secret (random) masked.
    let mut out = Vec::new();
    for m in mailbox::sent(&dir) {
        if m.subject.contains("welcome") {
            let mut text = golden_text(&m.raw);
            for (_, secret) in &created.secrets {
                text = text.replace(secret.as_str(), "<the player's secret>");
            }
            out.push((format!("welcome-{scenario}-{}", side_of(&m.to)), text));
        }
    }
    let g = svc.game(&created.id).unwrap();
    let scn = svc.scenario(&g.scenario).unwrap();
    let state = svc.state_of(&g).unwrap();
    for (i, (side, secret)) in created.secrets.iter().enumerate() {
        let from = match side {
            Side::Egyptian => "gordon@example.org",
            Side::Mahdist => "mahdi@example.org",
        };
        let example = example_march(&scn, &state, *side).unwrap_or_default();
        let raw = format!(
            "From: {from}\r\nTo: dervish@example.org\r\nSubject: [dervish {}] orders\r\nMessage-ID: <golden-{i}@players.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\n{example}\r\nREADY\r\n",
            created.id
        );
        inbox.deliver(raw.as_bytes()).unwrap();
    }
    let report = svc.pass(&mut inbox, &sender).unwrap();
    assert_eq!(report.turns_played.len(), 1, "{report:?}");
    for m in mailbox::sent(&dir) {
        if m.subject.contains(" results") {
            out.push((
                format!("results-{scenario}-{}", side_of(&m.to)),
                golden_text(&m.raw),
            ));
        }
    }
    out.sort();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn side_of(to: &[String]) -> &'static str {
    if to.iter().any(|t| t == "gordon@example.org") {
        "egyptian"
    } else {
        "mahdist"
    }
}

/// A mail as its reader meets it: the subject, the text, each file by
/// name and type with its content. The turn record's state before the
/// turn (tens of kilobytes of JSON) is given by its length and digest,
/// which the record also carries.
fn golden_text(raw: &[u8]) -> String {
    let m = MessageParser::default().parse(raw).unwrap();
    let mut s = format!(
        "Subject: {}\n\n{}",
        m.subject().unwrap_or_default(),
        m.body_text(0).unwrap_or_default().replace("\r\n", "\n")
    );
    for a in m.attachments() {
        let name = a.attachment_name().unwrap_or_default();
        let ctype = a
            .content_type()
            .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()))
            .unwrap_or_default();
        // A picture by what it is, not its bytes (which depend on the
        // system's fonts): its Content-ID, and that it is a PNG.
        if ctype.starts_with("image/") {
            assert_eq!(&a.contents()[..8], b"\x89PNG\r\n\x1a\n", "{name}");
            s.push_str(&format!(
                "\n---------- attached: {name} ({ctype}) ----------\n(a PNG picture, Content-ID <{}>, {})\n",
                a.content_id().unwrap_or_default(),
                a.content_disposition()
                    .map_or("no disposition", |d| d.ctype())
            ));
            continue;
        }
        let text = String::from_utf8_lossy(a.contents()).replace("\r\n", "\n");
        let text = match TurnRecord::from_json(&text) {
            Ok(mut r) => {
                r.state_before = format!(
                    "({} bytes of JSON, SHA-256 {})",
                    r.state_before.len(),
                    r.state_before_sha256
                );
                serde_json::to_string_pretty(&r).unwrap() + "\n"
            }
            Err(_) => text,
        };
        s.push_str(&format!(
            "\n---------- attached: {name} ({ctype}) ----------\n{text}"
        ));
    }
    s
}

fn check_golden(path: &Path, got: &str) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run UPDATE_GOLDEN=1 cargo test --test golden_results",
            path.display()
        )
    });
    if want != got {
        let first = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| want.lines().count().min(got.lines().count()));
        panic!(
            "{} differs from line {}:\n  golden: {:?}\n  now:    {:?}\n(UPDATE_GOLDEN=1 writes it anew)",
            path.display(),
            first + 1,
            want.lines().nth(first),
            got.lines().nth(first)
        );
    }
}

fn golden(scenario: &str) {
    let mails = first_results(scenario);
    let names: Vec<&str> = mails.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("results-{scenario}-egyptian"),
            format!("results-{scenario}-mahdist"),
            format!("welcome-{scenario}-egyptian"),
            format!("welcome-{scenario}-mahdist"),
        ],
        "one results mail and one welcome to each player"
    );
    for (name, text) in &mails {
        // Every results mail: the month's news first, where victory
        // stands and the deadline on the first screen, then the orders'
        // outcomes, the player's roster, where the log went, the maps and
        // the turn record; and the limits of a readable mail.
        if name.starts_with("results") {
            for part in [
                "The month's news",
                "Where victory stands",
                "Your order of battle",
                "The full log, every roll",
                "Anyone can play this turn again",
                "---------- attached: ",
                "\"record\": \"dervish turn record\"",
            ] {
                assert!(text.contains(part), "{name}: {part:?} in\n{text}");
            }
            check_first_screen(name, text);
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(format!("{name}.txt"));
        check_golden(&path, text);
    }
}

/// The first screen of a results mail (its first 45 lines) holds the
/// month's news, where victory stands and the deadline; the next screen
/// the orders' outcomes and what the enemy was seen to do. The plain body
/// is under 250 lines, and no line of it is over 100 characters.
fn check_first_screen(name: &str, text: &str) {
    let body = text
        .split("\n---------- attached: ")
        .next()
        .unwrap_or_default();
    let lines: Vec<&str> = body.lines().collect();
    assert!(lines.len() < 250, "{name}: {} lines", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 100, "{name}: a line over 100: {l:?}");
    }
    let first: String = lines
        .iter()
        .take(45)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    for part in [
        "The month's news",
        "Where victory stands",
        "The game ends after",
        "Orders are due by",
    ] {
        assert!(
            first.contains(part),
            "{name}: {part:?} in the first screen:\n{first}"
        );
    }
    let side = if name.ends_with("egyptian") {
        ("Egyptian", "Mahdist")
    } else {
        ("Mahdist", "Egyptian")
    };
    let orders = body.find(&format!("Your orders ({})", side.0));
    let seen = body.find(&format!("What the {} was seen to do", side.1));
    let log = body.find("The full log, every roll");
    assert!(
        orders.is_some() && orders < seen && seen < log,
        "{name}: the orders' outcomes, then the enemy's, then where the log is:\n{body}"
    );
}

#[test]
fn results_of_scenario_1_el_obeid() {
    golden("el-obeid");
}

#[test]
fn results_of_scenario_2_khartoum() {
    golden("khartoum");
}

/// A later month of scenario 2, played through the mail service by the
/// programmed players (the historical Egyptian's orders sent by mail):
/// September 1884, when the Gordon Relief Expedition lands, with Khartoum
/// and Souakim under siege and losses scattered over the theatre. The Egyptian's results mail, its first screen and its
/// limits, against a golden file.
#[test]
fn results_of_a_later_month_with_the_relief_expedition() {
    let dir = temp_dir("later");
    let (mut svc, _) = common::campaign::play(&dir, "khartoum", "k-late", Mode::Monthly, 8);
    let sender = Sender::new(&TransportConfig::File {
        dir: dir.join("outbox"),
    })
    .unwrap();
    svc.flush(&sender).unwrap();
    let mails: Vec<mailbox::Sent> = mailbox::sent(&dir)
        .into_iter()
        .filter(|m| m.subject.contains("September 1884 results"))
        .collect();
    assert_eq!(mails.len(), 1, "one results mail, to the Egyptian");
    let text = golden_text(&mails[0].raw);
    let name = "results-khartoum-1884-09-egyptian";
    check_first_screen(name, &text);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Arrived: the Gordon Relief Expedition at "),
        "{text}"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.txt"));
    check_golden(&path, &text);
    let _ = std::fs::remove_dir_all(&dir);
}
