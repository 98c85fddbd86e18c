//! Pending approvals, as a pure function of a worker's classified events: which needs-input
//! event a worker waits on (its id, the tool and its input, since when), and whether an answer
//! (`Answered`, written by `approve`/`deny` or a rule) already closed it. What is shown of a
//! tool's input passes through [`redact`] first.

use super::events::{ANSWERED_EVENT, ClassifiedEvent, TURN_CLOSED_EVENT};
use super::providers::EventClass;
use super::questions::{Question, questions_of};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The needs-input a worker waits on: the first event of the run of waiting events at the log's
/// end (claude's `PermissionRequest` and the `Notification` after it are one question).
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// The event's line in the log: the approval's id.
    pub index: usize,
    /// When the CLI asked, in nanoseconds since the epoch.
    pub at_ns: u128,
    /// `permission` or `question`.
    pub reason: &'static str,
    /// The tool, as the hook named it: `{name, input}`.
    pub tool: Option<Value>,
}

impl Asked {
    /// The approval's id, as `approvals`, `wait --json` and `--expect` spell it.
    pub fn id(&self) -> String {
        self.index.to_string()
    }

    /// The tool's name, when the hook gave one.
    pub fn tool_name(&self) -> Option<&str> {
        let tool = self.tool.as_ref()?;
        tool.get("name")
            .or_else(|| tool.get("tool_name"))
            .and_then(Value::as_str)
    }

    /// The tool's input, when the hook gave one.
    pub fn tool_input(&self) -> Option<&Value> {
        let tool = self.tool.as_ref()?;
        tool.get("input")
            .or_else(|| tool.get("tool_input"))
            .filter(|v| !v.is_null())
    }

    /// The questions and choices in the tool's input (a question tool's; none for others).
    pub fn questions(&self) -> Vec<Question> {
        self.tool_input().map(questions_of).unwrap_or_default()
    }
}

/// What the worker waits on, if anything: walking back from the log's end over waiting events
/// (and lines that mean nothing), the first of them. `None` once anything else came after it —
/// work moved on, the turn ended — or an answer was written (a waiting event after the answer
/// that names no tool repeats the answered question).
pub fn pending(events: &[ClassifiedEvent]) -> Option<Asked> {
    let mut first: Option<Asked> = None;
    for event in events.iter().rev() {
        match &event.class {
            EventClass::NeedsInput { reason, tool } => {
                // A later event of the run may name the tool the first one did not.
                let tool = tool.clone().or_else(|| first.as_ref()?.tool.clone());
                first = Some(Asked {
                    index: event.record.index,
                    at_ns: event.record.at_ns,
                    reason,
                    tool,
                });
            }
            // An answer before the run, or umbel's line closing the turn (a deny, a stop at
            // the ask): a run that names no tool is the closed question's echo (claude's
            // `Notification` lands up to seconds after its dialog showed, qwen's a moment after
            // its `PermissionRequest`); one that names a tool is a new question.
            _ if [ANSWERED_EVENT, TURN_CLOSED_EVENT].contains(&event.record.kind.as_str()) => {
                if first.as_ref().is_some_and(|a| a.tool.is_some()) {
                    break;
                }
                return None;
            }
            // The permission hook before the run names the tool its notice does not (copilot's
            // `PermissionRequest`, then its `Notification` once the dialog shows).
            EventClass::PermissionCheck { tool } => {
                if let Some(asked) = first.as_mut().filter(|a| a.tool.is_none()) {
                    asked.tool = tool.clone();
                }
                break;
            }
            EventClass::Other => {}
            _ => break,
        }
    }
    first
}

/// Whether an `Answered` line stands after the approval `id` (its log line).
pub fn answered_after(events: &[ClassifiedEvent], id: usize) -> bool {
    events
        .iter()
        .any(|e| e.record.index > id && e.record.kind == ANSWERED_EVENT)
}

/// One pending approval across the fleet (`umbel approvals`, MCP `umbel://approvals`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingApproval {
    /// The approval's id: pass it to `approve`/`deny --expect`.
    pub id: String,
    /// The worker.
    pub name: String,
    /// The host it runs on; absent on this machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Its provider.
    pub provider: String,
    /// `permission` (a tool waits) or `question`.
    pub reason: String,
    /// The tool, as the CLI names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool's input, with secrets masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// When the CLI asked (ms since the epoch).
    pub since: u64,
    /// How long it has waited, in ms.
    pub waited_ms: u64,
    /// The event-log position now: `wait --since` this for what comes after the answer.
    pub position: usize,
    /// A question's questions and choices (reason `question`), as `answer` takes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Question>,
    /// The verb that answers it: `approve` (or `deny`), `answer` (a choice; `deny` declines), or
    /// `attach` (a person must, on the worker's screen: see `needsPerson`).
    #[serde(default)]
    pub answer_with: String,
    /// Why only a person can answer it, when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_person: Option<String>,
}

/// The fleet's pending approvals, as MCP's `umbel_approvals` and `umbel://approvals` give them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApprovalList {
    /// Oldest first.
    pub approvals: Vec<PendingApproval>,
}

/// Who can answer `asked`, and with which verb: `(answer_with, needs_person)`. `pressable`:
/// umbel knows the CLI's question dialog.
fn answered_with(
    asked: &Asked,
    questions: &[Question],
    pressable: bool,
) -> (String, Option<String>) {
    let why = match asked.reason {
        "permission" => return ("approve".into(), None),
        "question" if !pressable => "its CLI's question dialog is not one umbel presses".into(),
        "question" => match super::questions::unanswerable(questions) {
            None => return ("answer".into(), None),
            Some(why) => why,
        },
        other => format!("it waits for {other}"),
    };
    ("attach".into(), Some(why))
}

impl PendingApproval {
    /// The row for `asked` of worker `name`, at `now_ms`; `pressable`: umbel knows the CLI's
    /// question dialog.
    pub fn new(
        name: &str,
        (provider, pressable): (&str, bool),
        asked: &Asked,
        position: usize,
        now_ms: u64,
    ) -> Self {
        let since = u64::try_from(asked.at_ns / 1_000_000).unwrap_or(u64::MAX);
        let questions = match asked.reason {
            "question" => asked.questions(),
            _ => Vec::new(),
        };
        let (answer_with, needs_person) = answered_with(asked, &questions, pressable);
        PendingApproval {
            id: asked.id(),
            name: name.to_string(),
            host: None,
            provider: provider.to_string(),
            reason: asked.reason.to_string(),
            tool: asked.tool_name().map(str::to_string),
            input: asked.tool_input().map(redact),
            since,
            waited_ms: now_ms.saturating_sub(since),
            position,
            questions,
            answer_with,
            needs_person,
        }
    }

    /// One line for people: `<worker> <provider> <tool> <input> (waited 12s, id 7)`.
    pub fn describe(&self) -> String {
        let tool = self.tool.as_deref().unwrap_or(&self.reason);
        let name = match &self.host {
            Some(host) => format!("{}@{host}", self.name),
            None => self.name.clone(),
        };
        let mut words = vec![name.clone(), self.provider.clone(), tool.to_string()];
        match self.questions.first() {
            Some(question) => words.push(format!(
                "\"{}\" {}",
                question.question,
                super::questions::numbered(question)
            )),
            None => words.extend(self.input.as_ref().map(brief)),
        }
        if let Some(why) = &self.needs_person {
            words.push(format!("— needs a person ({why}): umbel attach {name}"));
        }
        let waited = super::duration::whole_seconds(self.waited_ms);
        words.push(format!("(waited {waited}, id {})", self.id));
        words.join(" ")
    }
}

/// A tool's input in one short line: a command or a path as itself, anything else as JSON,
/// cut at [`BRIEF`] characters.
pub fn brief(input: &Value) -> String {
    let text = ["command", "file_path", "path", "url", "pattern"]
        .iter()
        .find_map(|key| input.get(key).and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| input.to_string());
    let one_line = text.replace('\n', " ⏎ ");
    match one_line.char_indices().nth(BRIEF) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}

/// How many characters of a tool's input [`brief`] keeps.
const BRIEF: usize = 120;

/// Words in a key or assignment that mark its value as a secret.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "AUTH",
    "CREDENTIAL",
    "COOKIE",
];

/// Prefixes of well-known credentials (API keys and tokens), masked wherever they stand.
const SECRET_PREFIXES: &[&str] = &[
    "sk-",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "AIza",
    "glpat-",
];

/// What stands where a secret was.
pub const MASK: &str = "••••";

/// `input` with secrets masked: the value of any field whose name holds a secret word
/// (`api_key`, `password`), `NAME=value` assignments and `--token value` options whose name does,
/// `Authorization:` headers, and words that start like a well-known credential (`sk-…`,
/// `ghp_…`).
pub fn redact(input: &Value) -> Value {
    match input {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let value = if secret_name(key) && value.is_string() {
                        Value::String(MASK.into())
                    } else {
                        redact(value)
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        Value::String(text) => Value::String(redact_text(text)),
        other => other.clone(),
    }
}

/// Whether a name (a field, a variable, an option) says its value is a secret.
fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|word| upper.contains(word))
}

/// A text with its secrets masked, word by word (white space kept).
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut mask_next = false;
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end();
        let space = &piece[word.len()..];
        if word.is_empty() {
            out.push_str(piece);
            continue;
        }
        let (masked, next) = redact_word(word, mask_next);
        mask_next = next;
        out.push_str(&masked);
        out.push_str(space);
    }
    out
}

/// One word masked, and whether the word after it is a secret (`--token VALUE`,
/// `Authorization: Bearer VALUE`).
fn redact_word(word: &str, masked_by_previous: bool) -> (String, bool) {
    let bare = word.trim_matches(|c| c == '"' || c == '\'');
    if masked_by_previous && !bare.starts_with('-') {
        return (MASK.to_string(), bare.eq_ignore_ascii_case("bearer"));
    }
    if let Some((name, value)) = word.split_once('=')
        && secret_name(name.trim_start_matches('-'))
        && !value.is_empty()
    {
        return (format!("{name}={MASK}"), false);
    }
    if SECRET_PREFIXES
        .iter()
        .any(|p| bare.starts_with(p) && bare.len() > p.len() + 8)
    {
        return (MASK.to_string(), false);
    }
    let option = bare.trim_start_matches('-');
    let names_secret = (bare.starts_with('-') || bare.ends_with(':')) && secret_name(option);
    (word.to_string(), names_secret)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_data::event as ev;
    use serde_json::json;

    fn asks(tool: Option<Value>) -> EventClass {
        EventClass::NeedsInput {
            reason: "permission",
            tool,
        }
    }

    #[test]
    fn the_first_of_a_run_of_waiting_events_is_the_pending_approval() {
        let tool = json!({"name": "Bash", "input": {"command": "rm -rf build"}});
        let events = [
            ev(0, "UserPromptSubmit", EventClass::Submitted),
            ev(1, "PermissionRequest", asks(Some(tool.clone()))),
            ev(2, "Notification", asks(None)),
        ];
        let asked = pending(&events).expect("pending");
        assert_eq!(asked.id(), "1");
        assert_eq!(asked.tool_name(), Some("Bash"));
        assert_eq!(asked.tool_input(), Some(&tool["input"]));
        // A tool that ran, or an answer written, ends it.
        let mut answered = events.to_vec();
        answered.push(ev(3, ANSWERED_EVENT, EventClass::Other));
        assert_eq!(pending(&answered), None);
        assert!(answered_after(&answered, 1));
        let mut ran = events.to_vec();
        ran.push(ev(3, "PostToolUse", EventClass::Progress));
        assert_eq!(pending(&ran), None);
        // The next tool asked is a new approval with an id of its own.
        ran.push(ev(4, "PermissionRequest", asks(Some(tool))));
        assert_eq!(pending(&ran).expect("next").id(), "4");
    }

    #[test]
    fn a_notification_after_the_answer_repeats_the_answered_question() {
        let tool = json!({"name": "Bash", "input": {"command": "make"}});
        let mut events = vec![
            ev(0, "UserPromptSubmit", EventClass::Submitted),
            ev(1, "PermissionRequest", asks(Some(tool.clone()))),
            ev(2, ANSWERED_EVENT, EventClass::Other),
            ev(3, "Notification", asks(None)),
        ];
        assert_eq!(pending(&events), None);
        // A question that names a tool right after an answer is a new one.
        events.push(ev(4, "PermissionRequest", asks(Some(tool))));
        assert_eq!(pending(&events).expect("new").id(), "3");
    }

    #[test]
    fn a_notification_after_umbel_closed_the_turn_repeats_the_closed_ask() {
        // qwen's `Notification` lands a moment after its `PermissionRequest`: a wait that
        // stopped the turn at the ask (its `TurnClosed` line) in between leaves nothing open.
        let tool = json!({"name": "run_shell_command", "input": {"command": "echo hi"}});
        let mut events = vec![
            ev(0, "UserPromptSubmit", EventClass::Submitted),
            ev(1, "PermissionRequest", asks(Some(tool.clone()))),
            ev(
                2,
                TURN_CLOSED_EVENT,
                EventClass::TurnFailed {
                    reason: "interrupted",
                },
            ),
            ev(3, "Notification", asks(None)),
        ];
        assert_eq!(pending(&events), None);
        // A tool asked for after it is a new question.
        events.push(ev(4, "PermissionRequest", asks(Some(tool))));
        assert_eq!(pending(&events).expect("new").id(), "3");
    }

    #[test]
    fn a_tool_named_only_by_the_later_event_is_still_named() {
        let events = [
            ev(0, "BeforeAgent", EventClass::Submitted),
            ev(1, "Notification", asks(None)),
            ev(
                2,
                "Notification",
                asks(Some(json!({"name": "run_shell_command"}))),
            ),
        ];
        let asked = pending(&events).expect("pending");
        assert_eq!(
            (asked.id().as_str(), asked.tool_name()),
            ("1", Some("run_shell_command"))
        );
    }

    #[test]
    fn secrets_in_a_tools_input_are_masked_and_the_rest_kept() {
        let input = json!({
            "command": "curl -H 'Authorization: Bearer abc123' --token s3cr3t https://x.io?q=1 && API_KEY=hunter2 make && echo sk-ant-api03-0123456789abcdef",
            "api_key": "k-123", "path": "src/main.rs", "n": 3
        });
        let masked = redact(&input);
        let command = masked["command"].as_str().expect("command");
        for secret in ["abc123", "s3cr3t", "hunter2", "sk-ant-api03"] {
            assert!(!command.contains(secret), "{secret} in {command}");
        }
        assert!(
            command.contains("https://x.io?q=1") && command.contains("make"),
            "{command}"
        );
        assert_eq!(masked["api_key"], MASK);
        assert_eq!(masked["path"], "src/main.rs");
        assert_eq!(masked["n"], 3);
    }

    #[test]
    fn a_row_says_who_what_and_how_long() {
        let asked = Asked {
            index: 7,
            at_ns: 1_000_000_000_000,
            reason: "permission",
            tool: Some(json!({"name": "Bash", "input": {"command": "npm test"}})),
        };
        let row = PendingApproval::new("w1", ("codex", false), &asked, 9, 1_012_500);
        assert_eq!((row.id.as_str(), row.waited_ms), ("7", 12_500));
        assert_eq!(row.describe(), "w1 codex Bash npm test (waited 12s, id 7)");
        assert_eq!(
            (row.answer_with.as_str(), row.needs_person),
            ("approve", None)
        );
    }

    fn question(input: Value) -> Asked {
        Asked {
            index: 3,
            at_ns: 1_000_000_000_000,
            reason: "question",
            tool: Some(json!({"name": "AskUserQuestion", "input": input})),
        }
    }

    #[test]
    fn a_question_row_lists_its_choices_and_is_answered_with_answer() {
        let input = json!({"questions": [{"question": "Which color?", "header": "Color",
            "options": [{"label": "Red", "description": ""}, {"label": "Blue", "description": ""}]}]});
        let row = PendingApproval::new("w1", ("claude", true), &question(input), 5, 1_003_000);
        assert_eq!(row.questions.len(), 1);
        assert_eq!(row.answer_with, "answer");
        assert_eq!(
            row.describe(),
            "w1 claude AskUserQuestion \"Which color?\" 1 Red, 2 Blue (waited 3s, id 3)"
        );
    }

    #[test]
    fn a_question_umbel_cannot_press_needs_a_person() {
        let two = json!({"questions": [
            {"question": "A?", "options": [{"label": "x"}, {"label": "y"}]},
            {"question": "B?", "options": [{"label": "x"}, {"label": "y"}]}]});
        let row = PendingApproval::new("w1", ("claude", true), &question(two), 5, 1_003_000);
        assert_eq!(row.answer_with, "attach");
        assert!(
            row.describe()
                .contains("needs a person (it asks 2 questions")
        );
        let one = json!({"questions": [{"question": "A?", "options": [{"label": "x"}]}]});
        let row = PendingApproval::new("w1", ("codex", false), &question(one), 5, 1_003_000);
        assert_eq!(row.answer_with, "attach");
        let mcp = Asked {
            tool: None,
            ..question(json!({}))
        };
        let row = PendingApproval::new("w1", ("claude", true), &mcp, 5, 1_003_000);
        assert_eq!(row.answer_with, "attach");
    }
}
