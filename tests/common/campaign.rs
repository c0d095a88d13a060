//! A campaign played through the mail service: the Egyptian player's
//! orders are made by the programmed Egyptian player and sent by mail with
//! the player's secret, as a person would send them; the Mahdist seat is
//! the programmed player's. Fixed seeds and a fixed clock, so the same call
//! gives the same database. Shared by tests and benches (`#[path]`).

#![allow(dead_code)]

// The mail service's table this campaign is played on; a crate that
// includes this file reaches it here (`common::campaign::mailbox`), not
// by a second `#[path]` of its own.
#[path = "mailbox.rs"]
pub mod mailbox;

use std::path::Path;

use dervish::orders::{print, written};
use dervish::players::egyptian::{self, Persona};
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::store::{Mode, Status};

/// The service's configuration on `dir`: the database and the outgoing
/// mail there, no downtime extension.
pub fn config(dir: &Path) -> Config {
    let mut cfg = mailbox::files_config(dir);
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
    let mut svc = mailbox::service_at(cfg, mailbox::start());
    svc.set_seeds(mailbox::counting_seeds());
    let game = NewGame {
        mahdist: "bot".into(),
        mode,
        ..mailbox::game(scenario, id)
    };
    let created = svc.new_game(&game, "test").expect("game");
    let secret = mailbox::secret(&created.secrets, Side::Egyptian);
    let scn = svc.scenario(scenario).expect("scenario");
    // The set-up step (2.1): the Egyptian keeps the default placement
    // (READY alone); the programmed Mahdist sets up at once after him.
    let setup = format!("SECRET {secret}\nREADY\n");
    let raw = from_gordon(&format!("[dervish {id}] set-up"), 0, &setup);
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
            let subject = format!("[dervish {id}] orders {}", g.month);
            let raw = from_gordon(
                &subject,
                mails,
                &format!("SECRET {secret}\n{orders}READY\n"),
            );
            svc.receive(raw.as_bytes()).expect("the orders mail");
        }
        svc.play_turn(id).expect("the turn");
    }
    (svc, secret)
}

/// The Egyptian player's mail number `n` to the service at its own
/// address (`dervish@localhost`, the default).
fn from_gordon(subject: &str, n: u32, body: &str) -> String {
    let id = format!("c{n}@players.example");
    mailbox::plain_mail(
        "gordon@example.org",
        "dervish@localhost",
        subject,
        &id,
        body,
    )
}
