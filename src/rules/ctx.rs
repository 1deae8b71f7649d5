//! What a rule's hooks see: one object (`Ctx`), one file's workloads against the run's
//! inventory (`CrossCtx`), or the whole run (`RunCtx`, `Aggregate`).

use crate::diagnostic::Finding;
use crate::load::SourceFile;
use crate::load::yaml::Document;
use crate::model::{Object, Schema};
use crate::settings::Settings;

/// What a check sees: one object of one document, and the run's settings.
pub struct Ctx<'a> {
    pub object: &'a Object<'a>,
    pub document: &'a Document,
    pub source: &'a SourceFile,
    pub settings: &'a Settings,
    /// What [`super::decoding::walk`] finds in the object's typed fields ([`decoded`]), walked
    /// once for the decode rules that read it (`yaml-type-mismatch`, `unknown-field`).
    pub(crate) decoded: &'a [super::decoding::Problem<'a>],
}

/// The decoding walk of `object` for its [`Ctx`]: made when a decode rule runs, else empty.
pub(crate) fn decoded<'a>(
    object: &'a Object<'a>,
    rules: &super::RuleSet,
) -> Vec<super::decoding::Problem<'a>> {
    if rules.decodes() {
        super::decoding::walk(object)
    } else {
        Vec::new()
    }
}

impl Ctx<'_> {
    /// `f` with the server's answer `text` (which names the field by this object's own path):
    /// a built-in kind's `api_error`; for a custom resource the server answers for the pods its
    /// operator makes, not for the resource, so the answer is a help line saying so, the
    /// resource's field path in it (`spec.nodePlacement.tolerations[0].effect: …`).
    pub fn with_api(&self, f: Finding, text: impl FnOnce() -> String) -> Finding {
        match &self.object.schema {
            Schema::Builtin { .. } => f.api_error(text()),
            Schema::Custom => f.help_line(format!("{}: {}", self.rejected_by(), text())),
        }
    }

    /// A DaemonSet, or a static or mirror pod: node agents that are meant to run everywhere.
    pub fn is_node_agent(&self) -> bool {
        let o = self.object;
        if !self.is_builtin() {
            return false;
        }
        if o.kind == "DaemonSet" {
            return true;
        }
        if o.kind != "Pod" {
            return false;
        }
        let mirror = o.annotations.is_some_and(|a| {
            a.get("kubernetes.io/config.mirror").is_some()
                || a.get("kubernetes.io/config.source").is_some()
        });
        let owned_by_ds = o
            .node
            .path(&["metadata", "ownerReferences"])
            .and_then(crate::load::yaml::Node::as_seq)
            .is_some_and(|refs| {
                refs.iter().any(|r| {
                    matches!(
                        r.get("kind").and_then(crate::load::yaml::Node::text),
                        Some("DaemonSet" | "Node")
                    )
                })
            });
        mirror || owned_by_ds
    }

    /// Host-network or system-critical pods: infrastructure that must run on any node.
    pub fn is_system_pod(&self) -> bool {
        self.object.pod_specs.iter().any(|s| {
            s.host_network
                || matches!(
                    s.priority_class_name(),
                    Some("system-node-critical" | "system-cluster-critical")
                )
        })
    }

    pub fn is_builtin(&self) -> bool {
        matches!(self.object.schema, Schema::Builtin { .. })
    }

    /// Words for where this spec's pods come from, for messages about custom resources.
    pub fn rejected_by(&self) -> &'static str {
        if self.is_builtin() {
            "the API server rejects this object"
        } else {
            "pods created from this resource would be rejected by the API server"
        }
    }
}

pub type CheckFn = fn(&Ctx<'_>, &mut Vec<Finding>);

/// Reports `f` with the server's message from `api`: its `api_error` when the server validates
/// this object (a built-in kind, see [`Ctx::with_api`]).
pub(crate) fn push(
    ctx: &Ctx<'_>,
    out: &mut Vec<Finding>,
    f: Finding,
    api: impl FnOnce() -> String,
) {
    out.push(ctx.with_api(f, api));
}

/// Reports `f`, with the server's message from `api` as its `api_error` when the server
/// validates this object, nothing more for a custom resource: for fields that are not a pod's
/// (a node pool's taints), which no operator turns into pods.
pub(crate) fn push_server_only(
    ctx: &Ctx<'_>,
    out: &mut Vec<Finding>,
    f: Finding,
    api: impl FnOnce() -> String,
) {
    out.push(match &ctx.object.schema {
        Schema::Builtin { .. } => f.api_error(api()),
        Schema::Custom => f,
    });
}

/// What a cross-reference check sees: every workload and node pool of the run.
pub struct CrossCtx<'a> {
    pub inventory: &'a crate::analysis::sources::inventory::Inventory,
    pub workloads: &'a [crate::analysis::types::Workload],
    pub eval: &'a crate::analysis::judgements::schedule::Evaluation,
    pub settings: &'a Settings,
    /// The Kueue queues and flavors of the files of the workloads' cluster.
    pub kueue: &'a crate::analysis::types::kueue::Kueue,
}

pub type CrossFn = fn(&CrossCtx<'_>, &mut Vec<Finding>);

/// What a whole-run rule sees once every file is linted.
pub struct RunCtx<'a> {
    pub inventory: &'a crate::analysis::sources::inventory::Inventory,
    pub evaluator: &'a crate::analysis::judgements::schedule::Evaluator<'a>,
    pub settings: &'a Settings,
    /// The run's admission: accumulators keep workloads as written (see `analysis::judgements::admission`).
    pub admission: &'a crate::analysis::judgements::admission::Admission,
}

/// The accumulator of a whole-run rule. Files are linted in parallel: each gets an
/// accumulator of its own, merged into the run's as it finishes; the run's reports at the end.
pub trait Aggregate: Send {
    /// One file's workloads (never an `--inventory` file's).
    fn add(&mut self, workloads: &[crate::analysis::types::Workload]);
    /// Takes in what another accumulator of the same rule gathered.
    fn merge(&mut self, other: Box<dyn Aggregate>);
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
    /// The rule's findings for the whole run.
    fn report(self: Box<Self>, ctx: &RunCtx<'_>, out: &mut Vec<Finding>);
}
