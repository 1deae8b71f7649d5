//! The walker: expands the paths given on the command line into a sorted list of files.
//! Directories are walked with walkdir (sorted by name, VCS folders pruned, symlinks not
//! followed unless asked, loops detected); `--include`/`--exclude` globs decide what is linted;
//! a file named explicitly is always linted.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use walkdir::WalkDir;

/// Folders never descended into.
const SKIP_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"];

pub const DEFAULT_INCLUDE: &[&str] = &["*.yaml", "*.yml", "*.json"];

#[derive(Debug)]
pub struct WalkOptions {
    pub include: GlobSet,
    pub exclude: GlobSet,
    pub follow_links: bool,
}

impl WalkOptions {
    /// Builds the glob sets; a glob that does not compile is a tool error.
    pub fn new(include: &[String], exclude: &[String], follow_links: bool) -> Result<Self, String> {
        let include: Vec<String> = if include.is_empty() {
            DEFAULT_INCLUDE.iter().map(|s| (*s).to_string()).collect()
        } else {
            include.to_vec()
        };
        Ok(WalkOptions {
            include: build_set(&include)?,
            exclude: build_set(exclude)?,
            follow_links,
        })
    }

    fn excluded(&self, path: &Path) -> bool {
        matches_set(&self.exclude, path)
    }

    fn included(&self, path: &Path) -> bool {
        matches_set(&self.include, path)
    }
}

fn build_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let glob = Glob::new(g).map_err(|e| format!("invalid glob `{g}`: {e}"))?;
        b.add(glob);
    }
    b.build().map_err(|e| e.to_string())
}

/// A glob matches the whole path, any suffix of it, or the file name, so `*.yaml`,
/// `vendor/**` and `charts/x/values.yaml` all do what a user expects.
fn matches_set(set: &GlobSet, path: &Path) -> bool {
    if set.is_empty() {
        return false;
    }
    if set.is_match(path) {
        return true;
    }
    let stripped = path.strip_prefix("./").unwrap_or(path);
    let comps: Vec<_> = stripped.components().collect();
    (0..comps.len()).any(|i| {
        let sub: PathBuf = comps[i..].iter().collect();
        set.is_match(&sub)
    })
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

/// Expands the command-line paths. Returns Err for a path that does not exist.
pub fn collect(paths: &[PathBuf], opts: &WalkOptions) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for root in paths {
        let meta = std::fs::symlink_metadata(root)
            .map_err(|e| format!("{}: {}", root.display(), io_reason(&e)))?;
        let is_dir = if meta.file_type().is_symlink() {
            std::fs::metadata(root).map(|m| m.is_dir()).unwrap_or(false)
        } else {
            meta.is_dir()
        };
        if !is_dir {
            // Named explicitly: always linted (unless excluded by the user).
            if !opts.excluded(root) {
                out.push(Entry::File(root.clone()));
            }
            continue;
        }
        let walker = WalkDir::new(root)
            .follow_links(opts.follow_links)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                if e.depth() == 0 {
                    return true;
                }
                let name = e.file_name().to_string_lossy();
                if e.file_type().is_dir() && SKIP_DIRS.contains(&name.as_ref()) {
                    return false;
                }
                !opts.excluded(e.path())
            });
        for item in walker {
            match item {
                Ok(e) => {
                    let ft = e.file_type();
                    if ft.is_dir() {
                        continue;
                    }
                    if !opts.included(e.path()) {
                        continue;
                    }
                    if ft.is_symlink() {
                        // Not following links: a link is neither read nor reported.
                        // With --follow-links walkdir resolves it, so this is a dangling one.
                        if opts.follow_links {
                            out.push(Entry::Error {
                                path: e.path().to_path_buf(),
                                message: "dangling symbolic link".to_string(),
                            });
                        }
                        continue;
                    }
                    // FIFOs, sockets and devices are never opened.
                    if !ft.is_file() {
                        continue;
                    }
                    out.push(Entry::File(e.into_path()));
                }
                Err(err) => {
                    let path = err.path().map_or_else(|| root.clone(), Path::to_path_buf);
                    let message = if err.loop_ancestor().is_some() {
                        "symbolic link loop".to_string()
                    } else if let Some(io) = err.io_error() {
                        io_reason(io)
                    } else {
                        err.to_string()
                    };
                    out.push(Entry::Error { path, message });
                }
            }
        }
    }
    out.sort_by(|a, b| a.path().cmp(b.path()));
    out.dedup_by(|a, b| a.path() == b.path());
    Ok(out)
}

pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}
