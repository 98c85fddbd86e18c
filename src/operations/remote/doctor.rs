//! `umbel doctor` on the hosts this umbel has workers on: each host's umbel is asked for its own
//! report over the shared connection, all hosts at once, and answers with one check line here —
//! a host that does not answer, lacks umbel or runs another version is a failed check with its
//! remedy; the host's own failures and warnings are named, for `ssh HOST umbel doctor`.

use super::super::Ctx;
use super::forward::{Request, at_once, forward};
use super::records;
use crate::adapters::ssh::{Ssh, Stdout};
use crate::core::doctor::Check;
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

/// What the host's doctor may take beyond the connection: each provider's `--version` starts
/// node (bounded at 10 s each there).
const HOST_DOCTOR: Duration = Duration::from_secs(35);

/// One check per host with a worker of this umbel's, in host order; none without such hosts.
pub fn host_checks(ctx: &Ctx) -> Vec<Check> {
    let hosts: BTreeSet<String> = records::list(ctx).into_iter().map(|r| r.host).collect();
    let bound = Ssh::from_env(ctx.state.path(), &ctx.env).connect_timeout() * 2 + HOST_DOCTOR;
    let hosts: Vec<String> = hosts.into_iter().collect();
    at_once(&hosts, |host| host_check(ctx, host, bound))
        .into_iter()
        .zip(&hosts)
        .map(|(checked, host)| {
            checked.unwrap_or_else(|| {
                Check::fail(&check_name(host), "the check panicked", "report this bug")
            })
        })
        .collect()
}

fn check_name(host: &str) -> String {
    format!("host {host}")
}

fn host_check(ctx: &Ctx, host: &str, bound: Duration) -> Check {
    let name = check_name(host);
    let request = Request {
        argv: vec!["doctor".into(), "--json".into()],
        bound: Some(bound),
        ..Request::default()
    };
    let done = match forward(ctx, host, request, Stdout::Quiet) {
        Ok(done) => done,
        Err(e) => return Check::fail(&name, e.to_string(), e.hint()),
    };
    let report: Value = serde_json::from_slice(&done.stdout).unwrap_or(Value::Null);
    let Some(checks) = report["checks"].as_array() else {
        let said = String::from_utf8_lossy(&done.stdout).trim().to_string();
        return Check::fail(
            &name,
            format!("its umbel answered `doctor` without a report: {said}"),
            format!("run `ssh {host} umbel doctor` and compare its version with this umbel's"),
        );
    };
    verdict(&name, host, checks)
}

/// The host's report as one line: every check ok, or the names of those that are not.
fn verdict(name: &str, host: &str, checks: &[Value]) -> Check {
    let named = |level: &str| -> Vec<&str> {
        checks
            .iter()
            .filter(|c| c["level"] == level)
            .filter_map(|c| c["name"].as_str())
            .collect()
    };
    let (failed, warned) = (named("fail"), named("warn"));
    let fix = format!("run `ssh {host} umbel doctor` for the details and what to do");
    match (failed.is_empty(), warned.is_empty()) {
        (true, true) => Check::ok(
            name,
            format!(
                "its umbel answers over ssh; all {} of its checks ok",
                checks.len()
            ),
        ),
        (true, false) => Check::warn(
            name,
            format!(
                "its umbel answers over ssh; warnings: {}",
                warned.join(", ")
            ),
            fix,
        ),
        (false, _) => Check::fail(
            name,
            format!(
                "its umbel answers over ssh; failed there: {}",
                failed.join(", ")
            ),
            fix,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::doctor::Level;
    use serde_json::json;

    #[test]
    fn a_host_s_report_is_one_line_naming_what_is_not_ok() {
        let report = |levels: &[(&str, &str)]| -> Vec<Value> {
            levels
                .iter()
                .map(|(name, level)| json!({ "name": name, "level": level }))
                .collect()
        };
        let ok = verdict("host b", "b", &report(&[("tmux", "ok"), ("claude", "ok")]));
        assert_eq!(ok.level, Level::Ok);
        assert!(
            ok.detail.contains("all 2 of its checks ok"),
            "{}",
            ok.detail
        );
        let warn = verdict("host b", "b", &report(&[("tmux", "ok"), ("codex", "warn")]));
        assert_eq!(warn.level, Level::Warn);
        assert!(warn.detail.ends_with("warnings: codex"), "{}", warn.detail);
        let fail = verdict(
            "host b",
            "b",
            &report(&[("tmux", "fail"), ("codex", "warn")]),
        );
        assert_eq!(fail.level, Level::Fail);
        assert!(
            fail.detail.ends_with("failed there: tmux"),
            "{}",
            fail.detail
        );
        assert!(
            fail.fix
                .as_deref()
                .is_some_and(|f| f.contains("ssh b umbel doctor"))
        );
    }
}
