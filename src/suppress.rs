//! Suppressions: `# taintlint: ignore[rule-a, rule-b] reason` at the end of the flagged line
//! or alone on the line above it, `# taintlint: ignore-file[rule]` for a whole file, and the
//! object annotation `taintlint.dev/ignore: "rule-a,rule-b"` (which survives Helm and
//! Kustomize). A suppression that suppresses nothing is itself reported.

use std::sync::Arc;

use crate::diagnostic::{Finding, Severity};
use crate::load::{SourceFile, Span};
use crate::model::Object;
use crate::rules::{self, RuleSet};

pub const ANNOTATION: &str = "taintlint.dev/ignore";

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Scope {
    /// Findings whose primary span starts on this (1-based) line.
    Line(usize),
    File,
    /// Findings inside this byte range (an object).
    Object(Span),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Suppression {
    #[serde(with = "crate::load::codec::source")]
    pub source: Arc<SourceFile>,
    pub scope: Scope,
    /// Rule names with where each is written; empty = every rule.
    pub rules: Vec<(String, Span)>,
    /// The whole directive, for "suppresses nothing" on a rule-less one.
    pub span: Span,
    pub used: Vec<bool>,
    pub used_any: bool,
}

/// Finds the comment directives in a file's text.
pub fn scan_comments(source: &Arc<SourceFile>) -> Vec<Suppression> {
    let text = &source.text;
    if memchr::memmem::find(text.as_bytes(), b"taintlint:").is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut offset = 0;
    // The lines of the line index (a lone CR breaks a line, as in YAML), with their breaks.
    let starts: Vec<usize> = (1..=source.line_count())
        .filter_map(|l| source.line_start(l))
        .collect();
    let lines: Vec<&str> = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            text.get(s..starts.get(i + 1).copied().unwrap_or(text.len()))
                .unwrap_or("")
        })
        .filter(|l| !l.is_empty())
        .collect();
    // For each line, the first line at or after it that is neither blank nor a comment (a
    // directive alone on its line applies there): one pass from the end, made when the first
    // such directive needs it.
    let mut next_code: Option<Vec<usize>> = None;
    let code_from = |lines: &[&str]| -> Vec<usize> {
        let mut next = vec![lines.len(); lines.len() + 1];
        for i in (0..lines.len()).rev() {
            let t = lines[i].trim();
            next[i] = if !t.is_empty() && !t.starts_with('#') {
                i
            } else {
                next[i + 1]
            };
        }
        next
    };
    for (idx, raw) in lines.iter().enumerate() {
        let line_start = offset;
        offset += raw.len();
        let Some(hash) = find_directive(raw) else {
            continue;
        };
        let after = raw[hash + 1..].trim_start();
        let Some(rest) = after.strip_prefix("taintlint:") else {
            continue;
        };
        let rest_start =
            line_start + raw.len() - raw[hash + 1..].trim_start().len() + "taintlint:".len();
        let rest_trim = rest.trim_start();
        let rest_start = rest_start + (rest.len() - rest_trim.len());
        let (file_wide, body, body_start) = if let Some(b) = rest_trim.strip_prefix("ignore-file") {
            (true, b, rest_start + "ignore-file".len())
        } else if let Some(b) = rest_trim.strip_prefix("ignore") {
            (false, b, rest_start + "ignore".len())
        } else {
            continue;
        };
        let mut rules_list = Vec::new();
        if let Some(inner) = body.strip_prefix('[')
            && let Some(close) = inner.find(']')
        {
            let list = &inner[..close];
            let mut pos = body_start + 1;
            for part in list.split(',') {
                let name = part.trim();
                let lead = part.len() - part.trim_start().len();
                if !name.is_empty() {
                    rules_list.push((
                        name.to_string(),
                        Span::new(pos + lead, pos + lead + name.len()),
                    ));
                }
                pos += part.len() + 1;
            }
        }
        let comment_span = Span::new(line_start + hash, line_start + raw.trim_end().len());
        let alone = raw[..hash].trim().is_empty();
        let scope = if file_wide {
            Scope::File
        } else if alone {
            // The next line that is neither blank nor a comment (1-based); past the end, the
            // line after this one.
            let next = next_code.get_or_insert_with(|| code_from(&lines));
            let target = match next.get(idx + 1) {
                Some(&n) if n < lines.len() => n + 1,
                _ => idx + 2,
            };
            Scope::Line(target)
        } else {
            Scope::Line(idx + 1)
        };
        let n = rules_list.len();
        out.push(Suppression {
            source: Arc::clone(source),
            scope,
            rules: rules_list,
            span: comment_span,
            used: vec![false; n],
            used_any: false,
        });
    }
    out
}

/// The byte index of a `#` that starts a comment holding `taintlint:`.
fn find_directive(line: &str) -> Option<usize> {
    let mut search = 0;
    while let Some(i) = line[search..].find('#') {
        let at = search + i;
        let before_ok = at == 0 || line.as_bytes()[at - 1].is_ascii_whitespace();
        if before_ok && line[at + 1..].trim_start().starts_with("taintlint:") {
            return Some(at);
        }
        search = at + 1;
    }
    None
}

/// The object annotation form.
pub fn scan_annotation(object: &Object<'_>, source: &Arc<SourceFile>) -> Option<Suppression> {
    let (_, value) = object.annotations?.entry(ANNOTATION)?;
    let text = value.text()?;
    let list = text.split(" -- ").next().unwrap_or(text);
    let rules_list = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| (s.to_string(), value.span))
        .collect::<Vec<_>>();
    let n = rules_list.len();
    Some(Suppression {
        source: Arc::clone(source),
        scope: Scope::Object(object.node.span),
        rules: rules_list,
        span: value.span,
        used: vec![false; n],
        used_any: false,
    })
}

fn applies(s: &Suppression, f: &Finding) -> bool {
    let Some(src) = &f.source else { return false };
    if !Arc::ptr_eq(src, &s.source) && src.name != s.source.name {
        return false;
    }
    match &s.scope {
        Scope::File => true,
        Scope::Line(line) => f.range().0.line == *line,
        Scope::Object(span) => f
            .primary
            .as_ref()
            .is_some_and(|l| l.span.start >= span.start && l.span.start <= span.end),
    }
}

/// Whether one of `suppressions` suppresses `f` (without marking it used).
pub fn suppresses(suppressions: &[Suppression], f: &Finding) -> bool {
    suppressions.iter().any(|s| {
        applies(s, f) && (s.rules.is_empty() || s.rules.iter().any(|(name, _)| name == f.rule))
    })
}

/// The suppressions of one file, by what they apply to: a finding is compared with those of
/// its line, its file and the objects around it, not with every suppression of its file (a
/// file may hold a hundred thousand of each).
#[derive(Default)]
struct FileSuppressions {
    file: Vec<usize>,
    lines: std::collections::HashMap<usize, Vec<usize>>,
    /// Object suppressions by span, sorted by start, with the furthest end up to each.
    objects: Vec<(Span, usize)>,
    reach: Vec<usize>,
}

impl FileSuppressions {
    fn add(&mut self, i: usize, s: &Suppression) {
        match &s.scope {
            Scope::File => self.file.push(i),
            Scope::Line(l) => self.lines.entry(*l).or_default().push(i),
            Scope::Object(span) => self.objects.push((*span, i)),
        }
    }

    fn seal(&mut self) {
        // Sorted by start, then by index: the suppressions of one place keep their order.
        self.objects.sort_by_key(|&(span, i)| (span.start, i));
        let mut furthest = 0;
        self.reach = self
            .objects
            .iter()
            .map(|(span, _)| {
                furthest = furthest.max(span.end);
                furthest
            })
            .collect();
    }

    /// The suppressions that may apply to a finding on `line` starting at `at`, in the
    /// order they were found.
    fn candidates(&self, line: usize, at: Option<usize>) -> Vec<usize> {
        let mut out: Vec<usize> = self.file.clone();
        out.extend(self.lines.get(&line).into_iter().flatten().copied());
        if let Some(at) = at {
            // Objects starting at or before `at`, latest first, while one of them may still
            // reach it.
            let before = self.objects.partition_point(|(span, _)| span.start <= at);
            for j in (0..before).rev() {
                if self.reach[j] < at {
                    break;
                }
                if self.objects[j].0.end >= at {
                    out.push(self.objects[j].1);
                }
            }
        }
        out.sort_unstable();
        out
    }
}

/// Drops suppressed findings and reports suppressions that suppressed nothing.
pub fn apply(findings: &mut Vec<Finding>, suppressions: &mut [Suppression], enabled: &RuleSet) {
    // A suppression only applies in its own file: look up the file's, not every one.
    let mut by_file: std::collections::HashMap<Arc<str>, FileSuppressions> =
        std::collections::HashMap::new();
    for (i, s) in suppressions.iter().enumerate() {
        by_file
            .entry(Arc::clone(&s.source.name))
            .or_default()
            .add(i, s);
    }
    by_file.values_mut().for_each(FileSuppressions::seal);
    // A long list of rule names is looked up, not read through, for each finding.
    let named: std::collections::HashMap<usize, std::collections::HashMap<String, Vec<usize>>> =
        suppressions
            .iter()
            .enumerate()
            .filter(|(_, s)| s.rules.len() > 16)
            .map(|(i, s)| {
                let mut by_name: std::collections::HashMap<String, Vec<usize>> =
                    std::collections::HashMap::new();
                for (j, (name, _)) in s.rules.iter().enumerate() {
                    by_name.entry(name.clone()).or_default().push(j);
                }
                (i, by_name)
            })
            .collect();
    findings.retain(|f| {
        if f.rule == rules::UNUSED_SUPPRESSION.name {
            return true;
        }
        let Some(mine) = f.source.as_ref().and_then(|src| by_file.get(&src.name)) else {
            return true;
        };
        let at = f.primary.as_ref().map(|l| l.span.start);
        let mut suppressed = false;
        for i in mine.candidates(f.range().0.line, at) {
            let Some(s) = suppressions.get_mut(i) else {
                continue;
            };
            if !applies(s, f) {
                continue;
            }
            if s.rules.is_empty() {
                s.used_any = true;
                suppressed = true;
            }
            match named.get(&i) {
                Some(by_name) => {
                    for &j in by_name.get(f.rule).into_iter().flatten() {
                        s.used[j] = true;
                        suppressed = true;
                    }
                }
                None => {
                    for (j, (name, _)) in s.rules.iter().enumerate() {
                        if name == f.rule {
                            s.used[j] = true;
                            suppressed = true;
                        }
                    }
                }
            }
        }
        !suppressed
    });
    if !enabled.is_enabled(rules::UNUSED_SUPPRESSION.name) {
        return;
    }
    let meta = &rules::UNUSED_SUPPRESSION;
    // A rule-less suppression can only be judged when every default rule ran: with
    // `--select` or `--ignore` it may be meant for one that did not.
    let all_ran = rules::RULES
        .iter()
        .all(|r| !r.meta.enabled || enabled.is_enabled(r.meta.name));
    for s in suppressions.iter() {
        if s.rules.is_empty() {
            if !s.used_any && all_ran {
                findings.push(
                    meta.finding("this `taintlint: ignore` suppresses nothing")
                        .primary(s.span, "unused")
                        .help("remove it, or name the rules it is meant for: `# taintlint: ignore[rule-name] reason`")
                        .in_file(&s.source),
                );
            }
            continue;
        }
        for ((name, span), used) in s.rules.iter().zip(&s.used) {
            if *used {
                continue;
            }
            let (message, help) = if rules::find(name).is_none() {
                (
                    format!("unknown rule `{name}` in a suppression"),
                    rules::unknown_rule_message(name),
                )
            } else if !enabled.is_enabled(name) {
                continue; // the rule did not run: nothing to judge
            } else {
                (
                    format!("`{name}` is suppressed here but reports nothing"),
                    "remove it from the suppression".to_string(),
                )
            };
            findings.push(
                meta.finding_at(Severity::Warning, message)
                    .primary(*span, "unused")
                    .help(help)
                    .in_file(&s.source),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_trailing_and_leading_comments() {
        let src = SourceFile::new(
            "x.yaml",
            "a: 1 # taintlint: ignore[r1, r2] reason\n# taintlint: ignore[r3]\n\nb: 2\n# taintlint: ignore-file[r4]\nc: \"# taintlint: ignore[no]\"\n".to_string(),
        );
        let s = scan_comments(&src);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].scope, Scope::Line(1));
        assert_eq!(
            s[0].rules.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ["r1", "r2"]
        );
        assert_eq!(src.slice(s[0].rules[1].1), "r2");
        assert_eq!(s[1].scope, Scope::Line(4));
        assert_eq!(s[2].scope, Scope::File);
    }

    /// 100,000 directives alone on their lines, one after the other, all for the line after
    /// them (each used to scan the rest of the file for it); one finding there uses them all.
    #[test]
    fn a_hundred_thousand_directives_in_a_row() {
        let mut text = "# taintlint: ignore[r]\n".repeat(100_000);
        text.push_str("\na: 1 # taintlint: ignore[s]\n");
        let src = SourceFile::new("x.yaml", text.clone());
        let mut suppressions = scan_comments(&src);
        assert_eq!(suppressions.len(), 100_001);
        assert!(
            suppressions[..100_000]
                .iter()
                .all(|s| s.scope == Scope::Line(100_002))
        );
        let at = text.find("a: 1").expect("line");
        let mut findings = vec![
            Finding::new("r", Severity::Error, "m")
                .primary(Span::new(at, at + 1), "here")
                .in_file(&src),
        ];
        apply(&mut findings, &mut suppressions, &RuleSet::defaults());
        assert!(findings.iter().all(|f| f.rule == "unused-suppression"));
        assert!(suppressions[..100_000].iter().all(|s| s.used[0]));
        assert!(!suppressions[100_000].used[0]);
    }

    /// Object suppressions, nested and side by side, and a long rule list: each finding is
    /// suppressed by exactly the objects around it.
    #[test]
    fn object_scopes_are_found_by_position() {
        let src = SourceFile::new("x.yaml", "x".repeat(100));
        let object = |start: usize, end: usize, rules: &[&str]| Suppression {
            source: Arc::clone(&src),
            scope: Scope::Object(Span::new(start, end)),
            rules: rules
                .iter()
                .map(|r| ((*r).to_string(), Span::default()))
                .collect(),
            span: Span::default(),
            used: vec![false; rules.len()],
            used_any: false,
        };
        let many: Vec<String> = (0..40).map(|i| format!("r{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut suppressions = vec![
            object(0, 90, &["a"]),
            object(10, 20, &["b"]),
            object(30, 40, &many),
            object(50, 60, &["a"]),
        ];
        let finding = |rule: &'static str, at: usize| {
            Finding::new(rule, Severity::Error, "m")
                .primary(Span::new(at, at + 1), "here")
                .in_file(&src)
        };
        let mut findings = vec![
            finding("a", 15),
            finding("b", 15),
            finding("b", 25),
            finding("r39", 35),
            finding("r39", 45),
            finding("a", 95),
        ];
        apply(&mut findings, &mut suppressions, &RuleSet::defaults());
        let left: Vec<(&str, usize)> = findings
            .iter()
            .filter(|f| f.rule != "unused-suppression")
            .map(|f| (f.rule, f.primary.as_ref().map_or(0, |l| l.span.start)))
            .collect();
        assert_eq!(left, [("b", 25), ("r39", 45), ("a", 95)]);
        assert!(suppressions[0].used[0] && suppressions[1].used[0]);
        assert!(suppressions[2].used[39] && !suppressions[2].used[0]);
        assert!(!suppressions[3].used[0]);
    }

    #[test]
    fn suppressions_apply_only_in_their_own_file() {
        let text = "a: 1 # taintlint: ignore[unschedulable-workload] known\nb: 2\n";
        let a = SourceFile::new("a.yaml", text.to_string());
        let b = SourceFile::new("b.yaml", text.to_string());
        let mut suppressions = scan_comments(&a);
        let finding = |src: &Arc<SourceFile>| {
            Finding::new("unschedulable-workload", Severity::Error, "m")
                .primary(Span::new(0, 1), "here")
                .in_file(src)
        };
        let mut findings = vec![finding(&b), finding(&a), finding(&b)];
        apply(&mut findings, &mut suppressions, &RuleSet::defaults());
        let files: Vec<&str> = findings.iter().map(|f| &*f.file).collect();
        assert_eq!(files, ["b.yaml", "b.yaml"]);
        assert!(suppressions[0].used[0]);
    }
}
