//! The object constructors of a Terraform text, found before hcl-edit parses it (see
//! [`scan_objects`]): the parser's work on an object is the square of its keys, so an object
//! too large is refused before any parse, wherever it sits (#49). Used by `parse` (a file's
//! text) and by `json` (a string of the JSON syntax, read as a template).

use super::HclError;

/// The most keys one object constructor may have. hcl-edit keeps an object's items in a
/// vector-backed map and looks each new key up in it, so parsing an object costs the square of
/// its size (40,000 keys: 16 s; issue 36). A larger object is refused before parsing, with a
/// clear finding, after a scan that costs the file's length.
pub(super) const MAX_OBJECT_KEYS: usize = 5_000;

/// The error for an object of `keys` keys at `at`.
pub(super) fn too_many_keys(at: usize, keys: usize) -> HclError {
    HclError {
        message: format!(
            "an object of about {keys} keys; taintlint reads objects of up to {MAX_OBJECT_KEYS} keys (the HCL parser's work grows with the square of an object's size)"
        ),
        at,
        limit: true,
    }
}

/// The error for a template of Terraform's JSON syntax (a string's text, `raw`, at `at` of
/// its file) that holds an object larger than the parser reads (see [`scan_objects`]).
pub(super) fn refuse_template(raw: &str, at: usize) -> Option<HclError> {
    let end = raw.len();
    let found = scan_from(raw, true, vec![Open::Heredoc { body_end: end, end }]);
    let (_, keys) = found.largest.filter(|(_, n)| *n > MAX_OBJECT_KEYS)?;
    Some(too_many_keys(at, keys))
}

/// The bytes [`scan_objects`] looks at.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let bytes = b"#/\"<{}()[]=:$%\\\n";
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
};

/// What [`scan_objects`] finds of a text's object constructors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Objects {
    /// The start and the number of keys of the one with the most keys.
    pub(super) largest: Option<(usize, usize)>,
    /// The sum of the squares of their key counts: what parsing them costs hcl-edit (see
    /// [`MAX_OBJECT_KEYS`]).
    pub(super) square_keys: u64,
}

/// One open construct of the scan.
pub(super) enum Open {
    /// `{`, `(` or `[`: (is an object constructor, its start, keys so far).
    Bracket(bool, usize, usize),
    /// A quoted template (`"…"`): its text until the closing quote.
    Quoted,
    /// A heredoc's text, up to the line that is its marker (`end`: that line's end).
    Heredoc { body_end: usize, end: usize },
    /// An interpolation or directive (`${ … }`, `%{ … }`) in a template: an expression.
    Interpolation,
}

/// The object constructors of a text, as hcl-edit's parser will build them: one pass, keeping
/// the constructs open at each byte (brackets, quoted templates and heredocs, and the
/// interpolations inside templates, whose expressions may hold objects too). A `{` opens an
/// object unless it is a block's body (after a block's type or a quoted label: an identifier
/// or a `"`, but not the `in` of a `for` expression); an object's keys are counted as the `=`
/// and `:` at its own level (an estimate: a conditional's `:` counts too). Comments are
/// skipped. `skip`: pass over the bytes it does not look at in one step (off, byte by byte:
/// the reference the tests compare it with).
pub(super) fn scan_objects(text: &str, skip: bool) -> Objects {
    scan_from(text, skip, Vec::new())
}

/// [`scan_objects`] from inside the constructs of `stack` (a template's text: a heredoc's
/// that ends with the text).
pub(super) fn scan_from(text: &str, skip: bool, mut stack: Vec<Open>) -> Objects {
    let b = text.as_bytes();
    let mut found = Objects::default();
    let close = |start: usize, n: usize, found: &mut Objects| {
        found.square_keys = found
            .square_keys
            .saturating_add((n as u64).saturating_mul(n as u64));
        if found.largest.is_none_or(|(_, m)| n > m) {
            found.largest = Some((start, n));
        }
    };
    let mut last = b'\n';
    let mut i = 0;
    while i < b.len() {
        // Past the bytes that are none of the ones below (most of a file), keeping the last
        // that is not white space.
        // (A heredoc's text ends where its marker's line starts, whatever the byte there.)
        let limit = match stack.last() {
            Some(Open::Heredoc { body_end, .. }) => (*body_end).min(b.len()),
            _ => b.len(),
        };
        let from = i;
        while skip && i < limit && !SPECIAL[b[i] as usize] {
            i += 1;
        }
        if let Some(&c) = b[from..i].iter().rev().find(|c| !c.is_ascii_whitespace()) {
            last = c;
        }
        let c = b.get(i).copied().unwrap_or(b'\n');
        if i >= b.len() && !matches!(stack.last(), Some(Open::Heredoc { .. })) {
            break;
        }
        // Inside a template's text: only its end and its interpolations count.
        let template = match stack.last() {
            Some(Open::Quoted) => Some(None),
            Some(Open::Heredoc { body_end, end }) => Some(Some((*body_end, *end))),
            _ => None,
        };
        if let Some(heredoc) = template {
            if let Some((body_end, end)) = heredoc
                && i >= body_end
            {
                stack.pop();
                i = end;
                last = b'"';
                continue;
            }
            match c {
                b'\\' if heredoc.is_none() => i += 2,
                b'"' if heredoc.is_none() => {
                    stack.pop();
                    last = b'"';
                    i += 1;
                }
                // A quoted template ends at its line (hcl-edit's error, past this scan).
                b'\n' if heredoc.is_none() => {
                    stack.pop();
                    last = b'\n';
                    i += 1;
                }
                b'$' | b'%' if b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&b'{') => i += 3,
                b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                    stack.push(Open::Interpolation);
                    // An object may start the expression: `${ {a = 1} }`.
                    last = b'(';
                    i += 2;
                }
                _ => i += 1,
            }
            continue;
        }
        match c {
            b'#' => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            b'"' => {
                stack.push(Open::Quoted);
                i += 1;
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') => {
                if let Some((body, body_end, end)) = heredoc_at(text, i) {
                    stack.push(Open::Heredoc { body_end, end });
                    i = body;
                    continue;
                }
            }
            b'{' => {
                let object = match last {
                    b'"' => false,
                    c if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' => {
                        word_before(b, i) == b"in"
                    }
                    _ => true,
                };
                stack.push(Open::Bracket(object, i, 0));
            }
            b'(' | b'[' => stack.push(Open::Bracket(false, i, 0)),
            b'}' if matches!(stack.last(), Some(Open::Interpolation)) => {
                stack.pop();
                i += 1;
                continue;
            }
            b'}' | b')' | b']' => {
                if let Some(Open::Bracket(object, start, n)) = stack.pop()
                    && object
                {
                    close(start, n, &mut found);
                }
            }
            b'=' | b':' => {
                let next = b.get(i + 1).copied();
                let prev = if i > 0 { b[i - 1] } else { 0 };
                let operator = matches!(next, Some(b'=') | Some(b'>'))
                    || matches!(prev, b'=' | b'!' | b'<' | b'>');
                if !operator && let Some(Open::Bracket(true, _, n)) = stack.last_mut() {
                    *n += 1;
                }
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            last = c;
        }
        i += 1;
    }
    // An object left open (a syntax error the parser reports).
    for open in stack {
        if let Open::Bracket(true, start, n) = open {
            close(start, n, &mut found);
        }
    }
    found
}

/// The identifier that ends right before `at` (white space between), as bytes.
fn word_before(b: &[u8], at: usize) -> &[u8] {
    let end = b[..at]
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |e| e + 1);
    let start = b[..end]
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-'))
        .map_or(0, |s| s + 1);
    &b[start..end]
}

/// The heredoc that starts at `at` (`<<EOT` or `<<-EOT`): where its text starts (after the
/// introducer's line), where the line of its marker starts, and where that line ends; `None`
/// when `at` is no heredoc's start.
fn heredoc_at(text: &str, at: usize) -> Option<(usize, usize, usize)> {
    let b = text.as_bytes();
    let mut j = at + 2;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    let start = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    if j == start {
        return None;
    }
    let marker = &text[start..j];
    let body = memchr::memchr(b'\n', &b[j..]).map_or(b.len(), |e| j + e + 1);
    let mut k = body;
    while k < b.len() {
        let end = memchr::memchr(b'\n', &b[k..]).map_or(b.len(), |e| k + e);
        if text[k..end].trim() == marker {
            return Some((body, k, end));
        }
        k = end + 1;
    }
    Some((body, b.len(), b.len()))
}
