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
use crate::rules;

/// Is this a Terraform file (by its name)?
pub(super) fn is_terraform(name: &str) -> bool {
    name.ends_with(".tf")
}

/// Lints a Terraform file: the node pools its resources and modules declare (read with an
/// HCL parser, see `analysis::sources::terraform_decls`), and the manifests in its heredocs. A file
/// that does not parse as HCL gets a `yaml-syntax-error` (the rule of files whose syntax
/// cannot be read), and its heredocs are still linted.
pub(super) fn lint(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let mut report = match yaml_view(&source.text) {
        Some(view) => {
            let view = SourceFile::new(Arc::clone(&source.name), view);
            // `${…}` and `%{…}` in a Terraform heredoc are Terraform's.
            let mut report = lint_templated(&view, opts, Some(Syntax::Terraform));
            for f in &mut report.findings {
                f.fix = None;
            }
            report
        }
        None => FileReport::default(),
    };
    match crate::analysis::sources::terraform_decls(source) {
        Ok(decls) => report.nodes.extend(decls),
        Err(e) if opts.rules.is_enabled(rules::YAML_SYNTAX_ERROR.name) => {
            let at = crate::util::text::floor_char(&source.text, e.at);
            let end = source.text[at..]
                .chars()
                .next()
                .map_or(at, |c| at + c.len_utf8());
            report.findings.push(
                rules::YAML_SYNTAX_ERROR
                    .finding(format!("Terraform (HCL) syntax error: {}", e.message))
                    .primary(Span::new(at, end), "here")
                    .help("fix the syntax (`terraform validate` shows it too); the node pools of this file were not read")
                    .in_file(source),
            );
        }
        Err(_) => {}
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
        if let Some(indent) = h.flush_indent {
            flush_document_markers(&mut view, text, &h.body, indent);
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
    /// For a `<<-` heredoc, the indentation Terraform strips from each of its lines.
    flush_indent: Option<usize>,
}

/// The heredocs (`<<EOT`, `<<-EOT`) whose body is a Kubernetes manifest.
fn manifest_heredocs(text: &str) -> Vec<Heredoc> {
    let mut found = Vec::new();
    let mut lines = lines(text).peekable();
    while let Some((start, line)) = lines.next() {
        let Some(marker) = heredoc_marker(line) else {
            continue;
        };
        let flush = line.contains(&format!("<<-{marker}"));
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
                flush_indent: flush.then(|| flush_indent(body)),
            });
        }
    }
    found
}

/// The indentation Terraform strips from the lines of a `<<-` heredoc: the smallest number of
/// leading whitespace characters of a line that is not blank (HCL's `flushHeredocTemplateParts`,
/// <https://github.com/hashicorp/hcl/blob/main/hclsyntax/parser_template.go>;
/// <https://developer.hashicorp.com/terraform/language/expressions/strings#indented-heredocs>).
fn flush_indent(body: &str) -> usize {
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).count())
        .min()
        .unwrap_or(0)
}

/// In a `<<-` heredoc, a line at the stripped indentation that is a YAML document marker
/// (`---`, `...`) starts a document once Terraform strips the heredoc: in the view it is moved
/// to the start of its line (the line's other positions shift by the indentation; every other
/// line keeps its place, as uniformly indented YAML reads the same as the stripped text).
fn flush_document_markers(view: &mut [u8], text: &str, body: &Span, indent: usize) {
    if indent == 0 {
        return;
    }
    let Some(body_text) = text.get(body.start..body.end) else {
        return;
    };
    for (at, line) in lines(body_text) {
        let Some((cut, _)) = line.char_indices().nth(indent) else {
            continue;
        };
        let (lead, rest) = line.split_at(cut);
        let marker = ["---", "..."].iter().any(|m| {
            rest.strip_prefix(m)
                .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
        });
        if !marker || !lead.chars().all(char::is_whitespace) {
            continue;
        }
        let start = body.start + at;
        let Some(dst) = view.get_mut(start..start + line.len()) else {
            continue;
        };
        let mut moved = rest.as_bytes().to_vec();
        moved.resize(line.len(), b' ');
        dst.copy_from_slice(&moved);
    }
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

    /// Terraform strips a `<<-` heredoc by its smallest indentation (blank lines aside): a
    /// `---` at that indentation starts a document, one deeper in does not.
    #[test]
    fn flush_heredoc_document_markers_start_documents() {
        let tf = "locals {\n  m = <<-EOT\n    ---\n    apiVersion: v1\n    kind: Pod\n\n    metadata:\n      name: a\n    ...\n    --- # b\n    apiVersion: v1\n    kind: Pod\n    x: |\n      ---\n  EOT\n}\n";
        let view = yaml_view(tf).unwrap();
        assert_eq!(view.len(), tf.len());
        let lines: Vec<&str> = view.lines().collect();
        assert_eq!(lines[2], "---    ");
        assert_eq!(lines[3], "    apiVersion: v1");
        assert_eq!(lines[8], "...    ");
        assert_eq!(lines[9], "--- # b    ");
        // Inside a block scalar, deeper than the stripped indentation: content.
        assert_eq!(lines[13], "      ---");
        // `<<EOT` is not stripped: its indented `---` stays as it is.
        let plain = tf.replace("<<-EOT", "<<EOT ");
        let view = yaml_view(&plain).unwrap();
        assert_eq!(view.lines().nth(2), Some("    ---"));
    }

    #[test]
    fn flush_indent_ignores_blank_lines() {
        assert_eq!(flush_indent("    a\n\n  \n      b\n"), 4);
        assert_eq!(flush_indent("\ta\n\t\tb"), 1);
        assert_eq!(flush_indent(""), 0);
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
