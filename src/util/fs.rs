//! The one way taintlint writes a file: atomically, so that a reader (or a crash) never sees
//! half of it.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Tells the temporary files of one process apart (two writes to one folder at once).
static TMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Replaces (or creates) the file at `path` with `bytes`: see [`write_atomic_with`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, &mut |w| w.write_all(bytes))
}

/// Writes what `write` writes to a temporary file in the same folder, then renames it over
/// `path`. A file that is replaced keeps its permissions. On failure the temporary file is
/// removed and `path` is untouched. When `path` is a symbolic link (or a chain of them), the
/// file it points to is replaced and the link is kept; a dangling link's target is created.
pub fn write_atomic_with(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let path = &resolve_links(path)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{name}.taintlint-{}-{}.tmp",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let written = std::fs::File::create(&tmp).and_then(|file| {
        let mut w = io::BufWriter::new(file);
        write(&mut w)?;
        w.flush()?;
        drop(w);
        if let Some(p) = permissions {
            std::fs::set_permissions(&tmp, p)?;
        }
        Ok(())
    });
    written
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
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

    #[test]
    fn replaces_atomically_and_keeps_permissions() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.yaml");
        write_atomic(&path, b"one").expect("create");
        assert_eq!(std::fs::read(&path).expect("read"), b"one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
            write_atomic(&path, b"two").expect("replace");
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        // Only the file itself is left: no temporary file behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_failed_write_leaves_the_file_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.yaml");
        write_atomic(&path, b"kept").expect("create");
        let failed = write_atomic_with(&path, &mut |_| Err(io::Error::other("boom")));
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).expect("read"), b"kept");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_keeps_being_a_link_and_its_target_is_written() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        std::fs::write(real.join("a.yaml"), b"old").expect("write");
        // link.yaml -> chain.yaml -> real/a.yaml, both relative.
        symlink("real/a.yaml", dir.path().join("chain.yaml")).expect("ln");
        symlink("chain.yaml", dir.path().join("link.yaml")).expect("ln");
        write_atomic(&dir.path().join("link.yaml"), b"new").expect("write through");
        assert_eq!(std::fs::read(real.join("a.yaml")).expect("read"), b"new");
        for link in ["link.yaml", "chain.yaml"] {
            let meta = std::fs::symlink_metadata(dir.path().join(link)).expect("meta");
            assert!(meta.file_type().is_symlink(), "{link} is still a link");
        }
        // A dangling link: its target is created.
        symlink("real/b.yaml", dir.path().join("dangling.yaml")).expect("ln");
        write_atomic(&dir.path().join("dangling.yaml"), b"b").expect("create target");
        assert_eq!(std::fs::read(real.join("b.yaml")).expect("read"), b"b");
        // A loop is an error, and nothing is written.
        symlink("loop-b", dir.path().join("loop-a")).expect("ln");
        symlink("loop-a", dir.path().join("loop-b")).expect("ln");
        let err = write_atomic(&dir.path().join("loop-a"), b"x").expect_err("a loop");
        assert!(err.to_string().contains("symbolic links"), "{err}");
    }
}
