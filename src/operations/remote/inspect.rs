//! `capture`, `logs` and `explain` of a remote worker as values (for MCP): the screen, the
//! event log and the evidence are on its host, whose umbel prints them as JSON.

use super::super::Ctx;
use super::forward::Request;
use super::verbs::{call, call_lines, read_back};
use crate::core::args::{CaptureArgs, LogsArgs};
use crate::core::errors::Result;
use crate::core::explain::Explanation;
use crate::core::remote::RemoteRecord;
use serde::Deserialize;

#[derive(Deserialize)]
struct Screen {
    screen: String,
}

#[derive(Deserialize)]
struct LogLine {
    line: String,
}

/// The worker's screen (with its scrollback when `history`).
pub fn capture(ctx: &Ctx, at: &RemoteRecord, args: &CaptureArgs) -> Result<String> {
    let mut argv = vec!["capture".to_string(), at.name.clone(), "--json".to_string()];
    if args.history {
        argv.push("--history".into());
    }
    let request = Request {
        argv,
        ..Request::default()
    };
    let found: Screen = read_back(&at.host, call(ctx, &at.host, request)?)?;
    Ok(found.screen)
}

/// The worker's event log as it is now, one line per event.
pub fn logs(ctx: &Ctx, at: &RemoteRecord, args: &LogsArgs) -> Result<Vec<String>> {
    let request = Request {
        argv: vec!["logs".into(), args.name.clone(), "--json".into()],
        ..Request::default()
    };
    let (rows, _) = call_lines(ctx, &at.host, request)?;
    rows.into_iter()
        .map(|row| read_back::<LogLine>(&at.host, row).map(|l| l.line))
        .collect()
}

/// The evidence behind the worker's state, as its host's umbel gathers it.
pub fn explain(ctx: &Ctx, at: &RemoteRecord) -> Result<Explanation> {
    let request = Request {
        argv: vec!["explain".into(), at.name.clone(), "--json".into()],
        ..Request::default()
    };
    let mut found: Explanation = read_back(&at.host, call(ctx, &at.host, request)?)?;
    found.host = Some(at.host.clone());
    Ok(found)
}
