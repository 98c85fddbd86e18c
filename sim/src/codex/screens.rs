//! What fake-codex draws, line for line like the 0.171.0 captures in
//! `fixtures/screens/` (120 columns is the reference width).
//!
//! History cells start with a blank separator line; the echoed prompt also
//! has a blank line of padding below it, as in the captures. The composer,
//! status line and footer form the live region at the bottom of the screen.

use super::release::{Codex, Release};
use crate::screen::{prefixed, spread, width_of};

/// The composer's placeholder (what an empty, idle input line shows).
pub const PLACEHOLDER: &str = "› Ask Codex to do anything";
/// The footer under an empty composer.
pub const FOOTER: &str = "  ← for agents · ? for shortcuts";
/// The footer under an empty composer before the session is configured (no status line yet).
pub const FOOTER_UNCONFIGURED: &str = "  ? for shortcuts";
/// The footer while a prompt submitted before the session was configured waits for it.
pub const FOOTER_STARTING: &str = "  Waiting for startup  · esc cancel";
/// What plan mode adds at the footer's right (before the `⚠ N warnings` badge the fake does
/// not draw).
pub const PLAN_MODE: &str = "Plan mode (shift+tab to cycle)";
/// The footer after one Ctrl-C.
pub const FOOTER_CTRL_C: &str = "  ctrl + c again to quit";
/// The line an interrupted turn leaves.
pub const INTERRUPTED: &str = "■ Conversation interrupted - use /feedback if something went wrong";
/// Pastes longer than this many characters become a placeholder.
pub const LARGE_PASTE_CHARS: usize = 1000;

/// The not-signed-in screen, as recorded.
pub const LOGIN: &[&str] = &[
    "  Welcome to Codex, OpenAI's command-line coding agent",
    "",
    "  Choose how you want to use Codex.",
    "",
    "> 1. Sign in with ChatGPT",
    "     Usage included with Plus, Pro, Business, and Enterprise plans",
    "",
    "  2. Sign in with Device Code",
    "     Sign in from another device with a one-time code",
    "",
    "  3. Sign in another way",
    "     Use an API key or another provider",
    "",
    "  Press enter to continue",
];

/// The header cell.
pub fn header(cwd: &str) -> Vec<String> {
    vec![
        String::new(),
        format!("  >_ OpenAI Codex (v{})", super::release::current().version),
        format!("     {cwd}"),
    ]
}

/// The composer lines: the placeholder, or `› text` with later lines indented.
pub fn composer(display: &str) -> Vec<String> {
    if display.is_empty() {
        return vec![PLACEHOLDER.to_string()];
    }
    prefixed(display, "› ", "  ")
}

/// The reasoning effort the status line names: `medium` in plan mode, else `default`.
pub fn effort(plan: bool) -> &'static str {
    if plan { "medium" } else { "default" }
}

/// The footer under the composer, `empty` or not, in plan mode or not: [`FOOTER`] under an
/// empty one (nothing under typed text), and in plan mode [`PLAN_MODE`] at the right, one
/// column short of `width` (where 0.171.0 ends the footer's right side).
pub fn footer(plan: bool, empty: bool, width: usize) -> String {
    let left = if empty { FOOTER } else { "" };
    if !plan {
        return left.to_string();
    }
    spread(left, PLAN_MODE, width.saturating_sub(1))
}

/// The history cell Shift+Tab into plan mode adds.
pub fn plan_notice(model: &str) -> Vec<String> {
    vec![
        String::new(),
        format!("• Model changed to {model} medium for Plan mode."),
    ]
}

/// `  <model> <effort> · <cwd>[ · <thread title>]` (effort: [`effort`]); a title that would
/// not fit in `width` columns is cut and ends with `…`.
pub fn status_line(
    (model, effort): (&str, &str),
    cwd: &str,
    title: Option<&str>,
    width: usize,
) -> String {
    let mut s = format!("  {model} {effort} · {cwd}");
    if let Some(t) = title {
        s.push_str(" · ");
        let room = width.saturating_sub(width_of(&s));
        if width_of(t) <= room {
            s.push_str(t);
        } else {
            let mut used = 1;
            for c in t.chars() {
                used += crate::screen::char_width(c);
                if used > room {
                    break;
                }
                s.push(c);
            }
            s.push('…');
        }
    }
    s
}

/// Elapsed time as codex prints it: `3s`, `1m 05s`, `1h 02m 03s`.
pub fn elapsed(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m {:02}s", secs / 3600, secs / 60 % 60, secs % 60),
    }
}

/// The busy indicator.
pub fn working(secs: u64) -> String {
    format!("• Working ({} • esc to interrupt)", elapsed(secs))
}

/// The echoed prompt cell.
pub fn echo(prompt: &str) -> Vec<String> {
    let mut lines = vec![String::new(), String::new()];
    lines.extend(prefixed(prompt, "› ", "  "));
    lines.push(String::new());
    lines
}

/// `  Worked for <1s • 19:56` (duration in virtual ms, `HH:MM` of the end).
pub fn worked(ms: i64, hhmm: &str) -> Vec<String> {
    let took = if ms < 1000 {
        "<1s".to_string()
    } else {
        elapsed((ms / 1000) as u64)
    };
    vec![String::new(), format!("  Worked for {took} • {hhmm}")]
}

/// An error cell: `■ text`, word-wrapped at the full width without indent.
pub fn error_cell(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    lines.extend(wrap(&format!("■ {text}"), width, ""));
    lines
}

/// The usage-limit message.
pub fn usage_limit_text(retry_at: &str) -> String {
    format!(
        "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at {retry_at}."
    )
}

/// The raw error body codex shows for an HTTP error.
pub fn api_error_body(status: u16, message: &str) -> String {
    let (kind, code) = match status {
        400 => ("invalid_request_error", "bad_request"),
        401 => ("authentication_error", "invalid_api_key"),
        403 => ("permission_error", "forbidden"),
        404 => ("not_found_error", "not_found"),
        429 => ("rate_limit_error", "rate_limit_exceeded"),
        500..=599 => ("server_error", "server_error"),
        _ => ("invalid_request_error", "error"),
    };
    let message = serde_json::to_string(message).unwrap_or_default();
    format!(
        "{{\"error\": {{\"type\": \"{kind}\", \"code\": \"{code}\", \"message\": {message}, \"param\": null}}}}"
    )
}

/// `• Ran <cmd>` and its output under `└`.
pub fn ran(cmd: &str, output: &str) -> Vec<String> {
    let mut lines = vec![String::new(), format!("• Ran {}", one_line(cmd))];
    let out = output.trim_end_matches(['\n', '\r']);
    if out.is_empty() {
        lines.push("  └ (no output)".to_string());
    } else {
        lines.extend(prefixed(out, "  └ ", "    "));
    }
    lines
}

/// The approval decision cell.
pub fn decision(cmd: &str, approved: bool, always: bool) -> Vec<String> {
    let cmd = one_line(cmd);
    let line = match (approved, always) {
        (true, false) => format!("✔ You approved codex to run {cmd} this time"),
        (true, true) => format!("✔ You approved codex to run {cmd} every time this session"),
        (false, _) => format!("✗ You canceled the request to run {cmd}"),
    };
    vec![String::new(), line]
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The command prefix option 2 offers: the command up to its first `;`, `&&`, `||` or `|`.
pub fn command_prefix(cmd: &str) -> String {
    let cut = [";", "&&", "||", "|"]
        .iter()
        .filter_map(|sep| cmd.find(sep))
        .min()
        .unwrap_or(cmd.len());
    one_line(cmd[..cut].trim())
}

/// The approval prompt for a command, cursor on option `cursor` (0..=2).
pub fn approval(cmd: &str, reason: Option<&str>, cursor: usize) -> Vec<String> {
    let mut lines = vec![
        String::new(),
        format!("• Running {}", one_line(cmd)),
        String::new(),
        String::new(),
        "  Would you like to run the following command?".to_string(),
        String::new(),
        "  Environment: local".to_string(),
        String::new(),
    ];
    if let Some(r) = reason {
        lines.push(format!("  Reason: {}", one_line(r)));
        lines.push(String::new());
    }
    lines.push(format!("  $ {}", one_line(cmd)));
    lines.push(String::new());
    lines.push(String::new());
    let options = [
        "1. Yes, proceed (y)".to_string(),
        format!(
            "2. Yes, and don't ask again for commands that start with `{}` (p)",
            command_prefix(cmd)
        ),
        "3. No, and tell Codex what to do differently (esc)".to_string(),
    ];
    menu(
        lines,
        &options,
        cursor,
        "  Press enter to confirm or esc to cancel",
    )
}

/// Options with `› ` before the selected one.
pub fn select(options: &[String], cursor: usize) -> Vec<String> {
    options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}{o}", if i == cursor { "› " } else { "  " }))
        .collect()
}

/// `lines`, then `options` with the cursor's marked, a blank line and `footer`.
fn menu(mut lines: Vec<String>, options: &[String], cursor: usize, footer: &str) -> Vec<String> {
    lines.extend(select(options, cursor));
    lines.push(String::new());
    lines.push(footer.to_string());
    lines
}

/// The folder trust dialog (cursor 0 = "Trust and continue"; before
/// [`Codex::FolderAccessDialog`]: "Yes, continue").
pub fn trust_dialog(release: Release, cwd: &str, cursor: usize, width: usize) -> Vec<String> {
    if !release.has(Codex::FolderAccessDialog) {
        return old_trust_dialog(cwd, cursor, width);
    }
    let mut lines = vec![
        String::new(),
        "  Folder access".to_string(),
        format!("  {cwd}"),
        String::new(),
    ];
    lines.extend(wrap(
        "  Trust this folder? Codex can read, edit, and run files here, subject to your permission settings. Folder settings can run code automatically, even without a model request. Continue only if you trust these files. Your trust decision will be saved.",
        width.saturating_sub(2),
        "  ",
    ));
    lines.push(String::new());
    let options = [
        "1. Trust and continue".to_string(),
        "2. Back to Agent Command Center".to_string(),
    ];
    menu(lines, &options, cursor, "  enter continue · esc back")
}

/// The trust dialog of the releases before [`Codex::FolderAccessDialog`], below its animated
/// logo (which is left out: umbel reads none of it).
fn old_trust_dialog(cwd: &str, cursor: usize, width: usize) -> Vec<String> {
    let mut lines = vec![
        String::new(),
        "  Welcome to Codex, OpenAI's command-line coding agent".to_string(),
        String::new(),
        format!("> You are in {cwd}"),
        String::new(),
    ];
    lines.extend(wrap(
        "  Do you trust the contents of this directory? Working with untrusted contents comes with higher risk of prompt injection. Trusting the directory allows project-local config, hooks, and exec policies to load.",
        width.saturating_sub(2),
        "  ",
    ));
    lines.push(String::new());
    let options = ["1. Yes, continue".to_string(), "2. No, quit".to_string()];
    menu(lines, &options, cursor, "  Press enter to continue")
}

/// A dialog umbel does not know (a scenario's `unknown_dialog`), drawn as codex draws its own
/// choices: the question, `› 1. Yes` / `2. No`, and an esc footer.
pub fn unknown_dialog(question: &str, cursor: usize) -> Vec<String> {
    let lines = vec![String::new(), format!("  {question}"), String::new()];
    let options = ["1. Yes".to_string(), "2. No".to_string()];
    menu(
        lines,
        &options,
        cursor,
        "  Press enter to confirm or esc to cancel",
    )
}

/// "Hooks need review" (cursor 0..=2).
pub fn hooks_review(count: usize, cursor: usize) -> Vec<String> {
    let what = if count == 1 {
        "1 hook is new or changed.".to_string()
    } else {
        format!("{count} hooks are new or changed.")
    };
    let lines = vec![
        String::new(),
        "  Hooks need review".to_string(),
        format!("  {what}"),
        "  Hooks can run outside the sandbox after you trust them.".to_string(),
        String::new(),
        String::new(),
    ];
    let options = [
        "1. Review hooks".to_string(),
        "2. Trust all and continue".to_string(),
        "3. Continue without trusting (hooks won't run)".to_string(),
    ];
    menu(lines, &options, cursor, "  enter confirm · esc skip")
}

/// One row per event: (name, installed, active, review, description).
pub type HookRow = (String, usize, usize, usize, String);

/// Rows shown at once in the hooks list.
pub const LIST_ROWS: usize = 8;

/// The `/hooks` list: `top` is the first row shown, `cursor` the selected row.
pub fn hooks_list(rows: &[HookRow], review: usize, top: usize, cursor: usize) -> Vec<String> {
    let mut lines = vec![
        "  Hooks".to_string(),
        "  Lifecycle hooks from config and enabled plugins.".to_string(),
        String::new(),
    ];
    if review > 0 {
        let what = if review == 1 {
            "1 hook needs review before it can run.".to_string()
        } else {
            format!("{review} hooks need review before they can run.")
        };
        lines.push(format!("  ⚠ {what}"));
        lines.push(String::new());
    }
    lines.push(format!(
        "  {:<22}{:<12}{:<12}{:<12}Description",
        "Event", "Installed", "Active", "Review"
    ));
    lines.push(String::new());
    if top > 0 {
        lines.push("↑".to_string());
    }
    for (i, (event, installed, active, rev, desc)) in
        rows.iter().enumerate().skip(top).take(LIST_ROWS)
    {
        let mark = if i == cursor { "› " } else { "  " };
        lines.push(format!(
            "{mark}{event:<22}{installed:<12}{active:<12}{rev:<12}{desc}"
        ));
    }
    if top + LIST_ROWS < rows.len() {
        lines.push("↓".to_string());
    }
    lines.push(String::new());
    lines.push("  t trust all · enter review · esc close".to_string());
    lines
}

/// What `/quit` prints: the resume hint (and, without `--no-daemon`, the
/// daemon's "Disconnected" text with token usage).
pub fn quit_lines(
    id: &str,
    title: Option<&str>,
    no_daemon: bool,
    tokens: (u64, u64),
) -> Vec<String> {
    if no_daemon {
        let mut lines = vec![
            "To continue this session, run:".to_string(),
            format!("  codex resume {id}"),
        ];
        if let Some(t) = title {
            lines.push(format!("Or run codex resume and select {t}."));
        }
        return lines;
    }
    let (input, output) = tokens;
    vec![
        "Disconnected from this task. Any running work continues.".to_string(),
        "To reconnect, run:".to_string(),
        format!("  codex resume {id}"),
        "Stop the current turn: run codex agents, select this task, and press x.".to_string(),
        format!(
            "Token usage so far: total={} input={} output={}",
            thousands(input + output),
            thousands(input),
            thousands(output)
        ),
    ]
}

/// `1690` → `1,690`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The paste rule: more than 1000 characters → `[Pasted Content N chars]`.
pub fn paste_label(_n: u32, content: &str) -> Option<String> {
    let n = content.chars().count();
    (n > LARGE_PASTE_CHARS).then(|| format!("[Pasted Content {n} chars]"))
}

/// Greedy word wrap to `width` columns: breaks after spaces, and after `/`
/// inside long words (as codex's wrapping does for URLs); `rest` starts every
/// line after the first. Trailing spaces at a break are dropped.
pub fn wrap(text: &str, width: usize, rest: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        cur.push(c);
        let next = chars.get(i + 1).copied();
        let after_space = c == ' ' && next.is_some_and(|n| n != ' ');
        let after_slash =
            c == '/' && next.is_some_and(|n| n != '/' && !n.is_whitespace() && !n.is_ascii_digit());
        if after_space || after_slash {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    let mut lines = Vec::new();
    let mut line = String::new();
    for tok in tokens {
        let fits = width_of(format!("{line}{tok}").trim_end()) <= width.max(1);
        if !fits && !line.trim().is_empty() && line != rest {
            lines.push(line.trim_end().to_string());
            line = rest.to_string();
        }
        line.push_str(&tok);
    }
    lines.push(line.trim_end().to_string());
    lines
}

#[cfg(test)]
#[path = "screens_tests.rs"]
mod tests;
