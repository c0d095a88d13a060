//! The maps' keys: every symbol means one thing, every meaning has one
//! symbol, and the overview and the sector maps agree.

use std::collections::BTreeMap;

mod common;

use dervish::geo::Hex;
use dervish::render::ascii::{self, Sector, parse_key};

fn check_key(what: &str, entries: &[(String, String)]) {
    assert!(
        entries.len() >= 10,
        "{what}: the key is not read: {entries:?}"
    );
    let mut symbols = BTreeMap::new();
    let mut meanings = BTreeMap::new();
    for (s, m) in entries {
        assert!(
            symbols.insert(s.clone(), m.clone()).is_none(),
            "{what}: the symbol {s:?} is in the key twice"
        );
        assert!(
            meanings.insert(m.clone(), s.clone()).is_none(),
            "{what}: {m:?} has two symbols"
        );
    }
}

/// The character drawn for `hex` on the overview (rows start two lines
/// down, columns three characters in).
fn overview_char(text: &str, hex: Hex) -> char {
    let line = text.lines().nth(1 + 2 + hex.row as usize).unwrap();
    line.chars().nth(3 + hex.col as usize).unwrap()
}

#[test]
fn every_symbol_of_every_key_means_one_thing_and_the_maps_agree() {
    for (id, scn, state) in common::openings() {
        let overview = ascii::overview(&scn, Some(&state));
        let sector = ascii::sector(
            &scn,
            Some(&state),
            Sector {
                centre: scn.map.resolve("Khartoum").unwrap(),
                radius: 3,
            },
        );
        let o = parse_key(&overview);
        let s = parse_key(&sector);
        check_key("overview", &o);
        check_key("sector", &s);
        // The printed keys are the declared ones.
        let declared = |k: &[(&str, &str)]| -> Vec<(String, String)> {
            k.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(o, declared(ascii::OVERVIEW_KEY));
        assert_eq!(s, declared(ascii::SECTOR_KEY));
        // A symbol on both maps means the same; a thing on both maps is
        // drawn the same.
        for (sym, meaning) in &o {
            if let Some((_, m)) = s.iter().find(|(x, _)| x == sym) {
                assert_eq!(m, meaning, "{sym:?} means two things");
            }
            if let Some((x, _)) = s.iter().find(|(_, m)| m == meaning) {
                let single = x.len() == 1 || x == "(blank)";
                if single {
                    assert_eq!(x, sym, "{meaning:?} drawn two ways");
                }
            }
        }
        // What the overview draws is what its key says.
        let meaning_of = |c: char| {
            let sym = if c == ' ' {
                "(blank)".to_string()
            } else {
                c.to_string()
            };
            o.iter().find(|(s, _)| *s == sym).map(|(_, m)| m.clone())
        };
        let mahdist = state
            .units
            .iter()
            .find(|u| u.side == dervish::scenario::Side::Mahdist)
            .and_then(|u| u.hex())
            .unwrap();
        assert_eq!(
            meaning_of(overview_char(&overview, mahdist)).as_deref(),
            Some("Mahdist stack")
        );
        let mountains = scn
            .map
            .hexes()
            .find(|h| {
                scn.map.terrain(*h) == Some(dervish::geo::map::Terrain::Mountains)
                    && scn.map.place_at(*h).is_none()
                    && scn.map.track(*h).is_none()
                    && state.stacks_at(*h).is_empty()
                    && !dervish::geo::hex::Direction::ALL
                        .iter()
                        .any(|d| scn.map.river_at(h.side(*d)).is_some())
            })
            .expect("the map has mountains away from rivers, places and stacks");
        assert_eq!(
            meaning_of(overview_char(&overview, mountains)).as_deref(),
            Some("mountains"),
            "{id} {mountains}"
        );
    }
}
