//! Prompts arrive byte-exact: multi-line text, quotes, unicode, and 100 kB.

use crate::harness::*;

fn round_trip(sb: &Sandbox, name: &str, prompt: &[u8]) {
    let out = sb
        .umbel()
        .args(["send", name, "-"])
        .write_stdin(prompt.to_vec())
        .output()
        .unwrap();
    assert_success(&out, "send");
    assert_success(&sb.run(&["wait", name, "--timeout", "60s"]), "wait");
}

#[test]
fn multi_line_and_large_prompts_arrive_byte_exact() {
    let sb = Sandbox::new();
    sb.spawn("d1", &["--env", &sb.record_env()]);
    let multi =
        "line one\n  indented 'quoted' \"double\" $HOME `tick` ;\n\nünïcödé ✓ 日本\ttab\nlast"
            .as_bytes();
    let big: Vec<u8> = (0..100_000u32)
        .map(|i| {
            if i % 101 == 100 {
                b'\n'
            } else {
                b'a' + (i % 26) as u8
            }
        })
        .collect();
    round_trip(&sb, "d1", multi);
    round_trip(&sb, "d1", &big);
    let received = sb.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0], multi);
    assert_eq!(received[1].len(), big.len());
    assert!(received[1] == big, "100 kB prompt differs");
    // The prompt also reached the transcript through the CLI's own hook payload.
    let answer = json_of(&sb.run(&["read", "d1", "--json"]));
    assert!(
        answer["text"]
            .as_str()
            .unwrap()
            .starts_with("Response to: abcdef")
    );
}

#[test]
fn a_prompt_that_would_break_the_paste_is_refused() {
    let sb = Sandbox::new();
    sb.spawn("d2", &[]);
    let out = sb.run(&["send", "d2", "evil \u{1b}[201~ rest"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("201~"), "{}", stderr(&out));
}
