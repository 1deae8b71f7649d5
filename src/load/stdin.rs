//! Standard input: read with the checks a file gets, and `helm template` output split into
//! the templates it was rendered from.

use std::path::Path;

use super::ReadFailure;

/// Reads standard input with the same checks as a file.
pub fn read(max_size: u64) -> Result<String, ReadFailure> {
    super::read_limited(std::io::stdin().lock(), 0, max_size)
}

/// Is standard input something given to taintlint — a pipe, a file or a socket — rather than
/// a terminal or a null device (what CI runners, cron and `</dev/null` leave it)? Where the
/// kind of file cannot be told (not Unix), anything but a terminal counts.
pub fn is_redirected() -> bool {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
            return false;
        };
        std::fs::File::from(fd).metadata().is_ok_and(|m| {
            let t = m.file_type();
            t.is_fifo() || t.is_file() || t.is_socket()
        })
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Names standard input's documents: `helm template` output (documents after a
/// `# Source: chart/templates/x.yaml` comment) is split into its templates, unless
/// `stdin_filename` is given without `source_root`, which names all of standard input. With
/// `source_root`, the chart's directory, a template's path is moved there
/// (`chart/templates/x.yaml` becomes `<source_root>/templates/x.yaml`) so findings point at the
/// files in the repository. Documents without a `# Source:` comment are named `stdin_filename`
/// (default `<stdin>`) with their lines in standard input.
pub fn name_documents(
    stdin_filename: Option<&str>,
    source_root: Option<&Path>,
    text: String,
) -> Vec<(String, String)> {
    let name = stdin_filename.unwrap_or("<stdin>");
    match (stdin_filename, source_root) {
        (Some(_), None) => vec![(name.to_string(), text)],
        (_, root) => {
            let mut parts = split_helm(name, text);
            if let Some(root) = root {
                for (part, _) in parts.iter_mut() {
                    if *part != name {
                        *part = under_root(root, part);
                    }
                }
            }
            parts
        }
    }
}

/// `chart/templates/x.yaml` (a path as Helm prints it, from the chart's name) as a path under
/// the chart's directory `root`: `root/templates/x.yaml`; a subchart's
/// `chart/charts/sub/templates/y.yaml` becomes `root/charts/sub/templates/y.yaml`.
fn under_root(root: &Path, source: &str) -> String {
    let rest = source.split_once('/').map_or(source, |(_, rest)| rest);
    let root = root.to_string_lossy();
    let root = root.trim_end_matches(['/', '\\']);
    if root.is_empty() || root == "." {
        rest.to_string()
    } else {
        format!("{root}/{rest}")
    }
}

/// Splits Helm output on stdin into one input per `# Source: chart/templates/x.yaml`, so
/// findings name the template and the line within it: a template's text starts on the line
/// after its `# Source:` comment, which is its first line. The documents of one template
/// (Helm repeats the comment before each) are one input, in their order, joined by `---`.
/// Documents without the comment keep `name` and their lines in `text`.
pub fn split_helm(name: &str, text: String) -> Vec<(String, String)> {
    if !text.contains("# Source: ") {
        return vec![(name.to_string(), text)];
    }
    let mut out: Vec<(String, String)> = Vec::new();
    let mut chunk_start = 0;
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("---") && line[3..].trim().is_empty() && offset > 0 {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    for end in starts {
        let chunk = &text[chunk_start..end];
        match template_of(chunk) {
            Some((src, body)) => match out.iter_mut().find(|(n, _)| n == src) {
                Some((_, joined)) => {
                    if !joined.ends_with('\n') {
                        joined.push('\n');
                    }
                    joined.push_str("---\n");
                    joined.push_str(body);
                }
                None => out.push((src.to_string(), body.to_string())),
            },
            None if chunk.trim().is_empty() => {}
            None => {
                // Keep stdin's own line numbers for documents without a Source comment.
                let lines_before = text[..chunk_start].matches('\n').count();
                out.push((
                    name.to_string(),
                    format!("{}{chunk}", "\n".repeat(lines_before)),
                ));
            }
        }
        chunk_start = end;
    }
    out
}

/// Whether a `# Source:` path names a file inside the chart, as Helm prints them: relative,
/// without `..`, without control characters. Any other (a stream from an attacker's chart or
/// a hand-made one) would put findings, and SARIF locations, outside the repository: its
/// documents keep standard input's name (see [`outside_sources`]).
fn in_repository(src: &str) -> bool {
    let drive = src.as_bytes().get(1) == Some(&b':');
    !src.is_empty()
        && !src.starts_with(['/', '\\'])
        && !drive
        && !src.split(['/', '\\']).any(|part| part == "..")
        && !src.chars().any(crate::util::text::is_unsafe)
}

/// The `# Source:` paths of a Helm stream that are not taken as names (see
/// [`in_repository`]), each once, in order: for a note to the user.
pub fn outside_sources(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !text.contains("# Source: ") {
        return out;
    }
    let mut seen = std::collections::HashSet::new();
    for line in text.lines() {
        if let Some(src) = line.strip_prefix("# Source: ") {
            let src = src.trim();
            if !src.is_empty() && !in_repository(src) && seen.insert(src) {
                out.push(src.to_string());
            }
        }
    }
    out
}

/// The template a chunk (a `---` line, comments, then a document) was rendered from, and the
/// text after its `# Source:` line: `None` when the leading comments name no template.
fn template_of(chunk: &str) -> Option<(&str, &str)> {
    let mut offset = 0;
    for line in chunk.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(src) = bare.strip_prefix("# Source: ") {
            let src = src.trim();
            return in_repository(src).then(|| (src, &chunk[offset + line.len()..]));
        }
        if !(bare.starts_with('#') || bare.starts_with("---") || bare.trim().is_empty()) {
            return None;
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELM: &str = "---\n# Source: app/templates/a.yaml\nkind: Pod\nmetadata:\n  name: a\n---\n# Source: app/templates/b.yaml\nkind: Pod\n---\n# Source: app/templates/a.yaml\nkind: Service\n";

    #[test]
    fn templates_start_after_their_source_line() {
        let parts = split_helm("<stdin>", HELM.to_string());
        assert_eq!(
            parts,
            [
                (
                    "app/templates/a.yaml".to_string(),
                    "kind: Pod\nmetadata:\n  name: a\n---\nkind: Service\n".to_string()
                ),
                (
                    "app/templates/b.yaml".to_string(),
                    "kind: Pod\n".to_string()
                ),
            ]
        );
    }

    #[test]
    fn documents_without_source_keep_stdin_lines() {
        let parts = split_helm("in", format!("kind: A\n---\nkind: B\n{HELM}"));
        assert_eq!(parts[0], ("in".to_string(), "kind: A\n".to_string()));
        assert_eq!(parts[1], ("in".to_string(), "\n---\nkind: B\n".to_string()));
        assert_eq!(parts.len(), 4);
        // CRLF and a Source comment with nothing after it.
        let parts = split_helm(
            "in",
            "---\r\n# Source: c/t.yaml\r\nkind: A\r\n---\n# Source: \nkind: B\n".into(),
        );
        assert_eq!(
            parts[0],
            ("c/t.yaml".to_string(), "kind: A\r\n".to_string())
        );
        assert_eq!(parts[1].0, "in");
    }

    #[test]
    fn stdin_filename_and_source_root() {
        let names = |f: Option<&str>, root: Option<&str>| -> Vec<String> {
            name_documents(f, root.map(Path::new), format!("kind: X\n{HELM}"))
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert_eq!(
            names(None, None),
            ["<stdin>", "app/templates/a.yaml", "app/templates/b.yaml"]
        );
        assert_eq!(names(Some("all.yaml"), None), ["all.yaml"]);
        assert_eq!(
            names(Some("all.yaml"), Some("charts/app/")),
            [
                "all.yaml",
                "charts/app/templates/a.yaml",
                "charts/app/templates/b.yaml"
            ]
        );
        assert_eq!(
            names(None, Some(".")),
            ["<stdin>", "templates/a.yaml", "templates/b.yaml"]
        );
        assert_eq!(
            under_root(Path::new("deploy/chart"), "app/charts/sub/templates/y.yaml"),
            "deploy/chart/charts/sub/templates/y.yaml"
        );
        assert_eq!(under_root(Path::new("r"), "flat.yaml"), "r/flat.yaml");
    }
}
