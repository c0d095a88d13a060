//! Small helpers for the English players read: a count with its noun in
//! the right number. Used by the engine's notes, the result log and the
//! receipts alike, so it depends on nothing.

/// `n` and the noun in agreement: "1 unit", "2 units", "0 units".
pub fn count<N>(n: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8>,
{
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

/// The noun alone, in agreement with `n`.
pub fn noun<'a, N>(n: N, one: &'a str, many: &'a str) -> &'a str
where
    N: PartialEq + From<u8>,
{
    if n == N::from(1) { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree() {
        assert_eq!(count(1u32, "unit", "units"), "1 unit");
        assert_eq!(count(0u32, "unit", "units"), "0 units");
        assert_eq!(count(3i32, "hex", "hexes"), "3 hexes");
        assert_eq!(noun(1u8, "boat", "boats"), "boat");
    }
}
