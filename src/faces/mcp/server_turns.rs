//! The conversation tools `umbel_actions` and `umbel_diff` (`umbel_read`'s turn fields are in
//! `server.rs` with the rest of `umbel_read`): a second tool router, added to the server's.

use super::reply_turns;
use super::server::UmbelServer;
use crate::core::args::{ActionsArgs, DiffArgs};
use crate::operations::remote::anywhere;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

#[tool_router(router = conversation_router, vis = "pub(super)")]
impl UmbelServer {
    /// The tools the worker ran in its last turn (or turn N), from its transcript:
    /// {turn, prompt, ended, actions: [{tool, input, status: ok|error|pending}]}.
    #[tool(name = "umbel_actions")]
    async fn actions(
        &self,
        Parameters(args): Parameters<ActionsArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_actions",
            None,
            move |ctx| anywhere::actions(ctx, &args),
            |found| reply_turns::actions(&found),
        )
        .await
    }

    /// What changed between two turns' answers (default: the one before the last, and the
    /// last): {from, to, identical, fromText, toText, unified, hunks: [{header, lines}]}.
    #[tool(name = "umbel_diff")]
    async fn diff(
        &self,
        Parameters(args): Parameters<DiffArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_diff",
            None,
            move |ctx| anywhere::diff(ctx, &args),
            |found| reply_turns::diff(&found),
        )
        .await
    }
}
