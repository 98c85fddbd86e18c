//! The provider seam. Each agent CLI umbel drives is one module here, holding everything that is
//! specific to it and pure: how to launch it, which hooks to configure, which variables it
//! inherits, how to read its screens during startup, what its hook events mean, and how to parse
//! its transcript. The engine (`operations/`) only talks to [`ProviderModule`].

pub mod actions;
pub mod approval;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod flags;
pub mod gemini;
pub mod launch;
pub mod mode;
pub mod model_switch;
pub mod opencode;
pub mod permission;
pub mod question;
pub mod qwen;
pub mod readings;
pub mod release;
pub mod screen;
pub mod shared_hooks;
pub mod tool_action;
pub mod why;

use super::print::stats::TurnStats;
use super::worker_env::ProviderEnv;
pub use launch::*;
pub use permission::OnPermission;
pub use readings::*;
pub use release::{Change, Releases, Support, Version};
pub use screen::*;
use serde::{Deserialize, Serialize};
pub use shared_hooks::*;
use std::path::{Path, PathBuf};

/// Which agent CLI a worker runs.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[schemars(inline)]
pub enum Provider {
    /// Claude Code (`claude`).
    #[default]
    Claude,
    /// Codex CLI (`codex`).
    Codex,
    /// Gemini CLI (`gemini`).
    Gemini,
    /// Qwen Code (`qwen`).
    Qwen,
    /// OpenCode (`opencode`).
    Opencode,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
}

impl Provider {
    /// The provider's module.
    pub fn module(self) -> &'static dyn ProviderModule {
        match self {
            Provider::Claude => &claude::Claude,
            Provider::Codex => &codex::Codex,
            Provider::Gemini => &gemini::Gemini,
            Provider::Qwen => &qwen::Qwen,
            Provider::Opencode => &opencode::Opencode,
            Provider::Copilot => &copilot::Copilot,
        }
    }

    /// The provider's name as written on the command line and in meta.json.
    pub fn as_str(self) -> &'static str {
        self.module().name()
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What names a provider and its workers' environment: a table each module fills in, from which
/// the trait's defaults answer.
pub struct Identity {
    /// The provider's name (`claude`), which is also its binary's default name.
    pub name: &'static str,
    /// The environment variable that overrides the binary's location.
    pub bin_env_var: &'static str,
    /// Variables the worker inherits by name, and fixed ones.
    pub env: ProviderEnv,
    /// The tool calls of one turn's records (`actions.rs`).
    pub actions: fn(&[serde_json::Value]) -> Vec<tool_action::ToolAction>,
    /// The model's thinking in one turn's records, as the CLI records it (`thoughts.rs`).
    pub thoughts: fn(&[serde_json::Value]) -> Vec<String>,
    /// Its permission modes (or agents) as its own key cycles them ([`mode`]), where it has
    /// such a key.
    pub modes: Option<&'static mode::ModeCycle>,
    /// How its session's model is switched ([`model_switch`]), where umbel can.
    pub models: Option<&'static model_switch::ModelSwitch>,
    /// The folder the CLI keeps its sign-in and settings in, from the worker's environment.
    pub config_dir: fn(&[(String, String)]) -> Option<PathBuf>,
    /// The user's configuration files in that folder the launch builds on.
    pub user_files: &'static [&'static str],
    /// The input box, where the CLI's is a [`Composer`] (claude reads its own).
    pub composer: Option<&'static Composer>,
    /// The supported releases and what changed between them ([`release`]).
    pub releases: &'static Releases,
    /// Its tool-approval dialog and the keys that answer it ([`approval`]).
    pub approval: &'static approval::ApprovalKeys,
    /// Its models' list prices (`<name>/prices.rs`; [`crate::core::prices::UNCHECKED`] where
    /// none were checked).
    pub prices: &'static crate::core::prices::PriceTable,
    /// Its dialog for the model's questions, where umbel can answer one ([`question`]).
    pub question: Option<&'static question::QuestionDialog>,
    /// Its transcript read into a turn's stats (`<name>/stats.rs`).
    pub stats: fn(&[serde_json::Value], &mut TurnStats),
    /// How a session's usage is added up from its transcript (`<name>/stats.rs`).
    pub usage: &'static super::print::stats::UsageReading,
    /// Its print mode's output (`<name>/print.rs`).
    pub print: &'static dyn super::print::shape::PrintShapes,
    /// How each flag umbel passes through reaches it (`<name>/flag_table.rs`).
    pub flags: &'static [(flags::Flag, flags::Mapping)],
}

/// The log line umbel writes when a CLI ended a turn without an end hook saying so: a refusal
/// (gemini's `Request cancelled.` record, qwen's idle notice) or `umbel interrupt` on a CLI
/// whose own hooks do not say "interrupted" (claude, gemini, qwen). The turn is over,
/// interrupted: every provider reads it as a failed turn (reason `interrupted`). Its payload:
/// `{"at": ms, "id"?: the approval refused, "evidence": "transcript" | "interrupt" | the notice
/// hook's event}`.
pub const TURN_CLOSED_EVENT: &str = "TurnClosed";

/// The last turn and its records, oldest first, from transcript lines given newest first: the
/// lines the provider's own [`ProviderModule::last_turn`] reads back to the turn's prompt.
pub fn last_turn_records(
    provider: &dyn ProviderModule,
    lines_newest_first: &mut dyn Iterator<Item = String>,
) -> (TranscriptTurn, Vec<serde_json::Value>) {
    let mut consumed = Vec::new();
    let turn = {
        let mut feed = lines_newest_first.inspect(|l| consumed.push(l.clone()));
        provider.last_turn(&mut feed)
    };
    let records = consumed
        .iter()
        .rev()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (turn, records)
}

/// Everything provider-specific, as pure functions.
pub trait ProviderModule: Sync {
    /// How a session's usage is added up from its transcript (`<name>/stats.rs`).
    fn usage_reading(&self) -> &'static super::print::stats::UsageReading {
        self.identity().usage
    }

    /// Whether the CLI picks its conversation's id itself (codex), so the one spawn recorded is
    /// a placeholder until its first hook reports the real one.
    fn picks_its_session_id(&self) -> bool {
        false
    }

    /// Its print mode's output shapes: `-p`'s JSON and stream-json (`<name>/print.rs`).
    fn print(&self) -> &'static dyn super::print::shape::PrintShapes {
        self.identity().print
    }

    /// Reads a turn's records (oldest first) into its stats: tokens per model, tool calls with
    /// their results, the stop reason and the API error (`<name>/stats.rs`).
    fn read_stats(&self, records: &[serde_json::Value], stats: &mut TurnStats) {
        (self.identity().stats)(records, stats)
    }

    /// The stats of a turn from its records (oldest first): nothing guessed, a field the
    /// transcript lacks stays at zero or absent.
    fn turn_stats(&self, records: &[serde_json::Value]) -> TurnStats {
        let mut stats = TurnStats::default();
        self.read_stats(records, &mut stats);
        stats
    }

    /// The provider's table.
    fn identity(&self) -> &'static Identity;
    /// The provider's name (`claude`).
    fn name(&self) -> &'static str {
        self.identity().name
    }
    /// The binary looked up on PATH by default.
    fn default_bin(&self) -> &'static str {
        self.identity().name
    }
    /// The environment variable that overrides the binary's location.
    fn bin_env_var(&self) -> &'static str {
        self.identity().bin_env_var
    }
    /// The supported releases and what changed between them.
    fn releases(&self) -> &'static Releases {
        self.identity().releases
    }
    /// Its tool-approval dialog and the keys that answer it.
    fn approval(&self) -> &'static approval::ApprovalKeys {
        self.identity().approval
    }
    /// Its models' list prices.
    fn prices(&self) -> &'static crate::core::prices::PriceTable {
        self.identity().prices
    }
    /// Its dialog for the model's questions, where umbel can answer one.
    fn question(&self) -> Option<&'static question::QuestionDialog> {
        self.identity().question
    }
    /// The folder the CLI keeps its sign-in and settings in (`~/.claude`, `$CODEX_HOME`, …),
    /// for `umbel doctor`.
    fn config_dir(&self, env: &[(String, String)]) -> Option<PathBuf> {
        (self.identity().config_dir)(env)
    }
    /// Variables the worker inherits by name, and fixed ones.
    fn env(&self) -> ProviderEnv {
        self.identity().env
    }
    /// Adjusts the composed environment (e.g. drop a key that would trigger a blocking dialog).
    fn reconcile_env(&self, _env: &mut Vec<(String, String)>) {}
    /// The user's configuration files the launch builds on (read by the engine, passed back in
    /// [`LaunchInput::user_files`]); never modified.
    fn user_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        let Some(dir) = self.config_dir(env) else {
            return Vec::new();
        };
        let files = self.identity().user_files;
        files.iter().map(|file| dir.join(file)).collect()
    }
    /// The files that tell whether the CLI will open on its prompt rather than on a sign-in or
    /// first-run screen (read by `umbel doctor`, passed back to [`Self::sign_in_check`]).
    fn sign_in_files(&self, _env: &[(String, String)]) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Judges, from those files that exist (path, content) and umbel's environment, whether the
    /// CLI is signed in and onboarded, or what is missing and the exact remedy.
    fn sign_in(&self, _env: &[(String, String)], _files: &[(PathBuf, String)]) -> SignIn {
        SignIn::Ready("nothing to check".into())
    }
    /// Builds the launch, or says which of the user's files it cannot build on.
    fn launch(&self, input: &LaunchInput<'_>) -> crate::core::errors::Result<LaunchSpec>;
    /// The recorded launch arguments (`args`, as [`Self::launch`] built them) turned into the
    /// CLI's own resume of conversation `session_id` (the id the CLI itself reported): same
    /// flags, same conversation, appended to the same transcript (`park`, `resume`). See
    /// docs/providers.md#resume-and-fork.
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String>;
    /// What the CLI appends to a resumed conversation's transcript once it has loaded it, when
    /// its start hook comes before that and a prompt submitted in between is lost (gemini
    /// 0.61.0); `None` when the start hook means the conversation is loaded.
    fn resume_loaded_mark(&self) -> Option<&'static str> {
        None
    }
    /// The launch arguments of a new worker (`args`, its own launch) that starts with a copy of
    /// conversation `parent` (`spawn --fork-from`); `None` when the CLI cannot fork one.
    fn fork_args(&self, _args: &[String], _parent: &str) -> Option<Vec<String>> {
        None
    }
    /// Where a new worker (session folder `child_dir`) must hold a copy of the transcript
    /// `transcript` of another worker (session folder `parent_dir`) for its CLI to find that
    /// conversation by id (`spawn --fork-from`): codex keeps a worker's threads in its own
    /// CODEX_HOME. `None` when the CLI finds it where it is.
    fn transcript_copy(
        &self,
        _transcript: &Path,
        _parent_dir: &Path,
        _child_dir: &Path,
    ) -> Option<PathBuf> {
        None
    }
    /// Where `spawn --resume ID` finds a conversation the CLI ran outside umbel when a worker's
    /// CLI would not find it itself, and where in the worker's session folder a copy must go:
    /// the user's own config home and the worker's (codex: `$CODEX_HOME`, `codex-home`). `None`:
    /// the CLI finds it where it is (claude), or umbel does not continue it (gemini).
    fn outside_home(&self, _env: &[(String, String)]) -> Option<(PathBuf, &'static str)> {
        None
    }
    /// Whether the CLI fires its start hook when it starts (Codex only fires it at the first
    /// prompt). Without one, readiness is an idle screen that held still for [`Self::idle_settle`].
    fn start_hook_at_launch(&self) -> bool {
        true
    }
    /// Whether the idle screen itself says the CLI is ready for a prompt (codex draws its status
    /// line, `<model> <mode> · <cwd>`, once its session is configured): ready at once, without
    /// the start hook or [`Self::idle_settle`].
    fn ready_on_screen(&self, _screen: &str) -> bool {
        false
    }
    /// Whether the CLI at `release` takes a prompt as soon as its input line shows, before it is
    /// ready, and holds it until it is ([`Self::holds_submitted_prompt`]): a one-shot `-p`
    /// types it meanwhile instead of waiting (codex 0.156.0 on, while its session is
    /// configured).
    fn takes_prompt_while_starting(&self, _release: Option<Version>) -> bool {
        false
    }
    /// Whether `screen` shows a submitted prompt the CLI holds until its start is over (codex:
    /// `Waiting for startup` under it): the Enter was taken, the submit hook comes later.
    fn holds_submitted_prompt(&self, _screen: &str) -> bool {
        false
    }
    /// How long an idle screen must hold still to count as ready without the start hook.
    fn idle_settle(&self) -> std::time::Duration {
        std::time::Duration::from_secs(3)
    }
    /// Reads the visible screen during startup.
    fn startup_screen(&self, screen: &str) -> StartupScreen;
    /// Why the CLI refused to start, with the remedy, when its last screen says so (claude
    /// refuses bypass permissions as root); `None` when the screen does not explain it. `env` is
    /// the worker's environment (the remedy may depend on what it already holds).
    fn refusal(&self, _screen: &str, _env: &[(String, String)]) -> Option<String> {
        None
    }
    /// The keys that interrupt a running turn, as a person would (Esc on claude, codex and
    /// gemini: one Esc; claude opens its rewind menu on a second; opencode: Esc twice, the
    /// first only arms it), pressed one at a time.
    fn interrupt_keys(&self) -> &'static [&'static str] {
        &["Escape"]
    }
    /// One round of keys that empties a line of leftover text on the input line, pressed
    /// together: Ctrl-U deletes back to the line's start and Backspace joins the line above.
    /// opencode leaves its caret at the input's start after Ctrl-U on a pasted last line, so it
    /// gets Ctrl-K (delete to the line's end) between the two.
    fn clear_keys(&self) -> &'static [&'static str] {
        &["C-u", "BSpace"]
    }
    /// How long after a paste shows on its input line the CLI takes an Enter as a submit rather
    /// than as part of the paste (gemini makes an Enter within 40 ms of a paste a newline).
    fn enter_after_paste(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
    /// A key pressed after every paste that makes the CLI draw a paste it holds back for more to
    /// come: without it the paste shows only when the CLI's timer runs out, and the send waits
    /// for it on every prompt. It must type nothing and move nothing but the caret.
    fn paste_flush_key(&self) -> Option<&'static str> {
        None
    }
    /// Whether the end-of-turn hook looks the same for a finished turn and one a person
    /// cancelled (gemini's `AfterAgent` after Esc carries the text streamed so far): then the
    /// transcript's last turn says whether it was interrupted.
    fn end_hook_hides_cancel(&self) -> bool {
        false
    }
    /// The input line and everything drawn below it, to tell whether the CLI redrew its input
    /// box after a key (a status line above it may change on its own); `None` where the
    /// provider cannot say.
    fn input_area<'a>(&self, screen: &'a str) -> Option<&'a str> {
        self.identity().composer.and_then(|c| c.area(screen))
    }
    /// Whether the CLI shows when it is reading a paste in (qwen): then its paste is waited for
    /// until it shows, not only the usual second.
    fn shows_paste_reading(&self) -> bool {
        self.identity()
            .composer
            .is_some_and(|composer| composer.pasting.is_some())
    }
    /// Whether the CLI shows, under its input line, that it is still reading a paste in (qwen's
    /// `Pasting… 12 KB`): an Enter then would come before the paste is whole.
    fn paste_in_progress(&self, screen: &str) -> bool {
        self.identity().composer.is_some_and(|composer| {
            composer
                .pasting
                .is_some_and(|mark| composer.area(screen).is_some_and(|a| a.contains(mark)))
        })
    }
    /// Whether the input line still holds unsubmitted text (typed, pasted or a paste placeholder).
    fn pending_input(&self, screen: &str) -> bool {
        self.identity()
            .composer
            .is_some_and(|composer| composer.pending(screen))
    }
    /// The input line on `screen` (its row, from 0, and its text, trimmed), for `umbel
    /// explain` ([`why`]); `None` when none shows.
    fn input_line_at(&self, screen: &str) -> Option<(usize, String)> {
        self.identity()
            .composer
            .and_then(|composer| composer.row(screen))
    }
    /// The text the CLI shows while a turn runs (`esc to interrupt`), for `umbel explain`.
    fn busy_marker(&self) -> Option<&'static str> {
        self.identity().composer.map(|composer| composer.busy)
    }
    /// Whether the screen shows a turn dropped without a trace: the CLI is back at its prompt with
    /// the prompt put back into its input box (claude after Esc before any answer: no hook, no
    /// transcript record). Asked only while a submitted turn has no end.
    fn prompt_restored(&self, _screen: &str) -> bool {
        false
    }
    /// What a hook event means.
    fn classify(&self, event: &str, payload: Option<&serde_json::Value>) -> EventClass;
    /// What a line of the worker's event log means: the lines umbel writes that end a turn
    /// ([`TURN_CLOSED_EVENT`]) the same on every
    /// provider, the CLI's hooks as [`classify`](Self::classify) reads them.
    fn class_of(&self, event: &str, payload: Option<&serde_json::Value>) -> EventClass {
        if event == TURN_CLOSED_EVENT {
            return EventClass::TurnFailed {
                reason: "interrupted",
            };
        }
        let class = self.classify(event, payload);
        match self.question() {
            Some(dialog) => dialog.reclass(event, payload, class),
            None => class,
        }
    }
    /// Whether `event` marks one prompt taken (a budget's `--max-prompts` counts them): a
    /// submit hook, where each prompt fires exactly one (opencode fires several kinds).
    fn counts_prompt(&self, event: &str) -> bool {
        self.classify(event, None) == EventClass::Submitted
    }
    /// The id the submit hook gives the turn, matching [`TranscriptTurn::turn_id`] (claude
    /// `prompt_id`, codex `turn_id`); lets a wait recognise its own turn in the transcript.
    fn submit_turn_id(&self, _payload: &serde_json::Value) -> Option<String> {
        None
    }
    /// Whether the end-of-turn hook carries the answer (copilot's `Stop` does not, and its
    /// session log may lag it): when not, the answer is read from the transcript's turn whose
    /// id is the submit hook's ([`Self::submit_turn_id`]) and waited for until it is there.
    fn end_hook_carries_answer(&self) -> bool {
        true
    }
    /// The answer carried by an end-of-turn hook payload (claude and codex:
    /// `last_assistant_message`).
    fn answer_from_payload(&self, payload: &serde_json::Value) -> Option<String> {
        str_field(payload, "last_assistant_message").map(str::to_string)
    }
    /// Parses the last turn from transcript lines given newest first; stops reading as soon as
    /// the turn's opening prompt is found. Lines that are not JSON are skipped.
    fn last_turn(&self, lines_newest_first: &mut dyn Iterator<Item = String>) -> TranscriptTurn {
        self.turn_from_records(
            &mut lines_newest_first.filter_map(|line| serde_json::from_str(&line).ok()),
        )
    }
    /// Folds transcript records given newest first into the last turn; stops right after the
    /// record that opens it (the one [`Self::opens_turn`] names).
    fn turn_from_records(
        &self,
        records_newest_first: &mut dyn Iterator<Item = serde_json::Value>,
    ) -> TranscriptTurn;
    /// Whether `record` opens a turn (its prompt): where [`Self::turn_from_records`] stops
    /// reading backwards, so where a turn starts reading forwards.
    fn opens_turn(&self, record: &serde_json::Value) -> bool;
    /// Strings (with their JSON quotes) of which every record the parsers read holds at least
    /// one — the record types they look at. A line holding none is skipped unparsed; empty
    /// means every line is parsed.
    fn record_tokens(&self) -> &'static [&'static str] {
        &[]
    }
    /// For a CLI whose records name their parent (claude's `uuid` and `parentUuid`): the line's
    /// own id and its parent's. The turn reader reads a record after its parent even where the
    /// CLI wrote it first. `None`: the CLI writes in order (the default), or not a linked record.
    fn record_link(&self, _line: &[u8]) -> Option<RecordLink> {
        None
    }
    /// The tool calls of one turn, from its transcript records (oldest first); see
    /// [`actions`].
    fn turn_actions(&self, records: &[serde_json::Value]) -> Vec<tool_action::ToolAction> {
        (self.identity().actions)(records)
    }
}

/// How many lines above a choice its question is looked for.
const QUESTION_REACH: usize = 12;

/// Reads a string field of a JSON payload.
pub fn str_field<'a>(payload: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    payload.get(key).and_then(serde_json::Value::as_str)
}

/// The CLI's own session id a hook payload names, when not empty: `session_id` (the hook
/// CLIs), or `sessionID` (opencode's bus events, as umbel's plugin hands them on).
pub fn payload_session_id(payload: &serde_json::Value) -> Option<&str> {
    str_field(payload, "session_id")
        .or_else(|| str_field(payload, "sessionID"))
        .filter(|id| !id.is_empty())
}

#[cfg(test)]
#[path = "recorded_tests.rs"]
mod recorded_tests;

/// The list price of `model` as `provider` runs it: the user's own prices first, then the
/// provider's table, then every other provider's (copilot runs claude's models).
pub fn price_of(provider: Provider, model: &str) -> Option<crate::core::prices::Price> {
    use clap::ValueEnum;
    let others = (Provider::value_variants().iter().copied()).filter(|p| *p != provider);
    let tables: Vec<&crate::core::prices::PriceTable> = std::iter::once(provider)
        .chain(others)
        .map(|p| p.module().prices())
        .collect();
    crate::core::prices::price_in(&tables, model)
}
