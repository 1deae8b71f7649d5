//! A workload's tolerations, with where each is written.

use std::sync::Arc;

use crate::analysis::semantics::matching::Tol;
use crate::load::Span;
use crate::util::intern;

/// One toleration of a workload. Strings are shared (`util::intern`): a run keeps one per
/// workload until the cross-reference, and replicas of one spec repeat them.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct WorkloadToleration {
    pub key: Arc<str>,
    pub operator: Arc<str>,
    pub value: Arc<str>,
    pub effect: Arc<str>,
    pub seconds: Option<i64>,
    /// The toleration's key (or the toleration) in its file.
    pub span: Span,
    pub path: Arc<str>,
    /// Where its `key`, `value` and `effect` scalars are, for fixes that edit one.
    #[serde(default)]
    pub scalars: Scalars,
}

/// The spans of a toleration's scalars (`None`: not written, or not a scalar).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Scalars {
    pub key: Option<Span>,
    pub value: Option<Span>,
    pub effect: Option<Span>,
}

impl WorkloadToleration {
    /// A toleration of a pod spec (or of an object that lends it, such as a RuntimeClass),
    /// reported under `path`; its scalars' places are left out.
    pub fn of(t: &crate::model::Toleration<'_>, path: Arc<str>) -> Self {
        WorkloadToleration {
            key: intern(t.key()),
            operator: intern(t.operator()),
            value: intern(t.value()),
            effect: intern(t.effect()),
            seconds: t.seconds(),
            span: t.key.map_or(t.node.span, |k| k.entry_span()),
            path,
            scalars: Scalars::default(),
        }
    }

    /// Written in the file (with a path), not added by a controller, an admission plugin or an
    /// operator: only these are the author's, for the rules that judge what was written.
    pub fn written(&self) -> bool {
        !self.path.is_empty()
    }

    pub fn tol(&self) -> Tol<'_> {
        Tol {
            key: &self.key,
            operator: &self.operator,
            value: &self.value,
            effect: &self.effect,
        }
    }

    pub fn display(&self) -> String {
        let mut s = if self.key.is_empty() {
            "*".to_string()
        } else {
            self.key.to_string()
        };
        match &*self.operator {
            "Exists" => {}
            "Lt" | "Gt" => {
                s.push_str(&format!(" {} {}", self.operator, self.value));
            }
            _ => {
                s.push('=');
                s.push_str(&self.value);
            }
        }
        s.push(':');
        s.push_str(if self.effect.is_empty() {
            "*"
        } else {
            &self.effect
        });
        s
    }
}
