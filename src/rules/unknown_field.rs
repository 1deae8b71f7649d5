//! `unknown-field`: a field the typed object does not have; kubectl's strict validation rejects it
//! (kubectl's YAML decoding (sigs.k8s.io/yaml over go-yaml v2) and the server's typed decoding).

use super::{Decode, Rule};
use super::decoding::*;

pub static META: RuleMeta = RuleMeta {
    name: "unknown-field",
    summary: "A field the typed object does not have (`tolerationseconds`); kubectl's strict validation rejects it",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/unknown-field.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check).decode(Decode::Strict);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let unknown: Vec<_> = ctx
        .decoded
        .iter()
        .filter_map(|p| match p {
            Problem::Unknown {
                key,
                path,
                known,
                go_struct,
            } => Some((*key, path.as_str(), *known, *go_struct)),
            _ => None,
        })
        .collect();
    if unknown.is_empty() {
        return;
    }
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
        let mut f = META.finding(format!("unknown field `{name}` in a {go_struct}"),
        )
        .primary(key.span, "unknown field")
        .help(help)
        .field(*path);
        if i == 0
            && let Some(a) = &api
        {
            f = f.api_error(a.clone());
        }
        out.push(f);
    }
}
