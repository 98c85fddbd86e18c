//! The JSON umbel prints, as JSON Schemas generated from the structs it serialises: one schema
//! per verb's `--json` output (docs/json.md is rendered from [`cli_schemas`] and a test keeps it
//! so), the small wrapper objects the verbs print, and the MCP tools' `outputSchema`s, which
//! reuse the same structs ([`super::mcp`]).

use super::error_json::ErrorReply;
use crate::core::doctor::Check;
use crate::core::explain::Explanation;
use crate::core::meta::Meta;
use crate::core::outcome::Outcome;
use crate::core::status::WorkerStatus;
use crate::core::turns::Turn;
use crate::core::workflow::record::RunRecord;
use crate::operations::inspect::Pruned;
use crate::operations::turns::{TurnActions, TurnDiff};
use crate::operations::worker::Answer;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::Value;

pub use crate::core::send_verdict::Sent;

/// `kill`: the workers stopped (or removed, with `--purge`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Killed {
    /// Their names; empty when there was nothing to kill.
    pub killed: Vec<String>,
    /// Whether their folders were removed too (`--purge`).
    pub purged: bool,
    /// With `--purge`: those killed whose folder (and worktree) was kept, because the worktree
    /// holds work; the warning says why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
}

/// `capture`: the worker's screen.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Screen {
    /// The screen as text, one line per row.
    pub screen: String,
}

/// `umbel_logs`: the whole event log.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Log {
    /// The log, one `<ns> <Event> <payload file>` line per hook event.
    pub log: String,
}

/// `logs --json`: one event-log line (JSON Lines: one object per line, also with `-f`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogLine {
    /// The line's position in the log (0-based), as `wait --since` counts.
    pub position: usize,
    /// When the hook wrote it, in milliseconds since the Unix epoch (0 for an unreadable line).
    pub at_ms: u64,
    /// The hook event (`Stop`, `UserPromptSubmit`, …), `Exit` for the worker's exit, `Parked`
    /// and `Resumed` for a park and a resume (umbel's own lines), `?` for a line umbel cannot
    /// read.
    pub event: String,
    /// The file under the worker's `events/` folder holding the hook's payload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// The line as written in the log: `<ns> <Event> <payload file>`.
    pub line: String,
}

/// `status`/`ls` over MCP: the workers (a tool's structured content must be an object).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Workers {
    pub workers: Vec<WorkerStatus>,
}

/// `read --all`/`--since-turn` over MCP: the turns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Turns {
    pub turns: Vec<Turn>,
}

/// `umbel_help`: the text of a topic.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HelpText {
    /// The help text.
    pub text: String,
}

/// `doctor --json`: every check, and whether none failed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DoctorReport {
    /// No check failed.
    pub ok: bool,
    pub checks: Vec<Check>,
}

/// `run --check --json`: the workflow is valid; its steps in the waves they would run in.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunCheck {
    pub valid: bool,
    /// Step ids, one list per wave.
    pub waves: Vec<Vec<String>>,
}

/// What `read` shows: the last answer, one turn (`--turn`), or a list of turns (`--all`,
/// `--since-turn`).
// `L` is the list's form: an array on the command line, an object over MCP.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Read<L> {
    Last(Box<Answer>),
    One(Box<Turn>),
    Turns(L),
}

/// `read --json`: the list is an array.
pub type ReadJson = Read<Vec<Turn>>;

/// `umbel_read`'s structured content: the list wrapped in `{turns}` (a tool's structured
/// content must be an object).
pub type ReadTool = Read<Turns>;

/// `status --json`: one worker (with a name), or all of them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum StatusJson {
    One(Box<WorkerStatus>),
    All(Vec<WorkerStatus>),
}

/// `wait --json`: one worker's outcome, or with several (`--any`/`--all`) each one's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum WaitJson {
    One(Box<Outcome>),
    Many(crate::operations::wait::many::ManyWaited),
}

/// `diff --json`: two turns' answers compared, or with `--git` the worktree's changes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DiffJson {
    Turns(TurnDiff),
    Git(crate::core::worktree::GitDiff),
}

/// `run --json`: the run record, or with `--check` the waves.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RunJson {
    Record(Box<RunRecord>),
    Check(RunCheck),
}

/// The schema of what `T` serialises to (JSON Schema 2020-12, as MCP asks).
pub fn schema_of<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.to_value()
}

/// One verb's `--json` output.
pub struct VerbSchema {
    /// The verb, as typed (`spawn`, …).
    pub verb: &'static str,
    /// What it prints, in a sentence.
    pub what: &'static str,
    /// The schema of one printed object (of each line, for JSON Lines).
    pub schema: Value,
}

/// Every verb that prints JSON with `--json`, in `--help` order. Each also prints
/// [`ErrorReply`] (`{"error": …}`) when it fails.
pub fn cli_schemas() -> Vec<VerbSchema> {
    VERBS
        .iter()
        .map(|&(verb, what, schema)| VerbSchema {
            verb,
            what,
            schema: schema(),
        })
        .collect()
}

/// A verb, what it prints, and the schema of that.
type VerbRow = (&'static str, &'static str, fn() -> Value);

/// Every verb's row.
#[rustfmt::skip] // a table: one row per verb, unwrapped
const VERBS: &[VerbRow] = &[
    ("spawn", "The worker's meta.", schema_of::<Meta>),
    ("send", "The position to `wait --since`.", schema_of::<Sent>),
    ("wait", "The outcome (the exit code says the same); with several workers (`--any`, `--all`), the mode, the first worker to end (`--any`) and each ended worker's outcome.", schema_of::<WaitJson>),
    ("read", "The last answer; one turn with `--turn N`; an array of turns with `--all` or `--since-turn N`.", schema_of::<ReadJson>),
    ("actions", "The tools a turn ran.", schema_of::<TurnActions>),
    ("diff", "Two turns' answers and their differences; with `--git`, the worktree's changes against its base.", schema_of::<DiffJson>),
    ("attach", "Nothing on success (the terminal is the worker's); `{\"error\": …}` when it cannot attach.", schema_of::<ErrorReply>),
    ("status", "One worker's status (with a name), else an array of all.", schema_of::<StatusJson>),
    ("ls", "An array with every worker's status.", schema_of::<Vec<WorkerStatus>>),
    ("kill", "The workers stopped.", schema_of::<Killed>),
    ("park", "The workers parked now, and those parked already. Each park appends a `Parked` line to the worker's event log (payload `{at, idleMs}`); each resume a `Resumed` line (payload `{at, ms, from: \"parked\"|\"dead\", sessionId}`).", schema_of::<crate::operations::park::ParkReport>),
    ("resume", "How long the CLI took to be ready again on the worker's conversation.", schema_of::<crate::operations::park::Resumed>),
    ("capture", "The worker's screen.", schema_of::<Screen>),
    ("explain", "The evidence behind a worker's state (with `--screen`, a saved screen's reading) and what umbel would do next.", schema_of::<Explanation>),
    ("logs", "JSON Lines: one object per event-log line (`-f` keeps printing them).", schema_of::<LogLine>),
    ("events", "JSON Lines: one object per state change of a worker, oldest first (`-f` keeps printing them; `--exec` gets the same object on stdin).", schema_of::<crate::core::fleet_events::FleetEvent>),
    ("prune", "What was removed, kept and skipped.", schema_of::<Pruned>),
    ("run", "The run record; with `--check`, the waves.", schema_of::<RunJson>),
    ("doctor", "Every check, and whether all passed.", schema_of::<DoctorReport>),
    ("interrupt", "Whether a running turn was interrupted, the position after it, and how the turn ended.", schema_of::<crate::operations::interrupt::Interrupted>),
    ("budget", "The worker's limits, what it used (tokens, list-price dollars, prompts), and the limit reached or warned of.", schema_of::<crate::operations::budget::BudgetReport>),
    ("model", "The worker's model, the models its CLI's /model offers, and the keys pressed to switch it.", schema_of::<crate::core::providers::model_switch::ModelReport>),
    ("mode", "The mode the worker's screen shows, the modes its key cycles through, and how often it was pressed.", schema_of::<crate::core::providers::mode::ModeReport>),
    ("releases", "Each CLI's supported window and the releases the tests ran on.", schema_of::<Vec<crate::core::providers::release::Window>>),
];

/// The schema of `verb`'s `--json` output, if it has one.
pub fn cli_schema(verb: &str) -> Option<Value> {
    cli_schemas()
        .into_iter()
        .find(|s| s.verb == verb)
        .map(|s| s.schema)
}

/// docs/json.md: every verb's schema, and the error object's.
pub fn markdown() -> String {
    let mut out = String::from(
        "# JSON output\n\n\
         <!-- Generated from the structs umbel serialises (src/faces/json_schema.rs); a test \
         keeps this file up to date: `just docs` rewrites it. -->\n\n\
         Every verb below prints one JSON object (or array) on stdout with `--json`, on one \
         line (`logs`, `events`: one object per line), and nothing else there; notes and progress go to \
         stderr. When the verb fails it \
         prints `{\"error\": …}` instead (last section) and exits with the error's code. The \
         MCP tools return the same objects as structured content (docs/mcp.md), with arrays \
         wrapped in an object: `{\"workers\": […]}`, `{\"turns\": […]}`.\n\n\
         Fields a schema does not list as `required` are left out when they do not apply; \
         new fields may be added, so ignore the ones you do not know.\n",
    );
    let mut sections = cli_schemas();
    sections.push(VerbSchema {
        verb: "(any verb, on failure)",
        what: "The error: its kind (`code`), message, exit code, a hint of what to do next, and evidence where there is some.",
        schema: schema_of::<ErrorReply>(),
    });
    for s in sections {
        let pretty = serde_json::to_string_pretty(&s.schema).unwrap_or_default();
        let title = if s.verb.starts_with('(') {
            s.verb.to_string()
        } else {
            format!("`umbel {} --json`", s.verb)
        };
        out.push_str(&format!(
            "\n## {title}\n\n{}\n\n```json\n{pretty}\n```\n",
            s.what
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_md_is_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md");
        let want = markdown();
        if std::env::var_os("UMBEL_BLESS").is_some() {
            std::fs::write(&path, &want).expect("write docs/json.md");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/json.md is out of date with the structs: run `just docs` and commit it"
        );
    }

    #[cfg(feature = "schema")]
    #[test]
    fn every_schema_refuses_an_empty_object() {
        for s in cli_schemas() {
            let validator = jsonschema::validator_for(&s.schema).expect("compiles");
            assert!(!validator.is_valid(&serde_json::json!({})), "{}", s.verb);
        }
    }

    #[test]
    fn every_schema_is_an_object_with_a_type_or_choices() {
        for s in cli_schemas() {
            let schema = &s.schema;
            assert!(
                schema.get("type").is_some() || schema.get("anyOf").is_some(),
                "{}: {schema}",
                s.verb
            );
        }
    }
}
