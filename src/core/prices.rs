//! List prices, in US dollars per million tokens: each provider's table lives in its folder
//! (`core/providers/<name>/prices.rs`, with the source and the date it was checked), and a
//! user's own file (`<state>/prices.json`, read once per process by the face) goes before
//! them. A model no table names has no known price: its cost is unknown (never invented), a
//! dollar limit on it is refused, and `-p`'s `total_cost_usd` counts it as 0
//! (docs/print-mode.md). On a subscription nothing is billed per token: a cost is the list-price
//! equivalent, as `claude -p` reports it.

use serde::Deserialize;
use std::sync::OnceLock;

/// Dollars per million tokens. Cache reads and writes default to the input price times
/// [`CACHE_READ`] and [`CACHE_WRITE`] (Anthropic's list), where a table gives no price of its own.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Price {
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: Option<f64>,
    #[serde(default)]
    pub cache_write: Option<f64>,
}

/// A cache read, as a share of the input price, unless the table says otherwise.
pub const CACHE_READ: f64 = 0.1;
/// A (5-minute) cache write, as a share of the input price, unless the table says otherwise.
pub const CACHE_WRITE: f64 = 1.25;

/// One provider's list prices: model id prefixes (the longest match wins) and where they come from.
#[derive(Debug)]
pub struct PriceTable {
    /// Where the prices come from, and the date they were checked.
    pub source: &'static str,
    pub models: &'static [(&'static str, Price)],
}

/// A table naming no model: its CLI's prices were not checked (a user's file can add them).
pub static UNCHECKED: PriceTable = PriceTable {
    source: "none checked",
    models: &[],
};

/// The user's own prices (`<state>/prices.json`: `{"model-prefix": {"input": …, "output": …}}`),
/// set once per process by the face.
static OVERRIDES: OnceLock<Vec<(String, Price)>> = OnceLock::new();

/// Why the user's prices file could not be used, when it could not.
static PROBLEM: OnceLock<String> = OnceLock::new();

/// Sets the user's own prices for this process (the first call wins).
pub fn set_overrides(prices: Vec<(String, Price)>) {
    let _ = OVERRIDES.set(prices);
}

/// Notes why the user's prices file could not be used: a dollar limit is then refused, naming
/// the file (nothing else needs a price).
pub fn set_problem(problem: String) {
    let _ = PROBLEM.set(problem);
}

/// Why the user's prices file could not be used, if it could not.
pub fn problem() -> Option<&'static str> {
    PROBLEM.get().map(String::as_str)
}

/// The user's prices file, parsed: model prefixes and their prices.
pub fn parse_overrides(text: &str) -> Result<Vec<(String, Price)>, String> {
    let map: std::collections::BTreeMap<String, Price> =
        serde_json::from_str(text).map_err(|e| e.to_string())?;
    for (model, p) in &map {
        let all = [Some(p.input), Some(p.output), p.cache_read, p.cache_write];
        if all.into_iter().flatten().any(|n| !n.is_finite() || n < 0.0) {
            return Err(format!(
                "{model}: a price is a non-negative number of dollars per million tokens"
            ));
        }
    }
    Ok(map.into_iter().collect())
}

/// The longest prefix of `model` among `prices`.
fn longest<'a>(prices: impl Iterator<Item = (&'a str, Price)>, model: &str) -> Option<Price> {
    prices
        .filter(|(prefix, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, price)| price)
}

/// The price of `model`: the user's own first, then `tables` in order (the model's own CLI's
/// first); `None` when none names it.
pub fn price_in(tables: &[&PriceTable], model: &str) -> Option<Price> {
    let overrides = OVERRIDES.get().map(Vec::as_slice).unwrap_or_default();
    longest(overrides.iter().map(|(m, p)| (m.as_str(), *p)), model).or_else(|| {
        tables
            .iter()
            .find_map(|t| longest(t.models.iter().copied(), model))
    })
}

/// What these tokens cost at `price`; 0 without a price.
pub fn cost_usd(
    price: Option<Price>,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
) -> f64 {
    let Some(p) = price else {
        return 0.0;
    };
    let micro = input as f64 * p.input
        + output as f64 * p.output
        + cache_read as f64 * p.cache_read.unwrap_or(p.input * CACHE_READ)
        + cache_write as f64 * p.cache_write.unwrap_or(p.input * CACHE_WRITE);
    // Rounded to the micro-dollar, as claude prints it.
    micro.round() / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    static TABLE: PriceTable = PriceTable {
        source: "test",
        models: &[
            (
                "claude-opus-4-5",
                Price {
                    input: 5.0,
                    output: 25.0,
                    cache_read: None,
                    cache_write: None,
                },
            ),
            (
                "claude-opus-4",
                Price {
                    input: 15.0,
                    output: 75.0,
                    cache_read: None,
                    cache_write: None,
                },
            ),
        ],
    };

    #[test]
    fn the_longest_prefix_wins_and_unknown_models_have_no_price() {
        assert_eq!(
            price_in(&[&TABLE], "claude-opus-4-5-20251101").map(|p| p.input),
            Some(5.0)
        );
        assert_eq!(
            price_in(&[&TABLE], "claude-opus-4-1-20250805").map(|p| p.input),
            Some(15.0)
        );
        assert_eq!(price_in(&[&TABLE, &UNCHECKED], "gpt-fake-1"), None);
        assert_eq!(cost_usd(None, 1000, 1000, 0, 0), 0.0);
    }

    #[test]
    fn a_users_prices_file_is_checked() {
        let ok = parse_overrides(r#"{"gpt-5": {"input": 1.25, "output": 10, "cacheRead": 0.125}}"#)
            .expect("ok");
        assert_eq!(ok[0].1.cache_read, Some(0.125));
        assert!(parse_overrides(r#"{"gpt-5": {"input": -1, "output": 10}}"#).is_err());
        assert!(parse_overrides(r#"{"gpt-5": {"in": 1, "output": 10}}"#).is_err());
        assert!(parse_overrides("[]").is_err());
        let price = Price {
            input: 1.0,
            output: 2.0,
            cache_read: Some(0.5),
            cache_write: None,
        };
        assert_eq!(
            cost_usd(Some(price), 1_000_000, 0, 1_000_000, 1_000_000),
            1.0 + 0.5 + 1.25
        );
    }
}
