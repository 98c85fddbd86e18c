//! The composer, header and message lines against the 0.61.0 captures (120 columns).

use super::*;
use crate::gemini::cli::ApprovalMode;

pub(crate) fn fixture(name: &str) -> Vec<String> {
    crate::fixtures::screen(&format!("gemini-0.61.0-{name}.txt"))
}

const CWD: &str = "/tmp/probework/proj";

fn idle(input: &str, pasted: bool, status: &str) -> Vec<String> {
    let right = if input.is_empty() { SHORTCUTS } else { "" };
    composer(
        120,
        &Composer {
            status: status.to_string(),
            right: right.to_string(),
            input,
            pasted,
            mode: ApprovalMode::Default,
            true_color: false,
            cwd: CWD,
            model: "Auto",
            pasting: None,
            qwen: false,
        },
    )
}

#[test]
fn the_idle_screen_matches_the_capture() {
    let f = fixture("idle-prompt");
    let mut lines = header(super::super::release::PINNED, Some("gemini-api-key"));
    lines.extend(notices(120, false, false));
    lines.extend(idle("", false, ""));
    assert_eq!(lines, f);
}

#[test]
fn the_busy_screen_matches_the_capture() {
    let f = fixture("busy-thinking");
    let mut lines = header(super::super::release::PINNED, Some("gemini-api-key"));
    lines.extend(echo("first line\nsecond line\nthird line"));
    lines.push(String::new());
    lines.extend(idle("", false, &busy(7)));
    let glyph = |l: &String| {
        l.chars()
            .map(|c| if SPINNER.contains(&c) { '⠇' } else { c })
            .collect::<String>()
    };
    let lines: Vec<String> = lines.iter().map(glyph).collect();
    assert_eq!(lines, f);
    assert!(busy(0).starts_with(" ⠋ Thinking... (esc to cancel, 0s)"));
}

#[test]
fn pastes_match_the_captures() {
    let mut lines = header(super::super::release::PINNED, Some("gemini-api-key"));
    lines.extend(idle("first line\nsecond line\nthird line", false, ""));
    assert_eq!(lines, fixture("paste-3-lines"));
    let mut lines = header(super::super::release::PINNED, Some("gemini-api-key"));
    lines.extend(idle("[Pasted Text: 30 lines]", true, ""));
    assert_eq!(lines, fixture("paste-30-lines"));
}

#[test]
fn a_finished_turn_matches_the_capture() {
    let mut lines = header(super::super::release::PINNED, Some("gemini-api-key"));
    lines.extend(echo("Say hello"));
    lines.extend(answer(
        "Hello from the fake Gemini server. FINAL_ANSWER_TEXT",
    ));
    lines.extend(idle("", false, ""));
    assert_eq!(lines, fixture("turn-complete"));
}

#[test]
fn error_and_cancel_lines_match_the_capture() {
    let f = fixture("after-esc-cancel");
    let raw = r#"{"error":{"code":400,"message":"fake bad request for probing","status":"INVALID_ARGUMENT"}}"#;
    let mut lines = echo("Please BADREQ now");
    lines.extend(api_error(120, raw));
    lines.extend(info(120, REQUEST_FAILED));
    lines.extend(echo("Please RATE429 now"));
    lines.extend(info(120, CANCELLED));
    lines.extend(idle("", false, ""));
    assert_eq!(lines[..], f[f.len() - lines.len()..]);
}

#[test]
fn the_trust_screen_header_and_notices_match() {
    let f = fixture("startup-trust-dialog");
    let mut lines = header(super::super::release::PINNED, None);
    lines.extend(notices(120, true, false));
    lines.push(String::new());
    assert_eq!(lines[..], f[..lines.len()]);
}

#[test]
fn paste_labels_follow_the_text_buffer_rule() {
    let lines = |n: usize| vec!["x"; n].join("\n");
    assert_eq!(paste_label(&[], &lines(5)), None);
    assert_eq!(
        paste_label(&[], &lines(6)).unwrap(),
        "[Pasted Text: 6 lines]"
    );
    assert_eq!(
        paste_label(&[], &lines(30)).unwrap(),
        "[Pasted Text: 30 lines]"
    );
    assert_eq!(paste_label(&[], &"a".repeat(500)), None);
    assert_eq!(
        paste_label(&[], &"a".repeat(501)).unwrap(),
        "[Pasted Text: 501 chars]"
    );
    assert_eq!(
        paste_label(&[], &"ü".repeat(501)).unwrap(),
        "[Pasted Text: 501 chars]"
    );
    assert_eq!(
        paste_label(&[], "a\r\nb\rc\nd\ne\nf").unwrap(),
        "[Pasted Text: 6 lines]"
    );
    let one = "[Pasted Text: 6 lines]";
    let two = "[Pasted Text: 6 lines #2]";
    assert_eq!(paste_label(&[one], &lines(6)).unwrap(), two);
    assert_eq!(
        paste_label(&[one, two], &lines(6)).unwrap(),
        "[Pasted Text: 6 lines #3]"
    );
    assert_eq!(
        paste_label(&[one], &lines(7)).unwrap(),
        "[Pasted Text: 7 lines]"
    );
}

#[test]
fn paste_placeholders_number_duplicates_in_the_input() {
    let mut b = crate::input::InputBuffer::new();
    let big = vec!["l"; 30].join("\n");
    b.paste_with(big.as_bytes(), paste_label);
    b.paste_with(big.as_bytes(), paste_label);
    b.paste_with(b"small", paste_label);
    assert_eq!(
        b.display(),
        "[Pasted Text: 30 lines][Pasted Text: 30 lines #2]small"
    );
    assert_eq!(b.take(), format!("{big}{big}small"));
    b.paste_with(big.as_bytes(), paste_label);
    assert_eq!(
        b.display(),
        "[Pasted Text: 30 lines]",
        "a new prompt starts over"
    );
}

#[test]
fn wrap_truncate_footer_and_cwd() {
    assert_eq!(wrap("aa bb cc", 5, "", ""), vec!["aa bb", "cc"]);
    assert_eq!(
        wrap("abcdefgh", 3, "> ", "  "),
        vec!["> a", "  b", "  c", "  d", "  e", "  f", "  g", "  h"]
    );
    assert_eq!(truncate("abcdef", 4), "abc…");
    assert_eq!(truncate("abc", 4), "abc");
    assert_eq!(display_cwd("/home/u/p", Some("/home/u")), "~/p");
    assert_eq!(display_cwd("/home/up", Some("/home/u")), "/home/up");
    assert_eq!(display_cwd("/tmp/x", None), "/tmp/x");
    let f = footer(80, "/w", "gemini-x");
    assert!(f[1].ends_with("gemini-x") && f[1].len() == 79, "{f:?}");
}

/// The frame from the rule down to the footer, trailing blanks trimmed (the captures come from
/// other folders and terminals, so the lines around it differ).
fn frame_of(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .rposition(|l| l.starts_with('─'))
        .expect("a rule");
    let end = lines
        .iter()
        .rposition(|l| l.starts_with(" workspace"))
        .expect("a footer");
    lines[start..end]
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// What the idle composer shows in `mode` (gemini's, without 24-bit colour).
fn idle_in(mode: ApprovalMode) -> Composer<'static> {
    Composer {
        status: String::new(),
        right: SHORTCUTS.to_string(),
        input: "",
        pasted: false,
        mode,
        true_color: false,
        cwd: CWD,
        model: "Auto",
        pasting: None,
        qwen: false,
    }
}

/// The idle composer in `mode` (`qwen`: fake-qwen's).
fn in_mode(mode: ApprovalMode, true_color: bool, qwen: bool) -> Vec<String> {
    let mut c = idle_in(mode);
    (c.true_color, c.qwen) = (true_color, qwen);
    composer(120, &c)
}

#[test]
fn every_mode_and_colour_depth_draws_the_recorded_frame() {
    for (capture, mode, true_color) in [
        ("idle-yolo", ApprovalMode::Yolo, false),
        ("idle-truecolor-yolo", ApprovalMode::Yolo, true),
        ("idle-auto_edit", ApprovalMode::AutoEdit, false),
        ("idle-truecolor-auto_edit", ApprovalMode::AutoEdit, true),
        ("idle-prompt", ApprovalMode::Default, false),
    ] {
        let drawn = in_mode(mode, true_color, false);
        assert_eq!(frame_of(&drawn), frame_of(&fixture(capture)), "{capture}");
    }
}

#[test]
fn shift_tab_goes_round_the_recorded_modes() {
    let mut mode = ApprovalMode::Default;
    for name in ["default", "auto_edit", "plan"] {
        let path = format!("gemini/gemini-0.61.0-mode-{name}.txt");
        let recorded = crate::fixtures::repo_screen(&path);
        let drawn = in_mode(mode, false, false);
        assert_eq!(frame_of(&drawn), frame_of(&recorded), "{name}");
        mode = next_mode(mode);
    }
    assert_eq!(mode, ApprovalMode::Default, "three presses go round");
    assert_eq!(next_mode(ApprovalMode::Yolo), ApprovalMode::Default);
}

#[test]
fn qwen_names_its_mode_on_the_last_line_as_recorded() {
    use ApprovalMode::*;
    let modes = [
        ("default", Default),
        ("auto-edit", AutoEdit),
        ("auto", Auto),
        ("yolo", Yolo),
        ("plan", Plan),
    ];
    for (name, mode) in modes {
        let recorded = crate::fixtures::repo_screen(&format!("qwen/qwen-0.24.4-mode-{name}.txt"));
        let drawn = in_mode(mode, false, true);
        assert_eq!(drawn.last(), recorded.last(), "{name}");
        let rule = drawn.iter().position(|l| l.starts_with('─')).unwrap();
        assert_eq!(
            drawn[rule + 1],
            "",
            "{name}: no gemini mode line under the rule"
        );
    }
    let mut want = in_mode(Default, false, true);
    want.pop();
    want.push(pasting_line(12 * 1024));
    let mut c = idle_in(Default);
    (c.qwen, c.pasting) = (true, Some(12 * 1024));
    assert_eq!(composer(120, &c), want, "Pasting… takes the mode's line");
}

#[test]
fn qwen_labels_a_paste_over_1000_characters_or_10_lines() {
    let lines = |n: usize| vec!["x"; n].join("\n");
    assert_eq!(qwen_paste_label(&[], &lines(10)), None);
    assert_eq!(
        qwen_paste_label(&[], &lines(11)).unwrap(),
        "[Pasted Content 21 chars]"
    );
    assert_eq!(qwen_paste_label(&[], &"a".repeat(1000)), None);
    let one = "[Pasted Content 1001 chars]";
    assert_eq!(qwen_paste_label(&[], &"a".repeat(1001)).unwrap(), one);
    assert_eq!(
        qwen_paste_label(&[one], &"b".repeat(1001)).unwrap(),
        "[Pasted Content 1001 chars] #2"
    );
    assert_eq!(pasting_line(12 * 1024 + 100), "  Pasting… 12 KB");
    assert_eq!(pasting_line(300), "  Pasting… 300 B");
}
