//! `dervish game new`: a game started, from a scenario's set-up or a
//! rule case's situation.

use anyhow::{Result, anyhow};

use dervish::cases::Case;
use dervish::service::Service;
use dervish::service::games::{NewGame, deadline_text};
use dervish::state::TableBattles;
use dervish::store::{self, Mode};

use crate::cli::common;

/// Start a game: make each player's secret and mail it; the game opens
/// with the set-up (2.1), the Egyptian's then the Mahdist's, and then
/// the first turn (a game from a situation opens with the first turn).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The scenario (default: khartoum, or the situation's).
    #[arg(long, short)]
    scenario: Option<String>,
    /// Start from a rule case's situation (docs/cases.md) instead of
    /// the scenario's set-up.
    #[arg(long, value_name = "FILE")]
    situation: Option<std::path::PathBuf>,
    /// The Egyptian player's address, `open` for a seat a player
    /// takes by mailing JOIN, or `bot` (`bot:historical`,
    /// `bot:competent`) for the programmed Egyptian player.
    #[arg(long)]
    egyptian: String,
    /// The Mahdist player's address, `open`, or `bot` for the programmed
    /// Mahdist player of the reaction table (docs/opponents.md).
    #[arg(long)]
    mahdist: String,
    /// The game's id (default: SCENARIO-N).
    #[arg(long)]
    id: Option<String>,
    /// monthly: both sides' orders, then the month; alternating: each
    /// player turn has its own orders and deadline.
    #[arg(long, default_value = "monthly", value_parser = ["monthly", "alternating"])]
    mode: String,
    /// Hours from a turn opening to its deadline (at least 1).
    #[arg(long)]
    deadline_hours: Option<u32>,
    /// Play with the optional ambush rule of the seed "Mahdist
    /// Ambushes": Egyptian columns marching through hills, wells,
    /// villages and wadis near the Mahdists may be ambushed
    /// (docs/rules.md, "Ambushes").
    #[arg(long)]
    ambushes: bool,
    /// A house rule, off by default (repeatable): `gordon-stays` (no
    /// order may take Gordon out of Khartoum) or `steamers-run-the-siege`
    /// (supply aboard a gunboat may enter a besieged town by river);
    /// docs/rules.md, "House rules (optional variants)".
    #[arg(long = "variant", value_name = "NAME")]
    variant: Vec<dervish::state::variant::Variant>,
    /// Which combats are fought on the tabletop (docs/tabletop.md):
    /// none, all, above:N (more than N strength points, both sides
    /// together) or flagged (places the game master flags with
    /// `dervish battle flag`).
    #[arg(long, default_value = "none", value_parser = parse_select)]
    table_battles: dervish::state::TableSelect,
    /// At most this many table battles a player turn; the rest are
    /// resolved as the others.
    #[arg(long)]
    table_cap: Option<u32>,
    /// The miniatures rules of the table battles: volley-fire,
    /// pits-1885 or etyfw.
    #[arg(long, default_value = "volley-fire", value_parser = parse_rules)]
    table_rules: dervish::state::RuleSet,
    /// Hours from the battle briefs to the result's deadline.
    #[arg(long, default_value_t = 168)]
    table_hours: u32,
    /// What resolves the combats not sent to the table: tables (the
    /// campaign's combat tables) or etyfw (the procedure of 'Eres To
    /// You Fuzzy Wuzzy, docs/tabletop-etyfw.md).
    #[arg(long, default_value = "tables", value_parser = parse_resolver)]
    resolver: dervish::state::AutoResolver,
    /// A time bank instead of fixed deadlines: BASE+INCREMENT, as
    /// 7d+3d (each player has BASE, and INCREMENT more each turn;
    /// their time runs while a turn waits for them).
    #[arg(long, value_name = "BASE+INCREMENT")]
    clock: Option<dervish::service::clock::ClockSpec>,
}

fn parse_select(s: &str) -> std::result::Result<dervish::state::TableSelect, String> {
    s.parse()
}

fn parse_rules(s: &str) -> std::result::Result<dervish::state::RuleSet, String> {
    s.parse()
}

fn parse_resolver(s: &str) -> std::result::Result<dervish::state::AutoResolver, String> {
    s.parse()
}

/// `game new`: the game made, its clock set, and how it opens told.
pub fn run(s: &Service, args: Args) -> Result<()> {
    let e = |e: dervish::service::ServiceError| anyhow!("{e}");
    if args.table_hours == 0 {
        return Err(anyhow!(
            "--table-hours 0 leaves no time to fight a battle: give at least 1"
        ));
    }
    let table_battles = TableBattles {
        select: args.table_battles,
        cap: args.table_cap,
        rules: args.table_rules,
        flagged: Default::default(),
        deadline_hours: args.table_hours,
    };
    let situation = situation(s, &args)?;
    let scenario = match &situation {
        Some(c) => c.scn.id().to_string(),
        None => args.scenario.unwrap_or_else(|| "khartoum".to_string()),
    };
    let created = s
        .new_game_with(
            &NewGame {
                scenario,
                egyptian: args.egyptian,
                mahdist: args.mahdist,
                id: args.id,
                mode: Mode::parse(&args.mode).unwrap_or(Mode::Monthly),
                deadline_hours: args.deadline_hours,
                ambushes: args.ambushes,
                table_battles,
                resolver: args.resolver,
            },
            situation.map(|c| c.state),
            &args.variant.iter().copied().collect(),
            &common::actor(),
        )
        .map_err(e)?;
    if let Some(spec) = args.clock {
        s.set_time_bank(&created.id, spec, &common::actor())
            .map_err(e)?;
    }
    let g = s.game(&created.id).map_err(e)?;
    let opening = match g.turn_kind {
        store::TurnKind::SetUp(side) => format!(
            "the set-up (2.1) first, the {side} set-up due by {}; then the first turn, {}",
            deadline_text(g.deadline),
            g.month
        ),
        _ => format!(
            "first turn {}, deadline {}",
            g.month,
            deadline_text(g.deadline)
        ),
    };
    outln!(
        "Game {} created: {opening}. Each player's secret is in their welcome mail (run `dervish run --once` to send it).",
        g.id
    );
    Ok(())
}

/// The situation of `--situation FILE`, which must be of the scenario
/// `--scenario` names if it names one.
fn situation(s: &Service, args: &Args) -> Result<Option<Case>> {
    let Some(path) = &args.situation else {
        return Ok(None);
    };
    let case = dervish::cases::load(path, &s.data).map_err(|d| anyhow!("{d}"))?;
    if let Some(id) = args.scenario.as_ref().filter(|id| *id != case.scn.id()) {
        return Err(anyhow!(
            "{} is a situation of scenario {}, and --scenario says {}",
            path.display(),
            case.scn.id(),
            id
        ));
    }
    Ok(Some(case))
}
