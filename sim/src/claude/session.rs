//! One Claude session: ids, paths, clock, hooks and transcript state, shared
//! by the interactive TUI and print mode.

use std::path::PathBuf;

use super::cli::Options;
use super::config::{self, Paths};
use crate::clock::Clock;
use crate::engine::host::Host;
use crate::hooks::{HookRun, Hooks, Runner};
use crate::ids::{self, IdGen};
use crate::json::Obj;
use crate::record::Recorder;
use crate::scenario::{Scenario, Script};

/// A model as the CLI shows and reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Full id, e.g. `claude-opus-5-5` (in payloads and transcripts).
    pub id: String,
    /// Marketing name, e.g. `Opus 5.5` (in the header).
    pub display: String,
}

/// Resolves `--model` (aliases `opus`, `sonnet`, `haiku`, `fable`; default opus).
pub fn resolve_model(arg: Option<&str>) -> Model {
    let id = match arg.unwrap_or("opus") {
        "opus" | "default" => "claude-opus-5-5",
        "sonnet" => "claude-sonnet-5-5",
        "haiku" => "claude-haiku-5-5",
        "fable" => "claude-fable-5-2",
        other => other,
    }
    .to_string();
    let parts: Vec<&str> = id.split('-').collect();
    let display = match parts.as_slice() {
        ["claude", family, major, minor, ..]
            if major.parse::<u32>().is_ok() && minor.parse::<u32>().is_ok() =>
        {
            let mut f = family.chars();
            let cap = f
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + f.as_str())
                .unwrap_or_default();
            format!("{cap} {major}.{minor}")
        }
        _ => id.clone(),
    };
    Model { id, display }
}

/// The permission mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `default` / `manual`.
    Default,
    /// `auto`.
    Auto,
    /// `acceptEdits`.
    AcceptEdits,
    /// `plan`.
    Plan,
    /// `bypassPermissions`.
    BypassPermissions,
    /// `dontAsk`.
    DontAsk,
}

impl Mode {
    /// Parses a `--permission-mode` or `permissions.defaultMode` value.
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "default" | "manual" => Mode::Default,
            "auto" => Mode::Auto,
            "acceptEdits" => Mode::AcceptEdits,
            "plan" => Mode::Plan,
            "bypassPermissions" => Mode::BypassPermissions,
            "dontAsk" => Mode::DontAsk,
            _ => return None,
        })
    }

    /// The value in hook payloads and transcripts (`manual` is reported as `default`).
    pub fn hook_value(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Auto => "auto",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::BypassPermissions => "bypassPermissions",
            Mode::DontAsk => "dontAsk",
        }
    }

    /// The mode Shift+Tab switches to from this one (2.1.332, recorded): auto → manual →
    /// acceptEdits → plan → auto. Bypass permissions and don't-ask, which the cycle never
    /// reaches, go to auto.
    pub fn next(self) -> Mode {
        match self {
            Mode::Auto => Mode::Default,
            Mode::Default => Mode::AcceptEdits,
            Mode::AcceptEdits => Mode::Plan,
            Mode::Plan | Mode::BypassPermissions | Mode::DontAsk => Mode::Auto,
        }
    }

    /// The mode part of the footer.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Default => "⏸ manual mode on",
            Mode::Auto => "⏵⏵ auto mode on (shift+tab to cycle)",
            Mode::AcceptEdits => "⏵⏵ accept edits on (shift+tab to cycle)",
            Mode::Plan => "⏸ plan mode on (shift+tab to cycle)",
            Mode::BypassPermissions => "⏵⏵ bypass permissions on (shift+tab to cycle)",
            Mode::DontAsk => "⏵⏵ don't ask on (shift+tab to cycle)",
        }
    }
}

/// Everything one session needs.
#[derive(Debug)]
pub struct Session {
    /// Session id.
    pub id: String,
    /// Resolved locations.
    pub paths: Paths,
    /// `cwd` as reported.
    pub cwd: String,
    /// This session's transcript.
    pub transcript_path: PathBuf,
    /// The model.
    pub model: Model,
    /// The permission mode.
    pub mode: Mode,
    /// The release played (`UMBEL_SIM_VERSION`).
    pub release: super::release::Release,
    /// Configured hooks.
    pub hooks: Hooks,
    /// Virtual clock.
    pub clock: Clock,
    /// Id stream.
    pub ids: IdGen,
    /// The scenario and which turns are used up.
    pub script: Script,
    /// `UMBEL_SIM_RECORD_DIR` recorder.
    pub recorder: Option<Recorder>,
    /// True for the TUI, false for `-p`.
    pub interactive: bool,
    /// Branch name for transcripts.
    pub git_branch: String,
    /// The last prompt's id.
    pub last_prompt_id: Option<String>,
    /// The first error writing a file; the main loops stop on it.
    pub fatal: Option<String>,
    /// Opened with `--resume`/`--continue` (its `SessionStart` says `resume`).
    pub resumed: bool,
    pub(crate) parent: Option<String>,
    pub(crate) messages: u64,
    pub(crate) prompts: u64,
    pub(crate) header_written: bool,
    /// A fork's copied conversation not written yet, and the chain records held back with it
    /// (releases before [`super::release::Claude::ForkCopyFirst`]).
    pub(crate) late_copy: Option<LateCopy>,
}

/// What a fork of an older release writes with its first answer.
#[derive(Debug, Default)]
pub struct LateCopy {
    /// The copied conversation, lines as the transcript gets them.
    pub copy: String,
    /// The fork's own records written since, held until its first answer.
    pub held: Vec<String>,
}

/// The folder's most recently written transcript.
fn most_recent(dir: &std::path::Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// `--resume <id> --fork-session` / `--continue --fork-session`: the old session's records
/// (`from` empty: the folder's most recent session) under the new id, for the new transcript
/// `new` to start with.
fn fork(new: &std::path::Path, from: &str, id: &str) -> Result<String, String> {
    let dir = new.parent().ok_or("no project folder")?;
    let source = if from.is_empty() {
        most_recent(dir).ok_or("No conversation found to continue")?
    } else {
        dir.join(format!("{from}.jsonl"))
    };
    let old = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(&source)
        .map_err(|_| format!("No conversation found with session ID: {from}"))?;
    Ok(text.replace(&old, id))
}

/// The `uuid` of the last record of `text` that has one.
fn last_uuid(text: &str) -> Option<String> {
    text.lines().rev().find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        v.get("uuid")?.as_str().map(str::to_string)
    })
}

impl Session {
    /// Resolves paths, settings, scenario and session id.
    pub fn open(opts: &Options, scenario: Scenario, interactive: bool) -> Result<Session, String> {
        let paths = config::paths()?;
        let settings = config::load_settings(&paths.config_dir, opts.settings.as_deref())?;
        let mode_name = opts
            .permission_mode
            .clone()
            .or(settings.default_mode.clone())
            .unwrap_or_else(|| "default".into());
        let mode = Mode::parse(&mode_name).unwrap_or(Mode::Default);
        if opts.session_id.is_some() && opts.resume.is_some() && !opts.fork_session {
            return Err(
                "Error: --session-id with --continue or --resume also needs --fork-session.".into(),
            );
        }
        if let (Some(from), false) = (&opts.resume, opts.fork_session) {
            return Session::reopen(opts, scenario, interactive, paths, settings, mode, from);
        }
        let id = match &opts.session_id {
            Some(id) if ids::is_uuid(id) => id.clone(),
            Some(_) => return Err("Error: Invalid session ID. Must be a valid UUID.".into()),
            None => ids::derive_session_id(scenario.seed, &paths.config_dir).map_err(|e| {
                format!(
                    "cannot update {}: {e}",
                    paths.config_dir.join(ids::COUNTER_FILE).display()
                )
            })?,
        };
        let transcript_path = config::transcript_path(&paths.config_dir, &paths.cwd, &id);
        let copy = match &opts.resume {
            Some(from) => Some(fork(&transcript_path, from, &id)?),
            None => None,
        };
        let mut sess = Session::fresh(paths, id, scenario, interactive);
        if let Some(copy) = copy {
            sess.parent = last_uuid(&copy);
            if sess.release.has(super::release::Claude::ForkCopyFirst) {
                crate::jsonl::append_line(&transcript_path, copy.trim_end_matches('\n'))
                    .map_err(|e| format!("cannot write {}: {e}", transcript_path.display()))?;
            } else {
                sess.late_copy = Some(LateCopy {
                    copy,
                    held: Vec::new(),
                });
            }
        }
        sess.git_branch = config::git_branch(&sess.paths.cwd);
        sess.model = resolve_model(opts.model.as_deref());
        sess.hooks = settings.hooks;
        sess.recorder = Recorder::from_env();
        sess.mode = mode;
        Ok(sess)
    }

    /// `--resume <id>` / `--continue` without `--fork-session`, as claude 2.1.332 does it: the
    /// conversation goes on under its own id, appended to its own transcript (the chain of
    /// `parentUuid`s continued from its last record).
    fn reopen(
        opts: &Options,
        scenario: Scenario,
        interactive: bool,
        paths: Paths,
        settings: config::Settings,
        mode: Mode,
        from: &str,
    ) -> Result<Session, String> {
        let dir = config::transcript_path(&paths.config_dir, &paths.cwd, "x")
            .parent()
            .map(std::path::Path::to_path_buf)
            .ok_or("no project folder")?;
        let source = if from.is_empty() {
            most_recent(&dir).ok_or("No conversation found to continue")?
        } else {
            dir.join(format!("{from}.jsonl"))
        };
        let text = std::fs::read_to_string(&source)
            .map_err(|_| format!("No conversation found with session ID: {from}"))?;
        let id = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let lines = text.lines().count();
        let mut sess = Session::fresh(paths, id.clone(), scenario, interactive);
        // Fresh ids for the records to come: the stream is salted with how far the file got.
        sess.ids = IdGen::new(sess.script.scenario.seed, &format!("{id}+{lines}"));
        sess.parent = text.lines().rev().find_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v.get("uuid")?.as_str().map(str::to_string)
        });
        sess.prompts = text.matches("\"promptIndex\"").count() as u64;
        sess.messages = lines as u64;
        sess.header_written = true;
        sess.resumed = true;
        sess.git_branch = config::git_branch(&sess.paths.cwd);
        sess.model = resolve_model(opts.model.as_deref());
        sess.hooks = settings.hooks;
        sess.recorder = Recorder::from_env();
        sess.mode = mode;
        Ok(sess)
    }

    /// A session at its start: no hooks, no recorder, default mode and model.
    fn fresh(paths: Paths, id: String, scenario: Scenario, interactive: bool) -> Session {
        Session {
            transcript_path: config::transcript_path(&paths.config_dir, &paths.cwd, &id),
            ids: IdGen::new(scenario.seed, &id),
            clock: scenario.start_clock(),
            git_branch: "master".into(),
            script: Script::new(scenario),
            model: resolve_model(None),
            hooks: Hooks::default(),
            recorder: None,
            last_prompt_id: None,
            fatal: None,
            resumed: false,
            parent: None,
            messages: 0,
            prompts: 0,
            header_written: false,
            late_copy: None,
            interactive,
            mode: Mode::Default,
            release: super::release::current(),
            cwd: paths.cwd.to_string_lossy().into_owned(),
            paths,
            id,
        }
    }

    /// Starts a new session in place (after `/clear`): new id, new transcript.
    pub fn restart(&mut self) -> Result<(), String> {
        let seed = self.script.scenario.seed;
        let id = ids::derive_session_id(seed, &self.paths.config_dir).map_err(|e| e.to_string())?;
        self.transcript_path =
            config::transcript_path(&self.paths.config_dir, &self.paths.cwd, &id);
        self.ids = IdGen::new(seed, &id);
        self.id = id;
        (
            self.parent,
            self.messages,
            self.prompts,
            self.header_written,
        ) = (None, 0, 0, false);
        Ok(())
    }

    /// The environment hooks see on top of the fake's own.
    pub fn hook_env(&self) -> Vec<(String, String)> {
        let pairs = [
            ("CLAUDE_PROJECT_DIR", self.cwd.clone()),
            ("CLAUDECODE", "1".into()),
            ("CLAUDE_CODE_ENTRYPOINT", self.entrypoint().into()),
            ("CLAUDE_CODE_CHILD_SESSION", "1".into()),
            ("CLAUDE_CODE_SESSION_ID", self.id.clone()),
            (
                "CLAUDE_CODE_SESSION_ATTENDED",
                if self.interactive { "1" } else { "0" }.into(),
            ),
            ("CLAUDE_PID", std::process::id().to_string()),
            ("CLAUDE_EFFORT", "medium".into()),
            ("AI_AGENT", "claude-code_2-1-332_harness".into()),
        ];
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// `cli` for the TUI, `sdk-cli` for `-p` (as the real CLI reports).
    pub fn entrypoint(&self) -> &'static str {
        if self.interactive { "cli" } else { "sdk-cli" }
    }

    /// Runs the hooks for `event` (matcher tested against `target`) and waits for them.
    pub fn fire(&mut self, event: &str, target: Option<&str>, payload: &Obj) -> Vec<HookRun> {
        let runner = || Runner::new(self.paths.cwd.clone(), self.hook_env());
        self.hooks.fire(event, target, payload, runner)
    }

    /// Path of the live session registry file (`<config>/sessions/<pid>.json`).
    pub fn registry_path(&self) -> PathBuf {
        self.paths
            .config_dir
            .join("sessions")
            .join(format!("{}.json", std::process::id()))
    }

    /// Writes the registry file with `status` (`idle` or `busy`), like the real CLI.
    ///
    /// Written in place (no temp file renamed over it, no truncation to zero): on ext4 both of
    /// those force a flush of the file's data, which stalled the fake for seconds on a busy disk
    /// and made umbel's submit confirmation time out.
    pub fn registry(&self, status: &str) {
        use std::io::Write;
        let path = self.registry_path();
        let doc = crate::obj! {
            "pid" => u64::from(std::process::id()),
            "sessionId" => self.id.as_str(),
            "cwd" => self.cwd.as_str(),
            "kind" => "interactive",
            "entrypoint" => self.entrypoint(),
            "status" => status,
        };
        let line = doc.to_line();
        let _ = path.parent().map(std::fs::create_dir_all);
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .and_then(|mut f| {
                f.write_all(line.as_bytes())?;
                f.set_len(line.len() as u64)
            });
    }

    /// Removes the registry file (on exit).
    pub fn registry_remove(&self) {
        let _ = std::fs::remove_file(self.registry_path());
    }
}

#[cfg(test)]
impl Session {
    /// A session with fixed paths and id, touching no environment (unit tests).
    pub fn for_test(
        config_dir: &std::path::Path,
        id: &str,
        scenario: Scenario,
        interactive: bool,
    ) -> Session {
        let paths = Paths {
            config_dir: config_dir.to_path_buf(),
            claude_json: config_dir.join(".claude.json"),
            cwd: PathBuf::from("/tmp/probework/proj"),
        };
        Session::fresh(paths, id.to_string(), scenario, interactive)
    }
}

impl Host for Session {
    crate::host_parts!(|s, records| records.iter().for_each(|r| s.append(r)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_resolve_aliases_and_display_names() {
        assert_eq!(
            resolve_model(None),
            Model {
                id: "claude-opus-5-5".into(),
                display: "Opus 5.5".into()
            }
        );
        assert_eq!(resolve_model(Some("sonnet")).display, "Sonnet 5.5");
        assert_eq!(
            resolve_model(Some("claude-haiku-4-5-20251001")).display,
            "Haiku 4.5"
        );
        assert_eq!(resolve_model(Some("my-model")).display, "my-model");
    }

    #[test]
    fn manual_is_reported_as_default() {
        assert_eq!(Mode::parse("manual").map(Mode::hook_value), Some("default"));
        assert_eq!(
            Mode::parse("auto").map(Mode::label),
            Some("⏵⏵ auto mode on (shift+tab to cycle)")
        );
        assert_eq!(Mode::parse("nope"), None);
    }

    #[test]
    fn shift_tab_cycles_auto_manual_accept_edits_plan() {
        let mut seen = vec![Mode::Auto];
        for _ in 0..4 {
            seen.push(seen[seen.len() - 1].next());
        }
        let want = [
            Mode::Auto,
            Mode::Default,
            Mode::AcceptEdits,
            Mode::Plan,
            Mode::Auto,
        ];
        assert_eq!(seen, want);
        assert_eq!(Mode::BypassPermissions.next(), Mode::Auto);
        assert_eq!(Mode::DontAsk.next(), Mode::Auto);
    }
}
