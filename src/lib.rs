//! Dervish: a play-by-email turn processor for the Dervish rules, the
//! Mahdist war in the Sudan, 1882-1885.
//!
//! The library holds everything but the command line: the geography
//! ([`geo`]), the scenario data and its checks ([`scenario`]), dice and the
//! calendar, the game state, and the renderers. See `ARCHITECTURE.md`.

pub mod diag;
pub mod geo;
