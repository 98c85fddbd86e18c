//! A name taken on the host by a worker this umbel did not start (another machine's umbel, or
//! someone on the host): `spawn --host` says so, naming the host and what to do, and records
//! nothing here.

use super::hosts::Net;
use crate::harness::*;

#[test]
fn a_name_taken_on_the_host_by_another_umbel_is_refused_naming_the_host_and_a_remedy() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let project = h1.project.to_string_lossy().into_owned();
    let scenario = h1.scenario("w", sim::reply("theirs"));
    // Another umbel (here: the host's own) started `w` there.
    let theirs = h1.run(&[
        "spawn", "--name", "w", "--cwd", &project, "--env", &scenario,
    ]);
    assert_success(&theirs, "spawn on the host");
    let out = net
        .local
        .run(&["spawn", "--host", "h1", "--name", "w", "--cwd", &project]);
    assert_ne!(out.status.code(), Some(0));
    let said = stderr(&out);
    for needed in [
        "on host `h1`",
        "worker `w` already exists",
        "not started from here",
        "pick another name",
        "ssh h1 umbel kill --purge w",
    ] {
        assert!(said.contains(needed), "missing {needed:?} in: {said}");
    }
    assert!(
        !net.local.state.join("remote/w.json").exists(),
        "no record here"
    );
    let there = h1.run(&["status", "w", "--json"]);
    assert_success(&there, "the host's worker is untouched");
}
