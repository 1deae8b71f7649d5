//! Kubernetes manifests inside Terraform files: NodePools and other objects applied with
//! `kubectl_manifest { yaml_body = <<-YAML … YAML }` or `kubernetes_manifest { manifest =
//! yamldecode(<<-EOT … EOT) }`. Pools declared only there would otherwise be missing from the
//! inventory, and the workloads meant for them reported as unschedulable.
//!
//! A `.tf` file is linted through a *view* of it: a text of the same length and the same
//! line breaks in which every byte outside the manifest heredocs is a space, and each heredoc's
//! opening line starts a YAML document (`---`). Every position in the view is the same in the
//! file, so findings point at the heredoc's scalars. Terraform's `${…}` interpolations are
//! placeholders (see `templates`): values that hold one are not judged. A fix is never offered
//! in a `.tf` file (the view is not the file's text), and a `.tf` file with no manifest heredoc
//! is not linted at all.

use std::sync::Arc;

use super::file::{FileReport, lint_templated};
use super::options::LintOptions;
use super::templates::Syntax;
use crate::load::{SourceFile, Span};

/// Is this a Terraform file (by its name)?
pub(super) fn is_terraform(name: &str) -> bool {
    name.ends_with(".tf")
}

/// Lints the manifests in the heredocs of a Terraform file.
pub(super) fn lint(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let Some(view) = yaml_view(&source.text) else {
        return FileReport::default();
    };
    let view = SourceFile::new(Arc::clone(&source.name), view);
    // `${…}` and `%{…}` in a Terraform heredoc are Terraform's.
    let mut report = lint_templated(&view, opts, Some(Syntax::Terraform));
    for f in &mut report.findings {
        f.fix = None;
    }
    report
}

/// The YAML view of a Terraform text (see the module's notes), or `None` when no heredoc
/// holds a manifest (`apiVersion:` and `kind:` lines).
pub(super) fn yaml_view(text: &str) -> Option<String> {
    let heredocs = manifest_heredocs(text);
    if heredocs.is_empty() {
        return None;
    }
    let mut view: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    for h in heredocs {
        // The opening line becomes a document start; the body is copied as it is.
        if let Some(start) = view.get_mut(h.opener.start..h.opener.start + 3) {
            start.copy_from_slice(b"---");
        }
        if let (Some(dst), Some(src)) = (
            view.get_mut(h.body.start..h.body.end),
            text.as_bytes().get(h.body.start..h.body.end),
        ) {
            dst.copy_from_slice(src);
        }
    }
    // Bytes were replaced by ASCII spaces whole characters at a time, or copied from whole
    // lines of the text: the view is UTF-8. Never fails; an empty view if it did.
    Some(String::from_utf8(view).unwrap_or_default())
}

/// A heredoc: its opening line, and its body (the lines between the opener and the closing
/// marker).
#[derive(Debug, PartialEq, Eq)]
struct Heredoc {
    opener: Span,
    body: Span,
}

/// The heredocs (`<<EOT`, `<<-EOT`) whose body is a Kubernetes manifest.
fn manifest_heredocs(text: &str) -> Vec<Heredoc> {
    let mut found = Vec::new();
    let mut lines = lines(text).peekable();
    while let Some((start, line)) = lines.next() {
        let Some(marker) = heredoc_marker(line) else {
            continue;
        };
        let opener = Span::new(start, start + line.len());
        let body_start = start + line.len() + 1;
        let mut body_end = None;
        for (at, l) in lines.by_ref() {
            if l.trim() == marker {
                body_end = Some(at);
                break;
            }
        }
        // An unterminated heredoc is Terraform's error, not a manifest.
        let Some(body_end) = body_end else { break };
        let body = text.get(body_start..body_end).unwrap_or("");
        let manifest = body
            .lines()
            .any(|l| l.trim_start().starts_with("apiVersion:"))
            && body.lines().any(|l| l.trim_start().starts_with("kind:"));
        if manifest && line.len() >= 3 {
            found.push(Heredoc {
                opener,
                body: Span::new(body_start.min(body_end), body_end),
            });
        }
    }
    found
}

/// Lines with their start offsets, without their line breaks.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split('\n').map(move |l| {
        let start = at;
        at += l.len() + 1;
        (start, l.strip_suffix('\r').unwrap_or(l))
    })
}

/// The closing marker of a line that opens a heredoc (`… = <<-YAML`, `yamldecode(<<EOT`).
fn heredoc_marker(line: &str) -> Option<&str> {
    let code = line.split('#').next().unwrap_or(line).trim_end();
    let at = code.rfind("<<")?;
    let marker = code[at + 2..].trim_start_matches('-');
    let ok = !marker.is_empty()
        && marker
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && marker.bytes().next().is_some_and(|b| !b.is_ascii_digit());
    ok.then_some(marker)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TF: &str = r#"resource "kubectl_manifest" "gpu" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: gpu
  YAML
}

locals {
  script = <<EOT
echo hi
EOT
}
"#;

    #[test]
    fn only_manifest_heredocs_are_kept_at_their_offsets() {
        let view = yaml_view(TF).unwrap();
        assert_eq!(view.len(), TF.len());
        assert_eq!(view.lines().count(), TF.lines().count());
        let lines: Vec<&str> = view.lines().collect();
        assert_eq!(lines[0].trim(), "");
        assert!(lines[1].starts_with("---") && lines[1][3..].trim().is_empty());
        assert_eq!(lines[2], "    apiVersion: karpenter.sh/v1");
        assert_eq!(lines[5], "      name: gpu");
        // The closing marker and the shell heredoc are blank.
        assert!(lines[6..].iter().all(|l| l.trim().is_empty()));
    }

    #[test]
    fn files_without_manifests_have_no_view() {
        assert_eq!(yaml_view("variable \"x\" {}\n"), None);
        assert_eq!(yaml_view("x = <<EOT\nhello\nEOT\n"), None);
        // Unterminated.
        assert_eq!(yaml_view("x = <<EOT\napiVersion: v1\nkind: Pod\n"), None);
    }

    #[test]
    fn markers() {
        assert_eq!(heredoc_marker("  yaml_body = <<-YAML"), Some("YAML"));
        assert_eq!(heredoc_marker("  manifest = yamldecode(<<EOT"), Some("EOT"));
        assert_eq!(heredoc_marker("  x = 1 << 2"), None);
        assert_eq!(heredoc_marker("  x = \"<<\""), None);
    }
}
