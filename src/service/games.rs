//! Games and the game master's commands: new games, deadlines, seats,
//! pausing. Every game master action is written to the audit log.

use std::rc::Rc;
use std::sync::Arc;

use chrono::Duration;
use minijinja::context;

use super::mail::Draft;
use super::secrets;
use super::{Result, Service, ServiceError};
use crate::render::ascii;
use crate::scenario::Side;
use crate::state::GameState;
use crate::state::setup::{Placements, initial_state};
use crate::store::{self, GameRow, Mode, PlayerRow, Status, TurnKind};

/// A game to create.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub scenario: String,
    pub egyptian: String,
    pub mahdist: String,
    pub id: Option<String>,
    pub mode: Mode,
    pub deadline_hours: Option<u32>,
    /// Play with the optional ambush rule (seed 002; docs/rules.md,
    /// "Ambushes").
    pub ambushes: bool,
    /// Which combats go to the table, and how (docs/tabletop.md).
    pub table_battles: crate::state::TableBattles,
    /// What resolves the combats not sent to the table.
    pub resolver: crate::state::AutoResolver,
}

impl NewGame {
    /// A monthly game of `scenario` between the two addresses, with the
    /// default deadline, id and options.
    pub fn monthly(scenario: &str, egyptian: &str, mahdist: &str) -> NewGame {
        NewGame {
            scenario: scenario.to_string(),
            egyptian: egyptian.to_string(),
            mahdist: mahdist.to_string(),
            id: None,
            mode: Mode::Monthly,
            deadline_hours: None,
            ambushes: false,
            table_battles: Default::default(),
            resolver: Default::default(),
        }
    }
}

/// A created game and the players' secrets (already queued in their
/// welcome mails; the service keeps only digests).
#[derive(Clone, Debug)]
pub struct Created {
    pub id: String,
    pub secrets: Vec<(Side, String)>,
}

/// Whether a game id is acceptable: 1-40 lower-case letters, digits and
/// dashes, starting with a letter.
pub fn valid_game_id(id: &str) -> bool {
    (1..=40).contains(&id.len())
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Whether a text looks like a mail address (one `@`, something either
/// side, no spaces or angle brackets).
pub fn valid_address(a: &str) -> bool {
    let a = a.trim();
    matches!(a.split_once('@'), Some((l, d)) if !l.is_empty() && !d.is_empty() && !d.contains('@'))
        && !a.contains(char::is_whitespace)
        && !a.contains(['<', '>', ','])
}

/// The opponent of `side` as a welcome mail names them: their address,
/// or that the seat is open.
fn opponent_named(players: &[PlayerRow], side: Side) -> String {
    players
        .iter()
        .find(|p| p.side != side)
        .map(|p| {
            if p.address.is_empty() {
                "not yet known (the seat is open)".to_string()
            } else {
                p.address.clone()
            }
        })
        .unwrap_or_default()
}

/// A mail of our own about game `game` (not an answer to one), with an
/// HTML alternative and no files.
pub(super) fn own_mail(
    game: &str,
    kind: &'static str,
    dedupe_key: String,
    to: &str,
    rendered: super::templates::Rendered,
) -> Draft {
    Draft {
        html: true,
        ..Draft::new(Some(game), kind, dedupe_key, to, rendered)
    }
}

/// Each seat of a new game an address, `open` or a programmed player,
/// and not both programmed.
fn check_seats(req: &NewGame) -> Result<()> {
    for (side, a) in [
        (Side::Egyptian, &req.egyptian),
        (Side::Mahdist, &req.mahdist),
    ] {
        if is_bot(a) {
            bot_kind(a, side)?;
            if is_bot(&req.egyptian) && is_bot(&req.mahdist) {
                return Err(ServiceError::Game(
                    "a game by mail needs a player: both sides cannot be programmed players (`dervish simulate --egyptian ... --mahdist bot` plays them against each other)".into(),
                ));
            }
            continue;
        }
        if !is_open(a) && !valid_address(a) {
            return Err(ServiceError::Game(format!(
                "{a} is not a mail address (for the {side} player); `open` leaves the seat for a player who sends JOIN, `bot` gives it to the programmed Mahdist player"
            )));
        }
    }
    Ok(())
}

/// Whether a seat is given as open (`open`), for a player who sends JOIN.
pub fn is_open(address: &str) -> bool {
    address.trim().eq_ignore_ascii_case("open")
}

/// Whether the address asks for a programmed player (`bot`, or
/// `bot:PERSONA` for the Egyptian side).
pub fn is_bot(address: &str) -> bool {
    let a = address.trim().to_ascii_lowercase();
    a == "bot" || a.starts_with("bot:")
}

/// The kind of programmed player an address asks for on `side`: `bot` is
/// the Mahdist reaction-table player, or the historical Egyptian one;
/// `bot:historical` and `bot:competent` name the Egyptian persona.
pub fn bot_kind(address: &str, side: Side) -> Result<&'static str> {
    let a = address.trim().to_ascii_lowercase();
    match (side, a.as_str()) {
        (Side::Mahdist, "bot") => Ok(super::bots::MAHDIST),
        (Side::Egyptian, "bot" | "bot:historical") => Ok(super::bots::EGYPTIAN_HISTORICAL),
        (Side::Egyptian, "bot:competent") => Ok(super::bots::EGYPTIAN_COMPETENT),
        _ => Err(ServiceError::Game(format!(
            "{address} is not a programmed {side} player: use `bot`{}",
            if side == Side::Egyptian {
                ", `bot:historical` or `bot:competent`"
            } else {
                ""
            }
        ))),
    }
}

/// A fresh seed and its published SHA-256.
pub fn new_seed() -> Result<(String, String)> {
    let seed = secrets::random_bytes::<32>().map_err(|e| ServiceError::Random(e.to_string()))?;
    Ok((secrets::hex(&seed), secrets::sha256_hex(&seed)))
}

/// A game's state as the service last read it: the stored text and the
/// state it decodes to.
pub struct KeptState {
    game: String,
    turn: u32,
    text: Arc<str>,
    state: Rc<GameState>,
}

impl Service {
    /// Read a game's stored state. The state is shared with the service's
    /// cache of states: a reader that changes it clones it first.
    pub fn state_of(&self, g: &GameRow) -> Result<Rc<GameState>> {
        let mut cache = self.states.borrow_mut();
        if let Some(i) = cache.iter().position(|k| k.game == g.id) {
            let hit = cache.remove(i);
            if let Some(kept) = hit
                && kept.turn == g.turn_no
                && (Arc::ptr_eq(&kept.text, &g.state) || kept.text == g.state)
            {
                let state = Rc::clone(&kept.state);
                cache.push_front(kept);
                return Ok(state);
            }
        }
        let state: Rc<GameState> =
            Rc::new(
                serde_json::from_str(&g.state).map_err(|e| ServiceError::State {
                    game: g.id.clone(),
                    message: e.to_string(),
                })?,
            );
        cache.truncate(super::STATE_CACHE - 1);
        cache.push_front(KeptState {
            game: g.id.clone(),
            turn: g.turn_no,
            text: Arc::clone(&g.state),
            state: Rc::clone(&state),
        });
        Ok(state)
    }

    /// Drop a game's state from the cache (after a change that may keep
    /// the turn and the length of its text).
    pub fn forget_state(&self, id: &str) {
        self.states.borrow_mut().retain(|k| k.game != id);
    }

    /// A game by id, or a clear error. The state's text, tens of kilobytes,
    /// is read from the database only when the service does not hold it
    /// already for the game's turn (the text of that length, [`Self::state_of`]).
    pub fn game(&self, id: &str) -> Result<GameRow> {
        let missing = || ServiceError::Game(format!("no game called {id}"));
        let (mut g, bytes) = store::game_head(&self.conn, id)?.ok_or_else(missing)?;
        let kept = self
            .states
            .borrow()
            .iter()
            .find(|k| k.game == id && k.turn == g.turn_no && k.text.len() == bytes)
            .map(|k| Arc::clone(&k.text));
        match kept {
            Some(text) => {
                g.state = text;
                Ok(g)
            }
            None => store::game(&self.conn, id)?.ok_or_else(missing),
        }
    }

    /// Create a game: set up the scenario, draw the first turn's seed,
    /// make each player's secret, and queue the welcome mails.
    pub fn new_game(&self, req: &NewGame, actor: &str) -> Result<Created> {
        self.new_game_from(req, None, actor)
    }

    /// Create a game as [`Service::new_game`] does, starting from `situation`
    /// (a rule case's situation, `dervish game new --situation`) instead of
    /// the scenario's set-up when one is given.
    pub fn new_game_from(
        &self,
        req: &NewGame,
        situation: Option<GameState>,
        actor: &str,
    ) -> Result<Created> {
        self.new_game_with(req, situation, &Default::default(), actor)
    }

    /// Create a game as [`Service::new_game_from`] does, with the house
    /// rules `variants` (docs/rules.md, "House rules (optional
    /// variants)") stored in its state.
    pub fn new_game_with(
        &self,
        req: &NewGame,
        situation: Option<GameState>,
        variants: &std::collections::BTreeSet<crate::state::variant::Variant>,
        actor: &str,
    ) -> Result<Created> {
        let scn = self.scenario(&req.scenario)?;
        if let Some(s) = &situation
            && s.scenario != scn.id()
        {
            return Err(ServiceError::Game(format!(
                "the situation is of scenario {}, and the game is of {}",
                s.scenario,
                scn.id()
            )));
        }
        check_seats(req)?;
        let id = self.new_game_id(req)?;
        let from_situation = situation.is_some();
        // A new game starts in the set-up step (2.1), unless it starts from
        // a situation (its board already placed) or the step is turned off.
        let setup_step = !from_situation && self.cfg.turns.setup_hours > 0;
        let mut state = opening_state(&scn, req, situation)?;
        state.options.variants.extend(variants.iter().copied());
        let now = self.now();
        // A deadline of 0 hours would play each turn at the next pass
        // whatever the players sent: refused, not quietly made one hour.
        if req.deadline_hours == Some(0) {
            return Err(ServiceError::Game(
                "a deadline of 0 hours leaves no time for orders: give at least 1 (hours from a turn opening to its deadline)".into(),
            ));
        }
        let hours = req
            .deadline_hours
            .unwrap_or(self.cfg.turns.deadline_hours)
            .max(1);
        let (seed_hex, seed_sha256) = self.new_seed()?;
        let (turn_no, turn_kind, open_hours) = self.opening_turn(req.mode, setup_step, hours);
        let g = GameRow {
            id: id.clone(),
            scenario: req.scenario.clone(),
            mode: req.mode,
            status: Status::Running,
            deadline_hours: hours,
            created_at: now,
            state: serde_json::to_string(&state)
                .map_err(|e| ServiceError::State {
                    game: id.clone(),
                    message: e.to_string(),
                })?
                .into(),
            month: state.month.to_string(),
            turn_no,
            turn_kind,
            deadline: now + Duration::hours(i64::from(open_hours)),
            seed_hex,
            seed_sha256,
            reminded: false,
            result: None,
        };
        let tx = self.begin()?;
        store::insert_game(&tx, &g)?;
        let out = self.seat_players(&tx, &g, req, &state)?;
        store::audit(
            &tx,
            now,
            Some(&id),
            actor,
            "game new",
            &format!(
                "scenario {}{}, {} turns, deadlines {hours} h, Egyptian {}, Mahdist {}",
                req.scenario,
                if from_situation {
                    format!(" from a situation ({})", state.month)
                } else {
                    String::new()
                },
                req.mode.as_str(),
                req.egyptian,
                req.mahdist
            ),
        )?;
        self.bot_orders(&tx, &g, &state)?;
        self.settle_programmed_setup(&id)?;
        tx.commit()?;
        Ok(Created { id, secrets: out })
    }

    /// The new game's id: the one asked for, if it is free and well made,
    /// else the scenario's name and the first free number.
    fn new_game_id(&self, req: &NewGame) -> Result<String> {
        match &req.id {
            Some(id) => {
                if !valid_game_id(id) {
                    return Err(ServiceError::Game(format!(
                        "{id} is not a game id: use 1-40 lower-case letters, digits and dashes, starting with a letter"
                    )));
                }
                if store::game(&self.conn, id)?.is_some() {
                    return Err(ServiceError::Game(format!("a game called {id} exists")));
                }
                Ok(id.clone())
            }
            None => {
                let mut n = 1;
                loop {
                    let id = format!("{}-{n}", req.scenario);
                    if store::game(&self.conn, &id)?.is_none() {
                        break Ok(id);
                    }
                    n += 1;
                }
            }
        }
    }

    /// The new game's seats, in `tx`: an open seat, a programmed player,
    /// or a player with a new secret and a welcome mail. Each player's
    /// side and secret.
    fn seat_players(
        &self,
        tx: &rusqlite::Connection,
        g: &GameRow,
        req: &NewGame,
        state: &GameState,
    ) -> Result<Vec<(Side, String)>> {
        let mut out = Vec::new();
        for (side, address) in [
            (Side::Egyptian, &req.egyptian),
            (Side::Mahdist, &req.mahdist),
        ] {
            if is_open(address) {
                // An open seat: no address and no secret until a player
                // sends JOIN.
                store::upsert_player(tx, &seat(&g.id, side, "", None))?;
                continue;
            }
            if is_bot(address) {
                let key = self.new_bot_key(&g.id, side)?;
                store::upsert_player(tx, &bot_seat(&g.id, side, bot_kind(address, side)?, key))?;
                continue;
            }
            let secret = secrets::new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
            store::upsert_player(tx, &seat(&g.id, side, address, Some(&secret)))?;
            let opponent = if side == Side::Egyptian {
                &req.mahdist
            } else {
                &req.egyptian
            };
            let opponent = if is_open(opponent) {
                "not yet known (the seat is open)"
            } else if is_bot(opponent) {
                "the programmed player (docs/opponents.md): its orders are ready as soon as each turn opens"
            } else {
                opponent.as_str()
            };
            self.queue(self.welcome_draft(g, state, side, address, opponent, &secret)?)?;
            out.push((side, secret));
        }
        Ok(out)
    }

    /// A notice to every address of game `game` (its players and
    /// observers), unique by `key`.
    pub(super) fn notice_to_all(
        &self,
        tx: &rusqlite::Connection,
        game: &str,
        key: &str,
        headline: &str,
        text: &str,
    ) -> Result<()> {
        for a in self.game_addresses(tx, game)? {
            self.queue(self.notice_draft(Some(game), key, &a, headline, text)?)?;
        }
        Ok(())
    }

    /// The player who leaves the `side` seat of game `id` told that the
    /// game master gave it `to_whom`.
    fn tell_leaving(&self, id: &str, key: &str, to: &str, side: Side, to_whom: &str) -> Result<()> {
        self.queue(self.notice_draft(
            Some(id),
            key,
            to,
            &format!("you no longer play the {side} side"),
            &format!(
                "The game master gave the {side} side of game {id} to {to_whom}. Your secret no longer works in this game, and Dervish sends you no more mail about it."
            ),
        )?)?;
        Ok(())
    }

    /// Tell the opponent (if the seat has one) that the game master gave
    /// the `side` seat to `to_whom`.
    fn tell_opponent(
        &self,
        id: &str,
        key: &str,
        opponent: &str,
        side: Side,
        headline: &str,
        to_whom: &str,
    ) -> Result<()> {
        if !opponent.is_empty() {
            let text = format!(
                "The game master gave the {side} side of game {id} to {to_whom}. The game goes on from where it stands."
            );
            self.queue(self.notice_draft(Some(id), key, opponent, headline, &text)?)?;
        }
        Ok(())
    }

    fn welcome_draft(
        &self,
        g: &GameRow,
        state: &GameState,
        side: Side,
        to: &str,
        opponent: &str,
        secret: &str,
    ) -> Result<Draft> {
        let scn = self.scenario(&g.scenario)?;
        let rendered = self.templates.render(
            "welcome.txt",
            context! {
                game => g.id.clone(),
                side => side.to_string(),
                title => scn.def.title.clone(),
                scenario => g.scenario.clone(),
                opponent => opponent,
                secret => secret,
                month => state.month.long_name(),
                deadline => deadline_text(g.deadline),
                mode => g.mode.as_str(),
                seed_sha256 => g.seed_sha256.clone(),
                ambushes => state.options.ambushes,
                gordon_stays => state
                    .options
                    .variants
                    .contains(&crate::state::variant::Variant::GordonStays),
                steamers_run => state
                    .options
                    .variants
                    .contains(&crate::state::variant::Variant::SteamersRunTheSiege),
                first => state.month == scn.def.start,
                setup => match g.turn_kind {
                    TurnKind::SetUp(s) => s.to_string(),
                    _ => String::new(),
                },
                example => example_march(&scn, state, side),
                roster => crate::render::roster::roster(&scn, state, side),
                choices => crate::render::roster::setup_choices(&scn, state, side),
                map => ascii::overview(&scn, Some(state)),
            },
        )?;
        Ok(own_mail(
            &g.id,
            "welcome",
            format!("welcome:{}:{}", g.id, store::side_text(side)),
            to,
            rendered,
        ))
    }

    /// Push a game's deadline back by `hours`.
    pub fn extend(&self, id: &str, hours: u32, actor: &str) -> Result<GameRow> {
        let mut g = self.game(id)?;
        g.deadline += Duration::hours(i64::from(hours));
        g.reminded = false;
        let detail = format!("{hours} h, deadline now {}", deadline_text(g.deadline));
        let tx = self.begin_game_change(&g, actor, "game extend", &detail)?;
        for p in store::players(&tx, id)?
            .into_iter()
            .filter(|p| !p.address.is_empty())
        {
            self.queue(self.notice_draft(
                Some(id),
                &format!(
                    "extend:{}:{}:{}",
                    g.turn_no,
                    store::time(g.deadline),
                    store::side_text(p.side)
                ),
                &p.address,
                "deadline extended",
                &format!(
                    "The game master extended the deadline of turn {} ({}) to {}.",
                    g.turn_no,
                    g.month,
                    deadline_text(g.deadline)
                ),
            )?)?;
        }
        tx.commit()?;
        Ok(g)
    }

    /// Give a seat to the programmed player (a player dropped out): it
    /// makes its orders for the open turn at once, and for every turn
    /// after. The player who leaves and the opponent are told.
    pub fn replace_with_bot(&self, id: &str, side: Side, bot: &str, actor: &str) -> Result<()> {
        let kind = bot_kind(bot, side)?;
        let g = self.game(id)?;
        if g.status == Status::Finished {
            return Err(ServiceError::Game(format!("game {id} is over")));
        }
        let state = self.state_shown(&g)?;
        let players = store::players(&self.conn, id)?;
        let Some(old) = players.iter().find(|p| p.side == side).cloned() else {
            return Err(ServiceError::Game(format!("game {id} has no {side} seat")));
        };
        if old.bot.is_some() {
            return Err(ServiceError::Game(format!(
                "the {side} seat of {id} is already the programmed player's"
            )));
        }
        if players.iter().any(|p| p.side != side && p.bot.is_some()) {
            return Err(ServiceError::Game(format!(
                "the other seat of {id} is a programmed player's already: a game by mail needs a player"
            )));
        }
        let opponent = players
            .iter()
            .find(|p| p.side != side)
            .map(|p| p.address.clone())
            .unwrap_or_default();
        let tx = self.begin()?;
        store::upsert_player(&tx, &bot_seat(id, side, kind, self.new_bot_key(id, side)?))?;
        self.supersede_welcome(&tx, id, side)?;
        let note = format!("replaced:{}:bot:{}", store::side_text(side), g.turn_no);
        if !old.address.is_empty() {
            self.tell_leaving(id, &note, &old.address, side, "the programmed player")?;
        }
        let headline = format!("the {side} side is now played by Dervish");
        let to_whom = format!(
            "the programmed {side} player (docs/opponents.md); its orders for this turn are in already"
        );
        self.tell_opponent(id, &note, &opponent, side, &headline, &to_whom)?;
        self.bot_orders(&tx, &g, &state)?;
        store::audit(
            &tx,
            self.now(),
            Some(id),
            actor,
            "game replace",
            &format!(
                "{side} seat to the programmed player (was {})",
                if old.address.is_empty() {
                    "open"
                } else {
                    &old.address
                }
            ),
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Give a side's seat to another address, with a new secret (mailed to
    /// the new player). Returns the new secret.
    pub fn replace_player(
        &self,
        id: &str,
        side: Side,
        address: &str,
        actor: &str,
    ) -> Result<String> {
        if !valid_address(address) {
            return Err(ServiceError::Game(format!(
                "{address} is not a mail address"
            )));
        }
        let g = self.game(id)?;
        let state = self.state_shown(&g)?;
        let secret = secrets::new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
        let players = store::players(&self.conn, id)?;
        let opponent = players
            .iter()
            .find(|p| p.side != side)
            .map(|p| p.address.clone())
            .unwrap_or_default();
        let old = players
            .iter()
            .find(|p| p.side == side)
            .map(|p| p.address.clone())
            .filter(|a| !a.is_empty() && !a.eq_ignore_ascii_case(address));
        let was_bot = players.iter().any(|p| p.side == side && p.bot.is_some());
        let tx = self.begin()?;
        store::upsert_player(&tx, &seat(id, side, address, Some(&secret)))?;
        self.supersede_welcome(&tx, id, side)?;
        // The programmed player's orders for the open turn were READY: the
        // new player starts the turn with none, so it waits for their
        // orders (or the deadline) instead of playing at the next pass.
        if was_bot && g.status == Status::Running && g.turn_kind.waits_for().contains(&side) {
            let none = crate::engine::orders::Orders::default();
            let set = super::record::SetToSeal {
                message: None,
                canonical: "",
                orders: &none,
                ready: false,
                refused_lines: 0,
            };
            super::record::insert_sealed_set(&tx, &g, side, set, self.now())?;
        }
        // The player who leaves and the opponent are told.
        let key = format!(
            "replaced:{}:{}",
            store::side_text(side),
            secrets::sha256_hex(secret.as_bytes())
        );
        if let Some(old) = &old {
            self.tell_leaving(id, &key, old, side, "another player")?;
        }
        let headline = format!("the {side} side has a new player");
        self.tell_opponent(id, &key, &opponent, side, &headline, address)?;
        let d = self.welcome_draft(&g, &state, side, address, &opponent, &secret)?;
        let audit = ("game replace", format!("{side} seat to {address}"));
        self.commit_new_secret(tx, d, secret, "replaced", actor, audit)
    }

    /// Give a seat's player a new secret (`dervish game secret`, `GM
    /// SECRET`): a new random token, only its digest stored, mailed to the
    /// player in a new welcome mail. The old secret stops working at once,
    /// and a welcome mail with it that is not sent yet is given up and
    /// scrubbed. For a player whose welcome mail was given up (its secret
    /// is not kept), or who lost the secret. Returns the new secret.
    pub fn reissue_secret(&self, id: &str, side: Side, actor: &str) -> Result<String> {
        let g = self.game(id)?;
        let players = store::players(&self.conn, id)?;
        let Some(player) = players.iter().find(|p| p.side == side) else {
            return Err(ServiceError::Game(format!("game {id} has no {side} seat")));
        };
        if player.address.is_empty() {
            return Err(ServiceError::Game(format!(
                "the {side} seat of game {id} is open: no player, no secret"
            )));
        }
        let state = self.state_shown(&g)?;
        let secret = secrets::new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
        let opponent = opponent_named(&players, side);
        let tx = self.begin()?;
        store::upsert_player(
            &tx,
            &PlayerRow {
                secret_sha256: secrets::secret_digest(&secret),
                auth_failures: 0,
                ..player.clone()
            },
        )?;
        self.supersede_welcome(&tx, id, side)?;
        let d = self.welcome_draft(&g, &state, side, &player.address, &opponent, &secret)?;
        let audit = (
            "game secret",
            format!("new secret for the {side} player, {}", player.address),
        );
        self.commit_new_secret(tx, d, secret, "reissued", actor, audit)
    }

    /// The last step of giving a seat a new secret: the welcome mail `d`
    /// with it queued under a key that holds `why` and the secret's digest
    /// (each new secret is mailed once), the change audited for the mail's
    /// game (`what`, `detail`), and all committed. Returns the secret.
    fn commit_new_secret(
        &self,
        tx: super::Tx<'_>,
        mut d: Draft,
        secret: String,
        why: &str,
        actor: &str,
        (what, detail): (&str, String),
    ) -> Result<String> {
        d.dedupe_key = format!(
            "{}:{why}:{}",
            d.dedupe_key,
            secrets::sha256_hex(secret.as_bytes())
        );
        let game = d.game_id.clone();
        self.queue(d)?;
        store::audit(&tx, self.now(), game.as_deref(), actor, what, &detail)?;
        tx.commit()?;
        Ok(secret)
    }

    /// Give up and scrub the welcome mails of a seat not sent yet: the
    /// secret in them no longer holds.
    fn supersede_welcome(&self, tx: &rusqlite::Connection, id: &str, side: Side) -> Result<()> {
        for mail in store::supersede_welcome(
            tx,
            id,
            side,
            "not sent: the seat has a new secret, in a newer welcome mail",
        )? {
            store::redact_mail(tx, mail, super::mail::SCRUBBED_WELCOME)?;
        }
        Ok(())
    }

    /// A player takes an open seat (the JOIN command): the seat gets the
    /// sender's address and a new secret, mailed in a welcome. Returns the
    /// side taken, or `None` if no seat (of that side) is open.
    pub fn join(&self, id: &str, address: &str, side: Option<Side>) -> Result<Option<Side>> {
        let g = self.game(id)?;
        if g.status == super::store::Status::Finished || !valid_address(address) {
            return Ok(None);
        }
        let players = store::players(&self.conn, id)?;
        let Some(seat) = players
            .iter()
            .find(|p| p.address.is_empty() && p.bot.is_none() && side.is_none_or(|s| s == p.side))
        else {
            return Ok(None);
        };
        let state = self.state_shown(&g)?;
        let secret = secrets::new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
        let opponent = opponent_named(&players, seat.side);
        let tx = self.begin()?;
        store::upsert_player(
            &tx,
            &PlayerRow {
                address: address.trim().to_lowercase(),
                secret_sha256: secrets::secret_digest(&secret),
                // A new player's own choices: the defaults.
                map_picture: true,
                show_address: false,
                ..seat.clone()
            },
        )?;
        self.queue(self.welcome_draft(&g, &state, seat.side, address, &opponent, &secret)?)?;
        store::audit(
            &tx,
            self.now(),
            Some(id),
            &format!("mail:{address}"),
            "join",
            &format!("{} seat", seat.side),
        )?;
        let gm = self.cfg.host.game_master.clone();
        self.queue(self.notice_draft(
            Some(id),
            &format!("joined:{}", store::side_text(seat.side)),
            &gm,
            "a player joined",
            &format!("{address} took the open {} seat of game {id}.", seat.side),
        )?)?;
        tx.commit()?;
        Ok(Some(seat.side))
    }

    /// Add an observer: they get every turn's results.
    pub fn add_observer(&self, id: &str, address: &str, actor: &str) -> Result<()> {
        if !valid_address(address) {
            return Err(ServiceError::Game(format!(
                "{address} is not a mail address"
            )));
        }
        self.game(id)?;
        let tx = self.begin()?;
        store::add_observer(&tx, id, &address.trim().to_lowercase())?;
        store::audit(&tx, self.now(), Some(id), actor, "game observe", address)?;
        tx.commit()?;
        Ok(())
    }

    /// Pause or resume a game. A resumed game's deadline is at least a full
    /// turn's hours away.
    pub fn set_paused(&self, id: &str, paused: bool, actor: &str) -> Result<GameRow> {
        let mut g = self.game(id)?;
        if g.status == Status::Finished {
            return Err(ServiceError::Game(format!("game {id} is finished")));
        }
        g.status = if paused {
            Status::Paused
        } else {
            Status::Running
        };
        if !paused {
            let earliest = self.now() + Duration::hours(i64::from(g.deadline_hours));
            if g.deadline < earliest {
                g.deadline = earliest;
                g.reminded = false;
            }
        }
        let what = if paused { "game pause" } else { "game resume" };
        self.begin_game_change(&g, actor, what, "")?.commit()?;
        Ok(g)
    }

    /// Begin a transaction that writes `g` back and audits the change,
    /// `what` and `detail`, by `actor`; the caller adds what goes with it
    /// and commits.
    fn begin_game_change(
        &self,
        g: &GameRow,
        actor: &str,
        what: &str,
        detail: &str,
    ) -> Result<super::Tx<'_>> {
        let tx = self.begin()?;
        store::update_game(&tx, g)?;
        store::audit(&tx, self.now(), Some(&g.id), actor, what, detail)?;
        Ok(tx)
    }
}

/// The state a new game opens with: the situation (its board placed, so
/// no set-up step, 2.1) or the scenario's default placement, with the
/// game's options.
fn opening_state(
    scn: &crate::scenario::Scenario,
    req: &NewGame,
    situation: Option<GameState>,
) -> Result<GameState> {
    let mut state = match situation {
        Some(s) => GameState {
            setup_placed: true,
            ..s
        },
        None => {
            initial_state(scn, &Placements::new())
                .map_err(|e| ServiceError::Data(e.to_string()))?
                .0
        }
    };
    state.options.ambushes |= req.ambushes;
    if req.table_battles.any() {
        state.options.table_battles = req.table_battles.clone();
    }
    if req.resolver != crate::state::AutoResolver::Tables {
        state.options.resolver = req.resolver;
    }
    Ok(state)
}

/// A deadline as shown to players.
pub fn deadline_text(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A seat as a game starts it: the address as stored (trimmed, lower
/// case) and the digest of its secret; an open seat has neither.
fn seat(game_id: &str, side: Side, address: &str, secret: Option<&str>) -> PlayerRow {
    PlayerRow {
        game_id: game_id.to_owned(),
        side,
        address: address.trim().to_lowercase(),
        secret_sha256: secret.map(secrets::secret_digest).unwrap_or_default(),
        unreachable: false,
        missed_turns: 0,
        auth_failures: 0,
        bot: None,
        bot_key: None,
        map_picture: true,
        show_address: false,
    }
}

/// A seat held by the programmed player `kind`: no address, no secret, and
/// a key of its own for its dice.
fn bot_seat(game_id: &str, side: Side, kind: &str, key: String) -> PlayerRow {
    PlayerRow {
        bot: Some(kind.into()),
        bot_key: Some(key),
        ..seat(game_id, side, "", None)
    }
}

/// A march this side can really order now, for the welcome mail's
/// example: one of its stacks (the largest first) to a hex next to it,
/// written as players write it and accepted by the same checker as their
/// mail, with no error and no warning. `None` if no stack can march.
pub fn example_march(
    scn: &crate::scenario::Scenario,
    state: &GameState,
    side: Side,
) -> Option<String> {
    use crate::orders::{self, Input, Vocabulary, print};
    let vocab = Vocabulary::new(scn).in_play(state);
    let mut stacks: Vec<_> = state
        .stacks()
        .into_iter()
        .filter(|s| s.side == side && !s.units.is_empty())
        .collect();
    stacks.sort_by_key(|s| std::cmp::Reverse(s.units.len()));
    for s in stacks.iter().take(6) {
        for n in s.hex.neighbours() {
            if !scn.map.is_land(n) {
                continue;
            }
            let text = format!(
                "MARCH STACK {} TO {}",
                print::place(&scn.map, s.hex),
                print::place(&scn.map, n)
            );
            let Ok(p) = orders::parse(&Input::text(&text), &vocab) else {
                continue;
            };
            if !p.errors.is_empty() || p.sheet.items.len() != 1 {
                continue;
            }
            let c = orders::check(&p.sheet, scn, state, side);
            if c.errors.is_empty() && c.warnings.is_empty() && !c.refused {
                return Some(text);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::{Config, STATE_CACHE};
    use crate::store::open_in_memory;

    /// A host with many games keeps only a few decoded states, however
    /// many games receive mail: memory does not grow with the games.
    #[test]
    fn decoded_states_kept_are_bounded() {
        let svc = Service::with_connection(Config::default(), open_in_memory().unwrap()).unwrap();
        let n = STATE_CACHE + 4;
        for i in 0..n {
            svc.new_game(
                &NewGame {
                    id: Some(format!("g{i}")),
                    ..NewGame::monthly("khartoum", "red@example.org", "blue@example.org")
                },
                "test",
            )
            .unwrap();
        }
        let first = svc.game("g0").unwrap();
        let decoded: GameState = serde_json::from_str(&first.state).unwrap();
        for i in 0..n {
            svc.state_of(&svc.game(&format!("g{i}")).unwrap()).unwrap();
        }
        assert_eq!(svc.states.borrow().len(), STATE_CACHE);
        // The oldest was let go and is read again, the same state.
        assert!(!svc.states.borrow().iter().any(|e| e.game == "g0"));
        assert_eq!(*svc.state_of(&first).unwrap(), decoded);
        assert_eq!(svc.states.borrow()[0].game, "g0");
        assert_eq!(svc.states.borrow().len(), STATE_CACHE);
    }
}
