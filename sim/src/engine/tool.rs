//! The fake tool run the fakes share: nothing is ever executed.

use serde_json::Value;
use std::collections::HashMap;

/// A tool's output. For the CLI's shell tool (`shell`), what a shell would print for the
/// `echo` and `cat` steps of its command (`;`/`&&`-separated): `echo …` prints its words,
/// `echo … > FILE` prints nothing (the file gets them), `cat FILE` prints what an earlier step
/// wrote there; a command with no such step prints `ok`. For anything else, `ok`.
pub fn fake_output(shell: bool, input: &Value) -> String {
    let cmd = input.get("command").and_then(Value::as_str).unwrap_or("");
    if !shell {
        return "ok".to_string();
    }
    let mut files: HashMap<&str, String> = HashMap::new();
    let (mut printed, mut understood) = (Vec::new(), false);
    for step in cmd
        .split([';', '\n'])
        .flat_map(|s| s.split("&&"))
        .map(str::trim)
    {
        if let Some(words) = step.strip_prefix("echo ") {
            understood = true;
            match words.split_once('>') {
                Some((words, file)) => {
                    files.insert(file.trim(), unquoted(words));
                }
                None => printed.push(unquoted(words)),
            }
        } else if let Some(file) = step.strip_prefix("cat ") {
            understood = true;
            printed.extend(files.get(file.trim()).cloned());
        }
    }
    match understood {
        true => printed.join("\n"),
        false => "ok".to_string(),
    }
}

fn unquoted(words: &str) -> String {
    words.trim().trim_matches(['"', '\'']).to_string()
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

    #[test]
    fn a_redirect_prints_nothing_and_cat_prints_what_it_wrote() {
        let out = |cmd| fake_output(true, &json!({ "command": cmd }));
        assert_eq!(out("echo hi > out.txt"), "");
        assert_eq!(out("echo ran > f.txt; cat f.txt"), "ran");
        assert_eq!(out("echo a && echo b"), "a\nb");
    }
}
