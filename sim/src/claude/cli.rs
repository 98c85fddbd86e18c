//! fake-claude's command line: the subset of `claude`'s options umbel uses,
//! with commander's error messages for everything else.

use crate::args::{self, OptSpec};

/// `claude --help` output (recorded from 2.1.332).
pub const HELP: &str = include_str!("assets/help.txt");

const SPECS: &[OptSpec] = &[
    OptSpec {
        long: "settings",
        short: None,
        value: Some("<file-or-json>"),
    },
    OptSpec {
        long: "session-id",
        short: None,
        value: Some("<uuid>"),
    },
    OptSpec {
        long: "model",
        short: None,
        value: Some("<model>"),
    },
    OptSpec {
        long: "permission-mode",
        short: None,
        value: Some("<mode>"),
    },
    // Accepted and not simulated: what umbel passes through (recorded in `argv.json`).
    OptSpec {
        long: "allowedTools",
        short: None,
        value: Some("<tools...>"),
    },
    OptSpec {
        long: "allowed-tools",
        short: None,
        value: Some("<tools...>"),
    },
    OptSpec {
        long: "disallowedTools",
        short: None,
        value: Some("<tools...>"),
    },
    OptSpec {
        long: "disallowed-tools",
        short: None,
        value: Some("<tools...>"),
    },
    OptSpec {
        long: "append-system-prompt",
        short: None,
        value: Some("<prompt>"),
    },
    OptSpec {
        long: "system-prompt",
        short: None,
        value: Some("<prompt>"),
    },
    OptSpec {
        long: "max-turns",
        short: None,
        value: Some("<turns>"),
    },
    OptSpec {
        long: "mcp-config",
        short: None,
        value: Some("<configs...>"),
    },
    OptSpec {
        long: "add-dir",
        short: None,
        value: Some("<directories...>"),
    },
    OptSpec {
        long: "resume",
        short: Some('r'),
        value: Some("[value]"),
    },
    OptSpec {
        long: "continue",
        short: Some('c'),
        value: None,
    },
    OptSpec {
        long: "fork-session",
        short: None,
        value: None,
    },
    OptSpec {
        long: "print",
        short: Some('p'),
        value: None,
    },
    OptSpec {
        long: "output-format",
        short: None,
        value: Some("<format>"),
    },
    OptSpec {
        long: "version",
        short: Some('v'),
        value: None,
    },
    OptSpec {
        long: "help",
        short: Some('h'),
        value: None,
    },
];

const MODES: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "manual",
    "dontAsk",
    "plan",
];
const FORMATS: &[&str] = &["text", "json", "stream-json"];

/// `--output-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// The reply and a newline.
    Text,
    /// One result object.
    Json,
}

/// Parsed options.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `--settings`: a path or inline JSON.
    pub settings: Option<String>,
    /// `--session-id` (validated later, like the real CLI).
    pub session_id: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--permission-mode`.
    pub permission_mode: Option<String>,
    /// `-p/--print`.
    pub print: bool,
    /// `--output-format`.
    pub output_format: OutputFormat,
    /// The positional prompt.
    pub prompt: Option<String>,
    /// `--resume <id>` or `--continue` (`Some("")`: the most recent session of the folder).
    pub resume: Option<String>,
    /// `--fork-session`: a resumed conversation goes on under a new id (else under its own).
    pub fork_session: bool,
}

/// What the command line asks for.
pub type Action = crate::engine::entry::Action<Options>;

/// Parses arguments (without the program name).
pub fn parse(argv: &[String]) -> Result<Action, String> {
    let p = args::parse(argv, SPECS)?;
    if p.has("help") {
        return Ok(Action::Print(HELP));
    }
    if p.has("version") {
        return Ok(Action::Version);
    }
    if p.positionals.len() > 1 {
        return Err(format!(
            "error: too many arguments. Expected 1 argument but got {}.",
            p.positionals.len()
        ));
    }
    let permission_mode = p.value("permission-mode").map(str::to_string);
    if let Some(m) = permission_mode
        .as_deref()
        .filter(|m| *m != "default" && !MODES.contains(m))
    {
        return Err(choice_error("--permission-mode <mode>", m, MODES));
    }
    let output_format = match p.value("output-format") {
        None | Some("text") => OutputFormat::Text,
        Some("json") => OutputFormat::Json,
        Some("stream-json") => {
            return Err(
                "fake-claude: --output-format stream-json is not simulated (use text or json)"
                    .into(),
            );
        }
        Some(other) => return Err(choice_error("--output-format <format>", other, FORMATS)),
    };
    Ok(Action::Run(Options {
        settings: p.value("settings").map(str::to_string),
        session_id: p.value("session-id").map(str::to_string),
        model: p.value("model").map(str::to_string),
        permission_mode,
        print: p.has("print"),
        output_format,
        prompt: p.positionals.first().cloned(),
        resume: p
            .value("resume")
            .map(str::to_string)
            .or_else(|| p.has("continue").then(String::new)),
        fork_session: p.has("fork-session"),
    }))
}

fn choice_error(flags: &str, value: &str, choices: &[&str]) -> String {
    format!(
        "error: option '{flags}' argument '{value}' is invalid. Allowed choices are {}.",
        choices.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    fn run(list: &[&str]) -> Result<Action, String> {
        fixtures::parse(parse, list)
    }

    #[test]
    fn the_contract_flags_parse() {
        let Action::Run(o) = run(&[
            "--settings",
            "{}",
            "--session-id",
            "x",
            "--model",
            "opus",
            "--permission-mode",
            "plan",
            "-p",
            "hi",
            "--output-format",
            "json",
        ])
        .unwrap() else {
            panic!("expected run");
        };
        assert_eq!(o.settings.as_deref(), Some("{}"));
        assert_eq!(o.session_id.as_deref(), Some("x"));
        assert_eq!(o.model.as_deref(), Some("opus"));
        assert_eq!(o.permission_mode.as_deref(), Some("plan"));
        assert!(o.print);
        assert_eq!(o.output_format, OutputFormat::Json);
        assert_eq!(o.prompt.as_deref(), Some("hi"));
    }

    #[test]
    fn help_version_and_errors() {
        fixtures::assert_help_and_version(parse, &["--version", "-v"], &["-h"], HELP);
        assert_eq!(run(&["--x"]).unwrap_err(), "error: unknown option '--x'");
        assert!(
            run(&["--permission-mode", "yolo"])
                .unwrap_err()
                .contains("Allowed choices are acceptEdits, auto")
        );
        assert!(run(&["--permission-mode", "default"]).is_ok());
        assert!(run(&["a", "b"]).unwrap_err().contains("too many arguments"));
        assert!(
            run(&["--output-format", "xml"])
                .unwrap_err()
                .contains("argument 'xml' is invalid")
        );
    }
}
