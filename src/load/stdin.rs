//! Standard input: read with the checks a file gets, and `helm template` output split into
//! the templates it was rendered from.

use std::io::Read;

use super::{ReadFailure, decode};

/// Reads standard input with the same checks as a file.
pub fn read(max_size: u64) -> Result<String, ReadFailure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadFailure::Io(e.to_string()))?;
    if bytes.len() as u64 > max_size {
        return Err(ReadFailure::TooLarge {
            size: bytes.len() as u64,
            limit: max_size,
        });
    }
    decode(bytes)
}

/// Splits Helm output on stdin into one input per `# Source: chart/templates/x.yaml`, so
/// findings name the template and the line within its rendered document.
pub fn split_helm(name: &str, text: String) -> Vec<(String, String)> {
    if !text.contains("# Source: ") {
        return vec![(name.to_string(), text)];
    }
    let mut out = Vec::new();
    let mut chunk_start = 0;
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if (line.starts_with("---") && line[3..].trim().is_empty()) && offset > 0 {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    for end in starts {
        let chunk = &text[chunk_start..end];
        let source = chunk
            .lines()
            .take_while(|l| l.starts_with('#') || l.starts_with("---") || l.trim().is_empty())
            .find_map(|l| l.strip_prefix("# Source: "))
            .map(str::trim);
        match source {
            Some(src) => out.push((src.to_string(), chunk.to_string())),
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
