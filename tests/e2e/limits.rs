//! The machine's limits reached under umbel: out of inotify instances (shared with every editor
//! of the user), the verbs that wait poll instead of failing.

use crate::harness::*;
use serde_json::json;

/// With every inotify watch refused (as when `fs.inotify.max_user_instances` is used up), a
/// spawn, a send, a wait, a queued send and `read` still work — by polling — and `doctor`
/// names the sysctl to raise.
#[test]
fn out_of_inotify_the_verbs_poll_and_doctor_names_the_limit() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_DEBUG_NO_INOTIFY", "1");
    let slow = sb.scenario(
        "slow",
        json!({ "default": { "reply": "done", "delay_ms": 1000 } }),
    );
    sb.spawn("w", &["--env", &slow]);
    sb.umbel(["send", "w", "first"]).success();
    // Queued behind the running turn: it learns of that turn's end by polling.
    let pos = sb
        .umbel(["send", "w", "second", "--queue"])
        .success()
        .line();
    let out = sb
        .umbel(["wait", "w", "--since", &pos, "--json"])
        .success()
        .json();
    assert_eq!(out["outcome"], "stop", "{out}");
    let log = std::fs::read_to_string(sb.session_dir("w").join("events/log")).expect("log");
    assert_eq!(log.matches(" UserPromptSubmit ").count(), 2, "{log}");
    assert_eq!(sb.umbel(["read", "w"]).success().stdout(), "done\n");
    sb.umbel(["doctor"])
        .stdout_has("fs.inotify.max_user_instances")
        .run();
}
