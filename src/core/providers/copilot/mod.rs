//! GitHub Copilot CLI (`copilot`; the releases it supports: [`RELEASES`]).
//!
//! - Each worker gets its own `COPILOT_HOME` under its session folder: `settings.json` = the
//!   user's settings plus umbel's hooks, and links to the user's sign-in (`config.json`), MCP
//!   servers, agents, skills and hook files. Sessions live in that home
//!   (`session-state/<id>/events.jsonl`). The user's own `~/.copilot` is never written to.
//! - Launch: `copilot --session-id <uuid> [--model M] [--allow-all]`; signed in as the user is
//!   (a GitHub token or `/login`), or BYOK with `COPILOT_PROVIDER_BASE_URL` and its variables.
//! - Hooks: copilot runs Claude-format hooks from its settings and hands them Claude's payloads
//!   (`session_id`, `prompt`, `tool_name`, `transcript_path` on `Stop`) — but for
//!   `PermissionRequest` (its own camelCase: `toolName`, `toolInput`) and `Notification` (mixed).
//!   `SessionStart` fires with the first prompt, not at launch (1.0.89: after
//!   `UserPromptSubmit`). `PermissionRequest` fires for every tool that needs permission, before
//!   copilot's own rules decide (a `--deny-tool` refusal follows it with no dialog): the dialog
//!   is its `Notification` (`permission_prompt`). No hook fires when a turn is interrupted, refused at its permission
//!   dialog, or fails on an API error: the session's log says so (an `abort`, a `session.error`),
//!   matched to its turn by the `timestamp` of the submit hook, which the log's `hook.start`
//!   record of that hook keeps as its input's (the record's own time can be a millisecond later).
//! - Session log: `events.jsonl`, one event per line (`user.message`, `assistant.message` with
//!   its `toolRequests`, `tool.execution_complete`, `session.usage_record`, `assistant.turn_end`,
//!   `abort`, `session.error`, and `hook.start`/`hook.end` of every hook).
//! - Screens: a "Confirm folder trust" box at every start (resumes too), the `❯` input line
//!   between two rules, `esc esc interrupt` (1.0.89: `esc interrupt`) while a turn runs: the
//!   first Esc arms, a second within half a second interrupts. Before any text it is `esc esc
//!   edit prompt`: the turn is taken back, its prompt put back into the input box.

pub mod actions;
pub mod flag_table;
pub mod print;
pub mod stats;
mod thoughts;
mod transcript;
use super::mode::{Mode, ModeCycle};
use super::model_switch::ModelSwitch;
use super::*;
use crate::core::errors::Result;
use crate::core::worker_env::ProviderEnv;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The GitHub Copilot CLI provider.
pub struct Copilot;

/// Copilot's own hook events, after [`SHARED_HOOK_EVENTS`]. Not `SessionEnd`: 1.0.89, resumed
/// with `--resume=<id>`, ends a session of another, new id as it starts, and a worker parked
/// again before its next turn would then be resumed by that id, which copilot does not know.
const OWN_HOOK_EVENTS: &[&str] = &["Notification", "Stop"];

/// The folder under a worker's session folder that is its `COPILOT_HOME`.
const HOME_DIR: &str = "copilot-home";

/// The GitHub tokens copilot signs in with, in its order of precedence (`copilot help
/// environment`); they reach a worker by name only, never on an argv.
const TOKEN_VARS: &[&str] = &["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"];

/// The variables a worker inherits, named one by one (`copilot help environment`, 1.0.102):
/// the sign-in, the host, and BYOK's provider. `COPILOT_ALLOW_ALL` is not among them: umbel
/// decides what a worker may do (`--on-permission`).
const INHERIT: &[&str] = &[
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_HOST",
    "COPILOT_GH_HOST",
    "COPILOT_MODEL",
    "COPILOT_OFFLINE",
    "COPILOT_PROVIDER_BASE_URL",
    "COPILOT_PROVIDER_TYPE",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_PROVIDER_API_KEY_COMMAND",
    "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_WIRE_API",
    "COPILOT_PROVIDER_TRANSPORT",
    "COPILOT_PROVIDER_AZURE_API_VERSION",
    "COPILOT_PROVIDER_MODEL_ID",
    "COPILOT_PROVIDER_WIRE_MODEL",
    "COPILOT_PROVIDER_MAX_PROMPT_TOKENS",
    "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS",
    "COPILOT_PROVIDER_HEADERS",
];

/// Shift+Tab cycles interactive → plan → autopilot (1.0.102), named on the status line.
const MODES: ModeCycle = ModeCycle {
    key: "BTab",
    modes: &[
        Mode {
            id: "interactive",
            shown: Some("sidebar · Interactive ·"),
        },
        Mode {
            id: "plan",
            shown: Some("sidebar · Plan ·"),
        },
        Mode {
            id: "autopilot",
            shown: Some("sidebar · Autopilot ·"),
        },
    ],
};

/// `/model --session ID` (1.0.102) switches this session alone: "Model changed from gpt-fake
/// (medium) to ID for this session". It takes any name; its provider decides on the next turn.
const MODELS: ModelSwitch = ModelSwitch::Typed {
    command: "/model --session {model}",
    done: "for this session",
};

static IDENTITY: Identity = Identity {
    prices: &crate::core::prices::UNCHECKED,
    name: "copilot",
    bin_env_var: "UMBEL_COPILOT_BIN",
    env: ProviderEnv {
        inherit: INHERIT,
        // A worker runs the release it started with: no download swaps it mid-run.
        fixed: &[("COPILOT_AUTO_UPDATE", "false")],
    },
    actions: actions::read,
    thoughts: thoughts::read,
    modes: Some(&MODES),
    models: Some(&MODELS),
    config_dir: user_dir,
    user_files: &["settings.json"],
    composer: Some(&COMPOSER),
    releases: &RELEASES,
    approval: &APPROVAL,
    question: None,
    stats: stats::read,
    usage: &stats::USAGE,
    print: &print::Shapes,
    flags: flag_table::FLAGS,
};

/// The releases umbel supports: those published in the 90 days before 1.0.102 (2026-10-21),
/// from 1.0.82 (2026-08-30) on; the registry dates older 1.0.x and 0.0.x releases inside those
/// days too, each republished after newer ones (2026-09-16, 2026-09-22): none starts the window.
/// The matrix runs the oldest and the newest; 1.0.89 (2026-09-29) was recorded
/// (`tests/data/copilot/1.0.89/`, `fake-copilot` plays it) and its offline tier run by hand
/// (docs/testing.md), left out of CI's matrix for CI's time.
static RELEASES: Releases = Releases {
    package: "@github/copilot",
    oldest: Version::of("1.0.82"),
    newest_tested: Version::of("1.0.102"),
    tested: &[Version::of("1.0.82"), Version::of("1.0.102")],
    changes: &[],
};

/// Its permission dialog (recorded on 1.0.102 and 1.0.89): `❯ 1. Yes` / `2. No, and tell Copilot
/// what to do differently (Esc to stop)`. It offers no "always" for a command; Esc refuses and
/// ends the turn with no hook, the log's last turn ending in an `abort`.
pub const APPROVAL: approval::ApprovalKeys = approval::ApprovalKeys {
    shown: &["1. Yes", "Esc to stop"],
    once: &["1"],
    always: &[],
    deny: &["Escape"],
    refusal: approval::Refusal::Transcript,
    // Its `PermissionRequest` runs before its rules decide; this notice comes with the dialog.
    ask_event: "Notification",
    tools: &[
        ("Bash", &["bash"]),
        ("Edit", &["edit", "create"]),
        ("Write", &["create"]),
        ("Read", &["view"]),
    ],
};

/// The user's copilot folder (`$COPILOT_HOME`, else `~/.copilot`).
fn user_dir(env: &[(String, String)]) -> Option<PathBuf> {
    env_get(env, "COPILOT_HOME")
        .map(PathBuf::from)
        .or_else(|| env_get(env, "HOME").map(|h| Path::new(h).join(".copilot")))
}

/// What a worker's home links from the user's: the sign-in and state copilot keeps
/// (`config.json`), MCP servers, custom agents, skills, and the user's own hook files (theirs
/// run too).
const LINKED: &[&str] = &[
    "config.json",
    "mcp-config.json",
    "agents",
    "skills",
    "hooks",
];

/// The tool kinds `--on-permission deny` refuses without asking (`copilot help permissions`):
/// every shell command and every file write.
const DENIED_KINDS: &[&str] = &["--deny-tool=shell", "--deny-tool=write"];

/// The tools of [`DENIED_KINDS`] as its `permissionRequest` hook names them (`toolName`; the
/// shell is `bash`, a write `edit` or `create`: [`APPROVAL`]'s tools).
const DENIED_TOOLS: &[&str] = &["bash", "edit", "create"];

/// copilot applies `--allow-all` and `--deny-tool` only once its session is made, in an effect
/// of its TUI (`permissions.configure`, up to 5 s after its input line shows), and a tool asked
/// for before then meets the dialog they should have answered. Its own hook format (camelCase
/// event, a `bash` command; 1.0.82 and 1.0.102 alike, issue 42) lets a `permissionRequest` hook
/// answer `{"behavior":"allow"|"deny"}`, which copilot takes at once: the same decision as the
/// flags', in force from the first prompt. It prints nothing for another tool (copilot decides).
fn permission_hook(settings: &mut serde_json::Map<String, Value>, on: OnPermission) {
    const DENY: &str =
        r#"{"behavior":"deny","message":"Refused: this worker runs with --on-permission deny."}"#;
    let command = match on {
        OnPermission::Allow => {
            r#"cat >/dev/null; printf '%s\n' '{"behavior":"allow"}'"#.to_string()
        }
        OnPermission::Deny => {
            let tools: Vec<String> = DENIED_TOOLS
                .iter()
                .map(|t| format!(r#"*'"toolName":"{t}"'*"#))
                .collect();
            format!(
                "case \"$(cat)\" in {}) printf '%s\\n' '{DENY}';; esac",
                tools.join("|")
            )
        }
        OnPermission::Stop => return,
    };
    let hooks = settings.entry("hooks").or_insert_with(|| json!({}));
    if let Some(hooks) = hooks.as_object_mut() {
        let entry = json!({ "type": "command", "bash": command, "timeoutSec": 30 });
        let list = hooks
            .entry("permissionRequest")
            .or_insert_with(|| json!([]));
        if let Some(list) = list.as_array_mut() {
            list.push(entry);
        }
    }
}

/// `umbel doctor`'s judgement of copilot's sign-in: BYOK, a GitHub token in the environment, or
/// a `/login` recorded in `config.json`. Without any, copilot opens with "Please use /login".
fn signed_in(env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
    if env_get(env, "COPILOT_PROVIDER_BASE_URL").is_some() {
        return SignIn::Ready("BYOK: COPILOT_PROVIDER_BASE_URL is set".into());
    }
    if let Some(var) = TOKEN_VARS.iter().find(|v| env_get(env, v).is_some()) {
        return SignIn::Ready(format!("{var} is set"));
    }
    let logged_in = file_text(files, "config.json")
        .is_some_and(|(_, text)| text.contains("\"lastLoggedInUser\""));
    if logged_in {
        return SignIn::Ready("config.json: signed in with /login".into());
    }
    SignIn::missing(
        "copilot has no sign-in: no GitHub token (COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN), no /login, no BYOK provider (COPILOT_PROVIDER_BASE_URL); it opens on \"Please use /login to sign in\" and `-p` exits 1",
        "run `copilot` once in a terminal and `/login`, or export COPILOT_GITHUB_TOKEN=<token>, or COPILOT_PROVIDER_BASE_URL (with COPILOT_PROVIDER_API_KEY and COPILOT_MODEL) for your own model (a fake copilot takes any value)",
    )
}

/// The line copilot draws above its input line when it has no sign-in.
const SIGN_IN: &str = "Please use /login";

/// The folder trust dialog's title.
const TRUST_TITLE: &str = "Confirm folder trust";

impl ProviderModule for Copilot {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    fn sign_in_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        user_dir(env)
            .map(|dir| vec![dir.join("config.json")])
            .unwrap_or_default()
    }

    fn sign_in(&self, env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
        signed_in(env, files)
    }

    /// `--resume=<id>` in place of `--session-id <id>` (`copilot --help` 1.0.102: "-r,
    /// --resume [<value>]  Resume from a previous session"; the value must be joined with `=`,
    /// as copilot prints it: `copilot --resume=<id>`).
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String> {
        let mut args = without_options(args, &["--session-id", "--resume", "-r"], &[]);
        args.retain(|a| !a.starts_with("--resume="));
        args.push(format!("--resume={session_id}"));
        args
    }

    fn launch(&self, input: &LaunchInput<'_>) -> Result<LaunchSpec> {
        let home = input.session_dir.join(HOME_DIR);
        let mut settings = super::gemini::user_json("copilot", input, "settings.json")?;
        let events = [SHARED_HOOK_EVENTS, OWN_HOOK_EVENTS].concat();
        super::gemini::add_hooks(&mut settings, input.hook_command, &events);
        let mut args = vec!["--session-id".to_string(), input.session_id.to_string()];
        if let Some(model) = input.model {
            args.extend(["--model".to_string(), model.to_string()]);
        }
        match input.on_permission {
            OnPermission::Allow => args.push("--allow-all".to_string()),
            OnPermission::Deny => args.extend(DENIED_KINDS.iter().map(|a| a.to_string())),
            OnPermission::Stop => {}
        }
        permission_hook(&mut settings, input.on_permission);
        flags::apply_settings(Provider::Copilot, input.flags, &mut settings);
        args.extend(flags::args(Provider::Copilot, input.flags));
        args.extend(input.cli_args.iter().cloned());
        let links = linked(user_dir(input.env), &home, LINKED);
        Ok(LaunchSpec {
            args,
            files: vec![(
                home.join("settings.json"),
                Value::Object(settings).to_string(),
            )],
            transcript_path: Some(transcript_path(&home, input.session_id)),
            links,
            env: vec![("COPILOT_HOME".into(), home.to_string_lossy().into_owned())],
        })
    }

    fn start_hook_at_launch(&self) -> bool {
        false
    }

    /// Ready once its idle status line replaced `● Loading:` under the input line: what it
    /// does later does not change what a prompt meets, now that [`permission_hook`] decides
    /// from the first prompt where the flags wait for its permission seeding (issue 42: a cold
    /// `-p` waited 3 s more for a still screen).
    fn ready_on_screen(&self, screen: &str) -> bool {
        let lines = screen.lines().rev().filter(|l| !l.trim().is_empty());
        lines.take(3).any(|l| l.contains(IDLE_STATUS))
    }

    fn startup_screen(&self, screen: &str) -> StartupScreen {
        let lines: Vec<&str> = screen
            .lines()
            .map(|l| l.trim().trim_matches('│').trim())
            .collect();
        if let Some(line) = lines.iter().find(|l| l.starts_with(SIGN_IN)) {
            return StartupScreen::SignIn((*line).to_string());
        }
        if lines.iter().any(|l| l.starts_with(TRUST_TITLE)) {
            let on = highlighted(&lines, '❯', "1. Yes");
            return StartupScreen::step_to("folder trust", on, &["Up"]);
        }
        match numbered_choice(&lines, '❯', &COMPOSER) {
            Some((_, question)) => StartupScreen::Person(question),
            None => COMPOSER.idle_or_other(screen, &lines),
        }
    }

    /// Its prompt input holds a paste 200 ms for more of it before drawing it, and draws it at
    /// once on a key that types nothing (`usePasteHandler`'s timer and its flush, 1.0.82 and
    /// 1.0.102 alike). End: the caret is at the line's end after a paste anyway. Recorded on
    /// 1.0.102 (issue 42): a paste showed 215–255 ms after it was sent, 18–90 ms with End after
    /// it; a send 392 → (see docs/performance.md) ms.
    fn paste_flush_key(&self) -> Option<&'static str> {
        Some("End")
    }

    /// Esc arms the interrupt (`esc again to interrupt`), a second Esc within half a second
    /// interrupts (1.0.89 and 1.0.102 alike).
    fn interrupt_keys(&self) -> &'static [&'static str] {
        &["Escape", "Escape"]
    }

    /// Esc Esc before the model said anything (`esc esc edit prompt`) takes the turn back: its
    /// prompt is in the input box again, no turn runs, the log keeps no trace of it and no hook
    /// fires (recorded on 1.0.102).
    fn prompt_restored(&self, screen: &str) -> bool {
        self.pending_input(screen) && !screen.contains(COMPOSER.busy)
    }

    fn classify(&self, event: &str, payload: Option<&Value>) -> EventClass {
        match event {
            // With the first prompt, next to its submit (before or after it): not a start.
            "SessionStart" => EventClass::Progress,
            // copilot's own payload: `toolName`, `toolInput`. It runs before copilot's own
            // rules decide (`--deny-tool` refuses after it, with no dialog): the dialog's
            // `Notification` is the wait.
            "PermissionRequest" => EventClass::PermissionCheck {
                tool: payload
                    .map(|p| json!({ "name": p.get("toolName"), "input": p.get("toolInput") })),
            },
            _ => claude_style_class(event, payload),
        }
    }

    /// The submit hook's `timestamp`, which the log's `hook.start` record of that hook keeps as
    /// its input's (in milliseconds).
    fn submit_turn_id(&self, payload: &Value) -> Option<String> {
        str_field(payload, "timestamp").and_then(transcript::turn_id_of)
    }

    /// `Stop` carries no answer: the log has it.
    fn answer_from_payload(&self, _payload: &Value) -> Option<String> {
        None
    }

    fn end_hook_carries_answer(&self) -> bool {
        false
    }

    fn record_tokens(&self) -> &'static [&'static str] {
        transcript::TOKENS
    }

    fn opens_turn(&self, record: &Value) -> bool {
        transcript::prompt_of(record).is_some()
    }

    fn turn_from_records(&self, records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
        transcript::last_turn(records)
    }
}

/// Where copilot keeps the log of session `session` in the worker's home.
pub fn transcript_path(home: &Path, session: &str) -> PathBuf {
    home.join("session-state")
        .join(session)
        .join("events.jsonl")
}

/// On its idle status line under the input line (1.0.82 to 1.0.102), not while it still
/// loads (` ● Loading: 7 hooks, 2 skills`).
const IDLE_STATUS: &str = "· / commands ·";

/// The input line `❯` between two rules, or `┃` in a box of half blocks when the terminal has
/// true colour (tmux's `tmux-256color` with `COLORTERM=truecolor`); empty: nothing after the
/// mark. `Working` shows under it while a turn runs (` ● Working · 10 B esc esc interrupt`;
/// before any text ` ◉ Working esc esc edit prompt`; 1.0.89: `esc interrupt`).
const COMPOSER: Composer = Composer {
    marks: &['❯', '┃'],
    placeholder: "",
    busy: "Working",
    pasting: None,
};

#[cfg(test)]
mod tests;
