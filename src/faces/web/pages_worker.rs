//! A worker's page: its state, the tool it waits on (with approve and deny), forms to send a
//! prompt (queued while a turn runs), interrupt, park, resume and kill, its screen, and its
//! turns newest first — prompts and answers from its transcript as `read` has them, Markdown
//! rendered, each with the tools it ran. The part that changes ([`live`]) is what the page
//! script swaps in when an event for the worker comes.

use super::App;
use super::pages::frame;
use crate::core::approvals::PendingApproval;
use crate::core::args::ReadArgs;
use crate::core::errors::{Error, Result};
use crate::core::fleet_args::CaptureArgs;
use crate::core::fleet_args::StatusArgs;
use crate::core::name::WorkerName;
use crate::core::status::WorkerStatus;
use crate::core::turns::Turn;
use crate::core::web_html::{escape, markdown};
use crate::operations::Ctx;
use crate::operations::read::Reading;
use crate::operations::remote::anywhere::reading;
use crate::operations::remote::fleet::status_everywhere;

/// How many turns the page shows (the newest).
const TURNS_SHOWN: usize = 30;

/// What the page shows of one worker.
pub struct WorkerLook {
    pub status: WorkerStatus,
    pub approval: Option<PendingApproval>,
    /// The newest [`TURNS_SHOWN`] turns, newest first.
    pub turns: Vec<Turn>,
    /// Why the turns could not be read, when they could not.
    pub turns_problem: Option<String>,
}

/// Reads what the page shows of worker `name`.
pub fn look(ctx: &Ctx, name: &str) -> Result<WorkerLook> {
    let args = StatusArgs {
        name: Some(name.to_string()),
    };
    let status = status_everywhere(ctx, &args)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::NotFound {
            name: name.to_string(),
        })?;
    let approval = crate::operations::approvals::of(ctx, &WorkerName::parse(name)?)?;
    let (turns, turns_problem) = match reading(ctx, &read_all(name)) {
        Ok(Reading::Turns(_, mut turns)) => {
            turns.reverse();
            turns.truncate(TURNS_SHOWN);
            (turns, None)
        }
        Ok(Reading::Last(_)) => (Vec::new(), None),
        Err(Error::NoAnswer { .. }) => (Vec::new(), None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    Ok(WorkerLook {
        status,
        approval,
        turns,
        turns_problem,
    })
}

fn read_all(name: &str) -> ReadArgs {
    ReadArgs {
        all: true,
        ..ReadArgs::of(name)
    }
}

/// The worker's screen as text.
pub fn screen(ctx: &Ctx, name: &str) -> Result<String> {
    let args = CaptureArgs {
        name: name.to_string(),
        history: false,
    };
    crate::operations::inspect::capture(ctx, &args)
}

/// The whole page (`note`: what the last form did, after a redirect).
pub fn page(app: &App, look: &WorkerLook, note: Option<&str>) -> String {
    let name = escape(&look.status.name);
    let note = note
        .map(|n| format!("<p id=\"note\" class=\"note\">{}</p>", escape(n)))
        .unwrap_or_default();
    let body = format!(
        "{note}{forms}<section id=\"live\" data-name=\"{name}\">{live}</section>\
         <section id=\"screen-box\"><h2>Screen</h2><pre id=\"screen\" \
         data-name=\"{name}\"></pre></section>",
        live = live(app, look),
        forms = forms(app, &look.status.name),
    );
    frame(app, &look.status.name, "worker", &body)
}

/// The part that changes: state, the pending approval, the turns.
pub fn live(app: &App, look: &WorkerLook) -> String {
    let status = &look.status;
    let model = status
        .model
        .as_deref()
        .map(|m| format!(" · {}", escape(m)))
        .unwrap_or_default();
    let problem = look
        .turns_problem
        .as_deref()
        .map(|p| format!("<p class=\"error\">{}</p>", escape(p)))
        .unwrap_or_default();
    let turns: String = look.turns.iter().map(turn).collect();
    format!(
        "<p class=\"facts\"><span id=\"state\" class=\"state state-{state}\">{state}</span> \
         <span class=\"provider\">{provider}{model}</span> <span class=\"cwd\">{cwd}</span></p>\
         {approval}{problem}<section id=\"turns\"><h2>Turns</h2>{turns}</section>",
        state = escape(status.state.as_str()),
        provider = escape(&status.provider),
        cwd = escape(&status.cwd),
        approval = look
            .approval
            .as_ref()
            .map(|a| approval(app, a))
            .unwrap_or_default(),
    )
}

fn approval(app: &App, pending: &PendingApproval) -> String {
    let name = escape(&pending.name);
    let input = pending
        .input
        .as_ref()
        .map(|i| serde_json::to_string_pretty(i).unwrap_or_default())
        .unwrap_or_default();
    let (id, csrf) = (escape(&pending.id), csrf_field(app));
    let expect = format!("{csrf}<input type=\"hidden\" name=\"expect\" value=\"{id}\">");
    let answers = match pending.answer_with.as_str() {
        "answer" => choices(&name, &expect, pending),
        "attach" => format!(
            "<p class=\"needs-person\">{}: <code>umbel attach {name}</code></p>",
            escape(
                pending
                    .needs_person
                    .as_deref()
                    .unwrap_or("only a person at its screen can answer")
            )
        ),
        _ => format!(
            "<form id=\"approve\" method=\"post\" action=\"/w/{name}/approve\">{expect}\
             <button type=\"submit\">Approve</button></form>"
        ),
    };
    format!(
        "<section id=\"approval\"><h2>Waiting for you: {reason}</h2>\
         <p class=\"tool\">{tool}</p><pre class=\"tool-input\">{input}</pre>{answers}\
         <form id=\"deny\" method=\"post\" action=\"/w/{name}/deny\">{expect}\
         <input type=\"text\" name=\"reason\" placeholder=\"why (sent as the next prompt)\">\
         <button type=\"submit\">Deny</button></form></section>",
        reason = escape(&pending.reason),
        tool = escape(pending.tool.as_deref().unwrap_or("")),
        input = escape(&input),
    )
}

/// A question's choices, a button each (`answer` with its number).
fn choices(name: &str, expect: &str, pending: &PendingApproval) -> String {
    let Some(question) = pending.questions.first() else {
        return String::new();
    };
    let buttons: String = question
        .options
        .iter()
        .enumerate()
        .map(|(i, choice)| {
            format!(
                "<form class=\"choice\" method=\"post\" action=\"/w/{name}/answer\">{expect}\
                 <input type=\"hidden\" name=\"choice\" value=\"{n}\">\
                 <button type=\"submit\" title=\"{title}\">{label}</button></form>",
                n = i + 1,
                label = escape(&choice.label),
                title = escape(choice.description.as_deref().unwrap_or("")),
            )
        })
        .collect();
    format!(
        "<p class=\"question\">{}</p><div id=\"choices\">{buttons}</div>",
        escape(&question.question)
    )
}

fn turn(turn: &Turn) -> String {
    let prompt = turn.prompt.as_deref().map(markdown).unwrap_or_default();
    let answer = match (&turn.answer, turn.ended) {
        (Some(text), _) => markdown(text),
        (None, false) => "<p class=\"running\">running…</p>".to_string(),
        (None, true) => String::new(),
    };
    let actions: String = turn
        .actions
        .iter()
        .map(|a| {
            let status = serde_json::to_value(a.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!(
                "<li class=\"action action-{status}\"><code>{}</code> {}</li>",
                escape(&a.tool),
                escape(&a.input)
            )
        })
        .collect();
    let actions = match actions.is_empty() {
        true => String::new(),
        false => format!("<ul class=\"actions\">{actions}</ul>"),
    };
    let error = if turn.is_error { " turn-error" } else { "" };
    format!(
        "<article class=\"turn{error}\" data-turn=\"{n}\"><h3>turn {n}</h3>\
         <div class=\"prompt\">{prompt}</div>{actions}<div class=\"answer\">{answer}</div></article>",
        n = turn.turn,
    )
}

/// The hidden field every form carries.
fn csrf_field(app: &App) -> String {
    format!(
        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
        crate::core::web_guard::CSRF_FIELD,
        app.csrf
    )
}

/// Send, interrupt, park, resume, kill.
fn forms(app: &App, name: &str) -> String {
    let name = escape(name);
    let csrf = csrf_field(app);
    let button = |verb: &str, label: &str, extra: &str| {
        format!(
            "<form id=\"{verb}\" class=\"verb\" method=\"post\" action=\"/w/{name}/{verb}\"{extra}>\
             {csrf}<button type=\"submit\">{label}</button></form>"
        )
    };
    format!(
        "<section id=\"act\"><form id=\"send\" method=\"post\" action=\"/w/{name}/send\">{csrf}\
         <textarea name=\"prompt\" rows=\"3\" required placeholder=\"A prompt (waits its turn \
         while one runs)\"></textarea><button type=\"submit\">Send</button></form>\
         <div class=\"verbs\">{interrupt}{park}{resume}{kill}</div></section>",
        interrupt = button("interrupt", "Interrupt", ""),
        park = button("park", "Park", ""),
        resume = button("resume", "Resume", ""),
        kill = button("kill", "Kill", " data-confirm=\"Kill this worker?\""),
    )
}
