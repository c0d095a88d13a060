//! Games with due turns, for timing one pass of `dervish run --once`
//! (`scripts/bench-pass`, docs/performance.md).
//!
//!   due_turns CONFIG GAMES
//!       create GAMES games (scenario khartoum, monthly; ids p1, p2, ...)
//!       in the service described by CONFIG, as if ten days ago: their
//!       set-up steps are played (default set-ups) and every mail they
//!       queued is sent, so that the first month of every game is past
//!       its deadline and nothing else waits. The next `run --once` plays
//!       GAMES turns and sends their results, and nothing more.
//!
//! Not part of the product: it drives the service's library and writes
//! files, nothing more.

use std::path::Path;

use chrono::{Duration, Utc};
use dervish::service::games::NewGame;
use dervish::service::{Config, Service, daemon};
use dervish::store::Mode;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.as_slice() {
        [config, games] => make(config, games),
        _ => Err("usage: due_turns CONFIG GAMES".into()),
    };
    if let Err(e) = r {
        eprintln!("due_turns: {e}");
        std::process::exit(1);
    }
}

fn make(config: &str, games: &str) -> Res<()> {
    let cfg = Config::read(Path::new(config))?;
    let n: usize = games.parse()?;
    let past = Utc::now() - Duration::days(10);
    let sender = daemon::sender(&cfg)?;
    let mut s = Service::open(cfg)?;
    s.set_clock(Box::new(move || past));
    for i in 1..=n {
        let created = s.new_game(
            &NewGame {
                scenario: "khartoum".into(),
                egyptian: "red@localhost".into(),
                mahdist: "blue@localhost".into(),
                id: Some(format!("p{i}")),
                mode: Mode::Monthly,
                deadline_hours: None,
                ambushes: false,
                table_battles: Default::default(),
                resolver: Default::default(),
            },
            "bench",
        )?;
        while s.game(&created.id)?.turn_kind.is_setup() {
            s.play_turn(&created.id)?;
        }
    }
    let (sent, failed) = s.flush(&sender)?;
    println!("{n} games made; {sent} mails sent, {failed} failed");
    Ok(())
}
