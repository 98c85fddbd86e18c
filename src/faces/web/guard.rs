//! The gate in front of every route: the token (a `?token=` visit sets the cookie and
//! redirects to the same page without it), 401 without it and nothing else, 429 for an address
//! that presented too many wrong ones, a loopback server's `Host` check (DNS rebinding), and the
//! headers every response carries (a strict Content-Security-Policy, no caching, no referrer).

use super::App;
use crate::core::web_guard::{bearer, cookie, drop_cookie, loopback_host, same_secret, set_cookie};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// How the request proved it holds the token: a browser's cookie must also carry the CSRF token
/// on a POST; a bearer header cannot be sent by another site's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthBy {
    Cookie,
    Bearer,
}

/// What every response carries.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The middleware: lets a request with the token through (marked [`AuthBy`]), answers the rest.
pub async fn guard(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let mut response = match admit(&app, peer, &request) {
        Admit::Pass(by) => {
            request.extensions_mut().insert(by);
            next.run(request).await
        }
        Admit::Visit(location) => visit(&app, &location),
        Admit::Refuse(status, why) => (status, why).into_response(),
        Admit::Stale => {
            let mut refused = (StatusCode::UNAUTHORIZED, UNAUTHORIZED).into_response();
            if let Ok(value) = HeaderValue::from_str(&drop_cookie(&app.cookie)) {
                refused.headers_mut().insert(header::SET_COOKIE, value);
            }
            refused
        }
    };
    secure(response.headers_mut());
    response
}

/// What the gate decided.
enum Admit {
    Pass(AuthBy),
    /// The token came in the URL: set the cookie, go to this location without it.
    Visit(String),
    Refuse(StatusCode, &'static str),
    /// A cookie with a wrong token (this server was restarted): refused, and dropped so the
    /// browser sends it no more.
    Stale,
}

const UNAUTHORIZED: &str = "401: the access token is needed\n";

fn admit(app: &App, peer: SocketAddr, request: &Request) -> Admit {
    let headers = request.headers();
    if app.loopback {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !loopback_host(host) {
            return Admit::Refuse(
                StatusCode::MISDIRECTED_REQUEST,
                "421: not this server's name\n",
            );
        }
    }
    let now = Instant::now();
    if let Ok(failures) = app.failures.lock()
        && failures.refused(peer.ip(), now)
    {
        return Admit::Refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "429: too many wrong tokens from this address; try again in a minute\n",
        );
    }
    let (by, presented) = presented(app, request);
    match presented {
        None => Admit::Refuse(StatusCode::UNAUTHORIZED, UNAUTHORIZED),
        Some(token) if same_secret(&token, &app.token) => match by {
            Some(by) => Admit::Pass(by),
            None => Admit::Visit(without_token(request)),
        },
        Some(_) => {
            if let Ok(mut failures) = app.failures.lock() {
                failures.count(peer.ip(), now);
            }
            match by {
                Some(AuthBy::Cookie) => Admit::Stale,
                _ => Admit::Refuse(StatusCode::UNAUTHORIZED, UNAUTHORIZED),
            }
        }
    }
}

/// The token the request presents and how (`None`: in the URL, a first visit).
fn presented(app: &App, request: &Request) -> (Option<AuthBy>, Option<String>) {
    let headers = request.headers();
    let from_header = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    if let Some(token) =
        from_header(header::AUTHORIZATION).and_then(|h| bearer(&h).map(str::to_string))
    {
        return (Some(AuthBy::Bearer), Some(token));
    }
    let in_url = request.uri().query().and_then(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(key, _)| key == "token")
            .map(|(_, value)| value.into_owned())
    });
    if let Some(token) = in_url.filter(|_| request.method() == axum::http::Method::GET) {
        return (None, Some(token));
    }
    let cookie_token =
        from_header(header::COOKIE).and_then(|h| cookie(&h, &app.cookie).map(str::to_string));
    (Some(AuthBy::Cookie), cookie_token)
}

/// The request's path and query without its `token` (kept out of history and referrers).
fn without_token(request: &Request) -> String {
    let kept: Vec<(String, String)> = request
        .uri()
        .query()
        .map(|q| {
            form_urlencoded::parse(q.as_bytes())
                .filter(|(key, _)| key != "token")
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    // `//host/…` would send the browser to another site (a protocol-relative URL).
    let path = match request.uri().path() {
        p if p.starts_with("//") => "/",
        p => p,
    };
    match kept.is_empty() {
        true => path.to_string(),
        false => {
            let query = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(kept)
                .finish();
            format!("{path}?{query}")
        }
    }
}

/// The first visit: the cookie, and a redirect to the page asked for.
fn visit(app: &App, location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&set_cookie(&app.cookie, &app.token)) {
        headers.insert(header::SET_COOKIE, value);
    }
    if let Ok(value) = HeaderValue::from_str(location) {
        headers.insert(header::LOCATION, value);
    }
    response
}

/// The headers every response carries.
fn secure(headers: &mut HeaderMap) {
    let fixed = [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(uri: &str) -> String {
        let request = Request::builder()
            .uri(uri)
            .body(axum::body::Body::empty())
            .expect("a request");
        without_token(&request)
    }

    #[test]
    fn the_first_visit_goes_to_the_same_page_without_the_token() {
        assert_eq!(location("/w/a?token=t"), "/w/a");
        assert_eq!(location("/?x=1&token=t&y=2"), "/?x=1&y=2");
        // Never to another site.
        assert_eq!(location("//evil.example/?token=t"), "/");
    }
}
