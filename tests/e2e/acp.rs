//! `umbel acp` driven by the official SDK's own client side: the editor every ACP test plays
//! ([`editor`]), and what bad input gets. The sessions themselves run on every CLI, fakes and
//! real ones, in `tiers/acp.rs`.

use crate::harness::*;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, ListSessionsRequest, LoadSessionRequest, NewSessionRequest,
    PermissionOptionKind, PromptRequest, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionId, SessionNotification,
    SessionUpdate, StopReason, ToolCallContent, ToolCallStatus,
};
use agent_client_protocol::{Agent, ByteStreams, Client};
use serde_json::json;
use std::path::PathBuf;
use tokio::sync::mpsc;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// What the agent sent the client, in order.
#[derive(Debug)]
pub enum Heard {
    Update(SessionNotification),
    Asked(RequestPermissionRequest),
}

/// Runs `umbel acp ARGS` in the sandbox and `body` as its editor; `body`'s result. The editor
/// then goes away (closes stdin), and umbel acp must end well.
pub fn editor<T>(
    sb: &Sandbox,
    args: &[&str],
    body: impl AsyncFnOnce(ConnectionTo<Agent>, mpsc::UnboundedReceiver<Heard>) -> T,
) -> T {
    let (result, status) = run_editor(sb, args, None, body);
    assert!(status.success(), "umbel acp ended {status}");
    result
}

/// [`editor`], but once `body` is done umbel acp gets `signal` while its stdin is still
/// open (the editor killed, a desktop session ending); `body`'s result and how it ended.
pub fn editor_signalled<T>(
    sb: &Sandbox,
    args: &[&str],
    signal: rustix::process::Signal,
    body: impl AsyncFnOnce(ConnectionTo<Agent>, mpsc::UnboundedReceiver<Heard>) -> T,
) -> (T, std::process::ExitStatus) {
    run_editor(sb, args, Some(signal), body)
}

fn run_editor<T>(
    sb: &Sandbox,
    args: &[&str],
    signal: Option<rustix::process::Signal>,
    body: impl AsyncFnOnce(ConnectionTo<Agent>, mpsc::UnboundedReceiver<Heard>) -> T,
) -> (T, std::process::ExitStatus) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut argv = vec!["acp"];
    argv.extend_from_slice(args);
    let mut command = tokio::process::Command::from(sb.process(&argv));
    command
        .stdin(std::process::Stdio::piped())
        .kill_on_drop(true);
    runtime.block_on(async move {
        let mut child = command.spawn().expect("umbel acp starts");
        let stdin = child.stdin.take().expect("stdin");
        // Held open past the connection's end when a signal is to end umbel acp instead.
        let kept = signal.map(|_| {
            use std::os::fd::AsFd;
            stdin.as_fd().try_clone_to_owned().expect("a copy of stdin")
        });
        let (stdin, stdout) = (
            stdin.compat_write(),
            child.stdout.take().expect("stdout").compat(),
        );
        let result = connect(ByteStreams::new(stdin, stdout), body).await;
        if let Some(signal) = signal {
            let pid = child
                .id()
                .and_then(|id| rustix::process::Pid::from_raw(id as i32));
            rustix::process::kill_process(pid.expect("umbel acp runs"), signal).expect("kill");
        }
        let status = tokio::time::timeout(std::time::Duration::from_secs(30), child.wait())
            .await
            .expect("umbel acp ends once the editor is gone")
            .expect("its status");
        drop(kept);
        (result, status)
    })
}

/// The SDK's client on `streams`, answering each permission request with allow-once, with
/// `body` as what the editor does.
pub async fn connect<T>(
    streams: ByteStreams<
        tokio_util::compat::Compat<tokio::process::ChildStdin>,
        tokio_util::compat::Compat<tokio::process::ChildStdout>,
    >,
    body: impl AsyncFnOnce(ConnectionTo<Agent>, mpsc::UnboundedReceiver<Heard>) -> T,
) -> T {
    let (tx, rx) = mpsc::unbounded_channel();
    let asked = tx.clone();
    Client
        .v1()
        .name("umbel-e2e")
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                let _ = tx.send(Heard::Update(n));
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: RequestPermissionRequest, responder, _cx| {
                let once = req
                    .options
                    .iter()
                    .find(|o| o.kind == PermissionOptionKind::AllowOnce)
                    .map(|o| o.option_id.clone());
                let _ = asked.send(Heard::Asked(req));
                responder.respond(RequestPermissionResponse::new(match once {
                    Some(id) => {
                        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id))
                    }
                    None => RequestPermissionOutcome::Cancelled,
                }))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(streams, async move |cx: ConnectionTo<Agent>| {
            cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                .block_task()
                .await?;
            Ok(body(cx, rx).await)
        })
        .await
        .expect("the ACP connection")
}

/// What the agent said since the last look.
#[derive(Debug, Default)]
pub struct Said {
    /// Its message chunks' text.
    pub agent: String,
    /// Its thought chunks' text.
    pub thoughts: String,
    /// The user's message chunks' text (a replay).
    pub user: String,
    /// The permissions it asked for.
    pub asked: Vec<RequestPermissionRequest>,
    /// Each tool call as it last stood, in the order they came.
    pub tools: Vec<Tool>,
    /// The last `usage_update`: tokens used, the context window.
    pub usage: Option<(u64, u64)>,
}

/// A tool call as the updates left it.
#[derive(Debug)]
pub struct Tool {
    pub id: String,
    pub status: ToolCallStatus,
    pub input: Option<serde_json::Value>,
    /// Its content's text.
    pub output: String,
}

/// What the agent said since the last look ([`Said`]).
pub fn said(heard: &mut mpsc::UnboundedReceiver<Heard>) -> Said {
    let mut said = Said::default();
    while let Ok(h) = heard.try_recv() {
        match h {
            Heard::Update(n) => said.update(n.update),
            Heard::Asked(req) => said.asked.push(req),
        }
    }
    said
}

/// What the agent said since the last look, waiting for more (at most `limit`) until `enough`
/// holds of it: what comes after a prompt's response (the context's use a CLI writes late).
pub async fn said_until(
    heard: &mut mpsc::UnboundedReceiver<Heard>,
    limit: std::time::Duration,
    enough: impl Fn(&Said) -> bool,
) -> Said {
    let mut said = said(heard);
    let deadline = tokio::time::Instant::now() + limit;
    while !enough(&said) {
        match tokio::time::timeout_at(deadline, heard.recv()).await {
            Ok(Some(Heard::Update(n))) => said.update(n.update),
            Ok(Some(Heard::Asked(req))) => said.asked.push(req),
            Ok(None) | Err(_) => break,
        }
    }
    said
}

impl Said {
    fn update(&mut self, update: SessionUpdate) {
        match update {
            SessionUpdate::AgentMessageChunk(c) => self.agent.push_str(&text(&c.content)),
            SessionUpdate::AgentThoughtChunk(c) => self.thoughts.push_str(&text(&c.content)),
            SessionUpdate::UserMessageChunk(c) => self.user.push_str(&text(&c.content)),
            SessionUpdate::UsageUpdate(u) => self.usage = Some((u.used, u.size)),
            SessionUpdate::ToolCall(call) => self.tools.push(Tool {
                id: call.tool_call_id.0.to_string(),
                status: call.status,
                input: call.raw_input,
                output: contents(&call.content),
            }),
            SessionUpdate::ToolCallUpdate(update) => {
                let id = update.tool_call_id.0.to_string();
                let Some(known) = self.tools.iter_mut().find(|t| t.id == id) else {
                    return;
                };
                let fields = update.fields;
                known.status = fields.status.unwrap_or(known.status);
                known.input = fields.raw_input.or(known.input.take());
                known
                    .output
                    .push_str(&contents(&fields.content.unwrap_or_default()));
            }
            _ => {}
        }
    }
}

fn contents(content: &[ToolCallContent]) -> String {
    content
        .iter()
        .map(|c| match c {
            ToolCallContent::Content(c) => text(&c.content),
            _ => String::new(),
        })
        .collect()
}

fn text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        _ => String::new(),
    }
}

/// The worker's state, as `umbel status --json` says.
pub fn state(sb: &Sandbox, name: &str) -> String {
    let status = sb.umbel(["status", name, "--json"]).run().json();
    status["state"].as_str().unwrap_or_default().to_string()
}

pub fn prompt(id: &SessionId, text: &str) -> PromptRequest {
    PromptRequest::new(id.clone(), vec![ContentBlock::from(text.to_string())])
}

/// The agent's answer to a request it must take (`what` names it when it does not).
pub async fn answered<Req>(cx: &ConnectionTo<Agent>, req: Req, what: &str) -> Req::Response
where
    Req: agent_client_protocol::JsonRpcRequest,
{
    let answer = cx.send_request(req).block_task().await;
    answer.unwrap_or_else(|e| panic!("{what}: {e:?}"))
}

/// The JSON-RPC error of a request the agent refused.
async fn refused<Req>(cx: &ConnectionTo<Agent>, req: Req) -> agent_client_protocol::Error
where
    Req: agent_client_protocol::JsonRpcRequest,
{
    cx.send_request(req)
        .block_task()
        .await
        .expect_err("refused")
}

#[test]
fn bad_input_gets_a_json_rpc_error_and_spawns_nothing() {
    let sb = Sandbox::new();
    let missing = sb.root.join("no-such-dir");
    let relative = PathBuf::from("project");
    editor(&sb, &[], async move |cx, _heard| {
        let e = refused(&cx, NewSessionRequest::new(missing.clone())).await;
        assert_eq!(
            e.code,
            agent_client_protocol::ErrorCode::INVALID_PARAMS,
            "{e:?}"
        );
        assert!(e.data.expect("data").to_string().contains("no-such-dir"));
        let e = refused(&cx, NewSessionRequest::new(relative)).await;
        assert_eq!(
            e.code,
            agent_client_protocol::ErrorCode::INVALID_PARAMS,
            "{e:?}"
        );
        // A prompt or a load for a session this process does not hold.
        let nobody = SessionId::new("acp-nobody");
        let e = refused(&cx, prompt(&nobody, "hi")).await;
        assert_eq!(e.code.value(), -32002, "{e:?}");
        let e = refused(&cx, LoadSessionRequest::new(nobody.clone(), missing)).await;
        assert_eq!(e.code.value(), -32002, "{e:?}");
        let e = refused(
            &cx,
            LoadSessionRequest::new(SessionId::new("Not A Name!"), PathBuf::from("/")),
        )
        .await;
        assert_eq!(e.code.value(), -32002, "{e:?}");
        // A method ACP does not have.
        let unknown = agent_client_protocol::UntypedMessage::new("_umbel/nope", json!({}))
            .expect("a message");
        let e = refused(&cx, unknown).await;
        assert_eq!(
            e.code,
            agent_client_protocol::ErrorCode::METHOD_NOT_FOUND,
            "{e:?}"
        );
    });
    assert!(sb.ls().is_empty(), "nothing was spawned: {:?}", sb.ls());
}

#[test]
fn a_prompt_of_an_image_is_refused_and_the_worker_stays_ready() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("img", json!({ "default": { "reply": "Fine." } }));
    let project = sb.project.clone();
    editor(&sb, &["--env", &scenario], async move |cx, mut heard| {
        let id = answered(&cx, NewSessionRequest::new(project), "new")
            .await
            .session_id;
        let image = ContentBlock::Image(agent_client_protocol::v1::schema::ImageContent::new(
            "AAAA",
            "image/png",
        ));
        let e = refused(&cx, PromptRequest::new(id.clone(), vec![image])).await;
        assert_eq!(
            e.code,
            agent_client_protocol::ErrorCode::INVALID_PARAMS,
            "{e:?}"
        );
        let ended = answered(&cx, prompt(&id, "and now text"), "prompt").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        assert_eq!(said(&mut heard).agent, "Fine.");
    });
}

#[test]
fn an_idle_session_is_parked_and_its_next_prompt_resumes_it() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("idle", json!({ "default": { "reply": "Still here." } }));
    let project = sb.project.clone();
    let args = ["--env", scenario.as_str(), "--park-idle", "1s"];
    editor(&sb, &args, async |cx, mut heard| {
        let new = NewSessionRequest::new(project);
        let id = answered(&cx, new, "new").await.session_id;
        let ended = answered(&cx, prompt(&id, "hi"), "prompt").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        let name = id.0.to_string();
        let started = std::time::Instant::now();
        while state(&sb, &name) != "parked" {
            assert!(
                started.elapsed().as_secs() < 20,
                "not parked after its idle second"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        said(&mut heard);
        let ended = answered(&cx, prompt(&id, "again"), "prompt").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        assert_eq!(said(&mut heard).agent, "Still here.");
        assert_ne!(state(&sb, &name), "parked", "the prompt resumed it");
    });
}

#[test]
fn a_bad_park_idle_is_refused_before_anything_starts() {
    let sb = Sandbox::new();
    let ran = sb.umbel(["acp", "--park-idle", "soon"]).status(2);
    assert!(ran.stderr().contains("--park-idle"), "{}", ran.stderr());
    assert!(ran.stdout().is_empty(), "nothing on the protocol's channel");
}

#[test]
fn session_list_shows_this_editors_sessions_with_their_first_prompt() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("list", json!({ "default": { "reply": "Listed." } }));
    // A worker of someone else's: not the editor's.
    sb.spawn("other", &["--env", &scenario]);
    let project = sb.project.clone();
    let elsewhere = sb.root.clone();
    editor(&sb, &["--env", &scenario], async move |cx, _heard| {
        let id = answered(&cx, NewSessionRequest::new(project.clone()), "new")
            .await
            .session_id;
        let ended = answered(&cx, prompt(&id, "Fix the parser\nin src/"), "prompt").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        let listed = answered(&cx, ListSessionsRequest::new(), "session/list").await;
        let [session] = &listed.sessions[..] else {
            panic!("one session: {listed:?}")
        };
        assert_eq!(session.session_id, id);
        assert_eq!(session.cwd, project);
        assert_eq!(session.title.as_deref(), Some("Fix the parser"));
        assert!(
            session
                .updated_at
                .as_deref()
                .is_some_and(|t| t.ends_with('Z'))
        );
        let there = ListSessionsRequest::new().cwd(elsewhere);
        let none = answered(&cx, there, "session/list in another cwd").await;
        assert!(none.sessions.is_empty(), "{none:?}");
    });
}

#[test]
fn the_editor_killed_parks_its_sessions() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("term", json!({ "default": { "reply": "Here." } }));
    let project = sb.project.clone();
    let term = rustix::process::Signal::TERM;
    let (name, status) = editor_signalled(&sb, &["--env", &scenario], term, async move |cx, _| {
        let id = answered(&cx, NewSessionRequest::new(project), "new")
            .await
            .session_id;
        let ended = answered(&cx, prompt(&id, "hi"), "prompt").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        id.0.to_string()
    });
    assert_eq!(status.code(), Some(130), "{status}");
    assert_eq!(
        state(&sb, &name),
        "parked",
        "the editor was killed: its worker is parked"
    );
}

#[test]
fn a_sessions_modes_and_models_are_its_clis_and_switch_with_its_keys() {
    use agent_client_protocol::v1::schema::{
        SessionConfigKind, SessionConfigOption, SetSessionConfigOptionRequest,
        SetSessionModeRequest,
    };
    let sb = Sandbox::new();
    let scenario = sb.scenario("modes", json!({ "default": { "reply": "Fine." } }));
    let project = sb.project.clone();
    let args = [
        "--env",
        scenario.as_str(),
        "--model",
        "opus",
        "--permission-mode",
        "manual",
    ];
    editor(&sb, &args, async |cx, mut heard| {
        let new = answered(&cx, NewSessionRequest::new(project), "new").await;
        let id = new.session_id;
        let modes = new.modes.expect("the session's modes");
        assert_eq!(modes.current_mode_id.0.as_ref(), "manual");
        let available: Vec<String> = modes
            .available_modes
            .iter()
            .map(|m| m.id.0.to_string())
            .collect();
        assert_eq!(available, ["auto", "manual", "acceptEdits", "plan"]);
        let current = |options: &[SessionConfigOption], id: &str| {
            let option = options.iter().find(|o| o.id.0.as_ref() == id)?;
            match &option.kind {
                SessionConfigKind::Select(select) => Some(select.current_value.0.to_string()),
                _ => None,
            }
        };
        let options = new.config_options.expect("config options");
        assert_eq!(current(&options, "model").as_deref(), Some("opus"));
        // Switched with the CLI's key: the worker's screen says so.
        answered(
            &cx,
            SetSessionModeRequest::new(id.clone(), "plan"),
            "set_mode",
        )
        .await;
        let shown = sb.umbel(["mode", id.0.as_ref(), "--json"]).run().json();
        assert_eq!(shown["mode"], "plan", "{shown}");
        let set = SetSessionConfigOptionRequest::new(id.clone(), "mode", "acceptEdits");
        let options = answered(&cx, set, "set_config_option").await.config_options;
        assert_eq!(current(&options, "mode").as_deref(), Some("acceptEdits"));
        // A mode its key does not reach, another model: refused, saying how to get them.
        let e = refused(&cx, SetSessionModeRequest::new(id.clone(), "yolo")).await;
        assert_eq!(
            e.code,
            agent_client_protocol::ErrorCode::INVALID_PARAMS,
            "{e:?}"
        );
        assert!(
            e.data
                .expect("data")
                .to_string()
                .contains("--permission-mode")
        );
        let other = SetSessionConfigOptionRequest::new(id.clone(), "model", "gpt-9");
        let e = refused(&cx, other).await;
        assert!(e.data.expect("data").to_string().contains("--model"));
        // A model the CLI's /model lists: switched with it, for this session.
        let set = SetSessionConfigOptionRequest::new(id.clone(), "model", "Sonnet");
        let options = answered(&cx, set, "set_config_option").await.config_options;
        assert_eq!(current(&options, "model").as_deref(), Some("Sonnet"));
        let shown = sb.umbel(["model", id.0.as_ref(), "--json"]).run().json();
        assert_eq!(shown["model"], "Sonnet", "{shown}");
        let ended = answered(&cx, prompt(&id, "go on"), "prompt").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        assert_eq!(said(&mut heard).agent, "Fine.");
    });
}
