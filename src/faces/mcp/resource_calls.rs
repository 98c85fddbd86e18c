//! The resource requests that run verbs: `resources/list` (the worker folders) and
//! `resources/read` (the verb behind each view, rendered as its tool renders it), as methods of
//! the server, which `server.rs` calls; `umbel://approvals` runs `approvals`.

use super::reply;
use super::reply_turns;
use super::resources;
use super::server::UmbelServer;
use crate::core::args::{CaptureArgs, ReadArgs, StatusArgs};
use crate::operations::remote::fleet::status_everywhere;
use crate::operations::{Ctx, inspect, remote};
use rmcp::RoleServer;
use rmcp::model::{ErrorData, ListResourcesResult, ProtocolVersion, ReadResourceResult};
use rmcp::service::RequestContext;

impl UmbelServer {
    /// `resources/list`: the three resources of every worker (tombstones included). A session
    /// before 2026-07-28 hears of workers coming and going from its first list on.
    pub(super) async fn list_worker_resources(
        &self,
        request: &RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let legacy = request
            .protocol_version()
            .is_none_or(|v| v <= ProtocolVersion::LATEST_WITH_INITIALIZE);
        if legacy {
            self.feed().legacy_session(&request.peer).await;
        }
        // No sessions/ folder yet: no workers yet.
        let job = |ctx: &Ctx| Ok(ctx.state.folders().unwrap_or_default());
        let mut names = self
            .run(request, "resources/list", None, job)
            .await
            .map_err(|failed| ErrorData::internal_error(format!("{:?}", failed.content), None))?;
        names.sort();
        Ok(ListResourcesResult::with_all_items(resources::listed(&names)).with_ttl_ms(0))
    }

    /// `resources/read`: runs the view's verb; a failed verb is a JSON-RPC error carrying umbel's
    /// error reply (`resource_not_found` for a worker that does not exist).
    pub(super) async fn read_worker_resource(
        &self,
        uri: &str,
        request: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        if uri == resources::APPROVALS {
            let job = crate::operations::remote::fleet::approvals_everywhere;
            let rendered = (self.answer(request, "resources/read", None, job, |rows| {
                reply::approvals(&rows)
            }))
            .await;
            return resources::contents(uri, resources::View::Status, rendered);
        }
        let (name, view) =
            resources::parse(uri).map_err(|e| ErrorData::resource_not_found(e, None))?;
        let name = name.as_str().to_string();
        let tool = "resources/read";
        let rendered = match view {
            resources::View::Status => {
                let args = StatusArgs { name: Some(name) };
                let job = move |ctx: &_| status_everywhere(ctx, &args);
                (self.answer(request, tool, None, job, |l| reply::workers(&l))).await
            }
            resources::View::Answer => {
                let job = move |ctx: &_| remote::anywhere::reading(ctx, &ReadArgs::of(&name));
                (self.answer(request, tool, None, job, reply_turns::reading)).await
            }
            resources::View::Screen => {
                let args = CaptureArgs {
                    name,
                    history: false,
                };
                let job = move |ctx: &_| inspect::capture(ctx, &args);
                (self.answer(request, tool, None, job, |s| reply::text("screen", s))).await
            }
        };
        resources::contents(uri, view, rendered)
    }
}
