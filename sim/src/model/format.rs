//! The three wire formats the fake model speaks, told apart by the request path.

/// The wire format of a request, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Anthropic Messages (`/v1/messages`), claude.
    Anthropic,
    /// OpenAI Responses (`/v1/responses`), codex.
    OpenAi,
    /// Gemini generateContent (`…/models/M:streamGenerateContent`), gemini.
    Gemini,
}

impl Format {
    /// The format a path belongs to, if any.
    pub fn of(path: &str) -> Option<Format> {
        if path.starts_with("/v1/messages") {
            Some(Format::Anthropic)
        } else if path.contains("/responses") {
            Some(Format::OpenAi)
        } else if path.contains(":streamGenerateContent")
            || path.contains(":generateContent")
            || path.contains(":countTokens")
        {
            Some(Format::Gemini)
        } else {
            None
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}
