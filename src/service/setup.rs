//! The set-up step (2.1): a new game's set-up is settled before anyone
//! moves and seen by both sides. The Egyptian sets up first (his SETUP
//! lines and READY, or the default placement at the set-up deadline); the
//! Mahdist then sets up knowing the Egyptian placement. When both are
//! sealed the set-up is played as turn 0 (the engine's
//! [`place_set_ups`](crate::engine::place_set_ups), no dice) and stored
//! like any turn, so `verify` and `replay` play it again; the set-up mail
//! goes to both players, and only then is the first month opened: its
//! seed drawn, its orders asked for and its deadline set.
//!
//! A programmed seat makes its set-up as soon as its part comes, so with a
//! programmed Mahdist nothing waits on it, and with a programmed Egyptian
//! his part is sealed when the game is made.

use chrono::Duration;
use minijinja::context;

use super::games::{deadline_text, example_march, own_mail};
use super::mail::Draft;
use super::play::{adjudicate, erased, json_of, sealed_hash, seed_bytes};
use super::record::TurnRecord;
use super::{Result, Service, ServiceError};
use crate::orders::{CheckError, Checked, Order, Parsed, Sheet};
use crate::render::{ascii, log};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;
use crate::store::{self, GameRow, Mode, OrderSetRow, Status, TurnKind, TurnRow};

/// What a month order sent in the set-up step is told.
pub const SETUP_FIRST: &str =
    "the set-up comes first: send your month's orders after the set-up mail";

/// Check a set-up sheet: its SETUP lines against the position shown, and
/// every month order refused with [`SETUP_FIRST`] (not kept for the first
/// month: it was written before the set-up was known).
pub fn check_setup(sheet: &Sheet, scn: &Scenario, state: &GameState, side: Side) -> Checked {
    let setup = Sheet {
        header: sheet.header.clone(),
        items: sheet
            .items
            .iter()
            .filter(|i| counts_in_setup(&i.order))
            .cloned()
            .collect(),
    };
    let mut checked = crate::orders::check(&setup, scn, state, side);
    for it in sheet.items.iter().filter(|i| !counts_in_setup(&i.order)) {
        checked.errors.push(CheckError {
            line: it.line,
            text: it.text.clone(),
            message: SETUP_FIRST.into(),
        });
    }
    checked.errors.sort_by_key(|e| e.line);
    checked
}

/// Check a sheet for the open turn of kind `kind`: a set-up sheet in the
/// set-up step ([`check_setup`]), month orders otherwise.
pub fn check_for(
    kind: TurnKind,
    sheet: &Sheet,
    scn: &Scenario,
    state: &GameState,
    side: Side,
) -> Checked {
    if kind.is_setup() {
        check_setup(sheet, scn, state, side)
    } else {
        crate::orders::check(sheet, scn, state, side)
    }
}

/// How many lines of a mail will not be carried out and so hold its
/// READY: the lines not understood and the orders refused, but a month
/// order refused in the set-up step only to say the set-up comes first
/// ([`SETUP_FIRST`]): it is no part of the set-up.
pub fn holding_lines(parsed: &Parsed, checked: &Checked) -> usize {
    let refused = checked
        .errors
        .iter()
        .filter(|e| e.message != SETUP_FIRST)
        .count();
    parsed.errors.len() + refused
}

/// The receipt's account of a set for the open turn of kind `kind`
/// ([`crate::orders::acknowledge`]). A set-up set's account says READY of
/// the set-up, counts among the lines that hold its READY only those of
/// the set-up (a month order refused with [`SETUP_FIRST`] does not), and
/// leaves out the month's defaults: the first month's receipts tell them.
pub fn acknowledge_for(
    kind: TurnKind,
    parsed: &Parsed,
    checked: &Checked,
    scn: &Scenario,
    state: &GameState,
    side: Side,
) -> String {
    let ack = crate::orders::acknowledge(parsed, checked, scn, side, state);
    if !kind.is_setup() {
        return ack;
    }
    let defaults = crate::orders::defaults::receipt(scn, state, side, checked);
    let ack = ack.strip_suffix(defaults.as_str()).unwrap_or(&ack);
    let all = parsed.errors.len() + checked.errors.len();
    let holding = holding_lines(parsed, checked);
    let sentence = crate::orders::defaults::ready_sentence(&parsed.sheet, all);
    let setup_sentence = if holding == 0 {
        "You said READY: your set-up is complete."
    } else if parsed.sheet.as_is() {
        "You said READY AS IS: the set-up is sealed as it stands, without its refused lines."
    } else {
        "You said READY, but lines of this set-up will not be carried out: it waits for\n\
         a mended set-up, or for READY AS IS to seal this one as it stands."
    };
    ack.replacen(sentence, setup_sentence, 1)
        .replace(
            "    your orders are complete: the set plays as it stands\n",
            "    your set-up is complete: it is sealed as it stands\n",
        )
        .replace(
            "    your orders are complete\n",
            "    your set-up is complete\n",
        )
}

/// Whether an order belongs in a set-up set: SETUP lines, READY, and the
/// commands and settings (answered or stored apart).
pub fn counts_in_setup(o: &Order) -> bool {
    matches!(
        o,
        Order::Setup(_) | Order::Ready | Order::ReadyAsIs | Order::Command(_)
    )
}

impl Service {
    /// The position a game shows now: while the Mahdist sets up, the
    /// Egyptian's sealed set-up placed on the default placement (what the
    /// Mahdist sets up against); otherwise the game's state (the default
    /// placement while the Egyptian sets up).
    pub fn state_shown(&self, g: &GameRow) -> Result<std::rc::Rc<GameState>> {
        let state = self.state_of(g)?;
        if g.turn_kind != TurnKind::SetUp(Side::Mahdist) {
            return Ok(state);
        }
        let scn = self.scenario(&g.scenario)?;
        let set = store::latest_order_set(&self.conn, &g.id, g.turn_no, Side::Egyptian)?;
        let eg = self.orders_of(set.as_ref())?;
        Ok(std::rc::Rc::new(crate::engine::set_up(
            &scn,
            (*state).clone(),
            Side::Egyptian,
            &eg,
            &mut Vec::new(),
        )))
    }

    /// The words that go above a map of the position shown during the
    /// set-up step; `None` once the set-up is placed.
    pub fn setup_label(g: &GameRow) -> Option<&'static str> {
        match g.turn_kind {
            TurnKind::SetUp(Side::Egyptian) => Some(
                "The set-up is not placed yet: this is the default placement (2.1). The Egyptian sets up first, then the Mahdist.",
            ),
            TurnKind::SetUp(Side::Mahdist) => Some(
                "The set-up is not complete: the Egyptian set-up is placed, the Mahdist still stands at his default placement (2.1).",
            ),
            _ => None,
        }
    }

    /// Take the set-up step on (its side READY, or its deadline passed):
    /// the Egyptian's part sealed and the Mahdist asked for his, or the
    /// whole set-up placed and the first month opened. A programmed
    /// Mahdist's part follows at once. Returns the turn number (0).
    pub(super) fn play_setup_step(&self, g: &GameRow) -> Result<u32> {
        if g.turn_kind == TurnKind::SetUp(Side::Egyptian) {
            let next = self.seal_egyptian_setup(g)?;
            let ready = store::latest_order_set(&self.conn, &next.id, next.turn_no, Side::Mahdist)?
                .is_some_and(|s| s.ready);
            if !ready {
                return Ok(g.turn_no);
            }
            return self.place_setup(&next);
        }
        self.place_setup(g)
    }

    /// The Egyptian's set-up sealed: the game waits for the Mahdist's,
    /// with its own deadline; a programmed Mahdist makes it at once, a
    /// player is sent the Egyptian placement and asked for his.
    fn seal_egyptian_setup(&self, g: &GameRow) -> Result<GameRow> {
        let mut next = g.clone();
        next.turn_kind = TurnKind::SetUp(Side::Mahdist);
        next.deadline = self.now() + Duration::hours(i64::from(self.setup_hours()));
        next.reminded = false;
        let tx = self.begin()?;
        store::update_game(&tx, &next)?;
        let shown = self.state_shown(&next)?;
        self.bot_orders(&tx, &next, &shown)?;
        for p in store::players(&tx, &g.id)? {
            if p.side == Side::Mahdist && p.bot.is_none() && !p.address.is_empty() {
                self.queue(self.setup_request_draft(&next, &shown, &p.address)?)?;
            }
        }
        self.setup_audit(&tx, &g.id, "Egyptian set-up sealed; the Mahdist sets up")?;
        tx.commit()?;
        Ok(next)
    }

    /// The turn a new game opens with: the set-up step (turn 0, the
    /// Egyptian's part, with the set-up deadline), or the first month
    /// (turn 1, with the turn deadline of `hours`). Its number, kind and
    /// hours to its deadline.
    pub(super) fn opening_turn(
        &self,
        mode: Mode,
        setup_step: bool,
        hours: u32,
    ) -> (u32, TurnKind, u32) {
        match mode {
            _ if setup_step => (0, TurnKind::SetUp(Side::Egyptian), self.setup_hours()),
            Mode::Monthly => (1, TurnKind::Month, hours),
            Mode::Alternating => (1, TurnKind::Player(Side::Egyptian), hours),
        }
    }

    /// Hours from a set-up part opening to its deadline.
    pub fn setup_hours(&self) -> u32 {
        self.cfg.turns.setup_hours.max(1)
    }

    /// Both set-ups sealed: the set-up played and stored as turn 0, the
    /// first month opened, the set-up mail sent to both players.
    fn place_setup(&self, g: &GameRow) -> Result<u32> {
        let scn = self.scenario(&g.scenario)?;
        let before = self.state_of(g)?;
        let eg_set = store::latest_order_set(&self.conn, &g.id, g.turn_no, Side::Egyptian)?;
        let md_set = store::latest_order_set(&self.conn, &g.id, g.turn_no, Side::Mahdist)?;
        let (eg, md) = (
            self.orders_of(eg_set.as_ref())?,
            self.orders_of(md_set.as_ref())?,
        );
        let seed = seed_bytes(&g.seed_hex).ok_or_else(|| ServiceError::State {
            game: g.id.clone(),
            message: "the turn's seed is not 32 bytes of hex".into(),
        })?;
        let (r, _) = adjudicate(
            &scn,
            GameState::clone(&before),
            g.turn_kind,
            &eg,
            &md,
            seed,
            &Default::default(),
            None,
            None,
        )?;
        let turn = self.setup_turn_row(&scn, g, &before, &r, (&eg_set, &md_set))?;
        let next = self.first_month(g, &turn)?;
        let tx = self.begin()?;
        if self.moved_on(g)? {
            return Ok(g.turn_no);
        }
        store::insert_turn(&tx, &turn)?;
        store::update_game(&tx, &next)?;
        self.bot_orders(&tx, &next, &r.state)?;
        let record = TurnRecord::of(
            g,
            &turn,
            eg_set.as_ref(),
            md_set.as_ref(),
            self.data.digest(&g.scenario).unwrap_or_default(),
            Some(next.seed_sha256.as_str()),
        );
        // Both players, and the observers (who get every turn's results).
        let mut recipients: Vec<(Option<Side>, String)> = store::players(&tx, &g.id)?
            .into_iter()
            .filter(|p| !p.address.is_empty())
            .map(|p| (Some(p.side), p.address))
            .collect();
        recipients.extend(store::observers(&tx, &g.id)?.into_iter().map(|a| (None, a)));
        for (side, to) in recipients {
            let mut d = self.setup_mail_draft(&scn, &next, &turn, &r.state, side, &to)?;
            d.attachments = vec![record.attachment()];
            self.queue(d)?;
        }
        let opened = format!("set-up placed; first turn {} opened", next.month);
        self.setup_audit(&tx, &g.id, &opened)?;
        tx.commit()?;
        tracing::info!(game = g.id, "set-up placed");
        Ok(g.turn_no)
    }

    /// The stored turn of the set-up (turn 0).
    fn setup_turn_row(
        &self,
        scn: &Scenario,
        g: &GameRow,
        before: &GameState,
        r: &crate::engine::TurnResult,
        sets: (&Option<OrderSetRow>, &Option<OrderSetRow>),
    ) -> Result<TurnRow> {
        let json = |v: &dyn erased::Json| json_of(&g.id, v);
        let hash = sealed_hash;
        Ok(TurnRow {
            game_id: g.id.clone(),
            turn_no: g.turn_no,
            month: before.month.to_string(),
            turn_kind: g.turn_kind,
            seed_hex: g.seed_hex.clone(),
            seed_sha256: g.seed_sha256.clone(),
            egyptian_set: sets.0.as_ref().map(|s| s.id),
            mahdist_set: sets.1.as_ref().map(|s| s.id),
            egyptian_sha256: hash(sets.0),
            mahdist_sha256: hash(sets.1),
            state_before: json(before)?,
            state_after: json(&r.state)?,
            events: json(&r.events)?,
            log: log::render(&scn.map, &r.events),
            played_at: self.now(),
            battles: super::play::settlements_json(&Default::default()),
        })
    }

    /// The game with its first month open: the placed state, a new seed,
    /// the turn's deadline.
    fn first_month(&self, g: &GameRow, turn: &TurnRow) -> Result<GameRow> {
        let (seed_hex, seed_sha256) = self.new_seed()?;
        let mut next = g.clone();
        next.state = turn.state_after.as_str().into();
        next.turn_no = g.turn_no + 1;
        next.turn_kind = match g.mode {
            Mode::Monthly => TurnKind::Month,
            Mode::Alternating => TurnKind::Player(Side::Egyptian),
        };
        next.seed_hex = seed_hex;
        next.seed_sha256 = seed_sha256;
        next.deadline = self.now() + Duration::hours(i64::from(g.deadline_hours));
        next.reminded = false;
        next.status = Status::Running;
        Ok(next)
    }

    /// The mail that asks the Mahdist player for his set-up, showing the
    /// Egyptian placement.
    fn setup_request_draft(&self, g: &GameRow, shown: &GameState, to: &str) -> Result<Draft> {
        let scn = self.scenario(&g.scenario)?;
        let rendered = self.templates.render(
            "setup_request.txt",
            context! {
                game => g.id.clone(),
                title => scn.def.title.clone(),
                month => shown.month.long_name(),
                deadline => deadline_text(g.deadline),
                roster => crate::render::roster::roster(&scn, shown, Side::Mahdist),
                choices => crate::render::roster::setup_choices(&scn, shown, Side::Mahdist),
                map => ascii::overview(&scn, Some(shown)),
            },
        )?;
        Ok(own_mail(
            &g.id,
            "setup",
            format!("setup-request:{}", g.id),
            to,
            rendered,
        ))
    }

    /// The set-up mail: both sides' placement, the log of the set-up, the
    /// roster and the map, and the first month's orders asked for.
    fn setup_mail_draft(
        &self,
        scn: &Scenario,
        next: &GameRow,
        turn: &TurnRow,
        state: &GameState,
        side: Option<Side>,
        to: &str,
    ) -> Result<Draft> {
        let rendered = self.templates.render(
            "setup.txt",
            context! {
                game => next.id.clone(),
                side => side.map_or("observer".to_string(), |s| format!("{s} player")),
                title => scn.def.title.clone(),
                month => state.month.long_name(),
                deadline => deadline_text(next.deadline),
                mode => next.mode.as_str(),
                seed_sha256 => next.seed_sha256.clone(),
                log => turn.log.clone(),
                example => side.and_then(|s| example_march(scn, state, s)),
                roster => side.map(|s| crate::render::roster::roster(scn, state, s)),
                map => ascii::overview(scn, Some(state)),
            },
        )?;
        let key = match side {
            Some(s) => format!("setup:{}:{}", next.id, store::side_text(s)),
            None => format!("setup:{}:observer:{to}", next.id),
        };
        Ok(own_mail(&next.id, "setup", key, to, rendered))
    }

    /// A step of the set-up in the audit log, by the service.
    fn setup_audit(&self, tx: &rusqlite::Connection, game: &str, detail: &str) -> Result<()> {
        store::audit(tx, self.now(), Some(game), "service", "set-up", detail)?;
        Ok(())
    }

    /// The set-up of a programmed Egyptian sealed when the game is made
    /// (and a programmed Mahdist's after it): nothing waits on a
    /// programmed seat.
    pub(super) fn settle_programmed_setup(&self, id: &str) -> Result<()> {
        let g = self.game(id)?;
        if !g.turn_kind.is_setup() || g.status != Status::Running {
            return Ok(());
        }
        let ready = g.turn_kind.waits_for().iter().all(|&side| {
            store::latest_order_set(&self.conn, id, g.turn_no, side)
                .ok()
                .flatten()
                .is_some_and(|s| s.ready)
        });
        if ready {
            self.play_setup_step(&g)?;
        }
        Ok(())
    }
}
