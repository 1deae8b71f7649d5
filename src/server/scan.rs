//! Where a workload's `nodeSelector` entries and required node affinity terms are written,
//! found in its text for hovers (the model keeps their values, not their places). Block
//! style only: a flow mapping (`nodeSelector: {a: b}`) gets no hover.

use crate::load::Span;

pub(crate) enum What {
    /// A `nodeSelector` entry: key and value.
    Selector(String, String),
    /// The `n`th (zero-based) term of `nodeSelectorTerms`.
    Term(usize),
}

pub(crate) struct Entry {
    pub(crate) span: Span,
    pub(crate) what: What,
}

enum Mode {
    None,
    Selector {
        indent: usize,
    },
    Terms {
        indent: usize,
        item: Option<usize>,
        next: usize,
    },
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = match s.find(" #") {
        Some(i) => s[..i].trim_end(),
        None => s,
    };
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    s.to_string()
}

/// The key of a block mapping line (after any `- `) when its value is on the next lines.
fn opens(content: &str, key: &str) -> bool {
    let c = content.strip_prefix("- ").map_or(content, str::trim_start);
    c.strip_prefix(key)
        .and_then(|r| r.strip_prefix(':'))
        .is_some_and(|r| {
            let r = r.trim();
            r.is_empty() || r.starts_with('#')
        })
}

/// The entries in `body`, a workload's text starting at byte `base` of its file.
pub(crate) fn scan(body: &str, base: usize) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut mode = Mode::None;
    let mut at = 0;
    for raw in body.split_inclusive('\n') {
        let start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let span = Span::new(base + start + indent, base + start + line.trim_end().len());
        let item_indent = indent
            + content
                .strip_prefix("- ")
                .map_or(0, |rest| content.len() - rest.trim_start().len());
        match &mut mode {
            Mode::Selector { indent: key } if indent > *key => {
                if let Some((k, v)) = content.split_once(':') {
                    out.push(Entry {
                        span,
                        what: What::Selector(unquote(k), unquote(v)),
                    });
                }
                continue;
            }
            Mode::Terms {
                indent: key,
                item,
                next,
            } if indent > *key || (indent == *key && content.starts_with("- ")) => {
                if content.starts_with("- ") && item.is_none_or(|i| i == indent) {
                    *item = Some(indent);
                    out.push(Entry {
                        span,
                        what: What::Term(*next),
                    });
                    *next += 1;
                } else if *next > 0
                    && let Some(Entry {
                        span: last,
                        what: What::Term(_),
                    }) = out.last_mut()
                {
                    last.end = span.end;
                }
                continue;
            }
            _ => {}
        }
        mode = Mode::None;
        let key_indent = item_indent;
        if opens(content, "nodeSelector") {
            mode = Mode::Selector { indent: key_indent };
        } else if opens(content, "nodeSelectorTerms") {
            mode = Mode::Terms {
                indent: key_indent,
                item: None,
                next: 0,
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_selector_entries_and_terms() {
        let text = "spec:\n  nodeSelector:\n    pool: \"gpu\"\n    zone: a # c\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - key: a\n            operator: Exists\n        - matchExpressions:\n          - key: b\n            operator: Exists\n  tolerations: []\n";
        let found = scan(text, 0);
        let mut seen = Vec::new();
        for e in &found {
            let s = &text[e.span.start..e.span.end];
            match &e.what {
                What::Selector(k, v) => seen.push(format!("{k}={v} @{s}")),
                What::Term(n) => seen.push(format!("term {n} @{}", s.lines().count())),
            }
        }
        assert_eq!(
            seen,
            [
                "pool=gpu @pool: \"gpu\"",
                "zone=a @zone: a # c",
                "term 0 @3",
                "term 1 @3"
            ]
        );
    }

    #[test]
    fn any_text_is_fine() {
        for t in [
            "",
            "-",
            "- ",
            "nodeSelector:\n- ",
            "nodeSelectorTerms:\n-\n- x:",
            "\u{85}nodeSelector:\n  é: ü",
        ] {
            let _ = scan(t, 3);
        }
    }
}
