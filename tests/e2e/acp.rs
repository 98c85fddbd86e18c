//! `umbel acp` driven by the official SDK's own client side: the editor every ACP test plays
//! ([`editor`]), and what bad input gets. The sessions themselves run on every CLI, fakes and
//! real ones, in `tiers/acp.rs`.

use crate::harness::*;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, LoadSessionRequest, NewSessionRequest, PermissionOptionKind,
    PromptRequest, RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionId, SessionNotification, SessionUpdate, StopReason,
    ToolCallStatus,
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

/// Runs `umbel acp ARGS` in the sandbox and `body` as its editor; `body`'s result.
pub fn editor<T>(
    sb: &Sandbox,
    args: &[&str],
    body: impl AsyncFnOnce(ConnectionTo<Agent>, mpsc::UnboundedReceiver<Heard>) -> T,
) -> T {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut argv = vec!["acp"];
    argv.extend_from_slice(args);
    let mut command = tokio::process::Command::from(sb.process(&argv));
    command
        .stdin(std::process::Stdio::piped())
        .kill_on_drop(true);
    runtime.block_on(async move {
        let mut child = command.spawn().expect("umbel acp starts");
        let stdin = child.stdin.take().expect("stdin").compat_write();
        let stdout = child.stdout.take().expect("stdout").compat();
        let (tx, rx) = mpsc::unbounded_channel();
        let asked = tx.clone();
        let result = Client
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
            .connect_with(
                ByteStreams::new(stdin, stdout),
                async move |cx: ConnectionTo<Agent>| {
                    cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                        .block_task()
                        .await?;
                    Ok(body(cx, rx).await)
                },
            )
            .await
            .expect("the ACP connection");
        // The editor went away: umbel acp parks its sessions and ends.
        let status = tokio::time::timeout(std::time::Duration::from_secs(30), child.wait())
            .await
            .expect("umbel acp ends once stdin closes")
            .expect("its status");
        assert!(status.success(), "umbel acp ended {status}");
        result
    })
}

/// What the agent said so far: its message chunks' text, the user's (a replay), the permissions
/// it asked for, and each tool call's last status by id, in the order they came.
pub type Said = (
    String,
    String,
    Vec<RequestPermissionRequest>,
    Vec<(String, ToolCallStatus)>,
);

/// What the agent said since the last look ([`Said`]).
pub fn said(heard: &mut mpsc::UnboundedReceiver<Heard>) -> Said {
    let (mut agent, mut user, mut asked) = (String::new(), String::new(), Vec::new());
    let mut tools: Vec<(String, ToolCallStatus)> = Vec::new();
    while let Ok(h) = heard.try_recv() {
        match h {
            Heard::Update(n) => match n.update {
                SessionUpdate::AgentMessageChunk(c) => agent.push_str(&text(&c.content)),
                SessionUpdate::UserMessageChunk(c) => user.push_str(&text(&c.content)),
                SessionUpdate::ToolCall(call) => {
                    tools.push((call.tool_call_id.0.to_string(), call.status));
                }
                SessionUpdate::ToolCallUpdate(update) => {
                    let id = update.tool_call_id.0.to_string();
                    if let (Some(status), Some(known)) = (
                        update.fields.status,
                        tools.iter_mut().find(|(i, _)| *i == id),
                    ) {
                        known.1 = status;
                    }
                }
                _ => {}
            },
            Heard::Asked(req) => asked.push(req),
        }
    }
    (agent, user, asked, tools)
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
        assert_eq!(said(&mut heard).0, "Fine.");
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
        assert_eq!(said(&mut heard).0, "Still here.");
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
