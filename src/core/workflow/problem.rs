//! One problem found in a workflow file, where it is. Its own module, imported by nothing:
//! `core/errors.rs` carries a list of them, and the workflow code needs the errors.

use serde::Serialize;

/// One problem, at a 1-based line and column of the file (0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Problem {
    pub line: u64,
    pub column: u64,
    pub message: String,
}

impl Problem {
    /// A problem at `line`:`column`.
    pub fn at(line: u64, column: u64, message: impl Into<String>) -> Self {
        Problem {
            line,
            column,
            message: message.into(),
        }
    }
}
