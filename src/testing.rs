//! What the unit tests of several modules share: a small seeded source of
//! numbers (xorshift) for scattering counters and picking texts, so that a
//! test meets the same positions on every run.

/// Seeded numbers, the same sequence for the same seed.
pub(crate) struct Scatter(u64);

impl Scatter {
    pub(crate) fn new(seed: u64) -> Scatter {
        Scatter(seed)
    }

    /// The next number below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % u64::try_from(n.max(1)).unwrap_or(1)).unwrap_or(0)
    }
}

/// Every embedded scenario, by id, with its opening position (no set-up
/// placements): where the tests that scatter counters begin.
pub(crate) fn start_positions() -> Vec<(String, crate::scenario::Scenario, crate::state::GameState)>
{
    let data = crate::scenario::DataSet::embedded().expect("the embedded data loads");
    data.scenario_ids()
        .into_iter()
        .map(|id| {
            let scn = data.scenario(&id).expect("a scenario");
            let placements = crate::state::setup::Placements::new();
            let (state, _) =
                crate::state::setup::initial_state(&scn, &placements).expect("the set-up");
            (id, scn, state)
        })
        .collect()
}

/// The map's settlements: where [`crowd_around`] puts counters.
pub(crate) fn towns(scn: &crate::scenario::Scenario) -> Vec<crate::geo::Hex> {
    scn.map
        .hexes()
        .filter(|h| scn.map.settlement_at(*h).is_some())
        .collect()
}

/// Moves about one counter in `one_in` of `state` into one of `towns` or
/// next to it (even odds), numbers drawn from `next`, so that many stand
/// besieged or besiege.
pub(crate) fn crowd_around(
    next: &mut impl FnMut(usize) -> usize,
    state: &mut crate::state::GameState,
    towns: &[crate::geo::Hex],
    one_in: usize,
) {
    for u in state.units.iter_mut() {
        if next(one_in) == 0 {
            let town = towns[next(towns.len())];
            let at = if next(2) == 0 {
                town
            } else {
                town.neighbours()[next(6)]
            };
            u.status = crate::state::Status::OnMap(at);
        }
    }
}
