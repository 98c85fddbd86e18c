//! Gemini CLI (`gemini`; the releases it supports: [`RELEASES`]).
//!
//! - Each worker gets its own `GEMINI_CLI_HOME` (gemini treats it as the home directory) under
//!   its session folder: `.gemini/settings.json` = the user's settings plus umbel's hooks,
//!   `.gemini/trustedFolders.json` = the user's plus the working directory, and links to the
//!   user's credentials (`oauth_creds.json`, `google_accounts.json`, `installation_id`,
//!   `user_id`, `.env`). The user's own `~/.gemini` is never written to.
//! - Launch: `gemini --session-id <uuid> [-m M] [--approval-mode yolo]`.
//! - Hooks: `BeforeAgent` on submit, `AfterAgent` at every turn end — also on errors and Esc,
//!   then with `prompt_response: "[no response text]"`; `Notification` (`ToolPermission`) when a
//!   tool waits for approval.
//! - Chat file: `…/.gemini/tmp/<project>/chats/session-….jsonl`, JSONL with upserts: a record
//!   written again with the same `id` replaces the earlier one; `{"$set":…}` lines (metadata,
//!   curated history) are not needed to find the last turn.

// The provider seam's shared types and helpers (`mod.rs`).
pub mod actions;
pub mod flag_table;
pub mod print;
pub mod stats;
mod thoughts;
use super::mode::{Mode, ModeCycle};
use super::model_switch::{Choose, ModelSwitch, Stage};
use super::*;
use crate::core::errors::{Error, Result};
use crate::core::worker_env::ProviderEnv;
use json_comments::{CommentSettings, StripComments};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The Gemini CLI provider.
pub struct Gemini;

/// Hook events umbel configures for gemini.
pub const HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "BeforeAgent",
    "AfterAgent",
    "BeforeTool",
    "AfterTool",
    "Notification",
    "SessionEnd",
];

/// The line gemini appends to a resumed conversation's chat file once it has loaded it.
pub const RESUME_LOADED: &str = r#"{"$set":{"sessionId":"#;

/// What AfterAgent says when the turn produced no answer (error, cancel).
pub const NO_RESPONSE: &str = "[no response text]";

const INHERIT: &[&str] = &[
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GEMINI_MODEL",
    "GEMINI_DEFAULT_AUTH_TYPE",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_APPLICATION_CREDENTIALS",
];

/// Shift+Tab cycles default → auto_edit → plan (0.61.0), named on the line above the composer.
const MODES: ModeCycle = ModeCycle {
    key: "BTab",
    modes: &[
        Mode {
            id: "default",
            shown: Some("Shift+Tab to accept edits"),
        },
        Mode {
            id: "auto_edit",
            shown: Some("auto-accept edits Shift+Tab to plan"),
        },
        Mode {
            id: "plan",
            shown: Some("plan Shift+Tab to manual"),
        },
    ],
};

/// `/model` opens "Select Model" (0.61.0): `Auto` or `Manual`, then Manual's list of models;
/// Enter takes one for this session while "Remember model for future sessions" reads false.
/// The footer then names it.
const MODELS: ModelSwitch = ModelSwitch::Picker {
    open: "/model",
    typed: Some("Manage model configuration"),
    stages: &[
        Stage {
            title: "Select Model",
            cursor: "●",
            choose: Choose::ModelElse("Manual"),
            key: "Enter",
            session_only: None,
        },
        Stage {
            title: "Select Model",
            cursor: "●",
            choose: Choose::Model,
            key: "Enter",
            session_only: Some("Remember model for future sessions: false"),
        },
    ],
    done: None,
};

static IDENTITY: Identity = Identity {
    prices: &crate::core::prices::UNCHECKED,
    name: "gemini",
    bin_env_var: "UMBEL_GEMINI_BIN",
    env: ProviderEnv {
        inherit: INHERIT,
        // No relaunch: the CLI stays the pane's own process, so kill reaches it.
        fixed: &[("GEMINI_CLI_NO_RELAUNCH", "true")],
    },
    actions: actions::read,
    thoughts: thoughts::read,
    modes: Some(&MODES),
    models: Some(&MODELS),
    config_dir: user_dir,
    user_files: &["settings.json", "trustedFolders.json"],
    composer: Some(&COMPOSER),
    releases: &RELEASES,
    approval: &super::approval::GEMINI,
    question: Some(&super::question::GEMINI),
    stats: stats::read,
    usage: &stats::USAGE,
    print: &print::Shapes,
    flags: flag_table::FLAGS,
};

/// The releases umbel supports.
static RELEASES: Releases = Releases {
    package: "@google/gemini-cli",
    oldest: Version::of("0.55.1"),
    newest_tested: Version::of("0.61.0"),
    tested: &[
        Version::of("0.55.1"),
        Version::of("0.58.0"),
        Version::of("0.61.0"),
    ],
    changes: &[],
};

/// umbel's hooks for `events` added to the user's own (theirs run too); qwen's settings.json
/// holds them the same way.
pub(super) fn add_hooks(
    settings: &mut serde_json::Map<String, Value>,
    hook_command: &str,
    events: &[&str],
) {
    let mut hooks = settings
        .get("hooks")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if let Value::Object(ours) = hooks_json(hook_command, events, 30_000) {
        for (event, entries) in ours {
            let list = hooks.entry(event).or_insert_with(|| json!([]));
            if let (Some(list), Some(ours)) = (list.as_array_mut(), entries.as_array()) {
                list.extend(ours.iter().cloned());
            }
        }
    }
    settings.insert("hooks".into(), Value::Object(hooks));
}

/// The user's trusted folders, and the worker's own: its cwd and every `--add-dir` (else
/// gemini asks "Do you trust the following folders being added to this workspace?").
fn trusted_folders(input: &LaunchInput<'_>) -> Result<serde_json::Map<String, Value>> {
    let mut trusted = user_json("gemini", input, "trustedFolders.json")?;
    trusted.insert(
        input.cwd.to_string_lossy().into_owned(),
        json!("TRUST_FOLDER"),
    );
    for dir in input.flags.iter().filter(|g| g.flag == flags::Flag::AddDir) {
        for path in &dir.values {
            trusted.insert(path.clone(), json!("TRUST_FOLDER"));
        }
    }
    Ok(trusted)
}

/// Credential files linked from the user's `~/.gemini`.
const LINKED: &[&str] = &[
    "oauth_creds.json",
    "google_accounts.json",
    "installation_id",
    "user_id",
    ".env",
];

/// The user's gemini folder (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`).
fn user_dir(env: &[(String, String)]) -> Option<PathBuf> {
    env_get(env, "GEMINI_CLI_HOME")
        .or_else(|| env_get(env, "HOME"))
        .map(|h| Path::new(h).join(".gemini"))
}

/// The question gemini asks at startup for `--include-directories` it does not trust yet.
const ADDED_FOLDERS: &str = "Do you trust the following folders being added to this workspace?";

/// The tools `gemini -p` does not offer the model without `--yolo` (the newest tested release's request
/// tool list, compared with `--yolo`'s): what needs approval is not there to call.
pub const HEADLESS_EXCLUDED: &[&str] = &[
    "run_shell_command",
    "write_file",
    "replace",
    "web_fetch",
    "activate_skill",
    "list_background_processes",
    "read_background_output",
];

/// `--on-permission deny`: the TUI gets headless mode's tool set (`tools.exclude`, after the
/// user's own exclusions).
fn exclude_headless_tools(settings: &mut serde_json::Map<String, Value>) {
    exclude_tools(settings, HEADLESS_EXCLUDED);
}

/// Adds `excluded` to `tools.exclude` after the user's own exclusions (gemini, and qwen, which
/// reads the same setting).
pub(super) fn exclude_tools(settings: &mut serde_json::Map<String, Value>, excluded: &[&str]) {
    let tools = settings.entry("tools").or_insert_with(|| json!({}));
    if !tools.is_object() {
        *tools = json!({});
    }
    let exclude = &mut tools["exclude"];
    if !exclude.is_array() {
        *exclude = json!([]);
    }
    if let Some(list) = exclude.as_array_mut() {
        for tool in excluded {
            if !list.iter().any(|t| t == tool) {
                list.push(json!(tool));
            }
        }
    }
}

/// The user's `file` (a JSON object), read as gemini reads it: through strip-json-comments
/// (`//` and `/* */` comments, positions kept). No file is an empty object; one gemini would
/// refuse is an error at its line and column rather than a worker without the user's settings.
/// qwen (a gemini fork) reads its settings the same way.
pub(super) fn user_json(
    provider: &'static str,
    input: &LaunchInput<'_>,
    file: &str,
) -> Result<serde_json::Map<String, Value>> {
    let Some((path, text)) = input.user_files.iter().find(|(p, _)| p.ends_with(file)) else {
        return Ok(serde_json::Map::new());
    };
    let plain = StripComments::with_settings(CommentSettings::c_style(), text.as_bytes());
    let invalid = |line, column, message: String| Error::UserConfig {
        provider,
        file: path.clone(),
        line,
        column,
        message,
    };
    match serde_json::from_reader::<_, Value>(plain) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(invalid(1, 1, "not a JSON object".into())),
        Err(e) => {
            // serde_json ends its message with the place, which the error already leads with.
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or_default();
            Err(invalid(e.line(), e.column(), message.to_string()))
        }
    }
}

/// Sign-in by key, for gemini and qwen: one of `keys` set in the environment, else a `KEY=` line
/// for one in the CLI's `.env` file.
pub(super) fn key_in_env_or_dot_env(
    env: &[(String, String)],
    files: &[(PathBuf, String)],
    keys: &[&str],
) -> Option<SignIn> {
    if let Some(var) = keys.iter().find(|v| env_get(env, v).is_some()) {
        return Some(SignIn::Ready(format!("{var} is set")));
    }
    let in_dot_env = file_text(files, ".env").is_some_and(|(_, text)| {
        text.lines().any(|l| {
            keys.iter()
                .any(|v| l.trim_start().starts_with(&format!("{v}=")))
        })
    });
    in_dot_env.then(|| SignIn::Ready(".env holds an API key".into()))
}

/// The auth type chosen in the CLI's `settings.json` (`security.auth.selectedType`; gemini and
/// qwen), comments allowed.
pub(super) fn settings_auth_type(files: &[(PathBuf, String)]) -> Option<String> {
    let (_, text) = file_text(files, "settings.json")?;
    let plain = StripComments::with_settings(CommentSettings::c_style(), text.as_bytes());
    let settings: Value = serde_json::from_reader(plain).ok()?;
    let kind = settings.pointer("/security/auth/selectedType")?.as_str()?;
    Some(kind.to_string())
}

/// The keys gemini signs in with from the environment (its `.env` file may hold them too).
const KEY_VARS: &[&str] = &["GEMINI_API_KEY", "GOOGLE_API_KEY"];

/// `umbel doctor`'s judgement of gemini's sign-in: a key in the environment or in
/// `~/.gemini/.env`, Vertex AI, an auth type chosen in settings.json, or Google sign-in
/// credentials (`oauth_creds.json`). Without any, gemini opens "How would you like to
/// authenticate", which umbel refuses as a sign-in screen.
fn signed_in(env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
    if env_get(env, "GOOGLE_GENAI_USE_VERTEXAI").is_some()
        && !KEY_VARS.iter().any(|v| env_get(env, v).is_some())
    {
        return SignIn::Ready("GOOGLE_GENAI_USE_VERTEXAI is set".into());
    }
    if let Some(ready) = key_in_env_or_dot_env(env, files, KEY_VARS) {
        return ready;
    }
    let chosen = settings_auth_type(files);
    let creds = file_text(files, "oauth_creds.json").is_some();
    match chosen {
        Some(kind) if kind != "oauth-personal" || creds => {
            return SignIn::Ready(format!("settings.json: auth {kind}"));
        }
        None if creds => return SignIn::Ready("oauth_creds.json (Google sign-in)".into()),
        _ => {}
    }
    SignIn::missing(
        "neither GEMINI_API_KEY nor GOOGLE_API_KEY is set and gemini has no saved sign-in: it will open on \"How would you like to authenticate\" and `spawn`/`-p` stop there (exit 126)",
        "export GEMINI_API_KEY=<your key>, or run `gemini` once in a terminal and sign in (a fake gemini takes any value: export GEMINI_API_KEY=fake)",
    )
}

impl ProviderModule for Gemini {
    /// `gemini --resume <uuid>` in place of `--session-id` (0.61.0 refuses both together): the
    /// same id, appended to the same chat file (0.61.0 also leaves a header-only file beside it).
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String> {
        let mut args = without_options(args, &["--session-id", "--resume", "-r"], &[]);
        args.extend(["--resume".to_string(), session_id.to_string()]);
        args
    }

    /// 0.61.0 resumed in its TUI fires `SessionStart`, draws its composer, and only then loads
    /// the conversation (`useSessionResume`, once its client is initialized: half a second
    /// later on the offline tier), appending `{"$set":{"sessionId":…}}` to the chat file when
    /// it does. A prompt submitted before that is taken off the input line and lost: no hook,
    /// no model request.
    fn resume_loaded_mark(&self) -> Option<&'static str> {
        Some(RESUME_LOADED)
    }

    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn sign_in_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        let Some(dir) = user_dir(env) else {
            return Vec::new();
        };
        ["settings.json", "oauth_creds.json", ".env"]
            .iter()
            .map(|file| dir.join(file))
            .collect()
    }

    fn sign_in(&self, env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
        signed_in(env, files)
    }

    fn launch(&self, input: &LaunchInput<'_>) -> crate::core::errors::Result<LaunchSpec> {
        let home = input.session_dir.join("gemini-home");
        let dir = home.join(".gemini");
        let mut settings = user_json("gemini", input, "settings.json")?;
        add_hooks(&mut settings, input.hook_command, HOOK_EVENTS);
        let mut args = vec!["--session-id".to_string(), input.session_id.to_string()];
        let trusted = trusted_folders(input)?;
        if let Some(model) = input.model {
            args.extend(["-m".to_string(), model.to_string()]);
        }
        match input.on_permission {
            OnPermission::Allow => args.extend(["--approval-mode".to_string(), "yolo".to_string()]),
            OnPermission::Deny => exclude_headless_tools(&mut settings),
            OnPermission::Stop => {}
        }
        flags::apply_settings(Provider::Gemini, input.flags, &mut settings);
        args.extend(flags::args(Provider::Gemini, input.flags));
        args.extend(input.cli_args.iter().cloned());
        let links = linked(user_dir(input.env), &dir, LINKED);
        Ok(LaunchSpec {
            args,
            files: vec![
                (
                    dir.join("settings.json"),
                    Value::Object(settings).to_string(),
                ),
                (
                    dir.join("trustedFolders.json"),
                    Value::Object(trusted).to_string(),
                ),
            ],
            transcript_path: None,
            links,
            env: vec![(
                "GEMINI_CLI_HOME".into(),
                home.to_string_lossy().into_owned(),
            )],
        })
    }

    fn startup_screen(&self, screen: &str) -> StartupScreen {
        let lines: Vec<&str> = screen
            .lines()
            .map(|l| l.trim().trim_matches('│').trim())
            .collect();
        if let Some(line) = lines
            .iter()
            .find(|l| l.starts_with("How would you like to authenticate"))
        {
            return StartupScreen::SignIn((*line).to_string());
        }
        if let Some(trust) = folder_trust(&lines, TRUST_QUESTION, '●', &COMPOSER) {
            return trust;
        }
        if let Some(line) = lines.iter().find(|l| l.starts_with(ADDED_FOLDERS)) {
            return StartupScreen::Person((*line).to_string());
        }
        // As above: a choice is current only with nothing but its options and frame below it.
        let current = |at: usize| {
            lines[at + 1..].iter().all(|l| {
                numbered(l)
                    || l.chars()
                        .all(|c| c.is_whitespace() || ('─'..='╿').contains(&c))
            })
        };
        match numbered_choice(&lines, '●', &COMPOSER) {
            Some((at, question)) if current(at) => StartupScreen::Person(question),
            _ => COMPOSER.idle_or_other(screen, &lines),
        }
    }

    /// Its input prompt turns an Enter within 40 ms of a paste into a newline (InputPrompt's
    /// `recentUnsafePasteTime`, where the terminal does not speak the kitty keyboard protocol —
    /// tmux does not), and its key reader an Enter within 30 ms of typed text
    /// (`FAST_RETURN_TIMEOUT`). Counted from the paste showing, which is after gemini took it.
    fn enter_after_paste(&self) -> std::time::Duration {
        // 40 ms and a little: the window closes on a timer and a redraw. Recorded on 0.61.0
        // (issue 42), six sends each, from the first look that found the paste drawn: 30 ms took
        // a second Enter 1 in 6 on a quiet machine; 45 ms none, and 1 in 6 under two busy
        // processes (the one whose paste showed 170 ms late) — a newline seen is pressed again.
        std::time::Duration::from_millis(45)
    }

    /// `AfterAgent` after Esc carries the partial answer; the chat's `Request cancelled.` tells.
    fn end_hook_hides_cancel(&self) -> bool {
        true
    }

    fn classify(&self, event: &str, payload: Option<&Value>) -> EventClass {
        match event {
            "SessionStart" => EventClass::Started,
            "BeforeAgent" => EventClass::Submitted,
            "AfterAgent" => match payload.and_then(|p| str_field(p, "prompt_response")) {
                Some(NO_RESPONSE) => EventClass::TurnFailed {
                    reason: "api-error",
                },
                _ => EventClass::TurnEnded,
            },
            "Notification" => match payload.and_then(|p| str_field(p, "notification_type")) {
                Some("ToolPermission") => EventClass::NeedsInput {
                    reason: "permission",
                    tool: payload.and_then(|p| p.get("details")).map(confirmed_tool),
                },
                _ => EventClass::Other,
            },
            "BeforeTool" | "AfterTool" => EventClass::Progress,
            _ => EventClass::Other,
        }
    }

    fn answer_from_payload(&self, payload: &Value) -> Option<String> {
        str_field(payload, "prompt_response")
            .filter(|t| *t != NO_RESPONSE)
            .map(str::to_string)
    }

    fn record_tokens(&self) -> &'static [&'static str] {
        // `type` of the chat records read.
        &["\"gemini\"", "\"error\"", "\"info\"", "\"user\""]
    }

    // The backwards fold skips an older version of a record it already read: reading
    // forwards, a prompt record rewritten later in its own turn as no prompt would still open
    // a turn here. In the recorded sessions gemini rewrites only its answers, never a prompt.
    fn opens_turn(&self, record: &Value) -> bool {
        str_field(record, "id").is_some() && prompt_of(record).is_some()
    }

    fn turn_from_records(&self, records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
        let mut turn = TranscriptTurn::default();
        let mut seen: HashSet<String> = HashSet::new();
        for record in records {
            // `$set` lines rewrite the session's metadata or its curated history (which drops
            // a failed prompt); every record also has a line of its own, which is what counts.
            if visit(&record, &mut seen, &mut turn) {
                break;
            }
        }
        turn
    }
}

/// Folds one chat record (newest first) into the turn; true once the turn's prompt is found.
fn visit(record: &Value, seen: &mut HashSet<String>, turn: &mut TranscriptTurn) -> bool {
    let Some(id) = str_field(record, "id") else {
        return false;
    };
    if !seen.insert(id.to_string()) {
        return false; // an older version of a record already read
    }
    let content = record.get("content");
    match str_field(record, "type") {
        Some("gemini") => {
            let usage = record.pointer("/tokens/output").and_then(Value::as_u64);
            add_tokens(&mut turn.output_tokens, usage);
            let text = content.and_then(Value::as_str).unwrap_or("");
            if turn.answer.is_none() && !text.is_empty() {
                turn.answer = Some(text.to_string());
                turn.ended = true;
            }
        }
        Some("error") if turn.answer.is_none() => {
            turn.answer = content.and_then(Value::as_str).map(str::to_string);
            turn.ended = true;
            turn.is_error = true;
            turn.error_reason = Some("api-error");
        }
        Some("info")
            if turn.answer.is_none()
                && content.and_then(Value::as_str) == Some("Request cancelled.") =>
        {
            turn.ended = true;
            turn.is_error = true;
            turn.error_reason = Some("interrupted");
        }
        _ => {
            if let Some(prompt) = prompt_of(record) {
                turn.prompt = Some(prompt);
                return true;
            }
        }
    }
    false
}

/// The prompt of a `user` record that opens a turn (not the session context).
fn prompt_of(record: &Value) -> Option<String> {
    if str_field(record, "type") != Some("user") {
        return None;
    }
    let texts: Vec<&str> = record
        .get("content")
        .and_then(Value::as_array)
        .map(|parts| parts.iter().filter_map(|p| str_field(p, "text")).collect())
        .unwrap_or_default();
    (!texts.is_empty() && !texts[0].starts_with("<session_context>")).then(|| texts.join("\n"))
}

/// The composer line and its empty text.
/// The trust dialog's question.
const TRUST_QUESTION: &str = "Do you trust the files in this folder?";

const COMPOSER: Composer = Composer {
    marks: &['>', '*'],
    placeholder: "Type your message or @path/to/file",
    busy: "esc to cancel",
    pasting: None,
};

/// The tool a `ToolPermission` notification's confirmation `details` ask about, as every CLI's
/// pending tool is shown: `{name, input}`. gemini names the confirmation's kind, not its tool:
/// `exec` is its shell tool, `mcp` names the server's tool, `info` a fetch.
fn confirmed_tool(details: &Value) -> Value {
    let name = match str_field(details, "type") {
        Some("exec") => "run_shell_command",
        Some("info") => "web_fetch",
        Some("mcp") => str_field(details, "toolName").unwrap_or("mcp"),
        Some(other) => other,
        None => "?",
    };
    serde_json::json!({ "name": name, "input": details })
}

#[cfg(test)]
mod tests;
