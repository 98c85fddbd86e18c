//! `umbel_diff` with `git: true` (docs/worktrees.md, docs/mcp.md): a worker spawned through MCP
//! with `worktree: true` edits a file in its worktree; the tool returns the change against the
//! base as `umbel diff --git --json` does (`stat: true`, the summary), and a worker without a
//! worktree is refused with `no_worktree`.

use super::client::*;
use crate::harness::*;
use crate::worktree::{repository, writes_notes};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn umbel_diff_git_returns_the_worktrees_change_and_its_stat() {
    let sb = Sandbox::new();
    repository(&sb);
    let mcp = Mcp::start(&sb).await;
    let edits = sb.scenario("edits", writes_notes("from mcp\n"));
    let spawn = json!({ "name": "wt", "cwd": sb.project, "env": [edits], "worktree": true });
    let meta = mcp.ok("umbel_spawn", spawn).await;
    assert_eq!(meta["worktree"]["branch"], "umbel/wt", "{meta}");
    mcp.turn("wt", "edit the notes").await;

    let diff = mcp
        .ok("umbel_diff", json!({ "name": "wt", "git": true }))
        .await;
    assert_eq!(diff["branch"], "umbel/wt", "{diff}");
    assert_eq!(
        diff["files"],
        json!([{ "path": "notes.txt", "added": 1, "deleted": 1 }])
    );
    let patch = diff["patch"].as_str().expect("patch");
    assert!(patch.contains("-base\n+from mcp\n"), "{patch}");
    let cli = sb.cmd("diff wt --git --json").success().json();
    assert_eq!(
        diff, cli,
        "the tool returns what `diff --git --json` prints"
    );

    let stat = json!({ "name": "wt", "git": true, "stat": true });
    let stat = mcp.ok("umbel_diff", stat).await;
    let summary = stat["patch"].as_str().expect("patch");
    assert!(summary.contains("notes.txt | 2 +-"), "{summary}");
    assert_eq!(stat["files"], diff["files"]);

    mcp.spawn(&sb, "plain", &[]).await;
    let e = mcp
        .err("umbel_diff", json!({ "name": "plain", "git": true }))
        .await;
    assert_eq!(code(&e), "no_worktree", "{e}");
    let e = mcp
        .err("umbel_diff", json!({ "name": "wt", "stat": true }))
        .await;
    assert_eq!(code(&e), "usage", "stat without git: {e}");
    mcp.client.cancel().await.expect("close");
}
