//! Small helpers for the English players read: a count with its noun in
//! the right number. Used by the engine's notes, the result log and the
//! receipts alike, so it depends on nothing of the crate; and items of a
//! list wrapped for a mail.

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

/// `text` wrapped at word boundaries to `width` columns as one item of a
/// list: the first line after `first`, the others after `rest` ("  ",
/// "    " for an item whose continuation is indented under it). Each line
/// ends with a newline.
pub fn hanging(text: &str, width: usize, first: &str, rest: &str) -> String {
    let opts = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut out = String::with_capacity(text.len() + 16);
    for line in textwrap::wrap(text, &opts) {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `text` with every line over `max` characters wrapped to `width` (but
/// those `keep` says stay whole): an indented line's continuation (a unit
/// list, an error) four further in than the line, an unindented line's
/// `hang` spaces in (0: flush, a paragraph). Shorter lines, and the line
/// ends, stay as they are, so tables keep their layout. For receipts and
/// text quoted into a mail.
pub fn wrap_long_lines(
    text: &str,
    (max, width, hang): (usize, usize, usize),
    keep: impl Fn(&str) -> bool,
) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.chars().count() <= max || keep(bare) {
            out.push_str(line);
            continue;
        }
        let indent = &bare[..bare.len() - bare.trim_start().len()];
        let rest = if indent.is_empty() {
            " ".repeat(hang)
        } else {
            format!("{indent}    ")
        };
        let wrapped = hanging(bare.trim_start(), width, indent, &rest);
        out.push_str(wrapped.trim_end_matches('\n'));
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_item_hangs_under_its_first_line() {
        let text = "Arrived: the Gordon Relief Expedition at Wady Halfa (0101) with Wolseley, H. Stewart and Earle";
        let got = hanging(text, 40, "  ", "    ");
        assert!(got.lines().all(|l| l.len() <= 40), "{got}");
        assert!(got.starts_with("  Arrived:"), "{got}");
        assert!(got.lines().skip(1).all(|l| l.starts_with("    ")), "{got}");
        assert_eq!(
            got.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
    }

    #[test]
    fn only_long_lines_are_wrapped() {
        let long = format!("  line 3: MARCH {}", "ER01 ".repeat(30));
        let text = format!("short line\n{long}\nlast");
        let got = wrap_long_lines(&text, (100, 76, 4), |_| false);
        assert!(got.starts_with("short line\n  line 3: MARCH ER01"), "{got}");
        assert!(got.ends_with("\nlast"), "{got}");
        assert!(got.lines().all(|l| l.chars().count() <= 100), "{got}");
        assert!(
            got.lines()
                .nth(2)
                .is_some_and(|l| l.starts_with("      ER01")),
            "{got}"
        );
    }

    #[test]
    fn counts_agree() {
        assert_eq!(count(1u32, "unit", "units"), "1 unit");
        assert_eq!(count(0u32, "unit", "units"), "0 units");
        assert_eq!(count(3i32, "hex", "hexes"), "3 hexes");
        assert_eq!(noun(1u8, "boat", "boats"), "boat");
    }
}
