//! Helm charts: a chart's templates are not YAML until `helm template` renders them, and each
//! would get its own `template-not-rendered` notice — hundreds in a repository of charts. The
//! notices of the templates of one chart become one, at the chart's `Chart.yaml` (its `name:`),
//! saying how to lint it rendered.
//!
//! A file belongs to the chart of the nearest folder up its path that holds a `Chart.yaml`
//! (a subchart in `charts/` is a chart of its own). Only files read from disk are gathered:
//! standard input and the language server's open buffer keep their own notice, and so does a
//! template with no chart above it. A template whose notice is suppressed in it (a
//! `# taintlint: ignore` comment) or ignored for its path (`per-file-ignores`) is left as it
//! is, so the chart's notice counts only the templates that would have been reported; the
//! chart's own notice goes through the same suppressions, ignores and baseline as any finding
//! of its `Chart.yaml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::file::FileReport;
use super::options::LintOptions;
use crate::diagnostic::Finding;
use crate::load::{self, SourceFile, Span};
use crate::rules;

/// How far up a template's path its `Chart.yaml` is looked for (a chart's templates may sit
/// in folders of `templates/`).
const MAX_LEVELS: usize = 16;

/// The chart folders of a run and how many template files of each were not linted.
pub(super) type Charts = BTreeMap<PathBuf, usize>;

/// The chart a file belongs to: the nearest folder up its path as it was given (a relative
/// path is not followed above the working folder) that holds a `Chart.yaml`.
fn chart_of(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .take(MAX_LEVELS)
        .find(|dir| dir.join("Chart.yaml").is_file())
        .map(Path::to_path_buf)
}

/// When `report` is that of a Helm template on disk at `path`, inside a chart, with its notice
/// reported and neither suppressed in the file nor ignored for it: takes the notice out and
/// gives the chart's folder.
pub(super) fn fold(report: &mut FileReport, path: &Path, opts: &LintOptions) -> Option<PathBuf> {
    if !report.helm_template {
        return None;
    }
    let meta = &rules::TEMPLATE_NOT_RENDERED;
    let i = report.findings.iter().position(|f| f.rule == meta.name)?;
    let notice = &report.findings[i];
    if crate::suppress::suppresses(&report.suppressions, notice)
        || opts.ignored(notice.rule, &notice.file)
    {
        return None;
    }
    let chart = chart_of(path)?;
    report.findings.remove(i);
    Some(chart)
}

/// One notice per chart, at its `Chart.yaml`.
pub(super) fn notices(charts: Charts) -> Vec<Finding> {
    charts
        .into_iter()
        .map(|(dir, templates)| notice(&dir, templates))
        .collect()
}

fn notice(dir: &Path, templates: usize) -> Finding {
    let meta = &rules::TEMPLATE_NOT_RENDERED;
    let path = dir.join("Chart.yaml");
    let name = load::display_path(&path);
    let shown = match load::display_path(dir) {
        d if d.is_empty() => ".".to_string(),
        d => d,
    };
    let folder = shell_word(&shown);
    let (source, chart, span) = match load::read_file(&path, CHART_FILE) {
        Ok(text) => {
            let (chart, span) = chart_name(&text);
            (Some(SourceFile::new(name.clone(), text)), chart, span)
        }
        Err(_) => (None, None, Span::default()),
    };
    let what = chart.map_or_else(
        || "this Helm chart".to_string(),
        |n| format!("Helm chart `{n}`"),
    );
    let files = if templates == 1 {
        "its template file is".to_string()
    } else {
        format!("its {templates} template files are")
    };
    let mut f = meta
        .finding(format!(
            "{what} is not YAML until rendered: {files} not linted"
        ))
        .help(format!(
            "render the chart and lint its output: `helm template {folder} | taintlint check - --source-root {folder}`"
        ));
    match source {
        Some(source) => f = f.primary(span, "chart").in_file(&source),
        None => f.file = name.into(),
    }
    f
}

/// The most a `Chart.yaml` is read of.
const CHART_FILE: u64 = 1 << 20;

/// The chart's `name` and its value's span, from `Chart.yaml`; else the first line.
fn chart_name(text: &str) -> (Option<String>, Span) {
    let stream = load::yaml::parse(text, load::yaml::Limits::default());
    let name = stream
        .documents
        .first()
        .and_then(|d| d.root.as_ref())
        .and_then(|root| root.get("name"))
        .and_then(|n| Some((n.text()?.to_string(), n.span)))
        .filter(|(n, _)| !n.is_empty());
    match name {
        Some((n, span)) => (Some(n), span),
        None => {
            let end = text.find(['\n', '\r']).unwrap_or(text.len());
            (None, Span::new(0, end))
        }
    }
}

/// A path as a shell word: as it is when it needs no quoting, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | '+' | ':' | '@'));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Merges a file's chart into the run's tally.
pub(super) fn add(charts: &mut Charts, chart: PathBuf) {
    *charts.entry(chart).or_default() += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_names_and_shell_words() {
        let (n, span) = chart_name("apiVersion: v2\nname: web # the app\nversion: 1.0.0\n");
        assert_eq!((n.as_deref(), span), (Some("web"), Span::new(21, 24)));
        let (n, span) = chart_name("apiVersion: v2\n");
        assert_eq!((n, span), (None, Span::new(0, 14)));
        assert_eq!(shell_word("charts/web-1.0"), "charts/web-1.0");
        assert_eq!(shell_word("my charts/it's"), r"'my charts/it'\''s'");
    }

    #[test]
    fn a_chart_is_the_nearest_folder_with_a_chart_yaml() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        let sub = root.join("web/charts/db/templates/nested");
        std::fs::create_dir_all(&sub).expect("dirs");
        std::fs::create_dir_all(root.join("web/templates")).expect("dirs");
        std::fs::write(root.join("web/Chart.yaml"), "name: web\n").expect("write");
        std::fs::write(root.join("web/charts/db/Chart.yaml"), "name: db\n").expect("write");
        assert_eq!(
            chart_of(&root.join("web/templates/x.yaml")),
            Some(root.join("web"))
        );
        assert_eq!(
            chart_of(&sub.join("x.yaml")),
            Some(root.join("web/charts/db"))
        );
        assert_eq!(chart_of(&root.join("other/x.yaml")), None);
        assert!(notice(&root.join("web"), 3).message.contains(
            "Helm chart `web` is not YAML until rendered: its 3 template files are not linted"
        ));
    }
}
