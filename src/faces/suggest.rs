//! "Did you mean": a mistyped verb. `umbel` takes a prompt as its first word in print mode, so
//! clap reads `umbel spwan w` as the prompt `spwan` and then trips over `w`, and `umbel stauts`
//! as a prompt given without `-p`. Before clap parses, a first word that is no verb, on a line
//! without `-p`, is answered "unknown command 'spwan'; did you mean 'spawn'?" (exit 2). Bare
//! `umbel` gets a short help: what it is, the usage, the commands in a line each.

use clap::Command;
use std::ffi::OsString;

/// The help bare `umbel` prints: the about line, the usage, one line per command.
pub fn short_help(command: &Command) -> String {
    let about = command
        .get_about()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let verbs: Vec<&Command> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .collect();
    let width = verbs.iter().map(|c| c.get_name().len()).max().unwrap_or(0);
    let mut out = format!(
        "{about}\n\nUsage: umbel <COMMAND> [ARGS]   or   umbel -p PROMPT   (print mode, like `claude -p`)\n\nCommands:\n"
    );
    for verb in verbs {
        let about = verb.get_about().map(|a| a.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "  {:<width$}  {}\n",
            verb.get_name(),
            first_clause(&about)
        ));
    }
    out.push_str(
        "\nEvery flag and examples: `umbel --help`; one command: `umbel <COMMAND> --help`.\n",
    );
    out
}

/// A command's about line up to its first `;` or `.` outside parentheses, without a long
/// trailing parenthesis: "Show one worker's state (or all workers')", "Stop a worker".
fn first_clause(about: &str) -> &str {
    let mut depth = 0i32;
    let mut end = about.len();
    for (i, c) in about.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ';' | '.' if depth == 0 && about[i + 1..].starts_with(' ') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let clause = &about[..end];
    match clause.find(" (") {
        Some(open) if clause.len() > 60 => &clause[..open],
        _ => clause,
    }
}

/// The answer for a command line whose first word is a mistyped verb, or `None` to let clap
/// parse it. `args` excludes the program name.
pub fn mistyped_verb(command: &Command, args: &[OsString]) -> Option<String> {
    let all: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    // Hidden verbs are known but never suggested, nor is `help` (too near many prompt words).
    let shown: Vec<&str> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name())
        .collect();
    answer(&all, &shown, args)
}

fn answer(all: &[&str], verbs: &[&str], args: &[OsString]) -> Option<String> {
    let first = args.first()?.to_str()?;
    let looks_like_a_verb = !first.is_empty()
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !first.starts_with('-');
    if !looks_like_a_verb || first == "help" || all.contains(&first) || print_mode(&args[1..]) {
        return None;
    }
    let mut message = format!("unknown command '{first}'");
    if first == "top" {
        message.push_str(": this umbel was built without it (cargo feature `top`); `umbel status` lists the workers");
        return Some(message);
    }
    match closest(first, verbs) {
        Some(verb) => message.push_str(&format!("; did you mean '{verb}'?")),
        None => message.push_str(&format!(
            "; the commands are {}, help (a prompt needs `-p`: `umbel -p \"…\"`)",
            verbs.join(", ")
        )),
    }
    Some(message)
}

/// Whether `-p`/`--print` is on the line (before a `--`), in a group of short flags too.
fn print_mode(args: &[OsString]) -> bool {
    args.iter()
        .filter_map(|a| a.to_str())
        .take_while(|a| *a != "--")
        .any(|a| {
            a == "--print"
                || (a.starts_with('-') && !a.starts_with("--") && a[1..].starts_with('p'))
        })
}

/// The verb nearest to `word`: within two edits (a swap of neighbours counts one) and not
/// further than half the word, or the only verb it starts.
fn closest<'a>(word: &str, verbs: &[&'a str]) -> Option<&'a str> {
    let best = verbs
        .iter()
        .map(|v| (distance(word, v), *v))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= 2 && *d * 2 <= word.chars().count());
    if let Some((_, verb)) = best {
        return Some(verb);
    }
    let mut starting = verbs.iter().filter(|v| v.starts_with(word));
    match (starting.next(), starting.next()) {
        (Some(verb), None) if word.len() >= 2 => Some(verb),
        _ => None,
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERBS: &[&str] = &["spawn", "send", "wait", "read", "status", "ls", "kill"];

    fn answer(line: &[&str]) -> Option<String> {
        let args: Vec<OsString> = line.iter().map(OsString::from).collect();
        super::answer(&[VERBS, &["man"]].concat(), VERBS, &args)
    }

    #[test]
    fn a_mistyped_verb_gets_the_nearest_one() {
        let want = "unknown command 'spwan'; did you mean 'spawn'?";
        assert_eq!(answer(&["spwan", "w"]).as_deref(), Some(want));
        let want = "unknown command 'stauts'; did you mean 'status'?";
        assert_eq!(answer(&["stauts"]).as_deref(), Some(want));
        assert!(answer(&["stat"]).unwrap().contains("'status'"));
    }

    /// A build without the `top` feature says why it has no `top`, not just that it is unknown.
    #[test]
    fn top_missing_from_the_build_says_which_feature() {
        let said = answer(&["top", "--once"]).expect("answered");
        assert!(
            said.contains("built without it (cargo feature `top`)"),
            "{said}"
        );
    }

    #[test]
    fn a_short_help_line_is_the_first_clause() {
        assert_eq!(
            first_clause("Take over the pane (tmux attach; detach with C-b d)"),
            "Take over the pane (tmux attach; detach with C-b d)"
        );
        assert_eq!(
            first_clause("Run a workflow file (see docs/x.md). Prints the run id"),
            "Run a workflow file (see docs/x.md)"
        );
        assert_eq!(
            first_clause("Check tmux, the socket; one line per check"),
            "Check tmux, the socket"
        );
    }

    #[test]
    fn a_word_near_no_verb_lists_the_verbs() {
        let a = answer(&["frobnicate"]).unwrap();
        assert!(a.contains("the commands are spawn, send"), "{a}");
        assert!(a.contains("-p"), "{a}");
    }

    #[test]
    fn verbs_prompts_and_flags_are_left_to_clap() {
        assert_eq!(answer(&["spawn", "w"]), None);
        assert_eq!(answer(&["man"]), None, "a hidden verb");
        assert_eq!(answer(&["help", "spawn"]), None);
        assert!(answer(&["hello"]).unwrap().contains("the commands are"));
        assert_eq!(answer(&["hello", "-p"]), None);
        assert_eq!(answer(&["hello", "-po", "json"]), None);
        assert_eq!(answer(&["--print", "hello"]), None);
        assert_eq!(answer(&["fix the bug"]), None);
        assert_eq!(answer(&[]), None);
    }
}
