//! Names from the files put into markup that another program renders (#49): the language
//! server's Markdown hovers (rendered by the editor) and `matrix --format mermaid` (rendered by
//! Mermaid, whose labels are HTML). A name is an attacker's text: it must stay text there — no
//! link, no image that loads a remote URL (a tracking beacon), no markup that ends the span it
//! sits in. One helper per target, each tested with [`MARKUP_HOSTILE`] and the terminal set
//! ([`super::text::HOSTILE`]).

use super::text::escape;

/// Names that are markup: HTML, Markdown links and images, code-span fences, entities, and
/// Mermaid's own entity syntax.
pub const MARKUP_HOSTILE: &[&str] = &[
    "<a href=\"https://evil.example/\">docs</a>",
    "<img src=https://evil.example/beacon.png>",
    "<script>alert(1)</script>",
    "`",
    "``",
    "a`b",
    "`<img src=x>`",
    "x``<img src=https://evil.example/b.png>``y",
    "[docs](https://evil.example/)",
    "![beacon](https://evil.example/b.png)",
    "](javascript:alert(1))",
    "&lt;img src=x&gt;",
    "&amp;",
    "#quot;<b>#lt;",
    "\"",
    "'",
    "#35;",
    "<!-- c -->",
    "*em* _em_ **strong**",
    "| cell |",
    "\\`",
    " ` ",
    "a\nb",
    "a\r\n# heading",
];

/// `text` as an inline code span of Markdown (CommonMark 6.1): fenced by more backticks than
/// the longest run of backticks it holds, padded with a space where it starts or ends with a
/// backtick, so no name can end the span; inside a span nothing is markup (no HTML, no link).
/// Control and bidi characters are escaped first ([`escape`]), so a line break cannot end the
/// paragraph.
pub fn md_code(text: &str) -> String {
    let text = escape(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.trim().is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as Markdown text: every ASCII punctuation character backslash-escaped (CommonMark
/// 2.4 allows it for each), so it opens no code span, link, image, HTML tag, entity or
/// emphasis; control and bidi characters escaped first ([`escape`]).
pub fn md_text(text: &str) -> String {
    let text = escape(text);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as a Mermaid label in double quotes (`id["…"]`): Mermaid renders labels as HTML, and
/// reads `#name;` and `#code;` as entities, so each of `"`, `<`, `>`, `&` and `#` is written
/// as Mermaid's numeric entity, and so is a backtick that starts the label (`"`…`"` is a
/// Markdown string to Mermaid); control and bidi characters are escaped first ([`escape`]).
pub fn mermaid_label(text: &str) -> String {
    let text = escape(text);
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            '"' | '<' | '>' | '&' | '#' => out.push_str(&format!("#{};", u32::from(c))),
            '`' if i == 0 => out.push_str("#96;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> impl Iterator<Item = &'static str> {
        MARKUP_HOSTILE
            .iter()
            .chain(super::super::text::HOSTILE)
            .copied()
    }

    /// A code span: one fence at each end, none inside as long (so it cannot end early), and
    /// the text between them is the name (with its unsafe characters escaped).
    #[test]
    fn a_code_span_holds_any_name() {
        for name in all() {
            let s = md_code(name);
            assert!(!s.contains('\n') && !s.contains('\r'), "{s:?}");
            let fence_len = s.chars().take_while(|&c| c == '`').count();
            let fence = "`".repeat(fence_len);
            assert!(s.ends_with(&fence), "{s:?}");
            let inner = &s[fence_len..s.len() - fence_len];
            // No run of backticks inside as long as the fence.
            assert!(!inner.contains(&fence), "{name:?}: {s:?}");
            assert_eq!(
                inner.trim_matches(' '),
                escape(name).trim_matches(' '),
                "{name:?}"
            );
        }
        assert_eq!(md_code("k=v:NoSchedule"), "`k=v:NoSchedule`");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`"), "`` ` ``");
    }

    /// Text: no unescaped markup character is left.
    #[test]
    fn text_has_no_live_markup() {
        for name in all() {
            let s = md_text(name);
            let mut escaped = false;
            for c in s.chars() {
                if !escaped
                    && matches!(
                        c,
                        '<' | '>' | '`' | '[' | ']' | '(' | '!' | '&' | '*' | '_' | '#' | '|'
                    )
                {
                    panic!("{name:?}: {s:?}");
                }
                escaped = !escaped && c == '\\';
            }
            assert!(!s.contains('\n'), "{s:?}");
        }
        assert_eq!(md_text("node a"), "node a");
    }

    /// A Mermaid label: none of the characters that end the label, open HTML or an entity.
    #[test]
    fn a_mermaid_label_has_no_markup() {
        for name in all() {
            let s = mermaid_label(name);
            let without_entities: String = {
                let mut out = String::new();
                let mut rest = s.as_str();
                while let Some(i) = rest.find('#') {
                    out.push_str(&rest[..i]);
                    let end = rest[i..].find(';').expect("an entity") + i;
                    assert!(
                        rest[i + 1..end].chars().all(|c| c.is_ascii_digit()),
                        "{s:?}"
                    );
                    rest = &rest[end + 1..];
                }
                out.push_str(rest);
                out
            };
            for bad in ['"', '<', '>', '&', '\n'] {
                assert!(!without_entities.contains(bad), "{name:?}: {s:?}");
            }
            assert!(!s.starts_with('`'), "{s:?}");
        }
        assert_eq!(mermaid_label("a\"<b>"), "a#34;#60;b#62;");
    }
}
