//! Percona Operator for MongoDB, `PerconaServerMongoDB` (psmdb.percona.com/v1): the pods of
//! each replica set of `spec.replsets[]` (named by `name`), its arbiter, non-voting and hidden
//! members when enabled, and, with `spec.sharding.enabled`, the config server replica set
//! (`spec.sharding.configsvrReplSet`) and the `mongos` routers (`spec.sharding.mongos`).
//!
//! Each is placed by the operator's `MultiAZ` (percona/percona-server-mongodb-operator
//! pkg/apis/psmdb/v1/psmdb_types.go): `nodeSelector`, `tolerations`, `priorityClassName`,
//! `runtimeClassName`, `resources`, `topologySpreadConstraints` and `sidecars` go to the pods,
//! `size` is their number. Its `affinity` is the operator's `PodAffinity`: `advanced` is the
//! pods' affinity, whole; without it, a required pod anti-affinity among the role's pods on
//! `antiAffinityTopologyKey` — `kubernetes.io/hostname` when unset or not a key it accepts
//! (`topology.kubernetes.io/zone` or `region`; before `crVersion` 1.16.0, the
//! `failure-domain.beta.kubernetes.io` ones), none for `none` (psmdb_defaults.go
//! `reconcileAffinityOpts`). From `crVersion` 1.15.0, a spread constraint's `maxSkew: 0`,
//! empty `topologyKey` and empty `whenUnsatisfiable` become 1, `kubernetes.io/hostname` and
//! `DoNotSchedule` (`reconcileTopologySpreadConstraints`). Without `crVersion` the operator
//! takes its own version: the newest rules. Sizes when unset: 3 for a replica set (the safe
//! minimum), 1 arbiter, 2 `mongos` (`minSafeMongosSize`).

use super::percona_xtradb_cluster::{anti_affinity, key_span};
use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "percona-server-mongodb",
    project: "Percona Operator for MongoDB",
    sources: &[
        "percona/percona-server-mongodb-operator pkg/apis/psmdb/v1/psmdb_types.go",
        "percona/percona-server-mongodb-operator pkg/apis/psmdb/v1/psmdb_defaults.go",
    ],
    declaration: concat!(
        "\nkind: PerconaServerMongoDB\napiVersion: psmdb.percona.com/*\nroles:\n",
        percona_role!(
            "replset",
            "spec.replsets[*]",
            "    namedBy: name\n    defaultReplicas: 3\n"
        ),
        percona_role!(
            "arbiter",
            "spec.replsets[*].arbiter",
            "    namedBy: name\n    optional: true\n    defaultReplicas: 1\n"
        ),
        percona_role!(
            "nonvoting",
            "spec.replsets[*].nonvoting",
            "    namedBy: name\n    optional: true\n"
        ),
        percona_role!(
            "hidden",
            "spec.replsets[*].hidden",
            "    namedBy: name\n    optional: true\n"
        ),
        percona_role!(
            "config server",
            "spec.sharding.configsvrReplSet",
            "    optional: true\n    defaultReplicas: 3\n"
        ),
        percona_role!(
            "mongos",
            "spec.sharding.mongos",
            "    optional: true\n    defaultReplicas: 2\n"
        ),
    ),
    synth: Some(synth),
};

const SOURCE: &str = "percona/percona-server-mongodb-operator pkg/apis/psmdb/v1/psmdb_defaults.go `reconcileAffinityOpts`";

/// The topology keys `reconcileAffinityOpts` keeps, from `crVersion` 1.16.0 and before it.
const KEYS: &[&str] = &[
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];
const KEYS_BEFORE_1_16: &[&str] = &[
    "kubernetes.io/hostname",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
];

fn synth(h: &Hook<'_, '_>) -> Synth {
    let version = text(h.get("spec.crVersion")).and_then(cr_version);
    let at_least = |v: (u32, u32)| version.is_none_or(|have| have >= v);
    let mut s = Synth {
        span: key_span(h),
        spread_defaults: at_least((1, 15)),
        ..Synth::default()
    };
    let on = match h.role {
        "arbiter" | "nonvoting" | "hidden" => truthy(h.here("enabled")) == Some(true),
        "config server" | "mongos" => truthy(h.get("spec.sharding.enabled")) == Some(true),
        _ => true,
    };
    if !on {
        s.none = true;
        return s;
    }
    let keys = if at_least((1, 16)) {
        KEYS
    } else {
        KEYS_BEFORE_1_16
    };
    s.notes
        .extend(anti_affinity(h, keys, SOURCE, &mut s.one_per_node));
    s
}

/// The major and minor of a `crVersion` (`1.16.0`); `None` for anything else.
fn cr_version(v: &str) -> Option<(u32, u32)> {
    let mut parts = v.trim_start_matches('v').split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::cr_version;

    #[test]
    fn reads_cr_versions() {
        assert_eq!(cr_version("1.16.0"), Some((1, 16)));
        assert_eq!(cr_version("1.9.1"), Some((1, 9)));
        assert_eq!(cr_version("v1.15"), Some((1, 15)));
        assert_eq!(cr_version("latest"), None);
        assert_eq!(cr_version(""), None);
    }
}
