//! The tool part of a `permission` turn: the model's `exec_command` call,
//! `PreToolUse`, the approval prompt with `PermissionRequest` (skipped with
//! the bypass flag and in `exec`), the fake run with `PostToolUse`, or the
//! refusal. Nothing is ever executed.

use std::time::Instant;

use serde_json::Value;

use super::screens;
use super::session::Session;
use super::turn::{Outcome, Phase, ToolCall, Turn};
use crate::engine::tool::fake_output;
use crate::json::{J, Obj};
use crate::obj;
use crate::scenario::Permission;

/// Quotes one shell word the way codex shows commands (shlex style): the
/// word is cut into the longest chunks one quoting style can hold (bare, else
/// single quotes, else double quotes; `'` cannot be single-quoted, `!` and
/// `^` are kept out of double quotes).
pub fn shell_quote(word: &str) -> String {
    const BARE: u8 = 1;
    const SINGLE: u8 = 2;
    const DOUBLE: u8 = 4;
    let safe = |c: char| c.is_ascii_alphanumeric() || "+-./:@]_,=%".contains(c);
    let chars: Vec<char> = word.chars().collect();
    if chars.is_empty() {
        return "''".to_string();
    }
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        let mut ok = BARE | SINGLE | DOUBLE;
        while i < chars.len() {
            let c = chars[i];
            let mut cur = ok;
            if !safe(c) {
                cur &= !BARE;
            }
            if c == '\'' {
                cur &= !SINGLE;
            }
            if matches!(c, '!' | '^') {
                cur &= !DOUBLE;
            }
            if cur == 0 {
                break;
            }
            ok = cur;
            i += 1;
        }
        let chunk = &chars[start..i];
        if ok & BARE != 0 {
            out.extend(chunk);
        } else if ok & SINGLE != 0 {
            out.push('\'');
            out.extend(chunk);
            out.push('\'');
        } else {
            out.push('"');
            for &c in chunk {
                if matches!(c, '$' | '`' | '"' | '\\') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
    }
    out
}

/// `/bin/bash -lc <cmd>` as one display string.
pub fn display_command(cmd: &str) -> String {
    format!("/bin/bash -lc {}", shell_quote(cmd))
}

fn command_item(id: &str, cmd: &str, output: &str, done: bool) -> Obj {
    obj! {
        "id" => id,
        "type" => "command_execution",
        "command" => display_command(cmd),
        "aggregated_output" => output,
        "exit_code" => if done { J::from(0u64) } else { crate::json::null() },
        "status" => if done { "completed" } else { "in_progress" },
    }
}

/// Why a command asking for escalation did not run under approval `never`.
pub const REJECTED_NEVER: &str = "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never";

impl Turn {
    /// The model asked to run a command.
    pub(super) fn tool_requested(&mut self, sess: &mut Session, p: Permission, now: Instant) {
        let cmd = p
            .input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let reason = p
            .input
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        let call_id = format!("call_{}", sess.ids.alnum(24));
        let usage = self.response_usage(&cmd);
        self.usage.add(usage);
        let records = vec![
            sess.rec_function_call(&self.turn_id, &call_id, &cmd, reason.as_deref()),
            sess.rec_token_usage(&self.turn_id, usage, self.usage),
        ];
        sess.append(&records);
        let payload = sess.payload_pre_tool_use(&self.turn_id, &p.tool, &p.input, &call_id);
        sess.fire("PreToolUse", Some(&p.tool), &payload);

        let tool = p.tool.clone();
        let item_id = self.next_item_id();
        self.tool = Some(ToolCall {
            call_id,
            item_id,
            cmd,
            reason,
            started_ms: sess.clock.now_ms(),
            permission: p,
        });
        // `exec` runs it: the sim's exec-json tool turns are recorded from plain commands (the
        // real exec rejects an escalation like `-a never` below).
        if sess.bypass_approvals || !sess.interactive {
            return self.run_tool(sess, now, None);
        }
        if sess.approval_never {
            return self.reject(sess, now);
        }
        if let Some(t) = &self.tool {
            let payload =
                sess.payload_permission_request(&self.turn_id, &tool, &t.permission.input);
            sess.fire("PermissionRequest", Some(&tool), &payload);
        }
        self.core.phase = Phase::Dialog(0);
    }

    /// Approval `never` in the TUI (`-a never`): the escalation the command asked for is rejected
    /// without asking (the real 0.171.0 logs this text) and the model goes on.
    fn reject(&mut self, sess: &mut Session, now: Instant) {
        let Some(t) = self.tool.take() else { return };
        let record = sess.rec_call_output(&self.turn_id, &t.call_id, REJECTED_NEVER);
        sess.append(&[record]);
        self.text_started_ms = sess.clock.now_ms();
        self.core.resume(now);
    }

    /// `y`, `p`, `1`, `2` or Enter on a Yes.
    pub(super) fn approve(&mut self, sess: &mut Session, now: Instant, always: bool) {
        self.run_tool(sess, now, Some(always));
    }

    fn run_tool(&mut self, sess: &mut Session, now: Instant, decision: Option<bool>) {
        let Some(t) = self.tool.take() else { return };
        let p = &t.permission;
        if let Some(always) = decision {
            self.core
                .commits
                .extend(screens::decision(&t.cmd, true, always));
        }
        let output = p
            .output
            .clone()
            .unwrap_or_else(|| fake_output(p.tool == "Bash", &p.input));
        let response = if output.ends_with('\n') {
            output.clone()
        } else {
            format!("{output}\n")
        };
        self.events.push(obj! {
            "type" => "item.started",
            "item" => command_item(&t.item_id, &t.cmd, "", false),
        });
        self.core.commits.extend(screens::ran(&t.cmd, &output));
        let payload =
            sess.payload_post_tool_use(&self.turn_id, &p.tool, &p.input, &response, &t.call_id);
        sess.fire("PostToolUse", Some(&p.tool), &payload);
        let mut records =
            sess.rec_command_done(&self.turn_id, &t.call_id, &t.cmd, &response, t.started_ms);
        records.push(sess.rec_token_count());
        sess.append(&records);
        self.events.push(obj! {
            "type" => "item.completed",
            "item" => command_item(&t.item_id, &t.cmd, &response, true),
        });
        self.text_started_ms = sess.clock.now_ms();
        self.core.resume(now);
    }

    /// `3`, Esc or Ctrl-C in the approval prompt: the turn is aborted.
    pub(super) fn refuse(&mut self, sess: &mut Session) -> Outcome {
        let Some(t) = self.tool.take() else {
            return self.aborted(sess);
        };
        self.core
            .commits
            .extend(screens::decision(&t.cmd, false, false));
        self.aborted(sess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_quoted_like_the_recording() {
        let cmd = "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-codex.txt; echo hello-from-tool";
        assert_eq!(
            display_command(cmd),
            r#"/bin/bash -lc "env | grep -E '"'^(CLAUDE|AI_AGENT|CODEX|GEMINI)'"' | sort > /tmp/hooklogs/tool-env-codex.txt; echo hello-from-tool""#
        );
        assert_eq!(display_command("ls"), "/bin/bash -lc ls");
        assert_eq!(display_command("echo hi"), "/bin/bash -lc 'echo hi'");
    }
}
