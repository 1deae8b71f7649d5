//! Rules the loader reports: files that cannot be read, decoded or parsed. They have no
//! check of their own; `crate::lint` raises them.

use crate::diagnostic::Severity;

use super::{Category, RuleMeta};

pub static UNREADABLE_FILE: RuleMeta = RuleMeta {
    name: "unreadable-file",
    summary: "A file could not be read (permissions, not a regular file, over the size limit)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/unreadable-file.md"),
};

pub static INVALID_ENCODING: RuleMeta = RuleMeta {
    name: "invalid-encoding",
    summary: "A file is not UTF-8 text (invalid bytes, NUL bytes, UTF-16)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-encoding.md"),
};

pub static YAML_SYNTAX_ERROR: RuleMeta = RuleMeta {
    name: "yaml-syntax-error",
    summary: "A file is not valid YAML; kubectl cannot read it either",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/yaml-syntax-error.md"),
};

pub static YAML_TOO_COMPLEX: RuleMeta = RuleMeta {
    name: "yaml-too-complex",
    summary: "A document nests too deeply or expands too many aliases (a YAML bomb)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/yaml-too-complex.md"),
};

pub static TEMPLATE_NOT_RENDERED: RuleMeta = RuleMeta {
    name: "template-not-rendered",
    summary: "A Helm/Go template that is not YAML yet; lint the rendered output instead",
    category: Category::Input,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/template-not-rendered.md"),
};

pub static INTERNAL_ERROR: RuleMeta = RuleMeta {
    name: "internal-error",
    summary: "taintlint failed while checking a file (a bug: please report it)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/internal-error.md"),
};

pub static INVALID_CONFIG: RuleMeta = RuleMeta {
    name: "invalid-config",
    summary: "A mistake in `.taintlint.yaml`: unknown key or rule, bad severity, unmatched glob",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-config.md"),
};

pub static UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    name: "unused-suppression",
    summary: "A `taintlint: ignore` comment or annotation that suppresses nothing",
    category: Category::Input,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/unused-suppression.md"),
};
