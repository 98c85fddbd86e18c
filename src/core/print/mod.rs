//! Print mode (`umbel -p`) as the real CLIs' own print modes behave: how piped stdin joins the
//! prompt, and what their JSON outputs hold.

pub mod stats;
pub mod stdin;
pub mod stream;
