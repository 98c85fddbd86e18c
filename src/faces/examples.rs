//! The `Examples:` block at the end of each verb's `--help`: a few real, runnable lines.

/// An example line that uses `--schema`: left out of a build without the `schema` feature,
/// whose `--help` would otherwise show a flag it does not have.
#[cfg(feature = "schema")]
macro_rules! schema_example {
    ($line:literal) => {
        $line
    };
}
#[cfg(not(feature = "schema"))]
macro_rules! schema_example {
    ($line:literal) => {
        ""
    };
}

/// `umbel --help`: the everyday commands, and the exit codes.
pub const MAIN: &str = concat!(
    "\
Examples:
  umbel -p \"Summarise README.md\"                 one prompt, answer on stdout (like claude -p)
  echo \"Explain this\" | umbel -p --output-format json
  umbel spawn --name w1 --cwd ~/proj            start a worker
  pos=$(umbel send w1 \"Write the tests\")         prompt it (prints an event position)
  umbel wait w1 --since \"$pos\" --timeout 10m    block until the turn ends (exit code = outcome)
  umbel read w1                                 the answer
  umbel read w1 --all                           every turn (also: umbel actions, umbel diff)
  umbel kill w1                                 stop it (keeps a tombstone; --purge removes it)
  umbel run pipeline.yaml                       run a workflow (--check validates only)
",
    schema_example!(
        "  umbel -p \"Rate it\" --schema verdict.json      answer must validate; retried with feedback\n"
    ),
    "  umbel -p \"Say hi\" --warm                      leave a worker ready for the next -p --warm
  umbel send w1 \"Fix it\" --accept \"cargo test\"  the next wait retries until the check passes

Wait outcomes (exit codes): stop 0, rejected 121, provider-error 122, idle 123, timeout 124,
dead 125, input 126; usage errors 2, other failures 1, interrupted 130.

Environment:
  UMBEL_STATE        the state folder: workers, runs, hooks (default: ~/.umbel)
  UMBEL_TMUX_SOCKET  the name of umbel's private tmux socket (default: derived from UMBEL_STATE)
  UMBEL_CLAUDE_BIN   the claude binary (default: `claude` on PATH); also UMBEL_CODEX_BIN,
                     UMBEL_GEMINI_BIN, UMBEL_QWEN_BIN, UMBEL_OPENCODE_BIN, UMBEL_COPILOT_BIN
  UMBEL_PROGRESS     progress on stderr: live, plain or off (default: live on a terminal)
  UMBEL_WARM         1: every unnamed -p is --warm; UMBEL_WARM_TTL how long its worker waits
                     (default: 10m)
  NO_COLOR           no colour in progress lines; TERM=dumb: plain lines, no colour
  TMUX_TMPDIR        where tmux puts its sockets (as for tmux itself)"
);

pub const SPAWN: &str = "\
Examples:
  umbel spawn --name w1                         claude in the current folder
  umbel spawn --name rev --provider codex --cwd ~/proj
  umbel spawn --name g1 --provider gemini --env GEMINI_API_KEY    pass a secret by name
  umbel spawn --name bot --unattended --json    skip permission prompts (as root: IS_SANDBOX=1)";

pub const SEND: &str = "\
Examples:
  pos=$(umbel send w1 \"Now fix them\") && umbel wait w1 --since \"$pos\"
  git diff | umbel send w1 -                    the prompt from standard input
  umbel send w1 \"Make the tests pass\" --accept \"cargo test\"   the next wait enforces it
  umbel send w1 \"Then the docs\" --queue        after the running turn (and earlier queued ones)";

pub const WAIT: &str = concat!(
    "\
Examples:
  umbel wait w1                                 until the latest turn ends (exit 0 = stop)
  umbel wait w1 --since \"$pos\" --timeout 10m    the turn that `send` started
",
    schema_example!(
        "  umbel wait w1 --schema verdict.json --max-attempts 5 --json | jq .structuredOutput\n"
    ),
    "  umbel wait w1@4 w2@7 w3 --any                 the first to end: `w2 stop` (--all: every one)"
);

pub const READ: &str = "\
Examples:
  umbel read w1                                 the last answer, as text
  umbel read w1 --json | jq -r .text
  umbel read w1 --turn 2                        the second turn's answer
  umbel read w1 --since-turn 3 --json           every turn after the third, as JSON";

pub const ACTIONS: &str = "\
Examples:
  umbel actions w1                              the tools the last turn ran, one per line
  umbel actions w1 --turn 2 --json              those of the second turn, as JSON";

pub const DIFF: &str = "\
Examples:
  umbel diff w1                                 the last answer against the one before
  umbel diff w1 --from 1 --to 3                 the third answer against the first";

pub const ATTACH: &str = "\
Examples:
  umbel attach w1                               watch or type; detach with Ctrl-b d
  umbel ls && umbel attach rev                  pick a worker, then look at it";

pub const STATUS: &str = "\
Examples:
  umbel status                                  every worker, one line each
  umbel status w1                               one worker in detail
  umbel status w1 --json | jq -r .state";

pub const LS: &str = "\
Examples:
  umbel ls
  umbel ls --json | jq -r '.[].name'";

pub const TOP: &str = "\
Examples:
  umbel top                                     the live view (q quits, Enter attaches)
  umbel top --once                              one frame as plain text
  NO_COLOR=1 umbel top                          without colours";

pub const KILL: &str = "\
Examples:
  umbel kill w1                                 stop it (`killed w1`); the folder stays
  umbel kill w1 --purge                         stop it and delete its folder (`purged w1`)
  umbel kill --all --purge                      every worker of this state root";

pub const PARK: &str = "\
Examples:
  umbel park w1                                 end its CLI, keep its conversation (`parked w1`)
  umbel send w1 'go on'                         starts its CLI again on the same conversation, then sends
  umbel park --idle-for 30m                     park every worker idle for 30 minutes (cron)";

pub const RESUME: &str = "\
Examples:
  umbel resume w1                               a parked or dead worker's CLI back on its conversation
  umbel status w1                               a dead worker that can come back says `umbel resume w1`";

pub const CAPTURE: &str = "\
Examples:
  umbel capture w1                              the screen as a person would see it
  umbel capture w1 --history | less             with the scroll-back";

pub const EXPLAIN: &str = "\
Examples:
  umbel explain w1                              why w1 is busy, ready, waiting or dead
  umbel explain w1 --json | jq .next            what umbel would do next, and why
  umbel explain --screen s.txt --provider codex  how umbel reads a saved screen";

pub const LOGS: &str = "\
Examples:
  umbel logs w1                                 every hook event so far
  umbel logs w1 -f                              and follow new ones (Ctrl-C stops)";

pub const EVENTS: &str = "\
Examples:
  umbel events                                  every worker's state changes so far, oldest first
  umbel events -f --since 10m                   the last ten minutes, then follow (Ctrl-C stops)
  umbel events -f --json w1 w2                  two workers, as JSON Lines
  umbel events -f --exec 'notify-send \"umbel: $UMBEL_WORKER\" \"$UMBEL_EVENT\"'   (docs/notifications.md)";

pub const PRUNE: &str = "\
Examples:
  umbel prune                                   remove every dead worker and tombstone
  umbel prune --older-than 1d --json";

pub const RUN: &str = "\
Examples:
  umbel run examples/review.yaml                run a workflow (progress on stderr)
  umbel run pipeline.yaml --check               validate it, run nothing
  umbel run pipeline.yaml --keep --json         leave the workers up; print the run record
  umbel run --resume wf-k3x9aa                  rerun what did not finish";

pub const DOCTOR: &str = "\
Examples:
  umbel doctor                                  one line per check: ok, warn or fail
  umbel doctor --json | jq '.checks[] | select(.level != \"ok\")'
  UMBEL_CLAUDE_BIN=~/bin/claude umbel doctor    check another claude binary";

pub const INTERRUPT: &str = "\
Examples:
  umbel interrupt w1                            Esc in w1's pane; returns once the turn is interrupted
  umbel interrupt w1 --json | jq .interrupted   false when no turn was running
  pos=$(umbel interrupt w1) && umbel send w1 \"Stop that; do this instead\"";

pub const MODE: &str = "\
Examples:
  umbel mode w1                                 the mode w1's screen shows, and the modes its key cycles
  umbel mode w1 plan                            Shift+Tab until w1's screen shows plan mode
  umbel mode w1 acceptEdits --json              {\"name\":\"w1\",\"mode\":\"acceptEdits\",\"modes\":[…],\"pressed\":2}";

pub const BUDGET: &str = "\
Examples:
  umbel budget w1                               its limits, and the tokens, dollars, prompts used
  umbel budget w1 --max-tokens 4M               raise its token limit (the others stay)
  umbel budget w1 --max-prompts 10 --json       {\"limits\":{\"maxPrompts\":10},\"used\":{…},…}
  umbel budget --fleet --max-tokens 20M         every worker here, together (killed ones too)";

pub const MODEL: &str = "\
Examples:
  umbel model w1                                w1's model, and the models its /model lists
  umbel model w1 sonnet                         claude's /model walked to Sonnet, for this session
  umbel model w1 gpt-6.2-astra --json           {\"model\":\"gpt-6.2-astra\",\"pressed\":5,…}";

pub const APPROVE: &str = "\
Examples:
  umbel approve w1                              the tool w1 waits on runs (its CLI's own key)
  umbel approve w1 --expect 7 --wait            only approval 7; then wait for the turn's end
  umbel approve w1 --always --json              and the CLI stops asking for it this session";

pub const DENY: &str = "\
Examples:
  umbel deny w1                                 the tool is refused; w1 is ready for a prompt
  umbel deny w1 --reason \"Use the test database, not production\"";

pub const ANSWER: &str = "\
Examples:
  umbel answer w1 2                             pick the question's second choice
  umbel answer w1 Blue --wait                   pick it by its label, then wait for the turn
  umbel deny w1                                 decline the question instead";

pub const APPROVALS: &str = "\
Examples:
  umbel approvals                               every worker waiting on a tool, oldest first
  umbel approvals --json | jq -r '.[] | \"\\(.name) \\(.id)\"'
  umbel approvals -f                            a line per approval asked for and per answer";

pub const RELEASES: &str = "\
Examples:
  umbel releases                                each CLI's supported window and tested releases
  umbel releases --json | jq -r '.[] | \"\\(.provider) \\(.oldest)\"'";

pub const COMPLETIONS: &str = "\
Examples:
  umbel completions bash > ~/.local/share/bash-completion/completions/umbel
  umbel completions zsh > \"${fpath[1]}/_umbel\"
  umbel completions fish > ~/.config/fish/completions/umbel.fish";

pub const MCP: &str = "\
Examples:
  umbel mcp                                     serve on stdio (an MCP host starts this)
  claude mcp add umbel -- umbel mcp             register it with Claude Code";

/// `umbel serve`.
pub const SERVE: &str = "\
Examples:
  umbel serve                                   loopback, a free port; open the printed URL
  umbel serve --listen 127.0.0.1:8421           a fixed port (the token is new each start)
  umbel serve --listen 0.0.0.0:8421             reachable from the network: prefer ssh -L to loopback";

/// `umbel acp`.
pub const ACP: &str = "\
Examples:
  umbel acp                                     serve on stdio (an editor starts this)
  umbel acp --provider codex --model gpt-5      every session a codex worker on that model
  umbel acp --on-permission deny                tools that need approval are refused";
