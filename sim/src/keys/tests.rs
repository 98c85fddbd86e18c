//! Key parser tests: text, control keys, escapes, bracketed paste.

use super::*;

fn all(p: &mut KeyParser, chunks: &[&[u8]]) -> Vec<Key> {
    chunks.iter().flat_map(|c| p.feed(c)).collect()
}

#[test]
fn text_and_enter() {
    let mut p = KeyParser::new();
    assert_eq!(
        p.feed(b"hi there\r"),
        vec![Key::Text("hi there".into()), Key::Enter]
    );
    assert!(!p.pending());
}

#[test]
fn utf8_split_across_reads_is_joined() {
    let mut p = KeyParser::new();
    let bytes = "né❯🙂".as_bytes();
    let mut keys = Vec::new();
    for b in bytes {
        keys.extend(p.feed(&[*b]));
    }
    let text: String = keys
        .iter()
        .map(|k| if let Key::Text(t) = k { t.as_str() } else { "" })
        .collect();
    assert_eq!(text, "né❯🙂");
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    let mut p = KeyParser::new();
    assert_eq!(p.feed(b"a\xffb"), vec![Key::Text("a\u{fffd}b".into())]);
}

#[test]
fn control_keys() {
    use Key::*;
    let mut p = KeyParser::new();
    let want = vec![Backspace, Backspace, Tab, CtrlC, CtrlD, CtrlU, Newline];
    assert_eq!(p.feed(b"\x7f\x08\t\x03\x04\x15\n"), want);
}

#[test]
fn arrows_csi_and_ss3() {
    use Key::*;
    let mut p = KeyParser::new();
    let want = vec![Up, Down, Right, Left, Up, Down, ShiftTab, Delete];
    assert_eq!(
        p.feed(b"\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1bOB\x1b[Z\x1b[3~"),
        want
    );
}

#[test]
fn an_arrow_split_across_reads_is_still_an_arrow() {
    let mut p = KeyParser::new();
    assert_eq!(p.feed(b"\x1b"), vec![]);
    assert!(p.pending());
    assert_eq!(p.feed(b"["), vec![]);
    assert_eq!(p.feed(b"B"), vec![Key::Down]);
    assert!(!p.pending());
}

#[test]
fn a_lone_esc_is_reported_after_the_timeout_flush() {
    let mut p = KeyParser::new();
    assert_eq!(p.feed(b"\x1b"), vec![]);
    assert!(p.pending());
    assert_eq!(p.flush(), vec![Key::Esc]);
    assert!(!p.pending());
}

#[test]
fn esc_followed_by_text_is_esc_then_the_text() {
    let mut p = KeyParser::new();
    assert_eq!(p.feed(b"\x1bhi"), vec![Key::Esc, Key::Text("hi".into())]);
    assert_eq!(p.feed(b"\x1b\x1b"), vec![Key::Esc]);
    assert_eq!(p.flush(), vec![Key::Esc]);
}

#[test]
fn bracketed_paste_keeps_bytes_exactly() {
    let mut p = KeyParser::new();
    let keys = p.feed(b"a\x1b[200~line1\r\nline2\rline3\n\x1b[A\x7f\x1b[201~b");
    assert_eq!(
        keys,
        vec![
            Key::Text("a".into()),
            Key::Paste(b"line1\r\nline2\rline3\n\x1b[A\x7f".to_vec()),
            Key::Text("b".into())
        ]
    );
}

#[test]
fn bracketed_paste_split_across_reads_including_the_markers() {
    let mut p = KeyParser::new();
    let keys = all(
        &mut p,
        &[
            b"\x1b[20",
            b"0~hel",
            b"lo\n",
            b"wor",
            b"ld\x1b[2",
            b"01",
            b"~",
            b"\r",
        ],
    );
    assert_eq!(keys, vec![Key::Paste(b"hello\nworld".to_vec()), Key::Enter]);
    assert!(!p.in_paste() && !p.pending());
}

#[test]
fn paste_split_byte_by_byte() {
    let mut p = KeyParser::new();
    let input = b"\x1b[200~x\x1b[201~";
    let keys: Vec<Key> = input.iter().flat_map(|b| p.feed(&[*b])).collect();
    assert_eq!(keys, vec![Key::Paste(b"x".to_vec())]);
}

#[test]
fn flush_inside_a_paste_does_not_end_it() {
    let mut p = KeyParser::new();
    assert_eq!(p.feed(b"\x1b[200~abc"), vec![]);
    assert!(p.in_paste() && !p.pending());
    assert_eq!(p.flush(), vec![]);
    assert_eq!(p.feed(b"\x1b[201~"), vec![Key::Paste(b"abc".to_vec())]);
}
