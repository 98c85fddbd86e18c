//! What a new user gets for the first things they type: a mistyped verb names the verb they
//! meant, bare `umbel` prints the short help, each with exit 2 and nothing on stdout.

use crate::harness::*;

fn stderr_of(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout {:?}", out.stdout);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_mistyped_verb_gets_did_you_mean() {
    let sb = Sandbox::new();
    let err = stderr_of(&sb, &["spwan", "w"]);
    assert!(
        err.starts_with("umbel: unknown command 'spwan'; did you mean 'spawn'?\n"),
        "{err}"
    );
    let err = stderr_of(&sb, &["stauts"]);
    assert!(
        err.starts_with("umbel: unknown command 'stauts'; did you mean 'status'?\n"),
        "{err}"
    );
    // A word near no verb lists them, and says a prompt needs -p.
    let err = stderr_of(&sb, &["summarise"]);
    assert!(err.contains("the commands are spawn, send"), "{err}");
    assert!(err.contains("a prompt needs `-p`"), "{err}");
}

#[test]
fn bare_umbel_prints_the_short_help() {
    let sb = Sandbox::new();
    let err = stderr_of(&sb, &[]);
    assert!(err.contains("Usage: umbel <COMMAND>"), "{err}");
    assert!(err.contains("\n  spawn "), "{err}");
    assert!(err.contains("`umbel --help`"), "{err}");
    assert!(
        !err.contains("--startup-timeout"),
        "short, not the full help: {err}"
    );
    assert!(
        !sb.state.join("sessions").exists(),
        "no state root is made for it"
    );
}

#[test]
fn run_dash_reads_the_workflow_from_stdin() {
    let sb = Sandbox::new();
    let yaml = "workers:\n  a: {}\nsteps:\n  - {id: s, worker: a, prompt: hi}\n";
    let record = sb
        .umbel(["run", "--json", "-"])
        .env("UMBEL_PROGRESS", "plain")
        .stdin(yaml)
        .success()
        .json();
    assert_eq!(record["status"], "completed", "{record}");
    assert_eq!(record["file"], "<stdin>");
    // A problem names standard input, at its line and column.
    let broken = yaml.replace("worker: a", "worker: b");
    sb.umbel(["run", "--check", "-"])
        .stdin(broken)
        .stderr_has("umbel: <stdin>:4:21: step `s`: unknown worker `b`")
        .status(2);
}

#[test]
fn help_lists_the_environment_umbel_reads() {
    let sb = Sandbox::new();
    let out = sb.run(&["--help"]);
    assert_success(&out, "--help");
    let help = stdout(&out);
    for var in [
        "UMBEL_STATE",
        "UMBEL_TMUX_SOCKET",
        "UMBEL_CLAUDE_BIN",
        "UMBEL_CODEX_BIN",
        "UMBEL_GEMINI_BIN",
        "UMBEL_PROGRESS",
        "NO_COLOR",
        "TERM=dumb",
        "TMUX_TMPDIR",
    ] {
        assert!(help.contains(var), "--help does not name {var}");
    }
}

#[test]
fn parse_errors_speak_in_umbels_voice() {
    let sb = Sandbox::new();
    let out = sb.run(&["read", "w", "--turn", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("umbel: invalid value 'x' for '--turn <N>': not a whole number"),
        "{err}"
    );
    sb.spawn("d1", &[]);
    let out = sb.run(&["wait", "d1", "--since", "0", "--timeout", "5x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("`x` is not a unit: use ms, s, m, h or d"),
        "{err}"
    );
    sb.run(&["kill", "--all", "--purge"]);
}

/// Bash's answer for the words so far (the last one being completed), through the script
/// `umbel completions bash` prints, in the sandbox's environment.
fn bash_completes(sb: &Sandbox, words: &[&str]) -> Vec<String> {
    let script = sb.root.join("umbel.bash");
    std::fs::write(&script, stdout(&sb.run(&["completions", "bash"]))).expect("write");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let probe = format!(
        "source {}; COMP_WORDS=({}); COMP_CWORD={}; COMP_TYPE=9; \
         _clap_complete_umbel umbel '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &probe])
        .env_clear()
        .envs(sb.env())
        .current_dir(&sb.project)
        .output()
        .expect("bash");
    assert_success(&out, "bash completion");
    stdout(&out)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn completion_knows_worker_names_and_workflow_files() {
    let sb = Sandbox::new();
    sb.spawn("alpha", &[]);
    sb.spawn("beta", &[]);
    assert_eq!(bash_completes(&sb, &["umbel", "send", "al"]), ["alpha"]);
    let names: Vec<String> = bash_completes(&sb, &["umbel", "kill", ""])
        .into_iter()
        .filter(|c| !c.starts_with('-'))
        .collect();
    assert_eq!(names, ["alpha", "beta"]);
    // spawn names a new worker: no existing names offered.
    assert!(bash_completes(&sb, &["umbel", "spawn", "--name", "al"]).is_empty());
    std::fs::write(sb.project.join("review.yaml"), "").expect("yaml");
    std::fs::write(sb.project.join("notes.txt"), "").expect("txt");
    let files = bash_completes(&sb, &["umbel", "run", ""]);
    assert!(files.contains(&"review.yaml".to_string()), "{files:?}");
    assert!(!files.contains(&"notes.txt".to_string()), "{files:?}");
    sb.run(&["kill", "--all", "--purge"]);
}
