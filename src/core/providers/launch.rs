//! What a launch takes and makes ([`LaunchInput`], [`LaunchSpec`]), and the helpers the
//! providers' launches share: a variable of the worker's environment, a CLI's arguments
//! without some options.

use super::*;

/// What umbel knows when it builds a launch.
#[derive(Debug, Clone)]
pub struct LaunchInput<'a> {
    /// The worker's session folder under the state root.
    pub session_dir: &'a Path,
    /// The shell command that records one hook event; the event name is appended as one more
    /// argument (e.g. `sh '/s/hooks/event.sh' '/s/sessions/w/events'`).
    pub hook_command: &'a str,
    /// The provider session id umbel chose for this worker.
    pub session_id: &'a str,
    /// `--model`, if given.
    pub model: Option<&'a str>,
    /// What a tool needing approval does (`--on-permission`; `allow` is `--unattended`).
    pub on_permission: OnPermission,
    /// The passthrough flags given ([`flags`]), already checked against the provider's table.
    pub flags: &'a [flags::Given],
    /// The raw `--` tail, passed to the CLI untouched after everything else.
    pub cli_args: &'a [String],
    /// The working directory (resolved).
    pub cwd: &'a Path,
    /// The worker's composed environment (to locate config folders).
    pub env: &'a [(String, String)],
    /// The user's own configuration files the provider asked for ([`ProviderModule::user_files`])
    /// that exist, with their content.
    pub user_files: &'a [(PathBuf, String)],
    /// The CLI's release, when umbel learnt it ([`Releases::has`] takes an unknown one as the
    /// newest tested).
    pub release: Option<Version>,
}

/// What the engine must do to launch the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// Arguments after the binary.
    pub args: Vec<String>,
    /// Files to write before launch (path, content). Paths are inside the session folder.
    pub files: Vec<(PathBuf, String)>,
    /// Where the transcript will be, when it can be known in advance.
    pub transcript_path: Option<PathBuf>,
    /// Symbolic links to create (link, target) — made only when the target exists.
    pub links: Vec<(PathBuf, PathBuf)>,
    /// Variables the launch itself sets (e.g. the managed config home); they win over all others.
    pub env: Vec<(String, String)>,
}

/// The value of `key` in a worker environment.
pub fn env_get<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
    env.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// Links in `into` to each of `names` in the user's folder `user` (when it is known): what a
/// worker's own config home takes from the user's (made only where the target exists).
pub fn linked(user: Option<PathBuf>, into: &Path, names: &[&str]) -> Vec<(PathBuf, PathBuf)> {
    user.map(|user| {
        names
            .iter()
            .map(|name| (into.join(name), user.join(name)))
            .collect()
    })
    .unwrap_or_default()
}

/// `args` without the options in `valued` (and the value after each) and the switches in
/// `switches`: what a resume or fork replaces of a recorded launch.
pub fn without_options(args: &[String], valued: &[&str], switches: &[&str]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip = false;
    for arg in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if valued.contains(&arg.as_str()) {
            skip = true;
        } else if !switches.contains(&arg.as_str()) {
            kept.push(arg.clone());
        }
    }
    kept
}
