//! The fast path's first look at a file: document boundaries with a line scan, and whether a
//! document may be skipped — an object of a kind that can carry no scheduling field (CRDs,
//! ConfigMaps, RBAC, Services), written in YAML the parser accepts. The fast builder
//! ([`super::fast_yaml::check`]) decides that without building the tree, so a syntax error the
//! parser would report is never hidden by a cheap guess; anything it declines is parsed.

use std::ops::Range;

use super::yaml::{Limits, Node};

/// Kinds (with their API group) that have a fixed schema without any pod spec, toleration,
/// taint, nodeSelector or affinity.
const SKIPPABLE: &[(&str, &str)] = &[
    ("CustomResourceDefinition", "apiextensions.k8s.io"),
    ("ConfigMap", ""),
    ("Secret", ""),
    ("ServiceAccount", ""),
    ("Service", ""),
    ("Namespace", ""),
    ("Endpoints", ""),
    ("Event", ""),
    ("LimitRange", ""),
    ("ResourceQuota", ""),
    ("PersistentVolumeClaim", ""),
    ("ClusterRole", "rbac.authorization.k8s.io"),
    ("ClusterRoleBinding", "rbac.authorization.k8s.io"),
    ("Role", "rbac.authorization.k8s.io"),
    ("RoleBinding", "rbac.authorization.k8s.io"),
    ("APIService", "apiregistration.k8s.io"),
    (
        "MutatingWebhookConfiguration",
        "admissionregistration.k8s.io",
    ),
    (
        "ValidatingWebhookConfiguration",
        "admissionregistration.k8s.io",
    ),
    ("NetworkPolicy", "networking.k8s.io"),
    ("Ingress", "networking.k8s.io"),
    ("IngressClass", "networking.k8s.io"),
    ("PodDisruptionBudget", "policy"),
    ("PriorityClass", "scheduling.k8s.io"),
    ("StorageClass", "storage.k8s.io"),
    ("HorizontalPodAutoscaler", "autoscaling"),
    ("Lease", "coordination.k8s.io"),
];

/// Whether a (kind, group) never holds scheduling fields: such objects are not parsed by
/// the fast path, and no rule looks inside them on the slow path either.
pub fn is_skippable_kind(kind: &str, group: &str) -> bool {
    SKIPPABLE.iter().any(|(k, g)| *k == kind && *g == group)
}

/// Byte ranges of the documents of a YAML stream, split at `---` lines as kubectl splits
/// them (apimachinery's `YAMLReader`). The markers themselves belong to the document they
/// open.
pub fn split_documents(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut saw_content = false;
    let mut saw_marker = false;
    let mut line = 0;
    while line < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[line..]).map_or(bytes.len(), |i| line + i + 1);
        let l = &bytes[line..end];
        // A marker is any line that starts with `---`, as kubectl's `YAMLReader` cuts
        // (`super::kubectl`: one followed by more than a comment is its error).
        let is_marker = super::kubectl::is_separator(l);
        // `---` opens a new document unless only comments came before it; two markers in a
        // row hold an empty document, as the parser sees it.
        if is_marker && (saw_content || saw_marker) {
            out.push(start..line);
            start = line;
            saw_content = false;
        }
        if is_marker {
            saw_marker = true;
        } else if !saw_content {
            let first = l
                .iter()
                .find(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'));
            saw_content = first.is_some_and(|&c| c != b'#');
        }
        line = end;
    }
    out.push(start..text.len());
    out
}

/// Cheap first look: a top-level `kind:` line naming a kind that may be skipped at all.
pub fn may_skip(doc: &str) -> bool {
    let mut rest = doc;
    loop {
        let line_end = memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len());
        let line = &rest[..line_end];
        if let Some(v) = line.strip_prefix("kind:") {
            let v = v.split(" #").next().unwrap_or(v).trim();
            let v = v.trim_matches(|c| c == '"' || c == '\'');
            return SKIPPABLE.iter().any(|(k, _)| *k == v);
        }
        if line_end >= rest.len() {
            return false;
        }
        rest = &rest[line_end + 1..];
    }
}

/// What to do with a document chunk ([`classify`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prescan {
    /// One object of a kind without scheduling fields, in YAML the parser accepts: it need
    /// not be built nor linted.
    Skip,
    /// Build it with the fast builder (which may still hand it to the parser).
    Build,
    /// The fast builder already declined it: straight to the parser.
    Parse,
}

/// What [`classify`] looks for in every document, each searcher built once (building one
/// costs about as much as searching a small document).
static NEEDLES: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 3]> =
    std::sync::LazyLock::new(|| {
        [
            memchr::memmem::Finder::new(b"taintlint"),
            memchr::memmem::Finder::new(b"scheduler.alpha.kubernetes.io/"),
            memchr::memmem::Finder::new(b"openshift.io/node-selector"),
        ]
    });

/// Whether a document chunk holds one object of a kind without scheduling fields, written in
/// YAML the parser accepts (checked by the fast builder without building it): such a document
/// need not be built nor linted. The object's `kind` and `apiVersion` are read the way the
/// model reads them, so the decision is the one linting the full tree would make;
/// `configured(kind)` names the kinds the configuration makes workloads, never skipped.
pub fn classify(doc: &str, limits: Limits, configured: impl Fn(&str) -> bool) -> Prescan {
    if !may_skip(doc) {
        return Prescan::Build;
    }
    // A `taintlint.dev/ignore` annotation is registered (and reported when unused) on any
    // object: such a document is linted whatever its kind.
    let [ignore, pod_node_selector, project_node_selector] = &*NEEDLES;
    if ignore.find(doc.as_bytes()).is_some() {
        return Prescan::Build;
    }
    // A Namespace's scheduling annotations feed the admission plugins
    // (`analysis::judgements::admission`): such a document is built.
    if pod_node_selector.find(doc.as_bytes()).is_some()
        || project_node_selector.find(doc.as_bytes()).is_some()
    {
        return Prescan::Build;
    }
    // ... also when a double-quoted key may spell it with escapes
    // (`"\x74aintlint.dev/ignore"`), which that byte search does not see.
    if escape_in_double_quotes(doc) {
        return Prescan::Build;
    }
    // A `.inf` or `.nan` anywhere is a value go-yaml cannot turn into JSON, where kubectl
    // refuses the file: such a document is built, for `yaml-type-mismatch` to see it.
    if may_hold_non_finite(doc) {
        return Prescan::Build;
    }
    let Some(root) = super::fast_yaml::check(doc, limits) else {
        return Prescan::Parse;
    };
    let text = |key: &str| root.get(key).and_then(Node::text);
    let (Some(kind), Some(api_version)) = (text("kind"), text("apiVersion")) else {
        return Prescan::Build;
    };
    let (group, _) = split_api_version(api_version);
    if is_skippable_kind(kind, group) && !configured(kind) {
        Prescan::Skip
    } else {
        Prescan::Build
    }
}

/// Whether a line of `doc` has a backslash after a `"`: a double-quoted scalar with an escape,
/// maybe (one pass over the text).
fn escape_in_double_quotes(doc: &str) -> bool {
    let b = doc.as_bytes();
    if memchr::memchr(b'\\', b).is_none() {
        return false;
    }
    let mut line = 0;
    while line < b.len() {
        let end = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |i| line + i);
        if let Some(q) = memchr::memchr(b'"', &b[line..end])
            && memchr::memchr(b'\\', &b[line + q..end]).is_some()
        {
            return true;
        }
        line = end + 1;
    }
    false
}

/// Whether `doc` may hold a plain `.inf` or `.nan` (any case, maybe signed) as a value: a `.`
/// after a blank or a flow or sign indicator, then `inf` or `nan`, then no word character.
fn may_hold_non_finite(doc: &str) -> bool {
    let b = doc.as_bytes();
    memchr::memchr_iter(b'.', b).any(|i| {
        let before = i == 0
            || matches!(
                b[i - 1],
                b' ' | b'\t' | b'\n' | b'+' | b'-' | b'[' | b'{' | b',' | b':'
            );
        let word = b.get(i + 1..i + 4).unwrap_or_default();
        let after = b
            .get(i + 4)
            .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'_');
        before && after && (word.eq_ignore_ascii_case(b"inf") || word.eq_ignore_ascii_case(b"nan"))
    })
}

/// [`classify`] says [`Prescan::Skip`].
pub fn skippable(doc: &str, limits: Limits, configured: impl Fn(&str) -> bool) -> bool {
    classify(doc, limits, configured) == Prescan::Skip
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_not_skipped() {
        let cm = |v: &str| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\ndata:\n  x: {v}\n")
        };
        for v in [".inf", "-.Inf", "[.NaN]", "+.INF"] {
            assert!(may_hold_non_finite(&cm(v)), "{v}");
            assert!(!skippable(&cm(v), Limits::default(), |_| false), "{v}");
        }
        for v in ["example.info", "a.nano", "'x'", "3.5"] {
            assert!(!may_hold_non_finite(&cm(v)), "{v}");
            assert!(skippable(&cm(v), Limits::default(), |_| false), "{v}");
        }
    }

    #[test]
    fn splits_and_skips() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  script: |\n    echo \"%x\" @y\n---\napiVersion: apps/v1\nkind: Deployment\n";
        let docs = split_documents(text);
        assert_eq!(docs.len(), 2);
        assert!(skippable(&text[docs[0].clone()], Limits::default(), |_| {
            false
        }));
        assert!(!skippable(
            &text[docs[1].clone()],
            Limits::default(),
            |_| false
        ));
    }

    #[test]
    fn structure_is_checked() {
        let ok = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: a\nrules:\n- apiGroups:\n  - \"\"\n  resources:\n  - pods\n  verbs: [get]\n- apiGroups: [apps]\n  resources:\n    - deployments\n";
        assert!(skippable(ok, Limits::default(), |_| false));
        for bad in [
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: a\n  - apiGroups: [x]\n",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nrules:\n  - apiGroups: [x]\n    resources:\n      - s\n  0 verbs: [get]\n",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nrules:\n- verbs:\n  -\"get\n",
        ] {
            assert!(!skippable(bad, Limits::default(), |_| false), "{bad}");
        }
    }

    #[test]
    fn plain_continuations_are_skippable() {
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    note: a long\n      plain text\n";
        assert!(skippable(doc, Limits::default(), |_| false));
    }

    #[test]
    fn valid_yaml_is_skipped_however_it_looks() {
        // `metadata` is the string "broken": valid, if useless.
        let doc = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  broken\n";
        assert!(skippable(doc, Limits::default(), |_| false));
        // ... but not with a key after it at that depth.
        let doc = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  broken\n  name: x\n";
        assert!(!skippable(doc, Limits::default(), |_| false));
    }

    #[test]
    fn the_last_of_duplicate_keys_decides_as_in_the_model() {
        let skip = |d: &str| skippable(d, Limits::default(), |_| false);
        // The cheap first look takes the first `kind:` line: not skipping is always safe.
        assert!(!skip("kind: Deployment\napiVersion: v1\nkind: Secret\n"));
        assert!(!skip("kind: Secret\napiVersion: v1\nkind: Deployment\n"));
        assert!(!skip("kind: Secret\napiVersion: v1\napiVersion: apps/v1\n"));
        // A kind the configuration makes a workload is never skipped.
        assert!(!skippable(
            "kind: Secret\napiVersion: v1\n",
            Limits::default(),
            |k| { k == "Secret" }
        ));
    }

    #[test]
    fn unusual_documents_are_parsed() {
        for doc in [
            "apiVersion: v1\nkind: Secret\ndata:\n  code: %X%\n",
            "apiVersion: v1\nkind: ConfigMap\ndata: &a\n  x: 1\n",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n\tx: 1\n",
            "apiVersion: v1\nkind: ConfigMap\ndata: {x: 1,\n  y: 2}\n",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: \"a\n  b\"\n",
            "apiVersion: serving.knative.dev/v1\nkind: Service\n",
            "apiVersion: v1\nkind: ServiceAccount\ns\n",
        ] {
            assert!(!skippable(doc, Limits::default(), |_| false), "{doc}");
        }
    }
    #[test]
    fn classify_says_what_to_do() {
        let limits = Limits::default();
        let plan = |d: &str| classify(d, limits, |_| false);
        assert_eq!(
            plan("apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n"),
            Prescan::Skip
        );
        // An anchor is the parser's: the builder's check mode declines, no second try.
        assert_eq!(
            plan("apiVersion: v1\nkind: ConfigMap\ndata: &d {a: b}\n"),
            Prescan::Parse
        );
        assert_eq!(
            plan("apiVersion: apps/v1\nkind: Deployment\n"),
            Prescan::Build
        );
        assert_eq!(
            plan(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    taintlint.dev/ignore: x\n"
            ),
            Prescan::Build
        );
        assert_eq!(
            classify("apiVersion: v1\nkind: ConfigMap\n", limits, |k| k
                == "ConfigMap"),
            Prescan::Build
        );
    }
}

#[cfg(test)]
mod corpus_share {
    /// How many bytes of the real corpus (`testdata/corpus`) the fast path skips (run with
    /// --nocapture).
    #[test]
    #[ignore = "measurement, not a test"]
    fn skipped_share_of_the_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
        let (mut total, mut skipped) = (0usize, 0usize);
        for e in walkdir::WalkDir::new(root).into_iter().flatten() {
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            for r in super::split_documents(&text) {
                total += r.len();
                if super::skippable(&text[r.clone()], super::Limits::default(), |_| false) {
                    skipped += r.len();
                }
            }
        }
        println!("skipped {skipped} of {total} bytes");
    }
}

/// Splits `apps/v1` into (`apps`, `v1`) and `v1` into (``, `v1`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}
