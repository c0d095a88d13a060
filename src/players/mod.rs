//! Programmed players.

pub mod simple;
