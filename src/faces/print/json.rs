//! `umbel -p --output-format json` in each provider's own shape (built in
//! `core/providers/<name>/print.rs`), stamped here with the clock and the fresh ids the shapes
//! leave to the face. docs/print-mode.md lists the fields umbel cannot know (present, `null`).

use super::Done;
use crate::core::errors::Error;
use crate::core::print::shape::Stamps;
use crate::core::providers::Provider;
use serde_json::Value;
use std::time::SystemTime;

/// The wall clock and fresh v4 UUIDs.
pub struct Clock;

impl Stamps for Clock {
    fn id(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }

    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }

    fn rfc3339(&self) -> String {
        humantime::format_rfc3339_millis(SystemTime::now()).to_string()
    }
}

/// Everything the JSON output prints for one finished (or failed) turn, in order; the bool:
/// to stderr.
pub fn documents(done: &Done, duration_ms: u64) -> Vec<(Value, bool)> {
    let shapes = done.provider.module().print();
    shapes.json(&done.turn, duration_ms, &Clock)
}

/// The provider-shaped JSON of a failure before any turn ran (bad input, spawn failed), with
/// umbel's own `error` object added.
pub fn failure(provider: Provider, err: &Error) -> Vec<(Value, bool)> {
    let shapes = provider.module().print();
    shapes.json_failure(err.code(), &err.to_string(), &Clock)
}
