//! The page frame and the fleet page: every worker with its provider, state (the words `ls`
//! uses), turn age, tokens and cost, those waiting for a person first (`top`'s order). HTML is
//! built by hand, every value escaped ([`escape`]).

use super::App;
use crate::core::errors::Result;
use crate::core::fleet::{Shown, short_cost, short_duration, short_tokens};
use crate::core::web_html::escape;
use crate::operations::Ctx;
use crate::operations::fleet::FleetRow;

/// The fleet, as the fleet page shows it (the server's [`crate::operations::fleet::Fleet`]
/// re-reads only what grew since its last look).
pub fn fleet_rows(app: &App, ctx: &Ctx) -> Result<Vec<FleetRow>> {
    let mut fleet = app
        .fleet
        .lock()
        .map_err(|_| crate::core::errors::Error::usage("the fleet view broke (a panic earlier)"))?;
    fleet.look(ctx)
}

/// A whole page: `title`, the body, the stylesheet and script (what `data-page` tells it to
/// do), and the CSRF token for the script's POSTs.
pub fn frame(app: &App, title: &str, page: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"csrf\" content=\"{csrf}\">\
         <title>{title} · umbel</title><link rel=\"stylesheet\" href=\"/assets/app.css\">\
         <script src=\"/assets/app.js\" defer></script></head>\
         <body data-page=\"{page}\"><header><a class=\"home\" href=\"/\">umbel</a> \
         <span class=\"where\">{title}</span> <span id=\"live-dot\" title=\"live updates\"></span>\
         </header><main>{body}</main></body></html>\n",
        csrf = app.csrf,
        title = escape(title),
        page = escape(page),
    )
}

/// An error page with a way back.
pub fn error_page(message: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>umbel</title><link rel=\"stylesheet\" href=\"/assets/app.css\"></head>\
         <body><header><a class=\"home\" href=\"/\">umbel</a></header><main>\
         <p class=\"error\" id=\"error\">{}</p><p><a href=\"/\">Back to the fleet</a></p>\
         </main></body></html>\n",
        escape(message)
    )
}

/// The fleet page.
pub fn fleet_page(app: &App, rows: &[FleetRow]) -> String {
    let body = format!("<section id=\"fleet-box\">{}</section>", fleet_table(rows));
    frame(app, "fleet", "fleet", &body)
}

/// The fleet table alone (what the page script swaps in when an event comes).
pub fn fleet_table(rows: &[FleetRow]) -> String {
    if rows.is_empty() {
        return "<p id=\"fleet-empty\">No workers. Start one with <code>umbel spawn</code>.</p>\
                <table id=\"fleet\"></table>"
            .to_string();
    }
    let now = crate::adapters::host::now_ms();
    let body: String = rows.iter().map(|row| fleet_row(row, now)).collect();
    format!(
        "<table id=\"fleet\"><thead><tr><th>worker</th><th>provider</th><th>state</th>\
         <th>turn</th><th>tokens</th><th>cost</th><th class=\"line\">doing</th></tr></thead>\
         <tbody>{body}</tbody></table>"
    )
}

fn fleet_row(row: &FleetRow, now: u64) -> String {
    let status = &row.status;
    let name = escape(&status.name);
    let age = row
        .turn
        .started_ms
        .map(|t| short_duration(row.turn.ended_ms.unwrap_or(now).saturating_sub(t)))
        .unwrap_or_default();
    let (tokens, cost) = match &row.usage {
        Some(u) => (
            short_tokens(u.tokens),
            u.cost_usd.map(short_cost).unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    };
    let attention = if row.shown == Shown::NeedsInput {
        " attention"
    } else {
        ""
    };
    format!(
        "<tr class=\"worker{attention}\" data-name=\"{name}\">\
         <td class=\"name\"><a href=\"/w/{name}\">{name}</a></td>\
         <td class=\"provider\">{provider}</td><td class=\"state state-{state}\">{state}</td>\
         <td class=\"age\">{age}</td><td class=\"tokens\">{tokens}</td><td class=\"cost\">{cost}</td>\
         <td class=\"line\">{line}</td></tr>",
        provider = escape(&status.provider),
        state = escape(status.state.as_str()),
        line = escape(&row.line),
    )
}
