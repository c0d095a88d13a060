//! Reading incoming mail (`mail::inbound`): real-looking messages in
//! `tests/mail/` (listed in its README), small messages written here for
//! one header or charset each, and property tests that no input makes
//! `read` panic.

use std::fs;
use std::path::{Path, PathBuf};

use dervish::mail::inbound::{BodySource, Inbound, InboundError, Kind, Limits, read};
use proptest::prelude::*;

/// The `X-Loop` value the service puts on its own mail.
const LOOP_ID: &str = "dervish@games.example.net";

fn mail_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("mail")
}

fn sample_names() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(mail_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".eml"))
        .collect();
    names.sort();
    names
}

fn sample(name: &str) -> Vec<u8> {
    fs::read(mail_dir().join(name)).unwrap()
}

fn read_sample(name: &str) -> Inbound {
    read(&sample(name), &Limits::default(), LOOP_ID)
        .unwrap_or_else(|e| panic!("{name} was refused: {e}"))
}

/// A small message: the headers given, then a plain body.
fn message(headers: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Ahmed Arabi <ahmed.arabi@example.com>\r\n\
         To: dervish@games.example.net\r\n\
         Subject: orders\r\n\
         Message-ID: <m1@example.com>\r\n\
         {headers}\r\n\r\n{body}"
    )
    .into_bytes()
}

fn read_bytes(raw: &[u8]) -> Inbound {
    read(raw, &Limits::default(), LOOP_ID).unwrap()
}

// ---------------------------------------------------------------------------
// The corpus

#[test]
fn every_sample_is_listed_in_the_readme_and_read() {
    let readme = fs::read_to_string(mail_dir().join("README.md")).unwrap();
    let names = sample_names();
    assert!(names.len() >= 20, "only {} samples found", names.len());
    for name in &names {
        assert!(readme.contains(name.as_str()), "{name} is not in README.md");
        let inbound = read_sample(name);
        assert_eq!(inbound.size, sample(name).len(), "{name}");
    }
}

#[test]
fn plain_text_message_is_read_as_sent() {
    let m = read_sample("01-plain.eml");
    assert_eq!(
        m.message_id.as_deref(),
        Some("20240312091355.GA4211@laptop.example.com")
    );
    assert_eq!(m.from.as_deref(), Some("ahmed.arabi@example.com"));
    assert_eq!(m.from_name.as_deref(), Some("Ahmed Arabi"));
    assert_eq!(m.return_path.as_deref(), Some("ahmed.arabi@example.com"));
    assert_eq!(m.reply_to, None);
    assert_eq!(m.to, ["dervish@games.example.net"]);
    assert_eq!(m.subject, "khartoum-3 orders for February 1884");
    assert_eq!(m.in_reply_to, None);
    assert!(m.references.is_empty());
    assert_eq!(
        m.date.map(|d| d.to_rfc3339()).as_deref(),
        Some("2024-03-12T09:13:55+00:00")
    );
    assert_eq!(m.body.source, BodySource::Plain);
    assert!(!m.body.flowed && !m.body.delsp);
    assert!(m.body.text.starts_with("GAME khartoum-3\nSIDE Egyptian\n"));
    // Nothing is normalised here: the signature stays for the order parser.
    assert!(m.body.text.ends_with("READY\n\n-- \nAhmed\n"));
    assert!(m.attachments.is_empty());
    assert_eq!(m.kind, Kind::Normal);
    assert_eq!(m.size, 808);
}

#[test]
fn quoted_printable_utf8_keeps_non_breaking_spaces() {
    let m = read_sample("02-qp-utf8-nbsp.eml");
    assert_eq!(m.from_name.as_deref(), Some("Muḥammad Osmān"));
    let text = &m.body.text;
    assert!(text.contains("MARCH STACK Rufa\u{2019}a TO Kamlin\r\n"));
    assert!(text.contains("MARCH\u{a0}STACK Wad Medani"));
    assert!(text.contains("\r\n\u{a0}\u{a0}MARCH STACK Duem TO 1848\u{a0}\r\n"));
    // A soft line break joins the two halves of the line.
    assert!(text.contains("TO 5120 \u{2013} all of them, and the camels too\r\n"));
    assert!(!text.contains('='));
    assert_eq!(
        m.date.map(|d| d.to_rfc3339()).as_deref(),
        Some("2024-03-13T18:02:03+00:00")
    );
}

#[test]
fn declared_iso_8859_1_is_decoded() {
    let m = read_sample("03-latin1-declared.eml");
    assert!(m.body.text.contains("MARCH STACK Omdurmán TO Khartoum\n"));
    assert!(m.body.text.contains("« débarquement »"));
    assert!(m.body.text.contains("Amitiés,"));
    assert_eq!(m.subject, "Ordres période février");
}

#[test]
fn text_without_charset_in_latin1_is_read_as_latin1() {
    let m = read_sample("04-no-charset-latin1.eml");
    assert!(m.body.text.contains("# Grüße an die Flußflotte\n"));
    assert!(!m.body.text.contains('\u{fffd}'));
    // The header had raw Latin-1 bytes too.
    assert_eq!(m.from_name.as_deref(), Some("Klaus Müller"));
}

#[test]
fn text_without_charset_in_utf8_is_read_as_utf8() {
    let raw = message(
        "Content-Type: text/plain",
        "MARCH STACK Omdurmán TO Khartoum — now\n",
    );
    assert_eq!(
        read_bytes(&raw).body.text,
        "MARCH STACK Omdurmán TO Khartoum — now\n"
    );
}

#[test]
fn text_with_a_wrong_charset_is_read_by_its_bytes() {
    // Declared UTF-8, sent as Latin-1.
    let mut raw = message("Content-Type: text/plain; charset=utf-8", "");
    raw.extend_from_slice(b"MARCH STACK Omdurm\xe1n TO Khartoum\n");
    assert_eq!(
        read_bytes(&raw).body.text,
        "MARCH STACK Omdurmán TO Khartoum\n"
    );

    // Declared ASCII (or Latin-1), sent as UTF-8.
    for charset in ["us-ascii", "ISO-8859-1"] {
        let raw = message(
            &format!("Content-Type: text/plain; charset={charset}"),
            "MARCH STACK Omdurmán TO Khartoum\n",
        );
        assert_eq!(
            read_bytes(&raw).body.text,
            "MARCH STACK Omdurmán TO Khartoum\n",
            "{charset}"
        );
    }

    // A charset nobody knows, base64 encoded Latin-1.
    let raw = message(
        "Content-Type: text/plain; charset=x-unheard-of\r\nContent-Transfer-Encoding: base64",
        "T21kdXJt4W4K\r\n",
    );
    assert_eq!(read_bytes(&raw).body.text, "Omdurmán\n");
}

#[test]
fn format_flowed_with_delsp_is_reported_and_left_flowed() {
    let m = read_sample("05-flowed-delsp.eml");
    assert!(m.body.flowed);
    assert!(m.body.delsp);
    assert!(
        m.body
            .text
            .contains("FLEET TO Trinkitat THEN TO \r\nEl Teb\r\n"),
        "the soft line break must be left for the order parser"
    );

    let plain = message("Content-Type: text/plain; format=fixed; delsp=no", "x\n");
    let m = read_bytes(&plain);
    assert!(!m.body.flowed && !m.body.delsp);
    let flowed = message("Content-Type: text/plain; format=flowed", "x \ny\n");
    let m = read_bytes(&flowed);
    assert!(m.body.flowed && !m.body.delsp);
    assert_eq!(m.body.text, "x \ny\n");
}

#[test]
fn multipart_alternative_gives_the_plain_text() {
    let m = read_sample("06-alternative.eml");
    assert_eq!(m.body.source, BodySource::Plain);
    assert_eq!(
        m.body.text,
        "GAME khartoum-3\r\nSIDE Egyptian\r\nMARCH STACK Khartoum TO Omdurman\r\nREADY\r\n"
    );
    assert_eq!(m.from.as_deref(), Some("gordon.player@example.com"));
    assert!(m.attachments.is_empty());
}

#[test]
fn html_only_message_is_converted_to_text() {
    let m = read_sample("07-html-only.eml");
    assert_eq!(m.body.source, BodySource::Html);
    let text = &m.body.text;
    assert!(!text.contains('<') && !text.contains("&amp;"), "{text}");
    assert!(
        text.starts_with("GAME el-obeid-1\nSIDE Egyptian\n"),
        "{text}"
    );
    // Table cells keep their text, one row a line, without borders.
    let row = text
        .lines()
        .find(|l| l.contains("MARCH STACK Duem TO Shatt"))
        .unwrap();
    assert!(row.contains("first"), "{row}");
    assert!(!text.contains('│') && !text.contains('─'), "{text}");
    // <pre> is kept exactly, inner spaces and indentation too.
    assert!(
        text.contains("MARCH UNITS ER01 ER02   WITH Hicks TO 1848\n    RETREAT TOWARDS Duem\n"),
        "{text}"
    );
    // A long line is not wrapped (and the soft break inside it is gone).
    assert!(text.contains(
        "MARCH UNITS EI01 EI02 EI03 EC01 EG01 WITH Hicks TO Shatt THEN TO Aigaiyi THEN TO Alluba THEN TO Kashgil THEN TO El Obeid\n"
    ));
    assert!(text.contains("W. Hicks & staff"));
    assert!(!m.body.flowed);
}

#[test]
fn alternative_with_only_html_is_converted() {
    let raw = message(
        "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"alt\"",
        "--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
         <p>MARCH STACK Duem&nbsp;TO Shatt</p><p>READY</p>\r\n--alt--\r\n",
    );
    let m = read_bytes(&raw);
    assert_eq!(m.body.source, BodySource::Html);
    // One line a paragraph, as the sender wrote them (docs/orders.md).
    assert_eq!(m.body.text, "MARCH STACK Duem\u{a0}TO Shatt\nREADY\n");
}

#[test]
fn message_with_no_text_at_all_has_no_body() {
    let raw = message(
        "MIME-Version: 1.0\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64",
        "iVBORw0KGgo=\r\n",
    );
    let m = read_bytes(&raw);
    assert_eq!(m.body.source, BodySource::None);
    assert_eq!(m.body.text, "");
    assert!(m.attachments.is_empty());
}

#[test]
fn orders_in_a_text_attachment_with_an_empty_body() {
    let m = read_sample("08-attachment-orders.eml");
    assert_eq!(m.body.source, BodySource::Plain);
    assert!(m.body.text.trim().is_empty());
    assert_eq!(m.attachments.len(), 1, "the PDF is not a text attachment");
    let orders = &m.attachments[0];
    assert_eq!(orders.name.as_deref(), Some("orders.txt"));
    assert_eq!(
        orders.text,
        "GAME khartoum-3\r\nSIDE Mahdist\r\nSECRET ansar-7\r\nMARCH STACK El Obeid TO Bara\r\nREADY\r\n"
    );
}

#[test]
fn a_text_part_with_a_file_name_is_an_attachment() {
    let raw = message(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b1",
        "--b1\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n\
         --b1\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\
         Content-Disposition: inline; filename=\"ordres.txt\"\r\n\r\n\
         MARCH STACK Omdurm\u{e1}n TO Khartoum\r\n--b1--\r\n",
    );
    let m = read_bytes(&raw);
    assert_eq!(m.body.text, "See attached.");
    assert_eq!(m.attachments.len(), 1);
    assert_eq!(m.attachments[0].name.as_deref(), Some("ordres.txt"));
    assert_eq!(m.attachments[0].text, "MARCH STACK Omdurmán TO Khartoum");
}

#[test]
fn rfc2047_encoded_subject_and_name_are_decoded() {
    let m = read_sample("09-encoded-subject.eml");
    assert_eq!(m.subject, "Orders – Suakin – février 1884 ✓");
    assert_eq!(m.from_name.as_deref(), Some("Osman Digna Pachá"));
    assert_eq!(m.from.as_deref(), Some("o.pasha@example.com.eg"));
}

#[test]
fn message_without_subject_has_an_empty_one() {
    let raw = b"From: a@example.com\r\nTo: dervish@games.example.net\r\n\r\nREADY\r\n";
    let m = read_bytes(raw);
    assert_eq!(m.subject, "");
    assert_eq!(m.message_id, None);
    assert_eq!(m.date, None);
    assert_eq!(m.body.text, "READY\r\n");
}

#[test]
fn gmail_reply_carries_its_thread() {
    let m = read_sample("10-gmail-reply.eml");
    assert_eq!(
        m.in_reply_to.as_deref(),
        Some("receipt-khartoum-3-1884-02-egyptian@games.example.net")
    );
    assert_eq!(
        m.references,
        [
            "turn-khartoum-3-1884-02@games.example.net",
            "receipt-khartoum-3-1884-02-egyptian@games.example.net"
        ]
    );
    assert_eq!(m.reply_to.as_deref(), Some("gordon.orders@example.com"));
    assert_eq!(m.body.source, BodySource::Plain);
    assert!(m.body.text.contains("MARCH STACK Khartoum TO Halfaya\r\n"));
    assert!(
        m.body
            .text
            .contains("> 1. MARCH STACK Khartoum TO Omdurman — accepted")
    );
    assert_eq!(m.kind, Kind::Normal);
}

// ---------------------------------------------------------------------------
// Kinds of message

fn reason(kind: &Kind) -> &str {
    match kind {
        Kind::Automatic { reason } => reason,
        other => panic!("expected Automatic, got {other:?}"),
    }
}

#[test]
fn auto_submitted_auto_reply_is_automatic() {
    let m = read_sample("11-auto-replied.eml");
    assert_eq!(reason(&m.kind), "Auto-Submitted: auto-replied");
    assert_eq!(m.return_path.as_deref(), Some(""));
}

#[test]
fn vacation_notice_with_precedence_bulk_is_automatic() {
    let m = read_sample("12-vacation-bulk.eml");
    assert_eq!(reason(&m.kind), "Precedence: bulk");
    assert_eq!(m.from.as_deref(), Some("j.stewart@example.org"));
    assert_eq!(m.from_name, None);
}

#[test]
fn mailing_list_message_is_automatic() {
    let m = read_sample("13-mailing-list.eml");
    assert!(reason(&m.kind).starts_with("mailing list"), "{:?}", m.kind);
    assert_eq!(m.to, ["dervish-players@lists.example.org"]);
}

#[test]
fn each_automatic_header_is_recognised() {
    let cases: &[(&str, Option<&str>)] = &[
        ("Auto-Submitted: auto-generated", Some("Auto-Submitted")),
        (
            "Auto-Submitted: auto-notified; owner-email=\"x@example.com\"",
            Some("Auto-Submitted"),
        ),
        ("Auto-Submitted: no", None),
        ("Auto-Submitted: No (a person wrote this)", None),
        ("Precedence: list", Some("Precedence")),
        ("Precedence: JUNK", Some("Precedence")),
        ("Precedence: auto_reply", Some("Precedence")),
        ("Precedence: first-class", None),
        ("X-Autoreply: yes", Some("X-Autoreply")),
        ("X-Autorespond: Out of office", Some("X-Autorespond")),
        (
            "X-Auto-Response-Suppress: All",
            Some("X-Auto-Response-Suppress"),
        ),
        (
            "X-Auto-Response-Suppress: DR, OOF",
            Some("X-Auto-Response-Suppress"),
        ),
        (
            "X-Auto-Response-Suppress: autoreply",
            Some("X-Auto-Response-Suppress"),
        ),
        ("X-Auto-Response-Suppress: DR, RN, NRN", None),
        (
            "List-Id: <dervish-players.lists.example.org>",
            Some("mailing list"),
        ),
        (
            "List-Unsubscribe: <mailto:leave@lists.example.org>",
            Some("mailing list"),
        ),
        (
            "Content-Type: multipart/report; report-type=disposition-notification; boundary=x",
            Some("report"),
        ),
        ("X-Mailer: Mutt", None),
    ];
    for &(header, expected) in cases {
        let kind = read_bytes(&message(header, "hello\r\n")).kind;
        match expected {
            Some(start) => assert!(reason(&kind).starts_with(start), "{header}: {kind:?}"),
            None => assert_eq!(kind, Kind::Normal, "{header}"),
        }
    }
}

#[test]
fn our_own_mail_come_back_is_a_loop() {
    let raw = sample("14-loop.eml");
    let m = read(&raw, &Limits::default(), LOOP_ID).unwrap();
    assert_eq!(m.kind, Kind::Loop);
    // Matched case-insensitively and trimmed, on both sides.
    let m = read(&raw, &Limits::default(), "  DERVISH@games.example.NET ").unwrap();
    assert_eq!(m.kind, Kind::Loop);
    // Another service's loop id, or none, is not ours.
    let m = read(&raw, &Limits::default(), "other@games.example.net").unwrap();
    assert_eq!(m.kind, Kind::Normal);
    let m = read(&raw, &Limits::default(), "").unwrap();
    assert_eq!(m.kind, Kind::Normal);
}

#[test]
fn loop_is_checked_before_bounce_and_automatic() {
    let raw = message(
        "Auto-Submitted: auto-replied\r\nPrecedence: bulk\r\nX-Loop: <dervish@games.example.net>",
        "hello\r\n",
    );
    assert_eq!(read_bytes(&raw).kind, Kind::Loop);
}

#[test]
fn postfix_delivery_report_is_a_bounce() {
    let m = read_sample("15-postfix-bounce.eml");
    assert_eq!(
        m.kind,
        Kind::Bounce {
            original_message_id: Some(
                "turn-khartoum-3-1884-03-mahdist@games.example.net".to_string()
            ),
            failed_recipient: Some("old.player@example.com".to_string()),
        },
        "a bounce, though it says Auto-Submitted and the returned headers carry our X-Loop"
    );
    assert_eq!(m.return_path.as_deref(), Some(""));
    assert_eq!(m.from.as_deref(), Some("mailer-daemon@games.example.net"));
    assert_eq!(m.body.source, BodySource::Plain);
    assert!(m.body.text.starts_with("This is the mail system"));
}

#[test]
fn mailer_daemon_bounce_with_null_return_path_is_a_bounce() {
    let m = read_sample("16-mailer-daemon-bounce.eml");
    assert_eq!(
        m.kind,
        Kind::Bounce {
            // From the returned copy in the text, folded over two lines.
            original_message_id: Some(
                "turn-khartoum-3-1884-03-egyptian@games.example.net".to_string()
            ),
            // From Exim's X-Failed-Recipients, lower-cased.
            failed_recipient: Some("lost.soul@example.org".to_string()),
        }
    );
}

#[test]
fn delivery_report_with_the_returned_message_is_a_bounce() {
    let m = read_sample("17-report-rfc822-bounce.eml");
    assert_eq!(
        m.kind,
        Kind::Bounce {
            original_message_id: Some(
                "receipt-khartoum-3-1884-03-mahdist@games.example.net".to_string()
            ),
            failed_recipient: Some("gone.player@example.com".to_string()),
        }
    );
    assert_eq!(m.body.source, BodySource::Plain);
    assert!(m.body.text.starts_with("** Address not found **"));
}

#[test]
fn delay_warning_is_not_a_bounce() {
    let m = read_sample("21-postfix-delay-warning.eml");
    assert_eq!(reason(&m.kind), "delivery report (delayed)");
}

#[test]
fn mailer_daemon_needs_the_null_return_path() {
    let from_daemon = "From: MAILER-DAEMON@example.org\r\nSubject: hello\r\n";
    let with_path = format!("Return-Path: <someone@example.org>\r\n{from_daemon}\r\nhi\r\n");
    assert_eq!(read_bytes(with_path.as_bytes()).kind, Kind::Normal);
    let null = "Return-Path: <>\r\nFrom: Postmaster <postmaster@example.org>\r\n\r\n\
                Your message to <x@example.org> was not delivered.\r\n";
    assert_eq!(
        read_bytes(null.as_bytes()).kind,
        Kind::Bounce {
            original_message_id: None,
            failed_recipient: None
        }
    );
}

// ---------------------------------------------------------------------------
// Broken and refused input

#[test]
fn multipart_without_a_boundary_still_gives_its_text() {
    let m = read_sample("18-malformed-no-boundary.eml");
    assert_eq!(m.body.source, BodySource::Plain);
    assert!(
        m.body
            .text
            .contains("MARCH STACK Berber TO Shendi\nREADY\n"),
        "{:?}",
        m.body
    );
}

#[test]
fn unterminated_multipart_still_gives_its_text() {
    let m = read_sample("19-malformed-unterminated.eml");
    assert_eq!(m.body.source, BodySource::Plain);
    assert_eq!(
        m.body.text,
        "GAME khartoum-3\nSIDE Egyptian\nMARCH STACK Suakin TO Tokar\nREADY\n"
    );
    // Cut inside the first part: what is there is still read.
    let raw = sample("19-malformed-unterminated.eml");
    let cut = raw.windows(6).position(|w| w == b"Suakin").unwrap();
    let m = read_bytes(&raw[..cut]);
    assert!(m.body.text.contains("MARCH STACK "), "{:?}", m.body);
}

#[test]
fn message_without_message_id() {
    let m = read_sample("20-no-message-id.eml");
    assert_eq!(m.message_id, None);
    assert_eq!(m.from.as_deref(), Some("old.script@example.com"));
    assert_eq!(m.body.text, "GAME el-obeid-1\nSIDE Mahdist\nREADY\n");
    assert_eq!(m.kind, Kind::Normal);
}

#[test]
fn message_over_the_size_limit_is_refused_unread() {
    let raw = sample("01-plain.eml");
    let limits = Limits { max_bytes: 800 };
    let err = read(&raw, &limits, LOOP_ID).unwrap_err();
    assert_eq!(
        err,
        InboundError::TooLarge {
            size: 808,
            limit: 800
        }
    );
    let text = err.to_string();
    assert!(text.contains("808") && text.contains("800"), "{text}");
    // Exactly at the limit is read.
    assert!(read(&raw, &Limits { max_bytes: 808 }, LOOP_ID).is_ok());

    // The default is 1 MiB.
    assert_eq!(Limits::default().max_bytes, 1024 * 1024);
    let mut big = message("", "");
    big.resize(Limits::default().max_bytes + 1, b'x');
    assert!(matches!(
        read(&big, &Limits::default(), LOOP_ID),
        Err(InboundError::TooLarge { .. })
    ));
}

#[test]
fn empty_input_is_unparseable() {
    for raw in [&b""[..], b"\r\n", b"\n\n \t\n"] {
        let err = read(raw, &Limits::default(), LOOP_ID).unwrap_err();
        assert!(matches!(err, InboundError::Unparseable(_)), "{raw:?}");
        assert!(err.to_string().starts_with("not a mail message"), "{err}");
    }
}

#[test]
fn random_garbage_never_panics() {
    // A fixed xorshift stream, so the test is the same on every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..200 {
        let len = (next() % 4096) as usize;
        let raw: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        match read(&raw, &Limits::default(), LOOP_ID) {
            Ok(m) => assert_eq!(m.size, len, "round {round}"),
            Err(InboundError::Unparseable(reason)) => {
                assert!(!reason.contains("parser failed"), "round {round}")
            }
            Err(e) => panic!("round {round}: {e}"),
        }
    }
    // Binary with no header at all.
    let err = read(b"\x00\xff\xfe\x01\x02\x03", &Limits::default(), LOOP_ID).unwrap_err();
    assert!(matches!(err, InboundError::Unparseable(_)), "{err}");
}

// ---------------------------------------------------------------------------
// Properties

/// One change to a sample message.
#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Pieces of MIME syntax, so that changes reach the parser's corners.
    let piece = prop_oneof![
        Just(b"\r\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"--".to_vec()),
        Just(b"=".to_vec()),
        Just(b"=?utf-8?b?".to_vec()),
        Just(b"?=".to_vec()),
        Just(b"\r\nContent-Type: multipart/mixed; boundary=".to_vec()),
        Just(b"\r\nContent-Type: message/rfc822\r\n\r\n".to_vec()),
        Just(b"\r\nContent-Transfer-Encoding: base64\r\n".to_vec()),
        Just(b"\r\nContent-Transfer-Encoding: quoted-printable\r\n".to_vec()),
        Just(b"<pre><table><tr><td>".to_vec()),
        prop::collection::vec(any::<u8>(), 1..16),
    ];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), piece).prop_map(|(i, p)| Mutation::Insert(i, p)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut raw: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = raw.len().max(1);
        match m {
            Mutation::Set(i, b) => {
                if let Some(byte) = raw.get_mut(i % len) {
                    *byte = *b;
                }
            }
            Mutation::Insert(i, piece) => {
                let at = i % (raw.len() + 1);
                raw.splice(at..at, piece.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(raw.len());
                if at < end {
                    raw.drain(at..end);
                }
            }
            Mutation::Truncate(i) => raw.truncate(i % len),
        }
    }
    raw
}

fn check_never_panics(raw: &[u8]) -> Result<(), TestCaseError> {
    match read(raw, &Limits::default(), LOOP_ID) {
        Ok(m) => prop_assert_eq!(m.size, raw.len()),
        // `read` turns a panic in the parsers into this refusal; it must
        // not happen at all.
        Err(InboundError::Unparseable(reason)) => {
            prop_assert!(!reason.contains("parser failed"), "a parser panicked")
        }
        Err(e) => prop_assert!(false, "unexpected error: {}", e),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn read_never_panics_on_arbitrary_bytes(raw in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_never_panics(&raw)?;
    }

    #[test]
    fn read_never_panics_on_mutated_samples(
        which in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..12),
    ) {
        let names = sample_names();
        let raw = sample(&names[which.index(names.len())]);
        check_never_panics(&mutate(raw, &mutations))?;
    }

    #[test]
    fn size_limit_is_checked_before_parsing(
        raw in prop::collection::vec(any::<u8>(), 1..512),
        limit in 0usize..512,
    ) {
        let result = read(&raw, &Limits { max_bytes: limit }, LOOP_ID);
        if raw.len() > limit {
            prop_assert_eq!(result, Err(InboundError::TooLarge { size: raw.len(), limit }));
        } else {
            let too_large = matches!(result, Err(InboundError::TooLarge { .. }));
            prop_assert!(!too_large, "refused as too large at {} bytes", raw.len());
        }
    }
}

/// mail-parser 0.11 trips a debug assertion on a message/rfc822 part whose
/// own body is declared message/rfc822 again; the message is then read
/// with its headers only, the rest as plain text.
#[test]
fn nested_message_parts_that_trip_the_parser_still_give_text() {
    let raw = sample("17-report-rfc822-bounce.eml");
    let part = b"Content-Type: message/rfc822\r\n";
    let at = raw.windows(part.len()).position(|w| w == part).unwrap() + part.len();
    let mut broken = raw.clone();
    broken.splice(
        at..at,
        b"\r\nContent-Type: message/rfc822\r\n\r\n".iter().copied(),
    );
    let m = read_bytes(&broken);
    assert_eq!(m.subject, "Delivery Status Notification (Failure)");
    assert!(matches!(m.kind, Kind::Bounce { .. }), "{:?}", m.kind);
    assert!(m.body.text.contains("Address not found"), "{:?}", m.body);
}
