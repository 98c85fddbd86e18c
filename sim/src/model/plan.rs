//! What to answer a request with: the scenario's turn mapped onto what a model can do. The CLI
//! behaviours a model cannot cause (`crash`, `signal`, `sign_in`, `question`) are played as `stop`.

use super::format::{FORMATS, Format};
use super::prompt::Seen;
use crate::scenario::{End, Script};
use serde_json::Value;

/// A scripted turn's text and pace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub text: String,
    /// The thinking streamed before the text (a `thinking` block).
    pub thinking: Option<String>,
    pub delay_ms: u64,
    pub chunk_ms: u64,
    /// Stream the text, then hold the response open until the client hangs up.
    pub wedge: bool,
}

impl Turn {
    /// `text` at once, no delay.
    pub fn instant(text: impl Into<String>) -> Turn {
        Turn {
            text: text.into(),
            thinking: None,
            delay_ms: 0,
            chunk_ms: 0,
            wedge: false,
        }
    }

    /// The text cut into streamed chunks (one per word when `chunk_ms` > 0).
    pub fn chunks(&self) -> Vec<String> {
        if self.chunk_ms == 0 {
            return vec![self.text.clone()];
        }
        let mut out = Vec::new();
        for word in self.text.split_inclusive(' ') {
            out.push(word.to_string());
        }
        out
    }

    /// Waits the turn's delay before its first text.
    pub fn pause(&self) {
        std::thread::sleep(std::time::Duration::from_millis(self.delay_ms));
    }

    /// Waits between two chunks.
    pub fn gap(&self) {
        std::thread::sleep(std::time::Duration::from_millis(self.chunk_ms));
    }
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A token count.
    Count,
    /// A side request's short answer (titles, routing).
    Side,
    /// Claude's permission classifier: always "allow".
    Classifier,
    /// The turn's text.
    Text(Turn),
    /// A tool call: the CLI's shell tool (the scenario's `Bash`), or `named`, a tool the
    /// scenario names with its input as given (claude's `AskUserQuestion`, opencode's
    /// `question` …). `escalate` asks codex's sandbox for more (its approval prompt).
    Tool {
        command: String,
        description: String,
        escalate: bool,
        named: Option<(String, Value)>,
    },
    /// An API failure with the provider's error body.
    Error { status: u16, message: String },
    /// Codex's usage limit (429 `usage_limit_reached`).
    UsageLimit,
    /// Not a path any CLI calls.
    NotFound,
}

impl Answer {
    /// A shell tool call's arguments (`command`, `description`).
    pub fn shell_args(&self) -> Option<Value> {
        match self {
            Answer::Tool {
                command,
                description,
                ..
            } => Some(serde_json::json!({"command": command, "description": description})),
            _ => None,
        }
    }

    /// The tool call's name and arguments: `shell` (the format's shell tool) with
    /// [`Answer::shell_args`], or the tool the scenario named, as it gave it.
    pub fn call(&self, shell: &str) -> Option<(String, Value)> {
        match self {
            Answer::Tool {
                named: Some(named), ..
            } => Some(named.clone()),
            _ => Some((shell.to_string(), self.shell_args()?)),
        }
    }

    /// What the log calls this answer.
    pub fn kind(&self, format: Option<Format>) -> String {
        let side = match format {
            Some(Format::Anthropic) => "anthropic",
            Some(Format::OpenAi) => "openai",
            Some(Format::Gemini) => "gemini",
            Some(Format::Chat) => "chat",
            None => "none",
        };
        let what = match self {
            Answer::Count => "count".to_string(),
            Answer::Side => "side".to_string(),
            Answer::Classifier => "classifier-allow".to_string(),
            Answer::Text(t) if t.wedge => "wedge".to_string(),
            Answer::Text(_) => "text".to_string(),
            Answer::Tool { .. } => "tool".to_string(),
            Answer::Error { status, .. } => status.to_string(),
            Answer::UsageLimit => "usage-limit".to_string(),
            Answer::NotFound => "404".to_string(),
        };
        format!("{side}-{what}")
    }
}

/// What was last answered per format: a request repeated (a CLI retrying after an error, or
/// sending the same conversation twice) gets the same answer and uses no new turn. A failure
/// sticks to its prompt even when the CLI adds a message to recover (claude does after a 400).
pub type Memo = [Option<(Option<String>, usize, Answer)>; FORMATS];

/// Decides the answer; a permission turn's reply waits in `after_tool` for the tool's result.
pub fn answer(
    format: Format,
    seen: &Seen,
    script: &mut Script,
    after_tool: &mut [Option<Turn>; FORMATS],
    memo: &mut Memo,
    count: bool,
) -> Answer {
    if count || seen.classifier || !seen.main || seen.tool_result {
        return fresh(format, seen, script, after_tool, count);
    }
    if let Some((prompt, length, answer)) = &memo[format.index()]
        && *prompt == seen.prompt
        && (*length == seen.length || matches!(answer, Answer::Error { .. } | Answer::UsageLimit))
    {
        return answer.clone();
    }
    let answer = fresh(format, seen, script, after_tool, count);
    memo[format.index()] = Some((seen.prompt.clone(), seen.length, answer.clone()));
    answer
}

fn fresh(
    format: Format,
    seen: &Seen,
    script: &mut Script,
    after_tool: &mut [Option<Turn>; FORMATS],
    count: bool,
) -> Answer {
    if count {
        return Answer::Count;
    }
    if seen.classifier {
        return Answer::Classifier;
    }
    if !seen.main {
        return Answer::Side;
    }
    if seen.tool_result {
        let turn = after_tool[format.index()].take();
        return Answer::Text(turn.unwrap_or(Turn::instant("Done.")));
    }
    // A new prompt: a reply held for a tool that never returned (refused) is dropped.
    after_tool[format.index()] = None;
    let prompt = seen.prompt.clone().unwrap_or_default();
    let chosen = script.select(&prompt);
    let turn = Turn {
        text: chosen.reply,
        thinking: chosen.thinking,
        delay_ms: chosen.delay_ms,
        chunk_ms: chosen.chunk_ms,
        wedge: chosen.end == End::Wedge,
    };
    match chosen.end {
        End::ApiError(e) => Answer::Error {
            status: e.status,
            message: e.message,
        },
        End::UsageLimit(_) if format == Format::OpenAi => Answer::UsageLimit,
        End::UsageLimit(_) => Answer::Error {
            status: 429,
            message: "usage limit reached".into(),
        },
        End::Permission(p) => {
            let field = |k: &str| p.input.get(k).and_then(Value::as_str).map(str::to_string);
            let turn = Turn {
                wedge: p.then_wedge,
                ..turn
            };
            after_tool[format.index()] = Some(turn);
            let shell = p.tool.eq_ignore_ascii_case("bash");
            Answer::Tool {
                command: field("command").unwrap_or_else(|| "echo ok".into()),
                description: field("description").unwrap_or_default(),
                escalate: format == Format::OpenAi && shell,
                named: (!shell).then(|| (p.tool.clone(), p.input.clone())),
            }
        }
        _ => Answer::Text(turn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn seen(prompt: &str) -> Seen {
        Seen {
            prompt: Some(prompt.into()),
            main: true,
            ..Seen::default()
        }
    }

    #[test]
    fn turns_are_picked_as_the_fakes_pick_them() {
        let scenario = Scenario::parse(
            r#"{"turns":[{"match":"tool","reply":"It printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi"}}}},
                         {"match":"bad","end":{"api_error":{"status":400,"message":"nope"}}}]}"#,
        )
        .unwrap();
        let mut script = Script::new(scenario);
        let (mut after, mut memo) = (Default::default(), Default::default());
        let mut ask = |f, s: &Seen| answer(f, s, &mut script, &mut after, &mut memo, false);
        assert_eq!(
            ask(Format::Anthropic, &seen("Say hello\nmore")),
            Answer::Text(Turn::instant("Response to: Say hello"))
        );
        assert!(matches!(
            ask(Format::OpenAi, &seen("run the tool")),
            Answer::Tool { ref command, escalate: true, .. } if command == "echo hi"
        ));
        let result = Seen {
            tool_result: true,
            ..seen("")
        };
        assert!(
            matches!(ask(Format::OpenAi, &result), Answer::Text(t) if t.text == "It printed hi.")
        );
        let bad = Answer::Error {
            status: 400,
            message: "nope".into(),
        };
        assert_eq!(ask(Format::Gemini, &seen("a bad one")), bad);
        assert_eq!(
            ask(Format::Gemini, &seen("a bad one")),
            bad,
            "a retry fails again"
        );
        let recovering = Seen {
            length: 3,
            ..seen("a bad one")
        };
        assert_eq!(
            ask(Format::Gemini, &recovering),
            bad,
            "a failure sticks to its prompt"
        );
        assert_ne!(
            ask(Format::Gemini, &seen("next")),
            bad,
            "a new prompt picks anew"
        );
        let side = Seen::default();
        assert_eq!(ask(Format::Anthropic, &side), Answer::Side);
    }
}
