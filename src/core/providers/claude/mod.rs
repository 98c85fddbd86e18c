//! Claude Code (`claude`; the releases it supports: [`RELEASES`]).
//!
//! - Launch: `claude --session-id <uuid> --settings <session>/claude-settings.json [--model M]`;
//!   the settings file holds umbel's hooks and the permission mode (`--unattended`:
//!   `bypassPermissions`; `--on-permission deny`: `dontAsk`).
//! - Transcript: `$CLAUDE_CONFIG_DIR|~/.claude/projects/<cwd, non-alphanumerics → '-'>/<id>.jsonl`,
//!   one line per content block; a turn ends with `system/turn_duration`; an API error is a
//!   synthetic assistant record (`isApiErrorMessage`) with no turn_duration.
//! - Startup: the trust dialog starts on "No, exit" (a blind Enter quits), so umbel presses Down
//!   and confirms only once "Yes, I trust this folder" is highlighted; onboarding and sign-in
//!   screens are refused.

// The provider seam's shared types and helpers (`mod.rs`).
pub mod actions;
pub mod flag_table;
pub mod prices;
pub mod print;
pub mod stats;
mod thoughts;
use super::mode::{Mode, ModeCycle};
use super::model_switch::{Choose, ModelSwitch, Stage};
use super::*;
use crate::core::worker_env::ProviderEnv;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The Claude Code provider.
pub struct Claude;

/// Hook events umbel configures for claude after the shared ones (`super::SHARED_HOOK_EVENTS`).
const OWN_HOOK_EVENTS: &[&str] = &["Notification", "Stop", "StopFailure", "SessionEnd"];

/// Configuration variables a claude worker inherits, by exact name (never a `CLAUDE_*` prefix:
/// a host Claude Code session sets child markers there that turn a worker's transcript off).
const INHERIT: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    // The user's own statement that this is a sandbox, which lets claude run bypass permissions
    // as root; umbel never sets it on the user's behalf.
    "IS_SANDBOX",
];

/// Shift+Tab cycles auto → manual → accept edits → plan (2.1.332); the footer names the mode.
const MODES: ModeCycle = ModeCycle {
    key: "BTab",
    modes: &[
        Mode {
            id: "auto",
            shown: Some("⏵⏵ auto mode on"),
        },
        Mode {
            id: "manual",
            shown: Some("⏸ manual mode on"),
        },
        Mode {
            id: "acceptEdits",
            shown: Some("⏵⏵ accept edits on"),
        },
        Mode {
            id: "plan",
            shown: Some("⏸ plan mode on"),
        },
    ],
};

/// `/model` opens "Select model" (2.1.332): numbered rows, `❯` on the cursor's; `s` keeps the
/// pick to this session ("Set model to Sonnet 5.5 for this session only"), where Enter would
/// make it the default of every new session.
const MODELS: ModelSwitch = ModelSwitch::Picker {
    open: "/model",
    typed: None,
    stages: &[Stage {
        title: "Select model",
        cursor: "❯",
        choose: Choose::Model,
        key: "s",
        session_only: Some("s to use this session only"),
    }],
    done: Some("for this session only"),
};

static IDENTITY: Identity = Identity {
    prices: &prices::TABLE,
    name: "claude",
    bin_env_var: "UMBEL_CLAUDE_BIN",
    env: ProviderEnv {
        inherit: INHERIT,
        fixed: &[("DISABLE_AUTOUPDATER", "1")],
    },
    actions: actions::read,
    thoughts: thoughts::read,
    modes: Some(&MODES),
    models: Some(&MODELS),
    config_dir,
    user_files: &["settings.json"],
    composer: None,
    releases: &RELEASES,
    approval: &super::approval::CLAUDE,
    question: Some(&super::question::CLAUDE),
    stats: stats::read,
    usage: &stats::USAGE,
    print: &print::Shapes,
    flags: flag_table::FLAGS,
};

/// The trust dialog's options became "No, exit" first (cursor on it), unnumbered; before, "1.
/// Yes, I trust this folder" first (cursor on it), and the taken option is marked `✔` while the
/// dialog stays up. Screens are read in both layouts.
const TRUST_NO_FIRST: &str = "trust dialog: No, exit first";

/// The releases umbel supports. Screens are read by what they show, in every layout the window
/// draws (the trust dialog's options are found where they stand), so no change here switches
/// one.
static RELEASES: Releases = Releases {
    package: "@anthropic-ai/claude-code",
    oldest: Version::of("2.1.246"),
    newest_tested: Version::of("2.1.332"),
    tested: &[
        Version::of("2.1.246"),
        Version::of("2.1.290"),
        Version::of("2.1.332"),
    ],
    changes: &[Change {
        since: Version::of("2.1.248"),
        what: TRUST_NO_FIRST,
    }],
};

/// Lines that mean a person must sign in or finish onboarding first.
const SIGN_IN_LINES: &[&str] = &[
    "Select login method:",
    "Choose the text style that looks best with your terminal",
];

/// What claude shows while a turn runs (and not at its idle prompt).
const BUSY_MARKER: &str = "esc to interrupt";

/// The first line of claude's refusal to run bypass permissions as root.
const ROOT_REFUSAL: &str = "cannot be used with root/sudo privileges";

/// The folder claude keeps its projects, sessions and settings in, for a worker environment.
pub fn config_dir(env: &[(String, String)]) -> Option<PathBuf> {
    match env_get(env, "CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => env_get(env, "HOME").map(|h| Path::new(h).join(".claude")),
    }
}

/// The file claude keeps its global state in, onboarding included:
/// `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json` (beside `~/.claude`, not in it).
pub fn state_file(env: &[(String, String)]) -> Option<PathBuf> {
    match env_get(env, "CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(Path::new(dir).join(".claude.json")),
        None => env_get(env, "HOME").map(|h| Path::new(h).join(".claude.json")),
    }
}

/// Whether claude's state file says its first-run setup (theme, sign-in) is done
/// (`"hasCompletedOnboarding": true`); without it claude opens on that setup, which umbel
/// refuses as a sign-in screen.
pub fn onboarded(state_file_text: &str) -> bool {
    serde_json::from_str::<Value>(state_file_text)
        .is_ok_and(|v| v.get("hasCompletedOnboarding") == Some(&Value::Bool(true)))
}

/// `umbel doctor`'s judgement of claude's onboarding, from its state file (if it exists).
fn onboarding(file: Option<&Path>, text: Option<&str>) -> SignIn {
    let Some(file) = file else {
        return SignIn::missing(
            "HOME is not set, so claude's state file (.claude.json) is unknown",
            "set HOME",
        );
    };
    let shown = file.display();
    match text {
        Some(text) if onboarded(text) => SignIn::Ready(format!("{shown}: onboarded")),
        Some(_) => SignIn::missing(
            format!(
                "{shown} lacks \"hasCompletedOnboarding\": true: claude will open on its first-run setup and `spawn`/`-p` stop there (exit 126)"
            ),
            "run `claude` once in a terminal and finish its setup (theme, sign-in)",
        ),
        None => SignIn::missing(
            format!(
                "{shown} does not exist: claude will open on its first-run setup and `spawn`/`-p` stop there (exit 126)"
            ),
            format!(
                "run `claude` once in a terminal and finish its setup (theme, sign-in); for a fake claude (docs/simulator.md): echo '{{\"hasCompletedOnboarding\":true}}' > {shown}"
            ),
        ),
    }
}

/// Claude's project folder name for a working directory: every char outside `[A-Za-z0-9]`
/// becomes `-`.
pub fn encode_cwd(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The `--settings` umbel passes: its hooks, and the permission mode. `--on-permission allow`
/// (`--unattended`) runs in bypass mode without claude's warning dialog (the flag is the user's
/// acceptance); `deny` runs in `dontAsk` mode, which refuses what needs approval and goes on, as
/// `claude -p` does. Otherwise the mode of the user's own settings.json is repeated here: a mode
/// set only there (anything but `auto`) makes claude open "Make auto mode your default
/// permission mode?" with the cursor on Yes, and a mode given in `--settings` is the documented
/// way to keep that dialog closed.
fn settings_json(input: &LaunchInput<'_>) -> Value {
    let mut settings = json!({ "hooks": hooks_json(input.hook_command, &[SHARED_HOOK_EVENTS, OWN_HOOK_EVENTS].concat(), 30) });
    match input.on_permission {
        OnPermission::Allow => {
            settings["permissions"] = json!({ "defaultMode": "bypassPermissions" });
            settings["skipDangerousModePermissionPrompt"] = json!(true);
        }
        OnPermission::Deny => settings["permissions"] = json!({ "defaultMode": "dontAsk" }),
        OnPermission::Stop => {
            if let Some(mode) = user_default_mode(input) {
                settings["permissions"] = json!({ "defaultMode": mode });
            }
        }
    }
    if let Some(object) = settings.as_object_mut() {
        flags::apply_settings(Provider::Claude, input.flags, object);
    }
    settings
}

/// `permissions.defaultMode` of the user's settings.json, if it names one.
fn user_default_mode(input: &LaunchInput<'_>) -> Option<String> {
    let (_, text) = input
        .user_files
        .iter()
        .find(|(path, _)| path.ends_with("settings.json"))?;
    let settings: Value = serde_json::from_str(text).ok()?;
    settings
        .pointer("/permissions/defaultMode")
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl ProviderModule for Claude {
    fn identity(&self) -> &'static Identity {
        &IDENTITY
    }

    /// `claude --resume <id>` (2.1.332: the same id, appended to the same transcript; it
    /// refuses `--session-id` next to `--resume` without `--fork-session`).
    fn resume_args(&self, args: &[String], session_id: &str) -> Vec<String> {
        let mut args = without_options(
            args,
            &["--session-id", "--resume", "-r"],
            &["--fork-session", "--continue", "-c"],
        );
        args.extend(["--resume".to_string(), session_id.to_string()]);
        args
    }

    /// Its own `--session-id` kept, `--fork-session --resume <parent>`: a new transcript that
    /// starts with a copy of the parent's records, the parent's file untouched.
    fn fork_args(&self, args: &[String], parent: &str) -> Option<Vec<String>> {
        let mut args = without_options(
            args,
            &["--resume", "-r"],
            &["--fork-session", "--continue", "-c"],
        );
        args.extend(["--fork-session", "--resume", parent].map(String::from));
        Some(args)
    }

    fn prompt_restored(&self, screen: &str) -> bool {
        self.pending_input(screen) && !screen.contains("esc to interrupt")
    }

    fn sign_in_files(&self, env: &[(String, String)]) -> Vec<PathBuf> {
        state_file(env).into_iter().collect()
    }

    fn sign_in(&self, env: &[(String, String)], files: &[(PathBuf, String)]) -> SignIn {
        let text = file_text(files, ".claude.json").map(|(_, text)| text);
        onboarding(state_file(env).as_deref(), text)
    }

    fn refusal(&self, screen: &str, env: &[(String, String)]) -> Option<String> {
        let line = screen.lines().find(|l| l.contains(ROOT_REFUSAL))?;
        let remedy = match env_get(env, "IS_SANDBOX") {
            // Checked on 2.1.332: `yes` and `true` are refused, only `1` lets it run.
            Some(value) if value != "1" => format!(
                "IS_SANDBOX is `{value}` here, but claude accepts only `IS_SANDBOX=1`: if this is a sandbox or container, pass `--env IS_SANDBOX=1` (or set IS_SANDBOX=1 where umbel runs)"
            ),
            _ => "If this is a sandbox or container, pass `--env IS_SANDBOX=1` (or set IS_SANDBOX=1 where umbel runs; claude accepts only `1`)".to_string(),
        };
        Some(format!(
            "claude refuses --unattended (bypass permissions) as root (\"{}\"). {remedy}; otherwise run umbel as a non-root user",
            line.trim()
        ))
    }

    fn reconcile_env(&self, env: &mut Vec<(String, String)>) {
        // With a custom auth token, an API key makes claude ask "use this API key?" and wedge.
        let has_token = env
            .iter()
            .any(|(k, v)| k == "ANTHROPIC_AUTH_TOKEN" && !v.is_empty());
        if has_token {
            env.retain(|(k, _)| k != "ANTHROPIC_API_KEY");
        }
    }

    fn launch(&self, input: &LaunchInput<'_>) -> crate::core::errors::Result<LaunchSpec> {
        let settings_path = input.session_dir.join("claude-settings.json");
        let mut args = vec![
            "--session-id".to_string(),
            input.session_id.to_string(),
            "--settings".to_string(),
            settings_path.to_string_lossy().into_owned(),
        ];
        if let Some(model) = input.model {
            args.push("--model".into());
            args.push(model.into());
        }
        let transcript_path = config_dir(input.env).map(|dir| {
            dir.join("projects")
                .join(encode_cwd(input.cwd))
                .join(format!("{}.jsonl", input.session_id))
        });
        args.extend(flags::args(Provider::Claude, input.flags));
        args.extend(input.cli_args.iter().cloned());
        let content = settings_json(input).to_string();
        Ok(LaunchSpec {
            args,
            files: vec![(settings_path, content)],
            transcript_path,
            links: Vec::new(),
            env: Vec::new(),
        })
    }

    fn startup_screen(&self, screen: &str) -> StartupScreen {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        if let Some(line) = lines
            .iter()
            .find(|l| SIGN_IN_LINES.iter().any(|s| l.starts_with(s)))
        {
            return StartupScreen::SignIn((*line).to_string());
        }
        if let Some(dialog) = known_dialog(screen, &lines) {
            return dialog;
        }
        match input_line(&lines) {
            Some(_) if !screen.contains("esc to interrupt") => StartupScreen::Idle,
            Some(_) => StartupScreen::Other,
            None => match dialog_question(screen, '❯') {
                Some(question) => StartupScreen::Person(question),
                None => StartupScreen::Other,
            },
        }
    }

    fn pending_input(&self, screen: &str) -> bool {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        input_line(&lines).is_some_and(|l| !l.trim_start_matches('❯').trim().is_empty())
    }

    fn input_line_at(&self, screen: &str) -> Option<(usize, String)> {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        let line = input_line(&lines)?;
        let at = lines.iter().position(|l| std::ptr::eq(*l, line))?;
        Some((at, line.to_string()))
    }

    fn busy_marker(&self) -> Option<&'static str> {
        Some(BUSY_MARKER)
    }

    fn classify(&self, event: &str, payload: Option<&Value>) -> EventClass {
        claude_style_class(event, payload)
    }

    fn submit_turn_id(&self, payload: &Value) -> Option<String> {
        str_field(payload, "prompt_id").map(str::to_string)
    }

    fn record_tokens(&self) -> &'static [&'static str] {
        // `type` of the records read: `assistant`, `user`, and `system` ones only when
        // `turn_duration`.
        &["\"assistant\"", "\"user\"", "\"turn_duration\""]
    }

    fn opens_turn(&self, record: &Value) -> bool {
        matches!(user_record(record), Some(UserRecord::Prompt(_)))
    }

    /// claude 2.1.246 can write a fork's first answer above the history the fork copies. A
    /// record without the two ids (`mode`, `file-history-snapshot`) links to nothing.
    fn record_link(&self, line: &[u8]) -> Option<RecordLink> {
        serde_json::from_slice(line).ok()
    }

    fn turn_from_records(&self, records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
        let mut turn = TranscriptTurn::default();
        let mut fold = AnswerFold::default();
        for record in records {
            match str_field(&record, "type") {
                Some("system")
                    if !fold.saw_assistant
                        && str_field(&record, "subtype") == Some("turn_duration") =>
                {
                    turn.ended = true;
                }
                Some("assistant") if record.get("isSidechain") != Some(&Value::Bool(true)) => {
                    fold.assistant(&mut turn, &record);
                }
                _ => match user_record(&record) {
                    Some(UserRecord::Prompt(text)) => {
                        turn.prompt = Some(text);
                        turn.turn_id = str_field(&record, "promptId").map(str::to_string);
                        break;
                    }
                    Some(UserRecord::Interrupted) if !fold.saw_assistant => {
                        turn.ended = true;
                        turn.is_error = true;
                        turn.error_reason = Some("interrupted");
                    }
                    _ => {}
                },
            }
        }
        if !fold.texts.is_empty() {
            turn.answer = Some(fold.texts.join("\n"));
        }
        turn
    }
}

/// The assistant records of one turn, read newest first: the answer is the newest message's
/// text blocks; output tokens count once per message id.
#[derive(Default)]
struct AnswerFold {
    answer_id: Option<String>,
    answer_done: bool,
    texts: Vec<String>,
    saw_assistant: bool,
    /// claude writes one record per content block, each with the message's usage.
    counted: Vec<String>,
}

impl AnswerFold {
    fn assistant(&mut self, turn: &mut TranscriptTurn, record: &Value) {
        let id = record
            .pointer("/message/id")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(id) = id.as_ref().filter(|id| !self.counted.contains(id)) {
            self.counted.push(id.clone());
            let usage = record.pointer("/message/usage/output_tokens");
            add_tokens(&mut turn.output_tokens, usage.and_then(Value::as_u64));
        }
        if !self.saw_assistant {
            self.saw_assistant = true;
            self.answer_id = id.clone();
            if record.get("isApiErrorMessage") == Some(&Value::Bool(true)) {
                turn.is_error = true;
                turn.ended = true;
                turn.error_reason = Some("api-error");
            }
        }
        if !self.answer_done && id == self.answer_id {
            // Newest first: each earlier block goes in front.
            self.texts.splice(0..0, block_texts(record));
        } else {
            self.answer_done = true;
        }
    }
}

/// The `❯` input line of the idle prompt: directly under a horizontal rule.
fn input_line<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.windows(2).find_map(|w| {
        let rule = !w[0].is_empty() && w[0].chars().all(|c| c == '─');
        (rule && w[1].starts_with('❯')).then_some(w[1])
    })
}

fn block_texts(record: &Value) -> Vec<String> {
    match record.pointer("/message/content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| str_field(b, "type") == Some("text"))
            .filter_map(|b| str_field(b, "text").map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

enum UserRecord {
    Prompt(String),
    Interrupted,
    Other,
}

/// What a `user` record that is not meta holds; `None` for every other record.
fn user_record(record: &Value) -> Option<UserRecord> {
    (str_field(record, "type") == Some("user") && record.get("isMeta") != Some(&Value::Bool(true)))
        .then(|| user_prompt(record))
}

fn user_prompt(record: &Value) -> UserRecord {
    let text = match record.pointer("/message/content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            if blocks
                .iter()
                .any(|b| str_field(b, "type") == Some("tool_result"))
            {
                return UserRecord::Other;
            }
            block_texts(record).join("\n")
        }
        _ => return UserRecord::Other,
    };
    if text.starts_with("[Request interrupted by user") {
        UserRecord::Interrupted
    } else if text.starts_with("<command-") || text.starts_with("<local-command") {
        UserRecord::Other
    } else {
        UserRecord::Prompt(text)
    }
}

/// The dialogs umbel answers on claude's startup screen (trust, external imports, bypass mode)
/// or answers only with consent (a custom API key), with the keys that answer them.
fn known_dialog(screen: &str, lines: &[&str]) -> Option<StartupScreen> {
    let cursor_on = |text: &str| highlighted(lines, '❯', text);
    // Shown in bypass mode, which only the user asks for (--unattended, or their settings).
    if screen.contains("WARNING: Claude Code running in Bypass Permissions mode") {
        let on = cursor_on("Yes, I accept");
        return Some(StartupScreen::step_to(
            "bypass permissions warning",
            on,
            &["Down"],
        ));
    }
    if lines
        .iter()
        .any(|l| l.starts_with("Do you want to use this API key?"))
    {
        return Some(StartupScreen::Consent {
            what: "custom API key",
            env: "ANTHROPIC_API_KEY",
            // Enter once the cursor is on `Yes`, else one step toward it.
            keys: if cursor_on("Yes") {
                &["Enter"]
            } else {
                &["Up"]
            },
        });
    }
    // Newer releases start the cursor on "No, exit" above an unnumbered "Yes"; older ones on
    // "1. Yes, I trust this folder": the option is found where it stands. Once taken, an older
    // release marks it `✔` and keeps the dialog up for seconds while it goes on: nothing to
    // press then.
    if lines
        .iter()
        .any(|l| l.contains("Yes, I trust this folder") && l.ends_with('✔'))
    {
        return Some(StartupScreen::Other);
    }
    if screen.contains("Yes, I trust this folder")
        && let Some(keys) = toward_option(lines, '❯', "Yes, I trust this folder")
    {
        return Some(StartupScreen::Dialog {
            what: "workspace trust",
            keys,
        });
    }
    if cursor_on("No, disable external imports") {
        return Some(StartupScreen::Dialog {
            what: "external CLAUDE.md imports",
            keys: &["Enter"],
        });
    }
    None
}

#[cfg(test)]
mod tests;
