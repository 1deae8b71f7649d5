//! The walker: expands the paths given on the command line into the files to lint, in path
//! order — as a list (`collect`) or as the walk goes (`stream`, for runs that keep no list).
//! Directories are walked with walkdir (sorted by name, VCS folders pruned, symlinks not
//! followed unless asked, loops detected); `--include`/`--exclude` globs decide what is linted;
//! a file named explicitly is always linted; a file reached under several names (links,
//! overlapping paths) is listed once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::util::glob::PathGlobs;
use walkdir::WalkDir;

/// Folders never descended into.
const SKIP_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"];

pub const DEFAULT_INCLUDE: &[&str] = &[
    "*.yaml",
    "*.yml",
    "*.json",
    // Templates of manifests: reported as not rendered, not skipped in silence.
    "*.yaml.j2",
    "*.yml.j2",
    "*.yaml.jinja",
    "*.yml.jinja",
    "*.yaml.jinja2",
    "*.yml.jinja2",
    "*.yaml.tpl",
    "*.yml.tpl",
    "*.yaml.tmpl",
    "*.yml.tmpl",
    "*.yaml.gotmpl",
    "*.yml.gotmpl",
    // Terraform: the manifests in its heredocs (`kubectl_manifest` `yaml_body`).
    "*.tf",
];

#[derive(Clone, Debug)]
pub struct WalkOptions {
    pub include: PathGlobs,
    pub exclude: PathGlobs,
    pub follow_links: bool,
}

impl WalkOptions {
    /// Builds the glob sets; a glob that does not compile is a tool error.
    pub fn new(
        include: &[String],
        exclude: &[String],
        follow_links: bool,
    ) -> Result<Self, WalkError> {
        let include: Vec<String> = if include.is_empty() {
            DEFAULT_INCLUDE.iter().map(|s| (*s).to_string()).collect()
        } else {
            include.to_vec()
        };
        Ok(WalkOptions {
            include: PathGlobs::new(&include)?,
            exclude: PathGlobs::new(exclude)?,
            follow_links,
        })
    }

    /// Whether a path is excluded by the user (`--exclude`, the config's `exclude`): a file
    /// so excluded is not linted even when named.
    pub fn excluded(&self, path: &Path) -> bool {
        self.exclude.matches_path(path)
    }

    fn included(&self, path: &Path) -> bool {
        self.include.matches_path(path)
    }
}

/// Why a walk cannot start.
#[derive(Debug)]
pub enum WalkError {
    /// An `--include`/`--exclude` (or configured `exclude`) glob that cannot be used.
    Glob(crate::util::glob::GlobError),
    /// A path given to lint that cannot be opened.
    Path { path: PathBuf, reason: String },
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalkError::Glob(e) => e.fmt(f),
            WalkError::Path { path, reason } => write!(
                f,
                "{}: {reason}",
                crate::util::text::escape(&path.display().to_string())
            ),
        }
    }
}

impl std::error::Error for WalkError {}

impl From<crate::util::glob::GlobError> for WalkError {
    fn from(e: crate::util::glob::GlobError) -> Self {
        WalkError::Glob(e)
    }
}

/// One file to lint, or a problem met while walking.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    File(PathBuf),
    /// A path the walker could not read (unreadable directory, symlink loop, dangling link).
    Error {
        path: PathBuf,
        message: String,
    },
}

impl Entry {
    pub fn path(&self) -> &Path {
        match self {
            Entry::File(p) | Entry::Error { path: p, .. } => p,
        }
    }
}

/// A file found by the walk, with what is needed to recognise it under another path.
struct Found {
    entry: Entry,
    /// The file's canonical path (`None` when it cannot be resolved, e.g. it vanished).
    canonical: Option<PathBuf>,
    /// Reached without going through a symbolic link below the root it was found from.
    direct: bool,
}

impl Found {
    /// A file found under `root`. Its canonical path is resolved only when another name may
    /// reach it (`identify`): resolving costs a system call per path component.
    fn file(path: PathBuf, root: &Path, canonical_root: Option<&Path>, identify: bool) -> Self {
        if !identify {
            return Found {
                entry: Entry::File(path),
                canonical: None,
                direct: true,
            };
        }
        let canonical = std::fs::canonicalize(&path).ok();
        let direct = match (&canonical, canonical_root, path.strip_prefix(root)) {
            (Some(c), Some(r), Ok(rel)) => *c == r.join(rel),
            _ => true,
        };
        Found {
            entry: Entry::File(path),
            canonical,
            direct,
        }
    }

    fn error(entry: Entry) -> Self {
        Found {
            entry,
            canonical: None,
            direct: true,
        }
    }
}

/// Expands the command-line paths. Returns Err for a path that does not exist.
///
/// Each file is listed once, even when links (`--follow-links`) or overlapping paths reach it
/// under several names: the name reached without a link wins, then the smallest path.
pub fn collect(paths: &[PathBuf], opts: &WalkOptions) -> Result<Vec<Entry>, WalkError> {
    let mut out: Vec<Found> = Vec::new();
    // One directory walked without following links names every file once: only several
    // paths or followed links can reach a file twice.
    let identify = opts.follow_links || paths.len() > 1;
    let shared = Arc::new(opts.clone());
    for root in paths {
        match Root::open(root, opts, identify)? {
            Root::File(found) => out.extend(found),
            Root::Dir(root) => out.extend(root.into_found(Arc::clone(&shared))),
        }
    }
    Ok(dedup(out))
}

/// The files of a walk, produced as the walk goes (see [`stream`]).
pub struct Walk(Box<dyn Iterator<Item = Entry> + Send>);

impl Iterator for Walk {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        self.0.next()
    }
}

/// [`collect`]'s entries, in the same order, but without holding the list where that is not
/// needed: one directory (or file) walked without following links names every file once and
/// comes out of walkdir already in path order, so its files are produced as they are found
/// and a run over a large tree keeps no list of its paths. Several paths or `--follow-links`
/// are collected (and deduplicated) first. A path that does not exist is an `Err` up front.
pub fn stream(paths: &[PathBuf], opts: &WalkOptions) -> Result<Walk, WalkError> {
    let ([root], false) = (paths, opts.follow_links) else {
        return Ok(Walk(Box::new(collect(paths, opts)?.into_iter())));
    };
    Ok(Walk(match Root::open(root, opts, false)? {
        Root::File(found) => Box::new(found.map(|f| f.entry).into_iter()),
        Root::Dir(dir) => Box::new(dir.into_found(Arc::new(opts.clone())).map(|f| f.entry)),
    }))
}

/// One command-line path, checked.
enum Root {
    /// A file named explicitly (`None`: excluded by the user).
    File(Option<Found>),
    Dir(DirRoot),
}

/// A directory to walk.
struct DirRoot {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    identify: bool,
    walker: walkdir::IntoIter,
}

impl Root {
    fn open(root: &Path, opts: &WalkOptions, identify: bool) -> Result<Root, WalkError> {
        let meta = std::fs::symlink_metadata(root).map_err(|e| WalkError::Path {
            path: root.to_path_buf(),
            reason: io_reason(&e),
        })?;
        let is_dir = if meta.file_type().is_symlink() {
            std::fs::metadata(root).map(|m| m.is_dir()).unwrap_or(false)
        } else {
            meta.is_dir()
        };
        if !is_dir {
            // Named explicitly: always linted (unless excluded by the user).
            if opts.excluded(root) {
                return Ok(Root::File(None));
            }
            let mut found = Found::file(root.to_path_buf(), root, None, identify);
            found.direct = !meta.file_type().is_symlink();
            return Ok(Root::File(Some(found)));
        }
        let canonical_root = if identify {
            std::fs::canonicalize(root).ok()
        } else {
            None
        };
        let walker = WalkDir::new(root)
            .follow_links(opts.follow_links)
            .sort_by_file_name()
            .into_iter();
        Ok(Root::Dir(DirRoot {
            root: root.to_path_buf(),
            canonical_root,
            identify,
            walker,
        }))
    }
}

impl DirRoot {
    /// The directory's files, as the walk finds them.
    fn into_found(self, opts: Arc<WalkOptions>) -> impl Iterator<Item = Found> + Send {
        let DirRoot {
            root,
            canonical_root,
            identify,
            walker,
        } = self;
        let filter_opts = Arc::clone(&opts);
        walker
            .filter_entry(move |e| keep_entry(e, &filter_opts))
            .filter_map(move |item| visit(item, &root, canonical_root.as_deref(), identify, &opts))
    }
}

/// Whether the walk enters or lists this entry: VCS folders and excluded paths are pruned.
fn keep_entry(e: &walkdir::DirEntry, opts: &WalkOptions) -> bool {
    if e.depth() == 0 {
        return true;
    }
    let name = e.file_name().to_string_lossy();
    if e.file_type().is_dir() && SKIP_DIRS.contains(&name.as_ref()) {
        return false;
    }
    !opts.excluded(e.path())
}

/// What one item of a directory walk gives: a file to lint, a problem to report, or nothing.
fn visit(
    item: walkdir::Result<walkdir::DirEntry>,
    root: &Path,
    canonical_root: Option<&Path>,
    identify: bool,
    opts: &WalkOptions,
) -> Option<Found> {
    match item {
        Ok(e) => {
            let ft = e.file_type();
            if ft.is_dir() || !opts.included(e.path()) {
                return None;
            }
            if ft.is_symlink() {
                // Not following links: a link is neither read nor reported.
                // With --follow-links walkdir resolves it, so this is a dangling one.
                return opts.follow_links.then(|| {
                    Found::error(Entry::Error {
                        path: e.path().to_path_buf(),
                        message: "dangling symbolic link".to_string(),
                    })
                });
            }
            // FIFOs, sockets and devices are listed too, so a `x.yaml` that is not a
            // regular file is reported; the reader checks the type and never opens it.
            Some(Found::file(e.into_path(), root, canonical_root, identify))
        }
        Err(err) => {
            let path = err
                .path()
                .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
            let dangling = err
                .io_error()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink());
            if dangling && !opts.included(&path) {
                // A dangling `notes.txt` link is none of our business.
                return None;
            }
            let message = if err.loop_ancestor().is_some() {
                "symbolic link loop".to_string()
            } else if dangling {
                "dangling symbolic link (its target does not exist)".to_string()
            } else if let Some(io) = err.io_error() {
                io_reason(io)
            } else {
                err.to_string()
            };
            Some(Found::error(Entry::Error { path, message }))
        }
    }
}

/// Sorts by path and keeps one entry per path and one per file.
fn dedup(mut found: Vec<Found>) -> Vec<Entry> {
    found.sort_by(|a, b| a.entry.path().cmp(b.entry.path()));
    found.dedup_by(|a, b| a.entry.path() == b.entry.path());
    // For each canonical file, the entry to keep: direct before linked, then by path.
    let mut best: std::collections::HashMap<&Path, (bool, &Path)> =
        std::collections::HashMap::new();
    for f in &found {
        if let Some(c) = &f.canonical {
            let key = (!f.direct, f.entry.path());
            best.entry(c.as_path())
                .and_modify(|b| *b = (*b).min(key))
                .or_insert(key);
        }
    }
    let keep: Vec<bool> = found
        .iter()
        .map(|f| {
            f.canonical
                .as_deref()
                .is_none_or(|c| best.get(c).is_some_and(|b| b.1 == f.entry.path()))
        })
        .collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(f, k)| k.then_some(f.entry))
        .collect()
}

pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        // Names whose order as strings differs from their order as paths ('.' < '/' < 'b').
        for f in [
            "a.yaml",
            "a/x.yaml",
            "a/b/y.yml",
            "a-b/z.json",
            "a_b.yaml",
            "B.yaml",
            "notes.txt",
            ".git/config.yaml",
            "vendor/skip.yaml",
            "deep/1/2/3/4/5.yaml",
        ] {
            let path = dir.path().join(f);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "a: 1\n").expect("write");
        }
        dir
    }

    fn paths(entries: impl IntoIterator<Item = Entry>) -> Vec<PathBuf> {
        entries
            .into_iter()
            .map(|e| e.path().to_path_buf())
            .collect()
    }

    /// A streamed walk names the same files, in the same order, as the collected one.
    #[test]
    fn stream_gives_what_collect_gives() {
        let dir = tree();
        let root = dir.path().to_path_buf();
        for exclude in [vec![], vec!["vendor/**".to_string()]] {
            let opts = WalkOptions::new(&[], &exclude, false).expect("options");
            let cases = [
                vec![root.clone()],
                vec![root.join("a")],
                vec![root.join("a.yaml")],
                vec![root.join("a"), root.join("a-b"), root.join("a")],
            ];
            for case in cases {
                let listed = collect(&case, &opts).expect("collect");
                let streamed = paths(stream(&case, &opts).expect("stream"));
                assert_eq!(streamed, paths(listed), "{case:?} {exclude:?}");
            }
        }
        let opts = WalkOptions::new(&[], &[], false).expect("options");
        let all = paths(stream(std::slice::from_ref(&root), &opts).expect("stream"));
        let names: Vec<String> = all
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .expect("under root")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "B.yaml",
                "a/b/y.yml",
                "a/x.yaml",
                "a-b/z.json",
                "a.yaml",
                "a_b.yaml",
                "deep/1/2/3/4/5.yaml",
                "vendor/skip.yaml"
            ]
        );
    }

    #[test]
    fn stream_refuses_a_missing_path_up_front() {
        let dir = tree();
        let opts = WalkOptions::new(&[], &[], false).expect("options");
        let missing = dir.path().join("nope");
        let err = stream(&[missing], &opts).err().expect("an error");
        assert!(
            err.to_string().contains("no such file or directory"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn stream_follows_links_like_collect() {
        let dir = tree();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link")).expect("symlink");
        std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("dead.yaml"))
            .expect("symlink");
        for follow in [false, true] {
            let opts = WalkOptions::new(&[], &[], follow).expect("options");
            let root = [dir.path().to_path_buf()];
            let listed = collect(&root, &opts).expect("collect");
            let streamed: Vec<Entry> = stream(&root, &opts).expect("stream").collect();
            assert_eq!(streamed, listed, "follow links: {follow}");
        }
    }
}
