//! From the text of an email to the lines that may hold orders: what a
//! mail client adds around a player's words is dropped here, so the
//! parser sees only what the player wrote.

/// The first line of every report and receipt Dervish sends. A reply that
/// quotes one without `>` markers is cut there.
pub const REPORT_MARKER: &str = "=== Dervish";

/// Bytes of body text read at most (64 KiB), after the message is decoded
/// and attachments are set aside; longer text is refused. The whole
/// message as sent has its own, larger limit (`[limits]
/// max_message_bytes`, 1024 KiB by default); `docs/orders.md` gives both.
pub const MAX_BYTES: usize = 64 * 1024;

/// Order lines read at most, after quotes and signatures are dropped.
pub const MAX_LINES: usize = 500;

/// Why a message was not read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "the text of the message is {} KiB long; orders are read from at most {} KiB of text. Send the orders alone, without attachments or a long quoted report", .0.div_ceil(1024), MAX_BYTES / 1024
    )]
    TooLong(usize),
    #[error(
        "the message has {0} lines of orders; at most {MAX_LINES} are read. Send the orders alone, without a quoted report"
    )]
    TooManyLines(usize),
}

/// One line of text kept for the parser, with its line number (from 1)
/// in the message as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    pub number: usize,
    pub text: String,
}

/// Normalise characters mail clients substitute: non-breaking and other
/// odd spaces become spaces, smart quotes and dashes their ASCII forms,
/// zero-width characters and byte-order marks go.
pub fn normalise_chars(s: &str) -> String {
    // Printable ASCII (most lines of most mails) has nothing to change.
    if s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\t' => {
                out.push(' ')
            }
            '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}' => {}
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => out.push('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => out.push('"'),
            '\u{2010}'..='\u{2015}' | '\u{2212}' => out.push('-'),
            '\u{2192}' => out.push_str("->"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Undo format=flowed (RFC 3676): a line ending in a space continues on
/// the next; a leading space added for "stuffing" goes. With `delsp`, the
/// trailing space of a soft break is deleted too. Returns each logical
/// line with the number of its first physical line.
fn unflow(lines: &[(usize, &str)], delsp: bool) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for &(n, raw) in lines {
        // Quoted lines and the signature separator are never joined.
        let line = raw.strip_prefix(' ').unwrap_or(raw);
        let soft = line.ends_with(' ') && line != "-- " && !line.starts_with('>');
        let piece = if soft && delsp {
            &line[..line.len() - 1]
        } else {
            line
        };
        match out.last_mut() {
            Some((_, text)) if open => text.push_str(piece),
            _ => out.push((n, piece.to_string())),
        }
        open = soft;
    }
    out
}

/// Whether a line opens a quoted copy of an earlier message (the
/// attribution line of a reply, an Outlook or forwarded header block).
fn opens_quote(line: &str) -> bool {
    let l = line.trim();
    let lower = l.to_lowercase();
    (lower.starts_with("on ") && lower.ends_with("wrote:"))
        || (lower.starts_with("am ") && lower.ends_with("schrieb:"))
        || (lower.starts_with("le ") && lower.ends_with("a écrit :"))
        || (lower.starts_with("le ") && lower.ends_with("a écrit:"))
        || lower.starts_with("-----original message-----")
        || lower.starts_with("-------- original message --------")
        || lower.starts_with("---------- forwarded message")
        || lower.starts_with("-------- forwarded message")
        || lower.starts_with("begin forwarded message:")
        || (l.len() >= 20 && l.chars().all(|c| c == '_'))
        || l.starts_with(REPORT_MARKER)
}

/// Whether a line is a mail client's footer ("Sent from my iPhone").
fn is_footer(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    const FOOTERS: [&str; 8] = [
        "sent from my ",
        "sent from mail for windows",
        "sent from yahoo mail",
        "sent from outlook",
        "get outlook for ",
        "sent with proton mail",
        "sent from proton mail",
        "sent via ",
    ];
    FOOTERS.iter().any(|f| lower.starts_with(f))
}

/// Whether an attribution line that a client wrapped over two lines
/// starts here ("On Mon, 3 Mar 1884 at 10:02, Gordon <g@example.org>"
/// followed by "wrote:").
fn wrapped_attribution(line: &str, next: Option<&str>) -> bool {
    let lower = line.trim().to_lowercase();
    lower.starts_with("on ")
        && next.is_some_and(|n| {
            let n = n.trim().to_lowercase();
            n.ends_with("wrote:") && n.split_whitespace().count() <= 4
        })
}

/// A PGP clearsigned message (RFC 4880 7.1) as a mail reader shows it:
/// the `-----BEGIN PGP SIGNED MESSAGE-----` line and the armour headers
/// after it (`Hash: SHA256`) up to the first blank line go, the signature
/// block from `-----BEGIN PGP SIGNATURE-----` to
/// `-----END PGP SIGNATURE-----` goes, and dash-escaped lines in between
/// (`- ` before a line that began with a dash) lose their escape. Lines
/// keep their numbers in the message as sent. The signature is not
/// checked: the secret identifies the player.
fn unarmour(lines: Vec<(usize, &str)>) -> Vec<(usize, &str)> {
    const BEGIN: &str = "-----BEGIN PGP SIGNED MESSAGE-----";
    const SIGNATURE: &str = "-----BEGIN PGP SIGNATURE-----";
    const END: &str = "-----END PGP SIGNATURE-----";
    if !lines.iter().any(|(_, l)| l.trim() == BEGIN) {
        return lines;
    }
    #[derive(PartialEq)]
    enum At {
        Outside,
        Headers,
        Text,
        Signature,
    }
    let mut at = At::Outside;
    let mut out = Vec::with_capacity(lines.len());
    for (n, line) in lines {
        let t = line.trim();
        match at {
            At::Outside if t == BEGIN => at = At::Headers,
            At::Outside => out.push((n, line)),
            At::Headers if t.is_empty() => at = At::Text,
            At::Headers => {}
            At::Text if t == SIGNATURE => at = At::Signature,
            At::Text => out.push((n, line.strip_prefix("- ").unwrap_or(line))),
            At::Signature if t == END => at = At::Outside,
            At::Signature => {}
        }
    }
    out
}

/// The lines of a message that may hold orders, each with its number in
/// the message: line endings and odd characters normalised, format=flowed
/// joined, and everything dropped that is not the player's own text:
/// quoted lines (`>`), quoted copies of earlier mail and of Dervish's own
/// reports, the signature after `-- `, client footers, comments after `#`,
/// and everything after an `END` line.
pub fn order_lines(text: &str, flowed: bool, delsp: bool) -> Result<Vec<SourceLine>, Refusal> {
    if text.len() > MAX_BYTES {
        return Err(Refusal::TooLong(text.len()));
    }
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    let physical: Vec<(usize, &str)> = unarmour(
        unified
            .split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .collect(),
    );
    let logical: Vec<(usize, String)> = if flowed {
        unflow(&physical, delsp)
    } else {
        physical.iter().map(|&(n, l)| (n, l.to_string())).collect()
    };
    let mut out = Vec::new();
    let mut in_quote = false;
    for (i, (n, raw)) in logical.iter().enumerate() {
        let line = normalise_chars(raw);
        let trimmed = line.trim();
        if raw.trim_end_matches(' ') == "--" || raw == "-- " {
            break;
        }
        if trimmed.starts_with('>') || trimmed.starts_with('|') && in_quote {
            continue;
        }
        let next = logical.get(i + 1).map(|(_, l)| l.as_str());
        if opens_quote(trimmed) {
            // A forwarded or quoted copy: the rest of the message is not
            // the player's, except lines after an attribution that are
            // not quoted (a reply written below the quote).
            if trimmed.starts_with(REPORT_MARKER)
                || trimmed.to_lowercase().contains("original message")
                || trimmed.to_lowercase().contains("forwarded message")
                || trimmed.chars().all(|c| c == '_')
            {
                break;
            }
            in_quote = true;
            continue;
        }
        if wrapped_attribution(trimmed, next) {
            in_quote = true;
            continue;
        }
        if in_quote
            && logical
                .get(i.wrapping_sub(1))
                .is_some_and(|(_, p)| wrapped_attribution(p.trim(), Some(trimmed)))
        {
            continue;
        }
        if is_footer(trimmed) {
            continue;
        }
        let code = match trimmed.find('#') {
            Some(at) => trimmed[..at].trim_end(),
            None => trimmed,
        };
        if code.eq_ignore_ascii_case("end") || code.eq_ignore_ascii_case("end.") {
            break;
        }
        if code.is_empty() {
            continue;
        }
        in_quote = false;
        out.push(SourceLine {
            number: *n,
            text: code.to_string(),
        });
    }
    if out.len() > MAX_LINES {
        return Err(Refusal::TooManyLines(out.len()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        order_lines(s, false, false)
            .unwrap()
            .into_iter()
            .map(|l| l.text)
            .collect()
    }

    #[test]
    fn quoted_lines_signatures_and_end_are_dropped() {
        let mail = "MARCH Khartoum TO Omdurman\r\n\r\n> MARCH old order\r\nEND\r\nnot read\r\n";
        assert_eq!(texts(mail), ["MARCH Khartoum TO Omdurman"]);
        let mail = "READY # all done\n-- \nGordon\nMARCH x";
        assert_eq!(texts(mail), ["READY"]);
    }

    #[test]
    fn a_reply_below_the_quote_is_read() {
        let mail = "On Mon, 3 Mar 1884, Dervish <host@example.org> wrote:\n> === Dervish\n> old\nMARCH Berber TO Abou Hamed\n";
        assert_eq!(texts(mail), ["MARCH Berber TO Abou Hamed"]);
        let wrapped =
            "On Mon, 3 Mar 1884 at 10:02, Dervish <host@example.org>\nwrote:\n> x\nREADY\n";
        assert_eq!(texts(wrapped), ["READY"]);
    }

    #[test]
    fn an_unmarked_copy_of_a_report_ends_the_orders() {
        let mail = "READY\n=== Dervish khartoum-3: February 1884 results\nMARCH something\n";
        assert_eq!(texts(mail), ["READY"]);
        let outlook = "READY\n-----Original Message-----\nFrom: x\n";
        assert_eq!(texts(outlook), ["READY"]);
    }

    #[test]
    fn odd_characters_become_plain() {
        let mail =
            "MARCH\u{00A0}Khartoum \u{201C}TO\u{201D}\u{2003}Omdurman  \t\nSent from my iPhone\n";
        assert_eq!(texts(mail), ["MARCH Khartoum \"TO\" Omdurman"]);
    }

    #[test]
    fn pgp_clearsign_armour_is_taken_off_and_lines_keep_their_numbers() {
        let mail = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nMARCH STACK Tokar TO El Teb\n- -- not a signature\nREADY\n-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n";
        let lines = order_lines(mail, false, false).unwrap();
        let got: Vec<(usize, &str)> = lines.iter().map(|l| (l.number, l.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (4, "MARCH STACK Tokar TO El Teb"),
                (5, "-- not a signature"),
                (6, "READY")
            ]
        );
    }

    #[test]
    fn format_flowed_soft_breaks_are_joined() {
        let mail = "MARCH Khartoum TO \n Omdurman\nREADY\n";
        let lines = order_lines(mail, true, false).unwrap();
        assert_eq!(lines[0].text, "MARCH Khartoum TO Omdurman");
        assert_eq!(lines[0].number, 1);
        assert_eq!(lines[1].number, 3);
        let delsp = order_lines("MARCH Khar \ntoum\n", true, true).unwrap();
        assert_eq!(delsp[0].text, "MARCH Khartoum");
    }

    #[test]
    fn too_much_text_is_refused() {
        let big = "x".repeat(MAX_BYTES + 1);
        assert_eq!(
            order_lines(&big, false, false),
            Err(Refusal::TooLong(MAX_BYTES + 1))
        );
        let many = "READY\n".repeat(MAX_LINES + 1);
        assert_eq!(
            order_lines(&many, false, false),
            Err(Refusal::TooManyLines(MAX_LINES + 1))
        );
    }
}
