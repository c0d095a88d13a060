//! Small helpers for the English players read: a count with its noun in
//! the right number. Used by the engine's notes, the result log and the
//! receipts alike, so it depends on nothing of the crate; and items of a
//! list wrapped for a mail; text escaped for HTML.

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
    kept_wrapping(Wrapping::Hanging, text, width, first, rest, || {
        let mut out = String::with_capacity(text.len() + 16);
        for line in wrap_words(text, width, first, rest) {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    })
}

/// `text` wrapped as [`wrap_words`] wraps it, each line followed by a
/// newline, as one string.
pub fn wrapped_block(text: &str, width: usize, first: &str, rest: &str) -> String {
    kept_wrapping(Wrapping::Block, text, width, first, rest, || {
        let mut out = String::with_capacity(text.len() + 16);
        for line in wrap_words(text, width, first, rest) {
            out.push_str(&line);
            out.push('\n');
        }
        out
    })
}

/// Which of the wrapping functions made a kept text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Wrapping {
    Hanging,
    Block,
}

/// A text wrapped lately on this thread, with what it was wrapped from.
struct Kept {
    how: Wrapping,
    text: String,
    width: usize,
    first: String,
    rest: String,
    wrapped: String,
}

thread_local! {
    /// The wrapped texts kept, by the hash of what they were wrapped from.
    static KEPT: std::cell::RefCell<rustc_hash::FxHashMap<u64, Kept>> =
        std::cell::RefCell::default();
}

/// The most wrapped texts a thread keeps; past it they are all let go.
const KEPT_MOST: usize = 256;

/// `make()`, the wrapping of `text`, or the same wrapping made before on
/// this thread. Mails repeat whole paragraphs (a receipt's notes, a
/// template's prose), and wrapping a long paragraph costs far more than
/// finding it; a text no longer than `width` is wrapped at once, as
/// cheaply as it is found. What is kept depends only on its inputs, so a
/// kept text is the one `make` would give again.
fn kept_wrapping(
    how: Wrapping,
    text: &str,
    width: usize,
    first: &str,
    rest: &str,
    make: impl FnOnce() -> String,
) -> String {
    if text.len() <= width {
        return make();
    }
    let key = {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        (how, text, width, first, rest).hash(&mut h);
        h.finish()
    };
    let same = |k: &Kept| {
        k.how == how && k.width == width && k.text == text && k.first == first && k.rest == rest
    };
    let found = KEPT.with(|kept| {
        kept.borrow()
            .get(&key)
            .filter(|k| same(k))
            .map(|k| k.wrapped.clone())
    });
    if let Some(wrapped) = found {
        return wrapped;
    }
    let wrapped = make();
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.len() >= KEPT_MOST {
            kept.clear();
        }
        kept.insert(
            key,
            Kept {
                how,
                text: text.to_string(),
                width,
                first: first.to_string(),
                rest: rest.to_string(),
                wrapped: wrapped.clone(),
            },
        );
    });
    wrapped
}

/// `text` wrapped at spaces to `width` columns, never inside a word, the
/// first line after `first` and the others after `rest`: what
/// `textwrap::wrap` gives with those indents, no hyphenation and words
/// kept whole. Plain ASCII text (most of a mail) is wrapped here, line by
/// line as textwrap does and to the same lines, without textwrap's work
/// for any script; anything else goes to textwrap itself.
pub fn wrap_words(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let plain = |s: &str| s.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b));
    if !(plain(text) && plain(first) && plain(rest)) {
        let opts = textwrap::Options::new(width)
            .initial_indent(first)
            .subsequent_indent(rest)
            .break_words(false)
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        return textwrap::wrap(text, &opts)
            .into_iter()
            .map(|l| l.into_owned())
            .collect();
    }
    let mut lines: Vec<String> = Vec::new();
    for line in text.split('\n') {
        let indent = if lines.is_empty() { first } else { rest };
        if line.len() < width && indent.is_empty() {
            lines.push(line.trim_end_matches(' ').to_string());
        } else {
            first_fit(line, width, first, rest, &mut lines);
        }
    }
    lines
}

/// One line of plain ASCII text wrapped first-fit, as textwrap's
/// `wrap_single_line_slow_path` does: words are runs of letters with the
/// spaces after them (a leading run of spaces an empty word); a word goes
/// to the next line when it does not fit and the line has one already.
/// The first line of each input line has the width left by `first` (and
/// the indent `first` only when it is the first line of all).
fn first_fit(line: &str, width: usize, first: &str, rest: &str, lines: &mut Vec<String>) {
    // (start, end of the word, end with its spaces)
    let mut words: Vec<(usize, usize, usize)> = Vec::new();
    let bytes = line.as_bytes();
    let mut start = 0;
    let mut in_space = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_space && b != b' ' {
            words.push(word_at(line, start, i));
            start = i;
        }
        in_space = b == b' ';
    }
    if start < line.len() {
        words.push(word_at(line, start, line.len()));
    }
    let widths = [
        width.saturating_sub(first.len()),
        width.saturating_sub(rest.len()),
    ];
    let mut breaks: Vec<(usize, usize)> = Vec::new();
    let (mut from, mut used) = (0, 0);
    for (k, &(s, e, ws)) in words.iter().enumerate() {
        let room = widths[breaks.len().min(1)];
        if used + (e - s) > room && k > from {
            breaks.push((from, k));
            from = k;
            used = 0;
        }
        used += ws - s;
    }
    breaks.push((from, words.len()));
    for (a, b) in breaks {
        let Some(last) = b.checked_sub(1).and_then(|l| words.get(l)) else {
            lines.push(String::new());
            continue;
        };
        let indent = if lines.is_empty() { first } else { rest };
        let mut out = String::with_capacity(indent.len() + last.1 - words[a].0);
        out.push_str(indent);
        out.push_str(&line[words[a].0..last.1]);
        lines.push(out);
    }
}

/// A word of `line` from `start` to `end`: where its text ends, before its
/// trailing spaces.
fn word_at(line: &str, start: usize, end: usize) -> (usize, usize, usize) {
    let trimmed = line[start..end].trim_end_matches(' ');
    (start, start + trimmed.len(), end)
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

/// `text` with `& < > " '` escaped for HTML text and attribute values, as
/// the mails' HTML parts and the drawn maps escape it.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_html_into(&mut out, text);
    out
}

/// [`escape_html`] onto the end of `out`.
pub fn escape_html_into(out: &mut String, text: &str) {
    // The five characters are ASCII, so each is a char boundary: the text
    // between them is pushed a slice at a time.
    let mut from = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[from..i]);
        out.push_str(entity);
        from = i + 1;
    }
    out.push_str(&text[from..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wrapping found among those kept is the one made afresh: for
    /// paragraphs asked for again and again, in any order, with other
    /// widths and indents, and past the most the thread keeps.
    #[test]
    fn kept_wrappings_are_the_wrappings_made_afresh() {
        let mut scatter = crate::testing::Scatter::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| scatter.below(n);
        let words = [
            "march",
            "the",
            "Egyptian",
            "stack",
            "x",
            "supply",
            "Khartoum (2716)",
            "a",
        ];
        let texts: Vec<String> = (0..300)
            .map(|_| {
                let n = 5 + next(40);
                (0..n)
                    .map(|_| words[next(words.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        for _ in 0..3_000 {
            let t = &texts[next(texts.len())];
            let width = [20, 40, 72, 78][next(4)];
            let (first, rest) = [("", ""), ("  ", "    "), ("- ", "  ")][next(3)];
            let fresh_block: String = wrap_words(t, width, first, rest)
                .into_iter()
                .map(|l| l + "\n")
                .collect();
            let fresh_hanging: String = wrap_words(t, width, first, rest)
                .into_iter()
                .map(|l| l.trim_end().to_string() + "\n")
                .collect();
            assert_eq!(wrapped_block(t, width, first, rest), fresh_block);
            assert_eq!(hanging(t, width, first, rest), fresh_hanging);
        }
    }

    #[test]
    fn html_escapes_the_five_characters_and_keeps_the_rest() {
        let cases = [
            ("", ""),
            ("plain", "plain"),
            ("<b>&\"'</b>", "&lt;b&gt;&amp;&quot;&#39;&lt;/b&gt;"),
            (
                "Wady Halfa — «Mahdi» & ‘Osman’",
                "Wady Halfa — «Mahdi» &amp; ‘Osman’",
            ),
            ("&", "&amp;"),
            ("é<", "é&lt;"),
        ];
        for (text, want) in cases {
            let mut out = String::from("x");
            escape_html_into(&mut out, text);
            assert_eq!(out, format!("x{want}"), "{text:?}");
        }
    }

    /// Every wrap of plain text is textwrap's, over many texts of words,
    /// runs of spaces and lines, with and without indents.
    #[test]
    fn plain_text_wraps_as_textwrap_wraps_it() {
        let pieces = [
            "a",
            "word",
            "Khartoum",
            "(8.31,",
            "9.8);",
            "-",
            "x-y",
            "supercalifragilistic",
            " ",
            "  ",
            "\n",
            "\n\n",
            "SHA-256",
            "0123456789abcdef0123456789abcdef",
            "Mahdiyya\u{e000}x",
            "\t",
            "Wad\u{0101}",
        ];
        let mut scatter = crate::testing::Scatter::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| scatter.below(n);
        let indents = [("", ""), ("- ", "  "), ("", "    "), ("  ", "      ")];
        for round in 0..3000 {
            // One text in four may hold what is not plain ASCII (textwrap's).
            let pool = if round % 4 == 0 { pieces.len() } else { 14 };
            let len = next(40);
            let text: String = (0..len)
                .map(|_| {
                    let p = pieces[next(pool)];
                    if p.trim().is_empty() {
                        p.to_string()
                    } else {
                        format!("{p} ")
                    }
                })
                .collect();
            let width = 1 + next(80);
            let (first, rest) = indents[next(indents.len())];
            let opts = textwrap::Options::new(width)
                .initial_indent(first)
                .subsequent_indent(rest)
                .break_words(false)
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            let theirs: Vec<String> = textwrap::wrap(&text, &opts)
                .into_iter()
                .map(|l| l.into_owned())
                .collect();
            assert_eq!(
                wrap_words(&text, width, first, rest),
                theirs,
                "{text:?} at {width} after {first:?}, {rest:?}"
            );
        }
    }

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
