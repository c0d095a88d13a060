//! Orders do what the player wrote, through the mail service: an order
//! possible only after an earlier one succeeds is accepted as conditional
//! and carried out in its turn (5.2 III, 9.12), and leaders who land in a
//! stack's hex during the turn stay there (8.3). Each game starts from the
//! situation of a rule case in `tests/cases/`.

#[path = "common/mailbox.rs"]
mod mailbox;

use std::path::Path;

use dervish::scenario::{DataSet, Side};
use dervish::state::{GameState, Status as UnitStatus};

use mailbox::{Sent, Table, flat};

/// A game on a table of the mail service (the table is reached through
/// the harness: `self.svc`, `self.pass()`).
struct Harness {
    table: Table,
    game: String,
    secrets: Vec<(Side, String)>,
}

mailbox::at_table!(Harness);

impl Harness {
    /// A monthly game with both seats held by people, starting from the
    /// situation of the rule case `case` (a file of `tests/cases/`), its
    /// turn seeds all `seed`.
    fn from_case(name: &str, case: &str, seed: u8) -> Harness {
        let mut table = Table::open("dervish-sequence", name, |_| {});
        table.svc.set_seeds(Box::new(move || [seed; 32]));
        let data = DataSet::embedded().unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cases")
            .join(case);
        let situation = dervish::cases::load(&path, &data).unwrap();
        let (game, secrets) =
            table.start_game(&mailbox::game("khartoum", "seq"), Some(situation.state));
        Harness {
            table,
            game,
            secrets,
        }
    }

    /// Mail `body` as `side`'s orders for the month.
    fn send_orders(&mut self, side: Side, body: &str) {
        let from = match side {
            Side::Egyptian => "gordon@example.org",
            Side::Mahdist => "mahdi@example.org",
        };
        let secret = mailbox::secret(&self.secrets, side);
        let month = self.svc.game(&self.game).unwrap().month;
        let subject = format!("[dervish {}] orders {month}", self.game);
        self.deliver(from, &subject, &format!("SECRET {secret}\n{body}"));
        self.pass();
    }

    /// The one mail to `addr` whose subject has `subject` in it.
    fn one_mail(&self, addr: &str, subject: &str) -> Sent {
        let mut found: Vec<Sent> = self
            .sent_to(addr)
            .into_iter()
            .filter(|s| s.subject.contains(subject))
            .collect();
        assert_eq!(found.len(), 1, "one mail \"{subject}\" to {addr}");
        found.remove(0)
    }

    /// The text of [`Harness::one_mail`], its white space folded.
    fn mail(&self, addr: &str, subject: &str) -> String {
        flat(&self.one_mail(addr, subject).text)
    }

    /// The results mail to `addr` as its reader has it: the text, then
    /// the full log attached to it.
    fn results_with_log(&self, addr: &str) -> String {
        let found = self.one_mail(addr, "results");
        let (_, mail) = dervish::service::record::from_mail(&found.raw)
            .expect("the turn record and the log attached");
        let log = mail.log_attachment.expect("the full log attached");
        flat(&format!("{}\n{log}", found.text))
    }

    fn state(&self) -> GameState {
        let g = self.svc.game(&self.game).unwrap();
        (*self.svc.state_of(&g).unwrap()).clone()
    }
}

fn unit_at(state: &GameState, id: &str) -> Option<String> {
    let u = state.units.iter().find(|u| u.id.0.as_ref() == id)?;
    match u.status {
        UnitStatus::OnMap(h) => Some(h.to_string()),
        _ => None,
    }
}

fn leader_at(state: &GameState, name: &str) -> Option<String> {
    let l = state.leaders.iter().find(|l| l.name == name)?;
    l.hex.map(|h| h.to_string())
}

/// The game of the rule case `case` in which the garrison of besieged
/// Berber is ordered to march out after the attack written above it:
/// the receipt marks the order CONDITIONAL on the attack, and the month
/// is played. The game, the receipt and the results with the log.
fn march_out_of_berber(name: &str, case: &str) -> (Harness, String, String) {
    let mut h = Harness::from_case(name, case, 1);
    h.send_orders(
        Side::Egyptian,
        "MARCH STACK 3025 TO Berber ATTACK ANY\nMARCH STACK Berber TO 3024\nREADY\n",
    );
    let receipt = h.mail("gordon@example.org", "orders received");
    assert!(
        receipt.contains("line 3: CONDITIONAL: MARCH STACK Berber (3026) TO 3024"),
        "{receipt}"
    );
    h.send_orders(Side::Mahdist, "READY\n");
    let results = h.results_with_log("gordon@example.org");
    (h, receipt, results)
}

/// 5.2 III and 9.12: the garrison of besieged Berber marches out after the
/// attack written above it drove the besiegers off. The receipt marks the
/// order CONDITIONAL and names the line it depends on; the results carry
/// it out.
#[test]
fn rule_5_2_a_conditional_order_is_marked_on_the_receipt_and_carried_out() {
    let (h, receipt, results) =
        march_out_of_berber("conditional", "5.2-a-conditional-order-is-carried-out.toml");
    assert!(
        receipt.contains(
            "conditional on line 2: possible only if that order succeeds (its attack drives the enemy from 3027)"
        ),
        "{receipt}"
    );
    assert!(!receipt.contains("NOT POSSIBLE"), "{receipt}");
    assert!(
        results.contains("combat at 3027: Egyptian won"),
        "{results}"
    );
    assert!(!results.contains("order 2 set aside"), "{results}");
    let state = h.state();
    assert_eq!(unit_at(&state, "ER01").as_deref(), Some("3024"));
    assert_eq!(unit_at(&state, "ER02").as_deref(), Some("3024"));
}

/// 8.3: "The marching stack may drop off units but may not pick up
/// units." The Gordon Relief Expedition lands at Wady Halfa in September
/// 1884: the receipt says its units and leaders stay there, and after the
/// turn Wolseley, H. Stewart and Earle are still at Wady Halfa while the
/// two battalions that stood there have marched.
#[test]
fn rule_8_3_the_receipt_names_the_leaders_who_arrive_and_stay() {
    let mut h = Harness::from_case("arrivals", "8.3-leaders-who-arrive-this-month-stay.toml", 1);
    h.send_orders(Side::Egyptian, "MARCH STACK Wady Halfa TO Sarras\nREADY\n");
    let receipt = h.mail("gordon@example.org", "orders received");
    assert!(
        receipt.contains("2 units (ER01 ER02) from Wady Halfa (1101)"),
        "{receipt}"
    );
    assert!(
        receipt.contains(
            "arriving at Wady Halfa (1101) this month, they stay there and do not march with it (8.3)"
        ) && receipt.contains("Wolseley, H. Stewart, Earle"),
        "{receipt}"
    );
    h.send_orders(Side::Mahdist, "READY\n");
    let results = h.results_with_log("gordon@example.org");
    assert!(
        results.contains("gordon-relief arrives at Wady Halfa")
            && results.contains("Arrived: the Gordon Relief Expedition at Wady Halfa (1101)"),
        "{results}"
    );
    let state = h.state();
    for name in ["Wolseley", "H. Stewart", "Earle"] {
        assert_eq!(
            leader_at(&state, name).as_deref(),
            Some("1101"),
            "{name} stays at Wady Halfa"
        );
    }
    assert_ne!(unit_at(&state, "ER01").as_deref(), Some("1101"));
}

/// 5.2 III and 9.12: the same conditional order when the attack it
/// depends on is beaten: the receipt marks it, and the results say why it
/// was not carried out; the garrison stays in Berber.
#[test]
fn rule_5_2_a_conditional_order_whose_attack_fails_is_set_aside_with_the_reason() {
    let (h, _, results) = march_out_of_berber(
        "not-carried-out",
        "5.2-a-conditional-order-is-not-carried-out.toml",
    );
    assert!(results.contains("combat at 3027: Mahdist won"), "{results}");
    assert!(
        results.contains(
            "order 2 set aside: Berber (3026) is under siege: its units may leave only after every adjacent enemy has been driven away (9.12)"
        ),
        "{results}"
    );
    let state = h.state();
    assert_ne!(unit_at(&state, "ER01").as_deref(), Some("3024"));
    assert_ne!(unit_at(&state, "ER02").as_deref(), Some("3024"));
}
