//! The fake tool run the fakes share: nothing is ever executed.

use serde_json::Value;

/// A tool's output: for the CLI's shell tool (`shell`) running `echo …`, the
/// echoed words; for anything else, `ok`.
pub fn fake_output(shell: bool, input: &Value) -> String {
    let cmd = input.get("command").and_then(Value::as_str).unwrap_or("");
    match (shell, cmd.trim().strip_prefix("echo ")) {
        (true, Some(rest)) => rest.trim().trim_matches(['"', '\'']).to_string(),
        _ => "ok".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fake_output_echoes_and_never_runs_anything() {
        let out = |shell, cmd| fake_output(shell, &json!({ "command": cmd }));
        assert_eq!(out(true, "echo hi there"), "hi there");
        assert_eq!(out(true, "echo 'quoted'"), "quoted");
        assert_eq!(out(true, "rm -rf /"), "ok");
        assert_eq!(out(false, "echo hi"), "ok");
        assert_eq!(fake_output(true, &json!({"file_path": "/x"})), "ok");
    }
}
