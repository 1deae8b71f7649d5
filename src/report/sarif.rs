//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF consumers — real
//! regions, rule metadata with help links, related locations and fingerprints that survive
//! unrelated edits (rule + file + object + field path).

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::diagnostic::{Finding, Fix, Severity};
use crate::diagnostic::{fingerprint, uri};
use crate::rules::{RULES, RuleMeta};

use super::{FindingSource, Summary, rule_url};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The first paragraph under `## What it does` of a rule page.
pub fn full_description(meta: &RuleMeta) -> String {
    let docs = meta.docs;
    let Some(start) = docs.find("## What it does") else {
        return meta.summary.to_string();
    };
    let body = &docs[start + "## What it does".len()..];
    let para: Vec<&str> = body
        .trim_start()
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    if para.is_empty() {
        meta.summary.to_string()
    } else {
        para.join(" ")
    }
}

fn location(f: &Finding) -> Value {
    let mut phys = json!({
        "artifactLocation": { "uri": uri(&f.file), "uriBaseId": "%SRCROOT%" }
    });
    if f.primary.is_some() && f.source.is_some() {
        let (start, end) = f.range();
        phys["region"] = json!({
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column.max(if end.line == start.line { start.column + 1 } else { 1 }),
        });
    }
    let mut loc = json!({ "physicalLocation": phys });
    if let Some(o) = &f.object {
        let mut name = format!("{}/", o.kind);
        if let Some(ns) = &o.namespace {
            name.push_str(ns);
            name.push('/');
        }
        name.push_str(o.name.as_deref().unwrap_or("<unnamed>"));
        if let Some(field) = &f.field {
            name.push('.');
            name.push_str(field);
        }
        loc["logicalLocations"] = json!([{ "fullyQualifiedName": name, "kind": "object" }]);
    }
    loc
}

/// A SARIF `fix`: the edits as replacements in the finding's file.
fn sarif_fix(f: &Finding, fix: &Fix) -> Value {
    let replacements: Vec<Value> = fix
        .edits
        .iter()
        .map(|e| {
            let mut r = json!({
                "deletedRegion": {
                    "startLine": e.start.line,
                    "startColumn": e.start.column,
                    "endLine": e.end.line,
                    "endColumn": e.end.column,
                }
            });
            if !e.replacement.is_empty() {
                r["insertedContent"] = json!({ "text": e.replacement });
            }
            r
        })
        .collect();
    json!({
        "description": {
            "text": format!("{} ({} fix)", fix.title, fix.applicability.as_str())
        },
        "artifactChanges": [{
            "artifactLocation": { "uri": uri(&f.file), "uriBaseId": "%SRCROOT%" },
            "replacements": replacements,
        }],
    })
}

pub fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.meta.name,
                "name": r.meta.name,
                "shortDescription": { "text": r.meta.summary },
                "fullDescription": { "text": full_description(r.meta) },
                "helpUri": rule_url(r.meta.name),
                "help": { "text": format!("{} — see {}", r.meta.summary, rule_url(r.meta.name)) },
                "defaultConfiguration": {
                    "level": level(r.meta.severity),
                    "enabled": r.meta.enabled,
                },
                "properties": { "category": r.meta.category.as_str() },
            })
        })
        .collect();
    // Field order is the alphabetical order `json!` objects are written in.
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        #[serde(rename = "$schema")]
        schema: &'static str,
        runs: [Run<'a>; 1],
        version: &'static str,
    }
    #[derive(serde::Serialize)]
    struct Run<'a> {
        #[serde(rename = "columnKind")]
        column_kind: &'static str,
        /// Only to say that no file was linted (a run is no pass then).
        #[serde(skip_serializing_if = "Option::is_none")]
        invocations: Option<Value>,
        results: Results<'a>,
        tool: Value,
    }
    let doc = Doc {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        runs: [Run {
            column_kind: "unicodeCodePoints",
            invocations: (summary.files == 0).then(|| {
                json!([{
                    "executionSuccessful": true,
                    "toolExecutionNotifications": [{
                        "level": "warning",
                        "message": { "text": super::NO_FILES },
                    }],
                }])
            }),
            results: Results(findings),
            tool: json!({
                "driver": {
                    "name": "taintlint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            }),
        }],
        version: "2.1.0",
    };
    super::safe_json::write(&mut *out, &doc)?;
    writeln!(out)
}

/// The results, each built as it is written (a run with many findings does not hold them
/// all as JSON values).
struct Results<'a>(&'a dyn FindingSource);

impl serde::Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::serialize_seq(self.0, serializer, |seq, f| {
            serde::ser::SerializeSeq::serialize_element(seq, &result(f))
        })
    }
}

fn result(f: &Finding) -> Value {
    let mut text = f.message.to_string();
    super::push_help_and_api(&mut text, f);
    let mut result = json!({
        "ruleId": f.rule,
        "ruleIndex": RULES.iter().position(|r| r.meta.name == f.rule).unwrap_or(0),
        "level": level(f.severity),
        "message": { "text": text },
        "locations": [location(f)],
        "partialFingerprints": { "taintlint/v1": fingerprint(f) },
    });
    if let Some(cluster) = &f.cluster {
        result["properties"] = json!({ "cluster": &**cluster });
    }
    let related: Vec<Value> = f
                .related
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let start = r.source.position(r.span.start);
                    let end = r.source.position(r.span.end.max(r.span.start));
                    json!({
                        "id": i + 1,
                        "message": { "text": r.message },
                        "physicalLocation": {
                            "artifactLocation": { "uri": uri(&r.source.name), "uriBaseId": "%SRCROOT%" },
                            "region": {
                                "startLine": start.line,
                                "startColumn": start.column,
                                "endLine": end.line,
                                "endColumn": end.column.max(if end.line == start.line { start.column + 1 } else { 1 }),
                            }
                        }
                    })
                })
                .collect();
    if !related.is_empty() {
        result["relatedLocations"] = Value::Array(related);
    }
    if let Some(fix) = &f.fix {
        result["fixes"] = json!([sarif_fix(f, fix)]);
    }
    result
}
