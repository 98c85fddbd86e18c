//! The `data` of each session-log event fake-copilot writes, with the fields of
//! `copilot-1.0.102-events.jsonl` in its order, and of the ephemeral events `-p --output-format
//! json` prints (`print-json-tool.jsonl`, `print-json-error.jsonl`). Numbers a real model call
//! measures (tokens, bytes, latencies) are derived from the text, not measured.

use serde_json::Value;

use super::home::Git;
use super::release::{Copilot, Release};
use crate::json::{Obj, null};
use crate::obj;

/// Who writes: what every event's data may name.
#[derive(Clone, Debug)]
pub struct Who {
    /// The session id.
    pub id: String,
    /// The working directory as reported.
    pub cwd: String,
    /// The model.
    pub model: String,
    /// Signed in through a BYOK provider.
    pub byok: bool,
    /// The release played.
    pub release: Release,
    /// `COPILOT_HOME`.
    pub home: std::path::PathBuf,
}

/// A tool call the model asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// `toolCallId`.
    pub id: String,
    /// copilot's name (`bash`).
    pub name: String,
    /// Claude's name, in the Claude-format hooks (`Bash`).
    pub claude_name: String,
    /// The arguments (`{command, description}`).
    pub input: Value,
    /// What the tool prints.
    pub output: String,
    /// The permission request's id.
    pub request: String,
}

impl Call {
    /// The shell tool's command (empty for other tools).
    pub fn command(&self) -> String {
        let cmd = self.input.get("command").and_then(Value::as_str);
        cmd.unwrap_or_default().to_string()
    }

    /// What the call is for: its `description`, else its command, else the tool's name.
    pub fn intention(&self) -> String {
        let desc = self.input.get("description").and_then(Value::as_str);
        let cmd = self.command();
        match desc {
            Some(d) if !d.is_empty() => d.to_string(),
            _ if !cmd.is_empty() => cmd.lines().next().unwrap_or_default().to_string(),
            _ => self.name.clone(),
        }
    }

    /// True for the shell tool.
    pub fn shell(&self) -> bool {
        self.name == "bash"
    }

    /// The files a `>` redirect writes.
    fn paths(&self) -> Vec<String> {
        let cmd = self.command();
        let after = cmd.split_once('>').map(|(_, p)| p).unwrap_or("");
        after
            .split_whitespace()
            .take(1)
            .map(str::to_string)
            .collect()
    }

    /// The text the model gets back.
    pub fn result(&self) -> String {
        match self.shell() {
            true => format!("{}\n<shellId: 0 completed with exit code 0>", self.output),
            false => self.output.clone(),
        }
    }
}

/// `session.start`.
pub fn session_start(who: &Who, start: &str, git: Option<&Git>) -> Obj {
    let mut context = obj! { "cwd" => who.cwd.as_str() };
    if let Some(g) = git {
        context.set("gitRoot", g.root.as_str());
        context.set("branch", g.branch.as_str());
        context.set("headCommit", g.head.as_str());
    }
    obj! {
        "sessionId" => who.id.as_str(),
        "version" => 1u64,
        "producer" => "copilot-agent",
        "copilotVersion" => who.release.version.to_string(),
        "startTime" => start,
        "selectedModel" => who.model.as_str(),
        "reasoningEffort" => "medium",
        "contextTier" => null(),
        "context" => context,
        "alreadyInUse" => false,
        "remoteSteerable" => false,
    }
}

/// `session.model_change` at startup.
pub fn model_change(who: &Who) -> Obj {
    obj! {
        "source" => "startup",
        "contextTier" => null(),
        "newModel" => who.model.as_str(),
        "previousModel" => who.model.as_str(),
        "previousReasoningEffort" => "medium",
        "reasoningEffort" => "medium",
    }
}

/// `session.resume` (not recorded: what the fake writes when a session goes on).
pub fn session_resume(at: &str, count: usize) -> Obj {
    obj! { "resumeTime" => at, "eventCount" => count as u64 }
}

/// The ids of one prompt's interaction.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    /// The user message's id (`originatingMessageId` of what answers it).
    pub message: String,
    /// `interactionId`.
    pub interaction: String,
    /// `parentAgentTaskId`.
    pub task: String,
}

/// `user.message`: the prompt, and what the model got (`<current_datetime>` first).
pub fn user_message(x: &Exchange, prompt: &str, at: &str) -> Obj {
    let now = at.trim_end_matches('Z');
    let transformed = format!("<current_datetime>{now}+00:00</current_datetime>\n\n{prompt}");
    obj! {
        "content" => prompt,
        "transformedContent" => transformed,
        "messageId" => x.message.as_str(),
        "supportedNativeDocumentMimeTypes" => Vec::<String>::new(),
        "delivery" => "idle",
        "interactionId" => x.interaction.as_str(),
        "turnId" => "0",
        "parentAgentTaskId" => x.task.as_str(),
    }
}

/// `system.message` (the system prompt, cut short).
pub fn system_message(x: &Exchange) -> Obj {
    let trailer =
        obj! { "sessionId" => null(), "clientName" => "github/cli", "coauthorEnabled" => true };
    obj! {
        "role" => "system",
        "content" => "You are the GitHub Copilot CLI, a terminal assistant built by GitHub. You are an interactive tool that helps users with software engineering tasks.",
        "metadata" => obj! { "variables" => obj! { "gitCommitTrailer" => trailer } },
        "interactionId" => x.interaction.as_str(),
    }
}

/// `assistant.turn_start`.
pub fn turn_start(turn: u32, x: &Exchange) -> Obj {
    obj! { "turnId" => turn.to_string(), "interactionId" => x.interaction.as_str() }
}

/// `assistant.turn_end`.
pub fn turn_end(turn: u32) -> Obj {
    obj! { "turnId" => turn.to_string() }
}

/// One model call's accounting.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    /// Prompt tokens.
    pub input: u64,
    /// Answer tokens.
    pub output: u64,
    /// Virtual milliseconds it took.
    pub duration: u64,
    /// Its number in the session (from 1).
    pub sequence: u64,
    /// The provider's id for it.
    pub api_call: String,
    /// The tool it asked for, if any.
    pub tool: Option<String>,
    /// `user` for the call a prompt makes, `agent` for one after a tool.
    pub initiator: &'static str,
}

/// Tokens of `text`: a quarter of its characters, at least 1.
pub fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64 / 4).max(1)
}

/// `session.usage_record`.
pub fn usage_record(who: &Who, u: &Usage) -> Obj {
    let calls = u.tool.iter().count() as u64;
    let counts: serde_json::Map<String, Value> = u
        .tool
        .iter()
        .map(|t| (t.clone(), Value::from(1u64)))
        .collect();
    let accounting = obj! { "sourceSessionId" => who.id.as_str(), "sequence" => u.sequence, "usageId" => u.api_call.as_str() };
    let usage = obj! {
        "model" => who.model.as_str(), "modelDisplayName" => who.model.as_str(),
        "inputTokens" => u.input, "outputTokens" => u.output,
        "cacheReadTokens" => 0u64, "cacheWriteTokens" => 0u64, "cost" => 0.0,
        "duration" => u.duration, "timeToFirstTokenMs" => u.duration as f64,
        "outputTtftMs" => u.duration as f64, "interTokenLatencyMs" => 0.05,
        "initiator" => u.initiator, "interactionType" => "conversation-agent",
        "isByok" => who.byok, "byokKind" => "local_user", "modelProvider" => "other",
        "providerType" => "openai", "isAuto" => false, "maxPromptTokens" => 128_000u64,
        "transport" => "http", "requestBodyBytes" => 4 * u.input,
        "requestBodyWireBytes" => 4 * u.input, "requestBodyEncoding" => "identity",
        "apiCallId" => u.api_call.as_str(), "rte" => false, "apiEndpoint" => "/chat/completions",
        "accounting" => accounting, "aiCreditsStatus" => "unavailable", "reasoningEffort" => "medium",
        "availableToolCount" => 17u64, "toolTokenCount" => 6934u64, "customToolCallCount" => 0u64,
        "unmatchedToolResultCount" => 0u64, "orphanToolCallCount" => 0u64,
        "frontierSource" => "estimated", "cacheDetailsReported" => false,
        "numToolCalls" => calls, "toolCounts" => counts,
        "finishReason" => if calls > 0 { "tool_calls" } else { "stop" },
        "contentFilterTriggered" => false,
    };
    obj! { "usage" => usage }
}

/// A tool call as `assistant.message`'s `toolRequests` lists it.
pub fn tool_request(call: &Call) -> Obj {
    obj! {
        "toolCallId" => call.id.as_str(),
        "name" => call.name.as_str(),
        "arguments" => call.input.clone(),
        "type" => "function",
        "intentionSummary" => call.intention(),
        "toolTitle" => "Running command",
    }
}

/// `assistant.message`: the answer's text, or the tool calls asked for.
pub struct Answer<'a> {
    /// The message's id.
    pub id: &'a str,
    /// The text.
    pub content: &'a str,
    /// The tool calls.
    pub calls: Vec<Obj>,
    /// The turn (`0`, then `1` after a tool).
    pub turn: u32,
    /// The provider's id for the call.
    pub api_call: &'a str,
    /// The model's thinking before the text.
    pub reasoning: Option<&'a str>,
}

/// `assistant.message` (`reasoningText` after `turnId` when the model thought).
pub fn assistant_message(who: &Who, x: &Exchange, a: &Answer) -> Obj {
    let mut message = obj! {
        "messageId" => a.id,
        "originatingMessageId" => x.message.as_str(),
        "model" => who.model.as_str(),
        "content" => a.content,
        "toolRequests" => a.calls.clone(),
        "interactionId" => x.interaction.as_str(),
        "turnId" => a.turn.to_string(),
    };
    if let Some(reasoning) = a.reasoning {
        message.set("reasoningText", reasoning);
    }
    message.with("rte", false).with("apiCallId", a.api_call)
}

/// `tool.execution_start`.
pub fn tool_start(who: &Who, call: &Call, turn: u32) -> Obj {
    let mut data = obj! {
        "toolCallId" => call.id.as_str(),
        "toolName" => call.name.as_str(),
        "arguments" => call.input.clone(),
        "turnId" => turn.to_string(),
        "model" => who.model.as_str(),
        "toolTitle" => "Running command",
    };
    if call.shell() {
        let writes = call.command().contains('>');
        let info = obj! { "possiblePaths" => call.paths(), "hasWriteFileRedirection" => writes };
        data.set("shellToolInfo", info);
    }
    data
}

/// A shell run's `toolTelemetry` (`result_tokens`: its result's size, once it is counted).
pub fn telemetry(result_tokens: Option<u64>) -> Obj {
    let props = obj! { "customTimeout" => "false", "executionMode" => "sync", "detached" => "false", "sandboxApplied" => "false", "sandboxOptOutRequested" => "false" };
    let mut metrics = obj! { "commandTimeout" => 30000.0, "context_token_limit" => 128_000.0, "context_current_tokens" => 13400.0, "large_output_threshold_bytes" => 20480.0 };
    if let Some(n) = result_tokens {
        metrics.set("result_token_count", n);
    }
    obj! { "properties" => props, "metrics" => metrics }
}

/// `tool.execution_complete`: ran (`Ok`), or refused with this message (`Err`).
pub fn tool_complete(who: &Who, call: &Call, x: &Exchange, ran: Result<(), &str>) -> Obj {
    let mut data = obj! {
        "toolCallId" => call.id.as_str(), "model" => who.model.as_str(),
        "interactionId" => x.interaction.as_str(), "turnId" => "0", "rte" => false,
    };
    match ran {
        Ok(()) => {
            data.set("shellExecution", obj! { "exitCode" => 0u64 });
            data.set("success", true);
            let text = call.result();
            data.set(
                "result",
                obj! { "content" => text.as_str(), "detailedContent" => text.as_str() },
            );
        }
        Err(message) => {
            data.set("success", false);
            data.set("error", obj! { "message" => message, "code" => "denied" });
        }
    }
    data.with("toolTelemetry", telemetry(Some(tokens(&call.result()))))
}

/// `permission.requested` for a call (a shell command's words as copilot parses them).
pub fn permission_requested(who: &Who, call: &Call) -> Obj {
    let cmd = call.command();
    let head = cmd.split('>').next().unwrap_or("").trim().to_string();
    let words: Vec<&str> = head.split_whitespace().collect();
    let first = words.first().copied().unwrap_or_default();
    let segment = obj! {
        "identifier" => first, "fullCommandText" => head.as_str(), "allowMatchIdentifier" => null(),
        "staticTokens" => words.clone(), "hasUnboundExecutableContent" => false,
        "workingDirectory" => who.cwd.as_str(),
    };
    let request = obj! {
        "kind" => if call.shell() { "shell" } else { "custom-tool" },
        "toolCallId" => call.id.as_str(), "fullCommandText" => cmd.as_str(), "shellType" => "bash",
        "intention" => call.intention(),
        "commands" => vec![obj! { "identifier" => first, "readOnly" => true, "allowMatchIdentifier" => null() }],
        "commandSegments" => vec![segment], "possiblePaths" => call.paths(),
        "canOfferSessionApproval" => true, "hasWriteFileRedirection" => cmd.contains('>'),
        "possibleUrls" => Vec::<String>::new(),
    };
    let prompt = obj! {
        "kind" => "commands", "fullCommandText" => cmd.as_str(), "intention" => call.intention(),
        "commandIdentifiers" => Vec::<String>::new(), "canOfferSessionApproval" => false,
        "toolCallId" => call.id.as_str(),
    };
    let mut data = obj! {
        "requestId" => call.request.as_str(), "permissionRequest" => request, "promptRequest" => prompt,
        "agentMode" => "interactive", "permissionMode" => "manual",
    };
    if who.release.has(Copilot::OwnerIds) {
        data.set("ownerSessionId", who.id.as_str());
    }
    data
}

/// `permission.completed`: approved by the person, or cancelled (Esc).
pub fn permission_completed(call: &Call, approved: bool) -> Obj {
    let data = obj! { "requestId" => call.request.as_str(), "toolCallId" => call.id.as_str() };
    match approved {
        true => data
            .with("result", obj! { "kind" => "approved" })
            .with("decisionSource", "human_response"),
        false => data.with(
            "result",
            obj! { "kind" => "cancelled", "reason" => "Session aborted" },
        ),
    }
}

/// `permission.completed` for a tool a `permissionRequest` hook decided (recorded on 1.0.102:
/// no `decisionSource`; a refusal keeps the hook's message).
pub fn permission_decided(call: &Call, refused: Option<&str>) -> Obj {
    let data = obj! { "requestId" => call.request.as_str() };
    match refused {
        None => data.with("result", obj! { "kind" => "approved" }),
        Some(message) => data.with(
            "result",
            obj! { "kind" => "denied-by-permission-request-hook", "message" => message },
        ),
    }
}

/// `session.error` for a failed model call.
pub fn session_error(who: &Who, status: u16, message: &str, x: &Exchange) -> Obj {
    let data = obj! { "errorType" => "query", "message" => message, "statusCode" => status };
    match who.release.has(Copilot::OwnerIds) {
        true => data.with("originatingMessageId", x.message.as_str()),
        false => data,
    }
}

/// `abort`: `user_abort` (Esc Esc), `user_initiated` (Esc on a permission dialog).
pub fn abort(reason: &str) -> Obj {
    obj! { "reason" => reason }
}

/// What the session used, for `session.shutdown` and the `-p` stats.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Prompt tokens.
    pub input: u64,
    /// Answer tokens.
    pub output: u64,
    /// Model calls.
    pub requests: u64,
    /// Prompts.
    pub prompts: u64,
    /// Virtual milliseconds spent in model calls.
    pub api_ms: u64,
}

/// `session.shutdown` (the recorded top-level fields; the nested metrics cut down).
pub fn shutdown(who: &Who, t: &Totals, start_ms: i64, size: u64) -> Obj {
    let usage = obj! { "inputTokens" => t.input, "outputTokens" => t.output, "cacheReadTokens" => 0u64, "cacheWriteTokens" => 0u64 };
    let metrics = obj! { who.model.as_str() => obj! { "requests" => obj! { "count" => t.requests, "cost" => 0u64 }, "usage" => usage, "totalNanoAiu" => 0u64 } };
    let changes = obj! { "linesAdded" => 0u64, "linesRemoved" => 0u64, "filesModified" => Vec::<String>::new() };
    let agent = obj! { "main" => obj! { "totalApiDurationMs" => t.api_ms, "totalNanoAiu" => 0.0, "modelMetrics" => metrics.clone() } };
    let snapshot = obj! { "totalUserRequests" => t.prompts, "totalApiDurationMs" => t.api_ms, "modelMetrics" => metrics.clone() };
    let provider = vec![
        obj! { "provider" => null(), "modelId" => who.model.as_str(), "metrics" => metrics.0.get(&who.model).cloned(), "modelDisplayName" => who.model.as_str() },
    ];
    obj! {
        "accountingSnapshot" => snapshot, "providerModelMetrics" => provider,
        "usageAccountingWatermarks" => obj! { who.id.as_str() => t.requests },
        "shutdownType" => "routine", "totalPremiumRequests" => 0u64, "totalNanoAiu" => 0u64,
        "totalApiDurationMs" => t.api_ms, "sessionStartTime" => start_ms, "eventsFileSizeBytes" => size,
        "codeChanges" => changes, "modelMetrics" => metrics, "agentMetrics" => agent,
        "currentModel" => who.model.as_str(), "currentTokens" => t.input + t.output,
        "systemTokens" => 6352u64, "conversationTokens" => t.input, "toolDefinitionsTokens" => 6675u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_call_knows_its_command_paths_and_result() {
        let call = Call {
            id: "call_1".into(),
            name: "bash".into(),
            claude_name: "Bash".into(),
            input: serde_json::json!({ "command": "echo hi > out.txt", "description": "Print hi" }),
            output: String::new(),
            request: "r".into(),
        };
        assert_eq!(call.intention(), "Print hi");
        assert_eq!(call.paths(), ["out.txt"]);
        assert_eq!(call.result(), "\n<shellId: 0 completed with exit code 0>");
    }
}
