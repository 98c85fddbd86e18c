//! Scenarios: the scripted timeline a fake follows, as data.
//!
//! A scenario comes from `UMBEL_SIM_SCENARIO` (a path, or inline JSON when the
//! value starts with `{`). It is provider-neutral: fake-claude, fake-codex and
//! fake-gemini read the same shape and each decides how an `end` looks in its
//! own screens, hooks and transcripts. Unknown fields are rejected by name.

use serde::Deserialize;
use serde_json::Value;

use crate::clock::{Clock, DEFAULT_START};
use crate::json::{Source, inline_or_file};
use crate::selfkill;

/// The environment variable holding the scenario.
pub const ENV: &str = "UMBEL_SIM_SCENARIO";

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Seed for every derived id.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Start of the virtual clock (RFC 3339).
    #[serde(default = "default_clock")]
    pub clock: String,
    /// What happens before the first screen.
    #[serde(default)]
    pub startup: Startup,
    /// Turns, each used at most once, in order of preference.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// The turn used when no entry of `turns` matches.
    #[serde(default)]
    pub default: Option<Turn>,
}

fn default_seed() -> u64 {
    1
}

fn default_clock() -> String {
    DEFAULT_START.to_string()
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            seed: 1,
            clock: default_clock(),
            startup: Startup::default(),
            turns: Vec::new(),
            default: None,
        }
    }
}

/// Startup behaviour.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Startup {
    /// Show the "not signed in" screen and stay there.
    #[serde(default)]
    pub sign_in: bool,
    /// Wait this long before drawing anything.
    #[serde(default)]
    pub delay_ms: u64,
    /// Hand every key to the program this long after it arrived, as a CLI starved of CPU
    /// does: keys pressed again before the redraw pile up (fake-claude).
    #[serde(default)]
    pub key_lag_ms: u64,
    /// fake-opencode: umbel's plugin's hooks (and record lines) reach umbel this late, in
    /// their order, while the TUI draws on: the real plugin runs each hook with `spawnSync` in
    /// opencode's server, so on a loaded machine its log lags the screen.
    #[serde(default)]
    pub hook_lag_ms: u64,
    /// Keep the submitted prompt on the input line this long after its submit hook fired
    /// (fake-claude): the real claude fires `UserPromptSubmit` before it clears its input box
    /// and draws its spinner, hundreds of ms on a loaded machine.
    #[serde(default)]
    pub submit_redraw_ms: u64,
    /// fake-qwen: a paste over 1000 bytes is read in for this long, `Pasting… N KB` under the
    /// footer meanwhile; an Enter pressed then submits the paste's placeholder unexpanded once
    /// it is in (qwen 0.24.4 with 256 KiB: 0.8–22 s).
    #[serde(default)]
    pub paste_read_ms: u64,
    /// fake-gemini: an Enter this soon after a paste is a newline (absent: the real 40 ms; a
    /// loaded machine's gemini closes that window late, on its timer and a redraw).
    #[serde(default)]
    pub paste_guard_ms: Option<u64>,
    /// fake-qwen: after that, the paste takes this long more to show, with nothing on the
    /// screen saying so (the `Pasting…` line gone, the placeholder not drawn yet).
    #[serde(default)]
    pub paste_quiet_ms: u64,
    /// fake-claude: its permission dialog's `permission_prompt` Notification fires once no
    /// key was pressed in the dialog for this long, looked at this often from when it shows
    /// (2.1.332's `useNotifyAfterTimeout`; absent: its 6000; 0: as soon as the dialog shows).
    #[serde(default)]
    pub permission_notify_ms: Option<u64>,
    /// Show the workspace trust dialog even when the folder is already trusted.
    #[serde(default)]
    pub trust_dialog: bool,
    /// Show the hooks review screen even when every hook is trusted or the
    /// trust bypass flag is given (fake-codex; the others ignore it).
    #[serde(default)]
    pub hook_review: bool,
    /// Draw the composer this long before the session is configured. fake-codex: the status
    /// line (model · folder) is missing meanwhile, and an Enter on a typed prompt is held
    /// ("Waiting for startup") and submitted once the session is, as codex 0.171.0 does.
    /// fake-copilot: its `--allow-all` and `--deny-tool` apply only this long after its start
    /// (copilot's permission seeding), a tool asked for before then meets the dialog.
    #[serde(default)]
    pub configure_ms: u64,
    /// This long after its start the screen goes blank for [`Self::blank_ms`], then is drawn
    /// whole again; keys pressed meanwhile are taken, not shown (fake-codex; 0 = never). codex
    /// 0.155.1 clears its screen and redraws it when its model is loaded, past its ready screen.
    #[serde(default)]
    pub blank_at_ms: u64,
    /// How long the screen stays blank (with `blank_at_ms`).
    #[serde(default)]
    pub blank_ms: u64,
    /// After a paste, swallow this many Enter presses (the input stays as it
    /// is), as codex swallows the first Enter after a paste (fake-codex; the
    /// others ignore it).
    #[serde(default)]
    pub swallow_enters: u32,
    /// A swallowed Enter makes the CLI exit with this status instead (it dies mid-send, the
    /// prompt typed; fake-codex).
    #[serde(default)]
    pub swallowed_enter_exits: Option<i32>,
    /// The first swallowed Enter opens a dialog umbel does not know over the typed prompt, with
    /// this question (as `unknown_dialog`; the prompt stays typed under it; fake-codex).
    #[serde(default)]
    pub swallowed_enter_dialog: Option<String>,
    /// Before the prompt, show a dialog umbel does not know: this question over `1. Yes` /
    /// `2. No` under each CLI's own cursor (`❯`, codex `›`, gemini `●` in a box). fake-claude
    /// goes on to the prompt on any answer; fake-codex and fake-gemini on "Yes" (else exit 1).
    #[serde(default)]
    pub unknown_dialog: Option<String>,
    /// Start a child process that ignores SIGTERM and SIGHUP and stays in the CLI's process
    /// group (a tool or server that will not die): only SIGKILL ends it.
    #[serde(default)]
    pub stubborn_child: bool,
    /// The stubborn child appends a `TERM` line to this file for each SIGTERM it ignores: a
    /// test tells a graceful end (SIGTERM, then SIGKILL) from an immediate SIGKILL.
    #[serde(default)]
    pub term_log: Option<String>,
}

/// One scripted turn.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Substring the prompt must contain (absent = any prompt).
    #[serde(default, rename = "match")]
    pub matches: Option<String>,
    /// The answer text (absent = `Response to: <first line of the prompt>`).
    #[serde(default)]
    pub reply: Option<String>,
    /// The model's thinking before its answer, as the CLI records it (claude's `thinking`
    /// block); absent: none.
    #[serde(default)]
    pub thinking: Option<String>,
    /// Busy time before the first text.
    #[serde(default)]
    pub delay_ms: u64,
    /// Time between streamed chunks (0 = the whole reply at once).
    #[serde(default)]
    pub chunk_ms: u64,
    /// Fire the end-of-turn hook first and write the last records this much later.
    #[serde(default)]
    pub late_transcript_ms: Option<u64>,
    /// How the turn ends.
    #[serde(default)]
    pub end: End,
    /// Once the turn has ended (its end hook fired), a dialog umbel does not know opens over
    /// the idle prompt with this question over `❯ 1. Yes` / `2. No`; no hook says so. Up/Down
    /// move, Enter or Esc closes it; a paste is dropped (fake-claude; the others ignore it).
    #[serde(default)]
    pub dialog_after: Option<String>,
    /// Once the turn has ended (its end hook fired), the CLI opens a turn by itself this many ms
    /// later, as claude does when a background task wakes the model: its submit hook fires with
    /// `prompt` and the turn chosen for that prompt plays. No one typed it.
    #[serde(default)]
    pub then_self: Option<SelfTurn>,
    /// Files the turn writes as it starts, as a model's edit tool would: path (relative to
    /// the CLI's working directory) → content. fake-model ignores it (the real CLI's tools
    /// write).
    #[serde(default)]
    pub writes: std::collections::BTreeMap<String, String>,
}

/// A turn the CLI opens by itself after a turn ended (`then_self`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SelfTurn {
    /// How long after the end hook.
    #[serde(default)]
    pub after_ms: u64,
    /// The prompt its submit hook carries (and that picks its turn).
    pub prompt: String,
}

/// How a turn ends.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Normal completion (end-of-turn hook fires).
    #[default]
    Stop,
    /// Stay busy forever.
    Wedge,
    /// Exit with this status mid-turn.
    Crash(i32),
    /// Kill itself with this signal (`KILL`, `TERM`, `SIGINT`, …) mid-turn.
    Signal(String),
    /// The model API fails.
    ApiError(ApiError),
    /// The model asks to run a tool and the CLI asks for permission.
    Permission(Permission),
    /// The account's usage limit is hit (fake-codex; the others treat it as `stop`).
    UsageLimit(UsageLimit),
    /// Mid-turn, the CLI loses its session and shows its sign-in screen (the
    /// one it draws at startup when not signed in) until Ctrl-C twice.
    SignIn,
    /// The model asks the user a question through a dialog (fake-claude's
    /// `elicitation_dialog` Notification; the others treat it as `stop`).
    Question(Question),
}

/// A question put to the user mid-turn.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The question, as the dialog and the Notification's `message` show it.
    pub text: String,
}

/// A usage-limit failure.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UsageLimit {
    /// When the limit resets, as the CLI shows it (e.g. `8:57 PM`).
    #[serde(default = "default_retry_at")]
    pub retry_at: String,
}

fn default_retry_at() -> String {
    "8:57 PM".to_string()
}

/// An API failure.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// Error message.
    #[serde(default = "default_api_message")]
    pub message: String,
}

fn default_api_message() -> String {
    "bad request".to_string()
}

/// A tool call that needs the user's permission.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Permission {
    /// Tool name, e.g. `Bash`.
    pub tool: String,
    /// Tool input, e.g. `{"command":"echo hi","description":"Print a greeting"}`.
    #[serde(default = "empty_object")]
    pub input: Value,
    /// The fake tool output (default: derived from the input, see docs/simulator.md).
    #[serde(default)]
    pub output: Option<String>,
    /// After the tool's result, the answer streams and never ends (a model still talking):
    /// the tool call's response is recorded, usage and all, while the turn runs on.
    #[serde(default)]
    pub then_wedge: bool,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

impl Scenario {
    /// Parses and validates scenario JSON.
    pub fn parse(json: &str) -> Result<Self, String> {
        let s: Scenario = serde_json::from_str(json).map_err(|e| e.to_string())?;
        s.validate()?;
        Ok(s)
    }

    /// Reads the scenario named by `value` (a path, or inline JSON starting with `{`).
    pub fn load(value: &str) -> Result<Self, String> {
        let (text, source) =
            inline_or_file(value).map_err(|e| format!("{ENV}: cannot read {value}: {e}"))?;
        Self::parse(&text).map_err(|e| match source {
            Source::Inline => format!("{ENV} (inline JSON): {e}"),
            Source::File => format!("{ENV} ({value}): {e}"),
        })
    }

    /// The scenario from the environment, or the default one when the variable is unset.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(ENV) {
            Ok(v) if !v.trim().is_empty() => Self::load(&v),
            _ => Ok(Self::default()),
        }
    }

    /// Starts what the scenario's startup asks to run beside the CLI (its stubborn child).
    pub fn start_children(&self) -> Result<(), String> {
        if !self.startup.stubborn_child {
            return Ok(());
        }
        let on_term = match self.startup.term_log {
            Some(_) => "echo TERM >> \"$UMBEL_SIM_TERM_LOG\"",
            None => "",
        };
        let script = format!("trap '{on_term}' TERM; trap '' HUP INT; while :; do sleep 1; done");
        std::process::Command::new("sh")
            .args(["-c", &script])
            .env(
                "UMBEL_SIM_TERM_LOG",
                self.startup.term_log.as_deref().unwrap_or(""),
            )
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(drop)
            .map_err(|e| format!("cannot start the stubborn child: {e}"))
    }

    fn validate(&self) -> Result<(), String> {
        Clock::parse(&self.clock)?;
        let all = self
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("turns[{i}]"), t));
        for (at, turn) in all.chain(self.default.iter().map(|t| ("default".to_string(), t))) {
            match &turn.end {
                End::Crash(n) if !(0..=255).contains(n) => {
                    return Err(format!(
                        "{at}.end.crash: exit status {n} is outside 0..=255"
                    ));
                }
                End::Signal(name) if selfkill::signal_number(name).is_none() => {
                    return Err(format!("{at}.end.signal: unknown signal `{name}`"));
                }
                End::ApiError(e) if !(100..=599).contains(&e.status) => {
                    return Err(format!(
                        "{at}.end.api_error.status: {} is not an HTTP status",
                        e.status
                    ));
                }
                End::Question(q) if q.text.trim().is_empty() => {
                    return Err(format!("{at}.end.question.text: must not be empty"));
                }
                End::Permission(p) if !p.input.is_object() => {
                    return Err(format!("{at}.end.permission.input: must be a JSON object"));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The virtual clock at the scenario's start.
    pub fn start_clock(&self) -> Clock {
        // validate() already checked the clock; fall back to the epoch defensively.
        Clock::parse(&self.clock).unwrap_or(Clock::at_ms(0))
    }
}

/// A turn chosen for one prompt, with its reply resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    /// The text to stream.
    pub reply: String,
    /// The thinking before it.
    pub thinking: Option<String>,
    /// Busy time before the first text.
    pub delay_ms: u64,
    /// Time between chunks.
    pub chunk_ms: u64,
    /// Late transcript delay, if any.
    pub late_transcript_ms: Option<u64>,
    /// How the turn ends.
    pub end: End,
    /// The dialog that opens over the prompt once the turn has ended.
    pub dialog_after: Option<String>,
    /// The turn the CLI opens by itself once this one has ended.
    pub then_self: Option<SelfTurn>,
    /// Files the turn writes as it starts (relative to the working directory).
    pub writes: std::collections::BTreeMap<String, String>,
}

impl Chosen {
    /// Writes the turn's files into the working directory (parents made), as an edit tool
    /// would; a file that cannot be written is said on stderr and the turn goes on.
    pub fn write_files(&self) {
        for (path, content) in &self.writes {
            let path = std::path::Path::new(path);
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = std::fs::write(path, content) {
                eprintln!("sim: cannot write {}: {e}", path.display());
            }
        }
    }

    /// The reply cut into streamed chunks: one chunk when `chunk_ms` is 0,
    /// otherwise one per word (each keeps its trailing whitespace).
    pub fn chunks(&self) -> Vec<String> {
        split_words(&self.reply, self.chunk_ms == 0)
    }
}

fn split_words(text: &str, whole: bool) -> Vec<String> {
    if whole || text.is_empty() {
        return vec![text.to_string()];
    }
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_space = false;
    for c in text.chars() {
        if in_space && !c.is_whitespace() {
            out.push(std::mem::take(&mut cur));
        }
        in_space = c.is_whitespace();
        cur.push(c);
    }
    out.push(cur);
    out
}

/// The built-in answer: `Response to: <first line of the prompt>`.
pub fn builtin_reply(prompt: &str) -> String {
    let first = prompt.split(['\n', '\r']).next().unwrap_or("");
    format!("Response to: {first}")
}

/// A scenario plus which turns have been used.
#[derive(Clone, Debug)]
pub struct Script {
    /// The scenario.
    pub scenario: Scenario,
    used: Vec<bool>,
}

impl Script {
    /// Starts a script with no turn used yet.
    pub fn new(scenario: Scenario) -> Self {
        let used = vec![false; scenario.turns.len()];
        Self { scenario, used }
    }

    /// Picks the turn for `prompt`: the first unused entry of `turns` whose
    /// `match` is a substring of the prompt (or has no `match`), else `default`,
    /// else the built-in default.
    pub fn select(&mut self, prompt: &str) -> Chosen {
        let hit = self.scenario.turns.iter().enumerate().find(|(i, t)| {
            !self.used[*i] && t.matches.as_deref().is_none_or(|m| prompt.contains(m))
        });
        let turn = match hit {
            Some((i, t)) => {
                self.used[i] = true;
                Some(t.clone())
            }
            None => self.scenario.default.clone(),
        };
        let turn = turn.unwrap_or_default();
        Chosen {
            reply: turn.reply.unwrap_or_else(|| builtin_reply(prompt)),
            thinking: turn.thinking,
            delay_ms: turn.delay_ms,
            chunk_ms: turn.chunk_ms,
            late_transcript_ms: turn.late_transcript_ms,
            end: turn.end,
            dialog_after: turn.dialog_after,
            then_self: turn.then_self,
            writes: turn.writes,
        }
    }
}

#[cfg(test)]
mod tests;
