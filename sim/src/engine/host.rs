//! What the engine needs of a provider's session.
//!
//! Each fake's `Session` shapes payloads and records its own way; the engine
//! only writes finished records, records prompts and stops on the
//! first write error, through [`Host`].

use std::path::Path;

use crate::json::Obj;
use crate::record::Recorder;

/// A provider's session, as the engine sees it.
pub trait Host {
    /// The first error writing a file since the last look (the loops stop on it).
    fn take_fatal(&mut self) -> Option<String>;
    /// Records a submitted prompt in `UMBEL_SIM_RECORD_DIR`, if set.
    fn record_prompt(&mut self, prompt: &str);
    /// Appends finished records to the transcript (held-back ones, when due).
    fn write(&mut self, records: &[Obj]);
}

/// The [`Host`] methods every fake's session has alike, over its `fatal` and
/// `recorder` fields; `$write` (`|session, records|`) appends finished records.
#[macro_export]
macro_rules! host_parts {
    ($write:expr) => {
        fn take_fatal(&mut self) -> Option<String> {
            self.fatal.take()
        }

        fn record_prompt(&mut self, prompt: &str) {
            $crate::engine::host::record_prompt(self.recorder.as_mut(), &mut self.fatal, prompt);
        }

        fn write(&mut self, records: &[$crate::json::Obj]) {
            let write: fn(&mut Self, &[$crate::json::Obj]) = $write;
            write(self, records);
        }
    };
}

/// Records `prompt` with `recorder` (if any), keeping the first failure in `fatal`.
pub fn record_prompt(recorder: Option<&mut Recorder>, fatal: &mut Option<String>, prompt: &str) {
    if let Some(r) = recorder
        && let Err(e) = r.record(prompt)
    {
        fatal.get_or_insert(format!("cannot write to {}: {e}", crate::record::ENV));
    }
}

/// Appends `record` to the JSONL file at `path`; a failure is kept in
/// `fatal` (the first one wins). True when the line was written.
pub fn append(path: &Path, record: &Obj, fatal: &mut Option<String>) -> bool {
    append_lines(path, &record.to_line(), fatal)
}

/// Appends `lines` (JSONL, without the last newline) to the file at `path` in one write; a
/// failure is kept in `fatal` (the first one wins). True when they were written.
pub fn append_lines(path: &Path, lines: &str, fatal: &mut Option<String>) -> bool {
    let result = crate::jsonl::append_line(path, lines);
    if let Err(e) = &result {
        fatal.get_or_insert(format!("cannot write {}: {e}", path.display()));
    }
    result.is_ok()
}
