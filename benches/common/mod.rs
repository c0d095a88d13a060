//! What the benchmarks share: a service on a file database in `dir`, mail
//! written to a folder, with one game of The Siege of Khartoum.

use std::path::Path;

use dervish::mail::outbound::TransportConfig;
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};

#[path = "../../tests/common/mailbox.rs"]
mod mailbox;

/// The service and the Egyptian player's secret.
pub fn service_with_game(dir: &Path, id: &str, egyptian: &str, mahdist: &str) -> (Service, String) {
    let cfg = Config {
        database: dir.join("dervish.sqlite"),
        outgoing: TransportConfig::File {
            dir: dir.join("outbox"),
        },
        ..Config::default()
    };
    let svc = Service::open(cfg).expect("service");
    let game = NewGame {
        egyptian: egyptian.into(),
        mahdist: mahdist.into(),
        deadline_hours: Some(1000),
        ..mailbox::game("khartoum", id)
    };
    let created = svc.new_game(&game, "bench").expect("game");
    let secret = mailbox::secret(&created.secrets, Side::Egyptian);
    (svc, secret)
}
