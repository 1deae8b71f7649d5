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
