//! Where a zone of the set-up or reinforcement rules lies on the map.

use super::definition::Zone;
use crate::geo::map::LookupError;
use crate::geo::{Hex, Map, PlaceKind};

/// The hexes of a zone, best first for the default placement policy
/// (nearest to the place the zone is described from, then by label).
/// [`Zone::FriendlyStack`] depends on the game state and gives no hexes
/// here.
pub fn zone_hexes(map: &Map, zone: &Zone) -> Result<Vec<Hex>, LookupError> {
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

/// Whether a zone holds no hex of the map: what checking the data asks of
/// every zone, answered at the first hex found instead of gathering and
/// ordering them all.
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
}
