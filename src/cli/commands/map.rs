//! `dervish map`: a scenario's map printed or drawn, or a stored game's.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::dice::{Dice, SeededDice};
use dervish::engine::events::Event;
use dervish::engine::play_month_with;
use dervish::players::simple::simple_orders;
use dervish::render::archive::MonthFile;
use dervish::render::ascii::{self, Sector};
use dervish::render::svg;
use dervish::scenario::Scenario;
use dervish::service::{Config, Service};
use dervish::state::GameState;
use dervish::state::setup::{Placements, initial_state};
use dervish::store::GameRow;

use crate::cli::common::{self, Env};

/// Print the map of a scenario: the overview, or a sector around a
/// place; or draw it to an SVG or PNG file (--out).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Scenario: el-obeid or khartoum.
    #[arg(long, short, default_value = "khartoum")]
    scenario: String,
    /// Draw a sector around this place or hex (e.g. Khartoum or 1942).
    #[arg(long)]
    around: Option<String>,
    /// Columns and rows either side of the centre.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=15))]
    radius: u8,
    /// Leave the set-up stacks off the map.
    #[arg(long)]
    no_units: bool,
    /// Draw the map to this file instead: an SVG (`.svg`) or a PNG
    /// (`.png`), of the whole theatre or, with --around, of the sector.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Width of a PNG in pixels.
    #[arg(long, requires = "out", default_value_t = 1200, value_parser = clap::value_parser!(u32).range(100..=8192))]
    width: u32,
    /// Play this many months with the simple built-in player on both
    /// sides first, and draw the last month's marches and battles.
    #[arg(long, requires = "out", default_value_t = 0)]
    play: u32,
    /// Seed of the dice for --play.
    #[arg(long, requires = "out", default_value_t = 1)]
    seed: u64,
    /// Draw a game of the database instead, as it stood at the end of
    /// its last month played (or of --month), with that month's
    /// marches and battles.
    #[arg(long, conflicts_with_all = ["play", "no_units"])]
    game: Option<String>,
    /// The month of --game: 1884-03, March 1884 or Mar 1884.
    #[arg(long, requires = "game")]
    month: Option<String>,
    /// With --game: the map after this side's player turn of the month
    /// (the month's end by default).
    #[arg(long, requires = "game", value_parser = ["egyptian", "mahdist"])]
    after: Option<String>,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    match (&args.game, &args.out) {
        (Some(game), _) => game_map(env.cfg, game, &args),
        (None, Some(file)) => draw_scenario(&env, &args, file),
        (None, None) => print_scenario(&env, &args),
    }
}

/// The scenario's map drawn to `file`, after `--play` months of the simple
/// player on both sides with the last month's marches and battles.
fn draw_scenario(env: &Env, args: &Args, file: &std::path::Path) -> Result<ExitCode> {
    let png = common::drawn_as_png(file)?;
    let data = common::data(&env.data)?;
    let scn = common::scenario(&data, &args.scenario)?;
    let (mut state, _) = initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
    let mut dice = Dice::new(SeededDice::from_seed(args.seed));
    let mut events = Vec::new();
    for _ in 0..args.play {
        if state.result.is_some() {
            break;
        }
        let r = play_month_with(
            &scn,
            state,
            &mut |st, side| simple_orders(&scn, st, side),
            &mut dice,
        );
        state = r.state;
        events = r.events;
    }
    let mut view = match &args.around {
        Some(p) => svg::View::around(common::place(&scn, p)?, i32::from(args.radius)),
        None => svg::View::theatre(),
    };
    if args.play > 0 {
        view = view.with_overlay(&events, None);
    }
    let drawn = svg::map_svg(&scn, (!args.no_units).then_some(&state), &view);
    common::write_drawn_map(file, drawn, png, args.width)
}

/// The scenario's map printed: the overview, or the sector `--around` a
/// place.
fn print_scenario(env: &Env, args: &Args) -> Result<ExitCode> {
    let data = common::data(&env.data)?;
    let scn = common::scenario(&data, &args.scenario)?;
    let (state, _) = initial_state(&scn, &Placements::new()).map_err(|e| anyhow!("{e}"))?;
    let st = (!args.no_units).then_some(&state);
    let text = match &args.around {
        Some(p) => ascii::sector(
            &scn,
            st,
            Sector {
                centre: common::place(&scn, p)?,
                radius: i32::from(args.radius),
            },
        ),
        None => ascii::overview(&scn, st),
    };
    out!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `dervish map --game ID [--month M] [--after SIDE]`: a stored game's map
/// at the end of a month (or after one player turn of it), printed as the
/// results mails print it, or drawn to an SVG or PNG file with the month's
/// marches and battles.
fn game_map(cfg: Config, game: &str, args: &Args) -> Result<ExitCode> {
    let s = common::open_to_read(cfg)?;
    let g = s.game(game).map_err(|e| anyhow!("{e}"))?;
    let a = s.archive_data(&g).map_err(|e| anyhow!("{e}"))?;
    let month = match &args.month {
        Some(text) => Some(common::month(text)?),
        None => None,
    };
    if month.is_none() && a.months.is_empty() {
        return setup_map(&s, &g, args);
    }
    let mf = month_played(&g, &a.months, month.as_deref())?;
    let pt = match &args.after {
        Some(side) => mf.player_turns.iter().find(|p| &p.side == side).ok_or_else(|| {
            anyhow!(
                "game {} has no {side} player turn in {} (the game ended before it, or it is not played yet)",
                g.id,
                mf.name
            )
        })?,
        None => mf
            .player_turns
            .last()
            .ok_or_else(|| anyhow!("month {} of game {} has no player turn", mf.month, g.id))?,
    };
    let events: Vec<_> = match &args.after {
        Some(_) => pt.events.clone(),
        None => mf
            .player_turns
            .iter()
            .flat_map(|p| p.events.iter().cloned())
            .collect(),
    };
    show(&a.scn, &pt.state, None, Some(&events), args)
}

/// The month `month` of the game's months played (the last one if
/// `None`), or an error naming those there are.
fn month_played<'a>(
    g: &GameRow,
    months: &'a [MonthFile],
    month: Option<&str>,
) -> Result<&'a MonthFile> {
    let found = match month {
        Some(code) => months.iter().find(|x| x.month == code),
        None => months.last(),
    };
    found.ok_or_else(|| match month {
        Some(_) if months.is_empty() => anyhow!(
            "game {} has no month played yet; without --month the map shows its set-up",
            g.id
        ),
        Some(code) => anyhow!(
            "game {} has no month {code} played; its months are {}",
            g.id,
            months
                .iter()
                .map(|x| x.month.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => anyhow!("game {} has no month played yet", g.id),
    })
}

/// The map of a game before its first month is played: the placed
/// set-up, or during the set-up step the default placement (with the
/// Egyptian set-up once sealed), labelled as such.
fn setup_map(s: &Service, g: &GameRow, args: &Args) -> Result<ExitCode> {
    let scn = s.scenario(&g.scenario).map_err(|e| anyhow!("{e}"))?;
    let state = s.state_shown(g).map_err(|e| anyhow!("{e}"))?;
    show(&scn, &state, Service::setup_label(g), None, args)
}

/// A game's map: printed (under `label`, if any), or drawn with the
/// marches and battles of `overlay`, if any.
fn show(
    scn: &Scenario,
    state: &GameState,
    label: Option<&str>,
    overlay: Option<&[Event]>,
    args: &Args,
) -> Result<ExitCode> {
    let centre = match &args.around {
        Some(p) => Some(common::place(scn, p)?),
        None => None,
    };
    let radius = i32::from(args.radius);
    let Some(file) = &args.out else {
        if let Some(label) = label {
            outln!("{label}\n");
        }
        let text = match centre {
            Some(c) => ascii::sector(scn, Some(state), Sector { centre: c, radius }),
            None => ascii::overview(scn, Some(state)),
        };
        out!("{text}");
        return Ok(ExitCode::SUCCESS);
    };
    let png = common::drawn_as_png(file)?;
    let mut view = match centre {
        Some(c) => svg::View::around(c, radius),
        None => svg::View::theatre(),
    };
    if let Some(events) = overlay {
        view = view.with_overlay(events, None);
    }
    let drawn = svg::map_svg(scn, Some(state), &view);
    common::write_drawn_map(file, drawn, png, args.width)
}
