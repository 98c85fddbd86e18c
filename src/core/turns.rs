//! Every turn of a transcript, in order: its number, prompt, answer, how it ended and the tools
//! it ran. Read forwards, one line at a time ([`TurnReader`]): a turn runs from the record that
//! opens it ([`ProviderModule::opens_turn`], the record each provider's backwards reader
//! [`ProviderModule::last_turn`] stops at) to the next one, so both directions agree on where
//! turns start. A turn's records are folded by the same code as the last turn's, and
//! [`ProviderModule::turn_actions`] reads its tools from them.

pub use super::providers::tool_action::{ActionStatus, SUMMARY_CHARS, ToolAction, summarize_input};
use super::providers::{ProviderModule, RecordLink};
use aho_corasick::AhoCorasick;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// One turn of a worker's conversation.
// Serialised as `read` shows a turn: its tools are `actions`' to show, so they are left out.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// 1-based, oldest first.
    pub turn: usize,
    /// The prompt that opened the turn, when the transcript has it.
    pub prompt: Option<String>,
    /// The answer, or the provider's error message; null while the turn runs.
    pub answer: Option<String>,
    /// Whether the transcript marks the turn as finished.
    pub ended: bool,
    /// The provider failed the turn (API error, usage limit, interrupted).
    pub is_error: bool,
    /// The tools the worker ran in this turn, in order.
    #[serde(skip)]
    #[schemars(skip)]
    pub actions: Vec<ToolAction>,
}

/// Every turn of a transcript given oldest line first. Records before the first prompt (session
/// metadata) make no turn.
pub fn all_turns(provider: &dyn ProviderModule, lines_oldest_first: &[String]) -> Vec<Turn> {
    let mut turns = TurnReader::new(provider, None);
    for line in lines_oldest_first {
        turns.push(line.as_bytes());
    }
    turns.finish()
}

/// Builds the turns of a transcript fed one line at a time, oldest first, holding only the turns
/// found so far and the records of the turn being read. A turn is complete when the next one
/// opens ([`ProviderModule::opens_turn`]) or the transcript ends; its records, folded newest
/// first by [`ProviderModule::turn_from_records`], give exactly what reading the transcript
/// backwards turn by turn gives. Each line is parsed at most once, and a line holding none of
/// the provider's [`ProviderModule::record_tokens`] not at all (beyond the two ids of
/// [`ProviderModule::record_link`], for a CLI that links its records).
///
/// A linked record written above the transcript's first prompt whose parent has not come yet
/// waits for it, and is read right after it (claude 2.1.246 writes a fork's first answer above
/// the history the fork copies); so do records whose parent waits. One whose parent never comes
/// is read at the end. Past the first prompt a record naming a parent not read is read where it
/// stands: claude often names parents it never writes (anthropics/claude-code#22526).
pub struct TurnReader<'p> {
    provider: &'p dyn ProviderModule,
    /// Matches any of the provider's record tokens; `None` parses every line.
    tokens: Option<AhoCorasick>,
    /// Stop once this many turns are complete.
    limit: Option<usize>,
    /// The records of the turn being read, oldest first.
    held: Vec<Value>,
    /// The most records held at once (a structural bound on memory, for tests).
    pub peak_held: usize,
    turns: Vec<Turn>,
    /// The ids of the linked records read before the first prompt.
    seen: HashSet<String>,
    /// Linked records waiting for their parent, by the parent's id, with their place in the file.
    waiting: HashMap<String, Vec<Waiting>>,
    /// The ids of the waiting records.
    waiting_ids: HashSet<String>,
    /// A record that opens a turn was read.
    opened: bool,
    /// Lines pushed so far.
    pushed: usize,
}

/// A linked record that came before its parent.
struct Waiting {
    place: usize,
    id: Option<String>,
    line: Vec<u8>,
}

impl<'p> TurnReader<'p> {
    /// A reader that stops once `limit` turns are complete (`None`: reads to the end).
    pub fn new(provider: &'p dyn ProviderModule, limit: Option<usize>) -> Self {
        let tokens = provider.record_tokens();
        TurnReader {
            provider,
            tokens: (!tokens.is_empty())
                .then(|| AhoCorasick::new(tokens).ok())
                .flatten(),
            limit,
            held: Vec::new(),
            peak_held: 0,
            turns: Vec::new(),
            seen: HashSet::new(),
            waiting: HashMap::new(),
            waiting_ids: HashSet::new(),
            opened: false,
            pushed: 0,
        }
    }

    /// Feeds the next line; false once the turns asked for are complete (read no further).
    pub fn push(&mut self, line: &[u8]) -> bool {
        self.pushed += 1;
        // Past the first prompt, with nothing waiting, no record can wait: links are not read.
        let linking = !self.opened || !self.waiting.is_empty();
        match linking.then(|| self.provider.record_link(line)).flatten() {
            Some(link) => self.push_linked(line, link),
            None => self.read(line),
        }
    }

    /// A linked record: read now, or waiting for its parent.
    fn push_linked(&mut self, line: &[u8], link: RecordLink) -> bool {
        let Some(parent) = link.parent.filter(|p| self.waits_for(p)) else {
            return self.read_linked(line, link.id);
        };
        if let Some(id) = &link.id {
            self.waiting_ids.insert(id.clone());
        }
        self.waiting.entry(parent).or_default().push(Waiting {
            place: self.pushed,
            id: link.id,
            line: line.to_vec(),
        });
        !self.done()
    }

    /// Whether a record naming `parent` waits for it (see the type's doc).
    fn waits_for(&self, parent: &str) -> bool {
        self.waiting_ids.contains(parent) || (!self.opened && !self.seen.contains(parent))
    }

    /// Reads a linked record, then the records that waited for it (and theirs, in turn).
    fn read_linked(&mut self, line: &[u8], id: Option<String>) -> bool {
        let mut more = self.read(line);
        let mut ready: Vec<Waiting> = Vec::new();
        let mut next = id;
        loop {
            if let Some(id) = next.take() {
                if let Some(children) = self.waiting.remove(&id) {
                    ready.extend(children.into_iter().rev());
                }
                if !self.opened {
                    self.seen.insert(id);
                }
            }
            let Some(child) = ready.pop() else {
                return more;
            };
            if let Some(id) = &child.id {
                self.waiting_ids.remove(id);
            }
            more = more && self.read(&child.line);
            next = child.id;
        }
    }

    /// Reads one line in its turn's order.
    fn read(&mut self, line: &[u8]) -> bool {
        if self.done() {
            return false;
        }
        if self.tokens.as_ref().is_some_and(|t| !t.is_match(line)) {
            return true;
        }
        let Some(record) = parse(line) else {
            return true;
        };
        if self.provider.opens_turn(&record) {
            self.opened = true;
            self.close_turn();
            if self.done() {
                return false;
            }
        }
        self.held.push(record);
        self.peak_held = self.peak_held.max(self.held.len());
        true
    }

    fn done(&self) -> bool {
        self.limit.is_some_and(|n| self.turns.len() >= n)
    }

    /// Makes the held records a turn (unless they are the preamble before the first prompt).
    fn close_turn(&mut self) {
        let records = std::mem::take(&mut self.held);
        if records.is_empty() {
            return;
        }
        let actions = self.provider.turn_actions(&records);
        let parsed = self
            .provider
            .turn_from_records(&mut records.into_iter().rev());
        if parsed.prompt.is_none() && parsed.answer.is_none() {
            return;
        }
        // An interrupted turn's partial text is never its answer (claude writes it; codex
        // and gemini do not).
        let interrupted = parsed.interrupted();
        let answer = parsed.answer.filter(|_| !interrupted);
        self.turns.push(Turn {
            turn: self.turns.len() + 1,
            prompt: parsed.prompt,
            answer,
            ended: parsed.ended,
            is_error: parsed.is_error,
            actions,
        });
    }

    /// The turns read, once the transcript ended (or the limit was reached).
    pub fn finish(mut self) -> Vec<Turn> {
        let mut orphans: Vec<Waiting> = self.waiting.drain().flat_map(|(_, w)| w).collect();
        orphans.sort_by_key(|w| w.place);
        for orphan in orphans {
            self.read_linked(&orphan.line, orphan.id);
        }
        if !self.done() {
            self.close_turn();
        }
        self.turns
    }
}

/// One JSON record; `None` for a line that is not one (invalid UTF-8 is replaced, as the
/// backwards reader does).
fn parse(line: &[u8]) -> Option<Value> {
    match std::str::from_utf8(line) {
        Ok(text) => serde_json::from_str(text).ok(),
        Err(_) => serde_json::from_str(&String::from_utf8_lossy(line)).ok(),
    }
}

#[cfg(test)]
#[path = "turns_tests.rs"]
mod tests;
