//! Qwen Code (`qwen`, a Gemini CLI fork; the releases it supports: [`RELEASES`]).
//!
//! - Each worker gets its own `QWEN_HOME` (qwen's global `~/.qwen`) under its session folder:
//!   `settings.json` = the user's settings plus umbel's hooks, with two background features off
//!   (below), and links to the user's `.env`, `installation_id` and `QWEN.md`. The user's own
//!   `~/.qwen` is never written to.
//! - Launch: `qwen --session-id <uuid> [-m M] [--approval-mode yolo]`; the API is whatever the
//!   user's settings or `OPENAI_API_KEY` / `OPENAI_BASE_URL` / `OPENAI_MODEL` say.
//! - Hooks: claude's names and payloads (`SessionStart`, `UserPromptSubmit`, `PreToolUse`,
//!   `PermissionRequest`, `PostToolUse`, `Stop` with `last_assistant_message`, `StopFailure`,
//!   `Notification` `permission_prompt`). After a tool's result qwen fires `UserPromptSubmit`
//!   again with an empty `prompt`: that is progress, not a new turn. Esc fires nothing and
//!   writes nothing: qwen puts the prompt back into its input box under `Request cancelled.`
//!   ([`ProviderModule::prompt_restored`]).
//! - Chat record: `$QWEN_HOME/projects/<cwd, non-alphanumerics as ->/chats/<session>.jsonl`
//!   (the hooks' `transcript_path`): `user` (the prompt, `provenance: real_user`), `assistant`
//!   (`message.parts`: text, `functionCall`), `tool_result` (`functionResponse`) and `system`
//!   records (`ui_telemetry` `qwen-code.api_error` for a failed request).
//! - Off in the worker's settings: managed auto-memory (a background agent after each turn that
//!   calls the model with tools, firing the worker's tool hooks after its `Stop`) and follow-up
//!   suggestions (ghost text in the input box that Enter accepts).

// The provider seam's shared types and helpers (`mod.rs`).
pub mod actions;
pub mod flag_table;
pub mod print;
pub mod stats;
mod thoughts;
use super::mode::{Mode, ModeCycle};
use super::*;
use crate::core::errors::Result;
use crate::core::worker_env::ProviderEnv;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The Qwen Code provider.
pub struct Qwen;

/// Qwen's own hook events, after [`SHARED_HOOK_EVENTS`].
const OWN_HOOK_EVENTS: &[&str] = &["Notification", "Stop", "StopFailure", "SessionEnd"];

/// The variables qwen signs in with (OpenAI-compatible, and DashScope's key).
const KEY_VARS: &[&str] = &["OPENAI_API_KEY", "DASHSCOPE_API_KEY"];

const INHERIT: &[&str] = &[
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "DASHSCOPE_API_KEY",
];

/// Shift+Tab cycles default → auto-edit → auto → yolo → plan (0.24.4), named on the last line.
const MODES: ModeCycle = ModeCycle {
    key: "BTab",
    modes: &[
        Mode {
            id: "default",
            shown: Some("Ask permissions (shift + tab to cycle)"),
        },
        Mode {
            id: "auto-edit",
            shown: Some("auto-accept edits (shift + tab to cycle)"),
        },
        Mode {
            id: "auto",
            shown: Some("Auto mode (shift + tab to cycle)"),
        },
        Mode {
            id: "yolo",
            shown: Some("YOLO mode (shift + tab to cycle)"),
        },
        Mode {
            id: "plan",
            shown: Some("plan mode (shift + tab to cycle)"),
        },
    ],
};

static IDENTITY: Identity = Identity {
    prices: &crate::core::prices::UNCHECKED,
    name: "qwen",
    bin_env_var: "UMBEL_QWEN_BIN",
    env: ProviderEnv {
        inherit: INHERIT,
        // No relaunch: the CLI stays the pane's own process, so kill reaches it.
        fixed: &[("QWEN_CODE_NO_RELAUNCH", "true")],
    },
    actions: actions::read,
    thoughts: thoughts::read,
    modes: Some(&MODES),
    models: None,
    config_dir: user_dir,
    user_files: &["settings.json"],
    composer: Some(&COMPOSER),
    releases: &RELEASES,
    approval: &super::approval::QWEN,
    question: Some(&super::question::QWEN),
    stats: stats::read,
    usage: &stats::USAGE,
    print: &print::Shapes,
    flags: flag_table::FLAGS,
};

/// The releases umbel supports: those published in the 90 days before 0.24.4 (2026-09-22), from
/// 0.23.0 (2026-09-08) on. The registry also dates 0.21.2, 0.21.10 and 0.15.10 inside those
/// days, each published after a newer release (fixes to older lines), and 0.15.6 at the hour it
/// dates a dozen old opencode releases (2026-08-24, a re-publication): none starts the window.
static RELEASES: Releases = Releases {
    package: "@qwen-code/qwen-code",
    oldest: Version::of("0.23.0"),
    newest_tested: Version::of("0.24.4"),
    tested: &[
        Version::of("0.23.0"),
        Version::of("0.23.4"),
        Version::of("0.24.4"),
    ],
    changes: &[],
};

/// The user's qwen folder (`$QWEN_HOME`, else `~/.qwen`).
fn user_dir(env: &[(String, String)]) -> Option<PathBuf> {
    env_get(env, "QWEN_HOME")
        .map(PathBuf::from)
        .or_else(|| env_get(env, "HOME").map(|h| Path::new(h).join(".qwen")))
}

/// Files linked from the user's qwen folder.
const LINKED: &[&str] = &[".env", "installation_id", "QWEN.md"];

/// The tools qwen's print mode does not offer the model without `--yolo` (0.24.4's request tool
/// list, compared with the TUI's): `--on-permission deny` leaves them out of the TUI too.
pub const HEADLESS_EXCLUDED: &[&str] = &[
    "run_shell_command",
    "write_file",
    "edit",
    "notebook_edit",
    "ask_user_question",
];

/// The settings umbel turns off in a worker (see the module doc).
fn quiet_background(settings: &mut serde_json::Map<String, Value>) {
    for (section, key) in [
        ("memory", "enableManagedAutoMemory"),
        ("ui", "enableFollowupSuggestions"),
    ] {
        let entry = settings.entry(section).or_insert_with(|| json!({}));
        if !entry.is_object() {
            *entry = json!({});
        }
        entry[key] = json!(false);
    }
}

/// `umbel doctor`'s judgement of qwen's sign-in: a key in the environment or in `~/.qwen/.env`,
/// or an auth type chosen in settings.json. Without any, qwen opens "Connect a Provider".
fn signed_in(env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
    if let Some(ready) = super::gemini::key_in_env_or_dot_env(env, files, KEY_VARS) {
        return ready;
    }
    if let Some(kind) = super::gemini::settings_auth_type(files) {
        return SignIn::Ready(format!("settings.json: auth {kind}"));
    }
    SignIn::missing(
        "OPENAI_API_KEY is not set and qwen has no provider in its settings: it will open on \"Connect a Provider\" and `spawn`/`-p` stop there (exit 126)",
        "export OPENAI_API_KEY=<your key> (with OPENAI_BASE_URL and OPENAI_MODEL for your endpoint), or run `qwen` once in a terminal and connect a provider (a fake qwen takes any value: export OPENAI_API_KEY=fake)",
    )
}

/// The folder trust dialog's question (only with `security.folderTrust.enabled`).
const TRUST_QUESTION: &str = "Do you trust this folder?";

/// The sign-in screen's heading.
const SIGN_IN: &str = "Connect a Provider";

impl ProviderModule for Qwen {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn sign_in_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        let Some(dir) = user_dir(env) else {
            return Vec::new();
        };
        ["settings.json", ".env"]
            .iter()
            .map(|file| dir.join(file))
            .collect()
    }

    fn sign_in(&self, env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
        signed_in(env, files)
    }

    /// `--resume <id>` in place of `--session-id <id>`, as gemini (`qwen --help` 0.24.4:
    /// "-r, --resume  Resume a specific session by its ID").
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String> {
        let mut args = without_options(args, &["--session-id", "--resume", "-r"], &[]);
        args.extend(["--resume".to_string(), session_id.to_string()]);
        args
    }

    fn launch(&self, input: &LaunchInput<'_>) -> Result<LaunchSpec> {
        let home = input.session_dir.join("qwen-home");
        let mut settings = super::gemini::user_json("qwen", input, "settings.json")?;
        let events = [SHARED_HOOK_EVENTS, OWN_HOOK_EVENTS].concat();
        super::gemini::add_hooks(&mut settings, input.hook_command, &events);
        quiet_background(&mut settings);
        let mut args = vec!["--session-id".to_string(), input.session_id.to_string()];
        if let Some(model) = input.model {
            args.extend(["-m".to_string(), model.to_string()]);
        }
        match input.on_permission {
            OnPermission::Allow => args.extend(["--approval-mode".to_string(), "yolo".to_string()]),
            OnPermission::Deny => super::gemini::exclude_tools(&mut settings, HEADLESS_EXCLUDED),
            OnPermission::Stop => {}
        }
        flags::apply_settings(Provider::Qwen, input.flags, &mut settings);
        args.extend(flags::args(Provider::Qwen, input.flags));
        args.extend(input.cli_args.iter().cloned());
        let links = linked(user_dir(input.env), &home, LINKED);
        Ok(LaunchSpec {
            args,
            files: vec![(
                home.join("settings.json"),
                Value::Object(settings).to_string(),
            )],
            transcript_path: Some(transcript_path(&home, input.cwd, input.session_id)),
            links,
            env: vec![("QWEN_HOME".into(), home.to_string_lossy().into_owned())],
        })
    }

    fn startup_screen(&self, screen: &str) -> StartupScreen {
        let lines: Vec<&str> = screen
            .lines()
            .map(|l| l.trim().trim_matches(['│', '█']).trim())
            .collect();
        if let Some(line) = lines.iter().find(|l| l.starts_with(SIGN_IN)) {
            return StartupScreen::SignIn((*line).to_string());
        }
        if let Some(trust) = folder_trust(&lines, TRUST_QUESTION, '›', &COMPOSER) {
            return trust;
        }
        match numbered_choice(&lines, '›', &COMPOSER) {
            Some((_, question)) => StartupScreen::Person(question),
            None => COMPOSER.idle_or_other(screen, &lines),
        }
    }

    /// Esc leaves no hook: the prompt is back in the input box with no turn running — under
    /// `Request cancelled.` once the model said something, and with the whole turn taken off
    /// the screen and out of the chat record before that (0.24.4's auto-restore).
    fn prompt_restored(&self, screen: &str) -> bool {
        self.pending_input(screen) && !screen.contains(COMPOSER.busy)
    }

    fn classify(&self, event: &str, payload: Option<&Value>) -> EventClass {
        match event {
            // The model's next request after a tool's result, not a prompt.
            "UserPromptSubmit"
                if payload.is_some_and(|p| {
                    str_field(p, "prompt").unwrap_or("").is_empty()
                        && str_field(p, "submitted_prompt").is_none()
                }) =>
            {
                EventClass::Progress
            }
            _ => claude_style_class(event, payload),
        }
    }

    fn record_tokens(&self) -> &'static [&'static str] {
        // `type` of the chat records read (the api_error telemetry is a `system` record).
        &[
            "\"assistant\"",
            "\"user\"",
            "\"tool_result\"",
            "\"qwen-code.api_error\"",
            // The telemetry naming the turn's `prompt_id`.
            "\"prompt_id\"",
        ]
    }

    /// Every hook names its turn: `<session>########<prompt number>`, as the turn's telemetry
    /// records do.
    fn submit_turn_id(&self, payload: &Value) -> Option<String> {
        str_field(payload, "prompt_id").map(str::to_string)
    }

    fn opens_turn(&self, record: &Value) -> bool {
        prompt_of(record).is_some()
    }

    fn turn_from_records(&self, records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
        let mut turn = TranscriptTurn::default();
        for record in records {
            if let Some(prompt) = prompt_of(&record) {
                turn.prompt = Some(prompt);
                break;
            }
            visit(&record, &mut turn);
        }
        turn
    }
}

/// Folds one chat record (newest first) into the turn.
fn visit(record: &Value, turn: &mut TranscriptTurn) {
    // The turn's id, as its telemetry names it.
    if turn.turn_id.is_none() {
        let id = record.pointer("/systemPayload/uiEvent/prompt_id");
        turn.turn_id = id.and_then(Value::as_str).map(str::to_string);
    }
    match str_field(record, "type") {
        Some("assistant") => {
            let usage = record
                .pointer("/usageMetadata/candidatesTokenCount")
                .and_then(Value::as_u64);
            add_tokens(&mut turn.output_tokens, usage);
            let text = texts(record).join("");
            if turn.answer.is_none() && !text.is_empty() {
                turn.answer = Some(text);
                turn.ended = true;
            }
        }
        // A tool call cancelled last, nothing said after it: Esc while the call waited to
        // run (0.24.4 shows `Request cancelled.`, fires no hook, puts no prompt back).
        Some("tool_result")
            if turn.answer.is_none()
                && record
                    .pointer("/toolCallResult/status")
                    .and_then(Value::as_str)
                    == Some("cancelled") =>
        {
            turn.answer = Some("Request cancelled.".into());
            turn.ended = true;
            turn.is_error = true;
            turn.error_reason = Some("interrupted");
        }
        Some("system") if turn.answer.is_none() => {
            let event = record.pointer("/systemPayload/uiEvent");
            let name = event.and_then(|e| str_field(e, "event.name"));
            if name == Some("qwen-code.api_error") {
                let message = event
                    .and_then(|e| str_field(e, "error_message"))
                    .unwrap_or("unknown error");
                turn.answer = Some(format!("[API Error: {message}]"));
                turn.ended = true;
                turn.is_error = true;
                turn.error_reason = Some("api-error");
            }
        }
        _ => {}
    }
}

/// The text parts of a record's message (thoughts left out).
fn texts(record: &Value) -> Vec<&str> {
    record
        .pointer("/message/parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| str_field(p, "text"))
                .collect()
        })
        .unwrap_or_default()
}

/// The prompt of a `user` record a person typed (not a tool's result, which is `tool_result`).
fn prompt_of(record: &Value) -> Option<String> {
    if str_field(record, "type") != Some("user") {
        return None;
    }
    if str_field(record, "provenance").is_some_and(|p| p != "real_user") {
        return None;
    }
    let texts = texts(record);
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Where qwen writes the chat record of `session` started in `cwd`: the project folder is the
/// cwd with every character but ASCII letters and digits made `-`.
pub fn transcript_path(home: &Path, cwd: &Path, session: &str) -> PathBuf {
    let project: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    home.join("projects")
        .join(project)
        .join("chats")
        .join(format!("{session}.jsonl"))
}

/// The input line and its empty text; `esc to cancel` shows while a turn runs, `Pasting… 12 KB`
/// under it while a long paste is read in (an Enter then submits the paste's placeholder
/// unexpanded).
const COMPOSER: Composer = Composer {
    marks: &['>', '*'],
    placeholder: "Type your message or @path/to/file",
    busy: "esc to cancel",
    pasting: Some("Pasting…"),
};

#[cfg(test)]
mod tests;
