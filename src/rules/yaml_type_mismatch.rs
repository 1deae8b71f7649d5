//! `yaml-type-mismatch`: a scheduling field that YAML 1.1 turns into the wrong JSON type, with the
//! server's 400 text (kubectl's YAML decoding (sigs.k8s.io/yaml over go-yaml v2) and the server's
//! typed decoding).

use super::{Decode, Rule};
use super::decoding::*;

pub static META: RuleMeta = RuleMeta {
    name: "yaml-type-mismatch",
    summary: "A scheduling field that YAML 1.1 turns into the wrong JSON type (`value: yes`, `tolerationSeconds: \"300\"`)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/yaml-type-mismatch.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check).decode(Decode::Type);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // The server's decoder keeps only the first type error, in JSON document order.
    let mut first_type_error = true;
    // A JSON stream's values are JSON's, not YAML 1.1's (`load::json`).
    let json = crate::load::json::is_json_stream(&ctx.source.text);
    // What go-yaml cannot decode is looked for in the whole object (`undecodable`), when the
    // document holds a tagged or non-finite scalar, the rest in the scheduling fields.
    let whole = if ctx.document.maybe_undecodable {
        undecodable(ctx.object.node)
    } else {
        Vec::new()
    };
    let problems = ctx
        .decoded
        .iter()
        .filter(|p| !matches!(p, Problem::NonFinite { .. } | Problem::BadTag { .. }))
        .chain(&whole);
    for p in problems {
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
                let (node, key, go_type, go_struct) = (*node, *key, *go_type, *go_struct);
                let text = node.text().unwrap_or("");
                // A map's key may hold dots (`cloud.google.com/gke-accelerator-count`): the
                // field is named by its key node, not by the path's last segment.
                let name = key.and_then(Node::text).unwrap_or_else(|| last(path));
                let (message, help) = match go_type {
                    "string" => (
                        format!(
                            "{}, but `{}` must be a string",
                            describe(resolved, text, json),
                            name
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
                            name,
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
                        format!("`{}` must be a {go_type}, but this is {what}", last(path)),
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
                let mut f = META.finding(message)
                    .primary(node.span, format!("decodes as {what}"))
                    .help(help)
                    .field(path.clone())
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
                    META.finding_at(Severity::Warning, note.to_string())
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
                    META.finding(format!("`{text}` is the YAML float {what}, which JSON cannot carry: kubectl stops reading the file here (`error converting YAML to JSON: json: unsupported value: {what}`) and sends neither this object nor any after it"),
                    )
                    .primary(node.span, "not representable in JSON")
                    // kubectl's own error, not the API server's: nothing is sent.
                    .help(format!(
                        "quote it if you mean the string, or write a number; kubectl says `error parsing {}: error converting YAML to JSON: json: unsupported value: {what}`",
                        ctx.source.name
                    ))
                    .field(path),
                );
            }
            Problem::BadTag { node, path, tag } => {
                let text = node.text().unwrap_or("");
                // go-yaml names the type the text resolves to, then the tag.
                let is = match crate::load::yaml11::resolve_plain(text) {
                    Resolved::Null => "!!null",
                    Resolved::Bool(_) => "!!bool",
                    Resolved::Int(_) | Resolved::Uint(_) => "!!int",
                    Resolved::Float(_) | Resolved::NonFinite(_) => "!!float",
                    _ => "!!str",
                };
                out.push(
                    META.finding(format!(
                        "`{tag}` does not fit `{text}`: kubectl cannot decode it, stops reading the file here and sends neither this object nor any after it"
                    ))
                    .primary(node.span, format!("not a {tag}"))
                    .help(format!(
                        "remove the `{tag}` tag, or write a value of that type; kubectl says `error parsing {}: error converting YAML to JSON: yaml: cannot decode {is} `{text}` as a {tag}`",
                        ctx.source.name
                    ))
                    .field(path),
                );
            }
            Problem::Unknown { .. } => {}
        }
    }
}
