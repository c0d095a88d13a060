//! Renderers: turn the map, the state and (later) engine events into text
//! for email. Pure functions of their inputs.

pub mod ascii;
pub mod log;
pub mod roster;
pub mod sectors;
pub mod summary;
