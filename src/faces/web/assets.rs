//! The page's stylesheet and script, compiled into umbel: no CDN, no build step, works offline.

use axum::http::header;
use axum::response::IntoResponse;

/// `GET /assets/app.css`.
pub async fn css() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("assets/app.css"),
    )
}

/// `GET /assets/app.js`.
pub async fn js() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("assets/app.js"),
    )
}
