//! Each tool's input schema, as the server lists it, against the CLI flags of the same struct.

use super::client::Mcp;
use crate::harness::*;
use clap::Args;
use rmcp::model::Tool;
use serde_json::{Value, json};
use umbel::core::args::{
    ActionsArgs, CaptureArgs, DiffArgs, KillArgs, LogsArgs, PruneArgs, ReadArgs, SendArgs,
    SpawnArgs, StatusArgs, WaitArgs,
};

/// The CLI flags of `T` against a tool's input schema: same fields (CLI `snake_case` id,
/// `kebab-case` flag, schema `camelCase`), same required-ness, same kind (flag/list/value).
fn assert_schema_matches<T: Args>(tool: &Tool) {
    let cmd = T::augment_args(clap::Command::new("verb"));
    let schema = Value::Object((*tool.input_schema).clone());
    let props = schema["properties"].as_object().expect("properties");
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut seen = Vec::new();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        let camel = camel_case(id);
        if let Some(long) = arg.get_long() {
            assert_eq!(long, id.replace('_', "-"), "{}: flag of {id}", tool.name);
        }
        let prop = props
            .get(&camel)
            .unwrap_or_else(|| panic!("{}: no property `{camel}` for --{id}", tool.name));
        assert_eq!(
            required.contains(&camel.as_str()),
            arg.is_required_set(),
            "{}: `{camel}` required-ness differs from the CLI",
            tool.name
        );
        let cli_kind = match arg.get_action() {
            clap::ArgAction::SetTrue => "boolean",
            clap::ArgAction::Append => "array",
            _ => "value",
        };
        let schema_kind = match prop["type"].as_str() {
            Some("boolean") => "boolean",
            Some("array") => "array",
            _ => "value",
        };
        assert_eq!(cli_kind, schema_kind, "{}: kind of `{camel}`", tool.name);
        assert!(
            prop["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{}: `{camel}` has no description",
            tool.name
        );
        seen.push(camel);
    }
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    seen.sort();
    assert_eq!(names, seen.iter().collect::<Vec<_>>(), "{}", tool.name);
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_schemas_match_the_cli_flags_field_by_field() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let tools = mcp.client.list_all_tools().await.expect("tools/list");
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
            .clone()
    };
    assert_schema_matches::<SpawnArgs>(&tool("umbel_spawn"));
    assert_schema_matches::<SendArgs>(&tool("umbel_send"));
    assert_schema_matches::<WaitArgs>(&tool("umbel_wait"));
    assert_schema_matches::<ReadArgs>(&tool("umbel_read"));
    assert_schema_matches::<StatusArgs>(&tool("umbel_status"));
    assert_schema_matches::<KillArgs>(&tool("umbel_kill"));
    assert_schema_matches::<CaptureArgs>(&tool("umbel_capture"));
    assert_schema_matches::<LogsArgs>(&tool("umbel_logs"));
    assert_schema_matches::<PruneArgs>(&tool("umbel_prune"));
    assert_schema_matches::<ActionsArgs>(&tool("umbel_actions"));
    assert_schema_matches::<DiffArgs>(&tool("umbel_diff"));
    let ls = tool("umbel_ls");
    assert!(
        ls.input_schema
            .get("properties")
            .is_none_or(|p| p == &json!({}))
    );
    for t in &tools {
        assert!(
            t.description.as_deref().is_some_and(|d| d.len() > 20),
            "{}",
            t.name
        );
        let read_only = t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        let expect = [
            "umbel_read",
            "umbel_status",
            "umbel_ls",
            "umbel_help",
            "umbel_capture",
            "umbel_logs",
            "umbel_actions",
            "umbel_diff",
        ]
        .contains(&&*t.name);
        assert_eq!(read_only, expect, "{}: read-only hint", t.name);
    }
}
