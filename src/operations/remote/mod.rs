//! Workers on other hosts: every verb on such a worker is the same verb run by the umbel on its
//! host (`ssh HOST umbel remote-exec`, the request on the channel's stdin); the local state
//! keeps only `remote/<name>.json` (the host). See docs/remote.md.

pub mod anywhere;
pub mod conversation;
pub mod doctor;
pub mod fleet;
pub mod forward;
pub mod guard;
pub mod inspect;
pub mod output_file;
pub mod records;
pub mod verbs;

pub use forward::{Forwarded, forward};
pub use records::{find, list};
