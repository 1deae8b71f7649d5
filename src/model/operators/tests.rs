use super::*;

#[test]
fn every_declaration_reads() {
    for op in CATALOGUE {
        if let Err(errors) = read(op.declaration) {
            panic!("{}: {errors:?}\n{}", op.project, op.declaration);
        }
    }
    assert_eq!(entries().len(), CATALOGUE.len());
}

#[test]
fn kinds_are_found_without_reading_every_declaration() {
    for e in entries() {
        assert_eq!(
            declared_kind(e.operator.declaration),
            Some(e.kind.kind.as_str()),
            "{}",
            e.operator.id
        );
        let api_version = match e.kind.api_version.strip_suffix("/*") {
            Some(group) => format!("{group}/v1"),
            None => e.kind.api_version.clone(),
        };
        let found = find(&e.kind.kind, &api_version).map(|f| f.operator.id);
        assert_eq!(found, Some(e.operator.id), "{}", e.kind.kind);
    }
    assert!(find("Kafka", "example.com/v1").is_none());
    assert!(find("ConfigMap", "v1").is_none());
}

/// Each role of `object` (YAML) as the catalogue reads it: (role name, one pod per node, the
/// operator's notes).
fn percona_roles(object: &str) -> Vec<(String, bool, Vec<String>)> {
    let stream = parse(object, Limits::default());
    let root = stream.documents[0].root.as_ref().expect("an object");
    let kind = root.get("kind").and_then(Node::text).expect("a kind");
    let api_version = root
        .get("apiVersion")
        .and_then(Node::text)
        .expect("a version");
    let entry = find(kind, api_version).expect("a catalogued kind");
    crate::model::roles::pod_specs(root, &entry.kind, entry.synth)
        .iter()
        .map(|s| {
            let synth = s.synth.as_deref();
            (
                s.role.as_ref().map_or_else(String::new, |r| r.name.clone()),
                synth.is_some_and(|x| x.one_per_node),
                synth.map(|x| x.notes.clone()).unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn percona_anti_affinity_as_the_operators_reconcile_it() {
    // XtraDB Cluster: unset and unknown keys are the hostname; `none` and `advanced` generate
    // nothing; a proxy runs only when enabled.
    let pxc = "apiVersion: pxc.percona.com/v1\nkind: PerconaXtraDBCluster\nspec:\n  pxc:\n    size: 3\n  haproxy:\n    enabled: true\n    affinity: {antiAffinityTopologyKey: rack}\n  proxysql:\n    affinity: {antiAffinityTopologyKey: none}\n";
    let roles = percona_roles(pxc);
    let names: Vec<&str> = roles.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["pxc", "haproxy"]);
    assert!(roles.iter().all(|r| r.1), "{roles:?}");
    assert!(
        roles[1].2[0].contains("`kubernetes.io/hostname`"),
        "{roles:?}"
    );
    let off = "apiVersion: pxc.percona.com/v1\nkind: PerconaXtraDBCluster\nspec:\n  pxc:\n    affinity: {antiAffinityTopologyKey: None}\n  haproxy:\n    enabled: true\n    affinity:\n      antiAffinityTopologyKey: kubernetes.io/hostname\n      advanced: {nodeAffinity: {}}\n";
    let roles = percona_roles(off);
    assert!(!roles[0].1 && roles[0].2[0].contains("none"), "{roles:?}");
    assert!(!roles[1].1 && roles[1].2.is_empty(), "{roles:?}");

    // MongoDB: the keys kept depend on `crVersion` (the beta zone key before 1.16.0 only);
    // sharding's roles only with `sharding.enabled`, an arbiter only when enabled.
    let mongo = |version: &str| {
        format!(
            "apiVersion: psmdb.percona.com/v1\nkind: PerconaServerMongoDB\nspec:\n  crVersion: {version}\n  replsets:\n    - name: rs0\n      affinity: {{antiAffinityTopologyKey: failure-domain.beta.kubernetes.io/zone}}\n      arbiter: {{enabled: false}}\n    - name: rs1\n      arbiter: {{enabled: true}}\n  sharding:\n    enabled: true\n    mongos: {{affinity: {{antiAffinityTopologyKey: topology.kubernetes.io/zone}}}}\n"
        )
    };
    let new = percona_roles(&mongo("1.20.0"));
    let names: Vec<&str> = new.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        ["replset rs0", "replset rs1", "arbiter rs1", "mongos"]
    );
    assert!(
        new[0].1,
        "after 1.16.0 the beta key becomes the hostname: {new:?}"
    );
    assert!(!new[3].1 && new[3].2[0].contains("topology.kubernetes.io/zone"));
    let old = percona_roles(&mongo("1.14.0"));
    assert!(
        !old[0].1 && old[0].2[0].contains("failure-domain.beta"),
        "{old:?}"
    );
    assert!(
        old[3].1,
        "before 1.16.0 the zone key becomes the hostname: {old:?}"
    );
}
