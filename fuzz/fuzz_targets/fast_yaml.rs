//! Differential, node for node: wherever the line-based builder (`load::fast_yaml`) accepts a
//! document, saphyr must parse it without error into the same tree — texts, styles, tags and
//! spans — and the check mode must accept exactly what the build mode accepts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use taintlint::load::fast_yaml;
use taintlint::load::prescan::split_documents;
use taintlint::load::yaml::{self, Limits};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for range in split_documents(text) {
        let chunk = &text[range.clone()];
        let fast = fast_yaml::parse_at(chunk, range.start, Limits::default());
        let checked = fast_yaml::check(chunk, Limits::default());
        assert_eq!(
            fast.is_some(),
            checked.is_some() || fast.as_ref().is_some_and(|s| s.documents.is_empty()),
            "check and build modes disagree"
        );
        let Some(fast) = fast else { continue };
        let slow = yaml::parse_at(chunk, range.start, Limits::default());
        assert!(slow.error.is_none(), "saphyr rejects it: {:?}", slow.error);
        assert_eq!(fast.documents, slow.documents, "trees differ");
    }
});
