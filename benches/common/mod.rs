//! What the benchmarks share: a service on a file database in `dir`, mail
//! written to a folder, with one game of The Siege of Khartoum.

use std::path::Path;

use dervish::mail::outbound::TransportConfig;
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::store::Mode;

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
    let created = svc
        .new_game(
            &NewGame {
                scenario: "khartoum".into(),
                egyptian: egyptian.into(),
                mahdist: mahdist.into(),
                id: Some(id.into()),
                mode: Mode::Monthly,
                deadline_hours: Some(1000),
                ambushes: false,
                table_battles: Default::default(),
                resolver: Default::default(),
            },
            "bench",
        )
        .expect("game");
    let secret = created
        .secrets
        .iter()
        .find(|(s, _)| *s == Side::Egyptian)
        .map(|(_, x)| x.clone())
        .expect("secret");
    (svc, secret)
}
