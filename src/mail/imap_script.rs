//! A scripted IMAP server for tests: it greets the client, then answers
//! each command line as the test says. The library's tests and
//! `tests/imap_props.rs` (by `#[path]`) both use it.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

/// Greet the client on `tcp` with `greeting`, then read its commands a
/// line at a time and write what `answer(tag, command, line, tcp)` makes
/// of each (`command` upper-cased, `line` the whole line). It returns when
/// `answer` gives `None`, the client closes the connection or a read or
/// write fails.
pub fn serve(
    mut tcp: TcpStream,
    greeting: &str,
    mut answer: impl FnMut(&str, &str, &str, &mut TcpStream) -> Option<String>,
) {
    if tcp.write_all(greeting.as_bytes()).is_err() {
        return;
    }
    let Ok(clone) = tcp.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(clone);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut words = line.split_whitespace();
        let tag = words.next().unwrap_or("*").to_owned();
        let command = words.next().unwrap_or("").to_uppercase();
        let Some(reply) = answer(&tag, &command, &line, &mut tcp) else {
            return;
        };
        if tcp.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}
