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
    for key in facts::ANNOTATIONS {
        let plugin = match key {
            facts::NODE_SELECTOR => Plugin::PodNodeSelector,
            facts::OPENSHIFT_NODE_SELECTOR => Plugin::OpenShiftProjectNodeSelector,
            _ => Plugin::PodTolerationRestriction,
        };
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
