//! Node pools in Terraform files, read with `hcl-edit` (the hcl-rs project's HCL parser, which
//! keeps byte spans, so each pool and taint points at its `.tf` line) and evaluated as
//! `terraform plan` evaluates them before it talks to a provider (`eval`, `funcs`, `module`):
//!
//! - `aws_eks_node_group`
//!   (<https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/eks_node_group>);
//! - `google_container_node_pool`, and `google_container_cluster`'s default pool and inline
//!   `node_pool` blocks
//!   (<https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool>,
//!   <https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster>);
//! - `azurerm_kubernetes_cluster_node_pool` and `azurerm_kubernetes_cluster.default_node_pool`
//!   (<https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/kubernetes_cluster_node_pool>);
//! - the terraform-aws-modules/eks module's `eks_managed_node_groups` and
//!   `self_managed_node_groups`
//!   (<https://registry.terraform.io/modules/terraform-aws-modules/eks/aws/latest>) and the
//!   terraform-google-modules/kubernetes-engine module's `node_pools`, `node_pools_labels` and
//!   `node_pools_taints`
//!   (<https://registry.terraform.io/modules/terraform-google-modules/kubernetes-engine/google/latest>);
//! - the same resources and module calls in modules called with a local `source`, read with
//!   each call's arguments; their pools are named by module address
//!   (`module.nodes.aws_eks_node_group.this["gpu"]`) and located at the module's own lines.
//!
//! With the labels and taints each provider (or module) documents adding to the nodes, and the
//! pool's size when its scaling limits are known (see each module).
//!
//! **Values.** Variables (from `terraform.tfvars`, `*.auto.tfvars`, their defaults, a module
//! call's arguments), locals, conditionals, `for` expressions, `count`/`for_each` and the usual
//! functions are evaluated across every `.tf` file of the module's directory. A value is
//! unknown only where it comes from outside the files (a data source, a resource attribute, a
//! variable with no value, a module output, a function of files or time), and an unknown part
//! stays local: an unknown label value is "present, any value", the other labels stay known;
//! a label map known in part (`merge(var.extra, { role = "gpu" })`) keeps its known labels and
//! may carry others; a taint with an unknown part, or taints from a `dynamic` block over an
//! unknown collection, make the pool's taints unknown (of that key, when the key is known); an
//! unknown size is no size. Each unknown part is recorded with its cause
//! ([`Provenance`](crate::analysis::types::terraform::Provenance)).
//!
//! **`count` and `for_each`.** A resource (or module call) with a known `for_each` is a pool
//! per key, addressed as Terraform does (`google_container_node_pool.pools["gpu"]`), with
//! `each.key` and `each.value` for that key. `count = 0` declares nothing; another known
//! `count` is one pool standing for its identical copies (`aws_eks_node_group.x[*]`, or `[0]`
//! for one), its size times the count, unless the body uses `count.index` (then a pool per
//! index, up to [`MAX_INDEXED`]). A `count` or `for_each` that is not known is one pool `[*]`
//! read with `each`/`count.index` unknown, of unknown size (there may be any number of them,
//! or none); a `for_each` known in part is a pool per known key and one `[*]` for the rest.

mod aks;
mod eks;
mod eval;
mod funcs;
mod gke;
mod hcl;
mod json;
mod module;
mod parse;
mod scan;
mod types;
mod value;

use std::collections::BTreeMap;
use std::sync::Arc;

use hcl_edit::Span as _;
use hcl_edit::structure::{Block, Body};

pub use self::module::{
    Dir, DirFile, EvalProblem, EvalProblemKind, Loader, RootOutcome, evaluate_root, is_local,
    is_override,
};
pub use self::parse::is_json;

use self::eval::Cx;
use self::hcl::{Pool, k8s_effect};
use self::module::{Inst, Merged, Tree};
use self::value::{At, V, Val};
use super::loc;
use crate::analysis::types::terraform::{Cause, Provenance, Unknown};
use crate::analysis::types::{NodeDecl, Place, PoolTaint, TaintSpec};
use crate::load::{SourceFile, Span};

/// A `count` whose index is used makes a pool per index up to this many; past it, one pool
/// `[*]` with the index unknown.
const MAX_INDEXED: u32 = 256;

/// Units of the root's meter one instance of a resource or module costs (see `instances`):
/// what evaluating its body and keeping its pool costs, roughly.
const INSTANCE_UNITS: u64 = 256;

/// Why a Terraform file does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HclError {
    pub message: String,
    pub at: usize,
    /// Not a syntax error: the file is past one of taintlint's limits (see `parse`).
    pub limit: bool,
}

/// What the per-file phase needs of a `.tf` file.
#[derive(Debug, Default)]
pub struct FileFacts {
    /// Keys repeated in an object constructor: (the dropped key, the one that wins, the key).
    pub repeats: Vec<(Span, Span, String)>,
    /// A `.tf.json` file's strings that are not valid templates: (where, why).
    pub bad_templates: Vec<(Span, String)>,
    /// It declares node-pool resources or calls a module (local, or one whose pools are read):
    /// its directory must be evaluated.
    pub evaluate: bool,
    /// Its local module calls' `source`s.
    pub local_sources: Vec<String>,
    /// It creates a Kubernetes cluster: an `aws_eks_cluster`, `google_container_cluster` or
    /// `azurerm_kubernetes_cluster` resource, or the EKS or GKE registry module (see
    /// `sources::clusters`).
    pub creates_cluster: bool,
}

/// Parses a Terraform file (`.tf`, or `.tf.json` by its name): its syntax error, or what the
/// run needs to know of it.
pub fn file_facts(name: &str, text: &str) -> Result<FileFacts, HclError> {
    let parsed = parse::parse_file(name, text)?;
    Ok(facts(&parsed))
}

/// Parses a Terraform file once for both what the run needs to know of it and its
/// directory's evaluation: its facts and the file parsed, or its syntax error.
pub fn read(source: Arc<SourceFile>) -> Result<(FileFacts, DirFile), HclError> {
    let parsed = parse::parse_file(&source.name, &source.text)?;
    let facts = facts(&parsed);
    Ok((
        facts,
        DirFile {
            source,
            parsed: Arc::new(parsed),
        },
    ))
}

fn facts(parsed: &parse::Parsed) -> FileFacts {
    let local_sources = module::local_sources(&parsed.body);
    let registry_pools = |b: &Block| {
        matches!(
            b.body.get_attribute("source").map(|a| &a.value),
            Some(hcl_edit::expr::Expression::String(s)) if is_pool_module(s.value())
        )
    };
    let evaluate = !local_sources.is_empty()
        || parsed
            .body
            .blocks()
            .any(|b| match (b.ident.as_str(), b.labels.first()) {
                ("resource", Some(kind)) => is_pool_kind(kind.as_str()),
                ("module", Some(_)) => registry_pools(b),
                _ => false,
            });
    let creates_cluster =
        parsed
            .body
            .blocks()
            .any(|b| match (b.ident.as_str(), b.labels.first()) {
                ("resource", Some(kind)) => matches!(
                    kind.as_str(),
                    "aws_eks_cluster" | "google_container_cluster" | "azurerm_kubernetes_cluster"
                ),
                ("module", Some(_)) => registry_pools(b),
                _ => false,
            });
    FileFacts {
        repeats: parsed.repeats.clone(),
        bad_templates: parsed.problems.clone(),
        evaluate,
        local_sources,
        creates_cluster,
    }
}

/// The local module `source`s a Terraform text seems to hold: every `source = "./…"` (or
/// `"source": "../…"`) string, found by a scan of the text, not a parse. It may find more
/// than the module calls there are (a `source` argument of some other block, one in a
/// comment), never fewer for a call whose `source` is a plain literal, as Terraform requires.
pub fn local_source_hints(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find("source") {
        let mut at = from + i + "source".len();
        from = at;
        // A JSON key's closing quote.
        if b.get(at) == Some(&b'"') {
            at += 1;
        }
        while matches!(b.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        match (b.get(at), b.get(at + 1)) {
            (Some(b'='), Some(b'=')) => continue,
            (Some(b'=' | b':'), _) => at += 1,
            _ => continue,
        }
        while matches!(b.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        if b.get(at) != Some(&b'"') {
            continue;
        }
        let rest = &text[at + 1..];
        let Some(end) = rest.find(['"', '\n']) else {
            continue;
        };
        let value = &rest[..end];
        if module::is_local(value) && !out.iter().any(|v| v == value) {
            out.push(value.to_string());
        }
    }
    out
}

/// The node pools declared in one Terraform file read alone, as a module directory of one
/// file (no variable files, no other files of its directory): what the language server knows
/// of an unsaved buffer, and standard input.
pub fn terraform_decls(source: &Arc<SourceFile>) -> Result<Vec<NodeDecl>, HclError> {
    let parsed = parse::parse_file(&source.name, &source.text)?;
    let name = source.name.to_string();
    let path = match name.rfind('/') {
        Some(i) => name[..i].to_string(),
        None => ".".to_string(),
    };
    let dir = Arc::new(Dir {
        path,
        files: vec![DirFile {
            source: Arc::clone(source),
            parsed: Arc::new(parsed),
        }],
        tfvars: Vec::new(),
    });
    struct NoModules;
    impl Loader for NoModules {
        fn module(&mut self, _: &Dir, _: &str) -> Result<Arc<Dir>, String> {
            Err("a file read alone".to_string())
        }
    }
    Ok(evaluate_root(dir, &mut NoModules).decls)
}

/// Might a file of this text make its directory one to evaluate (a node-pool resource, or a
/// module call)? A scan for the names, not a parse: `false` only when it cannot.
pub fn may_evaluate(text: &str) -> bool {
    text.contains("module") || POOL_KINDS.iter().any(|k| text.contains(k))
}

/// The resource types whose instances are node pools.
const POOL_KINDS: [&str; 5] = [
    "aws_eks_node_group",
    "google_container_node_pool",
    "google_container_cluster",
    "azurerm_kubernetes_cluster_node_pool",
    "azurerm_kubernetes_cluster",
];

/// The resource types whose instances are node pools ([`POOL_KINDS`]).
fn is_pool_kind(kind: &str) -> bool {
    POOL_KINDS.contains(&kind)
}

/// The registry modules whose node groups are read.
fn is_pool_module(source: &str) -> bool {
    is_eks_module(source) || is_gke_module(source)
}

fn is_eks_module(source: &str) -> bool {
    (source.contains("terraform-aws-modules/eks/aws") || source.contains("terraform-aws-eks"))
        && !source.contains("//modules/")
}

fn is_gke_module(source: &str) -> bool {
    source.contains("terraform-google-modules/kubernetes-engine/google")
}

/// One instance of a resource or module call, as Terraform addresses it.
struct Instance {
    address: String,
    /// `each` or `count` for it.
    names: Vec<(Arc<str>, Val)>,
    /// How many identical copies it stands for (`None`: unknown).
    copies: Option<u32>,
    /// Why its number is not known.
    unknown: Vec<Unknown>,
}

/// The instances of a resource or module block (see the module's text on `count` and
/// `for_each`). `indexed`: the body uses `count.index`.
fn instances(inst: &Inst<'_>, m: &Merged<'_>, base: &str, indexed: bool) -> Vec<Instance> {
    let each = |key: Val, value: Val| -> Vec<(Arc<str>, Val)> {
        let mut m = BTreeMap::new();
        m.insert(Arc::from("key"), key);
        m.insert(Arc::from("value"), value);
        vec![(Arc::from("each"), Val::map(m, None))]
    };
    let unknown_one = |what: &str, cause: Cause, names: Vec<(Arc<str>, Val)>| Instance {
        address: format!("{base}[*]"),
        names,
        copies: None,
        unknown: vec![Unknown {
            what: what.into(),
            cause,
        }],
    };
    if let Some((file, fe)) = m.attr("for_each") {
        let v = Cx::new(inst, file).eval(&fe.value);
        let unknown_each = |c: &Cause| each(Val::unknown(c.clone()), Val::unknown(c.clone()));
        let (pairs, more): (Vec<(String, Val)>, Option<Cause>) = match &v.v {
            V::Map(o) => (
                o.entries
                    .iter()
                    .map(|(k, x)| (k.to_string(), x.clone()))
                    .collect(),
                o.more.clone(),
            ),
            // A set of strings: each element is its key and value.
            V::List(s) => {
                let mut pairs = Vec::new();
                let mut more = s.more.clone();
                for x in &s.items {
                    match (x.text(), x.cause()) {
                        (Some(t), _) => pairs.push((t, x.clone())),
                        (None, Some(c)) => more = Some(c.clone()),
                        (None, None) => {}
                    }
                }
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
                pairs.dedup_by(|a, b| a.0 == b.0);
                (pairs, more)
            }
            V::Unknown(c) => return vec![unknown_one("for_each", c.clone(), unknown_each(c))],
            _ => return Vec::new(),
        };
        // Each instance is a pool (or a module's worth of them) for every judgement after:
        // charged to the root's meter, so that a short `for_each` over a long collection
        // cannot make more than the files' size allows. Past it, the rest are one instance
        // whose number is not known.
        let meter = eval::Env::meter(inst);
        let mut out: Vec<Instance> = Vec::new();
        let mut more = more;
        for (k, value) in pairs {
            if !meter.charge(INSTANCE_UNITS) {
                meter.note_spent(Cx::new(inst, file).at(fe.value.span()));
                more = Some(Cause::Limit("the instances of a `for_each`"));
                break;
            }
            out.push(Instance {
                address: format!("{base}[\"{k}\"]"),
                names: each(Val::str(&k), value),
                copies: Some(1),
                unknown: Vec::new(),
            });
        }
        if let Some(c) = more {
            out.push(unknown_one("for_each", c.clone(), unknown_each(&c)));
        }
        return out;
    }
    let Some((file, count)) = m.attr("count") else {
        return vec![Instance {
            address: base.to_string(),
            names: Vec::new(),
            copies: Some(1),
            unknown: Vec::new(),
        }];
    };
    let v = Cx::new(inst, file).eval(&count.value);
    let index = |i: Val| -> Vec<(Arc<str>, Val)> {
        let mut m = BTreeMap::new();
        m.insert(Arc::from("index"), i);
        vec![(Arc::from("count"), Val::map(m, None))]
    };
    match (v.count(), v.cause()) {
        (Some(0), _) => Vec::new(),
        (Some(n), _) if indexed && n <= MAX_INDEXED => (0..n)
            .map(|i| Instance {
                address: format!("{base}[{i}]"),
                names: index(Val::new(V::Num(f64::from(i)), None)),
                copies: Some(1),
                unknown: Vec::new(),
            })
            .collect(),
        (Some(n), _) => {
            let c = Cause::Limit("pools per index of a `count`");
            vec![Instance {
                address: if n == 1 {
                    format!("{base}[0]")
                } else {
                    format!("{base}[*]")
                },
                names: index(if n == 1 {
                    Val::new(V::Num(0.0), None)
                } else {
                    Val::unknown(c)
                }),
                copies: Some(n),
                unknown: Vec::new(),
            }]
        }
        (None, Some(c)) => vec![unknown_one(
            "count",
            c.clone(),
            index(Val::unknown(c.clone())),
        )],
        (None, None) => Vec::new(),
    }
}

/// A block's body as a value: its attributes, and its blocks as lists under their type
/// (`dynamic` blocks expanded over their `for_each`; one over an unknown collection leaves the
/// list known only in part). The body is the merge of a block and its overrides (see
/// [`Merged`]), each part read in its own file.
fn body_val(cx: &mut Cx<'_>, m: &Merged<'_>, at: Option<At>) -> Val {
    fields_val(cx, m.attributes(), m.blocks(), at, true)
}

fn block_val(cx: &mut Cx<'_>, body: &Body, at: Option<At>) -> Val {
    let file = cx.file;
    fields_val(
        cx,
        body.attributes().map(|a| (file, a)).collect(),
        body.blocks().map(|b| (file, b)).collect(),
        at,
        false,
    )
}

fn fields_val(
    cx: &mut Cx<'_>,
    attributes: Vec<(u32, &hcl_edit::structure::Attribute)>,
    blocks: Vec<(u32, &Block)>,
    at: Option<At>,
    top: bool,
) -> Val {
    let mut entries: BTreeMap<Arc<str>, Val> = BTreeMap::new();
    let mut lists: BTreeMap<Arc<str>, (Vec<Val>, Option<Cause>)> = BTreeMap::new();
    let home = cx.file;
    for (file, a) in attributes {
        // The instance's own `for_each`/`count` are read once for all instances, never per
        // instance (a map of N keys read N times would be quadratic).
        if top
            && matches!(
                a.key.as_str(),
                "for_each" | "count" | "depends_on" | "provider"
            )
        {
            continue;
        }
        cx.file = file;
        let v = cx.eval(&a.value);
        entries.insert(Arc::from(a.key.as_str()), v);
    }
    for (file, b) in blocks {
        cx.file = file;
        block_entry(cx, b, &mut lists);
    }
    cx.file = home;
    for (k, (items, more)) in lists {
        entries.insert(k, Val::list(items, more));
    }
    Val::map(entries, None).with_at(at)
}

/// A nested block (or the blocks a `dynamic` block makes) added to the lists of its type.
fn block_entry(
    cx: &mut Cx<'_>,
    b: &Block,
    lists: &mut BTreeMap<Arc<str>, (Vec<Val>, Option<Cause>)>,
) {
    if !cx.env.meter().charge(1) {
        return;
    }
    let bat = cx.at(b.span());
    if b.ident.as_str() != "dynamic" {
        let v = block_val(cx, &b.body, bat);
        lists
            .entry(Arc::from(b.ident.as_str()))
            .or_default()
            .0
            .push(v);
        return;
    }
    let Some(kind) = b.labels.first().map(|l| l.as_str().to_string()) else {
        return;
    };
    let list = lists.entry(Arc::from(kind.as_str())).or_default();
    let iterator: Arc<str> = match b.body.get_attribute("iterator").map(|a| &a.value) {
        Some(hcl_edit::expr::Expression::Variable(v)) => Arc::from(v.as_str()),
        _ => Arc::from(kind.as_str()),
    };
    let Some(content) = b.body.get_blocks("content").next() else {
        return;
    };
    let coll = match b.body.get_attribute("for_each") {
        Some(fe) => cx.eval(&fe.value),
        None => return,
    };
    let (pairs, more) = match eval::iteration(&coll) {
        Ok(x) => x,
        Err(v) => {
            list.1 = Some(v.cause().cloned().unwrap_or(Cause::Limit("dynamic blocks")));
            return;
        }
    };
    if more.is_some() {
        list.1 = more;
    }
    let mut made = Vec::new();
    for (k, v) in pairs {
        let mut m = BTreeMap::new();
        m.insert(Arc::from("key"), k);
        m.insert(Arc::from("value"), v);
        cx.names.push((Arc::clone(&iterator), Val::map(m, None)));
        let cat = cx.at(content.span()).or(bat);
        made.push(block_val(cx, &content.body, cat));
        cx.names.pop();
    }
    if let Some(l) = lists.get_mut(kind.as_str()) {
        l.0.extend(made);
    }
}

/// Where pools go as they are read: the evaluation's files, and the instance being read.
struct Tf<'t> {
    tree: &'t Tree,
    out: Vec<NodeDecl>,
    /// How many copies the instance being read stands for.
    copies: Option<u32>,
    /// Why the instance's number is unknown.
    instance_unknown: Vec<Unknown>,
    /// The module instances around it: their copies and unknowns.
    outer: Vec<(Option<u32>, Vec<Unknown>)>,
    /// The module instance being read (its address prefix and calls).
    prefix: String,
    calls: Vec<crate::analysis::types::terraform::ModuleCall>,
    /// Where a pool without a place of its own is shown (a registry module's call).
    fallback: Option<At>,
}

impl<'t> Tf<'t> {
    fn new(tree: &'t Tree) -> Self {
        Tf {
            tree,
            out: Vec::new(),
            copies: Some(1),
            instance_unknown: Vec::new(),
            outer: Vec::new(),
            prefix: String::new(),
            calls: Vec::new(),
            fallback: None,
        }
    }

    fn place(&self, at: Option<At>) -> Option<Place> {
        let at = at?;
        let source = self.tree.files.get(at.file as usize)?;
        Some(loc(source, self.tree.file_span(at.file, at.span)))
    }

    fn taint(&self, key: &str, value: &str, effect: &str, at: Option<At>) -> PoolTaint {
        PoolTaint {
            taint: TaintSpec::new(key, value, &k8s_effect(effect)).shared(),
            loc: self.place(at),
            startup: false,
        }
    }

    /// A taint the provider adds (no place of its own in the file).
    fn provider_taint(&self, key: &str, value: &str, effect: &str) -> PoolTaint {
        self.taint(key, value, effect, None)
    }

    /// A taint object or block `{ key, value, effect }`; a part that is not known makes the
    /// taints of its key unknown (any key's, when the key is not known).
    fn taint_fields(&self, pool: &mut Pool, t: &Val) {
        if let Some(c) = t.cause() {
            pool.open_taints(c);
            return;
        }
        let key = hcl::field(t, "key");
        let Some(key) = key.as_ref().and_then(Val::text) else {
            let c = key
                .and_then(|k| k.cause().cloned())
                .unwrap_or_else(|| hcl::wrong("a taint key"));
            pool.open_taints(&c);
            return;
        };
        let value = match hcl::field(t, "value") {
            None => Some(String::new()),
            Some(v) => {
                pool.note_val(&format!("taints.{key}"), &v);
                v.text()
            }
        };
        let effect = hcl::field(t, "effect");
        if let Some(e) = &effect {
            pool.note_val(&format!("taints.{key}"), e);
        }
        match (value, effect.as_ref().and_then(Val::text)) {
            (Some(value), Some(effect)) => {
                let taint = self.taint(&key, &value, &effect, t.at);
                pool.taints.push(taint);
            }
            _ => pool.unknown_taints.add_key(&key),
        }
    }

    /// A list (or map, as the EKS module takes it) of taint objects or blocks.
    fn taint_list(&self, pool: &mut Pool, v: Option<&Val>) {
        let Some(v) = v else { return };
        if v.is_null() {
            return;
        }
        let (items, more) = match (v.as_obj(), v.as_seq(), v.cause()) {
            (Some(o), _, _) => (o.entries.values().cloned().collect(), o.more.clone()),
            (None, Some(_), _) => hcl::list_items(Some(v)),
            (None, None, Some(c)) => (Vec::new(), Some(c.clone())),
            _ => (Vec::new(), Some(hcl::wrong("taints"))),
        };
        if let Some(c) = more {
            pool.open_taints(&c);
        }
        for t in &items {
            if !t.is_null() {
                self.taint_fields(pool, t);
            }
        }
    }

    fn push(&mut self, origin: &'static str, name: String, mut pool: Pool, at: Option<At>) {
        let mut labels = pool.labels;
        labels.shrink_to_fit();
        let mut copies = self.copies;
        let mut unknown = std::mem::take(&mut pool.unknown);
        unknown.extend(self.instance_unknown.iter().cloned());
        for (c, u) in &self.outer {
            copies = match (copies, c) {
                (Some(a), Some(b)) => a.checked_mul(*b),
                _ => None,
            };
            unknown.extend(u.iter().cloned());
        }
        let max_nodes = match (pool.max_nodes, copies) {
            (Some(n), Some(c)) => n.checked_mul(c),
            _ => None,
        };
        unknown.sort_by(|a, b| a.what.cmp(&b.what));
        unknown.dedup_by(|a, b| a.what == b.what);
        let Some(loc) = self.place(at.or(self.fallback)) else {
            return;
        };
        let name = format!("{}{name}", self.prefix);
        let provenance = Provenance {
            root: self.tree.root.clone().into(),
            modules: self.calls.clone(),
            address: name.clone().into(),
            unknown,
        };
        self.out.push(NodeDecl {
            origin,
            name,
            is_node: false,
            max_nodes,
            labels,
            taints: pool.taints,
            unschedulable: false,
            open_labels: true,
            any_label: pool.any_label,
            extended_resource_toleration: pool.extended_resource_toleration,
            unknown_taints: pool.unknown_taints,
            scaling: None,
            loc,
            declared: false,
            terraform: Some(Arc::new(provenance)),
        });
    }

    /// Sets the module instance whose pools are read next.
    fn enter(&mut self, inst: &Inst<'_>) {
        self.prefix = inst.prefix();
        self.calls.clone_from(&inst.calls);
    }

    fn resource(&mut self, inst: &Inst<'_>, m: &Merged<'_>, kind: &str, name: &str) {
        self.enter(inst);
        let file = m.file();
        let at = m
            .block()
            .and_then(|b| b.labels.get(1))
            .and_then(|l| l.span())
            .map(|r| At {
                file,
                span: Span::new(r.start, r.end.max(r.start)),
            });
        let indexed = m.attr("count").is_some() && m.uses_count_index();
        for instance in instances(inst, m, &format!("{kind}.{name}"), indexed) {
            let mut cx = Cx::new(inst, file);
            cx.names = instance.names;
            let body = body_val(&mut cx, m, at);
            self.copies = instance.copies;
            self.instance_unknown = instance.unknown;
            self.instance(inst, &body, kind, instance.address, at);
        }
        self.copies = Some(1);
        self.instance_unknown.clear();
    }

    /// One instance of a node-pool resource, at `address`.
    fn instance(
        &mut self,
        inst: &Inst<'_>,
        body: &Val,
        kind: &str,
        address: String,
        at: Option<At>,
    ) {
        match kind {
            "aws_eks_node_group" => {
                let pool = self.eks_node_group(body);
                self.push("Terraform", address, pool, at);
            }
            "google_container_node_pool" => {
                let zones = gke::zones(body, None);
                let name = hcl::field(body, "name").and_then(|n| n.text());
                let wi = gke::cluster_identity(inst, body);
                let pool = self.gke_pool(body, name, zones, wi);
                self.push("Terraform", address, pool, at);
            }
            "google_container_cluster" => self.gke_cluster(body, &address, at),
            "azurerm_kubernetes_cluster_node_pool" => {
                let pool = self.aks_pool(body);
                self.push("Terraform", address, pool, at);
            }
            "azurerm_kubernetes_cluster" => {
                let (pools, _) = hcl::list_items(body.get("default_node_pool"));
                for np in pools {
                    let pool = self.aks_pool(&np);
                    let np_at = np.at.or(at);
                    self.push(
                        "Terraform",
                        format!("{address}.default_node_pool"),
                        pool,
                        np_at,
                    );
                }
            }
            _ => {}
        }
    }

    /// A registry module's pools (its arguments evaluated).
    fn registry_module(
        &mut self,
        inst: &Inst<'_>,
        file: u32,
        source: &str,
        args: &std::collections::HashMap<String, Val>,
        block: &Block,
    ) {
        self.enter(inst);
        let mut entries = BTreeMap::new();
        entries.extend(args.iter().map(|(k, v)| (Arc::from(k.as_str()), v.clone())));
        self.fallback = block.labels.first().and_then(|l| l.span()).map(|r| At {
            file,
            span: Span::new(r.start, r.end.max(r.start)),
        });
        let body = Val::map(entries, None);
        if is_eks_module(source) {
            self.eks_module(&body);
        } else if is_gke_module(source) {
            self.gke_module(&body);
        }
        self.fallback = None;
    }
}

#[cfg(test)]
mod tests;
