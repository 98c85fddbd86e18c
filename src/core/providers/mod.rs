//! The provider seam. Each agent CLI umbel drives is one module here, holding everything that is
//! specific to it and pure: how to launch it, which hooks to configure, which variables it
//! inherits, how to read its screens during startup, what its hook events mean, and how to parse
//! its transcript. The engine (`operations/`) only talks to [`ProviderModule`].

pub mod actions;
pub mod approval;
pub mod claude;
pub mod codex;
pub mod flags;
pub mod gemini;
pub mod opencode;
pub mod permission;
pub mod question;
pub mod qwen;
pub mod release;
pub mod tool_action;
pub mod why;

use super::print::stats::TurnStats;
use super::worker_env::ProviderEnv;
pub use permission::OnPermission;
pub use release::{Change, Releases, Support, Version};
use serde::{Deserialize, Serialize};
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

/// What umbel knows when it builds a launch.
#[derive(Debug, Clone)]
pub struct LaunchInput<'a> {
    /// The worker's session folder under the state root.
    pub session_dir: &'a Path,
    /// The shell command that records one hook event; the event name is appended as one more
    /// argument (e.g. `sh '/s/hooks/event.sh' '/s/sessions/w/events'`).
    pub hook_command: &'a str,
    /// The provider session id umbel chose for this worker.
    pub session_id: &'a str,
    /// `--model`, if given.
    pub model: Option<&'a str>,
    /// What a tool needing approval does (`--on-permission`; `allow` is `--unattended`).
    pub on_permission: OnPermission,
    /// The passthrough flags given ([`flags`]), already checked against the provider's table.
    pub flags: &'a [flags::Given],
    /// The raw `--` tail, passed to the CLI untouched after everything else.
    pub cli_args: &'a [String],
    /// The working directory (resolved).
    pub cwd: &'a Path,
    /// The worker's composed environment (to locate config folders).
    pub env: &'a [(String, String)],
    /// The user's own configuration files the provider asked for ([`ProviderModule::user_files`])
    /// that exist, with their content.
    pub user_files: &'a [(PathBuf, String)],
    /// The CLI's release, when umbel learnt it ([`Releases::has`] takes an unknown one as the
    /// newest tested).
    pub release: Option<Version>,
}

/// What the engine must do to launch the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// Arguments after the binary.
    pub args: Vec<String>,
    /// Files to write before launch (path, content). Paths are inside the session folder.
    pub files: Vec<(PathBuf, String)>,
    /// Where the transcript will be, when it can be known in advance.
    pub transcript_path: Option<PathBuf>,
    /// Symbolic links to create (link, target) — made only when the target exists.
    pub links: Vec<(PathBuf, PathBuf)>,
    /// Variables the launch itself sets (e.g. the managed config home); they win over all others.
    pub env: Vec<(String, String)>,
}

impl EventClass {
    /// A submit or a turn's end, normal or not: the events that say whether a turn is open.
    pub fn is_turn_event(&self) -> bool {
        matches!(
            self,
            EventClass::Submitted | EventClass::TurnEnded | EventClass::TurnFailed { .. }
        )
    }

    /// Whether the newest turn event among `classes` (oldest first) is a normal end: the last
    /// turn ended with its answer, none is open and none failed since.
    pub fn last_turn_ended<'a>(classes: impl DoubleEndedIterator<Item = &'a EventClass>) -> bool {
        classes
            .rev()
            .find(|c| c.is_turn_event())
            .is_some_and(|c| *c == EventClass::TurnEnded)
    }

    /// A `PermissionRequest` hook (claude, codex): needs input, naming the tool and its input.
    pub fn permission_request(payload: Option<&serde_json::Value>) -> Self {
        EventClass::NeedsInput {
            reason: "permission",
            tool: payload.map(
                |p| serde_json::json!({ "name": p.get("tool_name"), "input": p.get("tool_input") }),
            ),
        }
    }
}

/// What a hook event means to the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum EventClass {
    /// The CLI started (its dialogs are over).
    Started,
    /// A prompt was accepted.
    Submitted,
    /// The turn ended normally.
    TurnEnded,
    /// The provider failed the turn; the reason is `api-error`, `usage-limit` or `interrupted`.
    TurnFailed { reason: &'static str },
    /// The CLI waits for a person; reason `permission` or `question`, with the pending tool.
    NeedsInput {
        reason: &'static str,
        tool: Option<serde_json::Value>,
    },
    /// Work is moving (a tool ran), which also means a pending question was answered.
    Progress,
    /// Nothing the engine acts on.
    Other,
}

/// What a startup screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupScreen {
    /// A sign-in or onboarding screen: a person must act; the line is the evidence.
    SignIn(String),
    /// A dialog umbel answers by pressing these tmux keys; `what` names it for messages.
    Dialog {
        what: &'static str,
        keys: &'static [&'static str],
    },
    /// A dialog umbel answers only with the user's plain consent: when the user passed `env`
    /// to the worker explicitly (`--env`), by pressing `keys`; otherwise a person must answer.
    Consent {
        what: &'static str,
        env: &'static str,
        keys: &'static [&'static str],
    },
    /// A dialog umbel must not answer on the user's behalf (its question, as shown): a person
    /// decides. Unknown dialogs are reported this way too, never answered blindly.
    Person(String),
    /// The idle prompt is showing.
    Idle,
    /// Anything else (still drawing, busy, unknown).
    Other,
}

impl StartupScreen {
    /// A dialog umbel answers by choosing one option: Enter once the cursor is `on` it, else
    /// one step `toward` it (never a blind Enter).
    pub fn step_to(what: &'static str, on: bool, toward: &'static [&'static str]) -> Self {
        StartupScreen::Dialog {
            what,
            keys: if on { &["Enter"] } else { toward },
        }
    }
}

/// The last turn as read from a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranscriptTurn {
    /// The prompt that opened the turn, if it was found.
    pub prompt: Option<String>,
    /// The turn's final answer text, if any was written yet.
    pub answer: Option<String>,
    /// Whether the transcript marks the turn as finished.
    pub ended: bool,
    /// Whether the answer is a provider error rather than a reply.
    pub is_error: bool,
    /// Why the turn failed (`api-error`, `usage-limit`, `interrupted`), when it did.
    pub error_reason: Option<&'static str>,
    /// The provider's id for the turn, when its records carry one (Codex).
    pub turn_id: Option<String>,
    /// Output tokens the model produced in the turn so far, when the transcript records usage
    /// (shown by the progress line).
    pub output_tokens: Option<u64>,
}

impl TranscriptTurn {
    /// The turn ended because a person interrupted it (Esc).
    pub fn interrupted(&self) -> bool {
        self.ended && self.error_reason == Some("interrupted")
    }
}

/// Adds `n` to a token count that may not have started yet.
pub fn add_tokens(count: &mut Option<u64>, n: Option<u64>) {
    if let Some(n) = n {
        *count = Some(count.unwrap_or(0) + n);
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
    /// Its dialog for the model's questions, where umbel can answer one ([`question`]).
    pub question: Option<&'static question::QuestionDialog>,
    /// Its transcript read into a turn's stats (`<name>/stats.rs`).
    pub stats: fn(&[serde_json::Value], &mut TurnStats),
    /// How a session's usage is added up from its transcript (`<name>/stats.rs`).
    pub usage: &'static super::print::stats::UsageReading,
    /// Its print mode's output (`<name>/print.rs`).
    pub print: &'static dyn super::print::shape::PrintShapes,
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
    /// The id the submit hook gives the turn, matching [`TranscriptTurn::turn_id`] (claude
    /// `prompt_id`, codex `turn_id`); lets a wait recognise its own turn in the transcript.
    fn submit_turn_id(&self, _payload: &serde_json::Value) -> Option<String> {
        None
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

/// A transcript record's place in the CLI's chain of records ([`ProviderModule::record_link`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct RecordLink {
    #[serde(rename = "uuid")]
    pub id: Option<String>,
    #[serde(rename = "parentUuid")]
    pub parent: Option<String>,
}

/// What a CLI's files and environment say about its sign-in and onboarding (`umbel doctor`'s
/// `NAME-sign-in` line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignIn {
    /// It will open on its prompt: how it is signed in.
    Ready(String),
    /// It will open on a sign-in or first-run screen (where spawn stops, exit 126): why, and
    /// the exact remedy.
    Missing { detail: String, fix: String },
}

impl SignIn {
    /// A missing sign-in: what is missing and what to do.
    pub fn missing(detail: impl Into<String>, fix: impl Into<String>) -> Self {
        SignIn::Missing {
            detail: detail.into(),
            fix: fix.into(),
        }
    }
}

/// The content of the file named `file` among the files read for a check, if it exists.
pub fn file_text<'a>(files: &'a [(PathBuf, String)], file: &str) -> Option<(&'a Path, &'a str)> {
    files
        .iter()
        .find(|(path, _)| path.file_name().is_some_and(|n| n == file))
        .map(|(path, text)| (path.as_path(), text.as_str()))
}

/// A Gemini CLI-style folder trust dialog (gemini, qwen) under `question`, answered "1. Trust
/// folder" (the cursor `mark` moved there first). After trusting, the CLI restarts itself and the
/// old dialog can stay visible above the new screen: only a dialog with nothing drawn below it
/// is current.
pub fn folder_trust(
    lines: &[&str],
    question: &str,
    mark: char,
    composer: &Composer,
) -> Option<StartupScreen> {
    let at = lines.iter().rposition(|l| l.starts_with(question))?;
    let superseded = lines[at..]
        .iter()
        .any(|l| l.contains("is restarting") || composer.starts(l));
    let on = highlighted(lines, mark, "1. Trust folder");
    (!superseded).then(|| StartupScreen::step_to("folder trust", on, &["Up"]))
}

/// Whether a dialog option starting with `text` is the highlighted one: its line begins with
/// the CLI's cursor `mark` (claude `❯`, codex `›`, gemini `●`, qwen `›`). Lines are trimmed.
pub fn highlighted(lines: &[&str], mark: char, text: &str) -> bool {
    lines.iter().any(|l| {
        l.strip_prefix(mark)
            .is_some_and(|rest| rest.trim_start().starts_with(text))
    })
}

/// The key that moves a dialog's cursor `mark` one step toward the option whose text starts with
/// `option` (numbered `N. text` or not), or `Enter` once the cursor is on it: found by where the
/// option stands against the cursor, so it holds whatever order a release draws the options in.
/// `None` when the screen shows no cursor or no such option. Lines are trimmed.
pub fn toward_option(lines: &[&str], mark: char, option: &str) -> Option<&'static [&'static str]> {
    let text = |line: &str| {
        let line = line.strip_prefix(mark).unwrap_or(line).trim_start();
        let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match line[digits..].strip_prefix(". ") {
            Some(rest) if digits > 0 => rest.to_string(),
            _ => line.to_string(),
        }
    };
    let cursor = lines.iter().position(|l| l.starts_with(mark))?;
    let wanted = lines.iter().position(|l| text(l).starts_with(option))?;
    Some(match wanted.cmp(&cursor) {
        std::cmp::Ordering::Equal => &["Enter"],
        std::cmp::Ordering::Greater => &["Down"],
        std::cmp::Ordering::Less => &["Up"],
    })
}

/// The question of a dialog that shows a highlighted option: an indented line (a prompt echoed
/// in the conversation starts at column 0) of `mark`, a space and text. The question is the first
/// non-empty line after the last rule above the option, or the option itself. `screen` is the
/// raw screen; `None` when no such dialog is on it.
pub fn dialog_question(screen: &str, mark: char) -> Option<String> {
    let raw: Vec<&str> = screen.lines().collect();
    let option = raw.iter().rposition(|l| {
        l.starts_with(char::is_whitespace)
            && l.trim_start()
                .strip_prefix(mark)
                .is_some_and(|rest| rest.starts_with(' ') && !rest.trim().is_empty())
    })?;
    let lines: Vec<&str> = raw.iter().map(|l| l.trim()).collect();
    let rule = lines[..option]
        .iter()
        .rposition(|l| !l.is_empty() && l.chars().all(|c| c == '─'))
        .map_or(0, |at| at + 1);
    let question = lines[rule..option]
        .iter()
        .find(|l| !l.is_empty())
        .unwrap_or(&lines[option]);
    Some((*question).to_string())
}

/// A numbered choice under the CLI's cursor `mark` (codex `›`, gemini `●`) that no rule of the
/// provider knows: a marked line `N. text` beside another numbered line, with nothing the
/// composer draws below it (codex's composer and prompt echoes start with the same mark). Its
/// question: the nearest line above holding a `?` (up to it), else the nearest text above.
/// `lines` are trimmed of white space and frames; the marked line's index and the question, or
/// `None` when no such choice is on screen.
pub fn numbered_choice(lines: &[&str], mark: char, composer: &Composer) -> Option<(usize, String)> {
    fn marked(line: &str, mark: char) -> Option<&str> {
        line.strip_prefix(mark).map(str::trim_start)
    }
    let at = lines
        .iter()
        .rposition(|l| marked(l, mark).is_some_and(numbered))?;
    let beside = [at.checked_sub(1), Some(at + 1)]
        .into_iter()
        .flatten()
        .filter_map(|i| lines.get(i))
        .any(|l| numbered(l));
    let composer_below = lines[at + 1..]
        .iter()
        .any(|l| composer.starts(l) && marked(l, mark).is_none_or(|rest| !numbered(rest)));
    if !beside || composer_below {
        return None;
    }
    // Above the choice, its other options left out (the cursor may be on option 2).
    let mut above = lines[..at]
        .iter()
        .rev()
        .take(QUESTION_REACH)
        .filter(|l| !l.is_empty() && !numbered(l));
    let question = above
        .clone()
        .find_map(|l| l.find('?').filter(|&end| end > 0).map(|end| &l[..=end]))
        .or_else(|| above.next().copied())
        .unwrap_or(lines[at]);
    Some((at, question.to_string()))
}

/// Whether `line` is an option of a numbered choice: `N. text`.
pub fn numbered(line: &str) -> bool {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && line[digits..].starts_with(". ")
}

/// How many lines above a choice its question is looked for.
const QUESTION_REACH: usize = 12;

/// A box-less input line drawn below the conversation (codex `›`, gemini `>`, or `*` in gemini's
/// yolo mode): the last line that starts with one of `marks` is the composer (prompt echoes above
/// it start with the same mark); it shows `placeholder` when empty, and `busy` appears on screen
/// while a turn runs. The frame around it (`───`, or `▄▄▄`/`▀▀▀` in true colour) is never read.
/// `pasting`, where the CLI has one, shows under it while a paste is still being read in.
pub struct Composer {
    pub marks: &'static [char],
    pub placeholder: &'static str,
    pub busy: &'static str,
    pub pasting: Option<&'static str>,
}

impl Composer {
    fn line<'a>(&self, lines: &[&'a str]) -> Option<&'a str> {
        lines.iter().rev().find(|l| self.starts(l)).copied()
    }

    /// Whether `line` (trimmed) starts with one of the composer's marks.
    pub fn starts(&self, line: &str) -> bool {
        line.starts_with(self.marks)
    }

    fn empty(&self, line: &str) -> bool {
        line.trim_start_matches(self.marks).trim() == self.placeholder
    }

    /// The empty composer with no turn running: the CLI waits for a prompt.
    pub fn idle(&self, screen: &str, lines: &[&str]) -> bool {
        self.line(lines).is_some_and(|l| self.empty(l)) && !screen.contains(self.busy)
    }

    /// What the startup screen is once no dialog matched: idle, or something else.
    pub fn idle_or_other(&self, screen: &str, lines: &[&str]) -> StartupScreen {
        if self.idle(screen, lines) {
            StartupScreen::Idle
        } else {
            StartupScreen::Other
        }
    }

    /// The composer's row on `screen` (from 0) and its text, trimmed.
    pub fn row(&self, screen: &str) -> Option<(usize, String)> {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        let line = self.line(&lines)?;
        let at = lines.iter().rposition(|l| std::ptr::eq(*l, line))?;
        Some((at, line.to_string()))
    }

    /// The composer holds unsubmitted text (typed, pasted or a paste placeholder).
    pub fn pending(&self, screen: &str) -> bool {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        self.line(&lines).is_some_and(|l| !self.empty(l))
    }

    /// The screen from the input line (the last line starting with a mark) to its end.
    pub fn area<'a>(&self, screen: &'a str) -> Option<&'a str> {
        let mut at = None;
        let mut offset = 0;
        for line in screen.split_inclusive('\n') {
            if self.starts(line.trim()) {
                at = Some(offset);
            }
            offset += line.len();
        }
        at.map(|at| &screen[at..])
    }
}

/// The value of `key` in a worker environment.
pub fn env_get<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
    env.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// The hook events claude, codex and qwen all configure, first and in this order (codex and qwen
/// read claude's hook names and payloads); each provider's own events follow them.
pub const SHARED_HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
];

/// How claude and qwen (whose hooks are claude's) read their hook events: `StopFailure` ends the
/// turn with an API error, a `Notification` of `notification_type` `permission_prompt` or
/// `elicitation_dialog` waits for a person; the rest as [`shared_hook_class`].
pub fn claude_style_class(event: &str, payload: Option<&serde_json::Value>) -> EventClass {
    let waits = |reason| EventClass::NeedsInput { reason, tool: None };
    match event {
        "StopFailure" => EventClass::TurnFailed {
            reason: "api-error",
        },
        "Notification" => match payload.and_then(|p| str_field(p, "notification_type")) {
            Some("permission_prompt") => waits("permission"),
            Some("elicitation_dialog") => waits("question"),
            _ => EventClass::Other,
        },
        _ => shared_hook_class(event, payload),
    }
}

/// How claude and codex both read the hook events they share (`SHARED_HOOK_EVENTS` and `Stop`);
/// each provider matches its own events first and hands the rest here.
pub fn shared_hook_class(event: &str, payload: Option<&serde_json::Value>) -> EventClass {
    match event {
        "SessionStart" => EventClass::Started,
        "UserPromptSubmit" => EventClass::Submitted,
        "Stop" => EventClass::TurnEnded,
        "PermissionRequest" => EventClass::permission_request(payload),
        "PreToolUse" | "PostToolUse" => EventClass::Progress,
        _ => EventClass::Other,
    }
}

/// One entry per event: `{"Event": [{"hooks": [{"type": "command", "command": "<cmd> Event", "timeout": T}]}]}`
/// — the hooks shape Claude, Codex and Gemini all read.
pub fn hooks_json(hook_command: &str, events: &[&str], timeout: u64) -> serde_json::Value {
    let mut hooks = serde_json::Map::new();
    for event in events {
        let command = format!("{hook_command} {event}");
        hooks.insert(
            (*event).to_string(),
            serde_json::json!([{ "hooks": [{ "type": "command", "command": command, "timeout": timeout }] }]),
        );
    }
    serde_json::Value::Object(hooks)
}

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

/// `args` without the options in `valued` (and the value after each) and the switches in
/// `switches`: what a resume or fork replaces of a recorded launch.
pub fn without_options(args: &[String], valued: &[&str], switches: &[&str]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip = false;
    for arg in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if valued.contains(&arg.as_str()) {
            skip = true;
        } else if !switches.contains(&arg.as_str()) {
            kept.push(arg.clone());
        }
    }
    kept
}
