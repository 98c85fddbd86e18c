//! Hook configuration and the command runner.
//!
//! Claude's settings, Codex's `hooks.json` and Gemini's settings all share one
//! shape: `{"hooks":{"<Event>":[{"matcher":"…","hooks":[{"type":"command",
//! "command":"…","timeout":60}]}]}}`. [`Hooks`] parses that shape (the unit of
//! `timeout` is the caller's choice) and [`Runner`] runs matching commands
//! with `sh -c`, the payload on stdin, and waits for them, bounded by their
//! timeouts. Hook output is discarded so it cannot disturb the screen; a
//! fake that reads a hook's answer (copilot's decision hooks) starts it with
//! [`Runner::start`], its stdout piped, and bounds it with [`wait_until`].

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One command hook.
#[derive(Clone, Debug, PartialEq)]
pub struct HookCommand {
    /// Shell command line.
    pub command: String,
    /// How long to wait before killing it.
    pub timeout: Duration,
}

#[derive(Clone, Debug, PartialEq)]
struct Group {
    event: String,
    matcher: Option<String>,
    commands: Vec<HookCommand>,
}

/// Unit of the `timeout` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutUnit {
    /// Claude, Codex.
    Seconds,
    /// Gemini.
    Millis,
}

/// All configured hooks, in configuration order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hooks {
    groups: Vec<Group>,
}

impl Hooks {
    /// Reads the `hooks` key of a settings object (absent = no hooks).
    /// Entries whose `type` is not `command` are ignored; malformed ones are errors.
    pub fn from_settings(
        settings: &Value,
        unit: TimeoutUnit,
        default_timeout: Duration,
    ) -> Result<Self, String> {
        let mut hooks = Hooks::default();
        let Some(map) = settings.get("hooks") else {
            return Ok(hooks);
        };
        let map = map.as_object().ok_or("`hooks` must be an object")?;
        for (event, groups) in map {
            let groups = groups
                .as_array()
                .ok_or_else(|| format!("hooks.{event} must be an array"))?;
            for (gi, group) in groups.iter().enumerate() {
                let at = format!("hooks.{event}[{gi}]");
                let matcher = match group.get("matcher") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(m)) => Some(m.clone()),
                    Some(_) => return Err(format!("{at}.matcher must be a string")),
                };
                let list = group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .ok_or_else(|| format!("{at}.hooks must be an array"))?;
                let mut commands = Vec::new();
                for (hi, h) in list.iter().enumerate() {
                    if h.get("type").and_then(Value::as_str).unwrap_or("command") != "command" {
                        continue;
                    }
                    let command = h
                        .get("command")
                        .and_then(Value::as_str)
                        .ok_or_else(|| format!("{at}.hooks[{hi}].command must be a string"))?;
                    let timeout = match h.get("timeout").and_then(Value::as_f64) {
                        Some(t) if t > 0.0 => match unit {
                            TimeoutUnit::Seconds => Duration::from_secs_f64(t),
                            TimeoutUnit::Millis => Duration::from_secs_f64(t / 1000.0),
                        },
                        _ => default_timeout,
                    };
                    commands.push(HookCommand {
                        command: command.to_string(),
                        timeout,
                    });
                }
                hooks.groups.push(Group {
                    event: event.clone(),
                    matcher,
                    commands,
                });
            }
        }
        Ok(hooks)
    }

    /// Appends another source's hooks after these.
    pub fn extend(&mut self, other: Hooks) {
        self.groups.extend(other.groups);
    }

    /// Runs the commands for `event` matching `target` with `payload` on
    /// stdin, in the runner `runner` makes (only when some match), and waits.
    pub fn fire(
        &self,
        event: &str,
        target: Option<&str>,
        payload: &crate::json::Obj,
        runner: impl FnOnce() -> Runner,
    ) -> Vec<HookRun> {
        let commands = self.matching(event, target);
        if commands.is_empty() {
            return Vec::new();
        }
        runner().run(&commands, &payload.to_line())
    }

    /// The command lines for `event` (no matcher applied).
    pub fn commands(&self, event: &str) -> Vec<String> {
        self.matching(event, None)
            .into_iter()
            .map(|c| c.command)
            .collect()
    }

    /// The commands for `event`; `target` is what the matcher is tested
    /// against (tool name, notification type, …) or `None` for events without
    /// matchers, where every group applies.
    pub fn matching(&self, event: &str, target: Option<&str>) -> Vec<HookCommand> {
        self.groups
            .iter()
            .filter(|g| {
                g.event == event && target.is_none_or(|t| matcher_matches(g.matcher.as_deref(), t))
            })
            .flat_map(|g| g.commands.iter().cloned())
            .collect()
    }

    /// The commands for `event` whose group's matcher `keep` accepts (`None`: no matcher), for
    /// a CLI whose matcher rule is not [`matcher_matches`] (copilot: `""` matches no tool).
    pub fn matching_by(
        &self,
        event: &str,
        keep: impl Fn(Option<&str>) -> bool,
    ) -> Vec<HookCommand> {
        self.groups
            .iter()
            .filter(|g| g.event == event && keep(g.matcher.as_deref()))
            .flat_map(|g| g.commands.iter().cloned())
            .collect()
    }

    /// True when at least one command is configured for `event`.
    pub fn has(&self, event: &str) -> bool {
        self.groups
            .iter()
            .any(|g| g.event == event && !g.commands.is_empty())
    }
}

/// Matcher rule: absent, empty, `*` or `.*` match everything; otherwise the
/// matcher is a `|`-separated list of alternatives, each matching by equality
/// where `.*` inside an alternative stands for any text (`mcp__.*`).
pub fn matcher_matches(matcher: Option<&str>, target: &str) -> bool {
    let Some(m) = matcher.map(str::trim) else {
        return true;
    };
    if m.is_empty() || m == "*" || m == ".*" {
        return true;
    }
    m.split('|').any(|alt| wildcard(alt.trim(), target))
}

fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split(".*").collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// What happened to one hook command.
#[derive(Clone, Debug, PartialEq)]
pub struct HookRun {
    /// The command line.
    pub command: String,
    /// Exit status (`None` when killed or not started).
    pub status: Option<i32>,
    /// True when it hit its timeout and was killed.
    pub timed_out: bool,
}

/// Runs hook commands for one session.
#[derive(Clone, Debug)]
pub struct Runner {
    /// Working directory of every hook.
    pub cwd: PathBuf,
    /// Variables added to the fake's own environment.
    pub env: Vec<(String, String)>,
}

impl Runner {
    /// Runs in `cwd` with `env` added.
    pub fn new(cwd: PathBuf, env: Vec<(String, String)>) -> Runner {
        Runner { cwd, env }
    }

    /// Starts every command at once with `payload` on stdin, then waits for all.
    pub fn run(&self, commands: &[HookCommand], payload: &str) -> Vec<HookRun> {
        let running: Vec<_> = commands
            .iter()
            .map(|hook| (hook, self.start(&hook.command, payload, false).ok()))
            .collect();
        let start = Instant::now();
        running
            .into_iter()
            .map(|(hook, child)| {
                let status = child.map(|mut child| wait_until(&mut child, start + hook.timeout));
                HookRun {
                    command: hook.command.clone(),
                    status: status.flatten().and_then(|st| st.code()),
                    timed_out: matches!(status, Some(None)),
                }
            })
            .collect()
    }

    /// Starts `command` with `sh -c` in the runner's folder and environment, `payload` written
    /// to its stdin from a thread (a hook that never reads cannot block us on a full pipe), its
    /// stderr discarded and its stdout piped when `capture` (else discarded).
    pub fn start(&self, command: &str, payload: &str, capture: bool) -> std::io::Result<Child> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&self.cwd)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(if capture {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stderr(Stdio::null())
            .spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            let bytes = payload.as_bytes().to_vec();
            std::thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            });
        }
        Ok(child)
    }
}

/// Waits for `child` until `until`; past it, kills it and says `None`.
pub fn wait_until(child: &mut Child, until: Instant) -> Option<ExitStatus> {
    let mut nap = Duration::from_micros(200);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests;
