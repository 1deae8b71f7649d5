use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

fn main() -> ExitCode {
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
                eprintln!("taintlint: error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let status = taintlint::run(cli, &mut out);
    let flushed = out.flush();
    match status {
        Ok(status) => {
            if let Err(e) = flushed
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("taintlint: error: {e}");
                return ExitCode::from(2);
            }
            ExitCode::from(status as u8)
        }
        Err(e) => {
            eprintln!("taintlint: error: {e}");
            ExitCode::from(2)
        }
    }
}
