//! Real-CLI smoke tests: for each of claude, codex and gemini, spawn → send → wait → read → kill
//! and `-p`, on the real binary, with your real sign-in (this spends subscription budget).
//!
//! Gated twice: the three tests are `#[ignore]`d, so `cargo test`/`nextest` list them as skipped
//! rather than passed, and `just smoke` runs them (`--ignored`) only with `UMBEL_SMOKE=1`;
//! without it each prints `SKIPPED: set UMBEL_SMOKE=1` and spends nothing. `UMBEL_SMOKE_PROVIDERS=claude,codex` picks providers
//! (default all three). A picked provider whose binary is missing fails with
//! `claude: not found on PATH (set UMBEL_CLAUDE_BIN)`, never a silent pass.
//!
//! Each run has its own state root and tmux socket folder (never the default socket, never your
//! `~/.umbel`) and kills what it spawned. The same flow also runs on the fake CLIs in every test
//! run (`smoke_flow_on_the_fakes`), so the smoke code itself cannot rot unnoticed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What the smoke tests will do in this environment.
#[derive(Debug, PartialEq)]
enum Plan {
    /// Not asked for: say so, pass.
    Skip(String),
    /// Run the provider with this binary.
    Run(PathBuf),
    /// Asked for, but the binary is not there: fail with this message.
    Missing(String),
    /// Asked for, but this provider was not picked.
    NotPicked,
}

/// The plan for `provider` given the environment `var` reads.
fn plan(provider: &str, var: &dyn Fn(&str) -> Option<String>) -> Plan {
    if var("UMBEL_SMOKE").as_deref() != Some("1") {
        return Plan::Skip(format!(
            "SKIPPED: set UMBEL_SMOKE=1 to run the {provider} smoke test on the real CLI (`just smoke`)"
        ));
    }
    if let Some(picked) = var("UMBEL_SMOKE_PROVIDERS").filter(|v| !v.trim().is_empty())
        && !picked.split(',').any(|p| p.trim() == provider)
    {
        return Plan::NotPicked;
    }
    let env_var = format!("UMBEL_{}_BIN", provider.to_uppercase());
    let missing = |wanted: &str| {
        Plan::Missing(format!(
            "{provider}: `{wanted}` not found on PATH (set {env_var}); \
             or leave {provider} out with UMBEL_SMOKE_PROVIDERS"
        ))
    };
    match var(&env_var).filter(|v| !v.is_empty()) {
        Some(path) if path.contains('/') => match executable(Path::new(&path)) {
            true => Plan::Run(PathBuf::from(path)),
            false => missing(&path),
        },
        named => {
            let wanted = named.unwrap_or_else(|| provider.to_string());
            var("PATH")
                .unwrap_or_default()
                .split(':')
                .filter(|d| !d.is_empty())
                .map(|d| Path::new(d).join(&wanted))
                .find(|p| executable(p))
                .map_or_else(|| missing(&wanted), Plan::Run)
        }
    }
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A private world for one flow: state root, tmux folder, project folder; kills its workers
/// when dropped.
struct World {
    _dir: tempfile::TempDir,
    project: PathBuf,
    vars: Vec<(String, String)>,
}

impl World {
    /// `base` is the environment umbel runs with (yours for real CLIs, a clean one for fakes).
    fn new(base: Vec<(String, String)>) -> World {
        let dir = tempfile::Builder::new()
            .prefix("usmk")
            .tempdir_in("/tmp")
            .expect("tempdir");
        let mk = |name: &str| {
            let p = dir.path().join(name);
            std::fs::create_dir_all(&p).expect("mkdir");
            p.canonicalize().expect("canonicalize")
        };
        let (project, tmux, state) = (mk("project"), mk("t"), dir.path().join("state"));
        let mut vars: Vec<(String, String)> = base
            .into_iter()
            .filter(|(k, _)| !matches!(k.as_str(), "UMBEL_STATE" | "UMBEL_TMUX_SOCKET" | "TMUX"))
            .collect();
        vars.push(("UMBEL_STATE".into(), state.to_string_lossy().into_owned()));
        vars.push(("TMUX_TMPDIR".into(), tmux.to_string_lossy().into_owned()));
        World {
            _dir: dir,
            project,
            vars,
        }
    }

    fn umbel(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_umbel"))
            .env_clear()
            .envs(self.vars.iter().cloned())
            .current_dir(&self.project)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run umbel")
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.umbel(&["kill", "--all", "--purge"]);
    }
}

fn check(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

const MARK: &str = "UMBEL-SMOKE-OK";

/// spawn → send → wait → read → kill, then `-p`, on `provider` run from `bin`.
fn flow(provider: &str, bin: &Path, base: Vec<(String, String)>) {
    let mut world = World::new(base);
    let env_var = format!("UMBEL_{}_BIN", provider.to_uppercase());
    world.vars.retain(|(k, _)| *k != env_var);
    world
        .vars
        .push((env_var, bin.to_string_lossy().into_owned()));
    let prompt = format!("Reply with exactly this word and nothing else: {MARK}");
    let name = format!("smk-{provider}");

    let spawned = world.umbel(&["spawn", "--name", &name, "--provider", provider]);
    check(&spawned, &format!("{provider}: spawn"));
    let position = check(&world.umbel(&["send", &name, &prompt]), "send");
    let waited = world.umbel(&["wait", &name, "--since", position.trim(), "--timeout", "5m"]);
    assert_eq!(check(&waited, "wait").trim(), "stop", "{provider}: wait");
    let answer = check(&world.umbel(&["read", &name]), "read");
    assert!(answer.contains(MARK), "{provider}: read gave {answer:?}");
    check(&world.umbel(&["kill", &name, "--purge"]), "kill");
    let status = world.umbel(&["status", &name]);
    assert!(!status.status.success(), "{provider}: the worker is gone");

    let printed = world.umbel(&["-p", &prompt, "--provider", provider, "--timeout", "5m"]);
    let printed = check(&printed, &format!("{provider}: -p"));
    assert!(printed.contains(MARK), "{provider}: -p gave {printed:?}");
}

fn smoke(provider: &str) {
    let var = |k: &str| std::env::var(k).ok();
    match plan(provider, &var) {
        Plan::Skip(notice) => eprintln!("{notice}"),
        Plan::NotPicked => eprintln!("{provider}: not in UMBEL_SMOKE_PROVIDERS, not run"),
        Plan::Missing(message) => panic!("{message}"),
        Plan::Run(bin) => {
            eprintln!("{provider}: smoke test on {}", bin.display());
            flow(provider, &bin, std::env::vars().collect());
        }
    }
}

#[test]
#[ignore = "the real claude, spending your subscription: UMBEL_SMOKE=1 just smoke"]
fn smoke_claude() {
    smoke("claude");
}

#[test]
#[ignore = "the real codex, spending your subscription: UMBEL_SMOKE=1 just smoke"]
fn smoke_codex() {
    smoke("codex");
}

#[test]
#[ignore = "the real gemini, spending your subscription: UMBEL_SMOKE=1 just smoke"]
fn smoke_gemini() {
    smoke("gemini");
}

#[cfg(test)]
mod gating {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn without_umbel_smoke_every_provider_is_skipped_with_a_notice() {
        let plan = plan("claude", &env(&[("PATH", "/usr/bin")]));
        let Plan::Skip(notice) = plan else {
            panic!("{plan:?}")
        };
        assert!(notice.starts_with("SKIPPED: set UMBEL_SMOKE=1"), "{notice}");
        assert!(matches!(
            plan_of("codex", &[("UMBEL_SMOKE", "0")]),
            Plan::Skip(_)
        ));
    }

    fn plan_of(provider: &str, pairs: &[(&str, &str)]) -> Plan {
        plan(provider, &env(pairs))
    }

    #[test]
    fn a_missing_binary_is_a_failure_that_says_what_to_set() {
        let empty = tempfile::tempdir().expect("tempdir");
        let path = empty.path().to_string_lossy().into_owned();
        let plan = plan_of("claude", &[("UMBEL_SMOKE", "1"), ("PATH", &path)]);
        let Plan::Missing(message) = plan else {
            panic!("{plan:?}")
        };
        assert!(
            message.starts_with("claude: `claude` not found on PATH (set UMBEL_CLAUDE_BIN)"),
            "{message}"
        );
        let plan = plan_of(
            "gemini",
            &[
                ("UMBEL_SMOKE", "1"),
                ("UMBEL_GEMINI_BIN", "/nonexistent/gemini"),
            ],
        );
        assert!(
            matches!(&plan, Plan::Missing(m) if m.contains("/nonexistent/gemini")),
            "{plan:?}"
        );
    }

    #[test]
    fn binaries_are_found_like_spawn_finds_them_and_providers_can_be_picked() {
        let fake = assert_cmd::cargo::cargo_bin("fake-codex");
        let dir = fake.parent().expect("dir").to_string_lossy().into_owned();
        let by_path = plan_of(
            "codex",
            &[
                ("UMBEL_SMOKE", "1"),
                ("PATH", &dir),
                ("UMBEL_CODEX_BIN", "fake-codex"),
            ],
        );
        assert_eq!(by_path, Plan::Run(fake.clone()));
        let picked = [
            ("UMBEL_SMOKE", "1"),
            ("UMBEL_SMOKE_PROVIDERS", "claude, gemini"),
        ];
        assert_eq!(plan_of("codex", &picked), Plan::NotPicked);
        assert!(matches!(plan_of("claude", &picked), Plan::Missing(_)));
    }

    /// The flow itself, on the fakes: proves the smoke code works without a real CLI.
    #[test]
    fn smoke_flow_on_the_fakes() {
        for provider in ["claude", "codex", "gemini"] {
            let home = tempfile::tempdir().expect("home");
            let claude = serde_json::json!({ "hasCompletedOnboarding": true, "theme": "dark" });
            std::fs::write(home.path().join(".claude.json"), claude.to_string()).expect("write");
            let base = vec![
                (
                    "PATH".to_string(),
                    std::env::var("PATH").unwrap_or_default(),
                ),
                (
                    "HOME".to_string(),
                    home.path().to_string_lossy().into_owned(),
                ),
                ("LANG".to_string(), "C.UTF-8".to_string()),
                ("GEMINI_API_KEY".to_string(), "fake-key".to_string()),
            ];
            let fake = assert_cmd::cargo::cargo_bin(format!("fake-{provider}"));
            assert!(
                fake.exists(),
                "build the fakes first: cargo build -p sim --bins"
            );
            flow(provider, &fake, base);
        }
    }
}
