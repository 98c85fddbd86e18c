//! Budgets, the pure part: a worker's limits (tokens, list-price dollars, prompts), read from
//! flags and JSON, and checked against what its transcript and event log say it used. A limit
//! crossed is a hard stop (`operations/budget`): the running turn is interrupted and sends are
//! refused until the limit is raised.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The share of a limit at which a warning is due.
pub const WARN_AT: f64 = 0.8;

/// A worker's limits; `None`: no limit of that kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[command(next_help_heading = "Budget")]
pub struct Limits {
    /// Stop the worker at this many tokens over all its turns (input, cached input and
    /// output; `2000000`, `2M`, `500k`).
    #[arg(long, value_name = "N", value_parser = parse_tokens, allow_negative_numbers = true)]
    #[serde(
        default,
        deserialize_with = "positive_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_tokens: Option<u64>,
    /// Stop the worker at this many US dollars at list price over all its turns (`5`, `0.50`,
    /// `$5`); refused at spawn for a model without a known price.
    #[arg(long, value_name = "USD", value_parser = parse_usd, allow_negative_numbers = true)]
    #[serde(
        default,
        deserialize_with = "positive_usd",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_budget_usd: Option<f64>,
    /// Refuse a send once the worker has taken this many prompts.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    #[serde(
        default,
        deserialize_with = "positive_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_prompts: Option<u64>,
}

impl Limits {
    /// No limit is set.
    pub fn is_empty(&self) -> bool {
        self.max_tokens.is_none() && self.max_budget_usd.is_none() && self.max_prompts.is_none()
    }

    /// The limits a running turn is stopped at: tokens and dollars (the prompt limit is for
    /// sends: the turn running is within it).
    pub fn during_turn(&self) -> Limits {
        Limits {
            max_prompts: None,
            ..self.clone()
        }
    }

    /// These limits with `change`'s set ones in their place.
    pub fn with(&self, change: &Limits) -> Limits {
        Limits {
            max_tokens: change.max_tokens.or(self.max_tokens),
            max_budget_usd: change.max_budget_usd.or(self.max_budget_usd),
            max_prompts: change.max_prompts.or(self.max_prompts),
        }
    }
}

/// What a worker used so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Used {
    pub tokens: u64,
    /// At list price; `None` when no model it used has a known price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    pub prompts: u64,
    /// The tokens by kind (input, cached input, output, reasoning).
    #[serde(default)]
    pub by_kind: crate::core::token_kinds::TokenKinds,
}

/// A worker's budget: its limits, what it used, the limit reached (`status` shows it, and
/// `umbel budget`'s report holds it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetState {
    /// Its limits (none set: no budget).
    pub limits: Limits,
    /// What it used so far.
    pub used: Used,
    /// The limit reached, if one is: sends are refused until it is raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
}

impl BudgetState {
    /// The nearest limit in a few characters, as `ls` and `top` show it: `41% tokens`, `85%
    /// usd`, `stopped: prompts` once one is reached; `-` without limits.
    pub fn brief(&self) -> String {
        if let Some(at) = &self.reached {
            return format!("stopped: {}", at.limit.word());
        }
        let nearest = pairs(&self.limits, &self.used)
            .into_iter()
            .map(|(kind, max, used)| (kind, used / max))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some((kind, share)) => format!("{:.0}% {}", (share * 100.0).floor(), kind.word()),
            None => "-".to_string(),
        }
    }
}

/// The kind of a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LimitKind {
    Tokens,
    BudgetUsd,
    Prompts,
    // Model requests of one prompt (`--max-turns`): per turn, not over the worker's life.
    Turns,
}

impl LimitKind {
    /// Its name, as JSON writes it (an outcome's `reason`).
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::Tokens => "tokens",
            LimitKind::BudgetUsd => "budget-usd",
            LimitKind::Prompts => "prompts",
            LimitKind::Turns => "turns",
        }
    }

    /// Its short word for a column.
    pub fn word(self) -> &'static str {
        match self {
            LimitKind::Tokens => "tokens",
            LimitKind::BudgetUsd => "usd",
            LimitKind::Prompts => "prompts",
            LimitKind::Turns => "turns",
        }
    }

    /// Its key in JSON and YAML limits.
    pub fn key(self) -> &'static str {
        match self {
            LimitKind::Tokens => "maxTokens",
            LimitKind::BudgetUsd => "maxBudgetUsd",
            LimitKind::Prompts => "maxPrompts",
            LimitKind::Turns => "maxTurns",
        }
    }

    /// The flag that sets it.
    pub fn flag(self) -> &'static str {
        match self {
            LimitKind::Tokens => "--max-tokens",
            LimitKind::BudgetUsd => "--max-budget-usd",
            LimitKind::Prompts => "--max-prompts",
            LimitKind::Turns => "--max-turns",
        }
    }
}

/// A limit reached: which, its value, what was used, and whose limit it is (none: the
/// worker's own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reached {
    pub limit: LimitKind,
    pub max: f64,
    pub used: f64,
    /// The limit is shared: the state root's fleet, or a workflow run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<Pool>,
}

impl Reached {
    /// This limit, as the pool's.
    fn of(self, pool: &Pool) -> Reached {
        Reached {
            pool: Some(pool.clone()),
            ..self
        }
    }

    /// How to raise it.
    pub fn raise_hint(&self, worker: &str) -> String {
        let flag = self.limit.flag();
        if self.limit == LimitKind::Turns {
            return format!(
                "the next prompt to {worker} has {} of its own (set at spawn)",
                self.max as u64
            );
        }
        match &self.pool {
            None => format!("`umbel budget {worker} {flag} N` raises it"),
            Some(Pool::Fleet) => format!("`umbel budget --fleet {flag} N` raises it"),
            Some(Pool::Run(id)) => format!(
                "raise the workflow's `budget: {{{}: N}}` and resume with `umbel run FILE --resume {id}`",
                self.limit.key()
            ),
        }
    }
}

impl std::fmt::Display for Reached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (max, used) = match self.limit {
            LimitKind::BudgetUsd => (format!("${:.2}", self.max), format!("${:.2}", self.used)),
            _ => (
                format!("{}", self.max as u64),
                format!("{}", self.used as u64),
            ),
        };
        if self.limit == LimitKind::Turns {
            return write!(
                f,
                "--max-turns {max} reached: {used} model requests in this turn"
            );
        }
        match &self.pool {
            None => write!(f, "{} {max} reached", self.limit.flag())?,
            Some(Pool::Fleet) => write!(f, "the fleet's {} {max} reached", self.limit.flag())?,
            Some(Pool::Run(id)) => {
                write!(f, "run {id}'s budget {} {max} reached", self.limit.key())?
            }
        }
        write!(f, ": {used} used")
    }
}

/// Workers sharing a limit: every worker of the state root (`umbel budget --fleet`), or the
/// workers of one workflow run (its `budget:`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Pool {
    Fleet,
    /// The run's id.
    Run(String),
}

/// A shared limit's record: its limits, who shares it, and what the workers that shared it
/// and are gone (purged) used.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolRecord {
    pub limits: Limits,
    /// The workers sharing it; none: every worker of the state root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<String>>,
    /// What its purged workers used.
    #[serde(default)]
    pub retired: Used,
}

impl Used {
    /// `self` and `other` added up: a cost unknown on one side counts nothing (its tokens
    /// count; a dollar limit refuses a worker whose cost is unknown at its spawn).
    pub fn plus(&self, other: &Used) -> Used {
        let cost_usd = match (self.cost_usd, other.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        Used {
            tokens: self.tokens + other.tokens,
            cost_usd,
            prompts: self.prompts + other.prompts,
            by_kind: self.by_kind.plus(&other.by_kind),
        }
    }
}

/// The first of a pool's limits `used` has reached, named as the pool's.
pub fn pool_reached(pool: &Pool, limits: &Limits, used: &Used) -> Option<Reached> {
    reached(limits, used).map(|at| at.of(pool))
}

/// The first of a pool's limits `used` has passed [`WARN_AT`] of, named as the pool's.
pub fn pool_warning(pool: &Pool, limits: &Limits, used: &Used) -> Option<Reached> {
    warning(limits, used).map(|at| at.of(pool))
}

/// Each limit set, with what was used of it.
fn pairs(limits: &Limits, used: &Used) -> Vec<(LimitKind, f64, f64)> {
    let mut out = Vec::new();
    if let Some(max) = limits.max_tokens {
        out.push((LimitKind::Tokens, max as f64, used.tokens as f64));
    }
    if let (Some(max), Some(cost)) = (limits.max_budget_usd, used.cost_usd) {
        out.push((LimitKind::BudgetUsd, max, cost));
    }
    if let Some(max) = limits.max_prompts {
        out.push((LimitKind::Prompts, max as f64, used.prompts as f64));
    }
    out
}

/// The first limit `used` has reached: tokens and dollars once used reaches them, prompts once
/// as many were taken (the next send would be one more).
pub fn reached(limits: &Limits, used: &Used) -> Option<Reached> {
    pairs(limits, used)
        .into_iter()
        .find(|(_, max, used)| used >= max)
        .map(|(limit, max, used)| Reached {
            limit,
            max,
            used,
            pool: None,
        })
}

/// `--max-turns max` as umbel holds it: reached once a turn's transcript records more model
/// requests than `max` (umbel sees a request once its response is recorded, so the turn is
/// stopped at the first response past the limit).
pub fn turns_reached(max: u32, requests: u64) -> Option<Reached> {
    (requests > u64::from(max)).then_some(Reached {
        limit: LimitKind::Turns,
        max: f64::from(max),
        used: requests as f64,
        pool: None,
    })
}

/// The first limit `used` has passed [`WARN_AT`] of without reaching it.
pub fn warning(limits: &Limits, used: &Used) -> Option<Reached> {
    pairs(limits, used)
        .into_iter()
        .find(|(_, max, used)| *used >= max * WARN_AT && used < max)
        .map(|(limit, max, used)| Reached {
            limit,
            max,
            used,
            pool: None,
        })
}

/// `2000000`, `2M`, `500k`, `1.5M`: a positive whole number of tokens.
pub fn parse_tokens(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'm' | 'M')) => (&t[..i], 1e6),
        _ => (t, 1.0),
    };
    let number: f64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a number of tokens (`2000000`, `2M`, `500k`)"))?;
    let tokens = number * scale;
    if !tokens.is_finite() || tokens < 1.0 || tokens.fract() != 0.0 || tokens > u64::MAX as f64 {
        return Err(format!(
            "{text:?}: the limit is a positive whole number of tokens"
        ));
    }
    Ok(tokens as u64)
}

/// `5`, `0.50`, `$5`: a positive amount of US dollars.
pub fn parse_usd(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let t = t.strip_prefix('$').unwrap_or(t);
    let usd: f64 = t
        .parse()
        .map_err(|_| format!("{text:?} is not an amount of US dollars (`5`, `0.50`, `$5`)"))?;
    if !usd.is_finite() || usd <= 0.0 {
        return Err(format!(
            "{text:?}: the limit is a positive amount of US dollars"
        ));
    }
    Ok(usd)
}

/// A positive whole number.
pub fn parse_count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{text:?}: the limit is a positive whole number")),
    }
}

fn positive_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Option::<u64>::deserialize(d)? {
        Some(0) => Err(serde::de::Error::custom(
            "the limit is a positive whole number",
        )),
        n => Ok(n),
    }
}

fn positive_usd<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        Some(usd) if !(usd.is_finite() && usd > 0.0) => Err(serde::de::Error::custom(
            "the limit is a positive amount of US dollars",
        )),
        usd => Ok(usd),
    }
}

#[cfg(test)]
mod tests;
