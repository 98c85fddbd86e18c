//! The four wire formats the fake model speaks, told apart by the request path.

/// The wire format of a request, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Anthropic Messages (`/v1/messages`), claude.
    Anthropic,
    /// OpenAI Responses (`/v1/responses`), codex.
    OpenAi,
    /// Gemini generateContent (`…/models/M:streamGenerateContent`), gemini.
    Gemini,
    /// OpenAI Chat Completions (`/v1/chat/completions`), qwen.
    Chat,
}

/// How many wire formats there are (the per-format memories' size).
pub const FORMATS: usize = 4;

impl Format {
    /// The format a path belongs to, if any.
    pub fn of(path: &str) -> Option<Format> {
        if path.starts_with("/v1/messages") {
            Some(Format::Anthropic)
        } else if path.contains("/chat/completions") {
            Some(Format::Chat)
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
