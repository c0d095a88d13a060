//! Every outgoing mail is a minijinja template: built in from
//! `templates/`, or read from a game master's copy of that folder.

use std::path::Path;

use minijinja::{Environment, UndefinedBehavior};

/// The player's guide to orders, sent whole with every HELP answer (a
/// player cannot open the service's files).
pub const GUIDE: &str = include_str!("../../docs/orders.md");

/// Each named file of `templates/` with its text.
macro_rules! built_in {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../templates/", $name)))),*]
    };
}

/// The templates that ship with Dervish, by name.
pub const BUILT_IN: &[(&str, &str)] = built_in![
    "welcome.txt",
    "receipt.txt",
    "results.txt",
    "setup.txt",
    "setup_request.txt",
    "reminder.txt",
    "refusal.txt",
    "notice.txt",
    "absence.txt",
    "game_end.txt",
    "rollback.txt",
    "status.txt",
    "help.txt",
    "help_stranger.txt",
    "join_confirm.txt",
    "join_games.txt",
    "battle_brief.txt",
    "battle_receipt.txt",
];

/// A rendered mail: subject and plain-text body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
}

/// A template problem.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("template {name}: {source}")]
    Render {
        name: String,
        source: minijinja::Error,
    },
    #[error("template {name} must start with a line `Subject: ...` and a blank line")]
    NoSubject { name: String },
    #[error("cannot read template {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
}

/// The width prose is wrapped to by the `wrap` filter.
pub const WIDTH: usize = 72;

/// Prose wrapped at word boundaries to `width` columns, after the
/// template's values are in: the `wrap` filter
/// (`{% filter wrap %}...{% endfilter %}`).
///
/// Only prose moves: runs of lines that start with a letter, digit or
/// punctuation are joined and wrapped again. A blank line, a line that
/// starts with a space (an example order, a secret, a table) or with `===`
/// is kept as it is. A quoted phrase (`"SECRET 3f9a..."`) or one in
/// backquotes stays on one line, and nothing is broken inside a word, so
/// a long secret, hash or address goes whole onto a line of its own.
pub fn wrap(text: &str, width: usize) -> String {
    // A space that is not a break point while wrapping: a private-use
    // character, turned back into a space after.
    const GLUE: char = '\u{e000}';
    let mut out = String::with_capacity(text.len() + 16);
    let mut prose: Vec<&str> = Vec::new();
    let flush = |prose: &mut Vec<&str>, out: &mut String| {
        if prose.is_empty() {
            return;
        }
        // Spaces inside quotes and backquotes are not break points.
        let all = prose.join(" ");
        let quoted = all.contains(['"', '`', GLUE]);
        let joined = if quoted {
            let mut joined = String::with_capacity(all.len() + 8);
            let (mut quote, mut tick) = (false, false);
            for c in all.chars() {
                match c {
                    '"' => quote = !quote,
                    '`' => tick = !tick,
                    _ => {}
                }
                joined.push(if c == ' ' && (quote || tick) { GLUE } else { c });
            }
            joined
        } else {
            all
        };
        let block = crate::words::wrapped_block(&joined, width, "", "");
        if quoted {
            out.push_str(&block.replace(GLUE, " "));
        } else {
            out.push_str(&block);
        }
        prose.clear();
    };
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let keep =
            bare.trim().is_empty() || bare.starts_with([' ', '\t']) || bare.starts_with("===");
        if keep {
            flush(&mut prose, &mut out);
            out.push_str(line);
        } else {
            prose.push(bare.trim_end());
        }
    }
    flush(&mut prose, &mut out);
    if !text.ends_with('\n') && out.ends_with('\n') {
        out.pop();
    }
    out
}

/// The loaded templates.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The built-in templates, each replaced by a file of the same name in
    /// `dir` if there is one.
    pub fn load(dir: Option<&Path>) -> Result<Templates, TemplateError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.add_filter("wrap", |text: String| wrap(&text, WIDTH));
        if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .build()
        {
            env.set_syntax(syntax);
        }
        for (name, text) in BUILT_IN {
            let source = match dir.map(|d| d.join(name)).filter(|p| p.exists()) {
                Some(p) => std::fs::read_to_string(&p).map_err(|e| TemplateError::Read {
                    path: p.display().to_string(),
                    source: e,
                })?,
                None => (*text).to_string(),
            };
            env.add_template_owned(*name, source)
                .map_err(|e| TemplateError::Render {
                    name: (*name).to_string(),
                    source: e,
                })?;
        }
        Ok(Templates { env })
    }

    /// Render a template with a context.
    pub fn render(&self, name: &str, ctx: minijinja::Value) -> Result<Rendered, TemplateError> {
        let err = |e| TemplateError::Render {
            name: name.to_string(),
            source: e,
        };
        let out = self
            .env
            .get_template(name)
            .map_err(err)?
            .render(ctx)
            .map_err(err)?;
        // A template file saved with Windows line ends reads as any other
        // (the built-in ones have none, so their text is kept as made).
        let out = if out.contains('\r') {
            out.replace("\r\n", "\n")
        } else {
            out
        };
        let Some(rest) = out.strip_prefix("Subject: ") else {
            return Err(TemplateError::NoSubject {
                name: name.to_string(),
            });
        };
        let Some((subject, body)) = rest.split_once("\n\n") else {
            return Err(TemplateError::NoSubject {
                name: name.to_string(),
            });
        };
        let mut text = body.trim_end().to_string();
        text.push('\n');
        Ok(Rendered {
            subject: subject.trim().to_string(),
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{WIDTH, wrap};

    /// The welcome mail's sentence about the secret: before, the template's
    /// own line breaks left "Keep it to / yourself" once the secret was in.
    #[test]
    fn prose_is_wrapped_at_word_boundaries_after_the_values_are_in() {
        let secret = "3f9a0c55e1d2b7a48c6e9f0a1b2c3d4e";
        let text = format!(
            "Put it in every orders email as a line \"SECRET {secret}\". Keep it to\nyourself: it is what tells Dervish the orders are yours.\n"
        );
        let out = wrap(&text, WIDTH);
        assert_eq!(
            out,
            format!(
                "Put it in every orders email as a line\n\"SECRET {secret}\". Keep it to yourself: it is\nwhat tells Dervish the orders are yours.\n"
            )
        );
        for line in out.lines() {
            assert!(line.chars().count() <= WIDTH, "{line:?}");
        }
    }

    /// Indented lines, headings and blank lines stay as they are; a word
    /// longer than the width goes whole onto its own line; hyphenated
    /// names are not broken.
    #[test]
    fn examples_headings_and_long_words_are_kept_whole() {
        let hash = "ab".repeat(40);
        let text = format!(
            "=== Dervish k-1: welcome\n\nReply with lines such as:\n\n    SECRET {hash}\n    MARCH STACK Wady-Halfa TO Sarras\n\nThe fingerprint is {hash} and the game el-obeid-long-name-here is at its first month now.\n"
        );
        let out = wrap(&text, WIDTH);
        assert!(
            out.starts_with("=== Dervish k-1: welcome\n\nReply with lines such as:\n\n    SECRET ")
        );
        assert!(out.contains(&format!(
            "\n    SECRET {hash}\n    MARCH STACK Wady-Halfa TO Sarras\n\n"
        )));
        assert!(out.contains(&format!("\n{hash}\n")), "{out}");
        assert!(out.contains("el-obeid-long-name-here"), "{out}");
        assert!(out.ends_with('\n'));
        assert_eq!(wrap("no final break", WIDTH), "no final break");
    }
}
