//! A small command-line scanner shaped like commander.js, which the real
//! Claude and Gemini CLIs use: `--opt value`, `--opt=value`, short flags,
//! `--` to end options, and commander's error wording.

/// One accepted option.
#[derive(Clone, Copy, Debug)]
pub struct OptSpec {
    /// Long name without dashes.
    pub long: &'static str,
    /// Short letter, if any.
    pub short: Option<char>,
    /// Value placeholder like `<uuid>` when the option takes a value.
    pub value: Option<&'static str>,
}

/// An option spec: `value` says whether it takes one (shown as `<value>`).
pub const fn opt(long: &'static str, short: Option<char>, value: bool) -> OptSpec {
    OptSpec {
        long,
        short,
        value: if value { Some("<value>") } else { None },
    }
}

/// The scanned command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    /// Options in order: long name and value (`None` for switches).
    pub opts: Vec<(&'static str, Option<String>)>,
    /// Arguments that are not options.
    pub positionals: Vec<String>,
}

impl Parsed {
    /// True when the switch or option was given.
    pub fn has(&self, long: &str) -> bool {
        self.opts.iter().any(|(l, _)| *l == long)
    }

    /// The last value given for an option.
    pub fn value(&self, long: &str) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|(l, _)| *l == long)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// Scans `args` (without the program name). Errors use commander's wording,
/// e.g. `error: unknown option '--x'`.
pub fn parse(args: &[String], specs: &[OptSpec]) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            out.positionals.extend(args[i..].iter().cloned());
            break;
        }
        let spec = if let Some(body) = arg.strip_prefix("--") {
            let name = body.split('=').next().unwrap_or(body);
            specs.iter().find(|s| s.long == name)
        } else if arg.len() == 2 && arg.starts_with('-') && arg != "--" {
            let c = arg.chars().nth(1);
            specs.iter().find(|s| s.short.is_some() && s.short == c)
        } else if arg.starts_with('-') && arg.len() > 1 {
            return Err(format!("error: unknown option '{arg}'"));
        } else {
            out.positionals.push(arg.clone());
            continue;
        };
        let Some(spec) = spec else {
            let shown = arg.split('=').next().unwrap_or(arg);
            return Err(format!("error: unknown option '{shown}'"));
        };
        let inline = arg
            .strip_prefix("--")
            .and_then(|b| b.split_once('='))
            .map(|(_, v)| v.to_string());
        match spec.value {
            None if inline.is_some() => {
                return Err(format!(
                    "error: option '--{}' does not take an argument",
                    spec.long
                ));
            }
            None => out.opts.push((spec.long, None)),
            Some(value_name) => {
                let value = match inline {
                    Some(v) => v,
                    None if i < args.len() => {
                        i += 1;
                        args[i - 1].clone()
                    }
                    None => {
                        let flags = match spec.short {
                            Some(c) => format!("-{c}, --{}", spec.long),
                            None => format!("--{}", spec.long),
                        };
                        return Err(format!(
                            "error: option '{flags} {value_name}' argument missing"
                        ));
                    }
                };
                out.opts.push((spec.long, Some(value)));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptSpec] = &[
        OptSpec {
            long: "print",
            short: Some('p'),
            value: None,
        },
        OptSpec {
            long: "model",
            short: None,
            value: Some("<model>"),
        },
    ];

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_values_and_positionals() {
        let p = parse(
            &args(&[
                "-p",
                "--model",
                "opus",
                "hello",
                "--model=sonnet",
                "--",
                "-x",
            ]),
            SPECS,
        )
        .unwrap();
        assert!(p.has("print"));
        assert_eq!(p.value("model"), Some("sonnet"));
        assert_eq!(p.positionals, vec!["hello", "-x"]);
    }

    #[test]
    fn commander_style_errors() {
        let cases = [
            ("--x", "error: unknown option '--x'"),
            ("--x=1", "error: unknown option '--x'"),
            ("-z", "error: unknown option '-z'"),
            (
                "--model",
                "error: option '--model <model>' argument missing",
            ),
            (
                "--print=1",
                "error: option '--print' does not take an argument",
            ),
        ];
        for (arg, want) in cases {
            assert_eq!(parse(&args(&[arg]), SPECS).unwrap_err(), want, "{arg}");
        }
    }
}
