//! What a request says, read the same way for the three wire formats: whether it is the CLI's
//! main conversation (it offers tools) or a side request (titles, routing, claude's permission
//! classifier, token counts), whether it carries a tool's result, and the prompt the user typed —
//! the last text of the last user message that is not context the CLI wrapped around it
//! (`<system-reminder>`, `<environment_context>`, `<session_context>` …).

use super::format::Format;
use serde_json::Value;

/// What umbel's fake needs to know about a request.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub prompt: Option<String>,
    pub main: bool,
    pub tool_result: bool,
    pub classifier: bool,
    /// How many messages the conversation holds: a retry of a request repeats it, a new turn
    /// with the same prompt has more.
    pub length: usize,
}

/// Reads a request body.
pub fn read(format: Format, body: &Value) -> Seen {
    match format {
        Format::Anthropic => anthropic(body),
        Format::OpenAi => openai(body),
        Format::Gemini => gemini(body),
        Format::Chat => chat(body),
    }
}

fn texts<'a>(blocks: impl Iterator<Item = &'a Value>) -> Vec<&'a str> {
    blocks
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

/// The last text that is not a tag-wrapped context block; a text that opens with such blocks
/// and goes on (copilot's `<current_datetime>…</current_datetime>\n\nSay hello`) is its rest.
fn typed(texts: &[&str]) -> Option<String> {
    texts.iter().rev().find_map(|t| after_context(t))
}

/// The text after the tag-wrapped blocks it opens with, when any is left.
fn after_context(text: &str) -> Option<String> {
    let mut rest = text.trim_start();
    while let Some(tag) = rest.strip_prefix('<') {
        let name: String = tag.chars().take_while(|c| *c != '>').collect();
        let close = format!("</{name}>");
        match rest.find(&close) {
            Some(at) if !name.is_empty() => rest = rest[at + close.len()..].trim_start(),
            _ => return None,
        }
    }
    (!rest.is_empty()).then(|| rest.to_string())
}

fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn anthropic(body: &Value) -> Seen {
    let messages = array(body.get("messages"));
    let last = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) != Some("system"));
    let content = last.and_then(|m| m.get("content"));
    let (prompt, tool_result) = match content {
        Some(Value::String(s)) => (Some(s.clone()), false),
        Some(Value::Array(blocks)) => (
            typed(&texts(blocks.iter())),
            blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")),
        ),
        _ => (None, false),
    };
    let system = match body.get("system") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => texts(blocks.iter()).join("\n"),
        _ => String::new(),
    };
    Seen {
        // A refused tool's result followed by the person's next prompt, in one message (claude
        // after "What should Claude do instead?"): the prompt is what to answer.
        tool_result: tool_result && prompt.is_none(),
        prompt,
        main: !array(body.get("tools")).is_empty(),
        classifier: system.contains("security monitor") && system.contains("<block>"),
        length: messages.len(),
    }
}

fn openai(body: &Value) -> Seen {
    let items = array(body.get("input"));
    let tool_result = items
        .last()
        .and_then(|i| i.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| {
            matches!(
                t,
                "function_call_output" | "custom_tool_call_output" | "local_shell_call_output"
            )
        });
    let prompt = items
        .iter()
        .rev()
        .filter(|i| i.get("role").and_then(Value::as_str) == Some("user"))
        .find_map(|i| typed(&texts(array(i.get("content")).iter())));
    Seen {
        prompt,
        main: !array(body.get("tools")).is_empty(),
        tool_result,
        classifier: false,
        length: items.len(),
    }
}

/// Chat Completions: `messages` with string or text-part content; a tool's result is a
/// `tool` message.
fn chat(body: &Value) -> Seen {
    let messages = array(body.get("messages"));
    let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_string);
    let prompt = messages
        .iter()
        .rev()
        .filter(|m| role(m).as_deref() == Some("user"))
        .find_map(|m| match m.get("content") {
            Some(Value::String(s)) => typed(&[s.as_str()]),
            Some(Value::Array(parts)) => typed(&texts(parts.iter())),
            _ => None,
        });
    Seen {
        prompt,
        main: !array(body.get("tools")).is_empty(),
        tool_result: messages.last().and_then(role).as_deref() == Some("tool"),
        classifier: false,
        length: messages.len(),
    }
}

fn gemini(body: &Value) -> Seen {
    let contents = array(body.get("contents"));
    let last = contents.last();
    let parts = array(last.and_then(|c| c.get("parts")));
    let main = array(body.get("tools"))
        .iter()
        .any(|t| !array(t.get("functionDeclarations")).is_empty());
    Seen {
        prompt: typed(&texts(parts.iter())),
        main,
        tool_result: parts.iter().any(|p| p.get("functionResponse").is_some()),
        classifier: false,
        length: contents.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_typed_prompt_behind_each_clis_context() {
        let claude = json!({
            "tools": [{"name": "Bash"}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder> context"},
                    {"type": "text", "text": "Say hello ECHO:one"}]},
                {"role": "system", "content": [{"type": "text", "text": "# Environment"}]}
            ]
        });
        let seen = read(Format::Anthropic, &claude);
        assert_eq!(seen.prompt.as_deref(), Some("Say hello ECHO:one"));
        assert!(seen.main && !seen.tool_result && !seen.classifier);
        let codex = json!({
            "tools": [{"type": "function", "name": "exec_command"}],
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<skills>"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Say hi"}]}
            ]
        });
        assert_eq!(
            read(Format::OpenAi, &codex).prompt.as_deref(),
            Some("Say hi")
        );
        let gemini = json!({
            "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}],
            "contents": [{"role": "user", "parts": [{"text": "<session_context>"}, {"text": "Two\nlines"}]}]
        });
        let seen = read(Format::Gemini, &gemini);
        assert_eq!(seen.prompt.as_deref(), Some("Two\nlines"));
        assert!(seen.main);
    }

    #[test]
    fn side_requests_tool_results_and_the_classifier() {
        let title = json!({"messages": [{"role": "user", "content": "Say hello"}]});
        assert!(!read(Format::Anthropic, &title).main);
        let classifier = json!({
            "system": [{"type": "text", "text": "You are a security monitor … answer <block>yes or <block>no"}],
            "messages": [{"role": "user", "content": "Bash(echo hi)"}]
        });
        assert!(read(Format::Anthropic, &classifier).classifier);
        let result = json!({"tools": [{}], "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "hi"}]}]});
        assert!(read(Format::Anthropic, &result).tool_result);
        let codex = json!({"tools": [{}], "input": [{"type": "function_call_output", "call_id": "c", "output": "hi"}]});
        assert!(read(Format::OpenAi, &codex).tool_result);
        let gemini = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command"}}]}]});
        assert!(read(Format::Gemini, &gemini).tool_result);
        let qwen = json!({"tools": [{}], "messages": [
            {"role": "user", "content": [{"type": "text", "text": "<system-reminder>"}, {"type": "text", "text": "run it"}]},
            {"role": "assistant", "tool_calls": [{"id": "c"}]},
            {"role": "tool", "tool_call_id": "c", "content": "hi"}]});
        let seen = read(Format::Chat, &qwen);
        assert!(seen.main && seen.tool_result);
        assert_eq!(seen.prompt.as_deref(), Some("run it"));
    }

    #[test]
    fn copilots_prompt_follows_its_datetime_block_in_one_text() {
        let copilot = json!({"tools": [{"type": "function", "function": {"name": "bash"}}], "messages": [
            {"role": "system", "content": "You are the GitHub Copilot CLI"},
            {"role": "user", "content": "<current_datetime>2026-12-06T17:40:32.554+00:00</current_datetime>\n\nSay hello"}]});
        assert_eq!(
            read(Format::Chat, &copilot).prompt.as_deref(),
            Some("Say hello")
        );
        let only_context = json!({"messages": [{"role": "user", "content": "<a>x</a>\n"}]});
        assert_eq!(read(Format::Chat, &only_context).prompt, None);
        let unclosed =
            json!({"messages": [{"role": "user", "content": "<system-reminder> context"}]});
        assert_eq!(read(Format::Chat, &unclosed).prompt, None);
    }
}
