//! `--format json`: the stable contract documented in docs/output.md. Fields are only ever
//! added, never changed or removed.

use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostic::{Finding, ObjectId};

use super::{FindingSource, Summary};

#[derive(Serialize)]
struct Output<'a> {
    version: u32,
    findings: Findings<'a>,
    summary: &'a Summary,
}

/// The findings, converted one at a time as they are written (a run with many findings
/// does not hold a second copy of them).
struct Findings<'a>(&'a dyn FindingSource);

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::serialize_seq(self.0, serializer, |seq, f| {
            serde::ser::SerializeSeq::serialize_element(seq, &json_finding(f))
        })
    }
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    object: Option<&'a ObjectId>,
    field: Option<&'a str>,
    api_error: Option<&'a str>,
    related: Vec<JsonRelated<'a>>,
    fix: Option<JsonFix<'a>>,
    /// For cross-reference findings: the configured cluster they were judged in, `null` for
    /// the default one. Absent on other findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<Option<&'a str>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    applicability: &'a str,
    title: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    replacement: &'a str,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: &'a str,
    line: usize,
    column: usize,
    message: &'a str,
}

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    let doc = Output {
        version: 1,
        findings: Findings(findings),
        summary,
    };
    super::safe_json::write(&mut *out, &doc)?;
    writeln!(out)
}

fn json_finding(f: &Finding) -> JsonFinding<'_> {
    let (start, end) = f.range();
    JsonFinding {
        rule: f.rule,
        severity: f.severity.as_str(),
        message: &f.message,
        help: f.help.as_deref(),
        file: &f.file,
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        object: f.object.as_deref(),
        field: f.field.as_deref(),
        api_error: f.api_error.as_deref(),
        related: f
            .related
            .iter()
            .map(|r| {
                let p = r.source.position(r.span.start);
                JsonRelated {
                    file: &r.source.name,
                    line: p.line,
                    column: p.column,
                    message: &r.message,
                }
            })
            .collect(),
        fix: f.fix.as_ref().map(|x| JsonFix {
            applicability: x.applicability.as_str(),
            title: &x.title,
            edits: x
                .edits
                .iter()
                .map(|e| JsonEdit {
                    line: e.start.line,
                    column: e.start.column,
                    end_line: e.end.line,
                    end_column: e.end.column,
                    replacement: &e.replacement,
                })
                .collect(),
        }),
        cluster: super::judged_by_cluster(f).then_some(f.cluster.as_deref()),
    }
}
