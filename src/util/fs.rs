//! The one way taintlint writes a file: atomically, so that a reader (or a crash) never sees
//! half of it, and safely in a folder an attacker filled (a pull request's checkout).
//!
//! - The temporary file is created exclusively (`O_CREAT | O_EXCL`) under an unpredictable
//!   name in the target's folder (`tempfile`), so a link committed at a guessed name is never
//!   opened, and its permissions and owner are set on the open file, never through a path.
//! - The rename replaces the directory entry: a link at the target is replaced, not followed.
//! - A target that is a symbolic link, or below a linked folder of the working directory, is
//!   refused unless the command line says `--follow-links` ([`Links::Follow`]): then the file
//!   the link finally points to is replaced and the link kept.
//! - [`Target::Fix`]: the file must exist and be a regular file with one link; the new file
//!   keeps its owner and its mode, less the set-user-ID and set-group-ID bits.

use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// Whether a write may go through a symbolic link (`--follow-links`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    Refuse,
    Follow,
}

/// What is written: a report or config the tool creates, or a linted file it fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `-o FILE`, `--write-baseline`, `config init`: created or replaced.
    Output,
    /// `--fix`: an existing regular file replaced by its fixed text.
    Fix,
}

/// Replaces (or creates) the output file at `path` with `bytes`: see [`write_atomic_with`].
pub fn write_atomic(path: &Path, bytes: &[u8], links: Links) -> io::Result<()> {
    write_atomic_with(path, Target::Output, links, &mut |w| w.write_all(bytes))
}

/// Replaces a linted file with its fixed text (see [`Target::Fix`]).
pub fn write_fixed(path: &Path, bytes: &[u8], links: Links) -> io::Result<()> {
    write_atomic_with(path, Target::Fix, links, &mut |w| w.write_all(bytes))
}

/// Writes what `write` writes to a fresh temporary file in the target's folder, then renames
/// it over the target. On failure the temporary file is removed and the target is untouched.
pub fn write_atomic_with(
    path: &Path,
    target: Target,
    links: Links,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let (path, existing) = prepare(path, target, links)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".taintlint.tmp");
    // A new file gets what an ordinary create gives it (0666 less the umask, which `open`
    // applies), not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // `-o reports/taintlint.sarif` in a fresh checkout: the missing folders are made (none of
    // them can be a link: `prepare` refused links among the existing ones).
    if target == Target::Output && !dir.exists() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = builder.tempfile_in(dir)?;
    {
        let mut w = io::BufWriter::new(tmp.as_file_mut());
        write(&mut w)?;
        w.flush()?;
    }
    if let Some(meta) = &existing {
        keep_owner_and_mode(tmp.as_file(), meta)?;
    }
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(())
}

/// Whether `--fix` may replace the file at `path` (see [`Target::Fix`]), checked for every
/// file before any is written: `Err` says why not.
pub fn check_fixable(path: &Path, links: Links) -> io::Result<()> {
    prepare(path, Target::Fix, links).map(|_| ())
}

/// The file a write replaces (the link's target when links are followed) and its metadata
/// (`None`: it does not exist yet), or why it must not be written.
fn prepare(
    path: &Path,
    target: Target,
    links: Links,
) -> io::Result<(PathBuf, Option<std::fs::Metadata>)> {
    let path = match links {
        Links::Refuse => {
            if let Some(link) = linked_component(path) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    if link == path {
                        "it is a symbolic link; refusing to write through it (--follow-links allows it)".to_string()
                    } else {
                        format!(
                            "{} is a symbolic link; refusing to write through it (--follow-links allows it)",
                            link.display()
                        )
                    },
                ));
            }
            path.to_path_buf()
        }
        Links::Follow => resolve_links(path)?,
    };
    let existing = match std::fs::symlink_metadata(&path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound && target == Target::Output => None,
        Err(e) => return Err(e),
    };
    if let Some(meta) = &existing {
        check_replaceable(meta, target)?;
    }
    Ok((path, existing))
}

/// A file that may be replaced: a regular file (not a FIFO, device or folder), and for a fix
/// one that no other name shares (replacing it would split a hard link in two).
fn check_replaceable(meta: &std::fs::Metadata, target: Target) -> io::Result<()> {
    if !meta.file_type().is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file; refusing to replace it",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if target == Target::Fix && meta.nlink() > 1 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "it has {} hard links; refusing to fix it (the fixed file would no longer be the one the other names share)",
                    meta.nlink()
                ),
            ));
        }
    }
    let _ = target;
    Ok(())
}

/// The replaced file's owner and mode on the new one, without set-user-ID/set-group-ID. An
/// owner that cannot be kept (another user's file) is an error: the file stays as it was.
#[cfg(unix)]
fn keep_owner_and_mode(file: &std::fs::File, meta: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mine = file.metadata()?;
    if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
        std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot keep the file's owner ({e}); refusing to change it"),
            )
        })?;
    }
    file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o1777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &std::fs::File, meta: &std::fs::Metadata) -> io::Result<()> {
    file.set_permissions(meta.permissions())
}

/// The first part of `path` that is a symbolic link, among the file itself and the folders
/// of it that are inside the working directory (a relative path's folders, or an absolute
/// path's below the working directory): a folder outside it is the user's own machine, not
/// the checkout's. `None` when there is none.
fn linked_component(path: &Path) -> Option<PathBuf> {
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if is_link(path) {
        return Some(path.to_path_buf());
    }
    let (mut at, rest) = if path.is_absolute() {
        let cwd = std::env::current_dir().ok()?;
        let rest = path.strip_prefix(&cwd).ok()?;
        (cwd, rest.to_path_buf())
    } else {
        (PathBuf::new(), path.to_path_buf())
    };
    let parts: Vec<Component<'_>> = rest.components().collect();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        at.push(part.as_os_str());
        if matches!(part, Component::Normal(_)) && is_link(&at) {
            return Some(at);
        }
    }
    None
}

/// The path a symbolic link finally points to (`path` itself when it is not a link). A
/// relative target is relative to the link's folder. More than 40 links (a loop) is an error.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_atomically_and_keeps_permissions() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.yaml");
        write_atomic(&path, b"one", Links::Refuse).expect("create");
        assert_eq!(std::fs::read(&path).expect("read"), b"one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // A new file is created as `File::create` would (0666 less the umask), not 0600.
            let plain = dir.path().join("plain");
            std::fs::File::create(&plain).expect("create");
            let want = std::fs::metadata(&plain)
                .expect("meta")
                .permissions()
                .mode();
            std::fs::remove_file(&plain).expect("rm");
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, want & 0o777);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
            write_fixed(&path, b"two", Links::Refuse).expect("replace");
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
            // Set-user-ID and set-group-ID are not carried over.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o6755))
                .expect("chmod");
            write_fixed(&path, b"three", Links::Refuse).expect("replace");
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o7777, 0o755);
        }
        // Only the file itself is left: no temporary file behind.
        assert_eq!(names(dir.path()), ["a.yaml"]);
    }

    #[test]
    fn a_failed_write_leaves_the_file_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.yaml");
        write_atomic(&path, b"kept", Links::Refuse).expect("create");
        let failed = write_atomic_with(&path, Target::Output, Links::Refuse, &mut |_| {
            Err(io::Error::other("boom"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).expect("read"), b"kept");
        assert_eq!(names(dir.path()), ["a.yaml"]);
    }

    #[test]
    fn missing_output_folders_are_made_but_not_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("reports/ci/out.sarif");
        write_atomic(&out, b"{}", Links::Refuse).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"{}");
        // (Nothing is made below a linked folder of the working directory: tests/security.rs.)
    }

    #[test]
    fn a_fix_needs_an_existing_regular_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("gone.yaml");
        assert!(write_fixed(&missing, b"x", Links::Refuse).is_err());
        assert!(!missing.exists());
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).expect("mkdir");
        let err = write_atomic(&sub, b"x", Links::Refuse).expect_err("a folder");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert!(sub.is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_refused_unless_followed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let real = outside.path().join("a.yaml");
        std::fs::write(&real, b"old").expect("write");
        symlink(&real, dir.path().join("link.yaml")).expect("ln");
        symlink(
            outside.path().join("new.yaml"),
            dir.path().join("dangling.yaml"),
        )
        .expect("ln");
        // (A linked folder is refused only inside the working directory, which a unit test
        // cannot change: tests/security.rs runs the binary in a planted repository for it.)
        for (path, target) in [
            ("link.yaml", Target::Output),
            ("link.yaml", Target::Fix),
            ("dangling.yaml", Target::Output),
        ] {
            let err = write_atomic_with(&dir.path().join(path), target, Links::Refuse, &mut |w| {
                w.write_all(b"new")
            })
            .expect_err(path);
            assert!(err.to_string().contains("symbolic link"), "{path}: {err}");
        }
        assert_eq!(std::fs::read(&real).expect("read"), b"old");
        assert_eq!(names(outside.path()), ["a.yaml"]);
        // Followed: the target is replaced, the links stay links.
        write_atomic(&dir.path().join("link.yaml"), b"new", Links::Follow).expect("follow");
        assert_eq!(std::fs::read(&real).expect("read"), b"new");
        let meta = std::fs::symlink_metadata(dir.path().join("link.yaml")).expect("meta");
        assert!(meta.file_type().is_symlink());
        write_atomic(&dir.path().join("dangling.yaml"), b"b", Links::Follow).expect("follow");
        assert_eq!(
            std::fs::read(outside.path().join("new.yaml")).expect("read"),
            b"b"
        );
        // A loop is an error, and nothing is written.
        symlink("loop-b", dir.path().join("loop-a")).expect("ln");
        symlink("loop-a", dir.path().join("loop-b")).expect("ln");
        let err = write_atomic(&dir.path().join("loop-a"), b"x", Links::Follow).expect_err("loop");
        assert!(err.to_string().contains("symbolic links"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn links_at_guessable_temporary_names_are_never_opened() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let victim = outside.path().join("victim.sh");
        std::fs::write(&victim, b"#!/bin/sh\necho safe\n").expect("write");
        // The old writer's names: `.NAME.taintlint-PID-N.tmp`, for this process and others.
        let pid = std::process::id();
        for p in pid.saturating_sub(50)..pid + 50 {
            for n in 0..4 {
                let name = format!(".report.sarif.taintlint-{p}-{n}.tmp");
                symlink(&victim, dir.path().join(name)).expect("ln");
            }
        }
        write_atomic(&dir.path().join("report.sarif"), b"{}", Links::Refuse).expect("write");
        assert_eq!(
            std::fs::read(&victim).expect("read"),
            b"#!/bin/sh\necho safe\n"
        );
        assert_eq!(
            std::fs::read(dir.path().join("report.sarif")).expect("read"),
            b"{}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn hard_linked_files_are_not_fixed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a.yaml");
        std::fs::write(&a, b"old").expect("write");
        std::fs::hard_link(&a, dir.path().join("b.yaml")).expect("ln");
        let err = write_fixed(&a, b"new", Links::Refuse).expect_err("hard link");
        assert!(err.to_string().contains("hard links"), "{err}");
        assert_eq!(
            std::fs::read(dir.path().join("b.yaml")).expect("read"),
            b"old"
        );
        assert_eq!(std::fs::read(&a).expect("read"), b"old");
    }
}
