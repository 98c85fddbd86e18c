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
    detach_from(client, "p1");
    let status = sb.umbel(["status", "p1", "--json"]).json();
    assert_eq!(status["state"], "ready", "the worker outlives the client");
}

#[test]
fn attach_refuses_without_a_terminal_and_for_dead_workers() {
    let sb = Sandbox::new();
    sb.spawn("a1", &[]);
    sb.umbel(["attach", "a1"])
        .stderr_has("needs a terminal, but standard input and output are not one")
        .status(2);
    sb.umbel(["kill", "a1"]).success();
    sb.umbel(["attach", "a1"])
        .stderr_has("worker `a1` is dead")
        .status(125);
    sb.umbel(["attach", "nobody"]).status(1);
    sb.umbel(["attach", "Bad_Name"]).status(2);
}

/// Waits for tmux's status line naming worker `name`'s session in an attached client, detaches
/// with `C-b d`, and checks that tmux says so and the client ends.
pub(crate) fn detach_from(mut client: rexpect::session::PtySession, name: &str) {
    client
        .exp_string(&format!("[umbel-{name}]"))
        .expect("tmux's status line names the worker's session");
    client.send_control('b').expect("prefix");
    client.send("d").expect("detach");
    client.flush().expect("flush");
    client
        .exp_string("[detached")
        .expect("tmux says it detached");
    client.exp_eof().expect("the client ends");
}
