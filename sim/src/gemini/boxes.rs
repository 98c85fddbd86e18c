//! The rounded boxes of fake-gemini, as in the 0.61.0 captures: the trust
//! and auth dialogs, the tool confirmation, the finished tool call and the
//! `/quit` summary.

use serde_json::Value;

use super::screens::{truncate, wrap};
use crate::screen::{rule, width_of};

/// A rounded box `width` columns wide, `indent` spaces in, rows padded with
/// `pad` spaces on each side (rows wider than the box are cut).
pub fn rounded(rows: &[String], width: usize, indent: usize, pad: usize) -> Vec<String> {
    let lead = " ".repeat(indent);
    let inner = width.saturating_sub(2);
    let text_w = inner.saturating_sub(2 * pad);
    let mut out = vec![format!("{lead}╭{}╮", rule('─', inner))];
    for row in rows {
        let row = if width_of(row) > text_w {
            truncate(row, text_w)
        } else {
            row.clone()
        };
        let fill = text_w.saturating_sub(width_of(&row));
        out.push(format!(
            "{lead}│{p}{row}{}{p}│",
            " ".repeat(fill),
            p = " ".repeat(pad)
        ));
    }
    out.push(format!("{lead}╰{}╯", rule('─', inner)));
    out
}

fn choices(items: &[String], cursor: usize, indent: &str) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mark = match (i == cursor, super::flavor::qwen()) {
                (true, true) => "›",
                (true, false) => "●",
                _ => " ",
            };
            format!("{indent}{mark} {}. {c}", i + 1)
        })
        .collect()
}

const TRUST_TEXT: &str = "Trusting a folder allows Gemini CLI to load its local configurations, including custom commands, hooks, MCP servers, agent skills, and settings. These configurations could execute code on your behalf or change the behavior of the CLI.";

/// Qwen Code's trust dialog (`tests/data/qwen/qwen-0.24.4-trust-dialog.txt`, shown only with
/// `security.folderTrust.enabled`).
const QWEN_TRUST_QUESTION: &str = "Do you trust this folder?";
const QWEN_TRUST_TEXT: &str = "Trusting a folder allows Qwen Code to execute commands it suggests. This is a security feature to prevent accidental execution in untrusted directories.";

/// Printed under the trust dialog while the CLI restarts (Gemini CLI's, or Qwen Code's).
pub fn restarting() -> &'static str {
    match super::flavor::qwen() {
        true => " Qwen Code is restarting to apply the trust changes...",
        false => RESTARTING,
    }
}

/// The folder trust dialog (`cursor` 0..=2), one column in, two narrower than the screen.
pub fn trust_dialog(width: usize, cwd: &std::path::Path, cursor: usize) -> Vec<String> {
    let name = |p: Option<&std::path::Path>| {
        p.and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let box_w = width.saturating_sub(2);
    let text_w = box_w.saturating_sub(4);
    let qwen = super::flavor::qwen();
    let (question, text, refuse) = match qwen {
        true => (QWEN_TRUST_QUESTION, QWEN_TRUST_TEXT, "Don't trust (esc)"),
        false => (
            "Do you trust the files in this folder?",
            TRUST_TEXT,
            "Don't trust",
        ),
    };
    let mut rows = vec![String::new(), question.to_string()];
    if !qwen {
        rows.push(String::new());
    }
    rows.extend(wrap(text, text_w, "", ""));
    rows.extend(
        [String::new(), String::new()]
            .into_iter()
            .skip(usize::from(qwen)),
    );
    let items = [
        format!("Trust folder ({})", name(Some(cwd))),
        format!("Trust parent folder ({})", name(cwd.parent())),
        refuse.to_string(),
    ];
    rows.extend(choices(&items, cursor, ""));
    rows.push(String::new());
    rounded(&rows, box_w, 1, 1)
}

/// A dialog umbel does not know (a scenario's `unknown_dialog`), boxed as gemini boxes its own
/// choices: the question over `● 1. Yes` / `2. No`.
pub fn unknown_dialog(width: usize, question: &str, cursor: usize) -> Vec<String> {
    let mut rows = vec![String::new(), question.to_string(), String::new()];
    rows.extend(choices(&["Yes".to_string(), "No".to_string()], cursor, ""));
    rows.push(String::new());
    rounded(&rows, width.saturating_sub(2), 1, 1)
}

/// Printed under the trust dialog while the CLI restarts.
pub const RESTARTING: &str = " Gemini CLI is restarting to apply the trust changes...";
/// Printed when Esc leaves the trust dialog.
pub const TRUST_ESC: &str =
    " A folder trust level must be selected to continue. Exiting since escape was pressed.";

/// The auth dialog (`cursor` 0..=2); `message` is the line under the choices.
pub fn auth_dialog(width: usize, cursor: usize, message: &str) -> Vec<String> {
    let items = [
        "Sign in with Google".to_string(),
        "Use Gemini API Key".to_string(),
        "Vertex AI".to_string(),
    ];
    let mut rows = vec![
        String::new(),
        "? Get started".to_string(),
        String::new(),
        "  How would you like to authenticate for this project?".to_string(),
        String::new(),
    ];
    rows.extend(choices(&items, cursor, "  "));
    for line in [
        "",
        message,
        "",
        "  (Use Enter to select)",
        "",
        "  Terms of Services and Privacy Notice for Gemini CLI",
        "",
        "  https://geminicli.com/docs/resources/tos-privacy/",
        "",
    ] {
        rows.push(if line == message && !line.is_empty() {
            format!("  {line}")
        } else {
            line.to_string()
        });
    }
    rounded(&rows, width, 0, 1)
}

/// The auth dialog's message before a choice.
pub const NO_AUTH: &str = "No authentication method selected.";
/// Its message after Esc.
pub const AUTH_ESC: &str = "You must select an auth method to proceed. Press Ctrl+C twice to exit.";

/// The title of a tool as the boxes show it, and the text after it.
pub fn tool_title(display: &str, input: &Value) -> String {
    let arg = input
        .get("command")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| serde_json::to_string(input).unwrap_or_default());
    format!("{display} {arg}")
}

/// True when a shell command writes with `>`.
pub fn has_redirection(command: &str) -> bool {
    command.contains('>')
}

/// The tool confirmation box (`cursor` 0..=2), full width.
pub fn confirm(width: usize, display: &str, input: &Value, cursor: usize) -> Vec<String> {
    let text_w = width.saturating_sub(4);
    let command = input.get("command").and_then(Value::as_str);
    let body = command
        .map(str::to_string)
        .unwrap_or_else(|| serde_json::to_string_pretty(input).unwrap_or_default());
    let mut rows = vec![truncate(
        &format!("? {display}  {}", tool_title("", input).trim_start()),
        text_w,
    )];
    let inner_w = text_w;
    let mut inner = Vec::new();
    for line in crate::screen::split_lines(&body) {
        inner.extend(wrap(&line, inner_w.saturating_sub(6), "", ""));
    }
    rows.extend(rounded(&inner, inner_w, 0, 1));
    if super::flavor::qwen() {
        // Recorded: `tests/data/qwen/qwen-0.24.4-permission.txt`.
        let root = command
            .and_then(|c| c.split_whitespace().next())
            .unwrap_or(display);
        rows.push(format!("Allow execution of: '{root}'?"));
        rows.push(String::new());
        rows.extend(choices(&qwen_items(root), cursor, ""));
        return rounded(&rows, width, 0, 1);
    }
    rows.push(format!("Allow execution of [{display}]?"));
    if command.is_some_and(has_redirection) {
        rows.push("Redirection detected. To auto-accept, press Shift+Tab".to_string());
    }
    rows.push(String::new());
    let items = [
        "Allow once".to_string(),
        "Allow for this session".to_string(),
        "No, suggest changes (esc)".to_string(),
    ];
    rows.extend(choices(&items, cursor, ""));
    rounded(&rows, width, 0, 1)
}

/// Qwen Code 0.24.4's shell confirmation: once, always in the project, always for the user, no.
fn qwen_items(root: &str) -> [String; 4] {
    [
        "Yes, allow once".to_string(),
        format!("Always allow run '{root} *' commands in this project"),
        format!("Always allow run '{root} *' commands for this user"),
        "No, suggest changes (esc)".to_string(),
    ]
}

/// A finished (`✓`) or cancelled (`-`) tool call with its output, 4 narrower than the screen;
/// a cancelled one has an empty row under its title (0.61.0's `approval-after-esc`).
pub fn tool_done(width: usize, display: &str, input: &Value, output: Option<&str>) -> Vec<String> {
    let box_w = width.saturating_sub(4);
    let text_w = box_w.saturating_sub(4);
    let mark = if output.is_some() { "✓" } else { "-" };
    let mut rows = vec![truncate(
        &format!("{mark}  {}", tool_title(display, input)),
        text_w,
    )];
    if let Some(out) = output {
        rows.push(String::new());
        for line in crate::screen::split_lines(out) {
            rows.extend(wrap(&line, text_w, "", ""));
        }
    }
    rows.push(String::new());
    let mut lines = vec![String::new(), String::new()];
    lines.extend(rounded(&rows, box_w, 0, 1));
    lines
}

/// Numbers for the `/quit` summary.
pub struct Summary<'a> {
    /// Session id.
    pub session_id: &'a str,
    /// Tool calls, successful ones.
    pub tools: (u64, u64),
    /// Virtual wall time and agent-active time, in ms.
    pub wall_ms: u64,
    /// Time spent in turns.
    pub active_ms: u64,
    /// Model name, requests, input and output tokens.
    pub model: (&'a str, u64, u64, u64),
}

fn duration(ms: u64) -> String {
    match ms {
        0..1000 => format!("{ms}ms"),
        1000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        _ => format!("{}m {}s", ms / 60_000, ms % 60_000 / 1000),
    }
}

/// The box `/quit` prints: goodbye, summary, session id, resume hint.
pub fn quit_summary(width: usize, s: &Summary) -> Vec<String> {
    let row = |label: &str, value: String| format!("{label:<28}{value}");
    let (calls, ok) = s.tools;
    let mut rows = vec![
        String::new(),
        "Agent powering down. Goodbye!".to_string(),
        String::new(),
        "Interaction Summary".to_string(),
        row("Session ID:", s.session_id.to_string()),
        row(
            "Tool Calls:",
            format!("{calls} ( ✓ {ok} x {} )", calls - ok.min(calls)),
        ),
    ];
    if calls > 0 {
        let rate = ok as f64 * 100.0 / calls as f64;
        rows.push(row("Success Rate:", format!("{rate:.1}%")));
    }
    rows.extend([
        String::new(),
        "Performance".to_string(),
        row("Wall Time:", duration(s.wall_ms)),
        row("Agent Active:", duration(s.active_ms)),
        String::new(),
        String::new(),
        "Model Usage".to_string(),
        String::new(),
        format!(
            "{:<32}{:>4}  {:>12}  {:>12}",
            "Model", "Reqs", "Input Tokens", "Output Tokens"
        ),
        rule('─', width.saturating_sub(6)),
    ]);
    let (model, reqs, input, output) = s.model;
    rows.push(format!("{model:<32}{reqs:>4}  {input:>12}  {output:>12}"));
    rows.push(format!(
        "To resume this session: gemini --resume {}",
        s.session_id
    ));
    let mut lines = vec![String::new()];
    lines.extend(rounded(&rows, width, 0, 2));
    lines
}

#[cfg(test)]
mod tests;
