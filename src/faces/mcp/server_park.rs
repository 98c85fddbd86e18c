//! The park tools `umbel_park` and `umbel_resume` (docs/park.md): a second tool router, added to
//! the server's like the conversation tools'. `umbel_send` resumes a parked worker by itself;
//! `umbel_resume` is for a dead one (the tmux server killed, a reboot) or to pay the resume
//! before the prompt.

use super::reply;
use super::server::UmbelServer;
use crate::core::args::{ParkArgs, ResumeArgs};
use crate::operations::park;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

#[tool_router(router = park_router, vis = "pub(super)")]
impl UmbelServer {
    /// End the CLI of idle workers (names: [..], or idleFor: "30m" for every worker idle that
    /// long) and keep their conversations: state parked, memory given back. The next
    /// umbel_send resumes a worker by itself. A busy worker, or one waiting for a person, is
    /// refused (code not_resumable). Returns {parked: [names], already: [names]}.
    #[tool(name = "umbel_park")]
    async fn park(
        &self,
        Parameters(args): Parameters<ParkArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if args.names.is_empty() && args.idle_for.is_none() {
            let e = crate::core::errors::Error::usage(
                "umbel_park needs names: [..] or idleFor (e.g. \"30m\")".to_string(),
            );
            return reply::error(&e);
        }
        if !args.names.is_empty() && args.idle_for.is_some() {
            let e = crate::core::errors::Error::usage(
                "umbel_park takes names or idleFor, not both".to_string(),
            );
            return reply::error(&e);
        }
        self.answer(
            &request,
            "umbel_park",
            None,
            move |ctx| park::park(ctx, &args),
            |report| reply::parked(&report),
        )
        .await
    }

    /// Start a parked or dead worker's CLI again on its conversation (the CLI's own resume by
    /// session id; the tmux server killed, a reboot, a crash) and return once it is ready:
    /// {resumeMs}. A worker ended by umbel_kill, or whose transcript is gone, is refused.
    #[tool(name = "umbel_resume")]
    async fn resume(
        &self,
        Parameters(args): Parameters<ResumeArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let name = args.name.clone();
        self.answer(
            &request,
            "umbel_resume",
            Some(format!("resuming `{name}`")),
            move |ctx| park::resume(ctx, &args),
            move |resumed| reply::resumed(&name, &resumed),
        )
        .await
    }
}
