//! fake-copilot's command line: the options of `copilot` 1.0.102 (its `--help`, recorded in
//! `tests/data/copilot/1.0.102/help.txt`). Every option of the help is taken with its arity —
//! a switch, one value, an optional value (`--resume[=<id>]`, `-r <id>`) or a list of values
//! (`--allow-tool a b`) — and the ones umbel touches are kept in [`Options`]; the rest are
//! accepted and not simulated (`argv.json` shows what was passed).

use crate::engine::entry::Action;

/// `copilot --help` of 1.0.102, as recorded.
pub const HELP: &str = include_str!("assets/help.txt");

/// How many values an option takes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Arity {
    /// None.
    Switch,
    /// Exactly one (the next argument, or after `=`).
    One,
    /// One if the next argument is not an option (or after `=`).
    Maybe,
    /// Every following argument that is not an option (or after `=`, comma-separated).
    Many,
}

use Arity::{Many, Maybe, One, Switch};

/// The options of the 1.0.102 help: long name, short letter, arity.
const SPECS: &[(&str, Option<char>, Arity)] = &[
    ("version", Some('v'), Switch),
    ("help", Some('h'), Switch),
    ("interactive", Some('i'), One),
    ("prompt", Some('p'), One),
    ("silent", Some('s'), Switch),
    ("model", None, One),
    ("resume", Some('r'), Maybe),
    ("continue", None, Switch),
    ("name", Some('n'), One),
    ("session-id", None, One),
    ("allow-all-tools", None, Switch),
    ("allow-all", None, Switch),
    ("yolo", None, Switch),
    ("add-dir", None, One),
    ("output-format", None, One),
    ("cwd", Some('C'), One),
    ("fleet", None, Switch),
    ("trust-folder", None, Switch),
    ("disable-client-telemetry", None, Switch),
    ("enable-memory", None, Switch),
    ("reasoning-effort", None, One),
    ("context", None, One),
    ("auto-tier", None, One),
    ("agent", None, One),
    ("connect", None, Maybe),
    ("allow-all-paths", None, Switch),
    ("disallow-temp-dir", None, Switch),
    ("banner", None, Switch),
    ("screen-reader", None, Switch),
    ("plain-diff", None, Switch),
    ("log-dir", None, One),
    ("extension-sdk-path", None, One),
    ("log-level", None, One),
    ("stream", None, One),
    ("share", None, Maybe),
    ("share-gist", None, Switch),
    ("attachment", None, One),
    ("disable-mcp-server", None, One),
    ("disable-builtin-mcps", None, Switch),
    ("enable-all-github-mcp-tools", None, Switch),
    ("add-github-mcp-toolset", None, One),
    ("add-github-mcp-tool", None, One),
    ("plugin-dir", None, One),
    ("additional-mcp-config", None, One),
    ("mcp-github-auth", None, One),
    ("allow-all-mcp-server-instructions", None, Switch),
    ("allow-tool", None, Many),
    ("deny-tool", None, Many),
    ("available-tools", None, Many),
    ("excluded-tools", None, Many),
    ("secret-env-vars", None, Many),
    ("allow-url", None, Many),
    ("deny-url", None, Many),
    ("allow-all-urls", None, Switch),
    ("max-autopilot-continues", None, One),
    ("mode", None, One),
    ("autopilot", None, Switch),
    ("plan", None, Switch),
    ("experimental", None, Switch),
    ("bash-env", None, Maybe),
    ("mouse", None, Maybe),
    ("acp", None, Switch),
    ("remote", None, Switch),
    ("remote-export", None, Switch),
    ("environment-host", None, One),
    ("environment-compute-id", None, One),
    ("dynamic-retrieval", None, One),
    ("enable-mcp-server", None, One),
    ("max-ai-credits", None, One),
    ("assisted-approval", None, Switch),
    ("usage-output-file", None, One),
    ("no-custom-instructions", None, Switch),
    ("no-auto-update", None, Switch),
    ("no-ask-user", None, Switch),
    ("no-color", None, Switch),
    ("no-experimental", None, Switch),
    ("no-bash-env", None, Switch),
    ("no-mouse", None, Switch),
    ("no-remote", None, Switch),
    ("no-remote-export", None, Switch),
    ("no-eager-powershell-resolution", None, Switch),
];

/// Which session `--resume` / `--continue` asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Resume {
    /// The most recent one (`--continue`; `--resume` without a value, whose picker the fake
    /// does not draw).
    Latest,
    /// This id (or a unique prefix of one).
    Id(String),
}

/// What one run is asked to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `-p PROMPT`: one turn, printed, no TUI.
    pub prompt: Option<String>,
    /// `-i PROMPT`: the TUI, submitting this prompt once it is idle.
    pub interactive: Option<String>,
    /// `-s`: only the answer.
    pub silent: bool,
    /// `--output-format json`.
    pub json: bool,
    /// `--model`.
    pub model: Option<String>,
    /// `--session-id`.
    pub session_id: Option<String>,
    /// `--resume[=<id>]`, `-r <id>`, `--continue`.
    pub resume: Option<Resume>,
    /// `--allow-all-tools`, `--allow-all`, `--yolo`: tools run without asking.
    pub allow_all: bool,
    /// `--deny-tool` kinds (`shell`, `write`): refused without asking, even with
    /// `--allow-all-tools` ("Denial rules always take precedence", `copilot help permissions`).
    pub denied: Vec<String>,
    /// `-C <directory>`.
    pub dir: Option<String>,
}

/// The options given: each option's long name with its values.
type Given = Vec<(&'static str, Vec<String>)>;

/// An option named on the command line: its long name and arity, and a value written into
/// the same argument (`--resume=<id>`, `-pPROMPT`).
type Named = ((&'static str, Arity), Option<String>);

/// The option an argument names (`None`: not an option).
fn spec_of(arg: &str) -> Result<Option<Named>, String> {
    let found = if let Some(body) = arg.strip_prefix("--") {
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        SPECS.iter().find(|s| s.0 == name).map(|s| (s, inline))
    } else if arg.len() >= 2 && arg.starts_with('-') {
        let mut chars = arg[1..].chars();
        let c = chars.next();
        let rest: String = chars.collect();
        let inline = (!rest.is_empty()).then_some(rest);
        SPECS
            .iter()
            .find(|s| s.1.is_some() && s.1 == c)
            .map(|s| (s, inline))
    } else {
        return Ok(None);
    };
    match found {
        Some((s, inline)) => Ok(Some(((s.0, s.2), inline))),
        None => Err(format!(
            "error: unknown option '{}'",
            arg.split('=').next().unwrap_or(arg)
        )),
    }
}

/// Scans `args` into the options given and the other words.
fn scan(args: &[String]) -> Result<(Given, Vec<String>), String> {
    let (mut given, mut words) = (Given::new(), Vec::new());
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            words.extend(args[i..].iter().cloned());
            break;
        }
        let Some(((long, arity), inline)) = spec_of(arg)? else {
            words.push(arg.clone());
            continue;
        };
        let free = |at: usize| args.get(at).filter(|a| !a.starts_with('-'));
        let values = match (arity, inline) {
            (Switch, Some(_)) => {
                return Err(format!(
                    "error: option '--{long}' does not take an argument"
                ));
            }
            (Switch, None) | (Maybe, None) if arity == Switch || free(i).is_none() => Vec::new(),
            (Many, Some(v)) => v.split(',').map(str::to_string).collect(),
            (_, Some(v)) => vec![v],
            (One, None) => match args.get(i) {
                Some(v) => {
                    i += 1;
                    vec![v.clone()]
                }
                None => return Err(format!("error: option '--{long} <value>' argument missing")),
            },
            (_, None) => {
                let mut values = Vec::new();
                while let Some(v) = free(i) {
                    values.push(v.clone());
                    i += 1;
                    if arity == Maybe {
                        break;
                    }
                }
                values
            }
        };
        given.push((long, values));
    }
    Ok((given, words))
}

/// The last value given for `long`.
fn value(given: &Given, long: &str) -> Option<String> {
    given
        .iter()
        .rev()
        .find(|(l, _)| *l == long)
        .and_then(|(_, v)| v.last().cloned())
}

/// Parses `args` (without the program name).
pub fn parse(args: &[String]) -> Result<Action<Options>, String> {
    let (given, words) = scan(args)?;
    let has = |long: &str| given.iter().any(|(l, _)| *l == long);
    if has("help") {
        return Ok(Action::Print(HELP));
    }
    if has("version") {
        return Ok(Action::Version);
    }
    match words.first().map(String::as_str) {
        None => {}
        Some("help") => return Ok(Action::Print(HELP)),
        Some("version") => return Ok(Action::Version),
        Some(other) => return Err(format!("error: unknown command '{other}'")),
    }
    let format = value(&given, "output-format").unwrap_or_else(|| "text".into());
    if !matches!(format.as_str(), "text" | "json") {
        return Err(format!(
            "error: option '--output-format <format>' argument '{format}' is invalid. Allowed choices are text, json."
        ));
    }
    let resume = match (has("resume"), value(&given, "resume"), has("continue")) {
        (_, Some(id), _) => Some(Resume::Id(id)),
        (true, None, _) | (false, None, true) => Some(Resume::Latest),
        _ => None,
    };
    Ok(Action::Run(Options {
        prompt: value(&given, "prompt"),
        interactive: value(&given, "interactive"),
        silent: has("silent"),
        json: format == "json",
        model: value(&given, "model"),
        session_id: value(&given, "session-id"),
        resume,
        allow_all: has("allow-all-tools") || has("allow-all") || has("yolo"),
        denied: given
            .iter()
            .filter(|(l, _)| *l == "deny-tool")
            .flat_map(|(_, v)| v.iter().cloned())
            .collect(),
        dir: value(&given, "cwd"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{assert_help_and_version, options};

    #[test]
    fn help_and_version() {
        assert_help_and_version(
            parse,
            &["-v", "--version", "version"],
            &["-h", "--help"],
            HELP,
        );
    }

    #[test]
    fn umbels_launch_options() {
        let id = "44444444-2222-4333-8444-555555555555";
        let o = options(
            parse,
            &["--session-id", id, "--model", "gpt-fake", "--add-dir", "/x"],
        );
        assert_eq!(o.session_id.as_deref(), Some(id));
        assert_eq!(o.model.as_deref(), Some("gpt-fake"));
        let o = options(
            parse,
            &[
                "-p",
                "hi",
                "--allow-all-tools",
                "--output-format",
                "json",
                "-s",
            ],
        );
        assert_eq!(o.prompt.as_deref(), Some("hi"));
        assert!(o.allow_all && o.json && o.silent);
        assert!(options(parse, &["--yolo"]).allow_all);
    }

    #[test]
    fn resume_takes_an_optional_value_in_every_spelling() {
        let resume = |list: &[&str]| options(parse, list).resume;
        let id = || Some(Resume::Id("abc1234".into()));
        assert_eq!(resume(&["--resume=abc1234"]), id());
        assert_eq!(resume(&["--resume", "abc1234"]), id());
        assert_eq!(resume(&["-r", "abc1234", "--yolo"]), id());
        assert_eq!(resume(&["--resume", "--yolo"]), Some(Resume::Latest));
        assert_eq!(resume(&["--continue"]), Some(Resume::Latest));
        assert_eq!(resume(&[]), None);
    }

    #[test]
    fn lists_and_bad_options() {
        let o = options(
            parse,
            &["--allow-tool", "shell(git:*)", "write", "-p", "go"],
        );
        assert_eq!(o.prompt.as_deref(), Some("go"));
        let err = |list: &[&str]| crate::fixtures::parse(parse, list).unwrap_err();
        assert_eq!(err(&["--nope"]), "error: unknown option '--nope'");
        assert_eq!(
            err(&["--model"]),
            "error: option '--model <value>' argument missing"
        );
        assert_eq!(err(&["login"]), "error: unknown command 'login'");
        assert!(err(&["--output-format", "xml"]).contains("Allowed choices are text, json"));
    }
}
