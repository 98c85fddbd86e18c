//! The scenarios every tier runs: the same functions on the fake CLIs (`just test`) and on the real
//! claude, codex and gemini talking to `fake-model` (`just smoke-offline`, tests named
//! `tiers::real::<provider>::<scenario>`, ignored unless asked for). One scenario, one source: where
//! the fakes and the real CLIs disagree on anything umbel reads, the fake is wrong.

use crate::harness::*;
use serde_json::{Value, json};

/// `fakes::<provider>::<scenario>` and the ignored `real::<provider>::<scenario>` (run by `just
/// smoke-offline`) for each provider listed, each scenario a `fn(provider, tier)`:
/// `tiered!([claude, codex]; { first, second });`.
macro_rules! tiered {
    ([$($provider:ident),*]; $tests:tt) => {
        mod fakes { $( tiered!(@one Fake $provider; $tests); )* }
        mod real { $( tiered!(@one Real $provider; $tests); )* }
    };
    (@one Fake $provider:ident; { $($test:ident),* $(,)? }) => {
        mod $provider {
            $( #[test] fn $test() { super::super::$test(stringify!($provider), super::super::Tier::Fake) } )*
        }
    };
    (@one Real $provider:ident; { $($test:ident),* $(,)? }) => {
        mod $provider {
            $( #[test] #[ignore = "real CLIs: just smoke-offline"]
               fn $test() { super::super::$test(stringify!($provider), super::super::Tier::Real) } )*
        }
    };
}

mod acp;
mod approvals;
mod budgets;
mod models;
mod modes;
mod questions;

/// Which CLIs a scenario drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The sim crate's fakes.
    Fake,
    /// The pinned real CLIs against `fake-model`.
    Real,
}

/// A sandbox of the tier, with the project not yet trusted (umbel answers the trust dialog).
fn world(tier: Tier) -> Sandbox {
    match tier {
        Tier::Fake => Sandbox::untrusted(),
        Tier::Real => crate::real::sandbox(),
    }
}

/// A [`world`] where claude asks before a tool: its default auto mode lets its classifier
/// allow it, manual mode (the user's settings) asks. The other CLIs ask by default.
fn world_asking_first(tier: Tier) -> Sandbox {
    let sb = world(tier);
    std::fs::create_dir_all(sb.home.join(".claude")).expect("mkdir");
    sb.write(
        sb.home.join(".claude/settings.json"),
        r#"{"permissions":{"defaultMode":"manual"}}"#,
    );
    sb
}

/// Generates `tiers::fakes::<provider>::<scenario>` and the ignored
/// `tiers::real::<provider>::<scenario>` for each scenario `fn(provider, tier)`.
/// Scenarios after `codex:` (`gemini:`) are about that CLI alone (its own config files) and run
/// only for it. The first list runs on all five CLIs, fakes and real ones alike.
macro_rules! each_tier {
    ($($test:ident),* $(,)?; codex: $($cx:ident),* $(,)?; gemini: $($gm:ident),* $(,)?;
     fleet: $($fl:ident),* $(,)?) => {
        mod fakes {
            mod fleet { $( #[test] fn $fl() { super::super::$fl(super::super::Tier::Fake) } )* }
            mod claude { $( #[test] fn $test() { super::super::$test("claude", super::super::Tier::Fake) } )* }
            mod codex {
                $( #[test] fn $test() { super::super::$test("codex", super::super::Tier::Fake) } )*
                $( #[test] fn $cx() { super::super::$cx(super::super::Tier::Fake) } )*
            }
            mod gemini {
                $( #[test] fn $test() { super::super::$test("gemini", super::super::Tier::Fake) } )*
                $( #[test] fn $gm() { super::super::$gm(super::super::Tier::Fake) } )*
            }
            mod qwen { $( #[test] fn $test() { super::super::$test("qwen", super::super::Tier::Fake) } )* }
            mod opencode { $( #[test] fn $test() { super::super::$test("opencode", super::super::Tier::Fake) } )* }
            mod copilot { $( #[test] fn $test() { super::super::$test("copilot", super::super::Tier::Fake) } )* }
        }
        mod real {
            mod fleet { $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $fl() { super::super::$fl(super::super::Tier::Real) } )* }
            mod claude { $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $test() { super::super::$test("claude", super::super::Tier::Real) } )* }
            mod codex {
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $test() { super::super::$test("codex", super::super::Tier::Real) } )*
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $cx() { super::super::$cx(super::super::Tier::Real) } )*
            }
            mod gemini {
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $test() { super::super::$test("gemini", super::super::Tier::Real) } )*
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $gm() { super::super::$gm(super::super::Tier::Real) } )*
            }
            mod qwen {
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $test() { super::super::$test("qwen", super::super::Tier::Real) } )*
            }
            mod opencode {
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $test() { super::super::$test("opencode", super::super::Tier::Real) } )*
            }
            mod copilot {
                $( #[test] #[ignore = "real CLIs: just smoke-offline"] fn $test() { super::super::$test("copilot", super::super::Tier::Real) } )*
            }
        }
    };
}

each_tier!(
    trust_two_turns_read_by_turn_and_kill_leaves_no_process,
    unattended_runs_the_tool_and_actions_lists_it,
    a_tool_needing_approval_is_input_126_with_the_pending_tool,
    an_api_error_is_provider_error_122,
    esc_mid_turn_is_provider_error_interrupted,
    esc_before_any_text_is_provider_error_interrupted,
    print_mode_text_and_json,
    print_mode_denies_a_tool_needing_approval_and_goes_on,
    passthrough_flags_start_the_cli_and_a_turn_runs,
    print_mode_joins_piped_stdin_as_the_real_print_mode,
    print_json_keys_include_the_real_print_modes,
    stream_json_event_types_follow_the_real_print_mode,
    text_left_on_the_input_line_is_cleared_not_glued_to_the_next_prompt,
    interrupt_ends_a_running_turn_and_the_next_send_works,
    a_pane_left_in_copy_mode_takes_the_prompt_once,
    three_queued_sends_to_a_busy_worker_are_three_turns_in_order,
    a_256_kib_prompt_arrives_whole_once,
    park_then_a_send_resumes_the_same_conversation,
    a_killed_tmux_server_then_resume_continues_the_conversation,
    fork_from_starts_with_a_copy_of_the_conversation_and_leaves_the_parent_alone,
    parked_again_before_a_turn_a_worker_still_resumes,
    five_concurrent_sends_to_a_parked_worker_resume_it_once_and_are_five_turns,
    send_json_carries_the_verdict,
    a_second_warm_print_answers_on_the_warm_worker;
    codex: a_hostile_codex_config_is_kept_and_the_worker_answers,
    resume_continues_a_codex_thread_run_outside_umbel;
    gemini: a_commented_gemini_settings_file_is_kept_and_the_worker_answers,
    esc_after_streamed_text_is_interrupted_and_read_has_no_answer;
    fleet: wait_any_over_one_worker_of_each_cli_returns_the_first_to_stop,
    the_compare_example_runs_two_worktrees_and_a_judge
);

/// `wait --any` over a claude, a codex and a gemini worker: the one whose turn ends first (its
/// answer comes without delay; the others' after seconds) is named, with `stop`; `--all` then
/// waits for the other two.
fn wait_any_over_one_worker_of_each_cli_returns_the_first_to_stop(tier: Tier) {
    let sb = world(tier);
    // Each turn is used once, and the real tier's three CLIs share one fake-model: one slow
    // turn for claude, one for gemini.
    let slow = json!({ "match": "slowly", "reply": "slow done", "delay_ms": 6000 });
    let scenario = json!({ "turns": [slow, slow, { "match": "quickly", "reply": "quick done" }] });
    for provider in ["claude", "codex", "gemini"] {
        sb.spawn_playing(provider, scenario.clone(), &["--provider", provider]);
    }
    let mut positions = Vec::new();
    for (provider, prompt) in [
        ("claude", "answer slowly"),
        ("codex", "answer quickly"),
        ("gemini", "answer slowly"),
    ] {
        let pos = sb.umbel(["send", provider, prompt]).success().line();
        positions.push(format!("{provider}@{pos}"));
    }
    let any = sb
        .umbel(
            [
                &["wait", "--any", "--timeout", "90s"],
                &positions.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ]
            .concat(),
        )
        .success();
    assert_eq!(any.stdout(), "codex stop\n");
    let all = sb
        .umbel(
            [
                &["wait", "--all", "--json", "--timeout", "90s"],
                &positions.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ]
            .concat(),
        )
        .success()
        .json();
    let ended: Vec<&str> = all["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|o| o["outcome"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(ended, ["stop", "stop", "stop"], "{all}");
    assert_eq!(read(&sb, &["gemini"]), "slow done\n");
}

/// `wait --since` the position `send` printed, as JSON.
fn turn(sb: &Sandbox, name: &str, prompt: &str) -> (Option<i32>, Value) {
    let sent = sb.umbel(["send", name, prompt]).success();
    let since = sent.line();
    let out = sb
        .umbel([
            "wait",
            name,
            "--since",
            &since,
            "--timeout",
            "90s",
            "--json",
        ])
        .run();
    (out.status.code(), out.json())
}

/// `send --json` says the prompt was submitted and which of the CLI's own hooks proved it.
fn send_json_carries_the_verdict(provider: &str, tier: Tier) {
    let sb = world(tier);
    sb.spawn_playing(
        "v",
        json!({ "turns": [{ "reply": "Proved." }] }),
        &["--provider", provider],
    );
    let sent = sb
        .umbel(["send", "v", "prove it", "--json"])
        .success()
        .json();
    let hook = match provider {
        "gemini" => "BeforeAgent",
        // The TUI makes its session as the first prompt is submitted (the plugin's hook).
        "opencode" => "SessionCreated",
        _ => "UserPromptSubmit",
    };
    assert_eq!(sent["submitted"], true, "{sent}");
    assert_eq!(sent["confirmedBy"], hook, "{sent}");
    assert!(
        (1..=4).contains(&sent["enters"].as_u64().unwrap_or(0)),
        "{sent}"
    );
    assert_eq!(sent["queuedMs"], 0, "{sent}");
    let since = sent["position"].to_string();
    sb.umbel(["wait", "v", "--since", &since, "--timeout", "90s"])
        .success();
    assert_eq!(read(&sb, &["v"]), "Proved.\n");
}

fn read(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.umbel([&["read"], args].concat()).success();
    out.stdout()
}

fn trust_two_turns_read_by_turn_and_kill_leaves_no_process(provider: &str, tier: Tier) {
    let sb = world(tier);
    sb.spawn_playing("w", // On the fakes a child that ignores SIGTERM and SIGHUP stays in the CLI's process group,
        // so "no process left" can fail here too (the real CLIs' model server ignores it).
        json!({ "startup": { "stubborn_child": true },
                "turns": [{ "match": "first", "reply": "One." }, { "match": "second", "reply": "Two.", "chunk_ms": 20 }] }), &["--provider", provider]);
    assert_eq!(turn(&sb, "w", "the first question").0, Some(0));
    assert_eq!(read(&sb, &["w"]), "One.\n");
    assert_eq!(turn(&sb, "w", "the second question").0, Some(0));
    assert_eq!(read(&sb, &["w"]), "Two.\n");
    assert_eq!(read(&sb, &["w", "--turn", "1"]), "One.\n");
    let all: Value = serde_json::from_str(&read(&sb, &["w", "--all", "--json"])).expect("json");
    let answers = answers_of(&all);
    assert_eq!(answers, ["One.", "Two."], "{all}");
    // status reads the screens of idle workers for dialogs no hook reports: an idle prompt with
    // two answers above it is no dialog.
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
    sb.umbel(["kill", "w", "--purge"]).success();
    assert_no_process_left(&sb.root, "kill");
}

fn unattended_runs_the_tool_and_actions_lists_it(provider: &str, tier: Tier) {
    let mut sb = world(tier);
    sb.var("COLORTERM", "truecolor");
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [{ "reply": "It printed hi.", "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi", "description": "Print hi" } } } }] }),
    );
    let args = [
        "--provider",
        provider,
        "--unattended",
        "--env",
        &scenario,
        "--env",
        "COLORTERM",
    ];
    sb.spawn("u", &args);
    let (code, outcome) = turn(&sb, "u", "run the tool");
    assert_eq!(code, Some(0), "{outcome}");
    assert_eq!(read(&sb, &["u"]), "It printed hi.\n");
    let actions = sb.umbel(["actions", "u", "--json"]).run().stdout();
    assert!(actions.contains("echo hi"), "{actions}");
}

fn a_tool_needing_approval_is_input_126_with_the_pending_tool(provider: &str, tier: Tier) {
    // The command writes a file: claude and gemini run a read-only `echo` without asking.
    let sb = world_asking_first(tier);
    sb.spawn_playing("p", json!({ "turns": [{ "reply": "It printed hi.", "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi > umbel-tool.txt", "description": "Write hi" } } } }] }), &["--provider", provider]);
    let (code, outcome) = turn(&sb, "p", "run the tool");
    assert_eq!(code, Some(126), "{outcome}");
    assert_eq!(outcome["reason"], "permission", "{outcome}");
    assert!(
        outcome["pendingTool"].to_string().contains("echo hi"),
        "{outcome}"
    );
    let status = sb.umbel(["status", "p", "--json"]).json();
    assert_eq!(status["state"], "needs-input", "{status}");
}

fn an_api_error_is_provider_error_122(provider: &str, tier: Tier) {
    let sb = world(tier);
    sb.spawn_playing("e", json!({ "turns": [{ "end": { "api_error": { "status": 400, "message": "scripted bad request" } } }] }), &["--provider", provider]);
    let (code, outcome) = turn(&sb, "e", "fail please");
    assert_eq!(code, Some(122), "{outcome}");
    assert_eq!(outcome["reason"], "api-error", "{outcome}");
}

fn esc_mid_turn_is_provider_error_interrupted(provider: &str, tier: Tier) {
    let sb = world(tier);
    // Esc once text streams: before any text the real claude puts the prompt back into its
    // input box and records nothing (no hook, no transcript line; docs/outcomes.md).
    let words = "word ".repeat(120);
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": words.trim_end(), "chunk_ms": 500 } }),
    );
    // The real gemini draws no text of a paragraph until it is whole (its screen shows only
    // "Thinking…" for the minute this answer streams), so the screen cannot say "text
    // streams" on every CLI: three seconds, as long as the 6-word head start needs.
    esc_after(&sb, provider, &scenario, || {
        std::thread::sleep(std::time::Duration::from_millis(3000))
    });
}

/// Esc while the model has not answered yet: codex and gemini record the interruption; claude
/// records nothing and puts the prompt back into its input box, which umbel reads off the screen.
fn esc_before_any_text_is_provider_error_interrupted(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "late", "delay_ms": 60000 } }),
    );
    // Nothing on the screen or in the records tells that the request is on its way (every
    // CLI draws its busy line at the submit): a pause, the one left in these tests.
    esc_after(&sb, provider, &scenario, || {
        std::thread::sleep(std::time::Duration::from_millis(2000))
    });
    let status = sb.umbel(["status", "esc", "--json"]).json();
    assert_eq!(status["state"], "ready", "{status}");
}

/// `umbel interrupt` on a turn streaming its answer: Esc in the pane, reported `interrupted`
/// (exit 0, with the outcome); the worker takes the next prompt; on an idle worker it presses
/// nothing and says so.
fn interrupt_ends_a_running_turn_and_the_next_send_works(provider: &str, tier: Tier) {
    let sb = world(tier);
    let words = "word ".repeat(120);
    let scenario = sb.scenario(
        "s",
        json!({
            "turns": [
                { "match": "long task", "reply": words.trim_end(), "chunk_ms": 500 },
                { "match": "next one", "reply": "short answer" }
            ]
        }),
    );
    sb.spawn("i", &["--provider", provider, "--env", &scenario]);
    sb.umbel(["send", "i", "long task"]).success();
    // As in `esc_mid_turn_…`: the real gemini's screen shows no text while it streams.
    std::thread::sleep(std::time::Duration::from_millis(3000));
    let done = sb.umbel(["interrupt", "i", "--json"]).success().json();
    assert_eq!(done["interrupted"], true, "{done}");
    assert_eq!(done["outcome"]["reason"], "interrupted", "{done}");
    // A notifier hears it, once, on every CLI (claude fires no hook for it).
    let heard = events_of(&sb, &["i"], "interrupted");
    assert_eq!(heard.len(), 1, "{heard:?}");
    let status = sb.umbel(["status", "i", "--json"]).json();
    assert_ne!(status["state"], "busy", "{status}");
    let (code, outcome) = turn(&sb, "i", "next one");
    assert_eq!(code, Some(0), "{outcome}");
    let answer = sb.umbel(["read", "i"]).success();
    assert!(
        answer.stdout().contains("short answer"),
        "{}",
        answer.stdout()
    );
    let idle = sb.umbel(["interrupt", "i", "--json"]).success().json();
    assert_eq!(idle["interrupted"], false, "{idle}");
    assert!(idle.get("outcome").is_none(), "{idle}");
}

/// gemini's `AfterAgent` after Esc carries the text streamed so far, like a finished turn's;
/// its chat says `Request cancelled.`: wait says 122 `interrupted`, and read gives no answer
/// (the partial text aside, in `partialText`).
fn esc_after_streamed_text_is_interrupted_and_read_has_no_answer(tier: Tier) {
    let sb = world(tier);
    let partial = "Thinking slowly... ";
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": partial, "end": "wedge" } }),
    );
    sb.spawn("esc", &["--provider", "gemini", "--env", &scenario]);
    let since = sb.umbel(["send", "esc", "long task"]).success().line();
    let minute = std::time::Duration::from_secs(60);
    await_screen(&sb, "esc", "the partial text", minute, |s| {
        s.contains("✦ Thinking slowly")
    });
    let tmux = sandbox_tmux(&sb);
    tmux.send_keys("umbel-esc", &["Escape"]).expect("press Esc");
    let out = sb
        .umbel([
            "wait",
            "esc",
            "--since",
            &since,
            "--timeout",
            "60s",
            "--json",
        ])
        .status(122);
    assert_eq!(out.json()["reason"], "interrupted", "{}", out.stdout());
    let answer = sb.umbel(["read", "esc", "--json"]).json();
    assert_eq!(answer["interrupted"], true, "{answer}");
    assert_eq!(answer["text"], "", "{answer}");
    assert_eq!(answer["partialText"], partial, "{answer}");
    sb.umbel(["read", "esc"])
        .stdout("")
        .stderr_has("interrupted")
        .success();
}

/// A person scrolled the worker's pane through `attach` and left it in copy mode: the prompt
/// still reaches the CLI once and its turn ends (copy mode would swallow every Enter).
fn a_pane_left_in_copy_mode_takes_the_prompt_once(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario("s", sim::reply("Scrolled back."));
    sb.spawn("cm", &["--provider", provider, "--env", &scenario]);
    let tmux = sandbox_tmux(&sb);
    let target = "=umbel-cm:".to_string();
    let in_mode = || {
        let args = ["display-message", "-p", "-t", &target, "#{pane_in_mode}"];
        let out = tmux
            .run(&args.map(String::from), None)
            .expect("display-message");
        String::from_utf8_lossy(&out).trim() == "1"
    };
    tmux.run(&["copy-mode".into(), "-t".into(), target.clone()], None)
        .expect("copy mode");
    assert!(in_mode(), "the pane is in copy mode");
    let (code, outcome) = turn(&sb, "cm", "after copy mode");
    assert_eq!(code, Some(0), "{outcome}");
    assert!(!in_mode(), "the send took the pane out of copy mode");
    assert_eq!(read(&sb, &["cm"]).trim(), "Scrolled back.");
    let turns = sb.umbel(["read", "cm", "--all", "--json"]).json();
    assert_eq!(turns.as_array().map(Vec::len), Some(1), "one turn: {turns}");
}

/// Spawns `esc` on `scenario`, sends a prompt, presses Esc once `ready` returns while a `wait`
/// runs, and checks that wait says 122 `interrupted`.
fn esc_after(sb: &Sandbox, provider: &str, scenario: &str, ready: impl FnOnce()) {
    sb.spawn("esc", &["--provider", provider, "--env", scenario]);
    let child = sb
        .turn("esc", "long task")
        .args(["--json", "--timeout", "60s"])
        .start();
    ready();
    // opencode interrupts on a second Esc within 5 s, copilot within half a second (the first
    // shows `esc again to interrupt`).
    let presses = if matches!(provider, "opencode" | "copilot") {
        2
    } else {
        1
    };
    for _ in 0..presses {
        sandbox_tmux(sb)
            .send_keys("umbel-esc", &["Escape"])
            .expect("press Esc");
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    let out = child.status(122);
    assert_eq!(out.json()["reason"], "interrupted");
}

fn print_mode_text_and_json(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario("s", sim::reply("The answer is 42."));
    let print = |extra: &[&str]| {
        let args = [
            "-p",
            "Say hello",
            "--provider",
            provider,
            "--env",
            &scenario,
        ];
        sb.umbel(args).args(extra)
    };
    print(&[]).stdout("The answer is 42.\n").success();
    print(&["--output-format", "json"])
        .stdout_has("The answer is 42.")
        .success();
    assert!(sb.worker_dirs().is_empty(), "-p leaves no worker");
}

/// Two `umbel -p --warm`: the second runs on the worker the first left (its CLI session id is
/// the one `ls` listed for the warm worker) and answers as a cold `-p` does.
fn a_second_warm_print_answers_on_the_warm_worker(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario("s", sim::reply("The answer is 42."));
    let print = || {
        let args = [
            "-p",
            "Say hello",
            "--warm",
            "-o",
            "json",
            "--provider",
            provider,
        ];
        let out = sb.umbel(args).args(["--env", &scenario]).success();
        assert!(
            out.stdout().contains("The answer is 42."),
            "{}",
            out.stdout()
        );
        crate::warm::session_of(&out.stdout())
    };
    let first = print();
    let warm = crate::warm::warm_worker(&sb, None);
    let warm_session = warm["sessionId"].as_str().expect("session id").to_string();
    assert_ne!(first, warm_session);
    let second = print();
    if provider == "opencode" {
        // opencode makes its session at the first prompt: a warm worker has none yet to
        // compare (its `sessionId` is umbel's own until then).
        assert_ne!(second, first);
    } else {
        assert_eq!(
            second, warm_session,
            "the second -p did not run on the warm worker"
        );
    }
    crate::warm::warm_worker(&sb, Some(&warm_session));
    sb.cmd("kill --all --purge").success();
}

/// `printf 'x\ny\n' | umbel -p "Count the lines"` sends what the real print mode sends: the
/// model answers `JOINED` only to that exact message (its rule per CLI: src/core/print/stdin.rs).
fn print_mode_joins_piped_stdin_as_the_real_print_mode(provider: &str, tier: Tier) {
    let sb = world(tier);
    let joined = match provider {
        "claude" => "Count the lines\nx\ny",
        "codex" => "Count the lines\n\n<stdin>\nx\ny\n</stdin>",
        "opencode" => "\"Count the lines\"\nx\ny\n",
        // `copilot -p PROMPT` reads no stdin.
        "copilot" => "Count the lines",
        _ => "x\ny\n\n\nCount the lines",
    };
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [{ "match": joined, "reply": "JOINED" }], "default": { "reply": "APART" } }),
    );
    if tier == Tier::Real {
        let out = crate::real::print_mode(&sb, provider, &[], "Count the lines", "x\ny\n");
        assert_success(&out, "the real print mode");
        assert_eq!(stdout(&out).trim(), "JOINED", "the real CLI's rule changed");
        sb.scenario("s", json!({ "turns": [{ "match": joined, "reply": "JOINED" }], "default": { "reply": "APART" } }));
    }
    sb.umbel([
        "-p",
        "Count the lines",
        "--provider",
        provider,
        "--env",
        &scenario,
    ])
    .stdin("x\ny\n")
    .stdout("JOINED\n")
    .success();
}

/// What a `send` killed between its paste and its Enter leaves on the input line, or what a
/// person typed through `attach`: the next `send` clears it (Ctrl-U deletes one line in each
/// real CLI, Backspace joins the line above) and the prompt goes alone.
fn text_left_on_the_input_line_is_cleared_not_glued_to_the_next_prompt(provider: &str, tier: Tier) {
    let sb = world(tier);
    sb.spawn("l1", &["--provider", provider]);
    let tmux = sandbox_tmux(&sb);
    tmux.paste(
        "umbel-l1",
        "leftover",
        b"half a prompt\nand its second line",
    )
    .expect("paste");
    let within = std::time::Duration::from_secs(20);
    await_screen(&sb, "l1", "the leftover", within, |s| {
        s.contains("second line")
    });
    let (code, _) = turn(&sb, "l1", "The real prompt");
    assert_eq!(code, Some(0));
    assert_eq!(read(&sb, &["l1"]), "Response to: The real prompt\n");
}

/// A user config.toml that appending text used to break (single-quoted keys, an inline
/// `projects` table, a commented header, CRLF, a BOM, a comment at the very end) and that turns
/// hooks off: the CLI accepts the worker's copy, its hooks run (send needs the submit hook), it
/// answers, and the copy keeps the user's comments and trusts the project.
fn a_hostile_codex_config_is_kept_and_the_worker_answers(tier: Tier) {
    let sb = world(tier);
    let user = sb.home.join(".codex/config.toml");
    let tables = std::fs::read_to_string(&user).unwrap_or_default();
    // Root keys first: the real tier's config ends in its `[model_providers.…]` table.
    let (root, tables) = match tables.find("\n[") {
        Some(at) => tables.split_at(at + 1),
        None => (tables.as_str(), ""),
    };
    let hostile = format!(
        "\u{feff}# mine\n'hide_agent_reasoning' = true # single-quoted\n{root}\
         projects = {{ '/elsewhere' = {{ trust_level = 'trusted' }} }} # inline\n\n\
         {tables}\n[tui] # my tui\nanimations = false\n\n[features]\nhooks = false # no hooks\n# the very end"
    );
    std::fs::create_dir_all(user.parent().expect("parent")).expect("mkdir");
    sb.write(&user, hostile.replace('\n', "\r\n"));
    let script = sim::matching(&[("hello", "Hi.")]);
    sb.spawn_playing("w", script, &["--provider", "codex"]);
    assert_eq!(turn(&sb, "w", "hello there").0, Some(0));
    assert_eq!(read(&sb, &["w"]), "Hi.\n");
    let copy = std::fs::read_to_string(sb.session_dir("w").join("codex-home/config.toml"))
        .expect("the worker's config.toml");
    for kept in [
        "# mine",
        "# single-quoted",
        "# inline",
        "# my tui",
        "# no hooks",
        "# the very end",
    ] {
        assert!(copy.contains(kept), "{kept:?} kept:\n{copy}");
    }
    let doc: toml_edit::DocumentMut = copy.parse().expect("the copy is TOML");
    let project = std::fs::canonicalize(&sb.project).expect("project");
    let project = project.to_string_lossy();
    assert_eq!(
        doc["projects"][project.as_ref()]["trust_level"].as_str(),
        Some("trusted")
    );
    assert_eq!(
        doc["projects"]["/elsewhere"]["trust_level"].as_str(),
        Some("trusted")
    );
    sb.umbel(["kill", "w", "--purge"]).success();
}

/// A user settings.json with comments (gemini reads it through strip-json-comments): the
/// worker's copy keeps the user's settings — here its model, which the real CLI then asks the
/// model server for — and the worker answers. Dropping the file (as umbel once did) loses them.
fn a_commented_gemini_settings_file_is_kept_and_the_worker_answers(tier: Tier) {
    let sb = world(tier);
    let user = sb.home.join(".gemini/settings.json");
    let mut settings: Value = std::fs::read_to_string(&user)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    settings["model"] = json!({ "name": "gemini-commented-model" });
    let body = serde_json::to_string_pretty(&settings).expect("json");
    let commented = format!("// mine\n/* the model I want: */\n{body}\n");
    std::fs::create_dir_all(user.parent().expect("parent")).expect("mkdir");
    sb.write(&user, commented);
    let script = sim::matching(&[("hello", "Hi.")]);
    sb.spawn_playing("w", script, &["--provider", "gemini"]);
    assert_eq!(turn(&sb, "w", "hello there").0, Some(0));
    assert_eq!(read(&sb, &["w"]), "Hi.\n");
    let copy = sb
        .session_dir("w")
        .join("gemini-home/.gemini/settings.json");
    let copy: Value = serde_json::from_str(&std::fs::read_to_string(copy).expect("the copy"))
        .expect("the worker's settings.json is JSON");
    assert_eq!(copy["model"]["name"], "gemini-commented-model", "{copy}");
    if tier == Tier::Real {
        let asked =
            std::fs::read_to_string(sb.root.join("model-requests.jsonl")).unwrap_or_default();
        assert!(
            asked.contains("gemini-commented-model"),
            "the CLI used another model"
        );
    }
    sb.umbel(["kill", "w", "--purge"]).success();
}

/// `umbel -p` refuses a tool that needs approval the way the provider's own print mode does and
/// finishes the turn (exit 0, the answer after the refusal); `--on-permission stop` keeps umbel's
/// stop-and-report (126). On the real tier the CLI's own print mode runs the same scenario.
fn print_mode_denies_a_tool_needing_approval_and_goes_on(provider: &str, tier: Tier) {
    let sb = world(tier);
    // claude's default auto mode lets its classifier allow the tool; in manual mode `claude -p`
    // refuses it.
    std::fs::create_dir_all(sb.home.join(".claude")).expect("mkdir");
    let settings = r#"{"permissions":{"defaultMode":"manual"}}"#;
    sb.write(sb.home.join(".claude/settings.json"), settings);
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "It printed hi.", "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi > umbel-tool.txt", "description": "Write hi" } } } } }),
    );
    // A new prompt each run: fake-model answers a repeated request as it did before.
    let print = |prompt: &str, extra: &[&str]| {
        let args = ["-p", prompt, "--provider", provider, "--env", &scenario];
        sb.umbel(args).args(extra)
    };
    print("run the tool", &[])
        .stdout("It printed hi.\n")
        .success();
    assert!(
        !sb.project.join("umbel-tool.txt").exists(),
        "the tool was refused"
    );
    if provider == "codex" {
        // `codex exec --json` shows no item for a command it refused; the stream, written while
        // the turn runs, must not show it started either.
        let out = print("run the tool, as JSON", &["--output-format", "json"]).success();
        let kinds: Vec<String> = crate::print_json::parse_documents(&out.stdout())
            .iter()
            .map(crate::print_json::kind)
            .filter(|k| k != "item.completed/error")
            .collect();
        assert_eq!(
            kinds,
            [
                "thread.started",
                "turn.started",
                "item.completed/agent_message",
                "turn.completed"
            ],
            "{}",
            out.stdout()
        );
    }
    print(
        "run it, stop",
        &["--on-permission", "stop", "--timeout", "60s"],
    )
    .status(126);
    print("refused", &["--unattended", "--on-permission", "deny"])
        .stderr_has("--unattended")
        .status(2);
    assert!(sb.worker_dirs().is_empty(), "-p leaves no worker");
    if tier == Tier::Real {
        let own: &[&str] = match provider {
            "claude" => &["-p", "run the tool, real"],
            "codex" => &["exec", "run the tool, real"],
            "qwen" => &["-p", "run the tool, real"],
            "opencode" => &["run", "run the tool, real"],
            "copilot" => &["-p", "run the tool, real"],
            _ => &["--skip-trust", "-p", "run the tool, real"],
        };
        let out = std::process::Command::new(provider)
            .args(own)
            .env_clear()
            .envs(sb.env())
            .current_dir(&sb.project)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the real print mode");
        assert_success(&out, "the real print mode");
        // `opencode run` rejects the ask and ends the turn there, with the text before the
        // tool; umbel's `-p` denies by rule, so the model hears the refusal and goes on, as
        // in the other print modes (docs/print-mode.md).
        let said = if provider == "opencode" {
            "I will run a command."
        } else {
            "It printed hi."
        };
        assert!(stdout(&out).contains(said), "{}", stdout(&out));
        assert!(
            !sb.project.join("umbel-tool.txt").exists(),
            "the real print mode refused it"
        );
    }
}

/// The flags each provider maps start its CLI (the real one validates them) and a turn runs; on
/// claude a second worker resumes the first one's session (forked under its own id).
fn passthrough_flags_start_the_cli_and_a_turn_runs(provider: &str, tier: Tier) {
    let sb = world(tier);
    let extra = sb.root.join("extra");
    std::fs::create_dir_all(&extra).expect("mkdir");
    let extra = extra.to_string_lossy().into_owned();
    let scenario = sb.scenario("s", sim::reply("Flags fine."));
    let mut args = vec!["--provider", provider, "--env", &scenario];
    if provider != "opencode" {
        args.extend(["--add-dir", &extra]);
    }
    args.extend_from_slice(match provider {
        "claude" => &[
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "Read",
            "--disallowedTools",
            "WebFetch",
            "--append-system-prompt",
            "Be brief.",
            "--max-turns",
            "5",
        ],
        "codex" => &["--append-system-prompt", "Be brief.\nAlways."],
        // The one flag opencode maps (its other settings live in its opencode.json).
        "opencode" => &["--model", "anthropic/claude-sonnet-4-5"],
        // copilot's model flag; the tool lists are umbel's rules on its permission hook.
        "copilot" => &[
            "--model",
            "gpt-fake",
            "--allowed-tools",
            "view",
            "--disallowed-tools",
            "web_fetch",
        ],
        // qwen spells the mode `auto-edit` (gemini `auto_edit`) and has claude's prompt flags.
        "qwen" => &[
            "--permission-mode",
            "auto-edit",
            "--allowed-tools",
            "read_file",
            "--disallowed-tools",
            "web_fetch",
            "--append-system-prompt",
            "Be brief.",
            "--max-turns",
            "5",
        ],
        _ => &[
            "--permission-mode",
            "auto_edit",
            "--allowed-tools",
            "read_file",
            "--disallowed-tools",
            "web_fetch",
        ],
    });
    sb.spawn("fl", &args);
    let (code, outcome) = turn(&sb, "fl", "are the flags fine?");
    assert_eq!(code, Some(0), "{outcome}");
    assert_eq!(read(&sb, &["fl"]), "Flags fine.\n");
    if provider == "claude" {
        let meta = sb.umbel(["status", "fl", "--json"]).json();
        let id = meta["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("{meta}"))
            .to_string();
        sb.umbel(["kill", "fl", "--purge"]).success();
        sb.spawn(
            "re",
            &["--provider", provider, "--env", &scenario, "--resume", &id],
        );
        let (code, outcome) = turn(&sb, "re", "and after resuming?");
        assert_eq!(code, Some(0), "{outcome}");
        let all = read(&sb, &["re", "--all", "--json"]);
        assert!(
            all.contains("are the flags fine?"),
            "the resumed conversation: {all}"
        );
    }
}

/// Every JSON document a print mode printed, stdout then stderr (gemini's error object).
fn print_documents(out: &std::process::Output) -> Vec<Value> {
    let mut documents = crate::print_json::parse_documents(&stdout(out));
    documents.extend(crate::print_json::parse_documents(&stderr(out)));
    documents
}

/// The recorded print-mode JSON of the provider's own CLI on a scenario (tests/data).
fn recorded_print_json(provider: &str, scenario: &str) -> Vec<Value> {
    use crate::print_json::{kind, sample};
    match (provider, scenario) {
        ("claude", "api-error") => sample("claude/claude-2.1.332-print-json-api-error.json"),
        ("claude", _) => sample("claude/claude-2.1.332-print-json-success.json"),
        ("codex", "api-error") => sample("codex/codex-0.171.0-exec-json-api-error.jsonl"),
        ("codex", "tool") => sample("codex/codex-0.171.0-exec-json-tool-turn.jsonl"),
        ("codex", _) => sample("codex/codex-0.171.0-exec-json-tool-turn.jsonl")
            .into_iter()
            .filter(|d| !kind(d).ends_with("/command_execution"))
            .collect(),
        ("qwen", "api-error") => {
            let mut documents = sample("qwen/qwen-0.24.4-print-json-api-error.json");
            documents.extend(sample("qwen/qwen-0.24.4-print-json-api-error-stderr.json"));
            // The oldest supported release printed the error as a `success` result.
            documents.extend(sample("qwen/0.23.0/qwen-0.23.0-print-json-api-error.json"));
            documents
        }
        ("qwen", "tool") => sample("qwen/qwen-0.24.4-print-json-tool-turn.json"),
        ("qwen", _) => sample("qwen/qwen-0.24.4-print-json-success.json"),
        ("opencode", "api-error") => {
            sample("opencode/1.18.33/opencode-1.18.33-run-format-json-api-error.jsonl")
        }
        ("opencode", "tool") => {
            sample("opencode/1.18.33/opencode-1.18.33-run-format-json-tool.jsonl")
        }
        ("opencode", _) => sample("opencode/1.18.33/opencode-1.18.33-run-format-json.jsonl"),
        ("copilot", "api-error") => lasting(sample("copilot/1.0.102/print-json-error.jsonl")),
        ("copilot", "tool") => lasting(sample("copilot/1.0.102/print-json-tool.jsonl")),
        ("copilot", _) => lasting(sample("copilot/1.0.102/print-json-success.jsonl")),
        (_, "api-error") => sample("gemini/gemini-0.61.0-print-json-api-error-stderr.json"),
        _ => sample("gemini/gemini-0.61.0-print-json-success.json"),
    }
}

/// What copilot's `<pasted_content file="…" size="…" lines="…" />` prompt names: the text in
/// that file.
fn pasted_file(prompt: &str) -> Option<String> {
    let rest = prompt.trim().strip_prefix("<pasted_content file=\"")?;
    let path = &rest[..rest.find('"')?];
    std::fs::read_to_string(path).ok()
}

/// copilot's print-mode events that its session log keeps (it streams `ephemeral` ones too:
/// skills loaded, deltas, model calls — no part of the turn's record).
fn lasting(documents: Vec<Value>) -> Vec<Value> {
    documents
        .into_iter()
        .filter(|d| d["ephemeral"] != true)
        .collect()
}

/// The key set of `umbel -p --output-format json` includes the provider's own print mode's on
/// the same scenario: a plain answer, a shell tool, an API error.
fn print_json_keys_include_the_real_print_modes(provider: &str, tier: Tier) {
    let sb = world(tier);
    let tool = json!({ "turns": [{ "reply": "It printed hi.", "end": { "permission": {
        "tool": "Bash", "input": { "command": "echo hi", "description": "Print hi" } } } }] });
    let api_error = json!({ "turns": [{ "end": { "api_error": {
        "status": 400, "message": "scripted bad request" } } }] });
    let cases = [
        ("success", sim::reply("The answer is 42.")),
        ("tool", tool),
        ("api-error", api_error),
    ];
    for (name, scenario) in cases {
        let env = sb.scenario(name, scenario.clone());
        let unattended = name == "tool";
        let theirs = match tier {
            Tier::Fake => recorded_print_json(provider, name),
            Tier::Real => {
                let mut flags: Vec<&str> = match provider {
                    "claude" => vec!["--output-format", "json"],
                    "qwen" => vec!["--output-format", "json"],
                    "opencode" => vec!["--format", "json"],
                    "copilot" => vec!["--output-format", "json"],
                    "codex" => vec!["--json"],
                    _ => vec!["-o", "json"],
                };
                if unattended {
                    flags.push(match provider {
                        "claude" => "--dangerously-skip-permissions",
                        "codex" => "--dangerously-bypass-approvals-and-sandbox",
                        "opencode" => "--auto",
                        "copilot" => "--allow-all",
                        _ => "--yolo",
                    });
                }
                let out = crate::real::print_mode(&sb, provider, &flags, "run the tool", "");
                // The model server forgets which turns were used when the scenario is written.
                sb.scenario(name, scenario);
                lasting(print_documents(&out))
            }
        };
        let mut args = vec!["-p", "run the tool", "--provider", provider];
        args.extend(["--output-format", "json", "--env", &env]);
        if unattended {
            args.push("--unattended");
        }
        let out = sb.umbel(&args).run();
        let ours = print_documents(&out);
        crate::print_json::assert_keys_include(&ours, &theirs, &format!("{provider} {name}"));
    }
}

/// The recorded stream of the provider's own CLI (tests/data): claude on a plain answer, codex
/// (`exec --json`) and gemini on a tool turn.
fn recorded_stream_json(provider: &str) -> Vec<Value> {
    crate::print_json::sample(match provider {
        "claude" => "claude/claude-2.1.332-print-stream-json.jsonl",
        "codex" => "codex/codex-0.171.0-exec-json-tool-turn.jsonl",
        "qwen" => "qwen/qwen-0.24.4-print-stream-json-tool-turn.jsonl",
        "opencode" => "opencode/1.18.33/opencode-1.18.33-run-format-json-tool.jsonl",
        "copilot" => "copilot/1.0.102/print-json-tool.jsonl",
        _ => "gemini/gemini-0.61.0-print-stream-json-tool-turn.jsonl",
    })
}

/// The event kinds of a stream, in order. Left out: the `system` hook events claude streams
/// for the user's own SessionStart hooks (umbel's hooks are its plumbing, not the user's),
/// codex's start-up warning items, qwen's `stream_event` `goal_state` notice (the state of its
/// `/goal` feature, no part of the turn) and copilot's `ephemeral` events.
fn stream_kinds(provider: &str, events: Vec<Value>) -> Vec<String> {
    let events: Vec<Value> = events
        .into_iter()
        .filter(|e| {
            !e["subtype"]
                .as_str()
                .is_some_and(|s| s.starts_with("hook_"))
        })
        .filter(|e| crate::print_json::kind(e) != "item.completed/error")
        .filter(|e| e["type"] != "stream_event")
        .filter(|e| e["ephemeral"] != true)
        .collect();
    if provider != "codex" {
        return umbel::core::print::stream::kinds_in_order(&events);
    }
    let mut kinds: Vec<String> = events.iter().map(crate::print_json::kind).collect();
    kinds.dedup();
    kinds
}

/// `umbel -p --output-format stream-json` streams the event types the real print mode
/// streams, in the same order (claude: a plain answer; codex, whose stream is `exec --json`,
/// and gemini: a tool turn).
fn stream_json_event_types_follow_the_real_print_mode(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = match provider {
        "claude" => sim::reply("The answer is 42."),
        _ => json!({ "turns": [{ "reply": "It printed hi.", "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi", "description": "Print hi" } } } }] }),
    };
    let env = sb.scenario("s", scenario.clone());
    let theirs = match tier {
        Tier::Fake => stream_kinds(provider, recorded_stream_json(provider)),
        Tier::Real => {
            let flags: &[&str] = match provider {
                "claude" => &["--output-format", "stream-json", "--verbose"],
                "codex" => &["--json", "--dangerously-bypass-approvals-and-sandbox"],
                "qwen" => &["--output-format", "stream-json", "--yolo"],
                "opencode" => &["--format", "json", "--auto"],
                "copilot" => &["--output-format", "json", "--allow-all"],
                _ => &["-o", "stream-json", "--yolo"],
            };
            let out = crate::real::print_mode(&sb, provider, flags, "run the tool", "");
            sb.scenario("s", scenario);
            let mut kinds =
                stream_kinds(provider, crate::print_json::parse_documents(&stdout(&out)));
            // claude 2.1.290's print mode adds a notice of its own (`system/informational`),
            // which is no part of the turn (2.1.246 and 2.1.332 print none).
            kinds.retain(|k| k != "system/informational");
            kinds
        }
    };
    let mut args = vec!["-p", "run the tool", "--provider", provider];
    args.extend([
        "--output-format",
        "stream-json",
        "--env",
        &env,
        "--unattended",
    ]);
    let out = sb.umbel(&args).success();
    let ours = stream_kinds(provider, crate::print_json::parse_documents(&out.stdout()));
    assert_eq!(ours, theirs, "{}", out.stdout());
}

/// Three `send --queue` to a worker whose turn runs, started in this order: each waits for the
/// turn before it and is delivered once, as its own turn, in arrival order.
fn three_queued_sends_to_a_busy_worker_are_three_turns_in_order(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario(
        "q",
        json!({ "turns": [
            { "match": "long task", "reply": "long done", "delay_ms": 3000 },
            { "match": "queued one", "reply": "one done", "delay_ms": 500 },
            { "match": "queued two", "reply": "two done", "delay_ms": 500 },
            { "match": "queued three", "reply": "three done", "delay_ms": 500 }
        ] }),
    );
    sb.spawn("q", &["--provider", provider, "--env", &scenario]);
    sb.umbel(["send", "q", "long task"]).success();
    let mut queued = Vec::new();
    // In this order: each takes its ticket before the next starts.
    for (n, prompt) in (1..).zip(["queued one", "queued two", "queued three"]) {
        queued.push(sb.umbel(["send", "q", prompt, "--queue"]).start());
        sb.until_queued("q", n);
    }
    let positions: Vec<usize> = queued
        .into_iter()
        .map(|q| q.success().line().parse().expect("a position"))
        .collect();
    assert!(positions.windows(2).all(|p| p[0] < p[1]), "{positions:?}");
    let last = positions[2].to_string();
    let done = sb
        .umbel(["wait", "q", "--since", &last, "--json"])
        .success()
        .json();
    assert_eq!(done["outcome"], "stop", "{done}");
    let all = sb.umbel(["read", "q", "--all", "--json"]).success().json();
    let prompts: Vec<&str> = all
        .as_array()
        .unwrap_or_else(|| panic!("not an array of turns: {all}"))
        .iter()
        .filter_map(|t| t["prompt"].as_str())
        .map(str::trim)
        .collect();
    assert_eq!(
        prompts,
        ["long task", "queued one", "queued two", "queued three"],
        "{all}"
    );
    assert_eq!(
        answers_of(&all),
        ["long done", "one done", "two done", "three done"],
        "{all}"
    );
    let left = std::fs::read_dir(sb.session_dir("q").join("queue")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "tickets left behind");
}

/// A 256 KiB prompt (2,596 lines) goes through one paste and arrives whole, once: the
/// transcript's prompt is the same text (and on the fakes, the one prompt they received).
/// Measured on the real CLIs with 1 MiB (umbel's limit, 10,382 lines): whole on all three
/// (claude 5 s, codex 4 s, gemini 26 s).
fn a_256_kib_prompt_arrives_whole_once(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario("b", json!({ "default": { "reply": "got it" } }));
    sb.spawn(
        "b",
        &[
            "--provider",
            provider,
            "--env",
            &scenario,
            "--env",
            &sb.record_env(),
        ],
    );
    let big = text_of(256 * 1024, 101);
    let since = sb
        .umbel(["send", "b", "-"])
        .stdin(big.clone())
        .success()
        .line();
    let done = sb
        .umbel([
            "wait",
            "b",
            "--since",
            &since,
            "--timeout",
            "120s",
            "--json",
        ])
        .success()
        .json();
    assert_eq!(done["outcome"], "stop", "{done}");
    let all = sb.umbel(["read", "b", "--all", "--json"]).success().json();
    let turns = all.as_array().expect("turns");
    assert_eq!(turns.len(), 1, "one turn, not {}", turns.len());
    let prompt = turns[0]["prompt"].as_str().unwrap_or_default();
    // copilot keeps a long paste in a file of its session, its prompt naming the file.
    let prompt = pasted_file(prompt).unwrap_or_else(|| prompt.to_string());
    let want = String::from_utf8(big.clone()).expect("text");
    assert_eq!(
        prompt.trim_end().len(),
        want.trim_end().len(),
        "prompt length"
    );
    assert!(prompt.trim_end() == want.trim_end(), "the prompt differs");
    if tier == Tier::Fake {
        assert_eq!(sb.received(), [big]);
    }
}

/// The prompts of the model requests logged since `from` lines (the real tier's `fake-model`),
/// each request's text whole; empty on the fakes (they are the model).
fn model_requests(sb: &Sandbox, tier: Tier) -> Vec<String> {
    match tier {
        Tier::Fake => Vec::new(),
        Tier::Real => std::fs::read_to_string(sb.root.join("model-requests.jsonl"))
            .unwrap_or_default()
            .lines()
            // Side requests (titles, routing) carry no conversation.
            .filter(|r| !r.contains("-side\""))
            .map(str::to_string)
            .collect(),
    }
}

/// The three turns of a conversation that was parked after two: the scenario both tiers play.
fn three_turns(sb: &Sandbox) -> String {
    sb.scenario(
        "p",
        json!({ "turns": [
            { "match": "alpha", "reply": "First." },
            { "match": "bravo", "reply": "Second." },
            { "match": "charlie", "reply": "Third." }
        ] }),
    )
}

/// Park ends the CLI (no process left, state `parked`), keeps the conversation; a send starts
/// the CLI again on it (`resumed: true`), the model's request for turn 3 carries turns 1 and 2,
/// and `read --all` lists the three turns in order.
fn park_then_a_send_resumes_the_same_conversation(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = three_turns(&sb);
    sb.spawn("pk", &["--provider", provider, "--env", &scenario]);
    assert_eq!(turn(&sb, "pk", "alpha question").0, Some(0));
    assert_eq!(turn(&sb, "pk", "bravo question").0, Some(0));
    sb.umbel(["park", "pk"]).stdout("parked pk\n").success();
    assert_no_process_left(&sb.root, "park");
    let status = sb.umbel(["status", "pk", "--json"]).success().json();
    assert_eq!(status["state"], "parked", "{status}");
    assert!(status["parkedAt"].is_u64(), "{status}");
    let before = model_requests(&sb, tier).len();
    let sent = sb
        .umbel(["send", "pk", "charlie question", "--json"])
        .success()
        .json();
    assert_eq!(sent["resumed"], true, "{sent}");
    assert!(sent["resumeMs"].is_u64(), "{sent}");
    let since = sent["position"].to_string();
    let done = sb
        .umbel([
            "wait",
            "pk",
            "--since",
            &since,
            "--timeout",
            "90s",
            "--json",
        ])
        .success()
        .json();
    assert_eq!(done["outcome"], "stop", "{done}");
    let all = sb.umbel(["read", "pk", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second.", "Third."], "{all}");
    if tier == Tier::Real {
        let third = model_requests(&sb, tier)
            .into_iter()
            .skip(before)
            .find(|r| r.contains("charlie question"))
            .unwrap_or_else(|| panic!("no model request for turn 3"));
        for earlier in ["alpha question", "First.", "bravo question", "Second."] {
            assert!(
                third.contains(earlier),
                "turn 3's request lacks {earlier:?}: {third}"
            );
        }
    }
    let log = std::fs::read_to_string(sb.session_dir("pk").join("events/log")).expect("log");
    assert_eq!(log.matches(" Parked ").count(), 1, "{log}");
    assert_eq!(log.matches(" Resumed ").count(), 1, "{log}");
    sb.umbel(["kill", "pk", "--purge"]).success();
    assert_no_process_left(&sb.root, "kill");
}

/// umbel's tmux server killed (a crash, a reboot): the worker is `dead`, its status names
/// `umbel resume`, which starts its CLI again on the same conversation; the next turn carries it.
fn a_killed_tmux_server_then_resume_continues_the_conversation(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = three_turns(&sb);
    sb.spawn("rv", &["--provider", provider, "--env", &scenario]);
    assert_eq!(turn(&sb, "rv", "alpha question").0, Some(0));
    // The crash comes once the CLI has recorded the answer: qwen 0.23 writes it up to ~1.5 s
    // after its end-of-turn hook, and a CLI killed before then loses it (a park waits for it).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let recorded = || {
        let all = sb.umbel(["read", "rv", "--all", "--json"]).success().json();
        answers_of(&all) == ["First."]
    };
    while !recorded() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    sandbox_tmux(&sb)
        .kill_server()
        .expect("kill umbel's tmux server");
    // gemini outlives its pane and even the server (docs/providers.md): end it as a reboot would.
    if provider == "gemini" && tier == Tier::Real {
        crate::real::reap(&sb.root);
    }
    let status = sb.umbel(["status", "rv", "--json"]).success().json();
    assert_eq!(status["state"], "dead", "{status}");
    assert_eq!(status["resumeWith"], "umbel resume rv", "{status}");
    sb.umbel(["resume", "rv"])
        .stdout_has("resumed rv in ")
        .success();
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
    assert_eq!(turn(&sb, "rv", "bravo question").0, Some(0));
    let all = sb.umbel(["read", "rv", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second."], "{all}");
    if tier == Tier::Real {
        let second = model_requests(&sb, tier)
            .into_iter()
            .rfind(|r| r.contains("bravo question"))
            .unwrap_or_else(|| panic!("no model request for turn 2"));
        assert!(second.contains("alpha question"), "{second}");
    }
    sb.umbel(["kill", "rv", "--purge"]).success();
}

/// `spawn --fork-from`: the fork starts with a copy of the parent's conversation (its first model
/// request carries the parent's turn; `read --all` lists it), and the parent's next turn does not
/// carry the fork's. gemini and qwen cannot fork a conversation: refused, and no worker is left.
fn fork_from_starts_with_a_copy_of_the_conversation_and_leaves_the_parent_alone(
    provider: &str,
    tier: Tier,
) {
    let sb = world(tier);
    let scenario = sb.scenario(
        "f",
        json!({ "turns": [
            { "match": "alpha", "reply": "First." },
            { "match": "bravo", "reply": "Fork's." },
            { "match": "charlie", "reply": "Parent's." }
        ] }),
    );
    sb.spawn("par", &["--provider", provider, "--env", &scenario]);
    assert_eq!(turn(&sb, "par", "alpha question").0, Some(0));
    if matches!(provider, "gemini" | "qwen" | "opencode" | "copilot") {
        sb.umbel(["spawn", "--name", "fk", "--fork-from", "par"])
            .stderr_has(format!("cannot be forked: {provider} has no fork"))
            .status(1);
        assert_eq!(sb.ls().len(), 1, "{:?}", sb.ls());
        return;
    }
    sb.spawn("fk", &["--fork-from", "par", "--env", &scenario]);
    let fork = sb.umbel(["status", "fk", "--json"]).success().json();
    assert_eq!(fork["provider"], provider, "{fork}");
    assert_eq!(turn(&sb, "fk", "bravo question").0, Some(0));
    assert_eq!(turn(&sb, "par", "charlie question").0, Some(0));
    let forked = sb.umbel(["read", "fk", "--all", "--json"]).success().json();
    if provider == "codex" {
        // codex 0.171.0 does not copy the parent's records into the fork's rollout: its
        // `session_meta` names the parent's thread, and the model gets that history.
        assert_eq!(answers_of(&forked), ["Fork's."], "{forked}");
        let rollout = sb.umbel(["status", "fk", "--json"]).success().json()["transcriptPath"]
            .as_str()
            .map(std::path::PathBuf::from)
            .expect("the fork's rollout");
        let text = std::fs::read_to_string(&rollout).expect("read the fork's rollout");
        let meta: Value =
            serde_json::from_str(text.lines().next().unwrap_or_default()).expect("session_meta");
        let parent = sb.umbel(["status", "par", "--json"]).success().json();
        assert_eq!(
            meta["payload"]["forked_from_id"], parent["sessionId"],
            "{meta}"
        );
    } else {
        assert_eq!(answers_of(&forked), ["First.", "Fork's."], "{forked}");
    }
    let parent = sb
        .umbel(["read", "par", "--all", "--json"])
        .success()
        .json();
    assert_eq!(answers_of(&parent), ["First.", "Parent's."], "{parent}");
    if tier == Tier::Real {
        let requests = model_requests(&sb, tier);
        let of = |prompt: &str| {
            requests
                .iter()
                .find(|r| r.contains(prompt))
                .unwrap_or_else(|| panic!("no model request for {prompt:?}"))
                .clone()
        };
        let fork_first = of("bravo question");
        for earlier in ["alpha question", "First."] {
            assert!(
                fork_first.contains(earlier),
                "the fork's request lacks {earlier:?}: {fork_first}"
            );
        }
        let parent_next = of("charlie question");
        assert!(parent_next.contains("alpha question"), "{parent_next}");
        for forks in ["bravo question", "Fork's."] {
            assert!(
                !parent_next.contains(forks),
                "the parent's request carries {forks:?}: {parent_next}"
            );
        }
    }
}

/// `spawn --resume ID` on codex: a thread run outside umbel (its rollout in the user's own
/// CODEX_HOME) goes on in a worker, whose own CODEX_HOME gets a copy; the user's rollout is left
/// as it was. An id codex has no rollout of is refused before anything is made.
fn resume_continues_a_codex_thread_run_outside_umbel(tier: Tier) {
    let sb = world(tier);
    let scenario = three_turns(&sb);
    // The thread is made by a worker, then moved where a person's own `codex` keeps it.
    sb.spawn("out", &["--provider", "codex", "--env", &scenario]);
    assert_eq!(turn(&sb, "out", "alpha question").0, Some(0));
    let status = sb.umbel(["status", "out", "--json"]).success().json();
    let id = status["sessionId"].as_str().expect("thread id").to_string();
    let rollout = std::path::PathBuf::from(status["transcriptPath"].as_str().expect("rollout"));
    let inside = rollout
        .strip_prefix(sb.session_dir("out").join("codex-home"))
        .expect("in the worker's codex home")
        .to_path_buf();
    let mine = sb.home.join(".codex").join(&inside);
    std::fs::create_dir_all(mine.parent().expect("folder")).expect("mkdir");
    std::fs::copy(&rollout, &mine).expect("copy the rollout");
    sb.umbel(["kill", "out", "--purge"]).success();
    let before = std::fs::read(&mine).expect("read");

    sb.umbel([
        "spawn",
        "--name",
        "bad",
        "--provider",
        "codex",
        "--resume",
        "0d9c2a4e-1111-4222-8333-444455556666",
    ])
    .stderr_has("codex has no conversation of that id")
    .status(2);
    assert!(sb.ls().is_empty(), "{:?}", sb.ls());

    sb.spawn(
        "re",
        &["--provider", "codex", "--env", &scenario, "--resume", &id],
    );
    assert_eq!(turn(&sb, "re", "bravo question").0, Some(0));
    let all = sb.umbel(["read", "re", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second."], "{all}");
    let resumed = sb.umbel(["status", "re", "--json"]).success().json();
    assert_eq!(resumed["sessionId"], id.as_str(), "{resumed}");
    assert_eq!(
        std::fs::read(&mine).expect("read"),
        before,
        "the user's rollout changed"
    );
    if tier == Tier::Real {
        let second = model_requests(&sb, tier)
            .into_iter()
            .rfind(|r| r.contains("bravo question"))
            .unwrap_or_else(|| panic!("no model request for turn 2"));
        assert!(second.contains("alpha question"), "{second}");
    }
}

/// Five `send --queue`s at once to a parked worker: one resume (one `Resumed` line, one send
/// says `resumed`), five turns in the order their tickets were taken, each prompt answered once,
/// after the turn from before the park (the real model's last request carries it).
fn five_concurrent_sends_to_a_parked_worker_resume_it_once_and_are_five_turns(
    provider: &str,
    tier: Tier,
) {
    let sb = world(tier);
    const WORDS: [&str; 5] = ["one", "two", "three", "four", "five"];
    let mut turns = vec![json!({ "match": "warm up", "reply": "Warm." })];
    turns.extend(
        WORDS.map(|w| json!({ "match": format!("prompt {w}"), "reply": format!("Answer {w}."), "delay_ms": 300 })),
    );
    // The fake claude keeps a submitted prompt on its input line 300 ms after its submit hook,
    // as the real one does for a moment: a sender looking then must not take it for one put back.
    let startup = json!({ "submit_redraw_ms": 300 });
    let scenario = sb.scenario("c", json!({ "turns": turns, "startup": startup }));
    sb.spawn("c", &["--provider", provider, "--env", &scenario]);
    assert_eq!(turn(&sb, "c", "warm up").0, Some(0));
    sb.umbel(["park", "c"]).stdout("parked c\n").success();
    let sends: Vec<_> = WORDS
        .map(|w| {
            let prompt = format!("prompt {w}");
            let args = [
                "send",
                "c",
                &prompt,
                "--queue",
                "--queue-timeout",
                "120s",
                "--json",
            ];
            sb.umbel(args).start()
        })
        .into_iter()
        .collect();
    let sent: Vec<Value> = sends.into_iter().map(|s| s.success().json()).collect();
    let resumed = sent.iter().filter(|s| s["resumed"] == true).count();
    assert_eq!(resumed, 1, "{sent:?}");
    let last = sent
        .iter()
        .filter_map(|s| s["position"].as_u64())
        .max()
        .unwrap_or_else(|| panic!("no positions: {sent:?}"))
        .to_string();
    let args = ["wait", "c", "--since", &last, "--timeout", "120s", "--json"];
    assert_eq!(sb.umbel(args).success().json()["outcome"], "stop");
    let all = sb.umbel(["read", "c", "--all", "--json"]).success().json();
    let pairs: Vec<(String, String)> = all
        .as_array()
        .unwrap_or_else(|| panic!("not an array of turns: {all}"))
        .iter()
        .map(|t| {
            (
                t["prompt"].as_str().unwrap_or("").trim().to_owned(),
                t["answer"].as_str().unwrap_or("").trim().to_owned(),
            )
        })
        .collect();
    let log = std::fs::read_to_string(sb.session_dir("c").join("events/log")).expect("log");
    assert_eq!(pairs.len(), 6, "{all}\nsent: {sent:?}\nlog:\n{log}");
    assert_eq!(
        pairs[0],
        ("warm up".to_owned(), "Warm.".to_owned()),
        "{all}"
    );
    let mut seen: Vec<&str> = Vec::new();
    for (prompt, answer) in &pairs[1..] {
        let word = prompt
            .strip_prefix("prompt ")
            .unwrap_or_else(|| panic!("{all}"));
        assert_eq!(answer, &format!("Answer {word}."), "{all}");
        seen.push(word);
    }
    seen.sort_unstable();
    let mut want = WORDS.to_vec();
    want.sort_unstable();
    assert_eq!(seen, want, "each prompt once: {all}");
    if tier == Tier::Real {
        let requests = model_requests(&sb, tier);
        let newest = requests
            .last()
            .unwrap_or_else(|| panic!("no model request"));
        assert!(
            newest.contains("warm up"),
            "the resumed conversation lost turn 1: {newest}"
        );
    }
    let log = std::fs::read_to_string(sb.session_dir("c").join("events/log")).expect("log");
    assert_eq!(log.matches(" Resumed ").count(), 1, "{log}");
}

/// Resumed, then parked again before any turn (its newest hook is the resumed CLI's start, which
/// on gemini names a second, header-only chat file): the next send still resumes it, on the same
/// conversation.
fn parked_again_before_a_turn_a_worker_still_resumes(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = three_turns(&sb);
    sb.spawn("pp", &["--provider", provider, "--env", &scenario]);
    assert_eq!(turn(&sb, "pp", "alpha question").0, Some(0));
    sb.umbel(["park", "pp"]).success();
    sb.umbel(["resume", "pp"]).success();
    sb.umbel(["park", "pp"]).stdout("parked pp\n").success();
    assert_eq!(turn(&sb, "pp", "bravo question").0, Some(0));
    let all = sb.umbel(["read", "pp", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second."], "{all}");
}

/// docs/workflows.md's compare example (examples/compare.yaml) on claude (one CLI, so it is
/// listed with the fleet scenarios, which run once per tier): two workers implement
/// the same task, each in a worktree of its own, and the judge's prompt holds both patches. On
/// the real CLI the edit is a shell command the model asks for (run, `unattended`), writing the
/// worktree's own folder name, so the two patches differ; the fake writes the file itself.
fn the_compare_example_runs_two_worktrees_and_a_judge(tier: Tier) {
    let mut sb = world(tier);
    sb.var("TASK", "Rewrite the notes");
    let sb = sb;
    let git = |args: &[&str]| crate::worktree::git(&sb.project, args);
    if tier == Tier::Fake {
        git(&["init", "-q", "-b", "main"]);
    }
    sb.write("notes.txt", "base\n");
    git(&["add", "notes.txt"]);
    git(&["commit", "-q", "-m", "notes"]);
    let edit = json!({ "tool": "Bash", "input": {
        "command": "basename \"$PWD\" > notes.txt", "description": "Edit the notes" } });
    let scenario = sb.scenario(
        "compare",
        json!({ "turns": [
            { "match": "Edit the files", "reply": "Edited.", "end": { "permission": edit },
              "writes": { "notes.txt": "edited\n" } },
            { "match": "Two patches", "reply": "Patch A is better." },
        ] }),
    );
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/compare.yaml"),
    )
    .expect("examples/compare.yaml");
    let worker = format!(
        "provider: claude\n    cwd: {}\n    env: [\"{scenario}\"]",
        sb.project.display()
    );
    let yaml = example
        .replace("worktree: true", &format!("{worker}\n    worktree: true"))
        .replace("judge: {}", &format!("judge:\n    {worker}"));
    assert_eq!(yaml.matches("provider: claude").count(), 3, "{yaml}");
    let file = sb.root.join("compare.yaml");
    sb.write(&file, yaml);
    let record = sb
        .umbel(["run", "--json", file.to_str().expect("utf-8 path")])
        .success()
        .json();
    let run_id = record["runId"].as_str().expect("runId").to_string();
    let steps = sb.state.join("workflows").join(&run_id).join("steps");
    let prompt = std::fs::read_to_string(steps.join("compare/prompt")).expect("judge's prompt");
    let first = format!("{run_id}-first");
    let mut actions = sb.umbel(["actions", &first, "--json"]).run().stdout();
    let wt = sb.project.join(".umbel/worktrees").join(&first);
    actions += &format!(
        "\nnotes: {:?}\nls: {:?}\nlog: {}",
        std::fs::read_to_string(wt.join("notes.txt")),
        std::fs::read_dir(&wt).map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>()),
        std::fs::read_to_string(sb.session_dir(&first).join("events/log")).unwrap_or_default()
    );
    assert_eq!(prompt.matches("-base\n+").count(), 2, "{prompt}\n{actions}");
    if tier == Tier::Real {
        for who in ["first", "second"] {
            let line = format!("-base\n+{run_id}-{who}\n");
            assert!(prompt.contains(&line), "{line:?} in {prompt}");
        }
    }
    let verdict = std::fs::read_to_string(steps.join("compare/answer")).expect("verdict");
    assert!(verdict.contains("Patch A is better."), "{verdict}");
    assert_eq!(record["results"][0]["step"], "compare", "{record:#}");
    assert_eq!(
        record["results"][0]["answer"],
        verdict.as_str(),
        "{record:#}"
    );
    assert_eq!(
        std::fs::read_to_string(sb.project.join("notes.txt")).expect("notes"),
        "base\n",
        "the main checkout is untouched"
    );
    assert_eq!(git(&["status", "--porcelain", "--untracked-files=all"]), "");
    sb.umbel(["kill", "--all"]).success();
}
