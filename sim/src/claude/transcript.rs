//! Transcript records, shaped like Claude Code 2.1.332's JSONL
//! (`fixtures/samples/claude-2.1.332-transcript-session1.jsonl`): one line per
//! content block, a `parentUuid` chain, and the noise kinds (`mode`,
//! `permission-mode`, `last-prompt`, `file-history-snapshot`, `attachment`)
//! that force readers to skip what they do not know.

use serde_json::Value;

use super::payloads::tool_response;
use super::session::Session;
use crate::engine::host;
use crate::json::{J, Obj, empty_array, null};
use crate::obj;

/// Text of the user record written when Esc interrupts a turn.
pub const INTERRUPTED: &str = "[Request interrupted by user]";
/// Text of the user record written when a permission prompt is refused.
pub const INTERRUPTED_TOOL: &str = "[Request interrupted by user for tool use]";
/// `tool_result` content when print mode denies a tool.
pub const DENIED_PRINT: &str =
    "Claude requested permissions to use {tool}, but you haven't granted it yet.";
/// `tool_result` content when don't-ask mode (`--permission-mode dontAsk`) refuses a tool
/// (fixtures/screens/claude-2.1.332-dontask-denied.txt).
pub const DENIED_DONT_ASK: &str = "Permission to use {tool} has been denied because Claude Code is running in don't ask mode. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed.";
/// `tool_result` content when the user refuses a tool.
pub const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

impl Session {
    /// Appends a record to the transcript; the first failure is kept in `fatal`. A fork of a
    /// release before [`super::release::Claude::ForkCopyFirst`] holds its chain records back
    /// until its first answer, and writes the copied conversation after that answer.
    pub fn append(&mut self, record: &Obj) {
        let Some(late) = self.late_copy.as_mut() else {
            host::append(&self.transcript_path, record, &mut self.fatal);
            return;
        };
        if record.str("type") != "assistant" {
            if record.0.contains_key("parentUuid") {
                late.held.push(record.to_line());
            } else {
                host::append(&self.transcript_path, record, &mut self.fatal);
            }
            return;
        }
        let late = self.late_copy.take().unwrap_or_default();
        host::append(&self.transcript_path, record, &mut self.fatal);
        let lines: Vec<&str> = late
            .copy
            .lines()
            .chain(late.held.iter().map(String::as_str))
            .collect();
        host::append_lines(&self.transcript_path, &lines.join("\n"), &mut self.fatal);
    }

    fn link(&mut self) -> (J, String) {
        let uuid = self.ids.uuid();
        let parent = self.parent.replace(uuid.clone()).map_or_else(null, J::from);
        self.messages += 1;
        (parent, uuid)
    }

    fn tail(&self, mut o: Obj) -> Obj {
        o.set("userType", "external");
        o.set("entrypoint", self.entrypoint());
        o.set("cwd", self.cwd.as_str());
        o.set("sessionId", self.id.as_str());
        o.set("version", self.release.version.to_string());
        o.set("gitBranch", self.git_branch.as_str());
        o
    }

    /// `mode` and `permission-mode`, once per transcript (before the first prompt).
    pub fn rec_header(&mut self) -> Vec<Obj> {
        if std::mem::replace(&mut self.header_written, true) {
            return Vec::new();
        }
        vec![self.rec_mode(), self.rec_permission_mode()]
    }

    fn rec_mode(&self) -> Obj {
        obj! { "type" => "mode", "mode" => "normal", "sessionId" => self.id.as_str() }
    }

    fn rec_permission_mode(&self) -> Obj {
        obj! { "type" => "permission-mode", "permissionMode" => self.mode.hook_value(), "sessionId" => self.id.as_str() }
    }

    /// `file-history-snapshot` for the prompt record `message_id`.
    pub fn rec_file_history(&mut self, message_id: &str) -> Obj {
        let snapshot = obj! { "messageId" => message_id, "trackedFileBackups" => obj! {}, "timestamp" => self.clock.stamp() };
        obj! { "type" => "file-history-snapshot", "messageId" => message_id, "snapshot" => snapshot, "isSnapshotUpdate" => false }
    }

    /// The typed prompt. Returns the record and its uuid.
    pub fn rec_user_prompt(&mut self, prompt_id: &str, uuid: String, text: &str) -> Obj {
        self.prompts += 1;
        let parent = self.parent.replace(uuid.clone()).map_or_else(null, J::from);
        self.messages += 1;
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "promptId" => prompt_id,
            "type" => "user",
            "message" => obj! { "role" => "user", "content" => text },
            "uuid" => uuid,
            "timestamp" => self.clock.stamp(),
            "permissionMode" => self.mode.hook_value(),
            "origin" => obj! { "kind" => "human" },
            "promptSource" => "typed",
            "turnOrigin" => "human",
            "turnPosition" => obj! { "promptIndex" => self.prompts, "turnIndex" => self.prompts },
        };
        self.tail(o)
    }

    /// Context attachments written after the first prompt of a transcript.
    pub fn rec_attachments(&mut self) -> Vec<Obj> {
        if self.prompts != 1 {
            return Vec::new();
        }
        let env = obj! {
            "type" => "environment",
            "snapshot" => obj! {
                "workingDirectory" => self.cwd.as_str(),
                "isWorktree" => false,
                "isGitRepo" => !self.git_branch.is_empty(),
                "additionalWorkingDirectories" => empty_array(),
                "platform" => "linux",
                "shell" => "bash",
                "osVersion" => "Linux",
            },
        };
        let env_text = format!(
            "<system-reminder>\n# Environment\nYou have been invoked in the following environment: \n - Primary working directory: {}\n</system-reminder>",
            self.cwd
        );
        let date = self.clock.date();
        let date_text = format!("<system-reminder>\nToday's date is {date}.\n</system-reminder>");
        let date = obj! { "type" => "date", "date" => date };
        vec![
            self.rec_attachment(env, &env_text),
            self.rec_attachment(date, &date_text),
        ]
    }

    fn rec_attachment(&mut self, attachment: Obj, rendered: &str) -> Obj {
        let (parent, uuid) = self.link();
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "attachment" => attachment,
            "type" => "attachment",
            "uuid" => uuid,
            "timestamp" => self.clock.stamp(),
            "rendered" => vec![obj! { "content" => rendered }],
            "renderedRole" => "system",
            "session_id" => self.id.as_str(),
        };
        self.tail(o)
    }

    /// One assistant content block (`stop_reason` `end_turn`, `tool_use`, or null when interrupted).
    pub fn rec_assistant(
        &mut self,
        message_id: &str,
        block: Obj,
        stop_reason: Option<&str>,
        block_index: u64,
    ) -> Obj {
        let text_len = block.to_line().len() as u64;
        let (parent, uuid) = self.link();
        let message = obj! {
            "id" => message_id,
            "type" => "message",
            "role" => "assistant",
            "model" => self.model.id.as_str(),
            "content" => vec![block],
            "stop_reason" => stop_reason,
            "stop_sequence" => null(),
            "usage" => usage(123, (text_len / 4).max(1)),
            "stop_details" => null(),
        };
        let request_ref = self.ids.uuid();
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "message" => message,
            "apiBlockIndex" => block_index,
            "requestRef" => request_ref,
            "requestedModel" => self.model.id.as_str(),
            "promptCacheRequested" => "5m",
            "type" => "assistant",
            "uuid" => uuid,
            "timestamp" => self.clock.stamp(),
            "effort" => "medium",
            "perTurnEffort" => "medium",
            "madeBy" => "model",
            "session_id" => self.id.as_str(),
        };
        self.tail(o)
    }

    /// A `tool_result` user record; `error` is the refusal text when the tool did not run.
    /// `source` is the uuid of the tool_use record.
    pub fn rec_tool_result(
        &mut self,
        prompt_id: &str,
        tool_use_id: &str,
        output: &str,
        error: Option<&str>,
        source: &str,
    ) -> Obj {
        let tool_use_result: J = match error {
            Some(e) => J::from(format!("Error: {e}")),
            None => tool_response(output).into(),
        };
        let content = (error.unwrap_or(output), error.is_some());
        self.tool_result_as(prompt_id, tool_use_id, content, tool_use_result, source)
    }

    /// A `tool_result` user record of a call that ran and returned `content` to the model,
    /// with `tool_use_result` as its `toolUseResult` (a question's answers, as the tool's
    /// object).
    pub fn rec_tool_result_with(
        &mut self,
        prompt_id: &str,
        tool_use_id: &str,
        content: &str,
        tool_use_result: J,
        source: &str,
    ) -> Obj {
        self.tool_result_as(
            prompt_id,
            tool_use_id,
            (content, false),
            tool_use_result,
            source,
        )
    }

    fn tool_result_as(
        &mut self,
        prompt_id: &str,
        tool_use_id: &str,
        (content, is_error): (&str, bool),
        tool_use_result: J,
        source: &str,
    ) -> Obj {
        let (parent, uuid) = self.link();
        let result = obj! {
            "tool_use_id" => tool_use_id,
            "type" => "tool_result",
            "content" => content,
            "is_error" => is_error,
        };
        let decision = obj! {
            "decision" => if is_error { "reject" } else { "accept" },
            "source" => "user_temporary",
            "grantScope" => "once",
            "reasonCode" => "bashMiss:no-rule-match",
        };
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "promptId" => prompt_id,
            "type" => "user",
            "message" => obj! { "role" => "user", "content" => vec![result] },
            "uuid" => uuid,
            "timestamp" => self.clock.stamp(),
            "toolUseResult" => tool_use_result,
            "sandboxed" => false,
            "sourceToolAssistantUUID" => source,
            "permissionDecision" => decision,
            "session_id" => self.id.as_str(),
        };
        self.tail(o)
    }

    /// The user record written after an interruption.
    pub fn rec_interrupted(&mut self, prompt_id: &str, for_tool: bool) -> Obj {
        let (parent, uuid) = self.link();
        let text = if for_tool {
            INTERRUPTED_TOOL
        } else {
            INTERRUPTED
        };
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "promptId" => prompt_id,
            "type" => "user",
            "message" => obj! { "role" => "user", "content" => vec![obj! { "type" => "text", "text" => text }] },
            "uuid" => uuid,
            "timestamp" => self.clock.stamp(),
        };
        self.tail(o)
    }

    /// `system/stop_hook_summary` for the Stop hooks that ran (durations are virtual: 0).
    pub fn rec_stop_hook_summary(&mut self, commands: &[String]) -> Obj {
        let (parent, uuid) = self.link();
        let infos: Vec<Obj> = commands
            .iter()
            .map(|c| obj! { "command" => c.as_str(), "durationMs" => 0u64 })
            .collect();
        let tool_use_id = self.ids.uuid();
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "type" => "system",
            "subtype" => "stop_hook_summary",
            "hookCount" => commands.len(),
            "hookInfos" => infos,
            "hookErrors" => empty_array(),
            "failedHookErrorIndexes" => empty_array(),
            "hookAdditionalContext" => empty_array(),
            "preventedContinuation" => false,
            "stopReason" => "",
            "hasOutput" => false,
            "level" => "suggestion",
            "timestamp" => self.clock.stamp(),
            "uuid" => uuid,
            "toolUseID" => tool_use_id,
            "session_id" => self.id.as_str(),
        };
        self.tail(o)
    }

    /// `system/turn_duration`: the "turn finished" marker.
    pub fn rec_turn_duration(&mut self, duration_ms: u64) -> Obj {
        let (parent, uuid) = self.link();
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "type" => "system",
            "subtype" => "turn_duration",
            "durationMs" => duration_ms,
            "messageCount" => self.messages,
            "timestamp" => self.clock.stamp(),
            "uuid" => uuid,
            "isMeta" => false,
        };
        self.tail(o)
    }

    /// The synthetic assistant record of an API error.
    pub fn rec_api_error(&mut self, status: u16, text: &str) -> Obj {
        let (parent, uuid) = self.link();
        let timestamp = self.clock.stamp();
        let message = obj! {
            "diagnostics" => null(),
            "id" => self.ids.uuid(),
            "container" => null(),
            "model" => "<synthetic>",
            "role" => "assistant",
            "stop_details" => null(),
            "stop_reason" => "stop_sequence",
            "stop_sequence" => "",
            "type" => "message",
            "usage" => synthetic_usage(),
            "content" => vec![obj! { "type" => "text", "text" => text }],
            "context_management" => null(),
        };
        let o = obj! {
            "parentUuid" => parent,
            "isSidechain" => false,
            "type" => "assistant",
            "uuid" => uuid,
            "timestamp" => timestamp,
            "message" => message,
            "requestId" => format!("req_011C{}", self.ids.alnum(20)),
            "error" => "unknown",
            "isApiErrorMessage" => true,
            "apiErrorStatus" => u64::from(status),
            "apiErrorType" => api_error_type(status),
            "perTurnEffort" => "medium",
            "failedResponseHadNoToolCall" => true,
            "madeBy" => "model",
            "session_id" => self.id.as_str(),
        };
        self.tail(o)
    }

    /// `last-prompt`, `mode`, `permission-mode`: what the real CLI appends while waiting and after a turn.
    pub fn rec_noise(&mut self, prompt: &str) -> Vec<Obj> {
        let mut shown: String = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
        if shown.chars().count() > 200 {
            shown = shown.chars().take(200).collect::<String>() + "…";
        }
        let leaf = self.parent.clone().unwrap_or_default();
        let last = obj! { "type" => "last-prompt", "lastPrompt" => shown, "leafUuid" => leaf, "sessionId" => self.id.as_str() };
        vec![last, self.rec_mode(), self.rec_permission_mode()]
    }
}

/// A text content block.
pub fn text_block(text: &str) -> Obj {
    obj! { "type" => "text", "text" => text }
}

/// A thinking content block (its signature the fake model's).
pub fn thinking_block(thinking: &str) -> Obj {
    obj! { "type" => "thinking", "thinking" => thinking, "signature" => "fakesig" }
}

/// A tool_use content block.
pub fn tool_use_block(id: &str, tool: &str, input: &Value) -> Obj {
    obj! { "type" => "tool_use", "id" => id, "name" => tool, "input" => input }
}

/// The `usage` object of a model response.
pub fn usage(input: u64, output: u64) -> Obj {
    obj! {
        "input_tokens" => input,
        "cache_creation_input_tokens" => 0u64,
        "cache_read_input_tokens" => 0u64,
        "output_tokens" => output,
        "output_tokens_details" => obj! { "thinking_tokens" => 0u64 },
        "server_tool_use" => obj! { "web_search_requests" => 0u64, "web_fetch_requests" => 0u64 },
        "service_tier" => "standard",
        "cache_creation" => obj! { "ephemeral_1h_input_tokens" => 0u64, "ephemeral_5m_input_tokens" => 0u64 },
        "inference_geo" => "",
        "iterations" => empty_array(),
        "speed" => "standard",
        "fallback_credit" => null(),
    }
}

fn synthetic_usage() -> Obj {
    obj! {
        "output_tokens_details" => null(),
        "input_tokens" => 0u64,
        "output_tokens" => 0u64,
        "cache_creation_input_tokens" => 0u64,
        "cache_read_input_tokens" => 0u64,
        "server_tool_use" => obj! { "web_search_requests" => 0u64, "web_fetch_requests" => 0u64 },
        "service_tier" => null(),
        "cache_creation" => obj! { "ephemeral_1h_input_tokens" => 0u64, "ephemeral_5m_input_tokens" => 0u64 },
        "inference_geo" => null(),
        "iterations" => null(),
        "speed" => null(),
        "fallback_credit" => null(),
    }
}

/// Anthropic's error type for an HTTP status.
pub fn api_error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}
