//! One copilot session: who it is, its hooks, clock, ids and session log, shared by the TUI
//! and `-p`.
//!
//! The id is `--session-id` (a session of that id goes on; a new UUID starts one, its folder
//! made at launch), `--resume[=<id>]` / `--continue` (an existing session goes on, its log
//! appended to), or derived from the seed and a counter in `COPILOT_HOME` (its folder made with
//! the first prompt). A new session's log starts with `session.start` and
//! `session.model_change`; one that goes on gets `session.resume` (not recorded).

use std::path::PathBuf;

use super::cli::{Options, Resume};
use super::home::{self, Auth, Git};
use super::log::{Log, draft};
use super::payloads::{self, Ctx, Hook};
use super::records::{self, Totals, Who};
use crate::clock::{Clock, iso};
use crate::engine::host::Host;
use crate::hooks::{Hooks, Runner};
use crate::ids::{self, IdGen};
use crate::json::Obj;
use crate::obj;
use crate::record::Recorder;
use crate::scenario::{Scenario, Script};

/// How long after a hook's own time the fake stamps its `hook.start` record.
const RECORD_LAG_MS: i64 = 1;

/// Everything one session needs.
#[derive(Debug)]
pub struct Session {
    /// Who writes (id, cwd, model, release, home).
    pub who: Who,
    /// How it signed in.
    pub auth: Auth,
    /// The repository around the working directory.
    pub git: Option<Git>,
    /// Configured hooks (Claude's format).
    pub hooks: Hooks,
    /// Virtual clock.
    pub clock: Clock,
    /// Id stream.
    pub ids: IdGen,
    /// The scenario and which turns are used up.
    pub script: Script,
    /// `UMBEL_SIM_RECORD_DIR` recorder.
    pub recorder: Option<Recorder>,
    /// The first error writing a file.
    pub fatal: Option<String>,
    /// `session-state/<id>/events.jsonl`.
    pub log: Log,
    /// It goes on from an earlier run (`SessionStart` says `resume`).
    pub resumed: bool,
    /// `SessionStart` fired (at the first prompt).
    pub started: bool,
    /// The system prompt is in the log.
    pub system_sent: bool,
    /// Tools run without asking (`--allow-all-tools`, `--allow-all`, `--yolo`).
    pub allow_all: bool,
    /// The `--deny-tool` kinds: a tool of one is refused without asking.
    pub denied: Vec<String>,
    /// When `allow_all` and `denied` are in force: the TUI applies them once its session is
    /// made (`permissions.configure` in an effect, recorded in 1.0.102's source: up to 5 s
    /// after the input line shows), played as the scenario's `configure_ms` after the start;
    /// `-p` at once.
    pub rules_from: std::time::Instant,
    /// `permissionRequest` hooks in copilot's own shape, whose output decides a tool.
    pub decisions: Vec<crate::hooks::HookCommand>,
    /// The TUI (not `-p`).
    pub interactive: bool,
    /// Tokens and calls so far.
    pub totals: Totals,
    /// When it started (epoch ms, virtual).
    pub start_ms: i64,
}

/// The session's id, and whether it goes on from an earlier run.
fn pick_id(opts: &Options, home: &std::path::Path, seed: u64) -> Result<(String, bool), String> {
    match (&opts.resume, &opts.session_id) {
        (Some(Resume::Id(id)), _) => home::find_session(home, id)
            .map(|id| (id, true))
            .ok_or_else(|| format!("Error: No session found with ID: {id}")),
        (Some(Resume::Latest), _) => home::latest_session(home)
            .map(|id| (id, true))
            .ok_or_else(|| "Error: No previous session found to resume".to_string()),
        (None, Some(id)) if home::events_path(home, id).is_file() => Ok((id.clone(), true)),
        (None, Some(id)) if ids::is_uuid(id) => Ok((id.clone(), false)),
        (None, Some(id)) => Err(format!("Error: Invalid session ID: {id}")),
        (None, None) => ids::derive_session_id(seed, home)
            .map(|id| (id, false))
            .map_err(|e| {
                format!(
                    "cannot update {}: {e}",
                    home.join(ids::COUNTER_FILE).display()
                )
            }),
    }
}

/// The last event's time in a log, epoch ms.
fn last_time(log: &Log) -> Option<i64> {
    let text = std::fs::read_to_string(&log.path).ok()?;
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let v: serde_json::Value = serde_json::from_str(last).ok()?;
    Clock::parse(v.get("timestamp")?.as_str()?)
        .ok()
        .map(|c| c.now_ms())
}

impl Session {
    /// Resolves home, hooks, model, sign-in and the session (new, or going on).
    pub fn open(opts: &Options, scenario: Scenario, interactive: bool) -> Result<Session, String> {
        let cwd = home::cwd()?;
        let home = home::home(&cwd)?;
        let auth = Auth::from_env();
        let (id, resumed) = pick_id(opts, &home, scenario.seed)?;
        let who = Who {
            model: home::model(opts.model.as_deref(), &home, auth),
            cwd: cwd.to_string_lossy().into_owned(),
            byok: auth.byok,
            release: super::release::current(),
            home: home.clone(),
            id: id.clone(),
        };
        let path = home::events_path(&home, &id);
        let log = match resumed {
            true => Log::reopen(path)?,
            false => Log::new(path, opts.session_id.is_none()),
        };
        let configure = std::time::Duration::from_millis(match interactive {
            true => scenario.startup.configure_ms,
            false => 0,
        });
        let mut sess = Session::fresh(who, scenario, log, interactive);
        sess.rules_from += configure;
        sess.auth = auth;
        sess.git = home::git(&cwd);
        let hook_docs = home::hook_docs(&home);
        sess.hooks = home::hooks(&hook_docs);
        sess.recorder = Recorder::from_env();
        sess.allow_all = opts.allow_all;
        sess.denied = opts.denied.clone();
        sess.decisions = home::decision_hooks(&hook_docs);
        sess.resumed = resumed;
        sess.begin();
        Ok(sess)
    }

    /// A session with nothing configured yet (no hooks, no recorder, not signed in).
    pub fn fresh(who: Who, scenario: Scenario, log: Log, interactive: bool) -> Session {
        let salt = match log.count {
            0 => who.id.clone(),
            n => format!("{}+{n}", who.id),
        };
        let mut clock = scenario.start_clock();
        if let Some(last) = last_time(&log).filter(|t| *t >= clock.now_ms()) {
            clock = Clock::at_ms(last + 1000);
        }
        Session {
            ids: IdGen::new(scenario.seed, &salt),
            start_ms: clock.now_ms(),
            clock,
            script: Script::new(scenario),
            auth: Auth {
                byok: false,
                token: false,
            },
            git: None,
            hooks: Hooks::default(),
            recorder: None,
            fatal: None,
            log,
            resumed: false,
            started: false,
            system_sent: false,
            allow_all: false,
            denied: Vec::new(),
            rules_from: std::time::Instant::now(),
            decisions: Vec::new(),
            interactive,
            totals: Totals::default(),
            who,
        }
    }

    /// The log's first events: `session.start` and `session.model_change`, or `session.resume`.
    pub fn begin(&mut self) {
        if self.resumed {
            let data = records::session_resume(&self.clock.iso(), self.log.count);
            self.record("session.resume", data);
            return;
        }
        let start = self.clock.iso();
        let data = records::session_start(&self.who, &start, self.git.as_ref());
        self.record("session.start", data);
        let data = records::model_change(&self.who);
        self.record("session.model_change", data);
    }

    /// Writes an event now.
    pub fn record(&mut self, kind: &str, data: Obj) {
        let event = self.draft(kind, data);
        self.log.write(&mut self.ids, &event, &mut self.fatal);
    }

    /// An event stamped now, to write later.
    pub fn draft(&mut self, kind: &str, data: Obj) -> Obj {
        draft(kind, data, self.clock.stamp())
    }

    /// An ephemeral event (`-p --output-format json` prints it).
    pub fn ephemeral(&mut self, kind: &str, data: Obj) {
        let at = self.clock.iso();
        self.log.ephemeral(&mut self.ids, kind, data, at);
    }

    /// A new id.
    pub fn uuid(&mut self) -> String {
        self.ids.uuid()
    }

    /// What a payload made now names (the clock moves on 1 ms).
    pub fn ctx(&mut self) -> Ctx<'_> {
        let at = self.clock.now_ms();
        self.clock.advance(1);
        Ctx {
            session: &self.who.id,
            cwd: &self.who.cwd,
            at,
        }
    }

    /// The session log's path, as `Stop` names it.
    pub fn transcript(&self) -> String {
        self.log.path.to_string_lossy().into_owned()
    }

    /// Runs the commands `hook` matches (payload on stdin, cwd the session's) and waits for
    /// them; the session log gets `hook.start` (copilot's input, with the payload's time) and
    /// `hook.end`. Nothing is written when no command matches.
    pub fn fire(&mut self, hook: Hook) {
        let tool = hook.tool.as_ref();
        let commands = self
            .hooks
            .matching_by(hook.event, |m| payloads::takes(m, tool));
        if commands.is_empty() {
            return;
        }
        let invocation = self.uuid();
        let start = obj! { "hookInvocationId" => invocation.as_str(), "hookType" => hook.kind, "input" => hook.input };
        // Stamped as it is written, a millisecond past the hook's own time (the real one is 0
        // or 1 ms past): the payload's time is the input's, not the record's.
        let event = draft("hook.start", start, iso(hook.at + RECORD_LAG_MS));
        self.log.write(&mut self.ids, &event, &mut self.fatal);
        let runner = Runner::new(PathBuf::from(&self.who.cwd), Vec::new());
        let runs = runner.run(&commands, &hook.payload.to_line());
        let success = runs.iter().all(|r| r.status == Some(0));
        let end = obj! { "hookInvocationId" => invocation.as_str(), "hookType" => hook.kind, "success" => success };
        self.record("hook.end", end);
    }

    /// The first prompt starts the session: its folder is made and `SessionStart` fires.
    pub fn start(&mut self, prompt: &str) {
        if self.started {
            return;
        }
        self.started = true;
        self.log.open(&mut self.fatal);
        let source = if self.resumed { "resume" } else { "new" };
        let hook = payloads::session_start(&self.ctx(), source, prompt);
        self.fire(hook);
    }

    /// Fires `Stop`.
    pub fn stop(&mut self) {
        let transcript = self.transcript();
        let hook = payloads::stop(&self.ctx(), &transcript);
        self.fire(hook);
    }

    /// The session ends: `SessionEnd` (once it started) and `session.shutdown`.
    pub fn end(&mut self, reason: &str) {
        if !self.started {
            return;
        }
        let hook = payloads::session_end(&self.ctx(), reason);
        self.fire(hook);
        let data = records::shutdown(&self.who, &self.totals, self.start_ms, self.log.size());
        self.record("session.shutdown", data);
    }
}

impl Host for Session {
    crate::host_parts!(|s, drafts| {
        for d in drafts {
            s.log.write(&mut s.ids, d, &mut s.fatal);
        }
    });
}
