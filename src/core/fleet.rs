//! What `umbel top` shows of each worker beyond `status`: its state in a person's words
//! (working, needs-input, idle, done, dead), when its last turn started and ended, and what
//! the session has cost — all pure readings of the worker's status, its events and its
//! transcript's token counts. The order puts what needs a person first.

use super::print::stats::{Tokens, TurnStats};
use super::providers::price_of;
use super::providers::{EventClass, Provider};
use super::status::{ListedState, Unreadable, WorkerState, WorkerStatus};
pub use super::token_kinds::TokenKinds;
use super::wait::ClassifiedEvent;

/// A worker's state as `top` shows it. `status`'s `ready` splits into `idle` (no turn yet) and
/// `done` (its last turn ended: an answer is waiting to be read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shown {
    /// Waits for a person (permission, question, sign-in, a dialog).
    NeedsInput,
    /// Its meta.json cannot be read.
    Corrupt,
    /// Its host did not answer.
    Unreachable,
    /// The CLI ended (or was killed).
    Dead,
    /// Its last turn ended; the answer is there.
    Done,
    /// A turn is running.
    Working,
    /// Spawn has not finished.
    Starting,
    /// Its CLI was ended by `park`; the next prompt resumes it.
    Parked,
    /// At its prompt, no turn run yet.
    Idle,
}

impl Shown {
    /// The word in the STATE column.
    pub fn label(self) -> &'static str {
        match self {
            Shown::NeedsInput => "needs-input",
            Shown::Corrupt => "corrupt",
            Shown::Unreachable => "unreachable",
            Shown::Dead => "dead",
            Shown::Done => "done",
            Shown::Working => "working",
            Shown::Starting => "starting",
            Shown::Parked => "parked",
            Shown::Idle => "idle",
        }
    }

    /// The word `ls`, `status` and `top` show a person for a worker, from its status alone
    /// (which carries its last turn's span). A worker umbel cannot read keeps status's word
    /// (`corrupt`, `unreachable`, `gone`); `--json` keeps status's `state` for programs.
    pub fn word(status: &WorkerStatus) -> &'static str {
        match status.state {
            ListedState::Unreadable(_) => status.state.as_str(),
            ListedState::Worker(_) => Shown::of(status, &TurnSpan::of_status(status)).label(),
        }
    }

    /// The state of a worker from its status and its last turn.
    pub fn of(status: &WorkerStatus, turn: &TurnSpan) -> Shown {
        match status.state {
            ListedState::Unreadable(Unreadable::Corrupt) => Shown::Corrupt,
            ListedState::Unreadable(Unreadable::Unreachable) => Shown::Unreachable,
            ListedState::Unreadable(Unreadable::Gone) => Shown::Dead,
            ListedState::Worker(WorkerState::NeedsInput) => Shown::NeedsInput,
            ListedState::Worker(WorkerState::Dead) => Shown::Dead,
            ListedState::Worker(WorkerState::Busy) => Shown::Working,
            ListedState::Worker(WorkerState::Starting) => Shown::Starting,
            ListedState::Worker(WorkerState::Parked) => Shown::Parked,
            ListedState::Worker(WorkerState::Ready) if turn.started_ms.is_some() => Shown::Done,
            ListedState::Worker(WorkerState::Ready) => Shown::Idle,
        }
    }
}

/// When the worker's last turn started (its submit hook) and ended (its end-of-turn hook), in
/// ms since the epoch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnSpan {
    pub started_ms: Option<u64>,
    pub ended_ms: Option<u64>,
}

impl TurnSpan {
    /// The last turn as `status` read it from the worker's log (here or on its host).
    pub fn of_status(status: &WorkerStatus) -> TurnSpan {
        TurnSpan {
            started_ms: status.turn_started_at,
            ended_ms: status.turn_ended_at,
        }
    }

    /// The last turn in `events` (the whole log, oldest first).
    pub fn of(events: &[ClassifiedEvent]) -> TurnSpan {
        let Some(submit) = events
            .iter()
            .rposition(|e| e.class == EventClass::Submitted)
        else {
            return TurnSpan::default();
        };
        let ms = |e: &ClassifiedEvent| (e.record.at_ns / 1_000_000) as u64;
        let ended = events[submit..].iter().rev().find(|e| {
            matches!(
                e.class,
                EventClass::TurnEnded | EventClass::TurnFailed { .. }
            )
        });
        TurnSpan {
            started_ms: Some(ms(&events[submit])),
            ended_ms: ended.map(ms),
        }
    }

    /// How long the turn has run (`now_ms` while it runs), or ran.
    pub fn age_ms(&self, now_ms: u64) -> Option<u64> {
        let started = self.started_ms?;
        Some(self.ended_ms.unwrap_or(now_ms).saturating_sub(started))
    }
}

/// Tokens and list-price cost of a whole session, from its transcript.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Input (cache reads and writes included) plus output tokens (thinking included).
    pub tokens: u64,
    /// US dollars at list price; `None` when no model of the session has a known price.
    pub cost_usd: Option<f64>,
    /// The same tokens by kind.
    pub kinds: TokenKinds,
}

impl Usage {
    /// The usage of the records `stats` was read from (every turn of the session).
    pub fn of(provider: Provider, stats: &TurnStats) -> Option<Usage> {
        if stats.models.is_empty() {
            return None;
        }
        let total = stats.total();
        let reading = provider.module().usage_reading();
        // Thinking recorded apart from the output is output all the same (and billed so).
        let output = |t: &Tokens| {
            t.output
                + if reading.thoughts_apart {
                    t.thoughts
                } else {
                    0
                }
        };
        // An input count that holds the cached tokens counts them once, as cached.
        let fresh = |t: &Tokens| match reading.cached_in_input {
            true => t.input.saturating_sub(t.cache_read),
            false => t.input,
        };
        let kinds = TokenKinds {
            input: fresh(&total) + total.cache_creation,
            cached_input: total.cache_read,
            output: output(&total),
            reasoning: total.thoughts,
        };
        let price = |m: &str| price_of(provider, m);
        let priced = stats.models.iter().any(|(m, t)| t.priced(price(m)));
        let cost = stats
            .models
            .iter()
            .map(|(m, t)| t.cost_usd(price(m), fresh(t), output(t)))
            .sum::<f64>();
        Some(Usage {
            tokens: kinds.input + kinds.cached_input + kinds.output,
            cost_usd: priced.then_some(cost),
            kinds,
        })
    }
}

impl Usage {
    /// The usage of a whole transcript, from its lines (oldest first); only the lines that can
    /// hold token counts ([`UsageReading::marks`](super::print::stats::UsageReading::marks)) are parsed.
    pub fn of_lines<'a>(provider: Provider, lines: impl Iterator<Item = &'a str>) -> Option<Usage> {
        let tokens = provider.module().usage_reading().marks;
        let records: Vec<serde_json::Value> = lines
            .filter(|line| tokens.iter().any(|t| line.contains(t)))
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        Usage::of(provider, &provider.module().turn_stats(&records))
    }
}

/// Orders rows by what needs a person first (needs-input, then broken, dead, done, working,
/// idle), the oldest wait first within a state, then by name.
pub fn attention_order(
    a: (Shown, Option<u64>, &str),
    b: (Shown, Option<u64>, &str),
) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
        .then(a.1.unwrap_or(u64::MAX).cmp(&b.1.unwrap_or(u64::MAX)))
        .then(a.2.cmp(b.2))
}

/// A status as `status` reports it, for tests: `state` is the listed state's word.
/// A duration in a few characters: `42s`, `3m04s`, `2h05m`, `3d04h`.
pub fn short_duration(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..86400 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d{:02}h", s / 86400, s % 86400 / 3600),
    }
}

/// A token count in a few characters: `950`, `12.3k`, `1.2M`.
pub fn short_tokens(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..100_000 => format!("{:.1}k", n as f64 / 1000.0),
        100_000..1_000_000 => format!("{}k", n / 1000),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// Dollars: cents from a cent up, four decimals below.
pub fn short_cost(usd: f64) -> String {
    if usd >= 0.01 || usd == 0.0 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    }
}

#[cfg(test)]
pub fn sample_status(name: &str, state: &str) -> WorkerStatus {
    let state = match state {
        "starting" => WorkerState::Starting.into(),
        "busy" => WorkerState::Busy.into(),
        "needs-input" => WorkerState::NeedsInput.into(),
        "dead" => WorkerState::Dead.into(),
        "parked" => WorkerState::Parked.into(),
        "corrupt" => ListedState::Unreadable(super::status::Unreadable::Corrupt),
        "unreachable" => ListedState::Unreadable(super::status::Unreadable::Unreachable),
        _ => WorkerState::Ready.into(),
    };
    WorkerStatus {
        cwd: "/work/project".into(),
        ..WorkerStatus::bare(name, "claude", state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::print::stats::Tokens;
    use crate::core::test_data::event as ev;

    #[test]
    fn the_last_turn_runs_from_its_submit_to_its_end() {
        let mut events = vec![ev(0, "SessionStart", EventClass::Started)];
        assert_eq!(TurnSpan::of(&events), TurnSpan::default());
        events.push(ev(2_000_000, "UserPromptSubmit", EventClass::Submitted));
        events.push(ev(3_000_000, "PreToolUse", EventClass::Progress));
        let running = TurnSpan::of(&events);
        assert_eq!(running.started_ms, Some(2));
        assert_eq!(running.ended_ms, None);
        assert_eq!(
            running.age_ms(10),
            Some(8),
            "a running turn ages with the clock"
        );
        events.push(ev(7_000_000, "Stop", EventClass::TurnEnded));
        let ended = TurnSpan::of(&events);
        assert_eq!(ended.ended_ms, Some(7));
        assert_eq!(ended.age_ms(100), Some(5), "an ended turn keeps its length");
        events.push(ev(9_000_000, "UserPromptSubmit", EventClass::Submitted));
        assert_eq!(
            TurnSpan::of(&events),
            TurnSpan {
                started_ms: Some(9),
                ended_ms: None
            },
            "an older turn's end does not end the newer one"
        );
    }

    #[test]
    fn usage_adds_every_model_and_prices_only_known_ones() {
        let tokens = |input, output| Tokens {
            input,
            output,
            requests: 1,
            ..Tokens::default()
        };
        assert_eq!(Usage::of(Provider::Claude, &TurnStats::default()), None);
        let stats = TurnStats {
            models: vec![
                ("claude-opus-5-5".into(), tokens(123, 12)),
                ("gpt-fake".into(), tokens(1000, 0)),
            ],
            ..TurnStats::default()
        };
        let usage = Usage::of(Provider::Claude, &stats).unwrap();
        assert_eq!(usage.tokens, 1135);
        assert_eq!(usage.cost_usd, Some(0.000732));
        let unpriced = TurnStats {
            models: vec![("gpt-fake".into(), tokens(10, 2))],
            ..TurnStats::default()
        };
        assert_eq!(
            Usage::of(Provider::Claude, &unpriced).unwrap().cost_usd,
            None
        );
    }

    #[test]
    fn the_clis_own_cost_comes_before_the_price_list_and_makes_an_unlisted_model_priced() {
        let tokens = |cost_nano_usd| Tokens {
            input: 1000,
            output: 100,
            requests: 1,
            cost_nano_usd,
            ..Tokens::default()
        };
        let usage = |model: &str, cost| {
            let stats = TurnStats {
                models: vec![(model.into(), tokens(cost))],
                ..TurnStats::default()
            };
            Usage::of(Provider::Opencode, &stats).and_then(|u| u.cost_usd)
        };
        // opencode's own figure, for a model umbel has no price for.
        assert_eq!(usage("no-such-model", 549_000), Some(0.000549));
        // None of its own (0: outside its catalogue) and none listed: unknown.
        assert_eq!(usage("no-such-model", 0), None);
        // None of its own: the list price.
        let listed = usage("claude-opus-5-5", 0);
        assert!(listed.is_some_and(|c| c > 0.0), "{listed:?}");
    }

    #[test]
    fn tokens_come_by_kind_each_counted_once_and_thinking_recorded_apart_counts_as_output() {
        let stats = TurnStats {
            models: vec![(
                "m".into(),
                Tokens {
                    input: 100,
                    output: 10,
                    cache_read: 20,
                    cache_creation: 5,
                    thoughts: 4,
                    requests: 1,
                    cost_nano_usd: 0,
                },
            )],
            ..TurnStats::default()
        };
        // gemini records thoughts beside its output, and its input holds its cached tokens;
        // claude records thinking within its output, and cache reads beside a fresh input.
        let gemini = Usage::of(Provider::Gemini, &stats).unwrap();
        assert_eq!(gemini.tokens, 119);
        let kinds = TokenKinds {
            input: 85,
            cached_input: 20,
            output: 14,
            reasoning: 4,
        };
        assert_eq!(gemini.kinds, kinds);
        let claude = Usage::of(Provider::Claude, &stats).unwrap();
        assert_eq!(claude.tokens, 135);
        assert_eq!(claude.kinds.output, 10);
        assert_eq!(claude.kinds.reasoning, 4);
    }

    /// Skipping the lines without a token string loses nothing the stats count.
    #[test]
    fn a_session_adds_up_from_its_usage_lines_alone() {
        use crate::core::test_data::{CLAUDE_SESSION, SESSIONS};
        for (provider, transcript) in SESSIONS {
            let every: Vec<serde_json::Value> = transcript
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            let whole = Usage::of(provider, &provider.module().turn_stats(&every));
            let usage = Usage::of_lines(provider, transcript.lines());
            assert_eq!(usage, whole, "{provider:?}");
            assert!(
                usage.is_some_and(|u| u.tokens > 0),
                "{provider:?}: {usage:?}"
            );
        }
        let claude = Usage::of_lines(Provider::Claude, CLAUDE_SESSION.lines()).unwrap();
        assert!(
            claude.cost_usd.is_some_and(|c| c > 0.0),
            "claude models have a price"
        );
    }

    #[test]
    fn what_needs_a_person_comes_first() {
        let mut rows = [
            (Shown::Idle, None, "a"),
            (Shown::Working, Some(5), "b"),
            (Shown::NeedsInput, Some(9), "c"),
            (Shown::NeedsInput, Some(3), "d"),
            (Shown::Dead, None, "e"),
            (Shown::Done, Some(1), "f"),
        ];
        rows.sort_by(|a, b| attention_order(*a, *b));
        let names: Vec<&str> = rows.iter().map(|r| r.2).collect();
        assert_eq!(names, ["d", "c", "e", "f", "b", "a"]);
    }
}
