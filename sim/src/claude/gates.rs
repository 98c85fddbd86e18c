//! The dialogs 2.1.332 puts between the trust dialog and the prompt, each drawn as recorded
//! (`fixtures/screens/claude-2.1.332-*`): the custom API key question, the bypass permissions
//! warning (and the refusal to run bypass mode as root), and the auto-mode opt-in.
//!
//! Simplified: the opt-in is drawn before the prompt rather than ~50 ms after it, so it is never
//! hidden by a draft; a paste onto it is dropped with `Not answered yet`, as recorded.

use super::config::{self, Settings};
use super::session::{Mode, Session};
use crate::engine::dialog::{CtrlC, Startup, key_loop};
use crate::keys::Key;
use crate::screen::{Screen, rule};
use crate::term::{self, Terminal};
use serde_json::Value;

/// The refusal printed (then exit 1) for bypass mode as root without `IS_SANDBOX=1`.
pub const ROOT_REFUSAL: &str =
    "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";

/// Whether bypass mode must be refused: uid 0 (`UMBEL_SIM_UID` overrides the real uid, so tests
/// can take both paths whoever runs them) and neither `IS_SANDBOX=1` nor
/// `CLAUDE_CODE_BUBBLEWRAP`.
pub fn refuses_root(mode: Mode) -> bool {
    let uid = std::env::var("UMBEL_SIM_UID")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or_else(|| rustix::process::geteuid().as_raw());
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty());
    mode == Mode::BypassPermissions
        && uid == 0
        && std::env::var("IS_SANDBOX").as_deref() != Ok("1")
        && !set("CLAUDE_CODE_BUBBLEWRAP")
}

/// Runs the dialogs that apply, in the real order; `Continue` once all are answered.
pub fn run(
    term: &mut Terminal,
    screen: &mut Screen,
    sess: &Session,
    settings: &Settings,
) -> Result<Startup, String> {
    let claude_json = config::read_claude_json(&sess.paths.claude_json)?;
    if let Some(key) = unapproved_key(&claude_json) {
        let shown = format!("sk-ant-...{}", last20(&key));
        let lines = |c: usize, _: bool| api_key(&shown, c);
        let pick = choose(term, screen, lines, 2, 1)?;
        if let Pick::Exit(code) = pick {
            return Ok(Startup::Exit(code));
        }
        let approved = pick == Pick::Option(0);
        let list = if approved { "approved" } else { "rejected" };
        config::update_claude_json(&sess.paths.claude_json, |doc| {
            push_key(doc, list, last20(&key))
        })?;
    }
    if sess.mode == Mode::BypassPermissions && !settings.skip_dangerous {
        match choose(term, screen, |c, _| bypass_warning(c), 2, 0)? {
            Pick::Option(1) => {}
            Pick::Option(_) => return Ok(Startup::Exit(1)),
            Pick::Cancelled => return Ok(Startup::Exit(0)),
            Pick::Exit(code) => return Ok(Startup::Exit(code)),
        }
    }
    if let Some(question) = &sess.script.scenario.startup.unknown_dialog {
        let lines = |c: usize, _: bool| boxed(unknown(question, c));
        if let Pick::Exit(code) = choose(term, screen, lines, 2, 0)? {
            return Ok(Startup::Exit(code));
        }
    }
    let nudged = claude_json.get("hasSeenAutoDefaultNudge") == Some(&Value::Bool(true));
    let manual_user = settings
        .user_default_mode
        .as_deref()
        .is_some_and(|m| m != "auto");
    if manual_user && !settings.flag_default_mode && !nudged {
        let pick = choose(term, screen, auto_optin, 2, 0)?;
        if let Pick::Exit(code) = pick {
            return Ok(Startup::Exit(code));
        }
        config::update_claude_json(&sess.paths.claude_json, |doc| {
            doc.insert("hasSeenAutoDefaultNudge".into(), Value::Bool(true));
        })?;
        if pick == Pick::Option(0) {
            config::set_user_default_mode(&sess.paths.config_dir, "auto")?;
        }
    }
    Ok(Startup::Continue)
}

fn last20(key: &str) -> &str {
    let start = key.len().saturating_sub(20);
    key.get(start..).unwrap_or(key)
}

/// `ANTHROPIC_API_KEY`, when its last 20 characters are neither approved nor rejected.
fn unapproved_key(claude_json: &Value) -> Option<String> {
    let key = std::env::var("ANTHROPIC_API_KEY")
        .ok()
        .filter(|k| !k.is_empty())?;
    let answered = ["approved", "rejected"].iter().any(|list| {
        claude_json
            .pointer(&format!("/customApiKeyResponses/{list}"))
            .and_then(Value::as_array)
            .is_some_and(|keys| keys.iter().any(|k| k.as_str() == Some(last20(&key))))
    });
    (!answered).then_some(key)
}

fn push_key(doc: &mut serde_json::Map<String, Value>, list: &str, key: &str) {
    let responses = doc
        .entry("customApiKeyResponses")
        .or_insert_with(|| serde_json::json!({ "approved": [], "rejected": [] }));
    if let Some(Value::Array(keys)) = responses.get_mut(list) {
        keys.push(Value::String(key.to_string()));
    } else if let Some(map) = responses.as_object_mut() {
        map.insert(list.into(), serde_json::json!([key]));
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Pick {
    Option(usize),
    Cancelled,
    /// Ctrl-C twice, or the terminal closed: the CLI exits with this status.
    Exit(i32),
}

/// A list dialog: Up/Down move, Enter picks, Esc cancels, digits and typing do nothing; a paste
/// redraws it with `Not answered yet`. `lines(cursor, unanswered)` draws it.
fn choose(
    term: &mut Terminal,
    screen: &mut Screen,
    lines: impl Fn(usize, bool) -> Vec<String>,
    count: usize,
    start: usize,
) -> Result<Pick, String> {
    let mut cursor = start;
    let mut unanswered = false;
    let mut bytes = screen.clear();
    bytes.extend(screen.frame(&[], &lines(cursor, false), term::size()));
    term::write_out(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))?;
    let mut pick = None;
    let decision = key_loop(term, CtrlC::Twice(0), Startup::Exit, |key| {
        match key {
            Key::Up => cursor = cursor.saturating_sub(1),
            Key::Down => cursor = (cursor + 1).min(count - 1),
            Key::Enter => {
                pick = Some(Pick::Option(cursor));
                return Some(Startup::Continue);
            }
            Key::Esc => {
                pick = Some(Pick::Cancelled);
                return Some(Startup::Continue);
            }
            Key::Paste(_) => unanswered = true,
            _ => return None,
        }
        let _ = term::write_out(&screen.frame(&[], &lines(cursor, unanswered), term::size()));
        None
    })?;
    match (decision, pick) {
        (Startup::Exit(code), _) => Ok(Pick::Exit(code)),
        (_, Some(pick)) => Ok(pick),
        (_, None) => Ok(Pick::Cancelled),
    }
}

fn marked(cursor: usize, options: &[&str]) -> Vec<String> {
    options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("  {} {o}", if i == cursor { "❯" } else { " " }))
        .collect()
}

pub(super) fn boxed(body: Vec<String>) -> Vec<String> {
    let mut lines = vec![String::new(), rule('─', term::size().0)];
    lines.extend(body);
    lines
}

pub(super) fn unknown(question: &str, cursor: usize) -> Vec<String> {
    let mut body = vec![format!("  {question}"), String::new()];
    body.extend(marked(cursor, &["1. Yes", "2. No"]));
    body.extend([String::new(), "  Enter to confirm · Esc to cancel".into()]);
    body
}

fn api_key(shown: &str, cursor: usize) -> Vec<String> {
    let mut body = vec![
        "  Detected a custom API key in your environment".to_string(),
        String::new(),
        format!("  ANTHROPIC_API_KEY: {shown}"),
        String::new(),
        "  Do you want to use this API key?".into(),
        String::new(),
    ];
    body.extend(marked(cursor, &["Yes", "No (recommended)"]));
    body.extend([String::new(), "  Enter to confirm · Esc to cancel".into()]);
    boxed(body)
}

fn bypass_warning(cursor: usize) -> Vec<String> {
    let mut body: Vec<String> = [
        "  WARNING: Claude Code running in Bypass Permissions mode",
        "",
        "  In Bypass Permissions mode, Claude Code will not ask for your approval before running potentially dangerous",
        "  commands.",
        "  This mode should only be used in a sandboxed container/VM that has restricted internet access and can easily be",
        "  restored if damaged.",
        "",
        "  By proceeding, you accept all responsibility for actions taken while running in Bypass Permissions mode.",
        "",
        "  https://code.claude.com/docs/en/security",
        "",
    ]
    .map(str::to_string)
    .to_vec();
    body.extend(marked(cursor, &["No, exit", "Yes, I accept"]));
    body.extend([String::new(), "  Enter to confirm · Esc to cancel".into()]);
    boxed(body)
}

fn auto_optin(cursor: usize, unanswered: bool) -> Vec<String> {
    let mut body: Vec<String> = [
        "  Make auto mode your default permission mode?",
        "",
        "  Auto mode lets Claude handle permission prompts automatically. Claude checks each tool call for risky actions and",
        "  prompt injection before executing, runs the ones it assesses as lower-risk, and blocks the rest.",
        "",
    ]
    .map(str::to_string)
    .to_vec();
    body.extend(marked(
        cursor,
        &[
            "Yes, set auto mode as my default permission mode",
            "No, keep manual mode",
        ],
    ));
    if unanswered {
        body.extend([
            String::new(),
            "  Not answered yet · ↑/↓ to choose · Esc to cancel".into(),
        ]);
    }
    boxed(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<String> {
        let path = format!(
            "{}/tests/data/claude-2.1.332-{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        text.lines().map(|l| l.trim_end().to_string()).collect()
    }

    /// The dialog's lines, as recorded, from the rule to its last non-empty line.
    fn dialog(lines: &[String]) -> Vec<String> {
        let start = lines.iter().position(|l| l.starts_with('─')).expect("rule");
        let end = lines.iter().rposition(|l| !l.is_empty()).expect("text");
        lines[start + 1..=end]
            .iter()
            .map(|l| l.trim_end().to_string())
            .collect()
    }

    #[test]
    fn the_dialogs_match_the_recordings() {
        let key = "sk-ant-...r2Xk4Lm8Np3Tv6Yb1Hc5";
        assert_eq!(
            dialog(&api_key(key, 1)),
            dialog(&fixture("api-key-approval-env"))
        );
        assert_eq!(
            dialog(&bypass_warning(0)),
            dialog(&fixture("bypass-warning"))
        );
        assert_eq!(
            dialog(&auto_optin(0, false)),
            dialog(&fixture("auto-mode-optin"))
        );
        assert_eq!(
            dialog(&auto_optin(0, true)),
            dialog(&fixture("auto-mode-optin-after-paste"))
        );
    }
}
