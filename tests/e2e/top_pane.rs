//! `umbel top` running in a pane of a sandbox's private tmux server, driven through umbel's own
//! tmux adapter (tests never run tmux themselves): for the e2e test and the bench.
//!
//! This stays below [`crate::harness::Test`] on purpose: the live view needs a real terminal of a
//! known size, keys typed into it and its screen read back, and its exit status and terminal mode
//! seen after it quits. `Test` pipes stdio, so the pane's shell starts the `umbel` binary itself
//! with the sandbox's environment (`Sandbox::env`), and the test reads the pane through
//! `sandbox_tmux`. Everything else a top test runs (the fleet, `top --once`, a dumb terminal) goes
//! through `Test`.

use crate::harness::{Sandbox, sandbox_tmux};
use std::time::{Duration, Instant};
use umbel::adapters::tmux::Tmux;

/// The tmux session the view runs in (not a worker's: workers' sessions are `umbel-<name>`).
pub const VIEW: &str = "top-view";

/// `umbel top` in a pane of the sandbox's private server; the session is killed on drop.
pub struct TopPane {
    pub tmux: Tmux,
}

impl TopPane {
    /// Starts `umbel top` in a 120×30 pane; after it exits, the pane's shell prints its exit
    /// status and whether the terminal is back in canonical mode.
    pub fn start(sb: &Sandbox) -> TopPane {
        let tmux = sandbox_tmux(sb);
        let umbel = assert_cmd::cargo::cargo_bin("umbel");
        let mut env: Vec<String> = sb.env().iter().map(|(k, v)| format!("{k}={v}")).collect();
        env.push("TERM=xterm-256color".into());
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let script = format!(
            "env -i {} {} top; echo \"top exited $?\"; stty -a | grep -o -- '-*icanon'; sleep 600",
            env.iter().map(|e| quote(e)).collect::<Vec<_>>().join(" "),
            quote(&umbel.to_string_lossy()),
        );
        let args: Vec<String> = [
            "new-session",
            "-d",
            "-s",
            VIEW,
            "-x",
            "120",
            "-y",
            "30",
            "-c",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            sb.project.to_string_lossy().into_owned(),
            "sh".into(),
            "-c".into(),
            script,
        ])
        .collect();
        tmux.run(&args, None).expect("start the view's pane");
        TopPane { tmux }
    }

    pub fn screen(&self) -> String {
        self.tmux.capture(VIEW, false).unwrap_or_default()
    }

    /// The screen once `ready` holds (within 20 s); panics with the screen otherwise.
    pub fn until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not on screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn keys(&self, keys: &[&str]) {
        self.tmux.send_keys(VIEW, keys).expect("send keys");
    }

    /// `s` on the selected worker `name`: types `prompt` on the line it opens and sends it.
    pub fn send(&self, name: &str, prompt: &str) {
        self.keys(&["s"]);
        let line = format!("send to {name}:");
        self.until("the prompt line", |s| s.contains(&line));
        self.keys(&[prompt]);
        let typed = format!("{line} {prompt}");
        self.until("the typed prompt", |s| s.contains(&typed));
        self.keys(&["Enter"]);
    }

    /// The pid of the `umbel top` process (the child of the pane's shell).
    pub fn top_pid(&self) -> i32 {
        let shell = self.tmux.pane(VIEW).expect("pane").pid.expect("pid");
        let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
            .expect("the shell's children");
        let pid = children.split_whitespace().next().expect("umbel top");
        pid.parse().expect("a pid")
    }
}

impl Drop for TopPane {
    fn drop(&mut self) {
        let _ = self.tmux.kill_session(VIEW);
    }
}
