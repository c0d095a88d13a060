//! Battles fought elsewhere than on the campaign's combat tables: on the
//! tabletop with miniatures (Volley Fire, PITS 1885, 'Eres To You Fuzzy
//! Wuzzy), their results reported back by mail. The engine only knows "a
//! combat resolved elsewhere"; this room holds what the players read and
//! write about such a battle.
//!
//! [`result`]: the small grammar a table battle's result is written in,
//! checked against the forces that fought it and the campaign rules
//! (9.4-9.9), with line-numbered errors like an orders receipt's.
//!
//! [`brief`]: the battle brief mailed when a combat goes to the table, in
//! the terms of the game's miniatures rules, from the conversion data of
//! [`tabletop`] (`scenarios/tabletop.ron`).

pub mod brief;
pub mod diagram;
pub mod etyfw;
pub mod layout;
pub mod result;
pub mod standalone;
pub mod table;
pub mod tabletop;

/// The resolver of the combats a game does not send to the table: the
/// campaign's tables, or the ETYFW resolver with a data folder's own
/// tables (`custom`, its `etyfw.ron`) or the shipped ones (read once).
pub fn auto_resolver(
    which: crate::state::AutoResolver,
    custom: Option<&crate::scenario::NamedText>,
) -> Result<Box<dyn crate::engine::elsewhere::Resolver>, crate::diag::Diagnostic> {
    static ETYFW: std::sync::OnceLock<Result<etyfw::Etyfw, crate::diag::Diagnostic>> =
        std::sync::OnceLock::new();
    match (which, custom) {
        (crate::state::AutoResolver::Tables, _) => {
            Ok(Box::new(crate::engine::elsewhere::CampaignTables))
        }
        (crate::state::AutoResolver::Etyfw, Some(t)) => {
            Ok(Box::new(etyfw::Etyfw::from_ron(&t.text, &t.name)?))
        }
        (crate::state::AutoResolver::Etyfw, None) => ETYFW
            .get_or_init(etyfw::Etyfw::embedded)
            .clone()
            .map(|e| Box::new(e) as Box<dyn crate::engine::elsewhere::Resolver>),
    }
}
