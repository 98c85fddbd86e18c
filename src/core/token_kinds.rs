//! A session's tokens by kind (input, cached input, output, reasoning): what `top`, budgets and
//! `status` report beside the total. A leaf: it knows nothing of providers or workers.

/// A session's tokens by kind, as its CLI's records give them.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct TokenKinds {
    /// Input tokens read afresh (cache writes included).
    pub input: u64,
    /// Input tokens read from the provider's prompt cache.
    pub cached_input: u64,
    /// Output tokens, thinking included.
    pub output: u64,
    /// The thinking (reasoning) part of the output, where the CLI records it.
    pub reasoning: u64,
}

impl TokenKinds {
    /// `self` and `other` added up, kind by kind.
    pub fn plus(&self, other: &TokenKinds) -> TokenKinds {
        TokenKinds {
            input: self.input + other.input,
            cached_input: self.cached_input + other.cached_input,
            output: self.output + other.output,
            reasoning: self.reasoning + other.reasoning,
        }
    }
}
