//! Checks on the text the program writes. Included by `mod common` or by
//! `#[path]`.

#![allow(dead_code)]

/// Assert that `text` says each of `wants`: a failure names the words
/// missing and shows the whole text.
#[track_caller]
pub fn says(text: &str, wants: &[&str]) {
    for want in wants {
        assert!(text.contains(want), "{want:?} is missing in:\n{text}");
    }
}
