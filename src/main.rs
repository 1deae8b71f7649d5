use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

/// The global allocator. The lint path makes and frees many small strings and vectors for
/// each object (the parsed YAML tree, the model, the findings). glibc's allocator spent a
/// growing share of a run in `_int_malloc`, `_int_free`, `malloc_consolidate` and page faults;
/// mimalloc (its 2.x line, see Cargo.toml) takes 20-25% off the wall time of bench/'s corpora
/// and adds 5-10 MB of peak memory (bench/README, issue 38).
/// jemalloc was as fast with less memory, but its C build adds almost two minutes to every clean
/// build, and it does not build for Windows MSVC. Ruff and uv use these two allocators too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tool errors go to standard error with every control character but the tool's own line
/// breaks escaped (`util::text`); the input's texts in them (globs, names, paths from a
/// config) are escaped whole where they are put in, so they add no line.
fn main() -> ExitCode {
    taintlint::engine::install_panic_hook();
    let matches = match taintlint::cli::Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let mut cli = match taintlint::cli::Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    // Pair `--format`/`--output-file` by their order on the command line.
    if let taintlint::cli::Command::Check(args) = &mut cli.command
        && let Some(sub) = matches.subcommand_matches("check")
    {
        let fi: Vec<usize> = sub
            .indices_of("format")
            .map(Iterator::collect)
            .unwrap_or_default();
        let oi: Vec<usize> = sub
            .indices_of("output_file")
            .map(Iterator::collect)
            .unwrap_or_default();
        match taintlint::pair_outputs(&args.format, &args.output_file, Some((&fi, &oi))) {
            Ok(outputs) => args.outputs = outputs,
            Err(e) => {
                tool_error(&e);
                return ExitCode::from(2);
            }
        }
    }
    // The language server speaks the protocol on standard output from its own writer
    // thread: the lock below would stop it.
    if let taintlint::cli::Command::Server { debounce_ms } = cli.command {
        let options = taintlint::server::Options {
            debounce: std::time::Duration::from_millis(debounce_ms),
        };
        return match taintlint::server::run(&options) {
            Ok(status) => ExitCode::from(status as u8),
            Err(e) => {
                tool_error(&e);
                ExitCode::from(2)
            }
        };
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(QuietPipe {
        inner: stdout.lock(),
        closed: false,
    });
    let status = taintlint::run(cli, &mut out);
    let flushed = out.flush();
    match status {
        Ok(status) => {
            if let Err(e) = flushed {
                tool_error(&e);
                return ExitCode::from(2);
            }
            ExitCode::from(status as u8)
        }
        Err(e) => {
            tool_error(&e);
            ExitCode::from(2)
        }
    }
}

fn tool_error(e: &dyn std::fmt::Display) {
    eprintln!(
        "taintlint: error: {}",
        taintlint::util::text::escape_keep_lines(&e.to_string())
    );
}

/// Standard output that a reader may close early (`taintlint check | head`): from the first
/// broken pipe on, what is written is dropped, so the run ends as it would have (its exit code
/// says what it found) without an error about the pipe.
struct QuietPipe<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> Write for QuietPipe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            r => r,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}
