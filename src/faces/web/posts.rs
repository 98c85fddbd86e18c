//! The forms that change something, each a POST to `/w/NAME/VERB`: send (queued while a turn
//! runs), interrupt, approve, answer (a question's choice), deny, park, resume, kill. Each is the
//! verb's own input struct (the one the CLI and MCP read) filled from the form, checked first: a
//! browser's request (cookie) must carry the CSRF token and come from this server's own origin.
//! The page script's requests get JSON back; a form posted without script is redirected to the
//! worker's page, which says what happened.

use super::App;
use super::calls::{bounded, failed, too_long};
use super::guard::AuthBy;
use crate::core::errors::{Error, Result};
use crate::core::web_guard::{CSRF_FIELD, same_origin, same_secret};
use crate::operations::Ctx;
use crate::operations::remote::anywhere;
use axum::Extension;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Json, Redirect, Response};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// How long a send is waited for before it is said to be queued (it goes on in the background:
/// a busy worker takes it when its turn ends).
const SEND_WAIT: Duration = Duration::from_secs(10);
/// How long the other verbs may take.
const VERB_LIMIT: Duration = Duration::from_secs(60);
/// The header the page script sets: answer with JSON, not a redirect.
const FETCH_HEADER: &str = "x-umbel-fetch";

type Fields = HashMap<String, String>;

/// Refuses a POST that is not the page's own: a browser's (cookie) without the CSRF token or
/// from another origin.
fn checked(app: &App, by: AuthBy, headers: &HeaderMap, fields: &Fields) -> Option<Response> {
    if by == AuthBy::Bearer {
        return None;
    }
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let host = header(header::HOST.as_str()).unwrap_or("");
    if !same_origin(header(header::ORIGIN.as_str()), host) {
        return Some(
            (
                StatusCode::FORBIDDEN,
                "403: not from this server's own pages\n",
            )
                .into_response(),
        );
    }
    let csrf = fields
        .get(CSRF_FIELD)
        .map(String::as_str)
        .or_else(|| header("x-umbel-csrf"))
        .unwrap_or("");
    match same_secret(csrf, &app.csrf) {
        true => None,
        false => Some(
            (
                StatusCode::FORBIDDEN,
                "403: the form's CSRF token is missing or wrong; reload the page\n",
            )
                .into_response(),
        ),
    }
}

/// The verb's input struct from the worker's name and the form's `fields` (named as the struct
/// names them; the CSRF token left out).
fn input<T: DeserializeOwned>(name: &str, fields: &Fields, keep: &[&str]) -> Result<T> {
    let mut object = serde_json::Map::new();
    object.insert("name".into(), Value::String(name.to_string()));
    for key in keep {
        if let Some(value) = fields.get(*key).filter(|v| !v.trim().is_empty()) {
            object.insert((*key).to_string(), Value::String(value.clone()));
        }
    }
    serde_json::from_value(Value::Object(object))
        .map_err(|e| Error::usage(format!("the form does not fit: {e}")))
}

/// What a POST answers: JSON for the script, else a redirect to `back` with a note.
fn reply(headers: &HeaderMap, back: &str, done: Result<String>) -> Response {
    let by_script = headers.contains_key(FETCH_HEADER);
    match (done, by_script) {
        (Ok(note), true) => Json(json!({ "ok": true, "note": note })).into_response(),
        (Err(e), true) => {
            let status = failed(&e, false).status();
            (status, Json(json!({ "ok": false, "error": e.to_string() }))).into_response()
        }
        (Ok(note), false) => Redirect::to(&with_note(back, &note)).into_response(),
        (Err(e), false) => failed(&e, true),
    }
}

fn with_note(back: &str, note: &str) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("note", note)
        .finish();
    format!("{back}?{query}")
}

/// The page a worker's form goes back to.
fn page_of(name: &str) -> String {
    let path: String = form_urlencoded::byte_serialize(name.as_bytes()).collect();
    format!("/w/{path}")
}

/// How long a verb may take, and what a verb that took longer is said to have done (it goes
/// on in the background); `None`: it failed.
#[derive(Clone, Copy)]
struct Late {
    limit: Duration,
    note: Option<&'static str>,
}

/// Every verb but send.
const VERB: Late = Late {
    limit: VERB_LIMIT,
    note: None,
};

/// A send to a worker busy with a turn waits its turn ([`SEND_WAIT`]).
const SEND: Late = Late {
    limit: SEND_WAIT,
    note: Some("queued: it goes when the running turn ends"),
};

/// Runs `verb` on the blocking pool once the POST passed [`checked`].
async fn run(
    app: Arc<App>,
    (by, headers): (AuthBy, HeaderMap),
    name: String,
    fields: Fields,
    late: Late,
    verb: impl FnOnce(&Ctx, &str, &Fields) -> Result<String> + Send + 'static,
) -> Response {
    if let Some(refused) = checked(&app, by, &headers, &fields) {
        return refused;
    }
    let back = page_of(&name);
    let done = match bounded(&app, late.limit, move |ctx| verb(ctx, &name, &fields)).await {
        Some(done) => done,
        None => late
            .note
            .map(str::to_string)
            .ok_or_else(|| too_long(late.limit)),
    };
    reply(&headers, &back, done)
}

macro_rules! verb {
    ($(#[$doc:meta])* $fn:ident, $late:expr, $body:expr) => {
        $(#[$doc])*
        pub async fn $fn(
            State(app): State<Arc<App>>,
            Extension(by): Extension<AuthBy>,
            headers: HeaderMap,
            Path(name): Path<String>,
            Form(fields): Form<Fields>,
        ) -> Response {
            run(app, (by, headers), name, fields, $late, $body).await
        }
    };
}

verb!(
    /// Sends a prompt; a worker busy with a turn gets it when that turn ends (the send is said to
    /// be queued once it took longer than [`SEND_WAIT`], and goes on in the background).
    send,
    SEND,
    |ctx, name, fields| {
        let prompt = fields.get("prompt").map(String::as_str).unwrap_or("");
        if prompt.trim().is_empty() {
            return Err(Error::usage("the prompt is empty"));
        }
        let mut args: crate::core::args::SendArgs = input(name, &Fields::new(), &[])?;
        args.queue = true;
        let queue = args.queue_limit()?;
        anywhere::send(ctx, &args.name, prompt.as_bytes(), &args.guard, queue)
            .map(|sent| format!("sent (event position {})", sent.position))
    }
);

verb!(
    /// Interrupts the running turn (the CLI's own key).
    interrupt,
    VERB,
    |ctx, name, fields| {
        anywhere::interrupt(ctx, &input(name, fields, &[])?).map(|_| "interrupted".to_string())
    }
);

verb!(
    /// Approves the tool the worker waits on (only the one the page showed: `expect`).
    approve,
    VERB,
    |ctx, name, fields| {
        let args = input(name, fields, &["expect"])?;
        anywhere::approve(ctx, &args).map(|_| "approved".to_string())
    }
);

verb!(
    /// Answers the question the worker's model asked with one of its choices (`choice`).
    answer,
    VERB,
    |ctx, name, fields| {
        let args = input(name, fields, &["choice", "expect"])?;
        anywhere::answer(ctx, &args).map(|_| "answered".to_string())
    }
);

verb!(
    /// Denies it; `reason` goes to the model as the next prompt.
    deny,
    VERB,
    |ctx, name, fields| {
        let args = input(name, fields, &["expect", "reason"])?;
        anywhere::deny(ctx, &args).map(|_| "denied".to_string())
    }
);

verb!(
    /// Parks the worker (its CLI ends, its conversation stays).
    park,
    VERB,
    |ctx, name, _fields| {
        let args = crate::core::fleet_args::ParkArgs {
            names: vec![name.to_string()],
            ..Default::default()
        };
        crate::operations::park::park(ctx, &args).map(|_| "parked".to_string())
    }
);

verb!(
    /// Resumes a parked or dead worker on its conversation.
    resume,
    VERB,
    |ctx, name, fields| {
        let args = input(name, fields, &[])?;
        crate::operations::park::resume(ctx, &args).map(|_| "resumed".to_string())
    }
);

verb!(
    /// Kills the worker (its folder stays as a tombstone).
    kill,
    VERB,
    |ctx, name, fields| {
        crate::operations::kill::kill(ctx, &input(name, fields, &[])?).map(|_| "killed".to_string())
    }
);
