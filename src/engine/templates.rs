//! Files that are templates of another kind than Helm's: envsubst (`${VAR}`), Terraform's
//! `templatefile` (`%{ if … }`, `${…}`), Jinja (`{% … %}`), `@VAR@` and `%VAR%` placeholders, Go/C printf
//! formats (`name: %s`); and JSON with comments (a VS Code or TypeScript config), which is no
//! manifest and no YAML either. Helm/Go
//! templates that do not parse are recognised while parsing (`file`); these are settled once
//! a file is linted:
//!
//! - a syntax error in a file with template markers is the template's, not the YAML's: it
//!   becomes one `template-not-rendered` info;
//! - a file that parses is linted, but a finding about a value that holds a placeholder is
//!   dropped (the placeholder is not the value the cluster will get), and so are the
//!   workloads and node pools whose scheduling fields hold one (they cannot be judged); one
//!   info says so.

use std::sync::Arc;

use super::file::FileReport;
use super::options::LintOptions;
use crate::analysis::types::{NodeDecl, Workload};
use crate::load::{SourceFile, Span};
use crate::rules;

/// A template syntax and where its first marker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Marker {
    pub syntax: Syntax,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Syntax {
    Terraform,
    Jinja,
    FreeMarker,
    Envsubst,
    AtPlaceholder,
    Printf,
    JsonWithComments,
    Braces,
}

impl Syntax {
    fn name(self) -> &'static str {
        match self {
            Syntax::Terraform => "a Terraform template (`%{ … }`)",
            Syntax::Jinja => "a Jinja template (`{% … %}`)",
            Syntax::FreeMarker => "a FreeMarker template (`<#if …>`)",
            Syntax::Envsubst => "an envsubst template (`${VAR}`)",
            Syntax::AtPlaceholder => {
                "a template with `@VAR@`, `%VAR%`, `<VAR>` or `{VAR}` placeholders"
            }
            Syntax::Printf => "a printf format (`%s`) a program fills in",
            Syntax::JsonWithComments => "JSON with comments (an editor's or a tool's config)",
            Syntax::Braces => {
                "a template with `{{ … }}` placeholders (Helm, Jinja, Argo Workflows parameters)"
            }
        }
    }

    fn help(self) -> &'static str {
        match self {
            Syntax::Terraform => {
                "render it first (`terraform console`, or lint the manifest Terraform applies)"
            }
            Syntax::Jinja => {
                "render it first (e.g. with Ansible's `template` module) and lint the output"
            }
            Syntax::FreeMarker => {
                "render it first with the program that fills it in (FreeMarker) and lint the output"
            }
            Syntax::Envsubst => "render it first: `envsubst < file.yaml | taintlint check -`",
            Syntax::AtPlaceholder => {
                "render it first (the build step or script that replaces the placeholders, e.g. with `sed`) and lint the output"
            }
            Syntax::Printf => "lint what the program writes from it",
            Syntax::JsonWithComments => {
                "kubectl reads neither JSON with comments nor this as YAML; if it is no manifest, exclude it"
            }
            Syntax::Braces => {
                "render it first (`helm template`, Ansible, or the tool that fills it in) and lint the output; an Argo Workflows parameter is filled in when the pod is made"
            }
        }
    }
}

/// The template syntax of a text other than Helm's, if it has one, with its first marker.
/// Directives decide the syntax (`%{` is Terraform's, whose `${…}` are its own), then
/// placeholders.
pub(super) fn find(text: &str) -> Option<Marker> {
    let bytes = text.as_bytes();
    let marker = |syntax: Syntax, start: usize, len: usize| Marker {
        syntax,
        span: Span::new(start, start + len),
    };
    // A directive in a YAML comment (`# use %{ if … }` in prose) is no directive.
    let directive = |pattern: &[u8]| {
        memchr::memmem::find_iter(bytes, pattern).find(|&at| !in_comment(bytes, at))
    };
    if let Some(at) = directive(b"%{") {
        return Some(marker(Syntax::Terraform, at, 2));
    }
    if let Some(at) = directive(b"{%") {
        return Some(marker(Syntax::Jinja, at, 2));
    }
    // FreeMarker's directives (`<#if …>`, `</#list>`, `<#assign …>`, a macro call `<@x/>`).
    if let Some(at) = [&b"<#"[..], b"</#", b"<@"]
        .iter()
        .filter_map(|p| {
            memchr::memmem::find_iter(bytes, p).find(|&at| {
                !in_comment(bytes, at)
                    && bytes.get(at + p.len()).is_some_and(u8::is_ascii_alphabetic)
            })
        })
        .min()
    {
        return Some(marker(Syntax::FreeMarker, at, 2));
    }
    if let Some((at, len)) = envsubst(text, 0) {
        return Some(marker(Syntax::Envsubst, at, len));
    }
    if let Some((at, len)) = placeholders(text, 0, text.len()).next() {
        return Some(marker(Syntax::AtPlaceholder, at, len));
    }
    if let Some(at) = printf_verb(text) {
        return Some(marker(Syntax::Printf, at, 2));
    }
    // A `{{ … }}` that YAML reads as part of a value (a quoted Helm or Jinja expression, an
    // Argo Workflows parameter): the value is filled in later, so it is not judged.
    if let Some(at) = braces(bytes) {
        return Some(marker(Syntax::Braces, at, 2));
    }
    let start = text.len() - text.trim_start().len();
    (text[start..].starts_with("//") || text[start..].starts_with("/*"))
        .then(|| marker(Syntax::JsonWithComments, start, 2))
}

/// The first `{{` outside a comment closed by `}}` on its line.
fn braces(bytes: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(bytes, b"{{").find(|&at| {
        let rest = bytes.get(at + 2..).unwrap_or_default();
        let line = rest
            .get(..memchr::memchr(b'\n', rest).unwrap_or(rest.len()))
            .unwrap_or_default();
        memchr::memmem::find(line, b"}}").is_some() && !in_comment(bytes, at)
    })
}

/// The first printf verb (`%s`, `%d`, `%v`, `%q`) that stands where a value starts (after
/// `: `, `- ` or an opening quote) and ends there or before a blank, quote or `/`: a format a
/// program fills in (a Go test's input), which YAML refuses (`%` starts no plain scalar).
fn printf_verb(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    memchr::memchr_iter(b'%', b).find(|&i| {
        let verb = b
            .get(i + 1)
            .is_some_and(|c| matches!(c, b's' | b'd' | b'v' | b'q'));
        let ends = b
            .get(i + 2)
            .is_none_or(|c| matches!(c, b'\n' | b'\r' | b' ' | b'"' | b'\'' | b'/' | b','));
        let starts = i >= 2
            && matches!(
                (b[i - 2], b[i - 1]),
                (b':' | b'-', b' ') | (_, b'"') | (_, b'\'')
            );
        verb && ends && starts && !in_comment(b, i)
    })
}

/// Is `at` inside a YAML comment: after a `#` that starts its line's content or follows a
/// blank, outside quotes? (A rough reading of the line, enough for a template marker.)
fn in_comment(bytes: &[u8], at: usize) -> bool {
    let start = memchr::memrchr(b'\n', bytes.get(..at).unwrap_or_default()).map_or(0, |i| i + 1);
    let line = bytes.get(start..at).unwrap_or_default();
    let mut quote: Option<u8> = None;
    for (i, &c) in line.iter().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c == b'#' && (i == 0 || matches!(line[i - 1], b' ' | b'\t')) => return true,
            None => {}
        }
    }
    false
}

/// A bare `$NAME` (envsubst replaces it as it replaces `${NAME}`): a `$` and a name.
fn bare_var(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'$', b).any(|i| {
        b.get(i + 1)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    })
}

/// The next `${NAME}` (or `${NAME:-default}`, `${NAME}` with dots as Terraform writes them)
/// at or after `from`: its start and length.
fn envsubst(text: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(i) = memchr::memmem::find(bytes.get(at..)?, b"${") {
        let start = at + i;
        let name_start = start + 2;
        let name_len = bytes[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
            .count();
        let after = name_start + name_len;
        let starts_ok = bytes
            .get(name_start)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
        if starts_ok && let Some(end) = bytes[after..].iter().take(200).position(|b| *b == b'}') {
            return Some((start, after + end + 1 - start));
        }
        at = start + 2;
    }
    None
}

/// The next `@NAME@` or `%NAME%` (upper case, digits, underscores; at least two characters),
/// `<NAME>` or `{NAME}` (at least three: a script's `sed` placeholder, kubefirst's
/// `<CERT_MANAGER_ISSUER_ANNOTATION_1>` lines), or a lower-case documentation blank
/// (`<nodegroup-name>`): its start and length.
fn at_placeholder(text: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(i) = bytes
        .get(at..)?
        .iter()
        .position(|b| matches!(b, b'@' | b'%' | b'<' | b'{'))
    {
        let start = at + i;
        let (close, least) = match bytes[start] {
            b'<' => (b'>', 3),
            b'{' => (b'}', 3),
            d => (d, 2),
        };
        let name_len = bytes[start + 1..]
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        if name_len >= least
            && bytes.get(start + 1).is_some_and(u8::is_ascii_uppercase)
            && bytes.get(start + 1 + name_len) == Some(&close)
        {
            return Some((start, name_len + 2));
        }
        // A documentation blank in lower case, `<nodegroup-name>`, `<model_name>`: words
        // joined by `-` or `_` (an HTML tag has none).
        if bytes[start] == b'<' {
            let len = bytes[start + 1..]
                .iter()
                .take_while(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_')
                })
                .count();
            let name = &bytes[start + 1..start + 1 + len];
            if len >= 3
                && name.first().is_some_and(u8::is_ascii_lowercase)
                && name.iter().any(|b| matches!(b, b'-' | b'_'))
                && !name.ends_with(b"-")
                && bytes.get(start + 1 + len) == Some(&b'>')
            {
                return Some((start, len + 2));
            }
        }
        at = start + 1;
    }
    None
}

/// The `@NAME@`, `%NAME%`, `<NAME>` and `{NAME}` placeholders in `text[from..to]` that are
/// not in a YAML comment (`# replace <S3_BUCKET> with yours` in prose is none).
fn placeholders(text: &str, from: usize, to: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = from;
    std::iter::from_fn(move || {
        while at < to {
            let (start, len) = at_placeholder(text, at)?;
            at = start + 1;
            if start >= to {
                return None;
            }
            if !in_comment(bytes, start) {
                return Some((start, len));
            }
        }
        None
    })
}

/// Is a `@NAME@`-style placeholder (see [`placeholders`]) where it can have broken the YAML
/// that failed at `error`: on the error's line or one of the two before it, and outside
/// quotes on its line (a quoted `"s3a://<S3_BUCKET>/"` parses whatever it holds). A syntax
/// error elsewhere in such a file is the YAML's own.
fn placeholder_near(text: &str, error: usize) -> bool {
    let bytes = text.as_bytes();
    let error = floor_boundary(text, error.min(text.len()));
    let line_end = memchr::memchr(b'\n', &bytes[error..]).map_or(text.len(), |i| error + i);
    let mut start = error;
    for _ in 0..3 {
        start = memchr::memrchr(b'\n', &bytes[..start]).unwrap_or(0);
        if start == 0 {
            break;
        }
    }
    placeholders(text, start, line_end).any(|(at, _)| {
        let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let before = &bytes[line_start..at];
        before.iter().filter(|&&b| b == b'"').count() % 2 == 0
            && before.iter().filter(|&&b| b == b'\'').count() % 2 == 0
    })
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Does this text hold a template placeholder of any syntax (Helm's included)? In an
/// envsubst template, a bare `$NAME` is one too (envsubst replaces both forms).
fn has_placeholder(s: &str, syntax: Syntax) -> bool {
    s.contains("{{")
        || s.contains("%{")
        || s.contains("{%")
        || envsubst(s, 0).is_some()
        || at_placeholder(s, 0).is_some()
        || (syntax == Syntax::Envsubst && bare_var(s))
}

fn workload_has_placeholder(w: &Workload, has_placeholder: &dyn Fn(&str) -> bool) -> bool {
    w.tolerations.iter().any(|t| {
        [&t.key, &t.operator, &t.value, &t.effect]
            .iter()
            .any(|s| has_placeholder(s))
    }) || w
        .node_selector
        .iter()
        .any(|(k, v)| has_placeholder(k) || has_placeholder(v))
        || w.terms.iter().flat_map(|t| t.iter()).any(|t| {
            t.expressions
                .iter()
                .chain(&t.fields)
                .any(|r| has_placeholder(&r.key) || r.values.iter().any(|v| has_placeholder(v)))
        })
        || w.node_name
            .as_ref()
            .is_some_and(|(n, _)| has_placeholder(n))
}

fn node_has_placeholder(n: &NodeDecl, has_placeholder: &dyn Fn(&str) -> bool) -> bool {
    has_placeholder(&n.name)
        || n.taints.iter().any(|t| {
            has_placeholder(&t.taint.key)
                || has_placeholder(&t.taint.value)
                || has_placeholder(&t.taint.effect)
        })
        || n.labels.iter().any(|(k, v)| {
            has_placeholder(k)
                || matches!(v, crate::analysis::types::LabelValues::OneOf(vs) if vs.iter().any(|v| has_placeholder(v)))
        })
}

/// The template extension of a file named like `deploy.yaml.j2`, if it has one.
pub(super) fn template_extension(name: &str) -> Option<&'static str> {
    const EXTENSIONS: &[&str] = &[".j2", ".jinja", ".jinja2", ".tpl", ".tmpl", ".gotmpl"];
    let base = name.rsplit('/').next().unwrap_or(name);
    EXTENSIONS.iter().copied().find(|ext| {
        base.strip_suffix(ext)
            .is_some_and(|stem| stem.ends_with(".yaml") || stem.ends_with(".yml"))
    })
}

/// Does a file named as a template (`deploy.yaml.j2`) read as plain YAML: it parses, and
/// every template marker in it (`{{`, `{%`, `{#`, `%{`, `${`, FreeMarker's `<#`) lies inside a
/// quoted scalar? Then it is linted as YAML (a value holding a placeholder is still not
/// judged, see [`settle`]): many such files hold no template syntax at all, or a `sed`-style
/// `__NAME__` a script replaces. A marker in a comment counts: Jinja renders those too.
pub(super) fn plain_yaml(text: &str) -> bool {
    const MARKERS: &[&[u8]] = &[b"{{", b"{%", b"{#", b"%{", b"${", b"<#", b"</#"];
    let bytes = text.as_bytes();
    let mut at: Vec<usize> = MARKERS
        .iter()
        .flat_map(|m| memchr::memmem::find_iter(bytes, m))
        .collect();
    let stream = crate::load::yaml::parse(text, crate::load::yaml::Limits::default());
    if stream.error.is_some() {
        return false;
    }
    if at.is_empty() {
        return true;
    }
    let quoted = crate::load::yaml::quoted_spans(&stream);
    at.sort_unstable();
    at.iter().all(|&m| {
        let i = quoted.partition_point(|s| s.start <= m);
        i > 0 && quoted.get(i - 1).is_some_and(|s| m < s.end)
    })
}

/// A file that is a template by its name: one info at its first marker (or its start); it is
/// not linted.
pub(super) fn by_name(source: &Arc<SourceFile>, ext: &str, opts: &LintOptions) -> FileReport {
    let mut report = FileReport {
        helm_template: matches!(ext, ".tpl" | ".tmpl" | ".gotmpl"),
        ..FileReport::default()
    };
    let meta = &rules::TEMPLATE_NOT_RENDERED;
    if opts.rules.is_enabled(meta.name) {
        let text = &source.text;
        let span = [
            memchr::memmem::find(text.as_bytes(), b"{{").map(|at| Span::new(at, at + 2)),
            find(text).map(|m| m.span),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|s| s.start)
        .unwrap_or(Span::new(0, text.chars().next().map_or(0, char::len_utf8)));
        report.findings.push(
            meta.finding(format!(
                "this file is a template (`{ext}`), not YAML; it was not linted"
            ))
            .primary(span, "template")
            .help("render it first and lint the output (e.g. `… | taintlint check -`)")
            .in_file(source),
        );
    }
    report
}

/// Settles a linted file that holds template markers (see the module's notes).
pub(super) fn settle(
    report: &mut FileReport,
    source: &Arc<SourceFile>,
    marker: Marker,
    opts: &LintOptions,
) {
    let text = &source.text;
    let meta = &rules::TEMPLATE_NOT_RENDERED;
    // A Helm/Go template that does not parse was reported as such already.
    if report.findings.iter().any(|f| f.rule == meta.name) {
        return;
    }
    let syntax_error = report
        .findings
        .iter()
        .position(|f| f.rule == rules::YAML_SYNTAX_ERROR.name);
    let note = |message: String, span: Span, label: &'static str| {
        meta.finding(message)
            .primary(span, label)
            .help(marker.syntax.help())
            .in_file(source)
    };
    if let Some(i) = syntax_error {
        // A placeholder that only a script replaces breaks the YAML only where it stands.
        if marker.syntax == Syntax::AtPlaceholder {
            let at = report.findings[i]
                .primary
                .as_ref()
                .map_or(0, |l| l.span.start);
            if !placeholder_near(text, at) {
                return;
            }
        }
        // The template's syntax, not the YAML's: what came before the error was linted.
        report.findings.remove(i);
        if opts.rules.is_enabled(meta.name) {
            report.findings.push(note(
                format!(
                    "this file is {}, not YAML; it was linted only up to where the template breaks the YAML",
                    marker.syntax.name()
                ),
                marker.span,
                "template marker",
            ));
        }
        return;
    }
    let holds = |s: &str| has_placeholder(s, marker.syntax);
    let in_span = |sp: Span| text.get(sp.start..sp.end.max(sp.start)).is_some_and(holds);
    let before = report.findings.len();
    report
        .findings
        .retain(|f| !f.primary.as_ref().is_some_and(|l| in_span(l.span)));
    let dropped = before - report.findings.len();
    let workloads = report.workloads.len();
    report
        .workloads
        .retain(|w| !workload_has_placeholder(w, &holds));
    let nodes = report.nodes.len();
    report.nodes.retain(|n| !node_has_placeholder(n, &holds));
    let skipped = dropped + (workloads - report.workloads.len()) + (nodes - report.nodes.len());
    if skipped > 0 && opts.rules.is_enabled(meta.name) {
        report.findings.push(note(
            format!(
                "this file is {}; values that hold a placeholder were not checked",
                marker.syntax.name()
            ),
            marker.span,
            "placeholder",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_names() {
        assert_eq!(
            template_extension("roles/x/templates/deploy.yaml.j2"),
            Some(".j2")
        );
        assert_eq!(template_extension("a.yml.tmpl"), Some(".tmpl"));
        assert_eq!(template_extension("charts/x/templates/_helpers.tpl"), None);
        assert_eq!(template_extension("deploy.yaml"), None);
    }

    #[test]
    fn finds_each_syntax_first_marker_first() {
        let m = find("a: 1\nb: ${IMAGE}\n").expect("envsubst");
        assert_eq!((m.syntax, m.span), (Syntax::Envsubst, Span::new(8, 16)));
        assert_eq!(
            find("x: ${IMAGE:-nginx}\n").map(|m| m.span.end - m.span.start),
            Some(15)
        );
        let tf = find("y: ${a.b}\n%{ if x }\n").expect("terraform");
        assert_eq!((tf.syntax, tf.span.start), (Syntax::Terraform, 10));
        assert_eq!(
            find("{% for x in y %}\n").map(|m| m.syntax),
            Some(Syntax::Jinja)
        );
        assert_eq!(
            find("v: @TAG@\n").map(|m| m.syntax),
            Some(Syntax::AtPlaceholder)
        );
        // eksctl's connector manifest: `%EKS_ACTIVATION_CODE%` is replaced before parsing.
        let pct = find("data:\n  code: %EKS_ACTIVATION_CODE%\n").expect("a placeholder");
        assert_eq!(
            (pct.syntax, pct.span),
            (Syntax::AtPlaceholder, Span::new(14, 35))
        );
        // Not placeholders: mixed delimiters, a percentage, printf's lowercase verbs.
        assert_eq!(find("a: @AB%\nb: 50% of 100%\n").map(|m| m.syntax), None);
        // Not placeholders: an email, a lone `$`, `${` with no name, shell `$(VAR)`.
        assert_eq!(
            find("mail: ops@example.com\ncost: $5\nx: ${ }\ny: $(POD)\n"),
            None
        );
        assert_eq!(find("a: @a@ @B@\n"), None);
        // A script's placeholders: kubefirst's `<NAME>` lines, a `sed` script's `{NAME}`.
        let line = find("metadata:\n  annotations:\n    <ISSUER_ANNOTATION_1>\n").expect("<NAME>");
        assert_eq!(
            (line.syntax, line.span),
            (Syntax::AtPlaceholder, Span::new(29, 50))
        );
        assert_eq!(
            find("name: {TENANT_ID}-basic\n").map(|m| m.syntax),
            Some(Syntax::AtPlaceholder)
        );
        // Not placeholders: a short upper-case tag, a flow mapping, lower-case HTML.
        assert_eq!(find("a: <BR>\nb: {x: 1}\nc: <div>\nd: <my-element\n"), None);
        // A documentation blank in lower case.
        assert_eq!(
            find("nodeSelector:\n  eks.amazonaws.com/nodegroup: <nodegroup-name>\n")
                .map(|m| m.syntax),
            Some(Syntax::AtPlaceholder)
        );
        // FreeMarker's directives, not in a comment.
        assert_eq!(
            find("<#if tls>\n---\nkind: Secret\n</#if>\n").map(|m| m.syntax),
            Some(Syntax::FreeMarker)
        );
        assert_eq!(find("# <#if> in prose\na: \"<# no\"\n"), None);
        // A directive in a comment is none; one after a `#` inside a value is.
        assert_eq!(find("# render with %{ if x }\na: 1 # {% no %}\n"), None);
        assert_eq!(
            find("a: \"#%{ x }\"\n").map(|m| m.syntax),
            Some(Syntax::Terraform)
        );
    }

    #[test]
    fn a_placeholder_breaks_the_yaml_only_where_it_stands() {
        let kubefirst = "metadata:\n  annotations:\n    <ISSUER_ANNOTATION_1>\n    x: \"1\"\n";
        assert!(placeholder_near(kubefirst, kubefirst.find("x:").unwrap()));
        // Quoted, in a comment, or far from the error: the YAML's own error.
        let quoted = "a: \"s3a://<S3_BUCKET>/x\"\n  b: 1\n";
        assert!(!placeholder_near(quoted, quoted.find("b:").unwrap()));
        let comment = "# use tcp://<IP>:<PORT>\n  b: 1\n";
        assert!(!placeholder_near(comment, comment.find("b:").unwrap()));
        let far = "a: <NAME_X>\nb: 1\nc: 2\nd: 3\ne: 4\n  f: 5\n";
        assert!(!placeholder_near(far, far.find("f:").unwrap()));
    }

    #[test]
    fn template_names_that_hold_plain_yaml() {
        // No template syntax, or a `sed` placeholder: YAML.
        assert!(plain_yaml(
            "kind: NodePool\nmetadata:\n  name: __CLUSTER__-gpu\n"
        ));
        // Expressions only inside quoted values.
        assert!(plain_yaml("a: \"{{ x }}\"\nb: 'pre-${X}'\n"));
        // An expression outside quotes, a directive, one in a comment, or no YAML at all.
        assert!(!plain_yaml("a: {{ x }}\n"));
        assert!(!plain_yaml("{% if x %}\na: 1\n{% endif %}\n"));
        assert!(!plain_yaml("a: 1 # {% if x %}\n"));
        assert!(!plain_yaml("a: [\n"));
    }

    #[test]
    fn double_braces_in_values_are_placeholders() {
        // An Argo Workflows parameter, a quoted Helm expression: the YAML parses.
        let m = find("nodeSelector:\n  arch: \"{{inputs.parameters.arch}}\"\n").expect("braces");
        assert_eq!((m.syntax, m.span.start), (Syntax::Braces, 23));
        // In a comment, or not closed on its line: none.
        assert!(find("# render with {{ .Values.x }}\na: 1\n").is_none());
        assert!(find("a: \"{{\"\nb: \"}}\"\n").is_none());
    }

    #[test]
    fn printf_formats_and_json_with_comments() {
        let m = find("spec:\n  name: %s\n  url: \"%s/x\"\n").expect("printf");
        assert_eq!((m.syntax, m.span.start), (Syntax::Printf, 14));
        // Not a format: a percentage, a verb inside a word, a comment.
        assert_eq!(find("a: 50%\nb: 100%sure\nc: x%s\n# printf '%s'\n"), None);
        assert_eq!(
            find("  // settings\n{\"a\": 1}\n").map(|m| m.syntax),
            Some(Syntax::JsonWithComments)
        );
    }

    #[test]
    fn bare_vars_are_envsubst_placeholders() {
        assert!(has_placeholder("$NODE_LABEL", Syntax::Envsubst));
        assert!(!has_placeholder("$NODE_LABEL", Syntax::Jinja));
        assert!(!has_placeholder("cost $5", Syntax::Envsubst));
    }
}
