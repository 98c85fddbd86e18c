//! What fake-claude draws, line for line like the 2.1.332 captures in
//! `fixtures/screens/` (120 columns is the reference width).
//!
//! Committed blocks start with a blank line; the live region (spinner, input
//! box, footer, dialogs) starts with one too, as in the captures. Quirks kept
//! on purpose: the input line is `❯` + U+00A0 (no-break space), and tool or
//! interrupt status lines are `  ⎿ ` + U+00A0 + text.

use serde_json::Value;

use super::payloads::Offer;
use super::release::{Claude, Release};
use super::session::{Mode, Model};
use crate::input::line_breaks;
use crate::release::Version;
use crate::screen::{block, prefixed, rule};

/// The onboarding theme chooser (shown when not signed in).
pub const ONBOARDING: &str = include_str!("assets/onboarding-theme.txt");
/// No-break space, as the real input line and status lines use it.
pub const NBSP: char = '\u{a0}';
/// The interruption line.
pub const INTERRUPTED_LINE: &str = "  ⎿ \u{a0}Interrupted · What should Claude do instead?";

/// The three header lines.
pub fn header(version: Version, model: &Model, cwd: &str) -> Vec<String> {
    vec![
        format!(" ▐▛███▛█   Claude Code v{version}"),
        format!("▝▜██████▀  {} · API Usage Billing", model.display),
        format!(" ▝▝   ▝▝   {cwd}"),
    ]
}

/// The auto-mode notice under the header (auto mode only).
pub fn auto_notice() -> Vec<String> {
    [
        "",
        "▎ Auto mode is now Claude Code's default permission mode.",
        "▎ Auto mode lets Claude handle permission prompts automatically. Claude checks each tool call for risky actions and",
        "▎ prompt injection before executing, runs the ones it assesses as lower-risk, and blocks the rest.",
        "▎ https://code.claude.com/docs/en/permission-modes",
    ]
    .map(String::from)
    .to_vec()
}

/// The echoed prompt: `❯ text`, later lines indented.
pub fn echo(prompt: &str) -> Vec<String> {
    block(prompt, "❯ ", "  ")
}

/// An answer block: `● text`, later lines indented.
pub fn answer(text: &str) -> Vec<String> {
    block(text, "● ", "  ")
}

/// `● Tool(arg)` plus its `⎿` status line.
pub fn tool_call(tool: &str, input: &Value, status: &str) -> Vec<String> {
    vec![
        String::new(),
        format!("● {tool}({})", tool_arg(tool, input)),
        format!("  ⎿ {NBSP}{status}"),
    ]
}

/// What a tool call shows in parentheses.
pub fn tool_arg(tool: &str, input: &Value) -> String {
    let key = if tool == "Bash" {
        Some("command")
    } else {
        None
    };
    key.and_then(|k| input.get(k))
        .or_else(|| {
            input
                .as_object()
                .and_then(|m| m.values().find(|v| v.is_string()))
        })
        .and_then(Value::as_str)
        .map(|s| s.replace(['\n', '\r'], " "))
        .unwrap_or_default()
}

/// `✻ Brewed for 1s · done 7:52 PM`.
pub fn done_line(verb: &str, secs: u64, clock_time: &str) -> Vec<String> {
    vec![
        String::new(),
        format!("✻ {verb} for {secs}s · done {clock_time}"),
    ]
}

/// The spinner line while busy.
pub fn spinner(secs: u64) -> String {
    format!("✻ Vibing… ({secs}s · esc to interrupt)")
}

/// Footer states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Footer {
    /// Idle with an empty input: `… · ? for shortcuts`.
    Idle,
    /// Text typed: mode only.
    Typing,
    /// A paste placeholder is showing.
    Pasted,
    /// A turn is running: `… · esc to interrupt`.
    Busy,
    /// Ctrl-C was pressed once.
    ConfirmExit,
}

/// The footer line.
pub fn footer(mode: Mode, state: Footer) -> String {
    match state {
        Footer::Idle => format!("  {} · ? for shortcuts", mode.label()),
        Footer::Typing => format!("  {}", mode.label()),
        Footer::Pasted => "  paste again to expand".to_string(),
        Footer::Busy => format!("  {} · esc to interrupt", mode.label()),
        Footer::ConfirmExit => "  Press Ctrl-C again to exit".to_string(),
    }
}

/// The input box: rule, `❯` + NBSP + text (later lines indented), rule, footer.
pub fn input_box(width: usize, text: &str, footer: String) -> Vec<String> {
    let mut lines = vec![rule('─', width)];
    lines.extend(prefixed(text, &format!("❯{NBSP}"), "  "));
    lines.push(rule('─', width));
    lines.push(footer);
    lines
}

/// The Claude paste rule: 3+ line breaks or more than 800 characters become
/// `[Pasted text #N +M lines]` (M = line breaks) or `[Pasted text #N]`.
pub fn paste_label(n: u32, content: &str) -> Option<String> {
    let breaks = line_breaks(content);
    if breaks < 3 && content.chars().count() <= 800 {
        return None;
    }
    Some(if breaks > 0 {
        format!("[Pasted text #{n} +{breaks} lines]")
    } else {
        format!("[Pasted text #{n}]")
    })
}

/// The permission dialog for a tool call (cursor 0..=3 on the four choices) in `cwd`. Its
/// second option is what [`offer`](super::payloads::offer) says; offering the folder, 2.1.332
/// shows the command unmarked and no "This command requires approval" (`approval-dialog`).
pub fn permission_dialog(
    width: usize,
    tool: &str,
    input: &Value,
    cursor: usize,
    (mode, cwd): (Mode, &str),
) -> Vec<String> {
    let mut lines = vec![String::new()];
    lines.extend(tool_call(tool, input, "Waiting…").into_iter().skip(1));
    lines.push(String::new());
    lines.push(rule('─', width));
    let bash = tool == "Bash";
    lines.push(if bash {
        " Bash command".into()
    } else {
        format!(" {tool}")
    });
    if mode == Mode::Default {
        lines.push(
            " Tip: auto mode handles these prompts for you — choose \"switch to auto mode\" below"
                .into(),
        );
    }
    if let Some(d) = input.get("description").and_then(Value::as_str) {
        lines.push(format!(" {d}"));
    }
    lines.push(rule('╌', width));
    let body = match input.get("command").and_then(Value::as_str) {
        Some(cmd) if bash => cmd.to_string(),
        _ => serde_json::to_string(input).unwrap_or_default(),
    };
    let offer = super::payloads::offer(tool, input);
    if offer == Offer::Folder {
        lines.extend(prefixed(&body, " ", " "));
        lines.push(rule('╌', width));
    } else {
        lines.extend(prefixed(&body, " │ ", " │ "));
        lines.push(rule('╌', width));
        lines.push(if bash {
            " This command requires approval".into()
        } else {
            " This action requires approval".into()
        });
        lines.push(String::new());
    }
    lines.push(" Do you want to proceed?".into());
    let again = match offer {
        Offer::Folder => format!("Yes, and always allow access to {cwd} from this project"),
        Offer::Rule(prefix) if bash => format!("Yes, and don’t ask again for: {prefix}"),
        Offer::Rule(_) => format!("Yes, and don’t ask again for {tool}"),
    };
    let choices = [
        "Yes".to_string(),
        again,
        "Yes, and switch to auto mode · auto mode handles these prompts for you".into(),
        "No".into(),
    ];
    for (i, c) in choices.iter().enumerate() {
        let mark = if i == cursor { "❯" } else { " " };
        lines.push(format!(" {mark} {}. {c}", i + 1));
    }
    lines.push(String::new());
    lines.push(" Esc to cancel · Tab to amend".into());
    lines
}

/// The workspace trust dialog; `cursor` is the option's place: "No, exit" then "Yes, I trust
/// this folder", or before [`Claude::TrustNoFirst`] "1. Yes, I trust this folder" then "2. No,
/// exit".
pub fn trust_dialog(release: Release, width: usize, cwd: &str, cursor: usize) -> Vec<String> {
    let mark = |i: usize| if i == cursor { "❯" } else { " " };
    let options = if release.has(Claude::TrustNoFirst) {
        ["No, exit", "Yes, I trust this folder"]
    } else {
        ["1. Yes, I trust this folder", "2. No, exit"]
    };
    vec![
        String::new(),
        rule('─', width),
        " Accessing workspace:".into(),
        String::new(),
        format!(" {cwd}"),
        String::new(),
        " Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source".into(),
        " project, or work from your team). If not, take a moment to review what's in this folder first.".into(),
        String::new(),
        " Claude Code'll be able to read, edit, and execute files here.".into(),
        String::new(),
        " Security guide".into(),
        String::new(),
        format!(" {} {}", mark(0), options[0]),
        format!(" {} {}", mark(1), options[1]),
        String::new(),
        " Enter to confirm · Esc to cancel".into(),
    ]
}

/// The trust dialog of a release before [`Claude::TrustNoFirst`] once "Yes" is taken: the
/// option marked `✔` while the dialog stays up.
pub fn trust_taken(release: Release, width: usize, cwd: &str) -> Vec<String> {
    let mut lines = trust_dialog(release, width, cwd, 0);
    if let Some(line) = lines.iter_mut().find(|l| l.starts_with(" ❯ ")) {
        line.push_str(" ✔");
    }
    lines
}

/// The onboarding screen as lines.
pub fn onboarding() -> Vec<String> {
    ONBOARDING
        .trim_end_matches('\n')
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// What `/exit` (or a double Ctrl-C) prints last.
pub fn resume_hint(session_id: &str) -> String {
    format!("\r\nResume this session with:\r\nclaude --resume {session_id}\r\n")
}

/// A past-tense verb for the done line, picked from the prompt id.
pub fn done_verb(seed: &str) -> &'static str {
    const VERBS: &[&str] = &[
        "Churned",
        "Cooked",
        "Brewed",
        "Sautéed",
        "Baked",
        "Crunched",
        "Worked",
        "Cogitated",
    ];
    VERBS[(crate::ids::hash(&[seed.as_bytes()]) % VERBS.len() as u64) as usize]
}

/// The text said before a tool call.
pub fn preamble(tool: &str) -> String {
    if tool == "Bash" {
        "I will run a command.".into()
    } else {
        format!("I will use the {tool} tool.")
    }
}

/// The question dialog: a rule, the question, the way out.
pub fn question(width: usize, text: &str) -> Vec<String> {
    let mut lines = vec![
        String::new(),
        rule('─', width),
        " Claude has a question".into(),
    ];
    lines.push(String::new());
    lines.extend(text.lines().map(|l| format!(" {l}")));
    lines.push(String::new());
    lines.push(" Esc to cancel".into());
    lines
}

#[cfg(test)]
mod tests;
