//! READY keeps the orders (docs/orders.md, READY), played through the mail
//! service: a mail whose orders part is only READY confirms the standing
//! set and never replaces it with an empty one; a set with a line that
//! will not be carried out waits for a mended set, `READY AS IS` or the
//! deadline; READY with no orders does not count.

#[path = "common/mailbox.rs"]
mod mailbox;
#[path = "common/text.rs"]
mod text;

use chrono::Duration;
use dervish::scenario::Side;
use dervish::store::{self};

use mailbox::{Table, flat};
use text::says;

const GORDON: &str = "gordon@example.org";
const MAHDI: &str = "mahdi@example.org";
const MARCH: &str = "MARCH STACK Sinkat TO Souakim";
/// The march as Dervish keeps it (canonical, with hexes).
const KEPT: &str = "MARCH STACK Sinkat (5021) TO Souakim (5419)";
/// A line the parser cannot read: NOT UNDERSTOOD on the receipt.
const BAD: &str = "MARCH STACK Atlantis TO Souakim";

/// Game `k-1` on a table of the mail service (the table is reached
/// through the harness: `h.svc`, `h.pass()`).
struct Harness {
    table: Table,
    secrets: Vec<(Side, String)>,
}

mailbox::at_table!(Harness);

impl Harness {
    /// Game `k-1` of scenario 2: the Egyptian side is played by mail; the
    /// Mahdist side by mail too, or by the programmed player (`bot`).
    fn new(name: &str, mahdist: &str) -> Harness {
        let table = Table::open("dervish-ready", name, |cfg| {
            // These tests are about a month's orders: the game opens at its
            // first month (the set-up step's READY is tested in
            // tests/setup_step.rs).
            cfg.turns.setup_hours = 0;
        });
        let (_, secrets) = table.start_game(&mailbox::k1_against(mahdist), None);
        let mut h = Harness { table, secrets };
        h.pass();
        h
    }

    /// Mail `body` from `side`'s player with the secret, and take it in.
    fn send(&mut self, side: Side, body: &str) {
        let from = if side == Side::Egyptian {
            GORDON
        } else {
            MAHDI
        };
        let month = self.svc.game("k-1").unwrap().month;
        let text = format!("SECRET {}\n{body}", mailbox::secret(&self.secrets, side));
        self.deliver(from, &format!("[dervish k-1] orders {month}"), &text);
        self.pass();
    }

    /// Passes up to a minute past the open turn's deadline, every hour
    /// then every minute as the daemon makes them (a deadline that passes
    /// while no pass runs is extended, as after downtime).
    fn past_deadline(&mut self) {
        let deadline = self.svc.game("k-1").unwrap().deadline;
        loop {
            let now = *self.now.lock().unwrap();
            if now > deadline {
                break;
            }
            let step = if deadline - now > Duration::hours(2) {
                Duration::hours(1)
            } else {
                Duration::minutes(1)
            };
            *self.now.lock().unwrap() = now + step;
            self.pass();
        }
    }

    /// The last mail to `addr` whose subject contains `what`, in the
    /// order queued: (subject, text).
    fn last_to(&self, addr: &str, what: &str) -> (String, String) {
        store::mail_for(&self.svc.conn, Some("k-1"))
            .unwrap()
            .into_iter()
            .filter(|m| m.recipient == addr && m.subject.contains(what))
            .map(|m| (m.subject, m.body_text))
            .next_back()
            .unwrap_or_else(|| panic!("no mail to {addr} about {what}"))
    }

    fn set(&self, side: Side) -> Option<store::OrderSetRow> {
        store::latest_order_set(&self.svc.conn, "k-1", 1, side).unwrap()
    }

    fn turns(&self) -> Vec<store::TurnRow> {
        store::turns(&self.svc.conn, "k-1").unwrap()
    }

    /// The canonical text of the Egyptian set the first turn was played
    /// with.
    fn played_egyptian_set(&self) -> String {
        let turns = self.turns();
        let id = turns[0].egyptian_set.expect("the Egyptian set played");
        store::order_set(&self.svc.conn, id)
            .unwrap()
            .expect("the set")
            .canonical
    }
}

#[test]
fn ready_alone_confirms_the_standing_set() {
    let mut h = Harness::new("alone", MAHDI);
    h.send(Side::Egyptian, &format!("{MARCH}\n"));
    let first = h.set(Side::Egyptian).expect("version 1");
    assert!(!first.ready);
    h.send(Side::Egyptian, "READY\n");
    let set = h.set(Side::Egyptian).expect("version 2");
    assert_eq!(set.version, 2);
    assert!(set.ready, "READY alone counts for a set with no problem");
    assert!(set.canonical.contains(KEPT), "{}", set.canonical);
    assert_eq!(set.orders, first.orders, "the same orders as version 1");
    let (subject, text) = h.last_to(GORDON, "orders received");
    assert!(subject.contains("version 2"), "{subject}");
    let text = flat(&text);
    // The receipt ends with the defaults.
    says(
        &text,
        &[
            "it confirms version 1",
            KEPT,
            "This set says READY",
            "Defaults: where these orders say nothing, Dervish decides",
        ],
    );
    // READY for another month is refused whole: the set stands.
    h.send(Side::Egyptian, "MONTH 1884-06\nREADY\n");
    assert_eq!(h.set(Side::Egyptian).expect("the set").version, 2);
    // The other side's READY plays the month with the confirmed march.
    h.send(Side::Mahdist, "READY AS IS\n");
    assert_eq!(h.turns().len(), 1, "the month is played");
    assert!(h.played_egyptian_set().contains(KEPT));
    // The confirmed set is sealed like any other: the turn verifies.
    let v = h.svc.verify("k-1", "1884-02").unwrap();
    assert_eq!(v.len(), 1);
    assert!(v[0].drift.is_empty(), "{:?}", v[0].drift);
}

#[test]
fn ready_alone_against_the_programmed_mahdist_plays_the_month_with_the_orders() {
    let mut h = Harness::new("bot", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n"));
    assert!(h.turns().is_empty(), "not READY: the month waits");
    h.send(Side::Egyptian, "READY\n");
    let turns = h.turns();
    assert_eq!(turns.len(), 1, "READY plays the month at once");
    assert!(h.played_egyptian_set().contains(KEPT));
    assert!(turns[0].log.contains("Sinkat"), "{}", turns[0].log);
    let (_, results) = h.last_to(GORDON, "results");
    assert!(
        flat(&results).contains("Your orders (Egyptian) 1. "),
        "{results}"
    );
}

#[test]
fn ready_with_a_setting_keeps_the_set() {
    let mut h = Harness::new("setting", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n"));
    h.send(Side::Egyptian, "MAP TEXT\nREADY\n");
    let (_, text) = h.last_to(GORDON, "orders received");
    let text = flat(&text);
    assert!(text.contains("it confirms version 1"), "{text}");
    assert!(text.contains("MAP TEXT"), "the setting is told: {text}");
    assert_eq!(h.turns().len(), 1, "the month is played");
    assert!(h.played_egyptian_set().contains(KEPT));
    let seat = store::players(&h.svc.conn, "k-1")
        .unwrap()
        .into_iter()
        .find(|p| p.side == Side::Egyptian)
        .expect("the seat");
    assert!(!seat.map_picture, "the setting is made");
}

#[test]
fn ready_on_a_set_with_a_refused_line_waits_and_says_so() {
    let mut h = Harness::new("waits", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n{BAD}\nREADY\n"));
    let set = h.set(Side::Egyptian).expect("the set is kept");
    assert!(!set.ready, "a set with a refused line does not play early");
    assert!(h.turns().is_empty(), "the month waits");
    let (_, text) = h.last_to(GORDON, "orders received");
    let text = flat(&text);
    says(
        &text,
        &[
            "NOT UNDERSTOOD",
            "the turn does not start early",
            "READY AS IS",
        ],
    );
    // READY alone again: the set still waits, and says which version.
    h.send(Side::Egyptian, "READY\n");
    let again = h.set(Side::Egyptian).expect("version 2");
    assert_eq!(again.version, 2);
    assert!(!again.ready);
    assert!(h.turns().is_empty(), "the month still waits");
    let (_, text) = h.last_to(GORDON, "orders received");
    let text = flat(&text);
    says(
        &text,
        &[
            "it confirms version 1",
            "1 line of it will not be carried out",
            "the receipt of version 1 shows them all",
            "You said READY, but lines of this set will not be carried out",
        ],
    );
    assert!(
        !text.contains("your orders for this turn are complete"),
        "{text}"
    );
}

#[test]
fn ready_as_is_plays_a_set_with_a_refused_line() {
    let mut h = Harness::new("as-is", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n{BAD}\nREADY\n"));
    assert!(h.turns().is_empty());
    h.send(Side::Egyptian, "ready as is\n");
    let set = h.set(Side::Egyptian).expect("version 2");
    assert!(set.ready);
    assert!(set.canonical.contains("READY AS IS"), "{}", set.canonical);
    let (_, text) = h.last_to(GORDON, "orders received");
    assert!(flat(&text).contains("This set says READY AS IS"), "{text}");
    assert_eq!(h.turns().len(), 1, "READY AS IS plays the month");
    assert!(h.played_egyptian_set().contains(KEPT));
}

#[test]
fn ready_as_is_in_the_set_itself_plays_it() {
    let mut h = Harness::new("as-is-set", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n{BAD}\nREADY AS IS\n"));
    assert!(h.set(Side::Egyptian).expect("the set").ready);
    assert_eq!(h.turns().len(), 1);
}

#[test]
fn the_deadline_plays_a_waiting_set_as_it_stands() {
    let mut h = Harness::new("deadline", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n{BAD}\nREADY\n"));
    assert!(h.turns().is_empty());
    h.past_deadline();
    // The reminder before the deadline says why the turn waits.
    let (_, reminder) = h.last_to(GORDON, "orders due by");
    let reminder = flat(&reminder);
    says(
        &reminder,
        &[
            "and your READY, but 1 line of them will not be carried out",
            "READY AS IS",
        ],
    );
    assert_eq!(h.turns().len(), 1, "the deadline plays the month");
    assert!(h.played_egyptian_set().contains(KEPT));
    assert!(h.turns()[0].log.contains("Sinkat"), "{}", h.turns()[0].log);
}

/// READY with no orders from the side this month counts: an empty set,
/// READY (a side with nothing to do says just that), and the receipt says
/// plainly that the month will be played with no orders for the side.
#[test]
fn ready_with_no_orders_seals_an_empty_set_and_says_so() {
    let mut h = Harness::new("nothing", MAHDI);
    h.send(Side::Egyptian, "READY\n");
    let set = h.set(Side::Egyptian).expect("an empty set");
    assert!(set.ready);
    assert!(set.orders.contains("\"marches\":[]"), "{}", set.orders);
    let (_, text) = h.last_to(GORDON, "orders received");
    let text = flat(&text);
    assert!(
        text.contains("the month will be played with no orders for your side"),
        "{text}"
    );
    assert!(!text.contains("it confirms version"), "{text}");
    // Orders sent before the month is played replace the empty set.
    h.send(Side::Egyptian, &format!("{MARCH}\nREADY\n"));
    h.send(Side::Mahdist, "READY\n");
    assert_eq!(h.turns().len(), 1);
    assert!(h.played_egyptian_set().contains(KEPT));
}

#[test]
fn a_slip_of_ready_as_is_keeps_the_set_and_suggests_the_words() {
    let mut h = Harness::new("slip", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n{BAD}\nREADY\n"));
    h.send(Side::Egyptian, "READY ASIS\n");
    let set = h.set(Side::Egyptian).expect("the set");
    assert_eq!(set.version, 1, "the slip replaces nothing");
    assert!(h.turns().is_empty());
    let (_, text) = h.last_to(GORDON, "commands not understood");
    let text = flat(&text);
    says(
        &text,
        &[
            "line 2: NOT UNDERSTOOD: READY ASIS",
            "did you mean READY AS IS?",
            "stand as they were",
        ],
    );
}

/// `READY AS IS` is read in any case and prints back the same; a slip of
/// it gets the words as a suggestion, other words after READY do not.
#[test]
fn ready_as_is_is_read_in_any_case_and_a_slip_is_suggested() {
    use dervish::orders::{self, Input, Order, Vocabulary, print};
    let scn = dervish::scenario::DataSet::embedded()
        .unwrap()
        .scenario("khartoum")
        .unwrap();
    let vocab = Vocabulary::new(&scn);
    let read = |text: &str| orders::parse(&Input::text(text), &vocab).unwrap();
    for text in ["READY AS IS", "ready as is", "Done As Is"] {
        let p = read(text);
        assert!(p.errors.is_empty(), "{text}: {:?}", p.errors);
        assert_eq!(p.sheet.items[0].order, Order::ReadyAsIs, "{text}");
        assert!(p.sheet.ready() && p.sheet.as_is(), "{text}");
    }
    assert_eq!(print::order(&scn.map, &Order::ReadyAsIs), "READY AS IS");
    assert!(!read("READY").sheet.as_is());
    for slip in ["READY ASIS", "READY AS-IS", "ready as iss"] {
        let p = read(slip);
        assert_eq!(p.errors.len(), 1, "{slip}");
        assert_eq!(p.errors[0].line, 1);
        assert_eq!(
            p.errors[0].suggestion.as_deref(),
            Some("READY AS IS"),
            "{slip}"
        );
    }
    let p = read("READY NOW PLEASE");
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].suggestion, None);
}

/// A mail with no order at all (a thank-you with the secret) replaces no
/// standing set either: the answer says the orders stand.
#[test]
fn a_mail_without_orders_keeps_the_standing_set() {
    let mut h = Harness::new("prose", "bot");
    h.send(Side::Egyptian, &format!("{MARCH}\n"));
    h.send(Side::Egyptian, "Thanks for the receipt, all clear.\n");
    let set = h.set(Side::Egyptian).expect("the set");
    assert_eq!(set.version, 1, "nothing replaced");
    assert!(set.canonical.contains(KEPT));
    let (_, text) = h.last_to(GORDON, "no orders in this mail");
    assert!(flat(&text).contains("stand as they were"), "{text}");
}
