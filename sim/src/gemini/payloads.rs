//! Hook payloads, field for field as Gemini CLI 0.61.0 sends them
//! (`fixtures/samples/gemini-0.61.0-hook-payloads.jsonl`). Every payload
//! starts with `session_id`, `transcript_path`, `cwd`, `hook_event_name` and
//! a `timestamp` from the virtual clock.

use serde_json::Value;

use super::screens::NO_RESPONSE;
use super::session::Session;
use crate::json::Obj;
use crate::obj;

impl Session {
    fn common(&mut self, event: &str) -> Obj {
        obj! {
            "session_id" => self.id.as_str(),
            "transcript_path" => self.chat_path.to_string_lossy().into_owned(),
            "cwd" => self.cwd.as_str(),
            "hook_event_name" => event,
            "timestamp" => self.clock.stamp(),
        }
    }

    /// `SessionStart` (`source`: `startup`).
    pub fn payload_session_start(&mut self, source: &str) -> Obj {
        self.common("SessionStart").with("source", source)
    }

    /// `BeforeAgent` with the full prompt.
    pub fn payload_before_agent(&mut self, prompt: &str) -> Obj {
        self.common("BeforeAgent").with("prompt", prompt)
    }

    /// `AfterAgent`; an empty response is reported as `[no response text]`.
    pub fn payload_after_agent(&mut self, prompt: &str, response: &str) -> Obj {
        let response = if response.is_empty() {
            NO_RESPONSE
        } else {
            response
        };
        self.common("AfterAgent")
            .with("prompt", prompt)
            .with("prompt_response", response)
            .with("stop_hook_active", false)
    }

    /// `BeforeTool`.
    pub fn payload_before_tool(&mut self, tool: &str, input: &Value) -> Obj {
        self.common("BeforeTool")
            .with("tool_name", tool)
            .with("tool_input", input)
    }

    /// `AfterTool` with the tool's `llmContent` and display.
    pub fn payload_after_tool(
        &mut self,
        tool: &str,
        input: &Value,
        llm: &str,
        display: &str,
    ) -> Obj {
        self.common("AfterTool")
            .with("tool_name", tool)
            .with("tool_input", input)
            .with(
                "tool_response",
                obj! { "llmContent" => llm, "returnDisplay" => display },
            )
    }

    /// `Notification` (`ToolPermission`) once the confirmation is visible.
    pub fn payload_notification(&mut self, title: &str, details: Obj) -> Obj {
        self.common("Notification")
            .with("notification_type", "ToolPermission")
            .with("message", format!("Tool {title} requires execution"))
            .with("details", details)
    }

    /// `Notification` (`ToolPermission`) once the question dialog is visible (0.61.0, rec-out
    /// `gemini-q-2`: its own message, and `details` naming the dialog only).
    pub fn payload_ask_notification(&mut self) -> Obj {
        self.common("Notification")
            .with("notification_type", "ToolPermission")
            .with("message", "Tool requires confirmation")
            .with(
                "details",
                obj! { "type" => "ask_user", "title" => "Ask User" },
            )
    }

    /// The head of fake-qwen's `idle_prompt` Notification (`Idle`: gemini has no such hook).
    pub fn payload_idle(&mut self) -> Obj {
        self.common("Notification")
    }

    /// `SessionEnd` (`reason`: `exit`).
    pub fn payload_session_end(&mut self, reason: &str) -> Obj {
        self.common("SessionEnd").with("reason", reason)
    }
}

/// `details` of the permission Notification and its title: for shell
/// commands `{type:"exec", title, command, rootCommand}`.
pub fn confirmation_details(tool: &str, display: &str, input: &Value) -> (String, Obj) {
    match input.get("command").and_then(Value::as_str) {
        Some(cmd) if tool == "run_shell_command" => {
            let title = "Confirm Shell Command".to_string();
            let details = obj! {
                "type" => "exec",
                "title" => title.as_str(),
                "command" => cmd,
                "rootCommand" => root_commands(cmd),
            };
            (title, details)
        }
        _ => {
            let title = format!("Confirm {display}");
            let details = obj! {
                "type" => "info",
                "title" => title.as_str(),
                "prompt" => serde_json::to_string(input).unwrap_or_default(),
            };
            (title, details)
        }
    }
}

/// The commands a shell line runs, as the confirmation reports them:
/// `env | grep x | sort > f; echo hi` → `env, grep, sort, redirection (>), echo`.
pub fn root_commands(cmd: &str) -> String {
    // Split on `|`, `;`, `&` outside quotes; note `>` outside quotes.
    let mut parts: Vec<(String, bool)> = vec![(String::new(), false)];
    let mut quote: Option<char> = None;
    for c in cmd.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => {
                if let Some(last) = parts.last_mut() {
                    last.0.push(c);
                }
            }
            (None, '\'' | '"') => quote = Some(c),
            (None, '|' | ';' | '&') => parts.push((String::new(), false)),
            (None, '>') => {
                if let Some(last) = parts.last_mut() {
                    last.1 = true;
                }
            }
            (None, c) => {
                if let Some(last) = parts.last_mut() {
                    last.0.push(c);
                }
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (text, redirect) in parts {
        let word = text.split_whitespace().next().unwrap_or("").to_string();
        for item in [
            word,
            if redirect {
                "redirection (>)".into()
            } else {
                String::new()
            },
        ] {
            if !item.is_empty() && !out.contains(&item) {
                out.push(item);
            }
        }
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_commands_match_the_fixture() {
        assert_eq!(
            root_commands(
                "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-gemini.txt; echo hello-from-tool"
            ),
            "env, grep, sort, redirection (>), echo"
        );
        assert_eq!(root_commands("echo hi"), "echo");
        assert_eq!(root_commands("make && make test"), "make");
    }
}
