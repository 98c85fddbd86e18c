//! Faults in umbel's own state: a `prune` racing spawns, a lost hook payload, a workflow run
//! resumed from its copy, a runner killed by a signal.

use crate::harness::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// `prune` from another terminal (or cron) never takes a worker whose spawn is still going:
/// its meta.json exists before its tmux session does.
#[test]
fn prune_in_a_loop_leaves_spawning_workers_alone() {
    let sb = Arc::new(Sandbox::new());
    let stop = Arc::new(AtomicBool::new(false));
    let pruner = {
        let (sb, stop) = (sb.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut rounds = 0;
            while !stop.load(Ordering::Relaxed) {
                let _ = sb.process(&["prune"]).output();
                rounds += 1;
            }
            rounds
        })
    };
    let names: Vec<String> = (1..=6).map(|n| format!("p{n}")).collect();
    let spawns: Vec<_> = names
        .iter()
        .map(|name| {
            sb.process(&["spawn", "--name", name])
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outputs: Vec<_> = spawns
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait spawn"))
        .collect();
    stop.store(true, Ordering::Relaxed);
    let rounds = pruner.join().expect("pruner");
    assert!(rounds > 0, "prune never ran");
    for (name, out) in names.iter().zip(&outputs) {
        assert_success(out, &format!("spawn {name} while prune ran"));
    }
    let ready = sb.ls().iter().filter(|w| w["state"] == "ready").count();
    assert_eq!(ready, names.len(), "{:?}", sb.ls());
}
