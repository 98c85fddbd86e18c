//! OpenCode (`opencode`; the releases it supports: [`RELEASES`]).
//!
//! - Turn ends come from opencode's own bus events, heard by a plugin umbel writes into the
//!   worker's session folder (`opencode-umbel.js`) and loads through `OPENCODE_CONFIG_CONTENT`
//!   (`{"plugin": ["file://…"], "permission": …, "experimental": {"disable_paste_summary":
//!   true}}`), which opencode merges over the user's own config: the user's `~/.config/opencode`
//!   is never written to. Without the paste summary off, opencode trims a pasted prompt of 3
//!   lines or more and submits it with a space after it, so the model would not see what was
//!   sent. The plugin runs umbel's hook command for the first prompt's `session.created`
//!   (`SessionCreated`) and a prompt's first `message.updated` (`PromptTaken`), both submitted,
//!   `session.status` turning busy (`SessionBusy`: submitted too; its other states
//!   `SessionStatus`; umbel reads a hook by its name alone), `session.idle`
//!   (`SessionIdle`: the turn ended), `session.error` (`SessionError`: failed, or interrupted
//!   for `MessageAbortedError`), `permission.asked` (`PermissionAsked`: needs input, with the
//!   tool) and tool parts changing state (`ToolUpdate`). Why a plugin rather than the server's
//!   SSE `/event` stream: docs/providers.md.
//! - Record: the plugin appends every `message.updated` (a prompt's first version only) and
//!   `message.part.updated` of the worker's session to `opencode-transcript.jsonl` as
//!   `{"type":"message","info":…}` / `{"type":"part","part":…}`: the message and part objects
//!   opencode stores (what `opencode export` prints), upserted by id — a later line with the same
//!   id replaces the earlier one.
//! - Launch: `opencode [-m provider/model]`; `--unattended` sets `"permission": "allow"`,
//!   `--on-permission deny` sets every ask to `deny`, `stop` keeps the user's permissions.

// The provider seam's shared types and helpers (`mod.rs`).
pub mod actions;
pub mod flag_table;
pub mod print;
pub mod stats;
mod thoughts;
use super::mode::{Mode, ModeCycle};
use super::*;
use crate::core::worker_env::ProviderEnv;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The OpenCode provider.
pub struct Opencode;

/// The plugin umbel writes for each worker (`__UMBEL__` becomes its hook command and record).
pub const PLUGIN: &str = include_str!("plugin.js");

/// The plugin's file in the worker's session folder.
pub const PLUGIN_FILE: &str = "opencode-umbel.js";

/// The record the plugin writes in the worker's session folder.
pub const TRANSCRIPT_FILE: &str = "opencode-transcript.jsonl";

/// The variable opencode reads extra config from (merged over the user's files).
pub const CONFIG_VAR: &str = "OPENCODE_CONFIG_CONTENT";

/// Hook names the plugin reports under.
pub const HOOK_EVENTS: &[&str] = &[
    "PluginStart",
    "SessionCreated",
    "PromptTaken",
    "SessionBusy",
    "SessionStatus",
    "SessionIdle",
    "SessionError",
    "PermissionAsked",
    "PermissionReplied",
    "ToolUpdate",
    "QuestionAsked",
    "QuestionReplied",
    "QuestionRejected",
];

/// The provider keys opencode reads from the environment (its providers' `env` names), and
/// where its config lives.
const INHERIT: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "GROQ_API_KEY",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "OPENCODE_CONFIG",
    "OPENCODE_DISABLE_MODELS_FETCH",
];

/// Tab switches the agent build ↔ plan (1.18.33), named in the input box.
const MODES: ModeCycle = ModeCycle {
    key: "Tab",
    modes: &[
        Mode {
            id: "build",
            shown: Some("┃  Build ·"),
        },
        Mode {
            id: "plan",
            shown: Some("┃  Plan ·"),
        },
    ],
};

static IDENTITY: Identity = Identity {
    prices: &crate::core::prices::UNCHECKED,
    name: "opencode",
    bin_env_var: "UMBEL_OPENCODE_BIN",
    env: ProviderEnv {
        inherit: INHERIT,
        fixed: &[
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_TERMINAL_TITLE", "1"),
        ],
    },
    actions: actions::read,
    thoughts: thoughts::read,
    modes: Some(&MODES),
    models: None,
    config_dir: user_dir,
    user_files: &[],
    // Its input is a box with a status row inside (`input_box`), not one composer line.
    composer: None,
    releases: &RELEASES,
    approval: &super::approval::OPENCODE,
    question: Some(&super::question::OPENCODE),
    stats: stats::read,
    usage: &stats::USAGE,
    print: &print::Shapes,
    flags: flag_table::FLAGS,
};

/// The releases umbel supports: those published in the 90 days before 1.18.33 (2026-09-28),
/// from 1.17.18 (2026-07-13) on. 1.17.15 (2026-07-09) is inside those days too, but npm has no
/// Linux binary of it (`opencode-linux-x64@1.17.15`), so it could not be tested.
static RELEASES: Releases = Releases {
    package: "opencode-ai",
    oldest: Version::of("1.17.18"),
    newest_tested: Version::of("1.18.33"),
    tested: &[
        Version::of("1.17.18"),
        Version::of("1.18.16"),
        Version::of("1.18.33"),
    ],
    changes: &[],
};

/// The user's opencode folder (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`).
fn user_dir(env: &[(String, String)]) -> Option<PathBuf> {
    env_get(env, "XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| env_get(env, "HOME").map(|h| Path::new(h).join(".config")))
        .map(|dir| dir.join("opencode"))
}

/// The keys opencode's providers read from the environment.
const KEY_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "GROQ_API_KEY",
];

/// opencode's data folder (`$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`), where
/// `opencode auth login` keeps `auth.json`.
fn data_dir(env: &[(String, String)]) -> Option<PathBuf> {
    env_get(env, "XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| env_get(env, "HOME").map(|h| Path::new(h).join(".local/share")))
        .map(|dir| dir.join("opencode"))
}

/// `umbel doctor`'s judgement of opencode's sign-in: a provider key in the environment, a
/// saved `opencode auth login`, or providers set up in opencode.json (a key or base URL there).
fn signed_in(env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
    if !files.iter().any(|(path, _)| path.ends_with(SDK_MANIFEST)) {
        let dir = user_dir(env).map_or_else(
            || "~/.config/opencode".to_string(),
            |d| d.display().to_string(),
        );
        return SignIn::missing(
            format!(
                "opencode's plugin SDK is not in {dir}: opencode installs it there with npm when it starts with a plugin (umbel's) and waits for that install before it draws its TUI — offline, for ever"
            ),
            format!(
                "run `opencode` once where the npm registry is reachable, or `npm install --prefix {dir} @opencode-ai/plugin@$(opencode --version)`"
            ),
        );
    }
    signed_in_by_key(env, files)
}

/// The plugin SDK's manifest in the config folder, which opencode's own install leaves.
const SDK_MANIFEST: &str = "node_modules/@opencode-ai/plugin/package.json";

/// Sign-in proper: a provider key, a saved sign-in, or a configured provider.
fn signed_in_by_key(env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
    if let Some(var) = KEY_VARS.iter().find(|v| env_get(env, v).is_some()) {
        return SignIn::Ready(format!("{var} is set"));
    }
    let saved = file_text(files, "auth.json")
        .and_then(|(_, text)| serde_json::from_str::<Value>(text).ok())
        .is_some_and(|auth| auth.as_object().is_some_and(|o| !o.is_empty()));
    if saved {
        return SignIn::Ready("auth.json (opencode auth login)".into());
    }
    let configured = file_text(files, "opencode.json")
        .and_then(|(_, text)| serde_json::from_str::<Value>(text).ok())
        .is_some_and(|config| {
            config
                .get("provider")
                .is_some_and(|p| p.as_object().is_some_and(|o| !o.is_empty()))
        });
    if configured {
        return SignIn::Ready("opencode.json: provider".into());
    }
    SignIn::missing(
        "no provider key is set and opencode has no saved sign-in or configured provider: its turns fail with an authentication error",
        "run `opencode auth login` once in a terminal, or export ANTHROPIC_API_KEY / OPENAI_API_KEY (a fake opencode takes any value)",
    )
}

/// The plugin source for one worker.
pub fn plugin_source(hook_command: &str, transcript: &Path) -> String {
    let umbel = json!({ "hook": hook_command, "transcript": transcript.to_string_lossy() });
    PLUGIN.replace("__UMBEL__", &umbel.to_string())
}

/// What `--on-permission` makes of opencode's permissions (`None`: the user's own).
fn permission(on: OnPermission) -> Option<Value> {
    match on {
        OnPermission::Allow => Some(json!("allow")),
        OnPermission::Deny => Some(json!({
            "edit": "deny", "bash": "deny", "webfetch": "deny", "external_directory": "deny",
            "doom_loop": "deny"
        })),
        OnPermission::Stop => None,
    }
}

/// The config umbel hands opencode in [`CONFIG_VAR`].
pub fn config_content(plugin: &Path, on: OnPermission) -> Value {
    let mut config = json!({
        "plugin": [format!("file://{}", plugin.to_string_lossy())],
        "experimental": { "disable_paste_summary": true },
    });
    if let Some(permission) = permission(on) {
        config["permission"] = permission;
    }
    config
}

impl ProviderModule for Opencode {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn sign_in_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = data_dir(env)
            .map(|d| d.join("auth.json"))
            .into_iter()
            .collect();
        if let Some(dir) = user_dir(env) {
            files.extend([dir.join("opencode.json"), dir.join(SDK_MANIFEST)]);
        }
        files
    }

    fn sign_in(&self, env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
        signed_in(env, files)
    }

    /// `opencode --session <id>` reopens the session (its TUI and `run` both take it).
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String> {
        let mut args = without_options(args, &["--session", "-s"], &["--continue", "-c"]);
        args.extend(["--session".to_string(), session_id.to_string()]);
        args
    }

    fn launch(&self, input: &LaunchInput<'_>) -> crate::core::errors::Result<LaunchSpec> {
        let plugin = input.session_dir.join(PLUGIN_FILE);
        let transcript = input.session_dir.join(TRANSCRIPT_FILE);
        let mut args = Vec::new();
        if let Some(model) = input.model {
            args.extend(["-m".to_string(), model.to_string()]);
        }
        args.extend(flags::args(Provider::Opencode, input.flags));
        args.extend(input.cli_args.iter().cloned());
        let config = config_content(&plugin, input.on_permission);
        Ok(LaunchSpec {
            args,
            files: vec![
                (plugin, plugin_source(input.hook_command, &transcript)),
                (transcript.clone(), String::new()),
            ],
            transcript_path: Some(transcript),
            links: Vec::new(),
            env: vec![(CONFIG_VAR.into(), config.to_string())],
        })
    }

    fn startup_screen(&self, screen: &str) -> StartupScreen {
        let lines: Vec<&str> = screen
            .lines()
            .map(|l| l.trim().trim_matches('┃').trim())
            .collect();
        // `△ Permission required` at the top of the dialog that takes the input box's place.
        if lines.iter().any(|l| l.contains(PERMISSION_TITLE)) {
            return StartupScreen::Person(PERMISSION_TITLE.to_string());
        }
        match InputBox::read(screen) {
            Some(input) if input.empty() && !screen.contains(BUSY) => StartupScreen::Idle,
            _ => StartupScreen::Other,
        }
    }

    fn input_area<'a>(&self, screen: &'a str) -> Option<&'a str> {
        InputBox::read(screen).map(|input| &screen[input.offset..])
    }

    fn pending_input(&self, screen: &str) -> bool {
        InputBox::read(screen).is_some_and(|input| !input.empty())
    }

    fn input_line_at(&self, screen: &str) -> Option<(usize, String)> {
        InputBox::read(screen).map(|input| (input.row, input.text))
    }

    fn busy_marker(&self) -> Option<&'static str> {
        Some(BUSY)
    }

    /// After Ctrl-U on a pasted last line its caret is at the input's start, where Backspace
    /// deletes nothing: Ctrl-K takes the line from there.
    fn clear_keys(&self) -> &'static [&'static str] {
        &["C-u", "C-k", "BSpace"]
    }

    /// Its TUI interrupts on the second Esc within 5 s (`session_interrupt`); the first shows
    /// `esc again to interrupt`.
    fn interrupt_keys(&self) -> &'static [&'static str] {
        &["Escape", "Escape"]
    }

    /// A prompt's stored message: `SessionCreated` comes with the first only, `SessionBusy`
    /// with each busy spell.
    fn counts_prompt(&self, event: &str) -> bool {
        event == "PromptTaken"
    }

    fn classify(&self, event: &str, payload: Option<&Value>) -> EventClass {
        match event {
            "PluginStart" => EventClass::Started,
            // The prompt was taken: the first prompt's session made, a prompt stored, the
            // session busy (whichever comes first confirms a send).
            "SessionCreated" | "PromptTaken" | "SessionBusy" => EventClass::Submitted,
            // An Esc abort may end the turn with the idle alone; the plugin hands it the
            // newest assistant message's error.
            "SessionIdle" => match payload.and_then(|p| p.get("error")) {
                Some(error) => EventClass::TurnFailed {
                    reason: error_reason(Some(error)),
                },
                None => EventClass::TurnEnded,
            },
            "SessionError" => EventClass::TurnFailed {
                reason: error_reason(payload.and_then(|p| p.get("error"))),
            },
            "PermissionAsked" => EventClass::NeedsInput {
                reason: "permission",
                tool: payload.map(pending_tool),
            },
            // A tool part that started running may be announced after the permission its run
            // asks for (the bus does not keep their order): only its end means work moved.
            "ToolUpdate"
                if payload.and_then(|p| p.pointer("/state/status")) == Some(&"running".into()) =>
            {
                EventClass::Other
            }
            "PermissionReplied" | "ToolUpdate" => EventClass::Progress,
            _ => EventClass::Other,
        }
    }

    /// `session.idle` carries no text: the answer is read from the record.
    fn answer_from_payload(&self, _payload: &Value) -> Option<String> {
        None
    }

    fn record_tokens(&self) -> &'static [&'static str] {
        // Messages, and the text and tool parts (step markers are not read).
        &["\"message\"", "\"text\"", "\"tool\""]
    }

    fn opens_turn(&self, record: &Value) -> bool {
        str_field(record, "type") == Some("message")
            && record.pointer("/info/role").and_then(Value::as_str) == Some("user")
    }

    fn turn_from_records(&self, records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
        let mut fold = Fold::default();
        for record in records {
            if fold.visit(&record) {
                break;
            }
        }
        fold.finish()
    }
}

/// The tool a permission question is about: `{"name": <permission>, "input": <metadata>}`
/// (opencode names the permission `bash`, `edit`, … and puts the call's details in metadata).
fn pending_tool(payload: &Value) -> Value {
    let name = str_field(payload, "permission")
        .or_else(|| str_field(payload, "type"))
        .unwrap_or("?");
    let input = payload
        .get("metadata")
        .cloned()
        .or_else(|| payload.get("patterns").cloned())
        .unwrap_or(Value::Null);
    json!({ "name": name, "input": input })
}

/// What an opencode error object (`{"name": …, "data": {"message": …}}`) means for the turn.
pub fn error_reason(error: Option<&Value>) -> &'static str {
    match error.and_then(|e| str_field(e, "name")) {
        Some("MessageAbortedError") => "interrupted",
        _ => "api-error",
    }
}

/// The turn as read backwards through the record.
#[derive(Default)]
struct Fold {
    turn: TranscriptTurn,
    seen: HashSet<String>,
    /// Text parts, newest first: (message id, text).
    texts: Vec<(String, String)>,
    /// Assistant messages, each in its newest version: (message id, info).
    assistants: Vec<(String, Value)>,
    /// The user message the fold stopped at.
    prompt_id: Option<String>,
    /// The newest assistant message's error text (`error.data.message`).
    error: Option<String>,
}

impl Fold {
    /// Folds one record (newest first); true once the prompt is found.
    fn visit(&mut self, record: &Value) -> bool {
        match str_field(record, "type") {
            Some("message") => {
                let Some(info) = record.get("info") else {
                    return false;
                };
                let id = str_field(info, "id").unwrap_or("").to_string();
                if !self.seen.insert(id.clone()) {
                    return false;
                }
                match str_field(info, "role") {
                    Some("user") => {
                        self.turn.prompt = Some(self.prompt_of(&id));
                        self.prompt_id = Some(id);
                        return true;
                    }
                    Some("assistant") => self.assistants.push((id, info.clone())),
                    _ => {}
                }
            }
            Some("part") => {
                let Some(part) = record.get("part") else {
                    return false;
                };
                let id = str_field(part, "id").unwrap_or("").to_string();
                if !self.seen.insert(id) || str_field(part, "type") != Some("text") {
                    return false;
                }
                if part.get("synthetic") == Some(&Value::Bool(true)) {
                    return false;
                }
                let message = str_field(part, "messageID").unwrap_or("").to_string();
                let text = str_field(part, "text").unwrap_or("").to_string();
                self.texts.push((message, text));
            }
            _ => {}
        }
        false
    }

    /// Whether message `id` belongs to the turn: it is newer than the prompt (ids sort by time).
    /// An older message updated again after the prompt (opencode rewrites an aborted one later)
    /// is appended after the prompt's records, and is no part of this turn.
    fn in_turn(&self, id: &str) -> bool {
        self.prompt_id.as_deref().is_none_or(|prompt| id > prompt)
    }

    /// The turn's assistant messages: their tokens, and from the newest whether the turn
    /// ended and how.
    fn assistants(&mut self) {
        let mine: Vec<(String, Value)> = std::mem::take(&mut self.assistants)
            .into_iter()
            .filter(|(id, _)| self.in_turn(id))
            .collect();
        for (_, info) in &mine {
            let output = info.pointer("/tokens/output").and_then(Value::as_u64);
            add_tokens(&mut self.turn.output_tokens, output);
        }
        if let Some((_, newest)) = mine.iter().max_by(|a, b| a.0.cmp(&b.0)) {
            self.newest(newest);
        }
    }

    /// The newest assistant message: whether the turn ended, and how.
    fn newest(&mut self, info: &Value) {
        if let Some(error) = info.get("error") {
            let reason = error_reason(Some(error));
            self.error = error
                .pointer("/data/message")
                .and_then(Value::as_str)
                .map(str::to_string);
            self.turn.ended = true;
            self.turn.is_error = true;
            self.turn.error_reason = Some(reason);
            return;
        }
        let completed = info
            .pointer("/time/completed")
            .is_some_and(|t| !t.is_null());
        let finish = str_field(info, "finish");
        self.turn.ended = completed && finish != Some("tool-calls");
    }

    /// The prompt: the text parts of the user message `id`, oldest first.
    fn prompt_of(&self, id: &str) -> String {
        let texts: Vec<&str> = self
            .texts
            .iter()
            .rev()
            .filter(|(message, _)| message == id)
            .map(|(_, text)| text.as_str())
            .collect();
        texts.join("\n")
    }

    fn finish(mut self) -> TranscriptTurn {
        self.assistants();
        // The prompt's own texts are not newer than it: only the answer's are in the turn.
        let answer = self
            .texts
            .iter()
            .find(|(message, text)| self.in_turn(message) && !text.is_empty())
            .map(|(_, text)| text.clone());
        // A failed turn's answer is its error, as the other providers' records give it.
        self.turn.answer = answer.or(self.error.take());
        self.turn
    }
}

/// The text umbel reads as opencode's permission question.
pub const PERMISSION_TITLE: &str = "Permission required";

/// What the empty input shows first (a suggestion follows it: `Ask anything… "Fix a TODO…"`).
const PLACEHOLDER: &str = "Ask anything";

/// What opencode shows below its input while a turn runs.
const BUSY: &str = "esc interrupt";

/// opencode's input box, as 1.18.33 draws it (recorded in `tests/data/opencode/1.18.33/`):
/// rows whose left edge is `┃`, closed by a `╹▀▀▀…` row; the last `┃` row is the agent and model
/// (`Build · Claude Sonnet 4.5 (latest) Anthropic`), the rows above it hold the input.
struct InputBox {
    /// The first input row (from 0) and the screen's byte offset where it starts.
    row: usize,
    offset: usize,
    /// The input rows' text, joined by newlines, without the edge.
    text: String,
}

impl InputBox {
    /// The lowest input box on `screen`, if one is drawn.
    fn read(screen: &str) -> Option<Self> {
        let rows: Vec<(usize, &str)> = screen
            .split_inclusive('\n')
            .scan(0, |offset, line| {
                let at = *offset;
                *offset += line.len();
                Some((at, line.trim()))
            })
            .collect();
        let bottom = rows.iter().rposition(|(_, l)| l.starts_with('╹'))?;
        let top = rows[..bottom]
            .iter()
            .rposition(|(_, l)| !l.starts_with('┃'))
            .map_or(0, |i| i + 1);
        // The box's rows without the status row; at least one input row.
        let inside = rows.get(top..bottom.checked_sub(1)?)?;
        let (first, _) = inside
            .iter()
            .enumerate()
            .find(|(_, (_, l))| !l.trim_start_matches('┃').trim().is_empty())
            .unwrap_or((0, inside.first()?));
        let text: Vec<&str> = inside[first..]
            .iter()
            .map(|(_, l)| l.trim_start_matches('┃').trim())
            .collect();
        Some(InputBox {
            row: top + first,
            offset: inside[first].0,
            text: text.join("\n").trim().to_string(),
        })
    }

    /// Whether the input holds nothing the person typed (the placeholder shows).
    fn empty(&self) -> bool {
        self.text.is_empty() || self.text.starts_with(PLACEHOLDER)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod release_tests;
