//! Table battles through the mail service, end to end (docs/tabletop.md):
//! a game with table battles stops at a big combat, mails the briefs,
//! takes a result mail (and answers a wrong one with line-numbered
//! errors), has it confirmed, and finishes the turn; the turn played
//! again from the database equals an uninterrupted run with that result;
//! a battle with no result by its deadline is resolved automatically and
//! the log says so; a dispute goes to the game master.

use std::path::{Path, PathBuf};

use chrono::{Duration, Utc};
use dervish::battle::table::Settlement;
use dervish::scenario::Side;
use dervish::service::games::NewGame;
use dervish::service::{Config, Service};
use dervish::state::{GameState, RuleSet, TableBattles, TableSelect};
use dervish::store::battles::BattleStatus;
use dervish::store::{self, Mode};

mod common;
use common::campaign::mailbox;

/// The service's table (`mailbox::Table`) with the game `abu-klea` on it.
struct Harness {
    table: mailbox::Table,
    secrets: Vec<(Side, String)>,
}

mailbox::at_table!(Harness);

use mailbox::SentText as Sent;
use mailbox::flat;

const EGYPTIAN: &str = "wolseley@example.org";
const MAHDIST: &str = "mahdi@example.org";
const GM: &str = "gm@example.org";

impl Harness {
    /// A game from the Abu Klea situation (tests/case-fixtures/
    /// table-battle.toml), every combat to the table with `rules`.
    fn new(name: &str, rules: RuleSet, mahdist: &str) -> Harness {
        Harness::with_resolver(name, rules, mahdist, Default::default())
    }

    fn with_resolver(
        name: &str,
        rules: RuleSet,
        mahdist: &str,
        resolver: dervish::state::AutoResolver,
    ) -> Harness {
        let mut table = mailbox::Table::open("dervish-battles", name, |cfg| {
            cfg.host.game_master = GM.into();
            // The tests move the clock by days between passes: only a gap
            // of over a week counts as the service being down.
            cfg.turns.downtime_minutes = 7 * 24 * 60;
        });
        // Fixed seeds: the column's march roll lets it attack.
        table.svc.set_seeds(mailbox::counting_seeds());
        let (_, state) = common::fixture("table-battle.toml");
        let created = table
            .svc
            .new_game_from(
                &NewGame {
                    scenario: "khartoum".into(),
                    egyptian: EGYPTIAN.into(),
                    mahdist: mahdist.into(),
                    id: Some("abu-klea".into()),
                    mode: Mode::Monthly,
                    deadline_hours: Some(72),
                    ambushes: false,
                    table_battles: TableBattles {
                        select: TableSelect::Above(5),
                        cap: Some(1),
                        rules,
                        deadline_hours: 48,
                        ..TableBattles::default()
                    },
                    resolver,
                },
                Some(state),
                "test",
            )
            .unwrap();
        Harness {
            table,
            secrets: created.secrets,
        }
    }

    fn secret(&self, side: Side) -> String {
        mailbox::secret(&self.secrets, side)
    }

    fn advance(&self, hours: i64) {
        *self.now.lock().unwrap() += Duration::hours(hours);
    }

    fn send(&mut self, side: Side, subject: &str, body: &str) {
        let from = if side == Side::Egyptian {
            EGYPTIAN
        } else {
            MAHDIST
        };
        let body = format!("SECRET {}\n{body}", self.secret(side));
        self.table.deliver(from, subject, &body);
    }

    /// A pass that plays the month of `abu-klea`: every turn stored.
    fn pass_plays_the_turn(&mut self) -> Vec<store::TurnRow> {
        let r = self.pass();
        assert_eq!(r.turns_played, vec![("abu-klea".to_string(), 1)]);
        store::turns(&self.svc.conn, "abu-klea").unwrap()
    }

    /// The game played again from the database gives what it stored.
    fn replays_clean(&self) -> bool {
        self.svc
            .replay("abu-klea")
            .unwrap()
            .iter()
            .all(|v| v.drift.is_empty())
    }

    fn sent_to(&self, addr: &str, subject_has: &str) -> Vec<Sent> {
        self.sent_text()
            .into_iter()
            .filter(|s| s.to.iter().any(|t| t == addr) && s.subject.contains(subject_has))
            .collect()
    }

    /// Whether a mail to `addr` with `subject_has` in its subject says
    /// `says` (white space folded).
    fn told(&self, addr: &str, subject_has: &str, says: &str) -> bool {
        self.sent_to(addr, subject_has)
            .iter()
            .any(|s| flat(&s.text).contains(says))
    }

    /// Both sides' orders: the British at Abu Klea attack 2333.
    fn orders(&mut self) {
        self.send(
            Side::Egyptian,
            "orders",
            "MARCH STACK \"Abu Klea\" TO 2333 ATTACK ANY\nREADY\n",
        );
        if self.secrets.iter().any(|(s, _)| *s == Side::Mahdist) {
            self.send(Side::Mahdist, "orders", "READY\n");
        }
    }

    /// A game whose first turn stopped at its table battle (the welcome
    /// mails sent, the Egyptian orders in, the turn played to the stop),
    /// and the battle's number.
    fn at_battle(name: &str, rules: RuleSet, mahdist: &str) -> (Harness, i64) {
        let mut h = Harness::new(name, rules, mahdist);
        h.pass();
        h.orders();
        h.pass();
        let id = h.battle_id();
        (h, id)
    }

    /// [`Harness::at_battle`] with the Egyptian player's result (`RIGHT`)
    /// sent and taken.
    fn proposed(name: &str, rules: RuleSet, mahdist: &str) -> (Harness, i64) {
        let (mut h, id) = Harness::at_battle(name, rules, mahdist);
        h.send(Side::Egyptian, "battle", &format!("BATTLE {id}\n{RIGHT}"));
        h.pass();
        (h, id)
    }

    fn battle_id(&self) -> i64 {
        let b = self.svc.battles("abu-klea").unwrap();
        assert_eq!(b.len(), 1, "{b:?}");
        b[0].id
    }
}

const WRONG: &str = "Hello, the square held.

WINNER MAHDIST
BI01 BI02 GOOD ORDER
BI03 GOOD ORDER
BG01 CIV01 GOOD ORDER
MS001 MS002 MS003 ELIMINATED
MS004 DISRUPTED
MS05 MS006 GOOD ORDER
END
";

const RIGHT: &str = common::TABLE_RESULT;

#[test]
fn a_table_battle_stops_the_turn_is_briefed_reported_confirmed_and_resumed() {
    let mut h = Harness::new("e2e", RuleSet::VolleyFire, MAHDIST);
    h.pass();
    h.orders();
    let r = h.pass();
    assert_eq!(r.messages, 2);
    // The turn stopped at the battle: no turn stored, the briefs out.
    assert!(store::turns(&h.svc.conn, "abu-klea").unwrap().is_empty());
    let id = h.battle_id();
    let open = h.svc.open_battle("abu-klea").unwrap().expect("open battle");
    assert_eq!(open.status, BattleStatus::Waiting);
    every_brief_shows_the_battle_and_its_table(&h, id);
    // Orders for the stopped turn are refused: they are fixed.
    h.send(
        Side::Egyptian,
        "orders",
        "MARCH STACK \"Abu Klea\" TO Metammeh\n",
    );
    h.pass();
    assert!(h.told(EGYPTIAN, "", "stopped at table battle"));

    // A wrong result: every error with its line, and nothing taken.
    h.send(Side::Egyptian, "battle", &format!("BATTLE {id}\n{WRONG}"));
    h.pass();
    let receipt = h.sent_to(EGYPTIAN, "has errors");
    assert_eq!(receipt.len(), 1);
    let text = &receipt[0].text;
    // Line 1 is the secret, 2 the BATTLE line: the result's lines are
    // counted as the mail has them.
    assert!(text.contains("line 11: no unit MS05"), "{text}");
    assert!(text.contains("did you mean MS005"), "{text}");
    assert!(text.contains("line 7: BI03"), "{text}");
    let b = h.svc.open_battle("abu-klea").unwrap().unwrap();
    assert_eq!(b.status, BattleStatus::Waiting);

    // The right result: proposed, the Mahdist player asked to confirm.
    h.send(Side::Egyptian, "battle", &format!("BATTLE {id}\n{RIGHT}"));
    h.pass();
    assert_eq!(h.sent_to(EGYPTIAN, "result received").len(), 1);
    let ask = h.sent_to(MAHDIST, "to confirm");
    assert_eq!(ask.len(), 1);
    assert!(ask[0].text.contains(&format!("CONFIRM BATTLE {id}")));
    assert!(ask[0].text.contains("MS001 MS002 MS003 ELIMINATED"));
    // The proposer cannot confirm it.
    h.send(Side::Egyptian, "battle", &format!("CONFIRM BATTLE {id}\n"));
    h.pass();
    assert!(h.told(EGYPTIAN, "not taken", "you sent this result"));
    // Confirmed: the turn is played on in the same pass.
    h.send(Side::Mahdist, "battle", &format!("CONFIRM BATTLE {id}\n"));
    let turns = h.pass_plays_the_turn();
    assert_eq!(turns.len(), 1);
    assert!(
        turns[0]
            .log
            .contains("resolved on the table (Volley Fire); result agreed by both players"),
        "{}",
        turns[0].log
    );
    assert!(turns[0].log.contains("Egyptian won"), "{}", turns[0].log);
    let results = h.sent_to(MAHDIST, "results");
    assert_eq!(results.len(), 1);

    the_archive_shows_the_table(&h, id);

    the_turn_plays_again_as_an_uninterrupted_run(&h, &turns[0]);
    // verify and replay reproduce it byte for byte.
    let v = h.svc.verify("abu-klea", "1885-01").unwrap();
    assert!(v.iter().all(|v| v.drift.is_empty()), "{v:?}");
    assert!(h.replays_clean());
    // The turn record in the results mail carries the settlement.
    assert!(results[0].text.contains("abu-klea"));
}

/// The brief to each player and the game master: the battle, its forces,
/// the table laid out and drawn (the diagram as a picture shown in the
/// HTML part and as an SVG).
fn every_brief_shows_the_battle_and_its_table(h: &Harness, id: i64) {
    for to in [EGYPTIAN, MAHDIST, GM] {
        let brief = h.sent_to(to, &format!("battle {id} to the table"));
        assert_eq!(brief.len(), 1, "brief to {to}");
        let text = &brief[0].text;
        assert!(text.contains("BATTLE BRIEF: Volley Fire"), "{text}");
        // Two players: no reaction table for solo play.
        assert!(!text.contains("Mahdist Reaction Table"), "{text}");
        assert!(text.contains(&format!("BATTLE {id}")), "{text}");
        for unit in ["BI01", "BI03", "BG01", "CIV01", "MS001", "MS006"] {
            assert!(text.contains(unit), "{unit} in {text}");
        }
        // The table laid out, and drawn: the diagram as a picture shown in
        // the HTML part and as an SVG.
        assert!(text.contains("THE TABLE"), "{text}");
        let raw = &brief[0].raw;
        let name = format!("abu-klea-battle-{id}-table");
        assert!(raw.contains(&format!("{name}.png")), "no PNG diagram");
        assert!(raw.contains("image/png"), "no PNG diagram");
        assert!(raw.contains(&format!("{name}.svg")), "no SVG diagram");
        assert!(raw.contains("image/svg+xml"), "no SVG diagram");
        assert!(
            raw.contains(&format!("cid:{name}.png@")),
            "the picture not shown"
        );
    }
}

/// The archive shows the battle's table on its month's page, as the brief
/// drew it.
fn the_archive_shows_the_table(h: &Harness, id: i64) {
    let site = h.dir.join("site");
    h.svc.archive("abu-klea", &site).unwrap();
    let tables: Vec<PathBuf> = std::fs::read_dir(site.join("abu-klea/tables"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(tables.len(), 1, "{tables:?}");
    let name = tables[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(name.ends_with(&format!("-battle-{id}.svg")), "{name}");
    let month = name.split("-battle-").next().unwrap();
    let page = std::fs::read_to_string(site.join(format!("abu-klea/{month}.html"))).unwrap();
    assert!(page.contains("<h2>The table battles</h2>"), "{page}");
    assert!(page.contains(&format!("tables/{name}")), "{page}");
}

/// The same turn `t`, played again from the database, equals an
/// uninterrupted run given that result from the start.
fn the_turn_plays_again_as_an_uninterrupted_run(h: &Harness, t: &store::TurnRow) {
    let before: GameState = serde_json::from_str(&t.state_before).unwrap();
    let settled = dervish::service::battles::settlements_from_json(&t.battles).unwrap();
    assert!(matches!(
        settled.values().next(),
        Some(Settlement::Table { .. })
    ));
    let orders = |id: Option<i64>| {
        id.and_then(|i| store::order_set(&h.svc.conn, i).unwrap())
            .map(|s| serde_json::from_str(&s.orders).unwrap())
            .unwrap_or_default()
    };
    let seed: [u8; 32] = (0..32)
        .map(|i| u8::from_str_radix(&t.seed_hex[2 * i..2 * i + 2], 16).unwrap())
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    let scn = h.svc.scenario("khartoum").unwrap();
    let (uninterrupted, stopped) = dervish::service::turns::adjudicate(
        &scn,
        before,
        t.turn_kind,
        &orders(t.egyptian_set),
        &orders(t.mahdist_set),
        seed,
        &settled,
        None,
        None,
    )
    .unwrap();
    assert!(stopped.is_none());
    assert_eq!(
        serde_json::to_string(&uninterrupted.state).unwrap(),
        t.state_after
    );
    assert_eq!(
        serde_json::to_string(&uninterrupted.events).unwrap(),
        t.events
    );
}

#[test]
fn a_battle_without_a_result_by_its_deadline_is_resolved_automatically() {
    let (mut h, id) = Harness::at_battle("deadline", RuleSet::Pits1885, MAHDIST);
    assert!(
        h.sent_to(GM, "to the table")[0]
            .text
            .contains("BATTLE BRIEF: PITS 1885")
    );
    // Before the deadline nothing moves.
    h.advance(47);
    assert!(h.pass().turns_played.is_empty());
    h.advance(2);
    let turns = h.pass_plays_the_turn();
    let b = &h.svc.battles("abu-klea").unwrap()[0];
    assert_eq!(b.status, BattleStatus::Deadline);
    assert!(
        turns[0]
            .log
            .contains("no result of the table battle came by its deadline"),
        "{}",
        turns[0].log
    );
    assert!(h.told(MAHDIST, &format!("battle {id}"), "resolved automatically"));
    assert!(h.replays_clean());
}

#[test]
fn a_disputed_result_goes_to_the_game_master_who_enters_it() {
    let (mut h, id) = Harness::proposed("dispute", RuleSet::Etyfw, MAHDIST);
    h.send(
        Side::Mahdist,
        "battle",
        &format!("DISPUTE BATTLE {id} MS004 was never disrupted\n"),
    );
    h.pass();
    let b = h.svc.open_battle("abu-klea").unwrap().unwrap();
    assert_eq!(b.status, BattleStatus::Disputed);
    let gm = h.sent_to(GM, &format!("battle {id}"));
    assert!(
        gm.iter()
            .any(|s| flat(&s.text).contains("MS004 was never disrupted")),
        "{gm:?}"
    );
    // A wrong entry by the game master is refused with its errors.
    let errors = h
        .svc
        .enter_battle_result("abu-klea", id, "WINNER EGYPTIAN\nEND\n")
        .unwrap()
        .unwrap_err();
    assert!(!errors.is_empty());
    let fixed = RIGHT.replace("MS004 DISRUPTED\nMS005 MS006", "MS004 MS005 MS006");
    h.svc
        .enter_battle_result("abu-klea", id, &fixed)
        .unwrap()
        .unwrap();
    let turns = h.pass_plays_the_turn();
    assert!(
        turns[0].log.contains("result entered by the game master"),
        "{}",
        turns[0].log
    );
}

#[test]
fn against_the_programmed_mahdist_the_players_result_stands_alone() {
    let (mut h, id) = Harness::at_battle("solo", RuleSet::VolleyFire, "bot");
    // The brief carries the seed 002 tables for running the Mahdists.
    let brief = h.sent_to(EGYPTIAN, &format!("battle {id} to the table"));
    assert!(
        brief[0].text.contains("Mahdist Reaction Table"),
        "{}",
        brief[0].text
    );
    assert!(
        flat(&brief[0].text).contains("decides a dispute. Your opponent is a programmed player"),
        "{}",
        brief[0].text
    );
    h.send(Side::Egyptian, "battle", &format!("BATTLE {id}\n{RIGHT}"));
    let r = h.pass();
    assert_eq!(
        r.turns_played,
        vec![("abu-klea".to_string(), 1)],
        "{:#?}",
        h.sent_to(EGYPTIAN, "")
    );
    assert_eq!(h.sent_to(EGYPTIAN, "result taken").len(), 1);
}

#[test]
fn an_undisputed_result_stands_at_the_deadline_and_two_different_results_are_a_dispute() {
    // Undisputed by the deadline: the result stands.
    let (mut h, id) = Harness::proposed("stands", RuleSet::VolleyFire, MAHDIST);
    h.advance(49);
    let turns = h.pass_plays_the_turn();
    let b = &h.svc.battles("abu-klea").unwrap()[0];
    assert_eq!(b.status, BattleStatus::Settled);
    assert!(turns[0].log.contains("MS001"), "{}", turns[0].log);
    assert!(h.told(
        GM,
        &format!("battle {id}"),
        "was not disputed by the deadline: it stands"
    ));

    // The other player sends a different result: the game master decides.
    let (mut h, id) = Harness::proposed("two-results", RuleSet::VolleyFire, MAHDIST);
    let other = RIGHT.replace("MS004 DISRUPTED\nMS005 MS006", "MS004 MS005 MS006");
    h.send(Side::Mahdist, "battle", &format!("BATTLE {id}\n{other}"));
    h.pass();
    let b = h.svc.open_battle("abu-klea").unwrap().unwrap();
    assert_eq!(b.status, BattleStatus::Disputed);
    assert!(h.told(GM, &format!("battle {id}"), "sent different results"));
    // The same result from both sides settles it at once.
    let (mut h, id) = Harness::proposed("same-results", RuleSet::VolleyFire, MAHDIST);
    h.send(
        Side::Mahdist,
        "battle",
        &format!("Agreed.\nBATTLE {id}\n{RIGHT}"),
    );
    h.pass_plays_the_turn();
}

#[test]
fn a_settled_or_unknown_battle_is_refused_and_a_place_is_flagged_only_in_a_flagged_game() {
    let (mut h, id) = Harness::at_battle("refusals", RuleSet::VolleyFire, "bot");
    h.send(
        Side::Egyptian,
        "battle",
        &format!("BATTLE {}\n{RIGHT}", id + 7),
    );
    h.pass();
    assert!(h.told(EGYPTIAN, "not taken", &format!("has no battle {}", id + 7)));
    h.send(Side::Egyptian, "battle", &format!("BATTLE {id}\n{RIGHT}"));
    h.pass();
    h.send(Side::Egyptian, "battle", &format!("BATTLE {id}\n{RIGHT}"));
    h.pass();
    assert!(h.told(EGYPTIAN, "not taken", "is settled already"));
    // This game sends combats above a size, not flagged places.
    let err = h.svc.flag_place("abu-klea", "Metammeh", true).unwrap_err();
    assert!(err.to_string().contains("--table-battles flagged"), "{err}");
}

#[test]
fn a_battle_deadline_that_passed_while_the_service_was_down_is_extended() {
    let (mut h, id) = Harness::at_battle("downtime", RuleSet::VolleyFire, MAHDIST);
    // The service is down past the battle's deadline (and over a week).
    h.advance(8 * 24);
    let r = h.pass();
    assert!(r.turns_played.is_empty(), "{r:?}");
    assert_eq!(r.extended, vec!["abu-klea".to_string()]);
    let b = h.svc.open_battle("abu-klea").unwrap().unwrap();
    assert_eq!(b.id, id);
    assert_eq!(b.status, BattleStatus::Waiting);
    assert!(h.told(
        MAHDIST,
        "battle deadline extended",
        &format!("table battle {id} passed")
    ));
}

#[test]
fn the_command_line_makes_a_flagged_game_lists_its_battles_and_refuses_bad_options() {
    let dir = std::env::temp_dir().join(format!("dervish-battles-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = common::process::config_file(&dir, &dir.join("db.sqlite"), "");
    let run = |args: &[&str]| common::process::dervish_with(&config, args);
    let new = |extra: &[&str]| {
        let mut args = vec![
            "game",
            "new",
            "--egyptian",
            "a@example.org",
            "--mahdist",
            "b@example.org",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let (_, err, code) = new(&["--table-battles", "above:many"]);
    assert_ne!(code, 0);
    assert!(err.contains("above:N"), "{err}");
    let (_, err, code) = new(&["--table-rules", "warhammer"]);
    assert_ne!(code, 0);
    assert!(err.contains("volley-fire, pits-1885 or etyfw"), "{err}");
    let (_, err, code) = new(&["--table-battles", "all", "--table-hours", "0"]);
    assert_ne!(code, 0);
    assert!(err.contains("--table-hours 0"), "{err}");
    let (out, err, code) = new(&[
        "--id",
        "flags",
        "--table-battles",
        "flagged",
        "--table-rules",
        "pits-1885",
        "--resolver",
        "etyfw",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (out, err, code) = run(&["game", "flag", "flags", "Abu Klea"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Abu Klea (2433) flagged"), "{out}");
    let (_, err, code) = run(&["game", "flag", "flags", "Atlantis"]);
    assert_ne!(code, 0);
    assert!(err.contains("Atlantis"), "{err}");
    let (out, _, code) = run(&["game", "battles", "flags"]);
    assert_eq!(code, 0);
    assert!(out.contains("no table battle"), "{out}");
    let mut cfg = Config {
        database: dir.join("db.sqlite"),
        ..Config::default()
    };
    cfg.inbox.maildir = dir.join("inbox");
    let svc = Service::open(cfg).unwrap();
    let g = svc.game("flags").unwrap();
    let state = svc.state_of(&g).unwrap();
    let tb = &state.options.table_battles;
    assert_eq!(tb.select, TableSelect::Flagged);
    assert_eq!(tb.rules, RuleSet::Pits1885);
    assert_eq!(tb.flagged.len(), 1);
    assert_eq!(state.options.resolver, dervish::state::AutoResolver::Etyfw);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_game_master_enters_a_result_by_mail() {
    let mut h = Harness::new("gm-mail", RuleSet::VolleyFire, MAHDIST);
    h.svc
        .set_gm_password("a long game master password")
        .unwrap();
    h.pass();
    h.orders();
    h.pass();
    let id = h.battle_id();
    let gm_mail = |h: &mut Harness, body: &str| {
        h.deliver(GM, "battle", body);
        h.pass()
    };
    // A wrong result: its errors, by the mail's line numbers.
    let wrong = RIGHT.replace("MS005", "MS05");
    gm_mail(
        &mut h,
        &format!("PASSWORD a long game master password\nGM BATTLE abu-klea {id}\n{wrong}"),
    );
    let answers = h.sent_to(GM, "game master commands");
    assert!(
        answers
            .iter()
            .any(|s| s.text.contains("line 9: no unit MS05")),
        "{answers:?}"
    );
    assert!(h.svc.open_battle("abu-klea").unwrap().is_some());
    gm_mail(
        &mut h,
        &format!(
            "PASSWORD a long game master password\nGM BATTLE abu-klea {id}\n{RIGHT}\nGM BATTLES abu-klea\n"
        ),
    );
    let turns = store::turns(&h.svc.conn, "abu-klea").unwrap();
    assert_eq!(turns.len(), 1);
    assert!(turns[0].log.contains("result entered by the game master"));
}

#[test]
fn with_the_etyfw_resolver_a_battle_past_its_deadline_is_fought_by_etyfw() {
    let mut h = Harness::with_resolver(
        "etyfw",
        RuleSet::Etyfw,
        MAHDIST,
        dervish::state::AutoResolver::Etyfw,
    );
    h.pass();
    h.orders();
    h.pass();
    let id = h.battle_id();
    assert!(
        h.sent_to(MAHDIST, "to the table")[0]
            .text
            .contains("by the ETYFW resolver")
    );
    h.advance(49);
    let turns = h.pass_plays_the_turn();
    let log = &turns[0].log;
    assert!(log.contains("by the ETYFW resolver"), "{log}");
    assert!(
        log.contains("no result of the table battle came by its deadline"),
        "{log}"
    );
    assert!(log.contains("ETYFW"), "{log}");
    assert_eq!(h.svc.battles("abu-klea").unwrap()[0].id, id);
    assert!(h.replays_clean());
}

#[test]
fn a_data_folder_brings_its_own_brief_data_checked_when_the_service_starts() {
    let dir = std::env::temp_dir().join(format!(
        "dervish-battles-data-{}-{}",
        std::process::id(),
        Utc::now().timestamp_nanos_opt().unwrap_or_default()
    ));
    let data = dir.join("scenarios");
    std::fs::create_dir_all(&data).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for e in std::fs::read_dir(&shipped).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, data.join(p.file_name().unwrap())).unwrap();
        }
    }
    let open = |dir: &Path| {
        let mut cfg = mailbox::config(dir);
        cfg.data_dir = Some(dir.join("scenarios"));
        Service::open(cfg)
    };
    let svc = open(&dir).unwrap();
    assert!(svc.tabletop.is_some());
    assert!(svc.data.etyfw.is_some());
    // A copy of the shipped data plays as the shipped data does.
    assert_eq!(
        svc.data.digest("khartoum"),
        dervish::scenario::DataSet::embedded()
            .unwrap()
            .digest("khartoum")
    );
    drop(svc);
    let good = std::fs::read_to_string(data.join("tabletop.ron")).unwrap();
    std::fs::write(data.join("tabletop.ron"), "(light: [], rules: [)").unwrap();
    let err = open(&dir).err().expect("a broken tabletop.ron is refused");
    assert!(err.to_string().contains("tabletop.ron"), "{err}");
    // The same for the ETYFW resolver's tables.
    std::fs::write(data.join("tabletop.ron"), good).unwrap();
    std::fs::write(data.join("etyfw.ron"), "(conversion: 3)").unwrap();
    let err = open(&dir).err().expect("a broken etyfw.ron is refused");
    assert!(err.to_string().contains("etyfw.ron"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_result_mail_is_read_as_orders_are_quotes_and_copies_of_the_brief_aside() {
    let (mut h, id) = Harness::at_battle("quoted", RuleSet::VolleyFire, MAHDIST);
    // The result above a quoted brief, a signature below.
    h.send(
        Side::Egyptian,
        "Re: battle",
        &format!(
            "BATTLE {id}\n{RIGHT}\n-- \nWolseley\n\nOn Sun, 1 Mar 2026, Dervish wrote:\n> BATTLE {id}\n> DRAW\n"
        ),
    );
    h.pass();
    assert_eq!(h.sent_to(EGYPTIAN, "result received").len(), 1);
    // A confirmation above an unquoted copy of the mail asking for it,
    // whose text names DISPUTE BATTLE too.
    h.send(
        Side::Mahdist,
        "Re: to confirm",
        &format!(
            "CONFIRM BATTLE {id}\n\n=== Dervish abu-klea: battle {id}, to confirm\nDISPUTE BATTLE {id} and your reason\n"
        ),
    );
    h.pass_plays_the_turn();
}
