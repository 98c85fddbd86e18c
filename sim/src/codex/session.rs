//! One codex thread: ids, paths, clock, hooks and rollout state, shared by
//! the TUI and `exec`.
//!
//! The thread id is UUIDv7-shaped like the real one: its first 48 bits are
//! the (virtual) creation time in ms, the rest is derived from the seed,
//! `CODEX_HOME` and the counter file there, so ids are deterministic.

use std::path::PathBuf;

use super::cli::Options;
use super::config::{self, Config};
use super::hookcfg::HookFile;
use crate::clock::Clock;
use crate::engine::host::{self, Host};
use crate::hooks::{HookRun, Hooks, Runner};
use crate::ids::{self, IdGen};
use crate::json::Obj;
use crate::obj;
use crate::record::Recorder;
use crate::scenario::{Scenario, Script};

/// The default model when none is configured.
pub const DEFAULT_MODEL: &str = "gpt-6.2-sol";

/// A model as reported (payloads, rollout) and shown (status line).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Its id.
    pub id: String,
    /// Its name on the status line (`GPT-6.2-Sol` for the default, as recorded).
    pub display: String,
}

/// `-m` wins over `-c model=…`, which wins over `config.toml`'s `model`.
pub fn resolve_model(cli: Option<&str>, overrides: Option<&str>, config: Option<&str>) -> Model {
    match cli.or(overrides).or(config) {
        Some(id) => Model {
            id: id.to_string(),
            display: id.to_string(),
        },
        None => Model {
            id: DEFAULT_MODEL.into(),
            display: "GPT-6.2-Sol".into(),
        },
    }
}

/// Token counts of one request, a turn or the thread.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

impl Usage {
    /// Adds another count.
    pub fn add(&mut self, other: Usage) {
        self.input += other.input;
        self.output += other.output;
    }

    /// The object the rollout and `exec --json` use.
    pub fn obj(self, with_total: bool) -> Obj {
        let mut o = obj! {
            "input_tokens" => self.input,
            "cached_input_tokens" => 0u64,
            "cache_write_input_tokens" => 0u64,
            "output_tokens" => self.output,
            "reasoning_output_tokens" => 0u64,
        };
        if with_total {
            o.set("total_tokens", self.input + self.output);
        }
        o
    }
}

pub use crate::ids::uuid7;

/// The virtual clock once the scenario's startup delay has passed.
fn start_clock(scenario: &Scenario) -> Clock {
    let mut clock = scenario.start_clock();
    clock.advance(scenario.startup.delay_ms);
    clock
}

/// Everything one thread needs.
#[derive(Debug)]
pub struct Session {
    /// Thread id (= session id).
    pub id: String,
    /// `CODEX_HOME`.
    pub home: PathBuf,
    /// The working directory, resolved.
    pub cwd_path: PathBuf,
    /// `cwd` as reported.
    pub cwd: String,
    /// `config.toml`.
    pub config: Config,
    /// `hooks.json`.
    pub hook_file: HookFile,
    /// The release played (`UMBEL_SIM_VERSION`).
    pub release: super::release::Release,
    /// The rollout file (created at the first prompt).
    pub rollout_path: PathBuf,
    /// The model.
    pub model: Model,
    /// `--dangerously-bypass-approvals-and-sandbox`.
    pub bypass_approvals: bool,
    /// `-a never` (the TUI; `exec` always): an escalation is rejected, never asked for.
    pub approval_never: bool,
    /// The hooks that run.
    pub hooks: Hooks,
    /// Virtual clock.
    pub clock: Clock,
    /// Creation time (virtual ms).
    pub created_ms: i64,
    /// Id stream.
    pub ids: IdGen,
    /// The scenario and which turns are used up.
    pub script: Script,
    /// `UMBEL_SIM_RECORD_DIR` recorder.
    pub recorder: Option<Recorder>,
    /// True for the TUI, false for `exec`.
    pub interactive: bool,
    /// `exec`: print `hook: <Event>` lines on stderr.
    pub hook_lines: bool,
    /// `exec --ephemeral`: write no rollout.
    pub ephemeral: bool,
    /// The first error writing a file; the main loops stop on it.
    pub fatal: Option<String>,
    /// The thread title (first line of the first prompt).
    pub title: Option<String>,
    /// True once the first prompt started the thread (SessionStart fired).
    pub started: bool,
    /// Opened by `codex resume`: the first prompt writes no `session_meta`.
    pub resumed: bool,
    /// Opened by `codex fork`: the thread forked from, its record count and byte length
    /// (named in the fork's `session_meta`).
    pub forked_from: Option<(String, u64, u64)>,
    pub(crate) ordinal: u64,
    pub(crate) history_seq: u64,
    pub(crate) sampled: u64,
    pub(crate) input_order: u64,
    pub(crate) thread_usage: Usage,
    pub(crate) last_usage: Usage,
}

impl Session {
    /// Resolves model and thread id (taking the next value of the counter file).
    pub fn open(
        opts: &Options,
        scenario: Scenario,
        ctx: (PathBuf, PathBuf, Config, HookFile),
        interactive: bool,
    ) -> Result<Session, String> {
        let (cwd_path, home, config, hook_file) = ctx;
        let overrides = super::cli::overrides(&opts.overrides)?;
        let override_model = overrides
            .iter()
            .rev()
            .find(|(k, _)| k == "model")
            .and_then(|(_, v)| v.as_str().map(str::to_string));
        let model = resolve_model(
            opts.model.as_deref(),
            override_model.as_deref(),
            config.model().as_deref(),
        );
        let n = ids::next_counter(&home).map_err(|e| {
            format!(
                "cannot update {}: {e}",
                home.join(ids::COUNTER_FILE).display()
            )
        })?;
        let created_ms = start_clock(&scenario).now_ms();
        let seed = scenario.seed;
        let h = ids::hash(&[
            b"codex-thread",
            &seed.to_le_bytes(),
            home.to_string_lossy().as_bytes(),
            &n.to_le_bytes(),
        ]);
        let id = uuid7(created_ms, ids::mix(h), ids::mix(h ^ 0x5555_5555_5555_5555));
        let sess = Session::build(
            id,
            home,
            cwd_path,
            config,
            hook_file,
            model,
            scenario,
            interactive,
        )
        .with_flags(opts);
        match &opts.thread {
            Some(thread) => sess.open_thread(thread),
            None => Ok(sess),
        }
    }

    /// `codex resume <id>`: the thread goes on under its own id, appended to its own rollout
    /// (no second `session_meta`), as 0.171.0 does. `codex fork <id>`: a new thread (this one's
    /// id) and rollout; as 0.171.0 does, the rollout does not copy the old one's records: its
    /// `session_meta` (written at the first prompt, its ordinal going on from the old thread's)
    /// names the old thread (`forked_from_id`, `history_base`), and the model gets its history.
    fn open_thread(mut self, thread: &super::cli::Thread) -> Result<Session, String> {
        let source = find_rollout(&self.home.join("sessions"), &thread.id)
            .ok_or_else(|| format!("No saved session found with ID {}.", thread.id))?;
        let text = std::fs::read_to_string(&source)
            .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
        let lines = text.lines().count() as u64;
        if thread.fork {
            self.forked_from = Some((thread.id.clone(), lines, text.len() as u64));
            self.ordinal = lines;
            self.history_seq = text.matches("\"history_sequence\"").count() as u64;
            return Ok(self);
        } else {
            self.ids = IdGen::new(self.script.scenario.seed, &format!("{}+{lines}", thread.id));
            self.id = thread.id.clone();
            self.rollout_path = source;
        }
        self.resumed = true;
        self.ordinal = lines;
        self.history_seq = text.matches("\"history_sequence\"").count() as u64;
        Ok(self)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn build(
        id: String,
        home: PathBuf,
        cwd_path: PathBuf,
        config: Config,
        hook_file: HookFile,
        model: Model,
        scenario: Scenario,
        interactive: bool,
    ) -> Session {
        let clock = start_clock(&scenario);
        Session {
            rollout_path: config::rollout_path(&home, &clock.iso(), &id),
            ids: IdGen::new(scenario.seed, &id),
            created_ms: clock.now_ms(),
            cwd: cwd_path.to_string_lossy().into_owned(),
            script: Script::new(scenario),
            hooks: Hooks::default(),
            recorder: Recorder::from_env(),
            bypass_approvals: false,
            approval_never: false,
            hook_lines: false,
            ephemeral: false,
            fatal: None,
            title: None,
            started: false,
            resumed: false,
            forked_from: None,
            ordinal: 0,
            history_seq: 0,
            sampled: 0,
            input_order: 0,
            thread_usage: Usage::default(),
            last_usage: Usage::default(),
            clock,
            interactive,
            release: super::release::current(),
            model,
            hook_file,
            config,
            cwd_path,
            home,
            id,
        }
    }

    fn with_flags(mut self, opts: &Options) -> Session {
        self.bypass_approvals = opts.bypass_approvals;
        self.approval_never = opts.approval_never;
        self.ephemeral = opts.ephemeral;
        self.hook_lines = opts.exec;
        self
    }

    /// `default`, or `bypassPermissions` with the bypass flag.
    pub fn permission_mode(&self) -> &'static str {
        if self.bypass_approvals {
            "bypassPermissions"
        } else {
            "default"
        }
    }

    /// `on-request` (TUI) or `never` (`exec`, bypass).
    pub fn approval_policy(&self) -> &'static str {
        if self.bypass_approvals || self.approval_never || !self.interactive {
            "never"
        } else {
            "on-request"
        }
    }

    /// `workspace-write` or `danger-full-access` (bypass).
    pub fn sandbox_mode(&self) -> &'static str {
        if self.bypass_approvals {
            "danger-full-access"
        } else {
            "workspace-write"
        }
    }

    /// A fresh UUIDv7 at the current virtual time.
    pub fn uuid7(&mut self) -> String {
        let (a, b) = (self.rand64(), self.rand64());
        uuid7(self.clock.now_ms(), a, b)
    }

    /// 64 derived bits.
    pub fn rand64(&mut self) -> u64 {
        u64::from_str_radix(&self.ids.hex(16), 16).unwrap_or(0)
    }

    /// Runs the hooks for `event` (matcher tested against `target`) and waits.
    pub fn fire(&mut self, event: &str, target: Option<&str>, payload: &Obj) -> Vec<HookRun> {
        let lines = self.hook_lines;
        let runner = || {
            if lines {
                eprintln!("hook: {event}");
            }
            Runner {
                cwd: self.cwd_path.clone(),
                env: Vec::new(),
            }
        };
        let runs = self.hooks.fire(event, target, payload, runner);
        if lines && !runs.is_empty() {
            eprintln!("hook: {event} Completed");
        }
        runs
    }

    /// A stamped rollout line: `{timestamp, ordinal, type, payload[, metadata]}`.
    pub fn rec(&mut self, kind: &str, payload: Obj, metadata: Option<Obj>) -> Obj {
        let mut o = obj! {
            "timestamp" => self.clock.stamp(),
            "ordinal" => self.ordinal,
            "type" => kind,
            "payload" => payload,
        };
        if let Some(m) = metadata {
            o.set("metadata", m);
        }
        self.ordinal += 1;
        o
    }

    /// Appends records to the rollout (one write per line); the first failure is kept.
    pub fn append(&mut self, records: &[Obj]) {
        if self.ephemeral {
            return;
        }
        for r in records {
            if !host::append(&self.rollout_path, r, &mut self.fatal) {
                return;
            }
        }
    }

    /// The first prompt starts the thread: `session_meta`, then `SessionStart`.
    pub fn begin(&mut self, prompt: &str) {
        if self.started {
            return;
        }
        self.started = true;
        self.title = Some(
            prompt
                .split(['\n', '\r'])
                .next()
                .unwrap_or_default()
                .to_string(),
        );
        if self.resumed {
            let payload = self.payload_session_start().with("source", "resume");
            self.fire("SessionStart", Some("resume"), &payload);
            return;
        }
        let meta = self.rec_session_meta();
        self.append(&[meta]);
        let source = if self.forked_from.is_some() {
            "fork"
        } else {
            "startup"
        };
        let payload = self.payload_session_start().with("source", source);
        self.fire("SessionStart", Some(source), &payload);
    }
}

/// The rollout of thread `id` under `CODEX_HOME/sessions` (`YYYY/MM/DD/rollout-…-<id>.jsonl`).
fn find_rollout(dir: &std::path::Path, id: &str) -> Option<PathBuf> {
    let suffix = format!("-{id}.jsonl");
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_rollout(&path, id) {
                return Some(found);
            }
        } else if path.to_string_lossy().ends_with(&suffix) {
            return Some(path);
        }
    }
    None
}

impl Host for Session {
    crate::host_parts!(|s, records| s.append(records));
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
