//! `kueue-no-flavor-fits`: a workload submitted to a Kueue LocalQueue whose ClusterQueue has,
//! for a resource it requests, no flavor Kueue can assign it: every flavor has a `nodeTaints`
//! taint (NoSchedule or NoExecute) that neither the pod nor the flavor's `tolerations`
//! tolerate, or `nodeLabels` its nodeSelector or required node affinity do not match. Kueue's
//! flavor assigner skips such flavors (pkg/scheduler/flavorassigner/flavorassigner.go,
//! `findFlavorForPodSetResource`), so the workload stays pending, never admitted. Judged only
//! when the LocalQueue, its ClusterQueue and every flavor of the group are in the files (see
//! `analysis::judgements::kueue`).

use crate::analysis::judgements::kueue::NoFit;
use crate::diagnostic::{Finding, Related, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "kueue-no-flavor-fits",
    summary: "A workload submitted to a Kueue queue none of whose flavors it can use: never admitted",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/kueue-no-flavor-fits.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    if ctx.kueue.local_queues.is_empty() {
        return;
    }
    let gate = ctx.settings.comparison_operators;
    for w in ctx.workloads {
        let (Some(sub), Some(no_fit)) = (&w.kueue, ctx.kueue.no_fit(w, gate)) else {
            continue;
        };
        let NoFit {
            local_queue,
            cluster_queue,
            resources,
            refusals,
        } = no_fit;
        // Kueue's status message sorts the reasons and joins them with commas.
        let mut reasons: Vec<&str> = refusals.iter().map(|r| r.reason.as_str()).collect();
        reasons.sort_unstable();
        let names: Vec<String> = refusals
            .iter()
            .map(|r| format!("`{}`", r.flavor.name))
            .collect();
        let resources: Vec<String> = resources.iter().map(|r| format!("`{r}`")).collect();
        // A custom resource has several pod templates (a JobSet's replicated jobs, a RayJob's
        // head and worker groups): the message names the one judged.
        let (group, _) = crate::model::split_api_version(&w.object.api_version);
        let template = if crate::model::pod_spec_path(&w.kind, group).is_some() {
            String::new()
        } else {
            format!(" (`{}`)", w.spec_path)
        };
        let mut f = META
            .finding(format!(
                "no flavor of ClusterQueue `{}` (LocalQueue `{}`) can take this {}'s pods{template} for {}: Kueue never admits it ({})",
                cluster_queue.name,
                local_queue.name,
                w.kind,
                resources.join(", "),
                reasons.join(", ")
            ))
            .primary(sub.span, "submitted here")
            .help(format!(
                "make the pod template tolerate the taint and match the nodeLabels of one of the flavors {} (or give the flavor the toleration), or submit it to a queue whose ClusterQueue has a flavor for it",
                names.join(", ")
            ))
            .field(format!(
                "{}metadata.labels.{}",
                if &*w.kind == "CronJob" {
                    "spec.jobTemplate."
                } else {
                    ""
                },
                crate::analysis::types::kueue::QUEUE_LABEL
            ))
            .in_file(&w.source);
        for r in &refusals {
            f.related.push(Related {
                source: r.flavor.loc.source.clone(),
                span: r.flavor.loc.span,
                message: r.reason.clone(),
            });
        }
        f.object = Some(w.object.clone());
        out.push(f);
    }
}
