//! List prices per model, in US dollars per million tokens, for the `total_cost_usd` and
//! `costUSD` fields of `umbel -p --output-format json` (claude's shape; codex and gemini print
//! no cost). A model not in the table costs 0 (docs/print-mode.md says so): umbel never
//! invents a price. On the subscription path nothing is billed per token; the figure is what
//! claude's own print mode reports, the list-price equivalent.
//!
//! Sources, 2026-12-04:
//! - Anthropic's pricing page (docs.anthropic.com/en/docs/about-claude/pricing), list prices;
//!   cache reads cost 0.1× the input price and 5-minute cache writes 1.25×.
//! - `claude-opus-5-5`: derived from claude 2.1.332's own print mode, whose
//!   `modelUsage["claude-opus-5-5"].costUSD` is 0.000732 for 123 input and 12 output tokens
//!   (tests/data/claude/claude-2.1.332-print-json-success.json): $4 in, $20 out.

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// Model id prefixes (longest first where they overlap) and their prices.
const PRICES: &[(&str, Price)] = &[
    (
        "claude-opus-5-5",
        Price {
            input: 4.0,
            output: 20.0,
        },
    ),
    (
        "claude-opus-4-5",
        Price {
            input: 5.0,
            output: 25.0,
        },
    ),
    (
        "claude-opus-4",
        Price {
            input: 15.0,
            output: 75.0,
        },
    ),
    (
        "claude-sonnet-4",
        Price {
            input: 3.0,
            output: 15.0,
        },
    ),
    (
        "claude-3-7-sonnet",
        Price {
            input: 3.0,
            output: 15.0,
        },
    ),
    (
        "claude-haiku-4",
        Price {
            input: 1.0,
            output: 5.0,
        },
    ),
    (
        "claude-3-5-haiku",
        Price {
            input: 0.8,
            output: 4.0,
        },
    ),
];

/// The price of a model, by the longest listed prefix of its id; None when unknown.
pub fn price(model: &str) -> Option<Price> {
    PRICES
        .iter()
        .filter(|(prefix, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, price)| *price)
}

/// What these tokens cost at list price; 0 for a model not in the table.
pub fn cost_usd(model: &str, input: u64, output: u64, cache_read: u64, cache_write: u64) -> f64 {
    let Some(p) = price(model) else {
        return 0.0;
    };
    let micro = input as f64 * p.input
        + output as f64 * p.output
        + cache_read as f64 * p.input * 0.1
        + cache_write as f64 * p.input * 1.25;
    // Rounded to the micro-dollar, as claude prints it.
    micro.round() / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_claude_cost_is_reproduced() {
        assert_eq!(cost_usd("claude-opus-5-5", 123, 12, 0, 0), 0.000732);
    }

    #[test]
    fn the_longest_prefix_wins_and_unknown_models_cost_nothing() {
        assert_eq!(price("claude-opus-4-5-20251101").unwrap().input, 5.0);
        assert_eq!(price("claude-opus-4-1-20250805").unwrap().input, 15.0);
        assert_eq!(cost_usd("gpt-fake-1", 1000, 1000, 0, 0), 0.0);
        assert_eq!(price("<synthetic>"), None);
    }
}
