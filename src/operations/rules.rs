//! A worker's rules (`spawn --allowed-tools`, `--disallowed-tools`), applied by umbel on the
//! CLI's permission hook, the same on every CLI. A spawn with rules leaves two files in the
//! worker's folder: `rules.json` (the rules as written) and `on-ask`, which `event.sh` runs after
//! each hook line; on the CLI's ask event it starts `umbel rule-answer NAME` detached. That
//! answers the pending approval with the CLI's own keys when a rule decides it (`approve`'s
//! path, logged `answered` by `rule`: `rule_answer`), and leaves it to a person otherwise. What
//! goes wrong on that path is appended to `rules.log` in the worker's folder.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::files;
use crate::adapters::host::{home_dir, now_ms, own_binary};
use crate::core::approvals::Asked;
use crate::core::errors::Result;
use crate::core::name::WorkerName;
use crate::core::rules::{Place, RuleSet, Verdict};
use crate::core::worker_env::shell_quote;
use std::time::Duration;

/// The rules, as written, in the worker's folder.
pub const RULES_FILE: &str = "rules.json";
/// The script `event.sh` runs after each hook line of a worker with rules.
pub const ON_ASK: &str = "on-ask";
/// Where the rule answerer reports what went wrong.
pub const RULES_LOG: &str = "rules.log";
/// The hidden verb the script starts.
pub const RULE_ANSWER_VERB: &str = "rule-answer";
/// How long a pending approval a rule decides is left to the rule answerer before `wait` says a
/// person is needed after all (the answerer failed: see `rules.log`).
pub const RULE_GRACE: Duration = Duration::from_secs(30);

/// Writes the worker's rules and its `on-ask` script (nothing without rules).
pub fn put(ctx: &Ctx, name: &WorkerName, rules: &RuleSet, ask_event: &str) -> Result<()> {
    if rules.is_empty() {
        return Ok(());
    }
    ctx.state.write_json(name, RULES_FILE, Some(rules))?;
    let umbel = own_binary()?;
    let script = format!(
        "# umbel: this worker's rules answer its approvals (written by `umbel spawn`).\n\
         [ \"$1\" = {event} ] || exit 0\n\
         {vars} exec {umbel} {verb} {name} </dev/null >/dev/null 2>&1\n",
        event = shell_quote(ask_event),
        vars = ctx.own_vars().join(" "),
        umbel = shell_quote(&umbel.to_string_lossy()),
        verb = RULE_ANSWER_VERB,
        name = shell_quote(name.as_str()),
    );
    files::write_private(&ctx.state.session_dir(name).join(ON_ASK), &script)
}

/// The worker's rules (none when it was spawned without); a rules.json that cannot be read or
/// understood is an error, never "no rules".
pub fn of(ctx: &Ctx, worker: &Worker) -> Result<RuleSet> {
    Ok(ctx
        .state
        .read_record(&worker.name, RULES_FILE)?
        .unwrap_or_default())
}

/// What the worker's rules say about the approval it was asked.
pub fn verdict(worker: &Worker, rules: &RuleSet, asked: &Asked) -> Verdict {
    // A question is the user's to answer: no rule picks a choice.
    if asked.reason != "permission" {
        return Verdict::Ask;
    }
    let (Some(tool), Some(input)) = (asked.tool_name(), asked.tool_input()) else {
        return Verdict::Ask;
    };
    let home = home_dir();
    let place = Place {
        cwd: &worker.meta.cwd,
        home: home.as_deref(),
    };
    let names = worker.provider().approval().tools;
    rules.verdict(names, tool, input, place)
}

/// Whether the worker's rules will answer `asked` (so `wait` does not call a person yet).
pub fn will_answer(ctx: &Ctx, worker: &Worker, asked: &Asked) -> bool {
    // Rules that cannot be read answer nothing: a person is asked (the answerer logs why).
    let rules = of(ctx, worker).unwrap_or_default();
    !rules.is_empty()
        && verdict(worker, &rules, asked) != Verdict::Ask
        && now_ms().saturating_sub((asked.at_ns / 1_000_000) as u64) < RULE_GRACE.as_millis() as u64
}
