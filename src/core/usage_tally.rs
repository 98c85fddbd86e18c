//! A session's tokens and cost added up as its transcript grows: each complete line is parsed
//! once, so a live view re-reads only what was appended. A record's contribution is kept under
//! its identity — claude's message id and gemini's record id, whose later lines replace earlier
//! ones, as [`turn_stats`] counts them — and the sum is the whole-file [`Usage::of_lines`].

use super::fleet::Usage;
use super::print::stats::{Tokens, TurnStats};
use super::providers::{Provider, str_field};
use serde_json::Value;
use std::collections::HashMap;

/// What a transcript's lines added up to so far.
#[derive(Debug)]
pub struct UsageTally {
    provider: Provider,
    /// Bytes consumed: the transcript up to its last complete line when last fed.
    offset: u64,
    /// Each counted record's tokens per model, under its identity.
    counted: HashMap<String, Vec<(String, Tokens)>>,
    /// Identities in the order first seen (the cost adds up models in that order).
    order: Vec<String>,
    /// codex: the latest `turn_context`, whose model the token records after it used.
    context: Option<Value>,
}

impl UsageTally {
    pub fn new(provider: Provider) -> Self {
        UsageTally {
            provider,
            offset: 0,
            counted: HashMap::new(),
            order: Vec::new(),
            context: None,
        }
    }

    /// Where to read the transcript from next.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Adds the complete lines of `bytes`, the transcript from [`UsageTally::offset`] on; a
    /// trailing partial line is left for the next call.
    pub fn feed(&mut self, bytes: &[u8]) {
        let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        for line in bytes[..end].split(|b| *b == b'\n') {
            self.line(&String::from_utf8_lossy(line));
        }
        self.offset += end as u64 + 1;
    }

    fn line(&mut self, line: &str) {
        let reading = self.provider.module().usage_reading();
        if !reading.marks.iter().any(|t| line.contains(t)) {
            return;
        }
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            return;
        };
        if reading.context_type.is_some() && str_field(&record, "type") == reading.context_type {
            self.context = Some(record);
            return;
        }
        let key = self.identity(&record);
        let records = match &self.context {
            Some(context) => vec![context.clone(), record],
            None => vec![record],
        };
        let models = self.provider.module().turn_stats(&records).models;
        if self.counted.insert(key.clone(), models).is_none() {
            self.order.push(key);
        }
    }

    /// The record's identity: a later record with the same one replaces it.
    fn identity(&self, record: &Value) -> String {
        let at = self.provider.module().usage_reading().message_id;
        let id = at.and_then(|at| record.pointer(at)).and_then(Value::as_str);
        match id.filter(|id| !id.is_empty()) {
            Some(id) => format!("id:{id}"),
            None => format!("line:{}", self.order.len()),
        }
    }

    /// The session's usage so far; `None` before any model's tokens.
    pub fn usage(&self) -> Option<Usage> {
        let mut stats = TurnStats::default();
        for models in self.order.iter().filter_map(|k| self.counted.get(k)) {
            for (model, tokens) in models {
                stats.add_tokens(model, tokens);
            }
        }
        Usage::of(self.provider, &stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_data::SESSIONS;

    /// Fed in pieces of any size, cut anywhere (mid-line too), every recorded session adds up
    /// to what a whole read of it does.
    #[test]
    fn fed_in_pieces_it_adds_up_to_the_whole_file() {
        for (provider, text) in SESSIONS {
            let whole = Usage::of_lines(provider, text.lines());
            assert!(whole.is_some(), "{provider:?}: the recording has usage");
            for piece in [61, 1000, 4096, text.len()] {
                let mut tally = UsageTally::new(provider);
                let mut at = 0;
                while at < text.len() {
                    let from = tally.offset() as usize;
                    let end = (at + piece).min(text.len());
                    tally.feed(&text.as_bytes()[from..end]);
                    at = end;
                }
                let got = tally.usage();
                assert_eq!(
                    got.map(|u| u.tokens),
                    whole.map(|u| u.tokens),
                    "{provider:?} by {piece}"
                );
                let cost = |u: Option<Usage>| u.and_then(|u| u.cost_usd).unwrap_or(0.0);
                assert!(
                    (cost(got) - cost(whole)).abs() < 1e-9,
                    "{provider:?} by {piece}"
                );
                assert_eq!(
                    tally.offset() as usize,
                    text.rfind('\n').map_or(0, |e| e + 1)
                );
            }
        }
    }
}
