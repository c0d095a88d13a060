//! Intake speed on the embedded default: one orders mail through parse
//! (MIME), authentication, the order parser and checker, storage of the
//! raw message and the order set, and the receipt rendered and queued, in
//! one SQLite transaction (a file database in WAL mode, checkpointed on a
//! thread of its own, as in the daemon).
//! The game is in its first month (the set-up step played with the
//! default set-ups), so the orders are month orders, as most mail is.

use std::hint::black_box;

mod common;

use criterion::{Criterion, criterion_group, criterion_main};

/// The allocator of the `dervish` program, so the intake is measured as the
/// daemon runs it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use dervish::service::intake::Outcome;

fn intake(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("dervish-bench-intake-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (mut svc, secret) =
        common::service_with_game(&dir, "k-1", "gordon@example.org", "mahdi@example.org");
    while svc.game("k-1").expect("game").turn_kind.is_setup() {
        svc.play_turn("k-1").expect("the set-up step");
    }
    // As in the daemon: the database's log is checkpointed on a thread of
    // its own, beside the intake.
    let _checkpoints =
        dervish::store::Checkpointer::start(&svc.cfg.database).expect("checkpoint thread");
    let body = format!(
        "SECRET {secret}\r\nMARCH STACK Sinkat TO Souakim\r\nMARCH LEADER Baker FLEET TO Trinkitat THEN TO El Teb\r\n  ATTACK ANY\r\nMARCH STACK Tokar TO El Teb\r\nEVENT LOSSES ES07\r\n"
    );
    let mut n = 0u64;
    c.bench_function("intake: one orders mail to stored orders and a queued receipt", |b| {
        b.iter(|| {
            n += 1;
            let raw = format!(
                "From: Gordon <gordon@example.org>\r\nTo: dervish@localhost\r\nSubject: [dervish k-1] orders 1884-02\r\nMessage-ID: <bench-{n}@players.example>\r\nDate: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
            );
            let out = svc.receive(black_box(raw.as_bytes())).expect("intake");
            assert!(matches!(out, Outcome::Orders { .. }));
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, intake);
criterion_main!(benches);
