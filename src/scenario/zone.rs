//! Where a zone of the set-up or reinforcement rules lies on the map.

use super::definition::Zone;
use crate::geo::map::LookupError;
use crate::geo::{Hex, Map, PlaceKind};

/// The hexes of a zone, best first for the default placement policy
/// (nearest to the place the zone is described from, then by label).
/// [`Zone::FriendlyStack`] depends on the game state and gives no hexes
/// here.
pub fn zone_hexes(map: &Map, zone: &Zone) -> Result<Vec<Hex>, LookupError> {
    let mut out: Vec<(u32, Hex)> = match zone {
        Zone::At(name) => vec![(0, map.resolve(name)?)],
        Zone::OneOf(names) => {
            let mut v = Vec::new();
            for (i, n) in names.iter().enumerate() {
                v.push((i as u32, map.resolve(n)?));
            }
            v
        }
        Zone::Around { places, min, max } => {
            let centres = resolve_all(map, places)?;
            let first = centres[0];
            land(map)
                .filter(|h| {
                    let d = centres
                        .iter()
                        .map(|c| c.distance(*h))
                        .min()
                        .unwrap_or(u32::MAX);
                    (*min..=*max).contains(&d)
                })
                .map(|h| (first.distance(h), h))
                .collect()
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
            land(map)
                .filter(|h| map.is_beside_river(*h, r))
                .filter(|h| is_south_of(*h, anchor) && anchor.distance(*h) >= *min_distance)
                .map(|h| (anchor.distance(h), h))
                .collect()
        }
        Zone::SettlementsSouthOf { place, plus } => {
            let anchor = map.resolve(place)?;
            let mut v: Vec<(u32, Hex)> = map
                .places()
                .iter()
                .filter(|p| matches!(p.kind, PlaceKind::Town | PlaceKind::Village))
                .filter(|p| is_south_of(p.hex, anchor))
                .map(|p| (anchor.distance(p.hex), p.hex))
                .collect();
            for h in resolve_all(map, plus)? {
                v.push((anchor.distance(h), h));
            }
            v
        }
        Zone::SouakimExtension {
            away_from,
            min_distance,
        } => {
            let anchor = match away_from {
                Some(p) => Some(map.resolve(p)?),
                None => None,
            };
            land(map)
                .filter(|h| map.in_souakim_extension(*h))
                .filter(|h| anchor.is_none_or(|a| a.distance(*h) >= *min_distance))
                .map(|h| (anchor.map_or(0, |a| a.distance(h)), h))
                .collect()
        }
        Zone::FriendlyStack => Vec::new(),
    };
    out.sort_by_key(|&(d, h)| (d, h.row, h.col));
    out.dedup_by_key(|(_, h)| *h);
    let mut seen = std::collections::BTreeSet::new();
    Ok(out
        .into_iter()
        .map(|(_, h)| h)
        .filter(|h| seen.insert(*h))
        .collect())
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
