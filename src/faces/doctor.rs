//! `umbel doctor`'s output: one aligned line per check (`ok`, `warn`, `fail`, what was found and
//! what to do), or `{"ok", "checks"}` as JSON; and `umbel releases`: each CLI's supported window.

use super::output::{out_json, outln};
use crate::core::doctor::{Check, any_failed};
use crate::core::providers::release::windows;

/// The doctor's report: one line per check, or JSON; exit 1 when a check failed.
pub fn print(checks: &[Check], json: bool) -> u8 {
    let failed = any_failed(checks);
    if json {
        out_json(&super::json_schema::DoctorReport {
            ok: !failed,
            checks: checks.to_vec(),
        });
    } else {
        let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
        let lines: Vec<String> = checks
            .iter()
            .map(|c| {
                let fix = c
                    .fix
                    .as_deref()
                    .map(|f| format!(" — {f}"))
                    .unwrap_or_default();
                format!(
                    "{:<4}  {:<width$}  {}{fix}",
                    c.level.as_str(),
                    c.name,
                    c.detail
                )
            })
            .collect();
        outln(&lines.join("\n"));
    }
    u8::from(failed)
}

/// `umbel releases`: one line per CLI (its package, window and tested releases), or JSON.
pub fn releases(json: bool) -> u8 {
    let windows = windows();
    if json {
        out_json(&windows);
        return 0;
    }
    // The name column is as wide as the longest provider name.
    let width = windows.iter().map(|w| w.provider.len()).max().unwrap_or(0);
    let lines: Vec<String> = windows
        .iter()
        .map(|w| {
            let tested: Vec<String> = w.tested.iter().map(ToString::to_string).collect();
            format!(
                "{:<width$} {} to {}  tested on {}  ({})",
                w.provider,
                w.oldest,
                w.newest_tested,
                tested.join(", "),
                w.package
            )
        })
        .collect();
    outln(&lines.join("\n"));
    0
}
