//! A turn played from its inputs: the engine with the turn's seed and the
//! table battles' settlements, as the turn pass, the set-up step, a
//! rollback's preview, the archive and `verify` all play it. It uses no
//! other file of the service: they all use it.

use std::collections::BTreeMap;

use super::secrets::unhex;
use super::{Result, ServiceError};
use crate::battle::table::{Settlement, Stopped, TableResolver};
use crate::dice::{Dice, SeededDice};
use crate::engine::elsewhere::BattleKey;
use crate::engine::orders::Orders;
use crate::engine::{TurnResult, play_month_resolving, play_player_turn_resolving};
use crate::scenario::{Scenario, Side};
use crate::state::GameState;
use crate::store::{OrderSetRow, TurnKind};

/// The settlements a turn is played with, by combat.
pub type Settlements = BTreeMap<BattleKey, Settlement>;

/// Settlements as stored with a turn (a list: JSON keys are text).
pub fn settlements_json(s: &Settlements) -> String {
    let list: Vec<(&BattleKey, &Settlement)> = s.iter().collect();
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
}

/// Settlements read back from a turn row or a turn record.
pub fn settlements_from_json(text: &str) -> std::result::Result<Settlements, String> {
    let list: Vec<(BattleKey, Settlement)> =
        serde_json::from_str(text).map_err(|e| format!("table battles: {e}"))?;
    Ok(list.into_iter().collect())
}

/// The hash recorded for a side that sent no orders (it holds).
pub const NO_ORDERS: &str = "none (no orders: the side held)";

/// What [`adjudicate`] shows the state to as each player turn begins.
pub type Watch<'a> = &'a mut dyn FnMut(&GameState, Side);

/// Play one turn: the pure engine with the stored seed. The whole month
/// (Egyptian then Mahdist player turn), or one player turn in alternating
/// mode; after the Mahdist player turn the calendar moves on (5.1).
/// Combats go to the table as the game's options say, with the results of
/// the battles already `settled`; the turn stops at a table battle not yet
/// settled, and the combat and the state then are returned with it.
/// `watch`, if given, is shown the state each side's orders are asked for
/// as its player turn begins: in a month, the state after the Egyptian
/// player turn is the last one shown for the Mahdist side (the archive
/// draws the map after each player turn from it).
#[allow(clippy::too_many_arguments)]
pub fn adjudicate(
    scn: &Scenario,
    state: GameState,
    kind: TurnKind,
    egyptian: &Orders,
    mahdist: &Orders,
    seed: [u8; 32],
    settled: &Settlements,
    etyfw: Option<&crate::scenario::NamedText>,
    watch: Option<Watch<'_>>,
) -> Result<(TurnResult, Option<Stopped>)> {
    let mut nothing = |_: &GameState, _: Side| {};
    let watch: Watch<'_> = match watch {
        Some(w) => w,
        None => &mut nothing,
    };
    let mut dice = Dice::new(SeededDice::from_seed_bytes(seed));
    let options = state.options.clone();
    let mut auto = crate::battle::auto_resolver(options.resolver, etyfw)
        .map_err(|d| ServiceError::Data(d.to_string()))?;
    let mut resolver = TableResolver::new(&options.table_battles, settled, auto.as_mut());
    let r = match kind {
        TurnKind::Month => play_month_resolving(
            scn,
            state,
            &mut |s, side| {
                watch(s, side);
                if side == Side::Egyptian {
                    egyptian.clone()
                } else {
                    mahdist.clone()
                }
            },
            &mut dice,
            &mut resolver,
        ),
        TurnKind::SetUp(_) => {
            watch(&state, Side::Egyptian);
            crate::engine::place_set_ups(scn, state, egyptian, &mut |s| {
                watch(s, Side::Mahdist);
                mahdist.clone()
            })
        }
        TurnKind::Player(side) => {
            let orders = if side == Side::Egyptian {
                egyptian
            } else {
                mahdist
            };
            let mut r =
                play_player_turn_resolving(scn, state, side, orders, &mut dice, &mut resolver);
            if side == Side::Mahdist
                && !r.halted
                && r.state.result.is_none()
                && let Some(next) = r.state.month.next()
            {
                r.state.month = next;
                r.state.effects = Default::default();
            }
            r
        }
    };
    let stopped = resolver.stopped.take();
    Ok((r, stopped))
}

/// A turn's seed from its hex.
pub fn seed_bytes(hex: &str) -> Option<[u8; 32]> {
    unhex(hex)?.try_into().ok()
}

/// A value as JSON for a row of game `game`; a value that cannot be
/// written is an error of the game's state.
pub fn json_of(game: &str, v: &dyn erased::Json) -> Result<String> {
    v.json().map_err(|message| ServiceError::State {
        game: game.to_string(),
        message,
    })
}

/// The hash an order set was sealed with, or [`NO_ORDERS`] for a side
/// that sent none.
pub fn sealed_hash(s: &Option<OrderSetRow>) -> String {
    s.as_ref()
        .map_or(NO_ORDERS.to_string(), |s| s.sha256.clone())
}

/// Values turned to JSON through one trait object, whatever their type.
pub(super) mod erased {
    pub trait Json {
        fn json(&self) -> Result<String, String>;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> Result<String, String> {
            serde_json::to_string(self).map_err(|e| e.to_string())
        }
    }
}
