//! What goes wrong before validation: kubectl turns YAML into JSON with YAML 1.1 rules, and
//! the server decodes that JSON into typed structs (SEMANTICS §6). Three rules share the
//! schema of the scheduling fields below: `yaml-type-mismatch`, `unknown-field`,
//! `duplicate-key`.

use crate::analysis::yaml11::{Resolved, resolve};
use crate::diagnostic::{Finding, Fix, Severity};
use crate::load::yaml::{Node, Value};
use crate::model::{Object, Schema, join};
use crate::util::nearest;

use super::{Category, Ctx, RuleMeta};

/// The Go type a field decodes into.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int64,
    Int32,
    Bool,
    /// `[]T`, with the Go name of the slice.
    List(&'static Ty, &'static str),
    /// `map[string]string`.
    StrMap,
    Struct(&'static Struct),
    /// Not modelled: anything goes.
    Any,
}

struct Struct {
    /// Go type name without package (`Toleration`).
    name: &'static str,
    fields: &'static [(&'static str, Ty)],
    /// Closed structs report unknown fields; open ones are only partially modelled.
    closed: bool,
}

impl Ty {
    fn go_name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Int64 => "int64",
            Ty::Int32 => "int32",
            Ty::Bool => "bool",
            Ty::List(_, name) => name,
            Ty::StrMap => "map[string]string",
            Ty::Struct(s) => match s.name {
                "Toleration" => "v1.Toleration",
                "Taint" => "v1.Taint",
                "Affinity" => "v1.Affinity",
                "NodeAffinity" => "v1.NodeAffinity",
                "NodeSelector" => "v1.NodeSelector",
                "NodeSelectorTerm" => "v1.NodeSelectorTerm",
                "NodeSelectorRequirement" => "v1.NodeSelectorRequirement",
                "PreferredSchedulingTerm" => "v1.PreferredSchedulingTerm",
                _ => "struct",
            },
            Ty::Any => "interface {}",
        }
    }
}

static TOLERATION: Struct = Struct {
    name: "Toleration",
    fields: &[
        ("key", Ty::Str),
        ("operator", Ty::Str),
        ("value", Ty::Str),
        ("effect", Ty::Str),
        ("tolerationSeconds", Ty::Int64),
    ],
    closed: true,
};

static TAINT: Struct = Struct {
    name: "Taint",
    fields: &[
        ("key", Ty::Str),
        ("value", Ty::Str),
        ("effect", Ty::Str),
        ("timeAdded", Ty::Any),
    ],
    closed: true,
};

static REQUIREMENT: Struct = Struct {
    name: "NodeSelectorRequirement",
    fields: &[
        ("key", Ty::Str),
        ("operator", Ty::Str),
        ("values", Ty::List(&Ty::Str, "[]string")),
    ],
    closed: true,
};

static TERM: Struct = Struct {
    name: "NodeSelectorTerm",
    fields: &[
        (
            "matchExpressions",
            Ty::List(&Ty::Struct(&REQUIREMENT), "[]v1.NodeSelectorRequirement"),
        ),
        (
            "matchFields",
            Ty::List(&Ty::Struct(&REQUIREMENT), "[]v1.NodeSelectorRequirement"),
        ),
    ],
    closed: true,
};

static NODE_SELECTOR: Struct = Struct {
    name: "NodeSelector",
    fields: &[(
        "nodeSelectorTerms",
        Ty::List(&Ty::Struct(&TERM), "[]v1.NodeSelectorTerm"),
    )],
    closed: true,
};

static PREFERRED: Struct = Struct {
    name: "PreferredSchedulingTerm",
    fields: &[("weight", Ty::Int32), ("preference", Ty::Struct(&TERM))],
    closed: true,
};

static NODE_AFFINITY: Struct = Struct {
    name: "NodeAffinity",
    fields: &[
        (
            "requiredDuringSchedulingIgnoredDuringExecution",
            Ty::Struct(&NODE_SELECTOR),
        ),
        (
            "preferredDuringSchedulingIgnoredDuringExecution",
            Ty::List(&Ty::Struct(&PREFERRED), "[]v1.PreferredSchedulingTerm"),
        ),
    ],
    closed: true,
};

static AFFINITY: Struct = Struct {
    name: "Affinity",
    fields: &[
        ("nodeAffinity", Ty::Struct(&NODE_AFFINITY)),
        ("podAffinity", Ty::Any),
        ("podAntiAffinity", Ty::Any),
    ],
    closed: true,
};

/// Custom resources may use their own `affinity` type (CloudNativePG): open, but its
/// `nodeAffinity` is the core one.
static AFFINITY_CUSTOM: Struct = Struct {
    name: "Affinity",
    fields: &[("nodeAffinity", Ty::Struct(&NODE_AFFINITY))],
    closed: false,
};

static POD_SPEC_CUSTOM: Struct = Struct {
    name: "PodSpec",
    fields: &[
        (
            "tolerations",
            Ty::List(&Ty::Struct(&TOLERATION), "[]v1.Toleration"),
        ),
        ("nodeSelector", Ty::Any),
        ("affinity", Ty::Struct(&AFFINITY_CUSTOM)),
    ],
    closed: false,
};

static POD_SPEC: Struct = Struct {
    name: "PodSpec",
    fields: &[
        (
            "tolerations",
            Ty::List(&Ty::Struct(&TOLERATION), "[]v1.Toleration"),
        ),
        ("nodeSelector", Ty::StrMap),
        ("affinity", Ty::Struct(&AFFINITY)),
        ("nodeName", Ty::Str),
        ("hostNetwork", Ty::Bool),
    ],
    closed: false,
};

static SCHEDULING: Struct = Struct {
    name: "Scheduling",
    fields: &[
        (
            "tolerations",
            Ty::List(&Ty::Struct(&TOLERATION), "[]v1.Toleration"),
        ),
        ("nodeSelector", Ty::StrMap),
    ],
    closed: true,
};

static NODE_SPEC: Struct = Struct {
    name: "NodeSpec",
    fields: &[
        ("taints", Ty::List(&Ty::Struct(&TAINT), "[]v1.Taint")),
        ("unschedulable", Ty::Bool),
    ],
    closed: false,
};

/// A problem found while walking a typed subtree.
enum Problem<'a> {
    /// Wrong JSON type. `what` is Go's `number 1.5`, `bool`, ...
    Type {
        node: &'a Node,
        /// The mapping key the value belongs to, when it is a mapping value.
        key: Option<&'a Node>,
        what: String,
        resolved: Resolved,
        go_struct: &'static str,
        /// Dotted JSON path without indices (Go's `Field`).
        dotted: String,
        /// Indexed path for our `field`.
        path: String,
        go_type: &'static str,
    },
    /// Decodes, but not to what it looks like (`010` is 8).
    Surprise {
        node: &'a Node,
        path: String,
        note: String,
    },
    NonFinite {
        node: &'a Node,
        path: String,
        what: &'static str,
    },
    Unknown {
        key: &'a Node,
        path: String,
        known: &'static [(&'static str, Ty)],
        go_struct: &'static str,
    },
}

struct Walk<'a> {
    problems: Vec<Problem<'a>>,
}

impl<'a> Walk<'a> {
    fn value(
        &mut self,
        (key, node): (Option<&'a Node>, &'a Node),
        ty: Ty,
        go_struct: &'static str,
        dotted: &str,
        path: &str,
    ) {
        let r = resolve(node);
        if r == Resolved::Null {
            return;
        }
        if let Resolved::NonFinite(what) = r {
            self.problems.push(Problem::NonFinite {
                node,
                path: path.to_string(),
                what,
            });
            return;
        }
        let mismatch = |what: String, r: Resolved| Problem::Type {
            node,
            key,
            what,
            resolved: r,
            go_struct,
            dotted: dotted.to_string(),
            path: path.to_string(),
            go_type: ty.go_name(),
        };
        match ty {
            Ty::Any => {}
            Ty::Str => {
                if !matches!(r, Resolved::Str) {
                    let what = match &r {
                        Resolved::Collection => collection_word(node).to_string(),
                        other => other.json_type().to_string(),
                    };
                    self.problems.push(mismatch(what, r));
                }
            }
            Ty::Int64 | Ty::Int32 => {
                let fits = |i: i64| matches!(ty, Ty::Int64) || i32::try_from(i).is_ok();
                match &r {
                    Resolved::Int(i) if fits(*i) => {
                        self.octal_note(node, path, *i);
                    }
                    Resolved::Float(f) if f.fract() == 0.0 && r.as_i64().is_some_and(fits) => {}
                    Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) => {
                        let lit = r.json_number().unwrap_or_default();
                        self.problems.push(mismatch(format!("number {lit}"), r));
                    }
                    Resolved::Collection => {
                        self.problems
                            .push(mismatch(collection_word(node).to_string(), r));
                    }
                    other => {
                        let what = other.json_type().to_string();
                        self.problems.push(mismatch(what, r));
                    }
                }
            }
            Ty::Bool => {
                if !matches!(r, Resolved::Bool(_)) {
                    let what = match &r {
                        Resolved::Collection => collection_word(node).to_string(),
                        other => other.json_type().to_string(),
                    };
                    self.problems.push(mismatch(what, r));
                }
            }
            Ty::List(elem, _) => match &node.value {
                Value::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.value(
                            (None, item),
                            *elem,
                            go_struct,
                            dotted,
                            &format!("{path}[{i}]"),
                        );
                    }
                }
                _ => {
                    let what = match &r {
                        Resolved::Collection => collection_word(node).to_string(),
                        other => other.json_type().to_string(),
                    };
                    self.problems.push(mismatch(what, r));
                }
            },
            Ty::StrMap => match &node.value {
                Value::Map(entries) => {
                    for (key, k, v) in json_order(entries) {
                        self.value((Some(k), v), Ty::Str, go_struct, dotted, &join(path, key));
                    }
                }
                _ => {
                    let what = match &r {
                        Resolved::Collection => collection_word(node).to_string(),
                        other => other.json_type().to_string(),
                    };
                    self.problems.push(mismatch(what, r));
                }
            },
            Ty::Struct(s) => match &node.value {
                Value::Map(_) => self.fields(node, s, dotted, path),
                _ => {
                    let what = match &r {
                        Resolved::Collection => collection_word(node).to_string(),
                        other => other.json_type().to_string(),
                    };
                    self.problems.push(mismatch(what, r));
                }
            },
        }
    }

    fn fields(&mut self, node: &'a Node, s: &'static Struct, dotted: &str, path: &str) {
        let Some(entries) = node.as_map() else { return };
        for (key, k, v) in json_order(entries) {
            match s.fields.iter().find(|(name, _)| *name == key) {
                Some((name, ty)) => {
                    self.value(
                        (Some(k), v),
                        *ty,
                        s.name,
                        &join(dotted, name),
                        &join(path, name),
                    );
                }
                None if s.closed => self.problems.push(Problem::Unknown {
                    key: k,
                    path: join(path, key),
                    known: s.fields,
                    go_struct: s.name,
                }),
                None => {}
            }
        }
    }

    /// `tolerationSeconds: 010` decodes as 8.
    fn octal_note(&mut self, node: &'a Node, path: &str, value: i64) {
        let Some(text) = node.text() else { return };
        let digits = text.trim_start_matches(['+', '-']);
        // `0x12C`, `0o17` and `0b101` say their base; only a bare leading zero surprises.
        let implicit_octal = digits.len() > 1
            && digits.starts_with('0')
            && digits.bytes().all(|c| c.is_ascii_digit() || c == b'_');
        if implicit_octal {
            self.problems.push(Problem::Surprise {
                node,
                path: path.to_string(),
                note: format!("`{text}` is read as octal: the API server receives {value}"),
            });
        }
    }
}

fn collection_word(node: &Node) -> &'static str {
    match node.value {
        Value::Seq(_) => "array",
        _ => "object",
    }
}

/// Walks the typed scheduling subtrees of an object.
fn walk<'a>(object: &'a Object<'a>) -> Vec<Problem<'a>> {
    let mut w = Walk {
        problems: Vec::new(),
    };
    match object.kind {
        "Node" => {
            if let Some(spec) = object.node.get("spec") {
                w.fields(spec, &NODE_SPEC, "spec", "spec");
            }
        }
        _ => {
            for spec in &object.pod_specs {
                let s: &'static Struct = if !spec.builtin {
                    &POD_SPEC_CUSTOM
                } else if spec.path == "scheduling" {
                    &SCHEDULING
                } else {
                    &POD_SPEC
                };
                // Go's dotted path drops list indices.
                let dotted = strip_indices(&spec.path);
                w.fields(spec.node, s, &dotted, &spec.path);
            }
        }
    }
    // In JSON document order: the order the server's decoder meets them.
    w.problems
}

/// A mapping's entries as kubectl sends them: the last of duplicate keys wins, and keys are
/// sorted (kubectl re-encodes a `map[string]interface{}`, which `encoding/json` sorts).
fn json_order(entries: &[(Node, Node)]) -> Vec<(&str, &Node, &Node)> {
    let mut out: Vec<(&str, &Node, &Node)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let Some(key) = k.text() else { continue };
        out.retain(|(seen, _, _)| *seen != key);
        out.push((key, k, v));
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out
}

fn strip_indices(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn decode_prefix(object: &Object<'_>) -> String {
    format!(
        "{kind} in version {ver} cannot be handled as a {kind}: ",
        kind = object.kind,
        ver = crate::analysis::validation::go_quote(object.version)
    )
}

pub static TYPE_MISMATCH: RuleMeta = RuleMeta {
    name: "yaml-type-mismatch",
    summary: "A scheduling field that YAML 1.1 turns into the wrong JSON type (`value: yes`, `tolerationSeconds: \"300\"`)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/yaml-type-mismatch.md"),
};

fn describe(r: &Resolved, text: &str) -> String {
    match r {
        Resolved::Bool(b) => format!("YAML 1.1 reads `{text}` as the boolean {b}"),
        Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) => format!(
            "YAML 1.1 reads `{text}` as the number {}",
            r.json_number().unwrap_or_default()
        ),
        Resolved::Str => format!("`{text}` is a string"),
        Resolved::Collection => "this is a collection".to_string(),
        _ => format!("`{text}` is not a string"),
    }
}

pub fn check_type_mismatch(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // The server's decoder keeps only the first type error, in JSON document order.
    let mut first_type_error = true;
    for p in walk(ctx.object) {
        match p {
            Problem::Type {
                node,
                key,
                what,
                resolved,
                go_struct,
                dotted,
                path,
                go_type,
            } => {
                let text = node.text().unwrap_or("");
                let (message, help) = match go_type {
                    "string" => (
                        format!(
                            "{}, but `{}` must be a string",
                            describe(&resolved, text),
                            last(&path)
                        ),
                        if node.as_scalar().is_some() {
                            format!("quote it: `\"{text}\"`")
                        } else {
                            "write a single string here".to_string()
                        },
                    ),
                    "int64" | "int32" => (
                        format!(
                            "`{}` must be an integer, but this is {}",
                            last(&path),
                            match &resolved {
                                Resolved::Str => format!("the string `{text}`"),
                                Resolved::Float(_) => format!("the fraction {text}"),
                                Resolved::Uint(_) | Resolved::Int(_) =>
                                    format!("{text}, out of range for {go_type}"),
                                Resolved::Bool(b) => format!("the boolean {b}"),
                                _ => "not a number".to_string(),
                            }
                        ),
                        if matches!(resolved, Resolved::Str) && text.trim().parse::<i64>().is_ok() {
                            format!("remove the quotes: `{}`", text.trim())
                        } else {
                            "write a whole number of seconds, unquoted".to_string()
                        },
                    ),
                    _ => (
                        format!("`{}` must be a {go_type}, but this is {what}", last(&path)),
                        "fix the structure of this field".to_string(),
                    ),
                };
                // A string field written as a plain YAML 1.1 bool or number: quote it.
                let fix = (go_type == "string"
                    && matches!(
                        resolved,
                        Resolved::Bool(_)
                            | Resolved::Int(_)
                            | Resolved::Uint(_)
                            | Resolved::Float(_)
                    ))
                .then(|| key.and_then(|k| crate::fix::quote_scalar(ctx.source, k, node)))
                .flatten()
                .map(|e| Fix::safe(format!("quote it: `\"{text}\"`"), vec![e]));
                let mut f = Finding::new(TYPE_MISMATCH.name, TYPE_MISMATCH.severity, message)
                    .primary(node.span, format!("decodes as {what}"))
                    .help(help)
                    .field(path)
                    .fix(fix);
                if matches!(ctx.object.schema, Schema::Builtin { .. })
                    && std::mem::take(&mut first_type_error)
                {
                    f = f.api_error(format!(
                        "{}json: cannot unmarshal {what} into Go struct field {go_struct}.{dotted} of type {go_type}",
                        decode_prefix(ctx.object)
                    ));
                }
                out.push(f);
            }
            Problem::Surprise { node, path, note } => {
                let text = node.text().unwrap_or("");
                out.push(
                    Finding::new(TYPE_MISMATCH.name, Severity::Warning, note)
                        .primary(node.span, "not decimal")
                        .help(format!(
                            "write the decimal number you mean; `{text}` with a leading zero is not decimal to YAML 1.1"
                        ))
                        .field(path),
                );
            }
            Problem::NonFinite { node, path, what } => {
                let text = node.text().unwrap_or("");
                out.push(
                    Finding::new(
                        TYPE_MISMATCH.name,
                        TYPE_MISMATCH.severity,
                        format!("`{text}` is the YAML float {what}, which JSON cannot carry; kubectl fails before sending anything"),
                    )
                    .primary(node.span, "not representable in JSON")
                    .help("quote it if you mean the string, or write a number")
                    .field(path)
                    .api_error(format!(
                        "error: error parsing {}: error converting YAML to JSON: json: unsupported value: {what}",
                        ctx.source.name
                    )),
                );
            }
            Problem::Unknown { .. } => {}
        }
    }
}

fn last(path: &str) -> &str {
    let tail = path.rsplit('.').next().unwrap_or(path);
    tail.split('[').next().unwrap_or(tail)
}

pub static UNKNOWN_FIELD: RuleMeta = RuleMeta {
    name: "unknown-field",
    summary: "A field the typed object does not have (`tolerationseconds`); kubectl's strict validation rejects it",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/unknown-field.md"),
};

pub fn check_unknown_field(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let unknown: Vec<_> = walk(ctx.object)
        .into_iter()
        .filter_map(|p| match p {
            Problem::Unknown {
                key,
                path,
                known,
                go_struct,
            } => Some((key, path, known, go_struct)),
            _ => None,
        })
        .collect();
    // The server lists every unknown field of the object in one strict-decoding error.
    let api = matches!(ctx.object.schema, Schema::Builtin { .. }).then(|| {
        let list: Vec<String> = unknown
            .iter()
            .map(|(_, path, _, _)| format!("unknown field \"{path}\""))
            .collect();
        format!(
            "{}strict decoding error: {}",
            decode_prefix(ctx.object),
            list.join(", ")
        )
    });
    for (i, (key, path, known, go_struct)) in unknown.iter().enumerate() {
        let name = key.text().unwrap_or("");
        let names: Vec<&str> = known.iter().map(|(n, _)| *n).collect();
        let help = match nearest(name, &names, 3) {
            Some(s) => format!("did you mean `{s}`? Field names are case-sensitive"),
            None => format!("a {go_struct} has only: {}", names.join(", ")),
        };
        let mut f = Finding::new(
            UNKNOWN_FIELD.name,
            UNKNOWN_FIELD.severity,
            format!("unknown field `{name}` in a {go_struct}"),
        )
        .primary(key.span, "unknown field")
        .help(help)
        .field(path.clone());
        if i == 0
            && let Some(a) = &api
        {
            f = f.api_error(a.clone());
        }
        out.push(f);
    }
}

pub static DUPLICATE_KEY: RuleMeta = RuleMeta {
    name: "duplicate-key",
    summary: "A mapping key given twice; kubectl silently keeps the last one",
    category: Category::Correctness,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/duplicate-key.md"),
};

pub fn check_duplicate_key(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Kinds without scheduling fields are out of scope (the fast path does not parse them).
    if crate::load::prescan::is_skippable_kind(ctx.object.kind, ctx.object.group) {
        return;
    }
    duplicates(ctx.object.node, "", out, 0);
}

fn duplicates(node: &Node, path: &str, out: &mut Vec<Finding>, depth: usize) {
    if depth > 200 {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                let Some(key) = k.text() else { continue };
                let child = join(path, key);
                if let Some((wk, _)) = entries[i + 1..]
                    .iter()
                    .rev()
                    .find(|(k2, _)| k2.text() == Some(key))
                {
                    out.push(
                        Finding::new(
                            DUPLICATE_KEY.name,
                            DUPLICATE_KEY.severity,
                            format!("key `{key}` is given more than once; kubectl keeps only the last one and drops this one"),
                        )
                        .primary(k.span, "ignored")
                        .secondary(wk.span, "this one wins")
                        .help("remove one of the keys, or merge their contents")
                        .field(child.clone()),
                    );
                }
                duplicates(v, &child, out, depth + 1);
            }
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                duplicates(item, &format!("{path}[{i}]"), out, depth + 1);
            }
        }
        Value::Scalar(_) => {}
    }
}
