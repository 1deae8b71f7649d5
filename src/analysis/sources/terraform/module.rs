//! Modules as Terraform reads them: a module is a directory, all of whose `.tf` and `.tf.json`
//! files are one configuration, its override files (`override.tf`, `*_override.tf` and their
//! `.tf.json` forms) merged into it after the others
//! (<https://developer.hashicorp.com/terraform/language/files/override>: see [`Merged`]); a
//! root module's variables take their values from `terraform.tfvars`,
//! `terraform.tfvars.json` and `*.auto.tfvars(.json)` (in that order, later files winning),
//! else their defaults
//! (<https://developer.hashicorp.com/terraform/language/values/variables#variable-definition-precedence>);
//! a called module's from the call's arguments, else their defaults. Locals are evaluated when
//! first used (a cycle is unknown). A module call with a local `source` (`./…`, `../…`) is read
//! from its directory, with the call's arguments, once per instance of the call, for its
//! pools; `module.NAME.OUTPUT` is that module's `output` block evaluated with the call's
//! arguments (a map of instances for a `for_each`, a list for a `count`).
//!
//! The directories a root calls are read (by the [`Loader`], which confines them to the
//! repository) before anything is evaluated; their number, the depth of calls and the
//! instances of calls are bounded, and a module that calls itself (directly or not) is not
//! read again inside itself.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use hcl_edit::expr::{Expression, TraversalOperator};
use hcl_edit::structure::{Attribute, Block, Body};
use hcl_edit::visit::Visit;

use super::eval::{Cx, Env, Problem};
use super::parse::Parsed;
use super::value::{Meter, V, Val};
use crate::analysis::types::NodeDecl;
use crate::analysis::types::terraform::{Cause, ModuleCall};
use crate::load::{SourceFile, Span};

/// How deep module calls may nest.
const MAX_CALL_DEPTH: usize = 12;
/// Module directories one root may read.
const MAX_DIRS: usize = 200;
/// Module instances one root may evaluate (for pools and for outputs together).
const MAX_INSTANCES: u32 = 2_000;
/// Work units per byte of the files evaluated, over a fixed allowance (see `eval`).
const UNITS_PER_BYTE: u64 = 8;
const BASE_UNITS: u64 = 2_000_000;
/// Evaluation errors one root reports at most.
const MAX_PROBLEMS: usize = 1_000;

/// One file of a module directory (`.tf` or `.tf.json`), parsed (a copy shares the parse).
#[derive(Clone)]
pub struct DirFile {
    pub source: Arc<SourceFile>,
    pub(super) parsed: Arc<Parsed>,
}

impl DirFile {
    /// Parses a file, by its name's syntax (`None`: it does not parse; its syntax error is
    /// reported where the file is linted).
    pub fn parse(source: Arc<SourceFile>) -> Option<DirFile> {
        let parsed = super::parse::parse_file(&source.name, &source.text).ok()?;
        Some(DirFile {
            source,
            parsed: Arc::new(parsed),
        })
    }

    /// An override file: `override.tf`, `*_override.tf` or their `.tf.json` forms
    /// (hashicorp/terraform `internal/configs/parser_config_dir.go`, `IsOverrideFile`).
    pub(super) fn is_override(&self) -> bool {
        is_override(&self.source.name)
    }
}

/// Is the file named `name` an override file (see [`DirFile::is_override`])?
pub fn is_override(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    let stem = base
        .strip_suffix(".tf.json")
        .or_else(|| base.strip_suffix(".tf"))
        .unwrap_or(base);
    stem == "override" || stem.ends_with("_override")
}

/// A module directory: its `.tf` and `.tf.json` files and (for a root) its variable files.
pub struct Dir {
    /// The directory as the run names files (`infra/terraform`).
    pub path: String,
    /// By name (the override files are told apart by theirs).
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

/// An error `terraform plan` would report while evaluating the files (see
/// [`super::eval::Problem`]), at its file's positions.
#[derive(Debug, Clone)]
pub struct EvalProblem {
    pub source: Arc<SourceFile>,
    /// The `for` expression's introduction; for [`EvalProblemKind::OutOfWork`], the
    /// expression being evaluated when the meter ran out.
    pub at: Span,
    pub kind: EvalProblemKind,
}

#[derive(Debug, Clone)]
pub enum EvalProblemKind {
    /// A `for` expression produced `key` twice (at `key_at`, its key expression).
    DuplicateKey { key_at: Option<Span>, key: String },
    /// The evaluation's meter ran out here (see `value::Meter`): the values from here on are
    /// unknown.
    OutOfWork,
}

/// What one root gives: its pools, the module directories it read, and the errors Terraform
/// would report evaluating them.
pub struct RootOutcome {
    pub decls: Vec<NodeDecl>,
    /// Every directory evaluated (the root first), as named in [`Dir::path`].
    pub dirs: Vec<String>,
    /// Each once, in the order of their files and positions.
    pub problems: Vec<EvalProblem>,
}

/// The files of one evaluation (numbered for [`super::value::At`]) and its shared state.
pub(super) struct Tree {
    pub(super) files: Vec<Arc<SourceFile>>,
    /// Each file's parse, by the same number (for the positions of `.tf.json` files).
    parsed: Vec<Arc<Parsed>>,
    pub(super) meter: Meter,
    dirs: HashMap<String, (Arc<Dir>, u32)>,
    /// (calling directory, `source`) → the directory read.
    resolved: HashMap<(String, String), String>,
    instances: Cell<u32>,
    problems: RefCell<Vec<Problem>>,
    pub(super) root: String,
}

impl Tree {
    /// A span of file `file`'s syntax tree as a span of the file (they differ for
    /// `.tf.json` files, whose tree is of the text made from them).
    pub(super) fn file_span(&self, file: u32, span: Span) -> Span {
        match self.parsed.get(file as usize) {
            Some(p) => p.file_span(span),
            None => span,
        }
    }

    /// Takes one module instance from the evaluation's allowance (`false`: none left).
    fn take_instance(&self) -> bool {
        let n = self.instances.get();
        if n >= MAX_INSTANCES {
            return false;
        }
        self.instances.set(n + 1);
        true
    }
}

/// Evaluates the root module `root` and the local modules it calls (read through `loader`),
/// and gives the node pools they declare.
pub fn evaluate_root(root: Arc<Dir>, loader: &mut dyn Loader) -> RootOutcome {
    // Read every directory the root reaches first (sources are literals in Terraform).
    let mut dirs: HashMap<String, (Arc<Dir>, u32)> = HashMap::new();
    let mut files: Vec<Arc<SourceFile>> = Vec::new();
    let mut parsed: Vec<Arc<Parsed>> = Vec::new();
    let mut queue: Vec<(Arc<Dir>, usize)> = vec![(Arc::clone(&root), 0)];
    let add = |d: &Arc<Dir>,
               files: &mut Vec<Arc<SourceFile>>,
               parsed: &mut Vec<Arc<Parsed>>,
               dirs: &mut HashMap<String, (Arc<Dir>, u32)>| {
        let base = u32::try_from(files.len()).unwrap_or(u32::MAX);
        files.extend(d.files.iter().map(|f| Arc::clone(&f.source)));
        parsed.extend(d.files.iter().map(|f| Arc::clone(&f.parsed)));
        dirs.insert(d.path.clone(), (Arc::clone(d), base));
    };
    add(&root, &mut files, &mut parsed, &mut dirs);
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
                    add(&d, &mut files, &mut parsed, &mut dirs);
                    queue.push((d, depth + 1));
                }
            }
        }
    }
    let bytes: u64 = files.iter().map(|f| f.text.len() as u64).sum();
    let resolved: HashMap<(String, String), String> = resolved
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    let tree = Tree {
        files,
        parsed,
        meter: Meter::new(BASE_UNITS.saturating_add(bytes.saturating_mul(UNITS_PER_BYTE))),
        dirs,
        resolved,
        instances: Cell::new(0),
        problems: RefCell::new(Vec::new()),
        root: root.path.clone(),
    };
    let mut out = super::Tf::new(&tree);
    let mut seen = vec![root.path.clone()];
    let root_inst = Inst::new(&tree, &root, 0, Inputs::Root, Vec::new(), Vec::new());
    root_inst.pools(&mut out, &mut seen);
    seen.sort();
    seen.dedup();
    // The root first.
    seen.retain(|d| *d != root.path);
    seen.insert(0, root.path.clone());
    // In the order of the files and their lines (instances of one block in Terraform's
    // order of their keys).
    let mut decls = out.out;
    decls.sort_by(|a, b| place_key(&a.loc).cmp(&place_key(&b.loc)));
    drop(root_inst);
    let mut problems = std::mem::take(&mut *tree.problems.borrow_mut());
    problems.sort_by_key(|p| (p.file, p.at.start, p.at.end));
    problems.dedup_by_key(|p| (p.file, p.at.start, p.at.end));
    let problems = problems
        .into_iter()
        .filter_map(|p| {
            let source = tree.files.get(p.file as usize)?;
            Some(EvalProblem {
                source: Arc::clone(source),
                at: tree.file_span(p.file, p.at),
                kind: EvalProblemKind::DuplicateKey {
                    key_at: p.key_at.map(|k| tree.file_span(p.file, k)),
                    key: p.key,
                },
            })
        })
        .chain(tree.meter.spent_at().and_then(|at| {
            Some(EvalProblem {
                source: Arc::clone(tree.files.get(at.file as usize)?),
                at: tree.file_span(at.file, at.span),
                kind: EvalProblemKind::OutOfWork,
            })
        }))
        .collect();
    RootOutcome {
        decls,
        dirs: seen,
        problems,
    }
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

/// A top-level block as Terraform merges a module's files (hashicorp/terraform
/// `internal/configs/module_merge.go` and `module_merge_body.go`): the block of a primary
/// file, then the blocks of the override files with the same type and labels, in the order of
/// their names. An argument set in an override replaces the base's (`count`, `for_each`, a
/// module's `source`, a variable's `default` alike); any nested block of a type in an override
/// (or `dynamic` of that type) replaces all the base's blocks of that type, wholesale. An
/// override block with no base (Terraform's error) is not read.
pub(super) struct Merged<'t> {
    /// (file number, block): the primary first.
    pub(super) layers: Vec<(u32, &'t Block)>,
}

impl<'t> Merged<'t> {
    fn primary(&self) -> Option<(u32, &'t Block)> {
        self.layers.first().copied()
    }

    /// The block of the primary file.
    pub(super) fn block(&self) -> Option<&'t Block> {
        self.primary().map(|(_, b)| b)
    }

    /// The file of the primary block.
    pub(super) fn file(&self) -> u32 {
        self.primary().map_or(0, |(f, _)| f)
    }

    /// An argument, from the last layer that sets it.
    pub(super) fn attr(&self, name: &str) -> Option<(u32, &'t Attribute)> {
        self.layers
            .iter()
            .rev()
            .find_map(|(f, b)| b.body.get_attribute(name).map(|a| (*f, a)))
    }

    /// The arguments: each once, from the last layer that sets it (in the base's order, then
    /// those only overrides set).
    pub(super) fn attributes(&self) -> Vec<(u32, &'t Attribute)> {
        let mut out: Vec<(u32, &'t Attribute)> = Vec::new();
        for (f, b) in &self.layers {
            for a in b.body.attributes() {
                match out
                    .iter_mut()
                    .find(|(_, x)| x.key.as_str() == a.key.as_str())
                {
                    Some(slot) => *slot = (*f, a),
                    None => out.push((*f, a)),
                }
            }
        }
        out
    }

    /// The nested blocks, each override's types replacing the base's.
    pub(super) fn blocks(&self) -> Vec<(u32, &'t Block)> {
        let mut out: Vec<(u32, &'t Block)> = Vec::new();
        for (i, (f, b)) in self.layers.iter().enumerate() {
            if i > 0 {
                let types: Vec<&str> = b.body.blocks().map(block_type).collect();
                if !types.is_empty() {
                    out.retain(|(_, x)| !types.contains(&block_type(x)));
                }
            }
            out.extend(b.body.blocks().map(|x| (*f, x)));
        }
        out
    }

    /// Does any layer use `count.index`?
    pub(super) fn uses_count_index(&self) -> bool {
        self.layers.iter().any(|(_, b)| uses_count_index(&b.body))
    }
}

/// A nested block's type, a `dynamic` block's the one it makes.
fn block_type(b: &Block) -> &str {
    match (b.ident.as_str(), b.labels.first()) {
        ("dynamic", Some(l)) => l.as_str(),
        (t, _) => t,
    }
}

/// Does `body` refer to `count.index`?
fn uses_count_index(body: &Body) -> bool {
    struct Finder(bool);
    impl Visit for Finder {
        fn visit_traversal(&mut self, t: &hcl_edit::expr::Traversal) {
            if let (Expression::Variable(v), Some(op)) = (&t.expr, t.operators.first())
                && v.as_str() == "count"
                && matches!(op.value(), TraversalOperator::GetAttr(a) if a.as_str() == "index")
            {
                self.0 = true;
            }
            if !self.0 {
                hcl_edit::visit::visit_traversal(self, t);
            }
        }
    }
    let mut f = Finder(false);
    f.visit_body(body);
    f.0
}

/// One instance of a module.
pub(super) struct Inst<'t> {
    pub(super) tree: &'t Tree,
    pub(super) dir: &'t Dir,
    /// The number of the directory's first file.
    base: u32,
    /// The top-level blocks the evaluation reads (resources, module calls, variables,
    /// outputs), merged, in the order of the primary files and their lines.
    blocks: Vec<Merged<'t>>,
    vars: HashMap<String, Val>,
    locals: HashMap<&'t str, (u32, &'t Expression)>,
    memo: RefCell<HashMap<&'t str, Option<Val>>>,
    /// `module.NAME` once evaluated (`None` while it is: a cycle).
    outputs: RefCell<HashMap<String, Option<Val>>>,
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
        once(
            &self.memo,
            key,
            || format!("local.{name}"),
            || Cx::new(self, file).eval(expr),
        )
    }

    fn module(&self, name: &str) -> Val {
        once(
            &self.outputs,
            name.to_string(),
            || format!("module.{name}"),
            || self.module_value(name),
        )
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

    fn report(&self, problem: Problem) {
        let mut problems = self.tree.problems.borrow_mut();
        if problems.len() < MAX_PROBLEMS {
            problems.push(problem);
        }
    }
}

/// The top-level blocks of a directory the evaluation reads, merged with their overrides (see
/// [`Merged`]).
fn merged_blocks<'t>(dir: &'t Dir, base: u32) -> Vec<Merged<'t>> {
    let mut out: Vec<Merged<'t>> = Vec::new();
    let mut index: HashMap<(&'t str, Vec<&'t str>), usize> = HashMap::new();
    let wanted = |b: &Block| {
        matches!(
            b.ident.as_str(),
            "resource" | "module" | "variable" | "output"
        )
    };
    let key = |b: &'t Block| -> (&'t str, Vec<&'t str>) {
        (
            b.ident.as_str(),
            b.labels.iter().map(|l| l.as_str()).collect(),
        )
    };
    for override_files in [false, true] {
        for (i, f) in dir.files.iter().enumerate() {
            if f.is_override() != override_files {
                continue;
            }
            let file = base + i as u32;
            for b in f.parsed.body.blocks().filter(|b| wanted(b)) {
                let k = key(b);
                match (override_files, index.get(&k)) {
                    (false, Some(_)) | (true, None) => {
                        // A block declared twice (Terraform's error: the first is read), or an
                        // override without a base.
                    }
                    (false, None) => {
                        index.insert(k, out.len());
                        out.push(Merged {
                            layers: vec![(file, b)],
                        });
                    }
                    (true, Some(&at)) => {
                        if let Some(m) = out.get_mut(at) {
                            m.layers.push((file, b));
                        }
                    }
                }
            }
        }
    }
    out
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
            blocks: merged_blocks(dir, base),
            vars: HashMap::new(),
            locals: HashMap::new(),
            memo: RefCell::new(HashMap::new()),
            outputs: RefCell::new(HashMap::new()),
            calls,
            stack,
        };
        // Locals: an override file's replaces the primary's of the same name.
        for override_files in [false, true] {
            for (i, f) in dir.files.iter().enumerate() {
                if f.is_override() != override_files {
                    continue;
                }
                let file = base + i as u32;
                for b in f.parsed.body.get_blocks("locals") {
                    for a in b.body.attributes() {
                        let name = a.key.as_str();
                        if !override_files || inst.locals.contains_key(name) {
                            inst.locals.insert(name, (file, &a.value));
                        }
                    }
                }
            }
        }
        let tfvars = match &inputs {
            Inputs::Root => tfvars(tree, dir),
            Inputs::Call(_) => HashMap::new(),
        };
        let mut vars = HashMap::new();
        for m in inst
            .blocks
            .iter()
            .filter(|m| m.block().is_some_and(|b| b.ident.as_str() == "variable"))
        {
            let Some(name) = m.block().and_then(|b| label(b, 0)) else {
                continue;
            };
            let given = match &inputs {
                Inputs::Root => tfvars.get(name).cloned(),
                Inputs::Call(args) => args.get(name).cloned(),
            };
            let nullable = m
                .attr("nullable")
                .map(|(_, a)| !matches!(&a.value, Expression::Bool(x) if !*x.value()))
                .unwrap_or(true);
            let default = m.attr("default");
            let value = match (given, default) {
                // `nullable = false`: a null argument takes the default.
                (Some(v), Some((f, d))) if v.is_null() && !nullable => {
                    Cx::new(&inst, f).eval(&d.value)
                }
                (Some(v), _) => v,
                (None, Some((f, d))) => Cx::new(&inst, f).eval(&d.value),
                (None, None) => Val::unknown(Cause::Variable(Arc::from(name))),
            };
            let value = match m.attr("type") {
                Some((f, t)) => {
                    let mut cx = Cx::new(&inst, f);
                    super::types::convert(&mut cx, value, &t.value)
                }
                None => value,
            };
            vars.insert(name.to_string(), value);
        }
        inst.vars = vars;
        inst
    }

    /// The resource `kind.name`, merged.
    pub(super) fn resource(&self, kind: &str, name: &str) -> Option<&Merged<'t>> {
        self.blocks.iter().find(|m| {
            m.block().is_some_and(|b| {
                b.ident.as_str() == "resource"
                    && label(b, 0) == Some(kind)
                    && label(b, 1) == Some(name)
            })
        })
    }

    /// The pools of this instance and the modules it calls.
    pub(super) fn pools(&self, out: &mut super::Tf<'_>, seen: &mut Vec<String>) {
        for m in &self.blocks {
            let Some(block) = m.block() else { continue };
            match (block.ident.as_str(), label(block, 0), label(block, 1)) {
                ("resource", Some(kind), Some(name)) if super::is_pool_kind(kind) => {
                    out.resource(self, m, kind, name);
                }
                ("module", Some(name), _) => self.module_call(out, m, name, seen),
                _ => {}
            }
        }
    }

    /// A call's `source`, when a literal string.
    fn source(m: &Merged<'_>) -> Option<String> {
        match m.attr("source").map(|(_, a)| &a.value) {
            Some(Expression::String(s)) => Some(s.value().to_string()),
            _ => None,
        }
    }

    /// A module call's arguments for one instance (`names`: its `each`/`count`).
    fn call_args(&self, m: &Merged<'_>, names: &[(Arc<str>, Val)]) -> HashMap<String, Val> {
        let mut args = HashMap::new();
        for (f, a) in m.attributes() {
            let key = a.key.as_str();
            if matches!(
                key,
                "source" | "version" | "count" | "for_each" | "providers" | "depends_on"
            ) {
                continue;
            }
            let mut cx = Cx::new(self, f);
            cx.names = names.to_vec();
            args.insert(key.to_string(), cx.eval(&a.value));
        }
        args
    }

    /// The directory a local `source` called from here reads, with its first file's number,
    /// unless reading it again would recurse or pass the depth of calls.
    /// The instance at `address` of the local module `source` this one calls (its folder
    /// `dir`, read with `args`): one call deeper.
    fn child(
        &self,
        dir: &'t Dir,
        dir_base: u32,
        args: HashMap<String, Val>,
        address: &str,
        source: &str,
    ) -> Inst<'t> {
        let mut calls = self.calls.clone();
        calls.push(ModuleCall {
            address: address.into(),
            source: source.into(),
        });
        Inst::new(
            self.tree,
            dir,
            dir_base,
            Inputs::Call(args),
            calls,
            self.stack.clone(),
        )
    }

    fn callee(&self, source: &str) -> Result<(&'t Dir, u32, &'t String), Cause> {
        let not_read = || Cause::Module(Arc::from(format!("the module at {source}").as_str()));
        let path = self
            .tree
            .resolved
            .get(&(self.dir.path.clone(), source.to_string()))
            .ok_or_else(not_read)?;
        let (dir, base) = self.tree.dirs.get(path).ok_or_else(not_read)?;
        if self.stack.contains(path) {
            return Err(Cause::Invalid(Arc::from(
                format!("the module at {source} calls itself").as_str(),
            )));
        }
        if self.stack.len() >= MAX_CALL_DEPTH {
            return Err(Cause::Limit("the depth of module calls"));
        }
        Ok((dir, *base, path))
    }

    fn module_call(
        &self,
        out: &mut super::Tf<'_>,
        m: &Merged<'t>,
        name: &str,
        seen: &mut Vec<String>,
    ) {
        let Some(source) = Self::source(m) else {
            return;
        };
        let local = is_local(&source);
        if !local && !super::is_pool_module(&source) {
            return;
        }
        let base = format!("module.{name}");
        let indexed = m.attr("count").is_some() && m.uses_count_index();
        for instance in super::instances(self, m, &base, indexed) {
            let args = self.call_args(m, &instance.names);
            out.copies = instance.copies;
            out.instance_unknown = instance.unknown.clone();
            if !local {
                if let Some(block) = m.block() {
                    out.registry_module(self, m.file(), &source, &args, block);
                }
                out.copies = Some(1);
                out.instance_unknown.clear();
                continue;
            }
            // A module that calls itself, or past the limits: not read again.
            let Ok((dir, dir_base, path)) = self.callee(&source) else {
                continue;
            };
            if !self.tree.take_instance() {
                continue;
            }
            seen.push(path.clone());
            let copies = out.copies;
            let unknown = std::mem::take(&mut out.instance_unknown);
            let child = self.child(dir, dir_base, args, &instance.address, &source);
            // A module instance of unknown number: its pools too.
            out.outer.push((copies, unknown));
            child.pools(out, seen);
            out.outer.pop();
            out.copies = Some(1);
        }
    }

    /// `module.NAME`: the object of a local module's outputs evaluated with the call's
    /// arguments; a map of them by key for a `for_each`, a list for a `count`. A registry
    /// module's, or one past the limits, is unknown.
    fn module_value(&self, name: &str) -> Val {
        let unknown = |c: Cause| Val::unknown(c);
        let module = || Cause::Module(Arc::from(format!("module.{name}").as_str()));
        let Some(m) = self.blocks.iter().find(|m| {
            m.block()
                .is_some_and(|b| b.ident.as_str() == "module" && label(b, 0) == Some(name))
        }) else {
            return unknown(Cause::Invalid(Arc::from(
                format!("no module call `{name}`").as_str(),
            )));
        };
        let Some(source) = Self::source(m).filter(|s| is_local(s)) else {
            return unknown(module());
        };
        let (dir, dir_base, _) = match self.callee(&source) {
            Ok(x) => x,
            Err(c) => return unknown(c),
        };
        let base = format!("module.{name}");
        let counted = m.attr("count").is_some() && m.attr("for_each").is_none();
        let indexed = counted && m.uses_count_index();
        let mut list = Vec::new();
        let mut map = std::collections::BTreeMap::new();
        let mut more = None;
        let mut single = None;
        for instance in super::instances(self, m, &base, indexed) {
            if let Some(u) = instance.unknown.first() {
                // Instances of unknown number: the collection is known only in part.
                more = Some(u.cause.clone());
                continue;
            }
            if !self.tree.take_instance() {
                return unknown(Cause::Limit("module instances"));
            }
            let args = self.call_args(m, &instance.names);
            let child = self.child(dir, dir_base, args, &instance.address, &source);
            let outputs = child.outputs();
            let key = instance
                .names
                .iter()
                .find(|(n, _)| &**n == "each")
                .and_then(|(_, e)| e.get("key").and_then(Val::text));
            match (key, instance.copies) {
                (Some(k), _) => {
                    map.insert(Arc::from(k.as_str()), outputs);
                }
                (None, Some(n)) if counted => {
                    if n > super::MAX_INDEXED {
                        return unknown(Cause::Limit("module instances of a `count`"));
                    }
                    list.extend(std::iter::repeat_n(outputs, n as usize));
                }
                (None, _) => single = Some(outputs),
            }
        }
        if m.attr("for_each").is_some() {
            Val::map(map, more)
        } else if counted {
            Val::list(list, more)
        } else {
            single.unwrap_or_else(|| unknown(module()))
        }
    }

    /// This instance's outputs, as an object.
    fn outputs(&self) -> Val {
        let mut entries = std::collections::BTreeMap::new();
        for m in &self.blocks {
            let Some(b) = m.block() else { continue };
            if b.ident.as_str() != "output" {
                continue;
            }
            let (Some(name), Some((f, value))) = (label(b, 0), m.attr("value")) else {
                continue;
            };
            let v = Cx::new(self, f).eval(&value.value);
            entries.insert(Arc::from(name), v);
        }
        Val::map(entries, None)
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

/// The value of `key` worked out once: `compute` the first time (its value kept), the kept
/// value after; asked again while it is being computed (`what` refers to itself), unknown.
fn once<K: std::hash::Hash + Eq + Clone>(
    memo: &RefCell<HashMap<K, Option<Val>>>,
    key: K,
    what: impl FnOnce() -> String,
    compute: impl FnOnce() -> Val,
) -> Val {
    match memo.borrow().get(&key) {
        Some(Some(v)) => return v.clone(),
        Some(None) => {
            return Val::unknown(Cause::Invalid(Arc::from(
                format!("`{}` refers to itself", what()).as_str(),
            )));
        }
        None => {}
    }
    memo.borrow_mut().insert(key.clone(), None);
    let v = compute();
    memo.borrow_mut().insert(key, Some(v.clone()));
    v
}
