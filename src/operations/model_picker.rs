//! Walking a CLI's `/model` picker ([`Stage`]s of numbered rows): the cursor moved one key at a
//! time onto the row wanted, each key waited on until the screen redrew, the list scrolled where
//! it runs past the screen, and the picker closed with Esc when the model is not there — never a
//! key pressed on a row the screen has not shown under the cursor.

use super::Ctx;
use super::screen_wait::{LOOK, SHOWN_WITHIN, await_screen, last_line_with, type_command};
use super::worker::Worker;
use crate::core::errors::{Error, Result};
use crate::core::providers::model_switch::{Choose, Row, Stage, names};
use std::time::{Duration, Instant};

/// How long a key may leave the rows as they were before the cursor is taken to be at the end
/// of the list.
const END_OF_LIST: Duration = Duration::from_millis(1500);
/// The most arrow keys one stage may take (a list longer than this is not walked).
const MOVES: usize = 80;

/// What walking the picker found and did.
#[derive(Debug, Default)]
pub(super) struct Walk {
    /// The models it listed.
    pub listed: Vec<String>,
    /// The row taken (its label), when the switch is done.
    pub shown: Option<String>,
    /// Keys pressed.
    pub pressed: usize,
}

/// One walk through one worker's picker.
pub(super) struct Picker<'a> {
    ctx: &'a Ctx,
    worker: &'a Worker,
    stages: &'static [Stage],
    done: Option<&'static str>,
    walk: Walk,
}

/// Which way the cursor goes.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Up,
    Down,
}

impl<'a> Picker<'a> {
    pub(super) fn new(
        ctx: &'a Ctx,
        worker: &'a Worker,
        stages: &'static [Stage],
        done: Option<&'static str>,
    ) -> Self {
        let walk = Walk::default();
        Picker {
            ctx,
            worker,
            stages,
            done,
            walk,
        }
    }

    /// Opens the picker with `open` (Enter once the screen shows `typed`) and takes `wanted` in it; `None`: lists its models and
    /// closes it.
    pub(super) fn walk(mut self, open: &str, typed: &str, wanted: Option<&str>) -> Result<Walk> {
        self.walk.pressed += type_command(self.ctx, self.worker, open, typed)?;
        let mut before: Vec<Row> = Vec::new();
        let mut model = String::new();
        for (i, stage) in self.stages.iter().enumerate() {
            let what = format!("open its model picker's {:?}", stage.title);
            let up = await_screen(self.ctx, self.worker, SHOWN_WITHIN, &what, |s| {
                let rows = stage.rows(s);
                !rows.is_empty() && rows != before
            })?;
            before = stage.rows(&up);
            let last = i + 1 == self.stages.len();
            let Some((taken, done)) = self.stage(stage, &before, wanted, last)? else {
                self.close()?;
                return Ok(self.walk);
            };
            if stage.choose != Choose::Cursor {
                model = taken;
            }
            if done {
                self.confirm(&model)?;
                self.walk.shown = Some(model);
                return Ok(self.walk);
            }
        }
        Err(self.busy("its model picker has more screens than umbel knows".into()))
    }

    /// Takes a row of `stage`: the row's label, and whether the switch is then done; `None`
    /// when listing ends here.
    fn stage(
        &mut self,
        stage: &Stage,
        rows: &[Row],
        wanted: Option<&str>,
        last: bool,
    ) -> Result<Option<(String, bool)>> {
        let is_wanted = |r: &Row| wanted.is_some_and(|w| r.is(w));
        let taken = match (stage.choose, wanted) {
            (Choose::Model, None) => {
                self.seek(stage, |_| false, false)?;
                return Ok(None);
            }
            (Choose::Model, Some(wanted)) => match self.seek(stage, is_wanted, true)? {
                Some(row) => (row, last),
                None => return Err(self.not_offered(wanted)),
            },
            (Choose::ModelElse(other), _) => {
                self.note(rows.iter().map(|r| r.label.clone()));
                match self.seek(stage, is_wanted, false)? {
                    Some(row) => (row, true),
                    None => (self.seek_label(stage, other)?, last),
                }
            }
            (Choose::Cursor, _) => (self.cursor_row(stage, rows)?, true),
        };
        self.take(stage)?;
        Ok(Some(taken))
    }

    /// Moves the cursor onto the row `pick` holds for, scrolling down the list (and back up
    /// when `both_ways`); every row seen is noted. `None` when no row holds.
    fn seek(
        &mut self,
        stage: &Stage,
        pick: impl Fn(&Row) -> bool,
        both_ways: bool,
    ) -> Result<Option<String>> {
        let mut way = Way::Down;
        // The cursor's rows so far: one seen again means the list wrapped round (gemini's).
        let mut visited: Vec<String> = Vec::new();
        for _ in 0..MOVES {
            // A frame drawn in part shows no cursor yet: read until one does.
            let what = format!("show the cursor in {:?}", stage.title);
            let cursor_shown = |s: &str| stage.rows(s).iter().any(|r| r.cursor);
            let screen = await_screen(self.ctx, self.worker, SHOWN_WITHIN, &what, cursor_shown)?;
            let rows = stage.rows(&screen);
            self.note(rows.iter().map(|r| r.label.clone()));
            let cursor = rows.iter().position(|r| r.cursor);
            let target = rows.iter().position(&pick);
            match (cursor, target) {
                (Some(c), Some(t)) if c == t => return Ok(Some(rows[t].label.clone())),
                (Some(c), Some(t)) => {
                    let way = if t > c { Way::Down } else { Way::Up };
                    if !self.press_arrow(stage, &rows, way, SHOWN_WITHIN)? {
                        return Err(self.busy("its model picker's cursor did not move".into()));
                    }
                }
                (at, _) => {
                    let at = at.map(|c| rows[c].label.clone()).unwrap_or_default();
                    let wrapped = visited.contains(&at);
                    visited.push(at);
                    if !wrapped && self.press_arrow(stage, &rows, way, END_OF_LIST)? {
                        continue;
                    }
                    if wrapped || way == Way::Up || !both_ways {
                        return Ok(None);
                    }
                    way = Way::Up;
                    visited.clear();
                }
            }
        }
        Ok(None)
    }

    /// The row labelled `label`, with the cursor on it.
    fn seek_label(&mut self, stage: &Stage, label: &str) -> Result<String> {
        match self.seek(stage, |r| r.bare() == label, true)? {
            Some(row) => Ok(row),
            None => {
                self.close()?;
                Err(self.busy(format!("its model picker shows no {label:?} row")))
            }
        }
    }

    fn cursor_row(&mut self, stage: &Stage, rows: &[Row]) -> Result<String> {
        match rows.iter().find(|r| r.cursor) {
            Some(row) => Ok(row.label.clone()),
            None => {
                self.close()?;
                Err(self.busy(format!("{:?} shows no cursor", stage.title)))
            }
        }
    }

    /// Presses the arrow `way`; true once the rows redrew, false if they stayed as they were
    /// for `within` (the cursor is at that end of the list).
    fn press_arrow(
        &mut self,
        stage: &Stage,
        rows: &[Row],
        way: Way,
        within: Duration,
    ) -> Result<bool> {
        let key = if way == Way::Down { "Down" } else { "Up" };
        self.ctx.tmux.send_keys(self.worker.session(), &[key])?;
        self.walk.pressed += 1;
        let deadline = Instant::now() + within;
        while Instant::now() < deadline && !self.ctx.cancelled() {
            std::thread::sleep(LOOK);
            let screen = self.ctx.tmux.capture(self.worker.session(), false)?;
            if stage.rows(&screen) != rows {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Presses the stage's key, once the screen shows the key keeps the choice to this session.
    fn take(&mut self, stage: &Stage) -> Result<()> {
        if let Some(text) = stage.session_only {
            let screen = self.ctx.tmux.capture(self.worker.session(), false)?;
            if !screen.contains(text) {
                self.close()?;
                return Err(self.busy(format!(
                    "its model picker does not say {text:?}: umbel does not press a key that may change the CLI's default model"
                )));
            }
        }
        self.ctx
            .tmux
            .send_keys(self.worker.session(), &[stage.key])?;
        self.walk.pressed += 1;
        Ok(())
    }

    /// Waits until the picker is gone and the screen names `taken` (in the CLI's confirmation
    /// where it writes one).
    fn confirm(&self, taken: &str) -> Result<()> {
        let stages = self.stages;
        await_screen(
            self.ctx,
            self.worker,
            SHOWN_WITHIN,
            "confirm the switch",
            |screen| {
                let up = stages.iter().any(|s| screen.contains(s.title));
                let named = match self.done {
                    Some(done) => last_line_with(screen, done).is_some_and(|l| names(l, taken)),
                    None => names(screen, taken),
                };
                !up && named
            },
        )
        .map(drop)
    }

    /// Closes the picker with Esc, a stage at a time, until no stage of it is on screen.
    fn close(&mut self) -> Result<()> {
        let stages = self.stages;
        let up = |screen: &str| stages.iter().any(|s| screen.contains(s.title));
        for _ in 0..=stages.len() {
            let screen = self.ctx.tmux.capture(self.worker.session(), false)?;
            if !up(&screen) {
                return Ok(());
            }
            self.ctx
                .tmux
                .send_keys(self.worker.session(), &["Escape"])?;
            self.walk.pressed += 1;
            let _ = await_screen(
                self.ctx,
                self.worker,
                SHOWN_WITHIN,
                "close a picker's screen",
                |s| s != screen,
            );
        }
        Err(self.busy("its model picker did not close on Esc".into()))
    }

    /// Adds labels to the models listed, each once (not a stage's way on, gemini's `Manual`).
    fn note(&mut self, labels: impl Iterator<Item = String>) {
        let way_on = |label: &str| {
            (self.stages.iter()).any(|s| matches!(s.choose, Choose::ModelElse(o) if o == label))
        };
        for label in labels {
            if !way_on(label.split(" (").next().unwrap_or(&label))
                && !self.walk.listed.contains(&label)
            {
                self.walk.listed.push(label);
            }
        }
    }

    fn not_offered(&mut self, wanted: &str) -> Error {
        if let Err(e) = self.close() {
            return e;
        }
        Error::usage(format!(
            "{} offers no model {wanted:?}: its /model lists {}",
            self.worker.provider().name(),
            self.walk.listed.join(", ")
        ))
    }

    fn busy(&self, detail: String) -> Error {
        Error::Busy {
            name: self.worker.name.to_string(),
            detail,
        }
    }
}
