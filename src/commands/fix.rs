//! `taintlint check --fix` and `--diff`: lint, apply the fixes in memory, lint again until
//! nothing changes, then write the files (or print the diff) and report what is left.
//! Standard input is fixed too, as one stream: `--fix` prints it, fixed, on stdout (as
//! `ruff check --fix -` does), and the report that would have gone there goes to stderr.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use super::{ExitStatus, Gathered, ToolError, io_err, run_engine};
use crate::baseline::Known;
use crate::cli::CheckArgs;
use crate::config::Config;
use crate::diagnostic::{Applicability, FindingSource, Fix};
use crate::engine::{Input, Job, LintOptions, Outcome, store};
use crate::load::walk::Entry;
use crate::load::{ReadFailure, SourceFile};
use crate::report::Summary;

/// A file `--fix` changed: where it is (`None`: standard input), its text as read, its text
/// now.
struct FixedFile {
    path: Option<PathBuf>,
    original: String,
    current: String,
}

/// The fixes of one file and the text they were made from.
type FileFixes<'a> = (&'a Arc<SourceFile>, Vec<&'a Fix>);

/// What the fix loop produced: the last round's run, the files changed, the fixes applied.
struct FixRun {
    outcome: Outcome,
    fixed: BTreeMap<String, FixedFile>,
    applied: usize,
}

pub(super) fn run(
    args: &CheckArgs,
    opts: &LintOptions,
    cfg: &Config,
    known: Option<Known>,
    out: &mut dyn Write,
) -> Result<ExitStatus, ToolError> {
    // The engine keeps every result with its text: the fixes are made from it.
    let opts = LintOptions {
        budget: store::UNLIMITED,
        keep_sources: true,
        ..opts.clone()
    };
    if args.input.source_root.is_some() && has_stdin(&args.input) {
        return Err(ToolError(
            "--fix and --diff read standard input as one stream: --source-root does not apply"
                .to_string(),
        ));
    }
    let mut gathered = Gathered::reading(&args.input, cfg, false)?;
    gathered.collect();
    // Standard input as read, to print back (fixed) after the run.
    let stdin: Vec<(String, String)> = gathered
        .inputs
        .iter()
        .filter_map(|i| match i {
            Input::Text { name, text: Ok(t) } => Some((name.clone(), t.clone())),
            _ => None,
        })
        .collect();
    let run = fix_loop(args, gathered, &opts, cfg, known)?;
    let changed: Vec<&FixedFile> = run
        .fixed
        .values()
        .filter(|f| f.current != f.original)
        .collect();
    if args.diff {
        for (name, f) in &run.fixed {
            let diff = crate::fix::unified_diff(name, &f.original, &f.current);
            // The files' own lines: no terminal sequence, no line a CI runner takes for a
            // command (a context line is a blank and the file's line).
            out.write_all(crate::util::text::escape_file_lines(&diff).as_bytes())
                .map_err(io_err)?;
        }
        eprintln!(
            "taintlint: would fix {} finding(s) in {} file(s)",
            run.applied,
            changed.len()
        );
        return Ok(if changed.is_empty() {
            ExitStatus::Clean
        } else {
            ExitStatus::Findings
        });
    }
    // Every file is checked before any is written: a run writes all its fixes or none.
    let links = super::check::links(args);
    for f in &changed {
        let Some(path) = &f.path else { continue };
        crate::util::fs::check_fixable(path, links).map_err(|e| {
            ToolError(format!(
                "not fixing {}: {e}; no file was changed",
                path.display()
            ))
        })?;
    }
    for f in &changed {
        let Some(path) = &f.path else { continue };
        crate::util::fs::write_fixed(path, f.current.as_bytes(), links)
            .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
    }
    if run.applied > 0 {
        eprintln!(
            "taintlint: fixed {} finding(s) in {} file(s)",
            run.applied,
            changed.len()
        );
    }
    let findings = &run.outcome.findings;
    let summary = Summary {
        files: run.outcome.files,
        documents: run.outcome.documents,
        objects: run.outcome.objects,
        errors: findings.errors,
        warnings: findings.warnings,
        infos: findings.infos,
        baselined: findings.baselined,
    };
    if stdin.is_empty() {
        return super::check::emit(args, findings, &summary, out);
    }
    for (name, text) in &stdin {
        let text = run.fixed.get(name).map_or(text, |f| &f.current);
        out.write_all(text.as_bytes()).map_err(io_err)?;
    }
    out.flush().map_err(io_err)?;
    super::check::emit(args, findings, &summary, &mut std::io::stderr().lock())
}

/// Is `-` among the paths?
fn has_stdin(input: &crate::cli::InputArgs) -> bool {
    input.paths.iter().any(|p| p.as_os_str() == "-")
}

/// Lints, applies the fixes in memory, and lints again until nothing changes (at most
/// `fix::MAX_ROUNDS` rounds). Only files on disk are fixed.
fn fix_loop(
    args: &CheckArgs,
    gathered: Gathered,
    opts: &LintOptions,
    cfg: &Config,
    known: Option<Known>,
) -> Result<FixRun, ToolError> {
    let on_disk: BTreeMap<String, PathBuf> = gathered
        .inputs
        .iter()
        .filter_map(|i| match i {
            Input::Entry(Entry::File(p)) => Some((crate::load::display_path(p), p.clone())),
            _ => None,
        })
        .collect();
    let stdin_names: BTreeSet<String> = gathered
        .inputs
        .iter()
        .filter(|i| matches!(i, Input::Text { .. }))
        .map(Input::name)
        .collect();
    let mut fixed: BTreeMap<String, FixedFile> = BTreeMap::new();
    let mut applied = 0;
    let mut round = 0;
    loop {
        let mut this_round = gathered.replayed(replay(&gathered.inputs, &fixed));
        let job = Job {
            known: known.clone(),
            ..Job::default()
        };
        let outcome = run_engine(&mut this_round, &args.input, opts, cfg, job)?;
        if round >= crate::fix::MAX_ROUNDS {
            return Ok(FixRun {
                outcome,
                fixed,
                applied,
            });
        }
        round += 1;
        // Only what the fixes need, not copies of whole findings (#49: a file of 130,000
        // fixable findings held them twice, messages and labels included).
        let mut fixable: Vec<(Arc<str>, Arc<SourceFile>, Fix)> = Vec::new();
        outcome
            .findings
            .each(&mut |f| {
                if let (Some(fix), Some(src)) = (&f.fix, &f.source) {
                    fixable.push((Arc::clone(&f.file), Arc::clone(src), fix.clone()));
                }
                Ok(())
            })
            .map_err(io_err)?;
        // The fixes of each file on disk, with the text they were made from.
        let mut by_file: BTreeMap<&str, FileFixes<'_>> = BTreeMap::new();
        for (file, src, fix) in &fixable {
            let allowed = fix.applicability == Applicability::Safe || args.unsafe_fixes;
            // A name that is both a file and standard input's is left alone.
            let on_disk = on_disk.contains_key(&**file);
            let stdin = stdin_names.contains(&**file);
            if !allowed || src.is_lite() || src.name != *file || on_disk == stdin {
                continue;
            }
            let entry = by_file.entry(&**file).or_insert((src, Vec::new()));
            // Every fix of a file must be made from the same text.
            if Arc::ptr_eq(entry.0, src) {
                entry.1.push(fix);
            }
        }
        let mut changed = false;
        for (name, (src, fixes)) in by_file {
            let (text, n) = crate::fix::apply(&src.text, &fixes);
            if n == 0 || text == src.text {
                continue;
            }
            applied += n;
            changed = true;
            match fixed.get_mut(name) {
                Some(f) => f.current = text,
                None => {
                    let path = on_disk.get(name).cloned();
                    fixed.insert(
                        name.to_string(),
                        FixedFile {
                            path,
                            original: src.text.clone(),
                            current: text,
                        },
                    );
                }
            }
        }
        if !changed {
            return Ok(FixRun {
                outcome,
                fixed,
                applied,
            });
        }
    }
}

/// The inputs again, with the texts fixed so far in place of the files on disk.
fn replay(inputs: &[Input], fixed: &BTreeMap<String, FixedFile>) -> Vec<Input> {
    inputs
        .iter()
        .map(|i| match i {
            Input::Entry(Entry::File(p)) => match fixed.get(&crate::load::display_path(p)) {
                Some(f) => Input::Text {
                    name: crate::load::display_path(p),
                    text: Ok(f.current.clone()),
                },
                None => Input::Entry(Entry::File(p.clone())),
            },
            Input::Entry(Entry::Error { path, message }) => Input::Entry(Entry::Error {
                path: path.clone(),
                message: message.clone(),
            }),
            Input::Text { name, text } => Input::Text {
                name: name.clone(),
                text: match text {
                    Ok(_) if fixed.contains_key(name) => Ok(fixed
                        .get(name)
                        .map(|f| f.current.clone())
                        .unwrap_or_default()),
                    Ok(t) => Ok(t.clone()),
                    Err(e) => Err(clone_failure(e)),
                },
            },
        })
        .collect()
}

fn clone_failure(f: &ReadFailure) -> ReadFailure {
    use ReadFailure as R;
    match f {
        R::Io(e) => R::Io(e.clone()),
        R::NotRegular(w) => R::NotRegular(w),
        R::TooLarge { size, limit } => R::TooLarge {
            size: *size,
            limit: *limit,
        },
        R::InvalidUtf8 { offset, lossy } => R::InvalidUtf8 {
            offset: *offset,
            lossy: lossy.clone(),
        },
        R::Utf(u, bom) => R::Utf(*u, *bom),
        R::Utf16 { utf, text } => R::Utf16 {
            utf: *utf,
            text: text.clone(),
        },
        R::Binary(w) => R::Binary(w),
        R::Sealed(w) => R::Sealed(w),
        R::Nul { offset, text } => R::Nul {
            offset: *offset,
            text: text.clone(),
        },
    }
}
