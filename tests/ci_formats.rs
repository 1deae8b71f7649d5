//! The formats other CI systems read — JUnit XML, GitLab Code Quality, reviewdog's rdjson —
//! checked against their consumers' documented schemas (testdata/schemas), with the same
//! findings at the same places as `--format json`, and with hostile text (markup, control
//! characters, non-ASCII before a column) escaped and placed correctly.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

use serde_json::Value;

mod common;

fn schema(name: &str) -> (boon::Schemas, boon::SchemaIndex) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/schemas")
        .join(name);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let url = format!("https://taintlint.test/{name}");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource(&url, doc).unwrap();
    let idx = compiler.compile(&url, &mut schemas).unwrap();
    (schemas, idx)
}

fn validate(name: &str, doc: &Value) {
    let (schemas, idx) = schema(name);
    if let Err(e) = schemas.validate(doc, idx) {
        panic!("not valid against {name}: {e:#}\n{doc:#}");
    }
}

/// A document the schema must reject: the schemas are not so loose that anything passes.
fn rejects(name: &str, doc: &Value) {
    let (schemas, idx) = schema(name);
    assert!(
        schemas.validate(doc, idx).is_err(),
        "{name} accepted {doc:#}"
    );
}

/// JUnit XML parsed by a conforming XML 1.0 parser (Python's expat, which refuses the
/// control characters XML forbids and any markup error) into `{tag, attrs, text, children}`.
fn junit_tree(xml: &str) -> Value {
    const CONVERT: &str = r#"
import json, sys, xml.etree.ElementTree as ET
def conv(e):
    d = {"tag": e.tag, "attrs": dict(e.attrib)}
    if e.text and e.text.strip():
        d["text"] = e.text
    kids = [conv(c) for c in e]
    if kids:
        d["children"] = kids
    return d
print(json.dumps(conv(ET.parse(sys.stdin.buffer).getroot())))
"#;
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args(["-c", CONVERT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not well-formed XML: {}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let r = common::cli::taintlint(args)
        .in_dir(dir)
        .env("NO_COLOR", "1")
        .run();
    (r.code, r.stdout, r.stderr)
}

/// Every format of one run over `paths` in `dir`: JSON's findings and each CI format parsed.
struct Reports {
    json: Vec<Value>,
    sarif: Value,
    junit: Value,
    junit_xml: String,
    gitlab: Value,
    rdjson: Value,
}

fn reports(dir: &Path, paths: &[&str]) -> Reports {
    let mut out = Vec::new();
    for format in ["json", "sarif", "junit", "gitlab", "rdjson"] {
        let mut args = vec!["check", "--format", format];
        args.extend(paths);
        let (code, stdout, stderr) = run(dir, &args);
        assert!(code == 0 || code == 1, "{format}: {code}: {stderr}");
        out.push(stdout);
    }
    let json: Value = serde_json::from_str(&out[0]).unwrap();
    Reports {
        json: json["findings"].as_array().unwrap().clone(),
        sarif: serde_json::from_str(&out[1]).unwrap(),
        junit: junit_tree(&out[2]),
        junit_xml: out[2].clone(),
        gitlab: serde_json::from_str(&out[3]).unwrap(),
        rdjson: serde_json::from_str(&out[4]).unwrap(),
    }
}

/// The UTF-8 byte column of a character column on a line of `text`.
fn byte_column(text: &str, line: u64, column: u64) -> u64 {
    let l = text.split('\n').nth(line as usize - 1).unwrap();
    let bytes: usize = l
        .chars()
        .take(column as usize - 1)
        .map(char::len_utf8)
        .sum();
    bytes as u64 + 1
}

/// Checks that every CI format holds JSON's findings, in JSON's order, at JSON's places.
fn same_findings_and_places(r: &Reports, dir: &Path) {
    validate("junit.schema.json", &r.junit);
    validate("gitlab-codequality.schema.json", &r.gitlab);
    validate("reviewdog-rdjson.schema.json", &r.rdjson);
    assert!(!r.json.is_empty());

    let gitlab = r.gitlab.as_array().unwrap();
    let diags = r.rdjson["diagnostics"].as_array().unwrap();
    let sarif = r.sarif["runs"][0]["results"].as_array().unwrap();
    let cases: Vec<&Value> = r.junit["children"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["children"].as_array().unwrap())
        .filter(|c| c["tag"] == "testcase")
        .collect();
    assert_eq!(gitlab.len(), r.json.len());
    assert_eq!(diags.len(), r.json.len());
    assert_eq!(cases.len(), r.json.len());
    assert_eq!(
        r.junit["attrs"]["tests"].as_str().unwrap(),
        r.json.len().to_string()
    );
    for (i, f) in r.json.iter().enumerate() {
        let file = f["file"].as_str().unwrap();
        let rule = f["rule"].as_str().unwrap();
        let (line, column) = (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap());
        let message = f["message"].as_str().unwrap();

        let g = &gitlab[i];
        assert_eq!(g["check_name"], rule);
        assert_eq!(g["location"]["path"], file.trim_start_matches("./"));
        assert_eq!(g["location"]["lines"]["begin"], line);
        assert_eq!(g["location"]["lines"]["end"], f["end_line"]);
        assert!(g["description"].as_str().unwrap().starts_with(message));
        let fp = sarif[i]["partialFingerprints"]["taintlint/v1"]
            .as_str()
            .unwrap();
        assert!(g["fingerprint"].as_str().unwrap().starts_with(fp));
        let want = match (f["severity"].as_str().unwrap(), f["api_error"].is_null()) {
            ("error", false) => "critical",
            ("error", true) => "major",
            ("warning", _) => "minor",
            _ => "info",
        };
        assert_eq!(g["severity"], want);

        let d = &diags[i];
        assert_eq!(d["code"]["value"], rule);
        assert_eq!(d["location"]["path"], file);
        assert_eq!(
            d["severity"],
            f["severity"].as_str().unwrap().to_uppercase()
        );
        assert!(d["message"].as_str().unwrap().starts_with(message));
        let start = &d["location"]["range"]["start"];
        let end = &d["location"]["range"]["end"];
        assert_eq!(start["line"], line);
        assert_eq!(end["line"], f["end_line"]);
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(start["column"], byte_column(&text, line, column), "{d:#}");
        let end_col = byte_column(
            &text,
            f["end_line"].as_u64().unwrap(),
            f["end_column"].as_u64().unwrap(),
        );
        assert_eq!(end["column"], end_col, "{d:#}");
        // Only the safe fixes are suggestions, one per edit.
        let want = match f["fix"]["applicability"].as_str() {
            Some("safe") => f["fix"]["edits"].as_array().unwrap().len(),
            _ => 0,
        };
        let got = d["suggestions"].as_array().map_or(0, Vec::len);
        assert_eq!(got, want, "{d:#}");

        let c = cases[i];
        let stem = match file.rsplit_once('.') {
            Some((stem, _)) if !stem.ends_with('/') && !stem.is_empty() => stem,
            _ => file,
        };
        assert_eq!(c["attrs"]["classname"], stem);
        assert_eq!(c["attrs"]["file"], file);
        assert_eq!(c["attrs"]["line"], line.to_string());
        assert_eq!(
            c["attrs"]["name"],
            format!("{rule} at {file}:{line}:{column}")
        );
        let failure = &c["children"][0];
        assert_eq!(failure["tag"], "failure");
        assert_eq!(failure["attrs"]["type"], f["severity"]);
        // What the XML parser reads back is the message, with the controls XML cannot hold
        // shown as `\u{…}`.
        let shown: String = message
            .chars()
            .map(|c| match c {
                '\t' | '\n' | '\r' => c.to_string(),
                c if (c as u32) < 0x20 => format!("\\u{{{:X}}}", c as u32),
                c => c.to_string(),
            })
            .collect();
        assert_eq!(failure["attrs"]["message"], shown);
    }
}

#[test]
fn ci_formats_hold_the_examples_findings() {
    let root = common::cli::root();
    let r = reports(&root, &["testdata/examples"]);
    same_findings_and_places(&r, &root);
    insta::assert_snapshot!("junit_examples", r.junit_xml);
    insta::assert_snapshot!(
        "gitlab_examples",
        serde_json::to_string_pretty(&r.gitlab).unwrap()
    );
    insta::assert_snapshot!(
        "rdjson_examples",
        serde_json::to_string_pretty(&r.rdjson).unwrap()
    );
}

/// Markup, terminal escapes, a BEL and non-ASCII text in names, keys and values (and in the
/// file's name): every format still parses, says the same, and reviewdog's byte columns
/// count the UTF-8 bytes before them.
const HOSTILE: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: \"p<&>\\\"x]]>\\u001b]0;t\\u0007\"}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations: [{key: \"\u{e9}<b>&\\u001b[31m\", operator: Exists, value: \"\u{fc}\\u0001\"}, {key: k, operator: exists}]\n";

#[test]
fn hostile_text_is_escaped_and_placed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a&b <c>'\".yaml"), HOSTILE).unwrap();
    let r = reports(dir.path(), &["."]);
    same_findings_and_places(&r, dir.path());
    assert!(
        !r.junit_xml
            .bytes()
            .any(|b| b < 0x20 && !matches!(b, b'\n' | b'\t')),
        "raw control bytes in the XML"
    );
    // The rdjson suggestions, applied to the file's bytes at their byte columns, make what
    // `--fix` makes (these fixes are all safe and do not overlap).
    let mut text = HOSTILE.to_string();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(HOSTILE.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        starts[p["line"].as_u64().unwrap() as usize - 1] + p["column"].as_u64().unwrap() as usize
            - 1
    };
    let mut edits: Vec<(usize, usize, String)> = r.rdjson["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["suggestions"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            (
                offset(&s["range"]["start"]),
                offset(&s["range"]["end"]),
                s["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(edits.len(), 2, "{:#}", r.rdjson);
    edits.sort();
    for (start, end, replacement) in edits.into_iter().rev() {
        text.replace_range(start..end, &replacement);
    }
    let (code, _, err) = run(dir.path(), &["check", "--fix", "--fail-on", "never", "."]);
    assert_eq!(code, 0, "{err}");
    let fixed = std::fs::read_to_string(dir.path().join("a&b <c>'\".yaml")).unwrap();
    assert_eq!(text, fixed);
    assert_ne!(fixed, HOSTILE);
}

/// GitLab shows one issue per fingerprint: two findings that only their line tells apart
/// (two unnamed Pods with the same mistake) get the SARIF fingerprint and a numbered one.
#[test]
fn gitlab_fingerprints_are_unique_and_stable() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a, image: a}]\n  tolerations: [{key: k, operator: Exists, value: v, effect: NoSchedule}]\n";
    std::fs::write(dir.path().join("p.yaml"), format!("{doc}---\n{doc}")).unwrap();
    let gitlab = |dir: &Path| -> Vec<String> {
        let (_, out, _) = run(dir, &["check", "--format", "gitlab", "p.yaml"]);
        let v: Value = serde_json::from_str(&out).unwrap();
        validate("gitlab-codequality.schema.json", &v);
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap().to_string())
            .collect()
    };
    let before = gitlab(dir.path());
    let mut unique = before.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), before.len(), "{before:?}");
    let (_, sarif, _) = run(dir.path(), &["check", "--format", "sarif", "p.yaml"]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let first = sarif["runs"][0]["results"][0]["partialFingerprints"]["taintlint/v1"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(before.contains(&first));
    assert!(before.contains(&format!("{first}-2")), "{before:?}");
    // Lines moved by an unrelated edit: the same fingerprints.
    std::fs::write(
        dir.path().join("p.yaml"),
        format!("# a comment\n\n{doc}---\n{doc}"),
    )
    .unwrap();
    assert_eq!(gitlab(dir.path()), before);
}

#[test]
fn schemas_reject_what_their_consumers_refuse() {
    // reviewdog's protojson refuses unknown fields; GitLab needs every documented field.
    rejects(
        "reviewdog-rdjson.schema.json",
        &serde_json::json!({"diagnostics": [{"message": "m", "location": {"path": "a"}, "related": []}]}),
    );
    rejects(
        "reviewdog-rdjson.schema.json",
        &serde_json::json!({"diagnostics": [{"message": "m", "location": {"path": "a", "range": {"start": {"line": 0}}}}]}),
    );
    rejects(
        "gitlab-codequality.schema.json",
        &serde_json::json!([{"description": "d", "check_name": "c", "severity": "minor", "location": {"path": "a", "lines": {"begin": 1}}}]),
    );
    rejects(
        "gitlab-codequality.schema.json",
        &serde_json::json!([{"description": "d", "check_name": "c", "fingerprint": "f", "severity": "error", "location": {"path": "a", "lines": {"begin": 1}}}]),
    );
    rejects(
        "junit.schema.json",
        &serde_json::json!({"tag": "testsuites", "attrs": {}, "children": [{"tag": "testcase", "attrs": {"name": "x", "classname": "y"}}]}),
    );
}

/// The `--format` row of the flags (docs/usage.md) and the table of formats (docs/output.md)
/// name every format there is, and the README's CI section names every CI format.
#[test]
fn docs_list_every_format() {
    use clap::ValueEnum;
    let read = |p: &str| std::fs::read_to_string(common::cli::root().join(p)).unwrap();
    let usage = read("docs/usage.md");
    let output = read("docs/output.md");
    let readme = read("README.md");
    let flag_row = usage
        .lines()
        .find(|l| l.starts_with("| `--format FORMAT` |"))
        .expect("docs/usage.md has the `--format FORMAT` row of the flags");
    for f in taintlint::report::Format::value_variants() {
        let name = f.to_possible_value().unwrap().get_name().to_string();
        assert!(
            flag_row.contains(&format!("`{name}`")),
            "--format row: {name}"
        );
        assert!(
            output.contains(&format!("\n| `{name}` | ")),
            "docs/output.md's table of formats: {name}"
        );
        if !["human", "concise"].contains(&name.as_str()) {
            assert!(
                readme.contains(&format!("`{name}`")),
                "the README's CI section: {name}"
            );
        }
    }
}

/// Rule links (human headers, SARIF `helpUri`, Markdown, GitLab's and reviewdog's) name a page
/// that exists: `rules/<name>.md` of the repository at this version's tag.
#[test]
fn rule_links_name_pages_in_the_repository() {
    let repo = env!("CARGO_PKG_REPOSITORY");
    let prefix = format!("{repo}/blob/v{}/", env!("CARGO_PKG_VERSION"));
    for rule in taintlint::rules::RULES {
        let url = taintlint::report::rule_url(rule.meta.name);
        let path = url
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{url} is not under {prefix}"));
        assert!(common::cli::root().join(path).is_file(), "{url}: no {path}");
    }
}

/// Rule pages cite upstream sources, not a document outside the repository (issue 32).
#[test]
fn rule_pages_cite_no_document_outside_the_repository() {
    for rule in taintlint::rules::RULES {
        let page = rule.meta.docs;
        // (`§` stays for the YAML spec's sections, which the pages name as such.)
        assert!(
            !page.contains("SEMANTICS"),
            "rules/{}.md cites a section of a document outside the repository",
            rule.meta.name
        );
    }
}
