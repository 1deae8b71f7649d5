//! The JSON of PodTolerationRestriction's annotations and configuration, decoded as Go's
//! `encoding/json` decodes it into `[]v1.Toleration` (`extractNSTolerations` in
//! plugin/pkg/admission/podtolerationrestriction/admission.go): field names match without
//! regard to case, unknown fields are ignored, `null` leaves a field empty, and a value of the
//! wrong type is an `UnmarshalTypeError` whose text is reproduced. A syntax error is Go's own
//! `SyntaxError` text (`load::go_json`), which `json.Unmarshal` returns before any type error. What
//! Go accepts but serde_json does not (a lone UTF-16 surrogate escape, which Go decodes as
//! U+FFFD; a number beyond f64, which Go reports as a type error naming the number; nesting
//! deeper than serde_json's 128 levels, which Go allows to 10000) keeps serde_json's
//! description after `invalid JSON: `.

use serde_json::Value;

use crate::analysis::types::WorkloadToleration;
use crate::util::intern;

/// Go's name for a JSON value's type in `UnmarshalTypeError`.
fn json_kind(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(_) => "bool".to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(_), _) | (_, Some(_)) => "number".to_string(),
            // A number that is no int64 names itself: `number 1.5`.
            _ => format!("number {n}"),
        },
        Value::String(_) => "string".to_string(),
        Value::Array(_) => "array".to_string(),
        Value::Object(_) => "object".to_string(),
    }
}

fn type_error(v: &Value, field: Option<&str>, go_type: &str) -> String {
    let kind = json_kind(v);
    match field {
        Some(f) => {
            format!(
                "json: cannot unmarshal {kind} into Go struct field Toleration.{f} of type {go_type}"
            )
        }
        None => format!("json: cannot unmarshal {kind} into Go value of type {go_type}"),
    }
}

/// Decodes a list of tolerations; `Err` with the message the plugin returns.
pub fn tolerations(text: &str) -> Result<Vec<WorkloadToleration>, String> {
    if let Some(e) = crate::load::go_json::syntax_error(text) {
        return Err(e);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let items = match &value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => return Err(type_error(other, None, "[]v1.Toleration")),
    };
    let mut out = Vec::with_capacity(items.len());
    // Go keeps decoding after a type error and returns the first one.
    let mut first_error: Option<String> = None;
    for item in items {
        let mut fields: [String; 4] = Default::default();
        let mut seconds = None;
        match item {
            Value::Null => {}
            Value::Object(map) => {
                for (name, v) in map {
                    let lower = name.to_ascii_lowercase();
                    let slot = ["key", "operator", "value", "effect"]
                        .iter()
                        .position(|f| *f == lower);
                    match (slot, v) {
                        (_, Value::Null) => {}
                        (Some(i), Value::String(s)) => {
                            if let Some(f) = fields.get_mut(i) {
                                f.clone_from(s);
                            }
                        }
                        (Some(i), other) => {
                            let f = ["key", "operator", "value", "effect"].get(i).copied();
                            first_error.get_or_insert_with(|| type_error(other, f, "string"));
                        }
                        (None, v) if lower == "tolerationseconds" => match v.as_i64() {
                            Some(n) => seconds = Some(n),
                            None => {
                                first_error.get_or_insert_with(|| {
                                    type_error(v, Some("tolerationSeconds"), "int64")
                                });
                            }
                        },
                        (None, _) => {}
                    }
                }
            }
            other => {
                first_error.get_or_insert_with(|| type_error(other, None, "v1.Toleration"));
            }
        }
        let [key, operator, value, effect] = fields;
        out.push(WorkloadToleration {
            key: intern(&key),
            operator: intern(&operator),
            value: intern(&value),
            effect: intern(&effect),
            seconds,
            span: Default::default(),
            path: intern(""),
            scalars: Default::default(),
        });
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_go_does() {
        let t = tolerations(r#"[{"Key":"a","operator":"Exists","effect":"NoSchedule","x":1},{"key":"b","value":null,"tolerationSeconds":30}]"#)
            .expect("valid");
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].display(), "a:NoSchedule");
        assert_eq!(t[1].seconds, Some(30));
        assert!(tolerations("null").expect("null").is_empty());
        assert_eq!(
            tolerations(r#"{"key":"a"}"#).unwrap_err(),
            "json: cannot unmarshal object into Go value of type []v1.Toleration"
        );
        assert_eq!(
            tolerations(r#"[{"key":1}]"#).unwrap_err(),
            "json: cannot unmarshal number into Go struct field Toleration.key of type string"
        );
        assert_eq!(
            tolerations(r#"[{"tolerationSeconds":1.5}]"#).unwrap_err(),
            "json: cannot unmarshal number 1.5 into Go struct field Toleration.tolerationSeconds of type int64"
        );
        assert_eq!(
            tolerations(r#"["a"]"#).unwrap_err(),
            "json: cannot unmarshal string into Go value of type v1.Toleration"
        );
        assert_eq!(
            tolerations("[{").unwrap_err(),
            "unexpected end of JSON input"
        );
        // The syntax error wins over an earlier type error, as `checkValid` runs first.
        assert_eq!(
            tolerations(r#"[{"key":1},{"key":"a",}]"#).unwrap_err(),
            "invalid character '}' looking for beginning of object key string"
        );
    }
}
