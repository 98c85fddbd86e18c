//! umbel's plugin, played: what `opencode-umbel.js` does inside the real opencode, done by the
//! fake on its own bus events.
//!
//! opencode loads the plugins named in `OPENCODE_CONFIG_CONTENT`'s `plugin` list; umbel's is a
//! file whose `const UMBEL = {...};` line is one line of JSON (its hook command and record path).
//! [`configured`] finds that line in each listed file; [`Plugin::event`] is the plugin's `event`
//! hook as data — the same state (subagent sessions, prompts seen, tool states, busy) and the
//! same decisions, returning what to do ([`Effect`]: a hook to run, a record line to append);
//! [`Plugin::apply`] does it (`sh -c '<hook> <name>'` with the payload on stdin, waited for, its
//! output dropped; a line appended to the record), swallowing failures as the plugin's
//! `try {} catch {}` does.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The variable opencode reads extra config from.
pub const CONFIG_VAR: &str = "OPENCODE_CONFIG_CONTENT";

/// The line of the plugin source that holds umbel's settings.
const UMBEL_LINE: &str = "const UMBEL = ";

/// The bus events the plugin turns into hooks by name alone (its `HOOKS` table).
pub const HOOKS: &[(&str, &str)] = &[
    ("session.idle", "SessionIdle"),
    ("session.error", "SessionError"),
    ("permission.asked", "PermissionAsked"),
    ("permission.updated", "PermissionAsked"),
    ("permission.replied", "PermissionReplied"),
    ("question.asked", "QuestionAsked"),
    ("question.replied", "QuestionReplied"),
    ("question.rejected", "QuestionRejected"),
];

/// umbel's settings for one worker: the `UMBEL` object.
#[derive(Clone, Debug, PartialEq)]
pub struct Umbel {
    /// The hook command (the hook's name is appended).
    pub hook: String,
    /// The record file.
    pub transcript: PathBuf,
}

/// Reads the `UMBEL` line of a plugin's source.
pub fn umbel_of(source: &str) -> Option<Umbel> {
    let line = source
        .lines()
        .find_map(|l| l.trim().strip_prefix(UMBEL_LINE))?;
    let value: Value = serde_json::from_str(line.trim().trim_end_matches(';')).ok()?;
    Some(Umbel {
        hook: value.get("hook")?.as_str()?.to_string(),
        transcript: PathBuf::from(value.get("transcript")?.as_str()?),
    })
}

/// The config handed in [`CONFIG_VAR`] (an empty object when unset).
pub fn config() -> Result<Value, String> {
    match std::env::var(CONFIG_VAR) {
        Ok(text) if !text.trim().is_empty() => {
            serde_json::from_str(&text).map_err(|e| format!("{CONFIG_VAR} is not JSON: {e}"))
        }
        _ => Ok(json!({})),
    }
}

/// umbel's plugins among the config's `plugin` list (`file://…` sources with an `UMBEL` line).
pub fn configured(config: &Value) -> Vec<Umbel> {
    let list = config.get("plugin").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|spec| spec.strip_prefix("file://"))
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|source| umbel_of(&source))
        .collect()
}

/// What the plugin does for one event.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Runs the hook command with this name and payload.
    Hook(&'static str, Value),
    /// Appends this line to the record.
    Record(Value),
}

/// The plugin's state for one opencode process.
#[derive(Debug, Default)]
pub struct Plugin {
    children: HashSet<String>,
    prompts: HashSet<String>,
    tools: HashMap<String, String>,
    busy: bool,
    /// A turn is open from its prompt until its idle: the idle events opencode publishes again
    /// after an abort end no turn and are not reported.
    open: bool,
    /// The newest message's id and, for an assistant message, its error (`SessionIdle`
    /// carries it; an older message updated again later does not count).
    newest: (String, Option<Value>),
}

impl Plugin {
    /// What the plugin does as it loads.
    pub fn start() -> Effect {
        Effect::Hook("PluginStart", json!({}))
    }

    /// What the plugin does for the bus event `event` (`{"id","type","properties"}`).
    pub fn event(&mut self, event: &Value) -> Vec<Effect> {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        let p = event.get("properties").cloned().unwrap_or(json!({}));
        if kind == "session.created" || kind == "session.updated" {
            return self.session(kind, &p);
        }
        let session = p
            .get("sessionID")
            .or_else(|| p.pointer("/info/sessionID"))
            .or_else(|| p.pointer("/part/sessionID"))
            .and_then(Value::as_str);
        if session.is_some_and(|s| self.children.contains(s)) {
            return Vec::new();
        }
        match kind {
            "message.updated" if p.get("info").is_some() => self.message(&p),
            "message.part.updated" if p.get("part").is_some() => self.part(&p),
            "session.status" => self.status(p),
            "session.idle" if !self.open => Vec::new(),
            "session.idle" => {
                self.open = false;
                vec![Effect::Hook("SessionIdle", self.idle(p))]
            }
            _ => HOOKS
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, name)| vec![Effect::Hook(name, p)])
                .unwrap_or_default(),
        }
    }

    fn session(&mut self, kind: &str, p: &Value) -> Vec<Effect> {
        let parent = p.pointer("/info/parentID").is_some_and(|v| !v.is_null());
        if parent {
            let id = p.pointer("/info/id").and_then(Value::as_str).unwrap_or("");
            self.children.insert(id.to_string());
            return Vec::new();
        }
        match kind {
            "session.created" => {
                self.open = true;
                vec![Effect::Hook("SessionCreated", p.clone())]
            }
            _ => Vec::new(),
        }
    }

    fn message(&mut self, p: &Value) -> Vec<Effect> {
        let info = &p["info"];
        let mut out = Vec::new();
        if info.get("role").and_then(Value::as_str) == Some("user") {
            let id = info.get("id").and_then(Value::as_str).unwrap_or("");
            if !self.prompts.insert(id.to_string()) {
                return out;
            }
            if id >= self.newest.0.as_str() {
                self.newest = (id.to_string(), None);
            }
            self.open = true;
            let payload =
                json!({ "sessionID": info.get("sessionID"), "messageID": info.get("id") });
            out.push(Effect::Hook("PromptTaken", payload));
        } else if info.get("role").and_then(Value::as_str) == Some("assistant") {
            let id = info.get("id").and_then(Value::as_str).unwrap_or("");
            if id >= self.newest.0.as_str() {
                let error = info.get("error").filter(|e| !e.is_null()).cloned();
                self.newest = (id.to_string(), error);
            }
        }
        out.push(Effect::Record(json!({ "type": "message", "info": info })));
        out
    }

    /// `session.idle`'s payload, with the newest assistant message's error when it has one.
    fn idle(&self, mut p: Value) -> Value {
        if let (Some(error), Some(obj)) = (&self.newest.1, p.as_object_mut()) {
            obj.insert("error".into(), error.clone());
        }
        p
    }

    fn part(&mut self, p: &Value) -> Vec<Effect> {
        let part = &p["part"];
        let mut out = vec![Effect::Record(json!({ "type": "part", "part": part }))];
        let status = part.pointer("/state/status").and_then(Value::as_str);
        let call = part.get("callID").and_then(Value::as_str).unwrap_or("");
        let is_tool = part.get("type").and_then(Value::as_str) == Some("tool");
        if let Some(status) = status.filter(|_| is_tool)
            && self.tools.get(call).map(String::as_str) != Some(status)
        {
            self.tools.insert(call.to_string(), status.to_string());
            if status != "pending" {
                out.push(Effect::Hook("ToolUpdate", part.clone()));
            }
        }
        out
    }

    fn status(&mut self, p: Value) -> Vec<Effect> {
        let now = p.pointer("/status/type").and_then(Value::as_str) == Some("busy");
        let was = std::mem::replace(&mut self.busy, now);
        match (now, was) {
            (true, false) => {
                self.open = true;
                vec![Effect::Hook("SessionBusy", p)]
            }
            (true, true) => Vec::new(),
            (false, _) => vec![Effect::Hook("SessionStatus", p)],
        }
    }
}

/// Does `effect` for the plugin `umbel` (failures are swallowed, as the plugin's are).
pub fn apply(umbel: &Umbel, effect: &Effect) {
    match effect {
        Effect::Hook(name, payload) => run_hook(&umbel.hook, name, payload),
        Effect::Record(line) => {
            let _ = crate::jsonl::append_line(&umbel.transcript, &line.to_string());
        }
    }
}

/// How the plugin's effects reach umbel: at once, or ([`crate::scenario::Startup::hook_lag_ms`])
/// this late and in their order, from a thread of their own.
#[derive(Debug, Default)]
pub struct Delivery {
    lagged: Option<std::sync::mpsc::Sender<(Umbel, Effect, std::time::Instant)>>,
}

impl Delivery {
    /// At once when `lag_ms` is 0.
    pub fn new(lag_ms: u64) -> Delivery {
        if lag_ms == 0 {
            return Delivery::default();
        }
        let lag = std::time::Duration::from_millis(lag_ms);
        let (tx, rx) = std::sync::mpsc::channel::<(Umbel, Effect, std::time::Instant)>();
        std::thread::spawn(move || {
            for (umbel, effect, at) in rx {
                std::thread::sleep((at + lag).saturating_duration_since(std::time::Instant::now()));
                apply(&umbel, &effect);
            }
        });
        Delivery { lagged: Some(tx) }
    }

    /// Does `effect` for `umbel` now, or queues it.
    pub fn apply(&self, umbel: &Umbel, effect: &Effect) {
        match &self.lagged {
            None => apply(umbel, effect),
            Some(tx) => {
                let _ = tx.send((umbel.clone(), effect.clone(), std::time::Instant::now()));
            }
        }
    }
}

/// `sh -c '<hook> <name>'` with `payload` on stdin, waited for, its output dropped.
fn run_hook(hook: &str, name: &str, payload: &Value) {
    let child = Command::new("sh")
        .args(["-c", &format!("{hook} {name}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload.to_string().as_bytes());
    }
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: &str, id: &str, error: Value) -> Value {
        json!({ "type": "message.updated", "properties": { "info": {
            "id": id, "role": role, "sessionID": "ses_1", "error": error } } })
    }

    /// As the JS plugin: the idle hook carries the newest message's error (an Esc abort may
    /// end the turn with the idle alone); a new prompt, and anything older, does not.
    #[test]
    fn the_idle_hook_carries_an_aborted_messages_error_until_the_next_prompt() {
        let mut plugin = Plugin::default();
        let idle = json!({ "type": "session.idle", "properties": { "sessionID": "ses_1" } });
        let aborted = json!({ "name": "MessageAbortedError", "data": { "message": "Aborted" } });
        plugin.event(&message("user", "msg_1", Value::Null));
        plugin.event(&message("assistant", "msg_2", aborted.clone()));
        let hooks = plugin.event(&idle);
        let want = json!({ "sessionID": "ses_1", "error": aborted });
        assert_eq!(hooks, vec![Effect::Hook("SessionIdle", want)]);
        // The idle opencode publishes again after an abort ends no turn: not reported.
        assert_eq!(plugin.event(&idle), Vec::new());
        plugin.event(&message("user", "msg_3", Value::Null));
        plugin.event(&message("assistant", "msg_4", Value::Null));
        // opencode updates the aborted message again later: it is older, it does not count.
        plugin.event(&message("assistant", "msg_2", aborted.clone()));
        let hooks = plugin.event(&idle);
        let want = json!({ "sessionID": "ses_1" });
        assert_eq!(hooks, vec![Effect::Hook("SessionIdle", want)]);
    }
}
