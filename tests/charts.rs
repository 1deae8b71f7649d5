//! Helm charts (issue 35): the templates of a chart get one `template-not-rendered` notice, at
//! the chart's `Chart.yaml`, instead of one each (`engine::charts`); a subchart is a chart of
//! its own; a template with no chart above it, and one read from standard input, keep their
//! own notice; `--select`, `--ignore`, suppressions and `per-file-ignores` still decide.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

mod common;

/// `file:line:col rule` and the message of each finding of a concise run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", "--format", "concise"];
    all.extend_from_slice(args);
    let r = common::cli::taintlint(&all).in_dir(dir).run();
    assert!(matches!(r.code, 0 | 1), "{}{}", r.stdout, r.stderr);
    r.stdout
        .lines()
        .filter(|l| l.contains(": info[") || l.contains(": error[") || l.contains(": warning["))
        .map(str::to_string)
        .collect()
}

fn run(args: &[&str]) -> Vec<String> {
    run_in(&common::cli::root(), args)
}

const WEB: &str = "testdata/helm/web/Chart.yaml:2:7: info[template-not-rendered] Helm chart `web` is not YAML until rendered: its 2 template files are not linted";
const CACHE: &str = "testdata/helm/web/charts/cache/Chart.yaml:2:7: info[template-not-rendered] Helm chart `cache` is not YAML until rendered: its template file is not linted";
const LOOSE: &str = "testdata/helm/loose/deployment.yaml:5:9: info[template-not-rendered] this file is a Helm/Go template, not YAML; it was not linted";

#[test]
fn one_notice_per_chart_and_subchart_at_its_chart_yaml() {
    assert_eq!(run(&["--isolated", "testdata/helm"]), [LOOSE, WEB, CACHE]);
    // The chart given directly, or one of its templates.
    assert_eq!(run(&["--isolated", "testdata/helm/web"]), [WEB, CACHE]);
    assert_eq!(
        run(&["--isolated", "testdata/helm/web/templates/service.yaml"]),
        [WEB.replace("its 2 template files are", "its template file is")]
    );
}

/// The notice says how to lint the chart rendered, with the chart's folder as given.
#[test]
fn the_notice_says_how_to_render_the_chart() {
    let help = |dir: &Path, path: &str| {
        let (_, v) = common::cli::taintlint(&["check", "--isolated", "--format", "json", path])
            .in_dir(dir)
            .json();
        v["findings"][0]["help"].as_str().unwrap().to_string()
    };
    assert_eq!(
        help(&common::cli::root(), "testdata/helm/web"),
        "render the chart and lint its output: `helm template testdata/helm/web | taintlint check - --source-root testdata/helm/web`"
    );
    // Run inside the chart: its folder is `.`.
    let cache = common::cli::root().join("testdata/helm/web/charts/cache");
    assert_eq!(
        help(&cache, "."),
        "render the chart and lint its output: `helm template . | taintlint check - --source-root .`"
    );
}

/// Standard input (rendered or not) and the language server keep a template's own notice.
#[test]
fn standard_input_keeps_its_own_notice() {
    let text = std::fs::read("testdata/helm/web/templates/deployment.yaml").unwrap();
    let r = common::cli::taintlint(&["check", "-", "--isolated", "--format", "concise"])
        .stdin(&text)
        .run();
    assert!(
        r.stdout.starts_with(
            "<stdin>:4:9: info[template-not-rendered] this file is a Helm/Go template"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn selection_suppression_and_ignores_still_decide() {
    assert!(
        run(&[
            "--isolated",
            "testdata/helm",
            "--ignore",
            "template-not-rendered"
        ])
        .is_empty()
    );
    assert_eq!(
        run(&[
            "--isolated",
            "testdata/helm",
            "--select",
            "template-not-rendered"
        ]),
        [LOOSE, WEB, CACHE]
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let copy = |from: &str, to: &str| {
        let to = root.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(common::cli::root().join(from), to).unwrap();
    };
    copy("testdata/helm/web/Chart.yaml", "a/Chart.yaml");
    copy(
        "testdata/helm/web/templates/deployment.yaml",
        "a/templates/deployment.yaml",
    );
    copy(
        "testdata/helm/web/templates/service.yaml",
        "a/templates/service.yaml",
    );
    copy("testdata/helm/web/Chart.yaml", "b/Chart.yaml");
    copy(
        "testdata/helm/web/templates/service.yaml",
        "b/templates/service.yaml",
    );
    // A template suppressed in the file keeps its suppression (used, not reported).
    let service = root.join("a/templates/service.yaml");
    let text = std::fs::read_to_string(&service).unwrap();
    std::fs::write(
        &service,
        text.replace(
            "  name: {{ .Release.Name }}-web",
            "  name: {{ .Release.Name }}-web # taintlint: ignore[template-not-rendered] rendered in CI",
        ),
    )
    .unwrap();
    // Chart b's notice is ignored at its Chart.yaml.
    std::fs::write(
        root.join(".taintlint.yaml"),
        "per-file-ignores:\n  \"b/Chart.yaml\": [template-not-rendered]\n",
    )
    .unwrap();
    assert_eq!(
        run_in(root, &["."]),
        [
            "a/Chart.yaml:2:7: info[template-not-rendered] Helm chart `web` is not YAML until rendered: its template file is not linted"
        ]
    );
    // Ignoring the templates' paths leaves no notice for their chart.
    std::fs::write(
        root.join(".taintlint.yaml"),
        "per-file-ignores:\n  \"*/templates/**\": [template-not-rendered]\n",
    )
    .unwrap();
    assert!(run_in(root, &["."]).is_empty());
}
