//! Baselines: `--write-baseline FILE` records the current findings by fingerprint (rule, file,
//! object, field path: no line numbers, so unrelated edits keep them), and `--baseline FILE`
//! hides those, so a repository with old findings can adopt taintlint and fail only on new
//! ones.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diagnostic::fingerprint;
use crate::diagnostic::{Finding, FindingSource};

#[derive(Serialize, Deserialize)]
struct Baseline {
    version: u32,
    findings: Vec<Entry>,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    rule: String,
    file: String,
    fingerprint: String,
    /// For people reading the file; not used for matching.
    #[serde(default)]
    message: String,
}

/// The baseline of these findings, as its file holds it.
pub fn render(findings: &dyn FindingSource) -> std::io::Result<String> {
    let mut entries: Vec<Entry> = Vec::new();
    findings.each(&mut |f| {
        entries.push(Entry {
            rule: f.rule.to_string(),
            file: f.file.to_string(),
            fingerprint: fingerprint(f),
            message: f.message.to_string(),
        });
        Ok(())
    })?;
    entries.sort();
    let doc = Baseline {
        version: 1,
        findings: entries,
    };
    Ok(serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n")
}

/// Known findings as a multiset keyed by (rule, file, fingerprint).
pub type Known = BTreeMap<(String, String, String), usize>;

pub fn load(path: &std::path::Path) -> Result<Known, String> {
    let text = crate::load::read_settings_file(path)
        .map_err(|e| format!("cannot read baseline {}: {e}", path.display()))?;
    let doc: Baseline = serde_json::from_str(&text).map_err(|e| {
        format!(
            "baseline {} is not a taintlint baseline: {e}",
            path.display()
        )
    })?;
    if doc.version != 1 {
        return Err(format!(
            "baseline {} has version {}; this taintlint reads version 1",
            path.display(),
            doc.version
        ));
    }
    let mut known = Known::new();
    for e in doc.findings {
        *known.entry((e.rule, e.file, e.fingerprint)).or_default() += 1;
    }
    Ok(known)
}

/// Removes findings present in the baseline (each baseline entry hides one finding). Findings
/// come in batches, in output order: `known` keeps count. Returns how many it removed.
pub fn filter_with(findings: &mut Vec<Finding>, known: &mut Known) -> usize {
    let before = findings.len();
    findings.retain(|f| {
        let key = (f.rule.to_string(), f.file.to_string(), fingerprint(f));
        match known.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        }
    });
    before - findings.len()
}
