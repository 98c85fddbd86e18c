//! copilot's own hook format for a permission decision (recorded on 1.0.102 and 1.0.82,
//! issue 42): `{"hooks":{"permissionRequest":[{"type":"command","bash":"…","timeoutSec":30}]}}`
//! in `settings.json` (beside the Claude-format entries). The command gets the
//! `permissionRequest` payload on stdin; what it prints decides the tool before copilot's rules
//! and its dialog: `{"behavior":"allow"}` runs it, `{"behavior":"deny","message":…}` refuses it
//! (the turn goes on), nothing leaves it to copilot.

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::hooks::{HookCommand, Runner, wait_until};

/// What a decision hook said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run the tool without asking.
    Allow,
    /// Refuse it, with what the model is told.
    Deny(String),
}

/// The `permissionRequest` commands of one settings object, in order (another shape: none).
pub fn commands(doc: &Value, default_timeout: Duration) -> Vec<HookCommand> {
    let entries = doc["hooks"]["permissionRequest"].as_array();
    entries
        .into_iter()
        .flatten()
        .filter(|e| e["type"].as_str().unwrap_or("command") == "command")
        .filter_map(|e| {
            let timeout = e["timeoutSec"]
                .as_f64()
                .filter(|t| *t > 0.0)
                .map_or(default_timeout, Duration::from_secs_f64);
            let command = e["bash"].as_str()?.to_string();
            Some(HookCommand { command, timeout })
        })
        .collect()
}

/// Runs the commands one by one with `payload` on stdin; the first that decides wins.
pub fn decide(commands: &[HookCommand], cwd: &str, payload: &str) -> Option<Decision> {
    commands
        .iter()
        .find_map(|hook| parse(&run(hook, cwd, payload)?))
}

/// A decision from what a hook printed.
fn parse(out: &str) -> Option<Decision> {
    let v: Value = serde_json::from_str(out.trim()).ok()?;
    match v["behavior"].as_str()? {
        "allow" => Some(Decision::Allow),
        "deny" => Some(Decision::Deny(
            v["message"]
                .as_str()
                .unwrap_or("Permission denied by hook.")
                .to_string(),
        )),
        _ => None,
    }
}

/// One command's stdout, or `None` when it failed to start, failed or ran out of time.
fn run(hook: &HookCommand, cwd: &str, payload: &str) -> Option<String> {
    let runner = Runner::new(cwd.into(), Vec::new());
    let mut child = runner.start(&hook.command, payload, true).ok()?;
    let mut stdout = child.stdout.take()?;
    // A thread, so a hook that prints much cannot block on a full pipe.
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let status = wait_until(&mut child, Instant::now() + hook.timeout)?;
    let out = reader.join().ok()?;
    status.success().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hook(command: &str) -> HookCommand {
        HookCommand {
            command: command.into(),
            timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn only_copilots_own_entries_are_decision_hooks() {
        let doc = json!({ "hooks": {
            "permissionRequest": [ { "type": "command", "bash": "a", "timeoutSec": 2 }, { "x": 1 } ],
            "PermissionRequest": [ { "hooks": [ { "type": "command", "command": "b" } ] } ]
        } });
        let found = commands(&doc, Duration::from_secs(30));
        assert_eq!(
            found,
            [HookCommand {
                command: "a".into(),
                timeout: Duration::from_secs(2)
            }]
        );
    }

    #[test]
    fn what_a_hook_prints_decides() {
        let dir = std::env::temp_dir();
        let cwd = dir.to_str().unwrap();
        let allow = hook(r#"cat >/dev/null; echo '{"behavior":"allow"}'"#);
        assert_eq!(decide(&[allow], cwd, "{}"), Some(Decision::Allow));
        let deny =
            hook(r#"case "$(cat)" in *bash*) echo '{"behavior":"deny","message":"no"}';; esac"#);
        assert_eq!(
            decide(std::slice::from_ref(&deny), cwd, r#"{"toolName":"bash"}"#),
            Some(Decision::Deny("no".into()))
        );
        assert_eq!(decide(&[deny], cwd, r#"{"toolName":"view"}"#), None);
        assert_eq!(decide(&[hook("echo nonsense; exit 0")], cwd, ""), None);
        assert_eq!(
            decide(&[hook(r#"echo '{"behavior":"allow"}'; exit 1"#)], cwd, ""),
            None
        );
    }
}
