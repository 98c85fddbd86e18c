//! The fake engine the three fakes share.
//!
//! Everything that is the same for fake-claude, fake-codex and fake-gemini
//! lives here once; each provider plugs in its screens, dialogs and record
//! formats through small trait impls:
//!
//! - [`dialog`]: the startup screens' key loop and the yes/no trust dialog as data.
//! - [`entry`]: the binary's `main` (argv recording, exit status, error line).
//! - [`host`]: what the engine needs of a provider's session ([`host::Host`]:
//!   hooks, transcript writes, prompt recording, the first fatal error).
//! - [`timeline`]: one turn's skeleton (delay → stream → ending), driven by
//!   [`timeline::tick`] for any [`timeline::Timeline`].
//! - [`menu`]: tool-dialog keys as data ([`menu::Menu`]).
//! - [`picker`]: a `/model` picker's numbered rows, cursor and keys ([`picker::Picker`]).
//! - [`ask`]: the question tools' dialog as data ([`ask::Asking`]: questions, answers, keys).
//! - [`headless`]: one turn played without a terminal (the print modes).
//! - [`event_loop`]: the interactive main loop (input, deadlines, Esc, Ctrl-C).
//! - [`shell`]: the interactive program around it ([`shell::Shell`]: input
//!   editing, paste, the prompt queue, submit, turn endings), with the
//!   provider's screen as a [`shell::Face`].
//! - [`tool`]: the fake tool output (nothing is ever executed).

pub mod ask;
pub mod dialog;
pub mod entry;
pub mod event_loop;
pub mod headless;
pub mod host;
pub mod menu;
pub mod picker;
pub mod shell;
pub mod timeline;
pub mod tool;
