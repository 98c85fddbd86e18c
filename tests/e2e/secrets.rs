//! A worker's environment never travels on a command line, never lands on disk, and holds only
//! the allowlist, the provider's named variables and what was passed explicitly.

use crate::harness::*;
use std::path::Path;

const CANARY: &str = "canary-s3cr3t-7f1e2d";

/// The environment of the live process whose command line contains `needle`.
fn environ_of(needle: &str) -> Option<Vec<String>> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let dir = entry.path();
        let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let program = cmdline.split(' ').next().unwrap_or("");
        if program.ends_with("fake-claude") && cmdline.contains(needle) {
            let env = std::fs::read(dir.join("environ")).ok()?;
            return Some(
                env.split(|b| *b == 0)
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .collect(),
            );
        }
    }
    None
}

fn cmdlines_with(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy() != me)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(needle))
        .collect()
}

fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return hits;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            hits.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        {
            hits.push(path.display().to_string());
        }
    }
    hits
}

#[test]
fn a_secret_passed_by_name_reaches_the_worker_and_nothing_else() {
    let mut sb = Sandbox::new();
    sb.var("MY_TOKEN", CANARY)
        .var("CLAUDECODE", "1")
        .var("CLAUDE_CODE_ENTRYPOINT", "cli")
        .var("CLAUDE_CODE_CHILD_SESSION", "1")
        .var("AWS_SECRET_ACCESS_KEY", "aws-should-not-leak");
    let spawn = sb
        .umbel([
            "spawn",
            "--name",
            "sec",
            "--env",
            "MY_TOKEN",
            "--env",
            "PLAIN=visible",
            "--env",
            "EQ=a=b=c",
            "--env",
            "NL=line1\nline2 'q'",
        ])
        .start();
    // While spawn runs and after: no command line anywhere holds the value.
    let mut seen = Vec::new();
    for _ in 0..20 {
        seen.extend(cmdlines_with(CANARY));
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = spawn.success();
    seen.extend(cmdlines_with(CANARY));
    assert!(seen.is_empty(), "secret on a command line: {seen:?}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains(CANARY)
            && !String::from_utf8_lossy(&out.stderr).contains(CANARY),
        "umbel printed the secret"
    );
    // Nor does tmux's environment, global or the worker's session's (asked through umbel's own
    // tmux adapter on the private socket: tests never run tmux themselves).
    let socket = umbel::core::socket::socket_name(&sb.state);
    let private = umbel::adapters::tmux::Tmux::new(socket, &sb.env());
    for target in [vec!["-g"], vec!["-t", "umbel-sec"]] {
        let mut args = vec!["show-environment".to_string()];
        args.extend(target.iter().map(|a| a.to_string()));
        let shown = private.run(&args, None).expect("show-environment");
        let shown = String::from_utf8_lossy(&shown);
        assert!(!shown.is_empty(), "{target:?}: tmux answered");
        assert!(
            !shown.contains(CANARY),
            "the secret is in tmux's environment ({target:?})"
        );
    }
    // The server process's own environment, likewise.
    let servers = sb.tmux_servers();
    assert!(!servers.is_empty(), "found the private tmux server");
    for pid in servers {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&environ).contains(CANARY),
            "the secret is in the tmux server's environment"
        );
    }

    let meta = std::fs::read_to_string(sb.session_dir("sec").join("meta.json")).unwrap();
    let session_id = serde_json::from_str::<serde_json::Value>(&meta).unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let env = environ_of(&session_id).expect("the worker process");
    assert!(
        env.contains(&format!("MY_TOKEN={CANARY}")),
        "the secret reaches the worker: {env:?}"
    );
    assert!(env.contains(&"PLAIN=visible".to_string()));
    assert!(
        env.contains(&"EQ=a=b=c".to_string()),
        "`=` in a value survives: {env:?}"
    );
    assert!(
        env.contains(&"NL=line1\nline2 'q'".to_string()),
        "newlines and quotes survive"
    );
    for banned in [
        "CLAUDECODE=",
        "CLAUDE_CODE_ENTRYPOINT=",
        "CLAUDE_CODE_CHILD_SESSION=",
        "AWS_SECRET_ACCESS_KEY=",
    ] {
        assert!(
            !env.iter().any(|v| v.starts_with(banned)),
            "{banned} leaked into the worker: {env:?}"
        );
    }
    assert!(
        files_containing(&sb.state, CANARY).is_empty(),
        "secret written under the state root"
    );
    sb.turn("sec", "hello").success();
    assert!(files_containing(&sb.state, CANARY).is_empty());
}

#[test]
fn the_default_tmux_server_is_never_touched() {
    let sb = Sandbox::new();
    // A canary session on the *default* socket of this sandbox's TMUX_TMPDIR, started through
    // umbel's own tmux adapter (tests never run tmux themselves).
    let env: Vec<(String, String)> = vec![
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        (
            "TMUX_TMPDIR".into(),
            sb.root.join("t").to_string_lossy().into_owned(),
        ),
    ];
    let default = umbel::adapters::tmux::Tmux::new("default".into(), &env);
    let argv = ["sleep".to_string(), "600".to_string()];
    default
        .new_session("canary", &sb.project, "canary-env", b"", &argv)
        .expect("canary session");
    let before = default.panes().expect("canary panes");
    assert_eq!(before.keys().collect::<Vec<_>>(), ["canary"]);

    sb.spawn("w", &[]);
    sb.turn("w", "hi").success();
    sb.umbel(["kill", "w", "--purge"]).success();

    let after = default.panes().expect("canary still answers");
    assert_eq!(
        after, before,
        "the default server is untouched: same sessions, same pane"
    );
    default.kill_session("canary").expect("clean up the canary");
}

/// A literal `--env K=V` value is kept (0600, in launch.json) only while the worker may be
/// resumed: `kill` leaves a tombstone without it (issue 45 item 11).
#[test]
fn a_literal_env_value_does_not_outlive_kill() {
    let sb = Sandbox::new();
    let value = "literal-s3cr3t-4b9e";
    sb.spawn("lv", &["--env", &format!("LITERAL_TOKEN={value}")]);
    let folder = sb.session_dir("lv");
    assert_eq!(
        files_containing(&folder, value),
        vec![folder.join("launch.json").display().to_string()],
        "kept for a resume, in launch.json only"
    );
    sb.umbel(["kill", "lv"]).success();
    assert!(folder.exists(), "the tombstone stays");
    assert_eq!(files_containing(&folder, value), Vec::<String>::new());
}
