//! The one error type of umbel. Adapters and operations return it; only faces turn it into an
//! exit code, a JSON error or an MCP error result. Every variant names the thing that failed and,
//! where it can, what to do next.

use std::path::{Path, PathBuf};

/// Everything that can go wrong in umbel, by kind.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input from the caller (a flag, a value, a field); exit 2.
    #[error("{message}")]
    Usage { message: String },

    /// A worker name outside `^[a-z0-9][a-z0-9-]{0,62}$`.
    #[error("invalid worker name `{name}`: {reason}")]
    InvalidName { name: String, reason: &'static str },

    /// `--env NAME` named a variable that is not set in umbel's environment.
    #[error("`--env {name}` passes `{name}` by name, but it is not set in umbel's environment")]
    EnvUnset { name: String },

    /// `--cwd` does not exist or is not a directory.
    #[error("`--cwd {}` is not a directory: {reason}", path.display())]
    CwdMissing { path: PathBuf, reason: String },

    /// The provider's binary could not be found: the default name not on PATH, or what its
    /// `UMBEL_*_BIN` variable names missing or not executable.
    #[error("{}", binary_not_found(provider, package, bin, env_var, *from_env, *problem))]
    BinaryNotFound {
        provider: &'static str,
        /// The npm package the CLI installs from.
        package: &'static str,
        bin: String,
        env_var: &'static str,
        /// Whether `bin` came from `env_var` (else it is the provider's default name).
        from_env: bool,
        problem: BinProblem,
    },

    /// A worker of that name already exists (alive, or as a tombstone).
    #[error("worker `{name}` already exists{}", if *dead { " as a tombstone (`umbel kill --purge` it to reuse the name)" } else { "" })]
    Exists { name: String, dead: bool },

    /// The worker's tmux session name is in use on the socket by a worker this state root does
    /// not have: another state root shares `UMBEL_TMUX_SOCKET` and has a worker of that name.
    #[error(
        "worker name `{name}` is in use on tmux socket `{socket}` by another state root: its session `{session}` runs there but is not this root's worker, so it was left alone"
    )]
    SessionTaken {
        name: String,
        session: String,
        socket: String,
    },

    /// The worker's folder was deleted while a verb was using it.
    #[error(
        "worker `{name}`'s folder {} was removed while umbel was waiting on it; its tmux session, if it still runs, is ended by `umbel kill {name}`",
        path.display()
    )]
    Removed { name: String, path: PathBuf },

    /// No worker of that name.
    #[error("no worker named `{name}` (see `umbel ls`)")]
    NotFound { name: String },

    /// The worker's process has ended, so the verb cannot act on it.
    /// `resumable`: `umbel resume` can bring it back on its conversation.
    #[error("worker `{name}` is dead: {detail}. {}", dead_next_step(name, *resumable))]
    Dead {
        name: String,
        detail: String,
        resumable: bool,
    },

    /// `park`/`resume` cannot act on the worker as it is (busy, waiting for a person, its
    /// transcript gone, …); `detail` says why.
    #[error("worker `{name}` {detail}")]
    NotResumable { name: String, detail: String },

    /// Another turn is still running (or another `send` holds the worker).
    #[error("worker `{name}` is busy: {detail}")]
    Busy { name: String, detail: String },

    /// A limit of the worker's budget is reached: nothing more is sent until it is raised.
    #[error("worker `{name}` is at its budget: {detail}")]
    Budget { name: String, detail: String },

    /// The prompt was pasted but the CLI never confirmed it was submitted.
    #[error("prompt not submitted to `{name}`: {detail}")]
    NotSubmitted {
        name: String,
        detail: String,
        screen: Option<String>,
    },

    /// The CLI opened on a sign-in or onboarding screen; a person has to sign in first.
    #[error(
        "{provider} is not signed in here: it opened on its sign-in or first-run screen (\"{line}\"). Run `{bin}` once in a terminal and sign in (or finish its setup), then spawn again; `umbel doctor` names what is missing ({provider}-sign-in)"
    )]
    SignIn {
        provider: &'static str,
        bin: String,
        line: String,
    },

    /// The CLI opened a dialog that umbel does not answer on the user's behalf.
    #[error(
        "worker `{name}` waits for a person: {provider} shows a dialog (\"{what}\") that umbel does not answer for you. {hint}"
    )]
    DialogOpen {
        name: String,
        provider: &'static str,
        what: String,
        hint: String,
        screen: Option<String>,
    },

    /// The worker died or never became ready during startup.
    #[error("worker `{name}` did not start: {detail}")]
    StartupFailed {
        name: String,
        detail: String,
        screen: Option<String>,
    },

    /// A tmux command failed.
    #[error("tmux {command} failed: {message}")]
    Tmux { command: String, message: String },

    /// A git command failed (`spawn --worktree`, `diff --git`, `kill --purge`).
    #[error("{command} failed: {message}")]
    Git { command: String, message: String },

    /// `spawn --worktree` in a folder that is not in a git repository.
    #[error("`--worktree` needs a git repository, and {} is not in one: {detail}", path.display())]
    NotARepo { path: PathBuf, detail: String },

    /// `spawn --worktree` would make a branch that exists already.
    #[error("branch `{branch}` exists already in {}; a worker's worktree gets a new branch", repo.display())]
    BranchExists { branch: String, repo: PathBuf },

    /// `diff --git` on a worker spawned without `--worktree`.
    #[error("worker `{name}` has no worktree (it was spawned without `--worktree`)")]
    NoWorktree { name: String },

    /// A file-system operation failed.
    #[error("{action} {}: {}", path.display(), os_text(source))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A state file exists but cannot be understood.
    #[error("state file {} is unreadable: {message}; {}", path.display(), corrupt_remedy(path))]
    Corrupt { path: PathBuf, message: String },

    /// There is no answer to read yet.
    #[error("worker `{name}` has no finished turn to read yet")]
    NoAnswer { name: String },

    /// The last turn ended, but its hook payload is lost and the transcript does not hold it.
    #[error(
        "worker `{name}`: its last turn ended, but that turn's hook payload is missing or empty \
         (was the disk full?) and its transcript does not hold that turn's answer; \
         `umbel read {name} --all` shows the turns the transcript has"
    )]
    AnswerLost { name: String },
    /// `wait` without `--since` on a worker that was never sent a prompt: nothing would end it.
    #[error(
        "worker `{name}` has no turn to wait for: it was never sent a prompt (`umbel send {name} …` first, or `wait --since POS` to wait for whatever comes next)"
    )]
    NoTurn { name: String },

    /// A turn number outside the worker's conversation (`read --turn`, `diff --from`, …).
    #[error("`{flag} {number}`: worker `{name}` has {turns} turn{}{}", if *turns == 1 { "" } else { "s" }, if *turns > 0 { format!(" (numbered 1 to {turns})") } else { String::new() })]
    TurnOutOfRange {
        flag: &'static str,
        number: usize,
        name: String,
        turns: usize,
    },

    /// A workflow file that cannot run: every problem found, each with its line and column.
    #[error("{}", problems.iter().map(|p| format!("{}:{}:{}: {}", file.display(), p.line, p.column, p.message)).collect::<Vec<_>>().join("\n"))]
    InvalidWorkflow {
        file: PathBuf,
        problems: Vec<crate::core::workflow::problem::Problem>,
    },

    /// A user's own CLI config file that a worker's config is built from cannot be read as its
    /// format; nothing is started.
    #[error(
        "{}:{line}:{column}: {message}. umbel builds each {provider} worker's config from this file; fix it (or move it aside) and spawn again",
        file.display()
    )]
    UserConfig {
        provider: &'static str,
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },

    /// A guardrail check could not give a verdict: it did not start, or did not finish in time.
    #[error("the check `{command}` {detail}")]
    CheckFailed { command: String, detail: String },

    /// Standard input piped to print mode is not text (a binary file, a NUL byte).
    #[error(
        "standard input is not text: byte {at} {what}; the CLIs read text, so pipe a text file (e.g. `base64` a binary one) or pass the text as the prompt"
    )]
    StdinNotText { at: usize, what: &'static str },

    /// The operation was interrupted (SIGINT, or a cancelled MCP request).
    #[error("interrupted")]
    Interrupted,

    /// ssh could not reach a worker's host, or lost it (exit 255, as ssh's own).
    #[error(
        "host `{host}` is unreachable: {detail}. Check that `ssh {host}` works from here (umbel uses your ssh config and keys)"
    )]
    HostUnreachable { host: String, detail: String },

    /// ssh refused the host's key: unknown or changed. umbel never turns the check off.
    #[error(
        "host `{host}`: its ssh host key is not accepted ({detail}). Run `ssh {host}` once in a terminal, compare the fingerprint with the host's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` there) and accept it; umbel never disables host-key checking"
    )]
    HostKey { host: String, detail: String },

    /// The host answers but has no usable umbel (missing, or another version).
    #[error("host `{host}`: {detail}")]
    RemoteUmbel { host: String, detail: String },

    /// The host's umbel ran the verb and failed it: its error (`code` is its `Error::code`),
    /// and its exit status.
    #[error("on host `{host}`: {message}")]
    Remote {
        host: String,
        code: String,
        message: String,
        exit: u8,
    },

    /// `interrupt` pressed the CLI's interrupt key, but the CLI never reported the turn
    /// interrupted.
    #[error("worker `{name}`'s turn was not interrupted: {detail}")]
    NotInterrupted { name: String, detail: String },

    /// `approve`/`deny` on a worker that is not waiting on an approval (busy, ready, parked,
    /// another kind of dialog): nothing was pressed.
    #[error("worker `{name}` is not waiting on an approval: {detail}; nothing was pressed")]
    NotAsking { name: String, detail: String },

    /// The approval was answered already (or is being answered) by someone else: nothing was
    /// pressed.
    #[error("worker `{name}`'s approval {id} was already answered: {detail}; nothing was pressed")]
    AlreadyAnswered {
        name: String,
        id: String,
        detail: String,
    },

    /// `--expect ID` named another approval than the one pending: the tool changed since the
    /// caller looked.
    #[error(
        "worker `{name}` now waits on approval {pending}, not {expected} (the tool changed since you looked: {tool}); nothing was pressed"
    )]
    ApprovalChanged {
        name: String,
        expected: String,
        pending: String,
        tool: String,
    },

    /// The keys were pressed but the CLI gave no evidence (a hook, a transcript record) that the
    /// answer took.
    #[error("worker `{name}`'s approval was not confirmed: {detail}")]
    NotAnswered { name: String, detail: String },

    /// A queued prompt (`send --queue`) was never typed: the worker died (`dead`, 125) or stopped
    /// for a person (`input`, 126) while it waited, or its turn did not come in time (`timeout`,
    /// 124).
    #[error("prompt for `{name}` not delivered ({outcome}), nothing was typed: {detail}")]
    NotDelivered {
        name: String,
        outcome: &'static str,
        exit: u8,
        detail: String,
    },

    /// A `send` that failed, and what it left in the CLI's composer (`error` says why it
    /// failed; its code, exit status and hint are that error's).
    #[error("{}", send_failed(error, *composer))]
    SendFailed {
        error: Box<Error>,
        composer: super::send_verdict::Composer,
    },

    /// The CLI is a release older than the oldest umbel supports.
    #[error(
        "{provider} {version} is older than the oldest release umbel supports ({oldest}): upgrade with `{upgrade}`"
    )]
    UnsupportedRelease {
        provider: &'static str,
        version: String,
        oldest: String,
        upgrade: String,
    },
}

/// What to do with a dead worker, by name: the sentence its `Dead` error and a `dead` wait end
/// with on the command line.
pub fn dead_next_step(name: &str, resumable: bool) -> String {
    if resumable {
        return format!(
            "`umbel capture {name}` shows its last screen; `umbel resume {name}` brings it back on its conversation (a send resumes it too; `kill --purge` would lose the conversation)"
        );
    }
    format!(
        "`umbel capture {name}` shows its last screen; to start it again: `umbel kill {name} --purge`, then `umbel spawn --name {name} …` (`umbel prune` removes every dead worker)"
    )
}

/// A failed send's message: why, then what it left in the composer (unless the error says so
/// itself).
fn send_failed(error: &Error, composer: super::send_verdict::Composer) -> String {
    match error {
        Error::NotDelivered { .. } => error.to_string(),
        _ => format!("{error}; {}", composer.sentence()),
    }
}

/// Why a provider's binary cannot be run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinProblem {
    /// A bare name that no folder on PATH holds as a program.
    NotOnPath,
    /// A path (it holds a `/`) where there is no file.
    NoSuchFile,
    /// A path to something that is not an executable file (a folder, a file without `x`).
    NotExecutable,
}

/// The binary error's message: the value that failed, where it came from, and the remedy that
/// fits it (a set `UMBEL_*_BIN` is named with its value, never told to be set).
fn binary_not_found(
    provider: &str,
    package: &str,
    bin: &str,
    env_var: &str,
    from_env: bool,
    problem: BinProblem,
) -> String {
    let (cause, remedy) =
        binary_cause_and_remedy((provider, package), bin, env_var, from_env, problem);
    format!("{cause} ({remedy})")
}

/// [`Error::BinaryNotFound`] in two parts, the cause and the remedy (`umbel doctor` shows them
/// in their own places), for the provider named with its npm package.
pub fn binary_cause_and_remedy(
    (provider, package): (&str, &str),
    bin: &str,
    env_var: &str,
    from_env: bool,
    problem: BinProblem,
) -> (String, String) {
    let what = match problem {
        BinProblem::NotOnPath => "not found on PATH",
        BinProblem::NoSuchFile => "no such file",
        BinProblem::NotExecutable => "not an executable file",
    };
    if from_env {
        (
            format!("{env_var}={bin}: {what}"),
            format!(
                "point {env_var} at the {provider} program, or unset it to use `{provider}` on PATH"
            ),
        )
    } else {
        (
            format!("{provider} binary `{bin}` {what}"),
            format!("install {provider} (`npm i -g {package}`), or set {env_var} to its location"),
        )
    }
}

/// What to do about an unreadable state file, by which file it is: a worker's meta.json, a
/// remote worker's record, a workflow run's record.
fn corrupt_remedy(path: &Path) -> String {
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let folder = path.parent();
    let up = folder.and_then(Path::parent);
    match (
        name(Some(path)).as_str(),
        name(folder).as_str(),
        name(up).as_str(),
    ) {
        ("meta.json", worker, "sessions") => {
            format!("`umbel kill --purge {worker}` ends that worker and removes its folder")
        }
        (file, "remote", _) => {
            let worker = file.trim_end_matches(".json");
            format!(
                "remove that file to forget remote worker `{worker}` here; its host keeps the worker (`ssh HOST umbel kill --purge {worker}` ends it there)"
            )
        }
        ("run.json", run, _) => format!(
            "run `{run}` cannot be resumed or listed; remove its folder {} to forget it",
            folder
                .map(Path::display)
                .map(|d| d.to_string())
                .unwrap_or_default()
        ),
        _ => "move the file aside and try again".to_string(),
    }
}

impl Error {
    /// Shorthand for a usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
        }
    }

    /// This error, from a `send` that left the composer as `composer` says (an error already
    /// saying so is kept as it is).
    pub fn after_send(self, composer: super::send_verdict::Composer) -> Self {
        match self {
            Error::SendFailed { .. } => self,
            error => Error::SendFailed {
                error: Box::new(error),
                composer,
            },
        }
    }

    /// The error a `send` failed with, under what it left in the composer.
    pub fn unsent(&self) -> &Error {
        match self {
            Error::SendFailed { error, .. } => error,
            other => other,
        }
    }

    /// Shorthand for an I/O error on a path.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// A stable snake_case identifier for scripts and MCP hosts (the table in `hints.rs`).
    pub fn code(&self) -> &'static str {
        self.row().0
    }

    /// The last screen the error carries as evidence, if any.
    pub fn screen(&self) -> Option<&str> {
        match self {
            Error::SendFailed { error, .. } => error.screen(),
            Error::StartupFailed { screen, .. }
            | Error::NotSubmitted { screen, .. }
            | Error::DialogOpen { screen, .. } => screen.as_deref(),
            _ => None,
        }
    }

    /// The process exit status a face reports for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::SendFailed { error, .. } => error.exit_code(),
            // The host's own code, or the outcome's that kept the prompt from being typed.
            Error::Remote { exit, .. } | Error::NotDelivered { exit, .. } => *exit,
            _ => self.row().1,
        }
    }
}

/// An I/O error as umbel says it: the system's words without Rust's ` (os error N)` suffix,
/// starting lower-case to follow a colon ("no such file or directory").
pub fn os_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    };
    let mut chars = text.chars();
    match (chars.next(), chars.clone().next()) {
        // Lower-case "No such file" but not an acronym ("EOF …").
        (Some(first), Some(second)) if !second.is_uppercase() => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => text,
    }
}

/// umbel's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_kinds_exit_2_and_sign_in_126() {
        assert_eq!(Error::usage("x").exit_code(), 2);
        assert_eq!(Error::EnvUnset { name: "K".into() }.exit_code(), 2);
        let e = Error::SignIn {
            provider: "claude",
            bin: "claude".into(),
            line: "l".into(),
        };
        assert_eq!(e.exit_code(), 126);
        assert_eq!(
            Error::Busy {
                name: "w".into(),
                detail: "d".into()
            }
            .exit_code(),
            1
        );
    }

    /// One code per meaning, from the one table (issue 45 item 9): a dead worker is the
    /// `dead` outcome's 125 from every verb (`send`, `read` and `attach` said 1, `wait` 125).
    #[test]
    fn a_dead_worker_exits_125_from_every_verb() {
        let dead = Error::Dead {
            name: "w".into(),
            detail: "d".into(),
            resumable: false,
        };
        assert_eq!(dead.exit_code(), 125);
        assert_eq!((dead.code(), Error::Interrupted.exit_code()), ("dead", 130));
        let remote = Error::Remote {
            host: "h".into(),
            code: "dead".into(),
            message: "m".into(),
            exit: 125,
        };
        assert_eq!(remote.exit_code(), 125);
    }

    #[test]
    fn a_turn_out_of_range_names_the_flag_and_the_count() {
        let e = Error::TurnOutOfRange {
            flag: "--turn",
            number: 7,
            name: "w".into(),
            turns: 3,
        };
        assert_eq!(
            e.to_string(),
            "`--turn 7`: worker `w` has 3 turns (numbered 1 to 3)"
        );
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn io_errors_read_without_the_os_error_suffix() {
        let e = Error::io(
            "cannot read",
            "/nope.yaml",
            std::io::Error::from_raw_os_error(2),
        );
        assert_eq!(
            e.to_string(),
            "cannot read /nope.yaml: no such file or directory"
        );
    }

    /// Each unreadable state file says what to do about it.
    #[test]
    fn a_corrupt_state_file_names_its_remedy() {
        for (path, remedy) in [
            (
                "/s/sessions/w1/meta.json",
                "`umbel kill --purge w1` ends that worker",
            ),
            (
                "/s/remote/far.json",
                "remove that file to forget remote worker `far`",
            ),
            (
                "/s/workflows/r-1/run.json",
                "remove its folder /s/workflows/r-1",
            ),
            ("/s/other.json", "move the file aside"),
        ] {
            let e = Error::Corrupt {
                path: path.into(),
                message: "expected value at line 1 column 1".into(),
            };
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("state file {path} is unreadable: expected value")),
                "{text}"
            );
            assert!(text.contains(remedy), "{text}");
        }
    }

    #[test]
    fn exists_message_mentions_purge_for_tombstones() {
        let e = Error::Exists {
            name: "w".into(),
            dead: true,
        };
        assert!(e.to_string().contains("kill --purge"), "{e}");
        assert_eq!(e.code(), "exists");
    }
}
