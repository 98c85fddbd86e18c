//! `umbel top` against fake workers in every state (working, needs-input with its pending tool,
//! idle, done, dead): `--once` prints them, what needs a person first; the live view runs in a
//! pane of the sandbox's private tmux server (through umbel's own tmux adapter), is driven by
//! keys (filter, read, logs, send, attach and back, kill with confirmation, quit) and follows
//! changes made behind its back; it gives the terminal back on `q` and on SIGTERM.

use crate::harness::*;
use crate::top_pane::TopPane;
use serde_json::json;

/// The table row of worker `name` (after the selection marker column), if shown.
fn row<'a>(screen: &'a str, name: &str) -> Option<&'a str> {
    screen.lines().find(|l| {
        l.get(2..)
            .is_some_and(|rest| rest.starts_with(&format!("{name} ")))
    })
}

/// Whether worker `name`'s row holds every one of `parts`.
fn row_has(screen: &str, name: &str, parts: &[&str]) -> bool {
    row(screen, name).is_some_and(|r| parts.iter().all(|p| r.contains(p)))
}

/// Each worker's row holds its state and what it is doing.
fn every_state_shown(screen: &str) {
    for (name, parts) in [
        ("ask1", &["needs-input", "permission: Bash echo hi"][..]),
        ("dead1", &["dead", "exited with status 3"]),
        ("done1", &["done", "Response to: first question"]),
        ("busy1", &["working"]),
        ("idle1", &["idle"]),
    ] {
        assert!(row_has(screen, name, parts), "{name}:\n{screen}");
    }
}

/// A fleet with a worker in every state.
fn fleet(sb: &Sandbox) {
    sb.spawn("idle1", &[]);
    sb.spawn("done1", &[]);
    sb.turn("done1", "first question").success();
    let wedge = sb.scenario("wedge", json!({ "default": { "end": "wedge" } }));
    sb.spawn("busy1", &["--env", &wedge]);
    sb.cmd("send busy1 hang").success();
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi" } });
    let ask = sb.scenario(
        "ask",
        json!({ "default": { "end": { "permission": tool } } }),
    );
    sb.spawn("ask1", &["--env", &ask]);
    sb.turn("ask1", "run it").status(126);
    let crash = sb.scenario(
        "crash",
        json!({ "default": { "reply": "bye", "end": { "crash": 3 } } }),
    );
    sb.spawn("dead1", &["--env", &crash]);
    sb.turn("dead1", "crash now").status(125);
}

#[test]
fn top_shows_every_state_and_each_key_acts() {
    let sb = Sandbox::new();
    fleet(&sb);

    // One plain frame: every state, what needs a person first.
    let frame = sb.cmd("top --once --width 120").success().stdout();
    assert!(
        frame.starts_with("umbel top  5 workers: 1 needs-input, 1 dead, 1 done, 1 working, 1 idle"),
        "{frame}"
    );
    let order: Vec<&str> = ["ask1", "dead1", "done1", "busy1", "idle1"]
        .into_iter()
        .filter(|n| row(&frame, n).is_some())
        .collect();
    assert_eq!(order.len(), 5, "{frame}");
    let at = |name: &str| frame.find(row(&frame, name).unwrap()).unwrap();
    assert!(
        at("ask1") < at("dead1") && at("dead1") < at("done1"),
        "{frame}"
    );
    assert!(
        at("done1") < at("busy1") && at("busy1") < at("idle1"),
        "{frame}"
    );
    every_state_shown(&frame);
    assert!(
        row_has(&frame, "done1", &["$0."]),
        "claude's cost:\n{frame}"
    );

    // The live view.
    let top = TopPane::start(&sb);
    let screen = top.until("every worker", |s| {
        ["ask1", "dead1", "done1", "busy1", "idle1"]
            .iter()
            .all(|n| row(s, n).is_some())
    });
    // The first row, selected, waits on a tool: the footer offers its answers first.
    assert!(
        screen.contains("y approve  n deny  ↑↓ move  Enter attach  k kill"),
        "{screen}"
    );
    assert!(screen.contains("1 approval pending (y/n)"), "{screen}");
    assert!(
        row(&screen, "ask1").unwrap().starts_with("> "),
        "first row selected:\n{screen}"
    );
    every_state_shown(&screen);
    // A running turn's age moves with the clock, with nothing else happening.
    let age =
        |s: &str| row(s, "busy1").and_then(|r| r.split_whitespace().nth(3).map(str::to_string));
    let first = age(&screen);
    top.until("busy1's turn ageing", |s| {
        age(s).is_some() && age(s) != first
    });

    // `/` filters as typed; Esc clears the filter.
    top.keys(&["/", "done1"]);
    top.until("only done1", |s| {
        row(s, "done1").is_some() && row(s, "ask1").is_none()
    });
    top.keys(&["Enter"]);
    // `r`: the last answer in the pager; q closes it.
    top.keys(&["r"]);
    top.until("the answer in the pager", |s| {
        s.contains("done1: last answer") && s.contains("Response to: first question")
    });
    top.keys(&["q"]);
    top.until("back to the table", |s| row_has(s, "done1", &["done"]));
    // `l`: the event log in the pager; Esc closes it.
    top.keys(&["l"]);
    top.until("the log in the pager", |s| {
        s.contains("done1: event log") && s.contains("UserPromptSubmit")
    });
    top.keys(&["Escape"]);
    top.until("back to the table", |s| row_has(s, "done1", &["done"]));
    top.keys(&["Escape"]);
    top.until("the filter cleared", |s| row(s, "ask1").is_some());

    // ↑ and ↓ select; a change made behind the view's back shows up by itself.
    top.keys(&["Down"]);
    top.until("busy1 selected", |s| {
        row(s, "busy1").is_some_and(|r| r.starts_with("> "))
    });
    top.keys(&["Up", "Up"]);
    top.until("dead1 selected", |s| {
        row(s, "dead1").is_some_and(|r| r.starts_with("> "))
    });
    // On a row that asks nothing, the footer is the table's, and `y` says there is nothing.
    assert!(
        top.screen()
            .contains("↑↓ move  Enter attach  s send  k kill  p park"),
        "{}",
        top.screen()
    );
    top.keys(&["y"]);
    top.until("the refusal", |s| {
        s.contains("dead1 waits on no tool's approval")
    });
    // `y` on ask1 approves its tool: the turn goes on and ends.
    top.keys(&["Up"]);
    top.until("ask1 selected", |s| {
        row(s, "ask1").is_some_and(|r| r.starts_with("> "))
    });
    top.keys(&["y"]);
    top.until("ask1 approved and done", |s| {
        s.contains("ask1: approved Bash") && row_has(s, "ask1", &["done"])
    });
    sb.umbel(["send", "done1", "second question"]).success();
    top.until("done1's new answer", |s| {
        row_has(s, "done1", &["done", "Response to: second question"])
    });

    // `s` sends a prompt to the selected worker.
    top.keys(&["/", "idle1"]);
    top.until("only idle1", |s| {
        row(s, "idle1").is_some() && row(s, "ask1").is_none()
    });
    top.keys(&["Enter"]);
    top.send("idle1", "hello top");
    let screen = top.until("idle1 answered", |s| {
        row_has(s, "idle1", &["done", "Response to: hello top"])
    });
    assert!(screen.contains("sent to idle1 (position"), "{screen}");

    // Enter attaches to the worker's pane; detaching comes back to the view.
    top.keys(&["Enter"]);
    top.until("the worker's own screen", |s| {
        s.contains("❯ hello top") && row(s, "idle1").is_none()
    });
    top.keys(&["C-b", "d"]);
    top.until("the view again", |s| row_has(s, "idle1", &["done"]));

    // `p` asks first: Esc keeps it running, y parks it (its row says for how long); `s` then
    // resumes it and the turn runs.
    top.keys(&["p"]);
    top.until("the question", |s| s.contains("park idle1? "));
    top.keys(&["Escape"]);
    top.until("no question", |s| !s.contains("park idle1?"));
    assert!(row_has(&top.screen(), "idle1", &["done"]));
    top.keys(&["p"]);
    top.until("the question", |s| s.contains("park idle1? "));
    top.keys(&["y"]);
    top.until("idle1 parked", |s| {
        s.contains("parked idle1") && row_has(s, "idle1", &["parked", "parked for "])
    });
    top.send("idle1", "after the park");
    top.until("idle1 resumed and answered", |s| {
        row_has(s, "idle1", &["done", "Response to: after the park"])
    });

    // `k` asks first: n keeps the worker, y kills it.
    top.keys(&["k"]);
    top.until("the question", |s| s.contains("kill idle1? (y/n)"));
    top.keys(&["n"]);
    top.until("no question", |s| !s.contains("kill idle1?"));
    assert!(row_has(&top.screen(), "idle1", &["done"]));
    top.keys(&["k"]);
    top.until("the question", |s| s.contains("kill idle1? (y/n)"));
    top.keys(&["y"]);
    top.until("idle1 killed", |s| {
        s.contains("killed idle1") && row_has(s, "idle1", &["dead", "killed by `umbel kill`"])
    });

    // `q` quits with 0 and leaves the terminal in canonical mode.
    top.keys(&["q"]);
    let screen = top.until("top's exit", |s| s.lines().any(|l| l.ends_with("icanon")));
    assert!(screen.contains("top exited 0"), "{screen}");
    assert!(
        screen.lines().any(|l| l == "icanon"),
        "raw mode left on:\n{screen}"
    );
}

#[test]
fn sigterm_even_twice_restores_the_terminal_and_a_dumb_one_is_refused() {
    let sb = Sandbox::new();
    sb.spawn("w1", &[]);
    let top = TopPane::start(&sb);
    top.until("the view", |s| row_has(s, "w1", &["idle"]));
    let pid = rustix::process::Pid::from_raw(top.top_pid()).expect("pid");
    // Twice, back to back (an impatient `kill`, a supervisor's retry): the second must not cut
    // the restore short.
    // (Apart by a little, so the kernel does not merge them into one pending signal, and well
    // within the quarter second top takes to notice the first.)
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
    std::thread::sleep(std::time::Duration::from_millis(20));
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
    let screen = top.until("top's exit", |s| s.lines().any(|l| l.ends_with("icanon")));
    assert!(screen.contains("top exited 130"), "{screen}");
    assert!(
        screen.lines().any(|l| l == "icanon"),
        "raw mode left on:\n{screen}"
    );

    sb.umbel(["top"])
        .env("TERM", "dumb")
        .stderr_has("needs a terminal")
        .stderr_has("status --json")
        .status(2);
}

/// `--once --width N` draws a frame N columns wide; below the narrowest frame that holds the
/// table (40) it is refused, saying so, instead of printing a 40-column frame (before: exit 0).
#[test]
fn once_honours_its_width_and_refuses_one_too_narrow() {
    let sb = Sandbox::new();
    sb.spawn("w1", &[]);
    for width in [40, 57, 200] {
        let frame = sb
            .cmd(&format!("top --once --width {width}"))
            .success()
            .stdout();
        assert!(row_has(&frame, "w1", &["idle"]), "{frame}");
        let widest = frame.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= width, "{width} columns:\n{frame}");
    }
    sb.cmd("top --once --width 10")
        .stderr_has("`--width 10`: a `top --once` frame needs at least 40 columns")
        .status(2);
}
