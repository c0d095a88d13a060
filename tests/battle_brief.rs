//! The battle brief (docs/tabletop.md, "The battle brief"): what the
//! players and the game master read when a combat goes to the table, for
//! each miniatures rule set, from a combat the engine stopped at.

use common::text::says;
use dervish::battle::brief::{
    BriefError, WIDTH, brief, brief_and_table, brief_with, diagram_title,
};
use dervish::battle::diagram;
use dervish::battle::layout::{Layout, Look};
use dervish::battle::result::{Forces, read};
use dervish::battle::standalone::combat_between;
use dervish::battle::tabletop::{TABLETOP_RON, Tabletop};
use dervish::dice::{Dice, DiceKind, FixedDice, Roll};
use dervish::engine::elsewhere::{Combat, Resolution, Resolver};
use dervish::orders::{self, Input, Vocabulary};
use dervish::scenario::{Scenario, Side};
use dervish::state::{GameState, RuleSet};

mod common;

/// A resolver that keeps the first combat it is asked about and stops the
/// turn there, as a game sending its battles to the table does.
#[derive(Default)]
struct Keep(Option<Combat>);

impl Resolver for Keep {
    fn resolve(
        &mut self,
        _: &Scenario,
        _: &GameState,
        combat: &Combat,
        _: &mut dyn FnMut(DiceKind, String) -> Roll,
    ) -> Resolution {
        self.0.get_or_insert_with(|| combat.clone());
        Resolution::Stop
    }
}

/// The Desert Column attacks Metammeh (tests/case-fixtures/
/// brief-metammeh.toml): the combat as the engine asks about it, and the
/// state at that moment.
fn metammeh() -> (Scenario, GameState, Combat) {
    let (scn, mut state) = common::fixture("brief-metammeh.toml");
    // Strengths the set-up gives the Desert Column's units (khartoum.ron:
    // the Guards Camel Corps is a 2V unit).
    for u in &mut state.units {
        if &*u.id.0 == "BK01" || &*u.id.0 == "BI01" {
            u.strength = 2;
        }
    }
    let text = "MARCH STACK 2434 TO Metammeh ATTACK Metammeh";
    let parsed = orders::parse(&Input::text(text), &Vocabulary::new(&scn)).expect("orders read");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let checked = orders::check(&parsed.sheet, &scn, &state, Side::Egyptian);
    // Every die a 6: quiet events, a march, and the combat comes up.
    let mut dice = Dice::new(FixedDice::with_fallback([], 6));
    let mut keep = Keep::default();
    let turn = dervish::engine::play_player_turn_resolving(
        &scn,
        state.clone(),
        Side::Egyptian,
        &checked.orders,
        &mut dice,
        &mut keep,
    );
    assert!(turn.halted, "the turn stops at the battle");
    let combat = keep.0.expect("a combat came up");
    (scn, turn.state, combat)
}

fn all_ids(c: &Combat) -> Vec<String> {
    c.attackers
        .iter()
        .chain(&c.defenders)
        .chain(&c.river_units)
        .map(|u| u.0.to_string())
        .collect()
}

fn check_shape(text: &str) {
    for (i, l) in text.lines().enumerate() {
        assert!(
            l.chars().count() <= WIDTH,
            "line {} is {} columns: {l}",
            i + 1,
            l.chars().count()
        );
        assert_eq!(l, l.trim_end(), "line {} ends in spaces", i + 1);
    }
}

/// The template of a brief: the lines from the WINNER or DRAW line to END.
fn template(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "DRAW" || l.starts_with("WINNER "))
        .expect("a template");
    let end = start
        + lines[start..]
            .iter()
            .position(|l| *l == "END")
            .expect("END");
    lines[start..=end].join("\n")
}

#[test]
fn the_situation_is_a_big_battle_at_a_town_on_the_nile() {
    let (scn, _, c) = metammeh();
    assert_eq!(c.attacker, Side::Egyptian);
    assert_eq!(c.defender_hex, scn.map.resolve("Metammeh").unwrap());
    assert_eq!(c.attackers.len(), 7);
    assert_eq!(c.defenders.len(), 7);
    assert_eq!(c.river_units.len(), 1);
    assert_eq!(c.attacker_leaders, vec!["H. Stewart".to_string()]);
    assert_eq!(c.defender_leaders, vec!["Khalifa".to_string()]);
}

/// The brief of the battle at Metammeh in each miniatures rules, as
/// recorded.
#[test]
fn brief_of_each_rule_set() {
    let (scn, state, c) = metammeh();
    for (rules, recorded) in [
        (RuleSet::VolleyFire, "brief-metammeh-volley-fire.txt"),
        (RuleSet::Pits1885, "brief-metammeh-pits-1885.txt"),
        (RuleSet::Etyfw, "brief-metammeh-etyfw.txt"),
    ] {
        let b = brief(&scn, &state, &c, rules, None).unwrap();
        check_shape(&b);
        common::golden(recorded, &b);
    }
}

/// Solo play: the Mahdists a programmed player, the brief carries seed
/// 002's reaction and ambush tables for whoever runs them on the table.
#[test]
fn a_solo_brief_carries_the_reaction_and_ambush_tables() {
    let (scn, state, c) = metammeh();
    let b = brief(&scn, &state, &c, RuleSet::VolleyFire, Some(Side::Mahdist)).unwrap();
    check_shape(&b);
    assert!(b.contains("Mahdist Reaction Table (2d6)"));
    assert!(b.contains("Ambush: 20% chance"));
    let plain = brief(&scn, &state, &c, RuleSet::VolleyFire, None).unwrap();
    assert!(!plain.contains("Mahdist Reaction Table"));
    assert!(b.starts_with(&plain));
    common::golden("brief-solo-volley-fire.txt", &b);
}

/// Every unit of the combat (the counted units of both sides and the river
/// units) is named once in the result template, and the template as
/// printed is a result the reader takes: the battle as it stood.
#[test]
fn each_brief_names_every_unit_once_in_the_result_template() {
    let (scn, state, c) = metammeh();
    let forces = Forces::at(&scn, &state, &[c.attacker_hex, c.defender_hex]);
    for rules in RuleSet::ALL {
        let b = brief(&scn, &state, &c, rules, None).unwrap();
        let t = template(&b);
        for id in all_ids(&c) {
            let n = t
                .lines()
                .filter(|l| l.split_whitespace().next() == Some(id.as_str()))
                .count();
            assert_eq!(n, 1, "{} names {id} {n} times in:\n{t}", rules.title());
        }
        assert_eq!(t.lines().count(), all_ids(&c).len() + 2);
        let r = read(&t, &forces, &scn.map).unwrap_or_else(|e| panic!("{e:#?}"));
        // 9.7: the units disrupted before the battle stay so.
        assert_eq!(
            r.fates
                .values()
                .filter(|f| **f != dervish::engine::elsewhere::Fate::GoodOrder)
                .count(),
            2
        );
        assert!(
            b.lines().count() <= 200,
            "{} brief has {} lines",
            rules.title(),
            b.lines().count()
        );
    }
}

#[test]
fn the_shipped_tabletop_data_is_good() {
    let (scn, _, _) = metammeh();
    let t = Tabletop::shipped(&scn.units).unwrap_or_else(|e| panic!("{e}"));
    for r in RuleSet::ALL {
        assert!(t.system(r).is_some());
    }
    for m in 1..=12 {
        assert!(t.light(m).is_some());
    }
}

/// A broken data file is refused with its file, line, field and a fix,
/// and no brief is written from it.
#[test]
fn a_bad_tabletop_file_gives_a_clear_error() {
    let (scn, state, c) = metammeh();
    // A rule set left out, a month given twice, a time that is not one.
    let broken = TABLETOP_RON
        .replacen("rules: Pits1885", "rules: VolleyFire", 1)
        .replacen("(month: 2,", "(month: 1,", 1)
        .replacen("sunset: \"17:38\"", "sunset: \"5.38pm\"", 1);
    let e = Tabletop::parse("tabletop.ron", &broken, &scn.units).unwrap_err();
    let text = e.to_string();
    says(
        &text,
        &[
            "the rule set Pits1885 (PITS 1885) is given 0 times",
            "month 1 is given twice",
            "light[0].sunset: not a time of day",
            "how to fix",
        ],
    );
    assert!(e.0.iter().all(|d| d.line.is_some()), "{text}");

    // A unit type with no troop entry names the type and what to add.
    let no_ansar = TABLETOP_RON.replacen(
        "(nation: Mahdist, kind: Infantry, quality: Some(S),",
        "(nation: Mahdist, kind: Infantry, quality: Some(V),",
        1,
    );
    let e = Tabletop::parse("tabletop.ron", &no_ansar, &scn.units).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("no entry for Ansar (S) (mah-S"), "{text}");
    assert!(
        text.contains("no unit type of units.ron is Mahdist infantry of quality V"),
        "{text}"
    );

    // A table without the distance between its start lines, for a rule
    // set that does not roll it; a table narrower than it may be.
    let no_gap = TABLETOP_RON
        .replacen("gap: Some(48)", "gap: None", 1)
        .replacen(
            "min_width: 72, max_width: 120",
            "min_width: 130, max_width: 120",
            1,
        );
    let e = Tabletop::parse("tabletop.ron", &no_gap, &scn.units).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("rule_sets[0].table.gap: is not given"),
        "{text}"
    );
    assert!(
        text.contains("widths 130 to 120 in steps of 12 make no table"),
        "{text}"
    );

    // Not RON at all: the line of the fault.
    let e = Tabletop::parse("tabletop.ron", "Tabletop(light: [", &scn.units).unwrap_err();
    assert_eq!(e.0.len(), 1);
    assert!(e.0[0].line.is_some());

    // The brief refuses to be written from broken data.
    let good = Tabletop::shipped(&scn.units).unwrap();
    assert!(brief_with(&good, &scn, &state, &c, RuleSet::Etyfw, None).is_ok());
    let mut gone = state.clone();
    gone.units.retain(|u| &*u.id.0 != "MS001");
    assert_eq!(
        brief_with(&good, &scn, &gone, &c, RuleSet::Etyfw, None).unwrap_err(),
        BriefError::UnknownUnit(dervish::state::UnitId("MS001".into()))
    );
}

/// An ambush (seed 002) says so in the heading, and a solo brief tells the
/// umpire the ambushers test on the "Enemy in Open" rows.
#[test]
fn an_ambush_brief_says_so() {
    let (scn, state, mut c) = metammeh();
    c.ambush = true;
    let b = brief(&scn, &state, &c, RuleSet::Pits1885, Some(Side::Mahdist)).unwrap();
    check_shape(&b);
    let words = b.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("AMBUSH: the Mahdists charge from an ambush"),
        "{b}"
    );
    assert!(words.contains("\"Enemy in Open\" rows"), "{b}");
}

/// Baker's column near El Teb, February 1884, in the open desert: the
/// Hadendowa attack it from 5623 (tests/case-fixtures/brief-el-teb.toml),
/// the combat made from the situation as `dervish battle brief` makes it.
fn el_teb() -> (Scenario, GameState, Combat) {
    let (scn, state) = common::fixture("brief-el-teb.toml");
    let from = scn.map.resolve("5623").unwrap();
    let to = scn.map.resolve("El Teb").unwrap();
    let c = combat_between(&scn, &state, from, to).unwrap();
    (scn, state, c)
}

/// The brief and the diagram of a battle, checked against their goldens
/// (`brief-<place>-<rules>.txt` and `.svg`).
fn goldens(place: &str, (scn, state, c): &(Scenario, GameState, Combat), rules: RuleSet) -> Layout {
    let table = Tabletop::shipped(&scn.units).unwrap();
    let b = brief_and_table(&table, scn, state, c, rules, None).unwrap();
    check_shape(&b.text);
    common::golden(&format!("brief-{place}-{}.txt", rules.key()), &b.text);
    let svg = diagram::svg(&b.layout, &diagram_title(scn, c, rules));
    common::golden(&format!("brief-{place}-{}.svg", rules.key()), &svg);
    b.layout
}

#[test]
fn brief_and_diagram_in_the_open_volley_fire() {
    goldens("el-teb", &el_teb(), RuleSet::VolleyFire);
}

#[test]
fn brief_and_diagram_in_the_open_pits_1885() {
    goldens("el-teb", &el_teb(), RuleSet::Pits1885);
}

#[test]
fn brief_and_diagram_in_the_open_etyfw() {
    goldens("el-teb", &el_teb(), RuleSet::Etyfw);
}

#[test]
fn diagrams_at_a_town_on_the_nile() {
    let m = metammeh();
    for rules in RuleSet::ALL {
        goldens("metammeh", &m, rules);
    }
}

/// Every brief lays out the table: its size, both zones and the distance
/// between them, who moves first, the set-up, the turns and the end, and
/// how 9.8 is read then.
#[test]
fn every_brief_gives_the_set_up() {
    for battle in [metammeh(), el_teb()] {
        let (scn, state, c) = &battle;
        for rules in RuleSet::ALL {
            let b = brief(scn, state, c, rules, None).unwrap();
            let words = b.split_whitespace().collect::<Vec<_>>().join(" ");
            for head in [
                "THE TABLE",
                "Size ",
                "Zones ",
                "First ",
                "Set-up ",
                "The end ",
            ] {
                assert!(b.contains(head), "{}: no {head:?} in\n{b}", rules.title());
            }
            assert!(words.contains("between the start lines"), "{words}");
            assert!(words.contains("by 9.8"), "{words}");
        }
    }
}

/// Metammeh, Nile on its SE and S sides, attacked from the NW: the river
/// runs behind the Mahdist zone and the town, never through them, with
/// two fords; the town's front is on the Mahdist start line.
#[test]
fn a_river_behind_the_town_runs_behind_its_defenders() {
    let (scn, state, c) = metammeh();
    let table = Tabletop::shipped(&scn.units).unwrap();
    for rules in RuleSet::ALL {
        let l = brief_and_table(&table, &scn, &state, &c, rules, None)
            .unwrap()
            .layout;
        let town = l
            .pieces
            .iter()
            .find(|p| p.look == Look::Town)
            .expect("the town");
        assert_eq!(town.name, "Metammeh");
        assert!((town.at.1 - town.size.1 / 2.0 - l.defender_line).abs() < 0.01);
        assert_eq!(l.rivers.len(), 1, "{:?}", l.rivers);
        let nile = &l.rivers[0];
        assert_eq!(nile.name, "Nile");
        assert_eq!(nile.fords.len(), 2);
        let band = l.river_width / 2.0 + l.bank;
        let behind = l.defender_line + l.zone_depth.max(town.size.1);
        // The stretch behind the defender's hex (across its middle).
        let across: Vec<_> = nile
            .points
            .iter()
            .filter(|p| (p.0 - l.width / 2.0).abs() < l.width / 4.0)
            .collect();
        assert!(!across.is_empty());
        for p in across {
            assert!(p.1 - band >= behind - 0.01, "{}: {p:?}", rules.title());
        }
        assert!(l.depth >= nile.points.iter().map(|p| p.1).fold(0.0, f64::max) + band);
    }
}

/// Open desert: Volley Fire and PITS put their scrub and brush in both
/// halves; ETYFW's open ground is "Open Terrain", nothing on it, and its
/// opening distance is rolled with +1.
#[test]
fn open_desert_has_scrub_but_is_open_terrain_for_etyfw() {
    let battle = el_teb();
    let vf = goldens_layout(&battle, RuleSet::VolleyFire);
    assert!(
        vf.pieces
            .iter()
            .any(|p| p.half == Side::Egyptian && p.look == Look::Scrub)
    );
    assert!(
        vf.pieces
            .iter()
            .any(|p| p.half == Side::Mahdist && p.look == Look::Scrub)
    );
    assert!(vf.rivers.is_empty());
    // The Hadendowa attack from the SW: their edge is the near one.
    assert_eq!(vf.attacker, Side::Mahdist);
    assert_eq!(vf.attack_from, dervish::geo::Direction::SW);
    let ety = goldens_layout(&battle, RuleSet::Etyfw);
    assert!(ety.pieces.is_empty());
    let (scn, state, c) = &battle;
    let b = brief(scn, state, c, RuleSet::Etyfw, None).unwrap();
    let words = b.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("+1 in Open Terrain"), "{words}");
}

fn goldens_layout((scn, state, c): &(Scenario, GameState, Combat), rules: RuleSet) -> Layout {
    let table = Tabletop::shipped(&scn.units).unwrap();
    brief_and_table(&table, scn, state, c, rules, None)
        .unwrap()
        .layout
}

/// Volley Fire: "TWELVE OR LESS RIFLEMEN ... ONLY INFLICT HALF
/// CASUALTIES" works as written: a one-point unit fields more than twelve
/// riflemen and fires at half only when down to half its figures; the
/// brief says plainly it sets the seed's ground scale aside.
#[test]
fn volley_fire_units_keep_the_twelve_riflemen_rule() {
    let (scn, state, c) = el_teb();
    let b = brief(&scn, &state, &c, RuleSet::VolleyFire, None).unwrap();
    let words = b.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("1 figure = 10 men"), "{words}");
    assert!(
        words.contains("Set aside: the seed's ground scale"),
        "{words}"
    );
    assert!(words.contains("EL01 EL02 EL03 EL04 Egyptian infantry (L)"));
    assert!(
        words.contains("24 figures: Egyptian infantry of class L, the poorest"),
        "{words}"
    );
    assert!(!words.contains("24 figures: Sudanese infantry"), "{words}");
    let t = Tabletop::shipped(&scn.units).unwrap();
    let sys = t.system(RuleSet::VolleyFire).unwrap();
    for ty in scn.units.types() {
        if let Some(tr) = sys.troop(ty)
            && tr.per_sp > 0
        {
            assert!(
                tr.per_sp > 12,
                "{} fields {} figures a point",
                ty.id,
                tr.per_sp
            );
        }
    }
}

/// ETYFW: stands a point as the resolver fields them (section 17: British
/// Regulars 2, Egyptians, Indians and Mahdists Irregulars 1), its settings
/// passed on (the move limit, the break point, the leader re-roll as the
/// data has it), centimetres throughout, seed 002's inches converted, and
/// no reference to a missing file.
#[test]
fn the_etyfw_brief_passes_on_the_resolvers_settings() {
    let (scn, state, c) = metammeh();
    let t =
        dervish::battle::etyfw::data::load(dervish::battle::etyfw::EMBEDDED, "scenarios/etyfw.ron")
            .unwrap();
    let b = brief(&scn, &state, &c, RuleSet::Etyfw, Some(Side::Mahdist)).unwrap();
    let words = b.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(&format!("{} moves at most", t.move_limit)),
        "{words}"
    );
    assert!(words.contains(&format!(
        "at least {}/{} of those it started with",
        t.break_fraction.0, t.break_fraction.1
    )));
    assert!(words.contains(&format!(
        "more than {} cm behind its own start line has left the table",
        t.table_depth / 10
    )));
    if t.leader_rally_rerolls {
        assert!(words.contains("re-roll"), "{words}");
    } else {
        assert!(!words.contains("re-roll"), "{words}");
        assert!(words.contains("no rating in these rules"), "{words}");
    }
    assert!(!b.contains("draft"), "{b}");
    // No length in inches: no number followed by "in", "inches" or '"'.
    let w: Vec<&str> = b.split_whitespace().collect();
    for pair in w.windows(2) {
        let number = pair[0].chars().all(|c| c.is_ascii_digit());
        assert!(
            !(number && (pair[1] == "in" || pair[1].starts_with("inch"))),
            "{pair:?}"
        );
        let inch = pair[0].trim_end_matches(['"', ',', '.', ')']);
        assert!(
            !(pair[0].contains('"')
                && !inch.is_empty()
                && inch.chars().all(|c| c.is_ascii_digit())),
            "{pair:?}"
        );
    }
    assert!(!b.contains("36 inches"), "{b}");
    assert!(b.contains("91 cm"), "{b}");
    let data = Tabletop::shipped(&scn.units).unwrap();
    let sys = data.system(RuleSet::Etyfw).unwrap();
    for ty in scn.units.types() {
        let Some(tr) = sys.troop(ty) else { continue };
        if tr.per_sp == 0 {
            continue;
        }
        let regular = matches!(
            ty.nation,
            dervish::scenario::Nation::British | dervish::scenario::Nation::Australian
        );
        let want = if regular {
            t.conversion.regular_stands_per_sp
        } else {
            t.conversion.irregular_stands_per_sp
        };
        assert_eq!(tr.per_sp, want, "{}", ty.id);
    }
}

/// A data folder's own ETYFW tables set its briefs up as its resolver
/// fights: another move limit and leader re-rolls on are passed on.
#[test]
fn a_data_folders_etyfw_tables_reach_the_brief() {
    let (scn, state, c) = el_teb();
    let text = dervish::battle::etyfw::EMBEDDED
        .replacen("move_limit: 12", "move_limit: 8", 1)
        .replacen(
            "leader_rally_rerolls: false",
            "leader_rally_rerolls: true",
            1,
        );
    let own = dervish::scenario::NamedText {
        name: "club/etyfw.ron".into(),
        text,
    };
    let table = Tabletop::shipped(&scn.units).unwrap();
    let b = dervish::battle::brief::brief_with_resolver(
        &table,
        Some(&own),
        &scn,
        &state,
        &c,
        RuleSet::Etyfw,
        None,
    )
    .unwrap();
    let words = b.text.split_whitespace().collect::<Vec<_>>().join(" ");
    says(
        &words,
        &[
            "8 moves at most",
            "else it ends after move 8",
            "roll one failed rally die a move",
            "his rating counts (7.3)",
        ],
    );
}
