//! One turn on the bus, shared by the TUI and `opencode run`: the events 1.18.33 publishes for
//! it, in its order (`tests/data/opencode/1.18.33/opencode-1.18.33-events-text-turn.jsonl`),
//! on the engine's timeline ([`crate::engine::timeline`]).
//!
//! `start` publishes the prompt (the session first, on the first prompt), the busy status and
//! the assistant message; the text streams into one text part; a tool call is a tool part going
//! `pending` → `running` → `completed` (or `error`), asked about first when the rules say `ask`
//! (`permission.asked`, the dialog; the question tool asks its questions between `pending` and
//! `running` instead, [`super::ask`]); the end is the parts and message finished. What comes
//! once the screen is idle — `session.status` idle and `session.idle`, after an error or Esc
//! `session.error` and the failed message — is handed back in [`Done::events`].

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::bus::{self, Call};
use super::session::{Rule, Session};
use crate::engine::ask::Asking;
use crate::engine::timeline::{Core, Late, Phase, Step, Timeline};
use crate::keys::Key;
use crate::scenario::{End, Permission};

/// What a finished turn hands back.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    /// Events to publish once the screen shows idle: (type, properties).
    pub events: Vec<(&'static str, Value)>,
    /// Record lines held back (`late_transcript_ms`).
    pub late: Option<Late>,
    /// The turn's error object (`APIError`, `MessageAbortedError`), if it failed.
    pub error: Option<Value>,
    /// The tool call was rejected: the turn's footer shows no duration (1.18.33, rec-out
    /// `opencode-esc`).
    pub rejected: bool,
}

/// How a turn ended.
pub type Outcome = crate::engine::timeline::Outcome<Done>;

/// A tool call in flight: the call, its part's id, its permission request, when it started.
#[derive(Clone, Debug)]
pub struct Running {
    /// The call.
    pub call: Call,
    pub(super) part: String,
    pub(super) request: String,
    pub(super) start: i64,
}

/// A running turn.
pub struct Turn {
    /// Phase, pacing.
    pub core: Core,
    /// The prompt.
    pub prompt: String,
    /// The text streamed so far in the current block.
    pub text: String,
    /// Finished blocks: answer text and `$ command` lines.
    pub shown: Vec<String>,
    /// The tool call waiting for the person, or running.
    pub running: Option<Running>,
    /// "Always allow" asked next, over the permission question: the cursor (0 Confirm, 1
    /// Cancel).
    pub always: Option<usize>,
    /// The question tool's questions, while it asks them ([`super::ask`]).
    pub asking: Option<Asking>,
    /// `run --auto`: every permission allowed.
    auto: bool,
    /// The TUI (a person can answer a permission question); `run` refuses instead.
    pub(super) interactive: bool,
    user: String,
    assistant: Value,
    text_part: Option<(String, i64)>,
    stepped: bool,
}

/// opencode's tool for a scenario's tool name (Claude's names: `Bash`, `Edit`, …).
pub fn tool_name(tool: &str) -> String {
    match tool {
        "Bash" | "Shell" | "run_shell_command" => "bash".into(),
        "Edit" | "MultiEdit" | "replace" => "edit".into(),
        "Write" | "write_file" => "write".into(),
        "WebFetch" | "web_fetch" => "webfetch".into(),
        other => other.to_lowercase(),
    }
}

impl Turn {
    /// The turn the script picks for `prompt`.
    pub fn new(
        sess: &mut Session,
        prompt: String,
        now: Instant,
        interactive: bool,
        auto: bool,
    ) -> Turn {
        let chosen = sess.script.select(&prompt);
        chosen.write_files();
        let chunks = chosen.chunks();
        Turn {
            core: Core::new(chosen, chunks, now, sess.clock.now_ms()),
            prompt,
            text: String::new(),
            shown: Vec::new(),
            running: None,
            always: None,
            asking: None,
            auto,
            interactive,
            user: String::new(),
            assistant: Value::Null,
            text_part: None,
            stepped: false,
        }
    }

    /// The session's id and the properties' head every message event has.
    fn props(sess: &Session, key: &str, value: Value) -> Value {
        json!({ "sessionID": sess.who.session, key: value })
    }

    pub(super) fn part(&self, sess: &mut Session, part: Value) {
        let ms = sess.clock.now_ms();
        sess.publish(
            "message.part.updated",
            json!({ "sessionID": sess.who.session, "part": part, "time": ms }),
        );
    }

    pub(super) fn message(&self, sess: &mut Session, info: Value) {
        sess.publish("message.updated", Turn::props(sess, "info", info));
    }

    /// A new assistant message (the first, or the one after a tool call).
    fn open_assistant(&mut self, sess: &mut Session) {
        let id = sess.id("msg");
        let ms = sess.clock.now_ms();
        self.assistant = bus::assistant_message(&sess.who, &id, &self.user, ms);
        self.stepped = false;
        self.message(sess, self.assistant.clone());
    }

    pub(super) fn message_id(&self) -> String {
        self.assistant["id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn step_start(&mut self, sess: &mut Session) {
        if std::mem::replace(&mut self.stepped, true) {
            return;
        }
        let id = sess.id("prt");
        self.part(sess, bus::step_start(&sess.who, &self.message_id(), &id));
    }

    pub(super) fn step_finish(&self, sess: &mut Session, reason: &str) {
        let id = sess.id("prt");
        self.part(
            sess,
            bus::step_finish(&sess.who, &self.message_id(), &id, reason),
        );
    }

    /// The model's thinking before its text: a `reasoning` part, empty as it starts, then
    /// whole (opencode records the part again as it grows).
    fn reasoning(&mut self, sess: &mut Session, thinking: &str) {
        let id = sess.id("prt");
        let start = sess.clock.now_ms();
        let started = bus::reasoning(&sess.who, &self.message_id(), &id, "", start, None);
        self.part(sess, started);
        sess.clock.advance(3);
        let end = Some(sess.clock.now_ms());
        let whole = bus::reasoning(&sess.who, &self.message_id(), &id, thinking, start, end);
        self.part(sess, whole);
    }

    /// Ends the text block streamed so far (its part whole), if one was started.
    fn close_text(&mut self, sess: &mut Session) {
        let Some((id, start)) = self.text_part.take() else {
            return;
        };
        sess.clock.advance(1);
        let end = sess.clock.now_ms();
        let part = bus::text(
            &sess.who,
            &self.message_id(),
            &id,
            &self.text,
            start,
            Some(end),
        );
        self.part(sess, part);
        self.shown.push(std::mem::take(&mut self.text));
    }

    /// The idle events every ending publishes.
    pub fn idle_events(sess: &Session) -> Vec<(&'static str, Value)> {
        vec![
            ("session.status", bus::status(&sess.who, false)),
            ("session.idle", json!({ "sessionID": sess.who.session })),
        ]
    }

    /// The answer is whole: the text part, the step and the message finished.
    fn answer(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.close_text(sess);
        self.step_finish(sess, "stop");
        self.message(sess, bus::assistant_finished(&self.assistant, "stop", None));
        let late_ms = self.core.late_ms(&mut sess.clock);
        let completed = bus::assistant_finished(&self.assistant, "stop", Some(sess.clock.now_ms()));
        let props = Turn::props(sess, "info", completed);
        let late = match late_ms {
            Some(ms) => Some(Late {
                due: now + Duration::from_millis(ms),
                records: sess.publish_held("message.updated", props),
            }),
            None => {
                sess.publish("message.updated", props);
                None
            }
        };
        let mut events = vec![("session.status", bus::status(&sess.who, true))];
        events.extend(Turn::idle_events(sess));
        Outcome::Done(Done {
            events,
            late,
            error: None,
            rejected: false,
        })
    }

    /// The turn failed with `error`: `session.error`, then the message failed, then idle.
    fn fail(&mut self, sess: &mut Session, error: Value) -> Outcome {
        self.close_text(sess);
        let failed = bus::assistant_failed(&self.assistant, &error, sess.clock.now_ms());
        let mut events = vec![
            (
                "session.error",
                json!({ "sessionID": sess.who.session, "error": error }),
            ),
            ("message.updated", Turn::props(sess, "info", failed)),
        ];
        events.extend(Turn::idle_events(sess));
        Outcome::Done(Done {
            events,
            late: None,
            error: Some(error),
            rejected: false,
        })
    }

    /// Esc: the turn is aborted (a tool waiting for the person is refused first).
    pub fn cancel(&mut self, sess: &mut Session) -> Outcome {
        if let Some(run) = self.running.take() {
            let (request, reply) = (
                run.request.clone(),
                bus::permission_replied(&sess.who, &run.request, "reject"),
            );
            if !request.is_empty() {
                sess.publish("permission.replied", reply);
            }
            self.tool_end(sess, &run, Err("Tool execution aborted"));
        }
        self.fail(sess, bus::aborted())
    }

    /// A key while the permission question is up (recorded on 1.18.33, rec-out
    /// `opencode-*.md`): ⇆ (Left/Right, Tab) move round its three options — Left from "Allow
    /// once" to "Reject" — Enter takes the selected one, Esc rejects. "Allow always" asks again
    /// first ([`Turn::always_key`]).
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        let Phase::Dialog(cursor) = self.core.phase else {
            return None;
        };
        if self.asking.is_some() {
            return self.ask_key(sess, key, now);
        }
        if self.always.is_some() {
            return self.always_key(sess, key, now);
        }
        let moved = match key {
            Key::Left => (cursor + 2) % 3,
            Key::Right | Key::Tab => (cursor + 1) % 3,
            Key::Up => cursor.saturating_sub(1),
            Key::Down => (cursor + 1).min(2),
            Key::Enter if cursor == 0 => return self.approve(sess, "once", now),
            Key::Enter if cursor == 1 => {
                self.always = Some(0);
                return None;
            }
            Key::Enter | Key::Esc => return Some(self.reject(sess)),
            _ => cursor,
        };
        self.core.phase = Phase::Dialog(moved);
        None
    }

    /// A key on "Always allow … Confirm  Cancel" (Confirm selected first): Enter on Confirm
    /// allows the call and, until opencode ends, every call its patterns match; Esc (or Enter
    /// on Cancel) goes back to the question, "Allow once" selected, and publishes nothing.
    fn always_key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        let cursor = self.always?;
        match key {
            Key::Left | Key::Right | Key::Tab => self.always = Some(1 - cursor),
            Key::Enter if cursor == 0 => {
                self.always = None;
                if let Some(run) = &self.running {
                    let (permission, _) = bus::permission_of(&run.call);
                    sess.allow_always(permission, &bus::always_of(&run.call));
                }
                return self.approve(sess, "always", now);
            }
            Key::Enter | Key::Esc => {
                self.always = None;
                self.core.phase = Phase::Dialog(0);
            }
            _ => {}
        }
        None
    }

    /// The "Always allow" question, when it is up: the patterns it allows and its cursor.
    pub fn always_asked(&self) -> Option<(Vec<String>, usize)> {
        let cursor = self.always?;
        let run = self.running.as_ref()?;
        Some((bus::always_of(&run.call), cursor))
    }

    fn approve(&mut self, sess: &mut Session, reply: &str, now: Instant) -> Option<Outcome> {
        let run = self.running.take()?;
        sess.publish(
            "permission.replied",
            bus::permission_replied(&sess.who, &run.request, reply),
        );
        let output = self.output(&run.call);
        self.tool_end(sess, &run, Ok(output));
        self.next_step(sess, now);
        None
    }

    /// Reject: the tool fails and the turn stops there (opencode's loop is blocked).
    fn reject(&mut self, sess: &mut Session) -> Outcome {
        if let Some(run) = self.running.take() {
            let reply = bus::permission_replied(&sess.who, &run.request, "reject");
            sess.publish("permission.replied", reply);
            self.tool_end(
                sess,
                &run,
                Err("The user rejected permission to use this specific tool call."),
            );
        }
        self.blocked(sess)
    }

    /// A refused call stops the turn there (opencode's loop is blocked): the step and the
    /// message end (`tool-calls`), idle; the turn's footer shows no duration.
    pub(super) fn blocked(&mut self, sess: &mut Session) -> Outcome {
        self.step_finish(sess, "tool-calls");
        let ms = sess.clock.now_ms();
        self.message(
            sess,
            bus::assistant_finished(&self.assistant, "tool-calls", Some(ms)),
        );
        Outcome::Done(Done {
            events: Turn::idle_events(sess),
            late: None,
            error: None,
            rejected: true,
        })
    }

    /// The scripted tool output (nothing is run).
    fn output(&self, call: &Call) -> String {
        let scripted = match &self.core.chosen.end {
            End::Permission(p) => p.output.clone(),
            _ => None,
        };
        let output = scripted
            .unwrap_or_else(|| crate::engine::tool::fake_output(call.tool == "bash", &call.input));
        format!("{}\n", output.trim_end_matches('\n'))
    }

    /// The model asked for a tool: its part, then the rules decide (run, refuse, or ask).
    fn tool_requested(&mut self, sess: &mut Session, p: Permission, now: Instant) -> Step<Outcome> {
        // The model says what it will do first (fake-model's words, as fake-claude's).
        self.text_starts(sess);
        self.text = crate::claude::screens::preamble(&p.tool);
        self.close_text(sess);
        let call = Call {
            tool: tool_name(&p.tool),
            id: format!("toolu_{}", sess.ids.alnum(20)),
            input: p.input.clone(),
        };
        let part = sess.id("prt");
        let message = self.message_id();
        let pending = json!({ "status": "pending", "input": {}, "raw": "" });
        self.part(sess, bus::tool(&sess.who, &message, &part, &call, pending));
        if let Some(asking) = self.question_of(sess, &call) {
            return self.ask(sess, call, part, asking);
        }
        let start = sess.clock.now_ms();
        let running =
            json!({ "status": "running", "input": call.input, "time": { "start": start } });
        self.part(sess, bus::tool(&sess.who, &message, &part, &call, running));
        let mut run = Running {
            call,
            part,
            request: String::new(),
            start,
        };
        let (permission, subject) = bus::permission_of(&run.call);
        let rule = match sess.rule(permission, self.auto) {
            Rule::Ask if sess.allowed_always(permission, &subject) => Rule::Allow,
            rule => rule,
        };
        match rule {
            Rule::Allow => {
                let output = self.output(&run.call);
                self.tool_end(sess, &run, Ok(output));
            }
            Rule::Ask if self.interactive => {
                run.request = sess.id("per");
                let asked = bus::permission_asked(&sess.who, &run.request, &message, &run.call);
                sess.publish("permission.asked", asked);
                self.running = Some(run);
                self.core.phase = Phase::Dialog(0);
                return Some(None);
            }
            Rule::Ask | Rule::Deny => self.tool_end(sess, &run, Err(DENIED)),
        }
        self.next_step(sess, now);
        Some(None)
    }

    /// The tool part's last state: completed with `output`, or an error.
    fn tool_end(&mut self, sess: &mut Session, run: &Running, result: Result<String, &str>) {
        let input = run.call.input.clone();
        let title = input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or(&run.call.tool)
            .to_string();
        let state = match result {
            Ok(output) => json!({ "status": "completed", "input": input, "output": output,
                "metadata": { "output": output, "exit": 0, "truncated": false }, "title": title }),
            Err(error) => json!({ "status": "error", "input": input, "error": error }),
        };
        self.end_part(sess, run, state);
        self.shown.push(match run.call.tool.as_str() {
            "bash" => format!("$ {title}"),
            tool => format!("⚙ {tool} {title}"),
        });
    }

    /// The tool part's last `state` (its `time` added: from its start to 5 ms on).
    pub(super) fn end_part(&mut self, sess: &mut Session, run: &Running, mut state: Value) {
        sess.clock.advance(5);
        state["time"] = json!({ "start": run.start, "end": sess.clock.now_ms() });
        let part = bus::tool(&sess.who, &self.message_id(), &run.part, &run.call, state);
        self.part(sess, part);
    }

    /// After a tool call: the step and message end (`tool-calls`), a new message streams.
    pub(super) fn next_step(&mut self, sess: &mut Session, now: Instant) {
        self.close_text(sess);
        self.step_finish(sess, "tool-calls");
        let ms = sess.clock.now_ms();
        self.message(
            sess,
            bus::assistant_finished(&self.assistant, "tool-calls", Some(ms)),
        );
        self.open_assistant(sess);
        self.core.resume(now);
        // The text after the tool streams at once (the timeline's delay is over).
        self.text_starts(sess);
    }
}

/// What a refused tool call answers (a `deny` rule, or `run` with nobody to ask).
const DENIED: &str = "The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules [{\"permission\":\"*\",\"pattern\":\"*\",\"action\":\"deny\"}]";

impl Timeline for Turn {
    crate::timeline_parts!(Session);

    /// The prompt on the bus: the session (first prompt), the user message, busy, the answer's
    /// message.
    fn start(&mut self, sess: &mut Session) {
        sess.ensure_created();
        self.user = sess.id("msg");
        let ms = sess.clock.now_ms();
        let user = bus::user_message(&sess.who, &self.user, ms);
        self.message(sess, user);
        let id = sess.id("prt");
        let text = bus::user_text(&sess.who, &self.user, &id, &self.prompt);
        self.part(sess, text);
        sess.publish("session.status", bus::status(&sess.who, true));
        self.open_assistant(sess);
    }

    fn delay_over(&mut self, sess: &mut Session, now: Instant) -> Step<Outcome> {
        match self.core.chosen.end.clone() {
            End::ApiError(e) => Some(Some(self.fail(sess, bus::api_error(e.status, &e.message)))),
            End::Permission(p) if !self.core.after_tool => self.tool_requested(sess, p, now),
            _ => None,
        }
    }

    fn text_starts(&mut self, sess: &mut Session) {
        self.step_start(sess);
        if let Some(thinking) = self.core.chosen.thinking.clone() {
            self.reasoning(sess, &thinking);
        }
        let id = sess.id("prt");
        let start = sess.clock.now_ms();
        let part = bus::text(&sess.who, &self.message_id(), &id, "", start, None);
        self.part(sess, part);
        self.text_part = Some((id, start));
    }

    fn chunk(&mut self, chunk: String) {
        self.text.push_str(&chunk);
    }

    fn commit_rest(&mut self) {}

    /// opencode has no sign-in screen: a session lost mid-turn is the provider's refusal
    /// (`ProviderAuthError`), a failed turn like any API error.
    fn text_over(&mut self, sess: &mut Session, _now: Instant) -> Step<Outcome> {
        let lost = matches!(self.core.chosen.end, End::SignIn);
        lost.then(|| Some(self.fail(sess, bus::auth_error(&sess.who.model.0))))
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.answer(sess, now)
    }
}
