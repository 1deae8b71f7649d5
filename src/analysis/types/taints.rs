//! A pool's taints: the taint itself (shared strings), its place in a pool's declaration,
//! and the taints a declaration may have that are not known.

use std::sync::Arc;

use crate::analysis::semantics::matching::TaintRef;
use crate::util::intern;

use super::place::Place;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaintSpec {
    pub key: Arc<str>,
    pub value: Arc<str>,
    pub effect: Arc<str>,
}

impl TaintSpec {
    /// A taint of shared strings (`util::intern`): the inventory keeps every pool's taints
    /// for the whole run, and copies of a template repeat them.
    pub fn new(key: &str, value: &str, effect: &str) -> Self {
        TaintSpec {
            key: intern(key),
            value: intern(value),
            effect: intern(effect),
        }
    }

    /// One shared copy of this taint per worker thread: copies of a template repeat it, and
    /// the inventory keeps every pool's taints for the whole run.
    pub fn shared(self) -> Arc<TaintSpec> {
        thread_local! {
            static TAINTS: std::cell::RefCell<std::collections::HashSet<Arc<TaintSpec>>> =
                std::cell::RefCell::new(std::collections::HashSet::new());
        }
        TAINTS.with(|table| {
            let Ok(mut table) = table.try_borrow_mut() else {
                return Arc::new(self);
            };
            if let Some(shared) = table.get(&self) {
                return Arc::clone(shared);
            }
            let shared = Arc::new(self);
            if table.len() < 1 << 12 {
                table.insert(Arc::clone(&shared));
            }
            shared
        })
    }

    /// The taint as toleration matching takes it (`matching::tolerates`).
    pub fn taint_ref(&self) -> TaintRef<'_> {
        TaintRef {
            key: &self.key,
            value: &self.value,
            effect: &self.effect,
        }
    }

    /// `key=value:Effect`, as `kubectl taint` writes it.
    pub fn display(&self) -> String {
        let mut s = self.key.to_string();
        if !self.value.is_empty() {
            s.push('=');
            s.push_str(&self.value);
        }
        if !self.effect.is_empty() {
            s.push(':');
            s.push_str(&self.effect);
        }
        s
    }

    /// `{key: value}`, the scheduler's way of naming an untolerated taint.
    pub fn scheduler_form(&self) -> String {
        format!("{{{}: {}}}", self.key, self.value)
    }
}

#[derive(Clone, Debug)]
pub struct PoolTaint {
    /// Shared ([`TaintSpec::shared`]).
    pub taint: Arc<TaintSpec>,
    pub loc: Option<Place>,
    /// Karpenter `startupTaints`: pods need not tolerate them.
    pub startup: bool,
}

/// Taints of a declaration that are not known (a Terraform `dynamic "taint"` block, a taint
/// list from a variable, a taint whose value is one): no finding may rest on their absence.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnknownTaints {
    /// Every taint is known.
    #[default]
    None,
    /// Taints with these keys have an unknown value or effect.
    Keys(Box<[Arc<str>]>),
    /// Taints of any key may be there.
    Any,
}

impl UnknownTaints {
    /// May the pool have a taint with this key that is not among its known taints?
    pub fn may_have(&self, key: &str) -> bool {
        match self {
            UnknownTaints::None => false,
            UnknownTaints::Keys(keys) => keys.iter().any(|k| &**k == key),
            UnknownTaints::Any => true,
        }
    }

    /// Adds a key (a taint with this key is not fully known).
    pub fn add_key(&mut self, key: &str) {
        match self {
            UnknownTaints::Any => {}
            UnknownTaints::None => *self = UnknownTaints::Keys(Box::new([intern(key)])),
            UnknownTaints::Keys(keys) => {
                let mut v = keys.to_vec();
                v.push(intern(key));
                *keys = v.into();
            }
        }
    }
}
