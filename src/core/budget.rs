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

/// The kind of a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LimitKind {
    Tokens,
    BudgetUsd,
    Prompts,
}

impl LimitKind {
    /// Its name, as JSON writes it (an outcome's `reason`).
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::Tokens => "tokens",
            LimitKind::BudgetUsd => "budget-usd",
            LimitKind::Prompts => "prompts",
        }
    }

    /// The flag that sets it.
    pub fn flag(self) -> &'static str {
        match self {
            LimitKind::Tokens => "--max-tokens",
            LimitKind::BudgetUsd => "--max-budget-usd",
            LimitKind::Prompts => "--max-prompts",
        }
    }
}

/// A limit reached: which, its value, and what was used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reached {
    pub limit: LimitKind,
    pub max: f64,
    pub used: f64,
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
        write!(f, "{} {max} reached: {used} used", self.limit.flag())
    }
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
        .map(|(limit, max, used)| Reached { limit, max, used })
}

/// The first limit `used` has passed [`WARN_AT`] of without reaching it.
pub fn warning(limits: &Limits, used: &Used) -> Option<Reached> {
    pairs(limits, used)
        .into_iter()
        .find(|(_, max, used)| *used >= max * WARN_AT && used < max)
        .map(|(limit, max, used)| Reached { limit, max, used })
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
