//! Every output format on the example manifests: snapshots, SARIF validated against the
//! official 2.1.0 schema, GitHub annotation escaping, and `--format`/`--output-file` pairs.

use std::path::Path;

mod common;

fn taintlint(args: &[&str]) -> (i32, String, String) {
    let r = common::cli::taintlint(args).env("NO_COLOR", "1").run();
    (r.code, r.stdout, r.stderr)
}

fn sarif_schema() -> serde_json::Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/schemas/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{} must exist (a copy of the OASIS schema): {e}",
            path.display()
        )
    });
    serde_json::from_str(&text).expect("schema is JSON")
}

fn validate_sarif(doc: &serde_json::Value) {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource(
            "https://taintlint.test/sarif-schema-2.1.0.json",
            sarif_schema(),
        )
        .expect("add schema");
    let idx = compiler
        .compile(
            "https://taintlint.test/sarif-schema-2.1.0.json",
            &mut schemas,
        )
        .expect("compile schema");
    if let Err(e) = schemas.validate(doc, idx) {
        panic!("SARIF output is not valid SARIF 2.1.0: {e:#}");
    }
}

#[test]
fn sarif_is_valid_and_has_real_regions() {
    let (code, out, err) = taintlint(&["check", "testdata/examples", "--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    validate_sarif(&doc);
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), taintlint::rules::RULES.len());
    for r in rules {
        assert!(
            r["helpUri"]
                .as_str()
                .is_some_and(|u| u.ends_with(&format!("/{}.md", r["id"].as_str().unwrap_or("?"))))
        );
        assert!(
            r["fullDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
    }
    let results = run["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for res in results {
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let uri = loc["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(!uri.starts_with('/'), "relative uri: {uri}");
        assert!(loc["region"]["startLine"].as_u64().is_some_and(|l| l >= 1));
        assert!(
            res["partialFingerprints"]["taintlint/v1"]
                .as_str()
                .is_some()
        );
    }
    // The rules array follows the rule pages; the results are what this test pins.
    let pretty = serde_json::to_string_pretty(&run["results"]).expect("json");
    insta::assert_snapshot!("sarif_examples_results", pretty);
}

#[test]
fn sarif_fingerprints_survive_unrelated_edits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n    - {key: a, operator: Exists, value: x}\n";
    let file = dir.path().join("p.yaml");
    std::fs::write(&file, text).expect("write");
    let run = |p: &Path| {
        let out = common::cli::taintlint(&["check", "p.yaml", "--format", "sarif"])
            .in_dir(p)
            .run();
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
        doc["runs"][0]["results"][0]["partialFingerprints"]["taintlint/v1"].clone()
    };
    let before = run(dir.path());
    std::fs::write(&file, format!("# a comment added above\n\n{text}")).expect("write");
    assert_eq!(before, run(dir.path()));
}

#[test]
fn every_format_snapshot() {
    for format in ["concise", "github", "markdown", "json"] {
        let (code, out, err) = taintlint(&["check", "testdata/examples", "--format", format]);
        assert_eq!(code, 1, "{format}: {err}");
        insta::assert_snapshot!(format!("format_{format}"), out);
    }
}

#[test]
fn github_annotations_escape_messages_and_properties() {
    let (_, out, _) = taintlint(&["check", "testdata/examples", "--format", "github"]);
    for line in out.lines() {
        assert!(
            line.starts_with("::error ")
                || line.starts_with("::warning ")
                || line.starts_with("::notice "),
            "{line}"
        );
        let (props, msg) = line
            .split_once("::")
            .map(|(_, rest)| rest.split_once("::").expect("two ::"))
            .expect("command");
        assert!(
            props.contains("file=") && props.contains("title="),
            "{props}"
        );
        assert!(!msg.contains('\n') && !msg.contains('\r'));
        // Issue 39: the place is in the properties, not repeated at the message's start.
        let prop = |k: &str| {
            props
                .split([',', ' '])
                .find_map(|p| p.strip_prefix(&format!("{k}=")))
                .unwrap_or_default()
        };
        let (file, l, c) = (prop("file"), prop("line"), prop("col"));
        assert!(
            !file.is_empty() && !l.is_empty() && !c.is_empty(),
            "{props}"
        );
        assert!(!msg.starts_with(file), "{line}");
        assert!(!msg.contains(&format!("{file}:{l}:{c}")), "{line}");
    }
    assert_eq!(
        taintlint::report::github::escape_data("100%\nx"),
        "100%25%0Ax"
    );
    assert_eq!(
        taintlint::report::github::escape_property("a,b:c"),
        "a%2Cb%3Ac"
    );
}

#[test]
fn several_formats_from_one_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sarif = dir.path().join("out.sarif");
    let md = dir.path().join("summary.md");
    let (code, out, err) = taintlint(&[
        "check",
        "testdata/examples",
        "--format",
        "github",
        "--format",
        "sarif",
        "--output-file",
        sarif.to_str().expect("utf-8 path"),
        "--format",
        "markdown",
        "-o",
        md.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.lines().all(|l| l.starts_with("::")), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif written"))
            .expect("json");
    validate_sarif(&doc);
    assert!(
        std::fs::read_to_string(&md)
            .expect("md written")
            .starts_with("## taintlint")
    );

    let (code, _, err) = taintlint(&[
        "check",
        "testdata/examples",
        "--format",
        "json",
        "--format",
        "sarif",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("stdout"), "{err}");
}

/// The human report hands miette a window of the text starting at the first context line;
/// its line numbers, snippets and merged labels must be those of the whole text: each
/// snippet header names the finding's JSON position, and the snippet shows that line's text,
/// for LF, CRLF and lone-CR files deep into a long file.
#[test]
fn human_snippets_deep_in_a_file_name_the_right_lines() {
    let doc = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: a, image: a}]\n  tolerations:\n    - key: dedicated\n      operator: Exists\n      value: gpu\n      effect: NoSchedule\n    - operator: Exists\n      key: dedicated\n      effect: NoSchedule\n";
    let lf: String = (0..100).map(|_| doc).collect();
    // kubectl cuts a stream at lines that start with `---`, and a file with lone CR line
    // breaks is one line to it (apimachinery's `YAMLReader`): such a file holds one document.
    let tolerations: String = (0..250)
        .map(|i| format!("    - key: dedicated-{i}\n      operator: Exists\n      value: gpu\n      effect: NoSchedule\n"))
        .collect();
    let one = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{{name: a, image: a}}]\n  tolerations:\n{tolerations}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in [
        ("lf.yaml", lf.clone()),
        ("crlf.yaml", lf.replace('\n', "\r\n")),
        ("cr.yaml", one.replace('\n', "\r")),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).expect("write");
        let path = path.to_string_lossy().into_owned();
        let (_, json, _) = taintlint(&["check", "--format", "json", &path]);
        let json: serde_json::Value = serde_json::from_str(&json).expect("json");
        let findings = json["findings"].as_array().expect("findings");
        assert!(findings.len() >= 200, "{name}: {}", findings.len());
        let (_, human, _) = taintlint(&["check", "--format", "human", &path]);
        let headers: Vec<String> = human
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("╭─["))
            .map(|l| l.trim_end_matches(']').to_string())
            .collect();
        let want: Vec<String> = findings
            .iter()
            .map(|f| format!("{path}:{}:{}", f["line"], f["column"]))
            .collect();
        // A lone CR is a line break (YAML 1.2 §5.4), in positions and in snippets alike.
        assert_eq!(headers, want, "{name}");
        // The numbered snippet lines are the file's own lines.
        let lines: Vec<&str> = if name == "cr.yaml" {
            text.split('\r').collect()
        } else {
            lf.lines().collect()
        };
        for l in human.lines() {
            let Some((num, rest)) = l.trim_start().split_once(" │ ") else {
                continue;
            };
            let Ok(n) = num.trim().parse::<usize>() else {
                continue;
            };
            // (after the gutter, miette may draw label lines before the text)
            let want = lines[n - 1].trim();
            assert!(
                rest.trim_end().ends_with(want),
                "{name}: line {n}: {rest:?} vs {want:?}"
            );
        }
    }
}
