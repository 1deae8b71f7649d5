//! `--format gitlab`: a GitLab Code Quality report (the JSON array GitLab reads from
//! `artifacts:reports:codequality` and shows in the merge request's widget and diff).
//!
//! GitLab documents the fields it reads: `description`, `check_name`, `fingerprint`,
//! `severity` (`info`, `minor`, `major`, `critical` or `blocker`) and `location.path` with
//! `location.lines.begin`. The fingerprint is the SARIF one (rule, file, object and field
//! path, no line numbers), so GitLab tracks a finding across commits that move it; GitLab
//! shows only the first of several issues with one fingerprint, so a repeat within a report
//! gets `-2`, `-3`… appended (findings are sorted, so the suffixes are stable). Strings are
//! written as the JSON format writes them (`report::safe_json`): no control character, line
//! separator or bidi control of the input raw.

use std::collections::HashMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostic::{Finding, Severity, fingerprint};

use super::FindingSource;

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location<'a>,
}

#[derive(Serialize)]
struct Location<'a> {
    path: std::borrow::Cow<'a, str>,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

/// GitLab's severity: `critical` for an error the API server rejects (the apply fails),
/// `major` for other errors, `minor` for warnings, `info` for infos.
pub fn severity(f: &Finding) -> &'static str {
    match f.severity {
        Severity::Error if f.api_error.is_some() => "critical",
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// The path as GitLab links it: relative to the project's root (taintlint's working
/// directory, which an absolute path under it is made relative to), without a leading `./`.
fn path<'a>(file: &'a str, cwd: Option<&std::path::Path>) -> std::borrow::Cow<'a, str> {
    let file = file.strip_prefix("./").unwrap_or(file);
    let under_cwd = cwd
        .and_then(|cwd| std::path::Path::new(file).strip_prefix(cwd).ok())
        .and_then(|rel| rel.to_str())
        .filter(|rel| !rel.is_empty());
    match under_cwd {
        Some(rel) => std::borrow::Cow::Owned(rel.replace('\\', "/")),
        None => std::borrow::Cow::Borrowed(file),
    }
}

pub(super) fn write(findings: &dyn FindingSource, out: &mut dyn Write) -> io::Result<()> {
    // Fingerprints seen so far, with how often: a report holds one entry per distinct
    // fingerprint (a handful of bytes per finding).
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut first = true;
    let cwd = std::env::current_dir().ok();
    out.write_all(b"[")?;
    findings.each(&mut |f| {
        let (start, end) = f.range();
        let base = fingerprint(f);
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        let fingerprint = if *n == 1 { base } else { format!("{base}-{n}") };
        let mut description = f.message.to_string();
        if let Some(cluster) = &f.cluster {
            description.push_str(&format!(" (cluster `{cluster}`)"));
        }
        super::push_help_and_api(&mut description, f);
        super::push_related(&mut description, f);
        let issue = Issue {
            description,
            check_name: f.rule,
            fingerprint,
            severity: severity(f),
            location: Location {
                path: path(&f.file, cwd.as_deref()),
                lines: Lines {
                    begin: start.line,
                    end: end.line.max(start.line),
                },
            },
        };
        out.write_all(if first { b"\n  " } else { b",\n  " })?;
        first = false;
        super::safe_json::write_compact(&mut *out, &issue)
    })?;
    out.write_all(if first { b"]\n" } else { b"\n]\n" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_project() {
        let cwd = std::path::Path::new("/work/repo");
        assert_eq!(path("./k8s/a.yaml", Some(cwd)), "k8s/a.yaml");
        assert_eq!(path("/work/repo/k8s/a.yaml", Some(cwd)), "k8s/a.yaml");
        assert_eq!(path("/elsewhere/a.yaml", Some(cwd)), "/elsewhere/a.yaml");
        assert_eq!(path("k8s/a.yaml", None), "k8s/a.yaml");
    }
}
