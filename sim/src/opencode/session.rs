//! One opencode process's session: the bus it publishes on (heard by umbel's plugin,
//! [`super::plugin`]), its ids and virtual clock, the permission rules it was given, and the
//! session store that `--session` and `--continue` reopen.
//!
//! The TUI makes its session when the first prompt is submitted (`session.created`, umbel's
//! `SessionCreated`); a resumed one exists already. The store keeps each session's info in
//! `$XDG_DATA_HOME/opencode/storage/session/<id>.json` (else `~/.local/share/opencode/…`), and
//! its finished exchanges beside it, so a reopened session shows its conversation.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::agent::Agent;
use super::bus::{self, Ids, Who};
use super::plugin::{self, Effect, Plugin, Umbel};
use crate::clock::Clock;
use crate::json::Obj;
use crate::record::Recorder;
use crate::scenario::{Scenario, Script};

/// What opencode's permission rules say of a tool call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Ask the person (the dialog in the input box's place).
    Ask,
    /// Run it.
    Allow,
    /// Refuse it.
    Deny,
}

/// One finished exchange, as the session view shows it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Exchange {
    /// The prompt.
    pub prompt: String,
    /// What the turn showed: text blocks and `$ command` lines.
    pub shown: Vec<String>,
    /// The footer (`Build · <model> · 1.2s`, or the error).
    pub footer: String,
}

/// The session.
pub struct Session {
    /// The virtual clock.
    pub clock: Clock,
    /// opencode's ids.
    pub ids: Ids,
    /// The session's id, folder and model.
    pub who: Who,
    /// True once the session exists (made, or reopened).
    pub created: bool,
    /// The turns to play.
    pub script: Script,
    /// The `permission` config.
    permission: Value,
    /// False when the config sets `experimental.disable_paste_summary`: a long paste goes into
    /// the input as typed, not behind a `[Pasted ~N lines]` placeholder.
    pub paste_summary: bool,
    /// umbel's plugins and their state.
    plugins: Vec<(Umbel, Plugin)>,
    /// How their hooks reach umbel (late, `hook_lag_ms`).
    delivery: plugin::Delivery,
    /// The first write error.
    pub fatal: Option<String>,
    recorder: Option<Recorder>,
    /// Finished exchanges (shown in the session view).
    pub history: Vec<Exchange>,
    /// Every event published, for `run --format json` (when collecting).
    pub published: Option<Vec<(i64, Value)>>,
    /// Where the session's exchanges are kept (`--session` reopens them).
    store: Option<PathBuf>,
    /// What "Allow always" allowed, until the process ends: (permission, pattern).
    allowed: Vec<(String, String)>,
}

/// The model of `-m provider/model` (opencode's default: Claude Sonnet 4.5).
pub fn model_of(flag: Option<&str>) -> (String, String) {
    match flag.and_then(|m| m.split_once('/')) {
        Some((provider, model)) => (provider.to_string(), model.to_string()),
        None => ("anthropic".to_string(), "claude-sonnet-4-5".to_string()),
    }
}

/// The model as the TUI names it (`Claude Sonnet 4.5 (latest)`, `Anthropic`).
pub fn model_label(model: &(String, String)) -> (String, String) {
    match (model.0.as_str(), model.1.as_str()) {
        ("anthropic", "claude-sonnet-4-5") => {
            ("Claude Sonnet 4.5 (latest)".into(), "Anthropic".into())
        }
        (provider, id) => {
            let mut name = provider.chars();
            let first = name.next().map(|c| c.to_uppercase().collect::<String>());
            (id.to_string(), first.unwrap_or_default() + name.as_str())
        }
    }
}

impl Session {
    /// A session in the working directory, with the config's plugins and rules; `resume`
    /// names a stored session to reopen.
    pub fn open(
        scenario: Scenario,
        model: Option<&str>,
        resume: Option<String>,
        config: &Value,
    ) -> Result<Session, String> {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the working directory: {e}"))?
            .to_string_lossy()
            .into_owned();
        let reopen = resume.is_some();
        let mut sess = Session::new(scenario, model, resume, config, cwd, Session::store_dir());
        if reopen {
            sess.reopen()?;
        }
        Ok(sess)
    }

    /// A session in `cwd` keeping its exchanges in `store` (none: nothing kept).
    pub fn new(
        scenario: Scenario,
        model: Option<&str>,
        resume: Option<String>,
        config: &Value,
        cwd: String,
        store: Option<PathBuf>,
    ) -> Session {
        let clock = scenario.start_clock();
        let delivery = plugin::Delivery::new(scenario.startup.hook_lag_ms);
        // A process count per data folder, so two runs of one scenario get two sessions.
        let run = store
            .as_ref()
            .and_then(|d| crate::ids::next_counter(d).ok());
        let salt = format!("{cwd}\n{resume:?}\n{}", run.unwrap_or(0));
        let mut ids = Ids::new(scenario.seed, &salt);
        let session = resume.unwrap_or_else(|| ids.next("ses", clock.now_ms(), true));
        Session {
            clock,
            ids,
            who: Who {
                session,
                cwd,
                model: model_of(model),
                agent: Agent::default(),
            },
            created: false,
            script: Script::new(scenario),
            permission: config.get("permission").cloned().unwrap_or(Value::Null),
            paste_summary: config
                .pointer("/experimental/disable_paste_summary")
                .and_then(Value::as_bool)
                != Some(true),
            plugins: plugin::configured(config)
                .into_iter()
                .map(|u| (u, Plugin::default()))
                .collect(),
            delivery,
            fatal: None,
            recorder: Recorder::from_env(),
            history: Vec::new(),
            published: None,
            store,
            allowed: Vec::new(),
        }
    }

    /// Loads umbel's plugins: each runs its start hook.
    pub fn load_plugins(&mut self) {
        for (umbel, _) in &self.plugins {
            self.delivery.apply(umbel, &Plugin::start());
        }
    }

    /// What the rules say of `permission` (`bash`, `edit`, …); `auto`: `run --auto`.
    pub fn rule(&self, permission: &str, auto: bool) -> Rule {
        let value = match &self.permission {
            Value::Object(map) => map.get(permission).or_else(|| map.get("*")).cloned(),
            other => Some(other.clone()),
        };
        match value.as_ref().and_then(Value::as_str) {
            _ if auto => Rule::Allow,
            Some("allow") => Rule::Allow,
            Some("deny") => Rule::Deny,
            _ => Rule::Ask,
        }
    }

    /// "Allow always" was confirmed: `patterns` of `permission` run unasked from now on.
    pub fn allow_always(&mut self, permission: &str, patterns: &[String]) {
        for p in patterns {
            self.allowed.push((permission.to_string(), p.clone()));
        }
    }

    /// Whether "Allow always" allowed `subject` (a command, a path) of `permission`.
    pub fn allowed_always(&self, permission: &str, subject: &str) -> bool {
        self.allowed
            .iter()
            .any(|(p, pattern)| p == permission && super::bus::wildcard(pattern, subject))
    }

    /// Publishes an event on the bus: umbel's plugins hear it (hooks run, records appended).
    pub fn publish(&mut self, kind: &str, properties: Value) {
        for effect in self.hear(kind, properties) {
            self.apply(&effect);
        }
    }

    /// Publishes an event whose record lines are held back: hooks run now, the lines are
    /// returned (written later, `late_transcript_ms`).
    pub fn publish_held(&mut self, kind: &str, properties: Value) -> Vec<Obj> {
        let mut held = Vec::new();
        for effect in self.hear(kind, properties) {
            match effect {
                Effect::Record(Value::Object(line)) => held.push(Obj(line)),
                other => self.apply(&other),
            }
        }
        held
    }

    /// The event made and heard: what the plugins would do.
    fn hear(&mut self, kind: &str, properties: Value) -> Vec<Effect> {
        let ms = self.clock.now_ms();
        let event = bus::event(&mut self.ids, ms, kind, properties);
        if let Some(all) = self.published.as_mut() {
            all.push((ms, event.clone()));
        }
        self.plugins
            .iter_mut()
            .flat_map(|(_, p)| p.event(&event))
            .collect()
    }

    fn apply(&self, effect: &Effect) {
        for (umbel, _) in &self.plugins {
            self.delivery.apply(umbel, effect);
        }
    }

    /// Makes the session on the first prompt (`session.created`, then `session.updated`).
    pub fn ensure_created(&mut self) {
        if std::mem::replace(&mut self.created, true) {
            return;
        }
        let ms = self.clock.now_ms();
        let title = format!("New session - {}", crate::clock::iso(ms));
        let info = bus::session_info(&self.who, "kind-eagle", &title, ms);
        self.publish("session.created", info.clone());
        let mut updated = info;
        updated["info"]["agent"] = json!(self.who.agent.id());
        self.publish("session.updated", updated);
        self.store_write();
    }

    /// The next id with `prefix`, now.
    pub fn id(&mut self, prefix: &str) -> String {
        let ms = self.clock.now_ms();
        self.ids.next(prefix, ms, false)
    }

    /// Records a finished exchange (the view, and the store for a later `--session`).
    pub fn remember(&mut self, exchange: Exchange) {
        self.history.push(exchange);
        self.store_write();
    }

    /// The session store (`$XDG_DATA_HOME/opencode/storage/session`).
    fn store_dir() -> Option<PathBuf> {
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
        Some(data.join("opencode/storage/session"))
    }

    /// Saves the session's exchanges (a failure is this run's fatal error).
    fn store_write(&mut self) {
        let Some(dir) = self.store.clone() else {
            return;
        };
        let body =
            json!({ "id": self.who.session, "directory": self.who.cwd, "exchanges": self.history });
        let path = dir.join(format!("{}.json", self.who.session));
        let written =
            std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, body.to_string()));
        if let Err(e) = written {
            self.fatal
                .get_or_insert(format!("cannot write {}: {e}", path.display()));
        }
    }

    /// Reopens the stored session `self.who.session`.
    fn reopen(&mut self) -> Result<(), String> {
        let id = self.who.session.clone();
        let path = self.store.as_ref().map(|d| d.join(format!("{id}.json")));
        let text = path.and_then(|p| std::fs::read_to_string(p).ok());
        let stored: Value = text
            .and_then(|t| serde_json::from_str(&t).ok())
            .ok_or_else(|| format!("Session not found: {id}"))?;
        self.history = serde_json::from_value(stored["exchanges"].clone()).unwrap_or_default();
        self.created = true;
        Ok(())
    }

    /// The newest stored session of this folder (`--continue`).
    pub fn last_session() -> Option<String> {
        let dir = Session::store_dir()?;
        let mut newest: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter_map(|e| {
                let modified = e.metadata().ok()?.modified().ok()?;
                let name = e
                    .file_name()
                    .to_string_lossy()
                    .strip_suffix(".json")?
                    .to_string();
                Some((modified, name))
            })
            .collect();
        newest.sort();
        newest.pop().map(|(_, id)| id)
    }
}

impl crate::engine::host::Host for Session {
    crate::host_parts!(|sess: &mut Session, records: &[Obj]| {
        for (umbel, _) in &sess.plugins {
            for record in records {
                plugin::apply(umbel, &Effect::Record(record.to_value()));
            }
        }
    });
}
