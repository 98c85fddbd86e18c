//! The routes and the GET handlers: pages, the fragments the page script swaps in, a worker's
//! screen, the assets. Each reads through the operations on tokio's blocking pool, bounded in
//! time so a stuck tmux cannot hold a request for ever.

use super::calls::{blocking, failed};
use super::guard::guard;
use super::{App, assets, live, pages, pages_worker, posts};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Every route, as (method, path): what the router serves and what the tests walk.
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/"),
    ("GET", "/fleet"),
    ("GET", "/events"),
    ("GET", "/assets/app.css"),
    ("GET", "/assets/app.js"),
    ("GET", "/favicon.ico"),
    ("GET", "/w/{name}"),
    ("GET", "/w/{name}/live"),
    ("GET", "/w/{name}/screen"),
    ("POST", "/w/{name}/send"),
    ("POST", "/w/{name}/interrupt"),
    ("POST", "/w/{name}/approve"),
    ("POST", "/w/{name}/answer"),
    ("POST", "/w/{name}/deny"),
    ("POST", "/w/{name}/park"),
    ("POST", "/w/{name}/resume"),
    ("POST", "/w/{name}/kill"),
];

/// The largest request body taken (a prompt).
const BODY_LIMIT: usize = 1024 * 1024;
/// How long a page's reads may take.
const READ_LIMIT: Duration = Duration::from_secs(20);

/// The router: every route behind [`guard`].
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(fleet_page))
        .route("/fleet", get(fleet_fragment))
        .route("/events", get(live::events))
        .route("/assets/app.css", get(assets::css))
        .route("/assets/app.js", get(assets::js))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/w/{name}", get(worker_page))
        .route("/w/{name}/live", get(worker_live))
        .route("/w/{name}/screen", get(worker_screen))
        .route("/w/{name}/send", post(posts::send))
        .route("/w/{name}/interrupt", post(posts::interrupt))
        .route("/w/{name}/approve", post(posts::approve))
        .route("/w/{name}/answer", post(posts::answer))
        .route("/w/{name}/deny", post(posts::deny))
        .route("/w/{name}/park", post(posts::park))
        .route("/w/{name}/resume", post(posts::resume))
        .route("/w/{name}/kill", post(posts::kill))
        .fallback(|| async { (StatusCode::NOT_FOUND, "404: no such page\n") })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

async fn fleet_page(State(app): State<Arc<App>>) -> Response {
    let shared = app.clone();
    match blocking(&app, READ_LIMIT, move |ctx| pages::fleet_rows(&shared, ctx)).await {
        Ok(rows) => Html(pages::fleet_page(&app, &rows)).into_response(),
        Err(e) => failed(&e, true),
    }
}

async fn fleet_fragment(State(app): State<Arc<App>>) -> Response {
    let shared = app.clone();
    match blocking(&app, READ_LIMIT, move |ctx| pages::fleet_rows(&shared, ctx)).await {
        Ok(rows) => Html(pages::fleet_table(&rows)).into_response(),
        Err(e) => failed(&e, false),
    }
}

async fn worker_page(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let note = query.get("note").cloned();
    let looked = name.clone();
    match blocking(&app, READ_LIMIT, move |ctx| {
        pages_worker::look(ctx, &looked)
    })
    .await
    {
        Ok(look) => Html(pages_worker::page(&app, &look, note.as_deref())).into_response(),
        Err(e) => failed(&e, true),
    }
}

async fn worker_live(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    match blocking(&app, READ_LIMIT, move |ctx| pages_worker::look(ctx, &name)).await {
        Ok(look) => Html(pages_worker::live(&app, &look)).into_response(),
        Err(e) => failed(&e, false),
    }
}

async fn worker_screen(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    match blocking(&app, READ_LIMIT, move |ctx| {
        pages_worker::screen(ctx, &name)
    })
    .await
    {
        Ok(screen) => (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            screen,
        )
            .into_response(),
        Err(e) => failed(&e, false),
    }
}
