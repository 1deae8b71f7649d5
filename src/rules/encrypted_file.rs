//! `encrypted-file`: A file that is encrypted (git-crypt, SOPS, ansible-vault, PGP), a Git LFS
//! pointer, or marked binary or filtered in `.gitattributes` and not readable as text. It has no
//! check of its own: the engine raises it while reading, and a run folds every such file into
//! one notice (see `engine::folds`).

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "encrypted-file",
    summary: "An encrypted file, a Git LFS pointer or a file .gitattributes marks binary: not a manifest, not linted",
    category: Category::Input,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/encrypted-file.md"),
};

pub static RULE: Rule = Rule::new(&META);
