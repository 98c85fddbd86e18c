//! `status` for the whole fleet asks tmux twice, whatever the number of workers (the panes, then
//! the screens of the live ones, for dialogs no hook reports), and still tells each one's state
//! apart (alive, crashed with its status, killed); and it says when the last turn ran.

use crate::harness::*;
use umbel::core::args::StatusArgs;
use umbel::core::status::WorkerState;
use umbel::operations::{Ctx, status};

#[test]
fn status_of_every_worker_is_two_tmux_calls() {
    let sb = Sandbox::new();
    let crash = sb.scenario("c", sim::crash("bye", 3));
    for name in ["f1", "f2", "f3", "f4"] {
        sb.spawn(name, &["--env", &crash]);
    }
    sb.turn("f3", "crash now").status(125);
    sb.umbel(["kill", "f4"]).success();

    let ctx = Ctx::from_env(sb.env()).expect("context");
    let before = ctx.tmux.calls();
    let list = status::status(&ctx, &StatusArgs::default()).expect("status");
    assert_eq!(
        ctx.tmux.calls() - before,
        2,
        "one list-panes and one chain of capture-panes for the fleet"
    );
    let states: Vec<(&str, &str)> = list
        .iter()
        .map(|s| (s.name.as_str(), s.state.as_str()))
        .collect();
    assert_eq!(
        states,
        [
            ("f1", WorkerState::Ready.as_str()),
            ("f2", WorkerState::Ready.as_str()),
            ("f3", WorkerState::Dead.as_str()),
            ("f4", WorkerState::Dead.as_str()),
        ]
    );
    assert_eq!(list[2].exit.as_ref().and_then(|e| e.exit_code), Some(3));
}

/// `status --json` says when the last turn started and ended (what `top` ages a turn by, here
/// and for a worker on another host): nothing before the first turn, both after one, in order.
#[test]
fn status_says_when_the_last_turn_started_and_ended() {
    let sb = Sandbox::new();
    sb.spawn("t1", &[]);
    let before = sb.umbel(["status", "t1", "--json"]).json();
    assert!(before.get("turnStartedAt").is_none(), "{before}");
    sb.turn("t1", "hello").success();
    let after = sb.umbel(["status", "t1", "--json"]).json();
    let at = |key: &str| {
        after[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {after}"))
    };
    assert!(at("turnStartedAt") <= at("turnEndedAt"), "{after}");
    assert!(at("turnEndedAt") <= at("lastEventAt"), "{after}");
}
