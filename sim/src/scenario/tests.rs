//! Scenario parsing, validation and turn selection.

use super::*;

#[test]
fn an_empty_object_is_the_default_scenario() {
    let s = Scenario::parse("{}").unwrap();
    assert_eq!(s, Scenario::default());
    assert_eq!(s.seed, 1);
    assert_eq!(s.clock, "2026-12-02T19:52:00Z");
}

#[test]
fn the_full_shape_parses() {
    let s = Scenario::parse(
        r#"{"seed":7,"clock":"2026-01-01T00:00:00Z","startup":{"sign_in":true,"delay_ms":5},
            "turns":[{"match":"a","reply":"A","delay_ms":1,"chunk_ms":2,"late_transcript_ms":300,"end":"stop"},
                     {"end":"wedge"},{"end":{"crash":3}},{"end":{"signal":"KILL"}},
                     {"end":{"api_error":{"status":400,"message":"bad request"}}},
                     {"end":{"permission":{"tool":"Bash","input":{"command":"echo hi"}}}}],
            "default":{"reply":"D"}}"#,
    )
    .unwrap();
    assert_eq!(s.seed, 7);
    assert!(s.startup.sign_in);
    assert_eq!(s.turns[0].late_transcript_ms, Some(300));
    assert_eq!(s.turns[1].end, End::Wedge);
    assert_eq!(s.turns[2].end, End::Crash(3));
    assert_eq!(s.turns[3].end, End::Signal("KILL".into()));
    assert_eq!(
        s.turns[4].end,
        End::ApiError(ApiError {
            status: 400,
            message: "bad request".into()
        })
    );
    assert!(matches!(&s.turns[5].end, End::Permission(p) if p.tool == "Bash"));
    assert_eq!(s.default.unwrap().reply.as_deref(), Some("D"));
}

#[test]
fn unknown_fields_are_rejected_by_name() {
    for (json, field) in [
        (r#"{"sede":1}"#, "sede"),
        (r#"{"startup":{"signin":true}}"#, "signin"),
        (r#"{"turns":[{"reply":"x","dely_ms":3}]}"#, "dely_ms"),
        (r#"{"default":{"rply":"x"}}"#, "rply"),
        (
            r#"{"turns":[{"end":{"api_error":{"status":400,"msg":"x"}}}]}"#,
            "msg",
        ),
        (
            r#"{"turns":[{"end":{"permission":{"tool":"Bash","inputs":{}}}}]}"#,
            "inputs",
        ),
    ] {
        let err = Scenario::parse(json).unwrap_err();
        assert!(err.contains(&format!("`{field}`")), "{json}: {err}");
    }
}

#[test]
fn bad_values_are_rejected_with_their_location() {
    assert!(
        Scenario::parse(r#"{"turns":[{"end":"explode"}]}"#)
            .unwrap_err()
            .contains("explode")
    );
    assert!(
        Scenario::parse(r#"{"clock":"yesterday"}"#)
            .unwrap_err()
            .contains("yesterday")
    );
    let e = Scenario::parse(r#"{"turns":[{"end":{"crash":300}}]}"#).unwrap_err();
    assert!(e.contains("turns[0].end.crash"), "{e}");
    let e = Scenario::parse(r#"{"default":{"end":{"signal":"NOPE"}}}"#).unwrap_err();
    assert!(
        e.contains("default.end.signal") && e.contains("NOPE"),
        "{e}"
    );
}

#[test]
fn sign_in_and_question_ends_parse_and_an_empty_question_is_refused() {
    let s = Scenario::parse(
        r#"{"turns":[{"end":"sign_in"},{"end":{"question":{"text":"Which file?"}}}]}"#,
    )
    .unwrap();
    assert_eq!(s.turns[0].end, End::SignIn);
    assert_eq!(
        s.turns[1].end,
        End::Question(Question {
            text: "Which file?".into()
        })
    );
    let e = Scenario::parse(r#"{"turns":[{"end":{"question":{"text":" "}}}]}"#).unwrap_err();
    assert!(e.contains("turns[0].end.question.text"), "{e}");
    let e = Scenario::parse(r#"{"turns":[{"end":{"question":{"txt":"x"}}}]}"#).unwrap_err();
    assert!(e.contains("`txt`"), "{e}");
}

#[test]
fn load_reads_inline_json_or_a_file() {
    assert_eq!(Scenario::load(r#"  {"seed":3}"#).unwrap().seed, 3);
    let path = std::env::temp_dir().join(format!("sim-scenario-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"seed":4}"#).unwrap();
    assert_eq!(Scenario::load(path.to_str().unwrap()).unwrap().seed, 4);
    std::fs::remove_file(&path).unwrap();
    assert!(
        Scenario::load("/nonexistent/scenario.json")
            .unwrap_err()
            .contains("cannot read")
    );
}

#[test]
fn selection_uses_each_turn_once_then_default_then_builtin() {
    let s = Scenario::parse(
        r#"{"turns":[{"match":"deploy","reply":"D1"},{"reply":"any"},{"match":"deploy","reply":"D2"}]}"#,
    )
    .unwrap();
    let mut script = Script::new(s);
    assert_eq!(script.select("please deploy").reply, "D1");
    assert_eq!(script.select("please deploy").reply, "any");
    assert_eq!(script.select("hello").reply, "Response to: hello");
    assert_eq!(script.select("deploy again").reply, "D2");
    assert_eq!(
        script.select("line one\nline two").reply,
        "Response to: line one"
    );

    let mut with_default =
        Script::new(Scenario::parse(r#"{"default":{"reply":"fallback","delay_ms":9}}"#).unwrap());
    let c = with_default.select("x");
    assert_eq!((c.reply.as_str(), c.delay_ms), ("fallback", 9));
}

#[test]
fn a_turn_without_reply_answers_with_the_builtin_text() {
    let mut script = Script::new(Scenario::parse(r#"{"turns":[{"end":{"crash":2}}]}"#).unwrap());
    let c = script.select("Say hi\nmore");
    assert_eq!(c.reply, "Response to: Say hi");
    assert_eq!(c.end, End::Crash(2));
}

#[test]
fn chunks_split_on_words_only_when_chunk_ms_is_set() {
    let mut c = Chosen {
        reply: "Hello big  world".into(),
        thinking: None,
        delay_ms: 0,
        chunk_ms: 0,
        late_transcript_ms: None,
        end: End::Stop,
        dialog_after: None,
        then_self: None,
        writes: Default::default(),
    };
    assert_eq!(c.chunks(), vec!["Hello big  world"]);
    c.chunk_ms = 10;
    assert_eq!(c.chunks(), vec!["Hello ", "big  ", "world"]);
    assert_eq!(c.chunks().concat(), c.reply);
}
