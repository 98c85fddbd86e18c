//! Load: 50 workers of mixed providers, 3 turns each, on one private tmux server. Every answer
//! must be its own worker's, none lost, and nothing may outlive `kill`.

use crate::harness::*;
use serde_json::json;

/// Spawns `count` workers (cycling through the providers) and runs `turns` turns on each, from
/// `threads` threads; returns the sandbox for inspection.
pub fn fleet(count: usize, turns: usize, threads: usize) -> Sandbox {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "default": { "delay_ms": 50 } }));
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (sb, scenario) = (&sb, &scenario);
            scope.spawn(move || {
                for i in (t..count).step_by(threads) {
                    let name = format!("w{i}");
                    let provider = PROVIDERS[i % PROVIDERS.len()];
                    sb.spawn(&name, &["--provider", provider, "--env", scenario]);
                    for turn in 0..turns {
                        let prompt = format!("{name} turn {turn}");
                        let sent = sb.umbel(["send", &name, &prompt]).success();
                        let pos = sent.line();
                        sb.umbel(["wait", &name, "--since", &pos, "--timeout", "120s"])
                            .success();
                        let answer = sb.umbel(["read", &name]).run().stdout();
                        assert_eq!(
                            answer,
                            format!("Response to: {prompt}\n"),
                            "{name} got another worker's answer"
                        );
                    }
                }
            });
        }
    });
    sb
}

#[test]
fn fifty_mixed_workers_three_turns_each_no_answer_lost_no_orphans() {
    let sb = fleet(50, 3, 4);
    let list = sb.ls();
    assert_eq!(list.len(), 50);
    assert!(list.iter().all(|w| w["state"] == "ready"), "{list:?}");
    assert!(
        worker_processes(&sb).len() >= 50,
        "the detector sees the live fleet"
    );
    sb.umbel(["kill", "--all"]).success();
    assert!(sb.ls().iter().all(|w| w["state"] == "dead"));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let survivors = worker_processes(&sb);
    assert!(survivors.is_empty(), "orphans after kill: {survivors:?}");
}

/// Command lines of the processes that carry this sandbox's UMBEL_STATE (every worker does),
/// and the sandbox's tmux server (it does not carry it) while it runs.
pub fn worker_processes(sb: &Sandbox) -> Vec<String> {
    let marker = format!("UMBEL_STATE={}", sb.state.display());
    let servers = sb
        .tmux_servers()
        .into_iter()
        .map(|pid| format!("tmux server (pid {pid})"));
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == marker.as_bytes()))
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| !c.is_empty())
        .chain(servers)
        .collect()
}
