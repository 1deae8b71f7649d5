//! What a file says about the cluster it belongs to, gathered while its text is at hand: the
//! folders it applies (`analysis::sources::links`), named as the run names its root's files,
//! and the node makers it shows (`analysis::sources::provisioners`), by line.

use super::file::FileReport;
use super::options::LintOptions;
use crate::load::SourceFile;

/// Fills `report.links` (made absolute to the run) and `report.makers` from `source`.
pub(super) fn gather(report: &mut FileReport, source: &SourceFile, opts: &LintOptions) {
    if !report.links.is_empty() {
        // A link is a folder of the repository: named as the run names the file's root's.
        let root = super::fixtures::root_of(&source.name, &opts.roots);
        report.links = match root {
            Some(root) => std::mem::take(&mut report.links)
                .into_iter()
                .map(|l| {
                    if root.is_empty() {
                        l
                    } else {
                        format!("{root}/{l}")
                    }
                })
                .collect(),
            None => Vec::new(),
        };
    }
    if opts.rules.needs_inventory() {
        use crate::analysis::sources::provisioners::Maker;
        // NodePool text a file's own pools read is no unread NodePool (a Terraform file's
        // pools come from its directory's evaluation: the run asks its cluster's pools).
        let read_pools = report.nodes.iter().any(|n| n.origin == "NodePool");
        report.makers = crate::analysis::sources::provisioners::in_text(&source.text)
            .into_iter()
            .filter(|(m, _)| !(read_pools && *m == Maker::UnreadNodePools))
            .map(|(m, at)| (m, source.position(at).line))
            .collect();
    }
}
