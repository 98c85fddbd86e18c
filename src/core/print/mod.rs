//! Print mode (`umbel -p`) as the real CLIs' own print modes behave: how piped stdin joins the
//! prompt, and what their JSON outputs hold.

pub mod codex_items;
pub mod shape;
pub mod stats;
pub mod stdin;
pub mod stream;
