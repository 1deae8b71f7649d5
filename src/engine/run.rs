//! The run: every command's, in bounded memory (an unlimited budget for `--fix`, `explain`
//! and `matrix`, which need every result at hand).
//!
//! Files are linted as the walk finds them (`walk::stream`): worker threads take the next
//! file from the walk, so the run never holds a list of its paths.
//!
//! The cross-reference needs every node pool before it can judge any workload, and the output
//! is sorted across files, so a run cannot write a file's findings as soon as it has linted
//! it. Instead of keeping every file's results in memory until the end, each file's report is
//! kept as it is while the run's results fit a budget and past it encoded (`load::codec`) as
//! it comes out of the parallel per-file phase — its workloads in one record, its findings and
//! suppressions in another — so that beyond the budget only the node declarations (the
//! inventory) and what the workloads select on stay. The index of the files with results is
//! sorted externally (`index`): runs of it go to the same store.
//!
//! Then, file by file in output order: the file's records are read back, its workloads are
//! evaluated (verdicts are remembered per distinct signature for the whole run) and the
//! cross-reference rules run on them, its suppressions and the configuration's ignores are
//! applied, its findings are sorted, and the result is set aside the same way, to be read
//! back by the reporters one file at a time. Whole-run rules (`rules::Aggregate`) see each
//! file's workloads as they come and report once at the end, so no workload is read back
//! for them. The baseline is applied here, once, as the files' findings come out.
//!
//! Whatever the budget, the output is the same: `tests/budgets.rs` checks it on the corpus,
//! the fixtures and generated repositories.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::file::{FileReport, lint_one_with};
use super::options::{Input, LintOptions};
use crate::analysis::judgements::schedule::Evaluator;
use crate::analysis::sources::inventory::{Inventory, PlaceSources};
use crate::analysis::types::Relevant;
use crate::analysis::types::kueue::{Kueue, NO_KUEUE};
use crate::analysis::types::{NodeDecl, Place, Workload};
use crate::diagnostic::FindingSource;
use crate::diagnostic::{Finding, Severity};
use crate::engine::store::{Slot, Store, StoreError};
use crate::load::codec;
use crate::rules::{self, Aggregate, CrossCtx, RunCtx};
use crate::suppress::Suppression;

use super::index::{Index, Sorted};

/// A file's findings and suppressions, as spilled.
#[derive(Serialize)]
struct RestRef<'a> {
    findings: &'a [Finding],
    suppressions: &'a [Suppression],
}

/// [`RestRef`] read back.
#[derive(Deserialize)]
struct Rest {
    findings: Vec<Finding>,
    suppressions: Vec<Suppression>,
}

pub(super) enum Content {
    /// Records in the store (`None`: nothing of that kind).
    Spilled {
        workloads: Option<Slot>,
        rest: Option<Slot>,
    },
    /// A report kept as it is: within the budget, or one whose source keeps its text (stdin),
    /// which cannot be spilled.
    Kept(Box<FileReport>),
}

pub(super) struct Entry {
    pub(super) name: Arc<str>,
    /// Input order, for ties between equal names and for the order of node declarations.
    pub(super) index: usize,
    /// An `--inventory` file: its workloads are not linted.
    pub(super) inventory_only: bool,
    pub(super) content: Content,
}

/// The per-file phase's results, spilled.
pub struct Spilled {
    store: Store,
    /// One entry per file with results, sorted externally.
    index: Index,
    /// Node declarations with their inputs' numbers and clusters (`None`: every cluster's;
    /// boxed: the inventory moves them out one by one, so they are not held twice while it is
    /// built).
    nodes: Vec<(usize, Option<usize>, Box<NodeDecl>)>,
    /// The folder each node declaration's file is in (a Terraform pool's: its root module's),
    /// by input number, for the clusters inferred from the files (`sources::clusters`).
    homes: std::collections::HashMap<usize, Arc<str>>,
    /// What defines a cluster among the default cluster's files (`sources::clusters`).
    anchors: Vec<crate::analysis::sources::clusters::Anchor>,
    /// The label keys without a prefix the run's files mention where no pool is read (see
    /// `analysis::sources::mentions`).
    mentions: std::collections::HashSet<Box<str>>,
    /// The stored source of each file with node declarations (see `Place::Stored`).
    places: Vec<Slot>,
    /// The label sets of the node declarations: copies of a template share one.
    label_sets: std::collections::HashSet<crate::analysis::types::Labels>,
    relevant: Relevant,
    /// Namespaces and RuntimeClasses with their inputs' numbers and clusters (see `nodes`).
    admission: Vec<(
        usize,
        Option<usize>,
        crate::analysis::judgements::admission::Fact,
    )>,
    /// The accumulators of the whole-run rules (see `rules::Aggregate`), per cluster.
    aggregates: Vec<Vec<Box<dyn Aggregate>>>,
    /// The default cluster's accumulators by folder of the files: the clusters inferred from
    /// the files (known once every file is read) each take their folders' (see
    /// [`Placement`]).
    dir_aggregates: std::collections::HashMap<Arc<str>, Vec<Box<dyn Aggregate>>>,
    /// The Kueue queues and flavors of the linted files with their inputs' numbers, per
    /// cluster.
    kueue: Vec<Vec<(usize, Kueue)>>,
    /// The Helm charts whose templates' notices become one each (`engine::charts`).
    charts: super::charts::Charts,
    /// The notices folded into one per folder, kind or run (`engine::folds`).
    folds: super::folds::Folds,
    /// What makes nodes the files do not show, by file and line
    /// (`analysis::sources::provisioners`).
    makers: Vec<(
        crate::analysis::sources::provisioners::Maker,
        Arc<str>,
        usize,
    )>,
    /// The folders files apply to their cluster: (the applying file, the folder)
    /// (`analysis::sources::links`).
    links: Vec<(String, String)>,
    /// Inputs linted (not counting `--inventory` files).
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    /// The Terraform files, parsed and evaluated by directory once every file is linted.
    terraform: Vec<super::terraform::TfInput>,
    /// Their findings (syntax, repeated keys, evaluation errors), joining their files'.
    terraform_findings: Vec<Finding>,
}

/// Lints `inputs` (then the `--inventory` files, whose workloads are ignored) in parallel and
/// spills each report as it comes. `inputs` may still be walking: worker threads take the
/// next input from it as they become free, so no list of the inputs is ever held. Numbers
/// in input order tie equal names and order the node declarations.
pub fn lint_spilled(
    inputs: impl Iterator<Item = Input> + Send,
    inventory: Vec<(Option<usize>, Input)>,
    only: &[usize],
    opts: &LintOptions,
) -> Spilled {
    let budget = opts.budget;
    let shared = Mutex::new(Spilled {
        store: Store::new(),
        index: Index::new(budget),
        nodes: Vec::new(),
        homes: std::collections::HashMap::new(),
        anchors: Vec::new(),
        mentions: std::collections::HashSet::new(),
        places: Vec::new(),
        label_sets: std::collections::HashSet::new(),
        relevant: Relevant::default(),
        admission: Vec::new(),
        aggregates: (0..opts.slots())
            .map(|_| opts.rules.new_aggregates())
            .collect(),
        dir_aggregates: std::collections::HashMap::new(),
        kueue: (0..opts.slots()).map(|_| Vec::new()).collect(),
        charts: super::charts::Charts::new(),
        folds: super::folds::Folds::default(),
        makers: Vec::new(),
        links: Vec::new(),
        files: 0,
        documents: 0,
        objects: 0,
        terraform: Vec::new(),
        terraform_findings: Vec::new(),
    });
    let inventory_names: Vec<String> = inventory.iter().map(|(_, i)| i.name()).collect();
    // Each input with its cluster: an input's is its file's, an inventory file's is the
    // cluster it was given for (`None`: all).
    let all = inputs
        .filter_map(|i| {
            // The file's cluster, worked out once; `--cluster` skips the others' files.
            let slot = opts.slot_of(&i.name());
            (only.is_empty() || only.contains(&slot)).then_some((false, Some(slot), i))
        })
        .chain(inventory.into_iter().map(|(c, i)| (true, c, i)))
        .enumerate()
        .map(|(n, (inv, c, i))| (n, inv, c, i));
    // Files given as inventory are the clusters' (or every cluster's) pools: when the walk
    // finds them too, their pools are not a second time the pools of the cluster they sit in.
    let inventory_names: std::collections::HashSet<String> = inventory_names.into_iter().collect();
    // Estimated bytes of the reports kept as they are.
    let kept = AtomicUsize::new(0);
    // Whether a report larger than the whole budget is kept as it is (see below).
    let big_kept = std::sync::atomic::AtomicBool::new(false);
    all.par_bridge()
        .for_each(|(index, inventory_only, cluster, input)| {
            let name: Arc<str> = input.name().into();
            let on_disk = matches!(input, Input::Entry(_));
            let disk_path = match &input {
                Input::Entry(crate::load::walk::Entry::File(path)) => Some(path.clone()),
                _ => None,
            };
            // A Terraform file is parsed in the Terraform step, once (see `terraform::evaluate`).
            let mut report = lint_one_with(input, opts, super::terraform::Parse::Later);
            // Vendored code and test data belong to some other cluster: their workloads and the
            // pools they find are left out of the cross-reference (what the user declares of
            // them still counts); their own mistakes are still reported.
            let fixture = !inventory_only && super::fixtures::is_fixture(&name, &opts.roots);
            if inventory_only || fixture {
                report.workloads.clear();
            }
            let facts = super::admission::facts(&mut report, fixture);
            if fixture {
                report
                    .findings
                    .retain(|f| !rules::quiet_in_fixtures(f.rule));
                // A parser's negative test: test data named invalid is broken on purpose.
                if super::fixtures::named_invalid(&name) {
                    for f in &mut report.findings {
                        if f.rule == rules::YAML_SYNTAX_ERROR.name && f.severity > Severity::Info {
                            f.severity = Severity::Info;
                            f.message = format!(
                                "{} (test data named as invalid: a negative test's input, most likely broken on purpose)",
                                f.message
                            )
                            .into();
                        }
                    }
                }
            }
            // A Helm template's notice becomes its chart's.
            let chart = disk_path
                .as_deref()
                .filter(|_| !inventory_only)
                .and_then(|path| super::charts::fold(&mut report, path, opts));
            // Other notices become one per folder, kind or run.
            let mut folds = super::folds::Folds::default();
            if on_disk && !inventory_only {
                folds.take(&mut report, opts);
            }
            let mut nodes = std::mem::take(&mut report.nodes);
            // A `.tf` file's pools come from its directory's evaluation, after the walk; the
            // walked copy of a file also given as inventory counts as the inventory's.
            let terraform = report
                .terraform
                .take()
                .filter(|_| inventory_only || !inventory_names.contains(&*name));
            let terraform = terraform.map(|mut file| {
                // Read again from the disk if its directory is evaluated: most are not.
                if let Some(path) = &disk_path {
                    file.forget_text(path.clone());
                }
                file
            });
            let terraform = terraform.map(|file| super::terraform::TfInput {
                index,
                cluster,
                inventory_only,
                fixture,
                on_disk,
                file: *file,
            });
            let mentions = std::mem::take(&mut report.label_mentions);
            let makers = std::mem::take(&mut report.makers);
            let links = std::mem::take(&mut report.links);
            // Like workloads: the queues of the cluster's own linted files.
            let kueue = std::mem::take(&mut report.kueue);
            let kueue = (!inventory_only && !fixture && !kueue.is_empty()).then_some(kueue);
            if inventory_only {
                // The user named these files as the cluster's pools.
                nodes.iter_mut().for_each(|n| n.declared = true);
            } else if inventory_names.contains(&*name) {
                nodes.clear();
            } else if fixture {
                nodes.retain(|n| n.declared);
            }
            // The declarations' sources, encoded here (outside the lock), stored below.
            let sources = encode_places(&nodes);
            let relevant = Relevant::of(&report.workloads);
            let has_workloads = !report.workloads.is_empty();
            let mut aggregates = opts.rules.new_aggregates();
            for a in &mut aggregates {
                a.add(&report.workloads);
            }
            let (documents, objects) = (report.documents, report.objects);
            // Reports stay as they are within the budget (`None`); past it they are encoded
            // (also `None` when they cannot be: a source with its text). One report larger
            // than the whole budget stays as it is too, outside the budget: the
            // cross-reference holds a file's whole report when it comes to it anyway, so
            // encoding it would only cost writing and reading it back (a pull request's one
            // file of half a million findings); every other one is encoded, so at most one
            // such report is held. A budget of 0 (the tests') spills every report.
            let size = estimate(&report);
            let encoded = if size == 0 || kept.fetch_add(size, Ordering::Relaxed) + size <= budget {
                None
            } else {
                kept.fetch_sub(size, Ordering::Relaxed);
                let alone = budget > 0 && size > budget && !big_kept.swap(true, Ordering::Relaxed);
                if alone { None } else { encode(&report).ok() }
            };
            let mut guard = shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let s = &mut *guard;
            // `--inventory` files are not inputs: their documents are not counted.
            if !inventory_only {
                s.files += 1;
                s.documents += documents;
                s.objects += objects;
            }
            if let Some(chart) = chart {
                super::charts::add(&mut s.charts, chart);
            }
            if !folds.is_empty() {
                s.folds.merge(folds);
            }
            if !inventory_only && !fixture {
                s.makers.extend(
                    makers
                        .into_iter()
                        .map(|(m, line)| (m, Arc::clone(&name), line)),
                );
                s.links
                    .extend(links.into_iter().map(|l| (name.to_string(), l)));
            }
            if let Some((source, bytes)) = sources {
                store_places(&mut nodes, &source, s.store.put(&bytes), &mut s.places);
            }
            s.terraform.extend(terraform);
            s.mentions.extend(mentions);
            // The clusters the default cluster's files define (see `sources::clusters`).
            if !inventory_only && !fixture && cluster == Some(opts.clusters.len()) {
                s.anchors
                    .extend(crate::analysis::sources::clusters::anchors_of_file(
                        &name, &nodes,
                    ));
            }
            if !nodes.is_empty() {
                s.homes.insert(
                    index,
                    crate::analysis::sources::clusters::dir_of(&name).into(),
                );
            }
            for mut n in nodes {
                n.labels = std::mem::take(&mut n.labels).share(&mut s.label_sets);
                s.nodes.push((index, cluster, Box::new(n)));
            }
            s.relevant.merge(relevant);
            if let (Some(k), Some(list)) = (kueue, cluster.and_then(|c| s.kueue.get_mut(c))) {
                list.push((index, k));
            }
            s.admission
                .extend(facts.into_iter().map(|f| (index, cluster, f)));
            if cluster == Some(opts.clusters.len()) && !inventory_only {
                // Kept by folder until the inferred clusters are known.
                if has_workloads {
                    let dir = crate::analysis::sources::clusters::dir_of(&name);
                    match s.dir_aggregates.get_mut(dir) {
                        Some(runs) => {
                            for (run, file) in runs.iter_mut().zip(aggregates) {
                                run.merge(file);
                            }
                        }
                        None => {
                            s.dir_aggregates.insert(dir.into(), aggregates);
                        }
                    }
                }
            } else if let Some(slot) = cluster.and_then(|c| s.aggregates.get_mut(c)) {
                for (run, file) in slot.iter_mut().zip(aggregates) {
                    run.merge(file);
                }
            }
            // Most files have nothing to report: they need no entry.
            if size == 0 {
                return;
            }
            let content = match encoded {
                Some((workloads, rest)) => Content::Spilled {
                    workloads: workloads.map(|b| s.store.put(&b)),
                    rest: rest.map(|b| s.store.put(&b)),
                },
                None => Content::Kept(Box::new(report)),
            };
            s.index.push(
                Entry {
                    name,
                    index,
                    inventory_only,
                    content,
                },
                &mut s.store,
            );
        });
    let mut spilled = shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let t = std::time::Instant::now();
    let evaluated = super::terraform::evaluate(std::mem::take(&mut spilled.terraform), opts);
    spilled.terraform_findings = evaluated.findings;
    let pools = evaluated.pools;
    spilled
        .anchors
        .extend(evaluated.anchors.into_iter().map(|dir| {
            crate::analysis::sources::clusters::Anchor {
                kind: crate::analysis::sources::clusters::AnchorKind::Terraform,
                path: dir.clone(),
                dir,
            }
        }));
    add_terraform_pools(&mut spilled, pools);
    super::timing("Terraform evaluation", t.elapsed());
    add_workspace(&mut spilled, opts);
    spilled
}

/// The language server's other workspace files (`LintOptions::workspace`), counted as if
/// they were linted after the run's inputs: their pools in their clusters with their
/// folders, their cluster definitions, their Kueue objects.
fn add_workspace(s: &mut Spilled, opts: &LintOptions) {
    let w = &opts.workspace;
    // Numbered after every input (inputs are numbered from 0, one each: far below this).
    let mut index = usize::MAX / 2;
    let mut last: Option<&str> = None;
    for (file, slot, n) in &w.nodes {
        if last != Some(&**file) {
            index += 1;
            last = Some(file);
            s.homes.insert(
                index,
                crate::analysis::sources::clusters::dir_of(file).into(),
            );
        }
        let mut n = n.clone();
        n.labels = std::mem::take(&mut n.labels).share(&mut s.label_sets);
        s.nodes.push((index, Some(*slot), Box::new(n)));
    }
    s.anchors.extend(w.anchors.iter().cloned());
    s.mentions.extend(w.mentions.iter().cloned());
    for (slot, k) in &w.kueue {
        index += 1;
        if let Some(list) = s.kueue.get_mut(*slot) {
            list.push((index, k.clone()));
        }
    }
}

/// Adds the pools Terraform's evaluation found, their places stored as a file's are.
fn add_terraform_pools(s: &mut Spilled, pools: Vec<super::terraform::TfPool>) {
    // By the file each pool is located in.
    // In the order first met, each file found by its address (one lookup per pool).
    let mut by_file: Vec<(Arc<crate::load::SourceFile>, Vec<super::terraform::TfPool>)> =
        Vec::new();
    let mut slot: std::collections::HashMap<*const crate::load::SourceFile, usize> =
        std::collections::HashMap::new();
    for p in pools {
        let Place::Here(loc) = &p.decl.loc else {
            continue;
        };
        let source = Arc::clone(&loc.source);
        let i = *slot.entry(Arc::as_ptr(&source)).or_insert_with(|| {
            by_file.push((source, Vec::new()));
            by_file.len() - 1
        });
        if let Some((_, list)) = by_file.get_mut(i) {
            list.push(p);
        }
    }
    for (_, list) in by_file {
        let (mut nodes, meta): (Vec<NodeDecl>, Vec<(usize, Option<usize>)>) = list
            .into_iter()
            .map(|p| (p.decl, (p.index, p.cluster)))
            .unzip();
        if let Some((source, bytes)) = encode_places(&nodes) {
            let slot = s.store.put(&bytes);
            store_places(&mut nodes, &source, slot, &mut s.places);
        }
        for (mut n, (index, cluster)) in nodes.into_iter().zip(meta) {
            n.labels = std::mem::take(&mut n.labels).share(&mut s.label_sets);
            s.nodes.push((index, cluster, Box::new(n)));
        }
    }
}

/// The source the node declarations of one file point into, and a copy with only the
/// places' positions encoded as a record of its own; `None` without declarations, or when
/// the copy cannot be encoded (then the places stay as they are).
fn encode_places(nodes: &[NodeDecl]) -> Option<(Arc<crate::load::SourceFile>, Vec<u8>)> {
    let source = nodes.iter().find_map(|n| match &n.loc {
        Place::Here(loc) => Some(Arc::clone(&loc.source)),
        Place::Stored { .. } => None,
    })?;
    // Only the places' positions: the file's own findings may have recorded thousands, and
    // the record is read back for every finding that names one of its pools.
    let spans = nodes.iter().flat_map(|n| n.places().map(Place::span));
    let offsets: Vec<usize> = spans.flat_map(|s| [s.start, s.end.max(s.start)]).collect();
    let trimmed = source.lite(offsets);
    let bytes = codec::encode(&SourceRecord(trimmed)).ok()?;
    Some((source, bytes))
}

/// A source as a record of its own (a lite source: name and recorded positions).
#[derive(Serialize, Deserialize)]
pub struct SourceRecord(
    #[serde(with = "crate::load::codec::source")] pub Arc<crate::load::SourceFile>,
);

/// The sources of the run's node declarations, in its store: one record per file.
pub struct StoredSources {
    pub store: Arc<Store>,
    /// The record of each file's source (one list shared by every cluster's inventory).
    pub files: Arc<Vec<Slot>>,
}

impl PlaceSources for StoredSources {
    fn source(&self, file: u32) -> Result<Arc<crate::load::SourceFile>, String> {
        let slot = self
            .files
            .get(file as usize)
            .ok_or_else(|| "a place outside the inventory's files".to_string())?;
        let bytes = self.store.get(*slot).map_err(|e| e.to_string())?;
        let SourceRecord(source) = codec::decode(&bytes)?;
        Ok(source)
    }
}

/// Points the places of `nodes` in `source` at its record, stored at `slot`, so that the run
/// keeps no source per file with node declarations.
fn store_places(
    nodes: &mut [NodeDecl],
    source: &Arc<crate::load::SourceFile>,
    slot: Slot,
    places: &mut Vec<Slot>,
) {
    let Ok(file) = u32::try_from(places.len()) else {
        return;
    };
    places.push(slot);
    for n in nodes {
        for place in n.places_mut() {
            if let Place::Here(loc) = place
                && Arc::ptr_eq(&loc.source, source)
            {
                *place = Place::Stored {
                    file,
                    span: loc.span,
                };
            }
        }
    }
}

/// Roughly what a report holds in memory (for the budget; workload and suppression sizes
/// measured on the corpus).
fn estimate(report: &FileReport) -> usize {
    let items = findings_size(&report.findings)
        + report.workloads.len() * 900
        + report.suppressions.len() * 200;
    // A file with nothing to report keeps no entry.
    if items == 0 { 0 } else { items + 200 }
}

/// Roughly what these findings hold in memory.
fn findings_size(findings: &[Finding]) -> usize {
    findings.iter().map(Finding::approx_size).sum()
}

/// A report's two records, its workloads and the rest (`None`: nothing of that kind).
type Records = (Option<Vec<u8>>, Option<Vec<u8>>);

/// The records of a report; `Err` when it cannot be spilled.
fn encode(report: &FileReport) -> Result<Records, ()> {
    let workloads = if report.workloads.is_empty() {
        None
    } else {
        Some(codec::encode(&report.workloads).map_err(|_| ())?)
    };
    let rest = if report.findings.is_empty() && report.suppressions.is_empty() {
        None
    } else {
        Some(
            codec::encode(&RestRef {
                findings: &report.findings,
                suppressions: &report.suppressions,
            })
            .map_err(|_| ())?,
        )
    };
    Ok((workloads, rest))
}

/// One file's output: kept within the budget (or when a source still holds its text, as
/// stdin's does), spilled past it.
enum Out {
    Spilled(Slot),
    Kept(Vec<Finding>),
}

/// The sorted findings of a streamed run, spilled, with their counts.
pub struct SpilledFindings {
    store: Store,
    /// In output order: the first files' findings as they are, then records of findings of
    /// consecutive files (one slot per file would grow with the run).
    slots: Vec<Out>,
    /// Findings gathered for the next record (empty once the run is finished).
    pending: Vec<Finding>,
    /// Findings per record.
    per_record: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Findings the baseline hid.
    pub baselined: usize,
}

impl SpilledFindings {
    fn new(budget: usize) -> Self {
        SpilledFindings {
            store: Store::new(),
            slots: Vec::new(),
            pending: Vec::new(),
            // Small records with a small budget, so that the tests cross many boundaries.
            per_record: (budget / 16_384).clamp(4, 128),
            errors: 0,
            warnings: 0,
            infos: 0,
            baselined: 0,
        }
    }

    /// Adds the next file's findings: kept as they are (`keep`, within the budget) or
    /// gathered into the next record.
    fn push(&mut self, mut findings: Vec<Finding>, keep: bool) {
        for f in &findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
        }
        if keep {
            self.flush();
            self.slots.push(Out::Kept(findings));
            return;
        }
        self.pending.append(&mut findings);
        if self.pending.len() < self.per_record {
            return;
        }
        // A file of many findings makes several records: the reporters read back one at a
        // time, and no record is encoded in a buffer the size of the whole file's.
        let mut all = std::mem::take(&mut self.pending).into_iter();
        loop {
            let record: Vec<Finding> = all.by_ref().take(self.per_record).collect();
            if record.len() < self.per_record {
                self.pending = record;
                return;
            }
            self.write(record);
        }
    }

    /// Writes the gathered findings as one record.
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let findings = std::mem::take(&mut self.pending);
            self.write(findings);
        }
    }

    /// Writes `findings` as one record (kept as they are if they cannot be).
    fn write(&mut self, mut findings: Vec<Finding>) {
        trim_foreign_sources(&mut findings);
        let out = match codec::encode(&findings) {
            Ok(bytes) => Out::Spilled(self.store.put(&bytes)),
            Err(_) => Out::Kept(findings),
        };
        self.slots.push(out);
    }

    /// Every finding, read back into one vector (with an unlimited budget, nothing is).
    pub fn to_vec(&self) -> io::Result<Vec<Finding>> {
        let mut all = Vec::with_capacity(self.errors + self.warnings + self.infos);
        self.each(&mut |f| {
            all.push(f.clone());
            Ok(())
        })?;
        Ok(all)
    }

    /// Is any finding at or above `severity`?
    pub fn any_at_least(&self, severity: Severity) -> bool {
        match severity {
            Severity::Error => self.errors > 0,
            Severity::Warning => self.errors + self.warnings > 0,
            Severity::Info => self.errors + self.warnings + self.infos > 0,
        }
    }
}

impl FindingSource for SpilledFindings {
    fn each(&self, f: &mut dyn FnMut(&Finding) -> io::Result<()>) -> io::Result<()> {
        for out in &self.slots {
            match out {
                Out::Spilled(slot) => {
                    let bytes = self.store.get(*slot).map_err(io::Error::other)?;
                    let findings: Vec<Finding> = codec::decode(&bytes).map_err(io::Error::other)?;
                    findings.iter().try_for_each(&mut *f)?;
                }
                Out::Kept(findings) => findings.iter().try_for_each(&mut *f)?,
            }
        }
        Ok(())
    }
}

/// What the whole run looked at, for `explain` and `matrix`: the node pools, every workload
/// (in input order) and their verdicts. Only gathered when asked for (see [`finish_spilled`]):
/// it holds every workload.
pub struct View {
    pub inventory: Inventory,
    pub workloads: Vec<Workload>,
    pub eval: crate::analysis::judgements::schedule::Evaluation,
    /// The Kueue queues and flavors of the viewed cluster's files.
    pub kueue: Kueue,
    /// The clusters inferred from the files when there are several (see
    /// `sources::clusters`): each with its own pools and workloads, judged alone; this view
    /// then holds the files and pools in none of them.
    pub clusters: Vec<View>,
}

/// Runs the cross-reference file by file over the spilled reports and spills the sorted,
/// suppressed, filtered findings. `late` findings (the configuration's unmatched globs) join
/// the output as they are; `known` is the baseline, whose findings are dropped. Files are
/// worked on in parallel, a batch at a time, and their results kept in output order. With
/// `view`, every workload is kept too and the run's [`View`] returned.
pub fn finish_spilled(
    spilled: Spilled,
    opts: &LintOptions,
    late: Vec<Finding>,
    mut known: Option<crate::baseline::Known>,
    view: bool,
    view_slot: usize,
) -> Result<(SpilledFindings, Option<View>), StoreError> {
    let Spilled {
        store,
        index,
        mut nodes,
        mut relevant,
        admission,
        label_sets,
        aggregates,
        dir_aggregates,
        places,
        kueue,
        charts,
        folds,
        makers,
        links,
        homes,
        anchors,
        mentions,
        terraform_findings,
        ..
    } = spilled;
    let mentions = Arc::new(mentions);
    // In path order, whatever order the threads brought them in: the first that opens a
    // cluster is the one its findings name.
    let mut makers = makers;
    makers.sort_by(|a, b| (&a.1, a.2, a.0).cmp(&(&b.1, b.2, b.0)));
    let mut links = links;
    links.sort();
    // The inventory reads its stored places back from the store while the files are worked
    // on: both share it.
    let store = Arc::new(store);
    let places = Arc::new(places);
    drop(label_sets);
    nodes.sort_by_key(|(i, _, _)| *i);
    let (stacks, definition, split) =
        inferred_cluster(&nodes, &homes, anchors, &links, opts.clusters.len());
    let place = Placement::new(opts.clusters.len(), stacks.clone(), split);
    // Each cluster's declarations, in input order: its own files', then those given for every
    // cluster (`--inventory`, the config's pools). A configured cluster is declared by its
    // entry in the config. A pool found in the default cluster's files goes to the inferred
    // cluster its folder lies in (see [`Placement`]); one declared for the default cluster
    // (`--inventory` for it) to every inferred cluster too.
    let slots = place.slots();
    let mut per_slot: Vec<Vec<Box<NodeDecl>>> = (0..slots).map(|_| Vec::new()).collect();
    let default = opts.clusters.len();
    for (index, scope, n) in nodes {
        // The slot that takes the declaration itself, and those that take copies.
        let (one, copies) = match scope {
            Some(s) if s == default && !n.declared => {
                let home = match &n.terraform {
                    Some(p) => crate::analysis::sources::clusters::ClusterDef::home(&p.root),
                    None => homes.get(&index).map_or("", |h| &**h),
                };
                // An inferred cluster's pools are its own: the files in no inferred
                // cluster are never judged against them (no file links them to it).
                (place.of_dir(home), 0..0)
            }
            Some(s) if s == default => (s, default + 1..slots),
            Some(s) => (s, 0..0),
            None => (0, 1..slots),
        };
        for t in copies {
            if let Some(list) = per_slot.get_mut(t) {
                list.push(n.clone());
            }
        }
        if let Some(list) = per_slot.get_mut(one) {
            list.push(n);
        }
    }
    drop(homes);
    let admissions = super::admission::build(admission, opts, &mut relevant);
    let t = std::time::Instant::now();
    let mut declared = 0;
    let inventories: Vec<Inventory> = per_slot
        .into_iter()
        .enumerate()
        .map(|(s, mut decls)| {
            decls.extend(opts.extra_nodes.iter().cloned().map(Box::new));
            if s < opts.clusters.len() {
                decls.iter_mut().for_each(|d| d.declared = true);
            }
            declared += decls.len();
            let mut inventory = Inventory::build_for(decls, &relevant);
            if let Some(def) = place.definition(s) {
                inventory.set_cluster(def);
            } else if s == default {
                if let Some(def) = &definition {
                    inventory.set_cluster(def.clone());
                } else if let Some(stacks) = &stacks {
                    inventory.set_stacks(Arc::clone(stacks));
                }
            }
            if let Some(why) = open_world(&makers, s, &place, opts, &inventory) {
                inventory.set_open(why);
            }
            inventory.set_mentions(Arc::clone(&mentions));
            inventory.set_places(Box::new(StoredSources {
                store: Arc::clone(&store),
                files: Arc::clone(&places),
            }));
            inventory
        })
        .collect();
    let evaluators: Vec<Evaluator<'_>> = inventories
        .iter()
        .map(|inventory| Evaluator::new(inventory, &relevant, &opts.settings))
        .collect();
    super::timing(
        &format!(
            "inventory ({declared} node declarations, {} pools, {} classes)",
            inventories.iter().map(|i| i.pools.len()).sum::<usize>(),
            evaluators.iter().map(Evaluator::classes).sum::<usize>()
        ),
        t.elapsed(),
    );
    let cross: Vec<_> = opts.rules.enabled_cross().collect();
    let kueue: Vec<Kueue> = kueue.into_iter().map(Kueue::in_input_order).collect();
    let run = Run {
        store: &store,
        inventories: &inventories,
        evaluators: &evaluators,
        admissions: &admissions,
        cross: &cross,
        kueue: &kueue,
        opts,
        place: &place,
        view: view.then_some(view_slot),
    };

    // Findings that belong to no spilled file or join one: the whole-run rules', the
    // configuration's, and the late ones.
    let mut loose: BTreeMap<Arc<str>, Vec<Finding>> = BTreeMap::new();
    let t = std::time::Instant::now();
    let mut aggregates = aggregates;
    aggregates.resize_with(slots, || opts.rules.new_aggregates());
    let mut dir_aggregates: Vec<_> = dir_aggregates.into_iter().collect();
    dir_aggregates.sort_by(|a, b| a.0.cmp(&b.0));
    for (dir, runs) in dir_aggregates {
        if let Some(slot) = aggregates.get_mut(place.of_dir(&dir)) {
            for (run, folder) in slot.iter_mut().zip(runs) {
                run.merge(folder);
            }
        }
    }
    for (slot, aggregates) in aggregates.into_iter().enumerate() {
        let (Some(inventory), Some(evaluator), Some(admission)) = (
            inventories.get(slot),
            evaluators.get(slot),
            admissions.get(place.base(slot)),
        ) else {
            continue;
        };
        let ctx = RunCtx {
            inventory,
            evaluator,
            settings: &opts.settings,
            admission,
        };
        for aggregate in aggregates {
            let mut found = Vec::new();
            aggregate.report(&ctx, &mut found);
            if slot == default && place.slots() > default + 1 {
                // A pool of an inferred cluster is judged there, with its own workloads.
                found.retain(|f| place.of_file(opts, &f.file) == default);
            }
            judged_in(inventory, opts.cluster_name(slot), &mut found);
            for f in found {
                loose.entry(Arc::clone(&f.file)).or_default().push(f);
            }
        }
    }
    super::timing("whole-run rules", t.elapsed());
    for f in opts
        .config_findings
        .iter()
        .filter(|f| opts.rules.is_enabled(f.rule))
    {
        loose
            .entry(Arc::clone(&f.file))
            .or_default()
            .push(f.clone());
    }
    for f in super::charts::notices(charts)
        .into_iter()
        .chain(folds.notices())
        .chain(terraform_findings)
    {
        loose.entry(Arc::clone(&f.file)).or_default().push(f);
    }
    let mut late_by_file: BTreeMap<Arc<str>, Vec<Finding>> = BTreeMap::new();
    for f in late {
        late_by_file.entry(Arc::clone(&f.file)).or_default().push(f);
    }
    // The files in output order, each with its entries and loose findings, made a batch at
    // a time (a list of every file would grow with the run).
    let mut groups = Groups {
        entries: index.into_sorted(&store)?,
        loose,
        late: late_by_file,
    }
    .peekable();

    // Half the budget for the output (the reports' part is mostly freed by now).
    let (budget, mut kept) = (opts.budget / 2, 0usize);
    let mut out = SpilledFindings::new(budget);
    let mut seen: Vec<(usize, usize, Vec<Workload>)> = Vec::new();
    let t = std::time::Instant::now();
    loop {
        let batch: Vec<Group> = groups.by_ref().take(BATCH).collect::<Result<_, _>>()?;
        if batch.is_empty() {
            break;
        }
        let done: Vec<FileDone> = batch
            .into_par_iter()
            .map(|g| run.file(g))
            .collect::<Result<_, StoreError>>()?;
        // The last batch's findings are all in memory now: they stay so for the reporters
        // (spilling them would only write and read them back), unless every record is to be
        // spilled (a budget of 0, the tests' setting).
        let last = budget > 0 && groups.peek().is_none();
        for FileDone {
            mut findings,
            slot,
            workloads,
        } in done
        {
            seen.extend(workloads.into_iter().map(|(i, w)| (i, slot, w)));
            // The baseline: the one place its findings are dropped.
            if let Some(known) = &mut known {
                out.baselined += crate::baseline::filter_with(&mut findings, known);
            }
            if findings.is_empty() {
                continue;
            }
            kept += findings_size(&findings);
            out.push(findings, last || kept <= budget);
        }
    }
    out.flush();
    if let Some(e) = inventories.iter().find_map(Inventory::failure) {
        return Err(StoreError::Places(e));
    }
    super::timing(
        &format!(
            "files, cross-reference and output records ({} signatures)",
            evaluators.iter().map(Evaluator::signatures).sum::<usize>()
        ),
        t.elapsed(),
    );
    // Input order, as the files were given.
    seen.sort_by_key(|(index, _, _)| *index);
    // The viewed cluster's, then each cluster inferred in it (see [`Placement`]).
    let viewed: Vec<usize> = if view {
        std::iter::once(view_slot)
            .chain(
                (view_slot == default)
                    .then_some(default + 1..slots)
                    .into_iter()
                    .flatten(),
            )
            .collect()
    } else {
        Vec::new()
    };
    let mut evaluated = Vec::new();
    for &slot in &viewed {
        let Some(evaluator) = evaluators.get(slot) else {
            continue;
        };
        let workloads: Vec<Workload> = seen
            .iter_mut()
            .filter(|(_, s, _)| *s == slot)
            .flat_map(|(_, _, w)| std::mem::take(w))
            .collect();
        let eval = evaluator.evaluate(&workloads);
        evaluated.push((slot, workloads, eval));
    }
    drop(evaluators);
    let mut inventories: Vec<Option<Inventory>> = inventories.into_iter().map(Some).collect();
    let mut parts: Vec<View> = Vec::new();
    for (slot, workloads, eval) in evaluated {
        let Some(inventory) = inventories.get_mut(slot).and_then(Option::take) else {
            continue;
        };
        let kueue = kueue.get(place.base(slot)).cloned().unwrap_or_default();
        parts.push(View {
            inventory,
            workloads,
            eval,
            kueue,
            clusters: Vec::new(),
        });
    }
    let view = (!parts.is_empty()).then(|| {
        let mut main = parts.remove(0);
        main.clusters = parts;
        main
    });
    Ok((out, view))
}

/// The cluster the default cluster's files define, when they define one and every pool
/// found among them lies in it (see `sources::clusters`): one anchor's stack holds them all.
/// Pools given for every cluster (`--inventory`, the config's) do not count: they are
/// declared. With several stacks, at least one of which a single anchor defines, there is no
/// one definition: the run is split (the third value), each such stack judged alone (see
/// [`Placement`]).
fn inferred_cluster(
    nodes: &[(usize, Option<usize>, Box<NodeDecl>)],
    homes: &std::collections::HashMap<usize, Arc<str>>,
    anchors: Vec<crate::analysis::sources::clusters::Anchor>,
    links: &[(String, String)],
    default: usize,
) -> (
    Option<Arc<crate::analysis::sources::clusters::Stacks>>,
    Option<crate::analysis::sources::clusters::ClusterDef>,
    bool,
) {
    use crate::analysis::sources::clusters::{ClusterDef, Stacks};
    if anchors.is_empty() {
        return (None, None, false);
    }
    let mut stacks = Stacks::infer(anchors);
    stacks.link(links);
    let stacks = Arc::new(stacks);
    if stacks.split() {
        return (Some(stacks), None, true);
    }
    // The one stack every found pool lies in; `None` when some lies in none, or they lie in
    // several.
    let mut one: Option<Option<usize>> = None;
    for (index, scope, n) in nodes {
        if *scope != Some(default) || n.declared {
            continue;
        }
        let home = match &n.terraform {
            Some(p) => ClusterDef::home(&p.root),
            None => homes.get(index).map_or("", |h| &**h),
        };
        let here = stacks.of_dir(home);
        match one {
            None => one = Some(here),
            Some(s) if s != here => one = Some(None),
            Some(_) => {}
        }
    }
    let def = one
        .flatten()
        .filter(|&s| stacks.get(s).and_then(|st| st.anchor()).is_some())
        .map(|stack| ClusterDef {
            stacks: Arc::clone(&stacks),
            stack,
        });
    (Some(stacks), def, false)
}

/// The cluster each file and each found pool is judged in. The configured clusters (`clusters:`
/// in the config) take the files their paths match; the rest are the default cluster's. When
/// the default cluster's files define several clusters (see `sources::clusters`), each stack
/// one anchor defines becomes a cluster of its own, a slot after the default's: its files are
/// judged against the pools found in its folder (and those given for every cluster) only. The
/// files in none of them stay in the default cluster and are judged against the found pools
/// that lie in no inferred cluster only: nothing links them to one (its whole-run rules report
/// no pool of an inferred cluster). Admission (Namespaces,
/// RuntimeClasses) and Kueue objects stay the default cluster's, shared by those inferred in
/// it.
pub(crate) struct Placement {
    default: usize,
    stacks: Option<Arc<crate::analysis::sources::clusters::Stacks>>,
    /// Each stack's slot (`None`: its files stay in the default cluster).
    stack_slots: Vec<Option<usize>>,
    /// The stack of each slot after the default's.
    slot_stacks: Vec<usize>,
    slots: usize,
}

impl Placement {
    pub(crate) fn new(
        default: usize,
        stacks: Option<Arc<crate::analysis::sources::clusters::Stacks>>,
        split: bool,
    ) -> Placement {
        let mut slots = default + 1;
        let stack_slots = match (&stacks, split) {
            (Some(st), true) => st
                .stacks
                .iter()
                .map(|s| {
                    s.anchor().map(|_| {
                        slots += 1;
                        slots - 1
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let slot_stacks = (0..stack_slots.len())
            .filter(|&k| stack_slots.get(k).copied().flatten().is_some())
            .collect();
        Placement {
            default,
            stacks,
            stack_slots,
            slot_stacks,
            slots,
        }
    }

    /// Every slot: the configured clusters', the default's, the inferred clusters'.
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// The slot of a default-cluster file in folder `dir` (or a pool made there).
    pub(crate) fn of_dir(&self, dir: &str) -> usize {
        self.stacks
            .as_ref()
            .and_then(|s| s.of_dir(dir))
            .and_then(|k| self.stack_slots.get(k).copied().flatten())
            .unwrap_or(self.default)
    }

    /// The slot a file is judged in.
    pub(crate) fn of_file(&self, opts: &LintOptions, file: &str) -> usize {
        match opts.slot_of(file) {
            s if s == self.default => self.of_dir(crate::analysis::sources::clusters::dir_of(file)),
            s => s,
        }
    }

    /// The configured or default cluster a slot lies in (its admission and Kueue objects).
    pub(crate) fn base(&self, slot: usize) -> usize {
        slot.min(self.default)
    }

    /// The definition an inferred cluster's pools are judged as.
    fn definition(&self, slot: usize) -> Option<crate::analysis::sources::clusters::ClusterDef> {
        let stacks = self.stacks.as_ref()?;
        let stack = *self.slot_stacks.get(slot.checked_sub(self.default + 1)?)?;
        Some(crate::analysis::sources::clusters::ClusterDef {
            stacks: Arc::clone(stacks),
            stack,
        })
    }
}

/// A cross-reference against pools merely found among the linted files is not sure enough to
/// be an error: the cluster may have pools no manifest declares (made by Terraform or a cloud
/// CLI). Its findings are at most warnings; a declared inventory keeps their severity (and
/// the configuration can still raise a rule's).
///
/// The findings also say which configured cluster they were judged in.
fn judged_in(inventory: &Inventory, cluster: Option<Arc<str>>, found: &mut [Finding]) {
    let declared = inventory.declared();
    let open = inventory.open();
    for f in found {
        if !declared && f.severity > Severity::Warning {
            f.severity = Severity::Warning;
        }
        // A closed-world judgement on pools that may not be all the cluster's: not proven.
        if let Some(why) = open
            && f.severity > Severity::Info
            && rules::is_closed_world(f.rule)
        {
            f.severity = Severity::Info;
            f.message = format!("{} (not certain: {why})", f.message).into();
        }
        f.cluster.clone_from(&cluster);
    }
}

/// Why the pools of `slot` may not be all its cluster's: a node maker in its own files, or in
/// files of no inferred cluster (they may serve any), that the pools do not already show
/// (Karpenter with its NodePools read). `None`: the files show every node maker.
fn open_world(
    makers: &[(
        crate::analysis::sources::provisioners::Maker,
        Arc<str>,
        usize,
    )],
    slot: usize,
    place: &Placement,
    opts: &LintOptions,
    inventory: &Inventory,
) -> Option<String> {
    use crate::analysis::sources::provisioners::Maker;
    let default = opts.clusters.len();
    makers
        .iter()
        .filter(|(m, _, _)| {
            !(matches!(m, Maker::Karpenter | Maker::UnreadNodePools)
                && inventory.has_karpenter_pools())
        })
        .find(|(_, file, _)| {
            let of = place.of_file(opts, file);
            of == slot || (of == default && slot >= default)
        })
        .map(|(m, file, line)| {
            format!(
                "{} (`{}:{line}`)",
                m.describe(),
                crate::util::text::escape(file)
            )
        })
}

/// One file's final findings, and its workloads with their input numbers when the run
/// keeps its [`View`].
struct FileDone {
    findings: Vec<Finding>,
    /// The cluster it was judged in.
    slot: usize,
    workloads: Vec<(usize, Vec<Workload>)>,
}

/// Files worked on side by side before their findings are spilled (bounds what is held).
const BATCH: usize = 64;

/// One output file: its entries (itself, the same path given twice, an `--inventory` copy),
/// the findings other parts of the run made for it, and the late ones.
struct Group {
    name: Arc<str>,
    entries: Vec<Entry>,
    loose: Vec<Finding>,
    late: Vec<Finding>,
}

/// The output files in order: the sorted entries merged with the files that only have loose
/// or late findings.
struct Groups<'a> {
    entries: Sorted<'a>,
    loose: BTreeMap<Arc<str>, Vec<Finding>>,
    late: BTreeMap<Arc<str>, Vec<Finding>>,
}

impl Iterator for Groups<'_> {
    type Item = Result<Group, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let name = [
            self.entries.peek_name(),
            self.loose.keys().next(),
            self.late.keys().next(),
        ]
        .into_iter()
        .flatten()
        .min()
        .cloned()?;
        let mut entries = Vec::new();
        while self.entries.peek_name() == Some(&name) {
            match self.entries.next() {
                Some(Ok(e)) => entries.push(e),
                Some(Err(e)) => return Some(Err(e)),
                None => break,
            }
        }
        Some(Ok(Group {
            name: Arc::clone(&name),
            entries,
            loose: self.loose.remove(&name).unwrap_or_default(),
            late: self.late.remove(&name).unwrap_or_default(),
        }))
    }
}

/// What working on one file needs of the run.
struct Run<'a> {
    store: &'a Store,
    /// Each cluster's inventory and evaluator (see `LintOptions::slots`).
    inventories: &'a [Inventory],
    evaluators: &'a [Evaluator<'a>],
    admissions: &'a [crate::analysis::judgements::admission::Admission],
    cross: &'a [(&'static rules::RuleMeta, rules::CrossFn)],
    kueue: &'a [Kueue],
    opts: &'a LintOptions,
    /// The cluster each file is judged in.
    place: &'a Placement,
    /// Keep the workloads of this cluster and of the clusters inferred in it (see [`View`]).
    view: Option<usize>,
}

impl Run<'_> {
    /// One file's final findings: its own, the cross-reference's on its workloads, the loose
    /// ones; suppressed, filtered, sorted and deduplicated.
    fn file(&self, group: Group) -> Result<FileDone, StoreError> {
        let Group {
            name,
            entries,
            loose,
            late,
        } = group;
        // The file's cluster: its workloads are judged against that cluster's pools.
        let slot = self.place.of_file(self.opts, &name);
        // Admission and Kueue are those of the cluster it is inferred in.
        let base = self.place.base(slot);
        let (Some(inventory), Some(evaluator)) =
            (self.inventories.get(slot), self.evaluators.get(slot))
        else {
            return Err(StoreError::Corrupt("a file of no cluster"));
        };
        let mut findings = Vec::new();
        let mut suppressions = Vec::new();
        let mut workloads = Vec::new();
        // Where each entry's workloads start in `workloads`, with its input number.
        let mut starts = Vec::new();
        for e in entries {
            let inventory_only = e.inventory_only;
            starts.push((e.index, workloads.len()));
            match e.content {
                Content::Spilled { workloads: w, rest } => {
                    if let Some(slot) = rest {
                        let rest: Rest = codec::decode(&self.store.get(slot)?)?;
                        findings.extend(rest.findings);
                        suppressions.extend(rest.suppressions);
                    }
                    if let (Some(slot), false) = (w, inventory_only) {
                        let w: Vec<Workload> = codec::decode(&self.store.get(slot)?)?;
                        workloads.extend(w);
                    }
                }
                Content::Kept(report) => {
                    let report = *report;
                    findings.extend(report.findings);
                    suppressions.extend(report.suppressions);
                    if !inventory_only {
                        workloads.extend(report.workloads);
                    }
                }
            }
        }
        findings.extend(loose);
        // With an inventory, the heuristics give way to the inventory-based checks.
        findings.retain(|f| !rules::superseded(f, inventory));
        // Admission first: the pods the scheduler sees; those it refuses are not judged.
        let admitted = super::admission::admitted(
            self.admissions.get(base),
            &mut workloads,
            self.opts,
            base,
            &mut findings,
        );
        if !admitted.is_empty() {
            let eval = evaluator.evaluate(&admitted);
            let ctx = CrossCtx {
                inventory,
                workloads: &admitted,
                eval: &eval,
                settings: &self.opts.settings,
                kueue: self.kueue.get(base).unwrap_or(&NO_KUEUE),
            };
            let mut found = Vec::new();
            for (_, check) in self.cross {
                check(&ctx, &mut found);
            }
            judged_in(inventory, self.opts.cluster_name(slot), &mut found);
            findings.append(&mut found);
        }
        settle(&mut findings, &mut suppressions, self.opts);
        if !late.is_empty() {
            findings.extend(late);
            crate::diagnostic::sort_findings(&mut findings);
        }
        drop(admitted);
        let mut kept = Vec::new();
        if self.view == Some(base) {
            // Split back by entry, from the last one.
            for (index, start) in starts.into_iter().rev() {
                kept.push((index, workloads.split_off(start.min(workloads.len()))));
            }
        }
        Ok(FileDone {
            findings,
            slot,
            workloads: kept,
        })
    }
}

/// The last steps of every run, over all findings or one file's: suppressions (reporting
/// unused ones), the configuration's ignores and severities, output order, duplicates.
pub fn settle(findings: &mut Vec<Finding>, suppressions: &mut [Suppression], opts: &LintOptions) {
    crate::suppress::apply(findings, suppressions, &opts.rules);
    opts.apply_ignores(findings);
    crate::diagnostic::sort_and_dedup_findings(findings);
}

/// Cross-reference findings point at taints and pools in other files (`related`); those
/// files' sources hold the positions of everything their own report needed. Before the
/// findings are spilled, each such source is replaced by a copy with only the positions these
/// findings use, so a record does not carry whole position tables of node files.
fn trim_foreign_sources(findings: &mut [Finding]) {
    use std::collections::HashMap;
    let mut wanted: HashMap<usize, (Arc<crate::load::SourceFile>, Vec<usize>)> = HashMap::new();
    for f in findings.iter() {
        for r in &f.related {
            if f.source
                .as_ref()
                .is_some_and(|own| Arc::ptr_eq(own, &r.source))
            {
                continue;
            }
            let entry = wanted
                .entry(Arc::as_ptr(&r.source) as usize)
                .or_insert_with(|| (Arc::clone(&r.source), Vec::new()));
            entry.1.extend([r.span.start, r.span.end.max(r.span.start)]);
        }
    }
    let trimmed: HashMap<usize, Arc<crate::load::SourceFile>> = wanted
        .into_iter()
        .map(|(at, (source, offsets))| (at, source.lite(offsets)))
        .collect();
    for f in findings.iter_mut() {
        for r in &mut f.related {
            if let Some(t) = trimmed.get(&(Arc::as_ptr(&r.source) as usize)) {
                r.source = Arc::clone(t);
            }
        }
    }
}

#[cfg(test)]
mod tests;
