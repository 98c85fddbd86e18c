//! opencode 1.18.33's screens as text, recorded under umbel's tmux in
//! `tests/data/opencode/1.18.33/` (idle, busy, permission): a full-screen TUI redrawn whole.
//!
//! - [`home`]: before the first prompt — the logo, the input box, the hints, the folder and
//!   release on the last row.
//! - [`session`]: the conversation — each prompt in a `┃` block, the answers and tool lines
//!   indented, `▣  <agent> · <model>` under each turn — above the input box, which a running
//!   turn underlines with `esc interrupt` and a permission question replaces ([`Dialog`]).
//!
//! The input box is what umbel reads (`src/core/providers/opencode/`): `┃` rows closed by a
//! `╹▀▀▀…` row, the last `┃` row the agent and model; the empty input shows the placeholder.

use crate::screen::{spread, width_of};

/// What the empty input shows.
pub const PLACEHOLDER: &str = "Ask anything… \"Fix a TODO in the codebase\"";

/// The hints beside the input box.
pub const HINTS: &str = "tab agents  ctrl+p commands";

/// What a running turn shows below the box.
pub const BUSY: &str = "   ⬝⬝⬝⬝⬝⬝■■  esc interrupt";

/// What it shows once Esc was pressed once (a second interrupts).
pub const ARMED: &str = "   ⬝⬝⬝⬝⬝⬝■■  esc again to interrupt";

/// The permission question's title.
pub const PERMISSION_TITLE: &str = "△ Permission required";

/// The logo of the home screen (its `▄` sits above the last letter but one).
const LOGO: [&str; 4] = [
    "                                 ▄",
    "█▀▀█ █▀▀█ █▀▀█ █▀▀▄ █▀▀▀ █▀▀█ █▀▀█ █▀▀█",
    "█  █ █  █ █▀▀▀ █  █ █    █  █ █  █ █▀▀▀",
    "▀▀▀▀ █▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀",
];

/// The most input rows the box grows to (the newest show).
const INPUT_ROWS: usize = 8;

/// What the screen is drawn from.
pub struct View<'a> {
    /// `(columns, rows)`.
    pub size: (usize, usize),
    /// The input's text (paste placeholders shown as such).
    pub input: &'a str,
    /// `Build · Claude Sonnet 4.5 (latest) Anthropic` (or `Plan · …`).
    pub agent: String,
    /// The folder shown on the home screen's last row.
    pub cwd: &'a str,
    /// A turn runs.
    pub busy: bool,
    /// Esc was pressed once while it runs.
    pub armed: bool,
}

/// A permission question in the input box's place.
pub struct Dialog<'a> {
    /// `# Shell command`, `# Edit`, ….
    pub kind: &'a str,
    /// `$ echo hi`, or the path.
    pub detail: String,
    /// The selected option (0 Allow once, 1 Allow always, 2 Reject).
    pub cursor: usize,
    /// "Always allow" asked over it: the patterns it allows, the selected option (0 Confirm,
    /// 1 Cancel).
    pub always: Option<(Vec<String>, usize)>,
}

/// The input box at `left`, `width` columns wide (its `╹▀▀▀` row included).
fn input_box(view: &View, left: usize, width: usize) -> Vec<String> {
    let pad = " ".repeat(left);
    let text = match (view.input.is_empty(), view.busy) {
        (true, false) => PLACEHOLDER.to_string(),
        _ => view.input.to_string(),
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let shown = &lines[lines.len().saturating_sub(INPUT_ROWS)..];
    let mut rows = vec![format!("{pad}┃")];
    rows.extend(
        shown
            .iter()
            .map(|l| format!("{pad}┃  {}", clip(l, width.saturating_sub(4)))),
    );
    rows.push(format!("{pad}┃"));
    rows.push(format!("{pad}┃  {}", view.agent));
    rows.push(format!("{pad}╹{}", "▀".repeat(width.saturating_sub(1))));
    rows
}

/// `text` cut to `width` columns.
fn clip(text: &str, width: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if width_of(&out) + crate::screen::char_width(c) > width {
            break;
        }
        out.push(c);
    }
    out
}

/// The home screen.
pub fn home(view: &View) -> Vec<String> {
    let (width, height) = view.size;
    let box_width = width.saturating_sub(45).clamp(20, 75);
    let left = width.saturating_sub(box_width).div_ceil(2);
    let logo_left = " ".repeat(width.saturating_sub(39).div_ceil(2));
    let mut body: Vec<String> = LOGO.iter().map(|l| format!("{logo_left}{l}")).collect();
    body.extend([String::new(), String::new()]);
    body.extend(input_box(view, left, box_width));
    body.push(format!(
        "{}{HINTS}",
        " ".repeat((left + box_width).saturating_sub(width_of(HINTS)))
    ));
    let top = height.saturating_sub(body.len() + 1) / 2;
    let mut rows = vec![String::new(); top];
    rows.extend(body);
    rows.resize(height.saturating_sub(1), String::new());
    rows.push(spread(
        &format!("  {}", view.cwd),
        &format!("{}  ", super::cli::VERSION),
        width,
    ));
    rows
}

/// One prompt's block in the conversation.
pub fn prompt_block(prompt: &str) -> Vec<String> {
    let mut rows = vec!["  ┃".to_string()];
    rows.extend(prompt.split('\n').map(|l| format!("  ┃  {l}")));
    rows.extend(["  ┃".to_string(), String::new()]);
    rows
}

/// One turn's output: its blocks, then the footer. A block of `┃` rows (answered questions)
/// stands at the prompts' indent, the rest further in.
pub fn answer_block(shown: &[String], footer: &str) -> Vec<String> {
    let mut rows = Vec::new();
    for block in shown.iter().filter(|b| !b.is_empty()) {
        let indent = if block.starts_with('┃') {
            "  "
        } else {
            "     "
        };
        rows.extend(block.split('\n').map(|l| format!("{indent}{l}")));
        rows.push(String::new());
    }
    rows.extend([format!("     ▣  {footer}"), String::new()]);
    rows
}

/// The conversation over the input box, or over the `dialog` rows in its place (a permission
/// question, [`permission`], or the question tool's questions).
pub fn session(view: &View, conversation: &[String], dialog: Option<Vec<String>>) -> Vec<String> {
    let (width, height) = view.size;
    let bottom = match dialog {
        Some(rows) => rows,
        None => {
            let mut rows = input_box(view, 2, width.saturating_sub(4));
            let status = match (view.busy, view.armed) {
                (true, true) => ARMED,
                (true, false) => BUSY,
                _ => "",
            };
            rows.push(spread(status, HINTS, width.saturating_sub(2)));
            rows
        }
    };
    let room = height.saturating_sub(bottom.len() + 2);
    let mut rows = vec![String::new()];
    rows.extend(
        conversation[conversation.len().saturating_sub(room)..]
            .iter()
            .cloned(),
    );
    rows.resize(height.saturating_sub(bottom.len()), String::new());
    rows.extend(bottom);
    rows
}

/// The permission question (recorded: `opencode-1.18.33-screen-permission.txt`), or the
/// "Always allow" one asked over it.
pub fn permission(d: &Dialog, width: usize) -> Vec<String> {
    if let Some((patterns, _)) = &d.always {
        return always_allow(patterns, width);
    }
    // The selected option is told by its colour alone (none here: the text is the recording's).
    let _ = d.cursor;
    let choices = " Allow once   Allow always   Reject";
    let keys = spread(
        &format!("  ┃  {choices}"),
        "ctrl+f fullscreen  ⇆ select  enter confirm     ",
        width,
    );
    vec![
        "  ┃".to_string(),
        format!("  ┃  {PERMISSION_TITLE}"),
        format!("  ┃    {}", d.kind),
        "  ┃".to_string(),
        format!("  ┃  {}", d.detail),
        "  ┃".to_string(),
        "  ┃".to_string(),
        keys,
        "  ┃".to_string(),
    ]
}

/// "Always allow" (recorded: `opencode-1.18.33-approval-always-confirm.txt`): the patterns it
/// allows until opencode restarts, Confirm and Cancel (the selected one told by colour alone).
fn always_allow(patterns: &[String], width: usize) -> Vec<String> {
    let keys = spread(
        "  ┃   Confirm   Cancel",
        "⇆ select  enter confirm     ",
        width,
    );
    let mut rows = vec![
        "  ┃".to_string(),
        "  ┃  △ Always allow".to_string(),
        "  ┃".to_string(),
        "  ┃  This will allow the following patterns until OpenCode is restarted".to_string(),
        "  ┃".to_string(),
    ];
    rows.extend(patterns.iter().map(|p| format!("  ┃  - {p}")));
    rows.extend([
        "  ┃".to_string(),
        "  ┃".to_string(),
        keys,
        "  ┃".to_string(),
    ]);
    rows
}
