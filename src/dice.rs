//! Reproducible dice.
//!
//! Every roll comes from an injected [`DieSource`]: a seeded ChaCha8
//! generator in play ([`SeededDice`]), or a fixed list of results in tests
//! ([`FixedDice`]). Each roll is returned as a [`Roll`] record saying what
//! was rolled, why, and the result, so it can appear in the result log.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The kinds of roll the rules and the tactical rule sets use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiceKind {
    /// One six-sided die.
    D6,
    /// Two six-sided dice, added.
    TwoD6,
    /// "2D6 rolled as base 7 numbers" (rules 5.2 I, 5.3 I): the first die is
    /// the tens, the second the units, 11 to 66.
    D66,
    /// Average dice, faces 2, 3, 3, 4, 4, 5 ('Eres To You Fuzzy Wuzzy).
    Average,
    D10,
    D20,
    /// Percentile, 1 to 100.
    D100,
    /// A draw of one of N things, each equally likely (the Mahdist pool is
    /// drawn at random, rule 3.2).
    Pick(u32),
}

impl DiceKind {
    /// The usual written name (`2D6`, `D66` ...).
    pub fn name(self) -> &'static str {
        match self {
            DiceKind::D6 => "D6",
            DiceKind::TwoD6 => "2D6",
            DiceKind::D66 => "D66",
            DiceKind::Average => "AvD",
            DiceKind::D10 => "D10",
            DiceKind::D20 => "D20",
            DiceKind::D100 => "D100",
            DiceKind::Pick(_) => "draw",
        }
    }

    /// Smallest and largest result.
    pub fn range(self) -> (i32, i32) {
        match self {
            DiceKind::D6 => (1, 6),
            DiceKind::TwoD6 => (2, 12),
            DiceKind::D66 => (11, 66),
            DiceKind::Average => (2, 5),
            DiceKind::D10 => (1, 10),
            DiceKind::D20 => (1, 20),
            DiceKind::D100 => (1, 100),
            DiceKind::Pick(n) => (1, n.max(1) as i32),
        }
    }
}

impl fmt::Display for DiceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceKind::Pick(n) => write!(f, "draw of 1 in {n}"),
            _ => f.write_str(self.name()),
        }
    }
}

impl FromStr for DiceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_uppercase().as_str() {
            "D6" | "1D6" => Ok(DiceKind::D6),
            "2D6" => Ok(DiceKind::TwoD6),
            "D66" => Ok(DiceKind::D66),
            "AVD" | "AVERAGE" => Ok(DiceKind::Average),
            "D10" => Ok(DiceKind::D10),
            "D20" => Ok(DiceKind::D20),
            "D100" | "D%" => Ok(DiceKind::D100),
            _ => Err(format!(
                "unknown dice `{s}`: use D6, 2D6, D66, AvD, D10, D20 or D100"
            )),
        }
    }
}

/// One roll: what was rolled, why, each die, and the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    pub kind: DiceKind,
    /// Why it was rolled ("march roll, Hicks' column").
    pub purpose: String,
    /// Each die as it fell.
    pub dice: Vec<u32>,
    /// The result read from the dice (sum, D66 number, face value).
    pub result: i32,
}

impl fmt::Display for Roll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} for {}: ", self.kind, self.purpose)?;
        if self.dice.len() > 1 {
            let parts: Vec<String> = self.dice.iter().map(u32::to_string).collect();
            let joined = if self.kind == DiceKind::D66 {
                parts.join("|")
            } else {
                parts.join("+")
            };
            write!(f, "{joined} = ")?;
        }
        write!(f, "{}", self.result)
    }
}

/// Where die faces come from.
pub trait DieSource {
    /// A uniformly random face from 1 to `sides`.
    fn face(&mut self, sides: u32) -> u32;
}

/// Dice drawn from a seeded ChaCha8 generator: the same seed gives the same
/// rolls on every machine.
#[derive(Clone, Debug)]
pub struct SeededDice {
    rng: ChaCha8Rng,
}

impl SeededDice {
    /// Dice from a 64-bit seed.
    pub fn from_seed(seed: u64) -> Self {
        SeededDice {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Dice from a 256-bit seed, as drawn for a turn by the service.
    pub fn from_seed_bytes(seed: [u8; 32]) -> Self {
        SeededDice {
            rng: ChaCha8Rng::from_seed(seed),
        }
    }
}

impl DieSource for SeededDice {
    fn face(&mut self, sides: u32) -> u32 {
        self.rng.random_range(1..=sides.max(1))
    }
}

/// Dice that give a fixed list of faces, for tests and for replaying a
/// hand-checked situation. When the list runs out it gives `fallback`.
#[derive(Clone, Debug)]
pub struct FixedDice {
    faces: VecDeque<u32>,
    fallback: u32,
}

impl FixedDice {
    /// Dice giving `faces` in order, then 1s.
    pub fn new(faces: impl IntoIterator<Item = u32>) -> Self {
        FixedDice {
            faces: faces.into_iter().collect(),
            fallback: 1,
        }
    }

    /// Dice giving `faces` in order, then `fallback` for ever.
    pub fn with_fallback(faces: impl IntoIterator<Item = u32>, fallback: u32) -> Self {
        FixedDice {
            faces: faces.into_iter().collect(),
            fallback,
        }
    }

    /// How many listed faces are left.
    pub fn remaining(&self) -> usize {
        self.faces.len()
    }
}

impl DieSource for FixedDice {
    fn face(&mut self, sides: u32) -> u32 {
        self.faces
            .pop_front()
            .unwrap_or(self.fallback)
            .clamp(1, sides.max(1))
    }
}

/// The dice of a turn: a face source plus every roll made, in order.
#[derive(Clone, Debug)]
pub struct Dice<S: DieSource> {
    source: S,
    rolls: Vec<Roll>,
}

impl<S: DieSource> Dice<S> {
    /// Dice drawing from `source`.
    pub fn new(source: S) -> Self {
        Dice {
            source,
            rolls: Vec::new(),
        }
    }

    /// Roll `kind` for `purpose`; the roll is kept and returned.
    pub fn roll(&mut self, kind: DiceKind, purpose: impl Into<String>) -> Roll {
        let (dice, result) = match kind {
            DiceKind::D6 => one(self.source.face(6)),
            DiceKind::D10 => one(self.source.face(10)),
            DiceKind::D20 => one(self.source.face(20)),
            DiceKind::D100 => one(self.source.face(100)),
            DiceKind::Pick(n) => one(self.source.face(n.max(1))),
            DiceKind::Average => {
                const FACES: [u32; 6] = [2, 3, 3, 4, 4, 5];
                let f = self.source.face(6);
                (vec![f], FACES[(f - 1) as usize % 6] as i32)
            }
            DiceKind::TwoD6 => {
                let (a, b) = (self.source.face(6), self.source.face(6));
                (vec![a, b], (a + b) as i32)
            }
            DiceKind::D66 => {
                let (a, b) = (self.source.face(6), self.source.face(6));
                (vec![a, b], (a * 10 + b) as i32)
            }
        };
        let roll = Roll {
            kind,
            purpose: purpose.into(),
            dice,
            result,
        };
        self.rolls.push(roll.clone());
        roll
    }

    /// Every roll so far, in order.
    pub fn rolls(&self) -> &[Roll] {
        &self.rolls
    }

    /// Hand over the rolls made so far and start a fresh record.
    pub fn take_rolls(&mut self) -> Vec<Roll> {
        std::mem::take(&mut self.rolls)
    }
}

fn one(face: u32) -> (Vec<u32>, i32) {
    (vec![face], face as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chacha8_gives_the_same_rolls_everywhere() {
        // Golden values: rand_chacha 0.10 with seed 42 (see crates notes).
        let mut d = SeededDice::from_seed(42);
        let faces: Vec<u32> = (0..10).map(|_| d.face(6)).collect();
        assert_eq!(faces, vec![2, 5, 1, 6, 5, 3, 3, 4, 5, 2]);
    }

    #[test]
    fn every_kind_stays_in_range_and_is_recorded() {
        let mut dice = Dice::new(SeededDice::from_seed(7));
        let kinds = [
            DiceKind::D6,
            DiceKind::TwoD6,
            DiceKind::D66,
            DiceKind::Average,
            DiceKind::D10,
            DiceKind::D20,
            DiceKind::D100,
        ];
        for k in kinds {
            for _ in 0..500 {
                let r = dice.roll(k, "test");
                let (lo, hi) = k.range();
                assert!((lo..=hi).contains(&r.result), "{k}: {}", r.result);
                if k == DiceKind::D66 {
                    assert!(
                        (1..=6).contains(&(r.result / 10)) && (1..=6).contains(&(r.result % 10))
                    );
                }
            }
        }
        assert_eq!(dice.rolls().len(), 7 * 500);
        assert_eq!(dice.take_rolls().len(), 3500);
        assert!(dice.rolls().is_empty());
    }

    #[test]
    fn d66_reads_the_dice_as_two_digits() {
        let mut dice = Dice::new(FixedDice::new([1, 3, 6, 6]));
        let r = dice.roll(DiceKind::D66, "Egyptian random event");
        assert_eq!(r.result, 13);
        assert_eq!(r.to_string(), "D66 for Egyptian random event: 1|3 = 13");
        assert_eq!(dice.roll(DiceKind::D66, "x").result, 66);
    }

    #[test]
    fn average_dice_have_faces_two_to_five() {
        let mut dice = Dice::new(FixedDice::new(1..=6));
        let got: Vec<i32> = (0..6)
            .map(|_| dice.roll(DiceKind::Average, "x").result)
            .collect();
        assert_eq!(got, vec![2, 3, 3, 4, 4, 5]);
    }

    #[test]
    fn fixed_dice_replay_a_situation() {
        let mut dice = Dice::new(FixedDice::new([3, 4]));
        let r = dice.roll(DiceKind::TwoD6, "march roll");
        assert_eq!((r.dice.clone(), r.result), (vec![3, 4], 7));
        assert_eq!(r.to_string(), "2D6 for march roll: 3+4 = 7");
    }

    #[test]
    fn dice_kinds_parse_from_their_names() {
        assert_eq!("2d6".parse::<DiceKind>(), Ok(DiceKind::TwoD6));
        assert_eq!("D66".parse::<DiceKind>(), Ok(DiceKind::D66));
        assert!("3D6".parse::<DiceKind>().is_err());
    }
}
