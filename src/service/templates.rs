//! Every outgoing mail is a minijinja template: built in from
//! `templates/`, or read from a game master's copy of that folder.

use std::path::Path;

use minijinja::{Environment, UndefinedBehavior};

/// The templates that ship with Dervish.
/// The player's guide to orders, sent whole with every HELP answer (a
/// player cannot open the service's files).
pub const GUIDE: &str = include_str!("../../docs/orders.md");

pub const BUILT_IN: &[(&str, &str)] = &[
    ("welcome.txt", include_str!("../../templates/welcome.txt")),
    ("receipt.txt", include_str!("../../templates/receipt.txt")),
    ("results.txt", include_str!("../../templates/results.txt")),
    ("reminder.txt", include_str!("../../templates/reminder.txt")),
    ("refusal.txt", include_str!("../../templates/refusal.txt")),
    ("notice.txt", include_str!("../../templates/notice.txt")),
    ("status.txt", include_str!("../../templates/status.txt")),
    ("help.txt", include_str!("../../templates/help.txt")),
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
        let out = out.replace("\r\n", "\n");
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
