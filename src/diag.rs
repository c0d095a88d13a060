//! Problems found in data files, reported with the file, the line, the field
//! and a way to fix them.

use std::fmt;

/// One problem in a data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as the user named it.
    pub file: String,
    /// 1-based line, when it could be found.
    pub line: Option<usize>,
    /// The field, as a path such as `places[3].hex`.
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: ", self.file, l)?,
            None => write!(f, "{}: ", self.file)?,
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n    how to fix: {h}")?;
        }
        Ok(())
    }
}

/// Every problem found while loading a set of files.
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// Where in a source a problem lies, looked up ([`Source::line`]) only
/// when a problem is reported: finding a line scans the file, and loading
/// the shipped data would otherwise scan it for every place, hexside and
/// railway hex it checks.
#[derive(Clone, Copy, Debug)]
pub enum Spot<'n> {
    /// A line already known, or none.
    Line(Option<usize>),
    /// The first line with this text, at or after the line given
    /// ([`Source::line_of`]).
    Text(&'n str, usize),
    /// The first line with this quoted string ([`Source::line_of_str`]).
    Str(&'n str),
    /// The quoted value (second) at or after the quoted anchor (first)
    /// ([`Source::line_of_in`]).
    In(&'n str, &'n str),
}

/// The text of one data file, used to place problems on a line.
#[derive(Clone, Debug)]
pub struct Source<'a> {
    /// Name of the file, as shown in messages.
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

impl<'a> Source<'a> {
    /// A source named `name` with `text`.
    pub fn new(name: &'a str, text: &'a str) -> Self {
        Source { name, text }
    }

    /// The first line (1-based) on which `needle` appears outside a comment,
    /// at or after line `from`.
    pub fn line_of(&self, needle: &str, from: usize) -> Option<usize> {
        if needle.is_empty() {
            return None;
        }
        self.text
            .lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .find(|(_, l)| strip_comment(l).contains(needle))
            .map(|(i, _)| i + 1)
    }

    /// The first line on which the quoted string `value` appears.
    pub fn line_of_str(&self, value: &str) -> Option<usize> {
        self.line_of(&format!("\"{value}\""), 1)
    }

    /// The line on which `value` (quoted) appears at or after the line of
    /// the `anchor` string (quoted), so that a value repeated in several
    /// entries is found in the right one.
    pub fn line_of_in(&self, anchor: &str, value: &str) -> Option<usize> {
        let start = self.line_of_str(anchor).unwrap_or(1);
        self.line_of(&format!("\"{value}\""), start)
            .or_else(|| self.line_of_str(value))
    }

    /// The line of a [`Spot`].
    pub fn line(&self, spot: Spot<'_>) -> Option<usize> {
        match spot {
            Spot::Line(line) => line,
            Spot::Text(needle, from) => self.line_of(needle, from),
            Spot::Str(value) => self.line_of_str(value),
            Spot::In(anchor, value) => self.line_of_in(anchor, value),
        }
    }

    /// A problem in this file.
    pub fn error(
        &self,
        line: Option<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: self.name.to_string(),
            line,
            field: field.into(),
            message: message.into(),
            hint,
        }
    }

    /// Read `T` from the file's RON text, reporting a syntax or shape error
    /// with its line.
    pub fn parse_ron<T: serde::de::DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        ron::Options::default()
            .from_str::<T>(self.text)
            .map_err(|e| {
                let message = e.code.to_string();
                let field = field_in_message(&message).unwrap_or_default();
                let hint = if message.contains("missing field") {
                    format!("add `{field}: ...` to this entry, as the other entries have it")
                } else if message.contains("nknown field") {
                    format!(
                        "remove or rename `{field}`; check its spelling against the other entries"
                    )
                } else {
                    "compare the entry with the others in the file; the formats are in docs/"
                        .to_string()
                };
                self.error(Some(e.span.start.line), field, message, Some(hint))
            })
    }
}

fn strip_comment(line: &str) -> &str {
    // RON comments start with `//`; a `//` inside a string is rare in our
    // files, and only affects where a message points.
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// RON names the field in backquotes in its messages; pick the first.
fn field_in_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    let word = &message[start..end];
    (!word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| word.to_string())
}

/// The closest of `candidates` to `word`, if one is close enough to be a
/// likely typo.
pub fn suggest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let w = word.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&w, &c.to_lowercase());
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    let limit = w.chars().count().div_ceil(3).max(2);
    best.filter(|(d, _)| *d <= limit).map(|(_, c)| c)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_skip_comments() {
        let s = Source::new("f.ron", "// \"a\"\n(x: \"a\",\n y: \"b\")\n");
        assert_eq!(s.line_of_str("a"), Some(2));
        assert_eq!(s.line_of_str("b"), Some(3));
        assert_eq!(s.line_of_str("c"), None);
    }

    #[test]
    fn suggestions_find_near_misses() {
        let names = ["Metammeh", "Khartoum", "Berber"];
        assert_eq!(suggest("Metemma", names), Some("Metammeh"));
        assert_eq!(suggest("khartum", names), Some("Khartoum"));
        assert_eq!(suggest("Cairo", names), None);
    }

    #[test]
    fn a_diagnostic_names_file_line_field_and_fix() {
        let s = Source::new("map.ron", "x");
        let d = s.error(
            Some(3),
            "places[0].hex",
            "off the map",
            Some("use 0000-5962".into()),
        );
        assert_eq!(
            d.to_string(),
            "map.ron:3: places[0].hex: off the map\n    how to fix: use 0000-5962"
        );
    }
}
