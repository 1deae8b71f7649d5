//! Notices that a run folds into one: a notice says what taintlint did not read or judge, and
//! said once per file it drowns every finding (issue: "at most one per cause per folder").
//!
//! - `encrypted-file`: every encrypted file, LFS pointer or file `.gitattributes` marks as not
//!   text, one notice for the run, counting them by what they are;
//! - `template-not-rendered` of a template outside a Helm chart (charts fold theirs at their
//!   `Chart.yaml`, `engine::charts`): one notice per folder;
//! - `unjudged-custom-kind`: one notice per kind (and API group) for the run.
//!
//! Each fold keeps the notice of its first file in path order (then line), whatever order the
//! threads brought them in, and says how many more there were. A notice suppressed in its file
//! or ignored for its path is left where it is, so a fold counts only what would have been
//! reported. Only files read from disk fold: standard input and the editor's buffer keep theirs.

use std::collections::BTreeMap;

use super::file::FileReport;
use super::options::LintOptions;
use std::sync::Arc;

use crate::diagnostic::Finding;
use crate::load::{SourceFile, Span};
use crate::model;
use crate::rules;

/// The folds of a run, by rule and key (the folder, the kind).
#[derive(Default)]
pub(super) struct Folds {
    map: BTreeMap<(&'static str, String), Fold>,
}

struct Fold {
    /// The notice of the first file (in path order).
    first: Finding,
    /// How many notices were folded into it (itself included).
    count: usize,
    /// For `encrypted-file`: how many of each kind.
    kinds: BTreeMap<String, usize>,
}

/// The report of a file that is encrypted, a pointer, or marked not text (`what`): one
/// `encrypted-file` notice; `FileReport::sealed` keeps `what` for the run's fold.
pub(super) fn sealed(name: &str, what: &str, opts: &LintOptions) -> FileReport {
    let mut report = FileReport {
        sealed: Some(what.into()),
        ..FileReport::default()
    };
    let meta = &rules::ENCRYPTED_FILE;
    if opts.rules.is_enabled(meta.name) {
        let mut f = meta
            .finding(format!(
                "file is {}: not a manifest; it was not linted",
                describe(what)
            ))
            .help(HELP);
        f.file = name.into();
        report.findings.push(f);
    }
    report
}

const HELP: &str = "decrypt it (`git-crypt unlock`, `sops -d`, `ansible-vault view`, `git lfs pull`) and lint the output, or exclude it";

/// `encrypted with git-crypt`, `a Git LFS pointer`, `marked `binary` in .gitattributes`.
fn describe(what: &str) -> String {
    match what {
        "Git LFS pointer" => "a Git LFS pointer".to_string(),
        w if w.starts_with("marked ") => format!("not text and {w}"),
        w => format!("encrypted with {w}"),
    }
}

impl Folds {
    /// Takes `report`'s foldable notices (a file read from disk) into the run's folds.
    pub(super) fn take(&mut self, report: &mut FileReport, opts: &LintOptions) {
        let sealed = report.sealed.take();
        let mut i = 0;
        while i < report.findings.len() {
            let f = &report.findings[i];
            let key = match f.rule {
                r if r == rules::ENCRYPTED_FILE.name => Some(String::new()),
                r if r == rules::TEMPLATE_NOT_RENDERED.name => Some(folder(&f.file).to_string()),
                r if r == rules::UNJUDGED_CUSTOM_KIND.name => f
                    .object
                    .as_ref()
                    .map(|o| format!("{}/{}", o.kind, group(&o.api_version))),
                _ => None,
            };
            let Some(key) = key.filter(|_| {
                !crate::suppress::suppresses(&report.suppressions, f)
                    && !opts.ignored(f.rule, &f.file)
            }) else {
                i += 1;
                continue;
            };
            let f = report.findings.remove(i);
            let what = (f.rule == rules::ENCRYPTED_FILE.name)
                .then(|| sealed.as_deref().unwrap_or("unknown").to_string());
            self.add(key, f, what);
        }
    }

    /// Merges another file's folds into the run's.
    pub(super) fn merge(&mut self, other: Folds) {
        for ((_, key), fold) in other.map {
            let Fold {
                first,
                count,
                kinds,
            } = fold;
            let mine = self.map.entry((first.rule, key)).or_insert_with(|| Fold {
                first: first.clone(),
                count: 0,
                kinds: BTreeMap::new(),
            });
            mine.count += count;
            for (what, n) in kinds {
                *mine.kinds.entry(what).or_default() += n;
            }
            if place(&first) < place(&mine.first) {
                mine.first = first;
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn add(&mut self, key: String, f: Finding, what: Option<String>) {
        let fold = self.map.entry((f.rule, key)).or_insert_with(|| Fold {
            first: f.clone(),
            count: 0,
            kinds: BTreeMap::new(),
        });
        fold.count += 1;
        if let Some(what) = what {
            *fold.kinds.entry(what).or_default() += 1;
        }
        if place(&f) < place(&fold.first) {
            fold.first = f;
        }
    }

    /// One notice per fold.
    pub(super) fn notices(self) -> Vec<Finding> {
        self.map
            .into_iter()
            .map(|((rule, key), fold)| fold.notice(rule, &key))
            .collect()
    }
}

impl Fold {
    fn notice(self, rule: &'static str, key: &str) -> Finding {
        let Fold {
            mut first,
            count,
            kinds,
        } = self;
        if count <= 1 {
            return first;
        }
        let more = count - 1;
        first.message = if rule == rules::ENCRYPTED_FILE.name {
            let kinds: Vec<String> = kinds
                .iter()
                .map(|(what, n)| format!("{n} {}", describe(what)))
                .collect();
            format!(
                "{count} files are encrypted or not text ({}): not manifests; they were not linted",
                kinds.join(", ")
            )
            .into()
        } else if rule == rules::TEMPLATE_NOT_RENDERED.name {
            let folder = if key.is_empty() { "." } else { key };
            format!(
                "{} (and {more} more template file{} in `{}/`)",
                first.message,
                if more == 1 { "" } else { "s" },
                crate::util::text::escape(folder)
            )
            .into()
        } else {
            first
                .message
                .replace(
                    "so it was not judged",
                    &format!("so {count} objects of this kind were not judged"),
                )
                .into()
        };
        first
    }
}

/// The order of notices: file, then position.
fn place(f: &Finding) -> (&str, usize) {
    (&f.file, f.primary.as_ref().map_or(0, |l| l.span.start))
}

/// A file's folder (`""` at the top).
fn folder(file: &str) -> &str {
    file.rfind('/').map_or("", |i| &file[..i])
}

/// The group of an `apiVersion` (`""` for the core group).
fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// One `unjudged-custom-kind` notice per kind and document (a run folds them further, see
/// `engine::folds`): the object's loose scheduling fields at `at` were not judged.
pub(super) fn unjudged_kind(
    object: &model::Object<'_>,
    at: Span,
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    noted: &mut Vec<String>,
    found: &mut Vec<Finding>,
) {
    let meta = &rules::UNJUDGED_CUSTOM_KIND;
    let key = format!("{}/{}", object.kind, object.group);
    if !opts.rules.is_enabled(meta.name) || noted.contains(&key) {
        return;
    }
    let field = source.text.get(at.start..at.end).unwrap_or("tolerations");
    let field = crate::util::text::escape(field.trim_matches(['"', '\'']));
    let kind = crate::util::text::escape(object.kind);
    let api = crate::util::text::escape(object.api_version);
    found.push(
        meta.finding(format!(
            "`{kind}` ({api}) sets `{field}` outside a pod spec: nothing shows it reaches a pod, so it was not judged"
        ))
        .primary(at, "not shown to reach a pod")
        .help(format!(
            "if its operator copies these fields into its pods as written, declare where in the config: `workload-kinds: [{{kind: {kind}, apiVersion: {api}, podSpec: <path of the pod spec>}}]`"
        ))
        .in_file(source),
    );
    noted.push(key);
}

/// How a `.gitattributes` of the linted root that holds `path` marks it (see
/// `load::gitattributes`).
pub(super) fn gitattributes_mark(path: &std::path::Path, opts: &LintOptions) -> Option<String> {
    opts.roots
        .iter()
        .map(std::path::Path::new)
        .filter(|root| path.starts_with(root) && root.is_dir())
        .max_by_key(|root| root.as_os_str().len())
        .and_then(|root| crate::load::gitattributes::marked(path, root))
}
