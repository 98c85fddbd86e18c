//! The MCP tools: one per verb, each taking the verb's input struct from `core::args` (the same
//! struct the CLI parses its flags into, so the schema and the flags cannot drift), plus
//! `umbel_help`. Every tool answers with a result; only an unknown tool (or request params rmcp
//! cannot read, `protocol.rs`) is a JSON-RPC error.

use super::feed::Feed;
use super::help::{self, HelpArgs, INSTRUCTIONS};
use super::reply;
use super::reply_turns;
use super::run::{Call, required_prompt};
use crate::core::approval_args::{AnswerArgs, ApproveArgs, DenyArgs};
use crate::core::args::{
    CaptureArgs, ExplainArgs, InterruptArgs, KillArgs, LogsArgs, PruneArgs, ReadArgs, SendArgs,
    SpawnArgs, StatusArgs, WaitArgs,
};
use crate::core::budget_args::BudgetArgs;
use crate::core::errors::Result;
use crate::core::mode_args::ModeArgs;
use crate::core::model_args::ModelArgs;
use crate::operations::remote::fleet::status_everywhere;
use crate::operations::{Ctx, explain, inspect, kill, remote, spawn};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult,
    Implementation, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use std::sync::Arc;
use tokio::sync::watch;

/// The input of a tool that takes none: an unknown field is refused, as by every other tool.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// umbel's MCP server: the verbs as tools over one [`Ctx`].
#[derive(Clone)]
pub struct UmbelServer {
    ctx: Ctx,
    shutdown: watch::Receiver<bool>,
    tool_router: ToolRouter<Self>,
    /// Resource subscriptions and the change feed behind them (`feed.rs`).
    feed: Arc<Feed>,
}

impl UmbelServer {
    /// A server over `ctx`; in-flight calls are interrupted when `shutdown` turns `true`.
    pub fn new(ctx: Ctx, shutdown: watch::Receiver<bool>) -> Self {
        UmbelServer {
            feed: Feed::new(ctx.clone(), shutdown.clone()),
            ctx,
            shutdown,
            tool_router: super::annotations::annotate(
                Self::tool_router() + Self::conversation_router() + Self::park_router(),
            ),
        }
    }

    /// The session's resource change feed.
    pub(super) fn feed(&self) -> &Arc<Feed> {
        &self.feed
    }

    /// Runs a blocking verb for one request.
    pub(super) async fn run<T, F>(
        &self,
        request: &RequestContext<RoleServer>,
        tool: &'static str,
        progress: Option<String>,
        job: F,
    ) -> Result<T, CallToolResult>
    where
        T: Send + 'static,
        F: FnOnce(&Ctx) -> Result<T> + Send + 'static,
    {
        let call = Call {
            base: &self.ctx,
            shutdown: &self.shutdown,
            request,
            tool,
            progress,
        };
        call.run(job).await
    }

    /// Runs a blocking verb for one request and renders its result (an error is its own reply).
    pub(super) async fn answer<T, F, R>(
        &self,
        request: &RequestContext<RoleServer>,
        tool: &'static str,
        progress: Option<String>,
        job: F,
        render: R,
    ) -> CallToolResult
    where
        T: Send + 'static,
        F: FnOnce(&Ctx) -> Result<T> + Send + 'static,
        R: FnOnce(T) -> CallToolResult,
    {
        let ran = self.run(request, tool, progress, job).await;
        ran.map_or_else(|e| e, render)
    }
}

#[tool_router]
impl UmbelServer {
    /// Start a worker (an agent CLI in its own tmux pane) and return when it is ready for
    /// prompts. Returns its meta (name, provider, cwd, sessionId, ...).
    #[tool(name = "umbel_spawn")]
    async fn spawn(
        &self,
        Parameters(args): Parameters<SpawnArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = match &args.name {
            Some(name) => format!("starting `{name}`"),
            None => "starting a worker".to_string(),
        };
        self.answer(
            &request,
            "umbel_spawn",
            Some(label),
            move |ctx| spawn::spawn(ctx, &args),
            |meta| reply::spawned(&meta),
        )
        .await
    }

    /// Send a prompt (required) to an idle worker and confirm the CLI submitted it (with
    /// queue: true, a busy worker's prompt waits for the running turn to end instead). Returns
    /// {position}; it does NOT wait: follow with umbel_wait {name, since: position}. An optional
    /// guard {accept, schema, maxAttempts} is enforced by that wait (see umbel_help outcomes).
    /// The result also says how the submit was proved (submitted, confirmedBy, enters,
    /// queuedMs); a failed send says whether the text reached the composer and was cleared.
    #[tool(name = "umbel_send")]
    async fn send(
        &self,
        Parameters(args): Parameters<SendArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let name = args.name.clone();
        let prompt = match required_prompt(args.prompt.clone()) {
            Ok(prompt) => prompt,
            Err(e) => return reply::error(&e),
        };
        self.answer(
            &request,
            "umbel_send",
            None,
            move |ctx| {
                let queue = args.queue_limit()?;
                remote::anywhere::send(ctx, &args.name, &prompt, &args.guard, queue)
            },
            |sent| reply::sent(&name, &sent),
        )
        .await
    }

    /// Wait until the worker's turn ends (default timeout 30m). Outcome `stop` is a normal
    /// result; rejected, provider-error, idle, timeout, dead and input are error results carrying
    /// the outcome. With a guard (its own, or the one umbel_send got) a failed check is fed back
    /// to the worker and retried. Cancelling the request leaves the worker running. Several
    /// workers: name plus names [..] (each `NAME` or `NAME@POS`), and any: true (end at the
    /// first turn to end) or all: true (every turn); returns {mode, first, outcomes: [{name,
    /// outcome, ...}]}.
    #[tool(name = "umbel_wait")]
    async fn wait(
        &self,
        Parameters(args): Parameters<WaitArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if args.is_many() {
            let label = format!("waiting for {}", args.targets().join(", "));
            return self
                .answer(
                    &request,
                    "umbel_wait",
                    Some(label),
                    move |ctx| crate::operations::wait::many::wait_many(ctx, &args),
                    |waited| reply::waited_many(&waited),
                )
                .await;
        }
        let name = args.name.clone();
        let label = format!("waiting for `{name}`");
        self.answer(
            &request,
            "umbel_wait",
            Some(label),
            move |ctx| remote::anywhere::wait(ctx, &args),
            |outcome| reply::waited(&name, &outcome),
        )
        .await
    }

    /// Interrupt the worker's running turn with the CLI's own key (Esc), and return once the CLI
    /// reports it interrupted: {interrupted, position, outcome, message}. The worker stays for
    /// the next umbel_send; a worker with no turn running is left alone (interrupted: false).
    #[tool(name = "umbel_interrupt")]
    async fn interrupt(
        &self,
        Parameters(args): Parameters<InterruptArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = format!("interrupting `{}`", args.name);
        self.answer(
            &request,
            "umbel_interrupt",
            Some(label),
            move |ctx| remote::anywhere::interrupt(ctx, &args),
            |done| reply::interrupted(&done),
        )
        .await
    }

    /// The worker's permission mode (or agent) as its screen shows it, and the modes its CLI's
    /// key cycles through: {name, mode, modes, pressed}. `mode`: switch to it first, with the
    /// CLI's own key (Shift+Tab; opencode's Tab) until the screen shows it (a ready worker only).
    #[tool(name = "umbel_mode")]
    async fn mode(
        &self,
        Parameters(args): Parameters<ModeArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = format!("the mode of `{}`", args.name);
        self.answer(
            &request,
            "umbel_mode",
            Some(label),
            move |ctx| remote::anywhere::mode(ctx, &args),
            |report| reply::mode(&report),
        )
        .await
    }

    /// The worker's budget: its limits ({maxTokens, maxBudgetUsd, maxPrompts}), what it used
    /// ({tokens, costUsd, prompts}), `reached` (sends are refused until the limit is raised),
    /// `warning` (past 80 %) and `shared` (the fleet's and its run's limits it is under).
    /// `limits`: set these first (the others stay). `fleet: true` instead of `name`: the state
    /// root's budget, shared by every worker.
    #[tool(name = "umbel_budget")]
    async fn budget(
        &self,
        Parameters(args): Parameters<BudgetArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = match &args.name {
            Some(name) => format!("the budget of `{name}`"),
            None => "the fleet's budget".to_string(),
        };
        self.answer(
            &request,
            "umbel_budget",
            Some(label),
            move |ctx| remote::anywhere::budget(ctx, &args),
            |report| reply::budget(&report),
        )
        .await
    }

    /// The worker's model (the one last switched to, else spawn's `model`; null: the CLI's
    /// default) and the models its CLI's /model lists: {name, model, models, shown, pressed}.
    /// `model`: switch the CLI's session to it first, with the CLI's own /model, for this session
    /// only (a ready worker only; a CLI without a way umbel drives refuses).
    #[tool(name = "umbel_model")]
    async fn model(
        &self,
        Parameters(args): Parameters<ModelArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = format!("the model of `{}`", args.name);
        self.answer(
            &request,
            "umbel_model",
            Some(label),
            move |ctx| remote::anywhere::model(ctx, &args),
            |report| reply::model(&report),
        )
        .await
    }

    /// Approve the tool the worker waits on (state needs-input, reason permission), with its
    /// CLI's own key; returns once the CLI's hooks show the tool ran: {id, answer, tool, input,
    /// confirmedBy, position, ...}. `expect`: only if the pending approval still has this id
    /// (umbel_approvals, or umbel_wait's approvalId). `wait`: then wait for the turn's end and
    /// add its outcome. `always`: the CLI stops asking for this tool for its session.
    #[tool(name = "umbel_approve")]
    async fn approve(
        &self,
        Parameters(args): Parameters<ApproveArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = format!("approving `{}`'s tool", args.name);
        self.answer(
            &request,
            "umbel_approve",
            Some(label),
            move |ctx| crate::operations::remote::anywhere::approve(ctx, &args),
            |done| reply::answered(&done),
        )
        .await
    }

    /// Deny the tool the worker waits on, with its CLI's own key; returns once the CLI shows
    /// the refusal (every CLI ends the turn: the worker is ready for the next umbel_send).
    /// `reason`: sent to the worker as its next prompt once the refusal took.
    #[tool(name = "umbel_deny")]
    async fn deny(
        &self,
        Parameters(args): Parameters<DenyArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = format!("denying `{}`'s tool", args.name);
        self.answer(
            &request,
            "umbel_deny",
            Some(label),
            move |ctx| crate::operations::remote::anywhere::deny(ctx, &args),
            |done| reply::answered(&done),
        )
        .await
    }

    /// Answer the question the worker's model asked (state needs-input, reason question) with
    /// one of its choices — `choice`: its number (1 is the first) or its label, as
    /// umbel_approvals lists them — with its CLI's own key; returns once the CLI's hooks show
    /// the answer took. Ask your user: the question is theirs. umbel_deny declines it instead.
    #[tool(name = "umbel_answer")]
    async fn answer_question(
        &self,
        Parameters(args): Parameters<AnswerArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let label = format!("answering `{}`'s question", args.name);
        self.answer(
            &request,
            "umbel_answer",
            Some(label),
            move |ctx| crate::operations::remote::anywhere::answer(ctx, &args),
            |done| reply::answered(&done),
        )
        .await
    }

    /// Every pending approval of the fleet (this machine's workers and every host's), oldest
    /// first: [{id, name, host?, provider, tool, input (secrets masked), since, waitedMs,
    /// position}].
    #[tool(name = "umbel_approvals")]
    async fn approvals(
        &self,
        Parameters(_args): Parameters<NoArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_approvals",
            None,
            crate::operations::remote::fleet::approvals_everywhere,
            |rows| reply::approvals(&rows),
        )
        .await
    }

    /// The answer of the worker's last finished turn: {text, isError, source, sessionId, ...}.
    /// With turn: N that turn {turn, prompt, answer, ended, isError}; with all: true or
    /// sinceTurn: N, {turns: [...]} (every turn, or those after N).
    #[tool(name = "umbel_read")]
    async fn read(
        &self,
        Parameters(args): Parameters<ReadArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_read",
            None,
            move |ctx| remote::anywhere::reading(ctx, &args),
            reply_turns::reading,
        )
        .await
    }

    /// What one worker (or every worker) is doing: {workers: [{name, state, position, ...}]};
    /// state is starting, ready, busy, needs-input, parked or dead (corrupt, with a problem, when umbel
    /// cannot read the worker's meta.json).
    #[tool(name = "umbel_status")]
    async fn status(
        &self,
        Parameters(args): Parameters<StatusArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_status",
            None,
            move |ctx| status_everywhere(ctx, &args),
            |list| reply::workers(&list),
        )
        .await
    }

    /// List every worker: {workers: [...]}, as umbel_status without a name.
    #[tool(name = "umbel_ls")]
    async fn ls(
        &self,
        Parameters(NoArgs {}): Parameters<NoArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_ls",
            None,
            |ctx| status_everywhere(ctx, &StatusArgs::default()),
            |list| reply::workers(&list),
        )
        .await
    }

    /// Stop a worker (or all: {all: true}); its folder stays as a tombstone with the last
    /// screen unless purge. Returns {killed: [names]}.
    #[tool(name = "umbel_kill")]
    async fn kill(
        &self,
        Parameters(args): Parameters<KillArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let purged = args.purge;
        self.answer(
            &request,
            "umbel_kill",
            None,
            move |ctx| kill::kill(ctx, &args),
            |killed| reply::killed(&killed, purged),
        )
        .await
    }

    /// The worker's screen as text, for showing a person (never parse it for answers; use
    /// umbel_read). A dead worker's kept last screen when its pane is gone.
    #[tool(name = "umbel_capture")]
    async fn capture(
        &self,
        Parameters(args): Parameters<CaptureArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_capture",
            None,
            move |ctx| inspect::capture(ctx, &args),
            |screen| reply::text("screen", screen),
        )
        .await
    }

    /// The worker's event log, one line per hook event (`<ns> <Event> <payload file>`).
    /// `follow` is refused here: call again later instead.
    #[tool(name = "umbel_logs")]
    async fn logs(
        &self,
        Parameters(args): Parameters<LogsArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if args.follow {
            let message =
                "umbel_logs cannot follow over MCP; call it again, or umbel_wait for events"
                    .to_string();
            return reply::error(&crate::core::errors::Error::usage(message));
        }
        self.answer(
            &request,
            "umbel_logs",
            None,
            move |ctx| {
                let mut lines = Vec::new();
                inspect::logs(ctx, &args, |l| lines.push(l.to_string()))?;
                Ok(lines.join("\n"))
            },
            |log| reply::text("log", log),
        )
        .await
    }

    /// Why a worker is in its state, for debugging a stuck one: {cli: {provider, version},
    /// state, derivation, events: [{position, event, meaning, reason?}], transcript: {path,
    /// record}, screen: {reading, rule, line}, next: {action, why}}. With screenText (a saved
    /// screen's text) and provider instead of name, how umbel reads that screen; `screen` (a
    /// path) is refused here.
    #[tool(name = "umbel_explain")]
    async fn explain(
        &self,
        Parameters(args): Parameters<ExplainArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        // A client names no path the server opens (a private key, `/dev/stdin`): it sends the
        // screen's text.
        if args.screen.is_some() {
            return reply::error(&crate::core::errors::Error::usage(
                "umbel_explain opens no file for a client: pass the screen's text as `screenText`",
            ));
        }
        self.answer(
            &request,
            "umbel_explain",
            None,
            move |ctx| explain::explain(ctx, &args),
            |found| reply::explained(&found),
        )
        .await
    }

    /// Remove dead workers and tombstones (older than `olderThan`, e.g. "1d"):
    /// {removed: [names], kept: [names]}.
    #[tool(name = "umbel_prune")]
    async fn prune(
        &self,
        Parameters(args): Parameters<PruneArgs>,
        request: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.answer(
            &request,
            "umbel_prune",
            None,
            move |ctx| inspect::prune(ctx, &args),
            |pruned| reply::pruned(&pruned),
        )
        .await
    }

    /// How to use umbel's tools; topic: lifecycle, providers or outcomes (an overview without).
    #[tool(name = "umbel_help")]
    async fn help(&self, Parameters(args): Parameters<HelpArgs>) -> CallToolResult {
        match help::topic(args.topic.as_deref()) {
            Ok(text) => reply::help(text),
            Err(e) => reply::error(&e),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for UmbelServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("umbel", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        if self.tool_router.get(&tool).is_none() {
            let known: Vec<String> = self
                .tool_router
                .list_all()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{tool}`; umbel's tools are {}",
                    known.join(", ")
                ),
                None,
            ));
        }
        let call = ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(call).await?;
        Ok(reply::argument_errors(&tool, response))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.list_worker_resources(&context).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            super::resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let read = self.read_worker_resource(&request.uri, &context).await?;
        Ok(read.into())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(super::resources::acceptable(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.feed.listen(context).await;
        Ok(())
    }

    #[allow(deprecated)] // resources/subscribe is how clients before 2026-07-28 subscribe
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        super::resources::known(&request.uri)
            .map_err(|e| ErrorData::resource_not_found(e, None))?;
        self.feed.subscribe(request.uri, &context.peer).await;
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.feed.unsubscribe(&request.uri);
        Ok(())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(super::protocol::custom_request_error(&request))
    }
}
