//! Codex CLI (`codex`; the releases it supports: [`RELEASES`]).
//!
//! - Each worker gets its own `CODEX_HOME` under its session folder: umbel's `hooks.json`, a copy
//!   of the user's `config.toml` with the working directory marked trusted (edited with
//!   `toml_edit`, see [`config`]), and a link to the
//!   user's `auth.json`. The user's own `~/.codex` is never written to.
//! - Launch: `codex --dangerously-bypass-hook-trust --no-daemon [-m M]
//!   [--dangerously-bypass-approvals-and-sandbox]`. The hook-trust bypass covers only the hooks
//!   umbel wrote into that private home; `--no-daemon` makes the CLI end with its pane.
//! - Codex fires `SessionStart` only at the first prompt, so readiness is an idle composer that
//!   held still. No `Stop` on API errors or usage limits: the rollout's `task_complete` carries
//!   the error. Esc fires `Interrupt`.
//! - Rollout: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<thread>.jsonl`; a turn runs from
//!   `event_msg/task_started` to `event_msg/task_complete` (or `turn_aborted`).

pub mod actions;
pub mod config;
pub mod flag_table;
pub mod print;
pub mod stats;
mod thoughts;
use super::mode::{Mode, ModeCycle};
use super::model_switch::{Choose, ModelSwitch, Stage};
use config::worker_config;
// The provider seam's shared types and helpers (`mod.rs`).
use super::*;
use crate::core::errors::Result;
use crate::core::worker_env::ProviderEnv;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The Codex CLI provider.
pub struct Codex;

/// Hook events umbel configures for codex after the shared ones (`super::SHARED_HOOK_EVENTS`).
const OWN_HOOK_EVENTS: &[&str] = &["Stop", "Interrupt", "SessionEnd"];

const INHERIT: &[&str] = &[
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "CODEX_API_KEY",
];

/// Shift+Tab toggles plan mode (0.171.0), named at the footer's right; default shows nothing.
const MODES: ModeCycle = ModeCycle {
    key: "BTab",
    modes: &[
        Mode {
            id: "default",
            shown: None,
        },
        Mode {
            id: "plan",
            shown: Some("Plan mode (shift+tab to cycle)"),
        },
    ],
};

/// `/model` opens "Select Model and Effort" (0.171.0), then the model's reasoning levels, where
/// `s` keeps the pick to this session ("Model changed to gpt-6.2-astra low for this session
/// only"); the level is left where the cursor opens, the model's default.
const MODELS: ModelSwitch = ModelSwitch::Picker {
    open: "/model",
    typed: None,
    stages: &[
        Stage {
            title: "Select Model and Effort",
            cursor: "›",
            choose: Choose::Model,
            key: "Enter",
            session_only: None,
        },
        Stage {
            title: "Select Reasoning Level",
            cursor: "›",
            choose: Choose::Cursor,
            key: "s",
            session_only: Some("s session"),
        },
    ],
    done: Some("for this session only"),
};

static IDENTITY: Identity = Identity {
    prices: &crate::core::prices::UNCHECKED,
    name: "codex",
    bin_env_var: "UMBEL_CODEX_BIN",
    env: ProviderEnv {
        inherit: INHERIT,
        fixed: &[],
    },
    actions: actions::read,
    thoughts: thoughts::read,
    modes: Some(&MODES),
    models: Some(&MODELS),
    config_dir: user_home,
    user_files: &["config.toml"],
    composer: Some(&COMPOSER),
    releases: &RELEASES,
    approval: &super::approval::CODEX,
    question: None,
    stats: stats::read,
    usage: &stats::USAGE,
    print: &print::Shapes,
    flags: flag_table::FLAGS,
};

/// `--no-daemon`: run without the shared background server, so the CLI ends with its pane.
/// Releases before it have no such flag (clap refuses it, exit 2) and no daemon the TUI starts.
const NO_DAEMON: &str = "--no-daemon";

/// The trust dialog became "Trust this folder?" (before: "Do you trust the contents of this
/// directory?" under a "Welcome to Codex" banner). Screens are read in both layouts.
const TRUST_FOLDER_ACCESS: &str = "trust dialog: Trust this folder?";

/// Esc that aborts a turn fires the `Interrupt` hook; before it, only the rollout's
/// `turn_aborted` says so (which the wait reads either way).
const INTERRUPT_HOOK: &str = "Interrupt hook";

/// A prompt submitted while the session is still being configured is held ("Waiting for
/// startup") and submitted once it is; before, that Enter was lost and the prompt stayed typed.
const HOLDS_EARLY_PROMPT: &str = "a prompt submitted before the session is configured is held";

/// The footer under a prompt held that way.
const HELD_FOOTER: &str = "Waiting for startup";

/// The releases umbel supports, and what changed within them.
static RELEASES: Releases = Releases {
    package: "@openai/codex",
    oldest: Version::of("0.149.0"),
    newest_tested: Version::of("0.171.0"),
    tested: &[
        Version::of("0.149.0"),
        Version::of("0.155.1"),
        Version::of("0.161.0"),
        Version::of("0.171.0"),
    ],
    changes: &[
        Change {
            since: Version::of("0.150.0"),
            what: INTERRUPT_HOOK,
        },
        Change {
            since: Version::of("0.156.0"),
            what: NO_DAEMON,
        },
        Change {
            since: Version::of("0.156.0"),
            what: TRUST_FOLDER_ACCESS,
        },
        Change {
            since: Version::of("0.156.0"),
            what: HOLDS_EARLY_PROMPT,
        },
    ],
};

/// The worker's own CODEX_HOME, in its session folder.
const HOME_DIR: &str = "codex-home";

/// The user's own codex home (`$CODEX_HOME`, else `~/.codex`).
fn user_home(env: &[(String, String)]) -> Option<PathBuf> {
    env_get(env, "CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| env_get(env, "HOME").map(|h| Path::new(h).join(".codex")))
}

/// Where codex keeps its sign-in: `auth.json` in its home (`codex login` writes it).
const AUTH_FILE: &str = "auth.json";
/// The keys codex signs in with from the environment.
const KEY_VARS: &[&str] = &["OPENAI_API_KEY", "CODEX_API_KEY"];

/// `umbel doctor`'s judgement of codex's sign-in: its `auth.json`, a key in the environment, or
/// a custom `model_provider` in `config.toml` (which opens no sign-in screen).
fn signed_in(env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
    if let Some((path, _)) = file_text(files, AUTH_FILE) {
        return SignIn::Ready(path.display().to_string());
    }
    if let Some(var) = KEY_VARS.iter().find(|v| env_get(env, v).is_some()) {
        return SignIn::Ready(format!("{var} is set"));
    }
    let custom = file_text(files, "config.toml").is_some_and(|(_, text)| {
        text.parse::<toml_edit::DocumentMut>()
            .is_ok_and(|doc| doc.get("model_provider").is_some())
    });
    if custom {
        return SignIn::Ready("config.toml names its own model_provider".into());
    }
    let auth = user_home(env).map_or_else(
        || "~/.codex/auth.json".to_string(),
        |home| home.join(AUTH_FILE).display().to_string(),
    );
    SignIn::missing(
        format!(
            "no {auth} and neither OPENAI_API_KEY nor CODEX_API_KEY is set: codex will open on its sign-in screen and `spawn`/`-p` stop there (exit 126)"
        ),
        "run `codex login` once in a terminal, or export OPENAI_API_KEY (a fake codex needs neither)",
    )
}

impl ProviderModule for Codex {
    fn picks_its_session_id(&self) -> bool {
        true
    }

    /// `codex resume [flags] <id>` (0.171.0: the same thread id, appended to the same rollout,
    /// no second `session_meta`); the subcommand takes the TUI's flags.
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String> {
        let mut resumed = vec!["resume".to_string()];
        resumed.extend(args.iter().cloned());
        resumed.push(session_id.to_string());
        resumed
    }

    /// `codex fork [flags] <parent>`: a new thread (new id, new rollout) starting with a copy of
    /// the parent's records.
    fn fork_args(&self, args: &[String], parent: &str) -> Option<Vec<String>> {
        let mut forked = vec!["fork".to_string()];
        forked.extend(args.iter().cloned());
        forked.push(parent.to_string());
        Some(forked)
    }

    /// A worker's threads live in its own CODEX_HOME (`sessions/<name>/codex-home`): the fork's
    /// home gets the parent's rollout at the same place.
    fn transcript_copy(
        &self,
        transcript: &Path,
        parent_dir: &Path,
        child_dir: &Path,
    ) -> Option<PathBuf> {
        let inside = transcript.strip_prefix(parent_dir.join(HOME_DIR)).ok()?;
        Some(child_dir.join(HOME_DIR).join(inside))
    }

    /// A thread run outside umbel is in the user's CODEX_HOME, which the worker's own lacks.
    fn outside_home(&self, env: &[(String, String)]) -> Option<(PathBuf, &'static str)> {
        user_home(env).map(|home| (home, HOME_DIR))
    }

    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn sign_in_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        user_home(env)
            .map(|home| vec![home.join(AUTH_FILE), home.join("config.toml")])
            .unwrap_or_default()
    }

    fn sign_in(&self, env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
        signed_in(env, files)
    }

    fn launch(&self, input: &LaunchInput<'_>) -> Result<LaunchSpec> {
        let home = input.session_dir.join(HOME_DIR);
        let hooks = json!({ "hooks": hooks_json(input.hook_command, &[SHARED_HOOK_EVENTS, OWN_HOOK_EVENTS].concat(), 30) });
        let user_config = input
            .user_files
            .iter()
            .find(|(p, _)| p.ends_with("config.toml"))
            .map(|(path, text)| (path.as_path(), text.as_str()));
        let config = worker_config(user_config, input.cwd)?;
        let mut args = vec!["--dangerously-bypass-hook-trust".to_string()];
        if RELEASES.has(input.release, NO_DAEMON) {
            args.push(NO_DAEMON.to_string());
        }
        if let Some(model) = input.model {
            args.extend(["-m".to_string(), model.to_string()]);
        }
        match input.on_permission {
            OnPermission::Allow => args.push("--dangerously-bypass-approvals-and-sandbox".into()),
            // `codex exec`'s defaults (its stderr header: `approval: never`, `sandbox:
            // read-only`): an escalation is rejected and the turn goes on.
            OnPermission::Deny => args.extend(
                ["--ask-for-approval", "never", "--sandbox", "read-only"].map(String::from),
            ),
            OnPermission::Stop => {}
        }
        args.extend(flags::args(Provider::Codex, input.flags));
        args.extend(input.cli_args.iter().cloned());
        let links = user_home(input.env)
            .map(|user| vec![(home.join("auth.json"), user.join("auth.json"))])
            .unwrap_or_default();
        Ok(LaunchSpec {
            args,
            files: vec![
                (home.join("hooks.json"), hooks.to_string()),
                (home.join("config.toml"), config),
            ],
            transcript_path: None,
            links,
            env: vec![("CODEX_HOME".into(), home.to_string_lossy().into_owned())],
        })
    }

    fn start_hook_at_launch(&self) -> bool {
        false
    }

    fn ready_on_screen(&self, screen: &str) -> bool {
        session_configured(screen)
    }

    fn takes_prompt_while_starting(&self, release: Option<Version>) -> bool {
        RELEASES.has(release, HOLDS_EARLY_PROMPT)
    }

    fn holds_submitted_prompt(&self, screen: &str) -> bool {
        screen
            .lines()
            .rev()
            .take(4)
            .any(|l| l.trim_start().starts_with(HELD_FOOTER))
    }

    fn startup_screen(&self, screen: &str) -> StartupScreen {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        let has = |text: &str| lines.iter().any(|l| l.contains(text));
        // Releases before the table's TRUST_FOLDER_ACCESS ask it under a "Welcome to Codex"
        // banner, which is no sign-in screen.
        if has("Do you trust the contents of this directory?")
            && let Some(keys) = toward_option(&lines, '›', "Yes, continue")
        {
            return StartupScreen::Dialog {
                what: "folder trust",
                keys,
            };
        }
        if has("Sign in with ChatGPT") || has("Welcome to Codex") {
            let line = lines
                .iter()
                .find(|l| l.contains("Sign in with ChatGPT"))
                .unwrap_or(&"");
            return StartupScreen::SignIn((*line).to_string());
        }
        let cursor_on = |text: &str| highlighted(&lines, '›', text);
        if has("Trust this folder?") {
            let on = cursor_on("1. Trust and continue");
            return StartupScreen::step_to("folder trust", on, &["Up"]);
        }
        if has("Hooks need review") {
            return if cursor_on("2. Trust all and continue") {
                StartupScreen::Dialog {
                    what: "hook review",
                    keys: &["Enter"],
                }
            } else if cursor_on("1.") {
                StartupScreen::Dialog {
                    what: "hook review",
                    keys: &["Down"],
                }
            } else {
                StartupScreen::Dialog {
                    what: "hook review",
                    keys: &["Up"],
                }
            };
        }
        // A choice no rule here knows. Every codex dialog offers `esc` below its options; a
        // composer holding typed "1. …" lines does not.
        let offers_esc = lines.iter().rev().take(6).any(|l| {
            l.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == "esc")
        });
        match numbered_choice(&lines, '›', &COMPOSER) {
            Some((_, question)) if offers_esc => StartupScreen::Person(question),
            _ => COMPOSER.idle_or_other(screen, &lines),
        }
    }

    fn classify(&self, event: &str, payload: Option<&Value>) -> EventClass {
        match event {
            "Interrupt" => EventClass::TurnFailed {
                reason: "interrupted",
            },
            _ => shared_hook_class(event, payload),
        }
    }

    fn submit_turn_id(&self, payload: &Value) -> Option<String> {
        str_field(payload, "turn_id").map(str::to_string)
    }

    fn record_tokens(&self) -> &'static [&'static str] {
        // `payload.type` of the records read (turn and tools).
        &[
            "\"task_started\"",
            "\"task_complete\"",
            "\"turn_aborted\"",
            "\"token_count\"",
            "\"message\"",
            "\"function_call\"",
            "\"function_call_output\"",
            "\"custom_tool_call\"",
            "\"custom_tool_call_output\"",
            "\"local_shell_call\"",
            "\"item_completed\"",
        ]
    }

    fn opens_turn(&self, record: &Value) -> bool {
        str_field(record, "type") == Some("event_msg")
            && record
                .get("payload")
                .is_some_and(|p| str_field(p, "type") == Some("task_started"))
    }

    fn turn_from_records(&self, records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
        let mut turn = TranscriptTurn::default();
        for record in records {
            let payload = record.get("payload").unwrap_or(&Value::Null);
            let kind = str_field(payload, "type");
            match (str_field(&record, "type"), kind) {
                (Some("event_msg"), Some("task_complete")) if !turn.ended => {
                    task_complete(&mut turn, payload);
                }
                (Some("event_msg"), Some("turn_aborted")) if !turn.ended => {
                    turn.ended = true;
                    turn.is_error = true;
                    turn.error_reason = Some("interrupted");
                    turn.turn_id = str_field(payload, "turn_id").map(str::to_string);
                }
                (Some("response_item"), Some("message")) => message(&mut turn, payload),
                (Some("event_msg"), Some("token_count")) => {
                    let usage = payload.pointer("/info/last_token_usage/output_tokens");
                    add_tokens(&mut turn.output_tokens, usage.and_then(Value::as_u64));
                }
                (Some("event_msg"), Some("task_started")) => {
                    if turn.turn_id.is_none() {
                        turn.turn_id = payload
                            .pointer("/turn_attribution/turn_id")
                            .or_else(|| payload.get("turn_id"))
                            .and_then(Value::as_str)
                            .map(str::to_string);
                    }
                    break;
                }
                _ => {}
            }
        }
        turn
    }
}

/// The status line under the composer, `  <model> <mode> · <cwd>[ · <title>]`: codex
/// draws it once its session is configured (the composer alone shows earlier, with only
/// `? for shortcuts` under it, and a prompt submitted then waits "for startup"). The folder is
/// absolute or under the home folder (`~/…`); a model without a reasoning mode shows one word.
fn session_configured(screen: &str) -> bool {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(composer) = lines.iter().rposition(|l| l.trim_start().starts_with('›')) else {
        return false;
    };
    lines[composer + 1..]
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .is_some_and(|l| {
            l.split_once(" · ").is_some_and(|(model_mode, rest)| {
                (1..=2).contains(&model_mode.split_whitespace().count())
                    && (rest.starts_with('/') || rest.starts_with('~'))
            })
        })
}

const COMPOSER: Composer = Composer {
    marks: &['›'],
    placeholder: "Ask Codex to do anything",
    busy: "esc to interrupt",
    pasting: None,
};

/// `task_complete`: the turn's end, with its answer or its error.
fn task_complete(turn: &mut TranscriptTurn, payload: &Value) {
    turn.ended = true;
    turn.turn_id = str_field(payload, "turn_id").map(str::to_string);
    if let Some(text) = str_field(payload, "last_agent_message") {
        turn.answer = Some(text.to_string());
    } else if let Some(error) = payload.get("error") {
        turn.is_error = true;
        turn.answer = str_field(error, "message").map(str::to_string);
        turn.error_reason = Some(
            if str_field(error, "codex_error_info") == Some("usage_limit_exceeded") {
                "usage-limit"
            } else {
                "api-error"
            },
        );
    }
}

/// A `message` item: the assistant's answer (newest first, so the last one), or the prompt
/// (the user's text that is not an injected `<…>` context block).
fn message(turn: &mut TranscriptTurn, payload: &Value) {
    let text = message_text(payload);
    match str_field(payload, "role") {
        Some("assistant") if turn.answer.is_none() && !turn.is_error => turn.answer = text,
        Some("user") => {
            if let Some(text) = text.filter(|t| !t.starts_with('<')) {
                turn.prompt.get_or_insert(text);
            }
        }
        _ => {}
    }
}

fn message_text(payload: &Value) -> Option<String> {
    let blocks = payload.get("content")?.as_array()?;
    let texts: Vec<&str> = blocks.iter().filter_map(|b| str_field(b, "text")).collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

#[cfg(test)]
mod tests;
