//! What to do next, per error kind and per wait outcome: one short sentence a person or a host
//! model can act on. The CLI prints it after the error, `--json` and MCP carry it as `hint`, and
//! an MCP error result's text holds it (hosts show the model only that text). The error table
//! also carries each kind's stable code and exit code, so a new kind is one row.

use super::errors::Error;
use super::outcome::OutcomeKind;

impl Error {
    /// The next step for this kind of error.
    pub fn hint(&self) -> &'static str {
        self.row().2
    }

    /// One row per error kind, matched exhaustively (a new kind cannot go without its row):
    /// its stable code (`Error::code`), its exit code (`Error::exit_code`: 2 for a wrong
    /// request, an outcome's code where it is one — `dead` 125, a person needed 126, a signal
    /// 130 —, 255 for ssh, else 1; docs/outcomes.md; `remote` and `not_delivered` carry the
    /// host's or the outcome's own) and the next step (`hint`).
    #[rustfmt::skip] // a table: one row per error kind, unwrapped
    pub(super) fn row(&self) -> (&'static str, u8, &'static str) {
        match self {
            Error::SendFailed { error, .. } => error.row(),
            Error::Usage { .. } => ("usage", 2, "check the arguments against `umbel <verb> --help` (over MCP: the tool's input schema, or umbel_help)"),
            Error::InvalidName { .. } => ("invalid_name", 2, "name workers with lowercase letters, digits and `-`, starting with a letter or digit (at most 63 characters)"),
            Error::EnvUnset { .. } => ("env_unset", 2, "export the variable before starting umbel, or pass it as `--env NAME=value`"),
            Error::CwdMissing { .. } => ("cwd_missing", 2, "create the folder, or pass one that exists"),
            Error::BinaryNotFound { .. } => ("binary_not_found", 1, "install the CLI, or point the named UMBEL_*_BIN variable at it; `umbel doctor` checks"),
            Error::Exists { .. } => ("exists", 1, "pick another name, or `umbel kill --purge NAME` the old worker first"),
            Error::SessionTaken { .. } => ("session_taken", 1, "pick another name, or give each state root its own socket (unset UMBEL_TMUX_SOCKET: the default is derived from the state root)"),
            Error::Removed { .. } => ("removed", 1, "`umbel kill NAME` ends what is left of it, then spawn it again"),
            Error::NotFound { .. } => ("not_found", 1, "list the workers with `umbel ls` (umbel_ls)"),
            Error::Dead { .. } => ("dead", 125, "look at its last screen (`umbel capture NAME`); `umbel resume NAME` where the message says it can, else `umbel kill --purge NAME` and spawn it again"),
            Error::NotResumable { .. } => ("not_resumable", 1, "`umbel status NAME` says what the worker is doing; a worker whose conversation is gone can only be spawned anew"),
            Error::Busy { .. } => ("busy", 1, "wait for the running turn to end (`umbel wait NAME`), then send again"),
            Error::Budget { .. } => ("budget", 120, "raise the limit (`umbel budget NAME --max-tokens N …`, umbel_budget), then send again"),
            Error::NotSubmitted { .. } => ("not_submitted", 1, "look at the screen (`umbel capture NAME`): the CLI may show a dialog; then send again"),
            Error::SignIn { .. } => ("sign_in", 126, "sign in once by running the CLI in a terminal, then spawn again"),
            Error::DialogOpen { .. } => ("dialog", 126, "answer the dialog yourself (`umbel attach NAME`, detach with C-b d), then wait again"),
            Error::StartupFailed { .. } => ("startup_failed", 1, "read the last screen in the error; `umbel doctor` checks tmux, the binaries and the hooks"),
            Error::Tmux { .. } => ("tmux", 1, "run `umbel doctor` to check tmux and umbel's private socket"),
            Error::Git { .. } => ("git", 1, "run the git command in the folder it names to see why; nothing of the worker's worktree was left half-made"),
            Error::NotARepo { .. } => ("not_a_repo", 2, "spawn in a git repository (`--cwd` inside one, or `git init`), or without `--worktree`"),
            Error::BranchExists { .. } => ("branch_exists", 1, "name a new branch (`--worktree BRANCH`), or delete the old one (`git branch -D BRANCH`) if its work is done"),
            Error::NoWorktree { .. } => ("no_worktree", 2, "spawn the worker with `--worktree` to have its changes on a branch of their own; `umbel diff NAME` without `--git` compares its answers"),
            Error::Io { .. } => ("io", 1, "check that the path exists, is writable by you, and that the disk is not full"),
            Error::Corrupt { .. } => ("corrupt_state", 1, "umbel's own file cannot be read; the message says what to do about that file (a worker's: `umbel kill --purge NAME`)"),
            Error::NoAnswer { .. } => ("no_answer", 1, "wait for the turn to end first (`umbel wait NAME`), then read"),
            Error::AnswerLost { .. } => ("answer_lost", 1, "`umbel read NAME --all` shows the turns the transcript holds"),
            Error::NoTurn { .. } => ("no_turn", 2, "send a prompt first, or `wait --since POS` for whatever comes next"),
            Error::TurnOutOfRange { .. } => ("turn_out_of_range", 2, "pick a turn in range; `umbel read NAME --all` lists them"),
            Error::InvalidWorkflow { .. } => ("invalid_workflow", 2, "fix each listed line; `umbel run --check FILE` checks a workflow without running it"),
            Error::UserConfig { .. } => ("user_config", 1, "fix the named file (or move it aside), then spawn again"),
            Error::CheckFailed { .. } => ("check_failed", 1, "run the check command by hand in the worker's folder to see why it fails"),
            Error::StdinNotText { .. } => ("stdin_not_text", 2, "pipe text, or pass the prompt as an argument"),
            Error::Interrupted => ("interrupted", 130, "run it again; the worker was left as it was"),
            Error::HostUnreachable { .. } => ("host_unreachable", 255, "check that `ssh HOST true` works from here (docs/remote.md); the worker there is untouched"),
            Error::HostKey { .. } => ("host_key", 255, "verify the host's key fingerprint and accept it with `ssh HOST` once in a terminal"),
            Error::RemoteUmbel { .. } => ("remote_umbel", 1, "install the same umbel version on the host, on the PATH of `ssh HOST`, or set UMBEL_REMOTE_UMBEL"),
            Error::Remote { .. } => ("remote", 1, "act on the host's error as for a local worker (its code is in the message)"),
            Error::NotAsking { .. } => ("not_asking", 1, "`umbel status NAME` says what it is doing; `umbel approvals` lists the workers waiting on an approval"),
            Error::AlreadyAnswered { .. } => ("already_answered", 1, "nothing to do: the other answer stands; `umbel wait NAME` for what it brought"),
            Error::ApprovalChanged { .. } => ("approval_changed", 1, "look at the new pending tool (`umbel approvals`), then answer it with its id"),
            Error::NotAnswered { .. } => ("not_answered", 1, "look at the screen (`umbel capture NAME`, `umbel explain NAME`); the keys were pressed, so do not answer twice blind"),
            Error::NotInterrupted { .. } => ("not_interrupted", 1, "look at the screen (`umbel capture NAME`, `umbel explain NAME`); `umbel kill NAME` ends the worker"),
            Error::NotDelivered { .. } => ("not_delivered", 1, "nothing was typed: look at the worker (`umbel status NAME`, `umbel explain NAME`), then send again"),
            Error::UnsupportedRelease { .. } => ("unsupported_release", 1, "upgrade the CLI with the command in the message (docs/providers.md lists the supported releases), or point its UMBEL_*_BIN variable at a newer one"),
        }
    }
}

impl OutcomeKind {
    /// The next step after a wait that ended this way.
    #[rustfmt::skip] // a table: one row per outcome, unwrapped
    pub fn hint(self) -> &'static str {
        match self {
            OutcomeKind::Stop => "read the answer (`umbel read NAME`, umbel_read)",
            OutcomeKind::Rejected => "the guardrails rejected every attempt: read the last check's output, then send a clearer prompt",
            OutcomeKind::ProviderError => "the provider failed the turn: try again after `retryAt` if given, or check the provider's status",
            OutcomeKind::Idle => "nothing happened for the idle time: wait again, or look at the screen (`umbel capture NAME`)",
            OutcomeKind::Timeout => "the turn is still running: wait again (`--since` the same position) or kill the worker",
            OutcomeKind::Dead => "the CLI exited: read its last screen, `umbel kill --purge NAME`, then spawn anew",
            OutcomeKind::Input => "the worker waits for a person: a pending tool is answered with `umbel approve NAME --expect ID` or `umbel deny NAME` (umbel_approve, umbel_deny), a question with `umbel answer NAME CHOICE` (umbel_answer); ask your user first; another dialog with `umbel attach NAME`",
            OutcomeKind::Budget => "the worker's budget stopped the turn: raise the limit (`umbel budget NAME --max-tokens N …`, umbel_budget) to go on; `umbel read NAME` has what had streamed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_and_outcome_has_a_sentence_to_act_on() {
        let errors = [
            Error::usage("x"),
            Error::NotFound { name: "w".into() },
            Error::Interrupted,
        ];
        for e in &errors {
            assert!(e.hint().len() > 20, "{}", e.code());
        }
        assert!(OutcomeKind::Dead.hint().contains("spawn"));
        assert!(
            Error::NotFound { name: "w".into() }
                .hint()
                .contains("umbel ls")
        );
    }
}
