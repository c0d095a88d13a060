//! [`Units`]: every counter of the counter mix, with the counters on the
//! map found once for as long as none of them changes.

use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Shared, Unit};

/// Every counter of the counter mix, in a fixed order, shared by copies of
/// the state until one of them changes them ([`Shared`]). The counters on
/// the map are found when first asked for ([`Units::placed`]) and
/// forgotten at any change: nothing writes to a counter but through
/// `DerefMut`, which forgets them first, so what is kept is never stale.
/// It reads as the list, is written as the list (a stored game reads the
/// same) and is equal to another when the lists are.
#[derive(Default)]
pub struct Units {
    all: Shared<Vec<Unit>>,
    /// Indices of the counters on the map, in order, once asked for.
    placed: OnceLock<Vec<u32>>,
}

impl Units {
    /// The indices of the counters on the map, in order: a turn asks who
    /// stands near a hex many times between two changes, and most
    /// counters (the pool, the dead, those not yet come) stand nowhere.
    pub fn placed(&self) -> &[u32] {
        self.placed.get_or_init(|| {
            let mut placed = Vec::with_capacity(self.all.len());
            placed.extend(
                self.all
                    .iter()
                    .enumerate()
                    .filter(|(_, u)| u.hex().is_some())
                    .filter_map(|(i, _)| u32::try_from(i).ok()),
            );
            placed
        })
    }

    /// Moves the counters at `indices` that are on the map to `to`; those
    /// off it stay where they are. Which counters are on the map does not
    /// change, so what [`Units::placed`] found is kept: a marching stack
    /// moves hex by hex, and each step asks who stands near it again.
    pub fn relocate(&mut self, indices: impl IntoIterator<Item = usize>, to: crate::geo::Hex) {
        let all = &mut *self.all;
        for i in indices {
            if let Some(u) = all.get_mut(i)
                && u.hex().is_some()
            {
                u.status = super::Status::OnMap(to);
            }
        }
    }
}

/// A copy shares the counters ([`Shared`]) and finds the ones on the map
/// again when asked.
impl Clone for Units {
    fn clone(&self) -> Self {
        Units {
            all: self.all.clone(),
            placed: OnceLock::new(),
        }
    }
}

impl Deref for Units {
    type Target = Vec<Unit>;
    fn deref(&self) -> &Vec<Unit> {
        &self.all
    }
}

/// Any write to the counters forgets which are on the map.
impl DerefMut for Units {
    fn deref_mut(&mut self) -> &mut Vec<Unit> {
        self.placed.take();
        &mut self.all
    }
}

impl From<Vec<Unit>> for Units {
    fn from(units: Vec<Unit>) -> Self {
        Units {
            all: units.into(),
            placed: OnceLock::new(),
        }
    }
}

impl FromIterator<Unit> for Units {
    fn from_iter<I: IntoIterator<Item = Unit>>(iter: I) -> Self {
        iter.into_iter().collect::<Vec<_>>().into()
    }
}

impl<'a> IntoIterator for &'a Units {
    type Item = &'a Unit;
    type IntoIter = std::slice::Iter<'a, Unit>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Units {
    type Item = &'a mut Unit;
    type IntoIter = std::slice::IterMut<'a, Unit>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl PartialEq for Units {
    fn eq(&self, other: &Self) -> bool {
        self.all == other.all
    }
}

impl Eq for Units {}

impl std::fmt::Debug for Units {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.all.fmt(f)
    }
}

impl Serialize for Units {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.all.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Units {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<Unit>::deserialize(d).map(Units::from)
    }
}

#[cfg(test)]
mod tests {
    use crate::geo::Hex;
    use crate::state::{GameState, Status, setup};

    fn placed_by_scan(state: &GameState) -> Vec<u32> {
        (0..state.units.len())
            .filter(|&i| state.units[i].hex().is_some())
            .map(|i| i as u32)
            .collect()
    }

    /// The counters on the map are those a scan finds, on the starting
    /// positions of both scenarios, after counters are taken off the map
    /// and put on it through every kind of write (an index, `iter_mut`,
    /// `for` over `&mut`), in the original and in copies, which never see
    /// each other's writes.
    #[test]
    fn the_counters_on_the_map_are_found_again_after_any_change() {
        let data = crate::scenario::DataSet::embedded().expect("the data built in");
        for scenario in ["khartoum", "el-obeid"] {
            let scn = data.scenario(scenario).expect("a scenario built in");
            let (mut state, _) =
                setup::initial_state(&scn, &setup::Placements::new()).expect("a set-up");
            let start = state.units.placed().to_vec();
            assert_eq!(start, placed_by_scan(&state), "{scenario}");
            assert!(
                !start.is_empty() && start.len() < state.units.len(),
                "{scenario}"
            );
            let copy = state.clone();
            let first = start[0] as usize;
            state.units[first].status = Status::Eliminated;
            assert_eq!(state.units.placed(), placed_by_scan(&state), "{scenario}");
            assert_eq!(
                copy.units.placed(),
                &start[..],
                "{scenario}: the copy is untouched"
            );
            let off = (0..state.units.len())
                .find(|&i| copy.units[i].hex().is_none())
                .expect("a counter off the map");
            for (i, u) in state.units.iter_mut().enumerate() {
                if i == off {
                    u.status = Status::OnMap(Hex::new(3, 4));
                }
            }
            assert_eq!(state.units.placed(), placed_by_scan(&state), "{scenario}");
            assert!(state.units.placed().contains(&(off as u32)), "{scenario}");
            for u in &mut state.units {
                u.status = Status::Pool;
            }
            assert!(state.units.placed().is_empty(), "{scenario}");
            assert_eq!(copy.units.placed(), &start[..], "{scenario}");
            let mut moved = copy.clone();
            let some: Vec<usize> = [first, off, start[start.len() - 1] as usize].into();
            moved.units.relocate(some.iter().copied(), Hex::new(5, 6));
            assert_eq!(moved.units.placed(), placed_by_scan(&moved), "{scenario}");
            assert_eq!(moved.units[first].status, Status::OnMap(Hex::new(5, 6)));
            assert_eq!(
                moved.units[off].status, copy.units[off].status,
                "off the map: stays"
            );
            assert_eq!(copy.units.placed(), &start[..], "{scenario}");
            let mut again = copy.clone();
            again.units.truncate(1);
            assert_eq!(again.units.placed(), placed_by_scan(&again), "{scenario}");
        }
    }
}
