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
    /// last): {from, to, identical, fromText, toText, unified, hunks: [{header, lines}]}. With
    /// git: true, the worker's worktree (spawn worktree) against its base: {name, branch, base,
    /// path, files: [{path, added, deleted}], patch} (stat: true, a summary as the patch).
    #[tool(name = "umbel_diff")]
    async fn diff(
        &self,
        Parameters(args): Parameters<DiffArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if args.stat && !args.git {
            let e = crate::core::errors::Error::usage(
                "umbel_diff: stat (a summary per file) needs git: true".to_string(),
            );
            return super::reply::error(&e);
        }
        if args.git {
            return self
                .answer(
                    &request,
                    "umbel_diff",
                    None,
                    move |ctx| anywhere::git_diff(ctx, &args),
                    |found| reply_turns::git_diff(&found),
                )
                .await;
        }
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
