//! Differential: the fast path (documents built by the line-based builder, those of kinds
//! without scheduling fields only checked, saphyr for the rest) must report exactly what
//! `--full-parse` (saphyr for everything) reports, for any input.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use taintlint::engine::{self, LintOptions};
use taintlint::load::{self, SourceFile};
use taintlint::rules::RuleSet;

static OPTS: LazyLock<[LintOptions; 2]> = LazyLock::new(|| {
    let opts = |fast| LintOptions {
        rules: RuleSet::resolve(&["all".into(), "stateful-eviction-timeout".into()], &[])
            .expect("every rule resolves"),
        fast,
        ..LintOptions::default()
    };
    [opts(true), opts(false)]
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = load::decode(data.to_vec()) else {
        return;
    };
    let source = SourceFile::new("fuzz.yaml", text);
    let [fast, full] = OPTS.each_ref().map(|opts| {
        let outcome = engine::lint_text(&source.name, &source.text, opts).expect("in memory");
        let findings: Vec<String> = outcome
            .findings
            .iter()
            .map(|f| format!("{:?} {} {}", f.range(), f.rule, f.message))
            .collect();
        (findings, outcome.documents, outcome.objects)
    });
    assert_eq!(fast.0, full.0, "findings differ (fast, then --full-parse)");
});
