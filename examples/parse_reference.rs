//! The reference for the performance target (issue 7): a bare `saphyr-parser` event pass over
//! the same files taintlint would lint, on the same number of threads, doing nothing with the
//! events. `cargo run --release --example parse_reference -- [--threads N] PATHS...`
//! prints `files documents bytes seconds`.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use saphyr_parser::{Event, Parser};
use taintlint::load::walk::{Entry, WalkOptions, collect};

fn main() {
    let mut threads = 0usize;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--threads" {
            threads = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    let start = Instant::now();
    let opts = match WalkOptions::new(&[], &[], false) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let files: Vec<PathBuf> = match collect(&paths, &opts) {
        Ok(entries) => entries
            .into_iter()
            .filter_map(|e| match e {
                Entry::File(p) => Some(p),
                Entry::Error { .. } => None,
            })
            .collect(),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("thread pool: {e}"));
    let (docs, bytes) = pool.install(|| {
        files
            .par_iter()
            .map(|p| {
                let Ok(text) = std::fs::read_to_string(p) else {
                    return (0usize, 0usize);
                };
                let mut parser = Parser::new_from_str(&text);
                let mut docs = 0;
                while let Some(Ok((ev, _))) = parser.next_event() {
                    match ev {
                        Event::DocumentStart(_) => docs += 1,
                        Event::StreamEnd => break,
                        _ => {}
                    }
                }
                (docs, text.len())
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    println!(
        "{} {} {} {:.3}",
        files.len(),
        docs,
        bytes,
        start.elapsed().as_secs_f64()
    );
}
