//! Where a node declaration or one of its taints is.

use crate::load::{Loc, Span};

/// Where a node declaration (or one of its taints) is: the place itself, or, in a streamed
/// run, its file's positions stored in the spill store and read back only when a finding
/// names the place (`Inventory::loc`). A large inventory then keeps no source per file.
#[derive(Clone, Debug)]
pub enum Place {
    Here(Loc),
    /// `file`: the number of the stored source in the inventory's table.
    Stored {
        file: u32,
        span: Span,
    },
}

impl Place {
    pub fn span(&self) -> Span {
        match self {
            Place::Here(loc) => loc.span,
            Place::Stored { span, .. } => *span,
        }
    }
}
