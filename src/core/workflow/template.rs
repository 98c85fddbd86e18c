//! `{{ … }}` templates in step prompts. Four forms and nothing else: `{{ env.NAME }}` (the
//! runner's environment), `{{ steps.ID.outputs.KEY }}`, `{{ steps.ID.answer }}` and
//! `{{ $session }}` (the umbel name of the step's worker). Parsing finds every reference with
//! its byte offset so the validator can point at it; rendering substitutes resolved values.

use regex::Regex;
use std::sync::LazyLock;

/// One reference in a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    /// `{{ env.NAME }}`
    Env(String),
    /// `{{ steps.ID.outputs.KEY }}`
    Output { step: String, key: String },
    /// `{{ steps.ID.answer }}`
    Answer { step: String },
    /// `{{ $session }}`
    Session,
}

/// A reference and where it sits in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub reference: Ref,
    /// Byte offset of its `{{`.
    pub offset: usize,
    /// The whole `{{ … }}`, as written.
    pub text: String,
}

/// A template that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub offset: usize,
    pub message: String,
}

static EXPR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:env\.(?P<env>[A-Za-z_][A-Za-z0-9_]*)|steps\.(?P<step>[A-Za-z0-9][A-Za-z0-9_-]*)\.(?:outputs\.(?P<key>[A-Za-z0-9][A-Za-z0-9_-]*)|(?P<answer>answer))|(?P<session>\$session))$",
    )
    .expect("a valid regular expression")
});

/// Every reference in `text`, or the first thing that is not one.
pub fn parse(text: &str) -> Result<Vec<Placed>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(found) = text[rest..].find("{{") {
        let open = rest + found;
        let Some(len) = text[open + 2..].find("}}") else {
            return Err(TemplateError {
                offset: open,
                message: "`{{` is never closed with `}}`".into(),
            });
        };
        let close = open + 2 + len + 2;
        let whole = &text[open..close];
        let inner = whole[2..whole.len() - 2].trim();
        let Some(caps) = EXPR.captures(inner) else {
            return Err(TemplateError {
                offset: open,
                message: format!(
                    "unknown template `{whole}`: use {{{{ env.NAME }}}}, {{{{ steps.ID.outputs.KEY }}}}, {{{{ steps.ID.answer }}}} or {{{{ $session }}}}"
                ),
            });
        };
        let reference = if let Some(name) = caps.name("env") {
            Ref::Env(name.as_str().to_string())
        } else if caps.name("session").is_some() {
            Ref::Session
        } else {
            let step = caps["step"].to_string();
            match caps.name("key") {
                Some(key) => Ref::Output {
                    step,
                    key: key.as_str().to_string(),
                },
                None => Ref::Answer { step },
            }
        };
        out.push(Placed {
            reference,
            offset: open,
            text: whole.to_string(),
        });
        rest = close;
    }
    Ok(out)
}

/// `text` with every reference replaced by `resolve`'s value. Call only on text [`parse`]
/// accepted; a reference `resolve` cannot answer is left as written.
pub fn render(text: &str, resolve: impl Fn(&Ref) -> Option<String>) -> String {
    let Ok(refs) = parse(text) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for placed in refs {
        out.push_str(&text[last..placed.offset]);
        match resolve(&placed.reference) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&placed.text),
        }
        last = placed.offset + placed.text.len();
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_forms_are_read_with_their_offsets() {
        let refs =
            parse("a {{ env.X }} b {{steps.s1.outputs.k}} {{ steps.s-2.answer }}{{$session}}")
                .unwrap();
        let got: Vec<(Ref, usize)> = refs.into_iter().map(|p| (p.reference, p.offset)).collect();
        assert_eq!(
            got,
            vec![
                (Ref::Env("X".into()), 2),
                (
                    Ref::Output {
                        step: "s1".into(),
                        key: "k".into()
                    },
                    16
                ),
                (Ref::Answer { step: "s-2".into() }, 39),
                (Ref::Session, 61),
            ]
        );
    }

    #[test]
    fn anything_else_is_refused_with_its_offset() {
        let e = parse("x {{ steps.a.output.k }}").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(
            e.message
                .contains("unknown template `{{ steps.a.output.k }}`"),
            "{e:?}"
        );
        assert!(parse("{{ }}").is_err());
        assert!(parse("{{ env.1X }}").is_err());
        assert!(parse("{{ env.X | upper }}").is_err());
        let e = parse("ok {{ env.X }} then {{ env.Y").unwrap_err();
        assert_eq!(e.offset, 20);
        assert!(e.message.contains("never closed"));
    }

    #[test]
    fn single_braces_and_plain_text_are_left_alone() {
        assert_eq!(parse("{ json: 1 } and } {").unwrap(), vec![]);
    }

    #[test]
    fn render_substitutes_and_keeps_the_rest() {
        let out = render("hi {{ env.WHO }}, {{ $session }}!", |r| match r {
            Ref::Env(n) if n == "WHO" => Some("you".into()),
            Ref::Session => Some("wf-1-w".into()),
            _ => None,
        });
        assert_eq!(out, "hi you, wf-1-w!");
        // Values are not re-scanned: a value holding `{{` stays literal.
        let out = render("{{ env.A }}", |_| Some("{{ env.B }}".into()));
        assert_eq!(out, "{{ env.B }}");
    }
}
