//! Deterministic fakes of the agent CLIs umbel drives.
//!
//! The binaries (`fake-claude`, `fake-codex`, `fake-gemini`, `fake-qwen`,
//! `fake-opencode`, `fake-copilot`) run in a
//! real tmux pane and behave, at every point umbel touches, like the real
//! CLIs: screens, keys, hooks, transcripts, print mode. Their timelines are
//! data ([`scenario`]), and every id and timestamp is derived ([`ids`],
//! [`clock`]), so a scenario always produces the same bytes.
//!
//! The shared fake engine is [`engine`] (entry point, TUI shell, event loop,
//! turn timeline); the provider-neutral pieces it uses: [`args`], [`clock`],
//! [`hooks`], [`ids`], [`input`], [`json`], [`jsonl`], [`keys`], [`record`],
//! [`scenario`], [`screen`], [`selfkill`], [`sha256`], [`stream`], [`term`].
//! Provider specifics (screens, dialogs, record formats, each as data or a
//! small trait impl) live in [`claude`], [`codex`], [`copilot`], [`gemini`] (and its flavour
//! [`qwen`]) and [`opencode`].
//! `docs/simulator.md` describes the scenario format and the env vars.

pub mod args;
pub mod claude;
pub mod clock;
pub mod codex;
pub mod copilot;
pub mod engine;
#[cfg(test)]
pub mod fixtures;
pub mod gemini;
pub mod hooks;
pub mod ids;
pub mod input;
pub mod json;
pub mod jsonl;
pub mod keys;
pub mod model;
pub mod opencode;
pub mod qwen;
pub mod record;
pub mod release;
pub mod scenario;
pub mod screen;
pub mod selfkill;
pub mod sha256;
pub mod stream;
pub mod term;
