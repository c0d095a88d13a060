//! A local Maildir: the embedded default inbox.
