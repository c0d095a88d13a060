//! Orders do what the player wrote, through the mail service: an order
//! possible only after an earlier one succeeds is accepted as conditional
//! and carried out in its turn (5.2 III, 9.12), and leaders who land in a
//! stack's hex during the turn stay there (8.3). Each game starts from the
//! situation of a rule case in `tests/cases/`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use dervish::mail::inbound::{self, Limits};
use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::{Sender, TransportConfig};
use dervish::scenario::{DataSet, Side};
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::state::{GameState, Status as UnitStatus};
use dervish::store::Mode;

struct Harness {
    dir: PathBuf,
    svc: Service,
    inbox: Maildir,
    sender: Sender,
    game: String,
    secrets: Vec<(Side, String)>,
    n: u32,
}

impl Drop for Harness {
    fn drop(&mut self) {
        // Keep the folder of a failed test for a look; clean up otherwise.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A sent mail as read back from the outbox folder.
struct Sent {
    to: Vec<String>,
    subject: String,
    text: String,
}

/// The text with every run of white space one space: prose is wrapped.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Harness {
    /// A monthly game with both seats held by people, starting from the
    /// situation of the rule case `case` (a file of `tests/cases/`), its
    /// turn seeds all `seed`.
    fn from_case(name: &str, case: &str, seed: u8) -> Harness {
        let dir = std::env::temp_dir().join(format!(
            "dervish-sequence-{name}-{}-{}",
            std::process::id(),
            Utc::now().timestamp_nanos_opt().unwrap_or_default()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut cfg = Config {
            database: dir.join("dervish.sqlite"),
            outgoing: TransportConfig::File {
                dir: dir.join("outbox"),
            },
            ..Config::default()
        };
        cfg.inbox.maildir = dir.join("inbox");
        cfg.host.address = "dervish@example.org".into();
        cfg.host.game_master = "gm@example.org".into();
        let sender = Sender::new(&cfg.outgoing).unwrap();
        let inbox = Maildir::open(&cfg.inbox.maildir).unwrap();
        let mut svc = Service::open(cfg).unwrap();
        svc.set_seeds(Box::new(move || [seed; 32]));
        let now = Arc::new(Mutex::new(
            DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
        ));
        svc.set_clock(Box::new(move || *now.lock().unwrap()));
        let data = DataSet::embedded().unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cases")
            .join(case);
        let situation = dervish::cases::load(&path, &data).unwrap();
        let created = svc
            .new_game_from(
                &NewGame {
                    scenario: "khartoum".into(),
                    egyptian: "gordon@example.org".into(),
                    mahdist: "mahdi@example.org".into(),
                    id: Some("seq".into()),
                    mode: Mode::Monthly,
                    deadline_hours: Some(72),
                    ambushes: false,
                    table_battles: Default::default(),
                    resolver: Default::default(),
                },
                Some(situation.state),
                "test",
            )
            .unwrap();
        Harness {
            dir,
            svc,
            inbox,
            sender,
            game: created.id,
            secrets: created.secrets,
            n: 0,
        }
    }

    /// Mail `body` as `side`'s orders for the month.
    fn send_orders(&mut self, side: Side, body: &str) {
        let (from, secret) = match side {
            Side::Egyptian => ("gordon@example.org", self.secret(side)),
            Side::Mahdist => ("mahdi@example.org", self.secret(side)),
        };
        let month = self.svc.game(&self.game).unwrap().month;
        self.n += 1;
        let raw = format!(
            "From: {from}\r\nTo: dervish@example.org\r\nSubject: [dervish {}] orders {month}\r\nMessage-ID: <s{}@players.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\n{}",
            self.game,
            self.n,
            body.replace('\n', "\r\n")
        );
        self.inbox.deliver(raw.as_bytes()).unwrap();
        self.svc.pass(&mut self.inbox, &self.sender).unwrap();
    }

    fn secret(&self, side: Side) -> String {
        self.secrets
            .iter()
            .find(|(s, _)| *s == side)
            .map(|(_, s)| s.clone())
            .expect("a secret for each human seat")
    }

    /// Every mail sent to `addr`, oldest first.
    fn sent_to(&self, addr: &str) -> Vec<Sent> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.dir.join("outbox"))
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
                Sent {
                    to: m.to.clone(),
                    subject: m.subject.clone(),
                    text: m.body.text.clone(),
                }
            })
            .filter(|s| s.to.iter().any(|t| t == addr))
            .collect()
    }

    /// The one mail to `addr` whose subject has `subject` in it.
    fn mail(&self, addr: &str, subject: &str) -> String {
        let found: Vec<Sent> = self
            .sent_to(addr)
            .into_iter()
            .filter(|s| s.subject.contains(subject))
            .collect();
        assert_eq!(found.len(), 1, "one mail \"{subject}\" to {addr}");
        flat(&found[0].text)
    }

    fn state(&self) -> GameState {
        let g = self.svc.game(&self.game).unwrap();
        self.svc.state_of(&g).unwrap()
    }
}

fn unit_at(state: &GameState, id: &str) -> Option<String> {
    let u = state.units.iter().find(|u| u.id.0.as_ref() == id)?;
    match u.status {
        UnitStatus::OnMap(h) => Some(h.to_string()),
        _ => None,
    }
}

fn leader_at(state: &GameState, name: &str) -> Option<String> {
    let l = state.leaders.iter().find(|l| l.name == name)?;
    l.hex.map(|h| h.to_string())
}

/// 5.2 III and 9.12: the garrison of besieged Berber marches out after the
/// attack written above it drove the besiegers off. The receipt marks the
/// order CONDITIONAL and names the line it depends on; the results carry
/// it out.
#[test]
fn rule_5_2_a_conditional_order_is_marked_on_the_receipt_and_carried_out() {
    let mut h = Harness::from_case(
        "conditional",
        "5.2-a-conditional-order-is-carried-out.toml",
        1,
    );
    h.send_orders(
        Side::Egyptian,
        "MARCH STACK 3025 TO Berber ATTACK ANY\nMARCH STACK Berber TO 3024\nREADY\n",
    );
    let receipt = h.mail("gordon@example.org", "orders received");
    assert!(
        receipt.contains("line 3: CONDITIONAL: MARCH STACK Berber (3026) TO 3024"),
        "{receipt}"
    );
    assert!(
        receipt.contains(
            "conditional on line 2: possible only if that order succeeds (its attack drives the enemy from 3027)"
        ),
        "{receipt}"
    );
    assert!(!receipt.contains("NOT POSSIBLE"), "{receipt}");
    h.send_orders(Side::Mahdist, "READY\n");
    let results = h.mail("gordon@example.org", "results");
    assert!(
        results.contains("combat at 3027: Egyptian won"),
        "{results}"
    );
    assert!(!results.contains("order 2 set aside"), "{results}");
    let state = h.state();
    assert_eq!(unit_at(&state, "ER01").as_deref(), Some("3024"));
    assert_eq!(unit_at(&state, "ER02").as_deref(), Some("3024"));
}

/// 8.3: "The marching stack may drop off units but may not pick up
/// units." The Gordon Relief Expedition lands at Wady Halfa in September
/// 1884: the receipt says its units and leaders stay there, and after the
/// turn Wolseley, H. Stewart and Earle are still at Wady Halfa while the
/// two battalions that stood there have marched.
#[test]
fn rule_8_3_the_receipt_names_the_leaders_who_arrive_and_stay() {
    let mut h = Harness::from_case("arrivals", "8.3-leaders-who-arrive-this-month-stay.toml", 1);
    h.send_orders(Side::Egyptian, "MARCH STACK Wady Halfa TO Sarras\nREADY\n");
    let receipt = h.mail("gordon@example.org", "orders received");
    assert!(
        receipt.contains("2 units (ER01 ER02) from Wady Halfa (1101)"),
        "{receipt}"
    );
    assert!(
        receipt.contains(
            "arriving at Wady Halfa (1101) this month, they stay there and do not march with it (8.3)"
        ) && receipt.contains("Wolseley, H. Stewart, Earle"),
        "{receipt}"
    );
    h.send_orders(Side::Mahdist, "READY\n");
    let results = h.mail("gordon@example.org", "results");
    assert!(
        results.contains("gordon-relief arrives at Wady Halfa"),
        "{results}"
    );
    let state = h.state();
    for name in ["Wolseley", "H. Stewart", "Earle"] {
        assert_eq!(
            leader_at(&state, name).as_deref(),
            Some("1101"),
            "{name} stays at Wady Halfa"
        );
    }
    assert_ne!(unit_at(&state, "ER01").as_deref(), Some("1101"));
}

/// 5.2 III and 9.12: the same conditional order when the attack it
/// depends on is beaten: the receipt marks it, and the results say why it
/// was not carried out; the garrison stays in Berber.
#[test]
fn rule_5_2_a_conditional_order_whose_attack_fails_is_set_aside_with_the_reason() {
    let mut h = Harness::from_case(
        "not-carried-out",
        "5.2-a-conditional-order-is-not-carried-out.toml",
        1,
    );
    h.send_orders(
        Side::Egyptian,
        "MARCH STACK 3025 TO Berber ATTACK ANY\nMARCH STACK Berber TO 3024\nREADY\n",
    );
    let receipt = h.mail("gordon@example.org", "orders received");
    assert!(
        receipt.contains("line 3: CONDITIONAL: MARCH STACK Berber (3026) TO 3024"),
        "{receipt}"
    );
    h.send_orders(Side::Mahdist, "READY\n");
    let results = h.mail("gordon@example.org", "results");
    assert!(results.contains("combat at 3027: Mahdist won"), "{results}");
    assert!(
        results.contains(
            "order 2 set aside: Berber (3026) is under siege: its units may leave only after every adjacent enemy has been driven away (9.12)"
        ),
        "{results}"
    );
    let state = h.state();
    assert_ne!(unit_at(&state, "ER01").as_deref(), Some("3024"));
    assert_ne!(unit_at(&state, "ER02").as_deref(), Some("3024"));
}
