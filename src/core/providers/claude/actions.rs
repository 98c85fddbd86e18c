//! claude's tool calls of a turn: `tool_use` / `tool_result` blocks.

use super::super::actions::{Call, CallResult, content_blocks, content_text, pair, status_of};
use super::super::str_field;
use super::super::tool_action::ToolAction;
use serde_json::Value;
use std::collections::HashMap;

/// Claude: `tool_use` blocks of the (main-thread) assistant records, `tool_result` blocks of the
/// user records (`is_error` marks a failure or a refusal).
pub fn read(records: &[Value]) -> Vec<ToolAction> {
    let mut calls = Vec::new();
    let mut results = HashMap::new();
    for record in records {
        if record.get("isSidechain") == Some(&Value::Bool(true)) {
            continue;
        }
        for block in content_blocks(record) {
            match (str_field(record, "type"), str_field(block, "type")) {
                (Some("assistant"), Some("tool_use")) => calls.push(Call {
                    id: str_field(block, "id").map(str::to_string),
                    tool: str_field(block, "name").unwrap_or("?").to_string(),
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                }),
                (Some("user"), Some("tool_result")) => {
                    if let Some(id) = str_field(block, "tool_use_id") {
                        let failed = block.get("is_error") == Some(&Value::Bool(true));
                        let result = CallResult {
                            status: status_of(failed),
                            output: block.get("content").and_then(content_text),
                        };
                        results.insert(id.to_string(), result);
                    }
                }
                _ => {}
            }
        }
    }
    pair(calls, &results)
}
