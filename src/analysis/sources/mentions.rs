//! Label keys the files *mention* where taintlint reads no node pool: the keys of a `labels`
//! (`nodeLabels`, `node_labels`, `matchLabels`, …) mapping or list of any document, the `key`s
//! of a `requirements` list, the labels of kubelet `--node-labels` flags in any string, and
//! every key a Terraform file or an unrendered template writes (`word:`, `word =`). A chart's
//! values file that fills a NodePool template (`nodePool: {labels: [accelerator: nvidia]}`), a
//! Terraform heredoc handed to a Helm release, a Kueue `ResourceFlavor`'s `nodeLabels`: each may
//! give nodes a label no pool the files show sets. Only keys without a prefix are kept (the
//! ones `evidence` asks about; see `Inventory::lacks_private_label`). The walks are linear in
//! the document's nodes or the text's bytes.

use crate::load::yaml::Node;

/// Is `key` a key this module keeps: a label name without a prefix (at most 63 characters,
/// alphanumerics, `-`, `_`, `.`; taintlint does not validate it here, the pod's rule does)?
fn kept(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 63
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Does a mapping key name labels (`labels`, `nodeLabels`, `node_labels`, `matchLabels`)?
fn names_labels(key: &str) -> bool {
    key.len() >= 5
        && key
            .as_bytes()
            .windows(5)
            .any(|w| w.eq_ignore_ascii_case(b"label"))
}

/// The mentions of one document (see the module's text), appended to `out`.
pub fn in_document(root: &Node, out: &mut Vec<Box<str>>) {
    // A CRD's schema describes fields, not labels.
    if root.get("kind").and_then(Node::text) == Some("CustomResourceDefinition") {
        return;
    }
    let mut stack: Vec<&Node> = vec![root];
    while let Some(node) = stack.pop() {
        if let Some(map) = node.as_map() {
            for (k, v) in map {
                let key = k.text().unwrap_or("");
                if names_labels(key) {
                    labels_of(v, out);
                } else if key == "requirements" {
                    for item in v.as_seq().unwrap_or_default() {
                        if let Some(k) = item.get("key").and_then(Node::text)
                            && kept(k)
                        {
                            out.push(k.into());
                        }
                    }
                }
                stack.push(v);
            }
        } else if let Some(seq) = node.as_seq() {
            stack.extend(seq);
        } else if let Some(text) = node.text()
            && text.contains("node-labels")
        {
            flags(text, out);
        }
    }
}

/// The keys of a labels value: a mapping, or a list of one-entry mappings.
fn labels_of(v: &Node, out: &mut Vec<Box<str>>) {
    let mut add = |map: &[(Node, Node)]| {
        out.extend(
            map.iter()
                .filter_map(|(k, _)| k.text())
                .filter(|k| kept(k))
                .map(Box::from),
        );
    };
    if let Some(map) = v.as_map() {
        add(map);
    }
    for item in v.as_seq().unwrap_or_default() {
        if let Some(map) = item.as_map() {
            add(map);
        }
    }
}

/// The labels of `--node-labels` flags in `text`.
fn flags(text: &str, out: &mut Vec<Box<str>>) {
    let flags = super::kubelet::kubelet_flags(text);
    out.extend(
        flags
            .labels
            .iter()
            .filter(|(k, _)| kept(k))
            .map(|(k, _)| Box::from(k.as_str())),
    );
}

/// The mentions of a text taintlint does not read as objects (a Terraform file, a template):
/// every word written as a key (`word:`, `word =`, `"word":`, `"word" =`), and the labels of
/// `--node-labels` flags.
pub fn in_text(text: &str, out: &mut Vec<Box<str>>) {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) || (i > 0 && word(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && word(bytes[i]) {
            i += 1;
        }
        let end = i;
        let mut j = end;
        if bytes.get(j) == Some(&b'"') || bytes.get(j) == Some(&b'\'') {
            j += 1;
        }
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        let is_key = match bytes.get(j) {
            Some(b':') => true,
            // `=`, not `==` or `=>`.
            Some(b'=') => !matches!(bytes.get(j + 1), Some(b'=' | b'>')),
            _ => false,
        };
        if is_key
            && let Some(key) = text.get(start..end)
            && kept(key)
        {
            out.push(key.into());
        }
    }
    if text.contains("node-labels") {
        flags(text, out);
    }
}

/// Sorts and dedups a file's mentions.
pub fn settle(out: &mut Vec<Box<str>>) {
    out.sort_unstable();
    out.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Vec<Box<str>> {
        let stream = crate::load::yaml::parse(text, crate::load::yaml::Limits::default());
        let mut out = Vec::new();
        for d in &stream.documents {
            if let Some(root) = &d.root {
                in_document(root, &mut out);
            }
        }
        settle(&mut out);
        out
    }

    fn text(t: &str) -> Vec<Box<str>> {
        let mut out = Vec::new();
        in_text(t, &mut out);
        settle(&mut out);
        out
    }

    #[test]
    fn label_maps_lists_requirements_and_flags() {
        let got = doc(r#"
nodePool:
  labels:
    - accelerator: nvidia
    - example.com/team: ml
  requirements:
    - {key: gpuType, operator: In, values: [a10g]}
kind: ResourceFlavor
spec:
  nodeLabels: {pool: spot}
  nodeSelector: {notMe: x}
args: "--kubelet-extra-args '--node-labels=site=edge'"
"#);
        let got: Vec<&str> = got.iter().map(|s| &**s).collect();
        assert_eq!(got, ["accelerator", "gpuType", "pool", "site"]);
    }

    #[test]
    fn a_crd_schema_is_not_read() {
        assert!(doc("kind: CustomResourceDefinition\nspec: {labels: {a: b}}\n").is_empty());
    }

    #[test]
    fn keys_written_in_text() {
        let got = text(
            "values = [<<-EOT\n  nodePool:\n    labels:\n      - accelerator: nvidia\nEOT\n]\nlabels = { \"role\" = \"x\" }\nif a == b => c\nurl: http://x\n",
        );
        let got: Vec<&str> = got.iter().map(|s| &**s).collect();
        // `http:` reads as a key too: a word more only keeps more keys unjudged.
        assert_eq!(
            got,
            [
                "accelerator",
                "http",
                "labels",
                "nodePool",
                "role",
                "url",
                "values"
            ]
        );
        // `a == b` and `b => c` are no keys.
        assert!(!got.contains(&"a") && !got.contains(&"b"));
    }
}
