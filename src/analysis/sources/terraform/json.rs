//! Terraform's JSON syntax (`*.tf.json`,
//! <https://developer.hashicorp.com/terraform/language/syntax/json>), read as Terraform reads
//! it and turned into the native syntax the rest of the reader evaluates, with a map from the
//! positions of the text made back to the JSON file's (so a pool and its taints point at their
//! JSON lines).
//!
//! What HCL's JSON reader does (hashicorp/hcl `json/structure.go`, `json/parser.go`):
//!
//! - The root object's properties are block types; a block's labels are nested object
//!   properties (an array of objects at a label level gives the properties of each); at the
//!   innermost level an object is one block, an array of objects one block each, `null` none.
//!   A property may be repeated (each gives its blocks); `"//"` in a body is a comment.
//! - Inside a body, which properties are arguments and which nested blocks depends on the
//!   provider's schema: here the nested blocks are the ones the node-pool readers read
//!   ([`NESTED_BLOCKS`]); any other property is an argument (a nested block read as an
//!   argument is an object or a list of objects, which the readers take as blocks too).
//! - In an expression, a string is a template (`${…}` and `%{…}` are Terraform's, `$${` a
//!   literal `${`), object keys too; numbers, booleans and `null` are themselves. A variable's
//!   `default` and a module's `source` and `version` are literal values (no template); a
//!   variable's `type` is an expression written in a string.
//!
//! Only what the evaluation reads is made: `resource` (the bodies of node-pool resources),
//! `module`, `variable`, `output` and `locals`. A string that is not a valid template is
//! reported (Terraform rejects it too) and its value is unknown; the rest of the file is read.

use hcl_edit::Span as _;
use hcl_edit::template::{Directive, Element};

use super::HclError;
use crate::load::Span;
use crate::load::yaml::{Limits, LoadError, Node, Style, Value};

/// The nested blocks of the node-pool resources the readers read (AWS `aws_eks_node_group`,
/// Google `google_container_node_pool`/`google_container_cluster`, AzureRM
/// `azurerm_kubernetes_cluster(_node_pool)`, per the providers' resource documentation).
const NESTED_BLOCKS: &[&str] = &[
    "autoscaling",
    "cluster_autoscaling",
    "default_node_pool",
    "guest_accelerator",
    "kubelet_config",
    "launch_template",
    "linux_node_config",
    "management",
    "network_config",
    "node_config",
    "node_pool",
    "node_pool_auto_config",
    "node_pool_defaults",
    "placement_policy",
    "remote_access",
    "scaling_config",
    "taint",
    "update_config",
    "upgrade_settings",
    "workload_identity_config",
    "workload_metadata_config",
];

/// Meta-arguments and blocks the evaluation does not read.
const SKIPPED: &[&str] = &[
    "connection",
    "depends_on",
    "lifecycle",
    "provider",
    "providers",
    "provisioner",
];

/// How deep blocks and values nest in the text made (hcl-edit's parser refuses more than 64
/// levels of blocks, expressions and templates; what is left is for the templates' own
/// expressions): a value deeper is unknown, a block deeper is not read.
const MAX_DEPTH: usize = 48;

/// The name the made text gives a value taintlint cannot read (see `eval`: unknown).
pub(super) const UNREADABLE: &str = "__taintlint_unreadable_json__";

/// Positions in the made text → positions in the JSON file: at each anchor, a made offset and
/// the JSON span it was made from.
#[derive(Debug, Default)]
pub(super) struct SpanMap {
    anchors: Vec<(usize, usize, usize)>,
}

impl SpanMap {
    /// The JSON offset of a made offset: its anchor's, moved as far as the anchor's span goes.
    pub(super) fn offset(&self, at: usize) -> usize {
        let i = self.anchors.partition_point(|(made, _, _)| *made <= at);
        match i.checked_sub(1).and_then(|i| self.anchors.get(i)) {
            Some((made, json, len)) => json + (at - made).min(*len),
            None => 0,
        }
    }

    /// A made span as a JSON span (never reversed).
    pub(super) fn span(&self, s: Span) -> Span {
        let start = self.offset(s.start);
        Span::new(start, self.offset(s.end).max(start))
    }
}

/// A JSON file made into native syntax.
pub(super) struct Made {
    pub(super) text: String,
    pub(super) map: SpanMap,
    /// Strings that are not valid templates: (their JSON span, why).
    pub(super) problems: Vec<(Span, String)>,
}

/// Makes the native-syntax text of a `.tf.json` file (see the module's text).
pub(super) fn make(text: &str) -> Result<Made, HclError> {
    let mut root = None;
    let mut values = 0;
    let limits = Limits::default();
    let outcome = crate::load::json::parse_each(text, limits, &mut |doc| {
        values += 1;
        if root.is_none() {
            root = doc.root;
        }
        true
    });
    if let Some(e) = outcome.error {
        let limit = !matches!(e, LoadError::Syntax { .. });
        let message = match &e {
            LoadError::Syntax { message, .. } => message.clone(),
            LoadError::TooDeep { limit, .. } => {
                format!("JSON nested deeper than {limit} levels")
            }
            _ => "a JSON value too large to read".to_string(),
        };
        return Err(HclError {
            message,
            at: e.offset(),
            limit,
        });
    }
    if values > 1 {
        return Err(HclError {
            message: "extraneous data after the JSON value".to_string(),
            at: outcome.consumed,
            limit: false,
        });
    }
    let mut w = Writer {
        nest: 0,
        out: String::with_capacity(text.len()),
        map: SpanMap::default(),
        problems: Vec::new(),
        refused: None,
    };
    match &root {
        Some(r) if matches!(r.value, Value::Map(_) | Value::Seq(_)) => w.top(r),
        Some(r) => {
            return Err(HclError {
                message: "the root of a Terraform JSON file must be an object".to_string(),
                at: r.span.start,
                limit: false,
            });
        }
        None => {}
    }
    if let Some(e) = w.refused {
        return Err(e);
    }
    Ok(Made {
        text: w.out,
        map: w.map,
        problems: w.problems,
    })
}

/// What a body is the body of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// A node-pool resource, or one of its nested blocks.
    Pool,
    /// Any other resource: its labels only.
    Other,
    Module,
    Variable,
    Output,
    Locals,
}

/// How a value is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Strings are templates.
    Expr,
    /// Strings are themselves.
    Literal,
}

/// The text of a JSON string node.
fn string(n: &Node) -> Option<&str> {
    match &n.value {
        Value::Scalar(s) if s.style == Style::DoubleQuoted => Some(&s.text),
        _ => None,
    }
}

/// The properties of an object, or of each object of an array (`collectDeepAttrs`).
fn properties(n: &Node) -> Vec<(&Node, &Node)> {
    match &n.value {
        Value::Map(m) => m.iter().map(|(k, v)| (k, v)).collect(),
        Value::Seq(items) => items
            .iter()
            .filter_map(|i| match &i.value {
                Value::Map(m) => Some(m.iter().map(|(k, v)| (k, v))),
                _ => None,
            })
            .flatten()
            .collect(),
        Value::Scalar(_) => Vec::new(),
    }
}

/// The bodies a block value gives: an object is one, an array of objects one each, `null`
/// none.
fn bodies(n: &Node) -> Vec<&Node> {
    match &n.value {
        Value::Map(_) => vec![n],
        Value::Seq(items) => items
            .iter()
            .filter(|i| matches!(i.value, Value::Map(_)))
            .collect(),
        Value::Scalar(_) => Vec::new(),
    }
}

/// May this value be nested blocks (an object, an array of objects, or `null`)?
fn blockish(n: &Node) -> bool {
    match &n.value {
        Value::Map(_) => true,
        Value::Seq(items) => items.iter().all(|i| matches!(i.value, Value::Map(_))),
        Value::Scalar(s) => s.style == Style::Plain && &*s.text == "null",
    }
}

/// An HCL identifier (a name an argument, a block type or a label may have here).
fn ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

struct Writer {
    /// The blocks the next line is in.
    nest: usize,
    out: String,
    map: SpanMap,
    problems: Vec<(Span, String)>,
    /// A string whose template the HCL parser would take too long to read (see
    /// `parse::MAX_OBJECT_KEYS`): the file is not read.
    refused: Option<HclError>,
}

impl Writer {
    /// What is written next was made from `span` of the JSON file.
    fn anchor(&mut self, span: Span) {
        self.map.anchors.push((
            self.out.len(),
            span.start,
            span.end.saturating_sub(span.start),
        ));
    }

    fn top(&mut self, root: &Node) {
        for (k, v) in properties(root) {
            let (kind, labels, body) = match string(k) {
                Some("resource") => ("resource", 2, Body::Other),
                Some("module") => ("module", 1, Body::Module),
                Some("variable") => ("variable", 1, Body::Variable),
                Some("output") => ("output", 1, Body::Output),
                Some("locals") => ("locals", 0, Body::Locals),
                _ => continue,
            };
            self.blocks(kind, k, v, labels, &mut Vec::new(), body);
        }
    }

    /// The blocks of `kind` in `v`, `left` labels still to peel off.
    fn blocks<'n>(
        &mut self,
        kind: &str,
        key: &Node,
        v: &'n Node,
        left: usize,
        labels: &mut Vec<&'n Node>,
        body: Body,
    ) {
        if left > 0 {
            for (k, inner) in properties(v) {
                labels.push(k);
                self.blocks(kind, key, inner, left - 1, labels, body);
                labels.pop();
            }
            return;
        }
        let texts: Option<Vec<&str>> = labels.iter().map(|l| string(l)).collect();
        let Some(texts) = texts.filter(|t| t.iter().all(|l| ident(l))) else {
            return;
        };
        // A resource's body is read only for the node-pool kinds.
        let body = match (kind, texts.first()) {
            ("resource", Some(t)) if super::is_pool_kind(t) => Body::Pool,
            _ => body,
        };
        for b in bodies(v) {
            self.anchor(key.span);
            self.out.push_str(kind);
            for (l, t) in labels.iter().zip(&texts) {
                self.out.push(' ');
                self.anchor(l.span);
                self.out.push('"');
                self.out.push_str(t);
                self.out.push('"');
            }
            self.out.push_str(" {\n");
            self.body(b, body);
            self.out.push_str("}\n");
        }
    }

    fn body(&mut self, n: &Node, body: Body) {
        if self.nest >= MAX_DEPTH {
            return;
        }
        self.nest += 1;
        self.body_inner(n, body);
        self.nest -= 1;
    }

    fn body_inner(&mut self, n: &Node, body: Body) {
        for (k, v) in properties(n) {
            let Some(name) = string(k).filter(|s| ident(s)) else {
                continue;
            };
            let mode = match (body, name) {
                (Body::Other, _) => continue,
                (Body::Locals, _) => Mode::Expr,
                (Body::Variable, "default" | "nullable") => Mode::Literal,
                (Body::Variable, "type") => {
                    self.type_expr(k, v);
                    continue;
                }
                (Body::Variable, _) => continue,
                (Body::Output, "value") => Mode::Expr,
                (Body::Output, _) => continue,
                (Body::Module, "source" | "version") => Mode::Literal,
                (Body::Module | Body::Pool, n) if SKIPPED.contains(&n) => continue,
                (Body::Module, _) => Mode::Expr,
                (Body::Pool, "dynamic") => {
                    self.dynamic(k, v);
                    continue;
                }
                (Body::Pool, n) if NESTED_BLOCKS.contains(&n) && blockish(v) => {
                    for b in bodies(v) {
                        self.anchor(k.span);
                        self.out.push_str(name);
                        self.out.push_str(" {\n");
                        self.body(b, Body::Pool);
                        self.out.push_str("}\n");
                    }
                    continue;
                }
                (Body::Pool, _) => Mode::Expr,
            };
            self.anchor(k.span);
            self.out.push_str(name);
            self.out.push_str(" = ");
            self.value(v, mode, self.nest);
            self.out.push('\n');
        }
    }

    /// `"dynamic": { "TYPE": { "for_each": …, "iterator": "NAME", "content": { … } } }`.
    fn dynamic(&mut self, key: &Node, v: &Node) {
        for (t, spec) in properties(v) {
            let Some(kind) = string(t).filter(|s| ident(s)) else {
                continue;
            };
            for b in bodies(spec) {
                self.anchor(key.span);
                self.out.push_str("dynamic \"");
                self.out.push_str(kind);
                self.out.push_str("\" {\n");
                for (k, x) in properties(b) {
                    match string(k) {
                        Some("for_each") => {
                            self.anchor(k.span);
                            self.out.push_str("for_each = ");
                            self.value(x, Mode::Expr, self.nest);
                            self.out.push('\n');
                        }
                        Some("iterator") => {
                            if let Some(it) = string(x).filter(|s| ident(s)) {
                                self.anchor(x.span);
                                self.out.push_str("iterator = ");
                                self.out.push_str(it);
                                self.out.push('\n');
                            }
                        }
                        Some("content") => {
                            for c in bodies(x) {
                                self.anchor(k.span);
                                self.out.push_str("content {\n");
                                self.body(c, Body::Pool);
                                self.out.push_str("}\n");
                            }
                        }
                        _ => {}
                    }
                }
                self.out.push_str("}\n");
            }
        }
    }

    /// A variable's `type`: an expression written in a string (kept when it parses).
    fn type_expr(&mut self, k: &Node, v: &Node) {
        let Some(t) = string(v) else { return };
        if t.contains(['\n', '\r']) || hcl_edit::parser::parse_expr(t).is_err() {
            return;
        }
        self.anchor(k.span);
        self.out.push_str("type = ");
        self.anchor(v.span);
        self.out.push_str(t);
        self.out.push('\n');
    }

    fn value(&mut self, v: &Node, mode: Mode, depth: usize) {
        self.anchor(v.span);
        if depth > MAX_DEPTH {
            self.out.push_str(UNREADABLE);
            return;
        }
        match &v.value {
            Value::Scalar(s) if s.style == Style::DoubleQuoted => match mode {
                Mode::Literal => self.literal(&s.text),
                Mode::Expr => self.template(&s.text, v.span),
            },
            // `true`, `false`, `null` and numbers: the same in both syntaxes.
            Value::Scalar(s) => self.out.push_str(&s.text),
            Value::Seq(items) => {
                self.out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.value(x, mode, depth + 1);
                }
                self.out.push(']');
            }
            Value::Map(entries) => {
                self.out.push('{');
                // A repeated property is Terraform's error ("Duplicate object attribute"),
                // which keeps the first.
                let mut seen = std::collections::HashSet::new();
                let mut first = true;
                for (k, x) in entries {
                    let Some(key) = string(k) else { continue };
                    if !seen.insert(key) {
                        continue;
                    }
                    if !first {
                        self.out.push(',');
                    }
                    first = false;
                    self.out.push(' ');
                    self.anchor(k.span);
                    match mode {
                        Mode::Literal => self.literal(key),
                        Mode::Expr => self.template(key, k.span),
                    }
                    self.out.push_str(" = ");
                    self.value(x, mode, depth + 1);
                }
                self.out.push_str(" }");
            }
        }
    }

    /// A string as a quoted literal: no template sequence in it.
    fn literal(&mut self, s: &str) {
        self.out.push('"');
        escape_into(&mut self.out, s);
        self.out.push('"');
    }

    /// A string as the template it is in Terraform's JSON syntax, written as a quoted
    /// template with the same meaning.
    fn template(&mut self, raw: &str, span: Span) {
        // Most strings: no template sequence, nothing a quoted string reads differently.
        if !raw.contains(|c: char| c == '"' || c == '\\' || c.is_control())
            && !raw.contains("${")
            && !raw.contains("%{")
        {
            self.out.push('"');
            self.out.push_str(raw);
            self.out.push('"');
            return;
        }
        // The template's expressions may hold objects: refused before the parser sees them
        // when one is larger than the parser reads in reasonable time.
        if let Some(e) = super::scan::refuse_template(raw, span.start) {
            self.refused.get_or_insert(e);
            self.out.push_str(UNREADABLE);
            return;
        }
        let t = match hcl_edit::parser::parse_template(raw) {
            Ok(t) => t,
            Err(e) => {
                self.problems.push((
                    span,
                    format!("this string is not a valid template: {}", e.message()),
                ));
                self.out.push_str(UNREADABLE);
                return;
            }
        };
        let mut made = String::from("\"");
        for el in t.iter() {
            let part = match el {
                Element::Literal(l) => {
                    escape_into(&mut made, l.value());
                    continue;
                }
                Element::Interpolation(i) => i.span(),
                Element::Directive(d) => match &**d {
                    Directive::If(x) => x.span(),
                    Directive::For(x) => x.span(),
                },
            };
            let Some(text) = part.and_then(|r| raw.get(r)) else {
                self.out.push_str(UNREADABLE);
                return;
            };
            // An interpolation is an expression: its line breaks are white space, its quotes
            // its own strings'. A directive holds literal text too, which cannot be re-escaped
            // here: one with a quote, a backslash or a control character is not read.
            let directive = matches!(el, Element::Directive(_));
            if directive && text.contains(|c: char| c == '"' || c == '\\' || c.is_control()) {
                self.out.push_str(UNREADABLE);
                return;
            }
            made.extend(text.chars().map(|c| if c.is_control() { ' ' } else { c }));
        }
        made.push('"');
        self.out.push_str(&made);
    }
}

/// Appends `s` escaped for a quoted HCL string, `${` and `%{` doubled so they stay literal.
fn escape_into(out: &mut String, s: &str) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' | '%' if chars.peek() == Some(&'{') => {
                out.push(c);
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(json: &str) -> String {
        make(json).expect("reads").text
    }

    #[test]
    fn blocks_labels_and_bodies() {
        let text = made(
            r#"{
  "//": "a comment",
  "resource": {
    "aws_eks_node_group": {
      "gpu": {
        "node_group_name": "gpu-${var.env}",
        "labels": { "role": "gpu", "${var.k}": "v" },
        "taint": [{ "key": "a", "effect": "NO_SCHEDULE" }, { "key": "b", "effect": "NO_EXECUTE" }],
        "scaling_config": { "max_size": 3 },
        "lifecycle": { "ignore_changes": ["x"] },
        "dynamic": { "taint": { "for_each": "${var.t}", "iterator": "t", "content": { "key": "${t.value}" } } }
      }
    },
    "aws_iam_role": { "r": { "name": "x" } }
  },
  "variable": { "v": { "default": "${not a template}", "type": "map(string)", "description": "d" } },
  "module": { "m": { "source": "./m", "count": 2, "x": [1, true, null] } },
  "locals": [{ "a": "${1 + 2}" }, { "b": "say \"hi\" ${upper(\"x\")}" }],
  "output": { "o": { "value": "${local.a}", "sensitive": true } }
}"#,
        );
        let body = hcl_edit::parser::parse_body(&text).expect("the made text parses");
        assert_eq!(body.blocks().count(), 7, "{text}");
        assert!(text.contains("labels = { \"role\" = \"gpu\", \"${var.k}\" = \"v\" }"));
        assert_eq!(text.matches("taint {").count(), 2, "{text}");
        assert!(text.contains("scaling_config {\nmax_size = 3\n}"));
        assert!(!text.contains("lifecycle"));
        assert!(text.contains("dynamic \"taint\" {\nfor_each = \"${var.t}\"\niterator = t\ncontent {\nkey = \"${t.value}\"\n}\n}"));
        assert!(text.contains("resource \"aws_iam_role\" \"r\" {\n}"));
        assert!(text.contains("default = \"$${not a template}\""));
        assert!(text.contains("type = map(string)"));
        assert!(!text.contains("description"));
        assert!(text.contains("source = \"./m\"\ncount = 2\nx = [1, true, null]"));
        assert!(text.contains(r#"b = "say \"hi\" ${upper("x")}""#), "{text}");
        assert!(!text.contains("sensitive"));
    }

    #[test]
    fn positions_map_back_to_the_json() {
        let json =
            "{\"resource\": {\"aws_eks_node_group\": {\"a\": {\n  \"labels\": {\"k\": \"v\"}\n}}}}";
        let m = make(json).expect("reads");
        let at = m.text.find("labels").expect("made");
        assert_eq!(&json[m.map.offset(at)..m.map.offset(at) + 8], "\"labels\"");
        let name = m.text.find("\"a\"").expect("label");
        assert_eq!(&json[m.map.offset(name)..m.map.offset(name) + 3], "\"a\"");
    }

    /// Deeper than hcl-edit parses: the deep part unknown or not read, the file read.
    #[test]
    fn deep_nesting_is_cut_not_refused() {
        let mut blocks = String::from("{\"labels\": {\"a\": \"b\"}}");
        let mut value = String::from("\"x\"");
        for _ in 0..200 {
            blocks = format!("{{\"node_config\": {blocks}}}");
            value = format!("[{value}]");
        }
        let json = format!(
            r#"{{"locals": {{"v": {value}}}, "resource": {{"google_container_node_pool": {{"p": {blocks}}}}}}}"#
        );
        let m = make(&json).expect("reads");
        hcl_edit::parser::parse_body(&m.text).expect("the made text parses");
        assert!(m.text.contains(UNREADABLE));
    }

    #[test]
    fn errors_and_bad_templates() {
        let e = make("{\"resource\": ").err().expect("syntax error");
        assert!(!e.limit);
        assert!(make("[1] [2]").is_err());
        assert!(make("\"x\"").is_err());
        let m = make(r#"{"locals": {"a": "${x", "b": "ok \"${y}\""}}"#).expect("reads");
        assert_eq!(m.problems.len(), 1, "{:?}", m.problems);
        assert!(m.text.contains(&format!("a = {UNREADABLE}")));
        assert!(hcl_edit::parser::parse_body(&m.text).is_ok(), "{}", m.text);
    }
}
