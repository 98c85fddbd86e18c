use super::*;

#[test]
fn client_env_is_minimal() {
    let env = vec![
        ("PATH".to_string(), "/bin".to_string()),
        ("LC_ALL".to_string(), "C".to_string()),
        ("SECRET".to_string(), "x".to_string()),
        ("TMUX".to_string(), "/tmp/tmux-0/default,1,0".to_string()),
    ];
    let t = Tmux::new("umbel-x".into(), &env);
    let names: Vec<&str> = t.client_env.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["PATH", "LC_ALL"]);
    let cmd = t.command(&["list-sessions".to_string()]);
    let args: Vec<_> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        args,
        ["-u", "-L", "umbel-x", "-f", "/dev/null", "list-sessions"]
    );
}

#[test]
fn trailing_semicolons_are_escaped() {
    assert_eq!(escape_separator("a;"), "a\\;");
    assert_eq!(escape_separator("a;b"), "a;b");
    assert_eq!(escape_separator(";"), "\\;");
}

#[test]
fn pane_lines_parse_dead_and_alive() {
    let panes =
        parse_panes("umbel-a\t0\t\t\t10\t\numbel-b\t1\t3\t\t11\t1796241899\numbel-c\t1\t\t9\t12\n");
    assert_eq!(panes["umbel-a"].liveness, Liveness::Alive);
    assert_eq!(panes["umbel-a"].pid, Some(10));
    assert_eq!(panes["umbel-a"].died_at_ms, None);
    assert_eq!(panes["umbel-b"].died_at_ms, Some(1_796_241_899_000));
    assert_eq!(
        panes["umbel-b"].liveness,
        Liveness::Dead(ExitStatus {
            exit_code: Some(3),
            signal: None
        })
    );
    assert_eq!(
        panes["umbel-c"].liveness,
        Liveness::Dead(ExitStatus {
            exit_code: None,
            signal: Some(9)
        })
    );
}

#[test]
fn missing_server_errors_are_recognised() {
    let e = Error::Tmux {
        command: "x".into(),
        message: "no server running on /tmp/x".into(),
    };
    assert!(not_there(&e));
    let e = Error::Tmux {
        command: "list-panes".into(),
        message: "server exited unexpectedly".into(),
    };
    assert!(
        not_there(&e),
        "a server exiting under the client has no panes either"
    );
    let e = Error::Tmux {
        command: "x".into(),
        message: "something else".into(),
    };
    assert!(!not_there(&e));
}
