//! fake-opencode's command line: the options of `opencode` 1.18.33 umbel passes (`-m`,
//! `--session`) and what a person types (`--continue`, `--version`, `run …`), scanned with the
//! engine's option scanner.

use crate::args::{self, OptSpec, opt};
use crate::engine::entry::Action;

/// The release fake-opencode plays.
pub const VERSION: &str = "1.18.33";

/// `opencode --help`, short: what the fake takes.
pub const HELP: &str = "opencode [project]\n\nstart opencode tui\n\nCommands:\n  opencode run [message..]  run opencode with a message\n\nOptions:\n  -h, --help       show help\n  -v, --version    show version number\n  -m, --model      model to use in the format of provider/model\n  -c, --continue   continue the last session\n  -s, --session    session id to continue\n      --agent      agent to use\n      --prompt     prompt to use\n";

const SPECS: &[OptSpec] = &[
    opt("model", Some('m'), true),
    opt("session", Some('s'), true),
    opt("continue", Some('c'), false),
    opt("agent", None, true),
    opt("prompt", None, true),
    opt("port", None, true),
    opt("hostname", None, true),
    opt("print-logs", None, false),
    opt("log-level", None, true),
    // `run` only.
    opt("format", None, true),
    opt("auto", None, false),
    opt("title", None, true),
    opt("version", Some('v'), false),
    opt("help", Some('h'), false),
];

/// What one run is asked to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `opencode run`: one turn, printed, no TUI.
    pub run: bool,
    /// `run`'s message words joined by spaces, or the TUI's `--prompt`.
    pub message: Option<String>,
    /// `run --format json`.
    pub json: bool,
    /// `-m provider/model`.
    pub model: Option<String>,
    /// `--session ses_…`: the session to continue.
    pub session: Option<String>,
    /// `--continue`: the last session.
    pub continue_last: bool,
    /// `run --auto`: every permission allowed.
    pub auto: bool,
}

/// `run`'s message: its words joined by spaces, a word holding a space in double quotes (its
/// own `"` escaped), as run.ts joins them (recorded: `opencode run "say hi"` sends `"say hi"`).
pub fn run_message(words: &[&str]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| match w.contains(' ') {
            true => format!("\"{}\"", w.replace('"', "\\\"")),
            false => w.to_string(),
        })
        .collect();
    quoted.join(" ")
}

/// Parses `args` (without the program name).
pub fn parse(args: &[String]) -> Result<Action<Options>, String> {
    let p = args::parse(args, SPECS)?;
    if p.has("help") {
        return Ok(Action::Print(HELP));
    }
    if p.has("version") {
        return Ok(Action::Version);
    }
    let mut positionals = p.positionals.iter();
    let run = p.positionals.first().is_some_and(|w| w == "run");
    if run {
        positionals.next();
    }
    let words: Vec<&str> = positionals.map(String::as_str).collect();
    let message = match run {
        true => Some(run_message(&words)).filter(|m| !m.is_empty()),
        false => p.value("prompt").map(str::to_string),
    };
    let format = p.value("format").unwrap_or("default");
    if !matches!(format, "default" | "json") {
        return Err(format!(
            "Invalid values:\n  Argument: format, Given: \"{format}\", Choices: \"default\", \"json\""
        ));
    }
    Ok(Action::Run(Options {
        run,
        message,
        json: format == "json",
        model: p.value("model").map(str::to_string),
        session: p.value("session").map(str::to_string),
        continue_last: p.has("continue"),
        auto: p.has("auto"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Options {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match parse(&args) {
            Ok(Action::Run(o)) => o,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_tui_takes_umbels_model_and_session() {
        let o = run(&["-m", "anthropic/claude-sonnet-4-5", "--session", "ses_1"]);
        assert_eq!(o.model.as_deref(), Some("anthropic/claude-sonnet-4-5"));
        assert_eq!(o.session.as_deref(), Some("ses_1"));
        assert!(!o.run);
    }

    #[test]
    fn run_joins_its_message_words_and_takes_the_json_format() {
        let o = run(&["run", "--format", "json", "say", "hi"]);
        assert!(o.run && o.json);
        assert_eq!(o.message.as_deref(), Some("say hi"));
        let o = run(&["run", "say hi"]);
        assert_eq!(o.message.as_deref(), Some("\"say hi\""));
        let args = [
            "run".to_string(),
            "--format".into(),
            "xml".into(),
            "x".into(),
        ];
        assert!(parse(&args).is_err());
    }
}
