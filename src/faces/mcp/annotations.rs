//! What each tool declares beyond its input: a title, the behaviour hints MCP hosts use to decide
//! whether to ask the user first (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
//! `openWorldHint`), and an `outputSchema` generated from the struct its structured content is
//! serialised from (`faces::json_schema`). One table, applied to the router once.

use crate::core::explain::Explanation;
use crate::core::meta::Meta;
use crate::faces::json_schema::{
    HelpText, Killed, Log, ReadTool, Screen, Sent, Workers, schema_of,
};
use crate::operations::inspect::Pruned;
use crate::operations::turns::TurnActions;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{JsonObject, ToolAnnotations};
use serde_json::Value;
use std::sync::Arc;

/// How a tool behaves, for the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Changes nothing.
    ReadOnly,
    /// Adds something (a worker, a turn) each call.
    Additive,
    /// Removes or stops something (a worker, its folder); calling it again changes nothing more.
    Destructive,
    /// Stops something that comes back by itself and loses nothing (a parked worker's CLI, which
    /// the next send resumes); calling it again changes nothing more.
    Reversible,
}

/// One tool's declaration.
pub struct ToolInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub effect: Effect,
    /// It talks to something outside umbel: the provider's model behind the worker.
    pub open_world: bool,
    pub output: fn() -> Value,
}

/// Every tool umbel serves.
// long: a table, one row per tool.
pub fn tools() -> Vec<ToolInfo> {
    use Effect::*;
    let info = |name, title, effect, open_world, output| ToolInfo {
        name,
        title,
        effect,
        open_world,
        output,
    };
    vec![
        info(
            "umbel_spawn",
            "Start a worker",
            Additive,
            true,
            schema_of::<Meta>,
        ),
        info(
            "umbel_send",
            "Send a prompt to a worker",
            Additive,
            true,
            schema_of::<Sent>,
        ),
        // Waiting changes nothing but may feed a guardrail's rejection back to the worker.
        info(
            "umbel_wait",
            "Wait for a worker's turn to end",
            Additive,
            true,
            wait_schema,
        ),
        // Interrupting ends a turn, but the worker and its conversation stay.
        info(
            "umbel_interrupt",
            "Interrupt a worker's turn",
            Additive,
            false,
            schema_of::<crate::operations::interrupt::Interrupted>,
        ),
        // A mode changes what the worker's CLI may do unasked, not what it did.
        info(
            "umbel_mode",
            "Show or switch a worker's permission mode",
            Additive,
            false,
            schema_of::<crate::core::providers::mode::ModeReport>,
        ),
        // A budget changes when the worker is stopped, not what it did.
        info(
            "umbel_budget",
            "Show or change a worker's budget",
            Additive,
            false,
            schema_of::<crate::operations::budget::BudgetReport>,
        ),
        // A model changes how the worker answers next, not what it did.
        info(
            "umbel_model",
            "Show or switch a worker's model",
            Additive,
            false,
            schema_of::<crate::core::providers::model_switch::ModelReport>,
        ),
        // Answering runs or refuses a tool: the tool may change anything it is allowed to.
        info(
            "umbel_approve",
            "Approve the tool a worker waits on",
            Additive,
            true,
            schema_of::<crate::operations::approve::Answered>,
        ),
        info(
            "umbel_deny",
            "Deny the tool a worker waits on",
            Additive,
            true,
            schema_of::<crate::operations::approve::Answered>,
        ),
        info(
            "umbel_answer",
            "Answer a worker's question",
            Additive,
            true,
            schema_of::<crate::operations::approve::Answered>,
        ),
        info(
            "umbel_approvals",
            "List pending approvals",
            ReadOnly,
            false,
            schema_of::<crate::core::approvals::ApprovalList>,
        ),
        info(
            "umbel_read",
            "Read a worker's answer",
            ReadOnly,
            false,
            schema_of::<ReadTool>,
        ),
        info(
            "umbel_status",
            "Show workers' state",
            ReadOnly,
            false,
            schema_of::<Workers>,
        ),
        info(
            "umbel_ls",
            "List workers",
            ReadOnly,
            false,
            schema_of::<Workers>,
        ),
        info(
            "umbel_kill",
            "Stop workers",
            Destructive,
            false,
            schema_of::<Killed>,
        ),
        // Parking ends the CLI process only: the conversation stays, and the next send resumes it.
        info(
            "umbel_park",
            "Park idle workers",
            Reversible,
            false,
            schema_of::<crate::operations::park::ParkReport>,
        ),
        info(
            "umbel_resume",
            "Resume a parked or dead worker",
            Additive,
            false,
            schema_of::<crate::operations::park::Resumed>,
        ),
        info(
            "umbel_capture",
            "Show a worker's screen",
            ReadOnly,
            false,
            schema_of::<Screen>,
        ),
        info(
            "umbel_logs",
            "Show a worker's event log",
            ReadOnly,
            false,
            schema_of::<Log>,
        ),
        info(
            "umbel_explain",
            "Explain a worker's state",
            ReadOnly,
            false,
            schema_of::<Explanation>,
        ),
        info(
            "umbel_prune",
            "Remove dead workers",
            Destructive,
            false,
            schema_of::<Pruned>,
        ),
        info(
            "umbel_actions",
            "List the tools a turn ran",
            ReadOnly,
            false,
            schema_of::<TurnActions>,
        ),
        info(
            "umbel_diff",
            "Compare two turns' answers, or show a worktree's changes",
            ReadOnly,
            false,
            diff_schema,
        ),
        info(
            "umbel_help",
            "How to use umbel",
            ReadOnly,
            false,
            schema_of::<HelpText>,
        ),
    ]
}

/// The MCP annotations of one tool.
pub fn annotations(tool: &ToolInfo) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = match tool.effect {
        Effect::ReadOnly => (true, false, true),
        Effect::Additive => (false, false, false),
        Effect::Destructive => (false, true, true),
        Effect::Reversible => (false, false, true),
    };
    ToolAnnotations::from_raw(
        Some(tool.title.to_string()),
        Some(read_only),
        Some(destructive),
        Some(idempotent),
        Some(tool.open_world),
    )
}

/// An output schema as MCP wants it: an object at the root (`type: object` added to a choice of
/// objects).
pub fn output_schema(tool: &ToolInfo) -> Arc<JsonObject> {
    let mut schema = match (tool.output)() {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    Arc::new(schema)
}

/// Gives every tool in `router` its title, hints and output schema.
pub fn annotate<S>(mut router: ToolRouter<S>) -> ToolRouter<S> {
    for tool in tools() {
        if let Some(route) = router.map.get_mut(tool.name) {
            route.attr.title = Some(tool.title.to_string());
            route.attr.annotations = Some(annotations(&tool));
            route.attr.output_schema = Some(output_schema(&tool));
        }
    }
    router
}

/// `umbel_diff`'s result: two turns compared, or (`git`) the worktree's changes; both objects.
fn diff_schema() -> Value {
    let mut schema = schema_of::<crate::faces::json_schema::DiffJson>();
    if let Some(object) = schema.as_object_mut() {
        object.insert("type".into(), Value::from("object"));
    }
    schema
}

/// `umbel_wait`'s result: one outcome, or with several workers each one's; both are objects,
/// which MCP asks of every output schema.
fn wait_schema() -> Value {
    let mut schema = schema_of::<crate::faces::json_schema::WaitJson>();
    if let Some(object) = schema.as_object_mut() {
        object.insert("type".into(), Value::from("object"));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_and_prune_are_destructive_and_nothing_else_is() {
        for tool in tools() {
            let a = annotations(&tool);
            let destructive = ["umbel_kill", "umbel_prune"].contains(&tool.name);
            assert_eq!(a.destructive_hint, Some(destructive), "{}", tool.name);
            assert_eq!(output_schema(&tool)["type"], "object", "{}", tool.name);
        }
    }
}
