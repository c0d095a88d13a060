//! [`Shared`]: a part of the game state that copies of the state share
//! until one of them changes it.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A part of the state (the counters, the leaders) shared by copies of the
/// state until one of them changes it, which then gets its own: a copy made
/// to be read (the order checker's position, a programmed player's trial)
/// costs a count, not a copy of every counter. It reads as the value it
/// holds, is written as that value (a stored game reads the same), and
/// is equal to another when their values are.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(Arc::new(value))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Writing to a shared part first makes this copy's own (the other copies
/// keep what they had); one no other copy holds is written in place.
impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Self {
        Shared::new(value)
    }
}

impl<T: FromIterator<A>, A> FromIterator<A> for Shared<T> {
    fn from_iter<I: IntoIterator<Item = A>>(iter: I) -> Self {
        Shared::new(iter.into_iter().collect())
    }
}

impl<'a, T> IntoIterator for &'a Shared<T>
where
    &'a T: IntoIterator,
{
    type Item = <&'a T as IntoIterator>::Item;
    type IntoIter = <&'a T as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        (**self).into_iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut Shared<T>
where
    &'a mut T: IntoIterator,
{
    type Item = <&'a mut T as IntoIterator>::Item;
    type IntoIter = <&'a mut T as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        (**self).into_iter()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Shared<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Shared::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy reads what the original holds; writing to either leaves the
    /// other as it was.
    #[test]
    fn a_copy_written_to_is_its_own() {
        let a: Shared<Vec<u32>> = vec![1, 2, 3].into();
        let mut b = a.clone();
        assert!(Arc::ptr_eq(&a.0, &b.0));
        b[1] = 20;
        b.push(4);
        assert_eq!(*a, vec![1, 2, 3]);
        assert_eq!(*b, vec![1, 20, 3, 4]);
        let mut c = a.clone();
        drop(a);
        let before = Arc::as_ptr(&c.0);
        c[0] = 10;
        assert_eq!(
            Arc::as_ptr(&c.0),
            before,
            "held by no other copy: written in place"
        );
        assert_eq!(*c, vec![10, 2, 3]);
    }

    /// Written and read as the value itself.
    #[test]
    fn it_is_stored_as_its_value() {
        let a: Shared<Vec<u32>> = vec![1, 2].into();
        let text = serde_json::to_string(&a).expect("written");
        assert_eq!(text, "[1,2]");
        let back: Shared<Vec<u32>> = serde_json::from_str(&text).expect("read");
        assert_eq!(back, a);
    }
}
