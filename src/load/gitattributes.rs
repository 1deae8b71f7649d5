//! What a repository's `.gitattributes` files say a file is: `binary` (or `-text`), or passed
//! through a `filter=` driver (git-crypt, Git LFS, a site's own). Asked only of a file that
//! does not read as text, to tell a file the repository declares not to be text (skipped with
//! one notice) from a manifest that is broken (an error).
//!
//! Read as git reads them (gitattributes(5)): every `.gitattributes` from the linted root down
//! to the file's folder, a deeper file's lines after a shallower one's, and of the lines whose
//! pattern matches, the last one that sets or unsets an attribute decides it. A pattern with no
//! `/` but a trailing one matches the file's name at any depth below its `.gitattributes`; one
//! with a `/` matches the path from that folder (`**` as in gitignore). Macro definitions
//! (`[attr]…`) are not expanded but for git's own `binary`. Only folders at and below the
//! linted root are read: nothing outside what the command line names.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// The most of one `.gitattributes` read: git's own limit on an attributes file is 100 MB,
/// but one that long is an attack, not a repository's configuration.
const MAX_ATTRIBUTES_FILE: u64 = 1 << 20;
/// The most lines of one `.gitattributes` used.
const MAX_LINES: usize = 2_000;

/// How `.gitattributes` marks a file that is not text: `binary`, `-text` or `filter=NAME`.
pub fn marked(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut state: Option<String> = None;
    // Folders from the root down to the file's.
    let mut dir = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    let (_, folders) = parts.split_last()?;
    for depth in 0..=folders.len() {
        if depth > 0 {
            dir.push(folders.get(depth - 1)?);
        }
        let Ok(text) = crate::load::read_file(&dir.join(".gitattributes"), MAX_ATTRIBUTES_FILE)
        else {
            continue;
        };
        // The path below this folder, `/`-separated as git writes it.
        let below: Vec<String> = parts
            .get(depth..)?
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let below = below.join("/");
        for line in text.lines().take(MAX_LINES) {
            if let Some(decided) = decide(line, &below) {
                state = decided;
            }
        }
    }
    state
}

/// What one line says of `path` (relative to the line's folder): `None` when it does not
/// match or says nothing of these attributes; `Some(None)` when it unsets them.
fn decide(line: &str, path: &str) -> Option<Option<String>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("[attr]") {
        return None;
    }
    let mut words = line.split_ascii_whitespace();
    let pattern = words.next()?;
    let mut said: Option<Option<String>> = None;
    for attr in words {
        match attr {
            "binary" | "-text" => said = Some(Some(attr.to_string())),
            "text" | "!text" | "!binary" | "-filter" | "!filter" => said = Some(None),
            a if a.starts_with("filter=") => {
                said = Some(Some(crate::util::text::escape(a).into_owned()));
            }
            _ => {}
        }
    }
    let said = said?;
    matches(pattern, path).then_some(said)
}

/// Does a `.gitattributes` pattern match `path` (relative to its folder)?
fn matches(pattern: &str, path: &str) -> bool {
    if pattern.starts_with('!') {
        // Negative patterns are forbidden in attributes files (git ignores them).
        return false;
    }
    let anchored = pattern.trim_start_matches('/');
    let name = path.rsplit('/').next().unwrap_or(path);
    let (glob, subject) = if pattern.contains('/') && !pattern.ends_with('/') {
        (anchored, path)
    } else if pattern.ends_with('/') {
        // A folder pattern applies to no file in attributes files.
        return false;
    } else {
        (anchored, name)
    };
    compile(glob).is_some_and(|m| m.is_match(subject))
}

fn compile(glob: &str) -> Option<GlobMatcher> {
    if glob.len() > crate::util::glob::MAX_GLOB_BYTES {
        return None;
    }
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_decide_as_git_does() {
        assert_eq!(
            decide(
                "secrets/** filter=git-crypt diff=git-crypt",
                "secrets/a/db.yaml"
            ),
            Some(Some("filter=git-crypt".to_string()))
        );
        assert_eq!(
            decide("*.yaml filter=lfs", "x/y.yaml"),
            Some(Some("filter=lfs".into()))
        );
        assert_eq!(decide("*.bin binary", "x/y.yaml"), None);
        assert_eq!(decide("*.yaml -text", "y.yaml"), Some(Some("-text".into())));
        assert_eq!(
            decide("/top.yaml binary", "top.yaml"),
            Some(Some("binary".into()))
        );
        assert_eq!(decide("/top.yaml binary", "a/top.yaml"), None);
        assert_eq!(decide("*.yaml -filter", "y.yaml"), Some(None));
        assert_eq!(decide("# *.yaml binary", "y.yaml"), None);
        assert_eq!(decide("[attr]crypt filter=git-crypt", "y.yaml"), None);
        assert_eq!(decide("*.yaml eol=lf", "y.yaml"), None);
    }

    #[test]
    fn deeper_files_and_later_lines_win() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("secrets/plain")).unwrap();
        std::fs::write(root.join(".gitattributes"), "secrets/** filter=git-crypt\n").unwrap();
        std::fs::write(root.join("secrets/plain/.gitattributes"), "* -filter\n").unwrap();
        assert_eq!(
            marked(&root.join("secrets/db.yaml"), root).as_deref(),
            Some("filter=git-crypt")
        );
        assert_eq!(marked(&root.join("secrets/plain/x.yaml"), root), None);
        assert_eq!(marked(&root.join("app.yaml"), root), None);
        // A file outside the root is never looked up.
        assert_eq!(marked(Path::new("/etc/passwd"), root), None);
    }
}
