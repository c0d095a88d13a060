//! The geography of the theatre: hex geometry, the checked map, and land
//! routes. Pure data and computation, no I/O.

pub mod hex;
pub mod map;
mod memo;
pub mod route;

pub use hex::{Direction, Hex, Hexside};
pub use map::{Map, Place, PlaceKind, RiverClass, Terrain, Track};
