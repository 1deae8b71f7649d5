use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match taintlint::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
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
