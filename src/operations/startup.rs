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
use crate::core::providers::{EventClass, StartupScreen, Version};
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
/// How long keys pressed on a dialog may take to show their effect (the cursor moved, the dialog
/// gone) before they are taken for lost and the screen is read afresh. The CLI redraws within
/// milliseconds when idle, seconds when the machine is loaded: pressing again before it did
/// would move a cursor twice (wrapping past the option) or confirm a stale choice.
const KEY_EFFECT: Duration = Duration::from_secs(5);
/// Pause between two looks at the screen while keys take effect.
const KEY_EFFECT_POLL: Duration = Duration::from_millis(10);
/// How often one dialog may be answered before umbel gives up on it.
const MAX_PRESSES: u32 = 6;
/// How long a dialog for a person must hold still before it is reported (a CLI may flash one
/// while it draws).
const PERSON_SETTLE: Duration = Duration::from_millis(1000);

/// How far a startup waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Until the CLI is ready for prompts.
    Ready,
    /// Only until its input line shows, when its release takes a prompt typed while it starts
    /// and holds it until it is ready
    /// ([`crate::core::providers::ProviderModule::takes_prompt_while_starting`]); else
    /// until ready. A one-shot `-p` types its prompt meanwhile.
    Typable,
}

/// How long, and how far, a startup waits.
#[derive(Debug, Clone, Copy)]
pub struct StartWait {
    pub timeout: Duration,
    pub readiness: Readiness,
}

impl StartWait {
    /// Until ready, at most `timeout`.
    pub fn ready(timeout: Duration) -> Self {
        StartWait {
            timeout,
            readiness: Readiness::Ready,
        }
    }
}

/// Waits until the worker is ready (or, for [`Readiness::Typable`], takes a prompt), or fails
/// with what the screen showed. `given_env` names the variables the user passed explicitly
/// (`--env`): their consent for dialogs that ask about them; `env` is the worker's whole
/// environment (a refusal's remedy may depend on it).
pub fn await_ready(
    ctx: &Ctx,
    name: &WorkerName,
    meta: &Meta,
    wait: StartWait,
    given_env: &[&str],
    env: &[(String, String)],
    from: usize,
) -> Result<()> {
    let session = &meta.tmux_session;
    let timeout = wait.timeout;
    let deadline = Instant::now() + timeout;
    let provider = meta.provider.module();
    let release = meta.cli_version.as_deref().and_then(Version::find);
    let typable =
        wait.readiness == Readiness::Typable && provider.takes_prompt_while_starting(release);
    let watch = FolderWatch::new(&ctx.state.events_dir(name))?;
    let mut startup = Startup {
        ctx,
        name,
        meta,
        given_env,
        presses: HashMap::new(),
        idle_since: None,
        person_since: None,
        hook_fired: false,
        from,
        typable,
    };
    loop {
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        let pane = ctx.tmux.pane(session)?;
        if pane.liveness != Liveness::Alive {
            return Err(died(ctx, name, meta, &pane.liveness, env));
        }
        let screen = ctx.tmux.capture(session, false)?;
        match startup.read(screen)? {
            Next::Ready => return Ok(()),
            Next::Again => continue,
            Next::Wait(screen) if Instant::now() >= deadline => {
                let detail = format!(
                    "it was not ready within {}",
                    humantime::format_duration(timeout)
                );
                return Err(failed(name, detail, Some(screen)));
            }
            Next::Wait(_) if startup.hook_fired => sleep(POLL_AFTER_HOOK),
            Next::Wait(_) => {
                watch.wait(POLL);
            }
        }
    }
}

/// What to do after one look at the screen.
enum Next {
    /// The worker is ready.
    Ready,
    /// Keys were pressed: look again at once.
    Again,
    /// Nothing to do yet (the screen looked at, kept for the timeout's evidence).
    Wait(String),
}

/// A startup in progress: the dialogs answered and the screens seen holding still.
struct Startup<'a> {
    ctx: &'a Ctx,
    name: &'a WorkerName,
    meta: &'a Meta,
    given_env: &'a [&'a str],
    presses: HashMap<&'static str, u32>,
    idle_since: Option<(Instant, String)>,
    person_since: Option<(Instant, String)>,
    /// Once the start hook has fired it stays fired: the log is read until then, not after.
    hook_fired: bool,
    /// The event-log position the CLI started at (a resumed worker's log holds the start hooks
    /// of the CLIs before it).
    from: usize,
    /// An empty input line is enough ([`Readiness::Typable`] on a CLI that holds the prompt).
    typable: bool,
}

impl Startup<'_> {
    /// Reads one screen: refuses sign-in, answers the dialogs umbel may answer, reports one for
    /// a person once it held still, and says whether the idle prompt means ready.
    fn read(&mut self, screen: String) -> Result<Next> {
        let (ctx, name, meta) = (self.ctx, self.name, self.meta);
        let provider = meta.provider.module();
        self.hook_fired = self.hook_fired
            || (provider.start_hook_at_launch() && started(ctx, name, meta, self.from)?);
        let found = provider.startup_screen(&screen);
        if !matches!(
            found,
            StartupScreen::Person(_) | StartupScreen::Consent { .. }
        ) {
            self.person_since = None;
        }
        match found {
            StartupScreen::SignIn(line) => {
                return Err(Error::SignIn {
                    provider: provider.name(),
                    bin: provider.default_bin().to_string(),
                    line,
                });
            }
            StartupScreen::Dialog { what, keys } => return self.answer(what, keys, &screen),
            StartupScreen::Consent { what, env, keys } if self.given_env.contains(&env) => {
                return self.answer(what, keys, &screen);
            }
            StartupScreen::Consent { what, env, .. } => {
                let hint = format!(
                    "It asks about {env}, which the worker inherited from umbel's environment: answer it once in `{}` yourself, or pass it explicitly with `--env {env}` so umbel may answer yes",
                    provider.default_bin()
                );
                self.report_when_still(what.to_string(), hint, &screen)?;
            }
            StartupScreen::Person(question) => {
                let hint = format!(
                    "Answer it in the worker's terminal (`umbel attach {name}`), or settle it once in `{}` yourself and spawn again",
                    provider.default_bin()
                );
                self.report_when_still(question, hint, &screen)?;
            }
            StartupScreen::Idle => {
                // The same idle screen must hold: a CLI can draw its prompt before a dialog.
                let since = held_since(&mut self.idle_since, &screen);
                if self.hook_fired
                    || provider.ready_on_screen(&screen)
                    || (self.typable && !provider.pending_input(&screen))
                    || since.elapsed() >= provider.idle_settle()
                {
                    return Ok(Next::Ready);
                }
            }
            StartupScreen::Other => self.idle_since = None,
        }
        Ok(Next::Wait(screen))
    }

    /// Presses a dialog's keys.
    fn answer(&mut self, what: &'static str, keys: &[&str], screen: &str) -> Result<Next> {
        self.idle_since = None;
        let provider = self.meta.provider.module();
        press(self.ctx, self.name, &mut self.presses, what, keys, screen)?;
        await_effect(self.ctx, self.name, screen, |now| {
            still_asks(&provider.startup_screen(now), what, keys)
        });
        Ok(Next::Again)
    }

    /// Reports a dialog for a person once it has held still for [`PERSON_SETTLE`].
    fn report_when_still(&mut self, what: String, hint: String, screen: &str) -> Result<()> {
        if held_since(&mut self.person_since, screen).elapsed() >= PERSON_SETTLE {
            return Err(person(self.name, self.meta, what, hint, screen.to_string()));
        }
        Ok(())
    }
}

/// The CLI ended (or its session vanished) before it was ready: why, and its last screen.
fn died(
    ctx: &Ctx,
    name: &WorkerName,
    meta: &Meta,
    liveness: &Liveness,
    env: &[(String, String)],
) -> Error {
    let session = &meta.tmux_session;
    let screen = ctx.tmux.capture(session, true).ok();
    let mut detail = match (ctx.state.read_exit(name), liveness) {
        (Some(exit), _) => format!("the CLI {} during startup", exit.describe()),
        (None, Liveness::Dead(exit)) => {
            format!("the CLI {} during startup", exit.describe())
        }
        _ => "its tmux session vanished during startup".to_string(),
    };
    if let Some(why) = screen
        .as_deref()
        .and_then(|s| meta.provider.module().refusal(s, env))
    {
        detail = format!("{detail}: {why}");
    }
    failed(name, detail, screen)
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
    Ok(())
}

/// Waits until keys pressed on `before` took effect — the screen changed and no longer asks
/// for the same keys (`still_asking`) — or [`KEY_EFFECT`] ran out (they were lost: the caller
/// reads the screen afresh and may press again).
fn await_effect(ctx: &Ctx, name: &WorkerName, before: &str, still_asking: impl Fn(&str) -> bool) {
    let session = name.tmux_session();
    let deadline = Instant::now() + KEY_EFFECT;
    while Instant::now() < deadline && !ctx.cancelled() {
        sleep(KEY_EFFECT_POLL);
        match ctx.tmux.capture(&session, false) {
            Ok(now) if now == before || still_asking(&now) => {}
            _ => return,
        }
    }
}

/// Whether a screen still asks for the answer `keys` to the dialog `what`.
fn still_asks(found: &StartupScreen, what: &str, keys: &[&str]) -> bool {
    match found {
        StartupScreen::Dialog { what: w, keys: k }
        | StartupScreen::Consent {
            what: w, keys: k, ..
        } => *w == what && *k == keys,
        _ => false,
    }
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

fn started(ctx: &Ctx, name: &WorkerName, meta: &Meta, from: usize) -> Result<bool> {
    let provider = meta.provider.module();
    Ok(ctx
        .state
        .read_log(name)?
        .iter()
        .skip(from)
        .any(|r| provider.class_of(&r.kind, None) == EventClass::Started))
}

fn failed(name: &WorkerName, detail: String, screen: Option<String>) -> Error {
    Error::StartupFailed {
        name: name.to_string(),
        detail,
        screen,
    }
}
