//! Folders a file applies to the cluster it belongs to: what links a file outside a cluster's
//! stack to that cluster (see `clusters::Stacks::link`).
//!
//! - a Flux `Kustomization` (`kustomize.toolkit.fluxcd.io`): `spec.path`, a folder of its
//!   source, "relative to the root of the SourceRef" (fluxcd/kustomize-controller,
//!   `api/v1/kustomization_types.go`); read as a folder of this repository when its source is
//!   a `GitRepository` (Flux's own bootstrap points the cluster's Kustomizations at the
//!   repository they sit in);
//! - an Argo CD `Application` (`argoproj.io`): `spec.source.path` and each
//!   `spec.sources[].path`, "a directory path within the Git repository"
//!   (argo-cd `pkg/apis/application/v1alpha1/types.go`, `ApplicationSource.Path`).
//!
//! A path is normalised (`./`, `.`, `..`, repeated slashes); one that climbs out of the
//! repository, is absolute, or holds a placeholder is no link.

use crate::model::Object;

/// The folders `object` applies, relative to the repository's root, normalised.
pub fn of_object(object: &Object<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let text = |path: &[&str]| object.node.path(path).and_then(|n| n.text());
    match (object.kind, object.group) {
        ("Kustomization", "kustomize.toolkit.fluxcd.io") => {
            let git = text(&["spec", "sourceRef", "kind"]).is_none_or(|k| k == "GitRepository");
            if git && let Some(p) = text(&["spec", "path"]).and_then(normalise) {
                out.push(p);
            }
        }
        ("Application", "argoproj.io") => {
            if let Some(p) = text(&["spec", "source", "path"]).and_then(normalise) {
                out.push(p);
            }
            let sources = object
                .node
                .path(&["spec", "sources"])
                .and_then(|n| n.as_seq());
            for s in sources.unwrap_or_default() {
                if let Some(p) = s.get("path").and_then(|n| n.text()).and_then(normalise) {
                    out.push(p);
                }
            }
        }
        _ => {}
    }
    out.sort();
    out.dedup();
    out
}

/// `./apps/prod/` → `apps/prod`; `None` for a path out of the repository, an absolute one,
/// one with a placeholder (`{{ … }}`, `${…}`), or the root itself (every file).
pub fn normalise(path: &str) -> Option<String> {
    if path.starts_with('/') || path.contains("{{") || path.contains("${") || path.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_as_the_repository_names_them() {
        assert_eq!(normalise("./apps/prod/").as_deref(), Some("apps/prod"));
        assert_eq!(normalise("apps//x/../y").as_deref(), Some("apps/y"));
        assert_eq!(normalise("./"), None);
        assert_eq!(normalise("../other"), None);
        assert_eq!(normalise("/etc"), None);
        assert_eq!(normalise("apps/{{ .env }}"), None);
    }
}
