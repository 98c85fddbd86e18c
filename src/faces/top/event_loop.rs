//! `umbel top`'s event loop. Threads feed one channel: the terminal's keys; a loader that
//! looks at the fleet whenever inotify says a worker's folder changed (a slow safety net
//! catches what no file records, such as a pane killed behind umbel's back); and the verbs a
//! key started in the background (send, kill), when they are done. The
//! main thread sleeps on that channel, applies keys and looks, and redraws — when something
//! arrived, and once a second while a turn's age is on screen. Nothing polls the state.
//!
//! The terminal is restored on every way out: return, error, panic (ratatui's hook) and
//! SIGTERM/SIGHUP/SIGINT (the face's handlers set `ctx.cancel`, checked every [`TICK`]).

use super::actions;
use super::keys::{Effect, on_key};
use super::model::{Mode, View};
use super::render::draw;
use crate::adapters::fleet_watch::FleetWatch;
use crate::adapters::host::now_ms;
use crate::core::args::GuardArgs;
use crate::core::errors::{Error, Result};
use crate::core::fleet::Shown;
use crate::core::name::WorkerName;
use crate::operations::fleet::{Fleet, FleetRow};
use crate::operations::{Ctx, remote};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyEvent};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often the main thread and the key reader look at the cancel flag and the pause gate.
const TICK: Duration = Duration::from_millis(250);

/// The loader's safety net: a look even when no folder changed (a pane that died without its
/// launcher writing the exit, a dialog no hook reports).
const SAFETY_NET: Duration = Duration::from_secs(5);

/// The next look's deadline while a worker on another host runs a turn or starts: no folder
/// here changes when its hooks fire there, so its row would otherwise wait for the safety net.
const REMOTE_ACTIVE_LOOK: Duration = Duration::from_secs(1);

/// How long the loader sleeps, at most, after a look that found `rows`.
fn next_look(rows: &[FleetRow]) -> Duration {
    let remote_active = rows
        .iter()
        .any(|r| r.status.host.is_some() && matches!(r.shown, Shown::Working | Shown::Starting));
    match remote_active {
        true => REMOTE_ACTIVE_LOOK,
        false => SAFETY_NET,
    }
}

/// The shortest time between two looks: a busy fleet's bursts of hooks make one look, not
/// one per hook.
const MIN_LOOK_GAP: Duration = Duration::from_millis(100);

/// What the main thread is told.
enum Msg {
    Key(KeyEvent),
    Resize,
    Fleet(Result<Vec<FleetRow>>),
    Note(String),
}

/// Runs the live view until `q` (0) or a signal (`interrupted`, 130).
pub fn run(ctx: &Ctx, colour: bool) -> Result<u8> {
    let (tx, rx) = channel();
    let refresh = start_loader(ctx.clone(), tx.clone())?;
    let gate = Arc::new(Gate::default());
    start_key_reader(tx.clone(), Arc::clone(&gate));
    let mut live = Live {
        ctx,
        screen: Screen::enter()?,
        view: View::new(colour),
        gate,
        tx,
        refresh,
    };
    let mut drawn_second = None;
    let mut dirty = true;
    loop {
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        live.view.now_ms = now_ms();
        let second = live.view.now_ms / 1000;
        if dirty || (drawn_second != Some(second) && ageing(&live.view)) {
            live.screen.draw(&mut live.view)?;
            drawn_second = Some(second);
            dirty = false;
        }
        let first = match rx.recv_timeout(TICK) {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return Ok(0),
        };
        dirty = true;
        // Everything queued is applied before the next frame.
        for msg in std::iter::once(first).chain(std::iter::from_fn(|| rx.try_recv().ok())) {
            let effect = live.apply(msg);
            if effect == Effect::Quit {
                return Ok(0);
            }
            live.act(effect)?;
        }
    }
}

/// The live view's state and its ways out to the rest of the process.
struct Live<'a> {
    ctx: &'a Ctx,
    screen: Screen,
    view: View,
    gate: Arc<Gate>,
    tx: Sender<Msg>,
    /// Asks the loader for a look now.
    refresh: Sender<()>,
}

impl Live<'_> {
    /// Applies one message to the view; a key may ask for an effect.
    fn apply(&mut self, msg: Msg) -> Effect {
        match msg {
            Msg::Key(key) => return on_key(&mut self.view, key),
            Msg::Resize => {}
            Msg::Fleet(Ok(rows)) => self.view.set_rows(rows),
            Msg::Fleet(Err(e)) => self.view.problem = Some(e.to_string()),
            Msg::Note(note) => {
                // An action ended: look now rather than at the next change.
                let _ = self.refresh.send(());
                self.view.note = Some(note);
            }
        }
        Effect::None
    }

    /// Does what a key asked for.
    fn act(&mut self, effect: Effect) -> Result<()> {
        match effect {
            Effect::None | Effect::Quit => {}
            Effect::Attach(name) => {
                self.gate.pause();
                self.screen.suspend();
                let attached = actions::attach_here(self.ctx, &name);
                self.screen.resume()?;
                self.gate.resume();
                self.view.note = attached.err().map(|e| e.to_string());
            }
            Effect::Send(name, prompt) => {
                self.view.note = Some(format!("sending to {name}…"));
                self.in_background(move |ctx| {
                    match remote::anywhere::send(
                        ctx,
                        &name,
                        prompt.as_bytes(),
                        &GuardArgs::default(),
                        None,
                    ) {
                        Ok(sent) => format!("sent to {name} (position {})", sent.position),
                        Err(e) => format!("send to {name} failed: {e}"),
                    }
                });
            }
            Effect::Kill(name) => {
                self.view.note = Some(format!("killing {name}…"));
                self.in_background(move |ctx| match actions::kill_worker(ctx, &name) {
                    Ok(()) => format!("killed {name}"),
                    Err(e) => format!("kill {name} failed: {e}"),
                });
            }
            Effect::Park(name) => {
                self.view.note = Some(format!("parking {name}…"));
                self.in_background(move |ctx| match actions::park_worker(ctx, &name) {
                    Ok(()) => format!("parked {name}; the next send resumes it"),
                    Err(e) => format!("park {name} failed: {e}"),
                });
            }
            Effect::Approve(name, expect) => {
                self.view.note = Some(format!("approving {name}'s tool…"));
                self.in_background(move |ctx| actions::answer(ctx, &name, expect, true));
            }
            Effect::Deny(name, expect) => {
                self.view.note = Some(format!("denying {name}'s tool…"));
                self.in_background(move |ctx| actions::answer(ctx, &name, expect, false));
            }
            Effect::Read(name) => {
                open_pager(&mut self.view, &self.screen, answer_lines(self.ctx, &name))
            }
            Effect::Logs(name) => {
                open_pager(&mut self.view, &self.screen, log_lines(self.ctx, &name))
            }
        }
        Ok(())
    }

    /// Runs a verb off the main thread (send and kill take a while); its note comes back.
    fn in_background(&self, verb: impl FnOnce(&Ctx) -> String + Send + 'static) {
        let (ctx, tx) = (self.ctx.clone(), self.tx.clone());
        std::thread::spawn(move || {
            let _ = tx.send(Msg::Note(verb(&ctx)));
        });
    }
}

/// Whether a running turn's age is on screen (then the clock moves it once a second).
fn ageing(view: &View) -> bool {
    view.rows
        .iter()
        .any(|r| matches!(r.shown, Shown::Working | Shown::NeedsInput))
}

/// The pager's title and lines (`end`: start at the bottom), or a note saying why not.
type Paged = std::result::Result<(String, Vec<String>, bool), String>;

fn open_pager(view: &mut View, screen: &Screen, paged: Paged) {
    match paged {
        Ok((title, lines, end)) => {
            // The pager's text area: the screen less title, input line, footer and borders.
            let height = screen.height().saturating_sub(5) as usize;
            let scroll = if end {
                lines.len().saturating_sub(height) as u16
            } else {
                0
            };
            view.mode = Mode::Pager {
                title,
                lines,
                scroll,
            };
        }
        Err(note) => view.note = Some(note),
    }
}

fn answer_lines(ctx: &Ctx, name: &str) -> Paged {
    match remote::anywhere::last_answer(ctx, name) {
        Ok(answer) if answer.interrupted => {
            let mut lines = vec!["The turn was interrupted: it has no answer.".to_string()];
            if let Some(partial) = &answer.partial_text {
                lines.push(String::new());
                lines.push("What it had written before (not an answer):".to_string());
                lines.extend(partial.lines().map(str::to_string));
            }
            Ok((format!(" {name}: last turn interrupted "), lines, false))
        }
        Ok(answer) => Ok((
            format!(" {name}: last answer ({}) ", answer.source),
            answer.text.lines().map(str::to_string).collect(),
            false,
        )),
        Err(e) => Err(format!("read {name}: {e}")),
    }
}

fn log_lines(ctx: &Ctx, name: &str) -> Paged {
    match actions::log_lines(ctx, name) {
        Ok(lines) => Ok((format!(" {name}: event log "), lines, true)),
        Err(e) => Err(format!("logs {name}: {e}")),
    }
}

/// Starts the thread that looks at the fleet on every change; returns the way to ask it for
/// a look now (after an action).
fn start_loader(ctx: Ctx, tx: Sender<Msg>) -> Result<Sender<()>> {
    let (wake_tx, wake_rx) = channel();
    let on_change = wake_tx.clone();
    let watch = FleetWatch::new(move || {
        let _ = on_change.send(());
    })?;
    std::thread::spawn(move || load_on_change(&ctx, watch, &wake_rx, &tx));
    Ok(wake_tx)
}

fn load_on_change(ctx: &Ctx, mut watch: FleetWatch, wake: &Receiver<()>, tx: &Sender<Msg>) {
    let mut fleet = Fleet::default();
    let sessions = ctx.state.path().join("sessions");
    loop {
        let started = Instant::now();
        let looked = fleet.look(ctx);
        let sleep = looked.as_deref().map_or(SAFETY_NET, next_look);
        if let Ok(rows) = &looked {
            let mut dirs = vec![sessions.clone()];
            for row in rows {
                if let Ok(name) = WorkerName::parse(&row.status.name) {
                    dirs.push(ctx.state.session_dir(&name));
                    dirs.push(ctx.state.events_dir(&name));
                }
            }
            watch.sync(&dirs);
        }
        if tx.send(Msg::Fleet(looked)).is_err() {
            return;
        }
        match wake.recv_timeout(sleep) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        if let Some(rest) = MIN_LOOK_GAP.checked_sub(started.elapsed()) {
            std::thread::sleep(rest);
        }
        while wake.try_recv().is_ok() {}
    }
}

/// Lets the main thread take the terminal's input away from the key reader (while a person is
/// attached to a worker, every key is theirs).
#[derive(Default)]
struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    pause: bool,
    parked: bool,
}

impl Gate {
    /// Returns once the reader has stopped reading (within one [`TICK`]).
    fn pause(&self) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.pause = true;
        while !state.parked {
            match self.changed.wait_timeout(state, TICK * 4) {
                Ok((next, timeout)) if !timeout.timed_out() => state = next,
                // The reader is gone (the terminal closed): nothing reads any more.
                _ => return,
            }
        }
    }

    fn resume(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.pause = false;
            self.changed.notify_all();
        }
    }

    /// Parks the calling reader while a pause is asked for.
    fn park_if_paused(&self) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if !state.pause {
            return;
        }
        state.parked = true;
        self.changed.notify_all();
        while state.pause {
            match self.changed.wait(state) {
                Ok(next) => state = next,
                Err(_) => return,
            }
        }
        state.parked = false;
    }
}

fn start_key_reader(tx: Sender<Msg>, gate: Arc<Gate>) {
    std::thread::spawn(move || {
        loop {
            gate.park_if_paused();
            let msg = match event::poll(TICK) {
                Ok(false) => continue,
                Ok(true) => match event::read() {
                    Ok(Event::Key(key)) => Msg::Key(key),
                    Ok(Event::Resize(..)) => Msg::Resize,
                    Ok(_) => continue,
                    Err(_) => return,
                },
                Err(_) => return,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
}

/// The terminal in raw mode on the alternate screen; restored when dropped (and by ratatui's
/// panic hook on a panic).
struct Screen {
    terminal: DefaultTerminal,
}

impl Screen {
    fn enter() -> Result<Self> {
        let terminal = ratatui::try_init().map_err(terminal_error)?;
        Ok(Screen { terminal })
    }

    fn draw(&mut self, view: &mut View) -> Result<()> {
        self.terminal
            .draw(|frame| draw(frame, view))
            .map(drop)
            .map_err(terminal_error)
    }

    fn height(&self) -> u16 {
        self.terminal.size().map_or(24, |s| s.height)
    }

    /// Gives the terminal back (for `attach`).
    fn suspend(&mut self) {
        ratatui::restore();
    }

    /// Takes it again, and redraws everything at the next frame.
    fn resume(&mut self) -> Result<()> {
        use ratatui::crossterm::{execute, terminal};
        terminal::enable_raw_mode().map_err(terminal_error)?;
        execute!(std::io::stdout(), terminal::EnterAlternateScreen).map_err(terminal_error)?;
        self.terminal.clear().map_err(terminal_error)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

fn terminal_error(e: std::io::Error) -> Error {
    Error::io("cannot draw on", "the terminal", e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faces::top::model::samples::row;

    /// A remote worker's hooks change nothing here: while one runs a turn (or starts) the
    /// loader looks again within a second, else on the safety net.
    #[test]
    fn a_working_remote_worker_is_looked_at_every_second() {
        let local = row("here", "busy", Shown::Working, "");
        let mut remote = row("far", "busy", Shown::Working, "");
        remote.status.host = Some("h1".into());
        let mut idle_remote = row("idle", "ready", Shown::Done, "");
        idle_remote.status.host = Some("h1".into());
        assert_eq!(next_look(std::slice::from_ref(&local)), SAFETY_NET);
        assert_eq!(next_look(&[local.clone(), idle_remote.clone()]), SAFETY_NET);
        assert_eq!(next_look(&[local, idle_remote, remote]), REMOTE_ACTIVE_LOOK);
    }
}
