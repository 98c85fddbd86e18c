//! The unified diff of two answers (`umbel diff`), with the `similar` crate: the whole text for
//! people, and the hunks as data for programs.

use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// Two answers and what changed between them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerDiff {
    /// The answers are the same text.
    pub identical: bool,
    /// The older answer.
    pub from_text: String,
    /// The newer answer.
    pub to_text: String,
    /// The unified diff (`--- turn N` / `+++ turn M` headers); empty when identical.
    pub unified: String,
    pub hunks: Vec<Hunk>,
}

/// One hunk of the unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// `@@ -a,b +c,d @@`
    pub header: String,
    /// Its lines, each prefixed `' '`, `'-'` or `'+'`, without line ends.
    pub lines: Vec<String>,
}

/// Compares two answers line by line. Answers rarely end with a newline; both are compared as
/// if they did, so the diff shows no `\ No newline at end of file` noise.
pub fn diff_answers(from: &str, to: &str, from_turn: usize, to_turn: usize) -> AnswerDiff {
    let (old, new) = (with_final_newline(from), with_final_newline(to));
    let text_diff = TextDiff::from_lines(&old, &new);
    let mut unified = text_diff.unified_diff();
    unified
        .context_radius(CONTEXT)
        .header(&format!("turn {from_turn}"), &format!("turn {to_turn}"));
    let hunks: Vec<Hunk> = unified
        .iter_hunks()
        .map(|hunk| Hunk {
            header: hunk.header().to_string(),
            lines: hunk
                .iter_changes()
                .map(|change| {
                    let sign = match change.tag() {
                        ChangeTag::Equal => ' ',
                        ChangeTag::Delete => '-',
                        ChangeTag::Insert => '+',
                    };
                    let line = change.to_string_lossy();
                    format!("{sign}{}", line.trim_end_matches(['\n', '\r']))
                })
                .collect(),
        })
        .collect();
    let identical = from == to;
    AnswerDiff {
        identical,
        from_text: from.to_string(),
        to_text: to.to_string(),
        unified: if identical {
            String::new()
        } else {
            unified.to_string()
        },
        hunks,
    }
}

fn with_final_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_answers_have_no_hunks() {
        let d = diff_answers("same\ntext", "same\ntext", 1, 2);
        assert!(d.identical);
        assert!(d.hunks.is_empty() && d.unified.is_empty());
    }

    #[test]
    fn a_changed_line_is_one_hunk_with_headers_naming_the_turns() {
        let d = diff_answers("a\nb\nc\n", "a\nB\nc\n", 2, 5);
        assert!(!d.identical);
        assert_eq!(d.hunks.len(), 1);
        assert_eq!(d.hunks[0].header, "@@ -1,3 +1,3 @@");
        assert_eq!(d.hunks[0].lines, [" a", "-b", "+B", " c"]);
        assert!(
            d.unified
                .starts_with("--- turn 2\n+++ turn 5\n@@ -1,3 +1,3 @@\n"),
            "{}",
            d.unified
        );
    }

    #[test]
    fn a_missing_final_newline_makes_no_noise() {
        let d = diff_answers("one", "one\ntwo", 1, 2);
        assert_eq!(d.hunks[0].lines, [" one", "+two"]);
        assert!(!d.unified.contains("No newline"), "{}", d.unified);
        assert_eq!(d.from_text, "one", "the texts stay as written");
    }
}
