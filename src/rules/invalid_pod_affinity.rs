//! `invalid-pod-affinity`: what the API server rejects in `podAffinity` and `podAntiAffinity`
//! (pkg/apis/core/validation/validation.go in kubernetes/kubernetes: `validatePodAffinity`,
//! `validatePodAntiAffinity`, `validatePodAffinityTerm`, `validateWeightedPodAffinityTerms`,
//! `validateMatchLabelKeysAndMismatchLabelKeys`; the selectors through `ValidateLabelSelector`).

use super::Rule;
use super::label_selectors::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-pod-affinity",
    summary: "Pod affinity or anti-affinity the API server rejects (topology key, selectors, weights, namespaces, matchLabelKeys)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-pod-affinity.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

/// Well-known topology keys, for did-you-mean on a topology key typo.
pub(crate) const TOPOLOGY_KEYS: &[&str] = &[
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let mut r = Reporter {
        ctx,
        out,
        meta: &META,
    };
    // `matchLabelKeys`/`mismatchLabelKeys` came with the MatchLabelKeysInPodAffinity gate,
    // alpha (off) in 1.29-1.30: the server drops them there.
    let label_keys = ctx.settings.minor >= 31;
    // A Pod's strategy merges `matchLabelKeys` (and `mismatchLabelKeys`) with the pod's own
    // labels into the selector before validation (pkg/registry/core/pod/strategy.go,
    // `applyMatchLabelKeysAndMismatchLabelKeys`); templates are validated as written.
    let pod_labels = (ctx.object.kind == "Pod")
        .then(|| ctx.object.node.path(&["metadata", "labels"]))
        .flatten();
    for spec in &ctx.object.pod_specs {
        for (part, words) in [
            (&spec.pod_affinity, "pod affinity"),
            (&spec.pod_anti_affinity, "pod anti-affinity"),
        ] {
            let Some(part) = part else { continue };
            let block = part.value;
            if block.as_map().is_none() {
                continue;
            }
            let base = &part.path;
            let terms = Terms {
                words,
                label_keys,
                pod_labels,
            };
            if let Some(list) = block
                .get("requiredDuringSchedulingIgnoredDuringExecution")
                .and_then(Node::as_seq)
            {
                let p = join(base, "requiredDuringSchedulingIgnoredDuringExecution");
                for (i, term) in list.iter().enumerate() {
                    terms.check_term(&mut r, term, &format!("{p}[{i}]"));
                }
            }
            if let Some(list) = block
                .get("preferredDuringSchedulingIgnoredDuringExecution")
                .and_then(Node::as_seq)
            {
                let p = join(base, "preferredDuringSchedulingIgnoredDuringExecution");
                for (j, weighted) in list.iter().enumerate() {
                    let tp = format!("{p}[{j}]");
                    let w = weighted.get("weight");
                    if let Some(weight) = int_of(w)
                        && !(1..=100).contains(&weight)
                    {
                        let wp = join(&tp, "weight");
                        r.add(Problem {
                            span: w.map_or(weighted.span, |w| w.span),
                            message: format!("preferred {words} weight {weight} is outside 1-100"),
                            label: "must be 1-100",
                            help: "give each preferred term a `weight` from 1 to 100".to_string(),
                            path: &wp,
                            api: invalid(&wp, &weight.to_string(), "must be in the range 1-100"),
                        });
                    }
                    let term = weighted.get("podAffinityTerm");
                    match term {
                        Some(t) if t.as_map().is_some() => {
                            terms.check_term(&mut r, t, &join(&tp, "podAffinityTerm"));
                        }
                        // No term: an empty one, whose topology key is empty.
                        _ => terms.check_topology_key(
                            &mut r,
                            weighted,
                            None,
                            &join(&join(&tp, "podAffinityTerm"), "topologyKey"),
                        ),
                    }
                }
            }
        }
    }
}

/// How the terms of one `podAffinity`/`podAntiAffinity` block are checked.
struct Terms<'a> {
    words: &'static str,
    label_keys: bool,
    pod_labels: Option<&'a Node>,
}

impl Terms<'_> {
    /// `validatePodAffinityTerm`, in the server's order.
    fn check_term(&self, r: &mut Reporter<'_, '_>, term: &Node, tp: &str) {
        let words = self.words;
        let selector = term.get("labelSelector").filter(|s| !s.is_null());
        if let Some(sel) = selector {
            check_label_selector(r, sel, &join(tp, "labelSelector"), &format!("{words} label selector"));
        }
        if let Some(sel) = term.get("namespaceSelector").filter(|s| !s.is_null()) {
            check_label_selector(r, sel, &join(tp, "namespaceSelector"), "namespace selector");
        }
        // The server's path is `namespace`, not `namespaces[i]`.
        let np = join(tp, "namespace");
        for (node, ns) in strings_of(term.get("namespaces")) {
            for msg in dns1123_label_errors(ns, r.ctx.settings) {
                r.add(Problem {
                    span: node.span,
                    message: format!("`{ns}` is not a valid namespace name: {msg}"),
                    label: "invalid namespace",
                    help: "namespace names are lowercase DNS labels".to_string(),
                    path: &np,
                    api: invalid(&np, &go_quote(ns), &msg),
                });
            }
        }
        if self.label_keys {
            self.check_label_keys(r, term, selector, tp);
        }
        self.check_topology_key(r, term, term.entry("topologyKey"), &join(tp, "topologyKey"));
    }

    /// `validateMatchLabelKeysAndMismatchLabelKeys`.
    fn check_label_keys(&self, r: &mut Reporter<'_, '_>, term: &Node, sel: Option<&Node>, tp: &str) {
        let matching = strings_of(term.get("matchLabelKeys"));
        let mismatching = strings_of(term.get("mismatchLabelKeys"));
        for (field, keys) in [("matchLabelKeys", &matching), ("mismatchLabelKeys", &mismatching)] {
            if keys.is_empty() {
                continue;
            }
            let p = join(tp, field);
            let Some(_) = sel else {
                let span = term.entry(field).map_or(term.span, |(k, _)| k.span);
                r.add(Problem {
                    span,
                    message: format!("`{field}` without a `labelSelector`"),
                    label: "needs labelSelector",
                    help: "add the `labelSelector` the keys narrow, or remove the keys".to_string(),
                    path: &p,
                    api: forbidden(&p, "must not be specified when labelSelector is not set"),
                });
                continue;
            };
            check_key_list(r, keys, &p);
        }
        if let Some(sel) = sel {
            let (labels, mut exprs) = selector_keys(sel);
            // A Pod's selector as the strategy merged it.
            if let Some(pod_labels) = self.pod_labels {
                let has = |k: &str| pod_labels.get(k).is_some();
                exprs.extend(matching.iter().map(|(_, k)| *k).filter(|k| has(k)));
                exprs.extend(mismatching.iter().map(|(_, k)| *k).filter(|k| has(k)));
            }
            // Looked up per key (lists of thousands of keys were compared pair by pair).
            let last: std::collections::HashMap<&str, usize> =
                matching.iter().enumerate().map(|(i, (_, k))| (*k, i)).collect();
            let mut seen: std::collections::HashSet<&str> = labels.into_iter().collect();
            for key in exprs {
                // The server remembers a key's last index in `matchLabelKeys`; its path is
                // the term's, indexed (`…[0][1]`), as upstream writes it.
                if let Some(&i) = last.get(key)
                    && seen.contains(key)
                {
                    let p = format!("{tp}[{i}]");
                    also_in_selector(r, matching[i].0.span, key, &p);
                }
                seen.insert(key);
            }
        }
        let mismatched: std::collections::HashSet<&str> =
            mismatching.iter().map(|(_, k)| *k).collect();
        for (i, (node, key)) in matching.iter().enumerate() {
            if mismatched.contains(key) {
                let p = format!("{}[{i}]", join(tp, "matchLabelKeys"));
                r.add(Problem {
                    span: node.span,
                    message: format!("`{key}` is in both `matchLabelKeys` and `mismatchLabelKeys`"),
                    label: "also in mismatchLabelKeys",
                    help: "a key can select pods with the same value or with another value, not both".to_string(),
                    path: &p,
                    api: invalid(&p, &go_quote(key), "exists in both matchLabelKeys and mismatchLabelKeys"),
                });
            }
        }
    }

    /// `topologyKey`: required, and a label key (`ValidateLabelName`, checked even when
    /// empty: an empty key gets the required error and the label-key errors).
    fn check_topology_key(
        &self,
        r: &mut Reporter<'_, '_>,
        term: &Node,
        entry: Option<(&Node, &Node)>,
        kp: &str,
    ) {
        let words = self.words;
        let key = text_of(entry.map(|(_, v)| v)).unwrap_or("");
        let span = entry.map_or(term.span, |(_, v)| v.span);
        let errors = label_key_errors(key, r.ctx.settings);
        if !key.is_empty() && errors.is_empty() {
            return;
        }
        // A suggestion only for a key that is wrong.
        let help = match crate::util::nearest(key, TOPOLOGY_KEYS, 3) {
            Some(k) if !key.is_empty() && k != key => format!("did you mean `{k}`?"),
            _ => "set `topologyKey` to a node label that names the domain, e.g. `kubernetes.io/hostname` (one node) or `topology.kubernetes.io/zone`".to_string(),
        };
        if key.is_empty() {
            r.add(Problem {
                span,
                message: format!("{words} term has no `topologyKey`"),
                label: "topologyKey required",
                help: help.clone(),
                path: kp,
                api: required(kp, "can not be empty"),
            });
        }
        for msg in errors {
            r.add(Problem {
                span,
                message: format!("{words} topology key `{key}` is not a valid label key: {msg}"),
                label: "invalid topology key",
                help: help.clone(),
                path: kp,
                api: invalid(kp, &go_quote(key), &msg),
            });
        }
    }
}
