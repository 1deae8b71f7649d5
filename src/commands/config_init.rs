//! `taintlint config init`: write the default configuration.

use std::io::Write;
use std::path::Path;

use super::{ExitStatus, ToolError, io_err};

pub fn init(path: &Path, force: bool, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    if path.as_os_str() == "-" {
        out.write_all(crate::config::DEFAULT_CONFIG.as_bytes())
            .map_err(io_err)?;
        return Ok(ExitStatus::Clean);
    }
    if std::fs::symlink_metadata(path).is_ok() && !force {
        return Err(ToolError(format!(
            "{} already exists (use --force to overwrite)",
            path.display()
        )));
    }
    // A link (dangling or not) at the path is refused, `--force` or not: `config init` writes
    // the file it names, nowhere else.
    crate::util::fs::write_atomic(
        path,
        crate::config::DEFAULT_CONFIG.as_bytes(),
        crate::util::fs::Links::Refuse,
    )
    .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
    eprintln!(
        "taintlint: wrote {}",
        crate::util::text::escape(&path.display().to_string())
    );
    Ok(ExitStatus::Clean)
}
