//! Arbitrary bytes → encoding check → YAML loader → model → every rule (all of them, even
//! the opt-in ones) → cross-reference → every reporter. Asserts: no panic, no
//! `internal-error`, every span of every finding inside its source on char boundaries, and
//! human and concise output with no control character of the input and no line a CI runner
//! takes for a command.

#![no_main]

use std::sync::LazyLock;

use clap::ValueEnum;
use libfuzzer_sys::fuzz_target;
use taintlint::diagnostic::Finding;
use taintlint::engine::{self, LintOptions};
use taintlint::load::{self, ReadFailure, SourceFile, Span};
use taintlint::report::{self, Format, HumanOptions, Summary};
use taintlint::rules::RuleSet;

/// Every rule; once with the default options and once parsing whole files (`--full-parse`).
static OPTS: LazyLock<[LintOptions; 2]> = LazyLock::new(|| {
    let opts = |fast| LintOptions {
        rules: RuleSet::resolve(&["all".into(), "stateful-eviction-timeout".into()], &[])
            .expect("every rule resolves"),
        fast,
        ..LintOptions::default()
    };
    [opts(true), opts(false)]
});

fn check_span(what: &str, text: &str, span: Span, f: &Finding) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what} span {span:?} outside the source ({} bytes): {f:?}",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{what} span {span:?} not on char boundaries: {f:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    // Text the loader would lint, or show in a snippet, for these bytes.
    let text = match load::decode(data.to_vec()) {
        Ok(text) => text,
        Err(ReadFailure::InvalidUtf8 { lossy, .. }) => lossy,
        Err(ReadFailure::Nul { text, .. }) => text.replace('\0', "\u{2400}"),
        // Not linted by the loader; linted here all the same, for the coverage.
        Err(ReadFailure::Binary(_)) => String::from_utf8_lossy(data).replace('\0', "\u{2400}"),
        Err(_) => return,
    };
    let source = SourceFile::new("fuzz.yaml", text);
    for opts in &*OPTS {
        check(&source, opts);
    }
});

fn check(source: &std::sync::Arc<SourceFile>, opts: &LintOptions) {
    let outcome = engine::lint_text(&source.name, &source.text, opts).expect("in memory");
    for f in &outcome.findings {
        assert_ne!(f.rule, "internal-error", "{f:?}");
        // Cross-reference findings about other objects of the file keep only the positions
        // of their spans (a lite source, `SourceFile::lite`): there is no text to be inside.
        if let Some(src) = f.source.as_ref().filter(|s| !s.is_lite()) {
            for label in f.primary.iter().chain(&f.secondary) {
                check_span("label", &src.text, label.span, f);
            }
        }
        // A related place in another object of the file keeps only its positions (a lite
        // source, `SourceFile::lite`): there is no text to be inside of.
        for r in f.related.iter().filter(|r| !r.source.is_lite()) {
            check_span("related", &r.source.text, r.span, f);
        }
    }
    let mut summary = Summary {
        files: 1,
        documents: outcome.documents,
        objects: outcome.objects,
        ..Summary::default()
    };
    summary.count(&outcome.findings);
    // Colour or not by the input's length: both paths get covered at half the cost.
    let human = HumanOptions {
        color: source.text.len() % 2 == 1,
        ..HumanOptions::default()
    };
    for format in Format::value_variants() {
        let mut out = Vec::new();
        report::write(*format, &outcome.findings, &summary, &human, &mut out)
            .expect("writing into a Vec cannot fail");
        if matches!(format, Format::Human | Format::Concise) {
            assert_inert(&String::from_utf8(out).expect("reports are UTF-8"), human.color);
        }
    }
}

/// What a terminal or a CI log gets from the input: no line that starts a runner command, no
/// control character but LF and tab (and the colour codes' own ESC when coloured).
fn assert_inert(out: &str, color: bool) {
    for line in out.split('\n') {
        assert!(!line.trim_start().starts_with("::"), "a line starts a command: {line:?}");
    }
    for c in out.chars() {
        let allowed = c == '\n' || c == '\t' || (color && c == '\u{1b}');
        assert!(
            allowed || !taintlint::util::text::is_unsafe(c),
            "{c:?} reaches the terminal"
        );
    }
}
