//! What ACP's messages become in umbel's terms and back, with no I/O: a prompt's content
//! blocks as the text pasted into the CLI, the answer's growth as message chunks, and a turn's
//! outcome as the prompt's `stopReason` or a JSON-RPC error carrying the typed outcome.

use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::providers::Provider;
use crate::core::providers::tool_action::{ActionStatus, ToolAction};
use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    ContentBlock, EmbeddedResourceResource, SessionId, SessionUpdate, StopReason, ToolCall,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use serde_json::Value;

/// The text a prompt's blocks become: text as it is; a file the editor links or embeds as the
/// CLI's own `@path` reference (each of the six CLIs reads `@path` in its input box); a link
/// to anything else by its URI. Images and audio are refused: umbel pastes text.
pub fn prompt_text(blocks: &[ContentBlock]) -> Result<String, Error> {
    let mut parts = Vec::new();
    for block in blocks {
        let part = match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::ResourceLink(link) => reference(&link.uri),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(text) => reference(&text.uri),
                EmbeddedResourceResource::BlobResourceContents(blob) => reference(&blob.uri),
                _ => return Err(unsupported("this kind of embedded resource")),
            },
            ContentBlock::Image(_) => return Err(unsupported("an image")),
            ContentBlock::Audio(_) => return Err(unsupported("audio")),
            _ => return Err(unsupported("this kind of content block")),
        };
        parts.push(part);
    }
    let text = parts.join(" ");
    if text.trim().is_empty() {
        return Err(Error::invalid_params().data(serde_json::json!({
            "reason": "the prompt has no text: send at least one text block or file link",
        })));
    }
    Ok(text)
}

/// `@path` for a `file://` URI (the CLIs' file reference), else the URI itself.
fn reference(uri: &str) -> String {
    match uri.strip_prefix("file://") {
        Some(path) => format!("@{path}"),
        None => uri.to_string(),
    }
}

fn unsupported(what: &str) -> Error {
    Error::invalid_params().data(serde_json::json!({
        "reason": format!("umbel pastes text into the CLI's input box and cannot send {what}"),
    }))
}

/// What of `now` (the turn's answer as the transcript has it so far) the client has not been
/// sent yet, given `sent`: the new tail when `now` extends it; all of `now`, after a blank
/// line, when the CLI wrote a new message instead (an answer before a tool call, then one after).
pub fn unsent(sent: &str, now: &str) -> Option<String> {
    if now.trim().is_empty() || now.trim() == sent.trim() {
        return None;
    }
    if let Some(tail) = now.strip_prefix(sent) {
        return Some(tail.to_string());
    }
    // The same text with other whitespace around it (the end hook's copy of an answer and
    // the transcript's differ so): only what follows it.
    if let Some(tail) = now.trim_start().strip_prefix(sent.trim()) {
        return Some(tail.to_string());
    }
    if sent.trim_end().ends_with(now.trim()) {
        return None;
    }
    Some(format!("\n\n{now}"))
}

/// This turn's answer so far, from the transcript records appended since its prompt was sent
/// (oldest first), as `read` folds them: `None` until the record that opens the turn is among
/// them — records before it are an earlier turn's written late (qwen writes its answer up to
/// ~1.5 s after its end hook) — and for a provider error.
pub fn answer_so_far(provider: Provider, records: &[Value]) -> Option<String> {
    let turn = provider
        .module()
        .turn_from_records(&mut records.iter().rev().cloned());
    turn.prompt.as_ref()?;
    turn.answer.filter(|_| !turn.is_error)
}

/// This turn's tool calls so far, as `actions` reads them from the transcript records appended
/// since its prompt was sent: none until the record that opens the turn is among them.
pub fn tool_calls_so_far(provider: Provider, records: &[Value]) -> Vec<ToolAction> {
    (provider.module().identity().actions)(this_turn(provider, records))
}

/// This turn's thinking so far (its thoughts, a blank line between), from the transcript
/// records appended since its prompt was sent: none until the record that opens the turn is
/// among them.
pub fn thoughts_so_far(provider: Provider, records: &[Value]) -> String {
    (provider.module().identity().thoughts)(this_turn(provider, records)).join("\n\n")
}

/// The records from the last one that opens a turn (none before it is this turn's: an earlier
/// turn's written late); none while no record opens one.
fn this_turn(provider: Provider, records: &[Value]) -> &[Value] {
    let module = provider.module();
    match records.iter().rposition(|r| module.opens_turn(r)) {
        Some(start) => &records[start..],
        None => &[],
    }
}

/// The tool calls of one turn the client has been told of, and what it has of each.
#[derive(Debug, Default)]
pub struct ToolCalls {
    /// The event-log position the turn was sent at: the calls' ids start with it.
    pub turn: usize,
    /// Each call's id and what the client has of it, in the transcript's order.
    told: Vec<Told>,
    /// A call the client was shown before the transcript had it (a permission asked about
    /// it): the next new call of the transcript is that one, under this id.
    adopt: Option<String>,
}

impl ToolCalls {
    /// The `session/update`s that bring the client to `now` (the turn's calls as the
    /// transcript has them): a `tool_call` for each new one (a `tool_call_update` for one it
    /// was shown already), a `tool_call_update` for each whose status moved.
    pub fn updates(&mut self, now: &[ToolAction]) -> Vec<SessionUpdate> {
        let mut updates = Vec::new();
        for (i, action) in now.iter().enumerate() {
            match self.told.get_mut(i) {
                Some(had) if had.status == action.status && had.args == action.args => {}
                Some(had) => {
                    let mut fields = result_fields(action);
                    if had.args != action.args {
                        fields = fields.title(title(action)).raw_input(raw_input(action));
                    }
                    had.status = action.status;
                    had.args.clone_from(&action.args);
                    let update = ToolCallUpdate::new(had.id.clone(), fields);
                    updates.push(SessionUpdate::ToolCallUpdate(update));
                }
                None => {
                    let adopted = self.adopt.take();
                    let id = adopted
                        .clone()
                        .unwrap_or_else(|| format!("{}-tool-{i}", self.turn));
                    self.told.push(Told {
                        id: id.clone(),
                        status: action.status,
                        args: action.args.clone(),
                    });
                    updates.push(match adopted {
                        Some(_) => {
                            let fields = result_fields(action)
                                .title(title(action))
                                .kind(tool_kind(&action.tool))
                                .raw_input(raw_input(action));
                            SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields))
                        }
                        None => SessionUpdate::ToolCall(new_call(id, action)),
                    });
                }
            }
        }
        updates
    }

    /// The id of the last call still waiting for its result, when the client has it.
    pub fn pending(&self) -> Option<String> {
        let told = self
            .told
            .iter()
            .rfind(|t| t.status == ActionStatus::Pending)?;
        Some(told.id.clone())
    }

    /// A call shown to the client (under `id`) before the transcript had it.
    pub fn shown_early(&mut self, id: String) {
        self.adopt = Some(id);
    }
}

/// A call the client has not seen: its title, kind, status and whole input, and its output
/// once it has one.
fn new_call(id: String, action: &ToolAction) -> ToolCall {
    let call = ToolCall::new(id, title(action))
        .kind(tool_kind(&action.tool))
        .status(call_status(action.status))
        .raw_input(raw_input(action));
    match output(action) {
        Some(content) => call.content(content),
        None => call,
    }
}

/// A call's status, with its output once it has a result.
fn result_fields(action: &ToolAction) -> ToolCallUpdateFields {
    ToolCallUpdateFields::new()
        .status(call_status(action.status))
        .content(output(action))
}

fn raw_input(action: &ToolAction) -> Option<Value> {
    (!action.args.is_null()).then(|| action.args.clone())
}

/// What a finished call printed, as the call's content.
fn output(action: &ToolAction) -> Option<Vec<ToolCallContent>> {
    let text = action.output.as_deref().filter(|t| !t.is_empty())?;
    (action.status != ActionStatus::Pending)
        .then(|| vec![ToolCallContent::from(shown_output(text))])
}

/// How much of a call's output the client is sent (an editor shows it in a panel; a build's
/// log can be megabytes).
const OUTPUT_CHARS: usize = 64 * 1024;

/// `text`, cut at [`OUTPUT_CHARS`] characters with a line saying how many were left out.
fn shown_output(text: &str) -> String {
    match text.char_indices().nth(OUTPUT_CHARS) {
        Some((cut, _)) => {
            let left = text[cut..].chars().count();
            format!("{}\n… ({left} more characters)", &text[..cut])
        }
        None => text.to_string(),
    }
}

/// What the client was told of one call.
#[derive(Debug)]
struct Told {
    id: String,
    status: ActionStatus,
    /// Its input (a CLI may record a call before its input: opencode's pending part).
    args: Value,
}

/// `Bash: npm test`, the tool and the summary of its input `actions` shows.
fn title(action: &ToolAction) -> String {
    if action.input.is_empty() {
        action.tool.clone()
    } else {
        format!("{}: {}", action.tool, action.input)
    }
}

/// ACP's kind of a tool, from words in its name (each CLI names its tools its own way).
fn tool_kind(tool: &str) -> ToolKind {
    let name = tool.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    if has(&["bash", "shell", "command", "exec", "terminal"]) {
        ToolKind::Execute
    } else if has(&["edit", "write", "create", "replace", "patch"]) {
        ToolKind::Edit
    } else if has(&["grep", "glob", "search", "find", "list"]) {
        ToolKind::Search
    } else if has(&["read", "view", "cat"]) {
        ToolKind::Read
    } else if has(&["fetch", "web", "url"]) {
        ToolKind::Fetch
    } else {
        ToolKind::Other
    }
}

fn call_status(status: ActionStatus) -> ToolCallStatus {
    match status {
        ActionStatus::Pending => ToolCallStatus::InProgress,
        ActionStatus::Ok => ToolCallStatus::Completed,
        ActionStatus::Error => ToolCallStatus::Failed,
    }
}

/// The prompt's end: `end_turn` for a turn that ended, `cancelled` for one interrupted,
/// `max_tokens` for one its worker's budget stopped; any
/// other outcome (a provider error, a dead CLI, a timeout) is a JSON-RPC error whose `data` is
/// umbel's typed outcome.
pub fn stop_reason(outcome: &Outcome) -> Result<StopReason, Error> {
    match outcome.outcome {
        OutcomeKind::Stop => Ok(StopReason::EndTurn),
        OutcomeKind::ProviderError if outcome.reason.as_deref() == Some("interrupted") => {
            Ok(StopReason::Cancelled)
        }
        // The worker's budget (`umbel budget`) stopped the turn.
        OutcomeKind::Budget => Ok(StopReason::MaxTokens),
        _ => {
            let message = format!(
                "the turn ended {}: {}",
                outcome.outcome.as_str(),
                outcome.message
            );
            Err(with_message(Error::internal_error(), message)
                .data(serde_json::to_value(outcome).unwrap_or_default()))
        }
    }
}

/// `err` with its message in umbel's words.
pub fn with_message(mut err: Error, message: impl Into<String>) -> Error {
    err.message = message.into();
    err
}

/// ACP's "resource not found" for a session this process does not hold (its `-32002`, with the
/// id in `data`).
pub fn no_session(id: &SessionId) -> Error {
    Error::new(
        -32002,
        format!("no session {id} here: session/new or session/load it first"),
    )
    .data(serde_json::json!({ "sessionId": id }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{ImageContent, ResourceLink};

    #[test]
    fn a_prompt_is_its_text_and_its_files_as_at_paths() {
        let blocks = vec![
            ContentBlock::from("Explain"),
            ContentBlock::ResourceLink(ResourceLink::new("main.rs", "file:///w/src/main.rs")),
        ];
        assert_eq!(
            prompt_text(&blocks).ok().as_deref(),
            Some("Explain @/w/src/main.rs")
        );
        let image = ContentBlock::Image(ImageContent::new("AAAA", "image/png"));
        let refused = prompt_text(&[image]).expect_err("an image");
        assert!(refused.data.expect("data").to_string().contains("an image"));
        assert!(prompt_text(&[ContentBlock::from("  ")]).is_err());
    }

    #[test]
    fn the_answer_streams_as_what_was_not_sent_yet() {
        assert_eq!(unsent("", "Hel").as_deref(), Some("Hel"));
        assert_eq!(unsent("Hel", "Hello").as_deref(), Some("lo"));
        assert_eq!(unsent("Hello", "Hello"), None);
        assert_eq!(unsent("Hello", ""), None);
        // The end hook's copy with a space before it (gemini's, after a thought).
        assert_eq!(
            unsent("Hello from the fake.", " Hello from the fake."),
            None
        );
        assert_eq!(unsent("Hello", " Hello there").as_deref(), Some(" there"));
        assert_eq!(
            unsent("Let me look.", "Done.").as_deref(),
            Some("\n\nDone.")
        );
    }

    #[test]
    fn an_earlier_turns_late_records_are_not_this_turns_answer() {
        let chat = crate::core::test_data::QWEN_CHAT;
        let records: Vec<Value> = chat
            .lines()
            .map(|l| serde_json::from_str(l).expect("a record"))
            .collect();
        // Line 4 is the first turn's answer, written after the second prompt was sent.
        let late = &records[4..5];
        assert_eq!(answer_so_far(Provider::Qwen, late), None);
        let with_the_turn = &records[4..14];
        assert_eq!(
            answer_so_far(Provider::Qwen, with_the_turn).as_deref(),
            Some("It printed hi.")
        );
        // The turn opened, no answer yet.
        assert_eq!(answer_so_far(Provider::Qwen, &records[4..9]), None);
    }

    #[test]
    fn a_turns_tool_calls_become_tool_call_and_tool_call_update() {
        let records: Vec<Value> = crate::core::test_data::QWEN_CHAT
            .lines()
            .map(|l| serde_json::from_str(l).expect("a record"))
            .collect();
        // Line 9 asks for the shell command, line 11 is its result; line 4 an earlier turn's.
        assert!(tool_calls_so_far(Provider::Qwen, &records[4..5]).is_empty());
        let asked = tool_calls_so_far(Provider::Qwen, &records[4..10]);
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(asked[0].status, ActionStatus::Pending);
        let ran = tool_calls_so_far(Provider::Qwen, &records[4..14]);
        assert_eq!(ran[0].status, ActionStatus::Ok);
        let mut calls = ToolCalls {
            turn: 7,
            ..ToolCalls::default()
        };
        let first = calls.updates(&asked);
        let [SessionUpdate::ToolCall(call)] = &first[..] else {
            panic!("{first:?}")
        };
        assert_eq!(call.tool_call_id.0.as_ref(), "7-tool-0");
        assert_eq!(call.kind, ToolKind::Execute);
        assert_eq!(call.status, ToolCallStatus::InProgress);
        assert_eq!(
            call.raw_input.as_ref().and_then(|i| i.get("command")),
            Some(&serde_json::json!("echo hi"))
        );
        assert!(call.content.is_empty(), "no output before the result");
        assert!(
            call.title.starts_with("run_shell_command: "),
            "{}",
            call.title
        );
        assert_eq!(calls.pending().as_deref(), Some("7-tool-0"));
        match &calls.updates(&ran)[..] {
            [SessionUpdate::ToolCallUpdate(update)] => {
                assert_eq!(update.fields.status, Some(ToolCallStatus::Completed));
                let shown = serde_json::to_string(&update.fields.content).expect("json");
                assert!(shown.contains("Output: hi"), "{shown}");
            }
            other => panic!("{other:?}"),
        }
        assert!(calls.updates(&ran).is_empty());
        assert_eq!(calls.pending(), None);
        // A call recorded before its input (opencode's pending part): the input, once
        // recorded, is sent with the title it gives.
        let mut bare = asked.clone();
        bare[0].args = serde_json::json!({});
        bare[0].input = String::new();
        let mut late = ToolCalls::default();
        late.updates(&bare);
        match &late.updates(&asked)[..] {
            [SessionUpdate::ToolCallUpdate(update)] => {
                let input = update.fields.raw_input.as_ref().expect("the input");
                assert_eq!(input["command"], "echo hi");
                assert!(
                    update
                        .fields
                        .title
                        .as_deref()
                        .is_some_and(|t| t.contains("echo hi"))
                );
            }
            other => panic!("{other:?}"),
        }
        // Shown before the transcript had it (a permission asked): the transcript's call is
        // that one, updated under its id.
        let mut early = ToolCalls::default();
        early.shown_early("approval-3".to_string());
        match &early.updates(&ran)[..] {
            [SessionUpdate::ToolCallUpdate(update)] => {
                assert_eq!(update.tool_call_id.0.as_ref(), "approval-3");
                assert_eq!(update.fields.status, Some(ToolCallStatus::Completed));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_long_output_is_cut_with_what_was_left_out() {
        let long = "x".repeat(OUTPUT_CHARS + 10);
        let shown = shown_output(&long);
        assert!(
            shown.ends_with("(10 more characters)"),
            "{}",
            &shown[OUTPUT_CHARS..]
        );
        assert_eq!(shown_output("hi"), "hi");
    }

    #[test]
    fn an_outcome_is_a_stop_reason_or_a_typed_error() {
        let outcome = |kind, reason: Option<&str>| {
            let mut o = Outcome::new(kind, "m", 3);
            o.reason = reason.map(str::to_string);
            o
        };
        assert_eq!(
            stop_reason(&outcome(OutcomeKind::Stop, None)).ok(),
            Some(StopReason::EndTurn)
        );
        let cancelled = outcome(OutcomeKind::ProviderError, Some("interrupted"));
        assert_eq!(stop_reason(&cancelled).ok(), Some(StopReason::Cancelled));
        let failed = stop_reason(&outcome(OutcomeKind::ProviderError, Some("api-error")))
            .expect_err("an error");
        let data = failed.data.expect("the typed outcome");
        assert_eq!(data["outcome"], "provider-error");
        assert_eq!(data["reason"], "api-error");
    }
}
