//! Tests of the command line's shape: every verb's `--help` ends with examples, and every
//! example is a command line clap accepts.

use super::Cli;
use clap::{CommandFactory, Parser};

/// The `umbel …` invocations in one example line, as argv words. Quotes group words; an
/// unquoted `|`, `&&`, `>`, `$(`, `)` or a run of two spaces (the comment column) ends one.
fn invocations(line: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.trim().chars().peekable();
    let end_word = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, ' ') if chars.peek() == Some(&' ') => {
                end_word(&mut word, &mut words);
                break;
            }
            (None, ' ') => end_word(&mut word, &mut words),
            (None, '|' | '>' | ')' | '&') => {
                end_word(&mut word, &mut words);
                commands.push(std::mem::take(&mut words));
            }
            (None, '$') if chars.peek() == Some(&'(') => {
                chars.next();
                end_word(&mut word, &mut words);
                commands.push(std::mem::take(&mut words));
            }
            (None, c) => word.push(c),
        }
    }
    end_word(&mut word, &mut words);
    commands.push(words);
    commands
        .into_iter()
        .filter_map(|words| {
            // `umbel` as the command: first, after `--`, or after `VAR=value`.
            let at = (0..words.len()).find(|&i| {
                words[i] == "umbel"
                    && (i == 0 || words[i - 1] == "--" || words[i - 1].contains('='))
            })?;
            Some(words[at..].to_vec())
        })
        .collect()
}

#[test]
fn the_splitter_finds_each_umbel_invocation() {
    let line = r#"  pos=$(umbel send w1 "Now fix") && umbel wait w1 --since "$pos"   comment"#;
    assert_eq!(
        invocations(line),
        vec![
            vec!["umbel", "send", "w1", "Now fix"],
            vec!["umbel", "wait", "w1", "--since", "$pos"]
        ]
    );
    assert_eq!(
        invocations("  umbel ls --json | jq -r '.[].name'"),
        vec![vec!["umbel", "ls", "--json"]]
    );
}

#[test]
fn every_verb_has_examples_and_every_example_parses() {
    let command = Cli::command();
    let mut checked = 0;
    for verb in command.get_subcommands().filter(|v| !v.is_hide_set()) {
        let help = verb
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        assert!(
            help.starts_with("Examples:\n"),
            "`umbel {}` has no examples",
            verb.get_name()
        );
        let lines: Vec<&str> = help.lines().skip(1).collect();
        assert!(
            (2..=4).contains(&lines.len()),
            "`umbel {}`: 2–4 examples",
            verb.get_name()
        );
        for line in lines {
            let found = invocations(line);
            assert!(!found.is_empty(), "no umbel command in `{line}`");
            for mut argv in found {
                // Shell variables stand for what an earlier command printed (`send`'s position).
                for word in argv.iter_mut().filter(|w| w.starts_with('$')) {
                    *word = "7".into();
                }
                if let Err(e) = Cli::try_parse_from(&argv) {
                    panic!("example `{line}` does not parse: {e}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 30, "only {checked} examples checked");
}

/// The command as the shell's completion requests build it (every subcommand at once, with
/// clap's debug checks): the completers keep the positionals in their order.
#[test]
fn the_command_with_completers_builds() {
    let mut command = crate::faces::completion::with_completers(Cli::command());
    command.build();
}
