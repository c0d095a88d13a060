//! Renderers: turn the map, the state and engine events into text for
//! email and into drawn maps (SVG, PNG). Pure functions of their inputs,
//! except that drawing a PNG reads the system's fonts once a process
//! (`svg::map_png`).

pub mod archive;
pub mod ascii;
pub mod log;
pub mod roster;
pub mod sectors;
pub mod summary;
pub mod svg;
