//! Mail at the edges of the service: reading incoming messages
//! (`inbound`), building and sending outgoing ones (`outbound`), and the
//! local Maildir the embedded default reads from (`maildir`). Nothing here
//! knows about games; the service decides what a message means.

pub mod inbound;
pub mod maildir;
pub mod outbound;
