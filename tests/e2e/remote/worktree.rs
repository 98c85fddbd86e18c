//! `spawn --host H --worktree` (docs/worktrees.md#other-hosts): the worktree is made on the host,
//! in the repository at `--cwd` there, and the verbs that read or end it — `diff --git` on the
//! command line and MCP's `umbel_diff` with `git: true`, `kill --purge` — reach it through the
//! host's umbel. Nothing is made on this machine.

use super::hosts::Net;
use crate::mcp::client::Mcp;
use crate::worktree::{git, repository, writes_notes};
use serde_json::json;

#[test]
fn a_remote_worker_gets_its_worktree_on_its_host_and_diff_and_purge_reach_it() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    repository(h1);
    let edits = h1.scenario("edits", writes_notes("from far\n"));
    let cwd = h1.project.to_str().expect("utf-8 path").to_string();
    net.local
        .umbel(["spawn", "--name", "far", "--host", "h1", "--cwd", &cwd])
        .args(["--env", &edits, "--worktree"])
        .success();
    let wt = h1.project.join(".umbel/worktrees/far");
    assert!(wt.is_dir(), "the worktree is on the host");
    assert!(!net.local.project.join(".umbel").exists(), "nothing here");
    net.local.turn_outcome("far", "edit the notes", 0);
    assert_eq!(
        std::fs::read_to_string(wt.join("notes.txt")).unwrap(),
        "from far\n"
    );
    assert_eq!(
        std::fs::read_to_string(h1.project.join("notes.txt")).unwrap(),
        "base\n",
        "the host's main checkout is untouched"
    );
    let diff = net.local.cmd("diff far --git --json").success().json();
    assert_eq!(diff["branch"], "umbel/far", "{diff}");
    assert!(
        diff["patch"].as_str().unwrap().contains("-base\n+from far"),
        "{diff}"
    );
    let status = net.local.cmd("status far --json").success().json();
    assert_eq!(status["worktree"]["changed"], 1, "{status}");

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mcp = Mcp::start(&net.local).await;
        let got = mcp
            .ok("umbel_diff", json!({ "name": "far", "git": true }))
            .await;
        assert_eq!(got, diff, "MCP returns what the host's umbel read");
        let stat = json!({ "name": "far", "git": true, "stat": true });
        let stat = mcp.ok("umbel_diff", stat).await;
        assert!(
            stat["patch"].as_str().unwrap().contains("notes.txt | 2 +-"),
            "{stat}"
        );
        mcp.client.cancel().await.expect("close");
    });

    // Dirty: a plain purge keeps it and says so; --discard removes it on the host.
    net.local
        .cmd("kill far --purge")
        .stderr_has("1 uncommitted change (notes.txt)")
        .success();
    assert!(wt.is_dir());
    net.local.cmd("kill far --purge --discard").success();
    assert!(!wt.exists());
    assert_eq!(
        git(
            &h1.project,
            &["branch", "--list", "--format=%(refname:short)"]
        ),
        "main\n"
    );
}
