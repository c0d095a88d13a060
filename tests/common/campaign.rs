//! A campaign played through the mail service: the Egyptian player's
//! orders are made by the programmed Egyptian player and sent by mail with
//! the player's secret, as a person would send them; the Mahdist seat is
//! the programmed player's. Fixed seeds and a fixed clock, so the same call
//! gives the same database. Shared by tests and benches (`#[path]`).

#![allow(dead_code)]

use std::path::Path;

use chrono::{DateTime, Utc};
use dervish::mail::outbound::TransportConfig;
use dervish::orders::{print, written};
use dervish::players::egyptian::{self, Persona};
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::store::{Mode, Status};

/// The service's configuration on `dir`: the database and the outgoing
/// mail there, no downtime extension.
pub fn config(dir: &Path) -> Config {
    let mut cfg = Config {
        database: dir.join("dervish.sqlite"),
        outgoing: TransportConfig::File {
            dir: dir.join("outbox"),
        },
        ..Config::default()
    };
    cfg.inbox.maildir = dir.join("inbox");
    cfg.turns.downtime_minutes = 1_000_000;
    // Campaigns read every mail stored, months of play later.
    cfg.outbox.keep_sent_days = 0;
    cfg
}

/// Play game `id` of `scenario` for at most `turns` turns (to its end if
/// it comes first); `mode` monthly or alternating. Returns the service and
/// the Egyptian player's secret.
pub fn play(dir: &Path, scenario: &str, id: &str, mode: Mode, turns: u32) -> (Service, String) {
    play_with(dir, scenario, id, mode, turns, |_| {})
}

/// As [`play`], with `change` made to the configuration first.
pub fn play_with(
    dir: &Path,
    scenario: &str,
    id: &str,
    mode: Mode,
    turns: u32,
    change: impl FnOnce(&mut Config),
) -> (Service, String) {
    std::fs::create_dir_all(dir).expect("the campaign's folder");
    let mut cfg = config(dir);
    change(&mut cfg);
    let mut svc = Service::open(cfg).expect("service");
    let at = DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .expect("time")
        .with_timezone(&Utc);
    svc.set_clock(Box::new(move || at));
    let mut n = 0u8;
    svc.set_seeds(Box::new(move || {
        n = n.wrapping_add(1);
        [n; 32]
    }));
    let created = svc
        .new_game(
            &NewGame {
                scenario: scenario.into(),
                egyptian: "gordon@example.org".into(),
                mahdist: "bot".into(),
                id: Some(id.into()),
                mode,
                deadline_hours: Some(72),
                ambushes: false,
                table_battles: Default::default(),
                resolver: Default::default(),
            },
            "test",
        )
        .expect("game");
    let secret = created
        .secrets
        .iter()
        .find(|(s, _)| *s == Side::Egyptian)
        .map(|(_, x)| x.clone())
        .expect("the Egyptian secret");
    let scn = svc.scenario(scenario).expect("scenario");
    // The set-up step (2.1): the Egyptian keeps the default placement
    // (READY alone); the programmed Mahdist sets up at once after him.
    let raw = format!(
        "From: gordon@example.org\r\nTo: dervish@localhost\r\nSubject: [dervish {id}] set-up\r\nMessage-ID: <c0@players.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\nREADY\r\n"
    );
    svc.receive(raw.as_bytes()).expect("the set-up mail");
    svc.play_turn(id).expect("the set-up");
    let mut mails = 0;
    for _ in 0..turns {
        let g = svc.game(id).expect("game");
        if g.status == Status::Finished {
            break;
        }
        if g.turn_kind.sides().contains(&Side::Egyptian) {
            let state = svc.state_of(&g).expect("state");
            let d = egyptian::decide(&scn, &state, Persona::Historical);
            let orders = print::sheet(&scn.map, &written::sheet(&d.orders), false);
            mails += 1;
            let raw = format!(
                "From: gordon@example.org\r\nTo: dervish@localhost\r\nSubject: [dervish {id}] orders {}\r\nMessage-ID: <c{mails}@players.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\n{}READY\r\n",
                g.month,
                orders.replace('\n', "\r\n")
            );
            svc.receive(raw.as_bytes()).expect("the orders mail");
        }
        svc.play_turn(id).expect("the turn");
    }
    (svc, secret)
}
