//! `status` for the whole fleet asks tmux twice, whatever the number of workers (the panes, then
//! the screens of the live ones, for dialogs no hook reports), and still tells each one's state
//! apart (alive, crashed with its status, killed).

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
