//! Screens against the 0.171.0 captures: whole 120x40 screens where the
//! capture has nothing the fake leaves out, the relevant lines otherwise
//! (the real footer carries a `⚠ N warnings` badge the fake does not draw).

use std::time::{Duration, Instant};

use super::*;
use crate::codex::hookcfg::EVENTS;
use crate::codex::render::Canvas;
use crate::codex::session::Session;
use crate::codex::testvt::emulate;
use crate::codex::turn::Stream;
use crate::codex::turn::Turn;
use crate::scenario::Scenario;

const CWD: &str = "/tmp/probework/proj";
const SIZE: (usize, usize) = (120, 40);

fn fixture(name: &str) -> Vec<String> {
    let path = format!(
        "{}/tests/data/codex-0.171.0-{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines().map(str::to_string).collect()
}

fn lines(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The screen the canvas leaves: history cells, then `live` at the bottom.
fn screen(history: &[Vec<String>], live: &[String]) -> Vec<String> {
    let mut c = Canvas::new();
    for cell in history {
        c.commit(cell, SIZE.0);
    }
    let mut rows = emulate(&c.frame(live, SIZE), SIZE, &mut Vec::new());
    while rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
    }
    rows
}

fn idle(model: &str, title: Option<&str>) -> Vec<String> {
    let mut live = composer("");
    live.push(String::new());
    live.push(status_line((model, "default"), CWD, title, 120));
    live.push(FOOTER.to_string());
    live
}

fn answer(text: &str) -> Vec<String> {
    let mut s = Stream::default();
    s.push(text);
    s.take_rest()
}

/// Equal except the last row, where the capture adds the warnings badge.
fn assert_screen_with_badge(got: &[String], want: &[String]) {
    assert_eq!(got.len(), want.len(), "rows: {got:#?}");
    let last = got.len() - 1;
    assert_eq!(got[..last], want[..last]);
    assert!(
        want[last].starts_with(&got[last]),
        "{:?} vs {:?}",
        got[last],
        want[last]
    );
}

#[test]
fn startup_dialogs_match_the_captures() {
    assert_eq!(
        trust_dialog(
            crate::codex::release::at(crate::codex::release::PINNED),
            CWD,
            0,
            120
        ),
        fixture("trust-dialog")
    );
    assert_eq!(hooks_review(12, 0), fixture("hooks-need-review"));
    assert_eq!(lines(LOGIN), fixture("startup-login"));
    let rows: Vec<HookRow> = EVENTS
        .iter()
        .map(|(e, d)| (e.to_string(), 1, 0, 1, d.to_string()))
        .collect();
    let got = screen(&[header(CWD)], &hooks_list(&rows, 12, 0, 0));
    assert_eq!(got, fixture("hooks-review-list"));
}

#[test]
fn the_composer_with_pastes_matches() {
    let status = status_line(("GPT-6.2-Sol", "default"), CWD, None, 120);
    let mut live = composer("first line\nsecond line\nthird line");
    live.extend([String::new(), status.clone(), String::new()]);
    assert_eq!(screen(&[header(CWD)], &live), fixture("paste-3-lines"));
    let label = paste_label(1, &"x".repeat(1160)).unwrap();
    let mut live = composer(&label);
    live.extend([String::new(), status, String::new()]);
    assert_eq!(screen(&[header(CWD)], &live), fixture("paste-30-lines"));
}

/// The history after the recorded first turn ("Say hello").
fn first_turn() -> Vec<Vec<String>> {
    vec![
        header(CWD),
        echo("Say hello"),
        answer("Hello from the fake OpenAI server. FINAL_ANSWER_TEXT"),
        worked(408, "19:56"),
    ]
}

#[test]
fn a_finished_turn_matches() {
    let got = screen(&first_turn(), &idle("gpt-fake-1", Some("Say hello")));
    assert_screen_with_badge(&got, &fixture("turn-complete"));
}

#[test]
fn a_finished_tool_turn_matches() {
    let cmd = "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-codex.txt; echo hello-from-tool";
    let mut history = first_turn();
    history.extend([
        echo("Please RUN_TOOL now"),
        ran(cmd, "hello-from-tool\n"),
        answer("The command printed hello-from-tool. FINAL_AFTER_TOOL"),
        worked(625, "19:56"),
    ]);
    let got = screen(&history, &idle("gpt-fake-1", Some("Say hello")));
    assert_screen_with_badge(&got, &fixture("turn-complete-after-tool"));
}

#[test]
fn the_busy_screen_matches() {
    let dir = std::env::temp_dir().join(format!("sim-codex-busy-{}", std::process::id()));
    let mut sess = Session::for_test(&dir, Scenario::default(), true);
    let now = Instant::now();
    let started = now.checked_sub(Duration::from_millis(3500)).unwrap_or(now);
    let turn = Turn::new(&mut sess, "Please SLOW down".into(), started, 120);
    let mut live = turn.live(now);
    live.extend(idle("gpt-fake-1", Some("Please SLOW down")));
    let got = screen(&[header(CWD), echo("Please SLOW down")], &live);
    assert_screen_with_badge(&got, &fixture("busy-working"));
    let history = [
        header(CWD),
        echo("Please SLOW down"),
        vec![String::new(), INTERRUPTED.to_string()],
    ];
    let got = screen(&history, &idle("gpt-fake-1", Some("Please SLOW down")));
    assert_screen_with_badge(&got, &fixture("after-esc-interrupt"));
}

#[test]
fn the_approval_prompt_and_decision_match() {
    let cmd = "touch /tmp/probework/escalated-marker; echo escalated";
    let want = fixture("approval-prompt-exec");
    let got = approval(cmd, Some("Probe: need to write outside the workspace"), 0);
    assert_eq!(got[1..], want[want.len() - (got.len() - 1)..]);
    let after = fixture("after-approval");
    let line = &decision(cmd, true, false)[1];
    assert!(after.contains(line), "{line}");
    let ran_lines = ran(cmd, "escalated\n");
    assert!(
        after.windows(2).any(|w| w == &ran_lines[1..]),
        "{ran_lines:?}"
    );
}

#[test]
fn error_lines_match() {
    let want = fixture("api-error-400");
    let got = error_cell(&api_error_body(400, "fake bad request for probing"), 120);
    assert_eq!(got[1..], want[32..34]);
    let want = fixture("usage-limit-error");
    let got = error_cell(&usage_limit_text("8:57 PM"), 120);
    assert_eq!(got[1..], want[32..34]);
}

#[test]
fn quit_and_version_match() {
    let want = fixture("after-quit-no-daemon");
    let got = quit_lines(
        "01a2385e-be6a-7473-b07a-45cdb96bd831",
        Some("Please SLOW down"),
        true,
        (0, 0),
    );
    assert_eq!(got, want[2..]);
    let daemon = quit_lines("x", None, false, (1605, 85));
    assert_eq!(
        daemon[4],
        "Token usage so far: total=1,690 input=1,605 output=85"
    );
    assert_eq!(
        fixture("version").last().map(String::as_str),
        Some(
            crate::codex::release::version_line(crate::codex::release::at(
                crate::codex::release::PINNED
            ))
            .as_str()
        )
    );
}

#[test]
fn the_paste_rule_counts_characters() {
    assert_eq!(paste_label(1, &"x".repeat(1000)), None);
    assert_eq!(
        paste_label(1, &"x".repeat(1001)).as_deref(),
        Some("[Pasted Content 1001 chars]")
    );
    assert_eq!(
        paste_label(3, &"é".repeat(1001)).as_deref(),
        Some("[Pasted Content 1001 chars]"),
        "characters, not bytes"
    );
    assert_eq!(
        paste_label(1, &"ab\n".repeat(30)),
        None,
        "lines do not matter"
    );
}

#[test]
fn small_formats() {
    assert_eq!(elapsed(3), "3s");
    assert_eq!(elapsed(65), "1m 05s");
    assert_eq!(elapsed(3723), "1h 02m 03s");
    assert_eq!(worked(999, "19:56")[1], "  Worked for <1s • 19:56");
    assert_eq!(worked(15_664, "19:57")[1], "  Worked for 15s • 19:57");
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(command_prefix("touch /x; echo y"), "touch /x");
    assert_eq!(wrap("aaa bbb ccc", 7, "  "), ["aaa bbb", "  ccc"]);
    assert_eq!(
        status_line(("m", "default"), "/p", Some("abcdef"), 21),
        "  m default · /p · a…"
    );
}

/// A recorded Shift+Tab screen of 0.171.0 (`tests/data/codex/`), rows trimmed.
fn mode_screen(mode: &str) -> Vec<String> {
    let rows = crate::fixtures::repo_screen(&format!("codex/codex-0.171.0-mode-{mode}.txt"));
    rows.iter().map(|r| r.trim_end().to_string()).collect()
}

/// The recording's `⚠ 4 warnings · f2 to view` badge, which the fake does not draw.
const BADGE: &str = "⚠ 4 warnings · f2 to view";

/// A recorded footer without its badge, the rest of its right side kept where 0.171.0 puts it
/// (one column short of the width).
fn without_badge(row: &str) -> String {
    let (left, right) = row.split_once("   ").expect("a footer with a right side");
    let right = right.trim_start();
    match right.strip_suffix(BADGE) {
        Some("") => left.to_string(),
        Some(rest) => crate::screen::spread(left, rest.trim_end_matches(" · "), 119),
        None => panic!("no badge in {row:?}"),
    }
}

#[test]
fn plan_mode_is_the_recorded_screen() {
    let want = mode_screen("plan");
    let cwd = "/tmp/uOGNx2B/project";
    let mut live = composer("");
    live.push(String::new());
    live.push(status_line(("gpt-fake", effort(true)), cwd, None, 120));
    live.push(footer(true, true, 120));
    let got = screen(&[header(cwd), plan_notice("gpt-fake")], &live);
    let last = want.len() - 1;
    assert_eq!(got[..last], want[..last]);
    assert_eq!(got[last], without_badge(&want[last]));
    assert_eq!(
        got[last],
        format!("{FOOTER}{}{PLAN_MODE}", " ".repeat(119 - 32 - 30))
    );
}

#[test]
fn the_default_mode_footer_and_status_line_are_the_recorded_ones() {
    let want = mode_screen("default");
    let cwd = "/tmp/uOGNx2B/project";
    let status = status_line(("gpt-fake", effort(false)), cwd, None, 120);
    assert_eq!(status, want[want.len() - 2]);
    assert_eq!(
        footer(false, true, 120),
        without_badge(&want[want.len() - 1])
    );
    assert_eq!(footer(false, false, 120), "");
}
