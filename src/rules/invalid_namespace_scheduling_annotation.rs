//! `invalid-namespace-scheduling-annotation`: a Namespace annotation an admission plugin the
//! cluster runs cannot read — `scheduler.alpha.kubernetes.io/node-selector` or
//! `openshift.io/node-selector` that is no `k=v,k2=v2` selector
//! (`labels.ConvertSelectorToLabelsMap`), `scheduler.alpha.kubernetes.io/defaultTolerations`
//! or `tolerationsWhitelist` that is no JSON list of tolerations. The plugin then rejects
//! every pod created in the namespace with that error (plugin/pkg/admission/podnodeselector,
//! plugin/pkg/admission/podtolerationrestriction; OpenShift's
//! openshift-kube-apiserver/admission/scheduler/nodeenv, which parses with
//! openshift/apiserver-library-go `labelselector.Parse` and ignores `openshift.io/node-selector`
//! in a namespace that has `scheduler.alpha.kubernetes.io/node-selector`). Only reported when
//! the plugin is on.

use crate::analysis::judgements::admission::{Plugin, facts, json, merge, openshift};
use crate::analysis::semantics::validation::{
    TOTAL_ANNOTATION_SIZE_LIMIT, annotations_too_long,
};
use crate::load::yaml::Node;
use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "invalid-namespace-scheduling-annotation",
    summary: "A Namespace's node-selector or toleration annotation an enabled admission plugin cannot read (it rejects every pod of the namespace)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-namespace-scheduling-annotation.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let o = ctx.object;
    if o.kind != "Namespace" || !o.group.is_empty() {
        return;
    }
    let Some(annotations) = o.annotations else {
        return;
    };
    let admission = &ctx.settings.admission;
    // Over the API server's size limit, the Namespace itself is refused (and no annotation
    // is read, however long): one finding, on the first annotation a plugin that is on reads.
    if facts::annotations_too_long(annotations) {
        too_long(ctx, annotations, out);
        return;
    }
    for key in facts::ANNOTATIONS {
        let plugin = plugin_of(key);
        if !admission.on(plugin) {
            continue;
        }
        let Some((k, v)) = annotations.entry(key) else {
            continue;
        };
        // OpenShift's plugin leaves a namespace with PodNodeSelector's annotation alone
        // (openshift-kube-apiserver/admission/scheduler/nodeenv/admission.go).
        if key == facts::OPENSHIFT_NODE_SELECTOR
            && annotations.entry(facts::NODE_SELECTOR).is_some()
        {
            continue;
        }
        let text = if v.is_null() { "" } else { v.text().unwrap_or("") };
        let error = if plugin == Plugin::PodTolerationRestriction {
            if text.is_empty() {
                continue;
            }
            json::tolerations(text).err()
        } else if plugin == Plugin::OpenShiftProjectNodeSelector {
            openshift::parse(text, ctx.settings).err()
        } else {
            merge::parse_selector(text, ctx.settings).err()
        };
        let Some(error) = error else { continue };
        let what = if plugin == Plugin::PodTolerationRestriction {
            "a JSON list of tolerations"
        } else {
            "a node selector like `env=prod,tier=web`"
        };
        out.push(
            META.finding(format!(
                "`{key}` is not {what}: the {} admission plugin rejects every pod of this namespace: {error}",
                plugin.name()
            ))
            .primary(v.span, "this value")
            .secondary(k.span, "annotation")
            .help(if plugin == Plugin::PodTolerationRestriction {
                "write the tolerations as JSON, e.g. '[{\"key\": \"dedicated\", \"operator\": \"Exists\", \"effect\": \"NoSchedule\"}]'"
            } else {
                "write `key=value` pairs separated by commas (an empty value is `key=`)"
            })
            .api_error(error),
        );
    }
}

/// The plugin that reads an annotation of [`facts::ANNOTATIONS`].
fn plugin_of(key: &str) -> Plugin {
    match key {
        facts::NODE_SELECTOR => Plugin::PodNodeSelector,
        facts::OPENSHIFT_NODE_SELECTOR => Plugin::OpenShiftProjectNodeSelector,
        _ => Plugin::PodTolerationRestriction,
    }
}

/// The Namespace's annotations are over `TotalAnnotationSizeLimitB`: reported when a plugin
/// that is on reads one of them (the API server's own validation error, the same for every
/// object, is what the plugin never gets past).
fn too_long(ctx: &Ctx<'_>, annotations: &Node, out: &mut Vec<Finding>) {
    let admission = &ctx.settings.admission;
    let Some((key, plugin, k, v)) = facts::ANNOTATIONS.iter().find_map(|&key| {
        let plugin = plugin_of(key);
        let (k, v) = annotations.entry(key)?;
        admission.on(plugin).then_some((key, plugin, k, v))
    }) else {
        return;
    };
    let size = facts::annotations_bytes(annotations);
    let error = annotations_too_long();
    out.push(
        META.finding(format!(
            "this Namespace's annotations take more than the API server's limit of {TOTAL_ANNOTATION_SIZE_LIMIT} bytes (256 KiB, keys and values together): it refuses the Namespace, so the {} admission plugin never reads `{key}`: {error}",
            plugin.name()
        ))
        .primary(v.span, "this value")
        .secondary(k.span, format!("annotations of {size} bytes"))
        .help("keep the annotation short: list the few tolerations or labels the namespace's pods need (kubectl apply's `last-applied-configuration` annotation counts too)")
        .api_error(error),
    );
}
