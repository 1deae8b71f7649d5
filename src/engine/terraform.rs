//! Kubernetes manifests inside Terraform files: NodePools and other objects applied with
//! `kubectl_manifest { yaml_body = <<-YAML … YAML }` or `kubernetes_manifest { manifest =
//! yamldecode(<<-EOT … EOT) }`. Pools declared only there would otherwise be missing from the
//! inventory, and the workloads meant for them reported as unschedulable.
//!
//! A `.tf` file is linted through a *view* of it: a text of the same length and the same
//! line breaks in which every byte outside the manifest heredocs is a space, and each heredoc's
//! opening line starts a YAML document (`---`). Every position in the view is the same in the
//! file, so findings point at the heredoc's scalars. Terraform's `${…}` interpolations are
//! placeholders (see `templates`): values that hold one are not judged. A fix is never offered
//! in a `.tf` file (the view is not the file's text), and a `.tf` file with no manifest heredoc
//! is not linted at all.

use std::sync::Arc;

use super::file::{FileReport, lint_templated};
use super::options::LintOptions;
use super::templates::Syntax;
use crate::analysis::sources::terraform as tf;
use crate::analysis::types::NodeDecl;
use crate::diagnostic::Finding;
use crate::load::{SourceFile, Span};
use crate::rules;

/// Is this a Terraform file (by its name): `.tf`, or `.tf.json` (Terraform's JSON syntax)?
pub(super) fn is_terraform(name: &str) -> bool {
    name.ends_with(".tf") || tf::is_json(name)
}

/// When a Terraform file's syntax is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Parse {
    /// Now, for its findings (the language server's buffers, a file read alone).
    Now,
    /// In the run's Terraform step, once per file for its findings and its directory's
    /// evaluation both (see [`evaluate`]).
    Later,
}

/// Lints a Terraform file: its syntax (with hcl-edit, as Terraform reads it: see
/// `analysis::sources::terraform`), its repeated object keys, and the manifests in a `.tf`
/// file's heredocs. A file that does not parse gets a `yaml-syntax-error` (the rule of files
/// whose syntax cannot be read), and its heredocs are still linted. Its node pools are not
/// read here: a module is a directory, so the run evaluates each directory's files together
/// once every file is linted ([`evaluate`]); the report carries what that needs. In the run
/// (`Parse::Later`) the file is parsed there too, once, its syntax findings made there.
pub(super) fn lint(source: &Arc<SourceFile>, opts: &LintOptions, parse: Parse) -> FileReport {
    let view = if tf::is_json(&source.name) {
        None
    } else {
        yaml_view(&source.text)
    };
    let mut report = match view {
        Some(view) => {
            let view = SourceFile::new(Arc::clone(&source.name), view);
            // `${…}` and `%{…}` in a Terraform heredoc are Terraform's.
            let mut report = lint_templated(&view, opts, Some(Syntax::Terraform));
            for f in &mut report.findings {
                f.fix = None;
            }
            report
        }
        None => FileReport::default(),
    };
    if parse == Parse::Now {
        let facts = tf::file_facts(&source.name, &source.text);
        report
            .findings
            .extend(syntax_findings(source, facts.as_ref(), opts));
        if facts.is_err() {
            return report;
        }
    }
    report.terraform = Some(Box::new(TerraformFile {
        name: Arc::clone(&source.name),
        kept: Kept::Text(Arc::clone(source)),
        calls: tf::local_source_hints(&source.text),
        may_evaluate: tf::may_evaluate(&source.text),
    }));
    report
}

/// The findings of a Terraform file's parse: its syntax error (or the limit it passes), its
/// repeated object keys, a `.tf.json` file's strings that are not templates.
fn syntax_findings(
    source: &Arc<SourceFile>,
    facts: Result<&tf::FileFacts, &tf::HclError>,
    opts: &LintOptions,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let syntax = if tf::is_json(&source.name) {
        "Terraform (JSON) syntax error"
    } else {
        "Terraform (HCL) syntax error"
    };
    match facts {
        Ok(facts) => {
            if opts.rules.is_enabled(rules::DUPLICATE_KEY.name) {
                for (dropped, wins, key) in &facts.repeats {
                    out.push(
                        rules::DUPLICATE_KEY
                            .finding(format!(
                                "key `{key}` is given more than once in this object; Terraform keeps only the last one and drops this one"
                            ))
                            .primary(*dropped, "ignored")
                            .secondary(*wins, "this one wins")
                            .help("remove one of the keys (`terraform plan` uses the last value without a word)")
                            .in_file(source),
                    );
                }
            }
            if opts.rules.is_enabled(rules::YAML_SYNTAX_ERROR.name) {
                for (at, why) in &facts.bad_templates {
                    out.push(
                        rules::YAML_SYNTAX_ERROR
                            .finding(format!("{syntax}: {why}"))
                            .primary(*at, "here")
                            .help("Terraform reads a JSON string as a template (`${…}`, `%{…}`; `$${` for a literal `${`); the value is unknown to taintlint, the rest of the file is read")
                            .in_file(source),
                    );
                }
            }
        }
        Err(e) if e.limit && opts.rules.is_enabled(rules::YAML_TOO_COMPLEX.name) => {
            let at = crate::util::text::floor_char(&source.text, e.at);
            out.push(
                rules::YAML_TOO_COMPLEX
                    .finding(format!("Terraform file not read: {}", e.message))
                    .primary(Span::new(at, at), "here")
                    .help("the node pools of this file were not read: taintlint bounds the work one file may cause by its size (see docs/security.md); split the object, or the file")
                    .in_file(source),
            );
        }
        Err(e) if !e.limit && opts.rules.is_enabled(rules::YAML_SYNTAX_ERROR.name) => {
            let at = crate::util::text::floor_char(&source.text, e.at);
            let end = source.text[at..]
                .chars()
                .next()
                .map_or(at, |c| at + c.len_utf8());
            out.push(
                rules::YAML_SYNTAX_ERROR
                    .finding(format!("{syntax}: {}", e.message))
                    .primary(Span::new(at, end), "here")
                    .help("fix the syntax (`terraform validate` shows it too); the node pools of this file were not read")
                    .in_file(source),
            );
        }
        Err(_) => {}
    }
    out
}

/// What the run keeps of a Terraform file until the Terraform step parses it (see
/// [`evaluate`]).
pub struct TerraformFile {
    /// The file's name (its path, when it was read from the disk).
    pub name: Arc<str>,
    /// What the Terraform step reads.
    kept: Kept,
    /// The local module `source`s its text seems to hold (a scan, not a parse: see
    /// `sources::terraform::local_source_hints`), to tell which directories' syntax trees the
    /// step keeps for the evaluation.
    calls: Vec<String>,
    /// Its text names a node-pool resource type or `module` (see
    /// `sources::terraform::may_evaluate`): its directory's trees may be kept for the
    /// evaluation.
    may_evaluate: bool,
}

/// What is kept of a Terraform file until the Terraform step. Most `.tf` files sit in
/// directories that are never evaluated (no pools, no module calls: 4.5 of the 5.4 MB of `.tf`
/// text in the real-world suite), and a file's directory is only known to be evaluated once
/// every file of it has been read: a file read from the disk keeps only its path to the end of
/// the walk, and the step reads it again (bench/README).
#[derive(Clone)]
enum Kept {
    /// The whole text (a file not read from the disk, or until the run drops it; the report's
    /// own copy may be made lite).
    Text(Arc<SourceFile>),
    /// Only its path: the file is read again from the disk.
    OnDisk(std::path::PathBuf),
}

impl TerraformFile {
    /// Forgets the text of a file read from the disk, which the Terraform step reads again.
    pub(super) fn forget_text(&mut self, path: std::path::PathBuf) {
        if matches!(self.kept, Kept::Text(_)) {
            self.kept = Kept::OnDisk(path);
        }
    }

    /// The file's text (`None`: it can no longer be read as text).
    fn source(&self, opts: &LintOptions) -> Option<Arc<SourceFile>> {
        self.kept.source(&self.name, opts)
    }
}

impl Kept {
    /// The text of the file `name` (`None`: it can no longer be read as text).
    fn source(&self, name: &Arc<str>, opts: &LintOptions) -> Option<Arc<SourceFile>> {
        match self {
            Kept::Text(source) => Some(Arc::clone(source)),
            Kept::OnDisk(path) => {
                let text = crate::load::read_file(path, opts.max_file_size).ok()?;
                Some(SourceFile::new(Arc::clone(name), text))
            }
        }
    }
}

/// A Terraform input of the run, with what decides where its pools go.
pub(super) struct TfInput {
    /// Input order.
    pub(super) index: usize,
    pub(super) cluster: Option<usize>,
    pub(super) inventory_only: bool,
    pub(super) fixture: bool,
    /// Read from the disk (its directory's variable files may be read too).
    pub(super) on_disk: bool,
    pub(super) file: TerraformFile,
}

/// The Terraform pools of a workspace's files (the language server's view of the files it
/// does not have open): `files` are (name, cluster slot, file) of each Terraform file; each
/// pool is given with the file its root module's evaluation is attributed to (the root
/// directory's first file) and that file's slot.
pub fn workspace_pools(
    files: Vec<(String, usize, TerraformFile)>,
    opts: &LintOptions,
) -> (Vec<(String, usize, NodeDecl)>, Vec<String>) {
    let mut names = Vec::new();
    let inputs = files
        .into_iter()
        .enumerate()
        .map(|(index, (name, slot, file))| {
            let fixture = super::is_fixture(&name, &opts.roots);
            names.push((name, slot));
            TfInput {
                index,
                cluster: Some(slot),
                inventory_only: false,
                fixture,
                on_disk: true,
                file,
            }
        })
        .collect();
    let done = evaluate(inputs, opts);
    let roots = done.anchors;
    let pools = done
        .pools
        .into_iter()
        .filter_map(|p| {
            let (name, slot) = names.get(p.index)?.clone();
            Some((name, slot, p.decl))
        })
        .collect();
    (pools, roots)
}

/// A pool found by evaluating Terraform, with the input it belongs to.
pub(super) struct TfPool {
    pub(super) index: usize,
    pub(super) cluster: Option<usize>,
    pub(super) decl: NodeDecl,
}

/// The directory of a file as the run names it (`.` for a bare name).
fn dir_of(name: &str) -> &str {
    match name.rfind('/') {
        Some(0) => "/",
        Some(i) => &name[..i],
        None => ".",
    }
}

/// `dir/rel` with `.` and `..` resolved as far as the text allows (`a/../b` is `b`; a leading
/// `..` stays).
fn join(dir: &str, rel: &str) -> String {
    let absolute = dir.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in dir.split('/').chain(rel.split('/')) {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// What the Terraform step found of one input: from its parse.
#[derive(Default)]
struct Facts {
    /// It declares node-pool resources or calls a module.
    evaluate: bool,
    /// Its local module calls' `source`s.
    local_sources: Vec<String>,
    /// It creates a cluster (see `sources::clusters`).
    creates_cluster: bool,
}

/// One directory of Terraform inputs, read.
struct Group {
    /// Its place in the step's order of directories.
    index: usize,
    dir: String,
    inputs: Vec<TfInput>,
    /// Each input's facts (by position; default where it does not parse).
    facts: Vec<Facts>,
    /// The files that parse, while the evaluation may read them (see [`evaluate`]).
    files: Option<Arc<Vec<tf::DirFile>>>,
}

impl Group {
    fn evaluate(&self) -> bool {
        self.facts.iter().any(|f| f.evaluate)
    }
    fn fixture(&self) -> bool {
        self.inputs.iter().all(|i| i.fixture)
    }
    fn inventory(&self) -> bool {
        self.inputs.iter().any(|i| i.inventory_only)
    }
    /// The directories it calls (not itself), unless it is test data or vendored code.
    fn calls(&self) -> impl Iterator<Item = String> + '_ {
        let fixture = self.fixture();
        self.facts
            .iter()
            .flat_map(|f| &f.local_sources)
            .filter(move |_| !fixture)
            .map(|s| join(&self.dir, s))
            .filter(|t| *t != self.dir)
    }
    /// It creates a cluster (in a linted file).
    fn creating(&self) -> bool {
        !self.fixture()
            && self
                .inputs
                .iter()
                .zip(&self.facts)
                .any(|(i, f)| f.creates_cluster && !i.inventory_only)
    }
}

/// What the Terraform step gives the run.
#[derive(Default)]
pub(super) struct Evaluated {
    pub(super) pools: Vec<TfPool>,
    /// The roots that create a cluster (see [`evaluate`]).
    pub(super) anchors: Vec<String>,
    /// The Terraform files' own findings: syntax, repeated keys, evaluation errors.
    pub(super) findings: Vec<Finding>,
}

/// One directory evaluated as a root module: its pools, the directories it read, whether it
/// (or a linted module it reads) creates a cluster, the errors of its evaluation.
struct Done {
    index: usize,
    dir: String,
    pools: Vec<TfPool>,
    dirs: Vec<String>,
    creates: bool,
    problems: Vec<tf::EvalProblem>,
}

/// A linted file as the step can read it again (a module directory read by a root outside
/// its part of the step: see [`evaluate`]).
#[derive(Clone)]
struct Again {
    name: Arc<str>,
    kept: Kept,
}

/// What the evaluation of one part of the step shares: the linted directories' files to read
/// again, the module directories read from the disk, the options.
struct Shared<'a> {
    again: std::collections::HashMap<String, Vec<Again>>,
    disk: DiskModules<'a>,
    opts: &'a LintOptions,
}

/// The Terraform step of a run: every Terraform input parsed once for its findings, and the
/// root modules among them evaluated for their pools.
///
/// The inputs are grouped by directory (a module is a directory; the `--inventory` files apart
/// from the linted ones). A directory that declares pools or calls modules is evaluated as a
/// root module (its variable files read, see `sources::terraform::module`) unless another
/// linted directory calls it as a local module: then it is evaluated once per call, with the
/// call's arguments, and not also as a root with unknown inputs. A directory called only from
/// test data or vendored code, or only through calls that cannot be read, or in a cycle of
/// calls, is a root as well. A called directory that was not among the inputs (excluded, or
/// outside the linted paths) is read from the disk inside the repository; never through a
/// symbolic link unless `--follow-links`, never outside the repository (its git work tree,
/// else the linted path).
///
/// **Each file is parsed once.** The directories are split into parts that call no module
/// outside themselves, by a scan of the texts for local `source`s
/// (`sources::terraform::local_source_hints`, which finds every literal one); the parts are
/// worked on in parallel, each at once: its files parsed (their findings made), its roots
/// evaluated with those syntax trees, then the trees dropped. So the trees held at a time are
/// those of the parts being worked on, not of every directory evaluated (hcl-edit's tree
/// weighs about twenty times its text); and only of the directories the evaluation may read (a
/// file's text names a node-pool resource type or `module`, or a file names the directory as
/// a module): the others' trees go as each file's findings are made. Which directories are
/// roots is decided over all the parts' parses: should a call escape the scan, its module is
/// read again and the roots are still those above. A module directory read from the disk is
/// parsed once for all roots.
///
/// With the pools come the roots that create a cluster (in their own files or in a linted
/// local module they reach): the anchors of `sources::clusters`, as the run names folders
/// (`""` for the top).
pub(super) fn evaluate(inputs: Vec<TfInput>, opts: &LintOptions) -> Evaluated {
    use rayon::prelude::*;
    use std::collections::{BTreeMap, HashMap, HashSet};
    if inputs.is_empty() {
        return Evaluated::default();
    }
    // By directory, the inventory's apart (per cluster they were given for).
    let mut by_dir: BTreeMap<(bool, Option<usize>, String), Vec<TfInput>> = BTreeMap::new();
    for i in inputs {
        let dir = dir_of(&i.file.name).to_string();
        let key = (
            i.inventory_only,
            if i.inventory_only { i.cluster } else { None },
            dir,
        );
        by_dir.entry(key).or_default().push(i);
    }
    let mut dirs: Vec<(usize, String, Vec<TfInput>)> = by_dir
        .into_iter()
        .enumerate()
        .map(|(index, ((_, _, dir), mut inputs))| {
            inputs.sort_by(|a, b| a.file.name.cmp(&b.file.name));
            (index, dir, inputs)
        })
        .collect();
    // The linted directories (not the inventory's), to read again where a part needs one of
    // another part.
    let mut again: HashMap<String, Vec<Again>> = HashMap::new();
    let mut linted: HashMap<String, usize> = HashMap::new();
    for (index, dir, inputs) in &dirs {
        if inputs.iter().all(|i| !i.inventory_only) {
            linted.insert(dir.clone(), *index);
            again.insert(
                dir.clone(),
                inputs
                    .iter()
                    .map(|i| Again {
                        name: Arc::clone(&i.file.name),
                        kept: i.file.kept.clone(),
                    })
                    .collect(),
            );
        }
    }
    // Parts: directories joined by the local `source`s their texts name.
    let mut parent: Vec<usize> = (0..dirs.len()).collect();
    fn root_of(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut named: HashSet<usize> = HashSet::new();
    for (index, dir, inputs) in &dirs {
        for s in inputs.iter().flat_map(|i| &i.file.calls) {
            if let Some(&j) = linted.get(&join(dir, s)) {
                named.insert(j);
                let (a, b) = (root_of(&mut parent, *index), root_of(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    // A directory's syntax trees are kept for the evaluation when a file of it may declare
    // pools or call modules, or a file names it as a module (else they are dropped as each
    // file's findings are made, and parsed again should the evaluation read them after all).
    let mut parts: BTreeMap<usize, Vec<Unread>> = BTreeMap::new();
    for (index, dir, inputs) in dirs.drain(..) {
        let r = root_of(&mut parent, index);
        let keep = named.contains(&index) || inputs.iter().any(|i| i.file.may_evaluate);
        parts.entry(r).or_default().push(Unread {
            index,
            dir,
            inputs,
            keep,
        });
    }
    let shared = Shared {
        again,
        disk: DiskModules::new(opts),
        opts,
    };
    let worked: Vec<(Vec<Group>, Vec<Done>, Vec<Finding>)> = parts
        .into_values()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|part| work_on(part, &shared))
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut done: Vec<Done> = Vec::new();
    let mut findings = Vec::new();
    for (g, d, f) in worked {
        groups.extend(g);
        done.extend(d);
        findings.extend(f);
    }
    groups.sort_by_key(|g| g.index);
    // Roots over all the parts: evaluated, not called by a linted directory; then what no
    // root reached.
    let called: HashSet<String> = groups.iter().flat_map(Group::calls).collect();
    let mut reached: HashSet<&str> = HashSet::new();
    for d in done.iter().filter(|d| !called.contains(&d.dir)) {
        reached.extend(d.dirs.iter().map(String::as_str));
    }
    let reached: HashSet<String> = reached.into_iter().map(str::to_string).collect();
    let evaluated: HashSet<usize> = done.iter().map(|d| d.index).collect();
    // A called directory no root reached that its part did not evaluate (its part's roots
    // were not roots after all: a call the scan missed).
    let missing: Vec<&Group> = groups
        .iter()
        .filter(|g| {
            g.evaluate()
                && called.contains(&g.dir)
                && !reached.contains(&g.dir)
                && !evaluated.contains(&g.index)
        })
        .collect();
    if !missing.is_empty() {
        let creating: HashSet<&str> = groups
            .iter()
            .filter(|g| g.creating())
            .map(|g| g.dir.as_str())
            .collect();
        let here = HashMap::new();
        let more: Vec<Done> = missing
            .par_iter()
            .filter_map(|g| run_root(g, &here, &creating, &shared))
            .collect();
        done.extend(more);
    }
    let (mut roots, mut rest): (Vec<Done>, Vec<Done>) = done
        .into_iter()
        .filter(|d| !called.contains(&d.dir) || !reached.contains(&d.dir))
        .partition(|d| !called.contains(&d.dir));
    roots.sort_by_key(|d| d.index);
    rest.sort_by_key(|d| d.index);
    let mut anchors = Vec::new();
    let mut pools = Vec::new();
    let mut problems = Vec::new();
    for d in roots.into_iter().chain(rest) {
        if d.creates {
            anchors.push(if d.dir == "." {
                String::new()
            } else {
                d.dir.clone()
            });
        }
        pools.extend(d.pools);
        problems.extend(d.problems);
    }
    findings.extend(problem_findings(problems, &groups, opts));
    Evaluated {
        pools,
        anchors,
        findings,
    }
}

/// One part of the step (see [`evaluate`]): its directories parsed, the roots among them
/// evaluated (with what a root of another part may call: none, or a call the scan missed).
fn work_on(part: Vec<Unread>, shared: &Shared<'_>) -> (Vec<Group>, Vec<Done>, Vec<Finding>) {
    use rayon::prelude::*;
    use std::collections::{HashMap, HashSet};
    let read: Vec<(Group, Vec<Finding>)> = part
        .into_par_iter()
        .map(|d| read_group(d, shared.opts))
        .collect();
    let mut groups = Vec::with_capacity(read.len());
    let mut findings = Vec::new();
    for (g, f) in read {
        groups.push(g);
        findings.extend(f);
    }
    if !groups.iter().any(Group::evaluate) {
        return (strip(groups), Vec::new(), findings);
    }
    let called: HashSet<String> = groups.iter().flat_map(Group::calls).collect();
    // The trees the evaluation may read: of directories that declare pools or call modules,
    // or that are called.
    for g in &mut groups {
        if !g.evaluate() && !called.contains(&g.dir) {
            g.files = None;
        }
    }
    let creating: HashSet<&str> = groups
        .iter()
        .filter(|g| g.creating())
        .map(|g| g.dir.as_str())
        .collect();
    let here: HashMap<&str, &Group> = groups
        .iter()
        .filter(|g| !g.inventory())
        .map(|g| (g.dir.as_str(), g))
        .collect();
    let roots: Vec<&Group> = groups
        .iter()
        .filter(|g| g.evaluate() && !called.contains(&g.dir))
        .collect();
    let mut done: Vec<Done> = roots
        .par_iter()
        .filter_map(|g| run_root(g, &here, &creating, shared))
        .collect();
    let reached: HashSet<&str> = done
        .iter()
        .flat_map(|d| d.dirs.iter().map(String::as_str))
        .collect();
    let rest: Vec<&Group> = groups
        .iter()
        .filter(|g| g.evaluate() && called.contains(&g.dir) && !reached.contains(g.dir.as_str()))
        .collect();
    let more: Vec<Done> = rest
        .par_iter()
        .filter_map(|g| run_root(g, &here, &creating, shared))
        .collect();
    done.extend(more);
    drop(here);
    (strip(groups), done, findings)
}

/// The groups without their syntax trees (the part is done with them).
fn strip(mut groups: Vec<Group>) -> Vec<Group> {
    for g in &mut groups {
        g.files = None;
    }
    groups
}

/// Evaluates `g` as a root module, `here`: the linted directories of its part, read.
fn run_root(
    g: &Group,
    here: &std::collections::HashMap<&str, &Group>,
    creating: &std::collections::HashSet<&str>,
    shared: &Shared<'_>,
) -> Option<Done> {
    let opts = shared.opts;
    let mut loader = DiskLoader { here, shared };
    let dir = loader.root(g)?;
    let outcome = tf::evaluate_root(dir, &mut loader);
    // Only the default cluster's files infer clusters (`clusters:` in the config wins).
    let creates = !g.fixture()
        && g.inputs
            .iter()
            .all(|i| !i.inventory_only && i.cluster == Some(opts.clusters.len()))
        && (creating.contains(g.dir.as_str())
            || outcome.dirs.iter().any(|d| creating.contains(d.as_str())));
    let mut pools = Vec::new();
    if let Some(first) = g.inputs.iter().min_by_key(|i| i.index) {
        let fixture = g.fixture();
        for mut decl in outcome.decls {
            if first.inventory_only {
                decl.declared = true;
            } else if fixture {
                // Test data and vendored code: another cluster's pools.
                continue;
            }
            pools.push(TfPool {
                index: first.index,
                cluster: first.cluster,
                decl,
            });
        }
    }
    Some(Done {
        index: g.index,
        dir: g.dir.clone(),
        pools,
        dirs: outcome.dirs,
        creates,
        problems: outcome.problems,
    })
}

/// One directory of Terraform inputs, before its files are parsed.
struct Unread {
    index: usize,
    dir: String,
    inputs: Vec<TfInput>,
    /// Keep its syntax trees for the evaluation (see [`evaluate`]).
    keep: bool,
}

/// Parses one directory's inputs (each once, in parallel): their findings, facts and, when it
/// keeps them, files.
fn read_group(d: Unread, opts: &LintOptions) -> (Group, Vec<Finding>) {
    use rayon::prelude::*;
    let Unread {
        index,
        dir,
        inputs,
        keep,
    } = d;
    let read: Vec<(Facts, Option<tf::DirFile>, Vec<Finding>)> = inputs
        .par_iter()
        .map(|i| {
            let Some(source) = i.file.source(opts) else {
                return (Facts::default(), None, Vec::new());
            };
            let read = tf::read(Arc::clone(&source));
            let mut found = syntax_findings(&source, read.as_ref().map(|(f, _)| f), opts);
            if i.fixture && !i.inventory_only {
                found.retain(|f| !rules::quiet_in_fixtures(f.rule));
            }
            if !found.is_empty() && i.on_disk && !opts.keep_sources {
                found = lite(found, &source);
            }
            match read {
                Ok((f, file)) => (
                    Facts {
                        evaluate: f.evaluate,
                        local_sources: f.local_sources,
                        creates_cluster: f.creates_cluster,
                    },
                    keep.then_some(file),
                    found,
                ),
                Err(_) => (Facts::default(), None, found),
            }
        })
        .collect();
    let mut findings = Vec::new();
    let mut facts = Vec::with_capacity(read.len());
    let mut files = Vec::new();
    for (f, file, found) in read {
        facts.push(f);
        files.extend(file);
        findings.extend(found);
    }
    let group = Group {
        index,
        dir,
        inputs,
        facts,
        // While its part is worked on, if the evaluation may read them.
        files: keep.then(|| Arc::new(files)),
    };
    (group, findings)
}

/// Findings on a file read from the disk keep only the positions they name (see
/// `FileReport::make_lite`).
fn lite(findings: Vec<Finding>, source: &Arc<SourceFile>) -> Vec<Finding> {
    let mut report = FileReport {
        findings,
        ..FileReport::default()
    };
    report.make_lite(source);
    report.findings
}

/// The evaluation's errors as findings: a `for` expression's repeated key.
fn problem_findings(
    mut problems: Vec<tf::EvalProblem>,
    groups: &[Group],
    opts: &LintOptions,
) -> Vec<Finding> {
    if problems.is_empty() {
        return Vec::new();
    }
    // Each once (a module called from several roots is evaluated for each).
    problems.sort_by(|a, b| (&a.source.name, a.at.start).cmp(&(&b.source.name, b.at.start)));
    problems.dedup_by(|a, b| a.source.name == b.source.name && a.at == b.at);
    let quiet: std::collections::HashSet<&str> = groups
        .iter()
        .flat_map(|g| &g.inputs)
        .filter(|i| i.fixture && !i.inventory_only)
        .map(|i| &*i.file.name)
        .collect();
    let mut out = Vec::new();
    for p in problems {
        let f = match p.kind {
            tf::EvalProblemKind::DuplicateKey { key_at, key } => {
                if !opts.rules.is_enabled(rules::DUPLICATE_KEY.name)
                    || quiet.contains(&*p.source.name)
                        && rules::quiet_in_fixtures(rules::DUPLICATE_KEY.name)
                {
                    continue;
                }
                let mut f = rules::DUPLICATE_KEY
                    .finding_at(
                        crate::diagnostic::Severity::Error,
                        format!(
                            "Duplicate object key: two different items produce the key `{key}` in this `for` expression; Terraform refuses it (the value is unknown to taintlint)"
                        ),
                    )
                    .primary(p.at, "this `for` expression")
                    .help("if duplicates are expected, add the ellipsis (`...`) after the value expression to group the values by key (hashicorp/hcl `ForExpr`)")
                    .in_file(&p.source);
                if let Some(k) = key_at {
                    f = f.secondary(k, "produces the same key twice");
                }
                f
            }
            // What taintlint could not do is no fact about the files: an info.
            tf::EvalProblemKind::OutOfWork => {
                if !opts.rules.is_enabled(rules::YAML_TOO_COMPLEX.name) {
                    continue;
                }
                rules::YAML_TOO_COMPLEX
                    .finding_at(
                        crate::diagnostic::Severity::Info,
                        "evaluating this Terraform expression took more work than the size of the files allows; it and what depends on it are unknown to taintlint".to_string(),
                    )
                    .primary(p.at, "evaluation stopped here")
                    .help("a `for_each` over a long collection, or a function over a large value, makes work out of proportion to the text (see docs/security.md); the node pools that depend on it are not judged")
                    .in_file(&p.source)
            }
        };
        if opts.keep_sources {
            out.push(f);
        } else {
            out.extend(lite(vec![f], &p.source));
        }
    }
    out
}

/// Reads module directories for one root: the linted ones of its part from the step's
/// parse, other linted ones again, others from the disk, confined (see [`evaluate`]).
struct DiskLoader<'a> {
    /// The linted groups of the root's part, by directory (not the inventory's).
    here: &'a std::collections::HashMap<&'a str, &'a Group>,
    shared: &'a Shared<'a>,
}

/// The module directories read from the disk (not among the inputs), parsed once for all the
/// roots of a run.
struct DiskModules<'a> {
    opts: &'a LintOptions,
    /// The linted paths, canonical (directories; a file's folder).
    roots: Vec<std::path::PathBuf>,
    cache: std::sync::Mutex<std::collections::HashMap<String, Option<Arc<tf::Dir>>>>,
}

impl<'a> DiskModules<'a> {
    fn new(opts: &'a LintOptions) -> Self {
        let roots = opts
            .roots
            .iter()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .map(|r| {
                if r.is_dir() {
                    r
                } else {
                    r.parent().map(std::path::Path::to_path_buf).unwrap_or(r)
                }
            })
            .collect();
        DiskModules {
            opts,
            roots,
            cache: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Where a module may be read from: inside the git work tree of `dir`, else inside the
    /// linted path holding it.
    fn allowed(&self, from: &std::path::Path, target: &std::path::Path) -> bool {
        let Ok(from) = std::fs::canonicalize(from) else {
            return false;
        };
        let git = from
            .ancestors()
            .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
            .map(std::path::Path::to_path_buf);
        let boundary = git.or_else(|| self.roots.iter().find(|r| from.starts_with(r)).cloned());
        boundary.is_some_and(|b| target.starts_with(b))
    }

    /// The directory at `path`, called from `from`: read and parsed once (its confinement
    /// checked for each caller).
    fn get(&self, from: &str, path: &str) -> Result<Arc<tf::Dir>, String> {
        let target = std::fs::canonicalize(path).map_err(|e| e.to_string())?;
        if !self.allowed(std::path::Path::new(from), &target) {
            return Err("outside the repository".to_string());
        }
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(path)
            .cloned();
        if let Some(got) = cached {
            return got.ok_or_else(|| "not read".to_string());
        }
        // Read outside the lock (two roots may read one directory at once: the first kept).
        let got = self.read_dir(path).ok().map(Arc::new);
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let got = cache.entry(path.to_string()).or_insert(got).clone();
        got.ok_or_else(|| "not read".to_string())
    }

    fn read_dir(&self, path: &str) -> Result<tf::Dir, String> {
        let p = std::path::Path::new(path);
        let canonical = std::fs::canonicalize(p).map_err(|e| e.to_string())?;
        if !canonical.is_dir() {
            return Err("not a directory".to_string());
        }
        // Reached through a symbolic link: refused unless links are followed.
        let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        let lexical = std::path::PathBuf::from(join(&cwd.to_string_lossy(), path));
        if canonical != lexical && !self.opts.follow_links {
            return Err("reached through a symbolic link".to_string());
        }
        let mut names: Vec<String> = std::fs::read_dir(p)
            .map_err(|e| e.to_string())?
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| is_terraform(n) && !ignored(n))
            .collect();
        names.sort();
        names.truncate(MAX_MODULE_FILES);
        let files = names
            .into_iter()
            .filter_map(|n| {
                let name = join(path, &n);
                let text =
                    crate::load::read_file(std::path::Path::new(&name), self.opts.max_file_size)
                        .ok()?;
                tf::DirFile::parse(SourceFile::new(Arc::from(name.as_str()), text))
            })
            .collect();
        Ok(tf::Dir {
            path: path.to_string(),
            files,
            tfvars: Vec::new(),
        })
    }
}

/// Files Terraform skips in a module directory: hidden ones, editor backups (`~`), Emacs
/// lock files (`#…#`) (hashicorp/terraform `internal/configs/parser_config_dir.go`,
/// `IsIgnoredFile`).
fn ignored(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}

impl DiskLoader<'_> {
    /// A group as a root module: its files, and its variable files from the disk.
    fn root(&mut self, g: &Group) -> Option<Arc<tf::Dir>> {
        let opts = self.shared.opts;
        let files = match &g.files {
            Some(files) => files.iter().cloned().collect(),
            // Its trees were dropped with its part's (a call the scan missed): again.
            None => parse_again(g.inputs.iter().map(|i| (&i.file.name, &i.file.kept)), opts),
        };
        if files.is_empty() {
            return None;
        }
        let tfvars = if g.inputs.iter().any(|i| i.on_disk) {
            tfvars(&g.dir, opts)
        } else {
            Vec::new()
        };
        Some(Arc::new(tf::Dir {
            path: g.dir.clone(),
            files,
            tfvars,
        }))
    }
}

/// `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars(.json)` by name
/// (<https://developer.hashicorp.com/terraform/language/values/variables#variable-definitions-tfvars-files>).
fn tfvars(dir: &str, opts: &LintOptions) -> Vec<Arc<SourceFile>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| {
            n == "terraform.tfvars"
                || n == "terraform.tfvars.json"
                || n.ends_with(".auto.tfvars")
                || n.ends_with(".auto.tfvars.json")
        })
        .collect();
    names.sort_by_key(|n| (!n.starts_with("terraform.tfvars"), n.clone()));
    names
        .into_iter()
        .filter_map(|n| {
            let name = join(dir, &n);
            let text =
                crate::load::read_file(std::path::Path::new(&name), opts.max_file_size).ok()?;
            Some(SourceFile::new(Arc::from(name.as_str()), text))
        })
        .collect()
}

/// The Terraform files one module directory read from the disk may have.
const MAX_MODULE_FILES: usize = 1000;

/// Linted files parsed again (a directory whose trees are not at hand: see [`evaluate`]).
fn parse_again<'a>(
    files: impl Iterator<Item = (&'a Arc<str>, &'a Kept)>,
    opts: &LintOptions,
) -> Vec<tf::DirFile> {
    files
        .filter_map(|(name, kept)| tf::DirFile::parse(kept.source(name, opts)?))
        .collect()
}

impl tf::Loader for DiskLoader<'_> {
    fn module(&mut self, from: &tf::Dir, source: &str) -> Result<Arc<tf::Dir>, String> {
        let path = join(&from.path, source);
        // A linted directory: its files as the run read them (links and exclusions were the
        // walk's to decide).
        let files = match (self.here.get(path.as_str()), self.shared.again.get(&path)) {
            (Some(g), _) if g.files.is_some() => {
                g.files.as_ref().map(|f| f.iter().cloned().collect())
            }
            (_, Some(again)) => Some(parse_again(
                again.iter().map(|a| (&a.name, &a.kept)),
                self.shared.opts,
            )),
            _ => None,
        };
        if let Some(files) = files {
            return Ok(Arc::new(tf::Dir {
                path,
                files,
                tfvars: Vec::new(),
            }));
        }
        self.shared.disk.get(&from.path, &path)
    }
}

/// The YAML view of a Terraform text (see the module's notes), or `None` when no heredoc
/// holds a manifest (`apiVersion:` and `kind:` lines).
pub(super) fn yaml_view(text: &str) -> Option<String> {
    let heredocs = manifest_heredocs(text);
    if heredocs.is_empty() {
        return None;
    }
    let mut view: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    for h in heredocs {
        // The opening line becomes a document start; the body is copied as it is.
        if let Some(start) = view.get_mut(h.opener.start..h.opener.start + 3) {
            start.copy_from_slice(b"---");
        }
        if let (Some(dst), Some(src)) = (
            view.get_mut(h.body.start..h.body.end),
            text.as_bytes().get(h.body.start..h.body.end),
        ) {
            dst.copy_from_slice(src);
        }
        if let Some(indent) = h.flush_indent {
            flush_document_markers(&mut view, text, &h.body, indent);
        }
    }
    // Bytes were replaced by ASCII spaces whole characters at a time, or copied from whole
    // lines of the text: the view is UTF-8. Never fails; an empty view if it did.
    Some(String::from_utf8(view).unwrap_or_default())
}

/// A heredoc: its opening line, and its body (the lines between the opener and the closing
/// marker).
#[derive(Debug, PartialEq, Eq)]
struct Heredoc {
    opener: Span,
    body: Span,
    /// For a `<<-` heredoc, the indentation Terraform strips from each of its lines.
    flush_indent: Option<usize>,
}

/// The heredocs (`<<EOT`, `<<-EOT`) whose body is a Kubernetes manifest.
fn manifest_heredocs(text: &str) -> Vec<Heredoc> {
    let mut found = Vec::new();
    let mut lines = lines(text).peekable();
    while let Some((start, line)) = lines.next() {
        let Some(marker) = heredoc_marker(line) else {
            continue;
        };
        let flush = line.contains(&format!("<<-{marker}"));
        let opener = Span::new(start, start + line.len());
        let body_start = start + line.len() + 1;
        let mut body_end = None;
        for (at, l) in lines.by_ref() {
            if l.trim() == marker {
                body_end = Some(at);
                break;
            }
        }
        // An unterminated heredoc is Terraform's error, not a manifest.
        let Some(body_end) = body_end else { break };
        let body = text.get(body_start..body_end).unwrap_or("");
        let manifest = body
            .lines()
            .any(|l| l.trim_start().starts_with("apiVersion:"))
            && body.lines().any(|l| l.trim_start().starts_with("kind:"))
            && starts_as_yaml(body);
        if manifest && line.len() >= 3 {
            found.push(Heredoc {
                opener,
                body: Span::new(body_start.min(body_end), body_end),
                flush_indent: flush.then(|| flush_indent(body)),
            });
        }
    }
    found
}

/// Does the heredoc's first line of content (after blank and comment lines) start YAML: a
/// document marker, a list item, or a mapping key? A shell script that writes a manifest with
/// `cat <<EOF` (a `local_file`'s content, user data) starts otherwise, and is not one.
fn starts_as_yaml(body: &str) -> bool {
    let Some(first) = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    if first.starts_with("---") || first.starts_with("- ") || first == "-" {
        return true;
    }
    // `key:` or `key: value`, the key plain or quoted (or a `${…}` Terraform fills in).
    let key_end = first
        .find(": ")
        .or_else(|| first.strip_suffix(':').map(str::len));
    key_end.is_some_and(|end| {
        let key = &first[..end];
        !key.is_empty() && !key.contains(char::is_whitespace) || key.starts_with(['"', '\''])
    })
}

/// The indentation Terraform strips from the lines of a `<<-` heredoc: the smallest number of
/// leading whitespace characters of a line that is not blank (HCL's `flushHeredocTemplateParts`,
/// <https://github.com/hashicorp/hcl/blob/main/hclsyntax/parser_template.go>;
/// <https://developer.hashicorp.com/terraform/language/expressions/strings#indented-heredocs>).
fn flush_indent(body: &str) -> usize {
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).count())
        .min()
        .unwrap_or(0)
}

/// In a `<<-` heredoc, a line at the stripped indentation that is a YAML document marker
/// (`---`, `...`) starts a document once Terraform strips the heredoc: in the view it is moved
/// to the start of its line (the line's other positions shift by the indentation; every other
/// line keeps its place, as uniformly indented YAML reads the same as the stripped text).
fn flush_document_markers(view: &mut [u8], text: &str, body: &Span, indent: usize) {
    if indent == 0 {
        return;
    }
    let Some(body_text) = text.get(body.start..body.end) else {
        return;
    };
    for (at, line) in lines(body_text) {
        let Some((cut, _)) = line.char_indices().nth(indent) else {
            continue;
        };
        let (lead, rest) = line.split_at(cut);
        let marker = ["---", "..."].iter().any(|m| {
            rest.strip_prefix(m)
                .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
        });
        if !marker || !lead.chars().all(char::is_whitespace) {
            continue;
        }
        let start = body.start + at;
        let Some(dst) = view.get_mut(start..start + line.len()) else {
            continue;
        };
        let mut moved = rest.as_bytes().to_vec();
        moved.resize(line.len(), b' ');
        dst.copy_from_slice(&moved);
    }
}

/// Lines with their start offsets, without their line breaks.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split('\n').map(move |l| {
        let start = at;
        at += l.len() + 1;
        (start, l.strip_suffix('\r').unwrap_or(l))
    })
}

/// The closing marker of a line that opens a heredoc (`… = <<-YAML`, `yamldecode(<<EOT`).
fn heredoc_marker(line: &str) -> Option<&str> {
    let code = line.split('#').next().unwrap_or(line).trim_end();
    let at = code.rfind("<<")?;
    let marker = code[at + 2..].trim_start_matches('-');
    let ok = !marker.is_empty()
        && marker
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && marker.bytes().next().is_some_and(|b| !b.is_ascii_digit());
    ok.then_some(marker)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TF: &str = r#"resource "kubectl_manifest" "gpu" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: gpu
  YAML
}

locals {
  script = <<EOT
echo hi
EOT
}
"#;

    #[test]
    fn a_script_that_writes_a_manifest_is_no_manifest() {
        let script = "resource \"local_file\" \"join\" {\n  content = <<-EOT\n    #!/usr/bin/env bash\n    cat <<EOF > node.yaml\n    apiVersion: node.eks.aws/v1alpha1\n    kind: NodeConfig\n    EOF\n  EOT\n}\n";
        assert!(yaml_view(script).is_none());
        for yaml in [
            "# a comment\napiVersion: v1\n",
            "---\nkind: X\n",
            "- a\n",
            "\"k\": v\n",
        ] {
            assert!(starts_as_yaml(yaml), "{yaml}");
        }
        for not in ["cat <<EOF\n", "echo apiVersion: v1\n", "", "# only\n"] {
            assert!(!starts_as_yaml(not), "{not}");
        }
    }

    #[test]
    fn only_manifest_heredocs_are_kept_at_their_offsets() {
        let view = yaml_view(TF).unwrap();
        assert_eq!(view.len(), TF.len());
        assert_eq!(view.lines().count(), TF.lines().count());
        let lines: Vec<&str> = view.lines().collect();
        assert_eq!(lines[0].trim(), "");
        assert!(lines[1].starts_with("---") && lines[1][3..].trim().is_empty());
        assert_eq!(lines[2], "    apiVersion: karpenter.sh/v1");
        assert_eq!(lines[5], "      name: gpu");
        // The closing marker and the shell heredoc are blank.
        assert!(lines[6..].iter().all(|l| l.trim().is_empty()));
    }

    /// Terraform strips a `<<-` heredoc by its smallest indentation (blank lines aside): a
    /// `---` at that indentation starts a document, one deeper in does not.
    #[test]
    fn flush_heredoc_document_markers_start_documents() {
        let tf = "locals {\n  m = <<-EOT\n    ---\n    apiVersion: v1\n    kind: Pod\n\n    metadata:\n      name: a\n    ...\n    --- # b\n    apiVersion: v1\n    kind: Pod\n    x: |\n      ---\n  EOT\n}\n";
        let view = yaml_view(tf).unwrap();
        assert_eq!(view.len(), tf.len());
        let lines: Vec<&str> = view.lines().collect();
        assert_eq!(lines[2], "---    ");
        assert_eq!(lines[3], "    apiVersion: v1");
        assert_eq!(lines[8], "...    ");
        assert_eq!(lines[9], "--- # b    ");
        // Inside a block scalar, deeper than the stripped indentation: content.
        assert_eq!(lines[13], "      ---");
        // `<<EOT` is not stripped: its indented `---` stays as it is.
        let plain = tf.replace("<<-EOT", "<<EOT ");
        let view = yaml_view(&plain).unwrap();
        assert_eq!(view.lines().nth(2), Some("    ---"));
    }

    #[test]
    fn flush_indent_ignores_blank_lines() {
        assert_eq!(flush_indent("    a\n\n  \n      b\n"), 4);
        assert_eq!(flush_indent("\ta\n\t\tb"), 1);
        assert_eq!(flush_indent(""), 0);
    }

    #[test]
    fn files_without_manifests_have_no_view() {
        assert_eq!(yaml_view("variable \"x\" {}\n"), None);
        assert_eq!(yaml_view("x = <<EOT\nhello\nEOT\n"), None);
        // Unterminated.
        assert_eq!(yaml_view("x = <<EOT\napiVersion: v1\nkind: Pod\n"), None);
    }

    #[test]
    fn markers() {
        assert_eq!(heredoc_marker("  yaml_body = <<-YAML"), Some("YAML"));
        assert_eq!(heredoc_marker("  manifest = yamldecode(<<EOT"), Some("EOT"));
        assert_eq!(heredoc_marker("  x = 1 << 2"), None);
        assert_eq!(heredoc_marker("  x = \"<<\""), None);
    }
}
