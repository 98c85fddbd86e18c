//! The only door to tmux. Every call carries `-L <private socket>`, `-f /dev/null` and `-u`, runs with
//! a minimal client environment (the server keeps its first client's environment and hands it to
//! every pane), reads no stdin unless it feeds data, and is bounded in time. Nothing here ever
//! addresses the default socket.

use super::exec::{RunError, run_bounded};
use crate::core::errors::{Error, Result};
use crate::core::outcome::ExitStatus;
use crate::core::wait::Liveness;
use crate::core::worker_env::LOGIN;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Variables a tmux client may see besides the login basics ([`LOGIN`]).
const CLIENT_ENV: &[&str] = &["TMUX_TMPDIR", "TERM"];

/// How long one tmux call may take.
const CALL_BOUND: Duration = Duration::from_secs(5);

/// How often a command is retried when it met a server that was exiting.
const SERVER_RACE_TRIES: u32 = 5;

/// The panes' own default colours, so tmux answers a CLI's colour queries (OSC 10/11) with no
/// client attached; with the terminal's default colours it stays silent and codex waits 250 ms
/// for the answer at every start. A dark scheme, which is what `attach` shows.
const PANE_COLOURS: &str = "fg=#d0d0d0,bg=#1c1c1c";

/// What `list-panes` prints per pane: session, dead flag, exit status, signal, pid, death time.
const PANE_FORMAT: &str = "#{session_name}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{pane_pid}\t#{pane_dead_time}";

/// What `paste` prints when the pane turned out dead (nothing was pasted).
const DEAD_MARK: &str = "umbel-pane-dead";

/// Pane size of new workers (the size the provider fixtures were recorded at).
const WIDTH: &str = "120";
const HEIGHT: &str = "40";

/// A handle on the private tmux server.
#[derive(Debug, Clone)]
pub struct Tmux {
    socket: String,
    client_env: Vec<(String, String)>,
    /// tmux invocations made through this handle (and its clones), for tests and benchmarks.
    calls: Arc<AtomicUsize>,
    /// How long one invocation may take.
    bound: Duration,
}

/// A pane's liveness plus the pid of its first process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pane {
    pub liveness: Liveness,
    pub pid: Option<u32>,
    /// When a dead pane's process ended (ms since the epoch), as tmux recorded it.
    pub died_at_ms: Option<u64>,
}

impl Tmux {
    /// A handle on socket `socket`; `env` is umbel's environment, filtered here.
    pub fn new(socket: String, env: &[(String, String)]) -> Self {
        let client_env = env
            .iter()
            .filter(|(k, _)| {
                LOGIN.contains(&k.as_str())
                    || CLIENT_ENV.contains(&k.as_str())
                    || k.starts_with("LC_")
            })
            .cloned()
            .collect();
        Tmux {
            socket,
            client_env,
            calls: Arc::new(AtomicUsize::new(0)),
            bound: CALL_BOUND,
        }
    }

    /// This handle with its calls bounded by `limit` as well (at least 50 ms): a caller with a
    /// deadline of its own keeps it even when the server stops answering.
    pub fn bounded(&self, limit: Duration) -> Tmux {
        Tmux {
            bound: self.bound.min(limit).max(Duration::from_millis(50)),
            ..self.clone()
        }
    }

    /// How many tmux invocations this handle (and its clones) made so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// The socket name (`-L`).
    pub fn socket(&self) -> &str {
        &self.socket
    }

    fn command(&self, args: &[String]) -> Command {
        let mut cmd = Command::new("tmux");
        // `-u`: UTF-8 whatever umbel's locale; without it tmux turns the tabs of `-F` formats
        // into `_` when LANG is unset, and every pane would read as gone.
        cmd.env_clear()
            .envs(self.client_env.iter().map(|(k, v)| (k, v)))
            .arg("-u")
            .arg("-L")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args);
        cmd
    }

    /// Runs one tmux invocation (commands may be chained with `;` arguments). A client that
    /// reached a server in the middle of exiting (its last session was just killed, e.g. by the
    /// previous `-p`) gets "server exited unexpectedly" before anything ran: it is retried, and
    /// the retry starts a fresh server.
    pub fn run(&self, args: &[String], stdin: Option<&[u8]>) -> Result<Vec<u8>> {
        let mut tries = 0;
        loop {
            match self.run_once(args, stdin) {
                Err(Error::Tmux { message, .. })
                    if message.contains("server exited unexpectedly")
                        && tries < SERVER_RACE_TRIES =>
                {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(10 * tries as u64));
                }
                done => return done,
            }
        }
    }

    fn run_once(&self, args: &[String], stdin: Option<&[u8]>) -> Result<Vec<u8>> {
        let what = args.first().cloned().unwrap_or_default();
        self.calls.fetch_add(1, Ordering::Relaxed);
        let done = run_bounded(self.command(args), stdin, self.bound).map_err(|e| match e {
            RunError::Spawn(e) if e.kind() == std::io::ErrorKind::NotFound => Error::Tmux {
                command: what.clone(),
                message: "tmux is not installed (on Debian: apt-get install tmux)".into(),
            },
            RunError::Spawn(e) => Error::Tmux {
                command: what.clone(),
                message: e.to_string(),
            },
            // No stop flag is watched: a tmux call ends by itself or at its bound.
            RunError::TimedOut | RunError::Interrupted => Error::Tmux {
                command: what.clone(),
                message: format!(
                    "tmux did not answer within {}",
                    // Whole milliseconds: "1s 999ms", not "1s 999ms 408us 979ns".
                    humantime::format_duration(
                        Duration::from_millis(self.bound.as_millis() as u64)
                    )
                ),
            },
        })?;
        if done.status.success() {
            Ok(done.stdout)
        } else {
            Err(Error::Tmux {
                command: what,
                message: String::from_utf8_lossy(&done.stderr).trim().to_string(),
            })
        }
    }

    /// `tmux -V` (starts no server).
    pub fn version(&self) -> Result<String> {
        self.run(&strings(&["-V"]), None)
            .map(|out| String::from_utf8_lossy(&out).trim().to_string())
    }

    /// How many sessions the private server holds, or `None` when no server is running.
    pub fn session_count(&self) -> Result<Option<usize>> {
        match self.run(&strings(&["list-sessions", "-F", "#{session_name}"]), None) {
            Ok(out) => Ok(Some(String::from_utf8_lossy(&out).lines().count())),
            Err(e) if not_there(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The command each session's first pane was started with, by session name (none when no
    /// server runs): how umbel tells its own sessions from those of another state root sharing
    /// the socket.
    pub fn start_commands(&self) -> Result<HashMap<String, String>> {
        let args = strings(&[
            "list-panes",
            "-a",
            "-F",
            "#{session_name}\t#{pane_start_command}",
        ]);
        match self.run(&args, None) {
            Ok(out) => Ok(String::from_utf8_lossy(&out)
                .lines()
                .filter_map(|line| line.split_once('\t'))
                .map(|(session, command)| (session.to_string(), command.to_string()))
                .collect()),
            Err(e) if not_there(&e) => Ok(HashMap::new()),
            Err(e) => Err(e),
        }
    }

    /// Where the private socket lives: `$TMUX_TMPDIR` (else `/tmp`)`/tmux-<uid>/<socket>`.
    pub fn socket_path(&self) -> std::path::PathBuf {
        let dir = self
            .client_env
            .iter()
            .find(|(k, _)| k == "TMUX_TMPDIR")
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
            .unwrap_or("/tmp");
        let uid = rustix::process::getuid().as_raw();
        Path::new(dir)
            .join(format!("tmux-{uid}"))
            .join(&self.socket)
    }

    /// Starts a detached session running `argv` in `cwd`, after loading `env_script` into the
    /// buffer `env_buffer` from stdin, all in one invocation (so `remain-on-exit` is in place
    /// before the pane can die).
    pub fn new_session(
        &self,
        session: &str,
        cwd: &Path,
        env_buffer: &str,
        env_script: &[u8],
        argv: &[String],
    ) -> Result<()> {
        let mut args: Vec<String> = vec![
            "load-buffer".into(),
            "-b".into(),
            env_buffer.into(),
            "-".into(),
            ";".into(),
            "set-option".into(),
            "-g".into(),
            "remain-on-exit".into(),
            "on".into(),
            ";".into(),
            "set-option".into(),
            "-g".into(),
            "window-style".into(),
            PANE_COLOURS.into(),
            ";".into(),
            "new-session".into(),
            "-d".into(),
            "-s".into(),
            session.into(),
            "-x".into(),
            WIDTH.into(),
            "-y".into(),
            HEIGHT.into(),
            "-c".into(),
            cwd.to_string_lossy().into_owned(),
            "--".into(),
        ];
        args.extend(argv.iter().map(|a| escape_separator(a)));
        self.run(&args, Some(env_script)).map(drop)
    }

    /// The liveness of every umbel session on this server, by session name.
    pub fn panes(&self) -> Result<HashMap<String, Pane>> {
        let args = strings(&["list-panes", "-a", "-F", PANE_FORMAT]);
        match self.run(&args, None) {
            Ok(out) => Ok(parse_panes(&String::from_utf8_lossy(&out))),
            Err(e) if not_there(&e) => Ok(HashMap::new()),
            Err(e) => Err(e),
        }
    }

    /// The liveness of one session.
    pub fn pane(&self, session: &str) -> Result<Pane> {
        let args = strings(&["list-panes", "-s", "-t", &exact(session), "-F", PANE_FORMAT]);
        match self.run(&args, None) {
            Ok(out) => Ok(parse_panes(&String::from_utf8_lossy(&out))
                .remove(session)
                .unwrap_or(Pane {
                    liveness: Liveness::Gone,
                    pid: None,
                    died_at_ms: None,
                })),
            Err(e) if not_there(&e) => Ok(Pane {
                liveness: Liveness::Gone,
                pid: None,
                died_at_ms: None,
            }),
            Err(e) => Err(e),
        }
    }

    /// Hands this terminal to `session`: replaces the umbel process with `tmux attach-session`
    /// on the private socket (stdin, stdout and stderr are the caller's). Returns only when the
    /// exec failed.
    pub fn exec_attach(&self, session: &str) -> Error {
        use std::os::unix::process::CommandExt;
        let err = self
            .command(&strings(&["attach-session", "-t", &exact(session)]))
            .exec();
        Error::Tmux {
            command: "attach-session".into(),
            message: err.to_string(),
        }
    }

    /// Hands this terminal to `session` until the person detaches: `tmux attach-session` as a
    /// child on the caller's stdin, stdout and stderr, with no time bound (`top` comes back to
    /// its view afterwards).
    pub fn attach_until_detached(&self, session: &str) -> Result<()> {
        let status = self
            .command(&strings(&["attach-session", "-t", &exact(session)]))
            .status()
            .map_err(|e| Error::Tmux {
                command: "attach-session".into(),
                message: e.to_string(),
            })?;
        if status.success() {
            Ok(())
        } else {
            Err(Error::Tmux {
                command: "attach-session".into(),
                message: format!("the tmux client ended with {status}"),
            })
        }
    }

    /// The visible screen (`history`: plus the scroll-back), wrapped lines joined.
    pub fn capture(&self, session: &str, history: bool) -> Result<String> {
        let target = pane_target(session);
        let mut args = strings(&["capture-pane", "-p", "-J", "-t", &target]);
        if history {
            args.extend(strings(&["-S", "-", "-E", "-"]));
        }
        let out = self.run(&args, None)?;
        Ok(tidy_screen(&String::from_utf8_lossy(&out)))
    }

    /// The visible screens of several sessions in one tmux invocation (`capture-pane` chained
    /// with `;`, a marker line printed between them), for views of the whole fleet. A session
    /// that went away meanwhile fails the chain; then each is captured alone and the missing
    /// ones are left out.
    pub fn capture_many(&self, sessions: &[&str]) -> Result<HashMap<String, String>> {
        const MARK: &str = "::umbel-screen-end::";
        let mut args = Vec::new();
        for session in sessions {
            if !args.is_empty() {
                args.push(";".to_string());
            }
            args.extend(strings(&[
                "capture-pane",
                "-p",
                "-J",
                "-t",
                &pane_target(session),
            ]));
            args.extend(strings(&[";", "display-message", "-p", MARK]));
        }
        if args.is_empty() {
            return Ok(HashMap::new());
        }
        let Ok(out) = self.run(&args, None) else {
            return Ok(sessions
                .iter()
                .filter_map(|s| Some((s.to_string(), self.capture(s, false).ok()?)))
                .collect());
        };
        let text = String::from_utf8_lossy(&out);
        Ok(sessions
            .iter()
            .zip(text.split(&format!("{MARK}\n")))
            .map(|(session, screen)| (session.to_string(), tidy_screen(screen)))
            .collect())
    }

    /// Pastes `text` as one bracketed paste (newlines kept as LF), through a buffer loaded from
    /// stdin, so any bytes arrive exactly and nothing lands on an argv.
    ///
    /// Only into a live pane: tmux 3.3a's server segfaults on `paste-buffer` into a dead one
    /// (remain-on-exit), taking every worker with it. The check and the paste are one command
    /// queue (`if-shell -F`), which tmux runs without a pane dying in between; a CLI that ended
    /// since the caller looked is reported as [`Error::Dead`].
    pub fn paste(&self, session: &str, buffer: &str, text: &[u8]) -> Result<()> {
        let target = pane_target(session);
        let paste = format!("paste-buffer -p -r -d -b {buffer} -t {target}");
        let dead = format!("delete-buffer -b {buffer} ; display-message -p {DEAD_MARK}");
        let mut args = strings(&["load-buffer", "-b", buffer, "-", ";"]);
        args.extend(leave_mode(&target));
        args.extend(strings(&[
            "if-shell",
            "-F",
            "-t",
            &target,
            "#{pane_dead}",
            &dead,
            &paste,
        ]));
        let out = self.run(&args, Some(text))?;
        if String::from_utf8_lossy(&out).contains(DEAD_MARK) {
            return Err(Error::Dead {
                name: session
                    .strip_prefix("umbel-")
                    .unwrap_or(session)
                    .to_string(),
                detail: "its CLI ended before the prompt could be pasted".into(),
                resumable: false,
            });
        }
        Ok(())
    }

    /// Presses keys (tmux key names: `Enter`, `Down`, `Escape`) — on the CLI, not on a tmux
    /// mode the pane was left in (see [`leave_mode`]).
    pub fn send_keys(&self, session: &str, keys: &[&str]) -> Result<()> {
        let target = pane_target(session);
        let mut args = leave_mode(&target);
        args.extend(strings(&["send-keys", "-t", &target]));
        args.extend(strings(keys));
        self.run(&args, None).map(drop)
    }

    /// Deletes a buffer, ignoring a missing one.
    pub fn delete_buffer(&self, buffer: &str) {
        let _ = self.run(&strings(&["delete-buffer", "-b", buffer]), None);
    }

    /// Has the tmux server run `command` (`sh -c`) in the background (`run-shell -b`): a job of
    /// the server, in no pane's process group, that outlives the umbel that asked for it (the
    /// expiry of a warm worker). tmux reads the command as a format, so each `#` is doubled.
    pub fn run_in_background(&self, command: &str) -> Result<()> {
        let command = command.replace('#', "##");
        self.run(&strings(&["run-shell", "-b", &command]), None)
            .map(drop)
    }

    /// Ends umbel's private tmux server and every session on it (tests play a crashed server
    /// or a reboot with it; umbel itself never calls it).
    pub fn kill_server(&self) -> Result<()> {
        match self.run(&strings(&["kill-server"]), None) {
            Err(e) if !not_there(&e) => Err(e),
            _ => Ok(()),
        }
    }

    /// Kills a session; a missing session is not an error.
    pub fn kill_session(&self, session: &str) -> Result<()> {
        match self.run(&strings(&["kill-session", "-t", &exact(session)]), None) {
            Err(e) if !not_there(&e) => Err(e),
            _ => Ok(()),
        }
    }
}

/// `=name`: an exact session match (tmux otherwise matches prefixes).
fn exact(session: &str) -> String {
    format!("={session}")
}

/// The active pane of an exactly matched session.
fn pane_target(session: &str) -> String {
    format!("={session}:")
}

/// The commands (ending in a `;`) that take a pane out of any tmux mode it is in — copy mode
/// or view mode after a person scrolled through `attach`, choose-tree, … — before keys or a
/// paste are meant for the CLI: in a mode, tmux hands pressed keys to the mode (copy mode
/// swallows Enter) while a paste still reaches the CLI. `copy-mode -q` leaves every mode; it
/// runs only when `#{pane_in_mode}` says there is one, so a pane in no mode costs nothing more
/// than the check, in the same tmux call.
fn leave_mode(target: &str) -> Vec<String> {
    strings(&[
        "if-shell",
        "-F",
        "-t",
        target,
        "#{pane_in_mode}",
        &format!("copy-mode -q -t {target}"),
        ";",
    ])
}

/// tmux reads a trailing `;` of an argument as a command separator; escape it.
fn escape_separator(arg: &str) -> String {
    match arg.strip_suffix(';') {
        Some(head) if !head.ends_with('\\') => format!("{head}\\;"),
        _ => arg.to_string(),
    }
}

/// `items` as owned tmux arguments.
fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A captured screen without tmux's "Pane is dead" line and trailing blank lines.
fn tidy_screen(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("Pane is dead"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

/// Whether a tmux error only says the server or session does not exist.
pub fn not_there(err: &Error) -> bool {
    let Error::Tmux { message, .. } = err else {
        return false;
    };
    let m = message.to_ascii_lowercase();
    [
        "can't find session",
        "can't find pane",
        "can't find window",
        "no server running",
        "error connecting to",
        "session not found",
        // The server was exiting (its last session just ended, or it was killed) as the
        // client connected.
        "server exited unexpectedly",
        // A target looked up on a server that has no session left (it exits right after).
        "no current target",
    ]
    .iter()
    .any(|s| m.contains(s))
}

fn parse_panes(text: &str) -> HashMap<String, Pane> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 5 || out.contains_key(f[0]) {
            continue;
        }
        let liveness = if f[1] == "1" {
            Liveness::Dead(ExitStatus {
                exit_code: f[2].parse().ok(),
                signal: f[3].parse().ok().filter(|s| *s != 0),
            })
        } else {
            Liveness::Alive
        };
        out.insert(
            f[0].to_string(),
            Pane {
                liveness,
                pid: f[4].parse().ok(),
                died_at_ms: f
                    .get(5)
                    .and_then(|t| t.parse::<u64>().ok())
                    .filter(|t| *t > 0)
                    .map(|secs| secs * 1000),
            },
        );
    }
    out
}

#[cfg(test)]
#[path = "tmux_tests.rs"]
mod tests;
