//! Whatever an IMAP server answers, reading the inbox ends in messages or
//! an error, never a panic or a hang: a scripted server logs the client in
//! and then answers every command with generated text (garbage, broken
//! literals, odd untagged responses, or a proper answer).

use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use dervish::mail::Inbox;
use dervish::mail::imap::{ImapConfig, ImapInbox};
use proptest::prelude::*;

#[path = "../src/mail/imap_script.rs"]
mod imap_script;

/// One answer to a command, `{tag}` standing for the command's tag.
fn answer() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{tag} OK done\r\n".to_owned()),
        Just("* SEARCH 1 2 3\r\n{tag} OK done\r\n".to_owned()),
        Just("* SEARCH 4294967295 0\r\n{tag} OK done\r\n".to_owned()),
        Just("* 1 FETCH (UID 1 RFC822.SIZE 12)\r\n{tag} OK done\r\n".to_owned()),
        Just("* 1 FETCH (UID 1 BODY[] {5}\r\nHello)\r\n{tag} OK done\r\n".to_owned()),
        Just("* 1 FETCH (UID 1 BODY[] {500}\r\nshort)\r\n{tag} OK done\r\n".to_owned()),
        Just("* 1 FETCH (UID 2 BODY[] NIL)\r\n{tag} OK done\r\n".to_owned()),
        Just("* 3 EXISTS\r\n* 1 EXPUNGE\r\n{tag} OK done\r\n".to_owned()),
        Just("{tag} NO no such thing\r\n".to_owned()),
        Just("{tag} BAD what\r\n".to_owned()),
        Just("* BYE going away\r\n".to_owned()),
        Just("x99 OK wrong tag\r\n".to_owned()),
        Just("* OK [UIDVALIDITY x] broken\r\n{tag} OK done\r\n".to_owned()),
        "[ -~]{0,80}".prop_map(|s| format!("{s}\r\n")),
        "[ -~]{0,40}".prop_map(|s| format!("* {s}\r\n{{tag}} OK done\r\n")),
        proptest::collection::vec(any::<u8>(), 0..120)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

/// Serve one connection: greeting, LOGIN accepted, SELECT answered, then
/// the scripted answers in turn; closes when they run out.
fn serve(listener: TcpListener, answers: Vec<String>) {
    let Ok((tcp, _)) = listener.accept() else {
        return;
    };
    let _ = tcp.set_read_timeout(Some(Duration::from_secs(5)));
    let mut answers = answers.into_iter();
    imap_script::serve(tcp, "* OK ready\r\n", |tag, command, _, _| match command {
        "LOGIN" => Some(format!("{tag} OK in\r\n")),
        "SELECT" => Some(format!(
            "* 2 EXISTS\r\n* OK [UIDVALIDITY 9] v\r\n{tag} OK [READ-WRITE] s\r\n"
        )),
        _ => answers.next().map(|a| a.replace("{tag}", tag)),
    });
}

fn inbox(port: u16, dir: &std::path::Path) -> ImapInbox {
    let pw = dir.join("pw");
    std::fs::write(&pw, "pw").unwrap();
    let cfg: ImapConfig = toml::from_str(&format!(
        "host = \"127.0.0.1\"\nport = {port}\nsecurity = \"none\"\nusername = \"u\"\npassword_file = \"{}\"\ntimeout_secs = 1\n",
        pw.display()
    ))
    .unwrap();
    ImapInbox::new(cfg.settings().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_server_answer_gives_messages_or_an_error(
        answers in proptest::collection::vec(answer(), 1..8),
        cursor in prop_oneof![Just(None), Just(Some("9:1".to_owned())), Just(Some("8:5".to_owned()))],
    ) {
        let dir = std::env::temp_dir().join(format!(
            "dervish-imap-props-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || serve(listener, answers));
        let mut inbox = inbox(port, &dir);
        if let Ok(waiting) = inbox.pending(cursor.as_deref()) {
            for w in waiting.iter().take(3) {
                if let Ok(f) = inbox.read(w, 1000) {
                    prop_assert!(f.size >= f.bytes.len());
                    let _ = inbox.done(w);
                }
            }
        }
        inbox.close();
        drop(inbox);
        let _ = TcpStream::connect(("127.0.0.1", port));
        server.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
