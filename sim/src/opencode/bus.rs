//! opencode's bus events as 1.18.33 publishes them (`tests/data/opencode/1.18.33/
//! opencode-1.18.33-events-text-turn.jsonl`): their shapes and key order, as data.
//!
//! Each builder returns one event, `{"id":"evt_…","type":…,"properties":…}`; the message and
//! part objects inside are the ones opencode stores (and umbel's plugin records). Ids are
//! opencode's: a prefix, 12 hex digits of time and counter, 14 base-62 characters
//! ([`Ids`]); session ids count down, so the newest sorts first.

use serde_json::{Value, json};

use super::agent::Agent;
use crate::ids::IdGen;

/// opencode's ids, derived from the scenario seed.
pub struct Ids {
    random: IdGen,
    counter: u64,
}

impl Ids {
    /// Ids for one process.
    pub fn new(seed: u64, salt: &str) -> Ids {
        Ids {
            random: IdGen::new(seed, salt),
            counter: 0,
        }
    }

    /// `<prefix>_<12 hex><14 base-62>` at `ms`; `descending` inverts the time part.
    pub fn next(&mut self, prefix: &str, ms: i64, descending: bool) -> String {
        self.counter += 1;
        let mut time = (ms.max(0) as u64)
            .wrapping_mul(0x1000)
            .wrapping_add(self.counter);
        if descending {
            time = !time;
        }
        let time = time & 0xffff_ffff_ffff;
        format!("{prefix}_{time:012x}{}", self.random.alnum(14))
    }

    /// `n` base-62 characters (a tool call's id).
    pub fn alnum(&mut self, n: usize) -> String {
        self.random.alnum(n)
    }
}

/// Who the session is: what every event of it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Who {
    /// `ses_…`.
    pub session: String,
    /// The working directory.
    pub cwd: String,
    /// `(providerID, modelID)`.
    pub model: (String, String),
    /// The agent in use.
    pub agent: Agent,
}

/// An event of `kind` with `properties`.
pub fn event(ids: &mut Ids, ms: i64, kind: &str, properties: Value) -> Value {
    json!({ "id": ids.next("evt", ms, false), "type": kind, "properties": properties })
}

/// The zero token counts of a new message or session.
fn no_tokens() -> Value {
    json!({ "input": 0, "output": 0, "reasoning": 0, "cache": { "read": 0, "write": 0 } })
}

/// A step's token counts (what fake-model reports, and opencode's price for them).
pub fn step_tokens() -> (Value, f64) {
    let tokens = json!({ "total": 135, "input": 123, "output": 12, "reasoning": 0,
        "cache": { "write": 0, "read": 0 } });
    (tokens, 0.000549)
}

/// The questions the build agent may never ask (opencode's default session rules).
fn session_rules() -> Value {
    let deny = |p: &str| json!({ "permission": p, "pattern": "*", "action": "deny" });
    json!([deny("question"), deny("plan_enter"), deny("plan_exit")])
}

/// `session.created`'s properties for a new session.
pub fn session_info(who: &Who, slug: &str, title: &str, ms: i64) -> Value {
    json!({ "sessionID": who.session, "info": {
        "id": who.session, "slug": slug, "version": super::cli::VERSION,
        "projectID": project_id(&who.cwd), "directory": who.cwd, "path": "", "title": title,
        "permission": session_rules(), "cost": 0, "tokens": no_tokens(),
        "time": { "created": ms, "updated": ms } } })
}

/// The project id opencode derives for a folder (its git root commit; a hash here).
fn project_id(cwd: &str) -> String {
    let h = crate::ids::hash(&[cwd.as_bytes()]);
    format!(
        "{h:016x}{:016x}{:08x}",
        crate::ids::mix(h),
        (h >> 32) as u32
    )
}

/// A user message's info.
pub fn user_message(who: &Who, id: &str, ms: i64) -> Value {
    json!({ "id": id, "role": "user", "sessionID": who.session, "time": { "created": ms },
        "agent": who.agent.id(), "model": { "providerID": who.model.0, "modelID": who.model.1 } })
}

/// An assistant message's info as it starts.
pub fn assistant_message(who: &Who, id: &str, parent: &str, ms: i64) -> Value {
    let agent = who.agent.id();
    json!({ "id": id, "parentID": parent, "role": "assistant", "mode": agent, "agent": agent,
        "path": { "cwd": who.cwd, "root": who.cwd }, "cost": 0, "tokens": no_tokens(),
        "modelID": who.model.1, "providerID": who.model.0, "time": { "created": ms },
        "sessionID": who.session })
}

/// An assistant message's info at its end: its tokens and `finish` (`completed` when `done`).
pub fn assistant_finished(start: &Value, finish: &str, done: Option<i64>) -> Value {
    let mut info = start.clone();
    let (tokens, cost) = step_tokens();
    info["cost"] = json!(cost);
    info["tokens"] = tokens;
    if let Some(ms) = done {
        info["time"]["completed"] = json!(ms);
    }
    info["finish"] = json!(finish);
    info
}

/// An assistant message that ended in `error` (`completed` at `ms`).
pub fn assistant_failed(start: &Value, error: &Value, ms: i64) -> Value {
    let mut info = start.clone();
    info["time"]["completed"] = json!(ms);
    info["error"] = error.clone();
    info
}

/// The user's text part.
pub fn user_text(who: &Who, message: &str, id: &str, text: &str) -> Value {
    json!({ "type": "text", "text": text, "messageID": message, "sessionID": who.session, "id": id })
}

/// A `step-start` part.
pub fn step_start(who: &Who, message: &str, id: &str) -> Value {
    json!({ "id": id, "messageID": message, "sessionID": who.session, "snapshot": SNAPSHOT,
        "type": "step-start" })
}

/// The snapshot of an empty tree (no git in the fake's folders).
const SNAPSHOT: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The assistant's text part: started at `start`, ended at `end` once whole.
pub fn text(who: &Who, message: &str, id: &str, text: &str, start: i64, end: Option<i64>) -> Value {
    let time = match end {
        Some(end) => json!({ "start": start, "end": end }),
        None => json!({ "start": start }),
    };
    json!({ "id": id, "messageID": message, "sessionID": who.session, "type": "text",
        "text": text, "time": time })
}

/// A `reasoning` part: started at `start`, ended at `end` once whole (then with the
/// model's signature, as the fake model signs).
pub fn reasoning(
    who: &Who,
    message: &str,
    id: &str,
    text: &str,
    start: i64,
    end: Option<i64>,
) -> Value {
    let mut part = json!({ "id": id, "messageID": message, "sessionID": who.session,
        "type": "reasoning", "text": text, "time": { "start": start } });
    if let Some(end) = end {
        part["time"]["end"] = json!(end);
        part["metadata"] = json!({ "anthropic": { "signature": "fakesig" } });
    }
    part
}

/// A `step-finish` part (`reason`: `stop`, `tool-calls`).
pub fn step_finish(who: &Who, message: &str, id: &str, reason: &str) -> Value {
    let (tokens, cost) = step_tokens();
    json!({ "id": id, "reason": reason, "snapshot": SNAPSHOT, "messageID": message,
        "sessionID": who.session, "type": "step-finish", "tokens": tokens, "cost": cost })
}

/// A tool part in `state`.
pub fn tool(who: &Who, message: &str, id: &str, call: &Call, state: Value) -> Value {
    json!({ "type": "tool", "tool": call.tool, "callID": call.id, "state": state, "id": id,
        "sessionID": who.session, "messageID": message })
}

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// opencode's tool (`bash`, `edit`, …).
    pub tool: String,
    /// `toolu_…`.
    pub id: String,
    /// Its input.
    pub input: Value,
}

/// The permission a tool asks under, and what the question shows of it (`metadata`).
pub fn permission_of(call: &Call) -> (&'static str, String) {
    let command = call.input.get("command").and_then(Value::as_str);
    let path = ["filePath", "file_path", "path"]
        .iter()
        .find_map(|k| call.input.get(*k).and_then(Value::as_str));
    match call.tool.as_str() {
        "bash" => ("bash", command.unwrap_or("").to_string()),
        "edit" | "write" | "patch" => ("edit", path.unwrap_or("").to_string()),
        "webfetch" => (
            "webfetch",
            call.input
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ),
        _ => ("external_directory", path.unwrap_or("*").to_string()),
    }
}

/// The patterns "Allow always" allows for a call (`permission.asked`'s `always`): its first
/// word and anything after (`echo *`).
pub fn always_of(call: &Call) -> Vec<String> {
    let (_, pattern) = permission_of(call);
    let first = pattern.split_whitespace().next().unwrap_or("*");
    vec![format!("{first} *")]
}

/// Whether `text` matches the `*` wildcard `pattern`, a trailing ` *` matching nothing too
/// (opencode's `Wildcard.match`: `echo *` matches `echo` and `echo hi > x`).
pub fn wildcard(pattern: &str, text: &str) -> bool {
    if let Some(head) = pattern.strip_suffix(" *")
        && text == head
    {
        return true;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return text == pattern;
    }
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// `permission.asked`'s properties.
pub fn permission_asked(who: &Who, id: &str, message: &str, call: &Call) -> Value {
    let (permission, pattern) = permission_of(call);
    json!({ "id": id, "sessionID": who.session, "permission": permission,
        "patterns": [pattern], "metadata": call.input, "always": always_of(call),
        "tool": { "messageID": message, "callID": call.id } })
}

/// `permission.replied`'s properties (`reply`: `once`, `always`, `reject`).
pub fn permission_replied(who: &Who, request: &str, reply: &str) -> Value {
    json!({ "sessionID": who.session, "requestID": request, "reply": reply })
}

/// `question.asked`'s properties: the request `id` (`que_…`), the tool's `questions`, the call
/// asking them (1.18.33, rec-out `opencode-q-2`).
pub fn question_asked(who: &Who, id: &str, questions: &Value, message: &str, call: &Call) -> Value {
    json!({ "id": id, "sessionID": who.session, "questions": questions,
        "tool": { "messageID": message, "callID": call.id } })
}

/// `question.replied`'s properties: one list of labels per question.
pub fn question_replied(who: &Who, request: &str, answers: &[String]) -> Value {
    let answers: Vec<Vec<&str>> = answers.iter().map(|a| vec![a.as_str()]).collect();
    json!({ "sessionID": who.session, "requestID": request, "answers": answers })
}

/// `question.rejected`'s properties (the person dismissed the question).
pub fn question_rejected(who: &Who, request: &str) -> Value {
    json!({ "sessionID": who.session, "requestID": request })
}

/// `session.status`'s properties.
pub fn status(who: &Who, busy: bool) -> Value {
    let kind = if busy { "busy" } else { "idle" };
    json!({ "sessionID": who.session, "status": { "type": kind } })
}

/// The error object of an API failure (`APIError`), as opencode's Anthropic provider makes it.
pub fn api_error(status: u16, message: &str) -> Value {
    let body =
        json!({ "type": "error", "error": { "type": error_type(status), "message": message },
        "request_id": "req_fake" })
        .to_string();
    json!({ "name": "APIError", "data": { "message": message, "statusCode": status,
        "isRetryable": status == 429 || status >= 500,
        "responseHeaders": { "content-length": body.len().to_string(), "content-type": "application/json" },
        "responseBody": body, "metadata": { "url": "https://api.anthropic.com/v1/messages" } } })
}

fn error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

/// The error of a turn a person interrupted.
pub fn aborted() -> Value {
    json!({ "name": "MessageAbortedError", "data": { "message": "The operation was aborted." } })
}

/// The error of a provider that refused the credentials (the session is lost).
pub fn auth_error(provider: &str) -> Value {
    json!({ "name": "ProviderAuthError", "data": { "providerID": provider,
        "message": "invalid x-api-key" } })
}
