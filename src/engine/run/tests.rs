//! Unit tests of `engine::run`: stored places keep only their positions; output records keep
//! order and counts.

use super::*;

fn numbered(from: usize, n: usize) -> Vec<Finding> {
    (from..from + n)
        .map(|i| {
            let severity = [Severity::Error, Severity::Warning, Severity::Info][i % 3];
            Finding::new(
                crate::rules::unschedulable_workload::META.name,
                severity,
                format!("finding {i}"),
            )
        })
        .collect()
}

/// A file's node declarations are stored with only their own positions, whatever the
/// file's findings recorded, and point at the stored record.
#[test]
fn stored_places_keep_only_their_positions() {
    use crate::analysis::types::{Labels, PoolTaint, TaintSpec};
    use crate::load::Loc;
    use crate::load::{SourceFile, Span};
    let text = "x: 1\n".repeat(1000);
    // A lite source as a file with a thousand findings leaves it.
    let source = SourceFile::new("big.yaml", text).lite((0..1000).map(|i| i * 5));
    let here = |start: usize| {
        Place::Here(Loc {
            source: Arc::clone(&source),
            span: Span::new(start, start + 1),
        })
    };
    let mut nodes = vec![NodeDecl {
        origin: "NodePool",
        name: "gpu".to_string(),
        is_node: false,
        max_nodes: None,
        labels: Labels::new(),
        taints: vec![PoolTaint {
            taint: TaintSpec::new("gpu", "", "NoSchedule").shared(),
            loc: Some(here(50)),
            startup: false,
        }],
        unschedulable: false,
        open_labels: true,
        any_label: false,
        extended_resource_toleration: false,
        unknown_taints: Default::default(),
        scaling: None,
        loc: here(10),
        declared: false,
        terraform: None,
    }];
    let (found, bytes) = encode_places(&nodes).expect("encoded");
    assert!(Arc::ptr_eq(&found, &source));
    let SourceRecord(stored) = codec::decode(&bytes).expect("decoded");
    let (name, positions) = stored.lite_parts().expect("lite");
    assert_eq!(&**name, "big.yaml");
    let offsets: Vec<u32> = positions.iter().map(|p| p.0).collect();
    assert_eq!(offsets, [10, 11, 50, 51]);
    assert_eq!(stored.position(50), source.position(50));

    let mut store = Store::new();
    let mut files = Vec::new();
    store_places(&mut nodes, &source, store.put(&bytes), &mut files);
    assert_eq!(files.len(), 1);
    let stored_at = |p: &Place| matches!(p, Place::Stored { file: 0, .. });
    assert!(stored_at(&nodes[0].loc));
    assert!(nodes[0].taints[0].loc.as_ref().is_some_and(stored_at));
    assert_eq!(
        nodes[0].taints[0].loc.as_ref().map(Place::span),
        Some(Span::new(50, 51))
    );
}

/// Files' findings come back in the order they were added, whether kept, gathered into
/// records of at most `per_record` findings, or left over in the last record, and are
/// counted by severity.
#[test]
fn output_records_keep_order_and_counts() {
    for per_record in [1, 4, 7, 128] {
        let mut out = SpilledFindings::new(0);
        out.per_record = per_record;
        let mut next = 0;
        for (file, size) in [3, 1, 5, 2, 9, 4, 4, 1, 6].into_iter().enumerate() {
            out.push(numbered(next, size), file < 2);
            next += size;
        }
        out.flush();
        assert!(out.pending.is_empty());
        let mut seen = Vec::new();
        out.each(&mut |f| {
            seen.push(f.message.clone());
            Ok(())
        })
        .expect("read back");
        let want: Vec<String> = (0..next).map(|i| format!("finding {i}")).collect();
        assert_eq!(seen, want, "{per_record} per record");
        assert_eq!(
            (out.errors, out.warnings, out.infos),
            (12, 12, 11),
            "{per_record} per record"
        );
        // Two kept files, then records of `per_record` findings each across the files'
        // boundaries (a file of many findings makes several; the last one may have fewer).
        let records = 31usize.div_ceil(per_record);
        assert_eq!(out.slots.len(), 2 + records, "{per_record} per record");
        for slot in &out.slots[2..] {
            let Out::Spilled(slot) = slot else {
                panic!("a record kept");
            };
            let bytes = out.store.get(*slot).expect("stored");
            let record: Vec<Finding> = codec::decode(&bytes).expect("decoded");
            assert!(record.len() <= per_record, "{per_record} per record");
        }
    }
}

/// The clusters inferred from the files each take a slot after the default's; files and
/// pools in none of them (beside them, or in a folder two definitions share) stay in the
/// default cluster; a configured cluster's files are never split.
#[test]
fn inferred_clusters_take_their_folders() {
    use crate::analysis::sources::clusters::{Anchor, AnchorKind, Stacks};
    let anchor = |kind, dir: &str, path: &str| Anchor {
        kind,
        dir: dir.to_string(),
        path: path.to_string(),
    };
    let stacks = Stacks::infer(vec![
        anchor(AnchorKind::Terraform, "spark/terraform", "spark/terraform"),
        anchor(AnchorKind::Terraform, "ml/terraform", "ml/terraform"),
        anchor(AnchorKind::Eksctl, "shared", "shared/a.yaml"),
        anchor(AnchorKind::Eksctl, "shared", "shared/b.yaml"),
    ]);
    assert!(stacks.split());
    let opts = LintOptions::default();
    let place = Placement::new(opts.clusters.len(), Some(Arc::new(stacks)), true);
    let default = opts.clusters.len();
    // Two clusters one definition defines; the shared folder defines none.
    assert_eq!(place.slots(), default + 3);
    let spark = place.of_file(&opts, "spark/examples/job.yaml");
    let ml = place.of_file(&opts, "ml/manifests/train.yaml");
    assert_ne!(spark, ml);
    assert!(spark > default && ml > default);
    assert_eq!(place.of_dir("spark/terraform"), spark);
    assert_eq!(place.of_dir("ml/terraform/modules/gke"), ml);
    assert_eq!(place.of_file(&opts, "shared/app.yaml"), default);
    assert_eq!(place.of_file(&opts, "README.yaml"), default);
    assert_eq!(place.base(spark), default);
    let def = place.definition(spark).unwrap();
    assert_eq!(def.stack().unwrap().root, "spark");
    assert!(def.holds("spark/examples/job.yaml"));
    assert!(!def.holds("ml/manifests/train.yaml"));
    assert!(place.definition(default).is_none());
    // One cluster the files define is a cluster of its own too: the files beside its stack
    // stay in the default cluster, never judged against its pools.
    let one = Stacks::infer(vec![anchor(
        AnchorKind::Terraform,
        "quickstart/aws",
        "quickstart/aws",
    )]);
    assert!(one.split());
    let place = Placement::new(default, Some(Arc::new(one)), true);
    assert_eq!(place.slots(), default + 2);
    assert_eq!(place.of_file(&opts, "samples/gcp/a.yaml"), default);
    assert_eq!(place.of_file(&opts, "quickstart/aws/app.yaml"), default + 1);
    // Grown through the folders named for infrastructure: the top holds every file.
    let infra = Stacks::infer(vec![anchor(AnchorKind::Terraform, "infra", "infra")]);
    let place = Placement::new(default, Some(Arc::new(infra)), true);
    assert_eq!(place.of_file(&opts, "apps/a.yaml"), default + 1);
    // Two definitions in one folder define no cluster: nothing is split.
    let two = Stacks::infer(vec![
        anchor(AnchorKind::Eksctl, "", "a.yaml"),
        anchor(AnchorKind::Eksctl, "", "b.yaml"),
    ]);
    assert!(!two.split());
    let none = Placement::new(default, None, false);
    assert_eq!(none.of_dir("x"), default);
}
