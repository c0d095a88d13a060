//! `dervish simulate`: a campaign played by programmed players, its log
//! printed.

use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::dice::{Dice, SeededDice};
use dervish::engine::play_month_with;
use dervish::players::mahdist::Opponents;
use dervish::players::scripted::Scripts;
use dervish::players::simple::simple_orders;
use dervish::scenario::reactions::Reactions;
use dervish::scenario::{DataFiles, Scenario, Side};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};

use crate::cli::common::{self, Env};
use crate::cli::scripted;

/// Play a campaign with the simple built-in player on both sides and
/// print the full result log and a digest of the final state.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, short, default_value = "khartoum")]
    scenario: String,
    /// Seed of the dice: the same seed prints the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Months to play (default: to the end of the scenario).
    #[arg(long)]
    months: Option<u32>,
    /// Who plays the Mahdist side: `simple` (march on the nearest
    /// enemy town) or `bot` (the reaction-table player of
    /// docs/opponents.md, whose umpire's notes are printed too), or
    /// `orders:DIR`, the order files of a folder (see --egyptian).
    #[arg(long, default_value = "simple", value_parser = scripted::player(&["simple", "bot"]))]
    mahdist: String,
    /// Who plays the Egyptian side: `simple`, or the programmed
    /// Egyptian player `historical` (cautious) or `competent`, or
    /// `orders:DIR`: one file of orders a month in DIR, in the order
    /// language, read and checked as a player's mail (`1882-11.txt` or
    /// `02.txt` for the second month, `setup.txt` for the set-up; no
    /// file: no orders). Each month's orders kept and set aside are
    /// printed.
    #[arg(long, default_value = "simple", value_parser = scripted::player(&["simple", "historical", "competent"]))]
    egyptian: String,
    /// Play with the optional ambush rule (docs/rules.md, "Ambushes").
    #[arg(long)]
    ambushes: bool,
    /// A house rule, off by default (repeatable): `gordon-stays` (no
    /// order may take Gordon out of Khartoum) or `steamers-run-the-siege`
    /// (supply aboard a gunboat may enter a besieged town by river);
    /// docs/rules.md, "House rules (optional variants)".
    #[arg(long = "variant", value_name = "NAME")]
    variant: Vec<dervish::state::variant::Variant>,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let data = common::data(&env.data)?;
    let scn = common::scenario(&data, &args.scenario)?;
    let scripts = scripted::scripts(&scn, &args.egyptian, &args.mahdist)?;
    let (mut state, _) = initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
    state.options.ambushes = args.ambushes;
    state.options.variants = args.variant.iter().copied().collect();
    let seed = args.seed;
    outln!(
        "Simulation of {} ({}), seed {seed}",
        scn.def.title,
        scn.id()
    );
    if !state.options.variants.is_empty() {
        let names: Vec<&str> = state.options.variants.iter().map(|v| v.key()).collect();
        outln!("House rules: {} (docs/rules.md)", names.join(", "));
    }
    // The data folder's reaction table and programmed players' data, if
    // it has them (`--data DIR`).
    let opponents = opponents(&common::files(&env.data)?)?;
    let mut players = Players {
        scn: &scn,
        scripts: &scripts,
        egyptian: &args.egyptian,
        opponents: &opponents,
        bot: (args.mahdist == "bot").then(|| (*scn.reactions).clone()),
        // The bot's own dice: a stream apart from the turn's.
        bot_dice: Dice::new(SeededDice::from_seed(seed ^ 0x6d61_6864_6973_7400)),
    };
    let mut dice = Dice::new(SeededDice::from_seed(seed));
    let limit = args.months.unwrap_or(u32::MAX);
    let mut played = 0;
    while played < limit && state.result.is_none() {
        let month = state.month;
        let mut said = Said::default();
        let r = play_month_with(
            &scn,
            state,
            &mut |s, side| players.orders(s, side, &mut said),
            &mut dice,
        );
        said.print(month);
        out!("{}", dervish::render::log::render(&scn.map, &r.events));
        state = r.state;
        played += 1;
        if state.month == month && state.result.is_none() {
            break;
        }
    }
    print_the_end(&state, played);
    Ok(ExitCode::SUCCESS)
}

/// The programmed players' data: the data folder's, else the shipped.
pub fn opponents(files: &DataFiles) -> Result<Opponents> {
    match files.extra("opponents.ron") {
        Some(f) => Opponents::parse(&f.text).map_err(|e| anyhow!("{}: {e}", f.name)),
        None => Opponents::shipped().map_err(|e| anyhow!(e)),
    }
}

/// Who gives each side's orders.
struct Players<'a> {
    scn: &'a Scenario,
    scripts: &'a Scripts,
    /// `--egyptian`: `simple`, a programmed player's persona, or a folder.
    egyptian: &'a str,
    opponents: &'a Opponents,
    /// The reaction table, when the Mahdist bot plays.
    bot: Option<Reactions>,
    bot_dice: Dice<SeededDice>,
}

/// What the players said of a month: the order files' orders kept and set
/// aside, the Egyptian player's reasons, the umpire's notes of the
/// Mahdist reaction rolls.
#[derive(Default)]
struct Said {
    from_files: String,
    egyptian_notes: Vec<String>,
    notes: Vec<String>,
}

impl Players<'_> {
    /// The orders of `side` for its call in `s`.
    fn orders(
        &mut self,
        s: &GameState,
        side: Side,
        said: &mut Said,
    ) -> dervish::engine::orders::Orders {
        let scn = self.scn;
        match (&self.bot, side) {
            (_, side) if self.scripts.of(side).is_some() => {
                scripted::play(scn, s, self.scripts, side, &mut said.from_files)
            }
            (Some(table), Side::Mahdist) => {
                let d = dervish::players::mahdist::decide(
                    scn,
                    s,
                    table,
                    self.opponents,
                    &mut self.bot_dice,
                );
                // The opening month asks twice (set-up, then the turn):
                // the turn's notes are the ones kept.
                said.notes = d.notes;
                d.orders
            }
            (_, Side::Egyptian) => {
                match dervish::players::egyptian::Persona::parse(self.egyptian) {
                    Some(p) => {
                        let d = dervish::players::egyptian::decide_with(
                            scn,
                            s,
                            p,
                            Some(self.opponents),
                        );
                        said.egyptian_notes = d.notes;
                        d.orders
                    }
                    None => simple_orders(scn, s, side),
                }
            }
            _ => simple_orders(scn, s, side),
        }
    }
}

impl Said {
    fn print(self, month: dervish::calendar::GameMonth) {
        out!("{}", self.from_files);
        if !self.egyptian_notes.is_empty() {
            outln!("== {} the Egyptian player's reasons", month.long_name());
            for n in self.egyptian_notes {
                outln!("  {n}");
            }
        }
        if !self.notes.is_empty() {
            outln!(
                "== {} umpire's notes (the Mahdist reaction rolls)",
                month.long_name()
            );
            for n in self.notes {
                outln!("  {n}");
            }
        }
    }
}

/// The months played, the result, the units left and the state's digest.
fn print_the_end(state: &GameState, played: u32) {
    outln!();
    outln!("Months played: {played}; now {}", state.month.long_name());
    match &state.result {
        Some(r) => outln!(
            "Result: {}",
            match r.winner {
                Some(s) => format!("{s} victory: {}", r.reason),
                None => format!("draw: {}", r.reason),
            }
        ),
        None => outln!("Result: the game goes on"),
    }
    for side in [Side::Egyptian, Side::Mahdist] {
        let n = state
            .units
            .iter()
            .filter(|u| u.side == side && u.hex().is_some())
            .count();
        outln!("{side} units on the map: {n}");
    }
    outln!("State digest: {}", state.digest());
}
