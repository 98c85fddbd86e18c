//! What the providers read off a CLI, as the rest of umbel takes it: a hook event's class, a
//! startup screen, a transcript's last turn, a record's link to its parent, the sign-in.

impl EventClass {
    /// A submit or a turn's end, normal or not: the events that say whether a turn is open.
    pub fn is_turn_event(&self) -> bool {
        matches!(
            self,
            EventClass::Submitted | EventClass::TurnEnded | EventClass::TurnFailed { .. }
        )
    }

    /// Whether the newest turn event among `classes` (oldest first) is a normal end: the last
    /// turn ended with its answer, none is open and none failed since.
    pub fn last_turn_ended<'a>(classes: impl DoubleEndedIterator<Item = &'a EventClass>) -> bool {
        classes
            .rev()
            .find(|c| c.is_turn_event())
            .is_some_and(|c| *c == EventClass::TurnEnded)
    }

    /// A `PermissionRequest` hook (claude, codex): needs input, naming the tool and its input.
    pub fn permission_request(payload: Option<&serde_json::Value>) -> Self {
        EventClass::NeedsInput {
            reason: "permission",
            tool: payload.map(
                |p| serde_json::json!({ "name": p.get("tool_name"), "input": p.get("tool_input") }),
            ),
        }
    }
}

/// What a hook event means to the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum EventClass {
    /// The CLI started (its dialogs are over).
    Started,
    /// A prompt was accepted.
    Submitted,
    /// The turn ended normally.
    TurnEnded,
    /// The provider failed the turn; the reason is `api-error`, `usage-limit` or `interrupted`.
    TurnFailed { reason: &'static str },
    /// The CLI waits for a person; reason `permission` or `question`, with the pending tool.
    NeedsInput {
        reason: &'static str,
        tool: Option<serde_json::Value>,
    },
    /// The CLI ran its permission hook on a tool before its own rules decided (copilot, whose
    /// `--deny-tool` rules refuse after the hook, with no dialog): work goes on, nobody is asked
    /// yet; a needs-input right after it asks about this tool.
    PermissionCheck { tool: Option<serde_json::Value> },
    /// Work is moving (a tool ran), which also means a pending question was answered.
    Progress,
    /// Nothing the engine acts on.
    Other,
}

/// What a startup screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupScreen {
    /// A sign-in or onboarding screen: a person must act; the line is the evidence.
    SignIn(String),
    /// A dialog umbel answers by pressing these tmux keys; `what` names it for messages.
    Dialog {
        what: &'static str,
        keys: &'static [&'static str],
    },
    /// A dialog umbel answers only with the user's plain consent: when the user passed `env`
    /// to the worker explicitly (`--env`), by pressing `keys`; otherwise a person must answer.
    Consent {
        what: &'static str,
        env: &'static str,
        keys: &'static [&'static str],
    },
    /// A dialog umbel must not answer on the user's behalf (its question, as shown): a person
    /// decides. Unknown dialogs are reported this way too, never answered blindly.
    Person(String),
    /// The idle prompt is showing.
    Idle,
    /// Anything else (still drawing, busy, unknown).
    Other,
}

impl StartupScreen {
    /// A dialog umbel answers by choosing one option: Enter once the cursor is `on` it, else
    /// one step `toward` it (never a blind Enter).
    pub fn step_to(what: &'static str, on: bool, toward: &'static [&'static str]) -> Self {
        StartupScreen::Dialog {
            what,
            keys: if on { &["Enter"] } else { toward },
        }
    }
}

/// The last turn as read from a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranscriptTurn {
    /// The prompt that opened the turn, if it was found.
    pub prompt: Option<String>,
    /// The turn's final answer text, if any was written yet.
    pub answer: Option<String>,
    /// Whether the transcript marks the turn as finished.
    pub ended: bool,
    /// Whether the answer is a provider error rather than a reply.
    pub is_error: bool,
    /// Why the turn failed (`api-error`, `usage-limit`, `interrupted`), when it did.
    pub error_reason: Option<&'static str>,
    /// The provider's id for the turn, when its records carry one (Codex).
    pub turn_id: Option<String>,
    /// Output tokens the model produced in the turn so far, when the transcript records usage
    /// (shown by the progress line).
    pub output_tokens: Option<u64>,
}

impl TranscriptTurn {
    /// The turn ended because a person interrupted it (Esc).
    pub fn interrupted(&self) -> bool {
        self.ended && self.error_reason == Some("interrupted")
    }
}

/// Adds `n` to a token count that may not have started yet.
pub fn add_tokens(count: &mut Option<u64>, n: Option<u64>) {
    if let Some(n) = n {
        *count = Some(count.unwrap_or(0) + n);
    }
}

/// A transcript record's place in the CLI's chain of records ([`ProviderModule::record_link`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct RecordLink {
    #[serde(rename = "uuid")]
    pub id: Option<String>,
    #[serde(rename = "parentUuid")]
    pub parent: Option<String>,
}

/// What a CLI's files and environment say about its sign-in and onboarding (`umbel doctor`'s
/// `NAME-sign-in` line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignIn {
    /// It will open on its prompt: how it is signed in.
    Ready(String),
    /// It will open on a sign-in or first-run screen (where spawn stops, exit 126): why, and
    /// the exact remedy.
    Missing { detail: String, fix: String },
}

impl SignIn {
    /// A missing sign-in: what is missing and what to do.
    pub fn missing(detail: impl Into<String>, fix: impl Into<String>) -> Self {
        SignIn::Missing {
            detail: detail.into(),
            fix: fix.into(),
        }
    }
}
