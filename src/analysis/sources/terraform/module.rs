//! Modules as Terraform reads them: a module is a directory, all of whose `.tf` files are one
//! configuration; a root module's variables take their values from `terraform.tfvars`,
//! `terraform.tfvars.json` and `*.auto.tfvars(.json)` (in that order, later files winning),
//! else their defaults
//! (<https://developer.hashicorp.com/terraform/language/values/variables#variable-definition-precedence>);
//! a called module's from the call's arguments, else their defaults. Locals are evaluated when
//! first used (a cycle is unknown). A module call with a local `source` (`./…`, `../…`) is read
//! from its directory, with the call's arguments, once per instance of the call.
//!
//! The directories a root calls are read (by the [`Loader`], which confines them to the
//! repository) before anything is evaluated; their number, the depth of calls and the
//! instances of calls are bounded, and a module that calls itself (directly or not) is not
//! read again inside itself.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Body};

use super::eval::{Cx, Env};
use super::parse::Parsed;
use super::value::{Meter, V, Val};
use crate::analysis::types::NodeDecl;
use crate::analysis::types::terraform::{Cause, ModuleCall};
use crate::load::SourceFile;

/// How deep module calls may nest.
const MAX_CALL_DEPTH: usize = 12;
/// Module directories one root may read.
const MAX_DIRS: usize = 200;
/// Module instances one root may evaluate.
const MAX_INSTANCES: u32 = 2_000;
/// Work units per byte of the files evaluated, over a fixed allowance (see `eval`).
const UNITS_PER_BYTE: u64 = 8;
const BASE_UNITS: u64 = 2_000_000;

/// One `.tf` file of a module directory, parsed.
pub struct DirFile {
    pub source: Arc<SourceFile>,
    pub(super) parsed: Arc<Parsed>,
}

impl DirFile {
    /// Parses a file (`None`: it does not parse; its syntax error is reported where the file
    /// is linted).
    pub fn parse(source: Arc<SourceFile>) -> Option<DirFile> {
        let parsed = super::parse::parse(&source.text).ok()?;
        Some(DirFile {
            source,
            parsed: Arc::new(parsed),
        })
    }
}

/// A module directory: its `.tf` files and (for a root) its variable files.
pub struct Dir {
    /// The directory as the run names files (`infra/terraform`).
    pub path: String,
    pub files: Vec<DirFile>,
    /// `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars(.json)` by name.
    pub tfvars: Vec<Arc<SourceFile>>,
}

/// Finds the directory of a local module `source` called from `from`.
pub trait Loader {
    /// The directory (already read), or why it is not read (outside the repository, a link,
    /// not a directory...).
    fn module(&mut self, from: &Dir, source: &str) -> Result<Arc<Dir>, String>;
}

/// Is `source` a local path (`./x`, `../x`)? Terraform reads only those from the disk.
pub fn is_local(source: &str) -> bool {
    source.starts_with("./") || source.starts_with("../") || source == "." || source == ".."
}

/// The `source` strings of a body's local module calls.
pub(super) fn local_sources(body: &Body) -> Vec<String> {
    body.get_blocks("module")
        .filter_map(|b| match b.body.get_attribute("source").map(|a| &a.value) {
            Some(Expression::String(s)) if is_local(s.value()) => Some(s.value().to_string()),
            _ => None,
        })
        .collect()
}

/// What one root gives: its pools, and the module directories it read.
pub struct RootOutcome {
    pub decls: Vec<NodeDecl>,
    /// Every directory evaluated (the root first), as named in [`Dir::path`].
    pub dirs: Vec<String>,
}

/// The files of one evaluation (numbered for [`super::value::At`]) and its shared state.
pub(super) struct Tree {
    pub(super) files: Vec<Arc<SourceFile>>,
    pub(super) meter: Meter,
    dirs: HashMap<String, (Arc<Dir>, u32)>,
    instances: Cell<u32>,
    pub(super) root: String,
}

/// Evaluates the root module `root` and the local modules it calls (read through `loader`),
/// and gives the node pools they declare.
pub fn evaluate_root(root: Arc<Dir>, loader: &mut dyn Loader) -> RootOutcome {
    // Read every directory the root reaches first (sources are literals in Terraform).
    let mut dirs: HashMap<String, (Arc<Dir>, u32)> = HashMap::new();
    let mut files: Vec<Arc<SourceFile>> = Vec::new();
    let mut queue: Vec<(Arc<Dir>, usize)> = vec![(Arc::clone(&root), 0)];
    let add = |d: &Arc<Dir>,
               files: &mut Vec<Arc<SourceFile>>,
               dirs: &mut HashMap<String, (Arc<Dir>, u32)>| {
        let base = u32::try_from(files.len()).unwrap_or(u32::MAX);
        files.extend(d.files.iter().map(|f| Arc::clone(&f.source)));
        dirs.insert(d.path.clone(), (Arc::clone(d), base));
    };
    add(&root, &mut files, &mut dirs);
    let mut resolved: HashMap<(String, String), Option<String>> = HashMap::new();
    while let Some((dir, depth)) = queue.pop() {
        if depth >= MAX_CALL_DEPTH {
            continue;
        }
        for f in &dir.files {
            for source in local_sources(&f.parsed.body) {
                let key = (dir.path.clone(), source.clone());
                if resolved.contains_key(&key) || dirs.len() >= MAX_DIRS {
                    continue;
                }
                let got = loader.module(&dir, &source).ok();
                resolved.insert(key, got.as_ref().map(|d| d.path.clone()));
                if let Some(d) = got
                    && !dirs.contains_key(&d.path)
                {
                    add(&d, &mut files, &mut dirs);
                    queue.push((d, depth + 1));
                }
            }
        }
    }
    let bytes: u64 = files.iter().map(|f| f.text.len() as u64).sum();
    let tree = Tree {
        files,
        meter: Meter::new(BASE_UNITS.saturating_add(bytes.saturating_mul(UNITS_PER_BYTE))),
        dirs,
        instances: Cell::new(0),
        root: root.path.clone(),
    };
    let resolved: HashMap<(String, String), String> = resolved
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    let mut out = super::Tf::new(&tree);
    let mut seen = vec![root.path.clone()];
    let root_inst = Inst::new(&tree, &root, 0, Inputs::Root, Vec::new(), Vec::new());
    root_inst.pools(&mut out, &resolved, &mut seen);
    seen.sort();
    seen.dedup();
    // The root first.
    seen.retain(|d| *d != root.path);
    seen.insert(0, root.path.clone());
    // In the order of the files and their lines (instances of one block in Terraform's
    // order of their keys).
    let mut decls = out.out;
    decls.sort_by(|a, b| place_key(&a.loc).cmp(&place_key(&b.loc)));
    RootOutcome { decls, dirs: seen }
}

fn place_key(p: &crate::analysis::types::Place) -> (&str, usize) {
    match p {
        crate::analysis::types::Place::Here(l) => (&l.source.name, l.span.start),
        crate::analysis::types::Place::Stored { span, .. } => ("", span.start),
    }
}

/// Where a module instance's variables come from.
pub(super) enum Inputs {
    /// The root module: the variable files, then defaults.
    Root,
    /// A call's arguments (evaluated), then defaults.
    Call(HashMap<String, Val>),
}

/// One instance of a module.
pub(super) struct Inst<'t> {
    pub(super) tree: &'t Tree,
    pub(super) dir: &'t Dir,
    /// The number of the directory's first file.
    base: u32,
    vars: HashMap<String, Val>,
    locals: HashMap<&'t str, (u32, &'t Expression)>,
    memo: RefCell<HashMap<&'t str, Option<Val>>>,
    /// The module calls from the root to here.
    pub(super) calls: Vec<ModuleCall>,
    /// The directories from the root to here (a module does not call itself).
    stack: Vec<String>,
}

impl Env for Inst<'_> {
    fn meter(&self) -> &Meter {
        &self.tree.meter
    }

    fn var(&self, name: &str) -> Val {
        self.vars
            .get(name)
            .cloned()
            // Not declared here (a file read alone, whose variables are in other files).
            .unwrap_or_else(|| Val::unknown(Cause::Variable(Arc::from(name))))
    }

    fn local(&self, name: &str) -> Val {
        let Some(&(file, expr)) = self.locals.get(name) else {
            return Val::unknown(Cause::Invalid(Arc::from(
                format!("no local `{name}`").as_str(),
            )));
        };
        let key = self
            .locals
            .get_key_value(name)
            .map(|(k, _)| *k)
            .unwrap_or("");
        match self.memo.borrow().get(key) {
            Some(Some(v)) => return v.clone(),
            Some(None) => {
                return Val::unknown(Cause::Invalid(Arc::from(
                    format!("`local.{name}` refers to itself").as_str(),
                )));
            }
            None => {}
        }
        self.memo.borrow_mut().insert(key, None);
        let v = Cx::new(self, file).eval(expr);
        self.memo.borrow_mut().insert(key, Some(v.clone()));
        v
    }

    fn module(&self, name: &str) -> Val {
        Val::unknown(Cause::Module(Arc::from(format!("module.{name}").as_str())))
    }

    fn path(&self, which: &str) -> Val {
        let p = if which == "root" {
            &self.tree.root
        } else {
            &self.dir.path
        };
        Val::str(p)
    }

    fn renamed(&self, file: u32, at: usize) -> Option<&str> {
        let f = file.checked_sub(self.base)? as usize;
        self.dir
            .files
            .get(f)?
            .parsed
            .renamed
            .get(&at)
            .map(String::as_str)
    }
}

impl<'t> Inst<'t> {
    pub(super) fn new(
        tree: &'t Tree,
        dir: &'t Dir,
        base: u32,
        inputs: Inputs,
        calls: Vec<ModuleCall>,
        mut stack: Vec<String>,
    ) -> Inst<'t> {
        stack.push(dir.path.clone());
        let mut inst = Inst {
            tree,
            dir,
            base,
            vars: HashMap::new(),
            locals: HashMap::new(),
            memo: RefCell::new(HashMap::new()),
            calls,
            stack,
        };
        for (i, f) in dir.files.iter().enumerate() {
            let file = base + i as u32;
            for b in f.parsed.body.get_blocks("locals") {
                for a in b.body.attributes() {
                    inst.locals.insert(a.key.as_str(), (file, &a.value));
                }
            }
        }
        let tfvars = match &inputs {
            Inputs::Root => tfvars(tree, dir),
            Inputs::Call(_) => HashMap::new(),
        };
        let mut vars = HashMap::new();
        for (i, f) in dir.files.iter().enumerate() {
            let file = base + i as u32;
            for b in f.parsed.body.get_blocks("variable") {
                let Some(name) = b.labels.first().map(|l| l.as_str().to_string()) else {
                    continue;
                };
                let given = match &inputs {
                    Inputs::Root => tfvars.get(&name).cloned(),
                    Inputs::Call(args) => args.get(&name).cloned(),
                };
                let nullable = b
                    .body
                    .get_attribute("nullable")
                    .map(|a| !matches!(&a.value, Expression::Bool(x) if !*x.value()))
                    .unwrap_or(true);
                let default = b.body.get_attribute("default").map(|a| &a.value);
                let value = match (given, default) {
                    // `nullable = false`: a null argument takes the default.
                    (Some(v), Some(d)) if v.is_null() && !nullable => Cx::new(&inst, file).eval(d),
                    (Some(v), _) => v,
                    (None, Some(d)) => Cx::new(&inst, file).eval(d),
                    (None, None) => Val::unknown(Cause::Variable(Arc::from(name.as_str()))),
                };
                let value = match b.body.get_attribute("type") {
                    Some(t) => {
                        let mut cx = Cx::new(&inst, file);
                        super::types::convert(&mut cx, value, &t.value)
                    }
                    None => value,
                };
                vars.insert(name, value);
            }
        }
        inst.vars = vars;
        inst
    }

    /// The pools of this instance and the modules it calls.
    pub(super) fn pools(
        &self,
        out: &mut super::Tf<'_>,
        resolved: &HashMap<(String, String), String>,
        seen: &mut Vec<String>,
    ) {
        for (i, f) in self.dir.files.iter().enumerate() {
            let file = self.base + i as u32;
            for block in f.parsed.body.blocks() {
                match (block.ident.as_str(), label(block, 0), label(block, 1)) {
                    ("resource", Some(kind), Some(name)) if super::is_pool_kind(kind) => {
                        out.resource(self, file, block, kind, name);
                    }
                    ("module", Some(name), _) => {
                        self.module_call(out, file, block, name, resolved, seen)
                    }
                    _ => {}
                }
            }
        }
    }

    fn module_call(
        &self,
        out: &mut super::Tf<'_>,
        file: u32,
        block: &'t Block,
        name: &str,
        resolved: &HashMap<(String, String), String>,
        seen: &mut Vec<String>,
    ) {
        let body = &block.body;
        let source = match body.get_attribute("source").map(|a| &a.value) {
            Some(Expression::String(s)) => s.value().to_string(),
            _ => return,
        };
        let local = is_local(&source);
        if !local && !super::is_pool_module(&source) {
            return;
        }
        let base = format!("module.{name}");
        let indexed = block.span().is_some_and(|r| {
            self.tree
                .files
                .get(file as usize)
                .and_then(|f| f.text.get(r))
                .is_some_and(|t| t.contains("count.index"))
        });
        for instance in super::instances(self, file, body, &base, indexed) {
            let mut cx = Cx::new(self, file);
            cx.names = instance.names.clone();
            let mut args = HashMap::new();
            for a in body.attributes() {
                let key = a.key.as_str();
                if matches!(
                    key,
                    "source" | "version" | "count" | "for_each" | "providers" | "depends_on"
                ) {
                    continue;
                }
                args.insert(key.to_string(), cx.eval(&a.value));
            }
            out.copies = instance.copies;
            out.instance_unknown = instance.unknown.clone();
            if !local {
                out.registry_module(self, file, &source, &args, block);
                out.copies = Some(1);
                out.instance_unknown.clear();
                continue;
            }
            let Some(path) = resolved.get(&(self.dir.path.clone(), source.clone())) else {
                continue;
            };
            let Some((dir, base)) = self.tree.dirs.get(path) else {
                continue;
            };
            // A module that calls itself, or past the limits: not read again.
            let n = self.tree.instances.get();
            if self.stack.contains(path) || self.stack.len() >= MAX_CALL_DEPTH || n >= MAX_INSTANCES
            {
                continue;
            }
            self.tree.instances.set(n + 1);
            seen.push(path.clone());
            let mut calls = self.calls.clone();
            calls.push(ModuleCall {
                address: instance.address.clone().into(),
                source: source.clone().into(),
            });
            let copies = out.copies;
            let unknown = std::mem::take(&mut out.instance_unknown);
            let child = Inst::new(
                self.tree,
                dir,
                *base,
                Inputs::Call(args),
                calls,
                self.stack.clone(),
            );
            // A module instance of unknown number: its pools too.
            out.outer.push((copies, unknown));
            child.pools(out, resolved, seen);
            out.outer.pop();
            out.copies = Some(1);
        }
    }

    /// The number of the directory's `i`th file in the evaluation's table.
    pub(super) fn file_number(&self, i: usize) -> Option<u32> {
        (i < self.dir.files.len()).then(|| self.base + i as u32)
    }

    /// The module address prefix of pools declared here (`module.a.module.b.`).
    pub(super) fn prefix(&self) -> String {
        let mut s = String::new();
        for c in &self.calls {
            s.push_str(&c.address);
            s.push('.');
        }
        s
    }
}

fn label(block: &Block, i: usize) -> Option<&str> {
    block.labels.get(i).map(|l| l.as_str())
}

/// The root's variable values from its variable files (later files win).
fn tfvars(tree: &Tree, dir: &Dir) -> HashMap<String, Val> {
    let mut out = HashMap::new();
    for f in &dir.tfvars {
        if f.name.ends_with(".json") {
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&f.text) else {
                continue;
            };
            if let serde_json::Value::Object(map) = json {
                for (k, v) in map {
                    out.insert(k, from_json(&v, 0));
                }
            }
            continue;
        }
        let Ok(parsed) = super::parse::parse(&f.text) else {
            continue;
        };
        // Variable files hold constants: evaluated with no names in scope.
        let env = Consts {
            tree,
            parsed: &parsed,
        };
        for a in parsed.body.attributes() {
            let v = Cx::new(&env, u32::MAX).eval(&a.value);
            out.insert(a.key.as_str().to_string(), v);
        }
    }
    out
}

/// The scope of a variable file: no variables, no locals.
struct Consts<'a> {
    tree: &'a Tree,
    parsed: &'a Parsed,
}

impl Env for Consts<'_> {
    fn meter(&self) -> &Meter {
        &self.tree.meter
    }
    fn var(&self, name: &str) -> Val {
        Val::unknown(Cause::Invalid(Arc::from(
            format!("`var.{name}` in a variable file").as_str(),
        )))
    }
    fn local(&self, name: &str) -> Val {
        Val::unknown(Cause::Invalid(Arc::from(
            format!("`local.{name}` in a variable file").as_str(),
        )))
    }
    fn module(&self, name: &str) -> Val {
        Val::unknown(Cause::Module(Arc::from(format!("module.{name}").as_str())))
    }
    fn path(&self, _: &str) -> Val {
        Val::unknown(Cause::Environment(Arc::from("path")))
    }
    fn renamed(&self, _: u32, at: usize) -> Option<&str> {
        self.parsed.renamed.get(&at).map(String::as_str)
    }
}

/// A JSON value (of a `.tfvars.json` file) as a Terraform value.
fn from_json(v: &serde_json::Value, depth: u32) -> Val {
    use serde_json::Value as J;
    if depth > 64 {
        return Val::unknown(Cause::Limit("the nesting of expressions"));
    }
    match v {
        J::Null => Val::null(),
        J::Bool(b) => Val::new(V::Bool(*b), None),
        J::Number(n) => Val::new(V::Num(n.as_f64().unwrap_or(0.0)), None),
        J::String(s) => Val::str(s),
        J::Array(a) => Val::list(a.iter().map(|x| from_json(x, depth + 1)).collect(), None),
        J::Object(o) => Val::map(
            o.iter()
                .map(|(k, x)| (Arc::from(k.as_str()), from_json(x, depth + 1)))
                .collect(),
            None,
        ),
    }
}
