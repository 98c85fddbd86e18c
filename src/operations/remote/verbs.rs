//! The verbs on a remote worker as values, for callers that need results rather than printed
//! output (workflows, the MCP tools, `spawn --host`): each runs the verb's `--json` form on the
//! host and reads it back; the host umbel's own errors come back as [`Error::Remote`].

use super::super::Ctx;
use super::super::worker::Answer;
use super::forward::{Request, forward};
use super::{guard, records};
use crate::adapters::host::now_ms;
use crate::adapters::ssh::Stdout;
use crate::core::args::{GuardArgs, SpawnArgs};
use crate::core::errors::{Error, Result};
use crate::core::meta::Meta;
use crate::core::name::WorkerName;
use crate::core::outcome::Outcome;
use crate::core::remote::{RemoteRecord, check_host, spawn_argv, wait_argv};
use crate::core::send_verdict::Sent;
use crate::core::until::Until;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Runs `request` on `host` and returns its JSON output (exit statuses other than 0 that
/// print a result, like `wait`'s outcomes, are results too).
pub(super) fn call(ctx: &Ctx, host: &str, request: Request) -> Result<Value> {
    let (mut values, said) = call_lines(ctx, host, request)?;
    match values.len() {
        1 => Ok(values.remove(0)),
        _ => Err(unexpected(host, "no JSON", &said)),
    }
}

/// [`call`] for a verb that prints JSON Lines (`logs --json`): every value, and what the host
/// printed.
pub(super) fn call_lines(ctx: &Ctx, host: &str, request: Request) -> Result<(Vec<Value>, Vec<u8>)> {
    let done = forward(ctx, host, request, Stdout::Quiet)?;
    let values: Vec<Value> = serde_json::Deserializer::from_slice(&done.stdout)
        .into_iter()
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| unexpected(host, "no JSON", &done.stdout))?;
    if let Some(error) = values.first().and_then(|v| v.get("error")) {
        return Err(Error::Remote {
            host: host.to_string(),
            code: error["code"].as_str().unwrap_or("remote").to_string(),
            message: error["message"].as_str().unwrap_or_default().to_string(),
            exit: done.code,
        });
    }
    Ok((values, done.stdout))
}

fn unexpected(host: &str, what: &str, said: &[u8]) -> Error {
    Error::RemoteUmbel {
        host: host.to_string(),
        detail: format!(
            "its umbel answered with {what}: {}",
            String::from_utf8_lossy(said).trim()
        ),
    }
}

pub(super) fn read_back<T: serde::de::DeserializeOwned>(host: &str, json: Value) -> Result<T> {
    let text = json.to_string();
    serde_json::from_value(json).map_err(|e| unexpected(host, &e.to_string(), text.as_bytes()))
}

/// The values the host's umbel reads by name for `--env NAME` (and `{fromEnv: …}`), taken
/// from this umbel's environment: they travel inside the request, never on an argv.
pub fn secrets(ctx: &Ctx, args: &SpawnArgs) -> Result<Vec<(String, String)>> {
    spawn_argv(args)
        .1
        .into_iter()
        .map(|(name, source)| match ctx.var(&source) {
            Some(value) => Ok((name, value.to_string())),
            None => Err(Error::EnvUnset { name: source }),
        })
        .collect()
}

/// `spawn` on `host`; records the worker here once it is ready there.
pub fn spawn(ctx: &Ctx, host: &str, args: &SpawnArgs) -> Result<Meta> {
    check_host(host)?;
    if let Some(name) = &args.name {
        let name = WorkerName::parse(name)?;
        if ctx.state.session_dir(&name).exists() || records::find(ctx, name.as_str())?.is_some() {
            return Err(Error::Exists {
                name: name.as_str().to_string(),
                dead: false,
            });
        }
    }
    let request = Request {
        argv: spawn_argv(args).0,
        env: secrets(ctx, args)?,
        ..Request::default()
    };
    let meta: Meta = match call(ctx, host, request) {
        Err(Error::Remote {
            code,
            message,
            exit,
            ..
        }) if code == "exists" => return Err(taken_there(host, &message, exit, args)),
        done => read_back(host, done?)?,
    };
    records::save(
        ctx,
        &RemoteRecord {
            name: meta.name.clone(),
            host: host.to_string(),
            created_at: now_ms(),
        },
    )?;
    Ok(meta)
}

/// The host has a worker of that name that this umbel did not start (no record here): it
/// can neither drive nor remove it from here, so the remedy is a name, or the host.
fn taken_there(host: &str, said: &str, exit: u8, args: &SpawnArgs) -> Error {
    let name = args.name.as_deref().unwrap_or("NAME");
    Error::Remote {
        host: host.to_string(),
        code: "exists".into(),
        message: format!(
            "{said}; it was not started from here (another machine's umbel, or someone on `{host}`, started it), so this umbel can neither drive nor remove it: pick another name, or, if that worker is yours to remove, `ssh {host} umbel kill --purge {name}`"
        ),
        exit,
    }
}

/// `send` (the prompt travels as the verb's stdin), its guardrails (paths relative to `dir`)
/// left with the host's umbel for the wait that follows; returns the host's verdict.
pub fn send(
    ctx: &Ctx,
    at: &RemoteRecord,
    prompt: &[u8],
    guard: &GuardArgs,
    queue: Option<Duration>,
    dir: &Path,
) -> Result<Sent> {
    let mut argv = vec!["send".into(), at.name.clone(), "-".into(), "--json".into()];
    argv.extend(guard::flags(guard, dir)?);
    if let Some(limit) = queue {
        argv.extend(["--queue".into(), "--queue-timeout".into()]);
        argv.push(format!("{}ms", limit.as_millis()));
    }
    let request = Request {
        argv,
        stdin: prompt.to_vec(),
        ..Request::default()
    };
    let json = call(ctx, &at.host, request)?;
    serde_json::from_value(json.clone())
        .map_err(|_| unexpected(&at.host, "no position", json.to_string().as_bytes()))
}

/// `wait`, event-driven on the host; cancelling `ctx` ends it there too. The host enforces
/// `guard` (paths relative to `dir`) when one is given, else the one its `send` got.
pub fn wait(
    ctx: &Ctx,
    at: &RemoteRecord,
    since: Option<usize>,
    until: &Until,
    guard: &GuardArgs,
    dir: &Path,
) -> Result<Outcome> {
    let mut argv = wait_argv(&at.name, since, until);
    argv.extend(guard::flags(guard, dir)?);
    let request = Request {
        argv,
        ..Request::default()
    };
    read_back(&at.host, call(ctx, &at.host, request)?)
}

/// One turn (a workflow step's): send with the step's guardrails (paths relative to `dir`),
/// wait until `until` says while the host enforces them, and the answer when it stopped.
pub fn turn(
    ctx: &Ctx,
    at: &RemoteRecord,
    prompt: &[u8],
    until: &Until,
    (guard, dir): (&GuardArgs, &Path),
) -> Result<(Outcome, Option<Answer>)> {
    let position = send(ctx, at, prompt, guard, Some(until.timeout), dir)?.position;
    let outcome = wait(ctx, at, Some(position), until, &GuardArgs::default(), dir)?;
    let answer = match outcome.outcome {
        crate::core::outcome::OutcomeKind::Stop => Some(answer(ctx, at)?),
        _ => None,
    };
    Ok((outcome, answer))
}

/// The last turn's answer.
pub fn answer(ctx: &Ctx, at: &RemoteRecord) -> Result<Answer> {
    let request = Request {
        argv: vec!["read".into(), at.name.clone(), "--json".into()],
        ..Request::default()
    };
    let json = call(ctx, &at.host, request)?;
    let text = |key: &str| json[key].as_str().unwrap_or_default().to_string();
    Ok(Answer {
        name: text("name"),
        provider: text("provider"),
        text: text("text"),
        source: if json["source"] == "hook" {
            "hook"
        } else {
            "transcript"
        },
        is_error: json["isError"].as_bool().unwrap_or(false),
        session_id: text("sessionId"),
        transcript_path: json["transcriptPath"].as_str().map(str::to_string),
        structured_output: json.get("structuredOutput").cloned(),
        interrupted: json["interrupted"].as_bool().unwrap_or(false),
        partial_text: json["partialText"].as_str().map(str::to_string),
    })
}

/// `kill` (`purge` also forgets the record).
pub fn kill(ctx: &Ctx, at: &RemoteRecord, purge: bool) -> Result<()> {
    let mut argv = vec!["kill".to_string(), at.name.clone()];
    if purge {
        argv.push("--purge".into());
    }
    let request = Request {
        argv,
        ..Request::default()
    };
    let done = forward(ctx, &at.host, request, Stdout::Quiet)?;
    if done.code != 0 {
        return Err(Error::Remote {
            host: at.host.clone(),
            code: "kill".into(),
            message: format!("`kill {}` failed there (exit {})", at.name, done.code),
            exit: done.code,
        });
    }
    if purge {
        records::remove(ctx, &at.name)?;
    }
    Ok(())
}
