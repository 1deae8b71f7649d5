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
