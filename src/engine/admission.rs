//! The run's admission (`analysis::judgements::admission`): the Namespaces and RuntimeClasses the files
//! hold, gathered in the per-file phase like the node declarations, become one
//! [`Admission`] per cluster; each file's workloads go through it before the cross-reference
//! judges them, and a pod admission refuses is reported here (`admission-rejected`) instead of
//! being judged.

use std::borrow::Cow;
use std::sync::Arc;

use crate::analysis::judgements::admission::{Admission, Fact};
use crate::analysis::types::Relevant;
use crate::analysis::types::Workload;
use crate::diagnostic::Finding;
use crate::rules;

use super::options::LintOptions;

/// Each cluster's admission from the facts of the files (`(input number, cluster, fact)`;
/// cluster `None`: every cluster's), in input order. The label keys admission may add to node
/// selectors join `relevant`, which decides how the pools group.
pub(super) fn build(
    mut facts: Vec<(usize, Option<usize>, Fact)>,
    opts: &LintOptions,
    relevant: &mut Relevant,
) -> Vec<Admission> {
    facts.sort_by_key(|(i, _, _)| *i);
    let admissions: Vec<Admission> = (0..opts.slots())
        .map(|slot| {
            let mine = facts
                .iter()
                .filter(|(_, c, _)| c.is_none_or(|c| c == slot))
                .map(|(_, _, f)| f.clone())
                .chain(opts.extra_admission.iter().cloned());
            Admission::new(mine, &opts.settings)
        })
        .collect();
    for a in &admissions {
        for key in a.selector_keys() {
            if !relevant.keys.contains(key) {
                relevant.keys.insert(key.to_string());
            }
        }
    }
    admissions
}

/// A file's facts, taken out of its report: none from vendored code and test data, which
/// describe some other cluster's namespaces.
pub(super) fn facts(report: &mut super::FileReport, fixture: bool) -> Vec<Fact> {
    if fixture {
        Vec::new()
    } else {
        std::mem::take(&mut report.admission)
    }
}

/// Admits one file's workloads (see [`admit`]) and gives those admission lets through: the
/// workloads themselves when it refuses none (nothing is copied).
pub(super) fn admitted<'a>(
    admission: Option<&Admission>,
    workloads: &'a mut [Workload],
    opts: &LintOptions,
    slot: usize,
    found: &mut Vec<Finding>,
) -> Cow<'a, [Workload]> {
    let refused = match admission {
        Some(a) if !workloads.is_empty() && !a.is_idle() => {
            admit(a, workloads, opts, opts.cluster_name(slot), found)
        }
        _ => false,
    };
    if refused {
        Cow::Owned(workloads.iter().filter(|w| !rejected(w)).cloned().collect())
    } else {
        Cow::Borrowed(workloads)
    }
}

/// Admits one file's workloads; the findings for those admission refuses (a refusal caused by
/// an invalid Namespace annotation is reported on the Namespace instead), and whether any
/// was refused.
pub(super) fn admit(
    admission: &Admission,
    workloads: &mut [Workload],
    opts: &LintOptions,
    cluster: Option<Arc<str>>,
    found: &mut Vec<Finding>,
) -> bool {
    if admission.is_idle() {
        return false;
    }
    admission.apply(workloads);
    let meta = &rules::admission_rejected::META;
    let mut any = false;
    for w in workloads.iter() {
        let Some(r) = w.admission.as_ref().and_then(|a| a.rejection.as_ref()) else {
            continue;
        };
        any = true;
        if r.namespace_error || !opts.rules.is_enabled(meta.name) {
            continue;
        }
        let (span, label) = match (r.about_selector, w.selector_span) {
            (true, Some(s)) => (s, "this node selector"),
            _ => (w.anchor, "these tolerations"),
        };
        let mut f = meta
            .finding(format!(
                "the {} admission plugin rejects the pods of {}: {}{}",
                r.plugin,
                w.object,
                r.message,
                if r.detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", r.detail)
                }
            ))
            .primary(span, label)
            .help(rules::admission_rejected::help(r))
            .api_error(r.api_error.clone());
        f.object = Some(Arc::clone(&w.object));
        f.cluster.clone_from(&cluster);
        found.push(f.in_file(&w.source));
    }
    any
}

/// Is this workload's pod refused by admission?
pub(super) fn rejected(w: &Workload) -> bool {
    w.admission.as_ref().is_some_and(|a| a.rejection.is_some())
}
