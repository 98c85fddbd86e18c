//! Text made safe for `umbel serve`'s pages: HTML escaping, and Markdown (a worker's prompts and
//! answers) rendered with everything that could run or load something left out — raw HTML is
//! shown as text, links keep only http(s), mailto and same-site targets, images become their
//! alt text.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, for element content and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `markdown` as HTML, safe to put in a page.
pub fn markdown(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        // Raw HTML is shown, not run.
        Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Some(Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        })),
        // An image would load from anywhere: its alt text stands in.
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        other => Some(other),
    });
    let mut out = String::with_capacity(markdown.len() * 5 / 4);
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

/// A link target a page may keep: http(s), mailto, or one on this site; anything else (a
/// `javascript:` URL) becomes `#`.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s);
    let on_site = lower.starts_with('/') || lower.starts_with('#') || lower.starts_with('?');
    let relative = scheme.is_none_or(|s| s.contains(['/', '?', '#']));
    match scheme {
        Some("http" | "https" | "mailto") => url,
        _ if on_site || relative => url,
        _ => CowStr::Borrowed("#"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn markdown_renders_and_raw_html_shows_as_text() {
        let html = markdown("# Title\n\n**bold** `code`\n\n<script>alert(1)</script>\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        let inline = markdown("a <img src=x onerror=alert(1)> b");
        assert!(!inline.contains("<img"), "{inline}");
    }

    #[test]
    fn links_keep_only_safe_targets_and_images_their_alt_text() {
        let html = markdown(
            "[a](javascript:alert(1)) [b](https://example.com) [c](/w/x) [d](JaVaScRiPt:x)",
        );
        assert!(!html.to_ascii_lowercase().contains("javascript:"), "{html}");
        assert!(html.contains(r#"href="https://example.com""#), "{html}");
        assert!(html.contains(r#"href="/w/x""#), "{html}");
        let image = markdown("![the alt](https://tracker.example/p.png)");
        assert!(!image.contains("<img"), "{image}");
        assert!(image.contains("the alt"), "{image}");
    }
}
