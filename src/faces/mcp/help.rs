//! The words a host model reads: the server instructions sent at initialisation and the
//! `umbel_help` topics. Plain text only; nothing here touches a worker.

use crate::core::errors::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;

/// Sent with the server info; hosts put it in the model's context.
pub const INSTRUCTIONS: &str = "\
umbel drives interactive agent CLIs (claude, codex, gemini) in tmux panes, called workers.
Lifecycle: umbel_spawn -> umbel_send -> umbel_wait -> umbel_read; umbel_kill when done.
umbel_send only submits the prompt and returns a position; it does not wait. Pair every send \
with an umbel_wait (pass since = that position).
Branch on the wait outcome: stop = the turn ended, umbel_read the answer; provider-error = the \
provider failed the turn (see reason, retryAt); idle / timeout = nothing finished in time (wait \
again or kill); dead = the CLI exited (kill, then spawn anew); input = it waits for a person \
(a pending tool: umbel_approve or umbel_deny it; a question: umbel_answer it with a choice; \
ask your user first, else tell your user). \
Every outcome but stop comes back as an error result carrying the outcome.
Call umbel_help (topic: lifecycle | providers | outcomes) for details.";

/// The `umbel_help` input.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HelpArgs {
    /// One of `lifecycle`, `providers`, `outcomes`; an overview when omitted.
    #[serde(default)]
    pub topic: Option<String>,
}

/// The topics `umbel_help` knows.
pub const TOPICS: [&str; 3] = ["lifecycle", "providers", "outcomes"];

const OVERVIEW: &str = "\
umbel runs agent CLIs in tmux and tells you when a turn ended, from the CLI's own hooks.
Tools: umbel_spawn, umbel_send, umbel_wait, umbel_interrupt, umbel_mode, umbel_model, umbel_budget, umbel_read, umbel_status, umbel_ls, umbel_kill, \
umbel_actions, umbel_diff, umbel_capture, umbel_logs, umbel_explain, umbel_prune, umbel_park, \
umbel_resume, umbel_help. \
Their inputs are \
the flags of the `umbel` command line, in camelCase.
Topics: lifecycle, providers, outcomes.";

const LIFECYCLE: &str = "\
1. umbel_spawn {name, provider, cwd, model?, env?, unattended?} starts a worker and returns when \
it is ready for prompts (its meta: name, provider, cwd, sessionId...).
2. umbel_send {name, prompt} pastes the prompt, confirms the CLI took it, and returns \
{position, submitted, confirmedBy, enters, queuedMs}. It does not wait, and it refuses a busy \
worker (code busy). A failed send says textReachedComposer and composerCleared.
3. umbel_wait {name, since: position, timeout?: \"10m\", idleTimeout?, file?, pattern?} blocks \
until the turn ends; default timeout 30m. Outcome stop is a normal result; any other outcome is \
an error result with the outcome as structured content.
4. umbel_read {name} returns the last finished turn's answer: {text, isError, source, ...}; \
{name, turn: N}, {name, all: true} or {name, sinceTurn: N} read earlier turns. umbel_actions \
{name, turn?} lists the tools a turn ran; umbel_diff {name, from?, to?} compares two answers.
5. Repeat 2-4 for more turns, then umbel_kill {name} (purge: true also deletes its folder; \
without it a tombstone keeps the last screen). umbel_status / umbel_ls show what workers are \
doing (starting, ready, busy, needs-input, parked, dead) and their current position.
6. umbel_park {names: [..]} or {idleFor: \"30m\"} ends an idle worker's CLI and keeps its \
conversation (state parked, its memory given back); the next umbel_send resumes it by itself \
(its result says resumed: true). umbel_resume {name} brings back a parked worker, or a dead one \
whose tmux server was killed.
Cancelling a umbel_wait request stops the wait only; the worker keeps running.";

const PROVIDERS: &str = "\
provider: claude (Claude Code, default), codex (Codex CLI), gemini (Gemini CLI).
Each runs its real interactive TUI on the user's subscription; umbel reads answers from the \
CLI's hooks and transcript. The binaries come from PATH, or UMBEL_CLAUDE_BIN, \
UMBEL_CODEX_BIN, UMBEL_GEMINI_BIN in the server's environment.
model asks the CLI for a model; unattended skips its permission prompts; onPermission \"deny\" refuses a tool needing approval the way the CLI's print mode does and the turn goes on (\"stop\", the default, ends the wait as input/permission; \"allow\" = unattended).
The CLI's own flags pass through: permissionMode, allowedTools, disallowedTools, appendSystemPrompt, systemPrompt, maxTurns, mcpConfig, addDir, resume, continue, and cliArgs (a list, given to the CLI untouched); one a provider lacks is refused with a usage error.
env adds variables for the worker: \"K=V\", or \"NAME\" to pass the server's own value by name \
(keeps secrets out of tool arguments).
A CLI that is not signed in makes spawn fail with code sign_in: a person must run it once.";

const OUTCOMES: &str = "\
umbel_wait outcomes (CLI exit code in brackets):
stop (0): the turn ended; umbel_read has the answer. With a guard, it passed its checks \
(attempts says after how many answers; structuredOutput holds the JSON a schema accepted).
rejected (121): every answer failed the guard (accept command or schema) up to maxAttempts; \
check.output is what the last check said.
provider-error (122): the provider failed the turn; reason api-error, usage-limit (retryAt says \
when) or interrupted. umbel_read shows the provider's message.
idle (123): nothing moved for idleTimeout.
timeout (124): the timeout passed; the turn may still be running (wait again, or kill).
dead (125): the CLI process ended; exit and screen say how. Kill it and spawn anew.
input (126): the CLI waits for a person; reason permission (pendingTool names the tool), \
question, sign-in, trust or dialog (a dialog umbel does not answer for you; screen shows it).
Failed calls are error results {error: {code, message}}; codes include not_found, busy, dead, \
exists, usage, sign_in, dialog, startup_failed, not_submitted, no_turn, user_config, \
check_failed, interrupted (all: docs/mcp.md).
guard (on umbel_send, enforced by the umbel_wait that follows; or on umbel_wait itself): \
{accept: \"cmd args\" or [argv], acceptShell, schema: \"/abs/schema.json\", maxAttempts (default 3), \
checkTimeout (default 60s)}. A rejected answer is sent back to the worker as feedback and the \
turn waited for again, all within the wait's timeout.";

/// The text of a topic, or a usage error naming the topics.
pub fn topic(topic: Option<&str>) -> Result<&'static str> {
    match topic.map(str::trim) {
        None | Some("") => Ok(OVERVIEW),
        Some("lifecycle") => Ok(LIFECYCLE),
        Some("providers") => Ok(PROVIDERS),
        Some("outcomes") => Ok(OUTCOMES),
        Some(other) => Err(Error::usage(format!(
            "unknown help topic `{other}`; the topics are {}",
            TOPICS.join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topic_has_text_and_an_unknown_one_lists_them() {
        for t in TOPICS {
            assert!(!topic(Some(t)).unwrap().is_empty());
        }
        let err = topic(Some("nope")).unwrap_err();
        assert_eq!(err.code(), "usage");
        for t in TOPICS {
            assert!(err.to_string().contains(t), "{err}");
        }
    }

    #[test]
    fn the_instructions_name_every_outcome() {
        for o in ["stop", "provider-error", "idle", "timeout", "dead", "input"] {
            assert!(INSTRUCTIONS.contains(o), "{o}");
        }
    }
}
