//! Run-wide settings the rules read: the Kubernetes version whose wording and features to
//! reproduce, and feature gates.

/// Supported `--kube-version` minors.
pub const MIN_MINOR: u32 = 30;
pub const MAX_MINOR: u32 = 37;
pub const DEFAULT_MINOR: u32 = 35;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Kubernetes 1.<minor>.
    pub minor: u32,
    /// `TaintTolerationComparisonOperators` (KEP-5471): `Lt`/`Gt` tolerations.
    pub comparison_operators: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            minor: DEFAULT_MINOR,
            comparison_operators: false,
        }
    }
}

impl Settings {
    /// Parses `1.35` (or `v1.35`, `1.35.2`).
    pub fn parse_version(s: &str) -> Result<u32, String> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().unwrap_or("");
        let minor = parts.next().unwrap_or("");
        if major != "1" {
            return Err(format!(
                "unsupported Kubernetes version `{s}`: expected 1.{MIN_MINOR} to 1.{MAX_MINOR}"
            ));
        }
        let m: u32 = minor
            .parse()
            .map_err(|_| format!("invalid Kubernetes version `{s}`: expected e.g. 1.35"))?;
        if !(MIN_MINOR..=MAX_MINOR).contains(&m) {
            return Err(format!(
                "unsupported Kubernetes version `{s}`: expected 1.{MIN_MINOR} to 1.{MAX_MINOR}"
            ));
        }
        Ok(m)
    }

    /// Applies `Name=true,Other=false`.
    pub fn apply_feature_gates(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item.split_once('=').ok_or_else(|| {
                format!("invalid feature gate `{item}`: expected Name=true|false")
            })?;
            let on = match value.trim() {
                "true" => true,
                "false" => false,
                v => return Err(format!("invalid value `{v}` for feature gate `{name}`")),
            };
            match name.trim() {
                "TaintTolerationComparisonOperators" => {
                    if on && self.minor < 35 {
                        return Err(
                            "TaintTolerationComparisonOperators needs --kube-version 1.35 or later"
                                .to_string(),
                        );
                    }
                    self.comparison_operators = on;
                }
                other => {
                    return Err(format!(
                        "unknown feature gate `{other}` (known: TaintTolerationComparisonOperators)"
                    ));
                }
            }
        }
        Ok(())
    }
}
