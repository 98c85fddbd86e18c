//! A tool call in a [`Turn`], as copilot 1.0.102 makes one (`copilot-1.0.102-events.jsonl`,
//! the hook payloads, `permission.txt`, `approved.txt`, `denied.txt`): the model's first call
//! asks for the tool (`assistant.message` with `toolRequests` and no text,
//! `tool.execution_start`), `PreToolUse` fires, then
//!
//! - a tool whose kind `--deny-tool` names (`shell`: bash; `write`: edit, create) gets its
//!   `PermissionRequest` hook all the same (the hook runs before copilot's rules), then is
//!   refused without a dialog: a failed `tool.execution_complete` ("Permission to run this tool
//!   was denied due to the following rules: `shell`") and the model answers (recorded on
//!   1.0.102 under umbel);
//! - with `--allow-all-tools` the tool runs at once;
//! - the TUI applies those flags only `configure_ms` after its start (copilot's permission
//!   seeding); a `permissionRequest` hook in copilot's own shape ([`super::decision`]) decides
//!   before them and before the dialog: `permission.requested`, `permission.completed`
//!   (`approved`, or `denied-by-permission-request-hook` with its message) and the tool runs, or
//!   fails "Permission denied by a PermissionRequest hook: <message>" (recorded on 1.0.102);
//! - in `-p` without it the tool is refused at once (not recorded: no dialog, no permission
//!   hook, a failed `tool.execution_complete`) and the model answers;
//! - else `PermissionRequest`, `permission.requested`, the dialog, and `Notification` once it
//!   is drawn. `1` (or Enter on Yes): `permission.completed` approved, `PostToolUse`,
//!   `tool.execution_complete`, the call's `assistant.turn_end` and a second call (`turnId`
//!   `1`) that answers. Esc, `2` or Ctrl-C: `permission.completed` cancelled,
//!   `assistant.turn_end`, `abort` (`user_initiated`), no hook.
//!
//! Nothing is ever executed: the output is the scenario's, else [`crate::engine::tool`]'s (none
//! for a command that writes with `>`).

use std::time::Instant;

use super::decision::{self, Decision};
use super::ephemeral;
use super::payloads;
use super::records::{self, Answer, Call};
use super::screens::{self, ToolState};
use super::session::Session;
use super::turn::{Done, Outcome, Turn};
use crate::engine::menu::{Choice, Menu};
use crate::engine::timeline::{Phase, Step};
use crate::keys::Key;
use crate::scenario::Permission;

/// The permission dialog: 1. Yes, 2. No (the refusal).
const PERMISSION_MENU: Menu = Menu {
    last: 1,
    hotkeys: &[("1", 0), ("2", 1)],
    ctrl_c_refuses: true,
};

/// The call a scenario's `permission` asks for: `Bash` (any case, or `shell`) is copilot's
/// `bash`; another tool keeps its name (lower-cased as copilot's own: not recorded).
pub fn call_of(sess: &mut Session, p: &Permission) -> Call {
    let (name, claude_name) = match p.tool.to_ascii_lowercase().as_str() {
        "bash" | "shell" => ("bash".to_string(), "Bash".to_string()),
        other => (other.to_string(), p.tool.clone()),
    };
    let shell = name == "bash";
    let output = p
        .output
        .clone()
        .unwrap_or_else(|| crate::engine::tool::fake_output(shell, &p.input));
    Call {
        id: format!("call_{}", sess.ids.alnum(24)),
        name,
        claude_name,
        input: p.input.clone(),
        output,
        request: sess.uuid(),
    }
}

impl Turn {
    /// The delay is over and the model asks for a tool: `None` when it runs (or is refused)
    /// at once and the answer streams, `Some(None)` while its dialog is up.
    pub(super) fn ask(
        &mut self,
        sess: &mut Session,
        p: &Permission,
        now: Instant,
    ) -> Step<Outcome> {
        let call = call_of(sess, p);
        self.request(sess, &call);
        let hook = payloads::pre_tool_use(&sess.ctx(), &call);
        sess.fire(hook);
        // The TUI's `--allow-all` and `--deny-tool` are in force only once it applied them.
        let in_force = now >= sess.rules_from;
        let allow_all = in_force && sess.allow_all;
        let denied = in_force && Self::denied_kind(&sess.denied, &call.name);
        if !denied && (allow_all || !sess.interactive) {
            self.call = Some(call);
            self.ran(sess, now, allow_all);
            return None;
        }
        // The permission hook runs before the rules decide (recorded on 1.0.102), and a hook in
        // copilot's own shape decides before them (recorded on 1.0.102 and 1.0.82).
        let hook = payloads::permission_request(&sess.ctx(), &call);
        let payload = hook.payload.to_line();
        sess.fire(hook);
        let decided = self.hook_decides(sess, &call, &payload);
        if decided.is_some() || denied {
            self.call = Some(call);
            self.ran(sess, now, decided == Some(true));
            return None;
        }
        sess.record(
            "permission.requested",
            records::permission_requested(&sess.who, &call),
        );
        self.call = Some(call);
        self.notify = true;
        self.core.phase = Phase::Dialog(0);
        Some(None)
    }

    /// The model's call asking for the tool: its message and the tool's start.
    fn request(&mut self, sess: &mut Session, call: &Call) {
        let (usage, api_call) = self.usage(sess, Some(call));
        sess.ephemeral(
            "assistant.tool_call_delta",
            ephemeral::tool_call_delta(call),
        );
        let ms = (sess.clock.now_ms() - self.call_at).max(1) as u64;
        sess.ephemeral(
            "model.call_finished",
            ephemeral::call_finished(0, &self.x, ms, true),
        );
        if let Some(u) = usage {
            sess.record("session.usage_record", u);
        }
        let id = sess.uuid();
        let a = Answer {
            id: &id,
            content: "",
            calls: vec![records::tool_request(call)],
            turn: 0,
            api_call: &api_call,
            reasoning: None,
        };
        sess.record(
            "assistant.message",
            records::assistant_message(&sess.who, &self.x, &a),
        );
        sess.record(
            "tool.execution_start",
            records::tool_start(&sess.who, call, 0),
        );
        sess.ephemeral(
            "model.call_final_result",
            ephemeral::call_final_result(&sess.who, None),
        );
    }

    /// What a `permissionRequest` hook in copilot's own shape decided on `call` (`Some(true)`:
    /// run it), recorded as copilot records it; `None`: no hook decided.
    fn hook_decides(&mut self, sess: &mut Session, call: &Call, payload: &str) -> Option<bool> {
        let refused = match decision::decide(&sess.decisions, &sess.who.cwd, payload)? {
            Decision::Deny(message) => Some(message),
            Decision::Allow => None,
        };
        sess.record(
            "permission.requested",
            records::permission_requested(&sess.who, call),
        );
        sess.record(
            "permission.completed",
            records::permission_decided(call, refused.as_deref()),
        );
        let allowed = refused.is_none();
        self.refusal =
            refused.map(|m| format!("Permission denied by a PermissionRequest hook: {m}"));
        Some(allowed)
    }

    /// Whether a `--deny-tool` kind covers the tool `name`: `shell` the shell, `write` the tools
    /// that write files, a bare name itself.
    fn denied_kind(denied: &[String], name: &str) -> bool {
        Self::denied_rules(denied, name).is_some()
    }

    /// The `--deny-tool` kinds covering the tool `name`, as copilot's refusal names them
    /// (`` `shell` ``), or `None`.
    fn denied_rules(denied: &[String], name: &str) -> Option<String> {
        let kinds: Vec<String> = denied
            .iter()
            .filter(|kind| match kind.as_str() {
                "shell" => name == "bash",
                "write" => matches!(name, "edit" | "create"),
                other => other == name,
            })
            .map(|kind| format!("`{kind}`"))
            .collect();
        (!kinds.is_empty()).then(|| kinds.join(", "))
    }

    /// The dialog is on the screen: its `Notification`.
    pub fn after_draw(&mut self, sess: &mut Session) {
        if !std::mem::take(&mut self.notify) {
            return;
        }
        if let Some(call) = &self.call {
            let hook = payloads::notification(&sess.ctx(), call);
            sess.fire(hook);
        }
    }

    /// A key on the permission dialog; an outcome when it ended the turn.
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        match self.core.menu_key(&PERMISSION_MENU, key)? {
            Choice::Refuse => Some(self.refuse(sess)),
            _ => {
                sess.record(
                    "permission.completed",
                    records::permission_completed(self.call.as_ref()?, true),
                );
                self.ran(sess, now, true);
                None
            }
        }
    }

    /// The tool ran (`allowed`), or was refused without asking (`-p`): its result, the call's
    /// end, and the second call, whose answer streams from `now`.
    fn ran(&mut self, sess: &mut Session, now: Instant, allowed: bool) {
        let Some(call) = self.call.clone() else {
            return;
        };
        if allowed {
            let hook = payloads::post_tool_use(&sess.ctx(), &call);
            sess.fire(hook);
            sess.ephemeral(
                "tool.execution_partial_result",
                ephemeral::partial_result(&call),
            );
            let data = records::tool_complete(&sess.who, &call, &self.x, Ok(()));
            sess.record("tool.execution_complete", data);
            self.core
                .commits
                .extend(screens::tool(&call, ToolState::Ran, sess.who.release));
        } else {
            let rules = Self::denied_rules(&sess.denied, &call.name);
            let refused = match (self.refusal.take(), rules) {
                (Some(message), _) => message,
                (None, Some(kinds)) => format!(
                    "Permission to run this tool was denied due to the following rules: {kinds}"
                ),
                (None, None) => {
                    "Permission denied and could not request permission from user".into()
                }
            };
            let data = records::tool_complete(&sess.who, &call, &self.x, Err(&refused));
            sess.record("tool.execution_complete", data);
        }
        sess.record("assistant.turn_end", records::turn_end(self.turn));
        self.turn += 1;
        sess.record(
            "assistant.turn_start",
            records::turn_start(self.turn, &self.x),
        );
        sess.ephemeral(
            "model.call_start",
            ephemeral::call_start(&sess.who, self.turn),
        );
        self.call_at = sess.clock.now_ms();
        self.core.resume(now);
        self.open_answer(sess);
    }

    /// Esc (or `2`, or Ctrl-C) on the permission dialog.
    pub fn refuse(&mut self, sess: &mut Session) -> Outcome {
        if let Some(call) = self.call.clone() {
            sess.record(
                "permission.completed",
                records::permission_completed(&call, false),
            );
            self.core
                .commits
                .extend(screens::tool(&call, ToolState::Refused, sess.who.release));
        }
        sess.record("assistant.turn_end", records::turn_end(self.turn));
        sess.record("abort", records::abort("user_initiated"));
        self.core.commits.extend(screens::cancelled());
        Outcome::Done(Done {
            cancelled: true,
            ..Done::default()
        })
    }
}
