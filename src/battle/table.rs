//! Which combats of a game go to the table, and how each combat of a turn
//! is resolved: the game's [`Resolver`] (docs/tabletop.md, "Battles sent to
//! the table").
//!
//! A combat goes to the table when the game's option selects it (all land
//! combats, those above a size, those at places the game master flagged)
//! and the player turn has not yet sent its cap of battles there. Its
//! result, once settled, is given back as a [`Settlement`]; without one
//! the turn stops at that combat and the resolver keeps the combat and the
//! state as they stood, for the briefs. Every other combat goes to the
//! game's automatic resolver (the campaign's tables, or another rule set's
//! procedure).
//!
//! The resolver counts the table battles of each player turn as the turn
//! is played, so a turn played again from its start with the same orders
//! and dice meets the same combats in the same order and sends the same
//! ones to the table: that is what lets a stopped turn be resumed by
//! playing it again (ARCHITECTURE.md, "A turn stopped for a table
//! battle").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::dice::{DiceKind, Roll};
use crate::engine::elsewhere::{BattleKey, Combat, Resolution, Resolved, Resolver};
use crate::scenario::{Scenario, Side};
use crate::state::{GameState, TableBattles, TableSelect};

/// How a table battle was settled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Settlement {
    /// The result came back and was confirmed (or entered by the game
    /// master); `text` is the result as written, `resolved` what it says.
    Table { text: String, resolved: Resolved },
    /// No result by the deadline: the combat is resolved as the others
    /// are, and the log says so.
    Deadline,
}

/// The combat a turn stopped at, with the state as it stood then.
#[derive(Clone, Debug, PartialEq)]
pub struct Stopped {
    pub combat: Combat,
    pub state: GameState,
}

/// A game's resolver: table battles as its options say, the rest to
/// `auto`.
pub struct TableResolver<'a> {
    options: TableBattles,
    settled: &'a BTreeMap<BattleKey, Settlement>,
    auto: &'a mut dyn Resolver,
    /// Table battles sent so far in each player turn.
    sent: BTreeMap<(crate::calendar::GameMonth, Side), u32>,
    /// The combat the turn stopped at, if it did.
    pub stopped: Option<Stopped>,
}

impl<'a> TableResolver<'a> {
    pub fn new(
        options: &TableBattles,
        settled: &'a BTreeMap<BattleKey, Settlement>,
        auto: &'a mut dyn Resolver,
    ) -> Self {
        TableResolver {
            options: options.clone(),
            settled,
            auto,
            sent: BTreeMap::new(),
            stopped: None,
        }
    }

    /// Whether the game's option selects this combat for the table (before
    /// the cap).
    pub fn selects(options: &TableBattles, combat: &Combat) -> bool {
        match options.select {
            TableSelect::None => false,
            TableSelect::All => true,
            TableSelect::Above(n) => combat.size() > n,
            TableSelect::Flagged => {
                options.flagged.contains(&combat.attacker_hex)
                    || options.flagged.contains(&combat.defender_hex)
            }
        }
    }
}

impl Resolver for TableResolver<'_> {
    fn resolve(
        &mut self,
        scn: &Scenario,
        state: &GameState,
        combat: &Combat,
        roll: &mut dyn FnMut(DiceKind, String) -> Roll,
    ) -> Resolution {
        if self.stopped.is_some() {
            return Resolution::Stop;
        }
        let to_table = Self::selects(&self.options, combat) && {
            let sent = self
                .sent
                .entry((combat.key.month, combat.key.turn))
                .or_default();
            let room = self.options.cap.is_none_or(|cap| *sent < cap);
            if room {
                *sent += 1;
            }
            room
        };
        if !to_table {
            return self.auto.resolve(scn, state, combat, roll);
        }
        match self.settled.get(&combat.key) {
            Some(Settlement::Table { resolved, .. }) => Resolution::Resolved(resolved.clone()),
            Some(Settlement::Deadline) => {
                match self.auto.resolve(scn, state, combat, roll) {
                    Resolution::Tables => Resolution::TablesNoted(
                        "no result of the table battle came by its deadline: the combat is resolved on the campaign's tables".into(),
                    ),
                    Resolution::TablesNoted(n) => Resolution::TablesNoted(n),
                    Resolution::Resolved(mut r) => {
                        r.how = format!("{} (no result of the table battle came by its deadline)", r.how);
                        Resolution::Resolved(r)
                    }
                    Resolution::Stop => Resolution::Stop,
                }
            }
            None => {
                self.stopped = Some(Stopped {
                    combat: combat.clone(),
                    state: state.clone(),
                });
                Resolution::Stop
            }
        }
    }
}
