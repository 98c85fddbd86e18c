//! One Gemini session: ids, paths, clock, hooks, chat state and stats,
//! shared by the TUI and headless mode.

use std::path::PathBuf;

use super::cli::{ApprovalMode, Options};
use super::flavor;
use super::home::{self, Paths, Settings};
use crate::clock::Clock;
use crate::engine::host::Host;
use crate::hooks::{HookRun, Hooks, Runner};
use crate::ids::{self, IdGen};
use crate::json::Obj;
use crate::record::Recorder;
use crate::scenario::{Scenario, Script};

/// The model the router picks when none is chosen (what chat records report).
pub const AUTO_MODEL: &str = "gemini-3.8-flash";

/// The model qwen uses when none is chosen.
pub const QWEN_DEFAULT_MODEL: &str = "qwen3-coder-plus";

/// A model as the CLI shows and reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// As requested (`auto` or a name): `init.model` of stream-json.
    pub requested: String,
    /// The footer's `/model` column (`Auto` or the name).
    pub label: String,
    /// The model that answers (chat records, stats).
    pub name: String,
    /// True when the router picks (stats then have a `utility_router` role).
    pub auto: bool,
}

/// `-m`, else `GEMINI_MODEL`, else settings `model.name`, else auto.
pub fn resolve_model(arg: Option<&str>, env: Option<&str>, settings: Option<&str>) -> Model {
    let requested = [arg, env, settings]
        .into_iter()
        .flatten()
        .find(|m| !m.trim().is_empty())
        .unwrap_or("auto")
        .to_string();
    if requested == "auto" && flavor::qwen() {
        // qwen has no router: its default model answers.
        return Model {
            requested: QWEN_DEFAULT_MODEL.into(),
            label: QWEN_DEFAULT_MODEL.into(),
            name: QWEN_DEFAULT_MODEL.into(),
            auto: false,
        };
    }
    if requested == "auto" {
        return Model {
            requested,
            label: "Auto".into(),
            name: AUTO_MODEL.into(),
            auto: true,
        };
    }
    Model {
        label: requested.clone(),
        name: requested.clone(),
        requested,
        auto: false,
    }
}

/// Counters for `-o json` stats and the `/quit` summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Model requests (main role).
    pub requests: u64,
    /// Input tokens (main role).
    pub input: u64,
    /// Output tokens (main role).
    pub output: u64,
    /// Tool calls, and how many succeeded.
    pub tool_calls: u64,
    /// Successful tool calls.
    pub tool_ok: u64,
    /// Tool calls the user approved in the dialog.
    pub accepted: u64,
    /// Tool calls the user refused.
    pub rejected: u64,
    /// Tool calls run without asking (yolo).
    pub auto_accepted: u64,
    /// Virtual time spent in turns.
    pub active_ms: u64,
    /// Per tool name: calls that succeeded and that failed or were refused.
    pub by_name: Vec<(String, u64, u64)>,
}

impl Stats {
    /// Counts one finished tool call.
    pub fn tool_done(&mut self, name: &str, ok: bool) {
        self.tool_calls += 1;
        self.tool_ok += u64::from(ok);
        match self.by_name.iter_mut().find(|(n, ..)| n == name) {
            Some(entry) if ok => entry.1 += 1,
            Some(entry) => entry.2 += 1,
            None => self
                .by_name
                .push((name.to_string(), u64::from(ok), u64::from(!ok))),
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
    /// The project's short name (`projects.json`).
    pub project: String,
    /// This session's chat file.
    pub chat_path: PathBuf,
    /// The model.
    pub model: Model,
    /// The effective approval mode (untrusted folders force `default`); Shift+Tab cycles it.
    pub mode: ApprovalMode,
    /// True when the folder is trusted (or trust was skipped).
    pub trusted: bool,
    /// Configured hooks.
    pub hooks: Hooks,
    /// Tools not offered to the model (`tools.exclude`; `-p` adds what needs approval).
    pub excluded_tools: Vec<String>,
    /// Hook names by command line.
    pub hook_names: Vec<(String, String, String)>,
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
    /// The first error writing a file; the main loops stop on it.
    pub fatal: Option<String>,
    /// The curated history (API form) of completed turns, for `$set` rewrites.
    pub history: Vec<Obj>,
    /// Opened with `--resume`: its chat file goes on (no second header).
    pub resumed: bool,
    /// Virtual start time (ms).
    pub start_ms: i64,
    /// Counters.
    pub stats: Stats,
    /// What playing Qwen Code keeps between records and hooks ([`crate::qwen`]).
    pub qwen: crate::qwen::records::State,
}

impl Session {
    /// Resolves the project name, model, session id and chat path.
    pub fn open(
        opts: &Options,
        scenario: Scenario,
        paths: Paths,
        settings: Settings,
        trusted: bool,
        interactive: bool,
    ) -> Result<Session, String> {
        let project = home::project_name(&paths)?;
        let resumed = match &opts.resume {
            Some(wanted) => Some(find_chat(&paths, &project, wanted)?),
            None => None,
        };
        let id = match (&opts.session_id, &resumed) {
            (_, Some((id, _))) => id.clone(),
            (Some(id), None) => id.clone(),
            (None, None) => ids::derive_session_id(scenario.seed, &paths.dir).map_err(|e| {
                format!(
                    "cannot update {}: {e}",
                    paths.dir.join(ids::COUNTER_FILE).display()
                )
            })?,
        };
        let env_model = std::env::var(match flavor::qwen() {
            true => "OPENAI_MODEL",
            false => "GEMINI_MODEL",
        })
        .ok();
        let model = resolve_model(
            opts.model.as_deref(),
            env_model.as_deref(),
            settings.model.as_deref(),
        );
        let mode = if trusted {
            opts.approval_mode
        } else {
            ApprovalMode::Default
        };
        let clock = scenario.start_clock();
        let (chat, salt) = match resumed {
            Some((_, (path, lines))) => (path, format!("{id}+{lines}")),
            None => (chat_path(&paths, &project, &clock, &id), id.clone()),
        };
        Ok(Session {
            chat_path: chat,
            resumed: opts.resume.is_some(),
            cwd: paths.cwd.to_string_lossy().into_owned(),
            ids: IdGen::new(scenario.seed, &salt),
            start_ms: clock.now_ms(),
            script: Script::new(scenario),
            hooks: settings.hooks,
            excluded_tools: settings.excluded_tools,
            hook_names: settings.hook_names,
            recorder: Recorder::from_env(),
            fatal: None,
            history: Vec::new(),
            stats: Stats::default(),
            qwen: Default::default(),
            clock,
            model,
            mode,
            trusted,
            interactive,
            project,
            paths,
            id,
        })
    }

    /// Moves the clock past the startup delay, before anything is written.
    pub fn skip_startup(&mut self, ms: u64) {
        self.clock.advance(ms);
        self.start_ms = self.clock.now_ms();
        self.chat_path = chat_path(&self.paths, &self.project, &self.clock, &self.id);
    }

    /// The environment hooks see on top of the fake's own.
    pub fn hook_env(&self) -> Vec<(String, String)> {
        let plans = self
            .paths
            .dir
            .join("tmp")
            .join(&self.project)
            .join(&self.id)
            .join("plans");
        [
            ("GEMINI_SESSION_ID", self.id.clone()),
            ("GEMINI_PROJECT_DIR", self.cwd.clone()),
            ("GEMINI_CWD", self.cwd.clone()),
            ("GEMINI_PLANS_DIR", plans.to_string_lossy().into_owned()),
            ("CLAUDE_PROJECT_DIR", self.cwd.clone()),
            ("GEMINI_CLI_NO_RELAUNCH", "true".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The name shown as `Executing Hook: <name>` for the first hook `event`
    /// would run (its `name`, else its command), if any.
    pub fn hook_label(&self, event: &str, target: Option<&str>) -> Option<String> {
        let (event, target) = match flavor::qwen() {
            true => (crate::qwen::hooks::name(event), None),
            false => (event, target),
        };
        let first = self.hooks.matching(event, target).into_iter().next()?;
        let name = self
            .hook_names
            .iter()
            .find(|(e, c, _)| e == event && *c == first.command)
            .map(|(.., n)| n.clone());
        Some(name.unwrap_or(first.command))
    }

    /// Runs the hooks for `event` (matcher tested against `target`) and waits for them.
    pub fn fire(&mut self, event: &str, target: Option<&str>, payload: &Obj) -> Vec<HookRun> {
        if flavor::qwen() {
            let mode = crate::qwen::modes::name(self.mode);
            let fired =
                crate::qwen::hooks::translate(&mut self.qwen_ctx(), mode, event, target, payload);
            let runs = fired
                .iter()
                .map(|(e, t, p)| self.fire_as_is(e, t.as_deref(), p));
            return runs.collect::<Vec<_>>().concat();
        }
        self.fire_as_is(event, target, payload)
    }

    /// What playing qwen translates records and hooks with.
    pub fn qwen_ctx(&mut self) -> crate::qwen::records::Ctx<'_> {
        crate::qwen::records::Ctx {
            session: &self.id,
            cwd: &self.cwd,
            model: &self.model.name,
            version: super::release::current().to_string(),
            ids: &mut self.ids,
            state: &mut self.qwen,
        }
    }

    /// Runs the hooks for `event` with `payload` as given.
    fn fire_as_is(&mut self, event: &str, target: Option<&str>, payload: &Obj) -> Vec<HookRun> {
        let runner = || Runner::new(self.paths.cwd.clone(), self.hook_env());
        self.hooks.fire(event, target, payload, runner)
    }

    /// Virtual milliseconds since the session started.
    pub fn elapsed_ms(&self) -> u64 {
        (self.clock.now_ms() - self.start_ms).max(0) as u64
    }
}

impl Host for Session {
    crate::host_parts!(|s, records| records.iter().for_each(|r| s.append(r)));
}

/// `<home>/.gemini/tmp/<project>/chats/session-<YYYY-MM-DD>T<HH-MM>-<id8>.jsonl`.
/// The chat file of session `wanted` in the project's `chats/` folder (its header names the
/// id) and its line count, or gemini 0.61.0's refusal.
fn find_chat(
    paths: &Paths,
    project: &str,
    wanted: &str,
) -> Result<(String, (PathBuf, usize)), String> {
    if flavor::qwen() {
        let path = crate::qwen::data::chat_path(&paths.dir, &paths.cwd, wanted);
        let lines = std::fs::read_to_string(&path).map(|t| t.lines().count());
        return match lines {
            Ok(lines) => Ok((wanted.to_string(), (path, lines))),
            Err(_) => Err(format!("No saved session found with ID {wanted}.")),
        };
    }
    let dir = paths.dir.join("tmp").join(project).join("chats");
    let found = std::fs::read_dir(&dir)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .find_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            let first = text.lines().next()?;
            first
                .contains(&format!("\"sessionId\":\"{wanted}\""))
                .then(|| (e.path(), text.lines().count()))
        });
    match found {
        Some(found) => Ok((wanted.to_string(), found)),
        None => Err(format!(
            "Error resuming session: Invalid session identifier \"{wanted}\"."
        )),
    }
}

pub fn chat_path(paths: &Paths, project: &str, clock: &Clock, id: &str) -> PathBuf {
    if flavor::qwen() {
        return crate::qwen::data::chat_path(&paths.dir, &paths.cwd, id);
    }
    let stamp = clock.iso();
    let minute = stamp.get(..16).unwrap_or(&stamp).replace(':', "-");
    let id8: String = id.chars().take(8).collect();
    paths
        .dir
        .join("tmp")
        .join(project)
        .join("chats")
        .join(format!("session-{minute}-{id8}.jsonl"))
}

#[cfg(test)]
impl Session {
    /// A session with fixed paths and id, touching no environment (unit tests).
    pub fn for_test(
        root: &std::path::Path,
        id: &str,
        scenario: Scenario,
        interactive: bool,
    ) -> Session {
        let cwd = PathBuf::from("/tmp/probework/proj");
        let paths = Paths {
            home: root.to_path_buf(),
            dir: root.join(".gemini"),
            cwd: cwd.clone(),
        };
        let clock = scenario.start_clock();
        Session {
            chat_path: chat_path(&paths, "proj", &clock, id),
            cwd: cwd.to_string_lossy().into_owned(),
            project: "proj".into(),
            model: resolve_model(None, None, None),
            mode: ApprovalMode::Default,
            trusted: true,
            hooks: Hooks::default(),
            excluded_tools: Vec::new(),
            hook_names: Vec::new(),
            ids: IdGen::new(scenario.seed, id),
            start_ms: clock.now_ms(),
            script: Script::new(scenario),
            recorder: None,
            fatal: None,
            history: Vec::new(),
            resumed: false,
            stats: Stats::default(),
            qwen: Default::default(),
            clock,
            interactive,
            paths,
            id: id.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_resolve_auto_and_names() {
        let m = resolve_model(None, None, None);
        assert_eq!(
            (m.label.as_str(), m.name.as_str(), m.auto),
            ("Auto", AUTO_MODEL, true)
        );
        assert_eq!(m.requested, "auto");
        let m = resolve_model(Some("gemini-x"), Some("env-model"), None);
        assert_eq!(
            (m.label.as_str(), m.name.as_str(), m.auto),
            ("gemini-x", "gemini-x", false)
        );
        assert_eq!(
            resolve_model(None, Some("env-model"), Some("s")).name,
            "env-model"
        );
        assert_eq!(resolve_model(None, None, Some("s")).name, "s");
    }

    #[test]
    fn hook_labels_use_the_name_of_the_event_s_own_entry() {
        let settings = serde_json::json!({"hooks": {
            "AfterAgent": [{"hooks": [{"name": "after", "command": "same.sh"}]}],
            "BeforeAgent": [{"hooks": [{"name": "before", "command": "same.sh"}]}],
            "SessionEnd": [{"hooks": [{"command": "plain.sh"}]}]}});
        let mut s = Session::for_test(std::path::Path::new("/h"), "x", Scenario::default(), true);
        s.hooks = Hooks::from_settings(
            &settings,
            crate::hooks::TimeoutUnit::Millis,
            std::time::Duration::from_secs(1),
        )
        .unwrap();
        s.hook_names = vec![
            ("AfterAgent".into(), "same.sh".into(), "after".into()),
            ("BeforeAgent".into(), "same.sh".into(), "before".into()),
        ];
        assert_eq!(s.hook_label("BeforeAgent", None).as_deref(), Some("before"));
        assert_eq!(s.hook_label("AfterAgent", None).as_deref(), Some("after"));
        assert_eq!(
            s.hook_label("SessionEnd", None).as_deref(),
            Some("plain.sh")
        );
        assert_eq!(s.hook_label("BeforeTool", Some("x")), None);
    }

    #[test]
    fn the_chat_file_is_named_like_the_real_one() {
        let root = std::path::Path::new("/h");
        let s = Session::for_test(
            root,
            "ad4e62a5-114c-4e13-a125-f47c5ca0904d",
            Scenario::default(),
            true,
        );
        assert_eq!(
            s.chat_path,
            PathBuf::from("/h/.gemini/tmp/proj/chats/session-2026-12-02T19-52-ad4e62a5.jsonl")
        );
    }
}
