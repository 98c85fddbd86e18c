//! The CLI reference, generated from the clap definitions so it cannot drift from `--help`:
//! Markdown for `docs/cli.md` (`umbel man --markdown`) and roff man pages (`clap_mangen`).

use super::output::{out, report};
use crate::core::errors::Error;
use clap::{Arg, Command};
use std::path::Path;

/// The whole CLI as one Markdown page: the main command, then one section per visible verb.
pub fn markdown(cmd: &Command) -> String {
    let mut cmd = cmd.clone();
    cmd.build();
    let mut out = String::from(
        "# CLI reference\n\n<!-- Generated from the clap definitions by `just docs` \
         (`umbel man --markdown`); do not edit by hand. -->\n\n",
    );
    section(&mut out, &cmd, "umbel", 2);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        section(&mut out, sub, &format!("umbel {}", sub.get_name()), 2);
    }
    out.trim_end().to_string() + "\n"
}

fn section(out: &mut String, cmd: &Command, path: &str, level: usize) {
    // The path is the heading; usage comes from clap, which knows the verb's full name.
    out.push_str(&format!("{} `{path}`\n\n", "#".repeat(level)));
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        out.push_str(&format!("{}\n\n", about.to_string().trim()));
    }
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage
        .trim_start_matches("Usage: ")
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n");
    out.push_str(&format!("```text\n{usage}\n```\n\n"));
    let positionals: Vec<&Arg> = cmd.get_positionals().filter(|a| !a.is_hide_set()).collect();
    if !positionals.is_empty() {
        out.push_str("Arguments:\n\n");
        for arg in positionals {
            out.push_str(&format!("- `{}`{}\n", value_names(arg), describe(arg)));
        }
        out.push('\n');
    }
    let options: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .collect();
    if !options.is_empty() {
        out.push_str("Options:\n\n");
        for arg in options {
            out.push_str(&format!("- `{}`{}\n", flag(arg), describe(arg)));
        }
        out.push('\n');
    }
    if let Some(after) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        out.push_str(&format!(
            "```text\n{}\n```\n\n",
            after.to_string().trim_end()
        ));
    }
}

fn value_names(arg: &Arg) -> String {
    match arg.get_value_names() {
        Some(names) => names
            .iter()
            .map(|n| format!("<{n}>"))
            .collect::<Vec<_>>()
            .join(" "),
        None => format!("<{}>", arg.get_id().as_str().to_uppercase()),
    }
}

fn flag(arg: &Arg) -> String {
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    let takes_value = arg.get_action().takes_values();
    let mut text = names.join(", ");
    if takes_value {
        text.push(' ');
        text.push_str(&value_names(arg));
    }
    text
}

fn describe(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut text = help.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.is_empty() && !text.ends_with(['.', ')', ':', '`']) {
        text.push('.');
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        text.push_str(&format!(" Values: {}.", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        text.push_str(&format!(" Default: `{}`.", defaults.join(",")));
    }
    if let Some(env) = arg.get_env() {
        text.push_str(&format!(" Env: `{}`.", env.to_string_lossy()));
    }
    if text.is_empty() {
        String::new()
    } else {
        format!(" — {}", text.trim())
    }
}

/// `umbel man`: the roff page on stdout, the pages into `out_dir`, or (`markdown`) the
/// Markdown reference on stdout. Returns the exit code.
pub fn man(cmd: &Command, markdown: bool, out_dir: Option<&Path>) -> u8 {
    let written = match (out_dir, markdown) {
        (_, true) => {
            out(&self::markdown(cmd));
            Ok(())
        }
        (Some(dir), false) => write_man_pages(cmd, dir)
            .map_err(|e| Error::io("cannot write the man pages into", dir, e)),
        (None, false) => man_page(cmd)
            .map(|roff| out(&String::from_utf8_lossy(&roff)))
            .map_err(|e| Error::io("cannot render", "the man page", e)),
    };
    written.map(|()| 0).unwrap_or_else(|e| report(&e, false))
}

/// The main man page, `umbel.1`, as roff.
pub fn man_page(cmd: &Command) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    Ok(out)
}

/// Writes `umbel.1` and one `umbel-<verb>.1` per verb into `dir`.
pub fn write_man_pages(cmd: &Command, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    clap_mangen::generate_to(cmd.clone(), dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction};

    fn sample() -> Command {
        Command::new("umbel")
            .about("Top.")
            .subcommand(
                Command::new("wait")
                    .about("Wait for it.")
                    .arg(Arg::new("name").required(true).help("The worker."))
                    .arg(
                        Arg::new("timeout")
                            .long("timeout")
                            .value_name("DURATION")
                            .default_value("30m")
                            .help("Give up after this long."),
                    )
                    .arg(Arg::new("json").long("json").action(ArgAction::SetTrue))
                    .after_help("Examples:\n  umbel wait w1"),
            )
            .subcommand(Command::new("secret").hide(true))
    }

    #[test]
    fn every_visible_verb_gets_a_section_with_usage_options_and_examples() {
        let md = markdown(&sample());
        assert!(md.contains("## `umbel wait`\n\nWait for it."), "{md}");
        assert!(md.contains("umbel wait [OPTIONS] <name>"), "{md}");
        assert!(md.contains("- `<NAME>` — The worker."), "{md}");
        assert!(
            md.contains("- `--timeout <DURATION>` — Give up after this long. Default: `30m`."),
            "{md}"
        );
        assert!(md.contains("- `--json`\n"), "{md}");
        assert!(
            md.contains("```text\nExamples:\n  umbel wait w1\n```"),
            "{md}"
        );
        assert!(!md.contains("secret"), "{md}");
    }
}
