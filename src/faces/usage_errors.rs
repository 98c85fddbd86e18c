//! clap's parse errors in umbel's voice: `umbel: …` like every other error (not `error: …`),
//! and the standard library's number-parsing messages ("invalid digit found in string")
//! reworded. The exit code stays clap's (2); `--help` and `--version` pass through untouched.

use std::process::ExitCode;

/// Prints a clap error (or help/version) and returns the exit code.
pub fn report(err: &clap::Error) -> ExitCode {
    if !err.use_stderr() {
        // --help, --version: clap prints them as it should.
        let _ = err.print();
        return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(0));
    }
    errp!("{}", reword(&err.render().to_string()));
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
}

/// The error text with umbel's prefix and wording.
pub fn reword(text: &str) -> String {
    let text = text.strip_prefix("error: ").unwrap_or(text);
    let mut out = format!("umbel: {text}");
    for (theirs, ours) in [
        ("invalid digit found in string", "not a whole number"),
        (
            "number too large to fit in target type",
            "too large a number",
        ),
        (
            "number too small to fit in target type",
            "too small a number",
        ),
        (
            "cannot parse integer from empty string",
            "empty; give a number",
        ),
        ("invalid float literal", "not a number"),
    ] {
        out = out.replace(theirs, ours);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_number_reads_as_umbel_says_it() {
        let clap = "error: invalid value 'x' for '--turn <N>': invalid digit found in string\n\nFor more information, try '--help'.\n";
        assert_eq!(
            reword(clap),
            "umbel: invalid value 'x' for '--turn <N>': not a whole number\n\nFor more information, try '--help'.\n"
        );
    }
}
