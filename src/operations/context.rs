//! What every verb needs: the state root, the private tmux server and umbel's environment,
//! resolved once from the environment the face hands in.

use crate::adapters::host::{absolute, is_executable, real_path};
use crate::adapters::state::StateRoot;
use crate::adapters::tmux::Tmux;
use crate::core::errors::{Error, Result};
use crate::core::socket::{check_override, socket_name};
use crate::core::turn_progress::TurnProgress;
use crate::core::worker_env::shell_quote;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The verbs' shared context.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub state: StateRoot,
    pub tmux: Tmux,
    /// umbel's own environment (what `--env NAME` and the allowlist read from).
    pub env: Vec<(String, String)>,
    /// Set when the caller wants long operations to stop (SIGINT, a cancelled MCP request).
    pub cancel: Arc<AtomicBool>,
    /// Where `wait` reports how the turn is going, for a face to draw; `None` (the default)
    /// reads nothing extra.
    pub progress: Option<ProgressSink>,
}

/// A face's progress callback (the engine never knows whether a terminal is behind it).
#[derive(Clone)]
pub struct ProgressSink(pub Arc<dyn Fn(&TurnProgress) + Send + Sync>);

impl ProgressSink {
    pub fn report(&self, progress: &TurnProgress) {
        (self.0)(progress)
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// umbel's own variables that find its tmux server and run it: see [`Ctx::own_vars`].
const OWN_VARS: [&str; 5] = ["UMBEL_TMUX_SOCKET", "TMUX_TMPDIR", "PATH", "HOME", "LANG"];

impl Ctx {
    /// Resolves the state root (`UMBEL_STATE`, else `~/.umbel`) and the socket
    /// (`UMBEL_TMUX_SOCKET`, else derived from the state root) from `env`.
    pub fn from_env(env: Vec<(String, String)>) -> Result<Self> {
        Self::from_env_creating(env, true)
    }

    /// As [`Ctx::from_env`], but a missing state root is left missing (`doctor` only looks).
    pub fn from_env_looking(env: Vec<(String, String)>) -> Result<Self> {
        Self::from_env_creating(env, false)
    }

    fn from_env_creating(env: Vec<(String, String)>, create: bool) -> Result<Self> {
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let root = match get("UMBEL_STATE").filter(|v| !v.is_empty()) {
            Some(dir) => Path::new(&dir).to_path_buf(),
            None => match get("HOME").filter(|v| !v.is_empty()) {
                Some(home) => PathBuf::from(home).join(".umbel"),
                None => {
                    return Err(Error::usage(
                        "neither UMBEL_STATE nor HOME is set, so umbel has no state folder",
                    ));
                }
            },
        };
        // One root, one spelling: the socket is derived from the path, and `~/.umbel/` or a
        // symlink to the root must not make a second one (nor a worker look dead).
        let state = match create {
            true => StateRoot::open(real_path(&root))?,
            false => StateRoot::at(real_path(&root)),
        };
        let socket = match get("UMBEL_TMUX_SOCKET").filter(|v| !v.is_empty()) {
            Some(name) => {
                check_override(&name).map_err(Error::usage)?;
                name
            }
            None => socket_name(state.path()),
        };
        let tmux = Tmux::new(socket, &env);
        load_prices(state.path());
        Ok(Ctx {
            state,
            tmux,
            env,
            cancel: Arc::new(AtomicBool::new(false)),
            progress: None,
        })
    }

    /// What an umbel started later by someone else (the tmux server's warm timer, a worker's
    /// permission hook) needs to find this state root and its tmux server, as `VAR=value` shell
    /// words: `UMBEL_STATE`, and [`OWN_VARS`] where umbel has them.
    pub fn own_vars(&self) -> Vec<String> {
        let state = self.state.path().to_string_lossy();
        let mut words = vec![format!("UMBEL_STATE={}", shell_quote(&state))];
        for var in OWN_VARS {
            if let Some(value) = self.var(var) {
                words.push(format!("{var}={}", shell_quote(value)));
            }
        }
        words
    }

    /// A variable of umbel's environment.
    pub fn var(&self, key: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Finds a program the way a shell would: a name with a `/` is a path (relative to `dir`),
    /// any other name is looked up on umbel's PATH. Only executable files count.
    pub fn find_program(&self, wanted: &str, dir: &Path) -> Option<PathBuf> {
        if wanted.contains('/') {
            let path = dir.join(wanted);
            return is_executable(&path).then(|| absolute(&path));
        }
        self.var("PATH")
            .unwrap_or("")
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| Path::new(d).join(wanted))
            .find(|p| is_executable(p))
    }

    /// This context with `progress` as its progress callback.
    pub fn with_progress(&self, progress: Option<ProgressSink>) -> Ctx {
        Ctx {
            progress,
            ..self.clone()
        }
    }

    /// This context with every tmux call bounded by `limit` as well.
    pub fn with_tmux_bound(&self, limit: std::time::Duration) -> Ctx {
        Ctx {
            tmux: self.tmux.bounded(limit),
            ..self.clone()
        }
    }

    /// This context with a stop flag of its own (clear), apart from the caller's.
    pub fn with_own_cancel(&self) -> Ctx {
        Ctx {
            cancel: Arc::new(AtomicBool::new(false)),
            ..self.clone()
        }
    }

    /// Whether the caller asked to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// The user's own list prices, `<state>/prices.json` (docs/budgets.md), read once per process:
/// a file that is not what it should be is noted, and refuses the dollar limits it would price.
fn load_prices(root: &Path) {
    let path = root.join(PRICES_FILE);
    let text = match crate::adapters::files::read_capped(&path, MAX_PRICES_BYTES) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| e.to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => Err(e.to_string()),
    };
    match text.and_then(|t| crate::core::prices::parse_overrides(&t)) {
        Ok(prices) => crate::core::prices::set_overrides(prices),
        Err(e) => crate::core::prices::set_problem(format!(
            "{}: {e} (a map of model prefixes to {{\"input\": N, \"output\": N}} dollars per million tokens)",
            path.display()
        )),
    }
}

/// The user's prices file, in the state root.
pub const PRICES_FILE: &str = "prices.json";
/// The most of it umbel reads.
const MAX_PRICES_BYTES: u64 = 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    use crate::core::test_data::env;

    #[test]
    fn socket_is_derived_from_the_state_root_unless_overridden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("s");
        let ctx = Ctx::from_env(env(&[("UMBEL_STATE", root.to_str().unwrap())])).unwrap();
        assert_eq!(ctx.tmux.socket(), socket_name(&root));
        let ctx = Ctx::from_env(env(&[
            ("UMBEL_STATE", root.to_str().unwrap()),
            ("UMBEL_TMUX_SOCKET", "mine"),
        ]))
        .unwrap();
        assert_eq!(ctx.tmux.socket(), "mine");
    }

    #[test]
    fn the_default_socket_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("s");
        let err = Ctx::from_env(env(&[
            ("UMBEL_STATE", root.to_str().unwrap()),
            ("UMBEL_TMUX_SOCKET", "default"),
        ]))
        .unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }
}
