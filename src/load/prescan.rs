//! The fast path: find document boundaries and each document's `apiVersion`/`kind` with a
//! line scan (about a gigabyte a second), so documents of kinds that can carry no scheduling
//! field — CRDs, ConfigMaps, RBAC, Services — are not parsed at all. Only documents that look
//! like plain block YAML are skipped; anything unusual (tabs, anchors, tags, flow collections
//! over several lines, multi-line quotes, reserved indicators) is parsed as usual, so a
//! syntax error the parser would report is not hidden by a cheap guess.

use std::ops::Range;

/// Kinds (with their API group) that have a fixed schema without any pod spec, toleration,
/// taint, nodeSelector or affinity.
const SKIPPABLE: &[(&str, &str)] = &[
    ("CustomResourceDefinition", "apiextensions.k8s.io"),
    ("ConfigMap", ""),
    ("Secret", ""),
    ("ServiceAccount", ""),
    ("Service", ""),
    ("Namespace", ""),
    ("Endpoints", ""),
    ("Event", ""),
    ("LimitRange", ""),
    ("ResourceQuota", ""),
    ("PersistentVolumeClaim", ""),
    ("ClusterRole", "rbac.authorization.k8s.io"),
    ("ClusterRoleBinding", "rbac.authorization.k8s.io"),
    ("Role", "rbac.authorization.k8s.io"),
    ("RoleBinding", "rbac.authorization.k8s.io"),
    ("APIService", "apiregistration.k8s.io"),
    (
        "MutatingWebhookConfiguration",
        "admissionregistration.k8s.io",
    ),
    (
        "ValidatingWebhookConfiguration",
        "admissionregistration.k8s.io",
    ),
    ("NetworkPolicy", "networking.k8s.io"),
    ("Ingress", "networking.k8s.io"),
    ("IngressClass", "networking.k8s.io"),
    ("PodDisruptionBudget", "policy"),
    ("PriorityClass", "scheduling.k8s.io"),
    ("StorageClass", "storage.k8s.io"),
    ("HorizontalPodAutoscaler", "autoscaling"),
    ("Lease", "coordination.k8s.io"),
];

/// Whether a (kind, group) never holds scheduling fields: such objects are not parsed by
/// the fast path, and no rule looks inside them on the slow path either.
pub fn is_skippable_kind(kind: &str, group: &str) -> bool {
    SKIPPABLE.iter().any(|(k, g)| *k == kind && *g == group)
}

/// Byte ranges of the documents of a YAML stream, split at `---` lines (and after `...`).
/// The markers themselves belong to the document they open.
pub fn split_documents(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    let mut saw_content = false;
    let mut saw_marker = false;
    for line in text.split_inclusive('\n') {
        let is_marker =
            line.starts_with("---") && line[3..].chars().next().is_none_or(char::is_whitespace);
        // `---` opens a new document unless only comments came before it; two markers in a
        // row hold an empty document, as the parser sees it.
        if is_marker && (saw_content || saw_marker) {
            out.push(start..offset);
            start = offset;
            saw_content = false;
        }
        if is_marker {
            saw_marker = true;
        }
        let t = line.trim();
        if !is_marker && !t.is_empty() && !t.starts_with('#') {
            saw_content = true;
        }
        offset += line.len();
    }
    out.push(start..text.len());
    out
}

/// The top-level `kind` and `apiVersion` group of a plain block document, if the document
/// may be skipped: both given exactly once at column 0, and nothing in it that needs the
/// real parser to judge.
pub fn skippable(doc: &str) -> bool {
    // Cheap first: the top-level kind must be one that can be skipped at all.
    let kind_line = doc
        .lines()
        .find_map(|l| l.strip_prefix("kind:"))
        .map(plain_value);
    if !kind_line.is_some_and(|k| SKIPPABLE.iter().any(|(s, _)| *s == k)) {
        return false;
    }
    let mut kind = None;
    let mut api = None;
    let mut kinds = 0;
    let mut apis = 0;
    // Indentation of the key that opened a block scalar: deeper lines are its content.
    let mut block_scalar: Option<usize> = None;
    // Indentation of the entry whose plain scalar value may continue on deeper lines.
    let mut plain_open: Option<usize> = None;
    // Open block collections: (indentation, is a sequence); and the indentation of an entry
    // without a value, whose nested block may follow.
    let mut stack: Vec<(usize, bool)> = vec![(0, false)];
    let mut open_child: Option<usize> = None;
    for line in doc.lines() {
        let body = line.trim_end_matches('\r');
        let indent = body.len() - body.trim_start_matches(' ').len();
        let rest = &body[indent..];
        if rest.is_empty() {
            continue;
        }
        if let Some(key_indent) = block_scalar {
            if indent > key_indent {
                continue;
            }
            block_scalar = None;
        }
        if rest.starts_with('\t') || rest.starts_with('\u{feff}') {
            return false;
        }
        if rest.starts_with('#') {
            continue;
        }
        if indent == 0 {
            if rest.starts_with("---") || rest.starts_with("...") {
                if rest.len() > 3 && !rest[3..].trim().is_empty() {
                    return false; // content on the marker line
                }
                continue;
            }
            if rest.starts_with('%') {
                return false; // a directive
            }
            if let Some(v) = rest.strip_prefix("kind:") {
                kinds += 1;
                kind = Some(plain_value(v));
            } else if let Some(v) = rest.strip_prefix("apiVersion:") {
                apis += 1;
                api = Some(plain_value(v));
            }
        }
        // A deeper line after `key: plain text` continues that scalar: it may hold no
        // `: ` (nor end with `:`, nor start a comment), or the parser fails there.
        if plain_open.is_some_and(|open| indent > open) {
            if rest.contains(": ") || rest.ends_with(':') || rest.contains(" #") {
                return false;
            }
            continue;
        }
        // The value part: after a `- ` item marker and `key:`.
        let mut value = rest;
        if let Some(v) = value.strip_prefix("- ") {
            value = v.trim_start();
        }
        if value.starts_with("- ") || value == "-" {
            return false; // nested `- - x`: for the parser
        }
        let is_item = rest.starts_with("- ") || rest == "-";
        let content_col = indent + (rest.len() - value.len());
        let is_key = split_key(value).is_some();
        let value_empty = split_key(value)
            .map_or(value, |(_, v)| v)
            .split(" #")
            .next()
            .unwrap_or("")
            .trim()
            .is_empty();
        // Block structure: each line must sit at the indentation of an open mapping or
        // sequence, or open a nested one under an entry without a value.
        let mut placed = false;
        if let Some(p) = open_child.take()
            && (indent > p || (is_item && indent == p))
        {
            stack.push((indent, is_item));
            placed = true;
        }
        if !placed {
            while stack.last().is_some_and(|(i, _)| *i > indent) {
                stack.pop();
            }
            // A sequence written at its key's indentation ends at the next key there.
            if !is_item && stack.last().is_some_and(|&(i, seq)| seq && i == indent) {
                stack.pop();
            }
            if !stack
                .last()
                .is_some_and(|&(i, seq)| i == indent && seq == is_item)
            {
                return false;
            }
        }
        if is_item && is_key {
            stack.push((content_col, false));
        }
        if value_empty && (is_key || is_item) {
            open_child = Some(if is_key { content_col } else { indent });
        }
        let value = match split_key(value) {
            Some((key, v)) => {
                if !plain_token(key) {
                    return false;
                }
                v
            }
            // A line that is neither `key:` nor `- item` must continue the plain scalar of a
            // shallower entry; anything else is for the parser to judge.
            None if !is_item => return false,
            None => value,
        };
        let v = value.trim();
        let v = v.split(" #").next().unwrap_or(v).trim_end();
        plain_open = None;
        if v.is_empty() {
            continue;
        }
        if !matches!(
            v.as_bytes()[0],
            b'|' | b'>'
                | b'&'
                | b'*'
                | b'!'
                | b'%'
                | b'@'
                | b'`'
                | b'?'
                | b'"'
                | b'\''
                | b'{'
                | b'['
        ) {
            // Continuation lines are deeper than the key (`- key: v` puts it after `- `).
            plain_open = Some(if is_key { content_col } else { indent });
        }
        match v.as_bytes()[0] {
            b'|' | b'>' => block_scalar = Some(indent),
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'?' => return false,
            b'"' | b'\'' => {
                if !quoted_to_end(v) {
                    return false;
                }
            }
            b'{' | b'[' => {
                if !balanced(v) {
                    return false;
                }
            }
            _ => {
                if v.contains(": ") || v.ends_with(':') && !v.contains(' ') {
                    // `a: b: c` is a syntax error; let the parser say so.
                    return false;
                }
            }
        }
    }
    if kinds != 1 || apis != 1 {
        return false;
    }
    let (Some(kind), Some(api)) = (kind, api) else {
        return false;
    };
    let group = api.rsplit_once('/').map_or("", |(g, _)| g);
    is_skippable_kind(kind, group)
}

/// `key: value` → (`key`, `value`) when the line is a plain mapping entry.
fn split_key(s: &str) -> Option<(&str, &str)> {
    if s.starts_with('"') || s.starts_with('\'') {
        let q = s.as_bytes()[0] as char;
        let end = s[1..].find(q)? + 1;
        let rest = s[end + 1..].strip_prefix(':')?;
        if !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        return Some((&s[..=end], rest));
    }
    let i = s
        .find(": ")
        .or_else(|| s.ends_with(':').then(|| s.len() - 1))?;
    Some((&s[..i], &s[i + 1..]))
}

/// A mapping key the fast path can trust: plain, quoted, no flow or indicators.
fn plain_token(k: &str) -> bool {
    if k.starts_with('"') || k.starts_with('\'') {
        return true;
    }
    !k.is_empty()
        && !k.starts_with([
            '&', '*', '!', '%', '@', '`', '?', '{', '[', '|', '>', '-', '#',
        ])
        && !k.contains(" #")
}

fn plain_value(v: &str) -> &str {
    let v = v.trim();
    let v = v.split(" #").next().unwrap_or(v).trim();
    v.trim_matches(|c| c == '"' || c == '\'')
}

/// A quoted scalar that closes on this line with nothing after it.
fn quoted_to_end(v: &str) -> bool {
    let b = v.as_bytes();
    let q = b[0];
    let mut i = 1;
    while i < b.len() {
        if q == b'"' && b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == q {
            if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return i + 1 == b.len();
        }
        i += 1;
    }
    false
}

/// A flow collection that opens and closes on one line, outside quotes.
fn balanced(v: &str) -> bool {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in v.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0 && quote.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_skips() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  script: |\n    echo \"%x\" @y\n---\napiVersion: apps/v1\nkind: Deployment\n";
        let docs = split_documents(text);
        assert_eq!(docs.len(), 2);
        assert!(skippable(&text[docs[0].clone()]));
        assert!(!skippable(&text[docs[1].clone()]));
    }

    #[test]
    fn structure_is_checked() {
        let ok = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: a\nrules:\n- apiGroups:\n  - \"\"\n  resources:\n  - pods\n  verbs: [get]\n- apiGroups: [apps]\n  resources:\n    - deployments\n";
        assert!(skippable(ok));
        for bad in [
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: a\n  - apiGroups: [x]\n",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nrules:\n  - apiGroups: [x]\n    resources:\n      - s\n  0 verbs: [get]\n",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nrules:\n- verbs:\n  -\"get\n",
        ] {
            assert!(!skippable(bad), "{bad}");
        }
    }

    #[test]
    fn plain_continuations_are_skippable() {
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    note: a long\n      plain text\n";
        assert!(skippable(doc));
    }

    #[test]
    fn unusual_documents_are_parsed() {
        for doc in [
            "apiVersion: v1\nkind: Secret\ndata:\n  code: %X%\n",
            "apiVersion: v1\nkind: ConfigMap\ndata: &a\n  x: 1\n",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n\tx: 1\n",
            "apiVersion: v1\nkind: ConfigMap\ndata: {x: 1,\n  y: 2}\n",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: \"a\n  b\"\n",
            "apiVersion: serving.knative.dev/v1\nkind: Service\n",
            "kind: ConfigMap\napiVersion: v1\nkind: Secret\n",
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  broken\n",
            "apiVersion: v1\nkind: ServiceAccount\ns\n",
        ] {
            assert!(!skippable(doc), "{doc}");
        }
    }
}

#[cfg(test)]
mod corpus_share {
    /// How many bytes of the real corpus the fast path skips (run with --nocapture).
    #[test]
    #[ignore = "measurement, not a test"]
    fn skipped_share_of_the_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
        let (mut total, mut skipped) = (0usize, 0usize);
        for e in walkdir::WalkDir::new(root).into_iter().flatten() {
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            for r in super::split_documents(&text) {
                total += r.len();
                if super::skippable(&text[r.clone()]) {
                    skipped += r.len();
                }
            }
        }
        println!("skipped {skipped} of {total} bytes");
    }
}
