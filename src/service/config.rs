//! The service's options, read from TOML (`config.example.toml` documents
//! every one). With no file at all the embedded default runs: a SQLite
//! file, a local Maildir in, outgoing mail written to a folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mail::imap::ImapConfig;
use crate::mail::outbound::TransportConfig;

/// Every option; each section and field has a default.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Scenario data folder instead of the data built in.
    pub data_dir: Option<PathBuf>,
    /// The SQLite database.
    pub database: PathBuf,
    /// A folder of edited mail templates (see `templates/README.md`).
    pub templates_dir: Option<PathBuf>,
    pub host: Host,
    pub inbox: Inbox,
    pub outgoing: TransportConfig,
    pub turns: Turns,
    pub limits: Limits,
    pub outbox: Outbox,
    pub run: Run,
    pub archive: Archive,
    pub seats: Seats,
}

/// The campaign archive (`dervish archive`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Archive {
    /// A folder to keep every game's archive in, rebuilt after each turn
    /// (`<folder>/<game>/index.html`, and `<folder>/index.html` listing
    /// them); none by default. Safe to publish while games run: nothing
    /// appears before the turn that reveals it.
    pub folder: Option<PathBuf>,
}

/// Who the service is.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Host {
    /// The address players write to; every mail comes from it.
    pub address: String,
    /// The name shown with it.
    pub name: String,
    /// The game master's address: notes about games go there.
    pub game_master: String,
}

/// Where mail comes in.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Inbox {
    /// `maildir` (the default) or `imap`.
    pub kind: InboxKind,
    /// A Maildir folder (created if missing), for `kind = "maildir"`.
    pub maildir: PathBuf,
    /// The IMAP account, for `kind = "imap"` (`[inbox.imap]`).
    pub imap: Option<ImapConfig>,
}

impl Inbox {
    /// The IMAP settings checked and the password read, for `kind = "imap"`.
    pub fn imap_settings(&self) -> Result<crate::mail::imap::ImapSettings, String> {
        self.imap
            .as_ref()
            .ok_or_else(|| NO_IMAP_TABLE.to_owned())?
            .settings()
    }
}

const NO_IMAP_TABLE: &str = "[inbox] kind = \"imap\" needs an [inbox.imap] table (host, username, password_env or password_file)";

/// The kinds of inbox.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InboxKind {
    #[default]
    Maildir,
    Imap,
}

/// Deadlines and reminders.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Turns {
    /// Hours from a turn opening to its deadline, for new games.
    pub deadline_hours: u32,
    /// Hours before a deadline to remind a side that is not READY (0: no
    /// reminders).
    pub reminder_hours: u32,
    /// Turns missed in a row before the game master is told.
    pub missed_turns_note: u32,
    /// Hours a deadline is extended by when it passed while the service was
    /// not running.
    pub downtime_extension_hours: u32,
    /// A pass more than this many minutes after the previous one means the
    /// service was down.
    pub downtime_minutes: u32,
    /// Read and not used: a turn's full log always goes with its results as
    /// an attachment (`<game>-<month>-log.txt`) and in the HTML part, never
    /// in the plain text. Accepted so that a configuration file naming it
    /// still loads.
    pub log_inline_lines: Option<usize>,
    /// The width in pixels of the drawn map a player's results mail
    /// carries (`<game>-<month>-map.png`, unless the player sent `MAP
    /// TEXT`); drawn narrower if the PNG would be 200,000 bytes or more.
    /// 0: no pictures in any results mail.
    pub map_picture_px: u32,
    /// Hours each side has for its part of a new game's set-up step (2.1):
    /// the Egyptian's, then the Mahdist's; at that deadline a silent side's
    /// set-up is sealed as it stands (the default placement if he sent no
    /// SETUP lines). 0: no set-up step; set-up orders go with the first
    /// month's orders, placed when it is played.
    pub setup_hours: u32,
}

/// Limits on what comes in.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Largest message read, in bytes, as sent (headers and attachments
    /// included); larger ones get a polite refusal. The body text read for
    /// orders is limited apart, to `orders::clean::MAX_BYTES` (64 KiB).
    pub max_message_bytes: usize,
    /// Failed secrets from one player before the game master is told (and
    /// further failures are not answered until a good one arrives).
    pub auth_failures_note: u32,
    /// After `auth_failures_note` wrong game master passwords in a row, mail
    /// commands are not read at all for this many minutes; each further
    /// wrong password after that doubles the wait, up to a day. The game
    /// master is told once; `dervish gm password` or a right password once
    /// the wait is over clears it.
    pub gm_lockout_minutes: u32,
    /// Refusals (of any kind: a game not played from this address, a mail
    /// too large, orders for another side ...) sent to one address in an
    /// hour at most; beyond it the mail is recorded and not answered, so
    /// forged mail cannot turn the service against a real address.
    pub refusals_per_hour: u32,
    /// Answers to one address that gave no valid secret (the answer to a
    /// stranger's HELP or JOIN, a JOIN's confirmation request, the list of
    /// games to join, a refusal of a mail without the right secret, the
    /// question which game a mail is about), all counted together, in an
    /// hour at most. Beyond it the mail is recorded and not answered (the
    /// log says so), so forged mail in someone's name cannot flood them.
    pub unverified_answers_per_hour: u32,
    /// Hours a JOIN waits for its confirmation (`JOIN CONFIRM` and the
    /// token the answer gave, from the same address) before it lapses.
    pub join_confirm_hours: u32,
    /// Messages taken in by one pass at most. Under a flood the rest wait
    /// for the next pass, which comes at once: the receipts and results of
    /// those read go out in between, instead of after the whole backlog.
    pub messages_per_pass: usize,
}

/// Sending.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Outbox {
    /// Failures in a row of a transport that is down (no answer, a refused
    /// connection, a timeout) before the game master is told, once an
    /// outage. No mail is given up for them.
    pub max_attempts: u32,
    /// Days a mail is tried again after temporary failures (a `4xx` reply,
    /// sendmail's exit 75) before it is given up, counted from when it was
    /// queued or last taken up again, like a mail server's queue lifetime.
    /// A permanent failure (a `5xx` reply) gives it up at once.
    pub give_up_after_days: u32,
    /// Days a sent mail is kept whole; after them only its headers and the
    /// SHA-256 of its text and files are kept (the turn record and log can
    /// be made again from the stored turns). 0: kept whole for ever.
    pub keep_sent_days: u32,
    /// Seconds before the first retry; each retry doubles it.
    pub first_retry_seconds: u32,
    /// The longest wait between retries, in seconds.
    pub max_retry_seconds: u32,
    /// A file the game master's summary of mail given up is appended to,
    /// one block a pass, besides the log and the notice mail: a path that
    /// works when the mail transport does not.
    pub notice_file: Option<PathBuf>,
}

/// The daemon.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Run {
    /// Seconds between passes of `dervish run`.
    pub poll_seconds: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: None,
            database: PathBuf::from("dervish.sqlite"),
            templates_dir: None,
            host: Host::default(),
            inbox: Inbox::default(),
            outgoing: TransportConfig::File {
                dir: PathBuf::from("mail/outbox"),
            },
            turns: Turns::default(),
            limits: Limits::default(),
            outbox: Outbox::default(),
            run: Run::default(),
            archive: Archive::default(),
            seats: Seats::default(),
        }
    }
}

impl Default for Host {
    fn default() -> Self {
        Host {
            address: "dervish@localhost".into(),
            name: "Dervish".into(),
            game_master: "gm@localhost".into(),
        }
    }
}

impl Default for Inbox {
    fn default() -> Self {
        Inbox {
            kind: InboxKind::Maildir,
            maildir: PathBuf::from("mail/inbox"),
            imap: None,
        }
    }
}

impl Default for Turns {
    fn default() -> Self {
        Turns {
            deadline_hours: 168,
            reminder_hours: 24,
            missed_turns_note: 2,
            downtime_extension_hours: 24,
            downtime_minutes: 60,
            log_inline_lines: None,
            map_picture_px: 1000,
            setup_hours: 72,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 1024 * 1024,
            auth_failures_note: 3,
            gm_lockout_minutes: 15,
            refusals_per_hour: 3,
            unverified_answers_per_hour: 3,
            join_confirm_hours: 48,
            messages_per_pass: 200,
        }
    }
}

impl Default for Outbox {
    fn default() -> Self {
        Outbox {
            max_attempts: 12,
            give_up_after_days: 5,
            keep_sent_days: 30,
            first_retry_seconds: 60,
            max_retry_seconds: 3600,
            notice_file: None,
        }
    }
}

impl Default for Run {
    fn default() -> Self {
        Run { poll_seconds: 60 }
    }
}

/// The widest picture a results mail may ask for: wider ones are drawn
/// narrower anyway to stay under 200 KB, at the cost of drawing each.
pub const MAX_PICTURE_PX: u32 = 2000;

/// A configuration problem.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
}

impl Config {
    /// Read a TOML file; options it leaves out keep their defaults. Every
    /// relative path, written in the file or a default, is taken from the
    /// file's folder, not from the folder the command runs in: a mail
    /// server's pipe, cron and systemd each start in a folder of their
    /// own, and all must meet the same database.
    pub fn read(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            source: e,
        })?;
        let mut c = Config::parse(&text).map_err(|message| ConfigError::Parse {
            path: path.display().to_string(),
            message,
        })?;
        let absolute = std::path::absolute(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            source: e,
        })?;
        if let Some(folder) = absolute.parent() {
            c.resolve_paths(folder);
        }
        Ok(c)
    }

    /// Make every relative path of the configuration relative to `folder`
    /// (a sendmail command given as a bare name stays a name looked up on
    /// the `PATH`).
    pub fn resolve_paths(&mut self, folder: &Path) {
        let at = |p: &mut PathBuf| {
            if p.is_relative() && !p.as_os_str().is_empty() {
                *p = folder.join(&*p);
            }
        };
        let at_opt = |p: &mut Option<PathBuf>| {
            if let Some(p) = p {
                at(p);
            }
        };
        at_opt(&mut self.data_dir);
        at(&mut self.database);
        at_opt(&mut self.templates_dir);
        at(&mut self.inbox.maildir);
        if let Some(imap) = &mut self.inbox.imap {
            at_opt(&mut imap.password_file);
            at_opt(&mut imap.ca_file);
        }
        match &mut self.outgoing {
            TransportConfig::File { dir } => at(dir),
            TransportConfig::Sendmail { command: Some(c) } if c.components().count() > 1 => at(c),
            TransportConfig::Sendmail { .. } => {}
            TransportConfig::Smtp {
                password_file,
                ca_file,
                ..
            } => {
                at_opt(password_file);
                at_opt(ca_file);
            }
        }
        at_opt(&mut self.outbox.notice_file);
        at_opt(&mut self.archive.folder);
    }

    /// Read TOML text.
    pub fn parse(text: &str) -> Result<Config, String> {
        let mut c: Config = toml::from_str(text).map_err(|e| e.to_string())?;
        // An empty path means "not set".
        c.data_dir = c.data_dir.filter(|d| !d.as_os_str().is_empty());
        c.templates_dir = c.templates_dir.filter(|d| !d.as_os_str().is_empty());
        if c.inbox.kind == InboxKind::Imap && c.inbox.imap.is_none() {
            return Err(NO_IMAP_TABLE.into());
        }
        let px = c.turns.map_picture_px;
        let (least, most) = (super::picture::MIN_WIDTH_PX, MAX_PICTURE_PX);
        if px != 0 && !(least..=most).contains(&px) {
            return Err(format!(
                "[turns] map_picture_px = {px}: give 0 (no pictures in results mails) or a width from {least} to {most} pixels (1000 draws a player's area under 200 KB)"
            ));
        }
        Ok(c)
    }

    /// The domain of the host address (for Message-IDs).
    pub fn domain(&self) -> &str {
        self.host
            .address
            .rsplit_once('@')
            .map_or("localhost", |(_, d)| d.trim_end_matches('>'))
    }

    /// The `From` of every mail.
    pub fn from(&self) -> String {
        format!("{} <{}>", self.host.name, self.host.address)
    }

    /// What our mail carries in `X-Loop`.
    pub fn loop_id(&self) -> String {
        self.host.address.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_is_the_embedded_default_and_unknown_options_are_refused() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.database, PathBuf::from("dervish.sqlite"));
        assert_eq!(c.domain(), "localhost");
        assert!(Config::parse("[turns]\ndeadline_hour = 3\n").is_err());
        let example = include_str!("../../config.example.toml");
        let c = Config::parse(example).unwrap();
        assert_eq!(c.data_dir, None);
        assert_eq!(
            c.turns.deadline_hours,
            Config::default().turns.deadline_hours
        );
        let c = Config::parse("[turns]\ndeadline_hours = 48\n").unwrap();
        assert_eq!(c.turns.deadline_hours, 48);
        assert_eq!(c.turns.reminder_hours, 24);
    }

    #[test]
    fn the_imap_inbox_is_read_from_its_own_table() {
        // The commented IMAP example, uncommented, is a working table.
        let example = include_str!("../../config.example.toml");
        let table: String = example
            .lines()
            .skip_while(|l| !l.starts_with("# [inbox.imap]"))
            .take_while(|l| l.starts_with('#'))
            .filter(|l| !l.contains("password_file") && !l.contains("ca_file"))
            .map(|l| l.trim_start_matches('#').trim_start())
            .filter(|l| l.starts_with('[') || l.split_whitespace().nth(1) == Some("="))
            .map(|l| format!("{l}\n"))
            .collect();
        let c = Config::parse(&format!("[inbox]\nkind = \"imap\"\n{table}")).unwrap();
        let imap = c.inbox.imap.unwrap();
        assert_eq!(imap.host, "imap.example.org");
        assert_eq!(imap.port(), 993);
        assert_eq!(imap.folder, "INBOX");
        assert_eq!(imap.password_env.as_deref(), Some("DERVISH_IMAP_PASSWORD"));
        let e = Config::parse("[inbox]\nkind = \"imap\"\n").unwrap_err();
        assert!(e.contains("[inbox.imap]"), "{e}");
        assert!(
            Config::parse("[inbox.imap]\nhost = \"h\"\nusername = \"u\"\npassword = \"p\"\n")
                .is_err()
        );
    }

    /// "Relative paths in the config are resolved against the config
    /// file's folder": written ones and defaults alike; absolute ones and a
    /// sendmail command named without a folder stay as they are.
    #[test]
    fn relative_paths_are_taken_from_the_file_s_folder() {
        let dir = std::env::temp_dir().join(format!("dervish-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("dervish.toml");
        std::fs::write(
            &file,
            "database = \"data/db.sqlite\"\n[outgoing]\nkind = \"sendmail\"\ncommand = \"sendmail\"\n[outbox]\nnotice_file = \"/var/log/n.txt\"\n",
        )
        .unwrap();
        let c = Config::read(&file).unwrap();
        assert_eq!(c.database, dir.join("data/db.sqlite"));
        assert_eq!(c.inbox.maildir, dir.join("mail/inbox"));
        assert_eq!(c.outbox.notice_file, Some(PathBuf::from("/var/log/n.txt")));
        assert_eq!(
            c.outgoing,
            TransportConfig::Sendmail {
                command: Some(PathBuf::from("sendmail"))
            }
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Players' absences and seats left empty (`[seats]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Seats {
    /// Days a year (from January 1st) a player's absences may hold the
    /// game's deadlines (`ABSENT FROM .. TO ..`); an absence with
    /// `STANDIN` does not count, the programmed player plays meanwhile.
    pub absence_days_a_year: u32,
    /// Deadlines a player may miss in a row before the programmed player
    /// stands in for the seat and the seat is offered to a replacement
    /// (opened for JOIN; the game master told). 0 (the default): never;
    /// the game master is told at `[turns] missed_turns_note` as before.
    pub stand_in_after_missed: u32,
}

impl Default for Seats {
    fn default() -> Self {
        Seats {
            absence_days_a_year: 21,
            stand_in_after_missed: 0,
        }
    }
}
