//! What fake-gemini draws, line for line like the 0.61.0 captures in
//! `fixtures/screens/` (120 columns is the reference width).
//!
//! Committed blocks start with blank lines as in the captures (prompt echo and
//! answers one, info lines two). The live region is the composer: a status
//! line (spinner or `? for shortcuts`), a rule, the approval-mode line, the
//! `>` input, and the workspace/sandbox/model footer (fake-qwen names its mode
//! on a last line under the footer instead). Shift+Tab's mode cycle is
//! [`next_mode`]. Boxes (dialogs, tool calls, the quit summary) are in
//! [`super::boxes`].

use super::cli::ApprovalMode;
use crate::release::Version;
use crate::screen::{block, prefixed, rule, spread, width_of};

/// The empty composer.
pub const PLACEHOLDER_LINE: &str = " >   Type your message or @path/to/file";
/// Shown above the composer while a collapsed paste is in it.
pub const PASTE_HINT: &str = " Press Ctrl+O to expand pasted text";
/// Right side of the status line with an empty composer.
pub const SHORTCUTS: &str = "? for shortcuts";
/// The cancel line.
pub const CANCELLED: &str = "Request cancelled.";
/// The info line after an API error.
pub const REQUEST_FAILED: &str = "This request failed. Press F12 for diagnostics, or run /settings and change \"Error Verbosity\" to full for full details.";
/// `prompt_response` of a turn without an answer.
pub const NO_RESPONSE: &str = "[no response text]";
/// The untrusted-folder notice under the header.
pub const UNTRUSTED_NOTICE: &str = "Skipping project agents due to untrusted folder. To enable, ensure that the project root is trusted.";
const TRUE_COLOR_WARNING: &str = "Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience.";
const LOGO: &str = include_str!("assets/logo.txt");
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TIPS: [&str; 5] = [
    "Tips for getting started:",
    "1. Create GEMINI.md files to customize your interactions",
    "2. /help for more information",
    "3. Ask coding questions, edit code or run commands",
    "4. Be specific for the best results",
];

/// Word-wraps `text` to `width` columns: `first` before the first line,
/// `rest` before the others (words longer than a line are cut).
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = first.to_string();
    let mut has_word = false;
    for word in text.split(' ') {
        let mut word = word.to_string();
        loop {
            let used = width_of(&line);
            if used + usize::from(has_word) + width_of(&word) <= width {
                if has_word {
                    line.push(' ');
                }
                line.push_str(&word);
                has_word = true;
                break;
            }
            if has_word {
                out.push(std::mem::replace(&mut line, rest.to_string()));
                has_word = false;
                continue;
            }
            let room = width.saturating_sub(used).max(1);
            let cut: String = word.chars().take(room).collect();
            word = word.chars().skip(room).collect();
            line.push_str(&cut);
            out.push(std::mem::replace(&mut line, rest.to_string()));
        }
    }
    out.push(line);
    out
}

/// Cuts `text` to `max` columns, ending in `…` when it was longer.
pub fn truncate(text: &str, max: usize) -> String {
    let flat = text.replace(['\n', '\r'], " ");
    if width_of(&flat) <= max {
        return flat;
    }
    let mut out = String::new();
    for c in flat.chars() {
        if width_of(&out) + crate::screen::char_width(c) >= max {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// The header: the big logo before sign-in, the small one with the auth line after.
pub fn header(version: Version, auth: Option<&str>) -> Vec<String> {
    let mut lines = vec![String::new()];
    let art: Vec<&str> = LOGO.lines().collect();
    match auth {
        Some(kind) => {
            let small = ["▝▜▄", "  ▝▜▄", " ▗▟▀", "▝▀"];
            lines.push(format!(
                " {}     {}",
                small[0],
                super::release::title(version)
            ));
            lines.push(format!(" {}", small[1]));
            lines.push(format!(" {}    Authenticated with {kind} /auth", small[2]));
            lines.push(format!(" {}", small[3]));
        }
        None => {
            lines.extend(art.iter().map(|l| l.to_string()));
            lines.push(String::new());
            lines.push(format!(" {}", super::release::title(version)));
        }
    }
    lines.extend([String::new(), String::new()]);
    if auth.is_none() {
        lines.push(String::new());
    }
    lines.extend(TIPS.iter().map(|t| t.to_string()));
    lines
}

/// Notices under the header: the untrusted-folder line and the true-color warning.
pub fn notices(width: usize, untrusted: bool, true_color: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if untrusted {
        lines.push(String::new());
        lines.extend(wrap(UNTRUSTED_NOTICE, width, "ℹ ", "  "));
    }
    if !true_color {
        lines.push(String::new());
        lines.extend(wrap(TRUE_COLOR_WARNING, width, "⚠  ", "   "));
        lines.push(String::new());
    }
    lines
}

/// True when `COLORTERM` announces 24-bit colour (else the real CLI warns).
pub fn true_color_env() -> bool {
    std::env::var("COLORTERM").is_ok_and(|v| v == "truecolor" || v == "24bit")
}

/// The echoed prompt: ` > text`, later lines indented 3.
pub fn echo(prompt: &str) -> Vec<String> {
    block(prompt, " > ", "   ")
}

/// An answer: `✦ text`, later lines indented 2.
pub fn answer(text: &str) -> Vec<String> {
    block(text, "✦ ", "  ")
}

/// An info line (`ℹ …`), wrapped, after two blank lines.
pub fn info(width: usize, text: &str) -> Vec<String> {
    let mut lines = vec![String::new(), String::new()];
    lines.extend(wrap(text, width, "ℹ ", "  "));
    lines
}

/// The API error line `✕ [API Error: <raw>]`.
pub fn api_error(width: usize, raw: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    lines.extend(wrap(&format!("[API Error: {raw}]"), width, "✕ ", "  "));
    lines
}

/// The busy text: ` ⠋ Thinking... (esc to cancel, Ns)`.
pub fn busy(secs: u64) -> String {
    let frame = SPINNER[(secs % SPINNER.len() as u64) as usize];
    format!(" {frame} Thinking... (esc to cancel, {secs}s)")
}

/// The approval mode as the line under the rule shows it (recorded: `idle-yolo`,
/// `idle-auto_edit` and the repository's `gemini/gemini-0.61.0-mode-*.txt`).
pub fn mode_line(mode: ApprovalMode) -> &'static str {
    use ApprovalMode::*;
    match mode {
        // qwen's `auto` is never gemini's; its line is qwen's own (`crate::qwen::modes`).
        Default | Auto => " Shift+Tab to accept edits",
        AutoEdit => " auto-accept edits Shift+Tab to plan",
        Yolo => " YOLO Ctrl+Y",
        Plan => " plan Shift+Tab to manual",
    }
}

/// The mode Shift+Tab moves gemini 0.61.0 to: default → auto_edit → plan → default; yolo
/// (reached only by `--approval-mode`/`-y`) goes back to default (not recorded).
pub fn next_mode(mode: ApprovalMode) -> ApprovalMode {
    use ApprovalMode::*;
    match mode {
        Default => AutoEdit,
        AutoEdit => Plan,
        Plan | Yolo | Auto => Default,
    }
}

/// Everything the composer area needs.
pub struct Composer<'a> {
    /// Left part of the status line (busy text, Ctrl+C notice) or empty.
    pub status: String,
    /// Right part (`? for shortcuts`, `Executing Hook: …`) or empty.
    pub right: String,
    /// What the input shows.
    pub input: &'a str,
    /// True when a collapsed paste is in the input.
    pub pasted: bool,
    /// The approval mode.
    pub mode: ApprovalMode,
    /// 24-bit colour: the blank lines around the input become half-block rules (`▄`/`▀`).
    pub true_color: bool,
    /// Footer: cwd as shown, model as shown.
    pub cwd: &'a str,
    /// Model label (`Auto` or the name).
    pub model: &'a str,
    /// qwen reading a paste in: the bytes so far (`Pasting… 12 KB` under the footer).
    pub pasting: Option<usize>,
    /// Qwen Code's composer: no mode line under the rule, the mode on the last line instead
    /// (`crate::qwen::modes::line`), where `Pasting…` shows while a paste is read in.
    pub qwen: bool,
}

/// qwen's line under its footer while a paste is read in (its `PasteProgressBar`).
pub fn pasting_line(bytes: usize) -> String {
    let kb = bytes as f64 / 1024.0;
    if kb >= 1.0 {
        format!("  Pasting… {kb:.0} KB")
    } else {
        format!("  Pasting… {bytes} B")
    }
}

/// The live composer region.
pub fn composer(width: usize, c: &Composer) -> Vec<String> {
    let mut lines = vec![String::new()];
    lines.push(if c.pasted {
        PASTE_HINT.to_string()
    } else {
        String::new()
    });
    lines.push(if c.status.is_empty() && c.right.is_empty() {
        String::new()
    } else {
        spread(&c.status, &c.right, width.saturating_sub(1))
    });
    lines.push(rule('─', width));
    if !c.qwen {
        lines.push(mode_line(c.mode).to_string());
    }
    let true_color = c.true_color;
    let edge = |half: char| {
        if true_color {
            rule(half, width)
        } else {
            String::new()
        }
    };
    lines.push(edge('▄'));
    let mark = if c.mode == ApprovalMode::Yolo {
        " * "
    } else {
        " > "
    };
    if c.input.is_empty() {
        lines.push(format!(
            "{mark}{}",
            PLACEHOLDER_LINE.trim_start_matches(" > ")
        ));
    } else {
        lines.extend(prefixed(c.input, mark, "   "));
    }
    lines.push(edge('▀'));
    lines.extend(footer(width, c.cwd, c.model));
    match c.pasting {
        Some(bytes) => lines.push(pasting_line(bytes)),
        None if c.qwen => lines.push(crate::qwen::modes::line(c.mode).to_string()),
        None => {}
    }
    lines
}

/// The two footer rows: three columns spread over the width (space-between).
pub fn footer(width: usize, cwd: &str, model: &str) -> Vec<String> {
    let cols = [
        ("workspace (/directory)", cwd),
        ("sandbox", "no sandbox"),
        ("/model", model),
    ];
    let w: Vec<usize> = cols
        .iter()
        .map(|(a, b)| width_of(a).max(width_of(b)))
        .collect();
    let inner = width.saturating_sub(2);
    let free = inner.saturating_sub(w.iter().sum());
    let (gap1, gap2) = if free >= 2 {
        (free / 2, free - free / 2)
    } else {
        (1, 1)
    };
    let row = |i: usize| {
        let pick = |c: usize| if i == 0 { cols[c].0 } else { cols[c].1 };
        let (left, mid, right) = (pick(0), pick(1), pick(2));
        let mut s = format!(" {left}");
        s.push_str(&" ".repeat(w[0] - width_of(left) + gap1));
        s.push_str(mid);
        s.push_str(&" ".repeat(w[1] - width_of(mid) + gap2 + w[2] - width_of(right)));
        s.push_str(right);
        s
    };
    vec![row(0), row(1)]
}

/// The cwd as the footer shows it: `~` for the home directory.
pub fn display_cwd(cwd: &str, home: Option<&str>) -> String {
    match home.filter(|h| !h.is_empty() && *h != "/") {
        Some(h) if cwd == h => "~".to_string(),
        Some(h) => match cwd.strip_prefix(h) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => cwd.to_string(),
        },
        None => cwd.to_string(),
    }
}

/// The Gemini paste rule [bin text-buffer.ts]: more than 5 lines →
/// `[Pasted Text: N lines]`, else more than 500 characters → `[Pasted Text:
/// N chars]`; a label already in the input gets ` #2`, ` #3`, …
/// Lines and characters are counted with CR/CRLF taken as one line break.
pub fn paste_label(existing: &[&str], content: &str) -> Option<String> {
    let normal = content.replace("\r\n", "\n").replace('\r', "\n");
    let lines = normal.split('\n').count();
    let chars = normal.chars().count();
    let base = if lines > 5 {
        format!("[Pasted Text: {lines} lines]")
    } else if chars > 500 {
        format!("[Pasted Text: {chars} chars]")
    } else {
        return None;
    };
    let mut label = base.clone();
    let mut k = 2;
    while existing.contains(&label.as_str()) {
        label = format!("{} #{k}]", base.trim_end_matches(']'));
        k += 1;
    }
    Some(label)
}

/// Qwen Code 0.24.4's paste rule (InputPrompt's `LARGE_PASTE_*_THRESHOLD`): over 1000 characters
/// or over 10 lines → `[Pasted Content N chars]`, a label already in the input getting ` #2`, …
pub fn qwen_paste_label(existing: &[&str], content: &str) -> Option<String> {
    let normal = content.replace("\r\n", "\n").replace('\r', "\n");
    let chars = normal.chars().count();
    if chars <= 1000 && normal.split('\n').count() <= 10 {
        return None;
    }
    let base = format!("[Pasted Content {chars} chars]");
    let mut label = base.clone();
    let mut k = 2;
    while existing.contains(&label.as_str()) {
        label = format!("{base} #{k}");
        k += 1;
    }
    Some(label)
}

#[cfg(test)]
pub(crate) mod tests;
