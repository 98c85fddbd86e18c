//! The basic cycle on the older releases the fakes play (`UMBEL_SIM_VERSION`, recorded in
//! `tests/data/<cli>/<version>/`): spawn in a folder the CLI does not trust yet (its trust
//! dialog answered), two turns sent, waited for and read, kill; and `-p`. One module per
//! release: `releases::<cli>_<version>::{cycle, print}`.

use crate::harness::*;
use serde_json::json;

/// Spawn (answering the trust dialog), two turns read back, kill leaving no process.
fn cycle(provider: &str, version: &str) {
    let mut sb = Sandbox::untrusted();
    sb.var("UMBEL_SIM_VERSION", version);
    // umbel trusts codex's and gemini's folder in their private config: the scenario makes
    // them ask anyway, as a user's own config can.
    let scenario = sb.scenario(
        "w",
        json!({ "startup": { "trust_dialog": true },
                "turns": [{ "match": "first", "reply": "One." }, { "match": "second", "reply": "Two." }] }),
    );
    let args = [
        "--provider",
        provider,
        "--env",
        &scenario,
        "--env",
        "UMBEL_SIM_VERSION",
    ];
    sb.spawn("w", &args);
    let screen = sb.umbel(["capture", "w"]).success().stdout();
    assert!(
        screen.contains(&format!("v{version}")),
        "the worker plays {provider} {version}:\n{screen}"
    );
    for (prompt, answer) in [
        ("the first question", "One.\n"),
        ("the second question", "Two.\n"),
    ] {
        sb.turn_outcome("w", prompt, 0);
        assert_eq!(sb.umbel(["read", "w"]).success().stdout(), answer);
    }
    sb.umbel(["kill", "w", "--purge"]).success();
    assert_no_process_left(&sb.root, "kill");
}

/// `umbel -p` in a folder the CLI does not trust yet.
fn print(provider: &str, version: &str) {
    let mut sb = Sandbox::untrusted();
    sb.var("UMBEL_SIM_VERSION", version);
    let scenario = sb.scenario(
        "p",
        json!({ "startup": { "trust_dialog": true }, "default": { "reply": "Printed." } }),
    );
    sb.umbel([
        "-p",
        "Say hello",
        "--provider",
        provider,
        "--env",
        &scenario,
        "--env",
        "UMBEL_SIM_VERSION",
    ])
    .stdout("Printed.\n")
    .success();
    assert!(sb.worker_dirs().is_empty());
}

/// A worker playing codex 0.149.0, which runs no `Interrupt` hook (an aborted turn leaves only
/// the rollout's `turn_aborted`), on a long streamed answer, then a short one.
fn codex_0_149_0_worker() -> Sandbox {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_SIM_VERSION", "0.149.0");
    let words = "word ".repeat(120);
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [
            { "match": "long task", "reply": words.trim_end(), "chunk_ms": 500 },
            { "match": "next one", "reply": "short answer" }
        ] }),
    );
    let args = [
        "--provider",
        "codex",
        "--env",
        &scenario,
        "--env",
        "UMBEL_SIM_VERSION",
    ];
    sb.spawn("esc", &args);
    sb
}

/// Esc once text streams ends the wait with 122 `interrupted` without the `Interrupt` hook.
#[test]
fn codex_0_149_0_esc_mid_turn_is_provider_error_interrupted() {
    let sb = codex_0_149_0_worker();
    let wait = sb
        .turn("esc", "long task")
        .args(["--json", "--timeout", "60s"])
        .start();
    sb.until_screen("esc", "word word");
    sandbox_tmux(&sb)
        .send_keys("umbel-esc", &["Escape"])
        .expect("press Esc");
    let out = wait.status(122);
    assert_eq!(out.json()["reason"], "interrupted");
}

/// `umbel interrupt` reports the turn interrupted without the `Interrupt` hook, and the next
/// prompt is answered.
#[test]
fn codex_0_149_0_interrupt_ends_the_turn_and_the_next_send_works() {
    let sb = codex_0_149_0_worker();
    sb.umbel(["send", "esc", "long task"]).success();
    sb.until_screen("esc", "word word");
    let done = sb.umbel(["interrupt", "esc", "--json"]).success().json();
    assert_eq!(done["outcome"]["reason"], "interrupted", "{done}");
    sb.turn("esc", "next one")
        .args(["--timeout", "30s"])
        .success();
    assert_eq!(
        sb.umbel(["read", "esc"]).success().stdout(),
        "short answer\n"
    );
}

/// `mod <name> { cycle, print }` for each `(<name>, <provider>, <version>)`.
macro_rules! each_release {
    ($(($name:ident, $provider:literal, $version:literal)),* $(,)?) => {
        $( mod $name {
            #[test] fn cycle() { super::cycle($provider, $version) }
            #[test] fn print() { super::print($provider, $version) }
        } )*
    };
}

each_release!(
    (claude_2_1_246, "claude", "2.1.246"),
    (claude_2_1_290, "claude", "2.1.290"),
    (codex_0_149_0, "codex", "0.149.0"),
    (codex_0_155_1, "codex", "0.155.1"),
    (codex_0_161_0, "codex", "0.161.0"),
    (gemini_0_55_1, "gemini", "0.55.1"),
    (gemini_0_58_0, "gemini", "0.58.0"),
);

/// codex from 0.156.0 holds a prompt submitted while its session is configured ("Waiting for
/// startup") and submits it once it is: a cold `-p` types its prompt as soon as the input line
/// shows instead of waiting for the ready screen, with one Enter. 0.155.1 lost that Enter: `-p`
/// waits for its ready screen first, as the supervisor verbs always do.
#[test]
fn print_types_while_codex_configures_its_session_where_codex_holds_the_prompt() {
    for (version, holds) in [("0.171.0", true), ("0.156.0", true), ("0.155.1", false)] {
        let mut sb = Sandbox::new();
        sb.var("UMBEL_SIM_VERSION", version);
        let scenario = sb.scenario("p", json!({ "startup": { "configure_ms": 1500 } }));
        let record = sb.record_env();
        let args = [
            "--env",
            &scenario,
            "--env",
            "UMBEL_SIM_VERSION",
            "--env",
            &record,
        ];
        sb.umbel([&["-p", "Say hello", "--provider", "codex"][..], &args].concat())
            .stdout("Response to: Say hello\n")
            .success();
        let held = sb.record.join("held.txt");
        assert_eq!(held.exists(), holds, "{version}");
        let sends = umbel::adapters::send_tally::read(&sb.state);
        assert_eq!(sends.len(), 1, "{version}: {sends:?}");
        assert_eq!(sends[0].enters, 1, "{version}: {sends:?}");
        // The supervisor's spawn is ready only once the session is: nothing is held.
        std::fs::remove_file(&held).ok();
        sb.spawn("w", &[&["--provider", "codex"][..], &args].concat());
        sb.turn_outcome("w", "hi", 0);
        assert!(!held.exists(), "{version}");
    }
}

/// claude 2.1.246 can write a fork's first answer above the history the fork copies (the fake
/// does so every time on that release): `read --all` of the fork still gives the parent's turn,
/// then the fork's own.
#[test]
fn a_claude_2_1_246_fork_lists_its_turns_in_order() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_SIM_VERSION", "2.1.246");
    let scenario = sb.scenario(
        "f",
        json!({ "turns": [
            { "match": "alpha", "reply": "First." },
            { "match": "bravo", "reply": "Fork's." }
        ] }),
    );
    let env = ["--env", &scenario, "--env", "UMBEL_SIM_VERSION"];
    sb.spawn("par", &[&["--provider", "claude"][..], &env].concat());
    sb.turn_outcome("par", "alpha question", 0);
    sb.spawn("fk", &[&["--fork-from", "par"][..], &env].concat());
    sb.turn_outcome("fk", "bravo question", 0);
    let status = sb.umbel(["status", "fk", "--json"]).success().json();
    let transcript = status["transcriptPath"].as_str().expect("transcriptPath");
    let text = std::fs::read_to_string(transcript).expect("the fork's transcript");
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {text}"))
    };
    assert!(
        at("Fork's.") < at("alpha question"),
        "the release's order: {text}"
    );
    let all = sb.umbel(["read", "fk", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Fork's."], "{all}");
}
