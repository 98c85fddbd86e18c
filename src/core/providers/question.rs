//! How each CLI puts its model's question to the user (`umbel answer`): the tool the model asks
//! through, the hooks that show it asked (and where they hold the questions), the lines that
//! prove the dialog is up, and the keys. Recorded on the real releases (claude 2.1.332, gemini
//! 0.61.0, qwen 0.24.4, opencode 1.18.33): each draws the choices numbered and a digit picks one
//! at once; Esc declines, which ends the turn as a refused tool does.
//!
//! codex 0.171.0 has no dialog here: its `request_user_input` works only in Plan mode, and
//! outside it the call fails at once and the turn goes on.

use super::EventClass;
use super::approval::Refusal;
use serde_json::{Value, json};

/// A CLI's question dialog, as data.
#[derive(Debug)]
pub struct QuestionDialog {
    /// The tool the model asks through, as the CLI's hooks name it.
    pub tool: &'static str,
    /// The hooks that fire while the dialog is up, and where each holds the questions.
    pub asked: &'static [AskedHook],
    /// Texts that all appear on a screen showing the dialog (each on some line).
    pub shown: &'static [&'static str],
    /// Keys that decline to answer.
    pub decline: &'static [&'static str],
    /// What the CLI leaves behind when a decline ends the turn.
    pub declined: Refusal,
}

/// A hook that fires while the dialog is up.
#[derive(Debug)]
pub struct AskedHook {
    /// The hook's event.
    pub event: &'static str,
    /// Where its payload names the tool (a JSON pointer); `None`: the hook is the question
    /// tool's own (opencode's `QuestionAsked`).
    pub name: Option<&'static str>,
    /// Where its payload holds the tool's input, `{questions: […]}` (a JSON pointer; `""` is the
    /// payload itself).
    pub input: &'static str,
}

impl QuestionDialog {
    /// The question tool `{name, input}` when the hook `event` with `payload` shows the dialog
    /// asked.
    pub fn asked_in(&self, event: &str, payload: Option<&Value>) -> Option<Value> {
        let payload = payload?;
        let hook = self.asked.iter().find(|h| h.event == event)?;
        let named = match hook.name {
            Some(pointer) => payload.pointer(pointer).and_then(Value::as_str) == Some(self.tool),
            None => true,
        };
        let input = payload.pointer(hook.input)?;
        (named && input.get("questions").is_some())
            .then(|| json!({"name": self.tool, "input": {"questions": input["questions"]}}))
    }

    /// `class` as a question when the hook shows the dialog asked. Any other ask about the
    /// question tool (gemini's `ToolPermission` notice after its `BeforeTool`) is the same
    /// question's second word: a question that names no tool, so that, landing after a quick
    /// answer, it is never taken for a new question or for the answer's evidence.
    pub fn reclass(&self, event: &str, payload: Option<&Value>, class: EventClass) -> EventClass {
        if let Some(tool) = self.asked_in(event, payload) {
            return EventClass::NeedsInput {
                reason: "question",
                tool: Some(tool),
            };
        }
        match class {
            EventClass::NeedsInput {
                tool: Some(tool), ..
            } if tool.get("name").and_then(Value::as_str) == Some(self.tool) => {
                EventClass::NeedsInput {
                    reason: "question",
                    tool: None,
                }
            }
            other => other,
        }
    }

    /// Whether `screen` shows the dialog.
    pub fn shown_on(&self, screen: &str) -> bool {
        self.shown.iter().all(|text| screen.contains(text))
    }

    /// The key that picks choice `index` (0-based): its number, as the dialog shows it.
    pub fn pick(&self, index: usize) -> String {
        (index + 1).to_string()
    }
}

/// A hook that names the tool in `tool_name` and holds its input in `tool_input`.
const fn tool_hook(event: &'static str) -> AskedHook {
    AskedHook {
        event,
        name: Some("/tool_name"),
        input: "/tool_input",
    }
}

/// claude 2.1.332: `PreToolUse` then `PermissionRequest` for `AskUserQuestion`; "☐ Color …
/// ❯ 1. Red … 3. Type something. … 4. Chat about this · Enter to select · ↑/↓ to navigate ·
/// Esc to cancel". A digit picks; `PostToolUse` carries the answer. Esc fires no hook: the
/// transcript's turn ends ("Declined to answer Claude's questions").
pub const CLAUDE: QuestionDialog = QuestionDialog {
    tool: "AskUserQuestion",
    asked: &[tool_hook("PreToolUse"), tool_hook("PermissionRequest")],
    shown: &["Enter to select", "Esc to cancel"],
    decline: &["Escape"],
    declined: Refusal::Transcript,
};

/// gemini 0.61.0: `BeforeTool` for `ask_user`, then its `ToolPermission` notice; "Answer
/// Questions … ● 1.  Red … 3.  Enter a custom value · Enter to select · ↑/↓ to navigate · Esc to
/// cancel". A digit picks; `AfterTool` carries the answer. Esc: `Request cancelled.`, no hook.
pub const GEMINI: QuestionDialog = QuestionDialog {
    tool: "ask_user",
    asked: &[tool_hook("BeforeTool")],
    shown: &["Answer Questions", "Enter to select"],
    decline: &["Escape"],
    declined: Refusal::Transcript,
};

/// qwen 0.24.4: `PermissionRequest` for `ask_user_question`; "? AskUserQuestion Ask user 1
/// question … ❯ 1. Red … 3. Type something... · ↑/↓: Navigate | Enter: Select | Esc: Cancel". A
/// digit picks; `PreToolUse`, `PostToolUse` follow.
pub const QWEN: QuestionDialog = QuestionDialog {
    tool: "ask_user_question",
    asked: &[tool_hook("PermissionRequest")],
    shown: &["Enter: Select", "Esc: Cancel"],
    decline: &["Escape"],
    declined: Refusal::Notice {
        event: "Notification",
        field: "notification_type",
        value: "idle_prompt",
    },
};

/// opencode 1.18.33: its bus's `question.asked` (umbel's plugin writes `QuestionAsked`, the
/// questions at the payload's top); "1. Red … 3. Type your own answer · ↑↓ select  enter submit
/// esc dismiss". A digit picks; the tool's update `completed` follows. Esc: the tool fails
/// ("The user dismissed this question") and the session goes idle.
pub const OPENCODE: QuestionDialog = QuestionDialog {
    tool: "question",
    asked: &[AskedHook {
        event: "QuestionAsked",
        name: None,
        input: "",
    }],
    shown: &["enter submit", "esc dismiss"],
    decline: &["Escape"],
    declined: Refusal::Hook,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_data::fixture;

    fn questions() -> Value {
        json!({"questions":[{"question":"Which color should the button be?","header":"Color",
            "options":[{"label":"Red","description":"A red button"},{"label":"Blue","description":"A blue button"}]}]})
    }

    #[test]
    fn the_hooks_that_show_a_question_become_a_question_with_its_input() {
        let pre = json!({"tool_name": "AskUserQuestion", "tool_input": questions()});
        let asked = CLAUDE.asked_in("PreToolUse", Some(&pre));
        assert_eq!(
            asked,
            Some(json!({"name": "AskUserQuestion", "input": questions()}))
        );
        let mut opencode = questions();
        opencode["id"] = json!("que_1");
        opencode["tool"] = json!({"callID": "toolu_1", "messageID": "msg_1"});
        assert_eq!(
            OPENCODE.asked_in("QuestionAsked", Some(&opencode)),
            Some(json!({"name": "question", "input": questions()}))
        );
    }

    #[test]
    fn another_tool_or_another_hook_is_no_question() {
        let bash = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
        assert_eq!(CLAUDE.asked_in("PreToolUse", Some(&bash)), None);
        let post = json!({"tool_name": "AskUserQuestion", "tool_input": questions()});
        assert_eq!(CLAUDE.asked_in("PostToolUse", Some(&post)), None);
        assert_eq!(CLAUDE.asked_in("PreToolUse", None), None);
    }

    #[test]
    fn a_later_ask_about_the_question_tool_is_the_same_question_naming_no_tool() {
        let notice = EventClass::NeedsInput {
            reason: "permission",
            tool: Some(json!({"name": "ask_user", "input": {"type": "ask_user"}})),
        };
        let class = GEMINI.reclass("Notification", None, notice);
        assert_eq!(
            class,
            EventClass::NeedsInput {
                reason: "question",
                tool: None
            }
        );
        let bash = EventClass::NeedsInput {
            reason: "permission",
            tool: Some(json!({"name": "run_shell_command"})),
        };
        assert_eq!(GEMINI.reclass("Notification", None, bash.clone()), bash);
    }

    #[test]
    fn each_recorded_dialog_is_recognised_and_the_approval_dialog_is_not() {
        let recorded = [
            (
                &CLAUDE,
                fixture!("claude/claude-2.1.332-question-dialog.txt"),
            ),
            (
                &GEMINI,
                fixture!("gemini/gemini-0.61.0-question-dialog.txt"),
            ),
            (&QWEN, fixture!("qwen/qwen-0.24.4-question-dialog.txt")),
            (
                &OPENCODE,
                fixture!("opencode/1.18.33/opencode-1.18.33-question-dialog.txt"),
            ),
        ];
        for (dialog, screen) in recorded {
            assert!(dialog.shown_on(screen), "{screen}");
        }
        let approval = fixture!("claude/claude-2.1.332-permission-prompt-bash.txt");
        assert!(!CLAUDE.shown_on(approval));
        let answered = fixture!("claude/claude-2.1.332-question-answered.txt");
        assert!(!CLAUDE.shown_on(answered));
        assert_eq!(CLAUDE.pick(1), "2");
    }
}
