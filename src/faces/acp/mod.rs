//! `umbel acp`: the Agent Client Protocol over stdio, for editors (Zed, JetBrains, Neovim,
//! Emacs), on the official SDK (`agent-client-protocol`, protocol v1). Each ACP session is a
//! worker spawned with `umbel acp`'s spawn flags in the session's directory; its id is the
//! worker's name, so `umbel ls` shows it and `session/load` finds it in a later process. A
//! prompt is a turn (`send`, then `wait`), its answer streamed from the CLI's transcript as
//! message chunks; a permission the CLI asks for is the client's `session/request_permission`,
//! answered as `approve`/`deny` answer it; `session/cancel` is `interrupt`. A session no prompt
//! ran on for `--park-idle` is parked, and when the editor goes away (stdin closes) every
//! session this process holds is. Logs go to stderr.

mod map;
mod modes;
mod prompt;
mod sessions;

use crate::core::acp_args::AcpArgs;
use crate::core::duration::parse_duration;
use crate::core::errors::Result;
use crate::operations::Ctx;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    ListSessionsRequest, LoadSessionRequest, NewSessionRequest, PromptCapabilities, PromptRequest,
    SessionCapabilities, SessionListCapabilities, SetSessionConfigOptionRequest,
    SetSessionModeRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Error, Stdio};
use sessions::Sessions;
use std::sync::Arc;
use std::time::Duration;

/// Serves ACP on stdin/stdout until the editor closes stdin; the exit code. A bad
/// `--park-idle` is refused before anything starts.
pub fn serve(ctx: &Ctx, args: &AcpArgs) -> Result<u8> {
    let park_idle = parse_duration(args.park_idle.as_deref().unwrap_or("10m"), "--park-idle")?;
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("umbel-acp")
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            errln!("umbel: cannot start the ACP server's runtime: {e}");
            return Ok(1);
        }
    };
    let sessions = Arc::new(Sessions::new(ctx.clone(), args.clone()));
    let parker = (!park_idle.is_zero())
        .then(|| runtime.spawn(park_idle_sessions(sessions.clone(), park_idle)));
    let stop = stop_signal();
    let code = runtime.block_on(async {
        tokio::select! {
            code = serve_stdio(sessions.clone()) => code,
            Ok(()) = stop => 130,
        }
    });
    if let Some(parker) = parker {
        parker.abort();
    }
    // The editor is gone (or umbel acp was told to stop): nothing of ours keeps a CLI running.
    sessions.park_all();
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(code)
}

/// Resolves at the first SIGTERM, SIGHUP or Ctrl-C (the editor killed it, or the session it
/// ran in ended); never, where the signals cannot be listened to (said on stderr).
fn stop_signal() -> tokio::sync::oneshot::Receiver<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let (tx, rx) = tokio::sync::oneshot::channel();
    let listening =
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).and_then(|mut signals| {
            std::thread::Builder::new()
                .name("umbel-acp-signals".into())
                .spawn(move || {
                    if signals.forever().next().is_some() {
                        let _ = tx.send(());
                    }
                })
        });
    if let Err(e) = listening {
        errln!("umbel acp: cannot listen for signals ({e}): a signal will not park the sessions");
    }
    rx
}

/// `--park-idle`: looks a few times per `limit` (at most every 30 s) for sessions idle that long.
async fn park_idle_sessions(sessions: Arc<Sessions>, limit: Duration) {
    let every = (limit / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    loop {
        tokio::time::sleep(every).await;
        let sessions = sessions.clone();
        // A park that failed said so on stderr; the next look tries again.
        let _ = tokio::task::spawn_blocking(move || sessions.park_idle(limit)).await;
    }
}

/// The handler of a request answered off the message loop ([`answer_later`]): `$work` runs
/// with its own handle on the sessions, the request and the connection.
macro_rules! later {
    ($sessions:ident, $method:literal, |$s:ident, $req:ident: $ty:ty, $conn:ident| $work:expr) => {{
        let sessions = $sessions.clone();
        async move |$req: $ty, responder, cx: ConnectionTo<Client>| {
            let ($s, $conn) = (sessions.clone(), cx.clone());
            answer_later(&cx, $method, responder, async move { $work })
        }
    }};
}

// long: one handler per ACP method in one builder chain (the SDK's builder changes type with
// each handler, so the chain does not split into functions).
async fn serve_stdio(sessions: Arc<Sessions>) -> u8 {
    let on_cancel = sessions.clone();
    let served = Agent
        .v1()
        .name("umbel")
        .on_receive_request(
            async move |init: InitializeRequest, responder, _cx| {
                responder.respond(initialized(init))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            later!(sessions, "session/new", |s, req: NewSessionRequest, _c| s
                .open(req.cwd)
                .await),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            later!(sessions, "session/load", |s, req: LoadSessionRequest, c| s
                .load(&c, req)
                .await),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            later!(
                sessions,
                "session/list",
                |s, req: ListSessionsRequest, _c| s.list(req).await
            ),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            later!(sessions, "session/prompt", |s, req: PromptRequest, c| {
                prompt::run(&s, &c, req).await
            }),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            later!(
                sessions,
                "session/set_mode",
                |s, req: SetSessionModeRequest, _c| s.set_mode(&req).await
            ),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            later!(
                sessions,
                "session/set_config_option",
                |s, req: SetSessionConfigOptionRequest, _c| s.set_option(&req).await
            ),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: CancelNotification, _cx| {
                on_cancel.cancel(&cancel.session_id);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await;
    match served {
        Ok(()) => 0,
        Err(e) => {
            errln!("umbel acp: the connection failed: {e}");
            1
        }
    }
}

/// What umbel can do, as `initialize` answers it.
fn initialized(init: InitializeRequest) -> InitializeResponse {
    let prompts = PromptCapabilities::new().embedded_context(true);
    InitializeResponse::new(init.protocol_version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(prompts)
                .session_capabilities(
                    SessionCapabilities::new().list(SessionListCapabilities::new()),
                ),
        )
        .agent_info(Implementation::new("umbel", env!("CARGO_PKG_VERSION")))
}

/// Answers a request once `work` is done, off the connection's message loop (a turn takes
/// minutes, and a `session/cancel` must get through meanwhile). A failed reply is logged: the
/// client is gone, and the connection's end says so.
fn answer_later<T>(
    cx: &ConnectionTo<Client>,
    method: &'static str,
    responder: Responder<T>,
    work: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<(), Error>
where
    T: agent_client_protocol::JsonRpcResponse + Send + 'static,
{
    cx.spawn(async move {
        if let Err(e) = responder.respond_with_result(work.await) {
            errln!("umbel acp: {method}: {e}");
        }
        Ok(())
    })
}
