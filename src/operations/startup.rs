//! Getting a freshly launched CLI to its idle prompt: refuse sign-in screens, answer the dialogs
//! the provider module recognises (explicitly, never with a blind Enter), and call the worker
//! ready only once its dialogs are over: the CLI's start hook fired and its idle prompt shows,
//! or (for a CLI whose start hook is late) the idle prompt held still for a while. A dialog whose
//! answer is the user's to give (or one umbel does not know) is reported as soon as it holds
//! still, never pressed through and never left to the startup timeout.

use super::Ctx;
use crate::adapters::watch::FolderWatch;
use crate::core::errors::{Error, Result};
use crate::core::meta::Meta;
use crate::core::name::WorkerName;
use crate::core::providers::{EventClass, StartupScreen};
use crate::core::wait::Liveness;
use std::collections::HashMap;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// The longest sleep between two looks at the screen; the start hook's log line wakes the loop
/// at once (folder watch), and so does any other hook.
const POLL: Duration = Duration::from_millis(40);
/// Between looks once the start hook fired and only the idle prompt is awaited: it is usually
/// drawn a few milliseconds after the hook.
const POLL_AFTER_HOOK: Duration = Duration::from_millis(3);
const AFTER_KEYS: Duration = Duration::from_millis(200);
/// How often one dialog may be answered before umbel gives up on it.
const MAX_PRESSES: u32 = 6;
/// How long a dialog for a person must hold still before it is reported (a CLI may flash one
/// while it draws).
const PERSON_SETTLE: Duration = Duration::from_millis(1000);

/// Waits until the worker is ready, or fails with what the screen showed. `given_env` names the
/// variables the user passed explicitly (`--env`): their consent for dialogs that ask about them.
pub fn await_ready(
    ctx: &Ctx,
    name: &WorkerName,
    meta: &Meta,
    timeout: Duration,
    given_env: &[&str],
) -> Result<()> {
    let provider = meta.provider.module();
    let session = &meta.tmux_session;
    let deadline = Instant::now() + timeout;
    let mut presses: HashMap<&'static str, u32> = HashMap::new();
    let mut idle_since: Option<(Instant, String)> = None;
    let mut person_since: Option<(Instant, String)> = None;
    let watch = FolderWatch::new(&ctx.state.events_dir(name))?;
    // Once the start hook has fired it stays fired: the log is read until then, not after.
    let mut hook_fired = false;
    loop {
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        let pane = ctx.tmux.pane(session)?;
        if pane.liveness != Liveness::Alive {
            let screen = ctx.tmux.capture(session, true).ok();
            let mut detail = match (ctx.state.read_exit(name), &pane.liveness) {
                (Some(exit), _) => format!("the CLI {} during startup", exit.describe()),
                (None, Liveness::Dead(exit)) => {
                    format!("the CLI {} during startup", exit.describe())
                }
                _ => "its tmux session vanished during startup".to_string(),
            };
            if let Some(why) = screen.as_deref().and_then(|s| provider.refusal(s)) {
                detail = format!("{detail}: {why}");
            }
            return Err(failed(name, detail, screen));
        }
        let screen = ctx.tmux.capture(session, false)?;
        hook_fired = hook_fired || (provider.start_hook_at_launch() && started(ctx, name, meta)?);
        let found = provider.startup_screen(&screen);
        if !matches!(
            found,
            StartupScreen::Person(_) | StartupScreen::Consent { .. }
        ) {
            person_since = None;
        }
        match found {
            StartupScreen::SignIn(line) => {
                return Err(Error::SignIn {
                    provider: provider.name(),
                    bin: provider.default_bin().to_string(),
                    line,
                });
            }
            StartupScreen::Dialog { what, keys } => {
                idle_since = None;
                press(ctx, name, &mut presses, what, keys, &screen)?;
                continue;
            }
            StartupScreen::Consent { what, env, keys } if given_env.contains(&env) => {
                idle_since = None;
                press(ctx, name, &mut presses, what, keys, &screen)?;
                continue;
            }
            StartupScreen::Consent { what, env, .. } => {
                let hint = format!(
                    "It asks about {env}, which the worker inherited from umbel's environment: answer it once in `{}` yourself, or pass it explicitly with `--env {env}` so umbel may answer yes",
                    provider.default_bin()
                );
                if held_since(&mut person_since, &screen).elapsed() >= PERSON_SETTLE {
                    return Err(person(name, meta, what.to_string(), hint, screen));
                }
            }
            StartupScreen::Person(question) => {
                let hint = format!(
                    "Answer it in the worker's terminal (`umbel attach {name}`), or settle it once in `{}` yourself and spawn again",
                    provider.default_bin()
                );
                if held_since(&mut person_since, &screen).elapsed() >= PERSON_SETTLE {
                    return Err(person(name, meta, question, hint, screen));
                }
            }
            StartupScreen::Idle => {
                // The same idle screen must hold: a CLI can draw its prompt before a dialog.
                let since = held_since(&mut idle_since, &screen);
                if hook_fired
                    || provider.ready_on_screen(&screen)
                    || since.elapsed() >= provider.idle_settle()
                {
                    return Ok(());
                }
            }
            StartupScreen::Other => idle_since = None,
        }
        if Instant::now() >= deadline {
            let detail = format!(
                "it was not ready within {}",
                humantime::format_duration(timeout)
            );
            return Err(failed(name, detail, Some(screen)));
        }
        if hook_fired {
            sleep(POLL_AFTER_HOOK);
        } else {
            watch.wait(POLL);
        }
    }
}

/// Answers a dialog umbel knows with `keys`, at most [`MAX_PRESSES`] times.
fn press(
    ctx: &Ctx,
    name: &WorkerName,
    presses: &mut HashMap<&'static str, u32>,
    what: &'static str,
    keys: &[&str],
    screen: &str,
) -> Result<()> {
    let count = presses.entry(what).or_insert(0);
    *count += 1;
    if *count > MAX_PRESSES {
        let detail = format!("the {what} dialog did not go away after {MAX_PRESSES} answers");
        return Err(failed(name, detail, Some(screen.to_string())));
    }
    ctx.tmux.send_keys(&name.tmux_session(), keys)?;
    sleep(AFTER_KEYS);
    Ok(())
}

/// Since when `screen` has been showing: the time kept in `slot` while the screen stays the
/// same, now (and kept) when it changed.
fn held_since(slot: &mut Option<(Instant, String)>, screen: &str) -> Instant {
    match slot {
        Some((at, seen)) if seen == screen => *at,
        _ => {
            let now = Instant::now();
            *slot = Some((now, screen.to_string()));
            now
        }
    }
}

fn person(name: &WorkerName, meta: &Meta, what: String, hint: String, screen: String) -> Error {
    Error::DialogOpen {
        name: name.to_string(),
        provider: meta.provider.as_str(),
        what,
        hint,
        screen: Some(screen),
    }
}

fn started(ctx: &Ctx, name: &WorkerName, meta: &Meta) -> Result<bool> {
    let provider = meta.provider.module();
    Ok(ctx
        .state
        .read_log(name)?
        .iter()
        .any(|r| provider.classify(&r.kind, None) == EventClass::Started))
}

fn failed(name: &WorkerName, detail: String, screen: Option<String>) -> Error {
    Error::StartupFailed {
        name: name.to_string(),
        detail,
        screen,
    }
}
