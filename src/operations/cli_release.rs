//! Which release of its CLI a worker runs: learnt once per installed binary (from the CLI's own
//! npm `package.json`, else its `--version`) and cached in the state root, then judged against the
//! provider's supported window: an older release is refused before anything starts, with the
//! upgrade command, instead of failing on a flag it lacks.

use super::Ctx;
use crate::adapters::cli_versions;
use crate::adapters::exec::{Finished, Program, RunError, Watch, run_program};
use crate::core::errors::{Error, Result};
use crate::core::providers::{ProviderModule, Support, Version};
use std::path::Path;
use std::time::Duration;

/// How long a CLI's `--version` may take (codex and gemini start node; gemini takes seconds on a
/// busy machine).
pub const VERSION_BOUND: Duration = Duration::from_secs(20);

/// The release `bin` is, learnt once per binary: the cache, else the CLI's own `package.json`
/// above the resolved binary, else `<bin> --version` run with `env` (its whole environment).
/// `None` when none of them tells.
pub fn learn(
    ctx: &Ctx,
    provider: &dyn ProviderModule,
    bin: &Path,
    env: &[(String, String)],
) -> Option<Version> {
    let binary = cli_versions::identify(bin)?;
    if let Some(known) = cli_versions::cached(ctx.state.path(), &binary) {
        return Version::find(&known);
    }
    let version = provider
        .releases()
        .in_packages(&cli_versions::package_files(&binary.path))
        .or_else(|| by_flag(bin, env))?;
    // Only a cache: a state root that cannot be written to is no reason to fail.
    let _ = cli_versions::remember(ctx.state.path(), &binary, &version.to_string());
    Some(version)
}

/// What `<bin> --version` prints, within [`VERSION_BOUND`].
fn by_flag(bin: &Path, env: &[(String, String)]) -> Option<Version> {
    let done = run_version(bin, env).ok()?;
    done.status
        .success()
        .then(|| Version::find(&String::from_utf8_lossy(&done.stdout)))
        .flatten()
}

/// Runs `<bin> --version` with `env` (its whole environment), within [`VERSION_BOUND`]; doctor
/// runs it too, to say why no release could be learnt.
pub fn run_version(bin: &Path, env: &[(String, String)]) -> Result<Finished, RunError> {
    let program = Program {
        argv: vec![bin.to_string_lossy().into_owned(), "--version".into()],
        dir: None,
        env: env.to_vec(),
        clear_env: true,
    };
    run_program(&program, None, VERSION_BOUND, Watch::default())
}

/// Refuses a release older than the provider's window.
pub fn require_supported(provider: &dyn ProviderModule, release: Option<Version>) -> Result<()> {
    let releases = provider.releases();
    match (releases.support(release), release) {
        (Support::TooOld, Some(version)) => Err(Error::UnsupportedRelease {
            provider: provider.name(),
            version: version.to_string(),
            oldest: releases.oldest.to_string(),
            upgrade: releases.upgrade_command(),
        }),
        _ => Ok(()),
    }
}
