//! Arbitrary text → a Terraform file (`main.tf`, and the same bytes as `main.tf.json`) → the
//! run's Terraform step: the object-key scan, the parse with its repeated-key re-parses, and
//! the evaluator (functions, `for` expressions, `for_each`, the work meter of issue 49) → every
//! rule and the cross-reference. Asserts: no panic, no `internal-error`, every span inside its
//! source on char boundaries. With `-timeout=10`, work out of proportion to the input (a
//! budget charged by the wrong thing) is a failure too.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use taintlint::engine::{self, LintOptions};
use taintlint::rules::RuleSet;

static OPTS: LazyLock<LintOptions> = LazyLock::new(|| LintOptions {
    rules: RuleSet::resolve(&["all".into()], &[]).expect("every rule resolves"),
    ..LintOptions::default()
});

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for name in ["main.tf", "main.tf.json"] {
        let outcome = engine::lint_text(name, &text, &OPTS).expect("in memory");
        for f in &outcome.findings {
            assert_ne!(f.rule, "internal-error", "{f:?}");
            if let Some(src) = f.source.as_ref().filter(|s| !s.is_lite()) {
                for label in f.primary.iter().chain(&f.secondary) {
                    let s = label.span;
                    assert!(
                        s.start <= s.end
                            && s.end <= src.text.len()
                            && src.text.is_char_boundary(s.start)
                            && src.text.is_char_boundary(s.end),
                        "span {s:?} outside its source: {f:?}"
                    );
                }
            }
        }
    }
});
