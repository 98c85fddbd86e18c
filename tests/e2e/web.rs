//! `umbel serve` over HTTP on the fakes: nothing without the token (every route walked), the
//! first visit's cookie, wrong tokens refused for a while, the `Host` and `Origin` checks and the
//! CSRF token on POSTs, the pages, the event stream, and the forms reaching the workers.
//! The real-browser checks are `just web-smoke` (scripts/web_smoke.py).

use crate::harness::*;
use crate::web_client::{Server, csrf_of, encode};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

#[test]
fn every_route_needs_the_token_and_says_nothing_else() {
    let sb = Sandbox::new();
    sb.spawn_playing("w", json!({ "default": { "reply": "Hi." } }), &[]);
    let server = Server::start(&sb);
    assert_eq!(server.token.len(), 64, "a long random token");
    let stale = server.cookie().replace(&server.token, "stale");
    for (n, (method, route)) in umbel::faces::web::ROUTES.iter().enumerate() {
        let path = route.replace("{name}", "w");
        // A wrong token on every third route (more would trip the wrong-token limit).
        let wrong = match n % 6 {
            0 => vec![("Cookie", stale.as_str())],
            3 => vec![("Authorization", "Bearer wrong")],
            _ => vec![],
        };
        for headers in [vec![], wrong] {
            let reply = server.call(method, &path, &headers, "");
            assert_eq!(
                reply.status, 401,
                "{method} {path} {headers:?}: {}",
                reply.body
            );
            assert_eq!(
                reply.body, "401: the access token is needed\n",
                "{method} {path}"
            );
        }
    }
    // A stale cookie (the server was restarted) is dropped, not sent again.
    let reply = server.call("GET", "/", &[("Cookie", &stale)], "");
    assert!(
        reply
            .header("set-cookie")
            .unwrap_or("")
            .contains("Max-Age=0"),
        "{:?}",
        reply.headers
    );
    // A path no route serves says no more than the routes do.
    assert_eq!(server.call("GET", "/nope", &[], "").status, 401);
    // A POST cannot carry the token in its URL.
    let reply = server.call(
        "POST",
        &format!("/w/w/kill?token={}", server.token),
        &[],
        "",
    );
    assert_eq!(reply.status, 401);
    assert_eq!(sb.ls()[0]["state"], "ready");
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn the_first_visit_sets_the_cookie_and_the_fleet_shows_every_worker() {
    let sb = Sandbox::new();
    sb.spawn_playing("alpha", json!({ "default": { "reply": "Hi." } }), &[]);
    sb.spawn_playing(
        "beta",
        json!({ "default": { "reply": "Hi." } }),
        &["--provider", "codex"],
    );
    let server = Server::start(&sb);
    let visit = server.call("GET", &format!("/?token={}&x=1", server.token), &[], "");
    assert_eq!(visit.status, 303, "{}", visit.body);
    assert_eq!(
        visit.header("location"),
        Some("/?x=1"),
        "the token left the URL"
    );
    let cookie = visit.header("set-cookie").expect("a cookie");
    assert!(cookie.starts_with(&server.cookie()), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let page = server.get("/");
    assert_eq!(page.status, 200, "{}", page.body);
    let csp = page.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    for (name, provider) in [("alpha", "claude"), ("beta", "codex")] {
        let row = format!("<tr class=\"worker\" data-name=\"{name}\">");
        assert!(page.body.contains(&row), "{}", page.body);
        assert!(
            page.body
                .contains(&format!("<td class=\"provider\">{provider}</td>"))
        );
    }
    assert!(
        page.body.contains("state-ready\">ready</td>"),
        "{}",
        page.body
    );
    // A bearer header works as the cookie does (scripts, curl).
    let bearer = format!("Bearer {}", server.token);
    let fragment = server.call("GET", "/fleet", &[("Authorization", &bearer)], "");
    assert_eq!(fragment.status, 200);
    assert!(
        fragment.body.starts_with("<table id=\"fleet\">"),
        "{}",
        fragment.body
    );
    assert_eq!(server.get("/assets/app.js").status, 200);
    assert_eq!(server.get("/w/nobody").status, 404);
}

#[test]
fn wrong_tokens_are_refused_for_a_while_and_a_foreign_host_never_served() {
    let sb = Sandbox::new();
    let server = Server::start(&sb);
    for _ in 0..10 {
        assert_eq!(server.call("GET", "/?token=nope", &[], "").status, 401);
    }
    // Now even the right token is refused from this address for a minute.
    let reply = server.get("/");
    assert_eq!(reply.status, 429, "{}", reply.body);
    // DNS rebinding: a page on another name that resolves to loopback.
    let sb2 = Sandbox::new();
    let other = Server::start(&sb2);
    let host = format!(
        "evil.example:{}",
        other.addr.rsplit(':').next().unwrap_or("")
    );
    let cookie = other.cookie();
    let reply = other.call("GET", "/", &[("Host", &host), ("Cookie", &cookie)], "");
    assert_eq!(reply.status, 421, "{}", reply.body);
    assert_eq!(other.get("/").status, 200);
}

#[test]
fn a_post_needs_the_pages_csrf_token_and_origin_and_then_reaches_the_worker() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "w",
        json!({ "default": { "reply": "**Done** <script>alert(1)</script>" } }),
        &["--env", &sb.record_env()],
    );
    let server = Server::start(&sb);
    let cookie = server.cookie();
    let form = encode(&[("prompt", "from the web")]);
    let plain = server.call("POST", "/w/w/send", &[("Cookie", &cookie)], &form);
    assert_eq!(plain.status, 403, "no CSRF token: {}", plain.body);
    let csrf = csrf_of(&server.get("/").body);
    let with_csrf = encode(&[("prompt", "from the web"), ("csrf", &csrf)]);
    let evil = [
        ("Cookie", cookie.as_str()),
        ("Origin", "http://evil.example"),
    ];
    let reply = server.call("POST", "/w/w/send", &evil, &with_csrf);
    assert_eq!(reply.status, 403, "another origin: {}", reply.body);
    assert!(sb.received().is_empty(), "nothing reached the worker");
    let sent = server.post("/w/w/send", &[("prompt", "from the web")]);
    assert_eq!(sent.status, 303, "{}", sent.body);
    assert!(
        sent.header("location")
            .unwrap_or("")
            .starts_with("/w/w?note=sent")
    );
    sb.cmd("wait w --timeout 60s").success();
    assert_eq!(sb.received(), [b"from the web".to_vec()]);
    // The answer is on the worker's page, its Markdown rendered and its HTML shown as text.
    let page = server.get("/w/w");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<strong>Done</strong>"), "{}", page.body);
    assert!(page.body.contains("&lt;script&gt;"), "{}", page.body);
    assert!(!page.body.contains("<script>alert"), "{}", page.body);
    // A script's request (bearer) needs no CSRF token; it gets JSON back.
    let bearer = format!("Bearer {}", server.token);
    let headers = [("Authorization", bearer.as_str()), ("x-umbel-fetch", "1")];
    let form = encode(&[("prompt", "again")]);
    let reply = server.call("POST", "/w/w/send", &headers, &form);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body: Value = serde_json::from_str(&reply.body).expect("json");
    assert_eq!(body["ok"], true, "{body}");
}

#[test]
fn the_event_stream_tells_a_turn_ended() {
    let sb = Sandbox::new();
    sb.spawn_playing("w", json!({ "default": { "reply": "Hi." } }), &[]);
    let server = Server::start(&sb);
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "GET /events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n\r\n",
        server.addr,
        server.cookie()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut lines = BufReader::new(stream);
    let mut head = String::new();
    lines.read_line(&mut head).expect("status line");
    assert!(head.contains(" 200 "), "{head}");
    sb.umbel(["send", "w", "hello"]).success();
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        if lines.read_line(&mut line).unwrap_or(0) == 0 {
            panic!("the stream ended: {seen:?}");
        }
        if let Some(data) = line.trim().strip_prefix("data:") {
            let event: Value = serde_json::from_str(data.trim()).expect("an event's JSON");
            if event["worker"] == "w" && event["event"] == "turn-ended" {
                break;
            }
            seen.push(event);
        }
    }
    // SIGTERM with the stream open: the stream ends and the server exits.
    assert_eq!(server.stop(), Some(0));
    let mut rest = String::new();
    let _ = lines.read_to_string(&mut rest);
}

#[test]
fn approve_and_deny_answer_the_tool_the_page_showed() {
    let sb = Sandbox::new();
    let tool =
        json!({ "tool": "Bash", "input": { "command": "rm -rf build", "description": "Clean" } });
    let scenario = json!({ "turns": [
        { "match": "clean", "reply": "Cleaned.", "end": { "permission": tool } },
        { "match": "again", "reply": "Not run.", "end": { "permission": tool } },
        { "reply": "Later." }
    ] });
    sb.spawn_playing("p", scenario, &[]);
    let server = Server::start(&sb);
    sb.turn_outcome("p", "clean up", 126);
    let page = server.get("/w/p");
    assert!(
        page.body.contains("<section id=\"approval\">"),
        "{}",
        page.body
    );
    assert!(page.body.contains("rm -rf build"), "{}", page.body);
    let fleet = server.get("/").body;
    assert!(
        fleet.contains("worker attention\" data-name=\"p\""),
        "{fleet}"
    );
    // An id that is not the pending one presses nothing.
    let stale = server.post("/w/p/approve", &[("expect", "999999")]);
    assert_eq!(stale.status, 409, "{}", stale.body);
    let id = sb.umbel(["approvals", "--json"]).success().json()[0]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let approved = server.post("/w/p/approve", &[("expect", &id)]);
    assert_eq!(approved.status, 303, "{}", approved.body);
    sb.cmd("wait p --timeout 60s").success();
    assert!(!server.get("/w/p").body.contains("id=\"approval\""));
    sb.turn_outcome("p", "again", 126);
    let denied = server.post("/w/p/deny", &[]);
    assert_eq!(denied.status, 303, "{}", denied.body);
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
}

#[test]
fn interrupt_park_resume_and_kill_from_the_page() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "w",
        json!({ "turns": [{ "match": "slow", "reply": "x".repeat(400), "chunk_ms": 100 }, { "reply": "Ok." }] }),
        &[],
    );
    let server = Server::start(&sb);
    sb.umbel(["send", "w", "slow one"]).success();
    let interrupted = server.post("/w/w/interrupt", &[]);
    assert_eq!(interrupted.status, 303, "{}", interrupted.body);
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
    assert_eq!(server.post("/w/w/park", &[]).status, 303);
    assert_eq!(sb.ls()[0]["state"], "parked", "{:?}", sb.ls());
    assert_eq!(server.post("/w/w/resume", &[]).status, 303);
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
    let killed = server.post("/w/w/kill", &[]);
    assert_eq!(killed.status, 303, "{}", killed.body);
    assert!(
        sb.ls().is_empty() || sb.ls()[0]["state"] == "dead",
        "{:?}",
        sb.ls()
    );
}

#[test]
fn a_listen_address_that_cannot_be_served_is_named() {
    let sb = Sandbox::new();
    let ran = sb.umbel(["serve", "--listen", "localhost:80"]).status(2);
    assert!(
        ran.stderr().contains("\"localhost:80\" is not ADDR:PORT"),
        "{}",
        ran.stderr()
    );
    assert!(ran.stdout().is_empty(), "no URL printed: {}", ran.stdout());
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = taken.local_addr().expect("its address").to_string();
    let ran = sb.umbel(["serve", "--listen", &addr]).status(2);
    assert!(
        ran.stderr().contains(&format!("cannot listen on {addr}")),
        "{}",
        ran.stderr()
    );
}

#[test]
fn a_question_is_answered_with_a_choice_from_the_page() {
    let sb = Sandbox::new();
    let question = json!({"question": "Which color should the button be?", "header": "Color",
        "options": [{"label": "Red", "description": "A red button"},
                    {"label": "Blue", "description": "A blue button"}], "multiSelect": false});
    let ask = json!({ "tool": "AskUserQuestion", "input": { "questions": [question] } });
    let scenario = json!({ "turns": [
        { "match": "ask me", "reply": "You chose it.", "end": { "permission": ask } },
        { "reply": "Next." }
    ] });
    sb.spawn_playing("q", scenario, &[]);
    let server = Server::start(&sb);
    sb.turn_outcome("q", "ask me something", 126);
    let page = server.get("/w/q").body;
    assert!(page.contains("Which color should the button be?"), "{page}");
    assert!(page.contains(">Blue</button>"), "{page}");
    assert!(
        !page.contains("id=\"approve\""),
        "a question is answered, not approved: {page}"
    );
    let id = sb.umbel(["approvals", "--json"]).success().json()[0]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let answered = server.post("/w/q/answer", &[("choice", "2"), ("expect", &id)]);
    assert_eq!(answered.status, 303, "{}", answered.body);
    sb.cmd("wait q --timeout 60s").success();
    assert_eq!(
        sb.umbel(["read", "q"]).success().stdout(),
        "You chose it.\n"
    );
}
