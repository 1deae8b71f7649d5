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
use crate::analysis::types::NodeDecl;
use crate::load::{SourceFile, Span};
use crate::rules;

/// Is this a Terraform file (by its name)?
pub(super) fn is_terraform(name: &str) -> bool {
    name.ends_with(".tf")
}

/// Lints a Terraform file: its syntax (with hcl-edit, as Terraform reads it: see
/// `analysis::sources::terraform`), its repeated object keys, and the manifests in its
/// heredocs. A file that does not parse as HCL gets a `yaml-syntax-error` (the rule of files
/// whose syntax cannot be read), and its heredocs are still linted. Its node pools are not
/// read here: a module is a directory, so the run evaluates each directory's files together
/// once every file is linted ([`evaluate`]); the report carries what that needs.
pub(super) fn lint(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let mut report = match yaml_view(&source.text) {
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
    match crate::analysis::sources::terraform::file_facts(&source.text) {
        Ok(facts) => {
            if opts.rules.is_enabled(rules::DUPLICATE_KEY.name) {
                for (dropped, wins, key) in &facts.repeats {
                    report.findings.push(
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
            report.terraform = Some(Box::new(TerraformFile {
                name: Arc::clone(&source.name),
                kept: Kept::Text(Arc::clone(source)),
                evaluate: facts.evaluate,
                local_sources: facts.local_sources,
                creates_cluster: facts.creates_cluster,
            }));
        }
        Err(e) if e.limit && opts.rules.is_enabled(rules::YAML_TOO_COMPLEX.name) => {
            let at = crate::util::text::floor_char(&source.text, e.at);
            report.findings.push(
                rules::YAML_TOO_COMPLEX
                    .finding(format!("Terraform file not read: {}", e.message))
                    .primary(Span::new(at, at), "here")
                    .help("the node pools of this file were not read; split the object (a `for_each` of this many pools is better generated from a smaller input)")
                    .in_file(source),
            );
        }
        Err(e) if !e.limit && opts.rules.is_enabled(rules::YAML_SYNTAX_ERROR.name) => {
            let at = crate::util::text::floor_char(&source.text, e.at);
            let end = source.text[at..]
                .chars()
                .next()
                .map_or(at, |c| at + c.len_utf8());
            report.findings.push(
                rules::YAML_SYNTAX_ERROR
                    .finding(format!("Terraform (HCL) syntax error: {}", e.message))
                    .primary(Span::new(at, end), "here")
                    .help("fix the syntax (`terraform validate` shows it too); the node pools of this file were not read")
                    .in_file(source),
            );
        }
        Err(_) => {}
    }
    report
}

/// What the run keeps of a `.tf` file that parses, to evaluate its directory (see
/// [`evaluate`]).
pub struct TerraformFile {
    /// The file's name (its path, when it was read from the disk).
    pub name: Arc<str>,
    /// What its directory's evaluation reads.
    kept: Kept,
    /// It declares node-pool resources or calls a module.
    pub evaluate: bool,
    /// Its local module calls' `source`s.
    pub local_sources: Vec<String>,
    /// It creates a cluster (see `sources::clusters`).
    pub creates_cluster: bool,
}

/// What is kept of a `.tf` file until its directory is evaluated. Most `.tf` files sit in
/// directories that never are (no pools, no module calls: 4.5 of the 5.4 MB of `.tf` text in
/// the real-world suite): their text is not held to the end of the walk when it can be read
/// again from the disk. Nor is a file's syntax tree, even where its directory is evaluated
/// for certain: hcl-edit's tree weighs about twenty times the text (kept for the 86 files of
/// that suite that declare pools or call modules, the trees took 7 MB more at the peak and
/// saved 2 ms of CPU; see bench/README).
enum Kept {
    /// The whole text (a file not read from the disk, or until the run drops it; the report's
    /// own copy may be made lite).
    Text(Arc<SourceFile>),
    /// Only its path: the file is read again from the disk if its directory is evaluated.
    OnDisk(std::path::PathBuf),
}

impl TerraformFile {
    /// Forgets the text of a file read from the disk that its directory's evaluation, if
    /// there is one, can read again.
    pub(super) fn forget_text(&mut self, path: std::path::PathBuf) {
        if matches!(self.kept, Kept::Text(_)) {
            self.kept = Kept::OnDisk(path);
        }
    }

    /// The file parsed, for its directory's evaluation (`None`: it can no longer be read,
    /// or no longer parses).
    fn dir_file(&self, opts: &LintOptions) -> Option<crate::analysis::sources::terraform::DirFile> {
        use crate::analysis::sources::terraform::DirFile;
        match &self.kept {
            Kept::Text(source) => DirFile::parse(Arc::clone(source)),
            Kept::OnDisk(path) => {
                let text = crate::load::read_file(path, opts.max_file_size).ok()?;
                DirFile::parse(SourceFile::new(Arc::clone(&self.name), text))
            }
        }
    }
}

/// A `.tf` input of the run, with what decides where its pools go.
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
/// does not have open): `files` are (name, cluster slot, file) of each `.tf` file that parses;
/// each pool is given with the file its root module's evaluation is attributed to (the root
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
    let (pools, roots) = evaluate(inputs, opts);
    let pools = pools
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

/// One directory of `.tf` inputs.
struct Group {
    dir: String,
    inputs: Vec<TfInput>,
}

impl Group {
    fn evaluate(&self) -> bool {
        self.inputs.iter().any(|i| i.file.evaluate)
    }
    fn fixture(&self) -> bool {
        self.inputs.iter().all(|i| i.fixture)
    }
}

/// Evaluates the Terraform root modules among the run's `.tf` inputs and gives their pools.
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
/// With the pools come the roots that create a cluster (in their own files or in a linted
/// local module they reach): the anchors of `sources::clusters`, as the run names folders
/// (`""` for the top).
pub(super) fn evaluate(inputs: Vec<TfInput>, opts: &LintOptions) -> (Vec<TfPool>, Vec<String>) {
    use std::collections::{BTreeMap, HashSet};
    if !inputs.iter().any(|i| i.file.evaluate) {
        return (Vec::new(), Vec::new());
    }
    // By directory, the inventory's apart (per cluster they were given for).
    let mut groups: BTreeMap<(bool, Option<usize>, String), Vec<TfInput>> = BTreeMap::new();
    for i in inputs {
        let dir = dir_of(&i.file.name).to_string();
        let key = (
            i.inventory_only,
            if i.inventory_only { i.cluster } else { None },
            dir,
        );
        groups.entry(key).or_default().push(i);
    }
    let groups: Vec<Group> = groups
        .into_iter()
        .map(|((_, _, dir), mut inputs)| {
            inputs.sort_by(|a, b| a.file.name.cmp(&b.file.name));
            Group { dir, inputs }
        })
        .collect();
    // Directories a linted directory calls (not counting itself, test data, vendored code).
    let mut called: HashSet<String> = HashSet::new();
    for g in groups.iter().filter(|g| !g.fixture()) {
        for i in &g.inputs {
            for s in &i.file.local_sources {
                let target = join(&g.dir, s);
                if target != g.dir {
                    called.insert(target);
                }
            }
        }
    }
    // Each root with a loader of its own, in parallel; the pools in the roots' order.
    // The linted directories that create a cluster.
    let creating: HashSet<&str> = groups
        .iter()
        .filter(|g| {
            !g.fixture()
                && g.inputs
                    .iter()
                    .any(|i| i.file.creates_cluster && !i.inventory_only)
        })
        .map(|g| g.dir.as_str())
        .collect();
    let run = |g: &Group| -> (Vec<TfPool>, Vec<String>, bool) {
        let mut loader = DiskLoader::new(&groups, opts);
        let Some(dir) = loader.root(g) else {
            return (Vec::new(), Vec::new(), false);
        };
        let outcome = crate::analysis::sources::terraform::evaluate_root(dir, &mut loader);
        // Only the default cluster's files infer clusters (`clusters:` in the config wins).
        let creates = !g.fixture()
            && g.inputs
                .iter()
                .all(|i| !i.inventory_only && i.cluster == Some(opts.clusters.len()))
            && (creating.contains(g.dir.as_str())
                || outcome.dirs.iter().any(|d| creating.contains(d.as_str())));
        let Some(first) = g.inputs.iter().min_by_key(|i| i.index) else {
            return (Vec::new(), outcome.dirs, creates);
        };
        let fixture = g.fixture();
        let mut out = Vec::new();
        for mut decl in outcome.decls {
            if first.inventory_only {
                decl.declared = true;
            } else if fixture {
                // Test data and vendored code: another cluster's pools.
                continue;
            }
            out.push(TfPool {
                index: first.index,
                cluster: first.cluster,
                decl,
            });
        }
        (out, outcome.dirs, creates)
    };
    use rayon::prelude::*;
    // Roots first, then what no root reached.
    let roots: Vec<&Group> = groups
        .iter()
        .filter(|g| g.evaluate() && !called.contains(&g.dir))
        .collect();
    let done: Vec<(Vec<TfPool>, Vec<String>, bool)> = roots.par_iter().map(|g| run(g)).collect();
    let reached: HashSet<String> = done
        .iter()
        .flat_map(|(_, d, _)| d.iter().cloned())
        .collect();
    let rest: Vec<&Group> = groups
        .iter()
        .filter(|g| g.evaluate() && called.contains(&g.dir) && !reached.contains(&g.dir))
        .collect();
    let more: Vec<(Vec<TfPool>, Vec<String>, bool)> = rest.par_iter().map(|g| run(g)).collect();
    let mut anchors = Vec::new();
    let mut pools = Vec::new();
    for (g, (p, _, creates)) in roots
        .iter()
        .chain(rest.iter())
        .zip(done.into_iter().chain(more))
    {
        if creates {
            anchors.push(if g.dir == "." {
                String::new()
            } else {
                g.dir.clone()
            });
        }
        pools.extend(p);
    }
    (pools, anchors)
}

/// Reads module directories: from the run's inputs when it has them, else from the disk,
/// confined (see [`evaluate`]).
struct DiskLoader<'a> {
    /// The linted files, by directory (not the inventory's).
    linted: std::collections::HashMap<&'a str, &'a Group>,
    cache: std::collections::HashMap<String, Option<Arc<crate::analysis::sources::terraform::Dir>>>,
    opts: &'a LintOptions,
    /// The linted paths, canonical (directories; a file's folder).
    roots: Vec<std::path::PathBuf>,
}

impl<'a> DiskLoader<'a> {
    fn new(groups: &'a [Group], opts: &'a LintOptions) -> Self {
        let linted = groups
            .iter()
            .filter(|g| g.inputs.iter().all(|i| !i.inventory_only))
            .map(|g| (g.dir.as_str(), g))
            .collect();
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
        DiskLoader {
            linted,
            cache: std::collections::HashMap::new(),
            opts,
            roots,
        }
    }

    /// A group as a root module: its files, and its variable files from the disk.
    fn root(&mut self, g: &Group) -> Option<Arc<crate::analysis::sources::terraform::Dir>> {
        let files = parse_inputs(&g.inputs, self.opts);
        if files.is_empty() {
            return None;
        }
        let tfvars = if g.inputs.iter().any(|i| i.on_disk) {
            self.tfvars(&g.dir)
        } else {
            Vec::new()
        };
        Some(Arc::new(crate::analysis::sources::terraform::Dir {
            path: g.dir.clone(),
            files,
            tfvars,
        }))
    }

    /// `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars(.json)` by name
    /// (<https://developer.hashicorp.com/terraform/language/values/variables#variable-definitions-tfvars-files>).
    fn tfvars(&self, dir: &str) -> Vec<Arc<SourceFile>> {
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
                    crate::load::read_file(std::path::Path::new(&name), self.opts.max_file_size)
                        .ok()?;
                Some(SourceFile::new(Arc::from(name.as_str()), text))
            })
            .collect()
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

    fn read_dir(&self, path: &str) -> Result<crate::analysis::sources::terraform::Dir, String> {
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
            .filter(|n| n.ends_with(".tf"))
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
                crate::analysis::sources::terraform::DirFile::parse(SourceFile::new(
                    Arc::from(name.as_str()),
                    text,
                ))
            })
            .collect();
        Ok(crate::analysis::sources::terraform::Dir {
            path: path.to_string(),
            files,
            tfvars: Vec::new(),
        })
    }
}

/// The `.tf` files one module directory read from the disk may have.
const MAX_MODULE_FILES: usize = 1000;

fn parse_inputs(
    inputs: &[TfInput],
    opts: &LintOptions,
) -> Vec<crate::analysis::sources::terraform::DirFile> {
    inputs
        .iter()
        .filter_map(|i| i.file.dir_file(opts))
        .collect()
}

impl crate::analysis::sources::terraform::Loader for DiskLoader<'_> {
    fn module(
        &mut self,
        from: &crate::analysis::sources::terraform::Dir,
        source: &str,
    ) -> Result<Arc<crate::analysis::sources::terraform::Dir>, String> {
        let path = join(&from.path, source);
        if let Some(got) = self.cache.get(&path) {
            return got.clone().ok_or_else(|| "not read".to_string());
        }
        let got = if let Some(g) = self.linted.get(path.as_str()) {
            // A linted directory: its files as the run read them (links and exclusions were
            // the walk's to decide).
            Ok(crate::analysis::sources::terraform::Dir {
                path: path.clone(),
                files: parse_inputs(&g.inputs, self.opts),
                tfvars: Vec::new(),
            })
        } else {
            let target = std::fs::canonicalize(&path).map_err(|e| e.to_string());
            match target {
                Ok(t) if self.allowed(std::path::Path::new(&from.path), &t) => self.read_dir(&path),
                Ok(_) => Err("outside the repository".to_string()),
                Err(e) => Err(e),
            }
        };
        let got = got.ok().map(Arc::new);
        self.cache.insert(path, got.clone());
        got.ok_or_else(|| "not read".to_string())
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
            && body.lines().any(|l| l.trim_start().starts_with("kind:"));
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
