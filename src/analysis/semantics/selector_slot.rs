//! Where a fix can add a `nodeSelector` to a pod spec, worked out when the spec is read (see
//! [`SelectorSlot`]).

use crate::load::SourceFile;
use crate::load::lines::{between, is_direct_entry, is_flow, line_ending_at, line_start};
use crate::load::yaml::Node;

/// Where a `nodeSelector` can be added to a pod spec: the start of the line of its
/// `tolerations:` key, that key's indentation and its line end. Worked out when the spec is
/// read (see [`selector_slot`]), so a fix made later, from a workload whose file text is no
/// longer held, still writes at the spec's own indentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SelectorSlot {
    /// The offset the new lines go at.
    pub at: usize,
    /// Spaces before `tolerations:`.
    pub indent: u16,
    /// The line end of that line: `\n`, `\r\n` or a lone `\r`.
    pub eol: Eol,
}

/// A line end (see [`SelectorSlot`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Eol {
    Lf,
    CrLf,
    Cr,
}

impl Eol {
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::Cr => "\r",
        }
    }
}

/// The [`SelectorSlot`] of the block mapping `spec`, just before its entry `before` (the
/// `tolerations` key); `None` for a flow mapping, a spec with a `nodeSelector` already, an
/// entry that is not written plainly on a line of its own, or an indentation with tabs.
pub fn selector_slot(src: &SourceFile, spec: &Node, before: &Node) -> Option<SelectorSlot> {
    if is_flow(src, spec) || spec.get("nodeSelector").is_some() {
        return None;
    }
    let entries = spec.as_map()?;
    let (k, v) = entries.iter().find(|(k, _)| std::ptr::eq(k, before))?;
    if !is_direct_entry(src, k, v) {
        return None;
    }
    let start = line_start(src, k.span.start);
    let indent = between(src, start, k.span.start)?;
    if !indent.iter().all(|c| *c == b' ') {
        return None;
    }
    let eol = match line_ending_at(src, k.span.start) {
        "\r\n" => Eol::CrLf,
        "\r" => Eol::Cr,
        _ => Eol::Lf,
    };
    Some(SelectorSlot {
        at: start,
        indent: u16::try_from(indent.len()).ok()?,
        eol,
    })
}
