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
    if path.exists() && !force {
        return Err(ToolError(format!(
            "{} already exists (use --force to overwrite)",
            path.display()
        )));
    }
    crate::util::fs::write_atomic(path, crate::config::DEFAULT_CONFIG.as_bytes())
        .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
    eprintln!("taintlint: wrote {}", path.display());
    Ok(ExitStatus::Clean)
}
