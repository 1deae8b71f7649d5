//! What kubectl's YAML→JSON step and the server's typed decoding (kubectl's YAML decoding
//! (sigs.k8s.io/yaml over go-yaml v2) and the server's typed decoding) do to the scheduling fields:
//! the Go types of those fields and a walk that finds type mismatches, surprises (`010` is 8) and
//! unknown fields. Shared by `yaml-type-mismatch`, `unknown-field` and `duplicate-key`, each in its
//! own file.

pub(crate) use crate::diagnostic::{Finding, Fix, Severity};
pub(crate) use crate::load::yaml::{Node, Value};
pub(crate) use crate::load::yaml11::{Resolved, resolve};
pub(crate) use crate::model::{Object, Schema, join};
pub(crate) use crate::util::nearest;

pub(crate) use super::{Category, Ctx, RuleMeta};

/// The Go type a field decodes into.
#[derive(Clone, Copy)]
pub(crate) enum Ty {
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

pub(crate) struct Struct {
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

/// A list of tolerations.
const TOLERATIONS: Ty = Ty::List(&Ty::Struct(&TOLERATION), "[]v1.Toleration");

/// A `metav1.LabelSelector` an operator reads as a node selector (`matchExpressions` are not
/// modelled).
static LABEL_SELECTOR: Struct = Struct {
    name: "LabelSelector",
    fields: &[("matchLabels", Ty::StrMap), ("matchExpressions", Ty::Any)],
    closed: true,
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
pub(crate) enum Problem<'a> {
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
    /// A `!!int`/`!!bool`/`!!float`/`!!null` tag that does not fit the text: kubectl's
    /// go-yaml fails (`resolve`: "cannot decode !!str `abc` as a !!int").
    BadTag {
        node: &'a Node,
        path: String,
        tag: &'static str,
    },
    Unknown {
        key: &'a Node,
        path: String,
        known: &'static [(&'static str, Ty)],
        go_struct: &'static str,
    },
}

pub(crate) struct Walk<'a> {
    problems: Vec<Problem<'a>>,
}

/// Where the walk is, rendered only when a problem is found: most fields have none, and
/// formatting every path would cost more than the walk.
#[derive(Clone, Copy)]
enum At<'p> {
    /// The pod spec's own path, and Go's dotted form of it (no list indices).
    Root {
        path: &'p str,
        dotted: &'p str,
    },
    Field(&'p At<'p>, &'p str),
    Index(&'p At<'p>, usize),
}

impl At<'_> {
    /// The field path, with list indices.
    fn path(&self) -> String {
        match self {
            At::Root { path, .. } => (*path).to_string(),
            At::Field(parent, name) => join(&parent.path(), name),
            At::Index(parent, i) => format!("{}[{i}]", parent.path()),
        }
    }

    /// Go's dotted path of the struct field: no list indices, no map keys.
    fn dotted(&self) -> String {
        match self {
            At::Root { dotted, .. } => (*dotted).to_string(),
            At::Field(parent, name) => join(&parent.dotted(), name),
            At::Index(parent, _) => parent.dotted(),
        }
    }
}

impl<'a> Walk<'a> {
    fn value(
        &mut self,
        (key, node): (Option<&'a Node>, &'a Node),
        ty: Ty,
        go_struct: &'static str,
        dotted: At<'_>,
        at: At<'_>,
    ) {
        let r = resolve(node);
        if r == Resolved::Null {
            return;
        }
        if let Resolved::BadTag(tag) = r {
            self.problems.push(Problem::BadTag {
                node,
                path: at.path(),
                tag,
            });
            return;
        }
        if let Resolved::NonFinite(what) = r {
            self.problems.push(Problem::NonFinite {
                node,
                path: at.path(),
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
            dotted: dotted.dotted(),
            path: at.path(),
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
                        self.octal_note(node, at, *i);
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
                        self.value((None, item), *elem, go_struct, dotted, At::Index(&at, i));
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
                        self.value(
                            (Some(k), v),
                            Ty::Str,
                            go_struct,
                            dotted,
                            At::Field(&at, key),
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
            Ty::Struct(s) => match &node.value {
                Value::Map(_) => self.fields(node, s, at),
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

    fn fields(&mut self, node: &'a Node, s: &'static Struct, at: At<'_>) {
        let Some(entries) = node.as_map() else { return };
        for (key, k, v) in json_order(entries) {
            match s.fields.iter().find(|(name, _)| *name == key) {
                Some((name, ty)) => {
                    let here = At::Field(&at, name);
                    self.value((Some(k), v), *ty, s.name, here, here);
                }
                // A strategic-merge-patch directive (`$patch: delete`) is the patch's, not a
                // field of the struct.
                None if s.closed && !crate::model::scheduling::is_patch_directive(key) => {
                    self.problems.push(Problem::Unknown {
                        key: k,
                        path: At::Field(&at, key).path(),
                        known: s.fields,
                        go_struct: s.name,
                    })
                }
                None => {}
            }
        }
    }

    /// `tolerationSeconds: 010` decodes as 8.
    fn octal_note(&mut self, node: &'a Node, at: At<'_>, value: i64) {
        let Some(text) = node.text() else { return };
        let digits = text.trim_start_matches(['+', '-']);
        // `0x12C`, `0o17` and `0b101` say their base; only a bare leading zero surprises.
        let implicit_octal = digits.len() > 1
            && digits.starts_with('0')
            && digits.bytes().all(|c| c.is_ascii_digit() || c == b'_');
        if implicit_octal {
            self.problems.push(Problem::Surprise {
                node,
                path: at.path(),
                note: format!("`{text}` is read as octal: the API server receives {value}"),
            });
        }
    }
}

pub(crate) fn collection_word(node: &Node) -> &'static str {
    match node.value {
        Value::Seq(_) => "array",
        _ => "object",
    }
}

/// The values of a whole object that go-yaml cannot turn into JSON, wherever they are: a
/// non-finite float (`json: unsupported value: +Inf`) or a tag that does not fit its text
/// (`cannot decode !!str \`abc\` as a !!int`). kubectl refuses the file there, whatever the
/// field, so these are looked for in every field, not only the scheduling ones.
pub(crate) fn undecodable(node: &Node) -> Vec<Problem<'_>> {
    /// A step of the path to a node: a mapping key or a sequence index (rendered only for a
    /// problem: most nodes have none).
    enum Step<'a> {
        Key(&'a str),
        Index(usize),
    }
    fn render(steps: &[Step<'_>]) -> String {
        let mut path = String::new();
        for s in steps {
            match s {
                Step::Key(k) => path = join(&path, k),
                Step::Index(i) => path = format!("{path}[{i}]"),
            }
        }
        path
    }
    fn visit<'a>(node: &'a Node, steps: &mut Vec<Step<'a>>, out: &mut Vec<Problem<'a>>) {
        match &node.value {
            Value::Scalar(s) => {
                // Only a tag or a plain `.inf`/`.nan` can be one: no resolution for the rest.
                let maybe = s.tag.is_some()
                    || (s.style == crate::load::yaml::Style::Plain
                        && matches!(s.text.as_bytes().first(), Some(b'.' | b'+' | b'-')));
                if !maybe {
                    return;
                }
                match resolve(node) {
                    Resolved::NonFinite(what) => out.push(Problem::NonFinite {
                        node,
                        path: render(steps),
                        what,
                    }),
                    Resolved::BadTag(tag) => out.push(Problem::BadTag {
                        node,
                        path: render(steps),
                        tag,
                    }),
                    _ => {}
                }
            }
            Value::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    steps.push(Step::Index(i));
                    visit(item, steps, out);
                    steps.pop();
                }
            }
            Value::Map(entries) => {
                for (k, v) in entries {
                    visit(k, steps, out);
                    steps.push(Step::Key(k.text().unwrap_or("?")));
                    visit(v, steps, out);
                    steps.pop();
                }
            }
        }
    }
    let mut out = Vec::new();
    visit(node, &mut Vec::new(), &mut out);
    out
}

/// Walks the typed scheduling subtrees of an object.
pub(crate) fn walk<'a>(object: &'a Object<'a>) -> Vec<Problem<'a>> {
    let mut w = Walk {
        problems: Vec::new(),
    };
    match object.kind {
        "Node" => {
            if let Some(spec) = object.node.get("spec") {
                let at = At::Root {
                    path: "spec",
                    dotted: "spec",
                };
                w.fields(spec, &NODE_SPEC, at);
            }
        }
        _ => {
            use crate::model::Typed;
            for spec in &object.pod_specs {
                for written in &spec.written {
                    let part = &written.part;
                    // Go's dotted path drops list indices.
                    let dotted = strip_indices(&part.path);
                    let at = At::Root {
                        path: &part.path,
                        dotted: &dotted,
                    };
                    let whole = match written.typed {
                        Typed::PodSpec | Typed::OperatorPodSpec => Some(&POD_SPEC),
                        Typed::CustomPodSpec => Some(&POD_SPEC_CUSTOM),
                        Typed::Scheduling => Some(&SCHEDULING),
                        _ => None,
                    };
                    if let Some(s) = whole {
                        w.fields(part.value, s, at);
                        continue;
                    }
                    let ty = match written.typed {
                        Typed::Tolerations => TOLERATIONS,
                        Typed::NodeSelector => Ty::StrMap,
                        Typed::LabelSelector => Ty::Struct(&LABEL_SELECTOR),
                        Typed::Affinity => Ty::Struct(&AFFINITY),
                        Typed::NodeAffinity => Ty::Struct(&NODE_AFFINITY),
                        _ => continue,
                    };
                    w.value((Some(part.key), part.value), ty, "PodSpec", at, at);
                }
            }
        }
    }
    // In JSON document order: the order the server's decoder meets them.
    w.problems
}

/// A mapping's entries as kubectl sends them: the last of duplicate keys wins, and keys are
/// sorted (kubectl re-encodes a `map[string]interface{}`, which `encoding/json` sorts).
pub(crate) fn json_order(entries: &[(Node, Node)]) -> Vec<(&str, &Node, &Node)> {
    let mut out: Vec<(&str, &Node, &Node)> = entries
        .iter()
        .filter_map(|(k, v)| Some((k.text()?, k, v)))
        .collect();
    // A stable sort keeps duplicates in source order: the last of each run wins. Sorting
    // first makes a mapping of 100,000 keys cost n log n, not n² (#22).
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut kept = 0;
    for i in 0..out.len() {
        if kept > 0 && out[kept - 1].0 == out[i].0 {
            out[kept - 1] = out[i];
        } else {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
    out
}

pub(crate) fn strip_indices(path: &str) -> String {
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

pub(crate) fn decode_prefix(object: &Object<'_>) -> String {
    format!(
        "{kind} in version {ver} cannot be handled as a {kind}: ",
        kind = object.kind,
        ver = crate::analysis::semantics::validation::go_quote(object.version)
    )
}

/// What a value is, in words: as YAML 1.1 reads it, or in a JSON stream (`json`) as JSON.
pub(crate) fn describe(r: &Resolved, text: &str, json: bool) -> String {
    let reads = if json {
        format!("`{text}` is")
    } else {
        format!("YAML 1.1 reads `{text}` as")
    };
    match r {
        Resolved::Bool(b) => format!("{reads} the boolean {b}"),
        Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) => {
            format!("{reads} the number {}", r.json_number().unwrap_or_default())
        }
        Resolved::Str => format!("`{text}` is a string"),
        Resolved::Collection => "this is a collection".to_string(),
        _ => format!("`{text}` is not a string"),
    }
}

pub(crate) fn last(path: &str) -> &str {
    let tail = path.rsplit('.').next().unwrap_or(path);
    tail.split('[').next().unwrap_or(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `json_order` did before #22: each key removed from the list when seen again.
    fn json_order_pairwise(entries: &[(Node, Node)]) -> Vec<(&str, &Node, &Node)> {
        let mut out: Vec<(&str, &Node, &Node)> = Vec::new();
        for (k, v) in entries {
            let Some(key) = k.text() else { continue };
            out.retain(|(seen, _, _)| *seen != key);
            out.push((key, k, v));
        }
        out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        out
    }

    #[test]
    fn json_order_equals_the_pairwise_removal() {
        for n in [0usize, 1, 2, 17, 300, 5000] {
            // Keys repeat (every seventh, with a period of 13), values tell entries apart;
            // a collection key has no text.
            let mut text = String::from("{");
            for i in 0..n {
                let key = if i % 7 == 3 { i % 13 } else { i };
                text.push_str(&format!("k{key}: v{i}, "));
                if i % 50 == 25 {
                    text.push_str(&format!("[c{i}]: x, "));
                }
            }
            text.push_str("z: end}\n");
            let stream = crate::load::yaml::parse(&text, crate::load::yaml::Limits::default());
            assert!(stream.error.is_none(), "{:?}", stream.error);
            let root = stream.documents[0].root.as_ref().unwrap();
            let entries = root.as_map().unwrap();
            let spans = |v: Vec<(&str, &Node, &Node)>| -> Vec<_> {
                v.into_iter()
                    .map(|(k, a, b)| (k.to_string(), a.span, b.span))
                    .collect()
            };
            assert_eq!(
                spans(json_order(entries)),
                spans(json_order_pairwise(entries)),
                "n = {n}"
            );
        }
    }
}
