//! What one turn cost and did, read from the records of its transcript (oldest first, as
//! [`crate::core::providers::last_turn_records`] cuts them): tokens per model, model requests, tool calls with their
//! results, the stop reason and the API error. Each provider's reader (`core/providers/<name>/stats.rs`)
//! fills it, and the print-mode JSON of every provider is filled from it; nothing here is guessed — a field the transcript lacks stays at zero / absent.

use serde_json::Value;

/// Token counts of one model (or of the whole turn).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
    pub thoughts: u64,
    /// Model requests these tokens came from.
    pub requests: u64,
    /// The CLI's own cost of these requests in billionths of a US dollar, where its records
    /// carry one (opencode's `cost`, from its model catalogue: 0 for a model outside it).
    pub cost_nano_usd: u64,
}

impl Tokens {
    /// What these requests cost in US dollars: the CLI's own figure where it gave one, else
    /// `price` (per million tokens) applied to the counts — `output` and `fresh_input` as the
    /// caller reads them (thinking apart, cached input held in the input count).
    pub fn cost_usd(
        &self,
        price: Option<crate::core::prices::Price>,
        fresh_input: u64,
        output: u64,
    ) -> f64 {
        if self.cost_nano_usd > 0 {
            return self.cost_nano_usd as f64 / 1e9;
        }
        crate::core::prices::cost_usd(
            price,
            fresh_input,
            output,
            self.cache_read,
            self.cache_creation,
        )
    }

    /// Whether a cost is known for these requests: the CLI's own, or a list price.
    pub fn priced(&self, price: Option<crate::core::prices::Price>) -> bool {
        self.cost_nano_usd > 0 || price.is_some()
    }
}

impl ToolCall {
    /// A call without its result yet.
    pub fn new(id: Option<&str>, name: Option<&str>, input: Option<&Value>) -> Self {
        ToolCall {
            id: id.unwrap_or("").to_string(),
            name: name.unwrap_or("").to_string(),
            input: input.cloned().unwrap_or(Value::Null),
            output: None,
            ok: None,
            exit_code: None,
            denied: false,
            state: None,
        }
    }
}

/// How a session's usage is added up from its transcript, line by line (`top`, `ls`).
pub struct UsageReading {
    /// Strings of which every record [`crate::core::providers::ProviderModule::turn_stats`]
    /// counts tokens from holds one: other lines need not be parsed.
    pub marks: &'static [&'static str],
    /// A record type that only gives the records after it their context (codex's
    /// `turn_context`: the model): kept, and read with each record after it.
    pub context_type: Option<&'static str>,
    /// Where a record's message id is (JSON pointer): a later record with the same id replaces
    /// it. `None`: every record counts on its own.
    pub message_id: Option<&'static str>,
    /// Where a record says how full the model's context is, when the CLI records that.
    pub context: Option<ContextReading>,
    /// The CLI records thinking tokens apart from its output tokens (gemini's `thoughts`,
    /// qwen's `thoughtsTokenCount`, opencode's `reasoning`): they count on top of them. claude,
    /// codex and copilot count them within their output.
    pub thoughts_apart: bool,
    /// The CLI's input count already holds the cached tokens it also records (the OpenAI and
    /// Gemini APIs' `prompt_tokens` ⊇ `cached_tokens`: codex, gemini, qwen, copilot — measured
    /// with fake-model reporting 100 cached of 321: their totals say 338, not 438). claude and
    /// opencode record cache reads beside a fresh input count.
    pub cached_in_input: bool,
}

/// Where one record tells both the tokens the model's context holds and the window's size
/// (JSON pointers; the CLI writes one such record per model request).
pub struct ContextReading {
    /// The counts that add up to the tokens in context.
    pub used: &'static [&'static str],
    /// The context window's size.
    pub window: &'static str,
}

impl ContextReading {
    /// The tokens in context and the window, from the newest record that has a window.
    pub fn read(&self, records: &[Value]) -> Option<(u64, u64)> {
        records.iter().rev().find_map(|record| {
            let window = whole_number(record.pointer(self.window)?)?;
            let used = self
                .used
                .iter()
                .filter_map(|at| whole_number(record.pointer(at)?))
                .sum();
            Some((used, window))
        })
    }
}

/// A count written as an integer or a float (`128000.0`).
fn whole_number(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .map(|f| f as u64)
    })
}

/// Where one provider's usage object keeps each count (JSON pointers; `None`: it has none).
pub struct UsagePaths {
    pub input: &'static str,
    pub output: &'static str,
    pub cache_read: &'static str,
    pub cache_creation: Option<&'static str>,
    pub thoughts: &'static str,
}

impl Tokens {
    /// One model request's counts, read from `usage` where `paths` say.
    pub fn read(usage: &Value, paths: &UsagePaths) -> Self {
        Tokens {
            input: u64_at(usage, paths.input),
            output: u64_at(usage, paths.output),
            cache_read: u64_at(usage, paths.cache_read),
            cache_creation: paths.cache_creation.map_or(0, |p| u64_at(usage, p)),
            thoughts: u64_at(usage, paths.thoughts),
            requests: 1,
            cost_nano_usd: 0,
        }
    }

    pub fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_creation += other.cache_creation;
        self.thoughts += other.thoughts;
        self.requests += other.requests;
        self.cost_nano_usd += other.cost_nano_usd;
    }
}

/// One tool call of the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
    /// Its output, once it has one.
    pub output: Option<String>,
    /// Whether it succeeded (None: no result yet).
    pub ok: Option<bool>,
    /// The process exit code of a shell tool, when the transcript says.
    pub exit_code: Option<i64>,
    /// The CLI refused it (a permission denial).
    pub denied: bool,
    /// The CLI's own record of the call's state, for its shape (opencode's tool part `state`:
    /// status, input, output, title, metadata, time).
    pub state: Option<Value>,
}

/// What a turn's records tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnStats {
    /// Tokens per model, in the order the models were first used.
    pub models: Vec<(String, Tokens)>,
    pub tools: Vec<ToolCall>,
    /// The model's last stop reason (claude: `end_turn`, `tool_use`, `stop_sequence`).
    pub stop_reason: Option<String>,
    /// The HTTP status and type of an API error that ended the turn.
    pub api_error_status: Option<u64>,
    pub api_error_type: Option<String>,
    /// How long the turn took by the CLI's own clock (codex writes it).
    pub duration_ms: Option<u64>,
    /// The last model message's usage object as the API sent it (claude), for its shape.
    pub usage: Option<Value>,
    /// The error object that ended the turn as the CLI recorded it (opencode's assistant
    /// message `error`: name, data with the status, body and headers), for its shape.
    pub api_error: Option<Value>,
    /// The id of the turn's last record that has one (claude's `uuid`).
    pub uuid: Option<String>,
    /// opencode: the assistant's parts (steps, texts, tools), newest version of each, in the
    /// order they first appear, for `opencode run --format json`'s step-by-step events.
    pub parts: Vec<Value>,
}

impl TurnStats {
    /// Tokens of all models together.
    pub fn total(&self) -> Tokens {
        let mut total = Tokens::default();
        for (_, tokens) in &self.models {
            total.add(tokens);
        }
        total
    }

    /// Adds `tokens` to `model`'s (a session added up record by record).
    pub fn add_tokens(&mut self, model: &str, tokens: &Tokens) {
        self.model(model).add(tokens);
    }

    pub fn model(&mut self, name: &str) -> &mut Tokens {
        let at = match self.models.iter().position(|(m, _)| m == name) {
            Some(at) => at,
            None => {
                self.models.push((name.to_string(), Tokens::default()));
                self.models.len() - 1
            }
        };
        &mut self.models[at].1
    }

    pub fn tool(&mut self, id: &str) -> Option<&mut ToolCall> {
        self.tools.iter_mut().find(|t| t.id == id)
    }
}

/// The number at `pointer` in `v` (0 when there is none).
pub fn u64_at(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
