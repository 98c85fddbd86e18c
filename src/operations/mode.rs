//! `mode`: a worker's permission mode (or agent), read from its screen, and switched with the
//! CLI's own key (Shift+Tab; opencode's Tab) until its screen shows the one asked for. Only a
//! ready worker is switched: a key during a turn or a dialog would answer it.

use super::Ctx;
use super::screen_wait::await_screen;
use super::worker::Worker;
use crate::core::errors::{Error, Result};
use crate::core::providers::mode::{ModeCycle, ModeReport};
use crate::core::status::WorkerState;
use std::time::Duration;

/// How long the screen may take to show the next mode after a key.
const SHOWN_WITHIN: Duration = Duration::from_secs(3);

/// The worker's mode, switched to `wanted` first when one is given.
pub fn mode(ctx: &Ctx, worker: &Worker, wanted: Option<&str>) -> Result<ModeReport> {
    let cycle = cycle_of(worker)?;
    let mut now = shown(ctx, worker, cycle)?;
    let mut pressed = 0;
    if let Some(wanted) = wanted {
        let target = cycle
            .find(wanted)
            .ok_or_else(|| unknown(worker, cycle, wanted))?;
        if now != target {
            ready(ctx, worker)?;
        }
        while now != target {
            if pressed == cycle.modes.len() {
                return Err(never_shown(worker, target, pressed));
            }
            ctx.tmux.send_keys(worker.session(), &[cycle.key])?;
            pressed += 1;
            now = next_shown(ctx, worker, cycle, now)?;
        }
    }
    Ok(ModeReport {
        name: worker.name.to_string(),
        mode: now.to_string(),
        modes: cycle.ids().into_iter().map(str::to_string).collect(),
        pressed,
    })
}

fn cycle_of(worker: &Worker) -> Result<&'static ModeCycle> {
    let provider = worker.provider();
    provider.identity().modes.ok_or_else(|| {
        Error::usage(format!(
            "{} has no key that switches its permission mode: start the worker with --permission-mode",
            provider.name()
        ))
    })
}

/// The mode the worker's screen shows.
fn shown(ctx: &Ctx, worker: &Worker, cycle: &ModeCycle) -> Result<&'static str> {
    let screen = ctx.tmux.capture(worker.session(), false)?;
    cycle.on_screen(&screen).ok_or_else(|| Error::Busy {
        name: worker.name.to_string(),
        detail: "its screen shows no permission mode (a dialog over the prompt?); `umbel capture` shows it"
            .into(),
    })
}

/// The mode the screen shows once it is no longer `was`.
fn next_shown(
    ctx: &Ctx,
    worker: &Worker,
    cycle: &ModeCycle,
    was: &'static str,
) -> Result<&'static str> {
    let left = |screen: &str| cycle.on_screen(screen).is_some_and(|now| now != was);
    let what = format!("leave mode {was} after {}", cycle.key);
    let screen = await_screen(ctx, worker, SHOWN_WITHIN, &what, left)?;
    Ok(cycle.on_screen(&screen).unwrap_or(was))
}

/// A key during a turn or a dialog would answer it: only a ready worker is switched.
pub(super) fn ready(ctx: &Ctx, worker: &Worker) -> Result<()> {
    let (state, _) = super::send::state_now(ctx, worker)?;
    if state == WorkerState::Ready {
        return Ok(());
    }
    Err(Error::Busy {
        name: worker.name.to_string(),
        detail: format!(
            "it is {}: its mode is switched when it is ready",
            state.as_str()
        ),
    })
}

fn unknown(worker: &Worker, cycle: &ModeCycle, wanted: &str) -> Error {
    Error::usage(format!(
        "{} has no mode {wanted:?} its key switches to: its modes are {}",
        worker.provider().name(),
        cycle.ids().join(", ")
    ))
}

fn never_shown(worker: &Worker, target: &str, pressed: usize) -> Error {
    Error::Busy {
        name: worker.name.to_string(),
        detail: format!("its screen never showed mode {target} in {pressed} presses"),
    }
}
