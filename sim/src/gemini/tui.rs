//! The interactive session: startup dialogs, the composer, turns, `/quit`.
//!
//! One thread, one loop ([`crate::engine::event_loop`]): wait for input or the next deadline (turn timeline,
//! late chat write, Esc timeout, spinner second), handle it, redraw. Shift+Tab at the prompt
//! (no turn running, no dialog up) cycles the approval mode.

use std::time::{Duration, Instant};

use super::boxes::{self, Summary};
use super::cli::{ApprovalMode, Options};
use super::home;
use super::model_picker::{self, ModelPicker};
use super::screens::{self, Composer};
use super::session::Session;
use super::startup::{self, Gate};
use super::turn::{Done, Turn};
use crate::engine::event_loop::Flow;
use crate::engine::shell::{Face, Scroll, Shell};
use crate::engine::timeline::{Late, Phase};
use crate::json::Obj;
use crate::keys::Key;
use crate::qwen::records::TurnEnd;
use crate::scenario::Scenario;
use crate::screen::Screen;
use crate::term::{self, Terminal};

/// fake-gemini's screen: the scrollback, the hook label in the status line, the composer's looks.
pub struct Gemini {
    scroll: Scroll,
    executing: Option<String>,
    home: Option<String>,
    /// `COLORTERM` announces 24-bit colour (the composer frame changes).
    true_color: bool,
    /// When the last paste arrived: an Enter within [`Self::paste_guard`] of it is a newline.
    pasted_at: Option<Instant>,
    /// [`PASTE_GUARD`], or the scenario's `startup.paste_guard_ms`.
    paste_guard: Duration,
    /// A resumed session: until when it is still loading its conversation ([`RESUME_LOAD`]).
    loading_until: Option<Instant>,
    /// Where the running turn's prompt echo starts in the history (a qwen rewind goes back there).
    turn_mark: usize,
    /// fake-qwen: how long a long paste takes to be read in (`startup.paste_read_ms`).
    paste_read: Duration,
    /// fake-qwen: how long a read paste takes to show after (`startup.paste_quiet_ms`).
    paste_quiet: Duration,
    /// fake-qwen: a long paste still being read in.
    reading: Option<Reading>,
    /// fake-qwen: when its `idle_prompt` Notification fires after a refused confirmation.
    idle_at: Option<Instant>,
    /// fake-gemini's `/model` picker, while it is up.
    picker: Option<ModelPicker>,
}

/// A paste qwen is still reading in: it shows `Pasting… N KB` under its footer meanwhile, and
/// an Enter pressed then is taken once the paste is in — which submits the paste's placeholder
/// as it stands, unexpanded (what the real 0.24.4 sent its model for a 256 KiB paste that umbel
/// pressed Enter on one second in).
struct Reading {
    due: Instant,
    /// Until when `Pasting…` shows (then nothing, until `due`).
    shown_until: Instant,
    bytes: Vec<u8>,
    enter: bool,
}

/// A paste longer than this is read in for `startup.paste_read_ms` (fake-qwen).
const READ_FROM: usize = 1000;

type App = Shell<Gemini>;

const CTRL_C_NOTICE: &str = " Press Ctrl+C again to exit.";

/// How long after a paste the real gemini takes an Enter as part of it and inserts a newline
/// (InputPrompt's `recentUnsafePasteTime`, cleared 40 ms after the paste, on terminals without
/// the kitty keyboard protocol — tmux among them).
const PASTE_GUARD: Duration = Duration::from_millis(40);

/// The paste window a scenario sets (`startup.paste_guard_ms`: a loaded machine's gemini, whose
/// timer and redraw close it late), else [`PASTE_GUARD`].
fn scenario_guard(scenario: &Scenario) -> Duration {
    scenario
        .startup
        .paste_guard_ms
        .map_or(PASTE_GUARD, Duration::from_millis)
}

/// How long 0.61.0, resumed in its TUI, takes after `SessionStart` and its first composer to
/// load the conversation (`useSessionResume` waits for the client; about half a second on the
/// offline tier). It then appends `{"$set":{"sessionId":…}}` to the chat file; a prompt
/// submitted before that is taken off the input line and lost (no hook, no model request).
const RESUME_LOAD: Duration = Duration::from_millis(600);

/// How long after Esc (or No) on its tool confirmation qwen 0.24.4 fires its `idle_prompt`
/// Notification, the only hook it fires then: 0.1 to 0.4 s after the key in the recordings
/// (`qwen-esc`, `qwen-x-esc`, `qwen-x-4-reason`), its `PostToolBatch` of the cancelled call
/// 0.1 to 0.26 s before it.
const QWEN_IDLE_AFTER_REFUSAL: Duration = Duration::from_millis(150);

/// Runs the TUI and returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let paths = home::paths()?;
    let settings = home::load_settings(&paths)?;
    let restarted = startup::take_restart_marker(&paths);
    let delay = if restarted {
        0
    } else {
        scenario.startup.delay_ms
    };
    std::thread::sleep(Duration::from_millis(delay));
    let mut term = Terminal::enter().map_err(|e| e.to_string())?;
    let mut screen = Screen::new();
    let gate = startup::gates(
        &mut term,
        &mut screen,
        opts,
        &scenario,
        &paths,
        &settings,
        restarted,
    )?;
    let (trusted, first_header) = match gate {
        Gate::Open { trusted, header } => (trusted, header),
        Gate::Exit(code) => return Ok(code),
    };
    let paste_read = Duration::from_millis(scenario.startup.paste_read_ms);
    let paste_quiet = Duration::from_millis(scenario.startup.paste_quiet_ms);
    let paste_guard = scenario_guard(&scenario);
    let mut sess = Session::open(opts, scenario, paths, settings, trusted, true)?;
    sess.skip_startup(delay);
    let face = Gemini {
        scroll: Scroll::new(screen, first_header),
        executing: None,
        home: std::env::var("HOME").ok(),
        true_color: screens::true_color_env(),
        pasted_at: None,
        paste_guard,
        loading_until: None,
        turn_mark: 0,
        paste_read,
        paste_quiet,
        reading: None,
        idle_at: None,
        picker: None,
    };
    Shell::new(sess, term, face).serve(opts.query.clone())
}

impl Face for Gemini {
    const NAME: &'static str = "fake-gemini";
    type Turn = Turn;

    fn open(app: &mut App) -> Result<(), String> {
        let resumed = app.sess.resumed;
        if !resumed {
            app.sess.chat_open();
        }
        app.face.scroll.draw(&[])?;
        // SessionStart runs before the composer is first drawn (no `Executing Hook` line).
        let source = if resumed { "resume" } else { "startup" };
        let payload = app.sess.payload_session_start(source);
        app.sess.fire("SessionStart", Some(source), &payload);
        // Measured on gemini 0.61.0 only; qwen's resume is not measured yet.
        if resumed && !super::flavor::qwen() {
            let due = Instant::now() + RESUME_LOAD;
            app.face.loading_until = Some(due);
            app.late = Some(Late {
                due,
                records: vec![app.sess.resume_loaded()],
            });
        }
        Gemini::draw(app)
    }

    fn key(app: &mut App, key: Key) -> Result<Flow, String> {
        if let Some(reading) = app.face.reading.as_mut()
            && matches!(key, Key::Enter)
        {
            reading.enter = true;
            return Ok(Flow::Go);
        }
        if let Some(picker) = app.face.picker.take() {
            let (picker, taken) = model_picker::key(picker, &key);
            app.face.picker = picker;
            if let Some(model) = taken {
                app.sess.model = super::session::resolve_model(Some(&model), None, None);
            }
            return Ok(Flow::Go);
        }
        if let Some(turn) = app.turn.as_mut() {
            let confirming = matches!(turn.core.phase, Phase::Dialog(_));
            let outcome = match key {
                Key::Esc | Key::CtrlC => Some(turn.cancel(&mut app.sess)),
                _ if confirming => turn.key(&mut app.sess, &key, Instant::now()),
                _ => None,
            };
            if outcome.is_some() || confirming {
                return app.after(outcome);
            }
        }
        // Qwen Code 0.24.4 holds an Enter after a paste only on Windows or node < 20
        // (`pasteWorkaround`): on Linux it submits at once.
        let just_pasted = !super::flavor::qwen()
            && app
                .face
                .pasted_at
                .is_some_and(|at| at.elapsed() < app.face.paste_guard);
        match key {
            Key::Enter if just_pasted && !Gemini::blank(&app.input) => {
                return app.edit(Key::Newline);
            }
            Key::Enter if app.face.loading_until.is_some_and(|t| Instant::now() < t) => {
                // Still loading the resumed conversation: the prompt is lost.
                app.input.take();
            }
            // gemini submits its input trimmed (InputPrompt's `handleSubmit`): a paste's Enter
            // that became a newline is not part of the prompt.
            Key::Enter
                if !super::flavor::qwen() && app.turn.is_none() && !Gemini::blank(&app.input) =>
            {
                let text = app.input.take();
                return app.submit(text.trim().to_string());
            }
            Key::ShiftTab if app.turn.is_none() => cycle_mode(app),
            Key::CtrlC if !app.input.is_empty() => app.input.clear(),
            Key::CtrlC if app.second_ctrl_c() => return Ok(quit(app, "/quit")),
            Key::CtrlC => app.keys.ctrl_c = Some(Instant::now()),
            key => return app.edit(key),
        }
        Ok(Flow::Go)
    }

    fn closed(_app: &mut App) -> Flow {
        // The real CLI outlives its terminal; the fake just leaves (no SessionEnd).
        Flow::Exit(0)
    }

    fn wake_at(app: &App) -> Option<Instant> {
        let now = Instant::now();
        let reading = app.face.reading.as_ref().map(|r| {
            if now < r.shown_until {
                r.shown_until
            } else {
                r.due
            }
        });
        match (reading, app.face.idle_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn draw(app: &mut App) -> Result<(), String> {
        if app.face.idle_at.is_some_and(|t| Instant::now() >= t) {
            idle_notice(app)?;
        }
        read_in(app);
        let width = term::size().0;
        if let Some(picker) = &app.face.picker {
            return app.face.scroll.draw(&model_picker::lines(picker, width));
        }
        let mut live = Vec::new();
        let mut status = String::new();
        if let Some(turn) = app.turn.as_mut() {
            if !turn.core.busy() {
                app.face.scroll.draw(&turn.confirm_lines())?;
                turn.after_draw(&mut app.sess);
                return Ok(());
            }
            live = turn.live();
            live.push(String::new());
            let secs = turn.core.started.elapsed().as_secs();
            status = screens::busy(secs);
        } else if app.keys.ctrl_c.is_some() {
            status = CTRL_C_NOTICE.to_string();
        }
        let right = match &app.face.executing {
            Some(label) => label.clone(),
            None if app.input.is_empty() => screens::SHORTCUTS.to_string(),
            None => String::new(),
        };
        let input = app.input.display();
        let cwd = screens::display_cwd(&app.sess.cwd, app.face.home.as_deref());
        live.extend(screens::composer(
            width,
            &Composer {
                status,
                right,
                input: &input,
                pasted: app.input.has_placeholder(),
                mode: app.sess.mode,
                true_color: app.face.true_color,
                cwd: &cwd,
                model: &app.sess.model.label,
                pasting: app
                    .face
                    .reading
                    .as_ref()
                    .filter(|r| Instant::now() < r.shown_until)
                    .map(|r| r.bytes.len() / 2),
                qwen: super::flavor::qwen(),
            },
        ));
        if input.trim_end() == "/model" && !super::flavor::qwen() {
            // The command's completion, under the input line: its Enter runs it only then.
            live.push(model_picker::COMPLETION.to_string());
        }
        app.face.scroll.draw(&live)
    }

    fn paste(app: &mut App, bytes: &[u8]) {
        let qwen = super::flavor::qwen();
        if qwen && !app.face.paste_read.is_zero() && bytes.len() > READ_FROM {
            let shown_until = Instant::now() + app.face.paste_read;
            app.face.reading = Some(Reading {
                due: shown_until + app.face.paste_quiet,
                shown_until,
                bytes: bytes.to_vec(),
                enter: false,
            });
            return;
        }
        let label = if qwen {
            screens::qwen_paste_label
        } else {
            screens::paste_label
        };
        app.input.paste_with(bytes, label);
        app.face.pasted_at = Some(Instant::now());
    }

    fn blank(input: &crate::input::InputBuffer) -> bool {
        input.expanded().trim().is_empty()
    }

    fn command(app: &mut App, text: &str) -> Option<Result<Flow, String>> {
        app.keys.ctrl_c = None;
        match text.trim() {
            "/quit" | "/exit" => Some(Ok(quit(app, text.trim()))),
            "/model" if !super::flavor::qwen() => {
                app.face.scroll.pending.extend(screens::echo("/model"));
                app.face.picker = Some(model_picker::open(app.sess.model.auto));
                Some(Ok(Flow::Go))
            }
            _ => None,
        }
    }

    fn begin(app: &mut App, text: String) -> Turn {
        app.face.turn_mark = app.face.scroll.mark();
        app.face.scroll.pending.extend(screens::echo(&text));
        let width = term::size().0;
        Turn::new(&mut app.sess, text, Instant::now(), width)
    }

    fn starting(app: &mut App, text: &str) -> Result<(), String> {
        // A prompt submitted before qwen's idle notice came: the notice first.
        if app.face.idle_at.is_some() {
            idle_notice(app)?;
        }
        let payload = app.sess.payload_before_agent(text);
        fire(app, "BeforeAgent", None, &payload)
    }

    fn commit(app: &mut App, lines: Vec<String>) {
        app.face.scroll.pending.extend(lines);
        if let Some(turn) = app.turn.as_mut() {
            turn.events.clear();
        }
    }

    fn done(app: &mut App, turn: Option<Turn>, done: Done) -> Result<Flow, String> {
        app.late = done.late;
        let Some(after_agent) = done.after_agent else {
            // The tool confirmation was refused: back at the prompt, the turn left on the screen
            // and no hook (gemini 0.61.0); qwen 0.24.4 fires its idle notice a moment later.
            if super::flavor::qwen() {
                app.face.idle_at = Some(Instant::now() + QWEN_IDLE_AFTER_REFUSAL);
            }
            Gemini::draw(app)?;
            return app.next_queued();
        };
        // Qwen Code puts a cancelled prompt back into the input box; cancelled before the model
        // said anything or ran a tool, it takes the whole turn off the screen too (0.24.4's
        // auto-restore: no `Request cancelled.` stays).
        let cancelled = super::flavor::qwen() && app.sess.qwen.end == TurnEnd::Cancelled;
        if let Some(turn) = turn.filter(|_| cancelled) {
            if turn.text.is_empty() && turn.tool.is_none() {
                app.face.scroll.rewind(app.face.turn_mark)?;
            }
            if app.input.is_empty() {
                app.input.insert_text(&turn.prompt);
            }
        }
        Gemini::draw(app)?;
        fire(app, "AfterAgent", None, &after_agent)?;
        app.next_queued()
    }

    fn sign_in(app: &mut App) -> Result<Flow, String> {
        // The session is gone: the startup auth box under what was shown, until Ctrl+C twice.
        let commits = std::mem::take(&mut app.face.scroll.pending);
        let code = startup::auth_dialog(&mut app.term, &mut app.face.scroll.screen, &commits)?;
        Ok(Flow::Exit(code))
    }

    fn leave(app: &mut App) {
        let _ = app.face.scroll.draw(&[]);
        app.term.restore();
    }
}

/// fake-qwen: a paste whose reading-in is over goes into the input; an Enter pressed meanwhile
/// submits the input as it now shows, the placeholder unexpanded.
fn read_in(app: &mut App) {
    let now = Instant::now();
    let Some(reading) = app.face.reading.take_if(|r| now >= r.due) else {
        return;
    };
    app.input
        .paste_with(&reading.bytes, screens::qwen_paste_label);
    app.face.pasted_at = Some(Instant::now());
    if reading.enter {
        let shown = app.input.display();
        app.input.take();
        app.self_turn = Some((Instant::now(), shown));
    }
}

/// Shift+Tab at the prompt: the next approval mode (gemini's cycle or qwen's); qwen entering
/// `auto` says so in the history. The mode's line shows it from the next frame on, and the
/// turns after go by it (yolo runs tools without asking).
fn cycle_mode(app: &mut App) {
    let qwen = super::flavor::qwen();
    let next = match qwen {
        true => crate::qwen::modes::next(app.sess.mode),
        false => screens::next_mode(app.sess.mode),
    };
    app.sess.mode = next;
    if qwen && next == ApprovalMode::Auto {
        let notice = crate::qwen::modes::AUTO_NOTICE.map(str::to_string);
        app.face.scroll.pending.extend(notice);
    }
}

/// fake-qwen's `idle_prompt` Notification after a refused confirmation (fake-gemini's engine
/// names it `Idle`; only qwen's translation fires anything for it).
fn idle_notice(app: &mut App) -> Result<(), String> {
    app.face.idle_at = None;
    let payload = app.sess.payload_idle();
    fire(app, "Idle", None, &payload)
}

/// Runs hooks, showing `Executing Hook: <name>` in the status line meanwhile.
fn fire(app: &mut App, event: &str, target: Option<&str>, payload: &Obj) -> Result<(), String> {
    let Some(label) = app.sess.hook_label(event, target) else {
        return Ok(());
    };
    app.face.executing = Some(format!("Executing Hook: {label}"));
    Gemini::draw(app)?;
    app.sess.fire(event, target, payload);
    app.face.executing = None;
    Gemini::draw(app)
}

fn quit(app: &mut App, command: &str) -> Flow {
    app.flush_late();
    let width = term::size().0;
    let s = &app.sess.stats;
    let summary = Summary {
        session_id: &app.sess.id,
        tools: (s.tool_calls, s.tool_ok),
        wall_ms: app.sess.elapsed_ms(),
        active_ms: s.active_ms,
        model: (&app.sess.model.name, s.requests, s.input, s.output),
    };
    let mut lines = screens::echo(command);
    lines.extend(boxes::quit_summary(width, &summary));
    let mut bytes = app.face.scroll.screen.frame(&lines, &[], term::size());
    bytes.extend_from_slice(b"\r\n");
    let _ = term::write_out(&bytes);
    let payload = app.sess.payload_session_end("exit");
    app.sess.fire("SessionEnd", Some("exit"), &payload);
    Flow::Exit(0)
}
