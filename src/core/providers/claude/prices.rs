//! claude's models at list price, in US dollars per million tokens.
//!
//! Sources, checked 2026-12-04:
//! - Anthropic's pricing page (docs.anthropic.com/en/docs/about-claude/pricing), list prices;
//!   cache reads cost 0.1× the input price and 5-minute cache writes 1.25×.
//! - `claude-opus-5-5`: derived from claude 2.1.332's own print mode, whose
//!   `modelUsage["claude-opus-5-5"].costUSD` is 0.000732 for 123 input and 12 output tokens
//!   (tests/data/claude/claude-2.1.332-print-json-success.json): $4 in, $20 out.

use crate::core::prices::{Price, PriceTable};

const fn list(input: f64, output: f64) -> Price {
    Price {
        input,
        output,
        cache_read: None,
        cache_write: None,
    }
}

/// Model id prefixes (the longest match wins) and their prices.
pub static TABLE: PriceTable = PriceTable {
    source: "Anthropic's list prices, checked 2026-12-04; claude-opus-5-5 from claude 2.1.332's own costUSD",
    models: &[
        ("claude-opus-5-5", list(4.0, 20.0)),
        ("claude-opus-4-5", list(5.0, 25.0)),
        ("claude-opus-4", list(15.0, 75.0)),
        ("claude-sonnet-4", list(3.0, 15.0)),
        ("claude-3-7-sonnet", list(3.0, 15.0)),
        ("claude-haiku-4", list(1.0, 5.0)),
        ("claude-3-5-haiku", list(0.8, 4.0)),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::prices::{cost_usd, price_in};

    #[test]
    fn the_recorded_claude_cost_is_reproduced() {
        let price = price_in(&[&TABLE], "claude-opus-5-5");
        assert_eq!(cost_usd(price, 123, 12, 0, 0), 0.000732);
        assert_eq!(price_in(&[&TABLE], "<synthetic>"), None);
    }
}
