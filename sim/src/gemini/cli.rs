//! fake-gemini's command line: the options of `gemini` 0.61.0 umbel uses,
//! with yargs' error wording (the real CLI parses with yargs in strict mode).

use crate::args::{self, OptSpec, opt};
use crate::ids;

/// `gemini --help` output (recorded from 0.61.0).
pub const HELP: &str = include_str!("assets/help.txt");

const SPECS: &[OptSpec] = &[
    opt("model", Some('m'), true),
    opt("prompt", Some('p'), true),
    opt("prompt-interactive", Some('i'), true),
    opt("approval-mode", None, true),
    opt("yolo", Some('y'), false),
    // Accepted and not simulated: what umbel passes through (recorded in `argv.json`).
    opt("allowed-tools", None, true),
    opt("include-directories", None, true),
    opt("session-id", None, true),
    opt("resume", Some('r'), true),
    opt("output-format", Some('o'), true),
    opt("version", Some('v'), false),
    opt("help", Some('h'), false),
];

/// gemini's own options, which qwen 0.24.4 does not have (it says `Unknown arguments: skip-trust`).
const GEMINI_EXTRA: &[OptSpec] = &[opt("skip-trust", None, false)];

/// The options qwen 0.24.4 has beyond gemini's (`qwen --help`), accepted and not simulated:
/// what umbel passes through (recorded in `argv.json`).
const QWEN_EXTRA: &[OptSpec] = &[
    opt("system-prompt", None, true),
    opt("append-system-prompt", None, true),
    opt("max-session-turns", None, true),
    opt("mcp-config", None, true),
];

/// `--approval-mode` (and `-y`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalMode {
    /// Ask before running tools.
    Default,
    /// Auto-approve edit tools.
    AutoEdit,
    /// Auto-approve everything.
    Yolo,
    /// Read-only.
    Plan,
    /// qwen's `auto`: its model judges each tool call (the fake asks, as `default` does).
    Auto,
}

const MODES: &[&str] = &["default", "auto_edit", "yolo", "plan"];
/// qwen 0.24.4's choices, in its order: a hyphen in `auto-edit`, and `auto`.
const QWEN_MODES: &[&str] = &["plan", "default", "auto-edit", "auto", "yolo"];
const FORMATS: &[&str] = &["text", "json", "stream-json"];

impl ApprovalMode {
    /// The mode named `s` among `choices` (gemini's or qwen's spellings).
    fn parse(s: &str, choices: &[&str]) -> Option<Self> {
        if !choices.contains(&s) {
            return None;
        }
        Some(match s {
            "default" => Self::Default,
            "auto" => Self::Auto,
            "auto_edit" | "auto-edit" => Self::AutoEdit,
            "yolo" => Self::Yolo,
            "plan" => Self::Plan,
            _ => return None,
        })
    }
}

/// `-o/--output-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// The answer and a newline.
    Text,
    /// One pretty-printed result object.
    Json,
    /// One event per line.
    StreamJson,
}

/// Parsed options.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `-m/--model`.
    pub model: Option<String>,
    /// `--approval-mode` / `-y`.
    pub approval_mode: ApprovalMode,
    /// `--skip-trust`.
    pub skip_trust: bool,
    /// `--session-id` (validated).
    pub session_id: Option<String>,
    /// `--resume <uuid>`: the conversation of that id goes on, appended to its own chat file.
    pub resume: Option<String>,
    /// `-p/--prompt`: headless mode with this prompt.
    pub prompt: Option<String>,
    /// The positional query (or `-i`): submitted once the TUI is idle.
    pub query: Option<String>,
    /// `-o/--output-format`.
    pub output_format: OutputFormat,
}

/// What the command line asks for.
pub type Action = crate::engine::entry::Action<Options>;

fn invalid_choice(arg: &str, given: &str, choices: &[&str]) -> String {
    let list: Vec<String> = choices.iter().map(|c| format!("\"{c}\"")).collect();
    format!(
        "Invalid values:\n  Argument: {arg}, Given: \"{given}\", Choices: {}",
        list.join(", ")
    )
}

/// Turns the commander-style errors of [`args::parse`] into yargs' wording.
fn yargs_error(commander: String) -> String {
    if let Some(rest) = commander.strip_prefix("error: unknown option '") {
        let name = rest.trim_end_matches('\'').trim_start_matches('-');
        return format!("Unknown argument: {name}");
    }
    if let Some(rest) = commander.strip_prefix("error: option '") {
        let flags = rest.split(' ').find(|w| w.starts_with("--")).unwrap_or("");
        let name = flags.trim_start_matches('-').trim_end_matches(',');
        if commander.ends_with("argument missing") {
            return format!("Not enough arguments following: {name}");
        }
        if commander.ends_with("does not take an argument") {
            return format!("Unknown argument: {name}");
        }
    }
    commander
}

/// Parses arguments (without the program name). Errors are yargs' messages.
pub fn parse(argv: &[String]) -> Result<Action, String> {
    let (extra, modes) = if super::flavor::qwen() {
        (QWEN_EXTRA, QWEN_MODES)
    } else {
        (GEMINI_EXTRA, MODES)
    };
    let specs: Vec<OptSpec> = SPECS.iter().chain(extra).copied().collect();
    let p = args::parse(argv, &specs).map_err(yargs_error)?;
    if p.has("help") {
        return Ok(Action::Print(HELP));
    }
    if p.has("version") {
        return Ok(Action::Version);
    }
    let query = match (p.positionals.is_empty(), p.value("prompt-interactive")) {
        (true, i) => i.map(str::to_string),
        (false, _) => Some(p.positionals.join(" ")),
    };
    if p.has("prompt") && query.is_some() {
        return Err(if p.positionals.is_empty() {
            "Cannot use both --prompt (-p) and --prompt-interactive (-i) together".into()
        } else {
            "Cannot use both a positional prompt and the --prompt (-p) flag together".into()
        });
    }
    if p.has("yolo") && p.has("approval-mode") {
        return Err("Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.".into());
    }
    let approval_mode = match p.value("approval-mode") {
        None if p.has("yolo") => ApprovalMode::Yolo,
        None => ApprovalMode::Default,
        Some(m) => ApprovalMode::parse(m, modes)
            .ok_or_else(|| invalid_choice("approval-mode", m, modes))?,
    };
    let output_format = match p.value("output-format") {
        None | Some("text") => OutputFormat::Text,
        Some("json") => OutputFormat::Json,
        Some("stream-json") => OutputFormat::StreamJson,
        Some(other) => return Err(invalid_choice("output-format", other, FORMATS)),
    };
    let session_id = p.value("session-id").map(str::to_string);
    if let Some(id) = session_id.as_deref().filter(|id| !ids::is_uuid(id)) {
        return Err(format!(
            "Invalid session ID: \"{id}\". Must be a valid UUID."
        ));
    }
    let resume = p.value("resume").map(str::to_string);
    if resume.is_some() && session_id.is_some() {
        return Err("Arguments session-id and resume are mutually exclusive".into());
    }
    Ok(Action::Run(Options {
        resume,
        model: p.value("model").map(str::to_string),
        skip_trust: p.has("skip-trust"),
        prompt: p.value("prompt").map(str::to_string),
        approval_mode,
        session_id,
        query,
        output_format,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    fn run(list: &[&str]) -> Result<Action, String> {
        fixtures::parse(parse, list)
    }

    fn opts(list: &[&str]) -> Options {
        fixtures::options(parse, list)
    }

    #[test]
    fn the_contract_flags_parse() {
        let o = opts(&[
            "-m",
            "gemini-x",
            "--approval-mode",
            "auto_edit",
            "--skip-trust",
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "-p",
            "hi",
            "-o",
            "stream-json",
        ]);
        assert_eq!(o.model.as_deref(), Some("gemini-x"));
        assert_eq!(o.approval_mode, ApprovalMode::AutoEdit);
        assert!(o.skip_trust);
        assert_eq!(o.prompt.as_deref(), Some("hi"));
        assert_eq!(o.output_format, OutputFormat::StreamJson);
        assert_eq!(opts(&["-y"]).approval_mode, ApprovalMode::Yolo);
        assert_eq!(opts(&["--yolo"]).approval_mode, ApprovalMode::Yolo);
        assert_eq!(
            opts(&["--approval-mode=yolo"]).approval_mode,
            ApprovalMode::Yolo
        );
        assert_eq!(opts(&["say", "hello"]).query.as_deref(), Some("say hello"));
        assert_eq!(opts(&["-i", "x"]).query.as_deref(), Some("x"));
        assert_eq!(opts(&[]).output_format, OutputFormat::Text);
    }

    #[test]
    fn help_version_and_yargs_errors() {
        fixtures::assert_help_and_version(parse, &["--version", "-v"], &["-h"], HELP);
        assert_eq!(run(&["--x"]).unwrap_err(), "Unknown argument: x");
        assert_eq!(run(&["-z"]).unwrap_err(), "Unknown argument: z");
        assert_eq!(
            run(&["-m"]).unwrap_err(),
            "Not enough arguments following: model"
        );
        assert_eq!(
            run(&["--approval-mode", "never"]).unwrap_err(),
            "Invalid values:\n  Argument: approval-mode, Given: \"never\", Choices: \"default\", \"auto_edit\", \"yolo\", \"plan\""
        );
        assert!(
            run(&["-o", "xml"])
                .unwrap_err()
                .contains("Argument: output-format, Given: \"xml\"")
        );
        assert!(
            run(&["-y", "--approval-mode", "yolo"])
                .unwrap_err()
                .starts_with("Cannot use both --yolo")
        );
        assert!(
            run(&["-p", "a", "b"])
                .unwrap_err()
                .contains("positional prompt")
        );
        assert!(
            run(&["--session-id", "nope"])
                .unwrap_err()
                .contains("Must be a valid UUID")
        );
    }

    #[test]
    fn the_help_text_is_the_recorded_one() {
        assert!(HELP.starts_with("Usage: gemini [options] [command]\n"));
        assert!(HELP.contains("--skip-trust"));
    }
}
