//! The shipped theatre map: places, distances, rivers, railways and the
//! Souakim extension, as the rules and the gazetteer require.

use dervish::geo::map::RiverClass;
use dervish::geo::{Hex, Map, PlaceKind, Track};
use dervish::scenario::DataSet;

fn map() -> std::sync::Arc<Map> {
    DataSet::embedded().unwrap().map
}

fn hex(m: &Map, name: &str) -> Hex {
    m.resolve(name).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_place_named_in_the_rules_exists_with_its_spelling() {
    let m = map();
    for name in [
        "Bara",
        "El Obeid",
        "Duem",
        "Khartoum",
        "Omdurman",
        "Metammeh",
        "Goz Regeb",
        "Berber",
        "Sinkat",
        "Tokar",
        "Souakim",
        "Trinkitat",
        "Mesalamieh",
        "Abou Hamed",
        "Korti",
        "Debbeh",
        "Old Dongola",
        "Dongola",
        "Wady Halfa",
        "Sarras",
    ] {
        let p = m.find_place(name).unwrap_or_else(|| panic!("no {name}"));
        assert_eq!(p.name, name);
        assert!(p.kind.is_settlement(), "{name} is a settlement");
        assert!(m.is_land(p.hex), "{name} on land");
    }
}

#[test]
fn common_variants_are_aliases() {
    let m = map();
    for (alias, name) in [
        ("Suakin", "Souakim"),
        ("Metemmeh", "Metammeh"),
        ("Metameh", "Metammeh"),
        ("Abu Hamed", "Abou Hamed"),
        ("Wadi Halfa", "Wady Halfa"),
        ("wadi halfa", "Wady Halfa"),
    ] {
        assert_eq!(
            m.find_place(alias).map(|p| p.name.as_str()),
            Some(name),
            "{alias}"
        );
    }
}

#[test]
fn hexes_are_placed_by_the_gazetteer_projection() {
    let m = map();
    for (name, label) in [
        ("Wady Halfa", "1101"),
        ("Dongola", "0419"),
        ("Korti", "1226"),
        ("Abou Hamed", "2516"),
        ("Berber", "3026"),
        ("Khartoum", "1942"),
        ("Duem", "1752"),
        ("El Obeid", "0258"),
        ("Souakim", "5419"),
        ("Tokar", "5723"),
    ] {
        assert_eq!(hex(&m, name).to_string(), label, "{name}");
    }
}

#[test]
fn distances_are_true_to_within_two_hexes() {
    let m = map();
    // Straight-line miles / 10.5 from the gazetteer.
    for (a, b, true_hexes) in [
        ("Khartoum", "Berber", 18.4),
        ("Korti", "Metammeh", 14.8),
        ("Souakim", "Berber", 22.0),
        ("Khartoum", "El Obeid", 21.7),
        ("Wady Halfa", "Dongola", 18.1),
    ] {
        let d = f64::from(hex(&m, a).distance(hex(&m, b)));
        // Grid distance runs up to 15% over the straight line off the hex axes.
        assert!(
            d >= true_hexes - 2.0 && d <= true_hexes * 1.15 + 2.0,
            "{a}-{b}: {d} hexes vs {true_hexes}"
        );
    }
}

#[test]
fn the_map_spans_the_theatre() {
    let m = map();
    assert!(m.columns() * 14.63_f64.round() as i32 >= 800);
    assert_eq!((m.columns(), m.rows()), (60, 63));
    let sea = m.hexes().filter(|h| !m.is_land(*h)).count();
    assert!(sea > 50, "the Red Sea is on the map");
    for coastal in ["Souakim", "Trinkitat"] {
        let h = hex(&m, coastal);
        assert!(
            h.neighbours()
                .iter()
                .any(|n| m.contains(*n) && !m.is_land(*n)),
            "{coastal} is on the coast"
        );
    }
}

#[test]
fn riverside_towns_stand_beside_their_river() {
    let m = map();
    let nile = m.find_river("Nile").unwrap();
    for town in [
        "Wady Halfa",
        "Sarras",
        "Dongola",
        "Old Dongola",
        "Debbeh",
        "Korti",
        "Abou Hamed",
        "Berber",
        "Metammeh",
        "Khartoum",
        "Omdurman",
    ] {
        assert!(
            m.is_beside_river(hex(&m, town), nile) || town == "Khartoum",
            "{town} beside the Nile"
        );
    }
    let white = m.find_river("White Nile").unwrap();
    let blue = m.find_river("Blue Nile").unwrap();
    assert!(m.is_beside_river(hex(&m, "Duem"), white));
    let k = hex(&m, "Khartoum");
    assert!(m.is_beside_river(k, blue) || m.is_beside_river(k, nile));
    // Khartoum and Omdurman face each other across the river.
    let o = hex(&m, "Omdurman");
    assert_ne!(k, o);
    assert!(m.crosses_river(k, o) || k.distance(o) > 1 || m.is_riverside(o));
    let atbara = m.find_river("Atbara").unwrap();
    assert!(m.is_beside_river(hex(&m, "Goz Regeb"), atbara));
}

#[test]
fn rivers_flow_and_join() {
    let m = map();
    let nile = m.find_river("Nile").unwrap();
    for r in m.rivers() {
        for w in r.hexsides.windows(2) {
            assert!(
                w[0].touches(w[1]),
                "{} breaks between {} and {}",
                r.name,
                w[0],
                w[1]
            );
        }
        if r.name != "Nile" {
            assert_eq!(r.flows_into, Some(nile), "{} flows into the Nile", r.name);
        }
    }
    // Downstream is towards Wady Halfa: the Nile's last hexside is in the north.
    let river = &m.rivers()[nile.0];
    let first = river.hexsides.first().unwrap().hexes().0;
    let last = river.hexsides.last().unwrap().hexes().0;
    assert!(last.row < first.row, "the Nile flows north");
    // Classes: the White Nile navigable, the Blue Nile seasonal, the Atbara unnavigable.
    for (name, class) in [
        ("White Nile", RiverClass::Navigable),
        ("Blue Nile", RiverClass::Seasonal),
        ("Atbara", RiverClass::Unnavigable),
    ] {
        let id = m.find_river(name).unwrap();
        assert!(
            m.rivers()[id.0]
                .hexsides
                .iter()
                .all(|s| m.river_at(*s).unwrap().class == class),
            "{name}"
        );
    }
}

#[test]
fn rule_8_23_iv_cataracts_stand_on_unnavigable_reaches_of_the_nile() {
    let m = map();
    let names: Vec<&str> = m.cataracts().iter().map(|c| c.name.as_str()).collect();
    for n in [
        "Second Cataract",
        "Third Cataract",
        "Fourth Cataract",
        "Fifth Cataract",
        "Sixth Cataract",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    for c in m.cataracts() {
        assert!(!c.hexsides.is_empty());
        for s in &c.hexsides {
            assert_eq!(
                m.river_at(*s).unwrap().class,
                RiverClass::Unnavigable,
                "{} at {s}",
                c.name
            );
        }
    }
}

#[test]
fn rule_3_4_railways_wady_halfa_sarras_built_souakim_berber_marked() {
    let m = map();
    assert_eq!(m.track(hex(&m, "Wady Halfa")), Some(Track::Built));
    assert_eq!(m.track(hex(&m, "Sarras")), Some(Track::Built));
    assert_eq!(m.track(hex(&m, "Souakim")), Some(Track::Marked));
    assert_eq!(m.track(hex(&m, "Berber")), Some(Track::Marked));
    for r in m.railways() {
        for w in r.hexes.windows(2) {
            assert_eq!(w[0].distance(w[1]), 1, "{}", r.name);
        }
    }
}

#[test]
fn rule_1_3_the_souakim_extension_is_the_north_east() {
    let m = map();
    for p in ["Souakim", "Sinkat", "Tokar", "Trinkitat"] {
        assert!(m.in_souakim_extension(hex(&m, p)), "{p}");
    }
    for p in ["Khartoum", "Berber", "Dongola", "El Obeid"] {
        assert!(!m.in_souakim_extension(hex(&m, p)), "{p}");
    }
}

#[test]
fn settlements_are_never_in_the_sea_and_never_share_a_hex() {
    let m = map();
    let mut seen = std::collections::BTreeSet::new();
    for p in m.places().iter().filter(|p| p.kind != PlaceKind::Landmark) {
        assert!(m.is_land(p.hex), "{}", p.name);
        assert!(seen.insert(p.hex), "{} shares a hex", p.name);
    }
}
