//! Where a zone of the set-up or reinforcement rules lies on the map.

use super::definition::Zone;
use crate::geo::map::LookupError;
use crate::geo::{Hex, Map, PlaceKind};

/// The hexes of a zone, best first for the default placement policy
/// (nearest to the place the zone is described from, then by label).
/// [`Zone::FriendlyStack`] depends on the game state and gives no hexes
/// here.
pub fn zone_hexes(map: &Map, zone: &Zone) -> Result<Vec<Hex>, LookupError> {
    // Zones named by their places cost a look-up or two: only those that
    // pass over the whole map are kept.
    if matches!(zone, Zone::At(_) | Zone::OneOf(_) | Zone::FriendlyStack) {
        return worked_out(map, zone);
    }
    let id = map.land_routes().map_id();
    let kept = ZONES.with(|z| {
        z.borrow()
            .iter()
            .find(|(m, k, _)| *m == id && k == zone)
            .map(|(_, _, hexes)| hexes.clone())
    });
    if let Some(hexes) = kept {
        return Ok(hexes);
    }
    let hexes = worked_out(map, zone)?;
    ZONES.with(|z| {
        let mut z = z.borrow_mut();
        if z.len() >= ZONES_KEPT {
            z.remove(0);
        }
        z.push((id, zone.clone(), hexes.clone()));
    });
    Ok(hexes)
}

/// How many zones' hexes a thread keeps (a scenario names a few dozen).
const ZONES_KEPT: usize = 64;

thread_local! {
    /// The hexes of the zones worked out last on this thread, with the
    /// number of their map: a zone's hexes depend on the map and the zone
    /// alone.
    static ZONES: std::cell::RefCell<Vec<(u64, Zone, Vec<Hex>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`zone_hexes`] worked out from the map.
fn worked_out(map: &Map, zone: &Zone) -> Result<Vec<Hex>, LookupError> {
    let mut out: Vec<(u32, Hex)> = candidates(map, zone)?.collect();
    out.sort_by_key(|&(d, h)| (d, h.row, h.col));
    out.dedup_by_key(|(_, h)| *h);
    let mut seen = std::collections::BTreeSet::new();
    Ok(out
        .into_iter()
        .map(|(_, h)| h)
        .filter(|h| seen.insert(*h))
        .collect())
}

pub fn zone_is_empty(map: &Map, zone: &Zone) -> Result<bool, LookupError> {
    Ok(candidates(map, zone)?.next().is_none())
}

/// The hexes of a zone, each with its distance from the place the zone is
/// described from, in no particular order and possibly repeated.
fn candidates<'a>(
    map: &'a Map,
    zone: &'a Zone,
) -> Result<Box<dyn Iterator<Item = (u32, Hex)> + 'a>, LookupError> {
    Ok(match zone {
        Zone::At(name) => Box::new(std::iter::once((0, map.resolve(name)?))),
        Zone::OneOf(names) => {
            let mut v = Vec::new();
            for (i, n) in names.iter().enumerate() {
                v.push((i as u32, map.resolve(n)?));
            }
            Box::new(v.into_iter())
        }
        Zone::Around { places, min, max } => {
            let centres = resolve_all(map, places)?;
            let first = centres[0];
            Box::new(
                land(map)
                    .filter(move |h| {
                        let d = centres
                            .iter()
                            .map(|c| c.distance(*h))
                            .min()
                            .unwrap_or(u32::MAX);
                        (*min..=*max).contains(&d)
                    })
                    .map(move |h| (first.distance(h), h)),
            )
        }
        Zone::RiverBank {
            river,
            south_of,
            min_distance,
        } => {
            let anchor = map.resolve(south_of)?;
            let Some(r) = map.find_river(river) else {
                return Err(LookupError::UnknownPlace {
                    name: river.clone(),
                    suggestion: None,
                });
            };
            Box::new(
                land(map)
                    .filter(move |h| map.is_beside_river(*h, r))
                    .filter(move |h| {
                        is_south_of(*h, anchor) && anchor.distance(*h) >= *min_distance
                    })
                    .map(move |h| (anchor.distance(h), h)),
            )
        }
        Zone::SettlementsSouthOf { place, plus } => {
            let anchor = map.resolve(place)?;
            let plus = resolve_all(map, plus)?;
            Box::new(
                map.places()
                    .iter()
                    .filter(|p| matches!(p.kind, PlaceKind::Town | PlaceKind::Village))
                    .filter(move |p| is_south_of(p.hex, anchor))
                    .map(move |p| (anchor.distance(p.hex), p.hex))
                    .chain(plus.into_iter().map(move |h| (anchor.distance(h), h))),
            )
        }
        Zone::SouakimExtension {
            away_from,
            min_distance,
        } => {
            let anchor = match away_from {
                Some(p) => Some(map.resolve(p)?),
                None => None,
            };
            Box::new(
                land(map)
                    .filter(|h| map.in_souakim_extension(*h))
                    .filter(move |h| anchor.is_none_or(|a| a.distance(*h) >= *min_distance))
                    .map(move |h| (anchor.map_or(0, |a| a.distance(h)), h)),
            )
        }
        Zone::FriendlyStack => Box::new(std::iter::empty()),
    })
}

fn land(map: &Map) -> impl Iterator<Item = Hex> + '_ {
    map.hexes().filter(|h| map.is_land(*h))
}

fn resolve_all(map: &Map, names: &[String]) -> Result<Vec<Hex>, LookupError> {
    if names.is_empty() {
        return Err(LookupError::UnknownPlace {
            name: "(none)".into(),
            suggestion: None,
        });
    }
    names.iter().map(|n| map.resolve(n)).collect()
}

/// Whether `h` lies south of `anchor` (its centre further south).
pub fn is_south_of(h: Hex, anchor: Hex) -> bool {
    h.centre_km().1 > anchor.centre_km().1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The data check asks only whether a zone is empty; the answer is the
    /// one the zone's hexes give, for every zone of the shipped scenarios.
    #[test]
    fn a_zone_is_empty_exactly_when_it_has_no_hexes() {
        let data = crate::scenario::DataSet::embedded().unwrap();
        let mut zones = 0;
        for def in &data.scenarios {
            let set_up = def.setup.iter().map(|d| &d.zone);
            let arriving = def.reinforcements.iter().map(|r| &r.zone);
            for zone in set_up.chain(arriving) {
                let hexes = zone_hexes(&data.map, zone);
                let empty = zone_is_empty(&data.map, zone);
                assert_eq!(empty, hexes.map(|h| h.is_empty()), "{zone:?}");
                zones += 1;
            }
        }
        assert!(zones > 30, "{zones} zones");
    }

    /// The hexes a thread keeps for a zone are those worked out from the
    /// map: every zone of the shipped scenarios, and more rings around
    /// their places than are kept at once, each asked several times in a
    /// scattered order (so kept, dropped and worked out again).
    #[test]
    fn kept_zone_hexes_are_those_worked_out() {
        let data = crate::scenario::DataSet::embedded().unwrap();
        let mut zones: Vec<Zone> = Vec::new();
        for def in &data.scenarios {
            zones.extend(def.setup.iter().map(|d| d.zone.clone()));
            zones.extend(def.reinforcements.iter().map(|r| r.zone.clone()));
        }
        let places: Vec<String> = data.map.places().iter().map(|p| p.name.clone()).collect();
        for (k, place) in places.iter().take(40).enumerate() {
            let min = u32::try_from(k % 3).unwrap_or(0);
            zones.push(Zone::Around {
                places: vec![place.clone()],
                min,
                max: min + 2,
            });
        }
        assert!(zones.len() > ZONES_KEPT, "{} zones", zones.len());
        let mut scatter = crate::testing::Scatter::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..4 * zones.len() {
            let zone = &zones[scatter.below(zones.len())];
            assert_eq!(
                zone_hexes(&data.map, zone),
                worked_out(&data.map, zone),
                "{zone:?}"
            );
        }
    }
}
