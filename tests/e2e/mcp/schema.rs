//! Each tool's input schema, as the server lists it, against the CLI flags of the same struct.

use super::client::Mcp;
use crate::harness::*;
use clap::Args;
use rmcp::model::Tool;
use serde_json::{Value, json};
use umbel::core::args::{
    ActionsArgs, CaptureArgs, DiffArgs, ExplainArgs, GuardArgs, KillArgs, LogsArgs, ParkArgs,
    PruneArgs, ReadArgs, ResumeArgs, SendArgs, SpawnArgs, StatusArgs, WaitArgs,
};
use umbel::core::budget::Limits;
use umbel::core::budget_args::BudgetArgs;
use umbel::core::model_args::ModelArgs;

/// The CLI flags of `T` against a tool's input schema: same fields (CLI `snake_case` id,
/// `kebab-case` flag, schema `camelCase`), same required-ness, same kind (flag/list/value). The
/// flag groups flattened on the command line are nested objects in the schema: the guardrail
/// flags (`GuardArgs`) are `guard`, a budget's limits (`Limits`) are `budget` on spawn and
/// `limits` on budget.
fn assert_schema_matches<T: Args>(tool: &Tool) {
    let cmd = T::augment_args(clap::Command::new("verb"));
    let ids = |cmd: clap::Command| -> Vec<String> {
        cmd.get_arguments()
            .map(|a| a.get_id().to_string())
            .collect()
    };
    let groups = [
        (
            "guard",
            ids(GuardArgs::augment_args(clap::Command::new("g"))),
        ),
        ("budget", ids(Limits::augment_args(clap::Command::new("b")))),
        ("limits", ids(Limits::augment_args(clap::Command::new("l")))),
    ];
    let schema = Value::Object((*tool.input_schema).clone());
    let in_group = |a: &clap::Arg, group: &[String]| group.iter().any(|id| id == a.get_id());
    let mut expected_extra = Vec::new();
    for (property, group) in &groups {
        let nested = &schema["properties"][property];
        if nested.is_null() {
            continue;
        }
        let args: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| in_group(a, group)).collect();
        assert!(!args.is_empty(), "{}: {property} has no flags", tool.name);
        assert!(
            nested["description"].is_string(),
            "{}: {property}",
            tool.name
        );
        let target = nested["$ref"]
            .as_str()
            .or_else(|| nested["allOf"][0]["$ref"].as_str())
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .map(|name| &schema["$defs"][name])
            .unwrap_or(nested);
        assert_fields(&format!("{}.{property}", tool.name), &args, target);
        expected_extra.push(property.to_string());
    }
    let grouped = |a: &&clap::Arg| groups.iter().any(|(_, g)| in_group(a, g));
    let own: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| !grouped(a)).collect();
    assert_fields_with(&tool.name, &own, &schema, expected_extra);
}

fn assert_fields(tool: &str, args: &[&clap::Arg], schema: &Value) {
    assert_fields_with(tool, args, schema, Vec::new());
}

fn assert_fields_with(tool: &str, args: &[&clap::Arg], schema: &Value, mut seen: Vec<String>) {
    let props = schema["properties"].as_object().expect("properties");
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for arg in args {
        let id = arg.get_id().as_str();
        let camel = camel_case(id);
        if let Some(long) = arg.get_long() {
            assert_eq!(long, id.replace('_', "-"), "{tool}: flag of {id}");
        }
        let prop = props
            .get(&camel)
            .unwrap_or_else(|| panic!("{tool}: no property `{camel}` for --{id}"));
        assert_eq!(
            required.contains(&camel.as_str()),
            arg.is_required_set(),
            "{tool}: `{camel}` required-ness differs from the CLI"
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
        assert_eq!(cli_kind, schema_kind, "{tool}: kind of `{camel}`");
        assert!(
            prop["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{tool}: `{camel}` has no description"
        );
        seen.push(camel);
    }
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    seen.sort();
    assert_eq!(names, seen.iter().collect::<Vec<_>>(), "{tool}");
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
    assert_schema_matches::<ExplainArgs>(&tool("umbel_explain"));
    assert_schema_matches::<ParkArgs>(&tool("umbel_park"));
    assert_schema_matches::<ResumeArgs>(&tool("umbel_resume"));
    assert_schema_matches::<BudgetArgs>(&tool("umbel_budget"));
    assert_schema_matches::<ModelArgs>(&tool("umbel_model"));
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
            "umbel_explain",
            "umbel_approvals",
        ]
        .contains(&&*t.name);
        assert_eq!(read_only, expect, "{}: read-only hint", t.name);
    }
}
