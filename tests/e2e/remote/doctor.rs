//! `umbel doctor` asks every host this umbel has workers on for its own report: one line per
//! host here, a host that cannot be reached a failed check with the remedy.

use super::hosts::Net;
use crate::harness::*;

#[test]
fn doctor_checks_every_host_with_workers_and_names_the_one_it_cannot_reach() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario("w", sim::reply("hi"));
    let project = h1.project.to_string_lossy().into_owned();
    let spawn = [
        "spawn", "--host", "h1", "--name", "w", "--cwd", &project, "--env", &scenario,
    ];
    assert_success(&net.local.run(&spawn), "remote spawn");
    // A worker on a host where nothing listens (its record as `spawn --host` writes one).
    let lost = serde_json::json!({ "name": "lost", "host": "nowhere", "createdAt": 1 });
    std::fs::write(net.local.state.join("remote/lost.json"), lost.to_string()).expect("record");

    let out = net.local.umbel(["doctor", "--json"]).status(1);
    let report = out.json();
    let check = |name: &str| {
        report["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == name).cloned())
            .unwrap_or_else(|| panic!("no `{name}` check in {report}"))
    };
    let h1_check = check("host h1");
    assert_ne!(h1_check["level"], "fail", "{h1_check}");
    assert!(
        h1_check["detail"]
            .as_str()
            .unwrap_or("")
            .contains("answers over ssh"),
        "{h1_check}"
    );
    let nowhere = check("host nowhere");
    assert_eq!(nowhere["level"], "fail", "{nowhere}");
    assert!(
        nowhere["detail"].as_str().unwrap_or("").contains("nowhere"),
        "{nowhere}"
    );
    assert!(
        nowhere["fix"].as_str().is_some_and(|f| !f.is_empty()),
        "{nowhere}"
    );
    // The text report has the same lines.
    net.local
        .umbel(["doctor"])
        .stdout_has("host h1")
        .stdout_has("host nowhere")
        .status(1);
}
