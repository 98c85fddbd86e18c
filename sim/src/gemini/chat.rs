//! The chat file: JSONL with upserts, shaped like
//! `fixtures/samples/gemini-0.61.0-chat-session.jsonl`.
//!
//! A header line, then records (`user`, `gemini`, `error`, `info`), each
//! followed by `{"$set":{"lastUpdated":…}}`. A `gemini` record that asked for
//! a tool is written with empty `content` and later written again with the
//! same `id` plus `toolCalls` (a reader keeps the last line per id). On a
//! failed or cancelled turn a `{"$set":{"messages":[…]}}` line rewrites the
//! curated history (API form) without the failed prompt, as the real CLI
//! does. Lines are only ever appended.

use serde_json::Value;

use super::session::Session;
use crate::engine::host;
use crate::json::{J, Obj};
use crate::obj;
use crate::sha256;

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `tokens` of a gemini record.
pub fn tokens(input: u64, output: u64) -> Obj {
    obj! {
        "input" => input,
        "output" => output,
        "cached" => 0u64,
        "thoughts" => 0u64,
        "tool" => 0u64,
        "total" => input + output,
    }
}

/// Derived token counts for a prompt and an answer.
pub fn token_counts(prompt: &str, answer: &str) -> (u64, u64) {
    let input = 450 + prompt.chars().count() as u64 / 4;
    let output = (answer.chars().count() as u64).div_ceil(4).max(1);
    (input, output)
}

/// A `functionResponse` part.
pub fn function_response(call_id: &str, name: &str, response: Obj) -> Obj {
    obj! { "functionResponse" => obj! { "id" => call_id, "name" => name, "response" => response } }
}

/// `resultDisplay` of a shell call: the terminal cells of each output line.
pub fn result_display(output: &str) -> J {
    let rows: Vec<J> = crate::screen::split_lines(output)
        .into_iter()
        .map(|line| {
            J::from(vec![J::from(obj! {
                "text" => line,
                "bold" => false,
                "italic" => false,
                "underline" => false,
                "dim" => false,
                "inverse" => false,
                "isUninitialized" => true,
                "fg" => "",
                "bg" => "",
            })])
        })
        .collect();
    J::Array(rows)
}

impl Session {
    /// Appends a line to the chat file; the first failure is kept in `fatal`.
    pub fn append(&mut self, record: &Obj) {
        if super::flavor::qwen() {
            for qwen in crate::qwen::records::translate(&mut self.qwen_ctx(), record) {
                host::append(&self.chat_path, &qwen, &mut self.fatal);
            }
            return;
        }
        host::append(&self.chat_path, record, &mut self.fatal);
    }

    fn set_last(&mut self, ts: &str) {
        self.append(&obj! { "$set" => obj! { "lastUpdated" => ts } });
    }

    /// The `<session_context>` text of the first history entry.
    pub fn context_text(&self) -> String {
        let date = self.clock.date();
        let part = |r: std::ops::Range<usize>| date.get(r).and_then(|s| s.parse::<usize>().ok());
        let (y, m, d) = (part(0..4), part(5..7), part(8..10));
        let days = self.clock.now_ms().div_euclid(86_400_000);
        let weekday = WEEKDAYS[(days + 4).rem_euclid(7) as usize];
        let month = m
            .and_then(|m| MONTHS.get(m.wrapping_sub(1)))
            .unwrap_or(&"January");
        let tmp = self.paths.dir.join("tmp").join(&self.project);
        format!(
            "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is {weekday}, {month} {}, {} (formatted according to the user's locale).\nMy operating system is: linux\nThe project's temporary directory is: {}\n- **Workspace Directories:**\n  - {}\n</session_context>",
            d.unwrap_or(1),
            y.unwrap_or(1970),
            tmp.display(),
            self.cwd
        )
    }

    /// The header line and the session-context `$set` (at session start); a resumed session
    /// writes only `{"$set":{"sessionId":…}}` into its own chat file, as 0.61.0 does.
    pub fn chat_open(&mut self) {
        if self.resumed {
            let loaded = self.resume_loaded();
            self.append(&loaded);
            return;
        }
        let now = self.clock.stamp();
        let header = obj! {
            "sessionId" => self.id.as_str(),
            "projectHash" => sha256::hex(self.cwd.as_bytes()),
            "startTime" => now.as_str(),
            "lastUpdated" => now.as_str(),
            "kind" => "main",
        };
        self.append(&header);
        let ctx = obj! {
            "id" => self.ids.hex(32),
            "timestamp" => now.as_str(),
            "type" => "user",
            "content" => vec![obj! { "text" => self.context_text() }],
        };
        self.history = vec![ctx.clone()];
        self.append(&obj! { "$set" => obj! { "messages" => vec![ctx], "lastUpdated" => now } });
    }

    /// What a resumed session appends to its chat file once it has loaded the conversation.
    pub fn resume_loaded(&self) -> Obj {
        obj! { "$set" => obj! { "sessionId" => self.id.as_str() } }
    }

    /// A `user` record with `parts` as content (+ `$set`); returned for the history.
    pub fn chat_user(&mut self, parts: Vec<Obj>) -> Obj {
        let ts = self.clock.stamp();
        let rec = obj! {
            "id" => self.ids.uuid(),
            "timestamp" => ts.as_str(),
            "type" => "user",
            "content" => parts,
        };
        self.append(&rec);
        self.set_last(&ts);
        rec
    }

    /// A new `gemini` record (not yet written): id, timestamp, text, the model's thinking
    /// (a thought with no subject, as gemini records fake-model's thought part), tokens, model.
    pub fn gemini_record(&mut self, text: &str, thinking: Option<&str>, tokens: Obj) -> Obj {
        let stamp = self.clock.stamp();
        let thoughts: Vec<Obj> = thinking
            .map(|t| obj! { "subject" => "", "description" => t, "timestamp" => stamp.as_str() })
            .into_iter()
            .collect();
        obj! {
            "id" => self.ids.uuid(),
            "timestamp" => stamp.as_str(),
            "type" => "gemini",
            "content" => text,
            "thoughts" => thoughts,
            "tokens" => tokens,
            "model" => self.model.name.as_str(),
        }
    }

    /// Writes a `gemini` record; `upsert` (a rewrite of an earlier id) gets no `$set`.
    pub fn chat_gemini(&mut self, rec: &Obj, upsert: bool) {
        self.append(rec);
        if !upsert {
            let ts = field(rec, "timestamp");
            self.set_last(&ts);
        }
    }

    /// An `error` or `info` record with a text (+ `$set`).
    pub fn chat_note(&mut self, kind: &str, text: &str) {
        let ts = self.clock.stamp();
        let rec = obj! {
            "id" => self.ids.uuid(),
            "timestamp" => ts.as_str(),
            "type" => kind,
            "content" => text,
        };
        self.append(&rec);
        self.set_last(&ts);
    }

    /// `{"$set":{"messages":[curated history],"lastUpdated":…}}`.
    pub fn chat_rollback(&mut self) {
        let ts = self.clock.stamp();
        let messages = self.history.clone();
        self.append(&obj! { "$set" => obj! { "messages" => messages, "lastUpdated" => ts } });
    }
}

/// A string field of a record (empty when absent).
pub fn field(rec: &Obj, key: &str) -> String {
    rec.str(key)
}

/// The API-history form of a `gemini` record: `content` as parts (the text,
/// or one `functionCall` per tool call).
pub fn history_form(rec: &Obj, calls: &[Obj]) -> Obj {
    let mut out = rec.clone();
    let parts: Vec<Obj> = if calls.is_empty() {
        vec![obj! { "text" => field(rec, "content") }]
    } else {
        calls
            .iter()
            .map(|c| {
                let args = c.0.get("args").cloned().unwrap_or(Value::Null);
                obj! { "functionCall" => obj! { "name" => field(c, "name"), "args" => args, "id" => field(c, "id") } }
            })
            .collect()
    };
    out.set("content", parts);
    out
}
