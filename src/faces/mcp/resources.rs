//! Workers as MCP resources: `umbel://workers/NAME` (its status, as `umbel_status` gives it),
//! `umbel://workers/NAME/answer` (its last answer, as `umbel_read`) and
//! `umbel://workers/NAME/screen` (its screen as text, as `umbel_capture`); and the fleet's inbox,
//! `umbel://approvals` (every pending approval, as `umbel_approvals`). Reading one runs the
//! same verb as the tool (`resource_calls.rs`), so the two cannot drift; which resources an
//! event touches is [`touched`], what the change feed (`feed.rs`) tells subscribers.

use crate::core::fleet_events::{
    ANSWERED, DEAD, FleetEvent, INTERRUPTED, KILLED, NEEDS_INPUT, PARKED, SPAWNED, TURN_ENDED,
};
use crate::core::name::WorkerName;
use rmcp::model::{
    CallToolResult, ErrorCode, ErrorData, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, SubscriptionFilter,
};
use serde_json::Value;

/// Every worker resource's URI starts with this.
pub const PREFIX: &str = "umbel://workers/";
/// Every pending approval of the fleet, oldest first.
pub const APPROVALS: &str = "umbel://approvals";
/// The events that start or end a pending approval: they touch [`APPROVALS`].
const APPROVAL_CHANGES: [&str; 7] = [
    NEEDS_INPUT,
    ANSWERED,
    TURN_ENDED,
    INTERRUPTED,
    DEAD,
    KILLED,
    PARKED,
];

/// Which side of a worker a resource shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Status,
    Answer,
    Screen,
}

impl View {
    const ALL: [View; 3] = [View::Status, View::Answer, View::Screen];

    fn suffix(self) -> &'static str {
        match self {
            View::Status => "",
            View::Answer => "/answer",
            View::Screen => "/screen",
        }
    }

    fn mime(self) -> &'static str {
        match self {
            View::Screen => "text/plain",
            View::Status | View::Answer => "application/json",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            View::Status => {
                "the worker's status: {name, state, position, ...}, as umbel_status gives it"
            }
            View::Answer => "the answer of the worker's last finished turn, as umbel_read gives it",
            View::Screen => "the worker's screen as text, for a person (never parse it)",
        }
    }
}

/// The URI of one view of worker `name`.
pub fn uri(name: &str, view: View) -> String {
    format!("{PREFIX}{name}{}", view.suffix())
}

/// The worker and view a URI names; what is wrong with it otherwise.
pub fn parse(uri: &str) -> Result<(WorkerName, View), String> {
    let shapes = format!(
        "umbel's resources are {APPROVALS}, {PREFIX}NAME, {PREFIX}NAME/answer and {PREFIX}NAME/screen"
    );
    let Some(rest) = uri.strip_prefix(PREFIX) else {
        return Err(format!("unknown resource `{uri}`: {shapes}"));
    };
    let (name, view) = match rest.split_once('/') {
        None => (rest, View::Status),
        Some((name, "answer")) => (name, View::Answer),
        Some((name, "screen")) => (name, View::Screen),
        Some(_) => return Err(format!("unknown resource `{uri}`: {shapes}")),
    };
    let name =
        WorkerName::parse(name).map_err(|e| format!("resource `{uri}` names no worker: {e}"))?;
    Ok((name, view))
}

/// Whether umbel has the resource `uri` (what is wrong with it otherwise).
pub fn known(uri: &str) -> Result<(), String> {
    if uri == APPROVALS {
        return Ok(());
    }
    parse(uri).map(|_| ())
}

/// The resources an event changes: the worker's status and screen always, its answer when a
/// turn ended. A worker just spawned has nothing to update yet (the list changed instead).
pub fn touched(event: &FleetEvent) -> Vec<String> {
    if event.event == SPAWNED {
        return Vec::new();
    }
    let mut uris = vec![
        uri(&event.worker, View::Status),
        uri(&event.worker, View::Screen),
    ];
    if event.event == TURN_ENDED {
        uris.push(uri(&event.worker, View::Answer));
    }
    if APPROVAL_CHANGES.contains(&event.event.as_str()) {
        uris.push(APPROVALS.to_string());
    }
    uris
}

/// The approvals inbox, then the three resources of each worker.
pub fn listed(names: &[WorkerName]) -> Vec<Resource> {
    let inbox = "every pending approval of the fleet, oldest first, as umbel_approvals gives it";
    let mut out = vec![
        Resource::new(APPROVALS, "approvals")
            .with_description(inbox)
            .with_mime_type("application/json"),
    ];
    for name in names {
        for view in View::ALL {
            let title = format!("{name}{}", view.suffix());
            out.push(
                Resource::new(uri(name.as_str(), view), title)
                    .with_description(view.describe())
                    .with_mime_type(view.mime()),
            );
        }
    }
    out
}

/// The same three, for any worker name.
pub fn templates() -> Vec<ResourceTemplate> {
    View::ALL
        .into_iter()
        .map(|view| {
            let name = format!("worker{}", view.suffix().replace('/', "-"));
            ResourceTemplate::new(format!("{PREFIX}{{name}}{}", view.suffix()), name)
                .with_description(view.describe())
                .with_mime_type(view.mime())
        })
        .collect()
}

/// What of a `subscriptions/listen` filter umbel delivers: workers coming and going, and the
/// updates of the worker resources asked for (other URIs are left out of the acknowledgment).
pub fn acceptable(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut accepted = SubscriptionFilter::new();
    accepted.resources_list_changed = requested.resources_list_changed;
    accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|uri| known(uri).is_ok())
            .cloned()
            .collect()
    });
    accepted
}

/// The resource's contents from the tool result the verb rendered.
pub fn contents(
    uri: &str,
    view: View,
    rendered: CallToolResult,
) -> Result<ReadResourceResult, ErrorData> {
    let value = rendered.structured_content.unwrap_or(Value::Null);
    if rendered.is_error == Some(true) {
        let message = value["error"]["message"]
            .as_str()
            .unwrap_or("reading the resource failed")
            .to_string();
        let code = match value["error"]["code"].as_str() {
            Some("not_found") => ErrorCode::RESOURCE_NOT_FOUND,
            _ => ErrorCode::INTERNAL_ERROR,
        };
        return Err(ErrorData::new(code, message, Some(value)));
    }
    let text = match view {
        _ if uri == APPROVALS => value["approvals"].to_string(),
        View::Status => value["workers"][0].to_string(),
        View::Answer => value.to_string(),
        View::Screen => value["screen"].as_str().unwrap_or_default().to_string(),
    };
    let content = ResourceContents::text(text, uri).with_mime_type(view.mime());
    // Never fresh for long: the next turn changes it (a notification says when).
    Ok(ReadResourceResult::new(vec![content]).with_ttl_ms(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_a_worker_and_a_view_and_anything_else_is_refused() {
        let (name, view) = parse("umbel://workers/w1/answer").unwrap();
        assert_eq!((name.as_str(), view), ("w1", View::Answer));
        assert_eq!(parse("umbel://workers/w1").unwrap().1, View::Status);
        assert_eq!(parse("umbel://workers/w1/screen").unwrap().1, View::Screen);
        for bad in [
            "file:///etc/passwd",
            "umbel://workers/w1/secrets",
            "umbel://workers/",
            "umbel://workers/../x",
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(bad), "{err}");
        }
        for view in View::ALL {
            assert_eq!(parse(&uri("w1", view)).unwrap().1, view);
        }
    }

    #[test]
    fn a_turn_end_touches_the_answer_and_other_changes_do_not() {
        let ended = FleetEvent::new(1, "w1", "claude", TURN_ENDED);
        assert!(touched(&ended).contains(&"umbel://workers/w1/answer".to_string()));
        let asked = FleetEvent::new(1, "w1", "claude", "needs-input");
        assert_eq!(
            touched(&asked),
            [
                "umbel://workers/w1",
                "umbel://workers/w1/screen",
                "umbel://approvals"
            ]
        );
        let answered = FleetEvent::new(1, "w1", "claude", ANSWERED);
        assert!(touched(&answered).contains(&APPROVALS.to_string()));
        let submitted = FleetEvent::new(1, "w1", "claude", "submitted");
        assert!(!touched(&submitted).contains(&APPROVALS.to_string()));
        assert!(touched(&FleetEvent::new(1, "w1", "claude", SPAWNED)).is_empty());
    }
}
