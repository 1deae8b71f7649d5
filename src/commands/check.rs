//! `taintlint check`: lint, then write the findings in every requested format.

use std::io::{self, IsTerminal, Write};

use super::{ExitStatus, Gathered, ToolError, io_err, lint_options, load_config, run_engine};
use crate::cli::{CheckArgs, ColorChoice, FailOn};
use crate::diagnostic::{FindingSource, Severity};
use crate::engine::{Findings, Job};
use crate::report::{self, HumanOptions, Summary};
use crate::util::fs::{Links, Target, write_atomic, write_atomic_with};

pub fn check(args: &CheckArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let cfg = load_config(&args.input)?;
    let mut opts = lint_options(&args.input, &args.select, &args.ignore, &cfg)?;
    if args.unsafe_fixes && !args.fix && !args.diff {
        return Err(ToolError(
            "--unsafe-fixes only applies with --fix or --diff".to_string(),
        ));
    }
    let known = match &args.baseline {
        Some(path) => Some(crate::baseline::load(path).map_err(ToolError)?),
        None => None,
    };
    if args.fix || args.diff {
        // Fixes edit the text the findings were made from: keep it.
        opts.keep_sources = true;
        return super::fix::run(args, &opts, &cfg, known, out);
    }
    let mut gathered = Gathered::new(&args.input, &cfg)?;
    let job = Job {
        known,
        ..Job::default()
    };
    let run = run_engine(&mut gathered, &args.input, &opts, &cfg, job)?;
    let findings = &run.findings;
    if let Some(path) = &args.write_baseline {
        let text = crate::baseline::render(findings).map_err(io_err)?;
        write_atomic(path, text.as_bytes(), links(args))
            .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
        eprintln!(
            "taintlint: wrote {} finding(s) to the baseline {}",
            findings.errors + findings.warnings + findings.infos,
            crate::util::text::escape(&path.display().to_string())
        );
        return Ok(ExitStatus::Clean);
    }
    let summary = Summary {
        files: run.files,
        documents: run.documents,
        objects: run.objects,
        errors: findings.errors,
        warnings: findings.warnings,
        infos: findings.infos,
        baselined: findings.baselined,
    };
    emit(args, findings, &summary, out)
}

/// Whether files are written through symbolic links: only when the command line says
/// `--follow-links` (a link committed at an output path must not send the write elsewhere).
pub(super) fn links(args: &CheckArgs) -> Links {
    if args.input.follow_links {
        Links::Follow
    } else {
        Links::Refuse
    }
}

/// The severity at and above which findings fail the run (`--fail-on`).
fn fail_threshold(args: &CheckArgs) -> Option<Severity> {
    match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    }
}

/// Writes the findings in every requested format; the exit status says whether they fail.
pub(super) fn emit(
    args: &CheckArgs,
    findings: &Findings,
    summary: &Summary,
    out: &mut dyn Write,
) -> Result<ExitStatus, ToolError> {
    let failing = fail_threshold(args).is_some_and(|t| findings.any_at_least(t));
    if summary.files == 0 {
        eprintln!(
            "taintlint: warning: {} (no input matched: check the paths, --include and --exclude)",
            report::NO_FILES
        );
    }
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
        }
    };
    let human = HumanOptions {
        color,
        width: 100,
        links: false,
        quiet: args.quiet,
    };
    let outputs = if args.outputs.is_empty() {
        pair_outputs(&args.format, &args.output_file, None)?
    } else {
        args.outputs.clone()
    };
    let findings: &dyn FindingSource = findings;
    let t = std::time::Instant::now();
    for (format, dest) in &outputs {
        match dest {
            None => {
                if let Err(e) = report::write(*format, findings, summary, &human, out)
                    && e.kind() != io::ErrorKind::BrokenPipe
                {
                    return Err(io_err(e));
                }
            }
            Some(path) => {
                let plain = HumanOptions {
                    color: false,
                    ..human.clone()
                };
                write_atomic_with(path, Target::Output, links(args), &mut |w| {
                    report::write(*format, findings, summary, &plain, w)
                })
                .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
            }
        }
    }
    crate::engine::timing("output", t.elapsed());
    Ok(if failing {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    })
}

/// Pairs each `--output-file` with the `--format` given before it. `order` holds the
/// command-line positions of the two lists when known (from clap); without it, formats and
/// files pair by position. Unpaired formats go to stdout; only one may.
pub fn pair_outputs(
    formats: &[report::Format],
    files: &[std::path::PathBuf],
    order: Option<(&[usize], &[usize])>,
) -> Result<Vec<(report::Format, Option<std::path::PathBuf>)>, ToolError> {
    let formats: Vec<report::Format> = if formats.is_empty() {
        vec![report::Format::Human]
    } else {
        formats.to_vec()
    };
    let mut dest: Vec<Option<std::path::PathBuf>> = vec![None; formats.len()];
    for (k, file) in files.iter().enumerate() {
        let slot = match order {
            Some((fi, oi)) if fi.len() == formats.len() => {
                let at = oi.get(k).copied().unwrap_or(usize::MAX);
                (0..formats.len())
                    .rev()
                    .find(|&i| fi[i] < at && dest[i].is_none())
            }
            _ => (k < formats.len() && dest[k].is_none()).then_some(k),
        };
        // `-o x.sarif --format sarif`: a lone format takes the lone file.
        let slot = slot.or_else(|| (formats.len() == 1 && dest[0].is_none()).then_some(0));
        match slot {
            Some(i) => dest[i] = Some(file.clone()),
            None => {
                return Err(ToolError(format!(
                    "--output-file {} has no --format before it",
                    file.display()
                )));
            }
        }
    }
    if dest.iter().filter(|d| d.is_none()).count() > 1 {
        return Err(ToolError(
            "several formats would go to stdout: give each but one an --output-file".to_string(),
        ));
    }
    Ok(formats.into_iter().zip(dest).collect())
}
