//! The set-up step (rule 2.1) played through the mail service: "Units are
//! set up in the following order", the scenario's Egyptian units first,
//! then the Mahdist's. The Egyptian's set-up is sealed, then the Mahdist's
//! made knowing it; the set-up mail with the roster and the map goes to
//! both players before the first month's orders are asked for or its
//! deadline set, and the first month is played from exactly that placement.

#[path = "common/mailbox.rs"]
mod mailbox;
#[path = "common/process.rs"]
mod process;
#[path = "common/text.rs"]
mod text;

use std::path::PathBuf;

use chrono::Duration;
use dervish::render::ascii;
use dervish::scenario::{DataSet, Scenario, Side};
use dervish::service::games::NewGame;
use dervish::service::setup::SETUP_FIRST;
use dervish::state::GameState;
use dervish::state::setup::{Placements, SetupIndex, apply_setup_order_with, initial_state};
use dervish::store::{self, Mode, TurnKind};

use mailbox::{Table, flat};
use text::says;

const EGYPTIAN: &str = "gordon@example.org";
const MAHDIST: &str = "mahdi@example.org";

/// A game on a table of the mail service (the table is reached through
/// the game: `g.svc`, `g.pass()`, `g.sent_to(..)`).
struct Game {
    table: Table,
    id: String,
    secrets: Vec<(Side, String)>,
}

mailbox::at_table!(Game);

fn new_game(scenario: &str, egyptian: &str, mahdist: &str) -> NewGame {
    NewGame {
        scenario: scenario.into(),
        egyptian: egyptian.into(),
        mahdist: mahdist.into(),
        id: Some("g".into()),
        mode: Mode::Monthly,
        deadline_hours: Some(168),
        ambushes: false,
        table_battles: Default::default(),
        resolver: Default::default(),
    }
}

impl Game {
    fn start(name: &str, req: &NewGame, situation: Option<GameState>) -> Game {
        let table = Table::open("dervish-setup-step", name, |_| {});
        let (id, secrets) = table.start_game(req, situation);
        Game { table, id, secrets }
    }

    fn mail(&mut self, from: &str, body: &str) {
        let subject = format!("[dervish {}] orders", self.id);
        self.table.deliver(from, &subject, body);
    }

    fn orders(&mut self, side: Side, body: &str) {
        let from = if side == Side::Egyptian {
            EGYPTIAN
        } else {
            MAHDIST
        };
        let text = format!("SECRET {}\n{body}", mailbox::secret(&self.secrets, side));
        self.mail(from, &text);
    }

    /// The game stands at turn `turn_no`, of kind `kind`: the state it
    /// stored.
    fn state_at(&self, turn_no: u32, kind: TurnKind) -> GameState {
        let row = self.svc.game(&self.id).unwrap();
        assert_eq!((row.turn_no, row.turn_kind), (turn_no, kind));
        serde_json::from_str(&row.state).unwrap()
    }

    fn scn(&self) -> Scenario {
        let g = self.svc.game(&self.id).unwrap();
        DataSet::embedded().unwrap().scenario(&g.scenario).unwrap()
    }
}

/// A SETUP line `side` can give in `scn`: one unit moved to another hex
/// its set-up line allows, if any does, or placed where it stands.
fn a_setup_line(scn: &Scenario, side: Side) -> (String, dervish::state::UnitId, dervish::geo::Hex) {
    let (state, _) = initial_state(scn, &Placements::new()).unwrap();
    let ix = SetupIndex::new(scn);
    let mut same = None;
    for u in state.units.iter().filter(|u| u.side == side) {
        let Some(at) = u.hex() else { continue };
        for to in scn.map.hexes().filter(|h| h.distance(at) <= 4) {
            let order = dervish::engine::orders::SetupOrder {
                units: vec![u.id.clone()],
                leaders: Vec::new(),
                at: to,
            };
            let mut s = state.clone();
            if apply_setup_order_with(scn, &mut s, side, &order, &ix).is_ok()
                && dervish::state::setup::rejoin_lone_leaders(scn, &mut s, side).is_empty()
            {
                if to != at {
                    return (format!("SETUP {} AT {to}", u.id), u.id.clone(), to);
                }
                same.get_or_insert((format!("SETUP {} AT {to}", u.id), u.id.clone(), to));
            }
        }
    }
    same.expect("a unit the side can set up")
}

fn hex_of(state: &GameState, id: &dervish::state::UnitId) -> Option<dervish::geo::Hex> {
    state
        .units
        .iter()
        .find(|u| u.id == *id)
        .and_then(|u| u.hex())
}

/// Rule 2.1, a solo game against the programmed Mahdist: the Egyptian's
/// set-up mail is placed, the Mahdist's follows at once, the set-up mail
/// reaches the player before the first month is opened, and the first
/// month plays from exactly that placement; the game replays.
fn solo_setup(scenario: &str) {
    let mut g = Game::start(scenario, &new_game(scenario, EGYPTIAN, "bot"), None);
    let scn = g.scn();
    // The set-up step: turn 0, the Egyptian's part; the Mahdist not asked.
    g.state_at(0, TurnKind::SetUp(Side::Egyptian));
    assert!(
        store::latest_order_set(&g.svc.conn, &g.id, 0, Side::Mahdist)
            .unwrap()
            .is_none(),
        "the Mahdist sets up knowing the Egyptian set-up, not before"
    );
    g.pass();
    let welcome = g.sent_to(EGYPTIAN);
    assert_eq!(welcome.len(), 1);
    let w = flat(&welcome[0].text);
    assert!(w.contains("It is your set-up now"), "{w}");
    assert!(!w.contains("Orders are due by"), "{w}");
    // The Egyptian's set-up, with a march written too early.
    let (line, unit, to) = a_setup_line(&scn, Side::Egyptian);
    g.orders(
        Side::Egyptian,
        &format!("{line}\nMARCH STACK Khartoum TO Omdurman\nREADY\n"),
    );
    g.pass();
    let mails = g.sent_to(EGYPTIAN);
    let receipt = mails
        .iter()
        .find(|m| m.subject.contains("set-up received"))
        .expect("a set-up receipt");
    let r = flat(&receipt.text);
    assert!(r.contains(SETUP_FIRST), "{r}");
    // The Mahdist's set-up followed at once; the set-up mail went out.
    let setup_at = mails
        .iter()
        .position(|m| m.subject.contains("the set-up"))
        .expect("the set-up mail");
    let setup = &mails[setup_at];
    assert!(
        !mails[..setup_at]
            .iter()
            .any(|m| m.subject.contains("results")),
        "no results before the set-up mail"
    );
    // The first month is turn 1.
    let placed = g.state_at(1, TurnKind::Month);
    assert!(placed.setup_placed);
    assert_eq!(hex_of(&placed, &unit), Some(to), "the SETUP line is placed");
    let text = setup.text.clone();
    assert!(
        flat(&text).contains(&flat(&ascii::overview(&scn, Some(&placed)))),
        "the set-up mail shows the placed map:\n{text}"
    );
    assert!(
        flat(&text).contains(&flat(&dervish::render::roster::roster(
            &scn,
            &placed,
            Side::Egyptian
        ))),
        "and the roster"
    );
    assert!(
        flat(&text).contains(&format!(
            "Orders are due by {}",
            dervish::service::games::deadline_text(g.svc.game(&g.id).unwrap().deadline)
        )),
        "{text}"
    );
    // The set-up mail's turn record verifies without the database: the
    // Mahdist's set-up read again against the Egyptian placement.
    let (records, log) = dervish::service::record::from_mail(&setup.raw).unwrap();
    let data = DataSet::embedded().unwrap();
    for c in dervish::service::record::verify(&data, &records[0], Some(&log)) {
        assert!(c.ok, "{}: {}", c.what, c.detail);
    }
    let turns = store::turns(&g.svc.conn, &g.id).unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].turn_no, 0);
    assert!(turns[0].turn_kind.is_setup());
    assert!(turns[0].egyptian_set.is_some() && turns[0].mahdist_set.is_some());
    // A SETUP line in the month's orders is refused: the set-up is over.
    g.orders(Side::Egyptian, &format!("{line}\nREADY\n"));
    g.pass();
    let receipt = g
        .sent_to(EGYPTIAN)
        .into_iter()
        .find(|m| m.subject.contains("orders received"))
        .expect("a month receipt");
    says(&flat(&receipt.text), &["the set-up is over"]);
    // A set with a refused line waits on READY; READY AS IS plays it,
    // from exactly the placement.
    assert_eq!(store::turns(&g.svc.conn, &g.id).unwrap().len(), 1);
    g.orders(Side::Egyptian, "READY AS IS\n");
    g.pass();
    let turns = store::turns(&g.svc.conn, &g.id).unwrap();
    assert_eq!(turns.len(), 2, "the first month was played");
    assert_eq!(turns[1].state_before, turns[0].state_after);
    // The whole game, set-up included, plays again byte for byte.
    let replay = g.svc.replay(&g.id).unwrap();
    assert_eq!(replay.len(), 2);
    assert!(replay.iter().all(|v| v.drift.is_empty()), "{replay:?}");
}

#[test]
fn rule_2_1_solo_khartoum_the_set_up_is_placed_and_published_before_the_first_month() {
    solo_setup("khartoum");
}

#[test]
fn rule_2_1_solo_el_obeid_the_set_up_is_placed_and_published_before_the_first_month() {
    solo_setup("el-obeid");
}

/// Rule 2.1 between two players: the Mahdist is asked for his set-up with
/// the Egyptian placement in view; a Mahdist mail before that is refused
/// and a month order in a set-up is refused on the receipt.
#[test]
fn rule_2_1_the_mahdist_set_up_request_shows_the_egyptian_placement() {
    let mut g = Game::start("two", &new_game("khartoum", EGYPTIAN, MAHDIST), None);
    let scn = g.scn();
    g.svc
        .add_observer(&g.id, "watcher@example.org", "test")
        .unwrap();
    g.pass();
    // MAP during the set-up shows the default placement, and says so.
    g.orders(Side::Egyptian, "MAP\n");
    g.pass();
    assert!(
        g.sent_to(EGYPTIAN)
            .iter()
            .any(|m| flat(&m.text).contains("this is the default placement (2.1)")),
        "MAP labels the default placement"
    );
    let w = flat(&g.sent_to(MAHDIST)[0].text);
    assert!(w.contains("The Egyptian sets up first"), "{w}");
    // The Mahdist cannot set up before the Egyptian.
    g.orders(Side::Mahdist, "READY\n");
    g.pass();
    assert!(
        g.sent_to(MAHDIST).iter().any(|m| flat(&m.text)
            .contains("the Egyptian sets up first (2.1); your set-up is asked for")),
        "the Mahdist is told he sets up after the Egyptian"
    );
    assert!(
        store::latest_order_set(&g.svc.conn, &g.id, 0, Side::Mahdist)
            .unwrap()
            .is_none()
    );
    let (line, unit, to) = a_setup_line(&scn, Side::Egyptian);
    g.orders(Side::Egyptian, &format!("{line}\nREADY\n"));
    g.pass();
    g.state_at(0, TurnKind::SetUp(Side::Mahdist));
    let row = g.svc.game(&g.id).unwrap();
    let request = g
        .sent_to(MAHDIST)
        .into_iter()
        .find(|m| m.subject.contains("your set-up"))
        .expect("the Mahdist's set-up request");
    let shown = g.svc.state_shown(&row).unwrap();
    assert_eq!(hex_of(&shown, &unit), Some(to));
    assert!(
        flat(&request.text).contains(&flat(&ascii::overview(&scn, Some(&shown)))),
        "the request shows the Egyptian placement:\n{}",
        request.text
    );
    // The Egyptian's set-up is sealed.
    g.orders(Side::Egyptian, "READY\n");
    g.pass();
    assert!(
        g.sent_to(EGYPTIAN)
            .iter()
            .any(|m| flat(&m.text).contains("your set-up is sealed: the Mahdist is setting up")),
        "the Egyptian cannot change a sealed set-up"
    );
    // The Mahdist's month order is refused; READY keeps his default.
    let (mline, ..) = a_setup_line(&scn, Side::Mahdist);
    g.orders(
        Side::Mahdist,
        &format!("{mline}\nMARCH STACK Kamlin TO Soba\nREADY\n"),
    );
    g.pass();
    let to_mahdi = g.sent_to(MAHDIST);
    let receipt = to_mahdi
        .iter()
        .find(|m| m.subject.contains("set-up received"))
        .unwrap();
    assert!(flat(&receipt.text).contains(SETUP_FIRST));
    assert!(to_mahdi.iter().any(|m| m.subject.contains("the set-up")));
    assert!(
        g.sent_to(EGYPTIAN)
            .iter()
            .any(|m| m.subject.contains("the set-up"))
    );
    let watcher = g.sent_to("watcher@example.org");
    assert!(
        watcher.len() == 1 && watcher[0].subject.contains("the set-up"),
        "the observer gets the set-up mail alone"
    );
    assert!(watcher[0].text.contains("the set-up (observer)"));
    g.state_at(1, TurnKind::Month);
    let replay = g.svc.replay(&g.id).unwrap();
    assert!(replay.iter().all(|v| v.drift.is_empty()), "{replay:?}");
}

/// Rule 2.1: at the set-up deadline a silent Egyptian's set-up is sealed
/// as it stands, the default placement; the programmed Mahdist follows.
#[test]
fn rule_2_1_the_set_up_deadline_seals_a_silent_egyptians_default_placement() {
    let mut g = Game::start("deadline", &new_game("khartoum", EGYPTIAN, "bot"), None);
    g.pass();
    // The clock goes on by the half hour, the service running (a jump
    // would be downtime, which extends the deadline).
    let deadline = g.svc.game(&g.id).unwrap().deadline;
    while *g.now.lock().unwrap() <= deadline {
        *g.now.lock().unwrap() += Duration::minutes(30);
        g.pass();
    }
    let placed = g.state_at(1, TurnKind::Month);
    assert!(
        g.sent_to(EGYPTIAN)
            .iter()
            .any(|m| m.subject.contains("your set-up due by")
                && flat(&m.text).contains("Dervish has no set-up from you")),
        "the silent Egyptian was reminded of his set-up"
    );
    let turns = store::turns(&g.svc.conn, &g.id).unwrap();
    assert!(turns[0].egyptian_set.is_none());
    assert!(
        turns[0]
            .log
            .contains("Egyptian set-up (2.1): no set-up orders, the default placement stands"),
        "{}",
        turns[0].log
    );
    let (default, _) = initial_state(&g.scn(), &Placements::new()).unwrap();
    for u in default.units.iter().filter(|u| u.side == Side::Egyptian) {
        assert_eq!(hex_of(&placed, &u.id), u.hex(), "{}", u.id);
    }
    assert!(
        g.sent_to(EGYPTIAN)
            .iter()
            .any(|m| m.subject.contains("the set-up"))
    );
}

/// A player who takes an open Egyptian seat by JOIN is asked for his
/// set-up in his welcome.
#[test]
fn rule_2_1_a_joined_egyptian_is_asked_for_his_set_up() {
    let mut g = Game::start("join", &new_game("khartoum", "open", "bot"), None);
    g.mail(EGYPTIAN, "JOIN egyptian\n");
    g.pass();
    // The seat is taken once the address confirms the JOIN.
    let token = g
        .sent_to(EGYPTIAN)
        .iter()
        .find_map(|m| mailbox::join_token(&m.text))
        .expect("a JOIN confirmation request");
    g.mail(EGYPTIAN, &format!("JOIN CONFIRM {token}\n"));
    g.pass();
    let welcome = g
        .sent_to(EGYPTIAN)
        .into_iter()
        .find(|m| m.subject.contains("welcome"))
        .expect("a welcome");
    let w = flat(&welcome.text);
    assert!(w.contains("It is your set-up now"), "{w}");
    let secret = w
        .split("SECRET ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .to_string();
    g.secrets.push((Side::Egyptian, secret));
    g.orders(Side::Egyptian, "READY\n");
    g.pass();
    g.state_at(1, TurnKind::Month);
}

/// A game from a situation has no set-up step: its board is placed, the
/// first turn is open at once and SETUP lines are refused.
#[test]
fn rule_2_1_a_situation_game_starts_with_its_board_placed() {
    let data = DataSet::embedded().unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/2.1-marches-start-where-the-set-up-puts-the-units.toml");
    let case = dervish::cases::load(&path, &data).unwrap();
    let scenario = case.scn.id().to_string();
    let mut g = Game::start(
        "situation",
        &new_game(&scenario, EGYPTIAN, MAHDIST),
        Some(case.state.clone()),
    );
    let row = g.svc.game(&g.id).unwrap();
    assert_eq!(row.turn_no, 1);
    assert!(!row.turn_kind.is_setup());
    g.pass();
    let w = flat(&g.sent_to(MAHDIST)[0].text);
    assert!(w.contains("Orders are due by"), "{w}");
    g.orders(
        Side::Mahdist,
        "SETUP MS031 MS032 MS033 MS034 MS035 MS036 WITH Osman Digma AT 4920\n",
    );
    g.pass();
    assert!(
        g.sent_to(MAHDIST)
            .iter()
            .any(|m| m.subject.contains("orders received")
                && flat(&m.text).contains("the set-up is over")),
        "a SETUP line is refused in a situation game"
    );
}

/// In alternating turns the Mahdist sets up in the set-up step too, before
/// the first Egyptian player turn, which then opens on its own.
#[test]
fn rule_2_1_alternating_turns_open_with_the_egyptian_player_turn_after_the_set_up() {
    let mut req = new_game("el-obeid", EGYPTIAN, MAHDIST);
    req.mode = Mode::Alternating;
    let mut g = Game::start("alternating", &req, None);
    g.orders(Side::Egyptian, "READY\n");
    g.pass();
    let (line, unit, to) = a_setup_line(&g.scn(), Side::Mahdist);
    g.orders(Side::Mahdist, &format!("{line}\nREADY\n"));
    g.pass();
    let placed = g.state_at(1, TurnKind::Player(Side::Egyptian));
    assert_eq!(
        hex_of(&placed, &unit),
        Some(to),
        "the Mahdist set-up stands"
    );
}

/// `dervish map --game ID` shows the default placement during the set-up,
/// labelled, and the placed set-up once it is made.
#[test]
fn rule_2_1_the_map_command_shows_the_set_up_step() {
    let dir = Table::open("dervish-setup-step", "cli-map", |_| {}).close();
    let config = process::config_file(&dir, &dir.join("dervish.sqlite"), "");
    let run = |args: &[&str]| {
        let (out, err, code) = process::dervish_with(&config, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    };
    run(&[
        "game",
        "new",
        "--id",
        "m1",
        "--egyptian",
        EGYPTIAN,
        "--mahdist",
        "bot",
    ]);
    let during = run(&["map", "--game", "m1"]);
    assert!(
        flat(&during).contains("this is the default placement (2.1)"),
        "{during}"
    );
    // The game master plays the Egyptian's part at its deadline; the
    // programmed Mahdist follows at once.
    run(&["game", "process", "m1"]);
    let after = run(&["map", "--game", "m1"]);
    assert!(!after.contains("default placement"), "{after}");
    let scn = DataSet::embedded().unwrap().scenario("khartoum").unwrap();
    let c = rusqlite::Connection::open(dir.join("dervish.sqlite")).unwrap();
    let g = store::game(&c, "m1").unwrap().unwrap();
    assert_eq!(g.turn_no, 1);
    let placed: GameState = serde_json::from_str(&g.state).unwrap();
    assert!(
        after.contains(&ascii::overview(&scn, Some(&placed))),
        "{after}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// READY keeps the set-up (docs/orders.md, READY): a mail of READY alone
/// after a mail of SETUP lines seals those lines, never an empty set.
#[test]
fn rule_2_1_ready_alone_keeps_the_set_up_lines_sent_before() {
    let mut g = Game::start("ready-keeps", &new_game("khartoum", EGYPTIAN, "bot"), None);
    let scn = g.scn();
    g.pass();
    let (line, unit, to) = a_setup_line(&scn, Side::Egyptian);
    g.orders(Side::Egyptian, &format!("{line}\n"));
    g.pass();
    assert_eq!(
        g.svc.game(&g.id).unwrap().turn_kind,
        TurnKind::SetUp(Side::Egyptian),
        "no READY yet: the set-up waits"
    );
    g.orders(Side::Egyptian, "READY\n");
    g.pass();
    assert!(
        g.sent_to(EGYPTIAN)
            .iter()
            .any(|m| m.subject.contains("set-up received")
                && flat(&m.text).contains("it confirms version 1")),
        "the receipt of READY confirms the SETUP lines"
    );
    let placed = g.state_at(1, TurnKind::Month);
    assert_eq!(
        hex_of(&placed, &unit),
        Some(to),
        "the SETUP line was placed"
    );
}

/// A set-up with a line that cannot be placed does not seal on READY: it
/// waits for a mended set-up or READY AS IS. A month order sent in the
/// set-up step is refused (the set-up comes first) but does not hold it.
#[test]
fn rule_2_1_a_refused_set_up_line_holds_ready_and_ready_as_is_seals_it() {
    let mut g = Game::start("ready-waits", &new_game("khartoum", EGYPTIAN, "bot"), None);
    g.pass();
    g.orders(Side::Egyptian, "SETUP ER01 AT Wady Halfa\nREADY\n");
    g.pass();
    let receipt = g
        .sent_to(EGYPTIAN)
        .into_iter()
        .find(|m| m.subject.contains("set-up received"))
        .expect("the receipt");
    let text = flat(&receipt.text);
    assert!(text.contains("NOT POSSIBLE"), "{}", receipt.text);
    assert!(
        text.contains("so it is not sealed early"),
        "{}",
        receipt.text
    );
    assert_eq!(
        g.svc.game(&g.id).unwrap().turn_kind,
        TurnKind::SetUp(Side::Egyptian)
    );
    g.orders(Side::Egyptian, "READY AS IS\n");
    g.pass();
    assert_eq!(g.svc.game(&g.id).unwrap().turn_kind, TurnKind::Month);

    let mut h = Game::start(
        "march-in-set-up",
        &new_game("khartoum", EGYPTIAN, "bot"),
        None,
    );
    h.pass();
    h.orders(Side::Egyptian, "MARCH STACK Khartoum TO Omdurman\nREADY\n");
    h.pass();
    let receipt = h
        .sent_to(EGYPTIAN)
        .into_iter()
        .find(|m| m.subject.contains("set-up received"))
        .expect("the receipt");
    assert!(flat(&receipt.text).contains(SETUP_FIRST));
    assert!(
        flat(&receipt.text).contains("READY your set-up is complete"),
        "{}",
        receipt.text
    );
    assert!(
        !flat(&receipt.text).contains("not sealed early"),
        "{}",
        receipt.text
    );
    assert_eq!(h.svc.game(&h.id).unwrap().turn_kind, TurnKind::Month);
}

/// The mails that ask for a set-up say what may be chosen (2.1): each
/// group a SETUP line may place, in the rules' words, its counters and
/// leaders, and where they may go.
#[test]
fn rule_2_1_the_set_up_request_lists_the_choices() {
    let mut g = Game::start("choices", &new_game("khartoum", EGYPTIAN, MAHDIST), None);
    g.pass();
    let welcome = flat(&g.sent_to(EGYPTIAN)[0].text);
    says(
        &welcome,
        &[
            "\"Khartoum and or Omdurman, Gordon, J. Stewart",
            "leaders: Gordon, J. Stewart",
            "where: Khartoum (1942), Omdurman (1941)",
        ],
    );
    g.orders(Side::Egyptian, "READY\n");
    g.pass();
    let request = g
        .sent_to(MAHDIST)
        .into_iter()
        .find(|m| m.subject.contains("your set-up"))
        .expect("the Mahdist's set-up request");
    let text = flat(&request.text);
    assert!(text.contains("Your set-up choices (Mahdist)"), "{text}");
    assert!(text.contains("leaders: Mahdi"), "{text}");
    assert!(text.contains("Kamlin (2446)"), "{text}");
    assert!(
        request.text.lines().all(|l| l.chars().count() <= 100),
        "{}",
        request.text
    );
}
