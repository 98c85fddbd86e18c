//! `umbel attach`: a real tmux client in a pseudo-terminal takes over a worker's pane and
//! detaches again; and the refusals (no terminal, dead worker, unknown name).

use crate::harness::*;
use rexpect::session::spawn_command;

/// rexpect hands out each output byte as one char; match UTF-8 needles the same way.
fn bytewise(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

#[test]
fn attach_shows_the_pane_and_detaching_leaves_the_worker_running() {
    let sb = Sandbox::new();
    sb.spawn("p1", &[]);
    let mut client = spawn_command(sb.pty_command(&["attach", "p1"]), Some(15_000))
        .expect("start umbel attach in a pty");
    client
        .exp_string(&bytewise("? for shortcuts"))
        .expect("the worker's screen");
    client
        .exp_string("[umbel-p1]")
        .expect("tmux's status line names the worker's session");
    client.send_control('b').expect("prefix");
    client.send("d").expect("detach");
    client.flush().expect("flush");
    client
        .exp_string("[detached")
        .expect("tmux says it detached");
    client.exp_eof().expect("the client ends");
    let status = json_of(&sb.run(&["status", "p1", "--json"]));
    assert_eq!(status["state"], "ready", "the worker outlives the client");
}

#[test]
fn attach_refuses_without_a_terminal_and_for_dead_workers() {
    let sb = Sandbox::new();
    sb.spawn("a1", &[]);
    let piped = sb.run(&["attach", "a1"]);
    assert_eq!(piped.status.code(), Some(2), "{}", stderr(&piped));
    assert!(
        stderr(&piped).contains("needs a terminal, but standard input and output are not one"),
        "{}",
        stderr(&piped)
    );
    assert_success(&sb.run(&["kill", "a1"]), "kill");
    let dead = sb.run(&["attach", "a1"]);
    assert_eq!(dead.status.code(), Some(1));
    assert!(
        stderr(&dead).contains("worker `a1` is dead"),
        "{}",
        stderr(&dead)
    );
    assert_eq!(sb.run(&["attach", "nobody"]).status.code(), Some(1));
    assert_eq!(sb.run(&["attach", "Bad_Name"]).status.code(), Some(2));
}
