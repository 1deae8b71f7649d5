//! The kubelet's `--node-labels` and `--register-with-taints` flags, as node user data and
//! boot commands pass them (the EKS AMI's `/etc/eks/bootstrap.sh --kubelet-extra-args`,
//! nodeadm's `kubelet.flags`): the labels and taints a node registers with
//! (kubernetes/kubernetes `cmd/kubelet/app/options/options.go`).

/// The labels and taints of kubelet flags written in user data.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct KubeletFlags {
    pub(crate) labels: Vec<(String, String)>,
    /// (key, value, effect)
    pub(crate) taints: Vec<(String, String, String)>,
}

/// `--node-labels=k=v,…` and `--register-with-taints=k=v:Effect,…` (or with a space for `=`)
/// anywhere in `text`: shell arguments, quoted or not, or a YAML/JSON list of flags.
pub(crate) fn kubelet_flags(text: &str) -> KubeletFlags {
    let mut out = KubeletFlags::default();
    let tokens: Vec<&str> = text
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| matches!(c, '\'' | '"' | '[' | ']' | ',' | '\\')))
        .collect();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        i += 1;
        let (flag, inline) = match token.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (token, None),
        };
        if flag != "--node-labels" && flag != "--register-with-taints" {
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => match tokens.get(i) {
                Some(v) => {
                    i += 1;
                    v
                }
                None => break,
            },
        };
        for item in value.split(',').filter(|s| !s.is_empty()) {
            if flag == "--node-labels" {
                let (k, v) = item.split_once('=').unwrap_or((item, ""));
                out.labels.push((k.to_string(), v.to_string()));
            } else {
                let (kv, effect) = item.rsplit_once(':').unwrap_or((item, ""));
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                out.taints
                    .push((k.to_string(), v.to_string(), effect.to_string()));
            }
        }
    }
    out
}
