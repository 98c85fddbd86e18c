//! Prompts arrive byte-exact for every provider: multi-line text, quotes, unicode, and 100 kB.

use crate::each_provider;
use crate::harness::*;
use serde_json::{Value, json};

each_provider!(
    multi_line_and_large_prompts_arrive_byte_exact,
    a_prompt_that_would_break_the_paste_is_refused
);

fn round_trip(sb: &Sandbox, name: &str, prompt: &[u8]) {
    sb.umbel(["send", name, "-"])
        .stdin(prompt.to_vec())
        .success();
    sb.cmd(&format!("wait {name} --timeout 60s")).success();
}

fn multi_line_and_large_prompts_arrive_byte_exact(provider: &str) {
    let sb = Sandbox::new();
    sb.spawn("d1", &["--provider", provider, "--env", &sb.record_env()]);
    let multi =
        "line one\n  indented 'quoted' \"double\" $HOME `tick` ;\n\nünïcödé ✓ 日本\ttab\nlast"
            .as_bytes();
    let big = text_of(100_000, 101);
    round_trip(&sb, "d1", multi);
    round_trip(&sb, "d1", &big);
    let received = sb.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0], multi);
    assert_eq!(received[1].len(), big.len());
    assert!(received[1] == big, "100 kB prompt differs");
    let answer = sb.umbel(["read", "d1", "--json"]).json();
    assert!(
        answer["text"]
            .as_str()
            .unwrap()
            .starts_with("Response to: abcdef")
    );
}

fn a_prompt_that_would_break_the_paste_is_refused(provider: &str) {
    let sb = Sandbox::new();
    sb.spawn("d2", &["--provider", provider]);
    sb.umbel(["send", "d2", "evil \u{1b}[201~ rest"])
        .stderr_has("201~")
        .status(2);
}

#[test]
fn codex_swallowing_the_first_enter_after_a_paste_is_recovered() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "swallow_enters": 1 } });
    sb.spawn_playing(
        "sw",
        scenario,
        &["--provider", "codex", "--env", &sb.record_env()],
    );
    let long = "x".repeat(1500);
    round_trip(&sb, "sw", long.as_bytes());
    assert_eq!(sb.received(), [long.into_bytes()]);
}

/// The real gemini turns an Enter within 40 ms of a paste into a newline (so does the fake):
/// umbel presses its first Enter once that window is over, and that Enter submits.
#[test]
fn gemini_submits_on_the_first_enter_after_its_paste_window() {
    let sb = Sandbox::new();
    sb.spawn("gw", &["--provider", "gemini", "--env", &sb.record_env()]);
    for prompt in ["first prompt", "second\nprompt"] {
        let sent = sb.umbel(["send", "gw", "--json", prompt]).json();
        assert_eq!(sent["enters"], 1, "{sent}");
        sb.cmd("wait gw --timeout 60s").success();
    }
    assert_eq!(sb.received(), [&b"first prompt"[..], b"second\nprompt"]);
}

/// On a loaded machine gemini closes its paste window late (a timer, then a redraw): an Enter
/// that still fell in it shows as a newline, and umbel presses again — the prompt goes out once,
/// trimmed as gemini submits it, the newline not part of it.
#[test]
fn a_gemini_enter_that_became_a_newline_is_pressed_again() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "paste_guard_ms": 70 } });
    sb.spawn_playing(
        "gl",
        scenario,
        &["--provider", "gemini", "--env", &sb.record_env()],
    );
    let sent = sb.umbel(["send", "gl", "--json", "late window"]).json();
    // Two on a quiet machine; one when the fake itself read the first Enter late.
    assert!(
        (1..=2).contains(&sent["enters"].as_u64().unwrap_or(0)),
        "{sent}"
    );
    sb.cmd("wait gl --timeout 60s").success();
    assert_eq!(sb.received(), [b"late window".to_vec()]);
}

/// copilot holds a paste 200 ms for more of it before drawing it, and draws it at once on a key
/// that types nothing (recorded on the real 1.0.102: ~225 ms, ~20 ms after End): umbel presses
/// End after its paste rather than wait the hold out on every send (issue 42).
#[test]
fn a_copilot_paste_is_drawn_by_a_key_not_its_hold_timer() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "cp",
        json!({}),
        &["--provider", "copilot", "--env", &sb.record_env()],
    );
    let sent = sb.umbel(["send", "cp", "--json", "held a while"]).json();
    assert_eq!(sent["enters"], 1, "{sent}");
    sb.cmd("wait cp --timeout 60s").success();
    assert_eq!(sb.received(), [b"held a while".to_vec()]);
    let drawn = std::fs::read_to_string(sb.record.join("pastes.txt")).unwrap_or_default();
    assert_eq!(
        drawn, "key\n",
        "how each paste reached copilot's input line"
    );
}

/// qwen reads a long paste in for a while (`Pasting… 12 KB` under its footer; 0.8–22 s for
/// 256 KiB on the real 0.24.4), and an Enter pressed meanwhile submits the paste's placeholder
/// unexpanded: umbel presses its Enter once the paste shows, past its usual one second, also
/// when the `Pasting…` line has gone and the paste is not drawn yet.
#[test]
fn qwen_gets_its_enter_once_a_long_paste_is_read_in() {
    let sb = Sandbox::new();
    // Read in for 0.6 s (`Pasting…`), then 0.9 s with nothing on the screen, the paste shown
    // at 1.5 s: past umbel's usual second either way.
    let scenario = json!({ "startup": { "paste_read_ms": 600, "paste_quiet_ms": 900 } });
    sb.spawn_playing(
        "pr",
        scenario,
        &["--provider", "qwen", "--env", &sb.record_env()],
    );
    let big = text_of(20_000, 101);
    let sent = sb
        .umbel(["send", "pr", "--json", "-"])
        .stdin(big.clone())
        .json();
    assert_eq!(sent["enters"], 1, "{sent}");
    sb.cmd("wait pr --timeout 60s").success();
    let received = sb.received();
    assert_eq!(received.len(), 1);
    assert!(
        received[0] == big,
        "got {:?}",
        String::from_utf8_lossy(&received[0][..60.min(received[0].len())])
    );
}

/// A CLI that drops the first Enter after a paste without a trace (fake-codex) gets a second
/// one after 1 s of an unchanged input box — not after the 4 s confirmation wait.
#[test]
fn a_dropped_enter_is_pressed_again_without_the_confirmation_wait_and_counted() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "swallow_enters": 1 } });
    sb.spawn_playing(
        "sw",
        scenario,
        &["--provider", "codex", "--env", &sb.record_env()],
    );
    let started = std::time::Instant::now();
    let sent = sb.umbel(["send", "sw", "--json", "dropped once"]).json();
    let took = started.elapsed();
    assert_eq!(sent["enters"], 2, "{sent}");
    assert!(
        took < std::time::Duration::from_secs(3),
        "the second Enter came after the confirmation wait: {took:?}"
    );
    sb.cmd("wait sw --timeout 60s").success();
    assert_eq!(sb.received(), [b"dropped once".to_vec()]);
}

#[test]
fn escape_sequences_and_cr_only_lines_arrive_exactly_and_unsendable_bytes_are_refused() {
    let sb = Sandbox::new();
    sb.spawn("h1", &["--env", &sb.record_env()]);
    let tricky = "colour \u{1b}[31mred\u{1b}[0m, cursor \u{1b}[2J, title \u{1b}]0;x\u{7}\rcr-only line\r\nwindows line\nend".as_bytes();
    round_trip(&sb, "h1", tricky);
    assert_eq!(sb.received(), [tricky.to_vec()]);
    for (bytes, needle) in [
        (b"nul \0 byte".to_vec(), "NUL"),
        (b"bad \xff utf-8".to_vec(), "UTF-8"),
        (vec![b'a'; 2 * 1024 * 1024], "1 MiB"),
    ] {
        sb.umbel(["send", "h1", "-"])
            .stdin(bytes)
            .stderr_has(needle)
            .status(2);
    }
    assert_eq!(sb.received().len(), 1, "nothing refused reached the worker");
}

/// Every delivered prompt is tallied with its Enters (`sends.jsonl` at the state root), and
/// `doctor` reports the tally: a CLI that needed more than two Enters is a warning naming it.
#[test]
fn doctor_reports_the_enters_each_cli_needed_and_warns_past_two() {
    let sb = Sandbox::new();
    sb.spawn("one", &["--provider", "claude"]);
    sb.turn("one", "hi").success();
    let doctor = sb.umbel(["doctor", "--json"]).json();
    let sends = |json: &Value| {
        json["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == "sends").cloned())
            .unwrap_or_default()
    };
    let line = sends(&doctor);
    assert_eq!(line["level"], "ok", "{doctor}");
    assert!(
        line["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("claude: 1 sends, Enters 1×1")),
        "{line}"
    );
    let scenario = json!({ "startup": { "swallow_enters": 2 } });
    sb.spawn_playing("three", scenario, &["--provider", "codex"]);
    let sent = sb
        .umbel(["send", "three", "--json", "dropped twice"])
        .json();
    assert_eq!(sent["enters"], 3, "{sent}");
    let line = sends(&sb.umbel(["doctor", "--json"]).json());
    assert_eq!(line["level"], "warn", "{line}");
    assert!(
        line["detail"]
            .as_str()
            .unwrap_or("")
            .contains("codex: 1 sends, Enters 3×1"),
        "{line}"
    );
    assert!(
        line["fix"]
            .as_str()
            .unwrap_or("")
            .starts_with("codex took more than 2 Enters"),
        "{line}"
    );
}

/// A CLI starved of CPU reads its keys late (fake-claude `key_lag_ms`, 1.1 s): the paste shows
/// only just after umbel's first Enter (pressed once the paste had not shown within 1 s), and
/// that Enter, queued behind it, is read 1.1 s later still. It is not taken for lost: one
/// Enter, one prompt (the real claude under a load of 10+ took a second Enter this way).
#[test]
fn a_cli_that_reads_its_keys_late_gets_one_enter() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "key_lag_ms": 1100 } });
    sb.spawn_playing(
        "lag",
        scenario,
        &["--provider", "claude", "--env", &sb.record_env()],
    );
    let sent = sb.umbel(["send", "lag", "--json", "late keys"]).json();
    assert_eq!(sent["enters"], 1, "{sent}");
    sb.cmd("wait lag --timeout 60s").success();
    assert_eq!(sb.received(), [b"late keys".to_vec()]);
}

/// codex 0.155.1 clears its screen and draws it again once its model is loaded, after it looks
/// ready: a send that looks at the input line in that moment sees nothing on it. It waits for
/// the screen to come back, so text left there is cleared, not submitted with the prompt.
#[test]
fn a_screen_blank_while_the_cli_redraws_is_not_taken_for_an_empty_input_line() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "blank_at_ms": 2500, "blank_ms": 600 } });
    sb.spawn_playing(
        "bl",
        scenario,
        &["--provider", "codex", "--env", &sb.record_env()],
    );
    let tmux = sandbox_tmux(&sb);
    tmux.paste("umbel-bl", "leftover", b"half a prompt")
        .expect("paste");
    let within = std::time::Duration::from_secs(20);
    await_screen(&sb, "bl", "the leftover", within, |s| {
        s.contains("half a prompt")
    });
    await_screen(&sb, "bl", "the blank screen", within, |s| {
        s.trim().is_empty()
    });
    round_trip(&sb, "bl", b"The real prompt");
    assert_eq!(sb.received(), [b"The real prompt".to_vec()]);
}

/// A sender killed after its paste reached the pane, before its Enter (issue 40 item 2): the
/// CLI reads its keys late (fake-claude `key_lag_ms`), so the next `send` finds the input line
/// empty and pastes behind text still on its way in. Before it presses Enter the send checks
/// the composer holds its own text and nothing before it; it clears the rest and pastes again.
/// One prompt arrives, the send's own.
#[test]
fn text_on_its_way_into_the_input_line_is_not_submitted_with_the_next_prompt() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "key_lag_ms": 1500 } });
    sb.spawn_playing(
        "kl",
        scenario,
        &["--provider", "claude", "--env", &sb.record_env()],
    );
    // The killed sender's paste: in the pane, not drawn yet.
    let tmux = sandbox_tmux(&sb);
    tmux.paste("umbel-kl", "killed", b"half of a killed send")
        .expect("paste");
    round_trip(&sb, "kl", b"The real prompt");
    assert_eq!(sb.received(), [b"The real prompt".to_vec()]);
}
