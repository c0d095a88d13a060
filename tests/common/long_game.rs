//! A game of the mail service for the tests of long games between
//! people (absence, stand-ins, ending by agreement, rollback, time
//! banks): game `k-1` of scenario 2 opened at its first month, the
//! Egyptian played by mail and the Mahdist by mail or the programmed
//! player. Included by `#[path]` beside `mailbox.rs`.

#![allow(dead_code)]

use chrono::{DateTime, Duration, Utc};
use dervish::scenario::Side;
use dervish::service::Config;
use dervish::store;

use crate::mailbox::{self, Table};

pub const GORDON: &str = "gordon@example.org";
pub const MAHDI: &str = "mahdi@example.org";
pub const GM: &str = "gm@example.org";

pub struct Game {
    pub table: Table,
    pub secrets: Vec<(Side, String)>,
}

mailbox::at_table!(Game);

impl Game {
    /// Game `k-1` with 72-hour deadlines; `mahdist` is an address or
    /// `bot`; `tune` changes the configuration.
    pub fn new(name: &str, mahdist: &str, tune: impl FnOnce(&mut Config)) -> Game {
        let table = Table::open("dervish-long", name, |cfg| {
            cfg.turns.setup_hours = 0;
            // The clock jumps days at a time: no pass is downtime.
            cfg.turns.downtime_minutes = 100_000_000;
            tune(cfg);
        });
        let (_, secrets) = table.start_game(&mailbox::k1_against(mahdist), None);
        let mut g = Game { table, secrets };
        g.pass();
        g
    }

    /// Mail `body` from `side`'s player, with the secret when `secret`.
    pub fn mail(&mut self, side: Side, body: &str, secret: bool) {
        let from = if side == Side::Egyptian {
            GORDON
        } else {
            MAHDI
        };
        let text = if secret {
            format!("SECRET {}\n{body}", mailbox::secret(&self.secrets, side))
        } else {
            body.to_string()
        };
        self.deliver(from, "[dervish k-1] orders", &text);
        self.pass();
    }

    /// Mail `body` with the secret.
    pub fn send(&mut self, side: Side, body: &str) {
        self.mail(side, body, true);
    }

    /// Move the clock to `at` (RFC 3339) and run a pass.
    pub fn at(&mut self, at: &str) {
        *self.now.lock().unwrap() = time(at);
        self.pass();
    }

    /// Move the clock on by `hours` and run a pass.
    pub fn later(&mut self, hours: i64) {
        let t = *self.now.lock().unwrap() + Duration::hours(hours);
        *self.now.lock().unwrap() = t;
        self.pass();
    }

    pub fn game(&self) -> store::GameRow {
        self.svc.game("k-1").unwrap()
    }

    /// The mails of game `k-1` to `to` whose subject holds `subject`, in
    /// the order they were queued (the outbox's, not the files' names),
    /// each as its subject and text.
    pub fn mails(&self, to: &str, subject: &str) -> Vec<String> {
        store::mail_for(&self.svc.conn, Some("k-1"))
            .unwrap()
            .into_iter()
            .filter(|m| m.recipient == to && m.subject.contains(subject))
            .map(|m| format!("{}\n{}", m.subject, m.body_text))
            .collect()
    }

    /// The last mail to `to` whose subject holds `subject`.
    pub fn last(&self, to: &str, subject: &str) -> Option<String> {
        self.mails(to, subject).pop()
    }

    /// How many mails went to `to` with `subject` in their subject.
    pub fn count(&self, to: &str, subject: &str) -> usize {
        self.mails(to, subject).len()
    }
}

pub fn time(at: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(at)
        .unwrap()
        .with_timezone(&Utc)
}
