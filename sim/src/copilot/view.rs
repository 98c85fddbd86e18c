//! What every copilot screen is drawn from ([`View`]: the header, the folder line, the model,
//! the agent mode) and how a whole frame reaches the terminal ([`paint_rows`]); the TUI and
//! its startup dialogs both draw through it.

use super::home;
use super::mode::AgentMode;
use super::release::Release;
use super::screens::{self, Composer, Notices, Status};
use super::session::Session;
use crate::engine::shell::paint;
use crate::term;

/// What every screen is drawn from.
pub struct View {
    /// The conversation's start (logo, tip, notices; no MCP line before the folder is trusted).
    pub header: Vec<String>,
    /// The folder line.
    pub folder: String,
    /// The model at the status line's right (empty when not signed in).
    pub model: String,
    /// The release played.
    pub release: Release,
    /// The agent mode (Shift+Tab cycles it).
    pub mode: AgentMode,
}

impl View {
    /// The view of `sess` (`signed_in`: the notices and model a signed-in copilot shows).
    pub fn of(sess: &Session, signed_in: bool) -> View {
        let cwd = std::path::Path::new(&sess.who.cwd);
        let notices = Notices {
            no_instructions: signed_in && home::instructions_missing(cwd),
            off_catalog: (signed_in && home::off_catalog(&sess.who.model, sess.auth))
                .then(|| sess.who.model.clone()),
            mcp: false,
        };
        let branch = sess.git.as_ref().map(|g| g.branch.as_str());
        View {
            header: screens::header(sess.who.release, &notices, term::size().0),
            folder: screens::folder(&sess.who.cwd, branch),
            model: if signed_in {
                sess.who.model.clone()
            } else {
                String::new()
            },
            release: sess.who.release,
            mode: AgentMode::default(),
        }
    }

    /// A whole screen of `size`: the header and `more` over `bottom`.
    pub fn rows(&self, size: (usize, usize), more: &[String], bottom: Vec<String>) -> Vec<String> {
        let mut content = self.header.clone();
        content.extend(more.iter().cloned());
        screens::frame(size, &content, bottom)
    }

    /// The composer `width` columns wide with `input`, in `status`, under `notice`.
    pub fn composer(
        &self,
        width: usize,
        input: &str,
        status: Status,
        notice: Option<&str>,
    ) -> Vec<String> {
        let c = Composer {
            folder: &self.folder,
            input,
            status,
            model: &self.model,
            notice,
            mode: self.mode,
        };
        screens::composer(&c, self.release, width)
    }
}

/// The bytes of a whole frame: every row from the top, each row's rest erased.
pub fn paint_rows(rows: &[String]) -> Result<(), String> {
    paint(&crate::screen::frame(rows))
}
