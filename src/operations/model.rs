//! `model`: a worker's model, and the models its CLI's `/model` offers, switched for the CLI's
//! session alone with the CLI's own picker or command ([`ModelSwitch`]), the screen read before
//! every key and the switch taken only once the screen confirms it. Only a ready worker is
//! switched: a key during a turn or a dialog would answer it. The model switched to becomes the
//! worker's model in meta.json (`status`, `ls`, ACP).

use super::Ctx;
use super::model_picker::{Picker, Walk};
use super::screen_wait::{SHOWN_WITHIN, await_screen, last_line_with, type_command};
use super::worker::Worker;
use crate::core::errors::{Error, Result};
use crate::core::providers::model_switch::{ModelReport, ModelSwitch, names};

/// The longest model name taken.
const NAME_MAX: usize = 128;

/// The worker's model and the models its CLI offers, switched to `wanted` first when given.
pub fn model(ctx: &Ctx, worker: &Worker, wanted: Option<&str>) -> Result<ModelReport> {
    if let Some(wanted) = wanted {
        check_name(wanted)?;
    }
    let switch = worker.provider().identity().models;
    let walk = match (switch, wanted) {
        (None, Some(_)) => return Err(fixed(worker)),
        (None | Some(ModelSwitch::Typed { .. }), None) => Walk::default(),
        (Some(ModelSwitch::Typed { command, done }), Some(wanted)) => {
            typed(ctx, worker, command, done, wanted)?
        }
        (
            Some(ModelSwitch::Picker {
                open,
                typed,
                stages,
                done,
            }),
            wanted,
        ) => {
            super::mode::ready(ctx, worker)?;
            let typed = typed.unwrap_or(open);
            Picker::new(ctx, worker, stages, *done).walk(open, typed, wanted)?
        }
    };
    let mut model = worker.meta.model.clone();
    if let (Some(wanted), Some(_)) = (wanted, &walk.shown) {
        let mut meta = worker.meta.clone();
        meta.model = Some(wanted.to_string());
        ctx.state.write_meta(&meta, &worker.name)?;
        model = meta.model;
    }
    Ok(ModelReport {
        name: worker.name.to_string(),
        model,
        models: walk.listed,
        shown: walk.shown,
        pressed: walk.pressed,
    })
}

/// A model name goes onto the CLI's input line: printable, one line, short.
fn check_name(wanted: &str) -> Result<()> {
    let fine = |c: char| c.is_ascii_alphanumeric() || " ._:/()[]@+-".contains(c);
    if wanted.trim().is_empty() || wanted.len() > NAME_MAX || !wanted.chars().all(fine) {
        return Err(Error::usage(format!(
            "model {wanted:?}: a model's name is 1 to {NAME_MAX} letters, digits, spaces and . _ : / ( ) [ ] @ + -"
        )));
    }
    Ok(())
}

fn fixed(worker: &Worker) -> Error {
    Error::usage(format!(
        "{} keeps the model it was started with: umbel does not drive its /model; spawn the worker with --model",
        worker.provider().name()
    ))
}

/// The CLI's command with the model in it (copilot's `/model --session ID`), taken once the
/// screen's last confirmation names the model.
fn typed(ctx: &Ctx, worker: &Worker, command: &str, done: &str, wanted: &str) -> Result<Walk> {
    super::mode::ready(ctx, worker)?;
    let command = command.replace("{model}", wanted);
    let pressed = type_command(ctx, worker, &command, &command)?;
    await_screen(ctx, worker, SHOWN_WITHIN, "confirm the switch", |screen| {
        last_line_with(screen, done).is_some_and(|l| names(l, wanted))
    })?;
    Ok(Walk {
        listed: Vec::new(),
        shown: Some(wanted.to_string()),
        pressed,
    })
}
