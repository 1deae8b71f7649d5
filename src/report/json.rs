//! `--format json`: the stable contract documented in docs/output.md. Fields are only ever
//! added, never changed or removed.

use std::io::{self, Write};

use crate::diagnostic::{Finding, ObjectId};

use super::{FindingSource, Summary};

/// Bytes gathered before they are written.
const BLOCK: usize = 64 << 10;

/// Writes the report: the bytes serde_json's pretty printer writes for the document the
/// `tests` below define with serde (`Output`, checked against it), written by hand — a run
/// of half a million findings spent most of its output time in the serializer's dispatch and
/// in building each finding's value. Strings go through `safe_json::string`, the escaping of
/// every JSON output.
pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(BLOCK + 4096);
    buf.extend_from_slice(b"{\n  \"version\": 1,\n  \"findings\": [");
    let mut first = true;
    // The last rule asked about and its answer (`judged_by_cluster` looks the rule up).
    let mut cluster_rule: Option<(&'static str, bool)> = None;
    findings.each(&mut |f| {
        buf.extend_from_slice(if first { b"\n    " } else { b",\n    " });
        first = false;
        let judged = match cluster_rule {
            Some((rule, judged)) if std::ptr::eq(rule, f.rule) => judged,
            _ => {
                let judged = super::judged_by_cluster(f);
                cluster_rule = Some((f.rule, judged));
                judged
            }
        };
        finding(&mut buf, f, judged);
        if buf.len() >= BLOCK {
            out.write_all(&buf)?;
            buf.clear();
        }
        Ok(())
    })?;
    buf.extend_from_slice(if first { b"]" } else { b"\n  ]" });
    buf.extend_from_slice(b",\n  \"summary\": ");
    // The summary as serde writes it, one level in (its strings have no line breaks: they
    // are escaped).
    let mut summary_json = Vec::new();
    super::safe_json::write(&mut summary_json, summary)?;
    for (i, line) in summary_json.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            buf.extend_from_slice(b"\n  ");
        }
        buf.extend_from_slice(line);
    }
    buf.extend_from_slice(b"\n}\n");
    out.write_all(&buf)
}

/// A JSON object being written at some depth: `{`, its members, `}` as serde_json's pretty
/// printer lays them out (two spaces a level).
struct Object<'a> {
    buf: &'a mut Vec<u8>,
    /// The members' depth.
    depth: usize,
    empty: bool,
}

impl<'a> Object<'a> {
    fn open(buf: &'a mut Vec<u8>, depth: usize) -> Self {
        buf.push(b'{');
        Object {
            buf,
            depth,
            empty: true,
        }
    }

    /// Starts a member: the buffer then takes its value.
    fn key(&mut self, name: &str) -> &mut Vec<u8> {
        self.buf
            .extend_from_slice(if self.empty { b"\n" } else { b",\n" });
        self.empty = false;
        indent(self.buf, self.depth);
        self.buf.push(b'"');
        self.buf.extend_from_slice(name.as_bytes());
        self.buf.extend_from_slice(b"\": ");
        self.buf
    }

    fn str(&mut self, name: &str, value: &str) {
        super::safe_json::string(self.key(name), value);
    }

    fn opt_str(&mut self, name: &str, value: Option<&str>) {
        match value {
            Some(v) => self.str(name, v),
            None => self.key(name).extend_from_slice(b"null"),
        }
    }

    fn num(&mut self, name: &str, mut value: usize) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            // A digit: below 10.
            digits[at] = b'0' + (value % 10) as u8;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        self.key(name).extend_from_slice(&digits[at..]);
    }

    fn close(self) {
        if !self.empty {
            self.buf.push(b'\n');
            indent(self.buf, self.depth - 1);
        }
        self.buf.push(b'}');
    }
}

fn indent(buf: &mut Vec<u8>, depth: usize) {
    for _ in 0..depth {
        buf.extend_from_slice(b"  ");
    }
}

/// Writes each item of `items` as an element of an array whose elements are at `depth`.
fn array<T>(buf: &mut Vec<u8>, depth: usize, items: &[T], mut item: impl FnMut(&mut Vec<u8>, &T)) {
    buf.push(b'[');
    for (i, x) in items.iter().enumerate() {
        buf.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        indent(buf, depth);
        item(buf, x);
    }
    if !items.is_empty() {
        buf.push(b'\n');
        indent(buf, depth - 1);
    }
    buf.push(b']');
}

/// One finding, an element of the `findings` array (its members at depth 3).
fn finding(buf: &mut Vec<u8>, f: &Finding, judged_by_cluster: bool) {
    let (start, end) = f.range();
    let mut o = Object::open(buf, 3);
    o.str("rule", f.rule);
    o.str("severity", f.severity.as_str());
    o.str("message", &f.message);
    o.opt_str("help", f.help.as_deref());
    o.str("file", &f.file);
    o.num("line", start.line);
    o.num("column", start.column);
    o.num("end_line", end.line);
    o.num("end_column", end.column);
    match f.object.as_deref() {
        Some(id) => object_id(o.key("object"), id),
        None => o.key("object").extend_from_slice(b"null"),
    }
    o.opt_str("field", f.field.as_deref());
    o.opt_str("api_error", f.api_error.as_deref());
    array(o.key("related"), 4, &f.related, |buf, r| {
        let p = r.source.position(r.span.start);
        let mut e = Object::open(buf, 5);
        e.str("file", &r.source.name);
        e.num("line", p.line);
        e.num("column", p.column);
        e.str("message", &r.message);
        e.close();
    });
    match &f.fix {
        Some(fix) => {
            let mut x = Object::open(o.key("fix"), 4);
            x.str("applicability", fix.applicability.as_str());
            x.str("title", &fix.title);
            array(x.key("edits"), 5, &fix.edits, |buf, edit| {
                let mut e = Object::open(buf, 6);
                e.num("line", edit.start.line);
                e.num("column", edit.start.column);
                e.num("end_line", edit.end.line);
                e.num("end_column", edit.end.column);
                e.str("replacement", &edit.replacement);
                e.close();
            });
            x.close();
        }
        None => o.key("fix").extend_from_slice(b"null"),
    }
    // For cross-reference findings: the configured cluster they were judged in, `null` for
    // the default one. Absent on other findings.
    if judged_by_cluster {
        o.opt_str("cluster", f.cluster.as_deref());
    }
    o.close();
}

/// The object a finding is about (members at depth 4).
fn object_id(buf: &mut Vec<u8>, id: &ObjectId) {
    let mut o = Object::open(buf, 4);
    o.str("apiVersion", &id.api_version);
    o.str("kind", &id.kind);
    o.opt_str("namespace", id.namespace.as_deref());
    o.opt_str("name", id.name.as_deref());
    o.close();
}

/// The document as serde writes it: the definition of the format, and the oracle the
/// hand-written [`write`] is checked against.
#[cfg(test)]
mod tests {
    use std::io::{self, Write};

    use serde::Serialize;

    use super::super::{FindingSource, Summary};
    use crate::diagnostic::{Finding, ObjectId};

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
            super::super::serialize_seq(self.0, serializer, |seq, f| {
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

    fn reference(
        findings: &dyn FindingSource,
        summary: &Summary,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let doc = Output {
            version: 1,
            findings: Findings(findings),
            summary,
        };
        super::super::safe_json::write(&mut *out, &doc)?;
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
            cluster: super::super::judged_by_cluster(f).then_some(f.cluster.as_deref()),
        }
    }

    /// Findings with every member present and absent, hostile text in every string,
    /// several related places and edits, and a cluster on a cross-reference rule.
    fn findings() -> Vec<Finding> {
        use crate::diagnostic::{Edit, Fix, Related, Severity};
        use crate::load::{SourceFile, Span};
        use std::sync::Arc;
        let text: String = (0..30).map(|i| format!("k{i}: véé\n")).collect();
        let source = SourceFile::new("dir/a\u{202e}.yaml", text);
        let other = SourceFile::new("nodes\".yaml", "a: b\nc: d\n".to_string());
        let mut all = Vec::new();
        let hostile = crate::util::text::HOSTILE;
        for (i, h) in hostile.iter().enumerate() {
            let rule = if i % 3 == 0 {
                "unschedulable-workload"
            } else {
                "shadowed-toleration"
            };
            let mut f = Finding::new(rule, Severity::Warning, format!("m{h}é\"\\"))
                .primary(Span::new(i % 40, i % 40 + 3), "x")
                .in_file(&source);
            if i % 2 == 0 {
                f = f.help(format!("help {h}"));
                f.field = Some(format!("spec.tolerations[{i}]{h}"));
                f.object = Some(Arc::new(ObjectId {
                    api_version: "v1".into(),
                    kind: format!("Pod{h}"),
                    namespace: (i % 4 == 0).then(|| format!("ns{h}")),
                    name: (i % 8 != 0).then(|| "n".to_string()),
                }));
            }
            if i % 5 == 1 {
                f.api_error = Some(format!("api {h}"));
            }
            for r in 0..i % 3 {
                f.related.push(Related {
                    source: if r == 0 {
                        Arc::clone(&other)
                    } else {
                        Arc::clone(&source)
                    },
                    span: Span::new(r * 5, r * 5 + 1),
                    message: format!("related {r}{h}"),
                });
            }
            if i % 4 != 3 {
                let edits = (0..i % 3)
                    .map(|e| Edit::new(&source, Span::new(e * 7, e * 7 + 2), format!("r{h}")))
                    .collect();
                f.fix = Some(if i % 2 == 0 {
                    Fix::safe(format!("t{h}"), edits)
                } else {
                    Fix::unsafe_("remove it", edits)
                });
            }
            if i % 6 == 0 {
                f.cluster = Some(format!("c{h}").into());
            }
            all.push(f);
        }
        all
    }

    #[test]
    fn hand_written_equals_serde() {
        let summary = Summary {
            files: 3,
            documents: 12,
            objects: 7,
            errors: 1,
            warnings: 200,
            infos: 0,
            baselined: 4,
        };
        let all = findings();
        for findings in [&all[..0], &all[..1], &all[..]] {
            let findings: Vec<Finding> = findings.to_vec();
            let mut mine = Vec::new();
            super::write(&findings, &summary, &mut mine).expect("write");
            let mut theirs = Vec::new();
            reference(&findings, &summary, &mut theirs).expect("write");
            assert_eq!(
                String::from_utf8_lossy(&mine),
                String::from_utf8_lossy(&theirs)
            );
        }
    }
}
