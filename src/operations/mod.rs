//! The verbs, composed from the adapters and the pure core. Each takes a [`Ctx`] (the state
//! root, the tmux handle and umbel's own environment, gathered once by the face) and the verb's
//! input struct from `core::args`.

pub mod approvals;
pub mod approve;
pub mod attach;
pub mod budget;
pub mod budget_pool;
pub mod budget_usage;
pub mod cli_release;
pub mod context;
pub mod dialog;
pub mod doctor;
pub mod events;
pub mod explain;
pub mod fleet;
pub mod fork;
pub mod guard;
pub mod input_line;
pub mod inspect;
pub mod interrupt;
pub mod interrupt_keys;
pub mod kill;
pub mod mode;
pub mod model;
pub mod model_picker;
pub mod park;
pub mod question;
pub mod read;
pub mod remote;
pub mod revival;
pub mod rule_answer;
pub mod rules;
pub mod run;
pub mod screen_wait;
pub mod send;
pub mod send_enters;
pub mod send_paste;
pub mod send_queue;
pub mod spawn;
pub mod startup;
pub mod status;
pub mod transcript_tail;
pub mod turn;
pub mod turn_stats;
pub mod turns;
pub mod wait;
pub mod warm;
pub mod worker;
pub mod worker_files;
pub mod worktree;

pub use context::Ctx;
