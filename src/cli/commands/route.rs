//! `dervish route`: the cheapest land route between two places.

use std::process::ExitCode;

use anyhow::{Result, anyhow};

use dervish::geo::route::land_route;
use dervish::render::ascii;

use crate::cli::common::{self, Env};

/// Print the cheapest land route between two places (rule 8.21 costs).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, short, default_value = "khartoum")]
    scenario: String,
    /// Start: a place name or hex.
    from: String,
    /// End: a place name or hex.
    to: String,
}

pub fn run(args: Args, env: Env) -> Result<ExitCode> {
    let data = common::data(&env.data)?;
    let scn = common::scenario(&data, &args.scenario)?;
    let (a, b) = (
        common::place(&scn, &args.from)?,
        common::place(&scn, &args.to)?,
    );
    match land_route(&scn.map, a, b) {
        Some(r) => {
            out!(
                "Route from {} to {}:\n{}",
                scn.map.describe(a),
                scn.map.describe(b),
                ascii::route_text(&scn.map, &r)
            );
            Ok(ExitCode::SUCCESS)
        }
        None => Err(anyhow!(
            "no land route from {} to {}",
            scn.map.describe(a),
            scn.map.describe(b)
        )),
    }
}
