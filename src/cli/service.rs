//! The service commands: quickstart, run, submit, game, verify, replay.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, anyhow};
use clap::Subcommand;

use dervish::mail::maildir::Maildir;
use dervish::mail::outbound::{Sender, TransportConfig};
use dervish::render::ascii;
use dervish::scenario::{DataSet, Side};
use dervish::service::config::InboxKind;
use dervish::service::daemon::{self, Daemon};
use dervish::service::games::{NewGame, deadline_text};
use dervish::service::spool::{self, Spool};
use dervish::service::{Config, LockError, Service, ServiceError};
use dervish::store::{self, Mode, Status};

#[derive(Subcommand, Debug)]
pub enum GameCommand {
    /// Start a game: make each player's secret and mail it; the game opens
    /// with the set-up (2.1), the Egyptian's then the Mahdist's, and then
    /// the first turn (a game from a situation opens with the first turn).
    New {
        /// The scenario (default: khartoum, or the situation's).
        #[arg(long, short)]
        scenario: Option<String>,
        /// Start from a rule case's situation (docs/cases.md) instead of
        /// the scenario's set-up.
        #[arg(long, value_name = "FILE")]
        situation: Option<std::path::PathBuf>,
        /// The Egyptian player's address, `open` for a seat a player
        /// takes by mailing JOIN, or `bot` (`bot:historical`,
        /// `bot:competent`) for the programmed Egyptian player.
        #[arg(long)]
        egyptian: String,
        /// The Mahdist player's address, `open`, or `bot` for the programmed
        /// Mahdist player of the reaction table (docs/opponents.md).
        #[arg(long)]
        mahdist: String,
        /// The game's id (default: SCENARIO-N).
        #[arg(long)]
        id: Option<String>,
        /// monthly: both sides' orders, then the month; alternating: each
        /// player turn has its own orders and deadline.
        #[arg(long, default_value = "monthly", value_parser = ["monthly", "alternating"])]
        mode: String,
        /// Hours from a turn opening to its deadline (at least 1).
        #[arg(long)]
        deadline_hours: Option<u32>,
        /// Play with the optional ambush rule of the seed "Mahdist
        /// Ambushes": Egyptian columns marching through hills, wells,
        /// villages and wadis near the Mahdists may be ambushed
        /// (docs/rules.md, "Ambushes").
        #[arg(long)]
        ambushes: bool,
        /// A house rule, off by default (repeatable): `gordon-stays` (no
        /// order may take Gordon out of Khartoum); docs/rules.md, "House
        /// rules (optional variants)".
        #[arg(long = "variant", value_name = "NAME")]
        variant: Vec<dervish::state::variant::Variant>,
        /// Which combats are fought on the tabletop (docs/tabletop.md):
        /// none, all, above:N (more than N strength points, both sides
        /// together) or flagged (places the game master flags with
        /// `dervish battle flag`).
        #[arg(long, default_value = "none", value_parser = parse_select)]
        table_battles: dervish::state::TableSelect,
        /// At most this many table battles a player turn; the rest are
        /// resolved as the others.
        #[arg(long)]
        table_cap: Option<u32>,
        /// The miniatures rules of the table battles: volley-fire,
        /// pits-1885 or etyfw.
        #[arg(long, default_value = "volley-fire", value_parser = parse_rules)]
        table_rules: dervish::state::RuleSet,
        /// Hours from the battle briefs to the result's deadline.
        #[arg(long, default_value_t = 168)]
        table_hours: u32,
        /// What resolves the combats not sent to the table: tables (the
        /// campaign's combat tables) or etyfw (the procedure of 'Eres To
        /// You Fuzzy Wuzzy, docs/tabletop-etyfw.md).
        #[arg(long, default_value = "tables", value_parser = parse_resolver)]
        resolver: dervish::state::AutoResolver,
        /// A time bank instead of fixed deadlines: BASE+INCREMENT, as
        /// 7d+3d (each player has BASE, and INCREMENT more each turn;
        /// their time runs while a turn waits for them).
        #[arg(long, value_name = "BASE+INCREMENT")]
        clock: Option<dervish::service::clock::ClockSpec>,
    },
    /// Take a game back to the start of a month played: the turns from
    /// it on are taken back (their orders kept), both players told why.
    Rollback {
        id: String,
        /// The month to go back to (1884-03).
        #[arg(long)]
        to: String,
        /// Why, told to both players.
        #[arg(long)]
        why: String,
    },
    /// Play the open turn now without storing it, and print its log.
    Preview { id: String },
    /// List the games.
    List,
    /// Show a game: its turn, deadline, players, orders in, and the map.
    Show { id: String },
    /// The game's log: every game master action, join and replacement,
    /// and the programmed players' umpire's notes (their hidden reaction
    /// rolls), oldest first.
    Log { id: String },
    /// Play the open turn of a game now.
    Process { id: String },
    /// Push the deadline back.
    Extend { id: String, hours: u32 },
    /// Give a side's seat to another address (with a new secret).
    Replace {
        id: String,
        #[arg(value_parser = ["egyptian", "mahdist"])]
        side: String,
        address: String,
    },
    /// Give a player a new secret, mailed in a new welcome mail; the old
    /// one stops working (a lost secret, or a welcome mail given up).
    Secret {
        id: String,
        #[arg(value_parser = ["egyptian", "mahdist"])]
        side: String,
    },
    /// Send a game's results to an observer too.
    Observe { id: String, address: String },
    /// Stop a game's deadlines until it is resumed.
    Pause { id: String },
    /// Resume a paused game.
    Resume { id: String },
    /// A game's table battles: each with its turn, where it stands, the
    /// result, the deadline.
    Battles { id: String },
    /// Enter a table battle's result as the game master (a dispute
    /// decided, or a result taken by hand): read from FILE (- for
    /// standard input) in the result grammar (docs/tabletop.md); settled
    /// at once.
    BattleResult {
        id: String,
        battle: i64,
        file: std::path::PathBuf,
    },
    /// Flag a place: combats there go to the table (a game made with
    /// --table-battles flagged); --off takes the flag away.
    Flag {
        id: String,
        place: String,
        #[arg(long)]
        off: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum GmCommand {
    /// Set the game master's password (read from standard input; at least
    /// 12 characters). Mails from the game master's address with a
    /// `PASSWORD` line and `GM ...` command lines then run those commands.
    Password,
}

pub fn gm(cfg: Config, command: GmCommand) -> Result<ExitCode> {
    match command {
        GmCommand::Password => {
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("cannot read the password from standard input")?;
            let s = open_to_write(cfg)?;
            s.set_gm_password(line.trim_end_matches(['\r', '\n']))
                .map_err(|e| anyhow!("{e}"))?;
            outln!("game master password set");
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn parse_select(s: &str) -> std::result::Result<dervish::state::TableSelect, String> {
    s.parse()
}

fn parse_rules(s: &str) -> std::result::Result<dervish::state::RuleSet, String> {
    s.parse()
}

fn parse_resolver(s: &str) -> std::result::Result<dervish::state::AutoResolver, String> {
    s.parse()
}

fn open(cfg: Config) -> Result<(Service, dervish::service::Lock)> {
    Service::open_locked(cfg).map_err(|e| anyhow!("{e}"))
}

/// For the game master's commands that change a game: without the lock,
/// which keeps daemons apart, not short commands; each change is one
/// transaction, waiting for the daemon's write in hand (WAL, a busy
/// timeout). Creates and brings up to date the database if need be.
fn open_to_write(cfg: Config) -> Result<Service> {
    if let Some(dir) = cfg.database.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    }
    Service::open(cfg).map_err(|e| anyhow!("{e}"))
}

/// For commands that only read: read-only, without the lock, so they work
/// while the daemon runs; a database that is missing or not yet brought
/// up to date is opened as for writing.
pub(crate) fn open_to_read(cfg: Config) -> Result<Service> {
    match Service::open_read_only(cfg.clone()) {
        Ok(s) => Ok(s),
        Err(_) => open_to_write(cfg),
    }
}

fn sender(cfg: &Config) -> Result<Sender> {
    daemon::sender(cfg).map_err(|e| anyhow!("{e}"))
}

fn inbox(cfg: &Config) -> Result<Maildir> {
    daemon::maildir_inbox(cfg).map_err(|e| anyhow!("{e}"))
}

fn actor() -> String {
    format!(
        "cli:{}",
        std::env::var("USER").unwrap_or_else(|_| "game-master".into())
    )
}

/// A sample orders mail, as a player's mail program would send it.
fn sample_mail(from: &str, to: &str, game: &str, month: &str, n: u32, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: [dervish {game}] orders {month}\r\nMessage-ID: <quickstart-{game}-{n}@localhost>\r\nDate: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

pub fn quickstart(cfg: Config) -> Result<ExitCode> {
    let outbox_dir = match &cfg.outgoing {
        TransportConfig::File { dir } => Some(dir.clone()),
        _ => None,
    };
    let inbox_dir = cfg.inbox.maildir.clone();
    let (mut s, _lock) = open(cfg)?;
    let created = s
        .new_game(
            &NewGame {
                scenario: "khartoum".into(),
                egyptian: "egyptian@localhost".into(),
                mahdist: "mahdist@localhost".into(),
                id: None,
                mode: Mode::Monthly,
                deadline_hours: None,
                ambushes: false,
                table_battles: Default::default(),
                resolver: Default::default(),
            },
            "quickstart",
        )
        .map_err(|e| anyhow!("{e}"))?;
    let g = s.game(&created.id).map_err(|e| anyhow!("{e}"))?;
    let secret = |side| {
        created
            .secrets
            .iter()
            .find(|(s, _)| *s == side)
            .map(|(_, x)| x.clone())
            .unwrap_or_default()
    };
    let host = s.cfg.host.address.clone();
    let egyptian = format!(
        "SECRET {}\n\n# Baker sails from Souakim to relieve Tokar.\nMARCH LEADER Baker FLEET TO Trinkitat THEN TO El Teb\n  ATTACK ANY\n  RETREAT TOWARDS Trinkitat\n# Gordon holds Khartoum; the Sinkat garrison falls back.\nMARCH STACK Sinkat TO Souakim\nREADY\n\n-- \nThe Egyptian player\n",
        secret(Side::Egyptian)
    );
    let mahdist = format!(
        "SECRET {}\n\nMARCH LEADER Osman Digma TO Tamai\nMARCH STACK Kamlin TO Soba ATTACK ANY\nREADY\n",
        secret(Side::Mahdist)
    );
    let mut maildir = Maildir::open(&inbox_dir)?;
    let sender = sender(&s.cfg)?;
    // The set-up comes first (2.1): each side keeps its default placement
    // (READY alone), the Egyptian first; then the set-up mail goes out and
    // the first month's orders are taken.
    let (mut read, mut sent) = (0, 0);
    for (side, from, n) in [
        (Side::Egyptian, "egyptian@localhost", 11),
        (Side::Mahdist, "mahdist@localhost", 12),
    ] {
        let body = format!("SECRET {}\n\nREADY\n", secret(side));
        maildir.deliver(&sample_mail(from, &host, &g.id, "set-up", n, &body))?;
        let r = s.pass(&mut maildir, &sender).map_err(|e| anyhow!("{e}"))?;
        read += r.messages;
        sent += r.sent;
    }
    maildir.deliver(&sample_mail(
        "egyptian@localhost",
        &host,
        &g.id,
        &g.month,
        1,
        &egyptian,
    ))?;
    maildir.deliver(&sample_mail(
        "mahdist@localhost",
        &host,
        &g.id,
        &g.month,
        2,
        &mahdist,
    ))?;
    let report = s.pass(&mut maildir, &sender).map_err(|e| anyhow!("{e}"))?;
    let g = s.game(&created.id).map_err(|e| anyhow!("{e}"))?;
    let state = s.state_of(&g).map_err(|e| anyhow!("{e}"))?;
    let scn = s.scenario(&g.scenario).map_err(|e| anyhow!("{e}"))?;
    outln!(
        "Demo game {} of {}: egyptian@localhost against mahdist@localhost.",
        g.id,
        scn.def.title
    );
    outln!(
        "Read {} sample set-up and orders mails from {}, played {} turn(s) after the set-up, sent {} mails.",
        read + report.messages,
        inbox_dir.display(),
        report.turns_played.len(),
        sent + report.sent
    );
    if let Some(dir) = outbox_dir {
        outln!("The mails are in {}:", dir.display());
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        for n in names {
            outln!("  {}", dir.join(n).display());
        }
    }
    outln!();
    outln!(
        "The map after the first turn (now {}, next deadline {}):",
        state.month.long_name(),
        deadline_text(g.deadline)
    );
    out!("{}", ascii::overview(&scn, Some(&state)));
    outln!();
    outln!(
        "Next: `dervish run` keeps the service going; put mail in {}/new, or use `dervish submit FILE.eml`.",
        inbox_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `run`: one pass (`--once`, for cron) or the daemon until SIGTERM or
/// SIGINT. The loop itself is the library's ([`daemon::Daemon`]).
pub fn run(cfg: Config, once: bool) -> Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("cannot watch for signals")?;
    }
    let again = cfg.clone();
    let mut d = match Daemon::open(cfg, stop) {
        Ok(d) => d,
        // Cron's pass beside a running daemon: the daemon does the work.
        Err(ServiceError::Lock(LockError::Held { database, .. })) if once => {
            outln!("another dervish is running on {database}: this pass is left to it");
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(anyhow!("{e}")),
    };
    if !once {
        d.run().map_err(|e| anyhow!("{e}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let r = d.drain().map_err(|e| anyhow!("{e}"))?;
    d.close();
    let late = spool::read_after(&again);
    if let Some(e) = late.error {
        eprintln!("warning: the spool could not be read to the end: {e}");
    }
    outln!(
        "{} messages read, {} turns played, {} reminders, {} mails sent, {} failed",
        r.messages,
        r.turns_played.len(),
        r.reminders,
        r.sent,
        r.failed
    );
    if let Some(e) = r.inbox_error {
        eprintln!("error: the inbox could not be read: {e}");
        return Ok(ExitCode::FAILURE);
    }
    // Cron mails the game master when a pass could not send mail.
    if r.failed > 0 {
        eprintln!(
            "error: {} {} could not be sent; see the log, and the outbox retries later",
            r.failed,
            if r.failed == 1 { "mail" } else { "mails" }
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn check_mail(cfg: &Config) -> Result<ExitCode> {
    let mut ok = true;
    let inbox = match cfg.inbox.kind {
        InboxKind::Maildir => inbox(cfg).map(|m| {
            let waiting = m.new_messages().map(|n| n.len()).unwrap_or(0);
            format!("Maildir {}: {waiting} messages waiting", m.root().display())
        }),
        InboxKind::Imap => cfg
            .inbox
            .imap_settings()
            .map_err(|e| anyhow!(e))
            .and_then(|s| s.check().map_err(|e| anyhow!("{e}"))),
    };
    match inbox {
        Ok(text) => outln!("inbox: ok: {text}"),
        Err(e) => {
            ok = false;
            outln!("inbox: FAILED: {e:#}");
        }
    }
    match sender(cfg).and_then(|s| s.check().map_err(|e| anyhow!("{}", e.message))) {
        Ok(text) => outln!("outgoing: ok: {text}"),
        Err(e) => {
            ok = false;
            outln!("outgoing: FAILED: {e:#}");
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `dervish submit` for a mail server's pipe (Postfix `pipe(8)`, a
/// `.forward`), by sendmail's exit statuses: 0 for every message taken
/// (whatever is done with it: orders, a refusal, a stranger's mail
/// ignored, or kept in the spool for the running daemon), and 75
/// (`EX_TEMPFAIL`) for every failure that is the host's, so the mail
/// server keeps the message and tries again (Postfix for five days by
/// default) instead of bouncing it, the player's secret included, to its
/// sender: a configuration that cannot be read, a bad argument, a file
/// that cannot be read, no database at the configured path (nothing is
/// created there), a database that cannot be opened, read or written, a
/// spool that cannot be written, even a failure of Dervish itself. What
/// went wrong is one line on standard error, which the mail server puts
/// in its log and its delay notice.
pub fn submit_for_a_pipe(cfg: Config, file: &Path) -> ExitCode {
    let taken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| submit(&cfg, file)));
    match taken {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => cannot_take_now(&e),
        Err(_) => cannot_take_now(&anyhow!("dervish failed on this message")),
    }
}

/// The message is not taken now: say why, and exit 75 so that the mail
/// server keeps it and tries again.
pub fn cannot_take_now(e: &anyhow::Error) -> ExitCode {
    eprintln!("dervish: cannot take the message now, try again later: {e:#}");
    ExitCode::from(super::EX_TEMPFAIL)
}

/// Hand one message to the intake. The database is checked first (there,
/// readable and writable; never created); then the message is put in the
/// spool (written whole and synced) and the spool is read if no other
/// dervish holds the database; else the holder reads it. So a message
/// `submit` accepted is never lost, and one the service fails or is
/// killed on is counted and, the second time, set aside like any inbox
/// message (`docs/intake.md`). If reading the spool fails before this
/// message was stored, the message is taken out of the spool again and
/// the error returned: the mail server keeps it instead.
fn submit(cfg: &Config, file: &Path) -> Result<ExitCode> {
    // A message over the size limit is read only in its head (the rest
    // counted, not kept), so a huge mail costs no memory.
    let max = cfg.limits.max_message_bytes;
    let (raw, size) = if file.as_os_str() == "-" {
        dervish::mail::read_bounded(&mut std::io::stdin().lock(), max)
            .context("cannot read standard input")?
    } else {
        dervish::mail::maildir::read_file_bounded(file, max)
            .with_context(|| format!("cannot read {}", file.display()))?
    };
    store::check_usable(&cfg.database).map_err(|e| match e {
        store::Unusable::Missing(path) => anyhow!(
            "there is no database at {path} (see `database` in the configuration; \
             `dervish game new` makes one)"
        ),
        other => anyhow!("{other}"),
    })?;
    let spooled = Spool::open(&cfg.database)
        .and_then(|sp| sp.put(&raw, size))
        .context("the spool cannot be written")?;
    let read = spool::read_after(cfg);
    if read.messages == 0 && read.error.is_none() {
        outln!("queued for the running dervish");
    }
    for o in &read.outcomes {
        outln!("{o}");
    }
    if let Some(e) = read.error {
        if std::fs::remove_file(&spooled).is_ok() {
            return Err(anyhow!("the database cannot be used: {e}"));
        }
        // This message was stored; one after it waits in the spool for
        // the next pass.
        eprintln!("dervish: the spool could not be read to the end: {e}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A game master's command. Every one works while the daemon runs: those
/// that only read open the database read-only; those that change a game
/// do it in transactions of their own, so a daemon's pass sees all of a
/// change or none.
pub fn game(cfg: Config, command: GameCommand) -> Result<ExitCode> {
    match command {
        GameCommand::List
        | GameCommand::Show { .. }
        | GameCommand::Preview { .. }
        | GameCommand::Log { .. }
        | GameCommand::Battles { .. } => game_command(&open_to_read(cfg)?, command),
        _ => game_command(&open_to_write(cfg)?, command),
    }
}

fn game_command(s: &Service, command: GameCommand) -> Result<ExitCode> {
    let e = |e: ServiceError| anyhow!("{e}");
    match command {
        GameCommand::New {
            scenario,
            situation,
            egyptian,
            mahdist,
            id,
            mode,
            deadline_hours,
            ambushes,
            variant,
            table_battles,
            table_cap,
            table_rules,
            table_hours,
            resolver,
            clock,
        } => {
            if table_hours == 0 {
                return Err(anyhow!(
                    "--table-hours 0 leaves no time to fight a battle: give at least 1"
                ));
            }
            let table_battles = dervish::state::TableBattles {
                select: table_battles,
                cap: table_cap,
                rules: table_rules,
                flagged: Default::default(),
                deadline_hours: table_hours,
            };
            let situation = match &situation {
                Some(path) => {
                    let case = dervish::cases::load(path, &s.data).map_err(|d| anyhow!("{d}"))?;
                    if scenario.as_ref().is_some_and(|id| id != case.scn.id()) {
                        return Err(anyhow!(
                            "{} is a situation of scenario {}, and --scenario says {}",
                            path.display(),
                            case.scn.id(),
                            scenario.unwrap_or_default()
                        ));
                    }
                    Some(case)
                }
                None => None,
            };
            let scenario = match &situation {
                Some(c) => c.scn.id().to_string(),
                None => scenario.unwrap_or_else(|| "khartoum".to_string()),
            };
            let created = s
                .new_game_with(
                    &NewGame {
                        scenario,
                        egyptian,
                        mahdist,
                        id,
                        mode: Mode::parse(&mode).unwrap_or(Mode::Monthly),
                        deadline_hours,
                        ambushes,
                        table_battles,
                        resolver,
                    },
                    situation.map(|c| c.state),
                    &variant.into_iter().collect(),
                    &actor(),
                )
                .map_err(e)?;
            if let Some(spec) = clock {
                s.set_time_bank(&created.id, spec, &actor()).map_err(e)?;
            }
            let g = s.game(&created.id).map_err(e)?;
            let opening = match g.turn_kind {
                store::TurnKind::SetUp(side) => format!(
                    "the set-up (2.1) first, the {side} set-up due by {}; then the first turn, {}",
                    deadline_text(g.deadline),
                    g.month
                ),
                _ => format!(
                    "first turn {}, deadline {}",
                    g.month,
                    deadline_text(g.deadline)
                ),
            };
            outln!(
                "Game {} created: {opening}. Each player's secret is in their welcome mail (run `dervish run --once` to send it).",
                g.id
            );
        }
        GameCommand::Battles { id } => {
            let battles = s.battles(&id).map_err(e)?;
            if battles.is_empty() {
                outln!("game {id} has had no table battle");
            }
            for b in battles {
                let (combat, _) = s.battle_parts(&b).map_err(e)?;
                outln!(
                    "battle {:<4} turn {:>3}  {:<9} {}  deadline {}",
                    b.id,
                    b.turn_no,
                    b.status.as_str(),
                    combat.key,
                    deadline_text(b.deadline)
                );
                if let Some(r) = &b.result_text {
                    let by = b.proposed_by.as_deref().unwrap_or("?");
                    outln!("  result ({by}): {}", r.replace('\n', " / "));
                }
                if let Some(d) = &b.dispute {
                    outln!("  dispute: {}", d.replace('\n', " / "));
                }
            }
        }
        GameCommand::BattleResult { id, battle, file } => {
            let text = if file.as_os_str() == "-" {
                let mut t = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)
                    .context("cannot read the result from standard input")?;
                t
            } else {
                std::fs::read_to_string(&file)
                    .with_context(|| format!("cannot read {}", file.display()))?
            };
            match s.enter_battle_result(&id, battle, &text).map_err(e)? {
                Ok(words) => outln!(
                    "battle {battle} settled with the result:\n{words}\nThe turn is played on at the next pass."
                ),
                Err(errors) => {
                    for er in &errors {
                        eprintln!("{}: {er}", file.display());
                    }
                    return Err(anyhow!(
                        "the result of battle {battle} was not taken: {} error(s)",
                        errors.len()
                    ));
                }
            }
        }
        GameCommand::Flag { id, place, off } => {
            outln!("{}", s.flag_place(&id, &place, !off).map_err(e)?);
        }
        GameCommand::Rollback { id, to, why } => {
            super::game::rollback(s, &id, &to, &why, &actor())?
        }
        GameCommand::Preview { id } => super::game::preview(s, &id)?,
        GameCommand::List => {
            let games = store::games(&s.conn)?;
            if games.is_empty() {
                outln!("no games");
            }
            for g in games {
                outln!(
                    "{:<16} {:<9} {:<11} {:<8} turn {:>3} {}  deadline {}{}",
                    g.id,
                    g.scenario,
                    g.mode.as_str(),
                    g.status.as_str(),
                    g.turn_no,
                    g.month,
                    deadline_text(g.deadline),
                    g.result.map(|r| format!("  ({r})")).unwrap_or_default()
                );
            }
        }
        GameCommand::Show { id } => {
            let g = s.game(&id).map_err(e)?;
            let scn = s.scenario(&g.scenario).map_err(e)?;
            let state = s.state_of(&g).map_err(e)?;
            outln!(
                "Game {}: {} ({}), {} turns, {}",
                g.id,
                scn.def.title,
                g.scenario,
                g.mode.as_str(),
                g.status.as_str()
            );
            let optional = state.options.names();
            if !optional.is_empty() {
                outln!("Optional rules: {} (docs/rules.md)", optional.join(", "));
            }
            // A finished game has no open turn: no deadline, no seed.
            match &g.result {
                Some(r) if g.status == Status::Finished => outln!("The game is over. Result: {r}"),
                _ => {
                    outln!(
                        "Turn {} ({}, {}), deadline {}",
                        g.turn_no,
                        g.month,
                        g.turn_kind.as_str(),
                        deadline_text(g.deadline)
                    );
                    outln!("Seed fingerprint of the open turn: {}", g.seed_sha256);
                }
            }
            for p in store::players(&s.conn, &id)? {
                let set = store::latest_order_set(&s.conn, &id, g.turn_no, p.side)?;
                outln!(
                    "  {:<9} {:<30} {}{}{}",
                    p.side.to_string(),
                    match (&p.bot, p.address.is_empty()) {
                        (Some(kind), _) => format!("(programmed player: {kind})"),
                        (None, true) => "(open seat)".to_string(),
                        (None, false) => p.address.clone(),
                    },
                    match set {
                        Some(x) => format!(
                            "orders v{}{}",
                            x.version,
                            if x.ready { " READY" } else { "" }
                        ),
                        None => "no orders".into(),
                    },
                    if p.unreachable { ", unreachable" } else { "" },
                    if p.missed_turns > 0 {
                        format!(", missed {} turns", p.missed_turns)
                    } else {
                        String::new()
                    }
                );
            }
            for t in store::turns(&s.conn, &id)? {
                outln!(
                    "  played turn {}: {} ({})",
                    t.turn_no,
                    t.month,
                    t.turn_kind.as_str()
                );
            }
            super::game::show_more(s, &id)?;
            outln!("Where victory stands:");
            for v in dervish::engine::victory::standing(&scn, &state) {
                outln!("  {v}");
            }
            out!("{}", ascii::overview(&scn, Some(&state)));
        }
        GameCommand::Log { id } => {
            s.game(&id).map_err(e)?;
            for (at, actor, action, detail) in store::audit_log(&s.conn, &id)? {
                outln!("{at}  {actor}  {action}");
                for line in detail.lines() {
                    outln!("    {line}");
                }
            }
        }
        GameCommand::Process { id } => {
            // One transaction from reading the open turn to storing it
            // played, so a daemon's pass cannot play it too.
            let tx = s.begin().map_err(e)?;
            let n = s.play_turn(&id).map_err(e)?;
            store::audit(
                &s.conn,
                s.now(),
                Some(&id),
                &actor(),
                "game process",
                &format!("turn {n} played now"),
            )?;
            tx.commit().map_err(e)?;
            outln!(
                "Turn {n} of {id} played; the results are in the outbox (`dervish run --once` sends them)."
            );
        }
        GameCommand::Extend { id, hours } => {
            let g = s.extend(&id, hours, &actor()).map_err(e)?;
            outln!("Deadline of {id} now {}", deadline_text(g.deadline));
        }
        GameCommand::Replace { id, side, address } => {
            let side = if side == "egyptian" {
                Side::Egyptian
            } else {
                Side::Mahdist
            };
            if dervish::service::games::is_bot(&address) {
                s.replace_with_bot(&id, side, &address, &actor())
                    .map_err(e)?;
                outln!(
                    "The {side} seat of {id} now belongs to the programmed player; its orders for the open turn are in."
                );
            } else {
                s.replace_player(&id, side, &address, &actor()).map_err(e)?;
                outln!(
                    "The {side} seat of {id} now belongs to {address}; a new secret is in their welcome mail."
                );
            }
        }
        GameCommand::Secret { id, side } => {
            let side = if side == "egyptian" {
                Side::Egyptian
            } else {
                Side::Mahdist
            };
            s.reissue_secret(&id, side, &actor()).map_err(e)?;
            outln!(
                "The {side} player of {id} has a new secret, in a new welcome mail; the old one no longer works."
            );
        }
        GameCommand::Observe { id, address } => {
            s.add_observer(&id, &address, &actor()).map_err(e)?;
            outln!("{address} now gets the results of {id}");
        }
        GameCommand::Pause { id } => {
            s.set_paused(&id, true, &actor()).map_err(e)?;
            outln!("{id} paused");
        }
        GameCommand::Resume { id } => {
            let g = s.set_paused(&id, false, &actor()).map_err(e)?;
            outln!("{id} resumed; deadline {}", deadline_text(g.deadline));
            if g.status != Status::Running {
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn verify(cfg: Config, game: &str, month: &str) -> Result<ExitCode> {
    // Every form the orders take: 1884-07, July 1884, Jul 1884.
    let month = dervish::orders::parse::month(month)
        .ok_or_else(|| anyhow!("{month:?} is not a month: write it as 1884-07 or July 1884"))?
        .to_string();
    let s = open_to_read(cfg)?;
    let results = s.verify(game, &month).map_err(|e| anyhow!("{e}"))?;
    let mut ok = true;
    for v in results {
        if v.drift.is_empty() {
            outln!(
                "turn {} ({}, {}): the same result, byte for byte",
                v.turn_no,
                v.month,
                v.kind.as_str()
            );
        } else {
            ok = false;
            outln!(
                "turn {} ({}, {}): DIFFERENT: {}",
                v.turn_no,
                v.month,
                v.kind.as_str(),
                v.drift.join("; ")
            );
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Check the turn records of results mails without the database: every
/// digest, the sealed orders read again, the turn played again; and the
/// chain between records of consecutive turns of one game.
/// What `dervish verify` is given: results mails or turn records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    Mail,
    Record,
}

pub fn verify_from_files(
    data: &DataSet,
    files: &[std::path::PathBuf],
    saved: Saved,
) -> Result<ExitCode> {
    use dervish::service::record::{self, TurnRecord};
    let mut ok = true;
    let mut all: Vec<TurnRecord> = Vec::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| anyhow!("cannot read {}: {e}", f.display()))?;
        let (records, text) = match saved {
            Saved::Mail => {
                let (records, text) = record::from_mail(&bytes)
                    .map_err(|e| anyhow!("{} cannot be checked: {e}", f.display()))?;
                (records, Some(text))
            }
            Saved::Record => {
                let text = String::from_utf8(bytes).map_err(|_| {
                    anyhow!("{} cannot be checked: it is not UTF-8 text", f.display())
                })?;
                let r = TurnRecord::from_json(&text)
                    .map_err(|e| anyhow!("{} cannot be checked: {e}", f.display()))?;
                (vec![r], None)
            }
        };
        for r in records {
            outln!(
                "{}: game {}, turn {} ({}, {})",
                f.display(),
                r.game,
                r.turn_no,
                r.month,
                r.turn_kind
            );
            for c in record::verify(data, &r, text.as_ref()) {
                ok &= c.ok;
                outln!(
                    "  {} {}: {}",
                    if c.ok { "ok       " } else { "DIFFERENT" },
                    c.what,
                    c.detail
                );
            }
            all.push(r);
        }
    }
    all.sort_by(|a, b| (&a.game, a.turn_no).cmp(&(&b.game, b.turn_no)));
    all.dedup_by(|a, b| a.game == b.game && a.turn_no == b.turn_no);
    for w in all.windows(2) {
        for c in record::chain(&w[0], &w[1]) {
            ok &= c.ok;
            outln!(
                "{} {}: {}",
                if c.ok { "ok       " } else { "DIFFERENT" },
                c.what,
                c.detail
            );
        }
    }
    if ok {
        outln!("every check holds: the turns play again byte for byte");
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("some checks fail: these results are not what the turn gives");
        Ok(ExitCode::FAILURE)
    }
}

pub fn replay(cfg: Config, game: &str) -> Result<ExitCode> {
    let s = open_to_read(cfg)?;
    let results = s.replay(game).map_err(|e| anyhow!("{e}"))?;
    let drift: Vec<_> = results.iter().filter(|v| !v.drift.is_empty()).collect();
    outln!("{} turns played again", results.len());
    for v in &drift {
        outln!("turn {} ({}): {}", v.turn_no, v.month, v.drift.join("; "));
    }
    if drift.is_empty() {
        outln!("no drift: every turn plays again byte for byte");
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}

/// `dervish archive`: one game's site, or every game's.
pub fn archive(
    cfg: Config,
    game: Option<&str>,
    all: bool,
    out: &std::path::Path,
) -> Result<ExitCode> {
    let s = open_to_read(cfg)?;
    let built = match (game, all) {
        (Some(id), _) => vec![(
            id.to_string(),
            Ok(s.archive(id, out).map_err(|e| anyhow!("{e}"))?),
        )],
        (None, true) => s.archive_all(out).map_err(|e| anyhow!("{e}"))?,
        (None, false) => return Err(anyhow!("name a game (--game ID) or --all")),
    };
    let mut failed = 0;
    for (id, b) in &built {
        match b {
            Ok(b) => outln!(
                "{}: {} months, {} files, {} KB in {}",
                b.game,
                b.months,
                b.files,
                b.bytes.div_ceil(1024),
                b.dir.display()
            ),
            Err(e) => {
                failed += 1;
                eprintln!("{id}: not archived: {e}");
            }
        }
    }
    outln!("{}", out.join("index.html").display());
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `dervish map --game ID`: what to draw.
pub struct GameMap {
    pub game: String,
    pub month: Option<String>,
    pub after: Option<String>,
    pub around: Option<String>,
    pub radius: i32,
    pub out: Option<std::path::PathBuf>,
    pub width: u32,
}

/// `dervish map --game ID [--month M] [--after SIDE]`: a stored game's map
/// at the end of a month (or after one player turn of it), printed as the
/// results mails print it, or drawn to an SVG or PNG file with the month's
/// marches and battles.
/// The map of a game before its first month is played: the placed
/// set-up, or during the set-up step the default placement (with the
/// Egyptian set-up once sealed), labelled as such.
fn setup_map(s: &Service, g: &dervish::store::GameRow, m: &GameMap) -> Result<ExitCode> {
    use dervish::render::svg;
    let scn = s.scenario(&g.scenario).map_err(|e| anyhow!("{e}"))?;
    let state = s.state_shown(g).map_err(|e| anyhow!("{e}"))?;
    let centre = match &m.around {
        Some(p) => Some(scn.map.resolve(p).map_err(|e| anyhow!("{e}"))?),
        None => None,
    };
    let Some(file) = &m.out else {
        if let Some(label) = Service::setup_label(g) {
            outln!("{label}\n");
        }
        let text = match centre {
            Some(c) => ascii::sector(
                &scn,
                Some(&state),
                ascii::Sector {
                    centre: c,
                    radius: m.radius,
                },
            ),
            None => ascii::overview(&scn, Some(&state)),
        };
        out!("{text}");
        return Ok(ExitCode::SUCCESS);
    };
    let png = super::drawn_as_png(file)?;
    let view = match centre {
        Some(c) => svg::View::around(c, m.radius),
        None => svg::View::theatre(),
    };
    let drawn = svg::map_svg(&scn, Some(&state), &view);
    super::write_drawn_map(file, drawn, png, m.width)
}

pub fn game_map(cfg: Config, m: &GameMap) -> Result<ExitCode> {
    use dervish::render::svg;
    let s = open_to_read(cfg)?;
    let g = s.game(&m.game).map_err(|e| anyhow!("{e}"))?;
    let a = s.archive_data(&g).map_err(|e| anyhow!("{e}"))?;
    let month = match &m.month {
        Some(text) => Some(
            dervish::orders::parse::month(text)
                .ok_or_else(|| {
                    anyhow!("{text:?} is not a month: write it as 1884-07 or July 1884")
                })?
                .to_string(),
        ),
        None => None,
    };
    if month.is_none() && a.months.is_empty() {
        return setup_map(&s, &g, m);
    }
    let Some(mf) = (match &month {
        Some(code) => a.months.iter().find(|x| &x.month == code),
        None => a.months.last(),
    }) else {
        return Err(match month {
            Some(_) if a.months.is_empty() => anyhow!(
                "game {} has no month played yet; without --month the map shows its set-up",
                g.id
            ),
            Some(code) => anyhow!(
                "game {} has no month {code} played; its months are {}",
                g.id,
                a.months
                    .iter()
                    .map(|x| x.month.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => anyhow!("game {} has no month played yet", g.id),
        });
    };
    let pt = match &m.after {
        Some(side) => mf.player_turns.iter().find(|p| &p.side == side).ok_or_else(|| {
            anyhow!(
                "game {} has no {side} player turn in {} (the game ended before it, or it is not played yet)",
                g.id,
                mf.name
            )
        })?,
        None => mf
            .player_turns
            .last()
            .ok_or_else(|| anyhow!("month {} of game {} has no player turn", mf.month, g.id))?,
    };
    let events: Vec<_> = match &m.after {
        Some(_) => pt.events.clone(),
        None => mf
            .player_turns
            .iter()
            .flat_map(|p| p.events.iter().cloned())
            .collect(),
    };
    let centre = match &m.around {
        Some(p) => Some(a.scn.map.resolve(p).map_err(|e| anyhow!("{e}"))?),
        None => None,
    };
    let Some(file) = &m.out else {
        let text = match centre {
            Some(c) => ascii::sector(
                &a.scn,
                Some(&pt.state),
                ascii::Sector {
                    centre: c,
                    radius: m.radius,
                },
            ),
            None => ascii::overview(&a.scn, Some(&pt.state)),
        };
        out!("{text}");
        return Ok(ExitCode::SUCCESS);
    };
    let png = super::drawn_as_png(file)?;
    let view = match centre {
        Some(c) => svg::View::around(c, m.radius),
        None => svg::View::theatre(),
    }
    .with_overlay(&events, None);
    let drawn = svg::map_svg(&a.scn, Some(&pt.state), &view);
    super::write_drawn_map(file, drawn, png, m.width)
}
