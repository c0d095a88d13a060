//! The campaign archive (`dervish archive`): a finished campaign of each
//! scenario and a running one, played through the mail service, written
//! as a static site; every page and link there, the JSON read back byte
//! for byte, the maps with every town, nothing published before the turn
//! that reveals it, and the site rebuilt after each turn when configured.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use dervish::render::archive::{GameFile, MonthFile};
use dervish::service::Service;
use dervish::store::{self, Mode, Status};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dervish-archive-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir)
                        .expect("under dir")
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    out
}

/// The `href` and `src` values of a page.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let end = rest.find('"').expect("closing quote");
            out.push(rest[..end].replace("&amp;", "&"));
            rest = &rest[end..];
        }
    }
    out
}

/// Every link of every page of the site at `root` leads to a file there.
fn check_links(root: &Path) {
    for f in files(root).iter().filter(|f| f.ends_with(".html")) {
        let page = root.join(f);
        let html = std::fs::read_to_string(&page).expect("page");
        let base = page.parent().expect("folder");
        for l in links(&html) {
            if l.starts_with("data:") {
                continue;
            }
            assert!(
                !l.contains("://") && !l.starts_with('/'),
                "{f}: {l} is not a relative link"
            );
            let target = l.split('#').next().unwrap_or_default();
            if target.is_empty() {
                continue;
            }
            assert!(
                base.join(target).is_file(),
                "{f}: the link {l} leads nowhere"
            );
        }
    }
}

/// Every field name of a JSON file of the archive is in docs/archive.md
/// (the engine's own `state` and `events` are documented where they are
/// defined).
fn check_documented(path: &Path) {
    fn keys(v: &serde_json::Value, out: &mut BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    out.insert(k.clone());
                    if k != "state" && k != "events" {
                        keys(v, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/archive.md"))
            .expect("docs/archive.md");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("file")).expect("json");
    let mut all = BTreeSet::new();
    keys(&v, &mut all);
    for k in all {
        assert!(
            doc.contains(&format!("`{k}`")),
            "{}: the field {k} is not in docs/archive.md",
            path.display()
        );
    }
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> (T, String) {
    let text = std::fs::read_to_string(path).expect("json file");
    let v = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} does not read back: {e}", path.display()));
    (v, text)
}

fn pretty<T: serde::Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("json");
    s.push('\n');
    s
}

fn compact<T: serde::Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string(v).expect("json");
    s.push('\n');
    s
}

fn play(name: &str, scenario: &str, mode: Mode, turns: u32) -> (PathBuf, Service, String) {
    let dir = temp_dir(name);
    let (svc, secret) = common::campaign::play(&dir.join("game"), scenario, name, mode, turns);
    (dir, svc, secret)
}

/// A finished campaign of each scenario: every month has its page, map
/// after each player turn and JSON; the JSON reads back to what the
/// archive was made from and prints again byte for byte; every link
/// leads to a file; every town is on the theatre maps at its hex; the
/// umpire's notes and the programmed player's key are out now the game is.
#[test]
fn a_finished_campaign_of_each_scenario_is_archived_whole() {
    for (scenario, months) in [("el-obeid", 18), ("khartoum", 21)] {
        let id = format!("{scenario}-done");
        let (dir, svc, _) = play(&id, scenario, Mode::Monthly, 40);
        let g = svc.game(&id).expect("game");
        assert_eq!(g.status, Status::Finished, "{scenario} played to its end");
        let out = dir.join("site");
        let built = svc.archive(&id, &out).expect("archive");
        let site = out.join(&id);
        let all = files(&site);
        let a = svc.archive_data(&g).expect("archive data");
        assert!(
            !a.months.is_empty() && a.months.len() <= months,
            "{scenario}: {} months",
            a.months.len()
        );
        assert_eq!(built.months, a.months.len());
        assert_eq!(built.files, all.len(), "{scenario}: {all:?}");
        for f in ["index.html", "verify.html", "json/game.json"] {
            assert!(all.contains(f), "{scenario}: {f} missing");
        }
        assert!(out.join("index.html").is_file() && out.join("style.css").is_file());

        // The JSON, month by month and of the campaign, reads back to the
        // data it was written from, and prints again byte for byte.
        let (game, text): (GameFile, String) = read(&site.join("json/game.json"));
        assert_eq!(game, a.game);
        assert_eq!(pretty(&game), text);
        assert_eq!(game.months.len(), a.months.len());
        for m in &a.months {
            let (back, text): (MonthFile, String) =
                read(&site.join(format!("json/{}.json", m.month)));
            assert_eq!(&back, m, "{scenario} {}", m.month);
            assert_eq!(compact(&back), text);
            assert!(all.contains(&format!("{}.html", m.month)));
            assert!(!m.player_turns.is_empty());
            for pt in &m.player_turns {
                let map = format!("maps/{}-{}.svg", m.month, pt.side);
                assert!(all.contains(&map), "{scenario}: {map} missing");
            }
            for t in &m.turns {
                assert!(all.contains(&t.record), "{scenario}: {} missing", t.record);
                assert!(t.orders.iter().all(|o| !o.sealed_sha256.is_empty()));
            }
        }
        // A month of two player turns has the state between them, which
        // is not the month's end.
        let two = a
            .months
            .iter()
            .find(|m| m.player_turns.len() == 2)
            .expect("a month of two player turns");
        assert_ne!(two.player_turns[0].state, two.player_turns[1].state);
        assert_eq!(two.player_turns[0].side, "egyptian");
        // The last player turn's state is the stored one.
        let last = a
            .months
            .last()
            .and_then(|m| m.player_turns.last())
            .expect("last");
        assert_eq!(
            serde_json::to_string(&last.state).expect("json"),
            *g.state,
            "{scenario}: the archive ends where the game did"
        );

        check_links(&out);
        check_documented(&site.join("json/game.json"));
        for m in &a.months {
            check_documented(&site.join(format!("json/{}.json", m.month)));
        }

        // Every town at its place on every theatre map.
        let scn = svc.scenario(scenario).expect("scenario");
        let towns: Vec<_> = scn
            .map
            .places()
            .iter()
            .filter(|p| p.kind == dervish::geo::PlaceKind::Town)
            .collect();
        assert!(!towns.is_empty());
        for f in all.iter().filter(|f| {
            f.starts_with("maps/") && (f.ends_with("-egyptian.svg") || f.ends_with("-mahdist.svg"))
        }) {
            let svg = std::fs::read_to_string(site.join(f)).expect("map");
            for t in &towns {
                assert!(
                    svg.contains(&format!("data-hex=\"{}\"", t.hex)) && svg.contains(&t.name),
                    "{scenario} {f}: {} missing",
                    t.name
                );
            }
        }

        // Over: the programmed player's notes and key are published.
        let index = std::fs::read_to_string(site.join("index.html")).expect("index");
        assert!(
            index.contains(g.result.as_deref().expect("a result")),
            "{scenario}: the result and why"
        );
        assert!(
            index.contains("class=\"chart\""),
            "{scenario}: strength charts"
        );
        assert!(index.contains("the programmed player (mahdist)"));
        assert!(
            !index.contains("gordon@example.org"),
            "no address without consent"
        );
        let verify = std::fs::read_to_string(site.join("verify.html")).expect("verify");
        let key = store::players(&svc.conn, &id)
            .expect("players")
            .into_iter()
            .find_map(|p| p.bot_key)
            .expect("a key");
        assert!(
            verify.contains(&key),
            "{scenario}: the key revealed at the end"
        );
        assert!(
            a.months
                .iter()
                .flat_map(|m| &m.turns)
                .all(|t| t.umpire_notes.is_some())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A running game's archive holds nothing a side may not know yet: not
/// the open turn's seed or the orders already sent for it, not the
/// programmed player's notes or key, not a player's address.
#[test]
fn nothing_is_published_before_the_turn_that_reveals_it() {
    let id = "k-running";
    let (dir, mut svc, secret) = play(id, "khartoum", Mode::Monthly, 4);
    let g = svc.game(id).expect("game");
    assert_eq!(g.status, Status::Running);
    // Orders for the open turn, not yet played.
    let secret_orders = "MARCH STACK Souakim TO Tamai";
    let raw = format!(
        "From: gordon@example.org\r\nTo: dervish@localhost\r\nSubject: [dervish {id}] orders\r\nMessage-ID: <open@players.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\n{secret_orders}\r\n"
    );
    svc.receive(raw.as_bytes()).expect("orders");
    let sent = store::latest_order_set(&svc.conn, id, g.turn_no, dervish::scenario::Side::Egyptian)
        .expect("set")
        .map(|s| s.canonical)
        .expect("the orders were taken");
    assert!(sent.contains("Tamai"), "{sent}");
    let out = dir.join("site");
    svc.archive(id, &out).expect("archive");
    let key = store::players(&svc.conn, id)
        .expect("players")
        .into_iter()
        .find_map(|p| p.bot_key)
        .expect("a key");
    let notes: Vec<String> = store::audit_log(&svc.conn, id)
        .expect("audit")
        .into_iter()
        .filter(|(_, actor, ..)| actor == "bot")
        .map(|(.., detail)| detail)
        .collect();
    assert!(!notes.is_empty());
    let mut seen_fingerprint = false;
    for f in files(&out) {
        let text = String::from_utf8_lossy(&std::fs::read(out.join(&f)).expect("file")).to_string();
        assert!(!text.contains(&g.seed_hex), "{f}: the open turn's seed");
        assert!(
            !text.contains(sent.trim_end()),
            "{f}: the open turn's orders"
        );
        assert!(!text.contains(&key), "{f}: the programmed player's key");
        for n in &notes {
            // A note's first line names the month and the seal; its
            // reasons follow.
            let body = n.split_once('\n').map_or("", |(_, b)| b);
            assert!(
                body.is_empty() || !text.contains(body),
                "{f}: the umpire's notes"
            );
        }
        assert!(!text.contains("gordon@example.org"), "{f}: an address");
        seen_fingerprint |= text.contains(&g.seed_sha256);
    }
    assert!(seen_fingerprint, "the open turn's fingerprint is public");
    check_links(&out);

    // With the player's consent the address is shown; taken back, the
    // next build drops it.
    let settings = |n: u32, line: &str| {
        format!(
            "From: gordon@example.org\r\nTo: dervish@localhost\r\nSubject: [dervish {id}] settings\r\nMessage-ID: <setting{n}@players.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSECRET {secret}\r\n{line}\r\n"
        )
    };
    svc.receive(settings(1, "ADDRESS PUBLIC").as_bytes())
        .expect("settings");
    svc.archive(id, &out).expect("archive");
    let index = std::fs::read_to_string(out.join(id).join("index.html")).expect("index");
    assert!(index.contains("gordon@example.org"), "shown with consent");
    let (game, _): (GameFile, String) = read(&out.join(id).join("json/game.json"));
    assert_eq!(
        game.players
            .iter()
            .find(|p| p.side == "egyptian")
            .and_then(|p| p.address.as_deref()),
        Some("gordon@example.org")
    );
    svc.receive(settings(2, "ADDRESS HIDDEN").as_bytes())
        .expect("settings");
    svc.archive(id, &out).expect("archive");
    for f in files(&out) {
        let text = String::from_utf8_lossy(&std::fs::read(out.join(&f)).expect("file")).to_string();
        assert!(
            !text.contains("gordon@example.org"),
            "{f}: the address taken back"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `[archive] folder` set, each turn played rebuilds the game's site.
#[test]
fn the_archive_is_rebuilt_after_each_turn_when_configured() {
    let dir = temp_dir("rebuilt");
    let site = dir.join("public");
    let (svc, _) = common::campaign::play_with(
        &dir.join("game"),
        "khartoum",
        "k-r",
        Mode::Alternating,
        3,
        |c| {
            c.archive.folder = Some(site.clone());
        },
    );
    let g = svc.game("k-r").expect("game");
    assert_eq!(g.turn_no, 4, "three player turns played");
    let (game, _): (GameFile, String) = read(&site.join("k-r/json/game.json"));
    assert_eq!(
        game.months.len(),
        2,
        "February 1884 and the Egyptian turn of March"
    );
    assert!(site.join("index.html").is_file());
    let (m, _): (MonthFile, String) =
        read(&site.join(format!("k-r/json/{}.json", game.months[0].month)));
    assert_eq!(
        m.turns.len(),
        2,
        "two player turns apart in alternating mode"
    );
    check_links(&site);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The command line: `dervish archive --game ID --out DIR` and `--all`,
/// `dervish verify --from-record` on a published turn record, `dervish map
/// --game ID --month M`.
#[test]
fn the_archive_and_its_records_from_the_command_line() {
    let id = "k-cli";
    let (dir, svc, _) = play(id, "khartoum", Mode::Monthly, 3);
    drop(svc);
    let config = dir.join("dervish.toml");
    std::fs::write(
        &config,
        format!(
            "database = {:?}\n",
            dir.join("game/dervish.sqlite").to_string_lossy()
        ),
    )
    .expect("config");
    let out = dir.join("site");
    let ok = Command::cargo_bin("dervish")
        .expect("binary")
        .args(["--config"])
        .arg(&config)
        .args(["archive", "--game", id, "--out"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("3 months"));
    let all = Command::cargo_bin("dervish")
        .expect("binary")
        .args(["--config"])
        .arg(&config)
        .args(["archive", "--all", "--out"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(all.status.success());
    let none = Command::cargo_bin("dervish")
        .expect("binary")
        .args(["--config"])
        .arg(&config)
        .args(["archive", "--game", "no-such", "--out"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no game called no-such"));

    // Every published record plays again.
    let records: Vec<_> = files(&out.join(id))
        .into_iter()
        .filter(|f| f.starts_with("records/"))
        .collect();
    assert_eq!(records.len(), 3);
    for r in &records {
        let v = Command::cargo_bin("dervish")
            .expect("binary")
            .args(["verify", "--from-record"])
            .arg(out.join(id).join(r))
            .output()
            .expect("run");
        let said = String::from_utf8_lossy(&v.stdout);
        assert!(
            v.status.success() && !said.contains("DIFFERENT"),
            "{r}: {said} {}",
            String::from_utf8_lossy(&v.stderr)
        );
    }
    // A damaged record is refused with the reason.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"record\": \"something else\"}").expect("file");
    let v = Command::cargo_bin("dervish")
        .expect("binary")
        .args(["verify", "--from-record"])
        .arg(&bad)
        .output()
        .expect("run");
    assert!(!v.status.success());
    assert!(String::from_utf8_lossy(&v.stderr).contains("not a Dervish turn record"));

    // The map of a stored month, drawn and printed.
    let svg = dir.join("march.svg");
    let m = Command::cargo_bin("dervish")
        .expect("binary")
        .args(["--config"])
        .arg(&config)
        .args([
            "map",
            "--game",
            id,
            "--month",
            "March 1884",
            "--after",
            "egyptian",
            "--out",
        ])
        .arg(&svg)
        .output()
        .expect("run");
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let drawn = std::fs::read_to_string(&svg).expect("svg");
    assert!(drawn.contains("March 1884"));
    let text = Command::cargo_bin("dervish")
        .expect("binary")
        .args(["--config"])
        .arg(&config)
        .args(["map", "--game", id, "--month", "1885-01"])
        .output()
        .expect("run");
    assert!(!text.status.success());
    assert!(String::from_utf8_lossy(&text.stderr).contains("has no month 1885-01 played"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--all` archives every game it can: a game whose stored turn cannot be
/// read is reported with the reason and keeps no other game from its site.
#[test]
fn every_game_is_archived_and_a_damaged_one_is_reported() {
    let dir = temp_dir("all");
    let (svc, _) =
        common::campaign::play(&dir.join("game"), "khartoum", "k-good", Mode::Monthly, 2);
    drop(svc);
    let (svc, _) = common::campaign::play(&dir.join("game"), "el-obeid", "k-bad", Mode::Monthly, 2);
    svc.conn
        .execute(
            "UPDATE turns SET state_before = 'not a state' WHERE game_id = 'k-bad'",
            [],
        )
        .expect("damage");
    let out = dir.join("site");
    let done = svc.archive_all(&out).expect("the archive");
    assert_eq!(done.len(), 2);
    for (id, r) in &done {
        match id.as_str() {
            "k-good" => assert!(r.as_ref().is_ok_and(|b| b.months == 2), "{r:?}"),
            "k-bad" => assert!(
                r.as_ref()
                    .is_err_and(|e| e.to_string().contains("cannot be read")),
                "{r:?}"
            ),
            other => panic!("{other}"),
        }
    }
    assert!(out.join("k-good/index.html").is_file());
    assert!(!out.join("k-bad").exists());
    let list = std::fs::read_to_string(out.join("index.html")).expect("the list");
    assert!(list.contains("k-good") && !list.contains("k-bad"));
    check_links(&out);
    let _ = std::fs::remove_dir_all(&dir);
}
