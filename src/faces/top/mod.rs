//! `umbel top`: a live view of every worker, for a person who would rather look than read —
//! the model (what is shown), the renderer, the keys and the event loop that sleeps on the
//! kernel (inotify on the state folder, the terminal) until something changes. `--once` prints
//! one frame as plain text.

mod actions;
pub mod event_loop;
pub mod keys;
pub mod model;
pub mod render;

use crate::adapters::host::now_ms;
use crate::core::args::TopArgs;
use crate::core::errors::{Error, Result};
use crate::operations::Ctx;
use crate::operations::fleet::Fleet;
use std::io::IsTerminal;

/// The width of a `--once` frame when neither `--width` nor a terminal says.
const ONCE_WIDTH: u16 = 120;

/// The narrowest frame: below it the table's columns do not fit. A narrower `--width` is
/// refused; a narrower terminal gets a frame this wide.
pub const MIN_WIDTH: u16 = 40;

/// Runs `umbel top`; the exit code.
pub fn run(ctx: &Ctx, args: &TopArgs) -> Result<u8> {
    let colour = ctx.var("NO_COLOR").is_none_or(|v| v.is_empty());
    if let Some(width) = args.width.filter(|&w| w < MIN_WIDTH) {
        return Err(Error::usage(format!(
            "`--width {width}`: a `top --once` frame needs at least {MIN_WIDTH} columns for its table; give {MIN_WIDTH} or more"
        )));
    }
    if args.once {
        let mut view = model::View::new(false);
        view.set_rows(Fleet::default().look(ctx)?);
        view.now_ms = now_ms();
        // No selection marker: nothing is selected in a frame for scripts.
        view.selected = None;
        view.table.select(None);
        let width = args.width.or_else(terminal_width).unwrap_or(ONCE_WIDTH);
        super::output::out(&render::frame_text(&mut view, width.max(MIN_WIDTH)));
        return Ok(0);
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if let Some(why) = no_live_view(ctx.var("TERM"), terminal) {
        return Err(Error::usage(format!(
            "`umbel top` needs a terminal, but {why}; `umbel top --once` prints one frame, \
             `umbel status --json` the data"
        )));
    }
    event_loop::run(ctx, colour)
}

/// Why the live view cannot run here, if it cannot.
fn no_live_view(term: Option<&str>, terminal: bool) -> Option<&'static str> {
    match term {
        None | Some("") => Some("TERM is not set"),
        Some("dumb") => Some("TERM=dumb cannot draw it"),
        _ if !terminal => Some("standard input and output are not both one"),
        _ => None,
    }
}

fn terminal_width() -> Option<u16> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size().ok().map(|(w, _)| w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_view_needs_a_terminal_that_can_draw() {
        assert_eq!(
            no_live_view(Some("dumb"), true),
            Some("TERM=dumb cannot draw it")
        );
        assert_eq!(no_live_view(None, true), Some("TERM is not set"));
        assert!(no_live_view(Some("xterm-256color"), false).is_some());
        assert_eq!(no_live_view(Some("xterm-256color"), true), None);
    }
}
