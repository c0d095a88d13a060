//! Dervish: a play-by-email turn processor for the Dervish rules, the
//! Mahdist war in the Sudan, 1882-1885.
//!
//! The library holds everything but the command line: the geography
//! ([`geo`]), the scenario data and its checks ([`scenario`]), dice
//! ([`dice`]) and the calendar ([`calendar`]), the game state ([`state`]),
//! and the renderers ([`render`]). See `ARCHITECTURE.md`.

pub mod balance;
pub mod battle;
pub mod calendar;
pub mod cases;
pub mod diag;
pub mod dice;
pub mod engine;
pub mod geo;
pub mod mail;
pub mod orders;
pub mod players;
pub mod render;
pub mod scenario;
pub mod service;
pub mod state;
pub mod store;
#[cfg(test)]
mod testing;
pub mod words;
