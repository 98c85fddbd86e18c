//! `spawn --host HOST`: the host's umbel spawns the worker (the secrets it reads by name
//! travel in the request, never on an argv), then the local state records where it runs.

use super::super::Ctx;
use super::super::worker::now_ms;
use super::forward::{Request, forward};
use super::records;
use crate::adapters::ssh::Stdout;
use crate::core::args::SpawnArgs;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::remote::{RemoteRecord, check_host, forwarded_argv};
use crate::core::worker_env::EnvSpec;

/// The values the host's umbel reads by name for `--env NAME` (and `{fromEnv: …}`), taken
/// from this umbel's environment: they travel inside the request, never on an argv.
pub fn secrets(ctx: &Ctx, args: &SpawnArgs) -> Result<Vec<(String, String)>> {
    let mut env = Vec::new();
    for spec in &args.env {
        if let EnvSpec::FromEnv { source, .. } = spec {
            let value = ctx.var(source).ok_or_else(|| Error::EnvUnset {
                name: source.clone(),
            })?;
            env.push((source.clone(), value.to_string()));
        }
    }
    Ok(env)
}

/// What the host's umbel answered.
#[derive(Debug)]
pub struct Spawned {
    /// Its exit status (0: the worker is ready and recorded).
    pub code: u8,
    /// Its `spawn --json` output: the worker's meta, or `{"error": …}`.
    pub json: serde_json::Value,
}

/// Spawns on `host` the worker `typed` (the arguments after `umbel`, `--host` included)
/// describes; `args` is the same, parsed.
pub fn spawn(ctx: &Ctx, host: &str, args: &SpawnArgs, typed: &[String]) -> Result<Spawned> {
    check_host(host)?;
    if let Some(name) = &args.name {
        let name = WorkerName::parse(name)?;
        let local = ctx.state.session_dir(&name).exists();
        if local || records::find(ctx, name.as_str())?.is_some() {
            return Err(Error::Exists {
                name: name.as_str().to_string(),
                dead: false,
            });
        }
    }
    let mut argv = forwarded_argv(typed);
    // The local side reads the worker's name from the host's answer.
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    if !argv[..end].iter().any(|a| a == "--json") {
        argv.insert(1.min(argv.len()), "--json".to_string());
    }
    let request = Request {
        argv,
        env: secrets(ctx, args)?,
        ..Request::default()
    };
    let done = forward(ctx, host, request, Stdout::Capture)?;
    let json: serde_json::Value =
        serde_json::from_slice(&done.stdout).unwrap_or(serde_json::Value::Null);
    if done.code == 0 {
        let name = json["name"].as_str().ok_or_else(|| Error::RemoteUmbel {
            host: host.to_string(),
            detail: format!(
                "its `spawn --json` printed no worker name: {}",
                String::from_utf8_lossy(&done.stdout).trim()
            ),
        })?;
        records::save(
            ctx,
            &RemoteRecord {
                name: name.to_string(),
                host: host.to_string(),
                created_at: now_ms(),
            },
        )?;
    }
    Ok(Spawned {
        code: done.code,
        json,
    })
}
