//! Where a Terraform pool comes from, as data: the root module (the directory `terraform plan`
//! runs in) it was evaluated for, the chain of module calls that led to it, its resource
//! address, and which of its values are not known before Terraform talks to a cloud — each
//! with why. `sources::terraform` fills it; the cross-reference and `explain` read it.

use std::fmt;
use std::sync::Arc;

/// Why a Terraform value is not known from the files alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// An input variable with no default, no `terraform.tfvars`/`*.auto.tfvars` value and no
    /// value from the module call (`var.NAME`): set on the command line or the environment.
    Variable(Arc<str>),
    /// A data source (`data.TYPE.NAME`): read from the cloud at plan time.
    Data(Arc<str>),
    /// A resource's attribute (`TYPE.NAME.ATTR`): known after apply.
    Resource(Arc<str>),
    /// A module's output (`module.NAME.OUTPUT`) that is not evaluated: a registry or Git
    /// module's, or a local module's not read (outside the repository, past the bounds).
    Module(Arc<str>),
    /// A function taintlint does not evaluate (it reads files, the clock, or is not known).
    Function(Arc<str>),
    /// Known only where Terraform runs (`path.cwd`, `terraform.workspace`, `self`).
    Environment(Arc<str>),
    /// Past one of the evaluation's limits (depth, size, module calls), which bound the work
    /// one pull request's files can cause.
    Limit(&'static str),
    /// An expression Terraform would reject (a type error, a missing key, a duplicate key in a
    /// `for` expression): its value is not known.
    Invalid(Arc<str>),
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Variable(v) => write!(
                f,
                "`var.{v}` has no default and no value in terraform.tfvars or *.auto.tfvars"
            ),
            Cause::Data(d) => write!(f, "`{d}` is read from the cloud"),
            Cause::Resource(r) => write!(f, "`{r}` is known after apply"),
            Cause::Module(m) => write!(f, "`{m}` is a module's output taintlint does not read"),
            Cause::Function(n) => write!(f, "`{n}(…)` is not evaluated"),
            Cause::Environment(e) => write!(f, "`{e}` is known only where Terraform runs"),
            Cause::Limit(what) => write!(f, "past taintlint's limit on {what}"),
            Cause::Invalid(m) => write!(f, "Terraform rejects it: {m}"),
        }
    }
}

/// A part of a pool whose value is unknown, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// Which part: `labels`, `labels.team`, `taints`, `size`, `for_each`, ...
    pub what: Box<str>,
    pub cause: Cause,
}

/// One module call on the way from the root module to a pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleCall {
    /// Its address in its parent: `module.eks`, `module.pools["gpu"]`.
    pub address: Box<str>,
    /// Its `source` as written.
    pub source: Box<str>,
}

/// Where a Terraform pool comes from (see the module's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The root module's directory, as the run names files.
    pub root: Box<str>,
    /// The module calls from the root to the module that declares the pool (empty for a
    /// resource of the root module itself).
    pub modules: Vec<ModuleCall>,
    /// The pool's address (the resource instance, or a registry module's group key).
    pub address: Box<str>,
    /// What is not known about it, and why (sorted, one per part).
    pub unknown: Vec<Unknown>,
}

impl Provenance {
    /// The module path in Terraform's notation (`module.a.module.b`; empty for the root).
    pub fn module_path(&self) -> String {
        let parts: Vec<&str> = self.modules.iter().map(|m| &*m.address).collect();
        parts.join(".")
    }
}
