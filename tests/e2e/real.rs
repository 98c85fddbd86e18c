//! The offline tier's world: the real claude, codex, gemini, qwen, opencode and copilot (pinned npm releases, installed by
//! `scripts/realclis.sh`, found through `UMBEL_REAL_CLIS`) signed in with fake keys against one
//! `fake-model` per sandbox, which plays the sandbox's scenarios. Homes are prepared the way a
//! signed-in user's would be; the project is a git repository (codex asks for trust only there);
//! the trust dialogs are left for umbel to answer.

use crate::harness::{Sandbox, fake, processes_under};
use serde_json::{Value, json};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ANTHROPIC_KEY: &str = "sk-ant-api03-umbelfake-Q7w9Zr2Xk4Lm8Np3Tv6Yb1Hc5";

/// Where `scripts/realclis.sh` put the real binaries.
fn clis() -> PathBuf {
    let dir = std::env::var_os("UMBEL_REAL_CLIS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "UMBEL_REAL_CLIS is not set: run `just smoke-offline` (it installs the real CLIs)"
            )
        });
    assert!(
        dir.join("claude").exists(),
        "no real CLIs in {}",
        dir.display()
    );
    dir
}

/// The file the sandbox's model server plays.
fn scenario_file(sb: &Sandbox) -> PathBuf {
    sb.root.join("model-scenario.json")
}

/// The real tier's sends that pressed Enter more than twice (issue 33: at most two, counted):
/// the state root's tally (`sends.jsonl`), which every delivered prompt adds to.
pub fn enters_over_two(state: &Path) -> Vec<umbel::core::send_tally::SendRecord> {
    umbel::adapters::send_tally::read(state)
        .into_iter()
        .filter(|s| s.enters > umbel::core::send_tally::HEALTHY_ENTERS)
        .collect()
}

/// A sandbox whose CLIs are the real ones (from `UMBEL_REAL_CLIS`), talking to a fresh
/// `fake-model`.
pub fn sandbox() -> Sandbox {
    sandbox_with(&clis())
}

/// [`sandbox`] with the real CLIs in `bins` (the benches find them on their own).
pub fn sandbox_with(bins: &Path) -> Sandbox {
    let mut sb = Sandbox::bare();
    git(&sb.project, &["init", "-q"]);
    git(
        &sb.project,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ],
    );
    std::fs::write(scenario_file(&sb), "{}").expect("write scenario");
    let mut model = Command::new(fake("fake-model"))
        .args(["--port", "0", "--lifetime", "900", "--scenario"])
        .arg(scenario_file(&sb))
        .arg("--log")
        .arg(sb.root.join("model-requests.jsonl"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("start fake-model");
    let mut line = String::new();
    std::io::BufReader::new(model.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("fake-model prints its port");
    let url = format!("http://127.0.0.1:{}", line.trim());
    sb.model = Some(model);
    homes(&sb.home, &url);
    opencode_home(&sb.home, bins, &url);
    copilot_cache(&sb.home, bins);
    for (provider, var) in [
        ("claude", "UMBEL_CLAUDE_BIN"),
        ("codex", "UMBEL_CODEX_BIN"),
        ("gemini", "UMBEL_GEMINI_BIN"),
        ("qwen", "UMBEL_QWEN_BIN"),
        ("opencode", "UMBEL_OPENCODE_BIN"),
        ("copilot", "UMBEL_COPILOT_BIN"),
    ] {
        sb.var(var, &bins.join(provider).to_string_lossy());
    }
    let path = format!(
        "{}:{}",
        bins.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    sb.var("PATH", &path);
    sb.var("ANTHROPIC_BASE_URL", &url);
    sb.var("ANTHROPIC_API_KEY", ANTHROPIC_KEY);
    sb.var("OPENAI_API_KEY", "sk-umbelfake-openai-Jd3Rt8Wq2Zx6Kp9M");
    sb.var("GEMINI_API_KEY", "umbelfake-gemini-Fh5Ls2Vn7Bq4Xc8");
    sb.var("GOOGLE_GEMINI_BASE_URL", &url);
    // qwen: Chat Completions, with the same fake key as codex.
    sb.var("OPENAI_BASE_URL", &format!("{url}/v1"));
    sb.var("OPENAI_MODEL", "qwen-fake");
    sb.var("IS_SANDBOX", "1");
    // opencode: offline, its model catalogue is the one it ships.
    sb.var("OPENCODE_DISABLE_MODELS_FETCH", "1");
    // copilot: BYOK, Chat Completions, nothing asked of GitHub.
    sb.var("COPILOT_PROVIDER_BASE_URL", &format!("{url}/v1"));
    sb.var(
        "COPILOT_PROVIDER_API_KEY",
        "sk-umbelfake-copilot-Wm4Tq8Zp2Lx7",
    );
    sb.var("COPILOT_MODEL", "gpt-fake");
    sb.var("COPILOT_OFFLINE", "true");
    sb
}

/// copilot's unpacked package, shared: a fresh HOME's first start unpacks ~235 MB into
/// `~/.cache/copilot` (`realclis.sh` unpacked it once, `copilot-cache`).
fn copilot_cache(home: &Path, bins: &Path) {
    let cache = bins.join("copilot-cache");
    if cache.exists() {
        std::fs::create_dir_all(home.join(".cache")).expect("mkdir");
        std::os::unix::fs::symlink(cache, home.join(".cache/copilot"))
            .expect("link copilot's cache");
    }
}

/// opencode's config as a signed-in user's who ran it once online: the Messages API provider
/// pointed at the model server, tools that write asking first (as the other CLIs here do), and
/// the plugin SDK opencode installs into its config folder on first start (`realclis.sh` put
/// one in `opencode-config`): without it opencode waits for that install, offline for ever,
/// before it loads umbel's plugin and draws its TUI.
fn opencode_home(home: &Path, bins: &Path, url: &str) {
    let config = home.join(".config/opencode");
    write_json(
        &config.join("opencode.json"),
        &json!({
            "provider": { "anthropic": { "options": { "baseURL": format!("{url}/v1"), "apiKey": ANTHROPIC_KEY } } },
            "model": "anthropic/claude-sonnet-4-5",
            "autoupdate": false,
            "share": "disabled",
            "permission": { "bash": "ask", "edit": "ask" }
        }),
    );
    let sdk = bins.join("opencode-config");
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(sdk.join(file), config.join(file)).expect("copy opencode's plugin SDK");
    }
    std::os::unix::fs::symlink(sdk.join("node_modules"), config.join("node_modules"))
        .expect("link opencode's plugin SDK");
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git");
    assert!(ok.success(), "git {args:?}");
}

fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, serde_json::to_string_pretty(value).expect("json")).expect("write");
}

/// A signed-in home for each CLI, as a user who ran each once would have.
fn homes(home: &Path, url: &str) {
    let key_tail = &ANTHROPIC_KEY[ANTHROPIC_KEY.len() - 20..];
    write_json(
        &home.join(".claude.json"),
        &json!({
            "hasCompletedOnboarding": true, "theme": "dark", "lastReleaseNotesSeen": "2.1.332",
            "hasSeenAutoDefaultNotice": true,
            "customApiKeyResponses": { "approved": [key_tail], "rejected": [] },
            "autoModeClassifierBillingNoticeAcknowledgedAt": 1796281822326u64
        }),
    );
    write_json(
        &home.join(".claude/settings.json"),
        &json!({ "env": { "DISABLE_AUTOUPDATER": "1" } }),
    );
    let config = format!(
        "model = \"gpt-fake\"\nmodel_provider = \"umbelfake\"\ncheck_for_update_on_startup = false\n\n\
         [model_providers.umbelfake]\nname = \"umbel fake model server\"\nbase_url = \"{url}/v1\"\n\
         env_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\nstream_max_retries = 1\nrequest_max_retries = 1\n"
    );
    std::fs::create_dir_all(home.join(".codex")).expect("mkdir");
    std::fs::write(home.join(".codex/config.toml"), config).expect("write config.toml");
    write_json(
        &home.join(".gemini/settings.json"),
        &json!({
            "security": { "auth": { "selectedType": "gemini-api-key" } },
            "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
            "privacy": { "usageStatisticsEnabled": false }
        }),
    );
    // qwen's default `auto` approval mode asks its model (a classifier) about each tool:
    // `default` asks the person, as the other CLIs here do.
    write_json(
        &home.join(".qwen/settings.json"),
        &json!({
            "tools": { "approvalMode": "default" },
            "general": { "enableAutoUpdate": false },
            "privacy": { "usageStatisticsEnabled": false }
        }),
    );
}

/// Hands `scenario` to the sandbox's model server (it reads the file again when it changes).
pub fn play(sb: &Sandbox, scenario: &Value) {
    // A new modification time even within one clock tick: the length changes too.
    let before = std::fs::read_to_string(scenario_file(sb)).unwrap_or_default();
    let mut text = scenario.to_string();
    while text.len() == before.len() {
        text.push(' ');
    }
    std::fs::write(scenario_file(sb), text).expect("write model scenario");
}

/// Ends whatever still runs with a HOME in the sandbox (TERM, then KILL): a safety net after
/// `umbel kill --all`, which the tests check on their own.
pub fn reap(root: &Path) {
    use rustix::process::{Pid, Signal, kill_process};
    for signal in [Signal::TERM, Signal::KILL] {
        let left = processes_under(root);
        if left.is_empty() {
            return;
        }
        for pid in left.into_iter().filter_map(Pid::from_raw) {
            let _ = kill_process(pid, signal);
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
}

/// The real CLI's own print mode in the sandbox (the offline tier and `just bench real`): `claude -p`,
/// `codex exec`, `gemini -p`, `qwen PROMPT`, `opencode run`, `copilot -p` with `flags`, the prompt,
/// and `stdin` piped.
pub fn print_mode(
    sb: &Sandbox,
    provider: &str,
    flags: &[&str],
    prompt: &str,
    stdin: &str,
) -> std::process::Output {
    let var = format!("UMBEL_{}_BIN", provider.to_uppercase());
    let bin = sb
        .env()
        .into_iter()
        .find_map(|(k, v)| (k == var).then_some(v))
        .expect("the real tier names each CLI");
    let mut cmd = assert_cmd::Command::new(bin);
    cmd.env_clear().envs(sb.env()).current_dir(&sb.project);
    match provider {
        "claude" => cmd.arg("-p").args(flags).arg(prompt),
        "codex" => cmd
            .args(["exec", "--skip-git-repo-check"])
            .args(flags)
            .arg(prompt),
        "qwen" => cmd.args(flags).arg(prompt),
        "opencode" => cmd.arg("run").args(flags).arg(prompt),
        "copilot" => cmd.args(flags).args(["-p", prompt]),
        _ => cmd.arg("--skip-trust").args(flags).args(["-p", prompt]),
    };
    cmd.write_stdin(stdin.to_string())
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("run the real CLI")
}
