//! Outgoing mail: building messages and sending them.
