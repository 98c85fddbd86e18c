//! The remote tier (`just test-remote`): workers on simulated hosts reached through OpenSSH's
//! real `sshd` on 127.0.0.1, driven by the real `umbel` on both sides. Skipped with a notice
//! where sshd is missing (`.ci/run` installs it).

mod clash;
mod conversation;
mod guards;
mod hosts;
mod outputs;
mod scenarios;
mod workflow;

/// stdout parsed as JSON.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}
