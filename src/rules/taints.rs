//! What the taint rules share: every taint list of an object with its origin (Node objects and
//! infra-as-code, pkg/apis/core/validation/validation.go `validateNodeTaints`; the pool sources'
//! own validation (Karpenter, eksctl, kubeadm)) and the `api_error` plumbing. Each rule lives in
//! its own file.

pub(crate) use crate::analysis::semantics::validation::{
    duplicate, go_quote, invalid, json_quote, label_key_errors, label_value_errors, named_value,
    not_supported, required,
};
pub(crate) use crate::diagnostic::{Finding, Severity};
pub(crate) use crate::model::{Taint, TaintOrigin};

pub(crate) use super::tolerations::{EFFECTS, effect_help, key_help};
pub(crate) use super::{Category, Ctx, RuleMeta};

/// A taint with the origin of its list.
pub(crate) struct Tainted<'a> {
    pub(crate) taint: &'a Taint<'a>,
    pub(crate) origin: TaintOrigin,
}

impl<'a> std::ops::Deref for Tainted<'a> {
    type Target = Taint<'a>;
    fn deref(&self) -> &Self::Target {
        self.taint
    }
}

pub(crate) fn each<'a>(ctx: &'a Ctx<'a>) -> impl Iterator<Item = Tainted<'a>> {
    ctx.object.taints.iter().flat_map(|l| {
        l.taints.iter().map(move |taint| Tainted {
            taint,
            origin: l.origin,
        })
    })
}

pub(crate) use super::push_server_only as push;
