//! The local Maildir: delivery, listing in order, reading and marking
//! messages seen.

use std::fs;
use std::path::PathBuf;

use dervish::mail::maildir::Maildir;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dervish-maildir-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// A new Maildir in a folder of its own, and the folder.
fn maildir(name: &str) -> (PathBuf, Maildir) {
    let root = temp_dir(name);
    let md = Maildir::open(&root).unwrap();
    (root, md)
}

#[test]
fn open_creates_the_folders() {
    let root = temp_dir("open").join("inbox");
    let md = Maildir::open(&root).unwrap();
    assert_eq!(md.root(), root);
    for sub in ["tmp", "new", "cur"] {
        assert!(root.join(sub).is_dir(), "{sub} missing");
    }
    // Opening again is fine.
    Maildir::open(&root).unwrap();
    assert!(md.new_messages().unwrap().is_empty());
    let _ = fs::remove_dir_all(root.parent().unwrap());
}

#[test]
fn deliver_list_read_mark_seen() {
    let (root, md) = maildir("cycle");
    let entry = md
        .deliver(b"Subject: orders\r\n\r\nMARCH 1942 TO 2043\r\n")
        .unwrap();
    assert!(entry.path.starts_with(root.join("new")));
    assert!(!entry.id.starts_with('.'));
    assert!(!entry.id.contains('/') && !entry.id.contains(':'));
    assert_eq!(fs::read_dir(root.join("tmp")).unwrap().count(), 0);

    let listed = md.new_messages().unwrap();
    assert_eq!(listed, vec![entry.clone()]);
    assert_eq!(
        md.read(&listed[0]).unwrap(),
        b"Subject: orders\r\n\r\nMARCH 1942 TO 2043\r\n"
    );

    md.mark_seen(&listed[0]).unwrap();
    assert!(md.new_messages().unwrap().is_empty());
    let seen = root.join("cur").join(format!("{}:2,S", entry.id));
    assert_eq!(
        fs::read(&seen).unwrap(),
        b"Subject: orders\r\n\r\nMARCH 1942 TO 2043\r\n"
    );
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn mark_seen_twice_is_fine() {
    let (root, md) = maildir("twice");
    let entry = md.deliver(b"x").unwrap();
    md.mark_seen(&entry).unwrap();
    md.mark_seen(&entry).unwrap();
    assert_eq!(fs::read_dir(root.join("cur")).unwrap().count(), 1);
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn mark_seen_of_a_message_never_there_fails() {
    let (root, md) = maildir("never");
    let entry = md.deliver(b"x").unwrap();
    fs::remove_file(&entry.path).unwrap();
    assert!(md.mark_seen(&entry).is_err());
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn messages_are_listed_in_delivery_order() {
    let (root, md) = maildir("order");
    let delivered: Vec<_> = (0..25)
        .map(|i| md.deliver(format!("message {i}").as_bytes()).unwrap())
        .collect();
    let listed = md.new_messages().unwrap();
    assert_eq!(listed, delivered);
    for (i, e) in listed.iter().enumerate() {
        assert_eq!(md.read(e).unwrap(), format!("message {i}").as_bytes());
    }
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn names_from_other_agents_sort_by_name() {
    let (root, md) = maildir("foreign");
    fs::write(root.join("new").join("1700000002.M2P2.host"), "second").unwrap();
    fs::write(root.join("new").join("1700000001.M1P1.host"), "first").unwrap();
    let ids: Vec<String> = md
        .new_messages()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["1700000001.M1P1.host", "1700000002.M2P2.host"]);
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn unfinished_and_hidden_files_are_never_listed() {
    let (root, md) = maildir("tmp");
    // A delivery in progress lives in tmp/ until it is complete.
    fs::write(
        root.join("tmp").join("1700000000.1_1.1.host"),
        "half a mess",
    )
    .unwrap();
    // Dot-files and folders in new/ are not messages.
    fs::write(root.join("new").join(".editor-swap"), "junk").unwrap();
    fs::create_dir(root.join("new").join("folder")).unwrap();
    assert!(md.new_messages().unwrap().is_empty());

    let entry = md.deliver(b"whole").unwrap();
    assert_eq!(md.new_messages().unwrap(), vec![entry]);
    // The other deliverer's file is left where it was.
    assert!(root.join("tmp").join("1700000000.1_1.1.host").exists());
    let _ = fs::remove_dir_all(&root);
}

/// An oversized message is never read whole: only its head, with the
/// real size (so a 50 MB mail costs no memory).
#[test]
fn an_oversized_message_is_read_only_in_its_head() {
    use dervish::mail::{HEAD_BYTES, Inbox};
    let (root, mut md) = maildir("oversized");
    let mut raw = b"From: a@example.org\r\nSubject: big\r\n\r\n".to_vec();
    raw.resize(3 << 20, b'x');
    md.deliver(&raw).unwrap();
    let waiting = md.pending(None).unwrap();
    assert_eq!(waiting.len(), 1);
    let f = Inbox::read(&mut md, &waiting[0], 1 << 20).unwrap();
    assert_eq!(f.size, 3 << 20);
    assert_eq!(f.bytes.len(), HEAD_BYTES);
    assert!(f.is_partial());
    // A message within the limit is read whole.
    let f = Inbox::read(&mut md, &waiting[0], 4 << 20).unwrap();
    assert_eq!(f.bytes.len(), 3 << 20);
    // From a stream (standard input): the head kept, the rest counted.
    let (head, size) =
        dervish::mail::read_bounded(&mut std::io::Cursor::new(raw.clone()), 1 << 20).unwrap();
    assert_eq!((head.len(), size), (HEAD_BYTES, 3 << 20));
    let (all, size) = dervish::mail::read_bounded(&mut std::io::Cursor::new(raw), 4 << 20).unwrap();
    assert_eq!((all.len(), size), (3 << 20, 3 << 20));
    let _ = fs::remove_dir_all(&root);
}
