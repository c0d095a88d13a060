//! Battles fought elsewhere than on the campaign's combat tables: on the
//! tabletop with miniatures (Volley Fire, PITS 1885, 'Eres To You Fuzzy
//! Wuzzy), their results reported back by mail. The engine only knows "a
//! combat resolved elsewhere"; this room holds what the players read and
//! write about such a battle.
//!
//! [`result`]: the small grammar a table battle's result is written in,
//! checked against the forces that fought it and the campaign rules
//! (9.4-9.9), with line-numbered errors like an orders receipt's.

pub mod result;
