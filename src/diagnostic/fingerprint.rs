//! The identity of a finding across runs and edits (baselines, SARIF `partialFingerprints`).

use super::Finding;

/// A relative URI for a path as given: `./a b.yaml` → `a%20b.yaml`.
pub fn uri(path: &str) -> String {
    let p = path.strip_prefix("./").unwrap_or(path);
    let p = p.replace('\\', "/");
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char);
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// FNV-1a, 64 bit: stable across runs and platforms.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The identity of a finding that survives unrelated edits: no line numbers.
pub fn fingerprint(f: &Finding) -> String {
    let object = f.object.as_ref().map_or(String::new(), |o| {
        format!(
            "{}/{}/{}",
            o.kind,
            o.namespace.as_deref().unwrap_or(""),
            o.name.as_deref().unwrap_or("")
        )
    });
    let field = f.field.clone().unwrap_or_else(|| f.message.to_string());
    format!(
        "{:016x}",
        fnv1a(&format!("{}|{}|{}|{}", f.rule, uri(&f.file), object, field))
    )
}
