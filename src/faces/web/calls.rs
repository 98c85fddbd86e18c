//! Running the blocking operations from a request (tokio's blocking pool, bounded in time so a
//! stuck tmux cannot hold a request for ever), and an error as the response its kind calls for.

use super::{App, pages};
use crate::core::errors::{Error, Result};
use crate::operations::Ctx;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use std::time::Duration;

/// Runs `job` (an operation) on the blocking pool with its own copy of the context; `None` when
/// it took longer than `limit` (it goes on in the background).
pub async fn bounded<T: Send + 'static>(
    app: &App,
    limit: Duration,
    job: impl FnOnce(&Ctx) -> Result<T> + Send + 'static,
) -> Option<Result<T>> {
    let ctx = app.ctx.clone();
    let handle = tokio::task::spawn_blocking(move || job(&ctx));
    match tokio::time::timeout(limit, handle).await {
        Ok(Ok(done)) => Some(done),
        Ok(Err(e)) => Some(Err(Error::usage(format!(
            "the request failed inside umbel: {e}"
        )))),
        Err(_) => None,
    }
}

/// [`bounded`], an error when the time ran out.
pub async fn blocking<T: Send + 'static>(
    app: &App,
    limit: Duration,
    job: impl FnOnce(&Ctx) -> Result<T> + Send + 'static,
) -> Result<T> {
    bounded(app, limit, job)
        .await
        .unwrap_or_else(|| Err(too_long(limit)))
}

/// The error of a call that ran out of time.
pub fn too_long(limit: Duration) -> Error {
    Error::usage(format!(
        "umbel did not answer within {}s (is tmux stuck?)",
        limit.as_secs()
    ))
}

/// An error as a page (or plain text for a fragment), with the status its kind calls for.
pub fn failed(err: &Error, page: bool) -> Response {
    let status = match err {
        Error::NotFound { .. } | Error::InvalidName { .. } => StatusCode::NOT_FOUND,
        Error::Usage { .. } => StatusCode::BAD_REQUEST,
        _ => StatusCode::CONFLICT,
    };
    match page {
        true => (status, Html(pages::error_page(&err.to_string()))).into_response(),
        false => (status, err.to_string()).into_response(),
    }
}
