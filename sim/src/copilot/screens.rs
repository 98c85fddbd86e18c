//! copilot's screens as text, recorded at 120×40 in `tests/data/copilot/<version>/`: a
//! full-screen TUI redrawn whole ([`frame`]).
//!
//! From the top: the tab bar, a blank row, the conversation (the logo and startup notices,
//! then each prompt ` ❯ <prompt>` with its time at the right, answers ` ● <text>`, tool blocks
//! ` $ Shell <what>`, errors ` ✗ <status> <message>`, every block followed by a blank row;
//! scrolled to its end, a `┃` in the last column once it overflows), then the composer: the
//! folder (and git branch), a rule, `❯ <input>`, a rule, the status line (the agent mode,
//! [`AgentMode`], and the model at the right). A dialog (folder trust, a tool's permission)
//! takes the composer's place.

use super::mode::AgentMode;
use super::records::Call;
use super::release::{Copilot, Release};
use crate::screen::{rule, spread, width_of};

/// The tab bar on the first row.
pub const TABS: &str = " [Current]  Sessions   Issues   Pull requests   Gists";

/// What the not-signed-in composer shows above the folder (`copilot-1.0.102-sign-in.txt`).
pub const SIGN_IN: &str = "Please use /login to sign in to use Copilot";

/// The line an interrupted or refused turn ends with.
pub const CANCELLED: &str = " ● Operation cancelled by user";

/// The dialogs' key hints.
const KEYS: &str = "↑/↓ to navigate · enter to select · esc to cancel";

/// `text` padded with spaces to `width` columns (cut when longer).
pub fn pad(text: &str, width: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if width_of(&out) + crate::screen::char_width(c) > width {
            break;
        }
        out.push(c);
    }
    let fill = width.saturating_sub(width_of(&out));
    out + &" ".repeat(fill)
}

/// `text` word-wrapped at `width` columns, `first` before its first row and `rest` before the
/// others; each line of `text` starts a new row.
pub fn wrap(text: &str, first: &str, rest: &str, width: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for line in crate::screen::split_lines(text) {
        let mut row = if rows.is_empty() { first } else { rest }.to_string();
        let mut empty = true;
        for word in line.split(' ') {
            if !empty && width_of(&row) + 1 + width_of(word) > width {
                rows.push(std::mem::replace(&mut row, rest.to_string()));
                empty = true;
            }
            if !empty {
                row.push(' ');
            }
            row.push_str(word);
            empty = false;
        }
        rows.push(row);
    }
    rows
}

/// The logo and its two lines (all that is left of the conversation's start once a turn was
/// taken back: recorded, `copilot-1.0.102-esc-before-text.txt`).
pub fn logo(release: Release) -> Vec<String> {
    vec![
        "  ╭─╮╭─╮".into(),
        format!("  ╰─╯╰─╯  Copilot v{} uses AI.", release.version),
        "  █ ▘▝ █  Check for mistakes.".into(),
        "   ▔▔▔▔".into(),
        String::new(),
    ]
}

/// What the startup notices say.
#[derive(Clone, Debug, Default)]
pub struct Notices {
    /// The folder has no `.github/copilot-instructions.md` (signed in only).
    pub no_instructions: bool,
    /// A BYOK model outside the catalog: its name.
    pub off_catalog: Option<String>,
    /// The folder is trusted: the MCP servers loaded.
    pub mcp: bool,
}

/// The conversation's start: logo, the `/app` tip, the notices.
pub fn header(release: Release, n: &Notices, width: usize) -> Vec<String> {
    let tip = [
        " ● Tip: /app",
        "   └ Prefer a visual workspace? Try out the GitHub Copilot desktop app",
        "     \u{a0}https://github.com/features/ai/github-app\u{a0}",
        "",
    ];
    let instructions = [
        " ● No copilot-instructions.md found. Run /init to generate.",
        "",
    ];
    let mut rows = logo(release);
    let tip_first = release.has(Copilot::TipFirst);
    if tip_first {
        rows.extend(tip.map(String::from));
    }
    if n.no_instructions {
        rows.extend(instructions.map(String::from));
    }
    if !tip_first {
        rows.extend(tip.map(String::from));
    }
    if let Some(model) = &n.off_catalog {
        let text = format!(
            "Model \"{model}\" is not in the built-in catalog. Using defaults for: prompt tokens (COPILOT_PROVIDER_MAX_PROMPT_TOKENS), output tokens (COPILOT_PROVIDER_MAX_OUTPUT_TOKENS). Run \u{a0}copilot help providers\u{a0} for configuration details."
        );
        rows.extend(wrap(&text, " ! ", "   ", width.saturating_sub(2)));
        rows.push(String::new());
    }
    if n.mcp {
        rows.extend(mcp());
    }
    rows
}

/// The notice once the folder is trusted and the MCP servers loaded (none).
pub fn mcp() -> Vec<String> {
    vec![
        " ● MCP Servers reloaded: 0 servers connected".into(),
        String::new(),
    ]
}

/// A submitted prompt: ` ❯ <prompt>`, `time` (`HH:MM`) at the right.
pub fn prompt(text: &str, time: &str, width: usize) -> Vec<String> {
    let mut rows = wrap(text, " ❯ ", "   ", width.saturating_sub(9));
    rows[0] = spread(&rows[0], time, width.saturating_sub(2));
    rows.push(String::new());
    rows
}

/// An answer: ` ● <text>`.
pub fn answer(text: &str, width: usize) -> Vec<String> {
    let mut rows = wrap(text, " ● ", "   ", width.saturating_sub(2));
    rows.push(String::new());
    rows
}

/// A failed model call: ` ✗ <status> <message>`.
pub fn error(message: &str, width: usize) -> Vec<String> {
    let mut rows = wrap(message, " ✗ ", "   ", width.saturating_sub(2));
    rows.push(String::new());
    rows
}

/// The turn was stopped (Esc Esc, or Esc on a permission dialog).
pub fn cancelled() -> Vec<String> {
    vec![CANCELLED.into(), String::new()]
}

/// Where a tool call is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ToolState {
    /// Its permission is asked.
    Asked,
    /// It ran.
    Ran,
    /// Its permission was refused (Esc).
    Refused,
}

/// A tool call's block: ` $ Shell <what>` over its command (`● <Tool>` for other tools: not
/// recorded), then how it went.
pub fn tool(call: &Call, state: ToolState, release: Release) -> Vec<String> {
    let (glyph, label) = match call.shell() {
        true => ("$", "Shell".to_string()),
        false => ("●", call.claude_name.clone()),
    };
    let what = call.intention();
    let head = match state {
        ToolState::Asked => format!(" {glyph} {label} {what}"),
        ToolState::Ran if call.output.is_empty() => format!(" {glyph} {label} {what} No Content"),
        ToolState::Ran => format!(" {glyph} {label} {what}"),
        ToolState::Refused => format!(" ✗ {label} {what} Operation aborted by user"),
    };
    let mut rows = vec![head];
    let cmd = call.command();
    if !cmd.is_empty() {
        rows.extend(
            crate::screen::split_lines(&cmd)
                .iter()
                .map(|l| format!("   {l}")),
        );
    }
    if state == ToolState::Ran && !call.output.is_empty() {
        rows.extend(crate::screen::prefixed(
            call.output.trim_end(),
            "   └ ",
            "     ",
        ));
    }
    if state == ToolState::Refused && release.has(Copilot::ApprovalCheck) {
        rows.push("   Approval check".into());
        rows.push("     └ - Confirmation cancelled for shell command".into());
    }
    rows.push(String::new());
    rows
}

/// What the status line shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Status {
    /// Its skills and hooks still load (` ● Loading: 7 hooks, 2 skills`; 1.0.82: ` ● Loading:`),
    /// the input line already drawn above it (recorded on 1.0.102 and 1.0.82 under umbel).
    Loading,
    /// Nothing typed.
    Idle,
    /// Something typed.
    Typed,
    /// A turn runs; `armed`: Esc was pressed once. `bytes` streamed so far.
    Busy {
        /// Bytes of answer streamed.
        bytes: usize,
        /// The first Esc of an interrupt was pressed.
        armed: bool,
        /// The model has not answered yet: Esc Esc takes the turn back (`edit prompt`).
        edit: bool,
    },
    /// One Ctrl-C was pressed (not recorded).
    ConfirmExit,
}

/// The status line's left part; releases with [`Copilot::ModesInStatus`] name `mode` in it
/// (Autopilot's idle line has no `? help`; the typed line in Plan or Autopilot is not recorded).
fn status_left(status: Status, mode: AgentMode, release: Release) -> String {
    let modes = release.has(Copilot::ModesInStatus);
    let name = mode.name();
    match status {
        Status::Idle if modes => {
            let help = if mode.offers_help() { "? help · " } else { "" };
            format!(" ← open sidebar · {name} · Manual Approval · / commands · {help}tab next tab")
        }
        Status::Idle => " ← open sidebar · / commands · ? help · tab next tab".into(),
        Status::Loading => " ● Loading:".into(),
        Status::Typed if modes => format!(" {name} · Manual Approval · @ files · # issues"),
        Status::Typed => " @ files · # issues".into(),
        Status::ConfirmExit => " Press Ctrl+C again to exit".into(),
        Status::Busy { bytes, armed, edit } => {
            let glyph = if armed { "○" } else { "●" };
            let size = if bytes > 0 {
                format!(" · {bytes} B")
            } else {
                String::new()
            };
            let hint = match (armed, edit, release.has(Copilot::EscEscHint)) {
                (true, true, _) => "esc again to edit prompt",
                (false, true, _) => "esc esc edit prompt",
                (true, false, _) => "esc again to interrupt",
                (false, false, true) => "esc esc interrupt",
                (false, false, false) => "esc interrupt",
            };
            format!(" {glyph} Working{size} {hint}")
        }
    }
}

/// The composer's rows: a notice (the sign-in line), the folder, the input between two rules,
/// the status line with `model` at the right (none when not signed in).
pub struct Composer<'a> {
    /// The folder line.
    pub folder: &'a str,
    /// The input's text.
    pub input: &'a str,
    /// The status line's state.
    pub status: Status,
    /// The model at the status line's right (empty: none).
    pub model: &'a str,
    /// A notice over the folder line.
    pub notice: Option<&'a str>,
    /// The agent mode the status line names.
    pub mode: AgentMode,
}

/// The composer at `width` columns.
pub fn composer(c: &Composer, release: Release, width: usize) -> Vec<String> {
    let mut rows: Vec<String> = c.notice.iter().map(|n| n.to_string()).collect();
    rows.push(c.folder.to_string());
    rows.push(rule('─', width));
    rows.extend(
        crate::screen::prefixed(c.input, "❯ ", "  ")
            .iter()
            .map(|r| r.trim_end().to_string()),
    );
    rows.push(rule('─', width));
    let left = status_left(c.status, c.mode, release);
    rows.push(match c.model.is_empty() {
        true => left,
        false => spread(&left, c.model, width.saturating_sub(1)),
    });
    rows
}

/// The folder line: ` <cwd> [⎇ <branch>]`.
pub fn folder(cwd: &str, branch: Option<&str>) -> String {
    match branch {
        Some(b) if !b.is_empty() => format!(" {cwd} [⎇ {b}]"),
        _ => format!(" {cwd}"),
    }
}

/// A dialog box across `width` columns: title, a rule, `framed` lines in an inner box, then
/// `body`.
fn boxed(width: usize, title: &str, framed: &[String], body: &[String]) -> Vec<String> {
    let inner = width.saturating_sub(4);
    let row = |t: &str| format!("│ {} │", pad(t, inner));
    let mut rows = vec![format!("╭{}╮", rule('─', width.saturating_sub(2)))];
    rows.push(row(title));
    rows.push(row(&rule('─', inner)));
    rows.push(row(&format!("╭{}╮", rule('─', inner.saturating_sub(2)))));
    for line in framed {
        rows.push(row(&format!("│ {} │", pad(line, inner.saturating_sub(4)))));
    }
    rows.push(row(&format!("╰{}╯", rule('─', inner.saturating_sub(2)))));
    rows.extend(body.iter().map(|l| row(l)));
    rows.push(format!("╰{}╯", rule('─', width.saturating_sub(2))));
    rows
}

/// Numbered options, `❯` at the cursor, then a blank row and the key hints.
fn options(labels: &[&str], cursor: usize) -> Vec<String> {
    let mut rows: Vec<String> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{} {}. {l}", if i == cursor { "❯" } else { " " }, i + 1))
        .collect();
    rows.extend([String::new(), KEYS.to_string()]);
    rows
}

/// "Confirm folder trust" (`copilot-1.0.102-trust-dialog.txt`).
pub fn trust(width: usize, cwd: &str, cursor: usize) -> Vec<String> {
    let text = "Copilot can read files in this folder and, with your permission, edit them or run code and shell commands. It will remember your permissions for the rest of this session.";
    let mut body = vec![String::new()];
    body.extend(wrap(text, "", "", width.saturating_sub(4)));
    body.extend([
        "".into(),
        "Do you trust the files in this folder?".into(),
        "".into(),
    ]);
    let labels = [
        "Yes",
        "Yes, and remember this folder for future sessions",
        "No (Esc)",
    ];
    body.extend(options(&labels, cursor));
    boxed(width, "Confirm folder trust", &[cwd.to_string()], &body)
}

/// A tool's permission dialog (`copilot-1.0.102-permission.txt`), titled with what it is for.
pub fn permission(width: usize, call: &Call, cursor: usize) -> Vec<String> {
    let cmd = call.command();
    let framed = match cmd.is_empty() {
        true => vec![call.input.to_string()],
        false => crate::screen::split_lines(&cmd),
    };
    let question = match call.shell() {
        true => "Do you want to run this command?",
        false => "Do you want to use this tool?",
    };
    let mut body = vec![String::new(), question.to_string(), String::new()];
    let labels = [
        "Yes",
        "No, and tell Copilot what to do differently (Esc to stop)",
    ];
    body.extend(options(&labels, cursor));
    boxed(width, &call.intention(), &framed, &body)
}

/// A dialog umbel does not know (a scenario's `unknown_dialog`), boxed as copilot's own are.
pub fn unknown(width: usize, question: &str, cursor: usize) -> Vec<String> {
    let mut body = vec![String::new()];
    body.extend(options(&["Yes", "No"], cursor));
    boxed(width, question, &[question.to_string()], &body)
}

/// A whole screen of `size`: the tab bar, a blank row, the end of `content` (with the scroll
/// bar once it overflows), `bottom` (the composer or a dialog).
pub fn frame(size: (usize, usize), content: &[String], bottom: Vec<String>) -> Vec<String> {
    let (width, height) = size;
    let area = height.saturating_sub(2 + bottom.len());
    let mut rows = vec![TABS.to_string(), String::new()];
    if content.len() > area {
        let shown = &content[content.len() - area..];
        rows.extend(
            shown
                .iter()
                .map(|l| format!("{}┃", pad(l, width.saturating_sub(1)))),
        );
    } else {
        rows.extend(content.iter().cloned());
        rows.resize(2 + area, String::new());
    }
    rows.extend(bottom);
    rows
}

/// The time a prompt shows: `HH:MM` of `iso` (UTC, as the virtual clock keeps it).
pub fn time_of(iso: &str) -> String {
    iso.get(11..16).unwrap_or("00:00").to_string()
}
