//! Vendored code and test data: folders whose node pools belong to some other cluster (a
//! vendored Go module's test fixtures, a repository's own test data). Their node declarations
//! are not part of the run's inventory unless the user declares them; their workloads and
//! their own mistakes are still linted.

/// Folder names that hold other projects' files or test data.
const FIXTURE_DIRS: &[&str] = &[
    "vendor",
    "third_party",
    "node_modules",
    "testdata",
    "test-data",
    "fixtures",
    "__fixtures__",
    "test",
    "tests",
    "e2e",
];

/// Is the file `name` (as findings name it) inside a fixture folder below the root it was
/// found under? Only the part below the root counts: linting `testdata/cluster` itself
/// makes its pools the inventory, linting `.` does not. A file named on its own, or one below
/// no root (standard input), is never one.
pub fn is_fixture(name: &str, roots: &[String]) -> bool {
    let Some(below) = roots
        .iter()
        .filter_map(|root| below_root(name, root))
        .min_by_key(|rest| rest.len())
    else {
        return false;
    };
    let mut folders: Vec<&str> = below.split('/').collect();
    // The last part is the file itself.
    folders.pop();
    folders.iter().any(|f| {
        FIXTURE_DIRS.iter().any(|d| f.eq_ignore_ascii_case(d))
            || f.split(['-', '_'])
                .any(|w| FIXTURE_WORDS.iter().any(|d| w.eq_ignore_ascii_case(d)))
    })
}

/// Words that make a folder's name one of test data when the name is made of several
/// (`test_pods`, `e2e-manifests`, `unit-tests`): a Go package's pods for its unit tests are
/// loaded by a `_test.go` file, never applied to a cluster.
const FIXTURE_WORDS: &[&str] = &["test", "tests", "fixture", "fixtures", "e2e"];

/// Is a file of test data named for a negative test (`invalid.yaml`, `agentbadconf.yaml`,
/// `broken-crd.yaml`): a parser's test input, broken on purpose?
pub(super) fn named_invalid(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    [
        "invalid",
        "bad",
        "broken",
        "malformed",
        "corrupt",
        "wrong",
        "error",
    ]
    .iter()
    .any(|w| base.contains(w))
}

/// The root `name` lies below, as the run names it (`""` for `.`): the deepest one; `None`
/// for a file below no root (standard input, the editor's buffer).
pub(super) fn root_of<'a>(name: &str, roots: &'a [String]) -> Option<&'a str> {
    roots
        .iter()
        .filter(|root| below_root(name, root).is_some())
        .max_by_key(|root| root.len())
        .map(|root| {
            let root = root.trim_end_matches('/');
            if root == "." { "" } else { root }
        })
}

/// `name` without the root and its slash; `None` when `name` is not below `root`.
fn below_root<'a>(name: &'a str, root: &str) -> Option<&'a str> {
    let root = root.trim_end_matches('/');
    if root == "." || root.is_empty() {
        return Some(name);
    }
    if name == root {
        return Some("");
    }
    name.strip_prefix(root)?.strip_prefix('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn fixture_folders_below_the_root() {
        let dot = roots(&["."]);
        assert!(is_fixture("vendor/k8s.io/x/testdata/nodes.yaml", &dot));
        assert!(is_fixture("charts/x/tests/nodepool.yaml", &dot));
        assert!(is_fixture("pkg/Fixtures/nodes.yaml", &dot));
        assert!(!is_fixture("clusters/prod/nodepools.yaml", &dot));
        assert!(!is_fixture("nodes.yaml", &dot));
        // A file called `test.yaml` is not a folder.
        assert!(!is_fixture("infra/test.yaml", &dot));
        // Folder names made of words, one of which says test data.
        assert!(is_fixture("pkg/scaler/test_pods/pod.yaml", &dot));
        assert!(is_fixture("hack/e2e-manifests/pod.yaml", &dot));
        assert!(!is_fixture("apps/contest/pod.yaml", &dot));
        assert!(!is_fixture("apps/latest-release/pod.yaml", &dot));
        // Jobs that generate test data are no test data.
        assert!(!is_fixture(
            "benchmarks/benchmark-testdata-generation/job.yaml",
            &dot
        ));
        assert!(named_invalid("internal/config/testdata/agentbadconf.yaml"));
        assert!(named_invalid("testdata/Invalid-Collector.yaml"));
        assert!(!named_invalid("testdata/collector.yaml"));
    }

    #[test]
    fn the_root_itself_does_not_count() {
        let r = roots(&["testdata/scenarios/karpenter"]);
        assert!(!is_fixture(
            "testdata/scenarios/karpenter/nodepools.yaml",
            &r
        ));
        assert!(is_fixture("testdata/scenarios/karpenter/vendor/x.yaml", &r));
        // Several roots: the deepest one the file is below.
        let r = roots(&[".", "testdata/cluster"]);
        assert!(!is_fixture("testdata/cluster/nodes.yaml", &r));
        // A file named on its own.
        let r = roots(&["test/nodes.yaml"]);
        assert!(!is_fixture("test/nodes.yaml", &r));
        // Below no root (standard input, the library): never.
        assert!(!is_fixture("testdata/nodes.yaml", &[]));
        assert!(!is_fixture("vendor/nodes.yaml", &roots(&["other"])));
    }
}
